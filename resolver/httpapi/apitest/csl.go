package apitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/storetest"
)

const (
	cslType      = "application/vnd.citationstyles.csl+json"
	citeprocType = "application/citeproc+json"
)

// CheckCSLItem holds an answer's body to the CSL-JSON data schema's item
// (csl-data.json of CSL 1.0.2, the v1.0 schema: "id" and "type"
// required, no member it does not list, each of the shape it gives). It
// is written here by hand, apart from the handler's own table, since no
// JSON Schema validator is among urikit's dependencies.
func CheckCSLItem(body []byte) error {
	var item map[string]any
	if err := json.Unmarshal(body, &item); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	if id, ok := item["id"].(string); !ok || id == "" {
		return fmt.Errorf("id %v is not a non-empty string", item["id"])
	}
	if t, ok := item["type"].(string); !ok || !slices.Contains(schemaTypes, t) {
		return fmt.Errorf("type %v is not a CSL type", item["type"])
	}
	for name, v := range item {
		if name == "id" || name == "type" {
			continue
		}
		var err error
		switch {
		case slices.Contains(schemaNames, name):
			err = checkNames(v)
		case slices.Contains(schemaDates, name):
			err = checkDate(v)
		case slices.Contains(schemaNumbers, name):
			if _, ok := v.(string); !ok {
				if _, ok := v.(float64); !ok {
					err = fmt.Errorf("neither a string nor a number")
				}
			}
		case slices.Contains(schemaStrings, name):
			if _, ok := v.(string); !ok {
				err = fmt.Errorf("not a string")
			}
		case name == "categories":
			a, ok := v.([]any)
			for _, s := range a {
				if _, isStr := s.(string); !isStr {
					ok = false
				}
			}
			if !ok {
				err = fmt.Errorf("not an array of strings")
			}
		case name == "custom":
			if _, ok := v.(map[string]any); !ok {
				err = fmt.Errorf("not an object")
			}
		default:
			err = fmt.Errorf("not a member of a CSL item")
		}
		if err != nil {
			return fmt.Errorf("%s: %v: %s", name, err, body)
		}
	}
	return nil
}

func checkNames(v any) error {
	a, ok := v.([]any)
	if !ok {
		return fmt.Errorf("not an array")
	}
	for _, n := range a {
		m, ok := n.(map[string]any)
		if !ok {
			return fmt.Errorf("a name that is not an object")
		}
		for k, x := range m {
			switch k {
			case "family", "given", "dropping-particle", "non-dropping-particle", "suffix", "literal":
				if _, ok := x.(string); !ok {
					return fmt.Errorf("name member %s is not a string", k)
				}
			case "comma-suffix", "static-ordering", "parse-names":
				switch x.(type) {
				case string, float64, bool:
				default:
					return fmt.Errorf("name member %s is not a string, number or boolean", k)
				}
			default:
				return fmt.Errorf("name member %s is not in the schema", k)
			}
		}
	}
	return nil
}

func checkDate(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("not an object")
	}
	for k, x := range m {
		switch k {
		case "date-parts":
			dates, ok := x.([]any)
			if !ok || len(dates) < 1 || len(dates) > 2 {
				return fmt.Errorf("date-parts is not one or two dates")
			}
			for _, d := range dates {
				parts, ok := d.([]any)
				if !ok || len(parts) < 1 || len(parts) > 3 {
					return fmt.Errorf("a date of date-parts is not one to three parts")
				}
				for _, p := range parts {
					switch p.(type) {
					case string, float64:
					default:
						return fmt.Errorf("a date part is neither a string nor a number")
					}
				}
			}
		case "season", "circa", "literal", "raw":
		default:
			return fmt.Errorf("date member %s is not in the schema", k)
		}
	}
	return nil
}

// The schema's properties, by shape, and its types.
var (
	schemaTypes = strings.Fields(`article article-journal article-magazine article-newspaper bill book broadcast
		chapter classic collection dataset document entry entry-dictionary entry-encyclopedia event figure graphic
		hearing interview legal_case legislation manuscript map motion_picture musical_score pamphlet
		paper-conference patent performance periodical personal_communication post post-weblog regulation report
		review review-book software song speech standard thesis treaty webpage`)
	schemaNames = strings.Fields(`author chair collection-editor compiler composer container-author contributor
		curator director editor editorial-director executive-producer guest host interviewer illustrator narrator
		organizer original-author performer producer recipient reviewed-author script-writer series-creator translator`)
	schemaDates   = strings.Fields(`accessed available-date event-date issued original-date submitted`)
	schemaNumbers = strings.Fields(`chapter-number citation-number collection-number edition
		first-reference-note-number issue locator number number-of-pages number-of-volumes page page-first part
		printing supplement volume`)
	schemaStrings = strings.Fields(`citation-key language journalAbbreviation shortTitle abstract annote archive
		archive_collection archive_location archive-place authority call-number citation-label collection-title
		container-title container-title-short dimensions division DOI event event-title event-place genre ISBN ISSN
		jurisdiction keyword medium note original-publisher original-publisher-place original-title part-title PMCID
		PMID publisher publisher-place references reviewed-genre reviewed-title scale section source status title
		title-short URL version volume-title volume-title-short year-suffix`)
)

// cslItem reads a CSL answer: 200, the media type, Vary: Accept, a valid
// item.
func cslItem(t *testing.T, r *Resp, mt string) map[string]any {
	t.Helper()
	r.Want(t, 200)
	wantHeader(t, r, "Content-Type", mt)
	if !strings.Contains(r.Header.Get("Vary"), "Accept") {
		t.Fatalf("no Vary: Accept: %v", r.Header)
	}
	if err := CheckCSLItem([]byte(r.Body)); err != nil {
		t.Fatalf("not a CSL item: %v", err)
	}
	var item map[string]any
	r.JSON(t, &item)
	return item
}

const cslBook = "urn:example:csl-book"

// cslBookBody has CSL variables of every shape, and members that are not
// CSL or have the wrong shape.
const cslBookBody = `{"locations":[{"url":"https://example.org/hobbit","type":"text/html"},{"url":"https://example.org/hobbit.pdf"}],
	"metadata":{"type":"book","title":"The Hobbit","author":[{"family":"Tolkien","given":"J. R. R."}],
	"issued":"1937-09-21","original-date":{"date-parts":[[1937,9]]},"submitted":"1936","available-date":"1937-09",
	"accessed":"2024-02-30","event-date":"21 September 1937","publisher":"George Allen & Unwin","volume":1,
	"edition":"1st","shelf":"B12","editor":"Rayner Unwin","translator":[{"family":"Tolkien","nickname":"Tollers"}],
	"illustrator":[{"literal":"The author"}],"page":["1","310"],"title-short":42,"URL":"https://example.org/other",
	"categories":["fiction","fantasy"],"custom":{"shelf":"B12"},"id":"not-this","URN":"urn:example:not-a-variable"}}`

// testCSL: a citation tool that prefers a CSL item gets one (DOI's content
// negotiation) from the path style and the description services: the
// record's CSL variables of the right shape, nothing else.
func testCSL(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	f.Put(f.books, cslBook, cslBookBody).Want(t, 201)
	want := map[string]any{
		"id": cslBook, "type": "book", "URL": "https://example.org/hobbit", "title": "The Hobbit",
		"author":         []any{map[string]any{"family": "Tolkien", "given": "J. R. R."}},
		"illustrator":    []any{map[string]any{"literal": "The author"}},
		"issued":         map[string]any{"date-parts": []any{[]any{1937.0, 9.0, 21.0}}},
		"original-date":  map[string]any{"date-parts": []any{[]any{1937.0, 9.0}}},
		"submitted":      map[string]any{"date-parts": []any{[]any{1936.0}}},
		"available-date": map[string]any{"date-parts": []any{[]any{1937.0, 9.0}}},
		"publisher":      "George Allen & Unwin", "volume": 1.0, "edition": "1st",
		"categories": []any{"fiction", "fantasy"}, "custom": map[string]any{"shelf": "B12"},
	}
	var first string
	for _, target := range []string{
		"/" + cslBook, "/" + cslBook + "?s=I2C", "/" + cslBook + "?+s=I2C", "/" + cslBook + "?s=L2Ls",
		"/uri-res/I2C?" + cslBook, "/uri-res/N2C?URN:EXAMPLE:csl-book", "/uri-res/L2C?https://example.org/hobbit.pdf",
	} {
		r := f.Do("GET", target, "", "Accept", cslType)
		item := cslItem(t, r, cslType)
		if !reflect.DeepEqual(item, want) {
			t.Fatalf("%s: %s\nwant %v", target, r.Body, want)
		}
		if first == "" {
			first = r.Body
		} else if r.Body != first {
			t.Fatalf("%s: %s, the path style %s", target, r.Body, first)
		}
		if strings.HasPrefix(target, "/urn:") {
			wantHeader(t, r, "Urikit-Service", "I2C")
		}
	}
	// The older name of the type, answered under its own name.
	r := f.Do("GET", "/"+cslBook, "", "Accept", citeprocType)
	if cslItem(t, r, citeprocType); r.Body != first {
		t.Fatalf("citeproc+json: %s", r.Body)
	}
	r = f.Do("HEAD", "/"+cslBook, "", "Accept", cslType).Want(t, 200)
	wantHeader(t, r, "Content-Type", cslType)

	// A type that is not CSL's (Crossref's "journal-article"), or none:
	// "document". No metadata at all, or metadata that is not an object
	// (a legacy record): id, type and URL only.
	f.Put(f.books, "urn:example:csl-other", `{"locations":[{"url":"https://example.org/o"}],"metadata":{"type":"journal-article","title":"T"}}`).Want(t, 201)
	storetest.InsertLegacy(t, f.Svc.Store(), resolver.Record{URN: "urn:example:csl-legacy", AuthorityID: f.booksID,
		Locations: []resolver.Location{{URL: "https://example.org/l"}}, Metadata: []byte(`[{"title":"x"}]`)})
	for name, want := range map[string]map[string]any{
		"urn:example:csl-other":    {"id": "urn:example:csl-other", "type": "document", "URL": "https://example.org/o", "title": "T"},
		"urn:example:tolkien-lotr": {"id": lotr, "type": "document", "URL": "https://example.org/book", "title": "The Lord of the Rings"},
		"urn:example:csl-legacy":   {"id": "urn:example:csl-legacy", "type": "document", "URL": "https://example.org/l"},
	} {
		if item := cslItem(t, f.Do("GET", "/"+name, "", "Accept", cslType), cslType); !reflect.DeepEqual(item, want) {
			t.Fatalf("%s: %v, want %v", name, item, want)
		}
	}
	// No location (a record written before one was required): no
	// redirect, but a description, whose URL is the metadata's.
	storetest.InsertLegacy(t, f.Svc.Store(), resolver.Record{URN: "urn:example:csl-nowhere", AuthorityID: f.booksID,
		Metadata: []byte(`{"title":"N","URL":"https://example.org/n"}`)})
	f.Do("GET", "/urn:example:csl-nowhere", "").Want(t, 404)
	item := cslItem(t, f.Do("GET", "/urn:example:csl-nowhere", "", "Accept", cslType), cslType)
	if item["URL"] != "https://example.org/n" || item["title"] != "N" {
		t.Fatalf("no location: %v", item)
	}
}

// testCSLNegotiation: the Accept header's qualities decide (RFC 9110
// §12.5.1). On the path style the redirect stands for every other type: a
// CSL item only when it is named with a higher quality than anything else.
func testCSLNegotiation(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	f.Put(f.books, cslBook, cslBookBody).Want(t, 201)
	for _, c := range []struct{ target, accept, want string }{
		// The description services: JSON at q=1 beats CSL at q=0.5.
		{"/uri-res/I2C?" + cslBook, cslType + ";q=0.5, application/json", "application/json"},
		{"/uri-res/I2C?" + cslBook, "application/json;q=0.9, " + cslType, cslType},
		{"/uri-res/I2C?" + cslBook, "text/html;q=0.5, " + citeprocType + ";q=0.6", citeprocType},
		{"/uri-res/I2C?" + cslBook, cslType + ", " + citeprocType, cslType},
		{"/uri-res/I2C?" + cslBook, "APPLICATION/VND.CITATIONSTYLES.CSL+JSON", cslType},
		{"/uri-res/I2C?" + cslBook, "*/*", "application/json"},
		{"/uri-res/I2C?" + cslBook, "application/*", "application/json"},
		{"/uri-res/I2C?" + cslBook, "", "application/json"},
		{"/uri-res/I2C?" + cslBook, browserAccept, "text/html; charset=utf-8"},
		{"/" + cslBook + "?s=I2C", cslType + ";q=0.5, application/json", "application/json"},
		// The path style: the redirect unless CSL is preferred to all else.
		{"/" + cslBook, cslType + ";q=0.5, application/json", "303"},
		{"/" + cslBook, cslType + ", text/html", "303"},
		{"/" + cslBook, cslType + ", */*;q=0.1", cslType},
		{"/" + cslBook, "text/html;q=0.2, " + cslType + ";q=0.3", cslType},
		{"/" + cslBook, "text/html;q=0, " + cslType + ";q=0.001", cslType},
		{"/" + cslBook, cslType + ";q=0", "303"},
		{"/" + cslBook, cslType + ";q=2, text/html;q=0.1", "303"}, // a malformed weight: the range is ignored
		{"/" + cslBook, "application/ld+json", "303"},
		{"/" + cslBook, "*/*", "303"},
		{"/" + cslBook, "", "303"},
		{"/" + cslBook, browserAccept, "303"},
		// A service asked for by name is kept.
		{"/" + cslBook + "?s=I2L", cslType, "303"},
		{"/" + cslBook + "?+s=N2L", cslType, "303"},
		{"/uri-res/I2L?" + cslBook, cslType, "303"},
		{"/uri-res/N2L?" + cslBook, cslType, "303"},
	} {
		r := f.Do("GET", c.target, "", "Accept", c.accept)
		if c.want == "303" {
			r.Want(t, 303)
			wantHeader(t, r, "Location", "https://example.org/hobbit")
			continue
		}
		r.Want(t, 200)
		wantHeader(t, r, "Content-Type", c.want)
		if !strings.Contains(r.Header.Get("Vary"), "Accept") {
			t.Fatalf("%s %q: no Vary: Accept", c.target, c.accept)
		}
	}
	// Nothing acceptable stays 406; I2Cs (several descriptions) has no CSL
	// form.
	p := f.Do("GET", "/uri-res/I2C?"+cslBook, "", "Accept", "text/plain").Want(t, 406).Problem(t)
	if !strings.Contains(p.Detail, cslType) {
		t.Fatalf("406 does not name the CSL type: %+v", p)
	}
	f.Do("GET", "/uri-res/I2Cs?"+cslBook, "", "Accept", cslType).Want(t, 406).Problem(t)
	f.Do("GET", "/"+cslBook+"?s=I2Ls", "", "Accept", cslType).Want(t, 406).Problem(t)
}

// testCSLLifecycle: a CSL request for a withdrawn name is 410 like every
// other answer, for an unknown name 404, and as of a time it gives the
// record as it stood then.
func testCSLLifecycle(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	t1 := f.Clock.Advance(time.Hour)
	f.Put(f.books, "urn:example:csl-moving", `{"locations":[{"url":"https://example.org/v1"}],"metadata":{"title":"First","issued":"2019"}}`).Want(t, 201)
	t2 := f.Clock.Advance(time.Hour)
	f.Put(f.books, "urn:example:csl-moving", `{"locations":[{"url":"https://example.org/v2"}],"metadata":{"title":"Second","issued":"2020-02-29"}}`).Want(t, 200)
	f.Clock.Advance(time.Hour)
	f.Do("POST", "/api/v1/names/urn:example:csl-moving/withdraw", `{"reason":"superseded","successor":"urn:example:csl-next"}`, auth(f.books)...).Want(t, 200)
	f.Clock.Advance(time.Hour)

	for _, target := range []string{"/urn:example:csl-moving", "/uri-res/I2C?urn:example:csl-moving", "/urn:example:csl-moving?s=N2C"} {
		for _, accept := range []string{cslType, citeprocType} {
			r := f.Do("GET", target, "", "Accept", accept).Want(t, 410)
			wantHeader(t, r, "Link", `<urn:example:csl-next>; rel="successor-version"`)
			wantHeader(t, r, "Cache-Control", "no-cache")
			if p := r.Problem(t); p.Successor != "urn:example:csl-next" || p.Reason != "superseded" {
				t.Fatalf("%s: %+v", target, p)
			}
		}
	}
	for _, target := range []string{"/urn:example:csl-nobody", "/uri-res/I2C?urn:example:csl-nobody", "/uri-res/N2C?urn:example:csl-nobody"} {
		f.Do("GET", target, "", "Accept", cslType).Want(t, 404).Problem(t)
	}
	// A name another resolver holds is handed on for its description.
	f.Deleg.Route("urn:nbn:fi:", "https://resolver.example/")
	r := f.Do("GET", "/urn:nbn:fi:csl-1", "", "Accept", cslType).Want(t, 303)
	wantHeader(t, r, "Location", "https://resolver.example/uri-res/I2C?urn:nbn:fi:csl-1?+hops=1")
	r = f.Do("GET", "/urn:nbn:fi:csl-1", "", "Accept", browserAccept).Want(t, 303)
	wantHeader(t, r, "Location", "https://resolver.example/uri-res/I2L?urn:nbn:fi:csl-1?+hops=1")

	rfc := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	for _, c := range []struct {
		target, datetime string
		title, url       string
		issued           []any
		memento          time.Time
	}{
		{"/urn:example:csl-moving?as-of=" + rfc(t1.Add(time.Minute)), "", "First", "https://example.org/v1", []any{2019.0}, t1},
		{"/urn:example:csl-moving?s=I2C&as-of=" + rfc(t2), "", "Second", "https://example.org/v2", []any{2020.0, 2.0, 29.0}, t2},
		{"/uri-res/I2C?urn:example:csl-moving", t1.Add(time.Minute).Format(http.TimeFormat), "First", "https://example.org/v1", []any{2019.0}, t1},
		{"/urn:example:csl-moving", t2.Add(time.Minute).Format(http.TimeFormat), "Second", "https://example.org/v2", []any{2020.0, 2.0, 29.0}, t2},
	} {
		hd := []string{"Accept", cslType}
		if c.datetime != "" {
			hd = append(hd, "Accept-Datetime", c.datetime)
		}
		r := f.Do("GET", c.target, "", hd...)
		item := cslItem(t, r, cslType)
		wantHeader(t, r, "Memento-Datetime", c.memento.Format(http.TimeFormat))
		if item["title"] != c.title || item["URL"] != c.url || !reflect.DeepEqual(item["issued"], map[string]any{"date-parts": []any{c.issued}}) {
			t.Fatalf("%s (Accept-Datetime %q): %s", c.target, c.datetime, r.Body)
		}
	}
	f.Do("GET", "/urn:example:csl-moving?as-of="+rfc(t1.Add(-time.Second)), "", "Accept", cslType).Want(t, 404).Problem(t)
	f.Do("GET", "/uri-res/I2C?urn:example:csl-moving", "", "Accept", cslType, "Accept-Datetime", T0.Add(-time.Hour).Format(http.TimeFormat)).Want(t, 404)
}
