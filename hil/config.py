"""What a simulated machine is: its timing, its rack of boards, its fault plan, its seed and identity.

`SimConfig` is built from keyword arguments, from command-line options (`hil.cli`) or from a ``sim://``
URL (`SimConfig.from_url`), the form a host's transport passes on; `Timing` is machine time at speed 1.
The URL's ``line`` is what the machine is served on: ``pty`` or ``tcp`` (``socket://127.0.0.1:PORT``).
"""

from __future__ import annotations

import itertools
import re
import secrets
from dataclasses import dataclass, field
from gettext import gettext as _
from pathlib import Path
from typing import Final
from urllib.parse import parse_qsl, urlsplit

from firmware_protocol.codes import Capability
from firmware_protocol.labels import MAX_BOARD, valid_set_name
from hil.fault_plan import FaultPlan, FaultPlanError


class SimConfigError(ValueError):
    """A simulated machine that cannot be set up as asked; the message names the option."""


class FaultPlanFileError(SimConfigError):
    """The fault plan file asked for cannot be used (what it holds, or reading it); the message names it."""


DEFAULT_SET: Final = "A"
DEFAULT_BOARDS: Final = tuple(range(1, 37))
DEFAULT_CAPABILITIES: Final = (Capability.BARCODE_READER | Capability.CARD_RECOUNT | Capability.BOARD_SENSOR
                               | Capability.DOOR_SENSOR | Capability.EJECT | Capability.RESUME_AFTER_FAULT
                               | Capability.DISPLAY)


@dataclass(frozen=True)
class Timing:
    """Seconds of machine time at speed 1 for each physical step; `jitter` spreads the operator's times.
    Realistic: about 8 s to deal a board, 4 s to recount it, 16 s a board in all with the operator's swap."""

    scan: float = 0.4
    deal_start: float = 0.6
    card: float = 0.14
    recount_start: float = 0.5
    recount_card: float = 0.07
    eject: float = 0.8
    operator_react: float = 1.0
    operator_swap: float = 3.0
    operator_fix: float = 6.0
    jitter: float = 0.25


MIN_SPEED: Final = 0.01
"""The slowest a simulated machine runs (times a real one): slower, a board would take days."""
MAX_SPEED: Final = 10_000.0
"""The fastest: a board in a few milliseconds."""
MAX_COPIES: Final = 99
"""Copies of each board a simulated rack holds, as many as a run deals at most."""
MAX_DIGITS: Final = 30
"""The most digits of a number in a ``sim://`` option, counted before it is parsed (as `dealer.core.digits`)."""


_MADE = itertools.count()
_PROCESS = secrets.randbits(22)
"""This process's 22 random bits, drawn once: the first part of every serial it makes."""


def new_serial() -> str:
    """``SIM-`` and 8 hexadecimal digits: this process's random bits (22) and a count of the machines it made (10
    bits). Two machines of one process never share one; two processes do one time in about four million."""
    return f"SIM-{_PROCESS << 10 | next(_MADE) & 0x3FF:08X}"


@dataclass(frozen=True)
class SimConfig:
    """Everything that makes one simulated machine. As a URL (every query key optional, unknown keys
    refused)::

        sim://?speed=100&seed=7&set=RED&boards=1-32&copies=2&faults=plan.json&link=/tmp/dealer-sim
              &ledger=record.json&noise=0.05&reader=edges

    `noise` damages that fraction of the bytes on the line, in both directions (half dropped, half
    replaced: `hil.bytefaults.LineNoise`). The times of `Timing` are divided by `speed`.
    """

    speed: float = 1.0
    seed: int = 0
    set_name: str | None = None
    """The rack's board set; None: an open rack of set A that fetches any board asked for."""
    boards: tuple[int, ...] = DEFAULT_BOARDS
    copies: int = 1
    faults: FaultPlan = field(default_factory=FaultPlan)
    timing: Timing = field(default_factory=Timing)
    serial: str | None = None
    """The machine's serial number; None: one of its own (`serial_number`)."""
    own_serial: str = field(default_factory=lambda: new_serial(), compare=False, repr=False)
    """The serial this machine takes when `serial` is None: made when the configuration is, kept by every copy."""

    @property
    def serial_number(self) -> str:
        """The serial number the machine gives in its HelloAck: `serial`, else its own, which no other simulated
        machine alive at the same time shares. The seed makes deals and faults repeatable, never the identity:
        two processes started with one seed are two machines."""
        return self.serial if self.serial is not None else self.own_serial
    capabilities: int = int(DEFAULT_CAPABILITIES)
    keeps_job: bool = False
    """Announce KEEPS_JOB_OVER_POWER_LOSS: after a power loss the job is kept, in FAULT(POWER_LOSS)."""
    reads_every_edge: bool = False
    """A label reader at every side (PROTOCOL.md 12.1): a turned board's label is read and its turn
    reported. False (URL ``reader=north``): one reader, at the machine's North side; a turned board is NO_READ."""
    boot_noise: bool = False
    """Write a line of text before the first frame after power-up, as many boards do."""
    baud: int = 115200
    link: str | None = None
    """Path of the stable symlink a pty simulator keeps pointing at its current port."""
    ledger: str | None = None
    """Path of the JSON file the I/O layer keeps the physical record in (`hil.record`), if any."""
    noise: float = 0.0
    """Fraction of the bytes on the line damaged, in both directions (half dropped, half replaced)."""
    line: str | None = None
    """What the machine is served on: "pty", "tcp", or None for a pty where the system has them, else TCP."""

    def __post_init__(self) -> None:
        if self.line not in LINES:
            raise SimConfigError(_("line must be one of {lines}, got {line}").format(
                lines=", ".join(sorted(x for x in LINES if x)), line=repr(self.line)))
        if not MIN_SPEED <= self.speed <= MAX_SPEED:
            raise SimConfigError(_("simulator speed must be {low:g} to {high:g} (times a real machine's), got "
                                   "{speed:g}").format(low=MIN_SPEED, high=MAX_SPEED, speed=self.speed))
        if not 1 <= self.copies <= MAX_COPIES:
            raise SimConfigError(_("copies must be 1 to {most} (of each board in the rack), got {copies}").format(
                most=MAX_COPIES, copies=self.copies))
        if not 0 <= self.seed < 2**64:
            raise SimConfigError(_("seed must be 0 to 2**64 - 1, got {seed}").format(seed=self.seed))
        if not self.boards:
            raise SimConfigError(_("the simulator's rack needs at least one board"))
        if not 0.0 <= self.noise < 1.0:
            raise SimConfigError(_("noise must be at least 0 and below 1 (a fraction of the bytes), got "
                                   "{noise}").format(noise=self.noise))

    @property
    def rack_set(self) -> str:
        return (self.set_name or DEFAULT_SET).upper()

    @property
    def open_rack(self) -> bool:
        return self.set_name is None

    @property
    def all_capabilities(self) -> int:
        caps = self.capabilities | Capability.SIMULATED  # it deals no cards, and says so
        return caps | Capability.KEEPS_JOB_OVER_POWER_LOSS if self.keeps_job else caps

    def scaled(self, seconds: float) -> float:
        """Machine time at this speed."""
        return seconds / self.speed

    @classmethod
    def from_options(cls, *, speed: float = 1.0, seed: int = 0, set_name: str | None = None,
                     boards: str | None = None, copies: int = 1, faults: str | Path | None = None,
                     link: str | None = None, keeps_job: bool = False, boot_noise: bool = False,
                     ledger: str | None = None, noise: float = 0.0, line: str | None = None,
                     reads_every_edge: bool = False) -> SimConfig:
        """A config from the options of `dealer sim` (board range as text, plan as a file path)."""
        try:
            plan = FaultPlan.load(faults) if faults else FaultPlan()
        except FaultPlanError as exc:
            raise FaultPlanFileError(str(exc)) from None
        numbers = parse_boards(boards) if boards else DEFAULT_BOARDS
        if set_name is not None and not valid_set_name(set_name.upper()):
            raise SimConfigError(_("board set {set}: use 1 to 12 letters (A-Z) and digits").format(set=repr(set_name)))
        if ledger is not None and not Path(ledger).parent.is_dir():
            raise SimConfigError(_("ledger {ledger}: no folder {folder}").format(ledger=ledger,
                                                                                folder=Path(ledger).parent))
        return cls(speed=speed, seed=seed, set_name=set_name, boards=numbers, copies=copies, faults=plan,
                   link=link, keeps_job=keeps_job, boot_noise=boot_noise, ledger=ledger, noise=noise, line=line,
                   reads_every_edge=reads_every_edge)

    @classmethod
    def from_url(cls, url: str) -> SimConfig:
        """A config from a ``sim://`` URL (see the module docstring); raises SimConfigError naming the key."""
        parts = urlsplit(url)
        if parts.scheme != "sim":
            raise SimConfigError(_("{url} is not a sim:// URL").format(url=repr(url)))
        options: dict[str, str] = {}
        for key, value in parse_qsl(parts.query, keep_blank_values=True):
            if key not in _URL_KEYS:
                raise SimConfigError(_("{url}: unknown option {key} (options: {options})").format(
                    url=url, key=repr(key), options=", ".join(sorted(_URL_KEYS))))
            options[key] = value
        reader = options.get("reader", "north")
        if reader not in ("north", "edges"):
            raise SimConfigError(_("{url}: reader must be north (one reader) or edges (every side), got "
                                   "{reader}").format(url=url, reader=repr(reader)))
        def number(key: str, default: float, kind: type[float] | type[int] = float) -> float:
            text = options.get(key) or str(default)
            digits = sum(ch.isdigit() for ch in text)
            if digits > MAX_DIGITS:  # bounded before it is parsed: Python refuses int() of 4,300 digits
                raise ValueError(_("{key}: a number of {count} digits: numbers here have at most {most}").format(
                    key=key, count=digits, most=MAX_DIGITS))
            try:
                return kind(text)
            except ValueError:
                said = (_("{key} must be a whole number, got {text}") if kind is int
                        else _("{key} must be a number, got {text}"))
                raise ValueError(said.format(key=key, text=repr(text))) from None  # the URL is named below

        try:
            return cls.from_options(
                speed=number("speed", 1.0), seed=int(number("seed", 0, int)),
                set_name=options.get("set") or None, boards=options.get("boards") or None,
                copies=int(number("copies", 1, int)), faults=options.get("faults") or None,
                link=options.get("link") or None, keeps_job=options.get("keeps_job", "0") in ("1", "true", "yes"),
                boot_noise=options.get("boot_noise", "0") in ("1", "true", "yes"),
                ledger=options.get("ledger") or None, noise=number("noise", 0.0), line=options.get("line") or None,
                reads_every_edge=reader == "edges")
        except ValueError as exc:
            shown = url if len(url) <= 200 else f"{url[:80]}..."  # (a URL named, not a page of it)
            raise SimConfigError(f"{shown}: {exc}") from None


def parse_boards(text: str) -> tuple[int, ...]:
    """The rack's board numbers from a range text: '1-32', '7', or a comma list of those ('1-16,21')."""
    numbers: list[int] = []
    for part in text.split(","):
        m = re.fullmatch(r"\s*(\d{1,9})\s*(?:-\s*(\d{1,9})\s*)?", part)  # (bounded before int())
        lo, hi = (int(m.group(1)), int(m.group(2) or m.group(1))) if m else (0, -1)
        if m and hi < lo:
            raise SimConfigError(_("boards {text}: {low}-{high} runs backwards").format(text=repr(text), low=lo,
                                                                                          high=hi))
        if not 1 <= lo <= hi <= MAX_BOARD:
            raise SimConfigError(_("boards {text}: {part} is not a board N or a range N-M (1..{most})").format(
                text=repr(text), part=repr(part.strip()), most=MAX_BOARD))
        numbers.extend(range(lo, hi + 1))
    if len(set(numbers)) != len(numbers):
        raise SimConfigError(_("boards {text} names a board twice").format(text=repr(text)))
    return tuple(numbers)


def format_boards(boards: tuple[int, ...] | list[int]) -> str:
    """The shortest range text for board numbers, e.g. (1, 2, 3, 7) -> '1-3,7'."""
    spans: list[list[int]] = []
    for b in boards:
        if spans and b == spans[-1][1] + 1:
            spans[-1][1] = b
        else:
            spans.append([b, b])
    return ",".join(str(a) if a == z else f"{a}-{z}" for a, z in spans)


_URL_KEYS: Final = {"speed", "seed", "set", "boards", "copies", "faults", "link", "keeps_job", "boot_noise",
                    "ledger", "noise", "line", "reader"}
LINES: Final = {None, "pty", "tcp"}
