package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/urn"
)

// TestUpdateRetries: a transaction that lost a race (serialization
// failure, deadlock) runs again, and only its last run's writes stay; a
// taken key is not retried but returned.
func TestUpdateRetries(t *testing.T) {
	ctx := context.Background()
	st := open(t, cluster.NewDB(t), postgres.Options{})
	for _, code := range []string{"40001", "40P01"} {
		runs := 0
		err := st.Update(ctx, func(tx resolver.Tx) error {
			runs++
			if err := tx.SetSetting(ctx, "runs-"+code, fmt.Sprint(runs)); err != nil {
				return err
			}
			if runs < 3 {
				return &pgconn.PgError{Code: code, Message: "lost a race (simulated)"}
			}
			return nil
		})
		if err != nil || runs != 3 {
			t.Fatalf("%s: %d runs, %v", code, runs, err)
		}
		if v, err := st.Setting(ctx, "runs-"+code); err != nil || v != "3" {
			t.Fatalf("%s: setting %q %v", code, v, err)
		}
	}
	runs := 0
	err := st.Update(ctx, func(tx resolver.Tx) error {
		runs++
		return fmt.Errorf("wrapped: %w", resolver.ErrKeyTaken)
	})
	if !errors.Is(err, resolver.ErrKeyTaken) || runs != 1 {
		t.Fatalf("ErrKeyTaken: %d runs, %v", runs, err)
	}
}

// TestBigChangeReachesOtherInstances: a PutMany whose keys do not fit in
// one notification is announced in several (400 names: about 12 KB of
// keys, two of them), or as "everything" when it is bigger than
// maxNotifications hold (1,500 names); either way another instance that
// had cached "no such name" for every one of them finds them all right
// after the acknowledgement.
func TestBigChangeReachesOtherInstances(t *testing.T) {
	ins := twoInstances(t, nil)
	ctx := context.Background()
	first := 0
	for _, n := range []int{400, 1500} {
		batch := importBatch(first, n)
		first += n
		for _, in := range batch {
			if _, err := ins[1].svc.Lookup(ctx, urn.MustParse(in.URN)); resolver.KindOf(err) != resolver.KindNotFound {
				t.Fatalf("before: %v", err)
			}
		}
		res, err := ins[0].svc.PutMany(ctx, ins[0].maint, batch)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
		}
		before := ins[1].st.Stats()
		for _, in := range batch {
			if _, err := ins[1].svc.Lookup(ctx, urn.MustParse(in.URN)); err != nil {
				t.Fatalf("%s after the import through the other instance: %v", in.URN, err)
			}
		}
		if s := ins[1].st.Stats(); s.Version < before.Version || !s.Listening {
			t.Fatalf("stats %+v", s)
		}
	}
}
