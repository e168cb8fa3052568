"""Mutated plans and deal files through dealer plan, convert and deal under a memory limit, N of them:

    python -m tests.stress.fuzz_inputs --inputs 1200 --seed 1

(`tests.support.fuzz_inputs`); prints the tally of exit codes and every failure.
"""

from __future__ import annotations

import sys

from tests.support.fuzz_inputs import main

if __name__ == "__main__":
    sys.exit(main())
