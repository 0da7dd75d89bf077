package uri_test

import (
	"errors"
	"fmt"

	"github.com/urikit/urikit/uri"
)

func ExampleParse() {
	u, err := uri.Parse("foo://user@example.com:8042/over/there?name=ferret#nose")
	if err != nil {
		panic(err)
	}
	fmt.Println(u.Scheme(), u.Userinfo(), u.Host(), u.HostKind(), u.Port())
	fmt.Println(u.Path(), u.Query(), u.Fragment())

	// A delimiter with nothing after it is an empty component, not a missing one.
	v := uri.MustParse("http://a/?")
	fmt.Println(v.HasQuery(), v.HasFragment())

	w := uri.MustParse("ldap://[2001:db8::7]/c=GB?objectClass?one")
	addr, _ := w.Addr()
	fmt.Println(w.Host(), w.HostKind(), addr)
	// Output:
	// foo user example.com reg-name 8042
	// /over/there name=ferret nose
	// true false
	// 2001:db8::7 ipv6 2001:db8::7
}

func ExampleParse_error() {
	_, err := uri.Parse("http://example.com/a%G1")
	var e *uri.Error
	if errors.As(err, &e) {
		fmt.Println(e.Offset, e.Reason)
	}
	fmt.Println(err)
	// Output:
	// 21 invalid percent-encoding ('%' must be followed by two hex digits)
	// uri: invalid percent-encoding ('%' must be followed by two hex digits) at byte 21 of "http://example.com/a%G1"
}

func ExampleURI_Resolve() {
	base := uri.MustParse("http://a/b/c/d;p?q")
	for _, ref := range []string{"g", "../g", "?y", "#s", "../../../g", "http:g"} {
		u, err := base.Resolve(uri.MustParseReference(ref))
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-12s %s\n", ref, u)
	}
	// Output:
	// g            http://a/b/c/g
	// ../g         http://a/b/g
	// ?y           http://a/b/c/d;p?y
	// #s           http://a/b/c/d;p?q#s
	// ../../../g   http://a/g
	// http:g       http:g
}

func ExampleURI_ResolveWith() {
	base := uri.MustParse("http://a/b/c/d;p?q")
	ref := uri.MustParse("http:g")
	u, _ := base.ResolveWith(ref, uri.SameSchemeIsRelative)
	fmt.Println(u)

	// RFC 2396 dropped the base's query and kept ".." segments that climb
	// above the root; the query is appended after the path is reduced.
	for _, r := range []string{"?y", "../../../g", "g?y/../x"} {
		u, _ := base.ResolveWith(uri.MustParseReference(r), uri.RFC2396)
		fmt.Println(u)
	}
	// The 1997 draft that became RFC 2396 reduced the query with the path.
	u, _ = base.ResolveWith(uri.MustParseReference("g?y/../x"), uri.Draft1997)
	fmt.Println(u)
	// Output:
	// http://a/b/c/g
	// http://a/b/c/?y
	// http://a/../g
	// http://a/b/c/g?y/../x
	// http://a/b/c/x
}

func ExampleURI_Normalize() {
	u := uri.MustParse("HTTP://User@Example.COM:80/a/./b/../%7euser/%3a?q#f")
	fmt.Println(u.Normalize(uri.Syntax))
	fmt.Println(u.Normalize(uri.SchemeBased))
	// Output:
	// http://User@example.com:80/a/~user/%3A?q#f
	// http://User@example.com/a/~user/%3A?q#f
}

func ExampleEqual() {
	a := uri.MustParse("example://a/b/c/%7Bfoo%7D")
	b := uri.MustParse("eXAMPLE://a/./b/../b/%63/%7bfoo%7d")
	fmt.Println(uri.Equal(a, b, uri.Simple), uri.Equal(a, b, uri.Syntax))

	ok, _ := uri.EqualStrings("http://example.com", "http://example.com:80/", uri.SchemeBased)
	fmt.Println(ok)
	// Output:
	// false true
	// true
}

func ExampleEscape() {
	fmt.Println(uri.Escape("a b/c?d", uri.ComponentPathSegment))
	fmt.Println(uri.Escape("a b/c?d", uri.ComponentPath))
	fmt.Println(uri.Escape("a b/c?d#é", uri.ComponentQuery))
	s, _ := uri.Unescape("caf%C3%A9%20au%20lait")
	fmt.Println(s)
	// Output:
	// a%20b%2Fc%3Fd
	// a%20b/c%3Fd
	// a%20b/c?d%23%C3%A9
	// café au lait
}

func ExampleBuild() {
	u, err := uri.Build(uri.Parts{
		Scheme:   "https",
		Userinfo: "me@home",
		Host:     "2001:db8::1",
		Port:     "8443",
		Path:     "/docs/read me.txt",
		Query:    "q=a&b",
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(u)
	fmt.Println(u.DecodedUserinfo(), u.DecodedPath())

	_, err = uri.Build(uri.Parts{Scheme: "http", Host: "a", Port: "eighty"})
	fmt.Println(err)
	// Output:
	// https://me%40home@[2001:db8::1]:8443/docs/read%20me.txt?q=a&b
	// me@home /docs/read me.txt
	// uri: port is not a number at byte 0 of "eighty"
}

func ExampleParser_allowZoneID() {
	const s = "http://[fe80::1%25eth0]:8080/"
	_, err := uri.Parse(s)
	fmt.Println(err)

	u, err := uri.Parser{AllowZoneID: true}.Parse(s)
	if err != nil {
		panic(err)
	}
	addr, _ := u.Addr()
	fmt.Println(u.Host(), addr, addr.Zone())
	// Output:
	// uri: IPv6 zone identifiers are not allowed in URIs (RFC 9844) at byte 15 of "http://[fe80::1%25eth0]:8080/"
	// fe80::1%25eth0 fe80::1%eth0 eth0
}
