package uri

import (
	"errors"
	"strings"
	"testing"
)

func TestParseUserInput(t *testing.T) {
	upper := WithHostMapper(func(h string) (string, error) {
		if strings.Contains(h, "!") {
			return "", errors.New("disallowed")
		}
		return "xn--test", nil
	})
	tests := []struct {
		in   string
		opts []UserInputOption
		want string // "" when refused
		off  int    // offset of the refusal
	}{
		{in: "http://example.com/", want: "http://example.com/"},
		{in: "  <http://example.com/>  ", want: "http://example.com/"},
		{in: `"http://example.com/"`, want: "http://example.com/"},
		{in: "'http://example.com/'", want: "http://example.com/"},
		{in: "\u201chttp://example.com/\u201d", want: "http://example.com/"},
		{in: "<URL:http://example.com/>", want: "http://example.com/"},
		{in: "URL: http://example.com/", want: "http://example.com/"},
		{in: "<http://www.ics.uci.edu/pub/\n   ietf/uri/historical.html#WARNING>", want: "http://www.ics.uci.edu/pub/ietf/uri/historical.html#WARNING"},
		{in: "http://example.com/multi-\n  part", want: "http://example.com/multi-part"},
		{in: "http://example.com/my file.pdf", want: "http://example.com/my%20file.pdf"},
		{in: "http://example.com/caf\u00e9?q=cr\u00e8me br\u00fbl\u00e9e#s\u00e9", want: "http://example.com/caf%C3%A9?q=cr%C3%A8me%20br%C3%BBl%C3%A9e#s%C3%A9"},
		{in: "http://example.com/a|b{c}", want: "http://example.com/a%7Cb%7Bc%7D"},
		{in: "http://example.com/#a#b", want: "http://example.com/#a%23b"},
		{in: "www.w3.org/Addressing/", want: "http://www.w3.org/Addressing/"},
		{in: "WWW.example.com", want: "http://WWW.example.com"},
		{in: "ftp.example.org/pub/a.txt", want: "ftp://ftp.example.org/pub/a.txt"},
		{in: "www.example.com:8080/x", want: "http://www.example.com:8080/x"},
		{in: "mailto:J\u00f6rg@example.com", want: "mailto:J%C3%B6rg@example.com"},
		{in: "urn:isbn:0451450523", want: "urn:isbn:0451450523"},
		{in: "http://b\u00fccher.example/", opts: []UserInputOption{upper}, want: "http://xn--test/"},
		{in: "http://u\u00e9@b\u00fccher.example:80/", opts: []UserInputOption{upper}, want: "http://u%C3%A9@xn--test:80/"},
		{in: "http://[::1]/a b", want: "http://[::1]/a%20b"},
		// refusals
		{in: "", off: 0},
		{in: "   ", off: 3},
		{in: "example.com/x", off: 0},
		{in: "localhost:8080", off: 0},
		{in: "example.com:8080/x", off: 0},
		{in: "//example.com/x", off: 0},
		{in: "http://exa mple.com/", off: 10},
		{in: "http://example.com/100%", off: 22},
		{in: "http://example.com/a\\b", off: 20},
		{in: "<http://example.com/", off: 0},
		{in: "http://example.com/>", off: 19},
		{in: "http://b\u00fccher.example/", off: 7},
		{in: "http://b\u00fccher!.example/", opts: []UserInputOption{upper}, off: 7},
		{in: "http://a@b@c/", off: 10},
		{in: "http://example.com/\x01", off: 19},
		{in: "http://example.com/\xff", off: 19},
		// Errors found once the text is cleaned point into the input too.
		{in: "http://example.com:8x/", off: 21},
		{in: "  <http://example.com:8x/>", off: 24},
		{in: "www.exa^mple.com/x", off: 7},
		{in: "http://ex\n  ample.com:8x/", off: 24},
		{in: "http://\u00e9\u00e9@a:8x/ b", off: 15},
		{in: "http://[::1/\u00e9", off: 11},
		// A "URL:" label broken across lines is no scheme (cleaning the
		// result again would drop it).
		{in: "<UR\nL:>", off: 1},
		{in: "U\nRL:http://a/", off: 0},
		{in: "http://a:1/ \u00e9 x", opts: []UserInputOption{WithHostMapper(func(string) (string, error) { return "", nil })}, want: "http://a:1/%20%C3%A9%20x"},
	}
	for _, tt := range tests {
		u, err := ParseUserInput(tt.in, tt.opts...)
		if tt.want == "" {
			var e *Error
			if err == nil {
				t.Errorf("ParseUserInput(%q) = %q, want a refusal", tt.in, u)
			} else if !errors.As(err, &e) || e.Offset != tt.off {
				t.Errorf("ParseUserInput(%q) error %v, want offset %d", tt.in, err, tt.off)
			}
			continue
		}
		if err != nil || u.String() != tt.want {
			t.Errorf("ParseUserInput(%q) = %q, %v; want %q", tt.in, u, err, tt.want)
			continue
		}
		if _, err := Parse(u.String()); err != nil {
			t.Errorf("%q: result does not parse: %v", tt.in, err)
		}
	}
}
