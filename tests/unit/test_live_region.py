"""The live view's region on a terminal of a given size (rich writing to a screen rebuilt from its bytes,
`tests.support.screen`): never taller than the terminal, no line of it wrapped, and the lines printed above
it, from two machines' threads at once, never written over; simulated machines go by short names."""

from __future__ import annotations

import io
import threading

import pytest
from rich.console import Console

from dealer.cli.live import LiveRunView, render_run, short_names
from dealer.dealing.progress import JobInHand, LineKind, MachineRow, RunProgress
from tests.support.screen import Screen, whole

LONG = ("REFUSED F8 wrong board (Law 2): board label not read; expected board {i} of set A, and a few more "
        "words so that the line is longer than any terminal's width: take it out of use")


def screen_of(console: Console, out: io.StringIO) -> Screen:
    screen = Screen(console.width, console.height)
    screen.feed(out.getvalue().replace("\n", "\r\n"))  # a terminal's line discipline adds the carriage return
    return screen


def terminal(size: tuple[int, int]) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=size[0], height=size[1], color_system=None), out


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
def test_lines_from_two_machines_at_once_are_never_written_over(size: tuple[int, int]) -> None:
    console, out = terminal(size)
    ports = {f"sim://?speed=100&seed={k}": f"sim://?speed=100&seed={k}" for k in (1, 2)}
    progress = RunProgress(total_jobs=12, view=LiveRunView(console, refresh_per_second=100), ports=ports)
    progress.open()

    def machine(name: str) -> None:
        for i in range(60):
            progress.job_taken(name, JobInHand("club", "A", i % 12 + 1, 1, 1))
            progress.say(name, lambda i=i: LONG.format(i=i), LineKind.FAULT)
            progress.say(name, lambda: "dealing", LineKind.STEP)  # the row's step goes from long to short

    threads = [threading.Thread(target=machine, args=(name,)) for name in ports]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    progress.close()
    screen = screen_of(console, out)
    rows = screen.scrolled + screen.text()
    cut = [(short, i) for short in ("sim1", "sim2") for i in range(60)
           if not whole(f"[{short}] club set A: {LONG.format(i=i)}", rows)]
    assert cut == [], "\n".join(rows)
    assert sum("boards verified ·" in row or "boards/hour after" in row for row in rows) == 1, "\n".join(rows)


def row(name: str) -> MachineRow:
    return MachineRow(name, name, JobInHand("club", "A", 1, 1, 1), None, 0, 0.0, None)


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (80, 10)])
def test_the_region_is_shorter_than_the_terminal_and_never_wraps(size: tuple[int, int]) -> None:
    console, out = terminal(size)
    ports = {f"sim://?seed={k}": f"sim://?seed={k}" for k in range(1, 41)}
    progress = RunProgress(total_jobs=400, ports=ports, title="club.pbn")
    for k, name in enumerate(ports):
        progress.job_taken(name, JobInHand("a session with a long name", "A", k + 1, 1, 1))
    progress.say("sim://?seed=7", lambda: LONG.format(i=7), LineKind.FAULT)
    lines = console.render_lines(render_run(progress, *size), console.options, pad=False)
    assert len(lines) < size[1]
    assert all(sum(len(s.text) for s in line) <= size[0] for line in lines)
    text = ["".join(s.text for s in line) for line in lines]
    assert any(line.startswith("sim7 ") for line in text), text  # the machine with a fault keeps its row
    assert text[-1].strip().startswith("…") and "more machines" in text[-1], text


def test_simulated_machines_go_by_short_names() -> None:
    rows = [row("sim://?speed=100&faults=/tmp/plan/f1.json"), row("/dev/ttyUSB0"),
            row("sim://?speed=100&faults=/tmp/plan/f2.json"), row("spy:///dev/ttyACM1?file=trace.txt"),
            row("socket://127.0.0.1:4000"), row("M1")]
    assert list(short_names(rows).values()) == ["sim1", "ttyUSB0", "sim2", "ttyACM1", "127.0.0.1:4000", "M1"]
