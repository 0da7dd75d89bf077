package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/internal/pgtest"
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
