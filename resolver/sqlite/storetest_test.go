package sqlite_test

import (
	"context"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/memstore"
	"github.com/urikit/urikit/resolver/sqlite"
	"github.com/urikit/urikit/resolver/storetest"
)

// TestStoreSuite runs the suite every Store passes, on a fresh database in
// a temporary directory, and with a second Store on the same file as the
// other process's view.
func TestStoreSuite(t *testing.T) {
	storetest.Run(t, storetest.Backend{
		New: func(t *testing.T) resolver.Store { return openStore(t, t.TempDir(), sqlite.Options{}) },
		Again: func(t *testing.T, s resolver.Store) resolver.Store {
			st, err := sqlite.Open(context.Background(), dirOf(s.(*sqlite.Store)), sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		},
	})
}

// TestCopy copies between SQLite stores, and to and from the in-memory
// store (PostgreSQL's pairs are in resolver/postgres).
func TestCopy(t *testing.T) {
	sq := storetest.Backend{New: func(t *testing.T) resolver.Store { return openStore(t, t.TempDir(), sqlite.Options{}) }}
	mem := storetest.Backend{New: func(t *testing.T) resolver.Store { return memstore.New() }}
	t.Run("sqlite-sqlite", func(t *testing.T) { storetest.RunCopy(t, sq, sq) })
	t.Run("sqlite-memstore", func(t *testing.T) { storetest.RunCopy(t, sq, mem) })
	t.Run("memstore-sqlite", func(t *testing.T) { storetest.RunCopy(t, mem, sq) })
}
