package resolver_test

import (
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/urn"
)

// RFC 8141 §3.1 compares percent-encodings as units (their hex digits case-
// insensitively), so a prefix cut inside one is not the start of an NSS:
// "urn:nbn:de:1%4" was accepted only because the character standing in
// for the rest of the name happened to be a hex digit, while "urn:nbn:de:1%"
// was refused.
func TestCanonicalPrefixEndsOnACharacter(t *testing.T) {
	for _, p := range []string{"urn:nbn:de:1%", "urn:nbn:de:1%4", "urn:nbn:de:1%f", "urn:example:%", "urn:example:%a", "urn:example:a%2Fb%"} {
		_, err := resolver.CanonicalPrefix(p)
		var e *resolver.Error
		if !asError(err, &e) || e.Kind != resolver.KindInvalid || e.Offset != strings.LastIndexByte(p, '%') {
			t.Errorf("CanonicalPrefix(%q) = %v, want KindInvalid at the last %%", p, err)
		}
	}
	for p, want := range map[string]string{
		"urn:nbn:de:1%4a": "urn:nbn:de:1%4A",
		"URN:NBN:de:":     "urn:nbn:de:",
		"urn:nbn":         "urn:nbn:",
		"urn:x-y:a%2f%7e": "urn:x-y:a%2F%7E",
	} {
		if got, err := resolver.CanonicalPrefix(p); err != nil || got != want {
			t.Errorf("CanonicalPrefix(%q) = %q, %v; want %q", p, got, err, want)
		}
	}
}

func asError(err error, e **resolver.Error) bool {
	re, ok := err.(*resolver.Error)
	*e = re
	return ok
}

// FuzzCanonicalPrefix: for any valid URN and any cut of its assigned name,
// the canonical prefix (when the cut is one) is a prefix of the name's
// canonical form, HasPrefix says so, the function is idempotent, and an
// error never panics and points into the input.
func FuzzCanonicalPrefix(f *testing.F) {
	for _, s := range []string{
		"urn:nbn:de:101-2024-1", "URN:NBN:de:1%4a", "urn:example:a%2fb/c", "urn:isbn:978-0-395-36341-6",
		"urn:ietf:rfc:2141", "urn:example:a?+r=1?=q#f", "urn:Example-X:%7E%7e",
	} {
		f.Add(s, len(s)/2)
	}
	f.Fuzz(func(t *testing.T, name string, cut int) {
		c, err := resolver.CanonicalPrefix(name)
		if err == nil {
			if again, err := resolver.CanonicalPrefix(c); err != nil || again != c {
				t.Fatalf("not idempotent: %q -> %q -> %q, %v", name, c, again, err)
			}
			if !strings.HasPrefix(c, "urn:") || strings.ContainsAny(c, "?#") {
				t.Fatalf("%q -> %q", name, c)
			}
		} else {
			var e *resolver.Error
			if !asError(err, &e) || e.Kind != resolver.KindInvalid || e.Offset > len(name) {
				t.Fatalf("CanonicalPrefix(%q): %v", name, err)
			}
		}
		u, err := urn.Parse(name)
		if err != nil {
			return
		}
		an := u.AssignedName()
		if cut < 0 {
			cut = -cut
		}
		// A cut inside the NID names another, whole namespace ("urn:exam"
		// is urn:exam:); cut at the end of the NID or in the NSS.
		from := 4 + len(u.NID())
		p := an[:from+cut%(len(an)-from+1)]
		cp, err := resolver.CanonicalPrefix(p)
		if err != nil {
			return
		}
		cn := u.CanonicalString()
		if !strings.HasPrefix(cn, cp) || !resolver.HasPrefix(cn, cp) {
			t.Fatalf("prefix %q of %q canonicalizes to %q, not a prefix of %q", p, name, cp, cn)
		}
		if !resolver.PrefixesOverlap(cp, cn) {
			t.Fatalf("%q and %q do not overlap", cp, cn)
		}
		// A longer cut overlaps the shorter one.
		if cp2, err := resolver.CanonicalPrefix(an); err == nil && !resolver.PrefixesOverlap(cp, cp2) {
			t.Fatalf("%q and %q do not overlap", cp, cp2)
		}
	})
}

// Prefix overlap, compared in canonical lexical form (RFC 8141 §3.1: NID
// case-insensitive, hex digits case-insensitive, nothing decoded).
func TestPrefixOverlapEdges(t *testing.T) {
	for _, tc := range []struct {
		a, b    string
		overlap bool
	}{
		{"urn:nbn:de:", "urn:nbn:de:1", true},
		{"urn:nbn:de", "urn:nbn:de:", true}, // "urn:nbn:de" is a prefix of "urn:nbn:de:"
		{"urn:nbn", "urn:NBN:de:", true},    // the whole namespace
		{"urn:nb", "urn:nbn:", false},       // "urn:nb" is the namespace nb, not a cut of nbn
		{"urn:nbn:de:a%2f", "urn:nbn:de:a%2F", true},
		{"urn:nbn:de:a%2F", "urn:nbn:de:a/", false}, // RFC 8141: %2F is not "/"
		{"urn:nbn:de:a%41", "urn:nbn:de:aA", false},
		{"urn:nbn:de:101-", "urn:nbn:de:1011-", false},
		{"urn:nbn:de:101", "urn:nbn:de:1011-", true},
		{"urn:example:a", "urn:example:A", false}, // the NSS keeps its case
	} {
		a, err := resolver.CanonicalPrefix(tc.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := resolver.CanonicalPrefix(tc.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := resolver.PrefixesOverlap(a, b); got != tc.overlap || resolver.PrefixesOverlap(b, a) != got {
			t.Errorf("%s (%s) and %s (%s): overlap %v, want %v", tc.a, a, tc.b, b, got, tc.overlap)
		}
	}
}
