// Package storetest is the one test suite every resolver.Store must pass:
// the Store contract (what the interface's comments promise) and the
// Service's rules run over that store. Each backend's own tests call Run
// with a way to make a fresh, empty store; nothing here assumes a
// particular database.
package storetest

import (
	"context"
	"testing"

	"github.com/urikit/urikit/resolver"
)

// Backend tells the suite how to get stores.
type Backend struct {
	// New returns a fresh, empty store; the test's cleanup closes it.
	New func(t *testing.T) resolver.Store
	// Again, when not nil, returns another handle on the database behind
	// s (another process's view): the suite then checks that writes made
	// through one handle are read through the other, and that the database
	// itself keeps equivalent names unique between them.
	Again func(t *testing.T, s resolver.Store) resolver.Store
}

// Run runs the whole suite.
func Run(t *testing.T, b Backend) {
	t.Run("Contract", func(t *testing.T) { RunContract(t, b) })
	t.Run("Service", func(t *testing.T) { RunService(t, b) })
}

func ctx(t *testing.T) context.Context { return context.Background() }
