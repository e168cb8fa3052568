"""The Director's board view: over HTTP for a congress plan dealt by the console, a session's board shown
from the deal file its plan generated (the same deal the file holds), and, once that file is gone, the
page saying where the session's deals are kept instead of showing nothing; and a replay dealt by the
command line, in the board now, shown with the deal of the run it replays; a stopped run's deal locked."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from dealer.dealing import sim_ports
from dealer.serve import director
from dealer.serve.app import build_app
from dealer.serve.auth import Access
from tests.support.processes import ENV
from tests.support.serve_room import hands_of, holdings, text_of

PIN = "12345678"
TOKEN = "t0ken-of-the-director"
PLAN = '''
[event]
name = "Director Congress"
journal = "congress.journal"

[[machines]]
name = "M1"
port = "sim://?speed=200&seed=21"

[[sessions]]
name = "MON1"
boards = "1-3"

[[sessions.sections]]
name = "A"
'''




@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    (tmp_path / "work").mkdir()
    app = build_app(tmp_path / "work", Access(TOKEN, frozenset({"testserver"})), PIN, tell=lambda line: None)
    try:
        with TestClient(app, headers={"Authorization": f"Bearer {TOKEN}"}) as test_client:
            yield test_client
    finally:
        sim_ports.stop_all()


def dealt_plan(client: TestClient, work: Path) -> Path:
    """The plan dealt to the end through the console's API; the deal file its session was generated into."""
    (work / "congress.toml").write_text(PLAN, encoding="utf-8")
    assert client.post("/api/start", json={"source": "congress.toml", "machines": []}).status_code == 200
    with client.stream("GET", "/events?until=end") as stream:
        ended = [line for line in stream.iter_lines() if '"ended"' in line]
    assert ended and '"finished"' in ended[-1], ended
    generated = [p for p in work.rglob("MON1.pbn")]
    assert len(generated) == 1, generated
    return generated[0]


def test_a_plan_sessions_board_is_shown_from_its_deal_file_or_says_where_that_file_is(
        client: TestClient, tmp_path: Path) -> None:
    work = tmp_path / "work"
    deal_file = dealt_plan(client, work)
    assert client.post("/director/unlock", data={"pin": PIN}).status_code == 200
    board = client.post("/director/board", data={"label": "A1 2"})
    assert board.status_code == 200, board.text
    two = [suit for hand in hands_of(deal_file)[4:8] for suit in holdings(hand)]  # board 2's hands, from the file
    shown = text_of(board.text)
    assert two and [suit for suit in two if suit not in shown] == []
    assert "In the board now: MON1" in shown

    deal_file.rename(deal_file.with_suffix(".moved"))
    gone = client.post("/director/board", data={"label": "A1 2"})
    assert gone.status_code == 200
    said = text_of(gone.text)
    assert (f"Not shown: session MON1 of plan congress.toml: its deals are kept in {deal_file}, which is not there "
            "now: put that file back to show this board") in said
    assert 'class="board"' not in gone.text


def test_a_replay_is_the_deal_in_the_board_now_shown_from_the_run_it_replays(tmp_path: Path) -> None:
    """`dealer deal FILE` then `dealer deal FILE --replay` (Law 6D2) into the same boards: the replay dealt
    last, so it is what the boards hold now; it has no deals of its own, and shows the deal of the run it
    replays, which is listed below as older."""
    deals = tmp_path / "three.pbn"
    for argv in (["generate", "--boards", "1-3", "-o", str(deals)],
                 ["deal", str(deals), "--port", "sim://?speed=200"],
                 ["deal", str(deals), "--port", "sim://?speed=200", "--replay"]):
        subprocess.run([sys.executable, "-m", "dealer", *argv], env=ENV, check=True, capture_output=True,
                       timeout=120)
    dealings = director.find_board([Path(f"{deals}.journal")], "A", 2)
    assert [(d.run.id, d.run.replay) for d in dealings] == [(2, True), (1, False)]
    now, older = dealings
    assert now.why == "a replay of three" and now.deals is not None and older.deals is not None
    assert now.deals.deal_hashes() == older.deals.deal_hashes() == [now.deal_hash]
    page = director.dealings_html(dealings)
    assert page.index("In the board now: three (run 2") < page.index("Older, no longer in the board: three (run 1")
    assert page.count('class="board"') == 2


def test_a_board_of_a_stopped_run_says_its_deal_is_locked_and_shows_the_older_one_below(
        client: TestClient, tmp_path: Path) -> None:
    """A plan's session dealt to the end, then a deal file dealt into the same set and stopped after its
    first verified board: that board holds the stopped run's deal, which stays locked, and the plan's
    deal stands below it as older."""
    work = tmp_path / "work"
    dealt_plan(client, work)
    subprocess.run([sys.executable, "-m", "dealer", "generate", "--boards", "1-8", "-o", str(work / "more.pbn")],
                   env=ENV, check=True, capture_output=True, timeout=60)
    started = client.post("/api/start", json={"source": "more.pbn", "machines": ["sim-3"], "set": "A1"})
    assert started.status_code == 200, started.text
    with client.stream("GET", "/events?until=end") as stream:
        for line in stream.iter_lines():
            if '"verified (' in line:  # the first board verified: stop
                assert client.post("/api/stop").json()["ok"]
                break
    with client.stream("GET", "/events?until=end") as stream:  # the run's end, or (ended already) the room as it is
        assert any('"status":"stopped"' in line or ('"ended"' in line and '"stopped"' in line)
                   for line in stream.iter_lines()), "the run did not stop"
    assert client.post("/director/unlock", data={"pin": PIN}).status_code == 200
    page = client.post("/director/board", data={"label": "A1 1"})
    assert page.status_code == 200
    said = text_of(page.text)
    assert said.index("In the board now: more") < said.index("Older, no longer in the board: MON1")
    assert "Not shown: the run has not finished: its deals stay locked until it has" in said
    assert page.text.count('class="board"') == 1  # the older deal only
