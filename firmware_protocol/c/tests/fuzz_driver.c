/* Test driver: arbitrary bytes into the C decoder and the C device. Reads records on stdin until EOF,
 * each `kind` (1 byte), `length` (2 bytes, big-endian), `length` bytes:
 *   'D': the bytes into a fresh frame decoder; every intact frame whose message decodes must encode
 *        again to the very same body; then 0x00 and a known frame must come out as that frame (the
 *        decoder is back in step after anything).
 *   'V': the bytes into one long-lived device, in pieces whose sizes the bytes themselves choose, the
 *        clock moving on 7 ms a piece, polled after each, and after one piece in four an EventAck for
 *        the last event the device sent (so that its events keep flowing); everything the device writes
 *        must be whole intact frames of valid device-to-host messages.
 * Exits 1 with a line on stderr on the first broken property; 0 and a summary line on stdout at the end.
 * Run under the address and undefined-behaviour sanitizers, any memory error ends it too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dealer_proto.h"

static unsigned long frames_in, decoded_in, frames_out, events_out;

static void fail(const char *what)
{
    fprintf(stderr, "fuzz: %s\n", what);
    exit(1);
}

static void check_body_roundtrip(const dp_frame *f)
{
    dp_msg m;
    uint8_t body[DP_MAX_BODY];
    int n;
    frames_in++;
    if (dp_decode(f->type, f->payload, f->len, &m) != DP_OK)
        return;
    decoded_in++;
    n = dp_encode_body(&m, f->seq, body, sizeof body);
    if (n < f->len + 4 && (f->type == DP_HELLO || f->type == DP_HELLO_ACK)) {
        /* a longer Hello or HelloAck: its own fields come back, the later version's bytes do not (5) */
        if (n < 4 || body[0] != f->type || body[1] != f->seq || memcmp(body + 2, f->payload, (size_t)n - 4) != 0)
            fail("a decoded message does not encode to its own fields");
        return;
    }
    if (n != f->len + 4 || body[0] != f->type || body[1] != f->seq || memcmp(body + 2, f->payload, f->len) != 0
        || ((body[n - 2] << 8) | body[n - 1]) != f->crc)
        fail("a decoded message does not encode to its own body");
}

static void decoder_record(const uint8_t *p, size_t n)
{
    static const uint8_t ack[] = { 0x00, 0x05, 0x01, 0x07, 0x5E, 0xD9, 0x00 };
    dp_decoder d;
    dp_frame f;
    size_t i;
    int seen = 0;
    dp_decoder_init(&d);
    for (i = 0; i < n; i++) {
        dp_rx_result r = dp_decoder_push(&d, p[i], &f);
        if (r == DP_RX_FRAME) {
            if (f.len > DP_MAX_PAYLOAD)
                fail("a frame longer than the protocol allows");
            check_body_roundtrip(&f);
        }
    }
    for (i = 0; i < sizeof ack; i++) {
        dp_rx_result r = dp_decoder_push(&d, ack[i], &f);
        if (r == DP_RX_FRAME && i == sizeof ack - 1 && f.type == DP_ACK && f.seq == 7 && f.len == 0)
            seen = 1;
        else if (r != DP_RX_NOTHING && i != 0)
            fail("the decoder is out of step after the delimiter");
    }
    if (!seen)
        fail("the known frame after a delimiter was not decoded");
}

/* --- the device: answers everything, sends events, and its output is checked ------------------- */

static dp_device dev;
static dp_decoder out_decoder;
static uint32_t now;
static int last_event_seq = -1;

static void check_output(void *user, const uint8_t *bytes, size_t n)
{
    size_t i;
    (void)user;
    for (i = 0; i < n; i++) {
        dp_frame f;
        dp_msg m;
        dp_rx_result r = dp_decoder_push(&out_decoder, bytes[i], &f);
        if (r == DP_RX_NOTHING)
            continue;
        if (r != DP_RX_FRAME)
            fail("the device wrote a damaged frame");
        if (dp_decode(f.type, f.payload, f.len, &m) != DP_OK)
            fail("the device wrote an invalid message");
        if (dp_kind_of(f.type) == DP_KIND_COMMAND || f.type == DP_EVENT_ACK)
            fail("the device wrote a host-to-device message");
        if (dp_kind_of(f.type) == DP_KIND_EVENT)
            last_event_seq = f.seq;
        frames_out++;
    }
}

static void on_command(void *user, const dp_msg *cmd, dp_msg *reply, uint32_t t)
{
    static const uint8_t serial[] = "FUZZ";
    static const uint8_t label[] = "A:1:N0:4";
    dp_msg ev;
    (void)user;
    memset(&ev, 0, sizeof ev);
    switch (cmd->type) {
    case DP_HELLO:
        reply->u.hello_ack.boot_id = 1;
        reply->u.hello_ack.pockets = 4;
        reply->u.hello_ack.serial.bytes = serial;
        reply->u.hello_ack.serial.len = 4;
        break;
    case DP_GET_STATUS:
        reply->u.status.pocket_counts.count = 4;
        break;
    case DP_SCAN_BOARD:
        ev.type = DP_BOARD_SCANNED;
        ev.u.board_scanned.label.bytes = label;
        ev.u.board_scanned.label.len = 8;
        events_out += dp_device_send_event(&dev, &ev, t) == DP_OK;
        break;
    case DP_LOAD_DEAL:
        if (cmd->u.load_deal.deal_hash != dp_deal_hash(cmd->u.load_deal.deal)) {
            reply->type = DP_REFUSED;
            reply->u.refused.reason = DP_REFUSE_BAD_HASH;
            break;
        }
        ev.type = DP_PROGRESS;
        ev.u.progress.job = cmd->u.load_deal.job;
        dp_device_send_notice(&dev, &ev);
        ev.type = DP_DEAL_DONE;
        ev.u.deal_done.job = cmd->u.load_deal.job;
        ev.u.deal_done.pocket_counts.count = 4;
        events_out += dp_device_send_event(&dev, &ev, t) == DP_OK;
        break;
    case DP_DISPLAY:
        ev.type = DP_BOARD_CHANGED;
        ev.u.board_changed.present = 1;
        events_out += dp_device_send_event(&dev, &ev, t) == DP_OK;
        break;
    default:
        break;
    }
}

static void acknowledge(uint8_t seq)
{
    dp_msg ack;
    uint8_t body[8], wire[10];
    int n;
    size_t k;
    ack.type = DP_EVENT_ACK;
    n = dp_encode_body(&ack, seq, body, sizeof body);
    k = n > 0 ? dp_cobs_encode(body, (size_t)n, wire, sizeof wire - 1) : 0;
    if (k == 0)
        fail("cannot encode an EventAck");
    wire[k++] = 0;
    dp_device_receive(&dev, wire, k, now);
}

static void device_record(const uint8_t *p, size_t n)
{
    size_t at = 0;
    while (at < n) {
        size_t piece = 1 + p[at] % 40;
        if (piece > n - at)
            piece = n - at;
        dp_device_receive(&dev, p + at, piece, now);
        now += 7;
        dp_device_poll(&dev, now);
        if ((p[at] & 3) == 0 && last_event_seq >= 0)
            acknowledge((uint8_t)last_event_seq);
        at += piece;
    }
}

int main(void)
{
    static uint8_t buf[65536];
    static const dp_device_config cfg = { check_output, on_command, NULL, DP_RTO_MS(9600) };
    unsigned long records = 0;
    int kind;
    dp_decoder_init(&out_decoder);
    dp_device_start(&dev, &cfg, DP_BOOT_POWER_ON, 1, now);
    while ((kind = getchar()) != EOF) {
        int hi = getchar(), lo = getchar();
        size_t n;
        if (hi == EOF || lo == EOF)
            fail("a record's length is cut short");
        n = (size_t)(hi << 8 | lo);
        if (fread(buf, 1, n, stdin) != n)
            fail("a record is cut short");
        if (kind == 'D')
            decoder_record(buf, n);
        else if (kind == 'V')
            device_record(buf, n);
        else
            fail("unknown record kind");
        records++;
    }
    printf("records %lu frames %lu decoded %lu device_frames_out %lu events %lu bad %lu\n", records, frames_in,
           decoded_in, frames_out, events_out, (unsigned long)dev.counters.bad_frames);
    return 0;
}
