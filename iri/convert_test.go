package iri

import (
	"testing"

	"github.com/urikit/urikit/uri"
)

func TestURI(t *testing.T) {
	for in, want := range map[string]string{
		"http://example.com/𐌀𐌁𐌂":                "http://example.com/%F0%90%8C%80%F0%90%8C%81%F0%90%8C%82", // RFC 3987 §3.1
		"http://www.example.org/red%09rosé#red": "http://www.example.org/red%09ros%C3%A9#red",              // existing encodings stay
		"http://r%c3%a9sum%c3%a9.org/é":         "http://r%c3%a9sum%c3%a9.org/%C3%A9",                      // and keep their case
		"?\ue000":                               "?%EE%80%80",                                              // iprivate
		"http://a/b":                            "http://a/b",                                              // identity on URIs (§3.1)
	} {
		x := mustRef(t, in)
		if got := x.URI().String(); got != want {
			t.Errorf("URI(%q) = %q, want %q", in, got, want)
		}
		if got := string(x.AppendURI([]byte("<"))); got != "<"+want {
			t.Errorf("AppendURI(%q) = %q", in, got)
		}
		// §3.1: the mapping is idempotent.
		if y := mustRef(t, want); y.URI().String() != want {
			t.Errorf("URI is not idempotent on %q", want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = MustParse("http://example.com/a").URI() }); n != 0 {
		t.Errorf("URI of an ASCII IRI allocates %v times", n)
	}
}

func TestURIWithIDNA(t *testing.T) {
	for in, want := range map[string]string{
		"http://résumé.example.org/é":   "http://xn--rsum-bpad.example.org/%C3%A9",
		"http://üser@bücher.example:1/": "http://%C3%BCser@xn--bcher-kva.example:1/",
		"http://[::1]/é":                "http://[::1]/%C3%A9",
		"http://%C3%BC.example/é":       "http://%C3%BC.example/%C3%A9", // no non-ASCII in the host: as written
		"http://ü%2Eexample/":           "http://xn--tda.example/",      // decoded first: %2E is a label separator
		"mailto:jörg@bücher.example":    "mailto:j%C3%B6rg@b%C3%BCcher.example",
	} {
		u, err := mustRef(t, in).URIWithIDNA()
		if err != nil || u.String() != want {
			t.Errorf("URIWithIDNA(%q) = %q, %v; want %q", in, u, err, want)
		}
	}
	if _, err := mustRef(t, "http://%C3%BC%FF.example/").URIWithIDNA(); err != nil {
		t.Errorf("an ASCII host is never converted: %v", err)
	}
	if _, err := mustRef(t, "http://ü%FF.example/").URIWithIDNA(); err == nil {
		t.Error("a host whose decoded bytes are no UTF-8 was converted")
	}
}

func TestFromURI(t *testing.T) {
	for in, want := range map[string]string{
		"http://www.example.org/D%C3%BCrst":               "http://www.example.org/Dürst",
		"http://www.example.org/D%FCrst":                  "http://www.example.org/D%FCrst",
		"http://xn--99zt52a.example.org/%e2%80%ae":        "http://xn--99zt52a.example.org/%E2%80%AE",
		"http://a/%7e%7E%41%2e%2F%3f%23%5B%25":            "http://a/~~A.%2F%3f%23%5B%25",
		"http://a/%F0%9F%98%80%F0%9F":                     "http://a/😀%F0%9F",
		"http://a/%f4%90%80%80":                           "http://a/%F4%90%80%80", // above U+10FFFF: no UTF-8
		"http://a/%F3%B0%80%80?%F3%B0%80%80#%F3%B0%80%80": "http://a/%F3%B0%80%80?\U000F0000#%F3%B0%80%80",
		"http://[::1]/%C3%A9":                             "http://[::1]/é",
		"http://a/plain":                                  "http://a/plain",
	} {
		x, err := FromURIString(in)
		if err != nil || x.String() != want {
			t.Errorf("FromURI(%q) = %q, %v; want %q", in, x, err, want)
		}
		// §3.2: the IRI maps back to the URI, up to the case of hex
		// digits and the encodings of unreserved characters.
		u := uri.MustParse(in)
		if !uri.Equal(x.URI(), u, uri.Syntax) && x.URI().Normalize(uri.Syntax).String() != u.Normalize(uri.Syntax).String() {
			t.Errorf("FromURI(%q) maps back to %q", in, x.URI())
		}
	}
	if _, err := FromURIString("http://a/ü"); err == nil {
		t.Error("FromURIString accepted a non-URI")
	}
	zoned, err := uri.Parser{AllowZoneID: true}.Parse("http://[fe80::1%25eth0]/%C3%A9")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FromURI(zoned); err == nil {
		t.Error("FromURI accepted an IPv6 zone identifier, which no IRI can hold")
	}
}

func mustRef(t *testing.T, s string) IRI {
	t.Helper()
	x, err := ParseReference(s)
	if err != nil {
		t.Fatal(err)
	}
	return x
}
