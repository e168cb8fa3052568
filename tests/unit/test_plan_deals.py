"""Deal sources of a plan: fresh deals generated once into a file that is then the record; existing
files; replays; Law 6D2 across sessions."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pytest_mock import MockerFixture

from dealer import engines, formats
from dealer.core.dealset import DealSet
from dealer.core.errors import OutputExistsError
from dealer.plan import Plan, PlanError, sources
from dealer.verify.board_check import FaultCategory
from tests.support.deals import random_deals
from tests.support.plan_texts import BASE, write

REPLAY = BASE + '''
[[sessions]]
name = "TUE1"
source = { deals_of = "MON1" }
replay = true

[[sessions.sections]]
name = "A"
'''


def deal_file(tmp_path: Path, name: str) -> Path:
    return tmp_path / "deals" / f"{name}.pbn"


def test_fresh_deals_are_generated_into_the_deal_folder(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, BASE))
    assert plan.needs_generation(plan.sessions[0])
    written = plan.generate()
    assert written == [deal_file(tmp_path, "MON1"), deal_file(tmp_path, "MON2")]
    for session, path in zip(plan.sessions, written, strict=True):
        on_disk = formats.read_file(path)
        assert list(on_disk.boards) == list(session.boards)
        assert plan.deal_set(session).same_deals(on_disk)
        assert not plan.needs_generation(session)
    assert not (tmp_path / "deals" / "MON1.seed").exists()  # no seed kept unless asked


def test_a_generated_file_is_read_never_regenerated(tmp_path: Path) -> None:
    path = write(tmp_path, BASE)
    first = Plan.load(path)
    first.generate()
    files = [deal_file(tmp_path, "MON1"), deal_file(tmp_path, "MON2")]
    before = [(f.read_bytes(), f.stat().st_mtime_ns) for f in files]
    second = Plan.load(path)
    assert second.generate() == []
    for session in second.sessions:
        assert second.deal_set(session).same_deals(first.deal_set(session.name))
    assert [(f.read_bytes(), f.stat().st_mtime_ns) for f in files] == before


def test_a_deal_file_put_in_place_is_the_record(tmp_path: Path) -> None:
    (tmp_path / "deals").mkdir()
    mine = DealSet.from_deals(random_deals(3, 4), [1, 2, 3, 4])
    formats.write_file(deal_file(tmp_path, "MON1"), mine)
    plan = Plan.load(write(tmp_path, BASE))
    assert not plan.needs_generation(plan.sessions[0])
    assert plan.generate() == [deal_file(tmp_path, "MON2")]
    assert np.array_equal(plan.deal_set("MON1").deals, mine.deals)


def test_a_generated_file_that_lacks_boards_of_the_plan_is_refused(tmp_path: Path) -> None:
    (tmp_path / "deals").mkdir()
    formats.write_file(deal_file(tmp_path, "MON1"), DealSet.from_deals(random_deals(3, 3)))
    err = pytest.raises(PlanError, Plan.load, write(tmp_path, BASE)).value
    assert (err.line, err.field) == (None, "sessions[1].boards")
    assert "generated earlier" in str(err) and "holds boards 1-3, not 4" in str(err)


def test_two_sessions_generate_different_deals(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, BASE.replace('boards = "5-7"', 'boards = "1-4"').replace(
        'boards = "6-7"', 'boards = "3-4"')))
    plan.generate()
    a, b = (plan.deal_set(s) for s in plan.sessions)
    assert not set(a.deal_hashes()) & set(b.deal_hashes())


def test_the_seed_file_reproduces_the_deal_file(tmp_path: Path) -> None:
    text = BASE.replace('owner = "Test Owner"', 'owner = "Test Owner"\nkeep_seeds = true')
    plan = Plan.load(write(tmp_path, text))
    plan.generate()
    seed_file = tmp_path / "deals" / "MON1.seed"
    assert stat.S_IMODE(seed_file.stat().st_mode) == 0o600
    record = dict(line.split(" ", 1) for line in seed_file.read_text().splitlines())
    assert record["engine"] == "bigdeal" and record["owner"] == "Test Owner"
    engine = engines.make_engine("bigdeal", bytes.fromhex(record["seed"]), record["owner"])
    assert np.array_equal(engine.deals(4), formats.read_file(deal_file(tmp_path, "MON1")).deals)


def test_a_stale_seed_file_stops_generation_before_anything_is_written(tmp_path: Path) -> None:
    text = BASE.replace('owner = "Test Owner"', 'owner = "Test Owner"\nkeep_seeds = true')
    (tmp_path / "deals").mkdir()
    (tmp_path / "deals" / "MON1.seed").write_text("old")
    plan = Plan.load(write(tmp_path, text))
    with pytest.raises(OutputExistsError):
        plan.generate()
    assert not deal_file(tmp_path, "MON1").exists()


def test_a_file_written_meanwhile_by_another_process_wins(tmp_path: Path, mocker: MockerFixture) -> None:
    theirs = DealSet.from_deals(random_deals(5, 4), [1, 2, 3, 4])
    real_write = formats.write_file

    def racing_write(path: Path, deals: DealSet, *args: Any, **kwargs: Any) -> None:
        real_write(path, theirs)  # the other process commits first
        real_write(path, deals, *args, **kwargs)

    mocker.patch.object(formats, "write_file", side_effect=racing_write)  # the module sources writes through
    got = sources.generate(tmp_path / "S.pbn", "bigdeal", (1, 2, 3, 4), owner=b"", event="E")
    assert np.array_equal(got.deals, theirs.deals)
    assert np.array_equal(formats.read_file(tmp_path / "S.pbn").deals, theirs.deals)


def test_showing_without_generate_writes_nothing_even_for_a_replay(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, REPLAY))
    assert plan.check_reuse() == []
    assert not (tmp_path / "deals").exists()


# --- existing files -------------------------------------------------------------------------------


def file_plan(tmp_path: Path, boards_line: str = "") -> str:
    formats.write_file(tmp_path / "old.pbn", DealSet.from_deals(random_deals(9, 6), [11, 12, 13, 14, 15, 16]))
    return BASE.replace('boards = "5-7"\nsource = "shuffle"', f'{boards_line}source = {{ file = "old.pbn" }}') \
        .replace('boards = "6-7"', 'boards = "12"')


def test_a_file_source_gives_the_files_boards(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, file_plan(tmp_path)))
    assert plan.sessions[1].boards == (11, 12, 13, 14, 15, 16)
    assert plan.deal_file(plan.sessions[1]) == tmp_path / "old.pbn"
    assert np.array_equal(plan.deal_set("MON2").deals, random_deals(9, 6))


def test_a_file_source_may_give_some_of_its_boards(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, file_plan(tmp_path, 'boards = "12-14"\n')))
    assert list(plan.deal_set("MON2").boards) == [12, 13, 14]
    assert np.array_equal(plan.deal_set("MON2").deals, random_deals(9, 6)[1:4])


def test_boards_beyond_the_file_are_refused(tmp_path: Path) -> None:
    text = file_plan(tmp_path, 'boards = "12-18"\n')
    err = pytest.raises(PlanError, Plan.load, write(tmp_path, text)).value
    assert (err.line, err.field) == (None, "sessions[2].boards")
    assert str(err).endswith("old.pbn holds boards 11-16, not 17-18")


def test_a_broken_deal_file_is_placed_at_the_plan_line_naming_it(tmp_path: Path) -> None:
    text = file_plan(tmp_path)
    (tmp_path / "old.pbn").write_text('[Board "1"]\n[Deal "N:AKQ.. ... ... ..."]\n')
    err = pytest.raises(PlanError, Plan.load, write(tmp_path, text)).value
    assert (err.line, err.field) == (None, "sessions[2].source.file")
    assert "old.pbn" in str(err)


# --- Law 6D2 across sessions ----------------------------------------------------------------------


def test_a_replay_session_deals_the_same_deals_and_is_noted(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, REPLAY))
    plan.generate()
    assert plan.deal_set("TUE1").same_deals(plan.deal_set("MON1"))
    notes = plan.check_reuse()
    assert [n.code for n in notes] == [FaultCategory.F10] and not notes[0].blocking
    assert "MON1" in notes[0].message


def test_an_imported_file_holding_an_earlier_sessions_deals_is_refused(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, BASE))
    plan.generate()
    formats.write_file(tmp_path / "old.pbn", plan.deal_set("MON1").select([2, 3]).renumbered([12, 13]))
    text = (BASE + '\n[[sessions]]\nname = "TUE1"\nsource = { file = "old.pbn" }\n\n'
            '[[sessions.sections]]\nname = "A"\n')
    plan = Plan.load(write(tmp_path, text))
    err = pytest.raises(PlanError, plan.check_reuse).value
    assert (err.line, err.field) == (None, "sessions[3].source")
    assert "F10" in str(err) and "Law 6D2" in str(err) and "boards 12-13" in str(err) and "'MON1'" in str(err)
    assert "replay = true" in str(err)
    marked = text.replace('source = { file = "old.pbn" }', 'source = { file = "old.pbn" }\nreplay = true')
    assert [n.code for n in Plan.load(write(tmp_path, marked)).check_reuse()] == [FaultCategory.F10]


def test_a_session_holding_one_deal_twice_is_refused(tmp_path: Path) -> None:
    deals = random_deals(4, 3)
    formats.write_file(tmp_path / "twice.pbn", DealSet.from_deals(np.vstack([deals, deals[:1]])))
    text = BASE.replace('boards = "5-7"\nsource = "shuffle"', 'source = { file = "twice.pbn" }') \
        .replace('boards = "6-7"', 'boards = "1-2"')
    plan = Plan.load(write(tmp_path, text))
    err = pytest.raises(PlanError, plan.check_reuse).value
    assert err.field == "sessions[2].source" and "F7" in str(err) and "boards 1, 4" in str(err)
