"""`dealer serve` as a user starts it: safe by default. It always has a token (printed in its address, or
written to a file); beyond this computer it needs --allow-remote or --token-file, or it refuses to start;
a request without the token gets 401. SIGINT, SIGTERM and SIGHUP stop it alike, a run resumable."""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from dealer.journal.store import JobState, Journal
from tests.support.controllers import wait_for_own_handlers
from tests.support.processes import ENV
from tests.support.serve_room import Served, make_session, served

pytestmark = pytest.mark.slow


def test_a_console_reachable_beyond_this_computer_without_a_token_refuses_to_start(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "dealer", "serve", "--host", "0.0.0.0", "--port", "0",
                           "--workdir", str(tmp_path / "work")], env=ENV, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "dealer: error: --host 0.0.0.0: a console reachable beyond this computer needs an access token: add "
        "--allow-remote (the token is printed once) or --token-file FILE"]
    assert not (tmp_path / "work").exists()


def test_with_a_token_file_every_request_without_the_token_gets_401(tmp_path: Path) -> None:
    token_file = tmp_path / "token.txt"
    with served(tmp_path / "work", "--token-file", str(token_file)) as console:
        assert "access token is in" in console.lines[0] and str(token_file) in console.lines[0]
        token = token_file.read_text(encoding="utf-8").strip()
        assert len(token) >= 40 and token not in "".join(console.lines)  # written, not shown
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        for path in ("", "events", "start", "report", "director", "api/room"):
            try:
                urllib.request.urlopen(console.address + path, timeout=30)
                raise AssertionError(f"/{path} answered without the token")
            except urllib.error.HTTPError as exc:
                assert exc.code == 401, path
        request = urllib.request.Request(console.address + "api/room", headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert answer.status == 200 and b'"status":"idle"' in answer.read().replace(b" ", b"")


def test_allow_remote_prints_the_address_with_its_token_once(tmp_path: Path) -> None:
    with served(tmp_path / "work", "--host", "0.0.0.0", "--allow-remote") as console:
        line = console.lines[0]
        assert "?token=" in line and "shown once" in line
        token = line.split("?token=")[1].split()[0]
        local = console.address.replace("0.0.0.0", "127.0.0.1")
        try:
            urllib.request.urlopen(local, timeout=30)
            raise AssertionError("answered without the token")
        except urllib.error.HTTPError as exc:
            assert exc.code == 401
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())  # keeps the cookie it is given
        with browser.open(f"{local}?token={token}", timeout=30) as answer:
            assert answer.status == 200 and b'id="grid"' in answer.read()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_every_signal_stops_a_dealing_run_cleanly_and_it_resumes(tmp_path: Path, sig: signal.Signals) -> None:
    work = tmp_path / "work"
    work.mkdir()
    session = make_session(work)
    with served(work, "--sim-speed", "25") as console:
        body = json.dumps({"source": session.name, "machines": ["sim-5"]}).encode()  # a machine without faults
        assert json.loads(console.open("api/start", body))["ok"]
        request = urllib.request.Request(console.address + "events",
                                         headers={"Authorization": f"Bearer {console.token}"})
        with urllib.request.urlopen(request, timeout=120) as stream:
            for line in stream:
                if b'"verified (' in line:  # a board verified: now the signal
                    break
        os.killpg(console.process.pid, sig)
        assert console.process.wait(timeout=120) == 130  # interrupted, as every command
        assert console.process.stderr is not None
        said = console.process.stderr.read()
    assert "stopping the run: each machine finishes its board" in said
    assert "Traceback" not in said and said.strip().splitlines()[-1] == f"dealer: interrupted ({sig.name})"
    journal_path = str(session) + ".journal"
    with Journal.open_read_only(journal_path) as journal:
        (run,) = journal.runs()
        states = [job.state for job in journal.jobs(run.id)]
        assert journal.check_consistency(run.id) == []
    assert not run.finished and JobState.VERIFIED in states
    assert set(states) <= {JobState.VERIFIED, JobState.PLANNED}  # nothing left half-way in a machine
    done = subprocess.run([sys.executable, "-m", "dealer", "deal", str(session), "--port", "sim://?speed=25&seed=5",
                           "--resume", "--plain"], env=ENV,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("16/16 boards verified")


def test_ctrl_c_on_dealer_serve_piped_into_tee_stops_as_ctrl_c_alone_and_the_resume_is_clean(tmp_path: Path) -> None:
    """``dealer serve 2>&1 | tee serve.log`` and Ctrl-C: the terminal sends SIGINT to both, and tee is gone
    before the console has written its last lines. The console ends as Ctrl-C alone ends it: every machine
    finishes its board (nothing left half-way in a machine), and the resume deals the rest with no fault."""
    import re

    from dealer.journal.store import Recorded

    work = tmp_path / "work"
    work.mkdir()
    session = make_session(work)
    command = (f"set -o pipefail; {sys.executable} -m dealer serve --port 0 --workdir {work} --sim-speed 25 2>&1 "
               f"| tee {tmp_path / 'serve.log'}")
    pipeline = subprocess.Popen(["bash", "-c", command], env=ENV, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        assert pipeline.stdout is not None
        first = pipeline.stdout.readline()
        found = re.search(r"the room at (http://\S+/)\?token=(\S+)", first)
        assert found, first
        address, token = found.groups()
        body = json.dumps({"source": session.name, "machines": ["sim-5"]}).encode()
        request = urllib.request.Request(address + "api/start", data=body, method="POST", headers={
            "Authorization": f"Bearer {token}", "content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            assert json.loads(answer.read())["ok"]
        events = urllib.request.Request(address + "events", headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(events, timeout=120) as stream:
            for line in stream:
                if b'"verified (' in line:  # a board verified: now Ctrl-C, to the console and to tee
                    break
        os.killpg(pipeline.pid, signal.SIGINT)
        assert pipeline.wait(timeout=120) != 0  # the pipeline was interrupted
    finally:
        if pipeline.poll() is None:
            os.killpg(pipeline.pid, signal.SIGKILL)
        if pipeline.stdout is not None:
            pipeline.stdout.close()
    assert "Traceback" not in (tmp_path / "serve.log").read_text()
    journal_path = str(session) + ".journal"
    with Journal.open_read_only(journal_path) as journal:
        (run,) = journal.runs()
        states = [job.state for job in journal.jobs(run.id)]
        assert journal.check_consistency(run.id) == []
        before = len(journal.events(run.id))
    assert not run.finished and JobState.VERIFIED in states
    assert set(states) <= {JobState.VERIFIED, JobState.PLANNED}  # each machine finished its board
    done = subprocess.run([sys.executable, "-m", "dealer", "deal", str(session), "--port", "sim://?speed=25&seed=5",
                           "--resume", "--plain"], env=ENV, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("16/16 boards verified")
    with Journal.open_read_only(journal_path) as journal:
        resumed: list[Recorded] = journal.events(run.id)[before:]
        dealt = [e for e in resumed if e.kind == "dealing"]
    assert [e.kind for e in resumed if e.event.faults()] == []  # no spurious fault on the resume
    assert len(dealt) == states.count(JobState.PLANNED)  # each board left dealt once


def start_console(work: Path, cwd: Path) -> subprocess.Popen[str]:
    """`dealer serve` on a free port with `work` as its work folder (its token in work/token), in a session
    of its own."""
    return subprocess.Popen([sys.executable, "-m", "dealer", "serve", "--port", "0", "--workdir", str(work),
                             "--token-file", str(work / "token")], cwd=cwd, env=dict(ENV), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            start_new_session=True)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_a_signal_in_the_first_second_of_dealer_serve_is_one_line_never_a_traceback(tmp_path: Path,
                                                                                 sig: signal.Signals) -> None:
    """Wherever in its first second a signal lands (loading, binding, serving), `dealer serve` ends in one
    line, exit 130. The instants are spread over the second from the moment the program has taken the
    signals (`wait_for_own_handlers`: before that, while the interpreter itself starts, the outcome is the
    interpreter's); which step each lands in does not change what is asserted."""
    import time

    for k in range(8):
        work = tmp_path / f"work{k}"
        work.mkdir()
        proc = start_console(work, tmp_path)
        assert wait_for_own_handlers(proc), proc.communicate()
        time.sleep(0.13 * k)  # where the signal lands, not what the test expects of it
        proc.send_signal(sig)
        try:
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
        assert "Traceback" not in err, (k, err)
        assert proc.returncode == 130, (k, proc.returncode, err)
        assert err.strip().splitlines()[-1] == f"dealer: interrupted ({sig.name})", (k, err)


def test_a_signal_while_the_console_starts_serving_is_one_line_and_never_lost(tmp_path: Path) -> None:
    """Just after its address is printed, `dealer serve` makes its event loop and starts the web server; a
    signal there once left a half-made loop (a traceback) or was swallowed by the server's start-up (the
    console then ran on, deaf to every later signal). At each instant of that stretch it ends in one line."""
    import time

    for k in range(12):
        work = tmp_path / f"work{k}"
        work.mkdir()
        proc = start_console(work, tmp_path)
        try:
            assert proc.stderr is not None
            shown = [proc.stderr.readline() for _ in range(3)]
            assert shown[-1].endswith("Ctrl-C stops\n"), shown
            time.sleep(0.02 * k)  # where the signal lands, not what the test expects of it
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
        assert "Traceback" not in err and "never awaited" not in err, (k, err)
        assert proc.returncode == 130, (k, proc.returncode, err)
        assert err.strip().splitlines()[-1] == "dealer: interrupted (SIGTERM)", (k, err)


def _start_and_wait_for(console: Served, session: Path, what: bytes) -> None:
    """Start a run of `session` on a fault-free simulated machine and read the room's events until `what`."""
    body = json.dumps({"source": session.name, "machines": ["sim-5"]}).encode()
    assert json.loads(console.open("api/start", body))["ok"]
    request = urllib.request.Request(console.address + "events", headers={"Authorization": f"Bearer {console.token}"})
    with urllib.request.urlopen(request, timeout=120) as stream:
        for line in stream:
            if what in line:
                return


def test_sigterm_while_a_run_is_stopping_is_one_line_and_the_stop_ends_within_its_bound(tmp_path: Path) -> None:
    """Stop pressed, the machine slow to finish its board (a real machine's pace), then SIGTERM: the console
    ends in one line, no traceback, once the stop's bound (here 2 s) gives the machine up; the journal holds
    nothing half-told, and the resume deals every board."""
    work = tmp_path / "work"
    work.mkdir()
    session = make_session(work)
    with served(work, "--sim-speed", "0.2", "--stop-within", "2") as console:
        _start_and_wait_for(console, session, b"\"dealing\"")
        assert json.loads(console.open("api/stop", b"{}"))["ok"]
        os.killpg(console.process.pid, signal.SIGTERM)
        assert console.process.wait(timeout=120) == 130
        assert console.process.stderr is not None
        said = console.process.stderr.read()
    assert "Traceback" not in said and "Application shutdown failed" not in said, said
    assert said.strip().splitlines()[-1] == "dealer: interrupted (SIGTERM)", said
    with Journal.open_read_only(str(session) + ".journal") as journal:
        (run,) = journal.runs()
        assert journal.check_consistency(run.id) == []
    done = subprocess.run([sys.executable, "-m", "dealer", "deal", str(session), "--port", "sim://?speed=25&seed=5",
                           "--resume", "--plain"], env=ENV,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("16/16 boards verified")


def test_a_second_signal_ends_a_stopping_run_at_once(tmp_path: Path) -> None:
    """A machine that would take an hour to finish its board (the stop's bound set to an hour): the first signal
    stops the run, the second ends it where it stands, in one line each."""
    work = tmp_path / "work"
    work.mkdir()
    session = make_session(work)
    with served(work, "--sim-speed", "0.05", "--stop-within", "3600") as console:
        _start_and_wait_for(console, session, b"\"dealing\"")
        os.killpg(console.process.pid, signal.SIGTERM)
        assert console.process.stderr is not None
        assert "stopping the run" in console.process.stderr.readline()
        os.killpg(console.process.pid, signal.SIGINT)
        assert console.process.wait(timeout=120) == 130
        said = console.process.stderr.read()
    assert "Traceback" not in said, said
    assert said.strip().splitlines()[-1] == "dealer: interrupted (SIGTERM)", said


def test_enter_at_the_consoles_terminal_prints_a_one_time_directors_link(tmp_path: Path) -> None:
    process = subprocess.Popen([sys.executable, "-m", "dealer", "serve", "--port", "0", "--workdir",
                                str(tmp_path / "work")], env=ENV, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert process.stdin is not None and process.stderr is not None
        shown = [process.stderr.readline() for _ in range(3)]
        assert "press Enter here for a one-time director's link" in shown[1], shown
        process.stdin.write("\n")
        process.stdin.flush()
        line = process.stderr.readline()
        assert line.startswith("dealer serve: the director's one-time link: http://127.0.0.1:"), line
        pin = re.search(r"PIN is (\d+)", shown[1])
        assert "/director/once?key=" in line and pin is not None and pin.group(1) not in line
    finally:
        os.killpg(process.pid, signal.SIGINT)
        process.communicate(timeout=60)
