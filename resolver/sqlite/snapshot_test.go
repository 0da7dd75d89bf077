package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/sqlite"
	"github.com/urikit/urikit/urn"
)

// TestSnapshotReaders: the lookup path keeps a read transaction open
// across lookups, and drops it when this process commits, when Changed
// sees another process's commit, and when it is older than its age limit;
// an idle one is ended by the sweeper, so that the WAL can be
// checkpointed. Each rule is checked against the staleness it prevents.
func TestSnapshotReaders(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := newFixture(t, dir) // another process, for b
	// b keeps a snapshot for an hour unless told otherwise.
	b := openStore(t, dir, sqlite.Options{Readers: 1, SnapshotAge: time.Hour})
	bsvc := resolver.New(b, resolver.Options{AdminToken: adminToken})
	key := func(name string) string { return urn.MustParse(name).Key() }
	found := func(name string) bool {
		t.Helper()
		_, _, err := b.RecordByKey(ctx, key(name))
		if err != nil && resolver.KindOf(err) != resolver.KindNotFound {
			t.Fatal(err)
		}
		return err == nil
	}
	put := func(svc *resolver.Service, p resolver.Principal, name string) {
		t.Helper()
		if _, _, err := svc.Put(ctx, p, name, input("https://example.org/"+name)); err != nil {
			t.Fatal(err)
		}
	}

	if found("urn:example:other") {
		t.Fatal("found before any write")
	}
	put(a.svc, a.m, "urn:example:other")
	if found("urn:example:other") {
		t.Fatal("the held snapshot saw another process's write: the test below proves nothing")
	}
	if changed, err := b.Changed(ctx); err != nil || !changed {
		t.Fatalf("Changed: %v %v", changed, err)
	}
	if !found("urn:example:other") {
		t.Fatal("another process's write unseen after Changed reported it")
	}
	put(bsvc, resolver.Operator, "urn:example:own")
	if !found("urn:example:own") {
		t.Fatal("this process's acknowledged write unseen")
	}

	// A snapshot held by an idle reader keeps a TRUNCATE checkpoint from
	// completing (busy = 1); the sweeper ends it once it is past its age.
	checkpointBusy := func() int {
		t.Helper()
		var busy, log, done int
		if err := rawDB(t, a.st).QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &log, &done); err != nil {
			t.Fatal(err)
		}
		return busy
	}
	found("urn:example:own") // b's reader holds a snapshot again
	put(a.svc, a.m, "urn:example:later")
	if checkpointBusy() != 1 {
		t.Fatal("the checkpoint completed past a held snapshot: the sweeper's test proves nothing")
	}
	b.Close()
	b = openStore(t, dir, sqlite.Options{Readers: 1, SnapshotAge: time.Millisecond})
	found("urn:example:own")
	put(a.svc, a.m, "urn:example:later2")
	time.Sleep(200 * time.Millisecond) // a few sweeps
	if checkpointBusy() != 0 {
		t.Fatal("an idle reader's snapshot still holds the WAL after the sweeper ran")
	}
	// And a snapshot past its age is not used, Changed or not.
	put(a.svc, a.m, "urn:example:aged")
	time.Sleep(2 * time.Millisecond)
	if !found("urn:example:aged") {
		t.Fatal("a snapshot past its age was used")
	}
}
