package urn

import (
	"fmt"
	"sort"
	"strings"

	"github.com/urikit/urikit/internal/ascii"
)

// Namespace is the namespace-specific knowledge of one NID: the syntax its
// registration gives the NSS and the extra equivalence rules it defines
// (RFC 8141 §3.1 lets a namespace remove false negatives, never add them).
// Each built-in implementation lives in its own ns_<nid>.go file; a
// program adds its own through NewRules.
type Namespace interface {
	// NID is the namespace identifier in lower case.
	NID() string
	// Reference names the document the rules come from, e.g. "RFC 3187".
	Reference() string
	// Validate checks a raw NSS (percent-encodings as written) against the
	// namespace's own syntax (an ISBN's check digit, a UUID's length).
	Validate(nss string) error
	// Normalize returns the key form of an NSS: two names of the namespace
	// are equivalent exactly when their keys are equal. It applies the
	// registration's equivalence rules, which need not wait for Validate
	// (RFC 3187 removes an ISBN's hyphens whatever its check digit); it
	// returns an error when its rules cannot apply, and then the RFC 8141
	// §3.1 form is the key. The NSS it gets has already been put in that
	// canonical form (upper-case hex), so lexically equivalent names
	// always share a key.
	Normalize(nss string) (string, error)
	// Rule says in a few words which equivalence rule Normalize applies.
	Rule() string
}

// builtin holds the namespaces of this package. The ns_<nid>.go files fill
// it from init; nothing writes it afterwards, so lookups need no lock and
// Key, Compare and Validate answer the same way for the life of the
// process.
var builtin = map[string]Namespace{}

// register adds a built-in namespace from an init function; a duplicate
// NID is a programming error the first test run catches.
func register(ns Namespace) {
	nid := ascii.LowerString(ns.NID())
	if _, dup := builtin[nid]; dup {
		panic("urn: namespace registered twice: " + nid)
	}
	builtin[nid] = ns
}

// LookupNamespace returns the built-in rules for nid (any case), if known.
func LookupNamespace(nid string) (Namespace, bool) { return Rules{}.Lookup(nid) }

// Namespaces lists the NIDs that have built-in rules, sorted.
func Namespaces() []string {
	out := make([]string, 0, len(builtin))
	for nid := range builtin {
		out = append(out, nid)
	}
	sort.Strings(out)
	return out
}

// Rules is a set of namespace rules: the built-in ones, and those a
// program adds with NewRules. The zero Rules is the built-in set, which
// the package-level Compare and the methods Key and Validate use. A Rules
// is never modified once made, so one value may be used by any number of
// goroutines.
type Rules struct {
	m map[string]Namespace // nil: the built-in set
}

// NewRules returns the built-in rules plus extra; an extra namespace
// replaces a built-in one of the same NID. It fails when an extra's NID
// is not a valid NID (RFC 8141 §2) or two extras share one.
func NewRules(extra ...Namespace) (Rules, error) {
	m := make(map[string]Namespace, len(builtin)+len(extra))
	for nid, ns := range builtin {
		m[nid] = ns
	}
	seen := map[string]bool{}
	for _, ns := range extra {
		nid := ascii.LowerString(ns.NID())
		if _, err := Parse("urn:" + nid + ":x"); err != nil {
			return Rules{}, fmt.Errorf("urn: NewRules: %q is not a valid NID", ns.NID())
		}
		if seen[nid] {
			return Rules{}, fmt.Errorf("urn: NewRules: namespace %q given twice", nid)
		}
		seen[nid] = true
		m[nid] = ns
	}
	return Rules{m: m}, nil
}

// Lookup returns the rules for nid (any case), if known.
func (r Rules) Lookup(nid string) (Namespace, bool) {
	m := r.m
	if m == nil {
		m = builtin
	}
	var buf [32]byte // an NID has at most 32 characters (RFC 8141 §2)
	if len(nid) > len(buf) {
		return nil, false
	}
	ns, ok := m[string(ascii.AppendLower(buf[:0], nid))]
	return ns, ok
}

// NIDs lists the NIDs that have rules in r, sorted.
func (r Rules) NIDs() []string {
	if r.m == nil {
		return Namespaces()
	}
	out := make([]string, 0, len(r.m))
	for nid := range r.m {
		out = append(out, nid)
	}
	sort.Strings(out)
	return out
}

// Validate checks u's NSS against the rules of its namespace, when the
// package knows them; for other namespaces it returns nil.
func (u URN) Validate() error { return Rules{}.Validate(u) }

// Validate checks u's NSS against the rules of its namespace in r, when r
// has them; for other namespaces it returns nil.
func (r Rules) Validate(u URN) error {
	if !u.IsValid() {
		return errorf(ErrInvalidPrefix, "", 0, `the zero URN: missing "urn:" prefix`)
	}
	ns, ok := r.Lookup(u.NID())
	if !ok {
		return nil
	}
	if err := ns.Validate(u.NSS()); err != nil {
		return nsError(u, ns, err)
	}
	return nil
}

// NamespaceError is returned by Validate and Key when an NSS breaks its
// namespace's own syntax.
type NamespaceError struct {
	NID    string // lower case
	Ref    string // the namespace's document, e.g. "RFC 3187"
	NSS    string
	Reason string
}

func (e *NamespaceError) Error() string {
	return fmt.Sprintf("urn:%s: %s (%s) in %q", e.NID, e.Reason, e.Ref, e.NSS)
}

// Unwrap returns ErrNamespace, so that errors.Is(err, urn.ErrNamespace)
// tells a namespace rule from a syntax error.
func (e *NamespaceError) Unwrap() error { return ErrNamespace }

func nsError(u URN, ns Namespace, err error) error {
	if ne, ok := err.(*NamespaceError); ok {
		return ne
	}
	return &NamespaceError{NID: ns.NID(), Ref: ns.Reference(), NSS: u.NSS(), Reason: err.Error()}
}

// KeyVersion names the rules Key follows. It changes whenever a change to
// this package gives some URN a different key, so that a store which keeps
// keys (the resolver's) can tell which of them to compute again.
//
//   - 1: the first rules.
//   - 2: ISBN and ISSN keys follow RFC 3187 §3.2 and RFC 3044 §3.1 for
//     every NSS, valid check digit or not: hyphens removed, "x" upper-cased
//     (urn:isbn:0-395-36341-2 keys as urn:isbn:0395363412, urn:issn:1234-5678
//     as urn:issn:12345678; version 1 kept the lexical form of an invalid
//     ISBN or ISSN, and the hyphen of an ISSN's key).
const KeyVersion = 2

// Key returns the canonical key of u's equivalence class: for a namespace
// the package knows, "urn:" NID ":" the namespace's key form of the NSS
// (so urn:ISBN:0-395-36341-1 and urn:isbn:9780395363416 share a key);
// otherwise the RFC 8141 §3.1 canonical form. Two URNs are equivalent at
// the Namespace level exactly when their keys are equal. The key is itself
// a URN, whose key is itself.
func (u URN) Key() string { return Rules{}.Key(u) }

// Key is URN.Key with the namespace rules of r.
func (r Rules) Key(u URN) string {
	k, _ := r.key(u)
	return k
}

// key also reports the namespace whose rule produced the key (nil when the
// lexical form was used).
func (r Rules) key(u URN) (string, Namespace) {
	if !u.IsValid() {
		return "", nil
	}
	c := u.Canonical()
	ns, ok := r.Lookup(u.NID())
	if !ok {
		return c.s, nil
	}
	norm, err := ns.Normalize(c.NSS())
	if err != nil {
		return c.s, nil
	}
	k := "urn:" + c.NID() + ":" + norm
	if v, err := Parse(k); err != nil || v.nssEnd != uint32(len(k)) {
		// A rule that leaves no valid NSS (hyphens removed from "-")
		// cannot give a key; the lexical form is the key then.
		return c.s, nil
	}
	return k, ns
}

// Level is how far Compare goes.
type Level uint8

const (
	// Lexical is RFC 8141 §3.1 URN-equivalence.
	Lexical Level = iota
	// NamespaceLevel adds the equivalence rules of the namespace's own
	// registration, for the namespaces the package knows.
	NamespaceLevel
)

// ParseLevel reads "lexical" or "namespace".
func ParseLevel(s string) (Level, error) {
	switch s {
	case "lexical":
		return Lexical, nil
	case "namespace":
		return NamespaceLevel, nil
	}
	return 0, fmt.Errorf("unknown level %q (want lexical or namespace)", s)
}

func (l Level) String() string {
	if l == NamespaceLevel {
		return "namespace"
	}
	return "lexical"
}

// Comparison is the outcome of Compare with the rule that decided it.
type Comparison struct {
	Equal bool
	Rule  string // the rule that matched or failed, in one line
}

// Compare tells whether a and b are equivalent at the given level and which
// rule decided it, with the built-in namespace rules.
func Compare(a, b URN, level Level) Comparison { return Rules{}.Compare(a, b, level) }

// Compare is the package-level Compare with the namespace rules of r.
func (r Rules) Compare(a, b URN, level Level) Comparison {
	switch {
	case !a.IsValid() && !b.IsValid():
		return Comparison{Equal: true, Rule: "both are the zero URN"}
	case !a.IsValid() || !b.IsValid():
		return Comparison{Rule: "the zero URN is equivalent to no parsed URN"}
	}
	if a.Equal(b) {
		var how []string
		if a.s[:4] != b.s[:4] {
			how = append(how, `"urn" case`)
		}
		if a.NID() != b.NID() {
			how = append(how, "NID case")
		}
		if a.NSS() != b.NSS() {
			how = append(how, "percent-encoding hex case")
		}
		if a.s[a.nssEnd:] != "" || b.s[b.nssEnd:] != "" {
			how = append(how, "r/q/f-components ignored")
		}
		rule := "RFC 8141 §3.1: assigned names identical"
		if len(how) > 0 {
			rule = "RFC 8141 §3.1: assigned names equal after normalizing " + strings.Join(how, ", ")
		}
		return Comparison{Equal: true, Rule: rule}
	}
	if !strings.EqualFold(a.NID(), b.NID()) {
		return Comparison{Rule: fmt.Sprintf("different namespaces: NID %q vs %q (RFC 8141 §3.1)", lowerString(a.NID()), lowerString(b.NID()))}
	}
	if level == Lexical {
		return Comparison{Rule: "RFC 8141 §3.1: NSSs differ (case-sensitive, percent-encodings not decoded)"}
	}
	ns, ok := r.Lookup(a.NID())
	if !ok {
		return Comparison{Rule: fmt.Sprintf("no namespace rules known for %q; RFC 8141 §3.1: NSSs differ", lowerString(a.NID()))}
	}
	ka, nsa := r.key(a)
	kb, nsb := r.key(b)
	switch {
	case nsa == nil:
		return Comparison{Rule: fmt.Sprintf("%s (%s): %q is not a valid NSS there, so its rules do not apply: %v", ns.NID(), ns.Reference(), a.NSS(), ns.Validate(a.Canonical().NSS()))}
	case nsb == nil:
		return Comparison{Rule: fmt.Sprintf("%s (%s): %q is not a valid NSS there, so its rules do not apply: %v", ns.NID(), ns.Reference(), b.NSS(), ns.Validate(b.Canonical().NSS()))}
	case ka == kb:
		return Comparison{Equal: true, Rule: fmt.Sprintf("%s (%s): %s; both give key %s", ns.NID(), ns.Reference(), ns.Rule(), ka)}
	}
	return Comparison{Rule: fmt.Sprintf("%s (%s): %s; keys differ: %s vs %s", ns.NID(), ns.Reference(), ns.Rule(), ka, kb)}
}

func lowerString(s string) string { return ascii.LowerString(s) }
