"""The reliable link, for either end of the wire: sequence numbers, replies, retransmission, dedupe.

Sans-I/O: the link never reads, writes, sleeps or reads a clock. The caller passes in the bytes that
arrived and the time (float seconds from any monotonic clock), and takes out the bytes to write with
`data_to_send`. The rules it keeps are PROTOCOL.md section 4, the reliable link.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from enum import Enum
from typing import Final

from firmware_protocol.codes import RefuseReason
from firmware_protocol.errors import DecodeError, LocalProtocolError
from firmware_protocol.framing import DELIMITER, MAX_WIRE, BadFrame, Frame, FrameDecoder, encode_frame
from firmware_protocol.messages import (
    REGISTRY,
    Direction,
    EventAck,
    Kind,
    Message,
    MsgType,
    Nak,
    Refused,
    decode_message,
    encode_message,
)

REPLY_TIME: Final = 0.05
"""Seconds a device may take from a request's delimiter to starting its reply (PROTOCOL.md 4.5)."""
GIVE_UP_AFTER: Final = 30.0
"""Seconds the host waits without hearing a single intact frame from the device before it gives up
(PROTOCOL.md 4.5, 4.7)."""


class Role(Enum):
    """Which end of the wire a link serves."""

    HOST = "host"
    DEVICE = "device"


@dataclass(frozen=True)
class LinkConfig:
    """Timing of one end: retransmit timeout, backoff, and when to give up: after `give_up_after` seconds
    without hearing the peer (None: never), or after `max_retries` timeouts of one request (None: no cap)."""

    retransmit_timeout: float = 0.25
    max_retries: int | None = None
    backoff: float = 1.0
    max_timeout: float = 2.0
    nak_interval: float = 0.1
    give_up_after: float | None = GIVE_UP_AFTER

    @classmethod
    def for_baud(cls, baud: int, role: Role) -> LinkConfig:
        """The recommended timing at `baud` (8N1): room for a request, a frame in progress and a reply."""
        rto = REPLY_TIME + 3 * MAX_WIRE * 10 / baud
        if role is Role.HOST:
            return cls(retransmit_timeout=rto, nak_interval=rto / 2)
        return cls(retransmit_timeout=rto, max_retries=None, backoff=2.0, max_timeout=max(2.0, rto),
                   nak_interval=rto / 2, give_up_after=None)


@dataclass(frozen=True, slots=True)
class Delivered:
    """A new request or notice from the peer. A device answers a command with `Link.reply`."""

    message: Message
    seq: int


@dataclass(frozen=True, slots=True)
class Answered:
    """Our outstanding request got its reply (Ack, Refused or the command's response)."""

    request: Message
    reply: Message


@dataclass(frozen=True, slots=True)
class GaveUp:
    """A request went unanswered: nothing was heard from the peer for `silent` seconds (or every retry
    allowed was used); it and the queued requests are dropped."""

    request: Message
    attempts: int
    dropped: tuple[Message, ...]
    silent: float = 0.0


@dataclass(frozen=True, slots=True)
class Violation:
    """A frame with a good CRC that breaks the protocol: not a known message with a well-formed payload
    (treated as damaged: dropped and NAKed), or a message this end never receives (dropped)."""

    reason: str
    type: int
    seq: int


LinkEvent = Delivered | Answered | GaveUp | Violation | BadFrame


@dataclass
class LinkCounters:
    """What the link has done and seen; bad frames are counted per reason in `Link.decoder.counters`."""

    frames_sent: int = 0
    bytes_sent: int = 0
    frames_received: int = 0
    bad_frames: int = 0
    requests_sent: int = 0
    retransmits: int = 0
    nak_retransmits: int = 0
    naks_sent: int = 0
    naks_received: int = 0
    delivered: int = 0
    duplicates: int = 0
    stale: int = 0
    late_replies: int = 0
    violations: int = 0
    give_ups: int = 0


@dataclass
class _Outstanding:
    message: Message
    seq: int
    frame: bytes
    retries: int
    deadline: float
    sent_at: float
    nak_used: bool = False


# tuples, not sets: membership by identity, without hashing an Enum member (a Python-level call) per frame
_SENDS: Final = {Role.HOST: (Kind.COMMAND,), Role.DEVICE: (Kind.EVENT, Kind.NOTICE)}
_HEARS: Final = {Role.HOST: (Direction.TO_HOST, Direction.BOTH),
                 Role.DEVICE: (Direction.TO_DEVICE, Direction.BOTH)}
_SYNC: Final = {Role.HOST: "Hello", Role.DEVICE: "Boot"}


class Link:
    """One end of the reliable link, keeping the rules of the reliable link (PROTOCOL.md section 4)."""

    def __init__(self, role: Role, config: LinkConfig | None = None) -> None:
        self.role = role
        self._sends, self._hears = _SENDS[role], _HEARS[role]
        self.config = config or LinkConfig()
        self.decoder = FrameDecoder()
        self.counters = LinkCounters()
        self._outbox = bytearray(DELIMITER)  # cuts off any line noise before our first frame
        self.counters.bytes_sent = len(DELIMITER)
        self._queue: deque[tuple[Message, bytes]] = deque()  # requests waiting, with their payloads
        self._pending: _Outstanding | None = None
        self._tx_seq = 0
        self._synced = False
        self._rx_frame: Frame | None = None
        self._rx_sync: Frame | None = None
        self._rx_reply: bytes | None = None
        self._last_command: Delivered | None = None
        self._replied = True
        self._handshaken = role is Role.HOST
        self._last_nak: float | None = None
        self.last_heard: float | None = None
        """When the peer was last heard: at the host, its last reply (any seq); at a device, any intact
        frame of the host's."""

    # --- the caller's side -------------------------------------------------------------------

    @property
    def pending(self) -> Message | None:
        """The request waiting for its reply, if any."""
        return self._pending.message if self._pending else None

    @property
    def idle(self) -> bool:
        """True when no request is outstanding or queued."""
        return self._pending is None and not self._queue

    def data_to_send(self) -> bytes:
        """The bytes to write to the wire now (and forget)."""
        out = bytes(self._outbox)
        self._outbox.clear()
        return out

    def next_deadline(self) -> float | None:
        """When `poll` next has work (a retransmission or a give-up), or None."""
        p = self._pending
        if p is None:
            return None
        give_up = self._give_up_at(p)
        return p.deadline if give_up is None else min(p.deadline, give_up)

    def send(self, msg: Message, now: float) -> None:
        """Send a request (queued behind an outstanding one) or a notice (at once)."""
        if msg.KIND not in self._sends:
            raise LocalProtocolError(f"a {self.role.value} does not send {type(msg).__name__}")
        if msg.KIND is Kind.NOTICE:
            self._write(encode_message(msg, 0))
            return
        if not (self._synced or msg.SYNC):
            raise LocalProtocolError(f"the {self.role.value}'s first request (and the first after a "
                                     f"give-up) must be {_SYNC[self.role]}, not {type(msg).__name__}")
        payload = msg.payload()  # raises ValueError now, in the caller's frame, if a field is out of range
        self._synced = True
        self._queue.append((msg, payload))
        if self._pending is None:
            self._transmit_next(now)

    def reply(self, to: Delivered, msg: Message) -> None:
        """Device: answer the command `to` with Ack, Refused or the command's response."""
        if self.role is not Role.DEVICE or to.message.KIND is not Kind.COMMAND:
            raise LocalProtocolError("only a device replies, and only to commands")
        allowed = (MsgType.REFUSED, to.message.REPLY)
        if msg.TYPE not in allowed:
            raise LocalProtocolError(f"{type(to.message).__name__} is answered by "
                                     f"{' or '.join(REGISTRY[t].__name__ for t in allowed if t)}")
        if to is not self._last_command:
            self.counters.late_replies += 1
            return
        if self._replied:
            raise LocalProtocolError(f"{type(to.message).__name__} (seq {to.seq}) was already answered")
        self._answer(to.seq, msg)

    def cancel(self) -> list[Message]:
        """Drop the outstanding and queued requests (e.g. the peer restarted); returns them."""
        dropped = ([self._pending.message] if self._pending else []) + [msg for msg, _ in self._queue]
        self._pending = None
        self._queue.clear()
        return dropped

    def receive(self, data: bytes, now: float) -> list[LinkEvent]:
        """Feed bytes read from the wire; returns what they delivered, answered or broke."""
        events: list[LinkEvent] = []
        for item in self.decoder.feed(data):
            if isinstance(item, BadFrame):
                self.counters.bad_frames += 1
                events.append(item)
                self._send_nak(now)
                self._restart_backoff(now)  # a damaged frame is still someone talking
            else:
                self.counters.frames_received += 1
                self._on_frame(item, now, events)
        return events

    def poll(self, now: float) -> list[LinkEvent]:
        """Retransmit or give up if the outstanding request's deadline has passed."""
        p = self._pending
        if p is None:
            return []
        give_up = self._give_up_at(p)
        if give_up is not None and now >= give_up:
            return [self._give_up(p, now)]
        if now < p.deadline:
            return []
        if self.config.max_retries is not None and p.retries >= self.config.max_retries:
            return [self._give_up(p, now)]
        p.retries += 1
        p.nak_used = False
        p.deadline = now + self._timeout(p.retries)
        self.counters.retransmits += 1
        self._write(p.frame)
        return []

    # --- transmission ------------------------------------------------------------------------

    def _write(self, frame: bytes) -> None:
        self._outbox += frame
        self.counters.frames_sent += 1
        self.counters.bytes_sent += len(frame)

    def _give_up_at(self, p: _Outstanding) -> float | None:
        """When the host gives up on `p`: `give_up_after` seconds after it last heard the device (or
        after sending `p`, if later)."""
        after = self.config.give_up_after
        if after is None:
            return None
        heard = self.last_heard
        return (p.sent_at if heard is None else max(p.sent_at, heard)) + after

    def _timeout(self, retries: int) -> float:
        cfg = self.config
        t = cfg.retransmit_timeout * cfg.backoff**retries
        return min(t, max(cfg.max_timeout, cfg.retransmit_timeout))

    def _transmit_next(self, now: float) -> None:
        if not self._queue:
            return
        msg, payload = self._queue.popleft()
        seq = self._tx_seq
        self._tx_seq = (seq + 1) & 0xFF
        frame = encode_frame(msg.TYPE, seq, payload)
        if msg.SYNC:  # a new session: whatever the peer sends next starts its sequence afresh
            self._rx_frame = self._rx_sync = None
            self._rx_reply, self._last_command, self._replied = None, None, True
        self._pending = _Outstanding(msg, seq, frame, 0, now + self._timeout(0), now)
        self.counters.requests_sent += 1
        self._write(frame)

    def _give_up(self, p: _Outstanding, now: float) -> GaveUp:
        heard = self.last_heard
        silent = now - (p.sent_at if heard is None else max(p.sent_at, heard))
        self._pending = None
        dropped = tuple(msg for msg, _ in self._queue)
        self._queue.clear()
        self._synced = False
        self.counters.give_ups += 1
        return GaveUp(p.message, p.retries + 1, dropped, silent)

    def _send_nak(self, now: float) -> None:
        if self._last_nak is None or now - self._last_nak >= self.config.nak_interval:
            self._last_nak = now
            self.counters.naks_sent += 1
            self._write(encode_message(Nak(), 0))

    def _answer(self, seq: int, msg: Message) -> None:
        self._rx_reply = encode_message(msg, seq)
        self._replied = True
        self._write(self._rx_reply)

    # --- reception ---------------------------------------------------------------------------

    def _on_frame(self, frame: Frame, now: float, events: list[LinkEvent]) -> None:
        try:
            msg = decode_message(frame.type, frame.payload)
        except DecodeError as exc:  # CRC passed but not a message: treated as damaged
            self._violation(str(exc), frame, events)
            self._send_nak(now)
            self._restart_backoff(now)
            return
        kind = msg.KIND
        if msg.DIRECTION not in self._hears:  # e.g. our own frame echoed back by the line
            self._violation(f"a {self.role.value} does not receive {type(msg).__name__}", frame, events)
            return
        waited = self._pending is not None and self._pending.retries > 0
        self._heard(now, kind)
        if kind is Kind.NAK:
            self._on_nak(now)
        elif kind is Kind.REPLY:
            self._on_reply(frame, msg, now, events)
        elif kind is not Kind.NOTICE:
            self._on_request(frame, msg, events)
            p = self._pending
            if msg.SYNC and self.role is Role.DEVICE and p is not None and waited:
                p.deadline = now  # a host arrived after we had waited in vain: repeat our event now
        else:  # a notice, at the host
            self.counters.delivered += 1
            events.append(Delivered(msg, frame.seq))

    def _heard(self, now: float, kind: Kind) -> None:
        """An intact frame from the peer. The host counts only the device's replies as progress: they show
        the device hears it (a device that cannot hear still sends its events, and a Nak may be the host's
        own, echoed). A device that hears the host at all starts its backoff again from RTO: there is
        someone to talk to, and a noisy line needs attempts, not patience."""
        if kind is Kind.REPLY or self.role is Role.DEVICE:
            self.last_heard = now
        self._restart_backoff(now)

    def _restart_backoff(self, now: float) -> None:
        """Device: the host is there (its frame arrived, intact or not): retry at RTO again."""
        p = self._pending
        if self.role is Role.DEVICE and p is not None and p.retries:
            p.retries = 0
            p.deadline = min(p.deadline, now + self._timeout(0))

    def _on_nak(self, now: float) -> None:
        self.counters.naks_received += 1
        p = self._pending
        if p is not None and not p.nak_used:
            p.nak_used = True
            p.deadline = now + self._timeout(p.retries)
            self.counters.nak_retransmits += 1
            self._write(p.frame)

    def _on_reply(self, frame: Frame, reply: Message, now: float, events: list[LinkEvent]) -> None:
        p = self._pending
        if p is None or frame.seq != p.seq:
            self.counters.stale += 1
            return
        allowed = (MsgType.EVENT_ACK,) if p.message.KIND is Kind.EVENT else (MsgType.REFUSED, p.message.REPLY)
        if reply.TYPE not in allowed:
            self._violation(f"{type(reply).__name__} does not answer {type(p.message).__name__}", frame,
                            events)
            return
        self._pending = None
        events.append(Answered(p.message, reply))
        self._transmit_next(now)

    def _on_request(self, frame: Frame, msg: Message, events: list[LinkEvent]) -> None:
        if frame == self._rx_frame:
            self.counters.duplicates += 1
            if self._rx_reply is not None:
                self._write(self._rx_reply)
            return
        last = self._rx_frame
        if msg.SYNC:
            if frame == self._rx_sync:  # a late copy of an old sync message: restarting would be wrong
                self.counters.stale += 1
                return
            self._rx_sync = frame
        elif last is not None and frame.seq != (last.seq + 1) & 0xFF:
            self.counters.stale += 1
            return
        self._rx_frame, self._rx_reply = frame, None
        self._last_command, self._replied = None, True
        if self.role is Role.HOST:
            self._answer(frame.seq, EventAck())
        elif not (self._handshaken or msg.TYPE == MsgType.HELLO):
            self._answer(frame.seq, Refused(RefuseReason.HANDSHAKE_REQUIRED, 0))
            return
        else:
            self._handshaken = True
            self._replied = False
        delivered = Delivered(msg, frame.seq)
        if self.role is Role.DEVICE:
            self._last_command = delivered
        self.counters.delivered += 1
        events.append(delivered)

    def _violation(self, reason: str, frame: Frame, events: list[LinkEvent]) -> None:
        self.counters.violations += 1
        events.append(Violation(reason, frame.type, frame.seq))

