package federate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/uri"
	"github.com/urikit/urikit/urn"
)

// RedirectURL returns the URL of the RFC 2169 request for service about
// name at the resolver whose base URL is base:
//
//	base "uri-res/" SERVICE "?" URN
//
// (RFC 2169 §2). SERVICE is the service's RFC 2169 name where it has one
// (see THTTPService). URN is the name as written, percent-encodings left
// encoded as RFC 2169 §2 asks, with its r-component carrying hops (see
// WithHops), its q-component kept and its f-component left out: a fragment
// is for the client and never goes to a server (RFC 3986 §3.5).
//
// base is an absolute http or https URL without a query; its path is taken
// as a directory ("https://r.example/nbn" means "https://r.example/nbn/"),
// and a fragment on it is dropped.
func RedirectURL(base string, name urn.URN, service string, hops int) (string, error) {
	s, err := lookupService(service)
	if err != nil {
		return "", err
	}
	return redirectURL(base, name, s, hops)
}

func redirectURL(base string, name urn.URN, s svc, hops int) (string, error) {
	if !name.IsValid() {
		return "", &resolver.Error{Kind: resolver.KindInvalid, Field: "urn", Offset: -1, Message: "not a URN"}
	}
	if hops < 0 || hops > MaxHops {
		return "", &resolver.Error{Kind: resolver.KindInvalid, Field: "hops", Offset: -1, Message: "a hop count is 0 to " + strconv.Itoa(MaxHops)}
	}
	b, err := appendBase(nil, base)
	if err != nil {
		return "", err
	}
	b = append(b, "uri-res/"...)
	b = append(b, s.thttp()...)
	b = append(b, '?')
	return string(appendWithHops(b, name, hops, false)), nil
}

// appendBase appends base, checked as a rule's target is
// (resolver.CheckRuleTarget; a fragment is refused there and dropped
// here), with its path ending in "/".
func appendBase(b []byte, base string) ([]byte, error) {
	u, err := uri.Parse(base)
	if err == nil && u.HasFragment() {
		u = u.WithoutFragment()
		base = u.String()
	}
	if err := resolver.CheckRuleTarget(base); err != nil {
		return nil, err
	}
	b = append(b, base...)
	if !strings.HasSuffix(u.Path(), "/") {
		b = append(b, '/')
	}
	return b, nil
}

// ByRules returns the referral a set of delegation rules gives name for
// service: the rule with the longest prefix the name lies under, in
// canonical lexical form (RFC 8141 §3.1) or in its key form, the form of
// its namespace's equivalence, the canonical form's on a tie
// (resolver.RuleFor: urn:nbn:DE:101-1 is urn:nbn:de:101-1, RFC 8458 §4.3,
// and goes where the rule for urn:nbn:de: sends it), and a redirect to its
// target (see RedirectURL) carrying hop count hops.
// ok is false when no rule applies. It does no I/O: `urikit rules test`
// calls it on the rules of a data directory or a server.
func ByRules(rules []resolver.Rule, name urn.URN, service string, hops int) (r resolver.Referral, ok bool, err error) {
	s, err := lookupService(service)
	if err != nil {
		return resolver.Referral{}, false, err
	}
	return byRules(rules, name, s, hops)
}

func byRules(rules []resolver.Rule, name urn.URN, s svc, hops int) (resolver.Referral, bool, error) {
	if !name.IsValid() {
		return resolver.Referral{}, false, &resolver.Error{Kind: resolver.KindInvalid, Field: "urn", Offset: -1, Message: "not a URN"}
	}
	rule, c, ok := resolver.RuleFor(rules, name)
	if !ok {
		return resolver.Referral{}, false, nil
	}
	keyForm := c != name.CanonicalString()
	matching := 0
	for _, x := range rules {
		if resolver.HasPrefix(c, x.Prefix) {
			matching++
		}
	}
	target, err := redirectURL(rule.Target, name, s, hops)
	if err != nil {
		// A stored rule whose target no longer passes is the directory's
		// fault, not the caller's: say which rule.
		return resolver.Referral{}, false, &resolver.Error{Kind: resolver.KindInternal, Offset: -1,
			Message: fmt.Sprintf("rule %d (%s → %s) has a bad target: %v", rule.ID, rule.Prefix, rule.Target, err), Err: err}
	}
	why := fmt.Sprintf("rule %d: prefix %s → %s", rule.ID, rule.Prefix, rule.Target)
	if keyForm {
		why += fmt.Sprintf(" (by the name's key form %s: its namespace's rules make it equivalent)", c)
	}
	if matching > 1 {
		why += fmt.Sprintf(" (the longest of %d matching prefixes)", matching)
	}
	why += ", as " + s.thttp()
	return resolver.Referral{URL: target, Via: "rule", Rule: rule, Why: why}, true, nil
}

func quote(s string) string { return strconv.Quote(s) }
