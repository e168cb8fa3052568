"""`dealer sim`: serve the built-in simulated dealing machine on a pseudo-terminal or a local TCP port (see
`hil.cli`), or with ``--firmware FILE.elf`` the C machine's firmware under QEMU (`hil.qemu`)."""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

from dealer.cli.teaching import teach
from dealer.core.errors import FormatError, UsageError
from dealer.language import _
from hil import cli as hil_cli
from hil.config import FaultPlanFileError, SimConfigError


def register(sub: Any) -> None:
    p = sub.add_parser("sim", help=_("serve a simulated dealing machine (a pseudo-terminal, or --tcp)"),
                       description=_(hil_cli.DESCRIPTION))
    hil_cli.add_arguments(p)
    p.add_argument("--firmware", metavar="FILE.elf",
                   help=_("run this firmware image of the C machine (make -C firmware_protocol/c firmware) under "
                        "QEMU's microbit board instead of the built-in machine; --set, --boards and --link apply"))
    p.add_argument("--firmware-fault", action="append", default=[], metavar="KIND=BOARD:CARD",
                   help=_("with --firmware: a fault of the firmware's machine, once: jam, misfeed, power-cut, "
                        "silence (=BOARD:CARD:MS) or turn (=BOARD:K); repeat for more"))
    # the options are the simulator's own (hil.cli); the seed's placeholder says what it is here
    for action in p._actions:
        if action.dest == "seed":
            action.metavar = "N"
    teach(p, [("dealer sim --speed 50", _("a machine 50 times faster than real; prints its port")),
              ("dealer sim --faults plan.json --seed 7", _("with the faults of a fault plan")),
              ("dealer sim --tcp 7000 --speed 50", _("on socket://127.0.0.1:7000 (Windows, or any system)")),
              ("dealer sim --firmware build/firmware.elf --set A --boards 1-16", _("the firmware under QEMU")),
              ("dealer deal session.pbn --port PORT", _("then, in another terminal, deal on it"))],
          _("The first line printed is the port to open (a stable link to the pseudo-terminal, or the socket:// URL "
          "with --tcp);\nCtrl-C stops the machine.\nPLAN is a fault plan (JSON), e.g. {\"faults\": [{\"kind\": "
          "\"jam\", \"board\": 2, \"card\": 20}]}; RANGE boards\nlike 1-32; X a speed factor. Inside one process, "
          "sim://?speed=50 starts the same machine as a port."))
    p.set_defaults(func=run)


FIRMWARE_FAULTS = {"jam": ("BOARD:CARD", (9999, 52)), "misfeed": ("BOARD:CARD", (9999, 52)),
                   "power-cut": ("BOARD:CARD", (9999, 52)), "silence": ("BOARD:CARD:MS", (9999, 52, 60000)),
                   "turn": ("BOARD:K", (9999, 3))}
"""The firmware machine's faults: what follows the kind, and the largest value of each part (each at least 1)."""
FIRMWARE_RACK = 32
"""Boards the firmware's rack holds (MACHINE_MAX_BOARDS in firmware_protocol/c/Makefile)."""


def run(args: argparse.Namespace) -> int:
    from dealer.dealing.ports import registered_sim

    if args.firmware is not None:
        return _run_firmware(args)
    if args.firmware_fault:
        raise UsageError(_("--firmware-fault goes with --firmware"))
    try:
        with registered_sim() as register:  # where `dealer ports --probe` finds it while it runs
            return hil_cli.serve(args, on_ready=register)
    except FaultPlanFileError as exc:  # a file that is not a fault plan: as every file refused
        raise FormatError(str(exc)) from None
    except SimConfigError as exc:
        raise UsageError(str(exc)) from None


def _firmware_options(args: argparse.Namespace) -> list[str]:
    """The firmware machine's options from ours (its rack, its faults)."""
    set_name, boards = args.set_name or "A", args.boards or "1-32"
    if not re.fullmatch(r"[A-Z0-9]{1,12}", set_name):
        raise UsageError(_("--set {set}: the firmware's set names are 1 to 12 of A-Z and 0-9").format(set=set_name))
    span = re.fullmatch(r"(\d{1,4})-(\d{1,4})", boards)
    if span is None or not 1 <= int(span[1]) <= int(span[2]) or int(span[2]) - int(span[1]) >= FIRMWARE_RACK:
        raise UsageError(_("--boards {boards}: the firmware's rack takes FIRST-LAST, at most {most} boards, e.g. "
                           "1-16").format(boards=boards, most=FIRMWARE_RACK))
    options = ["--set", set_name, "--boards", boards]
    for fault in args.firmware_fault:
        kind, _equals, where = fault.partition("=")
        if kind not in FIRMWARE_FAULTS:
            raise UsageError(_("--firmware-fault {fault}: the kind is one of {kinds}, e.g. jam=2:20").format(
                fault=fault, kinds=", ".join(FIRMWARE_FAULTS)))
        form, most = FIRMWARE_FAULTS[kind]
        parts = where.split(":")
        if len(parts) != len(most) or not all(p.isdigit() and 1 <= int(p) <= m
                                              for p, m in zip(parts, most, strict=True)):
            limits = ", ".join(f"{name} 1-{m}" for name, m in zip(form.split(":"), most, strict=True))
            raise UsageError(_("--firmware-fault {fault}: wants {kind}={form} ({limits})").format(
                fault=fault, kind=kind, form=form, limits=limits))
        options += [f"--{kind}", where]
    return options


def _run_firmware(args: argparse.Namespace) -> int:
    """The firmware under QEMU until Ctrl-C or SIGTERM; the port first on standard output."""
    from dealer.dealing.ports import registered_sim

    if sys.platform == "win32":
        raise UsageError(_("--firmware: QEMU's serial port is a pseudo-terminal, which Windows has not"))
    from hil.qemu import FirmwareError, FirmwareMachine

    elf = Path(args.firmware)
    if not elf.is_file():
        raise UsageError(_("--firmware {file}: no such file (build it with make -C firmware_protocol/c firmware)")
                         .format(file=elf))
    link = Path(args.link or os.path.join(tempfile.gettempdir(), f"dealer-sim-{os.getpid()}"))
    if link.exists() and not link.is_symlink():
        raise UsageError(_("--link {link}: a file of that name exists and is not a symlink").format(link=link))
    options = _firmware_options(args)
    stop = hil_cli.Signalled()
    previous = {sig: signal.signal(sig, stop.handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        try:
            machine = FirmwareMachine(elf, options, link=link)
        except FirmwareError as exc:
            raise UsageError(f"--firmware {elf}: {exc}") from None
        try:
            print(machine.path, flush=True)
            print(_("dealer sim: firmware {firmware} under QEMU on {pty}; rack set {set} boards {boards}; {faults} "
                    "faults planned; stop with Ctrl-C").format(firmware=elf.name, pty=machine.pty, set=options[1],
                                                               boards=options[3], faults=len(args.firmware_fault)),
                  file=sys.stderr, flush=True)
            with registered_sim() as register:  # where `dealer ports --probe` finds it while it runs
                register(str(machine.path))
                while not stop.wait(0.5) and machine.running():
                    pass
            died = not stop.signals
        finally:
            machine.stop()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if died:
        last = [line.strip() for line in machine.lines if line.strip()][-1:]
        said = (_("dealer sim: QEMU stopped by itself: {line}").format(line=last[0]) if last
                else _("dealer sim: QEMU stopped by itself"))
        print(said, file=sys.stderr, flush=True)
        return 1
    print(_("dealer sim: stopped"), file=sys.stderr, flush=True)
    return 0
