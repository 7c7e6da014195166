/* SPDX-License-Identifier: MIT */
/* vagx renderer: format pack/unpack, texture sampling, image load/store
 * (PBE), all through the layout library. */
#include <math.h>

#include "render_filter.h"
#include "render_io.h"
#include "render_tex_cube.h"
#include "render_tex_lanes.h"

float r_half_to_float(uint16_t h)
{
   uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 0x3ff;
   if (e == 0)
      return (s ? -1.0f : 1.0f) * ldexpf((float)m, -24);
   if (e == 31)
      return r_f(s | 0x7f800000u | (m << 13));
   return r_f(s | ((e + 112) << 23) | (m << 13));
}

uint16_t r_float_to_half(float f)
{
   uint32_t u = r_u(f), s = (u >> 16) & 0x8000;
   float a = fabsf(f);
   if (a != a)
      return 0x7e00;
   if (a >= 65520.0f)
      return (uint16_t)(s | 0x7c00);
   if (a < ldexpf(1.0f, -14)) {
      /* denormal: round to nearest even multiple of 2^-24 */
      return (uint16_t)(s | (uint32_t)nearbyintf(a * 16777216.0f));
   }
   int e;
   float m = frexpf(a, &e);             /* a = m * 2^e, m in [0.5, 1) */
   uint32_t mant = (uint32_t)nearbyintf((m * 2.0f - 1.0f) * 1024.0f);
   int he = e - 1 + 15;
   if (mant == 1024) {
      mant = 0;
      he++;
   }
   if (he >= 31)
      return (uint16_t)(s | 0x7c00);
   return (uint16_t)(s | (uint32_t)he << 10 | mant);
}

/* unsigned small float: 5-bit exponent, mbits mantissa */
static float uf_to_float(uint32_t v, unsigned mbits)
{
   uint32_t e = v >> mbits, m = v & ((1u << mbits) - 1);
   if (e == 0)
      return ldexpf((float)m, -14 - (int)mbits);
   if (e == 31)
      return m ? NAN : INFINITY;
   return ldexpf(1.0f + (float)m / (float)(1u << mbits), (int)e - 15);
}

static uint32_t float_to_uf(float f, unsigned mbits)
{
   if (f != f)
      return (31u << mbits) | 1;
   if (!(f > 0))
      return 0;
   uint16_t h = r_float_to_half(f);   /* same exponent range as f16 */
   uint32_t e = (h >> 10) & 31, m = h & 0x3ff;
   uint32_t shift = 10 - mbits;
   if (e == 31)
      return 31u << mbits;
   m = (m + ((1u << shift) >> 1)) >> shift;
   if (m >> mbits) {
      m = 0;
      e++;
   }
   if (e >= 31)
      return (30u << mbits) | ((1u << mbits) - 1);
   return e << mbits | m;
}

/* In double, rounded once: within 1 ulp of the exact curve. */
static float srgb_to_linear(float c)
{
   const double d = c;
   return (float)(d <= 0.04045 ? d / 12.92 : pow((d + 0.055) / 1.055, 2.4));
}

static float linear_to_srgb(float c)
{
   if (!(c > 0))
      return 0;
   if (c >= 1)
      return 1;
   const double d = c;
   return (float)(d < 0.0031308 ? d * 12.92 : 1.055 * pow(d, 1.0 / 2.4) - 0.055);
}


static uint32_t snorm_enc(float v, unsigned bits)
{
   double max = (double)((1ull << (bits - 1)) - 1);
   if (v != v)
      v = 0;
   if (v > 1) v = 1;
   if (v < -1) v = -1;
   int32_t i = (int32_t)nearbyint(v * max);
   return (uint32_t)i & (uint32_t)((1ull << bits) - 1);
}

static float unorm_dec(uint32_t v, unsigned bits)
{
   return (float)((double)v / (double)((1ull << bits) - 1));
}

static float snorm_dec(uint32_t v, unsigned bits)
{
   int32_t i = (int32_t)(v << (32 - bits)) >> (32 - bits);
   float f = (float)((double)i / (double)((1ull << (bits - 1)) - 1));
   return f < -1.0f ? -1.0f : f;
}

static uint32_t rd(const uint8_t *p, unsigned n)
{
   uint32_t v = 0;
   for (unsigned i = 0; i < n; i++)
      v |= (uint32_t)p[i] << (8 * i);
   return v;
}

static void wr(uint8_t *p, unsigned n, uint32_t v)
{
   for (unsigned i = 0; i < n; i++)
      p[i] = (uint8_t)(v >> (8 * i));
}

/* The place of channel c among the equal-sized channels of a texel of f
 * (r_fmt_unpack, r_fmt_pack): in order, but BGRA8 stores blue first. */
static inline unsigned channel_slot(enum vagx_format f, unsigned c)
{
   if ((f == VAGX_FORMAT_BGRA8_UNORM || f == VAGX_FORMAT_BGRA8_SRGB) && c != 3)
      return 2 - c;
   return c;
}

/* Packed formats: bit widths and offsets per component (R, G, B, A). */
static bool packed(enum vagx_format f, unsigned *w, unsigned *o)
{
   switch (f) {
   case VAGX_FORMAT_RGB565_UNORM:
      w[0] = 5; o[0] = 11; w[1] = 6; o[1] = 5; w[2] = 5; o[2] = 0; w[3] = 0; o[3] = 0;
      return true;
   case VAGX_FORMAT_RGBA4_UNORM:
      w[0] = 4; o[0] = 12; w[1] = 4; o[1] = 8; w[2] = 4; o[2] = 4; w[3] = 4; o[3] = 0;
      return true;
   case VAGX_FORMAT_RGB5A1_UNORM:
      w[0] = 5; o[0] = 11; w[1] = 5; o[1] = 6; w[2] = 5; o[2] = 1; w[3] = 1; o[3] = 0;
      return true;
   case VAGX_FORMAT_RGB10A2_UNORM:
   case VAGX_FORMAT_RGB10A2_UINT:
      w[0] = 10; o[0] = 0; w[1] = 10; o[1] = 10; w[2] = 10; o[2] = 20; w[3] = 2; o[3] = 30;
      return true;
   default:
      return false;
   }
}

/* unorm_dec(v, 8) for every v: RGBA8 texels and tile pixels are decoded
 * without a division per component (bit-identical by construction). */
static float unorm8_tab[256];
static pthread_once_t unorm8_once = PTHREAD_ONCE_INIT;
static void unorm8_init(void)
{
   for (unsigned v = 0; v < 256; v++)
      unorm8_tab[v] = unorm_dec(v, 8);
}

void r_fmt_unpack(enum vagx_format f, const uint8_t *p, uint32_t out[4])
{
   if (f == VAGX_FORMAT_RGBA8_UNORM) {
      pthread_once(&unorm8_once, unorm8_init);
      for (unsigned c = 0; c < 4; c++)
         out[c] = r_u(unorm8_tab[p[c]]);
      return;
   }
   const enum vagx_format_kind k = vagx_format_kind(f);
   const unsigned bpb = vagx_format_bytes_per_block(f), nc = vagx_format_comps(f);
   const bool integer = k == VAGX_FORMAT_KIND_UINT || k == VAGX_FORMAT_KIND_SINT;
   unsigned w[4], o[4];
   out[0] = out[1] = out[2] = 0;
   out[3] = integer ? 1 : r_u(1.0f);
   if (packed(f, w, o)) {
      uint32_t v = rd(p, bpb);
      for (unsigned c = 0; c < 4; c++) {
         if (!w[c])
            continue;
         uint32_t x = (v >> o[c]) & ((1u << w[c]) - 1);
         out[c] = integer ? x : r_u(unorm_dec(x, w[c]));
      }
      return;
   }
   switch (f) {
   case VAGX_FORMAT_R11G11B10_FLOAT: {
      uint32_t v = rd(p, 4);
      out[0] = r_u(uf_to_float(v & 0x7ff, 6));
      out[1] = r_u(uf_to_float((v >> 11) & 0x7ff, 6));
      out[2] = r_u(uf_to_float(v >> 22, 5));
      return;
   }
   case VAGX_FORMAT_RGB9E5_FLOAT: {
      uint32_t v = rd(p, 4);
      int e = (int)(v >> 27) - 15 - 9;
      for (unsigned c = 0; c < 3; c++)
         out[c] = r_u(ldexpf((float)((v >> (9 * c)) & 0x1ff), e));
      return;
   }
   case VAGX_FORMAT_Z16_UNORM:
      out[0] = r_u(unorm_dec(rd(p, 2), 16));
      return;
   case VAGX_FORMAT_Z24_UNORM_S8_UINT: {
      uint32_t v = rd(p, 4);
      out[0] = r_u((float)((double)(v & 0xffffff) / 16777215.0));
      out[1] = v >> 24;
      return;
   }
   case VAGX_FORMAT_Z32_FLOAT:
      out[0] = rd(p, 4);
      return;
   case VAGX_FORMAT_S8_UINT:
      out[0] = p[0];
      return;
   case VAGX_FORMAT_Z32_FLOAT_S8X24_UINT:
      out[0] = rd(p, 4);
      out[1] = p[4];
      return;
   default:
      break;
   }
   const unsigned cb = nc ? bpb / nc : 0; /* bytes per channel */
   for (unsigned c = 0; c < nc; c++) {
      uint32_t x = rd(p + channel_slot(f, c) * cb, cb);
      switch (k) {
      case VAGX_FORMAT_KIND_UNORM: out[c] = r_u(unorm_dec(x, 8 * cb)); break;
      case VAGX_FORMAT_KIND_SRGB:
         out[c] = r_u(c == 3 ? unorm_dec(x, 8) : srgb_to_linear(unorm_dec(x, 8)));
         break;
      case VAGX_FORMAT_KIND_SNORM: out[c] = r_u(snorm_dec(x, 8 * cb)); break;
      case VAGX_FORMAT_KIND_UINT: out[c] = x; break;
      case VAGX_FORMAT_KIND_SINT:
         out[c] = cb == 4 ? x : (uint32_t)((int32_t)(x << (32 - 8 * cb)) >> (32 - 8 * cb));
         break;
      case VAGX_FORMAT_KIND_FLOAT:
         out[c] = cb == 4 ? x : r_u(r_half_to_float((uint16_t)x));
         break;
      default: break;
      }
   }
}

void r_fmt_pack(enum vagx_format f, const uint32_t in[4], uint8_t *p, bool srgb_encode)
{
   /* the render targets applications use, without the generic dispatch */
   if (f == VAGX_FORMAT_RGBA8_UNORM || f == VAGX_FORMAT_BGRA8_UNORM) {
      const unsigned sw = f == VAGX_FORMAT_BGRA8_UNORM ? 2 : 0;
      p[0 ^ sw] = (uint8_t)r_unorm_enc(r_f(in[0]), 8);
      p[1] = (uint8_t)r_unorm_enc(r_f(in[1]), 8);
      p[2 ^ sw] = (uint8_t)r_unorm_enc(r_f(in[2]), 8);
      p[3] = (uint8_t)r_unorm_enc(r_f(in[3]), 8);
      return;
   }
   const enum vagx_format_kind k = vagx_format_kind(f);
   const unsigned bpb = vagx_format_bytes_per_block(f), nc = vagx_format_comps(f);
   const bool integer = k == VAGX_FORMAT_KIND_UINT || k == VAGX_FORMAT_KIND_SINT;
   unsigned w[4], o[4];
   if (packed(f, w, o)) {
      uint32_t v = 0;
      for (unsigned c = 0; c < 4; c++) {
         if (!w[c])
            continue;
         uint32_t m = (1u << w[c]) - 1;
         uint32_t x = integer ? (in[c] > m ? m : in[c]) : r_unorm_enc(r_f(in[c]), w[c]);
         v |= x << o[c];
      }
      wr(p, bpb, v);
      return;
   }
   switch (f) {
   case VAGX_FORMAT_R11G11B10_FLOAT:
      wr(p, 4, float_to_uf(r_f(in[0]), 6) | float_to_uf(r_f(in[1]), 6) << 11 |
                  float_to_uf(r_f(in[2]), 5) << 22);
      return;
   case VAGX_FORMAT_Z16_UNORM:
      wr(p, 2, r_unorm_enc(r_f(in[0]), 16));
      return;
   case VAGX_FORMAT_Z24_UNORM_S8_UINT:
      wr(p, 4, r_unorm_enc(r_f(in[0]), 24) | (in[1] & 0xff) << 24);
      return;
   case VAGX_FORMAT_Z32_FLOAT:
      wr(p, 4, in[0]);
      return;
   case VAGX_FORMAT_S8_UINT:
      p[0] = (uint8_t)in[0];
      return;
   case VAGX_FORMAT_Z32_FLOAT_S8X24_UINT:
      wr(p, 4, in[0]);
      wr(p + 4, 4, in[1] & 0xff);
      return;
   case VAGX_FORMAT_RGB9E5_FLOAT:
      wr(p, 4, 0); /* not renderable */
      return;
   default:
      break;
   }
   const unsigned cb = nc ? bpb / nc : 0; /* bytes per channel */
   for (unsigned c = 0; c < nc; c++) {
      uint32_t x = 0;
      const unsigned bits = 8 * cb;
      switch (k) {
      case VAGX_FORMAT_KIND_UNORM: x = r_unorm_enc(r_f(in[c]), bits); break;
      case VAGX_FORMAT_KIND_SRGB:
         x = r_unorm_enc(c == 3 || !srgb_encode ? r_f(in[c]) : linear_to_srgb(r_f(in[c])), 8);
         break;
      case VAGX_FORMAT_KIND_SNORM: x = snorm_enc(r_f(in[c]), bits); break;
      case VAGX_FORMAT_KIND_UINT: {
         uint32_t m = bits == 32 ? 0xffffffffu : (1u << bits) - 1;
         x = in[c] > m ? m : in[c];
         break;
      }
      case VAGX_FORMAT_KIND_SINT: {
         int32_t v = (int32_t)in[c];
         if (bits < 32) {
            int32_t mx = (1 << (bits - 1)) - 1, mn = -mx - 1;
            v = v > mx ? mx : v < mn ? mn : v;
         }
         x = (uint32_t)v;
         break;
      }
      case VAGX_FORMAT_KIND_FLOAT: x = cb == 4 ? in[c] : r_float_to_half(r_f(in[c])); break;
      default: break;
      }
      wr(p + channel_slot(f, c) * cb, cb, x);
   }
}

bool r_layout_from_texture(const struct vagx_texture *t, struct vagx_layout *l)
{
   memset(l, 0, sizeof(*l));
   l->width_px = t->width;
   l->height_px = t->height;
   l->depth_px = t->depth;
   l->levels = t->levels;
   l->sample_count_sa = t->samples == VAGX_MSAA_4X ? 4 : 1;
   l->block_width_px = l->block_height_px = 1;
   l->bytes_per_block_B = vagx_format_bytes_per_block(t->format);
   l->tiling = t->layout == VAGX_IMAGE_LAYOUT_LINEAR ? VAGX_TILING_LINEAR : VAGX_TILING_TWIDDLED;
   l->mipmapped_z = t->dimension == VAGX_DIMENSION_3D;
   l->linear_stride_B = t->stride;
   l->sparse = t->sparse;
   return vagx_layout_init(l);
}

/* ---------------------------------------------------------------- sampling -- */

struct tview {
   struct vagx_texture t;
   /* the descriptor cache's layout (1 KiB: not copied per instruction), or l_buf */
   const struct vagx_layout *l;
   struct vagx_layout l_buf;
   uint64_t va;
   /* render_io.h fast path (not VAGX_RENDER_OPT_NO_FAST_IO): one instruction's
    * texels share translations and the addressing of their (level, layer) */
   bool fast;
   bool unorm8;                /* RGBA8 / BGRA8 UNORM: texels decoded by table (unorm8_tab) */
   unsigned swap_rb;           /* BGRA8: 2 (byte of red is 2 ^ 0), else 0 */
   struct rspan span;
   struct raddr addr;
   unsigned addr_level, addr_layer; /* what addr was set up for; level ~0u: none */
   struct rdesc_tex *dc;       /* the descriptor cache's entry, or NULL */
   /* tex.resid (isa.md, sparse residency): the host page every NULL page
    * reads from (vagx_usc_mem_ops.null_page), NULL when not asked; the
    * lane being sampled and the lanes that read a texel from that page */
   const uint8_t *null_page;
   unsigned lane;
   uint32_t nonres;
};

static void tview_fast_init(struct rtexctx *c, struct tview *v)
{
   v->fast = !(c->j->dev->options & VAGX_RENDER_OPT_NO_FAST_IO);
   v->unorm8 = v->fast && (v->t.format == VAGX_FORMAT_RGBA8_UNORM ||
                           v->t.format == VAGX_FORMAT_BGRA8_UNORM);
   v->swap_rb = v->t.format == VAGX_FORMAT_BGRA8_UNORM ? 2 : 0;
   if (v->unorm8)
      pthread_once(&unorm8_once, unorm8_init);
   r_span_reset(&v->span);
   v->addr_level = ~0u;
   v->addr_layer = 0;
   v->null_page = NULL;
   v->lane = 0;
   v->nonres = 0;
}

/* Whether host address p (of a texel read) is in the NULL page. */
static inline bool null_hit(const uint8_t *null_page, const uint8_t *p)
{
   return null_page && (uintptr_t)p - (uintptr_t)null_page < VAGX_PAGE_SIZE;
}

/* tex.resid's fifth result: 1 for the lanes of `nonres`, 0 for the others. */
static void resid_out(struct vagx_usc_gfx_call *call, uint32_t nonres)
{
   for (unsigned l = 0; l < 32; l++)
      if (call->exec >> l & 1)
         call->out[4][l] = nonres >> l & 1;
}

static enum vagx_usc_status get_desc(struct rtexctx *c, uint64_t table, unsigned count, unsigned i,
                                     uint32_t *raw, enum vagx_unit unit)
{
   uint64_t va = table + (uint64_t)i * 32;
   if (i >= count) {
      r_fail(c->j, VAGX_JOB_STATUS_INVALID_DESCRIPTOR, unit, 0, va);
      return VAGX_USC_FAULT;
   }
   if (!r_read(c->j, c->worker, va, raw, 32, unit))
      return VAGX_USC_FAULT;
   return VAGX_USC_OK;
}

/* The worker's descriptor cache when descriptor `i` of a table of `count`
 * goes through it, else NULL: the generic path (VAGX_RENDER_OPT_NO_FAST_IO)
 * and an index past the table (get_desc faults on it) never do. */
static inline struct rdesc_cache *desc_cache(const struct rtexctx *c, unsigned i, unsigned count)
{
   if ((c->j->dev->options & VAGX_RENDER_OPT_NO_FAST_IO) || i >= count)
      return NULL;
   return c->j->dev->w[c->worker].dc;
}

/* The way a new entry takes in a cache that holds *used of R_DESC_WAYS:
 * the next free one, then round robin with *next. */
static inline unsigned desc_cache_way(unsigned *used, unsigned *next)
{
   return *used < R_DESC_WAYS ? (*used)++ : (*next)++ % R_DESC_WAYS;
}

/* A descriptor that does not unpack or names what the device cannot use:
 * the job fails at its address. */
static enum vagx_usc_status bad_desc(struct rtexctx *c, uint64_t va)
{
   r_fail(c->j, VAGX_JOB_STATUS_INVALID_DESCRIPTOR, VAGX_UNIT_TEX, 0, va);
   return VAGX_USC_FAULT;
}

/* Texture descriptor `ti` of the program into v->t and v->l, through the
 * worker's descriptor cache (render_priv.h); the generic path
 * (VAGX_RENDER_OPT_NO_FAST_IO) decodes it every time. */
static enum vagx_usc_status tex_desc(struct rtexctx *c, unsigned ti, struct tview *v)
{
   const struct vagx_usc_program *pd = &c->p->desc;
   const uint64_t va = pd->texture_va + ti * 32ull;
   struct rdesc_cache *dc = desc_cache(c, ti, pd->texture_count);
   for (unsigned i = 0; dc && i < dc->ntex; i++)
      if (dc->tex[i].va == va) {
         v->t = dc->tex[i].t;
         v->l = &dc->tex[i].l;
         v->dc = &dc->tex[i];
         return VAGX_USC_OK;
      }
   uint32_t raw[8];
   enum vagx_usc_status st = get_desc(c, pd->texture_va, pd->texture_count, ti, raw, VAGX_UNIT_TEX);
   if (st)
      return st;
   if (!vagx_texture_unpack(raw, &v->t, NULL) || !vagx_format_is_valid(v->t.format) ||
       v->t.format == VAGX_FORMAT_INVALID)
      return bad_desc(c, va);
   /* a buffer texture has no image layout (tex_buffer addresses it) */
   if (v->t.dimension == VAGX_DIMENSION_BUFFER)
      memset(&v->l_buf, 0, sizeof(v->l_buf));
   else if (!r_layout_from_texture(&v->t, &v->l_buf))
      return bad_desc(c, va);
   v->l = &v->l_buf;
   v->dc = NULL;
   if (dc) {
      struct rdesc_tex *e = &dc->tex[desc_cache_way(&dc->ntex, &dc->next_tex)];
      e->va = va;
      e->t = v->t;
      e->l = v->l_buf;
      e->base_fit = -1;
      e->lanes_ok = false;
      r_span_reset(&e->span[0]);
      r_span_reset(&e->span[1]);
      v->l = &e->l;
      v->dc = e;
   }
   return VAGX_USC_OK;
}

/* Sampler descriptor `si` of the program, the same way. */
static enum vagx_usc_status smp_desc(struct rtexctx *c, unsigned si, struct vagx_sampler *s)
{
   const struct vagx_usc_program *pd = &c->p->desc;
   const uint64_t va = pd->sampler_va + si * 32ull;
   struct rdesc_cache *dc = desc_cache(c, si, pd->sampler_count);
   for (unsigned i = 0; dc && i < dc->nsmp; i++)
      if (dc->smp[i].va == va) {
         *s = dc->smp[i].s;
         return VAGX_USC_OK;
      }
   uint32_t raw[8];
   enum vagx_usc_status st = get_desc(c, pd->sampler_va, pd->sampler_count, si, raw, VAGX_UNIT_TEX);
   if (st)
      return st;
   if (!vagx_sampler_unpack(raw, s, NULL))
      return bad_desc(c, va);
   if (dc) {
      const unsigned i = desc_cache_way(&dc->nsmp, &dc->next_smp);
      dc->smp[i].va = va;
      dc->smp[i].s = *s;
   }
   return VAGX_USC_OK;
}

/* tview_map when the generic path is on or the (level, layer) changed. */
static uint8_t *tview_map_setup(struct rtexctx *c, struct tview *v, unsigned level, unsigned layer,
                                uint32_t x, uint32_t y, unsigned sample, unsigned access,
                                enum vagx_unit unit)
{
   const struct vagx_layout *l = v->l;
   const unsigned bpb = l->bytes_per_block_B;
   if (!v->fast) {
      const uint64_t off = vagx_layout_offset_B(l, level, layer, x, y) + (uint64_t)sample * bpb;
      uint8_t *p = r_map(c->j, c->worker, v->va + off, bpb, access, unit);
      /* every texel of a tex.resid comes here (r_tex_exec) */
      if (p && null_hit(v->null_page, p))
         v->nonres |= 1u << v->lane;
      return p;
   }
   if (v->addr_level != level || v->addr_layer != layer) {
      r_addr_init(&v->addr, l, level, layer);
      v->addr_level = level;
      v->addr_layer = layer;
   }
   const uint64_t off = r_addr_offset(&v->addr, x, y) + (uint64_t)sample * bpb;
   return r_span_map(c->j, c->worker, &v->span, v->va + off, bpb, access, unit);
}

/* Host address of sample `sample` of element (x, y) of (level, layer), in
 * bounds; NULL on a fault (recorded for `unit`).  Inline for the texels
 * after the first of an instruction. */
static inline uint8_t *tview_map(struct rtexctx *c, struct tview *v, unsigned level,
                                 unsigned layer, uint32_t x, uint32_t y, unsigned sample,
                                 unsigned access, enum vagx_unit unit)
{
   if (!v->fast || v->addr_level != level || v->addr_layer != layer)
      return tview_map_setup(c, v, level, layer, x, y, sample, access, unit);
   const unsigned bpb = v->l->bytes_per_block_B;
   const uint64_t va = v->va + r_addr_offset(&v->addr, x, y) + (uint64_t)sample * bpb;
   return r_span_map(c->j, c->worker, &v->span, va, bpb, access, unit);
}

/* Reads one texel (unpacked); false on fault (already recorded). */
static bool texel(struct rtexctx *c, struct tview *v, unsigned level, unsigned layer,
                  int x, int y, unsigned sample, uint32_t out[4])
{
   const struct vagx_layout *l = v->l;
   if (x < 0 || y < 0 || !vagx_layout_in_bounds(l, level, layer, (uint32_t)x, (uint32_t)y)) {
      out[0] = out[1] = out[2] = out[3] = 0;
      return true;
   }
   uint8_t *p = tview_map(c, v, level, layer, (uint32_t)x, (uint32_t)y, sample, VAGX_USC_ACC_READ,
                          VAGX_UNIT_TEX);
   if (!p)
      return false;
   r_fmt_unpack(v->t.format, p, out);
   if (vagx_format_kind(v->t.format) == VAGX_FORMAT_KIND_DEPTH_STENCIL && v->t.sample_stencil) {
      uint32_t s = v->t.format == VAGX_FORMAT_S8_UINT ? out[0] : out[1];
      out[0] = s;
      out[1] = out[2] = 0;
      out[3] = 1;
   } else if (vagx_format_kind(v->t.format) == VAGX_FORMAT_KIND_DEPTH_STENCIL) {
      out[1] = out[2] = 0;
      out[3] = r_u(1.0f);
   }
   return true;
}

static inline __attribute__((always_inline)) int wrap(int i, int size, enum vagx_wrap w,
                                                      bool *border)
{
   switch (w) {
   case VAGX_WRAP_REPEAT: {
      int m = i % size;
      return m < 0 ? m + size : m;
   }
   case VAGX_WRAP_MIRRORED_REPEAT: {
      int p = 2 * size, m = i % p;
      if (m < 0) m += p;
      return m < size ? m : p - 1 - m;
   }
   case VAGX_WRAP_CLAMP_TO_BORDER:
      if (i < 0 || i >= size)
         *border = true;
      return i;
   case VAGX_WRAP_MIRROR_CLAMP_TO_EDGE:
      if (i < 0)
         i = -1 - i;
      return i >= size ? size - 1 : i;
   case VAGX_WRAP_CLAMP_TO_EDGE:
   default:
      return i < 0 ? 0 : i >= size ? size - 1 : i;
   }
}

/* floor() as an int, saturated so that wild coordinates (huge, inf, NaN)
 * stay defined; any value this far out is outside every level anyway. */
static int floor_i(double x)
{
   if (!(x > -1e9))
      return -1000000000;
   if (x > 1e9)
      return 1000000000;
   return (int)floor(x);
}

static void border_texel(const struct vagx_sampler *s, float out[4])
{
   for (unsigned i = 0; i < 4; i++)
      out[i] = s->border_int ? (float)s->border_color[i] : r_f(s->border_color[i]);
}

/* Texel (x, y) of level/layer after the wrap modes, unpacked (float bits
 * or integers); *border tells that the border colour applies instead (out
 * is then untouched). */
static bool fetch_wrapped_raw(struct rtexctx *c, struct tview *v, const struct vagx_sampler *s,
                              unsigned level, unsigned layer, int x, int y, uint32_t out[4],
                              bool *border)
{
   const struct vagx_layout_level *lv = &v->l->level[level];
   *border = false;
   x = wrap(x, (int)lv->width_px, s->wrap_s, border);
   y = wrap(y, (int)lv->height_px, s->wrap_t, border);
   return *border || texel(c, v, level, layer, x, y, 0, out);
}

static bool fetch_wrapped(struct rtexctx *c, struct tview *v, const struct vagx_sampler *s,
                          unsigned level, unsigned layer, int x, int y, float out[4])
{
   uint32_t t[4];
   bool border;
   if (!fetch_wrapped_raw(c, v, s, level, layer, x, y, t, &border))
      return false;
   if (border) {
      border_texel(s, out);
      return true;
   }
   for (unsigned i = 0; i < 4; i++)
      out[i] = r_f(t[i]);
   return true;
}

/* Texel-space position of normalised (u, t) on `level` (1D: row 0). */
static void level_xy(struct tview *v, const struct vagx_sampler *s, unsigned level, double u,
                     double t, double *x, double *y)
{
   const struct vagx_layout_level *lv = &v->l->level[level];
   *x = s->unnormalized ? u : u * lv->width_px;
   *y = s->unnormalized ? t : t * lv->height_px;
   if (v->t.dimension == VAGX_DIMENSION_1D || v->t.dimension == VAGX_DIMENSION_1D_ARRAY)
      *y = 0.5;
}

/* Integer formats and the stencil aspect (render.md, "Texture sampling"):
 * the nearest texel of one level, its unpacked integers returned as they
 * are, and the border colour's raw values outside.  A filter would have
 * to go through floats, which loses integers above 2^24 and turns small
 * ones into denormals when the raw bits are read as floats. */
static bool sample_nearest_int(struct rtexctx *c, struct tview *v, const struct vagx_sampler *s,
                               unsigned level, unsigned layer, double u, double t, double r,
                               bool vol, uint32_t out[4])
{
   double x, y;
   level_xy(v, s, level, u, t, &x, &y);
   bool border = false;
   if (vol) {
      const int dz = (int)vagx_layout_level_depth(v->l, level);
      layer = (unsigned)wrap(floor_i(s->unnormalized ? r : r * dz), dz, s->wrap_r, &border);
   }
   if (!border && !fetch_wrapped_raw(c, v, s, level, layer, floor_i(x), floor_i(y), out, &border))
      return false;
   if (border)
      memcpy(out, s->border_color, sizeof(s->border_color));
   return true;
}

/* Bilinear blend of the texels (x0, y0), (x0 + 1, y0), (x0, y0 + 1),
 * (x0 + 1, y0 + 1) with weights fx, fy. */
static inline void bilerp(float q[4][4], double fx, double fy, float out[4])
{
   for (unsigned k = 0; k < 4; k++)
      out[k] = (float)((q[0][k] * (1 - fx) + q[1][k] * fx) * (1 - fy) +
                       (q[2][k] * (1 - fx) + q[3][k] * fx) * fy);
}

/* bilerp() for RGBA8 / BGRA8 UNORM (render_filter.h): 8-bit weights and
 * the texels' bytes (q holds decoded bytes or border colours). */
static inline void bilerp8(float q[4][4], double fx, double fy, float out[4])
{
   const uint32_t wx = (uint32_t)r_filter8_weight(fx), wy = (uint32_t)r_filter8_weight(fy);
   for (unsigned k = 0; k < 4; k++)
      out[k] = r_filter8_bilerp(r_filter8_byte(q[0][k]), r_filter8_byte(q[1][k]),
                                r_filter8_byte(q[2][k]), r_filter8_byte(q[3][k]), wx, wy);
}

/* Whether the format filters at 8 bits (render_filter.h), on every path. */
static inline bool filter8(const struct tview *v)
{
   return v->t.format == VAGX_FORMAT_RGBA8_UNORM || v->t.format == VAGX_FORMAT_BGRA8_UNORM;
}

/* The texel of an RGBA8 / BGRA8 UNORM texture at (x, y) (in bounds), as
 * r_fmt_unpack decodes it. */
static bool texel_unorm8(struct rtexctx *c, struct tview *v, unsigned level, unsigned layer, int x,
                         int y, float out[4])
{
   const uint8_t *p = tview_map(c, v, level, layer, (uint32_t)x, (uint32_t)y, 0, VAGX_USC_ACC_READ,
                                VAGX_UNIT_TEX);
   if (!p)
      return false;
   out[0] = unorm8_tab[p[0 ^ v->swap_rb]];
   out[1] = unorm8_tab[p[1]];
   out[2] = unorm8_tab[p[2 ^ v->swap_rb]];
   out[3] = unorm8_tab[p[3]];
   return true;
}

/* The texel at host address p of an RGBA8 / BGRA8 UNORM texture. */
static inline void unorm8_decode(const struct tview *v, const uint8_t *p, float out[4])
{
   out[0] = unorm8_tab[p[0 ^ v->swap_rb]];
   out[1] = unorm8_tab[p[1]];
   out[2] = unorm8_tab[p[2 ^ v->swap_rb]];
   out[3] = unorm8_tab[p[3]];
}

/* sample_level for RGBA8 / BGRA8 UNORM and wrap modes without a border:
 * every wrapped texel is inside the level, so the per-texel bounds checks,
 * border handling and generic unpack go; texels are read in the same order
 * (a fault is met at the same texel).  A bilinear footprint's addresses
 * are the sums of two column and two row parts (Morton order interleaves
 * the bits of x and y), computed once each. */
static inline __attribute__((always_inline)) bool
sample_level_unorm8(struct rtexctx *c, struct tview *v, const struct vagx_sampler *s,
                    unsigned level, unsigned layer, double x, double y, bool lin, float out[4])
{
   const int w = (int)v->l->level[level].width_px, h = (int)v->l->level[level].height_px;
   bool border = false;        /* never set by these wrap modes */
   if (!lin)
      return texel_unorm8(c, v, level, layer, wrap(floor_i(x), w, s->wrap_s, &border),
                          wrap(floor_i(y), h, s->wrap_t, &border), out);
   x -= 0.5;
   y -= 0.5;
   const int x0 = floor_i(x), y0 = floor_i(y);
   const double fx = x - x0, fy = y - y0;
   const uint32_t xs[2] = {(uint32_t)wrap(x0, w, s->wrap_s, &border),
                           (uint32_t)wrap(x0 + 1, w, s->wrap_s, &border)};
   const uint32_t ys[2] = {(uint32_t)wrap(y0, h, s->wrap_t, &border),
                           (uint32_t)wrap(y0 + 1, h, s->wrap_t, &border)};
   float q[4][4];
   if (v->addr_level != level || v->addr_layer != layer) {
      /* the first texel sets the addressing of (level, layer) up */
      if (!texel_unorm8(c, v, level, layer, (int)xs[0], (int)ys[0], q[0]))
         return false;
   } else {
      const uint8_t *p = tview_map(c, v, level, layer, xs[0], ys[0], 0, VAGX_USC_ACC_READ,
                                   VAGX_UNIT_TEX);
      if (!p)
         return false;
      unorm8_decode(v, p, q[0]);
   }
   const struct raddr *a = &v->addr;
   uint64_t ox[2], oy[2];
   if (a->linear) {
      ox[0] = (uint64_t)xs[0] * a->E;
      ox[1] = (uint64_t)xs[1] * a->E;
      oy[0] = a->base + (uint64_t)ys[0] * a->row_B;
      oy[1] = a->base + (uint64_t)ys[1] * a->row_B;
   } else {
      for (unsigned i = 0; i < 2; i++) {
         const uint32_t mx = a->spread_table ? r_spread[xs[i] & a->tw_mask]
                                             : vagx_layout_morton_el(xs[i] & a->tw_mask, 0);
         const uint32_t my = a->spread_table ? (uint32_t)r_spread[ys[i] & a->th_mask] << 1
                                             : vagx_layout_morton_el(0, ys[i] & a->th_mask);
         ox[i] = (uint64_t)(xs[i] >> a->tw_log2) * a->tile_B + (uint64_t)mx * a->E;
         oy[i] = a->base + (uint64_t)(ys[i] >> a->th_log2) * a->row_B + (uint64_t)my * a->E;
      }
   }
   for (unsigned i = 1; i < 4; i++) {
      const uint8_t *p = r_span_map(c->j, c->worker, &v->span, v->va + oy[i >> 1] + ox[i & 1], 4,
                                    VAGX_USC_ACC_READ, VAGX_UNIT_TEX);
      if (!p)
         return false;
      unorm8_decode(v, p, q[i]);
   }
   bilerp8(q, fx, fy, out);
   return true;
}

/* Filtered sample of one level at normalised (u, v) (2D/array/cube face). */
static bool sample_level(struct rtexctx *c, struct tview *v, const struct vagx_sampler *s,
                         unsigned level, unsigned layer, double u, double t, bool lin,
                         float out[4])
{
   double x, y;
   level_xy(v, s, level, u, t, &x, &y);
   if (v->unorm8 && s->wrap_s != VAGX_WRAP_CLAMP_TO_BORDER &&
       s->wrap_t != VAGX_WRAP_CLAMP_TO_BORDER && level < v->l->levels_alloc && layer < v->l->layers)
      return sample_level_unorm8(c, v, s, level, layer, x, y, lin, out);
   if (!lin)
      return fetch_wrapped(c, v, s, level, layer, floor_i(x), floor_i(y), out);
   x -= 0.5;
   y -= 0.5;
   int x0 = floor_i(x), y0 = floor_i(y);
   double fx = x - x0, fy = y - y0;
   float q[4][4];
   for (unsigned i = 0; i < 4; i++)
      if (!fetch_wrapped(c, v, s, level, layer, x0 + (int)(i & 1), y0 + (int)(i >> 1), q[i]))
         return false;
   if (filter8(v))
      bilerp8(q, fx, fy, out);
   else
      bilerp(q, fx, fy, out);
   return true;
}

/* Texel-space position of normalised (u, t) on `level` minus 1/2 (the
 * origin of a bilinear footprint) for a seamless cube face of n texels,
 * kept within [-1/2, n - 1/2], where every face coordinate in [0, 1]
 * lands: an unnormalized or NaN coordinate's footprint stays within one
 * texel of the face. */
static void cube_footprint_xy(struct tview *v, const struct vagx_sampler *s, unsigned level,
                              double u, double t, int n, double *x, double *y)
{
   level_xy(v, s, level, u, t, x, y);
   *x -= 0.5;
   *y -= 0.5;
   *x = !(*x >= -0.5) ? -0.5 : *x > n - 0.5 ? n - 0.5 : *x;
   *y = !(*y >= -0.5) ? -0.5 : *y > n - 0.5 ? n - 0.5 : *y;
}

/* Whether a seamless cube footprint at (x0, y0) of `level` leaves the face
 * (render.md, "Seamless cube maps"); a level that is not square never
 * does (each face is filtered alone, clamped to its edges). */
static inline bool cube_crosses(const struct tview *v, unsigned level, int x0, int y0)
{
   const int n = (int)v->l->level[level].width_px;
   return (int)v->l->level[level].height_px == n && (x0 < 0 || y0 < 0 || x0 + 1 >= n || y0 + 1 >= n);
}

/* LINEAR sample of face `face` of the cube whose +X face is layer `cube`,
 * seamless (render.md, "Seamless cube maps"): a footprint inside the face
 * is sample_level's (and its fast path's); one that crosses an edge reads
 * the texels past the edge from the neighbouring faces, and a texel past
 * two edges (a corner of the cube, on no face) is the average of the
 * footprint's other three, as GL recommends (8.13.1) and llvmpipe does. */
static bool sample_cube_seamless(struct rtexctx *c, struct tview *v, const struct vagx_sampler *s,
                                 unsigned level, unsigned cube, unsigned face, double u, double t,
                                 float out[4])
{
   const int n = (int)v->l->level[level].width_px;
   double x, y;
   cube_footprint_xy(v, s, level, u, t, n, &x, &y);
   const int x0 = floor_i(x), y0 = floor_i(y);
   if (!cube_crosses(v, level, x0, y0))
      return sample_level(c, v, s, level, cube + face, u, t, true, out);
   struct r_cube_footprint fp;
   r_cube_footprint(face, n, x0, y0, &fp);
   float q[4][4];
   for (unsigned i = 0; i < 4; i++) {
      uint32_t raw[4];
      if ((int)i == fp.corner)
         continue;
      if (!texel(c, v, level, cube + fp.face[i], fp.x[i], fp.y[i], 0, raw))
         return false;
      for (unsigned k = 0; k < 4; k++)
         q[i][k] = r_f(raw[k]);
   }
   if (fp.corner >= 0) {
      const unsigned a = ((unsigned)fp.corner + 1) & 3, b = (a + 1) & 3, d = (b + 1) & 3;
      for (unsigned k = 0; k < 4; k++)
         q[fp.corner][k] = (float)(((double)q[a][k] + q[b][k] + q[d][k]) / 3);
   }
   if (filter8(v))
      bilerp8(q, x - x0, y - y0, out);
   else
      bilerp(q, x - x0, y - y0, out);
   return true;
}

/* One level of a 2D, array or cube face sample: seamless cube LINEAR
 * samples through sample_cube_seamless (layer = cube + face). */
static inline bool sample_face(struct rtexctx *c, struct tview *v, const struct vagx_sampler *s,
                               bool seamless, unsigned level, unsigned layer, unsigned face,
                               double u, double t, bool lin, float out[4])
{
   if (seamless && lin)
      return sample_cube_seamless(c, v, s, level, layer - face, face, u, t, out);
   return sample_level(c, v, s, level, layer, u, t, lin, out);
}

/* 3D: the slice(s) at normalised r of `level` (wrap_r), bilinear inside a
 * slice; LINEAR also blends the two nearest slices (trilinear). */
static bool sample_volume(struct rtexctx *c, struct tview *v, const struct vagx_sampler *s,
                          unsigned level, double u, double t, double r, bool lin, float out[4])
{
   const int dz = (int)vagx_layout_level_depth(v->l, level);
   const double z = s->unnormalized ? r : r * dz;
   int z0 = lin ? floor_i(z - 0.5) : floor_i(z);
   const double fz = lin ? (z - 0.5) - z0 : 0;
   float q[2][4];
   for (unsigned i = 0; i < (lin ? 2u : 1u); i++) {
      bool border = false;
      int zi = wrap(z0 + (int)i, dz, s->wrap_r, &border);
      if (border)
         border_texel(s, q[i]);
      else if (!sample_level(c, v, s, level, (unsigned)zi, u, t, lin, q[i]))
         return false;
   }
   for (unsigned k = 0; k < 4; k++)
      out[k] = lin ? (float)(q[0][k] * (1 - fz) + q[1][k] * fz) : q[0][k];
   return true;
}

static float cmp(enum vagx_compare_func f, float ref, float v)
{
   bool r;
   switch (f) {
   case VAGX_COMPARE_FUNC_NEVER: r = false; break;
   case VAGX_COMPARE_FUNC_LESS: r = ref < v; break;
   case VAGX_COMPARE_FUNC_EQUAL: r = ref == v; break;
   case VAGX_COMPARE_FUNC_LEQUAL: r = ref <= v; break;
   case VAGX_COMPARE_FUNC_GREATER: r = ref > v; break;
   case VAGX_COMPARE_FUNC_NOTEQUAL: r = ref != v; break;
   case VAGX_COMPARE_FUNC_GEQUAL: r = ref >= v; break;
   default: r = true; break;
   }
   return r ? 1.0f : 0.0f;
}

static void cube_face(double x, double y, double z, unsigned *face, double *u, double *v)
{
   double ax = fabs(x), ay = fabs(y), az = fabs(z), ma, sc, tc;
   if (ax >= ay && ax >= az) {
      ma = ax;
      *face = x >= 0 ? 0 : 1;
      sc = x >= 0 ? -z : z;
      tc = -y;
   } else if (ay >= az) {
      ma = ay;
      *face = y >= 0 ? 2 : 3;
      sc = x;
      tc = y >= 0 ? z : -z;
   } else {
      ma = az;
      *face = z >= 0 ? 4 : 5;
      sc = z >= 0 ? x : -x;
      tc = -y;
   }
   if (ma == 0)
      ma = 1;
   *u = 0.5 * (sc / ma + 1);
   *v = 0.5 * (tc / ma + 1);
}

/* Face `face`'s major axis ma and its sc, tc (GL 4.6 table 8.19) as the
 * linear functions of the direction they are, for derivatives. */
static void cube_lin(unsigned face, double x, double y, double z, double *ma, double *sc, double *tc)
{
   switch (face) {
   case 0: *ma = x; *sc = -z; *tc = -y; break;
   case 1: *ma = -x; *sc = z; *tc = -y; break;
   case 2: *ma = y; *sc = x; *tc = z; break;
   case 3: *ma = -y; *sc = x; *tc = -z; break;
   case 4: *ma = z; *sc = x; *tc = -y; break;
   default: *ma = -z; *sc = -x; *tc = -y; break;
   }
}

/* Derivative of the face coordinates (u, v) = ((sc/ma + 1)/2, (tc/ma + 1)/2)
 * of direction p along direction derivative d, on face `face` (GL 4.6
 * 8.14.1: the LOD of a cube map comes from the face coordinates, not from
 * the direction, whose components span twice the range). */
static void cube_deriv(unsigned face, const double p[3], const double d[3], double *du, double *dv)
{
   double ma, sc, tc, dma, dsc, dtc;
   cube_lin(face, p[0], p[1], p[2], &ma, &sc, &tc);
   cube_lin(face, d[0], d[1], d[2], &dma, &dsc, &dtc);
   if (ma == 0) {
      *du = *dv = 0;
      return;
   }
   *du = 0.5 * (dsc * ma - sc * dma) / (ma * ma);
   *dv = 0.5 * (dtc * ma - tc * dma) / (ma * ma);
}

static unsigned coord_count(unsigned dim, bool array)
{
   unsigned n = dim == VAGX_DIM__1D || dim == VAGX_DIM_BUF ? 1 : dim == VAGX_DIM__2D || dim == VAGX_DIM__2DMS ? 2 : 3;
   return n + (array ? 1 : 0);
}

static float swz(const float *t, enum vagx_swizzle s)
{
   return s <= VAGX_SWIZZLE_A ? t[s] : s == VAGX_SWIZZLE_ONE ? 1.0f : 0.0f;
}

/* Integer results: ONE is the integer 1. */
static uint32_t swz_int(const uint32_t *t, enum vagx_swizzle s)
{
   return s <= VAGX_SWIZZLE_A ? t[s] : s == VAGX_SWIZZLE_ONE ? 1u : 0u;
}

/* The average of three gathered results (a seamless cube footprint's
 * corner, render.md): as floats, or as the format's integers. */
static uint32_t gather_avg3(const struct tview *v, bool integer, bool compare, uint32_t a,
                            uint32_t b, uint32_t d)
{
   if (compare || !integer)
      return r_u((float)(((double)r_f(a) + r_f(b) + r_f(d)) / 3));
   if (vagx_format_kind(v->t.format) == VAGX_FORMAT_KIND_SINT)
      return (uint32_t)(int32_t)(((int64_t)(int32_t)a + (int32_t)b + (int32_t)d) / 3);
   return (uint32_t)(((uint64_t)a + b + d) / 3);
}

/* gather (render.md, "Texture gather"): component `comp` of the four
 * texels of the bilinear footprint of (u, t) on `level`, in GL's order
 * (i0, j1), (i1, j1), (i1, j0), (i0, j0), each after the wrap modes
 * (border colour outside) and the descriptor's swizzle (ONE = 1.0 or the
 * integer 1); with `compare`, the compare result of each texel's first
 * component against ref as 0.0/1.0.  A seamless cube footprint (layer =
 * cube + face) takes its texels as sample_cube_seamless does, the corner's
 * result the average of the other three.  out: raw 32-bit results. */
static bool gather_level(struct rtexctx *c, struct tview *v, const struct vagx_sampler *s,
                         unsigned level, unsigned layer, bool seamless, unsigned face, double u,
                         double t, unsigned comp, bool integer, bool compare, float ref,
                         uint32_t out[4])
{
   double x, y;
   int x0, y0, corner = -1;
   struct r_cube_footprint fp;
   bool fold = false;
   if (seamless) {
      cube_footprint_xy(v, s, level, u, t, (int)v->l->level[level].width_px, &x, &y);
      x0 = floor_i(x);
      y0 = floor_i(y);
      fold = cube_crosses(v, level, x0, y0);
      if (fold)
         r_cube_footprint(face, (int)v->l->level[level].width_px, x0, y0, &fp);
   } else {
      level_xy(v, s, level, u, t, &x, &y);
      x0 = floor_i(x - 0.5);
      y0 = floor_i(y - 0.5);
   }
   static const int di[4] = {0, 1, 1, 0}, dj[4] = {1, 1, 0, 0};
   const enum vagx_swizzle sz = comp == 0   ? v->t.swizzle_r
                                : comp == 1 ? v->t.swizzle_g
                                : comp == 2 ? v->t.swizzle_b
                                            : v->t.swizzle_a;
   for (unsigned k = 0; k < 4; k++) {
      uint32_t raw[4];
      bool border = false;
      const unsigned fi = (unsigned)(di[k] + 2 * dj[k]); /* its place in fp */
      if (fold && (int)fi == fp.corner) {
         corner = (int)k;
         continue;
      }
      if (fold ? !texel(c, v, level, layer - face + fp.face[fi], fp.x[fi], fp.y[fi], 0, raw)
               : !fetch_wrapped_raw(c, v, s, level, layer, x0 + di[k], y0 + dj[k], raw, &border))
         return false;
      float f[4];
      if (border) {
         memcpy(raw, s->border_color, sizeof(raw));
         border_texel(s, f);
      } else {
         for (unsigned i = 0; i < 4; i++)
            f[i] = r_f(raw[i]);
      }
      if (compare) {
         float r = ref;
         if (v->t.format == VAGX_FORMAT_Z16_UNORM || v->t.format == VAGX_FORMAT_Z24_UNORM_S8_UINT)
            r = !(r > 0) ? 0 : r > 1 ? 1 : r;
         out[k] = r_u(cmp(s->compare_func, r, f[0]));
      } else {
         out[k] = integer ? swz_int(raw, sz) : r_u(swz(f, sz));
      }
   }
   if (corner >= 0)
      out[corner] = gather_avg3(v, integer, compare, out[(corner + 1) & 3], out[(corner + 2) & 3],
                                out[(corner + 3) & 3]);
   return true;
}

/* `tex` on a BUFFER texture: texel i of a fetch (dim buf) is at base_va +
 * i x bytes per texel, 0 at or past buffer_elements (GL's out-of-range
 * buffer texel fetch); the size query gives buffer_elements; every other
 * mode or dim reads 0 (render.md, "Buffer textures"). */
static enum vagx_usc_status tex_buffer(struct rtexctx *c, struct vagx_usc_gfx_call *call,
                                       const struct tview *v, unsigned mode, unsigned dim)
{
   const unsigned r0 = call->instr->src[0].idx;
   const unsigned bpt = vagx_format_bytes_per_block(v->t.format);
   const bool integer = vagx_format_is_integer(v->t.format);
   const enum vagx_swizzle sz[4] = {v->t.swizzle_r, v->t.swizzle_g, v->t.swizzle_b,
                                    v->t.swizzle_a};
   const uint8_t *null_page = vagx_dst_extra(call->instr) ? c->j->env->mem->null_page : NULL;
   if (r0 >= c->p->desc.gpr_count)
      return VAGX_USC_ILLEGAL_INSTRUCTION;
   if (vagx_dst_extra(call->instr))
      resid_out(call, 0);
   for (unsigned l = 0; l < 32; l++) {
      if (!(call->exec >> l & 1))
         continue;
      uint32_t t[4] = {0, 0, 0, 0};
      if (mode == VAGX_TEXMODE_SIZE) {
         call->out[0][l] = v->t.buffer_elements;
         call->out[1][l] = call->out[2][l] = call->out[3][l] = 0;
         continue;
      }
      const uint32_t i = call->regs[r0][l];
      if (mode == VAGX_TEXMODE_FETCH && dim == VAGX_DIM_BUF && i < v->t.buffer_elements) {
         const uint8_t *p = r_map(c->j, c->worker, v->t.base_va + (uint64_t)i * bpt, bpt,
                                  VAGX_USC_ACC_READ, VAGX_UNIT_TEX);
         if (!p)
            return VAGX_USC_FAULT;
         if (null_hit(null_page, p))
            call->out[4][l] = 1;
         r_fmt_unpack(v->t.format, p, t);
      } else if (mode != VAGX_TEXMODE_FETCH || dim != VAGX_DIM_BUF) {
         for (unsigned k = 0; k < 4; k++)
            call->out[k][l] = 0;
         continue;
      }
      float f[4];
      for (unsigned k = 0; k < 4; k++)
         f[k] = r_f(t[k]);
      for (unsigned k = 0; k < 4; k++)
         call->out[k][l] = integer ? swz_int(t, sz[k]) : r_u(swz(f, sz[k]));
   }
   return VAGX_USC_OK;
}

/* The lane parameters of a->addr's texture with the current span state
 * (render_io.h: translations kept while no safepoint expired them). */
static void lanes_spans(struct rtexctx *c, struct rdesc_tex *e, struct rtex_lanes *a)
{
   const uint64_t sp = c->j->dev->w[c->worker].safepoints;
   if (e->span_sp != sp) {
      r_span_reset(&e->span[0]);
      r_span_reset(&e->span[1]);
   }
   e->span_sp = sp;
   a->span = &e->span[0];
   a->span2 = &e->span[1];
}

/* The lane path's view of v's base level (layer 0): its addressing and
 * the last translations while no safepoint intervened, from the
 * descriptor cache when v has an entry there (else in v and *span2), the
 * size, format and swizzle; the caller sets the sampling fields. */
static void lanes_base(struct rtexctx *c, struct tview *v, struct rtex_lanes *a,
                       struct rspan *span2)
{
   const unsigned base = v->t.base_level;
   const int w = (int)v->l->level[base].width_px, h = (int)v->l->level[base].height_px;
   struct rdesc_tex *e = v->dc;
   memset(a, 0, sizeof(*a));
   a->j = c->j;
   a->worker = c->worker;
   a->va = v->va;
   a->width = w;
   a->height = h;
   a->swap_rb = v->swap_rb;
   a->swizzle[0] = v->t.swizzle_r;
   a->swizzle[1] = v->t.swizzle_g;
   a->swizzle[2] = v->t.swizzle_b;
   a->swizzle[3] = v->t.swizzle_a;
   if (e) {
      if (e->base_fit < 0) {
         r_addr_init(&e->base_addr, v->l, base, 0);
         e->base_fit = r_tex2d_lanes_fit(&e->base_addr, w, h);
      }
      lanes_spans(c, e, a);
      a->addr = &e->base_addr;
      a->fit = (enum r_lanes_fit)e->base_fit;
   } else {
      r_span_reset(span2);
      r_addr_init(&v->addr, v->l, base, 0);
      v->addr_level = base;
      v->addr_layer = 0;
      a->span = &v->span;
      a->span2 = span2;
      a->addr = &v->addr;
      a->fit = r_tex2d_lanes_fit(&v->addr, w, h);
   }
}

/* texelFetch of level 0 of an RGBA8/BGRA8 2D texture (the background
 * program's load of a render target, every lane at its own pixel) by the
 * lane path: with every active lane inside the base level at LOD 0, the
 * texel at (x, y) is what NEAREST sampling returns at the unnormalized
 * centre (x + 0.5, y + 0.5) (exact in float below 2^23, inside the level
 * so no wrap applies).  Returns -1 when a lane is outside or at another
 * LOD (r_tex_exec's generic loop returns zero texels or other levels). */
static int tex2d_fetch_lanes(struct rtexctx *c, struct vagx_usc_gfx_call *call, struct tview *v,
                             unsigned r0)
{
   const unsigned base = v->t.base_level;
   if (base > v->t.max_level || base >= v->l->levels_alloc || v->l->layers == 0 ||
       v->t.dimension != VAGX_DIMENSION_2D || v->l->sample_count_sa != 1)
      return -1;
   const uint32_t w = v->l->level[base].width_px, h = v->l->level[base].height_px;
   uint32_t u[32], t[32], out_of = 0;
   for (unsigned l = 0; l < 32; l++) {
      const uint32_t x = call->regs[r0][l], y = call->regs[r0 + 1][l];
      out_of |= (call->exec >> l & 1) & (uint32_t)(x >= w || y >= h || call->src[1][l] != 0);
      u[l] = r_u((float)(x & 0xffffff) + 0.5f);
      t[l] = r_u((float)(y & 0xffffff) + 0.5f);
   }
   if (out_of || w > 1u << 23 || h > 1u << 23)
      return -1;
   struct rtex_lanes a;
   struct rspan span2;
   lanes_base(c, v, &a, &span2);
   if (a.fit == R_LANES_NONE)
      return -1;
   a.wrap_s = a.wrap_t = VAGX_WRAP_CLAMP_TO_EDGE;
   a.unnormalized = true;
   a.exec = call->exec;
   a.u = u;
   a.t = t;
   a.out = call->out;
   return r_tex2d_unorm8_lanes(&a) ? VAGX_USC_OK : VAGX_USC_FAULT;
}

/* A 2D AUTO sample of the texture and sampler pair whose lane path
 * r_tex_exec took before in this job (rdesc_tex.lanes_ok): the same
 * parameters from the descriptor cache, without unpacking or testing
 * again.  Returns -1 when the pair has no such entry (r_tex_exec decides). */
static int tex2d_lanes_again(struct rtexctx *c, uint32_t exec, const uint32_t (*regs)[32],
                             uint32_t (*out)[32], unsigned ti, unsigned si, unsigned r0)
{
   const struct vagx_usc_program *pd = &c->p->desc;
   struct rdesc_cache *dc = desc_cache(c, ti, pd->texture_count);
   if (!dc || si >= pd->sampler_count || r0 + 2 > pd->gpr_count)
      return -1;
   const uint64_t va = pd->texture_va + ti * 32ull, sva = pd->sampler_va + si * 32ull;
   for (unsigned i = 0; i < dc->ntex; i++) {
      struct rdesc_tex *e = &dc->tex[i];
      if (e->va != va)
         continue;
      if (!e->lanes_ok || e->lanes_smp != sva)
         return -1;
      const unsigned base = e->t.base_level;
      struct rtex_lanes a = {
         .j = c->j, .worker = c->worker, .addr = &e->base_addr, .va = e->t.base_va,
         .width = (int)e->l.level[base].width_px, .height = (int)e->l.level[base].height_px,
         .wrap_s = e->lanes_wrap_s, .wrap_t = e->lanes_wrap_t,
         .unnormalized = e->lanes_unnormalized, .linear = e->lanes_linear,
         .swap_rb = e->t.format == VAGX_FORMAT_BGRA8_UNORM ? 2 : 0,
         .swizzle = {e->t.swizzle_r, e->t.swizzle_g, e->t.swizzle_b, e->t.swizzle_a},
         .fit = (enum r_lanes_fit)e->base_fit, .exec = exec, .u = regs[r0],
         .t = regs[r0 + 1], .out = out,
      };
      lanes_spans(c, e, &a);
      return r_tex2d_unorm8_lanes(&a) ? VAGX_USC_OK : VAGX_USC_FAULT;
   }
   return -1;
}

/* Whether `tex` I may take an earlier lane path again (tex2d_lanes_again):
 * a fragment's 2D AUTO sample without array, comparison or residency. */
static bool lanes_again_ok(const struct rtexctx *c, const struct vagx_instr *I)
{
   const unsigned mode = I->mod & 7, dim = (I->imm[1] >> 16) & 7;
   const bool array = (I->imm[1] >> 19) & 1, shadow = (I->imm[1] >> 20) & 1;
   return mode == VAGX_TEXMODE_AUTO && dim == VAGX_DIM__2D && !array && !shadow && c->fragment &&
          !vagx_dst_extra(I);
}

int r_tex_lanes_regs(struct rtexctx *c, const struct vagx_instr *I, uint32_t exec,
                     uint32_t (*regs)[32])
{
   /* the lane path reads every coordinate before it writes a result, so
    * the destination may overlap the coordinates */
   if (!lanes_again_ok(c, I))
      return -1;
   return tex2d_lanes_again(c, exec, (const uint32_t (*)[32])regs, regs + I->dst, I->imm[1] & 0xff,
                            (I->imm[1] >> 8) & 0xff, I->src[0].idx);
}

enum vagx_usc_status r_tex_exec(struct rtexctx *c, struct vagx_usc_gfx_call *call)
{
   const struct vagx_instr *I = call->instr;
   const unsigned mode = I->mod & 7, ti = I->imm[1] & 0xff, si = (I->imm[1] >> 8) & 0xff;
   const unsigned dim = (I->imm[1] >> 16) & 7;
   const bool array = (I->imm[1] >> 19) & 1, shadow = (I->imm[1] >> 20) & 1;
   const struct vagx_usc_program *pd = &c->p->desc;
   /* a fragment's tex that an earlier lane path could take again did not
    * get here: the shader core offered it to r_tex_lanes_regs first
    * (vagx_usc_gfx_ops.tex_regs), which found no such entry */
   struct tview v;
   enum vagx_usc_status st = tex_desc(c, ti, &v);
   if (st)
      return st;
   if (v.t.dimension == VAGX_DIMENSION_BUFFER)
      return tex_buffer(c, call, &v, mode, dim);
   v.va = v.t.base_va;
   tview_fast_init(c, &v);
   const bool resid = vagx_dst_extra(I) != 0;
   if (resid) {
      /* the generic path, which sees every texel's host address (the fast
       * paths reuse translations and do not look), the same results */
      v.fast = v.unorm8 = false;
      v.null_page = c->j->env->mem->null_page;
   }
   const unsigned r0 = I->src[0].idx;
   if (mode == VAGX_TEXMODE_FETCH && dim == VAGX_DIM__2D && !array && v.unorm8 &&
       r0 + 2 <= pd->gpr_count) {
      const int fetched = tex2d_fetch_lanes(c, call, &v, r0);
      if (fetched >= 0)
         return (enum vagx_usc_status)fetched;
   }
   struct vagx_sampler s;
   memset(&s, 0, sizeof(s));
   s.wrap_s = s.wrap_t = s.wrap_r = VAGX_WRAP_CLAMP_TO_EDGE;
   if (mode != VAGX_TEXMODE_FETCH && mode != VAGX_TEXMODE_SIZE && mode != VAGX_TEXMODE_LEVELS) {
      st = smp_desc(c, si, &s);
      if (st)
         return st;
   }
   /* seamless cube maps ignore the wrap modes: NEAREST clamps to the face's
    * edges, LINEAR reads past them from the neighbouring faces (render.md) */
   const bool seamless = dim == VAGX_DIM_CUBE && s.seamless_cube;
   if (seamless)
      s.wrap_s = s.wrap_t = VAGX_WRAP_CLAMP_TO_EDGE;
   const unsigned nc = coord_count(dim, array);
   if (r0 + nc > pd->gpr_count || (mode == VAGX_TEXMODE_GRAD && I->src[1].idx + 2 * nc > pd->gpr_count))
      return VAGX_USC_ILLEGAL_INSTRUCTION;
   const bool integer = vagx_format_is_integer(v.t.format) ||
                        (vagx_format_kind(v.t.format) == VAGX_FORMAT_KIND_DEPTH_STENCIL && v.t.sample_stencil);
   const unsigned base = v.t.base_level, maxl = v.t.max_level;
   /* Implicit LOD of a fragment quad: it comes from the quad's derivatives
    * only (not for cube maps: the face is the lane's), so the four lanes of
    * a quad share it and it is computed once per quad. */
   const bool quad_lod_ok = v.fast && c->fragment && dim != VAGX_DIM_CUBE &&
                            (mode == VAGX_TEXMODE_AUTO || mode == VAGX_TEXMODE_BIAS);
   unsigned quad_lod_q = ~0u;
   double quad_lod = 0;
   /* and, for AUTO, the levels and filter that LOD selects */
   bool quad_lin = false;
   unsigned quad_l0 = 0, quad_l1 = 0;
   double quad_mf = 0;

   /* The same filter for minification and magnification and no mipmaps:
    * the LOD cannot change the result (level base, that filter), so it is
    * not computed; the rest is the loop below's path for these lanes
    * (tex_fast_sampling compares). */
   if (quad_lod_ok && mode == VAGX_TEXMODE_AUTO && dim == VAGX_DIM__2D && !array && !shadow &&
       !s.compare_enable && v.unorm8 && s.min_filter == s.mag_filter &&
       s.mip_filter == VAGX_MIP_FILTER_NONE) {
      const bool lin = s.min_filter == VAGX_FILTER_LINEAR;
      if (s.wrap_s != VAGX_WRAP_CLAMP_TO_BORDER && s.wrap_t != VAGX_WRAP_CLAMP_TO_BORDER &&
          base < v.l->levels_alloc && v.l->layers > 0) {
         struct rtex_lanes a;
         struct rspan span2;
         lanes_base(c, &v, &a, &span2);
         struct rdesc_tex *e = v.dc;
         if (e) {
            /* the next tex of this pair goes straight to the lanes
             * (tex2d_lanes_again) */
            e->lanes_ok = a.fit != R_LANES_NONE;
            e->lanes_smp = pd->sampler_va + si * 32ull;
            e->lanes_linear = lin;
            e->lanes_unnormalized = s.unnormalized;
            e->lanes_wrap_s = (uint8_t)s.wrap_s;
            e->lanes_wrap_t = (uint8_t)s.wrap_t;
         }
         a.wrap_s = s.wrap_s;
         a.wrap_t = s.wrap_t;
         a.unnormalized = s.unnormalized;
         a.linear = lin;
         a.exec = call->exec;
         a.u = call->regs[r0];
         a.t = call->regs[r0 + 1];
         a.out = call->out;
         if (a.fit != R_LANES_NONE)
            return r_tex2d_unorm8_lanes(&a) ? VAGX_USC_OK : VAGX_USC_FAULT;
      }
      for (unsigned l = 0; l < 32; l++) {
         if (!(call->exec >> l & 1))
            continue;
         float res[4];
         if (!sample_level(c, &v, &s, base, 0, r_f(call->regs[r0][l]),
                           r_f(call->regs[r0 + 1][l]), lin, res))
            return VAGX_USC_FAULT;
         call->out[0][l] = r_u(swz(res, v.t.swizzle_r));
         call->out[1][l] = r_u(swz(res, v.t.swizzle_g));
         call->out[2][l] = r_u(swz(res, v.t.swizzle_b));
         call->out[3][l] = r_u(swz(res, v.t.swizzle_a));
      }
      return VAGX_USC_OK;
   }

   for (unsigned l = 0; l < 32; l++) {
      if (!(call->exec >> l & 1))
         continue;
      v.lane = l;
      float res[4] = {0, 0, 0, 0};
      uint32_t ires[4] = {0, 0, 0, 0};
      bool as_int = integer;
      if (mode == VAGX_TEXMODE_SIZE) {
         unsigned lv = base + call->src[1][l];
         if (lv < v.l->levels_alloc && lv <= maxl) {
            ires[0] = v.l->level[lv].width_px;
            ires[1] = v.l->level[lv].height_px;
            ires[2] = vagx_layout_level_depth(v.l, lv);
            if (v.t.dimension == VAGX_DIMENSION_CUBE || v.t.dimension == VAGX_DIMENSION_CUBE_ARRAY)
               ires[2] /= 6;
         }
         as_int = true;
      } else if (mode == VAGX_TEXMODE_LEVELS) {
         ires[0] = maxl - base + 1;
         as_int = true;
      } else if (mode == VAGX_TEXMODE_FETCH) {
         int x = (int)call->regs[r0][l], y = nc > 1 ? (int)call->regs[r0 + 1][l] : 0;
         unsigned layer = 0;
         unsigned lv = base + call->src[1][l];
         if (dim == VAGX_DIM__3D || (nc >= 3 && array) || (dim == VAGX_DIM__1D && array))
            layer = call->regs[r0 + nc - 1][l];
         if (dim == VAGX_DIM__1D && array)
            y = 0;
         uint32_t t[4] = {0, 0, 0, 0};
         unsigned smp = dim == VAGX_DIM__2DMS ? call->src[1][l] : 0;
         if (dim == VAGX_DIM__2DMS)
            lv = 0;
         if (lv <= maxl && layer < 0x10000 && smp < v.l->sample_count_sa &&
             !texel(c, &v, lv, layer, x, y, smp, t))
            return VAGX_USC_FAULT;
         for (unsigned k = 0; k < 4; k++)
            res[k] = r_f(t[k]);
         memcpy(ires, t, sizeof(t));
      } else {
         double u = r_f(call->regs[r0][l]);
         double t = nc > 1 ? r_f(call->regs[r0 + 1][l]) : 0.5;
         unsigned layer = 0, face = 0;
         double lodv = 0;
         if (dim == VAGX_DIM_CUBE) {
            double cu, cv;
            cube_face(u, t, r_f(call->regs[r0 + 2][l]), &face, &cu, &cv);
            u = cu;
            t = cv;
            layer = face;
            if (array) {
               /* GL: cube = clamp(floor(a + 1/2), 0, cubes - 1) */
               const int cubes = (int)v.t.depth / 6, a = floor_i(r_f(call->regs[r0 + 3][l]) + 0.5);
               layer += 6 * (unsigned)(a < 0 ? 0 : a > cubes - 1 ? cubes - 1 : a);
            }
         } else if (array) {
            /* GL 8.14.2: layer = clamp(floor(a + 1/2), 0, layers - 1) */
            const int a = floor_i(r_f(call->regs[r0 + nc - 1][l]) + 0.5), mx = (int)v.t.depth - 1;
            layer = (unsigned)(a < 0 ? 0 : a > mx ? mx : a);
         }
         double w3 = dim == VAGX_DIM__3D ? r_f(call->regs[r0 + 2][l]) : 0;
         if (mode == VAGX_TEXMODE_GATHER) {
            /* at the base level, never filtered; results already swizzled */
            uint32_t g[4];
            if (!gather_level(c, &v, &s, base, layer, seamless, face, u, t, call->src[1][l] & 3,
                              integer, shadow || s.compare_enable, r_f(call->src[2][l]), g))
               return VAGX_USC_FAULT;
            for (unsigned k = 0; k < 4; k++)
               call->out[k][l] = g[k];
            continue;
         }
         bool lin;
         unsigned l0, l1;
         double mf;
         if (mode == VAGX_TEXMODE_AUTO && quad_lod_ok && (l & ~3u) == quad_lod_q) {
            /* AUTO has no per-lane bias: the quad's first lane chose */
            lin = quad_lin;
            l0 = quad_l0;
            l1 = quad_l1;
            mf = quad_mf;
         } else {
            /* LOD */
            if (mode == VAGX_TEXMODE_LOD) {
               lodv = r_f(call->src[1][l]);
            } else if (quad_lod_ok && (l & ~3u) == quad_lod_q) {
               lodv = quad_lod;
               if (mode == VAGX_TEXMODE_BIAS)
                  lodv += r_f(call->src[1][l]);
            } else {
               double dudx = 0, dudy = 0, dvdx = 0, dvdy = 0;
               const struct vagx_layout_level *lb = &v.l->level[base];
               if (mode == VAGX_TEXMODE_GRAD && dim == VAGX_DIM_CUBE) {
                  /* explicit direction derivatives, taken to the face */
                  const unsigned g = I->src[1].idx;
                  double p[3], dx[3], dy[3];
                  for (unsigned k = 0; k < 3; k++) {
                     p[k] = r_f(call->regs[r0 + k][l]);
                     dx[k] = r_f(call->regs[g + k][l]);
                     dy[k] = r_f(call->regs[g + nc + k][l]);
                  }
                  cube_deriv(face, p, dx, &dudx, &dvdx);
                  cube_deriv(face, p, dy, &dudy, &dvdy);
               } else if (mode == VAGX_TEXMODE_GRAD) {
                  unsigned g = I->src[1].idx;
                  dudx = r_f(call->regs[g][l]);
                  dvdx = nc > 1 ? r_f(call->regs[g + 1][l]) : 0;
                  dudy = r_f(call->regs[g + nc][l]);
                  dvdy = nc > 1 ? r_f(call->regs[g + nc + 1][l]) : 0;
               } else if (c->fragment && dim == VAGX_DIM_CUBE) {
                  /* the quad's direction derivatives, taken to this lane's face */
                  const unsigned q = l & ~3u;
                  double p[3], dx[3], dy[3];
                  for (unsigned k = 0; k < 3; k++) {
                     p[k] = r_f(call->regs[r0 + k][q]);
                     dx[k] = r_f(call->regs[r0 + k][q + 1]) - p[k];
                     dy[k] = r_f(call->regs[r0 + k][q + 2]) - p[k];
                  }
                  cube_deriv(face, p, dx, &dudx, &dvdx);
                  cube_deriv(face, p, dy, &dudy, &dvdy);
               } else if (c->fragment) {
                  unsigned q = l & ~3u;
                  dudx = r_f(call->regs[r0][q + 1]) - r_f(call->regs[r0][q]);
                  dudy = r_f(call->regs[r0][q + 2]) - r_f(call->regs[r0][q]);
                  if (nc > 1) {
                     dvdx = r_f(call->regs[r0 + 1][q + 1]) - r_f(call->regs[r0 + 1][q]);
                     dvdy = r_f(call->regs[r0 + 1][q + 2]) - r_f(call->regs[r0 + 1][q]);
                  }
               }
               if (!s.unnormalized) {
                  dudx *= lb->width_px; dudy *= lb->width_px;
                  dvdx *= lb->height_px; dvdy *= lb->height_px;
               }
               double rx = dudx * dudx + dvdx * dvdx, ry = dudy * dudy + dvdy * dvdy;
               double rho2 = rx > ry ? rx : ry;
               lodv = rho2 > 0 ? 0.5 * log2(rho2) : -1000.0;
               quad_lod_q = l & ~3u;
               quad_lod = lodv;
               if (mode == VAGX_TEXMODE_BIAS)
                  lodv += r_f(call->src[1][l]);
            }
            lodv += s.lod_bias;
            /* NaN coordinates, derivatives, LOD or bias give a NaN LOD, which
             * would reach the (unsigned) level conversion below: it counts as
             * LOD 0, then clamps like any other (render.md, texture sampling) */
            if (isnan(lodv))
               lodv = 0;
            if (lodv > s.max_lod) lodv = s.max_lod;
            if (lodv < s.min_lod) lodv = s.min_lod;
            const bool mag = lodv <= 0;
            /* integer formats and stencil are never filtered: NEAREST within a
             * level, a LINEAR mip filter picks the nearest level */
            lin = !integer && (mag ? s.mag_filter : s.min_filter) == VAGX_FILTER_LINEAR;
            const enum vagx_mip_filter mipf =
               integer && s.mip_filter == VAGX_MIP_FILTER_LINEAR ? VAGX_MIP_FILTER_NEAREST : s.mip_filter;
            l0 = l1 = base;
            mf = 0;
            if (mipf != VAGX_MIP_FILTER_NONE && !mag) {
               double lv = base + lodv;
               if (lv > maxl) lv = maxl;
               if (mipf == VAGX_MIP_FILTER_NEAREST) {
                  l0 = l1 = (unsigned)floor(lv + 0.5 - 1e-9 < base ? base : lv + 0.5 - 1e-9);
                  if (l0 > maxl) l0 = l1 = maxl;
               } else {
                  l0 = (unsigned)floor(lv);
                  l1 = l0 + 1 > maxl ? maxl : l0 + 1;
                  mf = lv - l0;
               }
            }
            quad_lin = lin;
            quad_l0 = l0;
            quad_l1 = l1;
            quad_mf = mf;
         }
         const bool vol = dim == VAGX_DIM__3D;
         if (integer) {
            if (!sample_nearest_int(c, &v, &s, l0, layer, u, t, w3, vol, ires))
               return VAGX_USC_FAULT;
            /* only a shadow compare reads these: the integer's value */
            const bool sint = vagx_format_kind(v.t.format) == VAGX_FORMAT_KIND_SINT;
            for (unsigned k = 0; k < 4; k++)
               res[k] = sint ? (float)(int32_t)ires[k] : (float)ires[k];
         } else {
            /* sampled straight into res and read back per component: a
             * 16-byte copy of what the callee stored as four floats stalls
             * on store forwarding (17 % of effect2d's r_tex_exec) */
            float b[4];
            if (vol ? !sample_volume(c, &v, &s, l0, u, t, w3, lin, res)
                    : !sample_face(c, &v, &s, seamless, l0, layer, face, u, t, lin, res))
               return VAGX_USC_FAULT;
            if (l1 != l0 && mf > 0) {
               if (vol ? !sample_volume(c, &v, &s, l1, u, t, w3, lin, b)
                       : !sample_face(c, &v, &s, seamless, l1, layer, face, u, t, lin, b))
                  return VAGX_USC_FAULT;
               for (unsigned k = 0; k < 4; k++)
                  res[k] = (float)(res[k] * (1 - mf) + b[k] * mf);
            }
         }
         if (shadow || s.compare_enable) {
            float ref = r_f(call->src[2][l]);
            /* a unorm depth texel is in [0, 1]: so is the reference (GL
             * 4.6 8.23.1; render.md, shadow compares) */
            if (v.t.format == VAGX_FORMAT_Z16_UNORM || v.t.format == VAGX_FORMAT_Z24_UNORM_S8_UINT)
               ref = !(ref > 0) ? 0 : ref > 1 ? 1 : ref;
            res[0] = cmp(s.compare_func, ref, res[0]);
            res[1] = res[2] = 0;
            res[3] = 1;
            as_int = false;
         }
      }
      if (as_int && (mode == VAGX_TEXMODE_SIZE || mode == VAGX_TEXMODE_LEVELS)) {
         for (unsigned k = 0; k < 4; k++)
            call->out[k][l] = ires[k];
      } else if (as_int) {
         const enum vagx_swizzle sz[4] = {v.t.swizzle_r, v.t.swizzle_g, v.t.swizzle_b, v.t.swizzle_a};
         for (unsigned k = 0; k < 4; k++)
            call->out[k][l] = swz_int(ires, sz[k]);
      } else {
         /* one component at a time, for the same reason as above */
         call->out[0][l] = r_u(swz(res, v.t.swizzle_r));
         call->out[1][l] = r_u(swz(res, v.t.swizzle_g));
         call->out[2][l] = r_u(swz(res, v.t.swizzle_b));
         call->out[3][l] = r_u(swz(res, v.t.swizzle_a));
      }
   }
   if (resid)
      resid_out(call, v.nonres);
   return VAGX_USC_OK;
}

/* img_ld / img_st through PBE descriptors.  eot_layer >= 0: end-of-tile
 * store (the layer comes from the descriptor). */
enum vagx_usc_status r_img_exec(struct rtexctx *c, struct vagx_usc_gfx_call *call, int eot_layer)
{
   const struct vagx_instr *I = call->instr;
   const unsigned ii = I->imm[1] & 0xff, dim = (I->imm[1] >> 16) & 7;
   const bool array = (I->imm[1] >> 19) & 1;
   const struct vagx_usc_program *pd = &c->p->desc;
   uint32_t raw[8];
   const char *err;
   struct vagx_pbe pbe;
   enum vagx_usc_status st = get_desc(c, pd->image_va, pd->image_count, ii, raw, VAGX_UNIT_PBE);
   if (st)
      return st;
   struct tview v;
   if (!vagx_pbe_unpack(raw, &pbe, &err) || pbe.format == VAGX_FORMAT_INVALID) {
      r_fail(c->j, VAGX_JOB_STATUS_INVALID_DESCRIPTOR, VAGX_UNIT_PBE, 0, pd->image_va + ii * 32ull);
      return VAGX_USC_FAULT;
   }
   memset(&v.t, 0, sizeof(v.t));
   v.t.format = pbe.format;
   v.t.dimension = pbe.dimension;
   v.t.layout = pbe.layout;
   v.t.samples = pbe.samples;
   v.t.width = pbe.width;
   v.t.height = pbe.height;
   v.t.depth = pbe.depth;
   v.t.levels = pbe.levels;
   v.t.stride = pbe.stride;
   v.t.sparse = pbe.sparse;
   v.va = pbe.base_va;
   tview_fast_init(c, &v);
   v.l = &v.l_buf;
   if (!r_layout_from_texture(&v.t, &v.l_buf)) {
      r_fail(c->j, VAGX_JOB_STATUS_INVALID_DESCRIPTOR, VAGX_UNIT_PBE, 0, pd->image_va + ii * 32ull);
      return VAGX_USC_FAULT;
   }
   const unsigned nc = coord_count(dim, array);
   const unsigned r0 = I->src[0].idx;
   const bool store = I->op == VAGX_OP_IMG_ST;
   if (r0 + nc > pd->gpr_count || (store && I->src[1].idx + 4u > pd->gpr_count))
      return VAGX_USC_ILLEGAL_INSTRUCTION;
   /* img_ld.resid: the texel's page, as tex.resid (isa.md) */
   const uint8_t *null_page = vagx_dst_extra(I) ? c->j->env->mem->null_page : NULL;
   if (vagx_dst_extra(I))
      resid_out(call, 0);
   for (unsigned l = 0; l < 32; l++) {
      if (!(call->exec >> l & 1))
         continue;
      uint32_t x = call->regs[r0][l], y = nc > 1 ? call->regs[r0 + 1][l] : 0;
      uint32_t layer = eot_layer >= 0 ? pbe.layer
                       : (nc > 2 || (dim == VAGX_DIM__1D && array)) ? call->regs[r0 + nc - 1][l] : 0;
      if (dim == VAGX_DIM__1D && array && eot_layer < 0)
         y = 0;
      uint32_t smp = call->src[store ? 2 : 1][l];
      if (x >= v.l->level[pbe.level].width_px || y >= v.l->level[pbe.level].height_px ||
          layer >= v.l->layers || smp >= v.l->sample_count_sa) {
         /* outside: a load gives a texel of zero bits as the format
          * converts it (components the format lacks 0, alpha 1), a
          * store is dropped */
         if (!store) {
            static const uint8_t zero[16];
            uint32_t val[4];
            r_fmt_unpack(pbe.format, zero, val);
            for (unsigned k = 0; k < 4; k++)
               call->out[k][l] = val[k];
         }
         continue;
      }
      uint8_t *p = tview_map(c, &v, pbe.level, layer, x, y, smp,
                             store ? VAGX_USC_ACC_WRITE : VAGX_USC_ACC_READ, VAGX_UNIT_PBE);
      if (!p)
         return VAGX_USC_FAULT;
      if (store) {
         uint32_t val[4];
         for (unsigned k = 0; k < 4; k++)
            val[k] = call->regs[I->src[1].idx + k][l];
         r_fmt_pack(pbe.format, val, p, !pbe.srgb_encode_disable);
      } else {
         uint32_t val[4];
         r_fmt_unpack(pbe.format, p, val);
         for (unsigned k = 0; k < 4; k++)
            call->out[k][l] = val[k];
         if (null_hit(null_page, p))
            call->out[4][l] = 1;
      }
   }
   return VAGX_USC_OK;
}
