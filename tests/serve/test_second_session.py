"""Two sessions in a row on the console's simulated machines: the boards come back empty from the tables
between them, as real boards do (the simulator's own ledger notes each one emptied), so the second deals
without a step for the operator; no fault by Law comes of the first session's cards, in the room, the report or
the journal."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from dealer.dealing.sim_ports import simulators
from dealer.journal import run_report
from dealer.journal.store import Journal
from tests.support.processes import ENV
from tests.support.serve_room import console_client, offered
from tests.support.serve_room import sim_ports as sim_urls


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with console_client(tmp_path / "work") as test_client:
        yield test_client


def session_file(folder: Path, name: str) -> Path:
    path = folder / name
    subprocess.run([sys.executable, "-m", "dealer", "generate", "--boards", "1-8", "-o", str(path)], env=ENV,
                   check=True, capture_output=True, timeout=60)
    return path


def deal(client: TestClient, source: Path, machines: list[str]) -> list[dict[str, Any]]:
    started = client.post("/api/start", json={"source": source.name, "machines": machines})
    assert started.status_code == 200, started.text
    messages: list[dict[str, Any]] = []
    with client.stream("GET", "/events?until=end") as stream:
        for line in stream.iter_lines():
            if line.startswith("data: "):
                messages += json.loads(line.removeprefix("data: "))
    ended = [m for m in messages if m["type"] == "ended"]
    assert ended and ended[-1]["status"] == "finished", ended
    return messages


def test_a_second_session_finds_the_boards_empty_and_reports_no_fault_by_law(client: TestClient,
                                                                            tmp_path: Path) -> None:
    work = tmp_path / "work"
    machines = offered(sim_urls(tmp_path, 200, [[]]))  # one machine: its rack holds the first session's boards
    client.app.state.console.offer.extra = machines  # type: ignore[attr-defined]
    first, second = session_file(work, "first.pbn"), session_file(work, "second.pbn")
    deal(client, first, list(machines))
    (sim,) = [running[url] for url in machines.values() if url in (running := simulators())]
    with sim.lock:
        assert sim.device is not None
        full = {board.ident for board in sim.device.room.rack if board.card_count == 52}
        emptied_before = len(sim.device.ledger.emptied)
    assert len(full) == 8, full  # the first session's boards, each full of its cards
    messages = deal(client, second, list(machines))

    with sim.lock:
        assert sim.device is not None
        emptied = sim.device.ledger.emptied[emptied_before:]
        starts = {record.board: record.cards_before for record in sim.device.ledger.records[8:]}
    assert {ident for ident, cards in emptied if cards == 52} == full  # back from the tables, each emptied
    assert starts and set(starts.values()) == {0}, starts  # every dealing of the second began on an empty board
    (ended,) = [m for m in messages if m["type"] == "ended"]
    assert ended["summary"].splitlines()[0].startswith("Run report of second.pbn.journal: 1 run(s), 8 boards"), ended
    room = client.get("/api/room").json()
    assert [f for f in room["faults"] if f["law"]] == [], room["faults"]
    assert not any(f.get("law") for m in messages for f in m.get("faults", []))
    with Journal.open_read_only(f"{second}.journal") as journal:
        report = run_report.build(journal)
        refused = [r for run in journal.runs() for r in journal.events(run.id) if r.kind == "board-refused"]
    assert refused == [], refused  # no board to empty: the operator had no step to take
    assert not report.faults, report.faults
