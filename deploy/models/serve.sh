#!/usr/bin/env bash
# Start the local OpenAI-compatible model servers on 127.0.0.1 (or reuse running
# ones), wait until they answer (up to LOCAL_LLM_WAIT=120 s), and print the env lines for Hopwise on stdout.
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
started=()  # servers this run started
reused=()   # servers found already answering
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

# probe PORT ALIAS, exit status: 0 the server at PORT answers /v1/models and serves
# ALIAS; 2 it answers without ALIAS; 3 a llama-cpp-python server is up but busy (its
# /v1/models waits for the model lock while a request is generating, so the
# lock-free /openapi.json tells that it is up); 1 nothing usable answers.
probe() {
  "$venv/bin/python" - "$1" "$2" <<'EOF'
import json, sys, urllib.request
port, alias = sys.argv[1], sys.argv[2]
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never via a proxy
base = f"http://127.0.0.1:{port}"
def get(path, timeout):
    with opener.open(base + path, timeout=timeout) as r:
        return json.load(r)
try:
    llama = "llama.cpp" in get("/openapi.json", 3).get("info", {}).get("title", "")
except Exception:
    llama = False
try:
    ids = [m.get("id") for m in get("/v1/models", 5 if llama else 3).get("data", [])]
except Exception:
    sys.exit(3 if llama else 1)
sys.exit(0 if alias in ids else 2)
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
  local name=$1 port=$2 config=$3 alias
  alias="$(config_alias "$config")"
  local rc=0
  probe "$port" "$alias" || rc=$?
  case $rc in
    0) say "$name server already running on 127.0.0.1:$port (reusing)"; reused+=("$name"); return 0 ;;
    2) die "port $port answers /v1/models but does not serve $alias; set LOCAL_LLM_PORT/LOCAL_EMBED_PORT" ;;
    3) say "$name server already running on 127.0.0.1:$port, busy with a request (reusing)"; reused+=("$name"); return 0 ;;
  esac
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

# wait_ready NAME PORT CONFIG: until the server answers (probe 0, or 3: up but busy),
# the process dies, or the time is up.
wait_ready() {
  local name=$1 port=$2 alias rc t0=$SECONDS
  [[ " ${reused[*]} " == *" $name "* ]] && return 0
  alias="$(config_alias "$3")"
  while :; do
    rc=0
    probe "$port" "$alias" || rc=$?
    if [ "$rc" = 0 ] || [ "$rc" = 3 ]; then break; fi
    [ "$rc" = 2 ] && die "port $port answers /v1/models but does not serve $alias"
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
wait_ready chat "$chat_port" "$mdir/server.json"
wait_ready embed "$embed_port" "$mdir/server-embed.json"

# The env file follows the ports actually served.
dim="$(sed -n 's/^EMBED_DIM=//p' "$mdir/env")"
env_lines="LLM_BASE_URL=http://127.0.0.1:$chat_port/v1
LLM_MODEL=$(config_alias "$mdir/server.json")
EMBED_BASE_URL=http://127.0.0.1:$embed_port/v1
EMBED_MODEL=$(config_alias "$mdir/server-embed.json")
LLM_STRUCTURED_MODE=json_object_schema
EMBED_DIM=$dim"
# The other lines configure.py wrote (the local profile's settings) stay as they are.
extra="$(grep -v -E '^(LLM_BASE_URL|LLM_MODEL|EMBED_BASE_URL|EMBED_MODEL|LLM_STRUCTURED_MODE|EMBED_DIM)=' "$mdir/env" || true)"
[ -n "$extra" ] && env_lines="$env_lines
$extra"
if [ "$env_lines" != "$(cat "$mdir/env")" ]; then
  printf '%s\n' "$env_lines" >"$mdir/env"
fi
printf '%s\n' "$env_lines"
