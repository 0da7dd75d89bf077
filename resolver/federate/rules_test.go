package federate

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/memstore"
	"github.com/urikit/urikit/urn"
)

func TestWithHops(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"urn:aa:b", 1, "urn:aa:b?+hops=1"},
		{"URN:AA:b%2f", 0, "URN:AA:b%2f?+hops=0"},
		{"urn:aa:b?+s=I2L", 2, "urn:aa:b?+s=I2L&hops=2"},
		{"urn:aa:b?+hops=3&s=I2L", 4, "urn:aa:b?+hops=4&s=I2L"},
		{"urn:aa:b?+s=I2L&hops=3&c=x&hops=9", 5, "urn:aa:b?+s=I2L&hops=5&c=x"},
		{"urn:aa:b?+hops=007", 8, "urn:aa:b?+hops=8"},
		{"urn:aa:b?=lang=en", 1, "urn:aa:b?+hops=1?=lang=en"},
		{"urn:aa:b?+x??=q#f", 1, "urn:aa:b?+x?&hops=1?=q#f"},
		{"urn:aa:b#f", 1, "urn:aa:b?+hops=1#f"},
		{"urn:aa:b#", 1, "urn:aa:b?+hops=1#"},
		{"urn:aa:b?+hopsx=1", 1, "urn:aa:b?+hopsx=1&hops=1"},
		{"urn:aa:b?+HOPS=1", 1, "urn:aa:b?+HOPS=1&hops=1"},
		{"urn:aa:b?+a&&b&", 1, "urn:aa:b?+a&&b&&hops=1"},
		{"urn:aa:b?+opaque/r?x", 12, "urn:aa:b?+opaque/r?x&hops=12"},
	}
	for _, c := range cases {
		u := urn.MustParse(c.in)
		v, err := WithHops(u, c.n)
		if err != nil || v.String() != c.want {
			t.Errorf("%s: %q %v, want %q", c.in, v, err, c.want)
			continue
		}
		if n, ok, err := Hops(v); n != c.n || !ok || err != nil {
			t.Errorf("%s: Hops %d %v %v", v, n, ok, err)
		}
		if !v.Equal(u) {
			t.Errorf("%s: not equivalent to %s", v, u)
		}
	}
	if _, err := WithHops(urn.MustParse("urn:aa:b"), -1); resolver.KindOf(err) != resolver.KindInvalid {
		t.Error(err)
	}
	if _, err := WithHops(urn.MustParse("urn:aa:b"), MaxHops+1); resolver.KindOf(err) != resolver.KindInvalid {
		t.Error(err)
	}
	if _, err := WithHops(urn.URN{}, 1); err == nil {
		t.Error("zero URN")
	}
}

func TestHops(t *testing.T) {
	ok := []struct {
		in  string
		n   int
		has bool
	}{
		{"urn:aa:b", 0, false},
		{"urn:aa:b?=hops=3", 0, false},  // a q-component is for the resource
		{"urn:aa:b#hops=3", 0, false},   // and a fragment for the client
		{"urn:aa:b?+hops2=3", 0, false}, // not the keyword
		{"urn:aa:b?+s=I2L", 0, false},   // no hops part
		{"urn:aa:b?+s=I2L&hops=3", 3, true},
		{"urn:aa:b?+hops=000000000", 0, true},
		{"urn:aa:b?+hops=999999999", 999999999, true},
	}
	for _, c := range ok {
		n, has, err := Hops(urn.MustParse(c.in))
		if n != c.n || has != c.has || err != nil {
			t.Errorf("%s: %d %v %v", c.in, n, has, err)
		}
	}
	bad := []struct {
		in     string
		offset int
	}{
		{"urn:aa:b?+hops=", 15},
		{"urn:aa:b?+hops=x", 15},
		{"urn:aa:b?+s=1&hops=-1", 19},
		{"urn:aa:b?+hops=1000000000", 15},
		{"urn:aa:b?+hops=1&hops=2", 17},
	}
	for _, c := range bad {
		_, _, err := Hops(urn.MustParse(c.in))
		var re *resolver.Error
		if !errors.As(err, &re) || re.Kind != resolver.KindInvalid || re.Offset != c.offset || re.Field != "urn" {
			t.Errorf("%s: %v, want offset %d", c.in, err, c.offset)
		}
	}
}

func TestTHTTPService(t *testing.T) {
	for in, want := range map[string]string{
		"I2L": "N2L", "I2Ls": "N2Ls", "I2R": "N2R", "I2Rs": "N2Rs", "I2C": "N2C", "I2Ns": "N2Ns",
		"I2Cs": "I2Cs", "I2N": "I2N",
		"N2L": "N2L", "N2Ns": "N2Ns", "i2ls": "N2Ls", "I2LS": "N2Ls", "I2CS": "I2Cs",
	} {
		if got, err := THTTPService(in); got != want || err != nil {
			t.Errorf("%s: %s %v, want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"I=I", "L2L", "L2Ls", "L2Ns", "L2C", "", "N2Cs", "X2Y"} {
		if _, err := THTTPService(in); resolver.KindOf(err) != resolver.KindInvalid {
			t.Errorf("%s: %v", in, err)
		}
	}
}

func TestRedirectURL(t *testing.T) {
	cases := []struct {
		base, name, service string
		hops                int
		want                string
	}{
		{"https://r.example/", "urn:nbn:de:101-x", "I2L", 1, "https://r.example/uri-res/N2L?urn:nbn:de:101-x?+hops=1"},
		{"https://r.example", "urn:nbn:de:101-x", "I2L", 1, "https://r.example/uri-res/N2L?urn:nbn:de:101-x?+hops=1"},
		{"https://r.example/nbn", "urn:nbn:de:101-x", "I2Cs", 1, "https://r.example/nbn/uri-res/I2Cs?urn:nbn:de:101-x?+hops=1"},
		{"HTTP://R.example:8080/a/#frag", "URN:NBN:de:x%2fy?+s=I2Ls?=lang=en#f", "I2Ls", 4,
			"HTTP://R.example:8080/a/uri-res/N2Ls?URN:NBN:de:x%2fy?+s=I2Ls&hops=4?=lang=en"},
	}
	for _, c := range cases {
		got, err := RedirectURL(c.base, urn.MustParse(c.name), c.service, c.hops)
		if err != nil || got != c.want {
			t.Errorf("%s %s: %q %v, want %q", c.base, c.name, got, err, c.want)
		}
	}
	for _, base := range []string{"ftp://r.example/", "https://r.example/?q", "/relative", "https:///nohost", "not a url"} {
		if _, err := RedirectURL(base, urn.MustParse("urn:aa:b"), "I2L", 1); resolver.KindOf(err) != resolver.KindInvalid {
			t.Errorf("%s: %v", base, err)
		}
	}
}

func TestByRules(t *testing.T) {
	rules := []resolver.Rule{
		{ID: 1, Prefix: "urn:nbn:de:", Target: "https://de.example/"},
		{ID: 2, Prefix: "urn:nbn:de:101-", Target: "https://dnb.example/nbn"},
		{ID: 3, Prefix: "urn:example:a%2F", Target: "https://a.example/"},
		{ID: 4, Prefix: "urn:isbn:", Target: "http://isbn.example/r/"},
	}
	cases := []struct {
		name, service string
		url, why      string
		id            int64
	}{
		{"URN:NBN:de:101-abc?+s=I2Ls#x", "I2Ls", "https://dnb.example/nbn/uri-res/N2Ls?URN:NBN:de:101-abc?+s=I2Ls&hops=2",
			"rule 2: prefix urn:nbn:de:101- → https://dnb.example/nbn (the longest of 2 matching prefixes), as N2Ls", 2},
		// RFC 8141 §3.1 keeps the NSS's case: "DE" is not "de" in lexical
		// form; RFC 8458 §4.3 makes them equivalent, and the name goes
		// by its key form.
		{"urn:nbn:DE:101-abc", "I2L", "https://dnb.example/nbn/uri-res/N2L?urn:nbn:DE:101-abc?+hops=2",
			"rule 2: prefix urn:nbn:de:101- → https://dnb.example/nbn (by the name's key form urn:nbn:de:101-abc: its namespace's rules make it equivalent) (the longest of 2 matching prefixes), as N2L", 2},
		// "urn:nbn:de:1010" is not under "urn:nbn:de:101-".
		{"urn:nbn:de:1010", "I2L", "https://de.example/uri-res/N2L?urn:nbn:de:1010?+hops=2", "rule 1: prefix urn:nbn:de: → https://de.example/, as N2L", 1},
		// Canonical lexical form: lower-case hex matches the upper-case prefix.
		{"urn:example:a%2fb", "I2C", "https://a.example/uri-res/N2C?urn:example:a%2fb?+hops=2", "", 3},
		{"urn:isbn:0-395-36341-1", "I2N", "http://isbn.example/r/uri-res/I2N?urn:isbn:0-395-36341-1?+hops=2", "", 4},
		{"urn:nbn:fi:1", "I2L", "", "", 0},
		{"urn:example:b", "I2L", "", "", 0},
	}
	for _, c := range cases {
		r, ok, err := ByRules(rules, urn.MustParse(c.name), c.service, 2)
		if err != nil {
			t.Fatal(err)
		}
		if ok != (c.url != "") || r.URL != c.url || r.Rule.ID != c.id {
			t.Errorf("%s: %+v %v, want %s", c.name, r, ok, c.url)
			continue
		}
		if ok && (r.Via != "rule" || c.why != "" && r.Why != c.why) {
			t.Errorf("%s: via %s why %q", c.name, r.Via, r.Why)
		}
	}
	if _, _, err := ByRules(rules, urn.MustParse("urn:nbn:de:1"), "L2L", 1); resolver.KindOf(err) != resolver.KindInvalid {
		t.Error(err)
	}
	// A stored rule with a bad target is the directory's fault.
	bad := []resolver.Rule{{ID: 9, Prefix: "urn:xx:", Target: "ftp://x.example/"}}
	if _, _, err := ByRules(bad, urn.MustParse("urn:xx:1"), "I2L", 1); resolver.KindOf(err) != resolver.KindInternal || !strings.Contains(err.Error(), "rule 9") {
		t.Error(err)
	}
}

func TestDNSAddr(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:5353": "127.0.0.1:5353",
		"127.0.0.1":      "127.0.0.1:53",
		"::1":            "[::1]:53",
		"[::1]:5300":     "[::1]:5300",
		"[::1]":          "[::1]:53",
		"ns.example":     "ns.example:53",
		"ns.example:53":  "ns.example:53",
	} {
		if got, err := DNSAddr(in); got != want || err != nil {
			t.Errorf("%s: %s %v", in, got, err)
		}
	}
	for _, in := range []string{"", ":53", "h:0", "h:70000", "h:x", "[::1", "[ns.example]", "[::1]x"} {
		if _, err := DNSAddr(in); resolver.KindOf(err) != resolver.KindInvalid {
			t.Errorf("%s: %v", in, err)
		}
	}
}

// TestDelegator runs the whole order over the domain's own Service on the
// reference store: rules added through the admin API, then DDDS.
func TestDelegator(t *testing.T) {
	ctx := context.Background()
	svc := resolver.New(memstore.New(), resolver.Options{AdminToken: "admin"})
	admin, err := svc.Authenticate(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddRule(ctx, admin, "URN:U1:special-", "https://rules.example/"); err != nil {
		t.Fatal(err)
	}
	srv := startDNS(t, "testdata/ddds.zone")
	d, err := New(svc, Options{DNS: srv.addr, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var _ resolver.Delegator = d

	r, ok, err := d.Refer(ctx, urn.MustParse("urn:u1:special-1"), "I2L", 3)
	if err != nil || !ok || r.Via != "rule" || r.URL != "https://rules.example/uri-res/N2L?urn:u1:special-1?+hops=3" {
		t.Fatalf("rule first: %+v %v %v", r, ok, err)
	}
	r, ok, err = d.Refer(ctx, urn.MustParse("urn:u1:other"), "I2L", 3)
	if err != nil || !ok || r.Via != "ddds" || r.URL != "https://u1.test/resolve/other" {
		t.Fatalf("then DDDS: %+v %v %v", r, ok, err)
	}
	if _, ok, err := d.Refer(ctx, urn.MustParse("urn:nothing:1"), "I2L", 3); ok || err != nil {
		t.Fatalf("neither: %v %v", ok, err)
	}
	for _, c := range []struct {
		service string
		hops    int
	}{{"L2Ls", 1}, {"I2L", -1}} {
		if _, _, err := d.Refer(ctx, urn.MustParse("urn:u1:x"), c.service, c.hops); resolver.KindOf(err) != resolver.KindInvalid {
			t.Errorf("%v: %v", c, err)
		}
	}

	// Without DNS, rules only; without rules, DDDS only.
	d2, _ := New(svc, Options{})
	if d2.Discoverer() != nil {
		t.Fatal("discovery without a DNS server")
	}
	if _, ok, err := d2.Refer(ctx, urn.MustParse("urn:u1:other"), "I2L", 1); ok || err != nil {
		t.Fatal(ok, err)
	}
	d3, _ := New(nil, Options{DNS: srv.addr})
	if r, ok, err := d3.Refer(ctx, urn.MustParse("urn:u1:special-1"), "I2L", 1); !ok || err != nil || r.Via != "ddds" {
		t.Fatal(r, ok, err)
	}
	if _, err := New(svc, Options{DNS: "h:0"}); resolver.KindOf(err) != resolver.KindInvalid {
		t.Fatal(err)
	}
}

// TestByRulesKeyForm: a name under no rule's prefix as written goes by
// its key form, the namespace's equivalence (RFC 8458 §4.3: an NBN's
// country and sub-namespace codes are case-insensitive), and the redirect
// carries the name as it was asked for. A prefix the name lies under as
// written still wins, and a name whose key form lies under no prefix
// either takes no rule.
func TestByRulesKeyForm(t *testing.T) {
	rules := []resolver.Rule{
		{ID: 1, Prefix: "urn:nbn:de:", Target: "https://dnb.example/"},
		{ID: 2, Prefix: "urn:nbn:de:101-", Target: "https://d-nb.example/"},
		{ID: 3, Prefix: "urn:nbn:FI:", Target: "https://fi.example/"},
	}
	for _, tc := range []struct {
		name, url string
		rule      int64
	}{
		{"urn:nbn:de:101-1", "https://d-nb.example/uri-res/N2L?urn:nbn:de:101-1?+hops=1", 2},
		{"URN:NBN:DE:101-1", "https://d-nb.example/uri-res/N2L?URN:NBN:DE:101-1?+hops=1", 2},
		{"urn:nbn:De:gbv:7-1", "https://dnb.example/uri-res/N2L?urn:nbn:De:gbv:7-1?+hops=1", 1},
		{"urn:nbn:FI:1-2", "https://fi.example/uri-res/N2L?urn:nbn:FI:1-2?+hops=1", 3},
		{"urn:nbn:fi:1-2", "", 0}, // key form urn:nbn:fi:1-2: under no prefix
		{"urn:nbn:ch:1-2", "", 0},
	} {
		ref, ok, err := ByRules(rules, urn.MustParse(tc.name), "I2L", 1)
		if err != nil || ok != (tc.rule != 0) || ok && (ref.Rule.ID != tc.rule || ref.URL != tc.url) {
			t.Errorf("%s: %+v %v %v; want rule %d, %s", tc.name, ref, ok, err, tc.rule, tc.url)
		}
		if keyed := ok && !resolver.HasPrefix(urn.MustParse(tc.name).CanonicalString(), ref.Rule.Prefix); keyed != strings.Contains(ref.Why, "key form") {
			t.Errorf("%s: why %q should name the key form exactly when it was used", tc.name, ref.Why)
		}
	}
	// The longest prefix over both forms: equivalent names take the same
	// rule even when a shorter prefix holds one of them as written; on a
	// tie, the form as written.
	rules = []resolver.Rule{
		{ID: 1, Prefix: "urn:nbn:", Target: "https://nbn.example/"},
		{ID: 2, Prefix: "urn:nbn:de:", Target: "https://de.example/"},
		{ID: 3, Prefix: "urn:nbn:CH:", Target: "https://ch-upper.example/"},
		{ID: 4, Prefix: "urn:nbn:ch:", Target: "https://ch-lower.example/"},
	}
	for name, want := range map[string]int64{"urn:nbn:de:101-1": 2, "urn:nbn:DE:101-1": 2, "urn:nbn:CH:1-1": 3, "urn:nbn:ch:1-1": 4, "urn:nbn:Ch:1-1": 4, "urn:nbn:fi:1-1": 1} {
		if ref, ok, err := ByRules(rules, urn.MustParse(name), "I2L", 1); err != nil || !ok || ref.Rule.ID != want {
			t.Errorf("%s: rule %d %v %v, want %d", name, ref.Rule.ID, ok, err, want)
		}
	}
}
