"""End to end: the Python MCP SDK (mcp 2.3.0) drives the built `spool serve`.

Over stdio in both protocol modes ("auto" negotiates 2026-07-28 through server/discover,
"legacy" uses the initialize handshake, 2025-11-25) and over Streamable HTTP.
Usage: python3 python_client.py PATH/TO/spool
Prints one line per check and "N passed, M failed"; exits 1 on any failure.
"""

import asyncio
import os
import re
import subprocess
import sys
import tempfile

from mcp import Client, StdioServerParameters

import hosts

SPOOL = os.path.abspath(sys.argv[1])
RESULTS = []


def check(name, ok, detail=""):
    RESULTS.append((name, bool(ok)))
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f": {detail}"), flush=True)


async def scenario(label, client):
    async with client as c:
        check(f"{label}: protocol {c.protocol_version}", c.protocol_version is not None)
        tools = await c.list_tools()
        names = sorted(t.name for t in tools.tools)
        check(f"{label}: tools/list", names == ["artifacts", "ci_log", "fetch", "list", "map", "query", "read", "run", "search"], names)
        run = next(t for t in tools.tools if t.name == "run")
        check(f"{label}: run has an outputSchema", run.output_schema is not None, run)

        r = await c.call_tool("run", {"command": "seq 1 3000; echo boom >&2; exit 3", "max_tokens": 1000})
        sc = r.structured_content or {}
        check(f"{label}: run is partial and says why", r.is_error is False and sc.get("complete") is False
              and sc.get("reason", {}).get("code") == "token_cap", sc)
        check(f"{label}: run records the exit code", sc.get("source", {}).get("version", {}).get("exit_code") == 3, sc)
        check(f"{label}: banner first", r.content[0].text.startswith("[PARTIAL: lines 1-"), r.content[0].text[:80])
        check(f"{label}: the real tail is shown", r.content[-1].text.endswith("3000\nboom\n"), r.content[-1].text[-40:])

        nxt = sc["next"][0]
        r2 = await c.call_tool(nxt["tool"], nxt["arguments"])
        sc2 = r2.structured_content or {}
        check(f"{label}: next[0] works verbatim", r2.is_error is False
              and sc2.get("shown", [{}])[0].get("start") == nxt["arguments"]["line"], sc2)

        r3 = await c.call_tool("search", {"ref": sc["ref"], "pattern": "^2999$"})
        check(f"{label}: search covers the whole output", (r3.structured_content or {}).get("hit_count") == 1,
              r3.structured_content)

        # Hits per file (`count`): the SDK checks the answer against the tool's declared
        # outputSchema and raises when it does not fit (regression, issue 57: the schema
        # required `hits`, count mode sends `files`, and the model got nothing).
        try:
            rc = await c.call_tool("search", {"path": "code", "pattern": "Engine", "count": True, "limit": 5})
            scc = rc.structured_content or {}
            check(f"{label}: a count search fits its outputSchema", rc.is_error is False
                  and scc.get("files_with_hits") == 41 and scc.get("hit_count") == 81
                  and len(scc.get("files", [])) == 5 and "hits" not in scc, scc)
            # Its next page, by the call it gives, validated the same way.
            nc = scc["next"][0]
            rc2 = await c.call_tool(nc["tool"], nc["arguments"])
            check(f"{label}: a count search's next page fits its outputSchema", rc2.is_error is False
                  and (rc2.structured_content or {}).get("first_file_index") == 5, rc2.structured_content)
        except Exception as e:  # the SDK's validation error, or a session it ended
            check(f"{label}: a count search fits its outputSchema", False, repr(e))

        r4 = await c.call_tool("read", {"path": "../../etc/passwd"})
        check(f"{label}: outside the roots is a forbidden tool error", r4.is_error is True
              and (r4.structured_content or {}).get("error", {}).get("code") == "forbidden", r4)

        # jq over a stored JSON answer, and a ranked word search, as a Python SDK client calls them.
        j = await c.call_tool("run", {"command": "printf '[{\"s\":504},{\"s\":200},{\"s\":504}]'"})
        r6 = await c.call_tool("query", {"ref": (j.structured_content or {}).get("ref"),
                                         "jq": "map(select(.s == 504)) | length"})
        sc6 = r6.structured_content or {}
        check(f"{label}: query counts in one call", r6.is_error is False and sc6.get("complete") is True
              and sc6.get("content") == "2\n", sc6)
        r7 = await c.call_tool("search", {"ref": sc["ref"], "query": "boom failure"})
        sc7 = r7.structured_content or {}
        check(f"{label}: a word search ranks passages", r7.is_error is False and sc7.get("hit_count") == 1
              and "boom" in sc7.get("hits", [{}])[0].get("text", ""), sc7)

        # A read whose question is known shows what it finds beside the preview.
        r8 = await c.call_tool("read", {"ref": sc["ref"], "pattern": "^1500$", "max_tokens": 1000})
        sc8 = r8.structured_content or {}
        check(f"{label}: a read with a pattern shows the line found", r8.is_error is False
              and sc8.get("found", {}).get("hit_count") == 1
              and sc8.get("found", {}).get("best", [{}])[0].get("shown") is True
              and "1499\n1500\n1501\n" in sc8.get("content", ""), sc8)

        r5 = await c.call_tool("list", {"path": ".", "limit": 2})
        sc5 = r5.structured_content or {}
        check(f"{label}: list pages", r5.is_error is False and len(sc5.get("items", [])) == 2
              and sc5.get("has_more") is True, sc5)

        # A map of a codebase: the file the others use first, pinned, paged by a cursor.
        r9 = await c.call_tool("map", {"path": "code"})
        sc9 = r9.structured_content or {}
        check(f"{label}: map ranks the file the others use first", r9.is_error is False
              and sc9.get("complete") is False and sc9.get("content", "").startswith("code/core.py (")
              and sc9.get("scope", {}).get("files_counted") == 41, sc9)

        # What the model receives in each host, for each kind of answer: the facts, the shown
        # text once, a next call read off the view that works, within the host's chars limit.
        limits = {t.name: hosts.max_result_chars(t) for t in tools.tools}
        check(f"{label}: every tool tells hosts its chars limit", all(limits.values()), limits)
        cases = [
            ("run", r, ["exit 3", "[PARTIAL: lines 1-", "of 3,001 lines"], ["1\n2\n3\n", "3000\nboom\n"]),
            ("search", r3, ["1 hit", "2999"], []),
            ("list", r5, ["[LIST .: 2 entries shown of 4]", "a.txt"], []),
            ("map", r9, ["[PARTIAL MAP: files 1-", "41 files counted:", "class Engine:"],
             ["class Engine:"]),
            ("query", r6, ["[COMPLETE: 1 line", "jq map(select(.s == 504)) | length"], []),
            ("search", r7, ["1 passage holding any of the words boom, failure", "ranked by BM25"], []),
            ("read", r8, ["Found: 1 line of the whole copy matches the regex ^1500$", " and 1,499-1,501 and "],
             ["1499\n1500\n1501\n"]),
            ("read", r4, ["forbidden", "hint"], []),
        ]
        for tool, result, facts, once in cases:
            for host in hosts.HOSTS:
                shape, text = hosts.view(host, result)
                where = f"{label}: {tool} seen as {host}"
                missing = [f for f in facts if hosts.count(shape, text, f) < 1]
                check(f"{where} holds the facts", not missing, f"{missing} not in {text[:300]}")
                twice = [t for t in once if hosts.count(shape, text, t) != 1]
                check(f"{where} shows its text once", not twice, f"{twice} in {text[:300]}")
                check(f"{where} fits the host's limit", len(text) <= limits[tool], len(text))
                if result.is_error:
                    continue
                nxt = hosts.next_call(shape, text)
                if tool in ("search", "query") and nxt is None:
                    continue  # all shown (one hit, one value): nothing to go on to
                ok = nxt is not None and (await c.call_tool(nxt[0], nxt[1])).is_error is False
                check(f"{where} names a next call that works", ok, nxt)


async def main():
    home = tempfile.mkdtemp(prefix="spool-e2e-home-")
    root = tempfile.mkdtemp(prefix="spool-e2e-root-")
    for name in ("a.txt", "b.txt", "c.txt"):
        with open(os.path.join(root, name), "w") as f:
            f.write(f"{name}\n")
    code = os.path.join(root, "code")
    os.mkdir(code)
    with open(os.path.join(code, "core.py"), "w") as f:
        f.write("class Engine:\n    def start(self):\n        pass\n")
    for i in range(40):
        with open(os.path.join(code, f"user_{i:02}.py"), "w") as f:
            f.write(f"from core import Engine\n\ndef job_{i}():\n    Engine().start()\n")
    env = {"SPOOL_HOME": home, "PATH": os.environ["PATH"]}
    params = StdioServerParameters(command=SPOOL, args=["serve", "--root", root], env=env)
    for mode in ("auto", "legacy"):
        await scenario(f"stdio/{mode}", Client(params, mode=mode))

    server = subprocess.Popen([SPOOL, "serve", "--http", "127.0.0.1:0", "--root", root],
                              env=env, stderr=subprocess.PIPE, text=True)
    try:
        url = None
        for _ in range(50):
            line = server.stderr.readline()
            m = re.search(r"serving MCP at (http://\S+)", line)
            if m:
                url = m.group(1)
                break
        check("http: server announced its address", url is not None)
        if url:
            for mode in ("auto", "legacy"):
                await scenario(f"http/{mode}", Client(url, mode=mode))
    finally:
        server.terminate()
        server.wait(timeout=10)

    passed = sum(1 for _, ok in RESULTS if ok)
    failed = len(RESULTS) - passed
    print(f"python-sdk: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


asyncio.run(main())
