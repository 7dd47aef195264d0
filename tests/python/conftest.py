"""Each test gets its own store (SPOOL_HOME in a temporary directory) and a root of its own."""

import os
import sys
from pathlib import Path

import pytest

# The hosts' forwarding rules (TESTING.md), shared with the MCP end-to-end tests.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))


@pytest.fixture(autouse=True)
def fresh_default_store():
    """`spool.honest` keeps one store per process; each test gets its own (its SPOOL_HOME)."""
    import spool

    spool._default_store = None
    yield
    spool._default_store = None


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    monkeypatch.setenv("SPOOL_HOME", str(h))
    for var in ("SPOOL_STORE", "SPOOL_CONFIG", "SPOOL_TTL", "SPOOL_QUOTA"):
        monkeypatch.delenv(var, raising=False)
    return h


@pytest.fixture
def root(tmp_path):
    r = tmp_path / "root"
    r.mkdir()
    return r


@pytest.fixture
def store(home, root):
    import spool

    return spool.Store(roots=[root], max_tokens=1000)


def lines(n, fmt="line {}"):
    return "".join(fmt.format(i) + "\n" for i in range(1, n + 1))
