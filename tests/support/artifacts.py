"""Where a test keeps what it rendered (screenshots, pages as PNG) for a person to look at: ``FOLDER/NAME``
when ``DEALER_TEST_ARTIFACTS=FOLDER`` is set, else a folder of the test session's temporary files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def artifacts_folder(name: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder for the renders of `name` (made if missing)."""
    base = os.environ.get("DEALER_TEST_ARTIFACTS")
    folder = Path(base) / name if base else tmp_path_factory.mktemp(f"{name}-renders")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
