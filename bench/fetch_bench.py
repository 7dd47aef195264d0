"""Side by side, in one run: finding a string at 88% of a 156,000-character documentation page
with spool's `fetch` (then `search` on the stored copy) against the reference fetch server
(PyPI mcp-server-fetch 2026.10.24, paging with `start_index`), both driven by the Python MCP
SDK. A local HTTP server on 127.0.0.1 serves the page and counts downloads.

Usage: python3 bench/fetch_bench.py target/release/spool
(after `pip install mcp==2.3.0 mcp-server-fetch==2026.10.24`).
"""

import asyncio
import http.server
import os
import sys
import tempfile
import threading
import time

from mcp import Client, StdioServerParameters

SPOOL = os.path.abspath(sys.argv[1])
NEEDLE = "frobnicate_timeout"
DOWNLOADS = {"/doc": 0}


def page():
    parts = ["<html><head><title>Manual</title></head><body><h1>Manual</h1>\n"]
    size, i = len(parts[0]), 0
    while size < 137_700:
        i += 1
        p = f"<h2>Section {i}</h2>\n<p>Paragraph {i} explains an ordinary option in some detail, with words that fill a page.</p>\n"
        parts.append(p)
        size += len(p)
    p = f"<h2>Timeouts</h2>\n<p>The setting <code>{NEEDLE}</code> controls how long a request may take.</p>\n"
    parts.append(p)
    size += len(p)
    while size < 156_000:
        i += 1
        p = f"<h2>Section {i}</h2>\n<p>Paragraph {i} explains an ordinary option in some detail, with words that fill a page.</p>\n"
        parts.append(p)
        size += len(p)
    parts.append("</body></html>\n")
    return "".join(parts).encode()


BODY = page()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/robots.txt":
            self.send_response(404)
            self.end_headers()
            return
        DOWNLOADS["/doc"] += 1
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass


async def with_spool(url):
    home = tempfile.mkdtemp(prefix="spool-fetch-bench-")
    params = StdioServerParameters(command=SPOOL, args=["serve", "--allow-private-network", "--root", home],
                                   env={"SPOOL_HOME": home, "PATH": os.environ["PATH"]})
    async with Client(params, mode="legacy") as c:
        t0 = time.perf_counter()
        calls = 1
        r = await c.call_tool("fetch", {"url": url})
        sc = r.structured_content
        found = any(NEEDLE in b.text for b in r.content if hasattr(b, "text"))
        if not found:
            nxt = dict(sc["next"][0]["arguments"])  # the envelope's first next call: a search
            nxt["pattern"] = NEEDLE
            calls += 1
            s = await c.call_tool(sc["next"][0]["tool"], nxt)
            found = s.structured_content["hit_count"] > 0
        return calls, time.perf_counter() - t0, found, sc["total"]


async def with_reference(url):
    params = StdioServerParameters(command="mcp-server-fetch", args=["--allow-private-ips", "--ignore-robots-txt"],
                                   env={"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root")})
    async with Client(params, mode="legacy") as c:
        t0 = time.perf_counter()
        start, calls = 0, 0
        while calls < 200:
            calls += 1
            r = await c.call_tool("fetch", {"url": url, "start_index": start})
            text = "".join(b.text for b in r.content if hasattr(b, "text"))
            if NEEDLE in text or r.is_error:
                return calls, time.perf_counter() - t0, NEEDLE in text
            # The server says where to continue only in words; the next window starts where
            # this one's content ended.
            body = text.split("\n", 1)[1] if text.startswith("Contents of") else text
            body = body.split("<error>")[0]
            start += len(body.rstrip())
        return calls, time.perf_counter() - t0, False


async def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/doc"
    print(f"page: {len(BODY):,} bytes of HTML; needle at {BODY.index(NEEDLE.encode()) * 100 // len(BODY)}% of it")

    DOWNLOADS["/doc"] = 0
    calls, secs, found, total = await with_spool(url)
    print(f"spool: {calls} calls, {secs:.3f} s, found={found}, downloads={DOWNLOADS['/doc']}, "
          f"told the whole is {total.get('chars'):,} chars / {total.get('lines'):,} lines")
    spool_row = (calls, secs, DOWNLOADS["/doc"])

    # Warm the reference server once (its first fetch installs a readability helper with npm).
    await with_reference(url + "?warmup")
    DOWNLOADS["/doc"] = 0
    calls, secs, found = await with_reference(url)
    print(f"mcp-server-fetch: {calls} calls, {secs:.3f} s, found={found}, downloads={DOWNLOADS['/doc']}")
    ref_row = (calls, secs, DOWNLOADS["/doc"])
    print(f"ratio (reference/spool): calls {ref_row[0] / spool_row[0]:.1f}x, seconds {ref_row[1] / spool_row[1]:.1f}x, "
          f"downloads {ref_row[2]} vs {spool_row[2]}")
    server.shutdown()


asyncio.run(main())
