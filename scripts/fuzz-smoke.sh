#!/usr/bin/env bash
# Runs every fuzz target of the module briefly: enough to replay the seed
# corpora in testdata/ and explore a little.
#
# The budget is a number of executions (FUZZTIME, default 50000x, a few
# seconds a target), not a duration: with a duration, Go 1.26's fuzz
# coordinator can fail a target with a bare "context deadline exceeded" when
# the deadline races a worker (golang/go#75804, fixed in Go 1.27). A count has
# no deadline to race, so a failure here is always a real finding, and the
# failing input is in testdata/fuzz/<target>/.
set -euo pipefail
fuzztime=${FUZZTIME:-50000x}
cd "$(dirname "$0")/.."
status=0
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "fuzz $pkg $target ($fuzztime)"
    log=$(mktemp)
    if ! go test "$pkg" -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" >"$log" 2>&1; then
      cat "$log"
      status=1
    fi
    rm -f "$log"
  done
done
exit $status
