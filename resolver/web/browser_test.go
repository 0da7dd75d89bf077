package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/urikit/urikit/resolver"
)

// chromiumPath finds a Chromium binary: URIKIT_CHROMIUM, else Debian's
// package, else the other usual names on PATH.
func chromiumPath() string {
	for _, p := range []string{os.Getenv("URIKIT_CHROMIUM"), "/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p == "" {
			continue
		}
		if full, err := exec.LookPath(p); err == nil {
			return full
		}
	}
	return ""
}

// browser starts a headless Chromium for one test, with a fresh profile,
// and returns a context whose actions run in its one tab.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		t.Skip("no Chromium binary found (install Debian's chromium package, or set URIKIT_CHROMIUM to one)")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // the tests run as root, where Chromium's sandbox cannot start
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() { cancel(); cancelAlloc() })
	start := time.Now()
	defer func() { t.Logf("%s started in %v", path, time.Since(start).Round(time.Millisecond)) }()
	// The first action starts the browser; it must not run under a
	// timeout (that would end the browser with it).
	if err := chromedp.Do(ctx, chromedp.Func(func(context.Context, *chromedp.Target) error { return nil })); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// step runs actions with a deadline, so that a page that never shows what
// the test waits for fails the test instead of hanging it.
func step(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(sctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// load runs actions that navigate and returns the status of the document
// they load.
func load(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) int64 {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	resp, err := chromedp.RunResponse(sctx, actions...)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return resp.Status
}

func textOf(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	s, err := chromedp.Run(sctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.Join(strings.Fields(s), " ")
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(sctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// screenshot saves the whole page, or the element sel when one is given,
// as dir/name.png when URIKIT_SCREENSHOTS names a directory.
func screenshot(t *testing.T, ctx context.Context, name string, sel ...string) {
	t.Helper()
	dir := os.Getenv("URIKIT_SCREENSHOTS")
	if dir == "" {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	shot := chromedp.FullScreenshot(100)
	if len(sel) > 0 {
		shot = chromedp.Screenshot(chromedp.CSS(sel[0]))
	}
	png, err := chromedp.Run(sctx, shot)
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// pageErrors collects what goes wrong in the page: uncaught exceptions,
// console errors, and the browser's own log entries of level error (a
// Content Security Policy violation is one), so that a test can insist on
// none.
func pageErrors(t *testing.T, ctx context.Context) func() []string {
	t.Helper()
	var mu sync.Mutex
	var errs []string
	add := func(s string) { mu.Lock(); errs = append(errs, s); mu.Unlock() }
	if err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			add("exception: " + msg)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				add("console.error")
			}
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError && ev.Entry.Source != log.EntrySourceNetwork { // a 4xx answer logs a network error
				add("log: " + ev.Entry.Text + " " + ev.Entry.URL)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	step(t, ctx, "enable the log", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, log.Enable, cdp.Empty{})
		return err
	}))
	return func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), errs...) }
}

// TestBrowserReadingWithoutScript: with JavaScript off, the search form
// finds a name and its page shows everything a reader needs, and none of
// the maintainer's tools (a token typed into a form that cannot work
// without the script must be impossible).
func TestBrowserReadingWithoutScript(t *testing.T) {
	ctx := browser(t)
	fx := newFixture(t)
	srv := httptest.NewServer(New(fx.svc, Options{}))
	defer srv.Close()

	step(t, ctx, "scripts off", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	if st := load(t, ctx, "home", chromedp.Navigate(srv.URL+"/")); st != 200 {
		t.Fatalf("home: %d", st)
	}
	step(t, ctx, "type a name", chromedp.SendKeys(chromedp.CSS("#home-urn"), "URN:ISBN:0-395-36341-1"))
	if st := load(t, ctx, "search", chromedp.Submit(chromedp.CSS("#home-urn"))); st != 200 {
		t.Fatalf("search: %d", st)
	}
	loc := eval[string](t, ctx, "location.pathname + location.search")
	if want := "/?urn=" + url.QueryEscape("URN:ISBN:0-395-36341-1"); loc != want {
		t.Errorf("searched at %q, want %q", loc, want)
	}
	if h := textOf(t, ctx, "h1"); h != "urn:isbn:9780395363416" {
		t.Errorf("h1 %q", h)
	}
	if n := eval[int](t, ctx, "document.querySelectorAll('table.locs tbody tr').length"); n != 3 {
		t.Errorf("%d locations shown", n)
	}
	if eval[bool](t, ctx, "document.getElementById('maintain').offsetParent !== null") {
		t.Error("the maintainer's tools show without a script")
	}
	if eval[bool](t, ctx, "document.getElementById('token').offsetParent !== null") {
		t.Error("the token field shows without a script")
	}
	// A withdrawn name: 410, reason and successor link.
	if st := load(t, ctx, "withdrawn", chromedp.Navigate(srv.URL+"/names/urn:example:old-report")); st != 410 {
		t.Errorf("withdrawn: %d", st)
	}
	if s := textOf(t, ctx, ".gone-box"); !strings.Contains(s, "superseded by the revised edition") {
		t.Errorf("gone box %q", s)
	}
	// Follow the successor link.
	if st := load(t, ctx, "successor", chromedp.Click(chromedp.CSS(`a[rel="successor-version"]`))); st != 200 {
		t.Errorf("successor: %d", st)
	}
	if h := textOf(t, ctx, "h1"); h != "urn:isbn:9780395363416" {
		t.Errorf("successor h1 %q", h)
	}
	// The successor lists the name it replaces, and links back to it.
	if s := textOf(t, ctx, "section[aria-labelledby=rec-h]"); !strings.Contains(s, "Replaces urn:example:old-report") {
		t.Errorf("record section %q lacks the predecessor", s)
	}
	if st := load(t, ctx, "predecessor", chromedp.Click(chromedp.CSS(`a[rel="predecessor-version"]`))); st != 410 {
		t.Errorf("predecessor: %d", st)
	}
	if h := textOf(t, ctx, "h1"); h != "urn:example:old-report" {
		t.Errorf("predecessor h1 %q", h)
	}
	// A malformed name: 400 and the caret.
	if st := load(t, ctx, "malformed", chromedp.Navigate(srv.URL+"/?urn="+url.QueryEscape("urn:example:a b"))); st != 400 {
		t.Errorf("malformed: %d", st)
	}
	if s := textOf(t, ctx, "pre.caret mark"); s != "" {
		t.Errorf("mark %q", s)
	}
	screenshot(t, ctx, "malformed")
	accessible(t, ctx, "malformed")
	if st := load(t, ctx, "unknown", chromedp.Navigate(srv.URL+"/names/urn:nbn:de:101-4711")); st != 404 {
		t.Errorf("unknown: %d", st)
	}
	screenshot(t, ctx, "not-registered")
	accessible(t, ctx, "not-registered")

	// A name changed more often than its page shows: the newest entries,
	// a link to the older ones and back, without a script.
	m, err := fx.svc.Authenticate(context.Background(), fx.token)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pageHistory + 5 {
		in := resolver.RecordInput{Locations: []resolver.Location{{URL: fmt.Sprintf("https://example.org/v%d", i)}}}
		if _, _, err := fx.svc.Put(context.Background(), m, "urn:example:often", in); err != nil {
			t.Fatal(err)
		}
	}
	rows := "document.querySelectorAll('table.history tbody tr').length"
	firstSeq := "document.querySelector('table.history tbody tr td.num').textContent"
	if st := load(t, ctx, "long history", chromedp.Navigate(srv.URL+"/names/urn:example:often")); st != 200 {
		t.Fatalf("long history: %d", st)
	}
	if n := eval[int](t, ctx, rows); n != pageHistory {
		t.Errorf("%d history rows, want %d", n, pageHistory)
	}
	newestFirst := eval[string](t, ctx, firstSeq)
	screenshot(t, ctx, "long-history", "section[aria-labelledby=hist-h]")
	accessible(t, ctx, "long-history")
	if st := load(t, ctx, "older entries", chromedp.Click(chromedp.CSS(`p.pages a`))); st != 200 {
		t.Fatalf("older entries: %d", st)
	}
	if loc := eval[string](t, ctx, "location.pathname + location.search"); loc != "/names/urn:example:often?before="+newestFirst {
		t.Errorf("older entries at %q", loc)
	}
	if n := eval[int](t, ctx, rows); n != 5 || textOf(t, ctx, "table.history tbody tr strong") != "registered" {
		t.Errorf("older page: %d rows, the first %q", n, textOf(t, ctx, "table.history tbody tr strong"))
	}
	if s := textOf(t, ctx, "p.pages"); s != "Newest entries" {
		t.Errorf("older page's links %q", s)
	}
	if st := load(t, ctx, "newest entries", chromedp.Click(chromedp.CSS(`p.pages a`))); st != 200 {
		t.Fatalf("newest entries: %d", st)
	}
	if n, first := eval[int](t, ctx, rows), eval[string](t, ctx, firstSeq); n != pageHistory || first != newestFirst {
		t.Errorf("back to the newest: %d rows from %s", n, first)
	}

	// On a phone's width nothing runs off the side of a name's page.
	step(t, ctx, "phone width", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
	for _, p := range []string{"/names/urn:isbn:9780395363416", "/names/urn:example:hostile", "/names/urn:example:old-report", "/"} {
		load(t, ctx, p, chromedp.Navigate(srv.URL+p))
		if w := eval[int](t, ctx, "document.documentElement.scrollWidth"); w > 390 {
			t.Errorf("%s is %d px wide on a 390 px screen: %q", p, w, eval[[]string](t, ctx,
				`Array.from(document.querySelectorAll('body *')).filter(e => e.getBoundingClientRect().right > 390).map(e => e.tagName + '.' + e.className + ' ' + e.textContent.trim().slice(0, 30))`))
		}
	}
	load(t, ctx, "record", chromedp.Navigate(srv.URL+"/names/urn:isbn:9780395363416"))
	screenshot(t, ctx, "phone-record")
	step(t, ctx, "desktop width", chromedp.ResetViewport())

	// The accessibility check finds what it looks for.
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><html lang="en"><body><h2>No h1</h2><h4>Skipped</h4>`+
			`<p style="color:#aaa">faint</p><input id="x"><img src="data:,"></body></html>`)
	}))
	defer bad.Close()
	load(t, ctx, "bad page", chromedp.Navigate(bad.URL))
	got := strings.Join(eval[[]string](t, ctx, a11yCheck), "\n")
	for _, want := range []string{"no accessible name", "0 h1 elements", `heading level skipped before "No h1"`, `heading level skipped before "Skipped"`,
		"img without alt", `contrast 2.32:1 for "faint"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the accessibility check missed %q; found:\n%s", want, got)
		}
	}
}

// a11yCheck is run in the page: it lists what keeps the visible page from
// being usable with a screen reader or by someone with low vision: a form
// control without an accessible name, not exactly one h1, a heading level
// skipped, an image without alt, and text whose contrast with its background
// is below WCAG 2's AA level (4.5:1, or 3:1 for large text).
const a11yCheck = `(() => {
  const problems = [];
  const visible = el => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length) && getComputedStyle(el).visibility !== 'hidden';
  for (const el of document.querySelectorAll('input:not([type=hidden]), select, textarea, button')) {
    if (!visible(el)) continue;
    const name = el.tagName === 'BUTTON' ? el.textContent.trim()
      : ((el.labels && Array.from(el.labels).map(l => l.textContent.trim()).join(' ')) || el.getAttribute('aria-label') || '');
    if (!name) problems.push('no accessible name: ' + el.outerHTML.slice(0, 100));
  }
  const hs = Array.from(document.querySelectorAll('h1,h2,h3,h4,h5,h6')).filter(visible);
  const h1 = hs.filter(h => h.tagName === 'H1').length;
  if (h1 !== 1) problems.push(h1 + ' h1 elements');
  let last = 0;
  for (const h of hs) {
    const l = +h.tagName[1];
    if (l > last + 1) problems.push('heading level skipped before "' + h.textContent.trim() + '"');
    last = l;
  }
  for (const img of document.querySelectorAll('img')) if (!img.hasAttribute('alt')) problems.push('img without alt: ' + img.src);
  const parse = c => {
    const m = /rgba?\(([^)]+)\)/.exec(c);
    if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const lum = c => {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const background = el => {
    for (let e = el; e; e = e.parentElement) { // up to and including <html>
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0.5) return c;
    }
    return { r: 255, g: 255, b: 255, a: 1 }; // the canvas
  };
  const seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const n = walker.currentNode, el = n.parentElement;
    if (!n.textContent.trim() || !el || seen.has(el) || !visible(el)) continue;
    seen.add(el);
    const st = getComputedStyle(el), fg = parse(st.color);
    if (!fg) continue;
    const a = lum(fg), b = lum(background(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(st.fontSize), large = size >= 24 || (parseInt(st.fontWeight, 10) >= 700 && size >= 18.66);
    if (ratio < (large ? 3 : 4.5)) problems.push('contrast ' + ratio.toFixed(2) + ':1 for "' + n.textContent.trim().slice(0, 40) + '"');
  }
  return problems;
})()`

// accessible fails the test for each accessibility problem a11yCheck finds
// on the page now shown.
func accessible(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	for _, p := range eval[[]string](t, ctx, a11yCheck) {
		t.Errorf("%s: %s", page, p)
	}
}
