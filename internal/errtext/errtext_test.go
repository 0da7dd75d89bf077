package errtext

import (
	"strings"
	"testing"
)

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("a", 100) + "é" + strings.Repeat("b", 100)
	for _, tc := range []struct {
		s      string
		offset int
		want   string
	}{
		{"http://a b", 8, `"http://a b"`},
		{"\x00\xff", 1, `"\x00\xff"`},
		{long, 0, `"` + strings.Repeat("a", 80) + `"...`},
		{long, len(long), `..."` + strings.Repeat("b", 40) + `"`}, // the window is centred on the offset
		// The window would cut "é" in two: it widens to the rune's start.
		{long, 61, `..."` + strings.Repeat("a", 79) + `é"...`},
	} {
		if got := Excerpt(tc.s, tc.offset, 80); got != tc.want {
			t.Errorf("Excerpt(%.20q…, %d) = %s; want %s", tc.s, tc.offset, got, tc.want)
		}
	}
}

func TestASCII(t *testing.T) {
	for c, want := range map[byte]string{
		'\t': "control character 0x09", 0x7f: "control character 0x7F", 0x1b: "control character 0x1B", 0: "control character 0x00",
		' ': "space", '<': "character '<'", '\'': `character '\''`,
	} {
		if got := string(AppendASCII([]byte("x "), c)); got != "x "+want {
			t.Errorf("AppendASCII(%#x) = %q; want %q", c, got, "x "+want)
		}
	}
}

func TestAppendHexByte(t *testing.T) {
	for c, want := range map[byte]string{0: "0x00", 0x0a: "0x0A", 0xc3: "0xC3", 0xff: "0xFF"} {
		if got := string(AppendHexByte(nil, c)); got != want {
			t.Errorf("AppendHexByte(%#x) = %q; want %q", c, got, want)
		}
	}
}
