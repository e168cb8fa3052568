"""The director's language: which one a command or a page speaks, and the catalogue's words for it.

Messages are English in the code, marked `_()`, `n_()` (a count), `p_()` (in a context) or `N_()` (said
later), and said from the gettext catalogue (``locale/LANG/LC_MESSAGES/dealer.po``, compiled to ``.mo``) of
the language chosen: ``--lang``, else the environment as gettext reads it; argparse's words too. `speaking`
sets a request's.

May import: the standard library and Babel (the catalogues, a decimal sign); nothing else of this project.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import gettext
import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Final, Literal

DOMAIN: Final = "dealer"
LOCALE_DIR: Final = Path(__file__).parent / "locale"
LANGUAGES: Final = {"en": "English", "ru": "Русский"}
"""The languages spoken, by code; English is the source."""

_spoken: contextvars.ContextVar[tuple[str, gettext.NullTranslations] | None] = contextvars.ContextVar(
    "spoken", default=None)
_chosen: gettext.NullTranslations | None = None


def language_of(value: str) -> str | None:
    """The language a code names ('ru', 'ru_RU.UTF-8', 'RU-ru' -> 'ru'), or None for one not spoken."""
    code = value.strip().replace("-", "_").split(".")[0].split("_")[0].lower()
    return code if code in LANGUAGES else None


def translations(language: str | None) -> gettext.NullTranslations:
    """The catalogue of `language` (None: as the environment says), English where there is none."""
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[language] if language else None, fallback=True)


def choose(language: str | None = None) -> None:
    """Speak `language` (a code of `LANGUAGES`) from now on in this process, and in the programs it starts;
    None: the language the environment names. argparse's words follow."""
    global _chosen
    if language is not None:
        os.environ["LANGUAGE"] = language  # gettext's first choice, for argparse and for child processes
    gettext.bindtextdomain(DOMAIN, str(LOCALE_DIR))
    gettext.textdomain(DOMAIN)  # argparse says its words through the default domain
    _chosen = translations(language)


@contextlib.contextmanager
def spoken_while_running() -> Iterator[None]:
    """A command run in this process (the command line's `main`, called by a test or a program): the language
    it chose, and the LANGUAGE it set for the programs it starts, last as long as it runs."""
    global _chosen
    before, chosen = os.environ.get("LANGUAGE"), _chosen
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("LANGUAGE", None)
        else:
            os.environ["LANGUAGE"] = before
        _chosen = chosen


@contextlib.contextmanager
def speaking(language: str | None) -> Iterator[None]:
    """Within the block (a request of the console), speak `language` (None: as chosen for the process)."""
    token = _spoken.set((language, translations(language)) if language else None)
    try:
        yield
    finally:
        _spoken.reset(token)


def _now() -> gettext.NullTranslations:
    global _chosen
    spoken = _spoken.get()
    if spoken is not None:
        return spoken[1]
    if _chosen is None:
        _chosen = translations(None)
    return _chosen


def spoken_language() -> str:
    """The code of the language spoken now ('en' where no catalogue answers)."""
    spoken = _spoken.get()
    if spoken is not None:
        return spoken[0]
    language = _now().info().get("language", "")
    return language_of(language) or "en"


def _(message: str) -> str:
    """`message` in the language spoken."""
    return _now().gettext(message)


def n_(singular: str, plural: str, count: int) -> str:
    """The form of a message for `count`, by the language's plural rules (Russian has three)."""
    return _now().ngettext(singular, plural, count)


def p_(context: str, message: str) -> str:
    """`message` in the language spoken, as said in `context` (a word another language says two ways:
    'North' the seat, 'North' the pocket)."""
    return _now().pgettext(context, message)


def said_from(text: str, templates: Iterable[str]) -> str:
    """`text`, made in English from one of `templates` (messages marked `N_` with named fields: the English a
    file or a journal keeps), in the language spoken: the template's translation, filled with what `text`
    holds in its fields. A text of no template is returned as it is."""
    for template in templates:
        shape = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+?)", re.escape(template))
        found = re.fullmatch(shape, text)
        if found:
            return _(template).format(**found.groupdict())
    return text


ListStyle = Literal["standard", "or", "unit"]


def listed(items: Iterable[str], style: ListStyle = "standard") -> str:
    """`items` joined as the language spoken joins a list (Babel's list patterns): 'a, b, and c' in English,
    'a, b и c' in Russian; style 'or' for alternatives ('a, b или c'), 'unit' for values without a conjunction."""
    from babel.lists import format_list

    return format_list(list(items), style=style, locale=spoken_language())


def decimal(value: float, places: int | None = 1) -> str:
    """`value` to `places` decimals (None: as few as it needs, Python's ``g``) as the language spoken writes it:
    7.1 in English, 7,1 in Russian (the digits Python's, the decimal sign the language's, from Babel's locale
    data)."""
    text = f"{value:g}" if places is None else f"{value:.{places}f}"
    return text.replace(".", decimal_sign())


def decimal_sign() -> str:
    """The decimal sign of the language spoken: '.' in English, ',' in Russian (Babel's locale data)."""
    language = spoken_language()
    if language == "en":
        return "."
    from babel.numbers import get_decimal_symbol

    return get_decimal_symbol(language)


_LATIN: Final = dict(zip(
    "абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
    ["a", "b", "v", "g", "d", "e", "yo", "zh", "z", "i", "j", "k", "l", "m", "n", "o", "p", "r", "s", "t", "u", "f",
     "x", "cz", "ch", "sh", "shh", "``", "y`", "`", "e`", "yu", "ya"], strict=True))
"""Cyrillic in Latin letters, GOST 7.79-2000 system B (the Russian standard for writing Russian in ASCII)."""


def in_latin_letters(text: str) -> str:
    """`text` with its Cyrillic written in Latin letters (GOST 7.79-2000 B), for a wire or a display that
    carries ASCII only: 'вставьте сдачу 3' -> 'vstav`te sdachu 3'. Other text is left as it is."""
    out = []
    for char in text:
        latin = _LATIN.get(char.lower())
        if latin is None:
            out.append(char)
        else:
            out.append(latin.capitalize() if char.isupper() else latin)
    return "".join(out)


class Later:
    """Words said when they are read, in the language spoken there: what a message for many readers carries
    (each browser watching a run reads it in its own language). ``str()`` says them."""

    __slots__ = ("_say",)

    def __init__(self, say: Callable[[], str]) -> None:
        self._say = say

    def __str__(self) -> str:
        return self._say()

    def __repr__(self) -> str:
        return f"Later({self._say()!r})"


@dataclasses.dataclass(frozen=True, order=True)
class Sentence:
    """A sentence of the catalogue and its fields, kept as data (a count's key, a figure's name) and said when
    read (``str()``), in the language spoken there; a field that is a `Sentence` is said too."""

    template: str
    fields: tuple[tuple[str, str | Sentence], ...] = ()

    @classmethod
    def of(cls, template: str, **fields: str | Sentence) -> Sentence:
        """`template` (marked `N_`) with its fields."""
        return cls(template, tuple(sorted(fields.items())))

    def __str__(self) -> str:
        return _(self.template).format(**{name: str(value) for name, value in self.fields})


def said_now(value: object) -> str:
    """`value` said in the language spoken, for a JSON encoder's ``default``: `Later` words, or a refusal."""
    if isinstance(value, Later | Sentence):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def N_(message: str) -> str:  # noqa: N802 - gettext's name for a mark that translates later
    """`message` marked for the catalogue, said later with `_`."""
    return message
