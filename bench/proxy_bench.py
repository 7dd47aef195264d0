"""What `spool wrap` costs and saves, side by side in one run, against the reference
filesystem MCP server (npm @modelcontextprotocol/server-filesystem 2026.8.31) spoken to directly.
Both are driven by the Python MCP SDK 2.3.0 (legacy handshake), one session each.

  1. added latency on a small answer: `read_text_file` of a 1 KiB file, N calls in a row,
     median and p95 per call, direct and through `spool wrap`;
  2. a 5 MiB file: what the client receives (bytes, time) when the server answers it whole,
     against the proxy's stored copy and partial answer.

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


asyncio.run(main())
