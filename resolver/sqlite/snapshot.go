package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/urikit/urikit/resolver"
)

// The lookup path (RecordByKey, every I2L) runs on snapshot readers:
// connections that keep one read transaction open across many lookups.
// In autocommit mode each lookup is a transaction of its own, and starting
// and ending one costs SQLite two fcntl locks on the WAL index and an
// fstat of the file, about a third of a lookup of a random name; holding
// the transaction open also keeps the connection's page cache, which
// SQLite would otherwise re-validate at every start.
//
// A held snapshot must not hide a write, so a snapshot is dropped and a
// new one begun when:
//   - this process committed since it began (Store.gen, bumped by Update
//     after COMMIT and before it returns, so a lookup that starts after a
//     write was acknowledged sees it, as with autocommit reads);
//   - another process committed, as far as Changed has seen (urikit serve
//     runs Watch, which calls it);
//   - it is older than Options.SnapshotAge, which bounds how stale a
//     lookup can be after another process's write when nobody watches, and
//     how long a snapshot keeps the WAL from being checkpointed past it.
//     The sweeper ends the snapshots of readers left idle.

// sweepEvery is how often the sweeper ends the snapshots of idle readers.
const sweepEvery = 50 * time.Millisecond

type snapReader struct {
	conn  *sql.Conn // nil after a failure: reconnected on next use
	rd    reader    // qRecordByKey prepared on conn
	open  bool      // a read transaction is open on conn
	gen   uint64    // Store.gen when it began
	began time.Time
}

// snapPool holds the snapshot readers, each on a connection of db. A
// reader is taken from idle for one lookup and put back.
type snapPool struct {
	db     *sql.DB
	idle   chan *snapReader
	gen    *atomic.Uint64
	live   func() error
	maxAge time.Duration

	stop chan struct{}
	wg   sync.WaitGroup
}

func newSnapPool(ctx context.Context, db *sql.DB, n int, maxAge time.Duration, gen *atomic.Uint64, live func() error) (*snapPool, error) {
	p := &snapPool{db: db, idle: make(chan *snapReader, n), gen: gen, live: live, maxAge: maxAge, stop: make(chan struct{})}
	for range n {
		r := &snapReader{}
		if err := p.connect(ctx, r); err != nil {
			p.closeReaders(false)
			return nil, err
		}
		p.idle <- r
	}
	p.wg.Add(1)
	go p.sweep()
	return p, nil
}

// connect gives r a connection with its statement prepared.
func (p *snapPool) connect(ctx context.Context, r *snapReader) error {
	conn, err := p.db.Conn(ctx)
	if err != nil {
		return err
	}
	st, err := conn.PrepareContext(ctx, sqlText[qRecordByKey])
	if err != nil {
		conn.Close()
		return err
	}
	var q stmts
	q[qRecordByKey] = st
	r.conn, r.rd, r.open = conn, reader{q: &q, live: p.live}, false
	return nil
}

// recordByKey is reader.RecordByKey on a snapshot no older than the rules
// above allow.
func (p *snapPool) recordByKey(ctx context.Context, key string) (resolver.Record, resolver.Role, error) {
	if err := p.live(); err != nil {
		return resolver.Record{}, "", err
	}
	var r *snapReader
	select {
	case r = <-p.idle:
	case <-ctx.Done():
		return resolver.Record{}, "", storeErr(ctx, "waiting for a reader", ctx.Err())
	}
	defer func() { p.idle <- r }()
	if r.conn == nil {
		if err := p.connect(ctx, r); err != nil {
			return resolver.Record{}, "", storeErr(ctx, "reconnecting a reader", err)
		}
	}
	// The generation is read before the snapshot begins: a commit in
	// between makes the snapshot newer than r.gen says, which costs one
	// needless restart, never a stale read.
	gen := p.gen.Load()
	if r.open && (r.gen != gen || time.Since(r.began) > p.maxAge) {
		r.end()
	}
	if !r.open {
		// BEGIN (deferred) takes no lock: the snapshot is the state the
		// first statement reads.
		if _, err := r.conn.ExecContext(context.WithoutCancel(ctx), `BEGIN`); err != nil {
			r.discard()
			return resolver.Record{}, "", storeErr(ctx, "beginning a read snapshot", err)
		}
		r.open, r.gen, r.began = true, gen, time.Now()
	}
	// The query runs without ctx's cancellation: a lookup is a few B-tree
	// pages, and in WAL mode a reader waits for a lock only while another
	// connection recovers the WAL index (then at most the busy timeout),
	// while a cancellable context costs two goroutines a query
	// (database/sql's and the driver's watchers), a tenth of a lookup. A
	// request gone before it starts is caught here.
	if err := ctx.Err(); err != nil {
		return resolver.Record{}, "", storeErr(ctx, "looking up a key", err)
	}
	rec, role, err := r.rd.RecordByKey(context.WithoutCancel(ctx), key)
	if err != nil && !errors.Is(err, resolver.ErrNotFound) {
		// Whatever went wrong (an interrupted statement, a busy file),
		// the next lookup starts from a fresh transaction.
		r.end()
	}
	return rec, role, err
}

// end ends r's read transaction, if one is open. A read transaction has
// nothing to commit; if even that fails, or SQLite already ended it (after
// some errors it does), the connection is discarded unless it says so.
func (r *snapReader) end() {
	if !r.open {
		return
	}
	r.open = false
	if _, err := r.conn.ExecContext(context.Background(), `COMMIT`); err != nil && !strings.Contains(err.Error(), "no transaction is active") {
		r.discard()
	}
}

// discard closes r's connection for good (database/sql drops it rather
// than pooling it); the next use of r opens another.
func (r *snapReader) discard() {
	if r.conn == nil {
		return
	}
	r.rd.q.close()
	r.conn.Raw(func(any) error { return driver.ErrBadConn })
	r.conn.Close()
	r.conn, r.open = nil, false
}

// sweep ends the snapshots of readers that sat idle past their age,
// so that an idle server does not keep the WAL from being checkpointed.
func (p *snapPool) sweep() {
	defer p.wg.Done()
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	taken := make([]*snapReader, 0, cap(p.idle))
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		taken = taken[:0]
	grab:
		for range cap(p.idle) {
			select {
			case r := <-p.idle:
				taken = append(taken, r)
			default:
				break grab // the others are in use: they begin anew soon enough
			}
		}
		for _, r := range taken {
			if r.open && time.Since(r.began) > p.maxAge {
				r.end()
			}
			p.idle <- r
		}
	}
}

// close stops the sweeper and closes the readers. Store.Close calls it
// after closed is set: new lookups fail on live, and it waits (boundedly)
// for those under way.
func (p *snapPool) close() {
	close(p.stop)
	p.wg.Wait()
	p.closeReaders(true)
}

// closeReaders closes the idle readers, and with wait those in use too as
// they come back (for at most a few seconds: db.Close closes the rest).
func (p *snapPool) closeReaders(wait bool) {
	deadline := time.After(5 * time.Second)
	for range cap(p.idle) {
		var r *snapReader
		if wait {
			select {
			case r = <-p.idle:
			case <-deadline:
				return
			}
		} else {
			select {
			case r = <-p.idle:
			default:
				return
			}
		}
		r.end()
		if r.conn != nil {
			r.rd.q.close()
			r.conn.Close()
		}
	}
}
