"""The live view as a person sees it: `dealer deal` with its standard error on an 80×24 pseudo-terminal,
two machines named by long `sim://` URLs (shown as sim1 and sim2), one with faults; the screen rebuilt from
every byte it wrote (`tests.support.screen`). The step column stays on the screen in every frame, machines go
by short names, the finished rows say done, and the head line's rate is the run's pace as the report gives it. The
demo's story, on the same terminal, is wrapped between words."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from tests.support.processes import dealer
from tests.support.terminal import COLUMNS, on_a_terminal, terminal_writes

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]



def test_the_live_view_keeps_its_step_column_at_80_columns(tmp_path: Path) -> None:
    assert dealer("generate", "--boards", "1-12", "-o", "club.pbn", cwd=tmp_path).returncode == 0
    faults = tmp_path / "faults.json"
    faults.write_text('{"faults": [{"kind": "jam", "board": 2, "card": 20}]}', encoding="utf-8")
    ports = ["sim://?speed=100", f"sim://?speed=100&faults={faults}"]
    screens, out, code = on_a_terminal(["deal", "club.pbn", *[a for p in ports for a in ("--port", p)]], tmp_path)
    last = screens[-1]
    (tmp_path / "live-80x24.txt").write_text("\n".join(last) + "\n", encoding="utf-8")  # kept to be looked at
    assert code == 0, "\n".join(last)
    framed = [s for s in screens if any(line.startswith("machine ") for line in s)]
    assert framed, "no frame of the live view was drawn"
    (tmp_path / "live-80x24-midrun.txt").write_text("\n".join(framed[len(framed) // 2]) + "\n", encoding="utf-8")
    for seen in framed:
        (head,) = [line for line in seen if line.startswith("machine ")]
        assert head.split() == ["machine", "session", "set", "board", "copy", "attempt", "step"], "\n".join(seen)
        steps = [line for line in seen if line.startswith(("sim1 ", "sim2 "))]
        assert not [s for s in steps if re.search(r"/12 boards|\bboard \d+:", s)], "\n".join(seen)  # in their columns
    rows = [line for line in last if line.split()[:1] in (["sim1"], ["sim2"])]
    assert len(rows) == 2 and all(re.fullmatch(r"\S+ +done: \d+ boards verified", line) for line in rows), last
    assert not any("minute left" in line for line in rows)
    assert not any("sim://" in line for seen in framed for line in seen if line.startswith(("sim1 ", "sim2 ")))
    # the live view's own head line is the lowest on the screen (a frame a fault line pushed up may stay above it);
    # its pace is the run's, as `dealer report` gives it: boards verified per hour of dealing, machines together
    head_rate = re.search(r"(\d+) boards/hour", [line for line in last if "boards verified ·" in line][-1])
    (journal,) = tmp_path.glob("*.journal")
    reported = dealer("report", str(journal), "-o", str(tmp_path / "report.json"), cwd=tmp_path)
    assert reported.returncode == 0, reported.stderr
    pace = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["boards_per_hour"]
    assert head_rate and abs(int(head_rate.group(1)) - pace) <= 1, (last, pace)


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-Za-z]|\r")


def test_the_demos_story_is_wrapped_between_words_at_80_columns(tmp_path: Path) -> None:
    """`dealer demo` on a terminal of 80 columns (its story on standard output, its live view on standard error):
    every line it writes fits the width, so the terminal never cuts one inside a word; a long line goes on
    under its own indent."""
    writes, _, code = terminal_writes(["demo", "--speed", "200", "--machines", "4", "--boards", "24"], tmp_path,
                                      stdout_too=True)
    assert code == 0
    written = b"".join(writes)
    story = ANSI.sub("", written.decode("utf-8", "replace")).split("5. How each fault was caught and resolved")[1]
    lines = story.split("\n")
    assert len(lines) > 10
    too_long = [line for line in lines if len(line) >= COLUMNS]
    assert too_long == [], too_long
    assert any(line.startswith("     ") and not line.lstrip().startswith("- ") for line in lines)  # wrapped, indented


def test_the_live_view_speaks_russian_at_80_columns(tmp_path: Path) -> None:
    """The terminal's live view in Russian on an 80×24 pseudo-terminal: its head line and column names
    Russian, nothing wider than the terminal."""
    screens, _, code = on_a_terminal(["--lang", "ru", "demo", "--speed", "200", "--keep", str(tmp_path / "d")],
                                     tmp_path)
    assert code == 0
    framed = [screen for screen in screens if any(line.startswith("машина ") for line in screen)]
    assert framed, "no frame of the live view"
    last = framed[-1]
    assert any("проверено сдач: 16/16" in line for line in last)
    heads = next(line for line in last if line.startswith("машина "))
    assert heads.split() == ["машина", "сессия", "комплект", "сдача", "копия", "попытка", "шаг"]
    assert all(len(line) <= COLUMNS for screen in framed for line in screen)
