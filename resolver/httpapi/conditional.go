package httpapi

// Conditional requests on /api/v1/names/{urn} (RFC 9110 §13): a GET
// answers with the record's ETag and Last-Modified, and If-Match,
// If-None-Match, If-Modified-Since and If-Unmodified-Since make a read
// conditional (304, 412) or a write (412). A write's conditions go to the
// Service, which evaluates them in the write's own transaction: comparing
// here, with a read before the write, would let two writers that read the
// same state both pass.

import (
	"net/http"
	"strings"
	"time"

	"github.com/urikit/urikit/resolver"
)

// preconditions reads the request's If-Match, If-None-Match and
// If-Unmodified-Since; the error is a *problem (400) for an If-Match or
// If-None-Match that is not "*" or a list of entity-tags. An
// If-Unmodified-Since that is not one valid HTTP-date is no error: RFC
// 9110 §13.1.4 says to ignore it.
func preconditions(r *http.Request) (resolver.Precondition, error) {
	var pc resolver.Precondition
	var err error
	if pc.IfMatch, err = entityTags(r.Header, "If-Match"); err != nil {
		return pc, err
	}
	if pc.IfNoneMatch, err = entityTags(r.Header, "If-None-Match"); err != nil {
		return pc, err
	}
	pc.IfUnmodifiedSince = httpDate(r.Header, "If-Unmodified-Since")
	return pc, nil
}

// notModified reports whether a GET or HEAD of rec is answered 304 by its
// If-Modified-Since (RFC 9110 §13.1.3): when the record was not modified
// after the date. The field is ignored, and notModified false, when
// If-None-Match is there (it replaces it, §13.1.3 and §13.2.2 step 4)
// and when the field is not one valid HTTP-date. Only getName asks: the
// field is ignored on any other method.
func notModified(r *http.Request, rec resolver.Record) bool {
	if _, ok := r.Header["If-None-Match"]; ok {
		return false
	}
	since := httpDate(r.Header, "If-Modified-Since")
	return since != nil && !rec.LastModified().After(*since)
}

// httpDate parses the field name (in canonical form) as an HTTP-date
// (RFC 9110 §5.6.7) in any of its three forms; nil when the field is
// absent or is not one valid HTTP-date: several field lines or a list of
// dates, another time zone than GMT, or anything else a conditional date
// field must then be ignored for (§13.1.3, §13.1.4).
func httpDate(h http.Header, name string) *time.Time {
	lines := h[name]
	if len(lines) != 1 {
		return nil
	}
	v, leap := leapSecond(strings.TrimSpace(lines[0]))
	var t time.Time
	var err error
	if t, err = time.Parse(http.TimeFormat, v); err != nil {
		if t, err = time.Parse(rfc850Date, v); err == nil {
			t = fullYear(t, time.Now())
		} else if t, err = time.Parse(time.ANSIC, v); err != nil {
			return nil
		}
	}
	if leap {
		t = t.Add(time.Second)
	}
	return &t
}

// leapSecond returns v with a time of day's second 60, a leap second,
// which an HTTP-date (RFC 9110 §5.6.7) and an RFC 3339 date-time (§5.7)
// may hold and Go's time.Parse refuses, written as 59, and whether it did:
// the caller adds the second back, so that the leap second reads as the
// instant after second 59 (the next minute's first, to the second). A
// later time is the safe side for If-Unmodified-Since: the date is not
// ignored, and a write is not let through for want of reading it.
func leapSecond(v string) (string, bool) {
	i := strings.Index(v, ":60")
	// hh:mm:60, followed by the end, a space, a fraction or a zone.
	if i < 5 || v[i-3] != ':' || i+3 < len(v) && strings.IndexByte(" .,Zz+-", v[i+3]) < 0 {
		return v, false
	}
	return v[:i] + ":59" + v[i+3:], true
}

// rfc850Date is the obsolete RFC 850 form of an HTTP-date, with its
// two-digit year and only GMT (RFC 9110 §5.6.7).
const rfc850Date = "Monday, 02-Jan-06 15:04:05 GMT"

// fullYear gives t, parsed from an rfc850-date, the century RFC 9110
// §5.6.7 says to read its two-digit year in: the latest year with those
// two digits that puts t at most 50 years after now (a year further ahead
// is read as the most recent such year in the past). Go's parse puts 69
// to 99 in the 1900s whatever the date today.
func fullYear(t, now time.Time) time.Time {
	y := now.Year() - now.Year()%100 + t.Year()%100
	t = t.AddDate(y-t.Year(), 0, 0)
	limit := now.AddDate(50, 0, 0)
	if next := t.AddDate(100, 0, 0); !next.After(limit) {
		return next // now in a century's second half: 01 is the next one's
	}
	if t.After(limit) {
		t = t.AddDate(-100, 0, 0)
	}
	return t
}

// entityTags parses the field name (in canonical form) of a request:
// "*" / #entity-tag (RFC 9110 §13.1.1, §13.1.2), every field line of it
// taken as one list (§5.3). It returns nil when the field is absent, and
// a list that is not nil, empty when it names no tag, when it is there.
// Tags are kept as sent, W/ included.
func entityTags(h http.Header, name string) ([]string, error) {
	lines, ok := h[name]
	if !ok {
		return nil, nil
	}
	v := strings.Join(lines, ",")
	bad := func(at int, why string) error {
		return newProblem(http.StatusBadRequest, ptInvalid,
			name+` must be "*" or a list of entity-tags such as "v1" or W/"v1", quotes included: `+why).at(name, at)
	}
	tags := []string{}
	star := false
	for i := 0; ; {
		// Empty list elements and the whitespace around commas are
		// allowed (RFC 9110 §5.6.1).
		for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == ',') {
			i++
		}
		if i == len(v) {
			break
		}
		start := i
		if v[i] == '*' {
			star = true
			i++
		} else {
			if v[i] == 'W' && i+1 < len(v) && v[i+1] == '/' {
				i += 2
			}
			if i == len(v) || v[i] != '"' {
				return nil, bad(i, "an entity-tag is quoted")
			}
			i++
			for i < len(v) && v[i] != '"' {
				// etagc = %x21 / %x23-7E / obs-text (RFC 9110 §8.8.3)
				if c := v[i]; c < 0x21 || c == 0x7f {
					return nil, bad(i, "no space or control character inside an entity-tag")
				}
				i++
			}
			if i == len(v) {
				return nil, bad(i, "the closing quote is missing")
			}
			i++
		}
		tags = append(tags, v[start:i])
		for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
			i++
		}
		if i < len(v) && v[i] != ',' {
			return nil, bad(i, "entity-tags are separated by commas")
		}
	}
	if star && len(tags) > 1 {
		return nil, bad(-1, `"*" stands alone`)
	}
	return tags, nil
}

// setETag sends rec's ETag, the validator of the record's JSON form
// (resolver.Record.ETag).
func setETag(rw http.ResponseWriter, rec resolver.Record) {
	if etag := rec.ETag(); etag != "" {
		rw.Header().Set("ETag", etag)
	}
}

// setLastModified sends t, a record's LastModified, as Last-Modified.
func setLastModified(rw http.ResponseWriter, t time.Time) {
	rw.Header().Set("Last-Modified", lastModified(t, time.Now()))
}

// lastModified formats t as an HTTP-date, but never later than now, the
// time the answer is made (its Date is now or later): RFC 9110 §8.8.2.1
// has a modification time ahead of the server's clock sent as the
// message's date instead. A record's can be: a change is stamped with the
// history's last time when the clock reads earlier (another instance's
// clock ahead, or this one set back). The conditions still compare the
// record's own time, so such a record reads as modified after the date
// sent, which never gives a wrong 304 or lets a write through.
func lastModified(t, now time.Time) string {
	if t.After(now) {
		t = now
	}
	return t.UTC().Format(http.TimeFormat)
}
