"""Congress plan texts for tests: a plan with two machines and two sessions, where a fragment sits, a plan file."""

from __future__ import annotations

from pathlib import Path

BASE = '''\
[event]
name = "Test Congress"
owner = "Test Owner"

[[machines]]
name = "M1"
port = "/dev/ttyUSB0"

[[machines]]
name = "M2"
port = "rfc2217://dealroom.local:4001"

[[sessions]]
name = "MON1"
boards = "1-4"

[[sessions.sections]]
name = "A"
copies = 2

[[sessions.sections]]
name = "B"
sets = ["RED", "BLUE", "GREEN"]

[[sessions]]
name = "MON2"
boards = "5-7"
source = "shuffle"
order = "board"

[[sessions.sections]]
name = "A"
copies = 2

[[sessions.sections]]
name = "C"
boards = "6-7"
'''


def line_with(text: str, fragment: str, nth: int = 1) -> int:
    """The number of the nth line of `text` holding `fragment` (from 1)."""
    hits = [i for i, line in enumerate(text.splitlines(), start=1) if fragment in line]
    assert len(hits) >= nth, f"{fragment!r} not in the plan text"
    return hits[nth - 1]


def write(tmp_path: Path, text: str) -> Path:
    """`text` as congress.toml in `tmp_path`."""
    path = tmp_path / "congress.toml"
    path.write_text(text, encoding="utf-8")
    return path
