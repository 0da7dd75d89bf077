#!/bin/sh
# Import rate into the embedded store: `urikit import` of a generated file
# into a fresh data directory, timed from outside (the whole command: parse,
# validate, write, commit). Usage:
#   bench/import-sqlite.sh DATADIR RECORDS.jsonl [REPEATS]
# Writes one line per run: records, wall and processor seconds, rates.
set -eu
data=$1 file=$2 repeats=${3:-1}
bin=${URIKIT:-/tmp/bench-urikit}
n=$(wc -l < "$file")
for r in $(seq 1 "$repeats"); do
	rm -rf "$data" "$file.import-state"
	"$bin" authority add --data "$data" Bench urn:example: >/dev/null
	# The machine is shared: besides wall time, the import's own processor
	# time (user+sys), which other processes' load does not inflate much.
	if ! /usr/bin/time -o "$data.time" -f "%e %U %S" "$bin" import --data "$data" "$file" >/dev/null 2>"$data.err"; then
		cat "$data.err" >&2
		exit 1
	fi
	awk -v n="$n" '{printf "import sqlite: %d records, wall %.1f s = %.0f records/s; cpu %.1f s = %.0f records per cpu-second; load %s\n", n, $1, n/$1, $2+$3, n/($2+$3), "'"$(cut -d' ' -f1 /proc/loadavg)"'"}' "$data.time"
done
du -sh "$data"
