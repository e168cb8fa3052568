"""The CRC escape rate: how often a frame damaged on the line still passes the frame check.

Run from the project root: ``python benchmarks/crc_escape.py [--frames 2000000] [--noise 0.05] [--quick]``.
The frames are the real frames of one board's exchange (`_support.one_board_exchange`: commands, replies,
events, a RecountReport of 52 cards), taken in turn. Each goes through a line that drops or replaces each
byte, its delimiter included, with probability ``--noise`` / 2 each (seeded), back to back as a link
sends them (a lost or damaged delimiter joins two frames), into one `firmware_protocol.FrameDecoder`. A
frame is **damaged** when the line changed any of its bytes; damage **escapes** when the decoder hands
out a frame (COBS and CRC-16 passed) that is none of the frames sent. Of those, how many also decode as a valid message
(`decode_message`), and how many as a LoadDeal. Figures: escapes per damaged frame, beside the
theoretical 2^-16 of a 16-bit check against damage it has no guarantee for, and beside the baseline
``low CRC byte only``: the same damaged frames judged by the CRC's low byte alone (damage to the high
byte then goes unseen), measured in the same run: what the second byte buys. Counted, not timed.
"""

from __future__ import annotations

import argparse
import random
import sys
from binascii import crc_hqx

from _support import header  # the project root on sys.path too

from firmware_protocol import cobs
from firmware_protocol.crc import CRC_INIT
from firmware_protocol.errors import DecodeError
from firmware_protocol.framing import DELIMITER, Frame, FrameDecoder
from firmware_protocol.messages import MsgType, decode_message
from hil.bench import one_board_exchange


def damage(frame: bytes, rate: float, rng: random.Random) -> bytes:
    """`frame` through the line: each byte dropped with probability rate/2, or replaced (another value)
    with probability rate/2."""
    out = bytearray()
    half = rate / 2
    for b in frame:
        r = rng.random()
        if r >= rate:
            out.append(b)
        elif r >= half:
            out.append(b ^ rng.randrange(1, 256))
    return bytes(out)


def low_byte_passes(piece: bytes) -> bool:
    """Would `piece` (bytes between two delimiters) pass a check of the CRC's low byte only?"""
    try:
        body = cobs.decode(piece)
    except DecodeError:
        return False
    return len(body) >= 4 and crc_hqx(body[:-2], CRC_INIT) & 0xFF == body[-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--frames", type=int, default=2_000_000, help="frames sent through the line (default 2e6)")
    parser.add_argument("--noise", type=float, default=0.05, help="share of bytes damaged (default 0.05)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a first look: 20,000 frames")
    args = parser.parse_args(argv)
    if args.quick:
        args.frames = 20_000
    header("crc_escape: damaged frames that pass the frame check (COBS + CRC-16/CCITT-FALSE)",
           {"low CRC byte only": "the same damaged frames judged by the CRC's low byte alone (its high byte "
                                 "unchecked)"},
           f"{args.frames:,} frames of one board's exchange, {args.noise:.0%} of bytes damaged "
           f"(half dropped, half replaced), seed {args.seed}")
    wires = [w.wire.rstrip(DELIMITER) + DELIMITER for w in one_board_exchange()]
    originals = {item for w in wires for item in FrameDecoder().feed(w) if isinstance(item, Frame)}
    rng = random.Random(args.seed)
    decoder = FrameDecoder()
    damaged = escaped = valid = loads = low_byte = 0
    tail = b""
    for i in range(args.frames):
        sent = wires[i % len(wires)]
        line = damage(sent, args.noise, rng)
        damaged += line != sent
        for item in decoder.feed(line):
            if not isinstance(item, Frame) or item in originals:
                continue
            escaped += 1
            try:
                decode_message(item.type, item.payload)
            except DecodeError:
                continue
            valid += 1
            loads += item.type == MsgType.LOAD_DEAL
        pieces = (tail + line).split(DELIMITER)
        tail = pieces.pop()
        low_byte += sum(1 for piece in pieces if piece + DELIMITER not in wires and low_byte_passes(piece))
    print()
    print(f"damaged frames:        {damaged:,} of {args.frames:,} sent")
    print(f"passed the CRC:        {escaped:,} = {escaped / max(damaged, 1):.2e} per damaged frame "
          f"(a 16-bit check: 2^-16 = {2 ** -16:.2e})")
    print(f"  and a valid message: {valid:,} = {valid / max(damaged, 1):.2e} per damaged frame "
          f"({loads:,} of them a LoadDeal)")
    print(f"low CRC byte only:     {low_byte:,} = {low_byte / max(damaged, 1):.2e} per damaged frame")
    return 0


if __name__ == "__main__":
    sys.exit(main())
