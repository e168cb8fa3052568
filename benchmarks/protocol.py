"""Wire protocol figures: frames/s encoded and decoded, bytes and time on the wire for one board.

Run from the project root: ``python benchmarks/protocol.py``. Every speed is the best of several runs,
printed with its ratio to named baselines measured in the same process:

* ``crc_hqx only``: binascii.crc_hqx over each frame body, the C floor of any decoder;
* ``byte-at-a-time decoder``: a straightforward decoder that handles one byte per step (as a firmware
  would), written here for comparison, against the split-based `FrameDecoder`.

Byte counts come from one board's exchange on a clean wire (tests.protocol.sim.one_board_exchange):
the same frames as tests/vectors/exchange.json.
"""

from __future__ import annotations

import sys
import time
from binascii import crc_hqx
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from firmware_protocol import cobs  # noqa: E402
from firmware_protocol.framing import Frame, FrameDecoder  # noqa: E402
from firmware_protocol.link import Delivered, Link, Role  # noqa: E402
from firmware_protocol.messages import (  # noqa: E402
    SCHEMA_HASH,
    Ack,
    Boot,
    Hello,
    HelloAck,
    LoadDeal,
    Message,
    decode_message,
    encode_message,
)
from tests.protocol.sim import load_commands, one_board_exchange  # noqa: E402

BAUD = 9600
BITS_PER_BYTE = 10  # 8N1: start bit, 8 data bits, stop bit
FRAMES = 20_000


def best_rate(count: int, run: Callable[[], object], repeats: int = 5) -> float:
    """Items per second of `run` (which handles `count` items), best of `repeats`."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return count / best


def sample_messages() -> list[Message]:
    """A board's worth of traffic, repeated: LoadDeal commands and Acks, one after the other."""
    loads = load_commands(FRAMES // 2)
    return [m for load in loads for m in (load, Ack())]


def byte_at_a_time_decode(stream: bytes) -> list[bytes]:
    """Baseline: collect bytes one by one until a delimiter, then undo COBS and check the CRC."""
    out, buf = [], bytearray()
    for b in stream:
        if b:
            buf.append(b)
            continue
        body = bytearray()
        i = 0
        while i < len(buf):
            code = buf[i]
            for j in range(i + 1, min(i + code, len(buf))):
                body.append(buf[j])
            i += code
            if code != 0xFF and i < len(buf):
                body.append(0)
        if len(body) >= 4 and crc_hqx(bytes(body), 0xFFFF) == 0:
            out.append(bytes(body))
        buf.clear()
    return out


def speed_figures() -> None:
    messages = sample_messages()
    frames = [encode_message(m, i & 0xFF) for i, m in enumerate(messages)]
    stream = b"".join(frames)
    chunks = [stream[i:i + 4096] for i in range(0, len(stream), 4096)]
    bodies = [cobs.decode(f[:-1]) for f in frames]
    n = len(frames)

    def decode_frames() -> list[Frame]:
        decoder = FrameDecoder()
        return [e for c in chunks for e in decoder.feed(c) if isinstance(e, Frame)]

    def decode_messages() -> list[Message]:
        return [decode_message(f.type, f.payload) for f in decode_frames()]

    assert len(decode_frames()) == n and len(byte_at_a_time_decode(stream)) == n
    encode = best_rate(n, lambda: [encode_message(m, 7) for m in messages])
    framing = best_rate(n, decode_frames)
    full = best_rate(n, decode_messages)
    crc_only = best_rate(n, lambda: [crc_hqx(b, 0xFFFF) for b in bodies])
    naive = best_rate(n, lambda: byte_at_a_time_decode(stream), repeats=2)
    print(f"Speed ({n:,} frames: LoadDeal and Ack alternating, avg {len(stream) / n:.1f} bytes, "
          "fed 4 KiB at a time)")
    print(f"  encode message + frame          {encode:>12,.0f} frames/s")
    print(f"  decode frames (COBS + CRC)      {framing:>12,.0f} frames/s   goal >= 100,000: "
          f"{'met' if framing >= 100_000 else 'NOT met'} ({framing / 100_000:.1f}x)")
    print(f"  decode frames + messages        {full:>12,.0f} frames/s   ({full / 100_000:.1f}x the goal)")
    print(f"  baseline: crc_hqx only          {crc_only:>12,.0f} frames/s   "
          f"(decoder at {framing / crc_only:.2f}x)")
    print(f"  baseline: byte-at-a-time        {naive:>12,.0f} frames/s   (decoder at {framing / naive:.1f}x)")


def link_figures() -> None:
    host, device = Link(Role.HOST), Link(Role.DEVICE)
    device.send(Boot(1, 1), 0.0)
    host.send(Hello(1, SCHEMA_HASH, 1), 0.0)
    commands = load_commands(5_000)

    hello_ack = HelloAck(1, SCHEMA_HASH, 1, 0, 0, 1, 3, 4, 1, b"")

    def run() -> None:
        for cmd in [Hello(1, SCHEMA_HASH, 2), *commands]:
            host.send(cmd, 0.0)
            for ev in device.receive(host.data_to_send(), 0.0):
                if isinstance(ev, Delivered):
                    device.reply(ev, hello_ack if isinstance(ev.message, Hello) else Ack())
            host.receive(device.data_to_send(), 0.0)

    rate = best_rate(len(commands) + 1, run, repeats=3)
    print(f"  link: command + reply, both ends {rate:>11,.0f} round trips/s ({1e6 / rate:.0f} us CPU each)")


def wire_figures() -> None:
    frames = one_board_exchange()
    steps = ("scan", "load", "deal", "recount")
    by_step = {s: sum(len(f.wire) for f in frames if f.step == s) for s in steps}
    board = by_step["load"] + by_step["deal"] + by_step["recount"]
    scanned = board + by_step["scan"]
    host_bytes = sum(len(f.wire) for f in frames if f.sender == "host" and f.step != "scan")
    load_frame = next(len(f.wire) for f in frames if isinstance(f.message, LoadDeal))
    ms = BITS_PER_BYTE / BAUD * 1000
    print("Bytes on the wire for one board (clean wire, after the handshake; both directions, Acks included)")
    for step, size in by_step.items():
        print(f"  {step:<8} {size:>4} bytes   {size * ms:6.1f} ms at {BAUD} baud")
    print(f"  load + deal + recount: {board} bytes = {board / 13:.1f}x the 13-byte deal; "
          f"goal <= 300: {'met' if board <= 300 else 'NOT met'} ({board / 300:.0%} of it)")
    print(f"  with the barcode scan: {scanned} bytes")
    print(f"  LoadDeal frame: {load_frame} bytes on the wire (goal <= 24: "
          f"{'met' if load_frame <= 24 else 'NOT met'}; "
          "13 deal + 5 ids/hash + 2 header + 2 CRC + 1 COBS + 1 delimiter)")
    print(f"  time at {BAUD} baud (8N1): host's part {host_bytes} bytes = {host_bytes * ms:.0f} ms; "
          f"whole board {board * ms:.0f} ms, with the scan {scanned * ms:.0f} ms")


if __name__ == "__main__":
    print(f"Python {sys.version.split()[0]}")
    speed_figures()
    link_figures()
    wire_figures()
