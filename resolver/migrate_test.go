package resolver_test

import (
	"testing"

	"github.com/urikit/urikit/resolver"
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
