package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/resolver/postgres"
)

// TestHistoryPlans: a page of a record's history reads a range of the
// partial index log_record (record_id, seq) in its order, in the generic
// plan a prepared statement ends up with: no scan of the log, no sort. A
// record changed a hundred thousand times is read a page at a time.
func TestHistoryPlans(t *testing.T) {
	// A log of 100,000 entries about 1,000 records and none, as far as
	// the planner's statistics go (the chain does not matter here).
	conn := planConn(t,
		`INSERT INTO log SELECT s, now(), 'name.update', 'urn:example:x', s % 1000, 0, 'system', '\x7b7d', '', ''
			FROM generate_series(1, 100000) s`,
		`ANALYZE log`)
	args := map[string]string{
		"qHistory":            "(7, 0, 10)",
		"qHistoryBefore":      "(7, 9223372036854775807, 10)",
		"qHistoryBeforeUntil": "(7, 9223372036854775807, now(), 10)",
	}
	for name, q := range postgres.HistoryStatements {
		if _, err := conn.Exec(context.Background(), "PREPARE "+name+" AS "+q); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		plan := genericPlan(t, conn, name+args[name])
		all := strings.Join(plan, "\n")
		if !strings.Contains(all, "Index Scan") || !strings.Contains(all, "log_record") || strings.Contains(all, "Sort") {
			t.Errorf("%s does not read a range of log_record in its order:\n%s", name, all)
		}
		t.Logf("%s:\n  %s", name, strings.Join(plan, "\n  "))
	}
}

// planConn returns a connection to a new database with urikit's schema,
// after setup's statements, whose prepared statements get the generic
// plan (the one a statement prepared by pgx ends up with).
func planConn(t *testing.T, setup ...string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	dsn := cluster.NewDB(t)
	open(t, dsn, postgres.Options{}) // creates the schema
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	for _, q := range append(setup, `SET plan_cache_mode = force_generic_plan`) {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return conn
}

// genericPlan returns the lines of EXPLAIN EXECUTE execute (a prepared
// statement's name and its arguments).
func genericPlan(t *testing.T, conn *pgx.Conn, execute string) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), "EXPLAIN EXECUTE "+execute)
	if err != nil {
		t.Fatalf("%s: %v", execute, err)
	}
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("%s: %v", execute, err)
	}
	return plan
}
