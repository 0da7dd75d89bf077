package resolver

import (
	"context"
	"errors"

	"github.com/urikit/urikit/urn"
)

// Referral is where the directory sends a request for a name it holds no
// record of: another resolver, found by a delegation rule (RFC 2276) or by
// DDDS discovery (RFC 3404). The resolver redirects there; it never fetches.
type Referral struct {
	URL  string // the redirect target, complete
	Via  string // "rule" or "ddds"
	Rule Rule   // the rule taken, when Via is "rule"
	Why  string // one line for people: which rule or NAPTR record, and why
	// Path lists, for DDDS discovery, the NAPTR records taken, one a
	// step, each with its output ("→ …") and, for the last one when it
	// has flag S, the SRV record's target.
	Path []string
}

// ErrDiscoveryUnavailable is in the chain of a Delegator's KindUnavailable
// error when what it asks to find the other resolver (the DNS, for DDDS
// discovery) failed or did not answer. The directory's own store is fine:
// the HTTP layer says so with a problem type of its own (503, to be tried
// again later).
var ErrDiscoveryUnavailable = errors.New("discovery unavailable")

// Delegator finds referrals. resolver/federate implements it.
type Delegator interface {
	// Refer returns where to send a request for service (an RFC 2169 or
	// RFC 2483 service name such as "I2L") about name, which has no record
	// here; hops is the hop count the next resolver must see (the request's
	// count plus one). ok is false when no rule and no discovery applies.
	Refer(ctx context.Context, name urn.URN, service string, hops int) (r Referral, ok bool, err error)
}
