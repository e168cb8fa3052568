"""The console's event hub: messages published from any thread reach every subscriber in order, in
batches; a subscriber that falls too far behind is cut off (it reloads its snapshot) instead of growing."""

from __future__ import annotations

import asyncio
import json
import threading

from dealer.serve import hub as hub_module
from dealer.serve.hub import EventHub


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
                got[n] += [json.loads(m)["k"] for m in batch]
        hub.unsubscribe(first)
        hub.publish({"k": 500})
        assert await first.next_batch(0.01) == []
        assert [json.loads(m)["k"] for m in await second.next_batch(5.0)] == [500]
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
        other = hub.subscribe(loop)
        hub.close_all()
        assert other.closed and hub.subscribers == 0

    asyncio.run(scenario())


def test_a_fault_is_shown_as_what_went_wrong_its_law_and_what_is_done_once_each() -> None:
    from dealer.serve.view import action_of, fault_words, law_of

    line = ("FAULT: F2 card in wrong pocket (Law 13A1): move the named cards or hands to their pockets -> "
            "move the named cards or hands to their pockets, then redeal the same deal")
    assert fault_words(line) == ("FAULT: F2 card in wrong pocket (Law 13A1): move the named cards or hands to "
                                 "their pockets")
    assert law_of(line) == "Law 13A1"
    assert action_of(line) == "move the named cards or hands to their pockets, then redeal the same deal"
    stop = "machine fault JAM after 19 cards: put right, going on"
    assert fault_words(stop) == "machine fault JAM after 19 cards" and law_of(stop) == ""
    assert action_of(stop) == "put right, going on"
