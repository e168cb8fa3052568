"""The sweep of one-byte changes to the published WBG 2024 session files through ``dealer squaredeal verify``:
every change that changes a board must be refused, naming the board and the field.

The sweep takes every byte of the Board, Dealer, Vulnerable and Deal tag lines of every game of the ten
published PBN session files and every one of the 255 other values it could hold. A plain reader of the
PBN standard written here (tag lines, ``?`` and ``#``, absent tags by Law 2; it imports nothing from
`dealer`) says what each changed game means. Every change it reads as another board number, deal,
dealer or vulnerability goes to the verifier, which must refuse it naming the board and the field. So do
the changes it cannot read whose new byte a lenient reader might take (another case, ``-``, ``#``, ``?``)
in the Dealer and Vulnerable values and the Deal's first seat, and one in 499 of the others; the rest it
cannot read are left (a file our reader refuses is refused by the verifier too). Changed files are
verified many to a command, through `dealer.cli.main` in this process, as a user verifies several files.

`sweep(session, folder, share=1.0)` runs it on one session file, verifying a share of the changes (drawn
with a fixed seed, every field kept); the default suite runs a sample (tests/integration/
test_squaredeal_sample.py), ``python -m tests.stress.squaredeal_sweep`` the whole.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dealer.cli import main
from tests.support.bigdeal_files import deal_from_pbn

WBG = Path(__file__).resolve().parent.parent / "data" / "squaredeal" / "WBG2024"
SESSIONS = sorted(p.name for p in WBG.glob("*.pbn"))
FIELD_TAGS = ("Board", "Dealer", "Vulnerable", "Deal")
TAG = re.compile(r'\[([A-Za-z0-9_]+) "([^"\\]*)"\]')
VULNERABILITY = {"None": 0, "Love": 0, "-": 0, "NS": 1, "EW": 2, "All": 3, "Both": 3}
LENIENT = b"neswNESWnoneNONEbothBOTHallALLloveLOVE-#?"
SAMPLE = 499


@dataclass(frozen=True)
class Board:
    number: int
    dealer: int
    vulnerability: int
    deal: tuple[int, ...]


def law2(number: int) -> tuple[int, int]:
    return (number - 1) % 4, [0, 1, 2, 3, 1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2][(number - 1) % 16]


def tags_of(lines: list[str]) -> dict[str, str] | None:
    """The tag pairs of a game's lines (comment lines passed over), or None if a line is not one."""
    tags: dict[str, str] = {}
    for line in lines:
        if not line or line.startswith(("%", ";")):
            continue
        m = TAG.fullmatch(line)
        if not m or m.group(1) in tags:
            return None
        tags[m.group(1)] = m.group(2)
    return tags


def full_deal(value: str) -> tuple[int, ...] | None:
    if any(value.count(rank) != 4 for rank in "AKQJT98765432"):
        return None  # one card missing or held twice: no full deal (and quick to tell)
    try:
        return tuple(deal_from_pbn(value))
    except (AssertionError, ValueError, IndexError):
        return None


def meaning(tags: dict[str, str], previous: Board | None) -> Board | None:
    """What a game's tags mean by the PBN standard, or None where this plain reader cannot tell."""
    board = tags.get("Board", "?")
    if board == "?":
        number = previous.number + 1 if previous else 1
    elif board == "#" and previous:
        number = previous.number
    elif board.isascii() and board.isdigit() and not board.startswith("0"):
        number = int(board)
    else:
        return None
    dealer, vulnerability = law2(number)
    value = tags.get("Dealer", "?")
    if value == "#" and previous:
        dealer = previous.dealer
    elif value in ("N", "E", "S", "W"):
        dealer = "NESW".index(value)
    elif value != "?":
        return None
    value = tags.get("Vulnerable", "?")
    if value == "#" and previous:
        vulnerability = previous.vulnerability
    elif value in VULNERABILITY:
        vulnerability = VULNERABILITY[value]
    elif value != "?":
        return None
    value = tags.get("Deal", "")
    deal = previous.deal if value == "#" and previous else full_deal(value)
    if deal is None:
        return None
    return Board(number, dealer, vulnerability, deal)


@dataclass(frozen=True)
class Change:
    offset: int
    value: int
    game: int
    meaning: Board | None  # None: the plain reader cannot tell
    lenient: bool  # in a Dealer or Vulnerable value or the Deal's first seat, where a lenient reader may differ


def changes(data: bytes, games_swept: Callable[[int], bool] = lambda k: True) -> tuple[list[Change], int, list[Board]]:
    """Every one-byte change of the field tag lines of every game (of those `games_swept` keeps, by their index),
    what it means, and the games as read."""
    text = data.decode("latin-1")  # one character a byte
    starts = [0] + [m.end() for m in re.finditer(r"\n\n", text)]
    pairs = [(a, text[a:b]) for a, b in zip(starts, [*starts[1:], len(text)], strict=True) if "[Deal " in text[a:b]]
    starts, games = [a for a, _ in pairs], [g for _, g in pairs]
    read: list[Board] = []
    for game in games:
        tags = tags_of(game.split("\n"))
        board = meaning(tags, read[-1] if read else None) if tags is not None else None
        assert board is not None
        read.append(board)
    out: list[Change] = []
    swept = 0
    for k, (start, game) in enumerate(zip(starts, games, strict=True)):
        if not games_swept(k):
            continue
        lines = game.split("\n")
        at = start
        for j, line in enumerate(lines):
            name = line[1:].split(" ", 1)[0]
            if line.startswith("[") and name in FIELD_TAGS:
                others = tags_of(lines[:j] + lines[j + 1:])
                assert others is not None
                value_at = line.index('"') + 1
                zone = range(value_at, value_at + 1) if name == "Deal" else \
                    range(value_at, len(line) - 2) if name != "Board" else range(0)
                for i in range(len(line)):
                    for value in range(256):
                        if value == data[at + i]:
                            continue
                        swept += 1
                        mine = tags_of((line[:i] + chr(value) + line[i + 1:]).split("\n"))
                        tags = None if mine is None or set(mine) & set(others) else {**others, **mine}
                        found = meaning(tags, read[k - 1] if k else None) if tags is not None else None
                        out.append(Change(at + i, value, k, found, i in zone and value in LENIENT))
            at += len(line) + 1
    return out, swept, read


def verify(files: list[Path]) -> dict[str, str]:
    """`dealer squaredeal verify` of many files at once: each file's line."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["squaredeal", "verify", str(WBG / "WBG2024.sqd"), "--sqk", str(WBG / "WBG2024.sqk"),
              *map(str, files)])
    lines = {}
    for line in out.getvalue().splitlines():
        name, _, verdict = line.partition(".pbn: ")
        lines[name + ".pbn"] = verdict
    return lines


def field_of(before: Board, after: Board) -> str:
    """The verifier's word for the first field that differs, in its order."""
    if after.number != before.number:
        return "board number"
    if after.deal != before.deal:
        return "deal"
    if after.dealer != before.dealer:
        return "dealer"
    return "vulnerability"


@dataclass
class Swept:
    """What one session's sweep did and found: every failure is a change of a board not refused as it must be."""

    session: str
    changes: int  # one-byte changes made and read
    verified: int  # changed files given to the verifier
    fields: dict[str, int]  # changes of a board verified, by the field they change
    failures: list[str]

    def text(self) -> str:
        shown = ", ".join(f"{n} {field}" for field, n in sorted(self.fields.items()))
        return (f"{self.session}: {self.changes} changes, {self.verified} verified ({shown}), "
                f"{len(self.failures)} not refused as they must be")


def sweep(session: str, folder: Path, share: float = 1.0, seed: int = 0) -> Swept:
    """Sweep one session file: with `share` below 1, the games drawn one in round(1 / share) (with `seed`)
    and of their changes to verify `share` (at least 3 of each field a change of a board changes)."""
    data = (WBG / session).read_bytes()
    step = max(1, round(1 / share))
    first = random.Random(seed).randrange(step)
    found, swept, games = changes(data, lambda k: k % step == first)
    to_verify: list[tuple[Change, str | None]] = []  # (change, the field it changes, if known)
    for n, change in enumerate(found):
        before = games[change.game]
        if change.meaning is not None:
            if change.meaning != before:
                to_verify.append((change, field_of(before, change.meaning)))
            continue
        if change.lenient or n % SAMPLE == 0:
            to_verify.append((change, None))
    assert swept > 250 * 1000 / step and len(to_verify) > 1000 / step
    if share < 1.0:
        to_verify = drawn(to_verify, share, seed)
    fields: dict[str, int] = {}
    for _, field in to_verify:
        if field is not None:
            fields[field] = fields.get(field, 0) + 1
    files = []
    for k, (change, _) in enumerate(to_verify):
        place = folder / str(k)
        place.mkdir()
        path = place / session
        path.write_bytes(data[:change.offset] + bytes([change.value]) + data[change.offset + 1:])
        files.append(path)
    verdicts = verify(files)
    failures = []
    for path, (change, field) in zip(files, to_verify, strict=True):
        verdict = verdicts[str(path)]
        if field is None:
            continue  # the plain reader could not tell: our reader decides, and the verifier with it
        what = f"byte {change.offset} -> {change.value:#04x} changes the {field}"
        if verdict == "matches":
            failures.append(f"{what}: verified as matching")
            continue
        board = games[change.game].number
        if not re.search(r"\bboards? (\d+)", verdict):
            failures.append(f"{what}: no board named: {verdict}")
        elif verdict.startswith(f"board {board}: ") and field not in verdict:
            failures.append(f"{what}: the field not named: {verdict}")
    return Swept(session, swept, len(to_verify), fields, failures)


def drawn(to_verify: list[tuple[Change, str | None]], share: float, seed: int) -> list[tuple[Change, str | None]]:
    """`share` of the changes, drawn with `seed` field by field (changes the plain reader cannot tell count as a
    field of their own), at least 3 of each field, in their order in the file."""
    rng = random.Random(seed)
    by_field: dict[str | None, list[int]] = {}
    for k, (_, field) in enumerate(to_verify):
        by_field.setdefault(field, []).append(k)
    keep: set[int] = set()
    for indices in by_field.values():
        keep.update(rng.sample(indices, min(len(indices), max(3, round(share * len(indices))))))
    return [to_verify[k] for k in sorted(keep)]
