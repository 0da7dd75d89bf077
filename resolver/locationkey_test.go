package resolver_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/urikit/urikit/internal/pgtest"
	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/memstore"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/resolver/sqlite"
	"github.com/urikit/urikit/uri"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/location-keys.tsv with this build's keys")

// TestLocationKeysAreVersioned pins the keys of a corpus of URLs
// (testdata/location-keys.tsv: URL, tab, key). Stores keep these keys in
// their location index; when package uri's normalization gives one of
// them another key, the keys already stored no longer match what L2N
// computes, and LocationKeyVersion must change so that Migrate computes
// them again.
func TestLocationKeysAreVersioned(t *testing.T) {
	path := filepath.Join("testdata", "location-keys.tsv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	n := 0
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			out.WriteString(text + "\n")
			continue
		}
		raw, want, _ := strings.Cut(text, "\t")
		got, err := resolver.LocationKey(raw)
		if err != nil {
			t.Fatalf("%s:%d: %q: %v", path, line, raw, err)
		}
		fmt.Fprintf(&out, "%s\t%s\n", raw, got)
		n++
		if got != want && !*updateGolden {
			t.Errorf("%s:%d: %q now has the key %q, not %q. If the normalization changed on purpose, raise "+
				"resolver.LocationKeyVersion (stores must compute their keys again) and run this test with -update",
				path, line, raw, got, want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Fatalf("%s holds %d URLs: too few to notice a change", path, n)
	}
	if *updateGolden {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// version2 plays newer rules: version 1's key without a slash that ends
// a path (other than the root's), a change some URLs feel and most do not.
func version2(u uri.URI) string {
	n := u.Normalize(uri.SchemeBased)
	if p := n.Path(); len(p) > 1 && strings.HasSuffix(p, "/") {
		if m, err := n.WithPath(p[:len(p)-1]); err == nil {
			return m.String()
		}
	}
	return n.String()
}

// TestMigrateLocationKeys: a store whose location index was computed by
// older rules (version 1) is opened by a build with newer ones (version 2).
// Before Migrate, L2N misses the records whose key changed, and Verify
// checks the keys against their rows only, saying so; Migrate computes
// every key again, pins the version in the history and the settings, and
// does nothing the second time; a build with the older rules leaves the
// newer keys alone; and the setting taken back fails Verify.
func TestMigrateLocationKeys(t *testing.T) {
	eachStore(t, testMigrateLocationKeys)
}

// eachStore runs test on a new store of each kind.
func eachStore(t *testing.T, test func(*testing.T, resolver.Store)) {
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
		{"postgres", func(t *testing.T) resolver.Store {
			c := pgtest.Start(t, pgtest.Options{})
			st, err := postgres.Open(context.Background(), c.NewDB(t), postgres.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}},
	} {
		t.Run(b.name, func(t *testing.T) { test(t, b.open(t)) })
	}
}

func testMigrateLocationKeys(t *testing.T, store resolver.Store) {
	ctx := context.Background()
	old := resolver.New(store, resolver.Options{AdminToken: "admin-secret", CacheSize: -1})
	m := exampleMaintainer(t, old)
	put := func(name string, urls ...string) resolver.Record {
		t.Helper()
		r, _, err := old.Put(ctx, m, name, locs(urls...))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	same := put("urn:example:same", "HTTP://Example.ORG/a%7e/b")
	moved := put("urn:example:moved", "https://example.org/c/", "https://mirror.example.net/c")
	var many []resolver.Record
	for i := range 1200 { // more than one page of migrateLocations
		many = append(many, put(fmt.Sprintf("urn:example:n%d", i), fmt.Sprintf("https://example.org/n/%d/", i)))
	}

	next := buildOf(store, 2, version2)
	finds := func(svc *resolver.Service, url string, want resolver.Record) bool {
		t.Helper()
		recs, _, err := svc.ByLocation(ctx, url, true)
		if err != nil {
			t.Fatal(err)
		}
		return len(recs) == 1 && recs[0].ID == want.ID
	}
	if !finds(next, "http://example.org/a~/b", same) {
		t.Error("a key the new rules leave as it was: not found before Migrate")
	}
	if finds(next, "https://example.org/c/", moved) {
		t.Error("a key the new rules change was found before Migrate: the test plays no change")
	}
	rep, err := next.VerifyAll(ctx, nil)
	if err != nil || !rep.StaleLocationKeys || rep.LocationKeyVersion != 1 {
		t.Fatalf("VerifyAll before Migrate: %+v, %v; want stale keys of version 1 and no failure", rep, err)
	}

	mr, err := next.Migrate(ctx)
	if err != nil || mr.LocationsFrom != 1 || mr.LocationRecords != 1202 || mr.LocationsRekeyed != 1201 {
		t.Fatalf("Migrate: %+v, %v; want 1202 records read from version 1, 1201 re-keyed", mr, err)
	}
	for _, tc := range []struct {
		url string
		rec resolver.Record
	}{
		{"https://example.org/c/", moved}, {"https://example.org/c", moved}, {"https://mirror.example.net/c", moved},
		{"http://example.org/a~/b", same}, {"https://example.org/n/1199/", many[1199]}, {"https://example.org/n/0", many[0]},
	} {
		if !finds(next, tc.url, tc.rec) {
			t.Errorf("after Migrate, %s does not find %s", tc.url, tc.rec.URN)
		}
	}
	head, err := store.Head(ctx)
	if err != nil || head.Action != resolver.ActionLocationsMigrate || !strings.Contains(string(head.Data), `"version":2`) {
		t.Fatalf("the last entry is not the migration's: %+v, %v", head, err)
	}
	if v, err := store.Setting(ctx, resolver.LocationKeySetting); err != nil || v != "2" {
		t.Fatalf("setting %s = %q, %v", resolver.LocationKeySetting, v, err)
	}
	if rep, err := next.VerifyAll(ctx, nil); err != nil || rep.StaleLocationKeys || rep.LocationKeyVersion != 2 {
		t.Fatalf("VerifyAll after Migrate: %+v, %v", rep, err)
	}
	if mr, err := next.Migrate(ctx); err != nil || mr.LocationsFrom != 0 || mr.LocationRecords != 0 {
		t.Fatalf("second Migrate: %+v, %v", mr, err)
	}
	// A build with the older rules, still running or started again, must
	// not take the keys back; its Verify cannot recompute them either.
	if mr, err := old.Migrate(ctx); err != nil || mr.LocationsFrom != 0 {
		t.Fatalf("Migrate by the older build: %+v, %v", mr, err)
	}
	if rep, err := old.VerifyAll(ctx, nil); err != nil || !rep.StaleLocationKeys || rep.LocationKeyVersion != 2 {
		t.Fatalf("VerifyAll by the older build: %+v, %v", rep, err)
	}

	// A key edited with its row is found again by the newer build.
	err = store.Update(ctx, func(tx resolver.Tx) error {
		r, err := tx.Record(ctx, moved.ID)
		if err != nil {
			return err
		}
		r.Locations[0].Key = "https://elsewhere.example/"
		return tx.UpdateRecord(ctx, r)
	})
	if err != nil {
		t.Fatal(err)
	}
	var se *resolver.StateError
	if _, err := next.VerifyAll(ctx, nil); !errors.As(err, &se) || se.RecordID != moved.ID || !strings.Contains(se.Reason, "normalizes to") {
		t.Fatalf("VerifyAll with an edited key: %v", err)
	}
	if _, err := next.Migrate(ctx); err != nil { // (does not repair it: the keys are current)
		t.Fatal(err)
	}
	err = store.Update(ctx, func(tx resolver.Tx) error {
		r, err := tx.Record(ctx, moved.ID)
		if err != nil {
			return err
		}
		r.Locations[0].Key = version2(uri.MustParse(r.Locations[0].URL))
		if err := tx.UpdateRecord(ctx, r); err != nil {
			return err
		}
		// Taken back to version 1, the setting would stop Verify from
		// recomputing the keys.
		return tx.SetSetting(ctx, resolver.LocationKeySetting, "1")
	})
	if err != nil {
		t.Fatal(err)
	}
	var ae *resolver.AccessError
	if _, err := next.VerifyAll(ctx, nil); !errors.As(err, &ae) || ae.Kind != "location keys" || ae.Seq != head.Seq {
		t.Fatalf("VerifyAll with the version taken back: %v", err)
	}
}

// exampleMaintainer makes the authority of urn:example: through svc, whose
// admin token is "admin-secret", and returns its maintainer.
func exampleMaintainer(t *testing.T, svc *resolver.Service) resolver.Principal {
	t.Helper()
	ctx := context.Background()
	admin, err := svc.Authenticate(ctx, "admin-secret")
	if err != nil {
		t.Fatal(err)
	}
	_, tok, err := svc.CreateAuthority(ctx, admin, "Example", []string{"urn:example:"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := svc.Authenticate(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// beforeUpdate is a store that runs hook once, before its n-th Update
// (from 1): another process's work landing in the middle of this one's.
type beforeUpdate struct {
	resolver.Store
	n    int
	hook func()
}

func (s *beforeUpdate) Update(ctx context.Context, fn func(resolver.Tx) error) error {
	if s.n--; s.n == 0 {
		s.hook()
	}
	return s.Store.Update(ctx, fn)
}

// version3 plays rules newer still: version 2's key with its path in
// lower case.
func version3(u uri.URI) string {
	k, _ := uri.Parse(version2(u))
	if m, err := k.WithPath(strings.ToLower(k.Path())); err == nil {
		return m.String()
	}
	return k.String()
}

// TestLocationKeysAcrossBuilds: builds of different rules on one store.
//   - Two newer builds migrate at once (a rolling upgrade that skips a
//     version): the one that finds the keys migrated under it by another
//     stops, and leaves the other's keys alone.
//   - An older build still running refuses to store keys by its rules in
//     a store a newer one migrated, and its Migrate says so.
//   - A store a newer build makes records its version with its first
//     record, so that it does not pass for version 1.
func TestLocationKeysAcrossBuilds(t *testing.T) {
	eachStore(t, func(t *testing.T, store resolver.Store) {
		ctx := context.Background()
		v3 := buildOf(store, 3, version3)
		m := exampleMaintainer(t, v3)
		// Records of version 1, this build's rules, in a store with no
		// setting: what every store made before the setting holds.
		v1 := resolver.New(store, resolver.Options{AdminToken: "admin-secret", CacheSize: -1})
		a, _, err := v1.Put(ctx, m, "urn:example:a", locs("https://example.org/A/"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.Setting(ctx, resolver.LocationKeySetting); !errors.Is(err, resolver.ErrNotFound) {
			t.Fatalf("version 1 wrote the setting: %v", err)
		}

		// v2 starts migrating; v3 migrates the whole store before v2's
		// first transaction.
		v2 := buildOf(&beforeUpdate{Store: store, n: 1, hook: func() {
			if rep, err := v3.Migrate(ctx); err != nil || rep.LocationsFrom != 1 || rep.LocationsRekeyed != 1 {
				t.Errorf("v3's Migrate: %+v %v", rep, err)
			}
		}}, 2, version2)
		if rep, err := v2.Migrate(ctx); err != nil || rep.LocationsRekeyed != 0 || rep.LocationsFrom != 0 || rep.LocationsNewer != 3 {
			t.Fatalf("v2's Migrate, overtaken: %+v %v; want nothing migrated, the store's keys newer (3)", rep, err)
		}
		if v, err := store.Setting(ctx, resolver.LocationKeySetting); err != nil || v != "3" {
			t.Fatalf("setting %q %v, want 3", v, err)
		}
		recs, _, err := v3.ByLocation(ctx, "https://example.org/a", true)
		if err != nil || len(recs) != 1 || recs[0].ID != a.ID {
			t.Fatalf("v3's L2N after both migrations: %+v %v", recs, err)
		}
		if rep, err := v3.VerifyAll(ctx, nil); err != nil || rep.StaleLocationKeys || rep.LocationKeyVersion != 3 {
			t.Fatalf("v3's Verify: %+v %v", rep, err)
		}

		// The older builds still running.
		for _, old := range []*resolver.Service{v1, buildOf(store, 2, version2)} {
			if _, _, err := old.Put(ctx, m, "urn:example:b", locs("https://example.org/B/")); resolver.KindOf(err) != resolver.KindUnavailable ||
				!strings.Contains(err.Error(), "a newer urikit migrated them") {
				t.Fatalf("an older build's Put into a newer store: %v, want unavailable", err)
			}
			if rep, err := old.Migrate(ctx); err != nil || rep.LocationsNewer != 3 || rep.LocationsFrom != 0 {
				t.Fatalf("an older build's Migrate: %+v %v", rep, err)
			}
		}
		if _, _, err := v3.Put(ctx, m, "urn:example:b", locs("https://example.org/B/")); err != nil {
			t.Fatal(err)
		}
	})
	eachStore(t, func(t *testing.T, store resolver.Store) {
		ctx := context.Background()
		v2 := buildOf(store, 2, version2)
		m := exampleMaintainer(t, v2)
		batch := []resolver.NamedInput{{URN: "urn:example:a", RecordInput: resolver.RecordInput{Locations: []resolver.Location{{URL: "https://example.org/a/"}}}}}
		if res, err := v2.PutMany(ctx, m, batch); err != nil || res[0].Err != nil {
			t.Fatalf("PutMany: %+v %v", res, err)
		}
		if v, err := store.Setting(ctx, resolver.LocationKeySetting); err != nil || v != "2" {
			t.Fatalf("a new store's first record: setting %q %v, want 2", v, err)
		}
		if rep, err := v2.VerifyAll(ctx, nil); err != nil || rep.StaleLocationKeys || rep.LocationKeyVersion != 2 {
			t.Fatalf("Verify: %+v %v", rep, err)
		}
		if rep, err := v2.Migrate(ctx); err != nil || rep.LocationsFrom != 0 {
			t.Fatalf("Migrate: %+v %v", rep, err)
		}
	})
}

// TestMigrateLocationKeysLateWrite: a build of the older rules writes a
// record after the migration keyed its page again, before the migration
// recorded the version (the older build cannot refuse before that). The
// migration's last transaction keys that record again too, so that the
// store it marks as of the newer rules holds only their keys.
func TestMigrateLocationKeysLateWrite(t *testing.T) {
	eachStore(t, func(t *testing.T, store resolver.Store) {
		ctx := context.Background()
		v1 := resolver.New(store, resolver.Options{AdminToken: "admin-secret", CacheSize: -1})
		m := exampleMaintainer(t, v1)
		if _, _, err := v1.Put(ctx, m, "urn:example:a", locs("https://example.org/a/")); err != nil {
			t.Fatal(err)
		}
		// Update 1 begins the migration, update 2 keys the one page
		// again; before update 3, which records the version, v1 adds a
		// location to a, and a record.
		v2 := resolver.New(&beforeUpdate{Store: store, n: 3, hook: func() {
			if _, _, err := v1.Put(ctx, m, "urn:example:a", locs("https://example.org/a/", "https://example.org/late/")); err != nil {
				t.Error(err)
			}
			if _, _, err := v1.Put(ctx, m, "urn:example:b", locs("https://example.org/b/")); err != nil {
				t.Error(err)
			}
		}}, resolver.Options{AdminToken: "admin-secret", CacheSize: -1})
		v2.PlayLocationRules(2, version2)
		rep, err := v2.Migrate(ctx)
		if err != nil || rep.LocationsFrom != 1 || rep.LocationsRekeyed != 3 {
			t.Fatalf("Migrate: %+v %v; want 3 records keyed again (a twice, b)", rep, err)
		}
		for url, name := range map[string]string{"https://example.org/late": "urn:example:a", "https://example.org/a": "urn:example:a", "https://example.org/b/": "urn:example:b"} {
			recs, _, err := v2.ByLocation(ctx, url, true)
			if err != nil || len(recs) != 1 || recs[0].URN != name {
				t.Errorf("%s: %+v %v, want %s", url, recs, err, name)
			}
		}
		if _, err := v2.VerifyAll(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if _, _, err := v1.Put(ctx, m, "urn:example:a", locs("https://example.org/a/")); resolver.KindOf(err) != resolver.KindUnavailable {
			t.Fatalf("v1's Put after the migration: %v, want unavailable", err)
		}
	})
}

// TestBatchStampComesAfterTheLocationKeyPin: on a new store, a build of
// other location rules than version 1 pins its version with the first
// batch, an entry of its own. The batch's changes are stamped after it:
// the history's times never go back, and each record's Updated is its
// entry's Time. The clock moves on a microsecond each time it is read,
// as a real one does between two statements.
func TestBatchStampComesAfterTheLocationKeyPin(t *testing.T) {
	eachStore(t, func(t *testing.T, store resolver.Store) {
		ctx := context.Background()
		base := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
		var ticks atomic.Int64
		clock := func() time.Time { return base.Add(time.Duration(ticks.Add(1)) * time.Microsecond) }
		svc := resolver.New(store, resolver.Options{AdminToken: "admin-secret", CacheSize: -1, Clock: clock})
		svc.PlayLocationRules(2, version2)
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
		created := 0
		for _, e := range log {
			if e.Time.Before(last) {
				t.Errorf("entry %d (%s) at %s, before the entry ahead of it (%s)", e.Seq, e.Action, e.Time.Format(time.RFC3339Nano), last.Format(time.RFC3339Nano))
			}
			last = e.Time
			for _, r := range res {
				if r.Err == nil && e.RecordID == r.Record.ID && e.Action == resolver.ActionNameCreate {
					created++
					if !e.Time.Equal(r.Record.Updated) {
						t.Errorf("%s: its entry at %s, its Updated %s", r.Record.URN, e.Time.Format(time.RFC3339Nano), r.Record.Updated.Format(time.RFC3339Nano))
					}
				}
			}
		}
		if created != 2 || !slices.ContainsFunc(log, func(e resolver.Entry) bool { return e.Action == resolver.ActionLocationsMigrate }) {
			t.Fatalf("%d records' entries, and the pin %v, in %d entries", created, slices.ContainsFunc(log, func(e resolver.Entry) bool { return e.Action == resolver.ActionLocationsMigrate }), len(log))
		}
	})
}

// TestVerifyDuringLocationMigration: a location-key migration runs while
// Verify reads the directory. Its first page collapses two rows of a
// record into one (the record's two URLs have one key by the newer
// rules) after Verify read that record, and before Verify counts the
// index; the index also holds a forged row under a key its record does not
// list, which only a full read of the index finds. The count then equals
// the rows the records account for, one forged row in place of the one
// the page removed: Verify must not trust it, and finds the row because
// the page appended an entry, which moved the history's head.
func TestVerifyDuringLocationMigration(t *testing.T) {
	for _, b := range []struct {
		name string
		open func(t *testing.T) (resolver.Store, func(sql string))
	}{
		{"sqlite", func(t *testing.T) (resolver.Store, func(string)) {
			dir := t.TempDir()
			st, err := sqlite.Open(context.Background(), dir, sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			db, err := sql.Open("sqlite", filepath.Join(dir, sqlite.FileName))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return st, func(q string) {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"postgres", func(t *testing.T) (resolver.Store, func(string)) {
			dsn := pgtest.Start(t, pgtest.Options{}).NewDB(t)
			st, err := postgres.Open(context.Background(), dsn, postgres.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			conn, err := pgx.Connect(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close(context.Background()) })
			return st, func(q string) {
				if _, err := conn.Exec(context.Background(), q); err != nil {
					t.Fatal(err)
				}
			}
		}},
	} {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			store, exec := b.open(t)
			v1 := resolver.New(store, resolver.Options{AdminToken: "admin-secret", CacheSize: -1})
			m := exampleMaintainer(t, v1)
			a, _, err := v1.Put(ctx, m, "urn:example:a", locs("https://example.org/c/", "https://example.org/c"))
			if err != nil {
				t.Fatal(err)
			}
			b, _, err := v1.Put(ctx, m, "urn:example:b", locs("https://example.org/b"))
			if err != nil {
				t.Fatal(err)
			}
			exec(fmt.Sprintf(`INSERT INTO locations (key, record_id) VALUES ('https://evil.example/', %d)`, b.ID))
			if recs, _, err := v1.ByLocation(ctx, "https://evil.example/", true); err != nil || len(recs) != 1 || recs[0].ID != b.ID {
				t.Fatalf("L2N of the forged row: %+v %v", recs, err)
			}
			if _, err := v1.VerifyAll(ctx, nil); err == nil {
				t.Fatal("VerifyAll misses the forged row even without a migration")
			}

			// v2's migration begins before Verify does (its first
			// transaction), writes its page while Verify waits between
			// reading the records and counting the index's rows (its
			// second), and records the version after Verify is done (its
			// third).
			begun, page, paged, release := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
			done := make(chan error, 1)
			hooks := &beforeUpdate{Store: store, n: 3, hook: func() {
				close(paged)
				<-release
			}}
			v2 := resolver.New(&beforeUpdate{Store: hooks, n: 2, hook: func() {
				close(begun)
				<-page
			}}, resolver.Options{AdminToken: "admin-secret", CacheSize: -1})
			v2.PlayLocationRules(2, version2)
			go func() {
				_, err := v2.Migrate(ctx)
				done <- err
			}()
			<-begun
			started := false
			_, err = v1.VerifyAll(ctx, func(r resolver.VerifyReport) {
				if r.Records == 2 && !started {
					started = true
					close(page)
					<-paged
				}
			})
			if !started {
				close(page)
			}
			close(release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if !started {
				t.Fatal("Verify never reported the records read: the migration did not run during it")
			}
			if recs, _, err := v2.ByLocation(ctx, "https://example.org/c/", true); err != nil || len(recs) != 1 || recs[0].ID != a.ID {
				t.Fatalf("the page did not re-key a: %+v %v", recs, err)
			}
			var se *resolver.StateError
			if !errors.As(err, &se) || se.RecordID != b.ID || !strings.Contains(se.Reason, `holds "https://evil.example/" for it`) {
				t.Fatalf("VerifyAll during the migration: %v; want the forged row of urn:example:b", err)
			}
		})
	}
}

// TestLocationKeyMigrationTakenOver: migrations at once on one store.
//   - v3's migration begins after v2 keyed its first page and before its
//     second (a rolling upgrade that skips a version): v2 stops there, and
//     v3, which reads every record after it began, leaves every key of its
//     version, v2's page too.
//   - v2 keys a page, v3 takes over, and a second instance of v3 takes
//     over from the first. The mark is a migration's own, not its
//     build's: v3's first instance stops as v2 does, and the second one
//     finishes.
//   - A migration of v3 is interrupted after it began. v2's Migrate (as
//     serve's start runs it) leaves it alone; v2's MigrateOver (as urikit
//     migrate runs it) ends it at version 2. v3, whose keys are then newer
//     than the store's with no migration under way, refuses to store
//     them until it migrates again.
func TestLocationKeyMigrationTakenOver(t *testing.T) {
	eachStore(t, func(t *testing.T, store resolver.Store) {
		ctx := context.Background()
		v1 := resolver.New(store, resolver.Options{AdminToken: "admin-secret", CacheSize: -1})
		m := exampleMaintainer(t, v1)
		const n = 1200 // three pages of a migration
		putNumbered(t, v1, m, n, "https://example.org/n/%d/X/")
		paged, release, done := make(chan struct{}), make(chan struct{}), make(chan resolver.MigrateReport, 1)
		// v3's updates: it begins, keys three pages, records the version.
		v3 := buildOf(&beforeUpdate{Store: store, n: 5, hook: func() {
			close(paged)
			<-release
		}}, 3, version3)
		// v2's updates: it begins, keys its first page, and before its
		// second v3 begins and keys every page.
		v2 := buildOf(&beforeUpdate{Store: store, n: 3, hook: func() {
			go func() {
				rep, err := v3.Migrate(ctx)
				if err != nil {
					t.Error(err)
				}
				done <- rep
			}()
			<-paged
		}}, 2, version2)
		rep2, err := v2.Migrate(ctx)
		close(release)
		rep3 := <-done
		if err != nil || rep2.LocationsTakenOver != 3 || rep2.LocationsFrom != 0 || rep2.LocationsRekeyed != 500 {
			t.Fatalf("v2's Migrate: %+v %v; want one page keyed, then taken over by version 3", rep2, err)
		}
		if rep3.LocationsFrom != 1 || rep3.LocationRecords != n || rep3.LocationsRekeyed != n || rep3.LocationsTakenOver != 0 {
			t.Fatalf("v3's Migrate: %+v; want every record keyed again from version 1", rep3)
		}
		for name, want := range map[string]string{resolver.LocationKeySetting: "3", resolver.LocationKeyMigrationSetting: ""} {
			if v, err := store.Setting(ctx, name); err != nil || v != want {
				t.Fatalf("setting %s = %q %v, want %q", name, v, err, want)
			}
		}
		for _, i := range []int{0, 499, 500, n - 1} { // v2's page, and the others
			url := fmt.Sprintf("https://example.org/n/%d/x", i)
			if recs, _, err := v3.ByLocation(ctx, url, true); err != nil || len(recs) != 1 || recs[0].URN != fmt.Sprintf("urn:example:n%d", i) {
				t.Errorf("v3's L2N of %s: %+v %v", url, recs, err)
			}
		}
		if rep, err := v3.VerifyAll(ctx, nil); err != nil || rep.StaleLocationKeys || rep.LocationMigration != 0 || rep.Records != n {
			t.Fatalf("v3's Verify: %+v %v", rep, err)
		}
	})
	eachStore(t, func(t *testing.T, store resolver.Store) {
		ctx := context.Background()
		v1 := resolver.New(store, resolver.Options{AdminToken: "admin-secret", CacheSize: -1})
		m := exampleMaintainer(t, v1)
		const n = 1200
		putNumbered(t, v1, m, n, "https://example.org/n/%d/X/")
		cPaged, cRelease, cDone := make(chan struct{}), make(chan struct{}), make(chan resolver.MigrateReport, 1)
		bBegun, bRelease, bDone := make(chan struct{}), make(chan struct{}), make(chan resolver.MigrateReport, 1)
		run := func(svc *resolver.Service, done chan resolver.MigrateReport) {
			go func() {
				rep, err := svc.Migrate(ctx)
				if err != nil {
					t.Error(err)
				}
				done <- rep
			}()
		}
		c := buildOf(&beforeUpdate{Store: store, n: 3, hook: func() { close(cPaged); <-cRelease }}, 3, version3)
		b := buildOf(&beforeUpdate{Store: store, n: 2, hook: func() { close(bBegun); <-bRelease }}, 3, version3)
		a := buildOf(&beforeUpdate{Store: store, n: 3, hook: func() {
			run(c, cDone)
			<-cPaged
			run(b, bDone)
			<-bBegun
		}}, 2, version2)
		repA, err := a.Migrate(ctx)
		if err != nil || repA.LocationsTakenOver != 3 || repA.LocationsFrom != 0 {
			t.Errorf("v2: %+v %v; want it taken over by v3's second instance", repA, err)
		}
		close(cRelease)
		repC := <-cDone
		if repC.LocationsTakenOver != 3 || repC.LocationsFrom != 0 || repC.LocationsOlder != 0 {
			t.Errorf("v3's first instance: %+v; want it taken over by its second, with nothing to refuse", repC)
		}
		close(bRelease)
		repB := <-bDone
		// v3's first instance keyed the first page by the same rules.
		if repB.LocationsFrom != 1 || repB.LocationRecords != n || repB.LocationsRekeyed != n-500 {
			t.Errorf("v3's second instance: %+v; want every record read, the last %d keyed again", repB, n-500)
		}
		v3 := buildOf(store, 3, version3)
		for _, i := range []int{0, 499, 500, n - 1} { // the pages of v2, of v3's first instance, and the others
			url := fmt.Sprintf("https://example.org/n/%d/x", i)
			if recs, _, err := v3.ByLocation(ctx, url, true); err != nil || len(recs) != 1 || recs[0].URN != fmt.Sprintf("urn:example:n%d", i) {
				t.Errorf("v3's L2N of %s: %+v %v", url, recs, err)
			}
		}
		if rep, err := v3.VerifyAll(ctx, nil); err != nil || rep.StaleLocationKeys || rep.LocationMigration != 0 || rep.Records != n {
			t.Fatalf("v3's Verify: %+v %v", rep, err)
		}
	})
	eachStore(t, func(t *testing.T, store resolver.Store) {
		ctx := context.Background()
		v1 := resolver.New(store, resolver.Options{AdminToken: "admin-secret", CacheSize: -1})
		m := exampleMaintainer(t, v1)
		if _, _, err := v1.Put(ctx, m, "urn:example:a", locs("https://example.org/A/")); err != nil {
			t.Fatal(err)
		}
		// v3 begins, and fails at its first page.
		if _, err := buildOf(&failUpdate{Store: store, n: 2}, 3, version3).Migrate(ctx); err == nil {
			t.Fatal("v3's Migrate did not fail")
		}
		mark, err := store.Setting(ctx, resolver.LocationKeyMigrationSetting)
		if err != nil || !strings.HasPrefix(mark, "3:") {
			t.Fatalf("after the failure, setting %s = %q %v, want v3's mark", resolver.LocationKeyMigrationSetting, mark, err)
		}
		v2 := buildOf(store, 2, version2)
		if rep, err := v2.Migrate(ctx); err != nil || rep.LocationsNewerUnderWay != 3 || rep.LocationsFrom != 0 || rep.LocationsOlder != 1 {
			t.Fatalf("v2's Migrate: %+v %v; want v3's migration left alone", rep, err)
		}
		if v, err := store.Setting(ctx, resolver.LocationKeyMigrationSetting); err != nil || v != mark {
			t.Fatalf("after v2's Migrate, the mark is %q %v, want %q", v, err, mark)
		}
		if rep, err := v2.MigrateOver(ctx); err != nil || rep.LocationsFrom != 1 || rep.LocationsRekeyed != 1 || rep.LocationsTakenOver != 0 {
			t.Fatalf("v2's MigrateOver: %+v %v", rep, err)
		}
		if v, err := store.Setting(ctx, resolver.LocationKeyMigrationSetting); err != nil || v != "" {
			t.Fatalf("after v2's migration, setting %s = %q %v, want it cleared", resolver.LocationKeyMigrationSetting, v, err)
		}
		v3 := buildOf(store, 3, version3)
		if _, _, err := v3.Put(ctx, m, "urn:example:late", locs("https://example.org/Late/")); resolver.KindOf(err) != resolver.KindUnavailable ||
			!strings.Contains(err.Error(), "older normalization rules (version 2)") {
			t.Fatalf("v3's Put into a store of version 2 with no migration under way: %v, want unavailable", err)
		}
		if rep, err := v3.Migrate(ctx); err != nil || rep.LocationsFrom != 2 || rep.LocationsRekeyed != 1 {
			t.Fatalf("v3's Migrate from version 2: %+v %v", rep, err)
		}
		if _, _, err := v3.Put(ctx, m, "urn:example:late", locs("https://example.org/Late/")); err != nil {
			t.Fatal(err)
		}
		if recs, _, err := v3.ByLocation(ctx, "https://example.org/a", true); err != nil || len(recs) != 1 {
			t.Fatalf("v3's L2N: %+v %v", recs, err)
		}
		if rep, err := v3.VerifyAll(ctx, nil); err != nil || rep.StaleLocationKeys || rep.LocationKeyVersion != 3 {
			t.Fatalf("v3's Verify: %+v %v", rep, err)
		}
	})
}

// failUpdate is a store whose n-th Update (from 1) fails before it runs,
// as a process killed between two transactions would leave it.
type failUpdate struct {
	resolver.Store
	n int
}

func (s *failUpdate) Update(ctx context.Context, fn func(resolver.Tx) error) error {
	if s.n--; s.n == 0 {
		return errors.New("the process stopped here")
	}
	return s.Store.Update(ctx, fn)
}

// TestVerifyByAnOlderBuildDuringAMigration: while a newer build migrates
// the location keys, the store still says they are of version 1, which is
// an older build's own: that build's Verify meets keys of the newer rules
// in the pages already migrated. They are no edit: Verify checks them
// against their rows only and says that a migration was under way.
func TestVerifyByAnOlderBuildDuringAMigration(t *testing.T) {
	eachStore(t, func(t *testing.T, store resolver.Store) {
		ctx := context.Background()
		v1 := resolver.New(store, resolver.Options{AdminToken: "admin-secret", CacheSize: -1})
		m := exampleMaintainer(t, v1)
		const n = 1200
		putNumbered(t, v1, m, n, "https://example.org/n/%d/")
		paged, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
		v2 := buildOf(&beforeUpdate{Store: store, n: 3, hook: func() { close(paged); <-release }}, 2, version2)
		go func() {
			_, err := v2.Migrate(ctx)
			done <- err
		}()
		<-paged // v2 keyed its first page, and waits before its second
		rep, err := v1.VerifyAll(ctx, nil)
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if err != nil || rep.LocationMigration == 0 || rep.StaleLocationKeys || rep.LocationKeyVersion != 1 || rep.Records != n {
			t.Fatalf("v1's VerifyAll during v2's migration: %+v %v; want no failure, and the migration noted", rep, err)
		}
		if rep, err := v2.VerifyAll(ctx, nil); err != nil || rep.LocationMigration != 0 || rep.StaleLocationKeys {
			t.Fatalf("v2's VerifyAll after its migration: %+v %v", rep, err)
		}
	})
}

// TestLocationKeyMigrationMark: what the mark of a migration allows, and
// that only a mark the history backs allows it.
//   - A newer build refuses to store keys of its rules in a store of
//     older ones when no migration is under way, the first upgrade (no
//     setting yet) too.
//   - A migration interrupted after its first page leaves its mark. An
//     older build's Verify then checks the keys of the newer rules against
//     their rows only, and says so. The older build's Migrate leaves the
//     mark alone (the migration may be under way); its MigrateOver keys
//     every record again by its own rules and clears the mark, after which
//     its Verify computes every key again.
//   - A mark written behind the history's back fails Verify, which it
//     would otherwise stop from computing keys.
func TestLocationKeyMigrationMark(t *testing.T) {
	eachStore(t, func(t *testing.T, store resolver.Store) {
		ctx := context.Background()
		v1 := resolver.New(store, resolver.Options{AdminToken: "admin-secret", CacheSize: -1})
		m := exampleMaintainer(t, v1)
		a, _, err := v1.Put(ctx, m, "urn:example:a", locs("https://example.org/a/"))
		if err != nil {
			t.Fatal(err)
		}
		newV2 := func(st resolver.Store) *resolver.Service {
			svc := buildOf(st, 2, version2)
			return svc
		}
		if _, _, err := newV2(store).Put(ctx, m, "urn:example:b", locs("https://example.org/b/")); resolver.KindOf(err) != resolver.KindUnavailable ||
			!strings.Contains(err.Error(), "no migration is under way") {
			t.Fatalf("v2's Put into an unmigrated store: %v, want unavailable", err)
		}

		// v2 begins, keys its page, and stops before it records its version.
		if _, err := newV2(&failUpdate{Store: store, n: 3}).Migrate(ctx); err == nil {
			t.Fatal("v2's Migrate did not fail")
		}
		if recs, _, err := v1.ByLocation(ctx, "https://example.org/a/", true); err != nil || len(recs) != 0 {
			t.Fatalf("the test plays no change: v1's L2N finds a after v2's page: %+v %v", recs, err)
		}
		rep, err := v1.VerifyAll(ctx, nil)
		if err != nil || rep.LocationMigration == 0 || rep.StaleLocationKeys {
			t.Fatalf("v1's VerifyAll after the interrupted migration: %+v %v; want the migration noted", rep, err)
		}
		if _, _, err := newV2(store).Put(ctx, m, "urn:example:b", locs("https://example.org/b/")); err != nil {
			t.Fatalf("v2's Put while a migration is under way: %v", err)
		}
		if mr, err := v1.Migrate(ctx); err != nil || mr.LocationsNewerUnderWay != 2 || mr.LocationsFrom != 0 {
			t.Fatalf("v1's Migrate: %+v %v; want v2's migration left alone", mr, err)
		}
		mr, err := v1.MigrateOver(ctx)
		if err != nil || mr.LocationsInterrupted != 2 || mr.LocationsFrom != 1 || mr.LocationRecords != 2 || mr.LocationsRekeyed != 2 {
			t.Fatalf("v1's MigrateOver: %+v %v; want both records keyed again by version 1", mr, err)
		}
		if v, err := store.Setting(ctx, resolver.LocationKeyMigrationSetting); err != nil || v != "" {
			t.Fatalf("the mark after v1's Migrate: %q %v", v, err)
		}
		for url, id := range map[string]int64{"https://example.org/a/": a.ID} {
			if recs, _, err := v1.ByLocation(ctx, url, true); err != nil || len(recs) != 1 || recs[0].ID != id {
				t.Fatalf("v1's L2N of %s: %+v %v", url, recs, err)
			}
		}
		if rep, err := v1.VerifyAll(ctx, nil); err != nil || rep.LocationMigration != 0 || rep.StaleLocationKeys {
			t.Fatalf("v1's VerifyAll after its Migrate: %+v %v", rep, err)
		}

		// A key edited with its row fails Verify, and a mark that no
		// migration wrote does not hide it.
		update(t, store, func(tx resolver.Tx) error {
			r, err := tx.Record(ctx, a.ID)
			if err != nil {
				return err
			}
			r.Locations[0].Key = "https://evil.example/"
			return tx.UpdateRecord(ctx, r)
		})
		var se *resolver.StateError
		if _, err := v1.VerifyAll(ctx, nil); !errors.As(err, &se) || se.RecordID != a.ID {
			t.Fatalf("VerifyAll with an edited key: %v", err)
		}
		// The marks: an entry that began nothing, v2's begin entry (whose
		// migration v1's ended), a mark that is no VERSION:SEQ.
		var begun int64
		log, err := store.Log(ctx, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range log {
			if e.Action == resolver.ActionLocationsRekey && strings.Contains(string(e.Data), `"version":2`) && begun == 0 {
				begun = e.Seq
			}
		}
		if begun == 0 {
			t.Fatal("no entry began v2's migration")
		}
		for _, mark := range []string{"2:1", fmt.Sprintf("2:%d", begun), "3:x"} {
			update(t, store, func(tx resolver.Tx) error { return tx.SetSetting(ctx, resolver.LocationKeyMigrationSetting, mark) })
			var ae *resolver.AccessError
			if _, err := v1.VerifyAll(ctx, nil); !errors.As(err, &ae) || ae.Kind != "location keys" || !strings.Contains(err.Error(), resolver.LocationKeyMigrationSetting) {
				t.Errorf("VerifyAll with the mark %q written behind the history's back: %v", mark, err)
			}
		}
		// The last mark is no VERSION:SEQ at all: Migrate (serve's
		// start) says how to replace it, and MigrateOver does, keying
		// every record again (the edited key too).
		if _, err := v1.Migrate(ctx); resolver.KindOf(err) != resolver.KindUnavailable ||
			!strings.Contains(err.Error(), resolver.LocationKeyMigrationSetting) || !strings.Contains(err.Error(), "urikit migrate") {
			t.Fatalf("Migrate with a malformed mark: %v", err)
		}
		if mr, err := v1.MigrateOver(ctx); err != nil || mr.LocationsFrom != 1 || mr.LocationsRekeyed != 1 {
			t.Fatalf("MigrateOver with a malformed mark: %+v %v; want the edited record keyed again", mr, err)
		}
		if rep, err := v1.VerifyAll(ctx, nil); err != nil || rep.LocationMigration != 0 {
			t.Fatalf("VerifyAll after MigrateOver: %+v %v", rep, err)
		}
	})
	// v2 reads no mark, then v3's migration begins (and stops, as if
	// still under way) before v2's first transaction: v2 reads the mark
	// again under the lock and leaves v3's migration alone.
	eachStore(t, func(t *testing.T, store resolver.Store) {
		ctx := context.Background()
		v1 := resolver.New(store, resolver.Options{AdminToken: "admin-secret", CacheSize: -1})
		m := exampleMaintainer(t, v1)
		if _, _, err := v1.Put(ctx, m, "urn:example:a", locs("https://example.org/a/")); err != nil {
			t.Fatal(err)
		}
		v3 := buildOf(&failUpdate{Store: store, n: 2}, 3, version3)
		v2 := resolver.New(&beforeUpdate{Store: store, n: 1, hook: func() {
			if _, err := v3.Migrate(ctx); err == nil {
				t.Error("v3's Migrate did not fail")
			}
		}}, resolver.Options{AdminToken: "admin-secret", CacheSize: -1})
		v2.PlayLocationRules(2, version2)
		if rep, err := v2.Migrate(ctx); err != nil || rep.LocationsNewerUnderWay != 3 || rep.LocationsFrom != 0 {
			t.Fatalf("v2's Migrate: %+v %v; want v3's migration left alone", rep, err)
		}
		if v, err := store.Setting(ctx, resolver.LocationKeyMigrationSetting); err != nil || !strings.HasPrefix(v, "3:") {
			t.Fatalf("the mark after v2's Migrate: %q %v, want v3's", v, err)
		}
	})
	// A new store: v2's migration (of no record) is interrupted before
	// it records its version; v2's first record records it, which ends
	// the migration and its mark.
	eachStore(t, func(t *testing.T, store resolver.Store) {
		ctx := context.Background()
		v2 := buildOf(&failUpdate{Store: store, n: 2}, 2, version2)
		if _, err := v2.Migrate(ctx); err == nil {
			t.Fatal("v2's Migrate did not fail")
		}
		v2 = buildOf(store, 2, version2)
		m := exampleMaintainer(t, v2)
		if _, _, err := v2.Put(ctx, m, "urn:example:a", locs("https://example.org/a/")); err != nil {
			t.Fatal(err)
		}
		if v, err := store.Setting(ctx, resolver.LocationKeyMigrationSetting); err != nil || v != "" {
			t.Fatalf("the mark after the first record: %q %v", v, err)
		}
		if rep, err := v2.VerifyAll(ctx, nil); err != nil || rep.LocationKeyVersion != 2 || rep.LocationMigration != 0 {
			t.Fatalf("VerifyAll: %+v %v", rep, err)
		}
	})
}

// update runs fn in a transaction of store.
func update(t *testing.T, store resolver.Store, fn func(resolver.Tx) error) {
	t.Helper()
	if err := store.Update(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyAcrossAMigrationThatEnded: a migration begins and ends while
// Verify reads the records, and leaves the keys' version as Verify read
// it. v2 keys every record and is interrupted; Verify reads the later
// records with v2's keys; then, before Verify looks for a migration under
// way, v1's MigrateOver keys them back and ends it. The history has the
// migration's entries after those Verify began with: Verify checks those
// records against their rows only, and does not fail.
func TestVerifyAcrossAMigrationThatEnded(t *testing.T) {
	eachStore(t, func(t *testing.T, store resolver.Store) {
		ctx := context.Background()
		v1 := resolver.New(store, resolver.Options{AdminToken: "admin-secret", CacheSize: -1})
		m := exampleMaintainer(t, v1)
		const n = 1200 // two pages of Verify
		putNumbered(t, v1, m, n, "https://example.org/n/%d/")
		v2 := buildOf(&failUpdate{Store: store, n: 5}, 2, version2)
		watch := &onSetting{Store: store, name: resolver.LocationKeyMigrationSetting}
		verifier := resolver.New(watch, resolver.Options{AdminToken: "admin-secret", CacheSize: -1})
		rep, err := verifier.VerifyAll(ctx, func(r resolver.VerifyReport) {
			if r.Records != 1000 || watch.hook != nil {
				return
			}
			// v2 begins, keys three pages, and fails before it records
			// its version.
			if _, err := v2.Migrate(ctx); err == nil {
				t.Error("v2's Migrate did not fail")
			}
			watch.hook = func() {
				if _, err := v1.MigrateOver(ctx); err != nil {
					t.Error(err)
				}
			}
		})
		if watch.hook == nil {
			t.Fatal("Verify never reported its first page")
		}
		if !watch.ran {
			t.Fatal("Verify never looked for a migration: the records it read were not v2's")
		}
		if err != nil || rep.LocationMigration == 0 || rep.Records != n {
			t.Fatalf("VerifyAll across the migration: %+v %v; want no failure, and the migration noted", rep, err)
		}
		if v, err := store.Setting(ctx, resolver.LocationKeySetting); err != nil || v != "1" {
			t.Fatalf("the keys' version after v1's MigrateOver: %q %v", v, err)
		}
		if rep, err := v1.VerifyAll(ctx, nil); err != nil || rep.LocationMigration != 0 {
			t.Fatalf("VerifyAll after: %+v %v", rep, err)
		}
	})
}

// onSetting is a store that runs hook once, before the first read of the
// setting name after hook is set.
type onSetting struct {
	resolver.Store
	name string
	hook func()
	ran  bool
}

func (s *onSetting) Setting(ctx context.Context, name string) (string, error) {
	if name == s.name && s.hook != nil && !s.ran {
		s.ran = true
		s.hook()
	}
	return s.Store.Setting(ctx, name)
}

// TestLocationKeyMigrationMarkUnreadable: a store that fails to read the
// mark is a store failure, not a mark that no migration wrote: Migrate and
// Verify report the store's error, not tampering or a mark to replace.
func TestLocationKeyMigrationMarkUnreadable(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	v1 := resolver.New(store, resolver.Options{AdminToken: "admin-secret", CacheSize: -1})
	m := exampleMaintainer(t, v1)
	if _, _, err := v1.Put(ctx, m, "urn:example:a", locs("https://example.org/a/")); err != nil {
		t.Fatal(err)
	}
	broken := &failSetting{Store: store, name: resolver.LocationKeyMigrationSetting}
	for _, svc := range []*resolver.Service{
		resolver.New(broken, resolver.Options{AdminToken: "admin-secret", CacheSize: -1}),
		func() *resolver.Service {
			v2 := buildOf(broken, 2, version2)
			return v2
		}(),
	} {
		for name, run := range map[string]func() error{
			"Migrate":     func() error { _, err := svc.Migrate(ctx); return err },
			"MigrateOver": func() error { _, err := svc.MigrateOver(ctx); return err },
			"VerifyAll":   func() error { _, err := svc.VerifyAll(ctx, nil); return err },
		} {
			err := run()
			var ae *resolver.AccessError
			if resolver.KindOf(err) != resolver.KindUnavailable || errors.As(err, &ae) || strings.Contains(err.Error(), "VERSION:SEQ") || strings.Contains(err.Error(), "replaces it") {
				t.Errorf("%s with the mark unreadable: %v; want the store unavailable", name, err)
			}
		}
	}
	if v, err := store.Setting(ctx, resolver.LocationKeySetting); !errors.Is(err, resolver.ErrNotFound) {
		t.Errorf("the keys' version after: %q %v; want none written", v, err)
	}
}

// failSetting is a store that fails to read the setting name.
type failSetting struct {
	resolver.Store
	name string
}

func (s *failSetting) Setting(ctx context.Context, name string) (string, error) {
	if name == s.name {
		return "", fmt.Errorf("reading %s: %w", name, resolver.ErrUnavailable)
	}
	return s.Store.Setting(ctx, name)
}

// buildOf is a service over st that computes location keys as a build of
// version v's rules, key, would.
func buildOf(st resolver.Store, v int, key func(uri.URI) string) *resolver.Service {
	svc := resolver.New(st, resolver.Options{AdminToken: "admin-secret", CacheSize: -1})
	svc.PlayLocationRules(v, key)
	return svc
}

// putNumbered registers urn:example:n0 to n(count-1) through svc, each with
// one location: urlFormat with the name's number.
func putNumbered(t *testing.T, svc *resolver.Service, m resolver.Principal, count int, urlFormat string) {
	t.Helper()
	for i := range count {
		if _, _, err := svc.Put(context.Background(), m, fmt.Sprintf("urn:example:n%d", i), locs(fmt.Sprintf(urlFormat, i))); err != nil {
			t.Fatal(err)
		}
	}
}
