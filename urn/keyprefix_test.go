package urn

import (
	"slices"
	"strings"
	"testing"
)

// keyPrefixNames are names of every built-in namespace, spelled so that
// their keys differ from their canonical forms where the rules allow.
var keyPrefixNames = []string{
	"urn:isbn:0-395-36341-1", "urn:ISBN:0-8044-2957-x", "urn:isbn:978-0-395-36341-6", "urn:isbn:3-16-148410-X",
	"urn:isbn:0-395-36341-2", // a bad check digit: not an ISBN-10, so hyphens go and nothing else
	"urn:isbn:-", "urn:issn:0317-8471", "urn:issn:1050-124x", "urn:issn:12-34",
	"urn:NBN:De:Bvb:19-146642", "urn:nbn:FI:att:abc-123", "urn:nbn:DE", "urn:nbn:de%41:x-1",
	"urn:IETF:RFC:2141", "urn:ietf:Id:Draft-Ietf-URN-X", "urn:iso:STD:ISO:9999:-1:ed-1:V2:en", "urn:iso:STD:ISO:%CA", "urn:ietf:params:%c3%a9",
	"urn:uuid:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6", "urn:oid:1.3.6.1", "urn:example:AbC", "urn:foo:Bar%2f",
}

// checkKeyPrefixes: for every cut of the canonical form of name after its
// NID, the name's key starts with one of the cut's key prefixes.
func checkKeyPrefixes(t *testing.T, name string) {
	u, err := Parse(name)
	if err != nil || len(u.AssignedName()) != len(name) {
		return
	}
	c, key := u.CanonicalString(), u.Key()
	for i := len("urn:") + len(u.NID()) + 1; i <= len(c); i++ {
		kps := KeyPrefixes(c[:i]) // inside a percent-encoding too
		if kps[0] != c[:i] {
			t.Fatalf("KeyPrefixes(%q) = %q: the first is not the prefix itself", c[:i], kps)
		}
		if !slices.ContainsFunc(kps, func(kp string) bool { return strings.HasPrefix(key, kp) }) {
			t.Fatalf("%s: key %s lies under none of KeyPrefixes(%q) = %q", name, key, c[:i], kps)
		}
	}
}

func TestKeyPrefixesCoverKeys(t *testing.T) {
	for _, name := range keyPrefixNames {
		checkKeyPrefixes(t, name)
	}
}

func TestKeyPrefixes(t *testing.T) {
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{"urn:nbn:DE:101-", []string{"urn:nbn:DE:101-", "urn:nbn:de:101-"}},
		{"urn:nbn:De:Bv", []string{"urn:nbn:De:Bv", "urn:nbn:de:bv"}},
		{"urn:nbn:de:101-Ab", []string{"urn:nbn:de:101-Ab"}}, // the NBN string keeps its case
		{"urn:isbn:978-0-", []string{"urn:isbn:978-0-", "urn:isbn:9780", "urn:isbn:9789780"}},
		{"urn:isbn:0", []string{"urn:isbn:0", "urn:isbn:9780"}},
		{"urn:isbn:0-395-36341-1", []string{"urn:isbn:0-395-36341-1", "urn:isbn:0395363411", "urn:isbn:9780395363416"}},
		{"urn:isbn:0395363412", []string{"urn:isbn:0395363412"}}, // ten characters but no ISBN-10
		{"urn:issn:1050-12", []string{"urn:issn:1050-12", "urn:issn:105012"}},
		{"urn:ietf:RFC:", []string{"urn:ietf:RFC:", "urn:ietf:rfc:"}},
		{"urn:uuid:F81D", []string{"urn:uuid:F81D", "urn:uuid:f81d"}},
		{"urn:example:A", []string{"urn:example:A"}},
		{"urn:oid:1.3", []string{"urn:oid:1.3"}},
		{"urn:foo:", []string{"urn:foo:"}},
		{"urn:iso:STD:ISO:%C", []string{"urn:iso:STD:ISO:%C", "urn:iso:std:iso:%C"}}, // the key of urn:iso:STD:ISO:%CA keeps "%CA"
		{"urn:ietf:PARAMS:%", []string{"urn:ietf:PARAMS:%", "urn:ietf:params:%"}},
	} {
		if got := KeyPrefixes(tc.prefix); !slices.Equal(got, tc.want) {
			t.Errorf("KeyPrefixes(%q) = %q, want %q", tc.prefix, got, tc.want)
		}
	}
}

// A namespace added with NewRules that does not implement PrefixNormalizer
// gives the prefix alone.
func TestKeyPrefixesWithoutNormalizer(t *testing.T) {
	r, err := NewRules(caseless{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.KeyPrefixes("urn:caseless:AB"); !slices.Equal(got, []string{"urn:caseless:AB"}) {
		t.Fatalf("got %q", got)
	}
}

type caseless struct{}

func (caseless) NID() string                          { return "caseless" }
func (caseless) Reference() string                    { return "this test" }
func (caseless) Rule() string                         { return "case-insensitive" }
func (caseless) Validate(string) error                { return nil }
func (caseless) Normalize(nss string) (string, error) { return lowerString(nss), nil }

// FuzzKeyPrefixes: whatever the name, its key lies under a key prefix of
// every cut of its canonical form.
func FuzzKeyPrefixes(f *testing.F) {
	for _, s := range keyPrefixNames {
		f.Add(s)
	}
	f.Fuzz(checkKeyPrefixes)
}
