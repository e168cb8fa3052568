"""The board grid: every job of a run (one copy of one board) with its state, read from the journal.

The journal is the one truth of where each board is, so the grid shown live and the grid shown by a
server restarted later are the same reading. `GridWatcher` re-reads it while a run deals (woken by the
run's events, at most once a second) and publishes the boards whose state changed with the run's figures of
the same reading (`room_reading`): what a page shows of one message agrees with itself.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from dealer.core.errors import DealerError
from dealer.dealing.progress import RunProgress
from dealer.journal.opening import read_journal
from dealer.journal.run_report import RunReport
from dealer.journal.store import Journal
from dealer.serve.figures import SHOWN, FiguresFold, grid_cells, room_figures

READ_SECONDS: Final = 1.0
"""Shortest time between two readings of the journal (the grid and the run's figures) while a run deals."""

Cell = tuple[int, str, str, int, int]
"""A grid cell's key: run id, session, board set, board, copy."""


def read_grid(journal_path: Path, run_ids: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """Every job of the runs (default: all the journal's), each with the room's name of its state."""
    with read_journal(journal_path) as journal:
        return grid_of(journal, run_ids)


def grid_of(journal: Journal, run_ids: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """`read_grid` on a journal open already."""
    runs = {r.id: r for r in journal.runs()}
    cells = []
    for run_id in run_ids if run_ids is not None else list(runs):
        run = runs.get(run_id)
        if run is None:
            continue
        for job in journal.jobs(run_id):
            cells.append({"run": run_id, "session": run.name, "set": job.set_name or "A",
                          "board": job.board, "copy": job.copy, "state": SHOWN[job.state]})
    return cells


def room_reading(journal: Journal, run_ids: Sequence[int] | None = None,
                 figures: FiguresFold | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The grid and the run's figures of one fold of the journal (`dealer.serve.figures`), read in one
    transaction: the boards verified the figures count are the grid's verified cells. `figures`: the fold of the
    readings before (of the same runs), which this one goes on from; by default every event is folded afresh."""
    with journal.reading():
        rep = (figures or FiguresFold(run_ids)).fold(journal)
    return grid_cells(rep), room_figures(rep)


def read_room(journal_path: Path, run_ids: Sequence[int] | None = None) -> tuple[list[dict[str, Any]],
                                                                                dict[str, Any]]:
    """`room_reading` of a journal file."""
    with read_journal(journal_path) as journal:
        return room_reading(journal, run_ids)


def cell_id(cell: dict[str, Any]) -> str:
    """A cell's id in the page: 'r1-A2-26-2'."""
    return f"r{cell['run']}-{cell['set']}-{cell['board']}-{cell['copy']}"


class GridWatcher:
    """Re-reads a live run's journal when told something happened; publishes the cells that changed with the
    figures of the same reading."""

    def __init__(self, journal_path: Path,
                 publish: Callable[[list[dict[str, Any]], dict[str, Any]], None]) -> None:
        self.journal_path = journal_path
        self.publish = publish
        """Given the cells that changed and the run's figures (`dealer.serve.figures`) of one reading."""
        self.run_ids: list[int] | None = None
        self._known: dict[str, str] = {}
        self._dirty = threading.Event()
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._journal: Journal | None = None
        """Open for reading while the run deals (each reading its own short transaction)."""
        self._figures: FiguresFold | None = None
        """The figures folded so far, of `run_ids` (each reading folds what was written since the last)."""
        self._folding = threading.Lock()
        """Held while `_figures` folds (the watcher's thread and a browser's snapshot may both read)."""
        self.progress: RunProgress | None = None
        """The live run's fold, once its run is open: read instead of the journal, so the room shows the
        figures the run itself counts."""
        self._thread = threading.Thread(target=self._loop, name="grid", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def poke(self) -> None:
        """Something happened: read the journal again soon."""
        self._dirty.set()

    def stop(self) -> None:
        """A last reading, then stop: from here on the room reads the journal (another controller may go on
        with the run)."""
        self._done.set()
        self._dirty.set()
        if self._thread.ident is not None:
            self._thread.join()
        self.refresh()
        self.progress = None
        with self._lock:
            journal, self._journal = self._journal, None
        if journal is not None:
            journal.close()

    def room(self) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """The grid and the figures now, of the live run's fold or one fresh reading (for a browser's snapshot:
        what the others were sent is unchanged)."""
        if self.progress is not None:
            return self._live(self.progress)
        try:
            if self.journal_path.is_file():
                with read_journal(self.journal_path) as journal:
                    return self._folded(journal)
        except DealerError:
            pass
        return [], None

    def report(self) -> RunReport | None:
        """The fold of the run's events (`dealer.serve.figures.FiguresFold`) as the journal holds them now, going
        on from the last reading; None if the journal cannot be read."""
        try:
            with read_journal(self.journal_path) as journal:
                self._folded(journal)
        except DealerError:
            return None
        return self._figures.report if self._figures is not None else None

    def _folded(self, journal: Journal) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """`room_reading` going on from the fold kept (a reading costs what was written since the last one)."""
        with self._folding:
            if self._figures is None or self._figures.run_ids != self.run_ids:
                self._figures = FiguresFold(self.run_ids)
            return room_reading(journal, self.run_ids, self._figures)

    def refresh(self) -> None:
        """Read the journal; publish the cells whose state changed since the last reading with the figures
        of the same reading (the figures also when only they changed: a machine's time on a board)."""
        if self.progress is not None:
            cells, shown = self._live(self.progress)
        else:
            try:
                if self._journal is None:
                    if not self.journal_path.is_file():
                        return
                    self._journal = read_journal(self.journal_path)
                cells, shown = self._folded(self._journal)
            except (DealerError, sqlite3.Error):  # read again at the next event
                return
        with self._lock:
            changed = [c for c in cells if self._known.get(cell_id(c)) != c["state"]]
            for c in changed:
                self._known[cell_id(c)] = c["state"]
        self.publish(changed, shown)

    @staticmethod
    def _live(progress: RunProgress) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The grid and the figures of the live run's fold, as they stand together."""
        return progress.reading(lambda rep: (grid_cells(rep), room_figures(rep)))

    def _loop(self) -> None:
        while not self._done.is_set():
            self._dirty.wait()
            if self._done.is_set():
                return
            self._dirty.clear()
            self.refresh()
            self._done.wait(READ_SECONDS)


def unfinished_runs(journal_path: Path) -> list[int] | None:
    """The runs of the journal not finished yet (those a run just begun or resumed deals); None if none."""
    try:
        with read_journal(journal_path) as journal:
            ids = [r.id for r in journal.runs() if not r.finished]
    except DealerError:
        return None
    return ids or None
