"""The README's two lines are the contract: its set-up line installs everything its test command needs, and
`.ci/run` runs exactly those two lines, read from the README, before anything else it installs or runs.

What the tests import, and the tools they run as ``python -m TOOL``, must come from the project's own
dependencies and its `test` extra (a module only the `dev` extra brings fails a newcomer's run: "No module
named build"). The tests that need programs from Debian's packages are run apart (`--system-tools`), never
skipped in the README's run.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys
import tomllib

import pytest
from packaging.requirements import Requirement

from tests.support.paths import ROOT, TESTS
from tests.support.system_tools import TIERS, tier_of

README = ROOT / "README.md"
CI = ROOT / ".ci" / "run"
FIRST_PARTY = {"dealer", "hil", "firmware_protocol", "tests"}
VENV = {"pip"}  # in every virtual environment the set-up line makes


def readme_command(which: str) -> str:
    done = subprocess.run([sys.executable, str(ROOT / ".ci" / "readme_command.py"), which], capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


def test_the_readme_gives_one_set_up_line_and_one_test_command() -> None:
    setup, tests = readme_command("setup"), readme_command("tests")
    assert re.fullmatch(r"python3 -m venv \.venv && \. \.venv/bin/activate && pip install -e '\.\[test\]'", setup)
    assert tests.startswith("python -m pytest ")
    assert "--system-tools" not in tests


def test_ci_runs_the_readme_lines_first_as_written() -> None:
    text = CI.read_text(encoding="utf-8")
    body = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    runs = [i for i, line in enumerate(body) if re.search(r"\b(pip|pytest|apt-get|mypy)\b|^python -m", line)]
    setup_at = body.index('eval "$setup"')
    tests_at = body.index('eval "$tests"')
    assert 'setup="$(python3 .ci/readme_command.py setup)"' in body
    assert 'tests="$(python3 .ci/readme_command.py tests)"' in body
    assert setup_at < tests_at and all(i > tests_at for i in runs), [body[i] for i in runs if i < tests_at]
    assert "--system-tools" in text  # and then the tier that needs Debian's packages


def extra_requirements(extra: str | None) -> set[str]:
    """The distributions (normalised names) the project requires, with `extra`, and everything they require."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [Requirement(r) for r in project["dependencies"]]
    if extra is not None:
        wanted += [Requirement(r) for r in project["optional-dependencies"][extra]]
    found: set[str] = set()
    while wanted:
        requirement = wanted.pop()
        name = normalised(requirement.name)
        if name in found:
            continue
        found.add(name)
        try:
            requires = importlib.metadata.requires(requirement.name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for text in requires:
            inner = Requirement(text)
            if inner.marker is None or inner.marker.evaluate({"extra": ""}):
                wanted.append(inner)
    return found


def normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def used_by_tests() -> dict[str, list[str]]:
    """Top-level modules the README's tests import, or run with the interpreter's -m option:
    module -> the files that use it."""
    used: dict[str, list[str]] = {}
    for path in sorted(TESTS.rglob("*.py")):
        if tier_of(path) is not None:
            continue
        source = path.read_text(encoding="utf-8")
        names: set[str] = set()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
        names.update(re.findall(r'(?:executable|python)\w*\)?,\s*"-m",\s*"([A-Za-z_]\w*)"', source))
        for name in names - FIRST_PARTY - VENV - set(sys.stdlib_module_names):
            used.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return used


def test_every_module_the_tests_use_comes_with_the_test_extra() -> None:
    provided = extra_requirements("test")
    by_module = importlib.metadata.packages_distributions()
    missing = {}
    for module, files in used_by_tests().items():
        distributions = {normalised(d) for d in by_module.get(module, [])}
        if not distributions & provided:
            missing[module] = (sorted(distributions) or ["not installed"], files[:3])
    assert missing == {}, f"used by the tests, not brought by pip install -e '.[test]': {missing}"


def test_the_rule_sees_a_module_only_the_dev_extra_brings() -> None:
    assert "mypy" not in extra_requirements("test") and "mypy" in extra_requirements("dev")


@pytest.mark.parametrize("tier", TIERS, ids=lambda t: t.where)
def test_every_system_tools_tier_names_a_place_that_holds_tests(tier: object) -> None:
    where = TESTS / tier.where  # type: ignore[attr-defined]
    assert where.exists(), where
    files = [where] if where.is_file() else list(where.rglob("test_*.py"))
    assert files, where
