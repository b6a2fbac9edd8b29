#!/usr/bin/env bash
# Stops the dev Neo4j started by start.sh: SIGTERM (the launcher shuts the DBMS down cleanly), then SIGKILL
# after 30 s (120 s while it records its class-data sharing archive). Does nothing, successfully, when it
# is not running.
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PIDFILE="$DIR/run/neo4j.pid"
MAIN=dev.hopwise.neo4jdev.Main

# shellcheck source=lib.sh
source "$DIR/lib.sh"

pid="$(running_pid || true)"
if [[ -z "$pid" ]]; then
  say "not running"
  exit 0
fi

# A launcher recording its class-data sharing archive writes ~100 MB at exit: give it longer.
wait=30
recording=false
if [[ "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" == *ArchiveClassesAtExit* ]]; then
  wait=120
  recording=true
  say "stopping pid $pid (it records its class-data sharing archive on the way out)"
else
  say "stopping pid $pid"
fi
kill -TERM "$pid" 2>/dev/null || true
for _ in $(seq 1 "$wait"); do
  if ! kill -0 "$pid" 2>/dev/null; then
    rm -f "$PIDFILE"
    say "stopped"
    exit 0
  fi
  sleep 1
done

say "pid $pid did not stop within $wait s: sending SIGKILL"
kill -KILL "$pid" 2>/dev/null || true
for _ in $(seq 1 10); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.5
done
rm -f "$PIDFILE"
if $recording; then
  rm -f "$DIR/target/neo4j-dev.jsa" # half written: the next start must not use it
fi
say "killed"
