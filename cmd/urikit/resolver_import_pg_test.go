package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/internal/pgtest"
	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/resolver/recordio"
	"github.com/urikit/urikit/urn"
)

// The tests of an import on PostgreSQL, which writes two batches at once
// (localSink.concurrent): the outcome must stay that of the file's order.

// exampleDB is a new database on a throwaway cluster, with an authority
// that owns urn:example:.
func exampleDB(t *testing.T) string {
	t.Helper()
	hermetic(t)
	dsn := pgtest.Start(t, pgtest.Options{}).NewDB(t)
	cli(t, exitOK, "authority", "add", "--db", dsn, "Example", "urn:example:")
	return dsn
}

// pgConn is a connection to dsn, closed when the test ends.
func pgConn(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// TestImportWithdrawalThenReuseTwoBatchesLater: a batch's withdrawals are
// written after its PutPrepared returns, in transactions of their own. A
// name withdrawn in batch N and written again in batch N+2 is refused, as
// in the file's order (a withdrawn name is never reused): the batch after
// one that withdraws waits for it to be written, and every batch for the
// one two before it.
func TestImportWithdrawalThenReuseTwoBatchesLater(t *testing.T) {
	dsn := exampleDB(t)
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
	conn := pgConn(t, dsn)
	var actions string
	if err := conn.QueryRow(context.Background(), `SELECT string_agg(action, ' ' ORDER BY seq) FROM log WHERE subject = $1`,
		fmt.Sprintf("urn:example:w-%04d", size-1)).Scan(&actions); err != nil {
		t.Fatal(err)
	}
	if actions != "name.create name.withdraw" {
		t.Errorf("the history of the name withdrawn at line %d: %s, want name.create name.withdraw", size, actions)
	}
}

// TestImportOfUpdatesWritesEachBatchOnce: a batch that updates records as
// well as creating them is written once. Every change of a batch is
// stamped with one time, taken before the next batch starts, so the next
// batch's check after its turn (no entry later than its stamp) holds; a
// batch that failed it would be rolled back and written again, turn
// first, and the one after it too, and so on. The records' sequence
// counts the IDs that rolled-back attempts took.
func TestImportOfUpdatesWritesEachBatchOnce(t *testing.T) {
	dsn := exampleDB(t)
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
	conn := pgConn(t, dsn)
	var stored, taken int64
	if err := conn.QueryRow(context.Background(), `SELECT count(*), (SELECT last_value FROM records_id_seq) FROM records`).Scan(&stored, &taken); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d records stored, %d IDs taken", stored, taken)
	if wasted := taken - stored; wasted > size {
		t.Errorf("%d IDs taken by rolled-back attempts: %.1f of %d batches written twice", wasted, float64(wasted)/(size-1), batches)
	}
}

// slowRetryStore delays the first Update the service runs (on this store
// the import's batches run UpdateBeforeTurn; an Update is a batch written
// again, turn first) until released: a retry that is slow to come back,
// as a whole batch written again after a deadlock (Store.run runs it
// early again) or on a busy machine.
type slowRetryStore struct {
	*postgres.Store
	once    sync.Once
	release chan struct{}
}

func (s *slowRetryStore) Update(ctx context.Context, fn func(resolver.Tx) error) error {
	s.once.Do(func() { <-s.release })
	return s.Store.Update(ctx, fn)
}

// TestImportRetryOfABatchAfterItsTurn: a batch whose first attempt is
// rolled back after its turn (here: its stamp older than the history's
// head) and written again, slowly, may let the batch after it (sharing no
// name) commit first; the batch after that one, which shares a name with
// the first, still waits for it to be written: of two rows of one name,
// two batches apart, the later one wins.
func TestImportRetryOfABatchAfterItsTurn(t *testing.T) {
	hermetic(t)
	ctx := context.Background()
	cluster := pgtest.Start(t, pgtest.Options{})
	dsn := cluster.NewDB(t)
	open := func() *postgres.Store {
		st, err := postgres.Open(ctx, dsn, postgres.Options{Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	ten := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	setup := resolver.New(open(), resolver.Options{AdminToken: "admin", Clock: func() time.Time { return ten }})
	admin, _ := setup.Authenticate(ctx, "admin")
	if _, _, err := setup.CreateAuthority(ctx, admin, "Example", []string{"urn:example:"}); err != nil {
		t.Fatal(err)
	}
	loc := func(u string) resolver.RecordInput {
		return resolver.RecordInput{Locations: []resolver.Location{{URL: u}}}
	}
	if _, _, err := setup.Put(ctx, resolver.Operator, "urn:example:k", loc("https://example.org/k/0")); err != nil {
		t.Fatal(err)
	}
	// The importer's clock reads 9:00 once (batch 0's stamp before its
	// turn, older than the 10:00 head), then 11:00.
	var calls atomic.Int32
	clock := func() time.Time {
		if calls.Add(1) == 1 {
			return ten.Add(-time.Hour)
		}
		return ten.Add(time.Hour)
	}
	st := &slowRetryStore{Store: open(), release: make(chan struct{})}
	l := &localSink{svc: resolver.New(st, resolver.Options{Clock: clock})}
	item := func(line int, name, u string) []recordio.Item {
		return []recordio.Item{{NamedInput: resolver.NamedInput{URN: name, RecordInput: loc(u)}, Status: resolver.Active, Line: line, EndLine: line}}
	}
	items := [][]recordio.Item{
		item(1, "urn:example:k", "https://example.org/k/line-1"),
		item(2, "urn:example:other", "https://example.org/other"),
		item(3, "urn:example:k", "https://example.org/k/line-3"),
	}
	var preps []any
	for _, it := range items { // in order, as the importer's preparing stage
		preps = append(preps, l.prepare(it))
	}
	// The importer's two writers: A takes batch 0; B batch 1, then batch 2.
	errs := make(chan error, 3)
	aDone := make(chan struct{})
	go func() {
		defer close(aDone)
		_, err := l.write(ctx, items[0], preps[0])
		errs <- err
	}()
	bDone := make(chan struct{})
	go func() {
		defer close(bDone)
		for i := 1; i <= 2; i++ {
			_, err := l.write(ctx, items[i], preps[i])
			errs <- err
		}
	}()
	select { // batch 2 done, or waiting for batch 0 (as it should)
	case <-bDone:
	case <-time.After(3 * time.Second):
	}
	close(st.release)
	<-aDone
	<-bDone
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	rec, err := l.svc.Lookup(ctx, urn.MustParse("urn:example:k"))
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Locations[0].URL; got != "https://example.org/k/line-3" {
		t.Errorf("urn:example:k resolves to %s, the row of line 1; line 3 comes later in the file", got)
	}
}

// overlapStore counts the UpdateBeforeTurn transactions under way at once.
type overlapStore struct {
	*postgres.Store
	now, most atomic.Int32
}

func (s *overlapStore) UpdateBeforeTurn(ctx context.Context, fn func(resolver.EarlyTx) error) error {
	n := s.now.Add(1)
	defer s.now.Add(-1)
	for m := s.most.Load(); n > m && !s.most.CompareAndSwap(m, n); m = s.most.Load() {
	}
	return s.Store.UpdateBeforeTurn(ctx, fn)
}

// TestImportOverlapsBatches: the import's two writers do write two
// batches at once on PostgreSQL — a batch's transaction is under way
// while the one before it is — and every record is written once, in the
// file's order of IDs and history.
func TestImportOverlapsBatches(t *testing.T) {
	ctx := context.Background()
	dsn := exampleDB(t)
	st, err := postgres.Open(ctx, dsn, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	counting := &overlapStore{Store: st}
	l := &localSink{svc: resolver.New(counting, resolver.Options{})}
	if n := l.concurrent(8); n != 2 {
		t.Fatalf("%d batches at once on PostgreSQL, want 2", n)
	}
	const batches, size = 30, 300
	jobs := make(chan int)
	preps := make([]any, batches)
	items := make([][]recordio.Item, batches)
	for b := range batches {
		for i := range size {
			n := b*size + i
			items[b] = append(items[b], recordio.Item{NamedInput: resolver.NamedInput{URN: fmt.Sprintf("urn:example:o-%05d", n),
				RecordInput: resolver.RecordInput{Locations: []resolver.Location{{URL: fmt.Sprintf("https://example.org/o/%d", n)}}}},
				Status: resolver.Active, Line: n + 1, EndLine: n + 1})
		}
		preps[b] = l.prepare(items[b]) // in order, as the importer's preparing stage
	}
	var wg sync.WaitGroup
	errs := make(chan error, batches)
	for range 2 { // the importer's two writers
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range jobs {
				res, err := l.write(ctx, items[b], preps[b])
				for _, r := range res {
					if err == nil && (r.err != nil || !r.created) {
						err = fmt.Errorf("batch %d: created %v, %v", b, r.created, r.err)
					}
				}
				errs <- err
			}
		}()
	}
	for b := range batches {
		jobs <- b
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if m := counting.most.Load(); m < 2 {
		t.Errorf("at most %d batch transaction under way at once", m)
	}
	conn := pgConn(t, dsn)
	var n, outOfOrder int
	if err := conn.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE r.urn <> format('urn:example:o-%s', lpad((r.id - 1)::text, 5, '0')))
		FROM records r JOIN log l ON l.record_id = r.id AND l.action = 'name.create'`).Scan(&n, &outOfOrder); err != nil {
		t.Fatal(err)
	}
	if n != batches*size || outOfOrder != 0 {
		t.Errorf("%d records with their history, %d not in the file's order of IDs", n, outOfOrder)
	}
	if out, _ := cli(t, exitOK, "verify", "--db", dsn); !strings.Contains(out, fmt.Sprintf("%d records", batches*size)) {
		t.Fatalf("verify: %s", out)
	}
}

// TestImportOfChangedRecordsInOneBigBatch: a file imported again after
// its records changed is written a record at a time (they are not new),
// which for a batch of 20,000 takes longer than the 5 s that bound a
// request's transaction on PostgreSQL: the import's own bound is longer,
// and every record is replaced.
func TestImportOfChangedRecordsInOneBigBatch(t *testing.T) {
	dsn := exampleDB(t)
	const n = 20000
	dir := t.TempDir()
	for _, edit := range []string{"1", "2"} {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `{"urn":"urn:example:c-%05d","locations":[{"url":"https://example.org/c/%d/%s"}]}`+"\n", i, i, edit)
		}
		in := filepath.Join(dir, "edit-"+edit+".jsonl")
		if err := os.WriteFile(in, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		out, errs := cli(t, exitOK, "import", "--db", dsn, "--batch", fmt.Sprint(n), "--quiet", in)
		t.Logf("edit %s: %s in %v", edit, strings.TrimSpace(out), time.Since(start).Round(time.Millisecond))
		if errs != "" {
			t.Fatalf("import's stderr: %s", errs)
		}
	}
	out, _ := cli(t, exitOK, "lookup", "--db", dsn, fmt.Sprintf("urn:example:c-%05d", n-1))
	if !strings.Contains(out, fmt.Sprintf("https://example.org/c/%d/2", n-1)) {
		t.Fatalf("the last record after the second import: %s", out)
	}
}
