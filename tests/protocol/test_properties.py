"""Property tests: any bytes give frames or bad-frame events, never an exception, however they are split."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_protocol import cobs
from firmware_protocol.codes import RefuseReason
from firmware_protocol.errors import DecodeError
from firmware_protocol.framing import MAX_ENCODED, BadFrame, Frame, FrameDecoder, encode_frame
from firmware_protocol.link import Answered, Delivered, GaveUp, Link, Role, Violation
from firmware_protocol.messages import REGISTRY, Message, MsgType, Refused, decode_message, encode_message
from tests.support.message_strategies import messages_of

chunks = st.lists(st.binary(max_size=300), max_size=12)


def zero_rich_bytes() -> st.SearchStrategy[bytes]:
    byte = st.sampled_from([0, 0, 1, 2, 0xFF, 0x13, 0x80]) | st.integers(0, 255)
    return st.lists(byte, max_size=400).map(bytes)


def any_frame() -> st.SearchStrategy[bytes]:
    """A valid frame of any registered message type with any seq."""
    classes = sorted(REGISTRY.values(), key=lambda c: c.TYPE)
    message = st.sampled_from(classes).flatmap(messages_of)
    return st.tuples(message, st.integers(0, 255)).map(lambda ms: encode_message(ms[0], ms[1]))


@settings(max_examples=400, deadline=None)
@given(chunks)
def test_decoder_never_raises_and_ignores_how_bytes_are_split(parts: list[bytes]) -> None:
    decoder = FrameDecoder()
    split_events = [e for part in parts for e in decoder.feed(part)]
    assert all(isinstance(e, Frame | BadFrame) for e in split_events)
    assert FrameDecoder().feed(b"".join(parts)) == split_events
    for e in split_events:
        if isinstance(e, BadFrame):
            assert 0 < e.length <= MAX_ENCODED + 1
        else:
            assert 0 <= e.type <= 255 and len(e.payload) <= 250


@settings(max_examples=300, deadline=None)
@given(zero_rich_bytes(), st.integers(0, 255), st.integers(0, 255), st.binary(max_size=60))
def test_a_frame_after_a_delimiter_survives_any_garbage(garbage: bytes, type_: int, seq: int,
                                                        payload: bytes) -> None:
    wire = encode_frame(type_, seq, payload)
    events = FrameDecoder().feed(garbage + b"\x00" + wire)
    assert events[-1] == Frame(type_, seq, payload)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 255), st.binary(max_size=80))
def test_message_decoding_returns_a_message_or_a_decode_error(type_: int, payload: bytes) -> None:
    try:
        msg = decode_message(type_, payload)
    except DecodeError:
        return
    assert isinstance(msg, Message)
    if type_ in (MsgType.HELLO, MsgType.HELLO_ACK):  # a later version's fields after ours are ignored (5)
        assert payload.startswith(msg.payload())
    else:
        assert msg.payload() == payload


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600))
def test_cobs_round_trips_anything(data: bytes) -> None:
    enc = cobs.encode(data)
    assert 0 not in enc and cobs.decode(enc) == data


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([Role.HOST, Role.DEVICE]), st.lists(any_frame() | st.binary(max_size=40), max_size=20),
       st.lists(st.floats(0, 100), min_size=1))
def test_a_link_fed_any_frames_and_bytes_never_raises(
    role: Role, parts: list[bytes], times: list[float]
) -> None:
    link = Link(role)
    now = 0.0
    for i, part in enumerate(parts):
        now += times[i % len(times)]
        for ev in link.receive(part, now) + link.poll(now):
            assert isinstance(ev, Delivered | Answered | GaveUp | Violation | BadFrame)
            if isinstance(ev, Delivered) and role is Role.DEVICE:
                link.reply(ev, Refused(RefuseReason.BUSY, 0))  # a device answers every command
    written = FrameDecoder().feed(link.data_to_send())
    assert all(isinstance(item, Frame) for item in written)  # whatever it wrote is well framed
