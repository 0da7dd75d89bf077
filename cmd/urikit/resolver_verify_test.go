package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/internal/pgtest"
	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/resolver/sqlite"
)

// TestVerifyState: urikit verify on a directory of 3,000 imported records
// checks the records and keys against the history, and an edit made with
// SQL to a record (the history left as it was, so the chain still holds)
// is exit status 1, naming the record and what differs: on a data
// directory (SQLite) and on PostgreSQL.
func TestVerifyState(t *testing.T) {
	hermetic(t)
	in := filepath.Join(t.TempDir(), "in.jsonl")
	genRecords(t, in, 3000)
	verified := regexp.MustCompile(`(?m)^state verified: 3000 records and 3\d\d\d keys, as the history says$`)
	check := func(t *testing.T, where []string, edit func(), want ...string) {
		t.Helper()
		out, _ := cli(t, exitOK, append([]string{"verify"}, where...)...)
		if !strings.HasPrefix(out, "history verified: ") || !verified.MatchString(out) {
			t.Fatalf("verify: %s", out)
		}
		edit()
		_, errs := cli(t, exitInvalid, append([]string{"verify"}, where...)...)
		for _, w := range append([]string{"urikit verify: record ", "is not what the history says", "the history (", "entries) verified"}, want...) {
			if !strings.Contains(errs, w) {
				t.Errorf("verify after the edit: stderr lacks %q:\n%s", w, errs)
			}
		}
	}

	t.Run("SQLite", func(t *testing.T) {
		data := filepath.Join(t.TempDir(), "data")
		cli(t, exitOK, "authority", "add", "Example", "urn:example:", "--data", data)
		cli(t, exitOK, "import", in, "--quiet", "--data", data)
		check(t, []string{"--data", data}, func() {
			db, err := sql.Open("sqlite", filepath.Join(data, sqlite.FileName))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.ExecContext(context.Background(), `UPDATE records SET redirect = 307 WHERE urn = 'urn:example:rec-0001234'`); err != nil {
				t.Fatal(err)
			}
		}, "urn:example:rec-0001234", "redirect is 307 in the records table but 303 in history entry ")
	})

	t.Run("PostgreSQL", func(t *testing.T) {
		cluster := pgtest.Start(t, pgtest.Options{})
		dsn := cluster.NewDB(t)
		cli(t, exitOK, "authority", "add", "Example", "urn:example:", "--db", dsn)
		cli(t, exitOK, "import", in, "--quiet", "--db", dsn)
		check(t, []string{"--db", dsn}, func() {
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			if _, err := conn.Exec(ctx, `UPDATE records SET loc_urls[1] = 'https://evil.example/' WHERE urn = 'urn:example:rec-0002345'`); err != nil {
				t.Fatal(err)
			}
		}, "urn:example:rec-0002345", `locations[0].url is "https://evil.example/" in the records table but "https://example.org/items/2345"`)
	})
}

// TestVerifyAccessAndIndex: urikit verify says what it checked besides
// records and keys (the location index, the authorities, tokens and
// rules); a token inserted with SQL, and a URL added to a record's rows
// of the location index, are exit status 1 naming the token or the
// record, on SQLite and on PostgreSQL. The forged token's hash is never
// printed.
func TestVerifyAccessAndIndex(t *testing.T) {
	hermetic(t)
	in := filepath.Join(t.TempDir(), "in.jsonl")
	genRecords(t, in, 300)
	hash := fmt.Sprintf("%x", resolver.HashToken("urikit_forged"))
	run := func(t *testing.T, where []string, exec func(sql string), hashLit, now string) {
		t.Helper()
		cli(t, exitOK, append([]string{"authority", "add", "Example", "urn:example:"}, where...)...)
		cli(t, exitOK, append([]string{"rules", "add", "urn:nbn:de:", "https://resolver.example/"}, where...)...)
		cli(t, exitOK, append([]string{"import", in, "--quiet"}, where...)...)
		verified := func() {
			t.Helper()
			out, _ := cli(t, exitOK, append([]string{"verify"}, where...)...)
			for _, w := range []string{
				"state verified: 300 records and 324 keys, as the history says\n", // 300 names and 24 aliases
				"location index verified: 330 rows, the keys of the records' locations\n",
				"access verified: 1 authority, 1 token and 1 delegation rule, as the history says\n",
			} {
				if !strings.Contains(out, w) {
					t.Errorf("verify: stdout lacks %q:\n%s", w, out)
				}
			}
		}
		refused := func(want *regexp.Regexp) {
			t.Helper()
			_, errs := cli(t, exitInvalid, append([]string{"verify"}, where...)...)
			if !want.MatchString(errs) {
				t.Errorf("verify: stderr does not match %s:\n%s", want, errs)
			}
			if strings.Contains(errs, hash) || strings.Contains(errs, "urikit_forged") {
				t.Errorf("verify shows the token's hash:\n%s", errs)
			}
		}
		verified()
		exec(`INSERT INTO tokens (authority_id, label, hash, created) SELECT id, 'mallory', ` + hashLit + `, ` + now + ` FROM authorities`)
		refused(regexp.MustCompile(`^urikit verify: token \d+ of authority \d+ is not what the history says: the tokens table holds it \(label "mallory", valid\), ` +
			`but no history entry created it: whoever has its secret acts for authority \d+; the history \(\d+ entries\) verified\n$`))
		exec(`DELETE FROM tokens WHERE label = 'mallory'`)
		verified()
		exec(`INSERT INTO locations (key, record_id) SELECT 'https://evil.example/', id FROM records WHERE urn = 'urn:example:rec-0000123'`)
		refused(regexp.MustCompile(`^urikit verify: record \d+, urn:example:rec-0000123, is not what the history says: ` +
			`the location index holds "https://evil.example/" for it, which is the key of none of its locations: L2N and L2L answer it for a URL it does not list; ` +
			`the history \(\d+ entries\) verified, and the 300 records before it\n$`))
	}

	t.Run("SQLite", func(t *testing.T) {
		data := filepath.Join(t.TempDir(), "data")
		run(t, []string{"--data", data}, func(q string) {
			db, err := sql.Open("sqlite", filepath.Join(data, sqlite.FileName))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.ExecContext(context.Background(), q); err != nil {
				t.Fatal(err)
			}
		}, "X'"+hash+"'", "0")
	})

	t.Run("PostgreSQL", func(t *testing.T) {
		cluster := pgtest.Start(t, pgtest.Options{})
		dsn := cluster.NewDB(t)
		run(t, []string{"--db", dsn}, func(q string) {
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}, `'\x`+hash+`'::bytea`, "now()")
	})
}

// TestVerifyAdminToken: the admin token that serve generates on first
// start is pinned by a history entry, so urikit verify finds its hash
// replaced or removed with SQL (exit status 1, neither hash shown); a
// directory whose token an older build generated (a hash, no entry) gets
// a note, not a failure.
func TestVerifyAdminToken(t *testing.T) {
	hermetic(t)
	ctx := context.Background()
	forged := fmt.Sprintf("%x", resolver.HashToken("urikit_forged"))
	exec := func(t *testing.T, data, q string) {
		t.Helper()
		db, err := sql.Open("sqlite", filepath.Join(data, sqlite.FileName))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		res, err := db.ExecContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			t.Fatalf("%s: %d rows, %v", q, n, err)
		}
	}

	data := filepath.Join(t.TempDir(), "data")
	cli(t, exitOK, "authority", "add", "Example", "urn:example:", "--data", data)
	st := openData(t, data)
	tok, err := resolver.New(st, resolver.Options{}).EnsureAdminToken(ctx)
	if err != nil || tok == "" {
		t.Fatalf("EnsureAdminToken: %q %v", tok, err)
	}
	stored := fmt.Sprintf("%x", resolver.HashToken(tok))
	out, _ := cli(t, exitOK, "verify", "--data", data)
	if !strings.Contains(out, "access verified: 1 authority, 1 token, 0 delegation rules and the admin token, as the history says\n") ||
		strings.Contains(out, "note:") {
		t.Fatalf("verify: %s", out)
	}
	refused := func(want *regexp.Regexp) {
		t.Helper()
		_, errs := cli(t, exitInvalid, "verify", "--data", data)
		if !want.MatchString(errs) || strings.Contains(errs, stored) || strings.Contains(errs, forged) {
			t.Errorf("verify: stderr does not match %s (or shows a hash):\n%s", want, errs)
		}
	}
	exec(t, data, `UPDATE settings SET value = '`+forged+`' WHERE name = '`+resolver.AdminTokenSetting+`'`)
	refused(regexp.MustCompile(`^urikit verify: the admin token is not what the history says: its hash in the settings is not the one ` +
		`history entry 3 recorded: it accepts a secret other than the one issued; the history \(3 entries\) verified\n$`))
	exec(t, data, `DELETE FROM settings WHERE name = '`+resolver.AdminTokenSetting+`'`)
	refused(regexp.MustCompile(`^urikit verify: the admin token is not what the history says: history entry 3 recorded its hash, ` +
		`but the settings hold none: the next start would issue a new admin token to whoever starts the server; the history \(3 entries\) verified\n$`))

	// An older build's directory: the hash and no entry.
	old := filepath.Join(t.TempDir(), "old")
	cli(t, exitOK, "authority", "add", "Example", "urn:example:", "--data", old)
	exec(t, old, `INSERT INTO settings (name, value) VALUES ('`+resolver.AdminTokenSetting+`', '`+stored+`')`)
	out, _ = cli(t, exitOK, "verify", "--data", old)
	if !strings.Contains(out, "access verified: 1 authority, 1 token and 0 delegation rules, as the history says\n") ||
		!strings.Contains(out, "note: an admin token's hash is stored, but no history entry records it: an older build generated it, "+
			"or it was written behind the service's back; it is not checked\n") {
		t.Fatalf("verify of an older build's directory: %s", out)
	}
}

// TestVerifyMissingAndEmpty: migrate and verify, which take no --server,
// do not suggest one for a data directory that is not there; verify of a
// store no change was ever made to says so, instead of naming a last
// entry 0 with an empty hash.
func TestVerifyMissingAndEmpty(t *testing.T) {
	hermetic(t)
	missing := filepath.Join(t.TempDir(), "new")
	for _, cmd := range []string{"migrate", "verify"} {
		_, errs := cli(t, exitInvalid, cmd, "--data", missing)
		want := "urikit " + cmd + ": no urikit data directory at " + missing + " (no urikit.db in it): " +
			"pass the data directory of a store with --data DIR, or a PostgreSQL database with --db\n"
		if errs != want {
			t.Errorf("%s on no store: %q, want %q", cmd, errs, want)
		}
	}
	// lookup works through a server too, and says so.
	if _, errs := cli(t, exitInvalid, "lookup", "urn:example:a", "--data", missing); !strings.Contains(errs, "or --server URL for a running server") {
		t.Errorf("lookup on no store: %q", errs)
	}

	empty := filepath.Join(t.TempDir(), "empty")
	code, _, errs := runCLI("", "import", "-", "--data", empty, "--quiet")
	if code != exitOK {
		t.Fatalf("import of nothing: %d %s", code, errs)
	}
	out, _ := cli(t, exitOK, "verify", "--data", empty)
	if !strings.HasPrefix(out, "history verified: no entries yet\nstate verified: 0 records and 0 keys") || strings.Contains(out, "with hash") {
		t.Fatalf("verify of an empty store: %q", out)
	}
}

// TestVerifyTimeGoesBack: a history entry whose time is set with SQL to
// before the time of the entry before it, the later hashes computed again
// so that the chain still links (a history an older build wrote, or one
// edited by hand), is exit status 1 naming both entries, their times and
// what it breaks (as-of lookups), on SQLite and on PostgreSQL; the same
// store verified before the edit.
func TestVerifyTimeGoesBack(t *testing.T) {
	hermetic(t)
	ctx := context.Background()
	in := filepath.Join(t.TempDir(), "in.jsonl")
	genRecords(t, in, 30)
	// run writes the store (the rule's entry, about no record, between the
	// authority's and the records'), sets the rule's entry back a second
	// before the entry before it with update (SQL setting an entry's time,
	// prev and hash; last is set for the last entry), and runs verify.
	run := func(t *testing.T, where []string, open func() resolver.Store, update func(e resolver.Entry, last bool)) {
		t.Helper()
		cli(t, exitOK, append([]string{"authority", "add", "Example", "urn:example:"}, where...)...)
		cli(t, exitOK, append([]string{"rules", "add", "urn:nbn:de:", "https://resolver.example/"}, where...)...)
		cli(t, exitOK, append([]string{"import", in, "--quiet"}, where...)...)
		if out, _ := cli(t, exitOK, append([]string{"verify"}, where...)...); !strings.HasPrefix(out, "history verified: ") {
			t.Fatalf("verify before the edit: %s", out)
		}
		st := open()
		log, err := st.Log(ctx, 0, 1000)
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		at := slices.IndexFunc(log, func(e resolver.Entry) bool { return e.Action == resolver.ActionRuleAdd })
		if at < 1 || len(log) < at+30 {
			t.Fatalf("the rule's entry is %d of %d", at, len(log))
		}
		log[at].Time = log[at-1].Time.Add(-time.Second)
		for i := at; i < len(log); i++ {
			log[i].Prev = log[i-1].Hash
			log[i].Hash = resolver.ChainHash(log[i].Prev, log[i])
			update(log[i], i == len(log)-1)
		}
		_, errs := cli(t, exitInvalid, append([]string{"verify"}, where...)...)
		e, before := log[at], log[at-1]
		want := fmt.Sprintf("urikit verify: history entry %d (rule.add %s at %s) does not fit: its time %s is earlier than the time of entry %d, %s: ",
			e.Seq, e.Subject, e.Time.Format(time.RFC3339), e.Time.Format(time.RFC3339Nano), before.Seq, before.Time.Format(time.RFC3339Nano))
		tail := fmt.Sprintf("; the %d entries before it verified\n", before.Seq)
		if !strings.HasPrefix(errs, want) || !strings.HasSuffix(errs, tail) || !strings.Contains(errs, "as-of lookups") {
			t.Errorf("verify after entry %d was set back: stderr\n%s\nwant it to begin %q, end %q and name as-of lookups", e.Seq, errs, want, tail)
		}
	}

	t.Run("SQLite", func(t *testing.T) {
		data := filepath.Join(t.TempDir(), "data")
		var db *sql.DB
		run(t, []string{"--data", data}, func() resolver.Store {
			st, err := sqlite.Open(ctx, data, sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return st
		}, func(e resolver.Entry, last bool) {
			if db == nil {
				var err error
				if db, err = sql.Open("sqlite", filepath.Join(data, sqlite.FileName)); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Close() })
			}
			if _, err := db.ExecContext(ctx, `UPDATE history SET time = ?, prev = ?, hash = ? WHERE seq = ?`, e.Time.UnixMicro(), e.Prev, e.Hash, e.Seq); err != nil {
				t.Fatal(err)
			}
		})
	})

	t.Run("PostgreSQL", func(t *testing.T) {
		cluster := pgtest.Start(t, pgtest.Options{})
		dsn := cluster.NewDB(t)
		var conn *pgx.Conn
		run(t, []string{"--db", dsn}, func() resolver.Store {
			st, err := postgres.Open(ctx, dsn, postgres.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return st
		}, func(e resolver.Entry, last bool) {
			if conn == nil {
				var err error
				if conn, err = pgx.Connect(ctx, dsn); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { conn.Close(ctx) })
			}
			if _, err := conn.Exec(ctx, `UPDATE log SET time = $1, prev = $2, hash = $3 WHERE seq = $4`, e.Time, e.Prev, e.Hash, e.Seq); err != nil {
				t.Fatal(err)
			}
			if last {
				// The head row holds the last entry's hash, which the
				// next append links to.
				if _, err := conn.Exec(ctx, `UPDATE head SET hash = $1 WHERE seq = $2`, e.Hash, e.Seq); err != nil {
					t.Fatal(err)
				}
			}
		})
	})
}
