"""The deal history in PostgreSQL: the same guarantees as the history file (each test runs on both stores), by
`dealer history` as a user types it, several computers writing at once, and a password that appears nowhere."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer.core.errors import DealReused, JournalError
from dealer.journal.history import DealHistory, check_reuse
from dealer.verify import deal_hash
from tests.support.controllers import deal_set
from tests.support.paths import ROOT
from tests.support.postgres import ThrowawayServer
from tests.support.processes import released_at_once


@pytest.fixture(params=["sqlite", "postgresql"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new, empty history: a file, or a database on the throwaway server."""
    if request.param == "sqlite":
        path = str(tmp_path / "history.sqlite")
    else:
        server: ThrowawayServer = request.getfixturevalue("postgres")
        path = server.new_database()
    DealHistory.open(path, create=True).close()
    yield path


def dealer(*args: str, home: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`dealer ARGS` as a user on a computer of its own (its own home folder)."""
    home.mkdir(exist_ok=True)
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
                   "XDG_CACHE_HOME": str(home / "cache"), **(env or {})}
    environment.pop("DEALER_HISTORY", None)
    environment.update(env or {})
    return subprocess.run([sys.executable, "-m", "dealer", *args], capture_output=True, text=True, cwd=home,
                          env=environment, timeout=120)


def test_a_run_is_recorded_by_hash_and_law_6d2_refuses_another_runs_deal(where: str, tmp_path: Path) -> None:
    deals = deal_set(2, 4)
    with DealHistory.open(where) as h:
        assert h.record(deals, run_uid="monday", run_name="club night", journal=tmp_path / "s.journal") == 4
        assert h.record(deals, run_uid="monday", run_name="club night", journal=tmp_path / "s.journal") == 0
        assert [(e.board, e.deal_hash) for e in h.entries()] == [(int(b), deal_hash(d)) for b, d in
                                                                 zip(deals.boards, deals.deals, strict=True)]
        assert check_reuse(h, deals, name="club night", replay=False, run_uid="monday") == []  # its own resume
        one_shared = deal_set(3, 4)
        one_shared.deals[2] = deals.deals[1]
        with pytest.raises(DealReused, match=r"tuesday: F10 .*Law 6D2.*board 3 was already dealt") as refused:
            check_reuse(h, one_shared, name="tuesday", replay=False)
        assert refused.value.exit_code == 8
        assert [(r.run_uid, r.deals) for r in h.runs()] == [("monday", 4)]
        assert h.forget("monday") == 4 and len(h) == 0


def test_job_numbers_go_on_from_the_last_one_given_to_the_machine(where: str) -> None:
    with DealHistory.open(where) as h:
        assert h.last_job("SIM-1") == 0
        assert h.reserve_job("SIM-1", 1) == 1
        assert h.reserve_job("SIM-1", 1) == 2  # never a number given before
        assert h.reserve_job("SIM-1", 9) == 9
        assert h.last_job("SIM-1") == 9 and h.last_job("SIM-2") == 0


WRITER = """
import sys
from dealer.journal.history import DealHistory
from tests.support.controllers import deal_set
with DealHistory.open(sys.argv[1]) as h:
    print("ready", flush=True)
    sys.stdin.readline()
    jobs = []
    for k in range(30):
        h.record(deal_set(int(sys.argv[2]) * 1000 + k, 3), run_uid=f"{sys.argv[2]}-{k}", run_name="r", journal="j")
        jobs.append(h.reserve_job("SIM-SHARED", 1))
    print(" ".join(map(str, jobs)), flush=True)
"""


def test_computers_writing_at_once_lose_no_entry_and_share_no_job_number(where: str) -> None:
    numbers: list[int] = []
    for code, out, err in released_at_once([(WRITER, where, str(w)) for w in range(4)]):
        assert code == 0, err
        numbers += [int(n) for n in out.split()]
    assert sorted(numbers) == list(range(1, 121))  # each number given once
    with DealHistory.open(where) as h:
        assert len(h) == 4 * 30 * 3
        assert len(h.runs()) == 120


def test_dealer_history_on_postgresql_as_a_user_types_it(postgres: ThrowawayServer, tmp_path: Path) -> None:
    url = postgres.new_database()
    shown = url.replace(f":{postgres.password}@", "@")
    made = dealer("history", "init", url, home=tmp_path / "one")
    assert made.returncode == 0, made.stderr
    assert shown in made.stdout
    again = dealer("history", "--history", url, home=tmp_path / "two")
    assert again.returncode == 0 and f"deal history {shown}: 0 deals" in again.stdout
    with DealHistory.open(url) as h:
        h.record(deal_set(7, 5), run_uid="r1", run_name="club", journal="s.journal")
    listed = dealer("history", "list", home=tmp_path / "three", env={"DEALER_HISTORY": url})
    assert listed.returncode == 0 and "5 deals of 1 run" in listed.stdout, listed.stdout
    exported = dealer("history", "--history", url, "export", str(tmp_path / "h.json"), home=tmp_path / "one")
    assert exported.returncode == 0, exported.stderr
    imported = dealer("history", "import", str(tmp_path / "h.json"), home=tmp_path / "two",
                      env={"DEALER_HISTORY": str(tmp_path / "file.sqlite")})
    assert imported.returncode != 0  # a named file that was never made is refused
    for done in (made, again, listed, exported, imported):
        assert postgres.password not in done.stdout + done.stderr


def test_a_database_without_a_history_or_a_wrong_password_is_one_line_without_the_password(
        postgres: ThrowawayServer, tmp_path: Path) -> None:
    url = postgres.new_database()
    none = dealer("history", "--history", url, home=tmp_path / "a")
    assert none.returncode == JournalError.exit_code
    assert none.stderr.count("\n") == 1 and "no deal history in this database" in none.stderr
    assert "dealer history init" in none.stderr
    wrong = url.replace(postgres.password, "not-" + postgres.password[:6])
    refused = dealer("history", "--history", wrong, home=tmp_path / "b")
    assert refused.returncode == JournalError.exit_code
    assert refused.stderr.count("\n") == 1 and "cannot be reached" in refused.stderr
    assert "Traceback" not in refused.stderr
    for done in (none, refused):
        assert postgres.password not in done.stdout + done.stderr
        assert postgres.password[:6] not in done.stdout + done.stderr


def test_law_6d2_is_decided_in_the_transaction_that_records_a_deal(where: str) -> None:
    # two computers that both passed the check at the start: the second to record a deal is refused, and
    # records nothing of the batch
    deals = deal_set(11, 4)
    with DealHistory.open(where) as first, DealHistory.open(where) as second:
        assert first.record(deals, run_uid="A", run_name="monday", journal="a.journal", boards=[2]) == 1
        with pytest.raises(DealReused, match=r"tuesday: F10 .*board 2 was already dealt") as refused:
            second.record(deals, run_uid="B", run_name="tuesday", journal="b.journal", boards=[1, 2])
        assert refused.value.exit_code == 8
        assert [(e.run_uid, e.board) for e in second.entries()] == [("A", 2)]
        assert first.record(deals, run_uid="A", run_name="monday", journal="a.journal", boards=[1, 2]) == 1  # a resume
        assert second.record(deals, run_uid="C", run_name="replay", journal="c.journal", replay=True) == 4


def deal_file(home: Path, name: str, seed: int) -> Path:
    out = home / name
    done = dealer("generate", "--count", "6", "--seed", f"{seed:040x}", "-o", str(out), home=home)
    assert done.returncode == 0, done.stderr
    return out


def test_two_computers_deal_two_files_at_once_on_one_history_and_a_third_is_refused_the_first_again(
        postgres: ThrowawayServer, tmp_path: Path) -> None:
    url = postgres.new_database()
    assert dealer("history", "init", url, home=tmp_path / "director").returncode == 0
    homes = [tmp_path / "one", tmp_path / "two"]
    files = [deal_file(home, "session.pbn", seed) for home, seed in zip(homes, (1, 2), strict=True)]
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "DEALER_HISTORY": url}
    runs = [subprocess.Popen([sys.executable, "-m", "dealer", "deal", str(f), "--port", "sim://?speed=200",
                              "--journal", str(h / "s.journal")], cwd=h, text=True, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env={**environment, "HOME": str(h),
                                                          "XDG_DATA_HOME": str(h / "data")})
            for h, f in zip(homes, files, strict=True)]
    for run in runs:
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0, err
        assert "6/6 boards verified" in out
        assert postgres.password not in out + err
    listed = dealer("history", "list", home=tmp_path / "director", env={"DEALER_HISTORY": url})
    assert "12 deals of 2 runs" in listed.stdout, listed.stdout
    third = tmp_path / "three"
    again = dealer("deal", str(files[0]), "--port", "sim://?speed=200", "--journal", str(third / "s.journal"),
                   home=third, env={"DEALER_HISTORY": url})
    assert again.returncode == 8, again.stderr
    assert "Law 6D2" in again.stderr and "nothing was dealt" in again.stderr
    assert "verified" not in again.stdout
    assert postgres.password not in again.stdout + again.stderr
    with DealHistory.open(url) as h:
        assert len(h) == 12 and len({e.deal_hash for e in h.entries()}) == 12


def test_two_computers_starting_one_file_at_once_never_both_deal_a_deal(postgres: ThrowawayServer,
                                                                        tmp_path: Path) -> None:
    # both may pass the check at the start; the record of each deal, with its Law 6D2 check in one transaction,
    # lets only one of them deal it
    url = postgres.new_database()
    assert dealer("history", "init", url, home=tmp_path / "director").returncode == 0
    session = deal_file(tmp_path / "director", "session.pbn", 3)
    homes = [tmp_path / "one", tmp_path / "two"]
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "DEALER_HISTORY": url}
    runs = []
    for home in homes:
        home.mkdir()
        runs.append(subprocess.Popen([sys.executable, "-m", "dealer", "deal", str(session), "--port",
                                      "sim://?speed=200", "--journal", str(home / "s.journal")], cwd=home, text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env={**environment, "HOME": str(home), "XDG_DATA_HOME": str(home / "data")}))
    results = [(run.communicate(timeout=300), run.returncode) for run in runs]
    assert sorted(code for _, code in results) == [0, 8], results
    verified = [int(found.group(1)) if (found := re.search(r"(\d+)/6 boards verified", out)) else 0
                for (out, _), _ in results]  # a computer refused at the start says no count
    assert sum(verified) == 6  # every board dealt once, by one computer
    refused = next(err for (_, err), code in results if code == 8)
    assert "Law 6D2" in refused and postgres.password not in refused
    with DealHistory.open(url) as h:
        assert len(h) == 6 and len(h.runs()) == 1
