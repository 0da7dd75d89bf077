#!/bin/bash
# PostgreSQL figures: import rate (urikit import --db, COPY path) and I2L
# lookups through one and two urikit serve instances on one database.
#   bench/pg.sh GENDIR [SECONDS] [ROUNDS]
# GENDIR is what bench/gen wrote (records.jsonl, names.txt). A throwaway
# durable cluster is made by bench/pgcluster and removed at the end.
set -euo pipefail
gen=$1 secs=${2:-15} rounds=${3:-2}
bin=${URIKIT:-/tmp/bench-urikit}
here=$(cd "$(dirname "$0")" && pwd)
scpu=${SERVER_CPU:-0}
work=$(mktemp -d /tmp/bench-pg.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
(cd "$here" && go build -o "$work/pgcluster" ./pgcluster)
"$work/pgcluster" -db bench >"$work/dsn" 2>"$work/pg.log" &
pids+=($!)
for _ in $(seq 1 120); do [ -s "$work/dsn" ] && break; sleep 0.5; done
dsn=$(head -1 "$work/dsn")
[ -n "$dsn" ] || { cat "$work/pg.log"; exit 1; }
n=$(wc -l <"$gen/records.jsonl")
"$bin" authority add --db "$dsn" Bench urn:example: >/dev/null
rm -f "$gen/records.jsonl.import-state"
/usr/bin/time -o "$work/time" -f "%e %U %S" "$bin" import --db "$dsn" "$gen/records.jsonl" >/dev/null 2>"$work/import.log"
awk -v n="$n" -v load="$(cut -d' ' -f1 /proc/loadavg)" '{printf "import postgres: %d records, wall %.1f s = %.0f records/s; urikit cpu %.1f s; load %s\n", n, $1, n/$1, $2+$3, load}' "$work/time"

start_serve() { # PORT
	taskset -c "$scpu" "$bin" serve --addr 127.0.0.1:$1 --db "$dsn" --log-level warn >/dev/null 2>>"$work/serve.log" &
	pids+=($!)
	for _ in $(seq 1 120); do curl -sf -o /dev/null "http://127.0.0.1:$1/readyz" && return; sleep 0.5; done
	echo "serve on $1 did not come up" >&2; cat "$work/serve.log" >&2; exit 1
}
start_serve 18090
start_serve 18091
"$here/lookups.sh" "$gen/names.txt" 5 http://127.0.0.1:18090 http://127.0.0.1:18091 >/dev/null # warm-up
for r in $(seq 1 "$rounds"); do
	echo "round $r one instance:  $("$here/lookups.sh" "$gen/names.txt" "$secs" http://127.0.0.1:18090 | grep TOTAL) load=$(cut -d' ' -f1 /proc/loadavg)"
	echo "round $r two instances: $("$here/lookups.sh" "$gen/names.txt" "$secs" http://127.0.0.1:18090 http://127.0.0.1:18091 | grep TOTAL) load=$(cut -d' ' -f1 /proc/loadavg)"
done
