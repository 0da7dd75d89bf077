package postgres

import (
	"context"
	"time"
)

// MigrateTo brings the database dsn names to schema version to, for tests
// of what a later migration finds.
func MigrateTo(ctx context.Context, dsn string, to int) (from int, err error) {
	return MigrateToWithin(ctx, dsn, to, 0)
}

// MigrateToWithin is MigrateTo through a pool whose Options.Timeout (and
// so statement_timeout) is timeout (0: the default).
func MigrateToWithin(ctx context.Context, dsn string, to int, timeout time.Duration) (from int, err error) {
	pool, err := newPool(ctx, dsn, Options{Timeout: timeout}.withDefaults())
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

// The statements of StaleSuccessors, for the test of their plans.
const (
	QSuccessorsUnkeyed   = qSuccessorsUnkeyed
	QSuccessorsOfVersion = qSuccessorsOfVersion
	QPredecessors        = qPredecessors
	// The statements of RecordsByLocation, for the test of their plans.
	QRecordsByLocation       = qRecordsByLocation
	QRecordsByLocationActive = qRecordsByLocationActive
	// The statements of DuplicateLocations, for the test of their plans.
	QDuplicateKeys       = duplicateKeys
	QDuplicateKeysActive = duplicateKeysActive
	MigrationLock        = int64(migrationLock)
)

// SetMigrationLocks sets how long a migration waits for a lock, how many
// times it tries and how long it waits between tries, and calls hook after
// each try that found the lock taken, until the test ends.
func SetMigrationLocks(t interface{ Cleanup(func()) }, timeout time.Duration, attempts int, retry time.Duration, hook func(v, attempt int)) {
	t0, a0, r0, h0 := lockTimeout, lockAttempts, lockRetry, onLockTimeout
	lockTimeout, lockAttempts, lockRetry, onLockTimeout = timeout, attempts, retry, hook
	t.Cleanup(func() { lockTimeout, lockAttempts, lockRetry, onLockTimeout = t0, a0, r0, h0 })
}
