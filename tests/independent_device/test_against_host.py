"""`dealer deal` against the independent device: the device's ledger says what went into each board.

The deal file is read here on its own (PBN's `Deal` tag), not through the host's readers, and every
board's pockets as the ledger left them must hold exactly its deal, dealt once.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.independent_device.dealing import assert_each_board_holds_its_deal, deal_and_read_ledger, pbn_hands

pytestmark = pytest.mark.pty
SEATS = "NESW"


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
