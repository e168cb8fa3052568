"""The command-line contract on a faked Windows and a faked macOS (`on_platform`, tests/platforms/conftest.py):
generate, convert, deal on ``sim://``, check, report, records, plan and the console's start, each to its
end, with no POSIX-only call or module within reach on Windows and no Linux-only one on macOS.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.support.faked_platform import FakedDealer
from tests.support.paths import ROOT

SIM = "sim://?speed=200&seed=3&set=A&boards=1-8"
"""A closed rack of set A, boards 1-8: after the run it holds the boards it dealt, for the check."""


def test_the_faked_system_lacks_what_it_lacks(on_platform: FakedDealer) -> None:
    assert sys.platform == on_platform.platform
    assert not hasattr(os, "sched_getaffinity") and not hasattr(os, "posix_fadvise")
    if on_platform.platform == "win32":
        assert not hasattr(os, "fchmod") and not hasattr(os, "statvfs")
        with pytest.raises(ImportError):
            import fcntl  # noqa: F401
    system = on_platform.module("dealer.core.osys").SYSTEM
    assert system == ("windows" if on_platform.platform == "win32" else "posix")


def test_generate_convert_deal_check_report_records(on_platform: FakedDealer, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = on_platform.run("generate", "--boards", "1-8", "-o", "session.pbn")
    assert code == 0, err
    code, out, err = on_platform.run("convert", "session.pbn", "session.dlm")
    assert code == 0, err
    assert Path("session.dlm").stat().st_size > 0
    code, out, err = on_platform.run("deal", "session.pbn", "--port", SIM, "--journal", "session.journal", "--plain",
                                      "--set", "A")
    assert code == 0, err
    assert out.startswith("8/8 boards verified")
    code, out, err = on_platform.run("check", "session.pbn", "--port", SIM, "--set", "A")
    assert (code, out) == (0, "8/8 boards verified\n"), err
    code, out, err = on_platform.run("report", "session.journal", "-o", "report.csv")
    assert code == 0, err
    assert Path("report.csv").read_text(encoding="utf-8").strip()
    code, out, err = on_platform.run("records", "session.pbn", "-o", "records.html", "--no-dd")
    assert code == 0, err
    assert "<html" in Path("records.html").read_text(encoding="utf-8").lower()


def test_a_second_controller_is_refused_by_the_journal_lock(on_platform: FakedDealer, tmp_path: Path) -> None:
    lock = on_platform.module("dealer.journal.lock")
    held = lock.JournalLock.acquire(tmp_path / "club.journal", "dealer deal")
    try:
        code, out, err = on_platform.run("check", str(ROOT / "examples" / "session.pbn"), "--port", SIM,
                                         "--journal", str(tmp_path / "club.journal"))
        assert code == 10, err
        assert "in use by dealer deal" in err
    finally:
        held.release()


PLAN = """
[event]
name = "Club night"

[[machines]]
name = "M1"
port = "sim://?speed=200&seed=1&set=A&boards=1-4"

[[sessions]]
name = "MON"
boards = "1-4"

[[sessions.sections]]
name = "A"
sets = ["A"]
"""


def test_plan_checks_generates_and_deals(on_platform: FakedDealer, tmp_path: Path) -> None:
    plan = tmp_path / "club.toml"
    plan.write_text(PLAN, encoding="utf-8")
    code, out, err = on_platform.run("plan", str(plan), "--generate")
    assert code == 0, err
    assert (tmp_path / "deals" / "MON.pbn").is_file()
    code, out, err = on_platform.run("deal", "--plan", str(plan), "--plain")
    assert code == 0, err
    assert "4/4 boards verified" in out


def test_the_console_starts_and_answers(on_platform: FakedDealer, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    serve = on_platform.module("dealer.cli.serve")
    servers: list[Any] = []
    made = serve._Server.__new__

    def keep(cls: Any, config: Any, app: Any) -> Any:
        server = made(cls, config, app)
        servers.append(server)
        return server

    monkeypatch.setattr(serve._Server, "__new__", keep)
    result: list[tuple[int, str, str]] = []
    thread = threading.Thread(target=lambda: result.append(on_platform.run("serve", "--port", "0", "--workdir",
                                                                          str(tmp_path), "--token-file",
                                                                          str(tmp_path / "token"))))
    thread.start()
    try:
        deadline = time.monotonic() + 60
        while not (servers and servers[0].started) and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert servers and servers[0].started, result
        port = servers[0].servers[0].sockets[0].getsockname()[1]
        token = (tmp_path / "token").read_text().strip()
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())  # the token becomes a cookie
        with browser.open(f"http://127.0.0.1:{port}/?token={token}", timeout=30) as page:
            assert page.status == 200
    finally:
        if servers:
            servers[0].should_exit = True
        thread.join(60)
    assert not thread.is_alive() and result and result[0][0] == 0, result
    assert "dealer serve: the room at http://127.0.0.1:" in result[0][2]
