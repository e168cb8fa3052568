"""The protocol's two exceptions: bytes that do not decode, and a caller breaking the protocol's rules.

Line noise is never an exception: damaged frames become counted `BadFrame` events and the link recovers.
"""

from __future__ import annotations


class DecodeError(ValueError):
    """Bytes that are not a valid encoding (COBS block, frame body or message payload). Raised only by the
    pure codecs; the decoder and the link turn it into events."""


class LocalProtocolError(RuntimeError):
    """This side tried to do something the protocol forbids (e.g. a command before the handshake): a bug to
    fix, not a condition to retry."""
