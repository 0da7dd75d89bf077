#!/bin/bash
# Two urikit builds' PostgreSQL import rates, alternated, each run a first
# load into a new cluster:
#   bench/pg-ab.sh GENDIR PAIRS BUILD_A BUILD_B
# For each pair: a throwaway durable cluster (bench/pgcluster), `urikit
# authority add`, `urikit import --db` of GENDIR/records.jsonl with A, the
# cluster stopped; then the same with B (bench/pg-first-load.sh).
# Alternating keeps the machine's drift (a fifth within minutes here) out
# of the comparison. PGCLUSTER_ARGS are flags for bench/pgcluster.
set -euo pipefail
gen=$1 pairs=$2 a=$3 b=$4
here=$(cd "$(dirname "$0")" && pwd)
. "$here/pg-first-load.sh"
for _ in $(seq 1 "$pairs"); do
	first_load A "$a"
	first_load B "$b"
done
