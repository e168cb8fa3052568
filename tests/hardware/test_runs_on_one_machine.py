"""One machine, three deal files: two dealt one after the other without a restart, the third after a power cut.
Every LoadDeal of the three runs carries a job number of its own (PROTOCOL.md 7.2, over all the host's runs), and
after every HelloAck the host's first command is GetStatus (4.4), read from what the machine received. With
``--independent-device`` the machine is the device written from PROTOCOL.md alone (its log of the commands it
took); otherwise the simulated machine on a pseudo-terminal (the frames the host wrote to it)."""

from __future__ import annotations

import ast
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from firmware_protocol import LoadDeal, MsgType, decode_message
from firmware_protocol.framing import Frame, FrameDecoder
from hil.config import SimConfig
from hil.pty_sim import PtySimulator
from tests.support.independent_device.dealing import dealer
from tests.support.independent_device.running import practice_env, running_device

pytestmark = pytest.mark.pty

FILES = ((1, 2, 3), (4, 5, 6), (7, 8, 9))


class HostFrames:
    """A manipulator that passes every byte and keeps the commands the host wrote: (name, job)."""

    def __init__(self) -> None:
        self.commands: list[tuple[str, int]] = []
        self._decoder = FrameDecoder()

    def __call__(self, data: bytes, direction: str) -> list[tuple[float, bytes]]:
        if direction == "to_device":
            for item in self._decoder.feed(data):
                if isinstance(item, Frame) and item.type < 0x40 and item.type != MsgType.EVENT_ACK:
                    msg = decode_message(item.type, item.payload)
                    job = msg.job if isinstance(msg, LoadDeal) else 0
                    self.commands.append((MsgType(item.type).name, job))
        return [(0.0, data)]


@contextmanager
def independent(folder: Path) -> Iterator[tuple[str, Callable[[], None], Callable[[], list[tuple[str, int]]]]]:
    with running_device(folder / "device", "--set", "A:1-9", "--link", str(folder / "machine")) as device:
        def restart() -> None:
            device.tell("power")
            time.sleep(1.0)

        def commands() -> list[tuple[str, int]]:
            out = []
            for line in device.log.read_text(encoding="utf-8").splitlines():
                found = re.search(r"command (\w+) (\{.*\}) ->", line)
                if found:
                    fields = ast.literal_eval(found[2])
                    out.append((found[1], int(fields.get("job", 0)) if found[1] == "LOAD_DEAL" else 0))
            return out

        yield str(folder / "machine"), restart, commands


@contextmanager
def simulated(folder: Path) -> Iterator[tuple[str, Callable[[], None], Callable[[], list[tuple[str, int]]]]]:
    config = SimConfig(speed=50, seed=3, boards=tuple(range(1, 10)))
    seen = HostFrames()
    link = folder / "machine"
    served = [PtySimulator(config, link=link, manipulator=seen).__enter__()]

    def restart() -> None:  # the same machine (the same configuration, so the same serial), switched off and on
        served[0].__exit__(None, None, None)
        served[0] = PtySimulator(config, link=link, manipulator=seen).__enter__()

    try:
        yield str(link), restart, lambda: list(seen.commands)
    finally:
        served[0].__exit__(None, None, None)


def test_three_files_on_one_machine_never_share_a_job_number(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    env = practice_env(tmp_path)
    assert dealer(env, "history", "init", env["DEALER_HISTORY"]).returncode == 0
    machine = independent if request.config.getoption("--independent-device") else simulated
    with machine(tmp_path) as (port, restart, commands):
        for n, boards in enumerate(FILES):
            session = tmp_path / f"file-{n}.pbn"
            made = dealer(env, "generate", "--boards", f"{boards[0]}-{boards[-1]}", "-o", str(session))
            assert made.returncode == 0, made.stderr
            if n == 2:
                restart()
            run = dealer(env, "deal", str(session), "--port", port, "--plain")
            assert run.returncode == 0, run.stderr[-2000:]
        taken = commands()
    loads = [job for (name, job), before in zip(taken, [("", -1), *taken], strict=False)
             if name == "LOAD_DEAL" and (name, job) != before]  # a retransmission is the same LoadDeal
    assert len(loads) >= 9 and len(loads) == len(set(loads)), loads
    after_hello = [taken[i + 1][0] for i, (name, _job) in enumerate(taken[:-1])
                   if name == "HELLO" and taken[i + 1][0] != "HELLO"]
    assert len(after_hello) >= 3 and set(after_hello) == {"GET_STATUS"}, after_hello
