/*
 * machine.h - a whole dealing machine on the dealer_proto library, for any platform.
 *
 * Two parts, kept apart because a power cut treats them differently:
 *   machine_world  what lies outside the controller: the rack of boards with the cards in their pockets,
 *                  the board in the machine (and how it lies), the card path, the operator answering the
 *                  display, and the fault plan of the test bench. It survives the controller's restart.
 *   machine        the controller: the library's dp_device and the job of PROTOCOL.md section 6 (state,
 *                  activity, loaded deal). A restart loses it: the machine is IDLE after a power-up.
 *
 * The platform gives a port: byte out, an optional log line, an optional power cut, and the time (every
 * call takes `now`, in milliseconds). Used by pty_device.c (a POSIX pseudo-terminal) and by the firmware
 * for the emulated nRF51 board (firmware/).
 */
#ifndef DEALER_MACHINE_H
#define DEALER_MACHINE_H

#include <stdint.h>

#include "dealer_proto.h"

#ifndef MACHINE_MAX_BOARDS
#define MACHINE_MAX_BOARDS 64
#endif
#define MACHINE_POCKET_CAP 26 /* a pocket holds two hands at most; a card beyond falls out */
#define MACHINE_LABEL_CAP 24  /* a label of up to 22 characters */
#define MACHINE_MAX_FAULTS 8
#define MACHINE_NOWHERE (-1)
#define MACHINE_WORLD_MAGIC 0x57524C44ul

typedef struct {
    char label[MACHINE_LABEL_CAP];
    uint8_t cards[4][MACHINE_POCKET_CAP]; /* the board's own pockets N E S W, card indices in order */
    uint8_t count[4];
    uint8_t times_in; /* how many times the operator has put it in */
} machine_board;

/* What the bench does to the machine: at card `card` (1..52) of board `board`, once. */
enum { MACHINE_JAM, MACHINE_MISFEED, MACHINE_TURN, MACHINE_POWER_CUT, MACHINE_SILENCE };

typedef struct {
    uint8_t kind, fired;
    uint16_t board;
    uint16_t value; /* the card (JAM, MISFEED, POWER_CUT, SILENCE); the quarter turns (TURN) */
    uint16_t ms;    /* SILENCE: how long nothing goes out; TURN: the time the board goes in that it lies turned */
} machine_fault;

typedef struct {
    uint32_t magic; /* MACHINE_WORLD_MAGIC once set up */
    machine_board boards[MACHINE_MAX_BOARDS];
    int16_t nboards, in_machine, last_out, last_in;
    uint8_t turns;       /* how the board in the machine lies (PROTOCOL.md 7.2, BoardScanned.turns) */
    uint8_t path_jammed; /* a jammed card waits in the card path until the operator clears it */
    machine_fault faults[MACHINE_MAX_FAULTS];
    uint8_t nfaults;
    /* the operator: what the display asked, and when they act on it */
    uint8_t prompt;
    uint16_t prompt_board;
    char prompt_label[DP_MAX_LABEL + 1];
    uint32_t operator_at;
    /* settings */
    uint16_t card_ms, action_ms, operator_ms;
    uint32_t power_cuts;    /* how many times the power was cut */
    uint8_t restart_reason; /* why the controller last restarted (BootReason), 0 at first power-up */
    /* the unit's serial (PROTOCOL.md 5): never empty, one unit's, kept over restarts; "C-EXAMPLE-1" unless
     * the program that runs the machine gives each unit its own (pty_device: its process id) */
    char serial[DP_MAX_SERIAL + 1];
} machine_world;

typedef struct {
    dp_write_fn write;
    void *user;
    void (*log)(void *user, const char *what, unsigned long value); /* may be NULL */
    /* The controller restarts (a power cut of the bench's plan, or Reset(REBOOT)), the world's
     * restart_reason saying why; may be NULL: machine.c then restarts the controller itself. */
    void (*restart)(void *user);
} machine_port;

typedef struct {
    dp_device link;
    dp_device_config cfg;
    machine_world *world;
    machine_port port;
    uint8_t state, activity, deal[13], deal_hash, cards_dealt, dealt[4], done_pending, scanned, reboot;
    uint8_t fault, fault_flags;
    uint16_t fault_detail;
    uint16_t job, board_number, recount_job, boot_id;
    uint32_t next_card_at, activity_done_at, last_progress_at, silent_until;
    int progress_sent, silent;
} machine;

/* A world with no boards and the default timings (card 2 ms, scan/recount/eject 5 ms, operator 10 ms). */
void machine_world_init(machine_world *w);

/* Set up the world from options as pty_device takes them (its usage says which); NULL if all were good,
 * else what was wrong. */
const char *machine_configure(machine_world *w, int argc, const char *const *argv);

/* Power-up of the controller: the machine IDLE, the library started with `boot_id` and `reason`. */
void machine_start(machine *m, machine_world *w, const machine_port *port, uint8_t reason, uint16_t boot_id,
                   uint32_t now);

/* Bytes from the line. */
void machine_receive(machine *m, const uint8_t *bytes, uint32_t n, uint32_t now);

/* Every few milliseconds: a pending Reset(REBOOT), the library's poll, cards, activities, the operator. */
void machine_step(machine *m, uint32_t now);

#endif
