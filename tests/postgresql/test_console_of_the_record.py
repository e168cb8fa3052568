"""`dealer serve --journal URL`: the console of a room's shared record, as a director runs it beside the dealing
computers. Judged by its event stream and its pages against the record read afresh and the simulated machines'
ledgers: every run of the record shown live, each machine named with its computer; a computer killed, its run
shown unfinished and nobody's, then resumed by another computer; the password nowhere."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import ViewportSize, expect

from dealer import formats
from dealer.journal.opening import read_journal
from dealer.journal.store import JobState
from hil import PtySimulator, SimConfig
from tests.support.artifacts import artifacts_folder
from tests.support.browser import launched_chromium
from tests.support.computers import computer, computer_env, dealer_on
from tests.support.controllers import deal_set, dealt, finish, read_until, start
from tests.support.postgres import ThrowawayServer
from tests.support.serve_room import RoomStream, Served, served

PHONE: ViewportSize = {"width": 390, "height": 844}
"""A phone's screen, in CSS pixels."""
WAIT_SECONDS = 120
"""Most seconds a console is given to show what the record holds (it reads the record about once a second)."""


def machine(folder: Path) -> PtySimulator:
    folder.mkdir(parents=True, exist_ok=True)
    sim = PtySimulator(SimConfig(speed=30.0, seed=7), link=folder / "machine")
    sim.start()
    return sim


def room_when(console: Served, shown: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The console's room (``/api/room``) once `shown` holds of it; AssertionError with the last room after
    `WAIT_SECONDS` (the console reads the record about once a second)."""
    import json
    import time

    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        room: dict[str, Any] = json.loads(console.open("api/room"))
        if shown(room):
            return room
        assert time.monotonic() < deadline, json.dumps(room, ensure_ascii=False)[:3000]
        time.sleep(0.2)


def machines_of(room: dict[str, Any]) -> dict[str, str]:
    return {m["name"]: m["state"] for m in room["machines"]}


def looked_at(console: Served, picture: Path) -> dict[str, Any]:
    """The Room of `console` rendered in Chromium at a phone's size, in Russian, once every board is shown
    verified: what a person reads there (its picture kept at `picture`)."""
    with launched_chromium() as chromium:
        page = chromium.new_page(viewport=PHONE, locale="ru-RU")
        page.goto(console.url())
        expect(page.locator("#grid .cell.verified")).to_have_count(16, timeout=WAIT_SECONDS * 1000)
        page.screenshot(path=str(picture), full_page=True)
        rows = page.locator("#machines tbody tr").evaluate_all(
            "(rows) => rows.map(r => [r.cells[0].textContent, r.cells[1].textContent])")
        return {"rows": dict(rows), "headings": page.locator("#grid h3").all_text_contents(),
                "title": page.locator("#title").text_content() or "", "stop": page.locator("#stop").is_visible(),
                "width": page.evaluate("document.scrollingElement.scrollWidth"), "text": page.content()}


def test_the_console_shows_every_run_of_the_record_each_machine_named_with_its_computer(
        postgres: ThrowawayServer, record: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    desk1, desk2 = computer(tmp_path / "desk-1"), computer(tmp_path / "desk-2")
    formats.write_file(desk1 / "friday.pbn", deal_set(81, 8))
    formats.write_file(desk2 / "saturday.pbn", deal_set(82, 8))
    shutil.copy(desk1 / "friday.pbn", desk2 / "friday.pbn")
    sims = [machine(tmp_path / "m1"), machine(tmp_path / "m2")]
    first, second = f"{sims[0].path} · desk-1", f"{sims[1].path} · desk-2"
    try:
        with served(tmp_path / "console", "--journal", record) as console:
            assert postgres.password not in "".join(console.lines)
            stream = RoomStream(console)
            try:
                one = start("deal", "friday.pbn", "--port", sims[0].path, "--journal", record, cwd=desk1,
                            extra_env={**computer_env(desk1), "DEALER_HISTORY": record})
                two = start("deal", "saturday.pbn", "--port", sims[1].path, "--journal", record, cwd=desk2,
                            extra_env={**computer_env(desk2), "DEALER_HISTORY": record})
                read_until(one, "(3/8 boards")
                os.killpg(one.pid, signal.SIGKILL)  # desk-1 dies: its run is nobody's
                one.communicate(timeout=60)
                ended = finish(two, timeout=300)
                assert ended.code == 0, ended.err
                after_the_kill = room_when(console, lambda r: machines_of(r).get(first) == "stopped"
                                           and machines_of(r).get(second) == "done" and r["status"] == "idle")
                assert "--resume" in after_the_kill["message"], after_the_kill["message"]
                resumed = dealer_on(desk2, "deal", "friday.pbn", "--port", sims[0].path, "--journal", record,
                                    "--resume", env={"DEALER_HISTORY": record})
                assert resumed.returncode == 0, resumed.stderr
                taken_over = f"{sims[0].path} · desk-2"
                room = room_when(console, lambda r: r["verified"] == 16 and machines_of(r).get(taken_over) == "done")
                pages = [console.open(page).decode() for page in ("", "report", "start", "api/room")]
                seen = looked_at(console, artifacts_folder("record-room", tmp_path_factory) / "room-phone.png")
            finally:
                stream.close()
        times = [dealt([sim]) for sim in sims]
    finally:
        for sim in sims:
            sim.stop()
    # the room as the stream told it, board by board, is the record read afresh
    with read_journal(record) as journal:
        runs = journal.runs()
        jobs = {f"r{r.id}-{j.set_name or 'A'}-{j.board}-{j.copy}": j.state for r in runs for j in journal.jobs(r.id)}
        assert [r.finished for r in runs] == [True, True]
    cells = stream.cells()
    assert set(cells) == set(jobs) and len(jobs) == 16
    assert {c["state"] for c in cells.values()} == {"verified"} and set(jobs.values()) == {JobState.VERIFIED}
    friday = next(r for r in runs if r.name == "friday")
    assert {c["session"] for c in cells.values() if c["run"] == friday.id} == {"friday · desk-2"}
    # each machine named with its computer, live: the stream told each one's steps as it dealt
    told = {m["machine"] for m in stream.messages if m["type"] == "event" and m.get("machine")}
    assert {first, second, taken_over} <= told, told
    assert machines_of(room) == {first: "done", second: "done", taken_over: "done"}
    # every board dealt once, by each machine's ledger
    assert [len(t) for t in times] == [8, 8] and all(set(t.values()) == {1} for t in times), times
    # as a person sees it on a phone, in Russian: each machine with its computer, no Stop for a record
    assert seen["rows"] == {first: "готово", second: "готово", taken_over: "готово"}, seen
    assert any(h.startswith("friday · desk-2") for h in seen["headings"]), seen["headings"]
    assert seen["title"].startswith("общий журнал postgresql://") and not seen["stop"], seen
    assert seen["width"] <= PHONE["width"], seen
    # the password nowhere: not in the stream, not on a page, not in what the console printed
    assert not any(postgres.password in text for text in [*stream.text, *pages, seen["text"]]), "the password was shown"
    assert "Start a run" in pages[2] and "--journal" in pages[2]


def test_a_console_named_a_journal_file_or_a_silent_server_says_so_in_one_line(tmp_path: Path) -> None:
    home = computer(tmp_path / "desk")
    shown = dealer_on(home, "serve", "--port", "0", "--journal", "room.journal")
    assert shown.returncode == 2 and len(shown.stderr.strip().splitlines()) == 1, shown.stderr
    assert "postgresql://" in shown.stderr
    silent = dealer_on(home, "serve", "--port", "0", "--journal", "postgresql://dealer:s3cret@127.0.0.1:1/room")
    assert silent.returncode != 0 and len(silent.stderr.strip().splitlines()) == 1, silent.stderr
    assert "s3cret" not in silent.stderr and "Traceback" not in silent.stderr


def test_the_console_of_a_record_with_no_run_yet_says_so_and_of_a_silent_server_says_it_once(
        postgres: ThrowawayServer) -> None:
    from dealer.journal.database_url import as_url
    from dealer.serve.hub import EventHub
    from dealer.serve.record import RecordRoom

    fresh = RecordRoom(EventHub(), as_url(postgres.new_database()))
    fresh.read()
    assert str(fresh.snapshot()["message"]).startswith("the record has no run yet"), fresh.snapshot()["message"]
    hub = EventHub()
    silent = RecordRoom(hub, as_url("postgresql://dealer:s3cret@127.0.0.1:1/room"))
    silent.read()
    silent.read()
    said = str(silent.snapshot()["message"])
    assert said.startswith("the record cannot be read now") and "s3cret" not in said, said
    assert hub.seq == 1, "a record that cannot be read is said once, not each second"
