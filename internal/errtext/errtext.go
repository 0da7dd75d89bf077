// Package errtext writes the parts of a syntax error's message that
// packages uri and iri word alike: the excerpt of the input that shows
// where it breaks, and the name of an offending ASCII byte. Each package
// keeps its own error type and prefix ("uri: ", "iri: ").
package errtext

import (
	"strconv"
	"unicode/utf8"
)

// Excerpt quotes s for a message, Go-style (invalid UTF-8 and control
// characters escaped). When s is longer than width bytes it quotes a
// window of about width bytes around offset, cut at rune boundaries, with
// "..." where text was left out, so that a message about a 10 MB input
// stays short and still shows the offending byte.
func Excerpt(s string, offset, width int) string {
	if len(s) <= width {
		return strconv.Quote(s)
	}
	from := min(max(offset-width/2, 0), len(s))
	to := min(from+width, len(s))
	for from > 0 && from < len(s) && !utf8.RuneStart(s[from]) {
		from--
	}
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	q := strconv.Quote(s[from:to])
	if from > 0 {
		q = "..." + q
	}
	if to < len(s) {
		q += "..."
	}
	return q
}

// AppendASCII appends the name of the ASCII byte c (below 0x80) for a
// message: "control character 0x09", "space", or "character 'x'". It
// appends, rather than returns a string, so that a caller can build its
// whole reason in one buffer on its stack: an error costs one allocation
// for the reason and one for the error.
func AppendASCII(dst []byte, c byte) []byte {
	switch {
	case c < 0x20 || c == 0x7f:
		return AppendHexByte(append(dst, "control character "...), c)
	case c == ' ':
		return append(dst, "space"...)
	}
	return strconv.AppendQuoteRune(append(dst, "character "...), rune(c))
}

// AppendHexByte appends c as "0x" and two upper-case hex digits.
func AppendHexByte(dst []byte, c byte) []byte {
	const hex = "0123456789ABCDEF"
	return append(dst, '0', 'x', hex[c>>4], hex[c&15])
}
