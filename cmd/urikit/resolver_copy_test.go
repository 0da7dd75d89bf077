package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/urikit/urikit/internal/pgtest"
)

var copiedRE = regexp.MustCompile(`the last entry is (\d+), hash ([0-9a-f]+)`)

// TestCopyDataToPostgresAndBack: a data directory moves to PostgreSQL with
// urikit copy, history, tokens, rules and reserved names included, and
// back to a data directory; each copy verifies, ends in the source's
// head, exports the same records, keeps a dropped alias reserved, and
// takes the source's tokens. A server on the source, or a target that is
// not empty, refuses the copy.
func TestCopyDataToPostgresAndBack(t *testing.T) {
	hermetic(t)
	dir := t.TempDir()
	d1 := filepath.Join(dir, "d1")
	out, _ := cli(t, exitOK, "authority", "add", "Example", "urn:example:", "--data", d1)
	maint := tokenIn(t, out)
	srv := startServer(t, d1) // generates the admin token
	admin := srv.Token
	if err := srv.Stop(t); err != nil {
		t.Fatal(err)
	}
	cli(t, exitOK, "rules", "add", "urn:nbn:fi:", "https://fi.example/", "--data", d1)
	in := filepath.Join(dir, "in.jsonl")
	genRecords(t, in, 300)
	cli(t, exitOK, "import", in, "--quiet", "--data", d1)
	first := filepath.Join(dir, "first.jsonl")
	second := filepath.Join(dir, "second.jsonl")
	for p, s := range map[string]string{
		first:  `{"urn":"urn:example:rec","aliases":["urn:example:alias0000020"],"locations":[{"url":"https://example.org/rec"}]}` + "\n",
		second: `{"urn":"urn:example:rec","locations":[{"url":"https://example.org/rec"}]}` + "\n",
	} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cli(t, exitOK, "import", first, "--data", d1)
	cli(t, exitOK, "import", second, "--data", d1)
	exp, _ := cli(t, exitOK, "export", "--data", d1)
	head := headOf(t, d1)

	_, errs := cli(t, exitInvalid, "copy", "--from-data", filepath.Join(dir, "none"), "--to-data", filepath.Join(dir, "d0"))
	if !strings.Contains(errs, "no urikit data directory at ") || !strings.Contains(errs, "--from-data names") {
		t.Fatalf("copy from no data directory: %s", errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "d0")); !os.IsNotExist(err) {
		t.Fatalf("a copy from nothing created the target: %v", err)
	}
	// The same directory, spelled another way: a usage error, not a lock
	// that the copy itself holds.
	if _, errs := cli(t, exitUsage, "copy", "--from-data", d1, "--to-data", d1+"/."); !strings.Contains(errs, "the source and the target are the same store") {
		t.Fatalf("copy into its own source: %s", errs)
	}

	// A server on the source holds its lock: the copy does not start.
	srv = startServer(t, d1)
	cluster := pgtest.Start(t, pgtest.Options{})
	dsn := cluster.NewDB(t)
	_, errs = cli(t, exitInvalid, "copy", "--from-data", d1, "--to-db", dsn)
	if !strings.Contains(errs, "urikit copy: the source: ") {
		t.Fatalf("copy from a served directory: %s", errs)
	}
	if err := srv.Stop(t); err != nil {
		t.Fatal(err)
	}

	out, _ = cli(t, exitOK, "copy", "--from-data", d1, "--to-db", dsn, "--quiet")
	m := copiedRE.FindStringSubmatch(out)
	if m == nil || m[1] != itoa(head) {
		t.Fatalf("copy to PostgreSQL: %s (the source's head is %d)", out, head)
	}
	cli(t, exitOK, "verify", "--db", dsn)
	if got, _ := cli(t, exitOK, "export", "--db", dsn); got != exp {
		t.Fatal("the database's export differs from the data directory's")
	}
	_, errs = cli(t, exitInvalid, "register", "urn:example:alias0000020", "https://other.example/", "--db", dsn)
	if !strings.Contains(errs, "stays reserved") {
		t.Fatalf("register of the dropped alias on the copy: %s", errs)
	}

	// Copied again: not into a store that holds data.
	_, errs = cli(t, exitInvalid, "copy", "--from-data", d1, "--to-db", dsn)
	if !strings.Contains(errs, "the target store is not empty") {
		t.Fatalf("copy into a filled database: %s", errs)
	}

	// Back to a data directory, with what the database holds now.
	d2 := filepath.Join(dir, "d2")
	out, _ = cli(t, exitOK, "copy", "--from-db", dsn, "--to-data", d2)
	if m2 := copiedRE.FindStringSubmatch(out); m2 == nil || m2[1] != m[1] || m2[2] != m[2] {
		t.Fatalf("copy back: %s, the first copy: %s", out, m)
	}
	cli(t, exitOK, "verify", "--data", d2)
	if got, _ := cli(t, exitOK, "export", "--data", d2); got != exp {
		t.Fatal("the export of the copy of the copy differs")
	}

	// The tokens are the source's: the admin token lists the authorities,
	// the maintainer's writes a name, after the copied head.
	srv = startServer(t, d2)
	if srv.Token != "" {
		t.Fatalf("the copy's server generated an admin token: the source's hash was not copied")
	}
	if out, _ := cli(t, exitOK, "authority", "list", "--server", srv.URL, "--token", admin); !strings.Contains(out, "Example") {
		t.Fatalf("authority list with the source's admin token: %s", out)
	}
	cli(t, exitOK, "register", "urn:example:after-copy", "https://example.org/after", "--server", srv.URL, "--token", maint)
	if code, _, body := get(t, srv.URL+"/urn:example:alias0000020"); code != 404 || !strings.Contains(body, "reserved") {
		t.Fatalf("GET the dropped alias on the copy: %d %s", code, body)
	}
	if err := srv.Stop(t); err != nil {
		t.Fatal(err)
	}
	if h := headOf(t, d2); h != head+1 {
		t.Fatalf("the copy's head after a write is %d, want %d", h, head+1)
	}
	cli(t, exitOK, "verify", "--data", d2)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
