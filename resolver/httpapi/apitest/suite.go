package apitest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/client"
	"github.com/urikit/urikit/resolver/httpapi"
	"github.com/urikit/urikit/resolver/storetest"
)

// Run runs the whole suite, each test on a fresh store from newStore.
func Run(t *testing.T, newStore func(t *testing.T) resolver.Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, func(*testing.T) resolver.Store)
	}{
		{"RedirectServices", testRedirect},
		{"HTTP10", testHTTP10},
		{"Equivalence", testEquivalence},
		{"LocationLists", testLocationLists},
		{"ResourceServices", testResources},
		{"Descriptions", testDescriptions},
		{"CSL", testCSL},
		{"CSLNegotiation", testCSLNegotiation},
		{"CSLLifecycle", testCSLLifecycle},
		{"NameServices", testNameServices},
		{"ByLocation", testByLocation},
		{"ByLocationBounded", testByLocationBounded},
		{"ByLocationBytes", testByLocationBytes},
		{"LocationListing", testLocationListing},
		{"LocationListingBytes", testLocationListingBytes},
		{"ResolutionErrors", testResolutionErrors},
		{"RawQuery", testRawQuery},
		{"PathStyleRaw", testPathStyleRaw},
		{"PathStyleDirectives", testPathStyleDirectives},
		{"QComponent", testQComponent},
		{"Withdrawn", testWithdrawn},
		{"WithdrawalNoticeRestated", testWithdrawalNoticeRestated},
		{"Predecessors", testPredecessors},
		{"ManyPredecessors", testManyPredecessors},
		{"AsOf", testAsOf},
		{"AsOfDate", testAsOfDate},
		{"DuplicatesWithdrawn", testDuplicatesWithdrawn},
		{"Delegation", testDelegation},
		{"Unavailable", testUnavailable},
		{"Limits", testLimits},
		{"Authorities", testAuthorities},
		{"Tokens", testTokens},
		{"WhoAmI", testWhoAmI},
		{"Transfer", testTransfer},
		{"PutName", testPutName},
		{"PutErrors", testPutErrors},
		{"BodyMembers", testBodyMembers},
		{"BodyUTF8", testBodyUTF8},
		{"DuplicateMembers", testDuplicateMembers},
		{"MetadataDepth", testMetadataDepth},
		{"StoredMetadataPastRules", testStoredMetadataPastRules},
		{"NameSegments", testNameSegments},
		{"NameWritesTakeNoQuery", testNameWritesTakeNoQuery},
		{"WithdrawAndHistory", testWithdrawAndHistory},
		{"PublicLog", testPublicLog},
		{"LogPageBytes", testLogPageBytes},
		{"HistoryPages", testHistoryPages},
		{"HistoryPageBytes", testHistoryPageBytes},
		{"HistoryQuery", testHistoryQuery},
		{"HistoryBackward", testHistoryBackward},
		{"HistoryWithdrawnBackward", testHistoryWithdrawnBackward},
		{"URCsBounded", testURCsBounded},
		{"PrivateLog", testPrivateLog},
		{"WithdrawSuccessorItself", testWithdrawSuccessorItself},
		{"Conditional", testConditional},
		{"ConditionalRace", testConditionalRace},
		{"ConditionalDates", testConditionalDates},
		{"GoClientConditional", testGoClientConditional},
		{"Rules", testRules},
		{"Positions", testPositions},
		{"Methods", testMethods},
		{"Operations", testOperations},
		{"Pages", testPages},
		{"Recover", testRecover},
		{"OpenAPIRoutesAnswer", testOpenAPI},
		{"GoClient", testGoClient},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore) })
	}
}

// fixture is the directory most tests start from.
type fixture struct {
	*Env
	books, other     string // tokens
	booksID, otherID int64
}

const (
	lotr     = "urn:isbn:9780395363416"
	lotrBody = `{"locations":[{"url":"https://example.org/book","type":"text/html","label":"Landing page"},` +
		`{"url":"https://example.org/book.pdf","type":"application/pdf"}],` +
		`"aliases":["urn:example:tolkien-lotr"],"metadata":{"title":"The Lord of the Rings"}}`
)

func newFixture(t *testing.T, newStore func(*testing.T) resolver.Store, cfg ...Config) *fixture {
	e := NewEnv(t, newStore, cfg...)
	f := &fixture{Env: e}
	f.booksID, f.books = e.Authority("Books", "urn:ISBN", "urn:example:")
	f.otherID, f.other = e.Authority("Other", "urn:nbn:de:")
	f.Put(f.books, lotr, lotrBody).Want(t, 201)
	e.Clock.Advance(time.Second)
	return f
}

func loc(urls ...string) string {
	var b strings.Builder
	b.WriteString(`{"locations":[`)
	for i, u := range urls {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"url":%q}`, u)
	}
	b.WriteString(`]}`)
	return b.String()
}

func wantHeader(t *testing.T, r *Resp, name, want string) {
	t.Helper()
	if got := r.Header.Get(name); got != want {
		t.Fatalf("%s: %q, want %q (status %d, body %s)", name, got, want, r.Status, r.Body)
	}
}

const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

// ---- Resolution ----

func testRedirect(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	for _, target := range []string{
		"/uri-res/N2L?" + lotr, "/uri-res/I2L?" + lotr, "/uri-res/n2l?" + lotr, "/uri-res/i2L?" + lotr,
		"/" + lotr, "/" + lotr + "?s=I2L", "/" + lotr + "?+s=I2L",
	} {
		r := f.Do("GET", target, "").Want(t, 303)
		wantHeader(t, r, "Location", "https://example.org/book")
	}
	// HEAD answers like GET, without a body.
	r := f.Do("HEAD", "/"+lotr, "").Want(t, 303)
	wantHeader(t, r, "Location", "https://example.org/book")
	// The record's redirect status is used.
	for _, code := range []int{301, 302, 307} {
		name := fmt.Sprintf("urn:example:redirect-%d", code)
		f.Put(f.books, name, fmt.Sprintf(`{"locations":[{"url":"https://example.org/%d"}],"redirect":%d}`, code, code)).Want(t, 201)
		r := f.Do("GET", "/uri-res/N2L?"+name, "").Want(t, code)
		wantHeader(t, r, "Location", fmt.Sprintf("https://example.org/%d", code))
		f.Do("GET", "/"+name, "").Want(t, code)
	}
	// N2R/I2R redirect too (never fetch): to the location Accept prefers.
	r = f.Do("GET", "/uri-res/N2R?"+lotr, "").Want(t, 303)
	wantHeader(t, r, "Location", "https://example.org/book")
	r = f.Do("GET", "/uri-res/I2R?"+lotr, "", "Accept", "application/pdf").Want(t, 303)
	wantHeader(t, r, "Location", "https://example.org/book.pdf")
	r = f.Do("GET", "/"+lotr+"?s=I2R", "", "Accept", "application/pdf, text/html;q=0.5").Want(t, 303)
	wantHeader(t, r, "Location", "https://example.org/book.pdf")
	r = f.Do("GET", "/uri-res/I2R?"+lotr, "", "Accept", "text/*").Want(t, 303)
	wantHeader(t, r, "Location", "https://example.org/book")
	f.Do("GET", "/uri-res/N2R?"+lotr, "", "Accept", "image/png").Want(t, 406).Problem(t)
	wantHeader(t, r, "Urikit-Service", "I2R")
}

func testHTTP10(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	// RFC 2169 §3.1: HTTP/1.0 clients get 302 instead of 303.
	r := f.Raw("GET /uri-res/N2L?"+lotr+" HTTP/1.0\r\n\r\n").Want(t, 302)
	wantHeader(t, r, "Location", "https://example.org/book")
	f.Raw("GET /"+lotr+" HTTP/1.0\r\n\r\n").Want(t, 302)
	f.Raw("GET /uri-res/N2L?"+lotr+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").Want(t, 303)
	f.Put(f.books, "urn:example:perm", `{"locations":[{"url":"https://example.org/p"}],"redirect":301}`).Want(t, 201)
	f.Raw("GET /uri-res/N2L?urn:example:perm HTTP/1.0\r\n\r\n").Want(t, 301)
	f.Put(f.books, "urn:example:temp", `{"locations":[{"url":"https://example.org/t"}],"redirect":307}`).Want(t, 201)
	f.Raw("GET /uri-res/N2L?urn:example:temp HTTP/1.0\r\n\r\n").Want(t, 302)
	f.Raw("GET /uri-res/N2L?urn:example:temp HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").Want(t, 307)
}

func testEquivalence(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	// RFC 2169 §2: lexically equivalent URNs give identical results, and
	// so do names equivalent by their namespace's rules (ISBN-10 and -13).
	first := f.Do("GET", "/uri-res/N2Ls?"+lotr, "").Want(t, 200)
	for _, name := range []string{"URN:ISBN:9780395363416", "urn:ISBN:0-395-36341-1", "urn:isbn:978-0-395-36341-6"} {
		r := f.Do("GET", "/uri-res/N2Ls?"+name, "").Want(t, 200)
		want := strings.Replace(first.Body, lotr, name, 1) // the comment names the URN asked for
		if r.Body != want {
			t.Fatalf("%s: %q, want %q", name, r.Body, want)
		}
		f.Do("GET", "/"+name, "").Want(t, 303)
	}
	// An alias resolves exactly like its record.
	r := f.Do("GET", "/urn:example:tolkien-lotr", "").Want(t, 303)
	wantHeader(t, r, "Location", "https://example.org/book")
	r = f.Do("GET", "/uri-res/I2N?URN:Example:tolkien-lotr", "").Want(t, 200)
	if r.Body != "# URN:Example:tolkien-lotr\r\n"+lotr+"\r\n" {
		t.Fatalf("I2N of an alias: %q", r.Body)
	}
	// The NSS is case-sensitive in the example namespace.
	f.Do("GET", "/urn:example:TOLKIEN-lotr", "").Want(t, 404).Problem(t)
}

func testLocationLists(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	want := "# " + lotr + "\r\nhttps://example.org/book\r\nhttps://example.org/book.pdf\r\n"
	for _, target := range []string{"/uri-res/N2Ls?" + lotr, "/uri-res/I2Ls?" + lotr, "/uri-res/i2ls?" + lotr, "/" + lotr + "?s=I2Ls", "/" + lotr + "?s=N2Ls"} {
		for _, accept := range []string{"", "*/*", "text/uri-list", "text/*;q=0.5, application/json;q=0.1"} {
			r := f.Do("GET", target, "", "Accept", accept).Want(t, 200)
			wantHeader(t, r, "Content-Type", "text/uri-list; charset=utf-8")
			if r.Body != want {
				t.Fatalf("%s: %q, want %q", target, r.Body, want)
			}
			if !strings.Contains(r.Header.Get("Vary"), "Accept") {
				t.Fatalf("no Vary: Accept")
			}
		}
	}
	// JSON when asked.
	r := f.Do("GET", "/uri-res/N2Ls?"+lotr, "", "Accept", "application/json").Want(t, 200)
	wantHeader(t, r, "Content-Type", "application/json")
	var l struct {
		URN       string `json:"urn"`
		Name      string `json:"name"`
		Locations []struct{ URL, Type, Label string }
	}
	r.JSON(t, &l)
	if l.URN != lotr || l.Name != lotr || len(l.Locations) != 2 || l.Locations[0].Label != "Landing page" || l.Locations[1].Type != "application/pdf" {
		t.Fatalf("JSON list %+v", l)
	}
	// HTML for a browser: RFC 2169 §3.2's <UL><LI><A HREF=...> list.
	r = f.Do("GET", "/uri-res/I2Ls?"+lotr, "", "Accept", browserAccept).Want(t, 200)
	wantHeader(t, r, "Content-Type", "text/html; charset=utf-8")
	if !strings.Contains(r.Body, `<LI><A HREF="https://example.org/book.pdf">https://example.org/book.pdf</A>`) {
		t.Fatalf("HTML list: %s", r.Body)
	}
	if !strings.Contains(r.Header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("HTML without a Content-Security-Policy")
	}
	// A location that is a script is not made a link. Such a location
	// is refused on writes (testPutErrors); a record stored before that
	// rule still holds one, and its list is still served, as text.
	storetest.InsertLegacy(t, f.Svc.Store(), resolver.Record{URN: "urn:example:js", AuthorityID: f.booksID,
		Locations: []resolver.Location{{URL: "javascript:alert(1)"}}})
	r = f.Do("GET", "/uri-res/I2Ls?urn:example:js", "", "Accept", browserAccept).Want(t, 200)
	if strings.Contains(r.Body, `HREF="javascript:`) || !strings.Contains(r.Body, "javascript:alert(1)") {
		t.Fatalf("script link, or the location not shown: %s", r.Body)
	}
	// Nothing acceptable: 406.
	f.Do("GET", "/uri-res/I2Ls?"+lotr, "", "Accept", "image/png").Want(t, 406).Problem(t)
	f.Do("GET", "/uri-res/I2Ls?"+lotr, "", "Accept", "text/uri-list;q=0, application/json;q=0").Want(t, 406)
}

func testResources(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	for _, target := range []string{"/uri-res/N2Rs?" + lotr, "/uri-res/I2Rs?" + lotr, "/" + lotr + "?s=I2Rs"} {
		r := f.Do("GET", target, "").Want(t, 300)
		if r.Header.Get("Location") != "" {
			t.Fatalf("300 with a Location: the choice is the client's")
		}
		if r.Body != "# "+lotr+"\r\nhttps://example.org/book\r\nhttps://example.org/book.pdf\r\n" {
			t.Fatalf("%s: %q", target, r.Body)
		}
	}
	// RFC 2169 §3.4: only the versions the Accept header takes.
	r := f.Do("GET", "/uri-res/I2Rs?"+lotr, "", "Accept", "application/pdf").Want(t, 300)
	if r.Body != "# "+lotr+"\r\nhttps://example.org/book.pdf\r\n" {
		t.Fatalf("filtered: %q", r.Body)
	}
	f.Do("GET", "/uri-res/N2Rs?"+lotr, "", "Accept", "image/png").Want(t, 406).Problem(t)
	// A location without a media type could be anything: kept.
	f.Put(f.books, "urn:example:untyped", loc("https://example.org/u")).Want(t, 201)
	r = f.Do("GET", "/uri-res/N2Rs?urn:example:untyped", "", "Accept", "application/pdf").Want(t, 300)
	if !strings.Contains(r.Body, "https://example.org/u\r\n") {
		t.Fatalf("untyped: %q", r.Body)
	}
}

func testDescriptions(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	for _, target := range []string{"/uri-res/N2C?" + lotr, "/uri-res/I2C?urn:example:tolkien-lotr", "/" + lotr + "?s=I2C"} {
		r := f.Do("GET", target, "").Want(t, 200)
		wantHeader(t, r, "Content-Type", "application/json")
		var rec struct {
			URN      string          `json:"urn"`
			Metadata json.RawMessage `json:"metadata"`
			Status   string          `json:"status"`
			Aliases  []string        `json:"aliases"`
			Redirect int             `json:"redirect"`
		}
		r.JSON(t, &rec)
		if rec.URN != lotr || string(rec.Metadata) != `{"title":"The Lord of the Rings"}` || rec.Status != "active" || rec.Redirect != 303 {
			t.Fatalf("%s: %s", target, r.Body)
		}
	}
	r := f.Do("GET", "/uri-res/N2C?"+lotr, "", "Accept", browserAccept).Want(t, 200)
	wantHeader(t, r, "Content-Type", "text/html; charset=utf-8")
	if !strings.Contains(r.Body, "The Lord of the Rings") || !strings.Contains(r.Body, "urn:example:tolkien-lotr") {
		t.Fatalf("HTML description: %s", r.Body)
	}
	f.Do("GET", "/uri-res/I2C?"+lotr, "", "Accept", "text/uri-list").Want(t, 406)

	// I2Cs: the descriptions over time, newest first.
	f.Put(f.books, lotr, strings.Replace(lotrBody, "The Lord", "Der Herr", 1)).Want(t, 200)
	r = f.Do("GET", "/uri-res/I2Cs?"+lotr, "").Want(t, 200)
	var vs []struct {
		Seq    int64  `json:"seq"`
		Action string `json:"action"`
		Record struct {
			Metadata map[string]string `json:"metadata"`
		} `json:"record"`
	}
	r.JSON(t, &vs)
	if len(vs) != 2 || vs[0].Action != "name.update" || vs[0].Record.Metadata["title"] != "Der Herr of the Rings" ||
		vs[1].Action != "name.create" || vs[1].Record.Metadata["title"] != "The Lord of the Rings" || vs[0].Seq <= vs[1].Seq {
		t.Fatalf("I2Cs: %s", r.Body)
	}
	r = f.Do("GET", "/"+lotr+"?s=I2Cs", "", "Accept", "text/html").Want(t, 200)
	if !strings.Contains(r.Body, "name.update") {
		t.Fatalf("I2Cs HTML: %s", r.Body)
	}
}

func testNameServices(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	f.Put(f.books, "urn:example:many", `{"locations":[{"url":"https://example.org/m"}],"aliases":["urn:example:many-2","urn:isbn:9780131103627"]}`).Want(t, 201)
	all := "urn:example:many\r\nurn:example:many-2\r\nurn:isbn:9780131103627\r\n"
	for _, target := range []string{"/uri-res/N2Ns?", "/uri-res/I2Ns?"} {
		for _, asked := range []string{"urn:example:many", "urn:example:many-2", "URN:ISBN:0-13-110362-8"} {
			r := f.Do("GET", target+asked, "").Want(t, 200)
			wantHeader(t, r, "Content-Type", "text/uri-list; charset=utf-8")
			if r.Body != "# "+asked+"\r\n"+all {
				t.Fatalf("%s%s: %q", target, asked, r.Body)
			}
		}
	}
	r := f.Do("GET", "/urn:example:many-2?s=I2N", "").Want(t, 200)
	if r.Body != "# urn:example:many-2\r\nurn:example:many\r\n" {
		t.Fatalf("I2N: %q", r.Body)
	}
	r = f.Do("GET", "/uri-res/I2Ns?urn:example:many", "", "Accept", "application/json").Want(t, 200)
	var n struct {
		URN   string   `json:"urn"`
		Names []string `json:"names"`
	}
	r.JSON(t, &n)
	if n.URN != "urn:example:many" || len(n.Names) != 3 {
		t.Fatalf("JSON names: %s", r.Body)
	}
	r = f.Do("GET", "/uri-res/N2Ns?urn:example:many", "", "Accept", browserAccept).Want(t, 200)
	if !strings.Contains(r.Body, "urn:example:many-2") || !strings.Contains(r.Body, "<UL>") {
		t.Fatalf("HTML names: %s", r.Body)
	}
}

func testByLocation(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	f.Put(f.books, "urn:example:mirror", loc("https://mirror.example/lotr", "https://example.org/foo")).Want(t, 201)
	f.Put(f.books, "urn:example:foo", `{"locations":[{"url":"https://example.org/foo"},{"url":"http://example.net/foo"}],"aliases":["urn:example:foo-alias"]}`).Want(t, 201)
	// L2Ns compares after scheme-based normalization.
	r := f.Do("GET", "/uri-res/L2Ns?HTTPS://EXAMPLE.ORG:443/foo", "").Want(t, 200)
	if r.Body != "# HTTPS://EXAMPLE.ORG:443/foo\r\nurn:example:mirror\r\nurn:example:foo\r\nurn:example:foo-alias\r\n" {
		t.Fatalf("L2Ns: %q", r.Body)
	}
	r = f.Do("GET", "/uri-res/L2Ls?https://example.org/book.pdf", "").Want(t, 200)
	if r.Body != "# https://example.org/book.pdf\r\nhttps://example.org/book\r\nhttps://example.org/book.pdf\r\n" {
		t.Fatalf("L2Ls: %q", r.Body)
	}
	// L2Ls over two records sharing a location lists each location once.
	r = f.Do("GET", "/uri-res/L2Ls?https://example.org/foo", "").Want(t, 200)
	if r.Body != "# https://example.org/foo\r\nhttps://mirror.example/lotr\r\nhttps://example.org/foo\r\nhttp://example.net/foo\r\n" {
		t.Fatalf("L2Ls shared: %q", r.Body)
	}
	// As of a time too: the records read back from the history keep
	// their locations without keys, which are computed again.
	r = f.Do("GET", "/uri-res/L2Ls?https://example.org/foo", "", "Accept-Datetime", f.Clock.Now().Format(http.TimeFormat)).Want(t, 200)
	if r.Body != "# https://example.org/foo\r\nhttps://mirror.example/lotr\r\nhttps://example.org/foo\r\nhttp://example.net/foo\r\n" {
		t.Fatalf("L2Ls shared, as of a time: %q", r.Body)
	}
	r = f.Do("GET", "/uri-res/L2Ls?https://example.org/foo", "", "Accept", "application/json").Want(t, 200)
	var l struct {
		URL       string `json:"url"`
		Locations []struct{ URL string }
	}
	r.JSON(t, &l)
	if l.URL != "https://example.org/foo" || len(l.Locations) != 3 {
		t.Fatalf("L2Ls JSON: %s", r.Body)
	}
	// L2C: the record's description; several records: 300 and their names.
	r = f.Do("GET", "/uri-res/L2C?https://example.org/book", "").Want(t, 200)
	if !strings.Contains(r.Body, `"urn":"`+lotr+`"`) {
		t.Fatalf("L2C: %s", r.Body)
	}
	r = f.Do("GET", "/uri-res/L2C?https://example.org/foo", "").Want(t, 300)
	if r.Body != "# https://example.org/foo\r\nurn:example:mirror\r\nurn:example:foo\r\n" {
		t.Fatalf("L2C duplicate: %q", r.Body)
	}
	f.Do("GET", "/uri-res/L2Ns?https://example.org/nothing", "").Want(t, 404).Problem(t)
	p := f.Do("GET", "/uri-res/L2Ns?example.org/foo", "").Want(t, 400).Problem(t)
	if p.Field != "url" || p.Offset == nil || *p.Offset != 11 {
		t.Fatalf("malformed URL: %+v", p)
	}
	f.Do("GET", "/uri-res/L2Ls?", "").Want(t, 400).Problem(t)
	// A withdrawn record's locations no longer stand for the resource.
	f.Do("POST", "/api/v1/names/urn:example:mirror/withdraw", `{}`, "Authorization", "Bearer "+f.books).Want(t, 200)
	r = f.Do("GET", "/uri-res/L2Ns?https://example.org/foo", "").Want(t, 200)
	if strings.Contains(r.Body, "mirror") {
		t.Fatalf("withdrawn record listed: %q", r.Body)
	}
}

func testResolutionErrors(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	p := f.Do("GET", "/uri-res/N2L?urn:example:nobody", "").Want(t, 404).Problem(t)
	if !strings.Contains(p.Detail, "urn:example:nobody") {
		t.Fatalf("404 detail: %+v", p)
	}
	f.Do("GET", "/urn:example:nobody", "").Want(t, 404).Problem(t)
	// Malformed names: 400 with the byte offset.
	for _, c := range []struct {
		target string
		offset int
	}{
		{"/uri-res/N2L?urn:x", 5},
		{"/uri-res/N2L?urn:example:a%zz", 14},
		{"/uri-res/N2L?http://example.org/", 0},
		{"/uri-res/I2Ls?urn:-bad:x", 4},
		{"/uri-res/N2L?", 0},
	} {
		p := f.Do("GET", c.target, "").Want(t, 400).Problem(t)
		if p.Field != "urn" || p.Offset == nil || *p.Offset != c.offset {
			t.Fatalf("%s: %+v (offset %v), want offset %d", c.target, p, p.Offset, c.offset)
		}
	}
	// Unknown service: 400 naming the services there are.
	p = f.Do("GET", "/uri-res/X2Y?"+lotr, "").Want(t, 400).Problem(t)
	if len(p.Services) != 17 || !strings.Contains(p.Detail, "N2L") || !strings.Contains(p.Detail, "I2Ns") {
		t.Fatalf("unknown service: %+v", p)
	}
	f.Do("GET", "/uri-res/I=I?"+lotr, "").Want(t, 400)
	// A browser gets an HTML page for an error.
	r := f.Do("GET", "/urn:example:nobody", "", "Accept", browserAccept).Want(t, 404)
	wantHeader(t, r, "Content-Type", "text/html; charset=utf-8")
	if !strings.Contains(r.Body, "urn:example:nobody") {
		t.Fatalf("HTML 404: %s", r.Body)
	}
}

func testRawQuery(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	// RFC 2169 §2: percent-encodings stay encoded. urn:example:a%2Fb and
	// urn:example:a/b are different names (RFC 8141 §3.1 never decodes).
	f.Put(f.books, "urn:example:a%2Fb", loc("https://example.org/pct")).Want(t, 201)
	f.Put(f.books, "urn:example:a/b", loc("https://example.org/slash")).Want(t, 201)
	f.Put(f.books, "urn:example:sp%20ace", loc("https://example.org/space")).Want(t, 201)
	for target, want := range map[string]string{
		"/uri-res/N2L?urn:example:a%2Fb":    "https://example.org/pct",
		"/uri-res/N2L?urn:example:a%2fb":    "https://example.org/pct", // hex case is not significant
		"/uri-res/N2L?urn:example:a/b":      "https://example.org/slash",
		"/urn:example:a%2Fb":                "https://example.org/pct",
		"/urn:example:a%2fb":                "https://example.org/pct",
		"/urn:example:a/b":                  "https://example.org/slash",
		"/uri-res/N2L?urn:example:sp%20ace": "https://example.org/space",
		"/urn:example:sp%20ace":             "https://example.org/space",
	} {
		r := f.Do("GET", target, "").Want(t, 303)
		wantHeader(t, r, "Location", want)
	}
	// The comment line of a list gives the name exactly as asked.
	r := f.Do("GET", "/uri-res/N2Ls?URN:EXAMPLE:a%2fb", "").Want(t, 200)
	if !strings.HasPrefix(r.Body, "# URN:EXAMPLE:a%2fb\r\n") {
		t.Fatalf("comment: %q", r.Body)
	}
}

func testPathStyleRaw(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	// Names holding "//", "/./" and "/../": a cleaning router would
	// redirect these; they are names here.
	names := map[string]string{
		"urn:example:a//b":      "https://example.org/double",
		"urn:example:x/./y":     "https://example.org/dot",
		"urn:example:p/../q":    "https://example.org/dotdot",
		"urn:example:end/":      "https://example.org/trailing",
		"urn:example:end":       "https://example.org/no-trailing",
		"urn:example:%2E%2E/z":  "https://example.org/encoded-dots",
		"urn:example:tilde~and": "https://example.org/tilde",
	}
	for n, u := range names {
		f.Put(f.books, n, loc(u)).Want(t, 201)
	}
	for n, u := range names {
		for _, target := range []string{"/" + n, "/uri-res/N2L?" + n, "/" + strings.ToUpper(n[:4]) + n[4:]} {
			r := f.Do("GET", target, "").Want(t, 303)
			wantHeader(t, r, "Location", u)
		}
	}
	// Through a raw connection too, byte for byte.
	r := f.Raw("GET /urn:example:p/../q HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").Want(t, 303)
	wantHeader(t, r, "Location", "https://example.org/dotdot")
}

func testPathStyleDirectives(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	list := "# " + lotr + "\r\nhttps://example.org/book\r\nhttps://example.org/book.pdf\r\n"
	r := f.Do("GET", "/"+lotr+"?s=I2Ls", "").Want(t, 200)
	if r.Body != list {
		t.Fatalf("?s=I2Ls: %q", r.Body)
	}
	wantHeader(t, r, "Urikit-Service", "I2Ls")
	r = f.Do("GET", "/"+lotr+"?+s=I2Ls", "").Want(t, 200)
	if r.Body != "# "+lotr+"?+s=I2Ls\r\nhttps://example.org/book\r\nhttps://example.org/book.pdf\r\n" {
		t.Fatalf("?+s=I2Ls: %q", r.Body)
	}
	// Seed 003 §2.3.1: a service the resolver does not understand falls
	// back to the default, I2L; directives are case-sensitive.
	for _, q := range []string{"?s=I2X", "?s=i2ls", "?c=ToC", "?s=I2Ls&s=I2C", "?+other=1", "?+CCResolve:cc=uk", "?s=L2Ls"} {
		r := f.Do("GET", "/"+lotr+q, "").Want(t, 303)
		wantHeader(t, r, "Urikit-Service", "I2L")
	}
	f.Do("GET", "/"+lotr+"?s=I2C&c=ToC", "").Want(t, 200)
	// A query that is neither a directive list nor URN components.
	p := f.Do("GET", "/"+lotr+"?s", "").Want(t, 400).Problem(t)
	if p.Field != "urn" || p.Offset == nil {
		t.Fatalf("bad query: %+v", p)
	}
	// N2T's and ARK's inflections ask about the name instead of going
	// there: its description, JSON for a script, the page for a browser.
	for _, q := range []string{"?info", "??", "?"} {
		r := f.Do("GET", "/"+lotr+q, "").Want(t, 200)
		wantHeader(t, r, "Content-Type", "application/json")
		wantHeader(t, r, "Urikit-Service", "I2C")
		var rec struct {
			URN string `json:"urn"`
		}
		if r.JSON(t, &rec); rec.URN != lotr {
			t.Fatalf("%s: %s", q, r.Body)
		}
		r = f.Do("GET", "/"+lotr+q, "", "Accept", browserAccept).Want(t, 200)
		wantHeader(t, r, "Content-Type", "text/html; charset=utf-8")
	}
	f.Do("GET", "/urn:example:nobody?info", "").Want(t, 404)
	f.Do("GET", "/"+lotr+"?infos", "").Want(t, 400)
}

func testQComponent(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	f.Put(f.books, "urn:example:search", loc("https://example.org/search?x=1#top", "https://example.org/plain")).Want(t, 201)
	// RFC 8141 §2.3.2: the q-component goes to the location's query;
	// appended with "&" when the location has one.
	r := f.Do("GET", "/"+lotr+"?=lang=en", "").Want(t, 303)
	wantHeader(t, r, "Location", "https://example.org/book?lang=en")
	r = f.Do("GET", "/urn:example:search?=lang=en&x=2", "").Want(t, 303)
	wantHeader(t, r, "Location", "https://example.org/search?x=1&lang=en&x=2#top")
	r = f.Do("GET", "/uri-res/N2L?urn:example:search?=lang=en", "").Want(t, 303)
	wantHeader(t, r, "Location", "https://example.org/search?x=1&lang=en#top")
	r = f.Do("GET", "/urn:example:search?+s=I2Ls?=lang=en", "").Want(t, 200)
	if !strings.Contains(r.Body, "\r\nhttps://example.org/search?x=1&lang=en#top\r\nhttps://example.org/plain?lang=en\r\n") {
		t.Fatalf("list with q: %q", r.Body)
	}
}

func testWithdrawn(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	f.Put(f.books, "urn:example:old", `{"locations":[{"url":"https://example.org/old"}],"aliases":["urn:example:old-alias"]}`).Want(t, 201)
	f.Do("POST", "/api/v1/names/urn:example:old/withdraw", `{"reason":"superseded","successor":"https://example.org/new"}`,
		"Authorization", "Bearer "+f.books).Want(t, 200)
	f.Do("POST", "/api/v1/names/urn:example:gone/withdraw", `{}`, "Authorization", "Bearer "+f.books).Want(t, 404)
	f.Put(f.books, "urn:example:plain-gone", loc("https://example.org/pg")).Want(t, 201)
	f.Do("POST", "/api/v1/names/urn:example:plain-gone/withdraw", ``, "Authorization", "Bearer "+f.books).Want(t, 200)

	for _, target := range []string{
		"/urn:example:old", "/urn:example:old-alias", "/URN:EXAMPLE:old?s=I2Ls", "/urn:example:old?s=I2C",
		"/uri-res/N2L?urn:example:old", "/uri-res/N2Ls?urn:example:old", "/uri-res/N2R?urn:example:old", "/uri-res/N2Rs?urn:example:old",
		"/uri-res/N2C?urn:example:old", "/uri-res/N2Ns?urn:example:old", "/uri-res/I2Cs?urn:example:old", "/uri-res/I2N?urn:example:old",
	} {
		r := f.Do("GET", target, "").Want(t, 410)
		wantHeader(t, r, "Link", `<https://example.org/new>; rel="successor-version"`)
		p := r.Problem(t)
		if p.Successor != "https://example.org/new" || p.Reason != "superseded" || p.Record != "urn:example:old" {
			t.Fatalf("%s: %+v", target, p)
		}
	}
	r := f.Do("GET", "/urn:example:old", "", "Accept", browserAccept).Want(t, 410)
	if !strings.Contains(r.Body, `href="https://example.org/new"`) || !strings.Contains(r.Body, "superseded") {
		t.Fatalf("410 page: %s", r.Body)
	}
	r = f.Do("GET", "/urn:example:plain-gone", "").Want(t, 410)
	if r.Header.Get("Link") != "" {
		t.Fatalf("Link without a successor")
	}
	// The API still shows the record, and the name is never reused.
	r = f.Do("GET", "/api/v1/names/urn:example:old", "").Want(t, 200)
	if !strings.Contains(r.Body, `"status":"withdrawn"`) {
		t.Fatalf("API: %s", r.Body)
	}
	p := f.Put(f.books, "URN:example:old", loc("https://example.org/again")).Want(t, 409).Problem(t)
	if p.Record != "urn:example:old" {
		t.Fatalf("reuse: %+v", p)
	}
	p = f.Put(f.books, "urn:example:new", `{"locations":[{"url":"https://example.org/x"}],"aliases":["urn:example:old-alias"]}`).Want(t, 409).Problem(t)
	if p.Record != "urn:example:old" {
		t.Fatalf("alias reuse: %+v", p)
	}
}

// testWithdrawalNoticeRestated: a successor named after the withdrawal
// (or corrected) goes out in the 410's Link from then on; the name as it
// stood before still answers without it, and a stale If-Match keeps the
// notice as it is.
func testWithdrawalNoticeRestated(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	const path = "/api/v1/names/urn:example:later"
	f.Put(f.books, "urn:example:later", loc("https://example.org/later")).Want(t, 201)
	f.Clock.Advance(time.Hour)
	f.Do("POST", path+"/withdraw", `{"reason":"withdrawn by the depositor"}`, auth(f.books)...).Want(t, 200)
	tag := etagOf(t, f.Do("HEAD", path, "").Want(t, 200))
	before := f.Clock.Advance(time.Hour)
	f.Clock.Advance(time.Hour)
	if r := f.Do("GET", "/urn:example:later", "").Want(t, 410); r.Header.Get("Link") != "" {
		t.Fatalf("Link before a successor was named: %q", r.Header.Get("Link"))
	}
	r := f.Do("POST", "/api/v1/names/URN:EXAMPLE:later/withdraw", `{"reason":"replaced","successor":"urn:example:later-v2"}`,
		append(auth(f.books), "If-Match", tag)...).Want(t, 200)
	if !strings.Contains(r.Body, `"successor":"urn:example:later-v2"`) || !strings.Contains(r.Body, `"status":"withdrawn"`) {
		t.Fatalf("restated: %s", r.Body)
	}
	for _, target := range []string{"/urn:example:later", "/uri-res/N2L?urn:example:later", "/urn:example:later?s=I2C"} {
		r := f.Do("GET", target, "").Want(t, 410)
		wantHeader(t, r, "Link", `<urn:example:later-v2>; rel="successor-version"`)
		if p := r.Problem(t); p.Successor != "urn:example:later-v2" || p.Reason != "replaced" {
			t.Fatalf("%s: %+v", target, p)
		}
	}
	// A cache must ask again: the notice may be restated (as here), and a
	// name with no record may be registered.
	wantHeader(t, f.Do("GET", "/urn:example:later", "").Want(t, 410), "Cache-Control", "no-cache")
	for _, target := range []string{"/urn:example:never", "/uri-res/N2L?urn:example:never", "/api/v1/names/urn:example:never"} {
		wantHeader(t, f.Do("GET", target, "").Want(t, 404), "Cache-Control", "no-cache")
	}
	// As it stood before the successor was named.
	r = f.Do("GET", "/urn:example:later?as-of="+before.UTC().Format(time.RFC3339), "").Want(t, 410)
	if r.Header.Get("Link") != "" || r.Problem(t).Reason != "withdrawn by the depositor" {
		t.Fatalf("as of before the successor: Link %q, %s", r.Header.Get("Link"), r.Body)
	}
	// The tag read before is stale now: 412, and the notice stays.
	wantPrecondition(t, f.Do("POST", path+"/withdraw", `{"reason":"r"}`, append(auth(f.books), "If-Match", tag)...), "If-Match",
		etagOf(t, f.Do("HEAD", path, "").Want(t, 200)))
	// Another authority may not touch it, nor anyone without a token.
	f.Do("POST", path+"/withdraw", `{"reason":"mine now"}`, auth(f.other)...).Want(t, 403).Problem(t)
	f.Do("POST", path+"/withdraw", `{"reason":"mine now"}`).Want(t, 401).Problem(t)
	r = f.Do("GET", path+"/history", "").Want(t, 200)
	var hist []struct {
		Action string          `json:"action"`
		Data   json.RawMessage `json:"data"`
	}
	r.JSON(t, &hist)
	if len(hist) != 3 || hist[1].Action != "name.withdraw" || hist[2].Action != "name.withdraw" ||
		!strings.Contains(string(hist[2].Data), `"successor":"urn:example:later-v2"`) || strings.Contains(string(hist[1].Data), "later-v2") {
		t.Fatalf("history: %s", r.Body)
	}
	// The name is still never reused.
	f.Put(f.books, "urn:example:later", loc("https://example.org/again")).Want(t, 409).Problem(t)
}

func testAsOf(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	t1 := f.Clock.Advance(time.Hour)
	f.Put(f.books, "urn:example:moving", loc("https://example.org/v1")).Want(t, 201)
	t2 := f.Clock.Advance(time.Hour)
	f.Put(f.books, "urn:example:moving", loc("https://example.org/v2")).Want(t, 200)
	t3 := f.Clock.Advance(time.Hour)
	f.Do("POST", "/api/v1/names/urn:example:moving/withdraw", `{"reason":"moved away"}`, "Authorization", "Bearer "+f.books).Want(t, 200)
	f.Clock.Advance(time.Hour)

	rfc := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	// Path style: as-of= beside s=, joined with "&".
	r := f.Do("GET", "/urn:example:moving?as-of="+rfc(t1.Add(time.Minute)), "").Want(t, 303)
	wantHeader(t, r, "Location", "https://example.org/v1")
	wantHeader(t, r, "Memento-Datetime", t1.Format(http.TimeFormat))
	r = f.Do("GET", "/urn:example:moving?s=I2Ls&as-of="+rfc(t2), "").Want(t, 200)
	if r.Body != "# urn:example:moving\r\nhttps://example.org/v2\r\n" {
		t.Fatalf("as of t2: %q", r.Body)
	}
	wantHeader(t, r, "Memento-Datetime", t2.Format(http.TimeFormat))
	r = f.Do("GET", "/urn:example:moving?+as-of="+rfc(t2.Add(time.Minute))+"&s=I2L", "").Want(t, 303)
	wantHeader(t, r, "Location", "https://example.org/v2")
	// An offset: "+" percent-encoded, or "-".
	r = f.Do("GET", "/urn:example:moving?as-of="+t1.Add(time.Minute).In(time.FixedZone("", 2*3600)).Format("2006-01-02T15:04:05")+"%2B02:00", "").Want(t, 303)
	wantHeader(t, r, "Location", "https://example.org/v1")
	// Before the name existed: 404; after the withdrawal: 410; before it:
	// as it was.
	f.Do("GET", "/urn:example:moving?as-of="+rfc(t1.Add(-time.Second)), "").Want(t, 404).Problem(t)
	f.Do("GET", "/urn:example:moving?as-of="+rfc(t3.Add(time.Second)), "").Want(t, 410)
	f.Do("GET", "/urn:example:moving", "").Want(t, 410)
	// Memento's Accept-Datetime on every service.
	adt := t1.Add(30 * time.Minute).Format(http.TimeFormat)
	r = f.Do("GET", "/uri-res/N2L?urn:example:moving", "", "Accept-Datetime", adt).Want(t, 303)
	wantHeader(t, r, "Location", "https://example.org/v1")
	wantHeader(t, r, "Memento-Datetime", t1.Format(http.TimeFormat))
	if !strings.Contains(r.Header.Get("Vary"), "Accept-Datetime") {
		t.Fatalf("no Vary: Accept-Datetime")
	}
	r = f.Do("GET", "/uri-res/I2Cs?urn:example:moving", "", "Accept-Datetime", adt).Want(t, 200)
	if strings.Count(r.Body, `"seq"`) != 1 {
		t.Fatalf("I2Cs as of: %s", r.Body)
	}
	r = f.Do("GET", "/uri-res/N2C?urn:example:moving", "", "Accept-Datetime", t2.Add(time.Minute).Format(http.TimeFormat)).Want(t, 200)
	if !strings.Contains(r.Body, "v2") || !strings.Contains(r.Body, `"status":"active"`) {
		t.Fatalf("N2C as of: %s", r.Body)
	}
	r = f.Do("GET", "/uri-res/L2Ns?https://example.org/v2", "", "Accept-Datetime", t2.Add(time.Minute).Format(http.TimeFormat)).Want(t, 200)
	if r.Body != "# https://example.org/v2\r\nurn:example:moving\r\n" {
		t.Fatalf("L2Ns as of: %q", r.Body)
	}
	f.Do("GET", "/uri-res/L2Ns?https://example.org/v2", "", "Accept-Datetime", adt).Want(t, 404)
	f.Do("GET", "/uri-res/N2L?urn:example:moving", "", "Accept-Datetime", T0.Add(-time.Hour).Format(http.TimeFormat)).Want(t, 404)
	// RFC 3339 §5.6: "T" and "Z" may be lower case.
	r = f.Do("GET", "/urn:example:moving?as-of="+strings.ToLower(rfc(t2)), "").Want(t, 303)
	wantHeader(t, r, "Location", "https://example.org/v2")
	r = f.Do("GET", "/api/v1/names/urn:example:moving?as-of="+strings.ToLower(rfc(t1)), "").Want(t, 200)
	if !strings.Contains(r.Body, "v1") {
		t.Fatalf("API as of, lower case: %s", r.Body)
	}
	// The directive wins over the header.
	r = f.Do("GET", "/urn:example:moving?as-of="+rfc(t2), "", "Accept-Datetime", adt).Want(t, 303)
	wantHeader(t, r, "Location", "https://example.org/v2")
	// The API reads as of a time too.
	r = f.Do("GET", "/api/v1/names/urn:example:moving?as-of="+rfc(t1), "").Want(t, 200)
	if !strings.Contains(r.Body, "v1") {
		t.Fatalf("API as of: %s", r.Body)
	}
	r = f.Do("GET", "/api/v1/names/urn:example:moving", "", "Accept-Datetime", adt).Want(t, 200)
	wantHeader(t, r, "Memento-Datetime", t1.Format(http.TimeFormat))
	// Malformed times: 400 naming the input.
	for _, c := range []struct{ target, hdr, field string }{
		{"/urn:example:moving?as-of=yesterday", "", "as-of"},
		{"/urn:example:moving?as-of=2024-13-01T00:00:00Z", "", "as-of"},
		{"/uri-res/N2L?urn:example:moving", "last week", "Accept-Datetime"},
		{"/uri-res/L2Ls?https://example.org/v2", "never", "Accept-Datetime"},
		{"/api/v1/names/urn:example:moving?as-of=soon", "", "as-of"},
	} {
		var r *Resp
		if c.hdr != "" {
			r = f.Do("GET", c.target, "", "Accept-Datetime", c.hdr)
		} else {
			r = f.Do("GET", c.target, "")
		}
		if p := r.Want(t, 400).Problem(t); p.Field != c.field {
			t.Fatalf("%s: %+v", c.target, p)
		}
	}
}

// testDuplicatesWithdrawn: GET /api/v1/duplicates lists the locations
// that several active records share; withdrawn=true counts the withdrawn
// records too, and each record comes with its status.
func testDuplicatesWithdrawn(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	withdraw := func(name string) {
		f.Do("POST", "/api/v1/names/"+name+"/withdraw", `{"reason":"registered twice"}`, auth(f.books)...).Want(t, 200)
	}
	f.Put(f.books, "urn:example:d1", loc("http://example.org/same", "http://example.org/one-active")).Want(t, 201)
	f.Put(f.books, "urn:example:d2", loc("HTTP://EXAMPLE.ORG:80/same")).Want(t, 201)
	f.Put(f.books, "urn:example:d3", loc("http://example.org/same")).Want(t, 201)
	f.Put(f.books, "urn:example:d4", loc("http://example.org/gone", "http://example.org/one-active")).Want(t, 201)
	f.Put(f.books, "urn:example:d5", loc("http://example.org/gone")).Want(t, 201)
	for _, n := range []string{"urn:example:d3", "urn:example:d4", "urn:example:d5"} {
		withdraw(n)
	}
	type dup struct {
		Location string   `json:"location"`
		URNs     []string `json:"urns"`
		Statuses []string `json:"statuses"`
	}
	type page struct {
		Duplicates []dup   `json:"duplicates"`
		Next       *string `json:"next"`
	}
	list := func(query string) page {
		t.Helper()
		var p page
		f.Do("GET", "/api/v1/duplicates"+query, "", auth(AdminToken)...).Want(t, 200).JSON(t, &p)
		return p
	}
	same := dup{"http://example.org/same", []string{"urn:example:d1", "urn:example:d2"}, []string{"active", "active"}}
	want := func(query string, p page, ds ...dup) {
		t.Helper()
		ok := len(p.Duplicates) == len(ds)
		for i := 0; ok && i < len(ds); i++ {
			ok = p.Duplicates[i].Location == ds[i].Location && slices.Equal(p.Duplicates[i].URNs, ds[i].URNs) &&
				slices.Equal(p.Duplicates[i].Statuses, ds[i].Statuses)
		}
		if !ok {
			t.Fatalf("%s: %+v, want %+v", query, p.Duplicates, ds)
		}
	}
	// By default: the active records only.
	want("", list(""), same)
	want("?withdrawn=false", list("?withdrawn=false"), same)
	p := list("?limit=1")
	want("?limit=1", p, same)
	if p.Next == nil {
		t.Fatal("a full page without next")
	}
	want("the page after", list("?limit=1&after="+url.QueryEscape(*p.Next)))
	// withdrawn=true: every record, with its status.
	all := []dup{
		{"http://example.org/gone", []string{"urn:example:d4", "urn:example:d5"}, []string{"withdrawn", "withdrawn"}},
		{"http://example.org/one-active", []string{"urn:example:d1", "urn:example:d4"}, []string{"active", "withdrawn"}},
		{"http://example.org/same", []string{"urn:example:d1", "urn:example:d2", "urn:example:d3"}, []string{"active", "active", "withdrawn"}},
	}
	want("?withdrawn=true", list("?withdrawn=true"), all...)
	p = list("?withdrawn=true&limit=2")
	want("?withdrawn=true&limit=2", p, all[:2]...)
	if p.Next == nil {
		t.Fatal("a full page without next")
	}
	want("the page after", list("?withdrawn=true&limit=2&after="+url.QueryEscape(*p.Next)), all[2])
	for _, q := range []string{"?withdrawn=yes", "?withdrawn=1", "?withdrawn=", "?withdrawn=true&withdrawn=false"} {
		if p := f.Do("GET", "/api/v1/duplicates"+q, "", auth(AdminToken)...).Want(t, 400).Problem(t); p.Field != "withdrawn" {
			t.Fatalf("%s: %+v", q, p)
		}
	}
}

// testAsOfDate: as-of takes a full-date alone (a citation's "accessed
// on"), meaning the end of that day in UTC, wherever it takes a time.
func testAsOfDate(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	at := func(s string) time.Time {
		want, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return f.Clock.Advance(want.Sub(f.Clock.Now()))
	}
	// Created and changed on 2024-05-02, changed again at the first
	// instant of 2024-05-03, and once more later that day.
	at("2024-05-02T08:00:00Z")
	f.Put(f.books, "urn:example:cited", loc("https://example.org/d1-morning")).Want(t, 201)
	lastOfD := at("2024-05-02T23:59:59.999999Z")
	f.Put(f.books, "urn:example:cited", loc("https://example.org/d1-night")).Want(t, 200)
	at("2024-05-03T00:00:00Z")
	f.Put(f.books, "urn:example:cited", loc("https://example.org/d2-midnight")).Want(t, 200)
	d2 := at("2024-05-03T15:00:00Z")
	f.Put(f.books, "urn:example:cited", loc("https://example.org/d2-afternoon")).Want(t, 200)
	f.Clock.Advance(24 * time.Hour)

	// As of D: the state after D's last change, not the next day's.
	for _, target := range []string{
		"/urn:example:cited?as-of=2024-05-02",
		"/urn:example:cited?s=I2L&as-of=2024-05-02",
		"/urn:example:cited?+as-of=2024-05-02",
		"/uri-res/N2L?urn:example:cited?+as-of=2024-05-02",
	} {
		r := f.Do("GET", target, "").Want(t, 303)
		wantHeader(t, r, "Location", "https://example.org/d1-night")
		wantHeader(t, r, "Memento-Datetime", lastOfD.Format(http.TimeFormat))
	}
	r := f.Do("GET", "/api/v1/names/urn:example:cited?as-of=2024-05-02", "").Want(t, 200)
	if !strings.Contains(r.Body, "d1-night") {
		t.Fatalf("API as of 2024-05-02: %s", r.Body)
	}
	wantHeader(t, r, "Memento-Datetime", lastOfD.Format(http.TimeFormat))
	r = f.Do("GET", "/urn:example:cited?s=I2Ls&as-of=2024-05-03", "").Want(t, 200)
	if r.Body != "# urn:example:cited\r\nhttps://example.org/d2-afternoon\r\n" {
		t.Fatalf("as of 2024-05-03: %q", r.Body)
	}
	wantHeader(t, r, "Memento-Datetime", d2.Format(http.TimeFormat))
	// The directive's date wins over the header, as its time does.
	r = f.Do("GET", "/urn:example:cited?as-of=2024-05-02", "", "Accept-Datetime", d2.Format(http.TimeFormat)).Want(t, 303)
	wantHeader(t, r, "Location", "https://example.org/d1-night")
	// As of the day before: no record yet, as before its first time.
	// Given twice, on every route: 400, not the name as it is now.
	for _, target := range []string{"/urn:example:cited?as-of=2024-05-02&as-of=2024-05-02", "/urn:example:cited?+as-of=2024-05-02&as-of=2024-05-03",
		"/uri-res/N2L?urn:example:cited?+as-of=2024-05-02&as-of=2024-05-02"} {
		if p := f.Do("GET", target, "").Want(t, 400).Problem(t); p.Field != "as-of" || !strings.Contains(p.Detail, "more than once") {
			t.Fatalf("%s: %+v", target, p)
		}
	}
	if p := f.Do("GET", "/urn:example:cited?as-of=2024-05-01", "").Want(t, 404).Problem(t); !strings.Contains(p.Detail, "as of the end of 2024-05-01 (UTC)") {
		t.Fatalf("404 as of a date: %q", p.Detail)
	}
	f.Do("GET", "/api/v1/names/urn:example:cited?as-of=2024-05-01", "").Want(t, 404).Problem(t)
	// A leap day is a date (before the record: 404, not 400).
	f.Do("GET", "/urn:example:cited?as-of=2024-02-29", "").Want(t, 404)

	// Not dates: 400 naming as-of, saying what it takes.
	for _, target := range []string{
		"/urn:example:cited?as-of=2024-02-30",
		"/urn:example:cited?as-of=2024-13-01",
		"/urn:example:cited?as-of=2023-02-29",
		"/urn:example:cited?as-of=2024-5-01",
		"/urn:example:cited?as-of=2024-05-1",
		"/urn:example:cited?+as-of=2024-02-30",
		"/uri-res/N2L?urn:example:cited?+as-of=2024-13-01",
		"/api/v1/names/urn:example:cited?as-of=2024-02-30",
		"/api/v1/names/urn:example:cited?as-of=2024-13-01",
		"/api/v1/names/urn:example:cited?as-of=2024-05-02&as-of=2024-05-03",
	} {
		p := f.Do("GET", target, "").Want(t, 400).Problem(t)
		if p.Field != "as-of" || !strings.Contains(p.Detail, "2024-05-01") {
			t.Fatalf("%s: %+v", target, p)
		}
	}
}

func testDelegation(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	f.Deleg.Route("urn:nbn:fi:", "https://resolver.example/")
	// No record, a rule: redirect there, with the hop count one up.
	r := f.Do("GET", "/uri-res/N2L?URN:NBN:fi:abc-123", "").Want(t, 303)
	wantHeader(t, r, "Location", "https://resolver.example/uri-res/N2L?URN:NBN:fi:abc-123?+hops=1")
	wantHeader(t, r, "Urikit-Referral", "rule")
	c, _ := f.Deleg.Last()
	if c.Service != "N2L" || c.Hops != 1 || c.Name != "URN:NBN:fi:abc-123" {
		t.Fatalf("call %+v", c)
	}
	f.Do("GET", "/urn:nbn:fi:abc-123?s=I2Ls", "").Want(t, 303)
	if c, _ := f.Deleg.Last(); c.Service != "I2Ls" || c.Hops != 1 {
		t.Fatalf("call %+v", c)
	}
	r = f.Do("GET", "/urn:nbn:fi:abc-123?+hops=3&s=I2C", "").Want(t, 303)
	wantHeader(t, r, "Location", "https://resolver.example/uri-res/I2C?urn:nbn:fi:abc-123?+hops=4")
	f.Raw("GET /uri-res/N2L?urn:nbn:fi:abc HTTP/1.0\r\n\r\n").Want(t, 302)
	// Loops: a request delegated MaxHops times is not delegated again.
	f.Do("GET", "/uri-res/N2L?urn:nbn:fi:abc?+hops=7", "").Want(t, 303)
	f.Do("GET", "/uri-res/N2L?urn:nbn:fi:abc?+hops=007", "").Want(t, 303)
	p := f.Do("GET", "/uri-res/N2L?urn:nbn:fi:abc?+hops=8", "").Want(t, 508).Problem(t)
	if p.Limit != httpapi.DefaultMaxHops {
		t.Fatalf("508: %+v", p)
	}
	f.Do("GET", "/urn:nbn:fi:abc?+hops=9", "").Want(t, 508)
	// A name with a record is answered here, whatever the count.
	f.Do("GET", "/"+lotr+"?+hops=50", "").Want(t, 303)
	// No rule: 404. A bad count: 400.
	f.Do("GET", "/urn:nbn:se:abc", "").Want(t, 404)
	// As of a time before a name of ours existed: 404, not delegated.
	f.Deleg.Route("urn:example:", "https://elsewhere.example/")
	f.Do("GET", "/"+lotr+"?as-of=2000-01-01T00:00:00Z", "").Want(t, 404)
	f.Do("GET", "/urn:example:tolkien-lotr?as-of=2000-01-01T00:00:00Z", "").Want(t, 404)
	f.Do("GET", "/urn:example:not-ours?as-of=2000-01-01T00:00:00Z", "").Want(t, 303)
	for _, h := range []string{"-1", "x", "1.5", "+3", "", "1234567890", "9&hops=1", "1&s=I2L&hops=1"} {
		p := f.Do("GET", "/urn:nbn:fi:abc?+hops="+h, "").Want(t, 400).Problem(t)
		if p.Field != "hops" {
			t.Fatalf("hops=%s: %+v", h, p)
		}
	}
	// A second count does not reset the first (the draft's "ignore a
	// repeated keyword" would leave none): refused, in the r-component on
	// /uri-res/ and in the draft's query form on the path style.
	f.Do("GET", "/uri-res/I2L?urn:nbn:fi:abc?+hops=9&hops=1", "").Want(t, 400).Problem(t)
	f.Do("GET", "/urn:nbn:fi:abc?hops=9&hops=1", "").Want(t, 400).Problem(t)
	// An r-component that is not a directive list as a whole still
	// carries its count: it is not read as none.
	f.Do("GET", "/urn:nbn:fi:abc?+hops=8&zzz", "").Want(t, 508).Problem(t)
	r = f.Do("GET", "/urn:nbn:fi:abc?+hops=3&zzz", "").Want(t, 303)
	if loc := r.Header.Get("Location"); !strings.Contains(loc, "hops=4") { // the count handed on: one more
		t.Fatalf("Location %q", loc)
	}
	// A failing delegator is a bad gateway, not an internal error.
	f.Deleg.Err = errors.New("DNS server not answering")
	f.Do("GET", "/urn:nbn:fi:xyz", "").Want(t, 502).Problem(t)
	// Another hop limit.
	g := newFixture(t, ns, func(o *httpapi.Options) { o.MaxHops = 2 })
	g.Deleg.Route("urn:nbn:fi:", "https://resolver.example/")
	g.Do("GET", "/urn:nbn:fi:abc?+hops=1", "").Want(t, 303)
	g.Do("GET", "/urn:nbn:fi:abc?+hops=2", "").Want(t, 508)
	// Without a Delegator: 404.
	h := newFixture(t, ns, func(o *httpapi.Options) { o.Delegator = nil })
	h.Do("GET", "/urn:nbn:fi:abc", "").Want(t, 404)
}

func testUnavailable(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	f.Do("GET", "/readyz", "").Want(t, 200)
	f.Down.Store(true)
	for _, target := range []string{"/urn:example:never-seen", "/uri-res/N2Ls?urn:example:never-seen-2", "/uri-res/L2Ns?https://example.org/book", "/api/v1/names/urn:example:never-seen-3"} {
		r := f.Do("GET", target, "").Want(t, 503)
		r.Problem(t)
		if r.Header.Get("Retry-After") == "" {
			t.Fatalf("503 without Retry-After")
		}
	}
	f.Put(f.books, "urn:example:during-outage", loc("https://example.org/x")).Want(t, 503).Problem(t)
	// The store answered at once, with an error: /readyz says so, not
	// that it timed out; the log has what the store said.
	if p := f.Do("GET", "/readyz", "").Want(t, 503).Problem(t); strings.Contains(p.Detail, "did not answer") {
		t.Fatalf("/readyz with the store failing at once: %q", p.Detail)
	}
	if logs := f.Logs.String(); !strings.Contains(logs, `"cause":"test: database down`) {
		t.Fatalf("the 503s' log lines do not say what the store said: %s", logs)
	}
	f.Do("GET", "/healthz", "").Want(t, 200)
	f.Down.Store(false)
	f.Do("GET", "/readyz", "").Want(t, 200)
	f.Put(f.books, "urn:example:during-outage", loc("https://example.org/x")).Want(t, 201)
	if strings.Contains(f.Logs.String(), `"level":"ERROR"`) {
		t.Fatalf("an outage is not an internal error: %s", f.Logs.String())
	}
}

func testLimits(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	long := "urn:example:" + strings.Repeat("a", httpapi.DefaultMaxTarget)
	for _, target := range []string{"/" + long, "/uri-res/N2L?" + long, "/api/v1/names/" + long, "/healthz?" + strings.Repeat("x", 9000)} {
		p := f.Do("GET", target, "").Want(t, 414).Problem(t)
		if p.Limit != httpapi.DefaultMaxTarget {
			t.Fatalf("414: %+v", p)
		}
	}
	f.Put(f.books, long, loc("https://example.org/x")).Want(t, 414)
	// Just under the limit is served.
	ok := "urn:example:" + strings.Repeat("b", httpapi.DefaultMaxTarget-len("/urn:example:")-1)
	f.Do("GET", "/"+ok, "").Want(t, 404)
	p := f.Put(f.books, "urn:example:alias-long", `{"locations":[{"url":"https://example.org/x"}],"aliases":["`+long+`"]}`).Want(t, 414).Problem(t)
	if p.Field != "aliases[0]" {
		t.Fatalf("long alias: %+v", p)
	}
	// Bodies over 1 MiB: 413, whether announced or not.
	big := `{"locations":[{"url":"https://example.org/x"}],"metadata":{"x":"` + strings.Repeat("y", httpapi.DefaultMaxBody) + `"}}`
	p = f.Put(f.books, "urn:example:big", big).Want(t, 413).Problem(t)
	if p.Limit != httpapi.DefaultMaxBody {
		t.Fatalf("413: %+v", p)
	}
	r := f.Raw("PUT /api/v1/names/urn:example:big HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + f.books +
		"\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
		fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(big), big))
	r.Want(t, 413).Problem(t)
	f.Do("GET", "/api/v1/names/urn:example:big", "").Want(t, 404)
	// Smaller limits.
	g := newFixture(t, ns, func(o *httpapi.Options) { o.MaxTarget = 64; o.MaxBody = 400 })
	g.Do("GET", "/urn:example:"+strings.Repeat("c", 60), "").Want(t, 414)
	g.Put(g.books, "urn:example:x", `{"locations":[{"url":"https://example.org/`+strings.Repeat("z", 400)+`"}]}`).Want(t, 413)
	// The metadata limit of the Service is a 400 naming the field.
	p = f.Put(f.books, "urn:example:meta", `{"locations":[{"url":"https://example.org/x"}],"metadata":{"x":"`+strings.Repeat("y", 20000)+`"}}`).Want(t, 400).Problem(t)
	if p.Field != "metadata" {
		t.Fatalf("metadata: %+v", p)
	}
}

// ---- The API ----

func auth(tok string) []string { return []string{"Authorization", "Bearer " + tok} }

func testAuthorities(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	// Only the admin creates and lists authorities.
	r := f.Do("POST", "/api/v1/authorities", `{"name":"Third","prefixes":["urn:nbn:ch:"]}`, auth(AdminToken)...).Want(t, 201)
	var a struct {
		ID       int64    `json:"id"`
		Name     string   `json:"name"`
		Prefixes []string `json:"prefixes"`
		Token    string   `json:"token"`
	}
	r.JSON(t, &a)
	if a.ID == 0 || a.Name != "Third" || len(a.Prefixes) != 1 || a.Prefixes[0] != "urn:nbn:ch:" || !strings.HasPrefix(a.Token, "urikit_") {
		t.Fatalf("authority %s", r.Body)
	}
	wantHeader(t, r, "Location", "/api/v1/authorities/"+strconv.FormatInt(a.ID, 10))
	// Prefixes in canonical form (RFC 8141 §3.1: the NSS keeps its case);
	// overlaps are 409.
	p := f.Do("POST", "/api/v1/authorities", `{"name":"Overlap","prefixes":["URN:NBN:de:101-"]}`, auth(AdminToken)...).Want(t, 409).Problem(t)
	if !strings.Contains(p.Detail, "urn:nbn:de:") {
		t.Fatalf("overlap: %+v", p)
	}
	p = f.Do("POST", "/api/v1/authorities", `{"name":"Bad","prefixes":["urn:"]}`, auth(AdminToken)...).Want(t, 400).Problem(t)
	if !strings.HasPrefix(p.Field, "prefixes") {
		t.Fatalf("bad prefix: %+v", p)
	}
	f.Do("POST", "/api/v1/authorities", `{"name":"X","prefixes":["urn:y:"]}`, auth(f.books)...).Want(t, 403).Problem(t)
	r = f.Do("POST", "/api/v1/authorities", `{"name":"X","prefixes":["urn:y:"]}`).Want(t, 401)
	r.Problem(t)
	wantHeader(t, r, "WWW-Authenticate", `Bearer realm="urikit"`)
	r = f.Do("POST", "/api/v1/authorities", `{"name":"X","prefixes":["urn:y:"]}`, auth("urikit_nonsense")...).Want(t, 401)
	if !strings.Contains(r.Header.Get("WWW-Authenticate"), "invalid_token") {
		t.Fatalf("WWW-Authenticate %q", r.Header.Get("WWW-Authenticate"))
	}
	f.Do("POST", "/api/v1/authorities", `{"name":"X","prefixes":["urn:y:"]}`, "Authorization", "Basic YWRtaW46YWRtaW4=").Want(t, 401)
	// Listing.
	r = f.Do("GET", "/api/v1/authorities", "", auth(AdminToken)...).Want(t, 200)
	var list []struct{ ID int64 }
	r.JSON(t, &list)
	if len(list) != 3 {
		t.Fatalf("list: %s", r.Body)
	}
	f.Do("GET", "/api/v1/authorities", "", auth(f.books)...).Want(t, 403)
	f.Do("GET", "/api/v1/authorities", "").Want(t, 401)
	// One authority: the admin and its maintainers; tokens without secrets.
	id := strconv.FormatInt(f.booksID, 10)
	for _, tok := range []string{AdminToken, f.books} {
		r = f.Do("GET", "/api/v1/authorities/"+id, "", auth(tok)...).Want(t, 200)
		var one struct {
			ID     int64 `json:"id"`
			Tokens []struct {
				ID    int64  `json:"id"`
				Label string `json:"label"`
				Hash  string `json:"hash"`
				Token string `json:"token"`
			} `json:"tokens"`
		}
		r.JSON(t, &one)
		if one.ID != f.booksID || len(one.Tokens) != 1 || one.Tokens[0].Hash != "" || one.Tokens[0].Token != "" || strings.Contains(r.Body, f.books) {
			t.Fatalf("authority: %s", r.Body)
		}
	}
	f.Do("GET", "/api/v1/authorities/"+id, "", auth(f.other)...).Want(t, 403)
	f.Do("GET", "/api/v1/authorities/999", "", auth(AdminToken)...).Want(t, 404).Problem(t)
	p = f.Do("GET", "/api/v1/authorities/abc", "", auth(AdminToken)...).Want(t, 400).Problem(t)
	if p.Field != "id" {
		t.Fatalf("bad id: %+v", p)
	}
	f.Do("GET", "/api/v1/authorities/0", "", auth(AdminToken)...).Want(t, 400)
}

// testWhoAmI: GET /api/v1/token tells any valid token whose it is, the
// admin's or a maintainer's (its authority and token ID), and refuses
// none of them; no token, or an unknown or revoked one, is 401.
func testWhoAmI(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	if r := f.Do("GET", "/api/v1/token", "", auth(AdminToken)...).Want(t, 200); strings.TrimSpace(r.Body) != `{"admin":true}` {
		t.Fatalf("the admin's: %s", r.Body)
	}
	r := f.Do("POST", "/api/v1/authorities/"+strconv.FormatInt(f.otherID, 10)+"/tokens", `{"label":"Ada"}`, auth(f.other)...).Want(t, 201)
	var tok struct {
		ID    int64  `json:"id"`
		Token string `json:"token"`
	}
	r.JSON(t, &tok)
	want := fmt.Sprintf(`{"admin":false,"authority":%d,"id":%d}`, f.otherID, tok.ID)
	if r := f.Do("GET", "/api/v1/token", "", auth(tok.Token)...).Want(t, 200); strings.TrimSpace(r.Body) != want {
		t.Fatalf("a maintainer's: %s, want %s", r.Body, want)
	}
	f.Do("DELETE", fmt.Sprintf("/api/v1/authorities/%d/tokens/%d", f.otherID, tok.ID), "", auth(f.other)...).Want(t, 204)
	for _, h := range [][]string{nil, auth("urikit_nonsense"), auth(tok.Token)} {
		f.Do("GET", "/api/v1/token", "", h...).Want(t, 401).Problem(t)
	}
}

func testTokens(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	id := strconv.FormatInt(f.booksID, 10)
	// A maintainer adds a second maintainer.
	r := f.Do("POST", "/api/v1/authorities/"+id+"/tokens", `{"label":"Ada"}`, auth(f.books)...).Want(t, 201)
	var tok struct {
		ID    int64  `json:"id"`
		Label string `json:"label"`
		Token string `json:"token"`
	}
	r.JSON(t, &tok)
	if tok.ID == 0 || tok.Label != "Ada" || tok.Token == "" {
		t.Fatalf("token: %s", r.Body)
	}
	f.Put(tok.Token, "urn:example:by-ada", loc("https://example.org/ada")).Want(t, 201)
	// Its Location leads to it: id and label, never the secret; for its
	// authority's maintainers and the admin alone.
	where := r.Header.Get("Location")
	for _, who := range []string{f.books, tok.Token, AdminToken} {
		r := f.Do("GET", where, "", auth(who)...).Want(t, 200)
		var got map[string]any
		r.JSON(t, &got)
		if got["id"] != float64(tok.ID) || got["label"] != "Ada" || got["token"] != nil || strings.Contains(r.Body, tok.Token) {
			t.Fatalf("GET %s: %s", where, r.Body)
		}
	}
	f.Do("GET", where, "", auth(f.other)...).Want(t, 403)
	f.Do("GET", where, "").Want(t, 401)
	f.Do("GET", fmt.Sprintf("/api/v1/authorities/%s/tokens/%d", id, 9999), "", auth(f.books)...).Want(t, 404)
	// The admin adds one too, with an empty body.
	r = f.Do("POST", "/api/v1/authorities/"+id+"/tokens", "", auth(AdminToken)...).Want(t, 201)
	var tok3 struct {
		ID    int64  `json:"id"`
		Token string `json:"token"`
	}
	r.JSON(t, &tok3)
	// Another authority's maintainer may not.
	f.Do("POST", "/api/v1/authorities/"+id+"/tokens", `{}`, auth(f.other)...).Want(t, 403)
	f.Do("POST", "/api/v1/authorities/"+id+"/tokens", `{"label":3}`, auth(f.books)...).Want(t, 400)
	// Revoking: the token stops working.
	f.Do("DELETE", fmt.Sprintf("/api/v1/authorities/%s/tokens/%d", id, tok.ID), "", auth(f.books)...).Want(t, 204)
	f.Put(tok.Token, "urn:example:by-ada-2", loc("https://example.org/ada")).Want(t, 401).Problem(t)
	f.Do("DELETE", fmt.Sprintf("/api/v1/authorities/%s/tokens/%d", id, tok.ID), "", auth(f.books)...).Want(t, 204) // already revoked
	f.Do("DELETE", fmt.Sprintf("/api/v1/authorities/%s/tokens/%d", id, 9999), "", auth(f.books)...).Want(t, 404)
	f.Do("DELETE", fmt.Sprintf("/api/v1/authorities/%s/tokens/%d", id, tok3.ID), "", auth(f.other)...).Want(t, 403)
	f.Do("DELETE", fmt.Sprintf("/api/v1/authorities/%s/tokens/%d", id, tok3.ID), "", auth(AdminToken)...).Want(t, 204)
	// The last valid token cannot be revoked.
	r = f.Do("GET", "/api/v1/authorities/"+id, "", auth(f.books)...).Want(t, 200)
	var one struct {
		Tokens []struct {
			ID      int64   `json:"id"`
			Revoked *string `json:"revoked"`
		} `json:"tokens"`
	}
	r.JSON(t, &one)
	var live []int64
	for _, tk := range one.Tokens {
		if tk.Revoked == nil {
			live = append(live, tk.ID)
		}
	}
	if len(live) != 1 {
		t.Fatalf("tokens: %s", r.Body)
	}
	f.Do("DELETE", fmt.Sprintf("/api/v1/authorities/%s/tokens/%d", id, live[0]), "", auth(f.books)...).Want(t, 409).Problem(t)
	f.Put(f.books, "urn:example:still", loc("https://example.org/still")).Want(t, 201)
}

func testTransfer(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	id := strconv.FormatInt(f.booksID, 10)
	f.Do("POST", "/api/v1/authorities/"+id+"/transfer", `{"name":"New Books Ltd"}`, auth(f.books)...).Want(t, 403)
	f.Do("POST", "/api/v1/authorities/"+id+"/transfer", `{}`, auth(AdminToken)...).Want(t, 400)
	f.Do("POST", "/api/v1/authorities/999/transfer", `{"name":"Nobody"}`, auth(AdminToken)...).Want(t, 404)
	r := f.Do("POST", "/api/v1/authorities/"+id+"/transfer", `{"name":"New Books Ltd"}`, auth(AdminToken)...).Want(t, 200)
	var a struct {
		ID    int64  `json:"id"`
		Name  string `json:"name"`
		Token string `json:"token"`
	}
	r.JSON(t, &a)
	if a.ID != f.booksID || a.Name != "New Books Ltd" || a.Token == "" {
		t.Fatalf("transfer: %s", r.Body)
	}
	// The old owner's token is dead; the new one writes; names are kept.
	f.Put(f.books, lotr, lotrBody).Want(t, 401)
	f.Put(a.Token, lotr, lotrBody).Want(t, 200)
	f.Do("GET", "/"+lotr, "").Want(t, 303)
}

func testPutName(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	body := `{"locations":[{"url":"https://example.org/n","type":"text/html","label":"Home"}],"aliases":["urn:example:n-alias"],"metadata":{"k":[1,2]},"redirect":302}`
	r := f.Put(f.books, "urn:example:n", body).Want(t, 201)
	wantHeader(t, r, "Location", "/api/v1/names/urn:example:n")
	var rec struct {
		URN       string `json:"urn"`
		Aliases   []string
		Locations []struct{ URL, Type, Label string }
		Metadata  json.RawMessage
		Status    string
		Redirect  int
		Authority int64
		Created   time.Time
		Updated   time.Time
	}
	r.JSON(t, &rec)
	if rec.URN != "urn:example:n" || len(rec.Aliases) != 1 || rec.Locations[0].Label != "Home" || string(rec.Metadata) != `{"k":[1,2]}` ||
		rec.Status != "active" || rec.Redirect != 302 || rec.Authority != f.booksID || rec.Created.IsZero() {
		t.Fatalf("record: %s", r.Body)
	}
	// Idempotent: the same body again is 200 and changes nothing.
	r2 := f.Put(f.books, "urn:example:n", body).Want(t, 200)
	if r2.Body != r.Body {
		t.Fatalf("PUT again changed the record:\n%s\n%s", r.Body, r2.Body)
	}
	// GET gives the same record; it can be PUT back as it is.
	g := f.Do("GET", "/api/v1/names/urn:example:n", "").Want(t, 200)
	if g.Body != r.Body {
		t.Fatalf("GET: %s, PUT answered %s", g.Body, r.Body)
	}
	f.Put(f.books, "urn:example:n", g.Body).Want(t, 200)
	// Replacing, through an equivalent spelling: the first spelling stays.
	f.Clock.Advance(time.Minute)
	r = f.Put(f.books, "URN:EXAMPLE:n", loc("https://example.org/n2")).Want(t, 200)
	r.JSON(t, &rec)
	if rec.URN != "urn:example:n" || len(rec.Aliases) != 0 || rec.Locations[0].URL != "https://example.org/n2" || !rec.Updated.After(rec.Created) {
		t.Fatalf("replaced: %s", r.Body)
	}
	f.Do("GET", "/urn:example:n", "").Want(t, 303)
	// A dropped alias stays reserved to the record.
	p := f.Put(f.books, "urn:example:n-alias", loc("https://example.org/a")).Want(t, 409).Problem(t)
	if p.Record != "urn:example:n" {
		t.Fatalf("retired alias: %+v", p)
	}
	f.Do("GET", "/urn:example:n-alias", "").Want(t, 404)
	// An alias equivalent to another record's name: 409 naming it.
	p = f.Put(f.books, "urn:example:z", `{"locations":[{"url":"https://example.org/z"}],"aliases":["urn:ISBN:0-395-36341-1"]}`).Want(t, 409).Problem(t)
	if p.Record != lotr {
		t.Fatalf("alias conflict: %+v", p)
	}
	// An alias's name put as a name: 409.
	p = f.Put(f.books, "urn:example:tolkien-lotr", loc("https://example.org/t")).Want(t, 409).Problem(t)
	if p.Record != lotr {
		t.Fatalf("alias as name: %+v", p)
	}
	// Ownership: 403 outside one's prefixes, for the admin, and for an
	// alias under another authority's prefix.
	f.Put(f.other, "urn:example:mine", loc("https://example.org/x")).Want(t, 403).Problem(t)
	f.Put(f.books, "urn:nbn:de:101-1", loc("https://example.org/x")).Want(t, 403)
	f.Put(AdminToken, "urn:example:admin", loc("https://example.org/x")).Want(t, 403)
	f.Put(f.books, "urn:example:y", `{"locations":[{"url":"https://example.org/y"}],"aliases":["urn:nbn:de:101-2"]}`).Want(t, 403)
	f.Put(f.books, "urn:unowned:y", loc("https://example.org/y")).Want(t, 403)
	f.Put("", "urn:example:anon", loc("https://example.org/y")).Want(t, 401)
	f.Do("GET", "/api/v1/names/urn:example:anon", "").Want(t, 404).Problem(t)
	f.Put(f.other, "urn:nbn:de:101-1", loc("https://example.org/de")).Want(t, 201)
}

// testBodyMembers: a body member at fault is named by its whole path, with
// the array index, and the problem says what is wrong in plain words;
// member names match exactly, as the documents spell them (encoding/json
// alone would take "Locations" for "locations").
func testBodyMembers(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	const x = `{"url":"https://example.org/x"}`
	for _, c := range []struct {
		method, target, token, body string
		field, detail               string
	}{
		{"PUT", "/api/v1/names/urn:example:e", f.books, `{"locations":[` + x + `,{"url":"https://example.org/y","rel":"alternate"}]}`,
			"locations[1].rel", `unknown member "rel" in locations[1]`},
		{"PUT", "/api/v1/names/urn:example:e", f.books, `{"locations":[` + x + `,{"url":5}]}`,
			"locations[1].url", "locations[1].url must be a string, not the number 5"},
		{"PUT", "/api/v1/names/urn:example:e", f.books, `{"locations":[{"url":["https://example.org/x"]}]}`,
			"locations[0].url", "locations[0].url must be a string, not an array"},
		{"PUT", "/api/v1/names/urn:example:e", f.books, `{"locations":[` + x + `],"aliases":["urn:example:e1","urn:example:e2",3]}`,
			"aliases[2]", "aliases[2] must be a string, not the number 3"},
		{"PUT", "/api/v1/names/urn:example:e", f.books, `{"locations":[` + x + `],"redirect":303.5}`,
			"redirect", "redirect must be 301, 302, 303 or 307, not the number 303.5"},
		{"PUT", "/api/v1/names/urn:example:e", f.books, `{"locations":[` + x + `],"redirect":"303"}`,
			"redirect", `redirect must be 301, 302, 303 or 307, not the string "303"`},
		{"PUT", "/api/v1/names/urn:example:e", f.books, `[` + x + `]`,
			"body", "the body must be an object, not an array"},
		{"PUT", "/api/v1/names/urn:example:e", f.books, `{"Locations":[{"URL":"https://example.org/x"}]}`,
			"Locations", `unknown member "Locations" (member names are case-sensitive: "locations")`},
		{"PUT", "/api/v1/names/urn:example:e", f.books, `{"locations":[{"URL":"https://example.org/x"}]}`,
			"locations[0].URL", `unknown member "URL" in locations[0] (member names are case-sensitive: "url")`},
		{"PUT", "/api/v1/names/urn:example:e", f.books, `{"locations":[` + x + `],"URN":"urn:example:e"}`,
			"URN", `unknown member "URN" (member names are case-sensitive: "urn")`},
		{"POST", "/api/v1/names/" + lotr + "/withdraw", f.books, `{"Reason":"replaced"}`,
			"Reason", `unknown member "Reason" (member names are case-sensitive: "reason")`},
		{"POST", "/api/v1/authorities", AdminToken, `{"Name":"New","prefixes":["urn:new:"]}`,
			"Name", `unknown member "Name" (member names are case-sensitive: "name")`},
		{"POST", "/api/v1/authorities", AdminToken, `{"name":"New","prefixes":"urn:new:"}`,
			"prefixes", `prefixes must be an array, not the string "urn:new:"`},
		{"POST", "/api/v1/authorities/" + strconv.FormatInt(f.booksID, 10) + "/tokens", f.books, `{"Label":"x"}`,
			"Label", `unknown member "Label" (member names are case-sensitive: "label")`},
		{"POST", "/api/v1/authorities/" + strconv.FormatInt(f.booksID, 10) + "/transfer", AdminToken, `{"NAME":"x"}`,
			"NAME", `unknown member "NAME" (member names are case-sensitive: "name")`},
		{"POST", "/api/v1/rules", AdminToken, `{"prefix":"urn:nbn:fi:","Target":"https://resolver.example/"}`,
			"Target", `unknown member "Target" (member names are case-sensitive: "target")`},
	} {
		p := f.Do(c.method, c.target, c.body, auth(c.token)...).Want(t, 400).Problem(t)
		if p.Field != c.field || p.Detail != c.detail || p.Offset != nil {
			t.Errorf("%s %s %s:\n got field %q detail %q offset %v\nwant field %q detail %q", c.method, c.target, c.body,
				p.Field, p.Detail, p.Offset, c.field, c.detail)
		}
	}
	// Nothing of it was written.
	f.Do("GET", "/api/v1/names/urn:example:e", "").Want(t, 404)
	f.Do("GET", "/uri-res/I2L?"+lotr, "").Want(t, 303)
	r := f.Do("GET", "/api/v1/authorities", "", auth(AdminToken)...).Want(t, 200)
	if strings.Contains(r.Body, "urn:new:") {
		t.Fatalf("an authority was created: %s", r.Body)
	}
	// The names exactly as documented still go in.
	f.Put(f.books, "urn:example:e", `{"locations":[{"url":"https://example.org/x","type":"text/html","label":"X"}],`+
		`"aliases":["urn:example:e1"],"metadata":{"Title":"case is free inside metadata"},"redirect":307}`).Want(t, 201)
}

func testPutErrors(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	for _, c := range []struct {
		name, body string
		status     int
		field      string
		offset     int // -1: no offset
	}{
		{"urn:example:e", `{"locations":[{"url":"not a uri"}]}`, 400, "locations[0].url", 3},
		{"urn:example:e", `{"locations":[{"url":"https://example.org/ok"},{"url":"/relative"}]}`, 400, "locations[1].url", 0},
		{"urn:example:e", `{"locations":[]}`, 400, "locations", -1},
		{"urn:example:e", `{}`, 400, "locations", -1},
		{"urn:example:e", `{"locations":[{"url":"https://example.org/x","type":"not a type"}]}`, 400, "locations[0].type", -1},
		{"urn:example:e", `{"locations":[{"url":"https://example.org/x"}],"redirect":308}`, 400, "redirect", -1},
		{"urn:example:e", `{"locations":[{"url":"https://example.org/x"}],"metadata":[1]}`, 400, "metadata", -1},
		{"urn:example:e", `{"locations":[{"url":"https://example.org/x"}],"aliases":["urn:x"]}`, 400, "aliases[0]", 5},
		{"urn:example:e", `{"locations":[{"url":"https://example.org/x"}],"aliases":["urn:example:e"]}`, 400, "aliases[0]", -1},
		{"urn:example:e", `{"locations":[{"url":"https://example.org/x"}],"locatoins":[]}`, 400, "locatoins", -1},
		{"urn:example:e", `{"locations":[{"url":"https://example.org/x","lable":"x"}]}`, 400, "locations[0].lable", -1},
		{"urn:example:e", `{"locations":"https://example.org/x"}`, 400, "locations", -1},
		{"urn:example:e", `{"locations":[{"url":"https://example.org/x"}],"urn":"urn:example:other"}`, 400, "urn", -1},
		{"urn:example:e", `{"locations":[{"url":"https://example.org/x"}]`, 400, "body", 46},
		{"urn:example:e", `{"locations":[{"url":"https://example.org/x"}]} {}`, 400, "body", 48},
		{"urn:example:e", `{"locations":[{"url":"https://example.org/x"}],}`, 400, "body", 47},
		{"urn:example:e", `   `, 400, "body", 0},
		{"urn:x", `{"locations":[{"url":"https://example.org/x"}]}`, 400, "urn", 5},
		{"urn:example:e?+r", `{"locations":[{"url":"https://example.org/x"}]}`, 400, "urn", 13},
		{"urn:isbn:123", `{"locations":[{"url":"https://example.org/x"}]}`, 400, "urn", -1},
		// Schemes whose URI a browser runs or renders: I2L would redirect
		// to script under the resolver's origin.
		{"urn:example:e", `{"locations":[{"url":"javascript:alert(document.cookie)"}]}`, 400, "locations[0].url", 0},
		{"urn:example:e", `{"locations":[{"url":"https://example.org/x"},{"url":"JAVASCRIPT:alert(1)"}]}`, 400, "locations[1].url", 0},
		{"urn:example:e", `{"locations":[{"url":"vbscript:msgbox(1)"}]}`, 400, "locations[0].url", 0},
		{"urn:example:e", `{"locations":[{"url":"Data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="}]}`, 400, "locations[0].url", 0},
		// A media type is bounded as a label is.
		{"urn:example:e", `{"locations":[{"url":"https://example.org/x","type":"text/` + strings.Repeat("a", 1020) + `"}]}`, 400, "locations[0].type", 1024},
	} {
		p := f.Put(f.books, c.name, c.body).Want(t, c.status).Problem(t)
		if p.Field != c.field || (c.offset >= 0) != (p.Offset != nil) || p.Offset != nil && *p.Offset != c.offset {
			off := -1
			if p.Offset != nil {
				off = *p.Offset
			}
			t.Fatalf("PUT %s %s: field %q offset %d, want %q %d (%s)", c.name, c.body, p.Field, off, c.field, c.offset, p.Detail)
		}
		if strings.Contains(strings.ToLower(c.body), "script:") || strings.Contains(c.body, "Data:") {
			if p.Type == "" || !strings.Contains(p.Detail, "scheme is refused") || !strings.Contains(p.Detail, "RFC 3986 §7") {
				t.Fatalf("PUT %s: the problem does not give the reason: %+v", c.body, p)
			}
		}
	}
	f.Do("GET", "/api/v1/names/urn:example:e", "").Want(t, 404)
	f.Put(f.books, "urn:example:w", loc("https://example.org/w")).Want(t, 201)
	p := f.Do("POST", "/api/v1/names/urn:example:w/withdraw", `{"successor":"javascript:alert(1)"}`,
		"Authorization", "Bearer "+f.books, "Content-Type", "application/json").Want(t, 400).Problem(t)
	if p.Field != "successor" || !strings.Contains(p.Detail, "javascript: scheme is refused") {
		t.Fatalf("withdraw with a javascript: successor: %+v", p)
	}
	f.Do("GET", "/uri-res/I2L?urn:example:w", "").Want(t, 303) // still active
	// A body that is not JSON: 415.
	f.Do("PUT", "/api/v1/names/urn:example:e", `locations=x`, "Authorization", "Bearer "+f.books, "Content-Type", "text/plain").Want(t, 415).Problem(t)
	f.Do("PUT", "/api/v1/names/urn:example:e", `x`, "Authorization", "Bearer "+f.books, "Content-Type", "multipart/form-data; boundary=x").Want(t, 415)
	// curl -d declares a form; the body is JSON all the same.
	p = f.Do("PUT", "/api/v1/names/urn:example:e", `locations=x`, "Authorization", "Bearer "+f.books, "Content-Type", "application/x-www-form-urlencoded").Want(t, 400).Problem(t)
	if p.Field != "body" || p.Offset == nil || *p.Offset != 0 {
		t.Fatalf("form body: %+v", p)
	}
	f.Do("PUT", "/api/v1/names/urn:example:e", loc("https://example.org/x"), "Authorization", "Bearer "+f.books, "Content-Type", "application/merge-patch+json").Want(t, 201)
	// Nothing was written by the failed attempts.
	f.Do("GET", "/api/v1/names/urn:example:e/history", "").Want(t, 200)
	r := f.Do("GET", "/api/v1/names/urn:example:e/history", "").Want(t, 200)
	if strings.Count(r.Body, `"seq"`) != 1 {
		t.Fatalf("history after failed PUTs: %s", r.Body)
	}
}

func testNameSegments(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	// The name is one path segment, decoded exactly once.
	for _, name := range []string{"urn:example:a/b", "urn:example:a%2Fb", "urn:example:a/../b", "urn:example:a//b", "urn:example:./x", "urn:example:%25", "urn:example:q&a=b;c", "urn:example:a/.."} {
		r := f.Put(f.books, name, loc("https://example.org/"+strconv.Itoa(len(name)))).Want(t, 201)
		var rec struct{ URN string }
		r.JSON(t, &rec)
		if rec.URN != name {
			t.Fatalf("PUT %s (sent as %s) made %s", name, Segment(name), rec.URN)
		}
		wantHeader(t, r, "Location", "/api/v1/names/"+Segment(name))
		g := f.Do("GET", "/api/v1/names/"+Segment(name), "").Want(t, 200)
		g.JSON(t, &rec)
		if rec.URN != name {
			t.Fatalf("GET %s: %s", name, g.Body)
		}
		f.Do("GET", "/api/v1/names/"+Segment(name)+"/history", "").Want(t, 200)
		f.Do("GET", "/"+name, "").Want(t, 303)
	}
	// A "/" not encoded: the name is not one segment.
	p := f.Do("GET", "/api/v1/names/urn:example:a/b/c", "").Want(t, 400).Problem(t)
	if p.Field != "urn" {
		t.Fatalf("unencoded slash: %+v", p)
	}
	f.Do("PUT", "/api/v1/names/urn:example:a//b", loc("https://example.org/x"), auth(f.books)...).Want(t, 400)
	f.Do("GET", "/api/v1/names/", "").Want(t, 400)
	// Malformed names: 400 with the offset in the decoded name.
	p = f.Do("GET", "/api/v1/names/urn:example", "").Want(t, 400).Problem(t)
	if p.Field != "urn" || p.Offset == nil || *p.Offset != 11 {
		t.Fatalf("malformed: %+v", p)
	}
}

// testNameWritesTakeNoQuery: an unencoded "?" ends the path, so
// PUT /api/v1/names/urn:example:q?+lang=en names urn:example:q; the write
// routes take no query, and refuse one rather than write another name
// than the client meant. The reads keep theirs (as-of).
func testNameWritesTakeNoQuery(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	for _, target := range []string{"/api/v1/names/urn:example:q?+lang=en", "/api/v1/names/urn:example:q?=x", "/api/v1/names/urn:example:q?"} {
		p := f.Do("PUT", target, loc("https://example.org/q"), auth(f.books)...).Want(t, 400).Problem(t)
		if p.Field != "query" || !strings.HasSuffix(p.Type, "#invalid-request") || !strings.Contains(p.Detail, "percent-encoded, as %3F") {
			t.Fatalf("PUT %s: %+v", target, p)
		}
	}
	f.Do("GET", "/api/v1/names/urn:example:q", "").Want(t, 404)
	// Encoded, the "?" is the name's: a registered name has no r-, q- or
	// f-component (RFC 8141 §2.3).
	if p := f.Put(f.books, "urn:example:q?+lang=en", loc("https://example.org/q")).Want(t, 400).Problem(t); p.Field != "urn" {
		t.Fatalf("PUT with %%3F: %+v", p)
	}

	f.Put(f.books, "urn:example:w", loc("https://example.org/w")).Want(t, 201)
	p := f.Do("POST", "/api/v1/names/urn:example:w/withdraw?reason=x", `{"reason":"r"}`, auth(f.books)...).Want(t, 400).Problem(t)
	if p.Field != "query" || !strings.Contains(p.Detail, "%3F") {
		t.Fatalf("withdraw with a query: %+v", p)
	}
	f.Do("GET", "/uri-res/I2L?urn:example:w", "").Want(t, 303) // still active
	f.Do("PUT", "/api/v1/names/urn:example:w?x", loc("https://example.org/w2"), auth(f.books)...).Want(t, 400)
	r := f.Do("GET", "/api/v1/names/urn:example:w/history", "").Want(t, 200)
	if strings.Count(r.Body, `"seq"`) != 1 {
		t.Fatalf("history after refused writes: %s", r.Body)
	}
	// The reads of a name keep their query.
	f.Do("GET", "/api/v1/names/urn:example:w?as-of="+f.Clock.Now().Format(time.RFC3339), "").Want(t, 200)
	f.Do("GET", "/api/v1/names/urn:example:w/history?x=1", "").Want(t, 200)
}

func testWithdrawAndHistory(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	f.Put(f.books, "urn:example:h", loc("https://example.org/h1")).Want(t, 201)
	f.Clock.Advance(time.Minute)
	f.Put(f.books, "urn:example:h", loc("https://example.org/h2")).Want(t, 200)
	f.Do("POST", "/api/v1/names/urn:example:h/withdraw", `{"reason":"r"}`, auth(f.other)...).Want(t, 403)
	f.Do("POST", "/api/v1/names/urn:example:h/withdraw", `{"reason":"r"}`, auth(AdminToken)...).Want(t, 403)
	f.Do("POST", "/api/v1/names/urn:example:h/withdraw", `{"reason":"r"}`).Want(t, 401)
	p := f.Do("POST", "/api/v1/names/urn:example:h/withdraw", `{"successor":"not a uri"}`, auth(f.books)...).Want(t, 400).Problem(t)
	if p.Field != "successor" {
		t.Fatalf("successor: %+v", p)
	}
	// A successor goes out in the Link header of every answer about the
	// name: it is bounded as a location's URL is.
	long := "https://example.org/" + strings.Repeat("a", resolver.MaxURLBytes)
	p = f.Do("POST", "/api/v1/names/urn:example:h/withdraw", `{"successor":"`+long+`"}`, auth(f.books)...).Want(t, 400).Problem(t)
	if p.Field != "successor" || p.Offset == nil || *p.Offset != resolver.MaxURLBytes {
		t.Fatalf("a successor over %d bytes: %+v", resolver.MaxURLBytes, p)
	}
	f.Clock.Advance(time.Minute)
	r := f.Do("POST", "/api/v1/names/urn:example:h/withdraw", `{"reason":"r","successor":"urn:example:h2"}`, auth(f.books)...).Want(t, 200)
	if !strings.Contains(r.Body, `"status":"withdrawn"`) || !strings.Contains(r.Body, `"successor":"urn:example:h2"`) {
		t.Fatalf("withdraw: %s", r.Body)
	}
	// Again, the same: 200, and nothing written (the history below has
	// one withdrawal).
	f.Do("POST", "/api/v1/names/urn:example:h/withdraw", `{"reason":"r","successor":"urn:example:h2"}`, auth(f.books)...).Want(t, 200)
	r = f.Do("GET", "/api/v1/names/URN:EXAMPLE:h/history", "").Want(t, 200)
	var hist []struct {
		Seq    int64  `json:"seq"`
		Action string `json:"action"`
		Actor  string `json:"actor"`
		Hash   string `json:"hash"`
		Prev   string `json:"prev"`
		Data   json.RawMessage
	}
	r.JSON(t, &hist)
	if len(hist) != 3 || hist[0].Action != "name.create" || hist[1].Action != "name.update" || hist[2].Action != "name.withdraw" ||
		hist[0].Hash == "" || hist[1].Prev == "" || !strings.HasPrefix(hist[0].Actor, "token:") {
		t.Fatalf("history: %s", r.Body)
	}
	// A reader recomputes each entry's hash from what the API shows, by
	// the encoding docs/httpapi.md gives (written here from the doc, not
	// with resolver.ChainHash).
	var full []entryFields
	r.JSON(t, &full)
	for i, e := range full {
		if got := docChainHash(e); !bytes.Equal(got, e.Hash) {
			t.Fatalf("entry %d: hash %x, recomputed %x from %s", e.Seq, e.Hash, got, r.Body)
		}
		if e.Record == 0 {
			t.Fatalf("entry %d has no record id: %s", e.Seq, r.Body)
		}
		if i > 0 && e.Seq == full[i-1].Seq+1 && !bytes.Equal(e.Prev, full[i-1].Hash) {
			t.Fatalf("entry %d does not follow %d", e.Seq, full[i-1].Seq)
		}
	}
	f.Do("GET", "/api/v1/names/urn:example:none/history", "").Want(t, 404).Problem(t)
	// The successor is in the Link of the 410 (a URN successor too).
	r = f.Do("GET", "/urn:example:h", "").Want(t, 410)
	wantHeader(t, r, "Link", `<urn:example:h2>; rel="successor-version"`)
	// On the page, a URN successor links to its resolution here (an href
	// of urn: would be blanked by html/template), and an ftp location is
	// a link like an http one.
	r = f.Do("GET", "/urn:example:h", "", "Accept", browserAccept).Want(t, 410)
	if !strings.Contains(r.Body, `It was replaced by <a href="/uri-res/I2L?urn:example:h2">urn:example:h2</a>.`) || strings.Contains(r.Body, "#ZgotmplZ") {
		t.Fatalf("410 page: %s", r.Body)
	}
	f.Put(f.books, "urn:example:h2", `{"locations":[{"url":"ftp://ftp.example.com/pub/h2.txt"}]}`).Want(t, 201)
	r = f.Do("GET", "/uri-res/I2Ls?urn:example:h2", "", "Accept", browserAccept).Want(t, 200)
	if !strings.Contains(r.Body, `<LI><A HREF="ftp://ftp.example.com/pub/h2.txt">ftp://ftp.example.com/pub/h2.txt</A>`) {
		t.Fatalf("HTML list with an ftp location: %s", r.Body)
	}
}

// testWithdrawSuccessorItself: a withdrawal that names the record itself
// (its name by an equivalent spelling, or an alias) as its successor is
// 400: its 410 would link to itself as its successor-version.
func testWithdrawSuccessorItself(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	f.Put(f.books, "urn:example:w2", `{"locations":[{"url":"https://example.org/w2"}],"aliases":["urn:example:w2-alias"]}`).Want(t, 201)
	for _, succ := range []string{"urn:example:w2", "URN:EXAMPLE:w2", "urn:example:w2#part", "urn:example:w2-alias"} {
		p := f.Do("POST", "/api/v1/names/urn:example:w2/withdraw", `{"successor":"`+succ+`"}`, auth(f.books)...).Want(t, 400).Problem(t)
		if p.Field != "successor" || !strings.HasSuffix(p.Type, "#invalid-request") || !strings.Contains(p.Detail, "itself") {
			t.Fatalf("successor %s: %+v", succ, p)
		}
	}
	r := f.Do("GET", "/urn:example:w2", "").Want(t, 303) // still active
	if l := r.Header.Get("Link"); strings.Contains(l, "successor-version") {
		t.Fatalf("Link %q", l)
	}
	// Another name is a successor.
	f.Do("POST", "/api/v1/names/urn:example:w2/withdraw", `{"successor":"urn:example:w3"}`, auth(f.books)...).Want(t, 200)
	r = f.Do("GET", "/urn:example:w2", "").Want(t, 410)
	wantHeader(t, r, "Link", `<urn:example:w3>; rel="successor-version"`)
}

func testRules(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	r := f.Do("POST", "/api/v1/rules", `{"prefix":"URN:NBN:fi:","target":"https://resolver.example/"}`, auth(AdminToken)...).Want(t, 201)
	var rule struct {
		ID     int64  `json:"id"`
		Prefix string `json:"prefix"`
		Target string `json:"target"`
	}
	r.JSON(t, &rule)
	if rule.ID == 0 || rule.Prefix != "urn:nbn:fi:" || rule.Target != "https://resolver.example/" {
		t.Fatalf("rule: %s", r.Body)
	}
	wantHeader(t, r, "Location", "/api/v1/rules/"+strconv.FormatInt(rule.ID, 10))
	f.Do("POST", "/api/v1/rules", `{"prefix":"urn:nbn:fi:","target":"https://other.example/"}`, auth(AdminToken)...).Want(t, 409)
	p := f.Do("POST", "/api/v1/rules", `{"prefix":"urn:nbn:se:","target":"ftp://x/"}`, auth(AdminToken)...).Want(t, 400).Problem(t)
	if p.Field != "target" {
		t.Fatalf("target: %+v", p)
	}
	// A base URL with a fragment: the redirect could not keep it.
	p = f.Do("POST", "/api/v1/rules", `{"prefix":"urn:nbn:se:","target":"https://x/#top"}`, auth(AdminToken)...).Want(t, 400).Problem(t)
	if p.Field != "target" || p.Offset == nil || *p.Offset != 10 {
		t.Fatalf("target with a fragment: %+v", p)
	}
	f.Do("POST", "/api/v1/rules", `{"prefix":"urn:nbn:se:","target":"https://x/"}`, auth(f.books)...).Want(t, 403)
	f.Do("POST", "/api/v1/rules", `{"prefix":"urn:nbn:se:","target":"https://x/"}`).Want(t, 401)
	r = f.Do("GET", "/api/v1/rules", "", auth(AdminToken)...).Want(t, 200)
	var rules []struct{ ID int64 }
	r.JSON(t, &rules)
	if len(rules) != 1 || rules[0].ID != rule.ID {
		t.Fatalf("rules: %s", r.Body)
	}
	f.Do("GET", "/api/v1/rules", "", auth(f.books)...).Want(t, 403)
	f.Do("GET", "/api/v1/rules", "").Want(t, 401)
	f.Do("DELETE", "/api/v1/rules/"+strconv.FormatInt(rule.ID, 10), "", auth(f.books)...).Want(t, 403)
	f.Do("DELETE", "/api/v1/rules/"+strconv.FormatInt(rule.ID, 10), "", auth(AdminToken)...).Want(t, 204)
	f.Do("DELETE", "/api/v1/rules/"+strconv.FormatInt(rule.ID, 10), "", auth(AdminToken)...).Want(t, 404).Problem(t)
	r = f.Do("GET", "/api/v1/rules", "", auth(AdminToken)...).Want(t, 200)
	if strings.TrimSpace(r.Body) != "[]" {
		t.Fatalf("rules after delete: %s", r.Body)
	}
}

func testPositions(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	r := f.Put(f.books, "urn:example:pos", loc("https://example.org/p")).Want(t, 201)
	pos := r.Header.Get(httpapi.PositionHeader)
	if pos == "" {
		t.Fatalf("a write's answer has no %s", httpapi.PositionHeader)
	}
	f.Do("GET", "/urn:example:pos", "", httpapi.PositionHeader, pos).Want(t, 303)
	f.Do("GET", "/api/v1/names/urn:example:pos", "", httpapi.PositionHeader, pos).Want(t, 200)
	r2 := f.Put(f.books, "urn:example:pos", loc("https://example.org/p2")).Want(t, 200)
	if r2.Header.Get(httpapi.PositionHeader) == pos {
		t.Fatalf("the position did not move with a write")
	}
	p := f.Do("GET", "/urn:example:pos", "", httpapi.PositionHeader, "garbage").Want(t, 400).Problem(t)
	if p.Field != httpapi.PositionHeader {
		t.Fatalf("bad position: %+v", p)
	}
	f.Do("GET", "/urn:example:pos", "", httpapi.PositionHeader, "99999999").Want(t, 400)
	// Every kind of write carries it.
	r = f.Do("POST", "/api/v1/rules", `{"prefix":"urn:nbn:fi:","target":"https://resolver.example/"}`, auth(AdminToken)...).Want(t, 201)
	if r.Header.Get(httpapi.PositionHeader) == "" {
		t.Fatalf("rule write without position")
	}
	// A failed write does not.
	r = f.Put(f.other, "urn:example:pos", loc("https://example.org/p3")).Want(t, 403)
	if r.Header.Get(httpapi.PositionHeader) != "" {
		t.Fatalf("failed write with a position")
	}
}

func testMethods(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	for _, c := range []struct{ method, target string }{
		{"POST", "/" + lotr}, {"PUT", "/" + lotr}, {"DELETE", "/uri-res/N2L?" + lotr},
		{"POST", "/healthz"}, {"DELETE", "/api/v1/names/" + lotr}, {"PUT", "/api/v1/authorities"},
		{"PATCH", "/api/v1/rules/1"}, {"POST", "/metrics"},
	} {
		r := f.Do(c.method, c.target, "").Want(t, 405)
		p := r.Problem(t)
		if r.Header.Get("Allow") == "" || len(p.Allow) == 0 {
			t.Fatalf("%s %s: 405 without Allow", c.method, c.target)
		}
	}
	for _, target := range []string{"/nothing", "/api/v1/nothing", "/api/v2/names/x", "/uri-res/", "/urn", "/names/x", "/static/x.css"} {
		f.Do("GET", target, "").Want(t, 404).Problem(t)
	}
}

func testOperations(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	r := f.Do("GET", "/healthz", "").Want(t, 200)
	if r.Body != "ok\n" {
		t.Fatalf("healthz: %q", r.Body)
	}
	f.Do("GET", "/readyz", "").Want(t, 200)
	r = f.Do("GET", "/", "").Want(t, 200)
	if !strings.Contains(r.Body, "/uri-res/N2L?") || !strings.Contains(r.Body, "/api/v1/openapi.json") {
		t.Fatalf("root: %s", r.Body)
	}
	f.Do("GET", "/"+lotr, "").Want(t, 303)
	f.Do("GET", "/"+lotr, "").Want(t, 303)
	f.Do("GET", "/uri-res/N2Ls?"+lotr, "").Want(t, 200)
	f.Do("GET", "/uri-res/N2Ls?urn:example:none", "").Want(t, 404)
	r = f.Do("GET", "/metrics", "").Want(t, 200)
	for _, want := range []string{
		`urikit_http_requests_total{code="303",route="/{urn}",service="I2L"} 2`,
		`urikit_http_requests_total{code="200",route="/uri-res/{service}",service="N2Ls"} 1`,
		`urikit_http_requests_total{code="404",route="/uri-res/{service}",service="N2Ls"} 1`,
		`urikit_http_requests_total{code="201",route="/api/v1/names/{urn}",service=""}`,
		`urikit_http_request_duration_seconds_bucket{route="/{urn}",le="`,
		"urikit_lookup_cache_hits_total ",
		"urikit_lookup_cache_misses_total ",
		"urikit_http_requests_in_flight 1",
	} {
		if !strings.Contains(r.Body, want) {
			t.Fatalf("metrics lack %s:\n%s", want, r.Body)
		}
	}
	// Access log: one structured record per request.
	logs := f.Logs.String()
	if !strings.Contains(logs, `"msg":"request"`) || !strings.Contains(logs, `"route":"/{urn}"`) || !strings.Contains(logs, `"status":303`) {
		t.Fatalf("access log: %s", logs)
	}
	// The OpenAPI document is JSON, version 3.1.
	r = f.Do("GET", "/api/v1/openapi.json", "").Want(t, 200)
	var doc struct {
		OpenAPI string `json:"openapi"`
	}
	r.JSON(t, &doc)
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
}

func testPages(t *testing.T, ns func(*testing.T) resolver.Store) {
	var got []string
	f := newFixture(t, ns, func(o *httpapi.Options) {
		o.Pages = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got = append(got, r.RequestURI)
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "page")
		})
	})
	for _, target := range []string{"/", "/?urn=urn:example:x", "/names/urn:example:a//b", "/names/urn:example:p/../q", "/static/app.css"} {
		r := f.Do("GET", target, "").Want(t, 200)
		if r.Body != "page" {
			t.Fatalf("%s: %s", target, r.Body)
		}
	}
	if len(got) != 5 || got[2] != "/names/urn:example:a//b" || got[3] != "/names/urn:example:p/../q" {
		t.Fatalf("pages got %q", got)
	}
	f.Do("POST", "/names/urn:example:a", "").Want(t, 405)
	f.Do("GET", "/"+lotr, "").Want(t, 303)
}

func testRecover(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	f.Deleg.Route("urn:nbn:fi:", "https://resolver.example/")
	f.Deleg.Panic = true
	f.Do("GET", "/urn:nbn:fi:boom", "").Want(t, 500).Problem(t)
	if !strings.Contains(f.Logs.String(), "test delegator panics") {
		t.Fatalf("the panic was not logged: %s", f.Logs.String())
	}
	f.Deleg.Panic = false
	f.Do("GET", "/urn:nbn:fi:boom", "").Want(t, 303)
}

// testOpenAPI: every operation of the OpenAPI document answers on the
// server (a route exists for it and allows its method).
func testOpenAPI(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns, func(o *httpapi.Options) {
		o.Pages = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "page") })
	})
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(httpapi.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	fill := strings.NewReplacer("{urn}", lotr, "{id}", strconv.FormatInt(f.booksID, 10), "{token}", "1",
		"{service}", "N2Ls", "{path}", "app.css")
	n := 0
	for path, ops := range doc.Paths {
		for method := range ops {
			switch method {
			case "get", "put", "post", "delete", "head", "patch":
			default:
				continue
			}
			target := fill.Replace(path)
			if strings.HasPrefix(path, "/uri-res/") {
				target += "?" + lotr
			}
			r := f.Do(strings.ToUpper(method), target, "", auth(AdminToken)...)
			if r.Status == 405 || r.Status == 404 && strings.Contains(r.Body, "no-such-route") {
				t.Errorf("%s %s (documented as %s): %d %s", method, target, path, r.Status, r.Body)
			}
			n++
		}
	}
	if n < 20 {
		t.Fatalf("only %d operations in the document", n)
	}
}

// testGoClient drives the API with resolver/client, the Go client urikit's
// commands use: the two must agree on paths, bodies and errors.
func testGoClient(t *testing.T, ns func(*testing.T) resolver.Store) {
	e := NewEnv(t, ns)
	ctx := t.Context()
	admin := client.New(e.URL, AdminToken)
	a, err := admin.CreateAuthority(ctx, "Client", []string{"urn:example:"})
	if err != nil || a.ID == 0 || a.Token == "" {
		t.Fatalf("create authority: %+v %v", a, err)
	}
	m := client.New(e.URL, a.Token)
	name := "urn:example:c/../d%2F?x" // "?" inside a path segment only; not a valid name
	if _, _, err := m.Put(ctx, name, resolver.RecordInput{Locations: []resolver.Location{{URL: "https://example.org/c"}}}); resolver.KindOf(err) != resolver.KindInvalid {
		t.Fatalf("put of an invalid name: %v", err)
	}
	name = "urn:example:c/../d%2F"
	rec, created, err := m.Put(ctx, name, resolver.RecordInput{Locations: []resolver.Location{{URL: "https://example.org/c"}}, Aliases: []string{"urn:example:c-alias"}})
	if err != nil || !created || rec.URN != name {
		t.Fatalf("put: %+v %v %v", rec, created, err)
	}
	if _, created, err := m.Put(ctx, "URN:EXAMPLE:c/../d%2f", resolver.RecordInput{Locations: []resolver.Location{{URL: "https://example.org/c2"}}}); err != nil || created {
		t.Fatalf("replace: %v %v", created, err)
	}
	got, err := m.Get(ctx, "urn:example:c-alias")
	if resolver.KindOf(err) != resolver.KindNotFound {
		t.Fatalf("dropped alias: %+v %v", got, err)
	}
	got, err = client.New(e.URL, "").Get(ctx, name)
	if err != nil || got.Locations[0].URL != "https://example.org/c2" {
		t.Fatalf("get: %+v %v", got, err)
	}
	_, _, err = m.Put(ctx, "urn:example:other", resolver.RecordInput{Locations: []resolver.Location{{URL: "https://example.org/o"}}, Aliases: []string{"urn:example:c-alias"}})
	var re *resolver.Error
	if !errors.As(err, &re) || re.Kind != resolver.KindConflict || re.Record != name {
		t.Fatalf("conflict: %v", err)
	}
	_, _, err = m.Put(ctx, "urn:example:bad", resolver.RecordInput{Locations: []resolver.Location{{URL: "no uri"}}})
	if !errors.As(err, &re) || re.Kind != resolver.KindInvalid || re.Field != "locations[0].url" || re.Offset != 2 {
		t.Fatalf("invalid: %#v", err)
	}
	if _, err := m.Withdraw(ctx, name, "gone", "https://example.org/next"); err != nil {
		t.Fatal(err)
	}
	h, err := m.History(ctx, name)
	if err != nil || len(h) != 3 || h[2].Action != "name.withdraw" || len(h[2].Hash) != 32 {
		t.Fatalf("history: %+v %v", h, err)
	}
	tok, err := m.AddToken(ctx, a.ID, "second")
	if err != nil || tok.Token == "" {
		t.Fatalf("add token: %+v %v", tok, err)
	}
	if err := client.New(e.URL, tok.Token).RevokeToken(ctx, a.ID, tok.ID); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	if _, toks, err := m.Authority(ctx, a.ID); err != nil || len(toks) != 2 || toks[1].Revoked == nil {
		t.Fatalf("authority: %+v %v", toks, err)
	}
	if _, err := m.Authorities(ctx); resolver.KindOf(err) != resolver.KindForbidden {
		t.Fatalf("maintainer lists authorities: %v", err)
	}
	r, err := admin.AddRule(ctx, "urn:nbn:fi:", "https://resolver.example/")
	if err != nil {
		t.Fatal(err)
	}
	if rs, err := admin.Rules(ctx); err != nil || len(rs) != 1 {
		t.Fatalf("rules: %+v %v", rs, err)
	}
	if err := admin.RemoveRule(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	na, err := admin.TransferAuthority(ctx, a.ID, "New owner")
	if err != nil || na.Token == "" || na.Name != "New owner" {
		t.Fatalf("transfer: %+v %v", na, err)
	}
	e.Down.Store(true)
	if _, err := m.Get(ctx, "urn:example:never"); resolver.KindOf(err) != resolver.KindUnavailable {
		t.Fatalf("store down: %v", err)
	}
}

// testPublicLog: GET /api/v1/log gives anyone the whole history, a page
// at a time. A reader follows every link, recomputes the hash of every
// entry shown in full (by the doc's recipe), finds the head where the
// last page ends, and never sees what only the admin may read.
func testPublicLog(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	_, mtok := f.Authority("Films", "urn:example-films:")
	f.Do("POST", "/api/v1/authorities/"+strconv.FormatInt(f.booksID, 10)+"/tokens", `{"label":"second maintainer"}`, auth(f.books)...).Want(t, 201)
	f.Do("POST", "/api/v1/rules", `{"prefix":"urn:nbn:fi:","target":"https://resolver.example/"}`, auth(AdminToken)...).Want(t, 201)
	f.Put(mtok, "urn:example-films:1", loc("https://example.org/film/1")).Want(t, 201)
	f.Do("POST", "/api/v1/names/urn:example-films:1/withdraw", `{"reason":"lost","successor":"urn:example-films:2"}`, auth(mtok)...).Want(t, 200)

	type logEntry struct {
		entryFields
		Withheld bool `json:"withheld"`
	}
	var all []logEntry
	var head struct {
		Seq  int64  `json:"seq"`
		Hash []byte `json:"hash"`
	}
	after, pages := "", 0
	for {
		// Anyone: no token.
		r := f.Do("GET", "/api/v1/log?limit=3"+after, "").Want(t, 200)
		for _, secret := range []string{f.books, mtok, AdminToken} {
			if strings.Contains(r.Body, secret) {
				t.Fatalf("the log shows a token: %s", r.Body)
			}
		}
		var page struct {
			Entries []logEntry `json:"entries"`
			Next    *int64     `json:"next"`
			Head    struct {
				Seq  int64  `json:"seq"`
				Hash []byte `json:"hash"`
			} `json:"head"`
		}
		r.JSON(t, &page)
		all = append(all, page.Entries...)
		head = page.Head
		pages++
		if page.Next == nil {
			break
		}
		if len(page.Entries) != 3 || *page.Next != page.Entries[2].Seq {
			t.Fatalf("page %d: %d entries, next %d: %s", pages, len(page.Entries), *page.Next, r.Body)
		}
		after = "&after=" + strconv.FormatInt(*page.Next, 10)
	}
	if pages < 3 {
		t.Fatalf("%d entries in %d pages", len(all), pages)
	}
	actions := map[string]int{}
	for i, e := range all {
		actions[e.Action]++
		if e.Seq != int64(i+1) {
			t.Fatalf("entry %d has seq %d", i+1, e.Seq)
		}
		if i > 0 && !bytes.Equal(e.Prev, all[i-1].Hash) {
			t.Fatalf("entry %d does not link to %d", e.Seq, all[i-1].Seq)
		}
		public := strings.HasPrefix(e.Action, "name.")
		switch {
		case public && (e.Withheld || len(e.Data) == 0):
			t.Fatalf("entry %d (%s) withheld", e.Seq, e.Action)
		case public:
			if got := docChainHash(e.entryFields); !bytes.Equal(got, e.Hash) {
				t.Fatalf("entry %d: hash %x, recomputed %x", e.Seq, e.Hash, got)
			}
		case !e.Withheld || len(e.Data) != 0:
			t.Fatalf("entry %d (%s) shows its data: %s", e.Seq, e.Action, e.Data)
		}
	}
	for _, a := range []string{"authority.create", "token.create", "rule.add", "name.create", "name.withdraw"} {
		if actions[a] == 0 {
			t.Fatalf("no %s in the log: %v", a, actions)
		}
	}
	last := all[len(all)-1]
	if head.Seq != last.Seq || !bytes.Equal(head.Hash, last.Hash) {
		t.Fatalf("head %d %x, last entry %d %x", head.Seq, head.Hash, last.Seq, last.Hash)
	}
	// Past the end: no entries, the head still.
	r := f.Do("GET", "/api/v1/log?after="+strconv.FormatInt(last.Seq, 10), "").Want(t, 200)
	if !strings.HasPrefix(r.Body, `{"entries":[],"head":{"seq":`+strconv.FormatInt(last.Seq, 10)) {
		t.Fatalf("after the last entry: %s", r.Body)
	}
	// A parameter given twice is 400, as on every listing: which page
	// was meant is unclear.
	for _, q := range []string{"after=-1", "after=x", "limit=0", "limit=10001", "limit=%zz", "limit=1&limit=2", "after=0&after=1"} {
		f.Do("GET", "/api/v1/log?"+q, "").Want(t, 400).Problem(t)
	}
}

// BigRecordBody is the PUT body of a record of about 200 KB, the largest
// the default limits let through (64 locations of 2 KiB URLs and 1 KiB
// labels), its URLs made distinct by round: for the tests of what a page
// of history holds and reads.
func BigRecordBody(round int) string {
	var b strings.Builder
	b.WriteString(`{"locations":[`)
	for i := range 64 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"url":"https://example.org/%d/%d/%s","label":%q}`, round, i, strings.Repeat("p", 2000), strings.Repeat("l", 1000))
	}
	b.WriteString(`]}`)
	return b.String()
}

// testLogPageBytes: a page of the log holds at most about 4 MiB of
// entries' data, whatever limit asks for: one maintainer's large record
// changed many times must not make one anonymous request cost gigabytes.
func testLogPageBytes(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	const rounds = 30
	for round := range rounds {
		f.Put(f.books, "urn:example:big", BigRecordBody(round)).Want(t, 200+map[bool]int{true: 1}[round == 0])
	}
	total, pages, after := 0, 0, ""
	for {
		r := f.Do("GET", "/api/v1/log?limit=10000"+after, "").Want(t, 200)
		var page struct {
			Entries []struct {
				Seq  int64           `json:"seq"`
				Data json.RawMessage `json:"data"`
			} `json:"entries"`
			Next *int64 `json:"next"`
		}
		r.JSON(t, &page)
		size := 0
		for _, e := range page.Entries {
			size += len(e.Data)
		}
		if size > 4<<20+300<<10 {
			t.Fatalf("a page of %d entries holds %d bytes of data", len(page.Entries), size)
		}
		total += len(page.Entries)
		pages++
		if page.Next == nil {
			break
		}
		after = "&after=" + strconv.FormatInt(*page.Next, 10)
	}
	if pages < 2 || total < rounds {
		t.Fatalf("%d entries in %d pages", total, pages)
	}
}

// historyEntry is an entry of GET /api/v1/names/{urn}/history as a test
// reads it.
type historyEntry struct {
	Seq  int64           `json:"seq"`
	Data json.RawMessage `json:"data"`
	Hash []byte          `json:"hash"`
}

// nextLink returns the target of the Link with rel="next" of a page of a
// history ("" when there is none), checking that there is at most one
// (pageLinks).
func nextLink(t *testing.T, r *Resp) string {
	t.Helper()
	return pageLinks(t, r)["next"]
}

// walkHistory reads a history from target, following each next link to
// the end, and returns the entries and the pages' sizes.
func walkHistory(t *testing.T, e *Env, target string) (all []historyEntry, pages []int) {
	t.Helper()
	for target != "" {
		if len(pages) > 1000 {
			t.Fatalf("more than 1000 pages")
		}
		r := e.Do("GET", target, "").Want(t, 200)
		var page []historyEntry
		r.JSON(t, &page)
		if !strings.HasPrefix(r.Body, "[") {
			t.Fatalf("%s: not an array: %.200s", target, r.Body)
		}
		all, pages = append(all, page...), append(pages, len(page))
		target = nextLink(t, r)
	}
	return all, pages
}

// testHistoryPages: a record's history comes a page at a time, still a
// JSON array, the next page in a Link header (RFC 8288); following the
// links to the end gives the whole history, each entry once, in order,
// and a page is followed by a link only when entries remain.
func testHistoryPages(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	const changes = pagedChanges
	putPagedHistory(t, f)
	whole, pages := walkHistory(t, f.Env, "/api/v1/names/urn:example:paged/history")
	if len(whole) != changes+1 || len(pages) != 1 {
		t.Fatalf("the whole history: %d entries in pages %v, want %d in one", len(whole), pages, changes+1)
	}
	for i, e := range whole {
		if i > 0 && e.Seq <= whole[i-1].Seq {
			t.Fatalf("entry %d after %d", e.Seq, whole[i-1].Seq)
		}
	}
	for _, tc := range []struct {
		target string
		pages  []int
	}{
		{"/api/v1/names/urn:example:paged/history?limit=5", []int{5, 5, 3}},
		{"/api/v1/names/urn:example:paged/history?limit=1", slices.Repeat([]int{1}, changes+1)},
		// A page that ends with the history has no link, even when full.
		{"/api/v1/names/urn:example:paged/history?limit=13", []int{13}},
		{"/api/v1/names/urn:example:paged/history?limit=10000", []int{13}},
		// By an alias, or another spelling: the same record.
		{"/api/v1/names/urn:example:paged-alias/history?limit=7", []int{7, 6}},
		{"/api/v1/names/URN:EXAMPLE:paged/history?limit=4", []int{4, 4, 4, 1}},
		// From a cursor.
		{"/api/v1/names/urn:example:paged/history?after=" + strconv.FormatInt(whole[9].Seq, 10), []int{3}},
		{"/api/v1/names/urn:example:paged/history?limit=2&after=" + strconv.FormatInt(whole[8].Seq, 10), []int{2, 2}},
	} {
		got, pages := walkHistory(t, f.Env, tc.target)
		if !slices.Equal(pages, tc.pages) {
			t.Errorf("%s: pages of %v, want %v", tc.target, pages, tc.pages)
		}
		want := whole[len(whole)-len(got):]
		for i := range got {
			if got[i].Seq != want[i].Seq || !bytes.Equal(got[i].Hash, want[i].Hash) || string(got[i].Data) != string(want[i].Data) {
				t.Fatalf("%s: entry %d is %d, want %d", tc.target, i, got[i].Seq, want[i].Seq)
			}
		}
		if len(got) != sum(tc.pages) {
			t.Fatalf("%s: %d entries", tc.target, len(got))
		}
	}
	// The link names the record by its name, the cursor and the limit;
	// the last page, the newest, is named too.
	r := f.Do("GET", "/api/v1/names/urn:example:paged-alias/history?limit=5", "").Want(t, 200)
	wantHeader(t, r, "Link", "</api/v1/names/urn:example:paged/history?after="+strconv.FormatInt(whole[4].Seq, 10)+`&limit=5>; rel="next", `+
		`</api/v1/names/urn:example:paged/history?before=end&limit=5>; rel="last"`)
	// Past the end: an empty array, no link.
	r = f.Do("GET", "/api/v1/names/urn:example:paged/history?after="+strconv.FormatInt(whole[changes].Seq, 10), "").Want(t, 200)
	if r.Body != "[]\n" && r.Body != "[]" || r.Header.Get("Link") != "" {
		t.Fatalf("past the end: %q, Link %q", r.Body, r.Header.Get("Link"))
	}
	f.Do("GET", "/api/v1/names/urn:example:none/history?limit=5", "").Want(t, 404).Problem(t)
	// A name with "/" and "%" in it: the link keeps it one path segment.
	name := "urn:example:a/b%2Fc"
	for i := range 3 {
		f.Put(f.books, name, loc(fmt.Sprintf("https://example.org/s/%d", i))).Want(t, map[bool]int{true: 201, false: 200}[i == 0])
	}
	if got, pages := walkHistory(t, f.Env, "/api/v1/names/"+Segment(name)+"/history?limit=2"); len(got) != 3 || !slices.Equal(pages, []int{2, 1}) {
		t.Fatalf("%s: %d entries in pages %v", name, len(got), pages)
	}
	// The Go client follows the links to the end.
	h, err := client.New(f.URL, "").History(context.Background(), "urn:example:paged")
	if err != nil || len(h) != changes+1 || h[changes].Seq != whole[changes].Seq {
		t.Fatalf("client.History: %d entries, %v", len(h), err)
	}
	p, err := client.New(f.URL, "").HistoryPage(context.Background(), "urn:example:paged-alias", 0, 5)
	if err != nil || len(p.Entries) != 5 || p.Next == nil || *p.Next != whole[4].Seq {
		t.Fatalf("client.HistoryPage: %d entries, next %v, %v", len(p.Entries), p.Next, err)
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// testHistoryPageBytes: a page of a record's history holds at most 4 MiB
// of entries' data, as a page of the log does, whatever limit asks for: a
// maintainer's large record changed many times must not make one
// anonymous request cost gigabytes. The links still lead to every entry.
func testHistoryPageBytes(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	const rounds = 30
	for round := range rounds {
		f.Put(f.books, "urn:example:big", BigRecordBody(round)).Want(t, 200+map[bool]int{true: 1}[round == 0])
	}
	target, total, pages := "/api/v1/names/urn:example:big/history?limit=10000", 0, 0
	var last int64
	for target != "" {
		r := f.Do("GET", target, "").Want(t, 200)
		var page []historyEntry
		r.JSON(t, &page)
		size := 0
		for _, e := range page {
			size += len(e.Data)
			if e.Seq <= last {
				t.Fatalf("entry %d after %d", e.Seq, last)
			}
			last = e.Seq
		}
		if size > 4<<20 || len(page) == 0 {
			t.Fatalf("a page of %d entries holds %d bytes of data", len(page), size)
		}
		total += len(page)
		pages++
		target = nextLink(t, r)
		if target != "" && !strings.HasSuffix(target, "&limit=10000") {
			t.Fatalf("the next page does not keep the limit: %s", target)
		}
	}
	if pages < 2 || total != rounds {
		t.Fatalf("%d entries in %d pages, want %d in two or more", total, pages, rounds)
	}
	// The Go client follows the links to the end.
	h, err := client.New(f.URL, "").History(context.Background(), "urn:example:big")
	if err != nil || len(h) != rounds || h[rounds-1].Seq != last {
		t.Fatalf("client.History: %d entries, %v", len(h), err)
	}
	// Read back from the newest, the pages are as bounded, each holds its
	// newest entry at least, and the links lead back to every entry once.
	var back []int64
	target, pages = "/api/v1/names/urn:example:big/history?before=end&limit=10000", 0
	for target != "" {
		r := f.Do("GET", target, "").Want(t, 200)
		var page []historyEntry
		r.JSON(t, &page)
		size := 0
		for _, e := range page {
			size += len(e.Data)
		}
		if size > 4<<20 || len(page) == 0 {
			t.Fatalf("%s: a page of %d entries holds %d bytes of data", target, len(page), size)
		}
		back = append(seqsOf(page), back...)
		pages++
		target = pageLinks(t, r)["prev"]
		if target != "" && !strings.HasSuffix(target, "&limit=10000") {
			t.Fatalf("the page before does not keep the limit: %s", target)
		}
	}
	if pages < 2 || !slices.Equal(back, seqsOf(fromClient(h))) {
		t.Fatalf("read back: %v in %d pages, want %d entries in two or more", back, pages, rounds)
	}
	// I2Cs holds as many bytes of descriptions at most, the newest first,
	// and says where the others are.
	r := f.Do("GET", "/uri-res/I2Cs?urn:example:big", "").Want(t, 200)
	var vs []json.RawMessage
	r.JSON(t, &vs)
	if len(r.Body) > 4<<20+64<<10 || len(vs) == 0 || len(vs) == rounds || !strings.Contains(string(vs[0]), "https://example.org/29/0/") {
		t.Fatalf("I2Cs: %d descriptions in %d bytes", len(vs), len(r.Body))
	}
	var oldest struct {
		Seq int64 `json:"seq"`
	}
	if err := json.Unmarshal(vs[len(vs)-1], &oldest); err != nil {
		t.Fatal(err)
	}
	wantHeader(t, r, "Link", `</api/v1/names/urn:example:big/history?before=`+strconv.FormatInt(oldest.Seq, 10)+`>; rel="version-history"`)
}

// fromClient is the client's entries as the tests read the API's.
func fromClient(h []client.HistoryEntry) []historyEntry {
	out := make([]historyEntry, len(h))
	for i, e := range h {
		out[i] = historyEntry{Seq: e.Seq, Data: e.Data, Hash: e.Hash}
	}
	return out
}

// testHistoryQuery: after=, before= and limit= of a history are checked
// as the log's are, and each may be given once: anything else is a 400
// problem naming the parameter, never a page of something else. after=
// and before= together are 400 naming both: the page would be neither a
// step forward nor one back.
func testHistoryQuery(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	base := "/api/v1/names/" + lotr + "/history?"
	for q, field := range map[string]string{
		"after=-1": "after", "after=x": "after", "after=1.5": "after", "after=99999999999999999999": "after",
		"limit=0": "limit", "limit=10001": "limit", "limit=x": "limit", "limit=-1": "limit",
		"after=1&after=2": "after", "after=1&after=1": "after", "limit=2&limit=3": "limit", "limit=5&after=0&limit=5": "limit",
		"limit=%zz": "query", "after=%": "query", "before=%": "query",
		// before= is a positive number or end, once.
		"before=0": "before", "before=-1": "before", "before=x": "before", "before=1.5": "before",
		"before=99999999999999999999": "before", "before=END": "before", "before=latest": "before", "before=end%20": "before",
		"before=1&before=2": "before", "before=end&before=end": "before", "before=5&limit=3&before=": "before",
		"before=end&limit=0": "limit", "before=1&limit=x": "limit",
	} {
		p := f.Do("GET", base+q, "").Want(t, 400).Problem(t)
		if p.Field != field || !strings.Contains(p.Detail, field) {
			t.Errorf("?%s: %+v, want one naming %s", q, p, field)
		}
	}
	for _, q := range []string{"after=1&before=5", "after=0&before=end", "before=end&after=3&limit=2", "after=5&before=1"} {
		p := f.Do("GET", base+q, "").Want(t, 400).Problem(t)
		if p.Field != "before" || !strings.Contains(p.Detail, "after") || !strings.Contains(p.Detail, "before") || !strings.HasSuffix(p.Type, "#invalid-request") {
			t.Errorf("?%s: %+v, want one naming after and before", q, p)
		}
	}
	// A bad value is named before the two are found together.
	if p := f.Do("GET", base+"after=x&before=5", "").Want(t, 400).Problem(t); p.Field != "after" {
		t.Errorf("?after=x&before=5: %+v", p)
	}
	// Well-formed: a page, the other parameters ignored as elsewhere, and
	// an empty value taken as none, as on the other listings (before= empty
	// is the first page, not the newest: only before=end is).
	for _, q := range []string{"", "limit=1", "limit=10000", "after=0", "after=0&limit=3", "x=1", "after=999999", "after=", "limit=", "after=&limit=",
		"before=end", "before=end&limit=1", "before=1", "before=999999", "before=9223372036854775807", "before=", "after=&before=end", "after=2&before=", "before=&limit="} {
		f.Do("GET", base+q, "").Want(t, 200)
	}
	first := f.Do("GET", base+"limit=1", "").Want(t, 200)
	if empty := f.Do("GET", base+"before=&limit=1", "").Want(t, 200); empty.Body != first.Body || empty.Header.Get("Link") != first.Header.Get("Link") {
		t.Errorf("before= empty: %s %q, want the first page %s %q", empty.Body, empty.Header.Get("Link"), first.Body, first.Header.Get("Link"))
	}
}

// testURCsBounded: I2Cs answers the newest 100 descriptions of a record
// (up to an as-of time, those before it), and points to the whole history
// with a version-history link (RFC 5829) when it left older ones out.
func testURCsBounded(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	const changes = 104
	var times []time.Time
	for i := range changes {
		f.Put(f.books, "urn:example:often", loc(fmt.Sprintf("https://example.org/v/%d", i))).Want(t, map[bool]int{true: 201, false: 200}[i == 0])
		times = append(times, f.Clock.Now())
		f.Clock.Advance(time.Second)
	}
	type version struct {
		Seq    int64 `json:"seq"`
		Record struct {
			Locations []struct {
				URL string `json:"url"`
			} `json:"locations"`
		} `json:"record"`
	}
	check := func(target string, newest, n int, link bool, headers ...string) {
		t.Helper()
		r := f.Do("GET", target, "", headers...).Want(t, 200)
		var vs []version
		r.JSON(t, &vs)
		if len(vs) != n {
			t.Fatalf("%s: %d versions, want %d", target, len(vs), n)
		}
		for i, v := range vs {
			if want := fmt.Sprintf("https://example.org/v/%d", newest-i); v.Record.Locations[0].URL != want {
				t.Fatalf("%s: version %d is %s, want %s", target, i, v.Record.Locations[0].URL, want)
			}
		}
		if got := r.Header.Get("Link"); link != (got != "") {
			t.Fatalf("%s: Link %q", target, got)
		} else if link {
			// The page of the history before the oldest description
			// given: the reader goes on from there.
			wantHeader(t, r, "Link", `</api/v1/names/urn:example:often/history?before=`+strconv.FormatInt(vs[n-1].Seq, 10)+`>; rel="version-history"`)
			h := f.Do("GET", strings.TrimSuffix(strings.TrimPrefix(r.Header.Get("Link"), "<"), `>; rel="version-history"`), "").Want(t, 200)
			var older []struct {
				Data struct {
					Locations []struct {
						URL string `json:"url"`
					} `json:"locations"`
				} `json:"data"`
			}
			h.JSON(t, &older)
			if links := pageLinks(t, h); len(older) != newest-n+1 || older[len(older)-1].Data.Locations[0].URL != fmt.Sprintf("https://example.org/v/%d", newest-n) ||
				links["prev"] != "" || links["next"] == "" {
				t.Fatalf("%s: the history before the descriptions: %d entries, links %q", target, len(older), links)
			}
		}
	}
	check("/uri-res/I2Cs?urn:example:often", changes-1, 100, true)
	// As of the 101st version: the 100 before and with it, none left out
	// but the first.
	check("/uri-res/I2Cs?urn:example:often", 100, 100, true, "Accept-Datetime", times[100].Format(http.TimeFormat))
	check("/uri-res/I2Cs?urn:example:often", 99, 100, false, "Accept-Datetime", times[99].Format(http.TimeFormat))
	check("/uri-res/I2Cs?urn:example:often", 5, 6, false, "Accept-Datetime", times[5].Format(http.TimeFormat))
	r := f.Do("GET", "/uri-res/I2Cs?urn:example:often", "", "Accept", "text/html").Want(t, 200)
	if !regexp.MustCompile(`<A HREF="/api/v1/names/urn:example:often/history\?before=[1-9][0-9]*">record's history</A>`).MatchString(r.Body) {
		t.Fatalf("the page of the descriptions does not say where the others are: %.300s", r.Body[len(r.Body)-400:])
	}
	// A 406 links to no history: it gave no versions.
	if r := f.Do("GET", "/uri-res/I2Cs?urn:example:often", "", "Accept", "text/csv").Want(t, 406); r.Header.Get("Link") != "" {
		t.Fatalf("406 with Link %q", r.Header.Get("Link"))
	}
}

// testPrivateLog: with Options.PrivateLog the whole history is the
// admin's: 401 without a token, 403 for a maintainer's.
func testPrivateLog(t *testing.T, ns func(*testing.T) resolver.Store) {
	e := NewEnv(t, ns, func(o *httpapi.Options) { o.PrivateLog = true })
	_, tok := e.Authority("Books", "urn:example:")
	e.Do("GET", "/api/v1/log", "").Want(t, 401).Problem(t)
	if p := e.Do("GET", "/api/v1/log", "", auth(tok)...).Want(t, 403).Problem(t); !strings.Contains(p.Detail, "admin token only") {
		t.Fatalf("403: %+v", p)
	}
	r := e.Do("GET", "/api/v1/log", "", auth(AdminToken)...).Want(t, 200)
	if !strings.Contains(r.Body, `"action":"authority.create"`) {
		t.Fatalf("the admin's log: %s", r.Body)
	}
}

// entryFields is a history entry as the API shows it.
type entryFields struct {
	Seq       int64           `json:"seq"`
	Time      time.Time       `json:"time"`
	Action    string          `json:"action"`
	Subject   string          `json:"subject"`
	Actor     string          `json:"actor"`
	Authority int64           `json:"authority"`
	Record    int64           `json:"record"`
	Data      json.RawMessage `json:"data"`
	Prev      []byte          `json:"prev"`
	Hash      []byte          `json:"hash"`
}

// docChainHash is docs/httpapi.md's recipe for an entry's hash, base64 as
// the API shows it.
func docChainHash(e entryFields) []byte {
	h := sha256.New()
	num := func(v int64) { h.Write(binary.BigEndian.AppendUint64(nil, uint64(v))) }
	str := func(b []byte) { num(int64(len(b))); h.Write(b) }
	h.Write([]byte("urikit-history-v1"))
	num(e.Seq)
	num(e.Time.UnixMicro())
	str([]byte(e.Action))
	str([]byte(e.Subject))
	num(e.Record)
	num(e.Authority)
	str([]byte(e.Actor))
	str(e.Data)
	str(e.Prev)
	return h.Sum(nil)
}
