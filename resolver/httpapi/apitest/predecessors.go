package apitest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/client"
)

// predecessorLinks are the links of r with the relation
// predecessor-version, in order, from its Link fields (each may hold
// several, comma-separated: RFC 8288 §3; a stored URN holds no '<').
func predecessorLinks(r *Resp) []string {
	var out []string
	for _, v := range r.Header.Values("Link") {
		for _, l := range strings.Split(v, ", <") {
			if !strings.HasPrefix(l, "<") {
				l = "<" + l
			}
			if strings.HasSuffix(l, `; rel="predecessor-version"`) {
				out = append(out, l)
			}
		}
	}
	return out
}

func wantPredecessors(t *testing.T, what string, r *Resp, names ...string) {
	t.Helper()
	var links []string
	for _, n := range names {
		links = append(links, "<"+n+`>; rel="predecessor-version"`)
	}
	if got := predecessorLinks(r); !slices.Equal(got, links) {
		t.Fatalf("%s: Link %q, want %q", what, got, links)
	}
	var body struct {
		Predecessors []string `json:"predecessors"`
	}
	r.JSON(t, &body)
	if !slices.Equal(body.Predecessors, names) {
		t.Fatalf("%s: predecessors %q in %s, want %q", what, body.Predecessors, r.Body, names)
	}
	if len(names) == 0 && strings.Contains(r.Body, `"predecessors"`) {
		t.Fatalf("%s: an empty predecessors member: %s", what, r.Body)
	}
}

// testPredecessors: a record lists the withdrawn records that name it as
// their successor, by any equivalent spelling of its name or an alias, in
// the API's JSON, I2C and N2C, with a Link of relation
// predecessor-version each (RFC 5829), and on I2C's page; not on I2L's
// redirect, nor as of a time. They are part of the representation, so
// its ETag changes with them, and a conditional write compares that tag.
func testPredecessors(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	withdraw := func(name, successor string) {
		t.Helper()
		f.Do("POST", "/api/v1/names/"+name+"/withdraw", `{"reason":"replaced","successor":"`+successor+`"}`, auth(f.books)...).Want(t, 200)
	}
	for _, n := range []string{"urn:example:ed1", "urn:example:ed0", "urn:example:ed3", "urn:example:ed4"} {
		f.Put(f.books, n, loc("https://example.org/"+n[12:])).Want(t, 201)
	}
	// Named before the successor is registered.
	withdraw("urn:example:ed1", "urn:example:ed2")
	r := f.Put(f.books, "urn:example:ed2", `{"locations":[{"url":"https://example.org/ed2","type":"text/html"}],"aliases":["urn:example:ed2-alias"]}`).Want(t, 201)
	if !strings.Contains(r.Body, `"predecessors":["urn:example:ed1"]`) {
		t.Fatalf("PUT's answer: %s", r.Body)
	}
	// An alias, spelt otherwise (RFC 8141 §3.1: "urn" and the NID in any case).
	withdraw("urn:example:ed0", "URN:EXAMPLE:ed2-alias")
	// A URL successor links to no record.
	withdraw("urn:example:ed4", "https://example.org/urn:example:ed2")
	both := []string{"urn:example:ed1", "urn:example:ed0"}
	for _, target := range []string{
		"/api/v1/names/urn:example:ed2", "/api/v1/names/URN:Example:ed2-alias",
		"/urn:example:ed2?s=I2C", "/uri-res/I2C?urn:example:ed2-alias", "/uri-res/N2C?urn:example:ed2",
	} {
		wantPredecessors(t, target, f.Do("GET", target, "").Want(t, 200), both...)
	}
	r = f.Do("GET", "/uri-res/I2C?urn:example:ed2", "", "Accept", browserAccept).Want(t, 200)
	if len(predecessorLinks(r)) != 2 || !strings.Contains(r.Body, "Replaces") ||
		!strings.Contains(r.Body, `<a href="/uri-res/I2C?urn:example:ed1">urn:example:ed1</a>`) {
		t.Fatalf("I2C page: %v %s", r.Header.Values("Link"), r.Body)
	}
	// A CSL item for a citation tool is the same description: the same
	// Links.
	r = f.Do("GET", "/uri-res/I2C?urn:example:ed2", "", "Accept", "application/vnd.citationstyles.csl+json").Want(t, 200)
	if len(predecessorLinks(r)) != 2 {
		t.Fatalf("I2C as CSL: Link %q", r.Header.Values("Link"))
	}
	// The redirect does not read them; nor does a record without any.
	for _, target := range []string{"/urn:example:ed2", "/uri-res/N2L?urn:example:ed2"} {
		if r := f.Do("GET", target, "").Want(t, 303); len(r.Header.Values("Link")) != 0 {
			t.Fatalf("%s: Link %q", target, r.Header.Values("Link"))
		}
	}
	wantPredecessors(t, "a record without predecessors", f.Do("GET", "/api/v1/names/"+lotr, "").Want(t, 200))
	// As of a time: none (which records named it then is not kept).
	now := f.Clock.Advance(time.Second).UTC().Format(time.RFC3339)
	wantPredecessors(t, "as of now", f.Do("GET", "/api/v1/names/urn:example:ed2?as-of="+now, "").Want(t, 200))
	wantPredecessors(t, "I2C as of now", f.Do("GET", "/urn:example:ed2?s=I2C&as-of="+now, "").Want(t, 200))

	// The ETag covers them: another withdrawal naming it changes it.
	const path = "/api/v1/names/urn:example:ed2"
	tag := etagOf(t, f.Do("GET", path, "").Want(t, 200))
	f.Do("GET", path, "", "If-None-Match", tag).Want(t, http.StatusNotModified)
	withdraw("urn:example:ed3", "urn:example:ed2")
	r = f.Do("GET", path, "", "If-None-Match", tag).Want(t, 200)
	wantPredecessors(t, "after a third withdrawal", r, "urn:example:ed1", "urn:example:ed0", "urn:example:ed3")
	fresh := etagOf(t, r)
	if fresh == tag {
		t.Fatal("the ETag did not change with the predecessors")
	}
	// The body read can be sent back as it is: "predecessors" is one of
	// the members a PUT ignores.
	f.Do("PUT", path, r.Body, append(auth(f.books), "If-Match", fresh)...).Want(t, 200)
	body := `{"locations":[{"url":"https://example.org/ed2-new"}],"aliases":["urn:example:ed2-alias"]}`
	wantPrecondition(t, f.Do("PUT", path, body, append(auth(f.books), "If-Match", tag)...), "If-Match", fresh)
	f.Do("PUT", path, body, append(auth(f.books), "If-Match", fresh)...).Want(t, 200)
	// A restated notice moves the link: ed3 names another successor now.
	withdraw("urn:example:ed3", "urn:example:ed5")
	wantPredecessors(t, "after ed3's notice moved", f.Do("GET", path, "").Want(t, 200), both...)

	// The Go client reads them, and the ETag it computes is the server's.
	c := client.New(f.URL, f.books)
	rec, etag, err := c.GetETag(context.Background(), "urn:example:ed2")
	if err != nil || !slices.Equal(rec.Predecessors, both) || rec.ETag() != etag {
		t.Fatalf("client: %+v %s %v", rec, etag, err)
	}
	if _, _, _, err := c.PutIf(context.Background(), "urn:example:ed2", resolver.RecordInput{
		Locations: []resolver.Location{{URL: "https://example.org/ed2-v3"}}, Aliases: []string{"urn:example:ed2-alias"}}, etag); err != nil {
		t.Fatalf("client PutIf with the tag it read: %v", err)
	}
}

// testManyPredecessors: a record that more withdrawn names replace than
// resolver.MaxPredecessors lists the first of them with
// "more_predecessors":true, and links them in one Link field of bounded
// length: clients and proxies stop reading at some number of fields or
// kilobytes, and any maintainer may name any URN as a successor.
func testManyPredecessors(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	f.Put(f.books, "urn:example:hub", loc("https://example.org/hub")).Want(t, 201)
	n := resolver.MaxPredecessors + 2
	for i := range n {
		name := fmt.Sprintf("urn:example:spoke-%03d-%s", i, strings.Repeat("x", 40))
		f.Put(f.books, name, loc(fmt.Sprintf("https://example.org/spoke/%d", i))).Want(t, 201)
		f.Do("POST", "/api/v1/names/"+name+"/withdraw", `{"successor":"urn:example:hub"}`, auth(f.books)...).Want(t, 200)
	}
	for _, target := range []string{"/api/v1/names/urn:example:hub", "/uri-res/I2C?urn:example:hub", "/uri-res/N2C?urn:example:hub"} {
		r := f.Do("GET", target, "").Want(t, 200)
		var body struct {
			Predecessors []string `json:"predecessors"`
			More         bool     `json:"more_predecessors"`
		}
		r.JSON(t, &body)
		if len(body.Predecessors) != resolver.MaxPredecessors || !body.More || body.Predecessors[0] != fmt.Sprintf("urn:example:spoke-000-%s", strings.Repeat("x", 40)) {
			t.Fatalf("%s: %d predecessors, more %v", target, len(body.Predecessors), body.More)
		}
		fields := r.Header.Values("Link")
		if len(fields) != 1 || len(fields[0]) > 2048 {
			t.Fatalf("%s: %d Link fields, the first of %d bytes", target, len(fields), len(fields[0]))
		}
		links := predecessorLinks(r)
		if len(links) < 10 || links[0] != "<"+body.Predecessors[0]+`>; rel="predecessor-version"` {
			t.Fatalf("%s: links %q", target, links)
		}
	}
	page := f.Do("GET", "/uri-res/I2C?urn:example:hub", "", "Accept", browserAccept).Want(t, 200)
	if !strings.Contains(page.Body, `and more (the first 100 are shown; <a href="/api/v1/names/urn:example:hub/predecessors">all of them</a>`) {
		t.Fatalf("I2C page: %s", page.Body)
	}
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("urn:example:spoke-%03d-%s", i, strings.Repeat("x", 40)))
	}
	// Every one of them, page by page through the Link rel="next" (and
	// next), asked by another spelling of the name.
	var got []string
	target := "/api/v1/names/URN:EXAMPLE:hub/predecessors?limit=30"
	for pages := 0; target != ""; pages++ {
		if pages > n {
			t.Fatalf("the pages do not end: %q", got)
		}
		r := f.Do("GET", target, "").Want(t, 200)
		var body struct {
			URN          string   `json:"urn"`
			Predecessors []string `json:"predecessors"`
			Next         *int64   `json:"next"`
		}
		r.JSON(t, &body)
		if body.URN != "urn:example:hub" || len(body.Predecessors) > 30 {
			t.Fatalf("%s: %s", target, r.Body)
		}
		got = append(got, body.Predecessors...)
		target = ""
		if l := r.Header.Get("Link"); l != "" {
			target = strings.TrimPrefix(strings.TrimSuffix(l, `>; rel="next"`), "<")
			if target == l || body.Next == nil || !strings.Contains(target, fmt.Sprintf("after=%d&limit=30", *body.Next)) {
				t.Fatalf("Link %q with next %v", l, body.Next)
			}
		} else if body.Next != nil {
			t.Fatalf("%s: next %d without a Link", target, *body.Next)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("paged predecessors:\n got %q\nwant %q", got, want)
	}
	// The Go client reads them all.
	if all, err := client.New(f.URL, "").Predecessors(context.Background(), "urn:example:hub"); err != nil || !slices.Equal(all, want) {
		t.Fatalf("client.Predecessors: %d, %v", len(all), err)
	}
	// A page of the default size is the record's own list.
	var first struct {
		Predecessors []string `json:"predecessors"`
		Next         *int64   `json:"next"`
	}
	f.Do("GET", "/api/v1/names/urn:example:hub/predecessors", "").Want(t, 200).JSON(t, &first)
	if !slices.Equal(first.Predecessors, want[:resolver.MaxPredecessors]) || first.Next == nil {
		t.Fatalf("the first page: %d, next %v", len(first.Predecessors), first.Next)
	}
	// None: an empty list, not a 404; the listing of a name there is not
	// is 404, and a bad page 400 naming the parameter.
	none := f.Do("GET", "/api/v1/names/urn:example:spoke-000-"+strings.Repeat("x", 40)+"/predecessors", "").Want(t, 200)
	if !strings.Contains(none.Body, `"predecessors":[]`) || strings.Contains(none.Body, "next") || none.Header.Get("Link") != "" {
		t.Fatalf("no predecessors: %s %q", none.Body, none.Header.Get("Link"))
	}
	f.Do("GET", "/api/v1/names/urn:example:nowhere/predecessors", "").Want(t, 404)
	for _, q := range []string{"limit=0", "limit=101", "limit=x", "after=-1", "after=x", "after=1&after=2"} {
		r := f.Do("GET", "/api/v1/names/urn:example:hub/predecessors?"+q, "").Want(t, 400)
		if name, _, _ := strings.Cut(q, "="); !strings.Contains(r.Body, `"`+name+`"`) {
			t.Errorf("?%s: the problem does not name %s: %s", q, name, r.Body)
		}
	}
}
