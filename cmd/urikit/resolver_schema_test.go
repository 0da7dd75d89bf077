package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver/sqlite"
)

// schemaV1 is a data directory's database written by the last build of
// schema version 1 (resolver/sqlite/migrate_test.go says how it was made).
var schemaV1 = filepath.Join("..", "..", "resolver", "sqlite", "testdata", "schema-v1", sqlite.FileName)

// dataAtSchemaV1 returns a new data directory holding a copy of schemaV1.
func dataAtSchemaV1(t *testing.T) string {
	t.Helper()
	db, err := os.ReadFile(schemaV1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, sqlite.FileName), db, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// wantMigrated checks what cmd printed on standard error on opening a
// store at schema 1 (backend "SQLite" or "PostgreSQL", latest the version
// this build writes): its first line, and only that one, says that the
// schema was migrated. It returns the rest, what cmd says anyway.
func wantMigrated(t *testing.T, cmd, errs, backend string, latest int) string {
	t.Helper()
	prefix := "urikit " + cmd + ": " + backend + " schema migrated from version 1 to " + strconv.Itoa(latest)
	first, rest, _ := strings.Cut(errs, "\n")
	if !strings.HasPrefix(first, prefix) || strings.Count(errs, "schema migrated") != 1 {
		t.Fatalf("urikit %s's stderr on a store at schema 1: %q, want one line starting %q", cmd, errs, prefix)
	}
	return rest
}

// TestResolverSchemaNoticeData: every command that opens a data directory
// whose database an older build left at schema 1 migrates it and says so
// on standard error, in one line; on the migrated directory, and on one it
// creates, it says nothing there.
func TestResolverSchemaNoticeData(t *testing.T) {
	hermetic(t)
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"urn":"urn:example:imported","locations":[{"url":"https://example.org/imported"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd  string // as the command names itself in its messages
		args []string
		out  string // in its standard output
		exit int
	}{
		{"lookup", []string{"lookup", "urn:example:Mixed-Case"}, "https://example.org/mixed", exitOK},
		{"export", []string{"export"}, `"urn":"urn:example:batch:039"`, exitOK},
		{"register", []string{"register", "urn:example:new", "https://example.org/new"}, "urn:example:new", exitOK},
		{"withdraw", []string{"withdraw", "urn:example:batch:001"}, "withdrawn", exitOK},
		{"duplicates", []string{"duplicates", "--json"}, `"urns":`, exitOK},
		{"authority list", []string{"authority", "list"}, "Fixture Library", exitOK},
		{"authority token add", []string{"authority", "token", "add", "2", "again"}, "token", exitOK},
		{"rules list", []string{"rules", "list"}, "urn:nbn:ch:", exitOK},
		{"rules add", []string{"rules", "add", "urn:nbn:at:", "https://resolver.example.at/"}, "urn:nbn:at:", exitOK},
		// The fixture holds keys written behind the history's back on
		// purpose (TestMakeSchemaFixture): verify finds them, after the
		// notice.
		{"verify", []string{"verify"}, "", exitInvalid},
		{"import", []string{"import", in, "--quiet"}, "imported 1 record", exitOK},
	} {
		t.Run(strings.ReplaceAll(tc.cmd, " ", "_"), func(t *testing.T) {
			data := dataAtSchemaV1(t)
			args := slices.Concat(tc.args, []string{"--data", data})
			out, errs := cli(t, tc.exit, args...)
			rest := wantMigrated(t, tc.cmd, errs, "SQLite", sqlite.Latest)
			if !strings.Contains(out, tc.out) {
				t.Fatalf("urikit %s: stdout %q, want %q in it", tc.cmd, out, tc.out)
			}
			switch tc.cmd {
			case "register", "withdraw", "import", "authority token add", "rules add":
				return // a write, not to be done twice
			}
			// Again, on the store now at this build's schema: what it
			// says anyway (export's count, verify's finding), no more.
			if _, errs := cli(t, tc.exit, args...); errs != rest {
				t.Fatalf("urikit %s on a store at the current schema: stderr %q, want %q", tc.cmd, errs, rest)
			}
		})
	}

	// migrate reports the migration on its standard output, as before,
	// and not a second time on standard error.
	data := dataAtSchemaV1(t)
	out, errs := cli(t, exitOK, "migrate", "--data", data)
	if !strings.HasPrefix(out, "schema: SQLite schema migrated from version 1 to "+strconv.Itoa(sqlite.Latest)) || errs != "" {
		t.Fatalf("migrate: stdout %q, stderr %q", out, errs)
	}

	// A data directory created is no migration.
	fresh := filepath.Join(t.TempDir(), "fresh")
	if _, errs := cli(t, exitOK, "authority", "add", "Example", "urn:example:", "--data", fresh); errs != "" {
		t.Fatalf("authority add on a new directory: stderr %q", errs)
	}
	if _, errs := cli(t, exitOK, "register", "urn:example:a", "https://example.org/a", "--data", fresh); errs != "" {
		t.Fatalf("register: stderr %q", errs)
	}
}
