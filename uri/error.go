package uri

import (
	"errors"
	"fmt"

	"github.com/urikit/urikit/internal/errtext"
)

// The kinds of error, for programs: every *Error has one of them as its
// Kind, so that errors.Is(err, uri.ErrInvalidHost) tells what went wrong
// without reading the Reason, which is for people and may be reworded.
var (
	// ErrMissingScheme: a URI (RFC 3986 §3) was required and the input has
	// no scheme, or does not start with a letter.
	ErrMissingScheme = errors.New("uri: missing scheme")
	// ErrInvalidScheme: a character the scheme cannot hold (§3.1), or no
	// ':' after it.
	ErrInvalidScheme = errors.New("uri: invalid scheme")
	// ErrInvalidUserinfo: a character the userinfo cannot hold (§3.2.1).
	ErrInvalidUserinfo = errors.New("uri: invalid userinfo")
	// ErrInvalidHost: a reg-name, IPv4 address or IP literal that breaks
	// §3.2.2, an IPv6 zone identifier (RFC 9844), or a host that Build or
	// ParseUserInput cannot write as one.
	ErrInvalidHost = errors.New("uri: invalid host")
	// ErrInvalidPort: a port that is not digits (§3.2.3).
	ErrInvalidPort = errors.New("uri: invalid port")
	// ErrInvalidPath: a character the path cannot hold (§3.3), a colon in
	// the first segment of a relative path (§4.2), or a path that cannot
	// follow (or stand without) an authority.
	ErrInvalidPath = errors.New("uri: invalid path")
	// ErrInvalidQuery: a character the query cannot hold (§3.4).
	ErrInvalidQuery = errors.New("uri: invalid query")
	// ErrInvalidFragment: a character the fragment cannot hold (§3.5).
	ErrInvalidFragment = errors.New("uri: invalid fragment")
	// ErrInvalidPercentEncoding: a '%' not followed by two hex digits (§2.1),
	// in whatever component.
	ErrInvalidPercentEncoding = errors.New("uri: invalid percent-encoding")
	// ErrNotAbsolute: an absolute URI (§4.3) was required, as the base of a
	// resolution or by ParseAbsolute, and the input has no scheme or has a
	// fragment.
	ErrNotAbsolute = errors.New("uri: not an absolute URI")
	// ErrTooLong: the input does not fit the offsets of a URI value (4 GiB).
	ErrTooLong = errors.New("uri: input too long")
	// ErrAmbiguous: ParseUserInput refuses to guess what the text means
	// (example.com/x: http or https? localhost:8080: a scheme or a host?
	// a stray '%', a backslash, two '@').
	ErrAmbiguous = errors.New("uri: ambiguous input")
	// ErrInvalidText: ParseUserInput got text that no cleaning makes a
	// URI (empty, invalid UTF-8, control characters, unbalanced
	// delimiters), or FromURL and ToURL got a value the other side cannot
	// express.
	ErrInvalidText = errors.New("uri: invalid text")
)

// Error is the error of every function of the package that can fail: what
// kind of problem, in which input, where, and why.
type Error struct {
	Kind   error  // one of the Err… values of this package
	Input  string // the text that was parsed (for Build, the part at fault)
	Offset int    // 0-based byte offset of the first offending byte, or len(Input) when the input ends too early
	Reason string // what is wrong, for a person ("invalid percent-encoding")
}

// Error reads on one line: the reason, the byte, and the input quoted (a
// window of it around the offending byte when it is long).
func (e *Error) Error() string {
	return fmt.Sprintf("uri: %s at byte %d of %s", e.Reason, e.Offset, errtext.Excerpt(e.Input, e.Offset, 80))
}

// Unwrap returns the Kind, so that errors.Is(err, uri.ErrInvalidHost) works.
func (e *Error) Unwrap() error { return e.Kind }

func errAt(kind error, s string, offset int, reason string) error {
	return &Error{Kind: kind, Input: s, Offset: offset, Reason: reason}
}

// errChar reports a character that the component's grammar does not allow.
func errChar(kind error, s string, i int, component string) error {
	var buf [64]byte
	b := append(buf[:0], "invalid "...)
	if c := s[i]; c >= 0x80 {
		b = errtext.AppendHexByte(append(b, "non-ASCII byte "...), c)
	} else {
		b = errtext.AppendASCII(b, c)
	}
	b = append(b, " in "...)
	b = append(b, component...)
	return errAt(kind, s, i, string(b))
}
