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
	ctx := context.Background()
	dsn := cluster.NewDB(t)
	open(t, dsn, postgres.Options{}) // creates the schema
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// A log of 100,000 entries about 1,000 records and none, as far as
	// the planner's statistics go (the chain does not matter here).
	for _, q := range []string{
		`INSERT INTO log SELECT s, now(), 'name.update', 'urn:example:x', s % 1000, 0, 'system', '\x7b7d', '', ''
			FROM generate_series(1, 100000) s`,
		`ANALYZE log`,
		`SET plan_cache_mode = force_generic_plan`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	args := map[string]string{
		"qHistory":            "(7, 0, 10)",
		"qHistoryBefore":      "(7, 9223372036854775807, 10)",
		"qHistoryBeforeUntil": "(7, 9223372036854775807, now(), 10)",
	}
	for name, q := range postgres.HistoryStatements {
		if _, err := conn.Exec(ctx, "PREPARE "+name+" AS "+q); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rows, err := conn.Query(ctx, "EXPLAIN EXECUTE "+name+args[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		all := strings.Join(plan, "\n")
		if !strings.Contains(all, "Index Scan") || !strings.Contains(all, "log_record") || strings.Contains(all, "Sort") {
			t.Errorf("%s does not read a range of log_record in its order:\n%s", name, all)
		}
		t.Logf("%s:\n  %s", name, strings.Join(plan, "\n  "))
	}
}
