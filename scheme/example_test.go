package scheme_test

import (
	"fmt"

	"github.com/urikit/urikit/scheme"
	"github.com/urikit/urikit/uri"
)

func ExampleParse() {
	name, fields, err := scheme.Parse("ftp://anon:secret@ftp.example.com/pub/%2Fetc/motd;type=a")
	if err != nil {
		panic(err)
	}
	fmt.Println(name)
	for _, f := range fields {
		fmt.Printf("%-9s %#v\n", f.Name, f.Value)
	}
	// Output:
	// ftp
	// user      "anon"
	// password  "secret"
	// host      "ftp.example.com"
	// port      21
	// path      "pub//etc/motd"
	// typecode  "a"
}

func ExampleParseGopher() {
	g, err := scheme.ParseGopher(uri.MustParse("gopher://gopher.example.org/7search%09urikit%09+"))
	if err != nil {
		panic(err)
	}
	fmt.Printf("type %s, selector %q, search %q, gopher+ %q, port %d\n", g.Type, g.Selector, g.Search.Value, g.GopherPlus.Value, g.Port)
	// Output: type 7, selector "search", search "urikit", gopher+ "+", port 70
}

func ExampleMailto_URI() {
	m := scheme.Mailto{
		To:      []string{"alice@example.org", "bob@example.net"},
		Headers: []scheme.Header{{Name: "subject", Value: "Grüße, café?"}},
		Body:    scheme.Some("line 1\r\nline 2"),
	}
	u, err := m.URI()
	if err != nil {
		panic(err)
	}
	fmt.Println(u)
	back, _ := scheme.ParseMailto(u)
	fmt.Println(back.To, back.Headers[0].Value)
	// Output:
	// mailto:alice@example.org,bob@example.net?subject=Gr%C3%BC%C3%9Fe,%20caf%C3%A9%3F&body=line%201%0D%0Aline%202
	// [alice@example.org bob@example.net] Grüße, café?
}

func ExampleFileURIFromPath() {
	for _, p := range []struct {
		path  string
		style scheme.PathStyle
	}{
		{"/home/me/notes.txt", scheme.Unix},
		{`C:\Users\me\notes.txt`, scheme.Windows},
		{`\\server\share\notes.txt`, scheme.Windows},
	} {
		u, err := scheme.FileURIFromPath(p.path, p.style)
		if err != nil {
			panic(err)
		}
		back, _ := scheme.OSPathFromURI(u, p.style)
		fmt.Println(u, back)
	}
	// Output:
	// file:///home/me/notes.txt /home/me/notes.txt
	// file:///C:/Users/me/notes.txt C:\Users\me\notes.txt
	// file://server/share/notes.txt \\server\share\notes.txt
}

func ExampleInspect() {
	u := uri.MustParse("http://www.example.com&login=1@0x7f.1:25/a/%2e%2e/x%0D%0A")
	for _, w := range scheme.Inspect(u) {
		fmt.Println(w.Code)
	}
	// Output:
	// dot-segments
	// escaped-control
	// port-mismatch
	// rare-ip
	// userinfo
}

func ExampleLookup() {
	s, _ := scheme.Lookup("gopher")
	info := s.Info()
	fmt.Println(info.Name, info.DefaultPort, info.Hierarchical, info.RFC)
	// Output: gopher 70 false RFC 4266
}
