"""Every message of the protocol: type codes, frozen dataclasses, one registry (encoder, decoder, golden
vectors and schema hash all read it). A message's kind (command, event, reply, notice) follows from its
type code's range (PROTOCOL.md section 3).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Annotated, Any, ClassVar, Final, TypeVar

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
from firmware_protocol.deal import DEAL_BYTES, deal_hash
from firmware_protocol.errors import DecodeError
from firmware_protocol.framing import MAX_BODY, encode_frame
from firmware_protocol.layout import ByteList, Codec, FixedBytes, Pocket, PocketList, Text, UInt

PROTOCOL_VERSION: Final = 2
"""The version this code speaks (PROTOCOL.md 5); what changed from version 1: PROTOCOL.md 13."""
EARLIER_VERSIONS: Final = (1,)
"""Versions a host of this code still speaks with a machine built to them (PROTOCOL.md 13)."""


class MsgType(IntEnum):
    """Message type codes: the first byte of every frame body."""

    ACK = 0x01
    NAK = 0x02
    REFUSED = 0x03
    EVENT_ACK = 0x04
    HELLO = 0x10
    GET_STATUS = 0x11
    SCAN_BOARD = 0x12
    LOAD_DEAL = 0x13
    START_DEAL = 0x14
    ABORT = 0x15
    RECOUNT = 0x16
    EJECT = 0x17
    RESET = 0x18
    DISPLAY = 0x19
    HELLO_ACK = 0x40
    STATUS = 0x41
    BOOT = 0x60
    BOARD_CHANGED = 0x61
    BOARD_SCANNED = 0x62
    DEAL_DONE = 0x63
    FAULT = 0x64
    RECOUNT_REPORT = 0x65
    PROGRESS = 0x70


class Kind(Enum):
    """What a frame is for, from its type code's range."""

    COMMAND = "command"  # 0x10-0x3F host -> device request; answered by Ack, Refused or its response
    REPLY = "reply"  # 0x01 Ack, 0x03 Refused, 0x04 EventAck, 0x40-0x5F responses; carry the seq answered
    EVENT = "event"  # 0x60-0x6F device -> host request; answered by EventAck
    NOTICE = "notice"  # 0x70-0x7F device -> host, never answered, seq 0
    NAK = "nak"  # 0x02 either way: a damaged frame arrived, retransmit now; seq 0


class Direction(Enum):
    """Who sends a message: every type but Nak goes one way only, so an echoed frame is never taken
    for the peer's."""

    TO_DEVICE = "host -> device"
    TO_HOST = "device -> host"
    BOTH = "both"


def kind_of(code: int) -> Kind | None:
    """The kind a type code's range gives, or None for reserved codes."""
    if code in (MsgType.ACK, MsgType.REFUSED, MsgType.EVENT_ACK) or 0x40 <= code <= 0x5F:
        return Kind.REPLY
    if code == MsgType.NAK:
        return Kind.NAK
    if 0x10 <= code <= 0x3F:
        return Kind.COMMAND
    if 0x60 <= code <= 0x6F:
        return Kind.EVENT
    if 0x70 <= code <= 0x7F:
        return Kind.NOTICE
    return None


def direction_of(code: int) -> Direction:
    """Who sends a (non-reserved) type code."""
    if code == MsgType.NAK:
        return Direction.BOTH
    if code == MsgType.EVENT_ACK or 0x10 <= code <= 0x3F:
        return Direction.TO_DEVICE
    return Direction.TO_HOST


class Message:
    """Base of every message class; the class attributes are set by `register`."""

    __slots__ = ()
    TYPE: ClassVar[MsgType]
    KIND: ClassVar[Kind]
    DIRECTION: ClassVar[Direction]
    REPLY: ClassVar[MsgType | None] = None
    SYNC: ClassVar[bool] = False
    CODEC: ClassVar[Codec]

    def payload(self) -> bytes:
        """The payload bytes of this message; raises ValueError if a field is out of range."""
        return self.CODEC.encode(self)

    def to_fields(self) -> dict[str, Any]:
        """The fields as JSON values (bytes as hex strings)."""
        return self.CODEC.to_json(self)

    @classmethod
    def describe(cls) -> str:
        """One line of the schema: code, name, kind, fields, and the reply of a command."""
        sync = " sync" if cls.SYNC else ""
        way = {Direction.TO_DEVICE: " h>d", Direction.TO_HOST: " d>h", Direction.BOTH: ""}[cls.DIRECTION]
        reply = f" -> {REGISTRY[cls.REPLY].__name__}" if cls.REPLY is not None else ""
        return f"0x{cls.TYPE:02X} {cls.__name__} {cls.KIND.value}{way}{sync} {cls.CODEC.describe()}{reply}"


REGISTRY: dict[int, type[Message]] = {}
M = TypeVar("M", bound=Message)


def register(
    code: MsgType, *, reply: MsgType | None = None, sync: bool = False, extensible: bool = False
) -> Callable[[type[M]], type[M]]:
    """Class decorator: give a message dataclass its type code and compile its codec.

    An `extensible` codec reads a longer payload and ignores what follows (Hello, HelloAck: PROTOCOL.md 5)."""

    def wrap(cls: type[M]) -> type[M]:
        kind = kind_of(code)
        if kind is None or code in REGISTRY:
            raise ValueError(f"type code 0x{code:02X} is reserved or taken")
        if (kind is Kind.COMMAND) != (reply is not None):
            raise ValueError(f"{cls.__name__}: commands, and only commands, name their reply")
        cls.TYPE, cls.KIND, cls.REPLY, cls.SYNC = code, kind, reply, sync
        cls.DIRECTION = direction_of(code)
        cls.CODEC = Codec.for_message(cls)
        cls.CODEC.extensible = extensible
        REGISTRY[code] = cls
        return cls

    return wrap


def decode_message(type_: int, payload: bytes) -> Message:
    """The message of a frame's type and payload; raises DecodeError if unknown or malformed."""
    cls = REGISTRY.get(type_)
    if cls is None:
        raise DecodeError(f"unknown message type 0x{type_:02X}")
    msg: Message = cls.CODEC.decode(payload)
    return msg


def encode_message(msg: Message, seq: int) -> bytes:
    """The frame of `msg` with sequence number `seq`, ready for the wire."""
    return encode_frame(msg.TYPE, seq, msg.payload())


def message_from_fields(name: str, fields: Mapping[str, Any]) -> Message:
    """A message from its class name and JSON fields (the golden vectors' form)."""
    for cls in REGISTRY.values():
        if cls.__name__ == name:
            msg: Message = cls.CODEC.from_json(fields)
            return msg
    raise ValueError(f"no message named {name!r}")


# --- field layouts ---------------------------------------------------------------------------

U8 = Annotated[int, UInt(1)]
U16 = Annotated[int, UInt(2)]
U32 = Annotated[int, UInt(4)]
DealBytes = Annotated[bytes, FixedBytes(DEAL_BYTES)]
StateField = Annotated[int, UInt(1, DeviceState)]
ActivityField = Annotated[int, UInt(1, Activity)]
FaultField = Annotated[int, UInt(1, FaultCode)]
ReasonField = Annotated[int, UInt(1, RefuseReason)]
Counts = Annotated[tuple[int, ...], ByteList(8)]

# --- link messages ---------------------------------------------------------------------------


@register(MsgType.ACK)
@dataclass(frozen=True, slots=True)
class Ack(Message):
    """Device's reply to a command: accepted (and carried out, or started)."""


@register(MsgType.NAK)
@dataclass(frozen=True, slots=True)
class Nak(Message):
    """A damaged frame arrived: if you have a request outstanding, send it again now."""


@register(MsgType.REFUSED)
@dataclass(frozen=True, slots=True)
class Refused(Message):
    """Reply to a command that arrived intact but cannot be carried out; nothing was done."""

    reason: ReasonField
    detail: U8


@register(MsgType.EVENT_ACK)
@dataclass(frozen=True, slots=True)
class EventAck(Message):
    """Host's reply to an event: received."""


# --- commands (host -> device) ---------------------------------------------------------------


@register(MsgType.HELLO, reply=MsgType.HELLO_ACK, sync=True, extensible=True)
@dataclass(frozen=True, slots=True)
class Hello(Message):
    """Handshake: the host's protocol version and schema hash, and a session number it picked at random.

    Always the host's first command, and its first after giving up.
    """

    protocol_version: U8
    schema_hash: U32
    session: U16


@register(MsgType.GET_STATUS, reply=MsgType.STATUS)
@dataclass(frozen=True, slots=True)
class GetStatus(Message):
    """Ask for the device's state, loaded job and progress."""


@register(MsgType.SCAN_BOARD, reply=MsgType.ACK)
@dataclass(frozen=True, slots=True)
class ScanBoard(Message):
    """Read the inserted board's barcode; the result comes as a BoardScanned event."""


@register(MsgType.LOAD_DEAL, reply=MsgType.ACK)
@dataclass(frozen=True, slots=True)
class LoadDeal(Message):
    """Load the deal for the next board: job id, board number, packed deal and its short hash."""

    job: U16
    board: U16
    deal: DealBytes
    deal_hash: U8

    @classmethod
    def for_deal(cls, job: int, board: int, deal: bytes) -> LoadDeal:
        """The LoadDeal of a packed deal, with its hash computed."""
        return cls(job, board, deal, deal_hash(deal))


@register(MsgType.START_DEAL, reply=MsgType.ACK)
@dataclass(frozen=True, slots=True)
class StartDeal(Message):
    """Deal the loaded job into the inserted board (or resume it after a resumable fault)."""

    job: U16


@register(MsgType.ABORT, reply=MsgType.ACK)
@dataclass(frozen=True, slots=True)
class Abort(Message):
    """Stop dealing now; the device reports DealDone with outcome ABORTED."""


@register(MsgType.RECOUNT, reply=MsgType.ACK)
@dataclass(frozen=True, slots=True)
class Recount(Message):
    """Read back every card in the board's pockets; the result comes as a RecountReport event."""

    job: U16


@register(MsgType.EJECT, reply=MsgType.ACK)
@dataclass(frozen=True, slots=True)
class Eject(Message):
    """Push the board out of the machine."""


@register(MsgType.RESET, reply=MsgType.ACK)
@dataclass(frozen=True, slots=True)
class Reset(Message):
    """Clear to IDLE, or reboot the firmware."""

    mode: Annotated[int, UInt(1, ResetMode)]


@register(MsgType.DISPLAY, reply=MsgType.ACK)
@dataclass(frozen=True, slots=True)
class Display(Message):
    """Show text on the machine's display, prompting its operator: insert a board, empty it, clear a jam.

    `board` and `label` name the board a prompt is about (0 and empty when none); `text` is for people.
    """

    prompt: Annotated[int, UInt(1, Prompt)]
    board: U16
    label: Annotated[bytes, Text(64)]
    text: Annotated[bytes, Text(80)]


# --- responses (device -> host replies) ------------------------------------------------------


@register(MsgType.HELLO_ACK, extensible=True)
@dataclass(frozen=True, slots=True)
class HelloAck(Message):
    """Handshake reply: versions, identity and capabilities of the machine."""

    protocol_version: U8
    schema_hash: U32
    firmware_major: U8
    firmware_minor: U8
    firmware_patch: U8
    boot_id: U16
    capabilities: Annotated[int, UInt(2, Capability)]
    pockets: U8
    hoppers: U8
    serial: Annotated[bytes, Text(32)]


@register(MsgType.STATUS)
@dataclass(frozen=True, slots=True)
class Status(Message):
    """The device's whole state: enough for a host that restarted to resume exactly."""

    state: StateField
    activity: ActivityField
    flags: Annotated[int, UInt(1, StatusFlag)]
    job: U16
    board: U16
    deal_hash: U8
    cards_dealt: U8
    fault: FaultField
    fault_detail: U16
    boot_id: U16
    pocket_counts: Counts


# --- events (device -> host requests) --------------------------------------------------------


@register(MsgType.BOOT, sync=True)
@dataclass(frozen=True, slots=True)
class Boot(Message):
    """The device (re)started: always its first event after power-up or reboot."""

    reason: Annotated[int, UInt(1, BootReason)]
    boot_id: U16


@register(MsgType.BOARD_CHANGED)
@dataclass(frozen=True, slots=True)
class BoardChanged(Message):
    """A board was inserted (present=1) or removed (present=0)."""

    present: U8


@register(MsgType.BOARD_SCANNED)
@dataclass(frozen=True, slots=True)
class BoardScanned(Message):
    """Result of ScanBoard: the barcode payload as opaque bytes, or why there is none, and how the board
    lies: `turns` quarter turns anticlockwise from straight, seen from above (PROTOCOL.md 12.1)."""

    result: Annotated[int, UInt(1, ScanResult)]
    turns: U8
    label: Annotated[bytes, Text(64)]


@register(MsgType.DEAL_DONE)
@dataclass(frozen=True, slots=True)
class DealDone(Message):
    """Dealing ended (all 52 cards, or aborted): cards dealt and the count in each pocket."""

    job: U16
    outcome: Annotated[int, UInt(1, DealOutcome)]
    cards_dealt: U8
    pocket_counts: Counts


@register(MsgType.FAULT)
@dataclass(frozen=True, slots=True)
class Fault(Message):
    """Dealing stopped on a fault: its code, a code-specific detail, and how far dealing got."""

    code: FaultField
    detail: U16
    job: U16
    cards_dealt: U8
    flags: Annotated[int, UInt(1, FaultFlag)]


@register(MsgType.RECOUNT_REPORT)
@dataclass(frozen=True, slots=True)
class RecountReport(Message):
    """Result of Recount: per pocket the cards identified and the number not identified."""

    job: U16
    pockets: Annotated[tuple[Pocket, ...], PocketList(8)]


# --- notices (device -> host, unacknowledged) ------------------------------------------------


@register(MsgType.PROGRESS)
@dataclass(frozen=True, slots=True)
class Progress(Message):
    """Dealing progress: cards dealt so far for a job."""

    job: U16
    cards_dealt: U8


def schema_text(version: int = PROTOCOL_VERSION) -> str:
    """The canonical description of every layout (and, from version 2, of the bits of the two bit sets whose
    meanings grew: capabilities and status flags) in protocol `version`; its hash is exchanged in the handshake."""
    lines = [f"protocol {version} max-body {MAX_BODY} crc16-ccitt-false big-endian"]
    lines += [REGISTRY[code].describe() for code in sorted(REGISTRY)]
    if version >= 2:
        for name, bits in (("capabilities", Capability), ("status-flags", StatusFlag)):
            lines.append(f"{name} " + " ".join(f"{bit.name}={bit.value}" for bit in bits))
    return "\n".join(lines) + "\n"


def schema_hash(version: int = PROTOCOL_VERSION) -> int:
    """The first four bytes (big-endian) of the SHA-256 of `schema_text` of `version`."""
    return int.from_bytes(hashlib.sha256(schema_text(version).encode("ascii")).digest()[:4], "big")


SCHEMA_HASH: Final = schema_hash()
SPOKEN: Final = {version: schema_hash(version) for version in (PROTOCOL_VERSION, *EARLIER_VERSIONS)}
"""Each protocol version a host of this code speaks, with the schema hash a machine of that version gives."""
