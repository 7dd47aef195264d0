"""A LangChain tool made honest (spool.adapters.langchain), driven without a model."""

from langchain_core.tools import tool

import spool
from spool.adapters.langchain import honest_tool, spool_tools


@tool
def list_orders(region: str, count: int) -> str:
    """Lists a region's orders, one a line."""
    return "".join(f"order {i} region={region} status={'late' if i == count - 7 else 'ok'}\n" for i in range(count))


def test_a_wrapped_tool_says_what_it_left_out_and_the_model_can_read_the_rest(store):
    honest = honest_tool(list_orders, store=store, max_tokens=800)
    # The same tool to the model: name, description and arguments.
    assert honest.name == "list_orders"
    assert honest.description == list_orders.description
    assert set(honest.args) == {"region", "count"}
    text = honest.invoke({"region": "eu", "count": 20000})
    first = text.splitlines()[0]
    assert first.startswith("[PARTIAL: lines 1-") and "of 20,000 lines" in first
    assert "list_orders" in text and "region='eu'" in text  # what produced it
    assert "status=late" not in text  # the late order is far past the part shown

    # The model follows the printed calls with spool's own tools, served beside it.
    tools = {t.name: t for t in spool_tools(store)}
    assert {"read", "search", "query"} <= set(tools)
    ref = text.split("stored as ", 1)[1].split(" ", 1)[0]
    found = tools["search"].invoke({"pattern": "status=late", "ref": ref})
    assert "1 hit" in found and "order 19993 region=eu status=late" in found
    window = tools["read"].invoke({"ref": ref, "line": 19994, "limit": 1})
    assert "order 19993 region=eu status=late" in window
    # An error is text the model reads, not an exception in the harness.
    err = tools["read"].invoke({"ref": "sp_doesnotexist"})
    assert err.startswith("[ERROR not_found:")


def test_a_small_answer_passes_whole(store):
    honest = honest_tool(list_orders, store=store)
    text = honest.invoke({"region": "us", "count": 3})
    assert text.startswith("[COMPLETE: 3 lines")
    assert text.endswith("order 2 region=us status=ok\n")


def test_the_example_runs_and_finds_the_error_past_the_part_shown(home):
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "examples" / "langchain_honest_tool.py"
    out = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "[PARTIAL: lines 1-" in out.stdout and "of 50,000 lines" in out.stdout
    assert "1 hit" in out.stdout
    assert "checkout event 41337: ERROR upstream timed out" in out.stdout
