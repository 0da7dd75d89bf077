// Package urn implements Uniform Resource Names: the RFC 8141 syntax as a
// small immutable value type, lexical equivalence (RFC 8141 §3.1), the NID
// classes of RFC 8141 §5, namespace-specific validation and equivalence for
// the namespaces whose RFCs the project holds, the query directives of the
// 2012 rfc2141bis draft (s= and c=), and the 1993 five-component form
// <URN:encoding:scheme-id:authority-id:opaque>.
//
// A URN value holds its input text once plus a few integer offsets, so it
// is comparable with == and parsing a valid URN does not allocate.
package urn

import (
	"strings"

	"github.com/urikit/urikit/internal/ascii"
	"github.com/urikit/urikit/uri"
)

// URN is a parsed RFC 8141 namestring: "urn:" NID ":" NSS, with optional
// r-component ("?+"), q-component ("?=") and f-component ("#").
//
// The zero URN is not valid; IsValid reports false and String returns "".
// Two URN values are == when they were parsed from the same text; use Equal
// for RFC 8141 equivalence.
type URN struct {
	s string
	// Offsets into s. The NID is s[4:nidEnd]; the NSS s[nidEnd+1:nssEnd];
	// the r-component, when present, s[nssEnd+2:rEnd]; the q-component,
	// when present, s[rEnd+2:qEnd]; the f-component, when present, s[qEnd+1:].
	nidEnd, nssEnd, rEnd, qEnd uint32
	flags                      uint8
}

const (
	flagValid     uint8 = 1 << iota
	flagR               // r-component present
	flagQ               // q-component present
	flagF               // f-component present
	flagPct             // the NSS holds percent-encodings
	flagNotCanon        // "urn", NID or NSS hex digits are not in canonical case
	flagNSSLowHex       // the NSS has lower-case hex in a percent-encoding
)

// Character classes (RFC 3986 Appendix A, as used by RFC 8141 §2): the
// table is internal/ascii's, shared with packages uri and extract.
const (
	cAlnum = ascii.Alnum // ALPHA / DIGIT
	cLDH   = ascii.LDH   // alphanum / "-" (RFC 8141 §2 ldh)
	cPchar = ascii.Pchar // unreserved / sub-delims / ":" / "@" (pct-encoded handled apart)
	cHex   = ascii.Hex   // HEXDIG
	cUpper = ascii.Upper // A-Z
)

var class = ascii.Table

// maxLen bounds the input so that offsets fit in uint32.
const maxLen = 1<<32 - 1

// Parse parses s as an RFC 8141 URN (namestring). It checks the ABNF of
// RFC 8141 §2 alone: namespace registration rules (§5) are policy, reported
// by Class, not parse errors. Parsing a valid URN does not allocate. An
// error is an *Error with the offset of the first byte that no valid URN
// can continue with.
func Parse(s string) (URN, error) {
	var u URN
	if len(s) > maxLen {
		return URN{}, errorf(ErrTooLong, s, maxLen, "input longer than 4 GiB")
	}
	// "urn:" is case-insensitive (RFC 3986 §3.1).
	for i := 0; i < 4; i++ {
		if i == len(s) {
			return URN{}, errorf(ErrInvalidPrefix, s, i, `missing "urn:" prefix`)
		}
		c := s[i]
		if c|0x20 != "urn:"[i]|0x20 || (i == 3 && c != ':') {
			return URN{}, errorf(ErrInvalidPrefix, s, i, `missing "urn:" prefix`)
		}
		if class[c]&cUpper != 0 {
			u.flags |= flagNotCanon
		}
	}
	// NID = (alphanum) 0*30(ldh) (alphanum)    RFC 8141 §2
	i := 4
	for i < len(s) && class[s[i]]&cLDH != 0 {
		if class[s[i]]&cUpper != 0 {
			u.flags |= flagNotCanon
		}
		i++
	}
	switch n := i - 4; {
	case n == 0:
		if i == len(s) {
			return URN{}, errorf(ErrInvalidNID, s, i, "missing NID")
		}
		if s[i] == ':' {
			return URN{}, errorf(ErrInvalidNID, s, i, "empty NID")
		}
		return URN{}, errorf(ErrInvalidNID, s, i, "invalid character %s in NID", quoteByte(s[i]))
	case s[4] == '-':
		return URN{}, errorf(ErrInvalidNID, s, 4, `NID starts with "-"`)
	case n > 32:
		return URN{}, errorf(ErrInvalidNID, s, 4+32, "NID longer than 32 characters")
	case i == len(s):
		return URN{}, errorf(ErrInvalidNID, s, i, `missing ":" after NID`)
	case s[i] != ':':
		return URN{}, errorf(ErrInvalidNID, s, i, "invalid character %s in NID", quoteByte(s[i]))
	case s[i-1] == '-':
		// The '-' may still be followed by more NID; the ':' is what breaks.
		return URN{}, errorf(ErrInvalidNID, s, i, `NID ends with "-"`)
	case n < 2:
		return URN{}, errorf(ErrInvalidNID, s, i, "NID shorter than 2 characters")
	}
	u.nidEnd = uint32(i)
	i++

	// NSS = pchar *(pchar / "/")    RFC 8141 §2
	if i == len(s) {
		return URN{}, errorf(ErrInvalidNSS, s, i, "empty NSS")
	}
	switch s[i] {
	case '/':
		return URN{}, errorf(ErrInvalidNSS, s, i, `NSS starts with "/"`)
	case '?', '#':
		return URN{}, errorf(ErrInvalidNSS, s, i, "empty NSS")
	}
	for i < len(s) {
		c := s[i]
		if class[c]&cPchar != 0 || c == '/' {
			i++
			continue
		}
		if c != '%' {
			break
		}
		if err := checkPct(s, i, "NSS"); err != nil {
			return URN{}, err
		}
		u.flags |= flagPct
		if class[s[i+1]]&cUpper == 0 && s[i+1] > '9' || class[s[i+2]]&cUpper == 0 && s[i+2] > '9' {
			u.flags |= flagNotCanon | flagNSSLowHex
		}
		i += 3
	}
	u.nssEnd = uint32(i)
	u.rEnd = u.nssEnd

	// rq-components = [ "?+" r-component ] [ "?=" q-component ]    RFC 8141 §2
	if i < len(s) && s[i] == '?' {
		if i+1 < len(s) && s[i+1] == '+' {
			end, err := component(s, i+2, "r-component", true)
			if err != nil {
				return URN{}, err
			}
			u.flags |= flagR
			i = end
			u.rEnd = uint32(i)
		}
	}
	u.qEnd = u.rEnd
	if i < len(s) && s[i] == '?' {
		if i+1 < len(s) && s[i+1] == '=' {
			end, err := component(s, i+2, "q-component", false)
			if err != nil {
				return URN{}, err
			}
			u.flags |= flagQ
			i = end
			u.qEnd = uint32(i)
		} else {
			// RFC 8141 §2: a "?" not followed by "+" or "=" is a syntax error.
			// The offset is the byte after the '?' (len(s) when none).
			return URN{}, &Error{Kind: ErrPlainQuery, Input: s, Offset: i + 1, Reason: `"?" not followed by "+" or "="`}
		}
	}
	// f-component = fragment = *( pchar / "/" / "?" )
	if i < len(s) && s[i] == '#' {
		u.flags |= flagF
		if err := checkFragment(s, i+1); err != nil {
			return URN{}, err
		}
		i = len(s)
	}
	if i < len(s) {
		return URN{}, badChar(ErrInvalidNSS, s, i, "NSS")
	}
	u.s = s
	u.flags |= flagValid
	return u, nil
}

// checkFragment checks s[i:] against fragment = *( pchar / "/" / "?" ).
func checkFragment(s string, i int) error {
	for j := i; j < len(s); j++ {
		c := s[j]
		if class[c]&cPchar != 0 || c == '/' || c == '?' {
			continue
		}
		if c == '%' {
			if err := checkPct(s, j, "f-component"); err != nil {
				return err
			}
			j += 2
			continue
		}
		return badChar(ErrInvalidComponent, s, j, "f-component")
	}
	return nil
}

// component scans an r- or q-component starting at i (after its "?+" or
// "?="): pchar *( pchar / "/" / "?" ). An r-component ends at "?=" or "#"
// (RFC 8141 §2.3.1); a q-component at "#".
func component(s string, i int, name string, isR bool) (int, error) {
	start := i
	for i < len(s) {
		c := s[i]
		switch {
		case class[c]&cPchar != 0:
		case c == '/' || c == '?':
			if isR && c == '?' && i+1 < len(s) && s[i+1] == '=' {
				goto end
			}
			if i == start {
				return 0, errorf(ErrInvalidComponent, s, i, "%s starts with %s", name, quoteByte(c))
			}
		case c == '%':
			if err := checkPct(s, i, name); err != nil {
				return 0, err
			}
			i += 2
		case c == '#':
			goto end
		default:
			return 0, badChar(ErrInvalidComponent, s, i, name)
		}
		i++
	}
end:
	if i == start {
		return 0, errorf(ErrInvalidComponent, s, i, "empty %s", name)
	}
	return i, nil
}

// checkPct checks the percent-encoding that starts at s[i] == '%'
// (RFC 3986 §2.1).
func checkPct(s string, i int, where string) error {
	switch bad := ascii.PctEnd(s, i); {
	case bad < 0:
		return nil
	case bad == len(s):
		return errorf(ErrInvalidPercentEncoding, s, bad, "bad percent-encoding in %s: %q needs two hex digits", where, "%")
	default:
		return errorf(ErrInvalidPercentEncoding, s, bad, "bad percent-encoding in %s: %s is not a hex digit", where, quoteByte(s[bad]))
	}
}

func badChar(kind error, s string, i int, where string) error {
	c := s[i]
	switch {
	case c >= 0x80:
		return errorf(kind, s, i, "non-ASCII byte 0x%02X in %s (must be percent-encoded)", c, where)
	case c == '#' || c == '?':
		return errorf(kind, s, i, "unexpected %s in %s", quoteByte(c), where)
	}
	return errorf(kind, s, i, "invalid character %s in %s", quoteByte(c), where)
}

// MustParse is Parse for inputs known to be valid, such as constants in
// programs and tests; it panics on an error.
func MustParse(s string) URN {
	u, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// IsValid reports whether u is a parsed URN (not the zero value).
func (u URN) IsValid() bool { return u.flags&flagValid != 0 }

// String returns the URN exactly as it was parsed.
func (u URN) String() string { return u.s }

// AppendTo appends the URN's text to b.
func (u URN) AppendTo(b []byte) []byte { return append(b, u.s...) }

// MarshalText implements encoding.TextMarshaler.
func (u URN) MarshalText() ([]byte, error) { return []byte(u.s), nil }

// UnmarshalText implements encoding.TextUnmarshaler. Empty text gives the
// zero URN.
func (u *URN) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*u = URN{}
		return nil
	}
	v, err := Parse(string(text))
	if err != nil {
		return err
	}
	*u = v
	return nil
}

// NID returns the namespace identifier as written (RFC 8141 §2.1).
func (u URN) NID() string {
	if !u.IsValid() {
		return ""
	}
	return u.s[4:u.nidEnd]
}

// NSS returns the namespace-specific string as written, still
// percent-encoded (RFC 8141 §2.2).
func (u URN) NSS() string {
	if !u.IsValid() {
		return ""
	}
	return u.s[u.nidEnd+1 : u.nssEnd]
}

// DecodedNSS returns the NSS with its percent-encodings decoded. The result
// may hold any bytes, including invalid UTF-8; it allocates only when the
// NSS holds a percent-encoding.
func (u URN) DecodedNSS() string {
	nss := u.NSS()
	if u.flags&flagPct == 0 {
		return nss
	}
	return ascii.Decode(nss)
}

// AssignedName returns "urn:" NID ":" NSS as written, without the r-, q-
// and f-components.
func (u URN) AssignedName() string { return u.s[:u.nssEnd] }

// RComponent returns the r-component (after "?+") and whether it is present.
func (u URN) RComponent() (string, bool) {
	if u.flags&flagR == 0 {
		return "", false
	}
	return u.s[u.nssEnd+2 : u.rEnd], true
}

// QComponent returns the q-component (after "?=") and whether it is present.
func (u URN) QComponent() (string, bool) {
	if u.flags&flagQ == 0 {
		return "", false
	}
	return u.s[u.rEnd+2 : u.qEnd], true
}

// FComponent returns the f-component (after "#") and whether it is present.
// It may be empty when present.
func (u URN) FComponent() (string, bool) {
	if u.flags&flagF == 0 {
		return "", false
	}
	return u.s[u.qEnd+1:], true
}

// IsCanonical reports whether the assigned name is already in the RFC 8141
// §3.1 canonical form (lower-case "urn" and NID, upper-case hex digits).
func (u URN) IsCanonical() bool { return u.IsValid() && u.flags&flagNotCanon == 0 }

// Canonical returns the RFC 8141 §3.1 lexical-equivalence form of u: the
// assigned name with "urn" and the NID in lower case and the hex digits of
// the NSS's percent-encodings in upper case; r-, q- and f-components are
// left out. Percent-encodings are never decoded. It allocates only when the
// text changes.
func (u URN) Canonical() URN {
	if !u.IsValid() {
		return URN{}
	}
	v := u
	v.flags &^= flagR | flagQ | flagF | flagNotCanon | flagNSSLowHex
	v.rEnd, v.qEnd = u.nssEnd, u.nssEnd
	if u.flags&flagNotCanon == 0 {
		v.s = u.s[:u.nssEnd]
		return v
	}
	v.s = string(u.AppendCanonical(make([]byte, 0, u.nssEnd)))
	return v
}

// CanonicalString is Canonical().String().
func (u URN) CanonicalString() string { return u.Canonical().s }

// AppendCanonical appends the canonical form (see Canonical) to b.
func (u URN) AppendCanonical(b []byte) []byte {
	if !u.IsValid() {
		return b
	}
	b = append(b, "urn:"...)
	b = ascii.AppendLower(b, u.NID())
	b = append(b, ':')
	return ascii.AppendUpperPct(b, u.NSS())
}

// Equal reports whether u and v are URN-equivalent per RFC 8141 §3.1:
// their assigned names are equal after lower-casing "urn" and the NID and
// upper-casing the hex digits of percent-encodings; r-, q- and f-components
// are ignored. The zero URN is equal to itself and to nothing else, as a
// zero netip.Addr is.
func (u URN) Equal(v URN) bool {
	if !u.IsValid() || !v.IsValid() {
		return u.IsValid() == v.IsValid()
	}
	if !strings.EqualFold(u.NID(), v.NID()) { // NIDs are ASCII (RFC 8141 §2.1)
		return false
	}
	a, b := u.NSS(), v.NSS()
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if a[i] == b[i] {
			if a[i] == '%' { // hex digits compare case-insensitively
				if a[i+1]|0x20 != b[i+1]|0x20 || a[i+2]|0x20 != b[i+2]|0x20 {
					return false
				}
				i += 2
			}
			continue
		}
		return false
	}
	return true
}

func quoteByte(c byte) string {
	switch {
	case c == '\'':
		return `"'"`
	case c < 0x20 || c >= 0x7f:
		return "0x" + string(ascii.UpperHex[c>>4]) + string(ascii.UpperHex[c&15])
	}
	return "'" + string(c) + "'"
}

// URI returns u as a uri.URI: every URN is a URI (RFC 8141 §2 builds its
// ABNF from RFC 3986's), with the scheme "urn" and the rest as a
// path-rootless, "?+r" and "?=q" in the query, "#f" the fragment. The zero
// URN gives the zero URI.
func (u URN) URI() uri.URI {
	if !u.IsValid() {
		return uri.URI{}
	}
	v, err := uri.Parse(u.s)
	if err != nil {
		// Parse accepts only RFC 8141 URNs, a subset of RFC 3986 URIs
		// (TestURNsAreURIs and FuzzParse check it).
		panic("urn: a valid URN is not a valid URI: " + err.Error())
	}
	return v
}

// FromURI returns the URN that the URI v is, or the *Error saying why it
// is not one (a URI of another scheme fails with ErrInvalidPrefix).
func FromURI(v uri.URI) (URN, error) { return Parse(v.String()) }
