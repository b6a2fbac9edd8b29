#!/usr/bin/env bash
# Start the local OpenAI-compatible model servers on 127.0.0.1 (or reuse running
# ones), wait until they answer, and print the env lines for Hopwise on stdout.
# Progress goes to stderr. Run deploy/models/install.sh first.
#
#   chat        LOCAL_LLM_PORT   (default 8081)  $DATA_DIR/models/server.json
#   embeddings  LOCAL_EMBED_PORT (default 8082)  $DATA_DIR/models/server-embed.json
#
# Two processes, because llama-cpp-python's server keeps one model loaded at a
# time and reloads on every switch between chat and embeddings (~0.5-2.5 s each).
# Pids, ports and logs: $DATA_DIR/models/{chat,embed}.{pid,port,log}. Stop with stop.sh.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
DATA_DIR="${DATA_DIR:-$repo/data}"
[ -d "$DATA_DIR/models" ] || { echo "[models] error: $DATA_DIR/models missing: run deploy/models/install.sh" >&2; exit 1; }
DATA_DIR="$(cd "$DATA_DIR" && pwd)"
mdir="$DATA_DIR/models"
venv="$mdir/venv"
chat_port="${LOCAL_LLM_PORT:-8081}"
embed_port="${LOCAL_EMBED_PORT:-8082}"
wait_s="${LOCAL_LLM_WAIT:-120}"

say() { printf '[models] %s\n' "$*" >&2; }
started=()
# On failure, stop the servers this run started, so no half set is left behind.
die() {
  printf '[models] error: %s\n' "$*" >&2
  local name pid
  for name in "${started[@]}"; do
    pid="$(cat "$mdir/$name.pid" 2>/dev/null || true)"
    [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && say "stopped $name server (pid $pid)"
    rm -f "$mdir/$name.pid" "$mdir/$name.port"
  done
  exit 1
}

for f in "$venv/bin/python" "$mdir/server.json" "$mdir/server-embed.json" "$mdir/env"; do
  [ -e "$f" ] || die "$f missing: run deploy/models/install.sh"
done

export HF_HUB_OFFLINE=1

# Prints the model ids served at PORT, one a line; fails if /v1/models does not answer.
served_models() {
  "$venv/bin/python" - "$1" <<'EOF'
import json, sys, urllib.request
try:
    with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/v1/models", timeout=3) as r:
        for m in json.load(r).get("data", []):
            print(m.get("id", ""))
except Exception:
    sys.exit(1)
EOF
}

# The first model alias in a config file.
config_alias() {
  "$venv/bin/python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["models"][0]["model_alias"])' "$1"
}

# True if the pid in file $1 is a running llama_cpp.server (not a recycled pid).
pid_alive() {
  local pid
  [ -f "$1" ] && pid="$(cat "$1")" && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null \
    && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'llama_cpp.server'
}

# start NAME PORT CONFIG: reuse a server already answering with our model, or start one.
start() {
  local name=$1 port=$2 config=$3 alias models
  alias="$(config_alias "$config")"
  if models="$(served_models "$port")"; then
    if grep -qxF "$alias" <<<"$models"; then
      say "$name server already running on 127.0.0.1:$port (reusing)"
      return 0
    fi
    die "port $port answers /v1/models but does not serve $alias; set LOCAL_LLM_PORT/LOCAL_EMBED_PORT"
  fi
  if pid_alive "$mdir/$name.pid"; then
    local old_port
    old_port="$(cat "$mdir/$name.port" 2>/dev/null || true)"
    [ "$old_port" = "$port" ] \
      || die "$name server (pid $(cat "$mdir/$name.pid")) already runs on port ${old_port:-?}; run deploy/models/stop.sh first"
    say "$name server (pid $(cat "$mdir/$name.pid")) is still starting"
    return 0
  fi
  say "starting $name server on 127.0.0.1:$port ($alias)"
  # HOST/PORT override the config file's address in llama_cpp.server.
  HOST=127.0.0.1 PORT="$port" nohup setsid "$venv/bin/python" -m llama_cpp.server \
    --config_file "$config" >>"$mdir/$name.log" 2>&1 </dev/null &
  echo $! >"$mdir/$name.pid"
  echo "$port" >"$mdir/$name.port"
  started+=("$name")
}

# wait_ready NAME PORT: until /v1/models answers, the process dies, or the time is up.
wait_ready() {
  local name=$1 port=$2 t0=$SECONDS
  while ! served_models "$port" >/dev/null; do
    if [ -f "$mdir/$name.pid" ] && ! pid_alive "$mdir/$name.pid"; then
      tail -n 30 "$mdir/$name.log" >&2 || true
      rm -f "$mdir/$name.pid"
      die "$name server exited; log: $mdir/$name.log"
    fi
    [ $((SECONDS - t0)) -lt "$wait_s" ] || die "$name server not answering on port $port after ${wait_s}s; log: $mdir/$name.log"
    sleep 0.5
  done
  say "$name server ready on 127.0.0.1:$port ($((SECONDS - t0))s)"
}

start chat "$chat_port" "$mdir/server.json"
start embed "$embed_port" "$mdir/server-embed.json"
wait_ready chat "$chat_port"
wait_ready embed "$embed_port"

# The env file follows the ports actually served.
dim="$(sed -n 's/^EMBED_DIM=//p' "$mdir/env")"
env_lines="LLM_BASE_URL=http://127.0.0.1:$chat_port/v1
LLM_MODEL=$(config_alias "$mdir/server.json")
EMBED_BASE_URL=http://127.0.0.1:$embed_port/v1
EMBED_MODEL=$(config_alias "$mdir/server-embed.json")
LLM_STRUCTURED_MODE=json_object_schema
EMBED_DIM=$dim"
if [ "$env_lines" != "$(cat "$mdir/env")" ]; then
  printf '%s\n' "$env_lines" >"$mdir/env"
fi
printf '%s\n' "$env_lines"
