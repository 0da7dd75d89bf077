#!/bin/bash
# Lookups (I2L through HTTP) against one or more running urikit instances,
# one wrk per instance at the same time (16 connections each, one thread,
# bench/i2l.lua with names from NAMES.txt); prints each wrk's RESULT line
# and the sum. Usage:
#   bench/lookups.sh NAMES.txt SECONDS URL...
# wrk runs on $CLIENT_CPU (default 1) where given.
set -euo pipefail
names=$1 secs=$2; shift 2
command -v wrk >/dev/null || { echo "lookups.sh: wrk missing: apt-get install wrk" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
ccpu=${CLIENT_CPU:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
for u in "$@"; do
	NAMES=$names taskset -c "$ccpu" wrk -t1 -c16 -d"$secs"s --timeout 10s -s "$here/i2l.lua" "$u" >"$tmp/$i" &
	i=$((i+1))
done
wait
cat "$tmp"/* | grep '^RESULT' | awk '{print} {for(f=2;f<=NF;f++){split($f,a,"="); v[a[1]]+=a[2]; if(a[1]=="p99_us" && a[2]>p99) p99=a[2]}} END {printf "TOTAL rps=%.0f worst_p99_us=%d non3xx=%d errors=%d\n", v["rps"], p99, v["non3xx"], v["errors"]}'
