"""Reading a module's imports with `ast`: every form an import can take, for the layering rules and the
import graph they check for cycles."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import ROOT


def module_name(path: Path) -> str:
    """The dotted name of a module file of the project."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every dotted module name a module imports (relative imports resolved, literal importlib calls)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    return imports_in(path.read_text(encoding="utf-8"), package)


def imports_in(source: str, package: str) -> set[str]:
    """Every dotted module name `source` imports, were it a module of `package`."""
    names: set[str] = set()
    for module, submodules, _reads in _imports(source, package):
        names.add(module)
        names.update(submodules)
    return {n for n in names if n}


def modules_run_by(path: Path) -> set[str]:
    """The dotted names of the modules whose code has to run for `path`'s imports: the edges of the import graph."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    return modules_run_in(path.read_text(encoding="utf-8"), name, package)


def modules_run_in(source: str, name: str, package: str) -> set[str]:
    """The modules whose code has to run for the imports of `source`, were it the module `name` of `package`.

    As `imports_in`, with what Python does at import: `from package import submodule` runs the submodule,
    not a line of the package's body, so it does not depend on the package (while `from package import
    name` does); and a module imported brings the packages that enclose it, except those enclosing
    `name` (Python has them loaded before `name` starts).
    """
    mine = _enclosing(name)
    names: set[str] = set()
    for module, submodules, reads_module in _imports(source, package):
        for imported in ([module] if reads_module else []) + submodules:
            names.add(imported)
            names.update(_enclosing(imported) - mine)
    names.discard(name)
    return {n for n in names if n}


def _enclosing(name: str) -> set[str]:
    """The packages enclosing a dotted module name: `a.b.c` -> {`a`, `a.b`}."""
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def _imports(source: str, package: str) -> list[tuple[str, list[str], bool]]:
    """Each import of `source` (a module of `package`) as (module named, its submodules named, whether a line
    of the module's own body is read): `import a.b` and literal importlib calls read `a.b`;
    `from m import x, y` reads `m` unless every name is a submodule of `m`."""
    found: list[tuple[str, list[str], bool]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((alias.name, [], True) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                stem = ".".join(base)
                module = f"{stem}.{node.module}" if node.module else stem
            else:
                module = node.module or ""
            # `from pkg import submodule` imports pkg.submodule
            submodules = [f"{module}.{alias.name}" for alias in node.names
                          if (ROOT / (module.replace(".", "/") + f"/{alias.name}.py")).exists()
                          or (ROOT / (module.replace(".", "/") + f"/{alias.name}")).is_dir()]
            found.append((module, submodules, len(submodules) < len(node.names)))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if called in {"import_module", "__import__"} and isinstance(node.args[0].value, str):
                found.append((node.args[0].value, [], True))
    return found


def modules(package: str) -> list[Path]:
    """The module files of a package folder of the project, sorted."""
    return sorted(p for p in (ROOT / package).rglob("*.py") if ".venv" not in p.parts)
