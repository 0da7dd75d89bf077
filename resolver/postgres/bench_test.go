package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/urn"
)

// BenchmarkLookup measures Service.Lookup on PostgreSQL over 20,000
// records, from 16 goroutines per processor picking names at random: with the
// lookup cache (each hit checked by a coalesced version read), without
// it (a query each), and with the cache while another instance writes.
func BenchmarkLookup(b *testing.B) {
	ctx := context.Background()
	dsn := cluster.NewDB(b)
	const n = 20000
	seed := open(b, dsn, postgres.Options{})
	svc := resolver.New(seed, resolver.Options{AdminToken: "admin"})
	admin, _ := svc.Authenticate(ctx, "admin")
	if _, _, err := svc.CreateAuthority(ctx, admin, "Example", []string{"urn:example:"}); err != nil {
		b.Fatal(err)
	}
	for first := 0; first < n; first += 1000 {
		if _, err := svc.PutMany(ctx, resolver.Operator, importBatch(first, 1000)); err != nil {
			b.Fatal(err)
		}
	}
	names := make([]urn.URN, n)
	for i := range names {
		names[i] = urn.MustParse(fmt.Sprintf("urn:example:imp-%08d", i))
	}
	run := func(b *testing.B, svc *resolver.Service) {
		for _, name := range names { // warm the cache
			if _, err := svc.Lookup(ctx, name); err != nil {
				b.Fatal(err)
			}
		}
		b.ResetTimer()
		b.SetParallelism(16) // 32 goroutines on 2 processors: an HTTP server's concurrency
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := svc.Lookup(ctx, names[rand.IntN(n)]); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.Run("cache", func(b *testing.B) {
		st := open(b, dsn, postgres.Options{})
		run(b, resolver.New(st, resolver.Options{}))
		s := st.Stats()
		b.ReportMetric(float64(s.CacheStale)/float64(max(1, s.CacheCurrent+s.CacheStale)), "stale/check")
	})
	b.Run("nocache", func(b *testing.B) {
		st := open(b, dsn, postgres.Options{})
		run(b, resolver.New(st, resolver.Options{CacheSize: -1}))
	})
	b.Run("cache-with-writes", func(b *testing.B) {
		st := open(b, dsn, postgres.Options{})
		reader := resolver.New(st, resolver.Options{})
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { // another instance rewrites random records
			defer close(done)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				in := importBatch(rand.IntN(n), 1)[0]
				in.Locations[0].URL += fmt.Sprintf("?v=%d", i)
				if _, _, err := svc.Put(ctx, resolver.Operator, in.URN, in.RecordInput); err != nil {
					b.Error(err)
					return
				}
			}
		}()
		run(b, reader)
		close(stop)
		<-done
		s := st.Stats()
		b.ReportMetric(float64(s.CacheStale)/float64(max(1, s.CacheCurrent+s.CacheStale)), "stale/check")
	})
}
