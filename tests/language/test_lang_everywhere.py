"""--lang is taken after every command and every step of a command (history list, squaredeal create), as
before the command."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from dealer.cli import COMMANDS, build_parser
from tests.support.spoken import CYRILLIC, dealer


def every_command_line() -> list[list[str]]:
    """Every command and every step under it, as words of the command line."""
    found = []

    def walk(parser: argparse.ArgumentParser, words: list[str]) -> None:
        found.append(words)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, each in action.choices.items():
                    walk(each, [*words, name])

    for command in COMMANDS:
        (sub,) = [a for a in build_parser(command)._actions if isinstance(a, argparse._SubParsersAction)]
        walk(sub.choices[command], [command])
    return found


COMMAND_LINES = every_command_line()


def test_the_steps_are_found() -> None:
    assert ["history", "list"] in COMMAND_LINES and ["squaredeal", "create"] in COMMAND_LINES
    assert len(COMMAND_LINES) >= len(COMMANDS) + 11


@pytest.mark.parametrize("words", COMMAND_LINES, ids=" ".join)
def test_lang_after_every_command_and_step_is_taken(words: list[str]) -> None:
    """The parser of `dealer WORDS` itself takes --lang (its help is Russian: nothing refused)."""
    parser = build_parser(words[0])
    with pytest.raises(SystemExit) as done:
        parser.parse_args([*words, "--lang", "ru", "--help"])
    assert done.value.code == 0
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    here = sub.choices[words[0]]
    for word in words[1:]:
        (steps,) = [a for a in here._actions if isinstance(a, argparse._SubParsersAction)]
        here = steps.choices[word]
    assert any("--lang" in action.option_strings for action in here._actions), words


def test_history_list_with_lang_after_it_speaks_russian(tmp_path: Path) -> None:
    history = tmp_path / "history.sqlite"
    assert dealer("history", "init", str(history))[0] == 0
    code, out, err = dealer("history", "list", "--lang", "ru", DEALER_HISTORY=str(history))
    assert code == 0, err
    assert out.strip() and CYRILLIC.search(out), out
    code, out, err = dealer("history", "list", DEALER_HISTORY=str(history))
    assert code == 0 and not CYRILLIC.search(out), out
