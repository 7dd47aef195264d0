"""Side by side, in one run: spool serve against the reference filesystem MCP server
(npm @modelcontextprotocol/server-filesystem 2026.8.31), both driven by the Python MCP SDK.

  1. start + initialize (+ tools/list), median of N fresh processes each;
  2. a read deep in a 1 GiB file: spool `read path=FILE line=9000000` (an 8,000-token window;
     the first read stores the file, later reads reuse the stored copy) against the reference
     server's `read_text_file path=FILE head=100`.

Usage: python3 bench/mcp_bench.py target/release/spool bench/out/big-1024m.txt
(after `npm install` in bench/ and `pip install mcp==2.3.0`).
"""

import asyncio
import os
import statistics
import sys
import tempfile
import time

from mcp import Client, StdioServerParameters

SPOOL = os.path.abspath(sys.argv[1])
FILE = os.path.abspath(sys.argv[2])
ROOT = os.path.dirname(FILE)
FS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node_modules/.bin/mcp-server-filesystem")
HOME = tempfile.mkdtemp(prefix="spool-bench-")
RUNS = int(os.environ.get("RUNS", "10"))


def spool_params():
    return StdioServerParameters(command=SPOOL, args=["serve", "--root", ROOT],
                                 env={"SPOOL_HOME": HOME, "PATH": os.environ["PATH"]})


def fs_params():
    return StdioServerParameters(command=FS, args=[ROOT], env={"PATH": os.environ["PATH"]})


async def start_time(params):
    times = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        async with Client(params, mode="legacy") as c:
            await c.list_tools()
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


async def read_latency(params, tool, args, label):
    async with Client(params, mode="legacy") as c:
        t0 = time.perf_counter()
        r = await c.call_tool(tool, args)
        first = time.perf_counter() - t0
        size = sum(len(b.text) for b in r.content if hasattr(b, "text"))
        warm = []
        for _ in range(RUNS * 2):
            t0 = time.perf_counter()
            await c.call_tool(tool, args)
            warm.append(time.perf_counter() - t0)
        print(f"{label}: first {first * 1000:.1f} ms, then median {statistics.median(warm) * 1000:.1f} ms "
              f"({len(warm)} calls); answer {size:,} chars, is_error={r.is_error}", flush=True)
        return first, statistics.median(warm)


async def main():
    s = await start_time(spool_params())
    f = await start_time(fs_params())
    print(f"start + initialize + tools/list (median of {RUNS}): spool {s * 1000:.1f} ms, "
          f"server-filesystem {f * 1000:.1f} ms, ratio {s / f:.2f}", flush=True)
    rel = os.path.basename(FILE)
    _, spool_warm = await read_latency(spool_params(), "read", {"path": rel, "line": 9_000_000}, "spool read line=9000000")
    _, fs_warm = await read_latency(fs_params(), "read_text_file", {"path": FILE, "head": 100}, "server-filesystem read_text_file head=100")
    print(f"warm read ratio spool/server-filesystem: {spool_warm / fs_warm:.2f}", flush=True)


asyncio.run(main())
