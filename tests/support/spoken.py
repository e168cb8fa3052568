"""The `dealer` command as a user runs it, for the tests of what it says and in which language."""

from __future__ import annotations

import re
import sys

from tests.support.paths import ROOT
from tests.support.processes import ENV, run

CYRILLIC = re.compile(r"[А-Яа-яЁё]")


def dealer(*argv: str, **environment: str) -> tuple[int, str, str]:
    """`dealer ARGV` as a user runs it, with `environment` over the suite's."""
    done = run([sys.executable, "-m", "dealer", *argv], cwd=ROOT, env={**ENV, **environment})
    return done.returncode, done.stdout, done.stderr
