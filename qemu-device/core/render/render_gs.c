/* SPDX-License-Identifier: MIT */
/* vagx renderer: the geometry stage (contract 1.11, render.md "geometry
 * stage").  The VDM's primitive assembly hands every input primitive to
 * r_gs_input, which queues it with a copy of its vertices; a full SIMD
 * group of (primitive, invocation) lanes runs the geometry program with
 * ld_vin reading the queued vertices and st_var/emit/cut building each
 * lane's output strips, which are then assembled, lane by lane (input
 * primitive order, then invocation order, then emission order), into the
 * primitives stream output and the PPP take.  It runs on the job's calling
 * thread only: a GS draw's results are the serial order's by construction. */
#include "render_priv.h"

#define R_GS_LANES 32

struct rgs_lane {
   unsigned nv;               /* emitted vertices kept (<= max_vertices) */
   bool cut;                  /* the next emit starts a new strip */
};

struct rgs {
   struct vagx_cmd_bind_geometry_pipeline b;
   const struct rprog *p;
   const struct rdraw *d;
   unsigned drawi;
   unsigned nin;              /* vertices per input primitive */
   unsigned inw, outw;        /* words per input / output vertex */
   unsigned per_group;        /* input primitives per SIMD group */
   uint32_t instance;         /* sr.instance_id of the draw's current instance */
   uint32_t prim_id;          /* next input primitive's sr.primitive_id */
   unsigned nq;               /* queued input primitives */
   uint32_t qid[R_GS_LANES];  /* their primitive ids */
   float *in;                 /* per_group x nin x inw words */
   float *cur;                /* 32 lanes x outw: the vertex being built */
   float *out;                /* 32 lanes x max_vertices x outw */
   uint8_t *starts;           /* 32 lanes x max_vertices: vertex begins a strip */
   struct rgs_lane lane[R_GS_LANES];
};

unsigned r_gs_out_words(const struct vagx_cmd_bind_geometry_pipeline *b)
{
   return 4 + b->smooth32 + b->flat32 + b->linear32 + b->smooth16 + b->flat16 + b->linear16 +
          (b->point_size ? 1 : 0) + b->clip_distances;
}

bool r_gs_topology_ok(enum vagx_primitive prim, enum vagx_gs_input in)
{
   switch (prim) {
   case VAGX_PRIMITIVE_POINTS: return in == VAGX_GS_INPUT_POINTS;
   case VAGX_PRIMITIVE_LINES:
   case VAGX_PRIMITIVE_LINE_STRIP:
   case VAGX_PRIMITIVE_LINE_LOOP: return in == VAGX_GS_INPUT_LINES;
   case VAGX_PRIMITIVE_TRIANGLES:
   case VAGX_PRIMITIVE_TRIANGLE_STRIP:
   case VAGX_PRIMITIVE_TRIANGLE_FAN: return in == VAGX_GS_INPUT_TRIANGLES;
   case VAGX_PRIMITIVE_LINES_ADJACENCY:
   case VAGX_PRIMITIVE_LINE_STRIP_ADJACENCY: return in == VAGX_GS_INPUT_LINES_ADJACENCY;
   case VAGX_PRIMITIVE_TRIANGLES_ADJACENCY:
   case VAGX_PRIMITIVE_TRIANGLE_STRIP_ADJACENCY: return in == VAGX_GS_INPUT_TRIANGLES_ADJACENCY;
   default: return false;
   }
}

static unsigned input_vertices(enum vagx_gs_input in)
{
   static const unsigned n[] = {
      [VAGX_GS_INPUT_POINTS] = 1, [VAGX_GS_INPUT_LINES] = 2, [VAGX_GS_INPUT_LINES_ADJACENCY] = 4,
      [VAGX_GS_INPUT_TRIANGLES] = 3, [VAGX_GS_INPUT_TRIANGLES_ADJACENCY] = 6,
   };
   return n[in];
}

/* The PPP's view of the output vertices: cmd_bind_vertex_pipeline's layout
 * fields (no edge flag: every edge of a GS triangle is a boundary). */
void r_gs_layout(const struct vagx_cmd_bind_geometry_pipeline *b,
                 struct vagx_cmd_bind_vertex_pipeline *vp)
{
   memset(vp, 0, sizeof(*vp));
   vp->smooth32 = b->smooth32;
   vp->flat32 = b->flat32;
   vp->linear32 = b->linear32;
   vp->point_size = b->point_size;
   vp->clip_distances = b->clip_distances;
   vp->smooth16 = b->smooth16;
   vp->flat16 = b->flat16;
   vp->linear16 = b->linear16;
   vp->program = b->program;
}

struct rgs *r_gs_begin(struct rjob *j, const struct vagx_cmd_bind_geometry_pipeline *b,
                       const struct rprog *p, const struct rdraw *d, unsigned drawi)
{
   struct rgs *g = calloc(1, sizeof(*g));
   if (!g)
      return NULL;
   g->b = *b;
   g->p = p;
   g->d = d;
   g->drawi = drawi;
   g->nin = input_vertices(b->input_primitive);
   g->inw = b->input_words;
   g->outw = r_gs_out_words(b);
   g->per_group = R_GS_LANES / b->invocations;
   g->in = malloc((size_t)g->per_group * g->nin * g->inw * sizeof(float));
   g->cur = calloc((size_t)R_GS_LANES * g->outw, sizeof(float));
   g->out = malloc((size_t)R_GS_LANES * b->max_vertices * g->outw * sizeof(float));
   g->starts = malloc((size_t)R_GS_LANES * b->max_vertices);
   if (!g->in || !g->cur || !g->out || !g->starts) {
      r_gs_end(g);
      return NULL;
   }
   (void)j;
   return g;
}

void r_gs_end(struct rgs *g)
{
   if (!g)
      return;
   free(g->in);
   free(g->cur);
   free(g->out);
   free(g->starts);
   free(g);
}

void r_gs_instance(struct rgs *g, uint32_t instance)
{
   g->instance = instance;
   g->prim_id = 0;            /* gl_PrimitiveIDIn counts per instance */
}

/* ---- the program's graphics instructions ---- */
struct gsctx {
   struct rjob *j;
   struct rgs *g;
};

static enum vagx_usc_status gs_exec(void *ctx, struct vagx_usc_gfx_call *call)
{
   struct gsctx *c = ctx;
   struct rgs *g = c->g;
   const unsigned inv = g->b.invocations;
   switch (call->instr->op) {
   case VAGX_OP_ST_VAR:
      for (unsigned l = 0; l < R_GS_LANES; l++) {
         uint32_t idx = call->src[1][l];
         if ((call->exec >> l & 1) && idx < g->outw)
            memcpy(&g->cur[(size_t)l * g->outw + idx], &call->src[0][l], 4);
      }
      return VAGX_USC_OK;
   case VAGX_OP_LD_VIN:
      for (unsigned l = 0; l < R_GS_LANES; l++) {
         if (!(call->exec >> l & 1))
            continue;
         const uint32_t v = call->src[0][l], w = call->src[1][l];
         if (v >= g->nin || w >= g->inw)
            return VAGX_USC_ILLEGAL_INSTRUCTION;   /* render.md: fails the job */
         const float *src = &g->in[((size_t)(l / inv) * g->nin + v) * g->inw + w];
         memcpy(&call->out[0][l], src, 4);
      }
      return VAGX_USC_OK;
   case VAGX_OP_EMIT:
      for (unsigned l = 0; l < R_GS_LANES; l++) {
         if (!(call->exec >> l & 1))
            continue;
         struct rgs_lane *ln = &g->lane[l];
         float *cur = &g->cur[(size_t)l * g->outw];
         if (ln->nv < g->b.max_vertices) {
            const size_t k = (size_t)l * g->b.max_vertices + ln->nv;
            memcpy(&g->out[k * g->outw], cur, g->outw * sizeof(float));
            g->starts[k] = ln->cut || !ln->nv;
            ln->nv++;
            ln->cut = false;
         }
         /* outputs are not kept across emit (isa.md) */
         memset(cur, 0, g->outw * sizeof(float));
      }
      return VAGX_USC_OK;
   case VAGX_OP_CUT:
      for (unsigned l = 0; l < R_GS_LANES; l++)
         if (call->exec >> l & 1)
            g->lane[l].cut = true;
      return VAGX_USC_OK;
   case VAGX_OP_TEX: {
      struct rtexctx t = {c->j, c->j->env->nworkers, g->p, false};
      return r_tex_exec(&t, call);
   }
   case VAGX_OP_IMG_LD:
   case VAGX_OP_IMG_ST: {
      struct rtexctx t = {c->j, c->j->env->nworkers, g->p, false};
      return r_img_exec(&t, call, -1);
   }
   default:
      return VAGX_USC_ILLEGAL_INSTRUCTION;
   }
}
static const struct vagx_usc_gfx_ops gs_ops = {.exec = gs_exec};

static const enum vagx_primitive out_topology[] = {
   [VAGX_GS_OUTPUT_POINTS] = VAGX_PRIMITIVE_POINTS,
   [VAGX_GS_OUTPUT_LINE_STRIP] = VAGX_PRIMITIVE_LINE_STRIP,
   [VAGX_GS_OUTPUT_TRIANGLE_STRIP] = VAGX_PRIMITIVE_TRIANGLE_STRIP,
};

/* Runs the queued primitives' lanes and assembles their strips in order. */
bool r_gs_flush(struct rjob *j, struct rgs *g)
{
   const unsigned fe = j->env->nworkers;
   const unsigned inv = g->b.invocations, nq = g->nq;
   g->nq = 0;
   if (!nq)
      return true;
   if (r_checkpoint(j, fe))
      return false;
   uint32_t sr[VAGX_SR_COUNT][32];
   memset(sr, 0, sizeof(sr));
   uint32_t exec = 0;
   for (unsigned l = 0; l < nq * inv; l++) {
      sr[VAGX_SR_LANE_ID][l] = l;
      sr[VAGX_SR_PRIMITIVE_ID][l] = g->qid[l / inv];
      sr[VAGX_SR_INVOCATION_ID][l] = l % inv;
      sr[VAGX_SR_INSTANCE_ID][l] = g->instance;
      sr[VAGX_SR_BASE_INSTANCE][l] = j->base_instance;
      sr[VAGX_SR_BASE_VERTEX][l] = (uint32_t)j->base_vertex;
      sr[VAGX_SR_DRAW_ID][l] = j->draw_id;
      exec |= 1u << l;
   }
   memset(g->lane, 0, sizeof(g->lane));
   memset(g->cur, 0, (size_t)R_GS_LANES * g->outw * sizeof(float));
   struct gsctx c = {j, g};
   struct vagx_usc_env env;
   r_usc_env(j, fe, g->p, &env, &gs_ops, &c);
   struct vagx_usc_result res;
   memset(&res, 0, sizeof(res));
   if (vagx_usc_run_simd(j->dev->w[fe].usc, g->p->prog, &env, (const uint32_t(*)[32])sr, exec,
                         &res) != VAGX_USC_OK) {
      r_usc_fail(j, fe, &res, g->p);
      return false;
   }
   if (r_checkpoint(j, fe))
      return false;
   uint64_t emitted = 0;
   for (unsigned l = 0; l < nq * inv; l++)
      emitted += g->lane[l].nv;
   if (!r_budget_charge(j, emitted * VAGX_RENDER_GEOMETRY_GS_VERTEX_COST, VAGX_UNIT_PPP,
                        j->draw_va))
      return false;
   const float *vv[VAGX_MAX_GS_OUTPUT_VERTICES];
   for (unsigned l = 0; l < nq * inv; l++) {
      const size_t base = (size_t)l * g->b.max_vertices;
      unsigned s = 0;
      while (s < g->lane[l].nv) {
         unsigned e = s + 1;
         while (e < g->lane[l].nv && !g->starts[base + e])
            e++;
         for (unsigned k = s; k < e; k++)
            vv[k - s] = &g->out[(base + k) * g->outw];
         r_assemble_out(j, g->d, g->drawi, out_topology[g->b.output_primitive], vv, e - s);
         s = e;
      }
      if (r_stop(j))
         return false;
   }
   return true;
}

/* One assembled input primitive, its vertices in the order the assembler
 * rasterises them (v[provoking] the provoking vertex); ld_vin sees them in
 * GL's order, the order stream output writes (render.md). */
bool r_gs_input(struct rjob *j, struct rgs *g, const float *const *v, unsigned nv,
                unsigned provoking, bool provoking_first)
{
   const unsigned start = nv > 3 || nv < 2 ? 0 : provoking_first ? provoking : (provoking + 1) % nv;
   float *dst = &g->in[(size_t)g->nq * g->nin * g->inw];
   for (unsigned k = 0; k < nv && k < g->nin; k++)
      memcpy(dst + (size_t)k * g->inw, v[(start + k) % nv], g->inw * sizeof(float));
   g->qid[g->nq++] = g->prim_id++;
   if (g->nq < g->per_group)
      return true;
   return r_gs_flush(j, g);
}
