"""The `dealer` command: a thin argparse layer, one module per command (``register(subparsers)``); errors
become one line and their exit code. Only the named command's module is imported (`COMMANDS` lists them).

May import: every package of `dealer` (`dealer.core`, `dealer.engines`, `dealer.formats`, `dealer.squaredeal`,
`dealer.verify`, `dealer.stats`, `dealer.printing`, `dealer.journal`, `dealer.dealing`, `dealer.plan`,
`dealer.serve`), `firmware_protocol.labels` and `hil` (for `dealer sim`).
"""

from __future__ import annotations

import argparse
import difflib
import errno
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Final, NoReturn

from dealer import __version__
from dealer.core.errors import DealerError, SystemRefused, UsageError, exit_code_table
from dealer.journal.database_url import hide_passwords
from dealer.language import LANGUAGES, N_, _, choose, language_of, spoken_while_running

# No command does linear algebra, so numpy's BLAS need not start a thread a CPU when numpy is imported:
# that start costs every command that handles deals a good part of its start-up, more on a busy machine.
# A value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

COMMANDS: Final = {
    # command -> its one-line summary in `dealer --help`, in the order shown
    "generate": N_("generate deals for a range of boards into a deal file"),
    "convert": N_("convert a deal file to another format"),
    "records": N_("print hand records (PDF or HTML) from a deal file"),
    "labels": N_("print Code 128 board labels (PDF or SVG)"),
    "curtains": N_("print curtain cards (PDF or HTML) from a deal file"),
    "squaredeal": N_("SquareDeal commit-reveal: publish a key hash, regenerate, verify"),
    "plan": N_("check a congress plan file and show its sessions and jobs"),
    "deal": N_("deal a deal file or a congress plan on dealing machines, checking and recounting every board"),
    "check": N_("recount boards already dealt and verify them against the deal file"),
    "ports": N_("list the serial ports and find the dealing machines on them"),
    "report": N_("run report of a journal: boards/hour per machine, faults, operator actions"),
    "history": N_("this computer's deal history (Law 6D2): show, list, forget, export, import"),
    "stats": N_("deal statistics against the exact probabilities of a perfect shuffle"),
    "sim": N_("serve a simulated dealing machine (a pseudo-terminal, or --tcp)"),
    "demo": N_("deal a session on simulated machines with faults injected (no hardware)"),
    "serve": N_("the duplication-room console: a live web page of every machine and board"),
}
COMMAND_MODULES: Final = tuple(f"{__name__}.{command}" for command in COMMANDS)

EXAMPLES = N_("""examples:
  dealer demo                                       a session dealt on simulated machines, with faults
  dealer ports --probe                              which serial port the dealing machine is on
  dealer generate --boards 1-32 -o session.pbn      fresh deals (nothing secret is printed)
  dealer deal session.pbn --port /dev/ttyUSB0       deal them: label check, deal, recount, journal
  dealer deal --plan congress.toml                  a congress: every session on every machine
  dealer COMMAND --help                             what a command does, with examples

Results and summaries go to standard output, progress and diagnostics to standard error: `dealer deal
... > deal.log` keeps the summary, and the screen shows the progress (live on a terminal; --plain for
one line an event).""")


def epilog() -> str:
    """The end of ``dealer --help``: examples, where output goes, and the exit codes, in the language spoken."""
    return _(EXAMPLES) + "\n\n" + _("exit codes (the same for every command):") + "\n" + exit_code_table()


class OneLineParser(argparse.ArgumentParser):
    """A parser whose refusal of a command line is a `UsageError` naming the command and the option: one
    line on stderr and exit 2, as every other error (``dealer COMMAND --help`` shows the options)."""

    def error(self, message: str) -> NoReturn:
        wrong = getattr(self, "wrong_command", None)
        if wrong is not None:
            near = difflib.get_close_matches(wrong, COMMANDS, n=1)
            if near:
                raise UsageError(_("'{wrong}' is not a command of dealer; did you mean 'dealer {command}'? (dealer "
                                   "--help lists them)").format(wrong=wrong, command=near[0]))
            raise UsageError(_("'{wrong}' is not a command of dealer; its commands: {commands} (dealer --help tells "
                               "what each does)").format(wrong=wrong, commands=", ".join(COMMANDS)))
        named = getattr(self, "command", None)  # the top parser refuses a command's unknown options too
        raise UsageError(_("{problem} (see {command} --help)").format(
            problem=message, command=f"{self.prog} {named}" if named else self.prog))


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The `dealer` parser with `command` registered by its module if it is one of `COMMANDS`; else
    every command listed with its summary alone (enough for help and for naming an unknown command),
    without importing any command module."""
    parser = OneLineParser(
        prog="dealer", description=_("Open controller for duplicate-bridge dealing machines."), epilog=epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"dealer {__version__}",
                        help=_("show the program's version and exit"))
    parser.add_argument("--debug", action="store_true", help=_("show the traceback of an error"))
    _add_lang(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                help=_("what to do (dealer COMMAND --help tells more)"))
    if command in COMMANDS:
        importlib.import_module(f"{__name__}.{command}").register(sub)
        parser.command = command  # type: ignore[attr-defined]
        for each in sub.choices.values():
            _add_lang_to_all(each)
    else:
        for name, summary in COMMANDS.items():
            sub.add_parser(name, help=_(summary))
        if command is not None:
            parser.wrong_command = command  # type: ignore[attr-defined]
    return parser


def _add_lang(parser: argparse.ArgumentParser) -> None:
    """--lang, which every command takes (read before the command line is parsed: `language_named`)."""
    parser.add_argument("--lang", metavar="LANG",
                        help=_("the language of what the command says: {languages} (default: the environment's "
                               "LANGUAGE, LC_ALL, LC_MESSAGES or LANG)").format(languages=", ".join(LANGUAGES)))


def _add_lang_to_all(parser: argparse.ArgumentParser) -> None:
    """--lang on `parser` and on every parser below it (history list, squaredeal create)."""
    _add_lang(parser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for each in action.choices.values():
                _add_lang_to_all(each)


def language_named(argv: Sequence[str]) -> str | None:
    """The language --lang names anywhere in an argument list (the last if given twice); `UsageError` for one
    not spoken."""
    named = None
    for k, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--lang" and k + 1 < len(argv):
            named = argv[k + 1]
        elif arg.startswith("--lang="):
            named = arg.removeprefix("--lang=")
    if named is None:
        return None
    code = language_of(named)
    if code is None:
        raise UsageError(_("--lang {language}: not a language of dealer; it speaks {languages}").format(
            language=named, languages=", ".join(LANGUAGES)))
    return code


def command_named(argv: Sequence[str]) -> str | None:
    """The command an argument list names: its first word that is not an option (of the options before a
    command, only --lang takes a value)."""
    words = iter(argv)
    for arg in words:
        if arg == "--lang":
            next(words, None)
        elif not arg.startswith("-"):
            return arg
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 success, see `dealer.core.errors` for the others).
    A signal at any instant, while the command's modules load too, ends it in one line (exit 130)."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    if argv is None:  # the process's own command line: a password in a URL, not for other users to read
        hide_passwords(sys.argv)
    args = argparse.Namespace(debug="--debug" in arguments, command=None)
    with spoken_while_running():
        try:
            choose(language_named(arguments))
        except UsageError as exc:
            choose(None)
            return _fail(args, exc, exc.exit_code)
        return _run(arguments, args)


def _run(arguments: list[str], args: argparse.Namespace) -> int:
    from dealer.cli.signals import interrupted_line, signal_beneath, stopping_on_signals

    try:
        with stopping_on_signals():
            parser = build_parser(command_named(arguments))
            if command_named(arguments) is None and not any(a.startswith("-") and a != "--lang" and
                                                            not a.startswith("--lang=") for a in arguments):
                parser.print_help()  # bare `dealer` (or with --lang alone): its help, as pip gives it
                return 0
            try:
                args = parser.parse_args(arguments)
            except UsageError as exc:
                return _fail(args, exc, exc.exit_code)
            args.lang = language_named(arguments)  # wherever it stood (a command's own default would hide it)
            code: int | None = args.func(args)
        return code or 0
    except DealerError as exc:
        return _fail(args, exc, exc.exit_code)
    except KeyboardInterrupt as exc:
        # one write, so that no other thread's line can come between the line and its end
        sys.stderr.write(interrupted_line(exc, arguments, resumable=args.command == "deal") + "\n")
        return 130
    except OSError as exc:
        from dealer.language.system import os_error_text

        return _fail(args, os_error_text(exc), 1)
    except Exception as exc:
        stopped = signal_beneath(exc)
        if stopped is not None:  # Python wrapped the signal in an error of its own (a class made as it landed)
            sys.stderr.write(interrupted_line(stopped, arguments, resumable=args.command == "deal") + "\n")
            return 130
        # the system refused memory or a thread: no bug, nothing damaged
        if not (isinstance(exc, MemoryError) or
                (isinstance(exc, RuntimeError) and "can't start new thread" in str(exc))):
            raise
        from dealer.language.system import REASONS

        reason = (_("no new thread could be started") if isinstance(exc, RuntimeError)
                  else _(REASONS[errno.ENOMEM]))
        said = (_("the system refused a resource ({reason}); the journal is intact: once the system allows it, "
                  "continue with --resume") if args.command == "deal" else
                _("the system refused a resource ({reason}); nothing was damaged")).format(reason=reason)
        return _fail(args, said, SystemRefused.exit_code)


def _fail(args: argparse.Namespace, exc: BaseException | str, code: int) -> int:
    if getattr(args, "debug", False):
        import traceback

        traceback.print_exc()
    print(_("dealer: error: {error}").format(error=exc), file=sys.stderr)
    return code
