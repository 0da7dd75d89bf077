package postgres

import "context"

// MigrateTo brings the database dsn names to schema version to, for tests
// of what a later migration finds.
func MigrateTo(ctx context.Context, dsn string, to int) (from int, err error) {
	pool, err := newPool(ctx, dsn, Options{}.withDefaults())
	if err != nil {
		return 0, err
	}
	defer pool.Close()
	return migrate(ctx, pool, to)
}

// The statements of a record's history, for the test of their plans.
var HistoryStatements = map[string]string{
	"qHistory": qHistory, "qHistoryBefore": qHistoryBefore, "qHistoryBeforeUntil": qHistoryBeforeUntil,
}
