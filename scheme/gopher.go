package scheme

import (
	"strings"
	"unicode/utf8"

	"github.com/urikit/urikit/uri"
)

func init() {
	register(Info{Name: "gopher", RFC: "RFC 4266", Title: "Gopher"},
		func(u uri.URI) (Fields, error) {
			g, err := ParseGopher(u)
			if err != nil {
				return nil, err
			}
			return g.Fields(), nil
		})
}

// Gopher is a gopher URL (RFC 4266 §2.1; RFC 1738 §3.4; the 1993 draft):
//
//	gopher://<host>:<port>/<gophertype><selector>%09<search>%09<gopher+_string>
type Gopher struct {
	Host string
	Port int
	// Type is the one-character Gopher item type; "1" (a directory) when
	// the gopher path is empty (RFC 4266 §2.1).
	Type string
	// Selector is the decoded selector string ("" for none).
	Selector string
	// Search follows the first %09 (RFC 4266 §2.2); GopherPlus the second
	// (§2.3), and may itself hold tabs (§2.9).
	Search, GopherPlus Opt
}

// ParseGopher reads a gopher URL. No character is reserved in the gopher
// path (RFC 4266 §2.1), so a '?' and what follows it belong to the
// selector (or the search or gopher+ string), not to a query.
func ParseGopher(u uri.URI) (Gopher, error) {
	const sch = "gopher"
	if _, err := checkScheme(u, sch); err != nil {
		return Gopher{}, err
	}
	host, port, err := hostPort(u, sch, DefaultPort(sch), false)
	if err != nil {
		return Gopher{}, err
	}
	g := Gopher{Host: host, Port: port, Type: "1"}
	p := u.Path()
	if p == "" {
		if u.HasQuery() {
			return Gopher{}, errField(sch, "selector", "a '?' needs a gopher path after \"/\"")
		}
		return g, nil
	}
	// The decoded path: a tab cannot be part of a selector (RFC 4266 §2.1),
	// so splitting after decoding is splitting at each %09.
	gp := decode(pathAndQuery(u)[1:])
	if gp == "" {
		return g, nil
	}
	parts := strings.SplitN(gp, "\t", 3)
	first := parts[0]
	if first == "" {
		return Gopher{}, errField(sch, "type", "missing before %09")
	}
	_, n := utf8.DecodeRuneInString(first)
	g.Type, g.Selector = first[:n], first[n:]
	if strings.ContainsAny(g.Selector, "\r\n") {
		return Gopher{}, errField(sch, "selector", "holds an encoded CR or LF (RFC 4266 §2.1)")
	}
	if len(parts) > 1 {
		g.Search = Some(parts[1])
	}
	if len(parts) > 2 {
		g.GopherPlus = Some(parts[2])
	}
	return g, nil
}

// Fields returns host, port, gtype, selector, search and gopherplus.
func (g Gopher) Fields() Fields {
	return Fields{{"host", g.Host}, {"port", g.Port}, {"gtype", g.Type}, {"selector", g.Selector},
		{"search", g.Search.value()}, {"gopherplus", g.GopherPlus.value()}}
}

// URI builds the gopher URL. Type defaults to "1"; a GopherPlus needs a
// Search (it may be empty, RFC 4266 §2.3).
func (g Gopher) URI() (uri.URI, error) {
	const sch = "gopher"
	if g.Host == "" {
		return uri.URI{}, errField(sch, "host", "empty")
	}
	if err := checkPort(sch, g.Port); err != nil {
		return uri.URI{}, err
	}
	typ := g.Type
	if typ == "" {
		typ = "1"
	}
	if utf8.RuneCountInString(typ) != 1 || strings.ContainsAny(typ, "\t\r\n") {
		return uri.URI{}, errField(sch, "type", "must be one character other than tab, CR or LF")
	}
	if strings.ContainsAny(g.Selector, "\t\r\n") {
		return uri.URI{}, errField(sch, "selector", "cannot hold a tab, CR or LF (RFC 4266 §2.1)")
	}
	if strings.Contains(g.Search.Value, "\t") {
		return uri.URI{}, errField(sch, "search", "cannot hold a tab: it would end the search")
	}
	if g.GopherPlus.Set && !g.Search.Set {
		return uri.URI{}, errField(sch, "gopherplus", "needs a search, even an empty one (RFC 4266 §2.3)")
	}
	var b strings.Builder
	b.WriteString("gopher:")
	buildAuthority(&b, Opt{}, Opt{}, g.Host, g.Port, DefaultPort(sch))
	b.WriteByte('/')
	b.WriteString(uri.Escape(typ, uri.ComponentPathSegment))
	b.WriteString(uri.Escape(g.Selector, uri.ComponentPath))
	if g.Search.Set {
		b.WriteString("%09")
		b.WriteString(uri.Escape(g.Search.Value, uri.ComponentPath))
	}
	if g.GopherPlus.Set {
		b.WriteString("%09")
		b.WriteString(uri.Escape(g.GopherPlus.Value, uri.ComponentPath))
	}
	return parseBuilt(sch, b.String())
}
