package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/urn"
)

// exec runs sql on conn, or fails the test.
func exec(t *testing.T, conn *pgx.Conn, sql string) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// TestSchema4ReadsGoOn: schema 4 builds its indexes under a SHARE lock,
// which lets reads of the records go on. A write transaction left open
// (holding ROW EXCLUSIVE) makes the migration wait for its lock, and
// while it waits, the lock it asks for is seen in pg_locks; a reader on
// another connection, queued behind it, must get its rows at once (within
// a lock_timeout of its own). And a long reader (an export, holding
// ACCESS SHARE from before the migration began until after it ended) must
// not stop any statement of the migration: one that asked for ACCESS
// EXCLUSIVE (an ALTER TABLE, as schema 3's) would wait for it and fail at
// the lock timeout. The migration's statements are not cut at the pool's
// statement_timeout (Options.Timeout): the writer holds it up longer,
// as an index build over a large table takes longer.
func TestSchema4ReadsGoOn(t *testing.T) {
	ctx := context.Background()
	dsn := cluster.NewDB(t)
	if _, err := postgres.MigrateTo(ctx, dsn, 3); err != nil {
		t.Fatal(err)
	}
	postgres.SetMigrationLocks(t, 5*time.Second, 1, 0, nil)
	export := connect(t, dsn)
	exec(t, export, `BEGIN`)
	exec(t, export, `SELECT count(*) FROM records`) // ACCESS SHARE until COMMIT
	writer := connect(t, dsn)
	exec(t, writer, `BEGIN`)
	exec(t, writer, `UPDATE records SET reason = reason WHERE false`) // ROW EXCLUSIVE until COMMIT
	done := make(chan error, 1)
	go func() {
		_, err := postgres.MigrateToWithin(ctx, dsn, postgres.SchemaVersion, 200*time.Millisecond)
		done <- err
	}()
	watcher := connect(t, dsn)
	var mode string
	for deadline := time.Now().Add(30 * time.Second); mode == ""; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the migration never waited for a lock on records")
		}
		err := watcher.QueryRow(ctx, `SELECT mode FROM pg_locks WHERE relation = 'records'::regclass AND NOT granted`).Scan(&mode)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			t.Fatal(err)
		}
	}
	if mode != "ShareLock" {
		t.Errorf("schema 4 waits for a %s on records, want ShareLock (reads go on)", mode)
	}
	reader := connect(t, dsn)
	exec(t, reader, `SET lock_timeout = '500ms'`)
	var n int
	if err := reader.QueryRow(ctx, `SELECT count(*) FROM records`).Scan(&n); err != nil {
		t.Errorf("a read of records while schema 4 waits for its lock: %v", err)
	}
	select {
	case err := <-done:
		t.Fatalf("the migration ended while a writer held records: %v", err)
	default:
	}
	time.Sleep(time.Second) // 5 times the pool's statement_timeout
	exec(t, writer, `COMMIT`)
	if err := <-done; err != nil {
		t.Fatalf("the migration after the writer committed, while the export reads: %v", err)
	}
	exec(t, export, `COMMIT`)
	var indexes int
	if err := watcher.QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE tablename = 'records'
		AND indexname IN ('records_successor_key', 'records_successor_stale')`).Scan(&indexes); err != nil || indexes != 2 {
		t.Fatalf("indexes after schema 4: %d %v", indexes, err)
	}
}

// TestSchema3LockTimeout: a long transaction that reads the records (an
// export) holds an ACCESS SHARE lock that schema 3's ALTER TABLE must
// wait for. The migration waits for it at most the lock timeout at each
// of its tries, so that lookups queued behind its request are not held
// longer; it fails with an error that names the likely cause when the
// reader outlasts its tries, and succeeds when it has ended by the next.
func TestSchema3LockTimeout(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		release int // the try after which the reader ends; 0: never
	}{{"ReaderOutlastsTries", 0}, {"ReaderEnds", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			dsn := cluster.NewDB(t)
			if _, err := postgres.MigrateTo(ctx, dsn, 2); err != nil {
				t.Fatal(err)
			}
			export := connect(t, dsn)
			exec(t, export, `BEGIN`)
			exec(t, export, `SELECT count(*) FROM records`) // ACCESS SHARE until COMMIT
			var tries []int
			postgres.SetMigrationLocks(t, 100*time.Millisecond, 3, 10*time.Millisecond, func(v, attempt int) {
				tries = append(tries, v)
				if attempt == tc.release {
					exec(t, export, `COMMIT`)
				}
			})
			start := time.Now()
			from, err := postgres.MigrateTo(ctx, dsn, postgres.SchemaVersion)
			took := time.Since(start)
			if tc.release == 0 {
				if err == nil || !errors.Is(err, resolver.ErrUnavailable) || !strings.Contains(err.Error(), "schema migration 3") ||
					!strings.Contains(err.Error(), "long one that reads the records") || !strings.Contains(err.Error(), "55P03") {
					t.Fatalf("MigrateTo with a reader holding records: %v, want an error naming migration 3 and a long transaction", err)
				}
				if len(tries) != 3 || took > 10*time.Second {
					t.Fatalf("%d tries (of migrations %v) in %v, want 3 of 100 ms", len(tries), tries, took)
				}
				exec(t, export, `COMMIT`)
				if _, err := postgres.MigrateTo(ctx, dsn, postgres.SchemaVersion); err != nil {
					t.Fatalf("MigrateTo once the reader ended: %v", err)
				}
				return
			}
			if err != nil || from != 2 || len(tries) != 1 || tries[0] != 3 {
				t.Fatalf("MigrateTo: from %d, %v after tries %v; want it to succeed at the second try of migration 3", from, err, tries)
			}
			st := open(t, dsn, postgres.Options{NoMigrate: true})
			if _, err := st.StaleSuccessors(ctx, urn.KeyVersion, 0, 10); err != nil {
				t.Fatalf("the store after the migration: %v", err)
			}
		})
	}
}

// TestMigrateComputesSuccessorKeysSetNull: a withdrawn record whose
// successor columns were set NULL with SQL (as a build before schema 3
// leaves a record it withdraws) is a state error for Verify, and the
// Service's Migrate computes its key again, after which Verify passes.
func TestMigrateComputesSuccessorKeysSetNull(t *testing.T) {
	ctx := context.Background()
	dsn := cluster.NewDB(t)
	st := open(t, dsn, postgres.Options{})
	svc, m := service(t, st)
	for _, name := range []string{"urn:example:a", "urn:example:b"} {
		if _, _, err := svc.Put(ctx, m, name, recordInput("https://example.org/"+name[12:])); err != nil {
			t.Fatal(err)
		}
	}
	b, err := svc.Withdraw(ctx, m, "urn:example:b", "replaced", "urn:example:a")
	if err != nil {
		t.Fatal(err)
	}
	editWithSQL(t, dsn, `UPDATE records SET successor_key = NULL, successor_version = NULL WHERE urn = 'urn:example:b'`)
	svc = resolver.New(st, resolver.Options{AdminToken: "admin-token-for-tests"}) // no cached record
	var se *resolver.StateError
	if _, err := svc.Verify(ctx, nil); !errors.As(err, &se) || se.RecordID != b.ID || !strings.Contains(se.Reason, "no successor key") {
		t.Fatalf("Verify: %v, want a state error of record %d (no successor key)", err, b.ID)
	}
	if rep, err := svc.Migrate(ctx); err != nil || rep.SuccessorsChecked != 1 || rep.SuccessorsRekeyed != 1 {
		t.Fatalf("Migrate: %+v %v", rep, err)
	}
	if _, err := svc.Verify(ctx, nil); err != nil {
		t.Fatalf("Verify after Migrate: %v", err)
	}
	a, err := svc.Lookup(ctx, urn.MustParse("urn:example:a"))
	if err != nil {
		t.Fatal(err)
	}
	if preds, _, err := svc.Predecessors(ctx, a); err != nil || len(preds) != 1 || preds[0] != "urn:example:b" {
		t.Fatalf("predecessors after Migrate: %q %v", preds, err)
	}
}

// TestMigrationWaitsItsTurn: a process that finds another migrating waits
// for the advisory lock as long as that takes, not for the pool's
// statement_timeout: an instance started while another builds schema 4's
// indexes on a large table starts after it, rather than failing.
func TestMigrationWaitsItsTurn(t *testing.T) {
	ctx := context.Background()
	dsn := cluster.NewDB(t)
	holder, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	if _, err := holder.Exec(ctx, "SELECT pg_advisory_lock($1)", postgres.MigrationLock); err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(time.Second) // 5 times the pool's statement_timeout
		holder.Exec(ctx, "SELECT pg_advisory_unlock($1)", postgres.MigrationLock)
		close(released)
	}()
	if _, err := postgres.MigrateToWithin(ctx, dsn, postgres.SchemaVersion, 200*time.Millisecond); err != nil {
		t.Fatalf("a migration that waited for another's lock: %v", err)
	}
	select {
	case <-released:
	default:
		t.Fatal("the migration ran while another process held the lock")
	}
}
