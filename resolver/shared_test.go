package resolver_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/memstore"
	"github.com/urikit/urikit/urn"
)

// sharedStore plays a store other processes write to (resolver.Shared),
// whose cache check fails with checkErr, or says the cache is stale;
// it counts the lookups that reach the store.
type sharedStore struct {
	resolver.Store
	checkErr error
	stale    bool
	lookups  atomic.Int64
}

func (s *sharedStore) Watch(func(keys ...string)) {}

func (s *sharedStore) CacheCurrent(context.Context) (bool, error) {
	if s.checkErr != nil {
		return false, s.checkErr
	}
	return !s.stale, nil
}

func (s *sharedStore) RecordByKey(ctx context.Context, key string) (resolver.Record, resolver.Role, error) {
	s.lookups.Add(1)
	return s.Store.RecordByKey(ctx, key)
}

// TestCachedLookupAsksTheStoreOnce: a cached name whose cache check fails
// because the store is unavailable is a 503 at once, with the check's
// cause; it does not go on to look the name up in the store, which would
// make the caller wait a second store timeout for the same answer (a hung
// database: twice the timeout). A stale cache, or a check that fails
// otherwise, still goes to the store.
func TestCachedLookupAsksTheStoreOnce(t *testing.T) {
	ctx := context.Background()
	st := &sharedStore{Store: memstore.New()}
	svc := resolver.New(st, resolver.Options{AdminToken: "admin"})
	admin, _ := svc.Authenticate(ctx, "admin")
	_, tok, err := svc.CreateAuthority(ctx, admin, "Example", []string{"urn:example:"})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := svc.Authenticate(ctx, tok)
	in := resolver.RecordInput{Locations: []resolver.Location{{URL: "https://example.org/a"}}}
	if _, _, err := svc.Put(ctx, m, "urn:example:a", in); err != nil {
		t.Fatal(err)
	}
	name := urn.MustParse("urn:example:a")
	if _, err := svc.Lookup(ctx, name); err != nil { // now cached
		t.Fatal(err)
	}
	st.lookups.Store(0)
	if _, err := svc.Lookup(ctx, name); err != nil || st.lookups.Load() != 0 {
		t.Fatalf("a current cache: %v, %d store lookups; want a hit", err, st.lookups.Load())
	}

	hung := fmt.Errorf("%w: timeout: context deadline exceeded", resolver.ErrUnavailable)
	st.checkErr = hung
	_, err = svc.Lookup(ctx, name)
	if resolver.KindOf(err) != resolver.KindUnavailable || !errors.Is(err, hung) {
		t.Fatalf("cache check unavailable: %v, want the check's own 503", err)
	}
	if n := st.lookups.Load(); n != 0 {
		t.Fatalf("cache check unavailable: the lookup went on to the store (%d calls): a second timeout", n)
	}

	for what, set := range map[string]func(){
		"stale":        func() { st.checkErr, st.stale = nil, true },
		"other errors": func() { st.checkErr, st.stale = errors.New("test: not a store outage"), false },
	} {
		set()
		st.lookups.Store(0)
		if _, err := svc.Lookup(ctx, name); err != nil || st.lookups.Load() != 1 {
			t.Errorf("%s: %v, %d store lookups; want 1", what, err, st.lookups.Load())
		}
	}
}
