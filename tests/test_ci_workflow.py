"""The CI workflow for the platforms this machine cannot be (.github/workflows/ci.yml) stays valid: it parses
(PyYAML when installed, else a structural reading of its lines), runs Linux, Windows and macOS for every
Python the package declares, runs .ci/run on Linux, and names only test files that exist.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

import pytest

from tests.support.paths import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "ci.yml"


def declared_pythons() -> list[str]:
    """The Python versions of the package's classifiers."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return sorted(c.rsplit(" :: ", 1)[1] for c in project["classifiers"]
                  if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c))


def load() -> dict[str, Any]:
    try:
        import yaml
    except ImportError:
        return structural(WORKFLOW.read_text(encoding="utf-8"))
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def structural(text: str) -> dict[str, Any]:
    """What `load` needs of the workflow without a YAML parser: its jobs, each job's matrix lists and run lines."""
    jobs: dict[str, Any] = {}
    job: dict[str, Any] | None = None
    in_jobs = False
    for line in text.splitlines():
        if re.fullmatch(r"\S.*:", line):
            in_jobs, job = line == "jobs:", None
        elif in_jobs and re.fullmatch(r"  [\w-]+:", line):
            job = jobs.setdefault(line.strip()[:-1], {"strategy": {"matrix": {}}, "steps": []})
        elif job is not None and (m := re.fullmatch(r"\s+(os|python): \[(.*)\]", line)):
            job["strategy"]["matrix"][m.group(1)] = [v.strip().strip('"') for v in m.group(2).split(",")]
        elif job is not None and (m := re.fullmatch(r"\s+runs-on: (.+)", line)):
            job["runs-on"] = m.group(1)
        elif job is not None and (m := re.fullmatch(r"\s+(?:- )?run: (.*)", line)):
            job["steps"].append({"run": m.group(1)})
        elif job is not None and job["steps"] and line.startswith(" " * 10) and "run" in job["steps"][-1]:
            job["steps"][-1]["run"] += " " + line.strip()
    return {"jobs": jobs}


def runs(job: dict[str, Any]) -> str:
    return " ".join(str(step.get("run", "")) for step in job["steps"])


@pytest.mark.parametrize("reader", ["yaml", "structural"])
def test_the_workflow_runs_every_system_for_every_declared_python(reader: str) -> None:
    if reader == "yaml":
        pytest.importorskip("yaml", reason="PyYAML is not installed: the structural reading stands")
        jobs = load()["jobs"]
    else:
        jobs = structural(WORKFLOW.read_text(encoding="utf-8"))["jobs"]
    pythons = declared_pythons()
    assert pythons == ["3.11", "3.12", "3.13"]
    systems = {}
    for name, job in jobs.items():
        matrix = job["strategy"]["matrix"]
        assert sorted(matrix["python"]) == pythons, name
        for system in matrix.get("os", [job.get("runs-on")]):
            systems[system] = job
    assert set(systems) == {"ubuntu-latest", "windows-latest", "macos-latest"}
    assert ".ci/run" in runs(systems["ubuntu-latest"])  # Linux: the whole suite, pty tests included
    other = runs(systems["windows-latest"])
    assert "mypy" in other and '-m "not pty"' in other
    for path in re.findall(r"\btests/[\w/]+(?:\.py)?", " ".join(runs(job) for job in jobs.values())):
        assert (ROOT / path).exists(), f"{WORKFLOW.name} names {path}, which does not exist"


def test_the_linux_job_runs_an_executable_ci_script() -> None:
    script = ROOT / ".ci" / "run"
    assert script.is_file() and script.stat().st_mode & 0o111
    text = script.read_text(encoding="utf-8")
    assert "for platform in linux win32 darwin" in text and 'mypy --platform "$platform"' in text
    assert "'.[dev]'" in text  # the type checker is in the dev extra, installed after the README's own steps
