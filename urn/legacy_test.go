package urn

import (
	"errors"
	"strings"
	"testing"
)

func TestParseLegacy(t *testing.T) {
	tests := []struct {
		in   string
		want Legacy
	}{
		{"<URN:ASCII:IANA:merit.edu:mrt\\:2345>", Legacy{"ASCII", "IANA", "merit.edu", "mrt:2345"}},
		{"<URN::ISBN_Publisher_ID:0-395:book_1>", Legacy{"", "ISBN_Publisher_ID", "0-395", "book_1"}},
		{"<URN:ascii:issn:1046-8188:vol\\>1\\\\x\\ y>", Legacy{"ascii", "issn", "1046-8188", "vol>1\\x y"}},
		{"<URN::IANA:a@b:x.y-z_w>", Legacy{"", "IANA", "a@b", "x.y-z_w"}},
	}
	for _, tt := range tests {
		l, err := ParseLegacy(tt.in)
		if err != nil || l != tt.want {
			t.Errorf("ParseLegacy(%q) = %+v, %v; want %+v", tt.in, l, err, tt.want)
			continue
		}
		if got := l.String(); got != tt.in {
			t.Errorf("String() = %q, want %q", got, tt.in)
		}
		if l.Validate() != nil {
			t.Errorf("Validate(%+v) failed", l)
		}
	}
}

func TestParseLegacyErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		reason string
	}{
		{"URN:ASCII:IANA:a:b", 0, `start with "<URN:"`},
		{"<URL:ASCII:IANA:a:b>", 3, `start with "<URN:"`},
		{"<URN:EBCDIC:IANA:a:b>", 5, "unknown encoding"},
		{"<URN::DNS:a:b>", 6, "unknown scheme identifier"},
		{"<URN::IANA:a:b", 14, `missing closing ">"`},
		{"<URN::IANA:a>", 12, "opaque string is missing"},
		{"<URN::IANA::b>", 11, "empty authority identifier"},
		{"<URN::IANA:a:>", 13, "empty opaque string"},
		{"<URN::IANA:a:b:c>", 14, `unescaped ":" in opaque`},
		{"<URN::IANA:a:b c>", 14, `unescaped " "`},
		{"<URN::IANA:a:b\\x>", 15, `may follow "\"`},
		{"<URN::IANA:a:b\\", 15, `"\" at end`},
		{"<URN::IANA:a:b%>", 14, "invalid character '%' in opaque string"},
		{"<URN::IANA:a:b>x", 15, `text after closing ">"`},
		{"<URN::IANA", 10, `missing ":" after scheme`},
	}
	for _, tt := range tests {
		_, err := ParseLegacy(tt.in)
		var e *Error
		if !errors.As(err, &e) || e.Offset != tt.offset || !strings.Contains(e.Reason, tt.reason) {
			t.Errorf("ParseLegacy(%q) = %v, want %q at %d", tt.in, err, tt.reason, tt.offset)
		}
	}
}

func TestLegacyEqual(t *testing.T) {
	a, _ := ParseLegacy("<URN::IANA:merit.edu:MRT\\:2345>")
	b, _ := ParseLegacy("<URN:ascii:iana:merit.edu:mrt\\:2345>")
	c, _ := ParseLegacy("<URN::IANA:MERIT.EDU:mrt\\:2345>")
	if !a.Equal(b) || !b.Equal(a) {
		t.Error("opaque strings and keywords should compare case-insensitively, empty encoding as ASCII")
	}
	if a.Equal(c) {
		t.Error("authority identifiers compare exactly")
	}
}
