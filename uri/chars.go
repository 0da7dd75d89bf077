package uri

// Character classes of RFC 3986 Appendix A, one bit per ABNF rule a byte can
// belong to. The parser asks one table lookup per byte.
const (
	cAlpha      uint16 = 1 << iota // ALPHA
	cDigit                         // DIGIT
	cHex                           // HEXDIG
	cUnreserved                    // unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
	cSubDelims                     // sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
	cScheme                        // ALPHA / DIGIT / "+" / "-" / "." (scheme after its first letter)
	cUserinfo                      // unreserved / sub-delims / ":" (pct-encoded handled apart)
	cRegName                       // unreserved / sub-delims
	cPchar                         // unreserved / sub-delims / ":" / "@"
	cPath                          // pchar / "/"
	cQuery                         // pchar / "/" / "?" (query and fragment alike)
	cFuture                        // unreserved / sub-delims / ":" (IPvFuture body)
	cSegmentNC                     // unreserved / sub-delims / "@" (segment-nz-nc, §3.3, without pct-encoded)
	cQueryValue                    // cQuery but "&", "=", "+", ";": data in a name or value of a form query
)

var class = func() (t [256]uint16) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] |= cAlpha
		t[c-'a'+'A'] |= cAlpha
	}
	for c := '0'; c <= '9'; c++ {
		t[c] |= cDigit | cHex
	}
	for _, c := range "abcdefABCDEF" {
		t[c] |= cHex
	}
	for c := 0; c < 256; c++ {
		if t[c]&(cAlpha|cDigit) != 0 {
			t[c] |= cUnreserved
		}
	}
	for _, c := range "-._~" {
		t[c] |= cUnreserved
	}
	for _, c := range "!$&'()*+,;=" {
		t[c] |= cSubDelims
	}
	for c := 0; c < 256; c++ {
		if t[c]&(cAlpha|cDigit) != 0 {
			t[c] |= cScheme
		}
		if t[c]&(cUnreserved|cSubDelims) != 0 {
			t[c] |= cUserinfo | cRegName | cPchar | cFuture
		}
	}
	for _, c := range "+-." {
		t[c] |= cScheme
	}
	for c := 0; c < 256; c++ {
		if t[c]&(cUnreserved|cSubDelims) != 0 {
			t[c] |= cSegmentNC
		}
	}
	t['@'] |= cSegmentNC
	t[':'] |= cUserinfo | cPchar | cFuture
	t['@'] |= cPchar
	for c := 0; c < 256; c++ {
		if t[c]&cPchar != 0 {
			t[c] |= cPath | cQuery
		}
	}
	t['/'] |= cPath | cQuery
	t['?'] |= cQuery
	for c := 0; c < 256; c++ {
		if t[c]&cQuery != 0 && c != '&' && c != '=' && c != '+' && c != ';' {
			t[c] |= cQueryValue
		}
	}
	return t
}()

func is(c byte, mask uint16) bool { return class[c]&mask != 0 }

// scan returns the index of the first byte at or after i that is neither
// of a class in mask nor the start of a valid pct-encoded (§2.1). It is
// the parser's inner loop: one table lookup per byte.
func scan(s string, i int, mask uint16) int {
	for i < len(s) {
		if class[s[i]]&mask != 0 {
			i++
			continue
		}
		if s[i] == '%' && i+2 < len(s) && class[s[i+1]]&class[s[i+2]]&cHex != 0 {
			i += 3
			continue
		}
		break
	}
	return i
}

// unhex returns the value of a hex digit; the caller has checked it is one.
func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

const upperHex = "0123456789ABCDEF"

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// hasUpper reports whether s has an upper-case ASCII letter.
func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// equalFold compares ASCII strings case-insensitively without allocating.
func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}
