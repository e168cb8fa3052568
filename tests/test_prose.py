"""Prose that cannot drift: every project name and PROTOCOL.md section the docs cite exists.

Held here: each dotted name in backticks (`dealer.x.y`, `hil.x`, `firmware_protocol.x.Attr`) in a docstring
of dealer/, hil/, firmware_protocol/ or benchmarks/, or in README.md and docs/, imports and resolves; every
other name or file in single backticks in a docstring is one the project (or a library) has; each
PROTOCOL.md section they cite has a heading, and a sentence that names one section's subject cites that
section, not another (whether a citation is apt is otherwise for a reader to judge); the README's Layout
names every package of dealer/ (and its top-level modules), no folder that is not there, and the formats
of `dealer.formats`; each package's ``__init__`` says what it may import, and its modules import no more.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from dealer.formats import format_names
from tests.support.imports import imports_of, modules
from tests.support.paths import ROOT

PACKAGES = ("dealer", "hil", "firmware_protocol")
PROTOCOL = ROOT / "firmware_protocol" / "PROTOCOL.md"


# ---- where the prose is -------------------------------------------------------------------------

def docstrings(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of each string statement of a module: the docstrings of the module, its classes and
    functions, and the strings written under an assignment to document it."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            yield node.lineno, node.value.value


def python_files() -> list[Path]:
    return sorted(p for top in (*PACKAGES, "benchmarks") for p in (ROOT / top).rglob("*.py"))


def markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), ROOT / "firmware_protocol" / "c" / "README.md"]


def texts() -> Iterator[tuple[str, str]]:
    """(where, text) of every piece of prose held here."""
    for path in python_files():
        for line, text in docstrings(path):
            yield f"{path.relative_to(ROOT)}:{line}", text
    for path in markdown_files():
        yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")


# ---- dotted names -------------------------------------------------------------------------------

TOPS = "|".join(PACKAGES)
NAME = re.compile(rf"`~?((?:{TOPS})(?:\.[A-Za-z_]\w*)+)(?:\(\))?`")


def cited_names(text: str) -> list[str]:
    return NAME.findall(text)


def instance_attribute(cls: object, attr: str) -> bool:
    """Whether a method of the class `cls` sets ``self.attr``."""
    if not isinstance(cls, type):
        return False
    try:
        source = inspect.getsource(cls)
    except (OSError, TypeError):
        return False
    return re.search(rf"\bself\.{attr}\b *(?::[^=\n]+)?=[^=]", source) is not None


def resolves(dotted: str) -> bool:
    """Whether the longest importable prefix of `dotted` is a module holding the rest as attributes
    (a dataclass field, an annotated name or an attribute a method of the class sets count too)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError as exc:
            if exc.name is not None and not dotted.startswith(exc.name):
                raise  # a dependency missing, not the name
            continue
        for attr in parts[cut:]:
            if hasattr(obj, attr):
                obj = getattr(obj, attr)
            elif (attr in getattr(obj, "__dataclass_fields__", {}) or attr in getattr(obj, "__annotations__", {})
                  or instance_attribute(obj, attr)):
                obj = None
            else:
                return False
        return True
    return False


@cache
def prose() -> list[tuple[str, str]]:
    """Every piece of prose held here, read once (a test reads it, never the collection)."""
    return list(texts())


def test_every_cited_name_resolves() -> None:
    citations = sorted({(where, name) for where, text in prose() for name in cited_names(text)})
    assert len(citations) > 20
    gone = [f"{where} cites `{name}`" for where, name in citations if not resolves(name)]
    assert gone == [], "cited names that are not there:\n" + "\n".join(gone)


@pytest.mark.parametrize(("name", "found"), [
    ("dealer.core.boards.dealer_of", True),
    ("dealer.formats.pbn", True),
    ("firmware_protocol.labels.BoardLabel.payload", True),
    ("dealer.plan.Plan.machines", True),
    ("dealer.plan.Plan.no_such_attribute", False),
    ("dealer.core.boards.BoardLabel", False),
    ("dealer.dealing.journal", False),
    ("hil.no_such_module.Thing", False),
])
def test_the_resolver_tells_a_name_that_is_there_from_one_that_is_not(name: str, found: bool) -> None:
    assert resolves(name) is found


def test_names_are_found_in_every_backtick_form() -> None:
    text = "see :mod:`dealer.core.cards`, `~hil.model.Machine`, ``firmware_protocol.crc`` and `dealer.cli.main()`"
    assert cited_names(text) == ["dealer.core.cards", "hil.model.Machine", "firmware_protocol.crc", "dealer.cli.main"]


# ---- every other name in backticks --------------------------------------------------------------

WORD = re.compile(r"(?<![`\w])`~?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\(\))?`(?!`)")
"""A name in single backticks (a reference; a literal goes in double backticks), dotted or not."""
PATH = re.compile(r"(?<![`\w])`([\w.-]*/[\w./-]*\.\w+)`(?!`)")
"""A file in single backticks, by a path with a folder and a suffix."""


@cache
def project_names() -> set[str]:
    """Every name the project's code defines or takes: modules, classes, functions, parameters, keywords,
    names and attributes assigned, names imported, and the string constants shaped like a name (the keys
    of a journal's detail, the words of a table)."""
    names = set(dir(builtins))
    for path in python_files():
        names.add(path.stem)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            match node:
                case ast.FunctionDef(name=name) | ast.AsyncFunctionDef(name=name) | ast.ClassDef(name=name):
                    names.add(name)
                case ast.arg(arg=name) | ast.keyword(arg=str(name)):
                    names.add(name)
                case ast.Name(id=name, ctx=ast.Store()) | ast.Attribute(attr=name, ctx=ast.Store()):
                    names.add(name)
                case ast.Import(names=aliases) | ast.ImportFrom(names=aliases):
                    for alias in aliases:
                        names.update({(alias.asname or alias.name).split(".")[0], alias.name.split(".")[-1]})
                case ast.Constant(value=str(word)) if re.fullmatch(r"[A-Za-z_]\w*", word):
                    names.add(word)
    return names


def outside_name(dotted: str) -> bool:
    """Whether `dotted` is a module of the standard library or of a dependency, with the attributes named."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        return all((obj := getattr(obj, attr, None)) is not None for attr in parts[cut:])
    return False


def docstring_names() -> list[tuple[str, str]]:
    """(where, name) of each name in single backticks in a docstring that the dotted-name test does not hold."""
    found = set()
    for path in python_files():
        for line, text in docstrings(path):
            for name in WORD.findall(text):
                if not re.match(rf"(?:{TOPS})\.", name):
                    found.add((f"{path.relative_to(ROOT)}:{line}", name))
            for file in PATH.findall(text):
                found.add((f"{path.relative_to(ROOT)}:{line}", file))
    return sorted(found)




def missing(where: str, name: str) -> bool:
    """Whether a name in backticks is not there: a name is looked up part by part among what the project
    defines, or as a module of the standard library or a dependency; a file by its path from the module's
    folder, its package's, or the checkout's."""
    if "/" in name:
        module = ROOT / where.split(":")[0]
        places = (module.parent, module.parent.parent, ROOT, ROOT / "dealer")
        return not any((place / name).exists() for place in places)
    names = project_names()
    return not all(part in names for part in name.split(".")) and not outside_name(name)


def test_every_name_in_backticks_is_there() -> None:
    """A name the code no longer has (a function renamed, a file moved) fails here, all of them at once."""
    mentions = docstring_names()
    assert len(mentions) > 500
    gone = [f"{where} names `{name}`" for where, name in mentions if missing(where, name)]
    assert gone == [], "names in backticks that are not there:\n" + "\n".join(gone)


def test_the_name_check_tells_a_name_that_is_there_from_one_that_is_not() -> None:
    names = project_names()
    assert all(part in names for part in ("Journal", "advance", "machine_detail", "busy_lap"))
    assert not {"detail_code", "plan_problems", "track_places"} & names
    pages = "dealer/serve/pages.py:1"
    assert missing(pages, "static/console.js") and not missing(pages, "static/room.js")
    assert outside_name("threading.Thread.join") and not outside_name("threading.Thread.no_such")
    assert WORD.findall("`a`, ``literal``, `Journal.advance()`, `~x.y`") == ["a", "Journal.advance", "x.y"]


# ---- PROTOCOL.md sections -----------------------------------------------------------------------

HEADING = re.compile(r"^#{2,4} (\d+(?:\.\d+)*)\.? (.+)$", re.M)
SECTION = re.compile(r"PROTOCOL\.md,? (?:§ ?|sections? )?(\d+(?:\.\d+)*(?:(?:, | and )\d+(?:\.\d+)*)*)"
                     r"|§ ?(\d+(?:\.\d+)*)")
OTHER_DOCUMENT = re.compile(r"(?<!PROTOCOL)\.(?:md|tex|txt)\b|\b\d(?:st|nd|rd|th) ed\.")
"""Named just before a bare §, another document is the one cited (`research/domain.md` §1, a book's §6.2)."""
STOP = {"the", "and", "with", "from", "what", "which", "that", "this", "its", "one", "each", "for", "way", "notes",
        "before", "after", "when", "into"}


def sections() -> dict[str, str]:
    """Section number -> its heading and the headings of its subsections, lower case."""
    found: dict[str, str] = {}
    for number, title in HEADING.findall(PROTOCOL.read_text(encoding="utf-8")):
        parts = number.split(".")
        for depth in range(1, len(parts) + 1):
            key = ".".join(parts[:depth])
            found[key] = f"{found.get(key, '')} {title.lower()}".strip()
    return found


def stems(text: str) -> set[str]:
    """Words of four letters or more, less an ending, cut to five letters (kinds/kind, giving/gives)."""
    words = re.findall(r"[a-z]+", text.lower())
    return {re.sub(r"(ing|es|s)$", "", w)[:5] for w in words if len(w) >= 4 and w not in STOP}


def cited_sections(text: str) -> Iterator[tuple[tuple[str, ...], str]]:
    """(sections, the sentence citing them) for each citation of PROTOCOL.md in the text: one section, or
    several together ("PROTOCOL.md 2.3, 7.3")."""
    for match in SECTION.finditer(text):
        start = max(text.rfind(". ", 0, match.start()), text.rfind("\n\n", 0, match.start()), 0)
        sentence = text[start:match.start()]
        if match.group(2) and OTHER_DOCUMENT.search(text[max(start, match.start() - 80):match.start()]):
            continue
        yield tuple(re.findall(r"\d+(?:\.\d+)*", match.group(1) or match.group(2))), sentence


def off_subject(numbers: tuple[str, ...], sentence: str, headings: dict[str, str]) -> str | None:
    """The section whose subject the sentence names instead of those it cites: it shares no word with the
    headings of the sections cited and two words or more with those of another (not a part of one, nor
    one of its parts). None when the sentence is on the subject, or names none."""
    words = stems(sentence)
    if any(words & stems(headings.get(n, "")) for n in numbers):
        return None
    for other, titles in headings.items():
        related = any(other == n or other.startswith(f"{n}.") or n.startswith(f"{other}.") for n in numbers)
        if not related and len(words & stems(titles)) >= 2:
            return other
    return None


def test_every_cited_section_is_there_and_on_the_subject() -> None:
    citations = sorted({(where, numbers, sentence) for where, text in prose()
                        for numbers, sentence in cited_sections(text)})
    assert len(citations) > 5
    headings = sections()
    wrong = []
    for where, numbers, sentence in citations:
        wrong += [f"{where} cites PROTOCOL.md section {number}, which has no heading"
                  for number in numbers if number not in headings]
        other = off_subject(numbers, sentence, headings)
        if other is not None:
            wrong.append(f"{where} cites PROTOCOL.md section {', '.join(numbers)} for {sentence.strip()!r}, the "
                         f"subject of section {other} ({headings[other]!r})")
    assert wrong == [], "\n".join(wrong)


@pytest.mark.parametrize(("text", "cited"), [
    ("The kind follows from its type code's range (PROTOCOL.md section 3).", [(("3",), None)]),
    ("The kind of a message follows from its type code's range (PROTOCOL.md section 5).", [(("5",), "3")]),
    ("the board-label grammar (PROTOCOL.md §12)", [(("12",), None)]),
    ("Seconds the host waits before it gives up (PROTOCOL.md 4.5, 4.7)", [(("4.5", "4.7"), None)]),
    ("the states of the device, §6.1", [(("6.1",), None)]),
    ("Big Deal's numbering (`research/anchors-dealing.md` §2.4)", []),
    ("to full double precision (Numerical Recipes, 3rd ed., §6.2)", []),
])
def test_citations_are_read_and_judged(text: str, cited: list[tuple[tuple[str, ...], str | None]]) -> None:
    headings = sections()
    assert [(n, off_subject(n, s, headings)) for n, s in cited_sections(text)] == cited


def test_a_section_that_is_not_there_is_seen() -> None:
    assert [n for n, _ in cited_sections("a board's life (PROTOCOL.md section 42)")] == [("42",)]
    assert "42" not in sections()


# ---- what a package says it may import -----------------------------------------------------------

def package_folders() -> list[Path]:
    dealer = ROOT / "dealer"
    return [ROOT / "hil", ROOT / "firmware_protocol",
            *sorted(p for p in dealer.iterdir() if (p / "__init__.py").is_file())]


def may_import(folder: Path) -> list[str] | None:
    """The project names the package's "May import:" paragraph allows (up to a "never" or "nothing else"),
    or None without one. ``dealer`` itself (the version) any package may import."""
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))) or ""
    said = re.search(r"^May import:(.*?)(?:\n\n|\Z)", doc, re.M | re.S)
    if said is None:
        return None
    allowed = re.split(r"\bnever\b|\b[Nn]othing else\b", said.group(1))[0]
    return re.findall(rf"`((?:{TOPS})(?:\.\w+)*)`", allowed)


@pytest.mark.parametrize("folder", package_folders(), ids=lambda p: str(p.relative_to(ROOT)))
def test_each_package_says_what_it_may_import_and_imports_no_more(folder: Path) -> None:
    allowed = may_import(folder)
    package = ".".join(folder.relative_to(ROOT).parts)
    assert allowed is not None, f"{folder.relative_to(ROOT)}/__init__.py has no 'May import:' paragraph"
    imported = {n for p in modules(str(folder.relative_to(ROOT))) for n in imports_of(p)
                if n.split(".")[0] in PACKAGES and n not in {package, "dealer"} and not n.startswith(f"{package}.")}
    beyond = sorted(n for n in imported if not any(n == a or n.startswith(f"{a}.") for a in allowed))
    assert beyond == [], f"{package} imports {beyond}, which its 'May import:' does not name"


# ---- module docstrings stay short ---------------------------------------------------------------

MODULE_DOC_LINES = 8
"""A module docstring says what the module owns in a few lines; the reasons and the figures are in
docs/decisions/, a contract in the docstring of what it concerns or in a guide of docs/."""

LONG_BY_RIGHT = {
    "dealer/engines/shuffle.py": "the engine's specification, from which a reference is written bit for bit",
    "hil/fault_plan.py": "the fault-plan format: every kind, its trigger and its fields",
    "dealer/verify/fault_table.py": "the fault table as a director reads it, held to `_RULES` by a test",
}
"""Modules whose docstring is a contract the code implements, and may be long."""

TO_SHORTEN = (
    "dealer/core/cards.py", "dealer/core/godel.py",
    "dealer/dealing/recovery.py", "dealer/dealing/station.py", "dealer/dealing/transport.py",
    "dealer/formats/__init__.py", "dealer/formats/_codes.py", "dealer/formats/ber.py", "dealer/formats/bhg.py",
    "dealer/formats/bri.py", "dealer/formats/cds.py", "dealer/formats/csv.py", "dealer/formats/dge.py",
    "dealer/formats/dlm.py", "dealer/formats/dup.py", "dealer/formats/goe.py", "dealer/formats/json.py",
    "dealer/formats/lin.py", "dealer/formats/pbn.py", "dealer/formats/pbn_export.py",
    "dealer/formats/pbn_import.py", "dealer/formats/reading.py", "dealer/formats/rzd.py",
    "dealer/journal/failure.py", "dealer/journal/lock.py",
    "dealer/serve/auth.py", "dealer/serve/director.py", "dealer/serve/sources.py",
    "dealer/squaredeal.py", "hil/pty_sim.py",
)
"""Long docstrings not yet shortened (their modules were being changed when the others were): the next
pass shortens them, keeping a file format's layout where the code implements it, and takes each off."""


def module_doc_lines(path: Path) -> int:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    return len(doc.strip().splitlines()) if doc else 0


def module_files() -> list[Path]:
    return sorted(p for top in PACKAGES for p in (ROOT / top).rglob("*.py"))


@pytest.mark.parametrize("path", module_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_module_docstrings_are_short(path: Path) -> None:
    where = str(path.relative_to(ROOT))
    if where in LONG_BY_RIGHT or where in TO_SHORTEN:
        return
    lines = module_doc_lines(path)
    assert lines <= MODULE_DOC_LINES, (
        f"{where}: the module docstring has {lines} lines, more than {MODULE_DOC_LINES}: say what the module "
        "owns; move figures and reasons to docs/decisions/, a contract to what it concerns")


def test_the_long_docstring_lists_name_modules_that_are_there() -> None:
    for where in (*LONG_BY_RIGHT, *TO_SHORTEN):
        assert (ROOT / where).is_file(), f"tests/test_prose.py allows a long docstring in {where}, not there"
    assert set(LONG_BY_RIGHT).isdisjoint(TO_SHORTEN)


def test_a_long_module_docstring_is_seen(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('"""One.\n\n' + "more\n" * MODULE_DOC_LINES + '"""\n\nX = 1\n', encoding="utf-8")
    assert module_doc_lines(module) == MODULE_DOC_LINES + 2
    module.write_text('"""One line."""\n', encoding="utf-8")
    assert module_doc_lines(module) == 1


# ---- the README's Layout ------------------------------------------------------------------------

def layout() -> dict[str, list[str]]:
    """The README's Layout block: each top-level entry (``dealer/``) with the entries indented under it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"^```\n(.*?)^```$", section, re.M | re.S)
    assert block, "the README's Layout section has no block"
    entries: dict[str, list[str]] = {}
    top = ""
    for line in block.group(1).splitlines():
        name = re.match(r"^( *)([\w.-]+/|[\w.-]+\.py)\s", line + " ")
        if name and not name.group(1):
            top = name.group(2)
            entries[top] = []
        elif name and len(name.group(1)) == 2:
            entries[top].append(name.group(2))
    return entries


def test_the_layout_names_every_package_and_nothing_that_is_not_there() -> None:
    entries = layout()
    for top in PACKAGES:
        assert f"{top}/" in entries, f"the README's Layout does not name {top}/"
    for top, children in entries.items():
        assert (ROOT / top).exists(), f"the README's Layout names {top}, which is not there"
        for child in children:
            assert (ROOT / top / child).exists(), f"the README's Layout names {top}{child}, which is not there"
    for top in PACKAGES:
        folder = ROOT / top
        there = {f"{p.name}/" for p in folder.iterdir() if p.is_dir() and p.name != "__pycache__"}
        if top == "dealer":
            there |= {p.name for p in folder.glob("*.py") if not p.name.startswith("__")}
        missing = sorted(there - set(entries[f"{top}/"]))
        assert missing == [], f"the README's Layout leaves out {top}/: {missing}"


def test_every_decision_is_dated_and_in_the_index() -> None:
    folder = ROOT / "docs" / "decisions"
    index = (folder / "README.md").read_text(encoding="utf-8")
    for path in sorted(folder.glob("*.md")):
        if path.name == "README.md":
            continue
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.md", path.name), path.name
        assert f"({path.name})" in index, f"docs/decisions/README.md does not list {path.name}"
        assert re.search(r"^Date: \d{4}-\d{2}-\d{2}\b", path.read_text(encoding="utf-8"), re.M), path.name


def test_the_layout_lists_the_formats_there_are() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = re.search(r"^  formats/ +(.*)$", readme.split("\n## Layout\n", 1)[1], re.M)
    assert line, "the README's Layout has no formats/ line"
    listed = re.findall(r"\b[A-Z]{3,4}\b", line.group(1))
    assert sorted(listed) == sorted(n.upper() for n in format_names()), line.group(1)
