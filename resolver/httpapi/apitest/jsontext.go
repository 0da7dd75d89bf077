package apitest

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/storetest"
)

// deepMetadata is the metadata of the security review's deep.json: one
// member whose value is n arrays nested in each other.
func deepMetadata(n int) string {
	return `{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`
}

func wantProblemAt(t *testing.T, what string, p Problem, field string, offset int, detail string) {
	t.Helper()
	if p.Field != field || p.Offset == nil || *p.Offset != offset || !strings.Contains(p.Detail, detail) {
		off := "none"
		if p.Offset != nil {
			off = strconv.Itoa(*p.Offset)
		}
		t.Fatalf("%s: field %q offset %s detail %q\nwant field %q offset %d detail with %q", what, p.Field, off, p.Detail, field, offset, detail)
	}
}

// testMetadataDepth: metadata nested past resolver.MaxMetadataDepth is
// refused on PUT, naming the metadata and the offset in it of the bracket
// that passes the limit; up to the limit is taken.
func testMetadataDepth(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	const x = `{"locations":[{"url":"https://x.example/"}],"metadata":`
	for _, n := range []int{resolver.MaxMetadataDepth, 8185} { // the review's deep.json
		p := f.Put(f.books, "urn:example:deep", x+deepMetadata(n)+`}`).Want(t, 400).Problem(t)
		// `{"a":` then the 32nd "[", which opens the 33rd level.
		wantProblemAt(t, "PUT deep metadata", p, "metadata", 5+resolver.MaxMetadataDepth-1, "nested more than 32 levels deep")
	}
	f.Do("GET", "/api/v1/names/urn:example:deep", "").Want(t, 404)
	f.Put(f.books, "urn:example:deep", x+deepMetadata(resolver.MaxMetadataDepth-1)+`}`).Want(t, 201)
	f.Put(f.books, "urn:example:csl", x+`{"title":"T","author":[{"family":"F","given":"G"}],"issued":{"date-parts":[[2024,5,1]]}}}`).Want(t, 201)
}

// testBodyUTF8: a body that is not UTF-8 is refused with the offset of its
// first bad byte, whichever member the byte is in: encoding/json would
// have stored U+FFFD in its place (RFC 8259 §8.1).
func testBodyUTF8(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	f.Put(f.books, "urn:example:u", loc("https://example.org/u")).Want(t, 201)
	books := strconv.FormatInt(f.booksID, 10)
	for _, c := range []struct{ method, target, token, body string }{
		{"PUT", "/api/v1/names/urn:example:x", f.books, `{"locations":[{"url":"https://x.example/","label":"ok` + "\xff" + `"}]}`},
		{"PUT", "/api/v1/names/urn:example:x", f.books, `{"locations":[{"url":"https://x.example/","type":"text/html; title=` + "\xe9" + `"}]}`},
		{"PUT", "/api/v1/names/urn:example:x", f.books, `{"locations":[{"url":"https://x.example/` + "\xff" + `"}]}`},
		{"PUT", "/api/v1/names/urn:example:x", f.books, `{"locations":[{"url":"https://x.example/"}],"metadata":{"t":"caf` + "\xe9" + `"}}`},
		{"POST", "/api/v1/names/urn:example:u/withdraw", f.books, `{"reason":"gone ` + "\xc3" + `"}`},
		{"POST", "/api/v1/authorities/" + books + "/tokens", f.books, `{"label":"ci ` + "\xed\xa0\x80" + `"}`}, // a surrogate
		{"POST", "/api/v1/authorities", AdminToken, `{"name":"Caf` + "\xe9" + `","prefixes":["urn:cafe:"]}`},
	} {
		bad := strings.IndexFunc(c.body, func(r rune) bool { return r == '\ufffd' })
		p := f.Do(c.method, c.target, c.body, auth(c.token)...).Want(t, 400).Problem(t)
		wantProblemAt(t, c.method+" "+c.target+" "+strconv.Quote(c.body), p, "body", bad, "not UTF-8")
		if b := c.body[bad]; !strings.Contains(p.Detail, "0x"+strings.ToUpper(strconv.FormatUint(uint64(b), 16))) {
			t.Fatalf("%q: the detail does not name byte %#x: %s", c.body, b, p.Detail)
		}
	}
	// Nothing of it was written.
	f.Do("GET", "/api/v1/names/urn:example:x", "").Want(t, 404)
	f.Do("GET", "/uri-res/I2L?urn:example:u", "").Want(t, 303)
	r := f.Do("GET", "/api/v1/authorities/"+books, "", auth(AdminToken)...).Want(t, 200)
	if strings.Contains(r.Body, `"ci `) {
		t.Fatalf("a token was added: %s", r.Body)
	}
	r = f.Do("GET", "/api/v1/authorities", "", auth(AdminToken)...).Want(t, 200)
	if strings.Contains(r.Body, "urn:cafe:") {
		t.Fatalf("an authority was created: %s", r.Body)
	}
	// U+FFFD itself, sent as UTF-8, is text like any other.
	f.Put(f.books, "urn:example:x", `{"locations":[{"url":"https://x.example/","label":"ok `+"\ufffd"+`"}]}`).Want(t, 201)
}

// testDuplicateMembers: a member name given twice in an object of a body,
// at any depth, metadata included, is refused with the member's path and
// the offset of the second name: encoding/json keeps the last, other
// readers the first (RFC 8259 §4, RFC 7493 §2.3).
func testDuplicateMembers(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	books := strconv.FormatInt(f.booksID, 10)
	const x, y = `[{"url":"https://x.example/"}]`, `[{"url":"https://y.example/"}]`
	for _, c := range []struct {
		method, target, token, body string
		member                      string // what the detail says
		at                          string // the text at the offset
	}{
		{"PUT", "/api/v1/names/urn:example:d", f.books, `{"locations":` + x + `,"locations":` + y + `}`,
			`member "locations" is given twice`, `"locations":` + y},
		{"PUT", "/api/v1/names/urn:example:d", f.books, `{"locations":[{"url":"https://x.example/","label":"a", "label":"b"}]}`,
			`member "label" in locations[0] is given twice`, `"label":"b"`},
		{"PUT", "/api/v1/names/urn:example:d", f.books, `{"locations":` + x + `,"metadata":{"a":1,"a":2}}`,
			`member "a" in metadata is given twice`, `"a":2`},
		{"PUT", "/api/v1/names/urn:example:d", f.books, `{"locations":` + x + `,"metadata":{"author":[{"family":"A"},{"family":"B","family":"C"}]}}`,
			`member "family" in metadata.author[1] is given twice`, `"family":"C"`},
		{"PUT", "/api/v1/names/urn:example:d", f.books, `{"locations":` + x + `,"metadata":{"t":1,"\u0074":2}}`,
			`member "t" in metadata is given twice`, `"\u0074":2`},
		{"POST", "/api/v1/names/" + lotr + "/withdraw", f.books, `{"reason":"a","reason":"b"}`,
			`member "reason" is given twice`, `"reason":"b"`},
		{"POST", "/api/v1/authorities/" + books + "/tokens", f.books, `{"label":"a","label":"b"}`,
			`member "label" is given twice`, `"label":"b"`},
		{"POST", "/api/v1/authorities", AdminToken, `{"name":"N","prefixes":["urn:n:"],"name":"M"}`,
			`member "name" is given twice`, `"name":"M"`},
	} {
		p := f.Do(c.method, c.target, c.body, auth(c.token)...).Want(t, 400).Problem(t)
		wantProblemAt(t, c.method+" "+c.body, p, "body", strings.LastIndex(c.body, c.at), c.member)
	}
	f.Do("GET", "/api/v1/names/urn:example:d", "").Want(t, 404)
	f.Do("GET", "/uri-res/I2L?"+lotr, "").Want(t, 303)
	// Names alike in case only, or in different objects, are different.
	f.Put(f.books, "urn:example:d", `{"locations":`+x+`,"metadata":{"a":1,"A":2,"b":{"a":3},"c":[{"a":4},{"a":5}]}}`).Want(t, 201)
}

// testStoredMetadataPastRules: a record stored before the depth and
// duplicate rules is served as stored, and its pages stay small: the
// review's 16 KB of metadata indented by json.Indent was 134 MB a request.
func testStoredMetadataPastRules(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	deep := deepMetadata(8185)
	dup := `{"a":1,"b":[{"c":1,"c":2}],"a":2}`
	for name, md := range map[string]string{"urn:example:deep": deep, "urn:example:dup": dup} {
		storetest.InsertLegacy(t, f.Svc.Store(), resolver.Record{URN: name, AuthorityID: f.booksID,
			Locations: []resolver.Location{{URL: "https://x.example/"}}, Metadata: []byte(md)})
	}
	f.Clock.Advance(time.Second)
	for name, md := range map[string]string{"urn:example:deep": deep, "urn:example:dup": dup} {
		// JSON: the metadata as stored.
		r := f.Do("GET", "/uri-res/I2C?"+name, "", "Accept", "application/json").Want(t, 200)
		if !strings.Contains(r.Body, `"metadata":`+md) {
			t.Fatalf("I2C JSON of %s: %.200s", name, r.Body)
		}
		f.Do("GET", "/api/v1/names/"+name, "").Want(t, 200)
		// HTML: bounded, whatever the depth.
		r = f.Do("GET", "/uri-res/I2C?"+name, "", "Accept", "text/html").Want(t, 200)
		if len(r.Body) > 16*len(md)+64<<10 {
			t.Fatalf("I2C HTML of %s: %d bytes for %d of metadata", name, len(r.Body), len(md))
		}
		if !strings.Contains(r.Body, "[[[[") && name == "urn:example:deep" {
			t.Fatalf("I2C HTML of %s: the deep part is not there, compact", name)
		}
		f.Do("GET", "/uri-res/I2Cs?"+name, "", "Accept", "text/html").Want(t, 200)
		f.Do("GET", "/uri-res/I2C?"+name, "", "Accept", "application/vnd.citationstyles.csl+json").Want(t, 200)
	}
	// The record is put again as it is: its metadata is refused now.
	p := f.Put(f.books, "urn:example:dup", `{"locations":[{"url":"https://x.example/"}],"metadata":`+dup+`}`).Want(t, 400).Problem(t)
	if p.Field != "body" || !strings.Contains(p.Detail, `member "c" in metadata.b[0] is given twice`) {
		t.Fatalf("put again: %+v", p)
	}
}
