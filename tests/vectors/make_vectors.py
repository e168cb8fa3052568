"""Write the golden vectors of the wire protocol: messages.json, framing.json, exchange.json.

Run once from the project root (``python tests/vectors/make_vectors.py``) when the protocol changes on
purpose, then review the diff: the tests check the codec against the committed files, never against
this script. The files are language-neutral JSON, so a firmware in C can test against them too.

handworked.json is not written here: it is worked out by hand from PROTOCOL.md, so that a layout
mistake shared by the codec and this script still shows (tests/protocol/test_handworked.py).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from firmware_protocol import cobs  # noqa: E402
from firmware_protocol.codes import (  # noqa: E402
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
from firmware_protocol.crc import crc16  # noqa: E402
from firmware_protocol.deal import deal_hash, pack_seats  # noqa: E402
from firmware_protocol.framing import BadFrame, FrameDecoder, encode_body, encode_frame  # noqa: E402
from firmware_protocol.layout import Pocket  # noqa: E402
from firmware_protocol.messages import (  # noqa: E402
    PROTOCOL_VERSION,
    REGISTRY,
    SCHEMA_HASH,
    Abort,
    Ack,
    BoardChanged,
    BoardScanned,
    Boot,
    DealDone,
    Display,
    Eject,
    EventAck,
    Fault,
    GetStatus,
    Hello,
    HelloAck,
    LoadDeal,
    Message,
    Nak,
    Progress,
    Recount,
    RecountReport,
    Refused,
    Reset,
    ScanBoard,
    StartDeal,
    Status,
    schema_text,
)

HERE = Path(__file__).resolve().parent
SORTED_SEATS = [s for s in range(4) for _ in range(13)]  # N all spades, E hearts, S diamonds, W clubs


def shuffled_seats(seed: int) -> list[int]:
    seats = list(SORTED_SEATS)
    random.Random(seed).shuffle(seats)
    return seats


DEAL_A = pack_seats(shuffled_seats(1))
DEAL_B = pack_seats(SORTED_SEATS)


def hands(seats: list[int]) -> list[tuple[int, ...]]:
    return [tuple(c for c in range(52) if seats[c] == s) for s in range(4)]


def example_messages() -> list[tuple[int, Message]]:
    """(seq, message) pairs: every registered type at least once, some several times."""
    a = hands(shuffled_seats(1))
    recount_ok = RecountReport(101, tuple(Pocket(h, 0) for h in a))
    recount_bad = RecountReport(102, (Pocket(a[0][:12], 0), Pocket(a[1] + (a[0][12],), 0),
                                      Pocket(a[2][:12] + (7,), 1), Pocket(a[3], 0)))
    return [
        (5, Ack()), (0, Ack()), (255, Ack()),
        (0, Nak()),
        (1, EventAck()), (0, EventAck()),
        (9, Refused(RefuseReason.WRONG_STATE, DeviceState.DEALING)),
        (10, Refused(RefuseReason.NOT_SCANNED, 0)),
        (0, Hello(PROTOCOL_VERSION, SCHEMA_HASH, 0xBEEF)),
        (1, GetStatus()),
        (2, ScanBoard()),
        (3, LoadDeal.for_deal(101, 17, DEAL_A)),
        (4, LoadDeal.for_deal(0x1234, 9999, DEAL_B)),
        (5, StartDeal(101)),
        (6, Abort()),
        (7, Recount(101)),
        (8, Eject()),
        (9, Reset(ResetMode.CLEAR)), (10, Reset(ResetMode.REBOOT)),
        (11, Display(Prompt.INSERT_BOARD, 17, b"RED:17:N0:" + b"X", b"insert board RED 17")),
        (12, Display(Prompt.NONE, 0, b"", b"")),
        (0, HelloAck(PROTOCOL_VERSION, SCHEMA_HASH, 1, 2, 3, 0x0102,
                     Capability.BARCODE_READER | Capability.CARD_RECOUNT | Capability.BOARD_SENSOR, 4, 1,
                     b"DM-000042")),
        (1, Status(DeviceState.DEALING, Activity.NONE, StatusFlag.BOARD_PRESENT, 101, 17, deal_hash(DEAL_A),
                   30, FaultCode.NONE, 0, 0x0102, (8, 8, 7, 7))),
        (1, Status(DeviceState.IDLE, Activity.NONE, 0, 0, 0, 0, 0, FaultCode.NONE, 0, 1, ())),
        (0, Boot(BootReason.POWER_ON, 0x0102)),
        (1, BoardChanged(1)), (2, BoardChanged(0)),
        (3, BoardScanned(ScanResult.OK, 0, b"RED:17:N0:" + b"X")),
        (4, BoardScanned(ScanResult.NO_READ, 0, b"")),
        (5, BoardScanned(ScanResult.OK, 1, b"RED:17:N0:8")),
        (5, DealDone(101, DealOutcome.COMPLETE, 52, (13, 13, 13, 13))),
        (6, DealDone(102, DealOutcome.ABORTED, 20, (5, 5, 5, 5))),
        (7, Fault(FaultCode.JAM, 30, 101, 30, FaultFlag.RESUMABLE)),
        (8, Fault(FaultCode.DUPLICATE_CARD, 12, 101, 41, 0)),
        (9, recount_ok), (10, recount_bad),
        (0, Progress(101, 13)),
    ]


def message_vector(seq: int, msg: Message) -> dict[str, Any]:
    payload = msg.payload()
    return {
        "name": type(msg).__name__,
        "type": msg.TYPE,
        "kind": msg.KIND.value,
        "seq": seq,
        "fields": msg.to_fields(),
        "payload": payload.hex(),
        "body": encode_body(msg.TYPE, seq, payload).hex(),
        "frame": encode_frame(msg.TYPE, seq, payload).hex(),
    }


def messages_file() -> dict[str, Any]:
    examples = example_messages()
    assert {m.TYPE for _, m in examples} == set(REGISTRY), "every registered type needs a vector"
    return {
        "about": "Golden frames of every message type. frame = COBS(body) + 00; "
                 "body = type, seq, payload, CRC-16/CCITT-FALSE of (type, seq, payload), big-endian. "
                 "fields: integers as numbers, bytes as hex strings.",
        "protocol_version": PROTOCOL_VERSION,
        "schema_hash": f"{SCHEMA_HASH:08x}",
        "schema": schema_text().splitlines(),
        "deals": [
            {"seats": "".join("NESW"[s] for s in seats), "packed": pack_seats(seats).hex(),
             "hash": deal_hash(pack_seats(seats))}
            for seats in (SORTED_SEATS, shuffled_seats(1), shuffled_seats(2))
        ],
        "messages": [message_vector(seq, msg) for seq, msg in examples],
    }


def cobs_cases() -> list[dict[str, str]]:
    nonzero = bytes((i % 255) + 1 for i in range(600))
    cases = {
        "one zero": b"\x00", "two zeros": b"\x00\x00", "zero 11 zero": bytes.fromhex("001100"),
        "11 22 00 33": bytes.fromhex("11220033"), "11 22 33 44": bytes.fromhex("11223344"),
        "11 then three zeros": bytes.fromhex("11000000"),
        "253 non-zero": nonzero[:253], "254 non-zero": nonzero[:254], "255 non-zero": nonzero[:255],
        "zero then 254 non-zero": b"\x00" + nonzero[:254], "254 non-zero then zero": nonzero[:254] + b"\x00",
        "253 non-zero, zero, one": nonzero[:253] + b"\x00\x01",
        "508 non-zero": nonzero[:508], "509 non-zero": nonzero[:509],
        "254 zeros": bytes(254), "255 zeros": bytes(255),
    }
    return [{"name": k, "decoded": v.hex(), "encoded": cobs.encode(v).hex()} for k, v in cases.items()]


def crc_cases() -> list[dict[str, str]]:
    data = [b"123456789", b"", b"\x00", b"\xff\xff", bytes(range(256)), b"\x13\x03" + DEAL_A]
    return [{"data": d.hex(), "crc": f"{crc16(d):04x}"} for d in data]


def event_json(item: Any) -> dict[str, Any]:
    if isinstance(item, BadFrame):
        return {"bad": item.reason.value, "length": item.length}
    return {"frame": {"type": item.type, "seq": item.seq, "payload": item.payload.hex()}}


def stream_cases() -> list[dict[str, Any]]:
    good = encode_frame(0x13, 3, LoadDeal.for_deal(101, 17, DEAL_A).payload())
    ack = encode_frame(0x01, 0, b"")
    flipped = bytearray(good)
    flipped[12] ^= 0x40  # a data byte, not a COBS code byte: the CRC must catch it
    body = encode_body(0x01, 7)
    streams = {
        "one frame": good,
        "two frames back to back": ack + good,
        "idle fill: extra delimiters": b"\x00\x00" + ack + b"\x00\x00\x00" + good + b"\x00",
        "garbage then delimiter then frame": b"\x55\xaa\x17\x00" + good,
        "garbage glued to a frame (frame lost, next one kept)": b"\x55\xaa" + good + ack,
        "bad crc then good frame": bytes(flipped) + ack,
        "truncated frame then good frame": good[:10] + b"\x00" + ack,
        "oversize run then good frame": b"\x42" * 300 + b"\x00" + ack,
        "body shorter than 4 bytes": cobs.encode(b"\x01\x02\x03") + b"\x00" + ack,
        "COBS run past the end": bytes.fromhex("0511223300") + ack,
        "corrupted code byte": bytes([good[0] ^ 0x08]) + good[1:] + ack,
        "valid COBS, CRC of wrong bytes": cobs.encode(body[:-1] + bytes([body[-1] ^ 1])) + b"\x00" + ack,
        "frame without its delimiter yet": ack + good[:-1],
    }
    out = []
    for name, stream in streams.items():
        events = FrameDecoder().feed(stream)
        out.append({"name": name, "stream": stream.hex(), "events": [event_json(e) for e in events]})
    return out


def framing_file() -> dict[str, Any]:
    return {
        "about": "COBS and CRC known answers, and byte streams with the frames and bad-frame events a "
                 "decoder must report for them (bad: cobs | short | crc | oversize; length = encoded bytes).",
        "crc": {"name": "CRC-16/CCITT-FALSE", "width": 16, "poly": "1021", "init": "ffff", "refin": False,
                "refout": False, "xorout": "0000", "check": "29b1", "cases": crc_cases()},
        "cobs": cobs_cases(),
        "streams": stream_cases(),
    }


def exchange_file() -> dict[str, Any]:
    from tests.support.link_sim import one_board_exchange

    frames = one_board_exchange()
    steps = ["scan", "load", "check", "deal", "recount"]
    return {
        "about": "Every frame of one board after the handshake on a clean wire, in the order sent: the "
                 "host's commands and Acks, the device's replies, events and notices.",
        "bytes_per_step": {step: sum(len(f.wire) for f in frames if f.step == step) for step in steps},
        "frames": [{"sender": f.sender, "step": f.step, "name": type(f.message).__name__, "seq": f.seq,
                    "fields": f.message.to_fields(), "frame": f.wire.hex()} for f in frames],
    }


def write(name: str, data: dict[str, Any]) -> None:
    (HERE / name).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {HERE / name}")


if __name__ == "__main__":
    write("messages.json", messages_file())
    write("framing.json", framing_file())
    write("exchange.json", exchange_file())
