package postgres_test

import (
	"context"
	"fmt"
	"sync/atomic"
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
			"history":       func() error { _, _, err := svc.History(ctx, urn.MustParse("urn:example:f-1"), 0, 10); return err },
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

// TestServerHangs freezes the server (every process stopped, connections
// left open and unanswered): calls fail with KindUnavailable within the
// Store's Timeout instead of hanging, and work again once it thaws.
func TestServerHangs(t *testing.T) {
	c := pgtest.Start(t, pgtest.Options{})
	const timeout = 700 * time.Millisecond
	st := open(t, c.NewDB(t), postgres.Options{Timeout: timeout, ConnectTimeout: 300 * time.Millisecond})
	svc := resolver.New(st, resolver.Options{AdminToken: "admin"})
	ctx := context.Background()
	admin, _ := svc.Authenticate(ctx, "admin")
	if _, _, err := svc.CreateAuthority(ctx, admin, "Example", []string{"urn:example:"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Freeze(); err != nil {
		t.Fatal(err)
	}
	thawed := false
	defer func() {
		if !thawed {
			c.Thaw()
		}
	}()
	for name, call := range map[string]func() error{
		"lookup": func() error { _, err := svc.Lookup(ctx, urn.MustParse("urn:example:x")); return err },
		"write": func() error {
			_, err := svc.AddRule(ctx, admin, "urn:nbn:de:", "https://de.example/")
			return err
		},
	} {
		start := time.Now()
		err := call()
		took := time.Since(start)
		t.Logf("%s on a hung server failed after %v", name, took.Round(time.Millisecond))
		if resolver.KindOf(err) != resolver.KindUnavailable {
			t.Errorf("%s on a hung server: %v, want unavailable", name, err)
		}
		// The read may run twice (a retry on a broken connection), each
		// bounded by the timeout; nothing waits longer.
		if took > 2*timeout+500*time.Millisecond {
			t.Errorf("%s took %v on a hung server (timeout %v)", name, took, timeout)
		}
	}
	// The listener finds out that its connection no longer answers,
	// though nothing closed it: the store stops trusting its cache.
	deadline := time.Now().Add(5 * time.Second)
	for st.Stats().Listening {
		if time.Now().After(deadline) {
			t.Fatal("the store still believes it is listening to a hung server after 5s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := c.Thaw(); err != nil {
		t.Fatal(err)
	}
	thawed = true
	waitListening(t, st)
	deadline = time.Now().Add(15 * time.Second)
	for {
		_, err := svc.AddRule(ctx, admin, "urn:nbn:ch:", "https://ch.example/")
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("writes did not come back after the thaw: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := svc.Lookup(ctx, urn.MustParse("urn:example:x")); resolver.KindOf(err) != resolver.KindNotFound {
		t.Fatalf("lookup after the thaw: %v", err)
	}
}

// checked counts the lookups that reach the store and keeps what the
// cache checks answered.
type checked struct {
	counting
	checks   atomic.Int64
	checkErr atomic.Value // error: the last failed check's
}

func (c *checked) CacheCurrent(ctx context.Context) (bool, error) {
	c.checks.Add(1)
	cur, err := c.Store.CacheCurrent(ctx)
	if err != nil {
		c.checkErr.Store(err)
	}
	return cur, err
}

// TestServerHangsUnderACachedName: a name in the lookup cache, looked up
// while the server is frozen, fails with KindUnavailable once its cache
// check has timed out, without asking the store for the name as well: the
// caller waits one Timeout, as for any other call, not two.
func TestServerHangsUnderACachedName(t *testing.T) {
	c := pgtest.Start(t, pgtest.Options{})
	st := open(t, c.NewDB(t), postgres.Options{Timeout: 700 * time.Millisecond, ConnectTimeout: 300 * time.Millisecond})
	wrapped := &checked{counting: counting{Store: st}}
	svc, m := service(t, wrapped)
	ctx := context.Background()
	waitListening(t, st)
	if _, _, err := svc.Put(ctx, m, "urn:example:hot", recordInput("https://example.org/hot")); err != nil {
		t.Fatal(err)
	}
	name := urn.MustParse("urn:example:hot")
	// Cached once the Put's notification is in: a lookup then reads
	// nothing from the store.
	for i := 0; ; i++ {
		before := wrapped.reads.Load()
		if _, err := svc.Lookup(ctx, name); err != nil {
			t.Fatal(err)
		}
		if wrapped.reads.Load() == before {
			break
		}
		if i == 200 {
			t.Fatal("the name is not served from the cache after 200 lookups")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := c.Freeze(); err != nil {
		t.Fatal(err)
	}
	defer c.Thaw()
	// The listener finds out about the hang only after 2 s of quiet, so
	// the check now asks the frozen server, and times out.
	checks, reads := wrapped.checks.Load(), wrapped.reads.Load()
	_, err := svc.Lookup(ctx, name)
	if resolver.KindOf(err) != resolver.KindUnavailable {
		t.Fatalf("cached lookup on a hung server: %v, want unavailable", err)
	}
	if wrapped.checks.Load() != checks+1 || wrapped.checkErr.Load() == nil {
		t.Fatalf("the cache check did not fail (the listener gave up first?): %d checks, error %v", wrapped.checks.Load()-checks, wrapped.checkErr.Load())
	}
	if n := wrapped.reads.Load() - reads; n != 0 {
		t.Fatalf("after its cache check timed out, the lookup asked the store %d more times: a second timeout", n)
	}
}

// TestFirstLookupAfterARestart: the first lookup after the server
// restarted (fast shutdown) is answered, not a 503, though the pooled
// connection it takes was closed by the restart and answers with the
// server's goodbye (57P01): the read — or a cached name's check, which is
// not handed on to a read when it fails — runs once more on another
// connection.
func TestFirstLookupAfterARestart(t *testing.T) {
	c := pgtest.Start(t, pgtest.Options{})
	st := open(t, c.NewDB(t), postgres.Options{})
	svc, m := service(t, st)
	ctx := context.Background()
	if _, _, err := svc.Put(ctx, m, "urn:example:hot", recordInput("https://example.org/hot")); err != nil {
		t.Fatal(err)
	}
	for _, first := range []string{"urn:example:hot", "urn:example:never-stored"} {
		name := urn.MustParse(first)
		_, err := svc.Lookup(ctx, name)
		want := resolver.KindOf(err)
		if err := c.Stop(); err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		waitListening(t, st) // the cache is trusted again
		if _, err := svc.Lookup(ctx, name); resolver.KindOf(err) != want {
			t.Fatalf("the first lookup of %s after a restart: %v (%s)", first, err, resolver.Cause(err))
		}
	}
}
