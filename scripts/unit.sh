#!/usr/bin/env bash
# Runs every unit, example and conformance test of the module, prints each
# package's result and the failures, and closes with "N passed, N failed"
# (top-level tests and examples).
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
go test -count=1 -v ./... >"$log" 2>&1
status=$?
grep -E '^(ok|FAIL|---) |^\?' "$log" | grep -vE '^    ' | grep -E '^(ok|FAIL|\?)' || true
if [ $status -ne 0 ]; then
  grep -B2 -A20 -E '^\s*--- FAIL' "$log" | head -200
fi
passed=$(grep -cE '^--- PASS' "$log")
failed=$(grep -cE '^--- FAIL' "$log")
rm -f "$log"
if [ $status -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1 # a build error or a panic outside any test
fi
echo "unit: $passed passed, $failed failed"
exit $status
