"""`dealer demo`: the README's main job, on simulated machines with faults, end to end."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

import pytest

from dealer import formats
from dealer.cli import main
from dealer.dealing import sim_ports
from dealer.dealing.demo import run_demo
from dealer.journal.narrative import Incident, incidents
from dealer.journal.store import Journal
from tests.support.controllers import deal_set


def test_the_demo_deals_every_board_and_explains_every_fault(tmp_path: Path) -> None:
    out = io.StringIO()
    result = run_demo(boards=16, machines=2, folder=tmp_path, out=out)  # at the demo's own speed
    text = out.getvalue()
    assert result.complete, text
    with Journal.open(tmp_path / "session.journal") as journal:
        told = [i.caught for i in incidents(journal, result.run_id)]
        assert journal.check_consistency(result.run_id) == []
    # the faults planned for each machine's first four boards fire whatever the share of boards between
    # the machines (later ones depend on it), and each was caught, by the machine or by the host
    for caught in ("card jam", "F1 missing card", "F2 card in wrong pocket", "cable pulled"):
        assert any(caught in line for line in told), (caught, told)
    assert all("verified" in i.resolved for i in incidents_of(tmp_path, result.run_id))
    assert "every board dealt exactly once otherwise" in text
    assert "16/16 boards verified" in text


def incidents_of(folder: Path, run_id: int) -> list[Incident]:
    with Journal.open(folder / "session.journal") as journal:
        return incidents(journal, run_id)


def test_the_demo_command_exits_zero(tmp_path: Path) -> None:
    assert main(["demo", "--boards", "8", "--speed", "300", "--folder", str(tmp_path / "d")]) == 0


def test_the_demo_names_its_folder_first_and_removes_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    tempfile.tempdir = None  # read TMPDIR again
    try:
        assert main(["demo", "--boards", "4", "--speed", "300"]) == 0
    finally:
        tempfile.tempdir = None
    first = capsys.readouterr().out.splitlines()[0]
    folder = Path(first.split("working in ")[1].split(" (")[0])
    assert folder.parent == tmp_path and folder.name.startswith("dealer-demo-")
    assert not folder.exists() and list(tmp_path.iterdir()) == []


def test_the_demo_keeps_the_folder_asked_for(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keep = tmp_path / "kept"
    assert main(["demo", "--boards", "4", "--speed", "300", "--keep", str(keep)]) == 0
    said = capsys.readouterr().out.splitlines()
    assert said[0] == f"dealer demo: working in {keep} (kept)"
    kept = {p.name for p in keep.iterdir()}
    assert {"session.pbn", "session.journal", "report.json"} <= kept
    # the journal is one file to hand on: none of its side files is left, and the files named are those there
    assert not {"session.journal-wal", "session.journal-shm", "session.journal.lock"} & kept, kept
    (files,) = [line for line in said if line.strip().startswith("files: ")]
    assert set(files.strip().removeprefix("files: ").split(", ")) == kept


def test_the_demo_checks_the_ledgers_of_its_own_machines_only(tmp_path: Path) -> None:
    """Another simulated machine running in the same process (here one that dealt two boards of a session
    of its own) is no part of the demo's check of what its machines dealt."""
    other = tmp_path / "other.pbn"
    formats.write_file(other, deal_set(5, 2))
    try:
        assert main(["deal", str(other), "--port", "sim://?speed=300&seed=9", "--journal",
                     str(tmp_path / "other.journal"), "--quiet"]) == 0
        assert sim_ports.simulators()  # still running when the demo starts
        out = io.StringIO()
        result = run_demo(boards=4, machines=2, speed=300, folder=tmp_path / "demo", out=out)
    finally:
        sim_ports.stop_all()
    assert result.complete, out.getvalue()
    assert "every board dealt exactly once otherwise" in out.getvalue(), out.getvalue()
