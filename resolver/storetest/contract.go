package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
)

// RunContract checks a Store against the promises of resolver.Store's
// documentation, with no Service in between.
func RunContract(t *testing.T, b Backend) {
	tests := []struct {
		name string
		fn   func(*testing.T, Backend)
	}{
		{"EmptyStore", testEmpty},
		{"RecordsAndKeys", testRecordsAndKeys},
		{"KeyTakenByAnotherRecord", testKeyTaken},
		{"FailedUpdateWritesNothing", testRollback},
		{"LocationIndex", testLocationIndex},
		{"RecordsByLocationLimit", testRecordsByLocationLimit},
		{"DuplicatesBounded", testDuplicatesBounded},
		{"Paging", testPaging},
		{"StaleKeys", testStaleKeys},
		{"SuccessorKeys", testSuccessorKeyStored},
		{"AuthoritiesTokensRules", testAuthorities},
		{"Settings", testSettings},
		{"HistoryKeptExactly", testHistory},
		{"HistoryPages", testHistoryPages},
		{"ConcurrentAppendsStayChained", testConcurrentAppends},
		{"SecondHandleSeesWrites", testSecondHandle},
		{"LongestValuesAreIndexed", testLongValues},
		{"VerifyReads", testVerifyReads},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, b) })
	}
}

func update(t *testing.T, s resolver.Store, fn func(resolver.Tx) error) {
	t.Helper()
	if err := s.Update(ctx(t), fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

var t0 = time.Date(2026, 11, 24, 10, 30, 0, 123456000, time.UTC)

func sampleRecord(name string, locs ...string) resolver.Record {
	r := resolver.Record{
		URN: name, Key: name, Status: resolver.Active, Redirect: 303,
		Metadata: json.RawMessage(`{"title":"T"}`), Created: t0, Updated: t0,
	}
	for _, l := range locs {
		r.Locations = append(r.Locations, resolver.Location{URL: l, Key: l, Type: "text/html", Label: "copy"})
	}
	return r
}

// insert stores a record and its name key, as the Service does.
func insert(t *testing.T, s resolver.Store, r resolver.Record, aliases ...string) resolver.Record {
	t.Helper()
	r.Aliases = aliases
	update(t, s, func(tx resolver.Tx) error {
		if err := tx.InsertRecord(ctx(t), &r); err != nil {
			return err
		}
		if err := tx.PutKey(ctx(t), resolver.Key{Key: r.Key, Spelling: r.URN, RecordID: r.ID, Role: resolver.RoleName, Version: 1}); err != nil {
			return err
		}
		for _, a := range aliases {
			if err := tx.PutKey(ctx(t), resolver.Key{Key: a, Spelling: a, RecordID: r.ID, Role: resolver.RoleAlias, Version: 1}); err != nil {
				return err
			}
		}
		return nil
	})
	return r
}

func sameRecord(t *testing.T, got, want resolver.Record) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) || got.ID != want.ID || got.Key != want.Key {
		t.Fatalf("record differs\n got: %d %s %s\nwant: %d %s %s", got.ID, got.Key, g, want.ID, want.Key, w)
	}
	for i := range want.Locations {
		if got.Locations[i].Key != want.Locations[i].Key {
			t.Fatalf("location %d key %q, want %q", i, got.Locations[i].Key, want.Locations[i].Key)
		}
	}
}

func testEmpty(t *testing.T, b Backend) {
	s := b.New(t)
	c := ctx(t)
	if _, _, err := s.RecordByKey(c, "urn:example:none"); !errors.Is(err, resolver.ErrNotFound) {
		t.Errorf("RecordByKey on empty store: %v, want ErrNotFound", err)
	}
	if _, err := s.Record(c, 1); !errors.Is(err, resolver.ErrNotFound) {
		t.Errorf("Record: %v", err)
	}
	if _, err := s.Authority(c, 1); !errors.Is(err, resolver.ErrNotFound) {
		t.Errorf("Authority: %v", err)
	}
	if _, err := s.TokenByHash(c, resolver.HashToken("x")); !errors.Is(err, resolver.ErrNotFound) {
		t.Errorf("TokenByHash: %v", err)
	}
	if _, err := s.Setting(c, "nothing"); !errors.Is(err, resolver.ErrNotFound) {
		t.Errorf("Setting: %v", err)
	}
	if h, err := s.Head(c); err != nil || h.Seq != 0 {
		t.Errorf("Head of empty history: %+v %v", h, err)
	}
	for name, n := range map[string]func() (int, error){
		"Records":     func() (int, error) { r, err := s.Records(c, 0, 10); return len(r), err },
		"Log":         func() (int, error) { r, err := s.Log(c, 0, 10); return len(r), err },
		"Rules":       func() (int, error) { r, err := s.Rules(c); return len(r), err },
		"Authorities": func() (int, error) { r, err := s.Authorities(c); return len(r), err },
		"Duplicates":  func() (int, error) { r, err := s.DuplicateLocations(c, "", 10, true); return len(r), err },
		"ByLocation":  func() (int, error) { r, err := s.RecordsByLocation(c, "http://x/", 0, 10, true); return len(r), err },
	} {
		if got, err := n(); err != nil || got != 0 {
			t.Errorf("%s on empty store: %d, %v", name, got, err)
		}
	}
}

func testRecordsAndKeys(t *testing.T, b Backend) {
	s := b.New(t)
	c := ctx(t)
	r := insert(t, s, sampleRecord("urn:example:a", "http://a.example/1", "http://a.example/2"), "urn:example:alias")
	if r.ID == 0 {
		t.Fatal("InsertRecord left ID 0")
	}
	got, role, err := s.RecordByKey(c, "urn:example:a")
	if err != nil || role != resolver.RoleName {
		t.Fatalf("RecordByKey: %v %v", role, err)
	}
	sameRecord(t, got, r)
	if got, role, err = s.RecordByKey(c, "urn:example:alias"); err != nil || role != resolver.RoleAlias || got.ID != r.ID {
		t.Fatalf("alias: %v %v %v", got.ID, role, err)
	}
	byID, err := s.Record(c, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameRecord(t, byID, r)

	// Update: new locations in a new order, withdrawal fields, retired alias.
	r.Locations = []resolver.Location{{URL: "http://b.example/", Key: "http://b.example/"}, r.Locations[1]}
	r.Status, r.Successor, r.Reason, r.Redirect = resolver.Withdrawn, "urn:example:b", "superseded", 307
	r.Metadata = json.RawMessage(`{}`)
	r.Updated = t0.Add(time.Hour)
	update(t, s, func(tx resolver.Tx) error {
		if err := tx.UpdateRecord(c, r); err != nil {
			return err
		}
		return tx.PutKey(c, resolver.Key{Key: "urn:example:alias", Spelling: "urn:example:alias", RecordID: r.ID, Role: resolver.RoleRetired, Version: 1})
	})
	got, _, err = s.RecordByKey(c, "urn:example:a")
	if err != nil {
		t.Fatal(err)
	}
	sameRecord(t, got, r)
	if _, role, _ := s.RecordByKey(c, "urn:example:alias"); role != resolver.RoleRetired {
		t.Fatalf("retired alias has role %q", role)
	}
	keys, err := s.Keys(c, r.ID)
	if err != nil || len(keys) != 2 || keys[0].Role != resolver.RoleName || keys[0].Key != "urn:example:a" || keys[0].Spelling != "urn:example:a" {
		t.Fatalf("Keys: %+v %v", keys, err)
	}
	if byLoc, _ := s.RecordsByLocation(c, "http://a.example/1", 0, 10, true); len(byLoc) != 0 {
		t.Fatalf("location index still lists a removed location: %v", byLoc)
	}
}

func testKeyTaken(t *testing.T, b Backend) {
	s := b.New(t)
	c := ctx(t)
	a := insert(t, s, sampleRecord("urn:example:a", "http://x/"))
	err := s.Update(c, func(tx resolver.Tx) error {
		r := sampleRecord("urn:example:b", "http://y/")
		if err := tx.InsertRecord(c, &r); err != nil {
			return err
		}
		return tx.PutKey(c, resolver.Key{Key: "urn:example:a", Spelling: "urn:example:A", RecordID: r.ID, Role: resolver.RoleAlias, Version: 1})
	})
	if !errors.Is(err, resolver.ErrKeyTaken) {
		t.Fatalf("PutKey of another record's key: %v, want ErrKeyTaken", err)
	}
	// Nothing of the failed transaction stays: not the record, not the key.
	if recs, _ := s.Records(c, 0, 10); len(recs) != 1 {
		t.Fatalf("%d records after a failed transaction, want 1", len(recs))
	}
	got, role, err := s.RecordByKey(c, "urn:example:a")
	if err != nil || got.ID != a.ID || role != resolver.RoleName {
		t.Fatalf("the key changed hands: %v %v %v", got.ID, role, err)
	}
	// The same record may change its own key's role and spelling.
	update(t, s, func(tx resolver.Tx) error {
		return tx.PutKey(c, resolver.Key{Key: "urn:example:a", Spelling: "URN:example:a", RecordID: a.ID, Role: resolver.RoleName, Version: 2})
	})
	keys, _ := s.Keys(c, a.ID)
	if len(keys) != 1 || keys[0].Spelling != "URN:example:a" || keys[0].Version != 2 {
		t.Fatalf("PutKey on own key did not update: %+v", keys)
	}
	// Rules are unique by prefix.
	update(t, s, func(tx resolver.Tx) error {
		return tx.InsertRule(c, &resolver.Rule{Prefix: "urn:nbn:de:", Target: "https://a/", Created: t0})
	})
	err = s.Update(c, func(tx resolver.Tx) error {
		return tx.InsertRule(c, &resolver.Rule{Prefix: "urn:nbn:de:", Target: "https://b/", Created: t0})
	})
	if !errors.Is(err, resolver.ErrKeyTaken) {
		t.Fatalf("second rule for one prefix: %v, want ErrKeyTaken", err)
	}
}

func testRollback(t *testing.T, b Backend) {
	s := b.New(t)
	c := ctx(t)
	boom := errors.New("boom")
	err := s.Update(c, func(tx resolver.Tx) error {
		r := sampleRecord("urn:example:a", "http://x/")
		if err := tx.InsertRecord(c, &r); err != nil {
			return err
		}
		if err := tx.PutKey(c, resolver.Key{Key: r.Key, Spelling: r.URN, RecordID: r.ID, Role: resolver.RoleName, Version: 1}); err != nil {
			return err
		}
		// Reads in the transaction see its writes.
		if got, _, err := tx.RecordByKey(c, "urn:example:a"); err != nil || got.ID != r.ID {
			return fmt.Errorf("transaction does not read its own write: %v", err)
		}
		if err := tx.SetSetting(c, "k", "v"); err != nil {
			return err
		}
		if err := tx.Append(c, &resolver.Entry{Time: t0, Action: resolver.ActionNameCreate, Subject: r.URN, RecordID: r.ID, Data: []byte(`{}`)}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}
	if _, _, err := s.RecordByKey(c, "urn:example:a"); !errors.Is(err, resolver.ErrNotFound) {
		t.Errorf("record of a failed transaction is visible: %v", err)
	}
	if _, err := s.Setting(c, "k"); !errors.Is(err, resolver.ErrNotFound) {
		t.Errorf("setting of a failed transaction is visible: %v", err)
	}
	if h, _ := s.Head(c); h.Seq != 0 {
		t.Errorf("history entry of a failed transaction is visible: %d", h.Seq)
	}
}

func testLocationIndex(t *testing.T, b Backend) {
	s := b.New(t)
	c := ctx(t)
	a := insert(t, s, sampleRecord("urn:example:a", "http://shared/", "http://only-a/", "http://shared/"))
	bb := insert(t, s, sampleRecord("urn:example:b", "http://shared/"))
	insert(t, s, sampleRecord("urn:example:c", "http://only-c/", "http://also/"))
	insert(t, s, sampleRecord("urn:example:d", "http://also/"))
	recs, err := s.RecordsByLocation(c, "http://shared/", 0, 10, true)
	if err != nil || len(recs) != 2 || recs[0].ID != a.ID || recs[1].ID != bb.ID {
		t.Fatalf("RecordsByLocation: %d records, %v", len(recs), err)
	}
	// Withdrawn records: one shares a location with an active record
	// (http://only-c/) and one with the two active ones (http://shared/);
	// two share one only with each other (http://gone/).
	withdrawn := func(name string, locs ...string) {
		r := sampleRecord(name, locs...)
		r.Status, r.Reason = resolver.Withdrawn, "gone"
		insert(t, s, r)
	}
	withdrawn("urn:example:w1", "http://shared/", "http://only-c/", "http://gone/")
	withdrawn("urn:example:w2", "http://gone/")
	act, wd := resolver.Active, resolver.Withdrawn
	type dup struct {
		key      string
		urns     []string
		statuses []resolver.Status
	}
	want := func(what string, d []resolver.Duplicate, err error, ws ...dup) {
		t.Helper()
		ok := err == nil && len(d) == len(ws)
		for i := 0; ok && i < len(ws); i++ {
			ok = d[i].Key == ws[i].key && slices.Equal(d[i].URNs, ws[i].urns) && slices.Equal(d[i].Statuses, ws[i].statuses)
		}
		if !ok {
			t.Fatalf("DuplicateLocations %s: %+v %v, want %+v", what, d, err, ws)
		}
	}
	also := dup{"http://also/", []string{"urn:example:c", "urn:example:d"}, []resolver.Status{act, act}}
	shared := dup{"http://shared/", []string{"urn:example:a", "urn:example:b"}, []resolver.Status{act, act}}
	// Active records only: the withdrawn ones neither count nor show.
	d, err := s.DuplicateLocations(c, "", 10, false)
	want("of active records", d, err, also, shared)
	d, err = s.DuplicateLocations(c, "http://also/", 10, false)
	want("after a key", d, err, shared)
	d, err = s.DuplicateLocations(c, "", 1, false)
	want("limit 1", d, err, also)
	// The limit counts the keys listed, not those skipped.
	d, err = s.DuplicateLocations(c, "", 2, false)
	want("limit 2", d, err, also, shared)
	// With withdrawn records, each with its status.
	d, err = s.DuplicateLocations(c, "", 10, true)
	want("with withdrawn records", d, err, also,
		dup{"http://gone/", []string{"urn:example:w1", "urn:example:w2"}, []resolver.Status{wd, wd}},
		dup{"http://only-c/", []string{"urn:example:c", "urn:example:w1"}, []resolver.Status{act, wd}},
		dup{"http://shared/", []string{"urn:example:a", "urn:example:b", "urn:example:w1"}, []resolver.Status{act, act, wd}})
	d, err = s.DuplicateLocations(c, "http://gone/", 1, true)
	want("with withdrawn records, after a key, limit 1", d, err,
		dup{"http://only-c/", []string{"urn:example:c", "urn:example:w1"}, []resolver.Status{act, wd}})
}

// testRecordsByLocationLimit: RecordsByLocation returns the first limit
// records listing a location, in ID order, and without withdrawn ones
// counts and returns only the active records, however many withdrawn
// ones come first.
func testRecordsByLocationLimit(t *testing.T, b Backend) {
	s := b.New(t)
	c := ctx(t)
	var all, active []int64
	for i, withdrawn := range []bool{true, true, false, true, false, false, true, false} {
		r := sampleRecord(fmt.Sprintf("urn:example:%d", i), fmt.Sprintf("http://own/%d", i), "http://popular/")
		if withdrawn {
			r.Status, r.Reason = resolver.Withdrawn, "gone"
		}
		r = insert(t, s, r)
		all = append(all, r.ID)
		if !withdrawn {
			active = append(active, r.ID)
		}
	}
	insert(t, s, sampleRecord("urn:example:other", "http://other/"))
	last := all[len(all)-1]
	for _, tc := range []struct {
		after     int64
		limit     int
		withdrawn bool
		want      []int64
	}{
		{0, 3, true, all[:3]},
		{0, len(all), true, all},
		{0, len(all) + 1, true, all},
		{0, 1, false, active[:1]},
		{0, 2, false, active[:2]},
		{0, len(active), false, active},
		{0, 100, false, active},
		{0, 0, true, nil},
		{0, -1, false, nil},
		// A cursor: the records with a greater ID, whether the cursor's
		// own record is withdrawn or active (or lists the location at
		// all), and none past the last.
		{all[2], 3, true, all[3:6]},
		{all[2], 100, true, all[3:]},
		{all[0], 1, false, active[:1]},
		{active[0], 2, false, active[1:3]},
		{all[3], 100, false, active[1:]},
		{active[len(active)-1], 10, false, nil},
		{last, 10, true, nil},
		{last + 1000, 10, true, nil},
	} {
		for _, r := range []resolver.Reader{s, nil} {
			var recs []resolver.Record
			var err error
			if r == nil { // the same read in a transaction
				update(t, s, func(tx resolver.Tx) error {
					recs, err = tx.RecordsByLocation(c, "http://popular/", tc.after, tc.limit, tc.withdrawn)
					return nil
				})
			} else {
				recs, err = r.RecordsByLocation(c, "http://popular/", tc.after, tc.limit, tc.withdrawn)
			}
			var got []int64
			for _, rec := range recs {
				got = append(got, rec.ID)
				if !tc.withdrawn && rec.Status != resolver.Active {
					t.Errorf("limit %d without withdrawn records: %s is %s", tc.limit, rec.URN, rec.Status)
				}
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("RecordsByLocation after %d, limit %d, withdrawn %v (in a transaction: %v): %v %v, want %v",
					tc.after, tc.limit, tc.withdrawn, r == nil, got, err, tc.want)
			}
		}
	}
	if recs, err := s.RecordsByLocation(c, "http://nobody/", 0, 10, true); err != nil || len(recs) != 0 {
		t.Fatalf("RecordsByLocation of an unlisted location: %d records, %v", len(recs), err)
	}
	// Paged through, each page after the last ID of the one before: every
	// record once, in order, with or without the withdrawn ones.
	for _, tc := range []struct {
		withdrawn bool
		want      []int64
	}{{true, all}, {false, active}} {
		for limit := 1; limit <= 3; limit++ {
			var got []int64
			var after int64
			for pages := 0; ; pages++ {
				recs, err := s.RecordsByLocation(c, "http://popular/", after, limit, tc.withdrawn)
				if err != nil || len(recs) > limit || pages > len(all) {
					t.Fatalf("RecordsByLocation page %d after %d, limit %d: %d records, %v", pages, after, limit, len(recs), err)
				}
				if len(recs) == 0 {
					break
				}
				for _, r := range recs {
					got = append(got, r.ID)
				}
				after = recs[len(recs)-1].ID
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("RecordsByLocation paged by %d, withdrawn %v: %v, want %v", limit, tc.withdrawn, got, tc.want)
			}
		}
	}
}

// testDuplicatesBounded: a Duplicate holds the first MaxByLocation records
// that list its location, in ID order, says when more list it, and gives
// the last one's ID, from which RecordsByLocation reads on; without
// withdrawn records, only active ones count towards the bound.
func testDuplicatesBounded(t *testing.T, b Backend) {
	s := b.New(t)
	c := ctx(t)
	n := resolver.MaxByLocation
	var all, active []resolver.Record
	// Two withdrawn records first, then n+1 active ones, one more
	// withdrawn between them.
	for i := range n + 4 {
		r := sampleRecord(fmt.Sprintf("urn:example:%03d", i), fmt.Sprintf("http://own/%d", i), "http://popular/")
		if i < 2 || i == 50 {
			r.Status, r.Reason = resolver.Withdrawn, "gone"
		}
		r = insert(t, s, r)
		all = append(all, r)
		if r.Status == resolver.Active {
			active = append(active, r)
		}
	}
	insert(t, s, sampleRecord("urn:example:x", "http://pair/"))
	insert(t, s, sampleRecord("urn:example:y", "http://pair/"))
	for _, withdrawn := range []bool{false, true} {
		recs := active
		if withdrawn {
			recs = all
		}
		ds, err := s.DuplicateLocations(c, "", 10, withdrawn)
		if err != nil || len(ds) != 2 || ds[0].Key != "http://pair/" || ds[1].Key != "http://popular/" {
			t.Fatalf("DuplicateLocations withdrawn %v: %+v %v", withdrawn, ds, err)
		}
		if p := ds[0]; p.More || len(p.URNs) != 2 || p.LastID == 0 {
			t.Fatalf("DuplicateLocations withdrawn %v: a location two records list: %+v", withdrawn, p)
		}
		d := ds[1]
		var urns []string
		var statuses []resolver.Status
		for _, r := range recs[:n] {
			urns = append(urns, r.URN)
			statuses = append(statuses, r.Status)
		}
		if !d.More || !slices.Equal(d.URNs, urns) || !slices.Equal(d.Statuses, statuses) || d.LastID != recs[n-1].ID {
			t.Fatalf("DuplicateLocations withdrawn %v: more %v, last %d, %d URNs %q…, want more, last %d, the first %d %q…",
				withdrawn, d.More, d.LastID, len(d.URNs), d.URNs[:min(3, len(d.URNs))], recs[n-1].ID, n, urns[:3])
		}
		rest, err := s.RecordsByLocation(c, d.Key, d.LastID, 10, withdrawn)
		if err != nil || len(rest) != len(recs)-n || rest[0].ID != recs[n].ID {
			t.Fatalf("RecordsByLocation after a Duplicate's last (withdrawn %v): %d records, %v, want %d", withdrawn, len(rest), err, len(recs)-n)
		}
	}
}

func testPaging(t *testing.T, b Backend) {
	s := b.New(t)
	c := ctx(t)
	var ids []int64
	for i := range 7 {
		ids = append(ids, insert(t, s, sampleRecord(fmt.Sprintf("urn:example:%d", i), "http://x/")).ID)
	}
	var got []int64
	after := int64(0)
	for {
		page, err := s.Records(c, after, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		if len(page) > 3 {
			t.Fatalf("page of %d records, limit 3", len(page))
		}
		for _, r := range page {
			got = append(got, r.ID)
		}
		after = page[len(page)-1].ID
	}
	if !slices.Equal(got, ids) {
		t.Fatalf("paged IDs %v, want %v", got, ids)
	}
}

func testStaleKeys(t *testing.T, b Backend) {
	s := b.New(t)
	c := ctx(t)
	r := insert(t, s, sampleRecord("urn:example:a", "http://x/"), "urn:example:b", "urn:example:c")
	update(t, s, func(tx resolver.Tx) error {
		return tx.PutKey(c, resolver.Key{Key: "urn:example:b", Spelling: "urn:example:b", RecordID: r.ID, Role: resolver.RoleAlias, Version: 3})
	})
	ks, err := s.StaleKeys(c, 2, "", 10)
	if err != nil || len(ks) != 2 || ks[0].Key != "urn:example:a" || ks[1].Key != "urn:example:c" {
		t.Fatalf("StaleKeys: %+v %v", ks, err)
	}
	if ks, _ := s.StaleKeys(c, 2, "urn:example:a", 10); len(ks) != 1 || ks[0].Key != "urn:example:c" {
		t.Fatalf("StaleKeys after: %+v", ks)
	}
	update(t, s, func(tx resolver.Tx) error { return tx.DeleteKey(c, "urn:example:c") })
	if _, _, err := s.RecordByKey(c, "urn:example:c"); !errors.Is(err, resolver.ErrNotFound) {
		t.Fatalf("deleted key still found: %v", err)
	}
}

func testAuthorities(t *testing.T, b Backend) {
	s := b.New(t)
	c := ctx(t)
	a := resolver.Authority{Name: "DNB", Prefixes: []string{"urn:nbn:de:", "urn:isbn:978-3-"}, Created: t0, Updated: t0}
	tok := resolver.Token{Label: "alice", Hash: resolver.HashToken("secret-1"), Created: t0}
	update(t, s, func(tx resolver.Tx) error {
		if err := tx.InsertAuthority(c, &a); err != nil {
			return err
		}
		tok.AuthorityID = a.ID
		return tx.InsertToken(c, &tok)
	})
	got, err := s.Authority(c, a.ID)
	if err != nil || got.Name != "DNB" || !slices.Equal(got.Prefixes, a.Prefixes) || !got.Created.Equal(t0) {
		t.Fatalf("Authority: %+v %v", got, err)
	}
	gt, err := s.TokenByHash(c, resolver.HashToken("secret-1"))
	if err != nil || gt.ID != tok.ID || gt.AuthorityID != a.ID || gt.Label != "alice" || !gt.Active() {
		t.Fatalf("TokenByHash: %+v %v", gt, err)
	}
	gt.Revoked = t0.Add(time.Minute)
	a.Name = "DNB (new owner)"
	update(t, s, func(tx resolver.Tx) error {
		if err := tx.UpdateToken(c, gt); err != nil {
			return err
		}
		return tx.UpdateAuthority(c, a)
	})
	toks, err := s.Tokens(c, a.ID)
	if err != nil || len(toks) != 1 || toks[0].Active() || !toks[0].Revoked.Equal(t0.Add(time.Minute)) {
		t.Fatalf("Tokens after revoke: %+v %v", toks, err)
	}
	all, err := s.Authorities(c)
	if err != nil || len(all) != 1 || all[0].Name != "DNB (new owner)" {
		t.Fatalf("Authorities: %+v %v", all, err)
	}
	r := resolver.Rule{Prefix: "urn:nbn:ch:", Target: "https://ch.example/", Created: t0}
	update(t, s, func(tx resolver.Tx) error { return tx.InsertRule(c, &r) })
	rules, err := s.Rules(c)
	if err != nil || len(rules) != 1 || rules[0] != r {
		t.Fatalf("Rules: %+v %v, want %+v", rules, err, r)
	}
	update(t, s, func(tx resolver.Tx) error { return tx.DeleteRule(c, r.ID) })
	if rules, _ := s.Rules(c); len(rules) != 0 {
		t.Fatalf("rule not deleted: %+v", rules)
	}
}

func testSettings(t *testing.T, b Backend) {
	s := b.New(t)
	c := ctx(t)
	update(t, s, func(tx resolver.Tx) error { return tx.SetSetting(c, "a", "1") })
	update(t, s, func(tx resolver.Tx) error { return tx.SetSetting(c, "a", "2") })
	if v, err := s.Setting(c, "a"); err != nil || v != "2" {
		t.Fatalf("Setting: %q %v", v, err)
	}
}

func testHistory(t *testing.T, b Backend) {
	s := b.New(t)
	c := ctx(t)
	// Data is kept byte for byte: spacing and key order a JSON column
	// type would change.
	odd := json.RawMessage(`{"b":1,  "a":[1,2] ,"é":"\u00e9"}`)
	var sealed []resolver.Entry
	update(t, s, func(tx resolver.Tx) error {
		sealed = sealed[:0] // fn may run again (Store.Update)
		for i := range 3 {
			e := resolver.Entry{Time: t0.Add(time.Duration(i) * time.Second).Add(789 * time.Nanosecond),
				Action: resolver.ActionNameUpdate, Subject: "urn:example:a", RecordID: 7, AuthorityID: 3,
				Actor: "token:1", Data: odd}
			if err := tx.Append(c, &e); err != nil {
				return err
			}
			sealed = append(sealed, e)
		}
		return nil
	})
	update(t, s, func(tx resolver.Tx) error {
		e := resolver.Entry{Time: t0, Action: resolver.ActionRuleAdd, Subject: "rule:1", Actor: "admin", Data: []byte(`{}`)}
		return tx.Append(c, &e)
	})
	log, err := s.Log(c, 0, 100)
	if err != nil || len(log) != 4 {
		t.Fatalf("Log: %d entries, %v", len(log), err)
	}
	var v resolver.Verifier
	for i, e := range log {
		if e.Seq != int64(i+1) {
			t.Fatalf("entry %d has Seq %d", i, e.Seq)
		}
		if err := v.Next(e); err != nil {
			t.Fatalf("stored history does not verify: %v", err)
		}
	}
	for i, e := range sealed {
		g := log[i]
		if string(g.Data) != string(odd) || !g.Time.Equal(e.Time) || g.Time.Nanosecond()%1000 != 0 ||
			string(g.Hash) != string(e.Hash) || g.Action != e.Action || g.Subject != e.Subject ||
			g.RecordID != 7 || g.AuthorityID != 3 || g.Actor != "token:1" {
			t.Fatalf("entry %d changed in the store:\n got %+v\nwant %+v", i+1, g, e)
		}
	}
	h, err := s.History(c, 7, 0, 100)
	if err != nil || len(h) != 3 {
		t.Fatalf("History: %d %v", len(h), err)
	}
	head, err := s.Head(c)
	if err != nil || head.Seq != 4 || string(head.Hash) != string(log[3].Hash) {
		t.Fatalf("Head: %+v %v", head, err)
	}
	if l, _ := s.Log(c, 2, 1); len(l) != 1 || l[0].Seq != 3 {
		t.Fatalf("Log(2, 1): %+v", l)
	}
	// The fourth entry was given t0, two seconds before the third: the
	// store seals it at the third's time (Seal), never earlier.
	if !log[3].Time.Equal(log[2].Time) {
		t.Fatalf("an entry stored at %v after one at %v: times went backwards", log[3].Time, log[2].Time)
	}
	// The bulk path (an import's) seals the same way: entries stamped an
	// hour before the head are stored at its time.
	isBulk, head := false, log[3]
	update(t, s, func(tx resolver.Tx) error {
		btx, ok := tx.(resolver.BulkTx)
		if isBulk = ok; !ok {
			return nil
		}
		early := []*resolver.Entry{
			{Time: t0.Add(-time.Hour), Action: resolver.ActionRuleAdd, Subject: "rule:2", Actor: "admin", Data: []byte(`{}`)},
			{Time: t0.Add(-2 * time.Hour), Action: resolver.ActionRuleAdd, Subject: "rule:3", Actor: "admin", Data: []byte(`{}`)},
		}
		return btx.AppendAll(c, early)
	})
	if isBulk {
		log, err := s.Log(c, 4, 100)
		if err != nil || len(log) != 2 {
			t.Fatalf("Log after AppendAll: %d entries, %v", len(log), err)
		}
		for _, e := range log {
			if !e.Time.Equal(head.Time) {
				t.Fatalf("AppendAll stored entry %d at %v after one at %v: times went backwards", e.Seq, e.Time, head.Time)
			}
			if err := v.Next(e); err != nil {
				t.Fatalf("history after AppendAll does not verify: %v", err)
			}
		}
	}
}

// testHistoryPages: a record's history is read a page at a time, forwards
// from a cursor (History) or newest first back from one, as of a time
// (HistoryBefore), with the entries about other records and about none
// left out, and the same inside a transaction.
func testHistoryPages(t *testing.T, b Backend) {
	s := b.New(t)
	c := ctx(t)
	// Entries about records 7 and 8 in turn, one about no record after
	// every third; an entry each second.
	var all []resolver.Entry
	update(t, s, func(tx resolver.Tx) error {
		all = nil // fn may run again (Update)
		for i := range 20 {
			e := resolver.Entry{Time: t0.Add(time.Duration(i) * time.Second), Action: resolver.ActionNameUpdate,
				Subject: "urn:example:a", RecordID: 7 + int64(i%2), Actor: "system", Data: []byte(fmt.Sprintf(`{"n":%d}`, i))}
			if i%3 == 2 {
				e.Action, e.Subject, e.RecordID = resolver.ActionRuleAdd, "rule:1", 0
			}
			if err := tx.Append(c, &e); err != nil {
				return err
			}
			all = append(all, e)
		}
		return nil
	})
	var seven []int64 // the Seqs of record 7's entries
	for _, e := range all {
		if e.RecordID == 7 {
			seven = append(seven, e.Seq)
		}
	}
	seqs := func(es []resolver.Entry) []int64 {
		out := []int64{}
		for _, e := range es {
			out = append(out, e.Seq)
		}
		return out
	}
	want := func(what string, es []resolver.Entry, err error, seqs2 []int64) {
		t.Helper()
		if got := seqs(es); err != nil || !slices.Equal(got, append([]int64{}, seqs2...)) {
			t.Fatalf("%s: %v %v, want %v", what, got, err, seqs2)
		}
		for _, e := range es {
			if g := all[e.Seq-1]; string(e.Data) != string(g.Data) || !e.Time.Equal(g.Time) || string(e.Hash) != string(g.Hash) {
				t.Fatalf("%s: entry %d read back as %+v, stored %+v", what, e.Seq, e, g)
			}
		}
	}
	reversed := func(x []int64) []int64 { y := slices.Clone(x); slices.Reverse(y); return y }
	check := func(r resolver.Reader) {
		h, err := r.History(c, 7, 0, 100)
		want("History(7, 0, 100)", h, err, seven)
		// Forwards, in pages of 3: the cursor is the last Seq read.
		var paged []resolver.Entry
		for after := int64(0); ; {
			h, err := r.History(c, 7, after, 3)
			if err != nil || len(h) > 3 {
				t.Fatalf("History(7, %d, 3): %d entries, %v", after, len(h), err)
			}
			paged = append(paged, h...)
			if len(h) < 3 {
				break
			}
			after = h[len(h)-1].Seq
		}
		want("History of 7 in pages of 3", paged, nil, seven)
		h, err = r.History(c, 7, seven[2], 2)
		want("History(7, third, 2)", h, err, seven[3:5])
		h, err = r.History(c, 7, seven[len(seven)-1], 2)
		want("History(7, last, 2)", h, err, nil)
		h, err = r.History(c, 7, 0, 0)
		want("History(7, 0, 0)", h, err, nil)
		h, err = r.History(c, 99, 0, 10)
		want("History(99, 0, 10)", h, err, nil)

		// Newest first.
		h, err = r.HistoryBefore(c, 7, 0, time.Time{}, 100)
		want("HistoryBefore(7, 0, none, 100)", h, err, reversed(seven))
		h, err = r.HistoryBefore(c, 7, 0, time.Time{}, 2)
		want("HistoryBefore(7, 0, none, 2)", h, err, reversed(seven)[:2])
		h, err = r.HistoryBefore(c, 7, seven[3], time.Time{}, 100)
		want("HistoryBefore(7, fourth, none, 100)", h, err, reversed(seven[:3]))
		h, err = r.HistoryBefore(c, 7, seven[0], time.Time{}, 100)
		want("HistoryBefore(7, first, none, 100)", h, err, nil)
		// As of a time: the entry at that very microsecond, not one a
		// nanosecond later; between two entries, the earlier.
		at := all[seven[4]-1].Time
		for _, tc := range []struct {
			until time.Time
			want  []int64
		}{
			{at, []int64{seven[4], seven[3]}},
			{at.Add(999 * time.Nanosecond), []int64{seven[4], seven[3]}},
			{at.Add(500 * time.Millisecond), []int64{seven[4], seven[3]}},
			{at.Add(-time.Nanosecond), []int64{seven[3], seven[2]}},
			{t0.Add(-time.Nanosecond), nil},
			{t0.Add(time.Hour), reversed(seven)[:2]},
		} {
			h, err = r.HistoryBefore(c, 7, 0, tc.until, 2)
			want(fmt.Sprintf("HistoryBefore(7, 0, %v, 2)", tc.until), h, err, tc.want)
		}
		h, err = r.HistoryBefore(c, 7, seven[4], at, 1)
		want("HistoryBefore(7, fifth, its time, 1)", h, err, seven[3:4])
	}
	check(s)
	// The same in a transaction, which also reads its own entry.
	update(t, s, func(tx resolver.Tx) error {
		check(tx)
		e := resolver.Entry{Time: t0.Add(time.Minute), Action: resolver.ActionNameWithdraw, Subject: "urn:example:a",
			RecordID: 7, Actor: "system", Data: []byte(`{}`)}
		if err := tx.Append(c, &e); err != nil {
			return err
		}
		h, err := tx.HistoryBefore(c, 7, 0, time.Time{}, 1)
		if err != nil || len(h) != 1 || h[0].Seq != e.Seq {
			t.Fatalf("HistoryBefore in the transaction that appended %d: %v %v", e.Seq, seqs(h), err)
		}
		h, err = tx.History(c, 7, seven[len(seven)-1], 10)
		if err != nil || len(h) != 1 || h[0].Seq != e.Seq {
			t.Fatalf("History in the transaction that appended %d: %v %v", e.Seq, seqs(h), err)
		}
		return nil
	})
}

func testConcurrentAppends(t *testing.T, b Backend) {
	s := b.New(t)
	c := ctx(t)
	const writers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				err := s.Update(c, func(tx resolver.Tx) error {
					return tx.Append(c, &resolver.Entry{Time: time.Now(), Action: resolver.ActionNameUpdate,
						Subject: fmt.Sprintf("urn:example:%d-%d", w, i), Actor: "system", Data: []byte(`{}`)})
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	log, err := s.Log(c, 0, writers*each+1)
	if err != nil || len(log) != writers*each {
		t.Fatalf("%d entries, %v", len(log), err)
	}
	var v resolver.Verifier
	for _, e := range log {
		if err := v.Next(e); err != nil {
			t.Fatal(err)
		}
	}
}

func testSecondHandle(t *testing.T, b Backend) {
	if b.Again == nil {
		t.Skip("the backend has no second handle on one database")
	}
	s1 := b.New(t)
	s2 := b.Again(t, s1)
	c := ctx(t)
	r := insert(t, s1, sampleRecord("urn:example:a", "http://x/"))
	got, _, err := s2.RecordByKey(c, "urn:example:a")
	if err != nil || got.ID != r.ID {
		t.Fatalf("second handle does not see the write: %v", err)
	}
	err = s2.Update(c, func(tx resolver.Tx) error {
		r2 := sampleRecord("urn:example:b", "http://y/")
		if err := tx.InsertRecord(c, &r2); err != nil {
			return err
		}
		return tx.PutKey(c, resolver.Key{Key: "urn:example:a", Spelling: "urn:example:a", RecordID: r2.ID, Role: resolver.RoleName, Version: 1})
	})
	if !errors.Is(err, resolver.ErrKeyTaken) {
		t.Fatalf("second handle took a key held through the first: %v", err)
	}
	update(t, s2, func(tx resolver.Tx) error {
		return tx.Append(c, &resolver.Entry{Time: t0, Action: resolver.ActionRuleAdd, Subject: "rule:1", Actor: "admin", Data: []byte(`{}`)})
	})
	update(t, s1, func(tx resolver.Tx) error {
		return tx.Append(c, &resolver.Entry{Time: t0, Action: resolver.ActionRuleAdd, Subject: "rule:2", Actor: "admin", Data: []byte(`{}`)})
	})
	if h, _ := s1.Head(c); h.Seq != 2 {
		t.Fatalf("appends through two handles: head %d, want 2", h.Seq)
	}
	_ = context.Background
}

// noise returns n characters that a URN's NSS and a URL's path both allow,
// drawn at random so that no database compresses them below n bytes.
func noise(seed uint64, n int) string {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[r.IntN(len(chars))]
	}
	return string(b)
}

// testLongValues stores the longest values the Service accepts in the
// columns stores index uniquely: names and aliases (keys; a namespace's
// key may be a few bytes longer than the name), location keys
// (normalization may add a "/") and rule prefixes. A store must hold and
// find them, not fail on an index's row limit.
func testLongValues(t *testing.T, b Backend) {
	s := b.New(t)
	c := ctx(t)
	name := "urn:example:" + noise(1, resolver.MaxURNBytes+16-len("urn:example:"))
	alias := "urn:example:" + noise(2, resolver.MaxURNBytes+16-len("urn:example:"))
	loc := "http://a.example/" + noise(3, resolver.MaxURLBytes+1-len("http://a.example/"))
	r := insert(t, s, sampleRecord(name, loc), alias)
	for _, k := range []string{name, alias} {
		if got, _, err := s.RecordByKey(c, k); err != nil || got.ID != r.ID {
			t.Fatalf("a key of %d bytes: %v", len(k), err)
		}
	}
	if recs, err := s.RecordsByLocation(c, loc, 0, 10, true); err != nil || len(recs) != 1 || recs[0].ID != r.ID {
		t.Fatalf("a location key of %d bytes: %d records, %v", len(loc), len(recs), err)
	}
	prefix := "urn:example:" + noise(4, resolver.MaxURNBytes-len("urn:example:"))
	update(t, s, func(tx resolver.Tx) error {
		return tx.InsertRule(c, &resolver.Rule{Prefix: prefix, Target: "https://x.example/", Created: t0})
	})
	if rules, err := s.Rules(c); err != nil || len(rules) != 1 || rules[0].Prefix != prefix {
		t.Fatalf("a rule prefix of %d bytes: %v", len(prefix), err)
	}
}
