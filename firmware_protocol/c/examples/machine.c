/*
 * machine.c - the dealing machine of machine.h: PROTOCOL.md section 6's state table, the simulated rack,
 * card path, reader and operator, and the bench's faults. No stdio, no allocation: it runs on a POSIX
 * pseudo-terminal (pty_device.c) and on the emulated nRF51 board (firmware/) alike.
 */
#include "machine.h"

#include <string.h>

static int reached(uint32_t now, uint32_t when)
{
    return (int32_t)(now - when) >= 0;
}

static void say(const machine *m, const char *what, unsigned long a)
{
    if (m->port.log != NULL)
        m->port.log(m->port.user, what, a);
}

static size_t text_len(const char *s)
{
    size_t n = 0;
    while (s[n] != '\0')
        n++;
    return n;
}

/* --- numbers and labels (section 12) -------------------------------------------------------------- */

/* A decimal number of at most five digits up to `max`, ending at `stop`; the character after it, or NULL. */
static const char *read_number(const char *s, char stop, unsigned long max, unsigned long *out)
{
    unsigned long v = 0;
    int digits = 0;
    while (*s >= '0' && *s <= '9' && digits < 6) {
        v = v * 10u + (unsigned long)(*s++ - '0');
        digits++;
    }
    if (digits == 0 || digits > 5 || *s != stop || v > max)
        return NULL;
    *out = v;
    return stop ? s + 1 : s;
}

static size_t put_number(char *out, unsigned long v)
{
    char digits[12];
    size_t n = 0, i;
    do {
        digits[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v > 0);
    for (i = 0; i < n; i++)
        out[i] = digits[n - 1 - i];
    return n;
}

static int label_board_number(const char *label)
{
    unsigned long v = 0;
    const char *colon = strchr(label, ':');
    if (colon == NULL)
        return 0;
    for (colon++; *colon >= '0' && *colon <= '9' && v < 100000ul; colon++)
        v = v * 10u + (unsigned long)(*colon - '0');
    return (int)v;
}

static int make_label(char *out, size_t cap, const char *set, unsigned number)
{
    static const char values[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ:";
    static const char checks[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ*";
    static const char vul[] = "0NEBNEB0EB0NB0NE";
    unsigned long sum = 0;
    size_t i, n = text_len(set);
    if (n == 0 || n > 12 || n + 1 + 5 + 4 + 2 > cap)
        return -1;
    memcpy(out, set, n);
    out[n++] = ':';
    n += put_number(out + n, number);
    out[n++] = ':';
    out[n++] = "NESW"[(number - 1) % 4];
    out[n++] = vul[(number - 1) % 16];
    out[n++] = ':';
    for (i = 0; i < n; i++) {
        const char *at = strchr(values, out[i]);
        if (at == NULL || out[i] == '\0')
            return -1;
        sum += (i + 1) * (unsigned long)(at - values);
    }
    out[n] = checks[sum % 37];
    out[n + 1] = '\0';
    return 0;
}

static int find_board(const machine_world *w, const char *label, int number)
{
    int i;
    for (i = 0; i < w->nboards; i++)
        if (label[0] ? strcmp(w->boards[i].label, label) == 0 : label_board_number(w->boards[i].label) == number)
            return i;
    return MACHINE_NOWHERE;
}

/* --- the world's set-up ------------------------------------------------------------------------------ */

void machine_world_init(machine_world *w)
{
    memset(w, 0, sizeof *w);
    w->in_machine = w->last_out = w->last_in = MACHINE_NOWHERE;
    w->card_ms = 2;
    w->action_ms = 5;
    w->operator_ms = 10;
    memcpy(w->serial, "C-EXAMPLE-1", sizeof "C-EXAMPLE-1");
    w->magic = MACHINE_WORLD_MAGIC;
}

static int add_board(machine_world *w, const char *label)
{
    size_t n = text_len(label);
    if (w->nboards >= MACHINE_MAX_BOARDS || n == 0 || n > MACHINE_LABEL_CAP - 2)
        return -1;
    memcpy(w->boards[w->nboards++].label, label, n + 1);
    return 0;
}

/* "B:C" (or "B:C:MS" for a silence) into a fault of the plan. */
static const char *add_fault(machine_world *w, uint8_t kind, const char *value)
{
    unsigned long board, card, ms = 0;
    const char *rest = read_number(value, ':', 9999, &board);
    machine_fault *f;
    if (rest != NULL && kind == MACHINE_SILENCE)
        rest = (rest = read_number(rest, ':', 52, &card)) != NULL ? read_number(rest, '\0', 60000, &ms) : NULL;
    else if (rest != NULL && kind == MACHINE_TURN && strchr(rest, ':') != NULL) /* BOARD:K:N */
        rest = (rest = read_number(rest, ':', 3, &card)) != NULL ? read_number(rest, '\0', 200, &ms) : NULL;
    else if (rest != NULL)
        rest = read_number(rest, '\0', kind == MACHINE_TURN ? 3 : 52, &card);
    if (kind == MACHINE_TURN && ms == 0)
        ms = 1; /* the first time it goes in */
    if (rest == NULL || board == 0 || card == 0)
        return kind == MACHINE_TURN ? "--turn wants BOARD:K or BOARD:K:N, K 1-3, N 1-200"
                                    : "a fault wants BOARD:CARD, CARD 1-52";
    if (w->nfaults >= MACHINE_MAX_FAULTS)
        return "too many faults";
    f = &w->faults[w->nfaults++];
    f->kind = kind;
    f->fired = 0;
    f->board = (uint16_t)board;
    f->value = (uint16_t)card;
    f->ms = (uint16_t)ms;
    return NULL;
}

const char *machine_configure(machine_world *w, int argc, const char *const *argv)
{
    static const char *const fault_options[] = { "--jam", "--misfeed", "--turn", "--power-cut", "--silence" };
    const char *set = NULL, *range = NULL, *why;
    int i, k;
    for (i = 0; i < argc; i += 2) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long v;
        if (val == NULL)
            return "an option without its value";
        for (k = 0; k < 5; k++)
            if (strcmp(opt, fault_options[k]) == 0)
                break;
        if (k < 5) {
            if ((why = add_fault(w, (uint8_t)k, val)) != NULL)
                return why;
        } else if (strcmp(opt, "--label") == 0) {
            if (add_board(w, val) != 0)
                return "too many boards, or a label that is empty or longer than 22 characters";
        } else if (strcmp(opt, "--set") == 0) {
            set = val;
        } else if (strcmp(opt, "--boards") == 0) {
            range = val;
        } else if (strcmp(opt, "--card-ms") == 0 || strcmp(opt, "--action-ms") == 0
                   || strcmp(opt, "--operator-ms") == 0) {
            if (read_number(val, '\0', 60000, &v) == NULL)
                return "--card-ms, --action-ms and --operator-ms want a number of milliseconds up to 60000";
            *(opt[2] == 'c' ? &w->card_ms : opt[2] == 'a' ? &w->action_ms : &w->operator_ms) = (uint16_t)v;
        } else {
            return "unknown option";
        }
    }
    if ((set == NULL) != (range == NULL))
        return "--set and --boards go together";
    if (set != NULL) {
        unsigned long first, last, b;
        char label[32];
        const char *rest = read_number(range, '-', 9999, &first);
        if (rest == NULL || read_number(rest, '\0', 9999, &last) == NULL || first < 1 || last < first)
            return "--boards wants FIRST-LAST, e.g. 1-16";
        for (b = first; b <= last; b++)
            if (make_label(label, sizeof label, set, (unsigned)b) != 0 || add_board(w, label) != 0)
                return "too many boards, or a set name not of 1-12 of A-Z 0-9";
    }
    if (w->nboards == 0)
        return "no boards: give --set and --boards, or --label";
    return NULL;
}

/* The plan's fault of `kind` for this board and card that has not happened yet; NULL if none. */
static machine_fault *due(machine_world *w, uint8_t kind, uint16_t board, uint16_t value)
{
    int i;
    for (i = 0; i < w->nfaults; i++) {
        machine_fault *f = &w->faults[i];
        if (f->kind == kind && !f->fired && f->board == board && (kind == MACHINE_TURN || f->value == value))
            return f;
    }
    return NULL;
}

/* --- events ---------------------------------------------------------------------------------------- */

static int board_changed(machine *m, int present, uint32_t now)
{
    dp_msg ev;
    memset(&ev, 0, sizeof ev);
    ev.type = DP_BOARD_CHANGED;
    ev.u.board_changed.present = (uint8_t)present;
    return dp_device_send_event(&m->link, &ev, now) == DP_OK;
}

static int take_out(machine *m, uint32_t now)
{
    machine_world *w = m->world;
    if (!board_changed(m, 0, now))
        return 0;
    say(m, "board out", (unsigned long)w->in_machine);
    w->last_out = w->in_machine;
    w->in_machine = MACHINE_NOWHERE;
    w->turns = 0;
    m->scanned = 0; /* the scan is forgotten when the board leaves (6) */
    return 1;
}

static int put_in(machine *m, int which, uint32_t now)
{
    machine_world *w = m->world;
    machine_fault *turn = due(w, MACHINE_TURN, (uint16_t)label_board_number(w->boards[which].label), 0);
    if (!board_changed(m, 1, now))
        return 0;
    say(m, "board in", (unsigned long)which);
    w->in_machine = w->last_in = (int16_t)which;
    w->turns = 0;
    if (w->boards[which].times_in < 255)
        w->boards[which].times_in++;
    if (turn != NULL && turn->ms != w->boards[which].times_in)
        turn = NULL; /* turned another time it goes in */
    if (turn != NULL) { /* the operator puts it in turned, once */
        turn->fired = 1;
        w->turns = (uint8_t)turn->value;
        say(m, "board in turned", turn->value);
    }
    return 1;
}

static void deal_done(machine *m, uint8_t outcome, uint32_t now)
{
    dp_msg ev;
    int s;
    memset(&ev, 0, sizeof ev);
    ev.type = DP_DEAL_DONE;
    ev.u.deal_done.job = m->job;
    ev.u.deal_done.outcome = outcome;
    ev.u.deal_done.cards_dealt = m->cards_dealt;
    ev.u.deal_done.pocket_counts.count = 4;
    for (s = 0; s < 4; s++)
        ev.u.deal_done.pocket_counts.values[s] = m->dealt[s];
    if (dp_device_send_event(&m->link, &ev, now) == DP_OK) {
        m->state = DP_STATE_DONE;
        m->fault = DP_FAULT_NONE;
        m->fault_detail = 0;
        m->done_pending = 0;
        say(m, "DealDone job", m->job);
    } else {
        m->done_pending = (uint8_t)(outcome + 1); /* the queue is full: again at the next tick */
    }
}

/* Dealing stops on a fault: state FAULT, the Fault event (kept until the queue takes it). */
static int stop_on_fault(machine *m, uint8_t code, uint16_t detail, uint8_t flags, uint32_t now)
{
    dp_msg ev;
    memset(&ev, 0, sizeof ev);
    ev.type = DP_FAULT;
    ev.u.fault.code = code;
    ev.u.fault.detail = detail;
    ev.u.fault.job = m->job;
    ev.u.fault.cards_dealt = m->cards_dealt;
    ev.u.fault.flags = flags;
    if (dp_device_send_event(&m->link, &ev, now) != DP_OK)
        return 0;
    m->state = DP_STATE_FAULT;
    m->fault = code;
    m->fault_detail = detail;
    m->fault_flags = flags;
    say(m, "Fault", code);
    return 1;
}

/* --- commands (section 6) ------------------------------------------------------------------------ */

static int refuse(dp_msg *reply, uint8_t reason, uint8_t detail)
{
    reply->type = DP_REFUSED;
    reply->u.refused.reason = reason;
    reply->u.refused.detail = detail;
    return 0;
}

/* The checks of a board action (ScanBoard, Recount, Eject): state, activity, board. */
static int board_action_allowed(const machine *m, dp_msg *reply)
{
    if (m->state == DP_STATE_DEALING)
        return refuse(reply, DP_REFUSE_WRONG_STATE, m->state);
    if (m->activity != DP_ACTIVITY_NONE)
        return refuse(reply, DP_REFUSE_BUSY, m->activity);
    if (m->world->in_machine == MACHINE_NOWHERE)
        return refuse(reply, DP_REFUSE_NO_BOARD, 0);
    return 1;
}

static void start_activity(machine *m, uint8_t activity, uint32_t now)
{
    m->activity = activity;
    m->activity_done_at = now + m->world->action_ms;
}

static void load_deal(machine *m, const dp_load_deal *load, dp_msg *reply)
{
    uint8_t seats[4] = { 0, 0, 0, 0 }, c, s, hash;
    if (m->state == DP_STATE_DEALING || m->state == DP_STATE_FAULT) {
        refuse(reply, DP_REFUSE_WRONG_STATE, m->state);
        return;
    }
    for (c = 0; c < 52; c++)
        seats[dp_deal_seat(load->deal, c)]++;
    for (s = 0; s < 4; s++)
        if (seats[s] != 13) {
            refuse(reply, DP_REFUSE_BAD_DEAL, s);
            return;
        }
    hash = dp_deal_hash(load->deal);
    if (hash != load->deal_hash) {
        refuse(reply, DP_REFUSE_BAD_HASH, hash);
        return;
    }
    memcpy(m->deal, load->deal, 13);
    m->deal_hash = hash;
    m->job = load->job;
    m->board_number = load->board;
    m->cards_dealt = 0;
    memset(m->dealt, 0, sizeof m->dealt);
    m->state = DP_STATE_LOADED;
}

static void start_deal(machine *m, uint16_t job, dp_msg *reply, uint32_t now)
{
    int resumable = m->state == DP_STATE_FAULT && (m->fault_flags & DP_FAULT_FLAG_RESUMABLE);
    if (m->state != DP_STATE_LOADED && !resumable)
        refuse(reply, DP_REFUSE_WRONG_STATE, m->state);
    else if (m->activity != DP_ACTIVITY_NONE)
        refuse(reply, DP_REFUSE_BUSY, m->activity);
    else if (m->world->in_machine == MACHINE_NOWHERE)
        refuse(reply, DP_REFUSE_NO_BOARD, 0);
    else if (job != m->job)
        refuse(reply, DP_REFUSE_WRONG_JOB, (uint8_t)m->job);
    else if (!m->scanned)
        refuse(reply, DP_REFUSE_NOT_SCANNED, 0);
    else if (resumable && m->fault == DP_FAULT_JAM && m->world->path_jammed)
        refuse(reply, DP_REFUSE_FAULT_PRESENT, m->fault);
    else {
        say(m, resumable ? "dealing again, board" : "dealing board", m->board_number);
        m->state = DP_STATE_DEALING;
        m->fault = DP_FAULT_NONE;
        m->fault_detail = 0;
        m->next_card_at = now + m->world->card_ms;
        m->progress_sent = 0;
    }
}

static void status(const machine *m, dp_status *st)
{
    int s;
    st->state = m->state;
    st->activity = m->activity;
    st->flags = m->world->in_machine != MACHINE_NOWHERE ? DP_FLAG_BOARD_PRESENT : 0;
    if (m->state != DP_STATE_IDLE) {
        st->job = m->job;
        st->board = m->board_number;
        st->deal_hash = m->deal_hash;
        st->cards_dealt = m->cards_dealt;
        st->fault = m->fault;
        st->fault_detail = m->fault_detail;
        st->pocket_counts.count = 4;
        for (s = 0; s < 4; s++)
            st->pocket_counts.values[s] = m->dealt[s];
    }
    st->boot_id = m->boot_id;
}

static void display(machine *m, const dp_display *d, uint32_t now)
{
    machine_world *w = m->world;
    uint8_t n = d->label.len;
    w->prompt = d->prompt;
    w->prompt_board = d->board;
    memcpy(w->prompt_label, d->label.bytes, n); /* the text is valid only during this call */
    w->prompt_label[n] = '\0';
    w->operator_at = now + w->operator_ms;
    say(m, "Display prompt", d->prompt);
}

/* This example deals no cards, so it says it is simulated (a host keeps a simulated machine's deals out of the
   club's records). A build that drives a real mechanism defines MACHINE_REAL_MECHANISM and says nothing of it. */
#ifdef MACHINE_REAL_MECHANISM
#define MACHINE_SIMULATED 0
#else
#define MACHINE_SIMULATED DP_CAP_SIMULATED
#endif

static void on_command(void *user, const dp_msg *cmd, dp_msg *reply, uint32_t now)
{
    machine *m = (machine *)user;
    say(m, "command", cmd->type);
    switch (cmd->type) {
    case DP_HELLO: {
        dp_hello_ack *h = &reply->u.hello_ack;
        h->firmware_major = 0;
        h->firmware_minor = 2;
        h->firmware_patch = 0;
        h->boot_id = m->boot_id;
        h->capabilities = DP_CAP_BARCODE_READER | DP_CAP_CARD_RECOUNT | DP_CAP_BOARD_SENSOR | DP_CAP_EJECT
                          | DP_CAP_DISPLAY | DP_CAP_RESUME_AFTER_FAULT | MACHINE_SIMULATED;
        h->pockets = 4;
        h->hoppers = 1;
        h->serial.bytes = (const uint8_t *)m->world->serial; /* the world outlives the reply */
        h->serial.len = (uint8_t)strlen(m->world->serial);
        break;
    }
    case DP_GET_STATUS:
        status(m, &reply->u.status);
        break;
    case DP_SCAN_BOARD:
        if (board_action_allowed(m, reply))
            start_activity(m, DP_ACTIVITY_SCANNING, now);
        break;
    case DP_LOAD_DEAL:
        load_deal(m, &cmd->u.load_deal, reply);
        break;
    case DP_START_DEAL:
        start_deal(m, cmd->u.start_deal.job, reply, now);
        break;
    case DP_ABORT:
        if (m->state == DP_STATE_DEALING || m->state == DP_STATE_FAULT)
            deal_done(m, DP_OUTCOME_ABORTED, now);
        break;
    case DP_RECOUNT:
        if (board_action_allowed(m, reply)) {
            m->recount_job = cmd->u.recount.job;
            start_activity(m, DP_ACTIVITY_RECOUNTING, now);
        }
        break;
    case DP_EJECT:
        if (board_action_allowed(m, reply))
            start_activity(m, DP_ACTIVITY_EJECTING, now);
        break;
    case DP_RESET:
        if (cmd->u.reset.mode == DP_RESET_REBOOT) {
            m->reboot = 1; /* after the Ack has gone out */
        } else {
            m->state = DP_STATE_IDLE;
            m->activity = DP_ACTIVITY_NONE;
            m->cards_dealt = 0;
            m->done_pending = 0;
            m->fault = DP_FAULT_NONE;
            m->fault_detail = 0;
        }
        break;
    case DP_DISPLAY:
        display(m, &cmd->u.display, now);
        break;
    default:
        refuse(reply, DP_REFUSE_UNSUPPORTED, cmd->type);
        break;
    }
}

/* --- what happens by itself: cards, activities, the operator --------------------------------------- */

static void progress(machine *m, uint32_t now)
{
    dp_msg note;
    if (m->cards_dealt % 13 != 0 || m->cards_dealt >= 52 || (m->progress_sent && !reached(now, m->last_progress_at + 100)))
        return;
    note.type = DP_PROGRESS; /* at most one each 100 ms (4.7) */
    note.u.progress.job = m->job;
    note.u.progress.cards_dealt = m->cards_dealt;
    dp_device_send_notice(&m->link, &note);
    m->progress_sent = 1;
    m->last_progress_at = now;
}

/* One card from the hopper into the board: the faults of the plan for this card first. 0 if dealing
 * stopped (or the power went). */
static int deal_card(machine *m, uint32_t now)
{
    machine_world *w = m->world;
    machine_board *b = &w->boards[w->in_machine];
    uint8_t card = m->cards_dealt, seat = dp_deal_seat(m->deal, card), target = seat, pocket;
    uint16_t number = (uint16_t)(card + 1);
    machine_fault *f;
    if ((f = due(w, MACHINE_POWER_CUT, m->board_number, number)) != NULL) {
        f->fired = 1;
        w->power_cuts++;
        say(m, "power cut at card", number);
        w->restart_reason = DP_BOOT_POWER_ON;
        if (m->port.restart != NULL)
            m->port.restart(m->port.user); /* does not come back on a microcontroller */
        machine_start(m, w, &m->port, DP_BOOT_POWER_ON, (uint16_t)(m->boot_id + 1), now);
        return 0;
    }
    if ((f = due(w, MACHINE_SILENCE, m->board_number, number)) != NULL) {
        f->fired = 1;
        m->silent = 1;
        m->silent_until = now + f->ms;
        say(m, "silent for ms", f->ms);
    }
    if ((f = due(w, MACHINE_JAM, m->board_number, number)) != NULL) {
        if (!stop_on_fault(m, DP_FAULT_JAM, m->cards_dealt, DP_FAULT_FLAG_RESUMABLE, now))
            return 0; /* the queue is full: the card waits, the jam comes at the next tick */
        f->fired = 1;
        w->path_jammed = 1;
        return 0;
    }
    f = due(w, MACHINE_MISFEED, m->board_number, number);
    if (f != NULL)
        target = (uint8_t)((seat + 1) % 4); /* the card goes astray into the next pocket, and is seen to */
    pocket = (uint8_t)((target + w->turns) % 4); /* the machine's pocket p is the board's (p + k) mod 4 */
    if (b->count[pocket] < MACHINE_POCKET_CAP)
        b->cards[pocket][b->count[pocket]++] = card;
    m->dealt[target]++;
    m->cards_dealt++;
    m->next_card_at += w->card_ms;
    if (f != NULL) {
        f->fired = 1;
        stop_on_fault(m, DP_FAULT_MISFEED, target, 0, now); /* the queue has room: nothing else is sent */
        return 0;
    }
    progress(m, now);
    return 1;
}

static void deal_cards(machine *m, uint32_t now)
{
    while (m->state == DP_STATE_DEALING && !m->done_pending && m->cards_dealt < 52 && reached(now, m->next_card_at))
        if (!deal_card(m, now))
            return;
    if ((m->state == DP_STATE_DEALING && m->cards_dealt == 52) || m->done_pending)
        deal_done(m, m->done_pending ? (uint8_t)(m->done_pending - 1) : DP_OUTCOME_COMPLETE, now);
}

static int report_recount(machine *m, uint32_t now)
{
    const machine_world *w = m->world;
    const machine_board *b = &w->boards[w->in_machine];
    dp_msg ev;
    int s;
    memset(&ev, 0, sizeof ev);
    ev.type = DP_RECOUNT_REPORT;
    ev.u.recount_report.job = m->recount_job;
    ev.u.recount_report.count = 4;
    for (s = 0; s < 4; s++) { /* the machine's pockets, each holding the board's pocket (s + k) mod 4 */
        int pocket = (s + w->turns) % 4;
        ev.u.recount_report.pockets[s].cards = b->cards[pocket];
        ev.u.recount_report.pockets[s].count = b->count[pocket];
    }
    return dp_device_send_event(&m->link, &ev, now) == DP_OK;
}

static int report_scan(machine *m, uint32_t now)
{
    const machine_world *w = m->world;
    const char *label = w->boards[w->in_machine].label;
    dp_msg ev;
    memset(&ev, 0, sizeof ev);
    ev.type = DP_BOARD_SCANNED;
    ev.u.board_scanned.result = DP_SCAN_OK;
    /* the reader reads the label on whichever side it lies: at the machine's side (4 - k) mod 4 */
    ev.u.board_scanned.turns = w->turns;
    ev.u.board_scanned.label.bytes = (const uint8_t *)label;
    ev.u.board_scanned.label.len = (uint8_t)text_len(label);
    if (dp_device_send_event(&m->link, &ev, now) != DP_OK)
        return 0;
    m->scanned = 1;
    return 1;
}

static void finish_activity(machine *m, uint32_t now)
{
    int done = 0;
    if (m->activity == DP_ACTIVITY_NONE || !reached(now, m->activity_done_at))
        return;
    if (m->activity == DP_ACTIVITY_SCANNING)
        done = report_scan(m, now);
    else if (m->activity == DP_ACTIVITY_RECOUNTING)
        done = report_recount(m, now);
    else
        done = take_out(m, now); /* ejected */
    if (done) /* else the event queue is full: again at the next tick */
        m->activity = DP_ACTIVITY_NONE;
}

/* The operator acts on the last prompt once the machine is quiet, one board movement at a time. */
static void operator_step(machine *m, uint32_t now)
{
    machine_world *w = m->world;
    int wanted;
    if (w->prompt == DP_PROMPT_NONE || !reached(now, w->operator_at) || m->activity != DP_ACTIVITY_NONE
        || m->state == DP_STATE_DEALING)
        return;
    switch (w->prompt) {
    case DP_PROMPT_INSERT_BOARD:
        wanted = find_board(w, w->prompt_label, w->prompt_board);
        if (wanted == MACHINE_NOWHERE) /* not in the pile: the operator puts in the next board */
            wanted = (w->last_in + 1) % w->nboards;
        if (w->in_machine == wanted && w->turns == 0)
            w->prompt = DP_PROMPT_NONE;
        else if (w->in_machine != MACHINE_NOWHERE) /* another board, or this one turned: out first */
            take_out(m, now);
        else if (put_in(m, wanted, now)) /* turned or not: done, until the display asks again */
            w->prompt = DP_PROMPT_NONE;
        break;
    case DP_PROMPT_EMPTY_BOARD:
        if (w->in_machine != MACHINE_NOWHERE) {
            take_out(m, now);
        } else if (w->last_out != MACHINE_NOWHERE) {
            machine_board *b = &w->boards[w->last_out];
            memset(b->count, 0, sizeof b->count);
            if (put_in(m, w->last_out, now))
                w->prompt = DP_PROMPT_NONE;
        } else {
            w->prompt = DP_PROMPT_NONE;
        }
        break;
    case DP_PROMPT_REMOVE_BOARD:
        if (w->in_machine == MACHINE_NOWHERE || take_out(m, now))
            w->prompt = DP_PROMPT_NONE;
        break;
    case DP_PROMPT_CLEAR_PATH:
        w->path_jammed = 0; /* the jammed card goes back on top of the pack */
        w->prompt = DP_PROMPT_NONE;
        break;
    default:
        w->prompt = DP_PROMPT_NONE;
        break;
    }
}

/* --- the line, the controller's power-up, its main loop -------------------------------------------- */

/* Bytes out, unless the machine has gone silent (then they are lost, as on a dead line). */
static void write_line(void *user, const uint8_t *bytes, size_t n)
{
    machine *m = (machine *)user;
    if (!m->silent)
        m->port.write(m->port.user, bytes, n);
}

void machine_start(machine *m, machine_world *w, const machine_port *port, uint8_t reason, uint16_t boot_id,
                   uint32_t now)
{
    machine_port kept = *port; /* `port` may be m's own, which is cleared next */
    memset(m, 0, sizeof *m);
    m->world = w;
    m->port = kept;
    m->boot_id = boot_id;
    m->state = DP_STATE_IDLE;
    m->activity = DP_ACTIVITY_NONE;
    m->cfg.write = write_line;
    m->cfg.on_command = on_command;
    m->cfg.user = m;
    m->cfg.rto_ms = DP_RTO_MS(115200);
    say(m, "boot id", boot_id);
    dp_device_start(&m->link, &m->cfg, reason, boot_id, now);
}

void machine_receive(machine *m, const uint8_t *bytes, uint32_t n, uint32_t now)
{
    if (!m->silent)
        dp_device_receive(&m->link, bytes, n, now);
}

void machine_step(machine *m, uint32_t now)
{
    if (m->reboot) { /* Reset(REBOOT): the Ack is out; restart as if powered up, with a new boot_id */
        m->world->restart_reason = DP_BOOT_RESET_COMMAND;
        if (m->port.restart != NULL)
            m->port.restart(m->port.user);
        machine_start(m, m->world, &m->port, DP_BOOT_RESET_COMMAND, (uint16_t)(m->boot_id + 1), now);
    }
    if (m->silent && reached(now, m->silent_until)) {
        m->silent = 0;
        say(m, "speaking again", 0);
    }
    dp_device_poll(&m->link, now);
    deal_cards(m, now);
    finish_activity(m, now);
    operator_step(m, now);
}
