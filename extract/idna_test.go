package extract

import "testing"

func TestIDNAHost(t *testing.T) {
	tests := []struct{ in, want string }{
		{"b\u00fccher.example", "xn--bcher-kva.example"},
		{"B\u00dcCHER.Example", "xn--bcher-kva.example"},
		{"m\u00fcnchen.de", "xn--mnchen-3ya.de"},
		{"\u4e2d\u56fd", "xn--fiqs8s"},
		{"\u0645\u0635\u0631", "xn--wgbh1c"},
		{"\u0440\u0444", "xn--p1ai"},
		{"\u4f8b\u3048\u3002\u30c6\u30b9\u30c8", "xn--r8jz45g.xn--zckzah"}, // ideographic full stop
		{"example.com.", "example.com."},                                   // the root label stays: the name is fully qualified
		{"[::1]", "[::1]"},
		// RFC 3492 §7.1 sample (A) Arabic (Egyptian)
		{"\u0644\u064a\u0647\u0645\u0627\u0628\u062a\u0643\u0644\u0645\u0648\u0634\u0639\u0631\u0628\u064a\u061f", "xn--egbpdaj6bu4bxfgehfvwxn"},
		// UTS #46 lookup maps what browsers accept, symbols included
		{"\u2603.com", "xn--n3h.com"},
		// RFC 3492 §7.1 sample (B) Chinese (simplified)
		{"\u4ed6\u4eec\u4e3a\u4ec0\u4e48\u4e0d\u8bf4\u4e2d\u6587", "xn--ihqwcrb4cv8a8dqg056pqjye"},
	}
	for _, tt := range tests {
		got, err := IDNAHost(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("IDNAHost(%q) = %q, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("IDNAHost(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"a..b", "-\u00e9.com", "\u00e9 b.com", "\u00e9\u0661\u0032.com"} {
		if got, err := IDNAHost(bad); err == nil {
			t.Errorf("IDNAHost(%q) = %q, want an error", bad, got)
		}
	}
}

func TestCleanUserInput(t *testing.T) {
	u, err := CleanUserInput("<URL: www.b\u00fccher.de/stra\u00dfe?q=a b>")
	if err != nil || u.String() != "http://www.xn--bcher-kva.de/stra%C3%9Fe?q=a%20b" {
		t.Errorf("got %q, %v", u, err)
	}
}
