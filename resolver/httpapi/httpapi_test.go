package httpapi_test

import (
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/httpapi/apitest"
	"github.com/urikit/urikit/resolver/memstore"
)

// TestHTTP runs the end-to-end suite over the in-memory reference store;
// resolver/sqlite and resolver/postgres run the same suite over theirs.
func TestHTTP(t *testing.T) {
	apitest.Run(t, func(t *testing.T) resolver.Store { return memstore.New() })
}
