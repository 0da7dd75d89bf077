package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/client"
	"github.com/urikit/urikit/resolver/httpapi/apitest"
	"github.com/urikit/urikit/resolver/memstore"
)

func kindOf(err error) resolver.Kind {
	var e *resolver.Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 255
}

// TestClient drives every method against a real server on loopback.
func TestClient(t *testing.T) {
	ctx := context.Background()
	e := apitest.NewEnv(t, func(*testing.T) resolver.Store { return memstore.New() })
	admin := client.New(e.URL+"/", apitest.AdminToken)

	a, err := admin.CreateAuthority(ctx, "Example", []string{"URN:Example:"})
	if err != nil || a.ID == 0 || a.Token == "" || !slices.Equal(a.Prefixes, []string{"urn:example:"}) {
		t.Fatalf("CreateAuthority: %+v, %v", a, err)
	}
	if _, err := admin.CreateAuthority(ctx, "Other", []string{"urn:example:sub"}); kindOf(err) != resolver.KindConflict {
		t.Fatalf("overlapping prefix: %v", err)
	}
	as, err := admin.Authorities(ctx)
	if err != nil || len(as) != 1 || as[0].Name != "Example" {
		t.Fatalf("Authorities: %+v, %v", as, err)
	}
	m := client.New(e.URL, a.Token)
	if _, err := m.Authorities(ctx); kindOf(err) != resolver.KindForbidden {
		t.Fatalf("a maintainer listing authorities: %v", err)
	}
	if _, err := client.New(e.URL, "").Authorities(ctx); kindOf(err) != resolver.KindUnauthorized {
		t.Fatalf("no token: %v", err)
	}

	// Names: a "/" and a "%" travel inside one path segment.
	name := "urn:example:a/b%2Fc"
	rec, created, err := m.Put(ctx, name, resolver.RecordInput{Locations: []resolver.Location{{URL: "http://example.org/1", Type: "text/html"}}})
	if err != nil || !created || rec.URN != name {
		t.Fatalf("Put: %+v %v %v", rec, created, err)
	}
	if _, created, err := m.Put(ctx, name, resolver.RecordInput{Locations: []resolver.Location{{URL: "http://example.org/1", Type: "text/html"}}}); err != nil || created {
		t.Fatalf("Put again: %v %v", created, err)
	}
	got, err := client.New(e.URL, "").Get(ctx, name)
	if err != nil || got.URN != name || got.Locations[0].Type != "text/html" || got.Status != resolver.Active {
		t.Fatalf("Get: %+v %v", got, err)
	}
	if _, err := m.Get(ctx, "urn:example:none"); kindOf(err) != resolver.KindNotFound {
		t.Fatalf("Get unknown: %v", err)
	}
	if _, _, err := m.Put(ctx, "urn:example:bad", resolver.RecordInput{Locations: []resolver.Location{{URL: "not a uri"}}}); kindOf(err) != resolver.KindInvalid {
		t.Fatalf("bad location: %v", err)
	} else {
		var re *resolver.Error
		errors.As(err, &re)
		if re.Field != "locations[0].url" {
			t.Fatalf("bad location: field %q", re.Field)
		}
	}
	w, err := m.Withdraw(ctx, name, "replaced", "urn:example:new")
	if err != nil || w.Status != resolver.Withdrawn || w.Successor != "urn:example:new" {
		t.Fatalf("Withdraw: %+v %v", w, err)
	}
	h, err := m.History(ctx, name)
	if err != nil || len(h) != 2 || h[0].Action != string(resolver.ActionNameCreate) || h[1].Action != string(resolver.ActionNameWithdraw) {
		t.Fatalf("History: %+v %v", h, err)
	}
	// Each entry's hash is that of what the API shows of it.
	for _, e := range h {
		if !e.Sound() || e.Record == 0 || e.Authority != a.ID {
			t.Fatalf("entry %d: sound %v, record %d, authority %d", e.Seq, e.Sound(), e.Record, e.Authority)
		}
		changed := e
		changed.Data = []byte(strings.Replace(string(e.Data), "replaced", "REPLACED", 1))
		changed.Record++
		if changed.Sound() {
			t.Fatalf("entry %d with another record id and data is still sound", e.Seq)
		}
	}
	if _, _, err := m.Put(ctx, name, resolver.RecordInput{Locations: []resolver.Location{{URL: "http://example.org/2"}}}); kindOf(err) != resolver.KindConflict {
		t.Fatalf("reusing a withdrawn name: %v", err)
	}

	// Tokens.
	tok, err := m.AddToken(ctx, a.ID, "second")
	if err != nil || tok.Token == "" || tok.ID == 0 {
		t.Fatalf("AddToken: %+v %v", tok, err)
	}
	_, toks, err := admin.Authority(ctx, a.ID)
	if err != nil || len(toks) != 2 {
		t.Fatalf("Authority: %+v %v", toks, err)
	}
	if err := admin.RevokeToken(ctx, a.ID, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := client.New(e.URL, tok.Token).Put(ctx, "urn:example:x", resolver.RecordInput{Locations: []resolver.Location{{URL: "http://x/"}}}); kindOf(err) != resolver.KindUnauthorized {
		t.Fatalf("revoked token: %v", err)
	}
	tr, err := admin.TransferAuthority(ctx, a.ID, "New owner")
	if err != nil || tr.Token == "" || tr.Name != "New owner" {
		t.Fatalf("Transfer: %+v %v", tr, err)
	}
	if _, err := m.Get(ctx, name); err != nil {
		t.Fatalf("reads need no valid token... %v", err)
	}
	m = client.New(e.URL, tr.Token)

	// Rules.
	r, err := admin.AddRule(ctx, "urn:nbn:de:", "https://resolver.example/")
	if err != nil || r.ID == 0 || r.Prefix != "urn:nbn:de:" {
		t.Fatalf("AddRule: %+v %v", r, err)
	}
	rs, err := admin.Rules(ctx)
	if err != nil || len(rs) != 1 || rs[0].Target != "https://resolver.example/" {
		t.Fatalf("Rules: %+v %v", rs, err)
	}
	if err := admin.RemoveRule(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	if err := admin.RemoveRule(ctx, r.ID); kindOf(err) != resolver.KindNotFound {
		t.Fatalf("removing twice: %v", err)
	}

	// Listing: more records than one page holds, in creation order.
	want := []string{name}
	for i := range 25 {
		n := fmt.Sprintf("urn:example:n%03d", 25-i)
		if _, _, err := m.Put(ctx, n, resolver.RecordInput{Locations: []resolver.Location{{URL: "HTTP://Example.ORG/shared"}, {URL: fmt.Sprintf("http://example.org/p%d", i)}}}); err != nil {
			t.Fatal(err)
		}
		want = append(want, n)
	}
	page, err := admin.Records(ctx, 0, 10)
	if err != nil || len(page.Records) != 10 || page.Next == nil {
		t.Fatalf("Records: %d %v %v", len(page.Records), page.Next, err)
	}
	var listed []string
	if err := admin.EachRecord(ctx, func(r resolver.Record) error { listed = append(listed, r.URN); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(listed, want) {
		t.Fatalf("EachRecord: %q\nwant %q", listed, want)
	}
	if _, err := m.Records(ctx, 0, 0); kindOf(err) != resolver.KindForbidden {
		t.Fatalf("a maintainer listing: %v", err)
	}
	dups := func(withdrawn bool) []client.Duplicate {
		t.Helper()
		var ds []client.Duplicate
		if err := admin.Duplicates(ctx, withdrawn, func(d client.Duplicate) error { ds = append(ds, d); return nil }); err != nil {
			t.Fatal(err)
		}
		return ds
	}
	if ds := dups(false); len(ds) != 1 || ds[0].Location != "http://example.org/shared" || len(ds[0].URNs) != 25 {
		t.Fatalf("Duplicates: %+v", ds)
	}
	// A withdrawn record is left out, unless asked for, with its status.
	if _, err := m.Withdraw(ctx, "urn:example:n025", "merged", ""); err != nil {
		t.Fatal(err)
	}
	if ds := dups(false); len(ds) != 1 || len(ds[0].URNs) != 24 || slices.Contains(ds[0].URNs, "urn:example:n025") {
		t.Fatalf("Duplicates of active records: %+v", ds)
	}
	ds := dups(true)
	if len(ds) != 1 || len(ds[0].URNs) != 25 || len(ds[0].Statuses) != 25 || ds[0].URNs[0] != "urn:example:n025" ||
		ds[0].Statuses[0] != resolver.Withdrawn || ds[0].Statuses[1] != resolver.Active {
		t.Fatalf("Duplicates with withdrawn records: %+v", ds)
	}
	stop := errors.New("stop")
	if err := admin.EachRecord(ctx, func(resolver.Record) error { return stop }); err != stop {
		t.Fatalf("EachRecord returns fn's error: %v", err)
	}

	// A server that is not there is KindUnavailable.
	if _, err := client.New("http://127.0.0.1:1", "").Get(ctx, name); kindOf(err) != resolver.KindUnavailable {
		t.Fatalf("no server: %v", err)
	}
}

// TestNotAPI: an error answer without problem details (a proxy's page,
// another server on the port) is one line naming the request and the
// status, and carries ErrNotAPI.
func TestNotAPI(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusMethodNotAllowed)
		fmt.Fprint(w, "<html>\n<head><title>405 Not Allowed</title></head>\n<body>nginx</body>\n</html>\n")
	}))
	defer srv.Close()
	_, _, err := client.New(srv.URL, "t").Put(context.Background(), "urn:example:a", resolver.RecordInput{})
	if !errors.Is(err, client.ErrNotAPI) {
		t.Fatalf("error %v does not carry ErrNotAPI", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || strings.Contains(msg, "<html>") ||
		!strings.Contains(msg, "PUT "+srv.URL+"/api/v1/names/urn:example:a answered 405 Method Not Allowed (text/html)") {
		t.Fatalf("message %q", msg)
	}
}

// TestErrorSaysFieldOnce: the detail of a problem about one input already
// names the field and the offset (the Service's error text); the client's
// error says them once, as the Service's own error does, and still gives
// them apart in Field and Offset.
func TestErrorSaysFieldOnce(t *testing.T) {
	ctx := context.Background()
	e := apitest.NewEnv(t, func(*testing.T) resolver.Store { return memstore.New() })
	_, tok := e.Authority("Example", "urn:example:")
	m := client.New(e.URL, tok)
	for _, tc := range []struct {
		body   string
		in     resolver.RecordInput
		field  string
		offset bool
	}{
		{`{"locations":[{"url":"not-a-url"}]}`, resolver.RecordInput{Locations: []resolver.Location{{URL: "not-a-url"}}}, "locations[0].url", true},
		{`{"locations":[{"url":"https://e.org/"}],"redirect":308}`, resolver.RecordInput{Locations: []resolver.Location{{URL: "https://e.org/"}}, Redirect: 308}, "redirect", false},
	} {
		detail := e.Put(tok, "urn:example:r1", tc.body).Want(t, http.StatusBadRequest).Problem(t).Detail
		_, _, err := m.Put(ctx, "urn:example:r1", tc.in)
		var re *resolver.Error
		if !errors.As(err, &re) {
			t.Fatalf("%s: %v", tc.body, err)
		}
		if err.Error() != detail || strings.Count(err.Error(), tc.field) != 1 || strings.Count(err.Error(), "(at byte") > 1 {
			t.Errorf("%s: client error %q, want the problem's detail %q once", tc.body, err, detail)
		}
		if re.Field != tc.field || (re.Offset >= 0) != tc.offset || strings.Contains(re.Message, tc.field) || strings.Contains(re.Message, "(at byte") {
			t.Errorf("%s: field %q, offset %d, message %q", tc.body, re.Field, re.Offset, re.Message)
		}
	}
}

// TestHistoryFollowsLinks: History reads a history page after page, taking
// the cursor from the Link with rel="next" however the field is written
// (several link-values, a comma in a target, a rel listing several
// relations), and stops, saying why, on a link that would go round, or on
// a link back (rel="prev") that does not start from the page's first
// entry.
func TestHistoryFollowsLinks(t *testing.T) {
	pages := map[string]historyPage{
		"":        {`[{"seq":1},{"seq":3}]`, `<https://elsewhere.example/a,b>; rel="alternate", </api/v1/names/urn:example:a,b/history?after=3&limit=2>; rel="next"`},
		"after=3": {`[{"seq":4},{"seq":9}]`, `</api/v1/names/urn:example:a,b/history?after=9&limit=2>; title="x, y"; rel="last NEXT", </api/v1/names/urn:example:a,b/history?before=4&limit=2>; rel="prev"`},
		"after=9": {`[{"seq":10}]`, ``},
		// A server whose link does not move on.
		"loop":    {`[{"seq":5}]`, `</api/v1/names/urn:example:loop/history?after=0&limit=2>; rel="next"`},
		"bad":     {`[{"seq":5}]`, `</api/v1/names/urn:example:bad/history?limit=2>; rel="next"`},
		"unorder": {`[{"seq":3},{"seq":2}]`, ``}, // entries out of order
		"prevoff": {`[{"seq":3},{"seq":4}]`, `</api/v1/names/urn:example:prevoff/history?before=4>; rel="prev"`},
	}
	// Servers whose cursor moves on but wrongly, made from the after=
	// asked: empty pages that link on for ever; a cursor behind the
	// page's last entry, which would repeat it on the next page.
	moving := map[string]func(after int) (string, string){
		"empty": func(after int) (string, string) {
			return `[]`, fmt.Sprintf(`</api/v1/names/urn:example:empty/history?after=%d>; rel="next"`, after+5)
		},
		"behind": func(after int) (string, string) {
			return fmt.Sprintf(`[{"seq":%d},{"seq":%d}]`, after+1, after+2), fmt.Sprintf(`</api/v1/names/urn:example:behind/history?after=%d>; rel="next"`, after+1)
		},
	}
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.RawQuery)
		key := r.URL.RawQuery
		if strings.HasSuffix(r.URL.Path, ":loop/history") {
			key = "loop"
		} else if _, tail, ok := strings.Cut(r.URL.Path, "urn:example:"); ok && tail != "a,b/history" {
			key = strings.TrimSuffix(tail, "/history")
		}
		p, ok := pages[key]
		if next := moving[key]; next != nil {
			after, _ := strconv.Atoi(r.URL.Query().Get("after"))
			p.body, p.link = next(after)
			ok = true
			if len(asked) > 1000 { // a client that follows for ever: end, as if well
				p.body, p.link = `[]`, ""
			}
		}
		writeHistoryPage(w, p, ok)
	}))
	defer srv.Close()
	c := client.New(srv.URL, "")
	h, err := c.History(context.Background(), "urn:example:a,b")
	var seqs []int64
	for _, e := range h {
		seqs = append(seqs, e.Seq)
	}
	if err != nil || !slices.Equal(seqs, []int64{1, 3, 4, 9, 10}) || !slices.Equal(asked, []string{"", "after=3", "after=9"}) {
		t.Fatalf("History: %v %v, asked %q", seqs, err, asked)
	}
	for _, name := range []string{"urn:example:loop", "urn:example:bad", "urn:example:empty", "urn:example:behind", "urn:example:unorder", "urn:example:prevoff"} {
		if _, err := c.History(context.Background(), name); !errors.Is(err, client.ErrNotAPI) {
			t.Errorf("%s: %v", name, err)
		}
	}
	p, err := c.HistoryPage(context.Background(), "urn:example:a,b", 3, 0)
	if err != nil || p.Prev == nil || *p.Prev != 4 || p.Next == nil || *p.Next != 9 {
		t.Fatalf("HistoryPage after 3: %+v, %v", p, err)
	}
}

// TestRecentHistoryFollowsLinks: RecentHistory reads a history from its
// newest page (before=end) back, taking the cursor from the Link with
// rel="prev", newest entry first, asking for no more than it wants; and
// stops, saying why, on a server whose pages back do not move on.
func TestRecentHistoryFollowsLinks(t *testing.T) {
	const base = "/api/v1/names/urn:example:a,b/history"
	pages := map[string]historyPage{
		"end": {`[{"seq":10},{"seq":12}]`, `<https://elsewhere.example/a,b>; rel="alternate", <` + base + `?before=10&limit=2>; title="x, y"; rel="PREV first"`},
		"10":  {`[{"seq":4},{"seq":9}]`, `<` + base + `?before=4&limit=2>; rel="prev", <` + base + `?after=9&limit=2>; rel="next"`},
		"4":   {`[{"seq":1},{"seq":3}]`, `<` + base + `?after=3&limit=2>; rel="next"`},
	}
	// Servers that answer every before= alike, and ones whose pages move
	// back but wrongly, made from the before= asked (end is 5).
	bad := map[string]func(before int) (string, string){
		"repeat": func(int) (string, string) { return `[{"seq":5}]`, `<x?before=5>; rel="prev"` }, // the same page again
		"stay": func(b int) (string, string) {
			return `[{"seq":2},{"seq":3}]`, fmt.Sprintf(`<x?before=%d>; rel="prev"`, b)
		},
		"empty": func(b int) (string, string) { return `[]`, fmt.Sprintf(`<x?before=%d>; rel="prev"`, b-1) },
		"word":  func(int) (string, string) { return `[{"seq":5}]`, `<x?before=end>; rel="prev"` },
		"order": func(int) (string, string) { return `[{"seq":3},{"seq":2}]`, `` },
		"next":  func(int) (string, string) { return `[{"seq":3},{"seq":4}]`, `<x?after=3>; rel="next"` },
		// Below the first entry: numbers that go on down for ever.
		"down": func(b int) (string, string) {
			return fmt.Sprintf(`[{"seq":%d},{"seq":%d}]`, b-2, b-1), fmt.Sprintf(`<x?before=%d>; rel="prev"`, b-2)
		},
	}
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.RawQuery)
		before := r.URL.Query().Get("before")
		p, ok := pages[before]
		if _, tail, _ := strings.Cut(r.URL.Path, "urn:example:"); tail != "a,b/history" {
			b, _ := strconv.Atoi(before)
			if before == "end" {
				b = 5
			}
			f := bad[strings.TrimSuffix(tail, "/history")]
			p.body, p.link = f(b)
			ok = len(asked) < 1000 // a client that follows for ever: 418
		}
		writeHistoryPage(w, p, ok)
	}))
	defer srv.Close()
	c := client.New(srv.URL, "")
	seqs := func(h []client.HistoryEntry) []int64 {
		var s []int64
		for _, e := range h {
			s = append(s, e.Seq)
		}
		return s
	}
	for _, tc := range []struct {
		n     int
		want  []int64
		asked []string
	}{
		{0, []int64{12, 10, 9, 4, 3, 1}, []string{"before=end", "before=10", "before=4"}},
		{3, []int64{12, 10, 9}, []string{"before=end&limit=3", "before=10&limit=1"}},
		{2, []int64{12, 10}, []string{"before=end&limit=2"}},
		{100, []int64{12, 10, 9, 4, 3, 1}, []string{"before=end&limit=100", "before=10&limit=98", "before=4&limit=96"}},
	} {
		asked = nil
		h, err := c.RecentHistory(context.Background(), "urn:example:a,b", tc.n)
		if err != nil || !slices.Equal(seqs(h), tc.want) || !slices.Equal(asked, tc.asked) {
			t.Errorf("RecentHistory(%d): %v %v, asked %q", tc.n, seqs(h), err, asked)
		}
	}
	p, err := c.HistoryPageBefore(context.Background(), "urn:example:a,b", 10, 2)
	if err != nil || !slices.Equal(seqs(p.Entries), []int64{4, 9}) || p.Prev == nil || *p.Prev != 4 || p.Next == nil || *p.Next != 9 {
		t.Fatalf("HistoryPageBefore(10): %+v, %v", p, err)
	}
	for name := range bad {
		asked = nil
		if _, err := c.RecentHistory(context.Background(), "urn:example:"+name, 0); !errors.Is(err, client.ErrNotAPI) || len(asked) > 3 {
			t.Errorf("%s: %v after %d pages", name, err, len(asked))
		}
	}
}

// historyPage is a page of history a test server answers: its body and
// its Link field ("" for none).
type historyPage struct{ body, link string }

// writeHistoryPage answers p, or 418 when the test server has no such
// page (ok false).
func writeHistoryPage(w http.ResponseWriter, p historyPage, ok bool) {
	if !ok {
		http.Error(w, "no such page", http.StatusTeapot)
		return
	}
	if p.link != "" {
		w.Header().Set("Link", p.link)
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, p.body)
}

// TestPredecessorsPagesMoveOn: Predecessors follows next from page to
// page, and refuses a server whose next does not move past the cursor
// (or whose pages are empty but link on), which would make it read for
// ever.
func TestPredecessorsPagesMoveOn(t *testing.T) {
	var asked int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked++
		after, _ := strconv.Atoi(r.URL.Query().Get("after"))
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.Contains(r.URL.Path, ":good/"):
			if after == 0 {
				fmt.Fprint(w, `{"urn":"urn:example:good","predecessors":["urn:example:p1","urn:example:p2"],"next":7}`)
			} else {
				fmt.Fprintf(w, `{"urn":"urn:example:good","predecessors":["urn:example:p%d"]}`, after)
			}
		case strings.Contains(r.URL.Path, ":stuck/"):
			fmt.Fprint(w, `{"urn":"urn:example:stuck","predecessors":["urn:example:p1"],"next":3}`)
		case strings.Contains(r.URL.Path, ":empty/"):
			fmt.Fprintf(w, `{"urn":"urn:example:empty","predecessors":[],"next":%d}`, after+1)
		}
	}))
	defer srv.Close()
	c := client.New(srv.URL, "")
	got, err := c.Predecessors(context.Background(), "urn:example:good")
	if err != nil || !slices.Equal(got, []string{"urn:example:p1", "urn:example:p2", "urn:example:p7"}) {
		t.Fatalf("Predecessors: %q, %v", got, err)
	}
	for _, name := range []string{"urn:example:stuck", "urn:example:empty"} {
		asked = 0
		if got, err := c.Predecessors(context.Background(), name); !errors.Is(err, client.ErrNotAPI) || asked > 3 {
			t.Errorf("%s: %q, %v after %d pages, want ErrNotAPI at once", name, got, err, asked)
		}
	}
}

// TestEachByLocation: EachByLocation lists every record that lists a
// URL, past the first 100 that L2Ns answers with, anonymously, a page at
// a time; the admin's Duplicates says when a location's names are cut.
func TestEachByLocation(t *testing.T) {
	ctx := context.Background()
	e := apitest.NewEnv(t, func(*testing.T) resolver.Store { return memstore.New() })
	admin := client.New(e.URL, apitest.AdminToken)
	a, err := admin.CreateAuthority(ctx, "Example", []string{"urn:example:"})
	if err != nil {
		t.Fatal(err)
	}
	m := client.New(e.URL, a.Token)
	n := resolver.MaxByLocation + 5
	var all []string
	for i := range n {
		name := fmt.Sprintf("urn:example:%03d", i)
		in := resolver.RecordInput{Locations: []resolver.Location{{URL: "https://popular.example/"}}}
		if _, _, err := m.Put(ctx, name, in); err != nil {
			t.Fatal(err)
		}
		all = append(all, name)
	}
	if _, err := m.Withdraw(ctx, all[3], "", ""); err != nil {
		t.Fatal(err)
	}
	active := slices.Delete(slices.Clone(all), 3, 4)
	anyone := client.New(e.URL, "")
	for _, withdrawn := range []bool{false, true} {
		want := active
		if withdrawn {
			want = all
		}
		var got []string
		err := anyone.EachByLocation(ctx, "HTTPS://popular.example:443/", withdrawn, func(r resolver.Record) error {
			got = append(got, r.URN)
			return nil
		})
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("EachByLocation (withdrawn %v): %d names, %v; want %d", withdrawn, len(got), err, len(want))
		}
	}
	p, err := anyone.ByLocationPage(ctx, "https://popular.example/", 0, 7, false)
	if err != nil || len(p.Records) != 7 || p.Next == nil || p.Key != "https://popular.example/" {
		t.Fatalf("ByLocationPage limit 7: %d records, next %v, key %q, %v", len(p.Records), p.Next, p.Key, err)
	}
	if _, err := anyone.ByLocationPage(ctx, "not a URL", 0, 0, false); kindOf(err) != resolver.KindInvalid {
		t.Fatalf("ByLocationPage of an invalid URL: %v", err)
	}
	var dups []client.Duplicate
	if err := admin.Duplicates(ctx, false, func(d client.Duplicate) error { dups = append(dups, d); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(dups) != 1 || !dups[0].MoreURNs || len(dups[0].URNs) != resolver.MaxByLocation || dups[0].Next == "" {
		t.Fatalf("Duplicates: %+v", dups)
	}
}

// TestEachByLocationRefusesStuckCursor: a server whose next cursor does
// not move on (the same, an earlier one, or one on an empty page) is
// refused after one page, rather than asked for ever.
func TestEachByLocationRefusesStuckCursor(t *testing.T) {
	var asked int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked++
		after, _ := strconv.Atoi(r.URL.Query().Get("after"))
		body := map[string]string{
			"same":  fmt.Sprintf(`{"records":[{"urn":"urn:example:a"}],"next":%d}`, after),
			"back":  fmt.Sprintf(`{"records":[{"urn":"urn:example:a"}],"next":%d}`, max(0, after-1)),
			"empty": fmt.Sprintf(`{"records":[],"next":%d}`, after+1),
			"ok":    fmt.Sprintf(`{"records":[{"urn":"urn:example:a"}],"next":%d}`, after+1),
		}[r.URL.Query().Get("url")]
		if body == "" || asked > 100 {
			http.Error(w, "no such page", http.StatusTeapot)
			return
		}
		if after >= 3 {
			body = `{"records":[]}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}))
	defer srv.Close()
	c := client.New(srv.URL, "")
	count := func(u string) (int, error) {
		n := 0
		err := c.EachByLocation(context.Background(), u, false, func(resolver.Record) error { n++; return nil })
		return n, err
	}
	for _, u := range []string{"same", "back", "empty"} {
		asked = 0
		if _, err := count(u); !errors.Is(err, client.ErrNotAPI) || asked > 2 {
			t.Errorf("%s: %v after %d pages", u, err, asked)
		}
	}
	asked = 0
	if n, err := count("ok"); err != nil || n != 3 || asked != 4 {
		t.Errorf("a cursor that moves on: %d records, %v, after %d pages", n, err, asked)
	}
}
