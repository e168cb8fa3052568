"""PROTOCOL.md §12 against `firmware_protocol.labels`: the grammar's worked example and the Law 2 marks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from firmware_protocol.labels import BoardLabel, check_character, law2_dealer, law2_vulnerability

SPEC = (Path(__file__).resolve().parents[2] / "firmware_protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
SECTION = SPEC[SPEC.index("## 12. Board labels"):]


def test_the_worked_example_is_what_the_code_makes() -> None:
    example = re.search(r"is `(RED:17:N0:.)`", SECTION)
    assert example is not None
    assert BoardLabel.for_board("RED", 17).payload() == example.group(1)
    # the arithmetic the section shows, redone here from its own rule
    values = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ:"
    total = sum(i * values.index(c) for i, c in enumerate("RED:17:N0:", start=1))
    assert total == 1081 and "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ*"[total % 37] == example.group(1)[-1]


@pytest.mark.parametrize(("boards", "vulnerability"), [("1 8 11 14", 0), ("2 5 12 15", 1), ("3 6 9 16", 2),
                                                        ("4 7 10 13", 3)])
def test_the_law_2_marks_of_the_section(boards: str, vulnerability: int) -> None:
    assert f"{['none', 'NS', 'EW', 'both'][vulnerability]} on {boards}" in SECTION.replace("\n", " ")
    for board in map(int, boards.split()):
        assert law2_vulnerability(board) == law2_vulnerability(board + 16) == vulnerability
        assert law2_dealer(board) == (board - 1) % 4


def test_a_swap_of_neighbours_and_a_changed_character_are_caught() -> None:
    body = "RED:17:N0:"
    check = check_character(body)
    for i in range(len(body) - 1):
        swapped = body[:i] + body[i + 1] + body[i] + body[i + 2:]
        if swapped != body:
            assert check_character(swapped) != check, swapped
    with pytest.raises(ValueError, match="check character"):
        BoardLabel.parse("RED:17:N0:" + ("9" if check != "9" else "8"))
