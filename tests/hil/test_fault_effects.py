"""Every fault kind of the plan format, shown by its effect on the wire or in the pockets."""

from __future__ import annotations

from typing import Any

import pytest

from firmware_protocol import (
    Abort,
    Ack,
    BoardChanged,
    BoardScanned,
    Boot,
    BootReason,
    DealDone,
    DeviceState,
    Eject,
    Fault,
    FaultCode,
    FaultFlag,
    GetStatus,
    HelloAck,
    Prompt,
    Recount,
    RecountReport,
    Refused,
    RefuseReason,
    ScanBoard,
    ScanResult,
    StartDeal,
    Status,
    StatusFlag,
)
from firmware_protocol.framing import BadFrame, FrameDecoder
from firmware_protocol.labels import BoardLabel
from hil.bytefaults import TO_HOST, ByteFaults, OneWayLine
from hil.config import SimConfig
from hil.fault_plan import FaultKind, FaultPlan, FaultSpec
from hil.loopback import Loopback
from hil.physical import label_of
from hil.room import HoldReason
from tests.support.deals import hands_of
from tests.support.sim_bench import Bench

FRAMES = [bytes([0x03, 0x11, i + 1, 0x22, 0x00]) for i in range(6)]  # six small stand-in frames


def dealing(*faults: dict[str, Any], **options: Any) -> tuple[Bench, list[int]]:
    """A machine with the faults, a board in it, deal 1 loaded and started."""
    bench = Bench(None, *faults, **options)
    bench.hello()
    bench.board_in()
    bench.read_label()
    seats = bench.load()
    assert bench.cmd(StartDeal(1)) == Ack()
    return bench, seats


def recount(bench: Bench, job: int = 1) -> RecountReport:
    assert bench.cmd(Recount(job)) == Ack()
    return bench.wait_for(RecountReport)


def status(bench: Bench) -> Status:
    reply = bench.cmd(GetStatus())
    assert isinstance(reply, Status)
    return reply


def resume_after(bench: Bench, prompt: Prompt) -> DealDone:
    """Prompt the operator, retry StartDeal until accepted, and wait for the end of the dealing."""
    bench.prompt(prompt)
    for _ in range(40):
        reply = bench.cmd(StartDeal(1))
        if reply == Ack():
            return bench.wait_for(DealDone)
        assert isinstance(reply, Refused) and reply.reason == RefuseReason.FAULT_PRESENT
        bench.run(1.0)
    raise AssertionError("the fault was never cleared")


# --- byte level ----------------------------------------------------------------------------------


def through(spec: dict[str, Any]) -> list[tuple[float, bytes]]:
    """The chunks six frames become, written one by one at t = 0, 1, ... seconds."""
    faults = ByteFaults(FaultPlan.of(spec).faults, seed=1)
    line = OneWayLine(TO_HOST, faults)
    for i, frame in enumerate(FRAMES):
        line.put(frame, float(i))
    out = []
    while (t := line.next_time()) is not None:
        out.append((t, line.take(t)))
    return out


def test_drop_loses_the_frame_named() -> None:
    assert b"".join(c for _, c in through({"kind": "drop", "frame": 3})) == b"".join(FRAMES[:2] + FRAMES[3:])


def test_flip_changes_one_byte_of_the_frame_and_the_decoder_reports_it() -> None:
    data = b"".join(c for _, c in through({"kind": "flip", "frame": 2}))
    assert len(data) == sum(map(len, FRAMES)) and data != b"".join(FRAMES)
    assert sum(a != b for a, b in zip(data, b"".join(FRAMES), strict=True)) == 1
    assert any(isinstance(e, BadFrame) for e in FrameDecoder().feed(data))


def test_duplicate_sends_the_frame_twice() -> None:
    data = b"".join(c for _, c in through({"kind": "duplicate", "frame": 4}))
    assert data == b"".join(FRAMES[:4] + FRAMES[3:])


def test_delay_holds_the_frame_and_keeps_the_order() -> None:
    chunks = through({"kind": "delay", "frame": 2, "seconds": 1.5})
    assert [t for t, _ in chunks] == [0.0, 2.5, 3.0, 4.0, 5.0]  # frame 3 (sent at 2.0) waits behind frame 2
    assert b"".join(c for _, c in chunks) == b"".join(FRAMES)


def test_split_writes_the_frame_in_pieces() -> None:
    chunks = through({"kind": "split", "frame": 1, "size": 2, "seconds": 0.01})
    assert [c for _, c in chunks[:3]] == [FRAMES[0][:2], FRAMES[0][2:4], FRAMES[0][4:]]
    assert [t for t, _ in chunks[:3]] == [0.0, 0.01, 0.02]


def test_garbage_puts_a_burst_before_the_frame_and_the_frame_still_decodes() -> None:
    data = b"".join(c for _, c in through({"kind": "garbage", "frame": 1, "size": 30}))
    assert data.endswith(b"".join(FRAMES)) and len(data) == sum(map(len, FRAMES)) + 30


def test_byte_faults_count_frames_across_writes_cut_anywhere() -> None:
    faults = ByteFaults(FaultPlan.of({"kind": "drop", "frame": 2}).faults)
    stream = b"".join(FRAMES[:3])
    out = b"".join(c for i in range(len(stream)) for _, c in faults(stream[i:i + 1], TO_HOST))
    assert out == FRAMES[0] + FRAMES[2]


def test_a_real_exchange_survives_the_byte_faults() -> None:
    plan = FaultPlan.of({"kind": "flip", "rate": 0.2}, {"kind": "drop", "frame": 4},
                        {"kind": "garbage", "rate": 0.2, "direction": "to_device"})
    with Loopback(SimConfig(faults=plan)) as loop:
        bench_port = loop.open(timeout=0.05)
        from tests.support.script_host import Wire

        wire = Wire(lambda: bench_port, loop.clock, loop.advance)
        assert isinstance(wire.open(30.0), HelloAck)
        for _ in range(10):
            assert isinstance(wire.request(GetStatus(), 30.0), Status)
        assert wire.link.counters.bad_frames > 0 and wire.link.counters.retransmits > 0
        assert loop.byte_faults.log


# --- device level ---------------------------------------------------------------------------------


def test_jam_stops_dealing_resumably_with_the_card_in_the_path() -> None:
    bench, seats = dealing({"kind": "jam", "board": 1, "card": 20})
    fault = bench.wait_for(Fault)
    assert fault == Fault(FaultCode.JAM, 19, 1, 19, FaultFlag.RESUMABLE)
    room = bench.device.room
    assert room.path is not None and room.path.reason is HoldReason.JAM
    assert room.slot is not None and room.slot.board.card_count == 19  # the 20th card is the one held
    assert room.path.card not in [c for p in room.slot.board.pockets for c in p]
    assert bench.cmd(StartDeal(1)) == Refused(RefuseReason.FAULT_PRESENT, FaultCode.JAM)
    assert resume_after(bench, Prompt.CLEAR_PATH).cards_dealt == 52
    assert [sorted(p.cards) for p in recount(bench).pockets] == hands_of(seats)


def test_silent_misfeed_leaves_14_and_12_while_the_machine_counts_13_each() -> None:
    bench, seats = dealing({"kind": "misfeed", "board": 1, "card": 5, "pocket": 2})
    done = bench.wait_for(DealDone)
    assert done.pocket_counts == (13, 13, 13, 13)
    counts = [len(p.cards) for p in recount(bench).pockets]
    assert sorted(counts) == [12, 13, 13, 14] and counts[2] == 14


def test_detected_misfeed_is_a_fault_that_cannot_be_resumed() -> None:
    bench, _ = dealing({"kind": "misfeed", "board": 1, "card": 5, "pocket": 3, "detected": True})
    fault = bench.wait_for(Fault)
    assert (fault.code, fault.detail, fault.flags) == (FaultCode.MISFEED, 3, 0)
    assert bench.cmd(StartDeal(1)) == Refused(RefuseReason.WRONG_STATE, DeviceState.FAULT)
    assert bench.cmd(Abort()) == Ack()
    assert bench.wait_for(DealDone).cards_dealt == 5


def test_double_feed_puts_two_cards_in_one_pocket_and_stops() -> None:
    bench, seats = dealing({"kind": "double_feed", "board": 1, "card": 5})
    fault = bench.wait_for(Fault)
    assert (fault.code, fault.detail, fault.cards_dealt) == (FaultCode.MISFEED, 0xFFFF, 5)
    assert bench.device.room.slot is not None and bench.device.room.slot.board.card_count == 6


def test_an_unnoticed_double_feed_runs_the_pack_out_after_51_cards_with_52_in_the_board() -> None:
    bench, seats = dealing({"kind": "double_feed", "board": 1, "card": 5, "detected": False})
    fault = bench.wait_for(Fault)
    assert (fault.code, fault.cards_dealt, fault.flags) == (FaultCode.EMPTY_HOPPER, 51, FaultFlag.RESUMABLE)
    report = recount(bench)  # a recount is allowed in FAULT
    assert sum(len(p.cards) for p in report.pockets) == 52  # one card more than the machine dealt


def test_swapped_cards_cross_between_two_hands_leaving_13_in_every_pocket() -> None:
    bench, seats = dealing({"kind": "swapped_cards", "board": 1, "card": 5})
    assert bench.wait_for(DealDone).pocket_counts == (13, 13, 13, 13)
    pockets = [sorted(p.cards) for p in recount(bench).pockets]
    hands = hands_of(seats)
    assert [len(p) for p in pockets] == [13, 13, 13, 13]
    astray = [(c, q) for q, p in enumerate(pockets) for c in p if c not in hands[q]]
    assert len(astray) == 2 and astray[0][1] != astray[1][1]
    assert {seats[c] for c, _ in astray} == {q for _, q in astray}  # each went where the other belongs


def test_a_stale_deal_is_dealt_in_place_of_the_one_loaded_and_reported() -> None:
    bench, first = dealing({"kind": "stale_deal", "board": 2})
    bench.wait_for(DealDone)
    bench.cmd(Eject())
    bench.run(30.0, lambda: not bench.device.room.board_present)
    bench.board_in(label=label_of("A", 2))
    bench.read_label()
    second = bench.load(job=2, board=2, seed=9)
    assert bench.cmd(StartDeal(2)) == Ack()
    assert bench.wait_for(DealDone).job == 2
    assert status(bench).deal_hash == bench.device.firmware.dealing.deal_hash  # type: ignore[union-attr]
    assert [sorted(p.cards) for p in recount(bench, 2).pockets] == hands_of(first) != hands_of(second)


@pytest.mark.parametrize("report", ["deal_done", "recount", "fault"])
def test_wrong_job_puts_another_job_in_the_report_named(report: str) -> None:
    bench, _ = dealing({"kind": "wrong_job", "board": 1, "card": 20, "report": report})
    if report == "fault":
        fault = bench.wait_for(Fault)
        assert (fault.code, fault.job, fault.cards_dealt) == (FaultCode.JAM, 2, 19)
        return
    assert bench.wait_for(DealDone).job == (2 if report == "deal_done" else 1)
    assert recount(bench).job == (2 if report == "recount" else 1)


def test_an_extra_pocket_comes_fifth_in_the_recount_after_that_dealing() -> None:
    bench, seats = dealing({"kind": "extra_pocket", "board": 1, "count": 4})
    bench.wait_for(DealDone)
    pockets = recount(bench).pockets
    assert [sorted(p.cards) for p in pockets[:4]] == hands_of(seats)
    assert len(pockets) == 5 and len(pockets[4].cards) == 4
    assert len(recount(bench).pockets) == 4  # once


def test_a_miscount_announces_one_card_in_the_wrong_pocket_of_a_board_dealt_right() -> None:
    bench, seats = dealing({"kind": "miscount", "board": 1})
    assert bench.wait_for(DealDone).pocket_counts == (13, 14, 12, 13)
    assert [sorted(p.cards) for p in recount(bench).pockets] == hands_of(seats)


def test_leftover_cards_are_in_the_board_before_anything_is_dealt() -> None:
    bench = Bench(None, {"kind": "leftover_cards", "board_number": 1, "count": 6})
    bench.hello()
    bench.board_in()
    assert [len(p.cards) for p in recount(bench, 0).pockets] == [2, 2, 1, 1]
    board = bench.device.room.slot.board  # type: ignore[union-attr]
    assert {c.pack for p in board.pockets for c in p} == {"P002"}  # not the pack in the hopper


def test_swap_board_after_the_scan_puts_in_the_next_board_and_it_must_be_read_again() -> None:
    bench = Bench(None, {"kind": "swap_board", "scan": 1, "seconds": 0.2})
    bench.hello()
    bench.board_in()
    bench.take(BoardChanged)
    assert bench.read_label().label == BoardLabel.for_board("A", 1).payload().encode()
    bench.load()
    bench.run(5.0)
    assert bench.take(BoardChanged) == [BoardChanged(0), BoardChanged(1)]
    assert bench.cmd(StartDeal(1)) == Refused(RefuseReason.NOT_SCANNED, 0)
    assert bench.read_label().label == BoardLabel.for_board("A", 2).payload().encode()
    assert bench.cmd(StartDeal(1)) == Ack()  # the host, not the machine, judges the label


def test_a_card_that_falls_out_is_counted_but_missing_from_the_recount() -> None:
    bench, seats = dealing({"kind": "card_falls", "board": 1, "card": 7})
    assert bench.wait_for(DealDone).pocket_counts == (13, 13, 13, 13)
    report = recount(bench)
    assert sum(len(p.cards) for p in report.pockets) == 51
    (fallen,) = bench.device.room.floor
    assert fallen.index not in {c for p in report.pockets for c in p.cards}


def test_an_unreadable_card_is_held_at_the_reader_until_wiped() -> None:
    bench, _ = dealing({"kind": "unreadable_card", "board": 1, "card": 9})
    assert bench.wait_for(Fault) == Fault(FaultCode.UNREADABLE_CARD, 8, 1, 8, FaultFlag.RESUMABLE)
    assert resume_after(bench, Prompt.CLEAR_PATH).cards_dealt == 52


def test_a_card_misread_at_the_recount_is_reported_unidentified() -> None:
    bench, _ = dealing({"kind": "unreadable_card", "board": 1, "card": 30, "when": "recount"})
    bench.wait_for(DealDone)
    first = recount(bench)
    assert sum(p.unidentified for p in first.pockets) == 1 and sum(len(p.cards) for p in first.pockets) == 51
    assert sum(p.unidentified for p in recount(bench).pockets) == 0  # a second recount reads it


def test_a_foreign_card_is_held_then_the_pack_runs_one_short() -> None:
    bench, seats = dealing({"kind": "foreign_card", "board": 1, "card": 9})
    assert bench.wait_for(Fault) == Fault(FaultCode.FOREIGN_CARD, 0, 1, 8, FaultFlag.RESUMABLE)
    bench.prompt(Prompt.CLEAR_PATH)
    bench.run(10.0)
    assert bench.cmd(StartDeal(1)) == Ack()
    short = bench.wait_for(Fault)
    assert (short.code, short.cards_dealt) == (FaultCode.EMPTY_HOPPER, 51)
    assert resume_after(bench, Prompt.FIX_PACK).cards_dealt == 52
    assert [sorted(p.cards) for p in recount(bench).pockets] == hands_of(seats)


def test_an_unnoticed_foreign_card_shows_as_a_second_copy_and_a_missing_card() -> None:
    bench, _ = dealing({"kind": "foreign_card", "board": 1, "card": 9, "detected": False})
    bench.wait_for(DealDone)
    cards = [c for p in recount(bench).pockets for c in p.cards]
    assert len(cards) == 52 and len(set(cards)) == 51
    assert {c.pack for p in bench.device.room.slot.board.pockets for c in p} == {"P001", "FOREIGN"}  # type: ignore[union-attr]


def test_a_duplicate_card_is_held_back_naming_the_card() -> None:
    bench, seats = dealing({"kind": "duplicate_card", "board": 1, "card": 9})
    fault = bench.wait_for(Fault)
    first_card = bench.device.ledger.records[0].placed[0][0]
    assert fault == Fault(FaultCode.DUPLICATE_CARD, first_card, 1, 8, FaultFlag.RESUMABLE)
    assert resume_after(bench, Prompt.CLEAR_PATH).cards_dealt == 52
    assert [sorted(p.cards) for p in recount(bench).pockets] == hands_of(seats)


def test_an_unchecked_duplicate_goes_into_the_board() -> None:
    bench, _ = dealing({"kind": "duplicate_card", "board": 1, "card": 9, "detected": False})
    bench.wait_for(DealDone)
    cards = [c for p in recount(bench).pockets for c in p.cards]
    assert len(cards) == 52 and len(set(cards)) == 51
    assert len(bench.device.room.hopper) == 52  # the card left over was set aside for a fresh pack


def test_a_short_pack_stops_with_empty_hopper_until_the_cards_are_put_back() -> None:
    bench, seats = dealing({"kind": "empty_hopper", "board": 1, "card": 40})
    assert bench.wait_for(Fault) == Fault(FaultCode.EMPTY_HOPPER, 0, 1, 39, FaultFlag.RESUMABLE)
    assert status(bench).flags & StatusFlag.HOPPER_EMPTY
    assert resume_after(bench, Prompt.FIX_PACK).cards_dealt == 52
    assert [sorted(p.cards) for p in recount(bench).pockets] == hands_of(seats)


def test_opening_the_door_stops_dealing_until_it_is_closed() -> None:
    bench, _ = dealing({"kind": "door_open", "board": 1, "card": 40, "seconds": 5.0})
    assert bench.wait_for(Fault) == Fault(FaultCode.DOOR_OPEN, 0, 1, 39, FaultFlag.RESUMABLE)
    assert status(bench).flags & StatusFlag.DOOR_OPEN
    assert bench.cmd(StartDeal(1)) == Refused(RefuseReason.FAULT_PRESENT, FaultCode.DOOR_OPEN)
    bench.run(10.0)  # closed by itself after 5 s
    assert bench.cmd(StartDeal(1)) == Ack()
    assert bench.wait_for(DealDone).cards_dealt == 52


# --- board level ----------------------------------------------------------------------------------


def scan(bench: Bench) -> BoardScanned:
    assert bench.cmd(ScanBoard()) == Ack()
    return bench.wait_for(BoardScanned)


def test_a_wrong_board_reads_as_another_board() -> None:
    bench = Bench(None, {"kind": "wrong_board", "insertion": 1})
    bench.hello()
    bench.board_in()
    assert scan(bench).label == BoardLabel.for_board("A", 2).payload().encode()


def test_a_turned_board_cannot_be_read_and_goes_back_in_straight() -> None:
    bench = Bench(None, {"kind": "rotated_board", "insertion": 1})
    bench.hello()
    bench.board_in()
    assert scan(bench) == BoardScanned(ScanResult.NO_READ, 0, b"")
    bench.prompt(Prompt.REMOVE_BOARD)
    bench.run(30.0, lambda: not bench.device.room.board_present)
    bench.prompt(Prompt.INSERT_BOARD, board=1)
    bench.board_in()
    assert scan(bench).result == ScanResult.OK


def test_a_turned_board_with_a_readable_label_is_read_with_its_turn() -> None:
    bench = Bench(None, {"kind": "rotated_board", "insertion": 1, "turns": 1, "readable": True})
    bench.hello()
    bench.board_in()
    scanned = bench.read_label()
    assert (scanned.result, scanned.turns) == (ScanResult.OK, 1)  # the host learns how the board lies
    seats = bench.load()
    bench.cmd(StartDeal(1))  # a host that deals into it anyway (ours refuses it: F6)
    bench.wait_for(DealDone)
    # read in the machine's pockets, every hand seems in place; the board's own pockets tell otherwise
    assert [sorted(p.cards) for p in recount(bench).pockets] == hands_of(seats)
    board = bench.device.room.slot.board  # type: ignore[union-attr]
    hands = hands_of(seats)
    assert [sorted(h) for h in board.hands()] == [hands[3], hands[0], hands[1], hands[2]]


@pytest.mark.parametrize("persistent", [False, True])
def test_an_unreadable_label_reads_once_wiped_unless_damaged(persistent: bool) -> None:
    bench = Bench(None, {"kind": "unreadable_label", "board_number": 1, "persistent": persistent})
    bench.hello()
    bench.board_in()
    assert scan(bench).result == ScanResult.NO_READ
    bench.prompt(Prompt.REMOVE_BOARD)
    bench.run(30.0, lambda: not bench.device.room.board_present)
    bench.prompt(Prompt.INSERT_BOARD, board=1)
    bench.board_in()
    assert scan(bench).result == (ScanResult.NO_READ if persistent else ScanResult.OK)


def test_a_bad_label_breaks_law_2_and_a_spare_replaces_the_board() -> None:
    bench = Bench(None, {"kind": "bad_label", "board_number": 1})
    bench.hello()
    bench.board_in()
    read = BoardLabel.parse(scan(bench).label.decode())
    assert read.board == 1 and not read.conforms
    good = BoardLabel.for_board("A", 1).payload().encode()
    bench.prompt(Prompt.REMOVE_BOARD)
    bench.run(30.0, lambda: not bench.device.room.board_present)
    bench.prompt(Prompt.INSERT_BOARD, good)
    bench.board_in()
    assert scan(bench).label == good
    assert bench.device.room.slot is not None and "spare" in bench.device.room.slot.board.ident


def test_a_board_pulled_out_while_dealing_stops_it_and_comes_back() -> None:
    bench, seats = dealing({"kind": "board_removed", "board": 1, "card": 30, "seconds": 3.0})
    bench.take(BoardChanged)
    fault = bench.wait_for(Fault)
    assert (fault.code, fault.cards_dealt, fault.flags) == (FaultCode.BOARD_REMOVED, 29, FaultFlag.RESUMABLE)
    assert bench.take(BoardChanged) == [BoardChanged(0)]
    assert bench.cmd(StartDeal(1)) == Refused(RefuseReason.NO_BOARD, 0)
    assert bench.wait_for(BoardChanged) == BoardChanged(1)
    assert bench.cmd(StartDeal(1)) == Refused(RefuseReason.NOT_SCANNED, 0)  # put back: read it again first
    assert bench.read_label().label == BoardLabel.for_board("A", 1).payload().encode()
    assert bench.cmd(StartDeal(1)) == Ack()
    bench.wait_for(DealDone)
    assert [sorted(p.cards) for p in recount(bench).pockets] == hands_of(seats)


# --- system ---------------------------------------------------------------------------------------


def test_power_loss_restarts_the_machine_empty_handed_and_the_board_keeps_its_cards() -> None:
    bench, _ = dealing({"kind": "power_loss", "board": 1, "card": 25, "seconds": 1.0})
    first = bench.device.firmware.boot_id
    bench.run(30.0, lambda: not bench.device.powered)
    assert not bench.device.powered
    boot = bench.wait_for(Boot, where=lambda b: b.boot_id != first)
    assert boot.boot_id != first
    assert bench.cmd(GetStatus()) == Refused(RefuseReason.HANDSHAKE_REQUIRED, 0)
    bench.hello()
    s = status(bench)
    assert (s.state, s.job) == (DeviceState.IDLE, 0)
    assert bench.device.room.slot is not None and bench.device.room.slot.board.card_count == 24
    assert bench.device.ledger.records[0].outcome == "power loss"


def test_power_loss_on_a_machine_that_keeps_its_job_reports_it_resumable() -> None:
    bench, seats = dealing({"kind": "power_loss", "board": 1, "card": 25}, keeps_job=True)
    bench.run(30.0, lambda: not bench.device.powered)
    bench.run(2.0)
    bench.hello()
    s = status(bench)
    assert (s.state, s.job, s.fault, s.cards_dealt) == (DeviceState.FAULT, 1, FaultCode.POWER_LOSS, 24)
    assert bench.cmd(StartDeal(1)) == Refused(RefuseReason.NOT_SCANNED, 0)  # the restart forgot the scan
    bench.read_label()
    assert bench.cmd(StartDeal(1)) == Ack()
    bench.wait_for(DealDone)
    assert [sorted(p.cards) for p in recount(bench).pockets] == hands_of(seats)


def test_a_silent_machine_answers_nothing_until_switched_off_and_on() -> None:
    bench, _ = dealing({"kind": "silent", "board": 1, "card": 25})
    first = bench.device.firmware.boot_id
    bench.run(30.0, lambda: not bench.device.powered)
    bench.run(3600.0)  # an hour later: still hung, nothing sent, nothing answered
    assert not bench.device.powered and bench.device.data_to_send() == b""
    assert [b for b in bench.take(Boot) if b.boot_id != first] == []
    bench.link.send(GetStatus(), bench.now)
    bench.run(5.0)
    assert bench.device.data_to_send() == b""
    bench.device.switch_on(bench.now)  # off and on: it restarts as from a power cut, the board as it was
    boot = bench.wait_for(Boot, where=lambda b: b.boot_id != first)
    assert boot.reason == BootReason.POWER_ON
    bench.hello()
    assert (status(bench).state, status(bench).job) == (DeviceState.IDLE, 0)
    assert bench.device.room.slot is not None and bench.device.room.slot.board.card_count == 24


def test_power_loss_at_a_frame_leaves_that_command_unanswered() -> None:
    bench = Bench(None, {"kind": "power_loss", "frame": 2})
    bench.hello()  # frame 1
    first = bench.device.firmware.boot_id
    bench.link.send(GetStatus(), bench.now)  # frame 2: the power goes as it arrives
    bench.exchange()
    assert not bench.device.powered
    bench.run(2.0)
    assert bench.device.firmware.boot_id != first


def test_unplugging_asks_the_io_layer_and_the_loopback_drops_the_port() -> None:
    bench, _ = dealing({"kind": "unplug", "board": 1, "card": 20, "seconds": 0.5})
    bench.run(10.0, lambda: bool(bench.unplugs))
    assert [u.seconds for u in bench.unplugs] == [0.5]
    with Loopback(SimConfig(faults=FaultPlan.of({"kind": "unplug", "frame": 2, "replug": False}))) as loop:
        port = loop.open(timeout=0.05)
        from tests.support.script_host import Disconnected, Wire

        wire = Wire(lambda: port, loop.clock, loop.advance)
        wire.open(5.0)
        with pytest.raises(Disconnected):
            wire.request(GetStatus())
        with pytest.raises(FileNotFoundError):
            loop.open()
        loop.replug()
        port.close()
        wire2 = Wire(loop.open, loop.clock, loop.advance)
        assert isinstance(wire2.open(5.0), HelloAck)


def test_every_fault_kind_has_an_effect_test_here() -> None:
    import sys

    names = " ".join(n for n in dir(sys.modules[__name__]) if n.startswith("test_"))
    words = {FaultKind.DROP: "drop", FaultKind.FLIP: "flip", FaultKind.DUPLICATE: "duplicate_sends",
             FaultKind.DELAY: "delay", FaultKind.SPLIT: "split", FaultKind.GARBAGE: "garbage",
             FaultKind.JAM: "jam", FaultKind.MISFEED: "misfeed", FaultKind.DOUBLE_FEED: "double_feed",
             FaultKind.CARD_FALLS: "falls_out", FaultKind.UNREADABLE_CARD: "unreadable_card",
             FaultKind.FOREIGN_CARD: "foreign_card", FaultKind.DUPLICATE_CARD: "duplicate_card",
             FaultKind.EMPTY_HOPPER: "short_pack", FaultKind.DOOR_OPEN: "door", FaultKind.WRONG_BOARD: "wrong_board",
             FaultKind.ROTATED_BOARD: "turned_board", FaultKind.UNREADABLE_LABEL: "unreadable_label",
             FaultKind.BAD_LABEL: "bad_label", FaultKind.BOARD_REMOVED: "pulled_out",
             FaultKind.POWER_LOSS: "power_loss", FaultKind.UNPLUG: "unplugging",
             FaultKind.SWAPPED_CARDS: "swapped_cards", FaultKind.STALE_DEAL: "stale_deal",
             FaultKind.WRONG_JOB: "wrong_job", FaultKind.EXTRA_POCKET: "extra_pocket",
             FaultKind.LEFTOVER_CARDS: "leftover_cards", FaultKind.SWAP_BOARD: "swap_board",
             FaultKind.MISCOUNT: "miscount", FaultKind.SILENT: "silent_machine"}
    assert set(words) == set(FaultKind)
    missing = [k.value for k, w in words.items() if w not in names]
    assert not missing, f"no effect test for {missing}"
    assert FaultSpec(FaultKind.JAM, board=1).kind is FaultKind.JAM
