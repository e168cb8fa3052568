"""A congress room on one PostgreSQL record: what the journal costs per event there, and a room of controllers
dealing one plan.

Run from the project root: ``python benchmarks/room.py [--url postgresql://...] [--quick] [--rounds 3]``.
Without ``--url`` a throwaway server is made (``initdb`` found on PATH; Debian's ``postgresql`` package keeps it
in its version's folder, ``PATH=/usr/lib/postgresql/15/bin:$PATH``): in a temporary folder, 127.0.0.1 only, run
as ``nobody`` when run as root, removed at the end. Without either the script says so and measures nothing.
In the same run:

1. *Cost per event*: boards taken through a verified board's steps (claimed, SCANNED, DEALING, DEALT,
   VERIFIED, one note: six events), by the `Journal` a run uses: on PostgreSQL (loopback) against the named
   baseline ``SQLite journal file`` (the journal a single computer keeps, in a temporary folder), in turn over
   the rounds, medians. Figures: milliseconds a board and an event, and PostgreSQL / SQLite (goal: <= 3).
2. *A room*: a plan of 16 sessions x 25 boards (400 boards) on simulated machines (``sim://`` at --speed),
   dealt by 4 controllers at once (``dealer deal --plan --journal URL --history URL``, each a process with the
   plan's 4 machines), against the named baseline ``one controller, 16 machines`` (the same plan with 16
   machines, on a database of its own). Figures: wall seconds from the first start to the last exit; boards
   dealt twice (a job stepped into DEALING more than once) and boards skipped (a job not verified), both goal
   0; the sessions each controller took.
3. *The console showing the record* (``dealer serve --journal URL``): its first reading of each room's record
   (every event folded) and a reading with nothing new (what it pays each second while the room is quiet), in
   milliseconds, the 4 controllers' record against the named baseline's.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from _support import header, random_deals

from dealer.core.dealset import DealSet
from dealer.journal.database_url import as_url
from dealer.journal.events import BoardMoved, EventKind
from dealer.journal.jobplan import JobPlan
from dealer.journal.opening import open_journal, read_journal
from dealer.journal.store import JobState, Journal
from dealer.serve.hub import EventHub
from dealer.serve.record import RecordRoom

GOAL_RATIO = 3.0
BASELINE_COST = "SQLite journal file"
BASELINE_ROOM = "one controller, 16 machines"


@contextlib.contextmanager
def throwaway_server() -> Iterator[str | None]:
    """The URL of the ``postgres`` database of a new server (with its password), None without PostgreSQL."""
    initdb = shutil.which("initdb")
    if initdb is None:
        yield None
        return
    bin_dir = Path(initdb).parent
    folder = Path(tempfile.mkdtemp(prefix="dealer-room-bench-"))
    owner = {"user": "nobody", "group": "nogroup"} if os.geteuid() == 0 else {}
    if owner:
        shutil.chown(folder, "nobody", "nogroup")
    password = secrets.token_hex(12)
    (folder / "pw").write_text(password + "\n")
    if owner:
        shutil.chown(folder / "pw", "nobody", "nogroup")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    def pg(*args: str) -> None:
        subprocess.run([str(bin_dir / args[0]), *args[1:]], check=True, capture_output=True, cwd=folder, **owner)

    try:
        pg("initdb", "-D", "data", "-U", "bench", "--pwfile", "pw", "-A", "scram-sha-256", "--no-sync")
        pg("pg_ctl", "-D", "data", "-l", "log", "-w", "-o",
           f"-c listen_addresses=127.0.0.1 -p {port} -c unix_socket_directories=''", "start")
        yield f"postgresql://bench:{password}@127.0.0.1:{port}/postgres"
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            pg("pg_ctl", "-D", "data", "-m", "fast", "-w", "stop")
        shutil.rmtree(folder, ignore_errors=True)


def new_database(server: str, name: str) -> str:
    import psycopg

    with psycopg.connect(server, autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}"')  # type: ignore[arg-type]
        db.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
    return server.rsplit("/", 1)[0] + "/" + name


# --- 1. cost per event -------------------------------------------------------------------------------------

EVENTS_A_BOARD = 6


def board_steps(journal: Journal, boards: int, seed: int) -> float:
    """Seconds for `boards` boards through a verified board's steps on `journal` (a new run)."""
    deals = DealSet.from_deals(random_deals(seed, boards))
    run = journal.begin_run(f"bench {seed}", "bench", deals, [JobPlan(int(b)) for b in deals.boards])
    start = time.perf_counter()
    while (job := journal.claim_next(run.id, "m1")) is not None:
        for state in (JobState.SCANNED, JobState.DEALING, JobState.DEALT, JobState.VERIFIED):
            journal.advance(job.id, state, machine="m1")
        journal.note(run.id, BoardMoved(), job_id=job.id, machine="m1")
    return time.perf_counter() - start


def cost_per_event(url: str, boards: int, rounds: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="dealer-room-bench-"))
    seconds: dict[str, list[float]] = {"PostgreSQL": [], BASELINE_COST: []}
    try:
        with open_journal(new_database(url, "bench_events")) as pg, open_journal(folder / "bench.journal") as lite:
            for k in range(rounds):
                seconds["PostgreSQL"].append(board_steps(pg, boards, 2 * k + 1))
                seconds[BASELINE_COST].append(board_steps(lite, boards, 2 * k + 2))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"\n1. the journal's cost, {boards} boards x {EVENTS_A_BOARD} events, {rounds} rounds in turn (medians)")
    for name, values in seconds.items():
        board = statistics.median(values) / boards * 1000
        print(f"  {name:<22} {board:7.2f} ms a board, {board / EVENTS_A_BOARD:6.2f} ms an event")
    ratio = statistics.median(seconds["PostgreSQL"]) / statistics.median(seconds[BASELINE_COST])
    verdict = "met" if ratio <= GOAL_RATIO else "NOT met"
    print(f"  PostgreSQL / {BASELINE_COST}: {ratio:.2f} (goal <= {GOAL_RATIO:.0f}: {verdict})")


# --- 2. a room -----------------------------------------------------------------------------------------------


def plan_text(sessions: int, boards: int, machines: int, speed: float) -> str:
    text = '[event]\nname = "Room benchmark"\ndeal_folder = "deals"\n'
    text += "".join(f'\n[[machines]]\nname = "M{m}"\nport = "sim://?speed={speed:g}&seed={m}"\n'
                    for m in range(1, machines + 1))
    text += "".join(f'\n[[sessions]]\nname = "S{k:02d}"\nboards = "1-{boards}"\n[[sessions.sections]]\nname = "A"\n'
                    f'sets = ["SET{k:02d}"]\n' for k in range(1, sessions + 1))
    return text


def deal_room(url: str, folder: Path, controllers: int, machines: int, sessions: int, boards: int,
              speed: float) -> tuple[float, list[str], Counter[str]]:
    """Wall seconds of `controllers` processes dealing one plan on the record `url`; what each said it took; the
    record's verdict (boards dealt twice, boards not verified, sessions)."""
    folder.mkdir()
    (folder / "room.toml").write_text(plan_text(sessions, boards, machines, speed))
    env = {**os.environ, "HOME": str(folder), "XDG_DATA_HOME": str(folder / "data")}
    env.pop("DEALER_HISTORY", None)
    subprocess.run([sys.executable, "-m", "dealer", "plan", "room.toml", "--generate"], cwd=folder, env=env,
                   check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "dealer", "history", "init", url], cwd=folder, env=env, check=True,
                   capture_output=True)
    command = [sys.executable, "-m", "dealer", "deal", "--plan", "room.toml", "--journal", url, "--history", url,
               "--quiet"]
    start = time.perf_counter()
    procs = [subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(controllers)]
    said = [p.communicate()[1] for p in procs]
    wall = time.perf_counter() - start
    bad = [p.returncode for p in procs if p.returncode]
    if bad:
        raise RuntimeError(f"a controller failed ({bad}): {said}")
    taken = [" ".join(sorted(line.split()[1].rstrip(":") for line in text.splitlines() if "taken by" in line))
             for text in said]
    verdict: Counter[str] = Counter()
    with read_journal(url) as journal:
        for run in journal.runs():
            verdict["sessions"] += 1
            for job in journal.jobs(run.id):
                dealings = sum(1 for e in journal.events(run.id, job.id) if e.kind == EventKind.DEALING.value)
                verdict["boards"] += 1
                verdict["dealt twice"] += dealings > 1
                verdict["skipped"] += job.state is not JobState.VERIFIED
    return wall, taken, verdict


def console_reading(url: str) -> tuple[float, float, int]:
    """What the console showing the record (`dealer serve --journal URL`) pays to read it: its first reading (every
    event folded), then a reading with nothing new (what it pays each second while nothing happens), in
    milliseconds; and the events of the record."""
    room = RecordRoom(EventHub(), as_url(url))
    try:
        start = time.perf_counter()
        room.read()
        first = time.perf_counter() - start
        start = time.perf_counter()
        room.read()
        again = time.perf_counter() - start
    finally:
        room.stop()
    with read_journal(url) as journal:
        events = sum(1 for run in journal.runs() for _ in journal.each_event(run.id))
    return first * 1000, again * 1000, events


def room(url: str, quick: bool, speed: float) -> None:
    controllers, machines, sessions, boards = (2, 1, 4, 2) if quick else (4, 4, 16, 25)
    folder = Path(tempfile.mkdtemp(prefix="dealer-room-bench-"))
    try:
        records = new_database(url, "bench_room"), new_database(url, "bench_alone")
        ours = deal_room(records[0], folder / "room", controllers, machines, sessions, boards, speed)
        alone = deal_room(records[1], folder / "alone", 1, controllers * machines, sessions, boards, speed)
        readings = [console_reading(record) for record in records]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"\n2. a plan of {sessions} sessions x {boards} boards ({sessions * boards} boards), machines at speed "
          f"{speed:g}")
    for name, (wall, taken, verdict) in ((f"{controllers} controllers x {machines} machines", ours),
                                          (f"one controller x {controllers * machines} machines", alone)):
        print(f"  {name:<30} wall {wall:6.1f} s; boards {verdict['boards']}, dealt twice {verdict['dealt twice']}, "
              f"skipped {verdict['skipped']}; sessions taken: {' | '.join(taken)}")
    print(f"  wall, the room / one controller with every machine ({BASELINE_ROOM} at full size): "
          f"{ours[0] / alone[0]:.2f}")
    print("\n3. the console showing the record (dealer serve --journal URL), after the plan was dealt")
    for name, (first, again, events) in ((f"{controllers} controllers' record", readings[0]),
                                         (f"{BASELINE_ROOM}", readings[1])):
        print(f"  {name:<30} {events} events: first reading {first:7.1f} ms, a reading with nothing new "
              f"{again:5.1f} ms (it reads about once a second)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a PostgreSQL server's database to make the benchmark's databases from")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: that it runs, not what it measures")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--boards", type=int, default=200, help="boards a round of the cost per event")
    parser.add_argument("--speed", type=float, default=20.0, help="the simulated machines' speed")
    args = parser.parse_args()
    boards, rounds = (5, 1) if args.quick else (args.boards, args.rounds)
    header("A congress room on one PostgreSQL record",
           {BASELINE_COST: "the same steps by the journal a single computer keeps, a file, in turn with ours",
            BASELINE_ROOM: "the same plan dealt by one controller with every machine, on a database of its own"},
           f"{boards} boards a round, {rounds} rounds; room plan {'tiny (--quick)' if args.quick else '16 x 25'}")
    with contextlib.ExitStack() as stack:
        url = args.url or stack.enter_context(throwaway_server())
        if url is None:
            print("\nno PostgreSQL: give --url, or put initdb on PATH (Debian: its version's folder of "
                  "/usr/lib/postgresql); nothing measured")
            return 0
        cost_per_event(url, boards, rounds)
        room(url, args.quick, args.speed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
