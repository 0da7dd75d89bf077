package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/urikit/urikit/resolver"
)

// problemBase is where the problem types are documented: each type URI is
// this plus "#" and a slug, a heading in docs/httpapi.md. RFC 9457 §3.1.1
// recommends absolute, resolvable type URIs that lead to documentation.
const problemBase = "https://github.com/urikit/urikit/blob/main/docs/httpapi.md"

// problem is an RFC 9457 problem details object. The extension members
// (§3.2) are the ones a client of this API acts on: which input is at
// fault and where, which record is in the way, what replaces a withdrawn
// name.
type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`

	// Field names the input at fault: "urn", "locations[1].url", a header
	// name such as "Accept-Datetime", or "body".
	Field string `json:"field,omitempty"`
	// Offset is the byte offset of a syntax error within Field's value.
	Offset *int `json:"offset,omitempty"`
	// Record names the record a conflict is with (409).
	Record string `json:"record,omitempty"`
	// Successor and Reason describe a withdrawn name (410).
	Successor string `json:"successor,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// Services lists the services there are (400 for an unknown one).
	Services []string `json:"services,omitempty"`
	// Limit is the limit that was exceeded (413, 414, 508).
	Limit int64 `json:"limit,omitempty"`
	// Allow lists the methods a resource allows (405).
	Allow []string `json:"allow,omitempty"`

	// etag is the current ETag of the resource a precondition failed on
	// (412), sent in the ETag header (RFC 9110 §15.5.13: the client learns
	// the state it must start from), and lastModified its Last-Modified
	// (zero: none).
	etag         string
	lastModified time.Time
}

// Problem type slugs (headings of docs/httpapi.md's problem list).
const (
	ptInvalid       = "invalid-request"
	ptMalformedURN  = "malformed-urn"
	ptUnknownSvc    = "unknown-service"
	ptUnauthorized  = "unauthorized"
	ptForbidden     = "forbidden"
	ptNotFound      = "not-found"
	ptReserved      = "reserved"
	ptNoRoute       = "no-such-route"
	ptMethod        = "method-not-allowed"
	ptConflict      = "conflict"
	ptPrecondition  = "precondition-failed"
	ptGone          = "withdrawn"
	ptTooLong       = "target-too-long"
	ptTooLarge      = "body-too-large"
	ptMediaType     = "unsupported-media-type"
	ptNotAcceptable = "not-acceptable"
	ptLoop          = "loop-detected"
	ptUnavailable   = "unavailable"
	ptDelegation    = "delegation-failed"
	ptDiscovery     = "delegation-unavailable"
	ptInternal      = "internal-error"
)

func newProblem(status int, slug, detail string) *problem {
	return &problem{Type: problemBase + "#" + slug, Title: titles[slug], Status: status, Detail: detail}
}

var titles = map[string]string{
	ptInvalid:       "The request is not valid",
	ptMalformedURN:  "Not a well-formed URN",
	ptUnknownSvc:    "No such resolution service",
	ptUnauthorized:  "A valid token is needed",
	ptForbidden:     "This token may not do this",
	ptNotFound:      "Not found",
	ptReserved:      "Reserved: an alias a record dropped",
	ptNoRoute:       "No such resource",
	ptMethod:        "Method not allowed here",
	ptConflict:      "Conflicts with what is stored",
	ptPrecondition:  "A condition of the request is false",
	ptGone:          "The name was withdrawn",
	ptTooLong:       "The request target or name is too long",
	ptTooLarge:      "The request body is too large",
	ptMediaType:     "The body must be JSON",
	ptNotAcceptable: "No acceptable representation",
	ptLoop:          "Loop detected between resolvers",
	ptUnavailable:   "The directory's store is unavailable",
	ptDelegation:    "The resolver this name is delegated to could not be found",
	ptDiscovery:     "The DNS that says where this name is delegated is unavailable",
	ptInternal:      "Internal error",
}

// Error makes a problem an error, so that an operation (see api) returns
// the problem of a bad request as it returns the errors of the Service.
func (p *problem) Error() string { return p.Detail }

func (p *problem) at(field string, offset int) *problem {
	p.Field = field
	if offset >= 0 {
		o := offset
		p.Offset = &o
	}
	return p
}

// problemFor turns an error from the Service into a problem. Internal
// errors keep their detail out of the answer (it goes to the log).
func problemFor(err error) *problem {
	var e *resolver.Error
	if !errors.As(err, &e) {
		switch {
		case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			return newProblem(http.StatusServiceUnavailable, ptUnavailable, "the directory's store did not answer in time")
		case errors.Is(err, resolver.ErrUnavailable):
			return newProblem(http.StatusServiceUnavailable, ptUnavailable, resolver.UnavailableMessage(err))
		}
		return newProblem(http.StatusInternalServerError, ptInternal, "an internal error occurred; it was logged")
	}
	var p *problem
	switch e.Kind {
	case resolver.KindInvalid:
		slug := ptInvalid
		if e.Field == "urn" && e.Offset >= 0 {
			slug = ptMalformedURN
		}
		p = newProblem(http.StatusBadRequest, slug, e.Error())
	case resolver.KindUnauthorized:
		p = newProblem(http.StatusUnauthorized, ptUnauthorized, e.Message)
	case resolver.KindForbidden:
		p = newProblem(http.StatusForbidden, ptForbidden, e.Message)
	case resolver.KindNotFound:
		slug := ptNotFound
		if errors.Is(e, resolver.ErrReserved) {
			slug = ptReserved
		}
		p = newProblem(http.StatusNotFound, slug, e.Message)
	case resolver.KindConflict:
		p = newProblem(http.StatusConflict, ptConflict, e.Message)
		p.Record = e.Record
	case resolver.KindUnavailable:
		slug := ptUnavailable
		if errors.Is(e, resolver.ErrDiscoveryUnavailable) {
			// DDDS discovery's DNS server failed, not the store.
			slug = ptDiscovery
		}
		p = newProblem(http.StatusServiceUnavailable, slug, e.Message)
	case resolver.KindPrecondition:
		p = newProblem(http.StatusPreconditionFailed, ptPrecondition, e.Message)
		p.etag, p.lastModified = e.ETag, e.LastModified
	default:
		return newProblem(http.StatusInternalServerError, ptInternal, "an internal error occurred; it was logged")
	}
	p.Field = e.Field
	if e.Offset >= 0 && e.Kind == resolver.KindInvalid {
		o := e.Offset
		p.Offset = &o
	}
	return p
}

// writeProblem answers with p: as application/problem+json, or as an HTML
// page when the client prefers HTML (a browser).
func (h *handler) writeProblem(w http.ResponseWriter, r *http.Request, p *problem) {
	hd := w.Header()
	switch p.Status {
	case http.StatusUnauthorized:
		// RFC 6750 §3: a 401 names the scheme the client must use.
		v := `Bearer realm="urikit"`
		if r.Header.Get("Authorization") != "" {
			v += `, error="invalid_token"`
		}
		hd.Set("WWW-Authenticate", v)
	case http.StatusServiceUnavailable:
		hd.Set("Retry-After", "5")
	case http.StatusMethodNotAllowed:
		if len(p.Allow) > 0 {
			hd.Set("Allow", joinComma(p.Allow))
		}
	case http.StatusNotFound, http.StatusGone:
		// Caches may keep a 404 or 410 without being told to (RFC 9111
		// §4.2.2, RFC 9110 §15.5.5, §15.5.11), but a name with no record
		// may be registered at any moment, and a withdrawn name's notice
		// restated: a shared cache must ask again each time.
		hd.Set("Cache-Control", "no-cache")
	case http.StatusPreconditionFailed:
		if p.etag != "" {
			hd.Set("ETag", p.etag)
		}
		if !p.lastModified.IsZero() {
			setLastModified(w, p.lastModified)
		}
	}
	hd.Del("Content-Length")
	hd.Del("Location")
	if r != nil && negotiate(r.Header.Get("Accept"), problemOffers) == offerHTML {
		h.writeHTML(w, p.Status, pageProblem, problemPage{P: p})
		return
	}
	b, err := json.Marshal(p)
	if err != nil { // a problem holds strings and ints only
		b = []byte(`{"type":"about:blank","status":` + strconv.Itoa(p.Status) + `}`)
	}
	hd.Set("Content-Type", "application/problem+json")
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(p.Status)
	w.Write(append(b, '\n'))
}

func joinComma(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}
