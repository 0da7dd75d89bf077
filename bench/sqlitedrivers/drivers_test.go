package sqlitedrivers

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "github.com/ncruces/go-sqlite3/driver"
	_ "modernc.org/sqlite"
)

// records is how many records each driver's lookup fixture holds (issue 9's
// scale); URIKIT_BENCH_RECORDS overrides it for a quick run.
var records = func() int {
	var n int
	if _, err := fmt.Sscan(os.Getenv("URIKIT_BENCH_RECORDS"), &n); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}()

const batch = 1000

type driver struct{ name, sqlName string }

var drivers = []driver{{"modernc", "sqlite"}, {"ncruces", "sqlite3"}}

// The schema resolver/sqlite uses, cut to what the workload touches.
const schema = `
CREATE TABLE IF NOT EXISTS records (
	id INTEGER PRIMARY KEY, urn TEXT NOT NULL, key TEXT NOT NULL,
	status TEXT NOT NULL, redirect INTEGER NOT NULL, successor TEXT NOT NULL,
	reason TEXT NOT NULL, authority_id INTEGER NOT NULL,
	created INTEGER NOT NULL, updated INTEGER NOT NULL, body BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS keys (
	key TEXT PRIMARY KEY, spelling TEXT NOT NULL, record_id INTEGER NOT NULL REFERENCES records(id),
	role TEXT NOT NULL, version INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS keys_record ON keys(record_id);
CREATE TABLE IF NOT EXISTS locations (
	key TEXT NOT NULL, record_id INTEGER NOT NULL REFERENCES records(id),
	PRIMARY KEY (key, record_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS locations_record ON locations(record_id);
CREATE TABLE IF NOT EXISTS history (
	seq INTEGER PRIMARY KEY, time INTEGER NOT NULL, action TEXT NOT NULL,
	subject TEXT NOT NULL, record_id INTEGER NOT NULL, authority_id INTEGER NOT NULL,
	actor TEXT NOT NULL, data BLOB NOT NULL, prev BLOB NOT NULL, hash BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS history_record ON history(record_id, seq) WHERE record_id <> 0;
`

func open(b testing.TB, d driver, path string, conns int) *sql.DB {
	dsn := "file:" + path + "?_pragma=journal_mode(wal)&_pragma=synchronous(full)&_pragma=busy_timeout(5000)&_pragma=foreign_keys(on)&_pragma=cache_size(-8192)&_txlock=immediate"
	db, err := sql.Open(d.sqlName, dsn)
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	if _, err := db.Exec(schema); err != nil {
		b.Fatal(err)
	}
	return db
}

func urnOf(i int) string { return fmt.Sprintf("urn:example:bench:%08d", i) }

// body is a record's compact encoding as resolver/sqlite writes it: one
// location and a small metadata object.
func body(i int) []byte {
	loc := fmt.Sprintf("https://example.org/items/%08d", i)
	meta := fmt.Sprintf(`{"title":"Item %d"}`, i)
	var b []byte
	b = append(b, 1, 0, 1) // version, no aliases, one location
	b = binary.AppendUvarint(b, uint64(len(loc)))
	b = append(b, loc...)
	b = append(b, 0, 0, 0) // no type, no label, key = url
	b = binary.AppendUvarint(b, uint64(len(meta)))
	return append(b, meta...)
}

// importer writes batches of records as PutMany does: per record a row in
// records, keys and locations and one chained history entry.
type importer struct {
	db   *sql.DB
	next int
	prev []byte
}

func (im *importer) batch(ctx context.Context) error {
	tx, err := im.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ins := func(q string) *sql.Stmt { s, _ := tx.PrepareContext(ctx, q); return s }
	rec := ins(`INSERT INTO records (urn, key, status, redirect, successor, reason, authority_id, created, updated, body) VALUES (?,?,'active',303,'','',1,?,?,?)`)
	key := ins(`INSERT INTO keys (key, spelling, record_id, role, version) VALUES (?,?,?,'name',1)`)
	loc := ins(`INSERT OR IGNORE INTO locations (key, record_id) VALUES (?,?)`)
	hist := ins(`INSERT INTO history (seq, time, action, subject, record_id, authority_id, actor, data, prev, hash) VALUES (?,?,'name.create',?,?,1,'operator',?,?,?)`)
	for range batch {
		im.next++
		i := im.next
		u := urnOf(i)
		now := time.Now().UnixMicro()
		res, err := rec.ExecContext(ctx, u, u, now, now, body(i))
		if err != nil {
			return err
		}
		id, _ := res.LastInsertId()
		if _, err := key.ExecContext(ctx, u, u, id); err != nil {
			return err
		}
		if _, err := loc.ExecContext(ctx, fmt.Sprintf("https://example.org/items/%08d", i), id); err != nil {
			return err
		}
		data := fmt.Appendf(nil, `{"urn":%q,"aliases":[],"locations":[{"url":"https://example.org/items/%08d"}],"metadata":{"title":"Item %d"},"status":"active","redirect":303,"authority":1,"created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}`, u, i, i)
		h := sha256.Sum256(append(append([]byte{}, im.prev...), data...))
		if _, err := hist.ExecContext(ctx, i, now, u, id, data, im.prev, h[:]); err != nil {
			return err
		}
		im.prev = h[:]
	}
	return tx.Commit()
}

var (
	fixMu    sync.Mutex
	fixtures = map[string]string{}
)

// fixture returns the path of a database of `records` records written by d,
// built once per run in a temporary directory.
func fixture(b *testing.B, d driver) string {
	fixMu.Lock()
	defer fixMu.Unlock()
	if p, ok := fixtures[d.name]; ok {
		return p
	}
	// URIKIT_BENCH_FIXTURES keeps the fixtures between runs (each takes a
	// minute or two to build); otherwise they go to a fresh directory.
	dir := os.Getenv("URIKIT_BENCH_FIXTURES")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "sqlitedrivers-"); err != nil {
			b.Fatal(err)
		}
	}
	p := filepath.Join(dir, fmt.Sprintf("%s-%d.db", d.name, records))
	if _, err := os.Stat(p); err == nil {
		fixtures[d.name] = p
		return p
	}
	db := open(b, d, p+".tmp", 1)
	defer db.Close()
	im := &importer{db: db, prev: []byte{}}
	start := time.Now()
	for im.next < records {
		if err := im.batch(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	db.Close()
	if err := os.Rename(p+".tmp", p); err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(p)
	b.Logf("%s: fixture of %d records in %v, file %d bytes (%.0f bytes/record)", d.name, records, time.Since(start).Round(time.Millisecond), fi.Size(), float64(fi.Size())/float64(records))
	fixtures[d.name] = p
	return p
}

const lookupQuery = `SELECT k.role, r.id, r.urn, r.key, r.status, r.redirect, r.successor, r.reason, r.authority_id, r.created, r.updated, r.body
FROM keys k JOIN records r ON r.id = k.record_id WHERE k.key = ?`

type row struct {
	role, urn, key, status, successor, reason string
	id, redirect, auth, created, updated      int64
	body                                      []byte
}

func lookup(st *sql.Stmt, key string) (row, error) {
	var r row
	err := st.QueryRow(key).Scan(&r.role, &r.id, &r.urn, &r.key, &r.status, &r.redirect, &r.successor, &r.reason, &r.auth, &r.created, &r.updated, &r.body)
	return r, err
}

// BenchmarkLookup: one point lookup by key per op, random keys over the
// fixture, through a prepared statement; serial and with 4 goroutines on a
// pool of 4 reader connections.
func BenchmarkLookup(b *testing.B) {
	for _, d := range drivers {
		for _, par := range []int{1, 4} {
			b.Run(fmt.Sprintf("driver=%s/goroutines=%d", d.name, par), func(b *testing.B) {
				p := fixture(b, d)
				db := open(b, d, p, par)
				defer db.Close()
				db.Exec(`PRAGMA query_only = on`)
				st, err := db.Prepare(lookupQuery)
				if err != nil {
					b.Fatal(err)
				}
				defer st.Close()
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cpuTime()
				if par == 1 {
					rng := rand.New(rand.NewPCG(1, 2))
					for range b.N {
						if _, err := lookup(st, urnOf(1+rng.IntN(records))); err != nil {
							b.Fatal(err)
						}
					}
				} else {
					b.SetParallelism(par / max(1, runtimeProcs()))
					var seed sync.Mutex
					s := uint64(0)
					b.RunParallel(func(pb *testing.PB) {
						seed.Lock()
						s++
						rng := rand.New(rand.NewPCG(s, 7))
						seed.Unlock()
						for pb.Next() {
							if _, err := lookup(st, urnOf(1+rng.IntN(records))); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				reportCPU(b, cpu0)
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
			})
		}
	}
}

// BenchmarkImport: one op is one transaction of 1000 records, appended to a
// fresh database; synchronous=FULL, so every commit syncs the WAL.
func BenchmarkImport(b *testing.B) {
	for _, d := range drivers {
		b.Run("driver="+d.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "import.db")
			db := open(b, d, path, 1)
			defer db.Close()
			im := &importer{db: db, prev: []byte{}}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				if err := im.batch(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu0)
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "records/s")
			b.StopTimer()
			if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				b.Fatal(err)
			}
			if fi, err := os.Stat(path); err == nil {
				b.ReportMetric(float64(fi.Size())/float64(b.N*batch), "file-bytes/record")
			}
		})
	}
}
