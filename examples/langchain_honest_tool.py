"""A LangChain tool made honest with spool, without a model.

    pip install langchain-core   # and spool (pip install . in a checkout)
    python examples/langchain_honest_tool.py

The tool lists 50,000 log lines. Wrapped, the model gets the part that fits its cap, how big
the whole is, and the calls that read and search the rest; spool's own `read` and `search`
tools, served beside it, answer those calls from the one stored copy.
"""

import tempfile

from langchain_core.tools import tool

import spool
from spool.adapters.langchain import honest_tool, spool_tools


@tool
def service_log(service: str) -> str:
    """Returns a service's log, one event a line."""
    lines = [f"{service} event {i}: request served in {i % 90} ms" for i in range(50_000)]
    lines[41_337] = f"{service} event 41337: ERROR upstream timed out after 30000 ms"
    return "\n".join(lines) + "\n"


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        st = spool.Store(home=home, max_tokens=1000)
        log = honest_tool(service_log, store=st)
        tools = {t.name: t for t in spool_tools(st)}

        first = log.invoke({"service": "checkout"})
        print("\n".join(first.splitlines()[:4]))  # the banner: what was shown, of how much, the rest

        ref = first.split("stored as ", 1)[1].split(" ", 1)[0]
        print(tools["search"].invoke({"pattern": "ERROR", "ref": ref}))


if __name__ == "__main__":
    main()
