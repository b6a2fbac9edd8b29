#!/usr/bin/env bash
# `make test`: every package's tests under the race detector, then each fuzz target briefly, then a summary
# of what ran and of every skipped test with its reason. Before the tests it starts the dev Neo4j
# (deploy/neo4j-dev, Bolt on 127.0.0.1:7687; left running for the next run, `make neo4j-stop` stops it)
# unless NEO4J_URI is set, and finds chromium for the browser test (HOPWISE_CHROMIUM), so that what
# skips on this machine is said, with how to run it.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
PKGS=${PKGS:-./...}
notes=()

if [ -z "${NEO4J_URI:-}" ] && [ "${HOPWISE_TEST_NEO4J:-1}" != 0 ]; then
  log=$(mktemp)
  if command -v java >/dev/null 2>&1 && line=$(deploy/neo4j-dev/start.sh 2>"$log" | tail -n 1) && [[ $line == NEO4J_URI=* ]]; then
    export NEO4J_URI=${line#NEO4J_URI=}
    notes+=("Neo4j: the store contract suite ran against the dev Neo4j at $NEO4J_URI (make neo4j-stop stops it)")
  else
    notes+=("Neo4j: the dev Neo4j did not start, so its tests skipped: it needs Java 17+ and Maven (apt-get install -y openjdk-17-jdk-headless maven), or set NEO4J_URI to a Neo4j 5 that may be wiped; $(tail -n 1 "$log")")
  fi
  rm -f "$log"
elif [ -n "${NEO4J_URI:-}" ]; then
  notes+=("Neo4j: the store contract suite ran against NEO4J_URI=$NEO4J_URI")
fi

if [ -z "${HOPWISE_CHROMIUM:-}" ]; then
  for c in chromium chromium-browser google-chrome; do
    if p=$(command -v "$c"); then
      export HOPWISE_CHROMIUM=$p
      break
    fi
  done
fi
if [ -n "${HOPWISE_CHROMIUM:-}" ]; then
  notes+=("browser: the journey ran in $HOPWISE_CHROMIUM")
else
  notes+=("browser: no chromium found, so the browser journey skipped: apt-get install -y chromium, or set HOPWISE_CHROMIUM")
fi

summary=$(mktemp)
# -timeout: cmd/hopwise runs real processes on the shared Neo4j (TestSharedServeKill9 took 3-12 minutes at
# load 20-45), beyond go test's default 10 minutes a package.
"$GO" test -race -count=1 -timeout 30m -json $PKGS 2>&1 | "$GO" run ./scripts/testsummary -summary "$summary"
status=$?
if ! FUZZTIME=${FUZZTIME:-2000x} scripts/fuzz.sh; then
  status=1
fi
echo
cat "$summary"
rm -f "$summary"
for n in "${notes[@]}"; do
  echo "$n"
done
exit "$status"
