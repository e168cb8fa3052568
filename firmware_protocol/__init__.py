"""The open wire protocol for dealing machines (PROTOCOL.md): `crc`, `cobs`, `framing`, `messages`, `link`,
and the board-label grammar (`labels`); nothing here reads, writes, sleeps or reads a clock. Every public
name is importable from the package, loaded from its layer on first use.

May import: the standard library only.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from firmware_protocol.codes import (
        Activity,
        BootReason,
        Capability,
        DealOutcome,
        DeviceState,
        FaultCode,
        FaultFlag,
        Prompt,
        RefuseReason,
        ResetMode,
        ScanResult,
        StatusFlag,
    )
    from firmware_protocol.deal import (
        deal_hash,
        is_valid_deal,
        pack_seats,
        seat_of,
        unpack_seats,
    )
    from firmware_protocol.errors import (
        DecodeError,
        LocalProtocolError,
    )
    from firmware_protocol.framing import (
        MAX_PAYLOAD,
        MAX_WIRE,
        BadFrame,
        BadFrameReason,
        Frame,
        FrameDecoder,
        encode_frame,
    )
    from firmware_protocol.layout import (
        Pocket,
    )
    from firmware_protocol.link import (
        Answered,
        Delivered,
        GaveUp,
        Link,
        LinkConfig,
        LinkCounters,
        LinkEvent,
        Role,
        Violation,
    )
    from firmware_protocol.messages import (
        PROTOCOL_VERSION,
        REGISTRY,
        SCHEMA_HASH,
        SPOKEN,
        Abort,
        Ack,
        BoardChanged,
        BoardScanned,
        Boot,
        DealDone,
        Direction,
        Display,
        Eject,
        EventAck,
        Fault,
        GetStatus,
        Hello,
        HelloAck,
        Kind,
        LoadDeal,
        Message,
        MsgType,
        Nak,
        Progress,
        Recount,
        RecountReport,
        Refused,
        Reset,
        ScanBoard,
        StartDeal,
        Status,
        decode_message,
        encode_message,
    )

_HOMES: dict[str, str] = {
    # public name -> the module that defines it
    "Activity": "firmware_protocol.codes",
    "BootReason": "firmware_protocol.codes",
    "Capability": "firmware_protocol.codes",
    "DealOutcome": "firmware_protocol.codes",
    "DeviceState": "firmware_protocol.codes",
    "FaultCode": "firmware_protocol.codes",
    "FaultFlag": "firmware_protocol.codes",
    "Prompt": "firmware_protocol.codes",
    "RefuseReason": "firmware_protocol.codes",
    "ResetMode": "firmware_protocol.codes",
    "ScanResult": "firmware_protocol.codes",
    "StatusFlag": "firmware_protocol.codes",
    "deal_hash": "firmware_protocol.deal",
    "is_valid_deal": "firmware_protocol.deal",
    "pack_seats": "firmware_protocol.deal",
    "seat_of": "firmware_protocol.deal",
    "unpack_seats": "firmware_protocol.deal",
    "DecodeError": "firmware_protocol.errors",
    "LocalProtocolError": "firmware_protocol.errors",
    "MAX_PAYLOAD": "firmware_protocol.framing",
    "MAX_WIRE": "firmware_protocol.framing",
    "BadFrame": "firmware_protocol.framing",
    "BadFrameReason": "firmware_protocol.framing",
    "Frame": "firmware_protocol.framing",
    "FrameDecoder": "firmware_protocol.framing",
    "encode_frame": "firmware_protocol.framing",
    "Pocket": "firmware_protocol.layout",
    "Answered": "firmware_protocol.link",
    "Delivered": "firmware_protocol.link",
    "GaveUp": "firmware_protocol.link",
    "Link": "firmware_protocol.link",
    "LinkConfig": "firmware_protocol.link",
    "LinkCounters": "firmware_protocol.link",
    "LinkEvent": "firmware_protocol.link",
    "Role": "firmware_protocol.link",
    "Violation": "firmware_protocol.link",
    "PROTOCOL_VERSION": "firmware_protocol.messages",
    "REGISTRY": "firmware_protocol.messages",
    "SCHEMA_HASH": "firmware_protocol.messages",
    "SPOKEN": "firmware_protocol.messages",
    "Abort": "firmware_protocol.messages",
    "Ack": "firmware_protocol.messages",
    "BoardChanged": "firmware_protocol.messages",
    "BoardScanned": "firmware_protocol.messages",
    "Boot": "firmware_protocol.messages",
    "DealDone": "firmware_protocol.messages",
    "Direction": "firmware_protocol.messages",
    "Display": "firmware_protocol.messages",
    "Eject": "firmware_protocol.messages",
    "EventAck": "firmware_protocol.messages",
    "Fault": "firmware_protocol.messages",
    "GetStatus": "firmware_protocol.messages",
    "Hello": "firmware_protocol.messages",
    "HelloAck": "firmware_protocol.messages",
    "Kind": "firmware_protocol.messages",
    "LoadDeal": "firmware_protocol.messages",
    "Message": "firmware_protocol.messages",
    "MsgType": "firmware_protocol.messages",
    "Nak": "firmware_protocol.messages",
    "Progress": "firmware_protocol.messages",
    "Recount": "firmware_protocol.messages",
    "RecountReport": "firmware_protocol.messages",
    "Refused": "firmware_protocol.messages",
    "Reset": "firmware_protocol.messages",
    "ScanBoard": "firmware_protocol.messages",
    "StartDeal": "firmware_protocol.messages",
    "Status": "firmware_protocol.messages",
    "decode_message": "firmware_protocol.messages",
    "encode_message": "firmware_protocol.messages",
}

__all__ = [
    "MAX_PAYLOAD", "MAX_WIRE", "PROTOCOL_VERSION", "REGISTRY", "SCHEMA_HASH", "SPOKEN",
    "Abort", "Ack", "Activity", "Answered", "BadFrame", "BadFrameReason", "BoardChanged", "BoardScanned",
    "Boot", "BootReason", "Capability", "DealDone", "DealOutcome", "DecodeError", "Delivered",
    "DeviceState", "Direction", "Display", "Eject", "EventAck", "Fault", "FaultCode", "FaultFlag", "Frame",
    "FrameDecoder", "GaveUp",
    "GetStatus", "Hello", "HelloAck", "Kind", "Link", "LinkConfig", "LinkCounters", "LinkEvent",
    "LoadDeal", "LocalProtocolError", "Message", "MsgType", "Nak", "Pocket", "Progress", "Prompt", "Recount",
    "RecountReport", "RefuseReason", "Refused", "Reset", "ResetMode", "Role", "ScanBoard", "ScanResult",
    "StartDeal", "Status", "StatusFlag", "Violation", "deal_hash", "decode_message", "encode_frame",
    "encode_message", "is_valid_deal", "pack_seats", "seat_of", "unpack_seats",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use (then cached in this package)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
