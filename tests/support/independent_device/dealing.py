"""`dealer deal` run against the independent device as a new user runs it, and what the device's ledger says went
into each board, read against the deal file on its own (PBN's `Deal` tag), not through the host's readers."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.independent_device.ledger import boards_as_dealt, read_ledger
from tests.support.independent_device.running import practice_env, running_device

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
    said: list[str] | None = None, module: str = "tests.support.independent_device"
) -> tuple[list[dict[str, Any]], Path]:
    """`dealer generate` then `dealer deal` on the independent device (or the device `module` serves); the
    ledger's records. `said`: what the run printed on standard error."""
    env = practice_env(tmp_path)
    session = tmp_path / "session.pbn"
    assert dealer(env, "generate", "--boards", f"1-{boards}", "-o", str(session)).returncode == 0
    assert dealer(env, "history", "init", env["DEALER_HISTORY"]).returncode == 0
    rack = [option for name in sets for option in ("--set", f"{name}:1-{boards}")]
    with running_device(tmp_path / "device", *rack, *device, module=module) as machine:
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
