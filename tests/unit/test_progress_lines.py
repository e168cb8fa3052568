"""A run's lines keep the board they are about, and the run's figures a verified board's line tells, as parts
of their own: the live view's rows and the Room show a step without them, in any language, with no text
taken apart to find them."""

from __future__ import annotations

import io

import pytest

from dealer.dealing.progress import LineKind, ProgressEvent, RunProgress
from dealer.journal import events
from dealer.journal.run_report import RunReport, SessionFigures
from dealer.journal.store import Job, JobState, Recorded
from dealer.language import speaking


class Kept:
    """A view that keeps what it is shown."""

    def __init__(self) -> None:
        self.shown: list[ProgressEvent] = []

    def open(self, progress: RunProgress) -> None:
        pass

    def show(self, event: ProgressEvent) -> None:
        self.shown.append(event)

    def close(self) -> None:
        pass


def job(board: int, copy: int) -> Job:
    return Job(1, 1, 1, board, copy, "", "A", "0" * 64, JobState.VERIFIED, "m1", 1)


def progress(view: Kept) -> RunProgress:
    figures = RunReport("")
    figures.sessions.append(SessionFigures(1, "club", False, False, 2))
    return RunProgress(total_jobs=2, out=io.StringIO(), view=view, figures=figures)


@pytest.mark.parametrize(("language", "head"), [("en", "board 5 copy 2: "), ("ru", "сдача 5, копия 2: ")])
def test_a_line_said_of_a_board_shows_its_step_without_the_board(language: str, head: str) -> None:
    view = Kept()
    with speaking(language):
        run = progress(view)
        run.say("m1", "emptied", LineKind.FAULT, about=job(5, 2))
        run.say("m1", "insert board A 6", LineKind.PROMPT)
    said, prompt = view.shown
    assert said.line() == f"[m1] {head}emptied" and said.step() == said.row() == "emptied"
    assert prompt.line() == "[m1] insert board A 6" and prompt.step() == "insert board A 6"


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_verified_boards_row_leaves_out_the_runs_figures_its_line_tells(language: str) -> None:
    view = Kept()
    with speaking(language):
        run = progress(view)
        run.recorded(Recorded(1, 1, 1, "2026-12-02T10:00:00+00:00", "m1", JobState.VERIFIED,
                              events.Verified(warnings=("F12",), busy=30.0)), job(7, 1))
    (verified,) = view.shown
    assert verified.figures.startswith(" (1/2 ") and verified.figures in verified.line()
    assert "1/2" not in verified.row() and "F12" in verified.row()  # the warning stays, the figures go
    assert not verified.row().startswith(("board", "сдача")) and verified.line().startswith(("[m1] board 7: ",
                                                                                              "[m1] сдача 7: "))
