"""Practice never touches the club's record, and so works every time: the README's runnable commands and
every guide's commands run twice on one computer, each time in a fresh folder (a new clone, another day),
with one home folder and so one deal history of this computer, and the second time passes as the first.

The computer is a temporary home (``HOME`` and ``XDG_DATA_HOME``; no ``DEALER_HISTORY``), so these runs
never reach the real one; at the end this computer's deal history holds no deal: every run was practice
(simulated machines only, the demo, tests on the `dealing_machine` fixture).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.support.guides import DOCS, GUIDES, commands_of
from tests.support.paths import ROOT
from tests.support.processes import ENV, run

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sim:// ports need a pty (Linux CI)")]

SH_BLOCK = re.compile(r"^```sh\n(.*?)^```$", re.MULTILINE | re.DOTALL)
README_RUNNABLE = ("dealer demo", "dealer plan examples/congress.toml --generate", "dealer history ")
"""The README's blocks that run on any computer, by their first command: the others need a real machine
(/dev/ttyUSB0), a network install, a browser, or files of the reader's own."""


def one_computer(home: Path) -> Mapping[str, str]:
    """The environment of a computer whose user's home is `home`: no deal history named."""
    env = {key: value for key, value in ENV.items() if key != "DEALER_HISTORY"}
    return {**env, "HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share"),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"}


def club_history_deals(home: Path) -> int:
    """How many deals this computer's own deal history holds (0 when it was never made)."""
    from dealer.journal.history import DealHistory

    path = home / ".local" / "share" / "dealer" / "history.sqlite"
    if not path.is_file():
        return 0
    with DealHistory.open(path) as history:
        return len(history)


def fresh_clone(folder: Path) -> Path:
    """A folder holding the project's examples/ and the SquareDeal event the congress example names."""
    folder.mkdir()
    shutil.copytree(ROOT / "examples", folder / "examples", ignore=shutil.ignore_patterns("deals", "*.journal*",
                                                                                           "*.sqlite*"))
    event = Path("tests", "data", "squaredeal", "WBG2024")
    shutil.copytree(ROOT / event, folder / event)
    return folder


def readme_blocks() -> dict[str, str]:
    """The README's runnable blocks, by the first command of each."""
    blocks = {start: b for b in SH_BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8"))
              for start in README_RUNNABLE if b.startswith(start)}
    assert len(blocks) == len(README_RUNNABLE), "a runnable block of the README is gone: update README_RUNNABLE"
    return blocks


def twice(script: str, tmp_path: Path) -> list[str]:
    """Run `script` in two fresh clones, one after the other, on one computer; both must pass. Returns
    what each printed."""
    home = tmp_path / "home"
    home.mkdir()
    shown = []
    for attempt in ("first", "second"):
        folder = fresh_clone(tmp_path / attempt)
        # each command traced (bash -x), so that a run stuck names where; killed before pytest's own timeout
        done = run(["bash", "-xc", script], cwd=folder, env=one_computer(home), timeout=240)
        assert done.returncode == 0, (f"the {attempt} run: exit {done.returncode}\n{done.stdout[-3000:]}\n"
                                      f"{done.stderr[-3000:]}")
        shown.append(done.stdout + done.stderr)
    assert club_history_deals(home) == 0
    return shown


@pytest.mark.timeout(600)
@pytest.mark.parametrize("block", README_RUNNABLE)
def test_the_readme_commands_work_twice_on_one_computer(tmp_path: Path, block: str) -> None:
    """Each runnable block of the README, twice on a computer of its own (the blocks run side by side)."""
    first, second = twice("set -euo pipefail\n" + readme_blocks()[block], tmp_path)
    practice = {"dealer demo": 1, "dealer plan examples/congress.toml --generate": 2, "dealer history ": 0}[block]
    for shown in (first, second):
        assert shown.count("practice run: its deals are kept in a practice history") == practice  # demo, plan, deal
        if block.startswith("dealer plan"):
            assert re.search(r"^342/342 boards verified in ", shown, re.MULTILINE), shown[-2000:]
    if block.startswith("dealer plan"):
        assert (tmp_path / "second" / "examples" / "simulated-history.sqlite").is_file()


@pytest.mark.timeout(600)
@pytest.mark.parametrize("guide", GUIDES)
def test_every_guide_works_twice_on_one_computer(tmp_path: Path, guide: str) -> None:
    first, second = twice(commands_of(DOCS / guide), tmp_path)
    if guide == "hil.md":  # the jam test, dealing one fixed deal, passes again
        assert "1 passed" in second and "3 passed" in second
