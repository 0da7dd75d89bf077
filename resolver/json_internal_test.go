package resolver

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// FuzzAppendRecordJSON: whenever appendRecordJSON says it wrote a record,
// it wrote exactly what json.Marshal writes for it (the history keeps
// these bytes, and entries written either way must read alike).
func FuzzAppendRecordJSON(f *testing.F) {
	f.Add("urn:example:a", "urn:example:b", "https://example.org/a?x=1", "text/html", "", []byte(`{"title":"Item 0"}`), "", "", 303, int64(1), int64(1764000000123456789))
	f.Add("urn:example:é", "", "https://example.org/ü", "", "Zoë «q»", []byte(`{}`), "urn:example:next", "gone", 301, int64(7), int64(-1))
	f.Add("urn:x:<&>", "urn:x:\u2028", "h:\x7f", "a\"b", "c\\d", []byte(`{ "a" : 1 }`), "\x00", "\xff", 0, int64(-5), int64(253402300800000000))
	f.Add("urn:x:y", "", "u:", "", "", []byte(`{"s":"\u003c€\u2028","n":[1,2.5e3,null,true]}`), "", "", 307, int64(0), int64(0))
	f.Add("urn:x:y", "", "u:", "", "", []byte(`{"a":"b"`), "", "", 307, int64(0), int64(0))
	f.Fuzz(func(t *testing.T, urn, alias, url, typ, label string, meta []byte, successor, reason string, redirect int, auth, nanos int64) {
		j := recordJSON{URN: urn, Aliases: []string{}, Locations: []Location{{URL: url, Type: typ, Label: label}, {URL: label}},
			Metadata: meta, Status: Active, Redirect: redirect, Successor: successor, Reason: reason, Authority: auth,
			Created: time.Unix(0, nanos).UTC(), Updated: time.Unix(0, nanos/3).UTC()}
		if alias != "" {
			j.Aliases = append(j.Aliases, alias, urn)
		}
		if successor != "" {
			// Shown records list their predecessors last (never logged).
			j.Predecessors = []string{successor, alias}
			j.MorePredecessors = redirect%2 == 1
		}
		got, ok := appendRecordJSON(nil, &j)
		want, err := json.Marshal(j)
		if !ok {
			return // encoding/json writes it
		}
		if err != nil {
			t.Fatalf("written, but json.Marshal fails: %v\n%s", err, got)
		}
		if string(got) != string(want) {
			t.Fatalf("appendRecordJSON %s\njson.Marshal      %s", got, want)
		}
	})
}

// TestAppendRecordJSONUsed: the usual record, with non-ASCII text and
// metadata, is written without falling back to encoding/json.
func TestAppendRecordJSONUsed(t *testing.T) {
	j := recordJSON{URN: "urn:example:zoë", Aliases: []string{"urn:example:a"}, Locations: []Location{{URL: "https://example.org/é", Type: "text/html", Label: "«x»"}},
		Metadata: []byte(`{"title":"Item \"0\"","n":[1,2]}`), Status: Withdrawn, Redirect: 303, Successor: "urn:example:b", Reason: "r",
		Authority: 3, Created: time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC), Updated: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Predecessors: []string{"urn:example:p1", "urn:example:p2"}, MorePredecessors: true}
	got, ok := appendRecordJSON(nil, &j)
	want, _ := json.Marshal(j)
	if !ok || string(got) != string(want) {
		t.Fatalf("ok=%v\n%s\nwant\n%s", ok, got, want)
	}
}

// givesAliases: the entries of records without aliases are told apart
// without decoding; any other spelling of the JSON is decoded.
func TestGivesAliases(t *testing.T) {
	for _, c := range []struct {
		data string
		want bool
	}{
		{`{"urn":"urn:example:a","aliases":[],"locations":[]}`, false},
		{`{"urn":"urn:example:a","aliases":["urn:example:b"],"locations":[]}`, true},
		{`{"urn":"urn:example:a", "aliases": [ "urn:example:b" ]}`, true},
		{`{"urn":"urn:example:a", "aliases": []}`, false},
		{`{"urn":"urn:example:a"}`, false},
		{`{"urn":"urn:example:a","aliases":[],"metadata":{"aliases":["x"]}}`, false},
		{`not json "aliases":["x"]`, false},
	} {
		if got := givesAliases([]byte(c.data)); got != c.want {
			t.Errorf("givesAliases(%s) = %v, want %v", c.data, got, c.want)
		}
	}
	// What this build writes for a record without aliases is the fast case.
	b, err := Record{URN: "urn:example:a", Status: Active, Redirect: DefaultRedirect}.MarshalJSON()
	if err != nil || !bytes.Contains(b, []byte(`"aliases":[]`)) {
		t.Fatalf("%s %v", b, err)
	}
}
