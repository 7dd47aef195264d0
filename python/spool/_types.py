"""The shapes of spool's answers (CONTRACT.md), as ``TypedDict``s.

Every answer is a plain ``dict``: the structured form a host forwards to the model, ``notice``
(the banner's words) first and the content last, plus ``text``, the same answer as the text a
text-only host forwards (banner, then each shown range). Give the model one of the two.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Literal, Optional

if sys.version_info >= (3, 11):
    from typing import NotRequired, TypedDict
else:  # pragma: no cover - older Pythons
    from typing_extensions import NotRequired, TypedDict

Unit = Literal["lines", "chars", "bytes", "tokens", "items", "hits"]
ReasonCode = Literal[
    "size_cap", "token_cap", "timeout", "requested_range", "upstream_partial", "binary", "cancelled"
]
ErrorCode = Literal[
    "not_found", "expired", "forbidden", "invalid_argument", "unavailable", "timeout", "corrupt",
    "internal",
]


class Range(TypedDict):
    """One shown range: lines are 1-based and inclusive; chars, bytes and items 0-based, end
    exclusive. ``bytes`` is the span of the stored copy it covers."""

    unit: Unit
    start: int
    end: int
    bytes: NotRequired[List[int]]


class Totals(TypedDict, total=False):
    """Every known size of the whole; an unknown size is absent, never guessed."""

    lines: int
    chars: int
    bytes: int
    tokens: int
    tokens_estimated: bool
    items: int


class Reason(TypedDict):
    """Why an answer is partial."""

    code: ReasonCode
    detail: str


class NextCall(TypedDict):
    """A call that works verbatim: ``store.call(n["tool"], n["arguments"])``, or
    ``store.read(**n["arguments"])`` for a ``read``."""

    tool: str
    arguments: Dict[str, Any]


class Source(TypedDict):
    """Where an artifact came from and what pins its version (fetch time and ETag, exit code,
    file hash and commit, CI run and attempt, or the caller's own for ``put``)."""

    kind: Literal["exec", "fetch", "file", "mcp", "search", "text", "query", "ci", "map"]
    desc: str
    version: Dict[str, Any]


class Envelope(TypedDict):
    """The answer of ``put``, ``read``, ``run``, ``fetch``, ``query``, ``ci_log`` and ``map``
    (which adds its ``scope``)."""

    notice: str
    ref: str
    shown: List[Range]
    total: Totals
    complete: bool
    reason: NotRequired[Reason]
    next: List[NextCall]
    next_templates: NotRequired[List[NextCall]]
    source: Source
    notes: NotRequired[List[str]]
    found: NotRequired[Dict[str, Any]]
    scope: NotRequired[Dict[str, Any]]
    content: str
    text: str


class Hit(TypedDict):
    line: int
    text: str
    path: NotRequired[str]
    byte_offset: NotRequired[int]


class SearchAnswer(TypedDict):
    """The answer of ``search``: every hit of the whole scope is counted; ``truncated`` says
    more exist than were returned, and ``next`` holds the search that continues."""

    notice: str
    hit_count: int
    hit_count_exact: bool
    truncated: bool
    next_cursor: Optional[str]
    next: List[NextCall]
    query: Dict[str, Any]
    scope: Dict[str, Any]
    ref: Optional[str]
    hits: NotRequired[List[Hit]]
    files: NotRequired[List[Dict[str, Any]]]
    files_with_hits: NotRequired[int]
    text: str


class Page(TypedDict):
    """A page of a list (``artifacts``, ``list``): opaque keyset cursors from one snapshot."""

    notice: str
    next: List[NextCall]
    next_cursor: Optional[str]
    has_more: bool
    page_size: int
    max_page_size: int
    items: List[Dict[str, Any]]
    text: str


Answer = Any  # Envelope | SearchAnswer | Page, by tool
