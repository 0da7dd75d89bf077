// Package postgres is the resolver.Store on PostgreSQL (through pgx), for
// a directory that several urikit processes serve at once, and optionally
// reads from a streaming replica.
//
// Open connects, applies the schema's migrations (Migrate) and starts
// listening for the changes other processes commit. Every Store call is
// bounded by Options.Timeout, and a server that is down, restarting or too
// slow is reported as resolver.ErrUnavailable at once (the HTTP layer
// answers 503); the pool reconnects by itself when the server is back.
//
// # Several processes on one database
//
// Writers take turns on a one-row table (head) that each write
// transaction locks first; the database's unique indexes keep names
// unique whatever happens. Each commit bumps the directory's version and
// sends a notification with the keys it changed; each Store listens and
// passes them to its watchers (the Service's lookup cache, through
// resolver.Shared). A notification arrives after the commit has been
// acknowledged, so on its own it would leave a window in which another
// process answers from its cache with the old record; CacheCurrent closes
// it: a cached lookup is used only when the directory's version, read
// after the lookup began, is one whose notifications have all arrived.
//
// # Read replica
//
// With Options.ReadDSN, reads outside transactions go to a replica, under
// two rules. A replica read never goes behind what this process already
// knows of: it is served by the replica only when the replica has
// replayed at least the last version this process was notified of or
// committed itself (and the version the context asks for, see ReadAfter:
// how a client reads its own write through another process); otherwise
// it waits
// for the replica up to Options.ReplicaWait and then asks the primary. So
// a replica read lags behind the primary by at most the time a
// notification takes to arrive, and a client that presents the version
// of its own write (Commit, ReadAfter) reads it. While this process is
// not listening (the primary is unreachable), every read goes to the
// primary. Writes and reads inside Update always go to the primary.
//
// # Connections
//
// Each Store keeps a pool of up to Options.MaxConns connections to the
// primary (and as many to the replica), plus one session that LISTENs:
// that one must reach the server directly or through a pooler in session
// mode (LISTEN does not work through transaction pooling). The schema
// keeps keys and prefixes in the "C" collation, whatever the database's
// locale.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/urikit/urikit/resolver"
)

// defaultTimeout is Options.Timeout unless set.
const defaultTimeout = 5 * time.Second

// Options configure a Store. The zero value is usable.
type Options struct {
	// ReadDSN, when set, is a streaming replica of the database, for
	// reads (urikit serve --read-db).
	ReadDSN string
	// Timeout bounds each Store call: a read, a whole Update, or
	// CacheCurrent's wait for the version read it shares with other
	// callers. A call that takes longer is ErrUnavailable. Default 5s.
	Timeout time.Duration
	// ConnectTimeout bounds opening one connection. Default 2s.
	ConnectTimeout time.Duration
	// MaxConns bounds each pool (the primary's, the replica's). Default 16.
	MaxConns int32
	// ReplicaWait is how long a read waits for the replica to replay what
	// it must see before it asks the primary instead. Default 100ms.
	ReplicaWait time.Duration
	// NoMigrate makes Open refuse a database whose schema is not this
	// build's instead of migrating it (urikit migrate does it then).
	NoMigrate bool
}

// Store is a resolver.Store on PostgreSQL. It is safe for concurrent use.
type Store struct {
	opts    Options
	pool    *pgxpool.Pool // the primary
	replica *pgxpool.Pool // nil without ReadDSN
	gate    *versionGate  // version reads on the pool reads go to
	pgate   *versionGate  // version reads on the primary
	rgate   *versionGate  // version reads on the replica, nil without one

	applied     atomic.Int64 // every change up to this version has reached the watchers
	committed   atomic.Int64 // the last version this process committed
	listening   atomic.Bool  // the listener is connected and caught up
	replicaSeen atomic.Int64 // the replica has replayed at least this version
	advMu       sync.Mutex
	advanced    chan struct{} // closed and replaced when applied grows

	stats stats

	watchMu  sync.Mutex
	watchers []func(keys ...string)

	stop   context.CancelFunc
	done   chan struct{} // closed when the listener has ended
	closed atomic.Bool

	schemaFrom  int          // the schema version Open found
	newerSchema atomic.Int64 // a schema version newer than this build's, seen since
}

// SchemaFound is the schema version Open found in the database before it
// migrated it: 0 for a new database, SchemaVersion when it was up to date.
func (s *Store) SchemaFound() int { return s.schemaFrom }

// Open connects to the database dsn names (a postgres:// URL or key=value
// string), migrates its schema unless Options.NoMigrate, and starts
// listening for changes.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	opts = opts.withDefaults()
	pool, err := newPool(ctx, dsn, opts)
	if err != nil {
		return nil, err
	}
	s := &Store{opts: opts, pool: pool, done: make(chan struct{}), advanced: make(chan struct{})}
	fail := func(err error) (*Store, error) {
		pool.Close()
		if s.replica != nil {
			s.replica.Close()
		}
		return nil, err
	}
	if opts.NoMigrate {
		var v int
		err := pool.QueryRow(ctx, sqlSchemaVersion).Scan(&v)
		var pg *pgconn.PgError
		if errors.As(err, &pg) && pg.Code == "42P01" { // undefined_table: never migrated
			v, err = 0, nil
		}
		if err != nil {
			return fail(fmt.Errorf("postgres: reading the schema version: %w", mapErr(err)))
		}
		if v != SchemaVersion {
			return fail(fmt.Errorf("%w (found %d, want %d)", errSchema, v, SchemaVersion))
		}
		s.schemaFrom = v
	} else if s.schemaFrom, err = migrate(ctx, pool, SchemaVersion); err != nil {
		return fail(err)
	}
	s.pgate = &versionGate{pool: pool, timeout: opts.Timeout}
	s.gate = s.pgate
	if opts.ReadDSN != "" {
		if s.replica, err = newPool(ctx, opts.ReadDSN, opts); err != nil {
			return fail(err)
		}
		s.rgate = &versionGate{pool: s.replica, timeout: opts.Timeout}
		s.gate = s.rgate
	}
	lctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	go s.listen(lctx, pool.Config().ConnConfig.Copy())
	return s, nil
}

func (opts Options) withDefaults() Options {
	if opts.Timeout <= 0 {
		opts.Timeout = defaultTimeout
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 2 * time.Second
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = 16
	}
	if opts.ReplicaWait <= 0 {
		opts.ReplicaWait = 100 * time.Millisecond
	}
	return opts
}

func newPool(ctx context.Context, dsn string, opts Options) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	cfg.MaxConns = opts.MaxConns
	cfg.ConnConfig.ConnectTimeout = opts.ConnectTimeout
	rp := cfg.ConnConfig.RuntimeParams
	if rp["application_name"] == "" {
		rp["application_name"] = "urikit"
	}
	// Server-side backstops behind our own deadlines: no statement runs
	// on, and no transaction sits idle holding the head lock, when its
	// client is gone or stuck. A transaction is idle only between its
	// statements, for milliseconds: a longer Timeout (an import's) does
	// not let a stopped client hold the lock longer than the default.
	rp["statement_timeout"] = strconv.FormatInt(opts.Timeout.Milliseconds(), 10)
	rp["idle_in_transaction_session_timeout"] = strconv.FormatInt(min(opts.Timeout, defaultTimeout).Milliseconds(), 10)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", mapErr(err))
	}
	return pool, nil
}

// Close stops listening and closes the pools.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.stop()
	<-s.done
	s.pool.Close()
	if s.replica != nil {
		s.replica.Close()
	}
	return nil
}

var errClosed = fmt.Errorf("%w: the store is closed", resolver.ErrUnavailable)

func (s *Store) usable() error {
	if s.closed.Load() {
		return errClosed
	}
	if v := s.newerSchema.Load(); v > 0 {
		return &resolver.NewerSchemaError{Database: int(v), Build: SchemaVersion}
	}
	return nil
}

// noteSchema takes in the database's schema version, which the listener
// reads and migrations announce. A newer one than this build's was
// migrated by a newer urikit while this one ran: this build would misread
// what it writes (schema 2 made columns NULL that schema 1 never held), so
// the store refuses every call, and /readyz says so, until it is upgraded.
func (s *Store) noteSchema(v int) {
	if v > SchemaVersion {
		s.newerSchema.Store(int64(v))
	}
}

// Ping checks that the primary answers (for /readyz).
func (s *Store) Ping(ctx context.Context) error {
	if err := s.usable(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	return mapErr(s.pool.Ping(ctx))
}

// read runs one read outside a transaction, on the pool readPool picks.
// A read that fails because its connection broke or the server ended it
// (a pooled connection that the server closed when it restarted: its
// first use reads 57P01, connLost) is run once more: reads have
// no effect, so this is safe, and it spares the first request after a
// restart a 503. A replica that fails hands the read to the primary.
func (s *Store) read(ctx context.Context, fn func(context.Context, reader) error) error {
	if err := s.usable(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	q := s.readPool(ctx)
	s.stats.count(q == querier(s.pool))
	err := fn(ctx, reader{q})
	if err != nil && ctx.Err() == nil && !errors.Is(err, resolver.ErrNotFound) &&
		(connLost(err) || q != querier(s.pool) && errors.Is(mapErr(err), resolver.ErrUnavailable)) {
		s.stats.retries.Add(1)
		err = fn(ctx, reader{s.pool})
	}
	return mapErr(err)
}

// The read methods of resolver.Reader: the latest committed state, as
// read routes them.

func (s *Store) RecordByKey(ctx context.Context, key string) (rec resolver.Record, role resolver.Role, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		rec, role, err = r.recordByKey(ctx, key)
		return err
	})
	return rec, role, err
}

func (s *Store) Record(ctx context.Context, id int64) (rec resolver.Record, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		rec, err = r.record(ctx, id)
		return err
	})
	return rec, err
}

func (s *Store) Keys(ctx context.Context, id int64) (ks []resolver.Key, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		ks, err = r.keyList(ctx, id)
		return err
	})
	return ks, err
}

func (s *Store) RecordsByLocation(ctx context.Context, k string, after int64, limit int, withdrawn bool) (recs []resolver.Record, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		recs, err = r.recordsByLocation(ctx, k, after, limit, withdrawn)
		return err
	})
	return recs, err
}

func (s *Store) Records(ctx context.Context, after int64, limit int) (recs []resolver.Record, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		recs, err = r.recordsAfter(ctx, after, limit)
		return err
	})
	return recs, err
}

func (s *Store) StaleKeys(ctx context.Context, v int, after string, limit int) (ks []resolver.Key, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		ks, err = r.staleKeys(ctx, v, after, limit)
		return err
	})
	return ks, err
}

func (s *Store) Predecessors(ctx context.Context, keys []string, after int64, limit int) (recs []resolver.RecordName, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		recs, err = r.predecessors(ctx, keys, after, limit)
		return err
	})
	return recs, err
}

func (s *Store) StaleSuccessors(ctx context.Context, v int, after int64, limit int) (recs []resolver.Record, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		recs, err = r.staleSuccessors(ctx, v, after, limit)
		return err
	})
	return recs, err
}

func (s *Store) DuplicateLocations(ctx context.Context, after string, limit int, withdrawn bool) (ds []resolver.Duplicate, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		ds, err = r.duplicateLocations(ctx, after, limit, withdrawn)
		return err
	})
	return ds, err
}

func (s *Store) Authority(ctx context.Context, id int64) (a resolver.Authority, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		a, err = r.authority(ctx, id)
		return err
	})
	return a, err
}

func (s *Store) Authorities(ctx context.Context) (as []resolver.Authority, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		as, err = r.authorities(ctx)
		return err
	})
	return as, err
}

func (s *Store) TokenByHash(ctx context.Context, h []byte) (t resolver.Token, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		t, err = r.tokenByHash(ctx, h)
		return err
	})
	return t, err
}

func (s *Store) Tokens(ctx context.Context, id int64) (ts []resolver.Token, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		ts, err = r.tokens(ctx, id)
		return err
	})
	return ts, err
}

func (s *Store) Rules(ctx context.Context) (rs []resolver.Rule, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		rs, err = r.rules(ctx)
		return err
	})
	return rs, err
}

func (s *Store) History(ctx context.Context, id, after int64, limit int) (es []resolver.Entry, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		es, err = r.history(ctx, id, after, limit)
		return err
	})
	return es, err
}

func (s *Store) HistoryBefore(ctx context.Context, id, before int64, until time.Time, limit int) (es []resolver.Entry, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		es, err = r.historyBefore(ctx, id, before, until, limit)
		return err
	})
	return es, err
}

func (s *Store) Log(ctx context.Context, after int64, limit int) (es []resolver.Entry, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		es, err = r.log(ctx, after, limit)
		return err
	})
	return es, err
}

func (s *Store) Head(ctx context.Context) (e resolver.Entry, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		e, err = r.head(ctx)
		return err
	})
	return e, err
}

func (s *Store) Setting(ctx context.Context, name string) (v string, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		v, err = r.setting(ctx, name)
		return err
	})
	return v, err
}

var _ resolver.Store = (*Store)(nil)
