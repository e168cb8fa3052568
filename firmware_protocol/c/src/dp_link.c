/* The device end of the reliable link (PROTOCOL.md 4 and 11): commands answered once and repeats answered
 * from the cache, stale copies dropped, the Hello handshake, events sent one at a time and retransmitted
 * with backoff until acknowledged (back at RTO whenever the host is heard), NAKs both ways. Time is the caller's millisecond clock. */
#include <string.h>
#include "dealer_proto.h"

#define BACKOFF_CAP_MS 2000u

/* The settings of dealer_proto.h must fit the fields that hold them (a compile error otherwise). */
typedef char dp_event_body_fits[(DP_MAX_EVENT_BODY >= 8 && DP_MAX_EVENT_BODY <= DP_MAX_BODY) ? 1 : -1];
typedef char dp_queue_fits[(DP_EVENT_QUEUE_BYTES >= 1 && DP_EVENT_QUEUE_BYTES <= 65535) ? 1 : -1];

static int reached(uint32_t now, uint32_t when)
{
    return (int32_t)(now - when) >= 0;
}

static void out(void *user, const uint8_t *bytes, size_t n)
{
    dp_device *dev = (dp_device *)user;
    dev->cfg.write(dev->cfg.user, bytes, n);
    dev->counters.bytes_sent += (uint32_t)n;
}

/* A body as one whole frame: COBS straight from the body, then the delimiter. */
static void send_body(dp_device *dev, const uint8_t *body, size_t n)
{
    static const uint8_t delimiter = 0;
    dp_cobs_write(body, n, out, dev);
    out(dev, &delimiter, 1);
}

/* RTO after `retries` timed retransmissions: RTO, 2 RTO, 4 RTO ... capped at max(2 s, RTO) (4.7). */
static uint32_t timeout_ms(const dp_device *dev)
{
    uint32_t t = dev->cfg.rto_ms, cap = t > BACKOFF_CAP_MS ? t : BACKOFF_CAP_MS;
    uint8_t i;
    for (i = 0; i < dev->retries && t < cap; i++)
        t <<= 1;
    return t < cap ? t : cap;
}

static void set_crc(uint8_t *body, uint8_t n)
{
    uint16_t crc = dp_crc16(body, (size_t)n - 2);
    body[n - 2] = (uint8_t)(crc >> 8);
    body[n - 1] = (uint8_t)crc;
}

/* Send the next event if none is outstanding: the one waiting in the slot, else the oldest queued. */
static void pump(dp_device *dev, uint32_t now)
{
    if (dev->in_handler)
        return; /* the reply goes first */
    if (dev->event_len == 0 && dev->queued > 0) {
        uint8_t n = dev->queue[0];
        memcpy(dev->event, dev->queue + 1, n);
        dev->event_len = n;
        dev->event_sent = 0;
        dev->queued = (uint16_t)(dev->queued - 1 - n);
        memmove(dev->queue, dev->queue + 1 + n, dev->queued);
    }
    if (dev->event_len == 0 || dev->event_sent)
        return;
    dev->event[1] = dev->next_seq++;
    set_crc(dev->event, dev->event_len);
    dev->event_sent = 1;
    dev->retries = 0;
    dev->nak_retransmitted = 0;
    send_body(dev, dev->event, dev->event_len);
    dev->deadline = now + timeout_ms(dev);
}

static void retransmit(dp_device *dev, uint32_t now)
{
    dev->counters.retransmits++;
    send_body(dev, dev->event, dev->event_len);
    dev->deadline = now + timeout_ms(dev);
}

/* A damaged frame was dropped: NAK it, at most once per RTO/2 (4.6). */
static void damaged(dp_device *dev, uint32_t now)
{
    uint8_t nak[4];
    dev->counters.bad_frames++;
    if (dev->nak_sent && !reached(now, dev->last_nak + dev->cfg.rto_ms / 2u))
        return;
    nak[0] = DP_NAK;
    nak[1] = 0;
    set_crc(nak, 4);
    send_body(dev, nak, 4);
    dev->nak_sent = 1;
    dev->last_nak = now;
    dev->counters.naks_sent++;
}

/* Build, remember and send the reply to a command just accepted. */
static void answer(dp_device *dev, const dp_msg *cmd, const dp_frame *f, uint32_t now)
{
    dp_msg reply;
    int n;
    memset(&reply, 0, sizeof reply);
    reply.type = DP_ACK;
    if (!dev->handshaken) {
        reply.type = DP_REFUSED; /* restarted since the host's last Hello (4.4) */
        reply.u.refused.reason = DP_REFUSE_HANDSHAKE_REQUIRED;
    } else if (cmd->type == DP_RESET && cmd->u.reset.mode > DP_RESET_REBOOT) {
        reply.type = DP_REFUSED; /* a mode this version does not define is never taken for CLEAR (6) */
        reply.u.refused.reason = DP_REFUSE_UNSUPPORTED;
        reply.u.refused.detail = DP_RESET;
    } else {
        if (cmd->type == DP_HELLO) {
            reply.type = DP_HELLO_ACK;
            reply.u.hello_ack.protocol_version = DP_PROTOCOL_VERSION;
            reply.u.hello_ack.schema_hash = DP_SCHEMA_HASH;
        } else if (cmd->type == DP_GET_STATUS) {
            reply.type = DP_STATUS;
        }
        dev->in_handler = 1;
        dev->cfg.on_command(dev->cfg.user, cmd, &reply, now);
        dev->in_handler = 0;
        if (cmd->type == DP_HELLO)
            reply.type = DP_HELLO_ACK; /* always answered, whatever its versions (5) */
        else if (reply.type != DP_REFUSED && reply.type != (cmd->type == DP_GET_STATUS ? DP_STATUS : DP_ACK))
            reply.type = 0; /* not a reply to this command: refused below */
    }
    n = dp_encode_body(&reply, f->seq, dev->reply, sizeof dev->reply);
    if (n < 0) { /* a reply the firmware filled in wrongly: refuse rather than send nothing */
        memset(&reply, 0, sizeof reply);
        reply.type = DP_REFUSED;
        reply.u.refused.reason = DP_REFUSE_UNSUPPORTED;
        reply.u.refused.detail = cmd->type;
        n = dp_encode_body(&reply, f->seq, dev->reply, sizeof dev->reply);
    }
    dev->reply_len = (uint8_t)n;
    send_body(dev, dev->reply, dev->reply_len);
}

static int same(const dp_frame *f, uint8_t type, uint8_t seq, uint8_t len, uint16_t crc)
{
    return f->type == type && f->seq == seq && f->len == len && f->crc == crc;
}

/* A command frame (4.3): a repeat of the last one, a late copy, or new. */
static void command(dp_device *dev, const dp_msg *cmd, const dp_frame *f, uint32_t now)
{
    int hello = f->type == DP_HELLO;
    if (dev->have_last && same(f, dev->last_type, dev->last_seq, dev->last_len, dev->last_crc)) {
        dev->counters.duplicates++;
        send_body(dev, dev->reply, dev->reply_len); /* the same reply again, byte for byte */
        return;
    }
    if (hello ? (dev->have_hello && same(f, DP_HELLO, dev->hello_seq, dev->hello_len, dev->hello_crc))
              : (dev->have_last && f->seq != (uint8_t)(dev->last_seq + 1))) {
        dev->counters.stale++;
        return;
    }
    dev->have_last = 1;
    dev->last_type = f->type;
    dev->last_seq = f->seq;
    dev->last_len = f->len;
    dev->last_crc = f->crc;
    if (hello) {
        dev->have_hello = 1;
        dev->hello_seq = f->seq;
        dev->hello_len = f->len;
        dev->hello_crc = f->crc;
        dev->handshaken = 1;
    }
    answer(dev, cmd, f, now);
    if (hello && dev->event_sent && dev->retries > 0)
        dev->deadline = now; /* a host just came: let it hear the news at the next poll (4.4) */
}

/* The host is there (a frame of its own arrived, intact or damaged): an outstanding event is retried
   at RTO again rather than after a backed-off timeout (4.5). */
static void heard_host(dp_device *dev, uint32_t now)
{
    uint32_t soon;
    if (!dev->event_sent || dev->retries == 0)
        return;
    dev->retries = 0;
    soon = now + timeout_ms(dev);
    if (reached(dev->deadline, soon))
        dev->deadline = soon;
}

static void frame(dp_device *dev, const dp_frame *f, uint32_t now)
{
    dp_msg msg;
    dev->counters.frames++;
    if (dp_decode(f->type, f->payload, f->len, &msg) != DP_OK) {
        damaged(dev, now); /* unknown type or wrong layout: line damage that escaped the CRC (2.4) */
        heard_host(dev, now);
        return;
    }
    switch (dp_kind_of(f->type)) {
    case DP_KIND_COMMAND:
        command(dev, &msg, f, now);
        heard_host(dev, now);
        break;
    case DP_KIND_NAK:
        heard_host(dev, now);
        if (dev->event_sent && !dev->nak_retransmitted) {
            dev->nak_retransmitted = 1;
            retransmit(dev, now);
        }
        break;
    default:
        if (f->type == DP_EVENT_ACK) {
            heard_host(dev, now);
            if (dev->event_sent && f->seq == dev->event[1]) {
                dev->event_len = 0;
                dev->event_sent = 0;
            } else {
                dev->counters.stale++;
            }
        } else {
            dev->counters.ignored++; /* the device's own direction: an echo (3) */
        }
        break;
    }
}

void dp_device_start(dp_device *dev, const dp_device_config *cfg, uint8_t reason, uint16_t boot_id,
                     uint32_t now_ms)
{
    static const uint8_t delimiter = 0;
    dp_msg boot;
    memset(dev, 0, sizeof *dev);
    dev->cfg = *cfg;
    dp_decoder_init(&dev->rx);
    out(dev, &delimiter, 1);
    boot.type = DP_BOOT;
    boot.u.boot.reason = reason;
    boot.u.boot.boot_id = boot_id;
    dev->event_len = (uint8_t)dp_encode_body(&boot, 0, dev->event, sizeof dev->event);
    pump(dev, now_ms);
}

void dp_device_receive(dp_device *dev, const uint8_t *bytes, size_t n, uint32_t now_ms)
{
    size_t i;
    for (i = 0; i < n; i++) {
        dp_frame f;
        dp_rx_result r = dp_decoder_push(&dev->rx, bytes[i], &f);
        if (r == DP_RX_FRAME) {
            frame(dev, &f, now_ms);
        } else if (r != DP_RX_NOTHING) {
            damaged(dev, now_ms);
            heard_host(dev, now_ms);
        }
    }
    pump(dev, now_ms);
}

void dp_device_poll(dp_device *dev, uint32_t now_ms)
{
    if (dev->event_sent && reached(now_ms, dev->deadline)) {
        if (dev->retries < 255)
            dev->retries++;
        dev->nak_retransmitted = 0;
        retransmit(dev, now_ms);
    }
    pump(dev, now_ms);
}

int dp_device_send_event(dp_device *dev, const dp_msg *event, uint32_t now_ms)
{
    int n;
    size_t room;
    if (dp_kind_of(event->type) != DP_KIND_EVENT || event->type == DP_BOOT)
        return DP_ERR_KIND;
    if (dev->event_len == 0 && dev->queued == 0) { /* straight into the slot */
        n = dp_encode_body(event, 0, dev->event, sizeof dev->event);
        if (n < 0)
            return n == DP_ERR_SPACE ? DP_ERR_TOO_LONG : n;
        dev->event_len = (uint8_t)n;
        dev->event_sent = 0;
        pump(dev, now_ms);
        return DP_OK;
    }
    room = sizeof dev->queue - dev->queued;
    if (room < 2)
        return DP_ERR_SPACE;
    room -= 1;
    if (room > sizeof dev->event)
        room = sizeof dev->event;
    n = dp_encode_body(event, 0, dev->queue + dev->queued + 1, room);
    if (n == DP_ERR_SPACE && room == sizeof dev->event)
        return DP_ERR_TOO_LONG;
    if (n < 0)
        return n;
    dev->queue[dev->queued] = (uint8_t)n;
    dev->queued = (uint16_t)(dev->queued + 1 + n);
    pump(dev, now_ms);
    return DP_OK;
}

int dp_device_send_notice(dp_device *dev, const dp_msg *notice)
{
    uint8_t body[16];
    int n;
    if (dp_kind_of(notice->type) != DP_KIND_NOTICE)
        return DP_ERR_KIND;
    n = dp_encode_body(notice, 0, body, sizeof body);
    if (n < 0)
        return n;
    send_body(dev, body, (size_t)n);
    return DP_OK;
}

int dp_device_idle(const dp_device *dev)
{
    return dev->event_len == 0 && dev->queued == 0;
}

int dp_device_next_deadline(const dp_device *dev, uint32_t *when_ms)
{
    if (!dev->event_sent)
        return 0;
    *when_ms = dev->deadline;
    return 1;
}
