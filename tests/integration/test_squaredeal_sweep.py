"""Every one-byte change to a published WBG 2024 session file that changes a board is refused by
``dealer squaredeal verify``, naming the board and the field.

The sweep takes every byte of the Board, Dealer, Vulnerable and Deal tag lines of every game of the ten
published PBN session files and every one of the 255 other values it could hold. A plain reader of the
PBN standard written here (tag lines, ``?`` and ``#``, absent tags by Law 2; it imports nothing from
`dealer`) says what each changed game means. Every change it reads as another board number, deal,
dealer or vulnerability goes to the verifier, which must refuse it naming the board and the field. So do
the changes it cannot read whose new byte a lenient reader might take (another case, ``-``, ``#``, ``?``)
in the Dealer and Vulnerable values and the Deal's first seat, and one in 499 of the others; the rest it
cannot read are left (a file our reader refuses is refused by the verifier too). Changed files are
verified many to a command, through `dealer.cli.main` in this process, as a user verifies several files.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

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


def changes(data: bytes) -> tuple[list[Change], int, list[Board]]:
    """Every one-byte change of the field tag lines of every game, what it means, and the games as read."""
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


@pytest.mark.parametrize("session", SESSIONS)
def test_every_one_byte_change_of_a_board_is_refused_naming_it(session: str, tmp_path: Path) -> None:
    data = (WBG / session).read_bytes()
    found, swept, games = changes(data)
    to_verify: list[tuple[Change, str | None]] = []  # (change, the field it changes, if known)
    for n, change in enumerate(found):
        before = games[change.game]
        if change.meaning is not None:
            if change.meaning != before:
                to_verify.append((change, field_of(before, change.meaning)))
            continue
        if change.lenient or n % SAMPLE == 0:
            to_verify.append((change, None))
    assert swept > 250 * 1000 and len(to_verify) > 1000
    print(f"{session}: {swept} changes, {len(to_verify)} verified")
    files = []
    for k, (change, _) in enumerate(to_verify):
        folder = tmp_path / str(k)
        folder.mkdir()
        path = folder / session
        path.write_bytes(data[:change.offset] + bytes([change.value]) + data[change.offset + 1:])
        files.append(path)
    verdicts = verify(files)
    passed = []
    for path, (change, field) in zip(files, to_verify, strict=True):
        verdict = verdicts[str(path)]
        if field is None:
            continue  # the plain reader could not tell: our reader decides, and the verifier with it
        if verdict == "matches":
            passed.append((change.offset, change.value, field))
            continue
        board = games[change.game].number
        named = re.search(r"\bboards? (\d+)", verdict)
        assert named, f"byte {change.offset} -> {change.value:#04x}: {verdict}"
        if verdict.startswith(f"board {board}: "):
            assert field in verdict, f"byte {change.offset} -> {change.value:#04x} changes the {field}: {verdict}"
    assert passed == [], f"{len(passed)} changes of a board verified as matching, e.g. {passed[:5]}"
