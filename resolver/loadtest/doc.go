// Package loadtest holds the resolver's load and fault tests: real
// `urikit serve` processes on loopback over a throwaway PostgreSQL cluster
// (internal/pgtest) or the embedded store, driven by a paced mixed load of
// HTTP requests. It has no code of its own besides the tests.
//
// The servers are real processes, not http.Servers in the test binary,
// for three reasons: memory is measured per server (its RSS in /proc) with
// nothing of the load generator in it; the embedded store's crash test
// needs a process to kill -9; and what is tested is what a deployment
// runs, flags, start-up and reconnection included.
//
//	go test ./resolver/loadtest/                        # about a minute
//	URIKIT_SOAK=10m go test -timeout 30m ./resolver/loadtest/
//
// URIKIT_SOAK sets how long the steady mixed load runs (default 20s).
package loadtest
