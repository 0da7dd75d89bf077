package iri

import (
	"testing"

	"github.com/urikit/urikit/uri"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		in, syntax, scheme string
	}{
		// RFC 3987 §5.3.2: these two are equivalent at the syntax rung.
		{"example://a/b/c/%7Bfoo%7D/rosé", "example://a/b/c/%7Bfoo%7D/rosé", "example://a/b/c/%7Bfoo%7D/rosé"},
		{"eXAMPLE://a/./b/../b/%63/%7bfoo%7d/ros%C3%A9", "example://a/b/c/%7Bfoo%7D/rosé", "example://a/b/c/%7Bfoo%7D/rosé"},
		// §5.3.2.1: scheme and the ASCII of the host in lower case; other
		// letters keep their case at this rung.
		{"HTTP://www.EXAMPLE.com/", "http://www.example.com/", "http://www.example.com/"},
		{"HTTP://Bücher.EXAMPLE/Ü", "http://bücher.example/Ü", "http://bücher.example/Ü"},
		{"HTTP://ÜBER.com/", "http://Über.com/", "http://über.com/"},
		// §5.3.2.2: no character normalization (NFD stays NFD).
		{"http://a/re\u0301sume\u0301", "http://a/re\u0301sume\u0301", "http://a/re\u0301sume\u0301"},
		// §5.3.2.3: unreserved and allowed UTF-8 decoded, the rest in upper case.
		{"http://a/%7euser/%e2%80%ae/%fc/%2f", "http://a/~user/%E2%80%AE/%FC/%2F", "http://a/~user/%E2%80%AE/%FC/%2F"},
		{"http://a/%EE%80%80?%EE%80%80", "http://a/%EE%80%80?\ue000", "http://a/%EE%80%80?\ue000"},
		{"http://%C3%9C%41/", "http://Üa/", "http://üa/"},
		// §5.3.2.4: dot segments, spelled with percent-encodings too.
		{"http://a/b/%2E%2E/c", "http://a/c", "http://a/c"},
		{"a/./b/../é", "a/./b/../é", "a/./b/../é"}, // no scheme: as RFC 3986 §6.2.2.3 does
		// §5.3.3: ports, empty path, IDN hosts.
		{"http://example.com", "http://example.com", "http://example.com/"},
		{"http://example.com:/", "http://example.com:/", "http://example.com/"},
		{"http://example.com:80/", "http://example.com:80/", "http://example.com/"},
		{"http://example.com/?", "http://example.com/?", "http://example.com/?"},
		{"http://xn--rsum-bpad.example.org", "http://xn--rsum-bpad.example.org", "http://résumé.example.org/"},
		{"http://résumé.example.org", "http://résumé.example.org", "http://résumé.example.org/"},
		{"http://ＥＸＡＭＰＬＥ．ｃｏｍ/", "http://ＥＸＡＭＰＬＥ．ｃｏｍ/", "http://example.com/"},
		{"foo://xn--rsum-bpad.example.org", "foo://xn--rsum-bpad.example.org", "foo://xn--rsum-bpad.example.org"}, // unknown scheme: no IDN rule
		{"http://xn--.ü/", "http://xn--.ü/", "http://xn--.ü/"},                                                    // no valid IDN: kept
		{"http://[::FFFF:1.2.3.4]/", "http://[::ffff:1.2.3.4]/", "http://[::ffff:1.2.3.4]/"},
		{"f:/.//é", "f:/.//é", "f:/.//é"},
	}
	for _, tt := range tests {
		x := mustRef(t, tt.in)
		if got := x.Normalize(uri.Syntax).String(); got != tt.syntax {
			t.Errorf("Normalize(%q, syntax) = %q, want %q", tt.in, got, tt.syntax)
		}
		if got := x.Normalize(uri.SchemeBased).String(); got != tt.scheme {
			t.Errorf("Normalize(%q, scheme) = %q, want %q", tt.in, got, tt.scheme)
		}
		if x.Normalize(uri.Simple) != x {
			t.Errorf("Normalize(%q, simple) changed it", tt.in)
		}
		for _, l := range []uri.Level{uri.Syntax, uri.SchemeBased} {
			n := x.Normalize(l)
			if n.Normalize(l) != n {
				t.Errorf("Normalize(%q, %v) is not idempotent: %q then %q", tt.in, l, n, n.Normalize(l))
			}
		}
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b        string
		simple, syn bool
		schemeBased bool
	}{
		{"example://a/b/c/%7Bfoo%7D/rosé", "eXAMPLE://a/./b/../b/%63/%7bfoo%7d/ros%C3%A9", false, true, true},         // RFC 3987 §5.3.2
		{"http://www.example.org/résumé.html", "http://www.example.org/re\u0301sume\u0301.html", false, false, false}, // §5.3.2.2
		{"http://example.com", "http://example.com:80/", false, false, true},                                          // §5.3.3
		{"http://example.com/", "http://example.com/?", false, false, false},
		{"http://résumé.example.org", "http://xn--rsum-bpad.example.org", false, false, true},                       // §5.3.3
		{"http://big.example.com/PopularPage.html", "http://big.example.com/popularpage.html", false, false, false}, // §8
		{"http://a/é", "http://a/é", true, true, true},
	}
	for _, tt := range tests {
		for _, c := range []struct {
			l    uri.Level
			want bool
		}{{uri.Simple, tt.simple}, {uri.Syntax, tt.syn}, {uri.SchemeBased, tt.schemeBased}} {
			got, err := EqualStrings(tt.a, tt.b, c.l)
			if err != nil || got != c.want {
				t.Errorf("Equal(%q, %q, %v) = %v, %v; want %v", tt.a, tt.b, c.l, got, err, c.want)
			}
			if mustRef(t, tt.a).Equal(mustRef(t, tt.b), c.l) != c.want {
				t.Errorf("IRI.Equal(%q, %q, %v) disagrees", tt.a, tt.b, c.l)
			}
		}
	}
	if _, err := EqualStrings("http://a/\u202e", "http://a/", uri.Simple); err == nil {
		t.Error("EqualStrings accepted an invalid IRI")
	}
}

func TestNFC(t *testing.T) {
	// §3.1 step 1 b: an IRI transcoded from windows-1258 may come as
	// "Vie\u0302\u0323t Nam"; NFC gives "Vi\u1ec7t Nam".
	if got := NFC("http://a/Vie\u0302\u0323t"); got != "http://a/Vi\u1ec7t" {
		t.Errorf("NFC = %q", got)
	}
	// NFC, not NFKC: full-width letters stay.
	if got := NFC("http://a/ＡＢ"); got != "http://a/ＡＢ" {
		t.Errorf("NFC folded compatibility characters: %q", got)
	}
}
