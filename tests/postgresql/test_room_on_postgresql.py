"""A room's computers on one record in PostgreSQL, as a director runs them: `dealer deal --journal URL` with the
deal history in the same database, each computer a home folder of its own. Judged by the record read afresh and
by the simulated machines' ledgers: two computers at once, a third refused; a controller killed and its run
resumed from another computer; the server stopped under a run, short and long; kills at random instants."""

from __future__ import annotations

import os
import re
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer import formats
from dealer.journal.history import DealHistory
from dealer.journal.opening import read_journal
from dealer.journal.store import JobState
from hil import PtySimulator, SimConfig
from tests.support.computers import computer, computer_env, dealer_on
from tests.support.controllers import deal_set, dealt, finish, read_until, start
from tests.support.kill_loops import kills_alone
from tests.support.postgres import ThrowawayServer, programs


@pytest.fixture
def own_server() -> Iterator[ThrowawayServer]:
    """A server of the test's own, to stop and start under a run."""
    bin_dir = programs()
    assert bin_dir is not None
    server = ThrowawayServer(bin_dir).start()
    try:
        yield server
    finally:
        server.remove()


def machine(folder: Path, speed: float = 30.0) -> PtySimulator:
    sim = PtySimulator(SimConfig(speed=speed, seed=7), link=folder / "machine")
    sim.start()
    return sim


def test_two_computers_deal_two_files_at_once_on_one_record_and_a_third_is_refused_the_first_again(
        postgres: ThrowawayServer, record: str, tmp_path: Path) -> None:
    homes = [computer(tmp_path / "one"), computer(tmp_path / "two")]
    files = []
    for k, home in enumerate(homes):
        formats.write_file(home / "session.pbn", deal_set(40 + k, 6))
        files.append(home / "session.pbn")
    runs = [start("deal", str(f), "--port", "sim://?speed=200", "--journal", record, "--report", str(h / "run.json"),
                  cwd=h, extra_env={**computer_env(h), "DEALER_HISTORY": record})
            for h, f in zip(homes, files, strict=True)]
    for run, home in zip(runs, homes, strict=True):
        ended = finish(run, timeout=300)
        assert ended.code == 0, ended.err
        assert "6/6 boards verified" in ended.out
        report = (home / "run.json").read_text()
        assert postgres.password not in ended.out + ended.err + report
    with read_journal(record) as journal:
        runs_found = journal.runs()
        assert [r.finished for r in runs_found] == [True, True]
        assert all(j.state is JobState.VERIFIED for r in runs_found for j in journal.jobs(r.id))
    listed = dealer_on(homes[0], "history", "list", env={"DEALER_HISTORY": record})
    assert "12 deals of 2 runs" in listed.stdout, listed.stdout
    third = computer(tmp_path / "three")
    shutil.copy(files[0], third / "session.pbn")
    again = dealer_on(third, "deal", "session.pbn", "--port", "sim://?speed=200", "--journal", record,
                      env={"DEALER_HISTORY": record})
    assert again.returncode == 8, again.stderr
    assert "Law 6D2" in again.stderr and "nothing was dealt" in again.stderr and "verified" not in again.stdout
    assert len(again.stderr.strip().splitlines()) == 1 and postgres.password not in again.stdout + again.stderr
    with read_journal(record) as journal:
        assert len(journal.runs()) == 2
    with DealHistory.open(record) as history:
        assert len(history) == 12


def test_a_controller_killed_after_3_of_12_boards_is_resumed_exactly_from_another_computer(
        postgres: ThrowawayServer, record: str, tmp_path: Path) -> None:
    first, second = computer(tmp_path / "first"), computer(tmp_path / "second")
    formats.write_file(first / "session.pbn", deal_set(51, 12))
    shutil.copy(first / "session.pbn", second / "session.pbn")
    sim = machine(tmp_path)
    try:
        run = start("deal", "session.pbn", "--port", sim.path, "--journal", record, cwd=first,
                    extra_env={**computer_env(first), "DEALER_HISTORY": record})
        read_until(run, "(3/12 boards")
        title = Path(f"/proc/{run.pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        assert "--journal postgresql://dealer@127.0.0.1" in title and postgres.password not in title, title
        os.killpg(run.pid, signal.SIGKILL)
        run.communicate(timeout=60)
        resumed = dealer_on(second, "deal", "session.pbn", "--port", sim.path, "--journal", record, "--resume",
                            env={"DEALER_HISTORY": record})
        assert resumed.returncode == 0, resumed.stderr
        assert "12/12 boards verified" in resumed.stdout
        times = dealt([sim])
    finally:
        sim.stop()
    assert len(times) == 12 and set(times.values()) == {1}, times  # every board dealt once, by the machine's ledger
    with read_journal(record) as journal:
        (run_found,) = journal.runs()
        assert run_found.finished and journal.check_consistency(run_found.id) == []


def test_a_server_restarted_under_a_run_is_waited_for_and_the_run_ends(own_server: ThrowawayServer,
                                                                      tmp_path: Path) -> None:
    url = own_server.new_database()
    home = computer(tmp_path / "room")
    formats.write_file(home / "session.pbn", deal_set(61, 8))
    sim = machine(tmp_path, speed=20.0)
    try:
        run = start("deal", "session.pbn", "--port", sim.path, "--journal", url, cwd=home,
                    extra_env=computer_env(home))
        read_until(run, "(2/8 boards")
        own_server.stop("immediate")
        own_server.start()
        ended = finish(run, timeout=300)
        times = dealt([sim])
    finally:
        sim.stop()
    assert ended.code == 0, ended.err
    assert "8/8 boards verified" in ended.out and "Traceback" not in ended.err
    assert len(times) == 8 and set(times.values()) == {1}, times


def test_a_server_stopped_for_good_stops_the_run_in_one_line_and_resume_deals_the_rest(
        own_server: ThrowawayServer, tmp_path: Path) -> None:
    url = own_server.new_database()
    home = computer(tmp_path / "room")
    formats.write_file(home / "session.pbn", deal_set(62, 8))
    sim = machine(tmp_path, speed=20.0)
    try:
        run = start("deal", "session.pbn", "--port", sim.path, "--journal", url, cwd=home,
                    extra_env=computer_env(home))
        read_until(run, "(2/8 boards")
        own_server.stop("immediate")
        stopped = finish(run, timeout=300)
        assert stopped.code == 9, stopped.err
        said = [line for line in stopped.err.splitlines() if line.startswith("dealer: ")]
        assert len(said) == 1 and "Traceback" not in stopped.err, stopped.err
        assert "PostgreSQL server" in said[0] and "--resume" in said[0] and own_server.password not in stopped.err
        own_server.start()
        resumed = dealer_on(home, "deal", "session.pbn", "--port", sim.path, "--journal", url, "--resume")
        assert resumed.returncode == 0, resumed.stderr
        assert "8/8 boards verified" in resumed.stdout
        times = dealt([sim])
    finally:
        sim.stop()
    assert len(times) == 8 and set(times.values()) == {1}, times


def test_kills_at_random_instants_on_postgresql_deal_every_board_exactly_once(postgres: ThrowawayServer,
                                                                             tmp_path: Path) -> None:
    loop = kills_alone(tmp_path, 6, boards=16, journal_at=postgres.new_database())
    assert loop.problems == [], "\n".join([loop.text(), *loop.problems])


def test_the_journal_of_a_run_names_its_record_without_the_password(postgres: ThrowawayServer, record: str,
                                                                     tmp_path: Path) -> None:
    home = computer(tmp_path / "room")
    formats.write_file(home / "session.pbn", deal_set(63, 4))
    done = dealer_on(home, "deal", "session.pbn", "--port", "sim://?speed=200", "--journal", record,
                     env={"DEALER_HISTORY": record})
    assert done.returncode == 0, done.stderr
    report = dealer_on(home, "report", record)
    assert report.returncode == 0 and "4 verified" in report.stdout
    assert postgres.password not in done.stdout + done.stderr + report.stdout + report.stderr
    assert re.search(r"postgresql://dealer@127\.0\.0\.1:\d+/", report.stdout)


ROOM_PLAN = """
[event]
name = "A congress of four sessions"
deal_folder = "deals"

[[machines]]
name = "M1"
port = "sim://?speed=200&seed=1"
""" + "".join(f"""
[[sessions]]
name = "S{k}"
boards = "1-6"
[[sessions.sections]]
name = "A"
sets = ["{colour}"]
""" for k, colour in enumerate(("RED", "BLUE", "GREEN", "WHITE"), start=1))


def test_two_computers_started_with_one_plan_deal_disjoint_sessions_that_make_the_whole_plan(
        record: str, tmp_path: Path) -> None:
    homes = [computer(tmp_path / "one"), computer(tmp_path / "two")]
    (homes[0] / "congress.toml").write_text(ROOM_PLAN)
    made = dealer_on(homes[0], "plan", "congress.toml", "--generate")
    assert made.returncode == 0, made.stderr
    shutil.copytree(homes[0], homes[1], dirs_exist_ok=True)  # the plan and its deal files, on each computer
    runs = [start("deal", "--plan", "congress.toml", "--journal", record, cwd=home,
                  extra_env={**computer_env(home), "DEALER_HISTORY": record}) for home in homes]
    ended = [finish(run, timeout=300) for run in runs]
    assert [e.code for e in ended] == [0, 0], [e.err for e in ended]
    taken = [set(re.findall(r"session (S\d): taken by this computer", e.err)) for e in ended]
    assert taken[0].isdisjoint(taken[1]) and taken[0] | taken[1] == {"S1", "S2", "S3", "S4"}, taken
    with read_journal(record) as journal:
        runs_found = journal.runs()
        assert sorted(r.name for r in runs_found) == ["S1", "S2", "S3", "S4"] and all(r.finished for r in runs_found)
    with DealHistory.open(record) as history:
        assert len(history) == 24 and len(history.runs()) == 4
    shown = dealer_on(homes[0], "plan", "congress.toml", "--journal", record)
    assert shown.returncode == 0, shown.stderr
    for session in ("S1", "S2", "S3", "S4"):
        assert re.search(rf"  {session}: dealt \(run \d\) by dealer deal --plan \(\d+@", shown.stdout), shown.stdout
    again = dealer_on(homes[1], "deal", "--plan", "congress.toml", "--journal", record, env={"DEALER_HISTORY": record})
    assert again.returncode == 0 and "no session of the plan is left to this computer" in again.stdout, again


def test_a_plan_naming_the_record_deals_there_its_password_in_the_computers_password_file(
        postgres: ThrowawayServer, tmp_path: Path) -> None:
    url = postgres.new_database()
    bare = postgres.url(url.rsplit("/", 1)[1], password=False)
    home = computer(tmp_path / "desk-1")
    secrets = home / ".pgpass"  # libpq's password file, as the guide has the director keep it
    secrets.write_text(f"127.0.0.1:{postgres.port}:*:dealer:{postgres.password}\n")
    secrets.chmod(0o600)
    (home / "room.toml").write_text(
        f'[event]\nname = "Rehearsal"\njournal = "{bare}"\n\n[[machines]]\nname = "M1"\nport = "sim://?speed=200"\n\n'
        '[[sessions]]\nname = "S1"\nboards = "1-4"\n[[sessions.sections]]\nname = "A"\n')
    told = {"PGPASSFILE": str(secrets)}
    made = dealer_on(home, "plan", "room.toml", "--generate", env=told)
    assert made.returncode == 0, made.stderr
    dealt_there = dealer_on(home, "deal", "--plan", "room.toml", env=told)
    assert dealt_there.returncode == 0, dealt_there.stderr
    shown = dealer_on(home, "plan", "room.toml", env=told)
    assert shown.returncode == 0, shown.stderr
    assert re.search(r"S1: dealt \(run 1\) by dealer deal --plan \(\d+@desk-1\)", shown.stdout), shown.stdout
    assert bare in shown.stdout and postgres.password not in dealt_there.stdout + dealt_there.stderr + shown.stdout
    with read_journal(url) as journal:
        (run,) = journal.runs()
        assert run.name == "S1" and run.finished
        assert [j.state for j in journal.jobs(run.id)] == [JobState.VERIFIED] * 4
    assert not list(home.glob("*.journal")), "a journal file was made beside the plan"
