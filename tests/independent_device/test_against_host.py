"""`dealer deal` against the independent device: the device's ledger says what went into each board.

The deal file is read here on its own (PBN's `Deal` tag), not through the host's readers, and every
board's pockets as the ledger left them must hold exactly its deal, dealt once.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.independent_device.ledger import boards_as_dealt, read_ledger
from tests.support.independent_device.running import practice_env, running_device

pytestmark = pytest.mark.pty
SEATS = "NESW"


def pbn_hands(path: Path) -> dict[int, dict[str, set[str]]]:
    """Board number -> seat -> cards (`SA`, `H2` ...), read from the PBN `Board` and `Deal` tags."""
    hands: dict[int, dict[str, set[str]]] = {}
    board = None
    for line in path.read_text(encoding="utf-8").splitlines():
        found = re.match(r'\[Board "(\d+)"\]', line)
        if found:
            board = int(found.group(1))
        found = re.match(r'\[Deal "([NESW]):([^"]*)"\]', line)
        if found and board is not None:
            first = SEATS.index(found.group(1))
            seats: dict[str, set[str]] = {}
            for i, hand in enumerate(found.group(2).split()):
                seats[SEATS[(first + i) % 4]] = {
                    suit + rank for suit, holding in zip("SHDC", hand.split("."), strict=True) for rank in holding
                }
            hands[board] = seats
    return hands


def dealer(env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dealer", *args], env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def deal_and_read_ledger(
    tmp_path: Path, boards: int, sets: list[str], *deal_options: str, device: tuple[str, ...] = (),
    said: list[str] | None = None
) -> tuple[list[dict[str, Any]], Path]:
    """`dealer generate` then `dealer deal` on the independent device; the ledger's records."""
    env = practice_env(tmp_path)
    session = tmp_path / "session.pbn"
    assert dealer(env, "generate", "--boards", f"1-{boards}", "-o", str(session)).returncode == 0
    assert dealer(env, "history", "init", env["DEALER_HISTORY"]).returncode == 0
    rack = [option for name in sets for option in ("--set", f"{name}:1-{boards}")]
    with running_device(tmp_path / "device", *rack, *device) as machine:
        run = dealer(env, "deal", str(session), "--port", machine.port, "--plain", *deal_options)
    assert run.returncode == 0, run.stderr[-2000:]
    assert f"{boards * len(sets)}/{boards * len(sets)} boards verified" in run.stdout
    if said is not None:
        said += run.stderr.splitlines()
    return read_ledger(machine.ledger), session


def assert_each_board_holds_its_deal(records: list[dict[str, Any]], session: Path, board_set: str) -> None:
    as_dealt = boards_as_dealt(records)
    hands = pbn_hands(session)
    for board, seats in hands.items():
        (label,) = [label for label in as_dealt if label.startswith(f"{board_set}:{board}:")]
        pockets = as_dealt[label]
        assert {seat: set(pockets[seat]) for seat in SEATS} == seats, f"board {board} of set {board_set}"
        assert all(len(pockets[seat]) == 13 for seat in SEATS)


def test_sixteen_boards_dealt_by_dealer_deal_are_each_dealt_once_as_the_file_says(tmp_path: Path) -> None:
    records, session = deal_and_read_ledger(tmp_path, 16, ["A"])
    dealings = [r for r in records if r["what"] == "dealing"]
    assert sorted(r["board"] for r in dealings) == list(range(1, 17))  # each board dealt once
    assert all(r["outcome"] == "complete" and r["turns"] == 0 for r in dealings)
    assert sorted(pbn_hands(session)) == list(range(1, 17))
    assert_each_board_holds_its_deal(records, session, "A")


def test_two_copies_go_into_two_sets_each_dealing_with_its_own_job(tmp_path: Path) -> None:
    records, session = deal_and_read_ledger(tmp_path, 4, ["A1", "A2"], "--copies", "2")
    dealings = [r for r in records if r["what"] == "dealing"]
    assert sorted(r["label"].split(":")[0] for r in dealings) == ["A1"] * 4 + ["A2"] * 4
    assert len({r["job"] for r in dealings}) == 8  # section 7.2: each copy of a board gets a new job
    for board_set in ("A1", "A2"):
        assert_each_board_holds_its_deal(records, session, board_set)


def test_a_board_redealt_after_a_misfeed_gets_a_new_job(tmp_path: Path) -> None:
    records, session = deal_and_read_ledger(tmp_path, 3, ["A"], device=("--fault", "2@20=MISFEED"))
    dealings = [r for r in records if r["what"] == "dealing"]
    assert [(r["board"], r["outcome"]) for r in dealings if r["board"] == 2] == [
        (2, "fault MISFEED"),
        (2, "complete"),
    ]
    assert len({r["job"] for r in dealings}) == len(dealings)  # section 7.2: every dealing its own job
    assert_each_board_holds_its_deal(records, session, "A")
