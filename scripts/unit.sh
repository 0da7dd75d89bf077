#!/usr/bin/env bash
# Runs every unit, example and conformance test of the module (and of the
# bench module beside it), prints each package's result and the failures,
# lists what was skipped and why, and closes with
# "unit: N passed, N failed, N skipped" (tests, subtests and examples).
#
# Packages with concurrent code run under the race detector: those whose Go
# files, tests included, start goroutines (a "go" statement). A package can
# keep a slow load, crash or memory test out of the race run with a
# "//go:build !race" constraint on that test's file.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT

race=() plain=()
while read -r pkg dir; do
  if grep -qE '^[[:space:]]*go (func|[[:alnum:]_.]+\()' "$dir"/*.go 2>/dev/null; then
    race+=("$pkg")
  else
    plain+=("$pkg")
  fi
done < <(go list -f '{{.ImportPath}} {{.Dir}}' ./...)

# go test's default timeout (10 minutes a package) is a hang detector;
# cmd/urikit's end-to-end tests under the race detector come close to it
# on two cores, and a busy machine pushed them past it. A hang still
# stops the run, within the CI's budget.
status=0
if [ ${#race[@]} -gt 0 ]; then
  echo "race: ${race[*]}"
  go test -race -timeout 30m -count=1 -v "${race[@]}" >>"$log" 2>&1 || status=1
fi
if [ ${#plain[@]} -gt 0 ]; then
  go test -timeout 20m -count=1 -v "${plain[@]}" >>"$log" 2>&1 || status=1
fi
if [ -f bench/go.mod ]; then
  (cd bench && go test -count=1 -v ./...) >>"$log" 2>&1 || status=1
fi

grep -E '^(ok|FAIL|\?)[[:space:]]' "$log" || true
if [ $status -ne 0 ]; then
  grep -B2 -A20 -E '^\s*--- FAIL' "$log" | head -200
fi
skips=$(grep -E '^\s*--- SKIP' "$log" || true)
if [ -n "$skips" ]; then
  echo "skipped:"
  # the test's name, then the reason it logged
  grep -A1 -E '^\s*--- SKIP' "$log" | grep -vE '^--$' | sed 's/^/  /'
fi
passed=$(grep -cE '^\s*--- PASS' "$log")
failed=$(grep -cE '^\s*--- FAIL' "$log")
skipped=$(grep -cE '^\s*--- SKIP' "$log")
if [ $status -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1 # a build error or a panic outside any test
fi
echo "unit: $passed passed, $failed failed, $skipped skipped"
exit $status
