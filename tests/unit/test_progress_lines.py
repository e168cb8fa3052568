"""A run's lines keep the board they are about, and the run's figures a verified board's line tells, as parts
of their own: the live view's rows and the Room show a step without them, in any language, with no text
taken apart to find them."""

from __future__ import annotations

import io

import pytest

from dealer.dealing.progress import JobInHand, LineKind, ProgressEvent, RunProgress
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
def test_a_line_said_of_the_board_in_hand_shows_its_step_without_the_board(language: str, head: str) -> None:
    """The machine's job in hand is shown in columns of their own: a line about it leaves its board out of its
    step; a line about another board (or none in hand) keeps it."""
    view = Kept()
    run = progress(view)
    run.say("m1", lambda: "emptied", LineKind.FAULT, about=job(5, 2))  # nothing in hand yet
    run.job_taken("m1", JobInHand("club", "A", 5, 2, 1))
    run.say("m1", lambda: "emptied", LineKind.FAULT, about=job(5, 2))
    run.say("m1", lambda: "emptied", LineKind.FAULT, about=job(5, 1))  # the first copy: another board
    run.say("m1", lambda: "insert board A 6", LineKind.PROMPT)
    free, held, other, prompt = view.shown
    with speaking(language):  # a line is said where it is shown, in the language spoken there
        assert free.step() == f"{head}emptied" and free.line() == f"[m1] {head}emptied"
        assert held.step() == held.row() == "emptied" and held.line().endswith(f": {head}emptied")
        assert other.step().endswith(": emptied") and other.step() != "emptied"
        assert prompt.step() == "insert board A 6" and prompt.line().endswith(": insert board A 6")


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_verified_boards_row_leaves_out_the_runs_figures_its_line_tells(language: str) -> None:
    view = Kept()
    run = progress(view)
    run.recorded(Recorded(1, 1, 1, "2026-12-02T10:00:00+00:00", "m1", JobState.VERIFIED,
                          events.Verified(warnings=("F12",), busy=30.0)), job(7, 1))
    (verified,) = view.shown
    with speaking(language):
        assert verified.figures is not None and (verified.figures.done, verified.figures.total) == (1, 2)
        figures = verified.figures.said()
        assert figures.startswith(" (1/2 ") and figures in verified.line()
        assert "1/2" not in verified.row() and "F12" in verified.row()  # the warning stays, the figures go
        assert verified.line().startswith({"en": "[m1] board 7: ", "ru": "[m1] сдача 7: "}[language])


def test_one_event_is_said_by_each_reader_in_its_own_language() -> None:
    """An event reaches the views as data: two readers of the same event, one reading English and one Russian,
    each get the whole line in their own language (nothing was worded before it reached them)."""
    view = Kept()
    run = progress(view)
    run.job_taken("m1", JobInHand("club", "A", 7, 1, 1))
    run.recorded(Recorded(1, 1, 1, "2026-12-02T10:00:00+00:00", "m1", JobState.DEALT,
                          events.RecountFault(faults_found=("F2",))), job(7, 1))
    (fault,) = view.shown
    with speaking("en"):
        english = fault.line()
    with speaking("ru"):
        russian = fault.line()
    assert "F2 card in wrong pocket (Law 13A1)" in english and "redeal the same deal" in english
    assert "Правило 13A1" in russian and "Law" not in russian and "board" not in russian
    assert fault.kind is LineKind.FAULT
