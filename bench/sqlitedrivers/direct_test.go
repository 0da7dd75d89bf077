package sqlitedrivers

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// The same workload through ncruces/go-sqlite3's own API (no database/sql):
// what a store written against that API would cost.

func openDirect(b testing.TB, path string) *sqlite3.Conn {
	c, err := sqlite3.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range []string{"journal_mode=wal", "synchronous=full", "busy_timeout=5000", "foreign_keys=on", "cache_size=-8192"} {
		if err := c.Exec("PRAGMA " + p); err != nil {
			b.Fatal(err)
		}
	}
	if err := c.Exec(schema); err != nil {
		b.Fatal(err)
	}
	return c
}

func BenchmarkLookupDirect(b *testing.B) {
	b.Run("driver=ncruces-direct/goroutines=1", func(b *testing.B) {
		p := fixture(b, drivers[1])
		c := openDirect(b, p)
		defer c.Close()
		st, _, err := c.Prepare(lookupQuery)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		rng := rand.New(rand.NewPCG(1, 2))
		b.ReportAllocs()
		b.ResetTimer()
		cpu0 := cpuTime()
		for range b.N {
			var r row
			st.BindText(1, urnOf(1+rng.IntN(records)))
			if !st.Step() {
				b.Fatal("no row", st.Err())
			}
			r.role, r.id, r.urn, r.key = st.ColumnText(0), st.ColumnInt64(1), st.ColumnText(2), st.ColumnText(3)
			r.status, r.redirect, r.successor, r.reason = st.ColumnText(4), st.ColumnInt64(5), st.ColumnText(6), st.ColumnText(7)
			r.auth, r.created, r.updated, r.body = st.ColumnInt64(8), st.ColumnInt64(9), st.ColumnInt64(10), st.ColumnBlob(11, nil)
			if err := st.Reset(); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu0)
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
	})
}

func BenchmarkImportDirect(b *testing.B) {
	b.Run("driver=ncruces-direct", func(b *testing.B) {
		c := openDirect(b, filepath.Join(b.TempDir(), "import.db"))
		defer c.Close()
		prep := func(q string) *sqlite3.Stmt {
			s, _, err := c.Prepare(q)
			if err != nil {
				b.Fatal(err)
			}
			return s
		}
		rec := prep(`INSERT INTO records (urn, key, status, redirect, successor, reason, authority_id, created, updated, body) VALUES (?,?,'active',303,'','',1,?,?,?)`)
		key := prep(`INSERT INTO keys (key, spelling, record_id, role, version) VALUES (?,?,?,'name',1)`)
		loc := prep(`INSERT OR IGNORE INTO locations (key, record_id) VALUES (?,?)`)
		hist := prep(`INSERT INTO history (seq, time, action, subject, record_id, authority_id, actor, data, prev, hash) VALUES (?,?,'name.create',?,?,1,'operator',?,?,?)`)
		next, prev := 0, []byte{}
		b.ReportAllocs()
		b.ResetTimer()
		cpu0 := cpuTime()
		for range b.N {
			tx, err := c.BeginImmediate()
			if err != nil {
				b.Fatal(err)
			}
			for range batch {
				next++
				i := next
				u := urnOf(i)
				now := time.Now().UnixMicro()
				rec.BindText(1, u)
				rec.BindText(2, u)
				rec.BindInt64(3, now)
				rec.BindInt64(4, now)
				rec.BindBlob(5, body(i))
				if err := rec.Exec(); err != nil {
					b.Fatal(err)
				}
				id := c.LastInsertRowID()
				key.BindText(1, u)
				key.BindText(2, u)
				key.BindInt64(3, id)
				if err := key.Exec(); err != nil {
					b.Fatal(err)
				}
				loc.BindText(1, fmt.Sprintf("https://example.org/items/%08d", i))
				loc.BindInt64(2, id)
				if err := loc.Exec(); err != nil {
					b.Fatal(err)
				}
				data := fmt.Appendf(nil, `{"urn":%q,"aliases":[],"locations":[{"url":"https://example.org/items/%08d"}],"metadata":{"title":"Item %d"},"status":"active","redirect":303,"authority":1,"created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}`, u, i, i)
				h := sha256.Sum256(append(append([]byte{}, prev...), data...))
				hist.BindInt64(1, int64(i))
				hist.BindInt64(2, now)
				hist.BindText(3, u)
				hist.BindInt64(4, id)
				hist.BindBlob(5, data)
				hist.BindBlob(6, prev)
				hist.BindBlob(7, h[:])
				if err := hist.Exec(); err != nil {
					b.Fatal(err)
				}
				prev = h[:]
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu0)
		b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "records/s")
	})
}
