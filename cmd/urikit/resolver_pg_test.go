package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/internal/pgtest"
	"github.com/urikit/urikit/resolver/postgres"
)

// TestResolverPostgres: the commands on a PostgreSQL database (URIKIT_DB
// and --db), and urikit serve on it with a streaming replica for reads
// (--read-db), on a throwaway cluster on loopback.
func TestResolverPostgres(t *testing.T) {
	hermetic(t)
	cluster := pgtest.Start(t, pgtest.Options{})
	dsn := cluster.NewDB(t)
	t.Setenv(envDB, dsn)

	out, _ := cli(t, exitOK, "migrate")
	if !strings.Contains(out, "PostgreSQL schema version") || !strings.Contains(out, "0 re-keyed") {
		t.Fatalf("migrate: %s", out)
	}
	if out, _ := cli(t, exitOK, "migrate"); !strings.Contains(out, "PostgreSQL schema version "+strconv.Itoa(postgres.SchemaVersion)+", up to date") {
		t.Fatalf("migrate again: %s", out)
	}
	if _, errs := cli(t, exitOK, "authority", "add", "Example", "urn:example:"); errs != "" {
		t.Fatalf("authority add on the current schema: stderr %q", errs)
	}
	// Back to schema 1, as an older urikit left it: each command that
	// opens the database migrates it, as serve would, and says so in one
	// line on standard error; then, on the current schema, nothing more
	// than it says anyway.
	pgBackToSchema1(t, dsn)
	in := filepath.Join(t.TempDir(), "in.jsonl")
	withdrawn := genRecords(t, in, 3000)
	out, errs := cli(t, exitOK, "import", in, "--quiet")
	if !strings.Contains(out, "imported 3,000 records into the database ") {
		t.Fatalf("import: %s", out)
	}
	if rest := wantMigrated(t, "import", errs, "PostgreSQL", postgres.SchemaVersion); rest != "" {
		t.Fatalf("import's stderr: %q", errs)
	}
	orig, _ := os.ReadFile(in)
	for _, migrated := range []bool{false, true, false} {
		if migrated {
			pgBackToSchema1(t, dsn)
		}
		exp, errs := cli(t, exitOK, "export", "--db", dsn)
		if strings.Count(exp, "\n") != 3000 || strings.Count(exp, `"status":"withdrawn"`) != withdrawn {
			t.Fatalf("export: %d lines", strings.Count(exp, "\n"))
		}
		if exp != string(orig) {
			t.Fatal("the export of the database differs from the file imported")
		}
		if migrated {
			errs = wantMigrated(t, "export", errs, "PostgreSQL", postgres.SchemaVersion)
		}
		if errs != "urikit export: 3,000 records as jsonl to standard output\n" {
			t.Fatalf("export's stderr (schema migrated: %v): %q", migrated, errs)
		}
	}
	for _, migrated := range []bool{true, false} {
		if migrated {
			pgBackToSchema1(t, dsn)
		}
		out, errs := cli(t, exitOK, "lookup", "--db", dsn, "urn:example:alias-0000013")
		if !strings.Contains(out, "urn:example:rec-0000013") {
			t.Fatalf("lookup: %s", out)
		}
		if migrated {
			errs = wantMigrated(t, "lookup", errs, "PostgreSQL", postgres.SchemaVersion)
		}
		if errs != "" {
			t.Fatalf("lookup's stderr (schema migrated: %v): %q", migrated, errs)
		}
	}
	// verify checks as before on the migrated database (rows written
	// under schema 1 hold every value whole), after the notice; but the
	// schema migrations leave the successor keys of the withdrawn
	// records to urikit migrate, which verify says.
	pgBackToSchema1(t, dsn)
	_, errs = cli(t, exitInvalid, "verify")
	if rest := wantMigrated(t, "verify", errs, "PostgreSQL", postgres.SchemaVersion); !strings.Contains(rest, "holds no successor key for its successor") ||
		!strings.Contains(rest, "urikit migrate computes it") {
		t.Fatalf("verify before urikit migrate computed the successor keys: stderr %q", errs)
	}
	out, _ = cli(t, exitOK, "migrate")
	if want := fmt.Sprintf("successor keys: %d stored under older rules or not computed, %d re-keyed", withdrawn, withdrawn); !strings.Contains(out, want) {
		t.Fatalf("migrate: %s\nwant %q", out, want)
	}
	out, errs = cli(t, exitOK, "verify")
	if !strings.HasPrefix(out, "history verified") || errs != "" {
		t.Fatalf("verify: %s\nstderr: %s", out, errs)
	}
	if o, errs := cli(t, exitOK, "verify"); !strings.HasPrefix(o, "history verified") || errs != "" {
		t.Fatalf("verify: %s\nstderr: %s", o, errs)
	}

	// serve --db with a replica for reads: a write's answer carries a
	// position, and a read that presents it sees the write.
	rep := cluster.Replica(t)
	u, _ := url.Parse(dsn)
	repDSN := rep.DSN(strings.TrimPrefix(u.Path, "/"))
	srv := startServerArgs(t, []string{"--db", dsn, "--read-db", repDSN})
	if srv.Token == "" {
		t.Fatalf("no admin token printed on the first start on this database:\n%s", srv.Out)
	}
	code, h, _ := get(t, srv.URL+"/uri-res/N2L?urn:example:rec-0000042")
	if code != 303 || h.Get("Location") != "https://example.org/items/42" {
		t.Fatalf("N2L through the replica: %d %v", code, h)
	}
	o, _ := cli(t, exitOK, "authority", "token", "add", "1", "--server", srv.URL, "--token", srv.Token)
	mtok := tokenIn(t, o)
	req, _ := http.NewRequest("PUT", srv.URL+"/api/v1/names/urn:example:fresh", strings.NewReader(`{"locations":[{"url":"https://example.org/fresh"}]}`))
	req.Header.Set("Authorization", "Bearer "+mtok)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	pos := res.Header.Get("Urikit-Position")
	if res.StatusCode != 201 || pos == "" || strings.Trim(pos, "0123456789") != "" {
		t.Fatalf("PUT: %d, position %q", res.StatusCode, pos)
	}
	req, _ = http.NewRequest("GET", srv.URL+"/api/v1/names/urn:example:fresh", nil)
	req.Header.Set("Urikit-Position", pos)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "https://example.org/fresh") {
		t.Fatalf("read your write: %d %s", res.StatusCode, body)
	}
	req.Header.Set("Urikit-Position", "v42")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 400 {
		t.Fatalf("a position not given by this resolver: %d", res.StatusCode)
	}
	if err := srv.Stop(t); err != nil {
		t.Fatalf("serve: %v\n%s", err, srv.Log)
	}
	// A second start on the same database prints no token.
	again := startServerArgs(t, []string{"--db", dsn})
	if again.Token != "" {
		t.Fatalf("a token again:\n%s", again.Out)
	}
}

// pgBackToSchema1 takes the database at dsn back to schema 1, as the last
// build of that schema would have left it: without schema 3's successor
// keys (and schema 4's indexes of them), which urikit migrate computes
// again; the values schema 2 leaves NULL
// (because they repeat another column) written out whole, as schema 1
// stored them, and the columns NOT NULL again.
func pgBackToSchema1(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// Schema 3's columns (and schema 4's indexes of them) go first, then
	// schema 2's NULLs.
	_, err = conn.Exec(ctx, `DELETE FROM schema_migrations WHERE version >= 2;
		ALTER TABLE records DROP COLUMN IF EXISTS successor_key, DROP COLUMN IF EXISTS successor_version;
		UPDATE records r SET key = `+postgresColKey+`, loc_labels = `+postgresColLocLabels+`, loc_keys = `+postgresColLocKeys+`
			WHERE r.key IS NULL OR r.loc_labels IS NULL OR r.loc_keys IS NULL;
		UPDATE keys SET spelling = key WHERE spelling IS NULL;
		ALTER TABLE records ALTER COLUMN key SET NOT NULL, ALTER COLUMN loc_labels SET NOT NULL, ALTER COLUMN loc_keys SET NOT NULL;
		ALTER TABLE keys ALTER COLUMN spelling SET NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
}

// What a read of schema 2 puts back in place of each NULL (the col…
// constants of resolver/postgres/read.go).
const (
	postgresColKey       = `coalesce(r.key, r.urn COLLATE "C")`
	postgresColLocLabels = `coalesce(r.loc_labels, array_fill(''::text, ARRAY[coalesce(cardinality(r.loc_urls), 0)]))`
	postgresColLocKeys   = `coalesce(r.loc_keys, r.loc_urls COLLATE "C")`
)

func TestRedactDSN(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@db.example:5432/urikit?sslmode=require": "postgres://u:xxxxx@db.example:5432/urikit?sslmode=require",
		"postgres://u@db.example/urikit?password=secret":             "postgres://u@db.example/urikit?password=xxxxx",
		"host=db user=u password=secret dbname=urikit":               "host=db user=u password=xxxxx dbname=urikit",
		"host=db password='a b' dbname=urikit":                       "host=db password=xxxxx dbname=urikit",
		"postgres://db.example/urikit":                               "postgres://db.example/urikit",
	} {
		if got := redactDSN(in); got != want {
			t.Errorf("redactDSN(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzRedactDSN: a password written in a URL's user information or as a
// password= setting never survives redaction, whatever surrounds it.
func FuzzRedactDSN(f *testing.F) {
	for _, s := range []string{"postgres://u:%s@db/x", "host=db password=%s dbname=x", "postgres://db/x?password=%s&sslmode=disable",
		"postgresql://u:%s@[::1]:5432/x", "user=u password = %s"} {
		f.Add(s, "s3cret")
	}
	f.Fuzz(func(t *testing.T, format, pw string) {
		if strings.Count(format, "%s") != 1 || strings.Contains(format, "%!") || len(pw) < 4 {
			return
		}
		for _, c := range pw {
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
				return
			}
		}
		in := strings.Replace(format, "%s", pw, 1)
		out := redactDSN(in) // never panics, whatever the input
		if strings.Contains(out, pw) && !strings.Contains(strings.Replace(in, pw, "", 1), pw) && carriesPassword(in, pw) {
			t.Fatalf("redactDSN(%q) = %q keeps the password", in, out)
		}
	})
}

// carriesPassword reports whether pw stands where a DSN keeps its
// password: right after "password=" (spaces allowed around "="), or
// between "://user:" and "@" of a URL that parses.
func carriesPassword(dsn, pw string) bool {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p == pw {
			return true
		}
		if u.Query().Get("password") == pw {
			return true
		}
	}
	return dsnPassword.FindStringSubmatch(dsn) != nil && strings.Contains(dsnPassword.FindStringSubmatch(dsn)[2], pw)
}

// TestImportTwoBatchesAtOnceOnPostgres: on PostgreSQL an import writes two
// batches at once, one storing its records while the one before commits,
// and the outcome is still that of the file's order: a name written again
// two lines on has the later row's locations, a name withdrawn and then
// given again is refused, an alias taken by an earlier row is refused; the
// many batches after them are all written, and the history verifies.
func TestImportTwoBatchesAtOnceOnPostgres(t *testing.T) {
	dsn := exampleDB(t)
	var b strings.Builder
	for _, l := range []string{ // --batch 2: lines 1–2, 3–4, …
		`{"urn":"urn:example:a","locations":[{"url":"https://example.org/a/1"}]}`,
		`{"urn":"urn:example:b","locations":[{"url":"https://example.org/b"}]}`,
		`{"urn":"urn:example:c","locations":[{"url":"https://example.org/c"}]}`,
		`{"urn":"URN:EXAMPLE:a","locations":[{"url":"https://example.org/a/2"}]}`, // a again, the batch before's
		`{"urn":"urn:example:d","locations":[{"url":"https://example.org/d"}],"status":"withdrawn","reason":"gone"}`,
		`{"urn":"urn:example:e","locations":[{"url":"https://example.org/e"}]}`,
		`{"urn":"urn:example:d","locations":[{"url":"https://example.org/d/2"}]}`,                           // 7: withdrawn the batch before
		`{"urn":"urn:example:f","aliases":["urn:example:c"],"locations":[{"url":"https://example.org/f"}]}`, // 8: c's name
	} {
		b.WriteString(l + "\n")
	}
	const more = 400
	for i := range more {
		fmt.Fprintf(&b, `{"urn":"urn:example:n-%04d","locations":[{"url":"https://example.org/n/%d"}]}`+"\n", i, i)
	}
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs := cli(t, exitInvalid, "import", "--db", dsn, "--batch", "2", "--quiet", in)
	if !strings.Contains(out, fmt.Sprintf("imported %d records", 6+more)) || !strings.Contains(out, "1 withdrawn; 2 bad rows skipped") {
		t.Fatalf("import: %s%s", out, errs)
	}
	if !strings.Contains(errs, "line 7: ") || !strings.Contains(errs, "line 8: ") || strings.Count(errs, "(skipped)") != 2 {
		t.Fatalf("import's stderr: %s", errs)
	}
	want := map[string]string{
		"urn:example:a": "https://example.org/a/2",
		"urn:example:d": "withdrawn",
		"urn:example:f": "no record for urn:example:f",
	}
	for name, w := range want {
		code := exitOK
		if strings.HasPrefix(w, "no record") {
			code = exitInvalid
		}
		out, errs := cli(t, code, "lookup", "--db", dsn, name)
		if !strings.Contains(out+errs, w) {
			t.Errorf("lookup %s: %s%s", name, out, errs)
		}
	}
	if out, _ := cli(t, exitOK, "verify", "--db", dsn); !strings.Contains(out, fmt.Sprintf("%d records", 5+more)) {
		t.Fatalf("verify: %s", out)
	}
}
