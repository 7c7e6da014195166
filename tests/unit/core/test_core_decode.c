/* SPDX-License-Identifier: MIT */
/*
 * test_core: the decoder over jobs and descriptors in guest memory.
 */
#include "vagx_asm.h"
#include "test_core.h"

void test_decode(void)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, 1, false, 0, 2);
   uint64_t root = vm_new(d.f);
   uint64_t dpa = vm_alloc(d.f, root, VA_DESC, VAGX_PAGE_SIZE, false);
   uint64_t cpa = vm_alloc(d.f, root, VA_CODE, VAGX_PAGE_SIZE, false);
   struct vagx_asm_error err;
   long n = vagx_asm_assemble("mov r1, #7\nend\n", pa_u32(d.f, cpa), 1024, &err);
   CHECK(n > 0, "asm");
   struct vagx_compute_job j;
   vagx_compute_job_init(&j);
   j.grid_x = 3;
   j.grid_y = j.grid_z = 1;
   j.tg_x = 32;
   j.tg_y = j.tg_z = 1;
   j.program.code_va = VA_CODE;
   j.program.gpr_count = 4;
   vagx_compute_job_pack(pa_u32(d.f, dpa), &j);
   struct vagx_job_header h;
   hdr_init(&t, &h, VAGX_JOB_TYPE_COMPUTE, root, 42);
   h.desc_va = VA_DESC;
   h.desc_size = VAGX_COMPUTE_JOB_LENGTH;
   uint64_t slot = tq_submit(&t, &h, NULL);
   uint32_t p[VAGX_RING_SLOT_PAYLOAD_SIZE / 4];
   hdr_init(&t, &h, VAGX_JOB_TYPE_FILL, root, 43);
   payload_fill(p, VA_DESC + 0x800, 64, 0xabc);
   tq_submit(&t, &h, p);

   struct sbuf *b = (struct sbuf *)calloc(1, sizeof(*b));
   CHECK(vagx_core_decode_job(&fake_ops, d.f, slot, sbuf_print, b) == 0, "decode");
   CHECK(strstr(b->buf, "COMPUTE") && strstr(b->buf, "grid_x") && strstr(b->buf, "mov") &&
         strstr(b->buf, "seqno"), "decoded text:\n%s", b->buf);
   sbuf_clear(b);
   CHECK(vagx_core_decode_ring(&fake_ops, d.f, t.ring_pa, 2, 0, 2, sbuf_print, b) == 0, "ring");
   CHECK(strstr(b->buf, "FILL") && strstr(b->buf, "pattern"), "ring text:\n%s", b->buf);

   /* garbage everywhere: the decoder prints INVALID and stays bounded */
   for (unsigned i = 0; i < 300; i++) {
      for (unsigned k = 0; k < VAGX_RING_ENTRY_SIZE / 4; k++)
         pa_u32(d.f, slot)[k] = rnd();
      if (i & 1) { /* valid header pointing at random descriptors/code */
         hdr_init(&t, &h, (i & 2) ? VAGX_JOB_TYPE_RENDER : VAGX_JOB_TYPE_COMPUTE, root, i);
         h.desc_va = VA_DESC;
         h.desc_size = (i & 2) ? VAGX_RENDER_JOB_LENGTH : VAGX_COMPUTE_JOB_LENGTH;
         vagx_job_header_pack(pa_u32(d.f, slot), &h);
         for (unsigned k = 0; k < VAGX_PAGE_SIZE / 4; k++) {
            pa_u32(d.f, dpa)[k] = (rnd() & 1) ? (uint32_t)(VA_DESC + (rnd() & 0xffc)) : rnd();
            if (k & 1)
               pa_u32(d.f, dpa)[k] = (rnd() & 3) ? 0 : rnd();
            pa_u32(d.f, cpa)[k] = rnd();
         }
      }
      b->len = 0;
      vagx_core_decode_job(&fake_ops, d.f, slot, sbuf_print, b);
   }
   CHECK(vagx_core_decode_job(&fake_ops, d.f, RAM + 4096, sbuf_print, b) != 0, "slot outside RAM");
   free(b);
   tdev_fini(&d);
}
