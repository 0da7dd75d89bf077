package web

import (
	"context"
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

// screenshot saves the whole page as dir/name.png when URIKIT_SCREENSHOTS
// names a directory.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("URIKIT_SCREENSHOTS")
	if dir == "" {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(sctx, chromedp.FullScreenshot(100))
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
			if ev.Entry.Level == log.EntryLevelError {
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
	// A malformed name: 400 and the caret.
	if st := load(t, ctx, "malformed", chromedp.Navigate(srv.URL+"/?urn="+url.QueryEscape("urn:example:a b"))); st != 400 {
		t.Errorf("malformed: %d", st)
	}
	if s := textOf(t, ctx, "pre.caret mark"); s != "" {
		t.Errorf("mark %q", s)
	}
	screenshot(t, ctx, "malformed")
	if st := load(t, ctx, "unknown", chromedp.Navigate(srv.URL+"/names/urn:nbn:de:101-4711")); st != 404 {
		t.Errorf("unknown: %d", st)
	}
	screenshot(t, ctx, "not-registered")
}
