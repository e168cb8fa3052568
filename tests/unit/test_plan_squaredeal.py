"""SquareDeal sessions as plan sources, against the World Bridge Games 2024 files."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from dealer import formats
from dealer.plan import Plan, PlanError, SquareDealSource
from tests.support.plan_texts import write

WBG = Path(__file__).resolve().parents[1] / "data" / "squaredeal" / "WBG2024"


def plan_text(source: str, boards: str = "", extra: str = "") -> str:
    return f'''\
[event]
name = "WBG 2024 replay room"

[[sessions]]
name = "FIN1"
{boards}source = {source}

[[sessions.sections]]
name = "OPEN"
sets = ["T1", "T2"]
{extra}'''


def sqd_source(**more: str) -> str:
    keys = [f'squaredeal = "{WBG / "WBG2024.sqd"}"'] + [f"{k} = {v}" for k, v in more.items()]
    return "{ " + ", ".join(keys) + " }"


def test_a_squaredeal_session_regenerates_the_published_deals(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, plan_text(sqd_source())))
    session = plan.sessions[0]
    assert session.source == SquareDealSource(WBG / "WBG2024.sqd", WBG / "WBG2024.sqk", "FIN1", False)
    assert session.boards == tuple(range(1, 17))
    assert plan.deal_set(session).same_deals(formats.read_file(WBG / "FIN1.pbn"))
    assert plan.generate() == [] and not (tmp_path / "deals").exists()


def test_the_session_named_and_the_phases_board_cycle(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, plan_text(sqd_source(session='"FIN2"'))))
    assert plan.sessions[0].boards == tuple(range(17, 33))
    assert plan.deal_set("FIN1").same_deals(formats.read_file(WBG / "FIN2.pbn"))


def test_a_joined_run_of_sessions(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, plan_text(sqd_source(session='"FIN1-2"'))))
    assert plan.sessions[0].boards == tuple(range(1, 33))
    assert plan.deal_set("FIN1").same_deals(formats.read_file(WBG / "FIN1-2.pbn"))


def test_some_boards_of_the_session(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, plan_text(sqd_source(), boards='boards = "5-8"\n')))
    assert np.array_equal(plan.deal_set("FIN1").deals, formats.read_file(WBG / "FIN1.pbn").deals[4:8])


def test_boards_beyond_the_session_are_refused(tmp_path: Path) -> None:
    text = plan_text(sqd_source(), boards='boards = "1-20"\n')
    err = pytest.raises(PlanError, Plan.load, write(tmp_path, text)).value
    assert (err.line, err.field) == (None, "sessions[1].boards")
    assert str(err).endswith("SquareDeal session FIN1 of WBG2024.sqd holds boards 1-16, not 17-20")


def test_the_reserve_set_is_another_set_of_deals_for_the_same_boards(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, plan_text(sqd_source(reserve="true"))))
    reserve = plan.deal_set("FIN1")
    original = formats.read_file(WBG / "FIN1.pbn")
    assert list(reserve.boards) == list(original.boards)
    assert not set(reserve.deal_hashes()) & set(original.deal_hashes())


def test_a_session_the_sqd_does_not_define(tmp_path: Path) -> None:
    text = plan_text(sqd_source(session='"FIN7"'))
    err = pytest.raises(PlanError, Plan.load, write(tmp_path, text)).value
    assert (err.line, err.field) == (None, "sessions[1].source.session")
    assert "'FIN7' names no session" in str(err) and "FIN# (6 sessions)" in str(err)


def test_the_default_session_name_is_the_plan_sessions_and_is_explained(tmp_path: Path) -> None:
    text = plan_text(sqd_source()).replace('name = "FIN1"', 'name = "FINAL"')
    err = pytest.raises(PlanError, Plan.load, write(tmp_path, text)).value
    assert err.field == "sessions[1].source" and "give session = ..." in str(err)


def test_a_key_file_that_does_not_match_the_key_hash(tmp_path: Path) -> None:
    data = (WBG / "WBG2024.sqk").read_bytes()
    first_key = data.index(b":") + 1
    changed = data[:first_key] + (b"b" if data[first_key:first_key + 1] != b"b" else b"c") + data[first_key + 1:]
    (tmp_path / "changed.sqk").write_bytes(changed)
    text = plan_text(sqd_source(sqk='"changed.sqk"'))
    err = pytest.raises(PlanError, Plan.load, write(tmp_path, text)).value
    assert (err.line, err.field) == (None, "sessions[1].source.sqk")
    assert "does not match the key hash" in str(err)


def test_no_key_file_beside_the_sqd(tmp_path: Path) -> None:
    shutil.copy(WBG / "WBG2024.sqd", tmp_path / "WBG2024.sqd")
    text = plan_text('{ squaredeal = "WBG2024.sqd" }')
    err = pytest.raises(PlanError, Plan.load, write(tmp_path, text)).value
    assert err.field == "sessions[1].source.squaredeal" and "no key file" in str(err)


def test_an_event_without_its_delayed_value(tmp_path: Path) -> None:
    sqd = (WBG / "WBG2024.sqd").read_text(encoding="utf-8")
    (tmp_path / "WBG2024.sqd").write_text("".join(line for line in sqd.splitlines(keepends=True)
                                                  if not line.startswith("DV ")), encoding="utf-8")
    shutil.copy(WBG / "WBG2024.sqk", tmp_path / "WBG2024.sqk")
    err = pytest.raises(PlanError, Plan.load, write(tmp_path, plan_text('{ squaredeal = "WBG2024.sqd" }'))).value
    assert err.field == "sessions[1].source.squaredeal" and "delayed value DV is not set" in str(err)


def test_a_file_of_the_same_deals_later_in_the_plan_breaks_law_6d2(tmp_path: Path) -> None:
    later = f'''
[[sessions]]
name = "CLUB"
source = {{ file = "{WBG / 'FIN1.pbn'}" }}

[[sessions.sections]]
name = "A"
'''
    text = plan_text(sqd_source(), extra=later)
    plan = Plan.load(write(tmp_path, text))
    err = pytest.raises(PlanError, plan.check_reuse).value
    assert err.field == "sessions[2].source" and "Law 6D2" in str(err) and "'FIN1'" in str(err)
