package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/sqlite"
	"github.com/urikit/urikit/urn"
)

const adminToken = "admin-secret-for-tests"

func openStore(t testing.TB, dir string, opts sqlite.Options) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// fixture is a service over a store with one authority owning urn:example:
// and urn:isbn:, and its maintainer.
type fixture struct {
	st    *sqlite.Store
	svc   *resolver.Service
	admin resolver.Principal
	m     resolver.Principal
	auth  resolver.Authority
}

func newFixture(t testing.TB, dir string) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{st: openStore(t, dir, sqlite.Options{})}
	f.svc = resolver.New(f.st, resolver.Options{AdminToken: adminToken})
	var err error
	if f.admin, err = f.svc.Authenticate(ctx, adminToken); err != nil {
		t.Fatal(err)
	}
	var tok string
	if f.auth, tok, err = f.svc.CreateAuthority(ctx, f.admin, "Tests", []string{"urn:example:", "urn:isbn:"}); err != nil {
		t.Fatal(err)
	}
	if f.m, err = f.svc.Authenticate(ctx, tok); err != nil {
		t.Fatal(err)
	}
	return f
}

func input(urls ...string) resolver.RecordInput {
	in := resolver.RecordInput{Metadata: []byte(`{"title": "a book"}`)}
	for _, u := range urls {
		in.Locations = append(in.Locations, resolver.Location{URL: u, Type: "text/html", Label: "the " + u})
	}
	return in
}

// TestServiceRules walks the Service's main rules over the SQLite store.
func TestServiceRules(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, t.TempDir())
	in := input("HTTPS://Example.org:443/book", "https://mirror.example/book")
	in.Aliases = []string{"urn:example:book-alias"}
	rec, created, err := f.svc.Put(ctx, f.m, "urn:isbn:9780395363416", in)
	if err != nil || !created {
		t.Fatalf("put: %v %v", created, err)
	}
	if _, created, err := f.svc.Put(ctx, f.m, "urn:ISBN:0-395-36341-1", in); err != nil || created {
		t.Fatalf("equivalent put: created=%v %v", created, err)
	}
	for _, name := range []string{"urn:ISBN:0-395-36341-1", "urn:example:book-alias", "URN:EXAMPLE:book-alias"} {
		got, err := f.svc.Lookup(ctx, urn.MustParse(name))
		if err != nil || got.ID != rec.ID || got.URN != "urn:isbn:9780395363416" {
			t.Fatalf("lookup %s: %+v %v", name, got, err)
		}
		if !reflect.DeepEqual(got.Locations, rec.Locations) || string(got.Metadata) != `{"title":"a book"}` {
			t.Fatalf("lookup %s: %+v", name, got)
		}
	}
	recs, _, err := f.svc.ByLocation(ctx, "https://example.org/book", true)
	if err != nil || len(recs) != 1 || recs[0].ID != rec.ID {
		t.Fatalf("by location: %v %v", recs, err)
	}
	// A location a Put drops leaves the location index; one it keeps stays.
	in.Locations = in.Locations[1:]
	if _, _, err := f.svc.Put(ctx, f.m, "urn:isbn:9780395363416", in); err != nil {
		t.Fatal(err)
	}
	if recs, _, err := f.svc.ByLocation(ctx, "https://example.org/book", true); err != nil || len(recs) != 0 {
		t.Fatalf("by a dropped location: %v %v", recs, err)
	}
	if recs, _, err := f.svc.ByLocation(ctx, "https://mirror.example/book", true); err != nil || len(recs) != 1 {
		t.Fatalf("by a kept location: %v %v", recs, err)
	}

	// Dropping the alias retires it: it resolves to nothing and stays reserved.
	in.Aliases = nil
	if _, _, err := f.svc.Put(ctx, f.m, "urn:isbn:9780395363416", in); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Lookup(ctx, urn.MustParse("urn:example:book-alias")); resolver.KindOf(err) != resolver.KindNotFound {
		t.Fatalf("retired alias: %v", err)
	}
	_, _, err = f.svc.Put(ctx, f.m, "urn:example:book-alias", input("https://other.example/"))
	var e *resolver.Error
	if !errors.As(err, &e) || e.Kind != resolver.KindConflict || e.Record != "urn:isbn:9780395363416" {
		t.Fatalf("reuse of a retired alias: %v", err)
	}

	if _, err := f.svc.Withdraw(ctx, f.m, "urn:isbn:9780395363416", "gone", "urn:isbn:9780131103627"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.Put(ctx, f.m, "urn:isbn:978-0-395-36341-6", in); resolver.KindOf(err) != resolver.KindConflict {
		t.Fatalf("reuse of a withdrawn name: %v", err)
	}
	_, hist, err := f.svc.History(ctx, urn.MustParse("urn:isbn:9780395363416"), 0, 100)
	if err != nil || len(hist) != 4 {
		t.Fatalf("history: %d %v", len(hist), err)
	}
	old, _, err := f.svc.LookupAsOf(ctx, urn.MustParse("urn:isbn:9780395363416"), hist[0].Time)
	if err != nil || old.Status != resolver.Active || len(old.Aliases) != 1 {
		t.Fatalf("as of: %+v %v", old, err)
	}
	if n, err := f.svc.Verify(ctx, nil); err != nil || n != 6 {
		t.Fatalf("verify: %d %v", n, err)
	}

	// An edit made directly in the database breaks the chain.
	db := rawDB(t, f.st)
	if _, err := db.Exec(`UPDATE history SET actor = 'someone else' WHERE seq = 4`); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.Verify(ctx, nil)
	var ce *resolver.ChainError
	if !errors.As(err, &ce) || ce.Seq != 4 {
		t.Fatalf("tampered history verified: %v", err)
	}
}

// rawDB is a plain connection to the store's file, as a person with the
// sqlite3 shell would have.
func rawDB(t testing.TB, st *sqlite.Store) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+st.Path()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestReopen: everything written is there after Close and Open.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	f := newFixture(t, dir)
	rec, _, err := f.svc.Put(ctx, f.m, "urn:example:a", input("https://example.org/a"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.AddToken(ctx, f.admin, f.auth.ID, "second"); err != nil {
		t.Fatal(err)
	}
	rule, err := f.svc.AddRule(ctx, f.admin, "urn:nbn:de:", "https://resolver.example/")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.Update(ctx, func(tx resolver.Tx) error { return tx.SetSetting(ctx, "k", "v") }); err != nil {
		t.Fatal(err)
	}
	before := dump(t, f.st)
	if err := f.st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.Record(ctx, rec.ID); !errors.Is(err, resolver.ErrUnavailable) {
		t.Fatalf("read after close: %v", err)
	}

	st := openStore(t, dir, sqlite.Options{})
	if m := st.Migration(); m.From != sqlite.Latest || m.To != sqlite.Latest || len(m.Applied) != 0 {
		t.Fatalf("reopen migrated: %+v", m)
	}
	after := dump(t, st)
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("after reopen:\n%#v\nbefore:\n%#v", after, before)
	}
	svc := resolver.New(st, resolver.Options{AdminToken: adminToken})
	if n, err := svc.Verify(ctx, nil); err != nil || n != int64(len(before.log)) {
		t.Fatalf("verify after reopen: %d %v", n, err)
	}
	if r, ok, err := svc.Rule(ctx, urn.MustParse("urn:nbn:de:1-2")); err != nil || !ok || r.ID != rule.ID {
		t.Fatalf("rule after reopen: %+v %v %v", r, ok, err)
	}
}

type snapshot struct {
	records []resolver.Record
	keys    [][]resolver.Key
	auths   []resolver.Authority
	tokens  [][]resolver.Token
	rules   []resolver.Rule
	log     []resolver.Entry
	setting string
}

func dump(t testing.TB, st resolver.Reader) snapshot {
	t.Helper()
	ctx := context.Background()
	var s snapshot
	var err error
	if s.records, err = st.Records(ctx, 0, 1<<20); err != nil {
		t.Fatal(err)
	}
	for _, r := range s.records {
		ks, err := st.Keys(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		s.keys = append(s.keys, ks)
	}
	if s.auths, err = st.Authorities(ctx); err != nil {
		t.Fatal(err)
	}
	for _, a := range s.auths {
		ts, err := st.Tokens(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		s.tokens = append(s.tokens, ts)
	}
	if s.rules, err = st.Rules(ctx); err != nil {
		t.Fatal(err)
	}
	if s.log, err = st.Log(ctx, 0, 1<<20); err != nil {
		t.Fatal(err)
	}
	s.setting, _ = st.Setting(ctx, "k")
	return s
}

func TestMigrations(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := openStore(t, dir, sqlite.Options{})
	m := st.Migration()
	if m.From != 0 || m.To != sqlite.Latest || len(m.Applied) != sqlite.Latest {
		t.Fatalf("fresh open: %+v", m)
	}
	for range 2 {
		m, err := st.Migrate(ctx)
		if err != nil || m.From != sqlite.Latest || m.To != sqlite.Latest || len(m.Applied) != 0 {
			t.Fatalf("migrate again: %+v %v", m, err)
		}
	}
	if v, err := st.SchemaVersion(ctx); err != nil || v != sqlite.Latest {
		t.Fatalf("schema version %d %v", v, err)
	}
	db := rawDB(t, st)
	var pageSize int
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil || pageSize != 8192 {
		t.Fatalf("page size of a new file: %d %v", pageSize, err)
	}
	var rows int
	if err := db.QueryRow(`SELECT count(*) FROM schema_version`).Scan(&rows); err != nil || rows != sqlite.Latest {
		t.Fatalf("schema_version rows: %d %v", rows, err)
	}
	st.Close()

	// A database a newer build migrated further is refused, untouched.
	if _, err := db.Exec(`INSERT INTO schema_version (version, name, applied) VALUES (?, 'from the future', 0)`, sqlite.Latest+1); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.Open(ctx, dir, sqlite.Options{}); !errors.Is(err, sqlite.ErrNewerSchema) {
		t.Fatalf("newer schema: %v", err)
	}

	// Another program's database is refused, and left as it was.
	other := t.TempDir()
	odb, err := sql.Open("sqlite", filepath.Join(other, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer odb.Close()
	if _, err := odb.Exec(`CREATE TABLE accounts (id INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.Open(ctx, other, sqlite.Options{}); err == nil {
		t.Fatal("opened another program's database")
	}
	var n int
	if err := odb.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'records'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the foreign database was changed: %d %v", n, err)
	}
}

// TestConcurrentMigration: several processes' worth of Opens on one new
// file at once end with one schema, migrated once.
func TestConcurrentMigration(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	var mu sync.Mutex
	applied := 0
	for range 4 {
		wg.Go(func() {
			st, err := sqlite.Open(context.Background(), dir, sqlite.Options{})
			if err != nil {
				t.Error(err)
				return
			}
			defer st.Close()
			mu.Lock()
			applied += len(st.Migration().Applied)
			mu.Unlock()
		})
	}
	wg.Wait()
	if applied != sqlite.Latest {
		t.Fatalf("%d migrations applied, want %d", applied, sqlite.Latest)
	}
}

// TestTwoHandles: the CLI beside a server. Two stores on one file see each
// other's writes at once, equivalent names racing through both give one
// record, and Changed tells each about the other's writes.
func TestTwoHandles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := newFixture(t, dir)
	b := openStore(t, dir, sqlite.Options{})
	bsvc := resolver.New(b, resolver.Options{AdminToken: adminToken})
	if changed, err := b.Changed(ctx); err != nil || changed {
		t.Fatalf("b changed before any write: %v %v", changed, err)
	}

	rec, _, err := a.svc.Put(ctx, a.m, "urn:example:seen", input("https://example.org/seen"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := bsvc.Lookup(ctx, urn.MustParse("urn:example:seen"))
	if err != nil || got.ID != rec.ID {
		t.Fatalf("b does not see a's write: %+v %v", got, err)
	}
	if changed, err := b.Changed(ctx); err != nil || !changed {
		t.Fatalf("b.Changed after a's write: %v %v", changed, err)
	}
	if changed, err := b.Changed(ctx); err != nil || changed {
		t.Fatalf("b.Changed twice: %v %v", changed, err)
	}
	if changed, err := a.st.Changed(ctx); err != nil || changed {
		t.Fatalf("a.Changed after its own write: %v %v", changed, err)
	}

	// Equivalent spellings of one name, written at once through both.
	spellings := []string{"urn:isbn:9780131103627", "urn:ISBN:0-13-110362-8", "urn:isbn:978-0-13-110362-7", "URN:isbn:0131103628"}
	var wg sync.WaitGroup
	results := make([]resolver.Record, 2*len(spellings))
	errs := make([]error, len(results))
	for i := range results {
		svc := a.svc
		if i%2 == 1 {
			svc = bsvc
		}
		wg.Go(func() {
			results[i], _, errs[i] = svc.Put(ctx, resolver.Operator, spellings[i%len(spellings)], input(fmt.Sprintf("https://example.org/%d", i)))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
		if results[i].ID != results[0].ID {
			t.Fatalf("two records for one name: %d and %d", results[i].ID, results[0].ID)
		}
	}
	recs, err := b.Records(ctx, 0, 100)
	if err != nil || len(recs) != 2 {
		t.Fatalf("records: %d %v", len(recs), err)
	}
	if n, err := bsvc.Verify(ctx, nil); err != nil || n < 3 {
		t.Fatalf("verify: %d %v", n, err)
	}
}

// TestExclusive: a second server on the same directory is told so at once;
// the lock goes with the first one's Close.
func TestExclusive(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	first, err := sqlite.Open(ctx, dir, sqlite.Options{Exclusive: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sqlite.Open(ctx, dir, sqlite.Options{Exclusive: true})
	if !errors.Is(err, sqlite.ErrLocked) {
		t.Fatalf("second server: %v", err)
	}
	t.Logf("second server: %v", err)
	// The CLI's commands do not take the lock.
	cli := openStore(t, dir, sqlite.Options{})
	cli.Close()
	first.Close()
	again, err := sqlite.Open(ctx, dir, sqlite.Options{Exclusive: true})
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	again.Close()
}

// TestBusy: a writer that another process keeps out past the busy timeout
// fails with ErrUnavailable (503), in bounded time, and works once the lock
// is gone; readers are not held up at all (WAL).
func TestBusy(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := openStore(t, dir, sqlite.Options{BusyTimeout: 200 * time.Millisecond})
	svc := resolver.New(st, resolver.Options{AdminToken: adminToken})
	admin, _ := svc.Authenticate(ctx, adminToken)
	if _, _, err := svc.CreateAuthority(ctx, admin, "A", []string{"urn:example:"}); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, st)
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _, err = svc.Put(ctx, resolver.Operator, "urn:example:x", input("https://example.org/x"))
	waited := time.Since(start)
	if resolver.KindOf(err) != resolver.KindUnavailable {
		t.Fatalf("write while locked: %v", err)
	}
	if waited < 150*time.Millisecond || waited > 5*time.Second {
		t.Fatalf("waited %v for a 200ms busy timeout", waited)
	}
	t.Logf("write while locked, after %v: %v", waited.Round(time.Millisecond), err)
	if _, err := st.Authorities(ctx); err != nil {
		t.Fatalf("read while locked: %v", err)
	}
	if _, err := conn.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Put(ctx, resolver.Operator, "urn:example:x", input("https://example.org/x")); err != nil {
		t.Fatalf("write after the lock: %v", err)
	}

	// A context that ends while Update waits for the lock ends the wait.
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	st2 := openStore(t, dir, sqlite.Options{BusyTimeout: time.Minute})
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	err = st2.Update(cctx, func(resolver.Tx) error { return nil })
	if !errors.Is(err, resolver.ErrUnavailable) || time.Since(start) > 10*time.Second {
		t.Fatalf("update with a deadline while locked: %v after %v", err, time.Since(start))
	}
	conn.ExecContext(ctx, `ROLLBACK`)
}

// TestTxContract: the parts of the Store contract the Service leans on.
func TestTxContract(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, t.TempDir(), sqlite.Options{})
	var auth resolver.Authority
	var r1, r2 resolver.Record
	now := time.Now().UTC().Truncate(time.Microsecond)
	err := st.Update(ctx, func(tx resolver.Tx) error {
		auth = resolver.Authority{Name: "A", Prefixes: []string{"urn:example:"}, Created: now, Updated: now}
		if err := tx.InsertAuthority(ctx, &auth); err != nil {
			return err
		}
		r1 = resolver.Record{URN: "urn:example:1", Key: "urn:example:1", Status: resolver.Active, Redirect: 303, AuthorityID: auth.ID, Created: now, Updated: now,
			Locations: []resolver.Location{{URL: "https://e.org/x", Key: "https://e.org/x"}, {URL: "https://E.org/x", Key: "https://e.org/x"}}}
		r2 = r1
		r2.URN, r2.Key = "urn:example:2", "urn:example:2"
		for _, r := range []*resolver.Record{&r1, &r2} {
			if err := tx.InsertRecord(ctx, r); err != nil {
				return err
			}
			if err := tx.PutKey(ctx, resolver.Key{Key: r.Key, Spelling: r.URN, RecordID: r.ID, Role: resolver.RoleName, Version: urn.KeyVersion}); err != nil {
				return err
			}
		}
		// Another record's key: taken, and nothing changes.
		err := tx.PutKey(ctx, resolver.Key{Key: r1.Key, Spelling: "x", RecordID: r2.ID, Role: resolver.RoleAlias, Version: urn.KeyVersion})
		if !errors.Is(err, resolver.ErrKeyTaken) {
			return fmt.Errorf("PutKey of another record's key: %v", err)
		}
		got, role, err := tx.RecordByKey(ctx, r1.Key)
		if err != nil || got.ID != r1.ID || role != resolver.RoleName {
			return fmt.Errorf("after a refused PutKey: %+v %s %v", got, role, err)
		}
		// The same record's key: updated in place.
		if err := tx.PutKey(ctx, resolver.Key{Key: r1.Key, Spelling: "URN:example:1", RecordID: r1.ID, Role: resolver.RoleName, Version: 0}); err != nil {
			return err
		}
		if err := tx.UpdateRecord(ctx, resolver.Record{ID: 999}); !errors.Is(err, resolver.ErrNotFound) {
			return fmt.Errorf("UpdateRecord of no record: %v", err)
		}
		r := resolver.Rule{Prefix: "urn:nbn:", Target: "https://x.example/", Created: now}
		if err := tx.InsertRule(ctx, &r); err != nil {
			return err
		}
		r.ID = 0
		if err := tx.InsertRule(ctx, &r); !errors.Is(err, resolver.ErrKeyTaken) {
			return fmt.Errorf("second rule for a prefix: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	ks, err := st.Keys(ctx, r1.ID)
	if err != nil || len(ks) != 1 || ks[0].Spelling != "URN:example:1" || ks[0].Version != 0 {
		t.Fatalf("keys: %+v %v", ks, err)
	}
	stale, err := st.StaleKeys(ctx, urn.KeyVersion, "", 10)
	if err != nil || len(stale) != 1 || stale[0].Key != r1.Key {
		t.Fatalf("stale keys: %+v %v", stale, err)
	}
	recs, err := st.RecordsByLocation(ctx, "https://e.org/x", 0, 1000, true)
	if err != nil || len(recs) != 2 || recs[0].ID != r1.ID || recs[1].ID != r2.ID {
		t.Fatalf("by location: %+v %v", recs, err)
	}
	dups, err := st.DuplicateLocations(ctx, "", 10, false)
	if err != nil || !reflect.DeepEqual(dups, []resolver.Duplicate{{Key: "https://e.org/x", URNs: []string{"urn:example:1", "urn:example:2"},
		Statuses: []resolver.Status{resolver.Active, resolver.Active}, LastID: r2.ID}}) {
		t.Fatalf("duplicates: %+v %v", dups, err)
	}
	got, err := st.Record(ctx, r1.ID)
	r1.Aliases = nil
	if err != nil || !reflect.DeepEqual(got, r1) {
		t.Fatalf("record:\n got %+v\nwant %+v (%v)", got, r1, err)
	}

	// A failed Update leaves nothing behind.
	boom := errors.New("boom")
	err = st.Update(ctx, func(tx resolver.Tx) error {
		r := resolver.Record{URN: "urn:example:3", Key: "urn:example:3", Status: resolver.Active, AuthorityID: auth.ID}
		if err := tx.InsertRecord(ctx, &r); err != nil {
			return err
		}
		if err := tx.Append(ctx, &resolver.Entry{Action: resolver.ActionNameCreate, Subject: r.URN, RecordID: r.ID, Data: []byte(`{}`)}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("update: %v", err)
	}
	if recs, _ := st.Records(ctx, 0, 10); len(recs) != 2 {
		t.Fatalf("a failed update left %d records", len(recs))
	}
	if h, _ := st.Head(ctx); h.Seq != 0 {
		t.Fatalf("a failed update left history entry %d", h.Seq)
	}

	// A Tx kept past its Update is dead.
	var kept resolver.Tx
	st.Update(ctx, func(tx resolver.Tx) error { kept = tx; return nil })
	if _, err := kept.Record(ctx, r1.ID); err == nil {
		t.Fatal("a Tx worked after its Update returned")
	}
	if err := kept.SetSetting(ctx, "a", "b"); err == nil {
		t.Fatal("a Tx wrote after its Update returned")
	}

	// A panic in fn rolls back and leaves the store usable.
	func() {
		defer func() { recover() }()
		st.Update(ctx, func(tx resolver.Tx) error {
			tx.SetSetting(ctx, "panic", "yes")
			panic("in fn")
		})
	}()
	if _, err := st.Setting(ctx, "panic"); !errors.Is(err, resolver.ErrNotFound) {
		t.Fatalf("setting written by a panicking Update: %v", err)
	}
	if err := st.Update(ctx, func(tx resolver.Tx) error { return tx.SetSetting(ctx, "after", "panic") }); err != nil {
		t.Fatalf("update after a panic: %v", err)
	}
}

// TestHistoryBytes: Data is kept byte for byte, whatever it holds, and
// times to the microsecond; the chain verifies.
func TestHistoryBytes(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, t.TempDir(), sqlite.Options{})
	datas := [][]byte{nil, {}, []byte(`{"b": 1,  "a":2}`), []byte("not json \x00\xff"), []byte(`  {"x":"\u00e9"}  `)}
	base := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.FixedZone("X", 3600))
	var want []resolver.Entry
	err := st.Update(ctx, func(tx resolver.Tx) error {
		for i, d := range datas {
			e := resolver.Entry{Time: base.Add(time.Duration(i) * time.Nanosecond), Action: resolver.ActionRuleAdd, Subject: "rule:1", Actor: "admin", Data: d}
			if err := tx.Append(ctx, &e); err != nil {
				return err
			}
			want = append(want, e)
		}
		h, err := tx.Head(ctx)
		if err != nil || h.Seq != int64(len(datas)) {
			return fmt.Errorf("head in tx: %+v %v", h, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Log(ctx, 0, 100)
	if err != nil || len(got) != len(want) {
		t.Fatalf("log: %d %v", len(got), err)
	}
	var v resolver.Verifier
	for i := range got {
		if string(got[i].Data) != string(want[i].Data) || !got[i].Time.Equal(want[i].Time) || got[i].Time.Nanosecond()%1000 != 0 {
			t.Errorf("entry %d: %q at %v, want %q at %v", i+1, got[i].Data, got[i].Time, want[i].Data, want[i].Time)
		}
		if err := v.Next(got[i]); err != nil {
			t.Fatal(err)
		}
	}
	if page, _ := st.Log(ctx, 2, 2); len(page) != 2 || page[0].Seq != 3 {
		t.Fatalf("log page: %+v", page)
	}
}

// TestStaleKeysPaging: keys of several old versions come out merged in key
// order, page by page, and none twice.
func TestStaleKeysPaging(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, t.TempDir(), sqlite.Options{})
	var want []string
	err := st.Update(ctx, func(tx resolver.Tx) error {
		a := resolver.Authority{Name: "A"}
		if err := tx.InsertAuthority(ctx, &a); err != nil {
			return err
		}
		r := resolver.Record{URN: "urn:example:r", Key: "urn:example:r", Status: resolver.Active, AuthorityID: a.ID}
		if err := tx.InsertRecord(ctx, &r); err != nil {
			return err
		}
		for i := range 57 {
			k := fmt.Sprintf("urn:example:%03d", (i*37)%57)
			v := []int{0, -3, urn.KeyVersion, 0, urn.KeyVersion + 1}[i%5]
			if v < urn.KeyVersion {
				want = append(want, k)
			}
			if err := tx.PutKey(ctx, resolver.Key{Key: k, Spelling: k, RecordID: r.ID, Role: resolver.RoleAlias, Version: v}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	// This build's version reads the partial index of stale keys; any other
	// version, every key in order.
	if got := staleKeys(t, st, urn.KeyVersion); !slices.Equal(got, want) {
		t.Fatalf("stale keys\n got %v\nwant %v", got, want)
	}
	if got := staleKeys(t, st, urn.KeyVersion+2); len(got) != 57 || !slices.IsSorted(got) {
		t.Fatalf("keys below version %d: %v", urn.KeyVersion+2, got)
	}
}

func staleKeys(t *testing.T, st *sqlite.Store, version int) []string {
	t.Helper()
	var got []string
	after := ""
	for {
		ks, err := st.StaleKeys(context.Background(), version, after, 4)
		if err != nil {
			t.Fatal(err)
		}
		if len(ks) == 0 {
			return got
		}
		for _, k := range ks {
			got = append(got, k.Key)
		}
		after = ks[len(ks)-1].Key
	}
}

func TestDirectoryMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "with ?#% in it")
	st := openStore(t, dir, sqlite.Options{})
	for _, p := range []string{dir, st.Path()} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v", p, fi.Mode())
		}
	}
	if filepath.Dir(st.Path()) != dir {
		t.Fatalf("database at %s, not in %s", st.Path(), dir)
	}
}

func dirOf(st *sqlite.Store) string { return filepath.Dir(st.Path()) }

// TestWatch: a server's Watch hears of another process's write within an
// interval or so, and not of its own writes.
func TestWatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	server := newFixture(t, dir)
	heard := make(chan struct{}, 16)
	go server.st.Watch(ctx, 5*time.Millisecond, func() { heard <- struct{}{} })

	if _, _, err := server.svc.Put(ctx, server.m, "urn:example:own", input("https://example.org/own")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-heard:
		t.Fatal("Watch reported the server's own write")
	case <-time.After(100 * time.Millisecond):
	}

	// A lookup the server caches, then a write by "the CLI" that changes it.
	if _, err := server.svc.Lookup(ctx, urn.MustParse("urn:example:cli")); resolver.KindOf(err) != resolver.KindNotFound {
		t.Fatalf("before the CLI's write: %v", err)
	}
	cli := openStore(t, dir, sqlite.Options{})
	clisvc := resolver.New(cli, resolver.Options{})
	if _, _, err := clisvc.Put(ctx, resolver.Operator, "urn:example:cli", input("https://example.org/cli")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-heard:
		server.svc.Invalidate()
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not report another process's write")
	}
	if _, err := server.svc.Lookup(ctx, urn.MustParse("urn:example:cli")); err != nil {
		t.Fatalf("after Watch: %v", err)
	}
}

// TestCheckpointer: the checkpointer copies committed pages into the
// database file by itself, long before the writer's own automatic
// checkpoint would: the file, read without its WAL, soon holds a record
// just written.
func TestCheckpointer(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, t.TempDir())
	if _, _, err := f.svc.Put(ctx, f.m, "urn:example:checkpointed", input("https://example.org/c")); err != nil {
		t.Fatal(err)
	}
	// immutable=1: SQLite reads the database file as it is, without the
	// WAL and without locks.
	db, err := sql.Open("sqlite", "file:"+f.st.Path()+"?immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		// A fresh connection each time: an immutable one caches the file.
		db.SetMaxIdleConns(0)
		err := db.QueryRow(`SELECT count(*) FROM records WHERE urn = 'urn:example:checkpointed'`).Scan(&n)
		if err == nil && n == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the database file does not hold the record 10 s after its commit: %d %v", n, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestNameKeys: a record's keys of role name are all found by Keys and
// RecordByKey, whether or not they are the key the record names
// (records.key), also as the record's key changes, the way urikit migrate
// re-keys a record (schema 2 stores and indexes the two kinds apart).
func TestNameKeys(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, t.TempDir(), sqlite.Options{})
	now := time.UnixMicro(1_700_000_000_000_000).UTC()
	rec := resolver.Record{URN: "urn:example:a", Key: "urn:example:a", Status: resolver.Active, Redirect: 303,
		Locations: []resolver.Location{{URL: "https://example.org/a", Key: "https://example.org/a"}}, Metadata: []byte(`{}`),
		AuthorityID: 1, Created: now, Updated: now}
	key := func(k string, role resolver.Role) resolver.Key {
		return resolver.Key{Key: k, Spelling: strings.ToUpper(k), RecordID: rec.ID, Role: role, Version: 1}
	}
	update := func(fn func(tx resolver.Tx) error) {
		t.Helper()
		if err := st.Update(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	want := func(keys ...resolver.Key) {
		t.Helper()
		got, err := st.Keys(ctx, rec.ID)
		if err != nil || !reflect.DeepEqual(got, keys) {
			t.Fatalf("keys %+v %v, want %+v", got, err, keys)
		}
		for _, k := range keys {
			r, role, err := st.RecordByKey(ctx, k.Key)
			if err != nil || r.ID != rec.ID || role != k.Role {
				t.Fatalf("RecordByKey(%s) = %d %s %v", k.Key, r.ID, role, err)
			}
		}
	}
	update(func(tx resolver.Tx) error {
		if err := tx.InsertRecord(ctx, &rec); err != nil {
			return err
		}
		for _, k := range []resolver.Key{key("urn:example:a", resolver.RoleName), key("urn:example:z", resolver.RoleAlias), key("urn:example:b", resolver.RoleName)} {
			if err := tx.PutKey(ctx, k); err != nil {
				return err
			}
		}
		return nil
	})
	want(key("urn:example:a", resolver.RoleName), key("urn:example:b", resolver.RoleName), key("urn:example:z", resolver.RoleAlias))
	// The record's key moves to b, as when urikit migrate re-keys it.
	update(func(tx resolver.Tx) error {
		r := rec
		r.Key = "urn:example:b"
		return tx.UpdateRecord(ctx, r)
	})
	want(key("urn:example:a", resolver.RoleName), key("urn:example:b", resolver.RoleName), key("urn:example:z", resolver.RoleAlias))
	update(func(tx resolver.Tx) error { return tx.DeleteKey(ctx, "urn:example:a") })
	want(key("urn:example:b", resolver.RoleName), key("urn:example:z", resolver.RoleAlias))
	// Its own key turned alias, and name again; another name key added.
	update(func(tx resolver.Tx) error { return tx.PutKey(ctx, key("urn:example:b", resolver.RoleAlias)) })
	want(key("urn:example:b", resolver.RoleAlias), key("urn:example:z", resolver.RoleAlias))
	update(func(tx resolver.Tx) error {
		if err := tx.PutKey(ctx, key("urn:example:b", resolver.RoleName)); err != nil {
			return err
		}
		return tx.PutKey(ctx, key("urn:example:c", resolver.RoleName))
	})
	want(key("urn:example:b", resolver.RoleName), key("urn:example:c", resolver.RoleName), key("urn:example:z", resolver.RoleAlias))
	// Back to a key of the URN's own spelling.
	update(func(tx resolver.Tx) error {
		r := rec
		r.Key = "urn:example:c"
		return tx.UpdateRecord(ctx, r)
	})
	update(func(tx resolver.Tx) error { return tx.DeleteKey(ctx, "urn:example:b") })
	want(key("urn:example:c", resolver.RoleName), key("urn:example:z", resolver.RoleAlias))
	if got, err := st.Record(ctx, rec.ID); err != nil || got.Key != "urn:example:c" {
		t.Fatalf("record: %+v %v", got, err)
	}
	// Stale keys of either kind are listed.
	if ks, err := st.StaleKeys(ctx, 2, "", 10); err != nil || len(ks) != 2 || ks[0].Role != resolver.RoleName {
		t.Fatalf("stale keys: %+v %v", ks, err)
	}
}
