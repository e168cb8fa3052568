"""The journal's listeners: each gets every committed event after the write, in commit order, on a thread of its
own; a listener that is stuck delays no writer and no other listener; one that raises is reported once and never
reaches the writer. Checked on the journal, and on a whole run whose view is stuck or fails."""

from __future__ import annotations

import io
import threading
from pathlib import Path

from dealer.dealing.progress import ProgressEvent, RunProgress
from dealer.journal.events import Verified
from dealer.journal.jobplan import JobPlan
from dealer.journal.store import Job, JobState, Journal, Recorded
from hil.config import SimConfig
from hil.loopback import Loopback
from tests.support.loopback_run import deals_for, run_on_loopback

WAIT = 120.0
"""The most a test waits for something that happens at once when the code is right (never a measured time)."""


def test_a_stuck_listener_delays_no_writer_and_a_failing_one_is_told_once(tmp_path: Path) -> None:
    release = threading.Event()
    stuck_seen: list[int] = []
    kept: list[int] = []
    reported: list[BaseException] = []

    def stuck(recorded: Recorded, job: Job | None, seen: object) -> None:
        stuck_seen.append(recorded.id)
        assert release.wait(WAIT), "never released"

    def failing(recorded: Recorded, job: Job | None, seen: object) -> None:
        raise RuntimeError("this view is broken")

    def keeping(recorded: Recorded, job: Job | None, seen: object) -> None:
        kept.append(recorded.id)

    with Journal.open(tmp_path / "j.db") as journal:
        run = journal.begin_run("club", "s.pbn", deals_for(tuple(range(1, 21))), [JobPlan(b) for b in range(1, 21)])
        stuck_delivery = journal.listen(stuck)
        failing_delivery = journal.listen(failing, failed=reported.append)
        keeping_delivery = journal.listen(keeping)
        jobs = journal.jobs(run.id)

        def write(mine: list[Job]) -> None:  # two writers, as two stations
            for job in mine:
                for state in (JobState.LOADED, JobState.SCANNED, JobState.DEALING, JobState.DEALT):
                    journal.advance(job.id, state, machine="m1")
                journal.advance(job.id, JobState.VERIFIED, Verified())

        writers = [threading.Thread(target=write, args=(jobs[k::2],)) for k in (0, 1)]
        try:
            for w in writers:
                w.start()
            for w in writers:  # every write returns while the stuck listener holds its first event
                w.join(WAIT)
                assert not w.is_alive()
            assert len(stuck_seen) == 1
            assert keeping_delivery.drain(WAIT) and failing_delivery.drain(WAIT)
            written = [r.id for r in journal.events(run.id)]
            assert kept == [i for i in written if i >= kept[0]] and len(kept) == 100  # all, in commit order
            assert len(reported) == 1 and "this view is broken" in str(reported[0])  # told once, of 100 failures
            assert failing_delivery.failures == 100
        finally:
            release.set()
        assert stuck_delivery.drain(WAIT)
        assert stuck_seen == kept  # the stuck one, released, gets them all in the same order
    assert not [t for t in threading.enumerate() if t.name == "journal-listener"]  # closing ends their threads


class StuckView:
    """A progress view stuck on its first event until released."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.shown: list[ProgressEvent] = []
        self.shown_when_released = -1

    def open(self, progress: RunProgress) -> None:
        pass

    def show(self, event: ProgressEvent) -> None:
        self.shown.append(event)
        if not self.release.is_set():
            assert self.release.wait(WAIT), "never released"
            self.shown_when_released = len(self.shown)

    def close(self) -> None:
        pass


class FailingView(StuckView):
    def show(self, event: ProgressEvent) -> None:
        self.shown.append(event)
        raise RuntimeError("the screen is gone")


def release_when_verified(journal: Path, boards: int, view: StuckView) -> threading.Thread:
    """A watcher that reads the journal as `dealer report` does and releases the view once every board is verified
    there."""
    def watch() -> None:
        done = threading.Event()
        while not done.wait(0.05):
            if journal.is_file():
                try:
                    with Journal.open_read_only(journal) as j:
                        runs = j.runs()
                        if runs and j.counts(runs[0].id)[JobState.VERIFIED] == boards:
                            break
                except Exception:  # the journal is being made: read again
                    continue
        view.release.set()
    watcher = threading.Thread(target=watch)
    watcher.start()
    return watcher


def test_a_run_deals_every_board_while_its_view_is_stuck(tmp_path: Path) -> None:
    view = StuckView()
    watcher = release_when_verified(tmp_path / "j.db", 6, view)
    try:
        with Loopback(SimConfig(seed=3)) as loop:
            result, out = run_on_loopback(loop, deals_for((1, 2, 3, 4, 5, 6)), tmp_path / "j.db", view=view)
    finally:
        view.release.set()
        watcher.join(WAIT)
    assert result.verified == result.jobs == 6, out
    assert view.shown_when_released == 1  # every board was verified while the view still held its first line
    assert len([e for e in view.shown if isinstance(e.recorded, Verified)]) == 6  # then it was shown them all


def test_a_run_whose_view_fails_deals_every_board_and_says_so_once(tmp_path: Path) -> None:
    view = FailingView()
    with Loopback(SimConfig(seed=3)) as loop:
        result, out = run_on_loopback(loop, deals_for((1, 2, 3, 4, 5, 6)), tmp_path / "j.db", view=view)
    assert result.verified == result.jobs == 6, out
    assert len(view.shown) > 6  # it was given every line, and failed at each
    told = [line for line in out.splitlines() if "the screen is gone" in line]
    assert len(told) == 1, out
    assert told[0].startswith("a view of the run failed")


def test_a_progress_that_follows_no_journal_shows_at_once() -> None:
    """Without a journal to follow (a test, a tool), a line is shown as it is said."""
    view = StuckView()
    view.release.set()
    progress = RunProgress(total_jobs=1, out=io.StringIO(), view=view)
    progress.say("m1", lambda: "insert board A 1")
    assert [e.text for e in view.shown] == ["insert board A 1"]
