/* SPDX-License-Identifier: MIT */
/*
 * test_core: hostile input: malformed headers, descriptors and payloads end
 * in the documented job status, never in a crash.
 */
#include "test_core.h"

/* Reserved bits of a job header, derived from the generated packer. */
static void header_reserved_mask(uint32_t out[VAGX_JOB_HEADER_DWORDS])
{
   struct vagx_job_header h;
   memset(&h, 0xff, sizeof(h));
   h.irq = h.timestamps = true;
   uint32_t raw[VAGX_JOB_HEADER_DWORDS];
   vagx_job_header_pack(raw, &h);
   for (unsigned i = 0; i < VAGX_JOB_HEADER_DWORDS; i++)
      out[i] = ~raw[i];
}

void test_bad_input(void)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, 2, false, 0, 4);
   uint64_t root = vm_new(d.f);
   vm_alloc(d.f, root, VA_BUF, 16 * VAGX_PAGE_SIZE, false);
   struct vagx_job_header h;
   uint32_t raw[VAGX_JOB_HEADER_DWORDS];
   uint64_t slot;
   struct vagx_job_result r;
   uint64_t seq = 1;

#define EXPECT_FAIL(st, what)                                                   \
   do {                                                                         \
      vagx_core_process(d.core);                                                \
      r = slot_result(&d, slot);                                                \
      CHECK(r.status == (st), "%s: status %u", what, r.status);                \
      CHECK(q_state(&d, 0) == VAGX_QUEUE_STATE_HALTED, "%s: halted", what);    \
      wr(&d, VAGX_REG_Q_RESUME(0), 1);                                          \
      wr(&d, VAGX_REG_FAULT_ACK, 1);                                            \
   } while (0)

   unsigned v0 = atomic_load(&d.f->irq[VAGX_MSIX_VECTOR_QUEUE0]);
   hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, seq++);
   h.irq_vector = VAGX_MSIX_VECTORS;
   slot = tq_submit(&t, &h, NULL);
   EXPECT_FAIL(VAGX_JOB_STATUS_INVALID_JOB, "irq_vector");
   CHECK(r.unit == VAGX_UNIT_JOB, "unit JOB");
   CHECK(atomic_load(&d.f->irq[VAGX_MSIX_VECTOR_QUEUE0]) == v0 + 1, "failure interrupts on q vector");

   unsigned badtype = 0;
   while (vagx_job_type_is_valid(badtype))
      badtype++;
   hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, seq++);
   vagx_job_header_pack(raw, &h);
   raw[0] |= badtype; /* type is the low field of dword 0 */
   slot = tq_submit_raw(&t, raw, NULL);
   EXPECT_FAIL(VAGX_JOB_STATUS_INVALID_JOB, "type");

   uint32_t resv[VAGX_JOB_HEADER_DWORDS];
   header_reserved_mask(resv);
   for (unsigned w = 0; w < VAGX_JOB_HEADER_DWORDS; w++) {
      if (!resv[w])
         continue;
      hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, seq++);
      vagx_job_header_pack(raw, &h);
      raw[w] |= resv[w] & -resv[w];
      slot = tq_submit_raw(&t, raw, NULL);
      EXPECT_FAIL(VAGX_JOB_STATUS_INVALID_JOB, "reserved bit");
   }

   hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, seq++);
   h.desc_va = VA_BUF;
   slot = tq_submit(&t, &h, NULL);
   EXPECT_FAIL(VAGX_JOB_STATUS_INVALID_JOB, "desc_va on NOP");

   uint32_t junk[VAGX_RING_SLOT_PAYLOAD_SIZE / 4] = {0};
   junk[3] = 1;
   hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, seq++);
   slot = tq_submit(&t, &h, junk);
   EXPECT_FAIL(VAGX_JOB_STATUS_INVALID_JOB, "payload on NOP");
   CHECK(r.detail == VAGX_RING_SLOT_PAYLOAD_OFFSET + 12, "detail = offset %u", r.detail);

   hdr_init(&t, &h, VAGX_JOB_TYPE_COMPUTE, root, seq++);
   h.desc_va = VA_BUF;
   h.desc_size = VAGX_COMPUTE_JOB_LENGTH + 4;
   slot = tq_submit(&t, &h, NULL);
   EXPECT_FAIL(VAGX_JOB_STATUS_INVALID_JOB, "desc_size");

   hdr_init(&t, &h, VAGX_JOB_TYPE_RENDER, root, seq++);
   h.desc_va = VA_BUF;
   h.desc_size = VAGX_RENDER_JOB_LENGTH;
   slot = tq_submit(&t, &h, NULL);
   EXPECT_FAIL(VAGX_JOB_STATUS_INVALID_DESCRIPTOR, "render job of zeros");

   /* garbage compute descriptors */
   {
      uint64_t dpa = vm_alloc(d.f, root, VA_DESC, VAGX_PAGE_SIZE, false);
      for (unsigned i = 0; i < 50; i++) {
         for (unsigned k = 0; k < VAGX_COMPUTE_JOB_DWORDS; k++)
            pa_u32(d.f, dpa)[k] = rnd();
         hdr_init(&t, &h, VAGX_JOB_TYPE_COMPUTE, root, seq++);
         h.desc_va = VA_DESC;
         h.desc_size = VAGX_COMPUTE_JOB_LENGTH;
         slot = tq_submit(&t, &h, NULL);
         vagx_core_process(d.core);
         r = slot_result(&d, slot);
         CHECK(r.status != VAGX_JOB_STATUS_PENDING && r.status != VAGX_JOB_STATUS_OK,
               "garbage desc %u", r.status);
         wr(&d, VAGX_REG_Q_RESUME(0), 1);
         wr(&d, VAGX_REG_FAULT_ACK, 1);
      }
   }

   /* completion_pa outside guest RAM: BUS_ERROR, LAST_SEQNO still updates */
   hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, 777);
   h.completion_pa = RAM + 4096;
   slot = tq_submit(&t, &h, NULL);
   EXPECT_FAIL(VAGX_JOB_STATUS_BUS_ERROR, "completion outside RAM");
   CHECK(q_seqno(&d, 0) == 777, "seqno updates");

   /* random slots: never PENDING afterwards, never a crash */
   unsigned n_ok = 0;
   for (unsigned i = 0; i < 400; i++) {
      for (unsigned k = 0; k < VAGX_JOB_HEADER_DWORDS; k++)
         raw[k] = rnd();
      if (i & 1) { /* mostly-valid headers with a random type and sizes */
         hdr_init(&t, &h, (enum vagx_job_type)(rnd() % 5), root, seq++);
         h.desc_va = (rnd() & 1) ? VA_DESC : 0;
         h.desc_size = (rnd() & 1) ? VAGX_COMPUTE_JOB_LENGTH : 0;
         h.completion_pa = (rnd() & 1) ? d.completion_pa : 0;
         vagx_job_header_pack(raw, &h);
      }
      uint32_t pl[VAGX_RING_SLOT_PAYLOAD_SIZE / 4];
      for (unsigned k = 0; k < VAGX_RING_SLOT_PAYLOAD_SIZE / 4; k++)
         pl[k] = (rnd() & 3) ? 0 : rnd();
      slot = tq_submit_raw(&t, raw, pl);
      vagx_core_process(d.core);
      r = slot_result(&d, slot);
      CHECK(r.status != VAGX_JOB_STATUS_PENDING && vagx_job_status_is_valid(r.status),
            "random %u: %u", i, r.status);
      n_ok += r.status == VAGX_JOB_STATUS_OK;
      wr(&d, VAGX_REG_Q_RESUME(0), 1);
      wr(&d, VAGX_REG_FAULT_ACK, 1);
   }
   CHECK(rd(&d, VAGX_REG_Q_JOBS_DONE(0)) == t.tail, "every slot consumed %u %u",
         rd(&d, VAGX_REG_Q_JOBS_DONE(0)), t.tail);

   /* ring outside guest RAM: BUS_ERROR, queue halts */
   wr(&d, VAGX_REG_Q_CONTROL(1), 0);
   wr(&d, VAGX_REG_Q_RING_BASE_LO(1), 0);
   wr(&d, VAGX_REG_Q_RING_BASE_HI(1), 1); /* 4 GiB: beyond the fake RAM */
   wr(&d, VAGX_REG_Q_RING_SIZE(1), VAGX_Q_RING_SIZE_LOG2(VAGX_RING_MIN_LOG2));
   wr(&d, VAGX_REG_Q_CONTROL(1), 1);
   wr(&d, VAGX_REG_Q_TAIL(1), 1);
   wr(&d, VAGX_REG_Q_DOORBELL(1), 1);
   CHECK(vagx_core_process(d.core) == 1, "ring job consumed");
   CHECK(q_state(&d, 1) == VAGX_QUEUE_STATE_HALTED &&
         VAGX_Q_STATUS_ERROR_GET(rd(&d, VAGX_REG_Q_STATUS(1))) == VAGX_JOB_STATUS_BUS_ERROR,
         "ring bus error");
   tdev_fini(&d);
#undef EXPECT_FAIL
}
