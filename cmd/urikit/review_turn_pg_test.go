package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/internal/pgtest"
)

// TestImportWithdrawalThenReuseTwoBatchesLater (review of 47b2d1d): a
// batch's withdrawals are written after its PutPrepared returns, in
// transactions of their own; the batch after it (sharing no name) is
// released by Turned and the batch after that one only waits for its
// direct predecessor. So a name withdrawn in batch N and written again in
// batch N+2 may be written before the withdrawal: the later row, which the
// file's order refuses (a withdrawn name is never reused), is accepted.
func TestImportWithdrawalThenReuseTwoBatchesLater(t *testing.T) {
	hermetic(t)
	cluster := pgtest.Start(t, pgtest.Options{})
	dsn := cluster.NewDB(t)
	cli(t, exitOK, "authority", "add", "--db", dsn, "Example", "urn:example:")
	const size = 300
	var b strings.Builder
	for i := range size { // batch 0: withdrawn rows, each a Withdraw of its own after the batch's put
		fmt.Fprintf(&b, `{"urn":"urn:example:w-%04d","locations":[{"url":"https://example.org/w/%d"}],"status":"withdrawn","reason":"gone"}`+"\n", i, i)
	}
	for i := range size { // batch 1: unrelated new names
		fmt.Fprintf(&b, `{"urn":"urn:example:n-%04d","locations":[{"url":"https://example.org/n/%d"}]}`+"\n", i, i)
	}
	// batch 2, line 601: the last name withdrawn in batch 0, written again.
	fmt.Fprintf(&b, `{"urn":"urn:example:w-%04d","locations":[{"url":"https://example.org/reused"}]}`+"\n", size-1)
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("", "import", "--db", dsn, "--batch", fmt.Sprint(size), "--quiet", in)
	t.Logf("exit %d\n%s%s", code, out, errs)
	if code != exitInvalid || !strings.Contains(errs, fmt.Sprintf("line %d: ", 2*size+1)) {
		t.Errorf("line %d writes a name withdrawn at line %d: exit %d, want %d and the row refused", 2*size+1, size, code, exitInvalid)
	}
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var actions string
	if err := conn.QueryRow(context.Background(), `SELECT string_agg(action, ' ' ORDER BY seq) FROM log WHERE subject = $1`,
		fmt.Sprintf("urn:example:w-%04d", size-1)).Scan(&actions); err != nil {
		t.Fatal(err)
	}
	if actions != "name.create name.withdraw" {
		t.Errorf("the history of the name withdrawn at line %d: %s, want name.create name.withdraw", size, actions)
	}
}
