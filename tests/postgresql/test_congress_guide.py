"""docs/congress.md as a director follows it: its commands run twice on one computer, each time in a fresh folder,
on one practice database of the throwaway server (the guide's ``ROOM``); the second time passes as the first, and
the record then holds both rehearsals, every session dealt once, the password nowhere."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from dealer.journal.history import DealHistory
from dealer.journal.opening import read_journal
from tests.support.guides import DOCS, commands_of
from tests.support.paths import ROOT
from tests.support.postgres import ThrowawayServer


def test_the_congress_guide_runs_twice_on_one_practice_database(postgres: ThrowawayServer, tmp_path: Path) -> None:
    room = postgres.new_database()
    script = commands_of(DOCS / "congress.md")
    home = tmp_path / "home"
    home.mkdir()
    env = {key: value for key, value in os.environ.items() if key != "DEALER_HISTORY"}
    env.update({"HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "ROOM": room, "PYTHONPATH": str(ROOT),
                "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"})
    for time in ("first", "second"):
        folder = tmp_path / time
        folder.mkdir()
        done = subprocess.run(["bash", "-c", script], cwd=folder, env=env, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, f"{time} time:\n{done.stdout}\n{done.stderr}"
        taken = re.findall(r"session (S\d): taken by this computer", done.stdout)
        assert sorted(taken) == ["S1", "S2", "S3", "S4"], done.stdout  # each session by one of the two
        assert "S4: dealt (run" in done.stdout and (folder / "room-report.csv").is_file()
        assert postgres.password not in done.stdout + done.stderr
    with read_journal(room) as journal:
        runs = journal.runs()
        assert len(runs) == 8 and all(r.finished for r in runs)
    with DealHistory.open(room) as history:
        assert len(history) == 64
