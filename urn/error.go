package urn

import (
	"errors"
	"fmt"

	"github.com/urikit/urikit/internal/errtext"
)

// The kinds of error, for programs: every *Error has one of them as its
// Kind (and *NamespaceError unwraps to ErrNamespace), so that
// errors.Is(err, urn.ErrInvalidNID) tells what went wrong without reading
// the Reason, which is for people and may be reworded.
var (
	// ErrInvalidPrefix: the input does not start with "urn:" (any case).
	ErrInvalidPrefix = errors.New(`urn: missing "urn:" prefix`)
	// ErrInvalidNID: the NID breaks RFC 8141 §2 (length 2 to 32, letters,
	// digits and inner hyphens) or no ':' follows it.
	ErrInvalidNID = errors.New("urn: invalid NID")
	// ErrInvalidNSS: the NSS is empty, starts with "/", or holds a
	// character RFC 8141 §2 does not allow there.
	ErrInvalidNSS = errors.New("urn: invalid NSS")
	// ErrInvalidComponent: an r-, q- or f-component breaks RFC 8141 §2
	// (empty, or a character it cannot hold).
	ErrInvalidComponent = errors.New("urn: invalid r-, q- or f-component")
	// ErrPlainQuery: a "?" followed by neither "+" nor "=" (RFC 8141 §2).
	// The 2012 draft wrote resolution directives that way; ParseRequest
	// reads them.
	ErrPlainQuery = errors.New(`urn: "?" not followed by "+" or "="`)
	// ErrInvalidPercentEncoding: a '%' not followed by two hex digits
	// (RFC 3986 §2.1).
	ErrInvalidPercentEncoding = errors.New("urn: invalid percent-encoding")
	// ErrTooLong: the input does not fit the offsets of a URN value (4 GiB).
	ErrTooLong = errors.New("urn: input too long")
	// ErrInvalidDirective: a list of resolution directives (2012 draft
	// §2.3, keywd=value&...) that breaks the draft's grammar.
	ErrInvalidDirective = errors.New("urn: invalid directive list")
	// ErrInvalidLegacy: a URN of the 1993 form <URN:encoding:scheme-id:
	// authority-id:opaque> that breaks that draft's grammar.
	ErrInvalidLegacy = errors.New("urn: invalid 1993-form URN")
	// ErrNamespace: the NSS breaks its namespace's own syntax (an ISBN
	// with a wrong check digit, a UUID of 35 characters). Validate reports
	// it as a *NamespaceError, which unwraps to this.
	ErrNamespace = errors.New("urn: NSS breaks its namespace's rules")
)

// Error is the error of every parser in this package: what kind of
// problem, in which input, where, and why. It has the shape of uri.Error.
type Error struct {
	Kind   error  // one of the Err… values of this package
	Input  string // the text that failed to parse
	Offset int    // 0-based byte offset of the first offending byte, or len(Input) when the input ends too early
	Reason string // what rule was broken, e.g. `NID ends with "-"`
}

// Error reads on one line: the reason, the byte, and the input quoted (a
// window of it around the offending byte when it is long).
func (e *Error) Error() string {
	return fmt.Sprintf("urn: %s at byte %d of %s", e.Reason, e.Offset, errtext.Excerpt(e.Input, e.Offset, 80))
}

// Unwrap returns the Kind, so that errors.Is(err, urn.ErrInvalidNID) works.
func (e *Error) Unwrap() error { return e.Kind }

func errorf(kind error, input string, offset int, format string, args ...any) *Error {
	return &Error{Kind: kind, Input: input, Offset: offset, Reason: fmt.Sprintf(format, args...)}
}
