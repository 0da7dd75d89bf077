#!/bin/bash
# Two urikit builds' PostgreSQL import rates, alternated, each run a first
# load into a new cluster:
#   bench/pg-ab.sh GENDIR PAIRS BUILD_A BUILD_B
# For each pair: a throwaway durable cluster (bench/pgcluster), `urikit
# authority add`, `urikit import --db` of GENDIR/records.jsonl with A, the
# cluster stopped; then the same with B. Alternating keeps the machine's
# drift (a fifth within minutes here) out of the comparison. PGCLUSTER_ARGS
# are flags for bench/pgcluster.
set -euo pipefail
gen=$1 pairs=$2 a=$3 b=$4
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/bench-pgab.XXXXXX)
cl=
cleanup() { [ -z "$cl" ] || { kill "$cl" 2>/dev/null || true; wait "$cl" 2>/dev/null || true; }; rm -rf "$work"; }
trap cleanup EXIT
(cd "$here" && go build -o "$work/pgcluster" ./pgcluster)
n=$(wc -l <"$gen/records.jsonl")
cat "$gen/records.jsonl" >/dev/null # the input from the page cache, for every run alike
one() { # name binary
	rm -f "$work/dsn"
	"$work/pgcluster" -db bench ${PGCLUSTER_ARGS:-} >"$work/dsn" 2>"$work/pg.log" &
	cl=$!
	for _ in $(seq 1 120); do [ -s "$work/dsn" ] && break; sleep 0.5; done
	db=$(head -1 "$work/dsn")
	[ -n "$db" ] || { cat "$work/pg.log"; exit 1; }
	"$2" authority add --db "$db" Bench urn:example: >/dev/null
	rm -f "$gen/records.jsonl.import-state"
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -o "$work/time" -f "%e %U %S %M" "$2" import --db "$db" "$gen/records.jsonl" >/dev/null 2>"$work/import.log" ||
		{ echo "$1: import failed"; tail -3 "$work/import.log"; exit 1; }
	awk -v name="$1" -v n="$n" -v load="$load" -v at="$(date -u +%H:%M)" \
		'{printf "%s %s (new cluster): %d records, wall %.1f s = %.0f records/s; urikit cpu %.1f s, max RSS %d MiB; load %s\n", at, name, n, $1, n/$1, $2+$3, $4/1024, load}' "$work/time"
	kill "$cl"
	wait "$cl" 2>/dev/null || true
	cl=
}
for _ in $(seq 1 "$pairs"); do
	one A "$a"
	one B "$b"
done
