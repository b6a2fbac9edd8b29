#!/usr/bin/env bash
# Stop the local model servers that serve.sh started (by their pid files in
# $DATA_DIR/models); servers it merely reused are left alone.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
DATA_DIR="${DATA_DIR:-$repo/data}"
mdir="$DATA_DIR/models"

say() { printf '[models] %s\n' "$*" >&2; }

for name in chat embed; do
  pidfile="$mdir/$name.pid"
  [ -f "$pidfile" ] || { say "$name server: not started by serve.sh"; continue; }
  pid="$(cat "$pidfile")"
  # Only a live llama_cpp.server process with that pid is ours to stop.
  if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null \
    || ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'llama_cpp.server'; then
    say "$name server: not running (stale pid file removed)"
    rm -f "$pidfile" "$mdir/$name.port"
    continue
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
    say "$name server (pid $pid) killed after 10s"
  else
    say "$name server (pid $pid) stopped"
  fi
  rm -f "$pidfile" "$mdir/$name.port"
done
