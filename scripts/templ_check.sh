#!/usr/bin/env bash
# Fails when a generated *_templ.go file is not what `go tool templ generate` makes of its .templ source (a
# .templ edited without `make generate`, or a generated file edited by hand). It generates into a temporary
# copy of the .templ files, so the working tree is never written. (`templ generate -check` reports every
# file as out of date in templ v0.3.1118, so it is not used.)
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mapfile -t sources < <(git ls-files --cached --others --exclude-standard '*.templ')
if [[ ${#sources[@]} -eq 0 ]]; then
  exit 0
fi
for src in "${sources[@]}"; do
  mkdir -p "$tmp/$(dirname "$src")"
  cp "$src" "$tmp/$src"
done
if ! out=$(go tool templ generate -path "$tmp" 2>&1); then
  echo "templ generate failed:"
  echo "$out"
  exit 1
fi
stale=0
for src in "${sources[@]}"; do
  gen="${src%.templ}_templ.go"
  if [[ ! -f "$gen" ]]; then
    echo "$gen is missing: run make generate"
    stale=1
  elif ! cmp -s "$tmp/$gen" "$gen"; then
    echo "$gen does not match $src: run make generate"
    diff -u "$gen" "$tmp/$gen" | head -n 20 || true
    stale=1
  fi
done
exit $stale
