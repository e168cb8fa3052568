"""Shared test fixtures: the skip policy plugin and the path to the reference data.

The simulator's pytest plugin (`hil.pytest_plugin`: --machine-port, the leak check; `hil.pytest_fixtures`: the
dealing_machine fixture) is loaded by its ``pytest11`` entry point, registered when the project is installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import DATA

pytest_plugins = ("tests.support.skip_policy",)


@pytest.fixture
def data_dir() -> Path:
    """tests/data: reference files copied into the project."""
    return DATA
