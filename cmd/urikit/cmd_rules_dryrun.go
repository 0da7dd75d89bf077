package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/federate"
	"github.com/urikit/urikit/urn"
)

// A dry run of a rule change: `urikit rules add PREFIX TARGET --dry-run`
// or `urikit rules remove ID --dry-run` checks the change as the server
// would (the rule's form, a rule already there for the prefix, an unknown
// ID), says which rules it meets, and shows for each name given with
// --try or --try-file where it goes now and where it would go after the
// change, by the server's own function (federate.ByRules). Nothing is
// written. Rules kept as web-server configuration have no such check,
// and a change is first tested in production (RESOLVERS.md).

// ruleChange is the change a dry run tries.
type ruleChange struct {
	add    *resolver.Rule // the rule added (no ID yet), or nil
	remove int64          // the ID of the rule removed, or 0
}

// rulesDryRunCmd runs `rules add|remove … --dry-run` on the command
// line's arguments (pos: PREFIX TARGET, or the ID already parsed).
func rulesDryRunCmd(s *stdio, cmd string, t *target, sub string, pos []string, id int64, tries []string, tryFile, service string) int {
	names, err := readTries(tries, tryFile)
	if err != nil {
		return usageErr(s, cmd, "--try-file: %v", err)
	}
	if err := federate.CheckService(service); err != nil {
		return usageErr(s, cmd, "--service: %v", err)
	}
	change := ruleChange{remove: id}
	if sub == "add" {
		r, err := resolver.NewRule(pos[0], pos[1])
		if err != nil {
			return fail(s, cmd, t, err)
		}
		change.add = &r
	}
	return withDir(s, cmd, t, false, func(ctx context.Context, d directory) int {
		return rulesDryRun(ctx, s, cmd, t, d, change, names, service)
	})
}

// rulesDryRun prints what change would do to the names of tries and
// returns the exit status: 0 when the change would be accepted, 1 when the
// server would refuse it or a name tried is refused (not a URN, say).
func rulesDryRun(ctx context.Context, s *stdio, cmd string, t *target, d directory, change ruleChange, tries []tryName, service string) int {
	before, err := d.Rules(ctx)
	if err != nil {
		return fail(s, cmd, t, err)
	}
	after, status := changedRules(s, cmd, t, before, change)
	if after == nil {
		return status
	}
	for _, line := range meetings(before, change) {
		fmt.Fprintln(s.out, line)
	}
	changed, bad := 0, 0
	ddds := dddsMemo{}
	for _, try := range tries {
		name := try.name
		now, err := destination(ctx, d, before, name, service, ddds)
		if err == nil {
			var then string
			if then, err = destination(ctx, d, after, name, service, ddds); err == nil {
				if now == then {
					fmt.Fprintf(s.out, "same      %s: %s\n", name, now)
				} else {
					changed++
					fmt.Fprintf(s.out, "changes   %s: %s\n          after: %s\n", name, now, then)
				}
				continue
			}
		}
		if resolver.KindOf(err) != resolver.KindInvalid {
			return fail(s, cmd, t, err)
		}
		bad++
		fmt.Fprintf(s.out, "refused   %s%s: %v\n", try.where, name, err)
	}
	what := "the change would be accepted"
	if change.add != nil {
		what = "the rule would be accepted"
	}
	if len(tries) == 0 {
		fmt.Fprintf(s.out, "dry run: %s; no names tried (--try, --try-file)", what)
	} else {
		fmt.Fprintf(s.out, "dry run: %s; %s of %d would go elsewhere", what, plural(changed, "name", "names"), len(tries)-bad)
	}
	if bad > 0 {
		fmt.Fprintf(s.out, "; %s refused", plural(bad, "name was", "names were"))
	}
	fmt.Fprintln(s.out, "; nothing was written")
	if bad > 0 {
		return exitInvalid
	}
	return exitOK
}

// changedRules returns the rules after change, or nil and the exit status
// when the server would refuse it, with the reason (the server's, and the
// rule in the way).
func changedRules(s *stdio, cmd string, t *target, rules []resolver.Rule, change ruleChange) ([]resolver.Rule, int) {
	after := slices.Clone(rules)
	if change.add != nil {
		if i := slices.IndexFunc(rules, func(r resolver.Rule) bool { return r.Prefix == change.add.Prefix }); i >= 0 {
			return nil, fail(s, cmd, t, &resolver.Error{Kind: resolver.KindConflict, Offset: -1,
				Message: fmt.Sprintf("there is already a rule for %s: rule %d → %s (remove it first)", rules[i].Prefix, rules[i].ID, rules[i].Target)})
		}
		return append(after, *change.add), exitOK
	}
	i := slices.IndexFunc(rules, func(r resolver.Rule) bool { return r.ID == change.remove })
	if i < 0 {
		return nil, fail(s, cmd, t, &resolver.Error{Kind: resolver.KindNotFound, Offset: -1, Message: fmt.Sprintf("no rule %d", change.remove)})
	}
	return slices.Delete(after, i, i+1), exitOK
}

// meetings says which rules' prefixes lie over or under the prefix of the
// rule added or removed, as written or in their key forms (urn.KeyPrefixes:
// urn:nbn:DE: and urn:nbn:de: hold the same names, RFC 8458 §4.3). Of the
// rules over it, only the nearest, the longest prefix, holds the names
// under it before an addition or after a removal; every rule under it
// keeps the names under its own prefix.
func meetings(rules []resolver.Rule, change ruleChange) []string {
	var p string
	var lines []string
	if change.add != nil {
		p = change.add.Prefix
		lines = append(lines, fmt.Sprintf("new rule: %s → %s", p, change.add.Target))
	} else {
		for _, r := range rules {
			if r.ID == change.remove {
				p = r.Prefix
				lines = append(lines, fmt.Sprintf("rule %d removed: %s → %s", r.ID, r.Prefix, r.Target))
			}
		}
	}
	var nearest *resolver.Rule
	var under []string
	for i, r := range rules {
		switch {
		case r.ID == change.remove:
		case r.Prefix == p || prefixUnder(p, r.Prefix) && prefixUnder(r.Prefix, p):
			lines = append(lines, fmt.Sprintf("  the same names as rule %d (%s → %s), by the namespace's equivalence", r.ID, r.Prefix, r.Target))
		case prefixUnder(p, r.Prefix):
			if nearest == nil || len(r.Prefix) > len(nearest.Prefix) {
				nearest = &rules[i]
			}
		case prefixUnder(r.Prefix, p):
			under = append(under, fmt.Sprintf("  over rule %d (%s → %s), which keeps the names under its prefix", r.ID, r.Prefix, r.Target))
		}
	}
	if nearest != nil {
		what := "go there instead"
		if change.add != nil {
			what = "go to " + change.add.Target + " instead"
		}
		lines = append(lines, fmt.Sprintf("  under rule %d (%s → %s): the names under %s %s", nearest.ID, nearest.Prefix, nearest.Target, p, what))
	}
	return append(lines, under...)
}

// prefixUnder reports whether the names under prefix p all lie under
// prefix q, as written or by a key form: one of p's key prefixes starts
// with one of q's.
func prefixUnder(p, q string) bool {
	if strings.HasPrefix(p, q) {
		return true
	}
	for _, kp := range urn.KeyPrefixes(p) {
		for _, kq := range urn.KeyPrefixes(q) {
			if strings.HasPrefix(kp, kq) {
				return true
			}
		}
	}
	return false
}

// destination says where name goes under rules, as the server would
// answer it: its own record here (410 when withdrawn), a reserved alias,
// the redirect of the rule it takes (508 when it has been handed on too
// often), or no rule, and then what the server's DDDS discovery finds
// (ddds). The answers before and after a change are compared as strings.
func destination(ctx context.Context, d directory, rules []resolver.Rule, name, service string, ddds dddsMemo) (string, error) {
	u, err := resolver.ParseName("urn", name)
	if err != nil {
		return "", err
	}
	if rec, err := d.Get(ctx, name); err == nil {
		if rec.Status == resolver.Withdrawn {
			return "its own record here (" + rec.URN + "), withdrawn: 410, before any rule", nil
		}
		return "its own record here (" + rec.URN + "), answered before any rule", nil
	} else if errors.Is(err, resolver.ErrReserved) {
		return "reserved here (an alias a record dropped): 404, never handed on", nil
	} else if resolver.KindOf(err) != resolver.KindNotFound {
		return "", err
	}
	hops, _, err := federate.Hops(u)
	if err != nil {
		return "", err
	}
	ref, ok, err := federate.ByRules(rules, u, service, min(hops+1, federate.MaxHops)) // past the limit: only named in the 508
	if err != nil {
		return "", err
	}
	if !ok {
		return ddds.destination(ctx, d, name, service)
	}
	rule := "the new rule"
	if ref.Rule.ID != 0 {
		rule = fmt.Sprintf("rule %d", ref.Rule.ID)
	}
	if hops >= federate.DefaultHopLimit {
		// The rule applies, but the server would not hand the name on
		// again (RFC 5842 §7.2), as rules test says.
		return fmt.Sprintf("%s (%s), but 508 Loop Detected: handed on %d times already", rule, ref.Rule.Prefix, hops), nil
	}
	return fmt.Sprintf("%s (%s) → %s", rule, ref.Rule.Prefix, ref.URL), nil
}

// dddsMemo keeps, by name, where the server's DDDS discovery sends a name
// no rule applies to: the rules do not change it, so a dry run asks once
// a name for before and after the change.
type dddsMemo map[string]string

// destination says where the server's DDDS discovery (urikit serve --dns)
// sends name, which no rule applies to: a redirect, 404 and why (no NAPTR
// records, a chain that breaks, discovery off), or 503 when the DNS
// server fails. On a data directory the discovery is not there to ask.
func (m dddsMemo) destination(ctx context.Context, d directory, name, service string) (string, error) {
	if v, ok := m[name]; ok {
		return v, nil
	}
	disc, ok, err := d.Discover(ctx, name, service)
	var v string
	switch {
	case errors.Is(err, resolver.ErrDiscoveryUnavailable):
		v = "no rule; DDDS discovery: 503, the server's DNS server failed: " + bareError(err)
	case err != nil:
		return "", err
	case !ok:
		v = "no rule: 404 (or DDDS discovery, when the server runs with --dns)"
	case disc.Status == http.StatusSeeOther:
		v = "no rule; DDDS discovery → " + disc.URL
	case disc.Status == http.StatusLoopDetected:
		v = "no rule; DDDS discovery, but 508 Loop Detected: " + disc.Why
	default:
		v = "no rule: 404 (" + disc.Why + ")"
	}
	m[name] = v
	return v, nil
}

// tryName is a name a dry run tries, with where it came from: "" for
// --try, "FILE:LINE: " for a line of --try-file.
type tryName struct{ name, where string }

// readTries returns the names of --try and of the file of --try-file (one
// a line; blank lines and lines starting with # skipped).
func readTries(flags []string, file string) ([]tryName, error) {
	var tries []tryName
	for _, n := range flags {
		tries = append(tries, tryName{name: n})
	}
	if file == "" {
		return tries, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		tries = append(tries, tryName{name: line, where: fmt.Sprintf("%s:%d: ", file, n)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return tries, nil
}
