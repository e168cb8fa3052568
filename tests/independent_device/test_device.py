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


# ---- the revised document (PROTOCOL.md as revised after the first reading) ------------------------


def fields_of(frames: list[Frame], code: int) -> list[dict[str, Any]]:
    return [m.decode_payload(code, f.payload) for f in frames if f.type_code == code]


def status(bench: Bench) -> dict[str, Any]:
    bench.send(m.T.GET_STATUS)
    (found,) = fields_of(bench.frames(), m.T.STATUS)
    return found


def test_a_longer_hello_is_answered_and_a_shorter_one_is_damage() -> None:
    bench = Bench()
    bench.run(0.0)
    payload = m.encode_payload(m.T.HELLO, protocol_version=1, schema_hash=m.SCHEMA_HASH, session=5)
    bench.machine.receive(encode_frame(m.T.HELLO, 9, payload + b"\x01\x02\x03"))  # section 5: later fields
    assert kinds(bench.frames()) == ["HELLO_ACK"]
    before = bench.machine.link.damaged
    bench.machine.receive(encode_frame(m.T.HELLO, 10, payload[:6]))  # shorter than 7 bytes: malformed
    assert kinds(bench.frames()) == ["NAK"]
    assert bench.machine.link.damaged == before + 1


def test_an_echo_is_not_damage_but_a_malformed_frame_of_the_other_direction_is() -> None:
    bench = Bench()
    bench.hello()
    status_payload = m.encode_payload(
        m.T.STATUS, state=0, activity=0, flags=0, job=0, board=0, deal_hash=0, cards_dealt=0,
        fault=0, fault_detail=0, boot_id=1, pocket_counts=b"",
    )  # fmt: skip
    bench.machine.receive(encode_frame(m.T.STATUS, 3, status_payload))  # section 3: an echo
    assert bench.frames() == [] and bench.machine.link.damaged == 0
    bench.machine.receive(encode_frame(m.T.STATUS, 3, status_payload + b"\x00"))  # section 2.4
    assert kinds(bench.frames()) == ["NAK"] and bench.machine.link.damaged == 1


def test_the_reply_goes_before_the_event_its_command_raised() -> None:
    bench = Bench()
    bench.hello()
    deal_one(bench, 1, 101)
    bench.send(m.T.LOAD_DEAL, job=102, board=1, deal=DEAL, deal_hash=0xE7)
    bench.send(m.T.SCAN_BOARD)
    bench.run(1.0)
    bench.send(m.T.START_DEAL, job=102)
    bench.frames()
    bench.t += 0.05
    bench.machine.poll()
    bench.frames()
    bench.send(m.T.ABORT)
    assert kinds(bench.frames())[:2] == ["ACK", "DEAL_DONE"]  # section 4.3: Ack, then DealDone


def test_status_shows_fault_resumable_only_in_a_resumable_fault() -> None:
    from tests.support.independent_device.machine import Plan

    bench = Bench(plans=[Plan(1, 20, "JAM")])
    bench.hello()
    deal_one(bench, 1, 101)
    found = status(bench)
    assert (found["state"], found["flags"] & m.Flag.FAULT_RESUMABLE) == (m.State.FAULT, 8)
    bench.send(m.T.ABORT)
    bench.run(1.0)
    found = status(bench)
    assert (found["state"], found["fault"], found["flags"] & m.Flag.FAULT_RESUMABLE) == (m.State.DONE, 0, 0)


def test_a_misfed_card_whose_pocket_is_known_counts_in_that_pocket() -> None:
    from tests.support.independent_device.machine import Plan

    bench = Bench(plans=[Plan(1, 20, "MISFEED")])
    bench.hello()
    steps = deal_one(bench, 1, 101)
    (fault,) = fields_of(steps[m.T.START_DEAL], m.T.FAULT)
    assert (fault["code"], fault["cards_dealt"], fault["flags"]) == (m.FaultCode.MISFEED, 21, 0)
    found = status(bench)
    assert sum(found["pocket_counts"]) == found["cards_dealt"] == 21  # section 7.2: they add up
    board = bench.machine.slot
    assert board is not None and sum(map(len, board.pockets)) == 21
    bench.send(m.T.START_DEAL, job=101)
    (refused,) = bench.frames()
    assert refused.payload == bytes([m.Refuse.WRONG_STATE, m.State.FAULT])  # never resumable


def test_reset_clear_forgets_the_scan() -> None:
    bench = Bench()
    bench.hello()
    bench.send(m.T.DISPLAY, prompt=m.Prompt.INSERT_BOARD, board=1, label=b"", text=b"")
    bench.run(1.0)
    bench.send(m.T.SCAN_BOARD)
    bench.run(1.0)
    bench.send(m.T.RESET, mode=0)
    bench.send(m.T.LOAD_DEAL, job=7, board=1, deal=DEAL, deal_hash=0xE7)
    bench.send(m.T.START_DEAL, job=7)
    assert bench.frames()[-1].payload == bytes([m.Refuse.NOT_SCANNED, 0])
    bench.send(m.T.SCAN_BOARD)
    bench.run(1.0)
    bench.send(m.T.SCAN_BOARD)  # a later NO_READ would not cancel it either; this one reads
    bench.run(1.0)
    bench.send(m.T.START_DEAL, job=7)
    assert bench.frames()[0].type_code == m.T.ACK


def test_a_board_pulled_during_a_scan_raises_board_changed_first() -> None:
    bench = Bench(scan_time=1.0)
    bench.hello()
    bench.send(m.T.DISPLAY, prompt=m.Prompt.INSERT_BOARD, board=1, label=b"", text=b"")
    bench.run(1.0)
    bench.send(m.T.SCAN_BOARD)
    bench.machine._take_out()
    frames = bench.frames() + bench.run(2.0)
    assert [k for k in kinds(frames) if k != "ACK"] == ["BOARD_CHANGED", "BOARD_SCANNED"]
    assert fields_of(frames, m.T.BOARD_SCANNED)[0]["result"] == m.ScanResult.NO_BOARD


def test_insert_board_for_the_board_already_in_asks_nothing() -> None:
    bench = Bench()
    bench.hello()
    bench.send(m.T.DISPLAY, prompt=m.Prompt.INSERT_BOARD, board=1, label=b"", text=b"")
    assert kinds(bench.run(1.0)) == ["ACK", "BOARD_CHANGED"]
    bench.send(m.T.DISPLAY, prompt=m.Prompt.INSERT_BOARD, board=1, label=b"", text=b"")
    assert kinds(bench.run(1.0)) == ["ACK"]  # section 7.2: no BoardChanged follows


def test_a_kept_fault_is_sent_again_after_boot() -> None:
    from tests.support.independent_device.machine import Plan

    bench = Bench(plans=[Plan(1, 20, "JAM")], capabilities=Options().capabilities | m.Cap.KEEPS_JOB_OVER_POWER_LOSS)
    bench.hello()
    deal_one(bench, 1, 101)
    boot_before = bench.machine.boot_id
    bench.machine.power_cut()
    frames = bench.run(2.0)
    assert kinds(frames)[:2] == ["BOOT", "FAULT"]
    (boot,) = fields_of(frames, m.T.BOOT)
    (fault,) = fields_of(frames, m.T.FAULT)
    assert boot["boot_id"] != boot_before
    assert (fault["code"], fault["job"], fault["cards_dealt"], fault["flags"]) == (m.FaultCode.JAM, 101, 20, 1)
    bench.send(m.T.HELLO, protocol_version=1, schema_hash=m.SCHEMA_HASH, session=9)
    (ack,) = fields_of(bench.frames(), m.T.HELLO_ACK)
    assert ack["boot_id"] == boot["boot_id"]  # section 4.4: the Boot and the HelloAck of one boot


def test_a_door_opened_while_idle_is_a_fault_with_job_0() -> None:
    bench = Bench()
    bench.hello()
    bench.machine.open_door()
    frames = bench.run(1.0)
    (fault,) = fields_of(frames, m.T.FAULT)
    assert (fault["code"], fault["job"], fault["cards_dealt"], fault["flags"]) == (m.FaultCode.DOOR_OPEN, 0, 0, 0)
    assert status(bench)["state"] == m.State.IDLE  # the state does not change


def test_the_worked_turned_board_of_section_12_1() -> None:
    bench = Bench(sets=[("RED", 1, 36)], turns={"17": [0, 1]})
    bench.hello()
    bench.send(m.T.DISPLAY, prompt=m.Prompt.INSERT_BOARD, board=17, label=b"", text=b"")
    bench.run(1.0)
    board = bench.machine.slot
    assert board is not None
    for card in range(52):  # the board holds the deal of section 7.3, dealt straight
        board.pockets[m.seat_of(DEAL, card)].append(card)
    bench.send(m.T.EJECT)
    bench.run(1.0)
    bench.send(m.T.DISPLAY, prompt=m.Prompt.INSERT_BOARD, board=17, label=b"", text=b"")
    bench.run(1.0)  # put in again, a quarter turn anticlockwise
    bench.send(m.T.SCAN_BOARD)
    (scanned,) = [f for f in bench.run(1.0) if f.type_code == m.T.BOARD_SCANNED]
    printed = bytes.fromhex("03 62 01 10 01 0B 52 45 44 3A 31 37 3A 4E 30 3A 38 18 57 00")
    assert encode_frame(m.T.BOARD_SCANNED, 1, scanned.payload) == printed  # the device's seq aside
    bench.send(m.T.RECOUNT, job=0)
    (report,) = fields_of(bench.run(1.0), m.T.RECOUNT_REPORT)
    # machine pocket N holds the hearts, E the diamonds, S the clubs, W the spades
    assert [sorted(cards) for cards, _ in report["pockets"]] == [
        list(range(13, 26)),
        list(range(26, 39)),
        list(range(39, 52)),
        list(range(0, 13)),
    ]
