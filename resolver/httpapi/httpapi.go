// Package httpapi serves a resolver.Service over HTTP:
//
//   - the resolution services of RFC 2169 and RFC 2483 at
//     GET /uri-res/<service>?<urn> (N2L, N2Ls, N2R, N2Rs, N2C, N2Ns, L2Ns,
//     L2Ls, L2C, I2L, I2Ls, I2R, I2Rs, I2C, I2Cs, I2N, I2Ns);
//   - the path style GET /<urn>, with the service picked by the s=
//     directive of the rfc2141bis draft (seed 003) or an RFC 8141
//     r-component, I2L by default;
//   - the JSON API under /api/v1/ that naming authorities register names
//     with, described by the OpenAPI document at /api/v1/openapi.json;
//   - /healthz, /readyz and /metrics.
//
// Errors are RFC 9457 problem details. The resolver never fetches a
// location for a caller: the "R" services answer with redirects (see
// resolve.go for why).
package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/federate"
)

// Options configure the handler. The zero value is usable.
type Options struct {
	// MaxTarget bounds the request target (path and query as sent) and
	// the names in it, in bytes: longer ones get 414. 0 means 8 KiB.
	MaxTarget int
	// MaxBody bounds request bodies, in bytes: larger ones get 413. 0
	// means 1 MiB.
	MaxBody int64
	// MaxHops is how many times a request may have been delegated from
	// resolver to resolver (the hops directive of its r-component) before
	// this resolver refuses to delegate it again and answers 508 Loop
	// Detected (RFC 5842 §7.2). 0 means 8; more than federate.MaxHops,
	// the largest count a URN carries, means federate.MaxHops.
	MaxHops int
	// Delegator, when set, is asked where to send a request for a name
	// that has no record here (resolver/federate implements it).
	Delegator resolver.Delegator
	// Logger receives one access-log record per request (level Info) and
	// the internal errors (level Error). nil discards them.
	Logger *slog.Logger
	// Metrics is where the handler registers its Prometheus collectors.
	// nil means a registry of the handler's own (never the global one).
	Metrics prometheus.Registerer
	// Gatherer is what /metrics serves; by default Metrics when it is a
	// Gatherer too (a *prometheus.Registry), else the handler's registry.
	Gatherer prometheus.Gatherer
	// Ready reports whether the resolver can serve (/readyz). nil means
	// the store answers Head within ReadyTimeout.
	Ready func(ctx context.Context) error
	// ReadyTimeout bounds the readiness check. 0 means 2 seconds.
	ReadyTimeout time.Duration
	// Pages, when set, serves the web page: GET and HEAD of "/", of
	// every path under "/names/" (taken raw, like the path style: a
	// name's page is /names/<urn>) and under "/static/" (its assets).
	// When nil, "/" answers with a short plain-text pointer to the API
	// and the other two are 404.
	Pages http.Handler
	// Positions is the read-your-writes hook (see Positions). nil means
	// the history's sequence number, which is exact for one store.
	Positions Positions
	// PrivateLog serves the whole history (GET /api/v1/log) to the admin
	// token only. By default anyone may read it, so that anyone can check
	// the history was not rewritten; it then also lists every record the
	// directory ever had, which GET /api/v1/names gives only the admin.
	PrivateLog bool
}

// Defaults of Options.
const (
	DefaultMaxTarget    = 8 << 10
	DefaultMaxBody      = 1 << 20
	DefaultMaxHops      = 8
	DefaultReadyTimeout = 2 * time.Second
)

// handler is the http.Handler New returns.
type handler struct {
	svc  *resolver.Service
	opts Options
	log  *slog.Logger
	mux  *http.ServeMux
	m    *metrics
	pos  Positions

	// writers recycles respWriters: one per request would otherwise be
	// the resolver's most frequent allocation.
	writers sync.Pool
}

// New returns the resolver's HTTP handler over svc.
func New(svc *resolver.Service, opts Options) http.Handler {
	if opts.MaxTarget <= 0 {
		opts.MaxTarget = DefaultMaxTarget
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.MaxHops <= 0 {
		opts.MaxHops = DefaultMaxHops
	}
	opts.MaxHops = min(opts.MaxHops, federate.MaxHops)
	if opts.ReadyTimeout <= 0 {
		opts.ReadyTimeout = DefaultReadyTimeout
	}
	h := &handler{svc: svc, opts: opts, log: opts.Logger, mux: http.NewServeMux()}
	h.writers.New = func() any { return new(respWriter) }
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.pos = opts.Positions
	if h.pos == nil {
		h.pos = seqPositions{svc.Store()}
	}
	h.m = newMetrics(svc, opts.Metrics, opts.Gatherer, h.log)
	for _, rt := range h.routes() {
		if rt.raw {
			continue
		}
		h.mux.Handle(rt.method+" "+rt.pattern, h.adapt(rt.pattern, rt.serve))
	}
	return h
}

// route is one entry of the routing table: the table drives both the
// ServeMux and the test that holds the OpenAPI document to the real routes.
type route struct {
	method, pattern string
	serve           func(*respWriter, *http.Request)
	// raw routes are dispatched by ServeHTTP on the path as sent, before
	// the ServeMux, which would clean the path (and redirect) first.
	raw bool
}

func (h *handler) routes() []route {
	return append([]route{
		{method: "GET", pattern: "/{$}", serve: h.serveRoot},
		{method: "GET", pattern: "/{urn}", serve: nil, raw: true},
		{method: "GET", pattern: "/names/{urn}", serve: nil, raw: true},
		{method: "GET", pattern: "/static/{path}", serve: nil, raw: true},
		{method: "GET", pattern: "/uri-res/{service}", serve: nil, raw: true},
		{method: "GET", pattern: "/healthz", serve: h.serveHealth},
		{method: "GET", pattern: "/readyz", serve: h.serveReady},
		{method: "GET", pattern: "/metrics", serve: h.serveMetrics},
		{method: "GET", pattern: "/api/v1/openapi.json", serve: h.serveOpenAPI},

		{method: "POST", pattern: "/api/v1/authorities", serve: h.api(h.createAuthority)},
		{method: "GET", pattern: "/api/v1/authorities", serve: h.api(h.listAuthorities)},
		{method: "GET", pattern: "/api/v1/token", serve: h.api(h.whoAmI)},
		{method: "GET", pattern: "/api/v1/authorities/{id}", serve: h.api(h.getAuthority)},
		{method: "POST", pattern: "/api/v1/authorities/{id}/tokens", serve: h.api(h.addToken)},
		{method: "GET", pattern: "/api/v1/authorities/{id}/tokens/{token}", serve: h.api(h.getToken)},
		{method: "DELETE", pattern: "/api/v1/authorities/{id}/tokens/{token}", serve: h.api(h.revokeToken)},
		{method: "POST", pattern: "/api/v1/authorities/{id}/transfer", serve: h.api(h.transferAuthority)},

		{method: "PUT", pattern: "/api/v1/names/{urn}", serve: h.api(noQuery(h.putName))},
		{method: "GET", pattern: "/api/v1/names/{urn}", serve: h.publicAPI(h.getName)},
		{method: "POST", pattern: "/api/v1/names/{urn}/withdraw", serve: h.api(noQuery(h.withdrawName))},
		{method: "GET", pattern: "/api/v1/names/{urn}/history", serve: h.publicAPI(h.nameHistory)},
		{method: "GET", pattern: "/api/v1/names/{urn}/predecessors", serve: h.publicAPI(h.namePredecessors)},

		{method: "POST", pattern: "/api/v1/rules", serve: h.api(h.addRule)},
		{method: "GET", pattern: "/api/v1/rules", serve: h.api(h.listRules)},
		{method: "DELETE", pattern: "/api/v1/rules/{id}", serve: h.api(h.removeRule)},
		{method: "GET", pattern: "/api/v1/discovery", serve: h.api(h.discovery)},
	}, h.listingRoutes()...)
}

// adapt turns a route's function into a ServeMux handler. Every request
// reaches it through ServeHTTP, so w is the *respWriter made there.
func (h *handler) adapt(pattern string, fn func(*respWriter, *http.Request)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw, ok := w.(*respWriter)
		if !ok {
			rw = &respWriter{ResponseWriter: w}
		}
		rw.route = pattern
		fn(rw, r)
	})
}

// respWriter records what was answered, for the access log and metrics,
// and carries the labels the handlers set.
type respWriter struct {
	http.ResponseWriter
	status  int
	bytes   int64
	route   string // the route's pattern
	service string // the resolution service, for resolution routes
	err     error  // an internal error, for the log
}

func (w *respWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *respWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *respWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ServeHTTP recovers from panics, enforces the limits, dispatches the
// routes that must see the raw path, and hands the rest to the ServeMux.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rw := h.writers.Get().(*respWriter)
	*rw = respWriter{ResponseWriter: w}
	h.m.inflight.Inc()
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v) // the handler asked for the connection to be dropped
			}
			rw.err = fmt.Errorf("panic: %v\n%s", v, debug.Stack())
			if rw.status == 0 {
				h.writeProblem(rw, r, newProblem(http.StatusInternalServerError, ptInternal, "an internal error occurred; it was logged"))
			}
		}
		h.m.inflight.Dec()
		h.finish(rw, r, start)
		// Pages may keep w (an http.ResponseController, say) only while
		// it serves, as with any handler; after that rw is reused.
		*rw = respWriter{}
		h.writers.Put(rw)
	}()

	target, path, query := requestTarget(r)
	if len(target) > h.opts.MaxTarget {
		rw.route = "limit"
		p := newProblem(http.StatusRequestURITooLong, ptTooLong,
			fmt.Sprintf("the request target is %d bytes long; this resolver takes at most %d", len(target), h.opts.MaxTarget))
		p.Limit = int64(h.opts.MaxTarget)
		h.writeProblem(rw, r, p)
		return
	}
	if r.ContentLength > h.opts.MaxBody {
		rw.route = "limit"
		h.tooLarge(rw, r)
		return
	}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = http.MaxBytesReader(rw, r.Body, h.opts.MaxBody)
	}

	switch {
	case hasPrefixFold(path, "/urn:"):
		// The path style: the name is the rest of the path exactly as
		// sent. Go's ServeMux would clean "//", "/./" and "/../" out of
		// it (and redirect), but those bytes are part of names here.
		rw.route = "/{urn}"
		if !h.allowGet(rw, r) {
			return
		}
		h.servePathStyle(rw, r, target[1:])
	case strings.HasPrefix(path, "/uri-res/") && strings.IndexByte(path[len("/uri-res/"):], '/') < 0 && len(path) > len("/uri-res/"):
		// RFC 2169's route, the busiest after the path style: dispatched
		// here to spare it the ServeMux's matching.
		rw.route = "/uri-res/{service}"
		if !h.allowGet(rw, r) {
			return
		}
		h.serveURIRes(rw, r, path[len("/uri-res/"):], query)
	case strings.HasPrefix(path, "/names/") || strings.HasPrefix(path, "/static/"):
		rw.route = "/static/{path}"
		if strings.HasPrefix(path, "/names/") {
			rw.route = "/names/{urn}"
		}
		if h.opts.Pages == nil {
			h.writeProblem(rw, r, newProblem(http.StatusNotFound, ptNoRoute, "this resolver serves no web pages"))
			return
		}
		if !h.allowGet(rw, r) {
			return
		}
		h.opts.Pages.ServeHTTP(rw, r)
	default:
		h.serveMux(rw, r, path)
	}
}

// serveMux hands the request to the ServeMux, answering its own 404, 405
// and redirects as problems (the ServeMux answers those in plain text).
func (h *handler) serveMux(rw *respWriter, r *http.Request, path string) {
	if strings.HasPrefix(path, "/api/v1/names/") {
		// The name is one path segment, its "/" sent as %2F. A raw "/"
		// in it would make the ServeMux clean the path or miss the route;
		// say what is wrong instead.
		rest := path[len("/api/v1/names/"):]
		seg, tail, _ := strings.Cut(rest, "/")
		if seg == "" || tail != "" && tail != "history" && tail != "withdraw" && tail != "predecessors" {
			rw.route = "/api/v1/names/{urn}"
			h.writeProblem(rw, r, newProblem(http.StatusBadRequest, ptInvalid,
				`the name must be one path segment: percent-encode its "/" as %2F and its "%" as %25`).at("urn", -1))
			return
		}
	}
	if _, pat := h.mux.Handler(r); pat == "" {
		// No route: the ServeMux's fallback answers 404, 405 (with
		// Allow) or a redirect. Run it aside and translate.
		c := &captureWriter{h: http.Header{}}
		fb, _ := h.mux.Handler(r)
		fb.ServeHTTP(c, r)
		rw.route = "unmatched"
		switch c.code {
		case http.StatusMethodNotAllowed:
			p := newProblem(http.StatusMethodNotAllowed, ptMethod, r.Method+" is not allowed on "+truncate(path, 200))
			p.Allow = strings.Split(c.h.Get("Allow"), ", ")
			h.writeProblem(rw, r, p)
		case http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
			rw.Header().Set("Location", c.h.Get("Location"))
			rw.WriteHeader(c.code)
		default:
			h.writeProblem(rw, r, newProblem(http.StatusNotFound, ptNoRoute, "no such resource: "+truncate(path, 200)))
		}
		return
	}
	h.mux.ServeHTTP(rw, r)
}

// captureWriter takes the ServeMux fallback's answer aside.
type captureWriter struct {
	h    http.Header
	code int
}

func (c *captureWriter) Header() http.Header         { return c.h }
func (c *captureWriter) Write(b []byte) (int, error) { return len(b), nil }
func (c *captureWriter) WriteHeader(code int)        { c.code = code }

// allowGet answers 405 unless the method is GET or HEAD.
func (h *handler) allowGet(rw *respWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	p := newProblem(http.StatusMethodNotAllowed, ptMethod, r.Method+" is not allowed here")
	p.Allow = []string{"GET", "HEAD"}
	h.writeProblem(rw, r, p)
	return false
}

func (h *handler) tooLarge(rw *respWriter, r *http.Request) {
	h.writeProblem(rw, r, h.tooLargeProblem(rw))
}

// tooLargeProblem is the problem of a body over the limit, to be answered
// on rw: it sets the header that closes the connection.
func (h *handler) tooLargeProblem(rw *respWriter) *problem {
	p := newProblem(http.StatusRequestEntityTooLarge, ptTooLarge,
		fmt.Sprintf("request bodies are at most %d bytes", h.opts.MaxBody))
	p.Limit = h.opts.MaxBody
	// The rest of the body is not read: close the connection rather than
	// drain an unbounded upload.
	rw.Header().Set("Connection", "close")
	return p
}

// finish writes the access log record and the metrics of one request.
func (h *handler) finish(rw *respWriter, r *http.Request, start time.Time) {
	status := rw.status
	if status == 0 {
		status = http.StatusOK
	}
	d := time.Since(start)
	route := rw.route
	if route == "" {
		route = r.Pattern
		if i := strings.IndexByte(route, ' '); i >= 0 {
			route = route[i+1:]
		}
		if route == "" {
			route = "unmatched"
		}
	}
	h.m.observe(route, rw.service, status, d)
	if rw.err != nil {
		h.log.LogAttrs(r.Context(), slog.LevelError, "internal error",
			append([]slog.Attr{slog.String("method", r.Method), slog.String("target", truncate(r.RequestURI, 512)),
				slog.Int("status", status)}, errorAttrs(rw.err)...)...)
	}
	if h.log.Enabled(r.Context(), slog.LevelInfo) {
		attrs := []slog.Attr{
			slog.String("method", r.Method),
			slog.String("target", truncate(r.RequestURI, 512)),
			slog.String("route", route),
			slog.Int("status", status),
			slog.Int64("bytes", rw.bytes),
			slog.Duration("duration", d),
			slog.String("remote", r.RemoteAddr),
		}
		if rw.service != "" {
			attrs = append(attrs, slog.String("service", rw.service))
		}
		h.log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
	}
}

// fail answers with the problem for err; an internal error is kept for
// the log.
func (h *handler) fail(rw *respWriter, r *http.Request, err error) {
	p := problemFor(err)
	if p.Status == http.StatusInternalServerError {
		rw.err = err
	}
	if p.Status == http.StatusServiceUnavailable && rw.err == nil {
		msg := "store unavailable"
		if errors.Is(err, resolver.ErrDiscoveryUnavailable) {
			msg = "DNS unavailable"
		}
		h.log.LogAttrs(r.Context(), slog.LevelWarn, msg, errorAttrs(err)...)
	}
	h.writeProblem(rw, r, p)
}

// errorAttrs are the log attributes of err: "error", what the caller was
// told, and "cause", what the store or the system said (the error it
// wraps), when there is more. The cause is the operator's lead — a
// connection error with its host, a timeout, a newer schema — and is
// logged only: it names hosts, users and databases, which a public
// problem body must not (resolver.UnavailableMessage).
func errorAttrs(err error) []slog.Attr {
	attrs := []slog.Attr{slog.String("error", err.Error())}
	if c := resolver.Cause(err); c != "" {
		attrs = append(attrs, slog.String("cause", c))
	}
	return attrs
}

// requestTarget returns the request target as the client sent it, and
// its path and query split at the first "?": nothing decoded, nothing
// cleaned.
func requestTarget(r *http.Request) (target, path, query string) {
	target = r.RequestURI
	if target == "" { // a request built in a program, not read from a connection
		target = r.URL.RequestURI()
	}
	if !strings.HasPrefix(target, "/") {
		// The absolute form (RFC 9112 §3.2.2): drop scheme and authority.
		if i := strings.Index(target, "://"); i >= 0 {
			rest := target[i+3:]
			if j := strings.IndexAny(rest, "/?"); j >= 0 {
				target = rest[j:]
			} else {
				target = "/"
			}
		}
	}
	path, query, _ = strings.Cut(target, "?")
	if path == "" {
		path = "/"
	}
	return target, path, query
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// serveRoot answers "/": the web page when there is one, else a pointer
// to the API.
func (h *handler) serveRoot(rw *respWriter, r *http.Request) {
	if h.opts.Pages != nil {
		h.opts.Pages.ServeHTTP(rw, r)
		return
	}
	rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprint(rw, rootText)
}

const rootText = `urikit URN resolver

Resolve a name:     GET /urn:NID:NSS            (redirects to its first location)
                    GET /urn:NID:NSS?s=I2Ls     (its locations, text/uri-list)
RFC 2169 services:  GET /uri-res/N2L?urn:NID:NSS   (also N2Ls N2R N2Rs N2C N2Ns L2Ns L2Ls L2C, I2L ... I2Ns)
Register names:     the JSON API under /api/v1/, described at /api/v1/openapi.json
`
