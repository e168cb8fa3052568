"""Wire protocol figures: frames/s encoded and decoded, bytes and time on the wire for one board.

Run from the project root: ``python benchmarks/protocol.py [--repeats 5] [--frames 20000] [--quick]``.
Every speed is the median of --repeats runs, in process, printed with its ratio to named baselines
measured in the same process the same way (the same runs, the same frames):

* ``crc_hqx only``: binascii.crc_hqx over each frame body, the C floor of any decoder;
* ``byte-at-a-time decoder``: a straightforward decoder that handles one byte per step (as a firmware
  would), written here for comparison, against the split-based `FrameDecoder`.

The link figure (command and reply through a host and a device `Link`, both ends in this process) has
no baseline. Byte counts come from one board's exchange on a clean wire (`hil.bench.one_board_exchange`:
a host and a device Link back to back, the device scripted); they are counted, not timed.
"""

from __future__ import annotations

import argparse
import sys
from binascii import crc_hqx
from collections.abc import Callable

from _support import header, median, timings  # the project root on sys.path too

from firmware_protocol import cobs
from firmware_protocol.framing import Frame, FrameDecoder
from firmware_protocol.link import Delivered, Link, Role
from firmware_protocol.messages import (
    SCHEMA_HASH,
    Ack,
    Boot,
    Hello,
    LoadDeal,
    Message,
    decode_message,
    encode_message,
)
from hil.bench import HELLO_ACK, load_commands, one_board_exchange

BAUD = 9600
BITS_PER_BYTE = 10  # 8N1: start bit, 8 data bits, stop bit


def rate(count: int, run: Callable[[], object], repeats: int) -> float:
    """Items per second of `run` (which handles `count` items), median of `repeats` runs."""
    return count / median(timings(run, repeats))


def sample_messages(frames: int) -> list[Message]:
    """A board's worth of traffic, repeated: LoadDeal commands and Acks, one after the other."""
    loads = load_commands(frames // 2)
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


def speed_figures(frames_wanted: int, repeats: int) -> None:
    messages = sample_messages(frames_wanted)
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
    encode = rate(n, lambda: [encode_message(m, 7) for m in messages], repeats)
    framing = rate(n, decode_frames, repeats)
    full = rate(n, decode_messages, repeats)
    crc_only = rate(n, lambda: [crc_hqx(b, 0xFFFF) for b in bodies], repeats)
    naive = rate(n, lambda: byte_at_a_time_decode(stream), repeats)
    print(f"Speed ({n:,} frames: LoadDeal and Ack alternating, avg {len(stream) / n:.1f} bytes, "
          f"fed 4 KiB at a time; median of {repeats} runs)")
    print(f"  encode message + frame          {encode:>12,.0f} frames/s")
    print(f"  decode frames (COBS + CRC)      {framing:>12,.0f} frames/s   goal >= 100,000: "
          f"{'met' if framing >= 100_000 else 'NOT met'} ({framing / 100_000:.1f}x)")
    print(f"  decode frames + messages        {full:>12,.0f} frames/s   ({full / 100_000:.1f}x the goal)")
    print(f"  baseline: crc_hqx only          {crc_only:>12,.0f} frames/s   "
          f"(decoder at {framing / crc_only:.2f}x)")
    print(f"  baseline: byte-at-a-time        {naive:>12,.0f} frames/s   (decoder at {framing / naive:.1f}x)")


def link_figures(count: int, repeats: int) -> None:
    host, device = Link(Role.HOST), Link(Role.DEVICE)
    device.send(Boot(1, 1), 0.0)
    host.send(Hello(1, SCHEMA_HASH, 1), 0.0)
    commands = load_commands(count)
    hello_ack = HELLO_ACK

    def run() -> None:
        for cmd in [Hello(1, SCHEMA_HASH, 2), *commands]:
            host.send(cmd, 0.0)
            for ev in device.receive(host.data_to_send(), 0.0):
                if isinstance(ev, Delivered):
                    device.reply(ev, hello_ack if isinstance(ev.message, Hello) else Ack())
            host.receive(device.data_to_send(), 0.0)

    trips = rate(len(commands) + 1, run, repeats)
    print(f"  link: command + reply, both ends {trips:>11,.0f} round trips/s ({1e6 / trips:.0f} us each; "
          "no baseline)")


def wire_figures() -> None:
    frames = one_board_exchange()
    steps = ("scan", "load", "check", "deal", "recount")
    by_step = {s: sum(len(f.wire) for f in frames if f.step == s) for s in steps}
    board = by_step["load"] + by_step["check"] + by_step["deal"] + by_step["recount"]
    scanned = board + by_step["scan"]
    host_bytes = sum(len(f.wire) for f in frames if f.sender == "host" and f.step != "scan")
    load_frame = next(len(f.wire) for f in frames if isinstance(f.message, LoadDeal))
    ms = BITS_PER_BYTE / BAUD * 1000
    print("Bytes on the wire for one board (clean wire, after the handshake; both directions, Acks included)")
    for step, size in by_step.items():
        print(f"  {step:<8} {size:>4} bytes   {size * ms:6.1f} ms at {BAUD} baud")
    print(f"  load + check (is it empty?) + deal + recount: {board} bytes = {board / 13:.1f}x the 13-byte deal; "
          f"goal <= 300: {'met' if board <= 300 else 'NOT met'} ({board / 300:.0%} of it)")
    print(f"  with the barcode scan: {scanned} bytes")
    print(f"  LoadDeal frame: {load_frame} bytes on the wire (goal <= 24: "
          f"{'met' if load_frame <= 24 else 'NOT met'}; "
          "13 deal + 5 ids/hash + 2 header + 2 CRC + 1 COBS + 1 delimiter)")
    print(f"  time at {BAUD} baud (8N1): host's part {host_bytes} bytes = {host_bytes * ms:.0f} ms; "
          f"whole board {board * ms:.0f} ms, with the scan {scanned * ms:.0f} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=5, help="runs of ours and of each baseline (default 5)")
    parser.add_argument("--frames", type=int, default=20_000, help="frames decoded and encoded (default 20,000)")
    parser.add_argument("--quick", action="store_true", help="a first look: 1,000 frames, one run")
    args = parser.parse_args(argv)
    if args.quick:
        args.frames, args.repeats = 1000, 1
    header("protocol: frames/s encoded and decoded, bytes and time on the wire for one board",
           {"crc_hqx only": "binascii.crc_hqx over each frame body (the C floor of any decoder)",
            "byte-at-a-time decoder": "a decoder taking one byte per step, as a firmware would"},
           f"{args.frames:,} frames, median of {args.repeats} runs")
    speed_figures(args.frames, args.repeats)
    link_figures(args.frames // 4, args.repeats)
    wire_figures()
    return 0


if __name__ == "__main__":
    sys.exit(main())
