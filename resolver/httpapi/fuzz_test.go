package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/httpapi"
	"github.com/urikit/urikit/resolver/httpapi/apitest"
	"github.com/urikit/urikit/resolver/memstore"
	"github.com/urikit/urikit/urn"
)

// fuzzEnv is one resolver shared by the iterations of a fuzz target: a
// few authorities and records, served in process (the request bytes are
// parsed by net/http's own reader, as the server would).
type fuzzEnv struct {
	h     http.Handler
	svc   *resolver.Service
	token string            // a maintainer of urn:example: and urn:isbn:
	names map[string]string // key of each registered name or alias → first location
	admin string
	deleg *apitest.Delegator
}

var fuzzNames = map[string]string{
	"urn:example:a":              "https://example.org/a",
	"urn:example:a/b":            "https://example.org/a-b",
	"urn:example:a%2Fb":          "https://example.org/a-pct-b",
	"urn:example:p/../q":         "https://example.org/dotdot",
	"urn:example:x//y":           "https://example.org/double",
	"urn:isbn:9780395363416":     "https://example.org/book?x=1#f",
	"urn:example:%C3%A9t%C3%A9":  "https://example.org/ete",
	"urn:example:q&a=b;c!$'()*+": "https://example.org/subdelims",
}

func newFuzzEnv(tb testing.TB) *fuzzEnv {
	ctx := context.Background()
	svc := resolver.New(memstore.New(), resolver.Options{AdminToken: apitest.AdminToken})
	admin, _ := svc.Authenticate(ctx, apitest.AdminToken)
	a, tok, err := svc.CreateAuthority(ctx, admin, "Fuzz", []string{"urn:example:", "urn:isbn:"})
	if err != nil {
		tb.Fatal(err)
	}
	m, err := svc.Authenticate(ctx, tok)
	if err != nil || m.AuthorityID != a.ID {
		tb.Fatalf("maintainer token: %+v %v", m, err)
	}
	e := &fuzzEnv{svc: svc, token: tok, admin: apitest.AdminToken, names: map[string]string{}, deleg: &apitest.Delegator{}}
	for n, l := range fuzzNames {
		in := resolver.RecordInput{Locations: []resolver.Location{{URL: l, Type: "text/html"}}}
		if n == "urn:example:a" {
			in.Aliases = []string{"urn:example:alias-of-a"}
			// Metadata for the CSL item: variables, and members that
			// are not CSL or not of their shape.
			in.Metadata = []byte(`{"type":"book","title":"A","author":[{"family":"F","given":"G"},{"literal":"L"}],` +
				`"issued":"2019-05","accessed":{"date-parts":[[2024,1,2]]},"volume":3,"editor":"E","shelf":"B12"}`)
		}
		if _, _, err := svc.Put(ctx, m, n, in); err != nil {
			tb.Fatalf("%s: %v", n, err)
		}
		e.names[urn.MustParse(n).Key()] = l
	}
	e.names[urn.MustParse("urn:example:alias-of-a").Key()] = fuzzNames["urn:example:a"]
	if _, _, err := svc.Put(ctx, m, "urn:example:gone", resolver.RecordInput{Locations: []resolver.Location{{URL: "https://example.org/gone"}}}); err != nil {
		tb.Fatal(err)
	}
	if _, err := svc.Withdraw(ctx, m, "urn:example:gone", "test", "https://example.org/new"); err != nil {
		tb.Fatal(err)
	}
	e.deleg.Route("urn:nbn:", "https://resolver.example/")
	e.h = httpapi.New(svc, httpapi.Options{Delegator: e.deleg})
	return e
}

// serve parses raw as an HTTP/1.1 request and serves it; ok is false when
// net/http would not have accepted the request at all.
func (e *fuzzEnv) serve(raw []byte) (*httptest.ResponseRecorder, *http.Request, bool) {
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw)))
	if err != nil {
		return nil, nil, false
	}
	req.RemoteAddr = "127.0.0.1:1"
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, req)
	return w, req, true
}

// checkAnswer holds every answer to the handler's invariants: no 500 (a
// panic would be one: the handler recovers and answers 500), errors as
// problems or pages, redirects with a Location, lists and JSON well-formed.
func checkAnswer(t *testing.T, w *httptest.ResponseRecorder, req *http.Request) {
	t.Helper()
	code := w.Code
	body := w.Body.String()
	ct, _, _ := mime.ParseMediaType(w.Header().Get("Content-Type"))
	if code >= 500 && code != http.StatusLoopDetected {
		t.Fatalf("%s %q: %d %s", req.Method, req.RequestURI, code, body)
	}
	switch {
	case code >= 400:
		if ct != "application/problem+json" && ct != "text/html" {
			t.Fatalf("%s %q: %d with Content-Type %q", req.Method, req.RequestURI, code, ct)
		}
		if ct == "application/problem+json" {
			var p struct {
				Type   string `json:"type"`
				Status int    `json:"status"`
				Title  string `json:"title"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.Status != code || p.Type == "" || p.Title == "" {
				t.Fatalf("%s %q: bad problem %s", req.Method, req.RequestURI, body)
			}
		}
	case code == 301 || code == 302 || code == 303 || code == 307:
		if w.Header().Get("Location") == "" {
			t.Fatalf("%s %q: %d without Location", req.Method, req.RequestURI, code)
		}
	}
	if req.Method == http.MethodHead {
		return
	}
	switch ct {
	case "text/uri-list":
		if !strings.HasPrefix(body, "# ") || !strings.HasSuffix(body, "\r\n") {
			t.Fatalf("%q: uri-list %q", req.RequestURI, body)
		}
		for _, line := range strings.Split(strings.TrimSuffix(body, "\r\n"), "\r\n") {
			if line == "" || strings.ContainsAny(line, "\r\n") {
				t.Fatalf("%q: uri-list line %q in %q", req.RequestURI, line, body)
			}
		}
	case "application/json", "application/problem+json":
		if !json.Valid(w.Body.Bytes()) {
			t.Fatalf("%q: invalid JSON %q", req.RequestURI, body)
		}
	case "application/vnd.citationstyles.csl+json", "application/citeproc+json":
		if err := apitest.CheckCSLItem(w.Body.Bytes()); code != 200 || err != nil {
			t.Fatalf("%q: %d, CSL item %v", req.RequestURI, code, err)
		}
	}
}

// FuzzRequest sends arbitrary requests: methods, raw targets, headers and
// bodies, with no token, the admin's, a maintainer's or a bad one.
func FuzzRequest(f *testing.F) {
	e := newFuzzEnv(f)
	f.Fuzz(func(t *testing.T, method, target, accept, body string, who uint8, extra string) {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: x\r\n", method, target)
		if accept != "" {
			fmt.Fprintf(&b, "Accept: %s\r\n", accept)
		}
		switch who % 4 {
		case 1:
			fmt.Fprintf(&b, "Authorization: Bearer %s\r\n", e.admin)
		case 2:
			fmt.Fprintf(&b, "Authorization: Bearer %s\r\n", e.token)
		case 3:
			b.WriteString("Authorization: Bearer urikit_wrong\r\n")
		}
		if extra != "" {
			fmt.Fprintf(&b, "%s\r\n", extra)
		}
		if body != "" {
			fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(body), body)
		} else {
			b.WriteString("\r\n")
		}
		w, req, ok := e.serve([]byte(b.String()))
		if !ok {
			return
		}
		checkAnswer(t, w, req)
	})
}

// FuzzResolve: a name resolves the same through /uri-res/ and the path
// style, and to what its equivalence key says: the record registered
// under an equivalent name, or nothing.
func FuzzResolve(f *testing.F) {
	e := newFuzzEnv(f)
	f.Fuzz(func(t *testing.T, name string) {
		if !strings.HasPrefix(strings.ToLower(name), "urn:") || strings.ContainsAny(name, " \t\r\n#") {
			return
		}
		res := func(target string) (*httptest.ResponseRecorder, bool) {
			w, req, ok := e.serve([]byte("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n"))
			if ok {
				checkAnswer(t, w, req)
			}
			return w, ok
		}
		a, okA := res("/uri-res/I2L?" + name)
		b, okB := res("/" + name)
		if !okA || !okB {
			return
		}
		if bare, q, found := strings.Cut(name, "?"); found && (q == "" || q == "?" || q == "info") {
			// N2T's inflections: the path style answers as I2C.
			if c, ok := res("/uri-res/I2C?" + bare); ok && c.Code != b.Code {
				t.Fatalf("%q: /uri-res/I2C answers %d, the path style %d", name, c.Code, b.Code)
			}
			return
		}
		req, perr := urn.ParseRequest(name)
		if perr == nil {
			if _, hasS := req.Directives.Get("s"); hasS {
				return // the path style takes the service from s=; /uri-res/ from its path
			}
		}
		if a.Code != b.Code || a.Header().Get("Location") != b.Header().Get("Location") {
			t.Fatalf("%q: /uri-res/I2L answers %d %q, the path style %d %q", name, a.Code, a.Header().Get("Location"), b.Code, b.Header().Get("Location"))
		}
		if perr != nil {
			if a.Code != 400 {
				t.Fatalf("%q does not parse (%v) but answers %d", name, perr, a.Code)
			}
			return
		}
		if _, hasAsOf := req.Directives.Get("as-of"); hasAsOf {
			return
		}
		if _, hasHops := req.Directives.Get("hops"); hasHops {
			return
		}
		want, known := e.names[req.URN.Key()]
		switch {
		case known:
			if q, ok := req.URN.QComponent(); ok && q != "" {
				return // the location carries the q-component: checked in the suite
			}
			if a.Code != 303 || a.Header().Get("Location") != want {
				t.Fatalf("%q (key %q) answers %d %q, want 303 %q", name, req.URN.Key(), a.Code, a.Header().Get("Location"), want)
			}
		case a.Code == 303 && a.Header().Get("Urikit-Referral") == "":
			t.Fatalf("%q (key %q) resolves to %q but no such name was registered", name, req.URN.Key(), a.Header().Get("Location"))
		case a.Code == 303 && !strings.EqualFold(req.URN.NID(), "nbn"):
			t.Fatalf("%q delegated to %q, but only urn:nbn: has a rule", name, a.Header().Get("Location"))
		}
	})
}

// FuzzPut sends arbitrary PUT bodies: never a 500, and whatever is
// accepted reads back the same through the API and N2Ls.
func FuzzPut(f *testing.F) {
	e := newFuzzEnv(f)
	f.Fuzz(func(t *testing.T, name, body string) {
		target := "/api/v1/names/" + apitest.Segment(name)
		raw := fmt.Sprintf("PUT %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", target, e.token, len(body), body)
		w, req, ok := e.serve([]byte(raw))
		if !ok {
			return
		}
		checkAnswer(t, w, req)
		if w.Code != 200 && w.Code != 201 {
			return
		}
		var put resolver.Record
		if err := json.Unmarshal(w.Body.Bytes(), &put); err != nil {
			t.Fatal(err)
		}
		g, greq, _ := e.serve([]byte("GET /api/v1/names/" + apitest.Segment(put.URN) + " HTTP/1.1\r\nHost: x\r\n\r\n"))
		checkAnswer(t, g, greq)
		if g.Code != 200 || g.Body.String() != w.Body.String() {
			t.Fatalf("PUT %q answered %s; GET answers %d %s", name, w.Body.String(), g.Code, g.Body.String())
		}
		l, lreq, ok := e.serve([]byte("GET /uri-res/N2Ls?" + put.URN + " HTTP/1.1\r\nHost: x\r\n\r\n"))
		if !ok {
			t.Fatalf("N2Ls of %q is not a valid request", put.URN)
		}
		checkAnswer(t, l, lreq)
		if put.Status == resolver.Active {
			want := "# " + put.URN + "\r\n"
			for _, loc := range put.Locations {
				want += loc.URL + "\r\n"
			}
			if l.Code != 200 || l.Body.String() != want {
				t.Fatalf("N2Ls of %q: %d %q, want %q", put.URN, l.Code, l.Body.String(), want)
			}
		}
	})
}
