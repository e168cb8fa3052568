"""Every one-byte change of the board lines of the ten published WBG 2024 session files through ``dealer
squaredeal verify``: each change that changes a board must be refused naming the board and the field.

    python -m tests.stress.squaredeal_sweep [--share 1.0] [--sessions FIN1.pbn ...]

(`tests.support.squaredeal_sweep`); prints a line a session and the failures, exit 1 if any.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from tests.support.squaredeal_sweep import SESSIONS, sweep


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.stress.squaredeal_sweep", description=__doc__.split("\n")[0])
    p.add_argument("--share", type=float, default=1.0, help="the share of the changes to verify (default: all)")
    p.add_argument("--sessions", nargs="+", default=SESSIONS, choices=SESSIONS, metavar="FILE",
                   help="the session files to sweep (default: all ten)")
    args = p.parse_args(argv)
    began = time.monotonic()
    changes = verified = failures = 0
    for session in args.sessions:
        with tempfile.TemporaryDirectory(prefix="sweep-") as folder:
            swept = sweep(session, Path(folder), share=args.share)
        print(swept.text(), flush=True)
        for failure in swept.failures:
            print(f"  {failure}")
        changes, verified, failures = changes + swept.changes, verified + swept.verified, failures + len(swept.failures)
    print(f"squaredeal sweep: {len(args.sessions)} sessions, {changes} one-byte changes, {verified} verified, "
          f"{failures} not refused as they must be, in {time.monotonic() - began:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
