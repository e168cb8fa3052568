"""The protocol's two exceptions: bytes that do not decode, and a caller breaking the protocol's rules.

Line noise is never an exception: damaged frames become counted `BadFrame` events and the link
recovers. `DecodeError` is raised only by the pure codecs (COBS, message payloads) and is turned into
events by the decoder and the link; `LocalProtocolError` means the program using this package asked for
something the protocol forbids (a bug to fix, not a condition to retry).
"""

from __future__ import annotations


class DecodeError(ValueError):
    """Bytes that are not a valid encoding (COBS block, frame body or message payload)."""


class LocalProtocolError(RuntimeError):
    """This side tried to do something the protocol forbids (e.g. a command before the handshake)."""
