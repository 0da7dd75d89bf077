package main

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver/sqlite"
)

// TestResolverLocal drives every resolver command directly on a data
// directory, in process.
func TestResolverLocal(t *testing.T) {
	hermetic(t)
	data := filepath.Join(t.TempDir(), "data")
	d := []string{"--data", data}
	with := func(args ...string) []string { return append(args, d...) }

	// Read-only commands refuse a directory that is not there.
	_, errs := cli(t, exitInvalid, with("lookup", "urn:example:a")...)
	if !strings.Contains(errs, "no urikit data directory at") {
		t.Fatalf("lookup on nothing: %s", errs)
	}
	if _, err := os.Stat(data); err == nil {
		t.Fatal("lookup created the data directory")
	}

	out, _ := cli(t, exitOK, with("authority", "add", "Example Org", "URN:Example:", "urn:ex2:")...)
	if !strings.Contains(out, "authority 1 (Example Org) owns urn:example: urn:ex2:") {
		t.Fatalf("authority add: %s", out)
	}
	tokenIn(t, out)
	_, errs = cli(t, exitInvalid, with("authority", "add", "Other", "urn:example:sub-")...)
	if !strings.Contains(errs, "overlaps") {
		t.Fatalf("overlapping prefix: %s", errs)
	}
	out, _ = cli(t, exitOK, with("authority", "list")...)
	if !strings.Contains(out, "1   Example Org  urn:example: urn:ex2:") {
		t.Fatalf("authority list: %q", out)
	}
	out, _ = cli(t, exitOK, with("authority", "token", "add", "1", "second maintainer")...)
	if !strings.Contains(out, "token 2 of authority 1") {
		t.Fatalf("token add: %s", out)
	}
	cli(t, exitOK, with("authority", "token", "revoke", "1", "2")...)
	_, errs = cli(t, exitInvalid, with("authority", "token", "revoke", "1", "1")...)
	if !strings.Contains(errs, "last valid token") {
		t.Fatalf("revoking the last token: %s", errs)
	}
	cli(t, exitInvalid, with("authority", "token", "revoke", "1", "99")...)
	// show lists the tokens with the IDs token revoke takes.
	out, _ = cli(t, exitOK, with("authority", "show", "1")...)
	if !regexp.MustCompile(`(?m)^authority 1 \(Example Org\)\nprefixes: urn:example: urn:ex2:\n`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^  TOKEN-ID +LABEL +CREATED +REVOKED\n  1 +Example Org +\S+Z +-\n  2 +second maintainer +\S+Z +\S+Z\n`).MatchString(out) {
		t.Fatalf("authority show: %q", out)
	}
	cli(t, exitInvalid, with("authority", "show", "99")...)
	cli(t, exitUsage, with("authority", "token", "revoke", "1", "x")...)
	out, _ = cli(t, exitOK, with("authority", "transfer", "1", "New Owner")...)
	if !strings.Contains(out, "now belongs to New Owner") {
		t.Fatalf("transfer: %s", out)
	}
	tokenIn(t, out)

	// Names: flags after the positional arguments, types and labels in
	// the order of the URLs.
	out, _ = cli(t, exitOK, with("register", "urn:example:a/b", "https://example.org/a", "http://mirror.example/a",
		"--type", "text/html", "--type", "application/pdf", "--label", "landing page", "--alias", "urn:ex2:a",
		"--metadata", `{"title":"A"}`, "--redirect", "307")...)
	if !strings.Contains(out, "created urn:example:a/b (2 locations)") {
		t.Fatalf("register: %s", out)
	}
	out, _ = cli(t, exitOK, with("register", "urn:example:a/b", "https://example.org/a", "http://mirror.example/a",
		"--type", "text/html", "--type", "application/pdf", "--label", "landing page", "--alias", "urn:ex2:a",
		"--metadata", `{"title":"A"}`, "--redirect", "307")...)
	if !strings.Contains(out, "replaced (or unchanged)") {
		t.Fatalf("register again: %s", out)
	}
	out, _ = cli(t, exitOK, with("lookup", "URN:EXAMPLE:a/b", "urn:ex2:a")...)
	for _, want := range []string{"urn:example:a/b\n  status     active", `https://example.org/a  (text/html, "landing page")`,
		"http://mirror.example/a  (application/pdf)", "alias      urn:ex2:a", "redirect   307", `metadata   {"title":"A"}`} {
		if !strings.Contains(out, want) {
			t.Fatalf("lookup lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "urn:example:a/b\n") != 2 {
		t.Fatalf("the alias does not find the record:\n%s", out)
	}
	out, _ = cli(t, exitOK, with("lookup", "--json", "urn:example:a/b")...)
	if !strings.HasPrefix(out, `{"urn":"urn:example:a/b","aliases":["urn:ex2:a"]`) {
		t.Fatalf("lookup --json: %s", out)
	}
	_, errs = cli(t, exitInvalid, with("lookup", "urn:example:nope")...)
	if !strings.Contains(errs, "urikit lookup: no record for urn:example:nope") {
		t.Fatalf("lookup unknown: %s", errs)
	}
	_, errs = cli(t, exitInvalid, with("lookup", "urn:example:a b")...)
	if !strings.Contains(errs, "not a URN:\n  urn:example:a b\n               ^ invalid character ' ' in NSS (byte 13)") {
		t.Fatalf("lookup malformed: %q", errs)
	}
	_, errs = cli(t, exitInvalid, with("register", "urn:other:x", "https://example.org/")...)
	if !strings.Contains(errs, "no naming authority owns urn:other:x") {
		t.Fatalf("register unowned: %s", errs)
	}
	_, errs = cli(t, exitInvalid, with("register", "urn:example:bad", "not a url")...)
	if !strings.Contains(errs, "locations[0].url") {
		t.Fatalf("register bad url: %s", errs)
	}
	cli(t, exitUsage, with("register", "urn:example:x")...)
	cli(t, exitUsage, with("register", "urn:example:x", "http://a/", "--type", "a/b", "--type", "c/d")...)
	// --metadata says what is wrong, not which Go type it failed to fill.
	for meta, want := range map[string]string{
		"[1]":      `--metadata must be a JSON object, such as {"title":"A"}, not an array`,
		` "t"`:     `--metadata must be a JSON object, such as {"title":"A"}, not a string`,
		"false":    `--metadata must be a JSON object, such as {"title":"A"}, not false`,
		"12":       `--metadata must be a JSON object, such as {"title":"A"}, not a number`,
		`{"t":x}`:  `--metadata is not JSON: invalid character 'x' looking for beginning of value (at byte 5)`,
		`{"t":"a"`: `--metadata is not JSON: it ends before the JSON value does (a closing "}", "]" or '"' is missing)`,
	} {
		_, errs = cli(t, exitUsage, with("register", "urn:example:x", "http://a/", "--metadata", meta)...)
		if !strings.Contains(errs, "urikit register: "+want+"\n") || strings.Contains(errs, "Go value") {
			t.Errorf("--metadata %s: %q, want %q", meta, errs, want)
		}
	}
	cli(t, exitUsage, with("register", "urn:example:x", "http://a/", "--nope")...)

	cli(t, exitOK, with("register", "urn:example:c", "HTTPS://EXAMPLE.ORG:443/a")...)
	out, errs = cli(t, exitOK, with("duplicates")...)
	if out != "https://example.org/a\n  urn:example:a/b\n  urn:example:c\n" || !strings.Contains(errs, "1 location shared") {
		t.Fatalf("duplicates: %q %q", out, errs)
	}
	out, _ = cli(t, exitOK, with("duplicates", "--json")...)
	if out != `{"location":"https://example.org/a","urns":["urn:example:a/b","urn:example:c"]}`+"\n" {
		t.Fatalf("duplicates --json: %q", out)
	}

	out, _ = cli(t, exitOK, with("withdraw", "urn:example:c", "--reason", "duplicate", "--successor", "urn:example:a/b")...)
	if out != "withdrawn urn:example:c (successor: urn:example:a/b)\n" {
		t.Fatalf("withdraw: %q", out)
	}
	out, _ = cli(t, exitOK, with("withdraw", "urn:example:c", "--reason", "duplicate", "--successor", "urn:example:a/b")...)
	if out != "urn:example:c was withdrawn already; its notice is unchanged (successor: urn:example:a/b)\n" {
		t.Fatalf("withdraw again: %q", out)
	}
	// On a withdrawn name, what is not given stays: the bare command
	// changes nothing, --reason keeps the successor, --successor "" drops it.
	out, _ = cli(t, exitOK, with("withdraw", "urn:example:c")...)
	if out != "urn:example:c was withdrawn already; its notice is unchanged (successor: urn:example:a/b)\n" {
		t.Fatalf("withdraw again, no flags: %q", out)
	}
	out, _ = cli(t, exitOK, with("withdraw", "urn:example:c", "--reason", "merged")...)
	if out != "restated the withdrawal notice of urn:example:c (successor: urn:example:a/b)\n" {
		t.Fatalf("withdraw again, --reason: %q", out)
	}
	out, _ = cli(t, exitOK, with("withdraw", "urn:example:c", "--successor", "")...)
	if out != "restated the withdrawal notice of urn:example:c\n" {
		t.Fatalf("withdraw again, --successor \"\": %q", out)
	}
	if out, _ = cli(t, exitOK, with("lookup", "--json", "urn:example:c")...); !strings.Contains(out, `"reason":"merged"`) || strings.Contains(out, `"successor"`) {
		t.Fatalf("after restating the notice: %s", out)
	}
	// A name that a withdrawn one names as its successor lists it
	// (lookup's "replaces"); withdrawn in turn, its notice is restated
	// with the entity-tag read before, which covers what it replaces.
	cli(t, exitOK, with("register", "urn:example:p1", "https://example.org/p1")...)
	cli(t, exitOK, with("register", "urn:example:p2", "https://example.org/p2")...)
	cli(t, exitOK, with("withdraw", "urn:example:p1", "--successor", "URN:EXAMPLE:p2")...)
	if out, _ = cli(t, exitOK, with("lookup", "urn:example:p2")...); !regexp.MustCompile(`(?m)^\s*replaces\s+urn:example:p1$`).MatchString(out) {
		t.Fatalf("lookup of a successor: %s", out)
	}
	cli(t, exitOK, with("withdraw", "urn:example:p2", "--successor", "urn:example:p3")...)
	if out, _ = cli(t, exitOK, with("withdraw", "urn:example:p2", "--reason", "merged")...); out != "restated the withdrawal notice of urn:example:p2 (successor: urn:example:p3)\n" {
		t.Fatalf("restating the notice of a name that replaces another: %q", out)
	}
	if out, _ = cli(t, exitOK, with("withdraw", "urn:example:p2")...); out != "urn:example:p2 was withdrawn already; its notice is unchanged (successor: urn:example:p3)\n" {
		t.Fatalf("withdraw again, no flags, of a name that replaces another: %q", out)
	}
	_, errs = cli(t, exitInvalid, with("register", "urn:example:c", "https://example.org/c")...)
	if !strings.Contains(errs, "never reused") {
		t.Fatalf("reusing a withdrawn name: %s", errs)
	}
	// The location is now shared by one active record and a withdrawn
	// one: no duplicate, unless withdrawn records are asked for.
	out, errs = cli(t, exitOK, with("duplicates")...)
	if out != "" || !strings.Contains(errs, "0 locations shared by several active records") {
		t.Fatalf("duplicates, one withdrawn: %q %q", out, errs)
	}
	out, errs = cli(t, exitOK, with("duplicates", "--withdrawn")...)
	if out != "https://example.org/a\n  urn:example:a/b (active)\n  urn:example:c (withdrawn)\n" || !strings.Contains(errs, "1 location shared by several records") {
		t.Fatalf("duplicates --withdrawn: %q %q", out, errs)
	}
	out, _ = cli(t, exitOK, with("duplicates", "--withdrawn", "--json")...)
	if out != `{"location":"https://example.org/a","urns":["urn:example:a/b","urn:example:c"],"statuses":["active","withdrawn"]}`+"\n" {
		t.Fatalf("duplicates --withdrawn --json: %q", out)
	}

	// Rules.
	out, _ = cli(t, exitOK, with("rules", "add", "urn:nbn:de:", "https://dnb.example/")...)
	if out != "rule 1: urn:nbn:de: → https://dnb.example/\n" {
		t.Fatalf("rules add: %q", out)
	}
	cli(t, exitOK, with("rules", "add", "URN:NBN:de:101-", "https://d-nb.example/resolver")...)
	cli(t, exitInvalid, with("rules", "add", "urn:nbn:de:", "https://other.example/")...)
	out, _ = cli(t, exitOK, with("rules", "list")...)
	if !strings.Contains(out, "2   urn:nbn:de:101-  https://d-nb.example/resolver") {
		t.Fatalf("rules list: %s", out)
	}
	out, _ = cli(t, exitOK, with("rules", "test", "urn:NBN:de:101-1234")...)
	for _, want := range []string{"takes rule 2: urn:nbn:de:101- → https://d-nb.example/resolver",
		"the longest of 2 matching prefixes", "I2L        https://d-nb.example/resolver/uri-res/N2L?urn:NBN:de:101-1234?+hops=1"} {
		if !strings.Contains(out, want) {
			t.Fatalf("rules test lacks %q:\n%s", want, out)
		}
	}
	// A name that comes with a hop count goes on with one more, as the
	// server hands it on; at the limit the server would answer 508.
	out, _ = cli(t, exitOK, with("rules", "test", "urn:nbn:de:101-1234?+hops=3?=lang=en")...)
	if !strings.Contains(out, "uri-res/N2L?urn:nbn:de:101-1234?+hops=4?=lang=en") {
		t.Fatalf("rules test with hops: %s", out)
	}
	out, _ = cli(t, exitInvalid, with("rules", "test", "urn:nbn:de:101-1234?+hops=8")...)
	if !strings.Contains(out, "508 Loop Detected: it was handed on 8 times already") {
		t.Fatalf("rules test at the hop limit: %s", out)
	}
	out, _ = cli(t, exitOK, with("rules", "test", "urn:nbn:de:999", "--service", "I2Ls")...)
	if !strings.Contains(out, "takes rule 1") || !strings.Contains(out, "uri-res/N2Ls?urn:nbn:de:999") {
		t.Fatalf("rules test I2Ls: %s", out)
	}
	// NBN's country codes are case-insensitive (RFC 8458 §4.3): by its key form.
	out, _ = cli(t, exitOK, with("rules", "test", "urn:nbn:DE:101-9")...)
	if !strings.Contains(out, "takes rule 2") || !strings.Contains(out, "its key form urn:nbn:de:101-9 starts with urn:nbn:de:101-") {
		t.Fatalf("rules test by key form: %s", out)
	}
	out, _ = cli(t, exitInvalid, with("rules", "test", "urn:nbn:fi:1")...)
	if !strings.Contains(out, "no rule applies to urn:nbn:fi:1") {
		t.Fatalf("rules test none: %s", out)
	}
	cli(t, exitOK, with("rules", "add", "urn:example:", "https://elsewhere.example/")...)
	out, _ = cli(t, exitOK, with("rules", "test", "urn:example:a/b")...)
	if !strings.Contains(out, "has its own record here") {
		t.Fatalf("rules test of a registered name: %s", out)
	}
	// An alias a record dropped stays this directory's: no rule takes it.
	cli(t, exitOK, with("register", "urn:example:d", "https://example.org/d", "--alias", "urn:example:d-old")...)
	cli(t, exitOK, with("register", "urn:example:d", "https://example.org/d")...)
	out, _ = cli(t, exitInvalid, with("rules", "test", "urn:example:d-old")...)
	if !strings.Contains(out, "no rule applies to urn:example:d-old: it was an alias of a record here") {
		t.Fatalf("rules test of a dropped alias: %s", out)
	}
	cli(t, exitOK, with("rules", "remove", "1")...)
	cli(t, exitInvalid, with("rules", "remove", "1")...)
	cli(t, exitUsage, with("rules", "remove")...)
	cli(t, exitUsage, with("rules", "frob")...)

	// The history holds together, until someone edits it in the database.
	out, _ = cli(t, exitOK, with("migrate")...)
	if !strings.Contains(out, "SQLite schema version") || !strings.Contains(out, "keys: 0 stored under older rules, 0 re-keyed") ||
		!strings.Contains(out, "successor keys: 0 stored under older rules or not computed, 0 re-keyed") {
		t.Fatalf("migrate: %s", out)
	}
	out, _ = cli(t, exitOK, with("verify")...)
	if !strings.HasPrefix(out, "history verified: ") {
		t.Fatalf("verify: %s", out)
	}
	db, err := sql.Open("sqlite", filepath.Join(data, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(context.Background(), `UPDATE history SET data = CAST(replace(CAST(data AS TEXT), 'landing page', 'landing pagf') AS BLOB) WHERE seq = (SELECT min(seq) FROM history WHERE action = 'name.create')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, errs = cli(t, exitInvalid, with("verify")...)
	if !strings.Contains(errs, "its hash does not match its content") || !strings.Contains(errs, "name.create urn:example:a/b") {
		t.Fatalf("verify after tampering: %s", errs)
	}
}

// TestResolverUsage: every command has help, and a wrong command line is
// exit status 2 with a one-line reason.
func TestResolverUsage(t *testing.T) {
	hermetic(t)
	for _, args := range [][]string{{"serve"}, {"register"}, {"withdraw"}, {"lookup"}, {"locate"}, {"export"}, {"import"},
		{"duplicates"}, {"migrate"}, {"verify"}, {"authority"}, {"authority", "add"}, {"authority", "list"},
		{"authority", "token", "add"}, {"authority", "token", "revoke"}, {"authority", "transfer"},
		{"authority", "show"}, {"admin-token"}, {"admin-token", "rotate"}, {"backup"},
		{"rules"}, {"rules", "add"}, {"rules", "list"}, {"rules", "remove"}, {"rules", "test"}} {
		out, _ := cli(t, exitOK, append(args, "--help")...)
		if !strings.Contains(out, "usage: urikit "+args[0]) {
			t.Errorf("%v --help: %s", args, out)
		}
	}
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"lookup"}, "give at least one URN"},
		{[]string{"locate"}, "give one URL"},
		{[]string{"lookup", "urn:a:b", "--server", "ftp://x"}, "http:// or https://"},
		{[]string{"lookup", "urn:a:b", "--server", "http://x", "--data", "d"}, "give one of --server, --data and --db"},
		{[]string{"withdraw"}, "give exactly one URN"},
		{[]string{"import"}, "give exactly one FILE"},
		{[]string{"import", "f", "--format", "xml"}, "unknown format"},
		{[]string{"export", "x"}, "takes no arguments"},
		{[]string{"authority"}, "subcommands:"},
		{[]string{"authority", "frob"}, `unknown subcommand "frob"`},
		{[]string{"authority", "token", "add", "0"}, "ID must be a positive integer"},
		{[]string{"rules", "test"}, "usage: urikit rules test URN"},
		{[]string{"verify", "--data", "a", "--db", "b"}, "not both"},
		{[]string{"serve", "--log-format", "xml"}, "text or json"},
		{[]string{"serve", "--dns", "host:notaport"}, "--dns"},
		{[]string{"serve", "extra"}, "takes no arguments"},
	} {
		code, _, errs := runCLI("", c.args...)
		if code != exitUsage || !strings.Contains(errs, c.err) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.err)
		}
	}
	// A server that is not there is refused, on one line.
	code, _, errs := runCLI("", "lookup", "urn:example:a", "--server", "http://127.0.0.1:1")
	if code != exitInvalid || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "cannot reach the server") {
		t.Errorf("no server: %d %q", code, errs)
	}
}

// TestNoTargetMakesNoDirectory: a write with no target named (no --server,
// --data or --db, none of their variables) refuses to make ./urikit-data
// and write into it, which would report success for a name nobody
// resolves; it says what to give. Named with --data, the directory is
// made. Once it exists, the default finds it. migrate refuses a directory
// that does not exist, as verify does.
func TestNoTargetMakesNoDirectory(t *testing.T) {
	hermetic(t)
	t.Chdir(t.TempDir())
	for _, args := range [][]string{
		{"authority", "add", "Example", "urn:example:"},
		{"rules", "add", "urn:nbn:de:", "https://resolver.example/"},
		{"register", "urn:example:a", "https://example.org/a"},
		{"import", "in.jsonl"},
	} {
		if args[0] == "import" {
			if err := os.WriteFile("in.jsonl", []byte(`{"urn":"urn:example:a","locations":[{"url":"https://example.org/a"}]}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		code, _, errs := runCLI("", args...)
		if code == exitOK || !strings.Contains(errs, "there is no ./urikit-data here") || !strings.Contains(errs, "--data urikit-data") {
			t.Errorf("urikit %s: exit %d\n%s", strings.Join(args, " "), code, errs)
		}
		if _, err := os.Stat("urikit-data"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("urikit %s made ./urikit-data: %v", strings.Join(args, " "), err)
		}
	}
	for _, cmd := range []string{"migrate", "verify"} {
		if code, _, _ := runCLI("", cmd); code == exitOK {
			t.Errorf("urikit %s on no directory: exit 0", cmd)
		}
		if _, err := os.Stat("urikit-data"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("urikit %s made ./urikit-data: %v", cmd, err)
		}
	}
	cli(t, exitOK, "authority", "add", "Example", "urn:example:", "--data", "urikit-data")
	cli(t, exitOK, "register", "urn:example:a", "https://example.org/a")
	if out, _ := cli(t, exitOK, "lookup", "urn:example:a"); !strings.Contains(out, "https://example.org/a") {
		t.Fatalf("lookup: %s", out)
	}
}
