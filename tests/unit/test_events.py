"""The journal's events (`dealer.journal.events`): every kind written is read, every kind read is written,
each goes to the journal's JSON and back, journals of the version before still read, and no words name a
card."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from dealer.journal import events
from dealer.journal.events import (
    EVENTS,
    BoardRefused,
    Event,
    EventKind,
    FaultGroup,
    InterruptedDeal,
    Interruption,
    LinkResync,
    MachineFault,
    MachineFaultResumed,
    RecountFault,
    Unknown,
    decode,
    kind_of,
)

ROOT = Path(__file__).resolve().parents[2]
WRITERS = ("dealer/dealing/station.py", "dealer/dealing/board.py", "dealer/dealing/recovery.py",
           "dealer/dealing/run.py", "dealer/journal/store.py", "dealer/journal/postgres_journal.py")
"""The modules that record events."""
READERS = {"dealer/journal/run_report.py": "fold", "dealer/journal/narrative.py": "_fixed"}
"""Readers that match on every event class (mypy checks each `match` complete with `assert_never`)."""


def constructed(path: str) -> set[str]:
    """Names of the calls a module makes (`Name(...)`, `events.Name(...)`), and the step events a
    mapping names (`STEP_EVENTS`)."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            names.add(func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else "")
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "STEP_EVENTS":
            assert isinstance(node.value, ast.Dict)
            names |= {v.id for v in node.value.values if isinstance(v, ast.Name)}
    return names


def matched(path: str, function: str) -> set[str]:
    """The classes named in the `case` patterns of `function` in `path`."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    (fn,) = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function]
    classes = [p.cls for p in ast.walk(fn) if isinstance(p, ast.MatchClass)]  # `Verified()` or `events.Verified()`
    return {c.id if isinstance(c, ast.Name) else c.attr for c in classes if isinstance(c, ast.Name | ast.Attribute)}


def test_every_kind_has_one_class_and_every_class_is_written_somewhere() -> None:
    assert set(EVENTS) == set(EventKind)
    written = set().union(*(constructed(path) for path in WRITERS))
    never = sorted(cls.__name__ for cls in EVENTS.values() if cls.__name__ not in written)
    assert never == [], f"event classes no writer records: {never}"


@pytest.mark.parametrize(("path", "function"), READERS.items())
def test_every_reader_handles_every_class_written_and_no_other(path: str, function: str) -> None:
    names = matched(path, function)
    classes = {cls.__name__ for cls in EVENTS.values()} | {"Unknown"}
    assert classes - names == set(), f"{path}: {function} does not handle {sorted(classes - names)}"
    assert names - classes == set(), f"{path}: {function} matches what is no event: {sorted(names - classes)}"


SAMPLES: list[Event] = [
    *(cls() for cls in EVENTS.values()),
    RecountFault(faults_found=("F2", "F9"), counts=(12, 14, 13, 13), announced=(13, 13, 13, 13), busy=4.5),
    MachineFaultResumed(code=1, name="JAM", prompt="CLEAR_PATH", machine_detail=19),
    MachineFaultResumed(code=9, name="POWER_LOSS", after=Interruption.POWER_CUT),
    LinkResync(why=Interruption.SILENT_LINE, silent=31.0),
    InterruptedDeal(cards=29, cause=Interruption.POWER_CUT, busy=0.9),
    BoardRefused(code="F6", problem="turned", read="A:3:WN:Q"),
]


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: repr(e)[:60])
def test_an_event_goes_to_the_journal_and_back_as_it_was(event: Event) -> None:
    stored = json.loads(json.dumps(event.detail(), sort_keys=True))
    assert decode(kind_of(event), stored) == event


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: repr(e)[:60])
def test_words_never_name_a_card(event: Event) -> None:
    words = " ".join([event.text(), event.action(), *(f.text() for f in event.faults())])
    assert not set(words) & set("♠♥♦♣"), words


@pytest.mark.parametrize(("kind", "detail", "want"), [
    ("link-resync", {"why": "cable-pulled"}, LinkResync(why=Interruption.CABLE_PULLED)),
    ("link-resync", {"why": "silent-line", "silent": 31}, LinkResync(why=Interruption.SILENT_LINE, silent=31.0)),
    ("link-resync", {"why": "reconnected"}, Unknown(kind="link-resync", raw={"why": "reconnected"})),
    ("machine-fault-resumed", {"code": 1, "name": "JAM", "detail": 19, "prompt": "CLEAR_PATH"},
     MachineFaultResumed(code=1, name="JAM", machine_detail=19, prompt="CLEAR_PATH")),
    ("machine-fault", {"code": 1, "name": "JAM", "cards_dealt": 20, "busy": 2.5},
     MachineFault(code=1, name="JAM", cards_dealt=20, busy=2.5)),
    ("interrupted-deal", {"cards": 29, "busy": 1.0}, InterruptedDeal(cards=29, busy=1.0)),
    ("recount-fault", {"faults": ["F1"], "counts": [13, 12, 13, 13], "busy": 0.5},
     RecountFault(faults_found=("F1",), counts=(13, 12, 13, 13), busy=0.5)),
    ("board-refused", {"read": "A1:9:N:O", "problem": "another board"},
     BoardRefused(read="A1:9:N:O", problem="another board")),
    ("set-renamed", {"from": "A B", "to": "AB"}, Unknown(kind="set-renamed", raw={"from": "A B", "to": "AB"})),
    ("board-not-empty", {}, Unknown(kind="board-not-empty", raw={})),
])
def test_a_journal_of_the_version_before_still_reads(kind: str, detail: dict[str, object], want: Event) -> None:
    assert decode(kind, detail) == want


def test_an_interruption_is_counted_once_and_named_as_what_it_was() -> None:
    """A power cut is one fault, 'power cut', of the interruption group: its outcome (the deal cut short,
    the machine's own POWER_LOSS it kept its job over) is told but not counted again. A controller stop
    has no event of its own: the deal it cut short is the fault."""
    cut = LinkResync(why=Interruption.POWER_CUT)
    assert [(f.title, f.group) for f in cut.faults()] == [("power cut", FaultGroup.INTERRUPTION)]
    assert "power cut" in cut.text() and "controller" not in cut.text()
    assert InterruptedDeal(cards=29, cause=Interruption.POWER_CUT).faults() == ()
    assert MachineFaultResumed(name="POWER_LOSS", after=Interruption.POWER_CUT).faults() == ()
    stopped = InterruptedDeal(cards=29, cause=Interruption.CONTROLLER_STOPPED)
    assert [(f.title, f.group) for f in stopped.faults()] == [("controller stopped", FaultGroup.INTERRUPTION)]
    assert "(detail" not in MachineFaultResumed(name="JAM", machine_detail=19).text()


def test_the_module_imports_only_what_it_may() -> None:
    tree = ast.parse((ROOT / "dealer/journal/events.py").read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert {m for m in imported if m.startswith("dealer")} <= {"dealer.verify.fault_table", "dealer.verify.board_check",
                                                               "dealer.language"}, imported
    assert events.__doc__
