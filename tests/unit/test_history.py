"""The deal history of a computer: what it keeps (hashes, never deals), Law 6D2 against it, export and import,
several writers at once, and where it lives."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import platformdirs
import pytest

from dealer import formats
from dealer.cli import main
from dealer.core.errors import DealReused, FormatError, JournalError, OutputExistsError
from dealer.dealing import sim_ports
from dealer.journal import history
from dealer.journal.history import DealHistory, check_reuse
from dealer.verify import FaultCategory, deal_hash
from tests.support.controllers import deal_set
from tests.support.processes import released_at_once


@pytest.fixture(autouse=True)
def _stop_simulators() -> Iterator[None]:
    """The simulated machines a test's in-process `dealer deal` started on ``sim://`` ports go with it."""
    yield
    sim_ports.stop_all()



def test_a_run_is_recorded_by_deal_hash_and_nothing_else_of_the_deal(tmp_path: Path) -> None:
    deals = deal_set(1, 4)
    with DealHistory.open(tmp_path / "h.sqlite", create=True) as h:
        assert h.record(deals, run_uid="r1", run_name="club", journal=tmp_path / "s.journal") == 4
        assert h.record(deals, run_uid="r1", run_name="club", journal=tmp_path / "s.journal") == 0  # again
        entries = h.entries()
    assert [(e.board, e.deal_hash) for e in entries] == [(int(b), deal_hash(d)) for b, d in
                                                         zip(deals.boards, deals.deals, strict=True)]
    raw = (tmp_path / "h.sqlite").read_bytes()
    assert all(bytes(d).hex() not in raw.hex() for d in deals.deals)  # no deal, not even packed
    assert stat.S_IMODE((tmp_path / "h.sqlite").stat().st_mode) == 0o600


def test_law_6d2_refuses_deals_of_another_run_and_lets_a_run_resume(tmp_path: Path) -> None:
    deals = deal_set(2, 4)
    with DealHistory.open(tmp_path / "h.sqlite", create=True) as h:
        h.record(deals, run_uid="monday", run_name="club night", journal=tmp_path / "a" / "s.journal")
        assert check_reuse(h, deals, name="club night", replay=False, run_uid="monday") == []  # its own resume
        one_shared = deal_set(3, 4)
        one_shared.deals[2] = deals.deals[1]
        with pytest.raises(DealReused, match=r"tuesday: F10 .*Law 6D2.*board 3 was already dealt in session "
                                             r"'run club night of journal .*a/s\.journal.*--replay") as refused:
            check_reuse(h, one_shared, name="tuesday", replay=False)
        assert refused.value.exit_code == 8
        (warning,) = check_reuse(h, deals, name="replay", replay=True)
        assert warning.code is FaultCategory.F10 and not warning.blocking
        assert check_reuse(h, deal_set(4, 4), name="fresh", replay=False) == []


def test_export_and_import_carry_the_history_to_another_computer(tmp_path: Path) -> None:
    deals = deal_set(5, 3)
    with DealHistory.open(tmp_path / "one.sqlite", create=True) as one:
        one.record(deals, run_uid="r1", run_name="club", journal="s.journal", replay=False)
        assert one.export(tmp_path / "out.json") == 3
        with pytest.raises(OutputExistsError):
            one.export(tmp_path / "out.json")
    assert stat.S_IMODE((tmp_path / "out.json").stat().st_mode) == 0o600
    with DealHistory.open(tmp_path / "two.sqlite", create=True) as two:
        two.record(deal_set(6, 2), run_uid="r9", run_name="other", journal="o.journal")
        assert two.import_file(tmp_path / "out.json") == (3, 3)
        assert two.import_file(tmp_path / "out.json") == (0, 3)
        assert len(two) == 5
        with pytest.raises(DealReused, match="run club of journal"):
            check_reuse(two, deals, name="copy", replay=False)


@pytest.mark.parametrize(("text", "why"), [
    ("not json", "not an exported deal history"),
    ('{"format": "something else"}', "not an exported deal history"),
    ('{"format": "dealer deal history", "version": 7, "deals": []}', "version 7"),
    ('{"format": "dealer deal history", "version": 1, "deals": [{"deal_hash": "ab"}]}', "entry 1: 'run'"),
    ('{"format": "dealer deal history", "version": 1, "deals": [{"deal_hash": "AB", "run": "r", "name": "n", '
     '"journal": "j", "host": "h", "recorded": "t", "board": 1, "replay": false}]}', "entry 1: 'deal_hash'"),
])
def test_a_file_that_is_no_exported_history_is_refused_naming_it(tmp_path: Path, text: str, why: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    with pytest.raises(FormatError, match=rf"{bad}: .*{why}"):
        history.read_export(bad)


WRITER = """
import sys
from dealer.journal.history import DealHistory
from tests.support.controllers import deal_set
with DealHistory.open(sys.argv[1]) as h:
    print("ready", flush=True)
    sys.stdin.readline()
    for k in range(40):
        h.record(deal_set(int(sys.argv[2]) * 1000 + k, 3), run_uid=f"{sys.argv[2]}-{k}", run_name="r", journal="j")
"""


def test_controllers_writing_at_once_lose_no_entry(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    DealHistory.open(path, create=True).close()
    for code, _, err in released_at_once([(WRITER, str(path), str(w)) for w in range(4)], timeout=120):
        assert code == 0, err
    with DealHistory.open(path) as h:
        assert len(h) == 4 * 40 * 3
        assert len({e.run_uid for e in h.entries()}) == 160


def test_where_the_history_lives(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert history.default_path() == Path(os.environ["DEALER_HISTORY"])  # every test has its own
    monkeypatch.delenv("DEALER_HISTORY")
    assert history.default_path() == Path(platformdirs.user_data_dir("dealer", appauthor=False)) / "history.sqlite"
    monkeypatch.setenv("HOME", str(tmp_path))  # this user's own history, made where it lives by the convention
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "x"))
    with DealHistory.open() as h:
        assert h.path == tmp_path / "x" / "dealer" / "history.sqlite"
    assert stat.S_IMODE((tmp_path / "x" / "dealer").stat().st_mode) == 0o700


@pytest.mark.parametrize("how", ["--history", "DEALER_HISTORY"])
@pytest.mark.parametrize("where", ["no such folder/history.sqlite", "histroy.sqlite"])
def test_a_named_history_that_does_not_exist_is_refused_never_made(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str,
        where: str) -> None:
    """A mistyped --history or $DEALER_HISTORY would make an empty history and check the run against
    nothing (Law 6D2): it is refused, in one line that says how to make one, and nothing is made."""
    session = tmp_path / "s.pbn"
    formats.write_file(session, deal_set(3, 4))
    named = tmp_path / where
    before = sorted(tmp_path.rglob("*"))
    argv = ["deal", str(session), "--port", "sim://?speed=500", "--quiet"]
    if how == "--history":
        argv += ["--history", str(named)]
    else:
        monkeypatch.setenv("DEALER_HISTORY", str(named))
    assert main(argv) == 9
    (line,) = [line for line in capsys.readouterr().err.strip().splitlines() if "error" in line]
    assert line.startswith(f"dealer: error: {named}: ") and f"dealer history init {named}" in line, line
    assert sorted(tmp_path.rglob("*")) == before
    assert main(["history"] + (["--history", str(named)] if how == "--history" else [])) == 9
    capsys.readouterr()
    if "folder" not in where:
        assert main(["history", "init", str(named)]) == 0
        assert main(argv) == 0
        assert main(["history", "init", str(named)]) == 4  # never made over a history


def test_the_export_file_is_plain_json_of_hashes(tmp_path: Path) -> None:
    deals = deal_set(7, 2)
    with DealHistory.open(tmp_path / "h.sqlite", create=True) as h:
        h.record(deals, run_uid="r1", run_name="club", journal="s.journal", replay=True)
        h.export(tmp_path / "out.json")
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["format"] == "dealer deal history" and data["version"] == 1
    assert [(d["board"], d["deal_hash"], d["replay"]) for d in data["deals"]] == [
        (1, deal_hash(deals.deals[0]), True), (2, deal_hash(deals.deals[1]), True)]


def test_runs_are_listed_with_their_deals_and_one_is_forgotten_whole(tmp_path: Path) -> None:
    with DealHistory.open(tmp_path / "h.sqlite", create=True) as h:
        h.record(deal_set(1, 4), run_uid="aaaa1111", run_name="tuesday", journal=tmp_path / "t.journal")
        h.record(deal_set(2, 3), run_uid="bbbb2222", run_name="practice", journal=tmp_path / "p.journal")
        runs = h.runs()
        assert [(r.run_uid, r.run_name, r.deals) for r in runs] == [("aaaa1111", "tuesday", 4),
                                                                   ("bbbb2222", "practice", 3)]
        assert runs[1].where().startswith(f"run practice of journal {tmp_path / 'p.journal'} (host ")
        assert h.forget("bbbb2222") == 3
        assert [r.run_uid for r in h.runs()] == ["aaaa1111"] and len(h) == 4
        assert h.forget("bbbb2222") == 0


def test_a_forget_stopped_half_way_removes_nothing(tmp_path: Path) -> None:
    """The run's entries go in one transaction: a failure after some of them were deleted (here the file
    refuses the deletion of the third) leaves every one of them."""
    with DealHistory.open(tmp_path / "h.sqlite", create=True) as h:
        h.record(deal_set(3, 5), run_uid="cccc3333", run_name="practice", journal=tmp_path / "p.journal")
    import sqlite3

    db = sqlite3.connect(tmp_path / "h.sqlite")
    db.execute("CREATE TRIGGER stop BEFORE DELETE ON deals WHEN old.board = 3 BEGIN SELECT RAISE(ABORT, 'stopped'); "
               "END")
    db.commit()
    db.close()
    with DealHistory.open(tmp_path / "h.sqlite") as h:
        with pytest.raises(JournalError, match="the deal history cannot be written"):
            h.forget("cccc3333")
        assert len(h) == 5


def test_a_practice_run_keeps_its_own_history_unless_one_is_named(monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    monkeypatch.delenv("DEALER_HISTORY")
    sim = ["sim://?speed=50&seed=1", "sim://?seed=2"]
    path = history.practice_history(sim, tmp_path)
    assert path == tmp_path / "simulated-history.sqlite" and path.is_file()
    assert history.practice_history([*sim, "/dev/ttyUSB0"], tmp_path) is None  # a real machine: the club's
    assert history.practice_history([], tmp_path) is None
    assert history.practice_history(sim, tmp_path, given=tmp_path / "named.sqlite") is None
    monkeypatch.setenv("DEALER_HISTORY", str(tmp_path / "named.sqlite"))
    assert history.practice_history(sim, tmp_path) is None
