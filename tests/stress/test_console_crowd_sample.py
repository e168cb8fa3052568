"""A sample of the console under a crowd (`python -m tests.stress.console_crowd`): 200 idle connections and 50
slow-loris sockets held for 12 s (longer than the 10 s the console gives a request's headers, so that it
cuts them down whatever the load on the machine), the console's open files limited to 640 (128 connections from one
address), through an 8-board run on simulated machines; the crowd must be cut down (connections closed by the
console), the run must end with every board verified and the director's Room must answer every request (within
a generous bound: this is no timing test). The full run's figures are in
docs/decisions/2026-12-07-a-crowd-at-the-door.md.
"""

from __future__ import annotations

import re
import sys

import pytest

from tests.support import console_crowd

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the console's files from /proc")


def test_a_crowd_at_the_console_neither_fails_the_run_nor_keeps_the_director_out(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = console_crowd.main(["--idle", "200", "--loris", "50", "--seconds", "12", "--boards", "8",
                               "--sim-speed", "100", "--files", "640", "--settle", "0", "--answer-within", "30"])
    said = capsys.readouterr().out
    assert code == 0, said
    assert "8 of 8 boards verified" in said and "console crowd: held" in said
    closed = re.search(r"closed by the console: (\d+) idle, (\d+) loris", said)
    assert closed and int(closed.group(1)) > 0 and int(closed.group(2)) > 0, said
