"""`dealer ports`: the serial ports present, and which of them answer as dealing machines."""

from __future__ import annotations

import argparse
import errno
import sys
import textwrap
from typing import Any

from dealer.core.errors import DealerError, DeviceDisconnected, DeviceTimeout, PortInUse
from dealer.language import N_, _, listed

EPILOG = N_("""examples:
  dealer ports                      list the serial ports (device, description, USB maker, serial number)
                                    and the simulated machines each running dealer sim serves
  dealer ports --probe              ... and ask each whether a dealing machine answers on it
  dealer ports --probe sim://       probe a port by name or URL (here the built-in simulated machine)

Copy the device of the machine (e.g. /dev/ttyUSB0 or COM3) into dealer deal --port. A port named
that cannot be opened (not there) ends the command with exit code 5, once every port is probed.
--probe sends a handshake to every port listed: use it when no other serial device (a modem, a
programmer) would mind a few bytes it does not understand.""")


CAPABILITIES = {"BARCODE_READER": N_("barcode reader"), "CARD_RECOUNT": N_("card recount"),
                "BOARD_SENSOR": N_("board sensor"), "DOOR_SENSOR": N_("door sensor"), "EJECT": N_("board eject"),
                "RESUME_AFTER_FAULT": N_("resume after a fault"),
                "KEEPS_JOB_OVER_POWER_LOSS": N_("keeps its job over a power cut"), "DISPLAY": N_("display")}
"""A machine's capabilities (firmware_protocol.codes.Capability) as `dealer ports --probe` says them."""


def capabilities_said(names: frozenset[str]) -> str:
    """A machine's capabilities in the language spoken, in the protocol's order of names (a name this dealer
    does not know in its own words)."""
    return listed(_(CAPABILITIES[name]) if name in CAPABILITIES else name.lower().replace("_", " ")
                  for name in sorted(names - {"SIMULATED"}))


def register(sub: Any) -> None:
    p = sub.add_parser("ports", help=_("list the serial ports and find the dealing machines on them"),
                       description=textwrap.fill(
                           _("List the serial ports of this computer; with --probe, say which of them answer as "
                             "dealing machines (serial number, firmware, protocol version)."), 100),
                       epilog=_(EPILOG), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("urls", nargs="*", metavar="PORT",
                   help=_("ports or pyserial URLs to probe as well as (with --probe) or instead of the list"))
    p.add_argument("--probe", action="store_true", help=_("ask each port whether a dealing machine answers"))
    p.add_argument("--timeout", type=float, default=3.0, metavar="SECONDS",
                   help=_("how long to wait for a machine's answer on each port (default 3)"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dealer.dealing.ports import running_sims
    from dealer.dealing.transport import list_ports

    if not args.timeout > 0:
        from dealer.core.errors import UsageError

        raise UsageError(_("--timeout {timeout:g}: give a number of seconds above 0").format(timeout=args.timeout))
    present = list_ports()
    sims = running_sims()
    out = sys.stdout
    if not present and not sims and not args.urls:
        print(_("no serial ports found"), file=out)
    for port in present:
        said = [port.description or _("serial port"),
                _("made by {maker}").format(maker=port.maker) if port.maker else "",
                _("serial number {number}").format(number=port.serial_number) if port.serial_number else "",
                f"USB {port.usb_id}" if port.usb_id else ""]
        print(f"{port.device}: " + "; ".join(part for part in said if part), file=out)
    for sim in sims:
        print(_("{port}: a simulated machine (dealer sim)").format(port=sim), file=out)
    if not (args.probe or args.urls):
        return 0
    known = [p.device for p in present] + sims if args.probe else []
    targets = list(dict.fromkeys(known + list(args.urls)))
    if targets:
        print("", file=out)
    missing: list[str] = []
    for url in targets:
        line, opened = probe(url, args.timeout)
        print(f"{url}: {line}", file=out, flush=True)
        if not opened and url in args.urls:
            missing.append(url)
    if missing:
        raise DeviceDisconnected(_("{ports}: cannot be opened (see above); dealer ports lists the ports this computer "
                                   "has").format(ports=listed(missing)))
    return 0


def probe(url: str, timeout: float) -> tuple[str, bool]:
    """One line saying what answers on `url`, and whether the port could be opened at all."""
    from dealer.dealing.machine import Machine

    machine = Machine(url, reconnect_timeout=0.0)
    try:
        who = machine.connect(timeout=timeout)
    except DeviceTimeout:
        return _("no dealing machine answered within {timeout:g} s").format(timeout=timeout), True
    except PortInUse as exc:  # something may well be there: another program has it open
        return str(exc).removeprefix(url + ": "), False
    except DeviceDisconnected as exc:
        if getattr(exc.__context__, "errno", None) in (errno.EAGAIN, errno.EBUSY):  # held: a controller dealing
            return _("in use by another program (a controller dealing on it, say): not looked at"), False
        return _("not a dealing machine here: {why}").format(why=str(exc).removeprefix(url + ": ")), False
    except DealerError as exc:
        return _("not a dealing machine here: {why}").format(why=str(exc).removeprefix(url + ": ")), True
    finally:
        machine.close()
    caps = capabilities_said(who.capabilities)
    said = (_("simulated dealing machine (practice) {serial}, firmware {firmware}, protocol {protocol}, {pockets} "
              "pockets; {capabilities}") if who.simulated
            else _("dealing machine {serial}, firmware {firmware}, protocol {protocol}, {pockets} pockets; "
                   "{capabilities}"))
    return said.format(serial=who.serial, firmware=who.firmware, protocol=who.protocol_version, pockets=who.pockets,
                       capabilities=caps), True
