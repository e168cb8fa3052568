/*
 * startup.c - power-up of the nRF51 (Cortex-M0): the vector table, .data copied from flash, .bss zeroed,
 * the stack painted (so that its deepest use can be read back from memory afterwards), then main().
 */
#include <stdint.h>

#include "board.h"

extern uint32_t __data_start[], __data_end[], __data_load[], __bss_start[], __bss_end[], __stack_limit[];

int main(void);
void reset_handler(void);
void systick_handler(void);
void uart0_handler(void);

static void halt(void)
{
    for (;;)
        __asm__ volatile("wfi");
}

void reset_handler(void)
{
    uint32_t *p = __data_load, *q = __data_start;
    uint32_t *sp;
    while (q < __data_end)
        *q++ = *p++;
    for (q = __bss_start; q < __bss_end; q++)
        *q = 0;
    /* paint the stack from its limit up to a little below where it is now */
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (q = __stack_limit; q < sp - 16; q++)
        *q = STACK_PAINT;
    main();
    halt();
}

static void fault_handler(void)
{
    halt();
}

/* Cortex-M0: 15 system vectors after the initial stack pointer (which the linker script puts first),
 * then the nRF51's 32 interrupts (UART0 is number 2). */
__attribute__((section(".vectors"), used)) static void (*const vectors[15 + 32])(void) = {
    [0] = reset_handler,
    [1] = fault_handler, /* NMI */
    [2] = fault_handler, /* HardFault */
    [10] = fault_handler, /* SVCall */
    [13] = fault_handler, /* PendSV */
    [14] = systick_handler,
    [15 + UART0_IRQ] = uart0_handler,
};
