package uri_test

import (
	"fmt"
	"net/url"
	"slices"

	"github.com/urikit/urikit/uri"
)

func ExampleParseQuery() {
	ps, err := uri.ParseQuery("tag=go&tag=uri&q=caf%C3%A9+au+lait&empty")
	if err != nil {
		panic(err)
	}
	for _, p := range ps {
		fmt.Printf("%q=%q\n", p.Name, p.Value)
	}
	fmt.Println(ps.Get("q"), ps.Values("tag"), ps.Has("empty"))

	_, err = uri.ParseQuery("a=1 2")
	fmt.Println(err)
	// Output:
	// "tag"="go"
	// "tag"="uri"
	// "q"="café au lait"
	// "empty"=""
	// café au lait [go uri] true
	// uri: invalid space in query at byte 3 of "a=1 2"
}

func ExampleURI_QueryValue() {
	u := uri.MustParseReference("https://example.com/search?q=a%26b+c&page=2")
	q, _ := u.QueryValue("q")
	_, ok := u.QueryValue("lang")
	fmt.Printf("%q %v\n", q, ok)
	// Output:
	// "a&b c" false
}

func ExampleParams_Encode() {
	u := uri.MustParseReference("https://example.com/search?q=old#results")
	ps := u.QueryParams()
	ps.Set("q", "a&b c+d")
	ps.Add("lang", "fr")
	u, err := u.WithQuery(ps.Encode())
	if err != nil {
		panic(err)
	}
	fmt.Println(u)
	// Output:
	// https://example.com/search?q=a%26b+c%2Bd&lang=fr#results
}

func ExampleEscape_queryValue() {
	v := "a&b c+d"
	fmt.Println("?q=" + uri.Escape(v, uri.ComponentQueryValue))
	// ComponentQuery escapes for a whole query, where '&' and '+' keep
	// their meaning: as a value, this would be another query.
	fmt.Println("?q=" + uri.Escape(v, uri.ComponentQuery))
	// Output:
	// ?q=a%26b%20c%2Bd
	// ?q=a&b%20c+d
}

func ExampleURI_WithHost() {
	u := uri.MustParseReference("https://user@example.com:8443/a/b?x=1#top")
	v, err := u.WithHost("2001:db8::1")
	if err != nil {
		panic(err)
	}
	fmt.Println(v)
	v, _ = v.WithScheme("http")
	fmt.Println(v.WithoutPort().WithoutUserinfo().WithoutFragment())

	// A change that would change how the rest reads is refused.
	_, err = uri.MustParseReference("mailto:joe@example.com").WithHost("example.org")
	fmt.Println(err)
	// Output:
	// https://user@[2001:db8::1]:8443/a/b?x=1#top
	// http://[2001:db8::1]/a/b?x=1
	// uri: the path does not start with '/', so it cannot follow an authority at byte 7 of "mailto:joe@example.com"
}

func ExampleURI_PathSegments() {
	u := uri.MustParseReference("https://example.com/repos/a%2Fb/issues")
	fmt.Printf("%q\n", slices.Collect(u.PathSegments()))
	fmt.Println(u.DecodedPath()) // the %2F is lost here

	v, _ := u.WithPathSegments("repos", "c/d", "pulls")
	fmt.Println(v)
	// Output:
	// ["repos" "a/b" "issues"]
	// /repos/a/b/issues
	// https://example.com/repos/c%2Fd/pulls
}

func ExampleURI_JoinPath() {
	u := uri.MustParseReference("https://example.com/api/v1/?key=k")
	v, err := u.JoinPath("users", uri.Escape("ann/bob", uri.ComponentPathSegment), "../groups")
	if err != nil {
		panic(err)
	}
	fmt.Println(v)
	// Output:
	// https://example.com/api/v1/users/groups?key=k
}

func ExampleURI_Redacted() {
	u := uri.MustParseReference("postgres://app:s3cret@db.internal:5432/prod")
	fmt.Println(u.Redacted())
	// Output:
	// postgres://app:xxxxx@db.internal:5432/prod
}

func ExampleCompare() {
	var us []uri.URI
	for _, s := range []string{"https://b.example/", "http://a.example/x", "https://a.example/"} {
		us = append(us, uri.MustParseReference(s))
	}
	slices.SortFunc(us, uri.Compare)
	fmt.Println(us)
	// Output:
	// [http://a.example/x https://a.example/ https://b.example/]
}

func ExampleURI_ToURL() {
	u := uri.MustParseReference("HTTP://me@example.com/a%2Fb?#")
	v, err := u.ToURL()
	if err != nil {
		panic(err)
	}
	fmt.Println(v.Scheme, v.Path, v.RawPath, v.ForceQuery)
	fmt.Println(v) // net/url has no empty fragment

	_, err = uri.MustParseReference("http://%41/").ToURL()
	fmt.Println(err)
	// Output:
	// http /a/b /a%2Fb true
	// http://me@example.com/a%2Fb?
	// uri: net/url does not take a percent-encoded ASCII character in a host (decode it) at byte 7 of "http://%41/"
}

func ExampleFromURL() {
	v := &url.URL{Scheme: "https", Host: "example.com", Path: "/a b", RawQuery: "q=1"}
	u, err := uri.FromURL(v)
	fmt.Println(u, err)

	v.RawQuery = "q=1 2" // net/url writes RawQuery as it is
	_, err = uri.FromURL(v)
	fmt.Println(err)
	// Output:
	// https://example.com/a%20b?q=1 <nil>
	// uri: invalid space in query at byte 29 of "https://example.com/a%20b?q=1 2"
}
