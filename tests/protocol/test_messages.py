"""The message registry: round trips for every registered type, strict decoding, the schema hash."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_protocol.codes import FaultCode, FaultFlag
from firmware_protocol.deal import deal_hash, is_valid_deal, pack_seats, seat_of, unpack_seats
from firmware_protocol.errors import DecodeError
from firmware_protocol.framing import MAX_PAYLOAD, Frame, decode_frame
from firmware_protocol.layout import Codec, Pocket
from firmware_protocol.messages import (
    REGISTRY,
    SCHEMA_HASH,
    Direction,
    Fault,
    Kind,
    LoadDeal,
    Message,
    MsgType,
    RecountReport,
    decode_message,
    encode_message,
    kind_of,
    register,
    schema_hash,
)
from tests.support.message_strategies import messages_of

CLASSES = sorted(REGISTRY.values(), key=lambda c: c.TYPE)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_message_type_round_trips(cls: type[Message], data: st.DataObject) -> None:
    msg = data.draw(messages_of(cls))
    payload = msg.payload()
    assert len(payload) <= MAX_PAYLOAD
    assert decode_message(cls.TYPE, payload) == msg
    assert cls.CODEC.from_json(msg.to_fields()) == msg
    seq = data.draw(st.integers(0, 255))
    frame = decode_frame(encode_message(msg, seq))
    assert isinstance(frame, Frame)
    assert (frame.type, frame.seq, frame.payload) == (cls.TYPE, seq, payload)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_a_payload_one_byte_short_or_long_is_rejected_save_a_longer_hello(cls: type[Message],
                                                                         data: st.DataObject) -> None:
    msg = data.draw(messages_of(cls))
    payload = msg.payload()
    if cls.TYPE in (MsgType.HELLO, MsgType.HELLO_ACK):  # a later version's fields are ignored (PROTOCOL.md 5)
        assert decode_message(cls.TYPE, payload + b"\x00") == msg
    else:
        with pytest.raises(DecodeError):
            decode_message(cls.TYPE, payload + b"\x00")
    if payload:
        with pytest.raises(DecodeError):
            decode_message(cls.TYPE, payload[:-1])


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_message_is_a_frozen_dataclass_of_a_known_kind(cls: type[Message]) -> None:
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    assert kind_of(cls.TYPE) is cls.KIND
    assert (cls.DIRECTION is Direction.BOTH) == (cls.TYPE == MsgType.NAK)
    if cls.KIND is Kind.COMMAND or cls.TYPE == MsgType.EVENT_ACK:
        assert cls.DIRECTION is Direction.TO_DEVICE
    if cls.KIND is Kind.COMMAND:
        assert cls.REPLY is not None and REGISTRY[cls.REPLY].KIND is Kind.REPLY
    else:
        assert cls.REPLY is None


def test_unknown_type_is_a_decode_error() -> None:
    with pytest.raises(DecodeError, match="unknown message type 0x3F"):
        decode_message(0x3F, b"")


def test_type_code_ranges() -> None:
    assert [kind_of(c) for c in (0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x10, 0x3F, 0x40, 0x5F, 0x60, 0x6F, 0x70,
                                 0x7F, 0x80, 0xFF)] == [
        None, Kind.REPLY, Kind.NAK, Kind.REPLY, Kind.REPLY, None, Kind.COMMAND, Kind.COMMAND, Kind.REPLY,
        Kind.REPLY, Kind.EVENT, Kind.EVENT, Kind.NOTICE, Kind.NOTICE, None, None]


def test_register_refuses_taken_or_reserved_codes_and_commands_without_reply() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Extra(Message):
        pass

    with pytest.raises(ValueError, match="reserved or taken"):
        register(MsgType.ACK)(Extra)
    with pytest.raises(ValueError, match="reserved or taken"):
        register(0x80)(Extra)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="name their reply"):
        register(0x30)(Extra)  # type: ignore[arg-type]
    assert 0x30 not in REGISTRY


def test_unknown_enum_values_are_kept_as_plain_ints() -> None:
    fault = Fault(200, 1, 2, 3, 0x80)
    decoded = decode_message(MsgType.FAULT, fault.payload())
    assert isinstance(decoded, Fault)
    assert decoded.code == 200 and not isinstance(decoded.code, FaultCode)
    known = decode_message(MsgType.FAULT, Fault(FaultCode.JAM, 1, 2, 3, FaultFlag.RESUMABLE).payload())
    assert isinstance(known, Fault) and known.code is FaultCode.JAM and known.flags == FaultFlag.RESUMABLE


@pytest.mark.parametrize("msg, field", [
    (LoadDeal(1, 2, b"\x00" * 12, 0), "LoadDeal.deal"),
    (LoadDeal(70000, 2, b"\x00" * 13, 0), "LoadDeal.job"),
    (LoadDeal(1, 2, b"\x00" * 13, -1), "LoadDeal.deal_hash"),
    (RecountReport(1, (Pocket((52,), 0),)), "RecountReport.pockets"),
    (Fault(1, 1, 1, 1, 256), "Fault.flags"),
])
def test_encoding_an_out_of_range_field_names_it(msg: Message, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        msg.payload()


def test_recount_report_rejects_card_indices_above_51() -> None:
    # job 1, one pocket of two cards (5 and 51), none unidentified
    good = bytes.fromhex("0001" + "01" + "02" + "0533" + "00")
    assert decode_message(MsgType.RECOUNT_REPORT, good) == RecountReport(1, (Pocket((5, 51), 0),))
    with pytest.raises(DecodeError, match="card index 52"):
        decode_message(MsgType.RECOUNT_REPORT, bytes.fromhex("0001" + "01" + "02" + "0534" + "00"))


def test_schema_hash_changes_when_a_layout_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    assert schema_hash() == SCHEMA_HASH
    fields = LoadDeal.CODEC.fields
    swapped = Codec(LoadDeal, (fields[1], fields[0], *fields[2:]))
    monkeypatch.setattr(LoadDeal, "CODEC", swapped)
    assert schema_hash() != SCHEMA_HASH
    renamed = Codec(LoadDeal, (dataclasses.replace(fields[0], name="job_id"), *fields[1:]))
    monkeypatch.setattr(LoadDeal, "CODEC", renamed)
    assert schema_hash() != SCHEMA_HASH


def test_deal_helpers() -> None:
    seats = [s for s in range(4) for _ in range(13)]
    deal = pack_seats(seats)
    assert unpack_seats(deal) == tuple(seats)
    assert [seat_of(deal, c) for c in range(52)] == seats
    assert is_valid_deal(deal)
    assert not is_valid_deal(pack_seats([0] * 52)) and not is_valid_deal(deal[:12])
    load = LoadDeal.for_deal(7, 3, deal)
    assert load.deal_hash == deal_hash(deal)
    with pytest.raises(ValueError, match=r"a deal is 52 seats, each 0\.\.3"):
        pack_seats([4] * 52)
