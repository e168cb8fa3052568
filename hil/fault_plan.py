"""Fault plans: declarative, JSON-able lists of faults, each firing at a chosen point or at a seeded rate.

A plan is ``{"seed": 7, "faults": [{"kind": "jam", "board": 2, "card": 30}, ...]}`` (or just the list).
Every fault has a `kind` and a trigger: a point (`board` and `card`, `frame`, `insertion` or
`board_number`, by kind) or a `rate` (a probability per chance: per card, per frame, per insertion
or per dealing; a card fault with a rate and a `board` has its chances in that dealing only); `times`
caps how often it fires (default 1 for a point, unlimited for a rate).

Points are counted from 1: `board` is the k-th dealing this machine starts (StartDeal from LOADED;
resuming does not count), `card` the n-th card fed in it, `frame` the n-th frame on the wire in the
fault's `direction` (byte faults) or the n-th intact frame the device receives (power loss, unplug),
`insertion` the operator's n-th insertion of a board, `board_number` the number printed on a board,
`scan` the n-th scan that reads a label.

Kinds (fields besides the trigger; every field is optional):

* byte level, applied to the bytes in flight by the I/O layer (`hil.bytefaults`), `direction`
  "to_host" (default) or "to_device": ``drop`` (the frame is lost), ``flip`` (one byte of it
  changed), ``duplicate`` (sent twice), ``delay`` (held `seconds`, later bytes wait behind it),
  ``split`` (written in pieces of `size` bytes, `seconds` apart), ``garbage`` (a burst of `size`
  random bytes before it).
* device level, at a card of a dealing: ``jam`` (the card sticks in the path), ``misfeed`` (it goes
  into pocket `pocket`, default the next one clockwise; `detected` default false: silent),
  ``double_feed`` (the next card of another hand rides along into the same pocket; `detected` default
  true; unnoticed, the pack runs out one card early: the hopper is empty after 51 cards),
  ``swapped_cards`` (the n-th card and the next card of another hand each go into the other's pocket,
  unnoticed: every pocket still holds 13),
  ``card_falls`` (it falls out after the reader: counted, never in the board), ``unreadable_card``
  (smudged: held at the reader; with `when` "recount", read as unidentified at the recount instead),
  ``foreign_card`` (a card of another pack is the n-th card, in place of one of the pack's own unless
  `replace` is false; `detected` default true: the reader sees its back), ``duplicate_card`` (a second
  copy of an earlier card is the n-th card; `detected` default true), ``empty_hopper`` (the pack has
  only n-1 cards: the rest were set aside by mistake), ``door_open`` (someone opens the door; it is
  closed `seconds` later, or when the operator clears the path).
* firmware faults, at dealing k: ``stale_deal`` (the machine acknowledges and reports the new deal but
  deals the one loaded before it), ``wrong_job`` (the `report` of dealing k - "deal_done", "recount"
  or "fault" - names another job; for "fault" the machine jams at `card` and says so for another job),
  ``extra_pocket`` (the recount after dealing k reports a fifth pocket holding `count` cards, default 3),
  ``miscount`` (the DealDone of dealing k counts a card into the wrong pocket: 13 14 12 13, though the
  board holds its deal).
* board level: ``wrong_board`` and ``rotated_board`` (the operator's insertion puts in another board,
  the last one dealt if any, or the right one turned `turns` quarter turns anticlockwise, default 2; a turned
  board's label faces away from a reader at the North side only unless `readable`: then the reader sees it,
  and reports the turn, as a machine with a reader on every side, `hil.config.SimConfig.reads_every_edge`, does for
  every board), ``unreadable_label`` and ``bad_label`` (board `board_number`'s label cannot be read
  until it is wiped, the next time the board goes in; or it marks a dealer and vulnerability against
  Law 2 until a spare replaces it;
  `persistent`: never fixed), ``leftover_cards`` (board `board_number` holds `count` cards, default 3,
  of another pack before it first goes in: 52 is a board dealt in an earlier session; with `times`, as
  many boards of that number, of any set, as they first go in),
  ``board_removed`` (the operator pulls the board out at a card and puts it back `seconds` later,
  default 2), ``swap_board`` (after the n-th `scan`, the operator takes the board out and puts in
  another, `seconds` later, default 0.1: the last board dealt, else the next on the rack).
* system: ``power_loss`` (the device restarts; its state is lost; off for `seconds`, default 0.5),
  ``unplug`` (the USB cable is pulled; plugged back `seconds` later, default 1; with `replug` false,
  only when the I/O layer is told to), ``silent`` (the firmware hangs: nothing is sent or answered, the
  cable still in; for good unless `seconds` is given, until someone switches the machine off and on,
  `SimDevice.switch_on`, which restarts it as from a power cut).

Durations of device and operator faults are machine time (divided by the speed factor); those of
byte faults, power loss and unplugging are line time (never scaled), since they are about the host.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from enum import Enum
from gettext import gettext as _
from pathlib import Path
from typing import Any, Final

from hil.words import N_, os_reason


class FaultPlanError(ValueError):
    """A fault plan that cannot be used; the message names the fault and the field."""


class FaultKind(Enum):
    """Every kind of fault a plan can hold."""

    DROP = "drop"
    FLIP = "flip"
    DUPLICATE = "duplicate"
    DELAY = "delay"
    SPLIT = "split"
    GARBAGE = "garbage"
    JAM = "jam"
    MISFEED = "misfeed"
    DOUBLE_FEED = "double_feed"
    CARD_FALLS = "card_falls"
    UNREADABLE_CARD = "unreadable_card"
    FOREIGN_CARD = "foreign_card"
    DUPLICATE_CARD = "duplicate_card"
    EMPTY_HOPPER = "empty_hopper"
    DOOR_OPEN = "door_open"
    WRONG_BOARD = "wrong_board"
    ROTATED_BOARD = "rotated_board"
    UNREADABLE_LABEL = "unreadable_label"
    BAD_LABEL = "bad_label"
    BOARD_REMOVED = "board_removed"
    POWER_LOSS = "power_loss"
    UNPLUG = "unplug"
    SWAPPED_CARDS = "swapped_cards"
    STALE_DEAL = "stale_deal"
    WRONG_JOB = "wrong_job"
    EXTRA_POCKET = "extra_pocket"
    LEFTOVER_CARDS = "leftover_cards"
    SWAP_BOARD = "swap_board"
    MISCOUNT = "miscount"
    SILENT = "silent"


BYTE_KINDS: Final = frozenset({FaultKind.DROP, FaultKind.FLIP, FaultKind.DUPLICATE, FaultKind.DELAY,
                               FaultKind.SPLIT, FaultKind.GARBAGE})
CARD_KINDS: Final = frozenset({FaultKind.JAM, FaultKind.MISFEED, FaultKind.DOUBLE_FEED, FaultKind.CARD_FALLS,
                               FaultKind.UNREADABLE_CARD, FaultKind.DOOR_OPEN, FaultKind.BOARD_REMOVED,
                               FaultKind.POWER_LOSS, FaultKind.UNPLUG, FaultKind.SWAPPED_CARDS, FaultKind.SILENT})
"""Kinds that fire as card n of dealing k is about to be fed."""
PACK_KINDS: Final = frozenset({FaultKind.FOREIGN_CARD, FaultKind.DUPLICATE_CARD, FaultKind.EMPTY_HOPPER})
"""Kinds that change the hopper's pack as dealing k starts."""
INSERTION_KINDS: Final = frozenset({FaultKind.WRONG_BOARD, FaultKind.ROTATED_BOARD})
LABEL_KINDS: Final = frozenset({FaultKind.UNREADABLE_LABEL, FaultKind.BAD_LABEL, FaultKind.LEFTOVER_CARDS})
"""Kinds that belong to a board by its number, from the first time it goes into the machine."""
FIRMWARE_KINDS: Final = frozenset({FaultKind.STALE_DEAL, FaultKind.WRONG_JOB, FaultKind.EXTRA_POCKET,
                                   FaultKind.MISCOUNT})
"""Kinds that make the firmware misreport (or misuse) what it was asked, at dealing k."""
REPORTS: Final = ("deal_done", "recount", "fault")
FRAME_KINDS: Final = frozenset({FaultKind.POWER_LOSS, FaultKind.UNPLUG})
"""System kinds that may also fire on the n-th frame the device receives."""

_TRIGGERS: Final = {"board", "card", "frame", "insertion", "board_number", "scan", "rate", "times"}
_EXTRA: Final[dict[FaultKind, set[str]]] = {
    **{k: {"direction", "frame", "rate", "times"} for k in BYTE_KINDS},
    FaultKind.DELAY: {"direction", "frame", "rate", "times", "seconds"},
    FaultKind.SPLIT: {"direction", "frame", "rate", "times", "size", "seconds"},
    FaultKind.GARBAGE: {"direction", "frame", "rate", "times", "size"},
    FaultKind.JAM: set(),
    FaultKind.MISFEED: {"pocket", "detected"},
    FaultKind.DOUBLE_FEED: {"detected"},
    FaultKind.CARD_FALLS: set(),
    FaultKind.UNREADABLE_CARD: {"when"},
    FaultKind.FOREIGN_CARD: {"replace", "detected"},
    FaultKind.DUPLICATE_CARD: {"detected"},
    FaultKind.EMPTY_HOPPER: set(),
    FaultKind.DOOR_OPEN: {"seconds"},
    FaultKind.WRONG_BOARD: {"insertion", "rate", "times"},
    FaultKind.ROTATED_BOARD: {"insertion", "rate", "times", "turns", "readable"},
    FaultKind.UNREADABLE_LABEL: {"board_number", "persistent"},
    FaultKind.BAD_LABEL: {"board_number", "persistent"},
    FaultKind.BOARD_REMOVED: {"seconds"},
    FaultKind.POWER_LOSS: {"frame", "seconds"},
    FaultKind.UNPLUG: {"frame", "seconds", "replug"},
    FaultKind.SILENT: {"seconds"},
    FaultKind.SWAPPED_CARDS: set(),
    FaultKind.STALE_DEAL: {"board", "rate", "times"},
    FaultKind.WRONG_JOB: {"board", "card", "rate", "times", "report"},
    FaultKind.EXTRA_POCKET: {"board", "rate", "times", "count"},
    FaultKind.MISCOUNT: {"board", "rate", "times"},
    FaultKind.LEFTOVER_CARDS: {"board_number", "count", "times"},
    FaultKind.SWAP_BOARD: {"scan", "rate", "times", "seconds"},
}
for _kind in CARD_KINDS | PACK_KINDS:
    _EXTRA[_kind] |= {"board", "card", "rate", "times"}


@dataclass(frozen=True)
class FaultSpec:
    """One fault of a plan (see the module docstring for the meaning of each field)."""

    kind: FaultKind
    board: int | None = None
    card: int | None = None
    frame: int | None = None
    insertion: int | None = None
    board_number: int | None = None
    scan: int | None = None
    rate: float | None = None
    times: int | None = None
    direction: str = "to_host"
    seconds: float | None = None
    size: int | None = None
    pocket: int | None = None
    detected: bool | None = None
    when: str = "deal"
    replace: bool = True
    turns: int = 2
    readable: bool = False
    persistent: bool = False
    replug: bool = True
    count: int | None = None
    report: str = "deal_done"

    @property
    def limit(self) -> int | None:
        """How many times it may fire: `times`, else 1 for a point trigger, unlimited for a rate."""
        if self.times is not None:
            return self.times
        return None if self.rate is not None else 1

    def describe(self) -> str:
        """A short line for logs: the kind and where it fires."""
        where = [f"{k} {v}" for k in ("board", "card", "frame", "insertion", "board_number", "scan", "rate")
                 if (v := getattr(self, k)) is not None]
        return f"{self.kind.value} ({', '.join(where) or 'anywhere'})"

    def to_json(self) -> dict[str, Any]:
        """The JSON form: the kind and every field that differs from its default."""
        out: dict[str, Any] = {"kind": self.kind.value}
        for f in fields(self)[1:]:
            value = getattr(self, f.name)
            if value != f.default:
                out[f.name] = value
        return out

    @classmethod
    def from_json(cls, obj: Any, where: str | None = None) -> FaultSpec:
        """A fault from its JSON form; raises FaultPlanError naming `where` (default: "fault") and the field."""
        where = _("fault") if where is None else where
        if not isinstance(obj, Mapping) or not isinstance(obj.get("kind"), str):
            raise FaultPlanError(_("{where}: a fault is an object with a \"kind\"").format(where=where))
        try:
            kind = FaultKind(obj["kind"])
        except ValueError:
            known = ", ".join(k.value for k in FaultKind)
            raise FaultPlanError(_("{where}: unknown kind {kind} (known: {known})").format(
                where=where, kind=repr(obj["kind"]), known=known)) from None
        where = f"{where} ({kind.value})"
        unknown = set(obj) - {"kind"} - _EXTRA[kind]
        if unknown:
            raise FaultPlanError(_("{where}: {unknown} does not apply (fields: {fields})").format(
                where=where, unknown=", ".join(sorted(unknown)), fields=", ".join(sorted(_EXTRA[kind]))))
        values = {name: _field_value(name, obj[name], where) for name in obj if name != "kind"}
        spec = cls(kind, **values)
        spec.check(where)
        return spec

    def check(self, where: str) -> None:
        """Raise FaultPlanError if the trigger is missing or a value is out of range."""
        k = self.kind
        points = [n for n in ("board", "frame", "insertion", "board_number", "scan") if getattr(self, n) is not None]
        if self.rate is None and not points and k not in LABEL_KINDS:
            raise FaultPlanError(_("{where}: needs a trigger ({triggers})").format(
                where=where, triggers=", ".join(sorted(_EXTRA[k] & _TRIGGERS - {"times"}))))
        if k in LABEL_KINDS and self.board_number is None:
            raise FaultPlanError(_("{where}: needs board_number").format(where=where))
        if self.rate is not None and not 0 < self.rate <= 1:
            raise FaultPlanError(_("{where}: rate must be in (0, 1], got {rate}").format(where=where, rate=self.rate))
        if self.card is not None and not 1 <= self.card <= 52:
            raise FaultPlanError(_("{where}: card must be 1..52, got {card}").format(where=where, card=self.card))
        if self.pocket is not None and not 0 <= self.pocket <= 3:
            raise FaultPlanError(_("{where}: pocket must be 0..3 (N E S W), got {pocket}").format(
                where=where, pocket=self.pocket))
        if self.direction not in ("to_host", "to_device"):
            raise FaultPlanError(_("{where}: direction must be \"to_host\" or \"to_device\"").format(where=where))
        if self.when not in ("deal", "recount"):
            raise FaultPlanError(_("{where}: when must be \"deal\" or \"recount\"").format(where=where))
        if self.report not in REPORTS:
            raise FaultPlanError(_("{where}: report must be one of {reports}").format(
                where=where, reports=", ".join(REPORTS)))
        if self.count is not None and not 1 <= self.count <= 52:
            raise FaultPlanError(_("{where}: count must be 1..52, got {count}").format(where=where, count=self.count))
        if not 1 <= self.turns <= 3:
            raise FaultPlanError(_("{where}: turns must be 1..3, got {turns}").format(where=where, turns=self.turns))
        for name in ("board", "frame", "insertion", "board_number", "scan", "times", "size"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise FaultPlanError(_("{where}: {name} counts from 1, got {value}").format(
                    where=where, name=name, value=value))
        if self.seconds is not None and self.seconds < 0:
            raise FaultPlanError(_("{where}: seconds must not be negative").format(where=where))


_INT_FIELDS: Final = {"board", "card", "frame", "insertion", "board_number", "scan", "times", "size", "pocket",
                      "turns", "count"}
_BOOL_FIELDS: Final = {"detected", "replace", "readable", "persistent", "replug"}


def _field_value(name: str, value: Any, where: str) -> Any:
    if name in _INT_FIELDS:
        if not isinstance(value, int) or isinstance(value, bool):
            raise FaultPlanError(_("{where}: {name} must be a whole number, got {value}").format(
                where=where, name=name, value=repr(value)))
    elif name in _BOOL_FIELDS:
        if not isinstance(value, bool):
            raise FaultPlanError(_("{where}: {name} must be true or false, got {value}").format(
                where=where, name=name, value=repr(value)))
    elif name in ("rate", "seconds"):
        if value is None and name == "seconds":
            return None
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise FaultPlanError(_("{where}: {name} must be a number, got {value}").format(
                where=where, name=name, value=repr(value)))
        return float(value)
    elif not isinstance(value, str):
        raise FaultPlanError(_("{where}: {name} must be text, got {value}").format(
            where=where, name=name, value=repr(value)))
    return value


@dataclass(frozen=True)
class FaultPlan:
    """A list of faults and the seed of the random choices they make (rates, unnamed cards)."""

    faults: tuple[FaultSpec, ...] = ()
    seed: int = 0

    def __add__(self, other: FaultPlan) -> FaultPlan:
        return FaultPlan(self.faults + other.faults, self.seed)

    @classmethod
    def of(cls, *faults: FaultSpec | Mapping[str, Any], seed: int = 0) -> FaultPlan:
        """A plan from specs or their JSON forms."""
        return cls(tuple(f if isinstance(f, FaultSpec) else FaultSpec.from_json(f, _("fault {number}").format(
            number=i)) for i, f in enumerate(faults, start=1)), seed)

    def of_kinds(self, kinds: Iterable[FaultKind]) -> tuple[FaultSpec, ...]:
        wanted = set(kinds)
        return tuple(f for f in self.faults if f.kind in wanted)

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "faults": [f.to_json() for f in self.faults]}

    @classmethod
    def from_json(cls, obj: Any, source: str | None = None) -> FaultPlan:
        """A plan from its JSON form (an object with "faults", or a bare list); `source` names it in a
        refusal (default: "fault plan")."""
        source = _("fault plan") if source is None else source
        if isinstance(obj, list):
            obj = {"faults": obj}
        if not isinstance(obj, Mapping) or not isinstance(obj.get("faults", []), list):
            raise FaultPlanError(_("{source}: expected an object with a \"faults\" list").format(source=source))
        unknown = set(obj) - {"seed", "faults", "about"}
        if unknown:
            raise FaultPlanError(_("{source}: unknown key {key} (keys: seed, faults, about)").format(
                source=source, key=repr(sorted(unknown)[0])))
        seed = obj.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise FaultPlanError(_("{source}: seed must be a whole number").format(source=source))
        specs = tuple(FaultSpec.from_json(f, _("{source}: fault {number}").format(source=source, number=i))
                      for i, f in enumerate(obj.get("faults", []), 1))
        return cls(specs, seed)

    @classmethod
    def load(cls, path: str | Path) -> FaultPlan:
        """Read a plan file (JSON); raises FaultPlanError naming the file, line and field."""
        source = _("fault plan {path}").format(path=path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise FaultPlanError(f"{source}: {os_reason(exc)}") from None
        try:
            obj = json.loads(text, parse_constant=_not_finite)
        except json.JSONDecodeError as exc:
            raise FaultPlanError(_("{source}: line {line}: {reason}").format(
                source=source, line=exc.lineno, reason=exc.msg)) from None
        except RecursionError:
            raise FaultPlanError(_("{source}: nested deeper than {most} levels").format(
                source=source, most=MAX_DEPTH)) from None
        except FaultPlanError as exc:
            raise FaultPlanError(f"{source}: {exc}") from None
        if _depth(obj) > MAX_DEPTH:
            raise FaultPlanError(_("{source}: nested deeper than {most} levels").format(
                source=source, most=MAX_DEPTH)) from None
        return cls.from_json(obj, source)

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1) + "\n"


class FaultEngine:
    """Decides, deterministically, which device, board and system faults fire, and logs each one: `log` in
    English (a record tests read), `said` the same lines in the language spoken (what `dealer sim` prints).

    Byte faults are left to `hil.bytefaults`. The counters (dealings started, insertions, frames
    received) belong to the simulation, not the firmware, so they survive a power loss.
    """

    def __init__(self, plan: FaultPlan, seed: int = 0) -> None:
        self.plan = plan
        self.rng = random.Random(f"faults:{seed}:{plan.seed}")
        self.fired: Counter[int] = Counter()
        self.log: list[str] = []
        self.said: list[str] = []
        self.dealings = 0
        self.insertions = 0
        self.frames = 0
        self.scans = 0
        self._specs = [(i, self._resolve(f)) for i, f in enumerate(plan.faults) if f.kind not in BYTE_KINDS]

    def _resolve(self, spec: FaultSpec) -> FaultSpec:
        """Pick the card of a fault given a dealing but no card (seeded)."""
        if spec.board is not None and spec.card is None and spec.kind in CARD_KINDS | PACK_KINDS:
            low = 2 if spec.kind in (FaultKind.DUPLICATE_CARD,) else 1
            return FaultSpec(**{**_as_kwargs(spec), "card": self.rng.randint(low, 52)})
        return spec

    def _fire(self, index: int, spec: FaultSpec, at_point: bool, where: str, **values: object) -> bool:
        """Whether the fault fires now; if it does, logged as firing at `where` (a message marked `N_`, with
        its `values`)."""
        limit = spec.limit
        if limit is not None and self.fired[index] >= limit:
            return False
        hit = self.rng.random() < spec.rate if spec.rate is not None else at_point
        if hit:
            self.fired[index] += 1
            self.log.append(f"{spec.kind.value} at {where.format(**values)}")
            self.said.append(_("{fault} at {where}").format(fault=spec.kind.value, where=_(where).format(**values)))
        return hit

    def at_card(self, card: int) -> list[FaultSpec]:
        """The faults that fire as card `card` of the current dealing is about to be fed."""
        out = []
        for i, spec in self._specs:
            if spec.kind in CARD_KINDS and spec.frame is None and spec.when == "deal":
                if spec.rate is not None and spec.board is not None and spec.board != self.dealings:
                    continue  # a rate in one dealing only
                point = spec.board == self.dealings and spec.card == card
                if self._fire(i, spec, point, N_("board {board} card {card}"), board=self.dealings, card=card):
                    out.append(spec)
        return out

    def at_recount(self, position: int) -> bool:
        """True if the reader fails on the `position`-th card of a recount after the current dealing."""
        hit = False
        for i, spec in self._specs:
            if spec.kind is FaultKind.UNREADABLE_CARD and spec.when == "recount":
                point = spec.board == self.dealings and spec.card == position
                hit = self._fire(i, spec, point, N_("recount after board {board} card {card}"), board=self.dealings,
                                 card=position) or hit
        return hit

    def start_dealing(self) -> list[FaultSpec]:
        """Count a new dealing; returns the pack faults of this dealing (each with its card position)."""
        self.dealings += 1
        out = []
        for i, spec in self._specs:
            if spec.kind in PACK_KINDS and self._fire(i, spec, spec.board == self.dealings, N_("board {board}"),
                                                      board=self.dealings):
                card = spec.card if spec.card is not None else self.rng.randint(2, 52)
                out.append(FaultSpec(**{**_as_kwargs(spec), "card": card}))
        return out

    def insertion(self) -> list[FaultSpec]:
        """Count an insertion by the operator; returns the mistakes it makes."""
        self.insertions += 1
        return [spec for i, spec in self._specs if spec.kind in INSERTION_KINDS
                and self._fire(i, spec, spec.insertion == self.insertions, N_("insertion {insertion}"),
                               insertion=self.insertions)]

    def firmware(self, kind: FaultKind, report: str | None = None, card: int | None = None) -> FaultSpec | None:
        """The firmware fault of `kind` (and `report`) that fires in the current dealing (at `card`, for a
        Fault reported for another job), if any."""
        for i, spec in self._specs:
            if spec.kind is not kind or (report is not None and spec.report != report):
                continue
            point = spec.board == self.dealings and (card is None or (spec.card or 1) == card)
            where = N_("board {board} card {card}") if card else N_("board {board}")
            if self._fire(i, spec, point, where, board=self.dealings, card=card):
                return spec
        return None

    def scanned(self) -> list[FaultSpec]:
        """Count a scan that read a label; returns the faults it triggers (the operator swaps the board)."""
        self.scans += 1
        return [spec for i, spec in self._specs if spec.kind is FaultKind.SWAP_BOARD
                and self._fire(i, spec, spec.scan == self.scans, N_("scan {scan}"), scan=self.scans)]

    def label_faults(self, number: int | None) -> list[FaultSpec]:
        """The faults of board `number`: its label, cards left in it (asked once, when the board first goes
        into the machine)."""
        return [spec for i, spec in self._specs if spec.kind in LABEL_KINDS
                and self._fire(i, spec, spec.board_number == number, N_("board number {number}"), number=number)]

    def frame_received(self) -> list[FaultSpec]:
        """Count an intact frame received by the device; returns the system faults it triggers."""
        self.frames += 1
        return [spec for i, spec in self._specs if spec.kind in FRAME_KINDS and spec.frame is not None
                and self._fire(i, spec, spec.frame == self.frames, N_("frame {frame}"), frame=self.frames)]


def _as_kwargs(spec: FaultSpec) -> dict[str, Any]:
    return {f.name: getattr(spec, f.name) for f in fields(spec)}

MAX_DEPTH: Final = 8
"""How deep a fault plan's lists and tables may nest (a plan is two levels deep)."""


def _not_finite(name: str) -> Any:
    raise FaultPlanError(_("{name} is not a finite number").format(name=name))


def _depth(value: Any) -> int:
    """How deep `value`'s lists and tables nest (a number or text: 0), counted without recursion."""
    deepest, level = 0, [(value, 1)]
    while level:
        item, depth = level.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if depth <= MAX_DEPTH:
                level.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest

