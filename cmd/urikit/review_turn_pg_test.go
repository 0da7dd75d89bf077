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

// TestImportOfUpdatesWritesEachBatchOnce (review of 47b2d1d): a batch
// stamps the records it puts after its turn (updates) with the clock's
// time then, later than the time the next batch, started as soon as this
// one took its turn, read before its own turn. So the next batch finds an
// entry later than its stamp (stillHold), rolls back the records it
// stored and writes the whole batch again, turn first; its second attempt
// stamps later still than the batch after it read, and so on: from the
// first update on, every batch is written twice. The records' sequence
// counts the IDs the rolled-back attempts took.
func TestImportOfUpdatesWritesEachBatchOnce(t *testing.T) {
	hermetic(t)
	cluster := pgtest.Start(t, pgtest.Options{})
	dsn := cluster.NewDB(t)
	cli(t, exitOK, "authority", "add", "--db", dsn, "Example", "urn:example:")
	const batches, size = 20, 200
	dir := t.TempDir()
	var first, second strings.Builder
	for i := range batches { // names that the second import updates, one in each of its batches
		fmt.Fprintf(&first, `{"urn":"urn:example:u-%04d","locations":[{"url":"https://example.org/u/%d"}]}`+"\n", i, i)
	}
	for i := range batches {
		fmt.Fprintf(&second, `{"urn":"urn:example:u-%04d","locations":[{"url":"https://example.org/u/%d/2"}]}`+"\n", i, i)
		for j := range size - 1 {
			fmt.Fprintf(&second, `{"urn":"urn:example:n-%04d-%04d","locations":[{"url":"https://example.org/n/%d/%d"}]}`+"\n", i, j, i, j)
		}
	}
	for name, b := range map[string]*strings.Builder{"first.jsonl": &first, "second.jsonl": &second} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cli(t, exitOK, "import", "--db", dsn, "--quiet", filepath.Join(dir, "first.jsonl"))
	cli(t, exitOK, "import", "--db", dsn, "--batch", fmt.Sprint(size), "--quiet", filepath.Join(dir, "second.jsonl"))
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var stored, taken int64
	if err := conn.QueryRow(context.Background(), `SELECT count(*), (SELECT last_value FROM records_id_seq) FROM records`).Scan(&stored, &taken); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d records stored, %d IDs taken", stored, taken)
	if wasted := taken - stored; wasted > size {
		t.Errorf("%d IDs taken by rolled-back attempts: %.1f of %d batches written twice", wasted, float64(wasted)/(size-1), batches)
	}
}
