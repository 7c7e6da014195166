/* SPDX-License-Identifier: MIT */
/*
 * A scanout head (each head of contract 1.9 alike): checking and applying the committed shadow registers
 * (framebuffer, overlay and cursor layers), composing a frame's rows, the
 * vblank (count, time stamp, CRC and writeback of the composed frame,
 * VBLANK interrupt) and the display's reads of the framebuffer through the
 * scanout's page tables.
 */
#include "core_priv.h"

#define OVL(r) (VAGX_SCANOUT_OVERLAY_##r / 4)

/* An enabled overlay: a scanout format, a size within the head's limits,
 * pitch and VA as the framebuffer's; its position is free (clipped at
 * compose). */
static bool overlay_config_ok(const uint32_t *regs)
{
   uint32_t control = regs[OVL(CONTROL)];
   if (!VAGX_SCANOUT_OVERLAY_CONTROL_ENABLE_GET(control))
      return true;
   uint32_t fmt = VAGX_SCANOUT_OVERLAY_CONTROL_FORMAT_GET(control);
   uint32_t w = VAGX_SCANOUT_OVERLAY_SIZE_WIDTH_GET(regs[OVL(SIZE)]);
   uint32_t h = VAGX_SCANOUT_OVERLAY_SIZE_HEIGHT_GET(regs[OVL(SIZE)]);
   uint32_t pitch = regs[OVL(PITCH)];
   return vagx_scanout_format_is_valid(fmt) && w >= 1 && h >= 1 && w <= VAGX_SCANOUT_MAX_WIDTH &&
          h <= VAGX_SCANOUT_MAX_HEIGHT && pitch % 4 == 0 &&
          (uint64_t)pitch >= (uint64_t)w * vagx_scanout_format_bpp((enum vagx_scanout_format)fmt) &&
          regs[OVL(VA_LO)] % 4 == 0;
}

bool core_scanout_config_ok(const struct core_head *hd)
{
   uint32_t fmt = VAGX_SCANOUT_FORMAT_FORMAT_GET(hd->format);
   uint32_t w = VAGX_SCANOUT_SIZE_WIDTH_GET(hd->size);
   uint32_t h = VAGX_SCANOUT_SIZE_HEIGHT_GET(hd->size);
   if (!vagx_scanout_format_is_valid(fmt) || w < 1 || h < 1 || w > VAGX_SCANOUT_MAX_WIDTH ||
       h > VAGX_SCANOUT_MAX_HEIGHT)
      return false;
   uint32_t pitch = hd->pitch;
   if (pitch % 4 != 0 || (uint64_t)pitch < (uint64_t)w * vagx_scanout_format_bpp((enum vagx_scanout_format)fmt) ||
       hd->va_lo % 4 != 0)
      return false;
   for (unsigned n = 0; n < VAGX_SCANOUT_OVERLAYS; n++)
      if (!overlay_config_ok(hd->overlay[n]))
         return false;
   if (!VAGX_SCANOUT_CURSOR_CONTROL_ENABLE_GET(hd->cursor_control))
      return true;
   /* The cursor layer: ARGB8888, its position is free (clipped at compose). */
   uint32_t cw = VAGX_SCANOUT_CURSOR_SIZE_WIDTH_GET(hd->cursor_size);
   uint32_t ch = VAGX_SCANOUT_CURSOR_SIZE_HEIGHT_GET(hd->cursor_size);
   uint32_t cpitch = hd->cursor_pitch;
   return cw >= 1 && ch >= 1 && cw <= VAGX_SCANOUT_CURSOR_MAX_WIDTH && ch <= VAGX_SCANOUT_CURSOR_MAX_HEIGHT &&
          cpitch % 4 == 0 && (uint64_t)cpitch >= (uint64_t)cw * 4 && hd->cursor_va_lo % 4 == 0;
}

void core_scanout_apply_locked(struct core_head *hd)
{
   struct vagx_core_scanout *a = &hd->active;
   a->format = VAGX_SCANOUT_FORMAT_FORMAT_GET(hd->format);
   a->width = VAGX_SCANOUT_SIZE_WIDTH_GET(hd->size);
   a->height = VAGX_SCANOUT_SIZE_HEIGHT_GET(hd->size);
   a->pitch = hd->pitch;
   a->fb_va = ((uint64_t)hd->va_hi << 32) | hd->va_lo;
   a->root = ((uint64_t)hd->root_hi << 32) |
             (hd->root_lo & ~(uint32_t)(VAGX_PAGE_SIZE - 1));
   a->cursor_enable = VAGX_SCANOUT_CURSOR_CONTROL_ENABLE_GET(hd->cursor_control);
   a->cursor_x = (int16_t)VAGX_SCANOUT_CURSOR_POS_X_GET(hd->cursor_pos);
   a->cursor_y = (int16_t)VAGX_SCANOUT_CURSOR_POS_Y_GET(hd->cursor_pos);
   a->cursor_width = VAGX_SCANOUT_CURSOR_SIZE_WIDTH_GET(hd->cursor_size);
   a->cursor_height = VAGX_SCANOUT_CURSOR_SIZE_HEIGHT_GET(hd->cursor_size);
   a->cursor_pitch = hd->cursor_pitch;
   a->cursor_va = ((uint64_t)hd->cursor_va_hi << 32) | hd->cursor_va_lo;
   for (unsigned n = 0; n < VAGX_SCANOUT_OVERLAYS; n++) {
      const uint32_t *regs = hd->overlay[n];
      struct vagx_core_overlay *o = &a->overlay[n];
      uint32_t control = regs[OVL(CONTROL)];
      o->enable = VAGX_SCANOUT_OVERLAY_CONTROL_ENABLE_GET(control);
      o->format = VAGX_SCANOUT_OVERLAY_CONTROL_FORMAT_GET(control);
      o->zpos = VAGX_SCANOUT_OVERLAY_CONTROL_ZPOS_GET(control);
      o->alpha = VAGX_SCANOUT_OVERLAY_CONTROL_ALPHA_GET(control);
      o->x = (int16_t)VAGX_SCANOUT_OVERLAY_POS_X_GET(regs[OVL(POS)]);
      o->y = (int16_t)VAGX_SCANOUT_OVERLAY_POS_Y_GET(regs[OVL(POS)]);
      o->width = VAGX_SCANOUT_OVERLAY_SIZE_WIDTH_GET(regs[OVL(SIZE)]);
      o->height = VAGX_SCANOUT_OVERLAY_SIZE_HEIGHT_GET(regs[OVL(SIZE)]);
      o->pitch = regs[OVL(PITCH)];
      o->va = ((uint64_t)regs[OVL(VA_HI)] << 32) | regs[OVL(VA_LO)];
      /* Insertion by (zpos, index): a stable sort of the indices. */
      unsigned k = n;
      for (; k > 0 && a->overlay[a->overlay_order[k - 1]].zpos > o->zpos; k--)
         a->overlay_order[k] = a->overlay_order[k - 1];
      a->overlay_order[k] = (uint8_t)n;
   }
   hd->commit_pending = false;
}

static inline uint32_t ld32(const uint8_t *p)
{
   return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Slicing-by-4 tables: t[k][b] is the CRC of byte b followed by k zero bytes. */
static uint32_t crc32_table[4][256];
static pthread_once_t crc32_once = PTHREAD_ONCE_INIT;

static void crc32_init(void)
{
   for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++)
         c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      crc32_table[0][i] = c;
   }
   for (uint32_t i = 0; i < 256; i++)
      for (int k = 1; k < 4; k++)
         crc32_table[k][i] = crc32_table[0][crc32_table[k - 1][i] & 0xff] ^ (crc32_table[k - 1][i] >> 8);
}

uint32_t vagx_core_crc32(uint32_t crc, const void *buf, size_t n)
{
   const uint8_t *p = buf;
   pthread_once(&crc32_once, crc32_init);
   crc = ~crc;
   for (; n >= 4; n -= 4, p += 4) {
      crc ^= ld32(p);
      crc = crc32_table[3][crc & 0xff] ^ crc32_table[2][(crc >> 8) & 0xff] ^
            crc32_table[1][(crc >> 16) & 0xff] ^ crc32_table[0][crc >> 24];
   }
   while (n--)
      crc = crc32_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
   return ~crc;
}

/* Pixel x of a row in `format` as 0xAARRGGBB, 8 bits per channel (RGB565
 * widened by bit replication); A is 255 for the formats without alpha. */
static inline uint32_t load_pixel(const uint8_t *src, uint32_t format, uint32_t x)
{
   uint32_t v, r, g, b;
   switch (format) {
   case VAGX_SCANOUT_FORMAT_XRGB8888:
      return ld32(src + 4 * x) | 0xff000000u;
   case VAGX_SCANOUT_FORMAT_ARGB8888:
      return ld32(src + 4 * x);
   case VAGX_SCANOUT_FORMAT_XBGR8888:
   case VAGX_SCANOUT_FORMAT_ABGR8888:
      v = ld32(src + 4 * x);
      v = (v & 0xff00ff00u) | ((v & 0xff) << 16) | ((v >> 16) & 0xff);
      return format == VAGX_SCANOUT_FORMAT_XBGR8888 ? v | 0xff000000u : v;
   case VAGX_SCANOUT_FORMAT_RGB565:
      v = (uint32_t)src[2 * x] | (uint32_t)src[2 * x + 1] << 8;
      r = (v >> 11) & 0x1f;
      g = (v >> 5) & 0x3f;
      b = v & 0x1f;
      return 0xff000000u | (((r << 3) | (r >> 2)) << 16) | (((g << 2) | (g >> 4)) << 8) |
             ((b << 3) | (b >> 2));
   default:
      return 0;
   }
}

/* The framebuffer's row: its alpha, if any, is ignored. */
static void convert_row(uint32_t *dst, const uint8_t *src, uint32_t format, uint32_t width)
{
   for (uint32_t x = 0; x < width; x++)
      dst[x] = load_pixel(src, format, x) & 0xffffff;
}

/* x * 255 / 255^2 rounded, exact for x <= 255 * 255. */
static inline uint32_t div255(uint32_t x)
{
   x += 128;
   return (x + (x >> 8)) >> 8;
}

/* Premultiplied "over" with plane alpha p (registers.md, overlay layers):
 * c' = c * p / 255, a' = a * p / 255, out = c' + d * (255 - a') / 255,
 * each rounded, clamped.  The cursor is p = 255. */
static uint32_t blend(uint32_t src, uint32_t dst, uint32_t p)
{
   uint32_t ia = 255 - div255((src >> 24) * p), out = 0;
   for (int sh = 0; sh < 24; sh += 8) {
      uint32_t c = div255(((src >> sh) & 0xff) * p) + div255(((dst >> sh) & 0xff) * ia);
      out |= (c > 255 ? 255 : c) << sh;
   }
   return out;
}

/* The columns [*x0, *x1) of a layer of width lw at column lx that fall on a
 * row of width w; false if none.  64-bit: no position overflows. */
static bool layer_span(int32_t lx, uint32_t lw, uint32_t w, int64_t *x0, int64_t *x1)
{
   *x0 = lx < 0 ? -(int64_t)lx : 0;
   *x1 = (int64_t)w - lx;
   if (*x1 > lw)
      *x1 = lw;
   return *x0 < *x1;
}

/* Blends the part of overlay o on screen row y into dst. */
static int compose_overlay(struct vagx_core *core, unsigned head, const struct vagx_core_overlay *o,
                           uint32_t y, uint32_t w, uint32_t *dst, uint8_t *scratch)
{
   int64_t oy = (int64_t)y - o->y, x0, x1;
   if (!o->enable || o->alpha == 0 || !vagx_scanout_format_is_valid(o->format) ||
       o->width > VAGX_SCANOUT_MAX_WIDTH || oy < 0 || oy >= o->height ||
       !layer_span(o->x, o->width, w, &x0, &x1))
      return 0;
   uint32_t bpp = vagx_scanout_format_bpp((enum vagx_scanout_format)o->format);
   if (vagx_core_scanout_read(core, head, o->va + (uint64_t)oy * o->pitch + (uint64_t)x0 * bpp, scratch,
                              (size_t)(x1 - x0) * bpp))
      return -1;
   for (int64_t ox = x0; ox < x1; ox++) {
      uint32_t *d = &dst[o->x + ox];
      *d = blend(load_pixel(scratch, o->format, (uint32_t)(ox - x0)), *d, o->alpha);
   }
   return 0;
}

int vagx_core_scanout_compose_row(struct vagx_core *core, unsigned head,
                                  const struct vagx_core_scanout *a, uint32_t y, uint32_t *dst,
                                  uint8_t *scratch)
{
   uint32_t w = a->width;
   if (w > VAGX_SCANOUT_MAX_WIDTH || !vagx_scanout_format_is_valid(a->format))
      return -1;
   uint32_t bpp = vagx_scanout_format_bpp((enum vagx_scanout_format)a->format);
   if (vagx_core_scanout_read(core, head, a->fb_va + (uint64_t)y * a->pitch, scratch, (size_t)w * bpp))
      return -1;
   convert_row(dst, scratch, a->format, w);

   for (unsigned n = 0; n < VAGX_SCANOUT_OVERLAYS; n++) {
      uint32_t i = a->overlay_order[n];
      if (i < VAGX_SCANOUT_OVERLAYS && compose_overlay(core, head, &a->overlay[i], y, w, dst, scratch))
         return -1;
   }

   /* The cursor's columns [x0, x1) and its row cy that fall on this row. */
   int64_t cy = (int64_t)y - a->cursor_y, x0, x1;
   if (!a->cursor_enable || a->cursor_width > VAGX_SCANOUT_CURSOR_MAX_WIDTH ||
       a->cursor_height > VAGX_SCANOUT_CURSOR_MAX_HEIGHT || cy < 0 || cy >= a->cursor_height ||
       !layer_span(a->cursor_x, a->cursor_width, w, &x0, &x1))
      return 0;
   if (vagx_core_scanout_read(core, head, a->cursor_va + (uint64_t)cy * a->cursor_pitch + (uint64_t)x0 * 4, scratch,
                              (size_t)(x1 - x0) * 4))
      return -1;
   for (int64_t cx = x0; cx < x1; cx++) {
      uint32_t *d = &dst[a->cursor_x + cx];
      *d = blend(ld32(scratch + 4 * (cx - x0)), *d, 255);
   }
   return 0;
}

/* Composes the frame `a` shows once, for its CRC (registers.md, Frame CRC:
 * CRC-32 over its rows as XRGB8888 little-endian bytes) and its writeback
 * (wb, if any: registers.md, Writeback).  Black if it is blanked or a read
 * faults; the rows already written back are then written again, black. */
static uint32_t frame_pass(struct vagx_core *core, unsigned head, const struct vagx_core_scanout *a,
                           struct core_wb *wb)
{
   uint32_t *row = core->head_buf[head].crc_row;
   uint32_t w = a->width, h = a->height, crc = 0;
   bool black = a->blank || w < 1 || h < 1 || w > VAGX_SCANOUT_MAX_WIDTH || h > VAGX_SCANOUT_MAX_HEIGHT;
   for (uint32_t y = 0; !black && y < h; y++) {
      if (vagx_core_scanout_compose_row(core, head, a, y, row, core->head_buf[head].crc_scratch)) {
         black = true;
         break;
      }
      if (wb)
         core_wb_store_row(core, head, wb, y, row, w);
      for (uint32_t x = 0; x < w; x++) {
         uint8_t *b = (uint8_t *)&row[x];
         uint32_t v = row[x];
         b[0] = v & 0xff;
         b[1] = (v >> 8) & 0xff;
         b[2] = (v >> 16) & 0xff;
         b[3] = 0;
      }
      crc = vagx_core_crc32(crc, row, (size_t)w * 4);
   }
   if (!black)
      return crc;
   memset(row, 0, sizeof(core->head_buf[head].crc_row));
   w = w > VAGX_SCANOUT_MAX_WIDTH ? VAGX_SCANOUT_MAX_WIDTH : w;
   h = h > VAGX_SCANOUT_MAX_HEIGHT ? VAGX_SCANOUT_MAX_HEIGHT : h;
   crc = 0;
   for (uint32_t y = 0; y < h; y++) {
      if (wb)
         core_wb_store_row(core, head, wb, y, row, w);
      crc = vagx_core_crc32(crc, row, (size_t)w * 4);
   }
   return crc;
}

unsigned vagx_core_num_heads(const struct vagx_core *core)
{
   return core->nheads;
}

void vagx_core_set_connected(struct vagx_core *core, unsigned head, bool connected)
{
   if (head >= core->nheads)
      return;
   pthread_mutex_lock(&core->lock);
   if (core->head_connected[head] != connected) {
      core->head_connected[head] = connected;
      core_int_set(core, VAGX_INT_HOTPLUG(1));
   }
   pthread_mutex_unlock(&core->lock);
   core_flush_irqs(core);
}

void vagx_core_vblank(struct vagx_core *core, unsigned head, struct vagx_core_scanout *active)
{
   vagx_core_vblank_late(core, head, active, 0, 1);
}

void vagx_core_vblank_late(struct vagx_core *core, unsigned head, struct vagx_core_scanout *active,
                           uint64_t late_ns, uint32_t count)
{
   if (head >= core->nheads)
      return;
   struct core_head *hd = &core->head[head];
   const uint64_t ns_per_s = 1000000000ull;
   uint64_t ts = core_timestamp(core); /* host op: outside the lock */
   uint64_t late = (uint64_t)((unsigned __int128)late_ns * VAGX_REG_TIMESTAMP_FREQ_RESET / ns_per_s);
   ts = late < ts ? ts - late : 1; /* 0 means "no vblank yet" */
   pthread_mutex_lock(&core->lock);
   if (hd->commit_pending)
      core_scanout_apply_locked(hd);
   hd->active.enable = VAGX_SCANOUT_CONTROL_ENABLE_GET(hd->control);
   hd->active.blank = VAGX_SCANOUT_CONTROL_BLANK_GET(hd->control);
   struct vagx_core_scanout a = hd->active;
   bool crc = a.enable && VAGX_SCANOUT_CRC_CONTROL_ENABLE_GET(hd->crc_control);
   struct core_wb wb;
   bool writeback = core_wb_take_locked(core, head, &a, &wb);
   uint32_t vblank = hd->vblank_count + count;
   if (a.enable) {
      /* Count and time stamp change together under the lock: a reader of
       * VBLANK_COUNT then VBLANK_TS sees the time of that vblank or a later. */
      hd->vblank_count = vblank;
      hd->vblank_ts = ts;
      if (!crc && !writeback)
         core_int_set(core, core_head_int(head, CORE_HEAD_VBLANK));
   }
   if (active)
      *active = a;
   pthread_mutex_unlock(&core->lock);
   if (crc || writeback) {
      /* Reads and writes guest memory: outside the lock.  The CRC and the
       * written frame are there before the VBLANK interrupt of the frame. */
      uint32_t value = frame_pass(core, head, &a, writeback ? &wb : NULL);
      if (writeback)
         core_wb_finish(core, head, &wb, vblank);
      pthread_mutex_lock(&core->lock);
      if (crc) {
         hd->crc_value = value;
         hd->crc_count = vblank;
      }
      core_int_set(core, core_head_int(head, CORE_HEAD_VBLANK));
      pthread_mutex_unlock(&core->lock);
   }
   core_flush_irqs(core);
}

int vagx_core_scanout_read(struct vagx_core *core, unsigned head, uint64_t va, void *buf, size_t len)
{
   if (head >= core->nheads)
      return -1;
   struct core_head *hd = &core->head[head];
   pthread_mutex_lock(&core->lock);
   uint64_t root = hd->active.root;
   pthread_mutex_unlock(&core->lock);
   /* Walk without TLB: the display runs on its own thread. */
   struct core_fault f;
   if (!core_span_copy(&core->ops, core->opaque, root, va, buf, NULL, len, &f)) {
      f.unit = VAGX_UNIT_SCANOUT;
      core_latch_fault(core, &f, VAGX_FAULT_QUEUE_SCANOUT);
      pthread_mutex_lock(&core->lock);
      hd->status |= VAGX_SCANOUT_STATUS_FAULT(1);
      core_int_set(core, core_head_int(head, CORE_HEAD_FAULT));
      pthread_mutex_unlock(&core->lock);
      core_flush_irqs(core);
      return -1;
   }
   pthread_mutex_lock(&core->lock);
   hd->status &= ~VAGX_SCANOUT_STATUS_FAULT__MASK;
   pthread_mutex_unlock(&core->lock);
   return 0;
}
