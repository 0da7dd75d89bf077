// Package prettyjson indents JSON for a page, within bounds whatever the
// JSON. json.Indent writes each line's indentation in full, so its output
// grows with the square of the nesting: 16 KB of "[" and "]" nested 8000
// deep indent to 134 MB. A record's metadata is stored as its writer gave
// it (a record written before the depth limit on writes may be that deep),
// and is shown on pages anyone may ask for.
package prettyjson

import (
	"bytes"
	"encoding/json"
	"errors"
)

// MaxDepth is how many levels of nesting Indent breaks into lines: the
// values deeper than that are written compact, each on the line of the
// member or element it is. Metadata a write takes today is no deeper
// (resolver.MaxMetadataDepth).
const MaxDepth = 32

// growth bounds the indented text: at most growth times the input, plus
// slack, so that a small value is indented whatever its shape. Metadata
// as it is written (short values, a few levels) grows by 2 to 4 times.
const (
	growth = 8
	slack  = 4 << 10
)

// ErrInvalid is Indent's error for data that is not one JSON value.
var ErrInvalid = errors.New("prettyjson: not a JSON value")

// Indent returns the JSON value data indented by two spaces a level, as
// json.Indent writes it, up to MaxDepth levels. When that would be more
// than growth times the size of data (plus slack), it returns data
// compacted instead: never more than that, and in time linear in
// len(data).
func Indent(data []byte) (string, error) {
	if !json.Valid(data) {
		return "", ErrInvalid
	}
	limit := growth*len(data) + slack
	var b bytes.Buffer
	b.Grow(min(2*len(data), limit))
	if indent(&b, data, limit) {
		return b.String(), nil
	}
	b.Reset()
	json.Compact(&b, data) // valid: it cannot fail
	return b.String(), nil
}

// indent writes the valid JSON value data to b indented, reporting false
// (and leaving b as it is) as soon as b would hold more than limit bytes.
func indent(b *bytes.Buffer, data []byte, limit int) bool {
	depth := 0 // of the values open at i
	newline := func(level int) {
		b.WriteByte('\n')
		for range level {
			b.WriteString("  ")
		}
	}
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case ' ', '\t', '\r', '\n':
		case '"':
			end := stringEnd(data, i)
			b.Write(data[i:end])
			i = end - 1
		case '{', '[':
			b.WriteByte(c)
			// An empty object or array stays on its line, as "{}".
			j := i + 1
			for j < len(data) && isSpace(data[j]) {
				j++
			}
			if j < len(data) && (data[j] == '}' || data[j] == ']') {
				b.WriteByte(data[j])
				i = j
				break
			}
			if depth++; depth <= MaxDepth {
				newline(depth)
			}
		case '}', ']':
			if depth <= MaxDepth {
				newline(depth - 1)
			}
			depth--
			b.WriteByte(c)
		case ',':
			b.WriteByte(c)
			if depth <= MaxDepth {
				newline(depth)
			}
		case ':':
			b.WriteByte(c)
			if depth <= MaxDepth {
				b.WriteByte(' ')
			}
		default:
			b.WriteByte(c)
		}
		if b.Len() > limit {
			return false
		}
	}
	return true
}

// stringEnd returns the offset just past the string that starts at
// data[i], a '"'.
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(data)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
