package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/urikit/urikit/resolver"
)

// FileName is the name of the database file in the data directory.
const FileName = "urikit.db"

// Options configure a Store. The zero value is usable.
type Options struct {
	// Readers is the number of reader connections, which serve lookups
	// concurrently; 0 means max(2, GOMAXPROCS). The SQLite engine runs on
	// the CPU (a page it does not cache is one pread from the operating
	// system's page cache), so readers beyond the CPUs add page caches, not
	// throughput: lookups beyond them wait for a connection briefly.
	Readers int
	// BusyTimeout bounds how long a statement waits for a lock another
	// process holds (urikit import on the same directory, say) before it
	// fails with resolver.ErrUnavailable; 0 means DefaultBusyTimeout.
	BusyTimeout time.Duration
	// CacheKiB is the page-cache budget of the whole store, in KiB; 0
	// means DefaultCacheKiB. The writer gets half (imports insert keys at
	// random places in the keys B-tree and profit from it), the lookup
	// readers share three eighths and the pool for other reads an eighth. The process's memory is about this
	// plus the Service's lookup cache, whatever the file's size: SQLite
	// reads the rest of the file through the operating system's page cache,
	// which is not the process's (readers do not mmap the file).
	CacheKiB int
	// SnapshotAge is the longest a lookup reader keeps one read
	// transaction open (snapshot.go); 0 means DefaultSnapshotAge. It bounds
	// how late a lookup sees another process's write when Watch does not
	// run, and how long an idle server holds the WAL; this process's own
	// writes are seen as soon as they are acknowledged, whatever it is.
	SnapshotAge time.Duration
	// Exclusive makes Open take the data directory's lock file, so that a
	// second urikit serve on the same directory fails at once with a clear
	// error instead of running beside the first. urikit serve sets it; the
	// CLI's admin commands do not, and work beside a running server, since
	// SQLite's own locking keeps concurrent writers apart.
	Exclusive bool
}

// Defaults for Options.
const (
	DefaultBusyTimeout = 5 * time.Second
	DefaultCacheKiB    = 32 << 10
	// Beginning a read transaction every millisecond per reader costs
	// next to nothing at thousands of lookups a second.
	DefaultSnapshotAge = time.Millisecond
)

// Store is a resolver.Store in one SQLite database file.
//
// Connections: one writer, and a pool of readers. Every Update runs on the
// writer connection in BEGIN IMMEDIATE, which takes SQLite's write lock at
// the start, so writes serialize (in this process through the writer
// semaphore, between processes through the lock) and a transaction never
// fails half-way for want of the lock. In WAL mode readers never wait for
// the writer: each reads the last committed snapshot.
type Store struct {
	path string
	opts Options

	rdb *sql.DB // the reader pool
	rd  reader

	sdb   *sql.DB // the snapshot readers' connections (snapshot.go)
	snaps *snapPool
	// gen counts this process's commits, and the other processes' ones
	// that Changed saw: a snapshot reader begun before a bump is stale.
	gen atomic.Uint64

	wdb  *sql.DB       // holds the one writer connection
	wsem chan struct{} // one token: whoever holds it owns w
	w    *writer       // guarded by wsem

	ckpt      *checkpointer // copies the WAL into the database file (checkpoint.go)
	lock      *dirLock      // with Options.Exclusive
	closed    atomic.Bool
	migration Migration
}

type writer struct {
	conn *sql.Conn
	q    *stmts
	// argBuf holds the bulk calls' buffers of row values (writer.args).
	argBuf [numBulkTables][]driver.Value
	// dataVersion is PRAGMA data_version as Changed last saw it. On the
	// writer connection it changes only when another connection commits,
	// and this process's readers never write: so only another process.
	dataVersion int64
}

// Open opens, creating it if needed, the store in the data directory dir
// (created with mode 0700), and brings its schema up to date.
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	if opts.Readers <= 0 {
		opts.Readers = max(2, runtime.GOMAXPROCS(0))
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = DefaultBusyTimeout
	}
	if opts.CacheKiB <= 0 {
		opts.CacheKiB = DefaultCacheKiB
	}
	if opts.SnapshotAge <= 0 {
		opts.SnapshotAge = DefaultSnapshotAge
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("creating the data directory: %w", err)
	}
	s := &Store{path: filepath.Join(abs, FileName), opts: opts, wsem: make(chan struct{}, 1)}
	if opts.Exclusive {
		if s.lock, err = lockDir(abs); err != nil {
			return nil, err
		}
	}
	if err := s.open(ctx); err != nil {
		s.release()
		return nil, fmt.Errorf("opening %s: %w", s.path, err)
	}
	s.wsem <- struct{}{}
	return s, nil
}

func (s *Store) open(ctx context.Context) error {
	// SQLite creates the -wal and -shm files with the permissions of the
	// database file: create it private before SQLite does (it holds token
	// hashes and the names' history).
	f, err := os.OpenFile(s.path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	f.Close()

	busy := strconv.FormatInt(s.opts.BusyTimeout.Milliseconds(), 10)
	// A negative cache_size is in KiB. Each reader gets at least 1 MiB,
	// enough for the B-trees' upper levels, which every lookup reads.
	cache := strconv.Itoa(-max(s.opts.CacheKiB/2, 1024))
	readerCache := strconv.Itoa(-max(s.opts.CacheKiB*3/8/s.opts.Readers, 1024))
	// The pool for every other read (history, listings, tokens) serves
	// fewer requests than the lookups do.
	otherCache := strconv.Itoa(-max(s.opts.CacheKiB/8/s.opts.Readers, 1024))
	// synchronous=FULL: in WAL mode, NORMAL syncs the WAL only at
	// checkpoints, so a commit acknowledged just before a power failure or
	// an OS crash can be lost (the database stays consistent, but the write
	// is gone). FULL syncs the WAL at every commit: when Update returns nil
	// the change is on disk, as resolver.Store promises. The cost is one
	// fsync per transaction, which PutMany's batches share.
	//
	// temp_store=MEMORY keeps the journals of savepoints and statements in
	// memory (they are only ever read by a rollback on this connection)
	// rather than spilling them to temporary files. (The bulk inserts use
	// neither: see tx.undo and bulkHead.)
	//
	// page_size applies to a new file only (the first, before the switch
	// to WAL; a file keeps the page size it was made with). 8 KiB rather
	// than SQLite's 4: a commit writes each page it changed to the WAL
	// with two system calls, and an import changes as many pages as it
	// writes bytes, and more where its keys and locations fall all over
	// their B-trees. urikit import of 200,000 records: 5-8 % less time in
	// key order, 10-15 % in random order; lookups not slower
	// (BenchmarkLookupRandom, BenchmarkRecordByKey), the file 6 % smaller.
	s.wdb, err = sql.Open("sqlite", dsn(s.path,
		"page_size(8192)", "busy_timeout("+busy+")", "cache_size("+cache+")", "foreign_keys(1)", "temp_store(2)",
		"synchronous(FULL)", "journal_size_limit(67108864)", "wal_autocheckpoint("+strconv.Itoa(writerCheckpoint)+")"))
	if err != nil {
		return err
	}
	s.wdb.SetMaxOpenConns(1)
	s.wdb.SetMaxIdleConns(1)
	s.wdb.SetConnMaxLifetime(0)
	s.wdb.SetConnMaxIdleTime(0)

	conn, err := s.wdb.Conn(ctx)
	if err != nil {
		return storeErr(ctx, "connecting", err)
	}
	// Switching a new file to WAL takes an exclusive lock. When several
	// processes open the new file at once, SQLite may answer SQLITE_BUSY at
	// once rather than wait (waiting could deadlock the others' reads):
	// the switch is tried again until the busy timeout.
	var mode string
	deadline := time.Now().Add(s.opts.BusyTimeout)
	for {
		err := conn.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode)
		if err == nil {
			break
		}
		if !isBusy(err) || ctx.Err() != nil || time.Now().After(deadline) {
			conn.Close()
			return storeErr(ctx, "switching to WAL", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.EqualFold(mode, "wal") {
		conn.Close()
		return fmt.Errorf("the database cannot use WAL mode here (journal_mode is %q); put the data directory on a local file system", mode)
	}
	if s.migration, err = s.migrate(ctx, conn); err != nil {
		conn.Close()
		return storeErr(ctx, "migrating the schema", err)
	}
	if err := ensureStaleIndex(ctx, conn); err != nil {
		conn.Close()
		return storeErr(ctx, "indexing stale keys", err)
	}
	q, err := prepare(ctx, conn, numQueries)
	if err != nil {
		conn.Close()
		return err
	}
	s.w = &writer{conn: conn, q: q}
	if s.w.dataVersion, err = s.w.readDataVersion(ctx); err != nil {
		return storeErr(ctx, "reading data_version", err)
	}

	// Readers: query_only, so that a bug can never write through them (and
	// so never change the writer's data_version); no mmap, so that what the
	// process holds stays bounded by cache_size, whatever the file's size.
	if s.rdb, err = s.openReaders(busy, otherCache); err != nil {
		return err
	}
	rq, err := prepare(ctx, s.rdb, numReadQueries)
	if err != nil {
		return err
	}
	s.rd = reader{q: rq, db: s.rdb, live: s.live}

	if s.sdb, err = s.openReaders(busy, readerCache); err != nil {
		return err
	}
	if s.snaps, err = newSnapPool(ctx, s.sdb, s.opts.Readers, s.opts.SnapshotAge, &s.gen, s.live); err != nil {
		return err
	}
	s.ckpt, err = startCheckpointer(s.path, busy)
	return err
}

// openReaders opens a pool of Options.Readers read-only connections with
// the given busy timeout and cache_size, kept open for the store's life.
func (s *Store) openReaders(busy, cache string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn(s.path,
		"busy_timeout("+busy+")", "cache_size("+cache+")", "mmap_size(0)", "query_only(1)"))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(s.opts.Readers)
	db.SetMaxIdleConns(s.opts.Readers)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	return db, nil
}

// dsn is a file: URI for path with the connection's PRAGMAs, which the
// driver runs on every connection it opens. The path is escaped: SQLite
// decodes %XX in a URI, and a '?' or '#' in a directory name must not start
// the query.
func dsn(path string, pragmas ...string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter: file:///C:/...
	}
	q := url.Values{"_pragma": pragmas}
	return "file://" + (&url.URL{Path: p}).EscapedPath() + "?" + q.Encode()
}

// close closes the writer's prepared statements (not its connection).
func (w *writer) close() {
	w.q.close()
}

func (w *writer) readDataVersion(ctx context.Context) (int64, error) {
	var v int64
	err := w.q[qDataVersion].QueryRowContext(ctx).Scan(&v)
	return v, err
}

// migrate brings the schema on conn up to date. Upgrading a database that
// holds data changes its tables under every other process that has the
// file open, and one of an older build would go on reading them with its
// old statements. So it happens only with the data directory's lock, the
// one urikit serve holds (Options.Exclusive), taken for the time of the
// migration when this store does not hold it already: a newer CLI beside
// a running older server refuses to upgrade the file under it. (An older
// CLI working on the directory holds no lock, and is not seen.) Another
// process of this build may hold the lock for the same migration: the lock
// is awaited for up to the busy timeout, and that one's migration is found
// done.
func (s *Store) migrate(ctx context.Context, conn *sql.Conn) (Migration, error) {
	if s.lock == nil {
		v, err := schemaVersion(ctx, conn)
		if err != nil {
			return Migration{}, err
		}
		if v > 0 && v < Latest {
			deadline := time.Now().Add(s.opts.BusyTimeout)
			l, err := lockDir(filepath.Dir(s.path))
			for errors.Is(err, ErrLocked) && time.Now().Before(deadline) && ctx.Err() == nil {
				time.Sleep(20 * time.Millisecond)
				l, err = lockDir(filepath.Dir(s.path))
			}
			if err != nil {
				return Migration{From: v, To: v}, fmt.Errorf("the database's schema is version %d, this urikit writes version %d, which the server running on it would not read: stop it, then run urikit migrate or start this urikit's server: %w", v, Latest, err)
			}
			defer l.release()
		}
	}
	return migrate(ctx, conn)
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Migration reports what Open did to the schema.
func (s *Store) Migration() Migration { return s.migration }

// Migrate brings the schema up to date, as Open does; it is idempotent.
// urikit migrate calls it (and then resolver.Service.Migrate for the keys).
func (s *Store) Migrate(ctx context.Context) (Migration, error) {
	w, err := s.acquire(ctx)
	if err != nil {
		return Migration{}, err
	}
	defer s.releaseWriter()
	m, err := s.migrate(ctx, w.conn)
	if err == nil {
		err = ensureStaleIndex(ctx, w.conn)
	}
	return m, storeErr(ctx, "migrating the schema", err)
}

// SchemaVersion returns the schema version of the database.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	if err := s.live(); err != nil {
		return 0, err
	}
	v, err := schemaVersion(ctx, s.rdb)
	return v, storeErr(ctx, "reading the schema version", err)
}

func (s *Store) live() error {
	if s.closed.Load() {
		return errClosed
	}
	return nil
}

// acquire takes the writer for the caller, who must call releaseWriter.
func (s *Store) acquire(ctx context.Context) (*writer, error) {
	if err := s.live(); err != nil {
		return nil, err
	}
	select {
	case <-s.wsem:
	case <-ctx.Done():
		return nil, storeErr(ctx, "waiting for the writer", ctx.Err())
	}
	if err := s.live(); err != nil {
		s.wsem <- struct{}{}
		return nil, err
	}
	if s.w == nil {
		// The last connection broke (see discardWriter): open another.
		conn, err := s.wdb.Conn(ctx)
		if err != nil {
			s.wsem <- struct{}{}
			return nil, storeErr(ctx, "reconnecting the writer", err)
		}
		q, err := prepare(ctx, conn, numQueries)
		if err != nil {
			conn.Close()
			s.wsem <- struct{}{}
			return nil, storeErr(ctx, "reconnecting the writer", err)
		}
		s.w = &writer{conn: conn, q: q}
		if s.w.dataVersion, err = s.w.readDataVersion(ctx); err != nil {
			s.discardWriter()
			s.wsem <- struct{}{}
			return nil, storeErr(ctx, "reading data_version", err)
		}
	}
	return s.w, nil
}

func (s *Store) releaseWriter() { s.wsem <- struct{}{} }

// discardWriter drops a writer connection that may be in an unknown state,
// so that the next acquire opens a fresh one. Caller holds wsem.
func (s *Store) discardWriter() {
	if s.w == nil {
		return
	}
	s.w.close()
	s.w.conn.Raw(func(any) error { return driver.ErrBadConn }) // tells database/sql to close it
	s.w.conn.Close()
	s.w = nil
}

// Update implements resolver.Store.
func (s *Store) Update(ctx context.Context, fn func(resolver.Tx) error) (err error) {
	w, err := s.acquire(ctx)
	if err != nil {
		return err
	}
	defer s.releaseWriter()
	if err := s.begin(ctx, w); err != nil {
		s.rollback(w)
		return storeErr(ctx, "starting a write transaction", err)
	}
	t := &tx{w: w}
	t.reader = reader{q: w.q, live: t.check}
	committed := false
	defer func() {
		t.done = true
		if !committed {
			s.rollback(w)
		}
	}()
	if err := fn(t); err != nil {
		return err
	}
	if t.broken != nil {
		return t.broken
	}
	t.done = true
	// COMMIT ignores ctx's cancellation: interrupting the commit half-way
	// would leave the caller unsure whether it happened.
	if _, err := w.conn.ExecContext(context.WithoutCancel(ctx), `COMMIT`); err != nil {
		return storeErr(ctx, "committing", err)
	}
	committed = true
	s.gen.Add(1) // before the caller hears of it: snapshots begun earlier are dropped
	s.ckpt.committed()
	return nil
}

// begin takes SQLite's write lock (BEGIN IMMEDIATE). While another process
// holds it, SQLite's busy handler waits up to the busy timeout; a deadline
// of ctx that comes sooner shortens that wait, rather than trusting the
// driver to interrupt a busy wait when the context ends.
func (s *Store) begin(ctx context.Context, w *writer) error {
	if dl, ok := ctx.Deadline(); ok {
		if d := time.Until(dl); d < s.opts.BusyTimeout {
			bg := context.WithoutCancel(ctx)
			if _, err := w.conn.ExecContext(bg, fmt.Sprintf("PRAGMA busy_timeout = %d", max(d.Milliseconds(), 1))); err != nil {
				return err
			}
			defer w.conn.ExecContext(bg, fmt.Sprintf("PRAGMA busy_timeout = %d", s.opts.BusyTimeout.Milliseconds()))
		}
	}
	_, err := w.conn.ExecContext(ctx, `BEGIN IMMEDIATE`)
	return err
}

// rollback ends whatever transaction is open on the writer. SQLite rolls
// back by itself after some errors (a full disk, an interrupt), so "no
// transaction is active" is fine; any other failure leaves the connection
// in an unknown state, and it is replaced.
func (s *Store) rollback(w *writer) {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.BusyTimeout)
	defer cancel()
	if _, err := w.conn.ExecContext(ctx, `ROLLBACK`); err != nil && !strings.Contains(err.Error(), "no transaction is active") {
		s.discardWriter()
	}
}

// Changed reports whether another process (urikit import on the same data
// directory, say) committed a change since the last call, so that a server
// can drop its cached lookups. It reads PRAGMA data_version on the writer
// connection: cheap, no I/O beyond the WAL index in shared memory. When an
// Update is running, Changed does not wait for it: it reports false, and
// the next call sees the change.
func (s *Store) Changed(ctx context.Context) (bool, error) {
	if err := s.live(); err != nil {
		return false, err
	}
	select {
	case <-s.wsem:
	default:
		return false, nil
	}
	defer s.releaseWriter()
	if err := s.live(); err != nil || s.w == nil {
		return false, err
	}
	v, err := s.w.readDataVersion(ctx)
	if err != nil {
		return false, storeErr(ctx, "reading data_version", err)
	}
	changed := v != s.w.dataVersion
	s.w.dataVersion = v
	if changed {
		s.gen.Add(1)
	}
	return changed, nil
}

// Watch calls fn every time Changed reports a change, checking every
// interval, until ctx is done. urikit serve runs it with the Service's
// Invalidate, so that lookups cached before a write by another process are
// dropped within one interval of it.
func (s *Store) Watch(ctx context.Context, every time.Duration, fn func()) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if changed, err := s.Changed(ctx); err == nil && changed {
				fn()
			} else if errors.Is(err, errClosed) {
				return
			}
		}
	}
}

// Close implements resolver.Store. It waits for a running Update to end;
// every later call fails with resolver.ErrUnavailable.
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	<-s.wsem
	defer func() { s.wsem <- struct{}{} }() // waiters wake, see closed and leave
	return s.release()
}

func (s *Store) release() error {
	var errs []error
	if s.ckpt != nil {
		errs = append(errs, s.ckpt.close())
	}
	if s.snaps != nil {
		s.snaps.close()
	}
	if s.sdb != nil {
		errs = append(errs, s.sdb.Close())
	}
	if s.rd.q != nil {
		s.rd.q.close()
	}
	if s.rdb != nil {
		errs = append(errs, s.rdb.Close())
	}
	if s.w != nil {
		s.w.close()
		errs = append(errs, s.w.conn.Close())
		s.w = nil
	}
	if s.wdb != nil {
		// The last connection to close checkpoints the WAL into the
		// database file and removes the -wal file.
		errs = append(errs, s.wdb.Close())
	}
	if s.lock != nil {
		errs = append(errs, s.lock.release())
	}
	return errors.Join(errs...)
}

// The read methods of Store read the last committed state through the
// reader pool; RecordByKey, the lookup path, through the snapshot readers
// (snapshot.go), which see this process's writes as soon as they are
// acknowledged and another process's within maxSnapshotAge.

func (s *Store) RecordByKey(ctx context.Context, key string) (resolver.Record, resolver.Role, error) {
	return s.snaps.recordByKey(ctx, key)
}
func (s *Store) Record(ctx context.Context, id int64) (resolver.Record, error) {
	return s.rd.Record(ctx, id)
}
func (s *Store) Keys(ctx context.Context, recordID int64) ([]resolver.Key, error) {
	return s.rd.Keys(ctx, recordID)
}
func (s *Store) RecordsByLocation(ctx context.Context, locKey string, after int64, limit int, withdrawn bool) ([]resolver.Record, error) {
	return s.rd.RecordsByLocation(ctx, locKey, after, limit, withdrawn)
}
func (s *Store) Records(ctx context.Context, after int64, limit int) ([]resolver.Record, error) {
	return s.rd.Records(ctx, after, limit)
}
func (s *Store) StaleKeys(ctx context.Context, version int, after string, limit int) ([]resolver.Key, error) {
	return s.rd.StaleKeys(ctx, version, after, limit)
}
func (s *Store) Predecessors(ctx context.Context, keys []string, after int64, limit int) ([]resolver.RecordName, error) {
	return s.rd.Predecessors(ctx, keys, after, limit)
}
func (s *Store) StaleSuccessors(ctx context.Context, version int, after int64, limit int) ([]resolver.Record, error) {
	return s.rd.StaleSuccessors(ctx, version, after, limit)
}
func (s *Store) DuplicateLocations(ctx context.Context, after string, limit int, withdrawn bool) ([]resolver.Duplicate, error) {
	return s.rd.DuplicateLocations(ctx, after, limit, withdrawn)
}
func (s *Store) Authority(ctx context.Context, id int64) (resolver.Authority, error) {
	return s.rd.Authority(ctx, id)
}
func (s *Store) Authorities(ctx context.Context) ([]resolver.Authority, error) {
	return s.rd.Authorities(ctx)
}
func (s *Store) TokenByHash(ctx context.Context, hash []byte) (resolver.Token, error) {
	return s.rd.TokenByHash(ctx, hash)
}
func (s *Store) Tokens(ctx context.Context, authorityID int64) ([]resolver.Token, error) {
	return s.rd.Tokens(ctx, authorityID)
}
func (s *Store) Rules(ctx context.Context) ([]resolver.Rule, error) { return s.rd.Rules(ctx) }
func (s *Store) History(ctx context.Context, recordID, after int64, limit int) ([]resolver.Entry, error) {
	return s.rd.History(ctx, recordID, after, limit)
}
func (s *Store) HistoryBefore(ctx context.Context, recordID, before int64, until time.Time, limit int) ([]resolver.Entry, error) {
	return s.rd.HistoryBefore(ctx, recordID, before, until, limit)
}
func (s *Store) Log(ctx context.Context, after int64, limit int) ([]resolver.Entry, error) {
	return s.rd.Log(ctx, after, limit)
}
func (s *Store) Head(ctx context.Context) (resolver.Entry, error) { return s.rd.Head(ctx) }
func (s *Store) Setting(ctx context.Context, name string) (string, error) {
	return s.rd.Setting(ctx, name)
}

var _ resolver.Store = (*Store)(nil)
