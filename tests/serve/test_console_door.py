"""The console's door (`dealer.serve.guard`) on a real server (uvicorn, as `dealer serve` runs it) with short
bounds: an idle connection and a slow request are closed, a newcomer past a bound takes an idle connection's
place or is refused (503) when every one is busy, and the terminal is told once per kind, not per connection."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from dealer.serve import guard
from dealer.serve.app import build_app
from dealer.serve.auth import Access

TOKEN = "the-token"
BEARER = f"Authorization: Bearer {TOKEN}\r\n"


class Door:
    def __init__(self, port: int, door: guard.Door, told: list[str]) -> None:
        self.port, self.door, self.told = port, door, told

    def connect(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        return sock

    def ask(self, path: str = "/api/room") -> bytes:
        with self.connect() as sock:
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{BEARER}Connection: close\r\n\r\n".encode())
            return read_all(sock)


def read_all(sock: socket.socket) -> bytes:
    got = b""
    while chunk := sock.recv(65536):
        got += chunk
    return got


def closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        return read_all(sock) == b""
    except TimeoutError:
        return False


@pytest.fixture
def door(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Door]:
    monkeypatch.setattr(guard, "HEADERS_SECONDS", 0.5)
    monkeypatch.setattr(guard, "BODY_SECONDS", 0.8)
    monkeypatch.setattr(guard, "SPARED", 2)
    told: list[str] = []
    the_door = guard.Door(8, guard.Tally(told.append))
    app = build_app(tmp_path / "work", Access(TOKEN, None), "0123456789", tell=told.append)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    config = uvicorn.Config(app, log_level="warning", access_log=False, http=guard.protocol_class(the_door),
                            lifespan="on", timeout_keep_alive=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield Door(sock.getsockname()[1], the_door, told)
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


def test_an_idle_connection_and_a_slow_request_are_closed_the_terminal_told_once(door: Door) -> None:
    idle = [door.connect() for _ in range(3)]
    slow = door.connect()
    slow.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # headers never ended
    body = door.connect()
    body.sendall(f"POST /api/check HTTP/1.1\r\nHost: 127.0.0.1\r\n{BEARER}Content-Type: application/json\r\n"
                 "Content-Length: 1000\r\n\r\n{".encode())  # a body that never comes whole
    assert all(closed_within(s, 5) for s in (*idle, slow))
    assert closed_within(body, 5)
    assert b"200 OK" in door.ask()  # the console answers on
    late = [line for line in door.told if "headers not come within" in line]
    assert len(late) == 1 and late[0].endswith(": 1 (most from 127.0.0.1)")  # the first told at once, the rest later
    assert any("body not come within" in line for line in door.told)
    assert not [line for line in door.told if "Traceback" in line or "Exception" in line]
    for s in (*idle, slow, body):
        s.close()


def test_a_newcomer_past_the_bound_takes_an_idle_places_or_is_refused_when_all_are_busy(door: Door) -> None:
    idle = [door.connect() for _ in range(door.door.per_address)]
    time.sleep(0.2)
    assert b"200 OK" in door.ask()  # the oldest idle one made room
    assert closed_within(idle[0], 2)
    busy = []
    for _ in range(door.door.per_address):  # event streams: connections busy with a request
        sock = door.connect()
        sock.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n{BEARER}\r\n".encode())
        busy.append(sock)
    time.sleep(0.5)
    with door.connect() as newcomer:  # (it sends nothing: a request sent and refused unread ends in a reset)
        refused = read_all(newcomer)
    assert refused.startswith(b"HTTP/1.1 503") and b"as many connections as it may" in refused
    assert any("connections refused" in line and "their address holding 4" in line for line in door.told)
    for s in (*idle, *busy):
        s.close()


def test_the_bound_keeps_files_for_the_run() -> None:
    assert guard.connection_bound(1024) == 1024 - guard.FD_RESERVE
    assert guard.connection_bound(1 << 20) == guard.MAX_CONNECTIONS
    assert guard.connection_bound(100) == guard.MIN_CONNECTIONS
    assert guard.connection_bound(None) == guard.MAX_CONNECTIONS
