"""The journal's tests that hold for every store, as a contract: collected by tests/unit/test_journal.py on a
journal file and by tests/postgresql/test_journal_on_postgresql.py on a database, each module giving the
`place` fixture (where the journal is: a file's path, or a database's URL). Job life, Law 6D2's refusal,
consistency, claims by several machines, durability across a killed writer."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer.core.dealset import DealSet
from dealer.core.errors import DealReused, JournalError
from dealer.journal.events import CardsShown, EventKind, RecountFault, Redeal
from dealer.journal.jobplan import JobPlan
from dealer.journal.opening import open_journal
from dealer.journal.store import Job, JobState, Journal
from tests.support.deals import random_deals
from tests.support.paths import ROOT


@pytest.fixture
def journal(place: Path | str) -> Iterator[Journal]:
    j = open_journal(place)
    yield j
    j.close()


def session(seed: int = 1, n: int = 4) -> DealSet:
    return DealSet.from_deals(random_deals(seed, n))


def plan(deals: DealSet, copies: int = 1) -> list[JobPlan]:
    return [JobPlan(int(b), c) for b in deals.boards for c in range(1, copies + 1)]


def walk_to_verified(j: Journal, job_id: int, machine: str = "m1") -> None:
    for state in (JobState.LOADED, JobState.SCANNED, JobState.DEALING, JobState.DEALT, JobState.VERIFIED):
        j.advance(job_id, state, machine=machine)


def test_a_run_records_its_jobs_in_order(journal: Journal) -> None:
    deals = session()
    run = journal.begin_run("club", "s.pbn", deals, plan(deals, copies=2))
    jobs = journal.jobs(run.id)
    assert [(j.board, j.copy) for j in jobs] == [(b, c) for b in range(1, 5) for c in (1, 2)]
    assert all(j.state is JobState.PLANNED for j in jobs)
    assert jobs[0].deal_hash == jobs[1].deal_hash != jobs[2].deal_hash


def test_job_life_and_illegal_steps(journal: Journal) -> None:
    deals = session()
    run = journal.begin_run("club", "s.pbn", deals, plan(deals))
    job = journal.jobs(run.id)[0]
    with pytest.raises(JournalError, match="cannot go from planned to dealing"):
        journal.advance(job.id, JobState.DEALING)
    walk_to_verified(journal, job.id)
    assert journal.job(job.id).state is JobState.VERIFIED
    assert journal.job(job.id).machine == "m1"
    with pytest.raises(JournalError, match="cannot go from verified to planned"):
        journal.advance(job.id, JobState.PLANNED, Redeal())
    other = journal.jobs(run.id)[1]
    journal.advance(other.id, JobState.LOADED, machine="m1")
    with pytest.raises(JournalError, match="a step to faulted must say why"):
        journal.advance(other.id, JobState.FAULTED)


def test_has_event_finds_a_jobs_event_by_kind(journal: Journal) -> None:
    deals = session()
    run = journal.begin_run("club", "s.pbn", deals, plan(deals))
    first, second = journal.jobs(run.id)[:2]
    journal.note(run.id, CardsShown(faults_found=("F1",)), job_id=second.id, machine="m1")
    assert journal.has_event(second.id, EventKind.CARDS_SHOWN)
    assert not journal.has_event(first.id, EventKind.CARDS_SHOWN)
    assert not journal.has_event(second.id, EventKind.BOARD_MOVED)


def test_a_fault_redeals_the_same_job_as_a_new_attempt(journal: Journal) -> None:
    deals = session()
    run = journal.begin_run("club", "s.pbn", deals, plan(deals))
    job = journal.jobs(run.id)[0]
    for state in (JobState.LOADED, JobState.SCANNED, JobState.DEALING, JobState.DEALT, JobState.FAULTED):
        found = RecountFault(faults_found=("F1",)) if state is JobState.FAULTED else None
        journal.advance(job.id, state, found, machine="m1")
    again = journal.advance(job.id, JobState.PLANNED, Redeal())
    assert again.attempt == 2 and again.machine is None
    assert journal.check_consistency(run.id) == []


def test_uncertain_jobs_are_the_ones_that_may_hold_cards(journal: Journal) -> None:
    deals = session()
    run = journal.begin_run("club", "s.pbn", deals, plan(deals))
    a, b, c, _ = journal.jobs(run.id)
    for state in (JobState.LOADED, JobState.SCANNED, JobState.DEALING):
        journal.advance(a.id, state, machine="m1")
    journal.advance(b.id, JobState.LOADED, machine="m2")
    walk_to_verified(journal, c.id)
    assert [j.board for j in journal.uncertain_jobs(run.id)] == [a.board]


def test_law_6d2_refuses_a_deal_set_seen_in_another_run(journal: Journal) -> None:
    deals = session()
    journal.begin_run("monday", "mon.pbn", deals, plan(deals))
    with pytest.raises(DealReused, match="6D2"):
        journal.begin_run("tuesday", "tue.pbn", deals, plan(deals))
    # one shared deal is enough to refuse
    mixed = DealSet.from_deals(list(session(2).deals[:3]) + [deals.deals[2]])
    with pytest.raises(DealReused, match="board 3"):
        journal.begin_run("tuesday", "tue.pbn", mixed, plan(mixed))
    replay = journal.begin_run("replay", "mon.pbn", deals, plan(deals), replay=True)
    assert replay.replay


def test_unfinished_run_and_finish(journal: Journal) -> None:
    deals = session(n=2)
    run = journal.begin_run("club", "s.pbn", deals, plan(deals))
    assert journal.unfinished_run(deals.set_hash()) == run
    with pytest.raises(JournalError, match="not verified"):
        journal.finish_run(run.id)
    for job in journal.jobs(run.id):
        walk_to_verified(journal, job.id)
    journal.finish_run(run.id)
    assert journal.unfinished_run(deals.set_hash()) is None
    assert journal.run(run.id).finished


def test_consistency_check_finds_a_tampered_state(journal: Journal) -> None:
    deals = session(n=2)
    run = journal.begin_run("club", "s.pbn", deals, plan(deals))
    job = journal.jobs(run.id)[0]
    journal.advance(job.id, JobState.LOADED, machine="m1")
    journal._db.execute("UPDATE jobs SET state = 'verified' WHERE id = ?", (job.id,))
    problems = journal.check_consistency(run.id)
    assert problems and "events end at loaded" in problems[0]


def test_threads_share_one_journal(journal: Journal) -> None:
    deals = session(n=40)
    run = journal.begin_run("club", "s.pbn", deals, plan(deals))
    jobs = journal.jobs(run.id)

    def worker(part: list[Job]) -> None:
        for job in part:
            walk_to_verified(journal, job.id, machine=f"m{job.seq % 4}")

    threads = [threading.Thread(target=worker, args=(jobs[k::4],)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert all(j.state is JobState.VERIFIED for j in journal.jobs(run.id))
    assert journal.check_consistency(run.id) == []


def test_a_killed_writer_loses_no_committed_step(place: Path | str) -> None:
    """A writer process killed with SIGKILL: every step it reported committed is in the journal."""
    deals = session(n=30)
    with open_journal(place) as j:
        run = j.begin_run("club", "s.pbn", deals, plan(deals))
    script = (
        "import sys\n"
        "from dealer.journal.opening import open_journal\n"
        "from dealer.journal.store import JobState\n"
        "j = open_journal(sys.argv[1])\n"
        "for job in j.jobs(1):\n"
        "    for s in (JobState.LOADED, JobState.SCANNED, JobState.DEALING, JobState.DEALT, JobState.VERIFIED):\n"
        "        j.advance(job.id, s, machine='m1')\n"
        "        print(job.id, s.value, flush=True)\n"
        "    if job.seq == 10:\n"
        "        print('pause', flush=True)\n"
        "        sys.stdin.readline()\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script, str(place)], stdout=subprocess.PIPE, stdin=subprocess.PIPE,
                            text=True, cwd=ROOT)
    assert proc.stdout is not None
    reported = []
    for line in proc.stdout:
        if line.strip() == "pause":
            break
        reported.append(line.split())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    with open_journal(place) as j:
        states = {job.id: job.state.value for job in j.jobs(run.id)}
        assert j.check_consistency(run.id) == []
    last = {}
    for job_id, state in reported:
        last[int(job_id)] = state
    assert all(states[k] == v for k, v in last.items())
    assert sum(1 for s in states.values() if s == "verified") == 11


def test_claims_from_several_machines_never_share_a_job(journal: Journal) -> None:
    deals = session(n=30)
    run = journal.begin_run("club", "s.pbn", deals, plan(deals, copies=2))
    claimed: dict[str, list[int]] = {f"m{k}": [] for k in range(3)}

    def machine(name: str) -> None:
        while (job := journal.claim_next(run.id, name)) is not None:
            claimed[name].append(job.id)
            assert job.state is JobState.LOADED and job.machine == name

    threads = [threading.Thread(target=machine, args=(name,)) for name in claimed]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    every = [i for ids in claimed.values() for i in ids]
    assert sorted(every) == sorted(j.id for j in journal.jobs(run.id))
    assert journal.counts(run.id)[JobState.LOADED] == 60
    assert journal.counts(run.id)[JobState.PLANNED] == 0


def test_runs_begun_together_are_all_or_none_and_checked_against_each_other(journal: Journal) -> None:
    from dealer.journal.store import RunSpec

    fri, sat = session(1), session(2)
    with pytest.raises(DealReused, match="SUN: Law 6D2: .* run .* \\(FRI\\).*say replay"):
        journal.begin_runs([RunSpec("FRI", "plan", fri, plan(fri)), RunSpec("SAT", "plan", sat, plan(sat)),
                            RunSpec("SUN", "plan", fri, plan(fri))], hint="say replay")
    assert journal.runs() == []
    runs = journal.begin_runs([RunSpec("FRI", "plan", fri, plan(fri)), RunSpec("SUN", "plan", fri, plan(fri), True)])
    assert [(r.name, r.replay) for r in runs] == [("FRI", False), ("SUN", True)]


def test_claims_over_several_runs_take_them_in_the_order_given(journal: Journal) -> None:
    first = journal.begin_run("FRI", "plan", session(1, 2), plan(session(1, 2)))
    second = journal.begin_run("SAT", "plan", session(2, 2), plan(session(2, 2)))
    order = [second.id, first.id]
    taken = [journal.claim_next(order, "m1") for _ in range(5)]
    assert [(j.run_id, j.board) for j in taken if j] == [(second.id, 1), (second.id, 2), (first.id, 1), (first.id, 2)]
    assert taken[-1] is None


def test_a_runs_events_read_a_page_at_a_time_are_its_events_in_order(journal: Journal,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`each_event` reads a run's events a page at a time (here 3 a page): the same events, in the same order, as
    one read of them all, with another run's events between them left out."""
    import dealer.journal.store as store

    monkeypatch.setattr(store, "EVENTS_A_READ", 3)
    first, second = session(1, 4), session(2, 4)
    run = journal.begin_run("one", "a.pbn", first, plan(first))
    other = journal.begin_run("two", "b.pbn", second, plan(second))
    for one, two in zip(journal.jobs(run.id), journal.jobs(other.id), strict=True):
        walk_to_verified(journal, one.id)
        walk_to_verified(journal, two.id, "m2")
    everything = journal.events(run.id)
    assert len(everything) > 3 * 4  # several pages
    assert [r.id for r in journal.each_event(run.id)] == [r.id for r in everything]
    assert {r.run_id for r in journal.each_event(other.id)} == {other.id}
