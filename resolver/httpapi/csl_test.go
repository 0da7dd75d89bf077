package httpapi

import (
	"encoding/json"
	"testing"

	"github.com/urikit/urikit/resolver"
)

// TestCitationAsked: the path style answers a CSL item only to a header
// that names a CSL type with a higher quality than any other range.
func TestCitationAsked(t *testing.T) {
	for accept, want := range map[string]string{
		"":                              "",
		"*/*":                           "",
		"application/*":                 "",
		"application/json":              "",
		"application/ld+json":           "",
		"application/problem+json, */*": "",
		mtCSL:                           mtCSL,
		"Application/Vnd.CitationStyles.CSL+JSON": mtCSL,
		mtCiteproc:                             mtCiteproc,
		mtCSL + ", " + mtCiteproc:              mtCSL,
		mtCSL + ";q=0.5, " + mtCiteproc:        mtCiteproc,
		mtCSL + ";q=0.5, application/json":     "",
		mtCSL + ", text/html":                  "",
		mtCSL + ", */*;q=0.9":                  mtCSL,
		mtCSL + " ; q=0.9 , text/html ; q=0.8": mtCSL,
		mtCSL + ";q=0":                         "",
		mtCSL + ";q=1.5":                       "",
		mtCSL + ";q=0.5, bogus":                mtCSL,
		"text/html;q=x, " + mtCSL + ";q=0.1":   mtCSL,
		"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8": "",
		"a+json": "",
		"+":      "",
		"+jso":   "",
		"x+JSON": "",
	} {
		if got := citationAsked(accept); got != want {
			t.Errorf("%q: %q, want %q", accept, got, want)
		}
	}
}

// TestCitationAskedAllocates: the check on I2L's path allocates nothing,
// whatever the header.
func TestCitationAskedAllocates(t *testing.T) {
	for _, accept := range []string{"", "*/*", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
		mtCSL, mtCSL + ";q=0.5, application/json;q=0.9, application/ld+json"} {
		if n := testing.AllocsPerRun(100, func() { citationAsked(accept) }); n != 0 {
			t.Errorf("%q: %v allocations", accept, n)
		}
	}
}

func TestCSLDateString(t *testing.T) {
	for in, want := range map[string]string{
		`"2019"`:       `{"date-parts":[[2019]]}`,
		`"2019-05"`:    `{"date-parts":[[2019,5]]}`,
		`"2019-05-01"`: `{"date-parts":[[2019,5,1]]}`,
		`"2024-02-29"`: `{"date-parts":[[2024,2,29]]}`,
		`"0999-12"`:    `{"date-parts":[[999,12]]}`,
	} {
		if got := string(cslDateString([]byte(in))); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
	for _, in := range []string{`"2023-02-29"`, `"2019-13"`, `"2019-00"`, `"2019-5-1"`, `"2019/05/01"`, `"19"`,
		`"+2019"`, `"-201"`, `"2019-05-01T12:00:00Z"`, `"May 2019"`, `""`, `"2019-05-1a"`, `"201a"`, `"2019--5"`} {
		if got := cslDateString([]byte(in)); got != nil {
			t.Errorf("%s: %s, want nothing", in, got)
		}
	}
}

// TestCSLItemKeepsValid: whatever the metadata, the item is valid (the
// members that are not are left out), and its members are in one order.
// (apitest.CheckCSLItem checks the items the suite gets.)
func TestCSLItemKeepsValid(t *testing.T) {
	for meta, want := range map[string]string{
		``:     `{"id":"urn:example:a","type":"document","URL":"https://example.org/a"}`,
		`null`: `{"id":"urn:example:a","type":"document","URL":"https://example.org/a"}`,
		`[]`:   `{"id":"urn:example:a","type":"document","URL":"https://example.org/a"}`,
		`"x"`:  `{"id":"urn:example:a","type":"document","URL":"https://example.org/a"}`,
		// Spaces as a legacy record may keep them; the last of a member
		// given twice, as encoding/json reads it.
		`{ "title" : "A" , "title":"B", "type" : "thesis", "page" : 12 }`:                                                                      `{"id":"urn:example:a","type":"thesis","title":"B","URL":"https://example.org/a","page":12}`,
		`{"type":"Book","title":null,"volume":true,"issue":{},"note":["n"]}`:                                                                   `{"id":"urn:example:a","type":"document","URL":"https://example.org/a"}`,
		`{"author":[],"editor":[{}],"composer":[{"family":"F","parse-names":true,"comma-suffix":1}]}`:                                          `{"id":"urn:example:a","type":"document","author":[],"composer":[{"family":"F","parse-names":true,"comma-suffix":1}],"editor":[{}],"URL":"https://example.org/a"}`,
		`{"author":[{"family":"F"},"G"],"translator":[{"family":1}],"director":{"family":"F"},"curator":[[{"family":"F"}]]}`:                   `{"id":"urn:example:a","type":"document","URL":"https://example.org/a"}`,
		`{"issued":{"date-parts":[[2019,"5"],[2020]],"circa":true,"season":1,"literal":"l","raw":"r"},"accessed":{"date-parts":[]}}`:           `{"id":"urn:example:a","type":"document","issued":{"date-parts":[[2019,"5"],[2020]],"circa":true,"season":1,"literal":"l","raw":"r"},"URL":"https://example.org/a"}`,
		`{"issued":{"date-parts":[[2019],[2020],[2021]]},"submitted":{"date-parts":[[1,2,3,4]]},"accessed":{"edtf":"2019"},"event-date":2019}`: `{"id":"urn:example:a","type":"document","URL":"https://example.org/a"}`,
		"{\"title\":\"caf\xe9\",\"note\":\"n\"}":                                                                                               `{"id":"urn:example:a","type":"document","note":"n","URL":"https://example.org/a"}`,
		`{"categories":["a",1],"custom":[1],"citation-key":"k"}`:                                                                               `{"id":"urn:example:a","type":"document","citation-key":"k","URL":"https://example.org/a"}`,
	} {
		rec := resolver.Record{URN: "urn:example:a", Locations: []resolver.Location{{URL: "https://example.org/a"}}, Metadata: []byte(meta)}
		got := cslItem(rec)
		if string(got) != want+"\n" {
			t.Errorf("%s:\n got %s want %s", meta, got, want)
		}
	}
}

func TestUniqueMembers(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}`: true,
		`[{"family":"x"},{"family":"y"}]`:           true,
		`"a"`:                                       true,
		`{"a":"b","b":"a"}`:                         true,
		`[["a","a"],{"a":["a"]}]`:                   true,
		`{"a":1,"a":2}`:                             false,
		`[{"family":1,"family":"Tolkien"}]`:         false,
		`{"date-parts":"x","date-parts":[[2001]]}`:  false,
		`{"x":{"y":[{"z":1,"w":{"v":1,"v":1}}]}}`:   false,
		`{"a":{"b":1},"a":{"b":1}}`:                 false,
		`{"a":[1,2],"b":{},"a":3}`:                  false,
	} {
		if got := uniqueMembers(json.RawMessage(raw)); got != want {
			t.Errorf("uniqueMembers(%s) = %v, want %v", raw, got, want)
		}
	}
	// The reviewer's item: the author and the date are left out.
	if v := cslValue(cslNames, json.RawMessage(`[{"family":1,"family":"Tolkien"}]`)); v != nil {
		t.Errorf("a name with a duplicate member: %s", v)
	}
}
