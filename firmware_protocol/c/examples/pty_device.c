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
 *   the bench's faults, each once, at card CARD (1-52) of the deal for board BOARD:
 *            --jam BOARD:CARD (resumable once the operator clears the path), --misfeed BOARD:CARD (the card
 *            goes into the next pocket, seen), --power-cut BOARD:CARD (the controller restarts: a new
 *            boot_id, IDLE, the cards already in the board stay), --silence BOARD:CARD:MS (nothing goes
 *            out or comes in for MS ms), --turn BOARD:K (the operator puts the board in turned K quarter
 *            turns the first time, or with BOARD:K:N the Nth time it goes in; the reader reports it)
 *
 * The machine itself (the state table, the rack, the operator, the faults) is machine.c.
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

#include "machine.h"

static volatile sig_atomic_t stopping;
static int master_fd = -1;
static unsigned long bytes_dropped;
static int verbose;

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

static void say(void *user, const char *what, unsigned long a)
{
    (void)user;
    if (verbose)
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
                    "[--link PATH] [--card-ms N] [--action-ms N] [--operator-ms N] [--boot-id N] [--dump FILE] "
                    "[--verbose] [--jam B:C] [--misfeed B:C] [--power-cut B:C] [--silence B:C:MS] [--turn B:K]\n",
            why);
    exit(2);
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
static int dump_boards(const machine_world *w, const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), i, s, k;
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL)
        return -1;
    for (i = 0; i < w->nboards; i++) {
        const machine_board *b = &w->boards[i];
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

/* This program's own options; the machine's go on to machine_configure. */
static void parse_options(machine_world *w, int argc, char **argv, const char **link_path, const char **dump_path,
                          uint16_t *boot_id)
{
    static const char *rest[128];
    const char *why;
    int i, n = 0;
    for (i = 1; i < argc; i++) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(opt, "--verbose") == 0) {
            verbose = 1;
            continue;
        }
        if (val == NULL)
            usage("an option without its value");
        i++;
        if (strcmp(opt, "--link") == 0)
            *link_path = val;
        else if (strcmp(opt, "--dump") == 0)
            *dump_path = val;
        else if (strcmp(opt, "--boot-id") == 0)
            *boot_id = (uint16_t)number(val, opt);
        else if (n + 2 > (int)(sizeof rest / sizeof rest[0]))
            usage("too many options");
        else {
            rest[n++] = opt;
            rest[n++] = val;
        }
    }
    if ((why = machine_configure(w, n, rest)) != NULL)
        usage(why);
}

int main(int argc, char **argv)
{
    static machine_world world;
    static machine m;
    machine_port port;
    const char *link_path = NULL, *dump_path = NULL;
    char path[128];
    int status = 0;
    int slave_fd = -1;
    uint16_t boot_id = 1;
    struct sigaction sa;

    machine_world_init(&world);
    parse_options(&world, argc, argv, &link_path, &dump_path, &boot_id);

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

    /* two example machines alive at once never share a serial (PROTOCOL.md 5) */
    snprintf(world.serial, sizeof world.serial, "C-EXAMPLE-%ld", (long)getpid());
    memset(&port, 0, sizeof port);
    port.write = write_line;
    port.log = say;
    machine_start(&m, &world, &port, DP_BOOT_POWER_ON, boot_id, millis());
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
                machine_receive(&m, buf, (uint32_t)n, millis());
        }
        machine_step(&m, millis());
    }
    if (link_path != NULL)
        unlink(link_path);
    close(slave_fd);
    close(master_fd);
    say(NULL, "bytes dropped", bytes_dropped);
    if (dump_path != NULL && dump_boards(&world, dump_path) != 0) {
        perror("pty_device: cannot write the boards' contents");
        status = 1;
    }
    return status;
}
