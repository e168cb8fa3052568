"""The fault table has one source, `_RULES` in `dealer.verify.fault_table`; every rendering is held to it.

Rendering checked: the table in the module's docstring (codes, Laws, actions, what blocks, the
precedence line). Run-time texts (titles, Laws in reports and progress lines) are read from the rules.
"""

from __future__ import annotations

import re

import pytest

from dealer.verify import PRECEDENCE, Action, FaultCategory, fault_table

DOC = fault_table.__doc__ or ""
ROWS = {m.group(1): m for m in re.finditer(r"^    (F\d+)\s+(Law [^ ].*?|-)\s{2,}.*?\s{2,}([A-Z_]+)\b", DOC, re.M)}
RULES = fault_table._RULES  # the source itself


def test_the_docstring_table_has_a_row_for_every_category_and_no_other() -> None:
    assert set(ROWS) - {"F0"} == {c.name for c in FaultCategory}


@pytest.mark.parametrize("code", list(FaultCategory), ids=lambda c: c.name)
def test_each_row_gives_the_law_and_the_action_of_the_rule(code: FaultCategory) -> None:
    row = ROWS[code.name]
    assert row.group(2).strip() == RULES[code].law == code.law
    assert Action[row.group(3)] is RULES[code].action


def test_only_the_categories_the_docstring_says_do_not_block_are_non_blocking() -> None:
    said = re.search(r"Every fault but (F\d+) \(and (F\d+) in a replay event\) blocks the board", DOC)
    assert said is not None
    assert [c.name for c in FaultCategory if not RULES[c].blocking] == [said.group(1)]


def test_the_precedence_line_is_the_precedence_used() -> None:
    line = re.search(r"^    (F\d+(?: > F\d+)+)$", DOC, re.M)
    assert line is not None
    assert tuple(FaultCategory[c] for c in line.group(1).split(" > ")) == PRECEDENCE
    assert set(PRECEDENCE) == set(FaultCategory)


def test_a_changed_rule_would_be_caught() -> None:
    """The check above is not vacuous: a row read with another Law or action does not match its rule."""
    row = ROWS["F3"]
    assert row.group(2).strip() != RULES[FaultCategory.F1].law
    assert Action[row.group(3)] is not RULES[FaultCategory.F1].action
