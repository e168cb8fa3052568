"""The LoadDeals on the wire, from both ends: as the host wrote them and as the machine accepted them.

A noisy line may damage a deal in flight; the CRC must catch it: a run over a noisy line is sound when
every accepted payload is one the host sent, byte for byte. The record file (`hil.record`) carries both.
"""

from __future__ import annotations

from firmware_protocol.framing import Frame, FrameDecoder
from firmware_protocol.messages import LoadDeal, MsgType


class LoadDealLog:
    """Every LoadDeal payload the host wrote and every one the machine accepted. `host_wrote` reads the bytes
    the host wrote, before the line touches them, and keeps the payload of every LoadDeal frame in them
    (retransmissions included); `accepted` keeps the payload of every LoadDeal the firmware accepted
    (answered with Ack). The record file writes both lists as hex."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.accepted: list[bytes] = []
        self._decoder = FrameDecoder()

    def host_wrote(self, data: bytes) -> None:
        """Bytes the host wrote to the line, before any damage."""
        for item in self._decoder.feed(data):
            if isinstance(item, Frame) and item.type == MsgType.LOAD_DEAL:
                self.sent.append(item.payload)

    def accept(self, msg: LoadDeal) -> None:
        """The firmware accepted this LoadDeal."""
        self.accepted.append(msg.payload())

    def to_json(self) -> dict[str, list[str]]:
        """Both lists as hex strings, in order."""
        return {"sent": [p.hex() for p in self.sent], "accepted": [p.hex() for p in self.accepted]}
