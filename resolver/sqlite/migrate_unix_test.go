//go:build unix

package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver/sqlite"
)

// TestMigrationWaitsForServer: a database with data is upgraded only by the
// holder of the data directory's lock. While a server (here, an Exclusive
// store of this build stands in for an older one) holds it, opening the
// directory to migrate fails and leaves the file as it was; once the
// server is gone, the upgrade goes ahead.
func TestMigrationWaitsForServer(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := os.ReadFile(filepath.Join("testdata/schema-v1", sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, sqlite.FileName), db, 0o600); err != nil {
		t.Fatal(err)
	}
	held := filepath.Join(t.TempDir(), "held")
	if err := os.Mkdir(held, 0o700); err != nil {
		t.Fatal(err)
	}
	server := openStore(t, held, sqlite.Options{Exclusive: true})
	// The server's lock file, moved into place: a flock belongs to the open
	// file, wherever its name goes (hence unix only).
	if err := os.Rename(filepath.Join(held, sqlite.LockName), filepath.Join(dir, sqlite.LockName)); err != nil {
		t.Fatal(err)
	}
	// It waits for the lock up to the busy timeout, in case the holder is
	// another process migrating the same file.
	if st, err := sqlite.Open(ctx, dir, sqlite.Options{BusyTimeout: 300 * time.Millisecond}); !errors.Is(err, sqlite.ErrLocked) {
		if err == nil {
			st.Close()
		}
		t.Fatalf("migrating beside a server: %v, want ErrLocked", err)
	}
	raw, err := sql.Open("sqlite", filepath.Join(dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var v int
	if err := raw.QueryRow(`SELECT max(version) FROM schema_version`).Scan(&v); err != nil || v != 1 {
		t.Fatalf("schema version after the refused migration: %d %v", v, err)
	}
	server.Close()
	st := openStore(t, dir, sqlite.Options{})
	if m := st.Migration(); m.From != 1 || m.To != sqlite.Latest {
		t.Fatalf("migration after the server stopped: %+v", m)
	}
}
