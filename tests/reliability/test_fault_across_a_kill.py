"""A card jam met by a controller that is killed while the operator clears it is one jam: the resumed run finds
the machine still stopped on it, puts it right and deals on, and the journal counts it once."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from dealer import formats
from dealer.journal import run_report
from dealer.journal.store import Journal
from hil import PtySimulator, SimConfig
from tests.support.controllers import deal_set, finish, kill, read_until, start

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]


def test_a_jam_around_a_controller_kill_is_counted_once(tmp_path: Path) -> None:
    plan = tmp_path / "faults.json"
    plan.write_text(json.dumps({"faults": [{"kind": "jam", "board": 1, "card": 20}]}), encoding="utf-8")
    sim = PtySimulator(SimConfig.from_options(speed=2.0, seed=3, set_name="A", boards="1-2", faults=plan),
                       link=tmp_path / "machine")
    sim.start()
    try:
        deal_file, journal = tmp_path / "session.pbn", tmp_path / "session.journal"
        formats.write_file(deal_file, deal_set(5, 2))
        args = ["deal", str(deal_file), "--port", sim.path, "--journal", str(journal), "--plain"]
        first = start(*args, cwd=tmp_path)
        read_until(first, "card jam")  # the operator is clearing the card path (seconds, at this speed)
        kill(first)
        resumed = finish(start(*args, "--resume", cwd=tmp_path))
    finally:
        sim.stop()
    assert resumed.code == 0, resumed.err
    with Journal.open_read_only(journal) as held:
        report = run_report.build(held)
        story = [f"{r.kind}: {r.event.text()}" for run in held.runs() for r in held.events(run.id)]
    jams = {key: n for key, n in report.faults.items() if "jam" in key[2]}
    assert sum(jams.values()) == 1, "\n".join(story)
