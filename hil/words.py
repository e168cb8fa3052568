"""The simulator's mark for a message said later (`N_`), as `dealer.language.N_` marks one for the catalogue:
hil imports nothing of dealer, and says its messages with the standard library's gettext."""

from __future__ import annotations


def N_(message: str) -> str:  # noqa: N802 - gettext's mark for a message said later
    """`message`, marked for the catalogue."""
    return message
