package iri

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Error is the error of every parsing function: which input, where, what
// kind of problem and why.
type Error struct {
	// Kind is one of the Err sentinels below, for errors.Is.
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

func (e *Error) Error() string {
	in := e.Input
	if len(in) > 80 {
		cut := 77
		for cut > 0 && !utf8.RuneStart(in[cut]) {
			cut--
		}
		in = in[:cut] + "..."
	}
	return fmt.Sprintf("iri: %s at byte %d of %s", e.Reason, e.Offset, strconv.Quote(in))
}

// Unwrap returns Kind, so that errors.Is(err, iri.ErrInvalidHost) works.
func (e *Error) Unwrap() error { return e.Kind }

// Kinds of Error. The first group means what the sentinels of the same
// names mean for a URI (package uri); the second is what only an IRI can
// get wrong.
var (
	ErrMissingScheme          = errors.New("missing scheme")
	ErrInvalidScheme          = errors.New("invalid scheme")
	ErrInvalidUserinfo        = errors.New("invalid userinfo")
	ErrInvalidHost            = errors.New("invalid host")
	ErrInvalidPort            = errors.New("invalid port")
	ErrInvalidPath            = errors.New("invalid path")
	ErrInvalidQuery           = errors.New("invalid query")
	ErrInvalidFragment        = errors.New("invalid fragment")
	ErrInvalidPercentEncoding = errors.New("invalid percent-encoding")
	ErrFragmentNotAllowed     = errors.New("fragment not allowed in an absolute IRI")
	ErrTooLong                = errors.New("IRI too long")
	ErrBaseNotAbsolute        = errors.New("base is not an absolute IRI")

	// ErrInvalidUTF8: the text is not well-formed UTF-8 (an IRI is a
	// sequence of characters; this package reads them as UTF-8).
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
	// ErrBidiFormatting: a bidirectional formatting character (LRM, RLM,
	// LRE, RLE, PDF, LRO, RLO), which RFC 3987 §4.1 forbids anywhere.
	ErrBidiFormatting = errors.New("bidi formatting character")
	// ErrDisallowedCharacter: a non-ASCII character that may not stand
	// there: not a ucschar (U+FFFD, a C1 control, a noncharacter), a
	// private-use character outside the query, or any non-ASCII character
	// in the scheme, the port or an IP literal (RFC 3987 §2.2).
	ErrDisallowedCharacter = errors.New("character not allowed in an IRI here")
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
	var what string
	switch {
	case c < 0x20 || c == 0x7f:
		what = fmt.Sprintf("control character 0x%02X", c)
	case c == ' ':
		what = "space"
	default:
		what = "character " + strconv.QuoteRune(rune(c))
	}
	return errAt(s, i, kind, "invalid "+what+" in "+component)
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
