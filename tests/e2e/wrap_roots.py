"""End to end: the client's roots reach the upstream through `spool wrap`, in both protocol
modes of the Python SDK 2.3.0 client: "auto" (2026-07-28, no handshake: spool asks for the
roots with an `input_required` result before the first relayed call) and "legacy"
(2025-11-25: the upstream is told the client offers roots before the handshake is answered).
The upstream is the real reference filesystem server (npm @modelcontextprotocol/server-filesystem
2026.8.31), started with a parent directory and narrowed by the client's roots to one
directory in it: a listing of its sibling is refused, from the first call on (issue 38: a
client limited to dir05 listed dir06).
Usage: python3 wrap_roots.py PATH/TO/spool
Prints one line per check and "N passed, M failed"; exits 1 on any failure.
"""

import asyncio
import os
import sys
import tempfile

from mcp import Client, StdioServerParameters, types

SPOOL = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
FS_SERVER = os.path.join(HERE, "node_modules", ".bin", "mcp-server-filesystem")
RESULTS = []


def check(name, ok, detail=""):
    RESULTS.append((name, bool(ok)))
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f": {str(detail)[:400]}"), flush=True)


def text_of(result):
    return "\n".join(getattr(b, "text", "") for b in result.content)


async def scenario(mode, root):
    allowed = os.path.join(root, "dir05")

    async def roots(_ctx):
        return types.ListRootsResult(roots=[types.Root(uri=f"file://{allowed}", name="dir05")])

    with tempfile.TemporaryDirectory() as home:
        params = StdioServerParameters(
            command=SPOOL,
            args=["wrap", "--", FS_SERVER, root],
            env={**os.environ, "SPOOL_HOME": home},
        )
        async with Client(params, mode=mode, list_roots_callback=roots) as c:
            # The first call: the roots must apply to it already.
            outside = await c.call_tool("list_directory", {"path": os.path.join(root, "dir06")})
            check(f"{mode}: the first call outside the client's roots is refused",
                  outside.is_error or "denied" in text_of(outside).lower() or "outside" in text_of(outside).lower(),
                  text_of(outside))
            inside = await c.call_tool("list_directory", {"path": allowed})
            check(f"{mode}: a call inside the client's roots answers",
                  not inside.is_error and "inside05.txt" in text_of(inside), text_of(inside))
            listed = await c.call_tool("list_allowed_directories", {})
            check(f"{mode}: the upstream's allowed directories are the client's roots",
                  allowed in text_of(listed) and os.path.join(root, "dir06") not in text_of(listed),
                  text_of(listed))


async def main():
    with tempfile.TemporaryDirectory() as root:
        root = os.path.realpath(root)
        for d in ("dir05", "dir06"):
            os.makedirs(os.path.join(root, d))
            with open(os.path.join(root, d, f"inside{d[-2:]}.txt"), "w") as f:
                f.write(d + "\n")
        for mode in ("auto", "legacy"):
            await scenario(mode, root)
    failed = sum(1 for _, ok in RESULTS if not ok)
    print(f"{len(RESULTS) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


asyncio.run(main())
