package apitest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver"
)

// locationsPage is a page of GET /api/v1/locations.
type locationsPage struct {
	Location string            `json:"location"`
	Key      string            `json:"key"`
	Records  []json.RawMessage `json:"records"`
	Next     *int64            `json:"next"`
}

// urns returns the names of the page's records.
func (p locationsPage) urns(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, r := range p.Records {
		var rec struct {
			URN string `json:"urn"`
		}
		if err := json.Unmarshal(r, &rec); err != nil {
			t.Fatal(err)
		}
		out = append(out, rec.URN)
	}
	return out
}

// getLocations reads the page at target (anonymously), checking that its
// Link header gives the next page exactly when its body does.
func getLocations(t *testing.T, f *fixture, target string) (locationsPage, string) {
	t.Helper()
	r := f.Do("GET", target, "").Want(t, 200)
	var p locationsPage
	r.JSON(t, &p)
	link := nextLink(t, r)
	if l := r.Header.Get("Link"); l != "" && l != "<"+link+`>; rel="next"` {
		t.Fatalf("%s: Link %q, want one rel=next", target, l)
	}
	if (p.Next != nil) != (link != "") || p.Next != nil && !strings.Contains(link, "&after="+strconv.FormatInt(*p.Next, 10)) {
		t.Fatalf("%s: next %v, Link %q", target, p.Next, link)
	}
	if p.Records == nil {
		t.Fatalf("%s: records is not a list: %s", target, r.Body)
	}
	return p, link
}

// walkLocations follows the pages from target by their Link headers and
// returns the names listed, checking that no page holds more than limit.
func walkLocations(t *testing.T, f *fixture, target string, limit int) (urns []string, pages int) {
	t.Helper()
	for target != "" {
		p, next := getLocations(t, f, target)
		if len(p.Records) > limit || len(p.Records) == 0 && next != "" || pages > 200 {
			t.Fatalf("%s: %d records, next %q", target, len(p.Records), next)
		}
		urns = append(urns, p.urns(t)...)
		target, pages = next, pages+1
	}
	return urns, pages
}

// testLocationListing: GET /api/v1/locations lists, to anyone, every
// record that lists a URL (after normalization), a page at a time in
// registration order, past the first resolver.MaxByLocation that L2Ns
// covers; withdrawn ones only when asked.
func testLocationListing(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	n := resolver.MaxByLocation + 3
	for i := range n {
		putPopular(t, f, i)
	}
	f.Do("POST", "/api/v1/names/"+popularName(5)+"/withdraw", `{}`, auth(f.books)...).Want(t, 200)
	var all, active []string
	for i := range n {
		all = append(all, popularName(i))
		if i != 5 {
			active = append(active, popularName(i))
		}
	}
	// The URL as given, compared by its key.
	asked := "HTTPS://Popular.Example:443/"
	base := "/api/v1/locations?url=" + url.QueryEscape(asked)
	p, next := getLocations(t, f, base)
	if p.Location != asked || p.Key != popular || len(p.Records) != resolver.MaxByLocation || next == "" {
		t.Fatalf("first page: location %q, key %q, %d records, next %q", p.Location, p.Key, len(p.Records), next)
	}
	// Each record as GET /api/v1/names/{urn} shows it (which adds the
	// records it replaces: none here).
	var listed, named map[string]any
	json.Unmarshal(p.Records[0], &listed)
	f.Do("GET", "/api/v1/names/"+popularName(0), "").Want(t, 200).JSON(t, &named)
	if !reflect.DeepEqual(listed, named) {
		t.Fatalf("a listed record %v, GET /api/v1/names shows %v", listed, named)
	}
	for _, tc := range []struct {
		query string
		limit int
		want  []string
	}{
		{"", resolver.MaxByLocation, active},
		{"&limit=7", 7, active},
		{"&limit=1000", 1000, active},
		{"&withdrawn=false&limit=50", 50, active},
		{"&withdrawn=true&limit=10", 10, all},
		{"&withdrawn=true", resolver.MaxByLocation, all},
	} {
		urns, pages := walkLocations(t, f, base+tc.query, tc.limit)
		if wantPages := (len(tc.want) + tc.limit - 1) / tc.limit; !slices.Equal(urns, tc.want) || pages != wantPages {
			t.Fatalf("%s: %d pages, %d names %q…, want %d pages, %d names", tc.query, pages, len(urns), urns[:min(3, len(urns))], wantPages, len(tc.want))
		}
	}
	// A cursor past the end, a URL nobody lists: an empty page (it is a
	// listing), with no next.
	for _, target := range []string{base + "&after=9223372036854775807", "/api/v1/locations?url=https://nobody.example/x"} {
		if p, next := getLocations(t, f, target); len(p.Records) != 0 || next != "" {
			t.Fatalf("%s: %d records, next %q", target, len(p.Records), next)
		}
	}
	// Bad queries: 400 naming the parameter. An invalid URL is 400 with
	// the offset L2Ns gives.
	for target, field := range map[string]string{
		base + "&limit=0":                     "limit",
		base + "&limit=1001":                  "limit",
		base + "&limit=x":                     "limit",
		base + "&limit=5&limit=5":             "limit",
		base + "&after=-1":                    "after",
		base + "&after=x":                     "after",
		base + "&withdrawn=yes":               "withdrawn",
		base + "&withdrawn=true&withdrawn=no": "withdrawn",
		base + "&url=https://other.example/":  "url",
		"/api/v1/locations":                   "url",
		"/api/v1/locations?url=":              "url",
	} {
		if p := f.Do("GET", target, "").Want(t, 400).Problem(t); p.Field != field {
			t.Fatalf("%s: field %q, want %q: %+v", target, p.Field, field, p)
		}
	}
	for _, bad := range []string{"no-scheme/x", "https://exa%zzmple.org/"} {
		want := f.Do("GET", "/uri-res/L2Ns?"+bad, "").Want(t, 400).Problem(t)
		got := f.Do("GET", "/api/v1/locations?url="+url.QueryEscape(bad), "").Want(t, 400).Problem(t)
		if got.Field != "url" || got.Offset == nil || want.Offset == nil || *got.Offset != *want.Offset {
			t.Fatalf("%q: field %q, offset %v; L2Ns says offset %v", bad, got.Field, got.Offset, want.Offset)
		}
	}
	// The admin's duplicates listing gives the first MaxByLocation names
	// of the location, says more list it, and links to the rest.
	var dups struct {
		Duplicates []struct {
			Location string   `json:"location"`
			URNs     []string `json:"urns"`
			MoreURNs bool     `json:"more_urns"`
			Next     string   `json:"next"`
		} `json:"duplicates"`
	}
	for _, withdrawn := range []bool{false, true} {
		want := active
		if withdrawn {
			want = all
		}
		f.Do("GET", fmt.Sprintf("/api/v1/duplicates?withdrawn=%v", withdrawn), "", auth(AdminToken)...).Want(t, 200).JSON(t, &dups)
		if len(dups.Duplicates) != 1 {
			t.Fatalf("duplicates: %+v", dups)
		}
		d := dups.Duplicates[0]
		if d.Location != popular || !d.MoreURNs || !slices.Equal(d.URNs, want[:resolver.MaxByLocation]) {
			t.Fatalf("duplicates (withdrawn %v): %s, more %v, %d names", withdrawn, d.Location, d.MoreURNs, len(d.URNs))
		}
		if rest, _ := walkLocations(t, f, d.Next, resolver.MaxByLocation); !slices.Equal(rest, want[resolver.MaxByLocation:]) {
			t.Fatalf("duplicates (withdrawn %v): the rest, at %s: %q, want %q", withdrawn, d.Next, rest, want[resolver.MaxByLocation:])
		}
	}
}

// testLocationListingBytes: a page of GET /api/v1/locations holds at most
// about 4 MiB of records (but always one), whatever limit asks for, and
// the pages after it hold the rest.
func testLocationListingBytes(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	urns := putBigRecords(t, f, 35)
	target := "/api/v1/locations?url=" + url.QueryEscape(popular) + "&limit=1000"
	r := f.Do("GET", target, "").Want(t, 200)
	if len(r.Body) > 5<<20 {
		t.Fatalf("a page of %d bytes", len(r.Body))
	}
	got, pages := walkLocations(t, f, target, 1000)
	if !slices.Equal(got, urns) || pages < 2 {
		t.Fatalf("%d pages, %d names, want all %d in more than one page", pages, len(got), len(urns))
	}
}
