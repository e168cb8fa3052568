"""Reading a module's imports with `ast`: every form an import can take, for the layering rules."""

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
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                stem = ".".join(base)
                module = f"{stem}.{node.module}" if node.module else stem
            else:
                module = node.module or ""
            names.add(module)
            # `from pkg import submodule` imports pkg.submodule
            names.update(f"{module}.{alias.name}" for alias in node.names
                         if (ROOT / (module.replace(".", "/") + f"/{alias.name}.py")).exists()
                         or (ROOT / (module.replace(".", "/") + f"/{alias.name}")).is_dir())
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if called in {"import_module", "__import__"} and isinstance(node.args[0].value, str):
                names.add(node.args[0].value)
    return {n for n in names if n}


def modules(package: str) -> list[Path]:
    """The module files of a package folder of the project, sorted."""
    return sorted(p for p in (ROOT / package).rglob("*.py") if ".venv" not in p.parts)
