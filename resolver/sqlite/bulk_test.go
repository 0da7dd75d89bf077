package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/sqlite"
	"github.com/urikit/urikit/urn"
)

func bulkBatch(from, n int) ([]*resolver.Record, [][]resolver.Key) {
	var recs []*resolver.Record
	var keys [][]resolver.Key
	now := time.UnixMicro(1_700_000_000_000_000).UTC()
	for i := from; i < from+n; i++ {
		name := fmt.Sprintf("urn:example:bulk:%d", i)
		r := &resolver.Record{URN: name, Key: urn.MustParse(name).Key(), Status: resolver.Active, Redirect: 302,
			Locations:   []resolver.Location{{URL: fmt.Sprintf("https://example.org/%d", i), Key: fmt.Sprintf("https://example.org/%d", i)}},
			Metadata:    []byte(`{}`),
			AuthorityID: 1, Created: now, Updated: now}
		ks := []resolver.Key{{Key: r.Key, Spelling: name, Role: resolver.RoleName, Version: urn.KeyVersion}}
		if i%3 == 0 {
			alias := fmt.Sprintf("urn:example:bulk-alias:%d", i)
			r.Aliases = []string{alias}
			ks = append(ks, resolver.Key{Key: urn.MustParse(alias).Key(), Spelling: alias, Role: resolver.RoleAlias, Version: urn.KeyVersion})
		}
		recs, keys = append(recs, r), append(keys, ks)
	}
	return recs, keys
}

// TestBulkTx: the SQLite Tx's bulk methods, over batches that do not fill
// a multi-row statement (250 = 2 full chunks of 100 and one of 50): IDs
// follow the stored ones, every key finds its record, TakenKeys sees them,
// the history chain verifies, and a batch with one taken key fails with
// ErrKeyTaken leaving none of its rows behind.
func TestBulkTx(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, t.TempDir(), sqlite.Options{})
	recs, keys := bulkBatch(0, 250)
	err := st.Update(ctx, func(tx resolver.Tx) error {
		btx := tx.(resolver.BulkTx)
		if err := btx.InsertRecords(ctx, recs, keys); err != nil {
			return err
		}
		entries := make([]*resolver.Entry, len(recs))
		for i, r := range recs {
			entries[i] = &resolver.Entry{Time: r.Created, Action: resolver.ActionNameCreate, Subject: r.URN,
				RecordID: r.ID, AuthorityID: 1, Actor: "test", Data: []byte(fmt.Sprintf(`{"n":%d}`, i))}
		}
		return btx.AppendAll(ctx, entries)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if r.ID != int64(i+1) {
			t.Fatalf("record %d has ID %d", i, r.ID)
		}
		for _, k := range keys[i] {
			got, role, err := st.RecordByKey(ctx, k.Key)
			if err != nil || got.ID != r.ID || role != k.Role || got.URN != r.URN || len(got.Aliases) != len(r.Aliases) {
				t.Fatalf("key %s: %+v %s %v, want record %d", k.Key, got, role, err, r.ID)
			}
		}
		if byLoc, err := st.RecordsByLocation(ctx, r.Locations[0].Key, 0, 1000, true); err != nil || len(byLoc) != 1 || byLoc[0].ID != r.ID {
			t.Fatalf("location of %d: %+v %v", r.ID, byLoc, err)
		}
	}
	log, err := st.Log(ctx, 0, 1000)
	if err != nil || len(log) != 250 {
		t.Fatalf("log: %d entries, %v", len(log), err)
	}
	var v resolver.Verifier
	for _, e := range log {
		if err := v.Next(e); err != nil {
			t.Fatal(err)
		}
	}

	more, moreKeys := bulkBatch(250, 120)
	moreKeys[119] = append(moreKeys[119], keys[3][1]) // an alias of record 4
	err = st.Update(ctx, func(tx resolver.Tx) error {
		btx := tx.(resolver.BulkTx)
		all := []string{keys[0][0].Key, moreKeys[0][0].Key, keys[3][1].Key}
		taken, err := btx.TakenKeys(ctx, all)
		if err != nil {
			return err
		}
		if len(taken) != 2 || !taken[keys[0][0].Key] || !taken[keys[3][1].Key] {
			t.Errorf("TakenKeys(%q) = %v", all, taken)
		}
		if err := btx.InsertRecords(ctx, more, moreKeys); !errors.Is(err, resolver.ErrKeyTaken) {
			t.Errorf("InsertRecords with a taken key: %v", err)
		}
		if left, err := tx.Records(ctx, 250, 1000); err != nil || len(left) != 0 {
			t.Errorf("after the failed InsertRecords: %d records, %v", len(left), err)
		}
		if taken, err := btx.TakenKeys(ctx, []string{moreKeys[0][0].Key}); err != nil || len(taken) != 0 {
			t.Errorf("after the failed InsertRecords: %v, %v", taken, err)
		}
		return nil // commit: the savepoint already undid the call
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.RecordByKey(ctx, moreKeys[0][0].Key); !errors.Is(err, resolver.ErrNotFound) {
		t.Fatalf("a key of the failed batch: %v", err)
	}
	if byLoc, err := st.RecordsByLocation(ctx, more[0].Locations[0].Key, 0, 1000, true); err != nil || len(byLoc) != 0 {
		t.Fatalf("a location of the failed batch: %+v %v", byLoc, err)
	}
	if got, role, err := st.RecordByKey(ctx, keys[3][1].Key); err != nil || got.ID != 4 || role != resolver.RoleAlias {
		t.Fatalf("record 4's alias after the failed batch: %+v %s %v", got, role, err)
	}
}

// TestBulkVaried: rows whose columns differ in every way the bulk path
// treats apart (integers alike in all rows or not, NULL or not, negative
// and extreme values, text and blobs) come back exactly as written,
// records and history entries alike.
func TestBulkVaried(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, t.TempDir(), sqlite.Options{})
	recs, keys := bulkBatch(0, 90)
	for i, r := range recs {
		switch i % 6 {
		case 1:
			r.Redirect = 307
		case 2:
			r.Status, r.Successor, r.Reason = resolver.Withdrawn, "urn:example:next", "gone ' \" ; -- "
		case 3:
			r.Created = time.UnixMicro(-62135596800000000).UTC() // year 1
		case 4:
			r.AuthorityID = math.MaxInt64
			keys[i][0].Spelling = strings.ToUpper(keys[i][0].Key)
		case 5:
			r.Updated = time.UnixMicro(math.MaxInt64).UTC()
			keys[i][0].Version = 7
			// A second name key, not the record's: Keys lists names
			// first, in key order.
			second := resolver.Key{Key: strings.Replace(r.Key, "bulk:", "bulk-second:", 1), Spelling: "urn:example:Second", Role: resolver.RoleName, Version: 2}
			keys[i] = append([]resolver.Key{second}, keys[i]...)
		}
	}
	var entries []*resolver.Entry
	err := st.Update(ctx, func(tx resolver.Tx) error {
		btx := tx.(resolver.BulkTx)
		if err := btx.InsertRecords(ctx, recs, keys); err != nil {
			return err
		}
		for i, r := range recs {
			e := &resolver.Entry{Time: r.Created, Action: resolver.ActionNameCreate, Subject: r.URN, RecordID: r.ID,
				AuthorityID: 1, Actor: "test", Data: []byte(fmt.Sprintf(`{"n":%d}`, i))}
			switch i % 5 {
			case 1:
				e.Time, e.Action = time.UnixMicro(-1).UTC(), resolver.ActionNameWithdraw
			case 2:
				e.AuthorityID, e.Actor, e.Data = 0, "admin", nil
			case 3:
				e.RecordID, e.Data = math.MinInt64, []byte("\x00not json\xff")
			}
			entries = append(entries, e)
		}
		if err := btx.AppendAll(ctx, entries); err != nil {
			return err
		}
		// Calls whose rows all share extreme values, and text that is a
		// plain word or not.
		for _, actor := range []string{"token:12", "o'brien'); DROP TABLE history; --", "é"} {
			var more []*resolver.Entry
			for range 3 {
				more = append(more, &resolver.Entry{Time: time.UnixMicro(math.MinInt64 + 1).UTC(), Action: resolver.ActionNameCreate,
					Subject: "x", RecordID: math.MinInt64, AuthorityID: math.MaxInt64, Actor: actor})
			}
			entries = append(entries, more...)
			if err := btx.AppendAll(ctx, more); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Records(ctx, 0, 1000)
	if err != nil || len(got) != len(recs) {
		t.Fatalf("%d records, %v", len(got), err)
	}
	for i, r := range recs {
		if !reflect.DeepEqual(got[i], *r) {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, got[i], *r)
		}
		ks, err := st.Keys(ctx, r.ID)
		if err != nil || !reflect.DeepEqual(ks, keys[i]) {
			t.Errorf("keys of record %d: %+v %v, want %+v", i, ks, err, keys[i])
		}
	}
	log, err := st.Log(ctx, 0, 1000)
	if err != nil || len(log) != len(entries) {
		t.Fatalf("%d entries, %v", len(log), err)
	}
	var v resolver.Verifier
	for i, e := range log {
		want := *entries[i]
		if want.Data == nil {
			want.Data = []byte{}
		}
		if e.Data == nil {
			e.Data = []byte{}
		}
		if !reflect.DeepEqual(e, want) {
			t.Errorf("entry %d:\n got %+v\nwant %+v", i, e, want)
		}
		if err := v.Next(e); err != nil {
			t.Fatal(err)
		}
	}
}

// stopAfter is a context whose Err turns to context.Canceled after n
// calls: the bulk calls check it between statements, so it stops one
// half-way, after some of its rows are written.
type stopAfter struct {
	context.Context
	n int
}

func (c *stopAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestBulkUndo: a bulk call stopped half-way takes back every row it
// wrote, in every table, and the transaction goes on and commits what
// else it wrote.
func TestBulkUndo(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, t.TempDir(), sqlite.Options{})
	seal := func(recs []*resolver.Record) []*resolver.Entry {
		var es []*resolver.Entry
		for _, r := range recs {
			es = append(es, &resolver.Entry{Time: r.Created, Action: resolver.ActionNameCreate, Subject: r.URN, RecordID: r.ID, AuthorityID: 1, Actor: "test"})
		}
		return es
	}
	first, firstKeys := bulkBatch(0, 50)
	failed, failedKeys := bulkBatch(50, 200)
	after, afterKeys := bulkBatch(250, 30)
	err := st.Update(ctx, func(tx resolver.Tx) error {
		btx := tx.(resolver.BulkTx)
		if err := btx.InsertRecords(ctx, first, firstKeys); err != nil {
			return err
		}
		if err := btx.AppendAll(ctx, seal(first)); err != nil {
			return err
		}
		// Calls stopped after each few statements, in every table, and at
		// last by a key already taken: the same IDs as the call that then
		// succeeds, other locations. None of their rows may stay.
		for stop := 0; stop < 80; stop += 3 {
			recs, keys := bulkBatch(50, 200)
			for _, r := range recs {
				r.Locations[0].Key = strings.Replace(r.Locations[0].Key, "example.org", "stale.example", 1)
			}
			keys[199] = append(keys[199], firstKeys[0][0])
			if err := btx.InsertRecords(&stopAfter{ctx, stop}, recs, keys); !errors.Is(err, resolver.ErrUnavailable) && !errors.Is(err, resolver.ErrKeyTaken) {
				return fmt.Errorf("InsertRecords stopped after %d statements: %v", stop, err)
			}
			if recs[0].ID != 0 {
				return fmt.Errorf("a record of a failed call keeps its ID %d", recs[0].ID)
			}
		}
		if err := btx.InsertRecords(ctx, failed, failedKeys); err != nil {
			return err
		}
		for stop := range 4 {
			if err := btx.AppendAll(&stopAfter{ctx, stop}, seal(failed)); !errors.Is(err, resolver.ErrUnavailable) {
				return fmt.Errorf("AppendAll stopped after %d statements: %v", stop, err)
			}
		}
		if h, err := tx.Head(ctx); err != nil || h.Seq != 50 {
			return fmt.Errorf("head after the failed AppendAll: %d %v", h.Seq, err)
		}
		if err := btx.AppendAll(ctx, seal(failed)); err != nil {
			return err
		}
		if err := btx.InsertRecords(ctx, after, afterKeys); err != nil {
			return err
		}
		return btx.AppendAll(ctx, seal(after))
	})
	if err != nil {
		t.Fatal(err)
	}
	all := append(append(append([]*resolver.Record{}, first...), failed...), after...)
	allKeys := append(append(append([][]resolver.Key{}, firstKeys...), failedKeys...), afterKeys...)
	got, err := st.Records(ctx, 0, 1000)
	if err != nil || len(got) != len(all) {
		t.Fatalf("%d records, %v", len(got), err)
	}
	for i, r := range all {
		if !reflect.DeepEqual(got[i], *r) {
			t.Fatalf("record %d:\n got %+v\nwant %+v", i, got[i], *r)
		}
		if ks, err := st.Keys(ctx, r.ID); err != nil || !reflect.DeepEqual(ks, allKeys[i]) {
			t.Fatalf("keys of record %d: %+v %v", i, ks, err)
		}
		if byLoc, err := st.RecordsByLocation(ctx, r.Locations[0].Key, 0, 1000, true); err != nil || len(byLoc) != 1 || byLoc[0].ID != r.ID {
			t.Fatalf("location of record %d: %+v %v", i, byLoc, err)
		}
	}
	log, err := st.Log(ctx, 0, 1000)
	if err != nil || len(log) != len(all) {
		t.Fatalf("%d entries, %v", len(log), err)
	}
	var v resolver.Verifier
	for i, e := range log {
		if e.RecordID != all[i].ID {
			t.Fatalf("entry %d is about record %d, want %d", i, e.RecordID, all[i].ID)
		}
		if err := v.Next(e); err != nil {
			t.Fatal(err)
		}
	}
	if byLoc, err := st.RecordsByLocation(ctx, "https://stale.example/60", 0, 1000, true); err != nil || len(byLoc) != 0 {
		t.Fatalf("a location of a stopped call: %+v %v", byLoc, err)
	}
	if dups, err := st.DuplicateLocations(ctx, "", 10, true); err != nil || len(dups) != 0 {
		t.Fatalf("duplicate locations: %+v %v", dups, err)
	}
}
