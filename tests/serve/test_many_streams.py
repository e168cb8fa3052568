"""As many event streams as the console serves, open on a real console (`dealer serve`, a process of its
own): half read, half never read past their first snapshot; one more is refused 503 in one line; every
reading stream hears the run's end."""

from __future__ import annotations

import json
import selectors
import socket
from pathlib import Path
from urllib.parse import urlsplit

from dealer.serve.hub import MAX_STREAMS
from tests.support.serve_room import Served, make_session, served

GUARD = 120.0
"""Seconds a socket may wait for a byte before the test fails (a guard, not a measure)."""


def open_stream(console: Served, path: str = "/events") -> socket.socket:
    """An event stream's request sent on a fresh socket, as a script would (a small receive buffer, so one
    that does not read holds the console's writes)."""
    where = urlsplit(console.address)
    sock = socket.create_connection((where.hostname, where.port), timeout=GUARD)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {where.netloc}\r\nAuthorization: Bearer {console.token}\r\n"
                 "Connection: close\r\n\r\n".encode())
    return sock


def read_until(sock: socket.socket, mark: bytes, seen: bytes = b"") -> bytes:
    """What the socket gives until `mark` is in it (or it closes)."""
    while mark not in seen:
        chunk = sock.recv(65536)
        if not chunk:
            break
        seen += chunk
    return seen


def test_every_reading_stream_hears_the_end_with_the_most_streams_open(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    make_session(work, boards=4)
    with served(work, "--sim-speed", "200") as console:
        idle, readers = [], []
        try:
            for k in range(MAX_STREAMS):
                sock = open_stream(console)
                assert b"data: [" in read_until(sock, b"\n\n", read_until(sock, b"data: [")), k  # subscribed
                (idle if k % 2 else readers).append(sock)
            refused = open_stream(console, "/events")
            answer = read_until(refused, b"\r\n\r\n")
            answer = read_until(refused, b"}", answer)
            refused.close()
            assert answer.startswith(b"HTTP/1.1 503"), answer[:200]
            assert f"the console has {MAX_STREAMS} event streams open".encode() in answer
            started = json.loads(console.open("api/start", json.dumps(
                {"source": "session.pbn", "machines": ["sim-1", "sim-2"]}).encode()))
            assert started["ok"], started
            heard = read_all(readers)
            assert heard == {k: True for k in range(len(readers))}, [k for k, v in heard.items() if not v]
        finally:
            for sock in idle + readers:
                sock.close()
        room = json.loads(console.open("api/room"))
        assert room["status"] == "finished", room["status"]


def read_all(readers: list[socket.socket]) -> dict[int, bool]:
    """Read every stream until the run's end ('"type":"ended"') is in it, or it closes; for each, whether the
    end was heard."""
    texts = {k: b"" for k in range(len(readers))}
    with selectors.DefaultSelector() as chosen:
        for k, sock in enumerate(readers):
            sock.setblocking(False)
            chosen.register(sock, selectors.EVENT_READ, k)
        while chosen.get_map():
            ready = chosen.select(GUARD)
            assert ready, "no stream spoke for the guard's time"
            for key, _ in ready:
                k = key.data
                chunk = readers[k].recv(65536)
                texts[k] += chunk
                if not chunk or b'"type":"ended"' in texts[k]:
                    chosen.unregister(readers[k])
    return {k: b'"type":"ended"' in text for k, text in texts.items()}
