package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/httpapi"
	"github.com/urikit/urikit/resolver/memstore"
)

const benchNames = 10000

// benchService registers benchNames records in batches (one transaction
// each, as an import does). cache is the Service's CacheSize.
func benchService(b *testing.B, cache int) *resolver.Service {
	b.Helper()
	ctx := context.Background()
	svc := resolver.New(memstore.New(), resolver.Options{AdminToken: "a", CacheSize: cache})
	admin, _ := svc.Authenticate(ctx, "a")
	a, _, err := svc.CreateAuthority(ctx, admin, "Bench", []string{"urn:example:"})
	if err != nil {
		b.Fatal(err)
	}
	batch := make([]resolver.NamedInput, 0, 1000)
	for i := 0; i < benchNames; i++ {
		batch = append(batch, resolver.NamedInput{URN: benchName(i), RecordInput: resolver.RecordInput{
			Locations: []resolver.Location{{URL: fmt.Sprintf("https://example.org/items/%d", i)}}}})
		if len(batch) == cap(batch) || i == benchNames-1 {
			res, err := svc.PutMany(ctx, resolver.Principal{Operator: true, AuthorityID: a.ID}, batch)
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range res {
				if r.Err != nil {
					b.Fatal(r.Err)
				}
			}
			batch = batch[:0]
		}
	}
	return svc
}

func benchName(i int) string { return fmt.Sprintf("urn:example:bench-%07d", i) }

// discard is a ResponseWriter that keeps nothing but the status.
type discard struct {
	h    http.Header
	code int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(code int)        { d.code = code }

// BenchmarkI2LHandler is the I2L handler in process, path style and
// /uri-res/, with the lookup cache on (hot names) and off (every lookup
// goes to the store).
func BenchmarkI2LHandler(b *testing.B) {
	for _, c := range []struct {
		name  string
		cache int
	}{{"cached", 0}, {"uncached", -1}} {
		svc := benchService(b, c.cache)
		h := httpapi.New(svc, httpapi.Options{})
		for _, style := range []string{"path", "uri-res"} {
			b.Run(c.name+"/"+style, func(b *testing.B) {
				var n atomic.Int64
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					reqs := make([]*http.Request, 64)
					for i := range reqs {
						name := benchName(int(n.Add(7919)) % benchNames)
						target := "/" + name
						if style == "uri-res" {
							target = "/uri-res/I2L?" + name
						}
						reqs[i] = httptest.NewRequest("GET", target, nil)
					}
					w := &discard{h: http.Header{}}
					i := 0
					for pb.Next() {
						clear(w.h)
						w.code = 0
						h.ServeHTTP(w, reqs[i%len(reqs)])
						if w.code != http.StatusSeeOther {
							b.Fatalf("status %d", w.code)
						}
						i++
					}
				})
			})
		}
	}
}

// BenchmarkI2LLoopback is I2L through real HTTP on loopback, keep-alive
// connections, one per parallel client.
func BenchmarkI2LLoopback(b *testing.B) {
	svc := benchService(b, 0)
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{}))
	b.Cleanup(srv.Close)

	tr := &http.Transport{MaxIdleConnsPerHost: 256}
	defer tr.CloseIdleConnections()
	cl := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var n atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := cl.Get(srv.URL + "/" + benchName(int(n.Add(7919))%benchNames))
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusSeeOther {
				b.Fatalf("status %d", res.StatusCode)
			}
		}
	})
}
