// Package web is the resolver's web page: a search form at "/", one page
// per name at "/names/<urn>" showing the name's parsed parts, its record and
// its history, and the stylesheet and script under "/static/". Reading needs
// no script; a maintainer who pastes a token gets forms that register, edit
// and withdraw names through the JSON API (resolver/httpapi), which is where
// every write and every rule check happens. This package only reads.
//
// Templates, stylesheet and script are embedded (go:embed) and the page
// loads nothing from anywhere else, which is what lets the Content Security
// Policy allow scripts from this origin only.
package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urikit/urikit/resolver"
	htmllink "github.com/urikit/urikit/resolver/internal/link"
	"github.com/urikit/urikit/urn"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options configure the page. The zero value is usable.
type Options struct {
	// Title names the resolver at the top of every page; "urikit resolver"
	// when empty.
	Title string
	// API is the path of the JSON API that the page's script calls, on
	// this origin (the Content Security Policy allows no other); "/api/v1"
	// when empty. It must be an absolute path.
	API string
	// MaxTarget bounds the request target (path and query as sent) in
	// bytes: longer ones get 414. 0 means 8 KiB, the resolver's default.
	MaxTarget int
	// Timeout bounds the store lookups of one page; 0 means 5 seconds.
	Timeout time.Duration
	// Logger receives internal errors (level Error) and the store's
	// outages (level Warn, with the store's own words). nil discards them.
	Logger *slog.Logger
}

// Defaults of Options.
const (
	DefaultTitle     = "urikit resolver"
	DefaultAPI       = "/api/v1"
	DefaultMaxTarget = 8 << 10
	DefaultTimeout   = 5 * time.Second
)

// csp is the Content Security Policy of every answer: nothing but this
// origin's own stylesheet, script, icon and API; no inline script or style
// (the templates have none), no framing, no form posting elsewhere.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// handler is the http.Handler New returns.
type handler struct {
	svc    *resolver.Service
	opts   Options
	log    *slog.Logger
	pages  map[string]*template.Template
	assets map[string]asset
}

// asset is one embedded static file with its validator.
type asset struct {
	body  []byte
	ctype string
	etag  string
}

// New returns the page's handler over svc. It serves GET and HEAD of "/",
// of "/names/<urn>" and of "/static/<file>"; the request path is read raw
// from the request target, since the bytes of a name (its "//", "/./",
// "%2F") are part of it.
func New(svc *resolver.Service, opts Options) http.Handler {
	if opts.Title == "" {
		opts.Title = DefaultTitle
	}
	if opts.API == "" || !strings.HasPrefix(opts.API, "/") || strings.HasPrefix(opts.API, "//") {
		opts.API = DefaultAPI
	}
	opts.API = strings.TrimRight(opts.API, "/")
	if opts.MaxTarget <= 0 {
		opts.MaxTarget = DefaultMaxTarget
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	h := &handler{svc: svc, opts: opts, log: opts.Logger}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.pages = parseTemplates(opts.API)
	h.assets = loadAssets()
	return h
}

// parseTemplates parses the layout with each page. The templates are part
// of the binary, so an error is a bug that every test run finds: panic.
func parseTemplates(api string) map[string]*template.Template {
	base := template.Must(template.New("").Funcs(funcMap(api)).ParseFS(templateFS, "templates/layout.html", "templates/parts.html"))
	pages := map[string]*template.Template{}
	for _, p := range []string{"home", "name", "malformed", "problem"} {
		pages[p] = template.Must(template.Must(base.Clone()).ParseFS(templateFS, "templates/"+p+".html"))
	}
	return pages
}

func loadAssets() map[string]asset {
	m := map[string]asset{}
	types := map[string]string{
		".css": "text/css; charset=utf-8",
		".js":  "text/javascript; charset=utf-8",
		".svg": "image/svg+xml",
	}
	fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := staticFS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		m[strings.TrimPrefix(p, "static/")] = asset{body: b, ctype: types[path.Ext(p)], etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	return m
}

// ServeHTTP dispatches on the raw request path. It does not go through
// http.ServeMux, whose path cleaning would rewrite names.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", csp)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")

	target, rawPath, rawQuery := requestTarget(r)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		h.problem(w, r, http.StatusMethodNotAllowed, "Method not allowed",
			displayText(truncate(r.Method, 40))+" is not allowed here: the page only reads. Names are written through the JSON API.")
		return
	}
	if len(target) > h.opts.MaxTarget {
		h.problem(w, r, http.StatusRequestURITooLong, "Name too long",
			fmt.Sprintf("The request is %d bytes long; this resolver takes at most %d.", len(target), h.opts.MaxTarget))
		return
	}
	switch {
	case rawPath == "/":
		h.serveHome(w, r, rawQuery)
	case strings.HasPrefix(rawPath, "/names/"):
		name := rawPath[len("/names/"):]
		// RFC 8141 §2.3: an r-component ("?+") or q-component ("?=")
		// belongs to the name, as in the resolver's path style; any other
		// query is not part of it. A fragment never reaches the server.
		if strings.HasPrefix(rawQuery, "+") || strings.HasPrefix(rawQuery, "=") {
			name += "?" + rawQuery
		}
		if name == "" {
			hd.Set("Location", "/")
			w.WriteHeader(http.StatusSeeOther)
			return
		}
		var q url.Values
		if name == rawPath[len("/names/"):] {
			q, _ = url.ParseQuery(rawQuery) // a query that is no form has no before=
		}
		h.serveName(w, r, name, q)
	case strings.HasPrefix(rawPath, "/static/"):
		h.serveAsset(w, r, rawPath[len("/static/"):])
	default:
		h.problem(w, r, http.StatusNotFound, "No such page",
			"This resolver's pages are the search page at / and one page per name at /names/<urn>.")
	}
}

// requestTarget returns the request target as the client sent it, and its
// path and query, undecoded. For the absolute form (RFC 9112 §3.2.2) the
// scheme and authority are dropped.
func requestTarget(r *http.Request) (target, rawPath, rawQuery string) {
	target = r.RequestURI
	if target == "" { // a request built in a program, not read from a connection
		target = r.URL.RequestURI()
	}
	if !strings.HasPrefix(target, "/") {
		if i := strings.Index(target, "://"); i >= 0 {
			rest := target[i+3:]
			if j := strings.IndexAny(rest, "/?"); j >= 0 {
				target = rest[j:]
			} else {
				target = "/"
			}
		}
	}
	rawPath, rawQuery, _ = strings.Cut(target, "?")
	if rawPath == "" {
		rawPath = "/"
	}
	return target, rawPath, rawQuery
}

// serveHome answers "/": the search page, or the page of the name in the
// query's urn parameter (the search form is a GET, so that a search needs
// no script and its answer can be bookmarked).
func (h *handler) serveHome(w http.ResponseWriter, r *http.Request, rawQuery string) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil && strings.Contains("&"+rawQuery, "&urn=") {
		h.problem(w, r, http.StatusBadRequest, "Not a form query",
			"The query is not form-encoded ("+err.Error()+"). Search with the form, or send ?urn= with the name percent-encoded.")
		return
	}
	name := q.Get("urn")
	// People paste names with a space or a line break around them; a URN
	// never begins or ends with white space (RFC 8141 §2), so trimming it
	// cannot change which name is meant.
	name = strings.Trim(name, " \t\r\n\f\v")
	if name == "" {
		h.render(w, r, http.StatusOK, "home", homeData{layout: h.layout("", "Resolve a name")})
		return
	}
	h.serveName(w, r, name, q)
}

// serveName answers the page of one name; q is the query of the page
// beyond the name, whose before= pages back through the history.
func (h *handler) serveName(w http.ResponseWriter, r *http.Request, name string, q url.Values) {
	u, perr := parseName(name)
	if perr != nil {
		h.render(w, r, http.StatusBadRequest, "malformed", malformedView(h.layout(name, "Not a URN"), name, perr))
		return
	}
	before, ok := beforeParam(q)
	if !ok {
		h.problem(w, r, http.StatusBadRequest, "Not a place in the history",
			"before= is the number of a history entry (as the page's link to older entries gives it), or end for the newest entries, once.")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.opts.Timeout)
	defer cancel()
	d := nameData{layout: h.layout(name, u.AssignedName()), Parts: partsOf(u)}
	rec, hist, err := h.history(ctx, u, before)
	var withdrawn time.Time
	if err == nil && rec.Status == resolver.Withdrawn {
		withdrawn, err = h.withdrawnAt(ctx, rec.ID)
	}
	if err != nil {
		switch {
		case resolver.KindOf(err) == resolver.KindNotFound:
			d.Status = http.StatusNotFound
			if d.Reserved = errors.Is(err, resolver.ErrReserved); !d.Reserved {
				if rule, ok, err := h.svc.Rule(ctx, u); err == nil && ok {
					d.Rule = &rule
				}
			}
			h.render(w, r, http.StatusNotFound, "name", d)
		case resolver.KindOf(err) == resolver.KindUnavailable,
			errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
			h.unavailable(w, r, err)
		default:
			attrs := []any{"urn", u.AssignedName(), "err", err}
			var re *resolver.Error
			if errors.As(err, &re) && re.Err != nil {
				attrs = append(attrs, "cause", re.Err) // what the store said
			}
			h.log.Error("page lookup", attrs...)
			h.problem(w, r, http.StatusInternalServerError, "Internal error", "The page could not be built; the error was logged.")
		}
		return
	}
	// The records it replaces are shown, and are part of the entity-tag
	// that the page's writes send in If-Match (resolver.Record.ETag).
	shown, err := h.svc.WithPredecessors(ctx, rec)
	if err != nil {
		h.log.Error("page predecessors", "urn", rec.URN, "err", err)
		h.problem(w, r, http.StatusServiceUnavailable, "Directory unavailable",
			"The directory's store did not answer in time. Try again in a moment.")
		return
	}
	rec = shown
	d.Found = true
	d.Record = recordViewOf(rec)
	d.Record.WithdrawnAt = withdrawn
	d.Alias = rec.Key != u.Key()
	d.Equiv = !d.Alias && u.AssignedName() != rec.URN
	d.History = historyView(hist.shown, hist.before)
	if hist.older {
		d.Older = withQuery(d.Record.PageURL, "before="+strconv.FormatInt(hist.shown[0].Seq, 10))
	}
	if before > 0 {
		d.Newest = d.Record.PageURL
	}
	d.Title = rec.URN
	status := http.StatusOK
	if rec.Status == resolver.Withdrawn {
		// The page of a withdrawn name answers as the resolver does: 410
		// Gone, with its successor as a link (RFC 8288; the relation is
		// RFC 5829's).
		status = http.StatusGone
		if rec.Successor != "" && htmllink.Safe(rec.Successor) {
			w.Header().Set("Link", "<"+rec.Successor+`>; rel="successor-version"`)
		}
	}
	// The records it replaces, as links of RFC 5829's inverse relation,
	// in one field of bounded length (as the API's).
	if f := htmllink.Field(rec.Predecessors, "predecessor-version"); f != "" {
		w.Header().Add("Link", f)
	}
	d.Status = status
	h.render(w, r, status, "name", d)
}

// pageHistory is how many entries of a record's history its page shows at
// a time: the newest, and older ones a page back. A record may have
// changed a hundred thousand times.
const pageHistory = 50

// historyWindow is the part of a record's history a page shows.
type historyWindow struct {
	shown  []resolver.Entry // oldest first
	before resolver.Entry   // the entry before the first shown (Seq 0: none)
	older  bool             // whether entries older than shown exist
}

// history looks the name up and reads the pageHistory entries of its
// record's history below before (the newest when before is 0), and one
// more, which tells whether older ones exist and how the first shown
// reads (a withdrawal after a withdrawal restated the notice).
func (h *handler) history(ctx context.Context, u urn.URN, before int64) (resolver.Record, historyWindow, error) {
	rec, err := h.svc.Lookup(ctx, u)
	if err != nil {
		return resolver.Record{}, historyWindow{}, err
	}
	es, err := h.svc.RecentHistory(ctx, rec.ID, before, time.Time{}, pageHistory+1)
	if err != nil {
		return resolver.Record{}, historyWindow{}, err
	}
	var w historyWindow
	if len(es) > pageHistory {
		w.before, w.older, es = es[pageHistory], true, es[:pageHistory]
	}
	slices.Reverse(es)
	w.shown = es
	return rec, w, nil
}

// withdrawnAtScan is how many entries withdrawnAt reads at most, newest
// first: a notice restated more often than that leaves the time of the
// withdrawal unsaid rather than making the page read the whole history.
const withdrawnAtScan = 1000

// withdrawnAt returns the time of the entry that withdrew record id: the
// first of the withdrawals at the end of its history (the later ones
// restated the notice). Zero when the history does not end withdrawn, or
// when the withdrawal is not among its last withdrawnAtScan entries.
func (h *handler) withdrawnAt(ctx context.Context, id int64) (time.Time, error) {
	var at time.Time
	for before, read := int64(0), 0; read < withdrawnAtScan; {
		es, err := h.svc.RecentHistory(ctx, id, before, time.Time{}, pageHistory)
		if err != nil {
			return time.Time{}, err
		}
		for _, e := range es {
			switch {
			case !e.Action.ChangesRecord():
			case e.Action != resolver.ActionNameWithdraw:
				return at, nil
			default:
				at = e.Time
			}
			before = e.Seq
		}
		if len(es) < pageHistory {
			return at, nil
		}
		read += len(es)
	}
	return time.Time{}, nil
}

// beforeParam reads before= of a page's query as the history API reads
// it: absent, empty or "end" (0: the newest entries), or once, a positive
// entry number.
func beforeParam(q url.Values) (int64, bool) {
	v, ok := q["before"]
	if !ok {
		return 0, true
	}
	if len(v) != 1 {
		return 0, false
	}
	if v[0] == "" || v[0] == "end" {
		return 0, true
	}
	n, err := strconv.ParseInt(v[0], 10, 64)
	return n, err == nil && n > 0
}

// withQuery adds a query parameter to a page's URL, which may have a query
// already (pageURL).
func withQuery(page, param string) string {
	if strings.Contains(page, "?") {
		return page + "&" + param
	}
	return page + "?" + param
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// problem answers an error page.
// unavailable answers 503 for err, a store that failed or did not answer
// in time. The page says which, and a reason the operator must act on
// (resolver.UnavailableMessage: never a host); the log line has what the
// store said.
func (h *handler) unavailable(w http.ResponseWriter, r *http.Request, err error) {
	attrs := []any{"err", err}
	if c := resolver.Cause(err); c != "" {
		attrs = append(attrs, "cause", c)
	}
	h.log.Warn("store unavailable", attrs...)
	detail := "The directory's store did not answer in time. Try again in a moment."
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		detail = resolver.UnavailableMessage(err) + ". Try again in a moment."
		detail = strings.ToUpper(detail[:1]) + detail[1:]
	}
	h.problem(w, r, http.StatusServiceUnavailable, "Directory unavailable", detail)
}

func (h *handler) problem(w http.ResponseWriter, r *http.Request, status int, title, detail string) {
	d := problemData{layout: h.layout("", title), Detail: detail}
	d.Status = status
	h.render(w, r, status, "problem", d)
}

// layout is the part of every page's data that the layout uses.
func (h *handler) layout(search, title string) layout {
	return layout{Site: h.opts.Title, Search: displayText(search), Title: displayText(title), API: h.opts.API,
		CSS: "/static/app.css?v=" + strings.Trim(h.assets["app.css"].etag, `"`),
		JS:  "/static/app.js?v=" + strings.Trim(h.assets["app.js"].etag, `"`)}
}

// render executes a page into a buffer first, so that a template error
// cannot leave half a page behind a 200.
func (h *handler) render(w http.ResponseWriter, r *http.Request, status int, page string, data any) {
	var b bytes.Buffer
	if err := h.pages[page].ExecuteTemplate(&b, "layout", data); err != nil {
		h.log.Error("page template", "page", page, "err", err)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintln(w, "internal error: the page could not be built")
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("Content-Length", fmt.Sprint(b.Len()))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(b.Bytes())
	}
}

// serveAsset answers one embedded file. The page links each with its hash
// in the query, so it may be cached for long; a request without the right
// hash is still answered, revalidated by ETag.
func (h *handler) serveAsset(w http.ResponseWriter, r *http.Request, name string) {
	a, ok := h.assets[name]
	if !ok {
		h.problem(w, r, http.StatusNotFound, "No such file", "There is no static file of that name.")
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", a.ctype)
	hd.Set("ETag", a.etag)
	if v := r.URL.Query().Get("v"); v != "" && `"`+v+`"` == a.etag {
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		hd.Set("Cache-Control", "no-cache")
	}
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd.Set("Content-Length", fmt.Sprint(len(a.body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(a.body)
	}
}
