"""Two `dealer deal` controllers racing for one journal, N times: every board dealt exactly once?

    python -m tests.stress.two_controllers --races 1000 --busy --keep races/
    python -m tests.stress.two_controllers --races 50 --postgresql      # the journal in PostgreSQL

Each race starts two controllers on one journal (the second together with the first or up to 200 ms
later, in 10 ms steps), kills the winner and resumes it (`tests.support.controller_race`); the figures
are printed at the end, a line a race with --verbose. Bad races keep their files in --keep.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

from tests.support.controller_race import Figures, Race, Setup, offsets, run_races
from tests.support.postgres import ThrowawayServer


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.stress.two_controllers", description=__doc__.split("\n")[0])
    p.add_argument("--races", type=int, default=100, help="races to run (default 100)")
    p.add_argument("--busy", action="store_true", help="keep every core busy meanwhile")
    p.add_argument("--step", type=float, default=10.0, help="milliseconds between start offsets (default 10)")
    p.add_argument("--last", type=float, default=200.0, help="the largest start offset, ms (default 200)")
    p.add_argument("--boards", type=int, default=4, help="boards in the deal file (default 4)")
    p.add_argument("--held", type=int, default=2, help="boards the machines have at first (default 2)")
    p.add_argument("--speed", type=float, default=1000.0, help="the simulated machines' speed (default 1000)")
    p.add_argument("--keep", type=Path, help="folder to keep the files of each bad race in")
    p.add_argument("--verbose", action="store_true", help="a line a race")
    p.add_argument("--postgresql", action="store_true",
                   help="each race's journal in a new database of a throwaway PostgreSQL server")
    args = p.parse_args(argv)
    # stopped by a signal (even started in the background, where SIGINT is ignored), the run still ends its
    # busy loops, controllers and simulated machines on the way out
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)

    def show(i: int, race: Race) -> None:
        if args.verbose or race.problems:
            print(f"race {i}: offset {race.offset * 1000:.0f} ms, {race.machines} machines, {race.winner} won, killed "
                  f"{race.kill_at}, "
                  f"{race.seconds:.2f} s{': ' + '; '.join(race.problems) if race.problems else ''}", flush=True)
        elif (i + 1) % 50 == 0:
            print(f"{i + 1} races", flush=True)

    figures = Figures()
    server = ThrowawayServer.started() if args.postgresql else None
    try:
        run_races(args.races, busy=(os.cpu_count() or 1) if args.busy else 0,
                  steps=offsets(args.step / 1000, args.last / 1000), keep=args.keep,
                  setup=Setup(boards=args.boards, held=tuple(range(1, args.held + 1)), speed=args.speed,
                              journal_at=server.new_database if server is not None else None),
                  show=show, figures=figures)
    except (KeyboardInterrupt, SystemExit):
        print("stopped: the figures of the races that ended", flush=True)
    finally:
        if server is not None:
            server.remove()
    print(figures.text())
    return 0 if figures.good == figures.races else 1


if __name__ == "__main__":
    sys.exit(main())
