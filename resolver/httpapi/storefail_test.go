package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/internal/pgtest"
	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/httpapi"
	"github.com/urikit/urikit/resolver/httpapi/apitest"
	"github.com/urikit/urikit/resolver/memstore"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/urn"
)

// pgServer is urikit serve over one PostgreSQL database, as production
// runs it: the store is the Service's own (resolver.Shared, so cached
// lookups are checked against the database), the log is JSON.
type pgServer struct {
	t     *testing.T
	st    *postgres.Store
	svc   *resolver.Service
	maint resolver.Principal
	url   string
	logs  *apitest.LogBuffer
}

func newPGServer(t *testing.T, dsn string, opts postgres.Options) *pgServer {
	t.Helper()
	ctx := context.Background()
	st, err := postgres.Open(ctx, dsn, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := &pgServer{t: t, st: st, logs: &apitest.LogBuffer{}}
	s.svc = resolver.New(st, resolver.Options{AdminToken: "admin"})
	admin, _ := s.svc.Authenticate(ctx, "admin")
	_, tok, err := s.svc.CreateAuthority(ctx, admin, "Example", []string{"urn:example:"})
	if err != nil {
		t.Fatal(err)
	}
	if s.maint, err = s.svc.Authenticate(ctx, tok); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(s.svc, httpapi.Options{
		Logger: slog.New(slog.NewJSONHandler(s.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	deadline := time.Now().Add(10 * time.Second)
	for !st.Stats().Listening {
		if time.Now().After(deadline) {
			t.Fatal("store not listening after 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return s
}

func (s *pgServer) put(name string) {
	s.t.Helper()
	in := resolver.RecordInput{Locations: []resolver.Location{{URL: "https://example.org/" + name}}}
	if _, _, err := s.svc.Put(context.Background(), s.maint, name, in); err != nil {
		s.t.Fatal(err)
	}
}

// get answers the status and, for a problem, its detail.
func (s *pgServer) get(target string) (int, string) {
	s.t.Helper()
	// Never follow a redirect: its target is elsewhere (example.org).
	cl := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := cl.Get(s.url + target)
	if err != nil {
		s.t.Fatalf("GET %s: %v", target, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var p struct{ Detail string }
	if resp.StatusCode >= 400 {
		if err := json.Unmarshal(b, &p); err != nil {
			s.t.Fatalf("GET %s: %d with no problem body: %s", target, resp.StatusCode, b)
		}
	}
	return resp.StatusCode, p.Detail
}

// logLines returns the log records whose msg is msg.
func (s *pgServer) logLines(msg string) []map[string]any {
	s.t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(s.logs.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			s.t.Fatalf("log line is not JSON: %s", sc.Bytes())
		}
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// TestStoppedPostgresIsLoggedWithItsCause stops the server under a
// running instance: the 503s' log lines carry what the connection said
// (the server's port), for the operator, while the problem bodies that
// anonymous callers get name no host or port; /readyz says the store
// answered with an error rather than that it did not answer in time.
func TestStoppedPostgresIsLoggedWithItsCause(t *testing.T) {
	c := pgtest.Start(t, pgtest.Options{})
	s := newPGServer(t, c.NewDB(t), postgres.Options{Timeout: 2 * time.Second})
	s.put("urn:example:a")
	if st, _ := s.get("/readyz"); st != 200 {
		t.Fatalf("/readyz before the stop: %d", st)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	defer c.Start()
	port := strconv.Itoa(c.Port())
	for _, target := range []string{"/urn:example:never-seen", "/api/v1/names/urn:example:a", "/readyz"} {
		st, detail := s.get(target)
		if st != 503 {
			t.Fatalf("GET %s with the server stopped: %d (%s)", target, st, detail)
		}
		if strings.Contains(detail, port) || strings.Contains(detail, "127.0.0.1") || strings.Contains(detail, "localhost") {
			t.Errorf("GET %s: the public detail names the database server: %q", target, detail)
		}
		if strings.Contains(detail, "did not answer within") {
			t.Errorf("GET %s: %q, but the store answered at once (connection refused)", target, detail)
		}
	}
	lines := s.logLines("store unavailable")
	if len(lines) != 2 {
		t.Fatalf("%d 'store unavailable' log lines, want 2: %s", len(lines), s.logs)
	}
	// What the store said: the server's goodbye on a pooled connection
	// (SQLSTATE 57P01), or the refused connection to its port.
	said := func(s string) bool { return strings.Contains(s, port) || strings.Contains(s, "SQLSTATE 57P01") }
	for _, l := range lines {
		if cause, _ := l["cause"].(string); !said(cause) {
			t.Errorf("a 503's log line does not say what the connection said: %v", l)
		}
	}
	ready := s.logLines("not ready")
	if len(ready) != 1 {
		t.Fatalf("%d 'not ready' log lines, want 1: %s", len(ready), s.logs)
	}
	if e, _ := ready[0]["error"].(string); !said(e) {
		t.Errorf("the /readyz log line does not say what the connection said: %v", ready[0])
	}
}

// TestNewerSchemaOverHTTP: once a newer urikit migrates the database, a
// running instance answers 503 for every name, cached ones too (README:
// "answers 503"), and the reason — which names only versions and what to
// do — is in the problem's detail, in /readyz's and in the log.
func TestNewerSchemaOverHTTP(t *testing.T) {
	dsn := cluster.NewDB(t)
	s := newPGServer(t, dsn, postgres.Options{})
	s.put("urn:example:hot")
	for range 3 { // cached, and the cache current
		if st, _ := s.get("/api/v1/names/urn:example:hot"); st != 200 {
			t.Fatalf("lookup before the migration: %d", st)
		}
	}
	newer := postgres.SchemaVersion + 1
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// As a newer urikit's migration does: the row, and its notification.
	if _, err := conn.Exec(ctx, fmt.Sprintf(`WITH m AS (INSERT INTO schema_migrations (version) VALUES (%d))
		SELECT pg_notify('urikit_changes', '{"schema":%d}')`, newer, newer)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.st.Ping(ctx) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the store did not notice the newer schema in 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	reason := fmt.Sprintf("version %d, newer than this urikit's %d: upgrade urikit", newer, postgres.SchemaVersion)
	for _, target := range []string{"/api/v1/names/urn:example:hot", "/urn:example:hot", "/api/v1/names/urn:example:never-seen", "/readyz"} {
		st, detail := s.get(target)
		if st != 503 || !strings.Contains(detail, reason) {
			t.Errorf("GET %s with a newer schema: %d %q; want 503 saying %q", target, st, detail, reason)
		}
	}
	// Through the Service too (the web pages, the CLI).
	if _, err := s.svc.Lookup(ctx, urn.MustParse("urn:example:hot")); resolver.KindOf(err) != resolver.KindUnavailable || !strings.Contains(err.Error(), reason) {
		t.Errorf("cached Lookup with a newer schema: %v", err)
	}
	lines := s.logLines("store unavailable")
	if len(lines) != 3 {
		t.Fatalf("%d 'store unavailable' log lines, want 3: %s", len(lines), s.logs)
	}
	for _, l := range lines {
		if cause, _ := l["cause"].(string); !strings.Contains(cause, reason) {
			t.Errorf("a 503's log line does not give the reason: %v", l)
		}
	}
}

// TestReadyzTimesOut: a readiness check that does not answer in time is
// reported as such, with the limit.
func TestReadyzTimesOut(t *testing.T) {
	svc := resolver.New(memstore.New(), resolver.Options{AdminToken: "admin"})
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{
		ReadyTimeout: 50 * time.Millisecond,
		Ready:        func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() },
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p struct{ Detail string }
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil || resp.StatusCode != 503 ||
		p.Detail != "not ready: the store did not answer within 50ms" {
		t.Fatalf("/readyz timing out: %d %q (%v)", resp.StatusCode, p.Detail, err)
	}
}
