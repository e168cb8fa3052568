"""What the console is given: the deal files and plans in its work folder, and nothing else on the disk.

A client names a file by its place in the work folder (`offered_files`), never a path; `plan_reach` refuses,
before a plan is read, any file it names outside the folder and any machine the console does not offer. What
is said back names places (`shown`) and quotes a file's text only if the client uploaded it (`told`).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Final

from dealer import formats
from dealer.core.errors import DealerError, FormatError, UsageError
from dealer.core.structured import StructureError, load_toml
from dealer.language import _
from dealer.plan.model import PlanError, field_name

UPLOADS: Final = "uploads"
"""The work folder's folder of uploaded files."""
OWN_FOLDER: Final = ".console"
"""The work folder's folder of the console's own files (its simulated machines' fault plans): a name the Start
page never offers (`offered_files` leaves out hidden names), and no plan may name."""
PLAN_SUFFIX: Final = ".toml"


def offered_suffixes() -> frozenset[str]:
    """The extensions of the files offered: plans and every deal-file format read."""
    found = {PLAN_SUFFIX}
    for name in formats.format_names():
        found |= {f".{ext}" for ext in formats.get_format(name).EXTENSIONS}
    return frozenset(found)


def offered_files(workdir: Path) -> dict[str, Path]:
    """The deal files and plans a client may choose, by name: the work folder's own and its uploads."""
    suffixes = offered_suffixes()
    offered: dict[str, Path] = {}
    for folder, prefix in ((workdir, ""), (workdir / UPLOADS, f"{UPLOADS}/")):
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if path.suffix.lower() in suffixes and path.is_file() and not path.name.startswith("."):
                offered[prefix + path.name] = path
    return offered


def chosen_file(workdir: Path, name: str) -> Path:
    """The file a client chose by `name`; `UsageError` for any name the console does not offer (whether or
    not such a file exists anywhere)."""
    path = offered_files(workdir).get(name.strip())
    if path is None:
        raise UsageError(_("source: {name} is not a deal file or plan of the console's work folder: choose one it "
                           "lists, or upload it").format(name=repr(name.strip()[:80])))
    return path


def inside(path: Path, workdir: Path) -> bool:
    """Whether `path` (its links followed) is in the work folder."""
    return path.resolve().is_relative_to(workdir.resolve())


def uploaded(path: Path, workdir: Path) -> bool:
    return path.resolve().parent == (workdir / UPLOADS).resolve()


def plan_reach(plan: Path, workdir: Path, machine_ok: Callable[[str], str | None]) -> tuple[list[str], list[Path]]:
    """What in the plan reaches beyond the console (a file outside the work folder, a machine it does not
    offer: `machine_ok` gives the problem of a port, None if offered), and the files its sessions read.
    Found before the plan itself is read, so that no file it names is opened."""
    try:
        doc = load_toml(plan.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, StructureError):
        return [], []  # not a plan: reading it says so
    base = plan.resolve().parent
    problems: list[str] = []
    files: list[Path] = []

    def confine(value: Any, where: tuple[str | int, ...]) -> None:
        if not isinstance(value, str):
            return
        if not inside(base / value, workdir):
            problems.append(_("{field}: the console reads and writes files in its work folder only").format(
                field=field_name(where)))
        elif inside(base / value, workdir / OWN_FOLDER):
            problems.append(_("{field}: {folder} holds the console's own files, not a plan's").format(
                field=field_name(where), folder=OWN_FOLDER))
        elif where[-1] != "deal_folder" and where[-1] != "journal":
            files.append(base / value)
            if where[-1] == "squaredeal":
                files.append((base / value).with_suffix(".sqk"))

    event = doc.get("event")
    if isinstance(event, dict):
        for key in ("journal", "deal_folder"):
            confine(event.get(key), ("event", key))
    for i, session in enumerate(_items(doc.get("sessions"))):
        source = session.get("source")
        if isinstance(source, dict):
            for key in ("file", "squaredeal", "sqk"):
                confine(source.get(key), ("sessions", i, "source", key))
    for i, machine in enumerate(_items(doc.get("machines"))):
        port = machine.get("port")
        problem = machine_ok(port) if isinstance(port, str) else None
        if problem:
            problems.append(f"{field_name(('machines', i, 'port'))}: {problem}")
    return problems, files


def _items(value: object) -> Iterable[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def shown(text: str, workdir: Path) -> str:
    """`text` with the work folder's own path taken out: files are named by their place in it."""
    for prefix in {str(workdir.resolve()), str(workdir)}:
        text = text.replace(prefix + "/", "").replace(prefix, ".")
    return text


def told(exc: DealerError, workdir: Path, files: Iterable[Path]) -> str:
    """The problem as a client reads it: in full if the client uploaded every file in `files`; else, for a
    file's content, its place only (the file's text is the operator's)."""
    if isinstance(exc, FormatError) and not all(uploaded(f, workdir) for f in files):
        where = [shown(exc.path, workdir)] if exc.path else []
        where += [_("line {line}").format(line=exc.line)] if exc.line is not None else []
        where += [exc.field] if isinstance(exc, PlanError) and exc.field else []
        what = ", ".join(where) or _("a file")
        command = "dealer plan" if any(f.suffix == PLAN_SUFFIX for f in files) else "dealer convert"
        return _("{what}: cannot be read; the console quotes only files uploaded to it ({command} on its computer "
                 "says why)").format(what=what, command=command)
    return shown(str(exc), workdir)
