package resolver_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/memstore"
	"github.com/urikit/urikit/resolver/sqlite"
)

// TestReview2BatchStampBeforePin: PutPrepared's serial path (every store
// but PostgreSQL's early path, and PostgreSQL's retry) takes the batch's
// stamp before mayStoreLocationKeys, which on a new store of a build whose
// location rules are not version 1 pins the version with an entry of its
// own, stamped later. The batch's entries then carry an earlier time than
// the entry before them: Seal (memstore, SQLite) moves them up to it, so a
// record's Created/Updated is no longer its entry's Time; PostgreSQL's
// AppendAll does not clamp, so there the history's times go backwards.
func TestReview2BatchStampBeforePin(t *testing.T) {
	for _, b := range []struct {
		name string
		open func(t *testing.T) resolver.Store
	}{
		{"memstore", func(*testing.T) resolver.Store { return memstore.New() }},
		{"sqlite", func(t *testing.T) resolver.Store {
			st, err := sqlite.Open(context.Background(), t.TempDir(), sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}},
	} {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			store := b.open(t)
			// A clock that moves on a microsecond each time it is read, as
			// a real one does between two statements.
			base := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
			var ticks atomic.Int64
			clock := func() time.Time { return base.Add(time.Duration(ticks.Add(1)) * time.Microsecond) }
			svc := resolver.New(store, resolver.Options{AdminToken: "admin-secret", CacheSize: -1, Clock: clock})
			svc.PlayLocationRules(2, version2) // a build of newer rules, on a new store
			m := exampleMaintainer(t, svc)

			res, err := svc.PutMany(ctx, m, []resolver.NamedInput{
				{URN: "urn:example:a", RecordInput: locs("https://example.org/a/")},
				{URN: "urn:example:b", RecordInput: locs("https://example.org/b/")},
			})
			if err != nil {
				t.Fatal(err)
			}
			log, err := store.Log(ctx, 0, 100)
			if err != nil {
				t.Fatal(err)
			}
			var last time.Time
			for _, e := range log {
				t.Logf("entry %d %s %s %s", e.Seq, e.Action, e.Subject, e.Time.Format(time.RFC3339Nano))
				if e.Time.Before(last) {
					t.Errorf("entry %d (%s) is stamped %s, before the entry ahead of it (%s)", e.Seq, e.Action, e.Time, last)
				}
				last = e.Time
				for _, r := range res {
					if r.Err == nil && e.RecordID == r.Record.ID && e.Action == resolver.ActionNameCreate && !e.Time.Equal(r.Record.Updated) {
						t.Errorf("%s: its entry %d is stamped %s, but the record's Updated is %s",
							r.Record.URN, e.Seq, e.Time.Format(time.RFC3339Nano), r.Record.Updated.Format(time.RFC3339Nano))
					}
				}
			}
		})
	}
}
