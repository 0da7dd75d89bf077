package httpapi

// The JSON API under /api/v1/ (issue 9 "Registering", issue 10's rules).
// Tokens go in "Authorization: Bearer …". In /api/v1/names/{urn} the name
// is one path segment: the client percent-encodes its "/" and "%"
// (urn:example:a/b is sent as urn:example:a%2Fb) and the ServeMux decodes
// the segment exactly once (it splits the escaped path into segments
// before unescaping each, and cleans only the escaped path, so %2F..%2F
// stays inside the name).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/internal/strictjson"
	"github.com/urikit/urikit/urn"
)

// authenticate returns the principal of the request's bearer token; the
// error is a *problem for an Authorization header of another scheme, else
// the Service's (no token, an unknown one).
func (h *handler) authenticate(r *http.Request) (resolver.Principal, error) {
	v := r.Header.Get("Authorization")
	tok := ""
	if v != "" {
		scheme, rest, _ := strings.Cut(v, " ")
		if !strings.EqualFold(scheme, "Bearer") {
			return resolver.Principal{}, newProblem(http.StatusUnauthorized, ptUnauthorized,
				"send the token as Authorization: Bearer TOKEN").at("Authorization", -1)
		}
		tok = strings.TrimSpace(rest)
	}
	return h.svc.Authenticate(r.Context(), tok)
}

// decode reads the JSON body into v; the error is a *problem. Unknown
// members are an error (they are most often misspelt ones), and so is a
// member name that is a known one in other case ("Locations"), which
// encoding/json alone would take, a member name given twice in an object
// (encoding/json keeps the last), and a body that is not UTF-8; an empty
// body is one when !allowEmpty.
func (c *apiCall) decode(v any, allowEmpty bool) error {
	r := c.r
	if ct := r.Header.Get("Content-Type"); ct != "" {
		// application/x-www-form-urlencoded is what curl -d declares when
		// told nothing else; the body is read as JSON all the same (a
		// form cannot carry a token: no cross-site form can write here).
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != mtJSON && !strings.HasSuffix(mt, "+json") && mt != "application/x-www-form-urlencoded" {
			return newProblem(http.StatusUnsupportedMediaType, ptMediaType,
				"the body must be application/json, not "+strconv.Quote(truncate(ct, 64))).at("Content-Type", -1)
		}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return c.h.tooLargeProblem(c.rw)
		}
		return newProblem(http.StatusBadRequest, ptInvalid, "the body could not be read: "+err.Error()).at("body", -1)
	}
	// JSON text is UTF-8 (RFC 8259 §8.1). encoding/json replaces other
	// bytes in a string with U+FFFD, which the Service's own checks of
	// text would then take for what the client sent.
	if i := strictjson.InvalidUTF8(body); i >= 0 {
		return newProblem(http.StatusBadRequest, ptInvalid,
			fmt.Sprintf("the body is not UTF-8: byte 0x%02X at offset %d does not belong to a UTF-8 encoded character (JSON text is UTF-8, RFC 8259 §8.1)", body[i], i)).at("body", i)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if allowEmpty {
			return nil
		}
		return newProblem(http.StatusBadRequest, ptInvalid, "the body must be a JSON object").at("body", 0)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err = dec.Decode(v)
	var se *json.SyntaxError
	if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) {
		return jsonProblem(err, int64(len(body)))
	}
	// strictjson names the member at fault by its whole path
	// ("locations[1].url"), where encoding/json drops the index.
	if cerr := strictjson.Check(body, v); cerr != nil {
		return jsonProblem(cerr, int64(len(body)))
	}
	if err != nil {
		return jsonProblem(err, int64(len(body)))
	}
	if rest := bytes.TrimLeft(body[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return newProblem(http.StatusBadRequest, ptInvalid, "the body holds more than one JSON value").at("body", len(body)-len(rest))
	}
	return nil
}

// jsonProblem says what is wrong with a JSON body of n bytes, and where.
func jsonProblem(err error, n int64) *problem {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var ce *strictjson.Error
	switch {
	case errors.As(err, &ce) && ce.Duplicate:
		// A fault of the JSON text, as a syntax error is: where in the
		// body, the member's path in the detail.
		return newProblem(http.StatusBadRequest, ptInvalid, ce.Describe("the body")).at("body", ce.Offset)
	case errors.As(err, &ce):
		f := ce.Path
		if f == "" {
			f = "body"
		}
		return newProblem(http.StatusBadRequest, ptInvalid, ce.Describe("the body")).at(f, -1)
	case errors.As(err, &se):
		// Offset counts the bytes read, the offending one included.
		return newProblem(http.StatusBadRequest, ptInvalid, "the body is not valid JSON: "+se.Error()).at("body", int(max(se.Offset-1, 0)))
	case errors.As(err, &te):
		f := strings.TrimPrefix(te.Field, "RecordInput.") // the embedded struct of putBody
		if f == "" {
			f = "body"
		}
		return newProblem(http.StatusBadRequest, ptInvalid, fmt.Sprintf("%s must be %s, not a JSON %s", f, jsonKind(te.Type.Kind().String()), te.Value)).at(f, -1)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return newProblem(http.StatusBadRequest, ptInvalid, "the body ends in the middle of a JSON value").at("body", int(n))
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		f, _ := strconv.Unquote(name)
		return newProblem(http.StatusBadRequest, ptInvalid, "unknown member "+name).at(f, -1)
	}
	return newProblem(http.StatusBadRequest, ptInvalid, "the body is not what this resource takes: "+msg).at("body", -1)
}

func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "int", "int64", "int32", "uint", "uint64", "float64":
		return "a number"
	case "bool":
		return "true or false"
	}
	return "of another type"
}

// pathID reads the positive integer path parameter name; the error is a
// *problem.
func (c *apiCall) pathID(name string) (int64, error) {
	v := c.r.PathValue(name)
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, newProblem(http.StatusBadRequest, ptInvalid, name+" must be a positive integer, not "+strconv.Quote(truncate(v, 32))).at(name, -1)
	}
	return n, nil
}

// wrote sets the read-your-writes position on the answer to a write that
// succeeded. The write is durable whatever happens here, so a failure to
// get the position is logged, never answered.
func (h *handler) wrote(rw *respWriter, r *http.Request, position func(context.Context) (string, error)) {
	pos, err := position(r.Context())
	if err != nil {
		h.log.LogAttrs(r.Context(), slog.LevelWarn, "no read-your-writes position", slog.String("error", err.Error()))
		return
	}
	if pos != "" {
		rw.Header().Set(PositionHeader, pos)
	}
}

// withMember returns the JSON object obj with one more member.
func withMember(obj []byte, name string, v any) []byte {
	val, err := json.Marshal(v)
	if err != nil || len(obj) < 2 || obj[len(obj)-1] != '}' {
		return obj
	}
	key, _ := json.Marshal(name)
	out := append([]byte(nil), obj[:len(obj)-1]...)
	if len(obj) > 2 {
		out = append(out, ',')
	}
	out = append(out, key...)
	out = append(out, ':')
	out = append(out, val...)
	return append(out, '}')
}

func writeRaw(rw http.ResponseWriter, status int, b []byte) {
	b = append(b, '\n')
	hd := rw.Header()
	hd.Set("Content-Type", mtJSON)
	hd.Set("Content-Length", strconv.Itoa(len(b)))
	rw.WriteHeader(status)
	rw.Write(b)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("{}")
	}
	return b
}

// ---- Authorities and tokens ----

type authorityBody struct {
	Name     string   `json:"name"`
	Prefixes []string `json:"prefixes"`
}

// createAuthority is POST /api/v1/authorities (admin).
func (h *handler) createAuthority(c *apiCall) (answer, error) {
	var in authorityBody
	if err := c.decode(&in, false); err != nil {
		return answer{}, err
	}
	a, tok, err := h.svc.CreateAuthority(c.writeContext(), c.p, in.Name, in.Prefixes)
	if err != nil {
		return answer{}, err
	}
	return answer{status: http.StatusCreated, location: "/api/v1/authorities/" + strconv.FormatInt(a.ID, 10),
		body: rawJSON(withMember(mustJSON(a), "token", tok))}, nil
}

// listAuthorities is GET /api/v1/authorities (admin).
func (h *handler) listAuthorities(c *apiCall) (answer, error) {
	as, err := h.svc.Authorities(c.ctx(), c.p)
	if err != nil {
		return answer{}, err
	}
	return answer{status: http.StatusOK, body: nonNil(as)}, nil
}

// tokenIdentity is the body of GET /api/v1/token.
type tokenIdentity struct {
	Admin     bool  `json:"admin"`
	Authority int64 `json:"authority,omitempty"` // a maintainer's
	ID        int64 `json:"id,omitempty"`        // a maintainer's token ID
}

// whoAmI is GET /api/v1/token: whose token the request presents, which
// any valid token may ask. A client learns so whether its token is the
// admin's or a maintainer's (and of which authority) without asking for
// something the token may not have, which would be logged and counted as
// a refusal (403) every time.
func (h *handler) whoAmI(c *apiCall) (answer, error) {
	return answer{status: http.StatusOK, body: tokenIdentity{Admin: c.p.Admin, Authority: c.p.AuthorityID, ID: c.p.TokenID}}, nil
}

// getAuthority is GET /api/v1/authorities/{id} (admin or its maintainers).
func (h *handler) getAuthority(c *apiCall) (answer, error) {
	id, err := c.pathID("id")
	if err != nil {
		return answer{}, err
	}
	a, toks, err := h.svc.Authority(c.ctx(), c.p, id)
	if err != nil {
		return answer{}, err
	}
	return answer{status: http.StatusOK, body: rawJSON(withMember(mustJSON(a), "tokens", nonNil(toks)))}, nil
}

type tokenBody struct {
	Label string `json:"label"`
}

// addToken is POST /api/v1/authorities/{id}/tokens: a new maintainer's
// token, shown once.
func (h *handler) addToken(c *apiCall) (answer, error) {
	id, err := c.pathID("id")
	if err != nil {
		return answer{}, err
	}
	var in tokenBody
	if err := c.decode(&in, true); err != nil {
		return answer{}, err
	}
	t, tok, err := h.svc.AddToken(c.writeContext(), c.p, id, in.Label)
	if err != nil {
		return answer{}, err
	}
	return answer{status: http.StatusCreated, location: fmt.Sprintf("/api/v1/authorities/%d/tokens/%d", id, t.ID),
		body: rawJSON(withMember(mustJSON(t), "token", tok))}, nil
}

// getToken is GET /api/v1/authorities/{id}/tokens/{token}, where the
// answer to addToken points (Location): the token's id, label and times,
// never its secret; for the admin and the authority's maintainers.
func (h *handler) getToken(c *apiCall) (answer, error) {
	id, tid, err := c.tokenPath()
	if err != nil {
		return answer{}, err
	}
	_, toks, err := h.svc.Authority(c.ctx(), c.p, id)
	if err != nil {
		return answer{}, err
	}
	for _, t := range toks {
		if t.ID == tid {
			return answer{status: http.StatusOK, body: rawJSON(mustJSON(t))}, nil
		}
	}
	return answer{}, &resolver.Error{Kind: resolver.KindNotFound, Message: fmt.Sprintf("authority %d has no token %d", id, tid), Offset: -1}
}

// tokenPath reads the authority's and the token's ids of
// /api/v1/authorities/{id}/tokens/{token}.
func (c *apiCall) tokenPath() (id, token int64, err error) {
	if id, err = c.pathID("id"); err != nil {
		return 0, 0, err
	}
	token, err = c.pathID("token")
	return id, token, err
}

// revokeToken is DELETE /api/v1/authorities/{id}/tokens/{token}.
func (h *handler) revokeToken(c *apiCall) (answer, error) {
	id, tid, err := c.tokenPath()
	if err != nil {
		return answer{}, err
	}
	if err := h.svc.RevokeToken(c.writeContext(), c.p, id, tid); err != nil {
		return answer{}, err
	}
	return answer{status: http.StatusNoContent}, nil
}

type transferBody struct {
	Name string `json:"name"`
}

// transferAuthority is POST /api/v1/authorities/{id}/transfer (admin):
// the old maintainers' tokens are revoked, the new owner gets a token.
func (h *handler) transferAuthority(c *apiCall) (answer, error) {
	id, err := c.pathID("id")
	if err != nil {
		return answer{}, err
	}
	var in transferBody
	if err := c.decode(&in, false); err != nil {
		return answer{}, err
	}
	a, tok, err := h.svc.TransferAuthority(c.writeContext(), c.p, id, in.Name)
	if err != nil {
		return answer{}, err
	}
	return answer{status: http.StatusOK, body: rawJSON(withMember(mustJSON(a), "token", tok))}, nil
}

// ---- Names ----

// putBody is a PUT's body: resolver.RecordInput, plus the members of the
// record's GET form that a PUT cannot set, which are ignored, so that a
// record read with GET can be edited and sent back. "urn", when given,
// must name the record of the path.
type putBody struct {
	resolver.RecordInput
	URN       *string         `json:"urn"`
	Status    json.RawMessage `json:"status"`
	Successor json.RawMessage `json:"successor"`
	Reason    json.RawMessage `json:"reason"`
	Authority json.RawMessage `json:"authority"`
	Created   json.RawMessage `json:"created"`
	Updated   json.RawMessage `json:"updated"`
	// The records it replaces: read, never written (another name's
	// withdrawal names its successor).
	Predecessors     json.RawMessage `json:"predecessors"`
	MorePredecessors json.RawMessage `json:"more_predecessors"`
}

// noQuery refuses a write to /api/v1/names/{urn} whose request target has
// a query. The name is the path segment only: a "?" sent unencoded ends
// it (RFC 3986 §3.3), so PUT /api/v1/names/urn:example:a?+r would write
// urn:example:a, not the name the client meant (an RFC 8141 §2.3.1
// r-component). These routes take no query, so one is that mistake.
func noQuery(op operation) operation {
	return func(c *apiCall) (answer, error) {
		target, _, query := requestTarget(c.r)
		if strings.IndexByte(target, '?') >= 0 {
			return answer{}, newProblem(http.StatusBadRequest, ptInvalid,
				"this route takes no query, but the request target has one ("+strconv.Quote("?"+truncate(query, 64))+
					`): the name ends at the "?". A "?" of the name is sent percent-encoded, as %3F`).at("query", -1)
		}
		return op(c)
	}
}

// putName is PUT /api/v1/names/{urn}: 201 when it creates the record, 200
// when it replaces it (or it was already so); 412 when If-Match,
// If-Unmodified-Since or If-None-Match is false for the record the name
// has (see conditional.go).
func (h *handler) putName(c *apiCall) (answer, error) {
	name := c.r.PathValue("urn")
	var in putBody
	if err := c.decode(&in, false); err != nil {
		return answer{}, err
	}
	// Names over the limit are 414 wherever they are (issue 9), the
	// aliases of a body too.
	for i, a := range in.Aliases {
		if len(a) > h.opts.MaxTarget {
			p := newProblem(http.StatusRequestURITooLong, ptTooLong,
				fmt.Sprintf("aliases[%d] is %d bytes long; names are at most %d", i, len(a), h.opts.MaxTarget)).at(fmt.Sprintf("aliases[%d]", i), -1)
			p.Limit = int64(h.opts.MaxTarget)
			return answer{}, p
		}
	}
	if in.URN != nil && !sameName(*in.URN, name) {
		return answer{}, newProblem(http.StatusBadRequest, ptInvalid,
			"the body's urn "+strconv.Quote(truncate(*in.URN, 256))+" is not the name in the path").at("urn", -1)
	}
	pre, err := preconditions(c.r)
	if err != nil {
		return answer{}, err
	}
	rec, created, err := h.svc.Put(c.writeContext(), c.p, name, in.RecordInput, pre)
	if err != nil {
		return answer{}, err
	}
	// No ETag, nor Last-Modified: a successful PUT must not send a
	// validator when the resource does not store the request's content as
	// sent (RFC 9110 §9.3.4), and this one stores a record it made from
	// it. The body is the record as a GET shows it; a GET or HEAD gives
	// its validators.
	if created {
		return answer{status: http.StatusCreated, location: "/api/v1/names/" + segment(rec.URN), body: rec}, nil
	}
	return answer{status: http.StatusOK, body: rec}, nil
}

// segment writes a name as one path segment of /api/v1/names/: "%" as
// %25 and "/" as %2F. A registered name holds no "?" or "#" and no byte
// that is not allowed in a path, so nothing else needs encoding.
func segment(name string) string { return segmentEscaper.Replace(name) }

var segmentEscaper = strings.NewReplacer("%", "%25", "/", "%2F")

func sameName(a, b string) bool {
	ua, err := urn.Parse(a)
	if err != nil {
		return false
	}
	ub, err := urn.Parse(b)
	return err == nil && ua.Key() == ub.Key()
}

// getName is GET /api/v1/names/{urn}: the record, withdrawn or not; as of
// a time with ?as-of=<RFC 3339> or Memento's Accept-Datetime. It carries
// the record's ETag and Last-Modified; If-None-Match naming the tag, or
// If-Modified-Since not before the date, is 304, a false If-Match or
// If-Unmodified-Since 412.
func (h *handler) getName(c *apiCall) (answer, error) {
	u, err := resolver.ParseName("urn", c.r.PathValue("urn"))
	if err != nil {
		return answer{}, err
	}
	ctx, err := c.readContext()
	if err != nil {
		return answer{}, err
	}
	c.rw.Header().Set("Vary", "Accept-Datetime")
	asOf, hasAsOf, p := apiAsOf(c.r)
	if p != nil {
		return answer{}, p
	}
	pre, err := preconditions(c.r)
	if err != nil {
		return answer{}, err
	}
	var rec resolver.Record
	if hasAsOf {
		var e resolver.Entry
		rec, e, err = h.svc.LookupAsOf(ctx, u, asOf)
		if err == nil {
			c.rw.Header().Set("Memento-Datetime", e.Time.UTC().Format(http.TimeFormat))
		}
	} else if rec, err = h.svc.Lookup(ctx, u); err == nil {
		// The records it replaces are part of the answer, and of its
		// ETag. As of a time there are none: the index holds today's
		// successors, and which records named it then only a read of
		// the whole history would tell (docs/httpapi.md).
		rec, err = h.svc.WithPredecessors(ctx, rec)
	}
	if err != nil {
		return answer{}, err
	}
	// Conditions are evaluated once the record is found: for a name
	// without one, 404 takes precedence (RFC 9110 §13.2.1). As of a
	// time, the validators and the conditions are those of the record as
	// it stood then, the representation answered.
	setETag(c.rw, rec)
	if err := pre.Check(u.AssignedName(), &rec); err != nil {
		var e *resolver.Error
		if errors.As(err, &e) && e.Field == "If-None-Match" {
			// RFC 9110 §13.1.2: a GET or HEAD whose If-None-Match is
			// false is answered 304 Not Modified, with the ETag.
			return answer{status: http.StatusNotModified}, nil
		}
		return answer{}, err
	}
	// If-Modified-Since comes last (RFC 9110 §13.2.2 step 4). A 304
	// carries the ETag but not Last-Modified: §15.4.5 asks for no other
	// representation metadata when an ETag is there.
	if notModified(c.r, rec) {
		return answer{status: http.StatusNotModified}, nil
	}
	setLastModified(c.rw, rec.LastModified())
	setPredecessorLinks(c.rw.Header(), rec)
	return answer{status: http.StatusOK, body: rec}, nil
}

// apiAsOf reads ?as-of= (a time or a date: parseAsOf) or else
// Accept-Datetime.
func apiAsOf(r *http.Request) (time.Time, bool, *problem) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return time.Time{}, false, newProblem(http.StatusBadRequest, ptInvalid, "the query is not well-formed: "+err.Error()).at("query", -1)
	}
	if v, ok := q["as-of"]; ok {
		if len(v) > 1 {
			return time.Time{}, false, newProblem(http.StatusBadRequest, ptInvalid,
				"as-of is given "+strconv.Itoa(len(v))+" times: give one, "+asOfForms).at("as-of", -1)
		}
		s := v[0]
		t, err := parseAsOf(s)
		if err != nil {
			// A "+" of a time zone offset sent unencoded reads as a space.
			t, err = parseAsOf(strings.ReplaceAll(s, " ", "+"))
		}
		if err != nil {
			return time.Time{}, false, badAsOf(s)
		}
		return t, true, nil
	}
	return acceptDatetime(r)
}

type withdrawBody struct {
	Reason    string `json:"reason"`
	Successor string `json:"successor"`
}

// withdrawName is POST /api/v1/names/{urn}/withdraw, conditional on
// If-Match, If-Unmodified-Since and If-None-Match as putName is.
func (h *handler) withdrawName(c *apiCall) (answer, error) {
	var in withdrawBody
	if err := c.decode(&in, true); err != nil {
		return answer{}, err
	}
	pre, err := preconditions(c.r)
	if err != nil {
		return answer{}, err
	}
	rec, err := h.svc.Withdraw(c.writeContext(), c.p, c.r.PathValue("urn"), in.Reason, in.Successor, pre)
	if err != nil {
		return answer{}, err
	}
	// No ETag or Last-Modified either (see putName): the answer of a
	// POST to …/withdraw is not a representation of the resource it was
	// posted to.
	return answer{status: http.StatusOK, body: rec}, nil
}

// ---- Delegation rules (admin) ----

type ruleBody struct {
	Prefix string `json:"prefix"`
	Target string `json:"target"`
}

// addRule is POST /api/v1/rules.
func (h *handler) addRule(c *apiCall) (answer, error) {
	var in ruleBody
	if err := c.decode(&in, false); err != nil {
		return answer{}, err
	}
	rule, err := h.svc.AddRule(c.writeContext(), c.p, in.Prefix, in.Target)
	if err != nil {
		return answer{}, err
	}
	return answer{status: http.StatusCreated, location: "/api/v1/rules/" + strconv.FormatInt(rule.ID, 10), body: rule}, nil
}

// listRules is GET /api/v1/rules.
func (h *handler) listRules(c *apiCall) (answer, error) {
	if !c.p.Admin {
		return answer{}, newProblem(http.StatusForbidden, ptForbidden, "only the admin token may read the delegation rules")
	}
	rules, err := h.svc.Rules(c.ctx())
	if err != nil {
		return answer{}, err
	}
	return answer{status: http.StatusOK, body: nonNil(rules)}, nil
}

// removeRule is DELETE /api/v1/rules/{id}.
func (h *handler) removeRule(c *apiCall) (answer, error) {
	id, err := c.pathID("id")
	if err != nil {
		return answer{}, err
	}
	if err := h.svc.RemoveRule(c.writeContext(), c.p, id); err != nil {
		return answer{}, err
	}
	return answer{status: http.StatusNoContent}, nil
}
