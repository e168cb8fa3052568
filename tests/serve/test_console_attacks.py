"""The console as an attacker uses it: plans and checks naming the server's files, every URL scheme as a
machine, hostile upload names and sizes, the director's PIN guessed from two clients, framing, and a
second local user without the token. Judged on the file system (a canary folder beside the work folder,
compared before and after), on what the answers quote, and on the director still getting in."""

from __future__ import annotations

import json
import os
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from dealer.dealing import sim_ports
from dealer.serve import director
from dealer.serve.app import build_app
from dealer.serve.auth import Access
from dealer.serve.given import OWN_FOLDER
from dealer.serve.uploads import UploadLimits
from tests.support.paths import ROOT
from tests.support.serve_room import make_session, served

PIN = "2468135790"
TOKEN = "the-operators-token"
OPERATOR = {"Authorization": f"Bearer {TOKEN}"}
SECRET = "CANARY-SECRET-0123456789-not-for-a-browser"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the work folder holding files nobody gave the console: a secret, a deal file."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    (folder / "secret.pbn").write_text(f'[Board "1"]\n[Deal "{SECRET}"]\n', encoding="utf-8")
    (folder / "victim.json").write_text('{"keep": "me"}\n', encoding="utf-8")
    return folder


@pytest.fixture
def console(tmp_path: Path) -> Iterator[tuple[TestClient, list[str], Clock]]:
    told: list[str] = []
    clock = Clock()
    app = build_app(tmp_path / "work", Access(TOKEN, frozenset({"testserver", "127.0.0.1"})), PIN,
                    limits=UploadLimits(file_bytes=4000, quota_bytes=10_000), clock=clock, tell=told.append)
    try:
        with TestClient(app, headers=OPERATOR) as client:
            make_session(tmp_path / "work")
            yield client, told, clock
    finally:
        sim_ports.stop_all()


def tree(folder: Path) -> dict[str, tuple[bool, int, int, bytes]]:
    """Every entry under `folder`: (is a link, size, mode, content)."""
    seen = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(root) / name
            st = path.lstat()
            content = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
            seen[str(path.relative_to(folder))] = (path.is_symlink(), st.st_size, st.st_mode, content)
    return seen


def said(response: Any) -> str:
    return response.text if hasattr(response, "text") else str(response)


def plan_text(**parts: str) -> str:
    event = parts.get("event", 'name = "Attack"')
    source = parts.get("source", '"bigdeal"')
    machine = parts.get("machine", '"sim://?speed=50&seed=3"')
    return (f"[event]\n{event}\n\n[[machines]]\nname = \"M1\"\nport = {machine}\n\n"
            f"[[sessions]]\nname = \"S1\"\nboards = \"1-4\"\nsource = {source}\n\n"
            "[[sessions.sections]]\nname = \"A\"\n")


def test_plans_and_checks_naming_the_servers_files_read_and_write_nothing_outside_and_quote_nothing(
        console: tuple[TestClient, list[str], Clock], outside: Path, tmp_path: Path) -> None:
    client, _, _ = console
    before = tree(outside)
    root_before = sorted(os.listdir("/"))
    hostile = {
        "shadow": plan_text(source='{ file = "/etc/shadow", format = "lin" }'),
        "secret-lin": plan_text(source=f'{{ file = "{outside}/secret.txt", format = "lin" }}'),
        "secret-pbn": plan_text(source='{ file = "../../outside/secret.pbn" }'),
        "squaredeal": plan_text(source=f'{{ squaredeal = "{outside}/secret.txt", session = "S1" }}'),
        "sqk": plan_text(source=f'{{ squaredeal = "x.sqd", sqk = "{outside}/secret.txt", session = "S1" }}'),
        "journal": plan_text(event=f'name = "A"\njournal = "{outside}/victim.json"'),
        "new-journal": plan_text(event=f'name = "A"\njournal = "{outside}/made.journal"'),
        "deal-folder": plan_text(event='name = "A"\ndeal_folder = "/dealer-attack-folder"'),
        "relative-folder": plan_text(event='name = "A"\ndeal_folder = "../../outside/gen"'),
    }
    answers = []
    for name, text in hostile.items():
        kept = client.post(f"/api/upload?name={name}.toml", content=text.encode()).json()
        for route in ("/api/check", "/api/start"):
            answer = client.post(route, json={"source": kept["source"], "machines": []})
            assert answer.status_code in (200, 400), (name, route, answer.text)
            body = answer.json()
            assert not body["ok"], (name, body)
            assert "work folder only" in " ".join(body["problems"]), (name, body)
            answers.append(answer.text)
    for path in ("/etc/shadow", "/etc/passwd", f"{outside}/secret.pbn", "../outside/secret.pbn",
                 "uploads/../../outside/secret.pbn", f"{outside}/no-such.pbn", "/no/such/file.pbn", "~/x.pbn"):
        answer = client.post("/api/check", json={"source": path, "machines": ["sim-5"]})
        assert answer.status_code == 400
        (problem,) = answer.json()["problems"]
        # one answer whether the path exists or not: the name, given back, then the same words
        assert problem.endswith("is not a deal file or plan of the console's work folder: choose one it lists, "
                                "or upload it"), problem
        answers.append(answer.text)
    assert [a for a in answers if SECRET in a or "root:" in a] == []
    assert tree(outside) == before
    assert sorted(os.listdir("/")) == root_before and not os.path.lexists("/dealer-attack-folder")
    print(f"{len(answers)} hostile checks and starts answered; the canary folder unchanged")


def test_a_plan_naming_the_consoles_own_folder_is_refused_and_the_folder_is_untouched(
        console: tuple[TestClient, list[str], Clock], tmp_path: Path) -> None:
    """The console's own files (its simulated machines' fault plans) are in the work folder, yet no plan may
    write or read there."""
    client, _, _ = console
    client.get("/start")  # the console's simulated machines are offered: their fault plans are written
    own = tmp_path / "work" / OWN_FOLDER
    before = tree(own)
    for name, text in {"own-folder": plan_text(event='name = "A"\ndeal_folder = "../.console"'),
                       "own-journal": plan_text(event='name = "A"\njournal = "../.console/sim-faults-1.json"'),
                       "own-source": plan_text(source='{ file = "../.console/sim-faults-1.json", format = "pbn" }')
                       }.items():
        kept = client.post(f"/api/upload?name={name}.toml", content=text.encode()).json()
        for route in ("/api/check", "/api/start"):
            body = client.post(route, json={"source": kept["source"], "machines": []}).json()
            assert not body["ok"] and any(".console holds the console's own files" in p for p in body["problems"]), body
    assert tree(own) == before


def test_an_uploaded_file_is_quoted_and_the_operators_is_only_named(
        console: tuple[TestClient, list[str], Clock], tmp_path: Path) -> None:
    client, _, _ = console
    operators = tmp_path / "work" / "operator.pbn"
    operators.write_text(f'[Board "1"]\n[Deal "N:{SECRET}"]\n', encoding="utf-8")
    named = client.post("/api/check", json={"source": "operator.pbn", "machines": ["sim-5"]}).json()
    assert not named["ok"] and named["problems"][0].startswith("operator.pbn, line ")
    assert SECRET not in json.dumps(named)
    through_plan = client.post("/api/upload?name=p.toml",
                               content=plan_text(source='{ file = "../operator.pbn" }').encode()).json()
    planned = client.post("/api/check", json={"source": through_plan["source"], "machines": []}).json()
    assert not planned["ok"] and SECRET not in json.dumps(planned), planned
    mine = client.post("/api/upload?name=mine.pbn", content=f'[Board "1"]\n[Deal "N:{SECRET}"]\n'.encode()).json()
    own = client.post("/api/check", json={"source": mine["source"], "machines": ["sim-5"]}).json()
    assert not own["ok"] and "mine.pbn" in own["problems"][0]  # the client's own file: the reason in full
    assert str(tmp_path) not in json.dumps([named, planned, own])


HOSTILE_PORTS = ["sim://?speed=50&ledger={o}/victim.json", "sim://?speed=50&ledger={o}/new-ledger.json",
                 "spy:///dev/ptmx?file={o}/victim.json", "spy://sim://?file={o}/trace.txt",
                 "sim://?link={o}/link", "sim://?faults={o}/secret.txt", "socket://127.0.0.1:{port}",
                 "rfc2217://127.0.0.1:{port}", "loop://", "hwgrep://.*", "{o}/secret.txt", "/dev/ptmx", "/etc/passwd",
                 "../outside/secret.txt", "file://{o}/secret.txt", "sim://", "SIM-5", "sim-5/../x"]


def test_no_url_of_any_scheme_reaches_a_machine_or_a_file(console: tuple[TestClient, list[str], Clock],
                                                          outside: Path) -> None:
    client, _, _ = console
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    before = tree(outside)
    try:
        ports = [p.format(o=outside, port=port) for p in HOSTILE_PORTS]
        for url in ports:
            for key in ("machines", "ports"):
                for route in ("/api/check", "/api/start"):
                    answer = client.post(route, json={"source": "session.pbn", key: ["sim-5", url]})
                    assert answer.status_code == 400, (url, key, route, answer.text)
                    problem = answer.json()["problems"][0]
                    assert "not one the console offers" in problem, problem
            plan = client.post("/api/upload?name=machines.toml",
                               content=plan_text(machine=json.dumps(url)).encode()).json()
            checked = client.post("/api/check", json={"source": plan["source"], "machines": []}).json()
            if url != "sim://":  # a plain simulated machine writes no file: a plan may have one
                assert not checked["ok"] and "machines[1].port" in checked["problems"][0], (url, checked)
        twice = client.post("/api/check", json={"source": "session.pbn", "machines": ["sim-5", "sim-5 "]})
        assert twice.status_code == 400 and "chosen twice" in twice.json()["problems"][0]
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody connected
    finally:
        listener.close()
    assert tree(outside) == before
    assert sim_ports.simulators() == {}  # no machine was started


@pytest.mark.parametrize("name", ["x" * 300 + ".pbn", "é" * 130 + ".pbn", "../escape.pbn", "/etc/cron.d/x.pbn",
                                  "..\\escape.pbn", "a/b.pbn", "..", ".", "", "nul\x00.pbn", "run.sh",
                                  "journal.sqlite"])
def test_a_hostile_upload_name_is_refused_in_one_line(console: tuple[TestClient, list[str], Clock], name: str,
                                                      tmp_path: Path) -> None:
    client, _, _ = console
    answer = client.post("/api/upload", params={"name": name}, content=b'[Board "1"]\n')
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error.startswith("upload name") and "\n" not in error
    assert not (tmp_path / "work" / "uploads").exists() or list((tmp_path / "work" / "uploads").iterdir()) == []
    assert not (tmp_path / "escape.pbn").exists()


def test_uploads_are_held_to_their_size_and_the_consoles_quota(console: tuple[TestClient, list[str], Clock],
                                                               tmp_path: Path) -> None:
    client, _, _ = console
    uploads = tmp_path / "work" / "uploads"
    big = client.post("/api/upload?name=big.pbn", content=b"x" * 4001)
    assert big.status_code == 413 and big.json() == {"error": "upload: larger than the 4000 bytes a file may be"}
    streamed = client.post("/api/upload?name=big.pbn", content=iter([b"x" * 3000, b"x" * 3000]))  # no length
    assert streamed.status_code == 413 and "a file may be" in streamed.json()["error"]
    kept = [client.post(f"/api/upload?name=f{k}.pbn", content=bytes([65 + k]) * 3000) for k in range(4)]
    assert [k.status_code for k in kept] == [200, 200, 200, 413]
    assert "quota" in kept[3].json()["error"] and "\n" not in kept[3].json()["error"]
    assert sorted(p.name for p in uploads.iterdir()) == ["f0.pbn", "f1.pbn", "f2.pbn"]  # nothing half kept
    assert sum(p.stat().st_size for p in uploads.iterdir()) <= 10_000


def test_the_pin_guessed_from_one_client_never_locks_the_director_out(
        console: tuple[TestClient, list[str], Clock], tmp_path: Path) -> None:
    client, told, clock = console
    app = client.app
    with TestClient(app, headers=OPERATOR, client=("10.0.0.66", 40000)) as guesser, \
            TestClient(app, headers=OPERATOR, client=("10.0.0.7", 40001)) as director_tablet:
        codes = [guesser.post("/director/unlock", data={"pin": f"{k:08d}"}).status_code for k in range(40)]
        assert codes[:director.PER_CLIENT - 1] == [403] * (director.PER_CLIENT - 1)
        assert set(codes[director.PER_CLIENT - 1:]) == {429}  # waits: its PINs are not even looked at
        assert guesser.post("/director/unlock", data={"pin": PIN}).status_code == 429  # not while it waits
        unlocked = director_tablet.post("/director/unlock", data={"pin": PIN}, follow_redirects=False)
        assert unlocked.status_code == 303  # the director, on another tablet, is not held
        clock.now += director.WINDOW_SECONDS + 1  # a minute on: the guesser's address may try again
        assert guesser.post("/director/unlock", data={"pin": "99999999"}).status_code == 403
        clock.now += director.WINDOW_SECONDS + 1
        assert guesser.post("/director/unlock", data={"pin": PIN}, follow_redirects=False).status_code == 303
    assert any("a wrong director's PIN from 10.0.0.66" in line for line in told)
    assert any("the director's PIN is being guessed: 10.0.0.66 waits" in line for line in told)
    assert len(told) <= director.PER_CLIENT + 3  # the terminal is told, not flooded
    assert all(PIN not in line for line in told)


def test_a_guesser_on_the_directors_own_address_does_not_hold_the_directors_browser(
        console: tuple[TestClient, list[str], Clock]) -> None:
    """Every local client is 127.0.0.1: wrong PINs are counted by the browser session the director's page
    gave, so a script guessing from the same address (keeping no cookie, or making up sessions) waits while
    the director's browser does not."""
    client, told, _ = console
    app = client.app
    with TestClient(app, headers=OPERATOR, client=("127.0.0.1", 40000)) as guesser, \
            TestClient(app, headers=OPERATOR, client=("127.0.0.1", 40001)) as browser:
        browser.get("/director")  # the page gives the browser its session
        (session,) = [name for name in browser.cookies if name.startswith(director.SESSION_COOKIE)]
        guesses = [guesser.post("/director/unlock", data={"pin": f"{k:08d}"}).status_code for k in range(12)]
        assert guesses.count(403) == director.PER_CLIENT - 1 and guesses[-1] == 429
        forged = TestClient(app, headers=OPERATOR, client=("127.0.0.1", 40002))
        for made_up in ("nothex", "0123456789ab", browser.cookies[session][::-1]):
            forged.cookies.set(session, made_up)  # a session the console did not give counts as the address
            assert forged.post("/director/unlock", data={"pin": "1"}).status_code == 429
        assert browser.post("/director/unlock", data={"pin": "00000001"}).status_code == 403  # its own count
        unlocked = browser.post("/director/unlock", data={"pin": PIN}, follow_redirects=False)
        assert unlocked.status_code == 303
        assert director.COOKIE in browser.cookies
    assert any("a wrong director's PIN from 127.0.0.1" in line for line in told)
    assert any("from browser session " in line and " at 127.0.0.1" in line for line in told)
    assert all(PIN not in line for line in told)


def test_every_answer_forbids_framing_and_foreign_scripts(console: tuple[TestClient, list[str], Clock]) -> None:
    client, _, _ = console
    stranger = TestClient(client.app)
    answers = [client.get(p) for p in ("/", "/start", "/report", "/director", "/api/room", "/static/room.js",
                                       "/no-such-page")]
    answers += [stranger.get("/"), stranger.post("/api/check", json={}), client.get("/", headers={"Host": "evil"})]
    answers += [client.post("/director/unlock", data={"pin": "1"}), client.post("/api/upload?name=..", content=b"")]
    for answer in answers:
        assert answer.headers["x-frame-options"] == "DENY", answer.request.url
        csp = answer.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
        assert answer.headers["x-content-type-options"] == "nosniff"
    assert [a.status_code for a in answers[-5:]] == [401, 401, 400, 403, 400]


def test_a_second_local_user_without_the_token_reads_and_writes_nothing(tmp_path: Path, outside: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    make_session(work)
    before = tree(work)
    with served(work) as console:
        assert console.token and "this computer only" in console.lines[0]
        pages = ("", "start", "report", "director", "events", "api/room", "api/sources", "static/start.js",
                 "report/download?j=0&run=1&as=csv")
        requests: list[tuple[str, str, bytes | None]] = [("GET", p, None) for p in pages]
        body = json.dumps({"source": "session.pbn", "machines": ["sim-5"]}).encode()
        requests += [("POST", p, body) for p in ("api/check", "api/start", "api/stop", "api/resume")]
        requests += [("POST", "api/upload?name=x.pbn", b'[Board "1"]\n'), ("POST", "director/unlock", b"pin=1")]
        stranger = [{}, {"Authorization": "Bearer wrong"}, {"Cookie": "dealer_token=wrong"},
                    {"Cookie": f"dealer_token_1={console.token}"}]  # another port's cookie is not this console's
        codes = []
        for method, path, data in requests:
            for headers in stranger:
                request = urllib.request.Request(console.address + path, data=data, method=method, headers=headers)
                try:
                    urllib.request.urlopen(request, timeout=30).close()
                    codes.append((path, 200))
                except urllib.error.HTTPError as exc:
                    codes.append((path, exc.code))
                    assert exc.headers["x-frame-options"] == "DENY"
        assert {code for _, code in codes} == {401}, [c for c in codes if c[1] != 401]
        assert json.loads(console.open("api/room"))["status"] == "idle"  # the operator, with the token
    assert tree(work) == before
    print(f"{len(codes)} requests without the token: all 401")


@pytest.mark.parametrize("body", [
    b'{"source": "session.pbn", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    b'{"source": "session.pbn", "copies": Infinity}',
    b'{"source": "session.pbn", "copies": NaN}',
], ids=["nested 100,000 deep", "copies Infinity", "copies NaN"])
def test_a_body_past_a_bound_is_refused_in_one_line_not_a_traceback(
        console: tuple[TestClient, list[str], Clock], body: bytes) -> None:
    client, _, _ = console
    for route in ("/api/check", "/api/start"):
        answer = client.post(route, content=body, headers={"content-type": "application/json"})
        assert answer.status_code == 400, (route, answer.status_code, answer.text[:300])
        (problem,) = answer.json()["problems"]
        assert problem.startswith("the request: ") and "\n" not in problem


def test_an_uploaded_plan_nested_past_the_bound_is_refused_in_one_line(
        console: tuple[TestClient, list[str], Clock]) -> None:
    client, _, _ = console
    deep = "[event]\nname = 'x'\n\n[[machines]]\nname = 'M1'\nport = 'sim://'\nx = " + "[" * 1000 + "]" * 1000
    sent = client.post("/api/upload?name=deep.toml", content=deep.encode())  # within the fixture's 4000 bytes
    assert sent.status_code == 200, sent.text
    answer = client.post("/api/check", json={"source": sent.json()["source"], "machines": ["sim-5"]})
    assert answer.status_code == 200, answer.text[:300]
    (problem,) = answer.json()["problems"]
    assert problem.endswith("not a plan: nested deeper than 32 levels") and "\n" not in problem


def test_the_start_page_offers_deal_files_and_plans_never_the_consoles_own_files(
        console: tuple[TestClient, list[str], Clock], tmp_path: Path) -> None:
    """The console writes fault plans for its simulated machines with faults: JSON, a deal-file suffix, but
    no deal file. The files offered are the work folder's deal files and plans alone."""
    from dealer.serve import given
    from dealer.serve.machines import sim_url

    client, _, _ = console
    work = tmp_path / "work"
    for k in (1, 2, 3, 4):
        sim_url(work, k, faults=True)
    offered = set(given.offered_files(work))
    assert offered == {"session.pbn"}, offered
    assert "sim-faults" not in client.get("/").text


def test_uploads_are_limited_in_number_too(tmp_path: Path) -> None:
    import asyncio
    from collections.abc import AsyncIterator

    from dealer.serve.uploads import TooLarge, Uploads

    uploads = Uploads(tmp_path / "uploads", UploadLimits(files=3))

    async def body(k: int) -> AsyncIterator[bytes]:
        yield f'[Board "{k}"]\n'.encode()

    for k in range(1, 4):
        asyncio.run(uploads.receive("s.pbn", None, body(k)))
    with pytest.raises(TooLarge, match="at most 3 uploaded files"):
        asyncio.run(uploads.receive("s.pbn", None, body(4)))
    assert len(list((tmp_path / "uploads").iterdir())) == 3


def test_the_terminals_one_time_link_lets_the_director_in_whatever_wrong_pins_were_sent(
        console: tuple[TestClient, list[str], Clock]) -> None:
    """Every local client is one address: a client with the token that keeps sending wrong PINs holds the PIN
    form for everyone there. The console's terminal gives the director a one-time link instead: it unlocks one
    browser, once, within ten minutes."""
    client, _, clock = console
    app = client.app
    with TestClient(app, headers=OPERATOR, client=("127.0.0.1", 40000)) as guesser, \
            TestClient(app, headers=OPERATOR, client=("127.0.0.1", 40001)) as director_tablet:
        for k in range(40):
            guesser.post("/director/unlock", data={"pin": f"{k:08d}"})
        assert director_tablet.post("/director/unlock", data={"pin": PIN}).status_code == 429  # held with them
        lock = app.state.console.director  # what the terminal asks for when Enter is pressed there
        key = lock.one_time()
        opened = director_tablet.get(f"/director/once?key={key}", follow_redirects=False)
        assert opened.status_code == 303 and opened.headers["location"] == "/director"
        assert 'action="/director/board"' in director_tablet.get("/director").text  # unlocked
        assert guesser.get(f"/director/once?key={key}").status_code == 403  # once only
        late = lock.one_time()
        clock.now += director.ONCE_SECONDS + 1
        assert guesser.get(f"/director/once?key={late}").status_code == 403  # and not for long
        assert guesser.get("/director/once?key=guessed").status_code == 403


def test_a_room_of_browsers_typing_wrong_pins_never_keeps_the_director_out(
        console: tuple[TestClient, list[str], Clock]) -> None:
    """Twelve browser sessions on one address give five wrong PINs each (a minute's work of a few guessers, or
    of a room's typing mistakes): the director's right PIN, from a browser of its own, lets it in."""
    client, _, _ = console
    app = client.app
    for k in range(12):
        with TestClient(app, headers=OPERATOR, client=("127.0.0.1", 41000 + k)) as browser:
            browser.get("/director")  # the page gives the browser its session
            codes = [browser.post("/director/unlock", data={"pin": f"{k:05d}{n:05d}"}).status_code for n in range(5)]
            assert codes == [403] * 5, f"browser {k}"
    with TestClient(app, headers=OPERATOR, client=("127.0.0.1", 42000)) as director_browser:
        director_browser.get("/director")
        unlocked = director_browser.post("/director/unlock", data={"pin": PIN[:5] + " " + PIN[5:]},
                                         follow_redirects=False)
        assert unlocked.status_code == 303
        assert 'action="/director/board"' in director_browser.get("/director").text


def test_the_pin_takes_years_to_guess_at_the_most_the_limits_let_through() -> None:
    assert len(director.new_pin()) == director.PIN_DIGITS
    assert director.guessing_years() > 1
    assert director.OVERALL >= 12 * 5 * 10  # ten times the wrong PINs of twelve browsers' five a minute
    table = (ROOT / "docs" / "bounds.md").read_text(encoding="utf-8")
    assert f"{director.guessing_years():.1f} years" in table


def test_a_browser_past_its_limit_is_told_how_the_director_gets_in(
        console: tuple[TestClient, list[str], Clock]) -> None:
    client, _, _ = console
    with TestClient(client.app, headers=OPERATOR, client=("10.0.0.66", 40000)) as guesser:
        answers = [guesser.post("/director/unlock", data={"pin": f"{k:010d}"}) for k in range(director.PER_CLIENT)]
        assert [a.status_code for a in answers][-1] == 429
        assert "press Enter at the console's terminal" in answers[-1].text
        assert "press Enter at the console's terminal" in guesser.get("/director").text


def test_guessers_in_many_browsers_use_up_the_all_clients_limit_and_the_terminal_says_how_to_let_the_director_in(
) -> None:
    """Sessions the console gave, each within its own limit, together reach the all-clients limit: then every
    client waits, and the console's terminal is told of the one-time link that lets the director in."""
    told: list[str] = []
    now = [0.0]
    lock = director.DirectorLock(PIN, lambda: now[0], told.append)
    sessions = [lock.new_session() for _ in range(director.OVERALL // director.PER_CLIENT + 1)]
    answers = [lock.unlock("00000000", s).wait for s in sessions for _ in range(director.PER_CLIENT)]
    assert answers.count(0.0) < director.OVERALL and lock.wrong == director.OVERALL
    assert lock.unlock(PIN, lock.new_session()).key is None  # a fresh browser waits too
    assert any("every client waits" in line and "press Enter here for a one-time link" in line for line in told)
    assert lock.use_once(lock.one_time()).key is not None  # the terminal's link lets the director in
    now[0] += director.WINDOW_SECONDS + 1
    assert lock.unlock(PIN, sessions[0]).key is not None  # a minute on, the PIN works again
