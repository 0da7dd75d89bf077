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
// Each implementation lives in its own ns_<nid>.go file and registers itself
// in init with RegisterNamespace.
type Namespace interface {
	// NID is the namespace identifier in lower case.
	NID() string
	// Reference names the document the rules come from, e.g. "RFC 3187".
	Reference() string
	// Validate checks a raw NSS (percent-encodings as written) against the
	// namespace's own syntax.
	Validate(nss string) error
	// Normalize returns the canonical key form of an NSS that Validate
	// accepts: two names of the namespace are equivalent exactly when their
	// keys are equal. The NSS it gets has already been put in RFC 8141 §3.1
	// canonical form (upper-case hex), so lexically equivalent names always
	// share a key.
	Normalize(nss string) (string, error)
	// Rule says in a few words which equivalence rule Normalize applies.
	Rule() string
}

var namespaces = map[string]Namespace{}

// RegisterNamespace adds ns to the namespaces this package knows. It panics
// on a duplicate NID, a programming error.
func RegisterNamespace(ns Namespace) {
	nid := strings.ToLower(ns.NID())
	if _, dup := namespaces[nid]; dup {
		panic("urn: namespace registered twice: " + nid)
	}
	namespaces[nid] = ns
}

// LookupNamespace returns the namespace rules for nid (any case), if known.
func LookupNamespace(nid string) (Namespace, bool) {
	var buf [32]byte
	if len(nid) > len(buf) {
		return nil, false
	}
	ns, ok := namespaces[string(ascii.AppendLower(buf[:0], nid))]
	return ns, ok
}

// Namespaces lists the NIDs that have namespace rules, sorted.
func Namespaces() []string {
	out := make([]string, 0, len(namespaces))
	for nid := range namespaces {
		out = append(out, nid)
	}
	sort.Strings(out)
	return out
}

// Validate checks u's NSS against the rules of its namespace, when the
// package knows them; for other namespaces it returns nil.
func (u URN) Validate() error {
	if !u.IsValid() {
		return errorf(ErrInvalidPrefix, "", 0, `the zero URN: missing "urn:" prefix`)
	}
	ns, ok := LookupNamespace(u.NID())
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
const KeyVersion = 1

// Key returns the canonical key of u's equivalence class: for a namespace
// the package knows and an NSS that namespace accepts, "urn:" NID ":" the
// namespace's normal form (so urn:ISBN:0-395-36341-1 and
// urn:isbn:9780395363416 share a key); otherwise the RFC 8141 §3.1
// canonical form. Two URNs are equivalent at the Namespace level exactly
// when their keys are equal.
func (u URN) Key() string {
	k, _ := u.key()
	return k
}

// key also reports the namespace whose rule produced the key (nil when the
// lexical form was used).
func (u URN) key() (string, Namespace) {
	if !u.IsValid() {
		return "", nil
	}
	c := u.Canonical()
	ns, ok := LookupNamespace(u.NID())
	if !ok {
		return c.s, nil
	}
	nss := c.NSS()
	if ns.Validate(nss) != nil {
		return c.s, nil
	}
	norm, err := ns.Normalize(nss)
	if err != nil {
		return c.s, nil
	}
	return "urn:" + c.NID() + ":" + norm, ns
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
// rule decided it.
func Compare(a, b URN, level Level) Comparison {
	if !a.IsValid() || !b.IsValid() {
		return Comparison{Rule: "an invalid URN is equivalent to nothing"}
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
	ns, ok := LookupNamespace(a.NID())
	if !ok {
		return Comparison{Rule: fmt.Sprintf("no namespace rules known for %q; RFC 8141 §3.1: NSSs differ", lowerString(a.NID()))}
	}
	ka, nsa := a.key()
	kb, nsb := b.key()
	switch {
	case nsa == nil:
		return Comparison{Rule: fmt.Sprintf("%s (%s): %q is not a valid NSS there: %v", ns.NID(), ns.Reference(), a.NSS(), ns.Validate(a.Canonical().NSS()))}
	case nsb == nil:
		return Comparison{Rule: fmt.Sprintf("%s (%s): %q is not a valid NSS there: %v", ns.NID(), ns.Reference(), b.NSS(), ns.Validate(b.Canonical().NSS()))}
	case ka == kb:
		return Comparison{Equal: true, Rule: fmt.Sprintf("%s (%s): %s; both give key %s", ns.NID(), ns.Reference(), ns.Rule(), ka)}
	}
	return Comparison{Rule: fmt.Sprintf("%s (%s): %s; keys differ: %s vs %s", ns.NID(), ns.Reference(), ns.Rule(), ka, kb)}
}

func lowerString(s string) string { return ascii.LowerString(s) }
