#!/usr/bin/env bash
# Runs every Go fuzz target in the module for FUZZTIME each (default 5s). `go test -fuzz` takes one target of
# one package at a time, so this finds them with `go test -list`.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-5s}
failed=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  ls "$dir"/*_test.go >/dev/null 2>&1 || continue
  grep -q '^func Fuzz' "$dir"/*_test.go || continue
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
    echo "fuzz $pkg $target for $fuzztime"
    if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" >/tmp/fuzz.$$.log 2>&1; then
      cat /tmp/fuzz.$$.log
      failed=1
    fi
  done
done
rm -f /tmp/fuzz.$$.log
exit "$failed"
