"""`dealer.dealing.machine.Machine` against the simulated machine on an in-memory cable, in virtual time.

Every test drives a real `hil.Loopback` (the simulator's firmware, operator and fault plans) through
`SerialTransport`, so what is checked is the host driver's behaviour against a machine: handshake,
each command's round trip, refusals, timeouts, restarts, unplugging, and the event queue.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import hil.model
from dealer.core.errors import DeviceDisconnected, DeviceTimeout, MachineFaultError
from dealer.dealing.machine import (
    BUSY_RETRY,
    CommandRefused,
    DeviceRestarted,
    Machine,
    MachineFaultKind,
    MachineSilent,
    MachineState,
    OperatorPrompt,
    ProtocolFaultError,
    Reconnected,
)
from dealer.dealing.sim_ports import loopback_opener
from dealer.verify import BoardRecount
from firmware_protocol import (
    PROTOCOL_VERSION,
    SCHEMA_HASH,
    Activity,
    BoardChanged,
    BoardScanned,
    Capability,
    DeviceState,
    Display,
    Fault,
    FaultCode,
    LoadDeal,
    MsgType,
    Prompt,
    Recount,
    RecountReport,
    RefuseReason,
    ScanBoard,
    ScanResult,
    deal_hash,
    decode_message,
)
from firmware_protocol.framing import Frame, FrameDecoder
from firmware_protocol.labels import BoardLabel
from firmware_protocol.link import GIVE_UP_AFTER
from hil import FaultPlan, Loopback, SimConfig
from hil.bytefaults import Chunk, Manipulator
from hil.config import DEFAULT_CAPABILITIES
from hil.physical import Card
from tests.support.machine_job import DEAL, JOB, PACKED


class Wire:
    """A cable manipulator that passes bytes on, counts frames to the device, and can mute the machine."""

    def __init__(self) -> None:
        self.mute = False
        self.frames_to_device = 0

    def __call__(self, data: bytes, direction: str) -> list[Chunk]:
        if direction == "to_device":
            self.frames_to_device += data.count(b"\x00")
            return [(0.0, data)]
        return [] if self.mute else [(0.0, data)]


@contextmanager
def machine_on(config: SimConfig | None = None, wire: Manipulator | None = None,
               **options: Any) -> Iterator[tuple[Machine, Loopback]]:
    """A connected Machine on a fresh simulated machine; closed (and the loopback too) afterwards."""
    with Loopback(config or SimConfig(seed=1), manipulator=wire) as loop:
        clock: Any = loop.clock
        options.setdefault("sleep", clock.sleep)
        m = Machine("loop://machine", opener=loopback_opener(loop), clock=loop.clock, **options)
        try:
            m.connect()
            yield m, loop
        finally:
            m.close()


def wait_until(m: Machine, ready: Callable[[], bool], limit: float = 60.0) -> None:
    """Poll (letting virtual time pass) until `ready()`; fails the test after `limit` machine seconds."""
    deadline = m.clock() + limit
    while not ready():
        assert m.clock() < deadline, "the machine never got there"
        m.sleep(0.1)


def board_present(m: Machine) -> bool:
    return m.status().board_present


def seats_of(report: BoardRecount | None) -> list[list[int]]:
    """The intended seat of every card found in each pocket (the board must still be in the machine)."""
    assert report is not None
    return [[int(DEAL[c]) for c in p.cards] for p in report.pockets]


# --- handshake -------------------------------------------------------------------------------------


def test_the_handshake_gives_the_machines_identity_and_capabilities() -> None:
    with machine_on(SimConfig(seed=1, serial="SIM-0042")) as (m, _):
        info = m.identity
        assert info is not None
        assert (info.protocol_version, info.serial, info.firmware) == (PROTOCOL_VERSION, "SIM-0042", "1.0.0")
        assert info.capabilities == {c.name for c in Capability if c & (DEFAULT_CAPABILITIES | Capability.SIMULATED)}
        assert info.simulated  # the simulated machine says so
        assert info.pockets == 4
        assert m.status().boot_id == info.boot_id


def slow_to_device(data: bytes, direction: str) -> list[Chunk]:
    """A cable that takes 150 ms to carry the host's bytes: the machine repeats its Boot notice (at 0.117 s)
    before the host's acknowledgement or Hello reaches it."""
    return [(0.15 if direction == "to_device" else 0.0, data)]


def test_the_power_on_boot_arriving_during_the_first_handshake_is_not_a_restart() -> None:
    with Loopback(SimConfig(seed=1), manipulator=slow_to_device) as loop:
        clock: Any = loop.clock
        loop.advance(0.1)  # the machine's Boot notice is repeated at 0.117 s until answered
        with Machine("loop://machine", opener=loopback_opener(loop), clock=loop.clock, sleep=clock.sleep) as m:
            m.connect()
            m.load(JOB, 1, PACKED)
            assert m.restarts == 0
            assert m.status().state == MachineState.LOADED


@pytest.mark.parametrize("constant, value", [("SCHEMA_HASH", SCHEMA_HASH ^ 0x5A5A), ("PROTOCOL_VERSION",
                                                                                     PROTOCOL_VERSION + 1)])
def test_a_machine_speaking_another_protocol_or_schema_is_refused(monkeypatch: pytest.MonkeyPatch, constant: str,
                                                                   value: int) -> None:
    monkeypatch.setattr(hil.model, constant, value)  # the simulated firmware announces something else
    with pytest.raises(MachineFaultError) as caught, machine_on():
        pass
    text = str(caught.value)
    assert type(caught.value) is MachineFaultError
    assert f"this program versions 1 and 2 (messages {SCHEMA_HASH:08x} in version {PROTOCOL_VERSION})" in text
    if constant == "SCHEMA_HASH":
        assert f"(messages {value:08x})" in text
    else:
        assert f"protocol version {value} " in text


def test_a_machine_speaking_version_1_is_dealt_in_version_1_and_its_undefined_bits_ignored(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hil.model, "PROTOCOL_VERSION", 1)  # the simulated firmware as version 1 first had it
    monkeypatch.setattr(hil.model, "SCHEMA_HASH", 0x8FFD51C4)  # version 1's hash, as PROTOCOL.md 5 and 13 print it
    with machine_on() as (m, _):
        identity = m.identity
        assert identity is not None and identity.protocol_version == 1
        assert not identity.simulated  # SIMULATED is version 2's: in version 1 the bit means nothing
        assert m.status().state == MachineState.IDLE


def board_asked_for(m: Machine, board: int = 1) -> bool:
    """Prompt INSERT_BOARD for board `board` of set A, as the run does (the simulated operator puts no
    board in unasked), and wait until a board is in."""
    m.display(OperatorPrompt.INSERT_BOARD, board, BoardLabel.for_board("A", board).payload(), f"insert board A {board}")
    return m.wait_board(True, 30.0)


# --- one board --------------------------------------------------------------------------------------


def test_status_load_scan_deal_recount_eject_round_trip() -> None:
    progress: list[tuple[int, int]] = []
    with machine_on(on_progress=lambda job, cards: progress.append((job, cards))) as (m, loop):
        assert m.status().state == MachineState.IDLE
        m.load(JOB, 1, PACKED)
        st = m.status()
        assert (st.state, st.job, st.board, st.deal_hash) == (MachineState.LOADED, JOB, 1, deal_hash(PACKED))
        assert board_asked_for(m)
        scanned = m.scan()
        assert (scanned.result, scanned.label.decode()) == (ScanResult.OK, BoardLabel.for_board("A", 1).payload())
        done = m.deal(JOB, 60.0)
        assert (done.job, done.complete, done.cards_dealt, done.pocket_counts) == (JOB, True, 52, (13, 13, 13, 13))
        assert progress == [(JOB, 13), (JOB, 26), (JOB, 39)]
        report = m.recount(JOB)
        assert seats_of(report) == [[seat] * 13 for seat in range(4)]
        m.eject()
        st = m.status()
        assert st.state == MachineState.DONE and not st.board_present
        assert loop.device.ledger.dealt_labels() == {BoardLabel.for_board("A", 1).payload(): 1}
        assert m.pending_events() == []


def test_a_board_read_turned_is_recounted_in_its_own_pockets() -> None:
    plan = FaultPlan.of({"kind": "rotated_board", "insertion": 1, "turns": 1, "readable": True})
    with machine_on(SimConfig(seed=1, faults=plan)) as (m, loop):
        m.load(JOB, 1, PACKED)
        assert board_asked_for(m)
        reading = m.read_board()
        assert (reading.present, reading.label, reading.turns) == (True, BoardLabel.for_board("A", 1).payload(), 1)
        assert not reading.straight
        assert m.deal(JOB, 60.0).pocket_counts == (13, 13, 13, 13)  # the machine alone sees nothing wrong
        machine_view = m.recount(JOB)
        board_view = m.recount(JOB, reading.turns)
        assert machine_view is not None and board_view is not None
        assert seats_of(machine_view) == [[seat] * 13 for seat in range(4)]
        board = loop.device.room.slot.board  # type: ignore[union-attr]
        assert [sorted(p.cards) for p in board_view.pockets] == [sorted(h) for h in board.hands()]
        assert seats_of(board_view) == [[3] * 13, [0] * 13, [1] * 13, [2] * 13]  # every hand one pocket round


def test_start_deal_says_false_for_a_board_not_read_since_it_went_in_and_board_moved_tells_why() -> None:
    with machine_on() as (m, loop):
        m.load(JOB, 1, PACKED)
        assert board_asked_for(m)
        assert m.read_board().label == BoardLabel.for_board("A", 1).payload()
        assert not m.board_moved()
        room = loop.device.room
        board = room.take_out(loop.clock())  # swapped by hand after the label was read
        assert board is not None
        room.insert(room.rack.neighbour(board), loop.clock())
        assert m.start_deal(JOB) is False  # the machine refuses: NOT_SCANNED
        assert m.board_moved() and not m.board_moved()  # the movements, told once
        assert m.read_board().label == BoardLabel.for_board("A", 2).payload()
        assert m.start_deal(JOB) is True
        assert loop.device.ledger.dealt_labels() == {BoardLabel.for_board("A", 2).payload(): 1}


@pytest.mark.parametrize(("fault", "call", "problem"), [
    ({"kind": "extra_pocket", "board": 1, "count": 2}, "recount", "the recount of job 7 has 5 pockets"),
    ({"kind": "wrong_job", "board": 1, "report": "recount"}, "recount",
     "the recount of job 8 came while waiting for the recount of job 7"),
    ({"kind": "wrong_job", "board": 1, "report": "deal_done"}, "deal",
     "the end of dealing of job 8 came while waiting for the dealing of job 7"),
    ({"kind": "wrong_job", "board": 1, "card": 10, "report": "fault"}, "deal",
     "a fault of job 8 came while waiting for the dealing of job 7"),
])
def test_a_report_not_matching_the_request_is_a_protocol_fault(fault: dict[str, Any], call: str,
                                                                problem: str) -> None:
    with machine_on(SimConfig(seed=1, faults=FaultPlan.of(fault))) as (m, _):
        m.load(JOB, 1, PACKED)
        assert board_asked_for(m)
        m.read_board()
        with pytest.raises(ProtocolFaultError, match=problem):
            m.deal(JOB, 60.0)
            m.recount(JOB)


def test_a_report_of_an_earlier_dealing_is_dropped_never_taken_for_the_one_awaited() -> None:
    """Job 8 was an earlier dealing (the journal gave it before this controller started): the machine's
    report naming it, as a report held back over a reconnection would, answers nothing; the end of job
    7's dealing is still awaited."""
    fault = {"kind": "wrong_job", "board": 1, "report": "deal_done"}  # the DealDone names job 8, not 7
    with machine_on(SimConfig(seed=1, faults=FaultPlan.of(fault))) as (m, loop):
        m.issued([8])
        m.load(JOB, 1, PACKED)
        assert board_asked_for(m)
        m.read_board()
        with pytest.raises(DeviceTimeout, match="did not report the end of dealing"):
            m.deal(JOB, 60.0)
        assert loop.device.firmware.state is DeviceState.DONE  # it did report, for job 8: dropped


def test_a_board_taken_out_during_the_recount_reads_as_none_not_as_empty_pockets() -> None:
    with machine_on() as (m, loop):
        m.load(JOB, 1, PACKED)
        assert board_asked_for(m)
        m.send_command(Recount(JOB))
        loop.device.room.take_out(loop.clock())
        assert m.wait_event(RecountReport, 5.0).pockets == ()
    with machine_on() as (m, loop):
        m.load(JOB, 1, PACKED)
        assert board_asked_for(m)
        loop.device.schedule.at(loop.clock() + 0.1, lambda t: None if loop.device.room.take_out(t) else None, "test")
        assert m.recount(JOB) is None


def test_a_board_taken_out_between_its_reading_and_its_recount_reads_as_none_not_as_a_refusal() -> None:
    """The checks before dealing read the label, then recount: the operator may take the board out in
    between. The machine refuses a recount with no board in it: to the driver that is a board taken out
    before its recount finished (None: checked again), not a refusal that stops the run."""
    with machine_on() as (m, loop):
        m.load(JOB, 1, PACKED)
        assert board_asked_for(m)
        assert m.read_board().present
        loop.device.room.take_out(loop.clock())
        assert m.wait_board(False, 5.0)
        with pytest.raises(CommandRefused) as refused:
            m.send_command(Recount(JOB))
        assert refused.value.reason == RefuseReason.NO_BOARD
        assert m.recount(JOB) is None


def test_a_busy_machine_is_asked_again_until_its_activity_ends() -> None:
    sleeps: list[float] = []
    with Loopback(SimConfig(seed=1)) as loop:
        clock: Any = loop.clock

        def sleep(seconds: float) -> None:
            sleeps.append(seconds)
            clock.sleep(seconds)

        with Machine("loop://machine", opener=loopback_opener(loop), clock=loop.clock, sleep=sleep) as m:
            m.connect()
            m.load(JOB, 1, PACKED)
            assert board_asked_for(m)
            sleeps.clear()
            m.send_command(ScanBoard())  # the scan runs for a while: a Recount now is refused as BUSY
            report = m.recount(JOB)
            assert report is not None and sleeps and set(sleeps) == {BUSY_RETRY}
            assert [len(p.cards) for p in report.pockets] == [0, 0, 0, 0]
            assert m.wait_event(BoardScanned, 0.0).result == ScanResult.OK  # kept while waiting for the report


def test_a_command_still_busy_at_its_deadline_is_refused_as_busy() -> None:
    with machine_on() as (m, _):
        m.load(JOB, 1, PACKED)
        assert board_asked_for(m)
        m.send_command(ScanBoard())
        with pytest.raises(CommandRefused) as caught:
            m.send_command(ScanBoard(), timeout=0.1)
        assert caught.value.reason == RefuseReason.BUSY
        assert str(caught.value) == "the machine refused to read the board's label: it is busy"


def _bad_deal(m: Machine) -> None:
    bad = bytes(13)  # every card to North
    m.send_command(LoadDeal(JOB, 3, bad, deal_hash(bad)))


@pytest.mark.parametrize("command, reason, detail, name", [
    (lambda m: m.start_deal(JOB), RefuseReason.WRONG_STATE, DeviceState.IDLE,
     "the machine refused to deal: not now"),
    (lambda m: m.eject(), RefuseReason.NO_BOARD, 0,
     "the machine refused to push the board out: there is no board in it"),
    (_bad_deal, RefuseReason.BAD_DEAL, 0, "the machine refused to load the deal: the deal is not 13 cards a hand"),
    (lambda m: m.load(JOB, 3, PACKED[:-1] + bytes([PACKED[-1] ^ 0x03])), RefuseReason.BAD_DEAL, None,
     "the machine refused to load the deal: the deal is not 13 cards a hand"),
], ids=["deal with nothing loaded", "eject with no board", "a deal with 52 cards to North",
        "a deal with a card moved"])
def test_a_refused_command_raises_command_refused_with_the_reason(command: Callable[[Machine], object],
                                                                  reason: RefuseReason, detail: int | None,
                                                                  name: str) -> None:
    with machine_on() as (m, _):
        with pytest.raises(CommandRefused) as caught:
            command(m)
        assert caught.value.reason == reason and caught.value.code == reason
        if detail is not None:
            assert caught.value.detail == detail
        assert str(caught.value).startswith(name)
        assert not any(word in str(caught.value) for word in ("StartDeal", "Eject", "LoadDeal", "_"))
        assert m.status().state == MachineState.IDLE  # nothing was done


def test_a_refused_load_names_its_board() -> None:
    with machine_on() as (m, _):
        with pytest.raises(CommandRefused) as caught:
            m.load(JOB, 9, PACKED[:-1] + bytes([PACKED[-1] ^ 0x03]))
        assert caught.value.board == 9


# --- timeouts ----------------------------------------------------------------------------------------


def test_a_machine_that_stops_answering_is_given_up_after_thirty_silent_seconds() -> None:
    wire = Wire()
    with machine_on(wire=wire) as (m, _):
        wire.mute = True
        start = m.clock()
        with pytest.raises(MachineSilent, match="^loop://machine: the machine was not heard for 30 s$"):
            m.status(timeout=0.6)  # a command's own timeout does not cut short what the link still tries
        assert m.clock() - start == pytest.approx(GIVE_UP_AFTER, abs=0.3)


def test_after_a_timeout_the_link_works_again_once_the_machine_answers() -> None:
    wire = Wire()
    with machine_on(wire=wire) as (m, _):
        wire.mute = True
        with pytest.raises(DeviceTimeout):
            m.status(timeout=30.0)
        wire.mute = False
        assert m.status().state == MachineState.IDLE


def test_a_machine_that_restarted_while_nothing_got_through_is_seen_as_restarted() -> None:
    wire = Wire()
    with machine_on(wire=wire) as (m, _):
        m.load(JOB, 1, PACKED)
        wire.mute = True
        with pytest.raises(DeviceTimeout):
            m.reset(reboot=True, timeout=30.0)  # carried out; neither its Ack nor the Boot gets through
        wire.mute = False
        with pytest.raises(DeviceRestarted):
            m.status()
        assert m.restarts == 1
        assert m.status().state == MachineState.IDLE


def test_no_answer_to_the_handshake_is_a_device_timeout() -> None:
    wire = Wire()
    wire.mute = True
    with pytest.raises(DeviceTimeout, match=r"^no dealing machine answered on loop://machine \(is it on, and is "
                                            r"this its port\?\)$"), \
            machine_on(wire=wire):
        pass


def test_an_event_that_never_comes_is_a_device_timeout_naming_it() -> None:
    with machine_on() as (m, _):
        with pytest.raises(DeviceTimeout, match="^loop://machine: the machine did not report the recount in time$"):
            m.wait_event(RecountReport, 5.0)
        assert board_asked_for(m)
        assert m.wait_board(False, 5.0) is False  # nobody takes the board out


# --- restarts and unplugging -------------------------------------------------------------------------


def test_a_reboot_is_seen_as_a_restart_and_handshaken_again() -> None:
    with machine_on() as (m, _):
        assert m.identity is not None
        first_boot = m.identity.boot_id
        m.load(JOB, 1, PACKED)
        m.reset(reboot=True)
        with pytest.raises(DeviceRestarted):
            m.status()
        assert m.restarts == 1 and m.identity.boot_id != first_boot
        st = m.status()
        assert (st.state, st.job, st.boot_id) == (MachineState.IDLE, 0, m.identity.boot_id)  # the loaded deal is gone


def test_a_restart_is_reported_once_even_if_its_boot_notice_comes_again_during_the_new_handshake() -> None:
    with machine_on(wire=slow_to_device) as (m, _):
        m.reset(reboot=True)
        with pytest.raises(DeviceRestarted):
            m.status()
        assert m.status().state == MachineState.IDLE
        assert m.restarts == 1


@pytest.mark.parametrize("keeps_job", [False, True], ids=["loses the job", "keeps the job"])
def test_a_power_loss_while_dealing_raises_device_restarted(keeps_job: bool) -> None:
    plan = FaultPlan.of({"kind": "power_loss", "board": 1, "card": 20})
    with machine_on(SimConfig(seed=1, faults=plan, keeps_job=keeps_job)) as (m, loop):
        m.load(JOB, 1, PACKED)
        assert board_asked_for(m)
        m.scan()
        with pytest.raises(DeviceRestarted):
            m.deal(JOB, 60.0)
        assert m.restarts == 1
        st = m.status()
        if keeps_job:
            assert (st.state, st.job, st.fault) == (MachineState.FAULT, JOB, MachineFaultKind.POWER_LOSS)
            assert m.identity is not None and "KEEPS_JOB_OVER_POWER_LOSS" in m.identity.capabilities
        else:
            assert (st.state, st.job) == (MachineState.IDLE, 0)
        (record,) = loop.device.ledger.records
        assert len(record.placed) == 19


def test_an_unplug_mid_deal_reconnects_and_the_link_works_again() -> None:
    plan = FaultPlan.of({"kind": "unplug", "board": 1, "card": 20, "seconds": 1.5})
    with machine_on(SimConfig(seed=1, faults=plan)) as (m, loop):
        m.load(JOB, 1, PACKED)
        assert board_asked_for(m)
        m.scan()
        with pytest.raises(Reconnected):
            m.deal(JOB, 60.0)
        assert (m.reconnects, m.restarts) == (1, 0)
        st = m.status()
        # the machine went on dealing while the cable was out: past card 20, where it was pulled, not yet done
        assert (st.job, st.state) == (JOB, MachineState.DEALING) and 20 < st.cards_dealt < 52
        wait_until(m, lambda: m.status().state == MachineState.DONE)
        assert seats_of(m.recount(JOB)) == [[seat] * 13 for seat in range(4)]
        assert loop.device.ledger.times_dealt(BoardLabel.for_board("A", 1).payload()) == 1


def test_a_cable_pulled_between_commands_is_reopened() -> None:
    with machine_on() as (m, loop):
        m.load(JOB, 1, PACKED)
        loop.unplug(seconds=2.0)
        with pytest.raises(Reconnected, match="^loop://machine: the port was lost and opened again$"):
            m.status()
        assert m.reconnects == 1
        st = m.status()
        assert (st.state, st.job) == (MachineState.LOADED, JOB)  # the machine itself carried on


def test_a_cable_that_stays_out_is_device_disconnected_naming_the_port() -> None:
    with machine_on(reconnect_timeout=3.0) as (m, loop):
        loop.unplug()
        with pytest.raises(DeviceDisconnected, match="loop://machine: cannot open the port"):
            m.status()
        assert m.reconnects == 1


# --- events and prompts ------------------------------------------------------------------------------


def test_events_nobody_waits_for_are_kept_in_order() -> None:
    with machine_on() as (m, _):
        m.load(JOB, 1, PACKED)
        m.display(OperatorPrompt.INSERT_BOARD, 1, BoardLabel.for_board("A", 1).payload(), "insert board A 1")
        wait_until(m, lambda: board_present(m))  # status does not take events: BoardChanged stays queued
        m.send_command(ScanBoard())
        done = m.deal(JOB, 60.0)  # StartDeal is refused BUSY while scanning, then dealing runs
        assert done.complete
        events = m.pending_events()
        label = BoardLabel.for_board("A", 1).payload().encode()
        assert events == [BoardChanged(1), BoardScanned(ScanResult.OK, 0, label)]
        assert m.pending_events() == []


def test_a_board_prompt_on_the_display_brings_the_board_asked_for() -> None:
    wire = Wire()
    with machine_on(wire=wire) as (m, _):
        label = BoardLabel.for_board("A", 3).payload()
        sent = wire.frames_to_device
        m.display(OperatorPrompt.INSERT_BOARD, 3, label, "insert board A 3")
        assert wire.frames_to_device > sent
        assert m.wait_board(True, 30.0)
        assert m.scan().label.decode() == label


def test_the_display_prompt_is_skipped_on_a_machine_without_a_display() -> None:
    wire = Wire()
    config = SimConfig(seed=1, capabilities=int(DEFAULT_CAPABILITIES & ~Capability.DISPLAY))
    with machine_on(config, wire=wire) as (m, _):
        with pytest.raises(CommandRefused) as caught:  # the machine really has no display
            m.send_command(Display(Prompt.INSERT_BOARD, 3, b"A:3:S2:2", b"insert board A 3"))
        assert caught.value.reason == RefuseReason.UNSUPPORTED
        sent = wire.frames_to_device
        m.display(OperatorPrompt.INSERT_BOARD, 3, BoardLabel.for_board("A", 3).payload(), "insert board A 3")
        assert wire.frames_to_device == sent
        assert m.status().state == MachineState.IDLE



class FaultsToHost:
    """A cable manipulator that passes bytes on and keeps every Fault the machine sends."""

    def __init__(self) -> None:
        self.faults: list[Fault] = []
        self._decoder = FrameDecoder()

    def __call__(self, data: bytes, direction: str) -> list[Chunk]:
        if direction == "to_host":
            for item in self._decoder.feed(data):
                if isinstance(item, Frame) and item.type == MsgType.FAULT:
                    fault = decode_message(item.type, item.payload)
                    assert isinstance(fault, Fault)
                    self.faults.append(fault)
        return [(0.0, data)]


def test_a_fault_of_job_0_noticed_outside_dealing_is_matched_to_no_request() -> None:
    """PROTOCOL.md 7.2: a Fault carrying job 0 concerns the machine, not a board; the host waiting for the
    end of dealing job 7 takes the DealDone of job 7, not the job-0 Fault that came first."""
    wire = FaultsToHost()
    with machine_on(wire=wire) as (m, loop):
        m.load(JOB, 1, PACKED)
        assert board_asked_for(m)
        m.read_board()
        assert m.start_deal(JOB)
        device = loop.device
        device.schedule.at(m.clock() + 0.5, lambda t: device.emit(Fault(FaultCode.DOOR_OPEN, 0, 0, 0, 0), t))
        done = m.wait_dealt(JOB, 60.0)
        assert (done.job, done.complete, done.cards_dealt) == (JOB, True, 52)
        assert device.link.idle  # the job-0 Fault was received and acknowledged
    assert [(f.code, f.job) for f in wire.faults] == [(FaultCode.DOOR_OPEN, 0)]


@pytest.mark.parametrize("sensor", [True, False], ids=["board-sensor", "no-board-sensor"])
def test_eject_returns_once_the_machine_shows_the_ejection_over(sensor: bool) -> None:
    """PROTOCOL.md 4.7: Eject raises no event; the ejection is over when Status shows activity NONE, on a
    machine with a board sensor or without one."""
    caps = DEFAULT_CAPABILITIES if sensor else DEFAULT_CAPABILITIES & ~Capability.BOARD_SENSOR
    with machine_on(SimConfig(seed=1, capabilities=int(caps))) as (m, loop):
        m.load(JOB, 1, PACKED)
        assert board_asked_for(m)
        assert loop.device.room.board_present
        m.eject()
        assert loop.device.firmware.activity is Activity.NONE and not loop.device.room.board_present
        assert not m.status().busy


def test_a_recount_report_held_back_over_a_hello_never_answers_a_later_recount_of_the_same_job() -> None:
    """PROTOCOL.md 7.2, recounts of one job: a Recount's report is held back, behind an event of the
    machine's, while the line carries nothing; a card goes into the board meanwhile. After the give-up and
    the new Hello, the held report (empty pockets) arrives first and is dropped: the Recount of the same
    job sent afterwards is answered by the recount that finds the card."""
    wire = ReportsToHost()
    with machine_on(wire=wire) as (m, loop):
        m.load(JOB, 1, PACKED)
        assert board_asked_for(m)
        assert m.read_board().present
        device = loop.device
        wire.mute = True  # nothing reaches the host: the Recount's Ack and its report wait at the machine
        device.schedule.at(m.clock() + 0.1, lambda t: device.emit(Fault(FaultCode.DOOR_OPEN, 0, 0, 0, 0), t))
        with pytest.raises(MachineSilent):
            m.recount(JOB)
        held = device.link.pending
        assert isinstance(held, Fault) and not device.link.idle  # the held RecountReport waits behind it
        slot = device.room.slot
        assert slot is not None and slot.turns == 0 and slot.board.card_count == 0
        board = slot.board
        board.pockets[2].append(Card(0, "stray"))  # the spade ace put into South's pocket meanwhile
        wire.mute = False
        report = m.recount(JOB)
        assert report is not None and [len(p.cards) for p in report.pockets] == [0, 0, 1, 0]
        assert report.pockets[2].cards == (0,)
    assert wire.recounts == [(JOB, [0, 0, 0, 0]), (JOB, [0, 0, 1, 0])]  # the held report came, and was dropped


class ReportsToHost(Wire):
    """A `Wire` that also keeps the job and pocket counts of every RecountReport that reaches the host."""

    def __init__(self) -> None:
        super().__init__()
        self.recounts: list[tuple[int, list[int]]] = []
        self._decoder = FrameDecoder()

    def __call__(self, data: bytes, direction: str) -> list[Chunk]:
        passed = super().__call__(data, direction)
        for item in self._decoder.feed(data) if direction == "to_host" and passed else []:
            if isinstance(item, Frame) and item.type == MsgType.RECOUNT_REPORT:
                report = decode_message(item.type, item.payload)
                assert isinstance(report, RecountReport)
                self.recounts.append((report.job, [len(p.cards) + p.unidentified for p in report.pockets]))
        return passed
