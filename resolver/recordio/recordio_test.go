package recordio

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver"
)

func readAll(t *testing.T, in string, f Format) (items []Item, bad []*RowError) {
	t.Helper()
	r := NewReader(strings.NewReader(in), f)
	for {
		it, err := r.Next()
		if errors.Is(err, io.EOF) {
			return items, bad
		}
		var re *RowError
		if errors.As(err, &re) {
			bad = append(bad, re)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
}

func records() []resolver.Record {
	return []resolver.Record{
		{URN: "urn:example:a", Redirect: 303, Status: resolver.Active, Locations: []resolver.Location{
			{URL: "http://a/1", Type: "text/html", Label: "first, \"quoted\""}, {URL: "http://a/2"}}},
		{URN: "urn:example:b", Redirect: 307, Status: resolver.Active, Aliases: []string{"urn:example:b2"},
			Metadata: json.RawMessage(`{"t":1}`), Locations: []resolver.Location{{URL: "http://b/"}}},
		{URN: "urn:example:c", Redirect: 303, Status: resolver.Withdrawn, Reason: "gone", Successor: "urn:example:b",
			Locations: []resolver.Location{{URL: "http://c/"}}},
	}
}

func write(t *testing.T, f Format, recs []resolver.Record) string {
	t.Helper()
	var b bytes.Buffer
	w := NewWriter(&b, f)
	for _, r := range recs {
		if _, err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestJSONLinesRoundTrip(t *testing.T) {
	out := write(t, JSONLines, records())
	items, bad := readAll(t, out, JSONLines)
	if len(bad) != 0 || len(items) != 3 {
		t.Fatalf("items %d, bad %v\n%s", len(items), bad, out)
	}
	for i, r := range records() {
		it := items[i]
		redirect := it.Redirect
		if redirect == 0 {
			redirect = 303
		}
		if it.URN != r.URN || !reflect.DeepEqual(it.Locations, r.Locations) || !reflect.DeepEqual(it.Aliases, r.Aliases) ||
			redirect != r.Redirect || it.Status != r.Status || it.Reason != r.Reason || it.Successor != r.Successor || it.Line != i+1 {
			t.Errorf("record %d: %+v, want %+v", i, it, r)
		}
	}
	if !strings.Contains(out, `"metadata":{"t":1}`) || strings.Count(out, "\n") != 3 {
		t.Errorf("JSON Lines output:\n%s", out)
	}
}

func TestCSVRoundTrip(t *testing.T) {
	out := write(t, CSV, records())
	want := "urn,url,type,label\nurn:example:a,http://a/1,text/html,\"first, \"\"quoted\"\"\"\nurn:example:a,http://a/2,,\nurn:example:b,http://b/,,\n"
	if out != want {
		t.Fatalf("CSV:\n%s\nwant:\n%s", out, want)
	}
	items, bad := readAll(t, out, CSV)
	if len(bad) != 0 || len(items) != 2 {
		t.Fatalf("items %+v bad %v", items, bad)
	}
	if items[0].URN != "urn:example:a" || len(items[0].Locations) != 2 || items[0].Locations[0].Label != `first, "quoted"` ||
		items[0].Line != 2 || items[0].EndLine != 3 || items[1].Line != 4 {
		t.Fatalf("items: %+v", items)
	}
	if out := write(t, CSV, nil); out != "urn,url,type,label\n" {
		t.Fatalf("empty CSV: %q", out)
	}
}

func TestBadRowsAreSkippedWithTheirLine(t *testing.T) {
	jsonl := `{"urn":"urn:example:a","locations":[{"url":"http://a/"}]}

{"urn":"urn:example:b","locations":[{"url":"http://b/"}],"colour":"red"}
not json
{"locations":[]}
{"urn":"urn:example:c","locations":[{"url":"http://c/"}]} {"urn":"x"}
{"urn":"urn:example:d","status":"lost","locations":[]}
{"urn":"urn:example:e","locations":[{"url":"http://e/"}]}`
	items, bad := readAll(t, jsonl, JSONLines)
	if len(items) != 2 || items[0].URN != "urn:example:a" || items[1].URN != "urn:example:e" || items[1].Line != 8 {
		t.Fatalf("items: %+v", items)
	}
	var lines []int
	for _, b := range bad {
		lines = append(lines, b.Line)
	}
	if !reflect.DeepEqual(lines, []int{3, 4, 5, 6, 7}) {
		t.Fatalf("bad lines %v: %v", lines, bad)
	}

	csvIn := "urn,url\nurn:example:a,http://a/1\nurn:example:a,\nurn:example:b,http://b/\n,http://x/\nurn:example:c,http://c/,extra\nurn:example:d,http://d/\n"
	items, bad = readAll(t, csvIn, CSV)
	if len(items) != 2 || items[0].URN != "urn:example:b" || items[1].URN != "urn:example:d" {
		t.Fatalf("CSV items: %+v (bad %v)", items, bad)
	}
	if len(bad) != 3 || bad[0].Line != 3 || bad[1].Line != 5 || bad[2].Line != 6 || !strings.Contains(bad[0].Error(), "urn:example:a (lines 2-3) skipped") {
		t.Fatalf("CSV bad: %v", bad)
	}
}

// TestCSVBadHeaderStops: a header that is not urn,url[,type,label] is
// reported once, and no row is read: without the columns, every row would
// be misread (a header of ";"-separated fields made each row after it
// "1 fields, the header has 0").
func TestCSVBadHeaderStops(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"urn,location\nurn:x:y,http://a/\n", "line 1: the header must be urn,url[,type,label], not urn,location; no row was read"},
		{"urn;url\nurn:example:c1;https://a/\nurn:example:c2;https://b/\n",
			`line 1: the header must be urn,url[,type,label], not urn;url: the fields are separated by ";", ` +
				"and CSV's separator is the comma (RFC 4180 §2); no row was read"},
		{"urn\turl\turn:example:c1\thttps://a/\n", `separated by "\t"`},
	} {
		r := NewReader(strings.NewReader(c.in), CSV)
		_, err := r.Next()
		var re *RowError
		if err == nil || errors.As(err, &re) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want a final error with %q", c.in, err, c.want)
		}
		if _, err := r.Next(); !errors.Is(err, io.EOF) {
			t.Errorf("%q: after the header: %v, want io.EOF", c.in, err)
		}
	}
}

func TestLongLineIsSkipped(t *testing.T) {
	long := `{"urn":"urn:example:a","metadata":{"x":"` + strings.Repeat("y", MaxLine) + `"},"locations":[]}`
	in := long + "\n" + `{"urn":"urn:example:b","locations":[{"url":"http://b/"}]}` + "\n"
	items, bad := readAll(t, in, JSONLines)
	if len(items) != 1 || items[0].URN != "urn:example:b" || items[0].Line != 2 || len(bad) != 1 || bad[0].Line != 1 {
		t.Fatalf("items %+v bad %v", items, bad)
	}
}

func TestFormats(t *testing.T) {
	if FormatOf("x.CSV") != CSV || FormatOf("x.jsonl") != JSONLines || FormatOf("x") != JSONLines {
		t.Fatal("FormatOf")
	}
	for _, s := range []string{"jsonl", "JSON", "ndjson", "csv"} {
		if _, err := ParseFormat(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("xml accepted")
	}
}

// FuzzReaders: no panic on any input; whatever a reader accepts writes out
// and reads back the same.
func FuzzReaders(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/seed/*")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b, strings.HasSuffix(p, ".csv"))
		}
	}
	f.Add([]byte("urn,url\nurn:a:b,http://x/\n"), true)
	f.Fuzz(func(t *testing.T, in []byte, isCSV bool) {
		format := JSONLines
		if isCSV {
			format = CSV
		}
		r := NewReader(bytes.NewReader(in), format)
		var recs []resolver.Record
		for i := 0; i < 1000; i++ {
			it, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			var re *RowError
			if errors.As(err, &re) {
				if re.Line < 1 {
					t.Fatalf("row error without a line: %v", err)
				}
				continue
			}
			if err != nil {
				return // a CSV reader error that is not about a row
			}
			if it.Line < 1 || it.EndLine < it.Line {
				t.Fatalf("lines %d-%d", it.Line, it.EndLine)
			}
			rec := resolver.Record{URN: it.URN, Aliases: it.Aliases, Locations: it.Locations, Metadata: it.Metadata,
				Redirect: it.Redirect, Status: it.Status, Reason: it.Reason, Successor: it.Successor}
			if rec.Redirect == 0 {
				rec.Redirect = resolver.DefaultRedirect
			}
			recs = append(recs, rec)
		}
		if format == CSV {
			return // CSV trims fields: a round trip need not be exact
		}
		var b bytes.Buffer
		w := NewWriter(&b, format)
		for _, rec := range recs {
			if _, err := w.Write(rec); err != nil {
				return // e.g. metadata that is not valid JSON text
			}
		}
		w.Flush()
		again, bad := readAllF(b.Bytes(), format)
		if len(bad) != 0 || len(again) != len(recs) {
			t.Fatalf("round trip: %d records, %d bad, want %d\n%s", len(again), len(bad), len(recs), b.Bytes())
		}
		for i := range again {
			if again[i].URN != recs[i].URN || !reflect.DeepEqual(len(again[i].Locations), len(recs[i].Locations)) {
				t.Fatalf("round trip record %d: %+v vs %+v", i, again[i], recs[i])
			}
		}
	})
}

func readAllF(in []byte, f Format) (items []Item, bad []error) {
	r := NewReader(bytes.NewReader(in), f)
	for {
		it, err := r.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			bad = append(bad, err)
			continue
		}
		items = append(items, it)
	}
}

// A row that is not CSV still tells, from its first field, which record it
// belongs to (encoding/csv returns the whole fields before the fault).
// The whole of that record is skipped, never the rows around it: the
// record before is not blamed for it, and the rest of its own rows are not
// imported without it (half-written).
func TestCSVRowThatIsNotCSVSkipsItsOwnRecord(t *testing.T) {
	for _, tc := range []struct {
		in       string
		urns     []string // the records read, in order
		badLines []int
	}{
		{"urn,url\nurn:example:a,http://a/1\"x\nurn:example:a,http://a/2\nurn:example:c,http://c/\n",
			[]string{"urn:example:c"}, []int{2}},
		{"urn,url\nurn:example:a,http://a/1\nurn:example:b,http://b/1\"x\nurn:example:b,http://b/2\nurn:example:c,http://c/\n",
			[]string{"urn:example:a", "urn:example:c"}, []int{3}},
		{"urn,url\nurn:example:a,http://a/1\nurn:example:a,http://a/2\"x\nurn:example:b,http://b/\n",
			[]string{"urn:example:b"}, []int{3}},
		{"urn,url,type\nurn:example:a,http://a/1,\"text/html\"x\nurn:example:b,http://b/,\n",
			[]string{"urn:example:b"}, []int{2}},
	} {
		items, bad := readAll(t, tc.in, CSV)
		var urns []string
		for _, it := range items {
			urns = append(urns, it.URN)
		}
		var lines []int
		for _, b := range bad {
			lines = append(lines, b.Line)
		}
		if !reflect.DeepEqual(urns, tc.urns) || !reflect.DeepEqual(lines, tc.badLines) {
			t.Errorf("%q:\n read %q, bad lines %v (%v)\n want %q, bad lines %v", tc.in, urns, lines, bad, tc.urns, tc.badLines)
		}
	}
}

// A line of JSON Lines is one JSON value: a stray "]" or "}" after the
// record (a line cut from a JSON array, a doubled brace) is an error, as
// any other text after it is.
func TestJSONLineWithTrailingCloser(t *testing.T) {
	for _, line := range []string{
		`{"urn":"urn:example:a","locations":[{"url":"http://a/"}]}]`,
		`{"urn":"urn:example:a","locations":[{"url":"http://a/"}]}}`,
		`{"urn":"urn:example:a","locations":[{"url":"http://a/"}]},`,
	} {
		items, bad := readAll(t, line+"\n", JSONLines)
		if len(items) != 0 || len(bad) != 1 || bad[0].Line != 1 {
			t.Errorf("%s: %d records, bad %v", line, len(items), bad)
		}
	}
}

// Consecutive rows whose names are equivalent (RFC 8141 §3, or the
// namespace's rules: an ISBN-10 and its ISBN-13) name one record: read as
// two, the second PUT would replace the first and drop its locations.
func TestCSVEquivalentSpellingsAreOneRecord(t *testing.T) {
	in := "urn,url\nurn:example:a,http://a/1\nURN:Example:a,http://a/2\nurn:isbn:0-395-36341-1,http://b/1\nurn:isbn:9780395363416,http://b/2\nurn:example:A,http://c/\n"
	items, bad := readAll(t, in, CSV)
	if len(bad) != 0 || len(items) != 3 {
		t.Fatalf("items %+v bad %v", items, bad)
	}
	for i, want := range []struct {
		urn   string
		n     int
		lines [2]int
	}{{"urn:example:a", 2, [2]int{2, 3}}, {"urn:isbn:0-395-36341-1", 2, [2]int{4, 5}}, {"urn:example:A", 1, [2]int{6, 6}}} {
		it := items[i]
		if it.URN != want.urn || len(it.Locations) != want.n || it.Line != want.lines[0] || it.EndLine != want.lines[1] {
			t.Errorf("item %d: %s, %d locations, lines %d-%d; want %+v", i, it.URN, len(it.Locations), it.Line, it.EndLine, want)
		}
	}
}

// Editors on Windows start a UTF-8 file with a byte-order mark. The CSV
// reader drops it from the header; the JSON Lines reader must drop it
// from the first line too, not reject the first record as "not JSON".
func TestJSONLinesFileWithByteOrderMark(t *testing.T) {
	in := "\ufeff" + `{"urn":"urn:example:a","locations":[{"url":"http://a/"}]}` + "\n" + "\ufeff" + `{"urn":"urn:example:b","locations":[{"url":"http://b/"}]}` + "\n"
	items, bad := readAll(t, in, JSONLines)
	// Only the file's start holds a mark; one inside is an error.
	if len(items) != 1 || items[0].URN != "urn:example:a" || items[0].Line != 1 || len(bad) != 1 || bad[0].Line != 2 {
		t.Fatalf("items %+v, bad %v", items, bad)
	}
}

// A quote that is never closed, or closed only on a later line inside a
// URN or URL, makes encoding/csv read the lines after it as one field:
// the rows there cannot be told apart, so the reader stops with an error
// naming the lines (a final *UnreadableError, not a *RowError that the
// import would count as one skipped row while the rows after it
// vanished). The records before that line are read first, the one just
// before it too when the broken row's URN, read whole, names another
// record; when it names the same one, or cannot be read, that record
// may go on in the lines that cannot be read, and is not returned. A
// label may hold a line break, and still reads.
func TestCSVQuoteThatSwallowsRowsStops(t *testing.T) {
	for _, tc := range []struct {
		in   string
		read []string // the records read before the error
		want string   // in the error; "" for none
		line int      // the error's line
	}{
		{"urn,url\nurn:example:e1,https://e.example/1\nurn:example:e2,\"https://e.example/2\nurn:example:e3,https://e.example/3\nurn:example:e4,https://e.example/4\n",
			[]string{"urn:example:e1"}, "line 3: a quoted field opened here is not closed properly before line 5: the rows from line 3 on cannot be read " +
				"(RFC 4180 §2: a quote in a field is doubled)", 3},
		// The broken row is of the record under way (an equivalent
		// spelling): that record may go on past it.
		{"urn,url\nurn:example:e0,https://e.example/0\nurn:example:e1,https://e.example/1\nURN:example:e1,\"https://e.example/1b\nurn:example:e3,https://e.example/3\n",
			[]string{"urn:example:e0"}, "line 4: a quoted field opened here is not closed properly before line 5: the rows from line 4 on cannot be read " +
				"(RFC 4180 §2: a quote in a field is doubled); the record urn:example:e1 (from line 3) is not imported either", 4},
		// The broken row's URN itself is what is open: no telling.
		{"urn,url\nurn:example:e1,https://e.example/1\n\"urn:example:e2,https://e.example/2\nurn:example:e3,https://e.example/3\n",
			nil, "the record urn:example:e1 (from line 2) is not imported either", 3},
		{"urn,url\nurn:example:e1,https://e.example/1\n\"urn:example:e2\nurn:example:e3\",https://e.example/2\nurn:example:e4,https://e.example/4\n",
			nil, "line 3: its urn runs on to line 4", 3},
		{"urn,url\nurn:example:e1,https://e.example/1\nurn:example:e2,https://e.example/2\nurn:example:e3,\"https://e.example/3\nurn:example:e4,https://e.example/4\n",
			[]string{"urn:example:e1", "urn:example:e2"}, "line 4: a quoted field opened here is not closed properly before line 5", 4},
		// A label left open that closes in a later row's label: that row
		// is swallowed into the first's label.
		{"urn,url,type,label\nurn:example:a,https://a/,,\"x\nurn:example:b,https://b/,,\"\nurn:example:c,https://c/,,\n",
			nil, "line 2: its label runs on to line 3: a quote opened on line 2 closes only there", 2},
		// The quote of a later field: its own line is named.
		{"urn,url,type\nurn:example:a,https://a/,\"text/html\nurn:example:b,https://b/,\"\n",
			nil, "line 2: its type runs on to line 3", 2},
		{"urn,url\nurn:example:e1,\"https://e.example/1\nurn:example:e2,https://e.example/2\nurn:example:e3,https://e.example/3\"\nurn:example:e4,https://e.example/4\n",
			nil, "line 2: its url runs on to line 4", 2},
		// Found after a whole record: that one is read.
		{"urn,url\nurn:example:e0,https://e.example/0\nurn:example:e1,\"https://e.example/1\nurn:example:e2,https://e.example/2\"\nurn:example:e4,https://e.example/4\n",
			[]string{"urn:example:e0"}, "line 3: its url runs on to line 4", 3},
		{"urn,url,type,label\nurn:example:l1,https://e.example/1,,\"two\nlines\"\nurn:example:l2,https://e.example/2,,\n",
			[]string{"urn:example:l1", "urn:example:l2"}, "", 0},
	} {
		r := NewReader(strings.NewReader(tc.in), CSV)
		var read []string
		var err error
		for {
			var it Item
			it, err = r.Next()
			if err != nil {
				break
			}
			read = append(read, it.URN)
		}
		ue, _ := err.(*UnreadableError) // itself, so that its Err says all
		switch {
		case tc.want == "" && !errors.Is(err, io.EOF):
			t.Errorf("%q: %v", tc.in, err)
		case tc.want != "" && (ue == nil || ue.Line != tc.line || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want an *UnreadableError of line %d containing %q", tc.in, err, tc.line, tc.want)
		}
		if !reflect.DeepEqual(read, tc.read) {
			t.Errorf("%q: read %q before the error, want %q", tc.in, read, tc.read)
		}
		if tc.want != "" {
			if _, again := r.Next(); again != err {
				t.Errorf("%q: Next after the final error gave %v", tc.in, again)
			}
		}
	}
}

// TestJSONLineErrorsSayWhatAndWhere: a line that is not a record says what
// is wrong in the words of the format (the member's path, with its index;
// the byte where the JSON breaks), never in encoding/json's words for Go
// types.
func TestJSONLineErrorsSayWhatAndWhere(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{"urn":"urn:example:a","locations":[{"url":"http://a/"}],"redirect":"303"}`,
			`line 1: not a record: redirect must be 301, 302, 303 or 307, not the string "303"`},
		{`{"urn":"urn:example:a","locations":[{"url":"http://a/"}],"redirect":303.5}`,
			`line 1: not a record: redirect must be 301, 302, 303 or 307, not the number 303.5`},
		{`{"urn":"urn:example:a","locations":[{"url":"http://a/"},{"url":7}]}`,
			`line 1: not a record: locations[1].url must be a string, not the number 7`},
		{`{"urn":"urn:example:a","aliases":["urn:example:b",{}],"locations":[{"url":"http://a/"}]}`,
			`line 1: not a record: aliases[1] must be a string, not an object`},
		{`{"urn":"urn:example:a","locations":[{"url":"http://a/","rel":"x"}]}`,
			`line 1: not a record: unknown member "rel" in locations[0]`},
		{`["urn:example:a"]`, `line 1: not a record: the line must be an object, not an array`},
		{`{"urn":"urn:example:a","locations":[{"url":"http://a/"}],"reserved":["nope"]}`,
			`line 1: reserved[0] "nope" is not a URN: urn: missing "urn:" prefix at byte 0 of "nope"`},
		{`{"urn":"urn:example:a","aliases":["urn:example:b"],"locations":[{"url":"http://a/"}],"reserved":["urn:example:c","URN:EXAMPLE:b"]}`,
			`line 1: reserved[1] "URN:EXAMPLE:b" is the same name as "urn:example:b", which the record lists`},
		{`{"urn":"urn:example:a","locations":[{"url":nope}]}`,
			`line 1: not JSON: the bare word nope (at byte 43): a string is written in double quotes`},
		{`  {"urn":urn:example:a}`, `line 1: not JSON: the bare word urn (at byte 9): a string is written in double quotes`},
		{`{"urn":"urn:example:a",,}`, `line 1: not JSON: invalid character ',' looking for beginning of object key string (at byte 23)`},
		{`{"urn":"urn:example:a\qb"}`, `line 1: not JSON: invalid character 'q' in string escape code (at byte 22)`},
		{`{"urn":"urn:\"x\"","redirect":x303}`, `line 1: not JSON: the bare word x303 (at byte 30): a string is written in double quotes`},
		{`{"urn":"urn:example:a","locations":[{"url":"http://a/"}`,
			`line 1: not JSON: the line ends before the record does (a closing "}", "]" or '"' is missing)`},
		// JSON text is UTF-8 (RFC 8259 §8.1): encoding/json would have
		// read U+FFFD in place of the bad byte.
		{`{"urn":"urn:example:a","locations":[{"url":"http://a/","label":"ok` + "\xff" + `"}]}`,
			`line 1: not UTF-8: byte 0xFF (at byte 66) does not belong to a UTF-8 encoded character (JSON text is UTF-8, RFC 8259 §8.1)`},
		{"\t " + `{"urn":"urn:example:a","reason":"caf` + "\xe9" + `","locations":[{"url":"http://a/"}]}`,
			`line 1: not UTF-8: byte 0xE9 (at byte 38) does not belong to a UTF-8 encoded character (JSON text is UTF-8, RFC 8259 §8.1)`},
		// A member name twice: encoding/json keeps the last.
		{`{"urn":"urn:example:a","locations":[{"url":"http://a/"}],"locations":[{"url":"http://b/"}]}`,
			`line 1: not a record: member "locations" is given twice: the names in an object must be unique (RFC 8259 §4, RFC 7493 §2.3) (at byte 57)`},
		{`  {"urn":"urn:example:a","locations":[{"url":"http://a/"}],"metadata":{"t":[{"a":1},{"a":1,"a":1}]}}`,
			`line 1: not a record: member "a" in metadata.t[1] is given twice: the names in an object must be unique (RFC 8259 §4, RFC 7493 §2.3) (at byte 91)`},
		{`{"urn":"urn:example:a","urn":"urn:example:b","locations":[{"url":"http://a/"}]}`,
			`line 1: not a record: member "urn" is given twice: the names in an object must be unique (RFC 8259 §4, RFC 7493 §2.3) (at byte 23)`},
	} {
		_, bad := readAll(t, c.line+"\n", JSONLines)
		if len(bad) != 1 || bad[0].Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.line, bad, c.want)
		}
	}
}
