#!/usr/bin/env bash
# Runs every fuzz target of the module briefly (FUZZTIME each, default 10s):
# enough to replay the seed corpora in testdata/ and explore a little.
set -euo pipefail
fuzztime=${FUZZTIME:-10s}
cd "$(dirname "$0")/.."
status=0
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "fuzz $pkg $target ($fuzztime)"
    if ! go test "$pkg" -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" >/tmp/fuzz-$target.log 2>&1; then
      cat /tmp/fuzz-$target.log
      status=1
    fi
  done
done
exit $status
