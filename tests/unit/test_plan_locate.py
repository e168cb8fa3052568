"""Where keys of a TOML document are written: the line numbers plan errors are placed at."""

from __future__ import annotations

import tomllib

from hypothesis import given, settings
from hypothesis import strategies as st

from dealer.plan.locate import key_lines, line_of
from tests.support.plan_texts import line_with

DOC = '''\
# comment with [brackets] and = signs
title = "a [not a table] # not a comment"

[event]
name = 'literal'
"quoted key" = 1
dotted.inner = true

[[sessions]]
name = "ONE"
boards = [
  "1-4",   # first
  "5-8",
]
source = { file = "x.pbn", format = "pbn" }

[[sessions.sections]]
name = "A"

[[sessions.sections]]
name = "B"
notes = """
line one
[[not.a.table]]
"""

[[sessions]]
name = "TWO"

[sessions.source]
engine = "shuffle"

[[sessions.sections]]
copies = 3
'''


def test_the_document_is_valid_toml() -> None:
    tomllib.loads(DOC)


def test_keys_tables_and_array_items_are_placed_on_their_lines() -> None:
    lines = key_lines(DOC)
    assert lines[("title",)] == line_with(DOC, "title =")
    assert lines[("event",)] == line_with(DOC, "[event]")
    assert lines[("event", "name")] == line_with(DOC, "name = 'literal'")
    assert lines[("event", "quoted key")] == line_with(DOC, '"quoted key"')
    assert lines[("event", "dotted", "inner")] == line_with(DOC, "dotted.inner")
    assert lines[("sessions", 0)] == line_with(DOC, "[[sessions]]", 1)
    assert lines[("sessions", 0, "boards", 1)] == line_with(DOC, '"5-8"')
    assert lines[("sessions", 0, "source", "format")] == line_with(DOC, "source = {")
    assert lines[("sessions", 0, "sections", 1, "name")] == line_with(DOC, 'name = "B"')
    assert lines[("sessions", 0, "sections", 1, "notes")] == line_with(DOC, 'notes = """')
    assert lines[("sessions", 1, "name")] == line_with(DOC, 'name = "TWO"')
    assert lines[("sessions", 1, "source", "engine")] == line_with(DOC, 'engine = "shuffle"')
    assert lines[("sessions", 1, "sections", 0, "copies")] == line_with(DOC, "copies = 3")


def test_text_inside_strings_defines_nothing() -> None:
    lines = key_lines(DOC)
    assert ("not",) not in lines
    assert not any("not" in p for p in lines)
    assert len([p for p in lines if p[:1] == ("sessions",) and len(p) == 2]) == 2


def test_a_missing_key_is_placed_at_the_nearest_table_that_is_written() -> None:
    lines = key_lines(DOC)
    assert line_of(lines, ("sessions", 1, "sections", 0, "name")) == line_with(DOC, "[[sessions.sections]]", 3)
    assert line_of(lines, ("sessions", 1, "boards")) == line_with(DOC, "[[sessions]]", 2)
    assert line_of(lines, ("nowhere",)) is None


_keys = st.text(alphabet="abcxyz_-", min_size=1, max_size=6)
_values = st.one_of(st.integers(), st.booleans(), st.text(alphabet=' aZ9"\'\\#[]{}=,.é', max_size=8),
                    st.lists(st.integers(), max_size=3))


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(_keys, st.dictionaries(_keys, _values, max_size=4), min_size=1, max_size=4))
def test_every_key_of_generated_documents_is_found_on_its_line(tables: dict[str, dict[str, object]]) -> None:
    out: list[str] = []
    expected: dict[tuple[str, ...], int] = {}
    for table, items in tables.items():
        out.append(f"[{table}]")
        expected[(table,)] = len(out)
        for key, value in items.items():
            out.append(f"{key} = {_toml(value)}  # {key} = [x]")
            expected[(table, key)] = len(out)
    text = "\n".join(out) + "\n"
    tomllib.loads(text)
    lines = key_lines(text)
    for path, line in expected.items():
        assert lines[path] == line


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(str, value)) + "]"
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'
