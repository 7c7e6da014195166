/* SPDX-License-Identifier: MIT */
/*
 * test_core: RENDER jobs through the whole core: a clear stored through a PBE
 * descriptor, with one and several workers.
 */
#include "vagx_asm.h"
#include "test_core.h"

/* A render job through the core: background program clears the tile buffer,
 * end-of-tile program stores it through a PBE descriptor (docs/hw/render.md). */
static uint64_t submit_clear(struct tdev *d, struct tq *t, uint64_t root, uint64_t seq,
                             uint64_t code_pa, uint64_t desc_pa, unsigned w, unsigned h,
                             uint64_t fb_va, const float clear[4], uint32_t timeout_ms)
{
   struct fake *f = d->f;
   static const char *bg = "mov r0, u0\nmov r1, u1\nmov r2, u2\nmov r3, u3\nst_tile.rt0 r0, #0\nend\n";
   static const char *eot = "mov r4, sr.pix_x\nmov r5, sr.pix_y\nld_tile.rt0 r0, #0\n"
                            "img_st.i0.2d r4, r0, #0\nend\n";
   struct vagx_asm_error err;
   long n = vagx_asm_assemble(bg, pa_u32(f, code_pa), 1024, &err);
   CHECK(n > 0, "bg asm: %s", err.msg);
   n = vagx_asm_assemble(eot, pa_u32(f, code_pa + 0x1000), 1024, &err);
   CHECK(n > 0, "eot asm: %s", err.msg);

   struct vagx_pbe pbe;
   t_pbe_linear_2d(&pbe, VAGX_FORMAT_RGBA8_UNORM, w, h, t_linear_stride(w, 4), fb_va);
   vagx_pbe_pack(pa_u32(f, desc_pa + 0x400), &pbe);
   memcpy(pa_u32(f, desc_pa + 0x300), clear, 16);
   struct vagx_cmd_end end;
   vagx_cmd_end_init(&end);
   vagx_cmd_end_pack(pa_u32(f, desc_pa + 0x200), &end);

   struct vagx_render_job rj;
   t_render_job_1rt(&rj, w, h, VAGX_FORMAT_RGBA8_UNORM, VA_DESC + 0x200);
   vagx_usc_program_init(&rj.bg_program);
   rj.bg_program.code_va = VA_CODE;
   rj.bg_program.gpr_count = 16;
   rj.bg_program.uniform_count = 4;
   rj.bg_program.uniform_va = VA_DESC + 0x300;
   vagx_usc_program_init(&rj.eot_program);
   rj.eot_program.code_va = VA_CODE + 0x1000;
   rj.eot_program.gpr_count = 16;
   rj.eot_program.image_count = 1;
   rj.eot_program.image_va = VA_DESC + 0x400;
   const char *why = NULL;
   CHECK(vagx_render_job_validate(&rj, &why), "render_job: %s", why ? why : "");
   vagx_render_job_pack(pa_u32(f, desc_pa), &rj);

   struct vagx_job_header hh;
   hdr_init(t, &hh, VAGX_JOB_TYPE_RENDER, root, seq);
   hh.desc_va = VA_DESC;
   hh.desc_size = VAGX_RENDER_JOB_LENGTH;
   hh.timeout_ms = timeout_ms;
   return tq_submit(t, &hh, NULL);
}

void test_render(unsigned workers)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, workers, false, 2, 3);
   uint64_t root = vm_new(d.f);
   uint64_t code_pa = vm_alloc(d.f, root, VA_CODE, 2 * VAGX_PAGE_SIZE, true);
   uint64_t desc_pa = vm_alloc(d.f, root, VA_DESC, VAGX_PAGE_SIZE, false);
   const unsigned w = 100, h = 70; /* 4 x 3 tiles, partial ones at the edges */
   uint32_t stride = t_linear_stride(w, 4);
   uint64_t fb_pa = vm_alloc(d.f, root, VA_BUF, (uint64_t)stride * h, false);
   const float clear[4] = {1.0f, 0.0f, 0.5f, 1.0f};
   uint64_t slot = submit_clear(&d, &t, root, 1, code_pa, desc_pa, w, h, VA_BUF, clear, 0);
   vagx_core_process(d.core);
   struct vagx_job_result r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_OK, "render: %u unit %u addr %llx", r.status, r.unit,
         (unsigned long long)r.address);
   unsigned bad = 0;
   for (unsigned y = 0; y < h; y++)
      for (unsigned x = 0; x < w; x++) {
         const uint8_t *p = (const uint8_t *)pa_ptr(d.f, fb_pa + (uint64_t)y * stride + 4 * x);
         bad += p[0] != 255 || p[1] != 0 || (p[2] != 127 && p[2] != 128) || p[3] != 255;
      }
   CHECK(bad == 0, "render clear: %u wrong pixels", bad);
   CHECK(pa_u64(d.f, d.completion_pa + 16) == 1, "render completion");

   /* framebuffer not mapped: MMU fault from the PBE, latched */
   wr(&d, VAGX_REG_INT_STATUS, ~0u);
   slot = submit_clear(&d, &t, root, 2, code_pa, desc_pa, w, h, VA_BUF + (1ull << 32), clear, 0);
   vagx_core_process(d.core);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_MMU_FAULT && r.address >= VA_BUF + (1ull << 32),
         "render fault %u %llx", r.status, (unsigned long long)r.address);
   uint32_t fs = rd(&d, VAGX_REG_FAULT_STATUS);
   CHECK(VAGX_FAULT_STATUS_VALID_GET(fs) && VAGX_FAULT_STATUS_QUEUE_GET(fs) == 2 &&
         VAGX_FAULT_STATUS_ACCESS_GET(fs) == VAGX_FAULT_ACCESS_WRITE, "render fault status %x", fs);
   wr(&d, VAGX_REG_FAULT_ACK, 1);
   wr(&d, VAGX_REG_Q_RESUME(2), 1);

   /* a huge render (16384^2 over NULL pages) is abortable */
   for (uint64_t va = VA_SPARSE; va < VA_SPARSE + (2ull << 30); va += 1ull << 30)
      vm_set_null(d.f, root, va, 1);
   vagx_core_frontend_start(d.core);
   slot = submit_clear(&d, &t, root, 3, code_pa, desc_pa, VAGX_MAX_FRAMEBUFFER_SIZE,
                       VAGX_MAX_FRAMEBUFFER_SIZE, VA_SPARSE, clear, 0);
   CHECK(WAIT_UNTIL(q_state(&d, 2) == VAGX_QUEUE_STATE_RUNNING, 5), "huge render running");
   usleep(30000);
   /* it runs no shader (a clear): a TLB invalidation completes at the
    * renderer's safepoints between tiles, not when the job ends */
   double t0 = t_now_s();
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1));
   CHECK(WAIT_UNTIL(!VAGX_TLB_INV_STATUS_BUSY_GET(rd(&d, VAGX_REG_TLB_INV_STATUS)), 5),
         "invalidation completes during the huge render");
   CHECK(t_now_s() - t0 < 0.5, "invalidation during render prompt %.3f s", t_now_s() - t0);
   CHECK(q_state(&d, 2) == VAGX_QUEUE_STATE_RUNNING, "huge render still running");
   t0 = t_now_s();
   wr(&d, VAGX_REG_Q_ABORT(2), 1);
   CHECK(WAIT_UNTIL(q_state(&d, 2) == VAGX_QUEUE_STATE_HALTED, 10), "huge render aborted");
   CHECK(t_now_s() - t0 < 1.0, "render abort prompt %.3f", t_now_s() - t0);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_ABORTED, "render ABORTED %u",
         slot_result(&d, slot).status);
   vagx_core_frontend_stop(d.core);
   tdev_fini(&d);
}
