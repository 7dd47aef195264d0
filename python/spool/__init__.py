"""spool: tool answers that never cut silently.

An answer that is not the whole thing says what was shown and how big the whole is, why only
that much, and how to get the rest with a call that works verbatim. The whole output is stored
once, with its version; every continuation and search reads that copy.

    import spool

    st = spool.Store()                       # SPOOL_HOME, else the platform's data directory
    a = st.run("cargo test")                 # the whole output stored, a head-and-tail preview
    print(a["text"])                         # what the model should read
    more = st.follow(a["next"][0])           # or st.read(**a["next"][0]["arguments"])
    hits = st.search("panicked", ref=a["ref"])

    text = spool.honest(big_output, desc="my_tool q=...")   # any tool's output, made honest

Every answer is a ``dict`` in the contract's shape (``spool.Envelope``, ``spool.SearchAnswer``,
``spool.Page``) plus ``text``. Errors raise ``spool.SpoolError`` with ``code``, ``message``,
``hint`` and ``text``. Calls release the GIL while they work; Ctrl-C stops a running command and
keeps what it printed.
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any, Dict, Mapping, Optional, Sequence, Type, TypeVar, Union, cast

from . import _native
from ._errors import SpoolError
from ._types import (
    Envelope,
    ErrorAnswer,
    Hit,
    ItemPage,
    NextCall,
    Page,
    Range,
    Reason,
    SearchAnswer,
    Source,
    Totals,
)

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "Envelope",
    "ErrorAnswer",
    "Hit",
    "ItemPage",
    "NextCall",
    "Page",
    "Range",
    "Reason",
    "SearchAnswer",
    "Source",
    "SpoolError",
    "Store",
    "Totals",
    "honest",
]

__version__: str = _native.__version__

#: The cap of an answer that names none, in tokens.
DEFAULT_MAX_TOKENS: int = _native.DEFAULT_MAX_TOKENS

PathLike = Union[str, "os.PathLike[str]"]

T = TypeVar("T")


def _answer(answered: "tuple[str, str]") -> Any:
    """The structured answer with the text beside it: a dict in the shape the caller's return
    type names (``Envelope``, ``SearchAnswer``, ``Page``), as the contract gives it."""
    structured, text = answered
    out: Dict[str, Any] = json.loads(structured)
    out["text"] = text
    return out


def _args(**kwargs: Any) -> Dict[str, Any]:
    """The arguments given (``None`` and ``False`` are the tools' own defaults)."""
    return {k: v for k, v in kwargs.items() if v is not None and v is not False}


def _many(value: Any) -> "list[Any]":
    """A list of one or more: a lone string or path is one item, not its characters."""
    if isinstance(value, (str, bytes, os.PathLike)):
        return [value]
    return list(value)


#: The stand-in a printed call holds where the caller chooses a value (a search's regex).
PLACEHOLDER = "<regex>"


class Store:
    """A spool store, the directories its reads stay inside, and the cap of its answers.

    ``home``: the store's directory (default ``SPOOL_HOME``, else the platform's data directory;
    ``SPOOL_STORE`` or ``spool.toml`` put a shared S3 bucket behind it). ``max_tokens``: the cap
    of an answer that names none (each form, dict or text, fits it alone). ``roots``: the
    directories ``read(path=...)``, ``search(path=...)``, ``list`` and ``run`` may use (default:
    the working directory). ``trust``: other processes whose artifacts it reads by ref
    (``"cli"``, ``"serve:*"``, ``"any"``); by default it reads only what it made and copies of
    files inside its roots. ``allow_private_network``: let ``fetch`` reach loopback and private
    addresses. ``run_timeout_s``: the longest a command may run (default 600 s, as
    ``spool serve``). ``no_run``: leave ``run`` out (a store whose tools a model calls, read-only).
    ``env_pass``: variables ``run`` passes to commands although their names look secret (by
    default every variable whose name holds KEY, SECRET, TOKEN, PASSWORD, PASSWD or CREDENTIAL
    is withheld, and its value scrubbed from what a command prints), as ``spool serve
    --env-pass``.
    """

    def __init__(
        self,
        home: Optional[PathLike] = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        *,
        roots: Union[PathLike, Sequence[PathLike], None] = None,
        trust: Union[str, Sequence[str]] = (),
        allow_private_network: bool = False,
        run_timeout_s: Optional[float] = None,
        no_run: bool = False,
        env_pass: Union[str, Sequence[str]] = (),
    ) -> None:
        self._native = _native.Store(
            None if home is None else os.fspath(home),
            max_tokens,
            None if roots is None else [os.fspath(r) for r in _many(roots)],
            [str(t) for t in _many(trust)],
            allow_private_network,
            run_timeout_s,
            no_run,
            [str(n) for n in _many(env_pass)],
        )

    @property
    def home(self) -> str:
        """The store's home, as given (``Store(home=st.home)`` opens the same store)."""
        return os.fspath(self._native.home)

    @property
    def roots(self) -> "list[str]":
        """The directories reads stay inside."""
        return [os.fspath(r) for r in self._native.roots]

    @property
    def max_tokens(self) -> int:
        """The cap of an answer that names none, in tokens."""
        return self._native.max_tokens

    def __repr__(self) -> str:
        return repr(self._native)

    # -- the tools -----------------------------------------------------------------------

    def call(self, tool: str, arguments: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """Answers ``tool`` called with ``arguments``, as a model would call it: the way to
        follow any ``next`` entry (``store.call(n["tool"], n["arguments"])``) or to serve these
        tools to a model under their own names. Arguments that are ``None`` are left out, as a
        model's explicit ``null`` means "the default"."""
        given = {k: v for k, v in dict(arguments or {}).items() if v is not None}
        try:
            encoded = json.dumps(given, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise SpoolError(
                "invalid_argument",
                f"the arguments of `{tool}` are not JSON: {e}",
                "pass strings, numbers, booleans, lists and dicts",
            ) from None
        answered: Dict[str, Any] = _answer(self._native.call(tool, encoded))
        return answered

    def _typed(self, shape: Type[T], tool: str, arguments: Mapping[str, Any]) -> T:
        """``call``'s answer as the shape this tool answers in (the contract's)."""
        return cast(T, self.call(tool, arguments))

    def follow(self, call: NextCall, **fill: Any) -> Dict[str, Any]:
        """Makes one ``next`` call of an earlier answer, or one of its ``next_templates``: a
        template holds a stand-in for a value of yours (a search's ``pattern="<regex>"``) and
        needs it given: ``store.follow(t, pattern="timeout")``."""
        arguments = {**call["arguments"], **fill}
        missing = [k for k, v in arguments.items() if v == PLACEHOLDER]
        if missing:
            raise SpoolError(
                "invalid_argument",
                f"this `{call['tool']}` call holds a stand-in for `{missing[0]}`",
                f"give it: store.follow(call, {missing[0]}=...)",
            )
        return self.call(call["tool"], arguments)

    def put(
        self,
        output: Union[str, bytes],
        desc: str,
        version: Optional[Mapping[str, Any]] = None,
        preview: Optional[str] = None,
        max_tokens: Optional[int] = None,
    ) -> Envelope:
        """Stores a tool's whole ``output`` once and answers its first window.

        ``desc`` names what produced it (``"my_tool q=..."``); ``version`` is what pins it (a
        time, an ETag, a hash, a query: kept as given); ``preview`` is ``"head"`` (documents,
        the default), ``"tail"`` (logs) or ``"head_tail"`` (command output). Read the rest with
        ``read(ref=...)`` or ``search(..., ref=...)``.
        """
        data = output.encode("utf-8") if isinstance(output, str) else bytes(output)
        return cast(
            Envelope,
            _answer(
                self._native.put(data, desc, json.dumps(dict(version or {})), preview, max_tokens)
            ),
        )

    def read(
        self,
        ref: Optional[str] = None,
        path: Optional[PathLike] = None,
        *,
        line: Optional[int] = None,
        limit: Optional[int] = None,
        char_offset: Optional[int] = None,
        max_chars: Optional[int] = None,
        byte_offset: Optional[int] = None,
        max_bytes: Optional[int] = None,
        tail: Optional[int] = None,
        preview: Optional[str] = None,
        stream: Optional[str] = None,
        query: Optional[str] = None,
        pattern: Optional[str] = None,
        literal: bool = False,
        case_insensitive: bool = False,
        cursor: Optional[str] = None,
        max_tokens: Optional[int] = None,
    ) -> Envelope:
        """A window of a stored artifact (``ref``) or of a file inside the roots (``path``,
        snapshotted once: every later read and search reads that copy).

        ``line``/``limit`` (1-based lines), ``char_offset``/``max_chars``,
        ``byte_offset``/``max_bytes`` or ``tail`` (the last lines) pick the window; ``preview``
        picks head, tail or head_tail. ``query`` (words) or ``pattern`` (a regex, or a string
        with ``literal``) also shows what a search of the whole copy found.
        """
        return self._typed(
            Envelope,
            "read",
            _args(
                ref=ref,
                path=None if path is None else os.fspath(path),
                line=line,
                limit=limit,
                char_offset=char_offset,
                max_chars=max_chars,
                byte_offset=byte_offset,
                max_bytes=max_bytes,
                tail=tail,
                preview=preview,
                stream=stream,
                query=query,
                pattern=pattern,
                literal=literal,
                case_insensitive=case_insensitive,
                cursor=cursor,
                max_tokens=max_tokens,
            ),
        )

    def search(
        self,
        pattern: Optional[str] = None,
        ref: Optional[str] = None,
        path: Optional[PathLike] = None,
        *,
        query: Optional[str] = None,
        literal: bool = False,
        case_insensitive: bool = False,
        glob: Optional[Sequence[str]] = None,
        hidden: bool = False,
        no_ignore: bool = False,
        count: bool = False,
        context: Optional[int] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        max_tokens: Optional[int] = None,
    ) -> SearchAnswer:
        """Searches the whole of an artifact (``ref``), a file or a directory (``path``) for a
        regex ``pattern`` (a string with ``literal``), or ranks passages by the words of
        ``query``. Every hit is counted; ``truncated`` says more exist than were returned, and
        ``next`` holds the search that continues. Zero hits say where it looked, and ``next``
        holds the searches of what was left out (outside the globs, ignored, hidden files).
        ``no_ignore`` searches the files ``.gitignore`` leaves out too; ``count`` gives hits
        per file (``files``) instead of the hits."""
        return self._typed(
            SearchAnswer,
            "search",
            _args(
                pattern=pattern,
                query=query,
                ref=ref,
                path=None if path is None else os.fspath(path),
                literal=literal,
                case_insensitive=case_insensitive,
                glob=None if glob is None else _many(glob),
                hidden=hidden,
                no_ignore=no_ignore,
                count=count,
                context=context,
                limit=limit,
                cursor=cursor,
                max_tokens=max_tokens,
            ),
        )

    def query(
        self,
        ref: str,
        jq: str,
        *,
        limit: Optional[int] = None,
        max_tokens: Optional[int] = None,
    ) -> Envelope:
        """Runs the jq program ``jq`` over a stored JSON document or list (``ref``): one record
        or a count without paging through everything. Its output is stored too."""
        return self._typed(
            Envelope, "query", _args(ref=ref, jq=jq, limit=limit, max_tokens=max_tokens)
        )

    def list(
        self,
        path: PathLike = ".",
        *,
        glob: Optional[str] = None,
        recursive: bool = False,
        hidden: bool = False,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        max_tokens: Optional[int] = None,
    ) -> Page:
        """A page of a directory's entries inside the roots (``name``, ``path``, ``kind``,
        ``size``, ``mtime``), with a cursor for the next page of the same snapshot."""
        return self._typed(
            Page,
            "list",
            _args(
                path=os.fspath(path),
                glob=glob,
                recursive=recursive,
                hidden=hidden,
                limit=limit,
                cursor=cursor,
                max_tokens=max_tokens,
            ),
        )

    def run(
        self,
        command: Union[str, Sequence[str], None] = None,
        *,
        argv: Optional[Sequence[str]] = None,
        cwd: Optional[PathLike] = None,
        timeout_s: Optional[float] = None,
        stdin: Optional[str] = None,
        preview: Optional[str] = None,
        max_tokens: Optional[int] = None,
    ) -> Envelope:
        """Runs a command (a string, run by ``sh -c``, or an argv list; or ``argv=``) inside the
        roots and stores its whole output, stdout and stderr, with its exit code. The preview is
        the real head and tail; on a failure the last lines are always shown."""
        target: Dict[str, Any] = {}
        if isinstance(command, str):
            target["command"] = command
        elif command is not None:
            target["argv"] = [os.fspath(a) for a in command]
        if argv is not None:
            target["argv"] = [os.fspath(a) for a in argv]
        return self._typed(
            Envelope,
            "run",
            {
                **target,
                **_args(
                    cwd=None if cwd is None else os.fspath(cwd),
                    timeout_s=timeout_s,
                    stdin=stdin,
                    preview=preview,
                    max_tokens=max_tokens,
                ),
            },
        )

    def fetch(
        self,
        url: str,
        *,
        format: Optional[str] = None,
        refresh: bool = False,
        query: Optional[str] = None,
        pattern: Optional[str] = None,
        literal: bool = False,
        case_insensitive: bool = False,
        max_tokens: Optional[int] = None,
    ) -> Envelope:
        """Fetches a page once (``format``: markdown, the default, text or raw) and stores it
        with its fetch time, ETag and final URL; a second fetch soon after reuses the copy
        unless ``refresh``. Special-purpose addresses are refused."""
        return self._typed(
            Envelope,
            "fetch",
            _args(
                url=url,
                format=format,
                refresh=refresh,
                query=query,
                pattern=pattern,
                literal=literal,
                case_insensitive=case_insensitive,
                max_tokens=max_tokens,
            ),
        )

    def ci_log(
        self,
        repo: str,
        run_id: int,
        *,
        attempt: Optional[int] = None,
        job: Optional[str] = None,
        max_tokens: Optional[int] = None,
    ) -> Envelope:
        """A GitHub Actions job's log, pinned to its run and attempt (``GITHUB_TOKEN`` or
        ``GH_TOKEN``; ``GITHUB_API_URL`` for another host). The tail is shown, with the failed
        step and the first error line."""
        return self._typed(
            Envelope,
            "ci_log",
            _args(repo=repo, run_id=run_id, attempt=attempt, job=job, max_tokens=max_tokens),
        )

    def map(
        self,
        path: Optional[PathLike] = None,
        *,
        focus: Union[str, Sequence[str], None] = None,
        cursor: Optional[str] = None,
        max_tokens: Optional[int] = None,
    ) -> Envelope:
        """A map of a repository or directory inside the roots (default: the first root): its
        files' most referred-to definitions, each with its line number and the line that names
        it, ranked by how much of the code refers to them; ``focus`` (files or symbols) ranks
        them first. It fits ``max_tokens`` (default 1024) and says what it left out: which files
        of how many it shows, what was skipped and why, the commit it is pinned to; ``next``
        holds the cursor to the next files. A path to one file maps its outline."""
        if isinstance(focus, str):
            focus = [focus]
        return self._typed(
            Envelope,
            "map",
            _args(
                path=None if path is None else os.fspath(path),
                focus=None if focus is None else list(focus),
                cursor=cursor,
                max_tokens=max_tokens,
            ),
        )

    def artifacts(
        self,
        kind: Optional[str] = None,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        max_tokens: Optional[int] = None,
    ) -> Page:
        """A page of the stored artifacts this store may read, newest first (``ref``,
        ``source``, ``total``, ``created_at``, ``expires_at``, ``state``)."""
        return self._typed(
            Page, "artifacts", _args(kind=kind, limit=limit, cursor=cursor, max_tokens=max_tokens)
        )

    def audit(self, ref: Optional[str] = None, limit: int = 20) -> Any:
        """What was delivered: the latest answers about artifacts this store may read, newest
        first (a list of rows), or with ``ref`` everything delivered from that artifact and the
        byte and line spans never delivered (a dict). ``spool audit`` at the command line shows
        every answer of every process."""
        return json.loads(self._native.audit(ref, limit))


_default_store: Optional[Store] = None
_default_lock = threading.Lock()


def _default() -> Store:
    global _default_store
    with _default_lock:
        if _default_store is None:
            _default_store = Store()
        return _default_store


def honest(
    output: Union[str, bytes],
    desc: str,
    *,
    max_tokens: Optional[int] = None,
    version: Optional[Mapping[str, Any]] = None,
    preview: Optional[str] = None,
    store: Optional[Store] = None,
) -> str:
    """Any tool's output as the honest answer, in one call: stored whole, and the text the
    model should read: all of it when it fits ``max_tokens``, else the part shown, how big the
    whole is, why only that much, and the calls that read and search the rest.

    Uses ``store`` (default: one ``Store()`` for the process). ``store.put`` gives the same
    answer as a dict.
    """
    st = store if store is not None else _default()
    return st.put(output, desc, version=version, preview=preview, max_tokens=max_tokens)["text"]
