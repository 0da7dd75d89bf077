package resolver

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
)

// ETag returns the record's entity tag (RFC 9110 §8.8.3): a strong
// validator of its JSON form (MarshalJSON, the body of GET
// /api/v1/names/{urn}), quoted as the ETag header carries it.
//
// It is the SHA-256 of that form, which RFC 9110 §8.8.1 names as
// sufficient for a strong validator. It is exact where the record's
// Updated alone is not: a change is stamped with the history's last time
// when the clock reads earlier (Service.stamp), so two changes can share
// an Updated, but never a form. A write that changes nothing (an
// identical PUT, a repeated withdrawal) leaves the form, and so the tag,
// as it was; a record whose form comes back to an earlier one exactly,
// updated time included, has the same representation and the same tag.
// Being computed from the record alone, the tag of a GET always belongs
// to the body it comes with, whichever store or cache answered, and a
// write compares it with the record it reads in its own transaction.
func (r Record) ETag() string {
	b, err := r.MarshalJSON()
	if err != nil {
		return "" // a record the API could not show either
	}
	sum := sha256.Sum256(b)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:]) + `"`
}

// Precondition is what a conditional write requires of the record that
// the name currently has (RFC 9110 §13.1.1 If-Match, §13.1.2
// If-None-Match). Put and Withdraw evaluate it in the write's own store
// transaction, against the record read there, so that of two writers that
// read the same state and both require it, one writes and the other gets
// KindPrecondition: a read-edit-write cycle loses no one's change.
//
// Each list holds entity-tags as a client sends them (`"x"`, `W/"x"`), or
// the single "*". nil means the header was not sent; an empty list that
// is not nil is a header that named no tag (so If-Match fails).
type Precondition struct {
	// IfMatch: the write happens only when there is a current record whose
	// ETag is one of these by strong comparison (RFC 9110 §8.8.3.2), or,
	// with "*", when there is a current record at all.
	IfMatch []string
	// IfNoneMatch: the write happens only when the current record's ETag
	// is none of these by weak comparison, or, with "*", when the name has
	// no current record (create only).
	IfNoneMatch []string
}

// Failed returns the name of the header whose condition is false for
// current (nil when the name has no current record): "If-Match",
// "If-None-Match", or "" when both hold. If-Match is evaluated first
// (RFC 9110 §13.2.2). A GET answers a false If-None-Match with 304, a
// write with 412.
func (pc Precondition) Failed(current *Record) string {
	etag := ""
	if current != nil {
		etag = current.ETag()
	}
	if pc.IfMatch != nil && !matchesAny(pc.IfMatch, current != nil, etag, true) {
		return "If-Match"
	}
	if pc.IfNoneMatch != nil && matchesAny(pc.IfNoneMatch, current != nil, etag, false) {
		return "If-None-Match"
	}
	return ""
}

// matchesAny reports whether etag (the current record's; exists false
// when there is none) matches one of tags: "*" matches any current
// record; otherwise strong comparison needs both tags strong and their
// opaque parts equal, weak comparison only the opaque parts equal (RFC
// 9110 §8.8.3.2).
func matchesAny(tags []string, exists bool, etag string, strong bool) bool {
	if !exists {
		return false
	}
	for _, t := range tags {
		if t == "*" {
			return true
		}
		weak := strings.HasPrefix(t, "W/")
		if strong && weak {
			continue
		}
		if strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// Check returns nil when pc holds for current (nil when name has no
// current record), else a KindPrecondition error whose Field is the header
// that is false and whose ETag is current's.
func (pc Precondition) Check(name string, current *Record) error {
	header := pc.Failed(current)
	if header == "" {
		return nil
	}
	e := errorf(KindPrecondition, "no record for %s", name)
	e.Field = header
	if current != nil {
		e.ETag = current.ETag()
		if header == "If-Match" {
			e.Message = fmt.Sprintf("the current entity-tag of %s is %s, none of those given", name, e.ETag)
		} else {
			e.Message = fmt.Sprintf("%s has a record already (entity-tag %s)", name, e.ETag)
		}
	}
	return e
}

// checkPreconditions checks each of pre in a write's transaction (see
// Check).
func checkPreconditions(pre []Precondition, name string, current *Record) error {
	for _, pc := range pre {
		if err := pc.Check(name, current); err != nil {
			return err
		}
	}
	return nil
}
