"""Hopwise's interfaces from real clients: the openai package, the mcp package (stdio and streamable HTTP)
and openapi-spec-validator. TestRealClients runs this against a hopwise serve it started, with the
scripted model; it fails on the first check that does not hold.

Environment: HOPWISE_URL (the server), HOPWISE_BIN and HOPWISE_MCP_ENV (a JSON object: the environment
`hopwise mcp` runs with), HOPWISE_QUESTION and HOPWISE_WANT (a question and what its answer must say).
"""

import asyncio
import json
import os
import sys
import urllib.request

import openai
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from openapi_spec_validator import validate

URL = os.environ["HOPWISE_URL"]
QUESTION = os.environ["HOPWISE_QUESTION"]
WANT = os.environ["HOPWISE_WANT"]


def check(ok, what):
    if not ok:
        sys.exit("FAIL: " + what)
    print("ok:", what.split(":")[0])


def openapi_spec():
    with urllib.request.urlopen(URL + "/api/v1/openapi.json") as resp:
        spec = json.load(resp)
    validate(spec)  # raises on an invalid OpenAPI 3.1 document
    check(spec["openapi"] == "3.1.0", "openapi.json is a valid OpenAPI 3.1 document")


def openai_client():
    client = openai.OpenAI(base_url=URL + "/v1", api_key="any-key-until-accounts-exist")
    models = [m.id for m in client.models.list()]
    check(models == ["hopwise"], f"models: {models}")

    messages = [{"role": "user", "content": QUESTION}]
    resp = client.chat.completions.create(model="hopwise", messages=messages)
    text = resp.choices[0].message.content
    citations = (resp.model_extra or {}).get("citations") or []
    check(WANT in text and "[1]" in text and "Sources:" in text, f"completion text: {text!r}")
    check(len(citations) == 2 and all(c.get("chunk_id") for c in citations), f"completion citations: {citations}")
    check(not resp.model_extra["hopwise"]["not_found"], f"completion found: {resp.model_extra}")

    streamed, last = [], None
    for chunk in client.chat.completions.create(model="hopwise", messages=messages, stream=True):
        if chunk.choices and chunk.choices[0].delta.content:
            streamed.append(chunk.choices[0].delta.content)
        last = chunk
    check("".join(streamed) == text, f"streamed text: {''.join(streamed)!r}")
    check(last.choices[0].finish_reason == "stop", f"last chunk: {last}")
    check(len((last.model_extra or {}).get("citations") or []) == 2, f"last chunk citations: {last.model_extra}")

    try:
        client.chat.completions.create(model="gpt-4o", messages=messages)
        check(False, "an unknown model is refused")
    except openai.NotFoundError as e:
        check("hopwise" in str(e), f"unknown model: {e}")


async def use_tools(session, transport):
    await session.initialize()
    tools = sorted(t.name for t in (await session.list_tools()).tools)
    check(tools == ["ask", "get_passage", "graph_neighbourhood", "list_documents", "search"], f"{transport} tools: {tools}")
    found = await session.call_tool("search", {"query": "distance between Delhi and Munich", "k": 3})
    passages = found.structured_content["passages"]
    check(not found.is_error and len(passages) == 3 and found.structured_content["facts"], f"{transport} search: {found}")
    answer = await session.call_tool("ask", {"question": QUESTION})
    a = answer.structured_content
    check(not answer.is_error and WANT in a["answer"] and len(a["citations"]) == 2 and not a["not_found"], f"{transport} ask: {answer}")


async def mcp_stdio():
    params = StdioServerParameters(command=os.environ["HOPWISE_BIN"], args=["mcp"], env=json.loads(os.environ["HOPWISE_MCP_ENV"]))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await use_tools(session, "stdio")


async def mcp_http():
    async with streamable_http_client(URL + "/mcp") as (read, write):
        async with ClientSession(read, write) as session:
            await use_tools(session, "http")


openapi_spec()
openai_client()
asyncio.run(mcp_stdio())
asyncio.run(mcp_http())
print("all real clients passed")
