/* SPDX-License-Identifier: MIT */
/* vagx renderer PPP: clipping, culling, viewport, triangle/line/point setup,
 * coefficient registers and binning into 32x32 tiles. */
#include <math.h>

#include "render_priv.h"
#include "render_grow.h"

/* A clip-space vertex in the scratch: pos[4], cd[8], attrs[na], and its
 * clip-space barycentrics of the primitive's vertices, bary[3]. */
#define CV_POS 0
#define CV_CD 4
#define CV_ATTR 12

struct layout {
   unsigned n32, n16;         /* 32-bit words, 16-bit pair words */
   unsigned na;               /* expanded attributes: n32 + 2*n16 */
   unsigned bary;             /* index of bary[3] in a clip vertex */
   unsigned stride;           /* doubles per clip vertex */
   unsigned ps_word, cd_word, ncd;
   int ef_word;               /* edge flag output word, -1 without */
};

static void get_layout(const struct vagx_cmd_bind_vertex_pipeline *vp, struct layout *l)
{
   l->n32 = vp->smooth32 + vp->flat32 + vp->linear32;
   l->n16 = vp->smooth16 + vp->flat16 + vp->linear16;
   l->na = l->n32 + 2 * l->n16;
   l->bary = CV_ATTR + l->na;
   l->stride = l->bary + 3;
   l->ps_word = 4 + l->n32 + l->n16;
   l->cd_word = l->ps_word + (vp->point_size ? 1 : 0);
   l->ncd = vp->clip_distances;
   l->ef_word = vp->edge_flag ? (int)(l->cd_word + l->ncd) : -1;
}

/* Whether the fragment pipeline interpolates a vertex output without
 * perspective (a LINEAR binding: the bindings, not the output groups, decide). */
static bool has_noperspective(const struct rdraw *d)
{
   for (unsigned bi = 0; bi < d->fp.cf_binding_count; bi++)
      if (d->cfb[bi].interp == VAGX_INTERP_LINEAR && d->cfb[bi].source != VAGX_CF_SOURCE_POINT_COORD)
         return true;
   return false;
}

/* Recomputes expanded attribute a of clip vertex cv from the primitive's
 * vertices o[] with window-space barycentrics s[]. */
static void nopersp_attr(const struct layout *l, const double *o, unsigned no, const double *s,
                         unsigned a, double *cv)
{
   if (a >= l->na)
      return;
   double v = 0;
   for (unsigned i = 0; i < no; i++)
      v += s[i] * o[(size_t)i * l->stride + CV_ATTR + a];
   cv[CV_ATTR + a] = v;
}

/* Noperspective attributes of clip-generated vertices.  Clipping interpolates
 * a vertex linearly in clip space, which is right for smooth attributes only;
 * one that a LINEAR binding reads must be interpolated in window space (GL 4.6
 * 13.5: t computed in window coordinates).  From the vertex's clip-space
 * barycentrics b of the primitive's vertices o[], the window-space ones are
 * s_i = b_i w_i / sum_j b_j w_j, which holds for any sequence of planes; the
 * attribute is recomputed from o[] with them.  (An output that one binding
 * reads LINEAR and another SMOOTH gets the window-space value for both.) */
static void fix_noperspective(const struct rdraw *d, const struct layout *l, const double *o,
                              unsigned no, double *cv)
{
   const double *b = cv + l->bary;
   double s[3], sum = 0;
   for (unsigned i = 0; i < no; i++) {
      s[i] = b[i] * o[(size_t)i * l->stride + CV_POS + 3];
      sum += s[i];
   }
   if (!(sum > 0))
      return;
   for (unsigned i = 0; i < no; i++)
      s[i] /= sum;
   const unsigned first_user = d->fp.z_slot ? 2 : 1;
   for (unsigned bi = 0; bi < d->fp.cf_binding_count; bi++) {
      const struct vagx_cf_binding *cb = &d->cfb[bi];
      if (cb->interp != VAGX_INTERP_LINEAR || cb->source == VAGX_CF_SOURCE_POINT_COORD)
         continue;
      for (unsigned k = 0; k < cb->count; k++) {
         const unsigned slot = cb->slot + k;
         if (slot < first_user)
            continue; /* 1/w and z come from the window-space vertex */
         const unsigned u = slot - first_user;
         if (u < l->n32) {
            nopersp_attr(l, o, no, s, u, cv);
         } else if (u - l->n32 < l->n16) {
            nopersp_attr(l, o, no, s, l->n32 + 2 * (u - l->n32), cv);
            nopersp_attr(l, o, no, s, l->n32 + 2 * (u - l->n32) + 1, cv);
         }
      }
   }
}

/* Before the first clip that generates vertices: when a LINEAR binding
 * exists, remembers the primitive's nv vertices in o[] for
 * fix_noperspective; false when there is nothing to fix.  (Unclipped
 * primitives, the common case, pay nothing.) */
static bool nopersp_begin(const struct rdraw *d, const struct layout *l, const double *a,
                          unsigned nv, double *o)
{
   if (!has_noperspective(d))
      return false;
   memcpy(o, a, (size_t)nv * l->stride * sizeof(double));
   return true;
}

static void load_vertex(const struct layout *l, const float *v, double *cv)
{
   for (unsigned i = 0; i < 4; i++)
      cv[CV_POS + i] = v[i];
   /* all eight slots zeroed first (two vector stores; a loop from ncd to 8
    * was 1.3 % of a replay), then the clip distances the shader writes */
   for (unsigned i = 0; i < 8; i++)
      cv[CV_CD + i] = 0;
   unsigned i = 0;
   for (; i < l->ncd; i++)
      cv[CV_CD + i] = v[l->cd_word + i];
   for (i = 0; i < l->n32; i++)
      cv[CV_ATTR + i] = v[4 + i];
   for (i = 0; i < l->n16; i++) {
      uint32_t w;
      memcpy(&w, &v[4 + l->n32 + i], 4);
      cv[CV_ATTR + l->n32 + 2 * i] = r_half_to_float((uint16_t)w);
      cv[CV_ATTR + l->n32 + 2 * i + 1] = r_half_to_float((uint16_t)(w >> 16));
   }
}

/* Clip planes: index -> signed distance (>= 0 inside). */
enum { PL_W, PL_XL, PL_XR, PL_YT, PL_YB, PL_ZN, PL_ZF, PL_CD0, PL_COUNT = PL_CD0 + 8 };

static inline double plane_dist(const struct rdraw *d, unsigned pl, const double *v)
{
   const double x = v[0], y = v[1], z = v[2], w = v[3];
   const struct vagx_cmd_viewport *vp = &d->vp;
   switch (pl) {
   case PL_W: return w - 1e-9;
   case PL_XL: return x * vp->scale_x + vp->offset_x * w + 32768.0 * w;
   case PL_XR: return 32767.0 * w - (x * vp->scale_x + vp->offset_x * w);
   case PL_YT: return y * vp->scale_y + vp->offset_y * w + 32768.0 * w;
   case PL_YB: return 32767.0 * w - (y * vp->scale_y + vp->offset_y * w);
   case PL_ZN: return z * vp->scale_z + vp->offset_z * w;
   case PL_ZF: return w - (z * vp->scale_z + vp->offset_z * w);
   default: return v[CV_CD + (pl - PL_CD0)];
   }
}

/* The three vertices (stride st) inside the view-volume planes (PL_W to
 * PL_YB, and PL_ZN, PL_ZF with depth clip): the clipping loop would find
 * nothing to clip at them.  The same distances, with the planes as
 * constants (no dispatch per plane and vertex): most triangles need this
 * one test only. */
static bool inside_view_volume(const struct rdraw *d, const double *A, size_t st)
{
   for (unsigned i = 0; i < 3; i++) {
      const double *v = A + i * st;
      if (!(plane_dist(d, PL_W, v) >= 0) || !(plane_dist(d, PL_XL, v) >= 0) ||
          !(plane_dist(d, PL_XR, v) >= 0) || !(plane_dist(d, PL_YT, v) >= 0) ||
          !(plane_dist(d, PL_YB, v) >= 0))
         return false;
      if (d->rs.depth_clip &&
          (!(plane_dist(d, PL_ZN, v) >= 0) || !(plane_dist(d, PL_ZF, v) >= 0)))
         return false;
   }
   return true;
}

static bool plane_on(const struct rdraw *d, const struct layout *l, unsigned pl)
{
   if (pl == PL_ZN || pl == PL_ZF)
      return d->rs.depth_clip;
   if (pl >= PL_CD0)
      return pl - PL_CD0 < l->ncd;
   return true;
}

static double *scratch(struct rprimbuf *pb, size_t n)
{
   if (n > pb->scratch_cap) {
      double *s = r_grow(pb->scratch, &pb->scratch_cap, n, sizeof(double), 256);
      if (!s)
         return NULL;
      pb->scratch = s;
   }
   return pb->scratch;
}

/* a primitive without coefficient registers still gets one plane slot */
_Static_assert(sizeof(struct rprim) + sizeof(struct vagx_usc_plane) <= VAGX_RENDER_GEOMETRY_PRIM_COST,
               "primitive cost");
_Static_assert(sizeof(struct vagx_usc_plane) <= VAGX_RENDER_GEOMETRY_CF_COST, "coefficient cost");
_Static_assert(sizeof(uint32_t) <= VAGX_RENDER_GEOMETRY_BIN_COST, "bin cost");

static bool push_prim(struct rjob *j, struct rprimbuf *pb, struct rprim **out)
{
   if (!r_geom_charge(j, VAGX_RENDER_GEOMETRY_PRIM_COST))
      return false;
   if (pb->nprims == pb->cap_prims && !r_grow_prims(pb, pb->nprims + 1))
      return false;
   *out = &pb->prims[pb->nprims++];
   memset(*out, 0, sizeof(**out));
   return true;
}

static struct vagx_usc_plane *push_cfs(struct rprimbuf *pb, unsigned n, uint32_t *first)
{
   if (pb->ncfs + n > pb->cap_cfs && !r_grow_cfs(pb, pb->ncfs + n))
      return NULL;
   *first = (uint32_t)pb->ncfs;
   struct vagx_usc_plane *r = &pb->cfs[pb->ncfs];
   memset(r, 0, n * sizeof(*r));
   pb->ncfs += n;
   return r;
}

/* Window-space vertex used for setup. */
struct wv {
   double x, y, z, iw;        /* snapped x/y in pixels, window z, 1/w */
   int64_t fx, fy;
   const double *a;           /* expanded attributes */
};

/* Converts a clipped vertex to window space and 1/256-pixel fixed point.
 * Positions are finite when they enter the clipper, but the viewport is the
 * driver's (scale/offset may be NaN or infinite, products may overflow), so
 * a window x or y can still be NaN here: the fixed-point rasteriser cannot
 * represent it and the caller drops the primitive (false).  Infinite and
 * huge values clamp to the bounds, as every finite one does (render.md,
 * MAX_VIEWPORT_BOUNDS). */
static bool to_window(const struct rdraw *d, const double *cv, struct wv *o)
{
   const double w = cv[3], iw = 1.0 / w;
   double x = cv[0] * iw * d->vp.scale_x + d->vp.offset_x;
   double y = cv[1] * iw * d->vp.scale_y + d->vp.offset_y;
   if (isnan(x) || isnan(y))
      return false;
   if (x < -32768.0) x = -32768.0;
   if (x > 32767.0) x = 32767.0;
   if (y < -32768.0) y = -32768.0;
   if (y > 32767.0) y = 32767.0;
   o->fx = llrint(x * R_SUBPIX);
   o->fy = llrint(y * R_SUBPIX);
   o->x = (double)o->fx / R_SUBPIX;
   o->y = (double)o->fy / R_SUBPIX;
   o->z = cv[2] * iw * d->vp.scale_z + d->vp.offset_z;
   o->iw = iw;
   o->a = cv + CV_ATTR;
   return true;
}

/* Plane kinds for a primitive: 3 vertices (triangle), 2 (line), 1 (point). */
struct setup {
   unsigned n;
   double x0, y0;
   double m[2][2];            /* value deltas -> (a, b) */
   const struct wv *v[3];
};

static void setup_init(struct setup *s, const struct wv *const *v, unsigned n)
{
   memset(s, 0, sizeof(*s));
   s->n = n;
   for (unsigned i = 0; i < n; i++)
      s->v[i] = v[i];
   s->x0 = v[0]->x;
   s->y0 = v[0]->y;
   if (n == 3) {
      double dx1 = v[1]->x - s->x0, dy1 = v[1]->y - s->y0;
      double dx2 = v[2]->x - s->x0, dy2 = v[2]->y - s->y0;
      double det = dx1 * dy2 - dx2 * dy1;
      if (det == 0)
         det = 1;
      /* a = (f1*dy2 - f2*dy1)/det, b = (f2*dx1 - f1*dx2)/det */
      s->m[0][0] = dy2 / det;  s->m[0][1] = -dy1 / det;
      s->m[1][0] = -dx2 / det; s->m[1][1] = dx1 / det;
   } else if (n == 2) {
      double dx = v[1]->x - s->x0, dy = v[1]->y - s->y0, l2 = dx * dx + dy * dy;
      if (l2 == 0)
         l2 = 1;
      s->m[0][0] = dx / l2;
      s->m[1][0] = dy / l2;
   }
}

/* Plane of values f[0..n) at the setup's vertices. */
static void plane(const struct setup *s, const double *f, double *a, double *b, double *c)
{
   *c = f[0];
   *a = *b = 0;
   if (s->n == 3) {
      double f1 = f[1] - f[0], f2 = f[2] - f[0];
      *a = f1 * s->m[0][0] + f2 * s->m[0][1];
      *b = f1 * s->m[1][0] + f2 * s->m[1][1];
   } else if (s->n == 2) {
      double f1 = f[1] - f[0];
      *a = f1 * s->m[0][0];
      *b = f1 * s->m[1][0];
   }
}

/* Coefficient registers for a primitive. */
static bool setup_cfs(struct rjob *j, struct rprimbuf *pb, const struct rdraw *d, const struct layout *l,
                      const struct setup *s, const float *prov, double prov_iw, double prov_z,
                      struct rprim *p, double pc_x, double pc_y, double psize)
{
   if (!r_geom_charge(j, (uint64_t)d->ncf * VAGX_RENDER_GEOMETRY_CF_COST))
      return false;
   struct vagx_usc_plane *cf = push_cfs(pb, d->ncf ? d->ncf : 1, &p->cf);
   if (!cf)
      return false;
   const unsigned first_user = d->fp.z_slot ? 2 : 1;
   for (unsigned bi = 0; bi < d->fp.cf_binding_count; bi++) {
      const struct vagx_cf_binding *b = &d->cfb[bi];
      unsigned reg = b->cf;
      for (unsigned k = 0; k < b->count; k++) {
         double f[3] = {0, 0, 0}, a, bb, c;
         if (b->source == VAGX_CF_SOURCE_POINT_COORD) {
            if (reg >= d->ncf)
               break;
            if (s->n == 1 && psize > 0) {
               if (k == 0) {
                  cf[reg].a = 1.0 / psize;
                  cf[reg].c = 0.5 + (s->x0 - pc_x) / psize;
               } else if (k == 1) {
                  double sg = d->rs.point_sprite_lower_left ? -1.0 : 1.0;
                  cf[reg].b = sg / psize;
                  cf[reg].c = 0.5 + sg * (s->y0 - pc_y) / psize;
               }
            }
            cf[reg].flat = r_u((float)cf[reg].c);
            reg++;
            continue;
         }
         unsigned slot = b->slot + k;
         int nregs = 1;
         double f2[3] = {0, 0, 0};
         uint32_t flat = 0, flat2 = 0;
         bool persp = b->interp == VAGX_INTERP_SMOOTH, isflat = b->interp == VAGX_INTERP_FLAT;
         if (slot == 0) {
            for (unsigned i = 0; i < s->n; i++)
               f[i] = s->v[i]->iw;
            flat = r_u((float)prov_iw);
            persp = false;
         } else if (slot == 1 && d->fp.z_slot) {
            for (unsigned i = 0; i < s->n; i++)
               f[i] = s->v[i]->z;
            flat = r_u((float)prov_z);
            persp = false;
         } else {
            unsigned u = slot - first_user;
            if (u < l->n32) {
               for (unsigned i = 0; i < s->n; i++)
                  f[i] = s->v[i]->a[u];
               memcpy(&flat, &prov[4 + u], 4);
            } else if (u - l->n32 < l->n16) {
               unsigned h = u - l->n32;
               uint32_t w;
               memcpy(&w, &prov[4 + l->n32 + h], 4);
               for (unsigned i = 0; i < s->n; i++) {
                  f[i] = s->v[i]->a[l->n32 + 2 * h];
                  f2[i] = s->v[i]->a[l->n32 + 2 * h + 1];
               }
               flat = r_u(r_half_to_float((uint16_t)w));
               flat2 = r_u(r_half_to_float((uint16_t)(w >> 16)));
               nregs = 2;
            } else {
               for (unsigned i = 0; i < s->n; i++)
                  f[i] = 0;
            }
         }
         for (int r = 0; r < nregs; r++, reg++) {
            double *ff = r ? f2 : f;
            uint32_t fl = r ? flat2 : flat;
            if (reg >= d->ncf)
               break;
            if (isflat) {
               cf[reg].a = cf[reg].b = 0;
               cf[reg].c = r_f(fl);
            } else {
               double g[3] = {0, 0, 0};
               for (unsigned i = 0; i < s->n; i++)
                  g[i] = persp ? ff[i] * s->v[i]->iw : ff[i];
               plane(s, g, &a, &bb, &c);
               cf[reg].a = a;
               cf[reg].b = bb;
               cf[reg].c = c;
            }
            cf[reg].flat = fl;
         }
      }
   }
   return true;
}

static int64_t area2(const int64_t *x, const int64_t *y)
{
   return (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
}

/* Stores triangle k of p with positive orientation. */
static void put_tri(struct rprim *p, unsigned k, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
                    int64_t x2, int64_t y2)
{
   int64_t x[3] = {x0, x1, x2}, y[3] = {y0, y1, y2};
   if (area2(x, y) < 0) {
      int64_t t = x[1]; x[1] = x[2]; x[2] = t;
      t = y[1]; y[1] = y[2]; y[2] = t;
   }
   memcpy(p->vx[k], x, sizeof(x));
   memcpy(p->vy[k], y, sizeof(y));
}

/* Can triangle t of p cover a sample inside the pixel squares of
 * [x0, x1) x [y0, y1)?  Conservative: the rectangle is outside an edge only
 * when the edge function is negative at the rectangle corner where it is
 * largest (edge functions are exact 64-bit integers in 1/256 pixel). */
static bool tri_meets_rect(const struct rprim *p, unsigned t, int64_t x0, int64_t y0, int64_t x1,
                           int64_t y1)
{
   const int64_t *x = p->vx[t], *y = p->vy[t];
   const int64_t X0 = x0 * R_SUBPIX, Y0 = y0 * R_SUBPIX, X1 = x1 * R_SUBPIX, Y1 = y1 * R_SUBPIX;
   for (unsigned i = 0; i < 3; i++) {
      const unsigned k = (i + 1) % 3;
      const int64_t dx = x[k] - x[i], dy = y[k] - y[i];
      /* e(px, py) = dx * (py - y[i]) - dy * (px - x[i]) (positive inside) */
      const int64_t px = dy < 0 ? X1 : X0, py = dx > 0 ? Y1 : Y0;
      if (dx * (py - y[i]) - dy * (px - x[i]) < 0)
         return false;
   }
   return true;
}

static void bin_prim(struct rjob *j, struct rprimbuf *pb, uint32_t id)
{
   struct rprim *p = &pb->prims[id];
   int64_t x0, x1, y0, y1;
   if (p->kind == R_PRIM_LINE) {
      /* exact pixel bbox from emit_line */
      x0 = p->bx0; x1 = p->bx1; y0 = p->by0; y1 = p->by1;
   } else {
      int64_t mnx = INT64_MAX, mny = INT64_MAX, mxx = INT64_MIN, mxy = INT64_MIN;
      for (unsigned t = 0; t < p->ntri; t++)
         for (unsigned i = 0; i < 3; i++) {
            if (p->vx[t][i] < mnx) mnx = p->vx[t][i];
            if (p->vx[t][i] > mxx) mxx = p->vx[t][i];
            if (p->vy[t][i] < mny) mny = p->vy[t][i];
            if (p->vy[t][i] > mxy) mxy = p->vy[t][i];
         }
      /* Pixels whose [x, x+1) square touches the bbox (sample points lie
       * inside the pixel square). */
      x0 = (mnx >> R_SUBPIX_BITS); x1 = (mxx >> R_SUBPIX_BITS) + 1;
      y0 = (mny >> R_SUBPIX_BITS); y1 = (mxy >> R_SUBPIX_BITS) + 1;
   }
   const struct rdraw *d = &j->draws[p->draw];
   int64_t sx0 = d->sc.min_x, sy0 = d->sc.min_y, sx1 = d->sc.max_x, sy1 = d->sc.max_y;
   if (x0 < sx0) x0 = sx0;
   if (y0 < sy0) y0 = sy0;
   if (x1 > sx1) x1 = sx1;
   if (y1 > sy1) y1 = sy1;
   if (x0 < 0) x0 = 0;
   if (y0 < 0) y0 = 0;
   if (x1 > j->rj.width) x1 = j->rj.width;
   if (y1 > j->rj.height) y1 = j->rj.height;
   if (x0 >= x1 || y0 >= y1) {
      pb->nprims--;  /* nothing visible: drop (it is the last primitive) */
      pb->ncfs = p->cf;
      return;
   }
   p->bx0 = (int32_t)x0; p->by0 = (int32_t)y0; p->bx1 = (int32_t)x1; p->by1 = (int32_t)y1;
   /* per-tile edge test for triangles whose bbox spans several tiles */
   const bool edges = p->kind == R_PRIM_TRI && !(j->dev->options & VAGX_RENDER_OPT_BBOX_BINNING) &&
                      ((x0 >> 5) != ((x1 - 1) >> 5) || (y0 >> 5) != ((y1 - 1) >> 5));
   for (int64_t ty = y0 >> 5; ty <= (y1 - 1) >> 5; ty++)
      for (int64_t tx = x0 >> 5; tx <= (x1 - 1) >> 5; tx++) {
         if (edges) {
            const int64_t rx0 = tx * R_TS > x0 ? tx * R_TS : x0, ry0 = ty * R_TS > y0 ? ty * R_TS : y0;
            const int64_t rx1 = (tx + 1) * R_TS < x1 ? (tx + 1) * R_TS : x1;
            const int64_t ry1 = (ty + 1) * R_TS < y1 ? (ty + 1) * R_TS : y1;
            bool hit = false;
            for (unsigned t = 0; t < p->ntri && !hit; t++)
               hit = tri_meets_rect(p, t, rx0, ry0, rx1, ry1);
            if (!hit)
               continue;
         }
         const uint32_t tile = (uint32_t)(ty * j->tiles_x + tx);
         if (!r_geom_charge(j, VAGX_RENDER_GEOMETRY_BIN_COST))
            return;
         if (!(pb->chunk ? r_log_bin(pb, tile, id) : r_bin_append(&j->bins[tile], id))) {
            r_fail(j, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_PPP, 0, 0);
            return;
         }
      }
}

static void set_z(struct rprim *p, const struct setup *s, const struct rdraw *d, bool offset)
{
   double f[3];
   for (unsigned i = 0; i < s->n; i++)
      f[i] = s->v[i]->z;
   plane(s, f, &p->za, &p->zb, &p->zc);
   p->x0 = s->x0;
   p->y0 = s->y0;
   if (offset) {
      double m = fabs(p->za) > fabs(p->zb) ? fabs(p->za) : fabs(p->zb);
      double o = d->rs.offset_factor * m + d->rs.offset_units * (1.0 / 8388608.0);
      double cl = d->rs.offset_clamp;
      if (cl > 0 && o > cl) o = cl;
      if (cl < 0 && o < cl) o = cl;
      p->zoff = o;
   }
}

/* A new primitive of draw drawi at the end of pb; NULL when the job failed
 * (geometry budget, memory). */
static struct rprim *new_prim(struct rjob *j, struct rprimbuf *pb, unsigned drawi, bool front)
{
   struct rprim *p;
   if (!push_prim(j, pb, &p)) {
      r_fail(j, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_PPP, 0, 0);
      return NULL;
   }
   p->draw = drawi;
   p->front = front;
   return p;
}

/* The depth plane of p (with polygon offset when `offset`) and its
 * coefficient registers from its n window-space vertices (provoking vertex
 * prov with 1/w piw and window z pz; point sprites: centre and size), then
 * its bins. */
static void finish_prim(struct rjob *j, struct rprimbuf *pb, const struct rdraw *d,
                        const struct layout *l, struct rprim *p, const struct wv *const *v,
                        unsigned n, bool offset, const float *prov, double piw, double pz,
                        double pc_x, double pc_y, double psize)
{
   struct setup s;
   setup_init(&s, v, n);
   set_z(p, &s, d, offset);
   if (!setup_cfs(j, pb, d, l, &s, prov, piw, pz, p, pc_x, pc_y, psize)) {
      r_fail(j, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_PPP, 0, 0);
      return;
   }
   bin_prim(j, pb, (uint32_t)(p - pb->prims));
}

static void emit_triangle(struct rjob *j, struct rprimbuf *pb, const struct rdraw *d, unsigned drawi,
                          const struct layout *l, const struct wv *a, const struct wv *b,
                          const struct wv *c, const float *prov, double piw, double pz)
{
   int64_t x[3] = {a->fx, b->fx, c->fx}, y[3] = {a->fy, b->fy, c->fy};
   int64_t ar = area2(x, y);
   if (ar == 0)
      return;
   bool cw = ar > 0;  /* y down: positive area is clockwise on screen */
   bool front = d->rs.front_face == VAGX_FRONT_FACE_CW ? cw : !cw;
   if (d->rs.cull == VAGX_CULL_MODE_FRONT_AND_BACK ||
       (d->rs.cull == VAGX_CULL_MODE_FRONT && front) || (d->rs.cull == VAGX_CULL_MODE_BACK && !front))
      return;
   struct rprim *p = new_prim(j, pb, drawi, front);
   if (!p)
      return;
   p->ntri = 1;
   put_tri(p, 0, x[0], y[0], x[1], y[1], x[2], y[2]);
   const struct wv *v[3] = {a, b, c};
   finish_prim(j, pb, d, l, p, v, 3, d->rs.offset_fill, prov, piw, pz, 0, 0, 0);
}

/* ---- lines: GL's diamond-exit rule (see renderer-pipeline.md) ---- */

static int64_t floor_div(int64_t a, int64_t b)
{
   int64_t q = a / b;
   if (a % b != 0 && ((a < 0) != (b < 0)))
      q--;
   return q;
}

/* Minor pixel index of the line at the centre of major pixel M.  The minor
 * coordinate there is am + (C - aM) * dm / dM; pixel m owns the open interval
 * of half-width 1/2 around its centre m + ctr.  On an exact boundary the
 * endpoint perturbation (-eps, -eps^2) decides: an x-major line with dy > 0
 * moves to the greater row, every other line to the smaller index. */
int64_t r_line_row(const struct rline *l, int64_t M)
{
   const int64_t C = M * R_SUBPIX + l->ctr;
   const int64_t den = l->dM * R_SUBPIX;
   const int64_t num = (l->am - l->ctr + R_SUBPIX / 2) * l->dM + (C - l->aM) * l->dm;
   int64_t r = floor_div(num, den);
   if (num == r * den && !l->tie_up)
      r--;
   return r;
}

/* Is the perturbed point (x, y) - (eps, eps^2) inside the open diamond
 * |x - cx| + |y - cy| < 1/2 of pixel (px, py)?  On the boundary it is inside
 * exactly when x > cx (the perturbation then moves it inwards). */
static bool in_diamond(int64_t x, int64_t y, int64_t px, int64_t py, int64_t ctr)
{
   const int64_t u = x - (px * R_SUBPIX + ctr), v = y - (py * R_SUBPIX + ctr);
   const int64_t dd = (u < 0 ? -u : u) + (v < 0 ? -v : v);
   return dd < R_SUBPIX / 2 || (dd == R_SUBPIX / 2 && u > 0);
}

struct line_ends {
   const struct rline *l;
   int64_t ax, ay, bx, by;    /* minor-shifted endpoints, x/y */
   int64_t lo, hi;            /* major pixels whose centre lies in [min, max) */
};

/* GL 14.5.1: the segment from pa' to pb' meets the diamond of the pixel and
 * pb' is not inside it.  Only the row r_line_row(M) of column M can meet it. */
static bool line_column(const struct line_ends *e, int64_t M)
{
   const struct rline *l = e->l;
   const int64_t m = r_line_row(l, M);
   const int64_t px = l->ymajor ? m : M, py = l->ymajor ? M : m;
   if (in_diamond(e->bx, e->by, px, py, l->ctr))
      return false;
   return (M >= e->lo && M <= e->hi) || in_diamond(e->ax, e->ay, px, py, l->ctr);
}

static void emit_line_ms(struct rjob *j, struct rprimbuf *pb, const struct rdraw *d, unsigned drawi,
                         const struct layout *l, const struct wv *a, const struct wv *b,
                         const float *prov, double piw, double pz);

static void emit_line(struct rjob *j, struct rprimbuf *pb, const struct rdraw *d, unsigned drawi,
                      const struct layout *l, const struct wv *a, const struct wv *b,
                      const float *prov, double piw, double pz)
{
   if (a->fx == b->fx && a->fy == b->fy)
      return;
   if (j->samples == 4 && d->rs.multisample) {
      emit_line_ms(j, pb, d, drawi, l, a, b, prov, piw, pz);
      return;
   }
   /* width: rounded to the nearest integer, at least 1 */
   double wf = d->rs.line_width;
   int32_t w = 1;
   if (wf >= 1.5)
      w = wf >= 8192 ? 8192 : (int32_t)lround(wf);
   const int64_t S = R_SUBPIX, shift = (int64_t)(w - 1) * S / 2;
   const int64_t dx = b->fx - a->fx, dy = b->fy - a->fy;
   struct rline L;
   memset(&L, 0, sizeof(L));
   L.ymajor = (dy < 0 ? -dy : dy) > (dx < 0 ? -dx : dx);
   L.ctr = d->rs.half_pixel_center ? S / 2 : 0;
   L.w = w;
   struct line_ends e = {.l = &L, .ax = a->fx, .ay = a->fy, .bx = b->fx, .by = b->fy};
   if (L.ymajor) {
      e.ax -= shift;
      e.bx -= shift;
   } else {
      e.ay -= shift;
      e.by -= shift;
   }
   const int64_t aM = L.ymajor ? e.ay : e.ax, am = L.ymajor ? e.ax : e.ay;
   const int64_t bM = L.ymajor ? e.by : e.bx, bm = L.ymajor ? e.bx : e.by;
   if (bM > aM) {
      L.aM = aM; L.am = am; L.dM = bM - aM; L.dm = bm - am;
   } else {
      L.aM = bM; L.am = bm; L.dM = aM - bM; L.dm = am - bm;
   }
   L.tie_up = !L.ymajor && L.dm > 0;
   /* centres M*S + ctr in [L.aM, L.aM + L.dM) */
   e.lo = -floor_div(-(L.aM - L.ctr), S);
   e.hi = -floor_div(-(L.aM + L.dM - L.ctr), S) - 1;
   /* the first and last covered columns are within one of [lo, hi] */
   int64_t m0 = INT64_MAX, m1 = INT64_MIN;
   const int64_t cand[4] = {e.lo - 1, e.lo, e.hi, e.hi + 1};
   for (unsigned i = 0; i < 4; i++)
      if (line_column(&e, cand[i])) {
         if (cand[i] < m0) m0 = cand[i];
         if (cand[i] > m1) m1 = cand[i];
      }
   if (e.lo + 1 <= e.hi - 1) {
      if (e.lo + 1 < m0) m0 = e.lo + 1;
      if (e.hi - 1 > m1) m1 = e.hi - 1;
   }
   if (m0 > m1)
      return;
   L.m0 = (int32_t)m0;
   L.m1 = (int32_t)m1;
   int64_t r0 = r_line_row(&L, m0), r1 = r_line_row(&L, m1);
   if (r0 > r1) {
      int64_t t = r0; r0 = r1; r1 = t;
   }
   struct rprim *p = new_prim(j, pb, drawi, true);
   if (!p)
      return;
   p->kind = R_PRIM_LINE;
   p->line = L;
   /* pixel bbox, inclusive-exclusive (clamped by bin_prim) */
   int64_t M0 = m0, M1 = m1 + 1, n0 = r0, n1 = r1 + w;
   p->bx0 = (int32_t)(L.ymajor ? n0 : M0);
   p->bx1 = (int32_t)(L.ymajor ? n1 : M1);
   p->by0 = (int32_t)(L.ymajor ? M0 : n0);
   p->by1 = (int32_t)(L.ymajor ? M1 : n1);
   const struct wv *v[2] = {a, b};
   finish_prim(j, pb, d, l, p, v, 2, false, prov, piw, pz, 0, 0, 0);
}

/* Multisampled lines (4X with multisample = 1): a parallelogram of the line
 * width, offset in the minor direction, sampled at the 4X positions. */
static void emit_line_ms(struct rjob *j, struct rprimbuf *pb, const struct rdraw *d, unsigned drawi,
                         const struct layout *l, const struct wv *a, const struct wv *b,
                         const float *prov, double piw, double pz)
{
   double dx = b->x - a->x, dy = b->y - a->y;
   /* at most 8192 as for aliased lines, so the offset stays representable
    * (an infinite width would convert to INT64_MIN) */
   double lw = d->rs.line_width > 0 ? d->rs.line_width : 1.0;
   double hw = (lw > 8192 ? 8192 : lw) * 0.5;
   int64_t ox = 0, oy = 0;
   if (fabs(dx) >= fabs(dy))
      oy = llrint(hw * R_SUBPIX);
   else
      ox = llrint(hw * R_SUBPIX);
   struct rprim *p = new_prim(j, pb, drawi, true);
   if (!p)
      return;
   p->ntri = 2;
   put_tri(p, 0, a->fx + ox, a->fy + oy, b->fx + ox, b->fy + oy, b->fx - ox, b->fy - oy);
   put_tri(p, 1, a->fx + ox, a->fy + oy, b->fx - ox, b->fy - oy, a->fx - ox, a->fy - oy);
   const struct wv *v[2] = {a, b};
   finish_prim(j, pb, d, l, p, v, 2, false, prov, piw, pz, 0, 0, 0);
}

static void emit_point(struct rjob *j, struct rprimbuf *pb, const struct rdraw *d, unsigned drawi,
                       const struct layout *l, const struct wv *a, const float *prov,
                       double size)
{
   if (!(size > 0))
      return;
   /* the point size range is [1, 8192] (render.md): GL clamps a shader's
    * gl_PointSize to the implementation's range */
   if (size < 1)
      size = 1;
   if (size > 8192)
      size = 8192;
   int64_t h = llrint(size * 0.5 * R_SUBPIX);
   struct rprim *p = new_prim(j, pb, drawi, true);
   if (!p)
      return;
   p->ntri = 2;
   put_tri(p, 0, a->fx - h, a->fy - h, a->fx + h, a->fy - h, a->fx + h, a->fy + h);
   put_tri(p, 1, a->fx - h, a->fy - h, a->fx + h, a->fy + h, a->fx - h, a->fy + h);
   const struct wv *v[1] = {a};
   finish_prim(j, pb, d, l, p, v, 1, false, prov, a->iw, a->z, a->x, a->y, size);
}

void r_ppp_primitive(struct rjob *j, struct rprimbuf *pb, const struct rdraw *d, unsigned drawi,
                     const struct vagx_cmd_bind_vertex_pipeline *vp, const float *const *v,
                     unsigned nv, unsigned provoking)
{
   struct layout l;
   get_layout(vp, &l);
   const unsigned st = l.stride, maxv = 3 + PL_COUNT + 2;
   double *sc = scratch(pb, (size_t)st * (maxv * 2 + 3) + 64);
   if (!sc) {
      r_fail(j, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_PPP, 0, 0);
      return;
   }
   /* A, B: clipper ping-pong; O: the primitive's vertices as loaded */
   double *A = sc, *B = sc + (size_t)st * maxv, *O = sc + (size_t)st * maxv * 2;
   /* A primitive with a NaN or infinite position or clip distance is dropped
    * (render.md): clipping cannot place it, and snapping it is undefined. */
   for (unsigned i = 0; i < nv; i++) {
      /* the position's four words at once: exponent all ones is inf or NaN */
      uint32_t nonfinite = 0;
      for (unsigned k = 0; k < 4; k++) {
         uint32_t u;
         memcpy(&u, &v[i][k], 4);
         nonfinite |= (u & 0x7f800000u) == 0x7f800000u;
      }
      if (nonfinite)
         return;
      for (unsigned k = 0; k < l.ncd; k++)
         if (!isfinite(v[i][l.cd_word + k]))
            return;
      double *cv = A + (size_t)i * st;
      load_vertex(&l, v[i], cv);
      for (unsigned k = 0; k < 3; k++)
         cv[l.bary + k] = k == i;
   }
   const float *prov = v[provoking];
   const double pw = prov[3];
   const double piw = 1.0 / pw;
   const double pz = prov[2] * piw * d->vp.scale_z + d->vp.offset_z;

   if (nv == 1) {
      for (unsigned pl = 0; pl < PL_COUNT; pl++)
         if (plane_on(d, &l, pl) && !(plane_dist(d, pl, A) >= 0))
            return;
      struct wv w;
      if (!to_window(d, A, &w))
         return;
      double size = vp->point_size ? v[0][l.ps_word] : d->rs.point_size;
      emit_point(j, pb, d, drawi, &l, &w, prov, size);
      return;
   }
   if (nv == 2) {
      double t0 = 0, t1 = 1;
      for (unsigned pl = 0; pl < PL_COUNT; pl++) {
         if (!plane_on(d, &l, pl))
            continue;
         double d0 = plane_dist(d, pl, A), d1 = plane_dist(d, pl, A + st);
         if (d0 < 0 && d1 < 0)
            return;
         if (d0 < 0) {
            double t = d0 / (d0 - d1);
            if (t > t0) t0 = t;
         } else if (d1 < 0) {
            double t = d0 / (d0 - d1);
            if (t < t1) t1 = t;
         }
         if (!(t0 <= t1))
            return;
      }
      const bool nopersp = (t0 > 0 || t1 < 1) && nopersp_begin(d, &l, A, 2, O);
      double *P = B, *Q = B + st;
      for (unsigned k = 0; k < st; k++) {
         P[k] = A[k] + t0 * (A[st + k] - A[k]);
         Q[k] = A[k] + t1 * (A[st + k] - A[k]);
      }
      if (nopersp) {
         fix_noperspective(d, &l, O, 2, P);
         fix_noperspective(d, &l, O, 2, Q);
      }
      struct wv w0, w1;
      if (!to_window(d, P, &w0) || !to_window(d, Q, &w1))
         return;
      emit_line(j, pb, d, drawi, &l, &w0, &w1, prov, piw, pz);
      return;
   }
   /* Triangle: Sutherland-Hodgman over the enabled planes.  For polygon
    * modes each output vertex remembers the input vertex it copies (-1 for
    * an intersection) and whether its outgoing edge lies on an edge of the
    * triangle (edges along a clip plane are not drawn in LINE mode). */
   unsigned n = 3;
   int orig[2][3 + PL_COUNT + 2] = {{0, 1, 2}}, *oa = orig[0], *ob = orig[1];
   bool edge[2][3 + PL_COUNT + 2] = {{true, true, true}}, *ea = edge[0], *eb = edge[1];
   /* edge flags (GL 4.6 14.6.4): vertex i's flag marks the edge to vertex
    * i + 1 of the triangle as it is assembled; 0.0 = not a boundary */
   bool ef[3] = {true, true, true};
   if (l.ef_word >= 0)
      for (unsigned i = 0; i < 3; i++)
         ea[i] = ef[i] = v[i][l.ef_word] != 0.0f;
   bool clipped = false, nopersp = false;
   const unsigned pl0 = inside_view_volume(d, A, st) ? PL_CD0 : 0;
   for (unsigned pl = pl0; pl < PL_COUNT && n >= 3; pl++) {
      if (!plane_on(d, &l, pl))
         continue;
      bool any_out = false;
      double dist[3 + PL_COUNT + 2];
      for (unsigned i = 0; i < n; i++) {
         dist[i] = plane_dist(d, pl, A + (size_t)i * st);
         if (!(dist[i] >= 0))
            any_out = true;
      }
      if (!any_out)
         continue;
      if (!clipped)
         nopersp = nopersp_begin(d, &l, A, 3, O);
      clipped = true;
      unsigned m = 0;
      for (unsigned i = 0; i < n && m + 2 <= maxv; i++) {
         unsigned k = (i + 1) % n;
         const double *vi = A + (size_t)i * st, *vk = A + (size_t)k * st;
         bool in_i = dist[i] >= 0, in_k = dist[k] >= 0;
         if (in_i) {
            ob[m] = oa[i];
            eb[m] = ea[i];
            memcpy(B + (size_t)m++ * st, vi, st * sizeof(double));
         }
         if (in_i != in_k) {
            double t = dist[i] / (dist[i] - dist[k]);
            ob[m] = -1;
            eb[m] = !in_i && ea[i];   /* leaving: the next edge runs along the plane */
            double *o = B + (size_t)m++ * st;
            for (unsigned c = 0; c < st; c++)
               o[c] = vi[c] + t * (vk[c] - vi[c]);
         }
      }
      double *tmp = A; A = B; B = tmp;
      int *to = oa; oa = ob; ob = to;
      bool *te = ea; ea = eb; eb = te;
      n = m;
   }
   if (n < 3)
      return;
   if (nopersp)
      for (unsigned i = 0; i < n; i++)
         if (oa[i] < 0)
            fix_noperspective(d, &l, O, 3, A + (size_t)i * st);
   struct wv w[3 + PL_COUNT + 2];
   for (unsigned i = 0; i < n; i++)
      if (!to_window(d, A + (size_t)i * st, &w[i]))
         return;
   if (d->rs.fill_front == VAGX_FILL_MODE_FILL && d->rs.fill_back == VAGX_FILL_MODE_FILL) {
      for (unsigned i = 1; i + 1 < n; i++)
         emit_triangle(j, pb, d, drawi, &l, &w[0], &w[i], &w[i + 1], prov, piw, pz);
      return;
   }
   /* Polygon modes (GL 4.6 14.6.4): facing and culling of the clipped
    * polygon as a whole, then its edges as lines or its vertices as points,
    * with the polygon's facing and, when enabled for the mode, the polygon's
    * depth offset (from its own slope). */
   int64_t ar = 0;
   for (unsigned i = 0; i < n; i++) {
      const struct wv *a = &w[i], *b = &w[(i + 1) % n];
      ar += a->fx * b->fy - b->fx * a->fy;
   }
   if (ar == 0)
      return;
   const bool front = d->rs.front_face == VAGX_FRONT_FACE_CW ? ar > 0 : ar < 0;
   if (d->rs.cull == VAGX_CULL_MODE_FRONT_AND_BACK ||
       (d->rs.cull == VAGX_CULL_MODE_FRONT && front) || (d->rs.cull == VAGX_CULL_MODE_BACK && !front))
      return;
   const enum vagx_fill_mode mode = front ? d->rs.fill_front : d->rs.fill_back;
   if (mode == VAGX_FILL_MODE_FILL) {
      for (unsigned i = 1; i + 1 < n; i++)
         emit_triangle(j, pb, d, drawi, &l, &w[0], &w[i], &w[i + 1], prov, piw, pz);
      return;
   }
   const bool offset = mode == VAGX_FILL_MODE_LINE ? d->rs.offset_line : d->rs.offset_point;
   double zoff = 0;
   if (offset) {
      /* the polygon is planar: its first three vertices give the slope */
      const struct wv *t3[3] = {&w[0], &w[1], &w[2]};
      struct setup s3;
      setup_init(&s3, t3, 3);
      struct rprim tmp;
      memset(&tmp, 0, sizeof(tmp));
      set_z(&tmp, &s3, d, true);
      zoff = tmp.zoff;
   }
   const uint32_t first = pb->nprims;
   for (unsigned i = 0; i < n; i++) {
      if (mode == VAGX_FILL_MODE_LINE) {
         if (ea[i])
            emit_line(j, pb, d, drawi, &l, &w[i], &w[(i + 1) % n], prov, piw, pz);
      } else if (oa[i] >= 0 && ef[oa[i]]) {
         /* POINT: the triangle's vertices that survived clipping and start
          * a boundary edge */
         const double size = vp->point_size ? v[oa[i]][l.ps_word] : d->rs.point_size;
         emit_point(j, pb, d, drawi, &l, &w[i], prov, size);
      }
   }
   for (uint32_t i = first; i < pb->nprims; i++) {
      pb->prims[i].front = front;
      pb->prims[i].zoff = zoff;
   }
}
