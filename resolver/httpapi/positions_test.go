package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/httpapi"
	"github.com/urikit/urikit/resolver/memstore"
)

// trackingStore plays a store with a replica: its Updates report the
// version they commit to a tracker found in the context, and its reads
// record the least version the context asks them to see.
type trackingStore struct {
	resolver.Store
	mu      sync.Mutex
	minSeen []int64 // the minimum versions reads were asked for
}

type trackerKey struct{}
type minKey struct{}

func (s *trackingStore) Update(ctx context.Context, fn func(resolver.Tx) error) error {
	before, _ := s.Store.Head(ctx)
	if err := s.Store.Update(ctx, fn); err != nil {
		return err
	}
	after, _ := s.Store.Head(ctx)
	if c, ok := ctx.Value(trackerKey{}).(*atomic.Int64); ok && after.Seq != before.Seq {
		c.Store(after.Seq) // the version this transaction committed
	}
	return nil
}

func (s *trackingStore) RecordByKey(ctx context.Context, key string) (resolver.Record, resolver.Role, error) {
	if v, ok := ctx.Value(minKey{}).(int64); ok {
		s.mu.Lock()
		s.minSeen = append(s.minSeen, v)
		s.mu.Unlock()
	}
	return s.Store.RecordByKey(ctx, key)
}

// TestVersionPositions: the write runs with the tracking context, its
// answer carries the version it committed, and a read presenting it
// reaches the store with a context that asks for that version.
func TestVersionPositions(t *testing.T) {
	st := &trackingStore{Store: memstore.New()}
	svc := resolver.New(st, resolver.Options{AdminToken: "admin", CacheSize: -1})
	pos := httpapi.VersionPositions{
		Commits: func(ctx context.Context) (context.Context, func() int64) {
			c := new(atomic.Int64)
			return context.WithValue(ctx, trackerKey{}, c), c.Load
		},
		After: func(ctx context.Context, v int64) context.Context { return context.WithValue(ctx, minKey{}, v) },
	}
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{Positions: pos}))
	defer srv.Close()
	do := func(method, path, body string, hdr ...string) *http.Response {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := cl.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	res := do("POST", "/api/v1/authorities", `{"name":"A","prefixes":["urn:example:"]}`, "Authorization", "Bearer admin")
	if res.StatusCode != 201 || res.Header.Get(httpapi.PositionHeader) != "2" { // authority and token entries
		t.Fatalf("authority: %d %q", res.StatusCode, res.Header.Get(httpapi.PositionHeader))
	}
	req, _ := http.NewRequest("POST", srv.URL+"/api/v1/authorities/1/tokens", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer admin")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ Token string }
	err = json.NewDecoder(r.Body).Decode(&created)
	r.Body.Close()
	if err != nil || created.Token == "" {
		t.Fatalf("token: %v", err)
	}
	tok := created.Token
	res = do("PUT", "/api/v1/names/urn:example:x", `{"locations":[{"url":"https://example.org/x"}]}`, "Authorization", "Bearer "+tok)
	if res.StatusCode != 201 || res.Header.Get(httpapi.PositionHeader) != "4" {
		t.Fatalf("put: %d %q", res.StatusCode, res.Header.Get(httpapi.PositionHeader))
	}
	// The same PUT again commits nothing: no position.
	res = do("PUT", "/api/v1/names/urn:example:x", `{"locations":[{"url":"https://example.org/x"}]}`, "Authorization", "Bearer "+tok)
	if res.StatusCode != 200 || res.Header.Get(httpapi.PositionHeader) != "" {
		t.Fatalf("no-op put: %d %q", res.StatusCode, res.Header.Get(httpapi.PositionHeader))
	}
	res = do("GET", "/urn:example:x", "", httpapi.PositionHeader, "4")
	if res.StatusCode != 303 {
		t.Fatalf("read: %d", res.StatusCode)
	}
	if res = do("GET", "/api/v1/names/urn:example:x", "", httpapi.PositionHeader, "4"); res.StatusCode != 200 {
		t.Fatalf("API read: %d", res.StatusCode)
	}
	st.mu.Lock()
	seen := append([]int64(nil), st.minSeen...)
	st.mu.Unlock()
	if len(seen) != 2 || seen[0] != 4 || seen[1] != 4 {
		t.Fatalf("the reads reached the store asking for %v, want [4 4]", seen)
	}
	if res = do("GET", "/urn:example:x", "", httpapi.PositionHeader, "x3"); res.StatusCode != 400 {
		t.Fatalf("bad position: %d", res.StatusCode)
	}
}
