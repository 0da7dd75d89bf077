package uri

import "github.com/urikit/urikit/internal/ascii"

// Component names a part of a URI for percent-encoding: each allows a
// different set of characters unescaped (RFC 3986 §2.1, §2.2, §3).
type Component uint8

const (
	// ComponentUserinfo: unreserved / sub-delims / ":" stay (§3.2.1).
	ComponentUserinfo Component = iota
	// ComponentHost: a reg-name's unreserved / sub-delims stay (§3.2.2).
	ComponentHost
	// ComponentPathSegment: pchar stays; '/' is escaped (§3.3).
	ComponentPathSegment
	// ComponentPath: pchar and '/' stay (§3.3).
	ComponentPath
	// ComponentQuery: pchar, '/' and '?' stay (§3.4). This escapes text
	// for a query as a whole, in which '&', '=', '+' and ';' keep the
	// meaning they have there; a name or a value inside a query takes
	// ComponentQueryValue.
	ComponentQuery
	// ComponentFragment: pchar, '/' and '?' stay (§3.5).
	ComponentFragment
	// ComponentQueryValue: a name or a value of a query made of name=value
	// pairs (application/x-www-form-urlencoded, see Params). As
	// ComponentQuery, but '&', '=', '+' and ';' are escaped too, so that
	// the data reads back the same whether the query is decoded as a form
	// (where '+' is a space) or by RFC 3986 alone (where it is a '+').
	ComponentQueryValue
)

func (c Component) allowed() uint16 {
	switch c {
	case ComponentUserinfo:
		return cUserinfo
	case ComponentHost:
		return cRegName
	case ComponentPathSegment:
		return cPchar
	case ComponentPath:
		return cPath
	case ComponentQueryValue:
		return cQueryValue
	default:
		return cQuery
	}
}

// Escape percent-encodes s for use as the component c: every byte that c
// does not allow as data, '%' included, becomes %XX (upper-case hex, §2.1).
// Non-ASCII text is encoded as its UTF-8 bytes (§2.5).
func Escape(s string, c Component) string {
	mask := c.allowed()
	n := 0
	for i := 0; i < len(s); i++ {
		if !is(s[i], mask) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	return string(appendEscape(make([]byte, 0, len(s)+2*n), s, mask))
}

// AppendEscape appends Escape(s, c) to dst.
func AppendEscape(dst []byte, s string, c Component) []byte {
	return appendEscape(dst, s, c.allowed())
}

func appendEscape(dst []byte, s string, mask uint16) []byte {
	return ascii.AppendEscape(dst, s, mask)
}

// Unescape decodes every percent-encoding in s. It returns an *Error at the
// first '%' not followed by two hex digits. The result may hold any bytes,
// not only UTF-8.
func Unescape(s string) (string, error) {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if err := checkPct(s, i); err != nil {
				return "", err
			}
			i += 2
		}
	}
	return unescape(s), nil
}

// unescape decodes s, whose percent-encodings are known to be valid.
func unescape(s string) string { return ascii.Decode(s) }
