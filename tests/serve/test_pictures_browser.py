"""The README's pictures of the console (docs/make_images.py: the Room mid-run and the Director's page), made
again in the system's Chromium: each the size the README shows, and not blank."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PIL import Image

from tests.support.browser import installed_chromium
from tests.support.paths import ROOT
from tests.support.processes import run


@pytest.mark.slow
def test_the_console_pictures_are_made_again_in_chromium(tmp_path: Path) -> None:
    installed_chromium()
    done = run([sys.executable, str(ROOT / "docs" / "make_images.py"), str(tmp_path)], cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    for name, size in (("serve-room.png", (1200, 900)), ("serve-director.png", (1280, None))):
        with Image.open(tmp_path / name) as picture:
            assert picture.size[0] == size[0] and picture.size[1] == (size[1] or picture.size[1]), name
            assert len(picture.getcolors(1 << 16) or range(2)) > 1, name
