package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
)

// The tests of transactions that store a batch's records before they take
// their turn among the writers (resolver.TurnTaker): what an import does
// to write two batches at once.

// holdingStore holds the next Update it runs open, its changes made and
// the head row locked, until released: another writer that takes its turn
// meanwhile waits, and what it read before its turn goes stale.
type holdingStore struct {
	*postgres.Store
	mu      sync.Mutex
	held    chan struct{} // closed once the held transaction has made its changes
	release chan struct{}
}

func (h *holdingStore) hold() (held, release chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held, h.release = make(chan struct{}), make(chan struct{})
	return h.held, h.release
}

func (h *holdingStore) Update(ctx context.Context, fn func(resolver.Tx) error) error {
	h.mu.Lock()
	held, release := h.held, h.release
	h.held, h.release = nil, nil
	h.mu.Unlock()
	return h.Store.Update(ctx, func(tx resolver.Tx) error {
		if err := fn(tx); err != nil || held == nil {
			return err
		}
		close(held)
		<-release
		return nil
	})
}

// holdTurn makes holder add a delegation rule in a transaction that hs
// holds open, the turn taken, and returns once it is; release lets it
// commit and returns its error.
func holdTurn(t *testing.T, hs *holdingStore, holder *resolver.Service, admin resolver.Principal) (release func() error) {
	t.Helper()
	held, rel := hs.hold()
	done := make(chan error, 1)
	go func() {
		_, err := holder.AddRule(context.Background(), admin, "urn:other:", "https://resolver.example/")
		done <- err
	}()
	<-held
	return func() error {
		close(rel)
		return <-done
	}
}

// waitingForTurn waits until a transaction waits for the head row's lock,
// and returns its backend's process ID.
func waitingForTurn(t *testing.T, conn *pgx.Conn) int32 {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var pid int32
		err := conn.QueryRow(context.Background(), `SELECT pid FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND query LIKE '%FROM head WHERE id = 1 FOR UPDATE%' LIMIT 1`).Scan(&pid)
		if err == nil {
			return pid
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no transaction came to wait for its turn")
	return 0
}

// holdsRowsOf reports whether backend pid has written rows of table in
// its open transaction.
func holdsRowsOf(t *testing.T, conn *pgx.Conn, pid int32, table string) bool {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
		WHERE l.pid = $1 AND c.relname = $2 AND l.mode = 'RowExclusiveLock' AND l.granted`, pid, table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

func numbered(prefix string, n int) []resolver.NamedInput {
	batch := make([]resolver.NamedInput, n)
	for i := range batch {
		batch[i] = resolver.NamedInput{URN: fmt.Sprintf("%s%03d", prefix, i), RecordInput: resolver.RecordInput{
			Locations: []resolver.Location{{URL: fmt.Sprintf("https://example.org/%d", i)}}}}
	}
	return batch
}

// TestBatchStoresItsRecordsBeforeItsTurn: while another writer holds the
// turn, PutPrepared stores its batch's records (its transaction holds rows
// of records and keys), waits for the turn without having taken it
// (Turned stays open), and once the writer commits, appends the history:
// every record is there, and the history verifies.
func TestBatchStoresItsRecordsBeforeItsTurn(t *testing.T) {
	ctx := context.Background()
	dsn := cluster.NewDB(t)
	hs := &holdingStore{Store: open(t, dsn, postgres.Options{})}
	holder := resolver.New(hs, resolver.Options{AdminToken: "admin"})
	admin, _ := holder.Authenticate(ctx, "admin")
	if _, _, err := holder.CreateAuthority(ctx, admin, "Example", []string{"urn:example:"}); err != nil {
		t.Fatal(err)
	}
	svc := resolver.New(open(t, dsn, postgres.Options{}), resolver.Options{})
	conn := connect(t, dsn)

	release := holdTurn(t, hs, holder, admin)

	pb := svc.PrepareMany(resolver.Operator, numbered("urn:example:early-", 50))
	type result struct {
		res []resolver.PutResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := svc.PutPrepared(ctx, pb)
		done <- result{res, err}
	}()
	pid := waitingForTurn(t, conn)
	for _, table := range []string{"records", "keys", "locations"} {
		if !holdsRowsOf(t, conn, pid, table) {
			t.Errorf("the batch waits for its turn without rows of %s", table)
		}
	}
	if holdsRowsOf(t, conn, pid, "log") {
		t.Error("the batch appended history before its turn")
	}
	select {
	case <-pb.Turned():
		t.Fatal("Turned closed while another writer held the turn")
	default:
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	<-pb.Turned()
	for i, x := range r.res {
		if x.Err != nil || !x.Created {
			t.Fatalf("record %d: created %v, %v", i, x.Created, x.Err)
		}
	}
	if _, err := svc.Verify(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := count(t, conn, `SELECT count(*) FROM log WHERE action = 'name.create'`); n != 50 {
		t.Fatalf("%d records' history", n)
	}
}

func count(t *testing.T, conn *pgx.Conn, query string) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), query).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBatchWhoseReadsWentStale: what a batch read before its turn, changed
// by a writer that held the turn meanwhile, makes PutPrepared write the
// batch again with its turn taken first — and the outcome is what it
// would have been had the batch come after that writer all along:
//   - a naming authority created meanwhile owns one of the batch's names,
//     which no authority owned when the batch read it: created;
//   - an entry later than the batch's stamp (a process whose clock is
//     ahead): the records take that entry's time, as Created and as their
//     history's, since times never go back in the history.
func TestBatchWhoseReadsWentStale(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		first  string // the batch's first name
		change func(svc *resolver.Service, admin resolver.Principal) error
		check  func(t *testing.T, res []resolver.PutResult, ahead time.Time)
	}{
		{
			name:  "owner",
			first: "urn:late:1",
			change: func(svc *resolver.Service, admin resolver.Principal) error {
				_, _, err := svc.CreateAuthority(ctx, admin, "Late", []string{"urn:late:"})
				return err
			},
			check: func(t *testing.T, res []resolver.PutResult, _ time.Time) {
				for _, r := range res {
					if r.Err != nil || !r.Created {
						t.Errorf("%s: created %v, %v", r.Record.URN, r.Created, r.Err)
					}
				}
			},
		},
		{
			name:  "time",
			first: "urn:nbn:DE:101-1",
			change: func(svc *resolver.Service, admin resolver.Principal) error {
				_, err := svc.AddRule(ctx, admin, "urn:other:", "https://resolver.example/")
				return err
			},
			check: func(t *testing.T, res []resolver.PutResult, ahead time.Time) {
				for _, r := range res {
					if r.Err != nil || !r.Created || !r.Record.Created.Equal(ahead) || !r.Record.Updated.Equal(ahead) {
						t.Errorf("%s: created %v at %v (want %v), %v", r.Record.URN, r.Created, r.Record.Created, ahead, r.Err)
					}
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn := cluster.NewDB(t)
			hs := &holdingStore{Store: open(t, dsn, postgres.Options{})}
			ahead := at.Add(time.Hour)
			var holderAt atomic.Pointer[time.Time]
			holderAt.Store(&at)
			holder := resolver.New(hs, resolver.Options{AdminToken: "admin", Clock: func() time.Time { return *holderAt.Load() }})
			admin, _ := holder.Authenticate(ctx, "admin")
			if _, _, err := holder.CreateAuthority(ctx, admin, "NBN", []string{"urn:nbn:de:101-", "urn:example:"}); err != nil {
				t.Fatal(err)
			}
			svc := resolver.New(open(t, dsn, postgres.Options{}), resolver.Options{Clock: func() time.Time { return at }})
			if tc.name == "time" {
				holderAt.Store(&ahead)
			}
			conn := connect(t, dsn)
			batch := append([]resolver.NamedInput{{URN: tc.first, RecordInput: resolver.RecordInput{
				Locations: []resolver.Location{{URL: "https://example.org/nbn"}}}}}, numbered("urn:example:stale-", 20)...)

			held, release := hs.hold()
			holderDone := make(chan error, 1)
			go func() { holderDone <- tc.change(holder, admin) }()
			<-held
			done := make(chan error, 1)
			var res []resolver.PutResult
			go func() {
				var err error
				res, err = svc.PutMany(ctx, resolver.Operator, batch)
				done <- err
			}()
			pid := waitingForTurn(t, conn)
			if !holdsRowsOf(t, conn, pid, "records") {
				t.Fatal("the batch waits for its turn without having stored its records")
			}
			close(release)
			if err := <-holderDone; err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			tc.check(t, res, ahead)
			written := 0
			for _, r := range res {
				if r.Err == nil {
					written++
				}
			}
			if _, err := svc.Verify(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if n := count(t, conn, `SELECT count(*) FROM records`); n != written {
				t.Fatalf("%d records stored for %d written", n, written)
			}
			if n := count(t, conn, `SELECT count(*) FROM log WHERE action = 'name.create'`); n != written {
				t.Fatalf("%d records' history for %d written", n, written)
			}
			if tc.name == "time" {
				var oldest time.Time
				if err := conn.QueryRow(ctx, `SELECT min(time) FROM log WHERE action = 'name.create'`).Scan(&oldest); err != nil || !oldest.Equal(ahead) {
					t.Fatalf("the records' history at %v, want %v (%v)", oldest, ahead, err)
				}
			}
		})
	}
}

// TestWriteBeforeTheTurnTakesIt: in an UpdateBeforeTurn transaction, any
// write but InsertRecords' rows takes the turn first: it waits while
// another writer holds it.
func TestWriteBeforeTheTurnTakesIt(t *testing.T) {
	ctx := context.Background()
	dsn := cluster.NewDB(t)
	hs := &holdingStore{Store: open(t, dsn, postgres.Options{})}
	holder := resolver.New(hs, resolver.Options{AdminToken: "admin"})
	admin, _ := holder.Authenticate(ctx, "admin")
	release := holdTurn(t, hs, holder, admin)
	st := open(t, dsn, postgres.Options{})
	var wrote time.Time
	done := make(chan error, 1)
	go func() {
		done <- st.UpdateBeforeTurn(ctx, func(tx resolver.EarlyTx) error {
			err := tx.SetSetting(ctx, "test-setting", "x")
			wrote = time.Now()
			return err
		})
	}()
	waitingForTurn(t, connect(t, dsn))
	released := time.Now()
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if wrote.Before(released) {
		t.Fatal("the setting was written while another writer held the turn")
	}
	if _, err := resolver.New(st, resolver.Options{}).Verify(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// waitingForTurnN waits until n transactions wait for the head row's lock.
func waitingForTurnN(t *testing.T, conn *pgx.Conn, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var k int
		if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND query LIKE '%FROM head WHERE id = 1 FOR UPDATE%'`).Scan(&k); err != nil {
			t.Fatal(err)
		}
		if k >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("fewer than %d transactions came to wait for their turn", n)
}

// TestEarlyBatchAndWriterOfTheSameNameDeadlock: what UpdateBeforeTurn's
// comment claims: a writer that takes its turn before
// an early batch, and stores a name the batch stored before its turn,
// waits for the batch at the unique index while the batch waits for the
// turn; the server breaks the deadlock and the loser is run again. Both
// writes succeed, the name has one record, and the history verifies.
func TestEarlyBatchAndWriterOfTheSameNameDeadlock(t *testing.T) {
	ctx := context.Background()
	dsn := cluster.NewDB(t)
	hs := &holdingStore{Store: open(t, dsn, postgres.Options{Timeout: 20 * time.Second})}
	holder := resolver.New(hs, resolver.Options{AdminToken: "admin"})
	admin, _ := holder.Authenticate(ctx, "admin")
	if _, _, err := holder.CreateAuthority(ctx, admin, "Example", []string{"urn:example:"}); err != nil {
		t.Fatal(err)
	}
	writer := resolver.New(open(t, dsn, postgres.Options{Timeout: 20 * time.Second}), resolver.Options{})
	importer := resolver.New(open(t, dsn, postgres.Options{Timeout: 20 * time.Second}), resolver.Options{})
	conn := connect(t, dsn)

	release := holdTurn(t, hs, holder, admin)
	// The writer queues for the turn first, then the batch stores its
	// records and queues behind it.
	writerDone := make(chan error, 1)
	go func() {
		_, _, err := writer.Put(ctx, resolver.Operator, "urn:example:shared-000", resolver.RecordInput{
			Locations: []resolver.Location{{URL: "https://example.org/writer"}}})
		writerDone <- err
	}()
	waitingForTurnN(t, conn, 1)
	batchDone := make(chan error, 1)
	go func() {
		res, err := importer.PutMany(ctx, resolver.Operator, numbered("urn:example:shared-", 20))
		if err == nil {
			for _, r := range res {
				if r.Err != nil {
					err = r.Err
				}
			}
		}
		batchDone <- err
	}()
	waitingForTurnN(t, conn, 2)
	if err := release(); err != nil {
		t.Fatal(err)
	}
	for name, ch := range map[string]chan error{"writer": writerDone, "batch": batchDone} {
		select {
		case err := <-ch:
			if err != nil {
				t.Errorf("%s: %v (unavailable: %v)", name, err, errors.Is(err, resolver.ErrUnavailable))
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: no answer", name)
		}
	}
	if n := count(t, conn, `SELECT count(*) FROM keys WHERE key = 'urn:example:shared-000'`); n != 1 {
		t.Fatalf("%d keys", n)
	}
	if n := count(t, conn, `SELECT count(*) FROM records`); n != 20 {
		t.Fatalf("%d records", n)
	}
	if _, err := writer.Verify(ctx, nil); err != nil {
		t.Fatal(err)
	}
}
