package federate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/urikit/urikit/resolver"
)

// Subst is a parsed DDDS substitution expression (RFC 3402 §3.2): a POSIX
// Extended Regular Expression and a replacement with back-references,
// between three delimiters, and the flag "i":
//
//	subst-expr   = delim-char  ere  delim-char  repl  delim-char  *flags
//	repl         = *(string / backref)
//	string       = *(anychar / escapeddelim)
//	escapeddelim = "\" delim-char
//	backref      = "\" POS-DIGIT
//	flags        = "i"
//
// It is applied to the Application Unique String, never to the output of an
// earlier rule (RFC 3402 §3), and its output is the replacement alone with
// the back-references filled in, not the string with the match replaced as
// in sed: RFC 3404 §5.3's "!^http://([^/:]+)!\1!i" yields the host name and
// nothing after it.
//
// The ERE is translated by hand into Go's regexp syntax, which can express
// every POSIX ERE construct (none has back-references), and matched
// leftmost-longest as POSIX asks. One difference is left: when several
// leftmost-longest matches assign different text to the subexpressions, Go
// picks the one a backtracking matcher finds first, where POSIX asks for the
// longest subexpressions from the left.
//
// A Subst is immutable and safe for concurrent use; the zero Subst matches
// nothing.
type Subst struct {
	text   string // the whole expression, as given
	delim  byte
	ereEnd int // text[1:ereEnd] is the ERE; text[ereEnd] the second delimiter
	repEnd int // text[ereEnd+1:repEnd] the replacement; text[repEnd] the third
	fold   bool
	re     *regexp.Regexp
	groups int
	repl   []replPart
}

// replPart is a literal piece of the replacement, or a back-reference when
// ref > 0.
type replPart struct {
	lit string
	ref int
}

// SubstError is a syntax error in a substitution expression.
type SubstError struct {
	Input  string // the expression, zone-file escaping already undone
	Offset int    // byte offset of the fault within Input
	Reason string
}

func (e *SubstError) Error() string {
	return fmt.Sprintf("substitution expression %s: %s (at byte %d)", strconv.Quote(e.Input), e.Reason, e.Offset)
}

func substErr(s string, off int, format string, args ...any) *SubstError {
	return &SubstError{Input: s, Offset: off, Reason: fmt.Sprintf(format, args...)}
}

// reDupMax is POSIX's RE_DUP_MAX floor (_POSIX_RE_DUP_MAX): the largest
// count an interval expression may give.
const reDupMax = 255

// ParseSubst parses a substitution expression: the NAPTR REGEXP field as it
// travels in DNS messages, the zone-file escaping already undone (see
// UnescapeCharString).
func ParseSubst(s string) (Subst, error) {
	if s == "" {
		return Subst{}, substErr(s, 0, "empty expression")
	}
	d := s[0]
	switch {
	case d >= '0' && d <= '9':
		// RFC 3402 §3.2: digits MUST NOT be delimiters, or "\1" would
		// be ambiguous.
		return Subst{}, substErr(s, 0, "a digit cannot be the delimiter")
	case d == 'i':
		return Subst{}, substErr(s, 0, `the flag character "i" cannot be the delimiter`)
	case d == '\\':
		return Subst{}, substErr(s, 0, `"\" cannot be the delimiter: it escapes the delimiter`)
	case d >= 0x80:
		// The field is UTF-8 (RFC 3403 §3): a byte of a multi-byte
		// character is no character of its own.
		return Subst{}, substErr(s, 0, "the delimiter must be an ASCII character")
	}
	// The ERE ends at the first delimiter that is not escaped; inside an
	// ERE a backslash always quotes the byte after it (POSIX QUOTED_CHAR),
	// so "\\" followed by the delimiter ends it.
	i := 1
	for ; i < len(s) && s[i] != d; i++ {
		if s[i] == '\\' {
			i++
		}
	}
	if i >= len(s) {
		return Subst{}, substErr(s, len(s), "missing the second delimiter %q", d)
	}
	ereEnd := i
	// The replacement ends at the next delimiter not written as
	// escapeddelim; any other backslash is an anychar or starts a backref.
	// A delimiter right after a backslash is always escapeddelim, even
	// after another backslash: the grammar has no escape for "" itself,
	// and no URI or domain name a replacement builds holds one.
	for i++; i < len(s) && s[i] != d; i++ {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == d {
			i++
		}
	}
	if i >= len(s) {
		return Subst{}, substErr(s, len(s), "missing the third delimiter %q", d)
	}
	repEnd := i
	x := Subst{text: s, delim: d, ereEnd: ereEnd, repEnd: repEnd}
	for j := repEnd + 1; j < len(s); j++ {
		if s[j] != 'i' {
			return Subst{}, substErr(s, j, `unknown flag %q: the only flag is "i"`, s[j])
		}
		x.fold = true
	}
	goRE, groups, err := translateERE(s, 1, ereEnd, d)
	if err != nil {
		return Subst{}, err
	}
	if x.fold {
		goRE = "(?i)" + goRE
	}
	re, cerr := regexp.Compile(goRE)
	if cerr != nil {
		// The translation only emits valid syntax; what is left is
		// Go's size limits (nested counted repetitions).
		return Subst{}, substErr(s, 1, "regular expression too large: %v", cerr)
	}
	re.Longest() // POSIX: leftmost-longest
	x.re, x.groups = re, groups
	x.repl, err = parseRepl(s, ereEnd+1, repEnd, d, groups)
	if err != nil {
		return Subst{}, err
	}
	return x, nil
}

// parseRepl parses the replacement s[start:end].
func parseRepl(s string, start, end int, d byte, groups int) ([]replPart, error) {
	var parts []replPart
	var lit strings.Builder
	for i := start; i < end; i++ {
		c := s[i]
		if c == '\\' && i+1 < end {
			switch n := s[i+1]; {
			case n == d: // escapeddelim
				lit.WriteByte(d)
				i++
				continue
			case n >= '1' && n <= '9': // backref
				k := int(n - '0')
				if k > groups {
					// RFC 3402 §3.2: "\5..\9 = error - no matching
					// subexpression".
					return nil, substErr(s, i, `\%d refers to no subexpression: the ERE has %d`, k, groups)
				}
				if lit.Len() > 0 {
					parts = append(parts, replPart{lit: lit.String()})
					lit.Reset()
				}
				parts = append(parts, replPart{ref: k})
				i++
				continue
			}
		}
		lit.WriteByte(c) // anychar, a lone backslash included
	}
	if lit.Len() > 0 {
		parts = append(parts, replPart{lit: lit.String()})
	}
	return parts, nil
}

// String returns the expression as it was parsed.
func (x Subst) String() string { return x.text }

// ERE returns the regular expression as written between the delimiters.
func (x Subst) ERE() string {
	if x.re == nil {
		return ""
	}
	return x.text[1:x.ereEnd]
}

// Replacement returns the replacement as written between the delimiters.
func (x Subst) Replacement() string {
	if x.re == nil {
		return ""
	}
	return x.text[x.ereEnd+1 : x.repEnd]
}

// Delimiter returns the delimiter character.
func (x Subst) Delimiter() byte { return x.delim }

// CaseInsensitive reports whether the "i" flag was given.
func (x Subst) CaseInsensitive() bool { return x.fold }

// Subexpressions returns the number of parenthesized subexpressions.
func (x Subst) Subexpressions() int { return x.groups }

// MaxOutput bounds what a substitution expression may produce: a "U"
// rule's output is a redirect, and a location's URL has at most
// resolver.MaxURLBytes bytes; keys and host names are far shorter. A
// replacement that repeats a back-reference could otherwise build a
// string many times the name's length.
const MaxOutput = resolver.MaxURLBytes

// ErrOutputTooLong is Apply's error for a result longer than MaxOutput.
var ErrOutputTooLong = fmt.Errorf("the output would be longer than %d bytes", MaxOutput)

// Apply applies the expression to s: when the ERE matches, the result is
// the replacement with each back-reference replaced by the (possibly
// empty) text its subexpression matched, or by nothing when the
// subexpression took no part in the match. ok is false when the ERE does
// not match or the result is empty: RFC 3402 §3.3 step 3 takes the first
// rule that produces a non-empty string. A result longer than MaxOutput
// bytes is not built: the error is ErrOutputTooLong (ok false; the ERE
// matched).
func (x Subst) Apply(s string) (out string, ok bool, err error) {
	if x.re == nil {
		return "", false, nil
	}
	m := x.re.FindStringSubmatchIndex(s)
	if m == nil {
		return "", false, nil
	}
	// The length first, so that the string is built only when it fits.
	n := 0
	for _, p := range x.repl {
		if p.ref == 0 {
			n += len(p.lit)
		} else if lo, hi := m[2*p.ref], m[2*p.ref+1]; lo >= 0 {
			n += hi - lo
		}
		if n > MaxOutput {
			return "", false, ErrOutputTooLong
		}
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range x.repl {
		if p.ref == 0 {
			b.WriteString(p.lit)
			continue
		}
		if lo, hi := m[2*p.ref], m[2*p.ref+1]; lo >= 0 {
			b.WriteString(s[lo:hi])
		}
	}
	return b.String(), b.Len() > 0, nil
}

// translateERE translates the POSIX ERE s[start:end] (IEEE Std 1003.1,
// XBD §9.4) into Go regexp syntax and counts its subexpressions. d is the
// delimiter: "\" d stands for d as a literal character, in and out of
// bracket expressions (RFC 3402 §3.2: escaped delimiters "will be
// interpreted as occurrences of that character"). Constructs POSIX leaves
// undefined are errors rather than guesses: a repetition with nothing to
// repeat, two repetitions in a row (Go would read "*?" as a lazy star),
// empty alternatives and subexpressions, "\" before a letter or digit (Go
// would read "\d" as a class, and back-references are BRE only), and "-"
// after a range in a bracket expression.
func translateERE(s string, start, end int, d byte) (string, int, error) {
	if start == end {
		return "", 0, substErr(s, start, "empty regular expression")
	}
	var b strings.Builder
	// (?s): "." matches every character in POSIX, newline included.
	b.WriteString("(?s)")
	groups, depth := 0, 0
	var opens []int // offsets of the open parentheses, for errors
	canRepeat := false
	empty := true // nothing since the start, "(" or "|"
	for i := start; i < end; {
		c := s[i]
		switch c {
		case '\\':
			if i+1 >= end {
				return "", 0, substErr(s, i, `"\" at the end of the regular expression`)
			}
			n := s[i+1]
			switch {
			case n == d:
				b.WriteString(regexp.QuoteMeta(string(d)))
			case strings.IndexByte(`^.[$()|*+?{\`, n) >= 0:
				b.WriteByte('\\')
				b.WriteByte(n)
			case n >= '1' && n <= '9':
				return "", 0, substErr(s, i, `back-reference \%c in the regular expression: EREs have none (only the replacement does)`, n)
			case n < 0x80 && (isAlnum(n) || n < ' ' || n == 0x7f):
				return "", 0, substErr(s, i, `"\%c" is not defined in a POSIX ERE`, n)
			case n >= 0x80:
				return "", 0, substErr(s, i, `"\" before a non-ASCII character is not defined in a POSIX ERE`)
			default: // other punctuation: the character itself
				b.WriteString(regexp.QuoteMeta(string(n)))
			}
			i += 2
			canRepeat, empty = true, false
		case '.':
			b.WriteByte('.')
			i++
			canRepeat, empty = true, false
		case '^', '$':
			b.WriteByte(c)
			i++
			canRepeat, empty = false, false
		case '(':
			b.WriteByte('(')
			opens = append(opens, i)
			groups++
			depth++
			i++
			canRepeat, empty = false, true
		case ')':
			if depth == 0 {
				return "", 0, substErr(s, i, `")" without "("`)
			}
			if empty {
				return "", 0, substErr(s, i, "empty subexpression or alternative")
			}
			b.WriteByte(')')
			depth--
			opens = opens[:len(opens)-1]
			i++
			canRepeat, empty = true, false
		case '|':
			if empty {
				return "", 0, substErr(s, i, "empty alternative before \"|\"")
			}
			b.WriteByte('|')
			i++
			canRepeat, empty = false, true
		case '*', '+', '?':
			if !canRepeat {
				return "", 0, substErr(s, i, "%q repeats nothing (or repeats a repetition)", c)
			}
			b.WriteByte(c)
			i++
			canRepeat = false
		case '{':
			if !canRepeat {
				return "", 0, substErr(s, i, `"{" repeats nothing (or repeats a repetition)`)
			}
			j, lo, hi, err := parseInterval(s, i, end)
			if err != nil {
				return "", 0, err
			}
			b.WriteByte('{')
			b.WriteString(strconv.Itoa(lo))
			switch {
			case hi == lo:
			case hi < 0:
				b.WriteByte(',')
			default:
				b.WriteByte(',')
				b.WriteString(strconv.Itoa(hi))
			}
			b.WriteByte('}')
			i = j
			canRepeat = false
		case '[':
			j, err := translateBracket(&b, s, i, end, d)
			if err != nil {
				return "", 0, err
			}
			i = j
			canRepeat, empty = true, false
		default:
			r, size := utf8.DecodeRuneInString(s[i:end])
			if r == utf8.RuneError && size <= 1 {
				return "", 0, substErr(s, i, "invalid UTF-8")
			}
			b.WriteString(regexp.QuoteMeta(s[i : i+size]))
			i += size
			canRepeat, empty = true, false
		}
	}
	if depth > 0 {
		return "", 0, substErr(s, opens[len(opens)-1], `"(" without ")"`)
	}
	if empty {
		return "", 0, substErr(s, end, "empty alternative at the end")
	}
	return b.String(), groups, nil
}

// parseInterval parses "{m}", "{m,}" or "{m,n}" at s[i] == '{'; hi is -1
// for "{m,}".
func parseInterval(s string, i, end int) (next, lo, hi int, err error) {
	j := i + 1
	num := func() (int, bool) {
		k := j
		v := 0
		for j < end && s[j] >= '0' && s[j] <= '9' {
			if v <= reDupMax {
				v = v*10 + int(s[j]-'0')
			}
			j++
		}
		return v, j > k
	}
	lo, ok := num()
	if !ok {
		return 0, 0, 0, substErr(s, j, `"{" starts no interval: a count must follow`)
	}
	hi = lo
	if j < end && s[j] == ',' {
		j++
		hi = -1
		if v, ok := num(); ok {
			hi = v
		}
	}
	if j >= end || s[j] != '}' {
		return 0, 0, 0, substErr(s, j, `interval without "}"`)
	}
	if lo > reDupMax || hi > reDupMax {
		return 0, 0, 0, substErr(s, i, "interval count over %d (RE_DUP_MAX)", reDupMax)
	}
	if hi >= 0 && hi < lo {
		return 0, 0, 0, substErr(s, i, "interval {%d,%d}: the second count is smaller", lo, hi)
	}
	return j + 1, lo, hi, nil
}

// posixClasses are the character class names every POSIX locale has.
var posixClasses = [...]string{"alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "xdigit"}

// translateBracket translates the bracket expression at s[i] == '[' and
// returns the offset after it. In a bracket expression a backslash is an
// ordinary character (POSIX XBD §9.3.5), except that "\" d is the
// delimiter (RFC 3402's escapeddelim, undone before the ERE is read).
func translateBracket(b *strings.Builder, s string, i, end int, d byte) (int, error) {
	open := i
	i++
	b.WriteByte('[')
	if i < end && s[i] == '^' {
		b.WriteByte('^')
		i++
	}
	first := true
	// point reads one end point of a range or a single member: a
	// character, an escaped delimiter or a collating symbol [.c.].
	point := func() (rune, int, error) {
		if s[i] == '\\' && i+1 < end && s[i+1] == d {
			return rune(d), i + 2, nil
		}
		if s[i] == '[' && i+1 < end && s[i+1] == '.' {
			return bracketName(s, i, end, '.')
		}
		r, size := utf8.DecodeRuneInString(s[i:end])
		if r == utf8.RuneError && size <= 1 {
			return 0, 0, substErr(s, i, "invalid UTF-8")
		}
		return r, i + size, nil
	}
	for {
		if i >= end {
			return 0, substErr(s, open, `"[" without "]"`)
		}
		c := s[i]
		if c == ']' && !first {
			b.WriteByte(']')
			return i + 1, nil
		}
		atStart := first
		first = false
		if c == '[' && i+1 < end && s[i+1] == ':' {
			k := strings.Index(s[i+2:end], ":]")
			if k < 0 {
				return 0, substErr(s, i, `"[:" without ":]"`)
			}
			name := s[i+2 : i+2+k]
			known := false
			for _, n := range posixClasses {
				known = known || n == name
			}
			if !known {
				return 0, substErr(s, i, "unknown character class [:%s:]", name)
			}
			b.WriteString("[:" + name + ":]")
			i += k + 4
			continue
		}
		if c == '[' && i+1 < end && s[i+1] == '=' {
			// An equivalence class of one character is that character
			// in a locale without collation (RFC 3403 §3: no locale).
			r, j, err := bracketName(s, i, end, '=')
			if err != nil {
				return 0, err
			}
			writeClassRune(b, r)
			i = j
			continue
		}
		// A "-" here is a member only first or last in the list (POSIX
		// XBD §9.3.5); after a range or a class it is undefined.
		if c == '-' && !atStart && !(i+1 < end && s[i+1] == ']') {
			return 0, substErr(s, i, `"-" in a bracket expression is a member only first or last, or an end point of a range`)
		}
		lo, j, err := point()
		if err != nil {
			return 0, err
		}
		// A range "a-z": "-" not last, and not starting the list.
		if j+1 < end && s[j] == '-' && s[j+1] != ']' {
			i = j + 1
			if s[i] == '[' && i+1 < end && (s[i+1] == '=' || s[i+1] == ':') {
				return 0, substErr(s, i, "a class cannot end a range")
			}
			hi, k, err := point()
			if err != nil {
				return 0, err
			}
			if hi < lo {
				return 0, substErr(s, j-1, "range %q-%q is out of order", lo, hi)
			}
			writeClassRune(b, lo)
			b.WriteByte('-')
			writeClassRune(b, hi)
			i = k
			continue
		}
		writeClassRune(b, lo)
		i = j
	}
}

// bracketName reads "[.c.]" or "[=c=]" (kind '.' or '=') at s[i] and
// returns its single character: multi-character collating elements exist
// in no locale this application uses.
func bracketName(s string, i, end int, kind byte) (rune, int, error) {
	closer := string([]byte{kind, ']'})
	k := strings.Index(s[i+2:end], closer)
	if k < 0 {
		return 0, 0, substErr(s, i, "%q without %q", s[i:i+2], closer)
	}
	body := s[i+2 : i+2+k]
	r, size := utf8.DecodeRuneInString(body)
	if body == "" || size != len(body) || r == utf8.RuneError && size <= 1 {
		return 0, 0, substErr(s, i, "%s%s holds one character", s[i:i+2], closer)
	}
	return r, i + 2 + k + 2, nil
}

// writeClassRune writes r as a member of a Go character class.
func writeClassRune(b *strings.Builder, r rune) {
	if r < 0x80 && strings.ContainsRune(`\]-^[`, r) {
		b.WriteByte('\\')
	}
	b.WriteRune(r)
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
