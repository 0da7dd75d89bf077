package resolver

import (
	"errors"
	"fmt"
	"time"
)

// Kind classifies a Service error for its callers: the HTTP layer maps each
// kind to one status code, the CLI to one message style.
type Kind uint8

const (
	KindInternal     Kind = iota // a bug or an unexpected store error
	KindInvalid                  // the request itself is wrong (400)
	KindUnauthorized             // no credentials, or unknown ones (401)
	KindForbidden                // valid credentials, not allowed here (403)
	KindNotFound                 // no such name, authority, token or rule (404)
	KindConflict                 // clashes with what is stored (409)
	KindUnavailable              // the store is down or slow (503)
	KindPrecondition             // a condition of the request is false (412)
)

var kindNames = [...]string{"internal", "invalid", "unauthorized", "forbidden", "not-found", "conflict", "unavailable", "precondition-failed"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Error is every error the Service returns.
type Error struct {
	Kind    Kind
	Message string // what is wrong, for a person, on one line
	Field   string // the input at fault ("urn", "locations[1].url"), if any
	Offset  int    // byte offset of a syntax error within Field's value, or -1
	Record  string // for KindConflict: the name of the record in the way
	ETag    string // for KindPrecondition: the current record's ETag, "" when there is none
	// LastModified is, for KindPrecondition, the current record's
	// (Record.LastModified); zero when there is none.
	LastModified time.Time
	Err          error // the underlying error, if any
}

func (e *Error) Error() string {
	msg := e.Message
	if e.Field != "" {
		msg = e.Field + ": " + msg
	}
	if e.Offset >= 0 {
		msg += fmt.Sprintf(" (at byte %d)", e.Offset)
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the kind of err: the Kind of the *Error inside it, or
// KindUnavailable for a wrapped ErrUnavailable, else KindInternal.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	if errors.Is(err, ErrUnavailable) {
		return KindUnavailable
	}
	if errors.Is(err, ErrNotFound) {
		return KindNotFound
	}
	return KindInternal
}

func errorf(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, args...), Offset: -1}
}

// invalid is a KindInvalid error about one field; offset is -1 when the
// error is not about one byte.
func invalid(field string, offset int, format string, args ...any) *Error {
	return &Error{Kind: KindInvalid, Field: field, Offset: offset, Message: fmt.Sprintf(format, args...)}
}

// storeError turns an error from the store into one for callers, keeping
// the kinds callers act on.
func storeError(err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if errors.Is(err, ErrUnavailable) {
		return &Error{Kind: KindUnavailable, Message: UnavailableMessage(err), Offset: -1, Err: err}
	}
	return &Error{Kind: KindInternal, Message: "store error", Offset: -1, Err: err}
}

// UnavailableMessage is what a caller is told of err, an ErrUnavailable
// from the store. The cause itself stays in the chain for the log (Cause):
// it names hosts, users and databases, which are not for anonymous
// callers. Only a NewerSchemaError, which names nothing but versions and
// what to do, is told as it is.
func UnavailableMessage(err error) string {
	const msg = "the directory's store is unavailable"
	var ns *NewerSchemaError
	if errors.As(err, &ns) {
		return msg + ": " + ns.Error()
	}
	return msg
}

// Cause is what err says beyond its message, for the log: the text of the
// error an *Error wraps (Err), the store's own words, or "" when there is
// nothing more. Error() leaves it out, since callers see that text.
func Cause(err error) string {
	var e *Error
	if !errors.As(err, &e) || e.Err == nil {
		return ""
	}
	return e.Err.Error()
}
