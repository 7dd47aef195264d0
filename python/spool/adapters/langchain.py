"""LangChain (``langchain-core``): any tool made honest, and spool's own tools for the model.

    from spool.adapters.langchain import honest_tool, spool_tools

    tools = [honest_tool(t, store=st) for t in my_tools] + spool_tools(st)

``honest_tool`` keeps the tool's name, description and arguments. Its output is stored whole
and the model gets the honest answer: all of it when it fits, else the part shown, how big the
whole is, and the calls that read and search the rest. ``spool_tools`` gives the model those
calls (``read``, ``search``, ``query``), named as the answers print them.
"""

from __future__ import annotations

import datetime
import json
from typing import Any, Callable, Dict, List, Mapping, Optional

try:
    from langchain_core.tools import BaseTool, StructuredTool
except ImportError as e:  # pragma: no cover - depends on the harness
    raise ImportError(
        "spool.adapters.langchain needs langchain-core: pip install langchain-core"
    ) from e

from .. import SpoolError, Store, _default


def _as_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, bytes):
        return output.decode("utf-8", errors="replace")
    content = getattr(output, "content", None)  # a ToolMessage
    if isinstance(content, str):
        return content
    return json.dumps(output, ensure_ascii=False, default=str, indent=1)


def honest_tool(
    tool: BaseTool, *, store: Optional[Store] = None, max_tokens: Optional[int] = None
) -> StructuredTool:
    """``tool``, answering honestly: its whole output stored in ``store`` (default: one
    ``Store()`` for the process) and the model given what fits ``max_tokens``, saying what it
    left out and how to read it."""

    def answer(output: Any, kwargs: Dict[str, Any]) -> str:
        st = store if store is not None else _default()
        desc = " ".join([tool.name, *(f"{k}={v!r}" for k, v in kwargs.items())])
        version = {
            "tool": tool.name,
            "called_at": datetime.datetime.now(datetime.timezone.utc).strftime(
                "%Y-%m-%dT%H:%M:%SZ"
            ),
        }
        data = output if isinstance(output, bytes) else _as_text(output)
        text: str = st.put(data, desc, version=version, max_tokens=max_tokens)["text"]
        return text

    def run(**kwargs: Any) -> str:
        return answer(tool.invoke(kwargs), kwargs)

    async def arun(**kwargs: Any) -> str:
        import asyncio

        output = await tool.ainvoke(kwargs)
        return await asyncio.to_thread(answer, output, kwargs)

    return StructuredTool.from_function(
        func=run,
        coroutine=arun,
        name=tool.name,
        description=tool.description,
        args_schema=tool.args_schema,
    )


def spool_tools(store: Optional[Store] = None) -> List[StructuredTool]:
    """``read``, ``search`` and ``query`` over ``store``, for the model to follow the calls an
    honest answer prints, every argument those calls use included. An error is returned as text
    the model reads (``[ERROR code: ...]`` and a hint), not raised into the harness.

    ``read(path=...)`` and ``search(path=...)`` reach the store's roots: give a ``Store`` whose
    roots are what the model may read (the default store's root is the working directory)."""

    def st_of() -> Store:
        return store if store is not None else _default()

    def text_of(call: Callable[[], Mapping[str, Any]]) -> str:
        try:
            text: str = call()["text"]
            return text
        except SpoolError as e:
            return e.text

    def read(
        ref: Optional[str] = None,
        path: Optional[str] = None,
        line: Optional[int] = None,
        limit: Optional[int] = None,
        tail: Optional[int] = None,
        char_offset: Optional[int] = None,
        max_chars: Optional[int] = None,
        byte_offset: Optional[int] = None,
        max_bytes: Optional[int] = None,
        preview: Optional[str] = None,
        stream: Optional[str] = None,
        query: Optional[str] = None,
        pattern: Optional[str] = None,
        literal: bool = False,
        case_insensitive: bool = False,
        cursor: Optional[str] = None,
        max_tokens: Optional[int] = None,
    ) -> str:
        """Reads a window of a stored output (ref) or a file (path): line and limit (1-based
        lines), tail (the last lines), char_offset and max_chars (inside a long line),
        byte_offset and max_bytes; preview (head, tail, head_tail); stream (stdout or stderr of
        a command); cursor (the next page of a list). query (words) or pattern (a regex, or a
        string with literal) also shows what a search of the whole found."""
        return text_of(
            lambda: st_of().read(
                ref=ref,
                path=path,
                line=line,
                limit=limit,
                tail=tail,
                char_offset=char_offset,
                max_chars=max_chars,
                byte_offset=byte_offset,
                max_bytes=max_bytes,
                preview=preview,
                stream=stream,
                query=query,
                pattern=pattern,
                literal=literal,
                case_insensitive=case_insensitive,
                cursor=cursor,
                max_tokens=max_tokens,
            )
        )

    def search(
        pattern: Optional[str] = None,
        ref: Optional[str] = None,
        path: Optional[str] = None,
        query: Optional[str] = None,
        literal: bool = False,
        case_insensitive: bool = False,
        glob: Optional[List[str]] = None,
        hidden: bool = False,
        context: Optional[int] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        max_tokens: Optional[int] = None,
    ) -> str:
        """Searches the whole of a stored output (ref) or a file or directory (path) for a
        regex pattern (a string with literal), or ranks passages by the words of query; glob
        and hidden pick a directory's files, context adds lines around each hit. Every hit is
        counted; the answer says whether more exist and how to see them (cursor)."""
        return text_of(
            lambda: st_of().search(
                pattern,
                ref=ref,
                path=path,
                query=query,
                literal=literal,
                case_insensitive=case_insensitive,
                glob=glob,
                hidden=hidden,
                context=context,
                limit=limit,
                cursor=cursor,
                max_tokens=max_tokens,
            )
        )

    def query(
        ref: str, jq: str, limit: Optional[int] = None, max_tokens: Optional[int] = None
    ) -> str:
        """Runs a jq program over a stored JSON output (ref): one record or a count without
        paging through everything."""
        return text_of(lambda: st_of().query(ref, jq, limit=limit, max_tokens=max_tokens))

    return [StructuredTool.from_function(func=f) for f in (read, search, query)]
