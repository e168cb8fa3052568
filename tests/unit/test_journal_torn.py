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

