package postgres_test

import (
	"context"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/resolver/sqlite"
	"github.com/urikit/urikit/resolver/storetest"
)

// TestCopy copies into and out of PostgreSQL, from and to SQLite, and
// between two databases.
func TestCopy(t *testing.T) {
	pg := storetest.Backend{New: func(t *testing.T) resolver.Store { return open(t, cluster.NewDB(t), postgres.Options{}) }}
	sq := storetest.Backend{New: func(t *testing.T) resolver.Store {
		s, err := sqlite.Open(context.Background(), t.TempDir(), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}}
	t.Run("sqlite-postgres", func(t *testing.T) { storetest.RunCopy(t, sq, pg) })
	t.Run("postgres-sqlite", func(t *testing.T) { storetest.RunCopy(t, pg, sq) })
	t.Run("postgres-postgres", func(t *testing.T) { storetest.RunCopy(t, pg, pg) })
}
