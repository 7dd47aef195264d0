"""The README's one-liner: `uvx --from <the wheel> spool serve`, in an environment uv makes
itself, answers an MCP client. scripts/test builds the wheel into target/wheels first;
SPOOL_WHEEL_DIR names another folder (scripts/test-dist checks the shipped wheel this way)."""

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

WHEELS = Path(
    os.environ.get("SPOOL_WHEEL_DIR") or Path(__file__).resolve().parents[2] / "target" / "wheels"
).resolve()


def wheel():
    found = sorted(WHEELS.glob("spool_tools-*.whl"), key=lambda p: p.stat().st_mtime)
    assert found, f"no wheel in {WHEELS}: build one with `maturin build --profile dev --out {WHEELS}`"
    return str(found[-1])


def uvx():
    here = Path(sys.executable).with_name("uvx")
    return str(here) if here.exists() else shutil.which("uvx")


def test_uvx_runs_the_command_from_the_wheel(home, tmp_path):
    env = {**os.environ, "UV_CACHE_DIR": str(tmp_path / "uv-cache"), "UV_NO_CONFIG": "1"}
    out = subprocess.run(
        [uvx(), "--offline", "--from", wheel(), "spool", "run", "--", "seq", "1", "3"],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("[COMPLETE: 3 lines") and out.stdout.endswith("1\n2\n3\n")


def test_uvx_serve_answers_an_mcp_client(home, root, tmp_path):
    from mcp import Client, StdioServerParameters

    env = {**os.environ, "UV_CACHE_DIR": str(tmp_path / "uv-cache"), "UV_NO_CONFIG": "1"}

    async def scenario():
        params = StdioServerParameters(
            command=uvx(),
            args=["--offline", "--from", wheel(), "spool", "serve", "--root", str(root)],
            env=env,
        )
        async with Client(params, mode="auto") as c:
            r = await c.call_tool("run", {"command": "seq 1 5"})
            assert r.is_error is False
            assert r.structured_content["content"] == "1\n2\n3\n4\n5\n"

    asyncio.run(scenario())
