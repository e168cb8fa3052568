/* Test driver: the C device's link, clocked and fed by a test in lockstep. Reads commands on stdin, one a
 * line, and answers each with one line "OUT DEADLINE": the hex of every byte the device wrote during the
 * command ("-" if none) and the time of its next retransmission in ms ("-" if none):
 *   start MS      power up: Boot
 *   rx MS HEX     bytes from the line
 *   poll MS       time passes
 *   stats         (answered with one JSON line) what the machine carried out and the link's counters
 * The machine behind it answers Hello and GetStatus, Acks every other command, and for each LoadDeal
 * counts the job, sends Progress(job, 26) and the event DealDone(job). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dealer_proto.h"

static dp_device dev;
static unsigned char loads[65536];
static unsigned long commands[256];
static char out_hex[1 << 16];
static size_t out_len;

static void collect(void *user, const uint8_t *bytes, size_t n)
{
    size_t i;
    (void)user;
    for (i = 0; i < n; i++) {
        if (out_len + 3 >= sizeof out_hex) {
            fprintf(stderr, "link driver: output overflow\n");
            exit(1);
        }
        sprintf(out_hex + out_len, "%02x", bytes[i]);
        out_len += 2;
    }
}

static void on_command(void *user, const dp_msg *cmd, dp_msg *reply, uint32_t now)
{
    static const uint8_t serial[] = "C-DEV";
    dp_msg ev;
    (void)user;
    commands[cmd->type]++;
    memset(&ev, 0, sizeof ev);
    if (cmd->type == DP_HELLO) {
        reply->u.hello_ack.boot_id = 1;
        reply->u.hello_ack.capabilities = DP_CAP_BARCODE_READER | DP_CAP_CARD_RECOUNT;
        reply->u.hello_ack.pockets = 4;
        reply->u.hello_ack.hoppers = 1;
        reply->u.hello_ack.serial.bytes = serial;
        reply->u.hello_ack.serial.len = 5;
    } else if (cmd->type == DP_GET_STATUS) {
        reply->u.status.boot_id = 1;
        reply->u.status.pocket_counts.count = 4;
    } else if (cmd->type == DP_LOAD_DEAL) {
        uint8_t i;
        if (loads[cmd->u.load_deal.job] < 255)
            loads[cmd->u.load_deal.job]++;
        ev.type = DP_PROGRESS;
        ev.u.progress.job = cmd->u.load_deal.job;
        ev.u.progress.cards_dealt = 26;
        dp_device_send_notice(&dev, &ev);
        memset(&ev, 0, sizeof ev);
        ev.type = DP_DEAL_DONE;
        ev.u.deal_done.job = cmd->u.load_deal.job;
        ev.u.deal_done.cards_dealt = 52;
        ev.u.deal_done.pocket_counts.count = 4;
        for (i = 0; i < 4; i++)
            ev.u.deal_done.pocket_counts.values[i] = 13;
        if (dp_device_send_event(&dev, &ev, now) != DP_OK) {
            fprintf(stderr, "link driver: DealDone not queued\n");
            exit(1);
        }
    }
}

static void answer(void)
{
    uint32_t when;
    printf("%s ", out_len ? out_hex : "-");
    if (dp_device_next_deadline(&dev, &when))
        printf("%lu\n", (unsigned long)when);
    else
        printf("-\n");
    fflush(stdout);
    out_len = 0;
    out_hex[0] = '\0';
}

static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
    size_t n = 0;
    unsigned v;
    while (s[0] && s[1] && s[0] != '\n' && n < cap && sscanf(s, "%2x", &v) == 1) {
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

int main(void)
{
    static char line[1 << 17];
    static uint8_t bytes[1 << 16];
    static const dp_device_config cfg = { collect, on_command, NULL, DP_RTO_MS(9600) };
    while (fgets(line, sizeof line, stdin)) {
        unsigned long ms;
        char hex[2];
        if (sscanf(line, "start %lu", &ms) == 1) {
            dp_device_start(&dev, &cfg, DP_BOOT_POWER_ON, 1, (uint32_t)ms);
        } else if (sscanf(line, "rx %lu %1s", &ms, hex) == 2) {
            const char *data = strchr(strchr(line, ' ') + 1, ' ') + 1;
            size_t n = unhex(data, bytes, sizeof bytes);
            dp_device_receive(&dev, bytes, n, (uint32_t)ms);
        } else if (sscanf(line, "poll %lu", &ms) == 1) {
            dp_device_poll(&dev, (uint32_t)ms);
        } else if (strncmp(line, "stats", 5) == 0) {
            unsigned long job;
            int comma = 0;
            const dp_counters *c = &dev.counters;
            printf("{\"loads\": {");
            for (job = 0; job < 65536; job++)
                if (loads[job]) {
                    printf("%s\"%lu\": %u", comma ? ", " : "", job, loads[job]);
                    comma = 1;
                }
            printf("}, \"hello\": %lu, \"resets\": %lu, \"frames\": %lu, \"bad_frames\": %lu, \"duplicates\": %lu, \"stale\": %lu, "
                   "\"ignored\": %lu, \"retransmits\": %lu, \"naks_sent\": %lu, \"bytes_sent\": %lu}\n",
                   commands[DP_HELLO], commands[DP_RESET], (unsigned long)c->frames, (unsigned long)c->bad_frames,
                   (unsigned long)c->duplicates, (unsigned long)c->stale, (unsigned long)c->ignored,
                   (unsigned long)c->retransmits, (unsigned long)c->naks_sent, (unsigned long)c->bytes_sent);
            fflush(stdout);
            continue;
        } else {
            fprintf(stderr, "link driver: bad command: %s", line);
            return 1;
        }
        answer();
    }
    return 0;
}
