// Package sqlitedrivers measures the two pure-Go SQLite drivers on the
// workload of resolver/sqlite: point lookups of a record by its key through a
// prepared statement, and imports in transactions of 1000 records. It is a
// module of its own so that urikit's module never requires the driver it
// does not use.
//
// One run, both drivers side by side (fixtures of 1,000,000 records are
// built on first use and kept in URIKIT_BENCH_FIXTURES):
//
//	cd bench/sqlitedrivers
//	export URIKIT_BENCH_FIXTURES=/tmp/sqlitedrivers
//	go test -run '^$' -bench Lookup -benchmem -benchtime 100000x
//	go test -run '^$' -bench Import -benchmem -benchtime 50x
//
// Besides ns/op, each benchmark reports cpu-µs/op (the process's CPU time
// per op, steadier than wall time on a shared machine) and a throughput.
package sqlitedrivers
