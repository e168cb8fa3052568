"""A main file left part-written by a checkpoint cut short, its -wal then lost, is refused when opened: never
resumed or added to. SQLite copies a checkpoint's pages into the main file in page order; a kill between two
of them leaves some pages of the new state and the rest of the old. Here every such prefix of every
checkpoint of four boards' lives is made and opened: each is refused (its rows disagree with each other, or
SQLite's integrity check fails). With its -wal kept, SQLite finishes the copy on opening; the kill loops
(`tests.support.kill_loops`) put the -wal back after such a refusal and deal on.
(docs/decisions/2026-12-02-torn-checkpoint.md)"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from dealer.core.errors import JournalError
from dealer.journal.jobplan import JobPlan
from dealer.journal.store import JobState, Journal
from tests.support.deals import random_deal_set

PAGE = 4096
STEPS = (JobState.LOADED, JobState.SCANNED, JobState.DEALING, JobState.DEALT, JobState.VERIFIED)


def pages(data: bytes) -> list[bytes]:
    return [data[i:i + PAGE] for i in range(0, len(data), PAGE)]


def test_every_main_file_a_cut_short_checkpoint_leaves_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.journal"
    deals = random_deal_set(24, 11)
    outcomes: Counter[str] = Counter()
    with Journal.open(path) as journal:
        run = journal.begin_run("s", "s.pbn", deals, [JobPlan(b) for b in range(1, 25)])
        for job in journal.jobs(run.id)[:4]:
            for state in STEPS:
                before = path.read_bytes()
                journal.advance(job.id, state, machine="m1")
                after = path.read_bytes()
                if before == after:
                    continue  # a step not checkpointed: it is in the -wal alone
                old, new = pages(before), pages(after)
                changed = [i for i in range(len(new)) if i >= len(old) or old[i] != new[i]]
                for k in range(1, len(changed)):  # killed after k of the changed pages were copied
                    torn = old + [b""] * (len(new) - len(old))
                    for i in changed[:k]:
                        torn[i] = new[i]
                    copy = tmp_path / "torn.journal"
                    copy.write_bytes(b"".join(torn))
                    with pytest.raises(JournalError) as refused:
                        Journal.open(copy).close()
                    assert "keep it aside" in str(refused.value), refused.value
                    outcomes["disagrees" if "disagrees with itself" in str(refused.value) else "unusable"] += 1
                    for side in ("", "-wal", "-shm"):
                        Path(f"{copy}{side}").unlink(missing_ok=True)
    assert outcomes["disagrees"] > 0 and outcomes["unusable"] > 0, outcomes  # both kinds of tear were met



def test_a_damaged_journal_gets_the_same_advice_from_a_run_a_resume_and_a_report(tmp_path: Path) -> None:
    """Whichever command meets a journal cut to half, its one line says the same thing to do."""
    import os
    import subprocess
    import sys

    from dealer import formats
    from tests.support.controllers import deal_set, env

    deal_file, journal = tmp_path / "s.pbn", tmp_path / "s.pbn.journal"
    formats.write_file(deal_file, deal_set(3, 4))
    dealer = [sys.executable, "-m", "dealer"]
    first = subprocess.run([*dealer, "deal", str(deal_file), "--port", "sim://?speed=200", "--quiet"], env=env(),
                           capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert first.returncode == 0, first.stderr
    os.truncate(journal, journal.stat().st_size // 2)
    lines = []
    for command in (["deal", str(deal_file), "--port", "sim://?speed=200"],
                    ["deal", str(deal_file), "--port", "sim://?speed=200", "--resume"], ["report", str(journal)]):
        done = subprocess.run([*dealer, *command], env=env(), capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)
        assert done.returncode == 9, (command, done.stderr)
        (line,) = done.stderr.strip().splitlines()
        lines.append(line)
    assert len(set(lines)) == 1 and "keep it aside" in lines[0] and "--resume" not in lines[0], lines
