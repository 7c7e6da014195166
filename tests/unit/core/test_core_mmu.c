/* SPDX-License-Identifier: MIT */
/*
 * test_core: the MMU: walks, NULL and read-only pages, faults, and the TLB.
 */
#include "test_core.h"

void test_mmu(void)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, 1, false, 0, 4);
   uint64_t root = vm_new(d.f);
   uint64_t pa = vm_alloc(d.f, root, VA_BUF, 4 * VAGX_PAGE_SIZE, false);
   uint64_t ro_pa = vm_alloc(d.f, root, VA_BUF + 0x10000, VAGX_PAGE_SIZE, true);
   vm_set_null(d.f, root, VA_SPARSE, 1);                       /* 1 GiB NULL */
   vm_set_null(d.f, root, VA_BUF + 0x20000, VAGX_PT_LEVELS - 1); /* one NULL page */
   uint32_t p[VAGX_RING_SLOT_PAYLOAD_SIZE / 4];
   struct vagx_job_header h;
   uint64_t seq = 1;

   /* fill a mapped range, then read it back through a copy */
   payload_fill(p, VA_BUF + 4, 2 * VAGX_PAGE_SIZE, 0x11223344);
   uint64_t slot = tq_run(&t, VAGX_JOB_TYPE_FILL, root, seq++, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK, "fill");
   CHECK(pa_u32(d.f, pa)[0] == 0 && pa_u32(d.f, pa)[1] == 0x11223344 &&
         pa_u32(d.f, pa + 2 * VAGX_PAGE_SIZE)[0] == 0x11223344 &&
         pa_u32(d.f, pa + 2 * VAGX_PAGE_SIZE)[1] == 0, "fill range");

   /* NULL pages: writes dropped, reads zero, no fault */
   payload_fill(p, VA_SPARSE + 0x123000, 3 * VAGX_PAGE_SIZE, 0x55);
   slot = tq_run(&t, VAGX_JOB_TYPE_FILL, root, seq++, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK, "fill null");
   payload_copy(p, VA_BUF + 8, VA_BUF + 0x20000, 64); /* from the NULL page */
   slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, seq++, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK, "copy from null");
   CHECK(pa_u32(d.f, pa)[2] == 0 && pa_u32(d.f, pa)[17] == 0 && pa_u32(d.f, pa)[18] == 0x11223344,
         "null reads zero");
   CHECK(rd(&d, VAGX_REG_FAULT_STATUS) == 0, "no fault latched");

   /* read-only page: reads fine, writes fault with READ_ONLY */
   pa_u32(d.f, ro_pa)[0] = 0xabcdef;
   payload_copy(p, VA_BUF + 0x3000, VA_BUF + 0x10000, 4);
   slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, seq++, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK && pa_u32(d.f, pa + 0x3000)[0] == 0xabcdef,
         "ro read");
   hdr_init(&t, &h, VAGX_JOB_TYPE_FILL, root, seq++);
   payload_fill(p, VA_BUF + 0x10010, 16, 7);
   slot = tq_submit(&t, &h, p);
   unsigned err_irq = atomic_load(&d.f->irq[VAGX_MSIX_VECTOR_ERROR]);
   vagx_core_process(d.core);
   struct vagx_job_result r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_MMU_FAULT && r.unit == VAGX_UNIT_COPY &&
         r.address == VA_BUF + 0x10010, "ro fault result %u %u %llx", r.status, r.unit,
         (unsigned long long)r.address);
   CHECK(pa_u64(d.f, d.completion_pa) == seq - 1, "failed job still completes");
   uint32_t fs = rd(&d, VAGX_REG_FAULT_STATUS);
   CHECK(VAGX_FAULT_STATUS_VALID_GET(fs) && VAGX_FAULT_STATUS_ACCESS_GET(fs) == VAGX_FAULT_ACCESS_WRITE &&
         VAGX_FAULT_STATUS_REASON_GET(fs) == VAGX_FAULT_REASON_READ_ONLY &&
         VAGX_FAULT_STATUS_UNIT_GET(fs) == VAGX_UNIT_COPY && VAGX_FAULT_STATUS_QUEUE_GET(fs) == 0 &&
         VAGX_FAULT_STATUS_LEVEL_GET(fs) == VAGX_PT_LEVELS - 1, "fault status %x", fs);
   CHECK(rd(&d, VAGX_REG_FAULT_ADDR_LO) == (uint32_t)(VA_BUF + 0x10010) &&
         rd(&d, VAGX_REG_FAULT_ADDR_HI) == (uint32_t)((VA_BUF + 0x10010) >> 32), "fault addr");
   CHECK(rd(&d, VAGX_REG_FAULT_ROOT_LO) == (uint32_t)root && rd(&d, VAGX_REG_FAULT_ROOT_HI) == 0,
         "fault root");
   CHECK(rd(&d, VAGX_REG_INT_STATUS) & VAGX_INT_MMU_FAULT(1), "mmu fault int");
   CHECK(rd(&d, VAGX_REG_INT_STATUS) & VAGX_INT_QUEUE_ERROR(0), "queue error int");
   CHECK(atomic_load(&d.f->irq[VAGX_MSIX_VECTOR_ERROR]) > err_irq, "error vector");
   CHECK(q_state(&d, 0) == VAGX_QUEUE_STATE_HALTED &&
         VAGX_Q_STATUS_ERROR_GET(rd(&d, VAGX_REG_Q_STATUS(0))) == VAGX_JOB_STATUS_MMU_FAULT,
         "halted with error");

   /* while halted nothing runs; RESUME continues */
   hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, seq++);
   slot = tq_submit(&t, &h, NULL);
   CHECK(vagx_core_process(d.core) == 0, "halted queue does not run");
   wr(&d, VAGX_REG_Q_RESUME(0), 1);
   CHECK(vagx_core_process(d.core) == 1 && slot_result(&d, slot).status == VAGX_JOB_STATUS_OK,
         "resumed");

   /* a second fault while latched sets MULTIPLE; ACK clears */
   struct {
      uint64_t va;
      enum vagx_fault_reason reason;
      unsigned level;
   } cases[] = {
      {VA_BUF + vagx_pt_entry_span(1), VAGX_FAULT_REASON_NOT_PRESENT, 1}, /* L1 entry missing */
      {VA_BUF + 0x30000, VAGX_FAULT_REASON_NOT_PRESENT, 3},       /* leaf missing */
      {1ull << VAGX_VA_BITS, VAGX_FAULT_REASON_ADDRESS_RANGE, 0},
      {0x0000700000000000ull, VAGX_FAULT_REASON_NOT_PRESENT, 0},
   };
   for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      wr(&d, VAGX_REG_FAULT_ACK, 1);
      wr(&d, VAGX_REG_Q_RESUME(0), 1);
      payload_copy(p, VA_BUF, cases[i].va, 8);
      slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, seq++, p);
      fs = rd(&d, VAGX_REG_FAULT_STATUS);
      CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_MMU_FAULT, "case %u", i);
      CHECK(VAGX_FAULT_STATUS_REASON_GET(fs) == cases[i].reason &&
            VAGX_FAULT_STATUS_LEVEL_GET(fs) == cases[i].level &&
            VAGX_FAULT_STATUS_ACCESS_GET(fs) == VAGX_FAULT_ACCESS_READ, "case %u: %x", i, fs);
   }
   wr(&d, VAGX_REG_Q_RESUME(0), 1);
   payload_fill(p, VA_BUF + 0x30000, 4, 0);
   tq_run(&t, VAGX_JOB_TYPE_FILL, root, seq++, p);
   CHECK(VAGX_FAULT_STATUS_MULTIPLE_GET(rd(&d, VAGX_REG_FAULT_STATUS)), "multiple");
   CHECK(VAGX_FAULT_STATUS_REASON_GET(rd(&d, VAGX_REG_FAULT_STATUS)) == VAGX_FAULT_REASON_NOT_PRESENT &&
         rd(&d, VAGX_REG_FAULT_ADDR_LO) == 0, "first fault kept");
   wr(&d, VAGX_REG_FAULT_ACK, 1);
   CHECK(rd(&d, VAGX_REG_FAULT_STATUS) == 0, "ack");

   /* reserved PTE bits (derived from the generated packer) */
   uint32_t resv[VAGX_PTE_DWORDS];
   pte_reserved_mask(resv);
   uint64_t e = vm_entry(d.f, root, VA_BUF + 0x3000, VAGX_PT_LEVELS - 1);
   uint32_t saved[VAGX_PTE_DWORDS];
   memcpy(saved, pa_ptr(d.f, e), sizeof(saved));
   for (unsigned w = 0; w < VAGX_PTE_DWORDS; w++)
      if (resv[w]) {
         pa_u32(d.f, e)[w] |= resv[w] & -resv[w]; /* lowest reserved bit */
         break;
      }
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1));
   wr(&d, VAGX_REG_Q_RESUME(0), 1);
   payload_copy(p, VA_BUF, VA_BUF + 0x3000, 8);
   slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, seq++, p);
   fs = rd(&d, VAGX_REG_FAULT_STATUS);
   CHECK(VAGX_FAULT_STATUS_REASON_GET(fs) == VAGX_FAULT_REASON_RESERVED_BITS, "reserved %x", fs);
   memcpy(pa_ptr(d.f, e), saved, sizeof(saved));
   wr(&d, VAGX_REG_FAULT_ACK, 1);

   /* bad roots: outside RAM, zero */
   wr(&d, VAGX_REG_Q_RESUME(0), 1);
   payload_fill(p, VA_BUF, 4, 0);
   slot = tq_run(&t, VAGX_JOB_TYPE_FILL, RAM + (1ull << 30), seq++, p);
   CHECK(VAGX_FAULT_STATUS_REASON_GET(rd(&d, VAGX_REG_FAULT_STATUS)) == VAGX_FAULT_REASON_BAD_ROOT,
         "bad root");
   wr(&d, VAGX_REG_FAULT_ACK, 1);
   wr(&d, VAGX_REG_Q_RESUME(0), 1);
   slot = tq_run(&t, VAGX_JOB_TYPE_FILL, 0, seq++, p);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_MMU_FAULT && r.unit == VAGX_UNIT_JOB, "zero root");
   wr(&d, VAGX_REG_FAULT_ACK, 1);

   /* page-table loop: an L1 entry pointing back at the root; the walk has a
    * fixed depth, so it ends (here: in the root's own entries) */
   struct vagx_pte loop;
   vagx_pte_init(&loop);
   loop.valid = true;
   loop.addr = root;
   uint64_t lva = 0x0000600000000000ull;
   pte_store(d.f, vm_entry(d.f, root, lva, 1), &loop);
   wr(&d, VAGX_REG_Q_RESUME(0), 1);
   hdr_init(&t, &h, VAGX_JOB_TYPE_COPY, root, seq++);
   payload_copy(p, VA_BUF, lva, 64);
   slot = tq_submit(&t, &h, p);
   CHECK(vagx_core_process(d.core) == 1, "loop job finished");
   wr(&d, VAGX_REG_FAULT_ACK, 1);

   /* physical page outside RAM -> BUS_ERROR */
   vm_map_page(d.f, root, VA_BUF + 0x40000, RAM + 0x100000, false, false);
   wr(&d, VAGX_REG_Q_RESUME(0), 1);
   payload_copy(p, VA_BUF, VA_BUF + 0x40000, 8);
   slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, seq++, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_MMU_FAULT &&
         VAGX_FAULT_STATUS_REASON_GET(rd(&d, VAGX_REG_FAULT_STATUS)) == VAGX_FAULT_REASON_BUS_ERROR,
         "bus error page %x", rd(&d, VAGX_REG_FAULT_STATUS));
   wr(&d, VAGX_REG_FAULT_ACK, 1);
   (void)pa;
   tdev_fini(&d);
}

void test_tlb(void)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, 1, false, 0, 3); /* one worker: its TLB is deterministic */
   uint64_t root = vm_new(d.f);
   uint64_t dst = vm_alloc(d.f, root, VA_BUF, VAGX_PAGE_SIZE, false);
   uint64_t a = vm_alloc(d.f, root, VA_BUF + VAGX_PAGE_SIZE, VAGX_PAGE_SIZE, false);
   uint64_t b = pa_alloc(d.f, VAGX_PAGE_SIZE);
   pa_u32(d.f, a)[0] = 0xaaaa;
   pa_u32(d.f, b)[0] = 0xbbbb;
   uint32_t p[VAGX_RING_SLOT_PAYLOAD_SIZE / 4];
   payload_copy(p, VA_BUF, VA_BUF + VAGX_PAGE_SIZE, 4);

   tq_run(&t, VAGX_JOB_TYPE_COPY, root, 1, p);
   CHECK(pa_u32(d.f, dst)[0] == 0xaaaa, "first");

   /* remap VA_BUF+0x1000 -> b without invalidating: the cached translation
    * may still be used (and with this device is) */
   vm_map_page(d.f, root, VA_BUF + VAGX_PAGE_SIZE, b, false, false);
   tq_run(&t, VAGX_JOB_TYPE_COPY, root, 2, p);
   CHECK(pa_u32(d.f, dst)[0] == 0xaaaa, "stale translation before invalidate: %x",
         pa_u32(d.f, dst)[0]);

   uint32_t seq0 = rd(&d, VAGX_REG_TLB_INV_SEQ);
   wr(&d, VAGX_REG_TLB_INV_ROOT_LO, (uint32_t)root);
   wr(&d, VAGX_REG_TLB_INV_ROOT_HI, (uint32_t)(root >> 32));
   wr(&d, VAGX_REG_TLB_INV_VA_LO, (uint32_t)(VA_BUF + VAGX_PAGE_SIZE));
   wr(&d, VAGX_REG_TLB_INV_VA_HI, (uint32_t)((VA_BUF + VAGX_PAGE_SIZE) >> 32));
   wr(&d, VAGX_REG_TLB_INV_SIZE_LO, VAGX_PAGE_SIZE);
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1));
   CHECK(VAGX_TLB_INV_STATUS_BUSY_GET(rd(&d, VAGX_REG_TLB_INV_STATUS)) == 0, "idle device: done");
   CHECK(rd(&d, VAGX_REG_TLB_INV_SEQ) == seq0 + 1, "seq");
   CHECK(rd(&d, VAGX_REG_INT_STATUS) & VAGX_INT_TLB_INV_DONE(1), "inv done int");

   tq_run(&t, VAGX_JOB_TYPE_COPY, root, 3, p);
   CHECK(pa_u32(d.f, dst)[0] == 0xbbbb, "new translation after invalidate: %x", pa_u32(d.f, dst)[0]);

   /* unmap + invalidate -> fault */
   vm_unmap(d.f, root, VA_BUF + VAGX_PAGE_SIZE);
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1));
   uint64_t slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, 4, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_MMU_FAULT, "unmapped after invalidate");
   tdev_fini(&d);
}
