package memstore_test

import (
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/memstore"
	"github.com/urikit/urikit/resolver/storetest"
)

func TestStoreSuite(t *testing.T) {
	storetest.Run(t, storetest.Backend{
		New: func(t *testing.T) resolver.Store { return memstore.New() },
	})
}

func TestCopy(t *testing.T) {
	mem := storetest.Backend{New: func(t *testing.T) resolver.Store { return memstore.New() }}
	storetest.RunCopy(t, mem, mem)
}
