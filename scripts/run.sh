#!/usr/bin/env bash
# `make run`: start Hopwise. With no model endpoint configured (no LLM_BASE_URL, OPENAI_BASE_URL,
# LLM_API_KEY or OPENAI_API_KEY), install the local models if needed, start them (or reuse running ones),
# and point Hopwise at them. Ctrl-C stops Hopwise and the model servers this script started.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-bin/hopwise}
export HOPWISE_DATA_DIR="${HOPWISE_DATA_DIR:-data}"
export DATA_DIR="${DATA_DIR:-$HOPWISE_DATA_DIR}"

if [ -n "${LLM_BASE_URL:-}${OPENAI_BASE_URL:-}${LLM_API_KEY:-}${OPENAI_API_KEY:-}" ]; then
  echo "Using the configured model endpoint ${LLM_BASE_URL:-${OPENAI_BASE_URL:-https://api.openai.com/v1}}"
  exec "$bin" serve "$@"
fi

echo "No model endpoint configured: using the local models (set LLM_BASE_URL or OPENAI_API_KEY to use another)."
deploy/models/install.sh
already=0
curl -fsS -m 2 "http://127.0.0.1:${LOCAL_LLM_PORT:-8081}/v1/models" >/dev/null 2>&1 && already=1
envlines=$(deploy/models/serve.sh)
stop_models() {
  if [ "$already" = 0 ]; then
    echo "stopping the local models"
    deploy/models/stop.sh >/dev/null 2>&1 || true
  fi
}
trap stop_models EXIT
# Settings already in the environment win (AGENT_SKIP= runs the whole loop with the local model).
while IFS= read -r line; do
  name=${line%%=*}
  [ -n "$line" ] && [ -z "${!name+set}" ] && export "${line?}"
done <<<"$envlines"
# In the foreground, Ctrl-C reaches Hopwise, which shuts down gracefully; then the EXIT trap stops the models.
"$bin" serve "$@"
