"""Help that teaches: every command and sub-step of `dealer` has a one-line help, a description and examples
in its ``--help``, and every value it takes (FILE, SQD, VALUE, RANGE, URL, ...) is explained."""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Iterator

import pytest

from dealer.cli import COMMANDS, build_parser, main


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...],
                                                                                          argparse.ArgumentParser]]:
    """Every parser under `parser`, with the words that reach it."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, (*path, name))


PARSERS = {path: parser for name in COMMANDS for path, parser in commands(build_parser(name)) if path[:1] == (name,)}
"""Every command's parser and its sub-steps' (a command's module registers it when it is named)."""
ALL = list(PARSERS)


def test_the_walk_sees_every_command_and_every_squaredeal_step() -> None:
    assert ("deal",) in ALL and ("check",) in ALL and ("ports",) in ALL
    assert {p[1] for p in ALL if len(p) == 2 and p[0] == "squaredeal"} == {
        "create", "add-phase", "publish", "set-dv", "generate", "verify"}


@pytest.mark.parametrize("path", ALL, ids=lambda p: " ".join(("dealer", *p)))
def test_every_help_has_a_description_and_an_example_of_itself(path: tuple[str, ...],
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([*path, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    usage, _, rest = text.partition("\n\n")
    description = rest.split("\n\n")[0]
    assert description.strip() and not description.lstrip().startswith(("positional", "options")), text
    examples = text.split("\nexamples:\n")[1] if "\nexamples:\n" in text else ""
    mine = " ".join(("dealer", *path))
    shown = [line.strip() for line in examples.splitlines() if line.strip().startswith("dealer ")]
    assert any(line == mine or line.startswith(mine + " ") for line in shown), text
    for line in shown:  # each example is a command line a shell can split, whatever its explanation
        words = shlex.split(line.split("  ")[0])
        assert words[0] == "dealer"


@pytest.mark.parametrize("path", ALL, ids=lambda p: " ".join(("dealer", *p)))
def test_every_value_a_command_takes_is_explained(path: tuple[str, ...]) -> None:
    parser = PARSERS[path]
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._VersionAction):
            continue
        assert action.help, f"dealer {' '.join(path)}: {action.metavar or action.dest} has no help"
        metavar = action.metavar if isinstance(action.metavar, str) else None
        if metavar is None and action.nargs != 0 and action.option_strings and not action.choices:
            pytest.fail(f"dealer {' '.join(path)} {action.option_strings[0]}: shows its dest in capitals, not a "
                        "placeholder that says what it is")


@pytest.mark.parametrize("path", [p for p in ALL if len(p) >= 1], ids=lambda p: " ".join(("dealer", *p)))
def test_every_command_has_its_line_in_the_list_of_commands(path: tuple[str, ...]) -> None:
    parent = PARSERS[path[:-1]] if len(path) > 1 else build_parser(path[0])
    (sub,) = [a for a in parent._actions if isinstance(a, argparse._SubParsersAction)]
    lines = {c.dest: c.help for c in sub._choices_actions}
    assert lines.get(path[-1]), f"dealer {' '.join(path)} has no one-line help"
    assert "\n" not in str(lines[path[-1]]) and not re.search(r"\.\s*$", str(lines[path[-1]]))


def test_bare_dealer_prints_its_help_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    """As pip does: the help on standard output, not an error."""
    from dealer.cli import main

    assert main([]) == 0
    said = capsys.readouterr()
    assert said.out.startswith("usage: dealer") and "exit codes" in said.out and said.err == ""
    assert main(["--lang", "ru"]) == 0
    assert capsys.readouterr().out.startswith("использование: dealer")
