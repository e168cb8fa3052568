"""Inputs for fuzzing the C device library: random bytes, golden frames mutated, frames whose CRC is right
around payloads near the edges of their layouts, and host traffic for a whole device, all from a seed.

`fuzz_input` builds the record stream of `firmware_protocol/c/tests/fuzz_driver.c`; `payload_cases` gives
(type, payload) pairs for comparing the C and Python codecs' verdicts.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Iterator

from firmware_protocol import (
    SCHEMA_HASH,
    Abort,
    Display,
    Eject,
    EventAck,
    GetStatus,
    Hello,
    LoadDeal,
    Message,
    Nak,
    Recount,
    Reset,
    ScanBoard,
    StartDeal,
    encode_frame,
    encode_message,
)
from firmware_protocol.deal import pack_seats
from tests.support.golden_vectors import load

EDGE_VALUES = (0, 1, 2, 3, 4, 7, 8, 9, 13, 31, 32, 33, 51, 52, 63, 64, 65, 79, 80, 81, 0x7F, 0x80, 0xFE, 0xFF)
"""Byte values at the limits of the layouts: list and pocket counts, card indices, text lengths."""


def golden_frames() -> list[bytes]:
    """Every frame of the golden vectors, on the wire (delimiter included)."""
    frames = [bytes.fromhex(v["frame"]) for v in load("messages.json")["messages"]]
    frames += [bytes.fromhex(v["frame"]) for v in load("handworked.json")["messages"]]
    frames += [bytes.fromhex(f["frame"]) for f in load("exchange.json")["frames"]]
    return frames


def golden_payloads() -> list[tuple[int, bytes]]:
    """(type, payload) of every message example of the golden vectors."""
    out = [(v["type"], bytes.fromhex(v["payload"])) for v in load("messages.json")["messages"]]
    out += [(v["type"], bytes.fromhex(v["payload"])) for v in load("handworked.json")["messages"]]
    return out


def mutate(data: bytes, rng: random.Random) -> bytes:
    """`data` with one to three random edits: bit flips, edge values, insertions, deletions, cuts, splices."""
    buf = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        edit = rng.randrange(7)
        at = rng.randrange(len(buf) + 1)
        if edit == 0 and buf:
            buf[at % len(buf)] ^= 1 << rng.randrange(8)
        elif edit == 1 and buf:
            buf[at % len(buf)] = rng.choice(EDGE_VALUES)
        elif edit == 2:
            buf.insert(at, rng.randrange(256))
        elif edit == 3 and buf:
            del buf[at % len(buf)]
        elif edit == 4:
            del buf[at:]
        elif edit == 5:
            buf[at:at] = buf[rng.randrange(len(buf) + 1):][:rng.randrange(1, 40)]
        else:
            buf[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8)))
    return bytes(buf)


def edge_cases() -> list[tuple[int, bytes]]:
    """(type, payload) pairs: every golden payload with each of its bytes in turn set to each edge value,
    cut at every length, and one byte longer."""
    out = []
    for type_, payload in golden_payloads():
        for at in range(len(payload)):
            out += [(type_, payload[:at] + bytes([v]) + payload[at + 1:]) for v in EDGE_VALUES]
        out += [(type_, payload[:cut]) for cut in range(len(payload))]
        out.append((type_, payload + b"\x00"))
    return out


def payload_cases(seed: int, count: int) -> list[tuple[int, bytes]]:
    """(type, payload) pairs: `edge_cases`, then `count` golden payloads mutated at random (mostly under
    their own type, sometimes another) and random payloads under random type codes."""
    rng = random.Random(seed)
    golden = golden_payloads()
    out = edge_cases()
    for _ in range(count):
        type_, payload = rng.choice(golden)
        if rng.random() < 0.1:
            type_ = rng.randrange(256)
        if rng.random() < 0.8:
            payload = mutate(payload, rng)[:250]
        else:
            payload = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 30)))
        out.append((type_, payload))
    return out


def framed(type_: int, payload: bytes, rng: random.Random) -> bytes:
    """A frame with a right CRC (any type, any payload of at most 250 bytes)."""
    return encode_frame(type_, rng.randrange(256), payload[:250])


def host_traffic(rng: random.Random, commands: int) -> bytes:
    """What a host might send a device, damaged here and there: a Hello, then commands numbered in turn with
    repeats and stale copies, EventAcks of guessed numbers, NAKs, idle fill, noise and broken frames."""
    out = bytearray(b"\x00")
    seq = rng.randrange(256)
    out += encode_message(Hello(1, SCHEMA_HASH, rng.randrange(1 << 16)), seq)
    last = b""
    for _ in range(commands):
        choice = rng.random()
        if choice < 0.55:
            seq = (seq + 1) & 0xFF
            last = encode_message(next(_commands(rng)), seq)
            out += last
        elif choice < 0.65:
            out += last  # a retransmission
        elif choice < 0.7:
            out += encode_message(next(_commands(rng)), (seq - rng.randrange(1, 5)) & 0xFF)  # stale
        elif choice < 0.8:
            out += encode_message(EventAck(), rng.randrange(8))
        elif choice < 0.85:
            out += encode_message(Nak(), 0)
        elif choice < 0.9:
            out += mutate(last or b"\x01", rng)
        elif choice < 0.95:
            out += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
        else:
            out += encode_message(Hello(1, SCHEMA_HASH, rng.randrange(1 << 16)), rng.randrange(256))
    return bytes(out)


def _commands(rng: random.Random) -> Iterator[Message]:
    seats = [s for s in range(4) for _ in range(13)]
    while True:
        rng.shuffle(seats)
        job = rng.randrange(1, 8)
        load = LoadDeal.for_deal(job, rng.randrange(1, 10000), pack_seats(seats))
        if rng.random() < 0.2:
            load = LoadDeal(load.job, load.board, load.deal, load.deal_hash ^ 1)
        label = bytes(rng.randrange(0x20, 0x7F) for _ in range(rng.randrange(0, 65)))
        text = bytes(rng.randrange(0x20, 0x7F) for _ in range(rng.randrange(0, 81)))
        yield rng.choice([GetStatus(), ScanBoard(), load, StartDeal(job), Abort(), Recount(job), Eject(),
                          Reset(0), Display(rng.randrange(6), rng.randrange(1 << 16), label, text)])


def record(kind: bytes, data: bytes) -> bytes:
    return kind + struct.pack(">H", len(data)) + data


def fuzz_input(seed: int, decoder_records: int, device_records: int) -> bytes:
    """The fuzz driver's input: `decoder_records` records for the bare decoder (random bytes, mutated golden
    frames, right-CRC frames around edge payloads, several glued together) and `device_records` stretches of
    host traffic for one long-lived device."""
    rng = random.Random(seed)
    frames = golden_frames()
    payloads = golden_payloads()
    out = bytearray()
    for _ in range(decoder_records):
        kind = rng.randrange(4)
        if kind == 0:
            size = rng.choice([rng.randrange(0, 40), rng.randrange(0, 700)])
            zero_bias = rng.random() < 0.5
            data = bytes(0 if zero_bias and rng.random() < 0.1 else rng.randrange(256) for _ in range(size))
        elif kind == 1:
            data = mutate(rng.choice(frames), rng)
        elif kind == 2:
            type_, payload = rng.choice(payloads)
            if rng.random() < 0.1:
                type_ = rng.randrange(256)
            data = framed(type_, mutate(payload, rng), rng)
        else:
            data = b"".join(rng.choice([rng.choice(frames), mutate(rng.choice(frames), rng)])
                            for _ in range(rng.randrange(2, 6)))
        out += record(b"D", data)
    for _ in range(device_records):
        out += record(b"V", host_traffic(rng, rng.randrange(5, 40)))
    return bytes(out)
