"""The reliable link, scenario by scenario, on a fake clock: loss, duplication, reordering, corruption."""

from __future__ import annotations

import pytest

from firmware_protocol import (
    SCHEMA_HASH,
    Ack,
    Answered,
    BadFrame,
    BoardChanged,
    Boot,
    BootReason,
    DealDone,
    DealOutcome,
    Delivered,
    EventAck,
    GaveUp,
    GetStatus,
    Hello,
    HelloAck,
    Link,
    LinkConfig,
    LoadDeal,
    LocalProtocolError,
    Message,
    Nak,
    Progress,
    Refused,
    RefuseReason,
    Role,
    StartDeal,
    Violation,
    encode_frame,
    encode_message,
)
from firmware_protocol.link import GIVE_UP_AFTER, LinkEvent

RTO = 1.0
DEAL = bytes.fromhex("1b" * 13)  # seats N E S W repeating: a valid deal
HELLO_ACK = HelloAck(1, SCHEMA_HASH, 1, 0, 0, 7, 3, 4, 1, b"SN")


def host_link(max_retries: int | None = 3) -> Link:
    return Link(Role.HOST, LinkConfig(retransmit_timeout=RTO, max_retries=max_retries, nak_interval=0.0))


def device_link() -> Link:
    return Link(Role.DEVICE, LinkConfig(retransmit_timeout=RTO, max_retries=None, nak_interval=0.0))


def carry(src: Link, dst: Link, now: float = 0.0) -> list[LinkEvent]:
    return dst.receive(src.data_to_send(), now)


def only(events: list[LinkEvent], kind: type) -> list[LinkEvent]:
    return [e for e in events if isinstance(e, kind)]


def handshaken() -> tuple[Link, Link]:
    """A host that said Hello and a device that announced itself with Boot, both answered."""
    host, dev = host_link(), device_link()
    host.send(Hello(1, SCHEMA_HASH, 1), 0.0)
    dev.send(Boot(BootReason.POWER_ON, 7), 0.0)
    (hello,) = carry(host, dev)
    assert isinstance(hello, Delivered)
    dev.reply(hello, HELLO_ACK)
    events = carry(dev, host)
    boot, answer = Delivered(Boot(BootReason.POWER_ON, 7), 0), Answered(Hello(1, SCHEMA_HASH, 1), HELLO_ACK)
    assert events == [boot, answer]
    assert only(carry(host, dev), Answered)
    assert host.idle and dev.idle
    return host, dev


def deliver_command(host: Link, dev: Link, msg: Message, now: float = 0.0) -> Delivered:
    host.send(msg, now)
    events = carry(host, dev, now)
    assert len(events) == 1 and isinstance(events[0], Delivered) and events[0].message == msg
    return events[0]


def test_a_command_is_delivered_once_and_answered() -> None:
    host, dev = handshaken()
    load = LoadDeal.for_deal(5, 1, DEAL)
    got = deliver_command(host, dev, load)
    dev.reply(got, Ack())
    assert carry(dev, host) == [Answered(load, Ack())]
    assert host.next_deadline() is None and dev.counters.delivered == 2


def test_a_lost_command_is_sent_again_after_the_timeout() -> None:
    host, dev = handshaken()
    host.send(StartDeal(5), 10.0)
    first = host.data_to_send()  # lost on the wire
    assert host.next_deadline() == 10.0 + RTO
    assert host.poll(10.5) == [] and host.data_to_send() == b""
    assert host.poll(11.0) == []
    again = host.data_to_send()
    assert again == first and host.counters.retransmits == 1
    assert [type(e) for e in dev.receive(again, 11.1)] == [Delivered]


def test_a_lost_reply_gets_the_same_reply_without_carrying_out_the_command_again() -> None:
    host, dev = handshaken()
    got = deliver_command(host, dev, StartDeal(5), 0.0)
    dev.reply(got, Ack())
    reply = dev.data_to_send()  # lost
    host.poll(RTO)
    assert dev.receive(host.data_to_send(), RTO) == []  # not delivered a second time...
    assert dev.data_to_send() == reply  # ...but answered again, with the same bytes
    assert dev.counters.duplicates == 1
    assert carry(dev, host) == [] and host.receive(reply, RTO) == [Answered(StartDeal(5), Ack())]


def test_a_duplicated_command_frame_is_carried_out_once() -> None:
    host, dev = handshaken()
    host.send(StartDeal(9), 0.0)
    frame = host.data_to_send()
    (got,) = dev.receive(frame, 0.0)
    assert isinstance(got, Delivered)
    dev.reply(got, Ack())
    first_reply = dev.data_to_send()
    assert dev.receive(frame, 0.01) == []
    second_reply = dev.data_to_send()
    assert first_reply == second_reply
    assert host.receive(first_reply + second_reply, 0.02) == [Answered(StartDeal(9), Ack())]
    assert host.counters.stale == 1  # the second copy answers nothing any more


def test_a_duplicate_arriving_before_the_reply_is_dropped() -> None:
    host, dev = handshaken()
    host.send(StartDeal(9), 0.0)
    frame = host.data_to_send()
    events = dev.receive(frame + frame, 0.0)
    assert len(events) == 1 and isinstance(events[0], Delivered)
    assert dev.data_to_send() == b"" and dev.counters.duplicates == 1


def test_a_late_copy_of_an_old_command_is_stale_and_not_carried_out() -> None:
    host, dev = handshaken()
    host.send(StartDeal(1), 0.0)
    original = host.data_to_send()
    host.poll(RTO)
    delayed_copy = host.data_to_send()  # held back on the wire: reordered behind the next command
    (got,) = dev.receive(original, 0.0)
    dev.reply(got, Ack())  # type: ignore[arg-type]
    assert carry(dev, host) == [Answered(StartDeal(1), Ack())]
    got2 = deliver_command(host, dev, StartDeal(2), 2.0)
    dev.reply(got2, Ack())
    dev.data_to_send()
    assert dev.receive(delayed_copy, 2.5) == [] and dev.data_to_send() == b""
    assert dev.counters.stale == 1 and dev.counters.delivered == 3


def test_a_corrupted_command_is_nakked_and_sent_again_at_once() -> None:
    host, dev = handshaken()
    host.send(LoadDeal.for_deal(3, 4, DEAL), 0.0)
    frame = bytearray(host.data_to_send())
    frame[8] ^= 0x10
    events = dev.receive(bytes(frame), 0.1)
    assert [type(e) for e in events] == [BadFrame]
    nak = dev.data_to_send()
    assert nak == encode_frame(0x02, 0)
    assert host.receive(nak, 0.2) == []
    assert host.counters.nak_retransmits == 1
    assert [type(e) for e in carry(host, dev, 0.3)] == [Delivered]
    assert host.next_deadline() == pytest.approx(0.2 + RTO)


def test_only_one_nak_retransmission_per_timeout() -> None:
    host, dev = handshaken()
    nak = encode_frame(0x02, 0)
    host.send(StartDeal(3), 0.0)
    host.data_to_send()
    host.receive(nak + nak, 0.1)
    assert host.counters.nak_retransmits == 1 and host.data_to_send().count(b"\x00") == 1
    host.poll(0.1 + RTO)  # the timer resends and re-arms the NAK
    host.data_to_send()
    host.receive(nak, 1.2)
    assert host.counters.nak_retransmits == 2


def test_a_corrupted_reply_is_recovered_by_the_timeout() -> None:
    host, dev = handshaken()
    got = deliver_command(host, dev, GetStatus(), 0.0)
    from firmware_protocol import Status

    status = Status(1, 0, 1, 5, 2, 9, 0, 0, 0, 7, (0, 0, 0, 0))
    dev.reply(got, status)
    reply = bytearray(dev.data_to_send())
    reply[6] ^= 0xFF
    assert [type(e) for e in host.receive(bytes(reply), 0.1)] == [BadFrame]
    assert dev.receive(host.data_to_send(), 0.2) == []  # a NAK, and the device has nothing outstanding
    host.poll(RTO)
    assert dev.receive(host.data_to_send(), RTO) == []
    assert carry(dev, host, RTO) == [Answered(GetStatus(), status)]


def test_an_event_is_delivered_once_when_its_ack_is_lost() -> None:
    host, dev = handshaken()
    done = DealDone(5, DealOutcome.COMPLETE, 52, (13, 13, 13, 13))
    dev.send(done, 0.0)
    assert carry(dev, host) == [Delivered(done, 1)]
    host.data_to_send()  # the Ack is lost
    dev.poll(RTO)
    assert carry(dev, host, RTO) == []
    assert host.counters.duplicates == 1
    assert carry(host, dev, RTO) == [Answered(done, EventAck())]


def test_events_wait_their_turn() -> None:
    host, dev = handshaken()
    first, second = Progress(1, 13), DealDone(1, DealOutcome.COMPLETE, 52, (13,) * 4)
    dev.send(DealDone(1, DealOutcome.ABORTED, 3, (1, 1, 1, 0)), 0.0)
    dev.send(second, 0.0)
    dev.send(first, 0.0)  # a notice goes at once, unacknowledged
    events = carry(dev, host)
    assert [e.message for e in events] == [DealDone(1, DealOutcome.ABORTED, 3, (1, 1, 1, 0)), first]  # type: ignore[union-attr]
    assert not dev.idle
    assert only(carry(host, dev), Answered)
    assert [e.message for e in carry(dev, host)] == [second]  # type: ignore[union-attr]


def test_a_notice_is_not_acknowledged() -> None:
    host, dev = handshaken()
    dev.send(Progress(5, 26), 0.0)
    assert carry(dev, host) == [Delivered(Progress(5, 26), 0)]
    assert host.data_to_send() == b"" and dev.next_deadline() is None


def test_a_host_with_a_retry_cap_gives_up_after_its_retries_and_must_say_hello_again() -> None:
    host, dev = handshaken()
    host.send(StartDeal(1), 0.0)
    host.send(GetStatus(), 0.0)
    t, events = 0.0, list[LinkEvent]()
    while not events:
        t += RTO
        events = host.poll(t)
    assert events == [GaveUp(StartDeal(1), 4, (GetStatus(),), 4 * RTO)]
    assert host.counters.retransmits == 3 and host.counters.give_ups == 1
    assert host.next_deadline() is None and host.idle
    with pytest.raises(LocalProtocolError, match="must be Hello"):
        host.send(GetStatus(), t)
    host.send(Hello(1, SCHEMA_HASH, 1), t)


def test_the_host_gives_up_only_after_a_stretch_of_time_without_a_reply() -> None:
    host = Link(Role.HOST)  # the shipped defaults: no retry cap, give up after 30 s without a reply
    host.send(Hello(1, SCHEMA_HASH, 1), 0.0)
    host.send(GetStatus(), 0.0)
    host.data_to_send()
    stale_reply = encode_message(Ack(), 77)  # a reply to nothing outstanding: still, the device hears us
    boot = encode_message(Boot(BootReason.POWER_ON, 9), 0)  # an event: a deaf device sends those too
    t = 0.0
    for heard_at in (25.0, 50.0, 75.0):  # a reply gets through every 25 s: never 30 s without one
        while t < heard_at:
            t = min(heard_at, host.next_deadline() or heard_at)
            assert not [e for e in host.poll(t) if isinstance(e, GaveUp)]
            host.receive(boot, t)
        host.receive(stale_reply, t)
    assert host.pending == Hello(1, SCHEMA_HASH, 1) and host.counters.retransmits > 200
    events: list[LinkEvent] = []
    while not events:
        deadline = host.next_deadline()
        assert deadline is not None
        t = deadline
        host.receive(boot, t)
        events = host.poll(t)
    assert t == pytest.approx(75.0 + GIVE_UP_AFTER)
    (gave_up,) = events
    assert isinstance(gave_up, GaveUp) and gave_up.silent == pytest.approx(GIVE_UP_AFTER)
    assert (gave_up.request, gave_up.attempts, gave_up.dropped) == (Hello(1, SCHEMA_HASH, 1),
                                                                     host.counters.retransmits + 1, (GetStatus(),))


def test_a_device_that_hears_the_host_starts_its_backoff_again() -> None:
    config = LinkConfig(retransmit_timeout=0.5, max_retries=None, backoff=2.0, max_timeout=2.0,
                        give_up_after=None)
    dev = Link(Role.DEVICE, config)
    dev.send(Boot(BootReason.POWER_ON, 1), 0.0)
    t = 0.0
    for _ in range(4):  # nobody there: 0.5, 1, 2, 2 s apart
        deadline = dev.next_deadline()
        assert deadline is not None
        t = deadline
        dev.poll(t)
    assert dev.next_deadline() == pytest.approx(t + 2.0)
    dev.receive(encode_message(Nak(), 0), t + 0.1)  # the host is there: it got our frame damaged
    assert dev.counters.nak_retransmits == 1
    assert dev.next_deadline() == pytest.approx(t + 0.1 + 0.5)
    for _ in range(3):  # nobody there again: the backoff grows
        deadline = dev.next_deadline()
        assert deadline is not None
        t = deadline
        dev.poll(t)
    assert dev.next_deadline() == pytest.approx(t + 2.0)
    dev.receive(b"\x05\x11\x22\x00", t + 0.1)  # a damaged frame: someone is talking, if garbled
    assert dev.next_deadline() == pytest.approx(t + 0.1 + 0.5)



def test_starting_the_backoff_again_keeps_the_nak_retransmission_used() -> None:
    """PROTOCOL.md 4.5: starting again from RTO resets the retry count and pulls the deadline in to now + RTO
    at the latest; it does not give back the NAK retransmission of the round."""
    config = LinkConfig(retransmit_timeout=0.5, max_retries=None, backoff=2.0, max_timeout=2.0,
                        give_up_after=None)
    dev = Link(Role.DEVICE, config)
    dev.send(Boot(BootReason.POWER_ON, 1), 0.0)
    dev.data_to_send()
    dev.poll(0.5)  # timed retransmission 1: the next would wait 1 s
    assert dev.next_deadline() == pytest.approx(1.5)
    dev.receive(encode_message(Nak(), 0), 0.6)
    assert dev.counters.nak_retransmits == 1 and dev.next_deadline() == pytest.approx(1.1)
    dev.receive(b"\x05\x11\x22\x00", 0.8)  # heard again, garbled: the deadline is not put off
    assert dev.next_deadline() == pytest.approx(1.1)
    dev.receive(encode_message(Nak(), 0), 0.9)
    assert dev.counters.nak_retransmits == 1  # no second NAK retransmission before the timed one


def test_first_requests_must_be_hello_and_boot() -> None:
    with pytest.raises(LocalProtocolError, match="must be Hello"):
        host_link().send(GetStatus(), 0.0)
    with pytest.raises(LocalProtocolError, match="must be Boot"):
        device_link().send(DealDone(1, 0, 0, ()), 0.0)


def test_a_restarted_device_refuses_commands_until_hello() -> None:
    host, _ = handshaken()
    dev = device_link()  # the machine lost power: a fresh firmware
    dev.send(Boot(BootReason.POWER_ON, 8), 0.0)
    host.send(StartDeal(1), 0.0)
    assert dev.receive(host.data_to_send(), 0.0) == []  # not delivered to the firmware
    refused = Refused(RefuseReason.HANDSHAKE_REQUIRED, 0)
    events = carry(dev, host)
    assert Answered(StartDeal(1), refused) in events
    assert Delivered(Boot(BootReason.POWER_ON, 8), 0) in events  # accepted whatever the old seq was
    host.send(Hello(1, SCHEMA_HASH, 1), 1.0)
    (hello,) = only(carry(host, dev, 1.0), Delivered)
    dev.reply(hello, HELLO_ACK)  # type: ignore[arg-type]
    assert Answered(Hello(1, SCHEMA_HASH, 1), HELLO_ACK) in carry(dev, host, 1.0)
    assert isinstance(deliver_command(host, dev, StartDeal(1), 2.0), Delivered)


def test_a_restarted_host_is_heard_whatever_seq_it_starts_with() -> None:
    host, dev = handshaken()
    for job in range(3):
        dev.reply(deliver_command(host, dev, StartDeal(job)), Ack())
        carry(dev, host)
    new_host = host_link()
    new_host.send(Hello(1, SCHEMA_HASH, 2), 5.0)  # a new session number, seq 0 again
    (hello,) = only(carry(new_host, dev, 5.0), Delivered)
    dev.reply(hello, HELLO_ACK)  # type: ignore[arg-type]
    assert Answered(Hello(1, SCHEMA_HASH, 2), HELLO_ACK) in carry(dev, new_host, 5.0)
    assert isinstance(deliver_command(new_host, dev, StartDeal(9), 6.0), Delivered)


def test_a_restarted_host_repeating_the_last_hello_gets_the_same_answer() -> None:
    host, dev = handshaken()  # the device's last request was this very Hello frame
    new_host = host_link()
    new_host.send(Hello(1, SCHEMA_HASH, 1), 5.0)
    assert carry(new_host, dev, 5.0) == []  # identical to the last frame: answered from the cache
    assert carry(dev, new_host, 5.0) == [Answered(Hello(1, SCHEMA_HASH, 1), HELLO_ACK)]


def test_a_late_copy_of_hello_does_not_restart_the_sequence() -> None:
    host, dev = handshaken()
    stale_hello = encode_message(Hello(1, SCHEMA_HASH, 1), 0)  # the handshake's frame, delayed
    dev.reply(deliver_command(host, dev, StartDeal(1), 1.0), Ack())
    assert carry(dev, host, 1.0) == [Answered(StartDeal(1), Ack())]
    assert dev.receive(stale_hello, 2.0) == [] and dev.data_to_send() == b""
    assert dev.counters.stale == 1
    assert isinstance(deliver_command(host, dev, StartDeal(2), 3.0), Delivered)


def test_a_late_copy_of_boot_does_not_restart_the_sequence() -> None:
    host, dev = handshaken()
    stale_boot = encode_message(Boot(BootReason.POWER_ON, 7), 0)
    dev.send(DealDone(1, DealOutcome.COMPLETE, 52, (13,) * 4), 0.0)
    assert len(only(carry(dev, host), Delivered)) == 1
    assert only(carry(host, dev), Answered)
    assert host.receive(stale_boot, 1.0) == [] and host.data_to_send() == b""
    assert host.counters.stale == 1
    dev.send(DealDone(2, DealOutcome.COMPLETE, 52, (13,) * 4), 2.0)
    assert len(only(carry(dev, host, 2.0), Delivered)) == 1


def test_a_reboot_that_repeats_its_boot_id_heals_at_the_next_hello() -> None:
    host, dev = handshaken()
    dev.send(BoardChanged(1), 0.0)
    assert len(only(carry(dev, host), Delivered)) == 1
    dev = device_link()  # restarted with the same boot_id (a firmware without a boot counter)
    dev.send(Boot(BootReason.POWER_ON, 7), 0.0)
    assert carry(dev, host) == []  # taken for a late copy of the Boot already seen
    host.send(StartDeal(1), 0.0)
    assert carry(host, dev) == []
    assert carry(dev, host) == [Answered(StartDeal(1), Refused(RefuseReason.HANDSHAKE_REQUIRED, 0))]
    host.send(Hello(1, SCHEMA_HASH, 3), 1.0)  # saying Hello, the host forgets what it received before
    dev.reply(only(carry(host, dev, 1.0), Delivered)[0], HELLO_ACK)  # type: ignore[arg-type]
    dev.poll(1.0 + RTO)  # the Boot again: accepted now
    assert Delivered(Boot(BootReason.POWER_ON, 7), 0) in carry(dev, host, 1.0 + RTO)


def test_frames_from_the_wrong_direction_are_violations() -> None:
    host, dev = handshaken()
    assert [type(e) for e in host.receive(encode_message(GetStatus(), 1), 0.0)] == [Violation]
    assert [type(e) for e in dev.receive(encode_message(Progress(1, 2), 0), 0.0)] == [Violation]
    assert host.data_to_send() == b"" and dev.data_to_send() == b""


def test_a_reply_of_the_wrong_type_does_not_answer() -> None:
    host, dev = handshaken()
    host.send(StartDeal(1), 0.0)
    seq = host.data_to_send()[2]
    events = host.receive(encode_message(HELLO_ACK, seq), 0.0)
    assert [type(e) for e in events] == [Violation] and host.pending == StartDeal(1)


def test_a_good_crc_on_a_bad_message_counts_as_damage() -> None:
    host, dev = handshaken()
    unknown = encode_frame(0x3F, 1, b"")
    short_load = encode_frame(0x13, 1, b"\x00\x05")
    for frame in (unknown, short_load):
        events = dev.receive(frame, 0.0)
        assert [type(e) for e in events] == [Violation]
        assert dev.data_to_send() == encode_frame(0x02, 0)  # a NAK, no reply
    assert isinstance(deliver_command(host, dev, StartDeal(4)), Delivered)  # seq 1 still expected


def test_reply_rules() -> None:
    host, dev = handshaken()
    got = deliver_command(host, dev, StartDeal(2))
    with pytest.raises(LocalProtocolError, match="answered by"):
        dev.reply(got, HELLO_ACK)
    dev.reply(got, Refused(RefuseReason.NO_BOARD, 0))
    with pytest.raises(LocalProtocolError, match="already answered"):
        dev.reply(got, Ack())
    carry(dev, host)
    got2 = deliver_command(host, dev, StartDeal(3))
    dev.reply(got, Ack())  # late: a newer command has arrived; dropped and counted
    assert dev.counters.late_replies == 1
    dev.reply(got2, Ack())
    with pytest.raises(LocalProtocolError, match="only a device"):
        host.reply(got2, Ack())


def test_send_rules() -> None:
    host, dev = handshaken()
    with pytest.raises(LocalProtocolError):
        host.send(Progress(1, 1), 0.0)
    with pytest.raises(LocalProtocolError):
        dev.send(GetStatus(), 0.0)
    with pytest.raises(ValueError, match="StartDeal.job"):
        host.send(StartDeal(1 << 16), 0.0)
    assert host.idle


def test_nak_sending_is_rate_limited() -> None:
    dev = Link(Role.DEVICE, LinkConfig(nak_interval=0.5))
    dev.data_to_send()
    dev.receive(b"\x11\x22\x00\x33\x00\x44\x00", 0.0)
    assert dev.counters.naks_sent == 1 and dev.counters.bad_frames == 3
    dev.receive(b"\x11\x00", 0.6)
    assert dev.counters.naks_sent == 2


def test_device_retransmissions_back_off() -> None:
    config = LinkConfig(retransmit_timeout=0.5, max_retries=None, backoff=2.0, max_timeout=2.0)
    dev = Link(Role.DEVICE, config)
    dev.send(Boot(BootReason.POWER_ON, 1), 0.0)
    times = []
    t = 0.0
    for _ in range(6):
        deadline = dev.next_deadline()
        assert deadline is not None
        times.append(deadline - t)
        t = deadline
        assert dev.poll(t) == []
    assert times == [0.5, 1.0, 2.0, 2.0, 2.0, 2.0]


def test_cancel_drops_pending_and_queued_requests() -> None:
    host, _ = handshaken()
    host.send(StartDeal(1), 0.0)
    host.send(GetStatus(), 0.0)
    assert host.cancel() == [StartDeal(1), GetStatus()]
    assert host.idle and host.next_deadline() is None


def test_sequence_numbers_wrap_around() -> None:
    host, dev = handshaken()
    for i in range(300):
        got = deliver_command(host, dev, StartDeal(i), float(i))
        dev.reply(got, Ack())
        assert carry(dev, host, float(i)) == [Answered(StartDeal(i), Ack())]
    assert dev.counters.delivered == 301 and dev.counters.stale == 0


def test_timing_for_a_baud_rate() -> None:
    host = LinkConfig.for_baud(9600, Role.HOST)
    dev = LinkConfig.for_baud(115200, Role.DEVICE)
    assert host.retransmit_timeout == pytest.approx(0.05 + 3 * 256 * 10 / 9600)
    assert host.max_retries is None and host.give_up_after == GIVE_UP_AFTER == 30.0
    assert dev.max_retries is None and dev.give_up_after is None and dev.retransmit_timeout < 0.12


def test_a_host_arriving_late_hears_the_outstanding_event_at_once() -> None:
    """A device that retransmitted its Boot in vain repeats it right after answering a new Hello."""
    dev = device_link()
    dev.send(Boot(BootReason.POWER_ON, 7), 0.0)
    dev.data_to_send()  # nobody listening
    dev.poll(RTO)
    dev.data_to_send()  # the retransmission, lost too; the next one would wait 2 * RTO
    host = host_link()
    host.send(Hello(1, SCHEMA_HASH, 1), 1.5)
    (hello,) = carry(host, dev, 1.5)
    assert isinstance(hello, Delivered)
    dev.reply(hello, HELLO_ACK)
    dev.poll(1.5)
    events = carry(dev, host, 1.5)
    assert Delivered(Boot(BootReason.POWER_ON, 7), 0) in events
    assert Answered(Hello(1, SCHEMA_HASH, 1), HELLO_ACK) in events


def test_a_device_whose_event_went_out_once_does_not_repeat_it_on_hello() -> None:
    dev = device_link()
    dev.send(Boot(BootReason.POWER_ON, 7), 0.0)
    dev.data_to_send()
    host = host_link()
    host.send(Hello(1, SCHEMA_HASH, 1), 0.1)
    (hello,) = carry(host, dev, 0.1)
    assert isinstance(hello, Delivered)
    dev.reply(hello, HELLO_ACK)
    dev.poll(0.1)
    assert dev.counters.retransmits == 0
