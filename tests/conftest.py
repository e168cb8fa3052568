"""Shared test fixtures: paths to the reference data and helpers for deal arrays."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ("hil.pytest_plugin", "tests.support.skip_policy")

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture
def data_dir() -> Path:
    """tests/data: reference files copied into the project."""
    return DATA
