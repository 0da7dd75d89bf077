package uri

import (
	"errors"
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	const in = "a b/c?d#e@f:g[h]%i~!$&'()*+,;=\u00e9"
	const rest = "%5Bh%5D%25i~!$&'()*+,;=%C3%A9"
	tests := []struct {
		c    Component
		want string
	}{
		{ComponentUserinfo, "a%20b%2Fc%3Fd%23e%40f:g" + rest},
		{ComponentHost, "a%20b%2Fc%3Fd%23e%40f%3Ag" + rest},
		{ComponentPathSegment, "a%20b%2Fc%3Fd%23e@f:g" + rest},
		{ComponentPath, "a%20b/c%3Fd%23e@f:g" + rest},
		{ComponentQuery, "a%20b/c?d%23e@f:g" + rest},
		{ComponentFragment, "a%20b/c?d%23e@f:g" + rest},
	}
	for _, tt := range tests {
		got := Escape(in, tt.c)
		if got != tt.want {
			t.Errorf("Escape(%q, %d) = %q, want %q", in, tt.c, got, tt.want)
		}
		if b := AppendEscape([]byte("x"), in, tt.c); string(b) != "x"+tt.want {
			t.Errorf("AppendEscape(%d) = %q", tt.c, b)
		}
		if back, err := Unescape(got); err != nil || back != in {
			t.Errorf("Unescape(%q) = %q, %v", got, back, err)
		}
	}
}

func TestEscapeRoundTrip(t *testing.T) {
	inputs := []string{"", "plain", "%", "%%41", "100%", "a+b", "\x00\x1f\x7f\x80\xff", "日本語", "../a/./b", "[::1]", "%2F"}
	for _, s := range inputs {
		for c := ComponentUserinfo; c <= ComponentFragment; c++ {
			e := Escape(s, c)
			for i := 0; i < len(e); i++ {
				if e[i] >= 0x80 || e[i] <= ' ' {
					t.Errorf("Escape(%q, %d) = %q keeps byte 0x%02X", s, c, e, e[i])
				}
			}
			if back, err := Unescape(e); err != nil || back != s {
				t.Errorf("Unescape(Escape(%q, %d) = %q) = %q, %v", s, c, e, back, err)
			}
		}
	}
	// Each escaped component parses back in its place.
	for _, s := range inputs {
		u, err := ParseReference("s://" + Escape(s, ComponentUserinfo) + "@" + Escape(s, ComponentHost) +
			"/" + Escape(s, ComponentPathSegment) + Escape(s, ComponentPath) + "?" + Escape(s, ComponentQuery) + "#" + Escape(s, ComponentFragment))
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		if u.DecodedUserinfo() != s || u.DecodedHost() != s || u.DecodedPath() != "/"+s+s || u.DecodedQuery() != s || u.DecodedFragment() != s {
			t.Errorf("%q: parts come back as %q %q %q %q %q", s, u.DecodedUserinfo(), u.DecodedHost(), u.DecodedPath(), u.DecodedQuery(), u.DecodedFragment())
		}
	}
}

func TestEscapeNoCopy(t *testing.T) {
	s := "abc-._~!$&'()*+,;=:@/?"
	if Escape(s, ComponentQuery) != s {
		t.Error("Escape changed a valid query")
	}
	if n := testing.AllocsPerRun(100, func() { _ = Escape(s, ComponentQuery) }); n != 0 {
		t.Errorf("Escape of a string with nothing to escape: %v allocations", n)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = Unescape(s) }); n != 0 {
		t.Errorf("Unescape of a string with nothing to decode: %v allocations", n)
	}
}

func TestUnescape(t *testing.T) {
	tests := []struct {
		in, want string
		at       string // for errors: the input up to the offset
	}{
		{"a%20b", "a b", ""},
		{"%C3%A9", "\u00e9", ""},
		{"%c3%a9", "\u00e9", ""},
		{"%2f%2F", "//", ""},
		{"%FF%00", "\xff\x00", ""},
		{"a+b", "a+b", ""},
		{"%2541", "%41", ""},
		{"", "", ""},
		{"%zz", "", "%"},
		{"%4", "", "%4"},
		{"abc%", "", "abc%"},
		{"%41%4g", "", "%41%4"},
		{"%%41", "", "%"},
	}
	for _, tt := range tests {
		got, err := Unescape(tt.in)
		if tt.at == "" {
			if err != nil || got != tt.want {
				t.Errorf("Unescape(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Offset != len(tt.at) || e.Input != tt.in || !strings.Contains(e.Reason, "percent-encoding") {
			t.Errorf("Unescape(%q) = %q, %v; want an error at %d", tt.in, got, err, len(tt.at))
		}
	}
}
