package web

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/httpapi"
	"github.com/urikit/urikit/resolver/sqlite"
	"github.com/urikit/urikit/urn"
)

// waitJS waits until the JavaScript expression is true in the page.
func waitJS(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.Run(sctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		t.Fatalf("waiting for %s (%s): %v", what, expr, err)
	}
}

// locationURLs reads the locations table of a name's page.
func locationURLs(t *testing.T, ctx context.Context) []string {
	t.Helper()
	return eval[[]string](t, ctx, `Array.from(document.querySelectorAll('table.locs tbody td.url')).map(td => td.textContent.trim())`)
}

func recordOf(t *testing.T, svc *resolver.Service, name string) resolver.Record {
	t.Helper()
	rec, err := svc.Lookup(context.Background(), urn.MustParse(name))
	if err != nil {
		t.Fatalf("lookup %s: %v", name, err)
	}
	return rec
}

func recordURLs(r resolver.Record) []string {
	var s []string
	for _, l := range r.Locations {
		s = append(s, l.URL)
	}
	return s
}

// TestBrowserMaintainer drives the page in headless Chromium against the
// real server (the JSON API of resolver/httpapi with this page, over the
// embedded SQLite store in a fresh data directory): a reader searches a name and reads its record; a
// maintainer pastes a token, registers a name, edits its locations,
// withdraws it and sees the 410 page; a wrong token gets the API's 401 and
// another authority's token its 403, shown on the page, and change nothing.
func TestBrowserMaintainer(t *testing.T) {
	ctx := browser(t)
	st, err := sqlite.Open(context.Background(), t.TempDir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fx := newFixtureOn(t, st)
	srv := httptest.NewServer(httpapi.New(fx.svc, httpapi.Options{Pages: New(fx.svc, Options{})}))
	defer srv.Close()
	errs := pageErrors(t, ctx)

	// ---- A reader searches.
	if st := load(t, ctx, "home", chromedp.Navigate(srv.URL+"/")); st != 200 {
		t.Fatalf("home: %d", st)
	}
	waitJS(t, ctx, "the register panel", `!document.getElementById('maintain').hidden`)
	screenshot(t, ctx, "1-search")
	accessible(t, ctx, "1-search")
	step(t, ctx, "type a name", chromedp.SendKeys(chromedp.CSS("#home-urn"), "URN:ISBN:0-395-36341-1"))
	if st := load(t, ctx, "search", chromedp.Click(chromedp.CSS(`form.search.big button[type=submit]`))); st != 200 {
		t.Fatalf("search: %d", st)
	}
	if h := textOf(t, ctx, "h1"); h != "urn:isbn:9780395363416" {
		t.Fatalf("h1 %q", h)
	}
	if got, want := locationURLs(t, ctx), recordURLs(recordOf(t, fx.svc, "urn:isbn:9780395363416")); !slices.Equal(got, want) {
		t.Errorf("locations %q, want %q", got, want)
	}
	rec := textOf(t, ctx, "section[aria-labelledby=rec-h]")
	for _, s := range []string{"Status active", "Redirect status 302 Found", "Aliases urn:example:lotr"} {
		if !strings.Contains(rec, s) {
			t.Errorf("record section %q lacks %q", rec, s)
		}
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('table.history tbody tr').length`); n != 2 {
		t.Errorf("%d history rows", n)
	}
	parts := textOf(t, ctx, "section[aria-labelledby=parts-h]")
	for _, s := range []string{"ISBN formal", "0-395-36341-1", "Equivalence key urn:isbn:9780395363416"} {
		if !strings.Contains(parts, s) {
			t.Errorf("parsed parts %q lack %q", parts, s)
		}
	}
	// Without a token the maintainer sees only the token field.
	if eval[bool](t, ctx, `!document.getElementById('editor').hidden`) {
		t.Error("the editor shows before a token is given")
	}
	screenshot(t, ctx, "2-record")
	accessible(t, ctx, "2-record")

	// ---- A maintainer registers a new name from its 404 page.
	const name = "urn:example:report-2025"
	if st := load(t, ctx, "unknown name", chromedp.Navigate(srv.URL+"/names/"+name)); st != 404 {
		t.Fatalf("unknown name: %d", st)
	}
	waitJS(t, ctx, "the token field", `document.getElementById('token').offsetParent !== null`)
	step(t, ctx, "paste the token",
		chromedp.SendKeys(chromedp.CSS("#token"), fx.token),
		chromedp.Click(chromedp.CSS("#token-form button[type=submit]")))
	waitJS(t, ctx, "the editor", `!document.getElementById('editor').hidden && document.querySelectorAll('#ed-locations li').length === 1`)
	if s := textOf(t, ctx, "#token-text"); !strings.Contains(s, "…"+fx.token[len(fx.token)-4:]) {
		t.Errorf("token state %q", s)
	}
	// The token is in sessionStorage and nowhere else the page keeps data.
	if !eval[bool](t, ctx, `sessionStorage.getItem('urikit.token') === `+jsString(fx.token)+` && localStorage.length === 0 && document.cookie === ''`) {
		t.Error("the token is not (only) in sessionStorage")
	}
	step(t, ctx, "fill the form",
		chromedp.SendKeys(chromedp.CSS("#ed-locations li:nth-child(1) .loc-url"), "https://reports.example.org/2025/annual.html"),
		chromedp.SendKeys(chromedp.CSS("#ed-locations li:nth-child(1) .loc-type"), "text/html"),
		chromedp.SendKeys(chromedp.CSS("#ed-locations li:nth-child(1) .loc-label"), "Web edition"),
		chromedp.Click(chromedp.CSS("#ed-add-location")),
		chromedp.SendKeys(chromedp.CSS("#ed-locations li:nth-child(2) .loc-url"), "https://reports.example.org/2025/annual.pdf"),
		chromedp.SendKeys(chromedp.CSS("#ed-locations li:nth-child(2) .loc-type"), "application/pdf"),
		chromedp.SendKeys(chromedp.CSS("#ed-aliases"), "urn:example:annual-report-2025"),
		chromedp.SetValue(chromedp.CSS("#ed-metadata"), "{\n  \"title\": \"Annual report 2025\",\n  \"pages\": 96\n}"),
		chromedp.SetValue(chromedp.CSS("#ed-redirect"), "307"),
	)
	if st := load(t, ctx, "register", chromedp.Click(chromedp.CSS("#ed-save"))); st != 200 {
		t.Fatalf("after registering: %d (%s)", st, textOf(t, ctx, "main"))
	}
	if s := textOf(t, ctx, "#flash"); s != "Registered "+name+"." {
		t.Errorf("flash %q", s)
	}
	if h := textOf(t, ctx, "h1"); h != name {
		t.Errorf("h1 %q", h)
	}
	r := recordOf(t, fx.svc, name)
	if got := recordURLs(r); !slices.Equal(got, []string{"https://reports.example.org/2025/annual.html", "https://reports.example.org/2025/annual.pdf"}) ||
		r.Locations[0].Label != "Web edition" || r.Locations[1].Type != "application/pdf" ||
		!slices.Equal(r.Aliases, []string{"urn:example:annual-report-2025"}) || r.Redirect != 307 ||
		string(r.Metadata) != `{"title":"Annual report 2025","pages":96}` {
		t.Errorf("registered %+v", r)
	}
	if got := locationURLs(t, ctx); !slices.Equal(got, recordURLs(r)) {
		t.Errorf("page shows %q", got)
	}

	// ---- It edits the locations: a mirror goes first, the HTML edition goes.
	waitJS(t, ctx, "the editor, filled from the API",
		`document.querySelectorAll('#ed-locations li').length === 2 && document.querySelector('#ed-locations li .loc-url').value === 'https://reports.example.org/2025/annual.html' && document.getElementById('ed-redirect').value === '307'`)
	if v := eval[string](t, ctx, `document.getElementById('ed-metadata').value`); !strings.Contains(v, `"pages": 96`) {
		t.Errorf("metadata in the editor %q", v)
	}
	step(t, ctx, "edit the locations",
		chromedp.Click(chromedp.CSS("#ed-add-location")),
		chromedp.SendKeys(chromedp.CSS("#ed-locations li:nth-child(3) .loc-url"), "https://mirror.example.net/reports/2025.pdf"),
		chromedp.SendKeys(chromedp.CSS("#ed-locations li:nth-child(3) .loc-label"), "Mirror"),
		chromedp.Click(chromedp.CSS("#ed-locations li:nth-child(3) [data-act=up]")),
		chromedp.Click(chromedp.CSS("#ed-locations li:nth-child(2) [data-act=up]")),
		chromedp.Click(chromedp.CSS("#ed-locations li:nth-child(2) [data-act=remove]")),
	)
	if got := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#ed-locations .loc-url')).map(i => i.value)`); !slices.Equal(got,
		[]string{"https://mirror.example.net/reports/2025.pdf", "https://reports.example.org/2025/annual.pdf"}) {
		t.Fatalf("editor rows %q", got)
	}
	step(t, ctx, "scroll to the editor", chromedp.ScrollIntoView(chromedp.CSS("#maint-h")))
	screenshot(t, ctx, "3-edit-form", "#maintain")
	accessible(t, ctx, "3-edit-form")
	if st := load(t, ctx, "save", chromedp.Click(chromedp.CSS("#ed-save"))); st != 200 {
		t.Fatalf("after saving: %d", st)
	}
	if s := textOf(t, ctx, "#flash"); s != "Saved "+name+"." {
		t.Errorf("flash %q", s)
	}
	want := []string{"https://mirror.example.net/reports/2025.pdf", "https://reports.example.org/2025/annual.pdf"}
	if got := recordURLs(recordOf(t, fx.svc, name)); !slices.Equal(got, want) {
		t.Errorf("stored locations %q, want %q", got, want)
	}
	if got := locationURLs(t, ctx); !slices.Equal(got, want) {
		t.Errorf("page shows %q", got)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('table.history tbody tr').length`); n != 2 {
		t.Errorf("%d history rows after the edit", n)
	}

	// ---- Another maintainer changes the record while the editor is
	// open: the save is refused (412, If-Match), nothing is overwritten,
	// and the page says to reload.
	waitJS(t, ctx, "the editor, filled after saving", `document.querySelectorAll('#ed-locations li').length === 2`)
	maint, err := fx.svc.Authenticate(context.Background(), fx.token)
	if err != nil {
		t.Fatal(err)
	}
	before := recordOf(t, fx.svc, name)
	meanwhile := resolver.RecordInput{Locations: []resolver.Location{{URL: "https://meanwhile.example/2025.pdf"}}}
	if _, _, err := fx.svc.Put(context.Background(), maint, name, meanwhile); err != nil {
		t.Fatal(err)
	}
	step(t, ctx, "save over a change made meanwhile", chromedp.Click(chromedp.CSS("#ed-save")))
	waitJS(t, ctx, "the refusal", `!document.getElementById('ed-result').hidden`)
	if s := textOf(t, ctx, "#ed-result"); !strings.HasPrefix(s, "412") || !strings.Contains(s, "Reload the page") {
		t.Errorf("saving over a change made meanwhile: %q", s)
	}
	screenshot(t, ctx, "3b-changed-meanwhile", "#ed-result")
	accessible(t, ctx, "3b-changed-meanwhile")
	if got := recordURLs(recordOf(t, fx.svc, name)); !slices.Equal(got, []string{"https://meanwhile.example/2025.pdf"}) {
		t.Errorf("the change made meanwhile was overwritten: %q", got)
	}
	// Put back as it was, and reload: the editor starts from it again.
	if _, _, err := fx.svc.Put(context.Background(), maint, name, resolver.RecordInput{
		Aliases: before.Aliases, Locations: before.Locations, Metadata: before.Metadata, Redirect: before.Redirect}); err != nil {
		t.Fatal(err)
	}
	if st := load(t, ctx, "reload after the refusal", chromedp.Reload()); st != 200 {
		t.Fatalf("reload: %d", st)
	}

	// ---- Another authority withdraws one of its names, naming this one
	// as the successor, while the editor is open. That changes this
	// record's entity-tag (its predecessors are part of it) but not the
	// record: the save goes through.
	waitJS(t, ctx, "the editor, filled after the reload", `document.querySelectorAll('#ed-locations li').length === 2`)
	otherM, err := fx.svc.Authenticate(context.Background(), fx.other)
	if err != nil {
		t.Fatal(err)
	}
	const old = "urn:nbn:de:101-1999-old"
	if _, _, err := fx.svc.Put(context.Background(), otherM, old, resolver.RecordInput{
		Locations: []resolver.Location{{URL: "https://old.example.de/report"}}}); err != nil {
		t.Fatal(err)
	}
	tagBefore := etagOf(t, fx.svc, name)
	if _, err := fx.svc.Withdraw(context.Background(), otherM, old, "moved", name); err != nil {
		t.Fatal(err)
	}
	if etagOf(t, fx.svc, name) == tagBefore {
		t.Fatal("naming the record as a successor left its entity-tag as it was: this step tests nothing")
	}
	step(t, ctx, "edit a label", chromedp.SendKeys(chromedp.CSS("#ed-locations li:nth-child(1) .loc-label"), " (2nd)"))
	if st := load(t, ctx, "save after a predecessor came", chromedp.Click(chromedp.CSS("#ed-save"))); st != 200 {
		t.Fatalf("after saving: %d (%s)", st, textOf(t, ctx, "#ed-result"))
	}
	if s := textOf(t, ctx, "#flash"); s != "Saved "+name+"." {
		t.Errorf("saving after another authority named the record as its successor: flash %q", s)
	}
	if r := recordOf(t, fx.svc, name); r.Locations[0].Label != "Mirror (2nd)" {
		t.Errorf("stored label %q after saving", r.Locations[0].Label)
	}

	// ---- A javascript: location is refused: the API's 400, naming the
	// field and the reason, shown on the page; nothing changes.
	saved := recordOf(t, fx.svc, name)
	waitJS(t, ctx, "the editor, filled again", `document.querySelectorAll('#ed-locations li').length === 2`)
	eval[string](t, ctx, `document.querySelector('#ed-locations li:nth-child(1) .loc-url').value = ''`)
	step(t, ctx, "a javascript: location",
		chromedp.SendKeys(chromedp.CSS("#ed-locations li:nth-child(1) .loc-url"), "JavaScript:alert(document.domain)"),
		chromedp.Click(chromedp.CSS("#ed-save")))
	waitJS(t, ctx, "the problem", `!document.getElementById('ed-result').hidden`)
	if s := textOf(t, ctx, "#ed-result"); !strings.HasPrefix(s, "400") || !strings.Contains(s, "locations[0].url") ||
		!strings.Contains(s, "the javascript: scheme is refused") {
		t.Errorf("problem shown for a javascript: location: %q", s)
	}
	if after := recordOf(t, fx.svc, name); !after.Updated.Equal(saved.Updated) || after.Locations[0].URL != saved.Locations[0].URL {
		t.Errorf("a refused location was stored: %+v", after.Locations)
	}
	if st := load(t, ctx, "reload", chromedp.Reload()); st != 200 {
		t.Fatalf("reload: %d", st)
	}

	// ---- A wrong token: 401, shown, nothing changed.
	step(t, ctx, "forget the token", chromedp.Click(chromedp.CSS("#token-forget")))
	waitJS(t, ctx, "the token field", `document.getElementById('editor').hidden && !document.getElementById('token-form').hidden`)
	if !eval[bool](t, ctx, `sessionStorage.getItem('urikit.token') === null`) {
		t.Error("the token was not forgotten")
	}
	before = recordOf(t, fx.svc, name)
	try := func(token string, status string) string {
		t.Helper()
		step(t, ctx, "paste a token",
			chromedp.SendKeys(chromedp.CSS("#token"), token),
			chromedp.Click(chromedp.CSS("#token-form button[type=submit]")))
		waitJS(t, ctx, "the filled editor", `!document.getElementById('editor').hidden && document.querySelectorAll('#ed-locations li').length === 2`)
		step(t, ctx, "change and save",
			chromedp.SendKeys(chromedp.CSS("#ed-locations li:nth-child(1) .loc-label"), " (changed)"),
			chromedp.Click(chromedp.CSS("#ed-save")))
		waitJS(t, ctx, "the problem", `!document.getElementById('ed-result').hidden`)
		s := textOf(t, ctx, "#ed-result")
		if !strings.HasPrefix(s, status) {
			t.Errorf("problem shown %q, want status %s", s, status)
		}
		if after := recordOf(t, fx.svc, name); !after.Updated.Equal(before.Updated) {
			t.Errorf("a %s write changed the record", status)
		}
		if status == "403" {
			step(t, ctx, "scroll to the problem", chromedp.ScrollIntoView(chromedp.CSS("#ed-result")))
			screenshot(t, ctx, "4-wrong-token")
			accessible(t, ctx, "4-wrong-token")
		}
		step(t, ctx, "forget the token", chromedp.Click(chromedp.CSS("#token-forget")))
		return s
	}
	if s := try("urikit_not-a-real-token", "401"); !strings.Contains(s, "unknown token") {
		t.Errorf("401 problem %q", s)
	}
	step(t, ctx, "reload", chromedp.Reload())
	if s := try(fx.other, "403"); !strings.Contains(s, "another naming authority") {
		t.Errorf("403 problem %q", s)
	}

	// ---- It withdraws the name and sees the 410 page.
	if st := load(t, ctx, "reload", chromedp.Reload()); st != 200 {
		t.Fatalf("reload: %d", st)
	}
	step(t, ctx, "paste the token",
		chromedp.SendKeys(chromedp.CSS("#token"), fx.token),
		chromedp.Click(chromedp.CSS("#token-form button[type=submit]")))
	waitJS(t, ctx, "the withdraw form", `!document.getElementById('withdraw').hidden`)
	// Unconfirmed, nothing is sent.
	step(t, ctx, "withdraw unconfirmed", chromedp.Click(chromedp.CSS("#wd-submit")))
	waitJS(t, ctx, "the confirmation hint", `!document.getElementById('wd-result').hidden`)
	if recordOf(t, fx.svc, name).Status != resolver.Active {
		t.Fatal("withdrawn without confirmation")
	}
	step(t, ctx, "fill the withdrawal",
		chromedp.SendKeys(chromedp.CSS("#wd-reason"), "replaced by the corrected edition"),
		chromedp.SendKeys(chromedp.CSS("#wd-successor"), "urn:isbn:9780395363416"),
		chromedp.Click(chromedp.CSS("#wd-confirm")))
	if st := load(t, ctx, "withdraw", chromedp.Click(chromedp.CSS("#wd-submit"))); st != 410 {
		t.Fatalf("after withdrawing: %d", st)
	}
	gone := textOf(t, ctx, ".gone-box")
	for _, s := range []string{"This name was withdrawn", "replaced by the corrected edition", "urn:isbn:9780395363416"} {
		if !strings.Contains(gone, s) {
			t.Errorf("410 page %q lacks %q", gone, s)
		}
	}
	if h := textOf(t, ctx, ".badge.gone"); h != "Withdrawn" {
		t.Errorf("badge %q", h)
	}
	if eval[bool](t, ctx, `document.getElementById('editor') !== null || document.getElementById('withdraw') !== null`) {
		t.Error("a withdrawn name offers the editor or a withdrawal")
	}
	if r := recordOf(t, fx.svc, name); r.Status != resolver.Withdrawn || r.Reason != "replaced by the corrected edition" {
		t.Errorf("stored %+v", r)
	}
	screenshot(t, ctx, "5-withdrawn")
	accessible(t, ctx, "5-withdrawn")

	// ---- The successor was mistyped: it restates the notice. The token
	// is still in this tab, so the form shows, filled with the notice.
	waitJS(t, ctx, "the notice form", `!document.getElementById('notice').hidden`)
	// Another maintainer restated it first: this form's notice is stale,
	// and saving it is refused (412) rather than undoing theirs.
	if _, err := fx.svc.Withdraw(context.Background(), maint, name, "replaced by the corrected edition", "urn:isbn:0395363411"); err != nil {
		t.Fatal(err)
	}
	step(t, ctx, "save a stale notice", chromedp.Click(chromedp.CSS("#nt-submit")))
	waitJS(t, ctx, "the refusal", `!document.getElementById('nt-result').hidden`)
	if s := textOf(t, ctx, "#nt-result"); !strings.HasPrefix(s, "412") {
		t.Errorf("saving a stale notice: %q", s)
	}
	if r := recordOf(t, fx.svc, name); r.Successor != "urn:isbn:0395363411" {
		t.Errorf("the notice restated meanwhile was undone: %+v", r)
	}
	if st := load(t, ctx, "reload the withdrawn page", chromedp.Reload()); st != 410 {
		t.Fatalf("reload: %d", st)
	}
	waitJS(t, ctx, "the notice form, again", `!document.getElementById('notice').hidden`)
	if v := eval[string](t, ctx, `document.getElementById('nt-successor').value`); v != "urn:isbn:0395363411" {
		t.Errorf("the notice form starts with successor %q after the reload", v)
	}
	// Meanwhile another authority names this withdrawn name as the
	// successor of one of its own: the record is as the page showed it,
	// so restating the notice goes through all the same.
	const older = "urn:nbn:de:101-1999-older"
	if _, _, err := fx.svc.Put(context.Background(), otherM, older, resolver.RecordInput{
		Locations: []resolver.Location{{URL: "https://old.example.de/older"}}}); err != nil {
		t.Fatal(err)
	}
	tagBefore = etagOf(t, fx.svc, name)
	if _, err := fx.svc.Withdraw(context.Background(), otherM, older, "moved", name); err != nil {
		t.Fatal(err)
	}
	if etagOf(t, fx.svc, name) == tagBefore {
		t.Fatal("naming the withdrawn record as a successor left its entity-tag as it was: this step tests nothing")
	}
	eval[string](t, ctx, `document.getElementById('nt-successor').value = ''`)
	step(t, ctx, "correct the successor", chromedp.SendKeys(chromedp.CSS("#nt-successor"), "urn:isbn:9780261102385"))
	if st := load(t, ctx, "restate the notice", chromedp.Click(chromedp.CSS("#nt-submit"))); st != 410 {
		t.Fatalf("after restating the notice: %d", st)
	}
	gone = textOf(t, ctx, ".gone-box")
	if !strings.Contains(gone, "urn:isbn:9780261102385") || strings.Contains(gone, "urn:isbn:9780395363416") || !strings.Contains(gone, "replaced by the corrected edition") {
		t.Errorf("410 page after restating the notice: %q", gone)
	}
	if h := textOf(t, ctx, ".history tbody tr:last-child"); !strings.Contains(h, "withdrawal notice restated") || !strings.Contains(h, "urn:isbn:9780261102385") {
		t.Errorf("last history row %q", h)
	}
	// The box gives the time of the withdrawal, not of the restatement.
	if w, at := eval[string](t, ctx, `document.querySelector('.gone-box time').getAttribute('datetime')`),
		eval[string](t, ctx, `Array.from(document.querySelectorAll('.history tbody tr')).find(tr => tr.querySelector('strong').textContent === 'withdrawn').querySelector('time').getAttribute('datetime')`); w != at {
		t.Errorf("the notice says withdrawn at %s; the withdrawal's history row says %s", w, at)
	}
	if r := recordOf(t, fx.svc, name); r.Status != resolver.Withdrawn || r.Successor != "urn:isbn:9780261102385" {
		t.Errorf("stored after restating the notice: %+v", r)
	}
	screenshot(t, ctx, "6-notice-restated")
	accessible(t, ctx, "6-notice-restated")

	// A name with a "/" and a "%" goes to the API as one segment.
	odd := "urn:example:dir/file%20name"
	if st := load(t, ctx, "odd name", chromedp.Navigate(srv.URL+"/?urn="+url.QueryEscape(odd))); st != 404 {
		t.Fatalf("odd name: %d", st)
	}
	waitJS(t, ctx, "the editor", `!document.getElementById('editor').hidden`)
	step(t, ctx, "register it",
		chromedp.SendKeys(chromedp.CSS("#ed-locations li:nth-child(1) .loc-url"), "https://example.org/dir/file%20name"))
	if st := load(t, ctx, "register odd", chromedp.Click(chromedp.CSS("#ed-save"))); st != 200 {
		t.Fatalf("after registering %s: %d", odd, st)
	}
	if r := recordOf(t, fx.svc, odd); r.URN != odd {
		t.Errorf("registered %q", r.URN)
	}
	if p := eval[string](t, ctx, "location.pathname"); p != "/names/"+odd {
		t.Errorf("page of %s at %q", odd, p)
	}

	// Registering from the search page, where the name is typed in.
	if st := load(t, ctx, "home", chromedp.Navigate(srv.URL+"/")); st != 200 {
		t.Fatalf("home: %d", st)
	}
	waitJS(t, ctx, "the editor (the token is still in this tab)", `!document.getElementById('editor').hidden && document.querySelectorAll('#ed-locations li').length === 1`)
	step(t, ctx, "an unowned name",
		chromedp.SendKeys(chromedp.CSS("#ed-urn"), "urn:nbn:de:101-1"),
		chromedp.SendKeys(chromedp.CSS("#ed-locations li:nth-child(1) .loc-url"), "https://example.org/x"),
		chromedp.Click(chromedp.CSS("#ed-save")))
	waitJS(t, ctx, "the problem", `!document.getElementById('ed-result').hidden`)
	if s := textOf(t, ctx, "#ed-result"); !strings.HasPrefix(s, "403") {
		t.Errorf("registering another authority's name: %q", s)
	}
	eval[string](t, ctx, `document.getElementById('ed-urn').value = ''`) // chromedp's Clear and SetValue(…, "") leave it
	step(t, ctx, "a name of ours", chromedp.SendKeys(chromedp.CSS("#ed-urn"), " urn:example:from-home "))
	if st := load(t, ctx, "register from home", chromedp.Click(chromedp.CSS("#ed-save"))); st != 200 {
		t.Fatalf("after registering from home: %d (%s)", st, textOf(t, ctx, "#ed-result"))
	}
	if p := eval[string](t, ctx, "location.pathname"); p != "/names/urn:example:from-home" {
		t.Errorf("landed on %q", p)
	}
	if got := recordURLs(recordOf(t, fx.svc, "urn:example:from-home")); !slices.Equal(got, []string{"https://example.org/x"}) {
		t.Errorf("registered %q", got)
	}

	for _, e := range errs() {
		t.Errorf("page error: %s", e)
	}
}

// etagOf is the entity-tag of name's record as its page and the API give
// it, predecessors included.
func etagOf(t *testing.T, svc *resolver.Service, name string) string {
	t.Helper()
	rec, err := svc.WithPredecessors(context.Background(), recordOf(t, svc, name))
	if err != nil {
		t.Fatal(err)
	}
	return rec.ETag()
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
