package sqlite_test

import (
	"context"
	"errors"
	"fmt"
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
		if byLoc, err := st.RecordsByLocation(ctx, r.Locations[0].Key); err != nil || len(byLoc) != 1 || byLoc[0].ID != r.ID {
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
	if got, role, err := st.RecordByKey(ctx, keys[3][1].Key); err != nil || got.ID != 4 || role != resolver.RoleAlias {
		t.Fatalf("record 4's alias after the failed batch: %+v %s %v", got, role, err)
	}
}
