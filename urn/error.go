package urn

import "fmt"

// Error is the error of every parser in this package: which input, where,
// and why.
type Error struct {
	Input  string // the text that failed to parse
	Offset int    // 0-based byte offset of the first offending byte, or len(Input) when the input ends too early
	Reason string // what rule was broken, e.g. `NID ends with "-"`
}

// Error reads well on one line, with the input quoted.
func (e *Error) Error() string {
	in := e.Input
	if len(in) > 200 {
		in = in[:200] + "..."
	}
	return fmt.Sprintf("urn: %s at offset %d in %q", e.Reason, e.Offset, in)
}

func errorf(input string, offset int, format string, args ...any) *Error {
	return &Error{Input: input, Offset: offset, Reason: fmt.Sprintf(format, args...)}
}
