"""Shared test fixtures: the simulator's leak check plugin and the path to the reference data."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import DATA

pytest_plugins = ("hil.pytest_plugin", "tests.support.skip_policy")


@pytest.fixture
def data_dir() -> Path:
    """tests/data: reference files copied into the project."""
    return DATA
