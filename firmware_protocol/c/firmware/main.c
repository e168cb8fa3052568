/*
 * main.c - the dealing machine (../examples/machine.c) as firmware for the nRF51 of QEMU's `microbit`.
 *
 * UART0 at 115200: received bytes go from the receive interrupt into a ring buffer, which the main loop
 * feeds to the library; bytes out are written one by one. SysTick counts milliseconds. The main loop
 * makes every library call, and sleeps (WFI) until the next tick or byte. The boot_id is a counter in the
 * last flash page, one more on every boot. The machine's options (boards, timings, the bench's faults)
 * come from the command line QEMU gives over semihosting; --verbose logs there too.
 */
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "machine.h"

#define RING 256u /* a power of two */

extern uint32_t __world_start[], __world_end[], __bootcount_page[];

static volatile uint32_t ticks;
static volatile uint8_t ring[RING];
static volatile uint32_t ring_head; /* written by the interrupt */
static uint32_t ring_tail;          /* by the main loop */
static volatile uint32_t ring_lost;
static int verbose;

static machine controller;

/* How many boards the world holds: read by the bench (hil/qemu.py) to find its way in the world. */
const volatile uint16_t machine_max_boards = MACHINE_MAX_BOARDS;

void systick_handler(void);
void uart0_handler(void);

void systick_handler(void)
{
    ticks++;
}

void uart0_handler(void)
{
    while (UART_EVENTS_RXDRDY) {
        uint8_t byte;
        UART_EVENTS_RXDRDY = 0;
        byte = (uint8_t)UART_RXD;
        if (ring_head - ring_tail < RING)
            ring[ring_head++ % RING] = byte;
        else
            ring_lost++;
    }
}

/* --- semihosting (QEMU's -semihosting) --------------------------------------------------------------- */

static int semihost(int op, void *arg)
{
    register int r0 __asm__("r0") = op;
    register void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

static void log_line(void *user, const char *what, unsigned long value)
{
    char line[64];
    size_t n = strlen(what), k = 0;
    char digits[12];
    (void)user;
    if (!verbose)
        return;
    if (n > 40)
        n = 40;
    memcpy(line, "firmware: ", 10);
    memcpy(line + 10, what, n);
    n += 10;
    line[n++] = ' ';
    do {
        digits[k++] = (char)('0' + value % 10u);
        value /= 10u;
    } while (value > 0);
    while (k > 0)
        line[n++] = digits[--k];
    line[n++] = '\n';
    line[n] = '\0';
    semihost(0x04, line); /* SYS_WRITE0 */
}

/* The command line QEMU was given (-semihosting-config arg=...), split at spaces; the number of words. */
static int command_line(char *buf, int cap, const char **words, int most)
{
    struct {
        char *buf;
        int len;
    } arg = { buf, cap - 1 };
    int n = 0;
    char *p;
    if (semihost(0x15, &arg) != 0) /* SYS_GET_CMDLINE */
        return 0;
    buf[arg.len] = '\0';
    for (p = buf; *p != '\0' && n < most;) {
        while (*p == ' ')
            *p++ = '\0';
        if (*p == '\0')
            break;
        words[n++] = p;
        while (*p != '\0' && *p != ' ')
            p++;
    }
    return n;
}

/* --- the boot counter in flash ------------------------------------------------------------------------- */

#define COUNT_MARK 0xB0070000ul
#define COUNT_SLOTS (FLASH_PAGE_BYTES / 4u)

static void flash_wait(void)
{
    while (NVMC_READY == 0)
        ;
}

/* One more than the last boot's number, written to the next free word of the page (erased when full). */
static uint16_t next_boot_id(void)
{
    volatile uint32_t *page = __bootcount_page;
    uint32_t i, last = 0, next = 0;
    for (i = 0; i < COUNT_SLOTS; i++)
        if ((page[i] & 0xFFFF0000ul) == COUNT_MARK) {
            last = page[i] & 0xFFFFu;
            next = i + 1;
        }
    last = (last + 1u) & 0xFFFFu;
    if (last == 0)
        last = 1;
    if (next >= COUNT_SLOTS || page[next] != 0xFFFFFFFFul) {
        NVMC_CONFIG = NVMC_ERASE;
        flash_wait();
        NVMC_ERASEPAGE = (uint32_t)page;
        flash_wait();
        next = 0;
    }
    NVMC_CONFIG = NVMC_WRITE;
    flash_wait();
    page[next] = COUNT_MARK | last;
    flash_wait();
    NVMC_CONFIG = NVMC_READ_ONLY;
    return (uint16_t)last;
}

/* --- the UART ------------------------------------------------------------------------------------------ */

static void uart_write(void *user, const uint8_t *bytes, size_t n)
{
    (void)user;
    while (n-- > 0) {
        UART_EVENTS_TXDRDY = 0;
        UART_TXD = *bytes++;
        while (UART_EVENTS_TXDRDY == 0)
            ;
    }
}

static void uart_start(void)
{
    UART_BAUDRATE = UART_BAUD_115200;
    UART_ENABLE = 4;
    UART_TASKS_STARTTX = 1;
    UART_TASKS_STARTRX = 1;
    UART_EVENTS_RXDRDY = 0;
    UART_INTENSET = UART_INT_RXDRDY;
    NVIC_ISER = 1ul << UART0_IRQ;
}

static void restart(void *user)
{
    (void)user;
    __asm__ volatile("dsb" ::: "memory");
    SCB_AIRCR = AIRCR_SYSRESETREQ; /* the whole chip restarts: RAM is set up again, the world stays */
    for (;;)
        ;
}

int main(void)
{
    static char cmdline[256];
    const char *words[64];
    machine_world *world = (machine_world *)__world_start;
    machine_port port;
    uint8_t reason;
    int n, i;

    SYST_RVR = CPU_HZ / 1000u - 1u;
    SYST_CVR = 0;
    SYST_CSR = 7; /* the processor clock, the interrupt, on */
    uart_start();

    n = command_line(cmdline, sizeof cmdline, words, 64);
    for (i = 1; i < n; i++)
        if (strcmp(words[i], "--verbose") == 0)
            verbose = 1;
    if (sizeof *world > (size_t)((char *)__world_end - (char *)__world_start) || machine_max_boards == 0)
        log_line(NULL, "the world does not fit its RAM region", sizeof *world);
    if (world->magic != MACHINE_WORLD_MAGIC) { /* the first power-up: set the world up */
        const char *why;
        int kept = 0;
        for (i = 1; i < n; i++)
            if (strcmp(words[i], "--verbose") != 0)
                words[kept++] = words[i];
        machine_world_init(world);
        why = machine_configure(world, kept, words);
        if (why != NULL) {
            verbose = 1;
            log_line(NULL, why, 0);
            for (;;)
                __asm__ volatile("wfi");
        }
    }
    reason = world->restart_reason ? world->restart_reason : DP_BOOT_POWER_ON;
    world->restart_reason = 0;

    memset(&port, 0, sizeof port);
    port.write = uart_write;
    port.log = log_line;
    port.restart = restart;
    machine_start(&controller, world, &port, reason, next_boot_id(), ticks);
    for (;;) {
        uint8_t buf[32];
        uint32_t k = 0;
        while (ring_tail != ring_head && k < sizeof buf)
            buf[k++] = ring[ring_tail++ % RING];
        if (k > 0)
            machine_receive(&controller, buf, k, ticks);
        machine_step(&controller, ticks);
        __asm__ volatile("cpsid i");
        if (ring_tail == ring_head)
            __asm__ volatile("wfi"); /* an interrupt pending wakes it even with interrupts masked */
        __asm__ volatile("cpsie i");
    }
}
