"""The firmware's state machine (PROTOCOL.md section 6), timing and determinism, through the wire."""

from __future__ import annotations

import re

from firmware_protocol import (
    Abort,
    Ack,
    Activity,
    BoardChanged,
    BoardScanned,
    Boot,
    BootReason,
    Capability,
    DealDone,
    DealOutcome,
    DeviceState,
    Display,
    Eject,
    GetStatus,
    HelloAck,
    LoadDeal,
    Progress,
    Prompt,
    Recount,
    RecountReport,
    Refused,
    RefuseReason,
    Reset,
    ResetMode,
    ScanBoard,
    ScanResult,
    StartDeal,
    Status,
    StatusFlag,
    deal_hash,
    decode_message,
    encode_message,
    pack_seats,
)
from firmware_protocol.framing import Frame, FrameDecoder
from hil.config import DEFAULT_CAPABILITIES, SimConfig
from tests.support.deals import hands_of
from tests.support.sim_bench import Bench, seats_for


def ready(**options: object) -> Bench:
    """A machine after the handshake, with a board in it."""
    bench = Bench(None, **options)
    bench.hello()
    bench.board_in()
    bench.read_label()
    return bench


def status(bench: Bench) -> Status:
    reply = bench.cmd(GetStatus())
    assert isinstance(reply, Status)
    return reply


def test_every_command_but_hello_is_refused_before_the_handshake() -> None:
    bench = Bench()
    bench.device.receive(encode_message(GetStatus(), 0), 0.0)  # a host that skips Hello
    frames = [f for f in FrameDecoder().feed(bench.device.data_to_send()) if isinstance(f, Frame)]
    replies = [decode_message(f.type, f.payload) for f in frames if f.type != Boot.TYPE]
    assert replies == [Refused(RefuseReason.HANDSHAKE_REQUIRED, 0)]
    reply = bench.hello()
    assert isinstance(reply, HelloAck)
    boot = bench.wait_for(Boot)
    assert boot.reason == BootReason.POWER_ON and boot.boot_id == reply.boot_id
    assert reply.capabilities == DEFAULT_CAPABILITIES | Capability.SIMULATED  # it says it is simulated
    assert reply.pockets == 4
    assert re.fullmatch(rb"SIM-[0-9A-F]{8}", reply.serial)  # its own, not the seed's: another machine of the same seed
    assert Bench().hello().serial not in (reply.serial, b"")


def test_idle_to_loaded_to_dealing_to_done() -> None:
    bench = ready()
    assert status(bench).state == DeviceState.IDLE
    assert bench.cmd(StartDeal(1)) == Refused(RefuseReason.WRONG_STATE, DeviceState.IDLE)
    seats = bench.load(job=7, board=3)
    s = status(bench)
    assert (s.state, s.job, s.board, s.deal_hash) == (DeviceState.LOADED, 7, 3, deal_hash(pack_seats(seats)))
    assert bench.cmd(StartDeal(8)) == Refused(RefuseReason.WRONG_JOB, 7)
    assert bench.cmd(StartDeal(7)) == Ack()
    assert status(bench).state == DeviceState.DEALING
    for command in (ScanBoard(), bench_load(seats), Recount(7), Eject()):
        assert bench.cmd(command) == Refused(RefuseReason.WRONG_STATE, DeviceState.DEALING)
    done = bench.wait_for(DealDone)
    assert done == DealDone(7, DealOutcome.COMPLETE, 52, (13, 13, 13, 13))
    assert [p.cards_dealt for p in bench.notices if isinstance(p, Progress)] == [13, 26, 39]
    s = status(bench)
    assert (s.state, s.cards_dealt, s.pocket_counts) == (DeviceState.DONE, 52, (13, 13, 13, 13))
    assert bench.cmd(StartDeal(7)) == Refused(RefuseReason.WRONG_STATE, DeviceState.DONE)


def bench_load(seats: list[int]) -> LoadDeal:
    return LoadDeal.for_deal(9, 1, pack_seats(seats))


def test_the_recount_reads_every_card_in_its_pocket() -> None:
    bench = ready()
    seats = bench.load()
    bench.cmd(StartDeal(1))
    bench.wait_for(DealDone)
    assert bench.cmd(Recount(1)) == Ack()
    report = bench.wait_for(RecountReport)
    assert report.job == 1 and [sorted(p.cards) for p in report.pockets] == hands_of(seats)
    assert all(p.unidentified == 0 for p in report.pockets)


def test_a_bad_deal_or_hash_is_refused_and_the_previous_deal_stays() -> None:
    bench = ready()
    seats = bench.load(job=1)
    bad = [0] * 14 + [1] * 12 + [2] * 13 + [3] * 13
    assert bench.cmd(LoadDeal.for_deal(2, 1, pack_seats(bad))) == Refused(RefuseReason.BAD_DEAL, 0)
    good = pack_seats(seats)
    wrong_hash = (deal_hash(good) + 1) & 0xFF
    assert bench.cmd(LoadDeal(3, 1, good, wrong_hash)) == Refused(RefuseReason.BAD_HASH, deal_hash(good))
    assert status(bench).job == 1


def test_abort_while_dealing_ends_in_done_with_the_cards_dealt_so_far() -> None:
    bench = ready()
    bench.load()
    bench.cmd(StartDeal(1))
    bench.run(4.0)
    assert bench.cmd(Abort()) == Ack()
    done = bench.wait_for(DealDone)
    assert done.outcome == DealOutcome.ABORTED and 0 < done.cards_dealt < 52
    assert sum(done.pocket_counts) == done.cards_dealt
    assert status(bench).state == DeviceState.DONE
    assert bench.cmd(Abort()) == Ack()  # nothing to do
    bench.run(5.0)
    assert not bench.take(DealDone)


def test_reset_clear_stops_at_once_without_deal_done() -> None:
    bench = ready()
    bench.load()
    bench.cmd(StartDeal(1))
    bench.run(3.0)
    assert bench.cmd(Reset(ResetMode.CLEAR)) == Ack()
    bench.run(20.0)
    assert not bench.take(DealDone)
    s = status(bench)
    assert (s.state, s.job, s.cards_dealt) == (DeviceState.IDLE, 0, 0)


def test_reset_reboot_acks_then_boots_with_a_new_boot_id_and_needs_hello() -> None:
    bench = ready()
    first = bench.device.firmware.boot_id
    assert bench.cmd(Reset(ResetMode.REBOOT)) == Ack()
    assert bench.cmd(GetStatus()) == Refused(RefuseReason.HANDSHAKE_REQUIRED, 0)
    hello = bench.hello()
    assert isinstance(hello, HelloAck) and hello.boot_id != first
    boot = bench.wait_for(Boot, where=lambda b: b.boot_id != first)
    assert boot.reason == BootReason.RESET_COMMAND


def test_one_activity_at_a_time() -> None:
    bench = ready()
    assert bench.cmd(ScanBoard()) == Ack()
    assert bench.cmd(Recount(0)) == Refused(RefuseReason.BUSY, Activity.SCANNING)
    assert status(bench).activity == Activity.SCANNING
    bench.wait_for(BoardScanned)
    assert status(bench).activity == Activity.NONE


def test_start_deal_needs_the_board_in_the_machine_read_since_it_went_in() -> None:
    bench = Bench()
    bench.hello()
    bench.board_in()
    bench.cmd(bench_load(seats_for(1)))
    assert bench.cmd(StartDeal(9)) == Refused(RefuseReason.NOT_SCANNED, 0)
    bench.read_label()
    bench.prompt(Prompt.REMOVE_BOARD)
    bench.run(30.0, lambda: not bench.device.room.board_present)
    bench.prompt(Prompt.INSERT_BOARD, board=1)
    bench.board_in()
    assert bench.cmd(StartDeal(9)) == Refused(RefuseReason.NOT_SCANNED, 0)  # out and in: read it again
    assert bench.read_label().result == ScanResult.OK
    assert bench.cmd(StartDeal(9)) == Ack()


def test_a_machine_without_a_board_sensor_cannot_tell_and_does_not_ask_for_a_scan() -> None:
    bench = ready(capabilities=int(DEFAULT_CAPABILITIES & ~Capability.BOARD_SENSOR))
    bench.prompt(Prompt.REMOVE_BOARD)
    bench.run(30.0, lambda: not bench.device.room.board_present)
    bench.prompt(Prompt.INSERT_BOARD, board=1)
    bench.run(30.0, lambda: bench.device.room.board_present)
    bench.cmd(bench_load(seats_for(1)))
    assert bench.cmd(StartDeal(9)) == Ack()


def test_commands_needing_a_board_are_refused_without_one() -> None:
    bench = Bench()
    bench.hello()
    assert not bench.device.room.board_present
    for command in (ScanBoard(), Recount(0), Eject()):
        assert bench.cmd(command) == Refused(RefuseReason.NO_BOARD, 0)
    bench.load()
    assert bench.cmd(StartDeal(1)) == Refused(RefuseReason.NO_BOARD, 0)


def test_a_machine_without_a_display_refuses_display() -> None:
    bench = Bench(SimConfig(capabilities=int(DEFAULT_CAPABILITIES & ~Capability.DISPLAY)))
    bench.hello()
    assert bench.cmd(Display(Prompt.NONE, 0, b"", b"hi")) == Refused(RefuseReason.UNSUPPORTED, 0x19)


def test_display_is_accepted_in_every_state() -> None:
    bench = ready()
    bench.load()
    bench.cmd(StartDeal(1))
    assert bench.cmd(Display(Prompt.NONE, 1, b"", b"dealing board 1")) == Ack()
    assert bench.device.firmware.display == Display(Prompt.NONE, 1, b"", b"dealing board 1")


def test_the_scan_reads_the_label_and_eject_pushes_the_board_out() -> None:
    bench = ready()
    bench.cmd(ScanBoard())
    scan = bench.wait_for(BoardScanned)
    assert scan == BoardScanned(ScanResult.OK, 0, bench.device.room.slot.board.label)  # type: ignore[union-attr]
    bench.take(BoardChanged)
    assert bench.cmd(Eject()) == Ack()
    assert bench.wait_for(BoardChanged) == BoardChanged(0)
    assert not status(bench).flags & StatusFlag.BOARD_PRESENT


def test_a_board_taken_out_during_a_scan_or_recount_ends_it_at_once() -> None:
    bench = ready()
    room = bench.device.room
    bench.cmd(ScanBoard())
    board = room.take_out(bench.now)
    assert bench.wait_for(BoardScanned) == BoardScanned(ScanResult.NO_BOARD, 0, b"")
    room.insert(board, bench.now)  # type: ignore[arg-type]
    bench.cmd(Recount(5))
    room.take_out(bench.now)
    assert bench.wait_for(RecountReport) == RecountReport(5, ())


def test_a_board_keeps_its_cards_out_of_the_machine() -> None:
    bench = ready()
    seats = bench.load()
    bench.cmd(StartDeal(1))
    bench.wait_for(DealDone)
    bench.cmd(Eject())
    bench.wait_for(BoardChanged, where=lambda m: m.present == 0)
    board = bench.device.room.rack.boards[0]
    assert [sorted(h) for h in board.hands()] == hands_of(seats)
    bench.prompt(Prompt.INSERT_BOARD, board.label)
    bench.board_in()
    bench.cmd(Recount(0))
    assert [sorted(p.cards) for p in bench.wait_for(RecountReport).pockets] == hands_of(seats)
    (record,) = bench.device.ledger.records
    assert record.outcome == "complete" and [sorted(h) for h in record.hands()] == hands_of(seats)


def test_a_board_takes_between_5_and_20_seconds_and_speed_divides_it() -> None:
    times = []
    for speed in (1.0, 10.0):
        bench = ready(speed=speed)
        bench.load()
        bench.cmd(StartDeal(1))
        start = bench.now
        bench.wait_for(DealDone)
        bench.cmd(Recount(1))
        bench.wait_for(RecountReport)
        times.append(bench.now - start)
    assert 5.0 <= times[0] <= 20.0
    assert abs(times[1] - times[0] / 10) < 0.01


def test_the_same_seed_gives_the_same_bytes_and_another_seed_another_pack() -> None:
    def session(seed: int) -> tuple[bytes, list[tuple[int, ...]]]:
        bench = ready(seed=seed, serial="SIM-1")  # the seed's bytes; the serial is the machine's own
        bench.load()
        bench.cmd(StartDeal(1))
        bench.wait_for(DealDone)
        bench.cmd(Recount(1))
        report = bench.wait_for(RecountReport)
        return bytes(bench.wire_to_host), [p.cards for p in report.pockets]

    first, again, other = session(3), session(3), session(4)
    assert first == again
    assert first[1] != other[1]  # same hands, read in another order: another shuffle of the pack
    assert [sorted(p) for p in first[1]] == [sorted(p) for p in other[1]]


def test_a_machine_with_a_board_sensor_but_no_reader_never_asks_for_a_scan_it_cannot_make() -> None:
    """PROTOCOL.md 6, StartDeal check 5: NOT_SCANNED only on a machine with BOARD_SENSOR and BARCODE_READER."""
    bench = Bench(None, capabilities=int(DEFAULT_CAPABILITIES & ~Capability.BARCODE_READER))
    bench.hello()
    bench.board_in()
    bench.cmd(bench_load(seats_for(1)))
    assert bench.cmd(ScanBoard()) == Refused(RefuseReason.UNSUPPORTED, 0x12)
    assert bench.cmd(StartDeal(9)) == Ack()
