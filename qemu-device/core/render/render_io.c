/* SPDX-License-Identifier: MIT */
/* vagx renderer: translation per span, addressing per (level, layer), and
 * depth/stencil conversion per format (see render_io.h). */
#include "render_io.h"

uint8_t *r_span_miss(struct rjob *j, unsigned worker, struct rspan *s, uint64_t va, uint32_t size,
                     unsigned access, enum vagx_unit unit)
{
   uint64_t span = 0;
   const unsigned probe = unit == VAGX_UNIT_NONE ? VAGX_USC_ACC_PROBE : 0;
   uint8_t *p = j->env->mem->translate(j->dev->w[worker].mem_ctx, va, size, access | probe, &span);
   if (!p || span < size) {
      if (unit != VAGX_UNIT_NONE)
         r_fault(j, worker, unit, va, access);
      r_span_reset(s);
      return NULL;
   }
   s->va = va;
   s->end = va + span < va ? UINT64_MAX : va + span;
   s->host = p;
   s->access = access;
   return p;
}

#define SPREAD1(x)                                                                   \
   (((x) & 1) | ((x) & 2) << 1 | ((x) & 4) << 2 | ((x) & 8) << 3 | ((x) & 16) << 4 |  \
    ((x) & 32) << 5 | ((x) & 64) << 6 | ((x) & 128) << 7)
#define SPREAD4(b) SPREAD1(b), SPREAD1((b) + 1), SPREAD1((b) + 2), SPREAD1((b) + 3)
#define SPREAD16(b) SPREAD4(b), SPREAD4((b) + 4), SPREAD4((b) + 8), SPREAD4((b) + 12)
#define SPREAD64(b) SPREAD16(b), SPREAD16((b) + 16), SPREAD16((b) + 32), SPREAD16((b) + 48)
const uint16_t r_spread[R_SPREAD_N] = {SPREAD64(0), SPREAD64(64), SPREAD64(128), SPREAD64(192)};

void r_addr_init(struct raddr *a, const struct vagx_layout *l, unsigned level, unsigned layer)
{
   const struct vagx_layout_level *lv = &l->level[level];
   memset(a, 0, sizeof(*a));
   a->E = l->element_size_B;
   a->base = (uint64_t)layer * l->layer_stride_B + lv->offset_B;
   a->linear = l->tiling == VAGX_TILING_LINEAR;
   if (a->linear) {
      a->row_B = lv->stride_B;
      return;
   }
   const uint32_t tw = lv->tilesize_el.width_el, th = lv->tilesize_el.height_el;
   a->tw_log2 = tw ? 31u - (uint32_t)__builtin_clz(tw) : 0;
   a->th_log2 = th ? 31u - (uint32_t)__builtin_clz(th) : 0;
   a->tw_mask = tw - 1;
   a->th_mask = th - 1;
   a->spread_table = tw <= R_SPREAD_N && th <= R_SPREAD_N;
   a->tile_B = (uint64_t)tw * th * a->E;
   a->row_B = (uint64_t)lv->tiles_x * a->tile_B;
}

/* The generic conversion: unpack the sample, replace what is loaded or
 * stored, pack it again (what zs_io always did). */
static void zs_px_generic(enum vagx_format f, uint8_t *p, bool store, bool dl, bool sl,
                          float *depth, uint8_t *stencil)
{
   const bool has_d = vagx_format_depth(f), has_s = vagx_format_stencil(f);
   uint32_t v[4] = {0, 0, 0, 0};
   r_fmt_unpack(f, p, v);
   if (f == VAGX_FORMAT_S8_UINT) {
      v[1] = v[0];
      v[0] = 0;
   }
   if (!store) {
      if (dl && has_d)
         *depth = r_f(v[0]);
      if (sl && has_s)
         *stencil = (uint8_t)v[1];
      return;
   }
   if (dl && has_d)
      v[0] = r_u(*depth);
   if (sl && has_s)
      v[1] = *stencil;
   if (f == VAGX_FORMAT_S8_UINT)
      v[0] = v[1];
   r_fmt_pack(f, v, p, false);
}

double r_zs_quantize_generic(enum vagx_format f, double z)
{
   uint8_t b[8];
   uint32_t v[4] = {r_u((float)z), 0, 0, 0};
   r_fmt_pack(f, v, b, false);
   r_fmt_unpack(f, b, v);
   return r_f(v[0]);
}

void r_zs_px(enum vagx_format f, uint8_t *p, bool store, bool dl, bool sl, float *depth,
             uint8_t *stencil)
{
   zs_px_generic(f, p, store, dl, sl, depth, stencil);
}
