"""End to end: `spool wrap` in front of a real MCP server that pages its own lists
(paging_server.py, the Python SDK's MCPServer), driven by the Python SDK client in both
protocol modes. Issue 38: every page spool shows of one upstream page says more exist
upstream (`has_more`, `upstream_partial`) in every host's view, and `next` holds the
upstream's own call with its cursor (or page); following those calls verbatim reaches the
upstream's full list, each item once.
Usage: python3 wrap_paging.py PATH/TO/spool
Prints one line per check and "N passed, M failed"; exits 1 on any failure.
"""

import asyncio
import os
import sys
import tempfile

from mcp import Client, StdioServerParameters

import hosts

SPOOL = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "paging_server.py")
RESULTS = []


def check(name, ok, detail=""):
    RESULTS.append((name, bool(ok)))
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f": {str(detail)[:400]}"), flush=True)


async def follow(c, label, tool, args, key, total):
    """Follows spool's pages and the upstream's own calls from `args` to the end."""
    seen = []
    upstream_pages = 0
    call = (tool, args)
    while call is not None:
        upstream_pages += 1
        r = await c.call_tool(*call)
        sc = r.structured_content or {}
        last = sc
        while True:
            seen.extend(item[key] for item in last.get("items", []))
            if not last.get("next_cursor"):
                break
            r = await c.call_tool("read", {"ref": last["ref"], "cursor": last["next_cursor"]})
            last = r.structured_content or {}
        coverage = (last.get("source") or {}).get("coverage") or {}
        up = coverage.get("upstream_page")
        if up is None:
            check(f"{label}: the upstream's last page is whole", coverage.get("whole") is True, coverage)
            call = None
            continue
        if upstream_pages == 1:
            check(f"{label}: the last stored page says more exist upstream",
                  last.get("has_more") is True and (last.get("reason") or {}).get("code") == "upstream_partial",
                  last.get("notice"))
            for host in hosts.HOSTS:
                shape, text = hosts.view(host, r)
                check(f"{label}: {host} sees that the upstream has more, and its call",
                      hosts.count(shape, text, "the upstream says more exist") >= 1
                      and hosts.count(shape, text, tool) >= 1,
                      text[:400])
        nxt = [n for n in last.get("next", []) if n["tool"] == tool]
        check(f"{label}: page {upstream_pages} offers the upstream's next call", len(nxt) == 1, last.get("next"))
        if not nxt:
            return
        call = (tool, nxt[0]["arguments"])
        if upstream_pages > 10:
            check(f"{label}: ends", False)
            return
    check(f"{label}: every item of the upstream's list, each once",
          sorted(seen) == list(range(total)), f"{len(seen)} items, {len(set(seen))} distinct")


async def main():
    with tempfile.TemporaryDirectory() as home:
        for mode in ("auto", "legacy"):
            params = StdioServerParameters(
                command=SPOOL,
                args=["wrap", "--max-tokens", "2000", "--", sys.executable, SERVER],
                env={**os.environ, "SPOOL_HOME": home},
            )
            async with Client(params, mode=mode) as c:
                await follow(c, f"{mode}: by cursor", "list_records", {"limit": 1_000}, "id", 3_500)
                await follow(c, f"{mode}: by page", "search_issues", {"query": "timeout"}, "number", 2_300)
    failed = sum(1 for _, ok in RESULTS if not ok)
    print(f"{len(RESULTS) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


asyncio.run(main())
