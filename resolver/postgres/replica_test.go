package postgres_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/internal/pgtest"
	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/urn"
)

func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func dbName(t *testing.T, dsn string) string {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Database
}

// TestReplicaReads runs a Store with a streaming replica made by
// pg_basebackup: reads go to the replica; a read never goes behind what
// the process was notified of; a client that presents its write's
// version reads it even while the replica is stopped in its tracks
// (replay paused); and it measures how far the replica lags.
func TestReplicaReads(t *testing.T) {
	c := pgtest.Start(t, pgtest.Options{})
	dsn := c.NewDB(t)
	r := c.Replica(t)
	rdsn := r.DSN(dbName(t, dsn))
	ctx := context.Background()
	st := open(t, dsn, postgres.Options{ReadDSN: rdsn, ReplicaWait: 50 * time.Millisecond})
	svc := resolver.New(st, resolver.Options{AdminToken: "admin", CacheSize: -1})
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

	// Steady state: reads are served by the replica, once it streams (a
	// standby that has just started may take seconds to connect).
	wctx, commit := postgres.TrackCommits(ctx)
	if err := put(wctx, in, "urn:example:r-0", 0); err != nil {
		t.Fatal(err)
	}
	rconn := connect(t, rdsn)
	waitReplay(t, rconn, commit.Version())
	before := st.Stats()
	for range 50 {
		if got, err := roundOf(ctx, in, "urn:example:r-0"); err != nil || got != 0 {
			t.Fatalf("read: %d %v", got, err)
		}
	}
	after := st.Stats()
	if after.ReplicaReads-before.ReplicaReads < 45 {
		t.Fatalf("only %d of 50 reads went to the replica (%+v)", after.ReplicaReads-before.ReplicaReads, after)
	}

	// Replay paused: the replica stays behind. A write's own version,
	// presented by the client, is read (from the primary, after waiting
	// ReplicaWait), and so is any read through this process, which was
	// notified of the write.
	if _, err := rconn.Exec(ctx, "SELECT pg_wal_replay_pause()"); err != nil {
		t.Fatal(err)
	}
	wctx, commit = postgres.TrackCommits(ctx)
	if err := put(wctx, in, "urn:example:r-0", 1); err != nil {
		t.Fatal(err)
	}
	v := commit.Version()
	if v == 0 {
		t.Fatal("the commit's version was not recorded")
	}
	var onReplica int
	if err := rconn.QueryRow(ctx, "SELECT version FROM head").Scan(&onReplica); err != nil || int64(onReplica) >= v {
		t.Fatalf("replica at version %d with replay paused, write at %d: %v", onReplica, v, err)
	}
	if got, err := roundOf(postgres.ReadAfter(ctx, v), in, "urn:example:r-0"); err != nil || got != 1 {
		t.Fatalf("read-your-write with the replica behind: round %d, %v", got, err)
	}
	if got, err := roundOf(ctx, in, "urn:example:r-0"); err != nil || got != 1 {
		t.Fatalf("read after a notified write with the replica behind: round %d, %v", got, err)
	}
	// Another process that has not heard of the write (no listener yet:
	// its reads go to the primary) or has: either way it reads round 1.
	other := open(t, dsn, postgres.Options{ReadDSN: rdsn, ReplicaWait: 20 * time.Millisecond})
	if rec, _, err := other.RecordByKey(postgres.ReadAfter(ctx, v), urn.MustParse("urn:example:r-0").Key()); err != nil ||
		rec.Locations[0].URL != "https://example.org/urn:example:r-0/1" {
		t.Fatalf("other process, read-your-write: %v %v", rec.Locations, err)
	}
	if _, err := rconn.Exec(ctx, "SELECT pg_wal_replay_resume()"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		s0 := st.Stats()
		if got, err := roundOf(ctx, in, "urn:example:r-0"); err != nil || got != 1 {
			t.Fatalf("after resume: %d %v", got, err)
		}
		if st.Stats().ReplicaReads > s0.ReplicaReads {
			break // back on the replica
		}
		if time.Now().After(deadline) {
			t.Fatal("reads did not go back to the replica after replay resumed")
		}
		time.Sleep(10 * time.Millisecond)
	}

	measureLag(t, in, rconn, dsn)
}

// waitReplay waits until the replica has replayed version v.
func waitReplay(t *testing.T, rconn *pgx.Conn, v int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		// Before the replica replays the schema, there is no head yet.
		var got int64
		var exists bool
		if err := rconn.QueryRow(context.Background(), "SELECT to_regclass('head') IS NOT NULL").Scan(&exists); err != nil {
			t.Fatal(err)
		}
		if exists {
			if err := rconn.QueryRow(context.Background(), "SELECT version FROM head").Scan(&got); err != nil {
				t.Fatal(err)
			}
		}
		if got >= v {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica has not replayed version %d after 30s (at %d)", v, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// measureLag writes through the Store and measures, for each write, how
// long after its acknowledgement (a) the replica has replayed it and (b)
// another process's listener has been notified of it. These bound how
// far a replica read lags: a process reads from the replica only what is
// at least as new as its notifications. URIKIT_PG_LAG_WRITES sets how
// many writes (default 200).
func measureLag(t *testing.T, in instance, rconn *pgx.Conn, dsn string) {
	ctx := context.Background()
	n := 200
	if v, err := strconv.Atoi(os.Getenv("URIKIT_PG_LAG_WRITES")); err == nil && v > 0 {
		n = v
	}
	if testing.Short() {
		n = 30
	}
	listener := open(t, dsn, postgres.Options{})
	waitListening(t, listener)
	var mu sync.Mutex
	heard := map[string]time.Time{}
	listener.Watch(func(keys ...string) {
		now := time.Now()
		mu.Lock()
		for _, k := range keys {
			if _, ok := heard[k]; !ok {
				heard[k] = now
			}
		}
		mu.Unlock()
	})
	var replay, notify []time.Duration
	for i := range n {
		name := fmt.Sprintf("urn:example:lag-%d", i)
		wctx, commit := postgres.TrackCommits(ctx)
		if err := put(wctx, in, name, i); err != nil {
			t.Fatal(err)
		}
		acked := time.Now()
		var v int64
		for {
			if err := rconn.QueryRow(ctx, "SELECT version FROM head").Scan(&v); err != nil {
				t.Fatal(err)
			}
			if v >= commit.Version() {
				break
			}
			if time.Since(acked) > 10*time.Second {
				t.Fatalf("replica did not replay version %d in 10s", commit.Version())
			}
		}
		replay = append(replay, time.Since(acked))
		key := urn.MustParse(name).Key()
		for {
			mu.Lock()
			at, ok := heard[key]
			mu.Unlock()
			if ok {
				notify = append(notify, max(0, at.Sub(acked)))
				break
			}
			if time.Since(acked) > 10*time.Second {
				t.Fatalf("no notification of %s in 10s", name)
			}
			time.Sleep(20 * time.Microsecond)
		}
	}
	q := func(d []time.Duration, p float64) time.Duration {
		s := slices.Clone(d)
		slices.Sort(s)
		return s[min(len(s)-1, int(p*float64(len(s))))]
	}
	t.Logf("after %d acknowledged writes: replica replayed them after p50 %v, p99 %v, max %v; another process was notified after p50 %v, p99 %v, max %v",
		n, q(replay, .5), q(replay, .99), q(replay, 1), q(notify, .5), q(notify, .99), q(notify, 1))
	if q(replay, .99) > 2*time.Second || q(notify, .99) > 2*time.Second {
		t.Fatal("replication or notification p99 above 2s on loopback")
	}
}

// TestReplicaDownCachedName: with the replica down, a name in the lookup
// cache resolves as one that is not: the cache's check, like a read,
// hands over to the primary, rather than answering 503 for the names
// looked up most.
func TestReplicaDownCachedName(t *testing.T) {
	c := pgtest.Start(t, pgtest.Options{})
	dsn := c.NewDB(t)
	r := c.Replica(t)
	ctx := context.Background()
	st := open(t, dsn, postgres.Options{ReadDSN: r.DSN(dbName(t, dsn)), ReplicaWait: 50 * time.Millisecond,
		Timeout: 2 * time.Second, ConnectTimeout: time.Second})
	svc := resolver.New(st, resolver.Options{AdminToken: "admin"})
	admin, _ := svc.Authenticate(ctx, "admin")
	_, tok, err := svc.CreateAuthority(ctx, admin, "Example", []string{"urn:example:"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := svc.Authenticate(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	waitListening(t, st)
	in := instance{st: st, svc: svc, maint: m}
	for _, n := range []string{"urn:example:hot", "urn:example:cold"} {
		if err := put(ctx, in, n, 1); err != nil {
			t.Fatal(err)
		}
	}
	hot := urn.MustParse("urn:example:hot")
	for range 3 {
		if _, err := svc.Lookup(ctx, hot); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Lookup(ctx, urn.MustParse("urn:example:cold")); err != nil {
		t.Fatalf("a name not in the cache, the replica down: %v", err)
	}
	for range 3 {
		if got, err := roundOf(ctx, in, "urn:example:hot"); err != nil || got != 1 {
			t.Fatalf("a name in the cache, the replica down: %d %v", got, err)
		}
	}
}
