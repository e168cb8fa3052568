"""Bridge as the printed outputs say it, in the language spoken: seats and their letters, the honours, no trump
and vulnerability (Russian: С В Ю З, Т К Д В, БК). The data keep N E S W and A K Q J; these are what a page shows.
"""

from __future__ import annotations

from typing import Final

from dealer.core.boards import Vulnerability
from dealer.language import N_, _

SEAT_NAMES: Final = (N_("North"), N_("East"), N_("South"), N_("West"))
SEAT_LETTERS: Final = N_("N E S W")
HONOUR_LETTERS: Final = N_("A K Q J")
NO_TRUMP: Final = N_("NT")
VUL_NAMES: Final = {Vulnerability.NONE: N_("None"), Vulnerability.NS: N_("N-S"), Vulnerability.EW: N_("E-W"),
                    Vulnerability.BOTH: N_("Both")}
STRAIN_SYMBOLS: Final = ("NT", "♠", "♥", "♦", "♣")


def seat_letters() -> tuple[str, str, str, str]:
    """N E S W as printed."""
    letters = _(SEAT_LETTERS).split()
    return (letters[0], letters[1], letters[2], letters[3]) if len(letters) == 4 else ("N", "E", "S", "W")


def seats_shown(seats: str) -> str:
    """Seat letters ('NS', 'N') as printed."""
    shown = seat_letters()
    return "".join(shown["NESW".index(s)] if s in "NESW" else s for s in seats)


def honours() -> dict[str, str]:
    """A K Q J -> their letters as printed."""
    return dict(zip("AKQJ", _(HONOUR_LETTERS).split(), strict=False))


def strains_shown() -> tuple[str, ...]:
    """NT ♠ ♥ ♦ ♣ as printed."""
    return (_(NO_TRUMP), *STRAIN_SYMBOLS[1:])


def seat_name(seat: int) -> str:
    return _(SEAT_NAMES[seat])


def vulnerability_name(vulnerability: Vulnerability) -> str:
    return _(VUL_NAMES[vulnerability])
