"""The journal in a file: the tests every store passes (`tests.support.journal_contract`, collected here on a
journal file), and what only a file has (its mode, its main file alone, SQLite's own errors)."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from dealer.core.errors import JournalError
from dealer.journal.events import Dealing, RecountFault, Redeal, Scanned
from dealer.journal.store import JobState, Journal
from tests.support.journal_contract import (  # noqa: F401  (collected here, on a journal file)
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


@pytest.fixture
def place(tmp_path: Path) -> Path | str:
    """Where the test's journal is: a file here, a database in tests/postgresql/."""
    return tmp_path / "j.db"


def test_file_is_private(tmp_path: Path) -> None:
    Journal.open(tmp_path / "p.db").close()
    assert stat.S_IMODE((tmp_path / "p.db").stat().st_mode) == 0o600


def test_steps_taken_together_are_one_transaction_each_recorded(tmp_path: Path,
                                                                 journal: Journal) -> None:  # noqa: F811
    deals = session()
    run = journal.begin_run("club", "s.pbn", deals, plan(deals))
    job = journal.claim_next(run.id, "m1")
    assert job is not None
    moved = journal.advance_through(job.id, [(JobState.SCANNED, Scanned(label="A 1")), (JobState.DEALING, None)])
    assert moved.state is JobState.DEALING and moved == journal.job(job.id)
    steps = [(e.kind, e.state, e.event) for e in journal.events(run.id, job.id)]
    assert steps[-2:] == [("scanned", JobState.SCANNED, Scanned(label="A 1")), ("dealing", JobState.DEALING, Dealing())]
    assert journal.check_consistency(run.id) == []
    # a step that may not follow the ones before it undoes them all: the job is as it was
    other = journal.claim_next(run.id, "m1")
    assert other is not None
    before = journal.events(run.id, other.id)
    with pytest.raises(JournalError, match="cannot go from scanned to verified"):
        journal.advance_through(other.id, [(JobState.SCANNED, None), (JobState.VERIFIED, None)])
    assert journal.job(other.id).state is JobState.LOADED
    assert journal.events(run.id, other.id) == before
    # the step into DEALING reached the main file: a copy of it alone holds it
    copy = tmp_path / "alone.db"
    copy.write_bytes((tmp_path / "j.db").read_bytes())
    with Journal.open_read_only(copy) as alone:
        assert alone.job(job.id).state is JobState.DEALING


def test_a_redeal_is_one_transaction_that_an_error_in_its_middle_undoes(tmp_path: Path,
                                                                        journal: Journal) -> None:  # noqa: F811
    deals = session()
    run = journal.begin_run("club", "s.pbn", deals, plan(deals))
    first, second = journal.jobs(run.id)[:2]
    for job in (first, second):
        for state in (JobState.LOADED, JobState.SCANNED, JobState.DEALING, JobState.DEALT, JobState.FAULTED):
            journal.advance(job.id, state, RecountFault(faults_found=("F1",)) if state is JobState.FAULTED else None,
                            machine="m1")
    again = journal.redeal(first.id, "m2", Redeal(fix_pack=False))
    assert (again.state, again.machine, again.attempt) == (JobState.LOADED, "m2", 2) and again == journal.job(first.id)
    steps = [(e.kind, e.state, e.machine) for e in journal.events(run.id, first.id)][-2:]
    assert steps == [("redeal", "planned", "m1"), ("loaded", "loaded", "m2")]
    # the step to LOADED fails after the step back to PLANNED was written: neither stays
    other = sqlite3.connect(tmp_path / "j.db")
    other.execute("CREATE TRIGGER no_load BEFORE INSERT ON events WHEN NEW.state = 'loaded' "
                  "BEGIN SELECT RAISE(ABORT, 'the disk refused the write'); END")
    other.close()
    before = journal.job(second.id), journal.events(run.id, second.id)
    with pytest.raises(JournalError, match="the disk refused the write"):
        journal.redeal(second.id, "m2")
    assert (journal.job(second.id), journal.events(run.id, second.id)) == before
    assert before[0].state is JobState.FAULTED and journal.check_consistency(run.id) == []


