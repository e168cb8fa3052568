"""A run whose journal could not be made (a limit on a file's size from the start, as ``ulimit -f``) deals nothing
and leaves nothing to trip on: the same command, once the limit is gone, deals. Whatever part of the journal the
limit let SQLite write (nothing, a header, half a schema) is the journal of no run, removed."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.controllers import env

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="limits on a file's size: Linux")


def dealer(folder: Path, *args: str, file_limit: int | None = None) -> subprocess.CompletedProcess[str]:
    def limited() -> None:
        if file_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    said = {**env(), "PYTHONDONTWRITEBYTECODE": "1"}  # (a cached module cut short by the limit would stay cut)
    return subprocess.run([sys.executable, "-m", "dealer", *args], cwd=folder, env=said, text=True,
                          capture_output=True, preexec_fn=limited, timeout=240)


@pytest.mark.parametrize("kib", [1, 4, 32, 64])
def test_a_journal_whose_making_failed_never_blocks_the_same_command(tmp_path: Path, kib: int) -> None:
    assert dealer(tmp_path, "generate", "--boards", "1-4", "-o", "s.pbn").returncode == 0
    command = ["deal", "s.pbn", "--port", "sim://?speed=500", "--plain"]
    refused = dealer(tmp_path, *command, file_limit=kib * 1024)
    assert refused.returncode == 9 and "file too large" in refused.stderr, refused.stderr
    assert refused.stderr.count("dealer: error:") == 1 and "Traceback" not in refused.stderr, refused.stderr
    again = dealer(tmp_path, *command)
    assert again.returncode == 0, again.stderr
    assert "4/4 boards verified" in again.stdout + again.stderr
