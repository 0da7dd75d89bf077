package storetest

import (
	"context"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/uri"
	"github.com/urikit/urikit/urn"
)

// InsertLegacy writes rec as a new record that an earlier build stored,
// before a rule the Service enforces today (a location with a javascript:
// scheme, say): straight into s, with its name key and a name.create entry
// holding its snapshot, as the Service writes them, but without the
// Service's checks. It fills in what the Service would (key, status,
// redirect, location keys; Created and Updated when zero, from the
// history's head) and returns the stored record. The directory still
// verifies afterwards: layers above test that such a record keeps
// resolving as it did.
func InsertLegacy(t testing.TB, s resolver.Store, rec resolver.Record) resolver.Record {
	t.Helper()
	ctx := context.Background()
	u, err := urn.Parse(rec.URN)
	if err != nil {
		t.Fatalf("InsertLegacy: %v", err)
	}
	rec.Key, rec.Status = u.Key(), resolver.Active
	if rec.Redirect == 0 {
		rec.Redirect = resolver.DefaultRedirect
	}
	for i, l := range rec.Locations {
		lu, err := uri.Parse(l.URL)
		if err != nil {
			t.Fatalf("InsertLegacy: location %q: %v", l.URL, err)
		}
		rec.Locations[i].Key = lu.Normalize(uri.SchemeBased).String()
	}
	if len(rec.Metadata) == 0 {
		rec.Metadata = []byte(`{}`)
	}
	var out resolver.Record
	err = s.Update(ctx, func(tx resolver.Tx) error {
		r := rec
		if r.Updated.IsZero() {
			head, err := tx.Head(ctx)
			if err != nil {
				return err
			}
			r.Created, r.Updated = head.Time, head.Time
		}
		if err := tx.InsertRecord(ctx, &r); err != nil {
			return err
		}
		if err := tx.PutKey(ctx, resolver.Key{Key: r.Key, Spelling: r.URN, RecordID: r.ID, Role: resolver.RoleName, Version: urn.KeyVersion}); err != nil {
			return err
		}
		data, err := r.MarshalJSON()
		if err != nil {
			return err
		}
		out = r
		return tx.Append(ctx, &resolver.Entry{Time: r.Updated, Action: resolver.ActionNameCreate, Subject: r.URN,
			RecordID: r.ID, AuthorityID: r.AuthorityID, Actor: resolver.System.Actor(), Data: data})
	})
	if err != nil {
		t.Fatalf("InsertLegacy %s: %v", rec.URN, err)
	}
	return out
}
