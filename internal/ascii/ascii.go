// Package ascii holds the character tables of RFC 3986 Appendix A and the
// percent-encoding helpers (RFC 3986 §2.1) that packages uri, iri, urn and
// extract share, so that each rule of the grammar is written down once.
//
// Every class is one bit of a 256-entry table: asking whether a byte
// belongs to one or several classes is one table lookup and a mask.
package ascii

import "strings"

// Character classes, one bit each. Each comment gives the ABNF rule the
// class is (RFC 3986 Appendix A unless another document is named).
// pct-encoded is never part of a class: a '%' needs the two bytes after it
// checked, which PctEnd does.
const (
	Alpha      uint16 = 1 << iota // ALPHA (RFC 5234 Appendix B.1)
	Digit                         // DIGIT
	Hex                           // HEXDIG
	Upper                         // %x41-5A, the upper-case letters
	Unreserved                    // unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
	SubDelims                     // sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
	GenDelims                     // gen-delims = ":" / "/" / "?" / "#" / "[" / "]" / "@"
	Scheme                        // ALPHA / DIGIT / "+" / "-" / "." (the scheme after its first letter, §3.1)
	Userinfo                      // unreserved / sub-delims / ":" (userinfo §3.2.1, and the body of an IPvFuture, §3.2.2)
	RegName                       // unreserved / sub-delims (reg-name, §3.2.2)
	Pchar                         // unreserved / sub-delims / ":" / "@" (pchar, §3.3)
	Path                          // pchar / "/" (the segments of a path and their separators)
	Query                         // pchar / "/" / "?" (query §3.4 and fragment §3.5)
	SegmentNC                     // unreserved / sub-delims / "@" (segment-nz-nc, §3.3)
	LDH                           // ALPHA / DIGIT / "-" (letters, digits, hyphen: RFC 8141 §2 ldh, RFC 1034 §3.5)
	QueryValue                    // Query but "&", "=", "+", ";": data in a name or value of a form query (application/x-www-form-urlencoded)
)

// Alnum is ALPHA / DIGIT.
const Alnum = Alpha | Digit

// Table maps a byte to its classes. It is filled once at start-up and
// never written afterwards.
var Table = func() (t [256]uint16) {
	add := func(chars string, mask uint16) {
		for i := 0; i < len(chars); i++ {
			t[chars[i]] |= mask
		}
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] |= Alpha
		t[c-'a'+'A'] |= Alpha | Upper
	}
	add("0123456789", Digit|Hex)
	add("abcdefABCDEF", Hex)
	add("-._~", Unreserved)
	add("!$&'()*+,;=", SubDelims)
	add(":/?#[]@", GenDelims)
	add("+-.", Scheme)
	add("-", LDH)
	for c := range t {
		k := t[c]
		if k&(Alpha|Digit) != 0 {
			t[c] |= Unreserved | Scheme | LDH
		}
		if t[c]&(Unreserved|SubDelims) != 0 {
			t[c] |= Userinfo | RegName | Pchar | SegmentNC
		}
	}
	add(":", Userinfo|Pchar)
	add("@", Pchar|SegmentNC)
	for c := range t {
		if t[c]&Pchar != 0 {
			t[c] |= Path | Query
		}
	}
	add("/", Path|Query)
	add("?", Query)
	for c := range t {
		if t[c]&Query != 0 && c != '&' && c != '=' && c != '+' && c != ';' {
			t[c] |= QueryValue
		}
	}
	return t
}()

// Is reports whether c belongs to one of the classes in mask.
func Is(c byte, mask uint16) bool { return Table[c]&mask != 0 }

// UpperHex is the digits of a percent-encoding as RFC 3986 §2.1 recommends
// writing them: upper case.
const UpperHex = "0123456789ABCDEF"

// Unhex returns the value of the hex digit c; the caller has checked that
// c is one.
func Unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// ToLower returns c with an upper-case ASCII letter lowered.
func ToLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// ToUpper returns c with a lower-case ASCII letter raised.
func ToUpper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// EqualFold compares ASCII text case-insensitively without allocating.
// Bytes outside ASCII compare exactly.
func EqualFold[A, B ~string | ~[]byte](a A, b B) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if ToLower(a[i]) != ToLower(b[i]) {
			return false
		}
	}
	return true
}

// AppendLower appends s with its ASCII letters lowered.
func AppendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		dst = append(dst, ToLower(s[i]))
	}
	return dst
}

// LowerString returns s with its ASCII letters lowered; it allocates only
// when s has an upper-case letter.
func LowerString(s string) string {
	for i := 0; i < len(s); i++ {
		if Table[s[i]]&Upper != 0 {
			return string(AppendLower(make([]byte, 0, len(s)), s))
		}
	}
	return s
}

// PctEnd checks the pct-encoded = "%" HEXDIG HEXDIG (RFC 3986 §2.1) that
// starts at s[i] == '%'. It returns -1 when it is valid, else the offset of
// the first byte that breaks it: len(s) when s ends too early.
func PctEnd[T ~string | ~[]byte](s T, i int) int {
	for j := i + 1; j <= i+2; j++ {
		if j >= len(s) || Table[s[j]]&Hex == 0 {
			return j
		}
	}
	return -1
}

// AppendPct appends the percent-encoding of the byte c ("%" and two
// upper-case hex digits).
func AppendPct(dst []byte, c byte) []byte {
	return append(dst, '%', UpperHex[c>>4], UpperHex[c&15])
}

// AppendEscape appends s with every byte that is not in the classes of
// allowed percent-encoded, '%' included (RFC 3986 §2.1, §2.4).
func AppendEscape(dst []byte, s string, allowed uint16) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; Table[c]&allowed != 0 {
			dst = append(dst, c)
		} else {
			dst = AppendPct(dst, c)
		}
	}
	return dst
}

// Decode decodes the percent-encodings of s, which the caller knows to be
// valid (a '%' too close to the end is kept as it is). It allocates only
// when s holds a '%'. The result may hold any bytes.
func Decode(s string) string {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			b = append(b, Unhex(s[i+1])<<4|Unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// AppendUpperPct appends s with the hex digits of its percent-encodings
// raised to upper case and nothing else changed (the case normalization of
// RFC 3986 §6.2.2.1, and RFC 8141 §3.1's).
func AppendUpperPct(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		dst = append(dst, c)
		if c == '%' && i+2 < len(s) {
			dst = append(dst, ToUpper(s[i+1]), ToUpper(s[i+2]))
			i += 2
		}
	}
	return dst
}
