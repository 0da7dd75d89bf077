#!/bin/bash
# PostgreSQL import rate, each run a first load into a new cluster:
#   bench/pg-fresh.sh GENDIR [RUNS]
# Each run starts a throwaway durable cluster (bench/pgcluster), imports
# GENDIR/records.jsonl through `urikit import --db`, and stops the
# cluster. A new cluster has no WAL files to reuse: the server creates
# them as the import writes (each zero-filled and synced before use),
# which bench/pg-import.sh's later runs do not pay. PGCLUSTER_ARGS are
# flags for bench/pgcluster (e.g. '-max-wal-size 32GB').
set -euo pipefail
gen=$1 runs=${2:-5}
bin=${URIKIT:-/tmp/bench-urikit}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/bench-pgfresh.XXXXXX)
cl=
cleanup() { [ -z "$cl" ] || { kill "$cl" 2>/dev/null || true; wait "$cl" 2>/dev/null || true; }; rm -rf "$work"; }
trap cleanup EXIT
(cd "$here" && go build -o "$work/pgcluster" ./pgcluster)
n=$(wc -l <"$gen/records.jsonl")
cat "$gen/records.jsonl" >/dev/null # the input from the page cache, for every run alike
for r in $(seq 1 "$runs"); do
	rm -f "$work/dsn"
	"$work/pgcluster" -db bench ${PGCLUSTER_ARGS:-} >"$work/dsn" 2>"$work/pg.log" &
	cl=$!
	for _ in $(seq 1 120); do [ -s "$work/dsn" ] && break; sleep 0.5; done
	db=$(head -1 "$work/dsn")
	[ -n "$db" ] || { cat "$work/pg.log"; exit 1; }
	"$bin" authority add --db "$db" Bench urn:example: >/dev/null
	rm -f "$gen/records.jsonl.import-state"
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -o "$work/time" -f "%e %U %S %M" "$bin" import --db "$db" "$gen/records.jsonl" >/dev/null 2>"$work/import.log"
	awk -v r="$r" -v n="$n" -v load="$load" \
		'{printf "run %d (new cluster): %d records, wall %.1f s = %.0f records/s; urikit cpu %.1f s, max RSS %d MiB; load %s\n", r, n, $1, n/$1, $2+$3, $4/1024, load}' "$work/time"
	kill "$cl"
	wait "$cl" 2>/dev/null || true
	cl=
done
