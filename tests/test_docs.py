"""The pictures the guides and the README show are there, and their script makes them again. (That each
guide's commands work as written, twice on one computer, is tests/test_practice_twice.py.)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.support.guides import DOCS, GUIDES
from tests.support.paths import ROOT
from tests.support.processes import run


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


def test_the_simulators_guide_names_every_kind_of_fault_a_plan_may_give() -> None:
    """`dealer sim --help` sends a reader to docs/simulator.md for fault plans: every kind the simulator takes
    is in its table."""
    from hil.fault_plan import FaultKind

    guide = (ROOT / "docs" / "simulator.md").read_text(encoding="utf-8")
    table = guide[guide.index("## Fault plans"):]
    missing = [k.value for k in FaultKind if f"`{k.value}`" not in table]
    assert missing == []
