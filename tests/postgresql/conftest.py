"""The throwaway PostgreSQL server of this folder's tests (`tests.support.postgres`), one a test process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.computers import computer, dealer_on
from tests.support.postgres import ThrowawayServer, programs
from tests.support.system_tools import missing


@pytest.fixture(scope="session")
def postgres() -> Iterator[ThrowawayServer]:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.fail("psycopg is not installed: pip install -e '.[test]'")
    bin_dir = programs()
    if bin_dir is None:
        pytest.fail(missing("PostgreSQL", ("postgresql",)))
    server = ThrowawayServer(bin_dir).start()
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture
def record(postgres: ThrowawayServer, tmp_path: Path) -> str:
    """A new database holding a deal history, made as a director makes it (the URL, with its password)."""
    url = postgres.new_database()
    made = dealer_on(computer(tmp_path / "director"), "history", "init", url)
    assert made.returncode == 0, made.stderr
    return url
