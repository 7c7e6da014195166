/* Executor: runs the SIMD groups of a threadgroup cooperatively on the calling
 * thread.  Each group runs until it ends or reaches a barrier; when every live
 * group waits at a barrier they are all released.  No OS threads, no globals. */
#include <stdlib.h>

#include "usc_jit.h"
#include "usc_priv.h"

#define CHECK_INTERVAL 256

struct vagx_usc {
   struct usc_grp *groups;
   unsigned groups_cap;
   uint32_t *regs;
   size_t regs_cap;
   uint32_t (*ub)[L];     /* uniforms broadcast to 32 lanes */
   /* the value each row of ub holds, valid where ub_valid says: a run
    * broadcasts only the uniforms that changed (programs cannot write the
    * uniform file; a fragment draw's blocks share their uniforms) */
   uint32_t ub_val[USC_NUM_U];
   uint64_t ub_valid[USC_NUM_U / 64];
   uint8_t *shared;
   size_t shared_cap;
};

struct vagx_usc *vagx_usc_create(void)
{
   struct vagx_usc *usc = calloc(1, sizeof(*usc));
   if (!usc)
      return NULL;
   usc->ub = calloc(USC_NUM_U, sizeof(*usc->ub));
   if (!usc->ub) {
      free(usc);
      return NULL;
   }
   return usc;
}

void vagx_usc_destroy(struct vagx_usc *usc)
{
   if (!usc)
      return;
   free(usc->groups);
   free(usc->regs);
   free(usc->ub);
   free(usc->shared);
   free(usc);
}

const char *vagx_usc_status_name(enum vagx_usc_status s)
{
   switch (s) {
   case VAGX_USC_OK: return "OK";
   case VAGX_USC_ILLEGAL_INSTRUCTION: return "ILLEGAL_INSTRUCTION";
   case VAGX_USC_FAULT: return "FAULT";
   case VAGX_USC_ABORTED: return "ABORTED";
   case VAGX_USC_BUDGET: return "BUDGET";
   case VAGX_USC_NOT_IMPLEMENTED: return "NOT_IMPLEMENTED";
   case VAGX_USC_BAD_DISPATCH: return "BAD_DISPATCH";
   case VAGX_USC_NOMEM: return "NOMEM";
   }
   return "?";
}

/* The memory safepoint (usc.h): translations cached for the run are dropped
 * when the memory's owner says they expired. */
static void safepoint(struct usc_run *run)
{
   const struct vagx_usc_env *env = run->env;
   if (env->mem && env->mem->safepoint) {
      if (!env->mem->safepoint(env->mem_ctx))
         return;
      run->tlb_r.end = run->tlb_w.end = 0;
   }
   if (env->safepoints)
      (*env->safepoints)++;
}

/* Abort flag, budget and memory safepoint, every CHECK_INTERVAL instructions
 * (every loop iteration executes at least its endloop, so infinite loops are
 * caught). */
static void slow_check(struct usc_run *run, struct usc_grp *g)
{
   const struct vagx_usc_env *env = run->env;
   const struct usc_op *o = &run->prog->ops[g->pc];
   safepoint(run);
   if (env->abort && atomic_load_explicit(env->abort, memory_order_relaxed)) {
      usc_error(g, o, VAGX_USC_ABORTED);
      return;
   }
   if (env->budget && run->icount >= env->budget) {
      usc_error(g, o, VAGX_USC_BUDGET);
      return;
   }
   run->next_check = run->icount + CHECK_INTERVAL;
   if (env->budget && run->next_check > env->budget)
      run->next_check = env->budget;
}

/* Whether a JIT run of `count` instructions may run now: the JIT is on for
 * this run, the run ends before the budget and, if it interpolates, the
 * run has the iterator's inputs (otherwise the renderer's hook does it).  It may pass a check point
 * (the check then follows it: abort and safepoint are polled a little
 * later); a run that would reach the budget is interpreted, so BUDGET stops
 * at the same instruction as without the JIT. */
static inline bool jit_ok(const struct usc_run *run, const struct usc_op *o, uint64_t count)
{
   return run->jit && run->icount + count < run->jit_limit && (!o->jiter || run->iter);
}

static void run_group(struct usc_grp *g)
{
   struct usc_run *run = g->run;
   const struct usc_op *ops = run->prog->ops;
   while (g->state == USC_RUNNING) {
      const struct usc_op *o = &ops[g->pc];
      const usc_jfn j = usc_op_jit(o);
      if (j && jit_ok(run, o, o->jn)) {
         j(g->r, g->base, g->lmask, g->exec, run->iter);
         g->pc += o->jn;
         if ((run->icount += o->jn) >= run->next_check)
            slow_check(run, g);
         continue;
      }
      g->pc++;
      o->fn(g, o);
      if (++run->icount >= run->next_check && g->state == USC_RUNNING)
         slow_check(run, g);
   }
}

/* Whether groups g[0..n) are all running at the same instruction. */
static bool converged(const struct usc_grp *g, unsigned n)
{
   for (unsigned i = 0; i < n; i++)
      if (g[i].state != USC_RUNNING || g[i].pc != g[0].pc)
         return false;
   return true;
}

/* Lockstep execution of converged groups g[0..n): each instruction runs for
 * every group before the next one, so one dispatch covers n groups (a gang
 * handler loops over them inside one call) and the groups' independent
 * dependency chains overlap in the host CPU.  Unit-stride global loads and
 * stores that one translation covers for every group run ganged too (gtry);
 * other memory and control-flow instructions run group by group in
 * ascending order; when they leave the groups at different instructions
 * (divergence, barrier, end, error) this returns and run_groups() continues
 * group by group.  Group order within one
 * instruction is ascending, so the first fault reported is the lowest group's. */
static void run_gang(struct usc_run *run, struct usc_grp *g, unsigned n)
{
   const struct usc_op *ops = run->prog->ops;
   uint32_t pc = g[0].pc;
   for (;;) {
      const struct usc_op *o = &ops[pc];
      const usc_jfn j = usc_op_jit(o);
      if (j && jit_ok(run, o, (uint64_t)n * o->jn)) {
         /* the groups' register files are disjoint and ALU instructions
          * touch nothing else: group by group is instruction by instruction */
         for (unsigned i = 0; i < n; i++)
            j(g[i].r, g[i].base, g[i].lmask, g[i].exec, run->iter);
         pc += o->jn;
         if ((run->icount += (uint64_t)n * o->jn) >= run->next_check) {
            for (unsigned i = 0; i < n; i++)
               g[i].pc = pc;
            slow_check(run, &g[0]);
            if (g[0].state == USC_ERROR)
               return;
         }
         continue;
      }
      if (o->gfn && run->icount + n < run->next_check) {
         o->gfn(g, n, o);
         run->icount += n;
         pc++;
         continue;
      }
      if (o->gtry && run->icount + n < run->next_check && o->gtry(g, n, o)) {
         run->icount += n;
         pc++;
         continue;
      }
      /* Group by group, with the same abort/budget checks as run_group(). */
      for (unsigned i = 0; i < n; i++) {
         g[i].pc = pc + 1;
         o->fn(&g[i], o);
         if (++run->icount >= run->next_check && g[i].state == USC_RUNNING)
            slow_check(run, &g[i]);
         if (g[i].state == USC_ERROR)
            return;
      }
      if (!converged(g, n))
         return;
      pc = g[0].pc;
   }
}

/* Runs groups[0..n) to completion, barriers included. */
static enum vagx_usc_status run_groups(struct vagx_usc *usc, struct usc_run *run, unsigned n)
{
   for (;;) {
      unsigned waiting = 0;
      if (n > 1 && converged(usc->groups, n)) {
         run_gang(run, usc->groups, n);
         for (unsigned i = 0; i < n; i++)
            if (usc->groups[i].state == USC_ERROR) {
               run->res->instructions = run->icount;
               return run->res->status;
            }
      }
      for (unsigned i = 0; i < n; i++) {
         struct usc_grp *g = &usc->groups[i];
         if (g->state == USC_RUNNING)
            run_group(g);
         if (g->state == USC_ERROR) {
            run->res->instructions = run->icount;
            return run->res->status;
         }
         waiting += g->state == USC_BARRIER;
      }
      if (!waiting)
         break;
      for (unsigned i = 0; i < n; i++)
         if (usc->groups[i].state == USC_BARRIER)
            usc->groups[i].state = USC_RUNNING;
   }
   run->res->instructions = run->icount;
   run->res->status = VAGX_USC_OK;
   return VAGX_USC_OK;
}

/* Rows of 32 words a group keeps: its registers, then its private stack
 * (bounded by the contract's VAGX_MAX_STACK_BYTES, see the decoder). */
static inline size_t group_rows(const struct vagx_usc_decoded *prog)
{
   return prog->nregs + (prog->stack_bytes + 3) / 4;
}

static bool reserve(struct vagx_usc *usc, const struct vagx_usc_decoded *prog, unsigned ngroups,
                    uint32_t shared)
{
   size_t regs = (size_t)ngroups * group_rows(prog) * L;
   if (ngroups > usc->groups_cap) {
      void *p = realloc(usc->groups, ngroups * sizeof(*usc->groups));
      if (!p)
         return false;
      usc->groups = p;
      usc->groups_cap = ngroups;
   }
   if (regs > usc->regs_cap) {
      /* 64-byte aligned: every register (128 bytes) then starts a cache line
       * and the handlers' vector stores are aligned.  Contents need not be kept. */
      void *p = aligned_alloc(64, regs * sizeof(uint32_t));
      if (!p)
         return false;
      free(usc->regs);
      usc->regs = p;
      usc->regs_cap = regs;
   }
   if (shared > usc->shared_cap) {
      void *p = realloc(usc->shared, shared);
      if (!p)
         return false;
      usc->shared = p;
      usc->shared_cap = shared;
   }
   return true;
}

static void begin_run(struct vagx_usc *usc, struct usc_run *run, const struct vagx_usc_decoded *prog,
                      const struct vagx_usc_env *env, struct vagx_usc_result *res)
{
   memset(res, 0, sizeof(*res));
   memset(run, 0, sizeof(*run));
   run->env = env;
   run->prog = prog;
   run->res = res;
   run->next_check = CHECK_INTERVAL;
   if (env->budget && env->budget < run->next_check)
      run->next_check = env->budget;
   run->jit_limit = env->budget ? env->budget : UINT64_MAX;
   run->iter = env->iter;
   /* what the descriptor grants, within what the executor keeps */
   run->stack_size = env->stack_bytes < prog->stack_bytes ? env->stack_bytes : prog->stack_bytes;
   run->jit = !env->no_jit && usc_jit_enabled();
   if (run->jit && atomic_load_explicit(&prog->jit_state, memory_order_relaxed) != USC_JIT_DONE)
      usc_jit_tick((struct vagx_usc_decoded *)prog);
   /* Broadcast only the uniforms the program reads, and of those only the
    * ones whose value is not already there. */
   for (unsigned w = 0; w < USC_NUM_U / 64; w++)
      for (uint64_t bits = prog->u_used[w]; bits; bits &= bits - 1) {
         const unsigned b = (unsigned)__builtin_ctzll(bits), u = w * 64 + b;
         const uint32_t v = env->uniforms && u < env->nuniforms ? env->uniforms[u] : 0;
         if ((usc->ub_valid[w] >> b & 1) && usc->ub_val[u] == v)
            continue;
         for (int l = 0; l < L; l++)
            usc->ub[u][l] = v;
         usc->ub_val[u] = v;
         usc->ub_valid[w] |= 1ull << b;
      }
}

static void init_group(struct vagx_usc *usc, struct usc_run *run, unsigned i, uint32_t exec)
{
   struct usc_grp *g = &usc->groups[i];
   const struct vagx_usc_decoded *prog = run->prog;
   g->r = usc->regs + (size_t)i * group_rows(prog) * L;
   g->pstack = g->r + (size_t)prog->nregs * L;
   /* registers and the private stack start as zeros */
   memset(g->r, 0, group_rows(prog) * L * sizeof(uint32_t));
   g->base[USC_B_R] = g->r;
   g->base[USC_B_U] = usc->ub[0];
   g->base[USC_B_SR] = g->sr[0];
   g->base[USC_B_IMM] = prog->imm[0];
   g->base[USC_B_CF] = NULL;
   g->killed = 0;
   g->pc = 0;
   g->sp = 0;
   g->loop = -1;
   g->state = USC_RUNNING;
   g->id = i;
   g->run = run;
   usc_set_exec(g, exec);
}

enum vagx_usc_status vagx_usc_run_threadgroup(struct vagx_usc *usc,
                                              const struct vagx_usc_decoded *prog,
                                              const struct vagx_usc_env *env,
                                              const struct vagx_usc_compute *cs,
                                              const uint32_t tgid[3],
                                              struct vagx_usc_result *res)
{
   struct usc_run run;
   const uint32_t sx = cs->tg_size[0], sy = cs->tg_size[1], sz = cs->tg_size[2];
   uint64_t nthreads = (uint64_t)sx * sy * sz;

   begin_run(usc, &run, prog, env, res);
   if (!nthreads || nthreads > VAGX_USC_MAX_TG_THREADS || cs->shared_bytes > VAGX_USC_MAX_SHARED)
      return res->status = VAGX_USC_BAD_DISPATCH;
   unsigned ngroups = (unsigned)((nthreads + L - 1) / L);
   if (!reserve(usc, prog, ngroups, cs->shared_bytes))
      return res->status = VAGX_USC_NOMEM;
   /* Threadgroup memory starts zeroed so runs are deterministic. */
   if (cs->shared_bytes)
      memset(usc->shared, 0, cs->shared_bytes);
   run.shared = usc->shared;
   run.shared_size = cs->shared_bytes;

   /* Special registers: only the rows the program reads are filled (a program
    * with graphics instructions reads all, see the decoder); inactive lanes of
    * the last group hold zeros.  Thread coordinates by counting (no division
    * per lane). */
   const uint64_t used = prog->sr_used;
   const bool tid = used & (1ull << VAGX_SR_TID_X | 1ull << VAGX_SR_TID_Y | 1ull << VAGX_SR_TID_Z);
   uint64_t filled = 1ull << VAGX_SR_LANE_ID | 1ull << VAGX_SR_TINDEX | 1ull << VAGX_SR_SIMD_ID;
   for (int k = 0; k < 3; k++)
      filled |= 1ull << (VAGX_SR_TID_X + k) | 1ull << (VAGX_SR_TGID_X + k) |
                1ull << (VAGX_SR_NGROUPS_X + k) | 1ull << (VAGX_SR_TGSIZE_X + k);
   uint32_t tx = 0, ty = 0, tz = 0;
   for (unsigned i = 0; i < ngroups; i++) {
      struct usc_grp *g = &usc->groups[i];
      uint64_t left = nthreads - (uint64_t)i * L;
      unsigned n = left < L ? (unsigned)left : L;
      uint32_t exec = n == L ? ~0u : (1u << n) - 1;
      /* Rows the loops below do not fill completely start as zeros. */
      for (uint64_t bits = n < L ? used : used & ~filled; bits; bits &= bits - 1)
         memset(g->sr[__builtin_ctzll(bits)], 0, sizeof(g->sr[0]));
      if (tid) {
         for (unsigned l = 0; l < n; l++) {
            g->sr[VAGX_SR_TID_X][l] = tx;
            g->sr[VAGX_SR_TID_Y][l] = ty;
            g->sr[VAGX_SR_TID_Z][l] = tz;
            if (++tx == sx) {
               tx = 0;
               if (++ty == sy) {
                  ty = 0;
                  tz++;
               }
            }
         }
      }
      for (unsigned l = 0; l < n; l++) {
         g->sr[VAGX_SR_LANE_ID][l] = l;
         g->sr[VAGX_SR_TINDEX][l] = i * L + l;
         g->sr[VAGX_SR_SIMD_ID][l] = i;
      }
      for (int k = 0; k < 3; k++) {
         if (used & (1u << (VAGX_SR_TGID_X + k)))
            for (unsigned l = 0; l < n; l++)
               g->sr[VAGX_SR_TGID_X + k][l] = tgid[k];
         if (used & (1u << (VAGX_SR_NGROUPS_X + k)))
            for (unsigned l = 0; l < n; l++)
               g->sr[VAGX_SR_NGROUPS_X + k][l] = cs->ngroups[k];
         if (used & (1u << (VAGX_SR_TGSIZE_X + k)))
            for (unsigned l = 0; l < n; l++)
               g->sr[VAGX_SR_TGSIZE_X + k][l] = cs->tg_size[k];
      }
      init_group(usc, &run, i, exec);
   }
   return run_groups(usc, &run, ngroups);
}

enum vagx_usc_status vagx_usc_run_grid(struct vagx_usc *usc, const struct vagx_usc_decoded *prog,
                                       const struct vagx_usc_env *env,
                                       const struct vagx_usc_compute *cs,
                                       struct vagx_usc_result *res)
{
   uint64_t total = 0;
   uint32_t id[3];
   for (id[2] = 0; id[2] < cs->ngroups[2]; id[2]++)
      for (id[1] = 0; id[1] < cs->ngroups[1]; id[1]++)
         for (id[0] = 0; id[0] < cs->ngroups[0]; id[0]++) {
            enum vagx_usc_status st = vagx_usc_run_threadgroup(usc, prog, env, cs, id, res);
            total += res->instructions;
            res->instructions = total;
            if (st != VAGX_USC_OK)
               return st;
         }
   return VAGX_USC_OK;
}

enum vagx_usc_status vagx_usc_run_simd(struct vagx_usc *usc, const struct vagx_usc_decoded *prog,
                                       const struct vagx_usc_env *env,
                                       const uint32_t (*sr)[32], uint32_t exec,
                                       struct vagx_usc_result *res)
{
   struct usc_run run;
   begin_run(usc, &run, prog, env, res);
   if (!reserve(usc, prog, 1, 0))
      return res->status = VAGX_USC_NOMEM;
   if (!sr)
      memset(usc->groups[0].sr, 0, sizeof(usc->groups[0].sr));
   init_group(usc, &run, 0, exec);
   /* read in place (usc.h: unchanged during the run), not copied: 3.5 KiB
    * per run of a small triangle's block */
   if (sr)
      usc->groups[0].base[USC_B_SR] = sr[0];
   enum vagx_usc_status st = run_groups(usc, &run, 1);
   /* The renderer applies deferred depth/stencil work to surviving lanes. */
   res->killed = usc->groups[0].killed;
   return st;
}

/* Graphics-only instructions: handed to the renderer's hook with resolved
 * scalar sources; results come back in out[] and are written under the mask. */

/* n rows of 32 lanes zeroed or copied in vector registers: gcc makes a
 * 512-byte memcpy or memset a `rep movsq`/`rep stosq`, whose start-up was
 * half of usc_op_gfx's time on a texture-heavy frame (effect2d) */
typedef uint32_t usc_row8 __attribute__((vector_size(32), aligned(4)));

static inline __attribute__((always_inline)) void rows_zero(uint32_t (*d)[L], unsigned n)
{
   usc_row8 *v = (usc_row8 *)d;
#pragma GCC unroll 16
   for (unsigned i = 0; i < 4 * L / 8; i++)
      if (i < n * L / 8)
         v[i] = (usc_row8){0};
}

static inline __attribute__((always_inline)) void rows_copy(uint32_t *d, const uint32_t (*s)[L])
{
   usc_row8 *v = (usc_row8 *)d;
   const usc_row8 *w = (const usc_row8 *)s;
#pragma GCC unroll 16
   for (unsigned i = 0; i < 4 * L / 8; i++)
      v[i] = w[i];
}

static inline __attribute__((always_inline)) void op_gfx(struct usc_grp *g, const struct usc_op *o)
{
   const struct vagx_usc_env *env = g->run->env;
   const struct vagx_op_info *info = vagx_info(o->I.op);
   uint32_t tmp[3][L], out[5][L];
   struct vagx_usc_gfx_call call;

   if (!env->gfx || !env->gfx->exec) {
      usc_error(g, o, VAGX_USC_NOT_IMPLEMENTED);
      return;
   }
   memset(&call, 0, sizeof(call));
   /* Every lane runs and the instruction reads none of its destination's
    * rows: the results go straight into the registers (a handler writes
    * every lane of call->exec, usc.h).  Otherwise into out[], where lanes a
    * handler does not write read as zero: the rows written back (none for
    * stores, one for a scalar result). */
   const bool direct = info->dst == VAGX_DK_VEC4 && g->exec == ~0u && o->gfx_direct;
   /* tex.resid's fifth row, the residency code (vagx_dst_extra) */
   const bool extra = info->dst == VAGX_DK_VEC4 && vagx_dst_extra(&o->I);
   call.out = out;
   if (direct)
      call.out = (uint32_t (*)[L])(g->r + (size_t)o->dst * L);
   else if (info->dst == VAGX_DK_VEC4)
      rows_zero(out, 4);
   else if (info->dst == VAGX_DK_U32 || info->dst == VAGX_DK_F32)
      rows_zero(out, 1);
   if (extra && !direct)
      rows_zero(out + 4, 1);
   call.instr = &o->I;
   call.exec = g->exec;
   for (unsigned s = 0; s < o->nsrc; s++) {
      if (info->src[s] != VAGX_SK_U32 && info->src[s] != VAGX_SK_F32)
         continue;
      call.src[s] = usc_src(g, o, s, tmp[s]);
      if (direct && (o->gfx_copy >> s & 1) && call.src[s] != tmp[s]) {
         memcpy(tmp[s], call.src[s], sizeof(tmp[s]));
         call.src[s] = tmp[s];
      }
   }
   call.regs = (const uint32_t (*)[32])g->r;
   call.simd_id = g->id;
   call.sr = (const uint32_t (*)[32])g->base[USC_B_SR];
   enum vagx_usc_status st = env->gfx->exec(env->gfx_ctx, &call);
   if (st != VAGX_USC_OK) {
      usc_error(g, o, st);
      return;
   }
   if (info->dst == VAGX_DK_U32 || info->dst == VAGX_DK_F32) {
      usc_wb(g, o, out[0]);
   } else if (info->dst == VAGX_DK_VEC4 && !direct) {
      if (g->exec == ~0u) {
         rows_copy(g->r + (size_t)o->dst * L, (const uint32_t (*)[L])out);
         if (extra)
            memcpy(g->r + (size_t)(o->dst + 4) * L, out[4], sizeof(out[4]));
         return;
      }
      for (unsigned k = 0; k < 4u + extra; k++)
         usc_merge_lanes(g->r + (size_t)(o->dst + k) * L, out[k], g->lmask);
   }
}

void usc_op_gfx(struct usc_grp *g, const struct usc_op *o)
{
   op_gfx(g, o);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX2__)
/* The same for AVX2 hosts (usc_simd_level()): the zeroing, the copies and
 * the lane merges of the results 256 bits at a time. */
__attribute__((target("avx2"))) void usc_op_gfx_avx2(struct usc_grp *g, const struct usc_op *o)
{
   op_gfx(g, o);
}
#endif
