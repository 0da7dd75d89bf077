package httpapi_test

import (
	"context"
	"os"
	"testing"

	"github.com/urikit/urikit/internal/pgtest"
	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/httpapi/apitest"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/resolver/sqlite"
)

// cluster is the PostgreSQL cluster this test binary starts (pgtest.Main).
var cluster *pgtest.Cluster

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, &cluster, pgtest.Options{}))
}

// TestHTTPOverSQLite runs the end-to-end suite through real HTTP over the
// embedded store, as urikit serve runs by default.
func TestHTTPOverSQLite(t *testing.T) {
	apitest.Run(t, func(t *testing.T) resolver.Store {
		s, err := sqlite.Open(context.Background(), t.TempDir(), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestHTTPOverPostgres runs it over PostgreSQL (a throwaway cluster; the
// test is skipped when PostgreSQL is not installed).
func TestHTTPOverPostgres(t *testing.T) {
	apitest.Run(t, func(t *testing.T) resolver.Store {
		s, err := postgres.Open(context.Background(), cluster.NewDB(t), postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
