"""The values command-line options take, each checked when the command line is read (argparse ``type=``),
before a command opens, reads or writes anything: one rule an option kind, the same in every command.

A value that breaks its rule is a usage error (exit 2) in one line naming the option. The board set rule
is the label grammar's, shared with congress plans (`dealer.core.boards.set_name_problem`). A plan's
language (`speak_the_plans`) is spoken where --lang names none.
"""

from __future__ import annotations

import argparse
import math

from dealer.core.digits import TooManyDigits, clipped, decimal, whole
from dealer.language import N_, _, choose


def count_from_1(text: str) -> int:
    """A whole number from 1 (copies, attempts, boards a page, machines)."""
    try:
        value = whole(text)
    except TooManyDigits as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    except ValueError:
        raise argparse.ArgumentTypeError(_("must be a whole number from 1; got {text}").format(text=clipped(text))) \
            from None
    if value < 1:
        raise argparse.ArgumentTypeError(_("must be at least 1; got {value}").format(value=value))
    return value


def seconds(text: str) -> float:
    """A time in seconds: a finite number above 0."""
    return _above_zero(text, N_("must be a number of seconds; got {text}"),
                       N_("must be a number of seconds above 0; got {text}"))


def positive_number(text: str) -> float:
    """A finite number above 0 (a speed factor)."""
    return _above_zero(text, N_("must be a number; got {text}"), N_("must be a number above 0; got {text}"))


def _above_zero(text: str, not_a_number: str, not_above_zero: str) -> float:
    try:
        value = decimal(text)
    except TooManyDigits as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    except ValueError:
        raise argparse.ArgumentTypeError(_(not_a_number).format(text=clipped(text))) from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(_(not_above_zero).format(text=clipped(text)))
    return value


def seed_text(text: str) -> str:
    """A seed as given: not empty (an empty one would silently be a fresh seed)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(_("is empty: give the seed, or leave the option out for a fresh one"))
    return text.strip()


def board_set(text: str) -> str:
    """A board set name as labels carry it (capitals): `set_name_problem`'s rule."""
    from dealer.core.boards import set_name_problem  # numpy: only for the commands that take a set

    problem = set_name_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text.strip().upper()


def board_range(text: str) -> str:
    """A board range as given (1-32, 5-20, 7, 1-16,21): checked by `parse_board_spans`' rule, an empty one
    refused (it is not 'every board')."""
    from dealer.core.boards import parse_board_spans
    from dealer.core.errors import UsageError

    try:
        parse_board_spans(text)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def speak_the_plans(args: argparse.Namespace, language: str | None) -> None:
    """Speak the plan's `lang` from here on, unless the command line named one (--lang goes first)."""
    if language is not None and getattr(args, "lang", None) is None:
        choose(language)
