"""The statistics section of the run report: the verdict and the wild deals of the deals dealt, in the
report file of a run (text, CSV, JSON) and in `dealer report` where the runs' deal files are at hand;
never a deal."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from dealer import formats
from dealer.cli import main
from dealer.core.cards import hand_text
from dealer.core.dealset import DealSet
from dealer.dealing import report_file
from dealer.dealing.progress import RunProgress
from dealer.engines import make_engine
from dealer.journal.jobplan import JobPlan
from dealer.journal.store import Journal
from tests.support.deal_features import array_hands, is_wild


@pytest.fixture
def dealt(tmp_path: Path) -> tuple[Path, Path, DealSet]:
    """A deal file of 24 boards and a journal with one run of it."""
    deals = DealSet.from_deals(make_engine("bigdeal", bytes(range(20)), "club").deals(24))
    path = tmp_path / "tuesday.pbn"
    formats.write_file(path, deals)
    journal = tmp_path / "tuesday.journal"
    with Journal.open(journal) as j:
        j.begin_run("tuesday", str(path.resolve()), deals, [JobPlan(int(b), 1, "", "A") for b in deals.boards])
    return path, journal, deals


def no_hand_in(text: str, deals: DealSet) -> bool:
    return not [h for d in deals.deals for h in (hand_text(d, s) for s in range(4)) if h in text]


def test_the_run_report_file_has_the_verdict_and_the_wild_deals(dealt: tuple[Path, Path, DealSet]) -> None:
    path, journal, deals = dealt
    wild = sum(any(is_wild(h) for h in hands) for hands in array_hands(deals.deals))
    progress = RunProgress(total_jobs=24, out=io.StringIO())
    outputs = {kind: path.parent / f"run.{kind}" for kind in ("txt", "csv", "json")}
    with Journal.open(journal) as j:
        for out in outputs.values():
            report_file.write_run_report(out, j, [1], progress, {}, deals=deals)
    text = outputs["txt"].read_text()
    assert "Deal statistics (the deals of this run)\n  These 24 deals are" in text
    assert f"wild deals: {wild} of 24 (" in text and "a perfect shuffle gives 28.8 %" in text
    rows = [r for r in csv.DictReader(outputs["csv"].open()) if r["table"] == "deal statistics"]
    figures = {r["item"]: r["value"] for r in rows}
    assert figures["deals"] == "24" and figures["wild deals"] == str(wild)
    assert figures["verdict"].startswith("These 24 deals are")
    body = json.loads(outputs["json"].read_text())
    assert body["report"]["deal_statistics"]["wild deals"] == str(wild)
    for out in outputs.values():
        assert no_hand_in(out.read_text(), deals)


def test_dealer_report_adds_the_statistics_when_the_deal_files_are_at_hand(
        dealt: tuple[Path, Path, DealSet], capsys: pytest.CaptureFixture[str]) -> None:
    path, journal, deals = dealt
    assert main(["report", str(journal)]) == 0
    text = capsys.readouterr().out
    assert "Deal statistics (the deals of 1 of 1 runs)\n  These 24 deals are" in text
    assert no_hand_in(text, deals)
    path.unlink()                                  # the deal file gone: the report has no such section
    assert main(["report", str(journal)]) == 0
    assert "Deal statistics" not in capsys.readouterr().out
