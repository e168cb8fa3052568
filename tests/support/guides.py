"""The guides in docs/ as scripts: their names and the ```sh blocks of each, in order, as one shell script."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.paths import ROOT

DOCS = ROOT / "docs"
GUIDES = ("director.md", "organiser.md", "hil.md")
SH_BLOCK = re.compile(r"^```sh\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def commands_of(guide: Path) -> str:
    """The guide's ```sh blocks, in order, as one script that stops at the first failing command."""
    blocks = SH_BLOCK.findall(guide.read_text(encoding="utf-8"))
    assert blocks, f"{guide.name} has no ```sh block"
    return "set -euo pipefail\n" + "\n".join(blocks)
