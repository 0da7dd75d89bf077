package resolver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/memstore"
	"github.com/urikit/urikit/urn"
)

// TestAsOfSearch: a record read as of a time is the version of its last
// change at or before it, whatever the time: exact entry times, between
// entries, before the first, after the last, several entries in one
// microsecond, and other records' entries in between. (The Service finds
// the entry by a binary search over the history's numbers, so that its
// cost does not grow with the entries after the time.)
func TestAsOfSearch(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	now := start
	svc := resolver.New(memstore.New(), resolver.Options{AdminToken: "admin-secret", Clock: func() time.Time { return now }})
	admin, _ := svc.Authenticate(ctx, "admin-secret")
	a, tok, err := svc.CreateAuthority(ctx, admin, "Books", []string{"urn:example:"})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := svc.Authenticate(ctx, tok)
	_ = a
	rng := rand.New(rand.NewPCG(1, 2))
	type version struct {
		at  time.Time
		url string
	}
	versions := map[string][]version{}
	names := []string{"urn:example:a", "urn:example:b", "urn:example:c"}
	for i := range 300 {
		name := names[rng.IntN(len(names))]
		if rng.IntN(4) > 0 { // now and then, two changes in one microsecond
			now = now.Add(time.Duration(1+rng.IntN(5000)) * time.Millisecond)
		}
		u := fmt.Sprintf("https://example.org/%d", i)
		if _, _, err := svc.Put(ctx, m, name, resolver.RecordInput{Locations: []resolver.Location{{URL: u}}}); err != nil {
			t.Fatal(err)
		}
		versions[name] = append(versions[name], version{now.UTC().Truncate(time.Microsecond), u})
	}
	// want is the version a reader expects as of at: the last change at
	// or before it.
	want := func(name string, at time.Time) (string, bool) {
		url, ok := "", false
		for _, v := range versions[name] {
			if !v.at.After(at) {
				url, ok = v.url, true
			}
		}
		return url, ok
	}
	var times []time.Time
	for _, vs := range versions {
		for _, v := range vs {
			times = append(times, v.at, v.at.Add(-time.Microsecond), v.at.Add(time.Microsecond), v.at.Add(-time.Nanosecond))
		}
	}
	times = append(times, start.Add(-time.Hour), now.Add(time.Hour), time.Time{})
	for _, name := range names {
		for _, at := range times {
			rec, _, err := svc.LookupAsOf(ctx, urn.MustParse(name), at)
			wantURL, ok := want(name, at)
			switch {
			case !ok && resolver.KindOf(err) != resolver.KindNotFound:
				t.Fatalf("%s as of %s: %+v %v, want not found", name, at, rec, err)
			case ok && (err != nil || rec.Locations[0].URL != wantURL):
				t.Fatalf("%s as of %s: %+v %v, want %s", name, at, rec.Locations, err, wantURL)
			}
		}
	}
}
