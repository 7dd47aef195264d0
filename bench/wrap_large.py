"""A 100 MB upstream answer and a 40 MB image through `spool wrap`: how long until the client has
its answer, and the proxy's peak memory (VmHWM) against the size of the answer.

The upstream is spool's fake server (target/debug/fake-upstream, `cargo build -p
spool-test-support`), whose `huge_text` answers with one text block of the bytes asked for and
`huge_image` with an image of them. Before, rmcp's stdio transport dropped any message over
16 MiB and the client waited out the whole timeout (120 s) for a `timeout` error.

Usage: python3 bench/wrap_large.py target/release/spool target/debug/fake-upstream
"""

import asyncio
import os
import sys
import tempfile
import time

from mcp import Client, StdioServerParameters

SPOOL = os.path.abspath(sys.argv[1])
FAKE = os.path.abspath(sys.argv[2])


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def spool_pid():
    """The `spool wrap` process this benchmark started (the newest one)."""
    best = None
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if args and args[0] == SPOOL.encode() and b"wrap" in args:
            best = max(best or 0, int(pid))
    return best


async def main():
    home = tempfile.mkdtemp(prefix="spool-wrap-large-")
    params = StdioServerParameters(command=SPOOL, args=["wrap", "--", FAKE],
                                   env={"PATH": os.environ["PATH"], "SPOOL_HOME": home})
    async with Client(params, mode="legacy") as c:
        await c.list_tools()
        pid = spool_pid()
        base = peak_rss_mib(pid)
        for tool, size in (("huge_text", 100_000_000), ("huge_image", 40_000_000)):
            t = time.perf_counter()
            r = await c.call_tool(tool, {"bytes": size})
            took = time.perf_counter() - t
            sc = r.structured_content or {}
            total = sc.get("total", {}).get("bytes")
            note = next((b.text for b in r.content if "stored as" in getattr(b, "text", "")), "")[:120]
            print(f"{tool} of {size / 1e6:.0f} MB: answered in {took:.2f} s, is_error={r.is_error}, "
                  f"stored total {total} bytes {note}")
            print(f"  spool wrap peak RSS so far: {peak_rss_mib(pid):.0f} MiB (at start {base:.0f} MiB)")
        if total is None:
            pass
        ref = None
        r = await c.call_tool("huge_text", {"bytes": 100_000_000})
        ref = (r.structured_content or {}).get("ref")
        t = time.perf_counter()
        s = await c.call_tool("search", {"ref": ref, "pattern": "^THE LAST LINE$"})
        print(f"search of the stored 100 MB answer for its last line: {(s.structured_content or {}).get('hit_count')} "
              f"hit in {time.perf_counter() - t:.2f} s")


asyncio.run(main())
