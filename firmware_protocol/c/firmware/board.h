/*
 * board.h - the few nRF51 and Cortex-M0 registers the firmware uses (nRF51 Series Reference Manual;
 * ARMv6-M Architecture Reference Manual), as QEMU's `microbit` machine models them.
 */
#ifndef DEALER_BOARD_H
#define DEALER_BOARD_H

#include <stdint.h>

#define REG(addr) (*(volatile uint32_t *)(addr))

/* UART0 */
#define UART0_IRQ 2
#define UART_BASE 0x40002000ul
#define UART_TASKS_STARTRX REG(UART_BASE + 0x000)
#define UART_TASKS_STARTTX REG(UART_BASE + 0x008)
#define UART_EVENTS_RXDRDY REG(UART_BASE + 0x108)
#define UART_EVENTS_TXDRDY REG(UART_BASE + 0x11C)
#define UART_INTENSET REG(UART_BASE + 0x304)
#define UART_ENABLE REG(UART_BASE + 0x500)
#define UART_RXD REG(UART_BASE + 0x518)
#define UART_TXD REG(UART_BASE + 0x51C)
#define UART_BAUDRATE REG(UART_BASE + 0x524)
#define UART_INT_RXDRDY (1ul << 2)
#define UART_BAUD_115200 0x01D7E000ul

/* NVMC: the flash controller */
#define NVMC_BASE 0x4001E000ul
#define NVMC_READY REG(NVMC_BASE + 0x400)
#define NVMC_CONFIG REG(NVMC_BASE + 0x504)
#define NVMC_ERASEPAGE REG(NVMC_BASE + 0x508)
#define NVMC_READ_ONLY 0u
#define NVMC_WRITE 1u
#define NVMC_ERASE 2u
#define FLASH_PAGE_BYTES 1024u

/* Cortex-M0 system control: SysTick, NVIC, reset */
#define SYST_CSR REG(0xE000E010ul)
#define SYST_RVR REG(0xE000E014ul)
#define SYST_CVR REG(0xE000E018ul)
#define NVIC_ISER REG(0xE000E100ul)
#define SCB_AIRCR REG(0xE000ED0Cul)
#define AIRCR_SYSRESETREQ 0x05FA0004ul
#define CPU_HZ 16000000ul

#define STACK_PAINT 0xC5C5C5C5ul

#endif
