package sqlite

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/urikit/urikit/resolver"
)

// A record's aliases, locations and metadata are kept in one BLOB column
// (records.body) in a compact binary form instead of rows of their own: a
// lookup is then one indexed query that reads one row, and decoding is a
// walk over length-prefixed strings, far cheaper than JSON. The location
// index (table locations) repeats the locations' keys for L2N/L2L; body is
// what keeps their order, types and labels.
//
// Layout (format 1):
//
//	format      byte, 1
//	aliases     list of string
//	locations   list of location
//	metadata    string (the JSON object as the Service gave it)
//
// where a list is a uvarint n followed by n-1 items (0 encodes a nil slice,
// so that nil and empty round-trip apart), a string is a uvarint length
// plus bytes, and a location is url, type, label and then its key: a byte 0
// when the key equals the url (the common case of a URL already in normal
// form, which saves its second copy) or 1 followed by the key as a string.
// Metadata uses the same n+1 trick: 0 is nil.
const bodyFormat = 1

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// encodeBody returns the body of r.
func encodeBody(r *resolver.Record) []byte {
	n := 8 + len(r.Metadata)
	for _, a := range r.Aliases {
		n += 2 + len(a)
	}
	for _, l := range r.Locations {
		n += 6 + len(l.URL) + len(l.Type) + len(l.Label)
		if l.Key != l.URL {
			n += 2 + len(l.Key)
		}
	}
	b := make([]byte, 0, n)
	b = append(b, bodyFormat)
	b = appendCount(b, r.Aliases == nil, len(r.Aliases))
	for _, a := range r.Aliases {
		b = appendString(b, a)
	}
	b = appendCount(b, r.Locations == nil, len(r.Locations))
	for _, l := range r.Locations {
		b = appendString(b, l.URL)
		b = appendString(b, l.Type)
		b = appendString(b, l.Label)
		if l.Key == l.URL {
			b = append(b, 0)
		} else {
			b = append(b, 1)
			b = appendString(b, l.Key)
		}
	}
	b = appendCount(b, r.Metadata == nil, len(r.Metadata))
	return append(b, r.Metadata...)
}

func appendCount(b []byte, isNil bool, n int) []byte {
	if isNil {
		return append(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

// errBody reports a body that does not decode: the file was damaged or
// written by something else.
var errBody = errors.New("sqlite: malformed record body")

type bodyReader struct {
	b   []byte
	err error
}

func (r *bodyReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errBody
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *bodyReader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = errBody
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func (r *bodyReader) string() string { return string(r.bytes()) }

// count reads a list length: -1 for nil, else the number of items. A count
// larger than the bytes left could possibly hold is an error, so a damaged
// body never makes decodeBody allocate without bound.
func (r *bodyReader) count() int {
	v := r.uvarint()
	if r.err != nil || v == 0 {
		return -1
	}
	if v-1 > uint64(len(r.b)) {
		r.err = errBody
		return -1
	}
	return int(v - 1)
}

func (r *bodyReader) byte() byte {
	if r.err != nil {
		return 0
	}
	if len(r.b) == 0 {
		r.err = errBody
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// decodeBody fills r's aliases, locations and metadata from body. It copies
// what it keeps, so body may be a buffer the driver reuses.
func decodeBody(body []byte, r *resolver.Record) error {
	if len(body) == 0 || body[0] != bodyFormat {
		return fmt.Errorf("%w (format %v)", errBody, body[:min(1, len(body))])
	}
	br := bodyReader{b: body[1:]}
	if n := br.count(); n >= 0 {
		r.Aliases = make([]string, n)
		for i := range n {
			r.Aliases[i] = br.string()
		}
	}
	if n := br.count(); n >= 0 {
		r.Locations = make([]resolver.Location, n)
		for i := range n {
			l := &r.Locations[i]
			l.URL, l.Type, l.Label = br.string(), br.string(), br.string()
			switch br.byte() {
			case 0:
				l.Key = l.URL
			case 1:
				l.Key = br.string()
			default:
				br.err = errBody
			}
		}
	}
	if n := br.count(); n >= 0 {
		if n != len(br.b) {
			br.err = errBody
		} else {
			r.Metadata = make(json.RawMessage, n)
			copy(r.Metadata, br.b)
			br.b = nil
		}
	}
	if br.err == nil && len(br.b) != 0 {
		br.err = errBody
	}
	return br.err
}
