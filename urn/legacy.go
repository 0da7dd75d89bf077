package urn

import (
	"strings"

	"github.com/urikit/urikit/internal/ascii"
)

// Legacy is a URN in the five-component form of the October 1993 draft
// (Weider & Deutsch, "Uniform Resource Names", IETF draft, October 1993):
//
//	<URN:encoding:scheme-id:authority-id:opaque>
//
// The angle brackets belong to the syntax (§3.3). No component may hold
// ":", ">", " " or "\" unless escaped by a backslash (§3.3, §5). The
// encoding is ASCII, also when empty (§3.3.2); the scheme identifiers are
// IANA, ISBN_Publisher_ID and ISSN (§5). Fields hold the text with escapes
// removed. This form has no defined mapping to RFC 8141 names and none is
// made here.
type Legacy struct {
	Encoding  string // "" or "ASCII" (both mean ASCII)
	Scheme    string // IANA, ISBN_Publisher_ID or ISSN, as written
	Authority string // the naming authority identifier
	Opaque    string // the opaque string
}

// legacySchemes are the naming authority scheme identifiers of §5.
var legacySchemes = [...]string{"IANA", "ISBN_Publisher_ID", "ISSN"}

// ParseLegacy parses the 1993 form. Errors are *Error values with the byte
// offset of the first offending byte.
func ParseLegacy(s string) (Legacy, error) {
	const prefix = "<URN:"
	for i := 0; i < len(prefix); i++ {
		if i == len(s) || ascii.ToLower(s[i]) != ascii.ToLower(prefix[i]) {
			return Legacy{}, errorf(ErrInvalidLegacy, s, i, `legacy URN must start with "<URN:"`)
		}
	}
	var parts [4]string
	names := [4]string{"encoding", "scheme identifier", "authority identifier", "opaque string"}
	i := len(prefix)
	for n := 0; n < 4; n++ {
		start := i
		escaped := false
	scan:
		for ; i < len(s); i++ {
			c := s[i]
			switch {
			case isXalpha(c):
			case c == '\\':
				if i+1 == len(s) {
					return Legacy{}, errorf(ErrInvalidLegacy, s, len(s), `"\" at end of input`)
				}
				switch s[i+1] {
				case ':', '>', '\\', ' ':
				default:
					return Legacy{}, errorf(ErrInvalidLegacy, s, i+1, `only ":", ">", "\" and " " may follow "\"`)
				}
				escaped = true
				i++
			case c == ':' || c == '>':
				break scan
			default:
				if c == ' ' {
					return Legacy{}, errorf(ErrInvalidLegacy, s, i, `unescaped " " in %s (write "\ ")`, names[n])
				}
				return Legacy{}, errorf(ErrInvalidLegacy, s, i, "invalid character %s in %s", quoteByte(c), names[n])
			}
		}
		p := s[start:i]
		if escaped {
			p = unescapeLegacy(p)
		}
		parts[n] = p
		switch {
		case i == len(s):
			if n < 3 {
				return Legacy{}, errorf(ErrInvalidLegacy, s, i, `missing ":" after %s`, names[n])
			}
			return Legacy{}, errorf(ErrInvalidLegacy, s, i, `missing closing ">"`)
		case n < 3 && s[i] == '>':
			return Legacy{}, errorf(ErrInvalidLegacy, s, i, "%s is missing (a legacy URN has five components)", names[n+1])
		case n == 3 && s[i] == ':':
			return Legacy{}, errorf(ErrInvalidLegacy, s, i, `unescaped ":" in opaque string (write "\:")`)
		}
		// §3.3.2: only ASCII is defined; empty means ASCII.
		if n == 0 && p != "" && !strings.EqualFold(p, "ASCII") {
			return Legacy{}, errorf(ErrInvalidLegacy, s, start, "unknown encoding %q (only ASCII is defined)", p)
		}
		if n == 1 && !isLegacyScheme(p) {
			return Legacy{}, errorf(ErrInvalidLegacy, s, start, "unknown scheme identifier %q (want IANA, ISBN_Publisher_ID or ISSN)", p)
		}
		if n >= 2 && p == "" {
			return Legacy{}, errorf(ErrInvalidLegacy, s, i, "empty %s", names[n])
		}
		i++ // past ":" or ">"
	}
	if i != len(s) {
		return Legacy{}, errorf(ErrInvalidLegacy, s, i, `text after closing ">"`)
	}
	return Legacy{Encoding: parts[0], Scheme: parts[1], Authority: parts[2], Opaque: parts[3]}, nil
}

func isLegacyScheme(p string) bool {
	for _, v := range legacySchemes {
		if strings.EqualFold(p, v) {
			return true
		}
	}
	return false
}

func unescapeLegacy(p string) string {
	var b strings.Builder
	b.Grow(len(p))
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			i++
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// String writes the legacy URN back in its bracketed form with the
// backslash escapes.
func (l Legacy) String() string { return string(l.AppendTo(nil)) }

// AppendTo appends the bracketed form to b.
func (l Legacy) AppendTo(b []byte) []byte {
	b = append(b, "<URN:"...)
	for n, p := range [4]string{l.Encoding, l.Scheme, l.Authority, l.Opaque} {
		if n > 0 {
			b = append(b, ':')
		}
		for i := 0; i < len(p); i++ {
			switch c := p[i]; c {
			case ':', '>', '\\', ' ':
				b = append(b, '\\', c)
			default:
				b = append(b, c)
			}
		}
	}
	return append(b, '>')
}

// Validate checks the fields as ParseLegacy would (for a Legacy built by
// hand).
func (l Legacy) Validate() error {
	_, err := ParseLegacy(l.String())
	return err
}

// Equal compares two legacy URNs: the empty encoding equals ASCII, the
// keywords (encoding and scheme identifier) are case-insensitive, and so is
// the opaque string (§3.3.5 rule 1, "for compatibility with very old
// systems"); the authority identifier is compared exactly.
func (l Legacy) Equal(m Legacy) bool {
	enc := func(e string) string {
		if e == "" {
			return "ASCII"
		}
		return e
	}
	return strings.EqualFold(enc(l.Encoding), enc(m.Encoding)) &&
		strings.EqualFold(l.Scheme, m.Scheme) &&
		l.Authority == m.Authority &&
		strings.EqualFold(l.Opaque, m.Opaque)
}

// isXalpha reports whether c is one of the 1993 draft's xalpha characters
// that need no escape: letters, digits, "-", "_", "." and "@".
func isXalpha(c byte) bool {
	return class[c]&cAlnum != 0 || c == '-' || c == '_' || c == '.' || c == '@'
}
