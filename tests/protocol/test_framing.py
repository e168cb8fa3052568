"""The frame decoder: every vector whole, byte by byte, at random splits, inside garbage; limits; counters."""

from __future__ import annotations

import random
from typing import Any

import pytest

from firmware_protocol.framing import (
    MAX_ENCODED,
    MAX_PAYLOAD,
    MAX_WIRE,
    BadFrame,
    BadFrameReason,
    Frame,
    FrameDecoder,
    decode_frame,
    encode_frame,
)
from tests.support.golden_vectors import expected_events, message_vectors, stream_vectors

MESSAGES = message_vectors()
STREAMS = stream_vectors()


def feed_in_pieces(data: bytes, cuts: list[int]) -> list[Frame | BadFrame]:
    decoder = FrameDecoder()
    out: list[Frame | BadFrame] = []
    last = 0
    for cut in [*sorted(cuts), len(data)]:
        out += decoder.feed(data[last:cut])
        last = cut
    return out


def ways_to_feed(data: bytes, seed: int) -> dict[str, list[Frame | BadFrame]]:
    rng = random.Random(seed)
    ways = {"whole": FrameDecoder().feed(data), "byte by byte": feed_in_pieces(data, list(range(len(data))))}
    for k in range(5):
        cuts = rng.sample(range(len(data) + 1), min(len(data) + 1, rng.randrange(1, 8)))
        ways[f"random split {k}"] = feed_in_pieces(data, cuts)
    return ways


@pytest.mark.parametrize("vec", MESSAGES, ids=lambda v: f"{v['name']}-{v['seq']}")
def test_message_frame_decodes_whole_byte_by_byte_and_split(vec: dict[str, Any]) -> None:
    wire = bytes.fromhex(vec["frame"])
    expected = [Frame(vec["type"], vec["seq"], bytes.fromhex(vec["payload"]))]
    for way, events in ways_to_feed(wire, len(wire)).items():
        assert events == expected, way


@pytest.mark.parametrize("vec", MESSAGES, ids=lambda v: f"{v['name']}-{v['seq']}")
def test_message_frame_survives_surrounding_garbage(vec: dict[str, Any]) -> None:
    rng = random.Random(vec["frame"])
    wire = bytes.fromhex(vec["frame"])
    before = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
    after = bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 40)))
    stream = before + b"\x00" + wire + after + b"\x00" + wire
    for way, events in ways_to_feed(stream, 1).items():
        frames = [e for e in events if isinstance(e, Frame)]
        assert frames == [decode_frame(wire)] * 2, way
        assert all(isinstance(e, BadFrame) for e in events if not isinstance(e, Frame)), way


@pytest.mark.parametrize("vec", STREAMS, ids=lambda v: v["name"])
def test_stream_vector_gives_its_events_however_it_is_split(vec: dict[str, Any]) -> None:
    stream = bytes.fromhex(vec["stream"])
    expected = expected_events(vec)
    for way, events in ways_to_feed(stream, 2).items():
        assert events == expected, way


def test_frame_is_found_again_after_each_kind_of_damage() -> None:
    reasons = {e["bad"] for v in STREAMS for e in v["events"] if "bad" in e}
    assert reasons == {r.value for r in BadFrameReason}


def test_oversize_is_reported_once_and_the_decoder_resynchronises() -> None:
    decoder = FrameDecoder()
    good = encode_frame(0x01, 4)
    events = []
    for _ in range(3):
        events += decoder.feed(b"\x7f" * 200)
    events += decoder.feed(b"\x00" + good)
    assert events == [BadFrame(BadFrameReason.OVERSIZE, MAX_ENCODED + 1), Frame(1, 4, b"")]
    assert decoder.counters.bad_frames == 1 and decoder.counters.frames == 1
    assert decoder.counters.by_reason[BadFrameReason.OVERSIZE] == 1


def test_largest_frame_fits_exactly() -> None:
    wire = encode_frame(0x65, 9, b"\x07" * MAX_PAYLOAD)
    assert len(wire) == MAX_WIRE == 256
    assert decode_frame(wire) == Frame(0x65, 9, b"\x07" * MAX_PAYLOAD)
    with pytest.raises(ValueError, match=f"payload of {MAX_PAYLOAD + 1} bytes exceeds {MAX_PAYLOAD}"):
        encode_frame(0x65, 9, b"\x07" * (MAX_PAYLOAD + 1))


def test_empty_input_and_idle_fill_produce_nothing() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"") == []
    assert decoder.feed(b"\x00" * 50) == []
    assert decoder.counters.bad_frames == 0


def test_reset_forgets_a_partial_frame() -> None:
    decoder = FrameDecoder()
    good = encode_frame(0x11, 1)
    decoder.feed(good[:3])
    decoder.reset()
    assert decoder.feed(good) == [Frame(0x11, 1, b"")]


def test_counters_add_up() -> None:
    stream = b"".join(bytes.fromhex(v["stream"]) for v in STREAMS)
    decoder = FrameDecoder()
    events = decoder.feed(stream)
    c = decoder.counters
    assert c.bytes == len(stream)
    assert c.frames == sum(isinstance(e, Frame) for e in events)
    assert c.bad_frames == sum(isinstance(e, BadFrame) for e in events) == sum(c.by_reason.values())
