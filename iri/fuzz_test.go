package iri

import (
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/urikit/urikit/uri"
)

// Seeds beyond testdata/fuzz: RFC 3987's examples and the edges of the
// character classes.
var fuzzSeeds = []string{
	"http://résumé.example.org", "http://www.example.org/red%09rosé#red", "http://example.com/𐌀𐌁𐌂",
	"http://xn--99zt52a.example.org/%e2%80%ae", "http://納豆.example.org/%E2%80%AE", "example://a/b/c/%7Bfoo%7D/rosé",
	"eXAMPLE://a/./b/../b/%63/%7bfoo%7d/ros%C3%A9", "http://www.example.org/re\u0301sume\u0301.html",
	"http://a/\u202e", "http://a/?\ue000#\ue000", "http://[::1]/ü", "http://ü@[v1.x]:80/", "\xff\xfe", "http://a/\xc0\xaf",
	"//ü.example", "../ä/ö", "http://a:８０/", "http://ü%41.example/", "http://０x7f．１/", "x:\U0010FFFD?\U0010FFFD",
}

// FuzzParse: no input panics; an ASCII input is an IRI exactly when it is
// a URI, with the same components or error offset; an IRI's components
// recompose it and keep their offsets when the non-ASCII text is swapped
// for ASCII; its URI form parses as a URI (§3.1); IRI -> URI -> IRI gives
// back the same IRI after §5.3 syntax-based normalization; normalization
// is idempotent.
func FuzzParse(f *testing.F) {
	for _, s := range append(fuzzSeeds, asciiCases...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if isASCII(s) {
			sameAsURI(t, s)
		}
		for _, p := range []func(string) (IRI, error){Parse, ParseAbsolute} {
			if _, err := p(s); err != nil {
				checkError(t, s, err)
			}
		}
		x, err := ParseReference(s)
		if err != nil {
			checkError(t, s, err)
			return
		}
		if !utf8.ValidString(s) {
			t.Fatalf("%q: invalid UTF-8 accepted", s)
		}
		if recompose(x) != s {
			t.Fatalf("%q recomposes to %q", s, recompose(x))
		}
		u, err := uri.ParseReference(substitute(s))
		if err != nil || partsOfURI(u) != partsOfIRI(mustParseRef(t, substitute(s))) || len(u.Path()) != len(x.Path()) ||
			len(u.Host()) != len(x.Host()) || len(u.Query()) != len(x.Query()) || len(u.Userinfo()) != len(x.Userinfo()) {
			t.Fatalf("%q: with ASCII for its non-ASCII text it is no URI of the same shape: %v", s, err)
		}
		ux := x.URI() // panics if the URI form does not parse
		if !isASCII(ux.String()) || ux.String() != string(x.AppendURI(nil)) {
			t.Fatalf("%q: URI %q", s, ux)
		}
		if ui, err := x.URIWithIDNA(); err == nil && !isASCII(ui.String()) {
			t.Fatalf("%q: URIWithIDNA %q is not ASCII", s, ui)
		}
		back, err := FromURI(ux)
		if err != nil {
			t.Fatalf("%q: FromURI(%q): %v", s, ux, err)
		}
		if a, b := back.Normalize(uri.Syntax), x.Normalize(uri.Syntax); a != b {
			t.Fatalf("%q: IRI -> URI -> IRI gives %q; normalized %q, not %q", s, back, a, b)
		}
		for _, l := range []uri.Level{uri.Syntax, uri.SchemeBased} {
			n := x.Normalize(l)
			if n.Normalize(l) != n {
				t.Fatalf("%q: Normalize(%v) is not idempotent: %q, then %q", s, l, n, n.Normalize(l))
			}
		}
		_ = Inspect(x)
	})
}

func mustParseRef(t *testing.T, s string) IRI {
	x, err := ParseReference(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return x
}

func checkError(t *testing.T, s string, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Input != s || e.Offset < 0 || e.Offset > len(s) || e.Kind == nil || !errors.Is(err, e.Kind) || e.Reason == "" {
		t.Fatalf("%q: bad error %#v", s, err)
	}
}

// FuzzFromURI: a URI's IRI form is a valid IRI that maps back to the URI
// up to the case of hex digits and the encodings of unreserved characters
// (RFC 3987 §3.2), and converting its URI again changes nothing.
func FuzzFromURI(f *testing.F) {
	for _, s := range []string{"http://www.example.org/D%C3%BCrst", "http://www.example.org/D%FCrst", "http://xn--99zt52a.example.org/%e2%80%ae",
		"http://a/%7e%2F%25%C0%AF%F0%9F%98%80%F0%9F", "http://%C3%BC@%C3%BC/?%EE%80%80#%EE%80%80", "%C3%A9t%C3%A9", "http://a/%ed%a0%80%ef%bf%bd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := uri.ParseReference(s)
		if err != nil {
			if _, err2 := FromURIString(s); err2 == nil {
				t.Fatalf("%q: FromURIString accepted an invalid URI", s)
			}
			return
		}
		x, err := FromURI(u)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if !uri.Equal(x.URI(), u, uri.Syntax) {
			t.Fatalf("%q: IRI %q maps back to %q", s, x, x.URI())
		}
		if y, err := FromURI(x.URI()); err != nil || y != x {
			t.Fatalf("%q: FromURI(%q) = %q, %v; want %q", s, x.URI(), y, err, x)
		}
	})
}

// FuzzResolve: resolving IRIs and mapping the result to a URI is the same
// as mapping both to URIs and resolving those (RFC 3987 §6.5: the
// characters IRIs add behave as unreserved ones).
func FuzzResolve(f *testing.F) {
	f.Add("http://ä/б/ç/d;p?q", "../ğ?ý#ś")
	f.Add("f:/ä", ".//ü")
	f.Add("foo:ä/б", "../ç")
	f.Add("http://a", "ü")
	f.Fuzz(func(t *testing.T, base, ref string) {
		b, err := Parse(base)
		if err != nil {
			return
		}
		r, err := ParseReference(ref)
		if err != nil {
			return
		}
		got, err := b.Resolve(r)
		if err != nil {
			t.Fatalf("resolve %q against %q: %v", ref, base, err)
		}
		want, err := b.URI().Resolve(r.URI())
		if err != nil {
			t.Fatalf("uri: resolve %q against %q: %v", r.URI(), b.URI(), err)
		}
		if got.URI().String() != want.String() {
			t.Fatalf("resolve %q against %q = %q (URI %q); the URIs resolve to %q", ref, base, got, got.URI(), want)
		}
	})
}
