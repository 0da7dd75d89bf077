package postgres_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/urikit/urikit/internal/pgtest"
	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/resolver/storetest"
)

var cluster *pgtest.Cluster

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, &cluster, pgtest.Options{})) }

// open opens a Store on dsn, closed when the test ends.
func open(t testing.TB, dsn string, opts postgres.Options) *postgres.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := postgres.Open(ctx, dsn, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStoreSuite(t *testing.T) {
	var dsns sync.Map // *postgres.Store → its DSN, for Again
	storetest.Run(t, storetest.Backend{
		New: func(t *testing.T) resolver.Store {
			dsn := cluster.NewDB(t)
			s := open(t, dsn, postgres.Options{})
			dsns.Store(s, dsn)
			return s
		},
		Again: func(t *testing.T, s resolver.Store) resolver.Store {
			dsn, _ := dsns.Load(s)
			return open(t, dsn.(string), postgres.Options{})
		},
	})
}
