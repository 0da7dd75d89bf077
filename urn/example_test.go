package urn_test

import (
	"fmt"

	"github.com/urikit/urikit/urn"
)

func ExampleParse() {
	u, err := urn.Parse("URN:EXAMPLE:a123%2cz456?+CCResolve:cc=uk#p2")
	if err != nil {
		panic(err)
	}
	r, _ := u.RComponent()
	f, _ := u.FComponent()
	fmt.Println(u.NID(), u.NSS(), u.DecodedNSS())
	fmt.Println(r, f)
	fmt.Println(u.CanonicalString())

	_, err = urn.Parse("urn:ab-:x")
	fmt.Println(err)
	// Output:
	// EXAMPLE a123%2cz456 a123,z456
	// CCResolve:cc=uk p2
	// urn:example:a123%2Cz456
	// urn: NID ends with "-" at byte 7 of "urn:ab-:x"
}

func ExampleURN_Equal() {
	a := urn.MustParse("urn:example:a123,z456")
	fmt.Println(a.Equal(urn.MustParse("URN:EXAMPLE:a123,z456?=xyz")))
	fmt.Println(a.Equal(urn.MustParse("urn:example:A123,z456")))
	fmt.Println(urn.MustParse("urn:example:%2c").Equal(urn.MustParse("urn:example:%2C")))
	// Output:
	// true
	// false
	// true
}

func ExampleURN_Key() {
	for _, s := range []string{"urn:ISBN:0-395-36341-1", "urn:isbn:9780395363416", "URN:UUID:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6"} {
		fmt.Println(urn.MustParse(s).Key())
	}
	c := urn.Compare(urn.MustParse("urn:ISBN:0-395-36341-1"), urn.MustParse("urn:isbn:9780395363416"), urn.NamespaceLevel)
	fmt.Println(c.Equal, c.Rule)
	// Output:
	// urn:isbn:9780395363416
	// urn:isbn:9780395363416
	// urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6
	// true isbn (RFC 3187): hyphens ignored, "x" equals "X" (RFC 3187 §3.2); a valid ISBN-10 compared as its ISBN-13; both give key urn:isbn:9780395363416
}

func ExampleClassifyNID() {
	for _, nid := range []string{"isbn", "urn-7", "X-foo", "xn--abc", "urn", "foo"} {
		c, _ := urn.ClassifyNID(nid)
		fmt.Println(nid, c, c.Warn())
	}
	// Output:
	// isbn formal false
	// urn-7 informal false
	// X-foo experimental true
	// xn--abc reserved true
	// urn reserved true
	// foo unregistered true
}

func ExampleParseRequest() {
	// The 2012 draft's form: a plain query on a reference to a URN.
	r, _ := urn.ParseRequest("urn:isbn:0-395-36341-1?s=I2L&c=ToC")
	svc, _ := r.Directives.Service()
	comp, _ := r.Directives.Component()
	fmt.Println(r.URN, r.Draft, svc, comp)

	// The same inside an RFC 8141 r-component; a repeated keyword is ignored.
	r, _ = urn.ParseRequest("urn:isbn:0-395-36341-1?+s=I2L&c=ToC&s=I2R")
	_, ok := r.Directives.Service()
	fmt.Println(r.Draft, ok, r.Directives.Ignored)
	// Output:
	// urn:isbn:0-395-36341-1 true I2L ToC
	// false false [s]
}

func ExampleParseLegacy() {
	l, err := urn.ParseLegacy(`<URN::IANA:merit.edu:mrt\:2345>`)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q %q %q %q\n", l.Encoding, l.Scheme, l.Authority, l.Opaque)
	fmt.Println(l)
	m, _ := urn.ParseLegacy(`<URN:ASCII:IANA:merit.edu:MRT\:2345>`)
	fmt.Println(l.Equal(m))

	_, err = urn.ParseLegacy(`<URN::DNS:merit.edu:x>`)
	fmt.Println(err)
	// Output:
	// "" "IANA" "merit.edu" "mrt:2345"
	// <URN::IANA:merit.edu:mrt\:2345>
	// true
	// urn: unknown scheme identifier "DNS" (want IANA, ISBN_Publisher_ID or ISSN) at byte 6 of "<URN::DNS:merit.edu:x>"
}
