// SPDX-License-Identifier: MIT
/*
 * memmap-stress: in the guest, change QEMU's memory map as fast as possible
 * on one vCPU while the other vCPU keeps halting and waking up on timer
 * interrupts (tests/guest/memmap-stress-test runs it; docs/debugging.md).
 *
 *   memmap-stress CONFIG SECONDS
 *
 * CONFIG is a PCI function's config space in sysfs, of a device no driver
 * uses (the guest boots with --no-module: vagx's own function).  CPU 0
 * toggles its Memory Space Enable: every write maps or unmaps its BARs, one
 * memory transaction in QEMU, a new FlatView for every address space and a
 * tcg_commit_cpu() queued on every vCPU.  CPU 1 sleeps 100 us at a time:
 * it halts, and QEMU's main loop wakes it with an APIC timer interrupt, the
 * path (cpu_handle_halt -> cpu_handle_interrupt) on which QEMU 10.0.2 could
 * deliver the interrupt through a dispatch whose FlatView was already freed.
 * Prints the number of toggles; exits 0 when it ran for SECONDS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PCI_COMMAND 0x04
#define PCI_COMMAND_MEMORY 0x2

static void pin(int cpu)
{
   cpu_set_t set;
   CPU_ZERO(&set);
   CPU_SET(cpu, &set);
   if (sched_setaffinity(0, sizeof(set), &set))
      perror("memmap-stress: sched_setaffinity");
}

static double now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
   if (argc != 3) {
      fprintf(stderr, "usage: memmap-stress CONFIG SECONDS\n");
      return 2;
   }
   double seconds = atof(argv[2]);
   int fd = open(argv[1], O_RDWR);
   uint16_t cmd;
   if (fd < 0 || pread(fd, &cmd, 2, PCI_COMMAND) != 2) {
      perror(argv[1]);
      return 2;
   }

   pid_t waker = fork();
   if (waker < 0) {
      perror("memmap-stress: fork");
      return 2;
   }
   if (waker == 0) {
      const struct timespec ts = {.tv_nsec = 100 * 1000};
      pin(1);
      for (;;)
         nanosleep(&ts, NULL);
   }

   pin(0);
   unsigned long toggles = 0;
   int ret = 0;
   double end = now() + seconds;
   while (now() < end) {
      uint16_t off = cmd & ~PCI_COMMAND_MEMORY, on = cmd | PCI_COMMAND_MEMORY;
      if (pwrite(fd, &off, 2, PCI_COMMAND) != 2 || pwrite(fd, &on, 2, PCI_COMMAND) != 2) {
         perror("memmap-stress: config write");
         ret = 1;
         break;
      }
      toggles += 2;
   }
   if (pwrite(fd, &cmd, 2, PCI_COMMAND) != 2)
      ret = 1;
   kill(waker, SIGKILL);
   waitpid(waker, NULL, 0);
   printf("memmap-stress: %lu memory map changes in %.0f s\n", toggles, seconds);
   return ret;
}
