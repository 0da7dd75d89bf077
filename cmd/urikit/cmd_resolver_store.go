package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/resolver/sqlite"
)

// storeConfig says which store to open.
type storeConfig struct {
	data      string // the data directory of the embedded store
	db        string // a PostgreSQL DSN; wins over data
	readDB    string // a PostgreSQL streaming replica for reads (serve)
	mustExist bool   // refuse a data directory that holds no store yet
	direct    bool   // the command works on a store only, never through a server (migrate, verify)
	exclusive bool   // take the data directory's lock (serve)
	// timeout bounds each call on PostgreSQL, a whole transaction
	// included (0: the store's default, 5 s, which suits a request).
	timeout time.Duration

	// notice, when set, is told on one line ("urikit cmd: …") that opening
	// the store migrated an older schema. Left unset by serve and migrate,
	// which report the schema themselves.
	notice io.Writer
	cmd    string
}

// openStore opens the store c names and brings its schema up to date
// (both backends migrate their schema when they open, safely when two
// processes start at once). A migration is a release boundary (older
// builds still running on the store must be stopped: README), so it is
// never silent: every command that opens a store directly comes through
// here, and a migration is told to c.notice. Nothing is said otherwise,
// not even for a store just created: scripts expect a quiet stderr.
func openStore(ctx context.Context, c storeConfig) (resolver.Store, error) {
	st, err := openStoreQuiet(ctx, c)
	if err == nil && c.notice != nil && schemaMigrated(st) {
		fmt.Fprintf(c.notice, "urikit %s: %s\n", c.cmd, schemaReport(st))
	}
	return st, err
}

// openStoreQuiet is openStore without the notice.
func openStoreQuiet(ctx context.Context, c storeConfig) (resolver.Store, error) {
	if c.db != "" {
		if !looksLikeDSN(c.db) {
			return nil, fmt.Errorf("--db %q: give a PostgreSQL URL such as postgres://user@host:5432/urikit", c.db)
		}
		st, err := postgres.Open(ctx, c.db, postgres.Options{ReadDSN: c.readDB, Timeout: c.timeout})
		if err != nil {
			return nil, fmt.Errorf("opening the database %s: %w", redactDSN(c.db), err)
		}
		return st, nil
	}
	if c.readDB != "" {
		return nil, errors.New("--read-db is a replica of a PostgreSQL primary: give --db too")
	}
	if c.mustExist {
		if _, err := os.Stat(filepath.Join(c.data, sqlite.FileName)); err != nil {
			hint := "pass --data DIR, or --server URL for a running server"
			if c.direct {
				hint = "pass the data directory of a store with --data DIR, or a PostgreSQL database with --db"
			}
			return nil, fmt.Errorf("no urikit data directory at %s (no %s in it): %s", c.data, sqlite.FileName, hint)
		}
	}
	st, err := sqlite.Open(ctx, c.data, sqlite.Options{Exclusive: c.exclusive})
	if err != nil {
		return nil, err
	}
	return st, nil
}

func looksLikeDSN(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") || strings.Contains(s, "=")
}

var dsnPassword = regexp.MustCompile(`(?i)(password\s*=\s*)('[^']*'|\S+)`)

// redactDSN hides the password of a DSN, for messages and logs.
func redactDSN(dsn string) string {
	// Any URL with user information, with a scheme or not ("//u:pw@host").
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		q := u.Query()
		if q.Has("password") {
			q.Set("password", "xxxxx")
			u.RawQuery = q.Encode()
		}
		return u.String()
	}
	return dsnPassword.ReplaceAllString(dsn, "${1}xxxxx")
}
