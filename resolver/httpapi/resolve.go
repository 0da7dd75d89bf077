package httpapi

// The resolution services: RFC 2169's THTTP encoding of the services of
// RFC 2483, at GET /uri-res/<service>?<uri>, and the path style GET /<urn>.
//
// The resolver never fetches a location for a caller. RFC 2169 §3.3/§3.4
// let N2R and N2Rs return the resource itself, but a resolver that does so
// becomes an open proxy: whoever can register a location (or slip a
// malicious entry into the directory, RFC 2483 §4.1's "Malicious
// Redirection") could make the resolver fetch internal addresses on their
// behalf, and the resolver would carry the resource's risks (RFC 2483 §5's
// uri-list notes: fetching a URI can cost money or reveal who asked) as if
// they were its own. So the "R" services answer with what to fetch, never
// with what was fetched: I2R/N2R redirect (to the location whose media type
// the Accept header prefers), I2Rs/N2Rs answer 300 Multiple Choices with
// the list of acceptable locations, and the client fetches what it chooses.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/federate"
	"github.com/urikit/urikit/resolver/internal/link"
	"github.com/urikit/urikit/urn"
)

// kind is what a resolution service answers with.
type kind uint8

const (
	kRedirect  kind = iota // N2L, I2L: redirect to the first location
	kResource              // N2R, I2R: redirect to the location Accept prefers
	kLocations             // N2Ls, I2Ls: 200 and the list of locations
	kResources             // N2Rs, I2Rs: 300 and the acceptable locations
	kURC                   // N2C, I2C: the record's description
	kURCs                  // I2Cs: the record's descriptions over time
	kName                  // I2N: the record's own name
	kNames                 // N2Ns, I2Ns: every name of the record
	kLocNames              // L2Ns: the names of the records at a location
	kLocLocs               // L2Ls: every location of those records
	kLocURC                // L2C: the description of the record at a location
)

// services lists every service by its canonical spelling: RFC 2169 §3's
// N2x and L2x, and RFC 2483 §4's I2x as the rfc2141bis draft's registry
// (seed 003 §9.2.2) spells them.
//
// What the plural and URN services mean here (RFC 2483 leaves their
// algorithm "opaque"):
//   - I2Cs returns every description the directory has of the resource:
//     the record as it stands now and as it stood after each earlier
//     change, newest first (RFC 2483 §4.5 counts a revision history among
//     the things a URC can be).
//   - I2N returns the record's own name: the spelling first registered,
//     which is what the directory knows the resource by, whichever of its
//     names or aliases was asked for. I2Ns and N2Ns return all of them,
//     the name first, then the aliases in their order: names that both
//     naming authorities agreed on when the alias was registered (RFC 2483
//     §4.7), never names that are merely equivalent by the rules of the
//     namespace (those the directory finds anyway).
var services = []struct {
	name string
	kind kind
}{
	{"N2L", kRedirect}, {"N2Ls", kLocations}, {"N2R", kResource}, {"N2Rs", kResources},
	{"N2C", kURC}, {"N2Ns", kNames}, {"L2Ns", kLocNames}, {"L2Ls", kLocLocs}, {"L2C", kLocURC},
	{"I2L", kRedirect}, {"I2Ls", kLocations}, {"I2R", kResource}, {"I2Rs", kResources},
	{"I2C", kURC}, {"I2Cs", kURCs}, {"I2N", kName}, {"I2Ns", kNames},
}

// serviceNames lists the services for error messages.
var serviceNames = func() []string {
	out := make([]string, len(services))
	for i, s := range services {
		out[i] = s.name
	}
	return out
}()

// lookupService finds a service. RFC 2483 §2.1 makes the mnemonics case
// insensitive, which is how /uri-res/ takes them; directives are case
// sensitive (seed 003 §2.3), so s= asks for exact spellings.
func lookupService(name string, fold bool) (string, kind, bool) {
	for _, s := range services {
		if s.name == name || fold && strings.EqualFold(s.name, name) {
			return s.name, s.kind, true
		}
	}
	return "", 0, false
}

func (k kind) byLocation() bool { return k >= kLocNames }

// Header values of every resolution answer, made once: a header set with
// Header.Set costs an allocation per request, and these never change.
// Nothing in net/http modifies a header value slice in place.
var (
	varyValue     = []string{"Accept, Accept-Datetime"}
	serviceValues = func() map[string][]string {
		m := make(map[string][]string, len(services))
		for _, s := range services {
			m[s.name] = []string{s.name}
		}
		return m
	}()
)

// setServiceHeaders sets Vary (the answers depend on Accept and
// Accept-Datetime) and Urikit-Service (the service that answered, which
// for the path style may be the default one).
func setServiceHeaders(hd http.Header, service string) {
	hd["Vary"] = varyValue
	if v, ok := serviceValues[service]; ok {
		hd["Urikit-Service"] = v
	}
}

// nameRequest is one request to resolve a name.
type nameRequest struct {
	text    string      // the URN as given, with its components
	req     urn.Request // parsed
	service string
	kind    kind
	hops    int
	asOf    time.Time
	hasAsOf bool
	q       string // the q-component, copied to locations (RFC 8141 §2.3.2)
}

// serveURIRes is GET /uri-res/<service>?<uri> (RFC 2169 §2): the query is
// the URI exactly as written, percent-encodings and all.
func (h *handler) serveURIRes(rw *respWriter, r *http.Request, svc, query string) {
	name, k, ok := lookupService(svc, true)
	if !ok {
		p := newProblem(http.StatusBadRequest, ptUnknownSvc,
			fmt.Sprintf("there is no service %q; the services are %s", truncate(svc, 64), strings.Join(serviceNames, ", ")))
		p.Services = serviceNames
		h.writeProblem(rw, r, p.at("service", -1))
		return
	}
	rw.service = name
	if k.byLocation() {
		h.serveByLocation(rw, r, name, k, query)
		return
	}
	nr, p := h.parseNameRequest(r, query, name, k)
	if p != nil {
		h.writeProblem(rw, r, p)
		return
	}
	h.resolveName(rw, r, nr)
}

// servePathStyle is GET /<urn>: text is the request target as sent after
// its first "/": the name, and in the query its RFC 8141 r-component
// ("?+s=I2Ls") and q-component ("?=lang=en"), or the draft's directive
// list ("?s=I2Ls&as-of=…", seed 003 §2.3).
func (h *handler) servePathStyle(rw *respWriter, r *http.Request, text string) {
	service, k := "", kind(0)
	if name, ok := inflection(text); ok {
		text, service, k = name, "I2C", kURC
	}
	nr, p := h.parseNameRequest(r, text, service, k)
	if p != nil {
		h.writeProblem(rw, r, p)
		return
	}
	rw.service = nr.service
	h.resolveName(rw, r, nr)
}

// inflection recognizes N2T's and ARK's ways of asking about a name
// instead of going there (RESOLVERS.md): "?info", "??" or a bare "?" after
// it. None of them is an RFC 8141 r- or q-component (those start "?+" and
// "?=") nor a directive list, so no other request is taken from anyone;
// they ask for I2C, the name's description (its page for a browser).
func inflection(text string) (name string, ok bool) {
	name, q, found := strings.Cut(text, "?")
	return name, found && (q == "" || q == "?" || q == "info")
}

// parseNameRequest parses a URN with its directives. service is "" for
// the path style, where the s= directive picks it (I2L by default).
func (h *handler) parseNameRequest(r *http.Request, text, service string, k kind) (nameRequest, *problem) {
	nr := nameRequest{text: text, service: service, kind: k}
	if text == "" {
		return nr, newProblem(http.StatusBadRequest, ptMalformedURN, "no URN given: the query is the URN, as in /uri-res/N2L?urn:example:foo").at("urn", 0)
	}
	req, err := urn.ParseRequest(text)
	if err != nil {
		off := 0
		reason := err.Error()
		var ue *urn.Error
		if errors.As(err, &ue) {
			off, reason = ue.Offset, ue.Reason
		}
		return nr, newProblem(http.StatusBadRequest, ptMalformedURN, "not a URN: "+reason).at("urn", off)
	}
	nr.req = req
	// The comment line of a list names the URN as asked: with its RFC
	// 8141 components, which belong to it, but without the draft form's
	// query, which belongs to the URI reference.
	nr.text = req.URN.String()
	d := req.Directives
	if service == "" {
		// Seed 003 §2.3.1: an s= value the resolver does not understand
		// falls back to the default service, I2L.
		nr.service, nr.kind = "I2L", kRedirect
		named := false
		if v, ok := d.Get("s"); ok {
			if name, k, ok := lookupService(v, false); ok && !k.byLocation() {
				nr.service, nr.kind, named = name, k, true
			}
		}
		// DOI's content negotiation (RESOLVERS.md): the default service
		// answers a citation tool that prefers a CSL item with the
		// description, as I2C does, instead of the redirect. A service
		// asked for by name is what the client gets.
		if !named && citationAsked(r.Header.Get("Accept")) != "" {
			nr.service, nr.kind = "I2C", kURC
		}
	}
	// hops: how many resolvers have delegated this request so far (issue
	// 10's loop detection; RFC 8141 §2.3.1 reserves the r-component for
	// resolvers, and equivalence ignores it). The r-component's count is
	// read part by part, as resolver/federate writes it on the way out: an
	// r-component that is not a directive list as a whole ("hops=8&zzz")
	// still carries its count, and a second count is refused rather than
	// dropped: read as none, the count would start again at every round of
	// a loop, which would then never end.
	if n, has, err := federate.Hops(req.URN); err != nil {
		msg := err.Error()
		var e *resolver.Error
		if errors.As(err, &e) {
			msg = e.Message
		}
		return nr, newProblem(http.StatusBadRequest, ptInvalid, msg).at("hops", -1)
	} else if has {
		nr.hops = n
	} else {
		// The draft's query form on the path style (/<urn>?hops=N). Its
		// rule for a repeated keyword (ignore all its values) would leave
		// no count at all: refused too.
		if slices.Contains(d.Ignored, "hops") {
			return nr, newProblem(http.StatusBadRequest, ptInvalid, "the hop count (hops=) is given more than once").at("hops", -1)
		}
		if v, ok := d.Get("hops"); ok {
			// 1 to 9 decimal digits, as resolver/federate writes and reads it.
			n, err := strconv.Atoi(v)
			if err != nil || len(v) > 9 || strings.Trim(v, "0123456789") != "" {
				return nr, newProblem(http.StatusBadRequest, ptInvalid, "hops must be 1 to 9 decimal digits, not "+strconv.Quote(truncate(v, 32))).at("hops", -1)
			}
			nr.hops = n
		}
	}
	// as-of: the name as it was resolved at a time or on a day (parseAsOf);
	// the directive wins over Memento's Accept-Datetime header (RFC 7089
	// §2.1.1). Given twice, the draft's rule (ignore every value) would
	// answer with the name as it is now, which the client did not ask for:
	// refused, as on the names API.
	if slices.Contains(d.Ignored, "as-of") {
		return nr, newProblem(http.StatusBadRequest, ptInvalid, "as-of is given more than once: give one, "+asOfForms).at("as-of", -1)
	}
	if v, ok := d.Get("as-of"); ok {
		dv, err := url.PathUnescape(v)
		t, terr := parseAsOf(dv)
		if err != nil || terr != nil {
			return nr, badAsOf(v)
		}
		nr.asOf, nr.hasAsOf = t, true
	} else if t, ok, p := acceptDatetime(r); p != nil {
		return nr, p
	} else if ok {
		nr.asOf, nr.hasAsOf = t, true
	}
	if q, ok := req.URN.QComponent(); ok {
		nr.q = q
	}
	return nr, nil
}

// acceptDatetime reads Memento's Accept-Datetime (RFC 7089 §2.1.1: an
// HTTP-date).
func acceptDatetime(r *http.Request) (time.Time, bool, *problem) {
	v := r.Header.Get("Accept-Datetime")
	if v == "" {
		return time.Time{}, false, nil
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return time.Time{}, false, newProblem(http.StatusBadRequest, ptInvalid,
			"Accept-Datetime must be an HTTP-date such as Tue, 20 Mar 2001 20:35:00 GMT").at("Accept-Datetime", -1)
	}
	return t, true, nil
}

// readContext applies the read-your-writes position a client presents;
// it has answered when ok is false.
func (h *handler) readContext(rw *respWriter, r *http.Request) (ctx context.Context, ok bool) {
	ctx, err := h.readAfter(r)
	if err != nil {
		h.fail(rw, r, err)
		return nil, false
	}
	return ctx, true
}

// readAfter returns the context that applies the read-your-writes
// position a client presents.
func (h *handler) readAfter(r *http.Request) (context.Context, error) {
	v := r.Header.Get(PositionHeader)
	if v == "" {
		return r.Context(), nil
	}
	return h.pos.ReadAfter(r.Context(), v)
}

// resolveName answers a name service.
func (h *handler) resolveName(rw *respWriter, r *http.Request, nr nameRequest) {
	hd := rw.Header()
	setServiceHeaders(hd, nr.service)
	ctx, ok := h.readContext(rw, r)
	if !ok {
		return
	}
	name := nr.req.URN
	var rec resolver.Record
	var err error
	if nr.hasAsOf {
		var e resolver.Entry
		rec, e, err = h.svc.LookupAsOf(ctx, name, nr.asOf)
		if err == nil {
			// RFC 7089 §2.1.1: the time of the state this answer shows.
			hd.Set("Memento-Datetime", e.Time.UTC().Format(http.TimeFormat))
		}
	} else {
		rec, err = h.svc.Lookup(ctx, name)
	}
	if err != nil && resolver.KindOf(err) == resolver.KindNotFound {
		if nr.hasAsOf {
			// Not as of that time: delegate only a name that has no
			// record now either (one registered later is ours, and was
			// simply not there yet).
			if _, nerr := h.svc.Lookup(ctx, name); resolver.KindOf(nerr) != resolver.KindNotFound || errors.Is(nerr, resolver.ErrReserved) {
				if nerr != nil {
					err = nerr
				}
				h.fail(rw, r, err)
				return
			}
		}
		h.delegate(rw, r, nr, err)
		return
	}
	if err != nil {
		h.fail(rw, r, err)
		return
	}
	if rec.Status == resolver.Withdrawn {
		h.gone(rw, r, rec)
		return
	}
	switch nr.kind {
	case kRedirect:
		if len(rec.Locations) == 0 {
			h.writeProblem(rw, r, newProblem(http.StatusNotFound, ptNotFound, rec.URN+" has no location"))
			return
		}
		h.redirect(rw, r, withQuery(rec.Locations[0].URL, nr.q), rec.Redirect)
	case kResource:
		best, bestQ := -1, 0
		accept := r.Header.Get("Accept")
		for i, l := range rec.Locations {
			if q := locationQ(accept, l.Type); q > bestQ {
				best, bestQ = i, q
			}
		}
		if best < 0 {
			h.notAcceptable(rw, r, rec)
			return
		}
		h.redirect(rw, r, withQuery(rec.Locations[best].URL, nr.q), rec.Redirect)
	case kLocations:
		h.writeLocations(rw, r, http.StatusOK, nr, rec, rec.Locations)
	case kResources:
		accept := r.Header.Get("Accept")
		var keep []resolver.Location
		for _, l := range rec.Locations {
			if locationQ(accept, l.Type) > 0 {
				keep = append(keep, l)
			}
		}
		if len(keep) == 0 {
			h.notAcceptable(rw, r, rec)
			return
		}
		// 300 with the list, and no Location: which one to fetch is the
		// client's choice (RFC 2169 §3.4, RFC 9110 §15.4.1).
		h.writeLocations(rw, r, http.StatusMultipleChoices, nr, rec, keep)
	case kURC:
		// Not as of a time: see getName.
		if !nr.hasAsOf {
			if rec, err = h.svc.WithPredecessors(ctx, rec); err != nil {
				h.fail(rw, r, err)
				return
			}
		}
		h.writeURC(rw, r, rec)
	case kURCs:
		h.writeURCs(rw, r, ctx, nr, rec)
	case kName:
		h.writeNames(rw, r, nr.text, []string{rec.URN})
	case kNames:
		h.writeNames(rw, r, nr.text, append([]string{rec.URN}, rec.Aliases...))
	}
}

// delegate answers a name with no record: a redirect to the resolver the
// Delegator names, 508 when the request has been handed on too often, or
// 404.
//
// A name reserved here (a dropped alias) is answered 404 and never
// delegated: it is this directory's, and another resolver's answer for
// it would be a name reused (seed 000, guideline 2).
func (h *handler) delegate(rw *respWriter, r *http.Request, nr nameRequest, notFound error) {
	if h.opts.Delegator == nil || errors.Is(notFound, resolver.ErrReserved) {
		h.fail(rw, r, notFound)
		return
	}
	// The count the next resolver sees; past federate.MaxHops it cannot
	// be written, but then it is past the limit too (MaxHops is at most
	// federate.MaxHops) and the referral only names, in the 508, where
	// the request would have gone.
	next := min(nr.hops+1, federate.MaxHops)
	ref, ok, err := h.opts.Delegator.Refer(r.Context(), referredName(nr), nr.service, next)
	switch {
	case err != nil && errors.Is(err, resolver.ErrDiscoveryUnavailable):
		// The DNS server failed or did not answer in time, however the
		// time ran out: 503, as docs/federate.md says (Retry-After).
		h.fail(rw, r, err)
		return
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		h.log.LogAttrs(r.Context(), slog.LevelWarn, "delegation timed out", slog.String("name", nr.req.URN.String()), slog.String("error", err.Error()))
		h.writeProblem(rw, r, newProblem(http.StatusGatewayTimeout, ptDelegation, "finding the resolver for this name took too long"))
		return
	case err != nil && resolver.KindOf(err) != resolver.KindInternal:
		h.fail(rw, r, err)
		return
	case err != nil:
		h.log.LogAttrs(r.Context(), slog.LevelWarn, "delegation failed", slog.String("name", nr.req.URN.String()), slog.String("error", err.Error()))
		h.writeProblem(rw, r, newProblem(http.StatusBadGateway, ptDelegation, "finding the resolver for this name failed"))
		return
	case !ok:
		h.fail(rw, r, notFound)
		return
	}
	if nr.hops >= h.opts.MaxHops {
		// The next resolver would see a count past the limit: resolvers
		// are sending this request in a circle (RFC 5842 §7.2).
		p := newProblem(http.StatusLoopDetected, ptLoop, fmt.Sprintf(
			"this request was delegated %d times already (the limit is %d); it would go to %s", nr.hops, h.opts.MaxHops, ref.URL))
		p.Limit = int64(h.opts.MaxHops)
		h.writeProblem(rw, r, p)
		return
	}
	rw.Header().Set("Urikit-Referral", ref.Via)
	// The other resolver answers the request: 303 See Other, as RFC 2169
	// §3.1 answers a resolved name (302 for HTTP/1.0).
	h.redirect(rw, r, ref.URL, http.StatusSeeOther)
}

// referredName is the name a delegation hands on: as the client wrote
// it, with an as-of given in the draft's query form ("/<urn>?as-of=…",
// seed 003 §2.3), which the URN itself does not carry, moved into its
// RFC 8141 r-component ("?+as-of=…", the form the rules' redirect keeps,
// RFC 8141 §2.3.1), so that the next resolver answers as of the same
// time and not with the name's current state. The value goes as the
// client wrote it: parseAsOf took it, and so will another urikit.
func referredName(nr nameRequest) urn.URN {
	u := nr.req.URN
	v, ok := nr.req.Directives.Get("as-of")
	if !nr.req.Draft || !ok {
		return u
	}
	b := []byte(u.AssignedName())
	b = append(b, "?+"...)
	if rc, has := u.RComponent(); has {
		b = append(append(b, rc...), '&')
	}
	b = append(append(b, "as-of="...), v...)
	if q, has := u.QComponent(); has {
		b = append(append(b, "?="...), q...)
	}
	if with, err := urn.Parse(string(b)); err == nil {
		return with
	}
	// Not reached: the value is a directive's (pchar, "/", "?"), which an
	// r-component takes. Should it ever fail, the name goes as it came.
	return u
}

// redirect answers with a redirect to loc with the record's status. RFC
// 2169 §3.1: HTTP/1.1 clients get 303 and HTTP/1.0 clients 302, unless
// the resolver has reasons for another code; the record's redirect status
// is that reason. HTTP/1.0 (RFC 1945 §9.3) knows neither 303 nor 307, so
// those become 302 for it.
func (h *handler) redirect(rw *respWriter, r *http.Request, loc string, code int) {
	if code == 0 {
		code = resolver.DefaultRedirect
	}
	if !r.ProtoAtLeast(1, 1) && (code == http.StatusSeeOther || code == http.StatusTemporaryRedirect) {
		code = http.StatusFound
	}
	rw.Header().Set("Location", loc)
	rw.WriteHeader(code)
}

// setPredecessorLinks links each record rec replaces (relation
// predecessor-version, RFC 5829), in one Link field (RFC 8288 §3) of at
// most link.MaxField bytes: the JSON lists them all (up to
// resolver.MaxPredecessors), and a header that grew with them could
// exceed what clients and proxies read (Python's http.client stops at 100
// fields, curl and nginx at some kilobytes).
func setPredecessorLinks(hd http.Header, rec resolver.Record) {
	if f := link.Field(rec.Predecessors, "predecessor-version"); f != "" {
		hd.Add("Link", f)
	}
}

// gone answers a withdrawn name: 410, with its successor in a Link header
// (RFC 8288, relation "successor-version" of RFC 5829) and in the body.
func (h *handler) gone(rw *respWriter, r *http.Request, rec resolver.Record) {
	detail := rec.URN + " was withdrawn"
	if rec.Reason != "" {
		detail += ": " + rec.Reason
	}
	p := newProblem(http.StatusGone, ptGone, detail)
	p.Record, p.Reason, p.Successor = rec.URN, rec.Reason, rec.Successor
	if rec.Successor != "" {
		rw.Header().Set("Link", "<"+rec.Successor+`>; rel="successor-version"`)
	}
	h.writeProblem(rw, r, p)
}

func (h *handler) notAcceptable(rw *respWriter, r *http.Request, rec resolver.Record) {
	var types []string
	for _, l := range rec.Locations {
		if l.Type != "" {
			types = append(types, l.Type)
		}
	}
	h.writeProblem(rw, r, newProblem(http.StatusNotAcceptable, ptNotAcceptable,
		"no location of "+rec.URN+" has a media type the Accept header takes; they have "+strings.Join(types, ", ")))
}

// locationQ is how much the Accept header likes a location of media type
// typ. A location of unknown type could be anything: it is acceptable when
// */* is, and when there is no */* it is kept as a last resort, below any
// location whose type the client named.
func locationQ(accept, typ string) int {
	if strings.TrimSpace(accept) == "" {
		return 1000
	}
	if typ == "" {
		q := acceptQ(accept, "*/*")
		if q < 0 {
			return 1
		}
		return q
	}
	mt, _, _ := strings.Cut(typ, ";")
	return max(acceptQ(accept, strings.TrimSpace(mt)), 0)
}

// withQuery copies a URN's q-component into a location's query (RFC 8141
// §2.3.2). When the location has a query already, the q-component is
// appended to it after "&": the location's own parameters come first and
// the caller's are added, which is what a form would do.
func withQuery(loc, q string) string {
	if q == "" {
		return loc
	}
	base, frag, hasFrag := strings.Cut(loc, "#")
	switch {
	case !strings.Contains(base, "?"):
		base += "?" + q
	case strings.HasSuffix(base, "?") || strings.HasSuffix(base, "&"):
		base += q
	default:
		base += "&" + q
	}
	if hasFrag {
		base += "#" + frag
	}
	return base
}

// serveByLocation answers L2Ns, L2Ls and L2C: the query is a URL, matched
// after scheme-based normalization. Withdrawn records are left out: their
// locations no longer stand for the resource. Any maintainer may list any
// URL, so the answer covers the first resolver.MaxByLocation records that
// list it (by registration), and at most about byLocationBytes of their
// names or locations, and says when more records list it (more_records),
// with the page of GET /api/v1/locations that lists the rest (next).
func (h *handler) serveByLocation(rw *respWriter, r *http.Request, service string, k kind, loc string) {
	hd := rw.Header()
	setServiceHeaders(hd, service)
	if loc == "" {
		h.writeProblem(rw, r, newProblem(http.StatusBadRequest, ptInvalid, "no URL given: the query is the URL, as in /uri-res/L2Ns?https://example.org/x").at("url", 0))
		return
	}
	asOf, hasAsOf, p := acceptDatetime(r)
	if p != nil {
		h.writeProblem(rw, r, p)
		return
	}
	ctx, ok := h.readContext(rw, r)
	if !ok {
		return
	}
	key, err := resolver.LocationKey(loc)
	if err != nil {
		h.fail(rw, r, err)
		return
	}
	// As of a time the withdrawn records are read too (one withdrawn
	// since may have been live then), and each costs an as-of lookup:
	// at most resolver.MaxByLocation of them.
	recs, more, err := h.svc.ByLocation(ctx, loc, hasAsOf)
	if err != nil {
		h.fail(rw, r, err)
		return
	}
	var live []resolver.Record
	var latest time.Time
	for _, rec := range recs {
		if hasAsOf {
			// As of a time: the records that list the location now, as
			// they stood then, if they listed it then too. (The location
			// index is of the present: a location dropped since is not
			// found.)
			u, err := urn.Parse(rec.URN)
			if err != nil {
				continue
			}
			then, e, err := h.svc.LookupAsOf(ctx, u, asOf)
			if resolver.KindOf(err) == resolver.KindNotFound {
				continue
			}
			if err != nil {
				h.fail(rw, r, err)
				return
			}
			if !listsLocation(then, key) {
				continue
			}
			if e.Time.After(latest) {
				latest = e.Time
			}
			rec = then
		}
		if rec.Status == resolver.Active {
			live = append(live, rec)
		}
	}
	if hasAsOf && !latest.IsZero() {
		hd.Set("Memento-Datetime", latest.UTC().Format(http.TimeFormat))
	}
	if len(live) == 0 && !more {
		h.writeProblem(rw, r, newProblem(http.StatusNotFound, ptNotFound, "no record lists the location "+truncate(loc, 512)))
		return
	}
	// The rest, when the answer is cut: the listing's page after the last
	// record shown (fitRecords may show fewer than were read). As of a
	// time the listing is of the present, with the withdrawn records too,
	// since one withdrawn since may have listed the location then.
	next := func(shown []resolver.Record, cut bool) string {
		if !cut {
			return ""
		}
		var after int64
		if len(shown) > 0 {
			after = shown[len(shown)-1].ID
		}
		return locationsNext(loc, after, hasAsOf)
	}
	// (With more records left, an empty list is answered rather than a
	// 404: as of a time, none of the records read may have listed the
	// location then, but one of those left may have.)
	switch k {
	case kLocNames:
		live, cut := fitRecords(live, namesBytes)
		names := []string{} // "names":[], not null, when none is left
		for _, rec := range live {
			names = append(names, rec.URN)
			names = append(names, rec.Aliases...)
		}
		h.writeNamesStatus(rw, r, http.StatusOK, loc, names, next(live, more || cut))
	case kLocLocs:
		// Every location of the resource, the asked one included (RFC
		// 2169 §3.8: "all the URLs ... associated with the resource"),
		// once each after normalization.
		live, cut := fitRecords(live, locationsBytes)
		locs := []resolver.Location{}
		seen := map[string]bool{}
		for _, rec := range live {
			for _, l := range rec.Locations {
				k := l.Key
				if k == "" {
					// A record read back from the history (as of a
					// time) keeps its locations without keys.
					k, _ = resolver.LocationKey(l.URL)
				}
				if k == "" || !seen[k] {
					seen[k] = true
					locs = append(locs, l)
				}
			}
		}
		h.writeLocationList(rw, r, http.StatusOK, loc, "", locs, next(live, more || cut))
	case kLocURC:
		if len(live) == 1 && !more {
			h.writeURC(rw, r, live[0])
			return
		}
		// Several records list the location (a duplicate): the client
		// picks the name to ask N2C about. (Their names alone are at
		// most MaxByLocation × MaxURNBytes, 200 KiB.)
		names := []string{}
		for _, rec := range live {
			names = append(names, rec.URN)
		}
		h.writeNamesStatus(rw, r, http.StatusMultipleChoices, loc, names, next(live, more))
	}
}

// locationsNext is the path and query of the page of GET
// /api/v1/locations that lists the records listing loc after the record
// after, the answers' default page size; with withdrawn, withdrawn records
// too.
func locationsNext(loc string, after int64, withdrawn bool) string {
	q := "/api/v1/locations?url=" + url.QueryEscape(loc)
	if after > 0 {
		q += "&after=" + strconv.FormatInt(after, 10)
	}
	if withdrawn {
		q += "&withdrawn=true"
	}
	return q
}

// byLocationBytes is how many bytes of names or locations an answer by
// location holds at most (but always its first record's): a record may
// have 64 aliases and 64 locations of 2 KiB each (and a label and type of
// 1 KiB), so MaxByLocation records could hold some 25 MiB. It is the
// bound of a page of the log.
const byLocationBytes = logPageBytes

// fitRecords returns the first records of recs whose size (as size counts
// it) is at most byLocationBytes in all, and at least the first; cut
// tells whether records were left out.
func fitRecords(recs []resolver.Record, size func(resolver.Record) int) (fit []resolver.Record, cut bool) {
	total := 0
	for i, rec := range recs {
		total += size(rec)
		if i > 0 && total > byLocationBytes {
			return recs[:i], true
		}
	}
	return recs, false
}

// namesBytes is the size of a record's names in an L2Ns answer.
func namesBytes(rec resolver.Record) int {
	n := len(rec.URN)
	for _, a := range rec.Aliases {
		n += len(a)
	}
	return n
}

// locationsBytes is the size of a record's locations in an L2Ls answer,
// before those another record lists too are left out.
func locationsBytes(rec resolver.Record) int {
	n := 0
	for _, l := range rec.Locations {
		n += len(l.URL) + len(l.Type) + len(l.Label)
	}
	return n
}

// listsLocation reports whether rec lists a location whose normalized
// key is key. Records read back from the history keep their locations
// without keys, so the keys are computed again.
func listsLocation(rec resolver.Record, key string) bool {
	for _, l := range rec.Locations {
		if k, err := resolver.LocationKey(l.URL); err == nil && k == key {
			return true
		}
	}
	return false
}

// ---- Bodies ----

type locationsBody struct {
	URN       string              `json:"urn,omitempty"` // as asked
	URL       string              `json:"url,omitempty"` // as asked (L2Ls)
	Name      string              `json:"name,omitempty"`
	Locations []resolver.Location `json:"locations"`
	// MoreRecords: more records list the URL asked about (L2Ls) than
	// the answer covers (serveByLocation); Next is then the page of GET
	// /api/v1/locations that lists the rest.
	MoreRecords bool   `json:"more_records,omitempty"`
	Next        string `json:"next,omitempty"`
}

type namesBody struct {
	URN   string   `json:"urn,omitempty"`
	URL   string   `json:"url,omitempty"`
	Names []string `json:"names"`
	// MoreRecords: more records list the URL asked about (L2Ns, L2C)
	// than the answer covers (serveByLocation); Next is then the page of
	// GET /api/v1/locations that lists the rest.
	MoreRecords bool   `json:"more_records,omitempty"`
	Next        string `json:"next,omitempty"`
}

// writeLocations answers a list of a record's locations, each with the
// q-component copied in.
func (h *handler) writeLocations(rw *respWriter, r *http.Request, status int, nr nameRequest, rec resolver.Record, locs []resolver.Location) {
	if nr.q != "" {
		out := make([]resolver.Location, len(locs))
		for i, l := range locs {
			l.URL = withQuery(l.URL, nr.q)
			out[i] = l
		}
		locs = out
	}
	h.writeLocationList(rw, r, status, nr.text, rec.URN, locs, "")
}

// writeLocationList answers a list of locations: text/uri-list (RFC 2169
// Appendix A: the first line a comment giving the URI asked about, lines
// ending in CRLF), JSON, or the HTML list RFC 2169 §3.2 describes. next,
// when not empty, says that more records list the URL asked about than the
// list covers, and is where the rest are (serveByLocation).
func (h *handler) writeLocationList(rw *respWriter, r *http.Request, status int, asked, name string, locs []resolver.Location, next string) {
	mt := negotiate(r.Header.Get("Accept"), listOffers)
	if mt == "" && status == http.StatusMultipleChoices {
		// For N2Rs and I2Rs the Accept header chose among the resource's
		// versions (RFC 2169 §3.4), not the list's format.
		mt = mtURIList
	}
	switch mt {
	case mtURIList:
		urls := make([]string, len(locs))
		for i, l := range locs {
			urls[i] = l.URL
		}
		writeURIList(rw, status, asked, urls, next)
	case mtJSON:
		b := locationsBody{Name: name, Locations: locs, MoreRecords: next != "", Next: next}
		if name == "" {
			b.URL = asked
		} else {
			b.URN = asked
		}
		writeJSON(rw, status, b)
	case mtHTML:
		h.writeHTML(rw, status, pageList, listPage{Asked: asked, Name: name, Locations: locs, Next: next})
	default:
		h.writeProblem(rw, r, newProblem(http.StatusNotAcceptable, ptNotAcceptable, "this list is available as text/uri-list, application/json or text/html"))
	}
}

func (h *handler) writeNames(rw *respWriter, r *http.Request, asked string, names []string) {
	h.writeNamesStatus(rw, r, http.StatusOK, asked, names, "")
}

// writeNamesStatus answers a list of names; next, as writeLocationList's,
// says where the rest are when more records list the URL asked about than
// the list covers.
func (h *handler) writeNamesStatus(rw *respWriter, r *http.Request, status int, asked string, names []string, next string) {
	switch negotiate(r.Header.Get("Accept"), listOffers) {
	case mtURIList:
		writeURIList(rw, status, asked, names, next)
	case mtJSON:
		b := namesBody{Names: names, MoreRecords: next != "", Next: next}
		if hasPrefixFold(asked, "urn:") {
			b.URN = asked
		} else {
			b.URL = asked
		}
		writeJSON(rw, status, b)
	case mtHTML:
		h.writeHTML(rw, status, pageNames, namesPage{Asked: asked, Names: names, Next: next})
	default:
		h.writeProblem(rw, r, newProblem(http.StatusNotAcceptable, ptNotAcceptable, "this list is available as text/uri-list, application/json or text/html"))
	}
}

// moreRecordsComment begins the comment line (RFC 2483 §5: a line
// beginning with "#") that follows the first of a text/uri-list answered
// by location when more records list the URL than the list covers; the
// page of GET /api/v1/locations listing the rest ends it. The JSON's
// more_records and next, and the page, say the same.
const moreRecordsComment = "# cut: more records list this URL than this list covers (it covers those registered first); " +
	"the rest: GET "

// writeURIList answers text/uri-list: the URI asked about in a comment
// line (RFC 2483 §5), then moreRecordsComment and next when next is not
// empty, then the URIs, each line ending in CRLF.
func writeURIList(rw *respWriter, status int, asked string, uris []string, next string) {
	n := len(asked) + 4 + len(moreRecordsComment) + len(next) + 2
	for _, u := range uris {
		n += len(u) + 2
	}
	b := make([]byte, 0, n)
	b = append(b, "# "...)
	b = append(b, asked...)
	b = append(b, "\r\n"...)
	if next != "" {
		b = append(b, moreRecordsComment...)
		b = append(b, next...)
		b = append(b, "\r\n"...)
	}
	for _, u := range uris {
		b = append(b, u...)
		b = append(b, "\r\n"...)
	}
	hd := rw.Header()
	hd.Set("Content-Type", "text/uri-list; charset=utf-8")
	hd.Set("Content-Length", strconv.Itoa(len(b)))
	rw.WriteHeader(status)
	rw.Write(b)
}

// writeURC answers a record's description: its public JSON form (RFC 2169
// §3.5 leaves the content to the resolver), a page for a browser, or a CSL
// item for a citation tool.
func (h *handler) writeURC(rw *respWriter, r *http.Request, rec resolver.Record) {
	switch mt := negotiate(r.Header.Get("Accept"), urcOffers); mt {
	case mtJSON:
		setPredecessorLinks(rw.Header(), rec)
		writeJSON(rw, http.StatusOK, rec)
	case mtHTML:
		setPredecessorLinks(rw.Header(), rec)
		h.writeHTML(rw, http.StatusOK, pageRecord, recordPage{Rec: rec, Meta: prettyJSON(rec.Metadata)})
	case mtCSL, mtCiteproc:
		setPredecessorLinks(rw.Header(), rec)
		writeCSL(rw, mt, rec)
	default:
		h.writeProblem(rw, r, newProblem(http.StatusNotAcceptable, ptNotAcceptable,
			"a description is available as application/json, text/html or "+mtCSL+" (a CSL item)"))
	}
}

// urcVersion is one description in an I2Cs answer.
type urcVersion struct {
	Seq    int64           `json:"seq"`
	Time   time.Time       `json:"time"`
	Action resolver.Action `json:"action"`
	Record resolver.Record `json:"record"`
}

// urcVersions is how many descriptions an I2Cs answer holds at most, and
// it holds at most logPageBytes bytes of them (but always the newest): a
// record changed a hundred thousand times has as many. The rest are in the
// record's history (GET /api/v1/names/{urn}/history, a page at a time),
// which a Link with RFC 5829's relation "version-history" points to when
// versions were left out: to the page of the entries just before the
// oldest description given (before=SEQ), where the reader goes on from
// where the answer stopped, newest first as I2Cs is, page by page through
// rel="prev" (as of a time too: the entries after it are not in that page).
// The first page of the history would hold the oldest entries, the
// furthest from what the reader has seen.
const urcVersions = 100

// writeURCs answers I2Cs: the record now and after each earlier change,
// newest first (as of a time: those up to it), the newest urcVersions.
func (h *handler) writeURCs(rw *respWriter, r *http.Request, ctx context.Context, nr nameRequest, rec resolver.Record) {
	// By ID: as of a time, rec may be found by an alias it has dropped
	// since, which a lookup by name no longer finds.
	// Negotiated first: a 406 reads no versions (and links to none).
	mt := negotiate(r.Header.Get("Accept"), urcsOffers)
	if mt != mtJSON && mt != mtHTML {
		h.writeProblem(rw, r, newProblem(http.StatusNotAcceptable, ptNotAcceptable, "descriptions are available as application/json or text/html"))
		return
	}
	var until time.Time
	if nr.hasAsOf {
		until = nr.asOf
		if until.IsZero() {
			until = until.Add(-time.Nanosecond) // the zero time is a time here, not "no bound"
		}
	}
	out, more, err := h.recentVersions(ctx, rec.ID, until)
	if err != nil {
		h.fail(rw, r, err)
		return
	}
	var history string
	if more {
		history = "/api/v1/names/" + segment(rec.URN) + "/history?before=" + strconv.FormatInt(out[len(out)-1].Seq, 10)
		rw.Header().Set("Link", "<"+history+`>; rel="version-history"`)
	}
	if len(out) == 0 { // a history is never empty for a record; keep the answer whole anyway
		out = append(out, urcVersion{Time: rec.Updated.UTC(), Record: rec})
	}
	if mt == mtJSON {
		writeJSON(rw, http.StatusOK, out)
		return
	}
	h.writeHTML(rw, http.StatusOK, pageURCs, urcsPage{Asked: nr.text, Versions: out, History: history})
}

// recentVersions reads the record's versions newest first, at or before
// until unless it is zero: at most urcVersions, and at most logPageBytes
// bytes of them but the first; more tells whether older ones were left
// out.
func (h *handler) recentVersions(ctx context.Context, id int64, until time.Time) (out []urcVersion, more bool, err error) {
	size := 0
	for before := int64(0); ; {
		want := nextChunk(len(out), size, urcVersions) + 1 // one more tells whether any remain
		hist, err := h.svc.RecentHistory(ctx, id, before, until, want)
		if err != nil {
			return nil, false, err
		}
		for _, e := range hist {
			before = e.Seq
			if !e.Action.ChangesRecord() {
				continue
			}
			if len(out) == urcVersions || len(out) > 0 && size+len(e.Data) > logPageBytes {
				return out, true, nil
			}
			var v resolver.Record
			if err := json.Unmarshal(e.Data, &v); err != nil {
				return nil, false, fmt.Errorf("history entry %d holds no record: %w", e.Seq, err)
			}
			out, size = append(out, urcVersion{Seq: e.Seq, Time: e.Time.UTC(), Action: e.Action, Record: v}), size+len(e.Data)
		}
		if len(hist) < want {
			return out, false, nil
		}
	}
}

func writeJSON(rw http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// Every value written here marshals; if one does not, say so
		// rather than send half an answer.
		rw.Header().Set("Content-Type", mtProblem)
		rw.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(rw, `{"type":"%s#%s","title":"Internal error","status":500}`+"\n", problemBase, ptInternal)
		return
	}
	b = append(b, '\n')
	hd := rw.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Content-Length", strconv.Itoa(len(b)))
	rw.WriteHeader(status)
	rw.Write(b)
}

// parseAsOf parses the value of as-of, on the resolve routes and the API
// alike: an RFC 3339 date-time, or a full-date alone (RFC 3339 §5.6), the
// way a citation gives the day it was accessed. A date means the state at
// the end of that day in UTC, everything recorded up to and including it:
// its last instant, which no entry's time (kept to the microsecond, see
// resolver.Seal) passes. A date-time's "T" and "Z" may be lower case
// (RFC 3339 §5.6, the note under the ABNF), which Go's layout does not
// accept; no other letter can appear in one. time.Parse checks that a
// date is a real one (no 2024-02-30); rfc3339DateTime holds the rest to the
// ABNF, which Go's parse is looser than (a one-digit hour, a decimal
// comma, an offset of +24:00), and lets a leap second through (§5.7).
func parseAsOf(s string) (time.Time, error) {
	if len(s) == len(time.DateOnly) {
		day, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return time.Time{}, err
		}
		return day.AddDate(0, 0, 1).Add(-time.Nanosecond), nil
	}
	if !rfc3339DateTime(s) {
		return time.Time{}, errors.New("not an RFC 3339 date-time")
	}
	v, leap := leapSecond(s)
	t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(v))
	if leap {
		t = t.Add(time.Second)
	}
	return t, err
}

// rfc3339DateTime reports whether s has the form of RFC 3339 §5.6's
// date-time: YYYY-MM-DD "T" hh:mm:ss, an optional "." and digits, then
// "Z" or ±hh:mm, with hours to 23, minutes to 59 and seconds to 60 (a
// leap second), "T" and "Z" in either case. Whether the date exists is
// time.Parse's to say.
func rfc3339DateTime(s string) bool {
	num := func(i, n, most int) bool { // n digits at s[i:], at most most
		if i+n > len(s) {
			return false
		}
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return false
			}
			v = v*10 + int(c-'0')
		}
		return v <= most
	}
	at := func(i int, cs string) bool { return i < len(s) && strings.IndexByte(cs, s[i]) >= 0 }
	if !num(0, 4, 9999) || !at(4, "-") || !num(5, 2, 12) || !at(7, "-") || !num(8, 2, 31) || !at(10, "Tt") ||
		!num(11, 2, 23) || !at(13, ":") || !num(14, 2, 59) || !at(16, ":") || !num(17, 2, 60) {
		return false
	}
	i := 19
	if at(i, ".") {
		i++
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			return false
		}
		i = j
	}
	switch {
	case at(i, "Zz"):
		return i+1 == len(s)
	case at(i, "+-"):
		return i+6 == len(s) && num(i+1, 2, 23) && at(i+3, ":") && num(i+4, 2, 59)
	}
	return false
}

// asOfForms is what the problems about as-of say it takes.
const asOfForms = "an RFC 3339 date-time such as 2024-05-01T12:00:00Z or a full-date such as 2024-05-01 (the end of that day, UTC)"

// badAsOf is the problem of an as-of value parseAsOf does not take; v is
// the value as sent.
func badAsOf(v string) *problem {
	return newProblem(http.StatusBadRequest, ptInvalid, "as-of must be "+asOfForms+", not "+strconv.Quote(truncate(v, 64))).at("as-of", -1)
}
