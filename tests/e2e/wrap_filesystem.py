"""End to end: `spool wrap` in front of the real reference filesystem server
(npm @modelcontextprotocol/server-filesystem 2026.8.31), driven by the Python MCP SDK 2.3.0.

Reading a 5 MB file through the proxy gives an honest partial answer; following its `next`
calls reads the rest back byte for byte; `tools/list` arrives complete; small answers pass
through unchanged. Over stdio in both protocol modes, and over Streamable HTTP.
Usage: python3 wrap_filesystem.py PATH/TO/spool
Prints one line per check and "N passed, M failed"; exits 1 on any failure.
"""

import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile

from mcp import Client, StdioServerParameters

import hosts

SPOOL = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
FS_SERVER = os.path.join(HERE, "node_modules", ".bin", "mcp-server-filesystem")
CAP = 4000
RESULTS = []


def check(name, ok, detail=""):
    RESULTS.append((name, bool(ok)))
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f": {str(detail)[:300]}"), flush=True)


def make_files(root):
    """A 5 MB text file of varied lines (some non-ASCII), and a small one."""
    lines = []
    size = 0
    i = 0
    while size < 5 * 1024 * 1024:
        i += 1
        line = f"{i:07d} entry {i * 31 % 1000:03d} — naïve café {'x' * (i % 60)} end\n"
        lines.append(line)
        size += len(line.encode())
    big = os.path.join(root, "big.txt")
    with open(big, "w", encoding="utf-8") as f:
        f.writelines(lines)
    small = os.path.join(root, "small.txt")
    with open(small, "w", encoding="utf-8") as f:
        f.write("a small file\nwith two lines\n")
    return big, small, "".join(lines), i


async def all_tools(c):
    tools, cursor = [], None
    while True:
        page = await c.list_tools(cursor=cursor) if cursor else await c.list_tools()
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools


def texts(r):
    return [b.text for b in r.content if getattr(b, "type", "") == "text"]


async def follow(c, first, label):
    """The mechanical agent: follows next[0] while it is a `read`; returns the text read."""
    lines = {}
    answer = first
    calls = 0
    over = 0
    while True:
        calls += 1
        if calls > 2000:
            raise RuntimeError("never ends")
        sc = answer.structured_content or {}
        blocks = texts(answer)
        # A rough bound: a token is at least one byte, so chars/1 bounds tokens from above.
        if sum(len(b) for b in blocks) > CAP * 8:
            over += 1
        for rng, text in zip(sc.get("shown", []), blocks[1::2]):
            start = rng["start"]
            for k, line in enumerate(text.splitlines(keepends=True)):
                lines[start + k] = line
        if sc.get("complete") or not sc.get("next") or sc["next"][0]["tool"] != "read":
            break
        nxt = sc["next"][0]
        answer = await c.call_tool(nxt["tool"], nxt["arguments"])
        if answer.is_error:
            raise RuntimeError(f"{label}: read failed: {texts(answer)}")
    return "".join(lines[k] for k in sorted(lines)), calls, over


async def follow_claude_view(c, first, label, limit):
    """The same agent, seeing only what Claude Code forwards (the structured content as JSON):
    it rebuilds the lines from `content` and `shown` alone."""
    lines = {}
    answer = first
    calls = 0
    while True:
        calls += 1
        if calls > 2000:
            raise RuntimeError("never ends")
        shape, text = hosts.view("claude-code", answer)
        if shape != "json" or len(text) > limit:
            raise RuntimeError(f"{label}: the Claude Code view is {shape}, {len(text)} chars")
        sc = json.loads(text)
        rows = iter(sc["content"].splitlines(keepends=True))
        for i, rng in enumerate(sc["shown"]):
            if i > 0:
                next(rows)  # the gap marker between two ranges
            for line in range(rng["start"], rng["end"] + 1):
                lines[line] = next(rows)
        if sc.get("complete") or not sc.get("next") or sc["next"][0]["tool"] != "read":
            break
        answer = await c.call_tool("read", sc["next"][0]["arguments"])
        if answer.is_error:
            raise RuntimeError(f"{label}: read failed")
    return "".join(lines[k] for k in sorted(lines)), calls


async def scenario(label, client, direct_names, big, small, want, total_lines):
    async with client as c:
        tools = await all_tools(c)
        names = sorted(t.name for t in tools)
        check(f"{label}: tools/list arrives complete", names == sorted(direct_names + ["read", "search", "query", "artifacts"]),
              names)

        r = await c.call_tool("read_text_file", {"path": big})
        sc = r.structured_content or {}
        check(f"{label}: the 5 MB read is an honest partial answer", r.is_error is False
              and sc.get("complete") is False and sc.get("reason", {}).get("code") == "token_cap"
              and sc.get("total", {}).get("lines") == total_lines, sc)
        check(f"{label}: the banner says so first", texts(r)[0].startswith("[PARTIAL: lines 1-"), texts(r)[0][:100])
        check(f"{label}: the version names the upstream tool",
              sc.get("source", {}).get("version", {}).get("tool") == "read_text_file", sc.get("source"))
        got, calls, over = await follow(c, r, label)
        check(f"{label}: the continuation reads the rest back byte for byte ({calls} calls)", got == want,
              f"{len(got)} vs {len(want)} chars")
        check(f"{label}: no answer over the cap", over == 0, over)

        limit = hosts.max_result_chars(next(t for t in tools if t.name == "read_text_file"))
        for host in hosts.HOSTS:
            shape, text = hosts.view(host, r)
            where = f"{label}: the replaced read seen as {host}"
            check(f"{where} says what it shows", hosts.count(shape, text, "[PARTIAL: lines 1-") == 1, text[:200])
            first = want.splitlines(keepends=True)[0]
            check(f"{where} shows its first line once", hosts.count(shape, text, first) == 1, first)
            check(f"{where} fits the host's limit", limit and len(text) <= limit, (len(text), limit))
            nxt = hosts.next_call(shape, text)
            ok = nxt is not None and (await c.call_tool(nxt[0], nxt[1])).is_error is False
            check(f"{where} names a next call that works", ok, nxt)
        try:
            got, calls = await follow_claude_view(c, r, label, limit)
            check(f"{label}: read back through the Claude Code view alone ({calls} calls)", got == want,
                  f"{len(got)} vs {len(want)} chars")
        except (RuntimeError, StopIteration, KeyError) as e:
            check(f"{label}: read back through the Claude Code view alone", False, e)

        hit_line = total_lines // 2
        s = await c.call_tool("search", {"ref": sc["ref"], "pattern": f"^{hit_line:07d} "})
        ssc = s.structured_content or {}
        check(f"{label}: search covers the whole stored copy", ssc.get("hit_count") == 1
              and ssc.get("hits", [{}])[0].get("line") == hit_line, ssc)

        r2 = await c.call_tool("read_text_file", {"path": small})
        check(f"{label}: a small answer passes through", r2.is_error is False
              and texts(r2) == ["a small file\nwith two lines\n"], texts(r2))

        r3 = await c.call_tool("read_text_file", {"path": "/etc/passwd"})
        check(f"{label}: an upstream refusal passes through as its error", r3.is_error is True, texts(r3))


async def main():
    with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as home:
        root = os.path.realpath(root)
        big, small, want, total_lines = make_files(root)
        env = dict(os.environ, SPOOL_HOME=home)

        direct = Client(StdioServerParameters(command=FS_SERVER, args=[root]), mode="legacy")
        async with direct as d:
            direct_names = [t.name for t in await all_tools(d)]
        check("direct: the filesystem server lists its tools", len(direct_names) > 5, direct_names)

        wrap_args = ["wrap", "--max-tokens", str(CAP), "--", FS_SERVER, root]
        for mode in ("auto", "legacy"):
            params = StdioServerParameters(command=SPOOL, args=wrap_args, env=env)
            await scenario(f"stdio/{mode}", Client(params, mode=mode), direct_names, big, small, want, total_lines)

        server = subprocess.Popen([SPOOL, "wrap", "--http", "127.0.0.1:0", "--max-tokens", str(CAP), "--",
                                   FS_SERVER, root], env=env, stderr=subprocess.PIPE, text=True)
        try:
            url = None
            for _ in range(100):
                line = server.stderr.readline()
                m = re.search(r"relaying MCP at (http://\S+)", line)
                if m:
                    url = m.group(1)
                    break
            check("http: the proxy announced its address", url is not None)
            if url:
                await scenario("http/auto", Client(url, mode="auto"), direct_names, big, small, want, total_lines)
        finally:
            server.terminate()
            server.wait(timeout=10)

    passed = sum(1 for _, ok in RESULTS if ok)
    failed = len(RESULTS) - passed
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


asyncio.run(main())
