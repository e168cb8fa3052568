"""The open wire protocol for dealing machines: pure, standard library only (see PROTOCOL.md).

Layers, each usable alone: `crc` and `cobs` (primitives), `framing` (bytes <-> frames, bad-frame
events), `messages` (type codes, dataclasses, registry, schema hash), `link` (sequence numbers, replies,
retransmission, duplicate detection; the time is passed in). Nothing here reads, writes or sleeps.
"""

from firmware_protocol.codes import (
    Activity,
    BootReason,
    Capability,
    DealOutcome,
    DeviceState,
    FaultCode,
    FaultFlag,
    RefuseReason,
    ResetMode,
    ScanResult,
    StatusFlag,
)
from firmware_protocol.deal import deal_hash, is_valid_deal, pack_seats, seat_of, unpack_seats
from firmware_protocol.errors import DecodeError, LocalProtocolError
from firmware_protocol.framing import (
    MAX_PAYLOAD,
    MAX_WIRE,
    BadFrame,
    BadFrameReason,
    Frame,
    FrameDecoder,
    encode_frame,
)
from firmware_protocol.layout import Pocket
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
    Abort,
    Ack,
    BoardChanged,
    BoardScanned,
    Boot,
    DealDone,
    Direction,
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

__all__ = [
    "MAX_PAYLOAD", "MAX_WIRE", "PROTOCOL_VERSION", "REGISTRY", "SCHEMA_HASH",
    "Abort", "Ack", "Activity", "Answered", "BadFrame", "BadFrameReason", "BoardChanged", "BoardScanned",
    "Boot", "BootReason", "Capability", "DealDone", "DealOutcome", "DecodeError", "Delivered",
    "DeviceState", "Direction", "Eject", "EventAck", "Fault", "FaultCode", "FaultFlag", "Frame",
    "FrameDecoder", "GaveUp",
    "GetStatus", "Hello", "HelloAck", "Kind", "Link", "LinkConfig", "LinkCounters", "LinkEvent",
    "LoadDeal", "LocalProtocolError", "Message", "MsgType", "Nak", "Pocket", "Progress", "Recount",
    "RecountReport", "RefuseReason", "Refused", "Reset", "ResetMode", "Role", "ScanBoard", "ScanResult",
    "StartDeal", "Status", "StatusFlag", "Violation", "deal_hash", "decode_message", "encode_frame",
    "encode_message", "is_valid_deal", "pack_seats", "seat_of", "unpack_seats",
]
