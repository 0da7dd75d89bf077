package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/urikit/urikit/internal/pgtest"
	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/urn"
)

// TestServerStopsAndReturns stops the server under a running Service,
// then crashes it: while it is down every call fails at once with
// KindUnavailable (503), cached lookups too; when it is back the same
// Store works again without being reopened, and every acknowledged write
// is there.
func TestServerStopsAndReturns(t *testing.T) {
	c := pgtest.Start(t, pgtest.Options{})
	dsn := c.NewDB(t)
	st := open(t, dsn, postgres.Options{Timeout: 2 * time.Second})
	svc := resolver.New(st, resolver.Options{AdminToken: "admin"})
	ctx := context.Background()
	admin, _ := svc.Authenticate(ctx, "admin")
	_, tok, err := svc.CreateAuthority(ctx, admin, "Example", []string{"urn:example:"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := svc.Authenticate(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	in := instance{st: st, svc: svc, maint: m}
	waitListening(t, st)
	acked := 0
	write := func() error {
		err := put(ctx, in, fmt.Sprintf("urn:example:f-%d", acked), acked)
		if err == nil {
			acked++
		}
		return err
	}
	for range 5 {
		if err := write(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := roundOf(ctx, in, "urn:example:f-0"); err != nil { // now cached
		t.Fatal(err)
	}

	for _, how := range []string{"stop", "crash"} {
		if how == "stop" {
			err = c.Stop()
		} else {
			err = c.Crash()
		}
		if err != nil {
			t.Fatal(err)
		}
		// Down: fast 503s, for writes, lookups, cached lookups.
		calls := map[string]func() error{
			"put":           write,
			"lookup":        func() error { _, err := svc.Lookup(ctx, urn.MustParse("urn:example:none")); return err },
			"cached lookup": func() error { _, err := svc.Lookup(ctx, urn.MustParse("urn:example:f-0")); return err },
			"history":       func() error { _, _, err := svc.History(ctx, urn.MustParse("urn:example:f-1")); return err },
			"ping":          func() error { return st.Ping(ctx) },
		}
		for name, call := range calls {
			start := time.Now()
			err := call()
			took := time.Since(start)
			if resolver.KindOf(err) != resolver.KindUnavailable {
				t.Errorf("%s: %s with the server down: %v (kind %v), want unavailable", how, name, err, resolver.KindOf(err))
			}
			if took > time.Second {
				t.Errorf("%s: %s took %v to fail", how, name, took)
			}
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		// Back: the same Store recovers by itself.
		deadline := time.Now().Add(15 * time.Second)
		for {
			err := write()
			if err == nil {
				break
			}
			if resolver.KindOf(err) != resolver.KindUnavailable || time.Now().After(deadline) {
				t.Fatalf("%s: writes did not come back: %v", how, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		for i := range acked {
			name := fmt.Sprintf("urn:example:f-%d", i)
			if got, err := roundOf(ctx, in, name); err != nil || got != i {
				t.Fatalf("%s: acknowledged write %s reads back as round %d, %v", how, name, got, err)
			}
		}
		waitListening(t, st)
	}
	if n, err := svc.Verify(ctx, nil); err != nil || n != int64(acked)+2 {
		t.Fatalf("history after the faults: %d entries, %v; want %d", n, err, acked+2)
	}
}
