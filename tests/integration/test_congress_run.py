"""`dealer deal --plan` in memory: a congress plan dealt on simulated machines over in-memory cables, in
virtual time, every outcome cross-checked with the simulators' ledgers."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealer.core.errors import DealReused, JournalError
from dealer.dealing.context import RunLimits
from dealer.dealing.machine import Machine
from dealer.dealing.run import RunOptions, RunResult
from dealer.dealing.sim_ports import loopback_opener
from dealer.journal.store import JobState, Journal
from dealer.plan import Plan, PlanError
from dealer.plan.run import deal_plan
from hil.config import SimConfig
from hil.fault_plan import FaultPlan
from hil.loopback import Loopback
from tests.support.congress import SessionText, check_against_ledgers, histories, label_of, plan_text


@pytest.fixture(autouse=True)
def _no_leaks(hil_leak_check: None) -> Iterator[None]:
    yield


TWO_SESSIONS = (SessionText("FRI", "1-3", (("A", ("A1", "A2")), ("B", ("B1", "B2")))),
                SessionText("SAT", "1-3", (("A", ("C1", "C2")), ("B", ("D1", "D2")))))


class Room:
    """Simulated machines by port URL, each on an in-memory cable in its own virtual time."""

    def __init__(self, faults: dict[str, FaultPlan] | None = None) -> None:
        self.faults = faults or {}
        self.loops: dict[str, Loopback] = {}

    def loop(self, url: str) -> Loopback:
        if url not in self.loops:
            self.loops[url] = Loopback(SimConfig(seed=len(self.loops) + 1, faults=self.faults.get(url, FaultPlan())))
        return self.loops[url]

    def machine(self, url: str) -> Machine:
        loop = self.loop(url)
        clock: Any = loop.clock

        def sleep(seconds: float) -> None:  # virtual time; the real pause only lets the other stations run
            clock.sleep(seconds)
            time.sleep(0.001)

        return Machine(url, opener=loopback_opener(loop), clock=clock, sleep=sleep, reconnect_timeout=5)

    def close(self) -> None:
        for loop in self.loops.values():
            loop.close()

    @property
    def ledgers(self) -> list[Any]:
        return [loop.device.ledger for loop in self.loops.values()]

    @property
    def racks(self) -> list[Any]:
        return [loop.device.room.rack.in_use() for loop in self.loops.values()]


@pytest.fixture
def room() -> Iterator[Room]:
    r = Room()
    yield r
    r.close()


def sorted_hands(record: Any) -> list[list[int]]:
    return [sorted(hand) for hand in record.hands()]


def write_plan(folder: Path, machines: int, sessions: tuple[SessionText, ...], **kw: Any) -> Plan:
    path = folder / "congress.toml"
    path.write_text(plan_text([(f"M{k}", f"sim://m{k}") for k in range(1, machines + 1)], sessions, **kw))
    return Plan.load(path)


def deal(plan: Plan, room: Room, sessions: list[str] | None = None, **kw: Any) -> tuple[RunResult, str]:
    out = io.StringIO()
    options = RunOptions(ports=[], journal=plan.event.journal, machine_factory=room.machine, out=out,
                         limits=RunLimits(board_timeout=120, deal_timeout=120), **kw)
    return deal_plan(plan, options, sessions), out.getvalue()


def test_a_copy_dealt_wrong_is_a_copy_mismatch_redealt_to_the_same_deal(tmp_path: Path) -> None:
    # one machine, set order: A1 boards 1-3, then A2 boards 1-3; its 5th dealing is copy 2 of board 2,
    # and a card of it silently goes into the wrong pocket
    plan = write_plan(tmp_path, 1, (SessionText("FRI", "1-3", (("A", ("A1", "A2")),)),))
    room = Room({"sim://m1": FaultPlan.of({"kind": "misfeed", "board": 5, "card": 20})})
    try:
        result, text = deal(plan, room)
        jobs = check_against_ledgers(plan, plan.event.journal, room.ledgers, room.racks)
        ledger = room.ledgers[0]
    finally:
        room.close()
    assert result.complete, text
    by_copy = {(h.job.board, h.job.copy): h for h in jobs}
    wrong = by_copy[2, 2]
    assert "F9" in wrong.faults and wrong.redeals == 1 and wrong.dealings == 2
    assert all(h.redeals == 0 for key, h in by_copy.items() if key != (2, 2))
    # copy 2 came out wrong, was redealt from the same deal as copy 1 and verified against it
    first, second = ledger.for_label(label_of(wrong.job))
    original = ledger.for_label(label_of(by_copy[2, 1].job))[0]
    assert first.deal == second.deal == original.deal
    assert sorted_hands(first) != sorted_hands(original) and sorted_hands(second) == sorted_hands(original)
    assert wrong.layouts == by_copy[2, 1].layouts == [wrong.job.deal_hash]
    assert "copy mismatch" in text and "Law 6F" in text


def test_a_congress_deals_every_session_from_one_queue_on_every_machine(tmp_path: Path, room: Room) -> None:
    plan = write_plan(tmp_path, 3, TWO_SESSIONS)
    result, text = deal(plan, room, report=tmp_path / "report.json")
    jobs = check_against_ledgers(plan, plan.event.journal, room.ledgers, room.racks)
    assert result.complete and result.jobs == 24 and len(result.run_ids) == 2, text
    assert {h.session for h in jobs} == {"FRI", "SAT"}
    assert {h.job.machine for h in jobs} == {"M1", "M2", "M3"}
    with Journal.open(plan.event.journal) as journal:
        runs = journal.runs()
        assert [(r.name, r.finished) for r in runs] == [("FRI", True), ("SAT", True)]
        # the sessions are taken in plan order: FRI's boards were all claimed before SAT's first
        claims = {h.job.id: min(e.id for e in journal.events(h.job.run_id, h.job.id) if e.state is JobState.LOADED)
                  for h in jobs}
    body = json.loads((tmp_path / "report.json").read_text())
    assert body["verified"] == body["jobs"] == 24 and body["sessions"] == {"FRI": 1, "SAT": 2}
    assert sum(m["verified"] for m in body["report"]["machines"].values()) == 24
    assert [(s["name"], s["verified"]) for s in body["report"]["sessions"]] == [("FRI", 12), ("SAT", 12)]
    fri = [claims[h.job.id] for h in jobs if h.session == "FRI"]
    sat = [claims[h.job.id] for h in jobs if h.session == "SAT"]
    assert max(fri) < min(sat)

    again, said = deal(plan, room)  # a second run deals nothing: every session is finished
    assert again.complete and "dealt already" in said
    assert sum(len(ledger.records) for ledger in room.ledgers) == 24


def test_law_6d2_is_checked_per_session_against_the_journal(tmp_path: Path, room: Room) -> None:
    plan = write_plan(tmp_path, 1, (SessionText("MON", "1-2", (("A", ("A1",)),)),))
    with Journal.open(plan.event.journal) as journal:  # these deals were dealt before, by another run
        journal.begin_run("club night", "club.pbn", plan.deal_set("MON"), [])
    with pytest.raises(DealReused, match=r"MON: Law 6D2: .* run 1 \(club night\).*replay = true"):
        deal(plan, room)
    with Journal.open(plan.event.journal) as journal:
        assert [r.name for r in journal.runs()] == ["club night"]  # nothing begun
    replay = tmp_path / "replay"
    replay.mkdir()
    text = (tmp_path / "congress.toml").read_text().replace('boards = "1-2"', 'boards = "1-2"\nreplay = true')
    (replay / "congress.toml").write_text(text.replace('journal = "congress.journal"',
                                                       f'journal = "{plan.event.journal}"\n'
                                                       f'deal_folder = "{tmp_path / "deals"}"'))
    result, _ = deal(Plan.load(replay / "congress.toml"), room)
    assert result.complete and result.jobs == 2


def test_a_later_session_that_replays_an_earlier_one_needs_replay_in_the_plan(tmp_path: Path, room: Room) -> None:
    sessions = (SessionText("FRI", "1-2", (("A", ("A1",)),)),
                SessionText("SUN", "1-2", (("A", ("S1",)),), replay_of="FRI"))
    plan = write_plan(tmp_path, 2, sessions)
    result, _ = deal(plan, room)
    check_against_ledgers(plan, plan.event.journal, room.ledgers, room.racks)
    assert result.complete and result.jobs == 4
    with Journal.open(plan.event.journal) as journal:
        assert [(r.name, r.replay) for r in journal.runs()] == [("FRI", False), ("SUN", True)]
    text = (tmp_path / "congress.toml").read_text().replace("replay = true\n", "")
    (tmp_path / "congress.toml").write_text(text)
    with pytest.raises(PlanError, match="sessions\\[2\\].source.*Law 6D2"):
        deal(Plan.load(tmp_path / "congress.toml"), room)


def test_two_sessions_into_the_same_boards_are_refused_together(tmp_path: Path, room: Room) -> None:
    sessions = (SessionText("FRI", "1-2", (("A", ("A1",)),)), SessionText("SAT", "2-3", (("A", ("A1",)),)))
    plan = write_plan(tmp_path, 1, sessions)
    with pytest.raises(PlanError, match="sessions FRI and SAT both deal into board 2 of set A1.*--session"):
        deal(plan, room)
    with Journal.open(plan.event.journal) as journal:
        assert journal.runs() == []
    first, _ = deal(plan, room, ["FRI"])
    assert first.complete and first.jobs == 2


def test_a_lost_machine_leaves_the_congress_to_resume_exactly(tmp_path: Path, room: Room) -> None:
    # M2's cable is pulled during its 2nd dealing and never comes back: its board is left half-dealt
    room.faults = {"sim://m2": FaultPlan.of({"kind": "unplug", "board": 2, "card": 30, "replug": False})}
    plan = write_plan(tmp_path, 2, TWO_SESSIONS)
    first, _ = deal(plan, room)
    assert not first.complete and first.errors and "M2" in first.errors[0]
    with pytest.raises(JournalError, match="unfinished; continue it with --resume"):
        deal(plan, room)
    room.loops["sim://m2"].replug()
    result, text = deal(plan, room, resume=True)
    assert result.complete, text
    jobs = check_against_ledgers(plan, plan.event.journal, room.ledgers, room.racks)
    assert sum(h.dealings for h in jobs) == 24 + sum(h.redeals for h in jobs)
    with pytest.raises(JournalError, match="no unfinished run"):
        deal(plan, room, resume=True)


def test_the_journal_keeps_no_deal(tmp_path: Path, room: Room) -> None:
    plan = write_plan(tmp_path, 1, (SessionText("FRI", "1", (("A", ("A1",)),)),))
    deal(plan, room)
    raw = plan.event.journal.read_bytes()
    from dealer.core.cards import pack
    assert bytes(pack(plan.deal_set("FRI").deals)[0]) not in raw
    assert histories(plan.event.journal)[0].layouts


def test_a_plan_without_machines_is_refused(tmp_path: Path, room: Room) -> None:
    plan = write_plan(tmp_path, 0, (SessionText("FRI", "1", (("A", ("A1",)),)),))
    with pytest.raises(PlanError, match="names no machines"):
        deal(plan, room)
