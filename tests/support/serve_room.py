"""Helpers for the console's tests: a session's deal file, simulated machines with faults, the console
as a user starts it (a subprocess), and the search for cards in whatever the console sends."""

from __future__ import annotations

import contextlib
import json
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.processes import ENV, stop_group

FAULTS = [
    [{"kind": "jam", "board": 2, "card": 20}, {"kind": "wrong_board", "insertion": 6}],
    [{"kind": "misfeed", "board": 2, "card": 11}],
]
"""A jam and a wrong board on the first machine, a misfed card (F2, Law 13A1) on the second."""
DEAL_TAG = re.compile(r'\[Deal "[NESW]:([^"]+)"\]')
CARD = re.compile(r"[♠♥♦♣]\s?(?:10|[AKQJT2-9])|(?:10|[AKQJT2-9])\s?[♠♥♦♣]")
"""A card written with its suit symbol, either way round."""
TAG = re.compile(r"<[^>]+>")
SUITS = "♠♥♦♣"


def make_session(folder: Path, boards: int = 16) -> Path:
    """A deal file of `boards` fresh boards, made by `dealer generate` as a user would."""
    path = folder / "session.pbn"
    subprocess.run([sys.executable, "-m", "dealer", "generate", "--boards", f"1-{boards}", "-o", str(path)],
                   env=ENV, check=True, capture_output=True, timeout=60)
    return path


def sim_ports(folder: Path, speed: float = 50, plans: list[list[dict[str, object]]] | None = None) -> list[str]:
    """Simulated machines, each with its fault plan written into `folder`."""
    ports = []
    for k, faults in enumerate(plans if plans is not None else FAULTS, start=1):
        plan = folder / f"faults-{k}.json"
        plan.write_text(json.dumps({"faults": faults}), encoding="utf-8")
        ports.append(f"sim://?speed={speed:g}&seed={k}&faults={plan}")
    return ports


def offered(ports: list[str]) -> dict[str, str]:
    """Machines for a console to offer (`build_app`'s `extra_machines`): id -> port URL, ids t1, t2, ..."""
    return {f"t{k}": url for k, url in enumerate(ports, start=1)}


def hands_of(deal_file: Path) -> list[str]:
    """Every hand of the file as PBN writes it ('AK2.QJ3.T98.7654'), read from the file's text."""
    return [hand for deal in DEAL_TAG.findall(deal_file.read_text(encoding="utf-8")) for hand in deal.split()]


def cards_in(text: str, hands: list[str]) -> list[str]:
    """What in `text` shows a card: a hand of the deal file, or a card written with its suit symbol."""
    found = [h for h in hands if h in text]
    found += CARD.findall(text) + CARD.findall(TAG.sub("", text))
    return found


def holdings(hand: str) -> list[str]:
    """A PBN hand's suits as a page shows them, tags taken away: '♠A 7', '♣A K J 4 3', '♥10 9' (voids left
    out)."""
    return [sym + " ".join(ranks).replace("T", "10")
            for sym, ranks in zip(SUITS, hand.split("."), strict=True) if ranks]


def text_of(html: str) -> str:
    """A page's text without its tags."""
    return TAG.sub("", html)


@dataclass
class Served:
    """A console running in its own process: its address, director's PIN and output."""

    process: subprocess.Popen[str]
    address: str
    pin: str
    lines: list[str]
    token: str | None
    """The access token printed in the address (None when it went to a --token-file)."""

    def url(self, path: str = "") -> str:
        """The address of a page with the token, as the printed address gives it (a browser gets its cookie)."""
        return f"{self.address}{path}?token={self.token}"

    def open(self, path: str, data: bytes | None = None) -> bytes:
        """A request as a script makes it, with the token."""
        request = urllib.request.Request(self.address + path, data=data, method="POST" if data is not None else "GET",
                                         headers={"Authorization": f"Bearer {self.token}",
                                                  "content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            body: bytes = answer.read()
            return body


@contextmanager
def served(workdir: Path, *extra: str) -> Iterator[Served]:
    """`dealer serve --port 0` in its own process group; stopped with Ctrl-C (SIGINT) at the end."""
    process = subprocess.Popen([sys.executable, "-m", "dealer", "serve", "--port", "0", "--workdir", str(workdir),
                                *extra], env=ENV, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert process.stderr is not None
        lines = [process.stderr.readline() for _ in range(3)]
        address = re.search(r"(http://\S+/)(?:\?token=(\S+))?", lines[0])  # in the console's language, whichever
        pin = re.search(r"PIN\D*?(\d+)", lines[1])
        assert address and pin, lines
        yield Served(process, address.group(1), pin.group(1), lines, address.group(2))
    finally:
        if process.poll() is None:
            stop_group(process, signal.SIGINT, timeout=60)
        if process.stderr is not None:
            process.stderr.close()


CLIENT_TOKEN = "t0ken-of-the-operator"
"""The access token of a console driven in this process (`console_client`)."""


@contextmanager
def console_client(workdir: Path) -> Iterator[Any]:
    """The console's application on `workdir` (made here), driven in this process by Starlette's TestClient with
    its token; every simulated machine it started is stopped at the end."""
    from starlette.testclient import TestClient

    from dealer.dealing import sim_ports as simulated
    from dealer.serve.app import build_app
    from dealer.serve.auth import Access

    workdir.mkdir()
    access = Access(CLIENT_TOKEN, frozenset({"testserver", "127.0.0.1", "localhost"}))
    app = build_app(workdir, access, "12345678", tell=lambda line: None)
    try:
        with TestClient(app, headers={"Authorization": f"Bearer {CLIENT_TOKEN}"}) as test_client:
            yield test_client
    finally:
        simulated.stop_all()


class RoomStream:
    """The Room's event stream (``/events``) of a console, read as a browser reads it, in a thread: every
    message kept in order (`messages`), and the raw text, to search for what must never be sent."""

    def __init__(self, console: Served) -> None:
        from urllib.parse import urlsplit

        address = urlsplit(console.address)
        self._socket = socket.create_connection((address.hostname or "127.0.0.1", address.port or 80), timeout=300)
        self._socket.sendall(f"GET /events HTTP/1.0\r\nHost: {address.netloc}\r\n"
                             f"Authorization: Bearer {console.token}\r\n\r\n".encode())
        self._lines = self._socket.makefile("rb")
        status = self._lines.readline().decode()
        assert " 200 " in status, status
        self.messages: list[dict[str, Any]] = []
        self.text: list[str] = []
        self._thread = threading.Thread(target=self._read, name="room-stream", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            for raw in self._lines:  # (HTTP/1.0: the body is the stream's lines, to the connection's end)
                line = raw.decode("utf-8")
                self.text.append(line)
                if line.startswith("data: "):
                    self.messages.extend(json.loads(line[len("data: "):]))

    def close(self) -> None:
        """End the stream (its connection shut under the reading thread) and wait for its thread."""
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=60)
        self._lines.close()
        self._socket.close()
        assert not self._thread.is_alive(), "the room's stream did not end"

    def cells(self) -> dict[str, dict[str, Any]]:
        """Each board's cell as the messages left it, fold of the first snapshot and the grid's changes."""
        cells: dict[str, dict[str, Any]] = {}
        for message in self.messages:
            for cell in message.get("grid", []) if message["type"] == "snapshot" else message.get("cells", []):
                cells[f"r{cell['run']}-{cell['set']}-{cell['board']}-{cell['copy']}"] = cell
        return cells
