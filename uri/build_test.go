package uri

import (
	"strings"
	"testing"
)

var buildTests = []struct {
	p    Parts
	want string
}{
	{Parts{Scheme: "http", Host: "example.com", Port: "8080", Path: "/a b/c", Query: "q=1&r=2", Fragment: "frag"},
		"http://example.com:8080/a%20b/c?q=1&r=2#frag"},
	{Parts{Scheme: "ftp", Userinfo: "user:pa@ss", Host: "ftp.example.org", Path: "/pub/f.txt"},
		"ftp://user:pa%40ss@ftp.example.org/pub/f.txt"},
	{Parts{Scheme: "http", Host: "::1", Port: "80", Path: "/"}, "http://[::1]:80/"},
	{Parts{Scheme: "http", Host: "::ffff:1.2.3.4"}, "http://[::ffff:1.2.3.4]"},
	{Parts{Scheme: "http", Host: "[v7.x:y]"}, "http://[v7.x:y]"},
	{Parts{Scheme: "http", Host: "1.2.3.4"}, "http://1.2.3.4"},
	{Parts{Scheme: "http", Host: "Ex%am ple"}, "http://Ex%25am%20ple"},
	// Not an IPv6 address: a reg-name, escaped.
	{Parts{Scheme: "http", Host: "::1]x"}, "http://%3A%3A1%5Dx"},
	{Parts{Scheme: "http", Host: "1:2"}, "http://1%3A2"},
	{Parts{Scheme: "http", Host: "[::1]"}, "http://%5B%3A%3A1%5D"},
	// Empty but present components.
	{Parts{Scheme: "file", HasAuthority: true, Path: "/etc/hosts"}, "file:///etc/hosts"},
	{Parts{Scheme: "http", Host: "a", Path: "/", HasQuery: true, HasFragment: true}, "http://a/?#"},
	{Parts{Scheme: "http", HasUserinfo: true, Host: "a"}, "http://@a"},
	{Parts{Scheme: "http", Port: "0"}, "http://:0"},
	{Parts{HasAuthority: true}, "//"},
	// No authority.
	{Parts{Scheme: "mailto", Path: "a@b.c", Query: "subject=hi there&x=#"}, "mailto:a@b.c?subject=hi%20there&x=%23"},
	{Parts{Scheme: "urn", Path: "isbn:0451450523"}, "urn:isbn:0451450523"},
	{Parts{Scheme: "s"}, "s:"},
	{Parts{Scheme: "s", Path: "/a:b/c"}, "s:/a:b/c"},
	// Relative references: a colon in the first segment is escaped (§4.2).
	{Parts{Path: "a:b/c:d"}, "a%3Ab/c:d"},
	{Parts{Path: "/a:b"}, "/a:b"},
	{Parts{Path: "?#%", Query: "?/", Fragment: "#"}, "%3F%23%25??/#%23"},
	{Parts{Host: "\u00e9.example", Path: "/\u00f6"}, "//%C3%A9.example/%C3%B6"},
	{Parts{Query: ""}, ""},
	{Parts{}, ""},
}

func TestBuild(t *testing.T) {
	for _, tt := range buildTests {
		u, err := Build(tt.p)
		if err != nil {
			t.Errorf("Build(%+v): %v", tt.p, err)
			continue
		}
		if u.String() != tt.want {
			t.Errorf("Build(%+v) = %q, want %q", tt.p, u, tt.want)
		}
		checkBuilt(t, tt.p, u)
		if b, err := AppendBuild([]byte("x"), tt.p); err != nil || string(b) != "x"+tt.want {
			t.Errorf("AppendBuild(%+v) = %q, %v", tt.p, b, err)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		p      Parts
		reason string
	}{
		{Parts{Scheme: "1http", Host: "a"}, "start with a letter"},
		{Parts{Scheme: "-"}, "start with a letter"},
		{Parts{Scheme: "ht tp"}, "invalid character in scheme"},
		{Parts{Scheme: "a_b"}, "invalid character in scheme"},
		{Parts{Scheme: "http", Host: "a", Port: "8x"}, "port is not a number"},
		{Parts{Scheme: "http", Host: "a", Port: "-1"}, "port is not a number"},
		{Parts{Scheme: "http", Host: "a", Path: "p"}, "must be empty or start with '/'"},
		{Parts{HasAuthority: true, Path: "p"}, "must be empty or start with '/'"},
		{Parts{Scheme: "foo", Path: "//p"}, `cannot start with "//"`},
		{Parts{Path: "//p"}, `cannot start with "//"`},
		{Parts{Scheme: "http", Host: "[v7.x]]"}, "invalid IPvFuture"},
		{Parts{Scheme: "http", Host: "[v7.x]a]"}, "invalid IPvFuture"},
		{Parts{Scheme: "http", Host: "[vx]"}, "invalid IPvFuture"},
		{Parts{Scheme: "http", Host: "[v7.]"}, "invalid IPvFuture"},
	}
	for _, tt := range tests {
		u, err := Build(tt.p)
		if err == nil || !strings.Contains(err.Error(), tt.reason) || u != (URI{}) {
			t.Errorf("Build(%+v) = %q, %v; want an error with %q", tt.p, u, err, tt.reason)
		}
		if b, err := AppendBuild([]byte("x"), tt.p); err == nil || string(b) != "x" {
			t.Errorf("AppendBuild(%+v) = %q, %v", tt.p, b, err)
		}
		if !buildShouldFail(tt.p) {
			t.Errorf("buildShouldFail(%+v) is false", tt.p)
		}
	}
}
