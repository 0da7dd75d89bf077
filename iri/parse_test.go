package iri

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urikit/urikit/uri"
)

// recompose writes x back from its components (RFC 3986 §5.3); for every
// parsed reference it must give the input again.
func recompose(x IRI) string {
	var b strings.Builder
	if x.HasScheme() {
		b.WriteString(x.Scheme() + ":")
	}
	if x.HasAuthority() {
		b.WriteString("//")
		if x.HasUserinfo() {
			b.WriteString(x.Userinfo() + "@")
		}
		switch x.HostKind() {
		case uri.IPv6, uri.IPvFuture:
			b.WriteString("[" + x.Host() + "]")
		default:
			b.WriteString(x.Host())
		}
		if x.HasPort() {
			b.WriteString(":" + x.Port())
		}
	}
	b.WriteString(x.Path())
	if x.HasQuery() {
		b.WriteString("?" + x.Query())
	}
	if x.HasFragment() {
		b.WriteString("#" + x.Fragment())
	}
	return b.String()
}

// parts lists the components of an IRI or URI as the parse op reports them.
type parts struct {
	scheme, authority, userinfo, host, port, path, query, fragment string
	has                                                            [6]bool
	kind                                                           uri.HostKind
}

func partsOfIRI(x IRI) parts {
	return parts{x.Scheme(), x.Authority(), x.Userinfo(), x.Host(), x.Port(), x.Path(), x.Query(), x.Fragment(),
		[6]bool{x.HasScheme(), x.HasAuthority(), x.HasUserinfo(), x.HasPort(), x.HasQuery(), x.HasFragment()}, x.HostKind()}
}

func partsOfURI(u uri.URI) parts {
	return parts{u.Scheme(), u.Authority(), u.Userinfo(), u.Host(), u.Port(), u.Path(), u.Query(), u.Fragment(),
		[6]bool{u.HasScheme(), u.HasAuthority(), u.HasUserinfo(), u.HasPort(), u.HasQuery(), u.HasFragment()}, u.HostKind()}
}

// sameAsURI checks the property that defines this parser on ASCII text: an
// ASCII string is an IRI exactly when it is a URI (RFC 3987 §2.2 adds only
// non-ASCII characters to RFC 3986's grammar), with the same components
// and, when it is not, the same error offset and kind (the kinds are
// uri's sentinels, so errors.Is reads both alike).
func sameAsURI(t *testing.T, s string) {
	t.Helper()
	for _, f := range []struct {
		name string
		i    func(string) (IRI, error)
		u    func(string) (uri.URI, error)
	}{
		{"Parse", Parse, uri.Parse},
		{"ParseReference", ParseReference, uri.ParseReference},
		{"ParseAbsolute", ParseAbsolute, uri.ParseAbsolute},
	} {
		x, xerr := f.i(s)
		u, uerr := f.u(s)
		if (xerr == nil) != (uerr == nil) {
			t.Fatalf("%s(%q): iri error %v, uri error %v", f.name, s, xerr, uerr)
		}
		if xerr != nil {
			var xe *Error
			var ue *uri.Error
			if !errors.As(xerr, &xe) || !errors.As(uerr, &ue) {
				t.Fatalf("%s(%q): errors of the wrong type: %T %T", f.name, s, xerr, uerr)
			}
			if xe.Offset != ue.Offset {
				t.Fatalf("%s(%q): iri error at %d (%s), uri error at %d (%s)", f.name, s, xe.Offset, xe.Reason, ue.Offset, ue.Reason)
			}
			if xe.Kind == nil || !errors.Is(xerr, xe.Kind) {
				t.Fatalf("%s(%q): error without a Kind: %v", f.name, s, xerr)
			}
			if xe.Kind != ue.Kind || !errors.Is(xerr, ue.Kind) {
				t.Fatalf("%s(%q): iri error of kind %v, uri error of kind %v", f.name, s, xe.Kind, ue.Kind)
			}
			continue
		}
		if partsOfIRI(x) != partsOfURI(u) {
			t.Fatalf("%s(%q): iri %+v, uri %+v", f.name, s, partsOfIRI(x), partsOfURI(u))
		}
		if !x.IsASCII() || x.URI() != u {
			t.Fatalf("%s(%q): an ASCII IRI must be its own URI", f.name, s)
		}
	}
}

// asciiCases are hand-picked URI references and near-misses; the
// differential test adds every line of the shared URL lists and mutations
// of these.
var asciiCases = []string{
	"", "a", "a:", "a:b", "//", "///", "http://a/b/c/d;p?q#f", "http://a:b:c/", "http://a:8x/",
	"http://[::1]/", "http://[::1", "http://[v1.x]/", "http://[v1.]/", "http://[vz.x]/", "http://[fe80::1%25eth0]/",
	"http://[::1]x/", "http://u@[::1]:80/", "http://[::1@x]/", "http://a@b@c/", "http://a/%zz", "http://a/%2",
	"http://a/%", "http://a:80:80/", "http://1.2.3.4/", "http://1.2.3.04/", "http://1.2.3.256/", "http://[1:2:3:4:5:6:7:8:9]/",
	"http://[::1.2.3.4]/", "http://[1::2::3]/", "http://[:1]/", "http://[1:]/", "http://[::01.2.3.4]/",
	"a:b#c#d", "?#", "#", "./a:b", "a:b:c", "1a:b", "-:b", "http:/a", "http:a", "http://a b/", "http://a/ b",
	"http://a/?q=1#f?/", "http://a/\x7f", "HTTP://A/", "mailto:a@b.c", "urn:isbn:0451450523", "http://a]/", "http://[a/",
	"foo://user:pa%20ss@host:0000/x", "http://a/b?c[d]", "http://a/b#[", "//a:/", "//@", "//a:b@", "http://%41/",
}

func TestSameAsURIOnASCII(t *testing.T) {
	for _, s := range asciiCases {
		sameAsURI(t, s)
	}
	// Mutations: every hand-picked case with each interesting byte put
	// at each position.
	const alphabet = ":/?#[]@%!$&'()*+,;=-._~aZ09 \"<>\\^`{|}\x00\x7f"
	for _, s := range asciiCases {
		for i := 0; i <= len(s); i++ {
			for j := 0; j < len(alphabet); j++ {
				sameAsURI(t, s[:i]+alphabet[j:j+1]+s[i:])
				if i < len(s) {
					sameAsURI(t, s[:i]+alphabet[j:j+1]+s[i+1:])
				}
			}
		}
	}
	// The shared URL lists, when ../shared is there.
	files, _ := filepath.Glob("../../shared/data/urls/*.txt")
	n := 0
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if line := sc.Text(); isASCII(line) {
				sameAsURI(t, line)
				n++
			}
		}
		f.Close()
	}
	t.Logf("%d lines of the shared URL lists", n)
}

// substitute replaces each non-ASCII character of s by as many '~' as it
// has bytes: an unreserved ASCII character allowed wherever ucschar is, so
// that the offsets of the components do not move.
func substitute(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		if b[i] >= utf8.RuneSelf {
			b[i] = '~'
		}
	}
	return string(b)
}

func TestParseIRI(t *testing.T) {
	tests := []struct {
		in                        string
		scheme, host, path, query string
		fragment, userinfo, port  string
	}{
		{in: "http://résumé.example.org", scheme: "http", host: "résumé.example.org"},
		{in: "https://ja.wikipedia.org/wiki/東京", scheme: "https", host: "ja.wikipedia.org", path: "/wiki/東京"},
		{in: "https://de.wikipedia.org/wiki/Köln_(Stadt)", scheme: "https", host: "de.wikipedia.org", path: "/wiki/Köln_(Stadt)"},
		{in: "http://üser:pässword@bücher.example:8080/päth?qüery=\U000F0000#frägment", scheme: "http", userinfo: "üser:pässword",
			host: "bücher.example", port: "8080", path: "/päth", query: "qüery=\U000F0000", fragment: "frägment"},
		{in: "http://example.com/😀?😀#😀", scheme: "http", host: "example.com", path: "/😀", query: "😀", fragment: "😀"},
		{in: "http://xn--99zt52a.example.org/%e2%80%ae", scheme: "http", host: "xn--99zt52a.example.org", path: "/%e2%80%ae"},
		{in: "ภาษาไทย/ไทย", path: "ภาษาไทย/ไทย"},
		{in: "//مثال.إختبار/", host: "مثال.إختبار", path: "/"},
		{in: "http://a/\u200d\u200c", scheme: "http", host: "a", path: "/\u200d\u200c"}, // joiners are ucschar, not bidi formatting
		{in: "x:\uFEFF", scheme: "x", path: "\uFEFF"},                                   // U+FEFF is in %xFDF0-FFEF
		{in: "x:\U000E1000", scheme: "x", path: "\U000E1000"},                           // first ucschar after the tags
		{in: "x:?\uE000\U00100000\U0010FFFD", scheme: "x", query: "\uE000\U00100000\U0010FFFD"},
	}
	for _, tt := range tests {
		x, err := ParseReference(tt.in)
		if err != nil {
			t.Errorf("ParseReference(%q): %v", tt.in, err)
			continue
		}
		got := [...]string{x.Scheme(), x.Host(), x.Path(), x.Query(), x.Fragment(), x.Userinfo(), x.Port()}
		want := [...]string{tt.scheme, tt.host, tt.path, tt.query, tt.fragment, tt.userinfo, tt.port}
		if got != want {
			t.Errorf("ParseReference(%q) = %q, want %q", tt.in, got, want)
		}
		if recompose(x) != tt.in || x.String() != tt.in {
			t.Errorf("ParseReference(%q) recomposes to %q", tt.in, recompose(x))
		}
		if x.IsASCII() != isASCII(tt.in) {
			t.Errorf("%q: IsASCII = %v", tt.in, x.IsASCII())
		}
		if u, err := uri.ParseReference(substitute(tt.in)); err != nil || partsOfURI(u).path != substitute(tt.path) {
			t.Errorf("%q: the substituted text does not parse as a URI with the same path: %v", tt.in, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		kind   error
		reason string // a part of the reason
	}{
		{"http://a/\u202e", 9, ErrBidiFormatting, "U+202E"},
		{"http://a/b\u200e", 10, ErrBidiFormatting, "§4.1"},
		{"http://a/?\u200f", 10, ErrBidiFormatting, "query"},
		{"http://a/#\u202a", 10, ErrBidiFormatting, "fragment"},
		{"http://\u202bexample.com/", 7, ErrBidiFormatting, "host"},
		{"http://u\u202c@example.com/", 8, ErrBidiFormatting, "userinfo"},
		{"\u202dhttp://a/", 0, ErrBidiFormatting, "path"},
		{"http://a/\ufffd", 9, ErrDisallowedCharacter, "not a ucschar"},
		{"http://a/\u0085", 9, ErrDisallowedCharacter, "U+0085"},
		{"http://a/\ufdd0", 9, ErrDisallowedCharacter, "U+FDD0"},
		{"http://a/\U0001FFFE", 9, ErrDisallowedCharacter, "U+1FFFE"},
		{"http://a/\U000E0041", 9, ErrDisallowedCharacter, "U+E0041"},
		{"http://a/\ue000", 9, ErrDisallowedCharacter, "private-use"},
		{"http://a/#\U000F0000", 10, ErrDisallowedCharacter, "private-use"},
		{"http://\U00100000/", 7, ErrDisallowedCharacter, "private-use"},
		{"hé://a/", 3, ErrInvalidPath, "colon"}, // not a scheme: a relative path, as "h~://a/" is
		{"http://a:8é/", 12, ErrDisallowedCharacter, "no '@' follows"},
		{"http://a:8é@b:x/", 15, ErrInvalidPort, "port"}, // a userinfo with é is fine
		{"http://[::é]/", 10, ErrDisallowedCharacter, "IP literal"},
		{"http://[v1.é]/", 11, ErrDisallowedCharacter, "IP literal"},
		{"http://a/\xff", 9, ErrInvalidUTF8, "0xFF"},
		{"http://a/\xc3", 9, ErrInvalidUTF8, "0xC3"},
		{"http://a/\xc0\xaf", 9, ErrInvalidUTF8, "0xC0"},     // an overlong '/', RFC 3987 §8
		{"http://a/\xed\xa0\x80", 9, ErrInvalidUTF8, "0xED"}, // a surrogate
		{"http://a/ü ", 11, ErrInvalidPath, "space"},
		{"é:x", 2, ErrInvalidPath, "colon"},
	}
	for _, tt := range tests {
		_, err := ParseReference(tt.in)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("ParseReference(%q) = %v, want an *Error", tt.in, err)
			continue
		}
		if e.Offset != tt.offset || !errors.Is(err, tt.kind) || !strings.Contains(e.Error(), tt.reason) {
			t.Errorf("ParseReference(%q): %v (kind %v), want offset %d, kind %v, %q", tt.in, err, e.Kind, tt.offset, tt.kind, tt.reason)
		}
	}
	var e *Error
	if _, err := Parse("résumé.html"); !errors.As(err, &e) || e.Offset != 1 || !errors.Is(err, ErrDisallowedCharacter) {
		t.Errorf("Parse of a relative reference: %v", err)
	}
	if _, err := Parse("hé://a/"); !errors.As(err, &e) || e.Offset != 1 || !strings.Contains(e.Reason, "scheme") {
		t.Errorf("Parse of a non-ASCII scheme: %v", err)
	}
	if _, err := Parse("/résumé.html"); !errors.As(err, &e) || e.Offset != 0 || !errors.Is(err, ErrMissingScheme) {
		t.Errorf("Parse of a relative reference: %v", err)
	}
	if _, err := ParseAbsolute("http://é/#x"); !errors.Is(err, ErrNotAbsolute) {
		t.Errorf("ParseAbsolute with a fragment: %v", err)
	}
}

// TestErrorKindsAreURIs: the kinds an IRI shares with a URI are package
// uri's sentinels, so one errors.Is serves both parsers; the IRI-only
// kinds are none of uri's. The message shows a window of a long input
// around the offending byte.
func TestErrorKindsAreURIs(t *testing.T) {
	for _, tt := range []struct {
		in   string
		kind error
	}{
		{"http://ü/ x", uri.ErrInvalidPath},
		{"http://ü:8x/", uri.ErrInvalidPort},
		{"http://[::ü]/", ErrDisallowedCharacter},
		{"http://ü/%zz", uri.ErrInvalidPercentEncoding},
		{"ü:x", uri.ErrInvalidPath},
	} {
		_, err := ParseReference(tt.in)
		if !errors.Is(err, tt.kind) {
			t.Errorf("ParseReference(%q): %v, want kind %v", tt.in, err, tt.kind)
		}
	}
	if _, err := ParseAbsolute("http://é/#x"); !errors.Is(err, uri.ErrNotAbsolute) {
		t.Errorf("ParseAbsolute with a fragment: %v", err)
	}
	rel, err := ParseReference("é")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rel.ResolveString("x"); !errors.Is(err, uri.ErrNotAbsolute) {
		t.Errorf("resolution against a relative base: %v", err)
	}
	for _, k := range []error{ErrInvalidUTF8, ErrBidiFormatting, ErrDisallowedCharacter} {
		for _, u := range []error{uri.ErrInvalidPath, uri.ErrInvalidHost, uri.ErrInvalidText} {
			if errors.Is(k, u) {
				t.Errorf("%v is %v", k, u)
			}
		}
	}
	long := "http://ä/" + strings.Repeat("x", 500) + " " + strings.Repeat("y", 500)
	_, err = Parse(long)
	if msg := err.Error(); len(msg) > 200 || !strings.Contains(msg, "at byte 510") || !strings.Contains(msg, `x y`) {
		t.Errorf("error on a long input: %s", msg)
	}
}

func TestMustParse(t *testing.T) {
	if MustParse("http://bücher.example/").Host() != "bücher.example" {
		t.Error("MustParse")
	}
	defer func() {
		if recover() == nil {
			t.Error("MustParse of a relative reference did not panic: it mirrors Parse")
		}
	}()
	MustParse("bücher")
}

func TestParseAllocs(t *testing.T) {
	for _, s := range []string{"http://example.com/a?b#c", "https://ja.wikipedia.org/wiki/東京", "http://üser@bücher.example:80/päth?q=😀#f", "ภาษาไทย"} {
		if n := testing.AllocsPerRun(100, func() { _, _ = ParseReference(s) }); n != 0 {
			t.Errorf("ParseReference(%q) allocates %v times", s, n)
		}
	}
}

func TestTextMarshaling(t *testing.T) {
	x := MustParse("http://bücher.example/ö")
	b, _ := x.MarshalText()
	var y IRI
	if err := y.UnmarshalText(b); err != nil || y != x {
		t.Errorf("UnmarshalText(MarshalText) = %v, %v", y, err)
	}
	if b, _ := x.AppendText([]byte("<")); string(b) != "<http://bücher.example/ö" {
		t.Errorf("AppendText = %q", b)
	}
	if err := y.UnmarshalText([]byte("http://a/\u202e")); err == nil {
		t.Error("UnmarshalText accepted a bidi formatting character")
	}
	if string(x.AppendTo(nil)) != x.String() {
		t.Error("AppendTo")
	}
}

func TestAccessors(t *testing.T) {
	x := MustParse("http://%C3%BCser@bücher.example:0080/p%C3%A4th?q=%C3%BC#%C3%BC")
	if x.DecodedUserinfo() != "üser" || x.DecodedHost() != "bücher.example" || x.DecodedPath() != "/päth" ||
		x.DecodedQuery() != "q=ü" || x.DecodedFragment() != "ü" {
		t.Errorf("decoded accessors: %q %q %q %q %q", x.DecodedUserinfo(), x.DecodedHost(), x.DecodedPath(), x.DecodedQuery(), x.DecodedFragment())
	}
	if p, ok := x.PortNumber(); !ok || p != 80 {
		t.Errorf("PortNumber = %d, %v", p, ok)
	}
	if x.IsAbsolute() || x.IsRelative() || !x.HasScheme() {
		t.Error("IsAbsolute/IsRelative/HasScheme")
	}
	y := x.WithoutFragment()
	if y.HasFragment() || y.String() != "http://%C3%BCser@bücher.example:0080/p%C3%A4th?q=%C3%BC" || !y.IsAbsolute() {
		t.Errorf("WithoutFragment = %q", y)
	}
	if a, ok := MustParse("http://[::1]/").Addr(); !ok || a.String() != "::1" {
		t.Error("Addr")
	}
	if z := MustParse("http://a/ö#b").WithoutFragment(); z.IsASCII() {
		t.Error("WithoutFragment lost the non-ASCII flag")
	}
	if z := MustParse("http://a/#ö").WithoutFragment(); !z.IsASCII() || z.URI().String() != "http://a/" {
		t.Error("WithoutFragment kept the non-ASCII flag")
	}
	if !(IRI{}).IsZero() || x.IsZero() {
		t.Error("IsZero")
	}
}
