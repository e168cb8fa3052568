"""Shared test fixtures: the skip policy plugin, the path to the reference data, and every test's own deal history.

The simulator's pytest plugin (`hil.pytest_plugin`: --machine-port, the leak check; `hil.pytest_fixtures`: the
dealing_machine fixture) is loaded by its ``pytest11`` entry point, registered when the project is installed.

No test writes the user's real deal history: before any test module is imported `DEALER_HISTORY` points
into a temporary folder of the session (removed at its end), and every test then gets a history of its
own (`deal_history`), which the subprocesses it starts inherit through the environment; so does the folder
where the simulators it starts register (`sims_registry`).
"""

from __future__ import annotations

import itertools
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import DATA

pytest_plugins = ("tests.support.skip_policy", "tests.support.system_tools")


_SESSION_HISTORY_FOLDER: list[str] = []
_EACH_TEST = itertools.count()
"""Numbers the folder of each test's own history and simulators' registry, in the session's folder (a
numbered folder of pytest's would list its parent, thousands of entries, for every test)."""


def pytest_configure(config: pytest.Config) -> None:
    folder = tempfile.mkdtemp(prefix="dealer-test-history-")
    _SESSION_HISTORY_FOLDER.append(folder)
    compiled_once(os.path.join(folder, "pycache"))
    os.environ["LANGUAGE"] = "en"  # the suite reads English, whatever language its computer speaks
    os.environ["DEALER_HISTORY"] = os.path.join(folder, "history.sqlite")
    os.environ["DEALER_SIMS"] = os.path.join(folder, "sims")  # where a `dealer sim` a test starts registers
    from dealer.journal.history import DealHistory

    DealHistory.open(os.environ["DEALER_HISTORY"], create=True).close()  # for fixtures wider than a test
    DealHistory.open(os.path.join(folder, "empty-history.sqlite"), create=True).close()  # each test's copies it


def compiled_once(cache: str) -> None:
    """The program's modules compiled once for the session, not once for each of the hundreds of processes it
    starts (``python -m dealer``, ``dealer sim``): their bytecode goes to `cache`, in the session's folder (so
    the checkout gains no file), even where ``PYTHONDONTWRITEBYTECODE`` would have every process compile
    everything again. The workers of ``-n`` share the cache of the process that started them."""
    if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("PYTHONPYCACHEPREFIX"):
        cache = os.environ["PYTHONPYCACHEPREFIX"]
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = cache
    sys.dont_write_bytecode = False
    sys.pycache_prefix = cache


def pytest_unconfigure(config: pytest.Config) -> None:
    for folder in _SESSION_HISTORY_FOLDER:
        shutil.rmtree(folder, ignore_errors=True)


def _own_folder() -> Path:
    """A new folder of this test's own, in the session's folder (removed at the session's end)."""
    folder = Path(_SESSION_HISTORY_FOLDER[0]) / f"test-{next(_EACH_TEST)}"
    folder.mkdir(mode=0o700)
    return folder


@pytest.fixture(autouse=True)
def deal_history(monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's deal history (`DEALER_HISTORY`), empty at its start: a copy of the empty history the
    session made (a named history is never made unasked: `dealer history init`)."""
    path = _own_folder() / "history.sqlite"
    shutil.copy(os.path.join(_SESSION_HISTORY_FOLDER[0], "empty-history.sqlite"), path)
    monkeypatch.setenv("DEALER_HISTORY", str(path))
    return path


@pytest.fixture(autouse=True)
def sims_registry(deal_history: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the `dealer sim`s this test starts register (`DEALER_SIMS`): its own, so `dealer ports` in one
    test never lists a simulator another test, in another worker, runs."""
    path = deal_history.parent / "sims"
    path.mkdir(mode=0o700)
    monkeypatch.setenv("DEALER_SIMS", str(path))
    return path


@pytest.fixture(autouse=True)
def _no_simulator_left_behind() -> Iterator[None]:
    """The `sim://` machines a test's in-process runs started go with it: a later test of the same worker that
    opens the same URL meets a machine of its own, never one another test left in some state."""
    yield
    from dealer.dealing import sim_ports

    sim_ports.stop_all()


@pytest.fixture
def data_dir() -> Path:
    """tests/data: reference files copied into the project."""
    return DATA
