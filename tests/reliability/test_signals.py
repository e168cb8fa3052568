"""SIGINT, SIGTERM and SIGHUP stop `dealer deal` the same clean way: the machine is given up in the middle
of whatever it was doing (as a crash at that instant would leave it, which the journal's recovery settles),
no false word of a lost port, then one line - how many boards are left and the exact command that resumes
the run - and exit code 130 whichever the signal. That command, run as printed, deals the rest: every
board dealt exactly once by the simulated machine's ledger. A signal during a big `dealer generate` leaves
no file at all, not even its temporary one.

The controller is `dealer` in a subprocess; the simulated machine runs in this test process (it is the
physical world, and outlives the controller). Each signal is sent once the first board is verified, read
from the controller's own progress lines, never after a sleep. The machine's rack holds only boards 1-3 of
set A until the resume (a closed rack), so however late the signal lands the run cannot have ended: at
worst the controller is waiting for board 4.
"""

from __future__ import annotations

import re
import shlex
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer import formats
from dealer.cli import main
from dealer.dealing import sim_ports
from dealer.dealing.progress import PlainView, ProgressEvent
from dealer.journal.store import JobState, Journal
from hil import PtySimulator, SimConfig
from tests.support.congress import SessionText, plan_text
from tests.support.controllers import deal_set, dealt, env, finish, read_until, start, wait_for_own_handlers

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]

BOARDS = 6
SPEED = 40.0
HELD = (1, 2, 3)
"""The boards at hand before the resume."""
SIGNALS = [pytest.param(s, id=s.name) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]
LINE = re.compile(r"dealer: interrupted \((SIG[A-Z]+)\): (\d+) of (\d+) boards left; resume with: (.+)")


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[PtySimulator]:
    machine = PtySimulator(SimConfig(speed=SPEED, seed=5, set_name="A", boards=HELD), link=tmp_path / "machine")
    machine.start()
    try:
        yield machine
    finally:
        machine.stop()


def interrupt(args: list[str], sig: signal.Signals, cwd: Path) -> tuple[str, int, list[str]]:
    """Start `dealer ARGS`, send `sig` once a board is verified; (its standard error, boards the line says
    are left, the resume command it prints, as words)."""
    proc = start(*args, "--plain", cwd=cwd)
    seen = read_until(proc, ": verified (")
    proc.send_signal(sig)
    ended = finish(proc)
    err = "\n".join(seen) + "\n" + ended.err
    assert ended.code == 130, err
    assert "Traceback" not in err and "resynchronising" not in err and "reopened" not in err, err
    last = err.strip().splitlines()[-1]
    match = LINE.fullmatch(last)
    assert match is not None, err
    assert match[1] == sig.name
    assert err.count("dealer: interrupted") == 1 and "dealer: error" not in err
    return err, int(match[2]), shlex.split(match[4])


def resume(command: list[str], cwd: Path, sim: PtySimulator) -> None:
    """Bring every board to the machine (open its rack), then run the printed command as it is (`dealer`
    being `python -m dealer` here)."""
    assert command[0] == "dealer" and command[-1] == "--resume"
    with sim.lock:
        assert sim.device is not None
        sim.device.room.rack.open = True
    ended = finish(start(*command[1:], cwd=cwd))
    assert ended.code == 0, ended.err


def left_in(journal: Path) -> tuple[int, int]:
    """(boards not verified, boards) over the journal's runs, its every job's events consistent."""
    with Journal.open_read_only(journal) as j:
        jobs = []
        for run in j.runs():
            assert j.check_consistency(run.id) == []
            jobs += j.jobs(run.id)
    return sum(1 for job in jobs if job.state is not JobState.VERIFIED), len(jobs)


def assert_dealt_once(sim: PtySimulator, labels: list[str]) -> None:
    counts = dealt([sim])
    for prefix in labels:
        (label,) = [name for name in counts if name.startswith(prefix)]
        assert counts[label] == 1, f"{label} dealt {counts[label]} times"
    assert len(counts) == len(labels)


@pytest.mark.parametrize("sig", SIGNALS)
def test_a_signal_stops_a_deal_cleanly_and_the_printed_command_deals_the_rest(
        sig: signal.Signals, tmp_path: Path, sim: PtySimulator) -> None:
    deal_file, journal = tmp_path / "session.pbn", tmp_path / "session.journal"
    formats.write_file(deal_file, deal_set(23, BOARDS))
    args = ["deal", deal_file.name, "--port", sim.path, "--journal", journal.name, "--board-timeout", "60"]
    _, left, command = interrupt(args, sig, tmp_path)
    assert (left, BOARDS) == left_in(journal)
    assert 0 < left < BOARDS
    assert command == ["dealer", *args, "--plain", "--resume"]
    resume(command, tmp_path, sim)
    assert left_in(journal) == (0, BOARDS)
    assert_dealt_once(sim, [f"A:{board}:" for board in range(1, BOARDS + 1)])


@pytest.mark.parametrize("sig", SIGNALS)
def test_a_signal_stops_a_congress_plan_cleanly_and_the_printed_plan_command_deals_the_rest(
        sig: signal.Signals, tmp_path: Path, sim: PtySimulator) -> None:
    plan = tmp_path / "congress.toml"
    sessions = (SessionText("FRI", "1-3", (("A", ("A",)),)), SessionText("SAT", "4-6", (("B", ("B",)),)))
    plan.write_text(plan_text([("m1", sim.path)], sessions))
    args = ["deal", "--plan", plan.name, "--board-timeout", "60"]
    _, left, command = interrupt(args, sig, tmp_path)
    assert (left, 6) == left_in(tmp_path / "congress.journal")
    assert 0 < left < 6
    assert command == ["dealer", *args, "--plain", "--resume"]
    resume(command, tmp_path, sim)
    assert left_in(tmp_path / "congress.journal") == (0, 6)
    assert_dealt_once(sim, [f"A:{b}:" for b in (1, 2, 3)] + [f"B:{b}:" for b in (4, 5, 6)])


@pytest.mark.parametrize("sig", SIGNALS)
def test_a_signal_during_a_big_generate_leaves_no_file(sig: signal.Signals, tmp_path: Path) -> None:
    """The signal lands once the output's temporary file exists (seen in the folder, not timed), while
    a million boards are being written into it."""
    proc = start("generate", "--boards", "1-1000000", "-o", "big.pbn", cwd=tmp_path)
    try:
        while not any(p.name.startswith(".big.pbn.") for p in tmp_path.iterdir()):
            assert proc.poll() is None, "generate ended before its output file was begun"
            time.sleep(0.01)  # a poll of the folder, not a timing: the signal waits for the file
        proc.send_signal(sig)
        ended = finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert ended.code == 130, ended.err
    assert ended.err.strip().splitlines() == [f"dealer: interrupted ({sig.name})"]
    assert list(tmp_path.iterdir()) == []



@pytest.mark.parametrize("sig", SIGNALS)
def test_a_signal_in_the_first_second_is_one_line_and_the_run_resumes(tmp_path: Path, sig: signal.Signals) -> None:
    """A signal at any instant of a `dealer deal`'s first second (while Python loads the command line, the
    command's modules, the deal file, the journal, the machine) ends it in one line, exit 130, never a
    traceback; and the run it may have begun resumes to every board dealt once. The instants are spread
    over the second from the moment the program has taken the signals (`wait_for_own_handlers`: before that,
    while the interpreter itself starts, the outcome is the interpreter's, and nothing of ours has begun);
    which step each one lands in does not change what is asserted."""
    for k in range(10):
        deal_file = tmp_path / f"s{k}.pbn"  # fresh deals each time: a run dealt to the end is not dealt again
        formats.write_file(deal_file, deal_set(90 + k, 2))
        journal = tmp_path / f"run{k}.journal"
        port = f"sim://?speed=200&seed={k}"
        proc = start("deal", str(deal_file), "--port", port, "--journal", str(journal), "--plain", cwd=tmp_path)
        if wait_for_own_handlers(proc):
            time.sleep(0.1 * k)  # where the signal lands, not what the test expects of it
            proc.send_signal(sig)
        ended = finish(proc)
        assert "Traceback" not in ended.err, ended.err
        if ended.code == 0 or (ended.code == -sig and " boards verified in " in ended.out):
            continue  # the run was over before the signal came (or it came as the process was exiting)
        assert ended.code == 130, (k, ended)
        (line,) = [line for line in ended.err.splitlines() if line.startswith("dealer: interrupted")]
        assert line.startswith(f"dealer: interrupted ({sig.name})"), line
        if journal.exists() and "resume with: " in line:
            resumed = finish(start(*shlex.split(line.split("resume with: ", 1)[1])[1:], "--plain", cwd=tmp_path))
            assert resumed.code == 0, resumed.err
            with Journal.open_read_only(journal) as j:
                assert [job.state for job in j.jobs(j.runs()[0].id)] == [JobState.VERIFIED] * 2


def _main_waits_in_the_run(main: threading.Thread) -> bool:
    """The main thread is blocked waiting on an event (`threading.Condition.wait`) inside the run's
    `execute`: waiting for a station to end."""
    frame = sys._current_frames().get(main.ident or 0)
    if frame is None or frame.f_code.co_name != "wait" or "threading" not in frame.f_code.co_filename:
        return False
    while frame is not None:
        if frame.f_code.co_name == "execute" and frame.f_code.co_filename.endswith("run.py"):
            return True
        frame = frame.f_back
    return False


@pytest.mark.parametrize("sig", SIGNALS)
def test_a_signal_while_a_station_is_busy_ends_the_run_only_after_the_station(
        sig: signal.Signals, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The run's last line comes after every station has stopped: none prints into it. The signal comes from
    the station itself as it shows "dealing", and the station holds on until the run has given its machine up
    and waits for the station to end (or until the command has returned: what a run that does not wait for
    its stations does; Python's `Thread.join` cut short by a signal takes a live thread for ended)."""
    deal_file = tmp_path / "session.pbn"
    formats.write_file(deal_file, deal_set(31, 2))
    main_thread, returned = threading.current_thread(), threading.Event()
    held: list[str] = []  # what the station did while it held on
    show = PlainView.show

    def hold_on(view: PlainView, event: ProgressEvent) -> None:
        show(view, event)
        if held or ": dealing" not in event.line():
            return
        held.append("signalled")
        signal.pthread_kill(main_thread.ident or 0, sig)
        while not returned.is_set():
            if _main_waits_in_the_run(main_thread):
                held.append("the run waited for the station")
                return
            time.sleep(0.001)  # polling a state: how soon it is seen does not change what is asserted
        held.append("the command returned first")

    monkeypatch.setattr(PlainView, "show", hold_on)
    before = set(threading.enumerate())
    try:
        code = main(["deal", str(deal_file), "--port", "sim://?speed=200&seed=3", "--journal",
                     str(tmp_path / "session.journal"), "--plain"])
    finally:
        returned.set()
        for thread in set(threading.enumerate()) - before:
            if thread.name.startswith("sim://"):
                thread.join(timeout=60)  # a station left running by the run ends once released
        sim_ports.stop_all()
    assert held == ["signalled", "the run waited for the station"]
    assert code == 130
    last = capsys.readouterr().err.splitlines()[-1]
    assert LINE.fullmatch(last) is not None, last


def test_a_signal_as_a_finished_run_exits_never_prints_a_traceback(tmp_path: Path) -> None:
    """A signal that lands as `dealer deal` ends (its last board verified, its summary printed, its simulated
    machine stopped as the process exits) ends the process by the signal or with the run's own exit code;
    never a traceback from the clean-up at exit. The instants are spread over the end of the run, each signal
    in turn (four instants each, spread alike)."""
    for k in range(12):
        sig = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)[k % 3]
        deal_file = tmp_path / f"s{k}.pbn"
        formats.write_file(deal_file, deal_set(190 + k, 2))
        proc = start("deal", str(deal_file), "--port", f"sim://?speed=200&seed={k}", "--journal",
                     str(tmp_path / f"run{k}.journal"), "--plain", cwd=tmp_path)
        shown = read_until(proc, "(2/2 boards")
        assert proc.stdout is not None
        shown.append(proc.stdout.readline())  # the run's summary: the run is over, the process exits
        time.sleep(0.008 * k)  # where the signal lands, not what the test expects of it
        proc.send_signal(sig)
        ended = finish(proc)
        assert "Traceback" not in ended.err, (k, ended.err)
        assert ended.code in (0, -sig, 130), (k, ended)
        if ended.code == 130:  # before the run had ended: said in one line
            assert ended.err.splitlines()[-1].startswith(f"dealer: interrupted ({sig.name})"), shown + [ended.err]


def test_ctrl_c_reaching_a_pipeline_stops_as_ctrl_c_alone_and_the_resume_is_clean(
        tmp_path: Path, sim: PtySimulator) -> None:
    """``dealer deal ... 2>&1 | tee log`` and Ctrl-C: the terminal sends SIGINT to both, and tee is gone before
    dealer has written its last lines. Here the reader closes its end as the signal is sent: the run ends
    exit 130 as Ctrl-C alone ends it (its lines dropped, not an error), and the resume deals the rest with no
    fault recorded, every board dealt once by the machine's ledger."""
    import os
    import subprocess

    deal_file = tmp_path / "s.pbn"
    formats.write_file(deal_file, deal_set(7, BOARDS))
    journal = tmp_path / "s.journal"
    read_end, write_end = os.pipe()
    proc = subprocess.Popen([sys.executable, "-m", "dealer", "deal", str(deal_file), "--port", sim.path, "--journal",
                             str(journal), "--plain"], cwd=tmp_path, env=env(), stdout=write_end,
                            stderr=write_end, stdin=subprocess.DEVNULL, start_new_session=True)
    os.close(write_end)
    reader = os.fdopen(read_end, "r", encoding="utf-8", errors="replace")
    try:
        for line in reader:  # the pipe's reader, as tee: until the first board is verified
            if ": verified (" in line:
                break
        proc.send_signal(signal.SIGINT)
    finally:
        reader.close()  # tee ended by the same Ctrl-C
    code = proc.wait(timeout=120)
    assert code == 130
    assert 0 < left_in(journal)[0] < BOARDS
    with sim.lock:
        assert sim.device is not None
        sim.device.room.rack.open = True
    resumed = finish(start("deal", str(deal_file), "--port", sim.path, "--journal", str(journal), "--plain",
                           "--resume", cwd=tmp_path))
    assert resumed.code == 0, resumed.err
    assert left_in(journal) == (0, BOARDS)
    with Journal.open_read_only(journal) as j:
        kinds = [e.kind for run in j.runs() for e in j.events(run.id)]
    assert not [k for k in kinds if "fault" in k], kinds
    assert_dealt_once(sim, [f"A:{b}:" for b in range(1, BOARDS + 1)])
