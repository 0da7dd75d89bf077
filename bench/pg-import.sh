#!/bin/bash
# PostgreSQL import rate, run after run on one cluster:
#   bench/pg-import.sh GENDIR [RUNS]
# One throwaway durable cluster (bench/pgcluster); each run imports
# GENDIR/records.jsonl (what bench/gen wrote) through `urikit import --db`
# into a new, empty database, after a CHECKPOINT. The first run is a first
# load into a new cluster: the server creates its WAL files as it writes
# (1.5 GB of them for 1,000,000 records, each zero-filled and synced before
# use); later runs reuse the files the checkpoints recycled, as a server
# that has been running does. Each run prints its rate, the WAL it wrote
# and how many WAL files there were before it. PGCLUSTER_ARGS are flags for
# bench/pgcluster (e.g. '-max-wal-size 32GB').
set -euo pipefail
gen=$1 runs=${2:-5}
bin=${URIKIT:-/tmp/bench-urikit}
here=$(cd "$(dirname "$0")" && pwd)
PSQL=${PSQL:-/usr/lib/postgresql/15/bin/psql}
work=$(mktemp -d /tmp/bench-pgimport.XXXXXX)
cl=
cleanup() { [ -z "$cl" ] || { kill "$cl" 2>/dev/null || true; wait "$cl" 2>/dev/null || true; }; rm -rf "$work"; }
trap cleanup EXIT
(cd "$here" && go build -o "$work/pgcluster" ./pgcluster)
"$work/pgcluster" -db bench ${PGCLUSTER_ARGS:-} >"$work/dsn" 2>"$work/pg.log" &
cl=$!
for _ in $(seq 1 120); do [ -s "$work/dsn" ] && break; sleep 0.5; done
dsn=$(head -1 "$work/dsn")
[ -n "$dsn" ] || { cat "$work/pg.log"; exit 1; }
base=${dsn%%/bench\?*} opts=${dsn#*\?}
pgdata=$(sed -n 's/.*data in \([^;]*\);.*/\1/p' "$work/pg.log" | head -1)
n=$(wc -l <"$gen/records.jsonl")
cat "$gen/records.jsonl" >/dev/null # the input from the page cache, for every run alike
for r in $(seq 1 "$runs"); do
	"$PSQL" -q "$base/postgres?$opts" -c "DROP DATABASE IF EXISTS import" -c "CREATE DATABASE import" 2>/dev/null
	db="$base/import?$opts"
	"$bin" authority add --db "$db" Bench urn:example: >/dev/null
	"$PSQL" -q "$db" -c CHECKPOINT
	files=$(ls "$pgdata/pg_wal" | grep -c '^[0-9A-F]\{24\}$' || true)
	wal0=$("$PSQL" -Atq "$db" -c "SELECT pg_current_wal_lsn()")
	rm -f "$gen/records.jsonl.import-state"
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -o "$work/time" -f "%e %U %S %M" "$bin" import --db "$db" "$gen/records.jsonl" >/dev/null 2>"$work/import.log"
	wal=$("$PSQL" -Atq "$db" -c "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$wal0') / 1048576")
	awk -v r="$r" -v n="$n" -v load="$load" -v wal="$wal" -v files="$files" \
		'{printf "run %d: %d records, wall %.1f s = %.0f records/s; urikit cpu %.1f s, max RSS %d MiB; WAL %.0f MiB, WAL files before %d; load %s\n", r, n, $1, n/$1, $2+$3, $4/1024, wal, files, load}' "$work/time"
done
