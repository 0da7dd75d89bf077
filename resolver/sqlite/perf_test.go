package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/sqlite"
	"github.com/urikit/urikit/urn"
)

// perfCount reads a size from the environment variable name, or def.
func perfCount(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func perfInput(i int) resolver.NamedInput {
	return resolver.NamedInput{URN: fmt.Sprintf("urn:example:perf:%08d", i), RecordInput: resolver.RecordInput{
		Locations: []resolver.Location{{URL: fmt.Sprintf("https://example.org/items/%08d", i)}},
		Metadata:  []byte(fmt.Sprintf(`{"title":"Item %d"}`, i)),
	}}
}

// perfImport writes records [0, n) through Service.PutMany in batches of
// 1000, as urikit import does, and fails on any record not created.
func perfImport(b *testing.B, svc *resolver.Service, n int) {
	ctx := context.Background()
	batch := make([]resolver.NamedInput, 0, 1000)
	for i := 0; i < n; i += 1000 {
		batch = batch[:0]
		for j := i; j < min(i+1000, n); j++ {
			batch = append(batch, perfInput(j))
		}
		res, err := svc.PutMany(ctx, resolver.Operator, batch)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range res {
			if r.Err != nil || !r.Created {
				b.Fatalf("%+v", r)
			}
		}
	}
}

func perfService(b *testing.B, dir string) (*sqlite.Store, *resolver.Service) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, dir, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	svc := resolver.New(st, resolver.Options{AdminToken: adminToken})
	admin, err := svc.Authenticate(ctx, adminToken)
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := svc.CreateAuthority(ctx, admin, "Perf", []string{"urn:example:"}); err != nil {
		b.Fatal(err)
	}
	return st, svc
}

// BenchmarkImport: one op imports URIKIT_PERF_IMPORT (100,000) new
// records into an empty store through Service.PutMany, in batches of
// 1000, and verifies the history chain afterwards. Issue 9 asks for
// 50,000 records/s. Run with -benchtime 1x.
func BenchmarkImport(b *testing.B) {
	n := perfCount("URIKIT_PERF_IMPORT", 100_000)
	for range b.N {
		b.StopTimer()
		dir := b.TempDir()
		st, svc := perfService(b, dir)
		b.StartTimer()
		perfImport(b, svc, n)
		b.StopTimer()
		head, err := st.Head(context.Background())
		if err != nil || head.Seq < int64(n) {
			b.Fatalf("head %d after %d records: %v", head.Seq, n, err)
		}
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkLookupRandom: Store.RecordByKey of random keys among
// URIKIT_PERF_LOOKUP (200,000) records, serial, with the Go heap in use
// afterwards reported (the store's page caches live in the C-like heap of
// modernc's libc, which the Go runtime counts as its own).
func BenchmarkLookupRandom(b *testing.B) {
	n := perfCount("URIKIT_PERF_LOOKUP", 200_000)
	dir := b.TempDir()
	st, svc := perfService(b, dir)
	perfImport(b, svc, n)
	st.Close()

	st, err := sqlite.Open(context.Background(), dir, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	keys := make([]string, 1<<16)
	for i := range keys {
		keys[i] = urn.MustParse(perfInput(rand.IntN(n)).URN).Key()
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		r, _, err := st.RecordByKey(ctx, keys[i%len(keys)])
		if err != nil || len(r.Locations) != 1 {
			b.Fatal(r, err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.Sys)/(1<<20), "sys-MiB")
}
