/* SPDX-License-Identifier: MIT */
/* vagx renderer, phase 2: one tile.  Background program, depth/stencil
 * load, ISP (rasterisation with the top-left rule, scissor, depth/stencil,
 * occlusion counting), fragment shaders (coefficient registers, tile-buffer
 * access), end-of-tile program, depth/stencil store. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "render_io.h"

/* render_tile_avx2.c compiles this file a second time for AVX2 hosts, its
 * entry points suffixed (render_priv.h). */
#ifndef R_TILE_SFX
#define R_TILE_SFX(name) name
#endif

enum stage { ST_FRAG, ST_BG, ST_EOT };

/* 4X standard pattern in 1/VAGX_SAMPLE_POS_UNITS pixel (the contract's). */
static const int s4x[4][2] = {{VAGX_SAMPLE_4X_0_X, VAGX_SAMPLE_4X_0_Y},
                              {VAGX_SAMPLE_4X_1_X, VAGX_SAMPLE_4X_1_Y},
                              {VAGX_SAMPLE_4X_2_X, VAGX_SAMPLE_4X_2_Y},
                              {VAGX_SAMPLE_4X_3_X, VAGX_SAMPLE_4X_3_Y}};

struct tctx {
   struct rjob *j;
   unsigned worker;
   struct rworker *w;
   int tx0, ty0;                 /* tile origin in pixels */
   enum stage stage;
   const struct rprog *p;
   const struct rdraw *d;
   const struct rprim *prim;
   const struct vagx_usc_plane *cf;
   /* the block's interpolation points (lanes' pixel + sample 0 - primitive
    * origin) for the executor's iter (vagx_usc_env.iter), when iter_on:
    * every lane interpolates at sample 0 (not 4X with multisampling) */
   bool iter_on;
   struct vagx_usc_iter iter;
   double ix[32], iy[32];
   /* the environment of runs of program env_p (per block the same but
    * for iter): built once per program and tile, not per block */
   struct vagx_usc_env env;
   const struct rprog *env_p;
   uint32_t cov[32];             /* per lane sample coverage (after tests) */
   uint32_t helper;              /* lanes that are helpers */
   uint32_t live;                /* lanes shaded for their coverage (not helpers); 1X: the
                                  * lanes whose cov[l] & 1 */
   int px[32], py[32];
   uint32_t killed;              /* lanes the last shader run discarded */
   bool zs_pending;              /* tile depth/stencil not yet set to the clear values */
   bool zq;                      /* the zs image stores depth as unorm: quantize (zq_depth) */
   bool fast_io;                 /* render_io.h fast paths (not VAGX_RENDER_OPT_NO_FAST_IO) */
   bool ref_raster;              /* per-sample edge tests (VAGX_RENDER_OPT_NO_FAST_RASTER) */
   /* late depth/stencil: st_tile writes are staged per rt/sample/lane */
   bool late;
   uint32_t staged[VAGX_MAX_RENDER_TARGETS][VAGX_MAX_SAMPLES];
   uint32_t zout_mask, sout_mask; /* lanes that executed st_zs.depth/.stencil */
   float zout[32];
   uint8_t sout[32];
   /* fragment shaders' special registers: zero once per tile, then do_prim
    * writes the ones it sets (clearing 3.5 KiB per primitive and tile cost
    * 5 % of a frame of small triangles) */
   uint32_t sr[VAGX_SR_COUNT][32];
   /* what sr's per-primitive rows (front face, blend colour) hold, valid
    * when sr_prim_set: consecutive primitives mostly repeat them */
   bool sr_prim_set;
   uint32_t sr_front, sr_blend[4];
   bool sr_helper_set;           /* sr's helper-lane row is not all zero */
   /* last: not cleared per tile (only read where `staged` says it was written) */
   uint8_t stage_buf[VAGX_MAX_RENDER_TARGETS][VAGX_MAX_SAMPLES][32][16];
};

static inline uint8_t *tb_at(struct tctx *c, unsigned rt, unsigned s, int lx, int ly)
{
   struct rjob *j = c->j;
   return c->w->tb + j->rt_off[rt] +
          ((size_t)s * R_TS * R_TS + (size_t)ly * R_TS + (size_t)lx) * j->rt_bpp[rt];
}

static void sample_pos(const struct rjob *j, const struct rdraw *d, unsigned s, double *x, double *y)
{
   if (j->samples == 4 && (!d || d->rs.multisample)) {
      *x = s4x[s][0] / (double)VAGX_SAMPLE_POS_UNITS;
      *y = s4x[s][1] / (double)VAGX_SAMPLE_POS_UNITS;
   } else {
      double h = (!d || d->rs.half_pixel_center) ? 0.5 : 0.0;
      *x = *y = h;
   }
}

/* Bit (lane) of pixel (x, y) of an 8x4 block: the inverse of lane_xy. */
#define LANE_OF(x, y) ((((y) >> 1) * 4 + ((x) >> 1)) * 4 + ((x) & 1) + ((y) & 1) * 2)

/* A fragment block's lanes address sample 0 of their own pixels (the
 * sample index is 0 in every lane): the block's origin in the tile (lane 0's
 * pixel; do_prim lays lane l at lane_xy(l) from it) in *bx, *by. */
static bool block_sample0(const struct tctx *c, const uint32_t *sample, int *bx, int *by)
{
   uint32_t any = 0;
   for (unsigned l = 0; l < 32; l++)
      any |= sample[l];
   *bx = c->px[0] - c->tx0;
   *by = c->py[0] - c->ty0;
   return !any && *bx >= 0 && *by >= 0 && *bx + 8 <= R_TS && *by + 4 <= R_TS;
}

/* The tile-buffer pixel lane l of a single-sampled st_tile stores to: its
 * sample 0 when covered and inside the tile, else NULL. */
static inline uint8_t *st_rgba8_px(const struct tctx *c, const struct vagx_usc_gfx_call *call,
                                   uint8_t *base, unsigned l)
{
   const int lx = c->px[l] - c->tx0, ly = c->py[l] - c->ty0;
   if (call->src[1][l] != 0 || !(c->cov[l] & 1) || lx < 0 || ly < 0 || lx >= R_TS || ly >= R_TS)
      return NULL;
   return base + ((size_t)ly * R_TS + (size_t)lx) * 4;
}

/* r_unorm_enc(v, 8) in float, where it is exact: t = v * 255 rounded to
 * float, clamped (NaN to 0), rounded to the nearest integer k by adding
 * 2^23.  The float product is within half an ulp of the exact one, and
 * rounding can move it onto a half-integer (a float) but never past one, so
 * k is the exact product's nearest integer unless t is a half-integer, that
 * is |t - k| = 0.5.  *tie keeps the minimum over the lanes of a word that
 * is 0 exactly then (|t - k|'s bits xor 0.5's: a min reduction vectorises,
 * a compare's did not), and the caller takes r_unorm_round's double path.
 * Eight lanes per AVX2 operation instead of four doubles. */
static inline uint32_t unorm8_f(uint32_t bits, uint32_t *tie)
{
   float t = r_f(bits) * 255.0f;
   t = t > 0 ? t : 0;
   t = t < 255.0f ? t : 255.0f;
   const float k = (t + 0x1p23f) - 0x1p23f;
   const uint32_t d = (r_u(t - k) & 0x7fffffffu) ^ r_u(0.5f);
   *tie = *tie < d ? *tie : d;
   return (uint32_t)(int32_t)k;
}

static inline uint32_t unorm8_enc(uint32_t bits, bool dbl, uint32_t *tie)
{
   return dbl ? (uint32_t)(int32_t)r_unorm_round(r_f(bits), 255.0) : unorm8_f(bits, tie);
}

/* The words of encode_rgba8_lanes, with r_unorm_round (dbl) or unorm8_f;
 * whether a lane met a tie (unorm8_f).  The first component assigns
 * (zeroing the words first became a `rep stos`, 8 % of frag_exec on
 * effect2d for its start-up); each loop vectorises. */
static inline __attribute__((always_inline)) bool
encode_rgba8_words(const uint32_t *const ch[4], unsigned sw, bool dbl, uint32_t *word)
{
   uint32_t tie = ~0u;
   const unsigned sh0 = 8 * sw;
   for (unsigned l = 0; l < 32; l++)
      word[l] = unorm8_enc(ch[0][l], dbl, &tie) << sh0;
   for (unsigned k = 1; k < 4; k++) {
      const unsigned sh = 8 * ((k & 1) ? k : k ^ sw);
      const uint32_t *v = ch[k];
      for (unsigned l = 0; l < 32; l++)
         word[l] |= unorm8_enc(v[l], dbl, &tie) << sh;
   }
   return tie == 0;
}

/* r_unorm_enc(v, 8) of the four channels of all 32 lanes (r_unorm_round),
 * as the words an RGBA8 (sw = 0) or BGRA8 (sw = 2) pixel holds (byte k at
 * bits 8k, as r_wr32 stores them). */
static void encode_rgba8_lanes(const uint32_t *r, const uint32_t *g, const uint32_t *b,
                               const uint32_t *a, unsigned sw, uint32_t *word)
{
   const uint32_t *const ch[4] = {r, g, b, a};
   if (encode_rgba8_words(ch, sw, false, word))
      encode_rgba8_words(ch, sw, true, word);
}

static enum vagx_usc_status frag_exec(void *ctx, struct vagx_usc_gfx_call *call)
{
   struct tctx *c = ctx;
   struct rjob *j = c->j;
   const struct vagx_instr *I = call->instr;
   switch (I->op) {
   case VAGX_OP_ITER:
   case VAGX_OP_LDCF: {
      /* the executor runs them itself where the run has c->iter (the .f16
       * forms excepted): here .f16, 4X multisampling's per-lane points and
       * the errors */
      if (c->stage != ST_FRAG)
         return VAGX_USC_ILLEGAL_INSTRUCTION;
      const unsigned ncf = c->d->ncf;
      const unsigned ci = I->src[0].idx;
      const bool f16 = I->op == VAGX_OP_ITER ? VAGX_MOD_ITER_F16(I->mod) : VAGX_MOD_LDCF_F16(I->mod);
      /* what does not change from lane to lane */
      const unsigned loc = VAGX_MOD_ITER_LOC(I->mod), persp = VAGX_MOD_ITER_PERSP(I->mod);
      const unsigned wi = I->src[1].idx;
      const bool per_lane_pos = j->samples == 4 && c->d->rs.multisample;
      double ox0, oy0;
      sample_pos(j, c->d, 0, &ox0, &oy0);
      /* copies: the stores to call->out could alias them for the compiler */
      const struct vagx_usc_plane vc = ci < ncf ? c->cf[ci] : (struct vagx_usc_plane){0, 0, 0, 0};
      const struct vagx_usc_plane wc = wi < ncf ? c->cf[wi] : (struct vagx_usc_plane){0, 0, 0, 0};
      const double px0 = c->prim->x0, py0 = c->prim->y0;
      for (unsigned l = 0; l < 32; l++) {
         if (!(call->exec >> l & 1))
            continue;
         float r = 0;
         if (I->op == VAGX_OP_LDCF) {
            r = ci < ncf ? r_f(c->cf[ci].flat) : 0;
         } else {
            double ox = ox0, oy = oy0;
            if (per_lane_pos) {
               ox = oy = c->d->rs.half_pixel_center ? 0.5 : 0.0;
               unsigned s = 4;
               if (loc == VAGX_ITERLOC_SAMPLE)
                  s = call->src[2][l] & 3;
               else if (loc == VAGX_ITERLOC_CENTROID && c->cov[l] != 0xf && c->cov[l])
                  s = (unsigned)__builtin_ctz(c->cov[l]);
               if (s < 4)
                  sample_pos(j, c->d, s, &ox, &oy);
            }
            const double X = c->px[l] + ox - px0, Y = c->py[l] + oy - py0;
            double v = 0;
            if (ci < ncf)
               v = vc.c + vc.a * X + vc.b * Y;
            if (persp) {
               double w = wi < ncf ? wc.c + wc.a * X + wc.b * Y : 1;
               v = v / w;
            }
            r = (float)v;
         }
         call->out[0][l] = f16 ? r_float_to_half(r) : r_u(r);
      }
      return VAGX_USC_OK;
   }
   case VAGX_OP_LD_TILE:
   case VAGX_OP_ST_TILE: {
      const unsigned rt = I->mod & 7;
      const bool st = I->op == VAGX_OP_ST_TILE;
      /* packing is the costly part of st_tile: lanes storing the same value
       * as the previous lane reuse its encoding */
      uint32_t last[4] = {0, 0, 0, 0};
      uint8_t enc[16];
      bool have_enc = false;
      if (st && I->src[0].idx + 4u > c->p->desc.gpr_count)
         return VAGX_USC_ILLEGAL_INSTRUCTION;
      if (st && c->stage == ST_FRAG && !c->late && j->samples == 1 && rt < j->rj.rt_count &&
          (j->rj.rt_format[rt] == VAGX_FORMAT_RGBA8_UNORM ||
           j->rj.rt_format[rt] == VAGX_FORMAT_BGRA8_UNORM)) {
         /* a fragment's colour to a single-sampled RGBA8/BGRA8 target, the
          * common store: what the loop below does for it (sample 0 of
          * every covered non-helper lane, r_fmt_pack's encoding), without
          * its per-lane tests of the stage, the format and the staging */
         const uint32_t *rr = call->regs[I->src[0].idx], *rg = call->regs[I->src[0].idx + 1];
         const uint32_t *rb = call->regs[I->src[0].idx + 2], *ra = call->regs[I->src[0].idx + 3];
         const unsigned sw = j->rj.rt_format[rt] == VAGX_FORMAT_BGRA8_UNORM ? 2 : 0;
         uint8_t *base = c->w->tb + j->rt_off[rt];
         uint32_t m = call->exec & ~c->helper;
         if (__builtin_popcount(m) >= 8) {
            /* most of the block: every lane's encoding at once (vectorised),
             * then the lanes that store it */
            uint32_t word[32];
            encode_rgba8_lanes(rr, rg, rb, ra, sw, word);
            int bx, by;
            if (block_sample0(c, call->src[1], &bx, &by)) {
               /* each lane's own pixel of the block, row by row: a row's
                * 8 words read, the stored lanes' selected in, written back
                * (without a branch per pixel; the tile buffer is the
                * worker's own) */
               m &= c->live;
               for (unsigned r = 0; r < 4; r++) {
                  uint8_t *row = base + ((size_t)(by + (int)r) * R_TS + (size_t)bx) * 4;
                  uint32_t cur[8];
                  memcpy(cur, row, sizeof(cur));
                  for (unsigned x = 0; x < 8; x++) {
                     const uint32_t sel = 0u - (m >> LANE_OF(x, r) & 1);
                     cur[x] = (r_le32(word[LANE_OF(x, r)]) & sel) | (cur[x] & ~sel);
                  }
                  memcpy(row, cur, sizeof(cur));
               }
               return VAGX_USC_OK;
            }
            for (; m; m &= m - 1) {
               uint8_t *p = st_rgba8_px(c, call, base, (unsigned)__builtin_ctz(m));
               if (p)
                  r_wr32(p, word[__builtin_ctz(m)]);
            }
            return VAGX_USC_OK;
         }
         for (; m; m &= m - 1) {
            const unsigned l = (unsigned)__builtin_ctz(m);
            uint8_t *p = st_rgba8_px(c, call, base, l);
            if (!p)
               continue;
            p[0 ^ sw] = (uint8_t)r_unorm_enc(r_f(rr[l]), 8);
            p[1] = (uint8_t)r_unorm_enc(r_f(rg[l]), 8);
            p[2 ^ sw] = (uint8_t)r_unorm_enc(r_f(rb[l]), 8);
            p[3] = (uint8_t)r_unorm_enc(r_f(ra[l]), 8);
         }
         return VAGX_USC_OK;
      }
      if (!st && c->fast_io && j->samples == 1 && rt < j->rj.rt_count &&
          !(c->stage == ST_FRAG && c->late) &&
          (j->rj.rt_format[rt] == VAGX_FORMAT_RGBA8_UNORM ||
           j->rj.rt_format[rt] == VAGX_FORMAT_BGRA8_UNORM)) {
         /* the tile's colour of a single-sampled RGBA8/BGRA8 target (a
          * blend in the shader, an end-of-tile program): what the loop
          * below does for it, decoding as r_fmt_unpack does
          * ((float)(b / 255.0) == (float)b / 255.0f for every byte) */
         const unsigned sw = j->rj.rt_format[rt] == VAGX_FORMAT_BGRA8_UNORM ? 2 : 0;
         const uint8_t *base = c->w->tb + j->rt_off[rt];
         if (__builtin_popcount(call->exec) >= 8) {
            /* most of the block: the lanes' pixels gathered, then decoded
             * together (vectorised); lanes without a pixel read 0 */
            uint32_t word[32], on[32];
            int bx, by;
            if (block_sample0(c, call->src[0], &bx, &by)) {
               /* each lane's own pixel of the block: rows of 8 read whole */
               for (unsigned r = 0; r < 4; r++) {
                  const uint8_t *row = base + ((size_t)(by + (int)r) * R_TS + (size_t)bx) * 4;
                  for (unsigned x = 0; x < 8; x++)
                     word[LANE_OF(x, r)] = r_rd32(row + 4 * x);
               }
               for (unsigned l = 0; l < 32; l++)
                  on[l] = 0u - (call->exec >> l & 1);
            } else {
               for (unsigned l = 0; l < 32; l++) {
                  /* without a branch: lanes without a pixel read the tile's first */
                  const uint32_t lx = (uint32_t)(c->px[l] - c->tx0);
                  const uint32_t ly = (uint32_t)(c->py[l] - c->ty0);
                  const uint32_t in = (call->exec >> l & 1) & (call->src[0][l] == 0) &
                                      (lx < R_TS) & (ly < R_TS);
                  on[l] = 0u - in;
                  word[l] = r_rd32(base + (size_t)((ly * R_TS + lx) & on[l]) * 4) & on[l];
               }
            }
            for (unsigned k = 0; k < 4; k++) {
               /* a local pointer: stores through call->out could otherwise
                * change call->out itself, and the loop would not vectorise */
               uint32_t *restrict o = call->out[k];
               const unsigned sh = 8 * ((k & 1) ? k : k ^ sw);
               for (unsigned l = 0; l < 32; l++)
                  o[l] = r_u((float)(word[l] >> sh & 0xff) / 255.0f) & on[l];
            }
            return VAGX_USC_OK;
         }
         for (uint32_t m = call->exec; m; m &= m - 1) {
            const unsigned l = (unsigned)__builtin_ctz(m);
            const int lx = c->px[l] - c->tx0, ly = c->py[l] - c->ty0;
            if (call->src[0][l] != 0 || lx < 0 || ly < 0 || lx >= R_TS || ly >= R_TS) {
               for (unsigned k = 0; k < 4; k++)
                  call->out[k][l] = 0;
               continue;
            }
            const uint8_t *p = base + ((size_t)ly * R_TS + (size_t)lx) * 4;
            call->out[0][l] = r_u((float)p[0 ^ sw] / 255.0f);
            call->out[1][l] = r_u((float)p[1] / 255.0f);
            call->out[2][l] = r_u((float)p[2 ^ sw] / 255.0f);
            call->out[3][l] = r_u((float)p[3] / 255.0f);
         }
         return VAGX_USC_OK;
      }
      for (unsigned l = 0; l < 32; l++) {
         if (!(call->exec >> l & 1))
            continue;
         uint32_t s = call->src[st ? 1 : 0][l];
         const int lx = c->px[l] - c->tx0, ly = c->py[l] - c->ty0;
         if (rt >= j->rj.rt_count || s >= j->samples || lx < 0 || ly < 0 || lx >= R_TS || ly >= R_TS) {
            if (!st)
               for (unsigned k = 0; k < 4; k++)
                  call->out[k][l] = 0;
            continue;
         }
         uint8_t *p = tb_at(c, rt, s, lx, ly);
         if (c->stage == ST_FRAG && c->late && (!st || !(c->helper >> l & 1)) &&
             (st || (c->staged[rt][s] >> l & 1)))
            p = c->stage_buf[rt][s][l];  /* written by this invocation, not yet tested */
         if (st) {
            if ((c->helper >> l & 1) || !(c->cov[l] >> s & 1))
               continue;
            if (c->stage == ST_FRAG && c->late)
               c->staged[rt][s] |= 1u << l;
            uint32_t v[4];
            for (unsigned k = 0; k < 4; k++)
               v[k] = call->regs[I->src[0].idx + k][l];
            /* the tile buffer holds the format's encoding: SRGB targets
             * store sRGB (ld_tile decodes), as GL blending expects */
            if (!have_enc || memcmp(v, last, sizeof(v))) {
               r_fmt_pack(j->rj.rt_format[rt], v, enc, true);
               memcpy(last, v, sizeof(v));
               have_enc = true;
            }
            if (j->rt_bpp[rt] == 4)
               memcpy(p, enc, 4);   /* the common case, inlined */
            else
               memcpy(p, enc, j->rt_bpp[rt]);
         } else {
            uint32_t v[4];
            r_fmt_unpack(j->rj.rt_format[rt], p, v);
            for (unsigned k = 0; k < 4; k++)
               call->out[k][l] = v[k];
         }
      }
      return VAGX_USC_OK;
   }
   case VAGX_OP_ST_ZS:
      if (c->stage != ST_FRAG)
         return VAGX_USC_ILLEGAL_INSTRUCTION;
      for (unsigned l = 0; l < 32; l++) {
         if (!(call->exec >> l & 1) || (c->helper >> l & 1))
            continue;
         if (I->mod & 1) {
            c->zout[l] = r_f(call->src[0][l]);
            c->zout_mask |= 1u << l;
         }
         if (I->mod & 2) {
            c->sout[l] = (uint8_t)call->src[1][l];
            c->sout_mask |= 1u << l;
         }
      }
      return VAGX_USC_OK;
   case VAGX_OP_TEX: {
      struct rtexctx t = {j, c->worker, c->p, c->stage == ST_FRAG};
      return r_tex_exec(&t, call);
   }
   case VAGX_OP_IMG_LD:
   case VAGX_OP_IMG_ST: {
      struct rtexctx t = {j, c->worker, c->p, c->stage == ST_FRAG};
      if (I->op == VAGX_OP_IMG_ST) {
         /* helpers never store */
         struct vagx_usc_gfx_call cc = *call;
         cc.exec &= ~c->helper;
         return r_img_exec(&t, &cc, c->stage == ST_EOT ? 0 : -1);
      }
      return r_img_exec(&t, call, c->stage == ST_EOT ? 0 : -1);
   }
   default:
      return VAGX_USC_ILLEGAL_INSTRUCTION;
   }
}
static int frag_tex_regs(void *ctx, const struct vagx_instr *I, uint32_t exec, uint32_t (*regs)[32])
{
   struct tctx *c = ctx;
   if (c->stage != ST_FRAG)
      return -1;
   struct rtexctx t = {c->j, c->worker, c->p, true};
   return r_tex_lanes_regs(&t, I, exec, regs);
}

static const struct vagx_usc_gfx_ops frag_ops = {.exec = frag_exec, .tex_regs = frag_tex_regs};

/* Lane -> pixel inside an 8x4 block of 2x2 quads. */
/* lane_xy's x and y of every lane (a block's lanes in vector adds) */
#define LANE_X(l) ((((l) >> 2) & 3) * 2 + ((l) & 1))
#define LANE_Y(l) (((l) >> 4) * 2 + (((l) >> 1) & 1))
#define LANE_ROW8(f, b) f(b), f(b + 1), f(b + 2), f(b + 3), f(b + 4), f(b + 5), f(b + 6), f(b + 7)
static const int lane_x[32] = {LANE_ROW8(LANE_X, 0), LANE_ROW8(LANE_X, 8), LANE_ROW8(LANE_X, 16),
                               LANE_ROW8(LANE_X, 24)};
static const int lane_y[32] = {LANE_ROW8(LANE_Y, 0), LANE_ROW8(LANE_Y, 8), LANE_ROW8(LANE_Y, 16),
                               LANE_ROW8(LANE_Y, 24)};
#undef LANE_ROW8

static inline void lane_xy(unsigned l, int *x, int *y)
{
   *x = lane_x[l];
   *y = lane_y[l];
}

static bool run_prog(struct tctx *c, uint32_t exec, uint32_t sr[][32])
{
   if (c->env_p != c->p) {
      r_usc_env(c->j, c->worker, c->p, &c->env, &frag_ops, c);
      c->env_p = c->p;
   }
   c->env.iter = c->stage == ST_FRAG && c->iter_on ? &c->iter : NULL;
   struct vagx_usc_result res;
   memset(&res, 0, sizeof(res));
   if (vagx_usc_run_simd(c->w->usc, c->p->prog, &c->env, (const uint32_t(*)[32])sr, exec, &res) !=
       VAGX_USC_OK) {
      r_usc_fail(c->j, c->worker, &res, c->p);
      return false;
   }
   c->killed = res.killed;
   return true;
}

/* Background / end-of-tile program over the tile's pixels. */
static bool run_pixels(struct tctx *c, const struct rprog *p, enum stage stg)
{
   struct rjob *j = c->j;
   uint32_t sr[VAGX_SR_COUNT][32];
   memset(sr, 0, sizeof(sr));
   c->stage = stg;
   c->p = p;
   c->d = NULL;
   c->helper = 0;
   for (int by = 0; by < R_TS; by += 4)
      for (int bx = 0; bx < R_TS; bx += 8) {
         uint32_t exec = 0;
         for (unsigned l = 0; l < 32; l++) {
            int x, y;
            lane_xy(l, &x, &y);
            c->px[l] = c->tx0 + bx + x;
            c->py[l] = c->ty0 + by + y;
            c->cov[l] = (1u << j->samples) - 1;
            sr[VAGX_SR_LANE_ID][l] = l;
            sr[VAGX_SR_PIX_X][l] = (uint32_t)c->px[l];
            sr[VAGX_SR_PIX_Y][l] = (uint32_t)c->py[l];
            sr[VAGX_SR_SAMPLE_MASK][l] = c->cov[l];
            if ((uint32_t)c->px[l] < j->rj.width && (uint32_t)c->py[l] < j->rj.height)
               exec |= 1u << l;
         }
         if (exec && !run_prog(c, exec, sr))
            return false;
      }
   return true;
}

static bool cmpf(enum vagx_compare_func f, double ref, double v)
{
   switch (f) {
   case VAGX_COMPARE_FUNC_NEVER: return false;
   case VAGX_COMPARE_FUNC_LESS: return ref < v;
   case VAGX_COMPARE_FUNC_EQUAL: return ref == v;
   case VAGX_COMPARE_FUNC_LEQUAL: return ref <= v;
   case VAGX_COMPARE_FUNC_GREATER: return ref > v;
   case VAGX_COMPARE_FUNC_NOTEQUAL: return ref != v;
   case VAGX_COMPARE_FUNC_GEQUAL: return ref >= v;
   default: return true;
   }
}

static uint8_t stencil_op(enum vagx_stencil_op op, uint8_t s, uint8_t ref)
{
   switch (op) {
   case VAGX_STENCIL_OP_ZERO: return 0;
   case VAGX_STENCIL_OP_REPLACE: return ref;
   case VAGX_STENCIL_OP_INCR_CLAMP: return s == 255 ? 255 : s + 1;
   case VAGX_STENCIL_OP_DECR_CLAMP: return s == 0 ? 0 : s - 1;
   case VAGX_STENCIL_OP_INVERT: return (uint8_t)~s;
   case VAGX_STENCIL_OP_INCR_WRAP: return (uint8_t)(s + 1);
   case VAGX_STENCIL_OP_DECR_WRAP: return (uint8_t)(s - 1);
   default: return s;
   }
}

static void stencil_write(const struct vagx_stencil_face *f, uint8_t *sp, enum vagx_stencil_op op)
{
   uint8_t n = stencil_op(op, *sp, (uint8_t)f->ref);
   *sp = (uint8_t)((*sp & ~f->write_mask) | (n & f->write_mask));
}

static inline bool edge_in(int64_t ax, int64_t ay, int64_t bx, int64_t by, int64_t px, int64_t py)
{
   int64_t dx = bx - ax, dy = by - ay;
   int64_t e = dx * (py - ay) - dy * (px - ax);
   if (e > 0)
      return true;
   return e == 0 && (dy < 0 || (dy == 0 && dx > 0));
}

static bool inside(const struct rprim *p, int64_t px, int64_t py)
{
   for (unsigned t = 0; t < p->ntri; t++) {
      const int64_t *x = p->vx[t], *y = p->vy[t];
      if (edge_in(x[0], y[0], x[1], y[1], px, py) && edge_in(x[1], y[1], x[2], y[2], px, py) &&
          edge_in(x[2], y[2], x[0], y[0], px, py))
         return true;
   }
   return false;
}

static inline unsigned lane_of(unsigned x, unsigned y)
{
   return LANE_OF(x, y);
}

/* 1u << lane_of(x, y) for every pixel of a block. */
#define LANE_BIT_ROW(y)                                                                          \
   {1u << LANE_OF(0, y), 1u << LANE_OF(1, y), 1u << LANE_OF(2, y), 1u << LANE_OF(3, y),         \
    1u << LANE_OF(4, y), 1u << LANE_OF(5, y), 1u << LANE_OF(6, y), 1u << LANE_OF(7, y)}
static const uint32_t block_lane_bit[4][8] = {LANE_BIT_ROW(0), LANE_BIT_ROW(1), LANE_BIT_ROW(2),
                                              LANE_BIT_ROW(3)};
#undef LANE_BIT_ROW

/* The lanes of columns [x0, x1) and rows [y0, y1) of a block (0 <= x0 <= x1
 * <= 8, 0 <= y0 <= y1 <= 4).  From lane_of's layout, column x is lanes {0,
 * 2, 16, 18} of quad column x >> 1 shifted by x & 1 (COL), row y is lanes
 * {0, 1, 4, 5, 8, 9, 12, 13} of quad row y >> 1 shifted by 2 (y & 1) (ROW);
 * columns and rows are disjoint lane sets, so a range is a difference of
 * prefix unions. */
#define COL(x) (0x00050005u << (((x) >> 1) * 4 + ((x) & 1)))
#define ROW(y) (0x00003333u << (((y) >> 1) * 16 + ((y) & 1) * 2))
static const uint32_t col_prefix[9] = {
   0, COL(0), COL(0) | COL(1), COL(0) | COL(1) | COL(2), COL(0) | COL(1) | COL(2) | COL(3),
   COL(0) | COL(1) | COL(2) | COL(3) | COL(4), COL(0) | COL(1) | COL(2) | COL(3) | COL(4) | COL(5),
   COL(0) | COL(1) | COL(2) | COL(3) | COL(4) | COL(5) | COL(6), ~0u};
static const uint32_t row_prefix[5] = {0, ROW(0), ROW(0) | ROW(1), ROW(0) | ROW(1) | ROW(2), ~0u};
#undef COL
#undef ROW

static inline uint32_t box_lanes(unsigned x0, unsigned x1, unsigned y0, unsigned y1)
{
   return (col_prefix[x1] & ~col_prefix[x0]) & (row_prefix[y1] & ~row_prefix[y0]);
}

/* The lanes of the 8x4 block whose sample at (fx0 + 256 x, fy0 + 256 y)
 * (1/256 pixel; x in [x0, x1) of 0..7, y in [y0, y1) of 0..3: the part of
 * the block in the primitive's bounding box) is inside the primitive:
 * inside() for those lanes at once, with the same 64-bit edge values and
 * top-left rule.  Per edge, the range of its values over the block decides
 * first: an edge above its threshold everywhere keeps every lane, one below
 * it everywhere ends the triangle; an edge crossing the block is evaluated
 * relative to its minimum over the block, which fits 32 bits unless the
 * edge is thousands of pixels long (then in 64 bits), so that a row of 8 is
 * two SSE2 compares. */
static uint32_t block_cover(const struct rprim *p, int64_t fx0, int64_t fy0, unsigned x0,
                            unsigned x1, unsigned y0, unsigned y1)
{
   const uint32_t box = box_lanes(x0, x1, y0, y1);
   uint32_t cover = 0;
   for (unsigned t = 0; t < p->ntri; t++) {
      const int64_t *x = p->vx[t], *y = p->vy[t];
      uint32_t in = box;
      for (unsigned e = 0; e < 3 && in; e++) {
         const int64_t ax = x[e], ay = y[e], dx = x[(e + 1) % 3] - ax, dy = y[(e + 1) % 3] - ay;
         const bool tie_in = dy < 0 || (dy == 0 && dx > 0);
         const int64_t e0 = dx * (fy0 - ay) - dy * (fx0 - ax);
         /* inside: v > 0, or v == 0 on a top-left edge (v > -1) */
         const int64_t tie = tie_in ? -1 : 0, sx = dy * R_SUBPIX, sy = dx * R_SUBPIX;
         /* v(lx, ly) = e0 + sy ly - sx lx over the whole block */
         const int64_t vmin = e0 + (sy < 0 ? 3 * sy : 0) - (sx > 0 ? 7 * sx : 0);
         const int64_t vmax = e0 + (sy > 0 ? 3 * sy : 0) - (sx < 0 ? 7 * sx : 0);
         if (vmin > tie)
            continue;
         if (vmax <= tie) {
            in = 0;
            break;
         }
         uint32_t m = 0;
         if (vmax - vmin <= INT32_MAX) {
            /* w = v - vmin in [0, vmax - vmin]; inside: w > tie - vmin */
            const int32_t thr = (int32_t)(tie - vmin), sx32 = (int32_t)sx, sy32 = (int32_t)sy;
            const int32_t w0 = (int32_t)(e0 - vmin);
            /* the rows' lane bits are disjoint: OR-ed column by column (a
             * vector), reduced once for the block rather than per row */
            uint32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            for (unsigned ly = 0; ly < 4; ly++) {
               const int32_t r = w0 + sy32 * (int32_t)ly;
               for (unsigned lx = 0; lx < 8; lx++)
                  acc[lx] |= block_lane_bit[ly][lx] & (0u - (uint32_t)(r - sx32 * (int32_t)lx > thr));
            }
            for (unsigned lx = 0; lx < 8; lx++)
               m |= acc[lx];
         } else {
            for (unsigned ly = y0; ly < y1; ly++) {
               int64_t v = e0 + sy * (int64_t)ly - sx * (int64_t)x0;
               for (unsigned lx = x0; lx < x1; lx++, v -= sx)
                  m |= block_lane_bit[ly][lx] & (0u - (uint32_t)(v > tie));
            }
         }
         in &= m;
      }
      cover |= in;
   }
   return cover;
}

/* Every point of [fx0,fx1] x [fy0,fy1] strictly inside the (single)
 * triangle: each edge function is linear, so positive at the four corners
 * means positive everywhere (no top-left tie can arise). */
static bool rect_inside(const struct rprim *p, int64_t fx0, int64_t fy0, int64_t fx1, int64_t fy1)
{
   if (p->ntri != 1)
      return false;
   const int64_t *x = p->vx[0], *y = p->vy[0];
   for (unsigned e = 0; e < 3; e++) {
      const int64_t ax = x[e], ay = y[e], dx = x[(e + 1) % 3] - ax, dy = y[(e + 1) % 3] - ay;
      const int64_t cx[2] = {fx0, fx1}, cy[2] = {fy0, fy1};
      for (unsigned k = 0; k < 4; k++)
         if (dx * (cy[k >> 1] - ay) - dy * (cx[k & 1] - ax) <= 0)
            return false;
   }
   return true;
}

/* Diamond-exit line: pixel (gx, gy) covered (see struct rline). */
static bool line_covers(const struct rline *l, int gx, int gy)
{
   const int64_t M = l->ymajor ? gy : gx, m = l->ymajor ? gx : gy;
   if (M < l->m0 || M > l->m1)
      return false;
   const int64_t r = r_line_row(l, M);
   return m >= r && m < r + l->w;
}

/* Can a line cover any pixel of [x0,x1) x [y0,y1)?  (rows are monotonic) */
static bool line_block(const struct rline *l, int x0, int y0, int x1, int y1)
{
   int64_t M0 = l->ymajor ? y0 : x0, M1 = (l->ymajor ? y1 : x1) - 1;
   const int64_t n0 = l->ymajor ? x0 : y0, n1 = (l->ymajor ? x1 : y1) - 1;
   if (M0 < l->m0) M0 = l->m0;
   if (M1 > l->m1) M1 = l->m1;
   if (M0 > M1)
      return false;
   int64_t r0 = r_line_row(l, M0), r1 = r_line_row(l, M1);
   if (r0 > r1) {
      int64_t t = r0; r0 = r1; r1 = t;
   }
   return r1 + l->w - 1 >= n0 && r0 <= n1;
}

/* A draw's depth clamps (per draw, not per sample). */
struct zclamp {
   bool unit;                 /* no depth clip: clamp to [0, 1] first */
   double lo, hi;             /* the viewport's depth range */
};

static struct zclamp zclamp_of(const struct rdraw *d)
{
   struct zclamp k = {!d->rs.depth_clip,
                      d->vp.min_depth < d->vp.max_depth ? d->vp.min_depth : d->vp.max_depth,
                      d->vp.min_depth < d->vp.max_depth ? d->vp.max_depth : d->vp.min_depth};
   return k;
}

static inline double frag_depth(const struct zclamp *k, const struct rprim *p, double x, double y)
{
   double z = p->zc + p->za * (x - p->x0) + p->zb * (y - p->y0) + p->zoff;
   if (k->unit) {
      if (z < 0) z = 0;
      if (z > 1) z = 1;
   }
   if (z < k->lo) z = k->lo;
   if (z > k->hi) z = k->hi;
   return (float)z;
}

/* The depth the zs image would hold for `z`: with a unorm depth format
 * (Z16, Z24) the fragment depth and the clear depth are converted to the
 * format before the test and the write, as the depth a later job loads is,
 * so that redrawing the same geometry in another render job with LESS fails
 * exactly as it does within one job (render.md "Depth").  The conversion is
 * the store's own pack and the load's unpack, so both always agree. */
static double zq_depth(const struct tctx *c, double z)
{
   if (!c->zq)
      return z;
   return c->fast_io ? r_zs_quantize(c->j->zs.format, z) : r_zs_quantize_generic(c->j->zs.format, z);
}

/* Stencil test, depth test and their updates for one sample (GL 4.6 17.3.5,
 * 17.3.6).  `z` is the fragment depth, `sref` the stencil reference. */
static bool zs_test_stencil(const struct vagx_cmd_depth_stencil *ds,
                            const struct vagx_stencil_face *sf, uint8_t *sp, float *dp, double z,
                            uint8_t sref)
{
   struct vagx_stencil_face f = *sf;
   f.ref = sref;
   if (ds->stencil_test &&
       !cmpf(f.func, (double)(f.ref & f.read_mask), (double)(*sp & f.read_mask))) {
      stencil_write(&f, sp, f.fail_op);
      return false;
   }
   if (ds->depth_test && !cmpf(ds->depth_func, z, *dp)) {
      if (ds->stencil_test)
         stencil_write(&f, sp, f.zfail_op);
      return false;
   }
   if (ds->stencil_test)
      stencil_write(&f, sp, f.zpass_op);
   if (ds->depth_test && ds->depth_write)
      *dp = (float)z;
   return true;
}

/* The same; without a stencil test (most draws) only the depth part, inline. */
static inline bool zs_test(const struct vagx_cmd_depth_stencil *ds,
                           const struct vagx_stencil_face *sf, uint8_t *sp, float *dp, double z,
                           uint8_t sref)
{
   if (ds->stencil_test)
      return zs_test_stencil(ds, sf, sp, dp, z, sref);
   if (ds->depth_test && !cmpf(ds->depth_func, z, *dp))
      return false;
   if (ds->depth_test && ds->depth_write)
      *dp = (float)z;
   return true;
}

/* Late depth/stencil (after the shader) for the lanes in `alive` and the
 * samples in c->cov: the depth from st_zs.depth (clamped to the viewport's
 * depth range) or the interpolated one, the reference from st_zs.stencil or
 * the state; staged tile-buffer writes of passing samples are committed. */
static uint64_t late_tests(struct tctx *c, int bx, int by, uint32_t alive, const double (*zs)[4])
{
   struct rjob *j = c->j;
   const struct rdraw *d = c->d;
   const struct vagx_cmd_depth_stencil *ds = &d->ds;
   const struct vagx_stencil_face *sf = c->prim->front ? &ds->front : &ds->back;
   const double lo = fmin(d->vp.min_depth, d->vp.max_depth), hi = fmax(d->vp.min_depth, d->vp.max_depth);
   uint64_t passed = 0;
   for (unsigned l = 0; l < 32; l++) {
      if (!(alive >> l & 1))
         continue;
      int x, y;
      lane_xy(l, &x, &y);
      for (unsigned s = 0; s < j->samples; s++) {
         if (!(c->cov[l] >> s & 1))
            continue;
         const size_t zi = (size_t)s * R_TS * R_TS + (size_t)(by + y) * R_TS + (size_t)(bx + x);
         double z = zs[l][s];
         if (d->fp.writes_depth && (c->zout_mask >> l & 1)) {
            z = c->zout[l];
            z = !(z >= lo) ? lo : z > hi ? hi : z;   /* NaN: the near end */
            z = zq_depth(c, (float)z);
         }
         uint8_t ref = (uint8_t)sf->ref;
         if (d->fp.writes_stencil && (c->sout_mask >> l & 1))
            ref = c->sout[l];
         if (!zs_test(ds, sf, &c->w->stencil[zi], &c->w->depth[zi], z, ref))
            continue;
         passed++;
         for (unsigned rt = 0; rt < j->rj.rt_count; rt++)
            if (c->staged[rt][s] >> l & 1)
               memcpy(tb_at(c, rt, s, c->px[l] - c->tx0, c->py[l] - c->ty0), c->stage_buf[rt][s][l],
                      j->rt_bpp[rt]);
      }
   }
   return passed;
}

/* Runs the fragment shader on exec (live = non-helper lanes); *alive gets
 * the lanes that survived (not discarded).  False on failure. */
static bool shade(struct tctx *c, uint32_t exec, uint32_t live, uint32_t sr[][32], uint32_t *alive)
{
   c->helper = exec & ~live;
   c->live = live;
   /* the row is mostly all zero, as it was for the last block: not rewritten */
   if (c->helper || c->sr_helper_set) {
      for (unsigned l = 0; l < 32; l++)
         sr[VAGX_SR_HELPER][l] = (c->helper >> l & 1) ? ~0u : 0;
      c->sr_helper_set = c->helper != 0;
   }
   if (c->late) {
      memset(c->staged, 0, sizeof(c->staged));
      c->zout_mask = c->sout_mask = 0;
   }
   c->w->frag_lanes += (uint64_t)__builtin_popcount(live);
   if (!run_prog(c, exec, sr))
      return false;
   *alive = live & ~c->killed;
   return true;
}

/* Sets the tile's depth/stencil to the job's clear values if still pending. */
static void zs_clear(struct tctx *c)
{
   if (!c->zs_pending)
      return;
   c->zs_pending = false;
   const struct vagx_render_job *rj = &c->j->rj;
   const size_t n = (size_t)c->j->samples * R_TS * R_TS;
   float *d = c->w->depth;
   d[0] = (float)zq_depth(c, rj->clear_depth);
   for (size_t done = 1; done < n; done *= 2)
      memcpy(d + done, d, (done * 2 <= n ? done : n - done) * sizeof(*d));
   memset(c->w->stencil, (uint8_t)rj->clear_stencil, n);
}

static const uint32_t zero_lanes[32];

/* Early depth test (no stencil) of the candidate lanes of one 8x4 block of
 * a single-sampled triangle, row by row: the same arithmetic as
 * frag_depth, zq_depth (fast) and zs_test per lane (render_tile.c below),
 * as 8-wide loops without branches over a row of the tile's depth buffer.
 * Returns the lanes that pass; *passed counts them; with write, their
 * depth is stored, and with vis (HSR's first pass) `id` is recorded. */
struct bdepth {
   const struct rprim *p;
   double ulo, uhi;        /* no depth clip: [0, 1], else (-inf, inf) */
   double lo, hi;          /* the viewport's depth range */
   double sx, sy;          /* sample position in the pixel */
   double qmax;            /* unorm depth: 2^bits - 1; 0: float depth */
   bool wl, we, wg, wu;    /* the compare function passes when less, equal, greater, unordered */
   bool write;
   /* a constant plane (za and zb 0, zc not 0: zc + za X + zb Y is zc at
    * every pixel, bit for bit, whatever the signs of the zero products):
    * its depth, computed once (screen-aligned 2D draws) */
   bool flat;
   float zflat;
};

/* The depth the early test compares at (X, Y) relative to the primitive's
 * origin: frag_depth's plane, the depth clip or clamp, the viewport's
 * range, then for a unorm format r_unorm_depth(r_unorm_enc(v, bits)). */
static inline __attribute__((always_inline)) float
plane_depth(const struct bdepth *b, double X, double Y, bool quant)
{
   const struct rprim *p = b->p;
   double z = p->zc + p->za * X + p->zb * Y + p->zoff;
   z = z < b->ulo ? b->ulo : z;
   z = z > b->uhi ? b->uhi : z;
   z = z < b->lo ? b->lo : z;
   z = z > b->hi ? b->hi : z;
   float v = (float)z;
   if (quant) {
      /* r_unorm_depth(r_unorm_enc(v, bits), max), every lane the same
       * arithmetic */
      v = (float)(r_unorm_round(v, b->qmax) * (1.0 / b->qmax));
   }
   return v;
}

static const uint32_t bit8[8] = {1, 2, 4, 8, 16, 32, 64, 128};

/* One row of 8 pixels: the passing ones as ~0 in pm, their depth in zf.
 * `quant` and `flat` are constants at each call, so each loop is
 * branch-free. */
static inline __attribute__((always_inline)) void
row_depth(const struct bdepth *b, double X0, double Y, uint32_t m8, const float *dp, bool quant,
          bool flat, uint32_t *pm, float *zf)
{
   const struct rprim *p = b->p;
   for (unsigned x = 0; x < 8; x++) {
      const float v = flat ? b->zflat : plane_depth(b, X0 + (double)x - p->x0, Y, quant);
      const double zd = v, d = dp[x];
      const bool lt = zd < d, eq = zd == d, gt = zd > d, un = !(lt | eq | gt);
      const bool pass = (lt & b->wl) | (eq & b->we) | (gt & b->wg) | (un & b->wu);
      pm[x] = (0u - (uint32_t)((m8 & bit8[x]) != 0)) & (0u - (uint32_t)pass);
      zf[x] = v;
   }
}

/* Row r of a block: its 8 lanes (LANE_OF) as bits 0..7 of `row_bits` and
 * back.  Lanes of row r are bit pairs at base, base + 4, + 8 and + 12. */
static inline unsigned row_base(unsigned r)
{
   return (r >> 1) * 16 + (r & 1) * 2;
}

static inline uint32_t row_bits(uint32_t lanes, unsigned r)
{
   const uint32_t t = lanes >> row_base(r);
   return (t & 3) | (t >> 2 & 0xc) | (t >> 4 & 0x30) | (t >> 6 & 0xc0);
}

static inline uint32_t row_lanes(uint32_t p8, unsigned r)
{
   return ((p8 & 3) | (p8 & 0xc) << 2 | (p8 & 0x30) << 4 | (p8 & 0xc0) << 6) << row_base(r);
}

/* HSR's second pass, single-sampled: the lanes of the block whose pixel
 * the first pass gave to primitive `id`.  Those are exactly the covered
 * lanes that passed its tests, so the coverage need not be computed again:
 * one compare per pixel, 8 at a time. */
static uint32_t vis_lanes(const uint32_t *vis, int bx, int by, uint32_t id)
{
   uint32_t live = 0;
   for (unsigned r = 0; r < 4; r++) {
      const uint32_t *restrict v = &vis[(size_t)(by + (int)r) * R_TS + (size_t)bx];
      uint32_t p8 = 0;
      for (unsigned x = 0; x < 8; x++)
         p8 |= (0u - (uint32_t)(v[x] == id)) & bit8[x];
      live |= row_lanes(p8, r);
   }
   return live;
}

static uint32_t block_depth_1x(struct tctx *c, const struct bdepth *b, int bx, int by,
                               uint32_t cand, uint32_t *vis, uint32_t id, uint64_t *passed)
{
   uint32_t live = 0;
   for (unsigned r = 0; r < 4; r++) {
      const uint32_t m8 = row_bits(cand, r);
      if (!m8)
         continue;
      const size_t row = (size_t)(by + r) * R_TS + (size_t)bx;
      float *restrict dp = &c->w->depth[row];
      /* frag_depth's x - x0 with x = pixel + sample position, lane by lane */
      const double X0 = (double)(c->tx0 + bx) + b->sx;
      const double Y = (double)(c->ty0 + by + (int)r) + b->sy - b->p->y0;
      uint32_t pm[8];
      float zf[8];
      if (b->flat)
         row_depth(b, X0, Y, m8, dp, false, true, pm, zf); /* b->zflat quantized once */
      else if (b->qmax > 0)
         row_depth(b, X0, Y, m8, dp, true, false, pm, zf);
      else
         row_depth(b, X0, Y, m8, dp, false, false, pm, zf);
      uint32_t p8 = 0;
      for (unsigned x = 0; x < 8; x++)
         p8 |= pm[x] & bit8[x];
      if (b->write)
         for (unsigned x = 0; x < 8; x++)
            dp[x] = pm[x] ? zf[x] : dp[x];
      if (vis)
         for (unsigned x = 0; x < 8; x++)
            vis[row + x] = pm[x] ? id : vis[row + x];
      *passed += (uint64_t)__builtin_popcount(p8);
      live |= row_lanes(p8, r);
   }
   return live;
}

/* c->cov of the lanes of `live` (one sample) */
static inline void lanes_to_cov(struct tctx *c, uint32_t live)
{
   for (unsigned l = 0; l < 32; l++)
      c->cov[l] = live >> l & 1;
}

/* How do_prim treats a primitive: everything in order, or one of the two
 * passes of hidden-surface removal over a run of opaque primitives. */
enum prim_mode {
   PM_NORMAL,
   PM_DEPTH,   /* early tests with updates and query counting; record the
                * primitive in w->vis at every sample it passes; no shading */
   PM_COLOUR,  /* shade only the samples whose w->vis is this primitive */
};

static void do_prim(struct tctx *c, const struct rprim *p, enum prim_mode mode, uint32_t id)
{
   struct rjob *j = c->j;
   const struct rdraw *d = &j->draws[p->draw];
   const unsigned ns = j->samples;
   int x0 = p->bx0 > c->tx0 ? p->bx0 : c->tx0, y0 = p->by0 > c->ty0 ? p->by0 : c->ty0;
   int x1 = p->bx1 < c->tx0 + R_TS ? p->bx1 : c->tx0 + R_TS;
   int y1 = p->by1 < c->ty0 + R_TS ? p->by1 : c->ty0 + R_TS;
   if (x0 >= x1 || y0 >= y1)
      return;
   c->stage = ST_FRAG;
   c->p = d->fs;
   c->d = d;
   c->prim = p;
   c->cf = &j->pb.cfs[p->cf];
   c->iter_on = !(ns == 4 && d->rs.multisample);
   c->iter = (struct vagx_usc_iter){c->ix, c->iy, c->cf, d->ncf};
   const struct vagx_cmd_depth_stencil *ds = &d->ds;
   const struct vagx_stencil_face *sf = p->front ? &ds->front : &ds->back;
   /* Tests run after the shader when it can change their inputs or outcome
    * (depth/stencil output, discard) or has side effects that GL orders
    * before them (1.10: memory writes happen for fragments that fail the
    * tests), unless early tests are forced; tile writes are then staged
    * until the tests pass.  With discard only, a failing depth test (no
    * stencil) can be taken early: nothing depends on whether such a
    * fragment would have been discarded. */
   if (ds->depth_test || ds->stencil_test)
      zs_clear(c);
   c->late = !d->fp.early_tests && (d->fp.writes_depth || d->fp.writes_stencil ||
                                    d->fp.discards || d->fp.side_effects);
   const bool precull = c->late && !d->fp.writes_depth && !d->fp.side_effects &&
                        !ds->stencil_test && ds->depth_test;
   struct rquery *q = d->query >= 0 ? &j->queries[d->query] : NULL;
   uint64_t passed = 0;
   uint32_t (*sr)[32] = c->sr;
   const int bx0 = (x0 - c->tx0) & ~7, by0 = (y0 - c->ty0) & ~3;
   double spx[4], spy[4];
   for (unsigned s = 0; s < ns; s++)
      sample_pos(j, d, s, &spx[s], &spy[s]);
   const uint32_t front = p->front ? ~0u : 0;
   uint32_t blend[4];
   for (unsigned k = 0; k < 4; k++)
      blend[k] = r_u(d->blend[k]);
   if (!c->sr_prim_set || c->sr_front != front || memcmp(c->sr_blend, blend, sizeof(blend))) {
      for (unsigned l = 0; l < 32; l++) {
         sr[VAGX_SR_FRONT_FACE][l] = front;
         for (unsigned k = 0; k < 4; k++)
            sr[VAGX_SR_BLEND_R + k][l] = blend[k];
      }
      c->sr_prim_set = true;
      c->sr_front = front;
      memcpy(c->sr_blend, blend, sizeof(blend));
   }

   const bool is_line = p->kind == R_PRIM_LINE;
   const uint32_t all = (1u << ns) - 1;
   /* sample offsets inside a pixel, in 1/256 (for whole-block coverage) */
   int64_t smin_x = INT64_MAX, smax_x = INT64_MIN, smin_y = INT64_MAX, smax_y = INT64_MIN;
   for (unsigned s = 0; s < ns; s++) {
      const int64_t ox = (int64_t)(spx[s] * R_SUBPIX), oy = (int64_t)(spy[s] * R_SUBPIX);
      smin_x = ox < smin_x ? ox : smin_x;
      smax_x = ox > smax_x ? ox : smax_x;
      smin_y = oy < smin_y ? oy : smin_y;
      smax_y = oy > smax_y ? oy : smax_y;
   }
   /* depth is needed by a depth test or late tests; the early test by either test */
   const bool need_z = c->late || ds->depth_test;
   const bool need_test = ds->depth_test || ds->stencil_test;
   const struct zclamp zk = zclamp_of(d);
   const bool one_sample = ns == 1 && !is_line && !c->ref_raster;
   /* block_depth_1x: early depth tests without stencil, the fast paths on
    * and a depth format it quantizes itself */
   const enum vagx_format zf = j->zs.format;
   const bool zq_known = !c->zq || zf == VAGX_FORMAT_Z24_UNORM_S8_UINT || zf == VAGX_FORMAT_Z16_UNORM;
   const bool fast_depth = one_sample && c->fast_io && mode != PM_COLOUR && !c->late &&
                           ds->depth_test && !ds->stencil_test && zq_known;
   /* HSR's second pass takes its lanes from w->vis alone (vis_lanes) */
   const bool vis_only = one_sample && mode == PM_COLOUR;
   struct bdepth bd = {0};
   if (fast_depth) {
      const enum vagx_compare_func f = ds->depth_func;
      bd = (struct bdepth){
         .p = p, .ulo = zk.unit ? 0 : -INFINITY, .uhi = zk.unit ? 1 : INFINITY,
         .lo = zk.lo, .hi = zk.hi, .sx = spx[0], .sy = spy[0],
         .qmax = !c->zq ? 0 : zf == VAGX_FORMAT_Z16_UNORM ? R_Z16_MAX : R_Z24_MAX,
         .wl = f == VAGX_COMPARE_FUNC_LESS || f == VAGX_COMPARE_FUNC_LEQUAL ||
               f == VAGX_COMPARE_FUNC_NOTEQUAL || f == VAGX_COMPARE_FUNC_ALWAYS,
         .we = f == VAGX_COMPARE_FUNC_EQUAL || f == VAGX_COMPARE_FUNC_LEQUAL ||
               f == VAGX_COMPARE_FUNC_GEQUAL || f == VAGX_COMPARE_FUNC_ALWAYS,
         .wg = f == VAGX_COMPARE_FUNC_GREATER || f == VAGX_COMPARE_FUNC_GEQUAL ||
               f == VAGX_COMPARE_FUNC_NOTEQUAL || f == VAGX_COMPARE_FUNC_ALWAYS,
         .wu = f == VAGX_COMPARE_FUNC_NOTEQUAL || f == VAGX_COMPARE_FUNC_ALWAYS,
         .write = ds->depth_write,
      };
      if (p->za == 0 && p->zb == 0 && p->zc != 0) {
         bd.zflat = plane_depth(&bd, 0, 0, bd.qmax > 0);
         bd.flat = true;
      }
   }
   for (int by = by0; by < y1 - c->ty0; by += 4)
      for (int bx = bx0; bx < x1 - c->tx0; bx += 8) {
         /* every block, shaded or not: a tile of a million primitives must
          * neither delay an abort nor hold a TLB invalidation */
         if (r_checkpoint(j, c->worker))
            return;
         if (is_line && !line_block(&p->line, c->tx0 + bx, c->ty0 + by, c->tx0 + bx + 8,
                                    c->ty0 + by + 4))
            continue;
         const int64_t gbx = c->tx0 + bx, gby = c->ty0 + by;
         /* one sample: block_cover's per-edge ranges accept a whole block
          * as cheaply, and give the same lanes */
         const bool blk_full = !is_line && ns > 1 &&
                               rect_inside(p, gbx * R_SUBPIX + smin_x, gby * R_SUBPIX + smin_y,
                                           (gbx + 7) * R_SUBPIX + smax_x, (gby + 3) * R_SUBPIX + smax_y);
         uint32_t live = 0;
         double zs[32][4];
         /* per sample, the lanes it covers (triangles: a whole block at once) */
         uint32_t scov[4] = {0, 0, 0, 0}, any = 0;
         if (vis_only) {
            any = vis_lanes(c->w->vis, bx, by, id);
         } else if (!is_line && !c->ref_raster) {
            /* the block's columns and rows inside the clipped bounding box */
            const int cx0 = x0 - (int)gbx > 0 ? x0 - (int)gbx : 0, cx1 = x1 - (int)gbx < 8 ? x1 - (int)gbx : 8;
            const int ry0 = y0 - (int)gby > 0 ? y0 - (int)gby : 0, ry1 = y1 - (int)gby < 4 ? y1 - (int)gby : 4;
            for (unsigned s = 0; s < ns && cx0 < cx1 && ry0 < ry1; s++) {
               scov[s] = blk_full ? ~0u
                                  : block_cover(p, gbx * R_SUBPIX + (int64_t)(spx[s] * R_SUBPIX),
                                                gby * R_SUBPIX + (int64_t)(spy[s] * R_SUBPIX),
                                                (unsigned)cx0, (unsigned)cx1, (unsigned)ry0, (unsigned)ry1);
               any |= scov[s];
            }
         }
         /* a copy gcc inlines as vector stores (a zeroing loop became a
          * `rep stos`, 6 % of do_prim for its start-up cost) */
         memcpy(c->cov, zero_lanes, sizeof(c->cov));
         if (!is_line && !c->ref_raster && !any)
            continue;
         for (unsigned l = 0; l < 32; l++) {
            c->px[l] = c->tx0 + bx + lane_x[l];
            c->py[l] = c->ty0 + by + lane_y[l];
         }
         if (one_sample) {
            /* single-sampled triangles: only the lanes the rasteriser
             * covered inside the clipped box, in lane order, with the
             * same per-sample steps as below */
            const int cx0 = x0 - (int)gbx > 0 ? x0 - (int)gbx : 0, cx1 = x1 - (int)gbx < 8 ? x1 - (int)gbx : 8;
            const int ry0 = y0 - (int)gby > 0 ? y0 - (int)gby : 0, ry1 = y1 - (int)gby < 4 ? y1 - (int)gby : 4;
            uint32_t cand = (blk_full ? ~0u : scov[0]);
            cand &= cx0 < cx1 && ry0 < ry1
                       ? box_lanes((unsigned)cx0, (unsigned)cx1, (unsigned)ry0, (unsigned)ry1)
                       : 0;
            if (!(d->rs.sample_mask & 1))
               cand = 0;
            if (vis_only) {
               live = any;
               lanes_to_cov(c, live);
               cand = 0;
            }
            if (fast_depth && cand) {
               live = block_depth_1x(c, &bd, bx, by, cand, mode == PM_DEPTH ? c->w->vis : NULL,
                                     id, &passed);
               lanes_to_cov(c, live);
               cand = 0;
            }
            if (mode == PM_NORMAL && !need_z && !need_test && cand) {
               /* no depth, no stencil: every candidate lane passes (the
                * loop below, without its per-lane steps) */
               live = cand;
               passed += (unsigned)__builtin_popcount(cand);
               lanes_to_cov(c, live);
               cand = 0;
            }
            while (cand) {
               const unsigned l = (unsigned)__builtin_ctz(cand);
               cand &= cand - 1;
               const size_t zi = (size_t)(c->py[l] - c->ty0) * R_TS + (size_t)(c->px[l] - c->tx0);
               if (mode == PM_COLOUR) {
                  if (c->w->vis[zi] != id)
                     continue;
               } else if (!need_z && !need_test) {
                  passed++;
                  if (mode == PM_DEPTH)
                     c->w->vis[zi] = id;
               } else {
                  float *dp = &c->w->depth[zi];
                  const double z = zq_depth(c, frag_depth(&zk, p, c->px[l] + spx[0], c->py[l] + spy[0]));
                  zs[l][0] = z;
                  if (c->late) {
                     if (precull && !cmpf(ds->depth_func, z, *dp))
                        continue;
                  } else {
                     if (!zs_test(ds, sf, &c->w->stencil[zi], dp, z, (uint8_t)sf->ref))
                        continue;
                     passed++;
                     if (mode == PM_DEPTH)
                        c->w->vis[zi] = id;
                  }
               }
               c->cov[l] = 1;
               live |= 1u << l;
            }
         } else
         for (unsigned l = 0; l < 32; l++) {
            const int gx = c->px[l], gy = c->py[l];
            if (gx < x0 || gx >= x1 || gy < y0 || gy >= y1)
               continue;
            uint32_t m = 0;
            if (is_line)
               m = line_covers(&p->line, gx, gy) ? all : 0;
            else if (blk_full)
               m = all;
            else if (!c->ref_raster)
               for (unsigned s = 0; s < ns; s++)
                  m |= (scov[s] >> l & 1) << s;
            for (unsigned s = 0; s < ns && !is_line && !blk_full && c->ref_raster; s++) {
               int64_t fx = (int64_t)gx * R_SUBPIX + (int64_t)(spx[s] * R_SUBPIX);
               int64_t fy = (int64_t)gy * R_SUBPIX + (int64_t)(spy[s] * R_SUBPIX);
               if (inside(p, fx, fy))
                  m |= 1u << s;
            }
            m &= d->rs.sample_mask;
            const int lx = gx - c->tx0, ly = gy - c->ty0;
            for (unsigned s = 0; s < ns; s++) {
               if (!(m >> s & 1))
                  continue;
               const size_t zi = (size_t)s * R_TS * R_TS + (size_t)ly * R_TS + (size_t)lx;
               if (mode == PM_COLOUR) {
                  if (c->w->vis[zi] != id)
                     m &= ~(1u << s);
                  continue;
               }
               if (!need_z && !need_test) {
                  passed++;
                  if (mode == PM_DEPTH)
                     c->w->vis[zi] = id;
                  continue;
               }
               float *dp = &c->w->depth[zi];
               double z = need_z ? zq_depth(c, frag_depth(&zk, p, gx + spx[s], gy + spy[s])) : 0;
               zs[l][s] = z;
               if (c->late) {
                  if (precull && !cmpf(ds->depth_func, z, *dp))
                     m &= ~(1u << s);
                  continue;
               }
               /* early depth/stencil with immediate updates */
               if (!zs_test(ds, sf, &c->w->stencil[zi], dp, z, (uint8_t)sf->ref)) {
                  m &= ~(1u << s);
                  continue;
               }
               passed++;
               if (mode == PM_DEPTH)
                  c->w->vis[zi] = id;
            }
            c->cov[l] = m;
            if (m)
               live |= 1u << l;
         }
         if (!live || mode == PM_DEPTH)
            continue;
         uint32_t exec = 0;
         for (unsigned qd = 0; qd < 8; qd++)
            if (live >> (qd * 4) & 0xf)
               exec |= 0xfu << (qd * 4);
         for (unsigned l = 0; l < 32; l++) {
            sr[VAGX_SR_PIX_X][l] = (uint32_t)c->px[l];
            sr[VAGX_SR_PIX_Y][l] = (uint32_t)c->py[l];
            sr[VAGX_SR_SAMPLE_MASK][l] = c->cov[l];
         }
         if (c->iter_on)
            for (unsigned l = 0; l < 32; l++) {
               c->ix[l] = c->px[l] + spx[0] - p->x0;
               c->iy[l] = c->py[l] + spy[0] - p->y0;
            }
         if (d->fp.per_sample && ns == 4) {
            uint32_t full[32];
            memcpy(full, c->cov, sizeof(full));
            for (unsigned s = 0; s < 4; s++) {
               uint32_t e = 0, lv = 0;
               for (unsigned l = 0; l < 32; l++) {
                  c->cov[l] = full[l] & (1u << s);
                  sr[VAGX_SR_SAMPLE_MASK][l] = c->cov[l];
                  sr[VAGX_SR_SAMPLE_ID][l] = s;
                  if (c->cov[l])
                     lv |= 1u << l;
               }
               for (unsigned qd = 0; qd < 8; qd++)
                  if (lv >> (qd * 4) & 0xf)
                     e |= 0xfu << (qd * 4);
               if (!e)
                  continue;
               uint32_t alive;
               if (!shade(c, e, lv, sr, &alive))
                  return;
               if (c->late)
                  passed += late_tests(c, bx, by, alive, (const double(*)[4])zs);
            }
            memcpy(c->cov, full, sizeof(full));
            memset(sr[VAGX_SR_SAMPLE_ID], 0, sizeof(sr[VAGX_SR_SAMPLE_ID]));
         } else {
            uint32_t alive;
            if (!shade(c, exec, live, sr, &alive))
               return;
            if (c->late)
               passed += late_tests(c, bx, by, alive, (const double(*)[4])zs);
         }
         if (r_stop(j))
            return;
      }
   if (q && passed)
      atomic_fetch_add(&q->count, passed);
}

/* Hidden-surface removal (render.md): a primitive of an opaque pipeline
 * leaves at each sample either nothing (its early tests fail) or colours
 * that replace everything earlier, so over a run of such primitives only the
 * last one passing the tests at a sample determines the sample's colours.
 * Single-sampled jobs only: with 4X, centroid interpolation depends on the
 * coverage, which hidden samples would change. */
static bool hsr_ok(const struct rjob *j, const struct rprim *p)
{
   const struct rdraw *d = &j->draws[p->draw];
   return !(j->dev->options & VAGX_RENDER_OPT_NO_HSR) && j->samples == 1 && d->fp.opaque &&
          !d->fp.discards && !d->fp.writes_depth && !d->fp.writes_stencil && !d->fp.side_effects &&
          (d->fs->cost >= R_HSR_MIN_COST || (j->dev->options & VAGX_RENDER_OPT_ALL_HSR));
}

/* Pass 1 runs every primitive's early tests in order (the same updates and
 * query counts as without HSR) and records the last one passing at each
 * sample; pass 2 shades each primitive at the samples it won.  A run's ids
 * follow the worker's previous run's, so the ids left in vis by earlier
 * runs (and tiles, and jobs) never match: vis is cleared only when the ids
 * wrap, not for every run. */
static bool hsr_run(struct tctx *c, const uint32_t *idx, uint32_t n)
{
   struct rjob *j = c->j;
   struct rworker *w = c->w;
   if (w->vis_next == 0 || w->vis_next > UINT32_MAX - n) {
      memset(w->vis, 0, sizeof(*w->vis) * R_TS * R_TS * VAGX_MAX_SAMPLES);
      w->vis_next = 1;
   }
   const uint32_t first = w->vis_next;
   w->vis_next += n;
   for (uint32_t i = 0; i < n; i++) {
      do_prim(c, &j->pb.prims[idx[i]], PM_DEPTH, first + i);
      if (r_stop(j))
         return false;
   }
   for (uint32_t i = 0; i < n; i++) {
      do_prim(c, &j->pb.prims[idx[i]], PM_COLOUR, first + i);
      if (r_stop(j))
         return false;
   }
   return true;
}

/* A tile plane of n-byte elements between rows (element (x, y) at
 * (y * R_TS + x) * n) and Morton order (at r_tile_morton(x, y) * n).  A
 * 2x2 quad is 4 consecutive elements, (0,0) (1,0) (0,1) (1,1), and the 4
 * quads of a 4x4 block are 4 consecutive quads in the same order, so a 4x4
 * block is 16 consecutive elements at 16 times its own Morton index: one
 * index per 16 elements, then 8 copies of two elements (rows 0 and 1, then
 * 2 and 3), each of a constant size. */
static inline __attribute__((always_inline)) void
morton_blocks(uint8_t *mort, uint8_t *rows, unsigned n, bool to_morton)
{
   const size_t row = (size_t)R_TS * n;
   for (uint32_t by = 0; by < R_TS / 4; by++)
      for (uint32_t bx = 0; bx < R_TS / 4; bx++) {
         uint8_t *m = mort + (size_t)((uint32_t)r_spread[bx] | (uint32_t)r_spread[by] << 1) * 16 * n;
         uint8_t *r = rows + (by * 4 * row + bx * 4 * n);
#define MORTON_PAIR(k, off)                                                  \
   if (to_morton)                                                            \
      memcpy(m + (k) * 2 * n, r + (off), 2 * n);                             \
   else                                                                      \
      memcpy(r + (off), m + (k) * 2 * n, 2 * n)
         MORTON_PAIR(0, 0);
         MORTON_PAIR(1, row);
         MORTON_PAIR(2, 2 * n);
         MORTON_PAIR(3, row + 2 * n);
         MORTON_PAIR(4, 2 * row);
         MORTON_PAIR(5, 3 * row);
         MORTON_PAIR(6, 2 * row + 2 * n);
         MORTON_PAIR(7, 3 * row + 2 * n);
#undef MORTON_PAIR
      }
}

static inline __attribute__((always_inline)) void
rows_to_morton(uint8_t *mort, const uint8_t *rows, unsigned n)
{
   morton_blocks(mort, (uint8_t *)rows, n, true);
}

static inline __attribute__((always_inline)) void
morton_to_rows(uint8_t *rows, const uint8_t *mort, unsigned n)
{
   morton_blocks((uint8_t *)mort, rows, n, false);
}

/* The single-sampled block (4-byte elements): the tile's words reordered
 * between Morton order and rows (morton_blocks) and converted a row of
 * words at a time, every loop without a branch
 * (vectorised).  The same values as the per-sample loop of
 * zs_block_z24s8 below. */
static void zs_block_z24s8_1x(bool store, bool dl, bool sl, uint8_t *h, float *depth,
                              uint8_t *stencil)
{
   uint32_t mort[R_TS * R_TS], rows[R_TS * R_TS];
   if (!store || !sl)
      memcpy(mort, h, sizeof(mort));
   if (store) {
      for (uint32_t i = 0; i < R_TS * R_TS; i++)
         rows[i] = (uint32_t)(int32_t)r_unorm_round(depth[i], R_Z24_MAX);
      if (sl)
         for (uint32_t i = 0; i < R_TS * R_TS; i++)
            rows[i] |= (uint32_t)stencil[i] << 24;
      uint32_t q[R_TS * R_TS];
      rows_to_morton((uint8_t *)q, (const uint8_t *)rows, 4);
      if (sl) {
         for (uint32_t i = 0; i < R_TS * R_TS; i++)
            mort[i] = r_le32(q[i]);
      } else {
         /* a depth-only store keeps the stencil bytes in memory */
         for (uint32_t i = 0; i < R_TS * R_TS; i++)
            mort[i] = (mort[i] & r_le32(0xff000000u)) | r_le32(q[i]);
      }
      memcpy(h, mort, sizeof(mort));
      return;
   }
   morton_to_rows((uint8_t *)rows, (const uint8_t *)mort, 4);
   for (uint32_t i = 0; i < R_TS * R_TS; i++)
      rows[i] = r_le32(rows[i]);
   if (dl)
      for (uint32_t i = 0; i < R_TS * R_TS; i++)
         depth[i] = (float)((double)(int32_t)(rows[i] & 0xffffff) * (1.0 / R_Z24_MAX)); /* r_unorm_depth */
   if (sl)
      for (uint32_t i = 0; i < R_TS * R_TS; i++)
         stencil[i] = (uint8_t)(rows[i] >> 24);
}

/* The store of zs_block_z24s8_1x for a tile whose every pixel holds depth
 * z and stencil st (the clear values: no primitive touched the tile): the
 * one encoding written to every word, a depth-only store keeping the
 * stencil bytes in memory. */
static void zs_fill_z24s8_1x(bool sl, uint8_t *h, float z, uint8_t st)
{
   const uint32_t w = (uint32_t)(int32_t)r_unorm_round(z, R_Z24_MAX) | (uint32_t)st << 24;
   /* in place, 8 words at a time (guest memory: no alignment assumed) */
   const uint32_t keep = sl ? 0 : r_le32(0xff000000u), put = r_le32(sl ? w : w & 0xffffffu);
   for (uint32_t i = 0; i < R_TS * R_TS; i += 8) {
      uint32_t v[8];
      memcpy(v, h + 4 * i, sizeof(v));
      for (unsigned k = 0; k < 8; k++)
         v[k] = (v[k] & keep) | put;
      memcpy(h + 4 * i, v, sizeof(v));
   }
}

/* A whole twiddled block of Z24S8 (the depth buffer of most GL
 * applications) loaded, or stored with its depth, with the format's
 * conversion written out once for the block: r_zs_load_px / r_zs_store_px
 * per sample, exactly, without their per-sample dispatch.  (GL clears
 * depth every frame but rarely stencil, so most passes load the stencil
 * alone.)  False for anything else. */
static bool zs_block_z24s8(enum vagx_format f, bool store, bool dl, bool sl, uint8_t *h,
                           uint32_t E, unsigned ns, float *depth, uint8_t *stencil)
{
   if (f != VAGX_FORMAT_Z24_UNORM_S8_UINT || (store && !dl))
      return false;
   if (E == 4) {
      zs_block_z24s8_1x(store, dl, sl, h, depth, stencil);
      return true;
   }
   /* Morton order interleaves the bits of x and y: one table per axis */
   uint32_t mx[R_TS], my[R_TS];
   for (uint32_t i = 0; i < R_TS; i++) {
      mx[i] = r_tile_morton(i, 0) * E;
      my[i] = r_tile_morton(0, i) * E;
   }
   /* Single-sampled, the block is 4 KiB in memory order: it is read and
    * written whole, in order (a tile row in Morton order touches 16 cache
    * lines; a sequential copy is what the prefetcher follows), and
    * converted in L1.  A store that keeps the stencil reads it first. */
   uint8_t stage[R_TS * R_TS * 4];
   uint8_t *const hb = E == 4 ? stage : h;
   if (E == 4 && (!store || !sl))
      memcpy(stage, h, sizeof(stage));
   for (unsigned s = 0; s < ns; s++) {
      const float *ds = depth + (size_t)s * R_TS * R_TS;
      uint8_t *ss = stencil + (size_t)s * R_TS * R_TS;
      uint8_t *hs = hb + (size_t)s * 4;
      if (store) {
         for (uint32_t ly = 0; ly < R_TS; ly++) {
            /* r_unorm_enc(v, 24) of the row without branches (vectorised):
             * v * max saturated to [0, max] (NaN to 0) rounds as
             * r_unorm_enc's cases do */
            uint32_t enc[R_TS];
            for (uint32_t lx = 0; lx < R_TS; lx++)
               enc[lx] = (uint32_t)(int32_t)r_unorm_round(ds[(size_t)ly * R_TS + lx], R_Z24_MAX);
            if (sl)
               for (uint32_t lx = 0; lx < R_TS; lx++)
                  r_wr32(hs + my[ly] + mx[lx], enc[lx] | (uint32_t)ss[(size_t)ly * R_TS + lx] << 24);
            else
               for (uint32_t lx = 0; lx < R_TS; lx++) {
                  uint8_t *p = hs + my[ly] + mx[lx];
                  r_wr32(p, enc[lx] | (uint32_t)p[3] << 24);
               }
         }
         continue;
      }
      /* a row's words gathered, then converted together (vectorised) */
      float *dr = depth + (size_t)s * R_TS * R_TS;
      for (uint32_t ly = 0; ly < R_TS; ly++) {
         uint32_t w[R_TS];
         for (uint32_t lx = 0; lx < R_TS; lx++)
            w[lx] = r_rd32(hs + my[ly] + mx[lx]);
         if (dl)
            for (uint32_t lx = 0; lx < R_TS; lx++)
               dr[(size_t)ly * R_TS + lx] =
                  (float)((double)(int32_t)(w[lx] & 0xffffff) * (1.0 / R_Z24_MAX)); /* r_unorm_depth */
         if (sl)
            for (uint32_t lx = 0; lx < R_TS; lx++)
               ss[(size_t)ly * R_TS + lx] = (uint8_t)(w[lx] >> 24);
      }
   }
   if (E == 4 && store)
      memcpy(h, stage, sizeof(stage));
   return true;
}

static bool zs_io_fast(struct tctx *c, bool store, bool dl, bool sl, bool untouched, uint32_t x0,
                       uint32_t x1, uint32_t y0, uint32_t y1)
{
   struct rjob *j = c->j;
   const struct vagx_render_job *rj = &j->rj;
   const enum vagx_format f = j->zs.format;
   const unsigned bpb = j->zs_layout.bytes_per_block_B, ns = j->samples;
   const unsigned access = store ? VAGX_USC_ACC_READ | VAGX_USC_ACC_WRITE : VAGX_USC_ACC_READ;
   struct raddr a;
   r_addr_init(&a, &j->zs_layout, rj->zs_level, rj->zs_layer);
   struct rspan sp;
   r_span_reset(&sp);
   const uint64_t va0 = j->zs.base_va + r_addr_offset(&a, x0, y0);
   uint8_t *h = r_span_map(j, c->worker, &sp, va0, bpb, access, VAGX_UNIT_ISP);
   if (!h)
      return false;
   float *depth = c->w->depth;
   uint8_t *stencil = c->w->stencil;
   /* the tile's whole Morton block translated at once (a tile cut by the
    * framebuffer's or level's edge too: its block is still one) */
   const bool block = r_addr_block_contiguous(&a) && sp.end - va0 >= (uint64_t)R_TS * R_TS * a.E;
   const bool whole = block && x1 - x0 == R_TS && y1 - y0 == R_TS;
   if (untouched) {
      if (whole && f == VAGX_FORMAT_Z24_UNORM_S8_UINT && dl && a.E == 4) {
         zs_fill_z24s8_1x(sl, h, (float)zq_depth(c, rj->clear_depth), (uint8_t)rj->clear_stencil);
         return true;
      }
      zs_clear(c);
   }
   if (whole && zs_block_z24s8(f, store, dl, sl, h, a.E, ns, depth, stencil))
      return true;
   if (block) {
      /* only the pixels inside: a tile cut by an edge has block elements
       * outside the render area but inside the level */
      for (uint32_t ly = 0; ly < y1 - y0; ly++)
         for (uint32_t lx = 0; lx < x1 - x0; lx++) {
            uint8_t *p = h + (size_t)r_tile_morton(lx, ly) * a.E;
            for (unsigned s = 0; s < ns; s++, p += bpb) {
               const size_t zi = (size_t)s * R_TS * R_TS + (size_t)ly * R_TS + lx;
               if (store)
                  r_zs_store_px(f, p, dl, sl, depth[zi], stencil[zi]);
               else
                  r_zs_load_px(f, p, dl, sl, &depth[zi], &stencil[zi]);
            }
         }
      return true;
   }
   for (uint32_t y = y0; y < y1; y++)
      for (uint32_t x = x0; x < x1; x++) {
         const uint64_t va = j->zs.base_va + r_addr_offset(&a, x, y);
         for (unsigned s = 0; s < ns; s++) {
            uint8_t *p = r_span_map(j, c->worker, &sp, va + s * bpb, bpb, access, VAGX_UNIT_ISP);
            if (!p)
               return false;
            const size_t zi = (size_t)s * R_TS * R_TS + (size_t)(y - y0) * R_TS + (x - x0);
            if (store)
               r_zs_store_px(f, p, dl, sl, depth[zi], stencil[zi]);
            else
               r_zs_load_px(f, p, dl, sl, &depth[zi], &stencil[zi]);
         }
      }
   return true;
}

/* Depth/stencil load (store = false) or store of the tile.  Without a load
 * the clear is deferred until a primitive tests depth/stencil or the tile
 * stores them: most clears of colour-only passes never touch them.
 * Pixels (x, y) in [x0, x1) x [y0, y1), samples in order, each through
 * r_map as the reference path does it; the fast path (zs_io_fast) takes
 * the tile's twiddled block at once when the first sample's translation
 * reaches over all of it (a tile cut by an edge too, touching only its
 * pixels inside), and otherwise goes in the same order through a span
 * cache, so a fault is met at the same sample. */
static bool zs_io(struct tctx *c, bool store)
{
   struct rjob *j = c->j;
   const struct vagx_render_job *rj = &j->rj;
   const bool dl = store ? rj->depth_store : rj->depth_load;
   const bool sl = store ? rj->stencil_store : rj->stencil_load;
   if (!store)
      c->zs_pending = true;
   if (!j->have_zs || (!dl && !sl))
      return true;
   /* a tile no primitive tested depth/stencil in holds the clear values:
    * the fast path stores their encoding without filling and converting
    * the tile's buffers first */
   const bool untouched = store && c->zs_pending;
   if (!untouched || !c->fast_io)
      zs_clear(c);
   const enum vagx_format f = j->zs.format;
   const struct vagx_layout *l = &j->zs_layout;
   const struct vagx_layout_level *lv = &l->level[rj->zs_level];
   const unsigned bpb = l->bytes_per_block_B;
   /* the pixels of the tile inside the framebuffer and the level (the
    * level and layer are in range: checked at setup) */
   const uint32_t x0 = (uint32_t)c->tx0, y0 = (uint32_t)c->ty0;
   uint32_t x1 = x0 + R_TS < rj->width ? x0 + R_TS : rj->width;
   uint32_t y1 = y0 + R_TS < rj->height ? y0 + R_TS : rj->height;
   x1 = x1 < lv->width_el ? x1 : lv->width_el;
   y1 = y1 < lv->height_el ? y1 : lv->height_el;
   if (x0 >= x1 || y0 >= y1)
      return true;
   if (c->fast_io)
      return zs_io_fast(c, store, dl, sl, untouched, x0, x1, y0, y1);
   for (uint32_t gy = y0; gy < y1; gy++)
      for (uint32_t gx = x0; gx < x1; gx++) {
         uint64_t off = vagx_layout_offset_B(l, rj->zs_level, rj->zs_layer, gx, gy);
         for (unsigned s = 0; s < j->samples; s++) {
            uint8_t *p = r_map(j, c->worker, j->zs.base_va + off + s * bpb, bpb,
                               store ? VAGX_USC_ACC_READ | VAGX_USC_ACC_WRITE : VAGX_USC_ACC_READ,
                               VAGX_UNIT_ISP);
            if (!p)
               return false;
            const size_t zi = (size_t)s * R_TS * R_TS + (size_t)(gy - y0) * R_TS + (gx - x0);
            r_zs_px(f, p, store, dl, sl, &c->w->depth[zi], &c->w->stencil[zi]);
         }
      }
   return true;
}

/* ------------------------------------------- background/end-of-tile fast paths -- */

/* Reads guest memory without recording a fault (a failed peek only turns a
 * fast path off; the interpreter then reports the error as usual). */
static bool peek(struct rjob *j, unsigned worker, uint64_t va, void *dst, size_t len)
{
   uint64_t span = 0;
   const void *p = j->env->mem->translate(j->dev->w[worker].mem_ctx, va, (uint32_t)len,
                                          VAGX_USC_ACC_READ | VAGX_USC_ACC_PROBE, &span);
   if (!p || span < len)
      return false;
   memcpy(dst, p, len);
   return true;
}

/* Job setup (r_fast_setup and what only it calls): once per job, so only in
 * the baseline copy (render_tile_avx2.c). */
#ifndef R_TILE_AVX2_COPY
/* Decodes a straight-line program of at most 64 instructions ending in
 * END: the number of instructions before the END, or -1 if it is longer
 * or does not decode. */
static int fast_decode(struct rjob *j, const struct rprog *p, struct vagx_instr ins[64])
{
   uint64_t words[64];
   size_t n = vagx_usc_program_words(p->prog);
   if (n > 64)
      n = 64;
   if (!n || !peek(j, j->env->nworkers, p->desc.code_va, words, n * 8))
      return -1;
   int k = 0;
   for (size_t w = 0; w < n && k < 64;) {
      int len = vagx_decode(&words[w], n - w, &ins[k]);
      if (len <= 0)
         return -1;
      w += (size_t)len;
      if (ins[k].op == VAGX_OP_END)
         return k;
      k++;
   }
   return -1;
}

static bool plain_src(const struct vagx_src *s, enum vagx_file f)
{
   return s->file == f && !s->abs && !s->neg;
}

static bool plain_dst(const struct vagx_instr *I, unsigned gprs, unsigned n)
{
   return !I->sat && I->dst_half == VAGX_HALF_FULL && I->dst + n <= gprs;
}

/* Background program made only of `mov r, u|imm` and `st_tile r, #s`: the
 * same value lands in every pixel of every tile, so it is packed once here
 * and each tile fills its planes with it. */
static void bg_setup(struct rjob *j)
{
   struct vagx_instr ins[64];
   const struct rprog *p = &j->bg;
   const int n = fast_decode(j, p, ins);
   const unsigned gprs = p->desc.gpr_count;
   uint32_t val[VAGX_MAX_GPRS];
   bool known[VAGX_MAX_GPRS] = {false};
   uint32_t covered = 0;        /* bit rt * 4 + s */
   if (n < 0)
      return;
   for (int i = 0; i < n; i++) {
      const struct vagx_instr *I = &ins[i];
      if (I->op == VAGX_OP_MOV && plain_dst(I, gprs, 1) && plain_src(&I->src[0], VAGX_FILE_U)) {
         const unsigned u = I->src[0].idx;
         val[I->dst] = u < p->desc.uniform_count ? p->uniforms[u] : 0;
         known[I->dst] = true;
      } else if (I->op == VAGX_OP_MOV && plain_dst(I, gprs, 1) &&
                 plain_src(&I->src[0], VAGX_FILE_IMM)) {
         val[I->dst] = I->imm[I->src[0].idx & 1];
         known[I->dst] = true;
      } else if (I->op == VAGX_OP_ST_TILE && plain_src(&I->src[0], VAGX_FILE_R) &&
                 plain_src(&I->src[1], VAGX_FILE_IMM) && I->src[0].idx + 4u <= gprs) {
         const unsigned r = I->src[0].idx, rt = I->mod & 7, smp = I->imm[I->src[1].idx & 1];
         if (!known[r] || !known[r + 1] || !known[r + 2] || !known[r + 3])
            return;
         if (rt >= j->rj.rt_count || smp >= j->samples)
            continue;           /* ignored by the tile buffer */
         if (j->nbg_st == R_FAST_MAX)
            return;
         struct rfast_bg_st *st = &j->bg_st[j->nbg_st++];
         st->rt = (uint8_t)rt;
         st->s = (uint8_t)smp;
         r_fmt_pack(j->rj.rt_format[rt], &val[r], st->bytes, true);
         covered |= 1u << (rt * 4 + smp);
      } else {
         return;
      }
   }
   uint32_t need = 0;
   for (unsigned rt = 0; rt < j->rj.rt_count; rt++)
      need |= ((1u << j->samples) - 1) << (rt * 4);
   j->bg_covers = (covered & need) == need;
   j->bg_tmpl = malloc(j->tb_used ? j->tb_used : 1);
   if (!j->bg_tmpl)
      return;
   j->bg_fast = true;
}

/* Formats whose ld_tile unpack followed by img_st pack gives the same bytes. */
static bool copy_exact(enum vagx_format f)
{
   switch (vagx_format_kind(f)) {
   case VAGX_FORMAT_KIND_UNORM:
   case VAGX_FORMAT_KIND_UINT:
   case VAGX_FORMAT_KIND_SINT:
      return true;
   case VAGX_FORMAT_KIND_FLOAT: /* f32 components are raw bits; f16 goes through float */
      return vagx_format_comps(f) && vagx_format_bytes_per_block(f) / vagx_format_comps(f) == 4;
   default:
      return false;   /* SNORM (-128 -> -127), sRGB (round trip), packed floats */
   }
}

/* Checks a PBE descriptor for a whole-row copy of render target rt. */
static bool eot_pbe_ok(struct rjob *j, struct rfast_eot_st *st)
{
   const char *err;
   if (!vagx_pbe_unpack(st->raw, &st->pbe, &err))
      return false;
   const struct vagx_pbe *b = &st->pbe;
   if (b->format != j->rj.rt_format[st->rt] || !copy_exact(b->format) ||
       b->dimension != VAGX_DIMENSION_2D)
      return false;
   struct vagx_texture t;
   memset(&t, 0, sizeof(t));
   t.format = b->format;
   t.dimension = b->dimension;
   t.layout = b->layout;
   t.samples = b->samples;
   t.width = b->width;
   t.height = b->height;
   t.depth = b->depth;
   t.levels = b->levels;
   t.stride = b->stride;
   t.sparse = b->sparse;
   return r_layout_from_texture(&t, &st->l) && b->level < st->l.levels &&
          st->l.bytes_per_block_B == j->rt_bpp[st->rt];
}

/* End-of-tile program made only of `mov r, sr.pix_x|pix_y`, `ld_tile.rt r,
 * #s` and `img_st.i.2d (pix_x, pix_y), <that ld_tile>, #0`: each store is a
 * row-by-row copy of the render target's plane to a linear image whose
 * format is the render target's. */
static void eot_setup(struct rjob *j)
{
   enum { UNK = 0, PX, PY, TILE };
   struct vagx_instr ins[64];
   const struct rprog *p = &j->eot;
   const int n = fast_decode(j, p, ins);
   const unsigned gprs = p->desc.gpr_count;
   uint8_t kind[VAGX_MAX_GPRS] = {0};
   uint16_t what[VAGX_MAX_GPRS]; /* TILE: rt << 8 | s << 4 | component */
   if (n < 0)
      return;
   for (int i = 0; i < n; i++) {
      const struct vagx_instr *I = &ins[i];
      if (I->op == VAGX_OP_MOV && plain_dst(I, gprs, 1) && plain_src(&I->src[0], VAGX_FILE_SR) &&
          (I->src[0].idx == VAGX_SR_PIX_X || I->src[0].idx == VAGX_SR_PIX_Y)) {
         kind[I->dst] = I->src[0].idx == VAGX_SR_PIX_X ? PX : PY;
      } else if (I->op == VAGX_OP_LD_TILE && plain_dst(I, gprs, 4) &&
                 plain_src(&I->src[0], VAGX_FILE_IMM)) {
         const unsigned rt = I->mod & 7, smp = I->imm[I->src[0].idx & 1];
         if (rt >= j->rj.rt_count || smp >= j->samples || smp > 15)
            return;
         for (unsigned k = 0; k < 4; k++) {
            kind[I->dst + k] = TILE;
            what[I->dst + k] = (uint16_t)(rt << 8 | smp << 4 | k);
         }
      } else if (I->op == VAGX_OP_IMG_ST && plain_src(&I->src[0], VAGX_FILE_R) &&
                 plain_src(&I->src[1], VAGX_FILE_R) && plain_src(&I->src[2], VAGX_FILE_IMM) &&
                 I->imm[I->src[2].idx & 1] < VAGX_MAX_SAMPLES && ((I->imm[1] >> 16) & 7) == VAGX_DIM__2D &&
                 !((I->imm[1] >> 19) & 1) && I->src[0].idx + 2u <= gprs &&
                 I->src[1].idx + 4u <= gprs) {
         const unsigned c = I->src[0].idx, d = I->src[1].idx, ii = I->imm[1] & 0xff;
         if (kind[c] != PX || kind[c + 1] != PY || kind[d] != TILE || (what[d] & 15) ||
             ii >= p->desc.image_count || j->neot_st == R_FAST_MAX)
            return;
         for (unsigned k = 1; k < 4; k++)
            if (kind[d + k] != TILE || what[d + k] != what[d] + k)
               return;
         struct rfast_eot_st *st = &j->eot_st[j->neot_st++];
         st->rt = (uint8_t)(what[d] >> 8);
         st->s = (uint8_t)((what[d] >> 4) & 15);
         st->img = (uint8_t)ii;
         st->ps = (uint8_t)I->imm[I->src[2].idx & 1];
         if (!peek(j, j->env->nworkers, p->desc.image_va + ii * 32ull, st->raw, sizeof(st->raw)) ||
             !eot_pbe_ok(j, st))
            return;
      } else {
         return;
      }
   }
   j->eot_fast = true;
}

static void fill_plane(uint8_t *dst, const uint8_t *v, unsigned bpp);

void r_fast_setup(struct rjob *j)
{
   bg_setup(j);
   eot_setup(j);
   if (!j->bg_fast)
      return;
   /* the tile buffer every tile starts from (pixels outside the framebuffer
    * get the value too: nothing can observe them) */
   if (!j->bg_covers)
      memset(j->bg_tmpl, 0, j->tb_used);
   for (unsigned i = 0; i < j->nbg_st; i++) {
      const struct rfast_bg_st *st = &j->bg_st[i];
      const unsigned bpp = j->rt_bpp[st->rt];
      fill_plane(j->bg_tmpl + j->rt_off[st->rt] + (size_t)st->s * R_TS * R_TS * bpp, st->bytes, bpp);
   }
   /* Bands: a tile without primitives loads and stores nothing but colour
    * (no depth/stencil image access, whose faults must still happen), and
    * its colour is the template, the same value in every pixel of a plane. */
   const struct vagx_render_job *rj = &j->rj;
   if (!j->eot_fast || !rj->process_empty_tiles ||
       (j->have_zs && (rj->depth_load || rj->stencil_load || rj->depth_store || rj->stencil_store)))
      return;
   for (unsigned i = 0; i < j->neot_st; i++)
      if (j->eot_st[i].l.tiling != VAGX_TILING_LINEAR)
         return;                /* band_copy stores linear rows only */
   for (unsigned i = 0; i < j->neot_st; i++) {
      const struct rfast_eot_st *st = &j->eot_st[i];
      const unsigned bpp = j->rt_bpp[st->rt];
      const size_t len = (size_t)rj->width * bpp;
      if (len > 256 * 1024 || !(j->eot_row[i] = malloc(len)))
         return;
      const uint8_t *v = j->bg_tmpl + j->rt_off[st->rt] + (size_t)st->s * R_TS * R_TS * bpp;
      memcpy(j->eot_row[i], v, bpp);
      for (size_t done = bpp; done < len; done *= 2)
         memcpy(j->eot_row[i] + done, j->eot_row[i], done * 2 <= len ? done : len - done);
   }
   j->band_ok = true;
}

/* Fills one plane (32x32 pixels of bpp bytes) with a packed value. */
static void fill_plane(uint8_t *dst, const uint8_t *v, unsigned bpp)
{
   const size_t total = (size_t)R_TS * R_TS * bpp;
   memcpy(dst, v, bpp);
   for (size_t done = bpp; done < total; done *= 2)
      memcpy(dst + done, dst, done * 2 <= total ? done : total - done);
}
#endif


/* Copies one row of len bytes; full tile rows (the usual case) with a
 * constant size so the compiler inlines the copy. */
static inline void copy_row(uint8_t *dst, const uint8_t *src, uint32_t len)
{
   switch (len) {
   case R_TS * 4: memcpy(dst, src, R_TS * 4); return;
   case R_TS * 8: memcpy(dst, src, R_TS * 8); return;
   case R_TS * 16: memcpy(dst, src, R_TS * 16); return;
   default: memcpy(dst, src, len); return;
   }
}

/* Stores a tile plane (rows of R_TS pixels of bpp bytes) into a
 * Morton-ordered block whose element (lx, ly) is at block + morton * E. */
static void copy_to_morton(uint8_t *block, uint32_t E, const uint8_t *src, unsigned bpp)
{
   if (E == bpp) {
      switch (bpp) {
      case 4: rows_to_morton(block, src, 4); return;
      case 8: rows_to_morton(block, src, 8); return;
      case 16: rows_to_morton(block, src, 16); return;
      case 2: rows_to_morton(block, src, 2); return;
      default: break;
      }
   }
#define TO_MORTON(n)                                                                 for (uint32_t ly = 0; ly < R_TS; ly++)                                               for (uint32_t lx = 0; lx < R_TS; lx++)                                               memcpy(block + (size_t)r_tile_morton(lx, ly) * E, src + ((size_t)ly * R_TS + lx) * (n), n);    return
   switch (bpp) {
   case 4: TO_MORTON(4);
   case 8: TO_MORTON(8);
   case 16: TO_MORTON(16);
   case 2: TO_MORTON(2);
   default: TO_MORTON(bpp);
   }
#undef TO_MORTON
}

/* Where one store of the end-of-tile program goes in this tile. */
struct eot_dst {
   bool skip;                 /* img_st drops every pixel (layer, sample, outside) */
   uint32_t x1, y1;           /* end of the stored pixels (the tile starts them) */
   struct raddr a;
   uint64_t va;               /* PBE base + the sample's offset in an element */
   uint8_t *block;            /* twiddled: the whole Morton-ordered tile block */
   uint8_t *row[R_TS];        /* linear: each row's host address */
};

/* Probes every address one store writes (nothing is written, no fault is
 * recorded); false when one does not translate. */
static bool eot_plan(struct tctx *c, const struct rfast_eot_st *st, struct eot_dst *d)
{
   struct rjob *j = c->j;
   const struct vagx_pbe *b = &st->pbe;
   const struct vagx_layout *l = &st->l;
   const unsigned bpp = l->bytes_per_block_B;
   const uint32_t x0 = (uint32_t)c->tx0, y0 = (uint32_t)c->ty0;
   uint32_t x1 = x0 + R_TS, y1 = y0 + R_TS;
   x1 = x1 < j->rj.width ? x1 : j->rj.width;
   x1 = x1 < l->level[b->level].width_px ? x1 : l->level[b->level].width_px;
   y1 = y1 < j->rj.height ? y1 : j->rj.height;
   y1 = y1 < l->level[b->level].height_px ? y1 : l->level[b->level].height_px;
   d->skip = b->layer >= l->layers || st->ps >= l->sample_count_sa || x0 >= x1 || y0 >= y1;
   d->block = NULL;
   if (d->skip)
      return true;
   d->x1 = x1;
   d->y1 = y1;
   r_addr_init(&d->a, l, b->level, b->layer);
   d->va = b->base_va + (uint64_t)st->ps * bpp;
   struct rspan sp;
   r_span_reset(&sp);
   if (d->a.linear) {
      const uint32_t len = (x1 - x0) * bpp;
      for (uint32_t y = y0; y < y1; y++)
         if (!(d->row[y - y0] = r_span_map(j, c->worker, &sp, d->va + r_addr_offset(&d->a, x0, y),
                                           len, VAGX_USC_ACC_WRITE, VAGX_UNIT_NONE)))
            return false;
      return true;
   }
   const uint64_t va0 = d->va + r_addr_offset(&d->a, x0, y0);
   uint8_t *h = r_span_map(j, c->worker, &sp, va0, bpp, VAGX_USC_ACC_WRITE, VAGX_UNIT_NONE);
   if (!h)
      return false;
   /* the tile's whole Morton block translated at once, also when the
    * framebuffer's or level's edge cuts the tile (eot_store then writes
    * only the pixels inside) */
   if (r_addr_block_contiguous(&d->a) && sp.end - va0 >= (uint64_t)(R_TS * R_TS - 1) * d->a.E + bpp) {
      d->block = h;
      return true;
   }
   for (uint32_t y = y0; y < y1; y++)
      for (uint32_t x = x0; x < x1; x++)
         if (!r_span_map(j, c->worker, &sp, d->va + r_addr_offset(&d->a, x, y), bpp,
                         VAGX_USC_ACC_WRITE, VAGX_UNIT_NONE))
            return false;
   return true;
}

/* Writes one planned store from the tile plane src. */
static bool eot_store(struct tctx *c, const struct eot_dst *d, const uint8_t *src, unsigned bpp)
{
   const uint32_t x0 = (uint32_t)c->tx0, y0 = (uint32_t)c->ty0;
   if (d->a.linear) {
      for (uint32_t y = y0; y < d->y1; y++)
         copy_row(d->row[y - y0], src + (size_t)(y - y0) * R_TS * bpp, (d->x1 - x0) * bpp);
      return true;
   }
   if (d->block && d->x1 - x0 == R_TS && d->y1 - y0 == R_TS) {
      copy_to_morton(d->block, d->a.E, src, bpp);
      return true;
   }
   if (d->block) {
      for (uint32_t ly = 0; ly < d->y1 - y0; ly++)
         for (uint32_t lx = 0; lx < d->x1 - x0; lx++)
            memcpy(d->block + (size_t)r_tile_morton(lx, ly) * d->a.E,
                   src + ((size_t)ly * R_TS + lx) * bpp, bpp);
      return true;
   }
   struct rspan sp;
   r_span_reset(&sp);
   for (uint32_t y = y0; y < d->y1; y++)
      for (uint32_t x = x0; x < d->x1; x++) {
         uint8_t *p = r_span_map(c->j, c->worker, &sp, d->va + r_addr_offset(&d->a, x, y), bpp,
                                 VAGX_USC_ACC_WRITE, VAGX_UNIT_NONE);
         if (!p)
            return false;      /* the mapping changed since eot_plan (no safepoint between) */
         memcpy(p, src + ((size_t)(y - y0) * R_TS + (x - x0)) * bpp, bpp);
      }
   return true;
}

/* False: use the interpreter (descriptor changed, or an address that does
 * not translate: every address is probed before anything is written, so
 * the interpreter then meets the fault first and memory is as it leaves
 * it).  `tb` is the tile buffer to store (the worker's, or the background
 * template for a tile no primitive touched). */
static bool eot_fast(struct tctx *c, const uint8_t *tb)
{
   struct rjob *j = c->j;
   for (unsigned i = 0; i < j->neot_st; i++) {
      const struct rfast_eot_st *st = &j->eot_st[i];
      uint32_t raw[VAGX_PBE_DWORDS];
      if (!peek(j, c->worker, j->eot.desc.image_va + st->img * 32ull, raw, sizeof(raw)) ||
          memcmp(raw, st->raw, sizeof(raw)))
         return false;
   }
   struct eot_dst dst[R_FAST_MAX];
   for (unsigned i = 0; i < j->neot_st; i++)
      if (!eot_plan(c, &j->eot_st[i], &dst[i]))
         return false;
   for (unsigned i = 0; i < j->neot_st; i++) {
      const struct rfast_eot_st *st = &j->eot_st[i];
      const unsigned bpp = st->l.bytes_per_block_B;
      if (!dst[i].skip &&
          !eot_store(c, &dst[i], tb + j->rt_off[st->rt] + (size_t)st->s * R_TS * R_TS * bpp, bpp))
         return false;
   }
   return true;
}

void R_TILE_SFX(r_tile)(void *ctx, unsigned item, unsigned worker)
{
   struct rjob *j = ctx;
   r_safepoint(j, worker);
   if (r_stop(j))
      return;
   const struct rlist *bin = &j->bins[item];
   if (!bin->n && !j->rj.process_empty_tiles)
      return;
   struct tctx c;
   memset(&c, 0, offsetof(struct tctx, stage_buf));
   for (unsigned l = 0; l < 32; l++)
      c.sr[VAGX_SR_LANE_ID][l] = l;
   c.j = j;
   c.worker = worker;
   c.w = &j->dev->w[worker];
   c.tx0 = (int)(item % j->tiles_x) * R_TS;
   c.ty0 = (int)(item / j->tiles_x) * R_TS;
   c.fast_io = !(j->dev->options & VAGX_RENDER_OPT_NO_FAST_IO);
   c.ref_raster = j->dev->options & VAGX_RENDER_OPT_NO_FAST_RASTER;
   c.zq = j->have_zs && vagx_format_depth(j->zs.format) && j->zs.format != VAGX_FORMAT_Z32_FLOAT &&
          j->zs.format != VAGX_FORMAT_Z32_FLOAT_S8X24_UINT;
   /* only the planes of this job's render targets are ever read */
   if (j->bg_fast) {
      /* a tile without primitives stores the template itself */
      if (bin->n || !j->eot_fast)
         memcpy(c.w->tb, j->bg_tmpl, j->tb_used);
      c.w->fast_bg++;
   } else {
      memset(c.w->tb, 0, j->tb_used);
      if (!run_pixels(&c, &j->bg, ST_BG))
         return;
   }
   if (!zs_io(&c, false))
      return;
   for (uint32_t i = 0; i < bin->n;) {
      uint32_t k = i;
      while (k < bin->n && hsr_ok(j, &j->pb.prims[bin->v[k]]))
         k++;
      if (k - i >= 2) {
         if (!hsr_run(&c, &bin->v[i], k - i))
            return;
         i = k;
         continue;
      }
      do_prim(&c, &j->pb.prims[bin->v[i]], PM_NORMAL, 0);
      if (r_stop(j))
         return;
      i++;
   }
   const bool tmpl = j->bg_fast && !bin->n && j->eot_fast;
   if (j->eot_fast && eot_fast(&c, tmpl ? j->bg_tmpl : c.w->tb)) {
      c.w->fast_eot++;
   } else {
      if (tmpl)
         memcpy(c.w->tb, j->bg_tmpl, j->tb_used);
      if (!run_pixels(&c, &j->eot, ST_EOT))
         return;
   }
   zs_io(&c, true);
}

/* Stores n bytes (whole rows) of one repeated value of bpp bytes; `row`
 * holds it repeated over rowlen bytes.  A copy from `row` makes the CPU read
 * every destination cache line before writing it (read for ownership): ~1.3x
 * the time of memset, which x86 does with the string unit, writing whole
 * lines without reading them.  So a value that repeats every 8 bytes (bpp 1,
 * 2, 4, 8) is stored as memset does on x86-64 (`rep stosq`), and one of
 * identical bytes with memset; anything else is copied row by row. */
static bool store_phase_free(const uint8_t *row, unsigned bpp)
{
   bool same = true;
   for (unsigned b = 1; b < bpp; b++)
      same &= row[b] == row[0];
#if defined(__x86_64__) && defined(__GNUC__)
   return same || (bpp <= 8 && 8 % bpp == 0);
#else
   return same;
#endif
}

static void store_rows(uint8_t *dst, const uint8_t *row, size_t rowlen, size_t n, unsigned bpp)
{
   bool same = true;
   for (unsigned b = 1; b < bpp; b++)
      same &= row[b] == row[0];
   if (same) {
      memset(dst, row[0], n);
      return;
   }
#if defined(__x86_64__) && defined(__GNUC__)
   if (bpp <= 8 && 8 % bpp == 0 && n >= 64) {
      uint64_t v;
      memcpy(&v, row, 8);
      size_t q = n / 8;
      void *d = dst;
      __asm__ volatile("rep stosq" : "+D"(d), "+c"(q) : "a"(v) : "memory");
      /* the tail starts at a multiple of 8, where `row` is in phase */
      memcpy(dst + n / 8 * 8, row, n % 8);
      return;
   }
#endif
   for (size_t done = 0; done < n; done += rowlen)
      memcpy(dst + done, row, n - done < rowlen ? n - done : rowlen);
}

/* A row of tiles without primitives, stored as whole framebuffer rows (see
 * r_fast_setup); tile by tile when a descriptor changed or a row does not
 * translate in one piece (the interpreter then reports any fault). */
static bool band_copy(struct rjob *j, unsigned ty, unsigned worker)
{
   for (unsigned i = 0; i < j->neot_st; i++) {
      const struct rfast_eot_st *st = &j->eot_st[i];
      uint32_t raw[VAGX_PBE_DWORDS];
      if (!peek(j, worker, j->eot.desc.image_va + st->img * 32ull, raw, sizeof(raw)) ||
          memcmp(raw, st->raw, sizeof(raw)))
         return false;
   }
   for (unsigned i = 0; i < j->neot_st; i++) {
      const struct rfast_eot_st *st = &j->eot_st[i];
      const struct vagx_pbe *b = &st->pbe;
      const struct vagx_layout *l = &st->l;
      const unsigned bpp = l->bytes_per_block_B;
      if (b->layer >= l->layers)
         continue;
      const uint32_t lw = l->level[b->level].width_px, lh = l->level[b->level].height_px;
      const uint32_t x1 = j->rj.width < lw ? j->rj.width : lw;
      uint32_t y1 = ty * R_TS + R_TS;
      y1 = y1 < j->rj.height ? y1 : j->rj.height;
      y1 = y1 < lh ? y1 : lh;
      const uint32_t len = x1 * bpp, y0 = ty * R_TS;
      if (y0 >= y1)
         continue;
      const uint64_t off0 = vagx_layout_offset_B(l, b->level, b->layer, 0, y0);
      if (l->tiling != VAGX_TILING_LINEAR ||
          vagx_layout_offset_B(l, b->level, b->layer, x1 - 1, y0) - off0 != len - bpp)
         return false;
      /* linear: every row at the same offset from the previous one */
      const uint64_t stride =
         y1 - y0 > 1 ? vagx_layout_offset_B(l, b->level, b->layer, 0, y0 + 1) - off0 : len;
      /* Rows adjacent in host memory are stored in one go; a translation
       * covers the following rows as far as its span reaches. */
      const bool merge = stride == len && store_phase_free(j->eot_row[i], bpp);
      uint8_t *run = NULL, *host = NULL;
      size_t run_len = 0;
      uint64_t span = 0;
      for (uint32_t y = y0; y < y1; y++) {
         if (y > y0 && span >= stride + len) {
            host += stride;
            span -= stride;
         } else {
            host = j->env->mem->translate(j->dev->w[worker].mem_ctx,
                                          b->base_va + off0 + (y - y0) * stride, len,
                                          VAGX_USC_ACC_WRITE | VAGX_USC_ACC_PROBE, &span);
            if (!host || span < len) {
               if (run)
                  store_rows(run, j->eot_row[i], len, run_len, bpp);
               return false;
            }
         }
         if (merge && run && host == run + run_len) {
            run_len += len;
            continue;
         }
         if (run)
            store_rows(run, j->eot_row[i], len, run_len, bpp);
         run = host;
         run_len = len;
      }
      store_rows(run, j->eot_row[i], len, run_len, bpp);
   }
   return true;
}

void R_TILE_SFX(r_band)(struct rjob *j, unsigned ty, unsigned worker)
{
   r_safepoint(j, worker);
   if (r_stop(j))
      return;
   if (band_copy(j, ty, worker)) {
      j->dev->w[worker].fast_bg += j->tiles_x;
      j->dev->w[worker].fast_eot += j->tiles_x;
      j->dev->w[worker].fast_bands++;
      return;
   }
   for (unsigned tx = 0; tx < j->tiles_x && !r_stop(j); tx++)
      r_tile(j, ty * j->tiles_x + tx, worker);
}
