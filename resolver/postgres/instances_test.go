package postgres_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/urn"
)

// instance is one urikit process's view: a Store of its own on the shared
// database, and a Service (with its lookup cache) over it.
type instance struct {
	st    *postgres.Store
	svc   *resolver.Service
	maint resolver.Principal // a maintainer of urn:example:
}

// counting counts the lookups that reach the store; embedding keeps the
// Store's other methods, Watch and CacheCurrent among them.
type counting struct {
	*postgres.Store
	reads atomic.Int64
}

func (c *counting) RecordByKey(ctx context.Context, key string) (resolver.Record, resolver.Role, error) {
	c.reads.Add(1)
	return c.Store.RecordByKey(ctx, key)
}

// twoInstances opens two instances on one fresh database, with an
// authority for urn:example: whose token both know.
func twoInstances(t *testing.T, wrap func(*postgres.Store) resolver.Store) [2]instance {
	t.Helper()
	ctx := context.Background()
	dsn := cluster.NewDB(t)
	var out [2]instance
	var token string
	for i := range out {
		st := open(t, dsn, postgres.Options{})
		var rs resolver.Store = st
		if wrap != nil {
			rs = wrap(st)
		}
		out[i] = instance{st: st, svc: resolver.New(rs, resolver.Options{AdminToken: "admin"})}
		if i == 0 {
			admin, _ := out[0].svc.Authenticate(ctx, "admin")
			var err error
			if _, token, err = out[0].svc.CreateAuthority(ctx, admin, "Example", []string{"urn:example:"}); err != nil {
				t.Fatal(err)
			}
		}
		p, err := out[i].svc.Authenticate(ctx, token)
		if err != nil {
			t.Fatal(err)
		}
		out[i].maint = p
	}
	waitListening(t, out[0].st, out[1].st)
	return out
}

func waitListening(t *testing.T, sts ...*postgres.Store) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, st := range sts {
		for !st.Stats().Listening {
			if time.Now().After(deadline) {
				t.Fatal("store not listening after 10s")
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// put writes name with one location whose last path segment is round.
func put(ctx context.Context, in instance, name string, round int) error {
	_, _, err := in.svc.Put(ctx, in.maint, name, resolver.RecordInput{
		Locations: []resolver.Location{{URL: "https://example.org/" + name + "/" + strconv.Itoa(round)}}})
	return err
}

// roundOf reads back the round a record was written in (-1: no record).
func roundOf(ctx context.Context, in instance, name string) (int, error) {
	rec, err := in.svc.Lookup(ctx, urn.MustParse(name))
	if resolver.KindOf(err) == resolver.KindNotFound {
		return -1, nil
	}
	if err != nil {
		return 0, err
	}
	u := rec.Locations[0].URL
	return strconv.Atoi(u[strings.LastIndexByte(u, '/')+1:])
}

// TestCacheWindowAcrossInstances races writes through both instances
// against cached lookups through both: a lookup that starts after a write
// was acknowledged, through either instance, never returns what the
// record was before that write.
func TestCacheWindowAcrossInstances(t *testing.T) {
	var counters [2]*counting
	n := 0
	ins := twoInstances(t, func(st *postgres.Store) resolver.Store {
		c := &counting{Store: st}
		counters[n] = c
		n++
		return c
	})
	ctx := context.Background()
	const names, readers = 3, 4
	rounds := 150
	if testing.Short() {
		rounds = 30
	}
	var acked [names]atomic.Int64
	for i := range names {
		acked[i].Store(-1)
	}
	name := func(i int) string { return fmt.Sprintf("urn:example:window-%d", i) }

	var wg sync.WaitGroup
	var lookups, stale atomic.Int64
	errs := make(chan error, names+2*readers)
	stop := make(chan struct{})
	for i := range names {
		wg.Add(1)
		go func() { // one writer per name, alternating instances
			defer wg.Done()
			for r := range rounds {
				if err := put(ctx, ins[r%2], name(i), r); err != nil {
					errs <- fmt.Errorf("put %s round %d: %w", name(i), r, err)
					return
				}
				acked[i].Store(int64(r))
			}
		}()
	}
	var rwg sync.WaitGroup
	for g := range 2 * readers {
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			in := ins[g%2]
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				i := k % names
				want := acked[i].Load() // acknowledged before the lookup starts
				got, err := roundOf(ctx, in, name(i))
				if err != nil {
					errs <- err
					return
				}
				lookups.Add(1)
				if int64(got) < want {
					stale.Add(1)
					errs <- fmt.Errorf("instance %d read %s as of round %d after round %d was acknowledged", g%2, name(i), got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	rwg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	storeReads := counters[0].reads.Load() + counters[1].reads.Load()
	st0, st1 := ins[0].st.Stats(), ins[1].st.Stats()
	t.Logf("%d writes, %d lookups, %d went to the store, cache checks current/stale: %d/%d",
		names*rounds, lookups.Load(), storeReads, st0.CacheCurrent+st1.CacheCurrent, st0.CacheStale+st1.CacheStale)
	if st0.CacheCurrent+st1.CacheCurrent == 0 || storeReads >= lookups.Load() {
		t.Fatal("the cache never answered: the test did not exercise it")
	}
}

// notifyOnly is a Store that passes notifications on but hides
// CacheCurrent (not a resolver.Shared): what LISTEN/NOTIFY alone gives.
type notifyOnly struct{ resolver.Store }

// TestNotifyAloneLeavesAWindow is the control for the test above: with
// notifications alone, a lookup through the other instance right after an
// acknowledged write does find the old record in its cache (the
// notification arrives after the acknowledgement). It shows that the
// window is real and that the race test can see it.
func TestNotifyAloneLeavesAWindow(t *testing.T) {
	ins := twoInstances(t, func(st *postgres.Store) resolver.Store { return notifyOnly{st} })
	for _, in := range ins {
		in.st.Watch(in.svc.Invalidate)
	}
	ctx := context.Background()
	const name = "urn:example:control"
	stale := 0
	for r := 0; r < 500 && stale < 5; r++ {
		if err := put(ctx, ins[0], name, r); err != nil {
			t.Fatal(err)
		}
		got, err := roundOf(ctx, ins[1], name)
		if err != nil {
			t.Fatal(err)
		}
		if got < r {
			stale++
		}
		// Let the notification in, so that the next round starts with
		// the current record in instance 1's cache.
		deadline := time.Now().Add(5 * time.Second)
		for got < r && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
			if got, err = roundOf(ctx, ins[1], name); err != nil {
				t.Fatal(err)
			}
		}
		if got < r {
			t.Fatalf("round %d: the notification never reached instance 1", r)
		}
	}
	t.Logf("stale reads with notifications alone: %d", stale)
	if stale == 0 {
		t.Fatal("no stale read in 500 rounds: the control shows no window, so the race test proves nothing here")
	}
}

// TestEquivalentNamesRaceAcrossInstances: equivalent spellings of one new
// name registered at the same moment through two instances give exactly
// one record, and every racer is answered with that record.
func TestEquivalentNamesRaceAcrossInstances(t *testing.T) {
	ins := twoInstances(t, nil)
	ctx := context.Background()
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	for r := range rounds {
		spellings := []string{
			fmt.Sprintf("urn:example:race-%d", r), fmt.Sprintf("URN:example:race-%d", r),
			fmt.Sprintf("urn:EXAMPLE:race-%d", r), fmt.Sprintf("urn:Example:race-%d", r),
		}
		type answer struct {
			id      int64
			created bool
			err     error
		}
		answers := make(chan answer, 2*len(spellings))
		var start, wg sync.WaitGroup
		start.Add(1)
		for i, sp := range spellings {
			for _, in := range ins {
				wg.Add(1)
				go func() {
					defer wg.Done()
					start.Wait()
					rec, created, err := in.svc.Put(ctx, in.maint, sp, resolver.RecordInput{
						Locations: []resolver.Location{{URL: fmt.Sprintf("https://example.org/%d/%d", r, i)}}})
					answers <- answer{rec.ID, created, err}
				}()
			}
		}
		start.Done()
		wg.Wait()
		close(answers)
		ids := map[int64]bool{}
		created := 0
		for a := range answers {
			if a.err != nil {
				t.Fatalf("round %d: %v", r, a.err)
			}
			ids[a.id] = true
			if a.created {
				created++
			}
		}
		if len(ids) != 1 || created != 1 {
			t.Fatalf("round %d: %d records, %d answered created; want 1 and 1", r, len(ids), created)
		}
	}
	recs, err := ins[1].st.Records(ctx, 0, 10*rounds)
	if err != nil || len(recs) != rounds {
		t.Fatalf("%d records stored for %d names: %v", len(recs), rounds, err)
	}
}

// TestMigrationsRaceAtStart opens several stores on a fresh database at
// once: the schema is made exactly once and every store works.
func TestMigrationsRaceAtStart(t *testing.T) {
	dsn := cluster.NewDB(t)
	const n = 6
	var wg sync.WaitGroup
	stores := make([]*postgres.Store, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			stores[i], errs[i] = postgres.Open(ctx, dsn, postgres.Options{})
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("store %d: %v", i, errs[i])
		}
		defer stores[i].Close()
	}
	ctx := context.Background()
	if err := stores[0].Update(ctx, func(tx resolver.Tx) error { return tx.SetSetting(ctx, "a", "b") }); err != nil {
		t.Fatal(err)
	}
	if v, err := stores[n-1].Setting(ctx, "a"); err != nil || v != "b" {
		t.Fatalf("setting through another store: %q %v", v, err)
	}
	// Migrating again finds the schema current; NoMigrate accepts it.
	if from, err := postgres.Migrate(ctx, dsn); err != nil || from != postgres.SchemaVersion {
		t.Fatalf("Migrate on a current schema: from %d, %v", from, err)
	}
	again := open(t, dsn, postgres.Options{NoMigrate: true})
	if _, err := again.Head(ctx); err != nil {
		t.Fatal(err)
	}
	// A database left empty is refused with NoMigrate.
	_, err := postgres.Open(ctx, cluster.NewDB(t), postgres.Options{NoMigrate: true})
	if err == nil {
		t.Fatal("NoMigrate opened a database without the schema")
	}
	if !strings.Contains(err.Error(), "urikit migrate") {
		t.Fatalf("NoMigrate on an empty database: %v", err)
	}
}
