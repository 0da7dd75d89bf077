# Sourced by bench/pg-fresh.sh and bench/pg-ab.sh (not run on its own):
# first_load NAME BINARY starts a throwaway durable cluster
# (bench/pgcluster, with PGCLUSTER_ARGS), runs `BINARY authority add` and
# `BINARY import --db` of $gen/records.jsonl, prints one line with the
# rate, and stops the cluster. The caller sets gen and here before it
# sources this file. A new cluster has no WAL files to reuse: the server
# creates them as the import writes (each zero-filled and synced before
# use), which bench/pg-import.sh's later runs do not pay.
work=$(mktemp -d /tmp/bench-pgfirst.XXXXXX)
cl=
cleanup() { [ -z "$cl" ] || { kill "$cl" 2>/dev/null || true; wait "$cl" 2>/dev/null || true; }; rm -rf "$work"; }
trap cleanup EXIT
(cd "$here" && go build -o "$work/pgcluster" ./pgcluster)
n=$(wc -l <"$gen/records.jsonl")
cat "$gen/records.jsonl" >/dev/null # the input from the page cache, for every run alike

first_load() { # NAME BINARY
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
