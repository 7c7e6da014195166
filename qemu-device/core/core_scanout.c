/* SPDX-License-Identifier: MIT */
/*
 * The scanout: checking and applying the committed shadow registers, the
 * vblank (count, time stamp, VBLANK interrupt) and the display's reads of
 * the framebuffer through the scanout's page tables.
 */
#include "core_priv.h"

bool core_scanout_config_ok(struct vagx_core *core)
{
   uint32_t fmt = VAGX_SCANOUT_FORMAT_FORMAT_GET(core->scanout.format);
   uint32_t w = VAGX_SCANOUT_SIZE_WIDTH_GET(core->scanout.size);
   uint32_t h = VAGX_SCANOUT_SIZE_HEIGHT_GET(core->scanout.size);
   if (!vagx_scanout_format_is_valid(fmt) || w < 1 || h < 1 || w > VAGX_SCANOUT_MAX_WIDTH ||
       h > VAGX_SCANOUT_MAX_HEIGHT)
      return false;
   uint32_t pitch = core->scanout.pitch;
   return pitch % 4 == 0 && (uint64_t)pitch >= (uint64_t)w * vagx_scanout_format_bpp((enum vagx_scanout_format)fmt) &&
          core->scanout.va_lo % 4 == 0;
}

void core_scanout_apply_locked(struct vagx_core *core)
{
   struct vagx_core_scanout *a = &core->scanout.active;
   a->format = VAGX_SCANOUT_FORMAT_FORMAT_GET(core->scanout.format);
   a->width = VAGX_SCANOUT_SIZE_WIDTH_GET(core->scanout.size);
   a->height = VAGX_SCANOUT_SIZE_HEIGHT_GET(core->scanout.size);
   a->pitch = core->scanout.pitch;
   a->fb_va = ((uint64_t)core->scanout.va_hi << 32) | core->scanout.va_lo;
   a->root = ((uint64_t)core->scanout.root_hi << 32) |
             (core->scanout.root_lo & ~(uint32_t)(VAGX_PAGE_SIZE - 1));
   core->scanout.commit_pending = false;
}

void vagx_core_vblank(struct vagx_core *core, struct vagx_core_scanout *active)
{
   vagx_core_vblank_late(core, active, 0, 1);
}

void vagx_core_vblank_late(struct vagx_core *core, struct vagx_core_scanout *active,
                           uint64_t late_ns, uint32_t count)
{
   const uint64_t ns_per_s = 1000000000ull;
   uint64_t ts = core_timestamp(core); /* host op: outside the lock */
   uint64_t late = (uint64_t)((unsigned __int128)late_ns * VAGX_REG_TIMESTAMP_FREQ_RESET / ns_per_s);
   ts = late < ts ? ts - late : 1; /* 0 means "no vblank yet" */
   pthread_mutex_lock(&core->lock);
   if (core->scanout.commit_pending)
      core_scanout_apply_locked(core);
   core->scanout.active.enable = VAGX_SCANOUT_CONTROL_ENABLE_GET(core->scanout.control);
   core->scanout.active.blank = VAGX_SCANOUT_CONTROL_BLANK_GET(core->scanout.control);
   if (core->scanout.active.enable) {
      /* Count and time stamp change together under the lock: a reader of
       * VBLANK_COUNT then VBLANK_TS sees the time of that vblank or a later. */
      core->scanout.vblank_count += count;
      core->scanout.vblank_ts = ts;
      core_int_set(core, VAGX_INT_VBLANK(1));
   }
   if (active)
      *active = core->scanout.active;
   pthread_mutex_unlock(&core->lock);
   core_flush_irqs(core);
}

int vagx_core_scanout_read(struct vagx_core *core, uint64_t va, void *buf, size_t len)
{
   pthread_mutex_lock(&core->lock);
   uint64_t root = core->scanout.active.root;
   pthread_mutex_unlock(&core->lock);
   /* Walk without TLB: the display runs on its own thread. */
   struct core_fault f;
   uint8_t *out = buf;
   while (len) {
      struct core_xlate x;
      uint64_t off = va % VAGX_PAGE_SIZE;
      size_t n = VAGX_PAGE_SIZE - off;
      if (n > len)
         n = len;
      bool ok = core_walk(core->ops.read, core->opaque, root, va, VAGX_FAULT_ACCESS_READ, &x, &f);
      if (ok && x.null)
         memset(out, 0, n);
      else if (ok && core->ops.read(core->opaque, x.pa + off, out, n)) {
         f.va = va;
         f.root = root;
         f.access = VAGX_FAULT_ACCESS_READ;
         f.reason = VAGX_FAULT_REASON_BUS_ERROR;
         f.level = VAGX_PT_LEVELS - 1;
         ok = false;
      }
      if (!ok) {
         f.unit = VAGX_UNIT_SCANOUT;
         core_latch_fault(core, &f, VAGX_FAULT_QUEUE_SCANOUT);
         pthread_mutex_lock(&core->lock);
         core->scanout.status |= VAGX_SCANOUT_STATUS_FAULT(1);
         core_int_set(core, VAGX_INT_SCANOUT_FAULT(1));
         pthread_mutex_unlock(&core->lock);
         core_flush_irqs(core);
         return -1;
      }
      out += n;
      va += n;
      len -= n;
   }
   pthread_mutex_lock(&core->lock);
   core->scanout.status &= ~VAGX_SCANOUT_STATUS_FAULT__MASK;
   pthread_mutex_unlock(&core->lock);
   return 0;
}
