package uri

import (
	"fmt"
	"strconv"
)

// Error is the error of every parsing function: which input, where, and why.
type Error struct {
	Input  string // the text that was parsed
	Offset int    // 0-based byte offset of the first offending byte, or len(Input) when the input ends too early
	Reason string // what is wrong, for a person ("invalid percent-encoding")
}

func (e *Error) Error() string {
	in := e.Input
	if len(in) > 80 {
		in = in[:77] + "..."
	}
	return fmt.Sprintf("uri: %s at byte %d of %s", e.Reason, e.Offset, strconv.Quote(in))
}

func errAt(s string, offset int, reason string) error {
	return &Error{Input: s, Offset: offset, Reason: reason}
}

// errChar reports a character that the component's grammar does not allow.
func errChar(s string, i int, component string) error {
	c := s[i]
	var what string
	switch {
	case c >= 0x80:
		what = "non-ASCII byte " + fmt.Sprintf("0x%02X", c)
	case c < 0x20 || c == 0x7f:
		what = fmt.Sprintf("control character 0x%02X", c)
	case c == ' ':
		what = "space"
	default:
		what = "character " + strconv.QuoteRune(rune(c))
	}
	return errAt(s, i, "invalid "+what+" in "+component)
}
