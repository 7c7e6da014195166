/* SPDX-License-Identifier: MIT */
/* vagx renderer VDM: control-stream parsing, draws, vertex shading, primitive
 * assembly (the PPP proper is render_ppp.c). */
#include "render_grow.h"
#include "render_priv.h"

#define MAX_COMMANDS (1u << 24)

struct vstate {
   bool have_vp, have_fp, have_viewport, have_scissor, have_rs, have_ds;
   struct vagx_cmd_bind_vertex_pipeline vp;
   struct rprog *vs;
   bool have_gs;              /* a geometry pipeline is bound (1.11) */
   struct vagx_cmd_bind_geometry_pipeline gs;
   struct rprog *gsp;
   struct rdraw cur;
   int query;                 /* active query or -1 */
   uint32_t draw_id_base;     /* cmd_draw_id_base's (0 at the job's start) */
};

/* ---- vertex shader hook ---- */
struct vsctx {
   struct rjob *j;
   unsigned worker;
   const struct rprog *p;
   float *out;                /* outputs of the group's lane 0 */
   unsigned nout;
};

static enum vagx_usc_status vs_exec(void *ctx, struct vagx_usc_gfx_call *call)
{
   struct vsctx *c = ctx;
   switch (call->instr->op) {
   case VAGX_OP_ST_VAR:
      for (unsigned l = 0; l < 32; l++) {
         if (!(call->exec >> l & 1))
            continue;
         uint32_t idx = call->src[1][l];
         if (idx < c->nout)
            memcpy(&c->out[(size_t)l * c->nout + idx], &call->src[0][l], 4);
      }
      return VAGX_USC_OK;
   case VAGX_OP_TEX: {
      struct rtexctx t = {c->j, c->worker, c->p, false};
      return r_tex_exec(&t, call);
   }
   case VAGX_OP_IMG_LD:
   case VAGX_OP_IMG_ST: {
      struct rtexctx t = {c->j, c->worker, c->p, false};
      return r_img_exec(&t, call, -1);
   }
   default:
      return VAGX_USC_ILLEGAL_INSTRUCTION;
   }
}
static const struct vagx_usc_gfx_ops vs_ops = {.exec = vs_exec};

static unsigned vp_nout(const struct vagx_cmd_bind_vertex_pipeline *vp)
{
   return 4 + vp->smooth32 + vp->flat32 + vp->linear32 + vp->smooth16 + vp->flat16 +
          vp->linear16 + (vp->point_size ? 1 : 0) + vp->clip_distances + (vp->edge_flag ? 1 : 0);
}

bool r_run_vs(struct rjob *j, unsigned worker, const struct rprog *vs, const int64_t *ids,
              unsigned n, uint32_t instance, float *out, unsigned nout)
{
   const unsigned fe = worker;
   struct vsctx c = {j, fe, vs, NULL, nout};
   struct vagx_usc_env env;
   r_usc_env(j, fe, vs, &env, &vs_ops, &c);
   uint32_t sr[VAGX_SR_COUNT][32];
   memset(sr, 0, sizeof(sr));
   for (unsigned base = 0; base < n; base += 32) {
      /* before anything else: a group without live lanes must not skip it */
      if (r_checkpoint(j, fe))
         return false;
      uint32_t exec = 0;
      for (unsigned l = 0; l < 32 && base + l < n; l++) {
         sr[VAGX_SR_LANE_ID][l] = l;
         sr[VAGX_SR_VERTEX_ID][l] = (uint32_t)ids[base + l];
         sr[VAGX_SR_INSTANCE_ID][l] = instance;
         sr[VAGX_SR_BASE_INSTANCE][l] = j->base_instance;
         sr[VAGX_SR_BASE_VERTEX][l] = (uint32_t)j->base_vertex;
         sr[VAGX_SR_DRAW_ID][l] = j->draw_id;
         if (ids[base + l] >= 0 || ids[base + l] < -1)
            exec |= 1u << l;
      }
      if (!exec)
         continue;
      c.out = out + (size_t)base * nout;
      struct vagx_usc_result res;
      memset(&res, 0, sizeof(res));
      if (vagx_usc_run_simd(j->dev->w[fe].usc, vs->prog, &env,
                            (const uint32_t(*)[32])sr, exec, &res) != VAGX_USC_OK) {
         r_usc_fail(j, fe, &res, vs);
         return false;
      }
   }
   return !r_checkpoint(j, fe);
}

/* Every assembled primitive: counted and streamed out (render_so.c), then
 * clipped and rasterised unless the rasteriser discards.  Without stream
 * output and queries of it, primitives are queued for r_ppp_flush instead,
 * which may set them up on several workers. */
static void emit_prim(struct rjob *j, const struct rdraw *d, unsigned drawi,
                      const struct vagx_cmd_bind_vertex_pipeline *vp, const float *const *v,
                      unsigned nv, unsigned provoking)
{
   if (j->gs && !j->gs_out) {
      /* an input primitive of the geometry stage (render_gs.c) */
      if (!r_stop(j))
         r_gs_input(j, j->gs, v, nv, provoking, d->rs.provoking == VAGX_PROVOKING_VERTEX_FIRST);
      return;
   }
   if (j->record) {
      struct rprimref *r = &j->refs[j->nrefs++];
      for (unsigned i = 0; i < nv; i++)
         r->v[i] = v[i];
      r->nv = (uint8_t)nv;
      r->provoking = (uint8_t)provoking;
      return;
   }
   /* one primitive can bin into many tiles: check per primitive, and once the
    * job stopped, the rest of the batch costs nothing */
   if (r_checkpoint(j, j->env->nworkers))
      return;
   if (j->so.active)
      r_so_primitive(j, v, nv, provoking, d->rs.provoking == VAGX_PROVOKING_VERTEX_FIRST);
   if (!d->rs.discard)
      r_ppp_primitive(j, &j->pb, d, drawi, vp, v, nv, provoking);
}

/* Assembles primitives out of one restart-free run of vertices. */
static void assemble(struct rjob *j, const struct rdraw *d, unsigned drawi,
                     enum vagx_primitive prim, const float *const *v, unsigned n)
{
   const struct vagx_cmd_bind_vertex_pipeline *vp = &d->vpl;
   const bool last = d->rs.provoking == VAGX_PROVOKING_VERTEX_LAST;
   const float *t[3];
   switch (prim) {
   case VAGX_PRIMITIVE_POINTS:
      for (unsigned i = 0; i < n; i++)
         emit_prim(j, d, drawi, vp, &v[i], 1, 0);
      break;
   case VAGX_PRIMITIVE_LINES:
      for (unsigned i = 0; i + 1 < n; i += 2)
         emit_prim(j, d, drawi, vp, &v[i], 2, last);
      break;
   case VAGX_PRIMITIVE_LINE_STRIP:
   case VAGX_PRIMITIVE_LINE_LOOP:
      for (unsigned i = 0; i + 1 < n; i++)
         emit_prim(j, d, drawi, vp, &v[i], 2, last);
      if (prim == VAGX_PRIMITIVE_LINE_LOOP && n >= 2) {
         t[0] = v[n - 1];
         t[1] = v[0];
         emit_prim(j, d, drawi, vp, t, 2, last);
      }
      break;
   case VAGX_PRIMITIVE_TRIANGLES:
      for (unsigned i = 0; i + 2 < n; i += 3)
         emit_prim(j, d, drawi, vp, &v[i], 3, last ? 2 : 0);
      break;
   case VAGX_PRIMITIVE_TRIANGLE_STRIP:
      for (unsigned i = 0; i + 2 < n; i++) {
         if (i & 1) {
            t[0] = v[i + 1];
            t[1] = v[i];
            t[2] = v[i + 2];
            emit_prim(j, d, drawi, vp, t, 3, last ? 2 : 1);
         } else {
            emit_prim(j, d, drawi, vp, &v[i], 3, last ? 2 : 0);
         }
      }
      break;
   case VAGX_PRIMITIVE_TRIANGLE_FAN:
      for (unsigned i = 1; i + 1 < n; i++) {
         t[0] = v[0];
         t[1] = v[i];
         t[2] = v[i + 1];
         emit_prim(j, d, drawi, vp, t, 3, last ? 2 : 1);
      }
      break;
   default:
      break;
   }
}

/* The geometry stage's output strips: primitives for stream output and
 * the PPP, decomposed as a draw's (render_gs.c). */
void r_assemble_out(struct rjob *j, const struct rdraw *d, unsigned drawi,
                    enum vagx_primitive prim, const float *const *v, unsigned n)
{
   j->gs_out = true;
   assemble(j, d, drawi, prim, v, n);
   j->gs_out = false;
}

/* Batched assembly.  out[0] holds a run's first vertex, out[1..R_CARRY)
 * the vertices carried from the previous batch; vv[0..n) are the run's
 * vertices not yet (fully) assembled, in order. */
#define R_CARRY 10   /* the first vertex + up to 9 of a triangle strip with adjacency */
struct runbuf {
   float *out, *tmp;
   const float **vv;
   unsigned n, nout;
   uint64_t run_len;
   uint64_t next_prim;        /* adjacency topologies: next primitive of the run */
};

static bool adjacency(enum vagx_primitive prim)
{
   return prim >= VAGX_PRIMITIVE_LINES_ADJACENCY && prim <= VAGX_PRIMITIVE_TRIANGLE_STRIP_ADJACENCY;
}

/* Adjacency topologies (1.11; only with a geometry pipeline): assembles
 * every primitive of the run whose vertices are known (all at the run's
 * end) by their indices in the run, vv[0] being vertex run_len - n, and
 * returns how many of the last vertices later primitives still need.
 * Vertex orders: render.md, geometry stage (GL 4.6 table 10.1). */
static unsigned assemble_adj(struct rjob *j, const struct rdraw *d, unsigned drawi,
                             enum vagx_primitive prim, struct runbuf *rb, bool last)
{
   const uint64_t c = rb->run_len, base = c - rb->n;
   const bool first = d->rs.provoking == VAGX_PROVOKING_VERTEX_FIRST;
   const float *t[6];
#define V(i) rb->vv[(i) - base]
   for (;; rb->next_prim++) {
      const uint64_t k = rb->next_prim;
      uint64_t a, need;
      switch (prim) {
      case VAGX_PRIMITIVE_LINES_ADJACENCY: a = 4 * k; need = a + 4; break;
      case VAGX_PRIMITIVE_LINE_STRIP_ADJACENCY: a = k; need = a + 4; break;
      case VAGX_PRIMITIVE_TRIANGLES_ADJACENCY: a = 6 * k; need = a + 6; break;
      default:
         /* triangle k of a strip: a = 2k; 2k+6 is its adjacent vertex unless
          * it is the run's last triangle, which only the run's end tells */
         a = 2 * k;
         need = last ? a + 6 : a + 8;
         break;
      }
      if (need > c)
         break;
      if (prim == VAGX_PRIMITIVE_TRIANGLE_STRIP_ADJACENCY) {
         const uint64_t b = a + 7 < c ? a + 6 : a + 5, cc = k ? a - 2 : 1;
         if (!(k & 1)) {
            const float *e[6] = {V(a), V(cc), V(a + 2), V(b), V(a + 4), V(a + 3)};
            memcpy(t, e, sizeof(t));
         } else if (!first) {
            const float *e[6] = {V(a + 2), V(cc), V(a), V(a + 3), V(a + 4), V(b)};
            memcpy(t, e, sizeof(t));
         } else {
            const float *e[6] = {V(a), V(a + 3), V(a + 4), V(b), V(a + 2), V(cc)};
            memcpy(t, e, sizeof(t));
         }
         emit_prim(j, d, drawi, &d->vpl, t, 6, 0);
         continue;
      }
      const unsigned nv = prim == VAGX_PRIMITIVE_TRIANGLES_ADJACENCY ? 6 : 4;
      for (unsigned i = 0; i < nv; i++)
         t[i] = V(a + i);
      emit_prim(j, d, drawi, &d->vpl, t, nv, 0);
   }
#undef V
   /* the first vertex the next primitive reads */
   const uint64_t k = rb->next_prim;
   uint64_t from;
   switch (prim) {
   case VAGX_PRIMITIVE_LINES_ADJACENCY: from = 4 * k; break;
   case VAGX_PRIMITIVE_LINE_STRIP_ADJACENCY: from = k; break;
   case VAGX_PRIMITIVE_TRIANGLES_ADJACENCY: from = 6 * k; break;
   default: from = k ? 2 * k - 2 : 0; break;
   }
   if (from < base)
      from = base;
   return from >= c ? 0 : (unsigned)(c - from);
}

/* Assembles vv[0..n) of the current run: everything when the run ends
 * (`last`), else every primitive that cannot depend on later vertices, and
 * keeps the vertices the rest of the run shares with them. */
static void flush_run(struct rjob *j, unsigned drawi, enum vagx_primitive prim,
                      struct runbuf *rb, bool last)
{
   const struct rdraw *d = &j->draws[drawi];
   const float *first = rb->out;
   const unsigned n = rb->n;
   unsigned emit = n, keep = 0;     /* assemble vv[0..emit), carry vv[n-keep..n) */
   enum vagx_primitive ap = prim;
   if (adjacency(prim)) {
      keep = assemble_adj(j, d, drawi, prim, rb, last);
      emit = 0;
   }
   if (prim == VAGX_PRIMITIVE_LINE_LOOP)
      ap = VAGX_PRIMITIVE_LINE_STRIP;   /* the closing segment is added at the run's end */
   if (!last && !adjacency(prim)) {
      switch (prim) {
      case VAGX_PRIMITIVE_LINES: keep = n % 2; break;
      case VAGX_PRIMITIVE_TRIANGLES: keep = n % 3; break;
      case VAGX_PRIMITIVE_LINE_STRIP:
      case VAGX_PRIMITIVE_LINE_LOOP: keep = n < 1 ? n : 1; break;
      /* the centre (out[0]) is always put back; only a later vertex is kept */
      case VAGX_PRIMITIVE_TRIANGLE_FAN: keep = n >= 2 ? 1 : 0; break;
      case VAGX_PRIMITIVE_TRIANGLE_STRIP:
         /* the next segment must start at an even offset to keep the
          * winding of odd triangles */
         keep = n < 3 ? n : (n & 1) ? 3 : 2;
         break;
      default: keep = 0; break;
      }
      emit = prim == VAGX_PRIMITIVE_LINES || prim == VAGX_PRIMITIVE_TRIANGLES ||
                   prim == VAGX_PRIMITIVE_POINTS ? n - keep
             : prim == VAGX_PRIMITIVE_TRIANGLE_STRIP && n >= 3 && (n & 1) ? n - 1
                                                                        : n;
   }
   if (emit)
      assemble(j, d, drawi, ap, rb->vv, emit);
   if (last && prim == VAGX_PRIMITIVE_LINE_LOOP && rb->run_len >= 2 && n >= 1) {
      const float *t[2] = {rb->vv[n - 1], first};
      emit_prim(j, d, drawi, &d->vpl, t, 2, d->rs.provoking == VAGX_PROVOKING_VERTEX_LAST);
   }
   /* Queued primitives point at out[] (the first vertex of a fan or loop, the
    * carried vertices), which the next run or the carry below rewrites. */
   if (!last || prim == VAGX_PRIMITIVE_TRIANGLE_FAN || prim == VAGX_PRIMITIVE_LINE_LOOP)
      r_ppp_flush(j, drawi);
   if (last) {
      rb->n = 0;
      rb->run_len = 0;
      rb->next_prim = 0;
      return;
   }
   /* carry: copy through tmp (carried vertices may already be carry slots) */
   const size_t vb = (size_t)rb->nout * sizeof(float);
   for (unsigned k = 0; k < keep; k++)
      memcpy((uint8_t *)rb->tmp + k * vb, rb->vv[n - keep + k], vb);
   rb->n = 0;
   if (prim == VAGX_PRIMITIVE_TRIANGLE_FAN && rb->run_len)
      rb->vv[rb->n++] = first;   /* the fan's centre, then its last vertex */
   for (unsigned k = 0; k < keep; k++) {
      float *slot = rb->out + (size_t)(1 + k) * rb->nout;
      memcpy(slot, (uint8_t *)rb->tmp + k * vb, vb);
      rb->vv[rb->n++] = slot;
   }
}

static bool push_draw(struct rjob *j, const struct rdraw *d)
{
   struct rdraw *draws = r_grow(j->draws, &j->cap_draws, j->ndraws + 1ull, sizeof(*draws), 16);
   if (!draws)
      return false;
   j->draws = draws;
   j->draws[j->ndraws++] = *d;
   return true;
}

static bool do_draw(struct rjob *j, struct vstate *s, const struct vagx_cmd_draw *dr, uint64_t cmd_va)
{
   const unsigned fe = j->env->nworkers;
   uint32_t count = dr->count, instances = dr->instance_count, first = dr->first;
   int32_t base_vertex = dr->base_vertex;
   uint32_t base_instance = dr->base_instance;
   const bool indexed = dr->index_size != VAGX_INDEX_SIZE_NONE;

   /* adjacency topologies (1.11) need a geometry pipeline, and a bound one
    * its input primitive */
   if (!s->have_vp || !s->have_fp || !s->have_viewport || !s->have_scissor || !s->have_rs ||
       !s->have_ds || (s->have_gs ? !r_gs_topology_ok(dr->primitive, s->gs.input_primitive)
                                  : adjacency(dr->primitive))) {
      r_fail(j, VAGX_JOB_STATUS_INVALID_COMMAND, VAGX_UNIT_VDM, 0, cmd_va);
      return false;
   }
   if (dr->indirect) {
      uint32_t a[5];
      if (!r_read(j, fe, dr->indirect_va, a, indexed ? 20 : 16, VAGX_UNIT_VDM))
         return false;
      count = a[0];
      instances = a[1];
      first = a[2];
      if (indexed) {
         base_vertex = (int32_t)a[3];
         base_instance = a[4];
      } else {
         base_instance = a[3];
      }
   }
   /* read by the vertex shaders of this draw only (r_run_vs); a
    * non-indexed draw has no base vertex (GL's gl_BaseVertex is 0) */
   j->base_instance = base_instance;
   j->base_vertex = indexed ? base_vertex : 0;
   j->draw_id = s->draw_id_base + dr->draw_id;
   /* with a geometry stage, stream output and the PPP see its output
    * vertices and the vertex shader writes input_words words */
   if (!r_so_draw_begin(j, s->have_gs ? r_gs_out_words(&s->gs) : vp_nout(&s->vp), cmd_va))
      return false;
   if (!count || !instances)
      return r_so_draw_end(j);

   struct rdraw d = s->cur;
   d.vpl = s->vp;
   if (s->have_gs)
      r_gs_layout(&s->gs, &d.vpl);
   d.query = s->query;
   if (!r_budget_charge(j, VAGX_RENDER_GEOMETRY_DRAW_COST, VAGX_UNIT_VDM, cmd_va))
      return false;
   if (!push_draw(j, &d)) {
      r_fail(j, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_VDM, 0, 0);
      return false;
   }
   const unsigned drawi = j->ndraws - 1;
   const unsigned nout = s->have_gs ? s->gs.input_words : vp_nout(&s->vp);
   j->draw_va = cmd_va;   /* a geometry budget overrun names this draw */

   /* Vertices are shaded and assembled in batches of R_VTX_BATCH, so a
    * draw's memory does not grow with its count.  A run (vertices between
    * restarts) that continues past a batch is assembled up to the batch end
    * and the vertices the rest of it needs are carried over (see flush_run). */
   struct runbuf rb;
   memset(&rb, 0, sizeof(rb));
   rb.nout = nout;
   /* at most one queued primitive per vertex of the batch and carried one,
    * plus a loop's closing segment */
   const bool record = j->env->run && !j->so.active && !d.rs.discard && !s->have_gs;
   if (record && !j->refs)
      j->refs = malloc((R_VTX_BATCH + R_CARRY + 2) * sizeof(*j->refs));
   if (s->have_gs) {
      j->gs = r_gs_begin(j, &s->gs, s->gsp, &j->draws[drawi], drawi);
      if (!j->gs) {
         r_fail(j, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_VDM, 0, 0);
         return false;
      }
   }
   int64_t *ids = malloc(R_VTX_BATCH * sizeof(*ids));
   rb.out = malloc((size_t)(R_VTX_BATCH + R_CARRY) * nout * sizeof(float));
   rb.vv = malloc((size_t)(R_VTX_BATCH + R_CARRY) * sizeof(*rb.vv));
   rb.tmp = malloc((size_t)R_CARRY * nout * sizeof(float) + 1);
   if (!ids || !rb.out || !rb.vv || !rb.tmp || (record && !j->refs)) {
      free(ids);
      free(rb.out);
      free(rb.vv);
      free(rb.tmp);
      r_gs_end(j->gs);
      j->gs = NULL;
      r_fail(j, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_VDM, 0, 0);
      return false;
   }
   j->record = record;
   j->nrefs = 0;
   bool ok = true;
   unsigned isz = dr->index_size == VAGX_INDEX_SIZE_U8 ? 1 : dr->index_size == VAGX_INDEX_SIZE_U16 ? 2 : 4;
   uint32_t rmask = isz == 4 ? 0xffffffffu : (1u << (8 * isz)) - 1;
   float *const bout = rb.out + (size_t)R_CARRY * nout;   /* the batch's outputs */
   for (uint32_t inst = 0; inst < instances && ok; inst++) {
      rb.n = 0;
      rb.run_len = 0;
      rb.next_prim = 0;
      if (j->gs)
         r_gs_instance(j->gs, inst + base_instance);
      for (uint64_t b0 = 0; b0 < count && ok; b0 += R_VTX_BATCH) {
         /* every batch, whatever it turns out to need (all restarts, all
          * discarded): no draw runs unchecked */
         if (r_checkpoint(j, fe)) {
            ok = false;
            break;
         }
         const unsigned nb = count - b0 < R_VTX_BATCH ? (unsigned)(count - b0) : R_VTX_BATCH;
         /* vertex ids (after restart: -1) */
         for (unsigned i = 0; i < nb; i++) {
            const uint64_t vi = b0 + i;
            if (!indexed) {
               ids[i] = (int64_t)(uint32_t)(first + vi);
               continue;
            }
            uint64_t off = ((uint64_t)first + vi) * isz;
            uint32_t idx = 0;
            if (off + isz <= dr->index_buffer_size) {
               uint8_t b[4] = {0};
               if (!r_read(j, fe, dr->index_va + off, b, isz, VAGX_UNIT_VDM)) {
                  ok = false;
                  break;
               }
               idx = b[0] | (isz > 1 ? (uint32_t)b[1] << 8 : 0) |
                     (isz > 2 ? ((uint32_t)b[2] << 16 | (uint32_t)b[3] << 24) : 0);
            }
            if (dr->restart && idx == (dr->restart_index & rmask))
               ids[i] = -1;
            else
               ids[i] = (int64_t)(uint32_t)(idx + (uint32_t)base_vertex);
         }
         if (!ok)
            break;
         memset(bout, 0, (size_t)nb * nout * sizeof(float));
         if (!r_shade_batch(j, s->vs, ids, nb, inst + base_instance, bout, nout)) {
            ok = false;
            break;
         }
         if (d.rs.discard && !j->so.active && !j->gs)
            continue;   /* nothing needs the primitives (a GS may store) */
         for (unsigned i = 0; i < nb; i++) {
            if (ids[i] == -1) {
               flush_run(j, drawi, dr->primitive, &rb, true);
               continue;
            }
            if (!rb.run_len++) {
               /* first vertex of a run: kept for fans and loops */
               memcpy(rb.out, bout + (size_t)i * nout, nout * sizeof(float));
            }
            rb.vv[rb.n++] = bout + (size_t)i * nout;
         }
         flush_run(j, drawi, dr->primitive, &rb, b0 + nb >= count);
         /* the instance's last input primitives run before the next
          * instance's (whose primitive ids start again) */
         if (j->gs && b0 + nb >= count && !r_gs_flush(j, j->gs))
            ok = false;
         r_ppp_flush(j, drawi);   /* before the next batch rewrites the vertices */
         if (r_stop(j))
            ok = false;
      }
   }
   j->record = false;
   j->nrefs = 0;   /* a failed draw leaves its queue */
   r_gs_end(j->gs);
   j->gs = NULL;
   free(ids);
   free(rb.out);
   free(rb.vv);
   free(rb.tmp);
   return ok && r_so_draw_end(j);
}

static bool push_query(struct rjob *j, const struct vagx_cmd_query_begin *q)
{
   /* the caller fails the job (DEVICE_ERROR) unless the budget already did */
   struct rquery *queries = r_grow(j->queries, &j->cap_queries, j->nqueries + 1ull, sizeof(*queries), 8);
   if (!queries)
      return false;
   j->queries = queries;
   struct rquery *r = &j->queries[j->nqueries++];
   r->result_va = q->result_va;
   r->type = q->type;
   atomic_init(&r->count, 0);
   return true;
}

void r_geometry(struct rjob *j)
{
   const unsigned fe = j->env->nworkers;
   struct vstate s;
   memset(&s, 0, sizeof(s));
   s.query = -1;
   s.cur.query = -1;
   j->so.q_generated = j->so.q_emitted = -1;
   uint64_t va = j->rj.cs_va, stack[VAGX_MAX_STREAM_CALL_DEPTH];
   unsigned depth = 0;
   const char *err;

   for (uint32_t ncmd = 0;; ncmd++) {
      if (ncmd >= MAX_COMMANDS || (va & 3)) {
         r_fail(j, VAGX_JOB_STATUS_INVALID_COMMAND, VAGX_UNIT_VDM, 0, va);
         return;
      }
      if (r_checkpoint(j, fe))
         return;
      uint32_t cmd[16];
      if (!r_read(j, fe, va, cmd, 4, VAGX_UNIT_VDM))
         return;
      unsigned n = vagx_cmd_dwords(cmd[0]);
      if (!n || n > 16) {
         r_fail(j, VAGX_JOB_STATUS_INVALID_COMMAND, VAGX_UNIT_VDM, 0, va);
         return;
      }
      if (n > 1 && !r_read(j, fe, va + 4, cmd + 1, (n - 1) * 4, VAGX_UNIT_VDM))
         return;
      const uint64_t cva = va;
      va += n * 4;
      bool ok = true;
      err = NULL;
      switch (cmd[0] & 0xff) {
      case VAGX_CMD_OPCODE_END: {
         struct vagx_cmd_end c;
         ok = vagx_cmd_end_unpack(cmd, &c, &err);
         if (ok) {
            if (!depth)
               return;
            va = stack[--depth];
         }
         break;
      }
      case VAGX_CMD_OPCODE_JUMP: {
         struct vagx_cmd_jump c;
         ok = vagx_cmd_jump_unpack(cmd, &c, &err);
         if (ok && c.call) {
            if (depth >= VAGX_MAX_STREAM_CALL_DEPTH) {
               ok = false;
               break;
            }
            stack[depth++] = va;
         }
         if (ok)
            va = c.target_va;
         break;
      }
      case VAGX_CMD_OPCODE_NOP: {
         struct vagx_cmd_nop c;
         ok = vagx_cmd_nop_unpack(cmd, &c, &err);
         break;
      }
      case VAGX_CMD_OPCODE_BIND_VERTEX_PIPELINE: {
         ok = vagx_cmd_bind_vertex_pipeline_unpack(cmd, &s.vp, &err);
         if (ok) {
            s.vs = r_bind_program(j, &s.vp.program, VAGX_UNIT_VDM, cva);
            if (!s.vs)
               return;
            s.have_vp = true;
         }
         break;
      }
      case VAGX_CMD_OPCODE_BIND_GEOMETRY_PIPELINE: {
         ok = vagx_cmd_bind_geometry_pipeline_unpack(cmd, &s.gs, &err);
         if (ok) {
            s.gsp = r_bind_program(j, &s.gs.program, VAGX_UNIT_VDM, cva);
            if (!s.gsp)
               return;
            s.have_gs = true;
         }
         break;
      }
      case VAGX_CMD_OPCODE_UNBIND_GEOMETRY_PIPELINE: {
         struct vagx_cmd_unbind_geometry_pipeline c;
         ok = vagx_cmd_unbind_geometry_pipeline_unpack(cmd, &c, &err);
         if (ok)
            s.have_gs = false;
         break;
      }
      case VAGX_CMD_OPCODE_BIND_FRAGMENT_PIPELINE: {
         struct vagx_cmd_bind_fragment_pipeline *c = &s.cur.fp;
         ok = vagx_cmd_bind_fragment_pipeline_unpack(cmd, c, &err);
         if (!ok)
            break;
         uint32_t w[VAGX_MAX_CF_BINDINGS];
         if (c->cf_binding_count &&
             !r_read(j, fe, c->cf_bindings_va, w, c->cf_binding_count * 4u, VAGX_UNIT_VDM))
            return;
         unsigned ncf = c->cf_count;
         for (unsigned i = 0; i < c->cf_binding_count && ok; i++) {
            ok = vagx_cf_binding_unpack(&w[i], &s.cur.cfb[i], &err);
            if (ok) {
               /* 16-bit slots take two registers (see renderer-pipeline.md). */
               unsigned end = s.cur.cfb[i].cf + 2 * s.cur.cfb[i].count;
               if (end > ncf)
                  ncf = end;
            }
         }
         if (!ok)
            break;
         s.cur.ncf = ncf > 256 ? 256 : ncf;
         s.cur.fs = r_bind_program(j, &c->program, VAGX_UNIT_VDM, cva);
         if (!s.cur.fs)
            return;
         s.have_fp = true;
         break;
      }
      case VAGX_CMD_OPCODE_VIEWPORT:
         ok = s.have_viewport = vagx_cmd_viewport_unpack(cmd, &s.cur.vp, &err);
         break;
      case VAGX_CMD_OPCODE_SCISSOR:
         ok = s.have_scissor = vagx_cmd_scissor_unpack(cmd, &s.cur.sc, &err);
         break;
      case VAGX_CMD_OPCODE_RASTERIZER:
         ok = s.have_rs = vagx_cmd_rasterizer_unpack(cmd, &s.cur.rs, &err);
         break;
      case VAGX_CMD_OPCODE_DEPTH_STENCIL:
         ok = s.have_ds = vagx_cmd_depth_stencil_unpack(cmd, &s.cur.ds, &err);
         break;
      case VAGX_CMD_OPCODE_BLEND_CONSTANT: {
         struct vagx_cmd_blend_constant c;
         ok = vagx_cmd_blend_constant_unpack(cmd, &c, &err);
         if (ok)
            memcpy(s.cur.blend, c.color, sizeof(s.cur.blend));
         break;
      }
      case VAGX_CMD_OPCODE_DRAW: {
         struct vagx_cmd_draw c;
         ok = vagx_cmd_draw_unpack(cmd, &c, &err);
         if (ok && !do_draw(j, &s, &c, cva))
            return;
         break;
      }
      case VAGX_CMD_OPCODE_BARRIER: {
         struct vagx_cmd_barrier c;
         ok = vagx_cmd_barrier_unpack(cmd, &c, &err); /* vertex work is in order already */
         break;
      }
      case VAGX_CMD_OPCODE_QUERY_BEGIN: {
         struct vagx_cmd_query_begin c;
         ok = vagx_cmd_query_begin_unpack(cmd, &c, &err);
         if (!ok)
            break;
         /* one active query per class: occlusion, generated, emitted */
         int *slot = c.type == VAGX_QUERY_TYPE_PRIMITIVES_GENERATED ? &j->so.q_generated
                     : c.type == VAGX_QUERY_TYPE_PRIMITIVES_EMITTED ? &j->so.q_emitted
                                                                     : &s.query;
         ok = *slot < 0;
         if (ok) {
            if (!r_budget_charge(j, VAGX_RENDER_GEOMETRY_QUERY_COST, VAGX_UNIT_VDM, cva))
               return;
            if (!push_query(j, &c)) {
               r_fail(j, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_VDM, 0, 0);
               return;
            }
            *slot = (int)j->nqueries - 1;
         }
         break;
      }
      case VAGX_CMD_OPCODE_QUERY_END: {
         struct vagx_cmd_query_end c;
         ok = vagx_cmd_query_end_unpack(cmd, &c, &err);
         if (!ok)
            break;
         int *slot = c.type == VAGX_QUERY_TYPE_PRIMITIVES_GENERATED ? &j->so.q_generated
                     : c.type == VAGX_QUERY_TYPE_PRIMITIVES_EMITTED ? &j->so.q_emitted
                                                                     : &s.query;
         ok = *slot >= 0;
         *slot = -1;
         break;
      }
      case VAGX_CMD_OPCODE_STREAM_OUT_BUFFER: {
         struct vagx_cmd_stream_out_buffer c;
         ok = vagx_cmd_stream_out_buffer_unpack(cmd, &c, &err);
         if (ok && !r_so_bind_buffer(j, &c))
            return;
         break;
      }
      case VAGX_CMD_OPCODE_STREAM_OUT: {
         struct vagx_cmd_stream_out c;
         ok = vagx_cmd_stream_out_unpack(cmd, &c, &err);
         if (ok && !r_so_set(j, &c, cva))
            return;
         break;
      }
      case VAGX_CMD_OPCODE_DRAW_ID_BASE: {
         struct vagx_cmd_draw_id_base c;
         ok = vagx_cmd_draw_id_base_unpack(cmd, &c, &err);
         if (ok)
            s.draw_id_base = c.base;
         break;
      }
      case VAGX_CMD_OPCODE_TIMESTAMP: {
         struct vagx_cmd_timestamp c;
         ok = vagx_cmd_timestamp_unpack(cmd, &c, &err);
         if (!ok)
            break;
         if (c.stage == VAGX_TIMESTAMP_STAGE_VERTEX) {
            uint64_t t = j->env->now_ns ? j->env->now_ns(j->env->now_opaque) : 0;
            if (!r_write(j, fe, c.dst_va, &t, 8, VAGX_UNIT_VDM))
               return;
         } else if (j->neoj_ts < 16) {
            j->eoj_ts[j->neoj_ts++] = c.dst_va;
         } else {
            ok = false;
         }
         break;
      }
      default:
         ok = false;
         break;
      }
      if (!ok) {
         r_fail(j, VAGX_JOB_STATUS_INVALID_COMMAND, VAGX_UNIT_VDM, 0, cva);
         return;
      }
   }
}
