"""Bench runbook: the simulator's scenarios, run unchanged against a real dealing machine.

Every scenario of `hil.scenarios.SCENARIOS` runs here through the same script-level host
(`tests/support/script_host.py`) as against the simulator, and is checked against the same expectation, loosely:
the machine must report at least the faults expected, and every board must end verified. Without
``--machine-port`` every test here is skipped; a scenario the rig is not prepared for is skipped
with the reason.

The command::

    pytest -m hardware tests/hardware --machine-port /dev/ttyUSB0 --machine-set A \\
        --machine-needs byte_faults,jam,wrong_board,rotated_board,power_loss,unplug

``--machine-port`` takes any pyserial URL: ``/dev/ttyUSB0``, ``COM3``, ``rfc2217://bench-pi:4001`` for a
machine on a serial server. ``--machine-needs all`` declares every capability. To rehearse the run
with no machine, serve the simulator (``dealer sim --speed 20``) and give its printed path as the port:
the scenarios needing nothing pass, the others are skipped.

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
  * byte_faults: nothing on the rig: the test host applies the plan's byte faults around the port.
  * jam: a slightly bent card about 20th from the bottom of the pack for board 2.
  * unreadable_card: a card with its index covered by tape, 9th from the bottom for board 1; the
    operator peels the tape when told to clear the card path.
  * recount_misread: the same taped card, placed by hand into board 1's pockets after dealing.
  * misfeed, double_feed: only if the machine has a service mode that forces them; else leave out.
  * card_falls: take a card out of board 2's pocket by hand before the recount.
  * foreign_card: a card with another back design in place of the 9th card for board 1 (keep the
    card it replaced at hand: the operator puts it back when told the pack is short).
  * duplicate_card: a second copy of the first card of board 1's pack as its 9th card.
  * empty_hopper: board 1's pack with its last 13 cards held back, put back when told.
  * door: open the cover briefly while board 1 is being dealt.
  * wrong_board: insert board 3 when the display asks for board 2 (the first time).
  * rotated_board: insert board 2 turned round the first time.
  * dirty_label: cover board 2's label with a sticky note; remove it when told to take the board out.
  * bad_label: a board 3 whose label marks the wrong dealer (print the payload of
    ``BoardLabel("A", 3, 1, Vulnerability.EW).payload()``), and a correctly labelled spare board 3.
  * board_removed: pull board 2 out about halfway through its dealing and put it back.
  * power_loss: switch the machine off about halfway through board 2, and on again.
  * keeps_job: only for a machine announcing KEEPS_JOB_OVER_POWER_LOSS; as power_loss.
  * unplug: pull the USB cable about halfway through board 2, and plug it back within a second.
"""

from __future__ import annotations

import time

import pytest

from hil.pytest_plugin import require_capabilities
from hil.scenarios import SCENARIOS, Scenario
from tests.support.faulty_port import FaultyPort
from tests.support.script_host import Port, ScriptHost, summary

pytestmark = pytest.mark.hardware


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_scenario_on_the_machine(scenario: Scenario, machine_port: str, machine_needs: frozenset[str],
                                 machine_set: str) -> None:
    require_capabilities(scenario, machine_needs)
    serial = pytest.importorskip("serial")

    def connect() -> Port:
        port: Port = serial.serial_for_url(machine_port, baudrate=115200, timeout=0.02)
        return FaultyPort(port, scenario.plan, time.monotonic) if "byte_faults" in scenario.needs else port

    host = ScriptHost(connect, time.monotonic, time.sleep, set_name=machine_set, patience=120.0)
    seen = summary(host.run(list(scenario.boards)))
    assert scenario.expect.mismatches(seen, len(scenario.boards), exact=False) == [], seen
