"""What `spool wrap` costs and saves, side by side in one run, against the reference
filesystem MCP server (npm @modelcontextprotocol/server-filesystem 2026.8.31) spoken to directly.
Both are driven by the Python MCP SDK 2.3.0 (legacy handshake), one session each.

  1. added latency on a small answer: `read_text_file` of a 1 KiB file, N calls in a row,
     median and p95 per call, direct and through `spool wrap`;
  2. a 5 MiB file: what the client receives (bytes, time) when the server answers it whole,
     against the proxy's stored copy and partial answer;
  3. the bytes on the wire of one partial answer now that each part carries everything (the
     structured content holds the content too, for hosts that forward only it), against
     `--structured off` (text blocks only), through `spool wrap` and from `spool serve`, and
     what each host hands the model (Claude Code and Codex: the structured JSON; text-only hosts:
     the text blocks).

Usage: python3 bench/proxy_bench.py target/release/spool   (after `npm install` in bench/)
"""

import asyncio
import os
import statistics
import sys
import tempfile
import time

from mcp import Client, StdioServerParameters

SPOOL = os.path.abspath(sys.argv[1])
FS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node_modules/.bin/mcp-server-filesystem")
CALLS = int(os.environ.get("CALLS", "300"))


def wire(r):
    """Bytes of the result as it travels: the JSON-RPC result object."""
    return len(r.model_dump_json(by_alias=True, exclude_none=True).encode())


def views(r):
    """Chars each host hands the model: (structured JSON, text blocks)."""
    import json
    sc = r.structured_content
    structured = len(json.dumps(sc, ensure_ascii=False, separators=(",", ":"))) if sc is not None else 0
    text = len("\n".join(getattr(b, "text", "") or "" for b in r.content))
    return structured, text


async def one(params, tool, args):
    async with Client(params, mode="legacy") as c:
        return await c.call_tool(tool, args)


def received(r):
    return sum(len(getattr(b, "text", "") or "") for b in r.content)


async def small_calls(params, path):
    async with Client(params, mode="legacy") as c:
        for _ in range(20):  # warm up
            await c.call_tool("read_text_file", {"path": path})
        times = []
        for _ in range(CALLS):
            t = time.perf_counter()
            await c.call_tool("read_text_file", {"path": path})
            times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95)]


async def big_call(params, path):
    async with Client(params, mode="legacy") as c:
        t = time.perf_counter()
        r = await c.call_tool("read_text_file", {"path": path})
        return (time.perf_counter() - t) * 1000, received(r)


async def main():
    root = os.path.realpath(tempfile.mkdtemp(prefix="spool-proxy-bench-"))
    home = tempfile.mkdtemp(prefix="spool-proxy-home-")
    small = os.path.join(root, "small.txt")
    with open(small, "w") as f:
        f.write("x" * 1000 + "\n")
    big = os.path.join(root, "big.txt")
    with open(big, "w") as f:
        i = 0
        while f.tell() < 5 * 1024 * 1024:
            i += 1
            f.write(f"{i:07d} a line of a five megabyte file, with some words in it\n")
    env = {"PATH": os.environ["PATH"], "SPOOL_HOME": home}
    direct = StdioServerParameters(command=FS, args=[root], env=env)
    wrapped = StdioServerParameters(command=SPOOL, args=["wrap", "--", FS, root], env=env)

    d_med, d_p95 = await small_calls(direct, small)
    w_med, w_p95 = await small_calls(wrapped, small)
    print(f"small answer ({CALLS} calls): direct median {d_med:.2f} ms p95 {d_p95:.2f} ms; "
          f"through spool wrap median {w_med:.2f} ms p95 {w_p95:.2f} ms; "
          f"added {w_med - d_med:.2f} ms median ({w_med / d_med:.2f}x)")

    d_ms, d_chars = await big_call(direct, big)
    w_ms, w_chars = await big_call(wrapped, big)
    print(f"5 MiB file: direct {d_ms:.0f} ms, {d_chars:,} chars to the client; "
          f"through spool wrap {w_ms:.0f} ms, {w_chars:,} chars to the client "
          f"(the rest stored, readable with read/search)")

    print("bytes on the wire of one partial answer of the 5 MiB file (8,000-token cap):")
    for label, params, tool, args in [
        ("spool wrap read_text_file", wrapped, "read_text_file", {"path": big}),
        ("spool wrap --structured off", StdioServerParameters(
            command=SPOOL, args=["wrap", "--structured", "off", "--", FS, root], env=env), "read_text_file", {"path": big}),
        ("spool serve read", StdioServerParameters(
            command=SPOOL, args=["serve", "--root", root], env=env), "read", {"path": big}),
        ("spool serve --structured off", StdioServerParameters(
            command=SPOOL, args=["serve", "--structured", "off", "--root", root], env=env), "read", {"path": big}),
    ]:
        r = await one(params, tool, args)
        s_chars, t_chars = views(r)
        banner = r.content[0].text.split(";")[0]
        print(f"  {label}: {wire(r):,} bytes on the wire; Claude Code/Codex view {s_chars:,} chars, "
              f"text view {t_chars:,} chars; {banner}]")


asyncio.run(main())
