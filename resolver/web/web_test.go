package web

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/memstore"
	"github.com/urikit/urikit/resolver/storetest"
	"github.com/urikit/urikit/urn"
)

// server serves the page alone (no JSON API) on loopback.
func server(t *testing.T) (*httptest.Server, *fixture) {
	t.Helper()
	fx := newFixture(t)
	srv := httptest.NewServer(New(fx.svc, Options{}))
	t.Cleanup(srv.Close)
	return srv, fx
}

// get fetches target from srv as sent, without redirects, and returns the
// answer with its body.
func get(t *testing.T, srv *httptest.Server, target string) (*http.Response, string) {
	t.Helper()
	return do(t, srv, "GET", target)
}

func do(t *testing.T, srv *httptest.Server, method, target string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Opaque keeps the target exactly as written: the client neither
	// cleans nor re-encodes it.
	req.URL.Opaque = target
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func wantStatus(t *testing.T, resp *http.Response, body string, code int) {
	t.Helper()
	if resp.StatusCode != code {
		t.Fatalf("%s: status %d, want %d\n%s", resp.Request.URL.Opaque, resp.StatusCode, code, body)
	}
}

func wantIn(t *testing.T, body string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(body, p) {
			t.Errorf("page lacks %q", p)
		}
	}
}

// text strips tags and collapses white space, for checks of what a reader
// sees.
func text(body string) string {
	body = regexp.MustCompile(`(?s)<[^>]*>`).ReplaceAllString(body, " ")
	body = html.UnescapeString(body)
	return strings.Join(strings.Fields(body), " ")
}

func TestHome(t *testing.T) {
	srv, _ := server(t)
	resp, body := get(t, srv, "/")
	wantStatus(t, resp, body, 200)
	if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	for _, d := range []string{"script-src 'self'", "default-src 'none'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, d) {
			t.Errorf("CSP %q lacks %q", csp, d)
		}
	}
	wantIn(t, body, `<form class="search big" action="/" method="get"`, `name="urn"`, `<label for="home-urn">`, `<h1 id="home-h">Resolve a name</h1>`)
	// Nothing from elsewhere: every src and href of the page's own assets
	// is a path on this origin, and there is no inline script or style.
	for _, m := range regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(body, -1) {
		if strings.HasPrefix(m[0], "src") && !strings.HasPrefix(m[1], "/") {
			t.Errorf("external resource %q", m[1])
		}
	}
	if strings.Count(body, "<script") != 1 || !strings.Contains(body, `<script src="/static/app.js?v=`) {
		t.Errorf("want exactly the one external script")
	}
	if strings.Contains(body, "<style") || strings.Contains(body, " style=") || strings.Contains(body, " on") && regexp.MustCompile(` on[a-z]+=`).MatchString(body) {
		t.Errorf("inline style or event handler")
	}
	// The token form is hidden until the script shows it, so that without
	// a script nobody types a token into a form that would GET it.
	wantIn(t, body, `<section id="maintain" class="card" aria-labelledby="maint-h" data-mode="new" hidden>`)
}

func TestSearchFindsEquivalentName(t *testing.T) {
	srv, _ := server(t)
	// The form's GET, with the name as a browser encodes it.
	resp, body := get(t, srv, "/?urn="+url.QueryEscape(" URN:ISBN:0-395-36341-1\n"))
	wantStatus(t, resp, body, 200)
	tx := text(body)
	wantIn(t, tx,
		"urn:isbn:9780395363416", "Active", "3 locations", "redirect 302 Found",
		"1 https://books.example.org/lotr text/html Catalogue entry",
		"2 https://mirror.example.net/books/9780395363416.pdf application/pdf Full text (PDF)",
		"3 ftp://ftp.example.net/pub/lotr.epub application/epub+zip —",
		"Aliases urn:example:lotr",
		`"title": "The Lord of the Rings"`,
		"Namespace identifier (NID) ISBN formal", "Namespace-specific string (NSS) 0-395-36341-1",
		"Canonical form (RFC 8141 §3.1) urn:isbn:0-395-36341-1",
		"Equivalence key urn:isbn:9780395363416 after the namespace's own equivalence rules",
		"RFC 3187",
	)
	wantIn(t, tx, "You asked for URN:ISBN:0-395-36341-1 , which is equivalent to the registered name urn:isbn:9780395363416 (the equivalence rules of RFC 3187).")
	// The search box keeps the name as entered (trimmed).
	wantIn(t, body, `value="URN:ISBN:0-395-36341-1"`)
	// Locations in order.
	a := strings.Index(body, "books.example.org/lotr")
	b := strings.Index(body, "mirror.example.net")
	c := strings.Index(body, "ftp.example.net")
	if !(a < b && b < c) {
		t.Errorf("locations out of order: %d %d %d", a, b, c)
	}
	// The history: two name entries, each with time, action, actor, hash.
	hist := body[strings.Index(body, `id="hist-h"`):]
	hist = hist[:strings.Index(hist, "</table>")]
	rows := regexp.MustCompile(`(?s)<tr><td class="num">(\d+)</td><td class="nowrap"><time datetime="([^"]+)">([^<]+)</time></td><td><strong>([a-z ]+)</strong>.*?<code>([^<]+)</code></td><td class="nowrap"[^>]*><code class="hash" title="SHA-256 ([0-9a-f]{64})">([0-9a-f]{12})</code>`).FindAllStringSubmatch(hist, -1)
	if len(rows) != 2 {
		t.Fatalf("history has %d rows, want 2:\n%s", len(rows), hist)
	}
	if rows[0][4] != "registered" || rows[1][4] != "changed" {
		t.Errorf("actions %q %q", rows[0][4], rows[1][4])
	}
	for _, r := range rows {
		if !strings.HasPrefix(r[6], r[7]) || !strings.HasPrefix(r[5], "token:") || !strings.HasSuffix(r[3], "UTC") {
			t.Errorf("history row %q", r[1:])
		}
	}
}

func TestNamePagePathStyle(t *testing.T) {
	srv, _ := server(t)
	resp, body := get(t, srv, "/names/urn:isbn:9780395363416")
	wantStatus(t, resp, body, 200)
	wantIn(t, text(body), "Registered name urn:isbn:9780395363416", "Canonical form (RFC 8141 §3.1) urn:isbn:9780395363416 as written")
	// The machine links carry the name as written in the query and as one
	// encoded segment in the API path.
	wantIn(t, body, `href="/uri-res/N2C?urn:isbn:9780395363416"`, `href="/api/v1/names/urn:isbn:9780395363416"`)
	// The edit form is for the record's own name.
	wantIn(t, body, `data-mode="edit" data-urn="urn:isbn:9780395363416"`)
}

func TestAliasPage(t *testing.T) {
	srv, _ := server(t)
	resp, body := get(t, srv, "/names/URN:EXAMPLE:lotr")
	wantStatus(t, resp, body, 200)
	wantIn(t, text(body), "You asked for URN:EXAMPLE:lotr , an alias of urn:isbn:9780395363416 : it resolves exactly like that name.")
	wantIn(t, body, `href="/names/urn:isbn:9780395363416"`)
}

func TestWithdrawnPage(t *testing.T) {
	srv, _ := server(t)
	resp, body := get(t, srv, "/names/urn:example:old-report")
	wantStatus(t, resp, body, 410)
	if l := resp.Header.Get("Link"); l != `<urn:isbn:9780395363416>; rel="successor-version"` {
		t.Errorf("Link %q", l)
	}
	wantIn(t, text(body), "410 · withdrawn name", "Withdrawn", "This name was withdrawn",
		"Reason superseded by the revised edition", "Successor urn:isbn:9780395363416")
	wantIn(t, body, `<a rel="successor-version" href="/names/urn:isbn:9780395363416">`)
	// Its maintainers may restate the notice, starting from the one it
	// has; nothing else.
	wantIn(t, body, `data-mode="notice" data-urn="urn:example:old-report"`, `id="nt-reason" type="text" value="superseded by the revised edition"`,
		`value="urn:isbn:9780395363416"`)
	if strings.Contains(body, `id="editor"`) || strings.Contains(body, `id="withdraw"`) {
		t.Error("a withdrawn name offers the editor or a withdrawal")
	}
}

func TestUnknownName(t *testing.T) {
	srv, _ := server(t)
	resp, body := get(t, srv, "/names/urn:nbn:de:101-12345?=lang=de")
	wantStatus(t, resp, body, 404)
	wantIn(t, text(body), "404 · not registered here", "Not registered", "No record for this name here",
		"Namespace identifier (NID) nbn formal", "q-component (?=) lang=de", "r-component (?+) none")
	wantIn(t, body, `data-mode="register" data-urn="urn:nbn:de:101-12345"`)

	// A name under a delegation rule says where it goes.
	resp, body = get(t, srv, "/names/urn:nbn:ch:bel-9039")
	wantStatus(t, resp, body, 404)
	wantIn(t, text(body), "Names under urn:nbn:ch: are delegated to https://nbn.example.ch/resolve/")
}

// TestDroppedAliasPage: the page of an alias a record dropped says it is
// reserved, not where a delegation rule for its prefix would send it: the
// resolver's services never hand it on.
func TestDroppedAliasPage(t *testing.T) {
	srv, fx := server(t)
	ctx := context.Background()
	admin, err := fx.svc.Authenticate(ctx, adminToken)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fx.svc.AddRule(ctx, admin, "urn:example:gone-", "https://elsewhere.example/"); err != nil {
		t.Fatal(err)
	}
	m, err := fx.svc.Authenticate(ctx, fx.token)
	if err != nil {
		t.Fatal(err)
	}
	in := resolver.RecordInput{Locations: []resolver.Location{{URL: "https://example.org/x"}}, Aliases: []string{"urn:example:gone-1"}}
	for range 2 {
		if _, _, err := fx.svc.Put(ctx, m, "urn:example:x", in); err != nil {
			t.Fatal(err)
		}
		in.Aliases = nil
	}
	resp, body := get(t, srv, "/names/urn:example:gone-1")
	wantStatus(t, resp, body, 404)
	wantIn(t, text(body), "This name was an alias of a record here, which has dropped it")
	if strings.Contains(body, "elsewhere.example") {
		t.Errorf("the page of a dropped alias names the rule's resolver:\n%s", text(body))
	}
	resp, body = get(t, srv, "/names/urn:example:gone-2")
	wantStatus(t, resp, body, 404)
	wantIn(t, text(body), "Names under urn:example:gone- are delegated to https://elsewhere.example/")
}

func TestRComponent(t *testing.T) {
	srv, _ := server(t)
	resp, body := get(t, srv, "/names/urn:isbn:9780395363416?+s=I2Ls")
	wantStatus(t, resp, body, 200)
	wantIn(t, text(body), "r-component (?+) s=I2Ls directives: s=I2Ls ; resolution service I2Ls")
	// Any other query is not part of the name.
	resp, body = get(t, srv, "/names/urn:isbn:9780395363416?utm=x")
	wantStatus(t, resp, body, 200)
	if strings.Contains(body, "As asked") {
		t.Error("a plain query was taken into the name")
	}
}

func TestMalformed(t *testing.T) {
	srv, _ := server(t)
	for _, tc := range []struct {
		target, before, at string
		offset             int
	}{
		{"/?urn=" + url.QueryEscape("urn:example:a b"), "urn:example:a", " ", 13},
		{"/names/urn:exa_mple:x", "urn:exa", "_", 7},
		{"/?urn=" + url.QueryEscape("urn:x:"), "urn:x", ":", 5},
		{"/?urn=" + url.QueryEscape("urn:example:"), "urn:example:", "", 12},
		{"/?urn=" + url.QueryEscape("urn:exämple:x"), "urn:ex", "ä", 6},
		{"/?urn=" + url.QueryEscape("urn:example:\x01<b>"), "urn:example:", `\x01`, 12},
	} {
		resp, body := get(t, srv, tc.target)
		wantStatus(t, resp, body, 400)
		m := regexp.MustCompile(`(?s)<pre class="caret"[^>]*><code>(.*?)<mark>(.*?)</mark>(.*?)</code><code class="caret-line" aria-hidden="true">( *)\^</code>`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("%s: no caret display\n%s", tc.target, body)
		}
		if m[1] != tc.before || (tc.at != "" && m[2] != tc.at) {
			t.Errorf("%s: marked %q|%q", tc.target, m[1], m[2])
		}
		if want := len([]rune(m[1])); len(m[4]) != want {
			t.Errorf("%s: caret at column %d, want %d", tc.target, len(m[4]), want)
		}
		wantIn(t, text(body), fmt.Sprintf("At byte %d of", tc.offset))
		if strings.Count(body, "<b>") != 0 {
			t.Errorf("%s: input not escaped", tc.target)
		}
	}
}

// TestRawPath: the bytes of the name after /names/ are the name, with no
// cleaning and no decoding.
func TestRawPath(t *testing.T) {
	srv, _ := server(t)
	resp, body := get(t, srv, "/names/urn:example:a//b/../c")
	wantStatus(t, resp, body, 200)
	wantIn(t, body, "https://example.org/dots")
	resp, body = get(t, srv, "/names/urn:example:x%2Fy")
	wantStatus(t, resp, body, 200)
	wantIn(t, body, "https://example.org/encoded-slash")
	resp, body = get(t, srv, "/names/urn:example:x/y")
	wantStatus(t, resp, body, 200)
	wantIn(t, body, "https://example.org/raw-slash")
	// %2f is the same name as %2F (RFC 8141 §3.1: hex case).
	resp, body = get(t, srv, "/names/urn:example:x%2fy")
	wantStatus(t, resp, body, 200)
	wantIn(t, body, "https://example.org/encoded-slash")
	wantIn(t, text(body), "You asked for urn:example:x%2fy , which is equivalent to the registered name urn:example:x%2Fy (RFC 8141 §3.1 lexical equivalence).")
	// A link to a name with a dot segment goes through the form's query,
	// since a browser would remove the segment from a path.
	_, body = get(t, srv, "/names/urn:example:a//b/../c")
	wantIn(t, body, `data-page="/?urn=urn%3Aexample%3Aa%2F%2Fb%2F..%2Fc"`)
	if got := pageURL("urn:example:a//b/../c"); got != "/?urn=urn%3Aexample%3Aa%2F%2Fb%2F..%2Fc" {
		t.Errorf("pageURL %q", got)
	}
	if got := pageURL("urn:example:x/%2E/y"); !strings.HasPrefix(got, "/?urn=") {
		t.Errorf("pageURL %q", got)
	}
	if got := pageURL("urn:example:x%2Fy"); got != "/names/urn:example:x%2Fy" {
		t.Errorf("pageURL %q", got)
	}
}

// TestAbsoluteForm sends a request target in absolute form (RFC 9112
// §3.2.2) over a raw connection.
func TestAbsoluteForm(t *testing.T) {
	srv, _ := server(t)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET http://%s/names/urn:example:a//b/../c HTTP/1.1\r\nHost: %[1]s\r\nConnection: close\r\n\r\n", srv.Listener.Addr())
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(b), "https://example.org/dots") {
		t.Fatalf("status %d\n%s", resp.StatusCode, b)
	}
}

func TestEscaping(t *testing.T) {
	srv, _ := server(t)
	resp, body := get(t, srv, "/names/urn:example:hostile")
	wantStatus(t, resp, body, 200)
	if strings.Count(body, "<script") != 1 {
		t.Error("a script element came from the data")
	}
	if strings.Contains(body, `href="javascript:`) {
		t.Error("javascript: link")
	}
	if strings.Contains(body, "#ZgotmplZ") {
		t.Error("a location made into a link that html/template had to blank")
	}
	wantIn(t, body, `<code>javascript:alert(1)</code>`, `&lt;script&gt;alert(&#34;label&#34;)&lt;/script&gt;`, `&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;`,
		`href="https://example.org/?q=%27onmouseover=alert%282%29"`)
}

func TestMethodsAndLimits(t *testing.T) {
	srv, _ := server(t)
	resp, body := do(t, srv, "POST", "/names/urn:isbn:9780395363416")
	wantStatus(t, resp, body, 405)
	if resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("Allow %q", resp.Header.Get("Allow"))
	}
	resp, body = do(t, srv, "HEAD", "/names/urn:example:old-report")
	wantStatus(t, resp, body, 410)
	if body != "" {
		t.Error("HEAD with a body")
	}
	resp, body = get(t, srv, "/names/urn:example:"+strings.Repeat("a", DefaultMaxTarget))
	wantStatus(t, resp, body, 414)
	resp, body = get(t, srv, "/nowhere")
	wantStatus(t, resp, body, 404)
	resp, body = get(t, srv, "/names/")
	wantStatus(t, resp, body, 303)
	resp, body = get(t, srv, "/?urn=%zz")
	wantStatus(t, resp, body, 400)
	resp, body = get(t, srv, "/?q=%zz")
	wantStatus(t, resp, body, 200)
}

func TestStatic(t *testing.T) {
	srv, _ := server(t)
	_, home := get(t, srv, "/")
	css := regexp.MustCompile(`href="(/static/app\.css\?v=[0-9a-f]+)"`).FindStringSubmatch(home)
	if css == nil {
		t.Fatal("no stylesheet link")
	}
	resp, body := get(t, srv, css[1])
	wantStatus(t, resp, body, 200)
	if resp.Header.Get("Content-Type") != "text/css; charset=utf-8" || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("headers %v", resp.Header)
	}
	resp, body = get(t, srv, "/static/app.js")
	wantStatus(t, resp, body, 200)
	if resp.Header.Get("Cache-Control") != "no-cache" || !strings.Contains(body, "sessionStorage") {
		t.Errorf("app.js: %v", resp.Header)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/static/app.js", nil)
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != 304 {
		t.Errorf("revalidation: %d", r2.StatusCode)
	}
	resp, body = get(t, srv, "/static/icon.svg")
	wantStatus(t, resp, body, 200)
	resp, body = get(t, srv, "/static/../web.go")
	wantStatus(t, resp, body, 404)
}

func TestPathSegment(t *testing.T) {
	for in, want := range map[string]string{
		"urn:example:a/b":      "urn:example:a%2Fb",
		"urn:example:a%2Fb":    "urn:example:a%252Fb",
		"urn:example:a?+s=I2L": "urn:example:a%3F+s=I2L",
		"urn:example:a#f":      "urn:example:a%23f",
		"urn:ex:é":             "urn:ex:%C3%A9",
	} {
		if got := pathSegment(in); got != want {
			t.Errorf("pathSegment(%q) = %q, want %q", in, got, want)
		}
		if back, err := url.PathUnescape(pathSegment(in)); err != nil || back != in {
			t.Errorf("%q does not decode back: %q %v", in, back, err)
		}
	}
}

func TestHomeHasOneSearchForm(t *testing.T) {
	srv, _ := server(t)
	_, body := get(t, srv, "/")
	if n := strings.Count(body, `role="search"`); n != 1 {
		t.Errorf("%d search forms on the home page", n)
	}
	_, body = get(t, srv, "/names/urn:isbn:9780395363416")
	if n := strings.Count(body, `role="search"`); n != 1 {
		t.Errorf("%d search forms on a name page", n)
	}
}

// brokenStore fails every lookup with err; wait makes it block until the
// request's deadline first.
type brokenStore struct {
	resolver.Store
	err  error
	wait bool
}

func (b brokenStore) RecordByKey(ctx context.Context, key string) (resolver.Record, resolver.Role, error) {
	if b.wait {
		<-ctx.Done()
		return resolver.Record{}, "", ctx.Err()
	}
	return resolver.Record{}, "", b.err
}

func TestStoreFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		store brokenStore
		code  int
	}{
		{"unavailable", brokenStore{err: fmt.Errorf("%w: dial tcp db.internal.example:5432: connection refused", resolver.ErrUnavailable)}, 503},
		{"newer schema", brokenStore{err: &resolver.NewerSchemaError{Database: 9, Build: 4}}, 503},
		{"timeout", brokenStore{wait: true}, 503},
		{"broken", brokenStore{err: errors.New("disk on fire")}, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.store.Store = memstore.New()
			var logged strings.Builder
			h := New(resolver.New(tc.store, resolver.Options{CacheSize: -1}), Options{
				Timeout: 50 * time.Millisecond,
				Logger:  slog.New(slog.NewTextHandler(&logged, nil)),
			})
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", "/names/urn:example:x", nil))
			if w.Code != tc.code {
				t.Fatalf("status %d, want %d\n%s", w.Code, tc.code, w.Body)
			}
			if strings.Contains(w.Body.String(), "disk on fire") {
				t.Error("the store's error reached the page")
			}
			if (tc.code == 500) != strings.Contains(logged.String(), "disk on fire") {
				t.Errorf("log: %q", logged.String())
			}
			// An outage: the page names no host, and says it timed out
			// only when it did; the log has what the store said.
			body := w.Body.String()
			switch tc.name {
			case "unavailable":
				if strings.Contains(body, "db.internal.example") || strings.Contains(body, "did not answer in time") {
					t.Errorf("page: %s", body)
				}
				if !strings.Contains(logged.String(), "db.internal.example:5432: connection refused") {
					t.Errorf("the outage's log line does not say what the store said: %q", logged.String())
				}
			case "newer schema":
				if !strings.Contains(body, "version 9, newer than this urikit&#39;s 4: upgrade urikit") {
					t.Errorf("the page does not say to upgrade: %s", body)
				}
			case "timeout":
				if !strings.Contains(body, "did not answer in time") {
					t.Errorf("page: %s", body)
				}
			}
		})
	}
}

// TestLinksByScheme: a location or successor whose scheme only navigates
// (ftp here) is a link, as an http one is; html/template alone would have
// blanked it to "#ZgotmplZ". A successor that is a name links to its page.
func TestLinksByScheme(t *testing.T) {
	srv, fx := server(t)
	_, body := get(t, srv, "/names/urn:isbn:9780395363416")
	wantIn(t, body, `<a href="ftp://ftp.example.net/pub/lotr.epub" rel="nofollow noreferrer">`)
	ctx := context.Background()
	m, err := fx.svc.Authenticate(ctx, fx.token)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := fx.svc.Put(ctx, m, "urn:example:moved", resolver.RecordInput{Locations: []resolver.Location{{URL: "https://example.org/moved"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.svc.Withdraw(ctx, m, "urn:example:moved", "moved to the archive", "ftp://archive.example.org/moved"); err != nil {
		t.Fatal(err)
	}
	_, body = get(t, srv, "/names/urn:example:moved")
	wantIn(t, body, `<a rel="successor-version" href="ftp://archive.example.org/moved"><code>ftp://archive.example.org/moved</code></a>`)
	if strings.Contains(body, "#ZgotmplZ") {
		t.Error("a link blanked by html/template")
	}
}

// TestNamePageLongHistory: the page of a name changed many times shows the
// newest pageHistory entries of its history, oldest first, with a link to
// the older ones, which link back to the newest; the time of the
// withdrawal and the restated notices read as with a short history.
func TestNamePageLongHistory(t *testing.T) {
	srv, fx := server(t)
	ctx := context.Background()
	m, err := fx.svc.Authenticate(ctx, fx.token)
	if err != nil {
		t.Fatal(err)
	}
	const name = "urn:example:often"
	for i := range 20 {
		in := resolver.RecordInput{Locations: []resolver.Location{{URL: fmt.Sprintf("https://example.org/v%d", i)}}}
		if _, _, err := fx.svc.Put(ctx, m, name, in); err != nil {
			t.Fatal(err)
		}
	}
	withdrawn, err := fx.svc.Withdraw(ctx, m, name, "gone", "")
	if err != nil {
		t.Fatal(err)
	}
	// The notice restated more often than a page shows: the withdrawal
	// itself is on the older page.
	for i := range pageHistory + 10 {
		if _, err := fx.svc.Withdraw(ctx, m, name, fmt.Sprintf("gone, take %d", i), ""); err != nil {
			t.Fatal(err)
		}
	}
	rowRE := regexp.MustCompile(`<tr><td class="num">(\d+)</td>.*?<strong>([a-z ]+)</strong>`)
	rows := func(body string) [][]string {
		hist := body[strings.Index(body, `id="hist-h"`):]
		hist = hist[:strings.Index(hist, "</table>")]
		return rowRE.FindAllStringSubmatch(hist, -1)
	}
	hrefRE := func(label string) *regexp.Regexp {
		return regexp.MustCompile(`<a href="([^"]+)">` + label + `</a>`)
	}
	resp, body := get(t, srv, "/names/"+name)
	if resp.StatusCode != http.StatusGone {
		t.Fatalf("status %d", resp.StatusCode)
	}
	newest := rows(body)
	if len(newest) != pageHistory {
		t.Fatalf("%d rows, want %d", len(newest), pageHistory)
	}
	for _, r := range newest {
		if r[2] != "withdrawal notice restated" {
			t.Fatalf("row %q: every one of the newest restates the notice", r[1:])
		}
	}
	wantIn(t, body, `Withdrawn <time datetime="`+withdrawn.Updated.UTC().Format(time.RFC3339))
	if hrefRE("Newest entries").MatchString(body) {
		t.Errorf("the newest page links to the newest")
	}
	older := hrefRE("Older entries").FindStringSubmatch(body)
	if older == nil || older[1] != "/names/"+name+"?before="+newest[0][1] {
		t.Fatalf("older link %q", older)
	}
	resp, body = get(t, srv, html.UnescapeString(older[1]))
	if resp.StatusCode != http.StatusGone {
		t.Fatalf("older page: status %d", resp.StatusCode)
	}
	rest := rows(body)
	// 20 changes (the first registered it), the withdrawal and the ten
	// restatements before the newest page.
	if len(rest) != 31 || rest[0][2] != "registered" || rest[20][2] != "withdrawn" || rest[21][2] != "withdrawal notice restated" {
		t.Fatalf("older page: %d rows %q", len(rest), rest)
	}
	last, _ := strconv.Atoi(rest[len(rest)-1][1])
	if first, _ := strconv.Atoi(newest[0][1]); last >= first {
		t.Fatalf("the older page ends at %d, the newest starts at %d", last, first)
	}
	if hrefRE("Older entries").MatchString(body) {
		t.Errorf("the oldest page links to older entries")
	}
	if l := hrefRE("Newest entries").FindStringSubmatch(body); l == nil || l[1] != "/names/"+name {
		t.Errorf("newest link %q", l)
	}
	wantIn(t, body, `Withdrawn <time datetime="`+withdrawn.Updated.UTC().Format(time.RFC3339))
	// The search form's query takes before= too; a bad one is 400.
	if _, body := get(t, srv, "/?urn="+name+"&before="+newest[0][1]); len(rows(body)) != 31 {
		t.Errorf("/?urn=…&before=: %d rows", len(rows(body)))
	}
	for _, q := range []string{"before=0", "before=x", "before=-3", "before=1&before=2", "before=end&before="} {
		if resp, _ := get(t, srv, "/names/"+name+"?"+q); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("?%s: status %d", q, resp.StatusCode)
		}
	}
	// As in the history API, before=end is the newest page, and an empty
	// value none.
	_, newestPage := get(t, srv, "/names/"+name)
	for _, q := range []string{"before=end", "before="} {
		if resp, body := get(t, srv, "/names/"+name+"?"+q); resp.StatusCode != http.StatusGone {
			t.Errorf("?%s: status %d", q, resp.StatusCode)
		} else if fmt.Sprint(rows(body)) != fmt.Sprint(rows(newestPage)) {
			t.Errorf("?%s: not the newest page", q)
		}
	}
}

// TestPredecessorsOnPage: the page of a name lists the withdrawn records
// that name it as their successor, as links to their pages and in Link
// headers (relation predecessor-version, RFC 5829); the entity-tag the
// page's writes send in If-Match is that of the record shown with them,
// which a conditional write accepts.
func TestPredecessorsOnPage(t *testing.T) {
	srv, fx := server(t)
	resp, body := get(t, srv, "/names/urn:isbn:9780395363416")
	wantStatus(t, resp, body, 200)
	if l := resp.Header.Values("Link"); !slices.Equal(l, []string{`<urn:example:old-report>; rel="predecessor-version"`}) {
		t.Errorf("Link %q", l)
	}
	wantIn(t, text(body), "Replaces urn:example:old-report")
	wantIn(t, body, `<a rel="predecessor-version" href="/names/urn:example:old-report"><code>urn:example:old-report</code></a>`)
	// A name that replaces none shows no such line.
	resp, body = get(t, srv, "/names/urn:example:old-report")
	wantStatus(t, resp, body, 410)
	if strings.Contains(body, "Replaces") || strings.Contains(body, "predecessor-version") {
		t.Errorf("a page without predecessors shows some: %v", resp.Header.Values("Link"))
	}

	_, body = get(t, srv, "/names/urn:isbn:9780395363416")
	m := regexp.MustCompile(`data-etag="([^"]*)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no data-etag on the page")
	}
	tag := html.UnescapeString(m[1])
	ctx := context.Background()
	p, err := fx.svc.Authenticate(ctx, fx.token)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := fx.svc.Lookup(ctx, urn.MustParse("urn:isbn:9780395363416"))
	if err != nil {
		t.Fatal(err)
	}
	in := resolver.RecordInput{Aliases: rec.Aliases, Locations: rec.Locations[:1], Metadata: rec.Metadata, Redirect: rec.Redirect}
	if _, _, err := fx.svc.Put(ctx, p, rec.URN, in, resolver.Precondition{IfMatch: []string{tag}}); err != nil {
		t.Fatalf("a write with the page's entity-tag: %v", err)
	}

	// More than the page shows: it says so, and links to the listing of
	// them all.
	for i := range resolver.MaxPredecessors {
		name := fmt.Sprintf("urn:example:draft-%03d", i)
		if _, _, err := fx.svc.Put(ctx, p, name, resolver.RecordInput{Locations: []resolver.Location{{URL: "https://example.org/d"}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := fx.svc.Withdraw(ctx, p, name, "", "urn:isbn:9780395363416"); err != nil {
			t.Fatal(err)
		}
	}
	_, body = get(t, srv, "/names/urn:isbn:9780395363416")
	wantIn(t, body, `and more: the first 100 are shown (<a href="/api/v1/names/urn:isbn:9780395363416/predecessors">all of them, as JSON</a>)`)
}

// TestNamePageOfDeepMetadata: a record stored before writes limited the
// depth of metadata may hold it nested thousands deep; its page indents it
// to prettyjson.MaxDepth and no further, so that the page stays a small
// multiple of the metadata (json.Indent made the security review's 16 KB,
// 8185 levels, into 134 MB a request).
func TestNamePageOfDeepMetadata(t *testing.T) {
	st := memstore.New()
	fx := newFixtureOn(t, st)
	as, err := st.Authorities(context.Background())
	if err != nil || len(as) == 0 {
		t.Fatalf("authorities: %v %v", as, err)
	}
	const n = 8185
	md := `{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`
	storetest.InsertLegacy(t, st, resolver.Record{URN: "urn:example:deep", AuthorityID: as[0].ID,
		Locations: []resolver.Location{{URL: "https://x.example/"}}, Metadata: []byte(md)})
	storetest.InsertLegacy(t, st, resolver.Record{URN: "urn:example:dup", AuthorityID: as[0].ID,
		Locations: []resolver.Location{{URL: "https://x.example/"}}, Metadata: []byte(`{"a":1,"a":2}`)})
	srv := httptest.NewServer(New(fx.svc, Options{}))
	t.Cleanup(srv.Close)
	resp, body := get(t, srv, "/names/urn:example:deep")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if len(body) > 8*len(md)+64<<10 {
		t.Fatalf("the page is %d bytes for %d of metadata", len(body), len(md))
	}
	// Indented to the 32nd level, the rest compact on its line.
	if !strings.Contains(body, "\n"+strings.Repeat("  ", 32)+"[[[[") {
		t.Fatalf("the metadata is not indented to its 32nd level:\n%.3000s", body)
	}
	// Another record's duplicate member names are shown as stored.
	resp, body = get(t, srv, "/names/urn:example:dup")
	if resp.StatusCode != 200 || !strings.Contains(body, html.EscapeString(`"a": 1,`+"\n"+`  "a": 2`)) {
		t.Fatalf("dup: %d\n%s", resp.StatusCode, body)
	}
}
