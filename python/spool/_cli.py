"""The ``spool`` command installed by the package: the same command as the Rust binary."""

from __future__ import annotations

import signal
import sys


def main() -> None:
    # The command handles its own signals: Ctrl-C ends `spool serve` and stops a command that
    # `spool run` runs, as it does for the Rust binary; Python's handler would wait for the
    # command to return.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    from . import _native

    sys.exit(_native.main(["spool", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
