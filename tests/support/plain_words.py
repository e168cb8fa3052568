"""The text check: a line a director reads says each thing once and names nothing of the program's insides
(an enum's name such as JAM or CLEAR_PATH, a machine's detail number, a Python class, a traceback). Used on
every line the demo, the guides' commands and the fault-table scenarios print, and on their report files."""

from __future__ import annotations

import ast
import enum
import importlib
import json
import re
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

from tests.support.paths import ROOT

_CLAUSE_CUT = re.compile(r"\s*(?:->|→|[:;,()\[\]]|\. )\s*")
_SHORTEST_CLAUSE = 3  # words: "board 3", "set A" may come twice in a line; a clause of three or more may not
_INSIDES = [
    re.compile(r"\bdetail \d+"),
    re.compile(r"Traceback \(most recent call last\)"),
    re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception|Warning)\b"),
    re.compile(r"<[\w.]+(?:: | object at 0x)"),  # a repr
    re.compile(r"\b[A-Z][a-z]+[A-Z]\w*\.[A-Z][A-Z_]+\b"),  # an enum member: MachineFaultKind.JAM
    re.compile(r"\b[A-Z]{2,}_[A-Z_]+\b"),  # a constant's or a member's name: CLEAR_PATH, POWER_LOSS
    re.compile(r"\bdealer\.[a-z_]+\.[a-z_]"),  # a module's dotted name
]
_ENUMS = ("dealer.dealing.machine:MachineFaultKind", "dealer.dealing.machine:OperatorPrompt",
          "dealer.verify.fault_table:Action", "dealer.journal.events:EventKind", "dealer.journal.events:Interruption",
          "dealer.journal.store:JobState")
_STATUS_WORDS = {"FAULT", "REFUSED", "UNVERIFIED", "FAULTED", "NOT", "DEALT", "OK"}
"""Words in capitals a line may shout on purpose: the status of a board."""


@cache
def _enum_names() -> frozenset[str]:
    names: set[str] = set()
    for spec in _ENUMS:
        module, name = spec.split(":")
        kind: type[enum.Enum] = getattr(importlib.import_module(module), name)
        names |= {m.name for m in kind if len(m.name) > 2}
    return frozenset(names - _STATUS_WORDS)


@cache
def _class_names() -> frozenset[str]:
    """Every class the program defines whose name is CamelCase of two words or more (BoardLife, RunProgress)."""
    found: set[str] = set()
    for path in (ROOT / "dealer").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and re.fullmatch(r"_?[A-Z][a-z]+(?:[A-Z][a-z0-9]+)+", node.name):
                found.add(node.name.lstrip("_"))
    return frozenset(found)


def line_problems(line: str) -> list[str]:
    """What is wrong with one line: a clause said twice, or a name of the program's insides."""
    found = []
    clauses = [" ".join(c.lower().split()) for c in _CLAUSE_CUT.split(line)]
    seen: set[str] = set()
    for clause in clauses:
        if len(clause.split()) >= _SHORTEST_CLAUSE and clause in seen:
            found.append(f"said twice: {clause!r}")
        seen.add(clause)
    for pattern in _INSIDES:
        found += [f"the program's insides: {m.group(0)!r}" for m in pattern.finditer(line)]
    words = set(re.findall(r"\b[A-Za-z_]+\b", line))
    found += [f"an enum's name: {w!r}" for w in sorted(words & _enum_names())]
    found += [f"a class's name: {w!r}" for w in sorted(words & _class_names())]
    return found


def text_problems(text: str, where: str) -> list[str]:
    """Every problem of every line of `text`, each naming `where` and the line."""
    return [f"{where}: {problem}: {line.strip()}" for line in text.splitlines() for problem in line_problems(line)]


_DATA_KEYS = {"action", "code", "journal", "plan", "source", "file", "path"}
"""JSON keys whose values are codes or paths for programs, not words for a director."""


def json_strings(value: Any, key: str = "") -> Iterator[str]:
    """The strings of a JSON document a director reads (not codes and paths under `_DATA_KEYS`, nor keys)."""
    if isinstance(value, str):
        if key not in _DATA_KEYS:
            yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from json_strings(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from json_strings(v, key)


def json_problems(text: str, where: str) -> list[str]:
    return text_problems("\n".join(json_strings(json.loads(text))), where)


def all_problems(items: Iterable[tuple[str, str]]) -> list[str]:
    """Problems of (where, text) pairs; JSON where the text is a JSON document."""
    out: list[str] = []
    for where, text in items:
        out += json_problems(text, where) if where.endswith(".json") else text_problems(text, where)
    return out
