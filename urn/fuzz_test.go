package urn

import (
	"strings"
	"testing"
)

func seedURNs(f *testing.F) {
	for _, s := range benchInputs {
		f.Add(s)
	}
	for _, s := range []string{"", "urn:", "urn:a:b", "URN:EX:a%2c?+r?=q#f", "urn:ab-:x", "urn:ab:/x", "urn:ab:x?", "urn:ab:x?+?=", "urn:ab:%", "urn:ab:x#%zz", "urn:isbn:-", "urn:isbn:-/x", "urn:issn:-x-", "urn:isbn:0-395-36341-x"} {
		f.Add(s)
	}
}

// FuzzParse: Parse never panics; a valid URN prints back as its input, its
// parts add up to it, and its canonical form parses to an equal URN.
func FuzzParse(f *testing.F) {
	seedURNs(f)
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parse(s)
		if err != nil {
			e := err.(*Error)
			if e.Offset < 0 || e.Offset > len(s) || e.Input != s || e.Reason == "" {
				t.Fatalf("bad error %#v", e)
			}
			return
		}
		if u.String() != s {
			t.Fatalf("String() = %q, want %q", u.String(), s)
		}
		rebuilt := s[:4] + u.NID() + ":" + u.NSS()
		if r, ok := u.RComponent(); ok {
			rebuilt += "?+" + r
		}
		if q, ok := u.QComponent(); ok {
			rebuilt += "?=" + q
		}
		if fc, ok := u.FComponent(); ok {
			rebuilt += "#" + fc
		}
		if rebuilt != s {
			t.Fatalf("parts %q do not add up to %q", rebuilt, s)
		}
		v, err := Parse(u.String())
		if err != nil || v != u {
			t.Fatalf("round trip: %v", err)
		}
		c := u.Canonical()
		c2, err := Parse(c.String())
		if err != nil || !c2.Equal(u) || !c2.IsCanonical() {
			t.Fatalf("canonical %q of %q: %v", c.String(), s, err)
		}
		if strings.ContainsAny(u.NSS(), "?#") {
			t.Fatalf("NSS %q holds ? or #", u.NSS())
		}
		// Every URN is a URI, and converts back to itself.
		if back, err := FromURI(u.URI()); err != nil || back != u {
			t.Fatalf("FromURI(URI()) of %q = %v, %v", s, back, err)
		}
	})
}

// FuzzCanonical: the canonical form and the namespace key are idempotent.
func FuzzCanonical(f *testing.F) {
	seedURNs(f)
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parse(s)
		if err != nil {
			return
		}
		c := u.CanonicalString()
		if cc := MustParse(c).CanonicalString(); cc != c {
			t.Fatalf("canonical not idempotent: %q -> %q -> %q", s, c, cc)
		}
		k := u.Key()
		kv, err := Parse(k)
		if err != nil {
			t.Fatalf("key %q of %q is not a URN: %v", k, s, err)
		}
		if kk := kv.Key(); kk != k {
			t.Fatalf("key not idempotent: %q -> %q -> %q", s, k, kk)
		}
	})
}

// FuzzEqual: equivalence is symmetric at both levels, agrees with the
// canonical form and the key, and lexical equivalence implies namespace
// equivalence (RFC 8141 §3.1: namespace rules only remove false negatives).
func FuzzEqual(f *testing.F) {
	f.Add("urn:ISBN:0-395-36341-1", "urn:isbn:9780395363416")
	f.Add("URN:EX:a%2c", "urn:ex:a%2C#x")
	f.Add("urn:uuid:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6", "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6")
	f.Add("urn:nbn:DE:a-b", "urn:nbn:de:A-b")
	f.Fuzz(func(t *testing.T, a, b string) {
		ua, err1 := Parse(a)
		ub, err2 := Parse(b)
		if err1 != nil || err2 != nil {
			return
		}
		lex, lexBack := ua.Equal(ub), ub.Equal(ua)
		if lex != lexBack {
			t.Fatalf("Equal not symmetric for %q, %q", a, b)
		}
		if lex != (ua.CanonicalString() == ub.CanonicalString()) {
			t.Fatalf("Equal and canonical forms disagree for %q, %q", a, b)
		}
		ns, nsBack := Compare(ua, ub, NamespaceLevel), Compare(ub, ua, NamespaceLevel)
		if ns.Equal != nsBack.Equal {
			t.Fatalf("namespace equivalence not symmetric for %q, %q", a, b)
		}
		if ns.Equal != (ua.Key() == ub.Key()) {
			t.Fatalf("namespace equivalence and keys disagree for %q, %q: %+v", a, b, ns)
		}
		if lex && !ns.Equal {
			t.Fatalf("lexically equal but not namespace-equal: %q, %q", a, b)
		}
	})
}

// FuzzLegacy: the 1993 form prints back to text that parses to the same value.
func FuzzLegacy(f *testing.F) {
	f.Add(`<URN:ASCII:IANA:merit.edu:mrt\:2345>`)
	f.Add(`<URN::ISSN:1046-8188:a\\b\>c\ d>`)
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLegacy(s)
		if err != nil {
			if e := err.(*Error); e.Offset < 0 || e.Offset > len(s) {
				t.Fatalf("bad offset %d", e.Offset)
			}
			return
		}
		m, err := ParseLegacy(l.String())
		if err != nil || m != l || !m.Equal(l) {
			t.Fatalf("round trip of %q: %q %v", s, l.String(), err)
		}
	})
}

// FuzzDirectives: ParseRequest never panics and reports offsets inside the
// input.
func FuzzDirectives(f *testing.F) {
	f.Add("urn:isbn:0-395-36341-1?s=I2L&c=ToC")
	f.Add("urn:isbn:0-395-36341-1?+s=I2L&s=I2R")
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRequest(s)
		if err != nil {
			if e, ok := err.(*Error); !ok || e.Offset < 0 || e.Offset > len(s) {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, d := range r.Directives.List {
			if seen[d.Keyword] {
				t.Fatalf("keyword %q kept twice", d.Keyword)
			}
			seen[d.Keyword] = true
		}
	})
}
