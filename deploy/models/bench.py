#!/usr/bin/env python3
"""Measure the local OpenAI-compatible model server(s), standard library only.

Reads LLM_BASE_URL, LLM_MODEL, EMBED_BASE_URL, EMBED_MODEL from the environment
(source $DATA_DIR/models/env first) and prints, for the chat model: prompt and
generation speed on a ~300-token prompt (streamed), one structured call with a
small JSON schema, one entity/relation extraction; for the embedding model: the
latency of a 16-text batch and the vector dimension. Every request goes to the
configured loopback servers only and is bounded by a timeout.
"""
from __future__ import annotations

import json
import math
import os
import sys
import time
import urllib.request

TIMEOUT = 600
# The servers are on loopback: never go through a proxy from the environment.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))

PASSAGE = (
    "Regulation (EC) No 261/2004 sets common rules on compensation and assistance to passengers "
    "in the event of denied boarding and of cancellation or long delay of flights. When an operating "
    "air carrier reasonably expects to deny boarding on a flight, it shall first call for volunteers "
    "to surrender their reservations in exchange for benefits under conditions to be agreed between "
    "the passenger concerned and the operating air carrier. If an insufficient number of volunteers "
    "comes forward, the operating air carrier may then deny boarding to passengers against their will. "
    "If boarding is denied to passengers against their will, the operating air carrier shall "
    "immediately compensate them. Passengers shall receive compensation amounting to 250 EUR for all "
    "flights of 1500 kilometres or less, 400 EUR for all intra-Community flights of more than 1500 "
    "kilometres and for all other flights between 1500 and 3500 kilometres, and 600 EUR for all "
    "flights not falling under the first two categories. In determining the distance, the basis shall "
    "be the last destination at which the denial of boarding will delay the passenger's arrival after "
    "the scheduled time. When passengers are offered re-routing to their final destination on an "
    "alternative flight, the arrival time of which does not exceed the scheduled arrival time of the "
    "flight originally booked by two, three or four hours respectively, the operating air carrier may "
    "reduce the compensation by 50 percent. The compensation shall be paid in cash, by electronic "
    "bank transfer, bank orders or bank cheques or, with the signed agreement of the passenger, in "
    "travel vouchers and/or other services."
)

TEXTS = [
    "The distance from Munich to Delhi is 5,921 km.",
    "Lufthansa operates daily flights from Munich.",
    "Denied boarding compensation depends on flight distance.",
    "Passengers may receive 600 EUR for long flights.",
    "The cat sat on the mat.",
    "Delhi is the capital of India.",
    "Munich is a city in Bavaria, Germany.",
    "A flight of 1500 km or less pays 250 EUR.",
    "Volunteers can surrender their reservations for benefits.",
    "The airline must offer meals and refreshments during delays.",
    "Rerouting may reduce the compensation by half.",
    "Travel vouchers require the passenger's signed agreement.",
    "The weather in Berlin is cold in January.",
    "Knowledge graphs link entities through typed relations.",
    "Embeddings map text to vectors for similarity search.",
    "Hopwise answers questions from a person's own documents.",
]

SCHEMA = {
    "type": "object",
    "properties": {
        "relevant": {"type": "boolean"},
        "reason": {"type": "string"},
    },
    "required": ["relevant", "reason"],
}

EXTRACT_SCHEMA = {
    "type": "object",
    "properties": {
        "entities": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "type": {"type": "string"}},
                "required": ["name", "type"],
            },
        },
        "relations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "source": {"type": "string"},
                    "relation": {"type": "string"},
                    "target": {"type": "string"},
                    "value": {"type": "string"},
                },
                "required": ["source", "relation", "target"],
            },
        },
    },
    "required": ["entities", "relations"],
}

EXTRACT_PROMPT = (
    "Extract entities and relations as JSON from: "
    "'The distance from Munich to Delhi is 5,921 km.'"
)


def post(base: str, path: str, body: dict) -> urllib.request.addinfourl:
    req = urllib.request.Request(
        base.rstrip("/") + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    return OPENER.open(req, timeout=TIMEOUT)


def post_json(base: str, path: str, body: dict) -> dict:
    with post(base, path, body) as resp:
        return json.loads(resp.read())


def bench_stream(base: str, model: str, max_tokens: int) -> None:
    messages = [
        {"role": "user", "content": PASSAGE + "\n\nSummarise the compensation rules above in three sentences."}
    ]
    body = {"model": model, "messages": messages, "max_tokens": max_tokens, "temperature": 0.0, "stream": True}
    t0 = time.monotonic()
    first = None
    chunks = 0
    text = []
    with post(base, "/chat/completions", body) as resp:
        for raw in resp:
            line = raw.decode().strip()
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            delta = json.loads(data)["choices"][0].get("delta", {}).get("content")
            if delta:
                if first is None:
                    first = time.monotonic()
                chunks += 1
                text.append(delta)
    end = time.monotonic()
    # The prompt size, counted by the server itself.
    usage = post_json(base, "/chat/completions", {**body, "stream": False, "max_tokens": 1}).get("usage", {})
    prompt_tokens = usage.get("prompt_tokens", 0)
    ttft = (first or end) - t0
    gen = end - (first or end)
    print(f"chat[{model}]: prompt {prompt_tokens} tokens, time to first token {ttft:.2f}s "
          f"(~{prompt_tokens / ttft:.0f} prompt tok/s)")
    rate = (chunks - 1) / gen if gen > 0 and chunks > 1 else float("nan")
    print(f"chat[{model}]: streamed {chunks} chunks in {gen:.2f}s after the first: {rate:.1f} tok/s")
    print(f"chat[{model}] output: {''.join(text)!r}")


def bench_structured(base: str, model: str) -> None:
    body = {
        "model": model,
        "messages": [
            {"role": "system", "content": "Answer with JSON only."},
            {"role": "user", "content": "Is this passage relevant to the question 'how much compensation "
             "for denied boarding?'\n\nPassage: Passengers receive 600 EUR for flights over 3500 km."},
        ],
        "response_format": {"type": "json_object", "schema": SCHEMA},
        "max_tokens": 128,
        "temperature": 0.0,
    }
    t0 = time.monotonic()
    out = post_json(base, "/chat/completions", body)
    dt = time.monotonic() - t0
    content = out["choices"][0]["message"]["content"]
    try:
        parsed = json.loads(content)
        ok = isinstance(parsed, dict) and set(SCHEMA["required"]) <= set(parsed)
        verdict = "parses and has the required keys" if ok else "parses but misses keys"
    except json.JSONDecodeError as e:
        verdict = f"does NOT parse: {e}"
    print(f"structured[{model}]: {dt:.2f}s, {verdict}")
    print(f"structured[{model}] output: {content}")


def bench_extract(base: str, model: str) -> None:
    for label, fmt in (("json_object+schema", {"type": "json_object", "schema": EXTRACT_SCHEMA}), ("free", None)):
        body = {
            "model": model,
            "messages": [{"role": "user", "content": EXTRACT_PROMPT}],
            "max_tokens": 256,
            "temperature": 0.0,
        }
        if fmt:
            body["response_format"] = fmt
        t0 = time.monotonic()
        out = post_json(base, "/chat/completions", body)
        dt = time.monotonic() - t0
        print(f"extract[{model}, {label}] {dt:.2f}s output: {out['choices'][0]['message']['content']}")


def bench_embed(base: str, model: str) -> None:
    post_json(base, "/embeddings", {"model": model, "input": ["warm up"]})
    t0 = time.monotonic()
    out = post_json(base, "/embeddings", {"model": model, "input": TEXTS})
    dt = time.monotonic() - t0
    vecs = [d["embedding"] for d in sorted(out["data"], key=lambda d: d["index"])]
    dim = len(vecs[0])
    norm = math.sqrt(sum(x * x for x in vecs[0]))

    def cos(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b)) / (
            math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))

    print(f"embed[{model}]: {len(vecs)} texts in {dt * 1000:.0f} ms, dim {dim}, |v0| = {norm:.3f}")
    print(f"embed[{model}]: cos(Munich-Delhi distance, Munich in Bavaria) = {cos(vecs[0], vecs[6]):.3f}; "
          f"cos(Munich-Delhi distance, cat on mat) = {cos(vecs[0], vecs[4]):.3f}")


def main() -> int:
    llm = os.environ.get("LLM_BASE_URL")
    emb = os.environ.get("EMBED_BASE_URL")
    if not llm or not emb:
        print("set LLM_BASE_URL/LLM_MODEL/EMBED_BASE_URL/EMBED_MODEL (source $DATA_DIR/models/env)", file=sys.stderr)
        return 2
    models = sys.argv[1:] or [os.environ["LLM_MODEL"]]
    bench_embed(emb, os.environ["EMBED_MODEL"])
    for m in models:
        bench_stream(llm, m, 128)
        bench_structured(llm, m)
        bench_extract(llm, m)
    return 0


if __name__ == "__main__":
    sys.exit(main())
