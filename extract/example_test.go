package extract_test

import (
	"fmt"
	"strings"

	"github.com/urikit/urikit/extract"
)

func ExampleAll() {
	text := `Yes, Jim, I found it under "http://www.w3.org/Addressing/",
but you can probably pick it up from <ftp://foo.example.
com/rfc/>.  Note: see (http://en.wikipedia.org/wiki/URI_(disambiguation)).`
	for _, m := range extract.All(text) {
		fmt.Printf("line %d, offset %d, wrapper %q: %s\n", m.Line, m.Offset, m.Wrapper, m.URI)
	}
	// Output:
	// line 1, offset 28, wrapper "\"\"": http://www.w3.org/Addressing/
	// line 2, offset 98, wrapper "<>": ftp://foo.example.com/rfc/
	// line 3, offset 140, wrapper "": http://en.wikipedia.org/wiki/URI_(disambiguation)
}

func ExampleScanner() {
	r := strings.NewReader("Write to mailto:a@example.org, read news:comp.lang.go. Note: foo.com:8080 is no URI.")
	sc := extract.NewScanner(r, extract.Options{})
	for sc.Scan() {
		fmt.Println(sc.Match().URI)
	}
	if err := sc.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// mailto:a@example.org
	// news:comp.lang.go
}

func ExampleCleanUserInput() {
	for _, in := range []string{
		"<URL: www.b\u00fccher.de/stra\u00dfe?q=a b>",
		"example.com/x",
	} {
		u, err := extract.CleanUserInput(in)
		if err != nil {
			fmt.Println("refused:", err)
			continue
		}
		fmt.Println(u)
	}
	// Output:
	// http://www.xn--bcher-kva.de/stra%C3%9Fe?q=a%20b
	// refused: uri: no scheme, and not an abbreviated form (www.… or ftp.…, RFC 3986 draft Appendix F); write the scheme (http://, https://, …) at byte 0 of "example.com/x"
}
