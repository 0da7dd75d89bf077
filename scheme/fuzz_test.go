package scheme

import (
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/urikit/urikit/uri"
)

// fuzzParser checks a typed parser: it never panics, and whatever it
// accepts, its builder turns into a URI that parses back to the same value
// (or refuses with an error).
func fuzzParser[T any](f *testing.F, seeds []string, parse func(uri.URI) (T, error), build func(T) (uri.URI, error)) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := uri.Parse(s)
		if err != nil {
			return
		}
		v, err := parse(u)
		if err != nil {
			return
		}
		if build == nil {
			return
		}
		// A builder writes Port 0 as "the default port": an explicit ":0"
		// cannot come back.
		if p := reflect.ValueOf(v).FieldByName("Port"); p.IsValid() && p.Int() == 0 && u.Port() != "" {
			return
		}
		b, err := build(v)
		if err != nil {
			return
		}
		w, err := parse(b)
		if err != nil {
			t.Fatalf("%s parsed as %+v, built %s, which does not parse: %v", s, v, b, err)
		}
		if !reflect.DeepEqual(v, w) {
			t.Fatalf("%s parsed as %+v, built %s, which parses as %+v", s, v, b, w)
		}
	})
}

func FuzzHTTP(f *testing.F) {
	fuzzParser(f, []string{"http://a/", "https://[::1]:8443/p?q", "ws://h:/x%20y?%3F"}, ParseHTTP,
		func(h HTTP) (uri.URI, error) { return h.URI() })
}

func FuzzFTP(f *testing.F) {
	fuzzParser(f, []string{"ftp://u:p@h/a/b;type=a", "ftp://h/%2Fetc;type=D", "ftp://@h:21"}, ParseFTP,
		func(x FTP) (uri.URI, error) {
			if len(x.Segments) == 1 && x.Segments[0] == "" {
				return uri.URI{}, errField("ftp", "path", "skip: \"/\" and \"\" read alike")
			}
			return x.URI()
		})
}

func FuzzGopher(f *testing.F) {
	fuzzParser(f, []string{"gopher://h/", "gopher://h/7x%09y%09+", "gopher://h/1a?b"}, ParseGopher,
		func(g Gopher) (uri.URI, error) { return g.URI() })
}

func FuzzNews(f *testing.F) {
	fuzzParser(f, []string{"news:a.b", "news://h/", "news:%3Ca@b%3E", "news:*"}, ParseNews,
		func(n News) (uri.URI, error) { return n.URI() })
}

func FuzzNNTP(f *testing.F) {
	fuzzParser(f, []string{"nntp://h/g/1", "nntp://h/g%2Fx"}, ParseNNTP,
		func(n NNTP) (uri.URI, error) { return n.URI() })
}

func FuzzTelnet(f *testing.F) {
	fuzzParser(f, []string{"telnet://u:p@h:23/", "rlogin://h", "tn3270://h/"}, ParseTelnet,
		func(x Telnet) (uri.URI, error) { return x.URI() })
}

func FuzzWAIS(f *testing.F) {
	fuzzParser(f, []string{"wais://h/db?s", "wais://h/db/t/p/q"}, ParseWAIS,
		func(w WAIS) (uri.URI, error) { return w.URI() })
}

func FuzzProspero(f *testing.F) {
	fuzzParser(f, []string{"prospero://h//a;b=c", "prospero://h/x%00v%00a"}, ParseProspero,
		func(p Prospero) (uri.URI, error) { return p.URI() })
}

func FuzzMailto(f *testing.F) {
	fuzzParser(f, []string{"mailto:a@b,c@d?to=e@f&subject=x&body=y", "mailto:%22a,b%22@c", "mailto:?body=%C3%A9"}, ParseMailto,
		func(m Mailto) (uri.URI, error) { return m.URI() })
}

func FuzzFile(f *testing.F) {
	for _, s := range []string{"file:///etc", "file:c:/x", "file://h/s/x", "file:////h/s", "file:/p"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := uri.Parse(s)
		if err != nil {
			return
		}
		x, err := ParseFile(u)
		if err != nil {
			return
		}
		b, err := x.URI()
		if err != nil {
			return
		}
		// file:/p and file:c:/p are built as file:///p and file:///c:/p.
		want := x
		if !want.Host.Set {
			want.Host = Some("")
		}
		if hasDrive(want.Path) {
			want.Path = "/" + want.Path
		}
		got, err := ParseFile(b)
		if err != nil || got != want {
			t.Fatalf("%s parsed as %+v, built %s, which parses as %+v, %v", s, x, b, got, err)
		}
	})
}

func FuzzAFS(f *testing.F) {
	fuzzParser(f, []string{"afs://c/p"}, ParseAFS, func(a AFS) (uri.URI, error) { return a.URI() })
}

func FuzzURN(f *testing.F) {
	fuzzParser[URN](f, []string{"urn:isbn:0451450523", "urn:ex:a?+r?=q#f"}, ParseURN, nil)
}

// FuzzFields runs the generic interface and Inspect on any input.
func FuzzFields(f *testing.F) {
	for _, s := range []string{"http://u:p@0x7f.1:25/%2e%2e/%0d", "mailto:a@b", "news:x", "urn:a:b", "foo:bar", "//h:25"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if u, err := uri.Parse(s); err == nil {
			if _, fs, err := FieldsOf(u); err == nil {
				if _, err := fs.MarshalJSON(); err != nil {
					t.Fatal(err)
				}
			}
		}
		ws, err := InspectString(s)
		if err != nil {
			return
		}
		for i := 1; i < len(ws); i++ {
			if ws[i-1].Code >= ws[i].Code {
				t.Fatalf("%s: codes not sorted and unique: %v", s, Codes(ws))
			}
		}
	})
}

// FuzzWHATWGIPv4 checks the IPv4 reader against its own definition: a
// result is an address and plain dotted decimal reads as itself.
func FuzzWHATWGIPv4(f *testing.F) {
	for _, s := range []string{"0x7f.1", "0177.0.0.1", "2130706433", "1.2.3.4.", "09"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, ok := WHATWGIPv4(s)
		if !ok {
			return
		}
		if !a.Is4() {
			t.Fatalf("%q gave %v", s, a)
		}
		if b, ok := WHATWGIPv4(a.String()); !ok || b != a {
			t.Fatalf("%q -> %v, which reads back as %v %v", s, a, b, ok)
		}
	})
}

// FuzzFileURIFromPath: any path that converts comes back as itself.
func FuzzFileURIFromPath(f *testing.F) {
	for _, s := range []string{"/etc/fstab", `c:\dir\f`, `\\srv\share\x`, "/a b/%/é"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, p string, win bool) {
		style := Unix
		if win {
			style = Windows
		}
		u, err := FileURIFromPath(p, style)
		if err != nil {
			return
		}
		back, err := OSPathFromURI(u, style)
		if err != nil {
			t.Fatalf("%q -> %s, which does not convert back: %v", p, u, err)
		}
		want := p
		if win {
			want = winClean(p)
		}
		if back != want && utf8.ValidString(p) {
			t.Fatalf("%q -> %s -> %q", p, u, back)
		}
	})
}
