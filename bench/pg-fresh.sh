#!/bin/bash
# PostgreSQL import rate, each run a first load into a new cluster:
#   bench/pg-fresh.sh GENDIR [RUNS]
# Each run starts a throwaway durable cluster (bench/pgcluster), imports
# GENDIR/records.jsonl through `urikit import --db` (URIKIT, default
# /tmp/bench-urikit), and stops the cluster (bench/pg-first-load.sh).
# PGCLUSTER_ARGS are flags for bench/pgcluster (e.g. '-max-wal-size 32GB').
set -euo pipefail
gen=$1 runs=${2:-5}
bin=${URIKIT:-/tmp/bench-urikit}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/pg-first-load.sh"
for r in $(seq 1 "$runs"); do
	first_load "run $r" "$bin"
done
