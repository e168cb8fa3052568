"""Bounds before work: a board range, a board count or a number of copies that no session can hold is
refused in one line before anything is expanded, run as a user runs it under a memory limit (as
`ulimit -v 2000000` would set) so that a list made first would end in a MemoryError or a kill."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from dealer import formats
from tests.support.controllers import deal_set
from tests.support.processes import ENV

MEMORY: int = 2_000_000 * 1024
"""The address space each command gets, in bytes (`ulimit -v 2000000`)."""


def limited(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dealer", *args], cwd=cwd, env=ENV, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY)))


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "s.pbn"
    formats.write_file(path, deal_set(7, 32))
    return path


def assert_refused(proc: subprocess.CompletedProcess[str], code: int, *words: str) -> None:
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == code, proc.stderr
    assert len(lines) == 1 and lines[0].startswith("dealer: error: "), proc.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.parametrize("command", [
    ("deal", "s.pbn", "--port", "sim://", "--boards", "1-999999999"),
    ("convert", "s.pbn", "out.dup", "--boards", "1-999999999"),
    ("records", "s.pbn", "-o", "out.html", "--boards", "5,9-999999999"),
])
def test_a_board_range_beyond_the_file_is_refused_before_it_is_expanded(session: Path, command: tuple[str, ...]
                                                                          ) -> None:
    before = set(session.parent.iterdir())
    assert_refused(limited(*command, cwd=session.parent), 2, "s.pbn: has no board 33-999999999")
    assert set(session.parent.iterdir()) == before


def test_labels_for_more_boards_than_a_label_carries_are_refused(tmp_path: Path) -> None:
    proc = limited("labels", "--set", "A", "--boards", "1-999999999", "-o", "l.svg", cwd=tmp_path)
    assert_refused(proc, 2, "beyond 9999", "board label")
    assert list(tmp_path.iterdir()) == []


def test_copies_beyond_a_room_are_refused(session: Path) -> None:
    assert_refused(limited("deal", "s.pbn", "--port", "sim://", "--copies", "100000", cwd=session.parent), 2,
                   "100000 copies", "at most 99")


@pytest.mark.parametrize(("boards", "copies", "words"), [
    ('"1-999999999"', 2, ("sessions[1].boards", "beyond 9999")),
    ("999999999", 2, ("sessions[1].boards", "beyond 9999")),
    ('"1-32"', 100000, ("sessions[1].sections[1].copies", "at most 99")),
])
def test_a_plan_that_no_room_holds_is_refused_before_it_is_expanded(tmp_path: Path, boards: str, copies: int,
                                                                     words: tuple[str, ...]) -> None:
    (tmp_path / "p.toml").write_text(f'[event]\nname = "x"\n[[sessions]]\nname = "S"\nboards = {boards}\n'
                                     f'source = "bigdeal"\n[[sessions.sections]]\nname = "A"\ncopies = {copies}\n')
    assert_refused(limited("plan", "p.toml", cwd=tmp_path), 3, *words)
