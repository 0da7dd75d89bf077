package uri

import "github.com/urikit/urikit/internal/ascii"

// Character classes of RFC 3986 Appendix A, one bit per ABNF rule a byte can
// belong to; the table and the rules are internal/ascii's, shared with urn
// and extract. The parser asks one table lookup per byte.
const (
	cAlpha      = ascii.Alpha      // ALPHA
	cDigit      = ascii.Digit      // DIGIT
	cHex        = ascii.Hex        // HEXDIG
	cUnreserved = ascii.Unreserved // unreserved
	cScheme     = ascii.Scheme     // ALPHA / DIGIT / "+" / "-" / "." (scheme after its first letter)
	cUserinfo   = ascii.Userinfo   // unreserved / sub-delims / ":" (pct-encoded handled apart)
	cRegName    = ascii.RegName    // unreserved / sub-delims
	cPchar      = ascii.Pchar      // unreserved / sub-delims / ":" / "@"
	cPath       = ascii.Path       // pchar / "/"
	cQuery      = ascii.Query      // pchar / "/" / "?" (query and fragment alike)
	cSegmentNC  = ascii.SegmentNC  // unreserved / sub-delims / "@" (segment-nz-nc, §3.3, without pct-encoded)
	cSubDelims  = ascii.SubDelims  // sub-delims
	cQueryValue = ascii.QueryValue // cQuery but "&", "=", "+", ";": data in a name or value of a form query
)

// class is ascii.Table, held in this package so that the scan loops index
// a table of their own package.
var class = ascii.Table

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

func unhex(c byte) byte { return ascii.Unhex(c) }

const upperHex = ascii.UpperHex

func lower(c byte) byte { return ascii.ToLower(c) }

// equalFold compares ASCII strings case-insensitively without allocating.
func equalFold(a, b string) bool { return ascii.EqualFold(a, b) }
