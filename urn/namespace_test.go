package urn

import (
	"errors"
	"strings"
	"testing"
)

func TestNamespaceValidate(t *testing.T) {
	tests := []struct {
		in     string
		reason string // "" when valid
	}{
		{"urn:isbn:0-395-36341-1", ""},
		{"urn:ISBN:0395363411", ""},
		{"urn:isbn:978-0-395-36341-6", ""},
		{"urn:isbn:0-8044-2957-x", ""},
		{"urn:isbn:979-10-90636-07-1", ""},
		{"urn:isbn:0-395-36341-2", "bad ISBN-10 check digit"},
		{"urn:isbn:978-0-395-36341-7", "bad ISBN-13 check digit"},
		{"urn:isbn:977-0-395-36341-6", `starts with "978" or "979"`},
		{"urn:isbn:0-395-3634", "10 or 13 digits"},
		{"urn:isbn:-0395363411", "misplaced hyphen"},
		{"urn:isbn:0395X63411", "only digits"},
		{"urn:issn:0167-6423", ""},
		{"urn:ISSN:01676423", ""},
		{"urn:issn:0000-006x", ""},
		{"urn:issn:0167-6424", "check digit"},
		{"urn:issn:0167+6423", "NNNN-NNNC"},
		{"urn:issn:016-6423", "holds digits"},
		{"urn:issn:016", "8 characters"},
		{"urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6", ""},
		{"urn:UUID:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6", ""},
		{"urn:uuid:f81d4fae7dec11d0a76500a0c91e6bf6", "36 characters"},
		{"urn:uuid:f81d4fae-7dec-11d0-a765_00a0c91e6bf6", `"-"`},
		{"urn:uuid:g81d4fae-7dec-11d0-a765-00a0c91e6bf6", "hex"},
		{"urn:oid:1.3.6.1.4.1.343", ""},
		{"urn:oid:0", ""},
		{"urn:oid:1.03", "leading zero"},
		{"urn:oid:1..3", "empty"},
		{"urn:oid:1.3.", "empty"},
		{"urn:oid:1.x", "digits"},
		{"urn:ietf:rfc:2648", ""},
		{"urn:IETF:RFC:2648", ""},
		{"urn:ietf:bcp:66", ""},
		{"urn:ietf:std:66", ""},
		{"urn:ietf:fyi:36", ""},
		{"urn:ietf:id:ietf-urnbis-rfc2141bis-urn-03", ""},
		{"urn:ietf:mtg:41-urn", ""},
		{"urn:ietf:params:xml:ns:yang:ietf-interfaces", ""},
		{"urn:ietf:rfc:26a", "takes a number"},
		{"urn:ietf:rfc", "takes a number"},
		{"urn:ietf:id:a.b", "letters, digits and hyphens"},
		{"urn:ietf:foo:bar", "unknown sub-namespace"},
		{"urn:nbn:fi-fe19991055", ""},
		{"urn:nbn:de:bvb:19-146642", ""},
		{"urn:nbn:se:uu:diva-3475", ""},
		{"urn:nbn:f1-x", "two-letter"},
		{"urn:nbn:fi:-x", "empty sub-namespace"},
		{"urn:nbn:fi", `ends with "-"`},
		{"urn:nbn:fi-", "empty NBN string"},
		{"urn:example:anything/at:all", ""},
		{"urn:iso:std:iso:9999:-1:ed-1:en,fr", ""},
		{"urn:iso:tc:46", `starts with "std:"`},
		{"urn:iso:std:", `starts with "std:"`},
		{"urn:unknownnid:whatever", ""},
	}
	for _, tt := range tests {
		err := MustParse(tt.in).Validate()
		if tt.reason == "" {
			if err != nil {
				t.Errorf("Validate(%q) = %v", tt.in, err)
			}
			continue
		}
		var ne *NamespaceError
		if !errors.As(err, &ne) || !strings.Contains(ne.Reason, tt.reason) {
			t.Errorf("Validate(%q) = %v, want %q", tt.in, err, tt.reason)
		}
	}
}

func TestKey(t *testing.T) {
	groups := [][]string{
		{"urn:ISBN:0-395-36341-1", "urn:isbn:9780395363416", "urn:isbn:978-0-395-36341-6", "URN:isbn:0395363411?+s=I2L"},
		{"urn:isbn:0-8044-2957-X", "urn:isbn:0-8044-2957-x", "urn:isbn:9780804429573"},
		{"urn:isbn:979-10-90636-07-1", "urn:isbn:9791090636071"},
		{"urn:issn:0000-006X", "urn:ISSN:0000006x"},
		{"urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6", "URN:UUID:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6"},
		{"urn:ietf:rfc:2648", "URN:IETF:RFC:2648"},
		{"urn:ietf:params:xml:ns:%7e", "urn:ietf:PARAMS:XML:ns:%7E"},
		{"urn:nbn:de:bvb:19-146642", "urn:NBN:DE:BVB:19-146642"},
		{"urn:iso:std:iso:9999:-1:ed-1:en", "urn:ISO:STD:ISO:9999:-1:ED-1:EN"},
		{"urn:oid:1.3.6.1"},
		{"urn:example:a%2c", "urn:EXAMPLE:a%2C"},
		{"urn:example:A"},
		{"urn:nbn:de:bvb:19-146642A"},
		// RFC 3187 §3.2 and RFC 3044 §3.1 compare after removing hyphens
		// and upper-casing "x", whatever the check digit: validity is
		// Validate's question, not equivalence's. The ISBN-10 = ISBN-13
		// rule, which recomputes the check digit, needs a valid one.
		{"urn:isbn:0-395-36341-2", "urn:ISBN:0-395-36341-2", "urn:isbn:0395363412"},
		{"urn:isbn:978-0-395-36341-7", "urn:isbn:9780395363417"},
		{"urn:isbn:0-8044-2957-1", "urn:isbn:0804429571"},
		{"urn:issn:1234-5678", "urn:issn:12345678"},
		{"urn:issn:1234-567x", "urn:ISSN:1234567X"},
		{"urn:isbn:not-an-isbn-x", "urn:isbn:notanisbnX"},
		// Where the hyphens stand does not matter, even misplaced (found
		// by FuzzCanonical: the key must be its own key).
		{"urn:ISBN:90395--36341", "urn:isbn:9039536341", "urn:isbn:9789039536346", "urn:isbn:-9039536341-"},
	}
	keys := map[string]int{}
	for gi, g := range groups {
		k0 := MustParse(g[0]).Key()
		if other, dup := keys[k0]; dup {
			t.Errorf("groups %d and %d share key %q", other, gi, k0)
		}
		keys[k0] = gi
		for _, s := range g[1:] {
			if k := MustParse(s).Key(); k != k0 {
				t.Errorf("Key(%q) = %q, want %q (as %q)", s, k, k0, g[0])
			}
			c := Compare(MustParse(g[0]), MustParse(s), NamespaceLevel)
			if !c.Equal || c.Rule == "" {
				t.Errorf("Compare(%q, %q, namespace) = %+v", g[0], s, c)
			}
			if back := Compare(MustParse(s), MustParse(g[0]), NamespaceLevel); back.Equal != c.Equal {
				t.Errorf("Compare not symmetric for %q, %q", g[0], s)
			}
		}
		// A key is itself a URN with the same key.
		if k := MustParse(k0).Key(); k != k0 {
			t.Errorf("Key(Key(%q)) = %q", g[0], k)
		}
	}
	for in, want := range map[string]string{
		"urn:ISBN:0-395-36341-1": "urn:isbn:9780395363416",
		"urn:isbn:0-395-36341-2": "urn:isbn:0395363412",
		"urn:issn:0000-006x":     "urn:issn:0000006X",
		"urn:issn:1234-5678":     "urn:issn:12345678",
	} {
		if got := MustParse(in).Key(); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
	if got := MustParse("urn:nbn:DE:bvb:19-146642a").Key(); got != "urn:nbn:de:bvb:19-146642a" {
		t.Errorf("NBN key = %q", got)
	}
}

func TestCompareRules(t *testing.T) {
	tests := []struct {
		a, b  string
		level Level
		eq    bool
		rule  string
	}{
		{"urn:example:a", "urn:example:a", Lexical, true, "identical"},
		{"URN:Example:a%2c#f", "urn:example:a%2C", Lexical, true, `"urn" case, NID case, percent-encoding hex case, r/q/f-components ignored`},
		{"urn:isbn:0-395-36341-1", "urn:isbn:9780395363416", Lexical, false, "NSSs differ"},
		{"urn:isbn:0-395-36341-1", "urn:isbn:9780395363416", NamespaceLevel, true, "RFC 3187"},
		{"urn:isbn:0-395-36341-1", "urn:issn:0167-6423", NamespaceLevel, false, "different namespaces"},
		{"urn:isbn:0-395-36341-1", "urn:isbn:0-395-36341-2", NamespaceLevel, false, "keys differ"},
		{"urn:isbn:0-395-36341-2", "urn:isbn:0395363412", NamespaceLevel, true, "hyphens ignored"},
		{"urn:issn:1234-5678", "urn:issn:12345678", NamespaceLevel, true, "RFC 3044"},
		{"urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf", "urn:uuid:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF", NamespaceLevel, false, "not a valid NSS"},
		{"urn:foo:a", "urn:foo:A", NamespaceLevel, false, "no namespace rules"},
		{"urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6", "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf7", NamespaceLevel, false, "keys differ"},
	}
	for _, tt := range tests {
		c := Compare(MustParse(tt.a), MustParse(tt.b), tt.level)
		if c.Equal != tt.eq || !strings.Contains(c.Rule, tt.rule) {
			t.Errorf("Compare(%q, %q, %v) = %+v, want %v %q", tt.a, tt.b, tt.level, c, tt.eq, tt.rule)
		}
	}
	if _, err := ParseLevel("syntax"); err == nil {
		t.Error("ParseLevel accepted an unknown level")
	}
	if got := Namespaces(); strings.Join(got, ",") != "example,ietf,isbn,iso,issn,nbn,oid,uuid" {
		t.Errorf("Namespaces() = %v", got)
	}
}

// testNS is a namespace of a program's own: NSSs compare without case.
type testNS struct{ nid string }

func (n testNS) NID() string                        { return n.nid }
func (testNS) Reference() string                    { return "test" }
func (testNS) Rule() string                         { return "case-insensitive" }
func (testNS) Validate(nss string) error            { return nil }
func (testNS) Normalize(nss string) (string, error) { return strings.ToLower(nss), nil }

func TestRules(t *testing.T) {
	r, err := NewRules(testNS{"X-Test"}, testNS{"isbn"})
	if err != nil {
		t.Fatal(err)
	}
	a, b := MustParse("urn:x-test:ABC"), MustParse("urn:X-TEST:abc")
	if !r.Compare(a, b, NamespaceLevel).Equal || r.Key(a) != "urn:x-test:abc" {
		t.Errorf("extra namespace not applied: %+v, %q", r.Compare(a, b, NamespaceLevel), r.Key(a))
	}
	// The built-in set is untouched: no global state changes what the
	// package-level functions return.
	if Compare(a, b, NamespaceLevel).Equal || a.Key() != "urn:x-test:ABC" {
		t.Error("NewRules changed the built-in rules")
	}
	if _, ok := LookupNamespace("x-test"); ok {
		t.Error("x-test is a built-in namespace after NewRules")
	}
	// An extra namespace replaces a built-in one of its NID.
	if k := r.Key(MustParse("urn:isbn:0-395-36341-1")); k != "urn:isbn:0-395-36341-1" {
		t.Errorf("replaced isbn: key %q", k)
	}
	if got := strings.Join(r.NIDs(), ","); got != "example,ietf,isbn,iso,issn,nbn,oid,uuid,x-test" {
		t.Errorf("NIDs() = %s", got)
	}
	if _, err := NewRules(testNS{"a"}); err == nil {
		t.Error("NewRules accepted an invalid NID")
	}
	if _, err := NewRules(testNS{"ab"}, testNS{"AB"}); err == nil {
		t.Error("NewRules accepted a NID twice")
	}
	if (Rules{}).Key(a) != a.Key() {
		t.Error("the zero Rules is not the built-in set")
	}
}

// TestConcurrentRules runs lookups, keys and comparisons on the built-in
// rules while other goroutines make Rules of their own: with -race, any
// shared write shows up as a data race.
func TestConcurrentRules(t *testing.T) {
	names := []string{"urn:isbn:0-395-36341-1", "urn:ISSN:0000-006x", "urn:uuid:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6", "urn:x-test:A"}
	done := make(chan bool)
	for g := 0; g < 8; g++ {
		go func(g int) {
			defer func() { done <- true }()
			for i := 0; i < 200; i++ {
				if g%2 == 0 {
					r, err := NewRules(testNS{"x-test"})
					if err != nil || r.Key(MustParse("urn:x-test:A")) != "urn:x-test:a" {
						t.Errorf("NewRules: %v", err)
						return
					}
					continue
				}
				for _, n := range names {
					u := MustParse(n)
					_ = u.Key()
					_ = u.Validate()
					_ = Compare(u, MustParse(names[0]), NamespaceLevel)
					_, _ = LookupNamespace(u.NID())
				}
			}
		}(g)
	}
	for g := 0; g < 8; g++ {
		<-done
	}
}
