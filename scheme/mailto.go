package scheme

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/urikit/urikit/internal/ascii"
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
			// RFC 6068 §2: hfname = *qchar, hfvalue = *qchar, and qchar
			// is unreserved, pct-encoded and some-delims, which leave out
			// "=" and "/" (and "?" and "&", the delimiters): an "=" or "/"
			// of a header name or value is written %3D or %2F. The "to"
			// hfield's addresses are checked as addresses below.
			if i := strings.IndexByte(k, '/'); i >= 0 {
				return Mailto{}, errField(sch, "hfields", "the header name \""+k+"\" holds an unencoded \"/\" (hfname = *qchar, RFC 6068 §2)")
			}
			if i := strings.IndexAny(v, "=/"); i >= 0 && !strings.EqualFold(decode(k), "to") {
				return Mailto{}, errField(sch, "hfields", "the value of \""+decode(k)+"\" holds an unencoded \""+v[i:i+1]+"\" (hfvalue = *qchar, RFC 6068 §2: write %"+hexByte(v[i])+")")
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

// appendAddrs splits a raw to-list at the commas outside quoted strings,
// decodes each address and checks it.
//
// The split is made on the text as written: RFC 6068 §2 has to =
// addr-spec *("," addr-spec ), and a percent-encoded "%2C" is data, not
// that delimiter (RFC 3986 §2.2), so mailto:a@b%2Cc@d is one (invalid)
// address "a@b,c@d", not two. Whether a comma is inside a quoted string is
// read from the decoded text, since the quotes themselves must be written
// %22 (mailto:%22a,b%22@c is the one address "a,b"@c).
func appendAddrs(to []string, raw, field string) ([]string, error) {
	if raw == "" {
		return to, nil
	}
	for _, r := range splitRawAddrs(raw) {
		if r == "" {
			continue
		}
		// RFC 6068 §2 item 1: "/", "?", "#", "[", "]", "%", "&", ";" and
		// "=" of an addr-spec MUST be percent-encoded; the URI grammar
		// already keeps out the others, so a "/", "&", ";" or "=" written
		// as itself is not part of an address.
		if i := strings.IndexAny(r, "/&;="); i >= 0 {
			return nil, errField("mailto", field, "\""+r+"\" holds an unencoded \""+r[i:i+1]+"\", which an address must percent-encode (RFC 6068 §2)")
		}
		a := decode(r)
		if !utf8.ValidString(a) {
			return nil, errField("mailto", field, "the decoded address is not UTF-8 (RFC 6068 §2)")
		}
		if err := checkAddr(a); err != nil {
			return nil, errField("mailto", field, err.Error())
		}
		to = append(to, a)
	}
	return to, nil
}

// splitRawAddrs splits raw URI text at the unencoded commas that are not
// inside a quoted string of the decoded text (RFC 5322 §3.2.4; a
// backslash quotes the next character there).
func splitRawAddrs(raw string) []string {
	var out []string
	start, inQuote, escaped := 0, false, false
	for i := 0; i < len(raw); i++ {
		c, enc := raw[i], false
		if c == '%' && i+2 < len(raw) {
			// raw comes from a parsed URI: a '%' always starts a
			// percent-encoding.
			c, enc = decode(raw[i : i+3])[0], true
			i += 2
		}
		switch {
		case escaped:
			escaped = false
		case inQuote && c == '\\':
			escaped = true
		case c == '"':
			inQuote = !inQuote
		case c == ',' && !enc && !inQuote:
			out = append(out, raw[start:i])
			start = i + 1
		}
	}
	return append(out, raw[start:])
}

type addrError string

func (e addrError) Error() string { return string(e) }

// checkAddr checks a decoded address against RFC 6068 §2's addr-spec:
//
//	addr-spec    = local-part "@" domain
//	local-part   = dot-atom-text / quoted-string
//	domain       = dot-atom-text / "[" *dtext-no-obs "]"
//
// with the RFC 5322 rules for dot-atom-text and quoted-string, non-ASCII
// UTF-8 allowed where items 4 and 5 of §2 allow it (the caller has checked
// the UTF-8), and no obsolete forms, control characters, whitespace
// outside a quoted string or comments (items 2 and 3).
func checkAddr(a string) error {
	bad := func(why string) error { return addrError("\"" + a + "\" is not an addr-spec: " + why) }
	var i int
	if strings.HasPrefix(a, `"`) {
		// quoted-string = DQUOTE *( qtext / quoted-pair / WSP ) DQUOTE
		for i = 1; ; i++ {
			if i >= len(a) {
				return bad("unterminated quoted string")
			}
			c := a[i]
			if c == '"' {
				i++
				break
			}
			if c == '\\' {
				i++
				if i >= len(a) || !(a[i] >= 0x20 && a[i] != 0x7f) {
					return bad("a \"\\\" in a quoted string must quote a visible character or a space (RFC 5322 §3.2.1)")
				}
				continue
			}
			if c < 0x20 && c != '\t' || c == 0x7f {
				return bad("a control character (RFC 6068 §2 item 2)")
			}
		}
	} else {
		n, why := dotAtom(a)
		if why != "" {
			return bad("local part: " + why)
		}
		i = n
	}
	if i >= len(a) || a[i] != '@' {
		return bad("the local part must be followed by \"@\" and a domain")
	}
	d := a[i+1:]
	if strings.HasPrefix(d, "[") {
		if len(d) < 2 || d[len(d)-1] != ']' {
			return bad("unterminated domain literal")
		}
		for j := 1; j < len(d)-1; j++ {
			if c := d[j]; c < 33 || c > 126 || c == '[' || c == ']' || c == '\\' {
				return bad("domain literal holds a character other than dtext-no-obs")
			}
		}
		return nil
	}
	n, why := dotAtom(d)
	if why != "" {
		return bad("domain: " + why)
	}
	if n != len(d) {
		return bad("domain: " + strconv.Quote(d[n:n+1]) + " is not allowed in a domain")
	}
	return nil
}

// dotAtom reads the longest dot-atom-text at the start of s (RFC 5322
// §3.2.3, atext extended with UTF-8 non-ASCII) and returns its length, or
// the reason s does not start with one.
func dotAtom(s string) (int, string) {
	i, atom := 0, 0
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case isAtext(c):
			atom++
		case c == '.':
			if atom == 0 {
				return 0, "an empty atom (a leading \".\" or \"..\")"
			}
			atom = 0
		default:
			if atom == 0 {
				if i == 0 {
					return 0, "empty, or starts with " + strconv.Quote(s[i:i+1])
				}
				return 0, "an empty atom (a trailing \".\")"
			}
			return i, ""
		}
	}
	if atom == 0 {
		return 0, "empty, or ends in \".\""
	}
	return i, ""
}

// isAtext reports whether c is an RFC 5322 atext character, or a byte of a
// non-ASCII UTF-8 character (RFC 6532 §3.2, RFC 6068 §2 items 4 and 5).
func isAtext(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0 || c >= 0x80
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
	return Fields{{"to", to}, {"headers", h}, {"body", m.Body.value()}}
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
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case ascii.Is(c, ascii.Unreserved),
			c == '!', c == '$', c == '\'', c == '(', c == ')', c == '*', c == '+', c == ':', c == '@':
			b = append(b, c)
		case c == ',' && hfield:
			b = append(b, c)
		default:
			b = ascii.AppendPct(b, c)
		}
	}
	return string(b)
}

func hexByte(c byte) string { return string(ascii.AppendPct(nil, c)[1:]) }
