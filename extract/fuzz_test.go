package extract

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode"
	"unicode/utf8"

	"github.com/urikit/urikit/iri"
	"github.com/urikit/urikit/uri"
)

// FuzzScanner: no panic; every URI parses with uri.Parse and is ASCII
// (with Options.IRI: every IRI parses with iri.Parse); its offsets point
// at the text it claims; the line is right; streaming one byte a read
// finds the same; every URI found without IRI is found with it too.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{
		"Yes, Jim, I found it under \"http://www.w3.org/Addressing/\",\nbut <ftp://foo.example.\ncom/rfc/>.",
		"'http://a.b/c'more <a href=\"http://x/\"> text:http://example.com/ [http://a/](http://a/)",
		"\"Host:\" a file:// URL foo.com:8080 Note: see <URL:http://a/> URL: mailto:a@b.c",
		"http://[::1]:80/a] (http://w/a_(b)) urn:isbn:0451450523. news:comp.lang.go",
		"<http://a/multi-\n  part>",
		"<URL:\u00a0http://a/\u2028b> 'url:  foo:x' \"URL: foo:y\" -'a-'a:b'",
		"see http://säfte.de, https://ja.wikipedia.org/wiki/東京 about:blank后 <https://bücher.example/ x> 'http://a.b/ü'",
		"http://a.b/x\u202ey http://a.b/👩\u200d💻! http://a.b/ﬁle «http://ü.c/» http://a/\ufffd é'http://a/'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		plain := checkScan(t, text, Options{})
		withIRI := checkScan(t, text, Options{IRI: true})
		// A URI taken without IRI is ASCII and whole; with IRI the same
		// candidate is taken (an ASCII IRI is a URI), or a longer one
		// where the text goes on in non-ASCII characters that an IRI may
		// hold ("<a://b‸>": the URI a://b, the IRI a://b‸).
		// Or, in angle brackets, the whole bracket is one IRI where it is
		// no URI, and the URI found inside it without IRI is part of that
		// ("<A At:0‸>": the IRI AAt:0‸ from offset 1, its space removed as
		// RFC 3986 Appendix C says; without IRI, the URI At:0 at 3).
		seen := map[int64]string{}
		for _, m := range withIRI {
			seen[m.Offset] = m.URI
		}
		covered := func(p Match) bool {
			return slices.ContainsFunc(withIRI, func(m Match) bool {
				return (m.Wrapper == Angle || m.Wrapper == AngleURL) && m.Offset <= p.Offset && p.End <= m.End && !isASCIIString(m.URI)
			})
		}
		for _, m := range plain {
			got := seen[m.Offset]
			longer := len(got) > len(m.URI) && strings.HasPrefix(got, m.URI) && got[len(m.URI)] >= 0x80
			if got != m.URI && !longer && !covered(m) {
				t.Fatalf("%q found without IRI at %d, not with it (%q)", m.URI, m.Offset, got)
			}
		}
	})
}

func checkScan(t *testing.T, text string, opts Options) []Match {
	{
		ms := StringsMatches(text, opts)
		for _, m := range ms {
			if opts.IRI {
				if _, err := iri.Parse(m.URI); err != nil {
					t.Fatalf("%q: %v", m.URI, err)
				}
			} else if _, err := uri.Parse(m.URI); err != nil {
				t.Fatalf("%q: %v", m.URI, err)
			}
			if m.Offset < 0 || m.End > int64(len(text)) || m.Offset > m.End {
				t.Fatalf("bad offsets %+v", m)
			}
			span := text[m.Offset:m.End]
			if m.Wrapper == Angle || m.Wrapper == AngleURL {
				span = dropSpaces(span)
			}
			if span != m.URI {
				t.Fatalf("text[%d:%d] = %q, URI %q", m.Offset, m.End, span, m.URI)
			}
			if line := 1 + strings.Count(text[:m.Offset], "\n"); line != m.Line {
				t.Fatalf("%+v: line should be %d", m, line)
			}
		}
		var got []Match
		opts.MaxLen = len(text)
		sc := NewScanner(iotest.OneByteReader(strings.NewReader(text)), opts)
		for sc.Scan() {
			got = append(got, sc.Match())
		}
		if !reflect.DeepEqual(got, ms) {
			t.Fatalf("streaming %+v\nAll %+v", got, ms)
		}
		return ms
	}
}

// StringsMatches is All with options.
func StringsMatches(text string, opts Options) []Match {
	var out []Match
	sc := NewScanner(strings.NewReader(text), opts)
	for sc.Scan() {
		out = append(out, sc.Match())
	}
	return out
}

// FuzzCleanUserInput: no panic; a result is a valid URI, and cleaning it
// again changes nothing.
func FuzzCleanUserInput(f *testing.F) {
	for _, s := range []string{
		"<URL: http://www.example.com/a\n   b>", "www.bücher.de/straße?q=a b", "localhost:8080",
		"example.com/x", "\"http://x/\"", "ftp.example.org:2121/pub", "mailto:Jörg@example.com",
		"http://x/%zz", "//x/y", "https://例え.テスト/パス#frag#2", "http://[::1]/a b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := CleanUserInput(s)
		if err != nil {
			var e *uri.Error
			if !asError(err, &e) || e.Offset < 0 || e.Offset > len(s) || e.Input != s || e.Kind == nil {
				t.Fatalf("%q: bad error %v", s, err)
			}
			return
		}
		if _, err := uri.Parse(u.String()); err != nil {
			t.Fatalf("%q -> %q: %v", s, u, err)
		}
		v, err := CleanUserInput(u.String())
		if err != nil || v.String() != u.String() {
			t.Fatalf("%q -> %q -> %q, %v", s, u, v, err)
		}
	})
}

func asError(err error, e **uri.Error) bool {
	x, ok := err.(*uri.Error)
	*e = x
	return ok
}

// dropSpaces removes the whitespace characters from s, as the scanner
// does inside <...>: byte by byte, so that bytes that are not UTF-8 stay
// as they are (strings.Map would turn each into U+FFFD), and two halves
// of a character split by a space join again.
func dropSpaces(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || !unicode.IsSpace(r) {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
