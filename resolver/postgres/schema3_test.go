package postgres_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/urn"
)

// TestSchema3SuccessorKeys: a database of schema 2 holding withdrawn
// records, one whose successor is a URN and one whose successor is a URL,
// is migrated to 3 and 4, which only add the columns (NULL) and their
// indexes: Verify finds the records without their successor keys until
// the Service's Migrate (urikit migrate, serve's start) computes them,
// after which the successor lists its predecessor and Verify passes; and
// a successor key edited with SQL is a state error Verify finds.
func TestSchema3SuccessorKeys(t *testing.T) {
	ctx := context.Background()
	dsn := cluster.NewDB(t)
	st := open(t, dsn, postgres.Options{})
	svc, m := service(t, st)
	for _, name := range []string{"urn:example:old", "urn:example:moved", "urn:example:new"} {
		if _, _, err := svc.Put(ctx, m, name, recordInput("https://example.org/"+name[12:])); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.Withdraw(ctx, m, "urn:example:old", "replaced", "URN:EXAMPLE:new"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Withdraw(ctx, m, "urn:example:moved", "moved", "https://example.org/elsewhere"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	// The rows as the build of schema 2 left them: schemas 3 and 4 only
	// added the two columns and their indexes (which go with them).
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `ALTER TABLE records DROP COLUMN successor_key, DROP COLUMN successor_version;
		DELETE FROM schema_migrations WHERE version >= 3`); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)

	if from, err := postgres.Migrate(ctx, dsn); err != nil || from != 2 {
		t.Fatalf("Migrate: from %d, %v", from, err)
	}
	st = open(t, dsn, postgres.Options{})
	svc = resolver.New(st, resolver.Options{AdminToken: "admin-token-for-tests"})
	old, err := svc.Lookup(ctx, urn.MustParse("urn:example:old"))
	if err != nil || old.SuccessorKey != "" || old.SuccessorVersion != 0 {
		t.Fatalf("the old record after the schema migration: %+v %v, want no successor key yet", old, err)
	}
	var se *resolver.StateError
	if _, err := svc.Verify(ctx, nil); !errors.As(err, &se) || se.RecordID != old.ID || !strings.Contains(se.Reason, "no successor key") {
		t.Fatalf("Verify after the schema migration: %v, want a state error of record %d (no successor key)", err, old.ID)
	}
	rep, err := svc.Migrate(ctx)
	if err != nil || rep.SuccessorsChecked != 2 || rep.SuccessorsRekeyed != 1 {
		t.Fatalf("Migrate: %+v %v, want 2 successors checked, 1 re-keyed (the URL has no key)", rep, err)
	}
	succ, err := svc.Lookup(ctx, urn.MustParse("urn:example:new"))
	if err != nil {
		t.Fatal(err)
	}
	if preds, _, err := svc.Predecessors(ctx, succ); err != nil || !slices.Equal(preds, []string{"urn:example:old"}) {
		t.Fatalf("predecessors after the migration: %q %v", preds, err)
	}
	old, err = svc.Lookup(ctx, urn.MustParse("urn:example:old"))
	if err != nil || old.SuccessorKey != "urn:example:new" || old.SuccessorVersion != urn.KeyVersion {
		t.Fatalf("the old record after the migration: %+v %v", old, err)
	}
	moved, err := svc.Lookup(ctx, urn.MustParse("urn:example:moved"))
	if err != nil || moved.SuccessorKey != "" || moved.SuccessorVersion != urn.KeyVersion {
		t.Fatalf("the record with a URL successor after the migration: %+v %v", moved, err)
	}
	if _, err := svc.Verify(ctx, nil); err != nil {
		t.Fatalf("Verify after the migration: %v", err)
	}

	editWithSQL(t, dsn, `UPDATE records SET successor_key = 'urn:example:forged' WHERE urn = 'urn:example:old'`)
	_, err = svc.Verify(ctx, nil)
	if !errors.As(err, &se) || se.URN != "urn:example:old" {
		t.Fatalf("Verify after the successor key was edited: %v", err)
	}
}
