"""The catalogues kept up to date with the code, for the people who write and translate its words:
    python -m dealer.language.catalogue check     # exit 1 naming what is missing, stale, untranslated, fuzzy, unglossed
    python -m dealer.language.catalogue update    # each LANG's dealer.po gains the new messages, loses the gone
    python -m dealer.language.catalogue compile   # each dealer.po into its dealer.mo
    python -m dealer.language.catalogue init LANG # start a language: LANG's dealer.po, every message untranslated

A new language: `init LANG`, translate it, add LANG to `dealer.language.LANGUAGES`, `compile`, `check`. The
messages are what `_`, `N_`, `n_` and `p_` mark in `dealer` and `hil`, and argparse's own words.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterator
from pathlib import Path

from babel.core import Locale, UnknownLocaleError
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir, extract_from_file
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from dealer.language import DOMAIN, LANGUAGES, LOCALE_DIR, glossary

ROOT = Path(__file__).resolve().parents[2]
KEYWORDS = {"_": None, "N_": None, "n_": (1, 2), "p_": ((1, "c"), 2), "gettext": None, "ngettext": (1, 2)}
SOURCES = ("dealer", "hil")
ARGPARSE = "argparse.py"
ARGPARSE_OF = (3, 11)
"""The Python whose argparse's words the catalogues hold (another Python's argparse may say a few others:
those are not asked of the catalogue there, and argparse's words are never called stale)."""


MessageId = tuple[str | tuple[str, ...], str | None]
"""A message (or a message's singular and plural) and its context (None for none: `p_` gives one)."""


def extracted() -> dict[MessageId, list[tuple[str, int]]]:
    """Every message the code marks, with where it stands (argparse's too)."""
    found: dict[MessageId, list[tuple[str, int]]] = {}
    for folder in SOURCES:
        for name, line, message, _comments, context in extract_from_dir(
                ROOT / folder, [("**.py", "python")], keywords=KEYWORDS, strip_comment_tags=True):
            found.setdefault((message, context), []).append((f"{folder}/{name}", line))
    for name, line, message, _comments, context in extract_from_dir(
            ROOT / "dealer" / "serve" / "static", [("**.js", "javascript")], keywords={"t": None, "N_": None}):
        found.setdefault((message, context), []).append((f"dealer/serve/static/{name}", line))
    for line, message, _comments, context in extract_from_file("python", argparse.__file__, keywords=KEYWORDS):
        found.setdefault((message, context), []).append((ARGPARSE, line))
    return found


def po_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def read(language: str) -> Catalog:
    with po_path(language).open("rb") as f:
        return read_po(f, locale=language, domain=DOMAIN)


def problems(language: str) -> Iterator[str]:
    """What is wrong with a language's catalogue against the code: a message missing, one the code no
    longer has, one untranslated, one fuzzy, a compiled file behind its source."""
    catalogue = read(language)
    wanted = extracted()
    have: dict[MessageId, Message] = {(tuple(m.id) if isinstance(m.id, list | tuple) else m.id, m.context): m
                                      for m in catalogue if m.id}
    for key, places in wanted.items():
        if key not in have and (places[0][0] != ARGPARSE or sys.version_info[:2] == ARGPARSE_OF):
            file, line = places[0]
            yield f"{language}: not in the catalogue: {_named(key)} ({file}:{line})"
    for key, message in have.items():
        if key not in wanted and not any(file == ARGPARSE for file, _ in message.locations):
            yield f"{language}: the code no longer says {_named(key)}"
        elif message.fuzzy:
            yield f"{language}: fuzzy: {_named(key)}"
        elif not (all(message.string) if isinstance(message.string, tuple) else message.string):
            yield f"{language}: not translated: {_named(key)}"
    for breach in glossary.breaches(glossary.translations(catalogue), glossary.TERMS.get(language, ())):
        yield (f"{language}: {breach.message!r} says a form the glossary forbids for {breach.term!r}: "
               f"{breach.translation!r}")
    if compiled(catalogue) != (po_path(language).with_suffix(".mo")).read_bytes():
        yield (f"{language}: {DOMAIN}.mo is not compiled from {DOMAIN}.po (run: python -m "
               "dealer.language.catalogue compile)")


def _named(key: MessageId) -> str:
    message_id, context = key
    return f"{message_id!r}" + (f" (context {context!r})" if context else "")


def compiled(catalogue: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalogue)
    return out.getvalue()


def update(language: str) -> None:
    catalogue = read(language)
    catalogue.update(template(), no_fuzzy_matching=True)
    catalogue.obsolete.clear()
    catalogue.project, catalogue.version = "dealer", ""
    catalogue.msgid_bugs_address = catalogue.last_translator = "the dealer project"
    catalogue.fuzzy = False
    with po_path(language).open("wb") as f:
        write_po(f, catalogue, width=100, include_lineno=False)


def template() -> Catalog:
    """Every message the code marks, untranslated (what `init` and `update` start from)."""
    made = Catalog(domain=DOMAIN)
    for (message_id, context), places in extracted().items():
        made.add(message_id, locations=places, context=context)
    return made


def init(language: str) -> Path:
    """A new language's dealer.po (Babel's plural rules for it), every message untranslated; refuses to
    replace one that exists."""
    Locale.parse(language)  # UnknownLocaleError for a code Babel does not know
    path = po_path(language)
    if path.exists():
        raise FileExistsError(f"{path} exists already (update keeps it current)")
    catalogue = Catalog(locale=language, domain=DOMAIN, project="dealer", version="",
                        msgid_bugs_address="the dealer project", last_translator="the dealer project")
    for message in template():
        if message.id:
            catalogue.add(message.id, locations=message.locations, context=message.context)
    catalogue.fuzzy = False
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, catalogue, width=100, include_lineno=False)
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dealer.language.catalogue", description=__doc__.split("\n")[0])
    p.add_argument("action", choices=("check", "update", "compile", "init"))
    p.add_argument("language", nargs="?", metavar="LANG", help="the language init starts (a code: de, pl, fr_CA)")
    args = p.parse_args(argv)
    if args.action == "init":
        if not args.language:
            p.error("init needs LANG")
        try:
            print(f"made {init(args.language)}")
        except (FileExistsError, ValueError, UnknownLocaleError) as exc:
            print(exc, file=sys.stderr)
            return 1
        return 0
    languages = [code for code in LANGUAGES if code != "en"]
    if args.action == "check":
        found = [problem for language in languages for problem in problems(language)]
        for problem in found:
            print(problem)
        return 1 if found else 0
    for language in languages:
        if args.action == "update":
            update(language)
        po_path(language).with_suffix(".mo").write_bytes(compiled(read(language)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
