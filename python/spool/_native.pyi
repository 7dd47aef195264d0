"""Type stubs of the Rust half of the package (``crates/spool-py``). Use ``spool.Store``."""

from typing import List, Optional, Tuple

DEFAULT_MAX_TOKENS: int
ERROR_CODES: List[str]
REASON_CODES: List[str]
UNITS: List[str]
__version__: str

def main(argv: List[str]) -> int:
    """Runs the ``spool`` command with ``argv`` (program name first); returns its exit code."""

class Store:
    def __init__(
        self,
        home: Optional[str] = None,
        max_tokens: int = ...,
        roots: Optional[List[str]] = None,
        trust: List[str] = ...,
        allow_private_network: bool = False,
        run_timeout_s: Optional[float] = None,
        no_run: bool = False,
        env_pass: List[str] = ...,
    ) -> None: ...
    @property
    def home(self) -> str: ...
    @property
    def roots(self) -> List[str]: ...
    @property
    def max_tokens(self) -> int: ...
    def call(self, tool: str, args: str) -> Tuple[str, str]:
        """(the structured answer as JSON, the text the model reads)."""
    def put(
        self,
        data: bytes,
        desc: str,
        version: str = "{}",
        preview: Optional[str] = None,
        max_tokens: Optional[int] = None,
    ) -> Tuple[str, str]: ...
    def audit(self, reference: Optional[str] = None, limit: int = 20) -> str: ...

def tools() -> str:
    """The tool table as JSON: each tool's ``name``, ``title``, ``description``, hints
    (``read_only``, ``destructive``, ``open_world``) and ``input_schema``."""
