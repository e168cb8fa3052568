"""Fault plans: the JSON form, validation errors that name the fault and field, when faults fire."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hil.fault_plan import FaultEngine, FaultKind, FaultPlan, FaultPlanError, FaultSpec
from hil.scenarios import SCENARIOS


def test_a_plan_round_trips_through_json(tmp_path: Path) -> None:
    plan = FaultPlan.of({"kind": "jam", "board": 2, "card": 30},
                        {"kind": "flip", "rate": 0.01, "direction": "to_device"},
                        {"kind": "unplug", "frame": 9, "replug": False}, seed=5)
    path = tmp_path / "plan.json"
    path.write_text(plan.dumps())
    assert FaultPlan.load(path) == plan
    assert json.loads(plan.dumps())["faults"][0] == {"kind": "jam", "board": 2, "card": 30}


def test_every_scenario_plan_round_trips() -> None:
    for scenario in SCENARIOS:
        assert FaultPlan.from_json(json.loads(scenario.plan.dumps())) == scenario.plan


def test_a_bare_list_is_a_plan() -> None:
    assert FaultPlan.from_json([{"kind": "drop", "frame": 3}]).faults == (FaultSpec(FaultKind.DROP, frame=3),)


@pytest.mark.parametrize(("obj", "message"), [
    ([{"kind": "jamm", "board": 1}], "fault 1: unknown kind 'jamm'"),
    ([{"kind": "jam", "board": 1, "pocket": 2}], "fault 1 (jam): pocket does not apply"),
    ([{"kind": "jam"}], "fault 1 (jam): needs a trigger"),
    ([{"kind": "jam", "board": 1, "card": 53}], "card must be 1..52, got 53"),
    ([{"kind": "drop", "rate": 2}], "rate must be in (0, 1]"),
    ([{"kind": "drop", "frame": "3"}], "frame must be a whole number"),
    ([{"kind": "misfeed", "board": 1, "detected": "yes"}], "detected must be true or false"),
    ([{"kind": "drop", "frame": 0}], "frame counts from 1"),
    ([{"kind": "bad_label"}], "needs board_number"),
    ([{"kind": "drop", "frame": 1, "direction": "up"}], "direction must be"),
    ({"fault": []}, "unknown key 'fault'"),
    ([{"board": 1}], "a fault is an object with a \"kind\""),
])
def test_a_bad_plan_is_refused_naming_the_fault_and_field(obj: object, message: str) -> None:
    with pytest.raises(FaultPlanError, match=message.replace("(", r"\(").replace(")", r"\)")):
        FaultPlan.from_json(obj, "plan")


def test_a_plan_file_that_is_not_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"faults": [\n  {"kind": "jam",, }\n]}')
    with pytest.raises(FaultPlanError, match=r"bad.json: line 2"):
        FaultPlan.load(path)


def test_a_point_fault_fires_once_at_its_point() -> None:
    engine = FaultEngine(FaultPlan.of({"kind": "jam", "board": 2, "card": 5}))
    engine.start_dealing()
    assert engine.at_card(5) == []
    engine.start_dealing()
    assert [f.kind for f in engine.at_card(5)] == [FaultKind.JAM]
    assert engine.at_card(5) == []  # a resumed card does not jam again
    assert engine.log == ["jam at board 2 card 5"]


def test_a_fault_with_a_board_but_no_card_picks_its_card_from_the_seed() -> None:
    def card_of(seed: int) -> int:
        engine = FaultEngine(FaultPlan.of({"kind": "jam", "board": 1}), seed)
        engine.start_dealing()
        return next(c for c in range(1, 53) if engine.at_card(c))

    assert card_of(1) == card_of(1)
    assert len({card_of(s) for s in range(8)}) > 1


def test_a_rate_fires_about_that_often_and_always_the_same_way() -> None:
    def firings(seed: int) -> list[int]:
        engine = FaultEngine(FaultPlan.of({"kind": "card_falls", "rate": 0.1}), seed)
        engine.start_dealing()
        return [c for c in range(1, 1001) if engine.at_card(c)]

    assert firings(3) == firings(3)
    assert 60 <= len(firings(3)) <= 140


def test_a_card_rate_with_a_board_has_its_chances_in_that_dealing_only() -> None:
    engine = FaultEngine(FaultPlan.of({"kind": "misfeed", "board": 2, "rate": 1.0, "times": 52}))
    engine.start_dealing()
    assert all(engine.at_card(c) == [] for c in range(1, 53))
    engine.start_dealing()
    assert all(len(engine.at_card(c)) == 1 for c in range(1, 53))
    engine.start_dealing()
    assert engine.at_card(1) == []


def test_times_caps_a_rate() -> None:
    engine = FaultEngine(FaultPlan.of({"kind": "wrong_board", "rate": 1.0, "times": 2}))
    assert [bool(engine.insertion()) for _ in range(4)] == [True, True, False, False]


def test_frame_and_label_triggers() -> None:
    engine = FaultEngine(FaultPlan.of({"kind": "power_loss", "frame": 3}, {"kind": "bad_label", "board_number": 7}))
    assert [bool(engine.frame_received()) for _ in range(4)] == [False, False, True, False]
    assert engine.label_faults(6) == [] and [f.kind for f in engine.label_faults(7)] == [FaultKind.BAD_LABEL]
