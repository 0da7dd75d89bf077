package postgres

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/resolver"
)

// countingDB answers "SELECT version" with the number of reads started so
// far, each read taking a little while: a read that answers v started
// after every read that answers less.
type countingDB struct{ started atomic.Int64 }

type slowRow struct{ v int64 }

func (r slowRow) Scan(dest ...any) error {
	time.Sleep(200 * time.Microsecond)
	*dest[0].(*int64) = r.v
	return nil
}

func (db *countingDB) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return slowRow{db.started.Add(1)}
}

// TestVersionGateNeverAnswersWithAnOlderRead: under many concurrent
// callers, every caller gets a read that started after it called (so a
// write acknowledged before a lookup began is seen by its cache check),
// and the callers share reads.
func TestVersionGateNeverAnswersWithAnOlderRead(t *testing.T) {
	db := &countingDB{}
	g := &versionGate{pool: db, timeout: time.Second}
	const callers, each = 16, 200
	var wg sync.WaitGroup
	var bad atomic.Int64
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				before := db.started.Load() // reads started before this call
				v, err := g.read(context.Background())
				if err != nil || v <= before {
					bad.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if bad.Load() > 0 {
		t.Fatalf("%d calls were answered by a read that started before them", bad.Load())
	}
	reads := db.started.Load()
	t.Logf("%d calls, %d reads", callers*each, reads)
	if reads >= callers*each {
		t.Fatalf("%d reads for %d calls: nothing was shared", reads, callers*each)
	}
	// A caller whose context ends stops waiting; the read goes on for
	// the others.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.read(ctx); err == nil {
		t.Fatal("a cancelled caller got an answer")
	}
}

// hungDB is a connection that never answers until released, deadline or
// not.
type hungDB struct {
	started atomic.Int64
	release chan struct{}
}

type hungRow struct{ release chan struct{} }

func (r hungRow) Scan(dest ...any) error {
	<-r.release
	return context.DeadlineExceeded
}

func (db *hungDB) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	db.started.Add(1)
	return hungRow{db.release}
}

// TestVersionGateWaitsOneTimeout: a caller waits for the version at most
// the gate's timeout, then fails with ErrUnavailable, also when it is
// queued behind a read that hangs: it does not wait for that read and
// then for its own.
func TestVersionGateWaitsOneTimeout(t *testing.T) {
	db := &hungDB{release: make(chan struct{})}
	defer close(db.release)
	g := &versionGate{pool: db, timeout: 50 * time.Millisecond}
	errs := make(chan error, 2)
	go func() { _, err := g.read(context.Background()); errs <- err }()
	for db.started.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	go func() { _, err := g.read(context.Background()); errs <- err }() // queued
	for range 2 {
		select {
		case err := <-errs:
			if !errors.Is(err, resolver.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("a caller of a hung read: %v, want ErrUnavailable after the timeout", err)
			}
		case <-time.After(10 * time.Second): // 200 times the timeout
			t.Fatal("a caller of a hung read still waits after 10s; the timeout is 50ms")
		}
	}
}
