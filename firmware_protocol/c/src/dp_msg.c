/* The message codec (PROTOCOL.md 7.1, 7.2): one table of every message's fields, read by one encoder and
 * one decoder. A payload decodes only if it is exactly as long as its fields and every length and card
 * index is within its limit; the encoder holds what it sends to the same rules. */
#include <stddef.h>
#include "dealer_proto.h"

enum { F_U8, F_U16, F_U32, F_DEAL, F_TEXT, F_COUNTS, F_POCKETS };

typedef struct {
    uint8_t kind;
    uint8_t offset; /* of the field in dp_msg.u */
    uint8_t max;    /* text, list and pocket limits */
} field;

typedef struct {
    uint8_t type;
    uint8_t first; /* index of its first field in FIELDS */
    uint8_t count;
} layout;

#define AT(member) ((uint8_t)(offsetof(dp_msg, u.member) - offsetof(dp_msg, u)))
#define U8(m) { F_U8, AT(m), 0 }
#define U16(m) { F_U16, AT(m), 0 }

static const field FIELDS[] = {
    /* 0 Refused */ U8(refused.reason), U8(refused.detail),
    /* 2 Hello */ U8(hello.protocol_version), { F_U32, AT(hello.schema_hash), 0 }, U16(hello.session),
    /* 5 LoadDeal */ U16(load_deal.job), U16(load_deal.board), { F_DEAL, AT(load_deal.deal), 0 },
    U8(load_deal.deal_hash),
    /* 9 StartDeal */ U16(start_deal.job),
    /* 10 Recount */ U16(recount.job),
    /* 11 Reset */ U8(reset.mode),
    /* 12 Display */ U8(display.prompt), U16(display.board), { F_TEXT, AT(display.label), DP_MAX_LABEL },
    { F_TEXT, AT(display.text), DP_MAX_TEXT },
    /* 16 HelloAck */ U8(hello_ack.protocol_version), { F_U32, AT(hello_ack.schema_hash), 0 },
    U8(hello_ack.firmware_major), U8(hello_ack.firmware_minor), U8(hello_ack.firmware_patch),
    U16(hello_ack.boot_id), U16(hello_ack.capabilities), U8(hello_ack.pockets), U8(hello_ack.hoppers),
    { F_TEXT, AT(hello_ack.serial), DP_MAX_SERIAL },
    /* 26 Status */ U8(status.state), U8(status.activity), U8(status.flags), U16(status.job),
    U16(status.board), U8(status.deal_hash), U8(status.cards_dealt), U8(status.fault),
    U16(status.fault_detail), U16(status.boot_id), { F_COUNTS, AT(status.pocket_counts), DP_MAX_POCKETS },
    /* 37 Boot */ U8(boot.reason), U16(boot.boot_id),
    /* 39 BoardChanged */ U8(board_changed.present),
    /* 40 BoardScanned */ U8(board_scanned.result), U8(board_scanned.turns),
    { F_TEXT, AT(board_scanned.label), DP_MAX_LABEL },
    /* 43 DealDone */ U16(deal_done.job), U8(deal_done.outcome), U8(deal_done.cards_dealt),
    { F_COUNTS, AT(deal_done.pocket_counts), DP_MAX_POCKETS },
    /* 47 Fault */ U8(fault.code), U16(fault.detail), U16(fault.job), U8(fault.cards_dealt), U8(fault.flags),
    /* 52 RecountReport */ U16(recount_report.job), { F_POCKETS, AT(recount_report.count), DP_MAX_POCKETS },
    /* 54 Progress */ U16(progress.job), U8(progress.cards_dealt)
};

static const layout LAYOUTS[] = {
    { DP_ACK, 0, 0 }, { DP_NAK, 0, 0 }, { DP_REFUSED, 0, 2 }, { DP_EVENT_ACK, 0, 0 },
    { DP_HELLO, 2, 3 }, { DP_GET_STATUS, 0, 0 }, { DP_SCAN_BOARD, 0, 0 }, { DP_LOAD_DEAL, 5, 4 },
    { DP_START_DEAL, 9, 1 }, { DP_ABORT, 0, 0 }, { DP_RECOUNT, 10, 1 }, { DP_EJECT, 0, 0 },
    { DP_RESET, 11, 1 }, { DP_DISPLAY, 12, 4 }, { DP_HELLO_ACK, 16, 10 }, { DP_STATUS, 26, 11 },
    { DP_BOOT, 37, 2 }, { DP_BOARD_CHANGED, 39, 1 }, { DP_BOARD_SCANNED, 40, 3 }, { DP_DEAL_DONE, 43, 4 },
    { DP_FAULT, 47, 5 }, { DP_RECOUNT_REPORT, 52, 2 }, { DP_PROGRESS, 54, 2 }
};

/* Every field's offset must fit the table's byte (a compile error otherwise). */
typedef char dp_offsets_fit[(sizeof(((dp_msg *)0)->u) <= 255) ? 1 : -1];

static const layout *find(uint8_t type)
{
    size_t i;
    for (i = 0; i < sizeof LAYOUTS / sizeof LAYOUTS[0]; i++)
        if (LAYOUTS[i].type == type)
            return &LAYOUTS[i];
    return NULL;
}

dp_kind dp_kind_of(uint8_t type)
{
    if (type == DP_NAK)
        return DP_KIND_NAK;
    if (type == DP_ACK || type == DP_REFUSED || type == DP_EVENT_ACK || (type >= 0x40 && type <= 0x5F))
        return DP_KIND_REPLY;
    if (type >= 0x10 && type <= 0x3F)
        return DP_KIND_COMMAND;
    if (type >= 0x60 && type <= 0x6F)
        return DP_KIND_EVENT;
    if (type >= 0x70 && type <= 0x7F)
        return DP_KIND_NOTICE;
    return DP_KIND_RESERVED;
}

/* --- decoding ------------------------------------------------------------------------------------ */

typedef struct {
    const uint8_t *p;
    size_t n, at;
    int bad;
} reader;

static uint8_t get(reader *r)
{
    if (r->at >= r->n) {
        r->bad = 1;
        return 0;
    }
    return r->p[r->at++];
}

static uint16_t get16(reader *r)
{
    uint16_t hi = get(r);
    return (uint16_t)((hi << 8) | get(r));
}

/* `count` bytes in place; their start, or NULL if the payload is too short. */
static const uint8_t *take(reader *r, size_t count)
{
    const uint8_t *at = r->p + r->at;
    if (r->n - r->at < count) {
        r->bad = 1;
        return NULL;
    }
    r->at += count;
    return at;
}

static void decode_pockets(reader *r, dp_recount_report *rep, uint8_t max)
{
    uint8_t i, k;
    rep->count = get(r);
    if (rep->count > max) {
        r->bad = 1;
        return;
    }
    for (i = 0; i < rep->count && !r->bad; i++) {
        dp_pocket *p = &rep->pockets[i];
        p->count = get(r);
        p->cards = take(r, p->count);
        if (p->cards == NULL)
            return;
        for (k = 0; k < p->count; k++)
            if (p->cards[k] > DP_MAX_CARD)
                r->bad = 1;
        p->unidentified = get(r);
    }
}

int dp_decode(uint8_t type, const uint8_t *payload, size_t n, dp_msg *out)
{
    const layout *lay = find(type);
    reader r;
    uint8_t i;
    if (lay == NULL)
        return DP_ERR_UNKNOWN_TYPE;
    r.p = payload;
    r.n = n;
    r.at = 0;
    r.bad = 0;
    out->type = type;
    for (i = 0; i < lay->count && !r.bad; i++) {
        const field *f = &FIELDS[lay->first + i];
        unsigned char *at = (unsigned char *)&out->u + f->offset;
        switch (f->kind) {
        case F_U8:
            *at = get(&r);
            break;
        case F_U16:
            *(uint16_t *)(void *)at = get16(&r);
            break;
        case F_U32: {
            uint32_t hi = get16(&r);
            *(uint32_t *)(void *)at = (hi << 16) | get16(&r);
            break;
        }
        case F_DEAL: {
            const uint8_t *deal = take(&r, 13);
            uint8_t k;
            for (k = 0; deal != NULL && k < 13; k++)
                at[k] = deal[k];
            break;
        }
        case F_TEXT: {
            dp_text *t = (dp_text *)(void *)at;
            t->len = get(&r);
            if (t->len > f->max)
                r.bad = 1;
            else
                t->bytes = take(&r, t->len);
            break;
        }
        case F_COUNTS: {
            dp_counts *c = (dp_counts *)(void *)at;
            uint8_t k;
            c->count = get(&r);
            if (c->count > f->max)
                r.bad = 1;
            for (k = 0; k < c->count && !r.bad; k++)
                c->values[k] = get(&r);
            break;
        }
        default: /* F_POCKETS */
            decode_pockets(&r, &out->u.recount_report, f->max);
            break;
        }
    }
    /* Hello and HelloAck may be longer than this version's layout: a later version adds fields at
       the end, which are ignored (PROTOCOL.md section 5). Every other payload is exact. */
    if (r.at != n && type != DP_HELLO && type != DP_HELLO_ACK)
        r.bad = 1;
    return r.bad ? DP_ERR_MALFORMED : DP_OK;
}

/* --- encoding ------------------------------------------------------------------------------------ */

typedef struct {
    uint8_t *p;
    size_t cap, at;
    int err;
} writer;

static void put(writer *w, uint8_t byte)
{
    if (w->at >= w->cap) {
        if (w->err == DP_OK)
            w->err = DP_ERR_SPACE;
        return;
    }
    w->p[w->at++] = byte;
}

static void put16(writer *w, uint16_t v)
{
    put(w, (uint8_t)(v >> 8));
    put(w, (uint8_t)v);
}

static void put_bytes(writer *w, const uint8_t *bytes, uint8_t count)
{
    uint8_t k;
    if (count > 0 && bytes == NULL)
        w->err = DP_ERR_MALFORMED;
    for (k = 0; k < count && w->err == DP_OK; k++)
        put(w, bytes[k]);
}

static void encode_pockets(writer *w, const dp_recount_report *rep, uint8_t max)
{
    uint8_t i, k;
    if (rep->count > max) {
        w->err = DP_ERR_MALFORMED;
        return;
    }
    put(w, rep->count);
    for (i = 0; i < rep->count && w->err == DP_OK; i++) {
        const dp_pocket *p = &rep->pockets[i];
        for (k = 0; p->cards != NULL && k < p->count; k++)
            if (p->cards[k] > DP_MAX_CARD)
                w->err = DP_ERR_MALFORMED;
        put(w, p->count);
        put_bytes(w, p->cards, p->count);
        put(w, p->unidentified);
    }
}

int dp_encode_body(const dp_msg *msg, uint8_t seq, uint8_t *body, size_t cap)
{
    const layout *lay = find(msg->type);
    writer w;
    uint8_t i;
    uint16_t crc;
    if (lay == NULL)
        return DP_ERR_UNKNOWN_TYPE;
    w.p = body;
    w.cap = cap < DP_MAX_BODY ? cap : DP_MAX_BODY;
    w.at = 0;
    w.err = DP_OK;
    put(&w, msg->type);
    put(&w, seq);
    for (i = 0; i < lay->count && w.err == DP_OK; i++) {
        const field *f = &FIELDS[lay->first + i];
        const unsigned char *at = (const unsigned char *)&msg->u + f->offset;
        switch (f->kind) {
        case F_U8:
            put(&w, *at);
            break;
        case F_U16:
            put16(&w, *(const uint16_t *)(const void *)at);
            break;
        case F_U32: {
            uint32_t v = *(const uint32_t *)(const void *)at;
            put16(&w, (uint16_t)(v >> 16));
            put16(&w, (uint16_t)v);
            break;
        }
        case F_DEAL:
            put_bytes(&w, at, 13);
            break;
        case F_TEXT: {
            const dp_text *t = (const dp_text *)(const void *)at;
            if (t->len > f->max)
                w.err = DP_ERR_MALFORMED;
            put(&w, t->len);
            put_bytes(&w, t->bytes, t->len);
            break;
        }
        case F_COUNTS: {
            const dp_counts *c = (const dp_counts *)(const void *)at;
            if (c->count > f->max)
                w.err = DP_ERR_MALFORMED;
            put(&w, c->count);
            put_bytes(&w, c->values, c->count);
            break;
        }
        default: /* F_POCKETS */
            encode_pockets(&w, &msg->u.recount_report, f->max);
            break;
        }
    }
    if (w.err != DP_OK)
        return w.err;
    if (w.at + 2 > w.cap)
        return DP_ERR_SPACE;
    crc = dp_crc16(body, w.at);
    body[w.at++] = (uint8_t)(crc >> 8);
    body[w.at++] = (uint8_t)crc;
    return (int)w.at;
}
