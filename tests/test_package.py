"""The package installs like one: `python -m build` makes a wheel and an sdist, `twine check` passes them, the
sdist holds the licence, the C device library, the guides' pictures and the examples, and the wheel installed
by pipx (into a fresh virtual environment of its own) runs ``dealer --help``, ``dealer --version`` (the version
of `dealer.__version__`, the one place it is written) and ``dealer demo`` to its end.

Slow (a build, and an environment made from nothing); pip fetches what it needs from the package index.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import dealer
from tests.support.paths import ROOT

pytestmark = pytest.mark.slow

IN_THE_SDIST = ("LICENSE", "README.md", "pyproject.toml", "firmware_protocol/c/include/dealer_proto.h",
                "firmware_protocol/c/src/dp_link.c", "firmware_protocol/c/README.md", "firmware_protocol/PROTOCOL.md",
                "docs/images/serve-room.png", "docs/images/live-view.svg", "docs/director.md",
                "examples/congress.toml", "examples/one_board.py", "dealer/serve/static")


def run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None,
        timeout: float = 900) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{command}: {done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", "venv", "*.egg-info", "build", "dist", "__pycache__", "*.pyc",
                                    ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis")
"""What a checkout holds that is not the project's (.gitignore's entries)."""


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel and sdist, built from a copy of the project: a build writes its egg-info and stages the sdist
    in the tree it builds, which in the checkout another process of the suite may be building at the same
    moment (each deletes what the other stages)."""
    out, source = tmp_path_factory.mktemp("dist"), tmp_path_factory.mktemp("source") / "project"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCE)
    run(sys.executable, "-m", "build", "--outdir", out, source, cwd=out)
    return out


def test_build_makes_a_wheel_and_an_sdist_that_twine_passes(dist: Path) -> None:
    version = dealer.__version__
    wheel, sdist = dist / f"duplicate_bridge_dealer-{version}-py3-none-any.whl", \
        dist / f"duplicate_bridge_dealer-{version}.tar.gz"
    assert wheel.is_file() and sdist.is_file()
    checked = run(sys.executable, "-m", "twine", "check", "--strict", wheel, sdist, cwd=dist)
    assert checked.stdout.count("PASSED") == 2
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    missing = [path for path in IN_THE_SDIST if path not in names]
    assert missing == []


def test_the_wheel_carries_the_printed_font_its_licence_and_the_catalogues(dist: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    fonts = {f"dealer/printing/fonts/{name}"
             for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "LICENSE-DejaVu.txt")}
    assert fonts <= names
    catalogue = "dealer/language/locale/ru/LC_MESSAGES/dealer"
    assert {f"{catalogue}.mo", f"{catalogue}.po"} <= names


def test_the_metadata_says_licence_urls_and_platforms(dist: Path) -> None:
    import zipfile

    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata).decode("utf-8")
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in archive.namelist())
    assert f"Version: {dealer.__version__}\n" in text and "License-Expression: MIT\n" in text
    assert "Project-URL: Source, https://" in text and "Project-URL: Issues, https://" in text
    systems = [line for line in text.splitlines() if line.startswith("Classifier: Operating System")]
    assert systems == ["Classifier: Operating System :: POSIX :: Linux"]  # only what the suite runs on


def test_the_wheel_installed_by_pipx_in_an_environment_of_its_own_runs_help_version_and_the_demo(
        dist: Path, tmp_path: Path) -> None:
    """pipx makes a fresh virtual environment and pip-installs the wheel into it, from the package index: the
    command it puts on the path is what a new user runs."""
    (wheel,) = dist.glob("*.whl")
    env = {**{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")},
           "PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(tmp_path / "bin"),
           "PIPX_MAN_DIR": str(tmp_path / "man")}
    run(sys.executable, "-m", "pipx", "install", wheel, cwd=tmp_path, env=env)
    command = tmp_path / "bin" / ("dealer.exe" if sys.platform == "win32" else "dealer")
    assert "dealer deal" in run(command, "--help", cwd=tmp_path, env=env).stdout
    assert run(command, "--lang", "ru", "--help", cwd=tmp_path, env=env).stdout.startswith("использование: dealer")
    assert run(command, "--version", cwd=tmp_path, env=env).stdout == f"dealer {dealer.__version__}\n"
    demo = run(command, "demo", "--plain", cwd=tmp_path, env=env, timeout=600)
    assert "Traceback" not in demo.stderr
    assert "16/16 boards verified" in demo.stdout + demo.stderr
