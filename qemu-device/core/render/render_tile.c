/* SPDX-License-Identifier: MIT */
/* vagx renderer, phase 2: one tile.  Background program, depth/stencil
 * load, ISP (rasterisation with the top-left rule, scissor, depth/stencil,
 * occlusion counting), fragment shaders (coefficient registers, tile-buffer
 * access), end-of-tile program, depth/stencil store. */
#include <math.h>

#include "render_priv.h"

enum stage { ST_FRAG, ST_BG, ST_EOT };

/* 4X standard pattern in 1/16 pixel. */
static const int s4x[4][2] = {{6, 2}, {14, 6}, {2, 10}, {10, 14}};

struct tctx {
   struct rjob *j;
   unsigned worker;
   struct rworker *w;
   int tx0, ty0;                 /* tile origin in pixels */
   enum stage stage;
   const struct rprog *p;
   const struct rdraw *d;
   const struct rprim *prim;
   const struct rcf *cf;
   uint32_t cov[32];             /* per lane sample coverage (after tests) */
   uint32_t helper;              /* lanes that are helpers */
   int px[32], py[32];
   uint32_t last_exec;           /* exec of the last hook call (discard tracking) */
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
      *x = s4x[s][0] / 16.0;
      *y = s4x[s][1] / 16.0;
   } else {
      double h = (!d || d->rs.half_pixel_center) ? 0.5 : 0.0;
      *x = *y = h;
   }
}

static enum vagx_usc_status frag_exec(void *ctx, struct vagx_usc_gfx_call *call)
{
   struct tctx *c = ctx;
   struct rjob *j = c->j;
   const struct vagx_instr *I = call->instr;
   c->last_exec = call->exec;
   switch (I->op) {
   case VAGX_OP_ITER:
   case VAGX_OP_LDCF: {
      if (c->stage != ST_FRAG)
         return VAGX_USC_ILLEGAL_INSTRUCTION;
      const unsigned ncf = c->d->ncf;
      const unsigned ci = I->src[0].idx;
      const bool f16 = I->op == VAGX_OP_ITER ? (I->mod >> 3) & 1 : I->mod & 1;
      for (unsigned l = 0; l < 32; l++) {
         if (!(call->exec >> l & 1))
            continue;
         float r = 0;
         if (I->op == VAGX_OP_LDCF) {
            r = ci < ncf ? r_f(c->cf[ci].flat) : 0;
         } else {
            const unsigned loc = I->mod & 3, persp = (I->mod >> 2) & 1, wi = I->src[1].idx;
            double ox, oy;
            sample_pos(j, c->d, 0, &ox, &oy);
            if (j->samples == 4 && c->d->rs.multisample) {
               ox = oy = c->d->rs.half_pixel_center ? 0.5 : 0.0;
               unsigned s = 4;
               if (loc == VAGX_ITERLOC_SAMPLE)
                  s = call->src[2][l] & 3;
               else if (loc == VAGX_ITERLOC_CENTROID && c->cov[l] != 0xf && c->cov[l])
                  s = (unsigned)__builtin_ctz(c->cov[l]);
               if (s < 4)
                  sample_pos(j, c->d, s, &ox, &oy);
            }
            const double X = c->px[l] + ox - c->prim->x0, Y = c->py[l] + oy - c->prim->y0;
            double v = 0;
            if (ci < ncf)
               v = c->cf[ci].c + c->cf[ci].a * X + c->cf[ci].b * Y;
            if (persp) {
               double w = wi < ncf ? c->cf[wi].c + c->cf[wi].a * X + c->cf[wi].b * Y : 1;
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
      if (st && I->src[0].idx + 4u > c->p->desc.gpr_count)
         return VAGX_USC_ILLEGAL_INSTRUCTION;
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
         if (st) {
            if ((c->helper >> l & 1) || !(c->cov[l] >> s & 1))
               continue;
            uint32_t v[4];
            for (unsigned k = 0; k < 4; k++)
               v[k] = call->regs[I->src[0].idx + k][l];
            r_fmt_pack(j->rj.rt_format[rt], v, p, false);
         } else {
            uint32_t v[4];
            r_fmt_unpack(j->rj.rt_format[rt], p, v);
            for (unsigned k = 0; k < 4; k++)
               call->out[k][l] = v[k];
         }
      }
      return VAGX_USC_OK;
   }
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
static const struct vagx_usc_gfx_ops frag_ops = {.exec = frag_exec};

/* Lane -> pixel inside an 8x4 block of 2x2 quads. */
static inline void lane_xy(unsigned l, int *x, int *y)
{
   unsigned q = l >> 2;
   *x = (int)((q & 3) * 2 + (l & 1));
   *y = (int)((q >> 2) * 2 + ((l >> 1) & 1));
}

static bool run_prog(struct tctx *c, uint32_t exec, uint32_t sr[][32])
{
   struct vagx_usc_env env;
   r_usc_env(c->j, c->worker, c->p, &env, &frag_ops, c);
   struct vagx_usc_result res;
   memset(&res, 0, sizeof(res));
   c->last_exec = exec;
   if (vagx_usc_run_simd(c->w->usc, c->p->prog, &env, (const uint32_t(*)[32])sr, exec, &res) !=
       VAGX_USC_OK) {
      r_usc_fail(c->j, c->worker, &res, c->p);
      return false;
   }
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

static double frag_depth(const struct rdraw *d, const struct rprim *p, double x, double y)
{
   double z = p->zc + p->za * (x - p->x0) + p->zb * (y - p->y0) + p->zoff;
   if (!d->rs.depth_clip) {
      if (z < 0) z = 0;
      if (z > 1) z = 1;
   }
   double lo = d->vp.min_depth < d->vp.max_depth ? d->vp.min_depth : d->vp.max_depth;
   double hi = d->vp.min_depth < d->vp.max_depth ? d->vp.max_depth : d->vp.min_depth;
   if (z < lo) z = lo;
   if (z > hi) z = hi;
   return (float)z;
}

static void do_prim(struct tctx *c, const struct rprim *p)
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
   c->cf = &j->cfs[p->cf];
   const struct vagx_cmd_depth_stencil *ds = &d->ds;
   const struct vagx_stencil_face *sf = p->front ? &ds->front : &ds->back;
   const bool defer = d->fp.discards;
   struct rquery *q = d->query >= 0 ? &j->queries[d->query] : NULL;
   uint64_t passed = 0;
   uint32_t sr[VAGX_SR_COUNT][32];
   memset(sr, 0, sizeof(sr));
   const int bx0 = (x0 - c->tx0) & ~7, by0 = (y0 - c->ty0) & ~3;
   double spx[4], spy[4];
   for (unsigned s = 0; s < ns; s++)
      sample_pos(j, d, s, &spx[s], &spy[s]);

   const bool is_line = p->kind == R_PRIM_LINE;
   const uint32_t all = (1u << ns) - 1;
   for (int by = by0; by < y1 - c->ty0; by += 4)
      for (int bx = bx0; bx < x1 - c->tx0; bx += 8) {
         if (is_line && !line_block(&p->line, c->tx0 + bx, c->ty0 + by, c->tx0 + bx + 8,
                                    c->ty0 + by + 4))
            continue;
         uint32_t live = 0;
         double zs[32][4];
         for (unsigned l = 0; l < 32; l++) {
            int x, y;
            lane_xy(l, &x, &y);
            const int gx = c->tx0 + bx + x, gy = c->ty0 + by + y;
            c->px[l] = gx;
            c->py[l] = gy;
            c->cov[l] = 0;
            if (gx < x0 || gx >= x1 || gy < y0 || gy >= y1)
               continue;
            uint32_t m = 0;
            if (is_line)
               m = line_covers(&p->line, gx, gy) ? all : 0;
            for (unsigned s = 0; s < ns && !is_line; s++) {
               int64_t fx = (int64_t)gx * R_SUBPIX + (int64_t)(spx[s] * R_SUBPIX);
               int64_t fy = (int64_t)gy * R_SUBPIX + (int64_t)(spy[s] * R_SUBPIX);
               if (inside(p, fx, fy))
                  m |= 1u << s;
            }
            m &= d->rs.sample_mask;
            /* early depth/stencil */
            const int lx = bx + x, ly = by + y;
            for (unsigned s = 0; s < ns; s++) {
               if (!(m >> s & 1))
                  continue;
               const size_t zi = (size_t)s * R_TS * R_TS + (size_t)ly * R_TS + (size_t)lx;
               uint8_t *sp = &c->w->stencil[zi];
               float *dp = &c->w->depth[zi];
               double z = frag_depth(d, p, gx + spx[s], gy + spy[s]);
               zs[l][s] = z;
               if (ds->stencil_test &&
                   !cmpf(sf->func, (double)(sf->ref & sf->read_mask), (double)(*sp & sf->read_mask))) {
                  stencil_write(sf, sp, sf->fail_op);
                  m &= ~(1u << s);
                  continue;
               }
               if (ds->depth_test && !cmpf(ds->depth_func, z, *dp)) {
                  if (ds->stencil_test)
                     stencil_write(sf, sp, sf->zfail_op);
                  m &= ~(1u << s);
                  continue;
               }
               if (!defer) {
                  if (ds->stencil_test)
                     stencil_write(sf, sp, sf->zpass_op);
                  if (ds->depth_test && ds->depth_write)
                     *dp = (float)z;
                  passed++;
               }
            }
            c->cov[l] = m;
            if (m)
               live |= 1u << l;
         }
         if (!live)
            continue;
         uint32_t exec = 0;
         for (unsigned qd = 0; qd < 8; qd++)
            if (live >> (qd * 4) & 0xf)
               exec |= 0xfu << (qd * 4);
         c->helper = exec & ~live;
         for (unsigned l = 0; l < 32; l++) {
            sr[VAGX_SR_LANE_ID][l] = l;
            sr[VAGX_SR_PIX_X][l] = (uint32_t)c->px[l];
            sr[VAGX_SR_PIX_Y][l] = (uint32_t)c->py[l];
            sr[VAGX_SR_SAMPLE_MASK][l] = c->cov[l];
            sr[VAGX_SR_FRONT_FACE][l] = p->front ? ~0u : 0;
            sr[VAGX_SR_HELPER][l] = (c->helper >> l & 1) ? ~0u : 0;
            sr[VAGX_SR_SAMPLE_ID][l] = 0;
         }
         uint32_t alive = live;
         if (d->fp.per_sample && ns == 4) {
            uint32_t full[32];
            memcpy(full, c->cov, sizeof(full));
            uint32_t alive_s = 0;
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
               c->helper = e & ~lv;
               for (unsigned l = 0; l < 32; l++)
                  sr[VAGX_SR_HELPER][l] = (c->helper >> l & 1) ? ~0u : 0;
               if (!run_prog(c, e, sr))
                  return;
               alive_s |= lv & c->last_exec;
            }
            memcpy(c->cov, full, sizeof(full));
            alive = alive_s;
         } else {
            if (!run_prog(c, exec, sr))
               return;
            alive = live & c->last_exec;
         }
         if (defer) {
            /* depth/stencil writes of surviving fragments (see report: the
             * interpreter does not return its discard mask) */
            for (unsigned l = 0; l < 32; l++) {
               if (!(alive >> l & 1))
                  continue;
               int x, y;
               lane_xy(l, &x, &y);
               for (unsigned s = 0; s < ns; s++) {
                  if (!(c->cov[l] >> s & 1))
                     continue;
                  const size_t zi = (size_t)s * R_TS * R_TS + (size_t)(by + y) * R_TS + (size_t)(bx + x);
                  if (ds->stencil_test)
                     stencil_write(sf, &c->w->stencil[zi], sf->zpass_op);
                  if (ds->depth_test && ds->depth_write)
                     c->w->depth[zi] = (float)zs[l][s];
                  passed++;
               }
            }
         }
         if (r_stop(j))
            return;
      }
   if (q && passed)
      atomic_fetch_add(&q->count, passed);
}

/* Depth/stencil load (store = false) or store of the tile. */
static bool zs_io(struct tctx *c, bool store)
{
   struct rjob *j = c->j;
   const struct vagx_render_job *rj = &j->rj;
   const bool dl = store ? rj->depth_store : rj->depth_load;
   const bool sl = store ? rj->stencil_store : rj->stencil_load;
   if (!store) {
      for (size_t i = 0; i < (size_t)j->samples * R_TS * R_TS; i++) {
         c->w->depth[i] = rj->clear_depth;
         c->w->stencil[i] = (uint8_t)rj->clear_stencil;
      }
   }
   if (!j->have_zs || (!dl && !sl))
      return true;
   const enum vagx_format f = j->zs.format;
   const bool has_d = vagx_format_depth(f), has_s = vagx_format_stencil(f);
   const struct vagx_layout *l = &j->zs_layout;
   const unsigned bpb = l->bytes_per_block_B;
   for (int y = 0; y < R_TS; y++)
      for (int x = 0; x < R_TS; x++) {
         uint32_t gx = (uint32_t)(c->tx0 + x), gy = (uint32_t)(c->ty0 + y);
         if (gx >= rj->width || gy >= rj->height ||
             !vagx_layout_in_bounds(l, rj->zs_level, rj->zs_layer, gx, gy))
            continue;
         uint64_t off = vagx_layout_offset_B(l, rj->zs_level, rj->zs_layer, gx, gy);
         for (unsigned s = 0; s < j->samples; s++) {
            uint8_t *p = r_map(j, c->worker, j->zs.base_va + off + s * bpb, bpb,
                               store ? VAGX_USC_ACC_READ | VAGX_USC_ACC_WRITE : VAGX_USC_ACC_READ,
                               VAGX_UNIT_ISP);
            if (!p)
               return false;
            const size_t zi = (size_t)s * R_TS * R_TS + (size_t)y * R_TS + (size_t)x;
            uint32_t v[4] = {0, 0, 0, 0};
            r_fmt_unpack(f, p, v);
            if (f == VAGX_FORMAT_S8_UINT) {
               v[1] = v[0];
               v[0] = 0;
            }
            if (!store) {
               if (dl && has_d)
                  c->w->depth[zi] = r_f(v[0]);
               if (sl && has_s)
                  c->w->stencil[zi] = (uint8_t)v[1];
            } else {
               if (dl && has_d)
                  v[0] = r_u(c->w->depth[zi]);
               if (sl && has_s)
                  v[1] = c->w->stencil[zi];
               if (f == VAGX_FORMAT_S8_UINT)
                  v[0] = v[1];
               r_fmt_pack(f, v, p, false);
            }
         }
      }
   return true;
}

void r_tile(void *ctx, unsigned item, unsigned worker)
{
   struct rjob *j = ctx;
   if (r_stop(j))
      return;
   const struct rlist *bin = &j->bins[item];
   if (!bin->n && !j->rj.process_empty_tiles)
      return;
   struct tctx c;
   memset(&c, 0, sizeof(c));
   c.j = j;
   c.worker = worker;
   c.w = &j->dev->w[worker];
   c.tx0 = (int)(item % j->tiles_x) * R_TS;
   c.ty0 = (int)(item / j->tiles_x) * R_TS;
   memset(c.w->tb, 0, (size_t)VAGX_MAX_RENDER_TARGETS * VAGX_MAX_SAMPLES * R_TS * R_TS * 16);
   if (!run_pixels(&c, &j->bg, ST_BG) || !zs_io(&c, false))
      return;
   for (uint32_t i = 0; i < bin->n; i++) {
      do_prim(&c, &j->prims[bin->v[i]]);
      if (r_stop(j))
         return;
   }
   if (!run_pixels(&c, &j->eot, ST_EOT))
      return;
   zs_io(&c, true);
}
