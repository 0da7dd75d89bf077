package uri

import (
	"errors"
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
	// An IPv6 address with its brackets is the same address.
	{Parts{Scheme: "http", Host: "[::1]"}, "http://[::1]"},
	{Parts{Scheme: "http", Host: "[FE80::1]", Port: "8080"}, "http://[FE80::1]:8080"},
	{Parts{Scheme: "http", Host: "[v7.x:y]"}, "http://[v7.x:y]"},
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
		kind   error
	}{
		{Parts{Scheme: "1http", Host: "a"}, "start with a letter", ErrInvalidScheme},
		{Parts{Scheme: "-"}, "start with a letter", ErrInvalidScheme},
		{Parts{Scheme: "ht tp"}, "invalid space in scheme", ErrInvalidScheme},
		{Parts{Scheme: "a_b"}, "invalid character '_' in scheme", ErrInvalidScheme},
		{Parts{Scheme: "http", Host: "a", Port: "8x"}, "port is not a number", ErrInvalidPort},
		{Parts{Scheme: "http", Host: "a", Port: "-1"}, "port is not a number", ErrInvalidPort},
		{Parts{Scheme: "http", Host: "a", Path: "p"}, "must be empty or start with '/'", ErrInvalidPath},
		{Parts{HasAuthority: true, Path: "p"}, "must be empty or start with '/'", ErrInvalidPath},
		{Parts{Scheme: "foo", Path: "//p"}, `cannot start with "//"`, ErrInvalidPath},
		{Parts{Path: "//p"}, `cannot start with "//"`, ErrInvalidPath},
		{Parts{Scheme: "http", Host: "[v7.x]]"}, "after the IP literal", ErrInvalidHost},
		{Parts{Scheme: "http", Host: "[v7.x]a]"}, "after the IP literal", ErrInvalidHost},
		{Parts{Scheme: "http", Host: "[vx]"}, "invalid IPvFuture", ErrInvalidHost},
		{Parts{Scheme: "http", Host: "[v7.]"}, "invalid IPvFuture", ErrInvalidHost},
		// A host never silently becomes another: IP literals that are not
		// quite one, zone identifiers (RFC 9844), a host with a port.
		{Parts{Scheme: "http", Host: "fe80::1%eth0"}, "zone identifiers are not allowed", ErrInvalidHost},
		{Parts{Scheme: "http", Host: "[fe80::1%25eth0]"}, "zone identifiers are not allowed", ErrInvalidHost},
		{Parts{Scheme: "http", Host: "[::1"}, "unclosed IP-literal", ErrInvalidHost},
		{Parts{Scheme: "http", Host: "[::1]x"}, "after the IP literal", ErrInvalidHost},
		{Parts{Scheme: "http", Host: "[a.b]"}, "invalid IPv6", ErrInvalidHost},
		{Parts{Scheme: "http", Host: "::1]x"}, "not an IPv6 address", ErrInvalidHost},
		{Parts{Scheme: "http", Host: "a]"}, "only around an IP literal", ErrInvalidHost},
		{Parts{Scheme: "http", Host: "example.com:8080"}, "the port goes in Parts.Port", ErrInvalidHost},
		{Parts{Scheme: "http", Host: "1:2"}, "the port goes in Parts.Port", ErrInvalidHost},
	}
	for _, tt := range tests {
		u, err := Build(tt.p)
		if err == nil || !strings.Contains(err.Error(), tt.reason) || u != (URI{}) {
			t.Errorf("Build(%+v) = %q, %v; want an error with %q", tt.p, u, err, tt.reason)
		}
		// Every error of the package is an *Error with a kind, its Input
		// the part at fault and its Offset inside it.
		var e *Error
		if !errors.As(err, &e) || e.Kind != tt.kind || e.Offset < 0 || e.Offset > len(e.Input) ||
			e.Input != tt.p.Scheme && e.Input != tt.p.Host && e.Input != tt.p.Port && e.Input != tt.p.Path {
			t.Errorf("Build(%+v): %#v, want an *Error of kind %v", tt.p, err, tt.kind)
		}
		if b, err := AppendBuild([]byte("x"), tt.p); err == nil || string(b) != "x" {
			t.Errorf("AppendBuild(%+v) = %q, %v", tt.p, b, err)
		}
		if !buildShouldFail(tt.p) {
			t.Errorf("buildShouldFail(%+v) is false", tt.p)
		}
	}
}
