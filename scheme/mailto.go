package scheme

import (
	"strings"
	"unicode/utf8"

	"github.com/urikit/urikit/uri"
)

func init() {
	register(Info{Name: "mailto", RFC: "RFC 6068", Title: "Internet mail address and message template"},
		func(u uri.URI) (Fields, error) {
			m, err := ParseMailto(u)
			if err != nil {
				return nil, err
			}
			return m.Fields(), nil
		})
}

// Header is one hfield of a mailto URI, decoded.
type Header struct{ Name, Value string }

// Mailto is a mailto URI (RFC 6068 §2):
//
//	mailtoURI = "mailto:" [ to ] [ hfields ]
//	to        = addr-spec *("," addr-spec )
//	hfields   = "?" hfield *( "&" hfield )
type Mailto struct {
	// To holds the addresses of the path and of every "to" hfield, in
	// order, decoded (RFC 6068 §2: mailto:a?to=b is mailto:a,b).
	To []string
	// Headers are the other hfields except "body", in order, names in
	// lower case (hfnames are case-insensitive, §2); of a name given more
	// than once only the first is kept (§2 leaves the choice open).
	Headers []Header
	// Body is the "body" pseudo header field.
	Body Opt
}

// Header returns the value of the named header (case-insensitive).
func (m Mailto) Header(name string) (string, bool) {
	name = strings.ToLower(name)
	for _, h := range m.Headers {
		if h.Name == name {
			return h.Value, true
		}
	}
	return "", false
}

// ParseMailto reads a mailto URI. Every decoded address and hfield must be
// UTF-8 (RFC 6068 §2 items 4 and 5, §5), each address an addr-spec with
// an "@", each hfield a name "=" value; a second unencoded "?" is the
// mistake RFC 6068 §6.1 shows as WRONG.
func ParseMailto(u uri.URI) (Mailto, error) {
	const sch = "mailto"
	if _, err := checkScheme(u, sch); err != nil {
		return Mailto{}, err
	}
	if u.HasAuthority() {
		return Mailto{}, errField(sch, "to", "a mailto URI has no \"//\" authority")
	}
	m := Mailto{To: []string{}}
	var err error
	if m.To, err = appendAddrs(m.To, u.Path(), "to"); err != nil {
		return Mailto{}, err
	}
	if u.HasQuery() && u.Query() != "" {
		q := u.Query()
		if i := strings.IndexByte(q, '?'); i >= 0 {
			return Mailto{}, errField(sch, "hfields", "a second \"?\" must be encoded as %3F (RFC 6068 §6.1)")
		}
		for _, hf := range strings.Split(q, "&") {
			if hf == "" {
				continue // "?a=b&" and "&&" are tolerated
			}
			k, v, ok := strings.Cut(hf, "=")
			if !ok {
				return Mailto{}, errField(sch, "hfields", "\""+decode(hf)+"\" has no \"=\" (hfield = hfname \"=\" hfvalue)")
			}
			name := strings.ToLower(decode(k))
			if !utf8.ValidString(name) {
				return Mailto{}, errField(sch, "hfields", "a header name is not UTF-8")
			}
			switch name {
			case "to":
				if m.To, err = appendAddrs(m.To, v, "to"); err != nil {
					return Mailto{}, err
				}
				continue
			}
			val := decode(v)
			if !utf8.ValidString(val) {
				return Mailto{}, errField(sch, name, "the decoded value is not UTF-8 (RFC 6068 §5)")
			}
			if name == "body" {
				if !m.Body.Set {
					m.Body = Some(val)
				}
				continue
			}
			if _, dup := m.Header(name); !dup {
				m.Headers = append(m.Headers, Header{name, val})
			}
		}
	}
	return m, nil
}

// appendAddrs splits a raw to-list at the commas outside quoted strings
// and checks each address.
func appendAddrs(to []string, raw, field string) ([]string, error) {
	if raw == "" {
		return to, nil
	}
	d := decode(raw)
	if !utf8.ValidString(d) {
		return nil, errField("mailto", field, "the decoded address is not UTF-8 (RFC 6068 §2)")
	}
	for _, a := range splitAddrs(d) {
		if a == "" {
			continue
		}
		if err := checkAddr(a); err != nil {
			return nil, errField("mailto", field, err.Error())
		}
		to = append(to, a)
	}
	return to, nil
}

// splitAddrs splits at the commas that are not inside a quoted string
// (RFC 5322 §3.2.4; a backslash quotes the next character there).
func splitAddrs(s string) []string {
	var out []string
	start, inQuote := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inQuote && c == '\\':
			i++
		case c == '"':
			inQuote = !inQuote
		case c == ',' && !inQuote:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

type addrError string

func (e addrError) Error() string { return string(e) }

// checkAddr checks the shape local-part "@" domain of an addr-spec.
func checkAddr(a string) error {
	at, inQuote := -1, false
	for i := 0; i < len(a); i++ {
		switch c := a[i]; {
		case inQuote && c == '\\':
			i++
		case c == '"':
			inQuote = !inQuote
		case c == '@' && !inQuote:
			at = i
		case c < 0x20 || c == 0x7f:
			return addrError("\"" + a + "\" holds a control character (RFC 6068 §2 item 2)")
		case !inQuote && (c == ' ' || c == '<' || c == '>' || c == ','):
			return addrError("\"" + a + "\" holds a space, an angle bracket or a comma outside a quoted string")
		}
	}
	if inQuote {
		return addrError("\"" + a + "\" has an unterminated quoted string")
	}
	if at <= 0 || at == len(a)-1 {
		return addrError("\"" + a + "\" is not an addr-spec (local-part \"@\" domain)")
	}
	return nil
}

// Fields returns to, headers and body.
func (m Mailto) Fields() Fields {
	to := m.To
	if to == nil {
		to = []string{}
	}
	h := make(map[string]string, len(m.Headers))
	for _, x := range m.Headers {
		if _, dup := h[x.Name]; !dup {
			h[x.Name] = x.Value
		}
	}
	return Fields{{"to", to}, {"headers", h}, {"body", m.Body.JSON()}}
}

// URI builds the mailto URI: the addresses in the path, then the headers,
// then the body, everything UTF-8 and percent-encoded as RFC 6068 §2 and §5
// ask (a space is %20, never "+"). Header names "to" and "body" belong in
// To and Body, and a name may appear once.
func (m Mailto) URI() (uri.URI, error) {
	const sch = "mailto"
	var b strings.Builder
	b.WriteString("mailto:")
	for i, a := range m.To {
		if err := checkAddr(a); err != nil {
			return uri.URI{}, errField(sch, "to", err.Error())
		}
		if !utf8.ValidString(a) {
			return uri.URI{}, errField(sch, "to", "not UTF-8")
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(escapeMail(a, false))
	}
	sep := byte('?')
	seen := map[string]bool{}
	for _, h := range m.Headers {
		name := strings.ToLower(h.Name)
		switch {
		case name == "" || name == "to" || name == "body":
			return uri.URI{}, errField(sch, "headers", "header name \""+h.Name+"\" is empty or belongs in To or Body")
		case seen[name]:
			return uri.URI{}, errField(sch, "headers", "header \""+h.Name+"\" given twice")
		case !utf8.ValidString(h.Name) || !utf8.ValidString(h.Value):
			return uri.URI{}, errField(sch, h.Name, "not UTF-8")
		}
		seen[name] = true
		b.WriteByte(sep)
		sep = '&'
		b.WriteString(escapeMail(h.Name, true))
		b.WriteByte('=')
		b.WriteString(escapeMail(h.Value, true))
	}
	if m.Body.Set {
		if !utf8.ValidString(m.Body.Value) {
			return uri.URI{}, errField(sch, "body", "not UTF-8")
		}
		b.WriteByte(sep)
		b.WriteString("body=")
		b.WriteString(escapeMail(m.Body.Value, true))
	}
	return parseBuilt(sch, b.String())
}

// escapeMail percent-encodes for a mailto URI: everything but unreserved
// and the some-delims of RFC 6068 §2 that are safe there ("&", "=", ";",
// "/", "?", "#" and "%" always escaped; "," too inside an address).
func escapeMail(s string, hfield bool) string {
	const upper = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~',
			c == '!', c == '$', c == '\'', c == '(', c == ')', c == '*', c == '+', c == ':', c == '@':
			b.WriteByte(c)
		case c == ',' && hfield:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(upper[c>>4])
			b.WriteByte(upper[c&15])
		}
	}
	return b.String()
}
