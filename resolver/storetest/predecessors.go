package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/urn"
)

// predecessors returns the Service's predecessors of the record name
// resolves to.
func (e *env) predecessors(name string) []string {
	e.t.Helper()
	rec, err := e.lookup(name)
	if err != nil {
		e.t.Fatalf("lookup %s: %v", name, err)
	}
	got, _, err := e.svc.Predecessors(ctx(e.t), rec)
	if err != nil {
		e.t.Fatalf("Predecessors of %s: %v", name, err)
	}
	return got
}

func (e *env) withdraw(name, successor string) resolver.Record {
	e.t.Helper()
	r, err := e.svc.Withdraw(ctx(e.t), e.a, name, "replaced", successor)
	if err != nil {
		e.t.Fatalf("Withdraw %s → %s: %v", name, successor, err)
	}
	return r
}

func wantNames(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s: predecessors %q, want %q", what, got, want)
	}
}

// testPredecessors: the records a record replaces are the withdrawn
// records whose successor is a URN equivalent to its name or one of its
// aliases, found by key.
func testPredecessors(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	e.put(e.a, "urn:example:a1", input("http://x/1"))
	e.put(e.a, "urn:example:a2", input("http://x/2"))
	e.put(e.a, "urn:example:a3", input("http://x/3"))
	e.put(e.a, "urn:example:a4", input("http://x/4"))
	e.put(e.a, "urn:isbn:0-395-36341-1", input("http://x/isbn10"))

	// Named before it exists: counts once it is registered.
	w := e.withdraw("urn:example:a1", "urn:example:a5")
	if w.SuccessorKey != "urn:example:a5" || w.SuccessorVersion != urn.KeyVersion {
		t.Fatalf("Withdraw stores the successor key %q version %d", w.SuccessorKey, w.SuccessorVersion)
	}
	if got, err := e.store.Predecessors(c, []string{"urn:example:a5"}, 0, 10); err != nil || len(got) != 1 || got[0].URN != "urn:example:a1" {
		t.Fatalf("store.Predecessors before the successor exists: %+v %v", got, err)
	}
	// An equivalent spelling (RFC 8141 §3.1: the "urn" and NID case, the
	// f-component) of the successor's name.
	e.withdraw("urn:example:a2", "URN:Example:a5#part")
	in := input("http://x/5")
	in.Aliases = []string{"urn:example:a5-alias"}
	e.put(e.a, "urn:example:a5", in)
	wantNames(t, "registered after the withdrawals", e.predecessors("urn:example:a5"), "urn:example:a1", "urn:example:a2")
	// The alias of a record: the record it names is the successor.
	e.withdraw("urn:example:a3", "urn:example:a5-alias")
	wantNames(t, "successor named by an alias", e.predecessors("urn:example:a5"), "urn:example:a1", "urn:example:a2", "urn:example:a3")
	wantNames(t, "found by the alias too", e.predecessors("urn:example:a5-alias"), "urn:example:a1", "urn:example:a2", "urn:example:a3")
	// An equivalence of the namespace (ISBN-10 and ISBN-13).
	e.withdraw("urn:example:a4", "urn:isbn:9780395363416")
	wantNames(t, "ISBN-13 successor of an ISBN-10 name", e.predecessors("urn:isbn:0-395-36341-1"), "urn:example:a4")
	// A restated notice moves the link, or drops it.
	e.withdraw("urn:example:a3", "urn:isbn:0395363411")
	wantNames(t, "after the notice of a3 was restated", e.predecessors("urn:example:a5"), "urn:example:a1", "urn:example:a2")
	wantNames(t, "a3 moved here", e.predecessors("urn:isbn:9780395363416"), "urn:example:a3", "urn:example:a4")
	e.withdraw("urn:example:a3", "")
	wantNames(t, "a3's successor dropped", e.predecessors("urn:isbn:9780395363416"), "urn:example:a4")
	// A URL successor links to no record.
	e.withdraw("urn:example:a2", "https://example.org/urn:example:a5")
	wantNames(t, "a2's successor is a URL", e.predecessors("urn:example:a5"), "urn:example:a1")
	if w := e.withdraw("urn:example:a2", "https://example.org/a5"); w.SuccessorKey != "" || w.SuccessorVersion != urn.KeyVersion {
		t.Fatalf("a URL successor stores the key %q version %d", w.SuccessorKey, w.SuccessorVersion)
	}
	// A withdrawn record has predecessors too, and the store reads them in
	// a transaction as outside.
	e.withdraw("urn:example:a5", "urn:example:a6")
	wantNames(t, "a withdrawn successor", e.predecessors("urn:example:a5"), "urn:example:a1")
	update(t, e.store, func(tx resolver.Tx) error {
		got, err := tx.Predecessors(c, []string{"urn:example:a6", "urn:example:a5", "urn:nothing:here"}, 0, 10)
		if err != nil {
			return err
		}
		if len(got) != 2 || got[0].URN != "urn:example:a1" || got[1].URN != "urn:example:a5" {
			t.Errorf("tx.Predecessors: %+v", got)
		}
		if none, err := tx.Predecessors(c, nil, 0, 10); err != nil || len(none) != 0 {
			t.Errorf("tx.Predecessors of no keys: %+v %v", none, err)
		}
		return nil
	})
	// The entity-tag of the record as shown with its predecessors is the
	// one a conditional write compares; the record's own form without
	// them is not current.
	a6in := input("http://x/6")
	e.put(e.a, "urn:example:a6", a6in)
	shown, err := e.svc.WithPredecessors(c, mustLookup(t, e, "urn:example:a6"))
	if err != nil || !slices.Equal(shown.Predecessors, []string{"urn:example:a5"}) {
		t.Fatalf("WithPredecessors: %+v %v", shown, err)
	}
	bare := shown
	bare.Predecessors = nil
	if bare.ETag() == shown.ETag() {
		t.Fatal("the predecessors do not change the entity-tag")
	}
	a6in.Locations = append(a6in.Locations, resolver.Location{URL: "http://x/6b"})
	_, _, err = e.svc.Put(c, e.a, "urn:example:a6", a6in, resolver.Precondition{IfMatch: []string{bare.ETag()}})
	wantKind(t, "If-Match with the tag of the record without its predecessors", err, resolver.KindPrecondition)
	put, _, err := e.svc.Put(c, e.a, "urn:example:a6", a6in, resolver.Precondition{IfMatch: []string{shown.ETag()}})
	if err != nil || !slices.Equal(put.Predecessors, []string{"urn:example:a5"}) {
		t.Fatalf("Put with If-Match of the shown record: %+v %v", put, err)
	}
	// Neither the store nor the history holds them.
	if stored, err := e.store.Record(c, put.ID); err != nil || stored.Predecessors != nil {
		t.Fatalf("stored: %+v %v", stored, err)
	}
	for _, en := range e.history("urn:example:a6") {
		if strings.Contains(string(en.Data), "predecessors") {
			t.Fatalf("history entry %d holds the predecessors: %s", en.Seq, en.Data)
		}
	}
	shown, _ = e.svc.WithPredecessors(c, mustLookup(t, e, "urn:example:a5"))
	w, err = e.svc.Withdraw(c, e.a, "urn:example:a5", "replaced", "urn:example:a6", resolver.Precondition{IfMatch: []string{shown.ETag()}})
	if err != nil || !slices.Equal(w.Predecessors, []string{"urn:example:a1"}) {
		t.Fatalf("restating a5's notice with If-Match of the shown record: %+v %v", w, err)
	}
	if _, err := e.svc.Verify(c, nil); err != nil {
		t.Fatalf("Verify: %v", err)
	}
}

// testManyPredecessors: a record that many withdrawn names replace is
// shown with the first MaxPredecessors of them and MorePredecessors; the
// store reads no more than it needs, by an alias's key too.
func testManyPredecessors(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	in := input("http://x/new")
	in.Aliases = []string{"urn:example:a-new-alias"}
	e.put(e.a, "urn:example:a-new", in)
	n := resolver.MaxPredecessors + 3
	var want []string
	for i := range n {
		name := fmt.Sprintf("urn:example:a-old-%03d", i)
		e.put(e.a, name, input(fmt.Sprintf("http://x/old/%d", i)))
		successor := "urn:example:a-new"
		if i%2 == 1 {
			successor = "URN:EXAMPLE:a-new-alias" // by the alias, in another spelling
		}
		e.withdraw(name, successor)
		want = append(want, name)
	}
	rec := mustLookup(t, e, "urn:example:a-new")
	names, more, err := e.svc.Predecessors(c, rec)
	if err != nil || !more {
		t.Fatalf("Predecessors of a record %d names replace: more %v, %v", n, more, err)
	}
	wantNames(t, "many", names, want[:resolver.MaxPredecessors]...)
	shown, err := e.svc.WithPredecessors(c, rec)
	if err != nil || !shown.MorePredecessors || len(shown.Predecessors) != resolver.MaxPredecessors {
		t.Fatalf("WithPredecessors: %d, more %v, %v", len(shown.Predecessors), shown.MorePredecessors, err)
	}
	// The store's limit holds for each key and for all of them.
	keys := []string{"urn:example:a-new", "urn:example:a-new-alias"}
	for _, limit := range []int{1, 5, n - 1, n, n + 10} {
		got, err := e.store.Predecessors(c, keys, 0, limit)
		if err != nil || len(got) != min(limit, n) {
			t.Fatalf("store.Predecessors(limit %d): %d records, %v", limit, len(got), err)
		}
		for i, r := range got {
			if r.URN != want[i] {
				t.Fatalf("store.Predecessors(limit %d)[%d] = %s, want %s (the first by ID)", limit, i, r.URN, want[i])
			}
		}
	}
	// Page by page, past the first MaxPredecessors, by both keys; the
	// record itself is never among them (a store edited by hand might
	// name it as its own successor).
	for _, size := range []int{1, 7, n, n + 1} {
		var all []string
		for after, pages := int64(0), 0; ; pages++ {
			page, more, err := e.svc.PredecessorsAfter(c, rec, after, size)
			if err != nil || len(page) > size || (more && len(page) != size) || pages > n {
				t.Fatalf("PredecessorsAfter(%d, %d): %d, more %v, %v", after, size, len(page), more, err)
			}
			for _, p := range page {
				all = append(all, p.URN)
				after = p.ID
			}
			if !more {
				break
			}
		}
		wantNames(t, fmt.Sprintf("pages of %d", size), all, want...)
	}
	// One fewer: all are shown, and no "more".
	e.withdraw(want[0], "urn:example:a-elsewhere")
	e.withdraw(want[1], "urn:example:a-elsewhere")
	e.withdraw(want[2], "urn:example:a-elsewhere")
	names, more, err = e.svc.Predecessors(c, rec)
	if err != nil || more || len(names) != resolver.MaxPredecessors {
		t.Fatalf("Predecessors of a record %d names replace: %d, more %v, %v", resolver.MaxPredecessors, len(names), more, err)
	}
}

func mustLookup(t *testing.T, e *env, name string) resolver.Record {
	t.Helper()
	r, err := e.lookup(name)
	if err != nil {
		t.Fatalf("lookup %s: %v", name, err)
	}
	return r
}

// testMigrateSuccessors: a successor key of an older urn.KeyVersion is
// computed again by Migrate, which links the records the new rules make
// equivalent.
func testMigrateSuccessors(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	e.put(e.a, "urn:isbn:9780395363416", input("http://x/"))
	e.put(e.a, "urn:example:a1", input("http://y/"))
	w := e.withdraw("urn:example:a1", "urn:ISBN:0-395-36341-1")
	// As an older build would have stored it: the lexical key.
	update(t, e.store, func(tx resolver.Tx) error {
		rec, err := tx.Record(c, w.ID)
		if err != nil {
			return err
		}
		rec.SuccessorKey, rec.SuccessorVersion = "urn:isbn:0-395-36341-1", urn.KeyVersion-1
		return tx.UpdateRecord(c, rec)
	})
	wantNames(t, "before Migrate", e.predecessors("urn:isbn:9780395363416"))
	if st, err := e.store.StaleSuccessors(c, urn.KeyVersion, 0, 10); err != nil || len(st) != 1 || st[0].ID != w.ID {
		t.Fatalf("StaleSuccessors: %+v %v", st, err)
	}
	// An older key is not Verify's to judge: Migrate computes it again.
	if _, err := e.svc.Verify(c, nil); err != nil {
		t.Fatalf("Verify before Migrate: %v", err)
	}
	rep, err := e.svc.Migrate(c)
	if err != nil || rep.SuccessorsChecked != 1 || rep.SuccessorsRekeyed != 1 {
		t.Fatalf("Migrate: %+v %v", rep, err)
	}
	wantNames(t, "after Migrate", e.predecessors("urn:isbn:9780395363416"), "urn:example:a1")
	if st, err := e.store.StaleSuccessors(c, urn.KeyVersion, 0, 10); err != nil || len(st) != 0 {
		t.Fatalf("StaleSuccessors after Migrate: %+v %v", st, err)
	}
	if rep, err := e.svc.Migrate(c); err != nil || rep.SuccessorsChecked != 0 {
		t.Fatalf("second Migrate: %+v %v", rep, err)
	}
	if _, err := e.svc.Verify(c, nil); err != nil {
		t.Fatal(err)
	}
}

// testMigrateMissingSuccessorKeys: a record with a successor but no key
// for it (withdrawn before the store had the column, or since by a build
// that did not know it; PostgreSQL's schema 3 leaves every old one so) is
// a state error Verify reports until Migrate computes the key, which links
// it to its successor; a URL successor gets its version (and no key).
func testMigrateMissingSuccessorKeys(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	e.put(e.a, "urn:example:a2", input("http://x/"))
	e.put(e.a, "urn:example:a1", input("http://y/"))
	e.put(e.a, "urn:example:a3", input("http://z/"))
	w := e.withdraw("urn:example:a1", "URN:example:a2")
	u := e.withdraw("urn:example:a3", "https://example.org/a3")
	for _, id := range []int64{w.ID, u.ID} {
		update(t, e.store, func(tx resolver.Tx) error {
			rec, err := tx.Record(c, id)
			if err != nil {
				return err
			}
			rec.SuccessorKey, rec.SuccessorVersion = "", 0
			return tx.UpdateRecord(c, rec)
		})
	}
	wantNames(t, "before Migrate", e.predecessors("urn:example:a2"))
	if st, err := e.store.StaleSuccessors(c, urn.KeyVersion, 0, 10); err != nil || len(st) != 2 || st[0].ID != w.ID || st[1].ID != u.ID {
		t.Fatalf("StaleSuccessors: %+v %v, want records %d and %d", st, err, w.ID, u.ID)
	}
	var se *resolver.StateError
	if _, err := e.svc.Verify(c, nil); !errors.As(err, &se) || se.RecordID != w.ID || !strings.Contains(se.Reason, "no successor key") {
		t.Fatalf("Verify before Migrate: %v, want a state error of record %d", err, w.ID)
	}
	rep, err := e.svc.Migrate(c)
	if err != nil || rep.SuccessorsChecked != 2 || rep.SuccessorsRekeyed != 1 {
		t.Fatalf("Migrate: %+v %v, want 2 successors checked, 1 re-keyed", rep, err)
	}
	wantNames(t, "after Migrate", e.predecessors("urn:example:a2"), "urn:example:a1")
	if got := mustLookup(t, e, "urn:example:a3"); got.SuccessorKey != "" || got.SuccessorVersion != urn.KeyVersion {
		t.Fatalf("the record with a URL successor after Migrate: key %q version %d", got.SuccessorKey, got.SuccessorVersion)
	}
	if st, err := e.store.StaleSuccessors(c, urn.KeyVersion, 0, 10); err != nil || len(st) != 0 {
		t.Fatalf("StaleSuccessors after Migrate: %+v %v", st, err)
	}
	if _, err := e.svc.Verify(c, nil); err != nil {
		t.Fatalf("Verify after Migrate: %v", err)
	}
}

// testVerifySuccessorKey: Verify finds a stored successor key that its
// successor does not give.
func testVerifySuccessorKey(t *testing.T, b Backend) {
	c := ctx(t)
	for _, tc := range []struct {
		name      string
		successor string
		edit      func(*resolver.Record)
		want      string
	}{
		{"Corrupted", "urn:example:a2", func(r *resolver.Record) { r.SuccessorKey = "urn:example:a-forged" }, `successor key "urn:example:a-forged"`},
		{"OfURL", "https://example.org/a2", func(r *resolver.Record) { r.SuccessorKey = "urn:example:a2" }, `successor key "urn:example:a2"`},
		{"Missing", "urn:example:a2", func(r *resolver.Record) { r.SuccessorKey, r.SuccessorVersion = "", 0 }, "no successor key"},
		{"OfNoSuccessor", "", func(r *resolver.Record) { r.SuccessorKey, r.SuccessorVersion = "urn:example:a2", urn.KeyVersion }, "has no successor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, b)
			e.put(e.a, "urn:example:a1", input("http://x/"))
			w := e.withdraw("urn:example:a1", tc.successor)
			update(t, e.store, func(tx resolver.Tx) error {
				rec, err := tx.Record(c, w.ID)
				if err != nil {
					return err
				}
				tc.edit(&rec)
				return tx.UpdateRecord(c, rec)
			})
			_, err := e.svc.Verify(c, nil)
			var se *resolver.StateError
			if !errors.As(err, &se) || se.RecordID != w.ID || !strings.Contains(se.Reason, tc.want) {
				t.Fatalf("Verify: %v, want a state error of record %d saying %q", err, w.ID, tc.want)
			}
		})
	}
}

// testSuccessorKeyStored is the contract's part: a record's successor
// key and version are stored and read back by every read and write.
func testSuccessorKeyStored(t *testing.T, b Backend) {
	s := b.New(t)
	c := ctx(t)
	r := sampleRecord("urn:example:s1")
	r.Status, r.Successor, r.SuccessorKey, r.SuccessorVersion = resolver.Withdrawn, "URN:example:s2", "urn:example:s2", urn.KeyVersion
	plain := sampleRecord("urn:example:s3")
	update(t, s, func(tx resolver.Tx) error {
		for _, rec := range []*resolver.Record{&r, &plain} {
			if err := tx.InsertRecord(c, rec); err != nil {
				return err
			}
		}
		return nil
	})
	check := func(what string, got resolver.Record, want resolver.Record) {
		t.Helper()
		if got.SuccessorKey != want.SuccessorKey || got.SuccessorVersion != want.SuccessorVersion {
			t.Fatalf("%s: successor key %q version %d, want %q %d", what, got.SuccessorKey, got.SuccessorVersion, want.SuccessorKey, want.SuccessorVersion)
		}
	}
	got, err := s.Record(c, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("Record", got, r)
	got, _ = s.Record(c, plain.ID)
	check("Record without successor", got, plain)
	if ps, err := s.Predecessors(c, []string{"urn:example:s2"}, 0, 10); err != nil || len(ps) != 1 || ps[0].ID != r.ID {
		t.Fatalf("Predecessors: %+v %v", ps, err)
	}
	// A key given twice finds its record once.
	if ps, err := s.Predecessors(c, []string{"urn:example:s2", "urn:example:s3", "urn:example:s2"}, 0, 10); err != nil || len(ps) != 1 || ps[0].ID != r.ID {
		t.Fatalf("Predecessors of a key given twice: %+v %v", ps, err)
	}
	// Changed (a restated notice) and read back, also by RecordStates.
	r.SuccessorKey, r.SuccessorVersion = "urn:example:s4", urn.KeyVersion-1
	update(t, s, func(tx resolver.Tx) error { return tx.UpdateRecord(c, r) })
	got, _ = s.Record(c, r.ID)
	check("Record after UpdateRecord", got, r)
	if ps, err := s.Predecessors(c, []string{"urn:example:s2"}, 0, 10); err != nil || len(ps) != 0 {
		t.Fatalf("Predecessors of the old key: %+v %v", ps, err)
	}
	if ps, err := s.Predecessors(c, []string{"urn:example:s4"}, 0, 10); err != nil || len(ps) != 1 {
		t.Fatalf("Predecessors of the new key: %+v %v", ps, err)
	}
	sts, err := s.RecordStates(c, 0, 10)
	if err != nil || len(sts) != 2 {
		t.Fatalf("RecordStates: %+v %v", sts, err)
	}
	check("RecordStates", sts[0].Record, r)
	check("RecordStates without successor", sts[1].Record, plain)
	if st, err := s.StaleSuccessors(c, urn.KeyVersion, 0, 10); err != nil || len(st) != 1 || st[0].ID != r.ID {
		t.Fatalf("StaleSuccessors: %+v %v", st, err)
	}
	if st, err := s.StaleSuccessors(c, urn.KeyVersion-1, 0, 10); err != nil || len(st) != 0 {
		t.Fatalf("StaleSuccessors of an older version: %+v %v", st, err)
	}
	if st, err := s.StaleSuccessors(c, urn.KeyVersion, r.ID, 10); err != nil || len(st) != 0 {
		t.Fatalf("StaleSuccessors after the record: %+v %v", st, err)
	}
	// A successor with no key is stale for any version, and comes in ID
	// order among those of older keys, page by page.
	nokey, older := sampleRecord("urn:example:s8"), sampleRecord("urn:example:s9")
	nokey.Status, nokey.Successor = resolver.Withdrawn, "urn:example:s2"
	older.Status, older.Successor, older.SuccessorKey, older.SuccessorVersion = resolver.Withdrawn, "urn:example:s2", "urn:example:s2", urn.KeyVersion-1
	update(t, s, func(tx resolver.Tx) error {
		for _, rec := range []*resolver.Record{&nokey, &older} {
			if err := tx.InsertRecord(c, rec); err != nil {
				return err
			}
		}
		return nil
	})
	got, _ = s.Record(c, nokey.ID)
	check("Record with a successor but no key", got, nokey)
	ids := func(recs []resolver.Record) []int64 {
		var out []int64
		for _, r := range recs {
			out = append(out, r.ID)
		}
		return out
	}
	for _, tc := range []struct {
		version int
		after   int64
		limit   int
		want    []int64
	}{
		{urn.KeyVersion, 0, 10, []int64{r.ID, nokey.ID, older.ID}},
		{urn.KeyVersion, 0, 2, []int64{r.ID, nokey.ID}},
		{urn.KeyVersion, nokey.ID, 2, []int64{older.ID}},
		{urn.KeyVersion, r.ID, 1, []int64{nokey.ID}},
		{urn.KeyVersion - 1, 0, 10, []int64{nokey.ID}},
	} {
		st, err := s.StaleSuccessors(c, tc.version, tc.after, tc.limit)
		if err != nil || !slices.Equal(ids(st), tc.want) {
			t.Fatalf("StaleSuccessors(%d, %d, %d): %v %v, want %v", tc.version, tc.after, tc.limit, ids(st), err, tc.want)
		}
	}
	// The bulk path (an import's) stores them as a single insert does.
	bulk := sampleRecord("urn:example:s5")
	bulk.Status, bulk.Successor, bulk.SuccessorKey, bulk.SuccessorVersion = resolver.Withdrawn, "urn:example:s6", "urn:example:s6", urn.KeyVersion
	bulkPlain := sampleRecord("urn:example:s7")
	isBulk := false
	update(t, s, func(tx resolver.Tx) error {
		btx, ok := tx.(resolver.BulkTx)
		if isBulk = ok; !ok {
			return nil
		}
		return btx.InsertRecords(c, []*resolver.Record{&bulk, &bulkPlain}, [][]resolver.Key{
			{{Key: bulk.Key, Spelling: bulk.URN, Role: resolver.RoleName, Version: urn.KeyVersion}},
			{{Key: bulkPlain.Key, Spelling: bulkPlain.URN, Role: resolver.RoleName, Version: urn.KeyVersion}}})
	})
	if isBulk {
		got, err = s.Record(c, bulk.ID)
		if err != nil {
			t.Fatal(err)
		}
		check("Record written by InsertRecords", got, bulk)
		got, _ = s.Record(c, bulkPlain.ID)
		check("Record without successor written by InsertRecords", got, bulkPlain)
		if ps, err := s.Predecessors(c, []string{"urn:example:s6"}, 0, 10); err != nil || len(ps) != 1 || ps[0].ID != bulk.ID {
			t.Fatalf("Predecessors of a record written by InsertRecords: %+v %v", ps, err)
		}
	}
}
