// Package apitest is the end-to-end suite of resolver/httpapi: every
// resolution service, status code, negotiation and permission rule, through
// real HTTP on loopback, over any resolver.Store. Each backend runs it:
//
//	func TestHTTP(t *testing.T) {
//		apitest.Run(t, func(t *testing.T) resolver.Store { return memstore.New() })
//	}
package apitest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/httpapi"
	"github.com/urikit/urikit/urn"
)

// AdminToken is the admin token of every environment.
const AdminToken = "urikit_test-admin-token"

// T0 is the time the clock of every environment starts at.
var T0 = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// Env is one resolver under test: a Service over a fresh store, served by
// httpapi on a loopback listener.
type Env struct {
	T     *testing.T
	URL   string
	Svc   *resolver.Service
	Clock *Clock
	Down  *atomic.Bool // when set, every store call fails with ErrUnavailable
	Deleg *Delegator
	Logs  *LogBuffer
	Reg   *prometheus.Registry
	Reads *StoreReads // what the service read from the store
	srv   *httptest.Server
	cl    *http.Client
}

// Config adjusts an Env's handler options before the server starts.
type Config func(*httpapi.Options)

// NewEnv starts a resolver over newStore(t); it stops when t ends.
func NewEnv(t *testing.T, newStore func(*testing.T) resolver.Store, cfg ...Config) *Env {
	t.Helper()
	e := &Env{T: t, Clock: &Clock{t: T0}, Down: new(atomic.Bool), Deleg: &Delegator{}, Logs: &LogBuffer{}, Reg: prometheus.NewRegistry(), Reads: &StoreReads{}}
	st := &switchStore{Store: newStore(t), down: e.Down, reads: e.Reads}
	// The lookup cache stays on, as in production: the tests that need a
	// store round trip use names not looked up before.
	e.Svc = resolver.New(st, resolver.Options{AdminToken: AdminToken, Clock: e.Clock.Now})
	opts := httpapi.Options{
		Delegator: e.Deleg,
		Logger:    slog.New(slog.NewJSONHandler(e.Logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Metrics:   e.Reg,
	}
	for _, c := range cfg {
		c(&opts)
	}
	e.srv = httptest.NewServer(httpapi.New(e.Svc, opts))
	t.Cleanup(e.srv.Close)
	e.URL = e.srv.URL
	e.cl = &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return e
}

// Resp is an answer, read whole.
type Resp struct {
	Status int
	Header http.Header
	Body   string
	Proto  string
}

// JSON decodes the body into v, failing the test if it cannot.
func (r *Resp) JSON(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.Body), v); err != nil {
		t.Fatalf("body is not the JSON expected (%v): %s", err, r.Body)
	}
}

// Problem decodes an RFC 9457 body, checking its media type and members.
func (r *Resp) Problem(t *testing.T) Problem {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("status %d: Content-Type %q, want application/problem+json; body %s", r.Status, ct, r.Body)
	}
	var p Problem
	r.JSON(t, &p)
	if p.Status != r.Status || p.Type == "" || p.Title == "" {
		t.Fatalf("problem %+v does not match status %d", p, r.Status)
	}
	return p
}

// Problem is the problem details object the API answers errors with.
type Problem struct {
	Type      string   `json:"type"`
	Title     string   `json:"title"`
	Status    int      `json:"status"`
	Detail    string   `json:"detail"`
	Field     string   `json:"field"`
	Offset    *int     `json:"offset"`
	Record    string   `json:"record"`
	Successor string   `json:"successor"`
	Reason    string   `json:"reason"`
	Services  []string `json:"services"`
	Limit     int64    `json:"limit"`
	Allow     []string `json:"allow"`
}

// Do sends a request whose target (path and query) goes on the wire
// exactly as given: nothing is encoded, decoded or cleaned. headers are
// name, value pairs.
func (e *Env) Do(method, target, body string, headers ...string) *Resp {
	e.T.Helper()
	r, err := e.do(method, target, body, headers...)
	if err != nil {
		e.T.Fatalf("%s %s: %v", method, target, err)
	}
	return r
}

func (e *Env) do(method, target, body string, headers ...string) (*Resp, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.URL+"/", rd)
	if err != nil {
		return nil, err
	}
	path, query, hasQuery := strings.Cut(target, "?")
	// Opaque is sent as the request target's path unchanged.
	req.URL.Path, req.URL.RawPath, req.URL.Opaque = "", "", path
	req.URL.RawQuery, req.URL.ForceQuery = query, hasQuery
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	if body != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := e.cl.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	return &Resp{Status: res.StatusCode, Header: res.Header, Body: string(b), Proto: res.Proto}, nil
}

// Raw sends the bytes of a whole request over a fresh connection and
// reads one answer: for HTTP/1.0 requests, which net/http's client never
// sends.
func (e *Env) Raw(request string) *Resp {
	e.T.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(e.URL, "http://"))
	if err != nil {
		e.T.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, request); err != nil {
		e.T.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		e.T.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return &Resp{Status: res.StatusCode, Header: res.Header, Body: string(b), Proto: res.Proto}
}

// Want fails the test unless r has the status.
func (r *Resp) Want(t *testing.T, status int) *Resp {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d; headers %v; body %s", r.Status, status, r.Header, r.Body)
	}
	return r
}

// Authority creates a naming authority with the admin token and returns
// its id and first token.
func (e *Env) Authority(name string, prefixes ...string) (int64, string) {
	e.T.Helper()
	b, _ := json.Marshal(map[string]any{"name": name, "prefixes": prefixes})
	r := e.Do("POST", "/api/v1/authorities", string(b), "Authorization", "Bearer "+AdminToken).Want(e.T, 201)
	var a struct {
		ID    int64  `json:"id"`
		Token string `json:"token"`
	}
	r.JSON(e.T, &a)
	if a.ID == 0 || a.Token == "" {
		e.T.Fatalf("authority without id or token: %s", r.Body)
	}
	return a.ID, a.Token
}

// Put registers a record with a maintainer's token; body is the PUT body.
// name is percent-encoded as one path segment.
func (e *Env) Put(token, name, body string) *Resp {
	e.T.Helper()
	return e.Do("PUT", "/api/v1/names/"+Segment(name), body, "Authorization", "Bearer "+token)
}

// Segment percent-encodes a name as one path segment the way the API asks
// clients to: "%", "/", "?" and "#", nothing else.
func Segment(name string) string {
	return strings.NewReplacer("%", "%25", "/", "%2F", "?", "%3F", "#", "%23").Replace(name)
}

// Clock is a settable clock for the Service, safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return c.t
}

// Delegator is a resolver.Delegator with rules set by the test: every
// name under a prefix goes to the target's /uri-res/ for the same
// service, with the hop count in the r-component.
type Delegator struct {
	mu    sync.Mutex
	rules map[string]string // canonical prefix → base URL
	Calls []Call
	Err   error // returned by Refer when set
	Panic bool  // Refer panics when set (the handler must recover)
}

// Call is one call of Refer.
type Call struct {
	Name    string
	Service string
	Hops    int
}

// Route delegates the names under prefix to target.
func (d *Delegator) Route(prefix, target string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.rules == nil {
		d.rules = map[string]string{}
	}
	d.rules[prefix] = target
}

// Last returns the last call.
func (d *Delegator) Last() (Call, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.Calls) == 0 {
		return Call{}, false
	}
	return d.Calls[len(d.Calls)-1], true
}

// Refer implements resolver.Delegator.
func (d *Delegator) Refer(ctx context.Context, name urn.URN, service string, hops int) (resolver.Referral, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.Calls = append(d.Calls, Call{name.String(), service, hops})
	if d.Panic {
		panic("test delegator panics")
	}
	if d.Err != nil {
		return resolver.Referral{}, false, d.Err
	}
	canon := name.CanonicalString()
	for p, target := range d.rules {
		if strings.HasPrefix(canon, p) {
			return resolver.Referral{
				URL: fmt.Sprintf("%suri-res/%s?%s?+hops=%d", target, service, name.AssignedName(), hops),
				Via: "rule", Rule: resolver.Rule{Prefix: p, Target: target},
				Why: "test rule " + p,
			}, true, nil
		}
	}
	return resolver.Referral{}, false, nil
}

// LogBuffer collects the handler's log records.
type LogBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was logged.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// StoreReads counts some of what the service reads from the store, for
// tests of how much one request reads.
type StoreReads struct {
	mu         sync.Mutex
	byLocation int            // records RecordsByLocation returned
	historyOf  map[int64]bool // records HistoryBefore was asked about
}

// Reset forgets what was counted.
func (r *StoreReads) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byLocation, r.historyOf = 0, nil
}

// ByLocation returns how many records RecordsByLocation returned since
// the last Reset.
func (r *StoreReads) ByLocation() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byLocation
}

// HistoryOf returns of how many records HistoryBefore read entries (as
// as-of lookups do) since the last Reset.
func (r *StoreReads) HistoryOf() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.historyOf)
}

// switchStore is a Store that fails every call with ErrUnavailable while
// down is set, the way a backend does when its database is unreachable,
// and counts some reads in reads.
type switchStore struct {
	resolver.Store
	down  *atomic.Bool
	reads *StoreReads
}

func (s *switchStore) err() error {
	if s.down.Load() {
		return fmt.Errorf("test: database down: %w", resolver.ErrUnavailable)
	}
	return nil
}

func (s *switchStore) Update(ctx context.Context, fn func(resolver.Tx) error) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Store.Update(ctx, fn)
}

func (s *switchStore) RecordByKey(ctx context.Context, key string) (resolver.Record, resolver.Role, error) {
	if err := s.err(); err != nil {
		return resolver.Record{}, "", err
	}
	return s.Store.RecordByKey(ctx, key)
}

func (s *switchStore) Record(ctx context.Context, id int64) (resolver.Record, error) {
	if err := s.err(); err != nil {
		return resolver.Record{}, err
	}
	return s.Store.Record(ctx, id)
}

func (s *switchStore) Keys(ctx context.Context, id int64) ([]resolver.Key, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Store.Keys(ctx, id)
}

func (s *switchStore) RecordsByLocation(ctx context.Context, k string, after int64, limit int, withdrawn bool) ([]resolver.Record, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	recs, err := s.Store.RecordsByLocation(ctx, k, after, limit, withdrawn)
	s.reads.mu.Lock()
	s.reads.byLocation += len(recs)
	s.reads.mu.Unlock()
	return recs, err
}

func (s *switchStore) Records(ctx context.Context, after int64, limit int) ([]resolver.Record, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Store.Records(ctx, after, limit)
}

func (s *switchStore) StaleKeys(ctx context.Context, v int, after string, limit int) ([]resolver.Key, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Store.StaleKeys(ctx, v, after, limit)
}

func (s *switchStore) Predecessors(ctx context.Context, keys []string, after int64, limit int) ([]resolver.RecordName, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Store.Predecessors(ctx, keys, after, limit)
}

func (s *switchStore) StaleSuccessors(ctx context.Context, v int, after int64, limit int) ([]resolver.Record, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Store.StaleSuccessors(ctx, v, after, limit)
}

func (s *switchStore) RecordStates(ctx context.Context, after int64, limit int) ([]resolver.RecordState, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Store.RecordStates(ctx, after, limit)
}

func (s *switchStore) DuplicateLocations(ctx context.Context, after string, limit int, withdrawn bool) ([]resolver.Duplicate, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Store.DuplicateLocations(ctx, after, limit, withdrawn)
}

func (s *switchStore) Authority(ctx context.Context, id int64) (resolver.Authority, error) {
	if err := s.err(); err != nil {
		return resolver.Authority{}, err
	}
	return s.Store.Authority(ctx, id)
}

func (s *switchStore) Authorities(ctx context.Context) ([]resolver.Authority, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Store.Authorities(ctx)
}

func (s *switchStore) TokenByHash(ctx context.Context, h []byte) (resolver.Token, error) {
	if err := s.err(); err != nil {
		return resolver.Token{}, err
	}
	return s.Store.TokenByHash(ctx, h)
}

func (s *switchStore) Tokens(ctx context.Context, id int64) ([]resolver.Token, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Store.Tokens(ctx, id)
}

func (s *switchStore) Rules(ctx context.Context) ([]resolver.Rule, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Store.Rules(ctx)
}

func (s *switchStore) History(ctx context.Context, id, after int64, limit int) ([]resolver.Entry, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Store.History(ctx, id, after, limit)
}

func (s *switchStore) HistoryBefore(ctx context.Context, id, before int64, until time.Time, limit int) ([]resolver.Entry, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	s.reads.mu.Lock()
	if s.reads.historyOf == nil {
		s.reads.historyOf = map[int64]bool{}
	}
	s.reads.historyOf[id] = true
	s.reads.mu.Unlock()
	return s.Store.HistoryBefore(ctx, id, before, until, limit)
}

func (s *switchStore) Log(ctx context.Context, after int64, limit int) ([]resolver.Entry, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Store.Log(ctx, after, limit)
}

func (s *switchStore) Head(ctx context.Context) (resolver.Entry, error) {
	if err := s.err(); err != nil {
		return resolver.Entry{}, err
	}
	return s.Store.Head(ctx)
}

func (s *switchStore) Setting(ctx context.Context, name string) (string, error) {
	if err := s.err(); err != nil {
		return "", err
	}
	return s.Store.Setting(ctx, name)
}
