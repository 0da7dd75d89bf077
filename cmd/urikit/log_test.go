package main

import (
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/sqlite"
)

// TestLogChecksTheChain: `urikit log` walks a server's public history with
// no token, checks it, and prints a head; a later run holds the history to
// that head. An entry edited in the database fails the walk; a history
// rewritten with every hash recomputed from the edit on holds together,
// and fails only against a head kept from before.
func TestLogChecksTheChain(t *testing.T) {
	hermetic(t)
	data := filepath.Join(t.TempDir(), "data")
	const admin = "log-test-admin-token-0123456789"
	srv := startServer(t, data, "URIKIT_ADMIN_TOKEN="+admin)
	t.Setenv(envServer, srv.URL)
	t.Setenv(envToken, admin)
	out, _ := cli(t, exitOK, "authority", "add", "Example", "urn:example:")
	t.Setenv(envToken, tokenIn(t, out))
	for _, n := range []string{"a", "b", "c"} {
		cli(t, exitOK, "register", "urn:example:"+n, "https://example.org/"+n)
	}
	cli(t, exitOK, "withdraw", "urn:example:b", "--successor", "urn:example:c")
	t.Setenv(envToken, "") // a reader has none

	headRE := regexp.MustCompile(`(?m)^head: (\d+:[0-9a-f]{64})$`) // hex, as verify prints it
	out, _ = cli(t, exitOK, "log")
	if !strings.Contains(out, ": 7 entries checked (3 entries without data): every link holds\n") {
		t.Fatalf("log: %s", out)
	}
	hm := headRE.FindStringSubmatch(out)
	if hm == nil {
		t.Fatalf("log printed no head SEQ:HEX: %s", out)
	}
	kept := hm[1]
	// --json puts the entries on standard output, the summary on
	// standard error.
	js, errs := cli(t, exitOK, "log", "--server", srv.URL, "--json")
	if lines := strings.Split(strings.TrimSpace(js), "\n"); len(lines) != 7 || !strings.Contains(lines[6], `"action":"name.withdraw"`) || !strings.Contains(errs, "head: "+kept) {
		t.Fatalf("log --json: %s\n%s", js, errs)
	}
	// A withheld entry (the authority's) is printed as the server gave
	// it: no data, and no record number it does not have.
	if first := strings.SplitN(js, "\n", 2)[0]; !strings.Contains(first, `"withheld":true`) || strings.Contains(first, `"data"`) || strings.Contains(first, `"record"`) {
		t.Fatalf("log --json, a withheld entry: %s", first)
	}

	// More entries: the history still leads to the head kept.
	t.Setenv(envToken, admin)
	cli(t, exitOK, "rules", "add", "urn:nbn:fi:", "https://resolver.example/")
	t.Setenv(envToken, "")
	out, _ = cli(t, exitOK, "log", "--head", kept)
	if !strings.Contains(out, "8 entries checked") || !strings.Contains(out, "the log still leads to the 1 head kept") {
		t.Fatalf("log --head: %s", out)
	}
	// The same head with its hash in base64, as the API gives it; and the
	// head urikit verify prints (in hex, on the data directory).
	seq, hexHash, _ := strings.Cut(kept, ":")
	raw, err := hex.DecodeString(hexHash)
	if err != nil {
		t.Fatal(err)
	}
	out, _ = cli(t, exitOK, "log", "--head", seq+":"+base64.StdEncoding.EncodeToString(raw))
	if !strings.Contains(out, "the log still leads to the 1 head kept") {
		t.Fatalf("log --head in base64: %s", out)
	}
	out, _ = cli(t, exitOK, "verify", "--data", data)
	m := regexp.MustCompile(`the last (\d+) with hash ([0-9a-f]{64})\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("verify: %s", out)
	}
	out, _ = cli(t, exitOK, "log", "--head", m[1]+":"+m[2], "--head", m[1]+":"+strings.ToUpper(m[2]))
	if !strings.Contains(out, "the log still leads to the 2 heads kept") || !strings.Contains(out, "head: "+m[1]+":"+m[2]+"\n") {
		t.Fatalf("log --head as verify printed it: %s", out)
	}
	cli(t, exitUsage, "log", "--head", "7")
	cli(t, exitUsage, "log", "--head", "x:abc")
	cli(t, exitUsage, "log", "--head", "3:not base64!")
	cli(t, exitUsage, "log", "--head", "5:AAAA") // a hash of the wrong length: a typo, not a rewrite
	cli(t, exitUsage, "log", "--head", "5:"+strings.Repeat("g", 64))
	_, errs = cli(t, exitUsage, "log", "--head", "5:"+hexHash[:63])
	if !strings.Contains(errs, "64 hex digits (as urikit log and urikit verify print it) or 44 base64 characters") {
		t.Fatalf("a hash one digit short: %s", errs)
	}

	// Edits made in the database, with the server stopped.
	if err := srv.Stop(t); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(data, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	// Entry 5 (urn:example:b created; 1 is the admin token in the
	// environment, 2 and 3 the authority and its token) said another location.
	var orig []byte
	if err := db.QueryRow(`SELECT data FROM history WHERE seq = 5`).Scan(&orig); err != nil {
		t.Fatal(err)
	}
	forged := []byte(strings.Replace(string(orig), "https://example.org/b", "https://evil.example/b", 1))
	exec(`UPDATE history SET data = ? WHERE seq = 5`, forged)
	srv = startServer(t, data, "URIKIT_ADMIN_TOKEN="+admin)
	_, errs = cli(t, exitInvalid, "log", "--server", srv.URL)
	if !strings.Contains(errs, "entry 5 (name.create urn:example:b): its hash is not that of its fields") {
		t.Fatalf("an edited entry: %s", errs)
	}
	if err := srv.Stop(t); err != nil {
		t.Fatal(err)
	}
	// The same edit, and every hash from entry 5 on recomputed: the chain
	// holds together, and only the head kept tells.
	rows, err := db.Query(`SELECT seq, time, action, subject, record_id, authority_id, actor, data, prev, hash FROM history ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	var all []resolver.Entry
	for rows.Next() {
		var e resolver.Entry
		var us int64
		if err := rows.Scan(&e.Seq, &us, &e.Action, &e.Subject, &e.RecordID, &e.AuthorityID, &e.Actor, &e.Data, &e.Prev, &e.Hash); err != nil {
			t.Fatal(err)
		}
		e.Time = time.UnixMicro(us).UTC()
		all = append(all, e)
	}
	rows.Close()
	for i := 4; i < len(all); i++ {
		all[i].Prev = all[i-1].Hash
		all[i].Hash = resolver.ChainHash(all[i].Prev, all[i])
		exec(`UPDATE history SET prev = ?, hash = ? WHERE seq = ?`, all[i].Prev, all[i].Hash, all[i].Seq)
	}
	srv = startServer(t, data, "URIKIT_ADMIN_TOKEN="+admin)
	out, _ = cli(t, exitOK, "log", "--server", srv.URL)
	if !strings.Contains(out, "8 entries checked") {
		t.Fatalf("a rewritten history, without a head kept: %s", out)
	}
	_, errs = cli(t, exitInvalid, "log", "--server", srv.URL, "--head", kept)
	if !strings.Contains(errs, "entry 7 has another hash than the head kept for it: the history up to it was rewritten") {
		t.Fatalf("a rewritten history against the head kept: %s", errs)
	}
}

// TestLogPrivateHistory: serve --history-access admin keeps the whole
// history to the admin token; urikit log reads it with --token.
func TestLogPrivateHistory(t *testing.T) {
	hermetic(t)
	const admin = "log-test-admin-token-0123456789"
	srv := startServerArgs(t, []string{"--data", filepath.Join(t.TempDir(), "data"), "--history-access", "admin"}, "URIKIT_ADMIN_TOKEN="+admin)
	_, errs := cli(t, exitInvalid, "log", "--server", srv.URL)
	if !strings.Contains(errs, "urikit log: "+srv.URL+" keeps its history to the admin (serve --history-access admin): give the admin token with --token") {
		t.Fatalf("log without a token: %s", errs)
	}
	out, _ := cli(t, exitOK, "log", "--server", srv.URL, "--token", admin)
	if !strings.Contains(out, "1 entry checked (1 entry without data): every link holds") {
		t.Fatalf("log with the admin token: %s", out)
	}
	cli(t, exitUsage, "serve", "--history-access", "everyone")
}
