"""The command table: each command module registers the command named like it, and a run that names
its command imports that command's module and not the others'."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from dealer.cli import COMMAND_MODULES, COMMANDS, build_parser, command_named

ROOT = Path(__file__).resolve().parents[2]


def commands_of(parser: argparse.ArgumentParser) -> set[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return set(sub.choices)


@pytest.mark.parametrize("module", COMMAND_MODULES)
def test_each_module_registers_the_command_named_like_it(module: str) -> None:
    command = module.rsplit(".", 1)[1]
    assert commands_of(build_parser(command)) == {command}


def test_help_and_unknown_commands_see_every_command() -> None:
    every = {m.rsplit(".", 1)[1] for m in COMMAND_MODULES}
    assert commands_of(build_parser()) == every
    assert commands_of(build_parser("nonsense")) == every


@pytest.mark.parametrize(("argv", "command"), [
    (["generate", "--boards", "1"], "generate"), (["--debug", "convert", "a", "b"], "convert"),
    (["--help"], None), ([], None),
])
def test_the_command_is_the_first_word_that_is_not_an_option(argv: list[str], command: str | None) -> None:
    assert command_named(argv) == command


def test_generating_imports_none_of_the_other_commands(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from dealer.cli import main\n"
        f"main(['generate', '--boards', '1-4', '--engine', 'shuffle', '-o', {str(tmp_path / 'x.pbn')!r}])\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('dealer'))))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = run.stdout.split()
    assert "dealer.cli.generate" in loaded and "dealer.formats.pbn" in loaded
    for other in ("dealer.cli.convert", "dealer.cli.records", "dealer.printing", "dealer.plan",
                  "dealer.squaredeal", "dealer.formats.pbn_import"):
        assert other not in loaded


def test_each_command_module_registers_the_summary_help_lists() -> None:
    """`dealer --help` lists `COMMANDS` without importing the modules; each module says the same."""
    for command, summary in COMMANDS.items():
        sub = next(a for a in build_parser(command)._actions if isinstance(a, argparse._SubParsersAction))
        assert [(c.dest, c.help) for c in sub._choices_actions] == [(command, summary)]


HEAVY_FOR_HELP = ("numpy", "cryptography", "serial", "reportlab", "endplay", "tomllib", "hil", "firmware_protocol",
                  "dealer.engines", "dealer.formats", "dealer.printing", "dealer.plan", "dealer.dealing",
                  "dealer.verify", "dealer.squaredeal", "dealer.serve", "starlette", "uvicorn")


@pytest.mark.parametrize("argv", [["--help"], [], ["nonsense"]], ids=["help", "no-command", "unknown"])
def test_help_imports_no_command_module_and_no_library_a_command_uses(argv: list[str]) -> None:
    """What `python -m dealer --help` (and a run naming no or an unknown command) loads."""
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['dealer', *{argv!r}]\n"
        "try:\n"
        "    runpy.run_module('dealer', run_name='__main__')\n"
        "except SystemExit as exit:\n"
        "    code = exit.code\n"
        "print(code, ' '.join(sorted(sys.modules)))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    *shown, last = run.stdout.splitlines()
    exit_code, *loaded = last.split()
    assert exit_code == ("2" if argv == ["nonsense"] else "0")  # bare `dealer` prints its help, as pip does
    if argv:  # help lists the commands, and so does the error naming an unknown one
        assert "squaredeal" in ("\n".join(shown) if argv == ["--help"] else run.stderr)
    heavy = [m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY_FOR_HELP)]
    assert heavy == []
    # no command's module; the signal handling and the standard streams every command runs under (taken before
    # the parser is built) are the command line's own
    own = ("dealer.cli.signals", "dealer.cli.streams")
    assert [m for m in loaded if m.startswith("dealer.cli.") and m not in own] == []
