package sqlite

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/urikit/urikit/resolver"
)

func TestBodyRoundTrip(t *testing.T) {
	cases := []resolver.Record{
		{},
		{Aliases: []string{}, Locations: []resolver.Location{}, Metadata: json.RawMessage{}},
		{
			Aliases: []string{"urn:isbn:0-395-36341-1", ""},
			Locations: []resolver.Location{
				{URL: "https://example.org/a", Key: "https://example.org/a"},
				{URL: "HTTPS://Example.org:443/b", Type: "text/html; charset=utf-8", Label: "zwei ✓", Key: "https://example.org/b"},
				{URL: "x:", Key: ""},
			},
			Metadata: json.RawMessage(`{"title":"Ünïcode","n":[1,2]}`),
		},
	}
	for i, r := range cases {
		b := encodeBody(&r)
		var got resolver.Record
		if err := decodeBody(b, &got); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if !reflect.DeepEqual(got.Aliases, r.Aliases) || !reflect.DeepEqual(got.Locations, r.Locations) || !reflect.DeepEqual(got.Metadata, r.Metadata) {
			t.Errorf("case %d: round trip\n got %#v\nwant %#v", i, got, r)
		}
	}
}

// The compact form is the point of the body: a typical record's body is
// its strings plus a handful of bytes, and a URL already in normal form is
// stored once.
func TestBodyCompact(t *testing.T) {
	r := resolver.Record{
		Locations: []resolver.Location{{URL: "https://example.org/items/00000001", Key: "https://example.org/items/00000001"}},
		Metadata:  json.RawMessage(`{"title":"Item 1"}`),
	}
	b := encodeBody(&r)
	payload := len(r.Locations[0].URL) + len(r.Metadata)
	if len(b) > payload+10 {
		t.Errorf("body is %d bytes for %d bytes of payload", len(b), payload)
	}
}

func TestBodyMalformed(t *testing.T) {
	good := encodeBody(&resolver.Record{Aliases: []string{"urn:a:b"}, Locations: []resolver.Location{{URL: "u", Key: "k"}}, Metadata: json.RawMessage(`{}`)})
	for cut := range len(good) {
		var r resolver.Record
		if err := decodeBody(good[:cut], &r); err == nil {
			t.Errorf("a body cut to %d of %d bytes decoded", cut, len(good))
		}
	}
	bad := [][]byte{
		{2},                    // unknown format
		{1, 0, 0, 0, 0},        // a byte left over
		{1, 0xff, 0xff, 0xff},  // a count beyond the bytes left
		{1, 0, 2, 0, 0, 0, 7},  // a location whose key flag is neither 0 nor 1
		{1, 0, 0, 5, 'a', 'b'}, // metadata shorter than its length
	}
	for _, b := range bad {
		var r resolver.Record
		if err := decodeBody(b, &r); err == nil {
			t.Errorf("%v decoded", b)
		}
	}
}

// FuzzDecodeBody: no input makes decodeBody panic or allocate beyond its
// input's size, and whatever decodes encodes back to the same bytes (the
// encoding is canonical: one body per record).
func FuzzDecodeBody(f *testing.F) {
	f.Add(encodeBody(&resolver.Record{}))
	f.Add(encodeBody(&resolver.Record{Aliases: []string{"urn:x:y"}, Locations: []resolver.Location{{URL: "a", Type: "t", Label: "l", Key: "b"}}, Metadata: json.RawMessage(`{}`)}))
	f.Add([]byte{1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		var r resolver.Record
		if err := decodeBody(b, &r); err != nil {
			return
		}
		if again := encodeBody(&r); string(again) != string(b) {
			// The one non-canonical spelling: a key flag of 1 with a key
			// equal to the URL, which encodes back as flag 0.
			var r2 resolver.Record
			if err := decodeBody(again, &r2); err != nil || !reflect.DeepEqual(r, r2) {
				t.Fatalf("%x decodes to %#v, which encodes to %x", b, r, again)
			}
		}
	})
}
