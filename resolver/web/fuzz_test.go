package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urikit/urikit/resolver/httpapi"
	"github.com/urikit/urikit/urn"
)

// serveRaw sends a request whose target is exactly target, as a server
// would hand it over, bypassing every client-side cleaning.
func serveRaw(h http.Handler, method, target string) *httptest.ResponseRecorder {
	u, err := url.ParseRequestURI(target)
	if err != nil {
		// What net/http's server refuses never reaches a handler; still
		// give the handler the raw target with a URL that holds only it.
		u = &url.URL{Path: "/", RawQuery: ""}
	}
	r := &http.Request{Method: method, URL: u, RequestURI: target, Header: http.Header{}, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Host: "resolver.test"}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// checkAnswer holds for every answer: no 500, a known status, the security
// headers, valid UTF-8, and no markup from the input (the page's one script
// element is its own).
func checkAnswer(t *testing.T, method, target string, w *httptest.ResponseRecorder) {
	t.Helper()
	switch w.Code {
	case 200, 303, 400, 404, 405, 410, 414:
	default:
		t.Fatalf("%q: status %d\n%s", target, w.Code, w.Body)
	}
	if w.Header().Get("Content-Security-Policy") == "" {
		t.Fatalf("%q: no CSP", target)
	}
	body := w.Body.String()
	if !utf8.ValidString(body) {
		t.Fatalf("%q: body is not UTF-8", target)
	}
	html := strings.HasPrefix(w.Header().Get("Content-Type"), "text/html")
	if w.Code != 303 && w.Code != 304 && !html && w.Code != 200 {
		t.Fatalf("%q: %d answer of type %q", target, w.Code, w.Header().Get("Content-Type"))
	}
	if method != "HEAD" && html && strings.Count(body, "<script") != 1 {
		t.Fatalf("%q: %d script elements", target, strings.Count(body, "<script"))
	}
}

// FuzzNamePath: any bytes after /names/ (and any query) give a page that
// agrees with urn.Parse: 400 exactly when the name is no URN.
func FuzzNamePath(f *testing.F) {
	for _, s := range []string{
		"urn:isbn:9780395363416", "URN:ISBN:0-395-36341-1", "urn:example:lotr", "urn:example:old-report",
		"urn:example:a//b/../c", "urn:example:x%2Fy", "urn:example:x%2fy", "urn:example:hostile",
		"urn:nbn:de:101-1", "urn:nbn:ch:bel-9039", "urn:example:a b", "urn:x:", "urn:", "", "/", "..",
		"urn:example:<script>", "urn:example:%ZZ", "urn:example:\xff\xfe", "urn:urn:x", "urn:X-foo:bar",
		"urn:example:a?+s=I2Ls", "urn:example:a?=lang=en", "urn:example:a#frag", "urn:example:old-metadata",
	} {
		f.Add(s, "")
	}
	f.Add("urn:isbn:9780395363416", "+s=I2Ls")
	f.Add("urn:example:a", "=q&x")
	f.Add("urn:example:a", "+")
	f.Add("urn:example:a", "urn=x")
	// One page over one fixture for all runs: the page only reads, so runs
	// cannot disturb each other.
	h := New(newFixture(f).svc, Options{})
	f.Fuzz(func(t *testing.T, name, query string) {
		target := "/names/" + name
		if query != "" {
			target += "?" + query
		}
		method := "GET"
		w := serveRaw(h, method, target)
		checkAnswer(t, method, target, w)
		if len(target) > DefaultMaxTarget {
			if w.Code != 414 {
				t.Fatalf("%q: %d, want 414", target, w.Code)
			}
			return
		}
		path, q, _ := strings.Cut(target, "?")
		full := path[len("/names/"):]
		if strings.HasPrefix(q, "+") || strings.HasPrefix(q, "=") {
			full += "?" + q
		}
		if full == "" {
			if w.Code != 303 {
				t.Fatalf("empty name: %d", w.Code)
			}
			return
		}
		_, err := urn.Parse(full)
		if (err != nil) != (w.Code == 400) {
			t.Fatalf("%q: parse error %v, status %d", full, err, w.Code)
		}
	})
}

// FuzzSearch: any value of the form's urn parameter.
func FuzzSearch(f *testing.F) {
	for _, s := range []string{
		"urn:isbn:9780395363416", " URN:ISBN:0-395-36341-1\n", "urn:example:old-report", "urn:example:a//b/../c",
		"urn:example:a b", "urn:exämple:x", "urn:example:\x01<b>", "urn:example:a?+s=I2L#f", "", "   ", "urn:例:x",
		"urn:example:" + strings.Repeat("%41", 100),
	} {
		f.Add(s)
	}
	// One page over one fixture for all runs: the page only reads, so runs
	// cannot disturb each other.
	h := New(newFixture(f).svc, Options{})
	f.Fuzz(func(t *testing.T, v string) {
		target := "/?urn=" + url.QueryEscape(v)
		method := "GET"
		w := serveRaw(h, method, target)
		checkAnswer(t, method, target, w)
		if len(target) > DefaultMaxTarget {
			return
		}
		name := strings.Trim(v, " \t\r\n\f\v")
		if name == "" {
			if w.Code != 200 || !strings.Contains(w.Body.String(), `id="home-h"`) {
				t.Fatalf("%q: want the search page, got %d", v, w.Code)
			}
			return
		}
		_, err := urn.Parse(name)
		if (err != nil) != (w.Code == 400) {
			t.Fatalf("%q: parse error %v, status %d", name, err, w.Code)
		}
		if err != nil && !strings.Contains(w.Body.String(), `<mark>`) {
			t.Fatalf("%q: no marked offset", name)
		}
	})
}

// FuzzTarget: any request target at all, any method.
func FuzzTarget(f *testing.F) {
	for _, s := range []string{
		"/", "/?urn=urn:x:y", "/names/urn:isbn:9780395363416", "/static/app.css", "/static/../../etc/passwd",
		"/static/", "//", "/names", "http://host/names/urn:example:lotr", "http://host", "*", "",
		"/names/urn:example:a?+s=I2Ls&x", "/?urn=%zz", "/?urn=urn%3Aexample%3Aa%00", "/names/urn:example:old-metadata",
	} {
		f.Add("GET", s)
	}
	f.Add("HEAD", "/names/urn:example:old-report")
	f.Add("POST", "/")
	f.Add("DELETE", "/names/urn:isbn:9780395363416")
	// One page over one fixture for all runs: the page only reads, so runs
	// cannot disturb each other.
	h := New(newFixture(f).svc, Options{})
	f.Fuzz(func(t *testing.T, method, target string) {
		if method == "" || strings.ContainsAny(method, " \r\n") {
			method = "GET"
		}
		w := serveRaw(h, method, target)
		checkAnswer(t, method, target, w)
		if method != "GET" && method != "HEAD" && w.Code != 405 {
			t.Fatalf("%s %q: %d", method, target, w.Code)
		}
	})
}

// FuzzThroughAPI: the page mounted in the resolver's handler
// (httpapi.Options.Pages), as urikit serve runs it. Whatever the name, the
// answer is the page's, never a 500.
func FuzzThroughAPI(f *testing.F) {
	for _, s := range []string{"urn:isbn:9780395363416", "urn:example:a//b/../c", "urn:example:x%2Fy", "urn:x:", "%", "", "urn:example:old-report", "urn:example:old-metadata"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	fx := newFixture(f)
	h := httpapi.New(fx.svc, httpapi.Options{Pages: New(fx.svc, Options{})})
	f.Fuzz(func(t *testing.T, name string, form bool) {
		target := "/names/" + name
		if form {
			target = "/?urn=" + url.QueryEscape(name)
		}
		w := serveRaw(h, "GET", target)
		if w.Code >= 500 {
			t.Fatalf("%q: %d\n%s", target, w.Code, w.Body)
		}
		if w.Code != 303 && w.Code != 414 && w.Header().Get("Content-Security-Policy") == "" {
			t.Fatalf("%q: %d without the page's CSP (not answered by the page?)", target, w.Code)
		}
	})
}
