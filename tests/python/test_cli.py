"""The `spool` command the package installs: the CLI, and `spool serve` answering an MCP
client (the Python SDK), each answer checked as each host forwards it to the model."""

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import hosts

SPOOL = str(Path(sys.executable).with_name("spool"))


def test_the_command_is_installed_and_runs(home):
    out = subprocess.run([SPOOL, "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("spool ")
    run = subprocess.run(
        [SPOOL, "run", "--", "sh", "-c", "seq 1 5; exit 4"], capture_output=True, text=True
    )
    assert run.returncode == 4  # the command's own exit code
    assert run.stdout.startswith("[COMPLETE: 5 lines") and "1\n2\n3\n4\n5\n" in run.stdout
    bad = subprocess.run([SPOOL, "read", "sp_doesnotexist"], capture_output=True, text=True)
    assert bad.returncode == 3 and bad.stdout == ""  # errors go to stderr
    assert "no artifact `sp_doesnotexist`" in bad.stderr


def test_python_and_the_command_share_one_store(home, root):
    import spool

    st = spool.Store(roots=[root], trust=["cli"])
    run = subprocess.run(
        [SPOOL, "run", "--json", "--", "seq", "1", "100"], capture_output=True, text=True, check=True
    )
    made = json.loads(run.stdout)
    assert st.read(ref=made["ref"], line=100)["content"] == "100\n"


def test_serve_answers_an_mcp_client_in_every_host(home, root):
    from mcp import Client, StdioServerParameters

    async def scenario():
        params = StdioServerParameters(
            command=SPOOL, args=["serve", "--root", str(root)], env=dict(os.environ)
        )
        async with Client(params, mode="auto") as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            assert {"run", "read", "search", "fetch", "query", "list", "artifacts"} <= tools
            r = await c.call_tool("run", {"command": "seq 1 3000; exit 3", "max_tokens": 1000})
            sc = r.structured_content
            assert sc["total"]["lines"] == 3000 and sc["complete"] is False
            for host in hosts.HOSTS:
                shape, seen = hosts.view(host, r)
                assert hosts.count(shape, seen, sc["ref"]) >= 1, host
                assert hosts.count(shape, seen, "\n2999\n3000\n") == 1, host
            nxt = sc["next"][0]
            r2 = await c.call_tool(nxt["tool"], nxt["arguments"])
            assert r2.is_error is False

    asyncio.run(scenario())
