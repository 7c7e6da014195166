/* SPDX-License-Identifier: MIT */
/*
 * The wait/notify paths between the ring front end, the worker pool and the
 * job completion, looped: a lost wakeup anywhere (a worker sleeping on a
 * non-empty FIFO, a finished job nobody notices, a doorbell the front end
 * sleeps through) leaves a job unfinished, which a bound much shorter than
 * any job's turns into a failure.
 *
 * Fixed seed, a few seconds: 2 workers and the built-in front-end thread, 3
 * queues submitting FILL jobs of 1 byte to 3 pages (one to three pool tasks
 * each) as fast as they complete, sometimes several slots per doorbell,
 * sometimes the doorbell rung twice, sometimes a TLB invalidation in
 * between; each queue's jobs must all be done, with the right seqno and
 * bytes, within 5 s of the doorbell.  Written when the device fuzzer's
 * "job did not end" (seed 1127) was first suspected to be a lost wakeup; it
 * was the harness's own wait (tests/fuzz/fuzz_core.c, ended()).
 */
#include "core_test.h"
#include "vagx_test_rand.h"

#define RAM (32ull << 20)
#define VA_BUF 0x0000004000000000ull
#define NQ 3
#define ROUNDS 1500
#define BUF_PAGES 4           /* per queue */

int main(void)
{
   static struct tdev d;
   static struct tq q[NQ];
   t_rng = 1127;
   tdev_init(&d, RAM, 2, false);
   const uint64_t root = vm_new(d.f);
   const uint64_t buf_pa = vm_alloc(d.f, root, VA_BUF, (uint64_t)NQ * BUF_PAGES * VAGX_PAGE_SIZE,
                                    false);
   for (unsigned i = 0; i < NQ; i++)
      tq_init(&q[i], &d, i, 3);
   vagx_core_frontend_start(d.core);

   uint64_t seq[NQ] = {0}, jobs = 0, max_wait_us = 0;
   bool stuck = false;
   for (unsigned round = 0; round < ROUNDS && !stuck; round++) {
      /* every queue gets 1-4 slots, then one doorbell (or two) */
      uint32_t last_size[NQ], last_pattern[NQ];
      for (unsigned i = 0; i < NQ; i++) {
         const unsigned n = 1 + t_rand() % 4;
         for (unsigned k = 0; k < n; k++) {
            struct vagx_job_header h;
            uint32_t p[VAGX_RING_SLOT_PAYLOAD_SIZE / 4];
            hdr_init(&q[i], &h, VAGX_JOB_TYPE_FILL, root, ++seq[i]);
            last_size[i] = 4 * (1 + t_rand() % (3 * VAGX_PAGE_SIZE / 4));
            last_pattern[i] = t_rand();
            payload_fill(p, VA_BUF + (uint64_t)i * BUF_PAGES * VAGX_PAGE_SIZE, last_size[i],
                         last_pattern[i]);
            /* the slot without its doorbell: tq_submit rings one per slot */
            uint32_t raw[VAGX_JOB_HEADER_DWORDS];
            vagx_job_header_pack(raw, &h);
            struct fake *f = d.f;
            const uint64_t slot = tq_slot(&q[i], q[i].tail);
            memset(pa_ptr(f, slot), 0, VAGX_RING_ENTRY_SIZE);
            memcpy(pa_ptr(f, slot + VAGX_RING_SLOT_HEADER_OFFSET), raw, VAGX_JOB_HEADER_LENGTH);
            memcpy(pa_ptr(f, slot + VAGX_RING_SLOT_PAYLOAD_OFFSET), p, VAGX_RING_SLOT_PAYLOAD_SIZE);
            q[i].tail++;
            jobs++;
         }
         wr(&d, VAGX_REG_Q_TAIL(i), q[i].tail);
         wr(&d, VAGX_REG_Q_DOORBELL(i), 1);
         if (t_rand() % 8 == 0)
            wr(&d, VAGX_REG_Q_DOORBELL(i), 1);
         if (t_rand() % 16 == 0 &&
             !VAGX_TLB_INV_STATUS_BUSY_GET(rd(&d, VAGX_REG_TLB_INV_STATUS)))
            wr(&d, VAGX_REG_TLB_INV_CMD,
               VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1));
      }
      const double t0 = t_now_s();
      for (unsigned i = 0; i < NQ; i++) {
         const bool done = WAIT_UNTIL(rd(&d, VAGX_REG_Q_HEAD(i)) == q[i].tail &&
                                         q_state(&d, i) == VAGX_QUEUE_STATE_IDLE,
                                      5.0);
         CHECK(done, "round %u queue %u: HEAD %u of TAIL %u, Q_STATUS %#x after 5 s", round, i,
               rd(&d, VAGX_REG_Q_HEAD(i)), q[i].tail, rd(&d, VAGX_REG_Q_STATUS(i)));
         if (!done) {
            stuck = true;
            break;
         }
         CHECK(q_seqno(&d, i) == seq[i], "round %u queue %u: seqno %llu, want %llu", round, i,
               (unsigned long long)q_seqno(&d, i), (unsigned long long)seq[i]);
         const uint32_t *b = pa_u32(d.f, buf_pa + (uint64_t)i * BUF_PAGES * VAGX_PAGE_SIZE);
         const unsigned last = last_size[i] / 4 - 1;
         CHECK(b[0] == last_pattern[i] && b[last] == last_pattern[i],
               "round %u queue %u: the last fill's bytes", round, i);
      }
      const uint64_t us = (uint64_t)((t_now_s() - t0) * 1e6);
      if (us > max_wait_us)
         max_wait_us = us;
   }
   if (stuck) {
      /* a device with a job that never ends cannot be destroyed */
      fprintf(stderr, "test_core_stress: %d of %d checks failed; the device is stuck\n",
              t_failures, t_checks);
      fflush(stderr);
      _exit(1);
   }
   vagx_core_frontend_stop(d.core);
   tdev_fini(&d);
   printf("test_core_stress: %llu jobs in %u rounds on %u queues, longest round %.1f ms\n",
          (unsigned long long)jobs, ROUNDS, NQ, max_wait_us / 1000.0);
   return t_report("test_core_stress");
}
