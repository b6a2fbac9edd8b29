#!/usr/bin/env bash
# Starts the dev Neo4j (embedded Neo4j 5 Community, Bolt on, auth off) in the background, building the
# launcher first when needed, and waits until Bolt answers. Prints NEO4J_URI=bolt://... as its last line on
# stdout; everything else goes to stderr. Port: NEO4J_DEV_PORT (default 7687). Data: NEO4J_DEV_DATA
# (default run/data). Heap: NEO4J_DEV_HEAP (default 1g). Wait: NEO4J_DEV_WAIT seconds (default 180).
# Extra JVM flags: NEO4J_DEV_JAVA_OPTS (they come last, so -XX:TieredStopAtLevel=4 brings back C2).
# Class-data sharing: NEO4J_DEV_CDS=1|0 (default 1, but 0 when CI=true: a CI run starts only once).
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUN="$DIR/run"
LOG="$RUN/neo4j.log"
PIDFILE="$RUN/neo4j.pid"
PORTFILE="$RUN/neo4j.port"
JAR="$DIR/target/neo4j-dev.jar"
# Class-data sharing archive: recorded when the first launch after a build exits (that stop takes ~20 s
# more), used by the next launches; it brings Bolt-ready from ~11-20 s to ~5 s on two busy cores.
CDS="$DIR/target/neo4j-dev.jsa"
MAIN=dev.hopwise.neo4jdev.Main
PORT="${NEO4J_DEV_PORT:-7687}"
URI="bolt://127.0.0.1:$PORT"
WAIT="${NEO4J_DEV_WAIT:-180}"

# shellcheck source=lib.sh
source "$DIR/lib.sh"

needs_build() {
  [[ ! -f "$JAR" || ! -d "$DIR/target/lib" ]] && return 0
  [[ "$DIR/pom.xml" -nt "$JAR" ]] && return 0
  [[ -n "$(find "$DIR/src" -newer "$JAR" -print -quit)" ]]
}

build() {
  say "building the launcher (mvn -q -B package in $DIR)"
  local started=$SECONDS
  # Maven 3.8 prints stray colour resets even in batch mode: strip them.
  mvn -q -B -f "$DIR/pom.xml" package 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2
  rm -f "$CDS"
  say "built in $((SECONDS - started)) s"
}

launch() {
  mkdir -p "$RUN"
  if [[ -f "$LOG" ]]; then
    mv -f "$LOG" "$LOG.prev"
  fi
  export NEO4J_DEV_PORT="$PORT"
  local cds=-Xshare:auto java
  if ! command -v "${JAVA:-java}" >/dev/null; then
    say "java not found (Java 17 is needed; JAVA may name it)"
    exit 1
  fi
  java="$(readlink -f "$(command -v "${JAVA:-java}")")"
  if cds_enabled; then
    # An archive made by another JDK build would be ignored for good: make a new one.
    if [[ "$java" -nt "$CDS" ]]; then
      rm -f "$CDS"
    fi
    cds=-XX:SharedArchiveFile="$CDS"
    [[ -f "$CDS" ]] || cds=-XX:ArchiveClassesAtExit="$CDS"
  fi
  local extra=()
  read -r -a extra <<<"${NEO4J_DEV_JAVA_OPTS:-}"
  # The --add-opens list is the one Neo4j's own launcher passes on Java 17. C1 only (TieredStopAtLevel=1):
  # faster start and less memory on a small machine; dev data is too small to need C2's peak speed.
  nohup "$java" \
    -Xms256m -Xmx"${NEO4J_DEV_HEAP:-1g}" -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError \
    -XX:TieredStopAtLevel=1 "$cds" -Xlog:cds=off,cds+dynamic=off \
    -Dfile.encoding=UTF-8 -Dio.netty.tryReflectionSetAccessible=true \
    --add-opens=java.base/java.nio=ALL-UNNAMED \
    --add-opens=java.base/java.io=ALL-UNNAMED \
    --add-opens=java.base/java.lang=ALL-UNNAMED \
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
    --add-exports=java.base/sun.nio.ch=ALL-UNNAMED \
    --add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED \
    "${extra[@]}" \
    -cp "$JAR:$DIR/target/lib/*" "$MAIN" --home "$RUN" --port "$PORT" \
    >"$LOG" 2>&1 </dev/null &
  echo $! >"$PIDFILE"
  echo "$PORT" >"$PORTFILE"
  say "started pid $! (log $LOG)"
}

cds_enabled() {
  case "${NEO4J_DEV_CDS:-}" in
    0 | false | off) return 1 ;;
    "") [[ "${CI:-}" != true ]] ;;
    *) return 0 ;;
  esac
}

fail() {
  say "$1"
  if [[ -f "$LOG" ]]; then
    say "--- last 40 lines of $LOG ---"
    tail -n 40 "$LOG" >&2
  fi
  exit 1
}

wait_ready() {
  local pid=$1 started=$SECONDS
  while ((SECONDS - started < WAIT)); do
    if ! launcher_alive "$pid"; then
      rm -f "$PIDFILE"
      fail "the launcher (pid $pid) exited before Bolt was ready"
    fi
    if grep -q 'neo4j-dev: ready on' "$LOG" 2>/dev/null && bolt_handshake "$PORT"; then
      say "Bolt ready on $URI after $((SECONDS - started)) s"
      return 0
    fi
    sleep 1
  done
  fail "Bolt did not answer on port $PORT within $WAIT s (pid $pid is left running: stop.sh stops it)"
}

pid="$(running_pid || true)"
if [[ -n "$pid" ]]; then
  # The running launcher keeps the port it was started with.
  PORT="$(cat "$PORTFILE" 2>/dev/null || echo "$PORT")"
  URI="bolt://127.0.0.1:$PORT"
  if bolt_handshake "$PORT"; then
    say "already running (pid $pid)"
    echo "NEO4J_URI=$URI"
    exit 0
  fi
  say "pid $pid is running but Bolt does not answer on port $PORT yet: waiting for it"
  wait_ready "$pid"
  echo "NEO4J_URI=$URI"
  exit 0
fi

if port_open "$PORT"; then
  say "port $PORT is already in use by another process; set NEO4J_DEV_PORT to another port"
  exit 1
fi
if needs_build; then
  build
fi
launch
wait_ready "$(cat "$PIDFILE")"
echo "NEO4J_URI=$URI"
