/* SPDX-License-Identifier: MIT */
/*
 * test_core: jobs on the rings: NOP jobs (ring wrap, seqno and irq per job)
 * and COPY/FILL jobs, with and without the map fast path.
 */
#include "test_core.h"

void test_nop_jobs(void)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, 2, false, 1, 2);
   unsigned irq0 = atomic_load(&d.f->irq[VAGX_MSIX_VECTOR_QUEUE0 + 1]);
   /* 10 jobs through a 4-slot ring: the ring wraps */
   for (unsigned i = 0; i < 10; i++) {
      struct vagx_job_header h;
      hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, 100 + i);
      uint64_t slot = tq_submit(&t, &h, NULL);
      CHECK(vagx_core_process(d.core) == 1, "one job");
      CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK, "ok");
      CHECK(pa_u64(d.f, d.completion_pa + 8) == 100 + i, "completion seqno");
      CHECK(q_seqno(&d, 1) == 100 + i, "last seqno");
      CHECK(atomic_load(&d.f->irq[VAGX_MSIX_VECTOR_QUEUE0 + 1]) == irq0 + i + 1, "irq per job");
      CHECK(rd(&d, VAGX_REG_INT_STATUS) & VAGX_INT_JOB_DONE(1), "job done bit");
      wr(&d, VAGX_REG_INT_STATUS, VAGX_INT_JOB_DONE(1));
   }
   CHECK(rd(&d, VAGX_REG_Q_HEAD(1)) == 10 && rd(&d, VAGX_REG_Q_JOBS_DONE(1)) == 10, "head");
   CHECK(q_state(&d, 1) == VAGX_QUEUE_STATE_IDLE, "idle");

   /* batch: 3 jobs, one doorbell, irq only on the last; custom vector */
   uint32_t raw[3][VAGX_JOB_HEADER_DWORDS];
   for (unsigned i = 0; i < 3; i++) {
      struct vagx_job_header h;
      hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, 200 + i);
      h.irq = i == 2;
      h.irq_vector = 5;
      vagx_job_header_pack(raw[i], &h);
      uint64_t slot = tq_slot(&t, t.tail);
      memcpy(pa_ptr(d.f, slot), raw[i], sizeof(raw[i]));
      t.tail++;
   }
   unsigned v5 = atomic_load(&d.f->irq[5]);
   wr(&d, VAGX_REG_Q_TAIL(1), t.tail);
   CHECK(vagx_core_process(d.core) == 0, "tail without doorbell does nothing");
   wr(&d, VAGX_REG_Q_DOORBELL(1), 1);
   CHECK(vagx_core_process(d.core) == 3, "three jobs");
   CHECK(atomic_load(&d.f->irq[5]) == v5 + 1, "one irq on vector 5");
   CHECK(q_seqno(&d, 1) == 202, "seqno");

   /* timestamps */
   uint64_t root = vm_new(d.f);
   uint64_t ts_pa = vm_alloc(d.f, root, VA_BUF, VAGX_PAGE_SIZE, false);
   struct vagx_job_header h;
   hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, root, 300);
   h.timestamps = true;
   h.timestamp_va = VA_BUF + 64;
   uint64_t slot = tq_submit(&t, &h, NULL);
   vagx_core_process(d.core);
   struct vagx_job_timestamps ts;
   vagx_job_timestamps_unpack(pa_u32(d.f, ts_pa + 64), &ts, NULL);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK, "ts job ok");
   CHECK(ts.start != 0 && ts.end >= ts.start, "timestamps %llu %llu",
         (unsigned long long)ts.start, (unsigned long long)ts.end);
   /* timestamp write that faults */
   h.timestamp_va = VA_BUF + (1u << 30);
   slot = tq_submit(&t, &h, NULL);
   vagx_core_process(d.core);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_MMU_FAULT, "ts fault");
   CHECK(q_state(&d, 1) == VAGX_QUEUE_STATE_HALTED, "halted");
   wr(&d, VAGX_REG_FAULT_ACK, 1);

   /* disable with an empty queue */
   wr(&d, VAGX_REG_Q_RESUME(1), 1);
   wr(&d, VAGX_REG_Q_CONTROL(1), 0);
   CHECK(q_state(&d, 1) == VAGX_QUEUE_STATE_STOPPED, "stopped");
   tdev_fini(&d);
}

void test_copy_fill(bool nomap)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, 2, nomap, 2, 3);
   uint64_t root = vm_new(d.f);
   /* source: 5 pages mapped to scattered physical pages (reverse order) */
   const unsigned np = 5;
   uint64_t src_pa[5], dst_pa[5];
   for (unsigned i = 0; i < np; i++)
      src_pa[np - 1 - i] = pa_alloc(d.f, VAGX_PAGE_SIZE);
   for (unsigned i = 0; i < np; i++) {
      vm_map_page(d.f, root, VA_BUF + i * VAGX_PAGE_SIZE, src_pa[i], false, false);
      dst_pa[i] = pa_alloc(d.f, VAGX_PAGE_SIZE);
      pa_alloc(d.f, VAGX_PAGE_SIZE); /* gap */
      vm_map_page(d.f, root, VA_BUF + 0x100000 + i * VAGX_PAGE_SIZE, dst_pa[i], false, false);
      for (unsigned k = 0; k < VAGX_PAGE_SIZE; k++)
         ((uint8_t *)pa_ptr(d.f, src_pa[i]))[k] = (uint8_t)rnd();
   }
   uint32_t p[VAGX_RING_SLOT_PAYLOAD_SIZE / 4];
   const uint64_t so = 123, doff = 4001, len = 3 * VAGX_PAGE_SIZE + 777;
   payload_copy(p, VA_BUF + 0x100000 + doff, VA_BUF + so, len);
   uint64_t slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, 1, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK, "copy");
   unsigned bad = 0;
   for (uint64_t i = 0; i < len; i++) {
      uint64_t s = so + i, o = doff + i;
      uint8_t want = ((uint8_t *)pa_ptr(d.f, src_pa[s / VAGX_PAGE_SIZE]))[s % VAGX_PAGE_SIZE];
      uint8_t got = ((uint8_t *)pa_ptr(d.f, dst_pa[o / VAGX_PAGE_SIZE]))[o % VAGX_PAGE_SIZE];
      bad += want != got;
   }
   CHECK(bad == 0, "copy across pages: %u bad bytes", bad);
   CHECK(((uint8_t *)pa_ptr(d.f, dst_pa[0]))[doff - 1] == 0, "no write before");

   /* zero-sized copy and fill are no-ops */
   payload_copy(p, 0xdead0000, 0xbeef0000, 0);
   slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, 2, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK, "zero copy");

   /* fill across pages */
   payload_fill(p, VA_BUF + 0x100000 + 4092, 8 + 2 * VAGX_PAGE_SIZE, 0xcafef00d);
   slot = tq_run(&t, VAGX_JOB_TYPE_FILL, root, 3, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK, "fill");
   CHECK(pa_u32(d.f, dst_pa[0])[1022] != 0xcafef00d && pa_u32(d.f, dst_pa[0])[1023] == 0xcafef00d &&
         pa_u32(d.f, dst_pa[1])[500] == 0xcafef00d && pa_u32(d.f, dst_pa[3])[0] == 0xcafef00d &&
         pa_u32(d.f, dst_pa[3])[1] != 0xcafef00d, "fill range");

   /* misaligned fill -> INVALID_JOB (payload) */
   payload_fill(p, VA_BUF + 2, 8, 1);
   slot = tq_run(&t, VAGX_JOB_TYPE_FILL, root, 4, p);
   struct vagx_job_result r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_INVALID_JOB && r.detail == VAGX_RING_SLOT_PAYLOAD_OFFSET,
         "misaligned fill %u", r.status);
   wr(&d, VAGX_REG_Q_RESUME(2), 1);

   /* copy that faults part-way: the pages before the hole are written */
   vm_unmap(d.f, root, VA_BUF + 0x100000 + 2 * VAGX_PAGE_SIZE);
   memset(pa_ptr(d.f, dst_pa[1]), 0, VAGX_PAGE_SIZE);
   payload_copy(p, VA_BUF + 0x100000, VA_BUF, 4 * VAGX_PAGE_SIZE);
   slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, 5, p);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_MMU_FAULT && r.address == VA_BUF + 0x100000 + 2 * VAGX_PAGE_SIZE,
         "partial copy fault %u %llx", r.status, (unsigned long long)r.address);
   CHECK(memcmp(pa_ptr(d.f, dst_pa[1]), pa_ptr(d.f, src_pa[1]), VAGX_PAGE_SIZE) == 0,
         "written before the fault");
   CHECK(VAGX_FAULT_STATUS_ACCESS_GET(rd(&d, VAGX_REG_FAULT_STATUS)) == VAGX_FAULT_ACCESS_WRITE &&
         VAGX_FAULT_STATUS_QUEUE_GET(rd(&d, VAGX_REG_FAULT_STATUS)) == 2, "write fault on q2");
   tdev_fini(&d);
}
