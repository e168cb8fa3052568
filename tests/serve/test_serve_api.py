"""The console through its HTTP API (Starlette's test client): a run started, watched to the end and
reported; validation before anything starts; stop and resume; a console started again; the director's
unlock; and no card in anything sent to a browser. Judged by the journal and the simulators' ledgers.
A run names a file of the work folder and machines the console offers (here the tests' simulated
machines, offered as t1, t2, ...)."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from dealer.dealing import sim_ports
from dealer.journal.history import DealHistory
from dealer.journal.lock import JournalLock
from dealer.journal.store import JobState, Journal
from dealer.serve.app import build_app
from dealer.serve.auth import Access
from tests.support.processes import run
from tests.support.serve_room import FAULTS, cards_in, hands_of, holdings, make_session, offered, text_of
from tests.support.serve_room import sim_ports as sim_urls

PIN = "12345678"
TOKEN = "t0ken-of-the-operator"
LOCAL = Access(TOKEN, frozenset({"testserver", "127.0.0.1", "localhost"}))
OPERATOR = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def session(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir(exist_ok=True)
    return make_session(tmp_path / "work")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = build_app(tmp_path / "work", LOCAL, PIN, tell=lambda line: None)
    try:
        with TestClient(app, headers=OPERATOR) as test_client:
            yield test_client
    finally:
        sim_ports.stop_all()


def sims(client: TestClient, tmp_path: Path, speed: float = 50,
         plans: list[list[dict[str, object]]] | None = None) -> list[str]:
    """The tests' simulated machines, offered by the console: their ids."""
    machines = offered(sim_urls(tmp_path, speed, plans))
    client.app.state.console.offer.extra = machines  # type: ignore[attr-defined]
    return list(machines)


def url_of(client: TestClient, machine: str) -> str:
    url: str = client.app.state.console.offer.extra[machine]  # type: ignore[attr-defined]
    return url


def follow(client: TestClient) -> list[dict[str, Any]]:
    """Every message of the event stream until the run ends (the snapshot first: alone, if the run had ended
    already)."""
    messages: list[dict[str, Any]] = []
    with client.stream("GET", "/events?until=end") as stream:
        for line in stream.iter_lines():
            if line.startswith("data: "):
                messages += json.loads(line.removeprefix("data: "))
    return messages


def start(client: TestClient, source: Path, machines: list[str], **more: Any) -> dict[str, Any]:
    response = client.post("/api/start", json={"source": source.name, "machines": machines, **more})
    body: dict[str, Any] = response.json()
    assert response.status_code == 200, body
    return body


def journal_states(source: Path) -> list[JobState]:
    with Journal.open_read_only(str(source) + ".journal") as journal:
        return [job.state for run in journal.runs() for job in journal.jobs(run.id)]


def test_a_session_on_two_faulty_machines_is_dealt_watched_and_reported_without_a_card(
        client: TestClient, session: Path, tmp_path: Path) -> None:
    ports = sims(client, tmp_path)
    start(client, session, ports)
    messages = follow(client)
    ended = [m for m in messages if m["type"] == "ended"]
    assert ended and ended[-1]["status"] == "finished", ended
    assert journal_states(session) == [JobState.VERIFIED] * 16
    room = client.get("/api/room").json()
    assert sorted(c["board"] for c in room["grid"]) == list(range(1, 17))
    assert {c["state"] for c in room["grid"]} == {"verified"}
    laws = {f["law"] for f in room["faults"]}
    assert "Law 13A1" in laws and "Law 2" in laws  # the misfed card, the wrong board
    assert any(f["law"] == "Law 13A1" for m in messages for f in m.get("faults", []))
    dealt: set[int] = set()
    for port in ports:  # what physically happened: every board dealt into, on one machine or the other
        sim = sim_ports.simulators()[url_of(client, port)]
        assert sim.device is not None
        with sim.lock:
            dealt |= {record.board_number for record in sim.device.ledger.records}
    assert dealt == set(range(1, 17))
    report = client.get("/report")
    assert report.status_code == 200 and "<svg" in report.text and "Law 13A1" in report.text
    csv = client.get("/report/download?j=0&run=1&as=csv")
    assert csv.status_code == 200 and csv.text.startswith("table,session,machine,item,law,value")
    shown = [json.dumps(messages), report.text, csv.text, json.dumps(room)]
    shown += [client.get(p).text for p in ("/", "/start", "/director", "/report/download?j=0&run=1&as=json",
                                           "/report/download?j=0&run=1&as=labels")]
    hands = hands_of(session)
    assert len(hands) == 64
    assert [cards_in(text, hands) for text in shown] == [[]] * len(shown)
    records = client.get("/report/download?j=0&run=1&as=records")
    assert records.status_code == 403  # the deals stay locked without the director


def test_the_start_page_shows_what_is_wrong_before_anything_starts(client: TestClient, session: Path,
                                                                   tmp_path: Path) -> None:
    machines = sims(client, tmp_path)
    missing = client.post("/api/check", json={"source": "nope.pbn", "machines": machines}).json()
    assert not missing["ok"] and "not a deal file or plan of the console's work folder" in missing["problems"][0]
    no_port = client.post("/api/check", json={"source": session.name, "machines": []}).json()
    assert no_port["problems"] == ["choose at least one machine"]
    broken = session.parent / "broken.pbn"
    broken.write_text('[Board "1"]\n[Deal "N:AKQ.. . ."]\n', encoding="utf-8")
    bad = client.post("/api/check", json={"source": broken.name, "machines": machines}).json()
    assert not bad["ok"] and bad["problems"][0].startswith("broken.pbn")
    assert "AKQ" not in json.dumps(bad)  # the operator's file is named, not quoted
    refused = client.post("/api/start", json={"source": broken.name, "machines": machines})
    assert refused.status_code == 400 and not Path(str(broken) + ".journal").exists()
    good = client.post("/api/check", json={"source": session.name, "machines": machines}).json()
    assert good["ok"] and good["lines"][0].startswith("16 boards (1-16) in session.pbn")
    assert good["source"] == "session.pbn" and good["journal"] == "session.pbn.journal"
    assert str(tmp_path) not in json.dumps(good)  # the server's folders are not shown
    assert not Path(str(session) + ".journal").exists()  # a check starts nothing
    with JournalLock.acquire(str(session) + ".journal", "dealer deal (another controller)"):
        held = client.post("/api/check", json={"source": session.name, "machines": machines}).json()
        assert not held["ok"] and "in use by dealer deal (another controller)" in held["problems"][0]
        assert client.post("/api/start", json={"source": session.name, "machines": machines}).status_code == 400
    assert client.post("/api/check", json={"source": session.name, "machines": machines}).json()["ok"]


def test_a_run_stopped_from_the_page_resumes_where_it_stopped(client: TestClient, session: Path,
                                                              tmp_path: Path) -> None:
    ports = sims(client, tmp_path, plans=[[], []])
    start(client, session, ports)
    with client.stream("GET", "/events?until=end") as stream:
        for line in stream.iter_lines():
            if '"verified (' in line:  # the first board verified: stop
                assert client.post("/api/stop").json()["ok"]
                break
    assert follow(client)[-1]["status"] == "stopped"  # the run's end, or the room once it had ended
    states = journal_states(session)
    assert JobState.VERIFIED in states and states.count(JobState.VERIFIED) < 16
    assert client.post("/api/check", json={"source": session.name, "machines": ports}).json()["problems"] == [
        "session.pbn.journal: run 1 of this deal set is unfinished; tick 'resume the unfinished run'"]
    assert client.post("/api/resume").json()["ok"]
    ended = [m for m in follow(client) if m["type"] == "ended"]
    assert ended[-1]["status"] == "finished"
    assert journal_states(session) == [JobState.VERIFIED] * 16


def test_a_console_started_again_shows_the_runs_of_its_journals(session: Path, tmp_path: Path) -> None:
    try:
        with TestClient(build_app(tmp_path / "work", LOCAL, PIN), headers=OPERATOR) as first:
            start(first, session, sims(first, tmp_path, plans=FAULTS))
            follow(first)
            live_laws = [f["law"] for f in first.get("/api/room").json()["faults"] if f["law"]]
        with TestClient(build_app(tmp_path / "work", LOCAL, PIN), headers=OPERATOR) as again:
            room = again.get("/api/room").json()
            assert room["status"] == "idle" and room["verified"] == 16
            assert [c["state"] for c in room["grid"]] == ["verified"] * 16
            assert sorted(f["law"] for f in room["faults"] if f["law"]) == sorted(live_laws)  # from the journal
            assert {"Law 13A1", "Law 2"} <= set(live_laws)
            assert cards_in(json.dumps(room), hands_of(session)) == []
            assert "session.pbn.journal run 1" in again.get("/report").text
    finally:
        sim_ports.stop_all()


def test_the_director_sees_a_board_of_a_finished_run_only_after_unlocking(client: TestClient, session: Path,
                                                                          tmp_path: Path) -> None:
    assert client.post("/director/board", data={"label": "A 7"}).status_code == 403
    start(client, session, sims(client, tmp_path, plans=[[]]))
    follow(client)
    assert client.post("/director/unlock", data={"pin": "00000000"}).status_code == 403
    unlocked = client.post("/director/unlock", data={"pin": PIN}, follow_redirects=False)
    assert unlocked.status_code == 303
    board = client.post("/director/board", data={"label": "A 7"})
    hands = hands_of(session)
    assert board.status_code == 200 and 'data-board="7"' in board.text
    seven = [suit for hand in hands[24:28] for suit in holdings(hand)]  # board 7's 4 hands, as the file has them
    assert seven and [suit for suit in seven if suit not in text_of(board.text)] == []
    assert client.post("/director/board", data={"label": "A:7:XX:Q"}).status_code == 400
    assert client.get("/report/download?j=0&run=1&as=records").status_code == 200
    client.post("/director/lock")
    assert client.post("/director/board", data={"label": "A 7"}).status_code == 403


def test_every_request_without_the_token_gets_401(tmp_path: Path) -> None:
    app = build_app(tmp_path / "work", Access("s3cret-token", None), PIN, tell=lambda line: None)
    with TestClient(app) as client:
        for path in ("/", "/events", "/api/room", "/start", "/report", "/director", "/static/room.js"):
            assert client.get(path).status_code == 401, path
        assert client.post("/api/start", json={}).status_code == 401
        assert client.get("/", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert client.get("/", headers={"Authorization": "Bearer s3cret-token"}).status_code == 200
        visit = client.get("/start?token=s3cret-token", follow_redirects=False)
        assert visit.status_code == 303 and visit.headers["location"] == "/start"
        assert "HttpOnly" in visit.headers["set-cookie"]
        assert client.get("/start").status_code == 200  # the cookie from now on


def test_a_local_console_answers_its_own_pages_only(client: TestClient) -> None:
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 400
    assert client.post("/api/stop", headers={"Origin": "http://evil.example"}).status_code == 403
    assert client.post("/api/stop", headers={"Origin": "http://testserver"}).status_code == 400  # no run


PLAN = '''\
[event]
name = "Serve Congress"
journal = "serve.journal"

[[machines]]
name = "M1"
port = "sim://?speed=100&seed=11"

[[machines]]
name = "M2"
port = "sim://?speed=100&seed=12"

[[sessions]]
name = "MON1"
boards = "1-4"

[[sessions.sections]]
name = "A"
copies = 2

[[sessions]]
name = "MON2"
boards = "1-3"

[[sessions.sections]]
name = "B"
sets = ["RED"]
'''


def test_a_congress_plan_is_checked_then_dealt_on_its_own_machines(client: TestClient, tmp_path: Path) -> None:
    plan = tmp_path / "work" / "congress.toml"
    plan.write_text(PLAN, encoding="utf-8")
    replay = client.post("/api/check", json={"source": plan.name, "machines": [], "replay": True}).json()
    assert replay["problems"] == [f"{plan.name}: a plan marks its replay sessions itself (replay = true): untick "
                                  "'a replay of deals dealt before'"]  # as dealer deal --plan refuses --replay
    checked = client.post("/api/check", json={"source": plan.name, "machines": []}).json()
    assert checked["ok"], checked
    assert checked["lines"][0] == ("congress plan Serve Congress: 2 sessions, 11 jobs, on the plan's 2 machines "
                                   "(M1, M2)")
    start(client, plan, [])
    ended = [m for m in follow(client) if m["type"] == "ended"]
    assert ended[-1]["status"] == "finished", ended
    room = client.get("/api/room").json()
    cells = sorted((c["session"], c["set"], c["board"]) for c in room["grid"])
    assert cells == sorted([("MON1", s, b) for s in ("A1", "A2") for b in range(1, 5)]
                           + [("MON2", "RED", b) for b in range(1, 4)])
    assert {c["state"] for c in room["grid"]} == {"verified"}
    assert {m["name"] for m in room["machines"]} == {"M1", "M2"}
    again = client.post("/api/check", json={"source": plan.name, "machines": []}).json()
    assert again["ok"]  # every session dealt: a new start deals nothing


def test_an_uploaded_deal_file_is_kept_private_in_the_work_folder_then_checked(client: TestClient, session: Path,
                                                                               tmp_path: Path) -> None:
    data = session.read_bytes()
    kept = client.post("/api/upload?name=club night.pbn", content=data).json()
    assert kept["source"] == "uploads/club_night.pbn" and kept["source"] in kept["files"]
    path = tmp_path / "work" / kept["source"]
    assert path.read_bytes() == data and path.stat().st_mode & 0o777 == 0o600
    again = client.post("/api/upload?name=club night.pbn", content=data).json()
    assert again["source"] == kept["source"]  # the same file again: kept once
    other = client.post("/api/upload?name=club night.pbn", content=data.replace(b"Board", b"board", 1)).json()
    assert other["source"] == "uploads/club_night-2.pbn" and path.read_bytes() == data  # never replaced
    checked = client.post("/api/check", json={"source": kept["source"], "machines": sims(client, tmp_path)}).json()
    assert checked["ok"] and checked["lines"][0].startswith("16 boards (1-16) in club_night.pbn")


def test_copies_go_into_their_board_sets_on_the_grid(client: TestClient, session: Path, tmp_path: Path) -> None:
    start(client, session, sims(client, tmp_path, speed=100, plans=[[], []]), copies=2, set="b")
    assert [m for m in follow(client) if m["type"] == "ended"][-1]["status"] == "finished"
    grid = client.get("/api/room").json()["grid"]
    assert sorted((c["set"], c["board"], c["copy"]) for c in grid) == sorted(
        [("B1", b, 1) for b in range(1, 17)] + [("B2", b, 2) for b in range(1, 17)])
    assert journal_states(session) == [JobState.VERIFIED] * 32


@pytest.mark.parametrize("set_name", ["A!!", "ABCDEFGHIJKLMNOP"])
def test_check_start_and_the_command_line_refuse_a_board_set_by_one_rule(client: TestClient, session: Path,
                                                                         tmp_path: Path, set_name: str) -> None:
    machines = sims(client, tmp_path, plans=[[]])
    checked = client.post("/api/check", json={"source": session.name, "machines": machines, "set": set_name}).json()
    refused = client.post("/api/start", json={"source": session.name, "machines": machines, "set": set_name})
    assert not checked["ok"] and refused.status_code == 400
    assert refused.json()["problems"] == checked["problems"][:1]
    assert "board set name" in checked["problems"][0]
    command = run([sys.executable, "-m", "dealer", "deal", str(session), "--port", url_of(client, machines[0]),
                   "--set", set_name], cwd=tmp_path)
    assert command.returncode == 2 and checked["problems"][0] in command.stderr  # the same words, the same rule
    assert not Path(str(session) + ".journal").exists()


def test_a_deal_dealt_before_is_refused_with_advice_the_page_offers_and_dealt_again_as_a_replay(
        client: TestClient, session: Path, tmp_path: Path) -> None:
    machines = sims(client, tmp_path, speed=100, plans=[[]])
    start(client, session, machines)
    assert [m for m in follow(client) if m["type"] == "ended"][-1]["status"] == "finished"
    copy = session.parent / "again.pbn"
    copy.write_bytes(session.read_bytes())  # the same deals in another file: Law 6D2
    refused = client.post("/api/check", json={"source": copy.name, "machines": machines}).json()
    assert not refused["ok"] and "tick 'a replay of deals dealt before'" in refused["problems"][0]
    assert "--replay" not in refused["problems"][0]
    assert 'id="replay"' in client.get("/start").text  # the box the advice names is on the page
    replay = client.post("/api/check", json={"source": copy.name, "machines": machines, "replay": True}).json()
    assert replay["ok"] and any(line.startswith("note: ") for line in replay["lines"])
    start(client, copy, machines, replay=True)
    assert [m for m in follow(client) if m["type"] == "ended"][-1]["status"] == "finished"


def test_after_stop_and_resume_the_room_keeps_the_faults_and_counts_the_whole_run(
        client: TestClient, session: Path, tmp_path: Path) -> None:
    ports = sims(client, tmp_path, speed=100, plans=FAULTS)
    start(client, session, ports)
    with client.stream("GET", "/events?until=end") as stream:
        for line in stream.iter_lines():
            if line.startswith("data: ") and any(m.get("faults") for m in json.loads(line.removeprefix("data: "))):
                assert client.post("/api/stop").json()["ok"]  # the first fault seen: stop
                again = client.post("/api/stop").json()  # pressed twice (the run may have ended meanwhile)
                assert not again["ok"] and again["problems"][0] in (
                    "the run is stopping already: each machine finishes its board", "no run is dealing")
                break
    follow(client)
    stopped = client.get("/api/room").json()
    assert stopped["status"] == "stopped" and "planned" not in stopped["message"]  # no list of boards left
    assert stopped["resume"]["command"].startswith("dealer deal session.pbn --port ")
    command = stopped["resume"]["command"]
    assert command.endswith(" --resume") and str(tmp_path / "work") not in command
    before = [(f["machine"], f["law"], f["text"]) for f in stopped["faults"]]
    assert before and stopped["figures"]["verified"] < 16
    assert stopped["message"].endswith(f"; {16 - stopped['figures']['verified']} of 16 boards left")
    with TestClient(build_app(tmp_path / "work", LOCAL, PIN, tell=lambda line: None), headers=OPERATOR) as again:
        restarted = again.get("/api/room").json()  # a console started again on the same work folder
        assert restarted["status"] == "idle" and restarted["resume"] is None
        assert "run 1 of session.pbn.journal is unfinished" in restarted["message"]
        assert "tick 'resume the unfinished run' on the Start page" in restarted["message"]
        assert [(f["machine"], f["law"], f["text"]) for f in restarted["faults"]] == before
        assert restarted["figures"] == stopped["figures"]
    assert client.post("/api/resume").json()["ok"]
    assert [m for m in follow(client) if m["type"] == "ended"][-1]["status"] == "finished"
    room = client.get("/api/room").json()
    assert [(f["machine"], f["law"], f["text"]) for f in room["faults"]][:len(before)] == before
    figures = room["figures"]
    with Journal.open_read_only(str(session) + ".journal") as journal:
        verified = [r for r in journal.events(1) if r.state is JobState.VERIFIED]
    assert figures["verified"] == figures["total"] == 16 == len(verified)
    assert sum(m["verified"] for m in figures["machines"]) == 16  # every part's boards, per machine
    assert {m["name"]: m["verified"] for m in figures["machines"]} == {
        name: sum(1 for r in verified if r.machine == name) for name in ("m1", "m2")}
    busy = [m["busy"] for m in figures["machines"]]  # each machine's time on boards, every part of the run
    assert 0 < max(busy) - 0.1 <= figures["dealing"] <= sum(busy) + 0.1  # together: their overlaps once
    assert abs(figures["rate"] - 16 * 3600 / figures["dealing"]) <= 0.01 * figures["rate"]
    assert room["resume"] is None


def test_the_command_line_a_stopped_room_shows_resumes_the_run(client: TestClient, session: Path,
                                                               tmp_path: Path) -> None:
    start(client, session, sims(client, tmp_path, speed=100, plans=[[], []]))
    with client.stream("GET", "/events?until=end") as stream:
        for line in stream.iter_lines():
            if '"verified (' in line:  # the first board verified: stop
                assert client.post("/api/stop").json()["ok"]
                break
    assert follow(client)[-1]["status"] == "stopped"
    stopped = client.get("/api/room").json()
    left = 16 - stopped["figures"]["verified"]
    assert left > 0
    typed = shlex.split(stopped["resume"]["command"])  # as the director types it, in the work folder
    assert typed[:2] == ["dealer", "deal"]
    done = run([sys.executable, "-m", *typed], cwd=tmp_path / "work")
    assert done.returncode == 0, done.stderr
    assert journal_states(session) == [JobState.VERIFIED] * 16
    room = client.get("/api/room").json()  # the console's room counts the part dealt from the command line too
    assert room["figures"]["verified"] == 16 and sum(m["verified"] for m in room["figures"]["machines"]) == 16


def test_every_frame_of_the_room_agrees_with_itself_at_speed_200(client: TestClient, session: Path,
                                                                 tmp_path: Path) -> None:
    """Two machines at speed 200: the page takes the run's count, the machines' counts and the grid from one
    message of one reading, so after every message the page applies, its headline, the sum of its machines and
    its grid's verified cells are one number; the events between readings carry no count of their own."""
    start(client, session, sims(client, tmp_path, speed=200, plans=[[], []]))
    messages = follow(client)
    grid: dict[str, str] = {}
    frames = 0
    for message in messages:
        if message["type"] == "snapshot":
            grid = {f"{c['run']}-{c['set']}-{c['board']}-{c['copy']}": c["state"] for c in message["grid"]}
        elif message["type"] == "grid":
            grid.update({f"{c['run']}-{c['set']}-{c['board']}-{c['copy']}": c["state"] for c in message["cells"]})
        else:
            assert "verified" not in message or message["type"] in ("opened",), message
            continue
        figures = message["figures"]
        if figures is None:
            continue
        cells = sum(state == "verified" for state in grid.values())
        assert figures["verified"] == sum(m["verified"] for m in figures["machines"]) == cells, message
        frames += 1
    assert frames >= 1 and grid and set(grid.values()) == {"verified"}  # (the last reading at the least)


def test_prepared_boards_are_refused_by_the_check_unless_teaching_is_ticked_and_go_into_the_practice_history(
        client: TestClient, tmp_path: Path, deal_history: Path) -> None:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    made = run([sys.executable, "-m", "dealer", "generate", "--boards", "1-8", "--where", "hcp(north) >= 15",
                "-o", "lesson.pbn"], cwd=work)
    assert made.returncode == 0, made.stderr
    lesson = work / "lesson.pbn"
    machines = sims(client, tmp_path, speed=100, plans=[[]])
    refused = client.post("/api/check", json={"source": lesson.name, "machines": machines}).json()
    assert not refused["ok"] and len(refused["problems"]) == 1
    assert "Law 6E4" in refused["problems"][0] and "lesson.pbn" in refused["problems"][0]
    assert "tick 'teaching (prepared boards, practice history)'" in refused["problems"][0]
    assert "--teaching" not in refused["problems"][0]
    assert 'id="teaching"' in client.get("/start").text  # the box the advice names is on the page
    assert client.post("/api/start", json={"source": lesson.name, "machines": machines}).status_code != 200
    assert not (work / "lesson.pbn.journal").exists()
    taught = client.post("/api/check", json={"source": lesson.name, "machines": machines, "teaching": True}).json()
    assert taught["ok"], taught
    assert any(line.startswith("teaching run: its deals are kept in a practice history") for line in taught["lines"])
    start(client, lesson, machines, teaching=True)
    assert [m for m in follow(client) if m["type"] == "ended"][-1]["status"] == "finished"
    with DealHistory.open(work / "simulated-history.sqlite") as practice:
        assert len(practice) == 8
    with DealHistory.open(deal_history) as club:
        assert len(club) == 0
