"""The shapes of spool's answers (CONTRACT.md), as ``TypedDict``s.

Every answer is a plain ``dict``: the structured form a host forwards to the model, ``notice``
(the banner's words) first and the content last, plus ``text``, the same answer as the text a
text-only host forwards (banner, then each shown range). Give the model one of the two.
"""

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
SourceKind = Literal["exec", "fetch", "file", "mcp", "search", "text", "query", "ci", "map"]
ArtifactState = Literal["capturing", "complete", "interrupted", "cancelled", "expired"]

# The shapes below are held to docs/schemas/answers.json (derived from the Rust answer types)
# by tests/python/test_types.py: a field added there and not here fails it. ``text`` is the
# Python package's own (the answer as a text-only host forwards it).


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
    """Where an artifact came from, what pins its version (fetch time and ETag, exit code,
    file hash and commit, CI run and attempt, or the caller's own for ``put``), and what of
    it the stored copy holds (``coverage``: the whole, or a page's main content only...)."""

    kind: SourceKind
    desc: str
    version: Dict[str, Any]
    coverage: Dict[str, Any]


class CaptureNote(TypedDict):
    """How the stored copy itself ended, when it is not whole (a command cancelled...)."""

    state: ArtifactState
    detail: str


class FoundAt(TypedDict):
    start_line: int
    end_line: int
    score: NotRequired[float]
    shown: bool


class Found(TypedDict):
    """What a read given ``query`` or ``pattern`` found in the whole artifact."""

    query: NotRequired[str]
    pattern: NotRequired[str]
    literal: NotRequired[bool]
    case_insensitive: NotRequired[bool]
    looked_for: NotRequired[List[str]]
    left_out: NotRequired[List[str]]
    hit_count: int
    best: List[FoundAt]


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
    capture: NotRequired[CaptureNote]
    notes: NotRequired[List[str]]
    found: NotRequired[Found]
    scope: NotRequired[Dict[str, Any]]
    content: str
    text: str


class ItemPage(TypedDict):
    """A ``read`` of a stored JSON list, by items: the envelope's facts and a page of items."""

    notice: str
    ref: str
    shown: List[Range]
    total: Totals
    complete: bool
    reason: NotRequired[Reason]
    next: List[NextCall]
    next_templates: NotRequired[List[NextCall]]
    source: Source
    capture: NotRequired[CaptureNote]
    notes: NotRequired[List[str]]
    found: NotRequired[Found]
    scope: NotRequired[Dict[str, Any]]
    items: List[Any]
    next_cursor: Optional[str]
    has_more: bool
    page_size: int
    max_page_size: int
    text: str


class Hit(TypedDict):
    line: int
    byte_offset: int
    text: str
    path: NotRequired[str]
    trimmed: NotRequired[Dict[str, int]]
    before: NotRequired[List[Dict[str, Any]]]
    after: NotRequired[List[Dict[str, Any]]]
    end_line: NotRequired[int]
    score: NotRequired[float]
    since: NotRequired[str]


class FileCount(TypedDict):
    path: str
    hits: int


class SearchAnswer(TypedDict):
    """The answer of ``search``: every hit of the whole scope is counted; ``truncated`` says
    more exist than were returned, and ``next`` holds the search that continues. With
    ``count``, ``files`` (hits per file) stands in place of ``hits``."""

    notice: str
    hit_count: int
    hit_count_exact: bool
    files_with_hits: NotRequired[int]
    truncated: bool
    next_cursor: Optional[str]
    next: List[NextCall]
    reason: NotRequired[Reason]
    page_reason: NotRequired[Reason]
    query: Dict[str, Any]
    scope: Dict[str, Any]
    ref: Optional[str]
    hits: NotRequired[List[Hit]]
    windowed_lines: NotRequired[int]
    files: NotRequired[List[FileCount]]
    first_file_index: NotRequired[int]
    text: str


class Page(TypedDict):
    """A page of a list (``artifacts``, ``list``): opaque keyset cursors from one snapshot."""

    notice: str
    next_cursor: Optional[str]
    has_more: bool
    page_size: int
    max_page_size: int
    total: NotRequired[int]
    skipped: NotRequired[Dict[str, Any]]
    next: NotRequired[List[NextCall]]
    reason: NotRequired[Reason]
    items: List[Dict[str, Any]]
    text: str


class ErrorBody(TypedDict):
    code: ErrorCode
    message: str
    hint: NotRequired[str]
    source: NotRequired[Dict[str, Any]]


class ErrorAnswer(TypedDict):
    """The contract's error object, as the MCP server sends it: what went wrong, what to do."""

    error: ErrorBody


Answer = Any  # Envelope | ItemPage | SearchAnswer | Page, by tool
