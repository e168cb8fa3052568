"""The device's side of the reliable link (PROTOCOL.md section 4).

Commands in: duplicates answered from the cached reply, Hello as a sync request, stale copies
dropped, HANDSHAKE_REQUIRED before the first Hello. Events out: one outstanding, retransmitted with
a doubling backoff capped at max(2 s, RTO), restarted from RTO when the host is heard, and at once
on a NAK. Damaged frames are counted and NAKed at most once per RTO / 2.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from . import messages as m
from .wire import Damage, Frame, StreamDecoder, encode_frame

Reply = tuple[int, bytes]


def rto_for(baud: int) -> float:
    """0.05 s + 3 × 256 × 10 / baud (section 4.7)."""
    return 0.05 + 3 * 256 * 10 / baud


class DeviceLink:
    """One device's link state; `write` puts whole frames on the line."""

    def __init__(
        self,
        write: Callable[[bytes], None],
        on_command: Callable[[int, dict[str, Any]], Reply],
        baud: int,
        first_event_seq: int = 0,
    ) -> None:
        self._write = write
        self._on_command = on_command
        self.rto = rto_for(baud)
        self._decoder = StreamDecoder()
        self._last: bytes | None = None  # L: body of the last command accepted
        self._last_reply: bytes | None = None  # its reply, on the wire
        self._last_sync: bytes | None = None  # S: body of the last Hello accepted
        self.handshaken = False
        self._next_seq = first_event_seq
        self._queue: deque[tuple[int, bytes]] = deque()
        self._outstanding: bytes | None = None  # wire bytes of the event in flight
        self._outstanding_seq = 0
        self._retries = 0
        self._deadline = 0.0
        self._nak_retransmitted = False
        self._last_nak_sent = -1e9
        self.damaged = 0
        self.deaf = False  # a silenced device neither hears nor speaks
        self._resend_after_hello = False

    # ---- out ---------------------------------------------------------------------------------
    def queue_event(self, type_code: int, payload: bytes) -> None:
        self._queue.append((type_code, payload))

    def send_notice(self, type_code: int, payload: bytes) -> None:
        self._emit(encode_frame(type_code, 0, payload))

    def _emit(self, frame: bytes) -> None:
        if not self.deaf:
            self._write(frame)

    def _backoff(self) -> float:
        return float(min(self.rto * (2**self._retries), max(2.0, self.rto)))

    def poll(self, now: float) -> float | None:
        """Send what is due; the time of the next deadline, if any."""
        if self._outstanding is None and self._queue:
            type_code, payload = self._queue.popleft()
            self._outstanding_seq = self._next_seq
            self._next_seq = (self._next_seq + 1) % 256
            self._outstanding = encode_frame(type_code, self._outstanding_seq, payload)
            self._retries = 0
            self._nak_retransmitted = False
            self._emit(self._outstanding)
            self._deadline = now + self.rto
        elif self._outstanding is not None and (now >= self._deadline or self._resend_after_hello):
            if not self._resend_after_hello:
                self._retries += 1
            self._resend_after_hello = False
            self._nak_retransmitted = False
            self._emit(self._outstanding)
            self._deadline = now + self._backoff()
        return self._deadline if self._outstanding is not None else None

    # ---- in ----------------------------------------------------------------------------------
    def receive(self, data: bytes, now: float) -> None:
        if self.deaf:
            return
        for item in self._decoder.feed(data):
            if isinstance(item, Damage):
                self._heard(now)
                self._damage(now)
                continue
            try:
                fields = m.decode_payload(item.type_code, item.payload)
            except m.Malformed:
                self._heard(now)
                self._damage(now)
                continue
            if item.type_code not in m.HOST_TO_DEVICE:
                continue  # our own frame echoed back (section 3)
            self._heard(now)
            if item.type_code == m.T.NAK:
                self._on_nak(now)
            elif item.type_code == m.T.EVENT_ACK:
                if self._outstanding is not None and item.seq == self._outstanding_seq:
                    self._outstanding = None
                    self.poll(now)
            else:
                self._on_request(item, fields, now)

    def _heard(self, now: float) -> None:
        """Section 4.5: a device that hears the host starts its backoff again from RTO."""
        if self._outstanding is not None:
            self._retries = 0
            self._deadline = min(self._deadline, now + self.rto)

    def _damage(self, now: float) -> None:
        self.damaged += 1
        if now - self._last_nak_sent >= self.rto / 2:
            self._last_nak_sent = now
            self._emit(encode_frame(m.T.NAK, 0, b""))

    def _on_nak(self, now: float) -> None:
        if self._outstanding is not None and not self._nak_retransmitted:
            self._nak_retransmitted = True
            self._emit(self._outstanding)
            self._deadline = now + self._backoff()

    def _on_request(self, frame: Frame, fields: dict[str, Any], now: float) -> None:
        if self._last is not None and frame.body == self._last:
            if self._last_reply is not None:
                self._emit(self._last_reply)
            return
        is_hello = frame.type_code == m.T.HELLO
        if is_hello:
            if self._last_sync is not None and frame.body == self._last_sync:
                return
        elif self._last is not None and frame.seq != (self._last[1] + 1) % 256:
            return  # stale
        self._last = frame.body
        self._last_reply = None
        if is_hello:
            self._last_sync = frame.body
            self.handshaken = True
            if self._outstanding is not None and self._retries > 0:
                self._resend_after_hello = True
        if not self.handshaken:
            reply: Reply = (m.T.REFUSED, bytes([m.Refuse.HANDSHAKE_REQUIRED, 0]))
        else:
            reply = self._on_command(frame.type_code, fields)
        self._last_reply = encode_frame(reply[0], frame.seq, reply[1])
        self._emit(self._last_reply)
        if self._resend_after_hello:
            self.poll(now)
