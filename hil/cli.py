"""`python -m hil` and `dealer sim`: serve a simulated dealing machine until stopped, on a pseudo-terminal
(Linux, macOS) or, with ``--tcp [PORT]``, on a local TCP port (``socket://127.0.0.1:PORT``, any system).

With ``--ledger FILE`` the machine's physical record (`hil.record`) is kept in FILE. The first line on
standard output is what a host opens (the stable symlink, or with ``--tcp`` the ``socket://`` URL), alone on
its line; the rest goes to stderr.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from gettext import gettext as _
from gettext import ngettext
from typing import TYPE_CHECKING, TextIO

from hil.config import DEFAULT_SET, SimConfig, SimConfigError, format_boards
from hil.words import N_, os_reason

if TYPE_CHECKING:
    from hil.served import ServedMachine

DESCRIPTION = N_("Serve a simulated duplicate-bridge dealing machine on a pseudo-terminal (Linux, macOS) or, with "
               "--tcp, on a local TCP port (any system). A host opens the printed port with pyserial as it "
               "would a USB port.")


class Signalled:
    """The stopping signals that have come, as a signal handler records them: appending to a list takes no
    lock (a `threading.Event` set from a handler deadlocks when the signal lands while the same thread holds
    the event's own lock, inside its `wait`)."""

    def __init__(self) -> None:
        self.signals: list[int] = []

    def handler(self, signum: int, frame: object) -> None:
        self.signals.append(signum)

    def wait(self, seconds: float) -> bool:
        """Sleep `seconds` (a signal does not cut the sleep short); whether a signal has come."""
        if not self.signals:
            time.sleep(seconds)
        return bool(self.signals)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The simulator's options, shared by `python -m hil` and `dealer sim`."""
    parser.add_argument("--faults", metavar="PLAN",
                        help=_("fault plan file (JSON: the faults to make, each a kind and where; the example "
                             "below, and docs/simulator.md)"))
    parser.add_argument("--speed", type=float, default=1.0, metavar="X",
                        help=_("run the machine X times faster than real (default 1: about 16 s a board)"))
    parser.add_argument("--set", dest="set_name", metavar="NAME",
                        help=_("the operator's board set (default: set {set}, and any board the host asks for is "
                               "fetched)").format(set=DEFAULT_SET))
    parser.add_argument("--boards", metavar="RANGE", help=_("board numbers in the rack, e.g. 1-32 (default 1-36)"))
    parser.add_argument("--copies", type=int, default=1, metavar="N", help=_("copies of each board in the rack"))
    parser.add_argument("--seed", type=int, default=0, help=_("seed of every random choice (default 0)"))
    parser.add_argument("--tcp", nargs="?", type=_port_number, const=0, default=None, metavar="PORT",
                        help=_("serve on TCP port PORT of 127.0.0.1 (default: one that is free), opened as "
                             "socket://127.0.0.1:PORT; the way on Windows, which has no pseudo-terminal"))
    parser.add_argument("--link", metavar="PATH",
                        help=_("stable symlink to the current pty (default: dealer-sim-PID in the temp folder)"))
    parser.add_argument("--keeps-job", action="store_true",
                        help=_("announce KEEPS_JOB_OVER_POWER_LOSS: a power loss keeps the job"))
    parser.add_argument("--reader", choices=("north", "edges"), default="north",
                        help=_("the label reader: north (one, at the machine's North side: a turned board is not "
                             "read; the default) or edges (every side: a turned board's turn is reported)"))
    parser.add_argument("--boot-noise", action="store_true", help=_("write a line of text before the first frame"))
    parser.add_argument("--noise", type=float, default=0.0, metavar="SHARE",
                        help=_("damage this share of the bytes on the line, both ways (half dropped, half replaced), "
                             "e.g. 0.05; default 0: a clean line"))
    parser.add_argument("--ledger", metavar="FILE",
                        help=_("keep the physical record in FILE (JSON: every dealing and what every board holds, "
                             "as PBN deals), written after every board and when the machine stops"))


def _port_number(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(_("{text} is not a TCP port number (0 to 65535; 0: one that is free)").format(
            text=repr(text)))
    return port


def config_from_args(args: argparse.Namespace) -> SimConfig:
    link = args.link or os.path.join(tempfile.gettempdir(), f"dealer-sim-{os.getpid()}")
    return SimConfig.from_options(speed=args.speed, seed=args.seed, set_name=args.set_name, boards=args.boards,
                                  copies=args.copies, faults=args.faults, link=link, keeps_job=args.keeps_job,
                                  boot_noise=args.boot_noise, ledger=args.ledger, noise=args.noise,
                                  line="tcp" if args.tcp is not None else None,
                                  reads_every_edge=args.reader == "edges")


def serve(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None,
          on_ready: Callable[[str], None] | None = None) -> int:
    """Run the simulator until SIGTERM or SIGINT (Ctrl-C), which stop the machine cleanly: the thread is
    joined, the pty or port closed and the symlink removed. Tells `on_ready` the port path, then prints it
    first."""
    out, err = out or sys.stdout, err or sys.stderr
    config = config_from_args(args)
    sim: ServedMachine
    if args.tcp is not None:
        from hil.tcp_sim import TcpSimulator

        sim = TcpSimulator(config, port=args.tcp)
    else:
        if sys.platform == "win32":
            raise SimConfigError(_("Windows has no pseudo-terminal: serve the machine on a TCP port with --tcp"))
        if os.path.lexists(str(config.link)) and not os.path.islink(str(config.link)):
            raise SimConfigError(_("--link {link}: a file of that name exists and is not a symlink").format(
                link=config.link))
        from hil.pty_sim import PtySimulator  # Linux and macOS: imported when the simulator runs

        sim = PtySimulator(config)
    stop = Signalled()
    previous = {sig: signal.signal(sig, stop.handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        try:
            path = sim.start()
        except OSError as exc:
            if args.tcp is not None:
                raise SimConfigError(_("--tcp {port}: cannot listen on {where}: {reason}").format(
                    port=args.tcp, where=sim.where, reason=os_reason(exc))) from None
            raise
        if on_ready is not None:  # before the port is printed: whoever reads it finds the machine registered
            on_ready(path)
        print(path, file=out, flush=True)
        rack = (_("set {set} boards {boards}") if config.set_name else _("set {set} boards {boards}, open")).format(
            set=config.rack_set, boards=_range(config.boards))
        planned = len(config.faults.faults)
        print(ngettext("dealer sim: machine on {where}; speed {speed:g}; rack {rack}; {count} faults planned; stop "
                       "with Ctrl-C",  # English: one form, as ever
                       "dealer sim: machine on {where}; speed {speed:g}; rack {rack}; {count} faults planned; stop "
                       "with Ctrl-C", planned).format(where=sim.where, speed=config.speed, rack=rack, count=planned),
              file=err, flush=True)
        _watch(sim, stop, err)
    finally:
        sim.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print(_("dealer sim: stopped"), file=err, flush=True)
    return 0


def _watch(sim: ServedMachine, stop: Signalled, err: TextIO) -> None:
    """Wait for a signal, reporting each fault as it fires (and the last ones once stopped), in the language
    spoken (`FaultEngine.said`, `ByteFaults.said`)."""
    shown = (0, 0)
    while not stop.wait(0.2) and sim.error is None:
        shown = _report_faults(sim, shown, err)
    _report_faults(sim, shown, err)


def _report_faults(sim: ServedMachine, shown: tuple[int, int], err: TextIO) -> tuple[int, int]:
    assert sim.device is not None
    with sim.lock:
        device_log, byte_log = list(sim.device.engine.said), list(sim.byte_faults.said)
    for line in device_log[shown[0]:] + byte_log[shown[1]:]:
        print(_("dealer sim: fault: {fault}").format(fault=line), file=err, flush=True)
    return len(device_log), len(byte_log)


def _range(boards: Sequence[int]) -> str:
    return format_boards(list(boards))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hil", description=_(DESCRIPTION))
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return serve(args)
    except SimConfigError as exc:
        print(_("hil: error: {message}").format(message=exc), file=sys.stderr)
        return 2
    except OSError as exc:
        said = os_reason(exc) if exc.filename is None else f"{exc.filename}: {os_reason(exc)}"
        print(_("hil: error: {message}").format(message=said), file=sys.stderr)
        return 1
