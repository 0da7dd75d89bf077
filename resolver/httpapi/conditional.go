package httpapi

// Conditional requests on /api/v1/names/{urn} (RFC 9110 §13): a GET
// answers with the record's ETag, and If-Match / If-None-Match make a
// read conditional (304, 412) or a write (412). A write's conditions go
// to the Service, which evaluates them in the write's own transaction:
// comparing here, with a read before the write, would let two writers
// that read the same state both pass.

import (
	"net/http"
	"strings"

	"github.com/urikit/urikit/resolver"
)

// preconditions reads the request's If-Match and If-None-Match; the error
// is a *problem (400) for a field that is not "*" or a list of
// entity-tags.
func preconditions(r *http.Request) (resolver.Precondition, error) {
	var pc resolver.Precondition
	var err error
	if pc.IfMatch, err = entityTags(r.Header, "If-Match"); err != nil {
		return pc, err
	}
	pc.IfNoneMatch, err = entityTags(r.Header, "If-None-Match")
	return pc, err
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
