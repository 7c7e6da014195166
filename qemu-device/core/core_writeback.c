/* SPDX-License-Identifier: MIT */
/*
 * A head's scanout writeback (contract 1.7, registers.md "Writeback"): arming
 * and its checks, the latch by SCANOUT_COMMIT, the abort on disable, and
 * the stores of the composed rows through the MMU with SCANOUT_WB_ROOT.
 * core_scanout.c composes the frame and calls core_wb_store_row() per row.
 */
#include "core_priv.h"

/* SCANOUT_WB_ARM.ARM = 1 (MMIO, lock held): checked at once, so that a
 * driver learns of a bad target without waiting for a vblank. */
void core_wb_arm_locked(struct vagx_core *core, unsigned h, uint32_t offset)
{
   struct core_head *hd = &core->head[h];
   uint32_t fmt = VAGX_SCANOUT_WB_FORMAT_FORMAT_GET(hd->wb_format);
   if (hd->wb_state != CORE_WB_IDLE || !vagx_scanout_format_is_valid(fmt) ||
       hd->wb_pitch % 4 != 0 || hd->wb_va_lo % 4 != 0) {
      hd->wb_status |= VAGX_SCANOUT_WB_STATUS_INVALID(1);
      core_error_latch(core, VAGX_REG_ERROR_BAD_SCANOUT, offset);
      return;
   }
   hd->wb_status = 0;
   hd->wb_state = CORE_WB_ARMED;
}

/* An accepted SCANOUT_COMMIT latches an armed writeback: it is done at the
 * first vblank (ENABLE = 1) showing that commit. */
void core_wb_commit_locked(struct vagx_core *core, unsigned h)
{
   struct core_head *hd = &core->head[h];
   if (hd->wb_state == CORE_WB_ARMED)
      hd->wb_state = CORE_WB_LATCHED;
}

/* Ends the armed writeback with `status` (lock held): ARM reads 0 and
 * INT WRITEBACK latches. */
void core_wb_end_locked(struct vagx_core *core, unsigned h, uint32_t status)
{
   struct core_head *hd = &core->head[h];
   hd->wb_state = CORE_WB_IDLE;
   hd->wb_status = status;
   core_int_set(core, core_head_int(h, CORE_HEAD_WRITEBACK));
}

/* SCANOUT_CONTROL.ENABLE = 0 (lock held): no vblank will come.  A
 * writeback already running (its vblank happened) completes. */
void core_wb_abort_locked(struct vagx_core *core, unsigned h)
{
   struct core_head *hd = &core->head[h];
   if (hd->wb_state == CORE_WB_ARMED || hd->wb_state == CORE_WB_LATCHED)
      core_wb_end_locked(core, h, VAGX_SCANOUT_WB_STATUS_ABORTED(1));
}

/* At a vblank (lock held): the writeback this frame does, if any.  False
 * if none; an impossible pitch ends it INVALID here. */
bool core_wb_take_locked(struct vagx_core *core, unsigned h, const struct vagx_core_scanout *a,
                         struct core_wb *wb)
{
   struct core_head *hd = &core->head[h];
   if (!a->enable || hd->wb_state != CORE_WB_LATCHED)
      return false;
   wb->format = VAGX_SCANOUT_WB_FORMAT_FORMAT_GET(hd->wb_format);
   wb->pitch = hd->wb_pitch;
   wb->va = ((uint64_t)hd->wb_va_hi << 32) | hd->wb_va_lo;
   wb->root = ((uint64_t)hd->wb_root_hi << 32) |
              (hd->wb_root_lo & ~(uint32_t)(VAGX_PAGE_SIZE - 1));
   wb->faulted = false;
   /* Registers may have changed since the arm: check the format again. */
   if (!vagx_scanout_format_is_valid(wb->format) ||
       (uint64_t)wb->pitch < (uint64_t)a->width * vagx_scanout_format_bpp((enum vagx_scanout_format)wb->format)) {
      /* a guest error the host's trace shows (at the head's register);
       * ERROR_STATUS stays as the contract says (only
       * SCANOUT_WB_STATUS.INVALID reports it) */
      const struct vagx_core_event ev = {
         .kind = VAGX_CORE_EVENT_REG_ERROR, .code = VAGX_REG_ERROR_BAD_SCANOUT,
         .offset = VAGX_REG_SCANOUT_WB_FORMAT + h * VAGX_SCANOUT_HEAD_STRIDE,
      };
      core_event(core, &ev);
      core_wb_end_locked(core, h, VAGX_SCANOUT_WB_STATUS_INVALID(1));
      return false;
   }
   hd->wb_state = CORE_WB_RUNNING;
   return true;
}

/* 0x00RRGGBB pixels to `format` (registers.md: the 4th byte is 255,
 * RGB565 keeps the top bits). */
static size_t convert_row(uint8_t *dst, const uint32_t *src, uint32_t format, uint32_t w)
{
   for (uint32_t x = 0; x < w; x++) {
      uint32_t v = src[x], r = (v >> 16) & 0xff, g = (v >> 8) & 0xff, b = v & 0xff;
      if (format == VAGX_SCANOUT_FORMAT_RGB565) {
         uint32_t p = (r >> 3) << 11 | (g >> 2) << 5 | b >> 3;
         dst[2 * x] = p & 0xff;
         dst[2 * x + 1] = p >> 8;
         continue;
      }
      bool bgr = format == VAGX_SCANOUT_FORMAT_XBGR8888 || format == VAGX_SCANOUT_FORMAT_ABGR8888;
      dst[4 * x] = (uint8_t)(bgr ? r : b);
      dst[4 * x + 1] = (uint8_t)g;
      dst[4 * x + 2] = (uint8_t)(bgr ? b : r);
      dst[4 * x + 3] = 0xff;
   }
   return (size_t)w * vagx_scanout_format_bpp((enum vagx_scanout_format)format);
}

/* Writes len bytes at va through wb->root; on a fault it latches it
 * (ACCESS WRITE, UNIT SCANOUT) and returns false. */
static bool wb_write(struct vagx_core *core, const struct core_wb *wb, uint64_t va, const uint8_t *buf,
                     size_t len)
{
   struct core_fault f;
   if (core_span_copy(&core->ops, core->opaque, wb->root, va, NULL, buf, len, &f))
      return true;
   f.unit = VAGX_UNIT_SCANOUT;
   core_latch_fault(core, &f, VAGX_FAULT_QUEUE_SCANOUT);
   return false;
}

void core_wb_store_row(struct vagx_core *core, unsigned h, struct core_wb *wb, uint32_t y,
                       const uint32_t *row, uint32_t w)
{
   uint8_t *buf = core->head_buf[h].wb_row;
   if (wb->faulted || w > VAGX_SCANOUT_MAX_WIDTH)
      return;
   size_t n = convert_row(buf, row, wb->format, w);
   if (!wb_write(core, wb, wb->va + (uint64_t)y * wb->pitch, buf, n))
      wb->faulted = true;
}

void core_wb_finish(struct vagx_core *core, unsigned h, const struct core_wb *wb, uint32_t vblank)
{
   struct core_head *hd = &core->head[h];
   pthread_mutex_lock(&core->lock);
   /* A reset or a disable may have ended it meanwhile. */
   if (hd->wb_state == CORE_WB_RUNNING) {
      hd->wb_count = vblank;
      core_wb_end_locked(core, h, wb->faulted ? VAGX_SCANOUT_WB_STATUS_FAULT(1) : VAGX_SCANOUT_WB_STATUS_DONE(1));
   }
   pthread_mutex_unlock(&core->lock);
}
