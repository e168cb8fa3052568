"""A machine's fault in a director's words: every fault the protocol names has words, none shows its wire
name, and the machine's detail number is said as what it means (PROTOCOL.md's FaultCode table) or not at all."""

from __future__ import annotations

import pytest

from dealer.dealing.machine import MachineFaultKind
from dealer.journal.events import MACHINE_FAULT_WORDS, MachineFaultResumed, machine_fault_detail, machine_fault_title
from tests.support.plain_words import line_problems


@pytest.mark.parametrize("kind", [k for k in MachineFaultKind if k is not MachineFaultKind.UNKNOWN], ids=str)
def test_every_fault_the_machine_can_name_has_words_without_its_wire_name(kind: MachineFaultKind) -> None:
    title = machine_fault_title(kind.value)
    assert title == MACHINE_FAULT_WORDS[kind.value] and kind.value not in title and "_" not in title
    line = f"board 3: {MachineFaultResumed(code=1, name=kind.value, machine_detail=19).text()}"
    meant = ("after 19 cards", "door 19", "the maker's fault number 19")  # the detail said as what it is
    assert line_problems(line) == [] and "19" not in [line := line.replace(m, "") for m in meant][-1]


@pytest.mark.parametrize(("name", "detail", "said"), [
    ("JAM", 19, " after 19 cards"),                 # cards dealt before the jam
    ("UNREADABLE_CARD", 1, " after 1 card"),        # cards dealt before the card that could not be read
    ("MISFEED", 2, " into the South pocket"),       # the pocket the stray card went to
    ("MISFEED", 0xFFFF, ""),                        # unknown
    ("DOOR_OPEN", 2, " (door 2)"),
    ("DUPLICATE_CARD", 12, ""),                     # the card read twice: never said
    ("HARDWARE", 77, " (the maker's fault number 77: see the machine's manual)"),
    ("EMPTY_HOPPER", 1, ""),
])
def test_the_detail_is_said_as_what_it_means(name: str, detail: int, said: str) -> None:
    assert machine_fault_detail("the fault", name, detail) == "the fault" + said


def test_a_fault_number_this_program_does_not_know_points_to_the_manual() -> None:
    assert machine_fault_title("42") == "machine fault number 42 (see the machine's manual)"
