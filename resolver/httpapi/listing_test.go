package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/httpapi"
	"github.com/urikit/urikit/resolver/httpapi/apitest"
	"github.com/urikit/urikit/resolver/memstore"
)

func newListingEnv(t *testing.T) (*apitest.Env, string) {
	e := apitest.NewEnv(t, func(*testing.T) resolver.Store { return memstore.New() })
	_, tok := e.Authority("Example", "urn:example:")
	return e, tok
}

var admin = []string{"Authorization", "Bearer " + apitest.AdminToken}

// TestListNames pages through every record, withdrawn ones too, in the
// order they were created, and only for the admin.
func TestListNames(t *testing.T) {
	e, tok := newListingEnv(t)
	var want []string
	for i := range 5 {
		name := fmt.Sprintf("urn:example:r%d/x", 5-i) // IDs and names in opposite orders
		e.Put(tok, name, fmt.Sprintf(`{"locations":[{"url":"http://example.org/%d"}]}`, i)).Want(t, 201)
		want = append(want, name)
	}
	e.Do("POST", "/api/v1/names/"+apitest.Segment(want[1])+"/withdraw", `{"reason":"test"}`, "Authorization", "Bearer "+tok).Want(t, 200)

	e.Do("GET", "/api/v1/names", "").Want(t, 401).Problem(t)
	e.Do("GET", "/api/v1/names", "", "Authorization", "Bearer "+tok).Want(t, 403).Problem(t)
	for _, q := range []string{"limit=0", "limit=10001", "limit=x", "after=-1", "after=z", "after=%zz", "limit=1&limit=2", "after=1&after=1"} {
		e.Do("GET", "/api/v1/names?"+q, "", admin...).Want(t, 400).Problem(t)
	}

	var got []string
	var statuses []resolver.Status
	after, pages := "", 0
	for {
		target := "/api/v1/names?limit=2"
		if after != "" {
			target += "&after=" + after
		}
		var page struct {
			Records []resolver.Record `json:"records"`
			Next    *int64            `json:"next"`
		}
		e.Do("GET", target, "", admin...).Want(t, 200).JSON(t, &page)
		pages++
		for _, r := range page.Records {
			got = append(got, r.URN)
			statuses = append(statuses, r.Status)
		}
		if page.Next == nil {
			if len(page.Records) == 2 {
				t.Fatalf("a full page without next")
			}
			break
		}
		if len(page.Records) != 2 || pages > 5 {
			t.Fatalf("page %d: %d records, next %d", pages, len(page.Records), *page.Next)
		}
		after = strconv.FormatInt(*page.Next, 10)
	}
	if !slices.Equal(got, want) || pages != 3 {
		t.Fatalf("listed %q in %d pages, want %q in 3", got, pages, want)
	}
	if statuses[1] != resolver.Withdrawn || statuses[0] != resolver.Active {
		t.Fatalf("statuses %v", statuses)
	}
	// An empty directory (or a cursor past the end) is an empty page.
	var page map[string]any
	e.Do("GET", "/api/v1/names?after=999", "", admin...).Want(t, 200).JSON(t, &page)
	if recs, ok := page["records"].([]any); !ok || len(recs) != 0 || page["next"] != nil {
		t.Fatalf("past the end: %v", page)
	}
}

// TestListDuplicates lists the locations several records share after
// scheme-based normalization, a page at a time.
func TestListDuplicates(t *testing.T) {
	e, tok := newListingEnv(t)
	e.Put(tok, "urn:example:a", `{"locations":[{"url":"http://example.org/x"},{"url":"http://example.org/only-a"}]}`).Want(t, 201)
	e.Put(tok, "urn:example:b", `{"locations":[{"url":"HTTP://EXAMPLE.ORG:80/x"},{"url":"https://example.org/y"}]}`).Want(t, 201)
	e.Put(tok, "urn:example:c", `{"locations":[{"url":"https://Example.org:443/y"}]}`).Want(t, 201)
	e.Put(tok, "urn:example:d", `{"locations":[{"url":"http://example.org/x"}]}`).Want(t, 201)

	e.Do("GET", "/api/v1/duplicates", "").Want(t, 401).Problem(t)
	e.Do("GET", "/api/v1/duplicates", "", "Authorization", "Bearer "+tok).Want(t, 403).Problem(t)
	e.Do("GET", "/api/v1/duplicates?limit=-3", "", admin...).Want(t, 400).Problem(t)

	type dup struct {
		Location string   `json:"location"`
		URNs     []string `json:"urns"`
	}
	var page struct {
		Duplicates []dup   `json:"duplicates"`
		Next       *string `json:"next"`
	}
	e.Do("GET", "/api/v1/duplicates?limit=1", "", admin...).Want(t, 200).JSON(t, &page)
	if len(page.Duplicates) != 1 || page.Next == nil || page.Duplicates[0].Location != "http://example.org/x" ||
		!slices.Equal(page.Duplicates[0].URNs, []string{"urn:example:a", "urn:example:b", "urn:example:d"}) {
		t.Fatalf("first page %+v", page)
	}
	next := *page.Next
	page.Next = nil
	e.Do("GET", "/api/v1/duplicates?limit=1&after="+next, "", admin...).Want(t, 200).JSON(t, &page)
	if len(page.Duplicates) != 1 || page.Duplicates[0].Location != "https://example.org/y" ||
		!slices.Equal(page.Duplicates[0].URNs, []string{"urn:example:b", "urn:example:c"}) {
		t.Fatalf("second page %+v", page)
	}
	if page.Next != nil {
		// A full page has a cursor; the page after it is empty.
		page.Duplicates = nil
		e.Do("GET", "/api/v1/duplicates?limit=1&after="+*page.Next, "", admin...).Want(t, 200).JSON(t, &page)
		if len(page.Duplicates) != 0 {
			t.Fatalf("third page %+v", page)
		}
	}
}

// FuzzListingQuery: whatever the query of the listings and of a record's
// history, the answer is a page (200) or a problem naming the bad
// parameter (400), never a 500, and a page never holds more than there
// is; a history's links name the record, a cursor (first none) and a
// limit, each relation once.
func FuzzListingQuery(f *testing.F) {
	for _, q := range []string{"", "limit=1", "after=3&limit=2", "after=http://example.org/x", "limit=0", "after=-1",
		"limit=99999999999999999999", "after=%zz", "after=1&after=2", "limit=1%00", ";", "&&&", "after=urn%3Aexample",
		"withdrawn=true", "withdrawn=false&limit=2", "withdrawn=1", "withdrawn=true&withdrawn=false", "withdrawn",
		"limit=2&limit=2", "after=&limit=1", "limit=", "after=0&limit=1", "after=5&limit=1&x=after",
		"before=end&limit=1", "before=7&limit=2", "before=", "before=0", "before=end&after=1", "before=end&before=7", "before=END", "after=&before=6&limit=1"} {
		f.Add(q)
	}
	st := memstore.New()
	svc := resolver.New(st, resolver.Options{AdminToken: apitest.AdminToken})
	_, tok, err := svc.CreateAuthority(context.Background(), resolver.Principal{Admin: true}, "Example", []string{"urn:example:"})
	if err != nil {
		f.Fatal(err)
	}
	p, err := svc.Authenticate(context.Background(), tok)
	if err != nil {
		f.Fatal(err)
	}
	for i := range 3 {
		in := resolver.RecordInput{Locations: []resolver.Location{{URL: "http://example.org/same"}}}
		if _, _, err := svc.Put(context.Background(), p, fmt.Sprintf("urn:example:%d", i), in); err != nil {
			f.Fatal(err)
		}
	}
	for i := range 3 { // a history of four entries
		in := resolver.RecordInput{Locations: []resolver.Location{{URL: fmt.Sprintf("http://example.org/v%d", i)}}}
		if _, _, err := svc.Put(context.Background(), p, "urn:example:0", in); err != nil {
			f.Fatal(err)
		}
	}
	const target = `</api/v1/names/urn:example:0/history\?`
	link := regexp.MustCompile(`^` + target + `limit=[1-9][0-9]*>; rel="first"$|^` + target + `before=[1-9][0-9]*&limit=[1-9][0-9]*>; rel="prev"$|^` +
		target + `after=[1-9][0-9]*&limit=[1-9][0-9]*>; rel="next"$|^` + target + `before=end&limit=[1-9][0-9]*>; rel="last"$`)
	head, err := st.Head(context.Background())
	if err != nil {
		f.Fatal(err)
	}
	h := httpapi.New(svc, httpapi.Options{})
	f.Fuzz(func(t *testing.T, q string) {
		for _, path := range []string{"/api/v1/names", "/api/v1/duplicates", "/api/v1/log", "/api/v1/names/urn:example:0/history"} {
			req := httptest.NewRequest("GET", "http://resolver.test/", nil)
			req.URL.Path, req.URL.RawQuery = path, q
			req.RequestURI = path + "?" + q
			req.Header.Set("Authorization", "Bearer "+apitest.AdminToken)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			switch {
			case rec.Code == 200 && strings.HasSuffix(path, "/history"):
				var page []json.RawMessage
				if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil || len(page) > 4 {
					t.Fatalf("%s?%q: 200 with %s", path, q, rec.Body)
				}
				l := rec.Header().Values("Link")
				if len(l) > 1 {
					t.Fatalf("%s?%q: Link %q", path, q, l)
				}
				rels := map[string]bool{}
				for _, v := range strings.Split(strings.Join(l, ""), ", ") {
					rel := v[strings.LastIndexByte(v, '=')+1:]
					if v != "" && (!link.MatchString(v) || rels[rel]) {
						t.Fatalf("%s?%q: Link %q", path, q, l)
					}
					rels[rel] = true
				}
			case rec.Code == 200:
				var page map[string]json.RawMessage
				if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
					t.Fatalf("%s?%q: 200 with %s", path, q, rec.Body)
				}
				var items []json.RawMessage
				key, most := "records", 3
				switch path {
				case "/api/v1/duplicates":
					key = "duplicates"
				case "/api/v1/log":
					key, most = "entries", int(head.Seq)
				}
				if err := json.Unmarshal(page[key], &items); err != nil || len(items) > most {
					t.Fatalf("%s?%q: %s", path, q, rec.Body)
				}
			case rec.Code == 400 || rec.Code == 414:
				if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
					t.Fatalf("%s?%q: %d as %s", path, q, rec.Code, ct)
				}
			default:
				t.Fatalf("%s?%q: %d %s", path, q, rec.Code, rec.Body)
			}
		}
	})
}
