package federate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/miekg/dns"
	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/uri"
	"github.com/urikit/urikit/urn"
)

// Discoverer finds the resolver for a URN's namespace in the DNS, by the
// URN resolution application of the Dynamic Delegation Discovery System
// (RFC 3404) over NAPTR records (RFC 3403), starting at <nid>.urn.arpa.
// (RFC 3405). It is safe for concurrent use.
type Discoverer struct {
	dns      *dnsClient
	timeout  time.Duration
	maxSteps int
}

// Discover follows RFC 3402 §3.3's algorithm for name and service and
// returns a redirect:
//
//   - the Application Unique String is the name in RFC 8141 canonical form,
//     without r-, q- and f-components (RFC 3404 §4.1: the URN,
//     canonicalized), so that lexically equivalent names find the same
//     resolver; the First Well Known Rule takes its NID (§4.2) and the
//     first key is NID ".urn.arpa." (§4.5);
//   - the rules at a key are taken in ORDER, then PREFERENCE; a rule whose
//     expression does not match is skipped; once one matches, rules of a
//     later ORDER are never considered (RFC 3403 §4.1, RFC 3404 §6);
//     records with a flag RFC 3404 does not define are ignored whatever
//     their order (§4.3); a matching rule that does not lead to the
//     service over THTTP is passed over for the next of the same order;
//   - a rule without flags is not terminal: its output is the next key,
//     looked up in turn, at most maxSteps keys in all and never one twice;
//   - "U" ends with the URI its expression produced (an http or https URL,
//     redirected to as it is); "S" ends with a domain name whose SRV
//     records (RFC 2782: lowest priority, then weighted choice) give
//     HOST:PORT, and the redirect is http://HOST:PORT/uri-res/SERVICE?URN;
//     "A" ends with a host name that has A or AAAA records, giving
//     http://HOST/uri-res/SERVICE?URN. "P" hands over to a protocol this
//     application does not define and is passed over.
//
// Nothing but DNS is asked, and the whole discovery takes at most the
// configured time. No records at the first key, or none there that
// applies, means discovery does not apply (ok false, and the Referral's
// Why says which); a path that breaks after a rewrite is reported, not
// backed out of (RFC 3403 §8), as a KindNotFound error saying where; a DNS
// server that fails or does not answer is KindUnavailable with
// resolver.ErrDiscoveryUnavailable in its chain.
func (d *Discoverer) Discover(ctx context.Context, name urn.URN, service string, hops int) (resolver.Referral, bool, error) {
	s, err := lookupService(service)
	if err != nil {
		return resolver.Referral{}, false, err
	}
	return d.discover(ctx, name, s, hops)
}

func (d *Discoverer) discover(ctx context.Context, name urn.URN, s svc, hops int) (resolver.Referral, bool, error) {
	if !name.IsValid() {
		return resolver.Referral{}, false, &resolver.Error{Kind: resolver.KindInvalid, Field: "urn", Offset: -1, Message: "not a URN"}
	}
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	aus := name.Canonical().String()
	key := strings.ToLower(name.NID()) + ".urn.arpa."
	var path []string // one step a rule, for Why
	seen := map[string]bool{}
	for step := 0; ; step++ {
		if seen[key] {
			return d.broken(path, "the rules loop back to %s", key)
		}
		if step == d.maxSteps {
			return d.broken(path, "more than %d rewrites", d.maxSteps)
		}
		seen[key] = true
		ans, err := d.dns.lookup(ctx, key, dns.TypeNAPTR)
		if err != nil {
			return resolver.Referral{}, false, unavailable(path, err)
		}
		if ans.negative {
			if step == 0 {
				return resolver.Referral{Why: "DDDS: " + key + " has no NAPTR records"}, false, nil
			}
			return d.broken(path, "%s has no NAPTR records", key)
		}
		r, out, skipped := choose(ans.rules, aus, s)
		if r == nil {
			if step == 0 {
				return resolver.Referral{Why: fmt.Sprintf("DDDS: no NAPTR record at %s matches the name and leads to %s over THTTP%s", key, s.i, skipped)}, false, nil
			}
			return d.broken(path, "no NAPTR record at %s leads to %s over THTTP%s", key, s.i, skipped)
		}
		path = append(path, r.String()+" → "+out)
		switch r.kind {
		case flagNone:
			key = strings.ToLower(dns.Fqdn(out))
			continue
		case flagU:
			return referral(out, path), true, nil
		case flagS:
			hostport, err := d.srv(ctx, out)
			if err != nil {
				if ue := (*lookupError)(nil); errors.As(err, &ue) {
					return resolver.Referral{}, false, unavailable(path, err)
				}
				return d.broken(path, "%v", err)
			}
			path[len(path)-1] += " → SRV " + hostport
			return d.thttpReferral("http://"+hostport+"/", name, s, hops, path)
		case flagA:
			host := strings.TrimSuffix(out, ".")
			if err := d.address(ctx, out); err != nil {
				if ue := (*lookupError)(nil); errors.As(err, &ue) {
					return resolver.Referral{}, false, unavailable(path, err)
				}
				return d.broken(path, "%v", err)
			}
			return d.thttpReferral("http://"+host+"/", name, s, hops, path)
		}
		return d.broken(path, "internal: flag %q chosen", r.kind) // choose returns no other kind
	}
}

// choose is RFC 3402 §3.3 steps 3 and 4 over the rules at one key: the
// first rule, in ORDER then PREFERENCE, whose expression produces a
// non-empty string that this application can use and whose services fit.
// skipped says, for an error message, why matching rules were passed over.
func choose(rules []rule, aus string, want svc) (*rule, string, string) {
	idx := make([]int, len(rules))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ra, rb := rules[a].rr, rules[b].rr
		return cmp.Or(cmp.Compare(ra.Order, rb.Order), cmp.Compare(ra.Preference, rb.Preference))
	})
	pinned, order := false, uint16(0)
	var why []string
	for _, i := range idx {
		r := &rules[i]
		if r.err != nil {
			// Unknown flags are ignored before order counts (RFC 3404
			// §4.3); so is a record that cannot be read at all.
			why = append(why, fmt.Sprintf("ORDER %d PREF %d ignored: %v", r.rr.Order, r.rr.Preference, r.err))
			continue
		}
		out, ok, err := r.apply(aus)
		if !ok && err == nil {
			continue // step 3: a rule that does not match is skipped
		}
		if pinned && r.rr.Order != order {
			break // RFC 3404 §6: no record of another order once one matched
		}
		pinned, order = true, r.rr.Order
		if r.kind == flagP {
			why = append(why, fmt.Sprintf("ORDER %d PREF %d: flag P, a protocol outside this application", r.rr.Order, r.rr.Preference))
			continue
		}
		if !r.services.acceptable(r.kind, want) {
			why = append(why, fmt.Sprintf("ORDER %d PREF %d: services %q", r.rr.Order, r.rr.Preference, r.rr.Service))
			continue
		}
		// RFC 3402 §3.2: check that the output is a legal key (or, for a
		// terminal rule, what the application expects) before using it;
		// a rule rejected here is passed over like one whose services do
		// not fit (§3.3 step 3 continues where it left off).
		if err != nil {
			why = append(why, fmt.Sprintf("ORDER %d PREF %d: %v", r.rr.Order, r.rr.Preference, err))
			continue
		}
		if msg := checkOutput(r.kind, out); msg != "" {
			why = append(why, fmt.Sprintf("ORDER %d PREF %d: output %q %s", r.rr.Order, r.rr.Preference, out, msg))
			continue
		}
		return r, out, ""
	}
	if len(why) == 0 {
		return nil, "", ""
	}
	return nil, "", " (" + strings.Join(why, "; ") + ")"
}

// checkOutput says what is wrong with a rule's output, or "".
func checkOutput(kind byte, out string) string {
	switch kind {
	case flagU:
		u, err := uri.Parse(out)
		if err != nil {
			return "is not a URI"
		}
		if sch := strings.ToLower(u.Scheme()); sch != "http" && sch != "https" || u.Host() == "" {
			// The directory redirects web clients: no javascript:,
			// data: or file: targets from a DNS record.
			return "is not an http or https URL"
		}
		if u.HasUserinfo() {
			// "http://trusted.example@evil.example/" goes to
			// evil.example (RFC 3986 §7.6); RFC 9110 §4.2.4 has http(s)
			// URLs without userinfo. Refused as a rule's target is.
			return "has a userinfo (user@ before the host)"
		}
		if strings.Contains(u.Host(), "%") {
			// A browser decodes a percent-encoded host: it would go
			// elsewhere than it reads. Refused as a rule's target is.
			return "has a percent-encoded host"
		}
		if p := u.Port(); p != "" {
			if n, ok := u.PortNumber(); !ok || n == 0 {
				return "has a port out of 1 to 65535"
			}
		}
		if len(out) > resolver.MaxURLBytes {
			// Apply bounds an expression's output; a replacement field
			// is a domain name, shorter still. Kept for any other way in.
			return fmt.Sprintf("is longer than %d bytes", resolver.MaxURLBytes)
		}
		return ""
	default:
		if !isHostName(out) {
			return "is not a domain name"
		}
		return ""
	}
}

// isHostName reports whether s is a domain name whose labels are letters,
// digits, "-" and "_" (the last for SRV owner names), at most 63 octets
// each and 253 in all, with or without the final dot. DDDS keys are domain
// names (RFC 3403 §3), and an S or A output becomes a URL's host.
func isHostName(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for _, l := range strings.Split(s, ".") {
		if l == "" || len(l) > 63 {
			return false
		}
		for i := 0; i < len(l); i++ {
			if c := l[i]; !isAlnum(c) && c != '-' && c != '_' {
				return false
			}
		}
	}
	return true
}

// srv looks up the SRV records of name and picks a target by RFC 2782:
// the lowest priority, then a weighted random choice.
func (d *Discoverer) srv(ctx context.Context, name string) (string, error) {
	ans, err := d.dns.lookup(ctx, name, dns.TypeSRV)
	if err != nil {
		return "", err
	}
	var rrs []*dns.SRV
	if !ans.negative {
		for _, rr := range ans.rrs {
			s := rr.(*dns.SRV)
			// RFC 2782: a target of "." means the service is decidedly
			// not available here; port 0 reaches nothing over TCP.
			if s.Target != "." && s.Port != 0 && isHostName(s.Target) {
				rrs = append(rrs, s)
			}
		}
	}
	if len(rrs) == 0 {
		return "", fmt.Errorf("%s has no usable SRV records", name)
	}
	low := rrs[0].Priority
	for _, s := range rrs {
		low = min(low, s.Priority)
	}
	var group []*dns.SRV
	sum := 0
	for _, s := range rrs {
		if s.Priority == low {
			group = append(group, s)
			sum += int(s.Weight)
		}
	}
	// Weight 0 first, so that they are picked only when every weight is 0
	// or the draw is 0 (RFC 2782, "Weight").
	slices.SortStableFunc(group, func(a, b *dns.SRV) int { return cmp.Compare(min(a.Weight, 1), min(b.Weight, 1)) })
	pick := group[0]
	if sum > 0 {
		n, run := rand.IntN(sum+1), 0
		for _, s := range group {
			run += int(s.Weight)
			if run >= n {
				pick = s
				break
			}
		}
	}
	host := strings.ToLower(strings.TrimSuffix(pick.Target, "."))
	return host + ":" + strconv.Itoa(int(pick.Port)), nil
}

// address checks that name has A or AAAA records (RFC 3404 §4.3, "A").
func (d *Discoverer) address(ctx context.Context, name string) error {
	for _, t := range []uint16{dns.TypeA, dns.TypeAAAA} {
		ans, err := d.dns.lookup(ctx, name, t)
		if err != nil {
			return err
		}
		if !ans.negative {
			return nil
		}
	}
	return fmt.Errorf("%s has no A or AAAA records", name)
}

func (d *Discoverer) thttpReferral(base string, name urn.URN, s svc, hops int, path []string) (resolver.Referral, bool, error) {
	u, err := redirectURL(base, name, s, hops)
	if err != nil {
		return resolver.Referral{}, false, err
	}
	r := referral(u, path)
	r.Why += ", as " + s.thttp()
	return r, true, nil
}

func referral(u string, path []string) resolver.Referral {
	return resolver.Referral{URL: u, Via: "ddds", Why: "DDDS: " + strings.Join(path, "; "), Path: path}
}

func (d *Discoverer) broken(path []string, format string, args ...any) (resolver.Referral, bool, error) {
	msg := "DDDS: " + fmt.Sprintf(format, args...)
	if len(path) > 0 {
		msg += ", after " + strings.Join(path, "; ")
	}
	return resolver.Referral{}, false, &resolver.Error{Kind: resolver.KindNotFound, Offset: -1, Message: msg}
}

// unavailable is the error of a DNS server that failed or did not answer:
// KindUnavailable, with ErrDiscoveryUnavailable (not the store's
// ErrUnavailable) in its chain, so that the answer does not blame the
// directory's store.
func unavailable(path []string, err error) error {
	msg := "DDDS discovery: " + err.Error()
	if len(path) > 0 {
		msg += ", after " + strings.Join(path, "; ")
	}
	return &resolver.Error{Kind: resolver.KindUnavailable, Offset: -1, Message: msg, Err: errors.Join(resolver.ErrDiscoveryUnavailable, err)}
}
