package ascii

import (
	"strings"
	"testing"
)

// The classes written out from the ABNF of RFC 3986 Appendix A, one
// character list per rule, independently of how Table is built.
const (
	alpha      = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	digit      = "0123456789"
	hexdig     = digit + "abcdefABCDEF"
	unreserved = alpha + digit + "-._~"
	subDelims  = "!$&'()*+,;="
	genDelims  = ":/?#[]@"
	pchar      = unreserved + subDelims + ":@"
)

func TestTableMatchesABNF(t *testing.T) {
	rules := []struct {
		name  string
		mask  uint16
		chars string
	}{
		{"ALPHA", Alpha, alpha},
		{"DIGIT", Digit, digit},
		{"HEXDIG", Hex, hexdig},
		{"upper", Upper, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
		{"unreserved", Unreserved, unreserved},
		{"sub-delims", SubDelims, subDelims},
		{"gen-delims", GenDelims, genDelims},
		{"scheme", Scheme, alpha + digit + "+-."},
		{"userinfo", Userinfo, unreserved + subDelims + ":"},
		{"reg-name", RegName, unreserved + subDelims},
		{"pchar", Pchar, pchar},
		{"path", Path, pchar + "/"},
		{"query", Query, pchar + "/?"},
		{"segment-nz-nc", SegmentNC, unreserved + subDelims + "@"},
		{"ldh", LDH, alpha + digit + "-"},
	}
	for _, r := range rules {
		for c := 0; c < 256; c++ {
			want := strings.IndexByte(r.chars, byte(c)) >= 0
			if got := Is(byte(c), r.mask); got != want {
				t.Errorf("%s: Is(%q) = %v, want %v", r.name, rune(c), got, want)
			}
		}
	}
}

func TestPctEnd(t *testing.T) {
	tests := []struct {
		s    string
		i    int
		want int
	}{
		{"%41", 0, -1},
		{"a%aF", 1, -1},
		{"%4", 0, 2},
		{"%", 0, 1},
		{"%G1", 0, 1},
		{"%1G", 0, 2},
		{"x%%41", 1, 2},
	}
	for _, tt := range tests {
		if got := PctEnd(tt.s, tt.i); got != tt.want {
			t.Errorf("PctEnd(%q, %d) = %d, want %d", tt.s, tt.i, got, tt.want)
		}
		if got := PctEnd([]byte(tt.s), tt.i); got != tt.want {
			t.Errorf("PctEnd([]byte(%q), %d) = %d, want %d", tt.s, tt.i, got, tt.want)
		}
	}
}

func TestEscapeDecodeRoundTrip(t *testing.T) {
	var all []byte
	for c := 0; c < 256; c++ {
		all = append(all, byte(c))
	}
	for _, mask := range []uint16{Unreserved, RegName, Userinfo, Pchar, Path, Query} {
		enc := string(AppendEscape(nil, string(all), mask))
		for i := 0; i < len(enc); i++ {
			c := enc[i]
			if c == '%' {
				if PctEnd(enc, i) >= 0 {
					t.Fatalf("mask %#x: broken escape at %d in %q", mask, i, enc)
				}
				i += 2
				continue
			}
			if !Is(c, mask) {
				t.Fatalf("mask %#x: %q left unescaped", mask, c)
			}
		}
		if dec := Decode(enc); dec != string(all) {
			t.Fatalf("mask %#x: Decode(AppendEscape(s)) != s", mask)
		}
	}
	// Decode trusts its caller, but a '%' close to the end is kept as it is.
	if got := Decode("a%4"); got != "a%4" {
		t.Errorf("Decode(a%%4) = %q", got)
	}
}

func TestCaseHelpers(t *testing.T) {
	if !EqualFold("HTTP", []byte("http")) || EqualFold("http", "https") || EqualFold("\xc3\xa9", "\xc3\x89") {
		t.Error("EqualFold")
	}
	if got := LowerString("MiXed-1"); got != "mixed-1" {
		t.Errorf("LowerString = %q", got)
	}
	if got := string(AppendUpperPct(nil, "a%2fb%c3%a9")); got != "a%2Fb%C3%A9" {
		t.Errorf("AppendUpperPct = %q", got)
	}
	if got := string(AppendPct(nil, 0xe9)); got != "%E9" {
		t.Errorf("AppendPct = %q", got)
	}
}
