"""What a person sees while a command works: a live view on a terminal, plain lines anywhere else.

Progress and diagnostics go to standard error, results to standard output, so ``dealer deal ... >
deal.log`` keeps the summary and the screen keeps the live view. `run_view` shows a dealing run,
`task_progress` the other long steps (double-dummy analysis, generating a congress's deals).
"""

from __future__ import annotations

import argparse
import re
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import IO, Final

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
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
from dealer.language import N_, _, n_
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
    as they come, and a machine waiting for the operator stands out.

    The view is never taller than the terminal and none of its lines wraps (`render_run`), and one lock
    keeps each line printed above it and each redraw whole: rich moves the view by the height it drew last,
    so the log above it is never written over."""

    def __init__(self, console: Console, refresh_per_second: float = 4.0) -> None:
        self.console = console
        self.refresh_per_second = refresh_per_second
        self._progress: RunProgress | None = None
        self._live: Live | None = None
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def open(self, progress: RunProgress) -> None:
        self._progress = progress
        self._live = Live(self, console=self.console, auto_refresh=False, transient=False, redirect_stdout=False,
                          redirect_stderr=False, vertical_overflow="crop")
        with self._lock:
            self._live.start(refresh=True)
        self._stop.clear()
        self._ticker = threading.Thread(target=self._tick, name="live view", daemon=True)
        self._ticker.start()

    def _tick(self) -> None:
        """Redraw a few times a second (the time left goes on between events)."""
        while not self._stop.wait(1 / self.refresh_per_second):
            self._refresh()

    def _refresh(self) -> None:
        with self._lock:
            if self._live is not None:
                self._live.refresh()

    def show(self, event: ProgressEvent) -> None:
        with self._lock:
            if event.kind in (LineKind.FAULT, LineKind.NOTE, LineKind.STOPPED):
                names = short_names(self._progress.rows()) if self._progress is not None else {}
                self.console.print(styled_line(event, names.get(event.machine)))  # above the view, which moves
            self._refresh()

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None
        with self._lock:
            if self._live is not None:
                self._live.stop()
                self._live = None

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        assert self._progress is not None
        yield render_run(self._progress, options.max_width, options.size.height)


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
    """Each machine's name as the live view shows it: a plan's name as it is; a simulated machine (a
    ``sim://`` port) 'sim1', 'sim2'... in the run's order; a machine named by another port, its device or
    address ('ttyUSB0' for /dev/ttyUSB0 or spy:///dev/ttyUSB0?file=t.txt, '127.0.0.1:4000'), its last
    characters if still long; names that come out alike are told apart by their place in the run."""
    shown = {}
    simulated = 0
    for row in rows:
        name = row.name
        if name == row.port or "://" in name or name.startswith("/"):
            port = name.removeprefix(SPY)
            if port.startswith(SIM):
                simulated += 1
                name = f"sim{simulated}"
            else:
                pieces = [p for p in re.split(r"[/\\]", port.split("://", 1)[-1].split("?", 1)[0]) if p]
                name = pieces[-1] if pieces else name
        shown[row.name] = name if len(name) <= SHORT_NAME else "…" + name[-(SHORT_NAME - 1):]
    if len(set(shown.values())) < len(shown):
        shown = {full: f"{i} {short}"[:SHORT_NAME] for i, (full, short) in enumerate(shown.items(), 1)}
    return shown


SIM: Final = "sim://"
SPY: Final = "spy://"

GAP: Final = "  "
"""Between two columns of the live view."""
STEP_ROOM: Final = 28
"""What the step column keeps at least, when the terminal is narrow, before the names are cut."""
NAME_ROOM: Final = 8
"""The least a machine, session or set name is cut to for the step column."""


HEADS: Final = (N_("machine"), N_("session"), N_("set"), N_("board"), N_("copy"), N_("attempt"), N_("step"))
RIGHT: Final = {3, 4, 5}
"""The columns of numbers, set to the right."""


def render_run(progress: RunProgress, width: int = 80, height: int = 24) -> RenderableType:
    """The live view of a run, as it stands, `width` columns wide and shorter than `height`: every line one
    row of the terminal (a long one cut, with an ellipsis), so the view never wraps. At 80 columns too every
    column is shown, the step column the widest (machines by their short names, `short_names`); once every
    board is verified, each row says done. Where not every machine has a row, those that need a person come
    first and a last line counts the others."""
    rows = progress.rows()
    names = short_names(rows)
    finished = progress.verified >= progress.total_jobs
    table = [[Text(_(h)) for h in HEADS]]
    attention = []
    for row in rows:
        job = row.job or (row.last.job if row.last is not None else None)
        if row.lost is not None:
            step = Text(_("stopped: {why}").format(why=row.lost), style=STYLES[LineKind.STOPPED])
        elif finished and row.job is None:
            step = Text(n_("done: {n} board verified", "done: {n} boards verified", row.verified).format(
                n=row.verified), style="green")
            job = None
        elif row.last is None:
            step = Text(_("connecting"), style="dim")
        else:
            step = bold_laws(Text(row.last.row(), style=STYLES[row.last.kind]), row.last)
        cells = [job.session, job.set_name, str(job.board), str(job.copy), str(job.attempt)] if job else [""] * 5
        table.append([Text(names[row.name], style="bold"), *map(Text, cells), step])
        attention.append(row.lost is not None or (row.last is not None and row.last.kind is not LineKind.STEP))
    title = [one_row(Text(progress.title, style="bold cyan"))] if progress.title else []
    room = height - 1 - len(title) - 3  # the terminal's height less a row, the head line and the column names
    shown = list(range(len(rows)))
    if len(rows) > room and title:  # the title goes first
        title, room = [], room + 1
    if len(rows) > room:
        shown = sorted(sorted(shown, key=lambda i: not attention[i])[:max(room - 1, 0)])
    widths = column_widths(table, width)
    lines: list[RenderableType] = [*title, head_line(progress, width), table_line(table[0], widths, style="bold"),
                                   one_row(Text("─" * min(width, sum(widths) + len(GAP) * (len(widths) - 1))))]
    lines.extend(table_line(table[i + 1], widths) for i in shown)
    if len(shown) < len(rows):
        more = len(rows) - len(shown)
        lines.append(one_row(Text(n_("… and {n} more machine", "… and {n} more machines", more).format(n=more),
                                  style="dim")))
    return Group(*lines)


def one_row(text: Text) -> Text:
    """`text` kept to one row of the terminal: cut, with an ellipsis, where it would wrap."""
    text.no_wrap, text.overflow, text.end = True, "ellipsis", "\n"
    return text


def head_line(progress: RunProgress, width: int) -> RenderableType:
    """The head line: the boards verified, the rate and the time left, and a bar in what they leave."""
    text = head_text(progress)
    bar = width - text.cell_len - len(GAP)
    if bar < 8:
        return one_row(text)
    line = Table.grid(padding=(0, len(GAP), 0, 0))
    line.add_column(width=text.cell_len, no_wrap=True)
    line.add_column(width=bar, no_wrap=True)
    line.add_row(text, ProgressBar(total=max(progress.total_jobs, 1), completed=progress.verified, width=bar))
    return line


def column_widths(table: list[list[Text]], width: int) -> list[int]:
    """Each column's width: as wide as its widest cell (a name at most SHORT_NAME); when they do not fit,
    the names are cut (down to NAME_ROOM) until the step column has STEP_ROOM; the step column the rest."""
    widths = [max(row[i].cell_len for row in table) for i in range(len(HEADS))]
    for i in (0, 1, 2):
        widths[i] = min(widths[i], SHORT_NAME)
    others = len(GAP) * (len(HEADS) - 1)
    step_wants = min(widths[-1], STEP_ROOM)
    while sum(widths[:-1]) + others + step_wants > width:
        widest = max((0, 1, 2), key=lambda i: widths[i])
        if widths[widest] <= NAME_ROOM:
            break
        widths[widest] -= 1
    widths[-1] = max(width - sum(widths[:-1]) - others, 1)
    return widths


def table_line(cells: list[Text], widths: list[int], style: str = "") -> Text:
    """One row of the live view's table, each cell cut to its column (with an ellipsis) and set in it."""
    line = one_row(Text(style=style))
    for i, (cell, w) in enumerate(zip(cells, widths, strict=True)):
        cell = cell.copy()
        cell.truncate(w, overflow="ellipsis")
        if i < len(cells) - 1:
            cell.align("right" if i in RIGHT else "left", w)
            cell.append(GAP)
        line.append_text(cell)
    return line


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
