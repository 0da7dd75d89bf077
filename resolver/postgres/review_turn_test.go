package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
)

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

// TestEarlyBatchAndWriterOfTheSameNameDeadlock (review of 47b2d1d): what
// UpdateBeforeTurn's comment claims: a writer that takes its turn before
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

	held, release := hs.hold()
	holderDone := make(chan error, 1)
	go func() {
		_, err := holder.AddRule(ctx, admin, "urn:other:", "https://resolver.example/")
		holderDone <- err
	}()
	<-held
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
	close(release)
	if err := <-holderDone; err != nil {
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
