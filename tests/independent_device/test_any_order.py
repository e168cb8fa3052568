"""Boards in any order (PROTOCOL.md 6.1, the display-less machine): the host reads the label of whatever board is
in the machine, the one found there after the handshake included, and deals it if it is a board of the run still
to deal. The independent device has no display here, and its operator puts the boards in on their own, one
whenever the slot is empty: in the rack's order, then as they come to hand. Judged by the device's ledger: every
board dealt once, and holding its deal from the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.independent_device.dealing import assert_each_board_holds_its_deal, deal_and_read_ledger

pytestmark = pytest.mark.pty


def dealt_in_order(records: list[dict[str, object]]) -> list[object]:
    return [r["board"] for r in records if r["what"] == "dealing"]


def test_a_display_less_machine_whose_operator_puts_boards_in_in_order_deals_them_all(tmp_path: Path) -> None:
    said: list[str] = []
    records, session = deal_and_read_ledger(tmp_path, 8, ["A"], device=("--no-display", "--unprompted", "rack"),
                                            said=said)
    assert dealt_in_order(records) == list(range(1, 9))
    # whenever the host waits for a board, its screen names every board not yet dealt (the operator, quicker than
    # the host, may have put the next board in before it asked)
    verified = 0
    for line in said:
        verified += ": verified (" in line
        if ": put in any board still to deal" in line:
            left = f"{verified + 1}-8" if verified < 7 else "8"
            assert line.endswith(f": put in any board still to deal: A {left}"), (line, said)
    assert not [line for line in said if "REFUSED" in line], said
    assert_each_board_holds_its_deal(records, session, "A")


def test_a_display_less_machine_deals_boards_put_in_in_any_order(tmp_path: Path) -> None:
    records, session = deal_and_read_ledger(tmp_path, 16, ["A"],
                                            device=("--no-display", "--unprompted", "random", "--seed", "7"))
    order = dealt_in_order(records)
    assert sorted(order) == list(range(1, 17))  # each board once
    assert order != sorted(order)  # and not in the file's order: as the operator put them in
    assert_each_board_holds_its_deal(records, session, "A")
    loads = {line.split("'job': ")[1].split(",")[0] for line in (tmp_path / "device" / "device.log").read_text(
        encoding="utf-8").splitlines() if "command LOAD_DEAL" in line}
    assert len(loads) == 16, sorted(loads)  # one LoadDeal a board: each loaded once its label is read
