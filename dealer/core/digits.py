"""Numbers read from outside text (files, plans, URLs, the console's requests), bounded in digits before they
are parsed: Python refuses ``int()`` of over 4,300 digits with an error of its own, and no number this program
takes needs more than `MAX_DIGITS`. Past the bound, `TooManyDigits` says so in one line, without the digits.
"""

from __future__ import annotations

import re
from typing import Final

from dealer.language import _

MAX_DIGITS: Final = 30
"""The most digits of a number read from text (a seed of 2**64 has 20; a float's digits are counted too)."""
_RUNS: Final = re.compile(r"\d[\d_]*")


class TooManyDigits(ValueError):
    """A number with more digits than `MAX_DIGITS`: the message names its start and its length."""


def too_many(text: str, what: str | None = None) -> TooManyDigits:
    """The error of `text`, a number of too many digits (`what`: where it was found)."""
    said = _("a number of {count} digits ({start}...): numbers here have at most {most}").format(
        count=sum(ch.isdigit() for ch in text), start=text.strip()[:12], most=MAX_DIGITS)
    return TooManyDigits(f"{what}: {said}" if what else said)


def clipped(text: str) -> str:
    """`text` as a message quotes it: whole if short, else its start."""
    return repr(text) if len(text) <= 40 else repr(text[:24]) + "..."


def check_digits(text: str, what: str | None = None) -> str:
    """`text`, if no run of digits in it is longer than `MAX_DIGITS`; else `TooManyDigits`."""
    if longest_run(text) > MAX_DIGITS:
        raise too_many(text, what)
    return text


def longest_run(text: str | bytes) -> int:
    """The most digits (underscores between them not counted) of one run of digits in `text`."""
    if isinstance(text, bytes):
        text = text.decode("latin-1")
    return max((len(m.group().replace("_", "")) for m in _RUNS.finditer(text)), default=0)


def whole(text: str | bytes, what: str | None = None) -> int:
    """`int(text)`, its digits bounded first (`TooManyDigits`; `ValueError` for a text that is not a number)."""
    if isinstance(text, bytes):
        text = text.decode("latin-1")
    return int(check_digits(text, what))


def decimal(text: str, what: str | None = None) -> float:
    """`float(text)`, its digits bounded first (`TooManyDigits`; `ValueError` for a text that is not a number)."""
    return float(check_digits(text, what))
