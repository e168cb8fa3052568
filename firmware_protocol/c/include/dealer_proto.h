/*
 * dealer_proto.h - the device side of the dealing-machine wire protocol, version 1, in portable C99.
 *
 * Written from firmware_protocol/PROTOCOL.md (section numbers below refer to it). No dynamic memory, no
 * stdio, no global state: everything lives in a `dp_device` you allocate (static or on the stack).
 *
 * What you write (README.md, "Porting"):
 *   1. byte out: a `dp_write_fn` that sends bytes on the serial line (a frame is written in one go);
 *   2. byte in:  call `dp_device_receive` with the bytes that arrived;
 *   3. millis:   pass a millisecond clock (any origin, wrapping at 2^32) to every call;
 *   4. your machine: a `dp_command_fn` that carries out a command and fills in its reply; and calls of
 *      `dp_device_send_event` / `dp_device_send_notice` when something happens.
 *
 * A minimal main loop:
 *
 *     static dp_device dev;
 *     dp_device_config cfg = { uart_write, on_command, &machine, DP_RTO_MS(115200) };
 *     dp_device_start(&dev, &cfg, DP_BOOT_POWER_ON, boot_id_from_eeprom(), millis());
 *     for (;;) {
 *         uint8_t buf[32]; size_t n = uart_read(buf, sizeof buf);
 *         dp_device_receive(&dev, buf, n, millis());   // commands reach on_command from here
 *         dp_device_poll(&dev, millis());               // retransmits events, sends queued ones
 *         machine_step(&machine, &dev, millis());       // your sensors, motors, events
 *     }
 *
 * Call every function from one context (e.g. the main loop; an interrupt handler only fills a buffer).
 */
#ifndef DEALER_PROTO_H
#define DEALER_PROTO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- sizes and settings ----------------------------------------------------------------------- */

#define DP_PROTOCOL_VERSION 2u
#define DP_SCHEMA_HASH 0x94585374ul /* section 5: the hash of the schema this code implements */

#define DP_MAX_BODY 254    /* type + seq + payload + CRC (2.1) */
#define DP_MAX_PAYLOAD 250
#define DP_MAX_ENCODED 255 /* a frame on the wire without its delimiter */
#define DP_MAX_WIRE 256    /* with it */

#define DP_MAX_POCKETS 8   /* u8list[<=8], pockets[<=8] */
#define DP_MAX_LABEL 64    /* BoardScanned.label, Display.label */
#define DP_MAX_TEXT 80     /* Display.text */
#define DP_MAX_SERIAL 32   /* HelloAck.serial */
#define DP_MAX_CARD 51     /* card indices 0..51 (7.1) */

/* Retransmission timeout for a baud rate (4.7): 50 ms + 3 frames of 256 bytes, 10 bits a byte. */
#define DP_RTO_MS(baud) ((uint16_t)(50u + (3ul * 256u * 10u * 1000u + (baud) - 1u) / (baud)))

/* Compile-time sizes of a dp_device. Change them only in the compiler flags, for every file. */
#ifndef DP_EVENT_QUEUE_BYTES
#define DP_EVENT_QUEUE_BYTES 128 /* events waiting behind the outstanding one: 5 bytes + payload each */
#endif
#ifndef DP_MAX_EVENT_BODY
#define DP_MAX_EVENT_BODY 128 /* the longest event body you send, at most DP_MAX_BODY (254): a RecountReport
                                 of 4 pockets holding c card readings is 15 + c (52 cards: 67; each read
                                 twice: 119) */
#endif
#define DP_MAX_REPLY_BODY (4 + 15 + DP_MAX_SERIAL) /* the largest reply: HelloAck with a 32-byte serial */

/* --- results ---------------------------------------------------------------------------------- */

enum {
    DP_OK = 0,
    DP_ERR_MALFORMED = -1, /* a payload or field that breaks its layout (7.1), or a broken frame */
    DP_ERR_UNKNOWN_TYPE = -2,
    DP_ERR_SPACE = -3,     /* the output buffer, or the event queue, has no room: try again later */
    DP_ERR_KIND = -4,      /* the wrong kind of message for the call (e.g. a command as an event) */
    DP_ERR_TOO_LONG = -5   /* an event longer than DP_MAX_EVENT_BODY: it can never be sent in this build */
};

/* --- type codes (sections 3 and 7.2) ------------------------------------------------------------ */

enum {
    DP_ACK = 0x01, DP_NAK = 0x02, DP_REFUSED = 0x03, DP_EVENT_ACK = 0x04,
    DP_HELLO = 0x10, DP_GET_STATUS = 0x11, DP_SCAN_BOARD = 0x12, DP_LOAD_DEAL = 0x13, DP_START_DEAL = 0x14,
    DP_ABORT = 0x15, DP_RECOUNT = 0x16, DP_EJECT = 0x17, DP_RESET = 0x18, DP_DISPLAY = 0x19,
    DP_HELLO_ACK = 0x40, DP_STATUS = 0x41,
    DP_BOOT = 0x60, DP_BOARD_CHANGED = 0x61, DP_BOARD_SCANNED = 0x62, DP_DEAL_DONE = 0x63, DP_FAULT = 0x64,
    DP_RECOUNT_REPORT = 0x65,
    DP_PROGRESS = 0x70
};

/* Message kinds, from the type code's range alone (section 3). */
typedef enum {
    DP_KIND_RESERVED, DP_KIND_REPLY, DP_KIND_NAK, DP_KIND_COMMAND, DP_KIND_EVENT, DP_KIND_NOTICE
} dp_kind;

/* --- enumerated values (section 7.4). Unknown values are kept as numbers, never rejected. -------- */

enum { DP_STATE_IDLE, DP_STATE_LOADED, DP_STATE_DEALING, DP_STATE_DONE, DP_STATE_FAULT };
enum { DP_ACTIVITY_NONE, DP_ACTIVITY_SCANNING, DP_ACTIVITY_RECOUNTING, DP_ACTIVITY_EJECTING };
enum { DP_FLAG_BOARD_PRESENT = 1, DP_FLAG_DOOR_OPEN = 2, DP_FLAG_HOPPER_EMPTY = 4, DP_FLAG_FAULT_RESUMABLE = 8 };
enum {
    DP_CAP_BARCODE_READER = 1, DP_CAP_CARD_RECOUNT = 2, DP_CAP_BOARD_SENSOR = 4, DP_CAP_DOOR_SENSOR = 8,
    DP_CAP_EJECT = 16, DP_CAP_RESUME_AFTER_FAULT = 32, DP_CAP_KEEPS_JOB_OVER_POWER_LOSS = 64, DP_CAP_DISPLAY = 128,
    DP_CAP_SIMULATED = 256
};
enum {
    DP_REFUSE_HANDSHAKE_REQUIRED = 1, DP_REFUSE_WRONG_STATE, DP_REFUSE_BUSY, DP_REFUSE_NO_BOARD,
    DP_REFUSE_BAD_DEAL, DP_REFUSE_BAD_HASH, DP_REFUSE_WRONG_JOB, DP_REFUSE_FAULT_PRESENT,
    DP_REFUSE_UNSUPPORTED, DP_REFUSE_NOT_SCANNED
};
enum {
    DP_FAULT_NONE, DP_FAULT_JAM, DP_FAULT_EMPTY_HOPPER, DP_FAULT_MISFEED, DP_FAULT_UNREADABLE_CARD,
    DP_FAULT_DUPLICATE_CARD, DP_FAULT_FOREIGN_CARD, DP_FAULT_BOARD_REMOVED, DP_FAULT_DOOR_OPEN,
    DP_FAULT_POWER_LOSS, DP_FAULT_HARDWARE, DP_FAULT_INTERNAL
};
enum { DP_FAULT_FLAG_RESUMABLE = 1 };
enum { DP_SCAN_OK, DP_SCAN_NO_READ, DP_SCAN_NO_BOARD };
enum { DP_OUTCOME_COMPLETE, DP_OUTCOME_ABORTED };
enum { DP_BOOT_UNKNOWN, DP_BOOT_POWER_ON, DP_BOOT_RESET_COMMAND, DP_BOOT_WATCHDOG, DP_BOOT_BROWN_OUT };
enum {
    DP_PROMPT_NONE, DP_PROMPT_INSERT_BOARD, DP_PROMPT_REMOVE_BOARD, DP_PROMPT_EMPTY_BOARD,
    DP_PROMPT_CLEAR_PATH, DP_PROMPT_FIX_PACK
};
enum { DP_RESET_CLEAR, DP_RESET_REBOOT };

/* --- messages (section 7.2) --------------------------------------------------------------------- */

/* text[<=N]: `len` bytes at `bytes`, not terminated. In a decoded message `bytes` points into the
 * receive buffer and is valid only during the call that hands you the message. */
typedef struct { const uint8_t *bytes; uint8_t len; } dp_text;

/* u8list[<=8] */
typedef struct { uint8_t count; uint8_t values[DP_MAX_POCKETS]; } dp_counts;

/* One pocket of a RecountReport: `count` card indices (0..51) in the order read, and the cards found
 * but not identified. */
typedef struct { const uint8_t *cards; uint8_t count; uint8_t unidentified; } dp_pocket;

typedef struct { uint8_t reason, detail; } dp_refused;
typedef struct { uint8_t protocol_version; uint32_t schema_hash; uint16_t session; } dp_hello;
/* deal: 2 bits a card, card c in byte c/4, bits 7-2(c%4) and 6-2(c%4) (7.3); deal_hash: see dp_deal_hash */
typedef struct { uint16_t job, board; uint8_t deal[13]; uint8_t deal_hash; } dp_load_deal;
typedef struct { uint16_t job; } dp_job; /* StartDeal, Recount */
typedef struct { uint8_t mode; } dp_reset;
typedef struct { uint8_t prompt; uint16_t board; dp_text label, text; } dp_display;
typedef struct {
    uint8_t protocol_version; uint32_t schema_hash;
    uint8_t firmware_major, firmware_minor, firmware_patch;
    uint16_t boot_id, capabilities; uint8_t pockets, hoppers; dp_text serial;
} dp_hello_ack;
typedef struct {
    uint8_t state, activity, flags; uint16_t job, board; uint8_t deal_hash, cards_dealt, fault;
    uint16_t fault_detail, boot_id; dp_counts pocket_counts;
} dp_status;
typedef struct { uint8_t reason; uint16_t boot_id; } dp_boot;
typedef struct { uint8_t present; } dp_board_changed;
typedef struct { uint8_t result, turns; dp_text label; } dp_board_scanned;
typedef struct { uint16_t job; uint8_t outcome, cards_dealt; dp_counts pocket_counts; } dp_deal_done;
typedef struct { uint8_t code; uint16_t detail, job; uint8_t cards_dealt, flags; } dp_fault;
typedef struct { uint16_t job; uint8_t count; dp_pocket pockets[DP_MAX_POCKETS]; } dp_recount_report;
typedef struct { uint16_t job; uint8_t cards_dealt; } dp_progress;

/* A message: its type code and the fields of that type (Ack, Nak, EventAck, GetStatus, ScanBoard,
 * Abort and Eject have none). */
typedef struct {
    uint8_t type;
    union {
        dp_refused refused;
        dp_hello hello;
        dp_load_deal load_deal;
        dp_job start_deal, recount;
        dp_reset reset;
        dp_display display;
        dp_hello_ack hello_ack;
        dp_status status;
        dp_boot boot;
        dp_board_changed board_changed;
        dp_board_scanned board_scanned;
        dp_deal_done deal_done;
        dp_fault fault;
        dp_recount_report recount_report;
        dp_progress progress;
    } u;
} dp_msg;

/* --- the pieces (usable on their own) ------------------------------------------------------------ */

/* CRC-16/CCITT-FALSE (2.3): poly 0x1021, init 0xFFFF, no reflection, no final XOR. */
uint16_t dp_crc16(const uint8_t *data, size_t n);
/* LoadDeal.deal_hash: the low byte of the CRC-16 of the 13 deal bytes. */
uint8_t dp_deal_hash(const uint8_t deal[13]);
/* The seat (0..3 = N E S W) of card c (0..51) in a packed deal. */
uint8_t dp_deal_seat(const uint8_t deal[13], uint8_t card);

typedef void (*dp_write_fn)(void *user, const uint8_t *bytes, size_t n);

/* COBS (2.2), without the delimiter. dp_cobs_write: the encoding of `n` bytes, run by run, to `write`.
 * dp_cobs_encode: into `out`; the encoded length, 0 if `cap` is too small. dp_cobs_decode: in place; the
 * decoded length, or -1 if the encoding is broken. */
void dp_cobs_write(const uint8_t *in, size_t n, dp_write_fn write, void *user);
size_t dp_cobs_encode(const uint8_t *in, size_t n, uint8_t *out, size_t cap);
int dp_cobs_decode(uint8_t *buf, size_t n);

dp_kind dp_kind_of(uint8_t type);

/* Payload codec (7.1, 7.2). dp_decode: DP_OK, DP_ERR_UNKNOWN_TYPE or DP_ERR_MALFORMED; text and pocket
 * fields point into `payload`. dp_encode_body: the body (type, seq, payload, CRC) into `body`; its
 * length, or DP_ERR_UNKNOWN_TYPE, DP_ERR_MALFORMED (a field out of its limits), DP_ERR_SPACE. */
int dp_decode(uint8_t type, const uint8_t *payload, size_t n, dp_msg *out);
int dp_encode_body(const dp_msg *msg, uint8_t seq, uint8_t *body, size_t cap);

/* Streaming frame decoder (2.4): push bytes one at a time. */
typedef struct {
    uint8_t buf[DP_MAX_ENCODED];
    uint8_t n;        /* bytes collected */
    uint8_t skipping; /* an oversize frame was reported: ignore bytes up to the next 0x00 */
} dp_decoder;

typedef enum {
    DP_RX_NOTHING,   /* byte taken, no frame ended */
    DP_RX_FRAME,     /* an intact frame (COBS and CRC right): see dp_frame */
    DP_RX_BAD_COBS,  /* damaged: broken COBS */
    DP_RX_BAD_SHORT, /* damaged: body shorter than 4 bytes */
    DP_RX_BAD_CRC,   /* damaged: CRC wrong */
    DP_RX_OVERSIZE   /* damaged: more than 255 bytes without a delimiter (reported once, at the 256th) */
} dp_rx_result;

typedef struct {
    uint8_t type, seq;
    const uint8_t *payload; /* into the decoder's buffer: valid until the next byte is pushed */
    uint8_t len;            /* payload bytes */
    uint16_t crc;
    uint16_t wire_len;      /* encoded bytes, delimiter not counted (256 for an oversize chunk) */
} dp_frame;

void dp_decoder_init(dp_decoder *d);
dp_rx_result dp_decoder_push(dp_decoder *d, uint8_t byte, dp_frame *frame);

/* --- the device end of the reliable link (section 4) -------------------------------------------- */

/* A new command (never a repeat: the library answers those from its cache, 4.3). `reply` is filled in
 * beforehand: Ack, or for Hello a HelloAck (protocol version and schema hash set, the rest zero), for
 * GetStatus a Status of zeros. Change it to Refused (reason, detail) or fill in the response; a reply of
 * any other type is sent as Refused(UNSUPPORTED, command type). The reply is encoded after you return:
 * text you point it at (the HelloAck's serial) must outlive the call (static, or in your machine's state).
 * Return at once (T_reply, 4.7): start physical actions and report their results later as events; events
 * you send from here go out after the reply. Commands before the first Hello never get here: the library
 * refuses them (HANDSHAKE_REQUIRED), and a Reset with a mode other than CLEAR or REBOOT (UNSUPPORTED, section
 * 6). Do not call dp_device_start from here (see Reset(REBOOT), README). */
typedef void (*dp_command_fn)(void *user, const dp_msg *command, dp_msg *reply, uint32_t now_ms);

typedef struct {
    dp_write_fn write;
    dp_command_fn on_command;
    void *user;       /* passed back to both */
    uint16_t rto_ms;  /* DP_RTO_MS(baud) */
} dp_device_config;

typedef struct {
    uint32_t frames;       /* intact frames received */
    uint32_t bad_frames;   /* damaged ones dropped (2.4), invalid messages included */
    uint32_t duplicates;   /* repeated commands answered from the cache */
    uint32_t stale;        /* late copies of older requests, and acks for no outstanding event, dropped */
    uint32_t ignored;      /* frames a device never receives (its own echo) */
    uint32_t retransmits;  /* events sent again */
    uint32_t naks_sent;
    uint32_t bytes_sent;
} dp_counters;

/* Opaque in use: read `counters` if you like; change nothing. */
typedef struct {
    dp_device_config cfg;
    dp_decoder rx;
    /* the last command accepted (L), the reply sent to it, the last Hello accepted (S): 4.3 */
    uint8_t have_last, last_type, last_seq, last_len;
    uint16_t last_crc;
    uint8_t have_hello, hello_seq, hello_len, handshaken;
    uint16_t hello_crc;
    uint8_t reply[DP_MAX_REPLY_BODY];
    uint8_t reply_len;
    /* the next event: its body, whether it is out (then outstanding until its EventAck), the deadline of
     * its next retransmission */
    uint8_t event[DP_MAX_EVENT_BODY];
    uint8_t event_len, event_sent, next_seq, retries, nak_retransmitted, in_handler, nak_sent;
    uint32_t deadline, last_nak;
    /* events waiting behind it, oldest first: body length, body (seq and CRC set when it goes out) */
    uint16_t queued;
    uint8_t queue[DP_EVENT_QUEUE_BYTES];
    dp_counters counters;
} dp_device;

/* Power-up (or restart): forget everything, write a 0x00 to cut off line noise, and send Boot (the
 * first event, a sync request: 4.4). `boot_id` MUST differ from the previous boot's. */
void dp_device_start(dp_device *dev, const dp_device_config *cfg, uint8_t reason, uint16_t boot_id,
                     uint32_t now_ms);

/* Bytes from the line. Commands are answered (through on_command) before this returns. */
void dp_device_receive(dp_device *dev, const uint8_t *bytes, size_t n, uint32_t now_ms);

/* Call often (every few ms, or at dp_device_next_deadline): retransmits the outstanding event when its
 * time comes (backing off from RTO up to 2 s, never giving up) and sends the next queued one. */
void dp_device_poll(dp_device *dev, uint32_t now_ms);

/* Queue an event (types 0x60..0x6F but Boot). DP_OK; DP_ERR_SPACE: the queue is full, nothing was queued,
 * try again later (once the outstanding event is acknowledged there is always room); DP_ERR_KIND;
 * DP_ERR_TOO_LONG; DP_ERR_MALFORMED (a field beyond its limit). Events go out one at a time, in order. */
int dp_device_send_event(dp_device *dev, const dp_msg *event, uint32_t now_ms);

/* Write a notice (Progress) at once; nothing answers it and it is never sent again. */
int dp_device_send_notice(dp_device *dev, const dp_msg *notice);

/* 1 while no event is outstanding or queued. */
int dp_device_idle(const dp_device *dev);

/* 1 and the time of the next retransmission in *when_ms if an event is outstanding, else 0. */
int dp_device_next_deadline(const dp_device *dev, uint32_t *when_ms);

#ifdef __cplusplus
}
#endif

#endif /* DEALER_PROTO_H */
