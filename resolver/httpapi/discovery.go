package httpapi

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/federate"
)

// discoveryAnswer is the body of GET /api/v1/discovery.
type discoveryAnswer struct {
	URN     string `json:"urn"`
	Service string `json:"service"`
	// Enabled is whether the server runs DDDS discovery (urikit serve
	// --dns).
	Enabled bool `json:"enabled"`
	// Status is what a resolution request for a name with no record and
	// no rule is answered with: 303 (302 for HTTP/1.0) to URL, 404, or 508
	// when the request has been handed on too often.
	Status int    `json:"status"`
	URL    string `json:"url,omitempty"`
	// Path lists the NAPTR records taken, each with its output, and the
	// SRV target (resolver.Referral.Path).
	Path []string `json:"path,omitempty"`
	// Why says, on one line, what was found, or why nothing was: the
	// first key has no NAPTR records, or the chain breaks (where).
	Why string `json:"why"`
}

// dddsDelegator is a Delegator that runs DDDS discovery, such as
// federate.Delegator: Discoverer is nil when discovery is off.
type dddsDelegator interface {
	Discoverer() *federate.Discoverer
}

// discovery is GET /api/v1/discovery?urn=URN&service=I2L (admin): what
// the server's DDDS discovery (RFC 3404) finds for the name, rules left
// aside, the NAPTR records it went through and the redirect it gives: a
// dry run of what a resolution request for a name with no record and no
// rule would get, for urikit rules test. A chain that breaks is answered
// here (status 404, where it broke in why), not as this request's error;
// a DNS server that fails is (503, delegation-unavailable).
func (h *handler) discovery(c *apiCall) (answer, error) {
	if !c.p.Admin {
		return answer{}, newProblem(http.StatusForbidden, ptForbidden, "only the admin token may try the delegation")
	}
	q, err := url.ParseQuery(c.r.URL.RawQuery)
	if err != nil {
		return answer{}, newProblem(http.StatusBadRequest, ptInvalid, "the query is not well-formed: "+err.Error()).at("query", -1)
	}
	if err := onceEach(q, "urn", "service"); err != nil {
		return answer{}, err
	}
	if !q.Has("urn") {
		return answer{}, newProblem(http.StatusBadRequest, ptInvalid, "urn= names the name to try").at("urn", -1)
	}
	name, err := resolver.ParseName("urn", q.Get("urn"))
	if err != nil {
		return answer{}, err
	}
	service := "I2L"
	if q.Has("service") {
		service = q.Get("service")
	}
	if err := federate.CheckService(service); err != nil {
		return answer{}, err
	}
	hops, _, err := federate.Hops(name)
	if err != nil {
		return answer{}, err
	}
	a := discoveryAnswer{URN: name.String(), Service: service, Status: http.StatusNotFound}
	dd, ok := h.opts.Delegator.(dddsDelegator)
	if !ok || dd.Discoverer() == nil {
		a.Why = "DDDS discovery is off: the server runs without --dns"
		return answer{status: http.StatusOK, body: a}, nil
	}
	a.Enabled = true
	ref, found, err := dd.Discoverer().Discover(c.ctx(), name, service, min(hops+1, federate.MaxHops)) // past the limit: only named in the 508
	switch {
	case resolver.KindOf(err) == resolver.KindNotFound:
		// The chain broke: the resolution request's 404, and where.
		a.Why = err.Error()
	case err != nil:
		return answer{}, err
	case !found:
		a.Why = ref.Why
	case hops >= h.opts.MaxHops:
		a.Status, a.URL, a.Path = http.StatusLoopDetected, ref.URL, ref.Path
		a.Why = fmt.Sprintf("%s; but the request was handed on %d times already (the limit is %d)", ref.Why, hops, h.opts.MaxHops)
	default:
		a.Status, a.URL, a.Path, a.Why = http.StatusSeeOther, ref.URL, ref.Path, ref.Why
	}
	return answer{status: http.StatusOK, body: a}, nil
}
