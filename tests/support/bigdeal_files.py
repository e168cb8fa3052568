"""Big Deal's own output files (tests/data/bigdeal/, see its README.md) and plain decoders for them.

Everything here reads the files with plain Python, following Big Deal's output.c, and imports
nothing from `dealer`: the tests compare what our code makes with what these give.

A deal is 52 seats (0-3 = N E S W), one per card, cards in the order spade ace .. club two.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tests.support.paths import DATA

FIXTURES = DATA / "bigdeal"
SEATS = "NESW"
RANKS = "AKQJT98765432"
Deals = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class Case:
    """One bigdealx case of cases.json: a seed, an owner and a board range, and the files written."""

    id: str
    seed: str
    owner: str  # as text; its bytes are in the encoding the case says (UTF-8, or a Windows code page)
    owner_bytes: bytes
    range: str  # as given to bigdealx -n
    first: int
    last: int
    files: dict[str, str]  # Big Deal format name -> file name
    refused: dict[str, str]  # Big Deal format name -> Big Deal's message

    @property
    def folder(self) -> Path:
        return FIXTURES / self.id

    @property
    def boards(self) -> list[int]:
        return list(range(self.first, self.last + 1))

    @property
    def dealer_boards(self) -> str:
        """The same boards for `dealer generate --boards` (bigdealx -n 16 is boards 1-16; ours board 16)."""
        return str(self.first) if self.first == self.last else f"{self.first}-{self.last}"

    def path(self, fmt: str) -> Path:
        return self.folder / self.files[fmt]

    def read(self, fmt: str) -> bytes:
        return self.path(fmt).read_bytes()

    def __str__(self) -> str:
        return self.id


@cache
def manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))
    return data


@cache
def cases() -> tuple[Case, ...]:
    out = []
    for c in manifest()["cases"]:
        owner_bytes = bytes.fromhex(c["owner_hex"])
        assert owner_bytes == c["owner"].encode(c["owner_encoding"])
        out.append(Case(c["id"], c["seed"], c["owner"], owner_bytes, c["range"], c["first_board"],
                        c["last_board"], {f["format"]: f["name"] for f in c["files"]},
                        {r["format"]: r["message"] for r in c["refused"]}))
    return tuple(out)


# --- PBN (print_pbn: one game per tag block, [Deal "N:..."] always from North) --------------------

_TAG = re.compile(r'\[(\w+) "((?:[^"\\]|\\.)*)"\]')


def pbn_games(data: bytes) -> list[dict[str, str]]:
    """The tag pairs of each game of a PBN file, in file order (header lines before the first game
    included in its game); games are separated by empty lines."""
    text = data.decode("latin-1").replace("\r\n", "\n")
    games = []
    for block in re.split(r"\n\s*\n", text):
        tags = {}
        for line in block.split("\n"):
            m = _TAG.fullmatch(line.strip())
            if m:
                tags[m.group(1)] = m.group(2)
        if "Deal" in tags:
            games.append(tags)
    return games


def deal_from_pbn(value: str) -> list[int]:
    """52 seats from a PBN deal value ``F:hand hand hand hand`` (hands S.H.D.C from seat F round)."""
    first, hands = value[0], value[2:].split(" ")
    assert value[1] == ":" and len(hands) == 4, value
    deal = [-1] * 52
    for k, hand in enumerate(hands):
        seat = (SEATS.index(first) + k) % 4
        suits = hand.split(".")
        assert len(suits) == 4, value
        for suit, ranks in enumerate(suits):
            for rank in ranks:
                deal[suit * 13 + RANKS.index(rank)] = seat
    assert sorted(deal) == sorted(list(range(4)) * 13), value
    return deal


def pbn_deals(data: bytes) -> Deals:
    return np.array([deal_from_pbn(g["Deal"]) for g in pbn_games(data)], dtype=np.uint8)


# --- GOE (print_goedel: 29 digits, commas between groups, leading zeros as spaces) ----------------

def goe_numbers(data: bytes) -> list[int]:
    return [int(line.replace(",", "").strip()) for line in data.decode("ascii").splitlines() if line.strip()]


# --- BRI / DUP (out_bri: N, E, S as two-digit card numbers 01-52; West gets the rest) ------------

def deal_from_bri(digits: bytes) -> list[int]:
    assert len(digits) == 78 and digits.isdigit(), digits
    deal = [3] * 52
    for k in range(39):
        card = int(digits[2 * k:2 * k + 2]) - 1
        assert deal[card] == 3, digits
        deal[card] = k // 13
    return deal


DUP_RECORD = 156  # 78 BRI + 68 DGE + 10 trailer


def dup_records(data: bytes) -> list[tuple[bytes, bytes, bytes]]:
    """(BRI part, DGE part, trailer) of every 156-byte DUP record."""
    assert len(data) % DUP_RECORD == 0, len(data)
    return [(data[i:i + 78], data[i + 78:i + 146], data[i + 146:i + 156]) for i in range(0, len(data), DUP_RECORD)]


def dup_deals(data: bytes) -> Deals:
    return np.array([deal_from_bri(bri) for bri, _, _ in dup_records(data)], dtype=np.uint8)


# --- DLM (init_dlmcommon / print_dlm / fill_dlm: INI lines, a letter a-p per two cards) -----------

def dlm_document(data: bytes) -> dict[str, str]:
    """Key -> value of every ``key=value`` line of a DLM file (line ends LF or CRLF)."""
    lines = data.decode("ascii").replace("\r\n", "\n").split("\n")
    assert lines[0] == "[Document]" and lines[-1] == "", lines[:1]
    pairs = [line.split("=", 1) for line in lines[1:-1]]
    return {key: value for key, value in pairs}


def deal_from_dlm(value: str) -> list[int]:
    """52 seats from a DLM board value: 26 letters 'a' + 4*seat(2i) + seat(2i+1), then 3 digits."""
    letters = value[:26]
    assert len(value) == 29 and value[26:].isdigit(), value
    deal = []
    for letter in letters:
        code = ord(letter) - ord("a")
        deal += [code >> 2, code & 3]
    return deal


def dlm_deals(data: bytes, boards: list[int]) -> Deals:
    doc = dlm_document(data)
    return np.array([deal_from_dlm(doc[f"Board {b:02d}"]) for b in boards], dtype=np.uint8)


# --- LIN (print_lin: qx|oN|md|D<S hand>,<W hand>,<N hand>|rh||ah|Board N|sv|V|pg||) --------------

def lin_boards(data: bytes) -> list[tuple[int, int, Deals, str]]:
    """(board, dealer seat, deal, vulnerability) of each LIN line; vulnerability None/NS/EW/All.

    The md digit is the dealer (1 = South, 2 = West, 3 = North, 4 = East); East's hand is the
    cards not named. Big Deal writes ``sv|0`` for no one vulnerable, BBO's own files ``sv|o``:
    both are read as None.
    """
    out = []
    for line in data.decode("ascii").splitlines():
        f = line.split("|")
        assert f[0] == "qx" and f[2] == "md" and f[4] == "rh" and f[6] == "ah" and f[8] == "sv", line
        board = int(f[1][1:])
        assert f[1] == f"o{board}" and f[7] == f"Board {board}", line
        dealer = (int(f[3][0]) + 1) % 4  # 1 S, 2 W, 3 N, 4 E
        deal = [1] * 52
        for seat, hand in zip((2, 3, 0), f[3][1:].split(","), strict=True):
            suit = -1
            for ch in hand:
                if ch in "SHDC":
                    suit = "SHDC".index(ch)
                else:
                    deal[suit * 13 + RANKS.index(ch)] = seat
        vul = {"0": "None", "o": "None", "n": "NS", "e": "EW", "b": "All"}[f[9]]
        out.append((board, dealer, np.array(deal, dtype=np.uint8), vul))
    return out


# --- BHG (print_borel: a leading empty line, then per board 52 letters A-Z a-z = AS .. 2C, ---------
# --- the dealer's hand first and the others round the table) -------------------------------------

def bhg_deals(data: bytes, first_seats: list[int]) -> Deals:
    """The deals of a BHG file whose line k starts with the hand of seat first_seats[k]."""
    lines = data.decode("ascii").split("\n")
    assert lines[0] == "" and lines[-1] == "", lines[:1]
    deals = []
    for line, start in zip(lines[1:-1], first_seats, strict=True):
        assert len(line) == 52, line
        deal = [-1] * 52
        for k, ch in enumerate(line):
            card = ord(ch) - ord("A") if ch <= "Z" else 26 + ord(ch) - ord("a")
            deal[card] = (start + k // 13) % 4
        deals.append(deal)
    return np.array(deals, dtype=np.uint8)
