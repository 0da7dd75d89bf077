package iri

import (
	"unicode/utf8"

	"github.com/urikit/urikit/internal/ascii"
)

// Character classes of the ASCII part of RFC 3987 §2.2, which is RFC 3986
// Appendix A: one bit per ABNF rule a byte can belong to, one table lookup
// per byte; the table and the rules are internal/ascii's, shared with uri,
// urn and extract. What RFC 3987 adds (ucschar, iprivate) lies outside
// ASCII and is decided per character by ucsLen below.
const (
	cAlpha      = ascii.Alpha      // ALPHA
	cDigit      = ascii.Digit      // DIGIT
	cHex        = ascii.Hex        // HEXDIG
	cUnreserved = ascii.Unreserved // unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
	cScheme     = ascii.Scheme     // ALPHA / DIGIT / "+" / "-" / "." (scheme after its first letter)
	cUserinfo   = ascii.Userinfo   // unreserved / sub-delims / ":"
	cRegName    = ascii.RegName    // unreserved / sub-delims
	cPchar      = ascii.Pchar      // unreserved / sub-delims / ":" / "@"
	cPath       = ascii.Path       // pchar / "/"
	cQuery      = ascii.Query      // pchar / "/" / "?" (iquery and ifragment alike in ASCII)
	cSegmentNC  = ascii.SegmentNC  // unreserved / sub-delims / "@" (isegment-nz-nc)
)

// class is ascii.Table, held in this package so that the scan loops index
// a table of their own package (as package uri does).
var class = ascii.Table

func is(c byte, mask uint16) bool { return class[c]&mask != 0 }

// Where a non-ASCII character may stand (RFC 3987 §2.2): ucschar in every
// component the grammar extends (iuserinfo, ireg-name, isegment, iquery,
// ifragment), iprivate in iquery alone.
const (
	ucsNone    = iota // scheme, port, IP-literal: ASCII only
	ucsChar           // ucschar
	ucsPrivate        // ucschar / iprivate (iquery)
)

// isBidiFormat reports whether r is one of the bidirectional formatting
// characters that RFC 3987 §4.1 says an IRI MUST NOT contain: LRM, RLM,
// LRE, RLE, PDF, LRO, RLO. They are ucschar by the ABNF; §4.1 decides.
func isBidiFormat(r rune) bool {
	return r == 0x200E || r == 0x200F || 0x202A <= r && r <= 0x202E
}

// isUCSChar reports whether r is a ucschar of RFC 3987 §2.2.
//
//	ucschar = %xA0-D7FF / %xF900-FDCF / %xFDF0-FFEF
//	        / %x10000-1FFFD / %x20000-2FFFD / ... / %xD0000-DFFFD
//	        / %xE1000-EFFFD
func isUCSChar(r rune) bool {
	switch {
	case r < 0xA0:
		return false
	case r <= 0xD7FF:
		return true
	case r < 0xF900:
		return false // surrogates, and the private use area E000-F8FF
	case r <= 0xFDCF:
		return true
	case r < 0xFDF0:
		return false // noncharacters FDD0-FDEF
	case r <= 0xFFEF:
		return true
	case r < 0x10000:
		return false // specials FFF0-FFFF, U+FFFD among them
	case r >= 0xE0000 && r < 0xE1000:
		return false // tags and variation selectors supplement
	case r >= 0xF0000:
		return false // planes 15 and 16: iprivate, not ucschar
	}
	// In planes 1 to 14 the last two code points of each plane
	// (xFFFE, xFFFF) are noncharacters.
	return r&0xFFFE != 0xFFFE
}

// isIPrivate reports whether r is an iprivate of RFC 3987 §2.2.
//
//	iprivate = %xE000-F8FF / %xF0000-FFFFD / %x100000-10FFFD
func isIPrivate(r rune) bool {
	return 0xE000 <= r && r <= 0xF8FF || 0xF0000 <= r && r <= 0xFFFFD || 0x100000 <= r && r <= 0x10FFFD
}

// allowedRune reports whether r may stand unencoded where level says.
func allowedRune(r rune, level int) bool {
	switch level {
	case ucsChar:
		return isUCSChar(r) && !isBidiFormat(r)
	case ucsPrivate:
		return isUCSChar(r) && !isBidiFormat(r) || isIPrivate(r)
	}
	return false
}

// ucsLen returns the length of the non-ASCII character at s[i] when it may
// stand there (level says where), or 0.
func ucsLen(s string, i int, level int) int {
	if level == ucsNone {
		return 0
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if n <= 1 || !allowedRune(r, level) {
		return 0
	}
	return n
}

// scan returns the index of the first byte at or after i that is neither of
// a class in mask, nor the start of a valid pct-encoded (§2.1 of RFC 3986),
// nor the start of a non-ASCII character allowed at level. It is the
// parser's inner loop: one table lookup per ASCII byte.
func scan(s string, i int, mask uint16, level int) int {
	for i < len(s) {
		c := s[i]
		if class[c]&mask != 0 {
			i++
			continue
		}
		if c == '%' && i+2 < len(s) && class[s[i+1]]&class[s[i+2]]&cHex != 0 {
			i += 3
			continue
		}
		if c >= utf8.RuneSelf {
			if n := ucsLen(s, i, level); n > 0 {
				i += n
				continue
			}
		}
		break
	}
	return i
}

func unhex(c byte) byte { return ascii.Unhex(c) }

const upperHex = ascii.UpperHex

func lower(c byte) byte { return ascii.ToLower(c) }

// isASCII reports whether s holds only ASCII bytes, eight at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
