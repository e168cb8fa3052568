"""The device's link rules and states, driven frame by frame on a clock the test moves."""

from __future__ import annotations

from typing import Any

from tests.support.independent_device import messages as m
from tests.support.independent_device.labels import make_label
from tests.support.independent_device.ledger import Ledger
from tests.support.independent_device.machine import Clock, Machine, Options
from tests.support.independent_device.wire import Frame, StreamDecoder, encode_frame

DEAL = bytes.fromhex("00 00 00 15 55 55 5A AA AA AB FF FF FF")  # section 7.3: S to N, H to E ...


class Bench:
    """A machine, a clock that moves only when told, and what the machine wrote."""

    def __init__(self, **options: Any) -> None:
        self.t = 0.0
        self.out = bytearray()
        self.machine = Machine(
            Options(seed=1, **options),
            self.out.extend,
            Clock(lambda: self.t),
            Ledger(None),
        )
        self.seq = 0
        self.decoder = StreamDecoder()

    def frames(self) -> list[Frame]:
        found = [f for f in self.decoder.feed(bytes(self.out)) if isinstance(f, Frame)]
        self.out.clear()
        return found

    def run(self, seconds: float) -> list[Frame]:
        """Move the clock on, acknowledging every event as soon as it comes."""
        end = self.t + seconds
        seen: list[Frame] = []
        while True:
            wake = self.machine.poll()
            frames = self.frames()
            seen += frames
            self.ack_events(frames)
            if frames:
                continue
            if wake is None or wake > end:
                break
            self.t = max(self.t, wake)
        self.t = end
        self.machine.poll()
        return seen + self.frames()

    def send(self, code: int, seq: int | None = None, **fields: Any) -> bytes:
        if seq is None:
            self.seq = (self.seq + 1) % 256
            seq = self.seq
        frame = encode_frame(code, seq, m.encode_payload(code, **fields))
        self.machine.receive(frame)
        self.machine.poll()
        return frame

    def ack_events(self, frames: list[Frame]) -> None:
        for f in frames:
            if 0x60 <= f.type_code <= 0x6F:
                self.machine.receive(encode_frame(m.T.EVENT_ACK, f.seq, b""))

    def hello(self) -> None:
        self.run(0.0)
        self.send(m.T.HELLO, protocol_version=1, schema_hash=m.SCHEMA_HASH, session=77)
        assert self.frames()[-1].type_code == m.T.HELLO_ACK


def kinds(frames: list[Frame]) -> list[str]:
    return [m.T(f.type_code).name for f in frames]


def test_boot_is_retransmitted_with_a_doubling_backoff_until_acknowledged() -> None:
    bench = Bench()
    times = []
    for _ in range(60):
        wake = bench.machine.poll()
        assert wake is not None
        if bench.frames():
            times.append(bench.t)
        bench.t = wake
        if len(times) == 8:
            break
    gaps = [round(b - a, 3) for a, b in zip(times, times[1:], strict=False)]
    rto = 0.05 + 3 * 256 * 10 / 115200
    assert gaps[:4] == [round(rto * 2**i, 3) for i in range(4)]
    assert gaps[-1] == 2.0
    bench.send(m.T.EVENT_ACK, seq=0)
    assert bench.run(10.0) == []


def test_commands_before_hello_are_refused_and_a_duplicate_gets_the_same_bytes() -> None:
    bench = Bench()
    bench.frames()
    frame = bench.send(m.T.GET_STATUS)
    (reply,) = [f for f in bench.frames() if f.type_code != m.T.BOOT]
    assert (reply.type_code, reply.payload) == (m.T.REFUSED, bytes([1, 0]))
    bench.hello()
    bench.send(m.T.GET_STATUS)
    first = bench.frames()
    bench.machine.receive(encode_frame(m.T.GET_STATUS, bench.seq, b""))
    assert bench.frames() == first  # a retransmission: the cached reply, byte for byte
    bench.machine.receive(frame)  # a stale copy of an old command: no reply
    assert bench.frames() == []


def test_reset_with_an_unknown_mode_is_refused_unsupported() -> None:
    bench = Bench()
    bench.hello()
    bench.send(m.T.RESET, mode=7)
    (reply,) = bench.frames()
    assert (reply.type_code, reply.payload) == (m.T.REFUSED, bytes([m.Refuse.UNSUPPORTED, 0x18]))


def deal_one(bench: Bench, board: int, job: int) -> dict[int, list[Frame]]:
    """Insert, scan, load, recount, deal and recount one board; the frames of each step."""
    steps: dict[int, list[Frame]] = {}
    plan: list[tuple[int, dict[str, Any]]] = [
        (m.T.DISPLAY, {"prompt": m.Prompt.INSERT_BOARD, "board": board, "label": b"", "text": b""}),
        (m.T.SCAN_BOARD, {}),
        (m.T.LOAD_DEAL, {"job": job, "board": board, "deal": DEAL, "deal_hash": 0xE7}),
        (m.T.RECOUNT, {"job": job}),
        (m.T.START_DEAL, {"job": job}),
        (m.T.RECOUNT, {"job": job}),
    ]
    for code, fields in plan:
        bench.send(code, **fields)
        frames = bench.frames()
        bench.ack_events(frames)
        frames += bench.run(1.0)
        steps[code] = steps.get(code, []) + frames
    return steps


def test_a_straight_board_is_dealt_and_recounted() -> None:
    bench = Bench()
    bench.hello()
    steps = deal_one(bench, 1, 101)
    scanned = [f for f in steps[m.T.SCAN_BOARD] if f.type_code == m.T.BOARD_SCANNED]
    assert (
        m.decode_payload(m.T.BOARD_SCANNED, scanned[0].payload)["label"]
        == b"A:1:N0:" + make_label("A", 1)[-1:].encode()
    )
    done = [f for f in steps[m.T.START_DEAL] if f.type_code == m.T.DEAL_DONE]
    assert m.decode_payload(m.T.DEAL_DONE, done[0].payload)["pocket_counts"] == [13] * 4
    reports = [
        m.decode_payload(m.T.RECOUNT_REPORT, f.payload)["pockets"]
        for f in steps[m.T.RECOUNT]
        if f.type_code == m.T.RECOUNT_REPORT
    ]
    assert reports[0] == [([], 0)] * 4
    assert [sorted(cards) for cards, _ in reports[1]] == [list(range(13 * s, 13 * s + 13)) for s in range(4)]


def test_a_turned_board_follows_the_formula_of_section_7_2() -> None:
    bench = Bench(turns={"1": [1]})
    bench.hello()
    deal_one(bench, 1, 101)
    board = bench.machine.slot
    assert board is not None and bench.machine.slot_turns == 1
    # machine pocket p holds the board's pocket (p + 1) mod 4: the spades (seat N, machine 0) lie
    # in the board's pocket E
    assert sorted(board.pockets[1]) == list(range(13))
    assert sorted(board.pockets[0]) == list(range(39, 52))


def test_a_jam_stops_the_deal_until_the_path_is_cleared() -> None:
    from tests.support.independent_device.machine import Plan

    bench = Bench(plans=[Plan(1, 20, "JAM")])
    bench.hello()
    steps = deal_one(bench, 1, 101)
    fault = [f for f in steps[m.T.START_DEAL] if f.type_code == m.T.FAULT]
    fields = m.decode_payload(m.T.FAULT, fault[0].payload)
    assert (fields["code"], fields["cards_dealt"], fields["flags"]) == (m.FaultCode.JAM, 20, 1)
    bench.send(m.T.START_DEAL, job=101)
    (refused,) = bench.frames()
    assert refused.payload == bytes([m.Refuse.FAULT_PRESENT, m.FaultCode.JAM])
    bench.send(m.T.DISPLAY, prompt=m.Prompt.CLEAR_PATH, board=0, label=b"", text=b"")
    bench.run(1.0)
    bench.send(m.T.START_DEAL, job=101)
    frames = bench.frames() + bench.run(2.0)
    done = [f for f in frames if f.type_code == m.T.DEAL_DONE]
    assert m.decode_payload(m.T.DEAL_DONE, done[0].payload)["cards_dealt"] == 52


def test_garbage_on_the_line_is_counted_and_the_link_goes_on() -> None:
    import random

    bench = Bench()
    bench.hello()
    noise = random.Random(7)
    for _ in range(200):
        bench.machine.receive(bytes(noise.randrange(256) for _ in range(noise.randrange(1, 300))))
    bench.frames()
    bench.machine.receive(b"\x00")
    bench.send(m.T.HELLO, protocol_version=1, schema_hash=m.SCHEMA_HASH, session=78)
    assert kinds(bench.frames())[-1] == "HELLO_ACK"
    assert bench.machine.link.damaged > 100
