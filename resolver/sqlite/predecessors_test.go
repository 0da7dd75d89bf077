package sqlite_test

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestPredecessorsOneSnapshot: the records a record replaces are read
// from one snapshot, whatever the number of its keys. A notice restated
// again and again, its successor moving between a record's name and its
// alias, names that record all along: every read finds it once.
func TestPredecessorsOneSnapshot(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, t.TempDir())
	in := input("https://example.org/new")
	in.Aliases = []string{"urn:example:alias"}
	if _, _, err := f.svc.Put(ctx, f.m, "urn:example:new", in); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.Put(ctx, f.m, "urn:example:old", input("https://example.org/old")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Withdraw(ctx, f.m, "urn:example:old", "r", "urn:example:new"); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		successors := []string{"urn:example:alias", "urn:example:new"}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := f.svc.Withdraw(ctx, f.m, "urn:example:old", "r", successors[i%2]); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	keys := []string{"urn:example:new", "urn:example:alias"}
	deadline := time.Now().Add(3 * time.Second)
	for i := 0; i < 5000 && time.Now().Before(deadline); i++ {
		recs, err := f.st.Predecessors(ctx, keys, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 1 {
			t.Fatalf("read %d: %d predecessors, want the one", i, len(recs))
		}
	}
}
