"""The live view never writes over the log above it: `dealer deal` of 12 boards on two simulated machines with
faults, live on pseudo-terminals of 80×24 and 100×30, in English and in Russian, the screen and its scrollback
rebuilt from every byte (`tests.support.screen`). Every fault line and the summary's first and last lines of the
same run with `--plain` are whole there (wrapped onto further rows, never cut or overwritten), the live view's
head is there once, at the bottom, and its rows name the machines sim1 and sim2 and say done, with the number."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from tests.support.processes import dealer
from tests.support.screen import whole
from tests.support.terminal import final_screen, terminal_writes

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]

PLAN = {"faults": [*[{"kind": "unreadable_label", "board_number": n} for n in range(1, 13) if n != 6],
                   {"kind": "bad_label", "board_number": 6},
                   {"kind": "leftover_cards", "board_number": 9, "count": 3},
                   {"kind": "leftover_cards", "board_number": 11, "count": 52}]}
"""Faults by the number on the board: the same lines whichever machine deals it, live or plain."""

HEADS = {"en": "boards verified ·", "ru": "проверено сдач: "}
LEFT_CARDS = {"en": r"still holds cards \(.*\): empty it", "ru": r"ещё есть карты \(.*\): выньте их"}
DONE = {"en": r"done: \d+ boards? verified", "ru": r"готово: проверен[оа] \d+ сдач[аи]?"}


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=["80x24", "100x30"])
def test_the_live_view_never_writes_over_the_log(tmp_path: Path, size: tuple[int, int], lang: str) -> None:
    assert dealer("generate", "--boards", "1-12", "-o", "club.pbn", cwd=tmp_path).returncode == 0
    plan = tmp_path / "faults.json"
    plan.write_text(json.dumps(PLAN), encoding="utf-8")
    ports = [f"sim://?speed=40&seed={seed}&faults={plan}" for seed in (1, 2)]
    for run in ("live", "plain"):
        assert dealer("history", "init", f"{run}.history", cwd=tmp_path).returncode == 0
    command = ["--lang", lang, "deal", "club.pbn", *[a for p in ports for a in ("--port", p)]]
    plain = dealer(*command, "--plain", "--journal", "plain.journal", "--history", "plain.history", cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    writes, _, code = terminal_writes([*command, "--journal", "live.journal", "--history", "live.history"],
                                      tmp_path, stdout_too=True, size=size)
    screen = final_screen(writes, size)
    rows = screen.scrolled + screen.text()
    name = f"live-{size[0]}x{size[1]}-{lang}.txt"
    (tmp_path / name).write_text("\n".join(rows) + "\n", encoding="utf-8")  # kept to be looked at
    seen = "\n".join(rows)
    assert code == 0, seen

    faults = [line for line in plain.stderr.splitlines() if re.search(r"\bF\d+\b", line)]
    assert len(faults) == 12, plain.stderr
    emptied = [line for line in plain.stderr.splitlines() if re.search(LEFT_CARDS[lang], line)]
    assert len(emptied) == 2, plain.stderr  # boards 9 and 11 held cards: a board to empty, no fault by Law
    faults += emptied
    cut = [line for line in faults
           if not whole(re.sub(r"^\[[^]]+\] ", "", line), rows, starts=("[sim1] ", "[sim2] "))]
    assert cut == [], seen
    summary = plain.stdout.splitlines()
    assert whole(summary[-1], rows), seen  # the faults caught
    seconds = re.compile(r"\d+[.,]\d+ ")  # the time the run took, not the same twice
    assert whole(seconds.sub("# ", summary[0]), [seconds.sub("# ", row) for row in rows]), seen
    heads = [i for i, row in enumerate(rows) if HEADS[lang] in row and "·" in row]
    assert len(heads) == 1, seen  # no stale head left in the log
    machines = [row for row in rows[heads[0]:] if row.startswith(("sim1 ", "sim2 "))]  # by their short names
    assert len(machines) == 2 and all(re.fullmatch(rf"sim\d +{DONE[lang]}", row) for row in machines), seen
