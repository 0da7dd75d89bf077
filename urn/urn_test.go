package urn

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/urikit/urikit/uri"
)

// opt is a component in a test table: present or not.
type opt struct {
	s  string
	ok bool
}

func some(s string) opt { return opt{s, true} }

var none = opt{}

func TestParseValid(t *testing.T) {
	tests := []struct {
		in, nid, nss string
		r, q, f      opt
		canon        string
	}{
		{"urn:example:a123,z456", "example", "a123,z456", none, none, none, "urn:example:a123,z456"},
		{"URN:EXAMPLE:a123%2cz456", "EXAMPLE", "a123%2cz456", none, none, none, "urn:example:a123%2Cz456"},
		{"uRn:Ex:x", "Ex", "x", none, none, none, "urn:ex:x"},
		{"urn:example:a?+r?=q#f", "example", "a", some("r"), some("q"), some("f"), "urn:example:a"},
		{"urn:example:a?+r/?x?=q?+y#f?/", "example", "a", some("r/?x"), some("q?+y"), some("f?/"), "urn:example:a"},
		{"urn:example:a?=q", "example", "a", none, some("q"), none, "urn:example:a"},
		{"urn:example:a#", "example", "a", none, none, some(""), "urn:example:a"},
		{"urn:example:a/b//c/", "example", "a/b//c/", none, none, none, "urn:example:a/b//c/"},
		{"urn:example::", "example", ":", none, none, none, "urn:example::"},
		{"urn:a1:@!$&'()*+,;=-._~", "a1", "@!$&'()*+,;=-._~", none, none, none, "urn:a1:@!$&'()*+,;=-._~"},
		{"urn:" + strings.Repeat("n", 32) + ":x", strings.Repeat("n", 32), "x", none, none, none, "urn:" + strings.Repeat("n", 32) + ":x"},
		{"urn:x-foo:bar", "x-foo", "bar", none, none, none, "urn:x-foo:bar"},
		{"urn:urn:x", "urn", "x", none, none, none, "urn:urn:x"},
		{"urn:isbn:0-395-36341-1", "isbn", "0-395-36341-1", none, none, none, "urn:isbn:0-395-36341-1"},
		{"urn:example:%e4%B8%ad?+%aa", "example", "%e4%B8%ad", some("%aa"), none, none, "urn:example:%E4%B8%AD"},
	}
	for _, tt := range tests {
		if tt.canon == "" {
			continue
		}
		u, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if u.NID() != tt.nid || u.NSS() != tt.nss {
			t.Errorf("Parse(%q): nid %q nss %q, want %q %q", tt.in, u.NID(), u.NSS(), tt.nid, tt.nss)
		}
		for _, c := range []struct {
			name      string
			got, want opt
		}{
			{"r", mk(u.RComponent()), tt.r},
			{"q", mk(u.QComponent()), tt.q},
			{"f", mk(u.FComponent()), tt.f},
		} {
			if c.got != c.want {
				t.Errorf("Parse(%q): %s-component %+v, want %+v", tt.in, c.name, c.got, c.want)
			}
		}
		if got := u.CanonicalString(); got != tt.canon {
			t.Errorf("Parse(%q).CanonicalString() = %q, want %q", tt.in, got, tt.canon)
		}
		if u.String() != tt.in {
			t.Errorf("String() = %q, want the input %q", u.String(), tt.in)
		}
		if got := u.IsCanonical(); got != (u.AssignedName() == tt.canon) {
			t.Errorf("Parse(%q).IsCanonical() = %v", tt.in, got)
		}
		if !u.Equal(u.Canonical()) || !u.Canonical().IsCanonical() {
			t.Errorf("Parse(%q): not equal to its canonical form", tt.in)
		}
	}
}

func mk(s string, ok bool) opt { return opt{s, ok} }

func TestParseInvalid(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		reason string
		kind   error
	}{
		{"", 0, `missing "urn:"`, ErrInvalidPrefix},
		{"ur", 2, `missing "urn:"`, ErrInvalidPrefix},
		{"urx:a:b", 2, `missing "urn:"`, ErrInvalidPrefix},
		{"urn", 3, `missing "urn:"`, ErrInvalidPrefix},
		{"urn:", 4, "missing NID", ErrInvalidNID},
		{"urn::x", 4, "empty NID", ErrInvalidNID},
		{"urn:-ab:x", 4, `NID starts with "-"`, ErrInvalidNID},
		{"urn:ab-:x", 7, `NID ends with "-"`, ErrInvalidNID},
		{"urn:a:x", 5, "NID shorter than 2", ErrInvalidNID},
		{"urn:" + strings.Repeat("n", 33) + ":x", 36, "NID longer than 32", ErrInvalidNID},
		{"urn:ab_c:x", 6, "invalid character '_' in NID", ErrInvalidNID},
		{"urn:abc", 7, `missing ":" after NID`, ErrInvalidNID},
		{"urn:abc:", 8, "empty NSS", ErrInvalidNSS},
		{"urn:abc:/x", 8, `NSS starts with "/"`, ErrInvalidNSS},
		{"urn:abc:?+r", 8, "empty NSS", ErrInvalidNSS},
		{"urn:abc:#f", 8, "empty NSS", ErrInvalidNSS},
		{"urn:abc:a b", 9, "invalid character ' ' in NSS", ErrInvalidNSS},
		{"urn:abc:a\xc3\xa9", 9, "non-ASCII byte 0xC3", ErrInvalidNSS},
		{"urn:abc:a%4", 11, "bad percent-encoding", ErrInvalidPercentEncoding},
		{"urn:abc:a%G1", 10, "bad percent-encoding", ErrInvalidPercentEncoding},
		{"urn:abc:a%1G", 11, "bad percent-encoding", ErrInvalidPercentEncoding},
		{"urn:abc:a?", 10, `"?" not followed by "+" or "="`, ErrPlainQuery},
		{"urn:abc:a?x", 10, `"?" not followed by "+" or "="`, ErrPlainQuery},
		{"urn:abc:a?+", 11, "empty r-component", ErrInvalidComponent},
		{"urn:abc:a?+?=q", 11, "empty r-component", ErrInvalidComponent},
		{"urn:abc:a?+#", 11, "empty r-component", ErrInvalidComponent},
		{"urn:abc:a?+/x", 11, "r-component starts with '/'", ErrInvalidComponent},
		{"urn:abc:a?=", 11, "empty q-component", ErrInvalidComponent},
		{"urn:abc:a?=?x", 11, "q-component starts with '?'", ErrInvalidComponent},
		{"urn:abc:a?=q?+r#", 16, "", nil}, // valid: "?+" is text inside a q-component
		{"urn:abc:a?=x y", 12, "invalid character ' ' in q-component", ErrInvalidComponent},
		{"urn:abc:a?+x%zz", 13, "bad percent-encoding in r-component", ErrInvalidPercentEncoding},
		{"urn:abc:a#b#c", 11, "unexpected '#' in f-component", ErrInvalidComponent},
		{"urn:abc:a#%", 11, "bad percent-encoding in f-component", ErrInvalidPercentEncoding},
		{"urn:abc:a[", 9, "invalid character '[' in NSS", ErrInvalidNSS},
		{"urn:abc:a\x00", 9, "invalid character 0x00 in NSS", ErrInvalidNSS},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if tt.reason == "" {
			if err != nil {
				t.Errorf("Parse(%q): %v, want success", tt.in, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) = %v, want *Error", tt.in, err)
			continue
		}
		if e.Kind != tt.kind || !errors.Is(err, tt.kind) {
			t.Errorf("Parse(%q): kind %v, want %v", tt.in, e.Kind, tt.kind)
		}
		if e.Offset != tt.offset || !strings.Contains(e.Reason, tt.reason) || e.Input != tt.in {
			t.Errorf("Parse(%q): offset %d reason %q, want %d %q", tt.in, e.Offset, e.Reason, tt.offset, tt.reason)
		}
		if strings.Contains(e.Error(), "\n") {
			t.Errorf("Error() spans lines: %q", e.Error())
		}
	}
}

func TestZeroValue(t *testing.T) {
	var u URN
	if u.IsValid() || u.String() != "" || u.NID() != "" || u.NSS() != "" || u.CanonicalString() != "" {
		t.Errorf("zero URN misbehaves: %#v", u)
	}
	// Like a zero netip.Addr, the zero URN equals itself and nothing else.
	if !u.Equal(URN{}) || u.Equal(MustParse("urn:ab:c")) || MustParse("urn:ab:c").Equal(u) {
		t.Error("zero URN: Equal")
	}
	if c := Compare(URN{}, URN{}, NamespaceLevel); !c.Equal {
		t.Errorf("Compare(zero, zero) = %+v", c)
	}
	if c := Compare(URN{}, MustParse("urn:ab:c"), Lexical); c.Equal {
		t.Errorf("Compare(zero, urn:ab:c) = %+v", c)
	}
	if u.URI() != (uri.URI{}) {
		t.Error("zero URN: URI() is not the zero URI")
	}
	// == compares the text, not where it is stored.
	if a, b := MustParse("urn:ab:c"), MustParse(string([]byte("urn:ab:c"))); a != b {
		t.Error("URNs parsed from the same text are not ==")
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParse did not panic")
		}
	}()
	MustParse("urn:a:b")
}

func TestText(t *testing.T) {
	u := MustParse("urn:ISBN:0-395-36341-1?+s=I2L")
	b, _ := u.MarshalText()
	var v URN
	if err := v.UnmarshalText(b); err != nil || v != u {
		t.Errorf("text round trip: %v %v", v, err)
	}
	if err := v.UnmarshalText([]byte("urn:x")); err == nil {
		t.Error("UnmarshalText accepted an invalid URN")
	}
	if err := v.UnmarshalText(nil); err != nil || v.IsValid() {
		t.Error("empty text should give the zero URN")
	}
	js, _ := json.Marshal(map[string]URN{"u": u})
	if string(js) != `{"u":"urn:ISBN:0-395-36341-1?+s=I2L"}` {
		t.Errorf("json: %s", js)
	}
	if got := string(u.AppendTo([]byte("<"))); got != "<"+u.String() {
		t.Errorf("AppendTo = %q", got)
	}
}

func TestDecodedNSS(t *testing.T) {
	for in, want := range map[string]string{
		"urn:example:a%2Cb":          "a,b",
		"urn:example:%d0%B0123":      "\u0430123",
		"urn:example:plain":          "plain",
		"urn:example:%25%2f?+x%41#y": "%/",
	} {
		if got := MustParse(in).DecodedNSS(); got != want {
			t.Errorf("DecodedNSS(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b string
		eq   bool
	}{
		{"urn:example:a", "URN:EXAMPLE:a", true},
		{"urn:example:a%2c", "urn:example:a%2C", true},
		{"urn:example:a%2c", "urn:example:a,", false},
		{"urn:example:A", "urn:example:a", false},
		{"urn:example:a?+x", "urn:example:a#y", true},
		{"urn:example:a", "urn:example:a/", false},
		{"urn:example:a", "urn:examplf:a", false},
		{"urn:example:%4A%4a", "urn:example:%4a%4A", true},
		{"urn:example:a%4Ab", "urn:example:aJb", false},
	}
	for _, tt := range tests {
		a, b := MustParse(tt.a), MustParse(tt.b)
		if a.Equal(b) != tt.eq || b.Equal(a) != tt.eq {
			t.Errorf("Equal(%q, %q) = %v, want %v", tt.a, tt.b, a.Equal(b), tt.eq)
		}
		if (a.CanonicalString() == b.CanonicalString()) != tt.eq {
			t.Errorf("canonical forms of %q and %q disagree with Equal", tt.a, tt.b)
		}
		if c := Compare(a, b, Lexical); c.Equal != tt.eq || c.Rule == "" {
			t.Errorf("Compare(%q, %q) = %+v", tt.a, tt.b, c)
		}
	}
}

func TestAllocs(t *testing.T) {
	inputs := []string{"urn:isbn:0-395-36341-1", "URN:EXAMPLE:a123%2cz456?+r?=q#f", "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6"}
	for _, in := range inputs {
		if n := testing.AllocsPerRun(100, func() { _, _ = Parse(in) }); n != 0 {
			t.Errorf("Parse(%q) allocates %v times", in, n)
		}
	}
	a, b := MustParse(inputs[1]), MustParse("urn:example:a123%2Cz456")
	if n := testing.AllocsPerRun(100, func() { _ = a.Equal(b) }); n != 0 {
		t.Errorf("Equal allocates %v times", n)
	}
	c := MustParse(inputs[0])
	if n := testing.AllocsPerRun(100, func() { _ = c.Canonical(); _ = c.Class() }); n != 0 {
		t.Errorf("Canonical of a canonical URN or Class allocates %v times", n)
	}
}

// corpus gathers URN-looking inputs from the shared corpora and the seeds.
func corpus(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, name := range []string{"../../shared/conformance/rfc8141-examples.jsonl", "../../shared/conformance/rfc3986-examples.jsonl"} {
		f, err := os.Open(name)
		if err != nil {
			t.Logf("corpus %s: %v", name, err)
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			for _, k := range []string{"input", "a", "b", "base", "ref"} {
				if s, ok := m[k].(string); ok {
					out = append(out, s)
				}
			}
		}
		f.Close()
	}
	out = append(out, benchInputs...)
	for nid := range registry {
		out = append(out, "urn:"+nid+":x", "URN:"+strings.ToUpper(nid)+":a%2fb?+c?=d#e")
	}
	return out
}

// Every valid URN is a valid RFC 3986 URI with the same scheme, path,
// query and fragment (RFC 8141 §2: URNs are URIs).
func TestURNsAreURIs(t *testing.T) {
	n := 0
	for _, in := range corpus(t) {
		u, err := Parse(in)
		if err != nil {
			continue
		}
		n++
		v, err := uri.Parse(in)
		if err != nil {
			t.Errorf("%q is a valid URN but not a URI: %v", in, err)
			continue
		}
		if !strings.EqualFold(v.Scheme(), "urn") || v.Path() != u.NID()+":"+u.NSS() {
			t.Errorf("%q: uri sees scheme %q path %q", in, v.Scheme(), v.Path())
		}
		f, hasF := u.FComponent()
		if v.HasFragment() != hasF || v.Fragment() != f {
			t.Errorf("%q: fragments differ", in)
		}
		_, hasR := u.RComponent()
		_, hasQ := u.QComponent()
		if v.HasQuery() != (hasR || hasQ) {
			t.Errorf("%q: query presence differs", in)
		}
		// The conversions agree with parsing each way.
		if u.URI() != v {
			t.Errorf("%q: URI() = %#v, uri.Parse gives %#v", in, u.URI(), v)
		}
		if back, err := FromURI(u.URI()); err != nil || back != u {
			t.Errorf("%q: FromURI(URI()) = %v, %v", in, back, err)
		}
	}
	if _, err := FromURI(uri.MustParse("http://a/")); !errors.Is(err, ErrInvalidPrefix) {
		t.Errorf("FromURI(http://a/): %v", err)
	}
	if n < 50 {
		t.Errorf("only %d valid URNs in the corpus", n)
	}
}

func TestClassifyNID(t *testing.T) {
	tests := []struct {
		nid  string
		want Class
	}{
		{"isbn", Formal},
		{"ISBN", Formal},
		{"example", Formal},
		{"urn-1", Informal},
		{"urn-42", Informal},
		{"urn-042", Reserved},
		{"urn-x", Reserved},
		{"urn", Reserved},
		{"URN", Reserved},
		{"X-foo", Experimental},
		{"x-foo", Experimental},
		{"us-gov", Reserved},
		{"xn--abc", Reserved},
		{"ab--x", Reserved},
		{"ab", Reserved},
		{"a1-x", Unregistered},
		{"foobar", Unregistered},
	}
	for _, tt := range tests {
		got, why := ClassifyNID(tt.nid)
		if got != tt.want || why == "" {
			t.Errorf("ClassifyNID(%q) = %v (%s), want %v", tt.nid, got, why, tt.want)
		}
		if got.Warn() != (tt.want != Formal && tt.want != Informal) {
			t.Errorf("%v.Warn() wrong", got)
		}
	}
	if r, ok := LookupNID("NBN"); !ok || r.Reference != "IETF RFC-8458" || r.Informal {
		t.Errorf("LookupNID(NBN) = %+v, %v", r, ok)
	}
	if len(registry) != 104 {
		t.Errorf("registry has %d NIDs, want 104 (the CSV's rows)", len(registry))
	}
}

// TestOtherErrorKinds: the 1993 form, directive lists and namespace rules
// have kinds of their own.
func TestOtherErrorKinds(t *testing.T) {
	if _, err := ParseLegacy("<URN::DNS:a:b>"); !errors.Is(err, ErrInvalidLegacy) {
		t.Errorf("ParseLegacy: %v", err)
	}
	if _, err := ParseDirectives("s=I2L&=x"); !errors.Is(err, ErrInvalidDirective) {
		t.Errorf("ParseDirectives: %v", err)
	}
	if _, err := ParseDirectives("s=%zz"); !errors.Is(err, ErrInvalidPercentEncoding) {
		t.Errorf("ParseDirectives: %v", err)
	}
	err := MustParse("urn:isbn:0-395-36341-2").Validate()
	var ne *NamespaceError
	if !errors.Is(err, ErrNamespace) || !errors.As(err, &ne) || ne.NID != "isbn" {
		t.Errorf("Validate: %v", err)
	}
	if err := (URN{}).Validate(); !errors.Is(err, ErrInvalidPrefix) {
		t.Errorf("zero URN Validate: %v", err)
	}
	// ParseRequest tells the draft's plain query by the error's kind.
	if r, err := ParseRequest("urn:isbn:0-395-36341-1?s=I2L"); err != nil || !r.Draft {
		t.Errorf("ParseRequest: %+v, %v", r, err)
	}
	if _, err := ParseRequest("urn:a:b"); !errors.Is(err, ErrInvalidNID) {
		t.Errorf("ParseRequest: %v", err)
	}
}
