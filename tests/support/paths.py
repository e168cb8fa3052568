"""Where the project and the test data are."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The project's root: the folder holding pyproject.toml."""
TESTS = ROOT / "tests"
DATA = TESTS / "data"
"""tests/data: reference files copied into the project."""
VECTORS = TESTS / "vectors"
"""tests/vectors: the wire protocol's golden vectors."""
