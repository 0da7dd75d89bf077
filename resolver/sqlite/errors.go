package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/urikit/urikit/resolver"
)

// errClosed is what every method returns once Close has run.
var errClosed = fmt.Errorf("%w: the store is closed", resolver.ErrUnavailable)

// storeErr classifies an error from the driver for the Service:
//
//   - a UNIQUE or PRIMARY KEY violation becomes resolver.ErrKeyTaken, so
//     that a race lost to another process ends like a check lost in this one;
//   - SQLITE_BUSY and SQLITE_LOCKED (another process held the lock for
//     longer than the busy timeout), I/O errors, a full disk, a file that
//     cannot be opened, a lost connection and a deadline become
//     resolver.ErrUnavailable (503): the request may well succeed later;
//   - everything else (a corrupt file, a bug) stays as it is: KindInternal.
//
// The SQLite error stays in the chain for logs.
func storeErr(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, resolver.ErrNotFound) || errors.Is(err, resolver.ErrKeyTaken) || errors.Is(err, resolver.ErrUnavailable) {
		return err
	}
	var se *msqlite.Error
	if errors.As(err, &se) {
		code := se.Code()
		switch code & 0xff {
		case sqlite3.SQLITE_CONSTRAINT:
			if code == sqlite3.SQLITE_CONSTRAINT_UNIQUE || code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY {
				return fmt.Errorf("%s: %w (%v)", what, resolver.ErrKeyTaken, err)
			}
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("%s: %w: the database is locked by another connection or process and stayed locked past the busy timeout (%w)", what, resolver.ErrUnavailable, err)
		case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PROTOCOL, sqlite3.SQLITE_NOLFS:
			return fmt.Errorf("%s: %w: %w", what, resolver.ErrUnavailable, err)
		case sqlite3.SQLITE_INTERRUPT:
			if ctx.Err() != nil {
				return fmt.Errorf("%s: %w: %w", what, resolver.ErrUnavailable, ctx.Err())
			}
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		errors.Is(err, sql.ErrConnDone), errors.Is(err, driver.ErrBadConn), errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("%s: %w: %w", what, resolver.ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// isBusy reports whether err is SQLite's SQLITE_BUSY: another connection
// holds a lock this one needs.
func isBusy(err error) bool {
	var se *msqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}
