"""The event hub: messages published by run threads, delivered to every browser watching.

A message is data with its words said later (`dealer.language.Later`): each stream says it in its own
reader's language, and it is serialised to JSON once a language (`Published.said`). Each
subscriber (one server-sent-event stream) gets the messages queued since it last woke, as one batch:
the run's threads never wait for a browser, and a burst of events costs one wake-up of the event loop.
A subscriber that falls too far behind is cut off (`lagging`) instead of growing without end; its stream then
catches up from the room's state (`catch_up`, and a fresh snapshot). At most `MAX_STREAMS` are open at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from typing import Any, Final

from dealer.language import said_now, spoken_language

MAX_QUEUED: Final = 1000
"""Messages a subscriber may have waiting before it is cut off (it reloads its snapshot)."""
MAX_STREAMS: Final = 256
"""Event streams open at once; one more is refused (503) until one closes."""


class TooManyStreams(Exception):  # noqa: N818 - a refusal the route answers 503, not a fault
    """The hub holds `MAX_STREAMS` streams already."""


class Published:
    """A message as published: its number, its data, and its JSON once said in each language asked."""

    __slots__ = ("message", "_said")

    def __init__(self, message: dict[str, Any]) -> None:
        self.message = message
        self._said: dict[str, str] = {}

    @property
    def kind(self) -> str:
        return str(self.message.get("type", ""))

    def said(self) -> str:
        """The message's JSON, its words said in the language spoken (the reader's)."""
        language = spoken_language()
        text = self._said.get(language)
        if text is None:
            text = self._said[language] = said_json(self.message)
        return text


def said_json(value: Any) -> str:
    """`value` as compact JSON, its `Later` words said in the language spoken."""
    return json.dumps(value, separators=(",", ":"), default=said_now)


class Subscriber:
    """One stream's queue, filled from any thread, drained on its event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        self._pending: list[Published] = []
        self._woken = False
        self._ready = asyncio.Event()
        self.lagging = False
        self.closed = False

    def put(self, data: Published) -> None:
        """Queue one message (any thread)."""
        with self._lock:
            if self.closed or self.lagging:
                return
            if len(self._pending) >= MAX_QUEUED:
                self.lagging = True
                self._pending.clear()
            else:
                self._pending.append(data)
            if self._woken:
                return
            self._woken = True
        try:
            self._loop.call_soon_threadsafe(self._ready.set)
        except RuntimeError:  # the loop is closed: the stream is gone
            self.closed = True

    def catch_up(self) -> None:
        """A stream that was cut off goes on: what it missed is forgotten (its reader is sent the room as it stands
        instead), and it queues again from now."""
        with self._lock:
            self.lagging = False
            self._pending.clear()
            self._woken = False
            self._ready.clear()

    def close(self) -> None:
        """End the stream (any thread)."""
        with self._lock:
            self.closed = True
            self._woken = True
        with contextlib.suppress(RuntimeError):  # the loop is closed: the stream is gone
            self._loop.call_soon_threadsafe(self._ready.set)

    async def next_batch(self, timeout: float) -> list[Published]:
        """The messages queued since the last batch; empty after `timeout` seconds with none."""
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except TimeoutError:
            return []
        with self._lock:
            self._ready.clear()
            self._woken = False
            batch, self._pending = self._pending, []
        return batch


class EventHub:
    """Publishes messages (dicts of plain values) to every subscriber; counts what it published."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: set[Subscriber] = set()
        self.seq = 0

    def publish(self, message: dict[str, Any]) -> None:
        """Number the message and queue it for every subscriber (each says its words in its own language)."""
        with self._lock:
            self.seq += 1
            message["seq"] = self.seq
            data = Published(message)
            subscribers = list(self._subscribers)
        for sub in subscribers:
            sub.put(data)

    def subscribe(self, loop: asyncio.AbstractEventLoop) -> Subscriber:
        """A new stream's queue; `TooManyStreams` when `MAX_STREAMS` are open."""
        sub = Subscriber(loop)
        with self._lock:
            if len(self._subscribers) >= MAX_STREAMS:
                raise TooManyStreams
            self._subscribers.add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        with self._lock:
            self._subscribers.discard(sub)

    def close_all(self) -> None:
        """End every stream (the server is shutting down)."""
        with self._lock:
            subscribers = list(self._subscribers)
            self._subscribers.clear()
        for sub in subscribers:
            sub.close()

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subscribers)
