"""The device side: a simulated duplicate-bridge dealing machine, written independently of the host.

It shares only `firmware_protocol` (and the pure `dealer.core.boards` for board labels) with the host, so a
host driver is tested against a machine, not against itself. It is also what a new user runs before
they have hardware, and what a firmware engineer compares a real machine against.

Modules (each owns one thing):

* `config`: `SimConfig` (speed, seed, rack, fault plan, timing, identity), also from a ``sim://`` URL.
* `physical`, `room`: cards, packs, boards (they keep their cards outside the machine), the rack, the
  ledger of every dealing; the machine's hopper, card path, slot and door.
* `model`, `dealing`: the firmware (PROTOCOL.md section 6) and the card path; pure, time passed in.
* `operator`: who inserts which board, what they do when the host prompts (`Display`), their mistakes.
* `fault_plan`, `bytefaults`: declarative fault plans; byte faults applied on the line.
* `device`: all of it behind a device-role `Link`: ``receive(bytes, now)``, ``poll(now)``,
  ``data_to_send()``, ``next_deadline()``.
* `loopback`: an in-memory cable with a pyserial-like host end, in virtual time by default.
* `wire_record`: the LoadDeals the host wrote and the machine accepted, for a noisy line's checks.
* `record`: the physical record (the ledger as JSON, hands as PBN) kept in a file, for checking a run
  without importing anything of this project.
* `pty_sim`: the machine on a pseudo-terminal, for real pyserial; `cli`: ``python -m hil``, ``dealer sim``.
* `scenarios`: named fault plans with their expected outcome; `pytest_plugin`: ``--machine-port``.
* `bench`: the machine and the protocol's links on a fake clock, no I/O (`DeviceBench`,
  `one_board_exchange`), for the simulator's tests and the benchmarks alike.

For a host's ``sim://`` URLs (``dealer.dealing.transport``)::

    sim://?speed=100&seed=7&set=RED&boards=1-32&copies=2&faults=plan.json&link=/tmp/dealer-sim
           &keeps_job=1&boot_noise=1&ledger=record.json&noise=0.05   (every key optional)

    import hil
    sim = hil.open_sim(url)              # a started PtySimulator (SimConfig.from_url, then start())
    port = serial.serial_for_url(sim.path, baudrate=115200, timeout=0.05, exclusive=True)
    ...                                  # on a disconnection, reopen sim.path (the link if given)
    port.close(); sim.stop()             # stop() joins the thread and closes every fd

or, without a pty (tests, or a platform without one): ``loop = hil.Loopback(SimConfig.from_url(url))``,
``port = loop.open()`` (read the time from ``port.clock``), ``loop.close()``.

What the simulated operator does (a host should prompt with `Display`): INSERT_BOARD puts in the board
named by the label (or number), taking out any other; it does nothing if that board is in already.
REMOVE_BOARD takes the board out; EMPTY_BOARD takes it out (or takes the board named, else the last
one ejected), empties it and puts it in; CLEAR_PATH
clears a jam or a held card and closes the door; FIX_PACK puts back missing cards. With no prompt the
operator inserts the board whose deal is loaded (by its number), else the next empty board of the
rack. With no ``set`` the rack is open: set A, and any board the host asks for by label is fetched.
After a Fault, a host waits for the operator by retrying StartDeal (refused with FAULT_PRESENT until the
cause is gone); after a prompt that moves a board, it waits for BoardChanged or polls Status. The machine
deals only into a board whose label it read since the board went in (StartDeal is refused NOT_SCANNED
otherwise, also after a restart), and its reader reports how the board lies (BoardScanned.turns; a board
turned with its label facing away is NO_READ).

What puts each machine fault right on the simulator (the prompt a host sends, then StartDeal again):
JAM, UNREADABLE_CARD, FOREIGN_CARD, DUPLICATE_CARD, DOOR_OPEN: CLEAR_PATH. EMPTY_HOPPER: FIX_PACK.
BOARD_REMOVED: the operator puts the board back by themselves (INSERT_BOARD also does); scan it again.
MISFEED (not resumable): Abort, EMPTY_BOARD, then load and deal the same deal again. POWER_LOSS: resume
(a machine with KEEPS_JOB_OVER_POWER_LOSS), else EMPTY_BOARD and redeal. A board refused by its
label (F8): REMOVE_BOARD or Eject, then INSERT_BOARD; a dirty label is wiped as the board goes back in,
a board marked against Law 2 is replaced by a spare when the right label is asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hil.config import SimConfig, Timing
from hil.device import SimDevice, Unplug
from hil.fault_plan import FaultKind, FaultPlan, FaultPlanError, FaultSpec
from hil.loopback import Loopback, LoopbackPort, VirtualClock, open_loopbacks
from hil.scenarios import CAPABILITIES, SCENARIOS, Expect, Scenario

if TYPE_CHECKING:
    from hil.pty_sim import PtySimulator

__all__ = [
    "CAPABILITIES", "SCENARIOS", "Expect", "FaultKind", "FaultPlan", "FaultSpec", "Loopback", "LoopbackPort",
    "FaultPlanError", "PtySimulator", "Scenario", "SimConfig", "SimDevice", "Timing", "Unplug", "VirtualClock",
    "open_loopbacks", "open_sim",
]


def open_sim(url_or_config: str | SimConfig) -> PtySimulator:
    """A started `PtySimulator` for a ``sim://`` URL or a `SimConfig` (POSIX only)."""
    from hil.pty_sim import PtySimulator

    config = SimConfig.from_url(url_or_config) if isinstance(url_or_config, str) else url_or_config
    sim = PtySimulator(config)
    sim.start()
    return sim


def __getattr__(name: str) -> Any:
    if name == "PtySimulator":  # imported on demand: it needs a POSIX pty
        from hil.pty_sim import PtySimulator

        return PtySimulator
    raise AttributeError(f"module 'hil' has no attribute {name!r}")
