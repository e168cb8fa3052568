/* Test driver: the golden vectors through the C library. Reads commands on stdin, one a line, and
 * prints one answer a line (JSON where it has fields):
 *   crc HEX          -> the CRC-16 of the bytes, 4 hex digits
 *   cobs_encode HEX  -> the COBS encoding, or "error"
 *   cobs_decode HEX  -> the decoded bytes, or "error"
 *   deal HEX         -> {"hash": H, "seats": "NESW..."} of a 13-byte packed deal
 *   stream HEX       -> every event of the frame decoder, one a line, then "end"
 *   message HEX      -> a frame (delimiter included) decoded: {"type", "seq", "fields", "frame"}, where
 *                       "frame" is the decoded message encoded again; or {"error": ...}
 *   payload HEX      -> the first byte a type code, the rest its payload: "ok", "unknown" or "malformed"
 *                       (and "ok" only if the message encodes again to the same payload)
 * Hex on output is lowercase without spaces; input hex may have spaces. Fields are printed by the names
 * of PROTOCOL.md 7.2, from the named struct members. */
#include <stdio.h>
#include <string.h>
#include "dealer_proto.h"

#define MAX_BYTES 4096

static uint8_t bytes[MAX_BYTES];

static int nibble(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Hex digits of `s` (spaces skipped) into `bytes`; the count, or -1 if malformed. */
static int parse_hex(const char *s)
{
    int n = 0, hi = -1;
    for (; *s && *s != '\n'; s++) {
        int v;
        if (*s == ' ') continue;
        v = nibble(*s);
        if (v < 0 || n >= MAX_BYTES) return -1;
        if (hi < 0) { hi = v; continue; }
        bytes[n++] = (uint8_t)(hi << 4 | v);
        hi = -1;
    }
    return hi < 0 ? n : -1;
}

static void hex(const uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) printf("%02x", p[i]);
}

static int first = 1;
static void key(const char *name) { printf("%s\"%s\": ", first ? "" : ", ", name); first = 0; }
static void u(const char *name, unsigned long v) { key(name); printf("%lu", v); }
static void text(const char *name, dp_text t) { key(name); putchar('"'); hex(t.bytes, t.len); putchar('"'); }
static void counts(const char *name, const dp_counts *c)
{
    uint8_t i;
    key(name);
    putchar('[');
    for (i = 0; i < c->count; i++) printf("%s%u", i ? ", " : "", c->values[i]);
    putchar(']');
}

static void fields(const dp_msg *m)
{
    first = 1;
    switch (m->type) {
    case DP_REFUSED: u("reason", m->u.refused.reason); u("detail", m->u.refused.detail); break;
    case DP_HELLO:
        u("protocol_version", m->u.hello.protocol_version); u("schema_hash", m->u.hello.schema_hash);
        u("session", m->u.hello.session); break;
    case DP_LOAD_DEAL:
        u("job", m->u.load_deal.job); u("board", m->u.load_deal.board);
        key("deal"); putchar('"'); hex(m->u.load_deal.deal, 13); putchar('"');
        u("deal_hash", m->u.load_deal.deal_hash); break;
    case DP_START_DEAL: u("job", m->u.start_deal.job); break;
    case DP_RECOUNT: u("job", m->u.recount.job); break;
    case DP_RESET: u("mode", m->u.reset.mode); break;
    case DP_DISPLAY:
        u("prompt", m->u.display.prompt); u("board", m->u.display.board);
        text("label", m->u.display.label); text("text", m->u.display.text); break;
    case DP_HELLO_ACK: {
        const dp_hello_ack *h = &m->u.hello_ack;
        u("protocol_version", h->protocol_version); u("schema_hash", h->schema_hash);
        u("firmware_major", h->firmware_major); u("firmware_minor", h->firmware_minor);
        u("firmware_patch", h->firmware_patch); u("boot_id", h->boot_id); u("capabilities", h->capabilities);
        u("pockets", h->pockets); u("hoppers", h->hoppers); text("serial", h->serial); break;
    }
    case DP_STATUS: {
        const dp_status *s = &m->u.status;
        u("state", s->state); u("activity", s->activity); u("flags", s->flags); u("job", s->job);
        u("board", s->board); u("deal_hash", s->deal_hash); u("cards_dealt", s->cards_dealt);
        u("fault", s->fault); u("fault_detail", s->fault_detail); u("boot_id", s->boot_id);
        counts("pocket_counts", &s->pocket_counts); break;
    }
    case DP_BOOT: u("reason", m->u.boot.reason); u("boot_id", m->u.boot.boot_id); break;
    case DP_BOARD_CHANGED: u("present", m->u.board_changed.present); break;
    case DP_BOARD_SCANNED:
        u("result", m->u.board_scanned.result); u("turns", m->u.board_scanned.turns);
        text("label", m->u.board_scanned.label); break;
    case DP_DEAL_DONE:
        u("job", m->u.deal_done.job); u("outcome", m->u.deal_done.outcome);
        u("cards_dealt", m->u.deal_done.cards_dealt); counts("pocket_counts", &m->u.deal_done.pocket_counts);
        break;
    case DP_FAULT:
        u("code", m->u.fault.code); u("detail", m->u.fault.detail); u("job", m->u.fault.job);
        u("cards_dealt", m->u.fault.cards_dealt); u("flags", m->u.fault.flags); break;
    case DP_RECOUNT_REPORT: {
        const dp_recount_report *r = &m->u.recount_report;
        uint8_t i, k;
        u("job", r->job);
        key("pockets");
        putchar('[');
        for (i = 0; i < r->count; i++) {
            printf("%s{\"cards\": [", i ? ", " : "");
            for (k = 0; k < r->pockets[i].count; k++) printf("%s%u", k ? ", " : "", r->pockets[i].cards[k]);
            printf("], \"unidentified\": %u}", r->pockets[i].unidentified);
        }
        putchar(']');
        break;
    }
    case DP_PROGRESS: u("job", m->u.progress.job); u("cards_dealt", m->u.progress.cards_dealt); break;
    default: break; /* no fields */
    }
}

static const char *bad_name(dp_rx_result r)
{
    switch (r) {
    case DP_RX_BAD_COBS: return "cobs";
    case DP_RX_BAD_SHORT: return "short";
    case DP_RX_BAD_CRC: return "crc";
    default: return "oversize";
    }
}

static void stream(int n)
{
    dp_decoder d;
    int i;
    dp_decoder_init(&d);
    for (i = 0; i < n; i++) {
        dp_frame f;
        dp_rx_result r = dp_decoder_push(&d, bytes[i], &f);
        if (r == DP_RX_FRAME) {
            printf("{\"frame\": {\"type\": %u, \"seq\": %u, \"payload\": \"", f.type, f.seq);
            hex(f.payload, f.len);
            printf("\"}}\n");
        } else if (r != DP_RX_NOTHING) {
            printf("{\"bad\": \"%s\", \"length\": %u}\n", bad_name(r), f.wire_len);
        }
    }
    printf("end\n");
}

static void message(int n)
{
    dp_decoder d;
    dp_frame f;
    dp_msg m;
    uint8_t body[DP_MAX_BODY], wire[DP_MAX_WIRE];
    int i, got = 0, len, err;
    size_t enc;
    dp_decoder_init(&d);
    for (i = 0; i < n; i++) {
        dp_rx_result r = dp_decoder_push(&d, bytes[i], &f);
        if (r != DP_RX_NOTHING && (r != DP_RX_FRAME || got++ || i != n - 1)) {
            printf("{\"error\": \"not exactly one intact frame\"}\n");
            return;
        }
        if (r == DP_RX_FRAME) break;
    }
    if (!got) { printf("{\"error\": \"no frame\"}\n"); return; }
    err = dp_decode(f.type, f.payload, f.len, &m);
    if (err != DP_OK) { printf("{\"error\": \"decode %d\"}\n", err); return; }
    len = dp_encode_body(&m, f.seq, body, sizeof body);
    if (len < 0) { printf("{\"error\": \"encode %d\"}\n", len); return; }
    enc = dp_cobs_encode(body, (size_t)len, wire, sizeof wire - 1);
    if (enc == 0) { printf("{\"error\": \"cobs\"}\n"); return; }
    wire[enc++] = 0;
    printf("{\"type\": %u, \"seq\": %u, \"fields\": {", f.type, f.seq);
    fields(&m);
    printf("}, \"frame\": \"");
    hex(wire, enc);
    printf("\"}\n");
}

int main(void)
{
    static char line[3 * MAX_BYTES + 64];
    static uint8_t out[2 * MAX_BYTES];
    while (fgets(line, sizeof line, stdin)) {
        char *arg = strchr(line, ' ');
        int n;
        if (arg == NULL) arg = line + strlen(line);
        else *arg++ = '\0';
        n = parse_hex(arg);
        if (n < 0) { printf("bad hex\n"); fflush(stdout); continue; }
        if (!strcmp(line, "crc")) {
            printf("%04x\n", dp_crc16(bytes, (size_t)n));
        } else if (!strcmp(line, "cobs_encode")) {
            size_t k = dp_cobs_encode(bytes, (size_t)n, out, sizeof out);
            if (k == 0) printf("error"); else hex(out, k);
            putchar('\n');
        } else if (!strcmp(line, "cobs_decode")) {
            int k = dp_cobs_decode(bytes, (size_t)n);
            if (k < 0) printf("error"); else hex(bytes, (size_t)k);
            putchar('\n');
        } else if (!strcmp(line, "deal")) {
            uint8_t c;
            printf("{\"hash\": %u, \"seats\": \"", n == 13 ? dp_deal_hash(bytes) : 0);
            for (c = 0; n == 13 && c < 52; c++) putchar("NESW"[dp_deal_seat(bytes, c)]);
            printf("\"}\n");
        } else if (!strcmp(line, "payload")) {
            dp_msg m;
            uint8_t body[DP_MAX_BODY];
            int err = n < 1 ? DP_ERR_MALFORMED : dp_decode(bytes[0], bytes + 1, (size_t)n - 1, &m), len;
            if (err == DP_OK) {
                len = dp_encode_body(&m, 0, body, sizeof body);
                if (len < n + 3 && (bytes[0] == DP_HELLO || bytes[0] == DP_HELLO_ACK)) {
                    if (len < 4 || memcmp(body + 2, bytes + 1, (size_t)len - 4) != 0)
                        err = 1; /* a longer Hello or HelloAck: its own fields come back (5) */
                } else if (len != n + 3 || memcmp(body + 2, bytes + 1, (size_t)n - 1) != 0)
                    err = 1;
            }
            printf("%s\n", err == DP_OK ? "ok" : err == DP_ERR_UNKNOWN_TYPE ? "unknown"
                           : err == DP_ERR_MALFORMED ? "malformed" : "does not encode again");
        } else if (!strcmp(line, "stream")) {
            stream(n);
        } else if (!strcmp(line, "message")) {
            message(n);
        } else {
            printf("unknown command\n");
        }
        fflush(stdout);
    }
    return 0;
}
