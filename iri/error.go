package iri

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/urikit/urikit/internal/errtext"
	"github.com/urikit/urikit/uri"
)

// Error is the error of every parsing function: what kind of problem, in
// which input, where, and why. It has the shape of uri.Error.
type Error struct {
	// Kind is one of the Err values below, for errors.Is.
	Kind error
	// Input is the text that was parsed.
	Input string
	// Offset is the 0-based byte offset of the first offending byte (the
	// first byte of the offending character), or len(Input) when the
	// input ends too early.
	Offset int
	// Reason says what is wrong, for a person.
	Reason string
}

// Error reads on one line, as a uri.Error does: the reason, the byte, and
// the input quoted (a window of it around the offending byte when it is
// long).
func (e *Error) Error() string {
	return fmt.Sprintf("iri: %s at byte %d of %s", e.Reason, e.Offset, errtext.Excerpt(e.Input, e.Offset, 80))
}

// Unwrap returns Kind, so that errors.Is(err, iri.ErrInvalidHost) works.
func (e *Error) Unwrap() error { return e.Kind }

// Kinds of Error. The first group are package uri's own sentinels: an IRI
// error of one of these kinds means what the URI error means, and
// errors.Is(err, uri.ErrInvalidHost) holds for both. The second group is
// what only an IRI can get wrong: its characters beyond ASCII.
var (
	ErrMissingScheme          = uri.ErrMissingScheme
	ErrInvalidScheme          = uri.ErrInvalidScheme
	ErrInvalidUserinfo        = uri.ErrInvalidUserinfo
	ErrInvalidHost            = uri.ErrInvalidHost
	ErrInvalidPort            = uri.ErrInvalidPort
	ErrInvalidPath            = uri.ErrInvalidPath
	ErrInvalidQuery           = uri.ErrInvalidQuery
	ErrInvalidFragment        = uri.ErrInvalidFragment
	ErrInvalidPercentEncoding = uri.ErrInvalidPercentEncoding
	// ErrNotAbsolute: an absolute IRI was required, as the base of a
	// resolution or by ParseAbsolute, and the input has no scheme or has
	// a fragment.
	ErrNotAbsolute = uri.ErrNotAbsolute
	ErrTooLong     = uri.ErrTooLong

	// ErrInvalidUTF8: the text is not well-formed UTF-8 (an IRI is a
	// sequence of characters; this package reads them as UTF-8).
	ErrInvalidUTF8 = errors.New("iri: invalid UTF-8")
	// ErrBidiFormatting: a bidirectional formatting character (LRM, RLM,
	// LRE, RLE, PDF, LRO, RLO), which RFC 3987 §4.1 forbids anywhere.
	ErrBidiFormatting = errors.New("iri: bidi formatting character")
	// ErrDisallowedCharacter: a non-ASCII character that may not stand
	// there: not a ucschar (U+FFFD, a C1 control, a noncharacter), a
	// private-use character outside the query, or any non-ASCII character
	// in the scheme, the port or an IP literal (RFC 3987 §2.2).
	ErrDisallowedCharacter = errors.New("iri: character not allowed in an IRI here")
)

func errAt(s string, offset int, kind error, reason string) error {
	return &Error{Kind: kind, Input: s, Offset: offset, Reason: reason}
}

// errChar reports the character at s[i] that the component's grammar does
// not allow; kind is the component's sentinel.
func errChar(s string, i int, component string, kind error) error {
	c := s[i]
	if c >= utf8.RuneSelf {
		return errRune(s, i, component, kind)
	}
	var buf [64]byte
	b := errtext.AppendASCII(append(buf[:0], "invalid "...), c)
	b = append(b, " in "...)
	b = append(b, component...)
	return errAt(s, i, kind, string(b))
}

// errRune explains why the non-ASCII text at s[i] cannot stand in the
// component.
func errRune(s string, i int, component string, kind error) error {
	r, n := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && n <= 1:
		return errAt(s, i, ErrInvalidUTF8, fmt.Sprintf("invalid UTF-8 (byte 0x%02X) in %s", s[i], component))
	case isBidiFormat(r):
		return errAt(s, i, ErrBidiFormatting, fmt.Sprintf("bidi formatting character %U in %s (RFC 3987 §4.1 forbids it in an IRI; percent-encode it)", r, component))
	case kind == ErrInvalidScheme || kind == ErrInvalidPort || kind == ErrInvalidHost && component == "IP literal":
		return errAt(s, i, ErrDisallowedCharacter, fmt.Sprintf("non-ASCII character %U in %s (only ASCII is allowed there)", r, component))
	case isIPrivate(r):
		return errAt(s, i, ErrDisallowedCharacter, fmt.Sprintf("private-use character %U in %s (allowed in the query only)", r, component))
	}
	return errAt(s, i, ErrDisallowedCharacter, fmt.Sprintf("character %U in %s (not a ucschar of RFC 3987 §2.2; percent-encode it)", r, component))
}
