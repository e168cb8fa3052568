"""Bench runbook: the simulator's scenarios, run by the product against a dealing machine.

Every scenario of `hil.scenarios.SCENARIOS` is dealt by the code users run - `dealer.dealing.run`
(`deal_session`: the journal, a `Station` per machine, the `Machine` driver over real pyserial) - and
judged by the journal against the scenario's expectation. With ``--machine-port`` it runs against a real
machine, loosely (the machine must show at least the faults expected); a scenario the rig is not
prepared for, or that needs another machine than the one declared, is skipped with the reason (shown
by ``-rs``). Without ``--machine-port`` the same suite runs on every commit
against the simulator on a pseudo-terminal (`hil.PtySimulator`, the machine `dealer sim` serves),
started by a fixture with the scenario's fault plan: then the expectation must hold exactly, and the
simulator's ledger - what physically happened - must agree with the journal.

The command for a real machine::

    pytest tests/hardware -rs --machine-port /dev/ttyUSB0 --machine-set A \\
        --machine-capabilities reader_north,board_sensor \\
        --machine-needs byte_faults,jam,wrong_board,rotated_board,power_loss,unplug

``--machine-port`` takes any pyserial URL: ``/dev/ttyUSB0``, ``COM3``, ``rfc2217://bench-pi:4001`` for a
machine on a serial server. ``--machine-needs all`` declares every capability. To rehearse with no
machine, serve the simulator (``dealer sim --speed 20``) and give its printed path as the port: the
scenarios needing nothing pass, the others are skipped. ``--independent-device`` runs every scenario
against the machine written from PROTOCOL.md alone (``tests/support/independent_device``), prepared
for each scenario as this runbook says (its ``rigs.py``).

What the machine is (``--machine-capabilities``, default ``reader_north,board_sensor``)
  Each scenario declares what it needs of the machine with a ``machine`` marker
  (`hil.scenarios.MACHINE_CAPABILITIES`); a real machine that is not so is skipped with the reason.
  * reader_north: one label reader, at the machine's North side. A board put in turned is then not
    read (NO_READ): the scenarios ``rotated_board``, ``turned_unread`` and ``clumsy_operator`` expect that (F8).
  * reader_edges: a reader on every side (or one that sees every side), reporting the turn
    (PROTOCOL.md 12.1). The scenario ``turned_readable`` runs on it and expects the turn (F6). Name
    exactly one of the two readers.
  * board_sensor: the machine announces BOARD_SENSOR (``board_removed``, ``swap_after_check``).
  * keeps_job: the machine announces KEEPS_JOB_OVER_POWER_LOSS (``power_loss_kept_job``).
  Without ``--machine-port`` each scenario's simulated machine is built as it declares.

Machine and cable
  * Firmware speaking PROTOCOL.md version 1 (the HelloAck's schema hash must match; the run stops at
    the handshake otherwise). 115200 baud, 8N1, no flow control. A direct USB cable: no hub that
    powers down, no other program holding the port (the port is opened exclusively).
  * The machine's own settings: dealing from its hopper with card recognition on, recount enabled,
    board sensor and barcode reader enabled; automatic dealing when a board is inserted OFF (the host
    starts every dealing).

Boards and cards
  * A set of boards of set ``--machine-set`` (default A), boards 1 to 8, each with its Code 128 label
    (``dealer labels --set A --boards 1-8 -o labels.pdf``), empty before each scenario. Scenarios use
    boards 1-3 (``clean`` 1-4, ``clumsy_operator`` 1-8).
  * A fresh shuffled pack in the hopper for every board (the machine's operator does this; the
    simulator does it by itself).
  * The operator watches the machine's display and does what it says: insert board N, take it out,
    empty it, clear the card path, put back missing cards.

Preparing each capability (then list it in ``--machine-needs``)
  * byte_faults: nothing on the rig: the test applies the plan's byte faults around the port.
  * jam: a slightly bent card about 20th from the bottom of the pack for board 2.
  * unreadable_card: a card with its index covered by tape, 9th from the bottom for board 1; the
    operator peels the tape when told to clear the card path.
  * recount_misread: the same taped card, placed by hand into board 1's pockets after dealing.
  * misfeed, double_feed, swapped_cards: only if the machine has a service mode that forces them.
  * card_falls: take a card out of board 2's pocket by hand before the recount.
  * foreign_card: a card with another back design in place of the 9th card for board 1 (keep the
    card it replaced at hand: the operator puts it back when told the pack is short).
  * duplicate_card: a second copy of the first card of board 1's pack as its 9th card.
  * empty_hopper: board 1's pack with its last 13 cards held back, put back when told.
  * door: open the cover briefly while board 1 is being dealt.
  * wrong_board: insert board 3 when the display asks for board 2 (the first time).
  * rotated_board: insert board 2 turned round the first time.
  * turned_unread: as turned_readable, on a machine with ``reader_north``.
  * turned_readable: insert board 2 a quarter turn anticlockwise the first time (its North edge, with
    the label, towards the machine's West), on a machine with ``reader_edges``.
  * dirty_label: cover board 2's label with a sticky note; remove it when told to take the board out.
  * damaged_label: cover board 2's label for the whole scenario (it is left to the director).
  * bad_label: a board 3 whose label marks the wrong dealer (print the payload of
    ``BoardLabel("A", 3, 1, Vulnerability.EW).payload()``), and a correctly labelled spare board 3.
  * leftover_cards: three cards in board 2 before the scenario (``already_dealt``: a whole deal).
  * swap_board: as soon as board 2's label is read, take it out and put board 3 in.
  * board_removed: pull board 2 out about halfway through its dealing and put it back.
  * power_loss: switch the machine off about halfway through board 2, and on again.
  * keeps_job: only for a machine announcing KEEPS_JOB_OVER_POWER_LOSS; as power_loss.
  * unplug: pull the USB cable about halfway through board 2, and plug it back within a second.
  * firmware_faults: only with a test build of the firmware that misreports as the scenario says.
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from dealer.core.errors import DeviceDisconnected
from dealer.dealing.context import RunLimits
from dealer.dealing.machine import Machine
from dealer.dealing.run import RunOptions, deal_session
from dealer.dealing.transport import SerialTransport, Transport
from hil import PtySimulator
from hil.pytest_plugin import require_capabilities, require_machine
from hil.scenarios import SCENARIOS, Scenario
from tests.support.controllers import ledger_story
from tests.support.faulty_port import FaultyPort
from tests.support.loopback_run import deals_for
from tests.support.physical_truth import check_physical_truth
from tests.support.scenario_view import expectation_view, journal_view

pytestmark = pytest.mark.hardware

SIM_SPEED = 400.0
"""The simulated machine runs 400 times faster than a real one (about 40 ms a board)."""


@dataclass
class Rig:
    """The machine a scenario runs on: its port, and the simulator behind it when there is no real one."""

    port: str
    sim: PtySimulator | None


@pytest.fixture(params=[pytest.param(s, id=s.name, marks=pytest.mark.machine(*sorted(s.machine)))
                        for s in SCENARIOS])
def scenario(request: pytest.FixtureRequest) -> Scenario:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def rig(scenario: Scenario, machine_port: str | None, machine_needs: frozenset[str],
        machine_capabilities: frozenset[str], request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Rig]:
    """The real machine at --machine-port, or the scenario's simulated machine on a pseudo-terminal (at a
    stable link, as `dealer sim` serves it: a cable pulled and plugged back gets a new pty behind it), built
    as the scenario's `machine` marker says."""
    marker = request.node.get_closest_marker("machine")
    assert marker is not None and frozenset(marker.args) == scenario.machine
    if machine_port is not None:
        require_capabilities(scenario, machine_needs)
        require_machine(scenario, machine_capabilities)
        yield Rig(machine_port, None)
        return
    with PtySimulator(scenario.sim_config(seed=3, speed=SIM_SPEED), link=tmp_path / "machine") as sim:
        yield Rig(sim.path, sim)


def noisy_opener(scenario: Scenario) -> object:
    """For a real machine: the scenario's byte faults applied around the host's port (no proxy)."""
    import serial

    def opener(url: str) -> Transport:
        try:
            port = serial.serial_for_url(url, baudrate=115200, timeout=0.05, exclusive="://" not in url or None)
        except (serial.SerialException, OSError) as exc:
            raise DeviceDisconnected(f"{url}: cannot open the port ({exc})") from exc
        return SerialTransport.wrap(FaultyPort(port, scenario.plan, time.monotonic), url)

    return opener


def test_scenario_on_the_machine(scenario: Scenario, rig: Rig, machine_set: str, tmp_path: Path) -> None:
    deals = deals_for(scenario.boards)
    machines: list[Machine] = []
    real_noise = rig.sim is None and "byte_faults" in scenario.needs

    def factory(url: str) -> Machine:
        machine = Machine(url, opener=noisy_opener(scenario)) if real_noise else Machine(url)  # type: ignore[arg-type]
        machines.append(machine)
        return machine

    out = io.StringIO()
    options = RunOptions(ports=[rig.port], journal=tmp_path / "bench.journal", set_name=machine_set, out=out,
                         machine_factory=factory,
                         limits=RunLimits(board_timeout=120 if rig.sim is None else 30, deal_timeout=120))
    result = deal_session(deals, "bench.pbn", options)
    seen = journal_view(tmp_path / "bench.journal", result.run_id)
    summary, dealt = expectation_view(seen, result.complete, machines)
    told = out.getvalue() + ("" if rig.sim is None else "\n" + ledger_story(rig.sim))
    assert scenario.expect.mismatches(summary, dealt, exact=rig.sim is not None) == [], told
    if rig.sim is not None:
        with rig.sim.lock:
            assert rig.sim.device is not None
            check_physical_truth(rig.sim.device.ledger, rig.sim.device.room.rack, deals,
                                 tmp_path / "bench.journal", result.run_id, machine_set)
