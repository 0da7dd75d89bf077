package urn

import (
	"strings"

	"github.com/urikit/urikit/internal/ascii"
)

// Registration is one entry of the IANA URN namespace registry, as
// generated into registry_gen.go.
type Registration struct {
	NID       string // lower case
	Informal  bool   // an informal "urn-N" namespace (RFC 8141 §5.2)
	Reference string // the registry's reference or registrant, as listed
	Snapshots string // the registry snapshots that list it, comma-separated
}

// LookupNID returns the registry entry for nid (any case).
func LookupNID(nid string) (Registration, bool) {
	var buf [32]byte
	if len(nid) > len(buf) {
		return Registration{}, false
	}
	r, ok := registry[string(ascii.AppendLower(buf[:0], nid))]
	return r, ok
}

// Class is the kind of namespace an NID names (RFC 8141 §5).
type Class uint8

const (
	// Unregistered: syntactically valid, not reserved, but not in the
	// registry.
	Unregistered Class = iota
	// Formal: a registered formal namespace (RFC 8141 §5.1).
	Formal
	// Informal: "urn-" followed by a number (RFC 8141 §5.2).
	Informal
	// Experimental: the "X-" form RFC 3406 allowed and RFC 8141 §5.1
	// retired.
	Experimental
	// Reserved: a name RFC 8141 keeps out of registration: "urn" (§5.1 and
	// the 2012 draft §2.1), two characters, two letters and a hyphen
	// (including "xn--"), or "urn-" not followed by a valid number.
	Reserved
)

func (c Class) String() string {
	switch c {
	case Formal:
		return "formal"
	case Informal:
		return "informal"
	case Experimental:
		return "experimental"
	case Reserved:
		return "reserved"
	}
	return "unregistered"
}

// Warn reports whether names of this class deserve a warning: only formal
// and informal namespaces are in good standing.
func (c Class) Warn() bool { return c != Formal && c != Informal }

// Class returns the class of u's NID.
func (u URN) Class() Class {
	c, _ := classify(u.NID(), false)
	return c
}

// ClassifyNID tells which class of RFC 8141 §5 nid falls in, and why. nid is
// assumed to be a syntactically valid NID.
func ClassifyNID(nid string) (Class, string) { return classify(nid, true) }

// classify builds the explanation only when why is set, so Class does not
// allocate.
func classify(nid string, why bool) (Class, string) {
	if r, ok := LookupNID(nid); ok {
		if !why {
			if r.Informal {
				return Informal, ""
			}
			return Formal, ""
		}
		if r.Informal {
			return Informal, "urn-<number>, in the IANA registry (RFC 8141 §5.2)"
		}
		ref := r.Reference
		if ref == "" {
			ref = "no reference listed"
		}
		return Formal, "in the IANA registry (" + ref + ")"
	}
	var buf [32]byte
	l := nid
	if len(nid) <= len(buf) {
		l = string(ascii.AppendLower(buf[:0], nid))
	}
	switch {
	case strings.HasPrefix(l, "urn-"):
		n := l[4:]
		if allDigits(n) && n[0] != '0' {
			return Informal, "urn-<number> (RFC 8141 §5.2), not in the registry snapshot"
		}
		return Reserved, `"urn-" is reserved for informal namespaces, followed by a number without leading zeros (RFC 8141 §5.2)`
	case l == "urn":
		return Reserved, `the NID "urn" is reserved (RFC 8141 §5.1; 2012 draft §2.1)`
	case strings.HasPrefix(l, "x-"):
		return Experimental, `"X-" experimental namespaces (RFC 3406) are no longer allowed (RFC 8141 §5.1)`
	case len(l) <= 2:
		return Reserved, "NIDs of two characters are reserved (RFC 8141 §5.1)"
	case class[l[0]]&cAlnum != 0 && l[0] > '9' && class[l[1]]&cAlnum != 0 && l[1] > '9' && l[2] == '-':
		if len(l) > 3 && l[3] == '-' {
			return Reserved, "two letters and two hyphens (as in xn--) are reserved for A-labels (RFC 8141 §5.1)"
		}
		return Reserved, "two letters and a hyphen are reserved for country codes (RFC 8141 §5.1)"
	}
	return Unregistered, "not in the IANA registry snapshot"
}
