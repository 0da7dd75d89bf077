package federate

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/urn"
)

// BenchmarkByRules: the longest-prefix choice among 1,000 rules and the
// redirect built from it.
func BenchmarkByRules(b *testing.B) {
	rules := make([]resolver.Rule, 1000)
	for i := range rules {
		rules[i] = resolver.Rule{ID: int64(i + 1), Prefix: fmt.Sprintf("urn:nbn:de:%d-", i), Target: "https://r.example/"}
	}
	name := urn.MustParse("urn:nbn:de:517-2024010112345?+s=I2L")
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := ByRules(rules, name, "I2L", 1); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkDiscoverCached: a two-step DDDS path (non-terminal, then S and
// SRV) answered from the cache.
func BenchmarkDiscoverCached(b *testing.B) {
	srv := startDNS(b, "testdata/ddds.zone")
	d, err := NewDiscoverer(Options{DNS: srv.addr, Timeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	name := urn.MustParse("urn:chain:lib:1")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := d.Discover(ctx, name, "I2L", 1); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkSubstApply(b *testing.B) {
	x, err := ParseSubst(`!^urn:cid:.+@([^\.]+\.)(.*)$!\2!i`)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, _ := x.Apply("urn:cid:199606121851.1@bar.example.com"); !ok {
			b.Fatal()
		}
	}
}
