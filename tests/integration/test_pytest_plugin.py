"""The pytest plugin a HIL engineer gets by installing the project: `pytest examples/` with no option and no
conftest finds --machine-port and the dealing_machine fixture, and the example's tests pass.

The second test does what a new user does: a fresh virtual environment, ``pip install .`` of a copy of the
project, then ``pytest examples/`` from a folder holding nothing but the example. The new environment sees the
libraries already installed here (a ``.pth`` file naming a folder of links to them, the project itself left
out), so pip installs the project alone (``--no-deps``); pip builds it as it always does, in an isolated
build environment with the setuptools the project asks for, from the package index pip is set up with.
"""

from __future__ import annotations

import shutil
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tests.support.processes import ENV, run

pytestmark = pytest.mark.slow

OURS = ("dealer", "hil", "firmware_protocol", "duplicate_bridge_dealer", "__editable__", "_distutils_hack",
        "distutils-precedence.pth", "setuptools", "pkg_resources", "pip", "_virtualenv", "__pycache__")
"""What the new environment must not take from this one: the project (editable or not) and the packaging tools
it brings itself."""


def user_folder(tmp_path: Path) -> Path:
    """A folder holding only the example, as an engineer's own project would."""
    folder = tmp_path / "my-project"
    (folder / "examples").mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "test_my_dealer_code.py", folder / "examples")
    return folder


def test_pytest_examples_uses_the_installed_plugin_with_no_option(tmp_path: Path) -> None:
    folder = user_folder(tmp_path)
    env = {k: v for k, v in ENV.items() if k != "PYTHONPATH"}
    done = run([sys.executable, "-m", "pytest", "examples/", "-q", "-p", "no:cacheprovider"], cwd=folder, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout
    without = run([sys.executable, "-m", "pytest", "examples/", "-q", "-p", "no:cacheprovider", "-p",
                   "no:dealer-hil-fixtures"], cwd=folder, env=env)
    assert without.returncode != 0 and "fixture 'dealing_machine' not found" in without.stdout


def test_in_a_fresh_virtual_environment_pip_install_then_pytest_examples_passes(tmp_path: Path) -> None:
    source = tmp_path / "clone"
    for part in ("dealer", "hil", "firmware_protocol"):
        shutil.copytree(ROOT / part, source / part, ignore=shutil.ignore_patterns("__pycache__"))
    for part in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / part, source / part)

    venv = tmp_path / "venv"
    made = run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    new_site = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                        cwd=tmp_path).stdout.strip())
    libraries = tmp_path / "libraries"
    libraries.mkdir()
    for site in dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]):
        for entry in Path(site).iterdir():
            if not entry.name.startswith(OURS) and not (libraries / entry.name).exists():
                (libraries / entry.name).symlink_to(entry)
    (new_site / "libraries-already-installed.pth").write_text(f"{libraries}\n")

    quiet = {**{k: v for k, v in ENV.items() if k != "PYTHONPATH"}, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    installed = run([str(python), "-m", "pip", "install", "--no-deps", "."], cwd=source, env=quiet, timeout=600)
    assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr[-2000:]
    where = run([str(python), "-c", "import dealer, hil; print(dealer.__file__); print(hil.__file__)"],
                cwd=tmp_path, env=quiet)
    assert where.returncode == 0 and all(Path(p).is_relative_to(venv) for p in where.stdout.split()), where

    folder = user_folder(tmp_path)
    done = run([str(python), "-m", "pytest", "examples/", "-q", "-p", "no:cacheprovider"], cwd=folder, env=quiet)
    assert done.returncode == 0, textwrap.shorten(done.stdout + done.stderr, 3000)
    assert "3 passed" in done.stdout
