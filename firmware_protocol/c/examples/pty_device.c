/*
 * pty_device: a dealing machine on a POSIX pseudo-terminal, built on the dealer_proto library alone.
 *
 * It prints the path of its terminal (or of --link) on its first line; a host opens that path as it
 * would open /dev/ttyUSB0. The machine holds its boards in memory, four pockets each, and an operator
 * who answers the display's prompts: INSERT_BOARD puts in the board whose label the prompt names (or, if
 * the operator holds no such board, the next one of the pile), EMPTY_BOARD empties the board and puts it
 * back, REMOVE_BOARD takes it out. It reads labels (ScanBoard), loads deals, deals them card by card,
 * recounts pockets and ejects boards, and reports each as PROTOCOL.md section 6 says.
 *
 *   pty_device --set A --boards 1-16         boards 1..16 of set A, labelled as PROTOCOL.md 12 says
 *   pty_device --label A:1:N0:4 [--label ..] the boards given by their labels
 *   options: --link PATH (a symlink to the terminal), --card-ms N (ms a card, default 2),
 *            --action-ms N (a scan, recount or eject, default 5), --operator-ms N (default 10),
 *            --boot-id N (default 1), --verbose (commands and events on stderr; never a card),
 *            --dump FILE (on stopping, every board's pockets, one board a line: the label, then per
 *            pocket N E S W its card indices separated by commas, "-" if empty; mode 0600: it holds deals)
 *
 * Stops on SIGINT, SIGTERM or SIGHUP.
 */
#define _XOPEN_SOURCE 600
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "dealer_proto.h"

#define MAX_BOARDS 64
#define POCKET_CAP 26 /* a pocket holds two hands at most; a card beyond falls out */
#define NOWHERE (-1)

typedef struct {
    char label[24];
    uint8_t cards[4][POCKET_CAP];
    uint8_t count[4];
} board;

typedef struct {
    dp_device link;
    board boards[MAX_BOARDS];
    int nboards, in_machine, last_out, last_in, scanned;
    /* the loaded job (section 6) */
    uint8_t state, activity, deal[13], deal_hash, cards_dealt, dealt[4], done_pending;
    uint16_t job, board_number, recount_job, boot_id;
    uint32_t next_card_at, activity_done_at, last_progress_at;
    int progress_sent, reboot;
    /* the operator: what the display asked, and when they act on it */
    uint8_t prompt;
    uint16_t prompt_board;
    char prompt_label[DP_MAX_LABEL + 1];
    uint32_t operator_at;
    /* settings */
    unsigned card_ms, action_ms, operator_ms;
    int verbose;
} machine;

static volatile sig_atomic_t stopping;
static int master_fd = -1;
static unsigned long bytes_dropped;

static void on_signal(int sig)
{
    (void)sig;
    stopping = 1;
}

static uint32_t millis(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)((unsigned long)ts.tv_sec * 1000ul + (unsigned long)ts.tv_nsec / 1000000ul);
}

static int reached(uint32_t now, uint32_t when)
{
    return (int32_t)(now - when) >= 0;
}

static void say(const machine *m, const char *what, unsigned long a)
{
    if (m->verbose)
        fprintf(stderr, "pty_device: %s %lu\n", what, a);
}

/* --- byte out: the library writes whole frames here ---------------------------------------------- */

static void write_line(void *user, const uint8_t *bytes, size_t n)
{
    (void)user;
    while (n > 0) {
        ssize_t k = write(master_fd, bytes, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) { /* nobody reading and the terminal's buffer full: the bytes are lost, as on a UART */
            bytes_dropped += n;
            return;
        }
        bytes += k;
        n -= (size_t)k;
    }
}

/* --- boards and labels (section 12) -------------------------------------------------------------- */

static int label_board_number(const char *label)
{
    const char *colon = strchr(label, ':');
    return colon ? atoi(colon + 1) : 0;
}

static int make_label(char *out, size_t cap, const char *set, int number)
{
    static const char values[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ:";
    static const char checks[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ*";
    static const char vul[] = "0NEBNEB0EB0NB0NE";
    unsigned long sum = 0;
    size_t i, n;
    int len = snprintf(out, cap, "%s:%d:%c%c:", set, number, "NESW"[(number - 1) % 4], vul[(number - 1) % 16]);
    if (len < 0 || (size_t)len + 2 > cap)
        return -1;
    n = (size_t)len;
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

static int find_board(const machine *m, const char *label, int number)
{
    int i;
    for (i = 0; i < m->nboards; i++)
        if (label[0] ? strcmp(m->boards[i].label, label) == 0 : label_board_number(m->boards[i].label) == number)
            return i;
    return NOWHERE;
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
    if (!board_changed(m, 0, now))
        return 0;
    say(m, "board out", (unsigned long)m->in_machine);
    m->last_out = m->in_machine;
    m->in_machine = NOWHERE;
    m->scanned = 0; /* the scan is forgotten when the board leaves (6) */
    return 1;
}

static int put_in(machine *m, int which, uint32_t now)
{
    if (!board_changed(m, 1, now))
        return 0;
    say(m, "board in", (unsigned long)which);
    m->in_machine = m->last_in = which;
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
        m->done_pending = 0;
        say(m, "DealDone job", m->job);
    } else {
        m->done_pending = outcome + 1; /* the queue is full: again at the next tick */
    }
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
    if (m->in_machine == NOWHERE)
        return refuse(reply, DP_REFUSE_NO_BOARD, 0);
    return 1;
}

static void start_activity(machine *m, uint8_t activity, uint32_t now)
{
    m->activity = activity;
    m->activity_done_at = now + m->action_ms;
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
    if (m->state != DP_STATE_LOADED) /* no fault is ever resumable here */
        refuse(reply, DP_REFUSE_WRONG_STATE, m->state);
    else if (m->activity != DP_ACTIVITY_NONE)
        refuse(reply, DP_REFUSE_BUSY, m->activity);
    else if (m->in_machine == NOWHERE)
        refuse(reply, DP_REFUSE_NO_BOARD, 0);
    else if (job != m->job)
        refuse(reply, DP_REFUSE_WRONG_JOB, (uint8_t)m->job);
    else if (!m->scanned)
        refuse(reply, DP_REFUSE_NOT_SCANNED, 0);
    else {
        m->state = DP_STATE_DEALING;
        m->next_card_at = now + m->card_ms;
        m->progress_sent = 0;
    }
}

static void status(const machine *m, dp_status *st)
{
    int s;
    st->state = m->state;
    st->activity = m->activity;
    st->flags = m->in_machine != NOWHERE ? DP_FLAG_BOARD_PRESENT : 0;
    if (m->state != DP_STATE_IDLE) {
        st->job = m->job;
        st->board = m->board_number;
        st->deal_hash = m->deal_hash;
        st->cards_dealt = m->cards_dealt;
        st->pocket_counts.count = 4;
        for (s = 0; s < 4; s++)
            st->pocket_counts.values[s] = m->dealt[s];
    }
    st->boot_id = m->boot_id;
}

static void display(machine *m, const dp_display *d, uint32_t now)
{
    uint8_t n = d->label.len;
    m->prompt = d->prompt;
    m->prompt_board = d->board;
    memcpy(m->prompt_label, d->label.bytes, n); /* the text is valid only during this call */
    m->prompt_label[n] = '\0';
    m->operator_at = now + m->operator_ms;
    say(m, "Display prompt", d->prompt);
}

static void on_command(void *user, const dp_msg *cmd, dp_msg *reply, uint32_t now)
{
    static const uint8_t serial[] = "C-EXAMPLE-1";
    machine *m = (machine *)user;
    say(m, "command", cmd->type);
    switch (cmd->type) {
    case DP_HELLO: {
        dp_hello_ack *h = &reply->u.hello_ack;
        h->firmware_major = 0;
        h->firmware_minor = 1;
        h->firmware_patch = 0;
        h->boot_id = m->boot_id;
        h->capabilities = DP_CAP_BARCODE_READER | DP_CAP_CARD_RECOUNT | DP_CAP_BOARD_SENSOR | DP_CAP_EJECT
                          | DP_CAP_DISPLAY;
        h->pockets = 4;
        h->hoppers = 1;
        h->serial.bytes = serial;
        h->serial.len = (uint8_t)(sizeof serial - 1);
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
        if (m->state == DP_STATE_DEALING)
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

static void deal_cards(machine *m, uint32_t now)
{
    while (m->state == DP_STATE_DEALING && !m->done_pending && m->cards_dealt < 52 && reached(now, m->next_card_at)) {
        board *b = &m->boards[m->in_machine];
        uint8_t card = m->cards_dealt, seat = dp_deal_seat(m->deal, card);
        if (b->count[seat] < POCKET_CAP)
            b->cards[seat][b->count[seat]++] = card;
        m->dealt[seat]++;
        m->cards_dealt++;
        m->next_card_at += m->card_ms;
        if (m->cards_dealt % 13 == 0 && m->cards_dealt < 52
            && (!m->progress_sent || reached(now, m->last_progress_at + 100))) {
            dp_msg note;
            note.type = DP_PROGRESS; /* at most one each 100 ms (4.7) */
            note.u.progress.job = m->job;
            note.u.progress.cards_dealt = m->cards_dealt;
            dp_device_send_notice(&m->link, &note);
            m->progress_sent = 1;
            m->last_progress_at = now;
        }
    }
    if ((m->state == DP_STATE_DEALING && m->cards_dealt == 52) || m->done_pending)
        deal_done(m, m->done_pending ? (uint8_t)(m->done_pending - 1) : DP_OUTCOME_COMPLETE, now);
}

static int report_recount(machine *m, uint32_t now)
{
    const board *b = &m->boards[m->in_machine];
    dp_msg ev;
    int s;
    memset(&ev, 0, sizeof ev);
    ev.type = DP_RECOUNT_REPORT;
    ev.u.recount_report.job = m->recount_job;
    ev.u.recount_report.count = 4;
    for (s = 0; s < 4; s++) {
        ev.u.recount_report.pockets[s].cards = b->cards[s];
        ev.u.recount_report.pockets[s].count = b->count[s];
    }
    return dp_device_send_event(&m->link, &ev, now) == DP_OK;
}

static int report_scan(machine *m, uint32_t now)
{
    const char *label = m->boards[m->in_machine].label;
    dp_msg ev;
    memset(&ev, 0, sizeof ev);
    ev.type = DP_BOARD_SCANNED;
    ev.u.board_scanned.result = DP_SCAN_OK;
    ev.u.board_scanned.turns = 0; /* the operator puts every board in straight */
    ev.u.board_scanned.label.bytes = (const uint8_t *)label;
    ev.u.board_scanned.label.len = (uint8_t)strlen(label);
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
    int wanted;
    if (m->prompt == DP_PROMPT_NONE || !reached(now, m->operator_at) || m->activity != DP_ACTIVITY_NONE
        || m->state == DP_STATE_DEALING)
        return;
    switch (m->prompt) {
    case DP_PROMPT_INSERT_BOARD:
        wanted = find_board(m, m->prompt_label, m->prompt_board);
        if (wanted == NOWHERE) /* not in the pile: the operator puts in the next board */
            wanted = (m->last_in + 1) % m->nboards;
        if (m->in_machine == wanted)
            m->prompt = DP_PROMPT_NONE;
        else if (m->in_machine != NOWHERE)
            take_out(m, now);
        else if (put_in(m, wanted, now))
            m->prompt = DP_PROMPT_NONE;
        break;
    case DP_PROMPT_EMPTY_BOARD:
        if (m->in_machine != NOWHERE) {
            take_out(m, now);
        } else if (m->last_out != NOWHERE) {
            board *b = &m->boards[m->last_out];
            memset(b->count, 0, sizeof b->count);
            if (put_in(m, m->last_out, now))
                m->prompt = DP_PROMPT_NONE;
        } else {
            m->prompt = DP_PROMPT_NONE;
        }
        break;
    case DP_PROMPT_REMOVE_BOARD:
        if (m->in_machine == NOWHERE || take_out(m, now))
            m->prompt = DP_PROMPT_NONE;
        break;
    default:
        m->prompt = DP_PROMPT_NONE;
        break;
    }
}

static void tick(machine *m, uint32_t now)
{
    deal_cards(m, now);
    finish_activity(m, now);
    operator_step(m, now);
}

/* --- power-up: the library and the machine's memory of the job ------------------------------------ */

static void boot(machine *m, uint8_t reason, uint32_t now)
{
    static dp_device_config cfg;
    cfg.write = write_line;
    cfg.on_command = on_command;
    cfg.user = m;
    cfg.rto_ms = DP_RTO_MS(115200);
    m->state = DP_STATE_IDLE;
    m->activity = DP_ACTIVITY_NONE;
    m->cards_dealt = 0;
    m->done_pending = 0;
    m->scanned = 0; /* forgotten at a restart (6) */
    m->reboot = 0;
    dp_device_start(&m->link, &cfg, reason, m->boot_id, now);
}

/* --- the pseudo-terminal --------------------------------------------------------------------------- */

static int open_terminal(char *path, size_t cap, int *slave_fd)
{
    struct termios t;
    const char *name;
    int fd = posix_openpt(O_RDWR | O_NOCTTY);
    if (fd < 0 || grantpt(fd) != 0 || unlockpt(fd) != 0 || (name = ptsname(fd)) == NULL)
        return -1;
    if (strlen(name) >= cap)
        return -1;
    strcpy(path, name);
    /* keep the terminal's far end open ourselves, so that a host closing it does not end the line */
    *slave_fd = open(path, O_RDWR | O_NOCTTY);
    if (*slave_fd < 0 || tcgetattr(*slave_fd, &t) != 0)
        return -1;
    t.c_iflag &= (tcflag_t)~(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON | IXOFF);
    t.c_oflag &= (tcflag_t)~OPOST;
    t.c_lflag &= (tcflag_t)~(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
    t.c_cflag &= (tcflag_t)~(CSIZE | PARENB);
    t.c_cflag |= CS8;
    if (tcsetattr(*slave_fd, TCSANOW, &t) != 0)
        return -1;
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0)
        return -1;
    return fd;
}

static void usage(const char *why)
{
    fprintf(stderr, "pty_device: %s\nusage: pty_device (--set NAME --boards FIRST-LAST | --label LABEL ...) "
                    "[--link PATH] [--card-ms N] [--action-ms N] [--operator-ms N] [--boot-id N] [--dump FILE] [--verbose]\n",
            why);
    exit(2);
}

static int add_board(machine *m, const char *label)
{
    if (m->nboards >= MAX_BOARDS || strlen(label) == 0 || strlen(label) > 22)
        return -1;
    strcpy(m->boards[m->nboards++].label, label);
    return 0;
}

static unsigned number(const char *s, const char *option)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v > 60000ul) {
        fprintf(stderr, "pty_device: %s: not a number: %s\n", option, s);
        exit(2);
    }
    return (unsigned)v;
}

/* Every board's pockets, for whoever checks what the machine really did (the file holds the deals). */
static int dump_boards(const machine *m, const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), i, s, k;
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL)
        return -1;
    for (i = 0; i < m->nboards; i++) {
        const board *b = &m->boards[i];
        fprintf(f, "%s", b->label);
        for (s = 0; s < 4; s++) {
            fputc(' ', f);
            if (b->count[s] == 0)
                fputc('-', f);
            for (k = 0; k < b->count[s]; k++)
                fprintf(f, "%s%u", k ? "," : "", b->cards[s][k]);
        }
        fputc('\n', f);
    }
    return fclose(f);
}

static void parse_options(machine *m, int argc, char **argv, const char **link_path, const char **dump_path)
{
    const char *set = NULL, *range = NULL;
    int i;
    for (i = 1; i < argc; i++) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(opt, "--verbose") == 0) {
            m->verbose = 1;
            continue;
        }
        if (val == NULL)
            usage("an option without its value");
        i++;
        if (strcmp(opt, "--label") == 0) {
            if (add_board(m, val) != 0)
                usage("too many boards, or a label that is empty or longer than 22 characters");
        } else if (strcmp(opt, "--set") == 0) {
            set = val;
        } else if (strcmp(opt, "--boards") == 0) {
            range = val;
        } else if (strcmp(opt, "--link") == 0) {
            *link_path = val;
        } else if (strcmp(opt, "--dump") == 0) {
            *dump_path = val;
        } else if (strcmp(opt, "--card-ms") == 0) {
            m->card_ms = number(val, opt);
        } else if (strcmp(opt, "--action-ms") == 0) {
            m->action_ms = number(val, opt);
        } else if (strcmp(opt, "--operator-ms") == 0) {
            m->operator_ms = number(val, opt);
        } else if (strcmp(opt, "--boot-id") == 0) {
            m->boot_id = (uint16_t)number(val, opt);
        } else {
            usage("unknown option");
        }
    }
    if ((set == NULL) != (range == NULL))
        usage("--set and --boards go together");
    if (set != NULL) {
        int first, last, b;
        char label[32];
        if (sscanf(range, "%d-%d", &first, &last) != 2 || first < 1 || last < first || last > 9999)
            usage("--boards wants FIRST-LAST, e.g. 1-16");
        for (b = first; b <= last; b++)
            if (make_label(label, sizeof label, set, b) != 0 || add_board(m, label) != 0)
                usage("too many boards, or a set name not of 1-12 of A-Z 0-9");
    }
    if (m->nboards == 0)
        usage("no boards: give --set and --boards, or --label");
}

int main(int argc, char **argv)
{
    static machine m;
    const char *link_path = NULL, *dump_path = NULL;
    char path[128];
    int status = 0;
    int slave_fd = -1;
    struct sigaction sa;

    m.card_ms = 2;
    m.action_ms = 5;
    m.operator_ms = 10;
    m.boot_id = 1;
    m.in_machine = m.last_out = m.last_in = NOWHERE;
    parse_options(&m, argc, argv, &link_path, &dump_path);

    master_fd = open_terminal(path, sizeof path, &slave_fd);
    if (master_fd < 0) {
        perror("pty_device: cannot open a pseudo-terminal");
        return 1;
    }
    if (link_path != NULL && (unlink(link_path), symlink(path, link_path) != 0)) {
        perror("pty_device: cannot make the link");
        return 1;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    printf("%s\n", link_path ? link_path : path);
    fflush(stdout);

    boot(&m, DP_BOOT_POWER_ON, millis());
    while (!stopping) {
        struct pollfd p;
        uint8_t buf[256];
        p.fd = master_fd;
        p.events = POLLIN;
        p.revents = 0;
        poll(&p, 1, 2);
        if (p.revents & POLLIN) {
            ssize_t n = read(master_fd, buf, sizeof buf);
            if (n > 0)
                dp_device_receive(&m.link, buf, (size_t)n, millis());
        }
        if (m.reboot) { /* Reset(REBOOT): the Ack is out; restart as if powered up, with a new boot_id */
            m.boot_id++;
            boot(&m, DP_BOOT_RESET_COMMAND, millis());
        }
        dp_device_poll(&m.link, millis());
        tick(&m, millis());
    }
    if (link_path != NULL)
        unlink(link_path);
    close(slave_fd);
    close(master_fd);
    say(&m, "bytes dropped", bytes_dropped);
    if (dump_path != NULL && dump_boards(&m, dump_path) != 0) {
        perror("pty_device: cannot write the boards' contents");
        status = 1;
    }
    return status;
}
