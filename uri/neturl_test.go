package uri

import (
	"math/rand"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestToURL(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want url.URL
	}{
		{"HTTP://u:p%40w@Example.com:8080/a%2Fb/c?x=1#f%20g", url.URL{
			Scheme: "http", User: url.UserPassword("u", "p@w"), Host: "Example.com:8080",
			Path: "/a/b/c", RawPath: "/a%2Fb/c", RawQuery: "x=1", Fragment: "f g"}},
		{"mailto:a@b?subject=x", url.URL{Scheme: "mailto", Opaque: "a@b", RawQuery: "subject=x"}},
		{"urn:isbn:0-395", url.URL{Scheme: "urn", Opaque: "isbn:0-395"}},
		{"http://a/?", url.URL{Scheme: "http", Host: "a", Path: "/", ForceQuery: true}},
		{"file:///etc/hosts", url.URL{Scheme: "file", Path: "/etc/hosts", OmitHost: false}},
		{"http://[2001:db8::1]:80", url.URL{Scheme: "http", Host: "[2001:db8::1]:80"}},
		{"http://caf%C3%A9.fr/", url.URL{Scheme: "http", Host: "café.fr", Path: "/"}},
		{"//a/b", url.URL{Host: "a", Path: "/b"}},
		{"../a?b", url.URL{Path: "../a", RawQuery: "b"}},
	} {
		got, err := MustParseReference(tt.in).ToURL()
		if err != nil || !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("ToURL(%q) = %#v, %v\nwant %#v", tt.in, got, err, tt.want)
		}
	}
	// What net/url refuses.
	for _, tt := range []struct {
		in string
		at int
	}{
		{"http://%41/", 7},
		{"http://a%2fb/", 8},
		{"http://u@%7F/", 9},
		{"http://[v1.x]/", 7},
		{"http://[V1a.b:c]:80/", 7},
	} {
		got, err := MustParseReference(tt.in).ToURL()
		e, ok := err.(*Error)
		if got != nil || !ok || e.Input != tt.in || e.Offset != tt.at {
			t.Errorf("ToURL(%q) = %v, %v; want an error at byte %d", tt.in, got, err, tt.at)
		}
		if _, err := url.Parse(tt.in); err == nil {
			t.Errorf("net/url takes %q, which ToURL refuses", tt.in)
		}
	}
	// A zone identifier, from a Parser that lets it in.
	u, _ := Parser{AllowZoneID: true}.Parse("http://[fe80::1%25eth0]:8/")
	if v, err := u.ToURL(); err != nil || v.Host != "[fe80::1%eth0]:8" || v.Hostname() != "fe80::1%eth0" {
		t.Errorf("ToURL(%q) = %#v, %v", u, v, err)
	}
}

func TestFromURL(t *testing.T) {
	for _, tt := range []struct {
		in   *url.URL
		want string
		err  int // offset of the expected error in in.String(), or -1
	}{
		{&url.URL{Scheme: "https", Host: "example.com", Path: "/a b", RawQuery: "q=1"}, "https://example.com/a%20b?q=1", -1},
		{&url.URL{Scheme: "http", Host: "h", Path: "/", ForceQuery: true}, "http://h/?", -1},
		{&url.URL{Scheme: "http", Host: "h", Path: "/", RawQuery: ""}, "http://h/", -1},
		{&url.URL{Scheme: "http", Host: "h", Fragment: ""}, "http://h", -1},
		{&url.URL{Path: "a:b"}, "./a:b", -1},
		{&url.URL{Scheme: "http", Host: "h", User: url.UserPassword("me", "p:w@")}, "http://me:p%3Aw%40@h", -1},
		{&url.URL{Scheme: "http", Host: "héllo", Path: "/x"}, "http://h%C3%A9llo/x", -1},
		{&url.URL{Scheme: "mailto", Opaque: "a@b c"}, "", 10},
		{&url.URL{Scheme: "http", Host: "h", Path: "/", RawQuery: "a b"}, "", 11},
		{&url.URL{Scheme: "http", Host: "[fe80::1%eth0]", Path: "/"}, "", 15},
		{&url.URL{Scheme: "1x", Host: "h"}, "", 2}, // "1x://h" reads as a relative path
		{nil, "", 0},
	} {
		got, err := FromURL(tt.in)
		if tt.err >= 0 {
			e, ok := err.(*Error)
			if !ok || e.Offset != tt.err || tt.in != nil && e.Input != tt.in.String() {
				t.Errorf("FromURL(%v) = %q, %v; want an error at byte %d", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got.String() != tt.want {
			t.Errorf("FromURL(%v) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// netURLRefuses reports whether ToURL must refuse u (see its doc).
func netURLRefuses(u URI) bool {
	if u.HostKind() == IPvFuture {
		return true
	}
	h := u.Host()
	for i := 0; i+2 < len(h); i++ {
		if h[i] == '%' && unhex(h[i+1]) < 8 && h[i+1:i+3] != "25" {
			return true
		}
	}
	return false
}

// checkNetURL checks ToURL and FromURL on u against what ToURL's doc says.
func checkNetURL(t *testing.T, u URI) {
	t.Helper()
	v, err := u.ToURL()
	if netURLRefuses(u) != (err != nil) {
		t.Fatalf("ToURL(%q) = %v, %v", u, v, err)
	}
	if err != nil {
		checkEditError(t, err)
		return
	}
	w, err := FromURL(v)
	if u.has(hasZone) {
		if err == nil {
			t.Fatalf("FromURL(%q) takes a zone identifier", v)
		}
		w, err = Parser{AllowZoneID: true}.ParseReference(v.String())
	}
	if err != nil {
		t.Fatalf("FromURL(ToURL(%q)) = %v, from %#v", u, err, v)
	}
	want, got := u.parts(), w.parts()
	want.scheme = strings.ToLower(want.scheme)
	if u.HasFragment() && u.Fragment() == "" {
		want.flags &^= hasFragment
	}
	if u.HasAuthority() && u.Authority() == "" && u.Path() == "" {
		want.flags &^= hasAuthority
	}
	if w.DecodedUserinfo() != u.DecodedUserinfo() || w.DecodedHost() != u.DecodedHost() {
		t.Fatalf("FromURL(ToURL(%q)) = %q: userinfo or host changed", u, w)
	}
	want.userinfo, got.userinfo, want.host, got.host = "", "", "", ""
	if got != want {
		t.Fatalf("FromURL(ToURL(%q)) = %q\n got %+v\nwant %+v", u, w, got, want)
	}
}

// TestNetURLRoundTrip runs checkNetURL on URIs made of fragments, with a
// fixed seed.
func TestNetURLRoundTrip(t *testing.T) {
	tokens := []string{
		"a", "B", "v", "0", "1", "25", "255", ".", "..", "/", "//", "?", "#", "@", ":", "::",
		"%41", "%2e", "%2F", "%25", "%C3%A9", "%80", "%3A", "%40", "%3F", "%23", "%ff",
		"-", "_", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=",
		"http:", "HTTP:", "foo:", "mailto:", "//a", "//@", "//a:", "//a:80", "//u:p@h",
		"1.2.3.4", "[::1]", "[v1.x]", "[::ffff:1.2.3.4]", "[fe80::1%25eth0]", "./", "../",
	}
	rng := rand.New(rand.NewSource(3986))
	n := 100000
	if testing.Short() {
		n = 10000
	}
	var b strings.Builder
	for range n {
		b.Reset()
		for k := rng.Intn(8); k > 0; k-- {
			b.WriteString(tokens[rng.Intn(len(tokens))])
		}
		if u, err := (Parser{AllowZoneID: true}).ParseReference(b.String()); err == nil {
			checkNetURL(t, u)
		}
	}
}

func FuzzNetURL(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		if u, err := (Parser{AllowZoneID: true}).ParseReference(s); err == nil {
			checkNetURL(t, u)
		}
		// Whatever net/url makes of s, FromURL gives a URI or an *Error.
		if v, err := url.Parse(s); err == nil {
			if w, err := FromURL(v); err != nil {
				checkParseError(t, v.String(), err)
			} else if w.String() != v.String() {
				t.Fatalf("FromURL(%q) = %q", v, w)
			}
		}
	})
}
