package postgres_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
)

// importBatch is n records under urn:example:imp-, numbered from first.
func importBatch(first, n int) []resolver.NamedInput {
	b := make([]resolver.NamedInput, n)
	for i := range b {
		id := first + i
		b[i] = resolver.NamedInput{URN: fmt.Sprintf("urn:example:imp-%08d", id), RecordInput: resolver.RecordInput{
			Locations: []resolver.Location{{URL: fmt.Sprintf("https://repo.example.org/items/%d", id), Type: "text/html"}},
			Metadata:  []byte(fmt.Sprintf(`{"title":"Item %d"}`, id)),
		}}
	}
	return b
}

// TestImportRate imports records with PutMany in batches of 1,000 from
// two goroutines (one prepares a batch while the other's is in the
// database) and reports the rate, and the processor time per record of
// this process and of the server, which a busy machine changes less than
// it changes the rate. URIKIT_PG_IMPORT sets how many records (default
// 20,000).
func TestImportRate(t *testing.T) {
	total := 20000
	if v, err := strconv.Atoi(os.Getenv("URIKIT_PG_IMPORT")); err == nil && v > 0 {
		total = v
	}
	if testing.Short() {
		total = 2000
	}
	ctx := context.Background()
	st := open(t, cluster.NewDB(t), postgres.Options{Timeout: time.Minute})
	svc := resolver.New(st, resolver.Options{AdminToken: "admin"})
	admin, _ := svc.Authenticate(ctx, "admin")
	if _, _, err := svc.CreateAuthority(ctx, admin, "Example", []string{"urn:example:"}); err != nil {
		t.Fatal(err)
	}
	const batch, workers = 1000, 2
	firsts := make(chan int)
	go func() {
		for first := 0; first < total; first += batch {
			firsts <- first
		}
		close(firsts)
	}()
	pg0, err := cluster.CPU()
	if err != nil {
		t.Fatal(err)
	}
	self0 := selfCPU()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for first := range firsts {
				res, err := svc.PutMany(ctx, resolver.Operator, importBatch(first, min(batch, total-first)))
				if err != nil {
					errs <- err
					return
				}
				for _, r := range res {
					if r.Err != nil || !r.Created {
						errs <- fmt.Errorf("%s: created=%v %v", r.Record.URN, r.Created, r.Err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	pg1, _ := cluster.CPU()
	self := selfCPU() - self0
	per := func(d time.Duration) time.Duration { return d / time.Duration(total) }
	t.Logf("PutMany: %d records in %v: %.0f records/s; processor time per record: this process %v, PostgreSQL %v",
		total, el.Round(time.Millisecond), float64(total)/el.Seconds(), per(self), per(pg1-pg0))
	copyBaseline(t, total)
	if n, err := svc.Verify(ctx, nil); err != nil || n != int64(total)+2 {
		t.Fatalf("verify after import: %d %v", n, err)
	}
	if recs, err := st.Records(ctx, int64(total)-5, 100); err != nil || len(recs) == 0 {
		t.Fatalf("records after import: %d %v", len(recs), err)
	}
}

// copyBaseline COPYs n rows of (bigint, text) into a table with a primary
// key on the same server: the cheapest row PostgreSQL stores, a yardstick
// for the machine's speed in this run (an imported record is four rows
// and six index entries).
func copyBaseline(t *testing.T, n int) {
	ctx := context.Background()
	conn := connect(t, cluster.NewDB(t))
	if _, err := conn.Exec(ctx, `CREATE TABLE baseline (id bigint PRIMARY KEY, x text NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(i), fmt.Sprintf("https://repo.example.org/items/%d", i)}
	}
	pg0, _ := cluster.CPU()
	start := time.Now()
	for i := 0; i < n; i += 1000 {
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{"baseline"}, []string{"id", "x"}, pgx.CopyFromRows(rows[i:min(i+1000, n)])); err != nil {
			t.Fatal(err)
		}
	}
	el := time.Since(start)
	pg1, _ := cluster.CPU()
	t.Logf("baseline: COPY of %d two-column rows: %.0f rows/s, PostgreSQL %v per row", n, float64(n)/el.Seconds(), (pg1-pg0)/time.Duration(n))
}

// selfCPU is the processor time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
