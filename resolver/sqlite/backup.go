package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Backup copies the store in the data directory dir into out, a new data
// directory, consistently while other processes (urikit serve) read and
// write it: SQLite's VACUUM INTO reads the database in one read
// transaction, a snapshot that WAL mode keeps for it without holding up
// any writer, and writes the copy as of that snapshot, compacted. The copy
// is a data directory of its own, that serve, verify and the rest open as
// they open dir. out must not exist: a backup never overwrites anything.
func Backup(ctx context.Context, dir, out string) error {
	src := filepath.Join(dir, FileName)
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("no urikit data directory at %s (no %s in it)", dir, FileName)
	}
	if _, err := os.Lstat(out); err == nil {
		return fmt.Errorf("%s exists already: a backup goes into a new directory, and overwrites nothing", out)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	// Private, as Open makes a data directory: the copy holds token
	// hashes and the names' history.
	if err := os.Mkdir(absOut, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", out, err)
	}
	if err := vacuumInto(ctx, src, filepath.Join(absOut, FileName)); err != nil {
		os.RemoveAll(absOut) // made here, holding nothing but the failed copy
		return err
	}
	return nil
}

// vacuumInto writes a copy of the database src into dst, a new file.
func vacuumInto(ctx context.Context, src, dst string) error {
	// The copy is made private before SQLite writes into it (VACUUM INTO
	// takes an empty file).
	f, err := os.OpenFile(dst, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	busy := strconv.FormatInt(DefaultBusyTimeout.Milliseconds(), 10)
	db, err := sql.Open("sqlite", dsn(src, "busy_timeout("+busy+")"))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	// dst is absolute, so never taken for a file: URI.
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, dst); err != nil {
		return storeErr(ctx, "copying "+src+" into "+dst, err)
	}
	// The copy is complete and synced only once the file is: VACUUM INTO
	// does not sync it.
	g, err := os.OpenFile(dst, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := g.Sync(); err != nil {
		g.Close()
		return err
	}
	return g.Close()
}
