package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/urikit/urikit/resolver"
)

// testPreconditions: Put and Withdraw evaluate their preconditions in
// the write's own transaction. Writers in two processes (two Services,
// on two handles when the backend has them) that require the same
// record state cannot both write: one does, the others get
// KindPrecondition with the winner's ETag.
func testPreconditions(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	s2store := secondHandle(t, b, e.store)
	svcs := []*resolver.Service{e.svc, resolver.New(s2store, resolver.Options{AdminToken: adminToken, Clock: e.clock.Now})}
	const name = "urn:example:a-cond"
	rec, _ := e.put(e.a, name, input("http://x/0"))
	tag := rec.ETag()
	for round := range 5 {
		var wg sync.WaitGroup
		recs := make([]resolver.Record, 4)
		errs := make([]error, 4)
		for w := range recs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				recs[w], _, errs[w] = svcs[w%2].Put(c, e.a, name, input(fmt.Sprintf("http://x/%d/%d", round, w)),
					resolver.Precondition{IfMatch: []string{tag}})
			}()
		}
		wg.Wait()
		won := -1
		for w, err := range errs {
			switch {
			case err == nil && won >= 0:
				t.Fatalf("round %d: two Puts that required ETag %s both wrote", round, tag)
			case err == nil:
				won = w
			default:
				wantKind(t, "losing Put", err, resolver.KindPrecondition)
			}
		}
		if won < 0 {
			t.Fatalf("round %d: no Put with the current ETag wrote: %v", round, errs)
		}
		tag = recs[won].ETag()
		for w, err := range errs {
			if w != won {
				if re := wantKind(t, "losing Put", err, resolver.KindPrecondition); re.ETag != tag || re.Field != "If-Match" {
					t.Fatalf("round %d: the loser's error: %+v, want the winner's ETag %s", round, re, tag)
				}
			}
		}
		// The ETag is the record's as every handle reads it back.
		for i, st := range []resolver.Store{e.store, s2store} {
			got, _, err := st.RecordByKey(c, recs[won].Key)
			if err != nil || got.ETag() != tag {
				t.Fatalf("round %d: handle %d reads ETag %s (%v), the write answered %s", round, i, got.ETag(), err, tag)
			}
		}
	}

	// Withdraw: a stale ETag changes nothing; the current one withdraws.
	stale := rec.ETag()
	_, err := svcs[1].Withdraw(c, e.a, name, "r", "", resolver.Precondition{IfMatch: []string{stale}})
	if re := wantKind(t, "Withdraw with a stale ETag", err, resolver.KindPrecondition); re.ETag != tag {
		t.Fatalf("stale Withdraw: %+v, want ETag %s", re, tag)
	}
	if got, _ := e.lookup(name); got.Status != resolver.Active {
		t.Fatalf("a Withdraw whose precondition failed withdrew: %+v", got)
	}
	w, err := svcs[1].Withdraw(c, e.a, name, "r", "", resolver.Precondition{IfMatch: []string{tag}})
	if err != nil || w.Status != resolver.Withdrawn || w.ETag() == tag {
		t.Fatalf("Withdraw with the current ETag: %+v %v", w, err)
	}
	// If-None-Match: * on a name without a record creates it.
	if _, created, err := e.svc.Put(c, e.a, "urn:example:a-new", input("http://x/n"), resolver.Precondition{IfNoneMatch: []string{"*"}}); err != nil || !created {
		t.Fatalf("create-only Put of a new name: %v %v", created, err)
	}
	_, _, err = e.svc.Put(c, e.a, "URN:EXAMPLE:a-new", input("http://x/m"), resolver.Precondition{IfNoneMatch: []string{"*"}})
	wantKind(t, "create-only Put of an equivalent spelling", err, resolver.KindPrecondition)
}
