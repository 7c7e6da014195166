/* SPDX-License-Identifier: MIT */
/*
 * test_core: the scanout writeback at the core's level.
 */
#include "test_core.h"

/* The scanout writeback at the core's level (contract 1.7): a 64x32
 * framebuffer written back as RGB565 and XBGR8888, a blanked frame written
 * black, a NULL target dropping the stores without a fault. */
void test_writeback(void)
{
   const uint32_t w = 64, h = 32, pitch = 4 * w, wpitch = 4 * w + 16;
   const uint64_t fb_va = VA_BUF, wb_va = VA_BUF + 0x100000, null_va = VA_BUF + 0x40000000ull;
   struct vagx_core_scanout so;
   struct tdev d;
   tdev_init(&d, RAM, 1, false);
   uint64_t root = vm_new(d.f);
   uint64_t fb_pa = vm_alloc(d.f, root, fb_va, (uint64_t)pitch * h, true);
   uint64_t wb_pa = vm_alloc(d.f, root, wb_va, (uint64_t)wpitch * h, false);
   for (uint32_t y = 0; y < h; y++)
      for (uint32_t x = 0; x < w; x++)
         *pa_u32(d.f, fb_pa + y * pitch + 4 * x) = 0x5a000000u | rnd() % 0x1000000u;
   wr(&d, VAGX_REG_SCANOUT_FORMAT, VAGX_SCANOUT_FORMAT_XRGB8888);
   wr(&d, VAGX_REG_SCANOUT_SIZE, VAGX_SCANOUT_SIZE_WIDTH(w) | VAGX_SCANOUT_SIZE_HEIGHT(h));
   wr(&d, VAGX_REG_SCANOUT_PITCH, pitch);
   wr(&d, VAGX_REG_SCANOUT_FB_VA_LO, (uint32_t)fb_va);
   wr(&d, VAGX_REG_SCANOUT_FB_VA_HI, (uint32_t)(fb_va >> 32));
   wr(&d, VAGX_REG_SCANOUT_ROOT_LO, (uint32_t)root);
   wr(&d, VAGX_REG_SCANOUT_ROOT_HI, (uint32_t)(root >> 32));
   wr(&d, VAGX_REG_SCANOUT_CONTROL, VAGX_SCANOUT_CONTROL_ENABLE(1));
   wr(&d, VAGX_REG_SCANOUT_WB_PITCH, wpitch);
   wr(&d, VAGX_REG_SCANOUT_WB_VA_LO, (uint32_t)wb_va);
   wr(&d, VAGX_REG_SCANOUT_WB_VA_HI, (uint32_t)(wb_va >> 32));
   wr(&d, VAGX_REG_SCANOUT_WB_ROOT_LO, (uint32_t)root);
   wr(&d, VAGX_REG_SCANOUT_WB_ROOT_HI, (uint32_t)(root >> 32));

   static const uint32_t formats[] = {VAGX_SCANOUT_FORMAT_RGB565, VAGX_SCANOUT_FORMAT_XBGR8888};
   for (unsigned i = 0; i < 2; i++) {
      wr(&d, VAGX_REG_SCANOUT_WB_FORMAT, formats[i]);
      wr(&d, VAGX_REG_SCANOUT_WB_ARM, VAGX_SCANOUT_WB_ARM_ARM(1));
      vagx_core_vblank(d.core, 0, &so);
      CHECK(rd(&d, VAGX_REG_SCANOUT_WB_ARM) == 1, "waits for a commit");
      wr(&d, VAGX_REG_SCANOUT_COMMIT, VAGX_SCANOUT_COMMIT_PENDING(1));
      vagx_core_vblank(d.core, 0, &so);
      CHECK(rd(&d, VAGX_REG_SCANOUT_WB_ARM) == 0 &&
               rd(&d, VAGX_REG_SCANOUT_WB_STATUS) == VAGX_SCANOUT_WB_STATUS_DONE(1) &&
               rd(&d, VAGX_REG_SCANOUT_WB_COUNT) == rd(&d, VAGX_REG_SCANOUT_VBLANK_COUNT) &&
               (rd(&d, VAGX_REG_INT_STATUS) & VAGX_INT_WRITEBACK(1)),
            "writeback %u done", formats[i]);
      unsigned bad = 0;
      for (uint32_t y = 0; y < h; y++) {
         for (uint32_t x = 0; x < w; x++) {
            uint32_t p = *pa_u32(d.f, fb_pa + y * pitch + 4 * x);
            uint32_t r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;
            const uint8_t *q = pa_ptr(d.f, wb_pa + y * wpitch);
            if (formats[i] == VAGX_SCANOUT_FORMAT_RGB565)
               bad += (uint32_t)(q[2 * x] | q[2 * x + 1] << 8) != ((r >> 3) << 11 | (g >> 2) << 5 | b >> 3);
            else
               bad += *(const uint32_t *)(q + 4 * x) != (0xff000000u | b << 16 | g << 8 | r);
         }
      }
      CHECK(bad == 0, "format %u: %u pixels differ", formats[i], bad);
      wr(&d, VAGX_REG_INT_STATUS, VAGX_INT_WRITEBACK(1));
   }

   /* Blanked: black, 4th byte 255. */
   wr(&d, VAGX_REG_SCANOUT_CONTROL, VAGX_SCANOUT_CONTROL_ENABLE(1) | VAGX_SCANOUT_CONTROL_BLANK(1));
   vagx_core_vblank(d.core, 0, &so);
   wr(&d, VAGX_REG_SCANOUT_WB_FORMAT, VAGX_SCANOUT_FORMAT_XRGB8888);
   wr(&d, VAGX_REG_SCANOUT_WB_ARM, VAGX_SCANOUT_WB_ARM_ARM(1));
   wr(&d, VAGX_REG_SCANOUT_COMMIT, VAGX_SCANOUT_COMMIT_PENDING(1));
   vagx_core_vblank(d.core, 0, &so);
   CHECK(rd(&d, VAGX_REG_SCANOUT_WB_STATUS) == VAGX_SCANOUT_WB_STATUS_DONE(1) &&
            *pa_u32(d.f, wb_pa + (h - 1) * wpitch + 4 * (w - 1)) == 0xff000000u,
         "blank frame written black");

   /* A NULL target: stores dropped, no fault. */
   vm_set_null(d.f, root, null_va, VAGX_PT_LEVELS - 1);
   wr(&d, VAGX_REG_SCANOUT_WB_VA_LO, (uint32_t)null_va);
   wr(&d, VAGX_REG_SCANOUT_WB_VA_HI, (uint32_t)(null_va >> 32));
   wr(&d, VAGX_REG_SCANOUT_SIZE, VAGX_SCANOUT_SIZE_WIDTH(1) | VAGX_SCANOUT_SIZE_HEIGHT(h));
   wr(&d, VAGX_REG_SCANOUT_WB_PITCH, 4);
   wr(&d, VAGX_REG_SCANOUT_WB_ARM, VAGX_SCANOUT_WB_ARM_ARM(1));
   wr(&d, VAGX_REG_SCANOUT_COMMIT, VAGX_SCANOUT_COMMIT_PENDING(1));
   vagx_core_vblank(d.core, 0, &so);
   CHECK(rd(&d, VAGX_REG_SCANOUT_WB_STATUS) == VAGX_SCANOUT_WB_STATUS_DONE(1) &&
            !(rd(&d, VAGX_REG_INT_STATUS) & VAGX_INT_MMU_FAULT(1)),
         "NULL target: done, no fault");

   /* A pitch made too small after the arm: INVALID at the vblank, seen by
    * the host as a REG_ERROR event; ERROR_STATUS does not latch it. */
   const unsigned errs = d.f->events[VAGX_CORE_EVENT_REG_ERROR];
   wr(&d, VAGX_REG_SCANOUT_SIZE, VAGX_SCANOUT_SIZE_WIDTH(w) | VAGX_SCANOUT_SIZE_HEIGHT(h));
   wr(&d, VAGX_REG_SCANOUT_WB_VA_LO, (uint32_t)wb_va);
   wr(&d, VAGX_REG_SCANOUT_WB_VA_HI, (uint32_t)(wb_va >> 32));
   wr(&d, VAGX_REG_SCANOUT_WB_ARM, VAGX_SCANOUT_WB_ARM_ARM(1));
   wr(&d, VAGX_REG_SCANOUT_WB_PITCH, 4 * w - 4);
   wr(&d, VAGX_REG_SCANOUT_COMMIT, VAGX_SCANOUT_COMMIT_PENDING(1));
   vagx_core_vblank(d.core, 0, &so);
   const struct vagx_core_event *e = &d.f->last[VAGX_CORE_EVENT_REG_ERROR];
   CHECK(rd(&d, VAGX_REG_SCANOUT_WB_STATUS) == VAGX_SCANOUT_WB_STATUS_INVALID(1) &&
            d.f->events[VAGX_CORE_EVENT_REG_ERROR] == errs + 1 &&
            e->code == VAGX_REG_ERROR_BAD_SCANOUT && e->offset == VAGX_REG_SCANOUT_WB_FORMAT &&
            !VAGX_ERROR_STATUS_VALID_GET(rd(&d, VAGX_REG_ERROR_STATUS)),
         "pitch too small: INVALID, one REG_ERROR event, no ERROR_STATUS");
   tdev_fini(&d);
}
