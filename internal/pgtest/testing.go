package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"
)

// Start makes a cluster for one test and closes it when the test ends. The
// test is skipped when PostgreSQL is not installed, and fails when the
// cluster cannot be made.
func Start(tb testing.TB, opts Options) *Cluster {
	tb.Helper()
	c, err := New(opts)
	if errors.Is(err, ErrNotInstalled) {
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := c.Close(); err != nil {
			tb.Errorf("pgtest: closing the cluster: %v", err)
		}
	})
	return c
}

// Main runs a test binary's tests with one cluster shared by all of them,
// and removes the cluster afterwards: call it from TestMain as
//
//	os.Exit(pgtest.Main(m, &cluster, pgtest.Options{}))
//
// It always sets *c. When PostgreSQL is not installed, or the cluster could
// not be made, *c is a cluster that cannot be used: its NewDB and
// NewReplica skip the calling test (not installed) or fail it (any other
// reason), so that tests that need no database still run.
func Main(m *testing.M, c **Cluster, opts Options) int {
	cl, err := New(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		*c = &Cluster{unusable: err}
		return m.Run()
	}
	*c = cl
	defer func() {
		if err := cl.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest: closing the cluster:", err)
		}
	}()
	return m.Run()
}

func (c *Cluster) usable(tb testing.TB) {
	tb.Helper()
	if c == nil {
		tb.Fatal("pgtest: no cluster (did TestMain call pgtest.Main?)")
	}
	if errors.Is(c.unusable, ErrNotInstalled) {
		tb.Skip(c.unusable)
	}
	if c.unusable != nil {
		tb.Fatal(c.unusable)
	}
}

// NewDB creates a database of its own for one test and returns its DSN;
// the database is dropped (its connections closed first) when the test
// ends.
func (c *Cluster) NewDB(tb testing.TB) string {
	tb.Helper()
	c.usable(tb)
	name := c.uniqueName()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dsn, err := c.CreateDB(ctx, name)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c.Running() {
			if err := c.DropDB(ctx, name); err != nil {
				tb.Logf("pgtest: dropping %s: %v", name, err)
			}
		}
	})
	return dsn
}

// Replica makes a streaming replica of c for one test (see NewReplica) and
// closes it when the test ends.
func (c *Cluster) Replica(tb testing.TB) *Cluster {
	tb.Helper()
	c.usable(tb)
	r, err := c.NewReplica()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := r.Close(); err != nil {
			tb.Errorf("pgtest: closing the replica: %v", err)
		}
	})
	return r
}
