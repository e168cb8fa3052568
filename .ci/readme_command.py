"""Prints one command of the README, as written, for .ci/run to run: `setup` (the code block under "## Set up")
or `tests` (the one under "## The tests"). Standard library only: it runs before anything is installed."""

from __future__ import annotations

import re
import sys
from pathlib import Path

SECTIONS = {"setup": "Set up", "tests": "The tests"}


def command(readme: str, section: str) -> str:
    """The one line of the first ```sh block under the section's heading."""
    part = re.split(rf"^## {re.escape(section)}\n", readme, maxsplit=1, flags=re.M)
    if len(part) != 2:
        raise SystemExit(f"README.md: no section '## {section}'")
    block = re.search(r"^```sh\n(.*?)^```", part[1].split("\n## ", 1)[0], flags=re.M | re.S)
    lines = [line for line in block.group(1).splitlines() if line.strip()] if block else []
    if len(lines) != 1:
        raise SystemExit(f"README.md: the section '## {section}' must hold one command in a ```sh block")
    return lines[0]


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in SECTIONS:
        raise SystemExit(f"usage: {sys.argv[0]} {{{','.join(SECTIONS)}}}")
    print(command((Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8"),
                  SECTIONS[sys.argv[1]]))
