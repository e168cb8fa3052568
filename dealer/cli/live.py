"""What a person sees while a command works: a live view on a terminal, plain lines anywhere else.

Progress and diagnostics go to standard error, results to standard output, so ``dealer deal ... >
deal.log`` keeps the summary and the screen keeps the live view. `run_view` shows a dealing run,
`task_progress` the other long steps (double-dummy analysis, generating a congress's deals).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import IO, Final

from rich import box
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from dealer.dealing.progress import (
    LineKind,
    MachineRow,
    PlainView,
    ProgressEvent,
    ProgressView,
    RunProgress,
    time_left_text,
)
from dealer.language import _, n_
from dealer.verify.fault_table import law_said

STYLES = {
    LineKind.FAULT: "bold red",
    LineKind.STOPPED: "bold magenta",
    LineKind.NOTE: "yellow",
    LineKind.PROMPT: "bold black on yellow",
    LineKind.STEP: "",
}
"""How each kind of event stands out on a terminal (the words are the plain line's)."""


def add_view_option(p: argparse.ArgumentParser) -> None:
    """``--plain``: for a command that shows progress."""
    p.add_argument("--plain", action="store_true",
                   help=_("progress as plain lines, one an event, even on a terminal (the default when standard "
                        "error is not a terminal)"))


def error_console() -> Console:
    """A console on standard error (progress and diagnostics)."""
    return Console(stderr=True)


def live_wanted(plain: bool, console: Console | None = None) -> bool:
    """True when progress can be shown live: standard error is a terminal that can redraw, and no --plain."""
    console = console or error_console()
    return not plain and console.is_terminal and not console.is_dumb_terminal


def run_view(plain: bool, console: Console | None = None) -> ProgressView:
    """The view of a dealing run: live on a terminal (and without ``--plain``, `LiveRunView`), else one
    line an event on standard error, in the same words (`dealer.dealing.progress.PlainView`)."""
    console = console or error_console()
    if live_wanted(plain, console):
        return LiveRunView(console)
    return PlainView(sys.stderr)


class LiveRunView:
    """A dealing run on a terminal, with `rich`: a line per machine (session, board set, board, copy,
    attempt, step), redrawn in place, under a head line with the boards verified, boards per hour and the
    time left; faults (in colour, with their Law and action), notes and stopped machines printed above it
    as they come, and a machine waiting for the operator stands out."""

    def __init__(self, console: Console, refresh_per_second: float = 4.0) -> None:
        self.console = console
        self.refresh_per_second = refresh_per_second
        self._progress: RunProgress | None = None
        self._live: Live | None = None

    def open(self, progress: RunProgress) -> None:
        self._progress = progress
        self._live = Live(self, console=self.console, refresh_per_second=self.refresh_per_second,
                          transient=False, redirect_stdout=False, redirect_stderr=False)
        self._live.start()

    def show(self, event: ProgressEvent) -> None:
        if event.kind in (LineKind.FAULT, LineKind.NOTE, LineKind.STOPPED):
            names = short_names(self._progress.rows()) if self._progress is not None else {}
            self.console.print(styled_line(event, names.get(event.machine)))
        if self._live is not None:
            self._live.refresh()

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def __rich__(self) -> RenderableType:
        assert self._progress is not None
        return render_run(self._progress)


def styled_line(event: ProgressEvent, name: str | None = None) -> Text:
    """The event's plain line, in its colour, its Law in bold; the machine by `name` if given (its short
    name in the live view)."""
    line = event.line() if name is None else replace(event, machine=name).line()
    return bold_laws(Text(line, style=STYLES[event.kind]), event)


def bold_laws(text: Text, event: ProgressEvent) -> Text:
    """The Laws of the event's faults (as its journal event gives them) in bold."""
    if event.recorded is not None:
        text.highlight_words([law_said(f.law) for f in event.recorded.faults() if f.law], "bold")
    return text


def head_text(progress: RunProgress) -> Text:
    """'57/412 boards verified · 230 boards/hour · about 1 h 32 min left'."""
    rate = progress.boards_per_hour()
    left = progress.time_left()
    parts = [_("{verified}/{total} boards verified").format(verified=progress.verified, total=progress.total_jobs)]
    parts.append(_("{rate:.0f} boards/hour").format(rate=rate) if rate else _("boards/hour after the first board"))
    if left is not None and progress.verified < progress.total_jobs:
        parts.append(time_left_text(left))
    return Text(" · ".join(parts), style="bold")


SHORT_NAME: Final = 14
"""The widest machine name the live view shows: the step column keeps the rest of an 80-column terminal."""


def short_names(rows: list[MachineRow]) -> dict[str, str]:
    """Each machine's name as the live view shows it: a plan's name as it is; a machine named by its port,
    the end of the URL ('ttyUSB0', '127.0.0.1:4000', 'speed=200'), its last characters if still long; names
    that come out alike are told apart by their place in the run ('1 speed=200')."""
    shown = {}
    for row in rows:
        name = row.name
        if name == row.port or "://" in name or name.startswith("/"):
            pieces = [p for p in re.split(r"[/?&]", name.split("://", 1)[-1]) if p]
            name = pieces[-1] if pieces else name
        shown[row.name] = name if len(name) <= SHORT_NAME else "…" + name[-(SHORT_NAME - 1):]
    if len(set(shown.values())) < len(shown):
        shown = {full: f"{i} {short}"[:SHORT_NAME] for i, (full, short) in enumerate(shown.items(), 1)}
    return shown


def render_run(progress: RunProgress) -> RenderableType:
    """The live view of a run, as it stands: at 80 columns too, every column shown, the step column the
    widest (machines by their short names, `short_names`); once every board is verified, each row says done."""
    bar = ProgressBar(total=max(progress.total_jobs, 1), completed=progress.verified)
    head = Table.grid(padding=(0, 2))
    if progress.title:
        head.add_row(Text(progress.title, style="bold cyan"))
    line = Table.grid(padding=(0, 2), expand=True)
    line.add_column(no_wrap=True)
    line.add_column(ratio=1, min_width=8)  # the bar takes what the figures leave
    line.add_row(head_text(progress), bar)
    head.add_row(line)
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    for column, right in ((_("machine"), False), (_("session"), False), (_("set"), False), (_("board"), True),
                          (_("copy"), True), (_("attempt"), True)):
        table.add_column(column, no_wrap=True, overflow="ellipsis", max_width=SHORT_NAME,
                         justify="right" if right else "left")
    table.add_column(_("step"), overflow="fold", min_width=24, ratio=1)
    rows = progress.rows()
    names = short_names(rows)
    finished = progress.verified >= progress.total_jobs
    for row in rows:
        job = row.job or (row.last.job if row.last is not None else None)
        if row.lost is not None:
            step, style = Text(_("stopped: {why}").format(why=row.lost), style=STYLES[LineKind.STOPPED]), ""
        elif finished and row.job is None:
            step, style = Text(n_("done: {n} board verified", "done: {n} boards verified", row.verified).format(
                n=row.verified), style="green"), ""
            job = None
        elif row.last is None:
            step, style = Text(_("connecting"), style="dim"), ""
        else:
            step, style = bold_laws(Text(row.last.row(), style=STYLES[row.last.kind]), row.last), ""
        cells = [job.session, job.set_name, str(job.board), str(job.copy), str(job.attempt)] if job else [""] * 5
        table.add_row(Text(names[row.name], style="bold"), *cells, step, style=style)
    return Group(head, table)


@contextmanager
def task_progress(what: str, total: int, *, plain: bool, unit: str | None = None,
                  out: IO[str] | None = None) -> Iterator[Callable[[int], None]]:
    """A long step of `total` items (`unit`: what they are, boards if None): yields `advance(n)`. A bar on a
    terminal (gone when done); a line on standard error at the start, every tenth of the way and at the end
    otherwise."""
    unit = unit or _("boards")
    console = error_console()
    if live_wanted(plain, console) and out is None:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn(unit),
                   TimeRemainingColumn())
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task(what, total=total)
            yield lambda n: bar.advance(task, n)
        return
    stream = out or sys.stderr
    done = 0
    shown = -1

    def advance(n: int) -> None:
        nonlocal done, shown
        done += n
        tenth = done * 10 // max(total, 1)
        if tenth != shown:
            shown = tenth
            stream.write(f"{what}: {done}/{total} {unit}\n")
            stream.flush()

    stream.write(f"{what}: 0/{total} {unit}\n")
    stream.flush()
    shown = 0
    yield advance
