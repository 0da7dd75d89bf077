package resolver_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/memstore"
	"github.com/urikit/urikit/resolver/storetest"
	"github.com/urikit/urikit/urn"
)

// oldBuild rewrites a record's keys as a build with lexical-only keys
// (version 0) would have stored them: its name and an alias that those
// rules held distinct, both reserved to the record.
func oldBuild(f *fixture, rec resolver.Record, name, alias string) {
	f.t.Helper()
	err := f.store.Update(f.ctx, func(tx resolver.Tx) error {
		keys, err := tx.Keys(f.ctx, rec.ID)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := tx.DeleteKey(f.ctx, k.Key); err != nil {
				return err
			}
		}
		r, err := tx.Record(f.ctx, rec.ID)
		if err != nil {
			return err
		}
		r.Key, r.URN, r.Aliases = name, name, []string{alias}
		if err := tx.UpdateRecord(f.ctx, r); err != nil {
			return err
		}
		if err := tx.PutKey(f.ctx, resolver.Key{Key: name, Spelling: name, RecordID: rec.ID, Role: resolver.RoleName}); err != nil {
			return err
		}
		return tx.PutKey(f.ctx, resolver.Key{Key: alias, Spelling: alias, RecordID: rec.ID, Role: resolver.RoleAlias})
	})
	if err != nil {
		f.t.Fatal(err)
	}
	f.svc.Invalidate()
}

// When new equivalence rules make two keys of one record equal (an ISBN-10
// name and its ISBN-13 alias), Migrate must fold them into one row that
// stays the record's name: the alias's stale row, written after the name
// took the key over, made the name an alias of its own record, which then
// could be neither replaced nor withdrawn ("is an alias of" itself).
func TestMigrateFoldsTwoKeysOfOneRecord(t *testing.T) {
	f := newFixture(t)
	_, m, _ := f.authority("Books", "urn:isbn:")
	// The name's key changes and lands on its alias's key (name first in
	// key order), and the other way round (alias first).
	r1 := f.put(m, "urn:isbn:0-395-36341-1", locs("http://one.example/"))
	oldBuild(f, r1, "urn:isbn:0-395-36341-1", "urn:isbn:9780395363416")
	r2 := f.put(m, "urn:isbn:9780131103627", locs("http://two.example/"))
	oldBuild(f, r2, "urn:isbn:9780131103627", "urn:isbn:0-13-110362-8")

	rep, err := f.svc.Migrate(f.ctx)
	if err != nil || len(rep.Conflicts) != 0 {
		t.Fatalf("Migrate: %+v %v", rep, err)
	}
	for _, tc := range []struct {
		rec                 resolver.Record
		name, alias, newKey string
	}{
		{r1, "urn:isbn:0-395-36341-1", "urn:isbn:9780395363416", "urn:isbn:9780395363416"},
		{r2, "urn:isbn:9780131103627", "urn:isbn:0-13-110362-8", "urn:isbn:9780131103627"},
	} {
		keys, err := f.store.Keys(f.ctx, tc.rec.ID)
		if err != nil || len(keys) != 1 || keys[0].Key != tc.newKey || keys[0].Role != resolver.RoleName || keys[0].Spelling != tc.name {
			t.Errorf("%s: keys after Migrate %+v %v, want one name row %s", tc.name, keys, err, tc.newKey)
		}
		for _, n := range []string{tc.name, tc.alias} {
			if got, err := f.lookup(n); err != nil || got.ID != tc.rec.ID {
				t.Errorf("lookup %s: %+v %v", n, got, err)
			}
		}
		in := locs("http://new.example/")
		if _, _, err := f.svc.Put(f.ctx, m, tc.name, in); err != nil {
			t.Errorf("replacing %s after Migrate: %v", tc.name, err)
		}
		if _, err := f.svc.Withdraw(f.ctx, m, tc.name, "test", ""); err != nil {
			t.Errorf("withdrawing %s after Migrate: %v", tc.name, err)
		}
	}
	if _, err := f.svc.Verify(f.ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// rekey stores rec's name under key at version 0, as an older build's
// rules would have computed it.
func rekey(f *fixture, rec resolver.Record, key string) {
	f.t.Helper()
	err := f.store.Update(f.ctx, func(tx resolver.Tx) error {
		if err := tx.DeleteKey(f.ctx, rec.Key); err != nil {
			return err
		}
		r, err := tx.Record(f.ctx, rec.ID)
		if err != nil {
			return err
		}
		r.Key = key
		if err := tx.UpdateRecord(f.ctx, r); err != nil {
			return err
		}
		return tx.PutKey(f.ctx, resolver.Key{Key: key, Spelling: rec.URN, RecordID: rec.ID, Role: resolver.RoleName})
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// A key's new value may be the old value of a key that has not moved yet
// (it comes later in key order). That is no conflict: once the other key
// has moved, this one moves too. One Migrate must leave every record
// found under its new key and report only real conflicts.
func TestMigrateKeysThatMoveIntoEachOthersPlace(t *testing.T) {
	f := newFixture(t)
	_, m, _ := f.authority("A", "urn:example:")
	a := f.put(m, "urn:example:a", locs("http://a.example/"))
	b := f.put(m, "urn:example:b", locs("http://b.example/"))
	c := f.put(m, "urn:example:c", locs("http://c.example/"))
	d := f.put(m, "urn:example:d", locs("http://d.example/"))
	// Old keys: a sits on b's new key, and b comes first in key order;
	// c and d really collide: d's new key is c's, which c keeps.
	rekey(f, b, "urn:example:0")
	rekey(f, a, "urn:example:b")
	rekey(f, d, "urn:example:c-old")
	err := f.store.Update(f.ctx, func(tx resolver.Tx) error {
		r, err := tx.Record(f.ctx, d.ID)
		if err != nil {
			return err
		}
		// d's name is now spelled so that the new rules give c's key.
		r.URN = "urn:example:c"
		if err := tx.UpdateRecord(f.ctx, r); err != nil {
			return err
		}
		return tx.PutKey(f.ctx, resolver.Key{Key: "urn:example:c-old", Spelling: "urn:example:c", RecordID: d.ID, Role: resolver.RoleName})
	})
	if err != nil {
		t.Fatal(err)
	}
	f.svc.Invalidate()
	rep, err := f.svc.Migrate(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Conflicts) != 1 || rep.Conflicts[0] != "urn:example:c" {
		t.Errorf("conflicts %q, want only d's name", rep.Conflicts)
	}
	for name, want := range map[string]int64{"urn:example:a": a.ID, "urn:example:b": b.ID, "urn:example:c": c.ID} {
		if got, err := f.lookup(name); err != nil || got.ID != want {
			t.Errorf("%s after one Migrate: record %d, %v; want %d", name, got.ID, err, want)
		}
	}
}

// A name's new key may be the old key of an alias of the same record that
// comes later in key order: Migrate moves the name onto that row first,
// and the alias's copy read before the batch must not then delete the row,
// which is the name's now.
func TestMigrateNameOntoItsAliasOldKey(t *testing.T) {
	f := newFixture(t)
	_, m, _ := f.authority("A", "urn:example:")
	in := locs("http://n.example/")
	in.Aliases = []string{"urn:example:alias"}
	n := f.put(m, "urn:example:n", in)
	err := f.store.Update(f.ctx, func(tx resolver.Tx) error {
		for _, k := range []string{"urn:example:n", "urn:example:alias"} {
			if err := tx.DeleteKey(f.ctx, k); err != nil {
				return err
			}
		}
		r, err := tx.Record(f.ctx, n.ID)
		if err != nil {
			return err
		}
		// Older rules: the name under "urn:example:a0" (first in key
		// order), the alias under the name's key of today.
		r.Key = "urn:example:a0"
		if err := tx.UpdateRecord(f.ctx, r); err != nil {
			return err
		}
		if err := tx.PutKey(f.ctx, resolver.Key{Key: "urn:example:a0", Spelling: "urn:example:n", RecordID: n.ID, Role: resolver.RoleName, Version: urn.KeyVersion - 1}); err != nil {
			return err
		}
		return tx.PutKey(f.ctx, resolver.Key{Key: "urn:example:n", Spelling: "urn:example:alias", RecordID: n.ID, Role: resolver.RoleAlias, Version: urn.KeyVersion - 1})
	})
	if err != nil {
		t.Fatal(err)
	}
	f.svc.Invalidate()
	rep, err := f.svc.Migrate(f.ctx)
	if err != nil || len(rep.Conflicts) != 0 {
		t.Fatalf("Migrate: %+v, %v", rep, err)
	}
	for _, name := range []string{"urn:example:n", "urn:example:alias"} {
		if got, err := f.lookup(name); err != nil || got.ID != n.ID {
			t.Errorf("%s after Migrate: record %d, %v; want %d", name, got.ID, err, n.ID)
		}
	}
	if _, err := f.svc.Verify(f.ctx, nil); err != nil {
		t.Errorf("Verify after Migrate: %v", err)
	}
}

// retryingStore runs every Update's fn twice, the first time in a
// transaction it rolls back, as PostgreSQL's store does after a
// serialization failure: the Store contract lets it, so fn must have no
// effect outside its transaction.
type retryingStore struct{ *memstore.Store }

var errRollback = errors.New("serialization failure (test)")

func (s retryingStore) Update(ctx context.Context, fn func(resolver.Tx) error) error {
	err := s.Store.Update(ctx, func(tx resolver.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		return err
	}
	return s.Store.Update(ctx, fn)
}

func TestMigrateReportSurvivesARetriedTransaction(t *testing.T) {
	f := newFixture(t)
	f.svc = resolver.New(retryingStore{f.store}, resolver.Options{AdminToken: "admin-secret"})
	_, m, _ := f.authority("A", "urn:example:")
	f.put(m, "urn:example:c", locs("http://c.example/"))
	d := f.put(m, "urn:example:d", locs("http://d.example/"))
	rekey(f, d, "urn:example:c-old")
	err := f.store.Update(f.ctx, func(tx resolver.Tx) error {
		return tx.PutKey(f.ctx, resolver.Key{Key: "urn:example:c-old", Spelling: "urn:example:c", RecordID: d.ID, Role: resolver.RoleName})
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := f.svc.Migrate(f.ctx)
	if err != nil || len(rep.Conflicts) != 1 {
		t.Fatalf("Migrate through a retrying store: %+v %v, want one conflict", rep, err)
	}
}

// The whole suite over a store that retries every transaction once: no
// Service write may depend on its fn running only once.
func TestStoreSuiteWithRetriedTransactions(t *testing.T) {
	storetest.Run(t, storetest.Backend{
		New: func(t *testing.T) resolver.Store { return retryingStore{memstore.New()} },
	})
}

// failingStore fails every Update after the first ok ones, as a database
// that goes away in the middle of a long job.
type failingStore struct {
	*memstore.Store
	ok *int
}

func (s failingStore) Update(ctx context.Context, fn func(resolver.Tx) error) error {
	if *s.ok == 0 {
		return fmt.Errorf("connection reset (test): %w", resolver.ErrUnavailable)
	}
	*s.ok--
	return s.Store.Update(ctx, fn)
}

// A Migrate that fails after some of its batches committed has still
// moved those keys: the lookups this process cached under the old keys
// must go, or the moved records stay unfound here until a restart.
func TestMigrateThatFailsHalfWayLeavesNoStaleCache(t *testing.T) {
	f := newFixture(t)
	_, m, _ := f.authority("A", "urn:example:")
	a := f.put(m, "urn:example:a", locs("http://a.example/"))
	b := f.put(m, "urn:example:b", locs("http://b.example/"))
	rekey(f, b, "urn:example:0")
	rekey(f, a, "urn:example:b")
	ok := 1 // the first pass commits (a moves, b waits), the second fails
	svc := resolver.New(failingStore{f.store, &ok}, resolver.Options{AdminToken: "admin-secret"})
	if _, err := svc.Lookup(f.ctx, urn.MustParse("urn:example:a")); resolver.KindOf(err) != resolver.KindNotFound {
		t.Fatalf("before Migrate: %v", err) // and now cached as not found
	}
	if _, err := svc.Migrate(f.ctx); resolver.KindOf(err) != resolver.KindUnavailable {
		t.Fatalf("Migrate: %v, want the store's failure", err)
	}
	if r, err := svc.Lookup(f.ctx, urn.MustParse("urn:example:a")); err != nil || r.ID != a.ID {
		t.Fatalf("a moved in a committed batch, but the cache still says %+v %v", r, err)
	}
}

// faultyTx fails its n-th PutKey, as a database that drops the
// connection in the middle of a batch.
type faultyTx struct {
	resolver.Tx
	left *int
}

func (t faultyTx) PutKey(ctx context.Context, k resolver.Key) error {
	if *t.left == 0 {
		return fmt.Errorf("connection lost (test): %w", resolver.ErrUnavailable)
	}
	*t.left--
	return t.Tx.PutKey(ctx, k)
}

type faultyStore struct {
	*memstore.Store
	putKeys int // PutKeys that succeed before one fails; <0: none fails
}

func (s faultyStore) Update(ctx context.Context, fn func(resolver.Tx) error) error {
	return s.Store.Update(ctx, func(tx resolver.Tx) error {
		if s.putKeys < 0 {
			return fn(tx)
		}
		left := s.putKeys
		return fn(faultyTx{tx, &left})
	})
}

// PutMany writes a batch whole or not at all: a store failure after some
// of its records were written leaves none of them (and no history), and a
// record that breaks a rule against an earlier record of the same batch
// leaves nothing of itself.
func TestPutManyIsNeverHalfWritten(t *testing.T) {
	f := newFixture(t)
	_, m, _ := f.authority("A", "urn:example:")
	batch := []resolver.NamedInput{
		{URN: "urn:example:1", RecordInput: locs("http://1.example/")},
		{URN: "urn:example:2", RecordInput: locs("http://2.example/")},
		{URN: "urn:example:3", RecordInput: locs("http://3.example/")},
	}
	batch[1].Aliases = []string{"urn:example:2-alias"}
	head, _ := f.store.Head(f.ctx)
	svc := resolver.New(faultyStore{f.store, 2}, resolver.Options{AdminToken: "admin-secret"})
	if _, err := svc.PutMany(f.ctx, m, batch); resolver.KindOf(err) != resolver.KindUnavailable {
		t.Fatalf("PutMany over a failing store: %v", err)
	}
	if recs, _ := f.store.Records(f.ctx, 0, 10); len(recs) != 0 {
		t.Fatalf("a failed batch left %d records", len(recs))
	}
	if h, _ := f.store.Head(f.ctx); h.Seq != head.Seq {
		t.Fatalf("a failed batch left %d history entries", h.Seq-head.Seq)
	}

	clash := append(batch[:0:0], batch...)
	clash[2].Aliases = []string{"urn:example:2-alias"} // the second record's alias
	res, err := f.svc.PutMany(f.ctx, m, clash)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != nil || res[1].Err != nil || resolver.KindOf(res[2].Err) != resolver.KindConflict {
		t.Fatalf("results: %v %v %v", res[0].Err, res[1].Err, res[2].Err)
	}
	if _, err := f.lookup("urn:example:3"); resolver.KindOf(err) != resolver.KindNotFound {
		t.Fatalf("the refused record was written: %v", err)
	}
	if r, err := f.lookup("urn:example:2-alias"); err != nil || r.URN != "urn:example:2" {
		t.Fatalf("the alias changed hands: %+v %v", r, err)
	}
	if _, err := f.svc.Verify(f.ctx, nil); err != nil {
		t.Fatal(err)
	}
}
