"""The one exception spool raises."""

from __future__ import annotations

import json
from typing import Any, Optional


class SpoolError(Exception):
    """A tool call that could not be answered.

    ``code`` is one of ``not_found``, ``expired``, ``forbidden``, ``invalid_argument``,
    ``unavailable``, ``timeout``, ``corrupt`` or ``internal``; ``message`` says what happened and
    ``hint`` what to do instead. ``text`` is the error as the model should read it (give the
    model ``str(err)`` or ``err.text``). An ``expired`` error carries, in ``source``, what the
    artifact was and how to produce it again.
    """

    def __init__(
        self,
        code: str,
        message: str,
        hint: Optional[str] = None,
        text: Optional[str] = None,
        source: Optional[str] = None,
    ) -> None:
        super().__init__(text or message)
        self.code = code
        self.message = message
        self.hint = hint
        self.text = text or f"[ERROR {code}: {message}]"
        self.source: Optional[Any] = json.loads(source) if isinstance(source, str) else source

    def __reduce__(
        self,
    ) -> "tuple[type[SpoolError], tuple[str, str, Optional[str], str, Optional[str]]]":
        # Picklable across processes (multiprocessing harnesses).
        source = None if self.source is None else json.dumps(self.source)
        return (SpoolError, (self.code, self.message, self.hint, self.text, source))

    def __repr__(self) -> str:
        return f"SpoolError(code={self.code!r}, message={self.message!r}, hint={self.hint!r})"
