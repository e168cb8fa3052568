"""`dealer history` on the command line: where the history is, its export and its import."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealer.cli import main
from dealer.journal.history import DealHistory
from tests.support.controllers import deal_set


def test_show_export_and_import(tmp_path: Path, capsys: pytest.CaptureFixture[str], deal_history: Path) -> None:
    with DealHistory.open() as h:
        h.record(deal_set(1, 5), run_uid="r1", run_name="club", journal="s.journal")
    assert main(["history"]) == 0
    assert capsys.readouterr().out.strip() == f"deal history {deal_history}: 5 deals of 1 run"
    out = tmp_path / "h.json"
    assert main(["history", "export", str(out)]) == 0
    assert main(["history", "export", str(out)]) == 4  # exists: --force to replace it
    assert "--force" in capsys.readouterr().err
    other = tmp_path / "other.sqlite"
    assert main(["history", "import", str(out), "--history", str(other)]) == 9  # never made unasked
    assert main(["history", "init", str(other)]) == 0
    assert main(["history", "import", str(out), "--history", str(other)]) == 0
    assert "5 new deals, 0 known already" in capsys.readouterr().out
    assert main(["history", "--history", str(other)]) == 0
    assert "5 deals of 1 run" in capsys.readouterr().out


def test_importing_a_file_that_is_no_history_changes_nothing(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "dealer deal history", "version": 1, "deals": [{"deal_hash": 1}]}')
    target = tmp_path / "h.sqlite"
    assert main(["history", "init", str(target)]) == 0
    made = target.read_bytes()
    capsys.readouterr()
    assert main(["history", "import", str(bad), "--history", str(target)]) == 3
    assert capsys.readouterr().err.strip() == f"dealer: error: {bad}: entry 1: 'deal_hash' missing or not text"
    assert target.read_bytes() == made

