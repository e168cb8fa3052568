"""The simulator against the rules PROTOCOL.md states for the cases it once left open, and against the
worked example of a turned board (section 12.1), whose bytes and pockets are read from the document."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from firmware_protocol import (
    Abort,
    Ack,
    BoardChanged,
    BoardScanned,
    Boot,
    DealDone,
    DeviceState,
    Fault,
    FaultCode,
    FaultFlag,
    GetStatus,
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
    decode_message,
    encode_message,
)
from firmware_protocol.crc import crc16
from firmware_protocol.framing import Frame, FrameDecoder
from firmware_protocol.messages import MsgType
from hil.cli import add_arguments, config_from_args
from hil.config import SimConfig, SimConfigError
from hil.device import SimDevice
from hil.physical import Card
from tests.support.sim_bench import Bench

SPEC = (Path(__file__).resolve().parents[2] / "firmware_protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
TURNED = SPEC[SPEC.index("**Worked example: board 17 of set RED"):]


def ready(**options: object) -> Bench:
    bench = Bench(None, **options)
    bench.hello()
    bench.board_in()
    bench.read_label()
    return bench


def status(bench: Bench) -> Status:
    reply = bench.cmd(GetStatus())
    assert isinstance(reply, Status)
    return reply


def frames_from(data: bytes) -> list[tuple[int, object]]:
    """(seq, message) of every intact frame in `data`, in order."""
    return [(f.seq, decode_message(f.type, f.payload)) for f in FrameDecoder().feed(data) if isinstance(f, Frame)]


# --- section 6: Reset ------------------------------------------------------------------------------


def test_reset_with_a_mode_the_document_does_not_define_is_refused_and_changes_nothing() -> None:
    bench = ready()
    bench.load(job=4)
    assert bench.cmd(Reset(7)) == Refused(RefuseReason.UNSUPPORTED, 0x18)
    s = status(bench)
    assert (s.state, s.job) == (DeviceState.LOADED, 4)
    assert bench.cmd(StartDeal(4)) == Ack()  # the scan was not forgotten either


def test_reset_clear_during_a_scan_ends_it_without_a_board_scanned_and_forgets_the_scan() -> None:
    bench = ready()
    bench.load(job=5)
    assert bench.cmd(ScanBoard()) == Ack()
    assert bench.cmd(Reset(ResetMode.CLEAR)) == Ack()
    bench.run(10.0)
    assert not bench.take(BoardScanned)
    s = status(bench)
    assert (s.state, s.activity, s.cards_dealt) == (DeviceState.IDLE, 0, 0)
    bench.load(job=6)
    assert bench.cmd(StartDeal(6)) == Refused(RefuseReason.NOT_SCANNED, 0)
    assert bench.read_label().result == ScanResult.OK
    assert bench.cmd(StartDeal(6)) == Ack()


# --- section 4.3: the reply before the event it raised ------------------------------------------------


def test_abort_is_answered_before_the_deal_done_it_raises() -> None:
    bench = ready()
    bench.load()
    bench.cmd(StartDeal(1))
    bench.run(3.0)
    start = len(bench.wire_to_host)
    bench.cmd(Abort())
    bench.wait_for(DealDone)
    kinds = [type(m).__name__ for _, m in frames_from(bytes(bench.wire_to_host[start:]))]
    assert kinds.index("Ack") < kinds.index("DealDone"), kinds


# --- section 2.4 and 3: a malformed frame of the other direction is damage, a valid one is ignored -----


def _raw_frame(type_code: int, seq: int, payload: bytes) -> bytes:
    """A frame with a right CRC, built by hand (section 2): COBS of type, seq, payload, CRC, then 0x00."""
    body = bytes([type_code, seq]) + payload
    body += crc16(body).to_bytes(2, "big")
    out, run = bytearray(), bytearray()
    for b in body:
        if b == 0:
            out += bytes([len(run) + 1]) + run
            run.clear()
        else:
            run.append(b)
    out += bytes([len(run) + 1]) + run
    return bytes(out) + b"\x00"


def test_a_malformed_frame_of_the_devices_own_direction_is_damage_and_gets_a_nak() -> None:
    bench = Bench()
    bench.hello()
    bench.run(5.0)
    device = bench.device
    naks_before = device.link.counters.naks_sent
    device.receive(_raw_frame(MsgType.STATUS, 3, b"\x01\x02"), bench.now)  # a Status far too short
    back = frames_from(device.data_to_send())
    assert device.link.counters.naks_sent == naks_before + 1
    assert [type(m).__name__ for _, m in back] == ["Nak"]


def test_a_valid_frame_of_the_devices_own_direction_is_an_echo_and_gets_no_nak() -> None:
    bench = Bench()
    bench.hello()
    bench.run(5.0)
    device = bench.device
    naks_before = device.link.counters.naks_sent
    device.receive(encode_message(Ack(), 9), bench.now + 1.0)
    assert device.link.counters.naks_sent == naks_before
    assert frames_from(device.data_to_send()) == []


# --- sections 7.2 and 7.4: cards_dealt, hoppers, FAULT_RESUMABLE ---------------------------------------


def test_a_misfed_card_counts_in_cards_dealt_and_in_the_pocket_it_went_to() -> None:
    bench = Bench(None, {"kind": "misfeed", "board": 1, "card": 5, "detected": True, "pocket": 2})
    bench.hello()
    bench.board_in()
    bench.read_label()
    bench.load()
    bench.cmd(StartDeal(1))
    fault = bench.wait_for(Fault)
    assert (fault.code, fault.detail, fault.cards_dealt) == (FaultCode.MISFEED, 2, 5)
    s = status(bench)
    assert s.cards_dealt == 5 and sum(s.pocket_counts) == 5 and s.pocket_counts[2] >= 1
    assert not s.flags & StatusFlag.FAULT_RESUMABLE  # a misfeed is not resumable


def test_an_empty_hopper_names_hopper_0_and_is_resumable_in_status() -> None:
    bench = Bench(None, {"kind": "empty_hopper", "board": 1, "card": 40})
    bench.hello()
    bench.board_in()
    bench.read_label()
    bench.load()
    bench.cmd(StartDeal(1))
    fault = bench.wait_for(Fault)
    assert (fault.code, fault.detail) == (FaultCode.EMPTY_HOPPER, 0)
    assert fault.flags & FaultFlag.RESUMABLE
    s = status(bench)
    assert s.state == DeviceState.FAULT and s.flags & StatusFlag.FAULT_RESUMABLE


def test_a_keeps_job_machine_restarted_while_dealing_sends_fault_power_loss_right_after_boot() -> None:
    bench = Bench(None, {"kind": "power_loss", "board": 1, "card": 20}, keeps_job=True)
    bench.hello()
    bench.board_in()
    bench.read_label()
    bench.load(job=3)
    bench.cmd(StartDeal(3))
    bench.take(Boot)
    first_boot = bench.device.firmware.boot_id
    bench.run(60.0, lambda: bench.device.firmware.boot_id != first_boot and bench.device.powered)
    bench.hello()
    bench.run(30.0, lambda: any(isinstance(m, Fault) for m in bench.events))
    after = [m for m in bench.events if not isinstance(m, (BoardChanged, Progress))]
    assert [type(m) for m in after] == [Boot, Fault]  # the Fault is the next event after the Boot
    boot, fault = after
    assert isinstance(boot, Boot) and isinstance(fault, Fault)
    assert boot.boot_id == bench.device.firmware.boot_id
    assert (fault.code, fault.job, fault.cards_dealt) == (FaultCode.POWER_LOSS, 3, 19)
    assert fault.flags & FaultFlag.RESUMABLE
    s = status(bench)
    assert (s.state, s.job, s.cards_dealt) == (DeviceState.FAULT, 3, 19)
    assert s.flags & StatusFlag.FAULT_RESUMABLE


# --- Display: INSERT_BOARD for the board in the machine already ---------------------------------------


def test_insert_board_for_the_board_already_in_moves_nothing() -> None:
    bench = ready()
    label = bench.device.room.slot.board.label  # type: ignore[union-attr]
    bench.take(BoardChanged)
    bench.prompt(Prompt.INSERT_BOARD, label=label)
    bench.run(30.0)
    assert not bench.take(BoardChanged) and bench.device.room.slot is not None
    assert bench.device.room.slot.board.label == label


# --- section 12.1: the worked example of a turned board ------------------------------------------------


def _hex(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def test_the_worked_frame_of_a_turned_board_is_what_the_codec_sends() -> None:
    frame = re.search(r"the frame on the wire is\s+`([0-9A-F ]+)`", TURNED)
    assert frame is not None
    assert encode_message(BoardScanned(ScanResult.OK, 1, b"RED:17:N0:8"), 1) == _hex(frame.group(1))


def _worked_pockets() -> list[range]:
    """Step 2 of the worked example: the cards each machine pocket N E S W holds, as the document says."""
    step = TURNED[TURNED.index("2. Recount."):TURNED.index("3. The host")]
    found = re.findall(r"\((\d+)\.\.(\d+)\)", " ".join(step.split()))
    assert len(found) == 4
    return [range(int(a), int(b) + 1) for a, b in found]


def _turned_board_bench(every_edge: bool) -> Bench:
    """Board 17 of set RED holding the deal of section 7.3, put in a quarter turn anticlockwise."""
    bench = Bench(SimConfig(set_name="RED", boards=(17,), reads_every_edge=every_edge))
    bench.hello()
    bench.board_in()
    room = bench.device.room
    board = room.take_out(bench.now)
    assert board is not None and board.label == b"RED:17:N0:8"
    for pocket in range(4):  # spades North, hearts East, diamonds South, clubs West
        board.pockets[pocket] = [Card(c, "P001") for c in range(13 * pocket, 13 * pocket + 13)]
    room.insert(board, bench.now, turns=1, label_hidden=True)
    return bench


def test_a_machine_that_reads_every_edge_reports_the_worked_example() -> None:
    bench = _turned_board_bench(every_edge=True)
    assert bench.read_label() == BoardScanned(ScanResult.OK, 1, b"RED:17:N0:8")
    assert bench.cmd(Recount(0)) == Ack()
    report = bench.wait_for(RecountReport)
    assert [sorted(p.cards) for p in report.pockets] == [list(r) for r in _worked_pockets()]


def test_a_machine_with_one_reader_reports_the_turned_board_as_no_read() -> None:
    bench = _turned_board_bench(every_edge=False)
    assert bench.read_label() == BoardScanned(ScanResult.NO_READ, 0, b"")


def test_the_sim_url_and_dealer_sim_choose_the_reader(tmp_path: Path) -> None:
    assert SimConfig.from_url("sim://?reader=edges").reads_every_edge
    assert not SimConfig.from_url("sim://?reader=north").reads_every_edge
    assert not SimConfig.from_url("sim://").reads_every_edge
    with pytest.raises(SimConfigError, match="reader must be north"):
        SimConfig.from_url("sim://?reader=sideways")
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    link = str(tmp_path / "sim")
    assert config_from_args(parser.parse_args(["--reader", "edges", "--link", link])).reads_every_edge
    assert not config_from_args(parser.parse_args(["--link", link])).reads_every_edge



def test_the_simulator_on_a_pty_uses_the_rto_the_document_gives_a_path_with_no_real_uart() -> None:
    rto = re.search(r"A path with no real UART \(.*?\) uses 115200: ([0-9.]+) s", " ".join(SPEC.split()))
    assert rto is not None
    assert round(SimDevice(SimConfig()).link_config.retransmit_timeout, 3) == float(rto.group(1))


# --- section 5: a Hello of a later version; section 7.2: a misfeed whose pocket is unknown -----------------


def test_a_hello_with_fields_of_a_later_version_is_answered_and_opens_the_session() -> None:
    bench = Bench()
    bench.run(1.0)
    device = bench.device
    device.data_to_send()
    # version 1, schema hash 8F FD 51 C4, session 12 34, then two bytes a later version might add
    device.receive(_raw_frame(MsgType.HELLO, 0, bytes.fromhex("01 8F FD 51 C4 12 34 AA BB")), bench.now)
    back = frames_from(device.data_to_send())
    assert [(seq, type(m).__name__) for seq, m in back if type(m).__name__ == "HelloAck"] == [(0, "HelloAck")]
    assert device.link.counters.naks_sent == 0


def test_a_noticed_double_feed_counts_the_stray_card_nowhere_so_the_counts_add_up() -> None:
    bench = Bench(None, {"kind": "double_feed", "board": 1, "card": 5})
    bench.hello()
    bench.board_in()
    bench.read_label()
    bench.load()
    bench.cmd(StartDeal(1))
    fault = bench.wait_for(Fault)
    assert (fault.code, fault.detail, fault.flags) == (FaultCode.MISFEED, 0xFFFF, FaultFlag(0))
    s = status(bench)
    assert s.cards_dealt == fault.cards_dealt == sum(s.pocket_counts)
    assert not s.flags & StatusFlag.FAULT_RESUMABLE
