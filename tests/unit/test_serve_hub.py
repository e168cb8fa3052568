"""The console's event hub: messages published from any thread reach every subscriber in order, in
batches; a subscriber that falls too far behind is cut off (it reloads its snapshot) instead of growing."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from typing import Any

from dealer.language import speaking
from dealer.serve import hub as hub_module
from dealer.serve.hub import EventHub, said_json


def test_messages_from_threads_reach_every_subscriber_in_order_in_batches() -> None:
    async def scenario() -> tuple[list[int], list[int], int]:
        hub = EventHub()
        loop = asyncio.get_running_loop()
        first, second = hub.subscribe(loop), hub.subscribe(loop)
        def publish_all() -> None:
            for k in range(500):
                hub.publish({"k": k})

        publisher = threading.Thread(target=publish_all)
        publisher.start()
        await asyncio.to_thread(publisher.join)
        got: dict[int, list[int]] = {0: [], 1: []}
        batches = 0
        for n, sub in enumerate((first, second)):
            while len(got[n]) < 500:
                batch = await sub.next_batch(5.0)
                assert batch, "a published message never arrived"
                batches += 1
                got[n] += [json.loads(m.said())["k"] for m in batch]
        hub.unsubscribe(first)
        hub.publish({"k": 500})
        assert await first.next_batch(0.01) == []
        assert [json.loads(m.said())["k"] for m in await second.next_batch(5.0)] == [500]
        return got[0], got[1], batches

    first, second, batches = asyncio.run(scenario())
    assert first == second == list(range(500))
    assert batches < 1000  # several messages a wake-up, not one each


def test_a_subscriber_too_far_behind_is_cut_off_and_one_closed_ends() -> None:
    async def scenario() -> None:
        hub = EventHub()
        loop = asyncio.get_running_loop()
        slow = hub.subscribe(loop)
        for k in range(hub_module.MAX_QUEUED + 1):
            hub.publish({"k": k})
        assert slow.lagging
        assert await slow.next_batch(1.0) == []
        slow.catch_up()  # its stream sends the room as it stands, and goes on from there
        hub.publish({"k": "after"})
        assert [json.loads(m.said())["k"] for m in await slow.next_batch(5.0)] == ["after"]
        other = hub.subscribe(loop)
        hub.close_all()
        assert other.closed and hub.subscribers == 0

    asyncio.run(scenario())


def test_a_fault_is_shown_as_what_went_wrong_its_law_and_what_is_done_once_each() -> None:
    """The room's fault list takes each fault from the journal's event the line shows (its title, Law and
    action as data), never from the line's words; one entry a fault."""
    import io

    from dealer.dealing.progress import RunProgress
    from dealer.journal.events import MachineFaultResumed, RecountFault
    from dealer.serve.past import fault_entries
    from dealer.serve.view import HubView

    published: list[dict[str, object]] = []

    class Hub(EventHub):
        def publish(self, message: dict[str, object]) -> None:
            published.append(message)

    from dealer.journal.jobplan import JobPlan
    from dealer.journal.store import JobState, Journal
    from tests.support.loopback_run import deals_for

    view = HubView(Hub(), "run", clock=lambda: 0.0)
    progress = RunProgress(total_jobs=4, out=io.StringIO(), view=view)
    jam = MachineFaultResumed(code=1, name="JAM", prompt="CLEAR_PATH", machine_detail=19)
    both = RecountFault(faults_found=("F2", "F1"), counts=(13, 12, 14, 13))
    with Journal.open(":memory:") as journal:  # the lines are the journal's events, as they are recorded
        run = journal.begin_run("club", "s.pbn", deals_for((1, 2, 3, 4)), [JobPlan(b) for b in (1, 2, 3, 4)])
        stop_following = progress.follow(journal, [run.id])
        progress.open()
        three, four = journal.jobs(run.id)[2:]
        journal.note(run.id, jam, job_id=three.id, machine="m1")
        for state in (JobState.LOADED, JobState.SCANNED, JobState.DEALING, JobState.DEALT):
            journal.advance(four.id, state, machine="m1")
        journal.advance(four.id, JobState.FAULTED, both)
        stop_following()
        progress.close()

    def read(value: object, language: str) -> Any:  # as a browser's stream in that language reads it
        with speaking(language):
            return json.loads(said_json(value))

    faults = read(view.fault_list(), "en")
    assert [(f["text"], f["law"], f["action"], f["n"]) for f in faults] == [
        ("card jam", "", "clear the card path, going on", 1),
        ("F2 card in wrong pocket", "Law 13A1", "redeal the same deal", 2),
        ("F1 missing card", "Law 14A", "redeal the same deal", 3)]
    assert [{k: f[k] for k in ("text", "law", "action")} for f in faults] == read(
        [*fault_entries(jam), *fault_entries(both)], "en")
    lines = [read(m, "en") for m in published if m.get("type") == "event"]
    assert lines[0]["text"] == "board 3: card jam after 19 cards while dealing: clear the card path, going on"
    assert lines[1]["text"] == "board 4: dealing"
    assert "detail" not in lines[0]["text"] and "JAM" not in lines[0]["text"]
    russian = [read(m, "ru") for m in published if m.get("type") == "event"]  # the same messages, another reader
    assert russian[1]["text"] == "сдача 4: раздача" or russian[1]["text"].startswith("сдача 4: ")
    assert not any(re.search(r"[A-Za-z]{3,}", m["text"]) for m in russian), russian
    assert [f["law"] for f in read(view.fault_list(), "ru")] == ["", "Правило 13A1", "Правило 14A"]
