package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/urikit/urikit/resolver"
)

// mapErr turns what pgx returns into the errors the Store contract names:
// a unique violation is resolver.ErrKeyTaken; anything that says the
// server cannot be reached, went away or did not answer in time is
// resolver.ErrUnavailable (the HTTP layer answers 503). The original error
// stays in the chain for logs.
func mapErr(err error) error {
	if err == nil || errors.Is(err, resolver.ErrNotFound) || errors.Is(err, resolver.ErrKeyTaken) ||
		errors.Is(err, resolver.ErrUnavailable) {
		return err
	}
	var re *resolver.Error
	if errors.As(err, &re) {
		return err // a Service decision made inside a transaction
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch {
		case pg.Code == "23505": // unique_violation
			return fmt.Errorf("%w (%s: %w)", resolver.ErrKeyTaken, pg.ConstraintName, err)
		case unavailableCode(pg.Code):
			return fmt.Errorf("%w: %w", resolver.ErrUnavailable, err)
		}
		return err
	}
	if unreachable(err) {
		return fmt.Errorf("%w: %w", resolver.ErrUnavailable, err)
	}
	return err
}

// unavailableCode reports whether a SQLSTATE says the server cannot serve
// now rather than that the request is wrong.
func unavailableCode(code string) bool {
	switch code {
	case "57P01", // admin_shutdown
		"57P02", // crash_shutdown
		"57P03", // cannot_connect_now (starting up, shutting down, in recovery)
		"57014", // query_canceled (statement_timeout, or our own deadline)
		"55P03", // lock_not_available (lock_timeout)
		"53300", // too_many_connections
		"53100", // disk_full
		"53200", // out_of_memory
		"25006", // read_only_sql_transaction: pointed at a standby
		"40001": // serialization_failure, left after the retries
		return true
	}
	return len(code) == 5 && code[:2] == "08" // connection_exception class
}

// retryCode reports whether a transaction that failed with code may simply
// be run again: it lost a race and changed nothing.
func retryCode(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40001" || pg.Code == "40P01") // serialization_failure, deadlock_detected
}

// connLost reports whether a read that failed with err may run once more
// on another connection: its connection broke (unreachable), or the
// server ended it — a pooled connection that a restart (57P01,
// admin_shutdown) or a crash (57P02) closed while it sat idle, whose
// first use after the restart reads the server's goodbye.
func connLost(err error) bool {
	var pg *pgconn.PgError
	return unreachable(err) || errors.As(err, &pg) && (pg.Code == "57P01" || pg.Code == "57P02")
}

// unreachable reports whether err comes from the connection rather than
// from the server's answer: dialling, a broken or closed connection, a
// deadline, a closed pool.
func unreachable(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || pgconn.Timeout(err) || pgconn.SafeToRetry(err) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
