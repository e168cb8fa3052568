"""The guides in docs/ work as written: every ```sh block of a guide runs, in order, in one shell, in a fresh
folder (holding the project's examples/, as a clone does), with the machines of the guides on sim:// ports.

```text blocks are shown, not run (an install, a real machine's port). What each guide's commands printed is
then held to what the guide says they do; the pictures the guides and the README show are there.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from tests.support.guides import DOCS, GUIDES, commands_of
from tests.support.paths import ROOT
from tests.support.plain_words import all_problems
from tests.support.processes import ENV, run


def run_guide(name: str, folder: Path) -> str:
    """Run a guide's commands in `folder`; their standard output and error, together."""
    shutil.copytree(ROOT / "examples", folder / "examples", ignore=shutil.ignore_patterns("deals", "*.journal*"))
    env = {**ENV, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{ENV.get('PATH', '')}"}
    done = run(["bash", "-c", commands_of(DOCS / name)], cwd=folder, env=env, timeout=600)
    assert done.returncode == 0, f"{name}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    written = [(p.name, p.read_text(encoding="utf-8")) for p in sorted(folder.iterdir())
               if p.suffix in (".csv", ".json", ".log", ".txt") and p.is_file()]
    assert all_problems([(name, done.stdout + done.stderr), *written]) == []  # every line reads plainly
    return done.stdout + done.stderr


@pytest.mark.slow
def test_the_directors_guide(tmp_path: Path) -> None:
    shown = run_guide("director.md", tmp_path)
    assert (tmp_path / "deal.log").read_text().startswith("16/16 boards verified in ")
    assert "[sim://?speed=100] tuesday set A: board 16: verified" in shown
    assert {p.name for p in tmp_path.iterdir()} >= {"tuesday.pbn", "records.pdf", "labels.pdf", "tuesday.csv",
                                                    "tuesday.pbn.journal"}


@pytest.mark.slow
def test_the_organisers_guide(tmp_path: Path) -> None:
    shown = run_guide("organiser.md", tmp_path)
    assert (tmp_path / "deal.log").read_text().startswith("144/144 boards verified in ")
    assert "sessions FRI1 and SAT1 both deal into board 1 of set A1" in shown
    assert "dealer plan: exit code 3" in shown
    assert re.search(r"^\[M[12]\] SAT1 set GREEN2: board \d+ copy 2: verified", shown, re.MULTILINE)
    assert (tmp_path / "report.csv").is_file() and (tmp_path / "green1-labels.pdf").is_file()


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the simulated machine's pty runs on Linux")
def test_the_engineers_guide(tmp_path: Path) -> None:
    shown = run_guide("hil.md", tmp_path)
    assert "recount: every card in its pocket" in shown
    assert "3 passed" in shown and "1 passed" in shown


def test_the_guides_and_the_readme_show_pictures_that_are_there() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in GUIDES:
        assert f"docs/{name}" in readme, f"the README does not link docs/{name}"
    pictures = set()
    for text in [readme, *((DOCS / name).read_text(encoding="utf-8") for name in GUIDES)]:
        pictures |= set(re.findall(r"!\[[^\]]*\]\(((?:docs/)?images/[^)]+)\)", text))
    assert {Path(p).name for p in pictures} >= {"live-view.svg", "hand-records.png", "labels.png"}
    for picture in pictures:
        path = ROOT / picture if picture.startswith("docs/") else DOCS / picture
        assert path.is_file() and path.stat().st_size > 1000, picture


@pytest.mark.slow
def test_the_pictures_are_made_again_by_their_script(tmp_path: Path) -> None:
    """docs/make_images.py makes every picture from a real run and real printed pages (the console's pages, seen
    in Chromium, in tests/serve/test_pictures_browser.py)."""
    from PIL import Image

    done = run([sys.executable, str(DOCS / "make_images.py"), str(tmp_path), "--without-browser"], cwd=tmp_path,
               timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    svg = (tmp_path / "live-view.svg").read_text(encoding="utf-8")
    text = re.sub(r"&#160;|&nbsp;", " ", svg)
    for words in ("boards&#160;verified", "boards/hour", "FRI1", "Law", "machine", "attempt"):
        assert words.replace("&#160;", " ") in text or words in svg, words
    for name in ("hand-records.png", "labels.png"):
        with Image.open(tmp_path / name) as picture:
            width, height = picture.size
            assert abs(height / width - 297 / 210) < 0.01, (name, picture.size)  # an A4 page
            assert len(picture.getcolors(1 << 16) or range(2)) > 1  # not a blank page
    assert not (tmp_path / "serve-room.png").exists()
