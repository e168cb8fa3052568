"""The host against every host MUST and SHOULD of PROTOCOL.md, read from its bytes on the wire.

`RULES` is the table: one row per rule, each quoting the document's words and holding a check that reads the
frames the host wrote and the machine answered (both directions, with their virtual times) in runs of `dealer
deal`'s code on the in-memory simulated machine, default settings: a session with the wrong board put in first,
a power cut mid-deal, a machine gone silent mid-deal, a machine of an unknown version and one of version 1. A
check returns what it found wrong (nothing: the rule held). A rule not seen on the wire (what the host tells its
user) is read from the run's own lines. A further test holds the table to the document: every sentence of it that
binds a host (MUST, SHOULD) is some row's.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import hil.model
from dealer.core.errors import DealerError
from dealer.dealing.context import RunLimits
from dealer.dealing.machine import Machine
from dealer.dealing.run import RunOptions, deal_session
from dealer.dealing.sim_ports import loopback_opener
from firmware_protocol import (
    BoardChanged,
    BoardScanned,
    Boot,
    Display,
    Eject,
    GetStatus,
    Hello,
    HelloAck,
    LoadDeal,
    Message,
    MsgType,
    Prompt,
    RecountReport,
    Refused,
    RefuseReason,
    ScanResult,
    StartDeal,
    decode_message,
)
from firmware_protocol.framing import Frame, FrameDecoder
from firmware_protocol.labels import BoardLabel
from hil.config import SimConfig
from hil.fault_plan import FaultPlan
from hil.loopback import Loopback
from tests.support.loopback_run import deals_for
from tests.support.paths import ROOT

T_QUIET, RTO = 5.0, 0.117
HOST_SENDS = {MsgType.HELLO, MsgType.GET_STATUS, MsgType.SCAN_BOARD, MsgType.LOAD_DEAL, MsgType.START_DEAL,
              MsgType.ABORT, MsgType.RECOUNT, MsgType.EJECT, MsgType.RESET, MsgType.DISPLAY}
"""The host's requests (commands); EventAck and Nak are its answers."""


@pytest.fixture(autouse=True)
def _no_leaks(hil_leak_check: None) -> Iterator[None]:
    yield


@dataclass(frozen=True)
class Seen:
    """One intact frame on the wire: when, which way ("host" wrote it, or the "machine"), its seq, size, message."""

    t: float
    by: str
    seq: int
    size: int
    msg: Message
    at: int = 0
    """Its place on the wire (frames of one instant keep their order)."""


@dataclass
class Capture:
    """A run's wire, both ways, and the lines it printed."""

    name: str
    frames: list[Seen] = field(default_factory=list)
    said: str = ""

    def host_requests(self) -> list[Seen]:
        """Each request the host sent, once (its first sending; retransmissions are the same frame)."""
        out: list[Seen] = []
        for f in self.frames:
            if f.by == "host" and f.msg.TYPE in HOST_SENDS and not any(
                    o.seq == f.seq and o.msg == f.msg and f.t - o.t < 60 for o in out[-3:]):
                out.append(f)
        return out


class Wire:
    """A manipulator that passes every byte through and keeps the intact frames, both ways."""

    def __init__(self, capture: Capture) -> None:
        self.capture = capture
        self.loop: Loopback | None = None
        self._decoders = {"to_device": FrameDecoder(), "to_host": FrameDecoder()}

    def __call__(self, data: bytes, direction: str) -> list[tuple[float, bytes]]:
        assert self.loop is not None
        for item in self._decoders[direction].feed(data):
            if isinstance(item, Frame):
                msg = decode_message(item.type, item.payload)
                self.capture.frames.append(Seen(self.loop.clock(), "host" if direction == "to_device" else "machine",
                                                item.seq, len(item.payload), msg, len(self.capture.frames)))
        return [(0.0, data)]


def run(name: str, config: SimConfig, *, resume_after: Callable[[Loopback], None] | None = None) -> Capture:
    """`dealer deal`'s run of DEALS on the simulated machine, its wire captured; with `resume_after`, that is
    done to the machine when the run ends (switched on again) and the run is resumed."""
    capture = Capture(name)
    wire = Wire(capture)
    with Loopback(config, manipulator=wire) as loop:
        wire.loop = loop

        def factory(url: str) -> Machine:
            return Machine(url, opener=loopback_opener(loop), clock=loop.clock,
                           sleep=loop.clock.sleep)  # type: ignore[attr-defined]

        deals = deals_for((1, 2, 3), seed=config.seed)  # each run its own deals: none was dealt before (Law 6D2)
        for resume in (False, True):
            out = io.StringIO()
            options = RunOptions(ports=["loop://sim"], journal=JOURNALS[name], machine_factory=factory, out=out,
                                 resume=resume, limits=RunLimits())
            try:
                deal_session(deals, "session.pbn", options)
            except DealerError as exc:
                out.write(f"dealer: error: {exc}\n")
            capture.said += out.getvalue()
            if resume_after is None or resume:
                break
            resume_after(loop)
    return capture


JOURNALS: dict[str, Path] = {}


def several_runs(name: str, folder: Path) -> Capture:
    """Three deal files dealt one after the other on one simulated machine, each with its own journal (one
    deal history, beside them): two without a restart between, then a power cut, then the third."""
    capture = Capture(name)
    wire = Wire(capture)
    with Loopback(SimConfig(seed=8, boards=tuple(range(1, 10))), manipulator=wire) as loop:
        wire.loop = loop

        def factory(url: str) -> Machine:
            return Machine(url, opener=loopback_opener(loop), clock=loop.clock,
                           sleep=loop.clock.sleep)  # type: ignore[attr-defined]

        for n, boards in enumerate(((1, 2, 3), (4, 5, 6), (7, 8, 9))):
            if n == 2:
                loop.device.power_loss(loop.clock())
            out = io.StringIO()
            options = RunOptions(ports=["loop://sim"], journal=folder / f"file-{n}.journal", machine_factory=factory,
                                 out=out, limits=RunLimits())
            try:
                deal_session(deals_for(boards, seed=20 + n), f"file-{n}.pbn", options)
            except DealerError as exc:
                out.write(f"dealer: error: {exc}\n")
            capture.said += out.getvalue()
    return capture


def two_ports(name: str, folder: Path, configs: tuple[SimConfig, ...]) -> Capture:
    """One run on a machine per configuration (ports ``loop://0``, ``loop://1``...), every wire captured."""
    capture = Capture(name)
    wires = [Wire(capture) for _config in configs]
    loops = [Loopback(config, manipulator=wire) for config, wire in zip(configs, wires, strict=True)]
    try:
        for wire, loop in zip(wires, loops, strict=True):
            wire.loop = loop

        def factory(url: str) -> Machine:
            loop = loops[int(url.rsplit("/", 1)[1])]
            return Machine(url, opener=loopback_opener(loop), clock=loop.clock,
                           sleep=loop.clock.sleep)  # type: ignore[attr-defined]

        out = io.StringIO()
        options = RunOptions(ports=[f"loop://{i}" for i in range(len(loops))], journal=folder / f"{name}.journal",
                             machine_factory=factory, out=out, limits=RunLimits())
        try:
            deal_session(deals_for((1, 2, 3), seed=30), "session.pbn", options)
        except DealerError as exc:
            out.write(f"dealer: error: {exc}\n")
        capture.said += out.getvalue()
    finally:
        for loop in loops:
            loop.close()
    return capture


def resumed_elsewhere(name: str, folder: Path) -> Capture:
    """A run whose machine fell silent mid-deal, resumed on another machine (another serial) on the same port."""
    capture = Capture(name)
    journal = folder / f"{name}.journal"
    configs = (SimConfig(seed=9, boards=(1, 2, 3), serial="SIM-0000AAAA", faults=_plan(
        {"kind": "silent", "board": 2, "card": 20})), SimConfig(seed=9, boards=(1, 2, 3), serial="SIM-0000BBBB"))
    for resume, config in enumerate(configs):
        wire = Wire(capture)
        with Loopback(config, manipulator=wire) as loop:
            wire.loop = loop

            def factory(url: str, loop: Loopback = loop) -> Machine:
                return Machine(url, opener=loopback_opener(loop), clock=loop.clock,
                               sleep=loop.clock.sleep)  # type: ignore[attr-defined]

            out = io.StringIO()
            options = RunOptions(ports=["loop://sim"], journal=journal, machine_factory=factory, out=out,
                                 resume=bool(resume), limits=RunLimits())
            try:
                deal_session(deals_for((1, 2, 3), seed=40), "session.pbn", options)
            except DealerError as exc:
                out.write(f"dealer: error: {exc}\n")
            capture.said += out.getvalue()
    return capture


def _plan(*faults: dict[str, Any]) -> FaultPlan:
    return FaultPlan.from_json({"faults": list(faults)})


def switched_on_again(loop: Loopback) -> None:
    loop.device.switch_on(loop.clock())


@pytest.fixture(scope="module")
def captures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Capture]:
    folder = tmp_path_factory.mktemp("conformance")
    for name in ("session", "power cut", "silent", "unknown version", "version 1"):
        JOURNALS[name] = folder / f"{name.replace(' ', '-')}.journal"
    found = {
        "session": run("session", SimConfig(seed=3, boards=(1, 2, 3), faults=_plan(
            {"kind": "wrong_board", "insertion": 1}))),
        "power cut": run("power cut", SimConfig(seed=4, boards=(1, 2, 3), faults=_plan(
            {"kind": "power_loss", "board": 2, "card": 20}))),
        "silent": run("silent", SimConfig(seed=5, boards=(1, 2, 3), faults=_plan(
            {"kind": "silent", "board": 2, "card": 20})), resume_after=switched_on_again),
    }
    found["several runs"] = several_runs("several runs", folder)
    found["one serial"] = two_ports("one serial", folder, (SimConfig(seed=10, boards=(1, 2, 3), serial="SIM-0000D0D0"),
                                                           SimConfig(seed=11, boards=(1, 2, 3), serial="SIM-0000D0D0")))
    found["resumed elsewhere"] = resumed_elsewhere("resumed elsewhere", folder)
    with pytest.MonkeyPatch.context() as patch:  # a machine that does not say it is simulated, and gives no serial
        patch.setattr(SimConfig, "all_capabilities", property(lambda self: self.capabilities))
        found["no serial"] = two_ports("no serial", folder, (SimConfig(seed=12, boards=(1, 2, 3), serial=""),))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hil.model, "PROTOCOL_VERSION", 3)
        found["unknown version"] = run("unknown version", SimConfig(seed=6, boards=(1, 2, 3)))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hil.model, "PROTOCOL_VERSION", 1)
        patch.setattr(hil.model, "SCHEMA_HASH", 0x8FFD51C4)  # version 1's, as PROTOCOL.md 5 prints it
        found["version 1"] = run("version 1", SimConfig(seed=7, boards=(1, 2, 3)))
    return found


# --- the checks: each returns what it found wrong ------------------------------------------------------------


def sent_again(c: Capture, f: Seen) -> list[float]:
    """The times request `f` went out: first, then each retransmission, up to the host's next other request."""
    times = []
    for o in c.frames[f.at:]:
        if o.by != "host" or o.msg.TYPE not in HOST_SENDS:
            continue
        if (o.seq, o.msg) != (f.seq, f.msg):
            break
        times.append(o.t)
    return times


def hello_first(c: Capture) -> list[str]:
    """The first request after the port is opened, and after every refusal for want of a handshake, is Hello."""
    requests = c.host_requests()
    wrong = [] if requests and isinstance(requests[0].msg, Hello) else [f"{c.name}: first request {requests[:1]}"]
    for f in c.frames:
        if f.by == "machine" and isinstance(f.msg, Refused) and f.msg.reason == RefuseReason.HANDSHAKE_REQUIRED:
            after = [r for r in requests if r.at > f.at]
            if after and not isinstance(after[0].msg, Hello):
                wrong.append(f"{c.name}: {type(after[0].msg).__name__} after HANDSHAKE_REQUIRED at {f.t:.2f}")
    return wrong


def hello_renewed(c: Capture) -> list[str]:
    """A Hello unanswered for 1 s is followed by a new one: no Hello frame is sent again more than 1 s (and one
    retransmission timeout) after it was first sent."""
    wrong = []
    hellos = [f for f in c.frames if f.by == "host" and isinstance(f.msg, Hello)]
    for first in (f for f in hellos if f in c.host_requests()):
        last = max(sent_again(c, first))
        if last - first.t > 1.0 + 2 * RTO:
            wrong.append(f"{c.name}: Hello seq {first.seq} sent again {last - first.t:.2f} s after it was first sent")
    return wrong


def hello_renewed_seen(c: Capture) -> list[str]:
    """Where a Hello went unanswered (the silent machine), the host did send a new one."""
    hellos = {(f.seq, f.msg) for f in c.frames if f.by == "host" and isinstance(f.msg, Hello)}
    answered = sum(1 for f in c.frames if f.by == "machine" and isinstance(f.msg, HelloAck))
    return [] if len(hellos) > answered + 1 else [f"{c.name}: {len(hellos)} Hellos for {answered} answers"]


def no_give_up_on_retries(c: Capture) -> list[str]:
    """An unanswered request is retransmitted for the whole give-up time (30 s), not dropped after a count."""
    wrong = []
    for f in c.host_requests():
        if isinstance(f.msg, Hello):
            continue
        same = sent_again(c, f)
        answered = any(o.by == "machine" and o.seq == f.seq and type(o.msg).__name__ in (
            "Ack", "Refused", "Status", "HelloAck") for o in c.frames[f.at:])
        if not answered and len(same) > 1 and max(same) - f.t < 29.0:
            wrong.append(f"{c.name}: {type(f.msg).__name__} seq {f.seq} retransmitted for {max(same) - f.t:.1f} s")
    return wrong


def hello_after_give_up(c: Capture) -> list[str]:
    """After a request given up (retransmitted 30 s without an answer), the host's next request is Hello."""
    wrong = []
    requests = c.host_requests()
    for i, f in enumerate(requests):
        same = sent_again(c, f)
        if max(same) - f.t >= 29.0 and i + 1 < len(requests) and not isinstance(requests[i + 1].msg, Hello):
            wrong.append(f"{c.name}: {type(requests[i + 1].msg).__name__} after giving up")
    return wrong


def liveness(c: Capture) -> list[str]:
    """Whenever the machine said nothing for T_quiet while the host was waiting on it, the host sent GetStatus (or
    any request) within T_quiet and a little more of the silence's start."""
    wrong = []
    ends = [f.t for f in c.frames]
    machine = [f.t for f in c.frames if f.by == "machine"]
    host = [f.t for f in c.frames if f.by == "host" and f.msg.TYPE in HOST_SENDS]
    for a, b in zip(machine, machine[1:], strict=False):
        if b - a > T_QUIET + 0.5 and b <= max(ends):
            asked = [t for t in host if a < t <= a + T_QUIET + 0.5]
            if not asked:
                wrong.append(f"{c.name}: the machine silent from {a:.2f} to {b:.2f} s and nothing asked of it")
    return wrong


def versions_refused(c: Capture) -> list[str]:
    """A machine of a version the host does not speak is sent nothing after its HelloAck but Hello."""
    acks = [f.t for f in c.frames if f.by == "machine" and isinstance(f.msg, HelloAck)]
    sent = [type(f.msg).__name__ for f in c.host_requests() if acks and f.t > acks[0] and not isinstance(f.msg, Hello)]
    return [f"{c.name}: sent {sent}"] if not acks or sent else []


def version_told(c: Capture) -> list[str]:
    """The host tells its user which version a machine speaks when it is not its own."""
    return [] if "speaks protocol version 1" in c.said else [f"{c.name}: nothing said of the version"]


def hello_seven_bytes(c: Capture) -> list[str]:
    return [f"{c.name}: a Hello of {f.size} bytes" for f in c.frames
            if f.by == "host" and isinstance(f.msg, Hello) and f.size != 7]


def no_job_zero(c: Capture) -> list[str]:
    return [f"{c.name}: LoadDeal job {f.msg.job} board {f.msg.board}" for f in c.host_requests()
            if isinstance(f.msg, LoadDeal) and (f.msg.job == 0 or not 1 <= f.msg.board <= 9999)]


def _last_before(c: Capture, at: int, kind: type, by: str) -> Seen | None:
    found = [f for f in c.frames[:at] if f.by == by and isinstance(f.msg, kind)]
    return found[-1] if found else None


def restarts(c: Capture) -> list[Seen]:
    """The Boot events of restarts: each new boot_id after the first (a Boot sent again is the same boot)."""
    boots = [f for f in c.frames if f.by == "machine" and isinstance(f.msg, Boot)]
    out: list[Seen] = []
    for f in boots[1:]:
        if f.msg.boot_id != boots[0].msg.boot_id and all(o.msg.boot_id != f.msg.boot_id for o in out):
            out.append(f)
    return out


def checked_before_start(c: Capture) -> list[str]:
    """Every StartDeal comes after, since the last handshake: the board's label read OK, straight, naming the board
    loaded; a recount of that job finding every pocket empty (a first start) or holding what was dealt; and no
    BoardChanged since the read."""
    wrong = []
    for f in c.host_requests():
        if not isinstance(f.msg, StartDeal):
            continue
        job = f.msg.job
        hello = _last_before(c, f.at, Hello, "host")
        scanned = _last_before(c, f.at, BoardScanned, "machine")
        load = next((r for r in reversed(c.host_requests()) if isinstance(r.msg, LoadDeal) and r.msg.job == job
                     and r.at < f.at), None)
        since = c.frames[scanned.at + 1:f.at] if scanned is not None else []
        recounts = [r for r in since if r.by == "machine" and isinstance(r.msg, RecountReport) and r.msg.job == job]
        moved = [r for r in since if r.by == "machine" and isinstance(r.msg, BoardChanged)]
        if scanned is None or (hello is not None and scanned.at < hello.at) or scanned.msg.result != ScanResult.OK:
            wrong.append(f"{c.name}: StartDeal job {job} at {f.t:.2f} without a label read since the handshake")
            continue
        label = BoardLabel.parse(scanned.msg.label.decode())
        if scanned.msg.turns != 0 or load is None or label.board != load.msg.board:
            wrong.append(f"{c.name}: StartDeal job {job}: board read {label.board} turned {scanned.msg.turns}")
        if not recounts or moved:
            wrong.append(f"{c.name}: StartDeal job {job}: recounts {len(recounts)}, moves {len(moved)}")
    return wrong


def took_the_board_found(c: Capture) -> list[str]:
    """The first board read (board 2, put in when board 1 was asked for) was loaded and dealt, not refused."""
    scans = [f for f in c.frames if f.by == "machine" and isinstance(f.msg, BoardScanned) and f.msg.label]
    starts = [f for f in c.host_requests() if isinstance(f.msg, StartDeal)]
    if not scans or not starts:
        return [f"{c.name}: no board read or dealt"]
    first = BoardLabel.parse(scans[0].msg.label.decode()).board
    dealt = next(r.msg.board for r in reversed(c.host_requests())
                 if isinstance(r.msg, LoadDeal) and r.msg.job == starts[0].msg.job)
    return [] if first == dealt == 2 else [f"{c.name}: board {first} read first, board {dealt} dealt first"]


def no_eject_unread(c: Capture) -> list[str]:
    """No board taken out (Eject, or a REMOVE_BOARD prompt) before the host read its label."""
    wrong = []
    for f in c.host_requests():
        out = isinstance(f.msg, Eject) or (isinstance(f.msg, Display) and f.msg.prompt == Prompt.REMOVE_BOARD)
        if out:
            inserted = _last_before(c, f.at, BoardChanged, "machine")
            read = _last_before(c, f.at, BoardScanned, "machine")
            if read is None or (inserted is not None and inserted.msg.present and inserted.at > read.at):
                wrong.append(f"{c.name}: a board taken out unread at {f.t:.2f}")
    return wrong


def resume_checks_again(c: Capture) -> list[str]:
    """After a restart of the machine (a Boot), no StartDeal before a label read and a recount after it."""
    wrong = []
    for boot in restarts(c):
        starts = [f for f in c.host_requests() if isinstance(f.msg, StartDeal) and f.at > boot.at]
        if starts:
            first = starts[0]
            between = c.frames[boot.at + 1:first.at]
            scans = [f for f in between if f.by == "machine" and isinstance(f.msg, BoardScanned)]
            counts = [f for f in between if f.by == "machine" and isinstance(f.msg, RecountReport)]
            if not scans or not counts:
                wrong.append(f"{c.name}: StartDeal at {first.t:.2f} after the restart at {boot.t:.2f} unchecked")
    return wrong


def new_job_numbers(c: Capture) -> list[str]:
    jobs = [f.msg.job for f in c.host_requests() if isinstance(f.msg, LoadDeal)]
    return [] if len(jobs) == len(set(jobs)) else [f"{c.name}: job numbers given twice: {jobs}"]


def practice_by_hello(c: Capture) -> list[str]:
    """A machine that does not say it is simulated (version 1 has no such word) is no practice."""
    return [f"{c.name}: called practice"] if "practice" in c.said or "a simulated machine" in c.said else []


def label_always_sent(c: Capture) -> list[str]:
    return [f"{c.name}: INSERT_BOARD for board {f.msg.board} without a label" for f in c.host_requests()
            if isinstance(f.msg, Display) and f.msg.prompt == Prompt.INSERT_BOARD and not f.msg.label]


def status_first(c: Capture) -> list[str]:
    """After the handshake that follows a restart (a Boot), the next command is GetStatus."""
    wrong = []
    requests = c.host_requests()
    for boot in restarts(c):
        after = [r for r in requests if r.at > boot.at]
        hello = next((i for i, r in enumerate(after) if isinstance(r.msg, Hello)), None)
        if hello is None:
            continue
        rest = [r for r in after[hello + 1:] if not isinstance(r.msg, Hello)]
        if rest and not isinstance(rest[0].msg, GetStatus):
            wrong.append(f"{c.name}: {type(rest[0].msg).__name__} first after the restart at {boot.t:.2f}")
    return wrong


def status_first_on_contact(c: Capture) -> list[str]:
    """After every HelloAck the host accepts (first contact, reconnection, restart, resume), its next command is
    GetStatus: nothing the machine holds is replaced unread."""
    wrong = []
    requests = c.host_requests()
    for ack in (f for f in c.frames if f.by == "machine" and isinstance(f.msg, HelloAck)):
        after = [r for r in requests if r.at > ack.at and not isinstance(r.msg, Hello)]
        if after and not isinstance(after[0].msg, GetStatus):
            wrong.append(f"{c.name}: {type(after[0].msg).__name__} first after the HelloAck at {ack.t:.2f}")
    return wrong


def nothing_dealt(c: Capture) -> list[str]:
    return [f"{c.name}: {type(f.msg).__name__} sent" for f in c.host_requests()
            if isinstance(f.msg, LoadDeal | StartDeal)]


def one_serial_refused(c: Capture) -> list[str]:
    """Two ports whose machines give one serial: nothing dealt, and one line names the serial and both ports."""
    lines = [line for line in c.said.splitlines() if "SIM-0000D0D0" in line]
    named = len(lines) == 1 and "loop://0" in lines[0] and "loop://1" in lines[0]
    return nothing_dealt(c) + ([] if named else [f"{c.name}: said {lines}"])


def empty_serial_refused(c: Capture) -> list[str]:
    named = "gives no serial number" in c.said
    return nothing_dealt(c) + ([] if named else [f"{c.name}: nothing said of the serial: {c.said!r}"])


def version_1_serial_told(c: Capture) -> list[str]:
    told = c.said.count("binds no serial number")
    return [] if told == 1 else [f"{c.name}: told {told} times what its serial cannot prove"]


def another_machine_named(c: Capture) -> list[str]:
    """The resume met another serial than the journal's machine: one line names both."""
    lines = [line for line in c.said.splitlines() if "SIM-0000AAAA" in line and "SIM-0000BBBB" in line]
    dealt_after = [f for f in c.host_requests() if isinstance(f.msg, StartDeal)]
    return [] if len(lines) == 1 and dealt_after else [f"{c.name}: said {lines}"]


@dataclass(frozen=True)
class Rule:
    """One host rule of PROTOCOL.md: the document's words (`quote`, as printed there), and its check, run on the
    captures named."""

    section: str
    quote: str
    check: Callable[[Capture], list[str]]
    captures: tuple[str, ...]


ALL = ("session", "power cut", "silent")
RULES: tuple[Rule, ...] = (
    Rule("4.4", "a host MUST NOT send any other command first", hello_first, ALL),
    Rule("4.4", "SHOULD send a new Hello", hello_renewed, ALL),
    Rule("4.4", "SHOULD send a new Hello", hello_renewed_seen, ("silent",)),
    Rule("4.5", "a host MUST NOT give up on a fixed number of retries by default", no_give_up_on_retries, ALL),
    Rule("4.5", "the host's next request MUST be Hello", hello_after_give_up, ("silent",)),
    Rule("4.7", "a host that has heard **nothing at all** from the device", liveness, ALL),
    Rule("5", "otherwise the host MUST NOT send any other command", versions_refused, ("unknown version",)),
    Rule("5", "A host SHOULD tell its user which version each machine speaks", version_told, ("version 1",)),
    Rule("5", "A host MUST send Hello exactly 7 bytes long", hello_seven_bytes, (*ALL, "version 1")),
    Rule("6", "A host MUST NOT send job 0", no_job_zero, ALL),
    Rule("6.1", "A host MUST NOT send StartDeal for a loaded job", checked_before_start, (*ALL, "version 1")),
    Rule("6.1", "a host SHOULD take the board it finds in the machine", took_the_board_found, ("session",)),
    Rule("6.1", "the host SHOULD NOT take a board out unread", no_eject_unread, ALL),
    Rule("6.1", "it MUST, before any StartDeal", resume_checks_again, ("power cut", "silent")),
    Rule("7.2", "A host MUST give every LoadDeal a job number", new_job_numbers, (*ALL, "several runs")),
    Rule("4.4", "The host's first command after every HelloAck it accepts MUST be GetStatus", status_first_on_contact,
         (*ALL, "version 1", "several runs", "resumed elsewhere")),
    Rule("5", "a host MUST NOT deal on two ports of one run whose machines answer with the same serial",
         one_serial_refused, ("one serial",)),
    Rule("5", "It MUST NOT deal on a machine of version 2 or later that does not announce SIMULATED",
         empty_serial_refused, ("no serial",)),
    Rule("5", "a host SHOULD tell its user so, once", version_1_serial_told, ("version 1",)),
    Rule("5", "MUST NOT take it for the same machine: it names both serials", another_machine_named,
         ("resumed elsewhere",)),
    Rule("7.4", "it MUST NOT take a machine that does not announce SIMULATED for a simulation", practice_by_hello,
         ("version 1",)),
    Rule("7.4", "a host SHOULD always send the label", label_always_sent, ALL),
    Rule("9", "its next command after that HelloAck MUST be GetStatus", status_first, ("power cut", "silent")),
)


@pytest.mark.parametrize("rule", RULES, ids=[f"{r.section} {r.check.__name__}" for r in RULES])
def test_the_host_keeps_the_rule_on_the_wire(rule: Rule, captures: dict[str, Capture]) -> None:
    found = [problem for name in rule.captures for problem in rule.check(captures[name])]
    assert found == [], f"PROTOCOL.md {rule.section}: {rule.quote!r}:\n" + "\n".join(found[:10])


def test_the_captures_hold_what_the_rules_need(captures: dict[str, Capture]) -> None:
    """The runs did what the checks read: boards dealt, a restart, a give-up, a version refused."""
    assert sum(isinstance(f.msg, StartDeal) for f in captures["session"].host_requests()) >= 3
    assert restarts(captures["power cut"]) and restarts(captures["silent"])
    assert "stopped answering" in captures["silent"].said
    assert "speaks protocol version 3" in captures["unknown version"].said
    several = [f.msg.job for f in captures["several runs"].host_requests() if isinstance(f.msg, LoadDeal)]
    assert len(several) >= 9 and restarts(captures["several runs"]), several  # three files, a restart before the third
    assert sum(isinstance(f.msg, HelloAck) for f in captures["one serial"].frames) == 2


def _host_sentences() -> list[str]:
    """The sentences of PROTOCOL.md (before section 13, which repeats them) that bind a host: MUST or SHOULD,
    said of the host, not of the device."""
    doc = (ROOT / "firmware_protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
    doc = doc[:doc.index("## 13. Changes from version 1")]
    out = []
    for para in re.split(r"\n\s*\n|\n(?=\* |\d+\. |\| )", doc):
        text = re.sub(r"\s+", " ", para)
        for sentence in re.split(r"(?<=[.;])\s+(?=[A-Z*(])", text):
            if not re.search(r"\b(MUST|SHOULD)\b", sentence) or "host" not in sentence.lower():
                continue
            if re.match(r"\W*(A|a|The|the) device\b", sentence) or "the state MUST" in sentence:
                continue  # the device's duty, naming the host only as the one it serves
            out.append(sentence)
    return out


def test_every_host_rule_of_the_document_is_in_the_table() -> None:
    sentences = _host_sentences()
    assert len(sentences) >= 15
    missing = [s[:160] for s in sentences if not any(r.quote in s for r in RULES)]
    assert missing == [], missing
    text = re.sub(r"\s+", " ", (ROOT / "firmware_protocol" / "PROTOCOL.md").read_text(encoding="utf-8"))
    assert [r.quote for r in RULES if r.quote not in text] == []
