"""The dealer language as the reference program reads it: precedence and arithmetic (the values it printed
for each expression), statements, comments, and the one-line errors: syntax with line and column, unknown
and redefined variables, features refused by name."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import numpy as np
import pytest

from dealer.core.errors import FormatError
from dealer.prepared import Compiled, ScriptError, ScriptRunError, parse_script

# expression -> the value `dealer` 20211121 printed for it (action average "v" EXPR on one deal)
REFERENCE_VALUES = {
    "1 ? 0 : 1 ? 2 : 3": 0, "0 ? 5 : 1 ? 2 : 3": 2, "1 ? 1 ? 7 : 8 : 9": 7, "7 * 3 / 2": 10, "7 / 2 * 3": 9,
    "2 == 2 != 0": 1, "3 != 2 == 0": 0, "3 == 2 != 1": 1, "2 < 3 == 1": 1, "1 == 3 < 2": 0, "5 < 3 < 1": 1,
    "1 < 0 <= 0": 1, "0 <= 0 < 1": 0, "0 > 1 >= 0": 1, "1 >= 2 > 0": 0, "0 <= 2 > 1": 0, "2 > 1 <= 0": 0,
    "10 - 2 + 3": 11, "1 - 2 + 3": 2, "not 0 + 5": 6, "! 2 * 3": 0, "not 1 == 0": 1, "-7 / 2": -3, "-7 % 3": -1,
    "2 + 3 * 4": 14, "1 or 0 and 0": 1, "8 / 4 % 3": 2, "8 % 5 / 2": 1, "9 % 5 * 2": 8, "3 * 5 % 4": 3,
    "1 ? 2 : 3 + 10": 2, "0 ? 2 : 3 + 10": 13, "5 and 7": 1, "1 + 2 == 3 and 4": 1, "0 - -3": 3, "2 * -3": -6,
    "2 -3": -1, "2 ? 3 : 4 ? 5 : 6 == 6": 3, "0 ? 0 : 1 ? 1 : 0 ? 3 : 4": 1,
}
DEAL = np.repeat(np.arange(4, dtype=np.uint8), 13)[None, :]  # north holds the spades, east the hearts, ...


@pytest.mark.parametrize("expression", REFERENCE_VALUES)
def test_an_expression_has_the_value_the_reference_program_gives(expression: str) -> None:
    script = parse_script(f'action average "v" {expression}')
    assert int(Compiled(script).values(script.actions[0].exprs[0], DEAL)[0]) == REFERENCE_VALUES[expression]


def test_statements_comments_and_variables_are_read() -> None:
    script = parse_script("""# a comment line
generate 5000000 produce 24
dealer west
vulnerable EW
/* a block
   over lines */ pointcount 6 4 2 1
opener = hcp(north) >= 12 // the opener
   and spades(north) >= 5
condition opener
action printoneline, average "pts" hcp(north), frequency "spades" (spades(north), 5, 8)
""", "lesson.dlr")
    assert (script.generate, script.produce, script.dealer, script.vulnerable) == (5000000, 24, 3, "EW")
    assert script.pointcount == (6, 4, 2, 1) + (0,) * 9
    assert script.prints == ["printoneline"]
    assert [(a.kind, a.label, a.bounds) for a in script.actions] == [("average", "pts", ()),
                                                                       ("frequency", "spades", (5, 8))]
    values = Compiled(script).values(script.actions[0].exprs[0], DEAL)
    assert int(values[0]) == 13  # north's spades AKQJ under 6 4 2 1


def test_an_action_list_may_end_in_a_comma_and_a_label_may_hold_a_line_break() -> None:
    # as scripts from the field are written (the reference program reads both)
    script = parse_script('hcp(north) > 10\naction average "a" hcp(north),\n'
                          'frequency "two\nlines" (spades(north), 0, 5),\n')
    assert [(a.kind, a.label) for a in script.actions] == [("average", "a"), ("frequency", "two\nlines")]


def test_the_last_condition_wins() -> None:
    script = parse_script("hcp(north) > 30\nspades(north) == 13\n")
    assert Compiled(script).accepts(DEAL).tolist() == [True]


@pytest.mark.parametrize(("text", "line", "column", "words"), [
    ("hcp(north) >= \n", 1, 12, "ends in the middle"),
    ("x = hcp(north)\nx >= 12 and\n  hcp(south) >== 3\n", 3, 16, "syntax error at '='"),
    ("hcp(north) > 10 # why\n", 1, 17, "'#' starts a comment only at the beginning of a line"),
    ("spades(nort) > 3\n", 1, 8, "syntax error"),
])
def test_a_syntax_error_is_one_line_with_line_and_column(text: str, line: int, column: int, words: str) -> None:
    with pytest.raises(ScriptError) as caught:
        parse_script(text, "lesson.dlr")
    message = str(caught.value)
    assert "\n" not in message and caught.value.exit_code == 2
    assert message.startswith(f"lesson.dlr, line {line}, column {column}: "), message
    assert words in message


@pytest.mark.parametrize(("text", "name"), [
    ("tricks(north, spades) >= 10", "tricks"), ("rnd(10) > 3", "rnd"),
    ("imps(10) > 0", "imps"), ("action printes(hcp(north))", "printes"), ("action evalcontract", "evalcontract"),
    ("predeal spades(north) == 3", "predeal of a suit's length"),
])
def test_an_unsupported_feature_is_refused_by_name(text: str, name: str) -> None:
    with pytest.raises(ScriptError) as caught:
        parse_script(text + "\n", "s.dlr")
    assert f": {name} is not supported here" in str(caught.value)


def test_variables_must_be_defined_once_and_before_use() -> None:
    with pytest.raises(ScriptError, match="unknown variable opener"):
        parse_script("opener and hcp(south) > 5\n")
    with pytest.raises(ScriptError, match="line 2, column 1: the variable a is defined twice"):
        parse_script("a = 1\na = 2\n")


def test_bounds_are_checked_before_work() -> None:
    with pytest.raises(FormatError, match="at most 9 digits"):
        parse_script("hcp(north) > 1234567890\n")
    with pytest.raises(FormatError, match="at most 1048576 bytes"):
        parse_script("#" + "x" * (1 << 20) + "\n")
    with pytest.raises(ScriptError, match="at most 1000 values"):
        parse_script("action frequency (hcp(north), 0, 5000)\n")


def test_a_division_by_zero_is_an_error_only_where_it_is_evaluated() -> None:
    script = parse_script("spades(east) > 0 and 10 / spades(east) > 1\n", "d.dlr")
    assert Compiled(script).accepts(DEAL).tolist() == [False]  # east has no spades: the division is not reached
    script = parse_script("10 / spades(east) > 1\n", "d.dlr")
    with pytest.raises(ScriptRunError, match="d.dlr, line 1, column 1: division by zero"):
        Compiled(script).accepts(DEAL)


@pytest.mark.skipif(sys.platform == "win32", reason="the folder's owner and mode are POSIX's")
def test_the_grammars_tables_are_kept_only_in_a_folder_of_the_users_own(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The parser's tables are read back as Python objects, so they are kept only where no one else can write:
    the cache folder is made 0700, and one that others may write is not used."""
    from dealer.prepared import script

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    kept = script._tables_file()
    assert kept is not None and Path(kept).parent == tmp_path / "cache" / "dealer"
    assert stat.S_IMODE(Path(kept).parent.stat().st_mode) == 0o700
    Path(kept).parent.chmod(0o777)
    assert script._tables_file() is None
