package httpapi

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/memstore"
)

// TestOpenAPIMatchesRoutes holds the OpenAPI document to the routing
// table both ways: every route is documented, every documented operation
// is a route. (apitest's OpenAPIRoutesAnswer sends each documented
// operation to a running server.)
func TestOpenAPIMatchesRoutes(t *testing.T) {
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
		Comps   struct {
			Schemas    map[string]json.RawMessage `json:"schemas"`
			Responses  map[string]json.RawMessage `json:"responses"`
			Parameters map[string]json.RawMessage `json:"parameters"`
			Headers    map[string]json.RawMessage `json:"headers"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
	h := New(resolver.New(memstore.New(), resolver.Options{}), Options{}).(*handler)
	var fromRoutes, fromDoc []string
	for _, rt := range h.routes() {
		path := rt.pattern
		if path == "/{$}" {
			path = "/"
		}
		fromRoutes = append(fromRoutes, strings.ToLower(rt.method)+" "+path)
	}
	for path, ops := range doc.Paths {
		for m := range ops {
			if m == "parameters" || m == "summary" || m == "description" {
				continue
			}
			fromDoc = append(fromDoc, m+" "+path)
		}
	}
	slices.Sort(fromRoutes)
	slices.Sort(fromDoc)
	for _, r := range fromRoutes {
		if !slices.Contains(fromDoc, r) {
			t.Errorf("route %s is not in openapi.json", r)
		}
	}
	for _, d := range fromDoc {
		if !slices.Contains(fromRoutes, d) {
			t.Errorf("openapi.json documents %s, which is not a route", d)
		}
	}
	// Every $ref points at something defined.
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				switch {
				case strings.HasPrefix(ref, "#/components/schemas/"):
					if doc.Comps.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")] == nil {
						t.Errorf("dangling %s", ref)
					}
				case strings.HasPrefix(ref, "#/components/responses/"):
					if doc.Comps.Responses[strings.TrimPrefix(ref, "#/components/responses/")] == nil {
						t.Errorf("dangling %s", ref)
					}
				case strings.HasPrefix(ref, "#/components/parameters/"):
					if doc.Comps.Parameters[strings.TrimPrefix(ref, "#/components/parameters/")] == nil {
						t.Errorf("dangling %s", ref)
					}
				case strings.HasPrefix(ref, "#/components/headers/"):
					if doc.Comps.Headers[strings.TrimPrefix(ref, "#/components/headers/")] == nil {
						t.Errorf("dangling %s", ref)
					}
				default:
					t.Errorf("unexpected $ref %s", ref)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	var all any
	json.Unmarshal(openAPI, &all)
	walk(all)
	// Every problem type the handler can answer with has a title.
	for slug := range titles {
		if titles[slug] == "" {
			t.Errorf("problem type %s has no title", slug)
		}
	}
}

func TestNegotiate(t *testing.T) {
	for _, c := range []struct {
		accept string
		offers []string
		want   string
	}{
		{"", listOffers, mtURIList},
		{"*/*", listOffers, mtURIList},
		{"application/json", listOffers, mtJSON},
		{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", listOffers, mtHTML},
		{"text/*", listOffers, mtURIList},
		{"text/*, text/html;q=0.9", listOffers, mtURIList},
		{"text/uri-list;q=0.1, application/json;q=0.2", listOffers, mtJSON},
		{"text/uri-list;q=0, */*", listOffers, mtJSON},
		{"image/png", listOffers, ""},
		{"text/uri-list;q=2", listOffers, ""},      // malformed weight: the range is ignored
		{"text/uri-list;q=0.0001", listOffers, ""}, // four decimals
		{"TEXT/URI-LIST", listOffers, mtURIList},
		{"application/json;q=1.000", urcOffers, mtJSON},
		{"garbage, ,;;,", urcOffers, ""},
		{"text/html;level=1;q=0.5, application/json;q=0.4", urcOffers, mtHTML},
	} {
		if got := negotiate(c.accept, c.offers); got != c.want {
			t.Errorf("negotiate(%q) = %q, want %q", c.accept, got, c.want)
		}
	}
}

func TestWithQuery(t *testing.T) {
	for _, c := range []struct{ loc, q, want string }{
		{"https://x/a", "", "https://x/a"},
		{"https://x/a", "l=en", "https://x/a?l=en"},
		{"https://x/a?b=1", "l=en", "https://x/a?b=1&l=en"},
		{"https://x/a?", "l=en", "https://x/a?l=en"},
		{"https://x/a?b=1&", "l=en", "https://x/a?b=1&l=en"},
		{"https://x/a#f", "l=en", "https://x/a?l=en#f"},
		{"https://x/a?b#f?g", "l=en", "https://x/a?b&l=en#f?g"},
	} {
		if got := withQuery(c.loc, c.q); got != c.want {
			t.Errorf("withQuery(%q, %q) = %q, want %q", c.loc, c.q, got, c.want)
		}
	}
}

// TestProblemTypesDocumented: every problem type URI leads to a heading
// of docs/httpapi.md (RFC 9457 §3.1.1: a type URI that is a locator
// should lead to documentation of the type).
func TestProblemTypesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/httpapi.md")
	if err != nil {
		t.Fatal(err)
	}
	for slug := range titles {
		if !strings.Contains(string(doc), "\n#### "+slug+"\n") {
			t.Errorf("docs/httpapi.md has no heading for problem type %s", slug)
		}
	}
}

// TestOpenAPIConditionalFields: the document names the conditional
// fields each names operation reads (conditional.go) and the validators
// its answers carry: If-Modified-Since on the GET only (RFC 9110 §13.1.3
// ignores it on other methods), If-Unmodified-Since on the GET and the
// writes, ETag and Last-Modified on the GET's 200 and on a 412.
func TestOpenAPIConditionalFields(t *testing.T) {
	type param struct {
		Ref  string `json:"$ref"`
		Name string `json:"name"`
		In   string `json:"in"`
	}
	type response struct {
		Ref     string                     `json:"$ref"`
		Headers map[string]json.RawMessage `json:"headers"`
	}
	type operation struct {
		Parameters []param             `json:"parameters"`
		Responses  map[string]response `json:"responses"`
	}
	var doc struct {
		Paths map[string]map[string]operation `json:"paths"`
		Comps struct {
			Parameters map[string]param    `json:"parameters"`
			Responses  map[string]response `json:"responses"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	headerParams := func(op operation) []string {
		var hs []string
		for _, p := range op.Parameters {
			if p.Ref != "" {
				p = doc.Comps.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
			}
			if p.In == "header" {
				hs = append(hs, p.Name)
			}
		}
		return hs
	}
	resp := func(r response) response {
		if r.Ref != "" {
			return doc.Comps.Responses[strings.TrimPrefix(r.Ref, "#/components/responses/")]
		}
		return r
	}
	for _, c := range []struct {
		path, method string
		want, not    []string
	}{
		{"/api/v1/names/{urn}", "get", []string{"If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since"}, nil},
		{"/api/v1/names/{urn}", "put", []string{"If-Match", "If-None-Match", "If-Unmodified-Since"}, []string{"If-Modified-Since"}},
		{"/api/v1/names/{urn}/withdraw", "post", []string{"If-Match", "If-None-Match", "If-Unmodified-Since"}, []string{"If-Modified-Since"}},
	} {
		op := doc.Paths[c.path][c.method]
		hs := headerParams(op)
		for _, h := range c.want {
			if !slices.Contains(hs, h) {
				t.Errorf("%s %s: %s is not documented (header parameters %v)", c.method, c.path, h, hs)
			}
		}
		for _, h := range c.not {
			if slices.Contains(hs, h) {
				t.Errorf("%s %s documents %s, which it ignores", c.method, c.path, h)
			}
		}
		for _, h := range []string{"ETag", "Last-Modified"} {
			if _, ok := resp(op.Responses["412"]).Headers[h]; !ok {
				t.Errorf("%s %s: the 412 does not document %s", c.method, c.path, h)
			}
		}
	}
	get := doc.Paths["/api/v1/names/{urn}"]["get"]
	for _, h := range []string{"ETag", "Last-Modified"} {
		if _, ok := resp(get.Responses["200"]).Headers[h]; !ok {
			t.Errorf("get /api/v1/names/{urn}: the 200 does not document %s", h)
		}
	}
	if _, ok := resp(get.Responses["304"]).Headers["Last-Modified"]; ok {
		t.Errorf("get /api/v1/names/{urn}: the 304 documents Last-Modified, which it does not send")
	}
}
