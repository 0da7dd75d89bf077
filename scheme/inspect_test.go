package scheme

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"
)

func TestInspect(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"http://example.com/", nil},
		{"ftp://cnn.example.com&story=breaking_news@10.0.0.1/top_story.htm", []string{"userinfo"}}, // RFC 3986 §7.6
		{"http://@h/", []string{"userinfo"}},
		{"http://a:b@h/", []string{"password", "userinfo"}},
		{"http://a%3Ab@h/", []string{"userinfo"}},
		{"http://0x7f.1/", []string{"rare-ip"}},
		{"http://017700000001/", []string{"rare-ip"}},
		{"http://%30x7f.1/", []string{"rare-ip"}},
		{"http://1.2.3.4/", nil},
		{"http://1.2.3.4.5/", nil},
		{"http://h:25/", []string{"port-mismatch"}},
		{"http://h:0080/", nil},
		{"http://h:00000000000000000000000025/", []string{"port-mismatch"}},
		{"http://h:99999999999999999999/", nil},
		{"HTTPS://h:80/", []string{"port-mismatch"}},
		{"mailto:a@b", nil},
		{"xyz://h:25/", nil},
		{"//h:25/", nil},
		{"http://h/%0a", []string{"escaped-control"}},
		{"http://h/?%1F", []string{"escaped-control"}},
		{"http://h/#%7F", []string{"escaped-control"}},
		{"http://h/%80%20", nil},
		{"http://h/a/.", []string{"dot-segments"}},
		{"http://h/%2E%2e/", []string{"dot-segments"}},
		{"http://h/...", nil},
		{"a/../b", nil},
		{"http://u:p@0:21/..?%0d", []string{"dot-segments", "escaped-control", "password", "port-mismatch", "rare-ip", "userinfo"}},
	}
	for _, tt := range tests {
		ws, err := InspectString(tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		got := Codes(ws)
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.in, got, tt.want)
		}
		for _, w := range ws {
			if w.Message == "" || !strings.Contains(w.Message, "RFC 3986") {
				t.Errorf("%s: %s has message %q", tt.in, w.Code, w.Message)
			}
		}
	}
	if _, err := InspectString("http://a b/"); err == nil {
		t.Error("invalid URI inspected")
	}
}

func TestRareIPMessage(t *testing.T) {
	ws, _ := InspectString("http://0x7f.1/")
	if len(ws) != 1 || ws[0].Addr != netip.MustParseAddr("127.0.0.1") || !strings.Contains(ws[0].Message, "127.0.0.1") {
		t.Errorf("rare-ip warning: %+v", ws)
	}
}

func TestWHATWGIPv4(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0x7f.0.0.1", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"0x7F000001", "127.0.0.1"},
		{"127.0.0.1.", "127.0.0.1"},
		{"0", "0.0.0.0"},
		{"0x", "0.0.0.0"},
		{"00", "0.0.0.0"},
		{"4294967295", "255.255.255.255"},
		{"1.16777215", "1.255.255.255"},
		{"1.2.65535", "1.2.255.255"},
		{"4294967296", ""},
		{"1.16777216", ""},
		{"1.2.3.256", ""},
		{"256.1.1.1", ""},
		{"1.2.3.4.5", ""},
		{"1..2", ""},
		{".", ""},
		{"", ""},
		{"09", ""},
		{"0xg", ""},
		{"example.com", ""},
		{"1.2.3.4..", ""},
		{"99999999999999999999999", ""},
	}
	for _, tt := range tests {
		a, ok := WHATWGIPv4(tt.in)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tt.want {
			t.Errorf("WHATWGIPv4(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
