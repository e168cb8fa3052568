"""The journal's guarantees on PostgreSQL: the tests of tests/unit/test_journal.py that hold for every store, run
here on a journal in a new database of the throwaway server; and what a shared database adds: a run held by one
controller at a time (released when its process dies), runs begun by two controllers at once checked against
each other (Law 6D2), job numbers never given twice, a password in no message."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import pytest

from dealer.core.errors import DealReused, JournalBusy, JournalError
from dealer.journal.opening import open_journal, read_journal
from dealer.journal.postgres_journal import PostgresJournal
from dealer.journal.store import JobState, Journal, schema_columns
from tests.support.journal_contract import (  # noqa: F401  (collected here, on PostgreSQL)
    journal,
    plan,
    session,
    test_a_fault_redeals_the_same_job_as_a_new_attempt,
    test_a_killed_writer_loses_no_committed_step,
    test_a_run_records_its_jobs_in_order,
    test_a_runs_events_read_a_page_at_a_time_are_its_events_in_order,
    test_claims_from_several_machines_never_share_a_job,
    test_claims_over_several_runs_take_them_in_the_order_given,
    test_consistency_check_finds_a_tampered_state,
    test_has_event_finds_a_jobs_event_by_kind,
    test_job_life_and_illegal_steps,
    test_law_6d2_refuses_a_deal_set_seen_in_another_run,
    test_runs_begun_together_are_all_or_none_and_checked_against_each_other,
    test_threads_share_one_journal,
    test_uncertain_jobs_are_the_ones_that_may_hold_cards,
    test_unfinished_run_and_finish,
)
from tests.support.paths import ROOT
from tests.support.postgres import ThrowawayServer


@pytest.fixture
def place(postgres: ThrowawayServer) -> str:
    """A journal in a new database (its URL, with the password)."""
    return postgres.new_database()


def test_its_tables_have_the_columns_of_the_sqlite_journal(journal: Journal) -> None:  # noqa: F811 (the fixture)
    assert isinstance(journal, PostgresJournal)
    found: dict[str, set[str]] = {}
    for table, column in journal._db.execute(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()"):
        found.setdefault(table, set()).add(column)
    assert {name: frozenset(columns) for name, columns in found.items()} == schema_columns()


def test_a_run_is_held_by_one_controller_until_its_process_dies(place: str) -> None:
    deals = session(n=6)
    with open_journal(place, command="dealer deal") as first:
        run = first.begin_run("club", "s.pbn", deals, plan(deals))
        with open_journal(place, command="dealer deal --resume") as second:
            with pytest.raises(JournalBusy, match=rf"run {run.id} is held by dealer deal \({os.getpid()}@"):
                second.hold(run.id)
            assert isinstance(second, PostgresJournal) and set(second.held_runs()) == {run.id}
    # held by a process killed with SIGKILL: free as soon as the server sees its connection go
    script = ("import sys\nfrom dealer.journal.opening import open_journal\n"
              "j = open_journal(sys.argv[1], create=False)\nj.hold(1)\nprint('held', flush=True)\n"
              "sys.stdin.readline()\n")
    holder = subprocess.Popen([sys.executable, "-c", script, place], stdout=subprocess.PIPE, stdin=subprocess.PIPE,
                              text=True, cwd=ROOT)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    with open_journal(place, create=False) as third:
        with pytest.raises(JournalBusy, match=rf"\({holder.pid}@"):
            third.hold(run.id)
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=60)
        for _ in range(600):  # the server ends the connection when it sees it closed: no clock, a bounded wait
            if run.id not in third.held_runs():  # type: ignore[attr-defined]
                break
            threading.Event().wait(0.05)
        third.hold(run.id)
        assert third.jobs(run.id)[0].state is JobState.PLANNED


def test_two_controllers_beginning_one_deal_set_at_once_never_both_begin_it(place: str) -> None:
    deals = session(n=8)
    open_journal(place).close()  # the tables made, so that both race for the run alone
    journals = [open_journal(place) for _ in range(2)]
    results: list[object] = [None, None]
    start = threading.Barrier(2)

    def begin(k: int) -> None:
        start.wait()
        try:
            results[k] = journals[k].begin_run(f"club {k}", "s.pbn", deals, plan(deals))
        except DealReused as exc:
            results[k] = exc

    threads = [threading.Thread(target=begin, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    for j in journals:
        j.close()
    assert sorted(type(r).__name__ for r in results) == ["DealReused", "Run"]


def test_two_controllers_never_give_one_job_number(place: str) -> None:
    deals = session(n=30)
    with open_journal(place) as setup:
        runs = [setup.begin_run(f"club {k}", "s.pbn", session(seed=k + 5, n=15), plan(session(seed=k + 5, n=15)))
                for k in range(2)]
    given: list[list[int]] = [[], []]
    start = threading.Barrier(2)

    def deal(k: int) -> None:
        with open_journal(place) as mine:
            start.wait()
            for job in mine.jobs(runs[k].id):
                given[k].append(mine.new_dealing(job.id, "m1").wire_job)

    threads = [threading.Thread(target=deal, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(deals) == 30 and len(given[0]) == len(given[1]) == 15
    assert sorted(given[0] + given[1]) == list(range(1, 31))


def test_a_password_is_in_no_message(postgres: ThrowawayServer) -> None:
    url = postgres.url("no_such_database")
    with pytest.raises(JournalError) as refused:
        open_journal(url)
    assert postgres.password not in str(refused.value) and "no_such_database" in str(refused.value)
    place = postgres.new_database()
    with open_journal(place) as opened:
        assert isinstance(opened, PostgresJournal)
        assert postgres.password not in opened.path and postgres.password not in repr(opened.url)


def test_a_journal_made_but_holding_no_run_yet_is_read_as_empty_and_refused_to_a_resume(place: str) -> None:
    open_journal(place).close()  # a controller of the room made the tables; none has begun a run yet
    with read_journal(place) as reading:
        assert reading.runs() == [] and reading.held_runs() == {}
    with pytest.raises(JournalError, match="the journal is empty"):
        open_journal(place, create=False)


def test_a_reader_checking_a_run_another_controller_writes_never_finds_it_at_odds_with_itself(place: str) -> None:
    deals = session(n=40)
    with open_journal(place) as writer, read_journal(place) as reader:
        run = writer.begin_run("club", "s.pbn", deals, plan(deals))
        done = threading.Event()

        def deal() -> None:
            try:
                while (job := writer.claim_next(run.id, "m1")) is not None:
                    for state in (JobState.SCANNED, JobState.DEALING, JobState.DEALT, JobState.VERIFIED):
                        writer.advance(job.id, state, machine="m1")
            finally:
                done.set()

        thread = threading.Thread(target=deal)
        thread.start()
        checks = 0
        try:
            while not done.is_set() or checks == 0:
                reader.check_sound()  # JournalDamaged if a step fell between its reads
                assert reader.check_consistency(run.id) == []
                checks += 1
        finally:
            thread.join(timeout=120)
        assert checks > 1


def test_the_rooms_reading_misses_no_event_committed_after_one_numbered_later(place: str) -> None:
    """Two controllers write two runs at once: an event numbered first may be committed last. The room's fold
    follows each run by its own numbers, so it still folds that event on its next reading."""
    import psycopg

    from dealer.serve.figures import FiguresFold, grid_cells

    first, second = session(1), session(2)
    with open_journal(place, command="a") as one, open_journal(place, command="b") as two:
        run_one = one.begin_run("one", "one.pbn", first, plan(first))
        run_two = two.begin_run("two", "two.pbn", second, plan(second))
        job_one, job_two = one.jobs(run_one.id)[0], two.jobs(run_two.id)[0]
        fold = FiguresFold()
        with read_journal(place) as reader:
            with reader.reading():
                fold.fold(reader)
            with psycopg.connect(place) as other:  # run one's writer: its event numbered, not yet committed
                other.execute("INSERT INTO events (run_id, job_id, at, machine, kind, state, detail) VALUES "
                              "(%s, %s, '2026-12-07T10:00:00+00:00', 'm1', 'loaded', 'loaded', '{}')",
                              (run_one.id, job_one.id))
                two.advance(job_two.id, JobState.LOADED, machine="m1")  # numbered after, committed first
                with reader.reading():
                    fold.fold(reader)
                states = {(c["run"], c["board"]): c["state"] for c in grid_cells(fold.report)}
                assert states[(run_two.id, job_two.board)] == "loaded" and states[(run_one.id, job_one.board)] \
                    == "planned"
            with reader.reading():  # (the connection's block ended: run one's event is committed)
                fold.fold(reader)
    states = {(c["run"], c["board"]): c["state"] for c in grid_cells(fold.report)}
    assert states[(run_one.id, job_one.board)] == "loaded", states
