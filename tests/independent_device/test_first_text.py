"""A machine built to the first published text of protocol version 1 (`tests.support.first_text_device`, written
from that text alone and kept as it was) goes on working with the host: `dealer deal` deals it a 16-board session,
every board once and holding its deal from the file, judged by the device's own ledger; the host says which
version the machine speaks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.independent_device.dealing import assert_each_board_holds_its_deal, deal_and_read_ledger

pytestmark = pytest.mark.pty


def test_a_machine_built_to_the_first_version_1_text_is_dealt_sixteen_boards(tmp_path: Path) -> None:
    said: list[str] = []
    records, session = deal_and_read_ledger(tmp_path, 16, ["A"], said=said, module="tests.support.first_text_device")
    dealings = [r for r in records if r["what"] == "dealing"]
    assert sorted(r["board"] for r in dealings) == list(range(1, 17))
    assert_each_board_holds_its_deal(records, session, "A")
    assert any("speaks protocol version 1" in line for line in said), said
