"""SimConfig from options and from sim:// URLs; the physical rack and room."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware_protocol import Capability
from firmware_protocol.labels import BoardLabel
from hil.config import SimConfig, SimConfigError
from hil.fault_plan import FaultKind
from hil.physical import LabelState, Rack, board_of_label, label_of


def test_a_sim_url_sets_every_option(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"faults": [{"kind": "jam", "board": 1, "card": 3}]}))
    config = SimConfig.from_url(f"sim://?speed=50&seed=7&set=RED&boards=1-4,9&copies=2&faults={plan}"
                                f"&link={tmp_path / 'sim'}&keeps_job=1")
    assert (config.speed, config.seed, config.set_name, config.boards, config.copies) == (
        50.0, 7, "RED", (1, 2, 3, 4, 9), 2)
    assert config.faults.faults[0].kind is FaultKind.JAM
    assert config.link == str(tmp_path / "sim")
    assert config.all_capabilities & Capability.KEEPS_JOB_OVER_POWER_LOSS
    assert not config.open_rack


def test_a_bare_sim_url_is_the_default_machine() -> None:
    config = SimConfig.from_url("sim://")
    assert config == SimConfig() and config.open_rack and config.rack_set == "A"


@pytest.mark.parametrize(("url", "message"), [
    ("sim://?sped=3", "unknown option 'sped'"),
    ("sim://?speed=fast", "speed must be a number, got 'fast'"),
    ("sim://?noise=lots", "noise must be a number, got 'lots'"),
    ("sim://?noise=0.5x", "noise must be a number"),
    ("sim://?noise=1", "noise must be at least 0 and below 1"),
    ("sim://?speed=0", "speed must be 0.01 to 10000"),
    ("sim://?boards=3-1", "runs backwards"),
    ("sim://?faults=/no/such/plan.json", "no such file or folder"),
    ("loop://", "not a sim:// URL"),
    ("sim://?set=R-D", "letters"),
    ("sim://?set=ABCDEFGHIJKLM", "1 to 12"),
])
def test_a_bad_sim_url_is_refused_with_a_clear_message(url: str, message: str) -> None:
    with pytest.raises(SimConfigError, match=message):
        SimConfig.from_url(url)


def test_a_rack_has_its_boards_in_order_with_conforming_labels() -> None:
    rack = Rack("RED", (3, 4), copies=2)
    assert [b.ident for b in rack] == ["RED:3#1", "RED:3#2", "RED:4#1", "RED:4#2"]
    for board in rack:
        assert BoardLabel.parse(board.label.decode()).conforms
    assert board_of_label(label_of("RED", 4)) == ("RED", 4)
    assert board_of_label(b"junk") is None


def test_a_closed_rack_replaces_a_bad_board_with_a_spare_unless_it_has_none() -> None:
    rack = Rack("A", (1,))
    (bad,) = rack.boards
    bad.label = b"A:1:E0:X"
    spare = rack.find_label(label_of("A", 1))
    assert spare is not None and spare is not bad and bad.retired
    rack2 = Rack("A", (1,))
    rack2.boards[0].label, rack2.boards[0].replaceable = b"A:1:E0:X", False
    assert rack2.find_label(label_of("A", 1)) is None
    assert rack2.boards[0].label_state is LabelState.OK
