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


# --- the grammar of section 12, in the document's own ABNF -----------------------------------------------


def _abnf_rules() -> dict[str, str]:
    """The ABNF block of section 12: rule name -> its definition (comments dropped)."""
    block = SECTION[SECTION.index("```\nlabel") + 4:]
    block = block[:block.index("```")]
    rules = {}
    for line in block.splitlines():
        definition = line.split(";")[0].strip()
        if definition:
            name, _, expr = definition.partition("=")
            rules[name.strip()] = expr.strip()
    return rules


def _abnf_regex(rules: dict[str, str], name: str = "label") -> str:
    """A regular expression for rule `name`, built by RFC 5234's meaning of the forms the block uses:
    %xNN and %xNN-NN byte values, rule names, ( ) groups, / alternatives and m*n repetitions."""
    tokens = re.findall(r"%x[0-9A-F]{2}(?:-[0-9A-F]{2})?|\d*\*\d*|[A-Za-z][A-Za-z0-9-]*|[()/]", rules[name])
    pos = 0

    def alternation() -> str:
        nonlocal pos
        options = [concatenation()]
        while pos < len(tokens) and tokens[pos] == "/":
            pos += 1
            options.append(concatenation())
        return "(?:" + "|".join(options) + ")"

    def concatenation() -> str:
        parts = []
        while pos < len(tokens) and tokens[pos] not in ("/", ")"):
            parts.append(repetition())
        return "".join(parts)

    def repetition() -> str:
        nonlocal pos
        repeat = ""
        if re.fullmatch(r"\d*\*\d*", tokens[pos]):
            low, high = tokens[pos].split("*")
            repeat = "{" + (low or "0") + "," + high + "}"
            pos += 1
        return element() + repeat

    def element() -> str:
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok == "(":
            inner = alternation()
            assert tokens[pos] == ")"
            pos += 1
            return inner
        if tok.startswith("%x"):
            values = [re.escape(chr(int(v, 16))) for v in tok[2:].split("-")]
            return "[" + "-".join(values) + "]"
        return "(?:" + _abnf_regex(rules, tok) + ")"

    regex = alternation()
    assert pos == len(tokens), rules[name]
    return regex


@pytest.mark.parametrize("text", [
    "RED:17:N0:8", "A:1:N0:4", "C1:9999:WB:*", "ABCDEFGHIJKL:10:EE:0",
    "red:17:N0:8", "RED:017:N0:8", "RED:0:N0:8", "RED:10000:N0:8", "ABCDEFGHIJKLM:1:N0:4", "RED:17:X0:8",
    "RED:17:NX:8", "RED:17:N0:", "RED:17:N0:88", "RED:17:N0:8\n", " RED:17:N0:8", "RED 17 N0 8", ":17:N0:8",
    "RED:17:n0:8", "RED:17:N0:#",
])
def test_the_documents_abnf_and_the_code_accept_the_same_labels(text: str) -> None:
    grammar = re.compile(_abnf_regex(_abnf_rules()))
    by_document = grammar.fullmatch(text) is not None
    try:
        BoardLabel.parse(text)
        by_code = True
    except ValueError as exc:
        by_code = "check character is wrong" in str(exc)  # the grammar says nothing of the check's value
    assert by_code == by_document, text
