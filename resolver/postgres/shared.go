package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// Watch implements resolver.Shared: invalidate is called with the keys of
// every change any process commits to the database, in commit order, and
// with no keys when changes may have been missed (the listening
// connection broke). Calls stop when the store is closed.
func (s *Store) Watch(invalidate func(keys ...string)) {
	s.watchMu.Lock()
	s.watchers = append(s.watchers, invalidate)
	s.watchMu.Unlock()
}

// watched reports whether anybody watches the changes.
func (s *Store) watched() bool {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	return len(s.watchers) > 0
}

func (s *Store) tell(keys []string) {
	s.watchMu.Lock()
	ws := s.watchers
	s.watchMu.Unlock()
	for _, w := range ws {
		w(keys...)
	}
}

// CacheCurrent implements resolver.Shared: it reports whether every
// change committed before the call has reached the watchers. It reads
// the directory's version (after the call began: concurrent callers share
// one read, but never one that started before they called) and compares
// it with the version the notifications have reached. With a replica the
// version is the replica's: a cached answer is then as fresh as a replica
// read would be, or fresher. A context from ReadAfter also needs the
// notifications to have reached its version.
func (s *Store) CacheCurrent(ctx context.Context) (bool, error) {
	cur, err := s.cacheCurrent(ctx)
	if cur {
		s.stats.cacheCurrent.Add(1)
	} else {
		s.stats.cacheStale.Add(1)
	}
	return cur, err
}

func (s *Store) cacheCurrent(ctx context.Context) (bool, error) {
	// A store that refuses every call (closed, or a newer schema) refuses
	// its cache too: the instance answers 503 for every name, not only
	// for those nobody looked up lately.
	if err := s.usable(); err != nil {
		return false, err
	}
	if !s.listening.Load() || s.applied.Load() < minVersion(ctx) {
		return false, nil
	}
	// One timeout for the check, as for any read: a failed check is the
	// caller's 503 (resolver.Service does not go on to the store).
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	v, err := s.gate.read(ctx)
	if err != nil && s.gate != s.pgate && ctx.Err() == nil {
		// As read does: a replica that fails hands the check to the
		// primary, within what is left of the timeout. (A replica that
		// hangs has used it up: that stays a 503.)
		v, err = s.pgate.read(ctx)
	}
	if err != nil {
		return false, mapErr(err)
	}
	// The notifications of a change just committed are usually a fraction
	// of a millisecond away: waiting that long for them is cheaper than a
	// query, and keeps the cache useful while others write.
	if s.applied.Load() < v {
		s.waitApplied(ctx, v, cacheWait)
	}
	return s.listening.Load() && s.applied.Load() >= v, nil
}

// cacheWait bounds how long CacheCurrent waits for notifications.
const cacheWait = 2 * time.Millisecond

// waitApplied waits until the notifications reach version v, at most d.
func (s *Store) waitApplied(ctx context.Context, v int64, d time.Duration) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		s.advMu.Lock()
		ch := s.advanced
		s.advMu.Unlock()
		if s.applied.Load() >= v {
			return
		}
		select {
		case <-ch:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// Stats are counts of what the store did since it was opened, for
// metrics and tests.
type Stats struct {
	PrimaryReads, ReplicaReads int64 // reads outside transactions, by where they went
	Retries                    int64 // reads run again after a broken connection or a failed replica
	CacheCurrent, CacheStale   int64 // CacheCurrent's answers
	Listening                  bool  // the change listener is connected
	Version                    int64 // the version the notifications have reached
}

type stats struct {
	primary, replica, retries, cacheCurrent, cacheStale atomic.Int64
}

func (st *stats) count(primary bool) {
	if primary {
		st.primary.Add(1)
	} else {
		st.replica.Add(1)
	}
}

// Stats returns the store's counts.
func (s *Store) Stats() Stats {
	return Stats{PrimaryReads: s.stats.primary.Load(), ReplicaReads: s.stats.replica.Load(), Retries: s.stats.retries.Load(),
		CacheCurrent: s.stats.cacheCurrent.Load(), CacheStale: s.stats.cacheStale.Load(),
		Listening: s.listening.Load(), Version: s.applied.Load()}
}

// listen keeps a connection to the primary that LISTENs for changes, and
// reconnects when it breaks. After each (re)connection it tells the
// watchers to forget everything, since notifications may have been lost,
// and takes the version it read after LISTEN as caught up: a change
// committed after that read is notified to this connection.
func (s *Store) listen(ctx context.Context, cfg *pgx.ConnConfig) {
	defer close(s.done)
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		if err := s.listenOnce(ctx, cfg); err == nil || ctx.Err() != nil {
			return
		}
		s.listening.Store(false)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

func (s *Store) listenOnce(ctx context.Context, cfg *pgx.ConnConfig) error {
	cctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		cancel()
		return err
	}
	defer conn.Close(context.Background())
	var v int64
	var schema int
	_, err = conn.Exec(cctx, "LISTEN "+channel)
	if err == nil {
		err = conn.QueryRow(cctx, "SELECT version, ("+sqlSchemaVersion+") FROM head WHERE id = 1").Scan(&v, &schema)
	}
	cancel()
	if err != nil {
		return err
	}
	s.noteSchema(schema)
	s.tell(nil)
	s.advance(v)
	s.listening.Store(true)
	defer s.listening.Store(false)
	for {
		// A connection that died without a word (a frozen server, a
		// dropped network) would leave the store believing it hears
		// everything: after a quiet spell, ask the server something.
		wctx, wcancel := context.WithTimeout(ctx, listenQuiet)
		n, err := conn.WaitForNotification(wctx)
		wcancel()
		if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) && !conn.IsClosed() {
			// The question is the schema's version: a migration's
			// notification may have been missed.
			pctx, pcancel := context.WithTimeout(ctx, s.opts.Timeout)
			var schema int
			err = conn.QueryRow(pctx, sqlSchemaVersion).Scan(&schema)
			pcancel()
			if err == nil {
				s.noteSchema(schema)
				continue
			}
		}
		if err != nil {
			return err
		}
		var c change
		if !s.watched() {
			// Nobody keeps a cache (urikit import): the version is all
			// that counts, and the keys need not be decoded.
			var v struct {
				Version int64 `json:"v"`
				More    bool  `json:"more"`
				Schema  int   `json:"schema"`
			}
			if json.Unmarshal([]byte(n.Payload), &v) == nil && !v.More {
				s.noteSchema(v.Schema)
				s.advance(v.Version)
			}
			continue
		}
		if json.Unmarshal([]byte(n.Payload), &c) != nil {
			s.tell(nil) // not ours, or damaged: forget everything to be safe
			continue
		}
		s.noteSchema(c.Schema)
		if c.All {
			s.tell(nil)
		} else if len(c.Keys) > 0 {
			s.tell(c.Keys)
		}
		if !c.More {
			s.advance(c.Version)
		}
	}
}

// listenQuiet is how long the listener waits for a notification before
// it checks that its connection still answers.
const listenQuiet = 2 * time.Second

// advance raises applied to v (it never goes back) and wakes whoever
// waits for it.
func (s *Store) advance(v int64) {
	raise(&s.applied, v)
	s.advMu.Lock()
	close(s.advanced)
	s.advanced = make(chan struct{})
	s.advMu.Unlock()
}

// raise sets a to v if v is greater, and returns a's value.
func raise(a *atomic.Int64, v int64) int64 {
	for {
		old := a.Load()
		if v <= old {
			return old
		}
		if a.CompareAndSwap(old, v) {
			return v
		}
	}
}

// readPool picks where a read outside a transaction goes: the replica
// when it has replayed everything the read must see (the last version
// this process was notified of or committed, and the context's
// ReadAfter), after
// waiting up to ReplicaWait for it; else the primary.
func (s *Store) readPool(ctx context.Context) querier {
	if s.replica == nil || !s.listening.Load() {
		return s.pool
	}
	need := max(s.applied.Load(), s.committed.Load(), minVersion(ctx))
	if s.replicaSeen.Load() >= need {
		return s.replica
	}
	deadline := time.Now().Add(s.opts.ReplicaWait)
	for {
		v, err := s.rgate.read(ctx)
		if err != nil {
			return s.pool
		}
		seen := s.seeReplica(v)
		if seen >= need {
			return s.replica
		}
		if time.Now().After(deadline) {
			return s.pool
		}
		select {
		case <-ctx.Done():
			return s.pool
		case <-time.After(time.Millisecond):
		}
	}
}

// seeReplica records that the replica has replayed version v, and returns
// the highest version it is known to have replayed.
func (s *Store) seeReplica(v int64) int64 { return raise(&s.replicaSeen, v) }

// ---- read-your-writes ----

type commitKey struct{}
type minVersionKey struct{}

// Commit records the directory version of the writes committed with a
// context from TrackCommits: the position a client presents (ReadAfter)
// to read its own writes from a replica.
type Commit struct{ v atomic.Int64 }

// Version is the version after the last write committed with the context,
// 0 when there was none.
func (c *Commit) Version() int64 { return c.v.Load() }

func (c *Commit) note(v int64) { raise(&c.v, v) }

// TrackCommits returns a context whose Updates record their commit's
// version in the returned Commit. An HTTP layer wraps a write request's
// context with it and hands the version to the client (a header).
func TrackCommits(ctx context.Context) (context.Context, *Commit) {
	c := &Commit{}
	return context.WithValue(ctx, commitKey{}, c), c
}

// ReadAfter returns a context whose reads see at least the directory as
// of version v (a Commit's Version): from the replica once it has
// replayed v (waiting up to Options.ReplicaWait), else from the primary.
// Cached lookups are used only when this process has been notified of v.
func ReadAfter(ctx context.Context, v int64) context.Context {
	if v <= minVersion(ctx) {
		return ctx
	}
	return context.WithValue(ctx, minVersionKey{}, v)
}

func minVersion(ctx context.Context) int64 {
	v, _ := ctx.Value(minVersionKey{}).(int64)
	return v
}

// Version returns the directory's current version on the primary.
func (s *Store) Version(ctx context.Context) (int64, error) {
	if err := s.usable(); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	var v int64
	err := s.pool.QueryRow(ctx, "SELECT version FROM head WHERE id = 1").Scan(&v)
	return v, mapErr(err)
}

// ---- coalesced version reads ----

// versionGate reads head.version for many concurrent callers with few
// queries, without ever answering a caller with a read that started
// before it called: a caller that finds a read under way waits for the
// next one, which starts when that one ends and serves everyone who
// queued meanwhile. At most one read runs and one waits at any time.
type versionGate struct {
	pool interface {
		QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	}
	timeout time.Duration

	mu      sync.Mutex
	running *versionRead
	queued  *versionRead
}

type versionRead struct {
	done chan struct{}
	v    int64
	err  error
}

func (g *versionGate) read(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	// A caller queued behind a read that hangs would wait for that read's
	// timeout and then for its own: it waits one timeout in all, as every
	// other call of the store does.
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	g.mu.Lock()
	var r *versionRead
	if g.running == nil {
		r = &versionRead{done: make(chan struct{})}
		g.running = r
		go g.run(r)
	} else {
		if g.queued == nil {
			g.queued = &versionRead{done: make(chan struct{})}
		}
		r = g.queued
	}
	g.mu.Unlock()
	select {
	case <-r.done:
		return r.v, r.err
	case <-ctx.Done():
		return 0, mapErr(ctx.Err())
	}
}

const sqlHeadVersion = "SELECT version FROM head WHERE id = 1"

func (g *versionGate) run(r *versionRead) {
	for r != nil {
		// Not any caller's context: the read serves them all.
		ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
		r.err = g.pool.QueryRow(ctx, sqlHeadVersion).Scan(&r.v)
		if r.err != nil && ctx.Err() == nil && connLost(r.err) {
			// A pooled connection the server closed (it restarted): run
			// it once more, within the same timeout, as Store.read does
			// — a failed check is a 503 (resolver.Service does not go
			// on to the store after it).
			r.err = g.pool.QueryRow(ctx, sqlHeadVersion).Scan(&r.v)
		}
		r.err = mapErr(r.err)
		cancel()
		close(r.done)
		g.mu.Lock()
		r, g.queued = g.queued, nil
		g.running = r
		g.mu.Unlock()
	}
}
