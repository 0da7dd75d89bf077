package resolver

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"time"
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

// LastModified returns the record's last modification date as the
// Last-Modified header carries it (RFC 9110 §8.8.2): its Updated, to the
// second, since an HTTP-date has no finer precision. It is a weak
// validator where ETag is a strong one: two changes within one second
// share it (§8.8.2.2), which is why If-Match, when sent, decides instead
// of If-Unmodified-Since (§13.1.4).
func (r Record) LastModified() time.Time {
	return r.Updated.UTC().Truncate(time.Second)
}

// Precondition is what a conditional write requires of the record that
// the name currently has (RFC 9110 §13.1.1 If-Match, §13.1.2
// If-None-Match, §13.1.4 If-Unmodified-Since). Put and Withdraw evaluate
// it in the write's own store transaction, against the record read there,
// so that of two writers that read the same state and both require it,
// one writes and the other gets KindPrecondition: a read-edit-write cycle
// loses no one's change.
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
	// IfUnmodifiedSince: the write happens only when the current record's
	// LastModified is not after this time. nil means the header was not
	// sent or was not a valid HTTP-date, which RFC 9110 §13.1.4 says to
	// ignore. It is ignored, too, when IfMatch is not nil (the more
	// accurate condition replaces it, §13.1.4) and when the name has no
	// current record, which has no modification date: a PUT that creates
	// a record is not prevented by it (§13.1.4, §13.2.2 step 2).
	IfUnmodifiedSince *time.Time
}

// Failed returns the name of the header whose condition is false for
// current (nil when the name has no current record): "If-Match",
// "If-Unmodified-Since", "If-None-Match", or "" when all hold. They are
// evaluated in the order of RFC 9110 §13.2.2 (steps 1 to 3), the first
// false one deciding. A GET answers a false If-None-Match with 304, a
// write with 412.
func (pc Precondition) Failed(current *Record) string {
	etag := ""
	if current != nil {
		etag = current.ETag()
	}
	if pc.IfMatch != nil && !matchesAny(pc.IfMatch, current != nil, etag, true) {
		return "If-Match"
	}
	if pc.IfMatch == nil && pc.IfUnmodifiedSince != nil && current != nil &&
		current.LastModified().After(*pc.IfUnmodifiedSince) {
		return "If-Unmodified-Since"
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
// that is false and whose ETag and LastModified are current's.
func (pc Precondition) Check(name string, current *Record) error {
	header := pc.Failed(current)
	if header == "" {
		return nil
	}
	e := errorf(KindPrecondition, "no record for %s", name)
	e.Field = header
	if current != nil {
		e.ETag = current.ETag()
		e.LastModified = current.LastModified()
		switch header {
		case "If-Match":
			e.Message = fmt.Sprintf("the current entity-tag of %s is %s, none of those given", name, e.ETag)
		case "If-Unmodified-Since":
			e.Message = fmt.Sprintf("%s was modified at %s, after %s (entity-tag %s)", name,
				e.LastModified.Format(imfFixdate), pc.IfUnmodifiedSince.UTC().Format(imfFixdate), e.ETag)
		default:
			e.Message = fmt.Sprintf("%s has a record already (entity-tag %s)", name, e.ETag)
		}
	}
	return e
}

// imfFixdate is the IMF-fixdate form of an HTTP-date (RFC 9110 §5.6.7),
// net/http's TimeFormat, which this package does not import.
const imfFixdate = "Mon, 02 Jan 2006 15:04:05 GMT"

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
