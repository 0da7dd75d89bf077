package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/sqlite"
	"github.com/urikit/urikit/urn"
)

// benchRecords is the size of the lookup benchmarks' store:
// URIKIT_BENCH_RECORDS, 100,000 by default (issue 9's 1,000,000 takes a
// minute to build: URIKIT_BENCH_RECORDS=1000000).
func benchRecords() int {
	if n, err := strconv.Atoi(os.Getenv("URIKIT_BENCH_RECORDS")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

const benchBatch = 1000

// reportCPU reports the CPU time used since start per unit of work.
func reportCPU(b *testing.B, start time.Duration, n int, unit string) {
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Microsecond)/float64(n), unit)
}

func benchName(i int) string { return fmt.Sprintf("urn:example:bench:%08d", i) }

func benchInput(i int) resolver.NamedInput {
	return resolver.NamedInput{URN: benchName(i), RecordInput: resolver.RecordInput{
		Locations: []resolver.Location{{URL: fmt.Sprintf("https://example.org/items/%08d", i)}},
		Metadata:  []byte(fmt.Sprintf(`{"title":"Item %d"}`, i)),
	}}
}

// importRange writes records [from, to) through Service.PutMany in
// batches of benchBatch, as urikit import does.
func importRange(b testing.TB, svc *resolver.Service, from, to int) {
	ctx := context.Background()
	batch := make([]resolver.NamedInput, 0, benchBatch)
	for i := from; i < to; i += benchBatch {
		batch = batch[:0]
		for j := i; j < min(i+benchBatch, to); j++ {
			batch = append(batch, benchInput(j))
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

func benchService(b testing.TB, dir string) (*sqlite.Store, *resolver.Service) {
	st, err := sqlite.Open(context.Background(), dir, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	svc := resolver.New(st, resolver.Options{AdminToken: adminToken})
	ctx := context.Background()
	admin, _ := svc.Authenticate(ctx, adminToken)
	if auths, _ := st.Authorities(ctx); len(auths) == 0 {
		if _, _, err := svc.CreateAuthority(ctx, admin, "Bench", []string{"urn:example:"}); err != nil {
			b.Fatal(err)
		}
	}
	return st, svc
}

var (
	lookupOnce sync.Once
	lookupDir  string // removed by TestMain
	keptDir    string // kept
)

// lookupFixture is a data directory holding benchRecords() records, built
// once per run through the Service, or kept between runs in
// URIKIT_BENCH_DIR/records-N when that is set.
func lookupFixture(b *testing.B) string {
	lookupOnce.Do(func() {
		if keep := os.Getenv("URIKIT_BENCH_DIR"); keep != "" {
			dir := fmt.Sprintf("%s/records-%d", keep, benchRecords())
			if _, err := os.Stat(dir + "/" + sqlite.FileName); err != nil {
				st, svc := benchService(b, dir+".tmp")
				importRange(b, svc, 0, benchRecords())
				st.Close()
				if err := os.Rename(dir+".tmp", dir); err != nil {
					b.Fatal(err)
				}
			}
			keptDir = dir
			return
		}
		dir, err := os.MkdirTemp("", "urikit-sqlite-bench-")
		if err != nil {
			b.Fatal(err)
		}
		st, svc := benchService(b, dir)
		importRange(b, svc, 0, benchRecords())
		st.Close()
		lookupDir = dir
	})
	if keptDir != "" {
		return keptDir
	}
	if lookupDir == "" {
		b.Fatal("no fixture")
	}
	return lookupDir
}

// BenchmarkRecordByKey: the hot path of I2L, Store.RecordByKey of a random
// key among benchRecords() records; serially and from 4 goroutines per
// CPU (the reader pool serves them concurrently).
func BenchmarkRecordByKey(b *testing.B) {
	dir := lookupFixture(b)
	n := benchRecords()
	for _, par := range []int{1, 4} {
		b.Run(fmt.Sprintf("records=%d/parallel=%d", n, par), func(b *testing.B) {
			st, err := sqlite.Open(context.Background(), dir, sqlite.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			keys := make([]string, 4096)
			for i := range keys {
				keys[i] = urn.MustParse(benchName(rand.IntN(n))).Key()
			}
			var seq atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(par)
			b.ResetTimer()
			cpu := cpuTime()
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				i := int(seq.Add(1)) * 997
				for pb.Next() {
					i++
					if _, _, err := st.RecordByKey(ctx, keys[i%len(keys)]); err != nil {
						b.Error(err)
						return
					}
				}
			})
			reportCPU(b, cpu, b.N, "cpu-µs/lookup")
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
			b.ReportMetric(float64(maxRSS())/(1<<20), "maxrss-MiB")
		})
	}
}

// BenchmarkServiceLookup: the same through Service.Lookup with its cache
// off (parsing and keying the name, then the store), the cost of a lookup
// the cache misses.
func BenchmarkServiceLookup(b *testing.B) {
	dir := lookupFixture(b)
	n := benchRecords()
	st, err := sqlite.Open(context.Background(), dir, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	svc := resolver.New(st, resolver.Options{AdminToken: adminToken, CacheSize: -1})
	names := make([]urn.URN, 4096)
	for i := range names {
		names[i] = urn.MustParse(benchName(rand.IntN(n)))
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := range b.N {
		if _, err := svc.Lookup(ctx, names[i%len(names)]); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu, b.N, "cpu-µs/lookup")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
}

// BenchmarkPutMany: one op is one Service.PutMany of 1000 new records into
// a growing store (synchronous=FULL: one fsync per batch).
func BenchmarkPutMany(b *testing.B) {
	st, svc := benchService(b, b.TempDir())
	defer st.Close()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := range b.N {
		importRange(b, svc, i*benchBatch, (i+1)*benchBatch)
	}
	reportCPU(b, cpu, b.N*benchBatch, "cpu-µs/record")
	b.ReportMetric(float64(b.N*benchBatch)/b.Elapsed().Seconds(), "records/s")
}
