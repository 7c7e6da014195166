/* SPDX-License-Identifier: MIT */
/* Pre-RA scheduling for register pressure: a bottom-up list scheduler per
 * region of a basic block, as asahi's agx_pressure_schedule.c.
 *
 * A region is a run of a block's instructions between those the scheduler
 * never moves anything across: the block's terminator and every other
 * control-flow instruction (discard, barrier: the lanes they remove or
 * hold change what a moved instruction would compute, e.g. the neighbour
 * values a derivative reads).  In a region the dependences are
 *  - a read after the write of its vreg (SSA vregs: one write, or the
 *    component writes of a vector, all in one block);
 *  - every access, in order, to a vreg written more than once in the
 *    region or marked `reg` (phi destinations after vagx_lower_phis: write
 *    after read and write after write);
 *  - the order of the instructions with effects the operands do not show:
 *    memory, stack and graphics instructions (varyings, tile buffer, depth,
 *    textures), kept as they are.
 * Going up from the region's end with the vregs live there, the scheduler
 * takes, among the instructions whose dependents are all placed, the one
 * that adds the fewest live registers (a write that ends its vreg frees
 * its size, a source first read there adds its size); ties keep program
 * order.  So a constant's mov or a cheap value sinks to its use, and the
 * operands of a long computation are made just before it.  The new order
 * is kept only when its highest pressure is lower than the old one's.
 *
 * The register allocator then works on the scheduled order. */
#include <stdlib.h>
#include <string.h>
#include "util/ralloc.h"
#include "vagx_ir.h"

#define MAX_PREDS 6

struct node {
   unsigned npreds;
   unsigned preds[MAX_PREDS];   /* region-local indices that must come before */
   unsigned users_left;         /* dependents not placed yet */
};

struct sched {
   vagx_ir *ir;
   unsigned words;              /* BITSET words over the vregs */
   BITSET_WORD *live;           /* live below the point being placed */
   unsigned *live_regs;         /* per live vreg: its registers counted live
                                 * (a vector's components die one by one
                                 * at their writes, as copy coalescing lets
                                 * the values it is built from die into it) */
   unsigned *writes_left;       /* per vreg: writes in the region not placed yet */
   int *last_write, *last_access; /* per vreg, region-local, -1 none */
   bool *chained;               /* per vreg: all accesses ordered */
   struct node *nodes;
   unsigned *order;             /* the new order, bottom-up */
   bool *placed;
};

static unsigned
vsize(const vagx_ir *ir, unsigned v)
{
   return ir->vregs[v].size;
}

/* Instructions the scheduler keeps in order among themselves. */
static bool
ordered(const vagx_ir_instr *I)
{
   if (vagx_info(I->op)->flags & (VAGX_OPF_MEM | VAGX_OPF_GFX | VAGX_OPF_CF))
      return true;
   for (unsigned s = 0; s < 3; s++)
      if (I->src[s].file == IR_HWREG)
         return true;
   return false;
}

/* Instructions that end a region (nothing moves across them). */
static bool
region_end(const vagx_ir_instr *I)
{
   return vagx_is_terminator(I) || (vagx_info(I->op)->flags & VAGX_OPF_CF);
}

/* The registers of I's destination that stop being live above I: all of
 * the vreg at its first write in the region, else the components I
 * writes (a vector built component by component, a register). */
static unsigned
freed_regs(const struct sched *s, const vagx_ir_instr *I)
{
   if (!I->has_dst || !BITSET_TEST(s->live, I->dst))
      return 0;
   if (s->writes_left[I->dst] <= 1)
      return s->live_regs[I->dst];
   return MIN2(vagx_ir_dst_regs(I), s->live_regs[I->dst]);
}

/* Registers live above I minus those live below it, with s->live the
 * set below it: the registers its write frees, and the sources, which are
 * live above in whole. */
static int
pressure_delta(const struct sched *s, const vagx_ir_instr *I)
{
   const vagx_ir *ir = s->ir;
   const unsigned freed = freed_regs(s, I);
   int delta = -(int)freed;
   for (unsigned k = 0; k < 3; k++) {
      const vagx_ir_src *S = &I->src[k];
      if (S->file != IR_VREG)
         continue;
      bool dupe = false;
      for (unsigned j = 0; j < k; j++)
         dupe |= I->src[j].file == IR_VREG && I->src[j].v == S->v;
      if (dupe)
         continue;
      unsigned below = BITSET_TEST(s->live, S->v) ? s->live_regs[S->v] : 0;
      if (I->has_dst && S->v == I->dst)
         below -= freed;
      delta += vsize(ir, S->v) - below;
   }
   return delta;
}

static void
place(struct sched *s, const vagx_ir_instr *I)
{
   if (I->has_dst) {
      const unsigned freed = freed_regs(s, I);
      s->live_regs[I->dst] -= freed;
      if (s->writes_left[I->dst] <= 1 || !s->live_regs[I->dst]) {
         s->live_regs[I->dst] = 0;
         BITSET_CLEAR(s->live, I->dst);
      }
      if (s->writes_left[I->dst])
         s->writes_left[I->dst]--;
   }
   for (unsigned k = 0; k < 3; k++) {
      const vagx_ir_src *S = &I->src[k];
      if (S->file == IR_VREG && (!BITSET_TEST(s->live, S->v) || !s->live_regs[S->v])) {
         BITSET_SET(s->live, S->v);
         s->live_regs[S->v] = vsize(s->ir, S->v);
      } else if (S->file == IR_VREG) {
         s->live_regs[S->v] = vsize(s->ir, S->v); /* read whole again above */
      }
   }
}

/* Every live vreg whole (block and region boundaries). */
static void
set_live_regs(struct sched *s)
{
   unsigned v;
   BITSET_FOREACH_SET(v, s->live, s->ir->num_vregs)
      s->live_regs[v] = vsize(s->ir, v);
}

static void
add_pred(struct node *n, int p)
{
   if (p < 0)
      return;
   for (unsigned i = 0; i < n->npreds; i++)
      if (n->preds[i] == (unsigned)p)
         return;
   assert(n->npreds < MAX_PREDS);
   n->preds[n->npreds++] = p;
}

static void
count_writes(struct sched *s, const vagx_ir_instr *I, unsigned n)
{
   for (unsigned k = 0; k < n; k++)
      if (I[k].has_dst)
         s->writes_left[I[k].dst]++;
}

/* Schedule instructions [start, end) with s->live the set live at end;
 * leaves s->live the set live at start.  Returns whether it reordered. */
static bool
schedule_region(struct sched *s, unsigned start, unsigned end)
{
   vagx_ir *ir = s->ir;
   const unsigned n = end - start;
   vagx_ir_instr *I = &ir->instrs[start];
   if (n < 3) {
      for (unsigned k = n; k-- > 0;)
         place(s, &I[k]);
      return false;
   }

   /* the dependence graph */
   int last_ordered = -1;
   for (unsigned k = 0; k < n; k++) {
      if (I[k].has_dst)
         s->writes_left[I[k].dst]++;
   }
   for (unsigned k = 0; k < n; k++) {
      if (I[k].has_dst && (s->writes_left[I[k].dst] > 1 || ir->vregs[I[k].dst].reg))
         s->chained[I[k].dst] = true;
      for (unsigned j = 0; j < 3; j++)
         if (I[k].src[j].file == IR_VREG && ir->vregs[I[k].src[j].v].reg)
            s->chained[I[k].src[j].v] = true;
   }
   for (unsigned k = 0; k < n; k++) {
      struct node *N = &s->nodes[k];
      N->npreds = 0;
      N->users_left = 0;
      for (unsigned j = 0; j < 3; j++) {
         const vagx_ir_src *S = &I[k].src[j];
         if (S->file != IR_VREG)
            continue;
         add_pred(N, s->chained[S->v] ? s->last_access[S->v] : s->last_write[S->v]);
      }
      if (I[k].has_dst && s->chained[I[k].dst])
         add_pred(N, s->last_access[I[k].dst]);
      if (ordered(&I[k])) {
         add_pred(N, last_ordered);
         last_ordered = k;
      }
      for (unsigned j = 0; j < 3; j++)
         if (I[k].src[j].file == IR_VREG)
            s->last_access[I[k].src[j].v] = k;
      if (I[k].has_dst) {
         s->last_write[I[k].dst] = k;
         s->last_access[I[k].dst] = k;
      }
   }
   for (unsigned k = 0; k < n; k++)
      for (unsigned p = 0; p < s->nodes[k].npreds; p++)
         s->nodes[s->nodes[k].preds[p]].users_left++;

   /* the pressure of the program order, bottom-up */
   BITSET_WORD *live_end = malloc(s->words * sizeof(BITSET_WORD));
   memcpy(live_end, s->live, s->words * sizeof(BITSET_WORD));
   set_live_regs(s);
   int pressure = 0, old_max = 0;
   for (unsigned k = n; k-- > 0;) {
      pressure += pressure_delta(s, &I[k]);
      old_max = MAX2(old_max, pressure);
      place(s, &I[k]);
   }
   BITSET_WORD *live_start = malloc(s->words * sizeof(BITSET_WORD));
   memcpy(live_start, s->live, s->words * sizeof(BITSET_WORD));

   /* the greedy order, bottom-up */
   memcpy(s->live, live_end, s->words * sizeof(BITSET_WORD));
   set_live_regs(s);
   count_writes(s, I, n);
   memset(s->placed, 0, n * sizeof(bool));
   int new_max = 0;
   pressure = 0;
   for (unsigned m = 0; m < n; m++) {
      int best = -1, best_delta = 0;
      for (unsigned k = n; k-- > 0;) {
         if (s->placed[k] || s->nodes[k].users_left)
            continue;
         const int d = pressure_delta(s, &I[k]);
         if (best < 0 || d < best_delta) {
            best = k;
            best_delta = d;
         }
      }
      assert(best >= 0);
      pressure += best_delta;
      new_max = MAX2(new_max, pressure);
      s->placed[best] = true;
      s->order[m] = best;
      place(s, &I[best]);
      for (unsigned p = 0; p < s->nodes[best].npreds; p++)
         s->nodes[s->nodes[best].preds[p]].users_left--;
   }

   /* clean the per-vreg state for the next region */
   for (unsigned k = 0; k < n; k++) {
      for (unsigned j = 0; j < 3; j++) {
         if (I[k].src[j].file == IR_VREG) {
            s->last_access[I[k].src[j].v] = s->last_write[I[k].src[j].v] = -1;
            s->chained[I[k].src[j].v] = false;
         }
      }
      if (I[k].has_dst) {
         s->last_access[I[k].dst] = s->last_write[I[k].dst] = -1;
         s->chained[I[k].dst] = false;
         s->writes_left[I[k].dst] = 0;
      }
   }

   /* the live set at the start is the same in either order */
   memcpy(s->live, live_start, s->words * sizeof(BITSET_WORD));
   set_live_regs(s);
   free(live_end);
   free(live_start);
   if (new_max >= old_max)
      return false;

   bool changed = false;
   vagx_ir_instr *copy = malloc(n * sizeof(vagx_ir_instr));
   memcpy(copy, I, n * sizeof(vagx_ir_instr));
   for (unsigned m = 0; m < n; m++) {
      I[n - 1 - m] = copy[s->order[m]];
      changed |= s->order[m] != n - 1 - m;
   }
   free(copy);
   return changed;
}

bool
vagx_schedule(vagx_ir *ir)
{
   vagx_liveness(ir);
   const unsigned nv = MAX2(ir->num_vregs, 1);
   struct sched s = {
      .ir = ir,
      .words = BITSET_WORDS(nv),
      .writes_left = calloc(nv, sizeof(unsigned)),
      .last_write = malloc(nv * sizeof(int)),
      .last_access = malloc(nv * sizeof(int)),
      .chained = calloc(nv, sizeof(bool)),
      .nodes = malloc((ir->num_instrs + 1) * sizeof(struct node)),
      .order = malloc((ir->num_instrs + 1) * sizeof(unsigned)),
      .placed = malloc(ir->num_instrs + 1),
   };
   s.live = malloc(s.words * sizeof(BITSET_WORD));
   s.live_regs = calloc(nv, sizeof(unsigned));
   memset(s.last_write, 0xff, nv * sizeof(int));
   memset(s.last_access, 0xff, nv * sizeof(int));

   bool changed = false;
   for (unsigned b = 0; b < ir->num_blocks; b++) {
      const vagx_block *B = &ir->blocks[b];
      if (!B->reachable)
         continue;
      memcpy(s.live, B->live_out, s.words * sizeof(BITSET_WORD));
      set_live_regs(&s);
      /* regions bottom-up; every region end is placed where it is */
      unsigned end = B->end;
      for (unsigned i = B->end; i-- > B->start;) {
         if (!region_end(&ir->instrs[i]))
            continue;
         changed |= schedule_region(&s, i + 1, end);
         place(&s, &ir->instrs[i]);
         end = i;
      }
      changed |= schedule_region(&s, B->start, end);
   }

   free(s.writes_left);
   free(s.last_write);
   free(s.last_access);
   free(s.chained);
   free(s.nodes);
   free(s.order);
   free(s.placed);
   free(s.live);
   free(s.live_regs);
   /* the blocks keep their instructions and their live-in/out sets */
   return changed;
}
