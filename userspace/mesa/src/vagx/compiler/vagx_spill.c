/* SPDX-License-Identifier: MIT */
/* Spilling: the vregs register allocation chose (vagx_ra.c) move to the
 * invocation's private stack (stack_ld/stack_st, docs/hw/isa.md), each in
 * a slot of size x 4 bytes.
 *
 * Slots are shared by values never live at once.  The slot of a value is
 * live where the value is (its stores follow its writes, its loads
 * precede its reads), so a victim may take stack words whose live range
 * does not meet its own: both as hulls in instruction indices -- the
 * victim's from register allocation's live ranges (vagx_ra.c), the words
 * of earlier rounds' slots by a backward liveness of the stack words over
 * the CFG (a stack_st defines its words, a stack_ld uses them).  Victims
 * are placed in order of their start, each at the lowest offset whose
 * words are free over its hull.
 *
 * Spill everywhere, as agx_spill does for its memory spills: after every
 * write of a spilled vreg the written components go to its slot, and
 * before every instruction that reads it the components it reads come
 * back into a new vreg that lives from that load to that instruction.
 * Writes also go to new vregs (stored at once), so the spilled vreg itself
 * disappears: what was one long live range becomes short ones around its
 * definitions and uses, which lowers the pressure everywhere in between.
 *
 * This is right under divergence because the stack is per lane and the
 * loads and stores run under the mask of the instruction they sit next
 * to: a lane's slot holds the last value that lane wrote, as the register
 * did, whatever the other lanes did (a phi's destination written on both
 * sides of an if, a loop-carried value).
 *
 * A victim computed from what holds the same value everywhere -- an SSA
 * scalar whose one write is an ALU instruction (no cf, memory or graphics
 * opcode, no derivative) reading only immediates, uniform registers and
 * special registers but the sample mask and the helper flag: a copy of a
 * constant, `u2f sr.pix_x`, `iadd u0, #4` -- is rematerialised instead:
 * its instruction goes, and is repeated into a new vreg before every
 * read, with no slot, store or load (vagx_ra.c chooses such victims
 * first).  One instruction per read, as a fill, without the store and the
 * memory traffic. */
#include <stdlib.h>
#include <string.h>
#include "util/u_qsort.h"
#include "vagx_hw.h"
#include "vagx_ir.h"

/* The stack access moving n consecutive registers. */
static unsigned
memsize_of(unsigned n)
{
   return VAGX_MEMSIZE_B32 + n - 1;
}

/* An operand a repeated instruction reads the same everywhere: an
 * immediate, a uniform or coefficient register, a special register but
 * the sample mask and the helper flag (a discard changes them). */
static bool
fixed(const vagx_ir_src *s)
{
   switch (s->file) {
   case IR_NONE:
   case IR_IMM:
   case IR_U:
      return true;
   case IR_SR:
      return s->v != VAGX_SR_SAMPLE_MASK && s->v != VAGX_SR_HELPER;
   default:
      return false;
   }
}

void
vagx_remat_defs(const vagx_ir *ir, int *def)
{
   unsigned *writes = calloc(MAX2(ir->num_vregs, 1), sizeof(unsigned));
   for (unsigned v = 0; v < ir->num_vregs; v++)
      def[v] = -1;
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      const vagx_ir_instr *I = &ir->instrs[i];
      if (!I->has_dst || writes[I->dst]++)
         continue;
      const struct vagx_op_info *info = vagx_info(I->op);
      if (I->dst_comp || ir->vregs[I->dst].size != 1 || ir->vregs[I->dst].reg ||
          (info->flags & (VAGX_OPF_CF | VAGX_OPF_MEM | VAGX_OPF_GFX)) ||
          (info->dst != VAGX_DK_U32 && info->dst != VAGX_DK_F32) ||
          I->op == VAGX_OP_FDDX || I->op == VAGX_OP_FDDY)
         continue;
      if (fixed(&I->src[0]) && fixed(&I->src[1]) && fixed(&I->src[2]))
         def[I->dst] = i;
   }
   for (unsigned v = 0; v < ir->num_vregs; v++)
      if (writes[v] != 1)
         def[v] = -1;
   free(writes);
}

/* An interval of instruction indices a stack word is busy in. */
struct busy {
   int lo, hi;
};

/* The hull of the live range of every stack word (VAGX_MAX_STACK_BYTES /
 * 4 of them) the stack instructions already in `ir` use, into busy[w]. */
static void
stack_word_hulls(const vagx_ir *ir, struct util_dynarray *busy)
{
   enum { W = VAGX_MAX_STACK_BYTES / 4, WW = BITSET_WORDS(VAGX_MAX_STACK_BYTES / 4) };
   const unsigned nb = ir->num_blocks;
   BITSET_WORD(*use)[WW] = calloc(MAX2(nb, 1), sizeof(*use));
   BITSET_WORD(*kill)[WW] = calloc(MAX2(nb, 1), sizeof(*kill));
   BITSET_WORD(*in)[WW] = calloc(MAX2(nb, 1), sizeof(*in));
   BITSET_WORD(*out)[WW] = calloc(MAX2(nb, 1), sizeof(*out));
   bool any = false;
   for (unsigned b = 0; b < nb; b++) {
      for (unsigned i = ir->blocks[b].start; i < ir->blocks[b].end; i++) {
         const vagx_ir_instr *I = &ir->instrs[i];
         if (I->op != VAGX_OP_STACK_LD && I->op != VAGX_OP_STACK_ST)
            continue;
         any = true;
         const unsigned n = vagx_memsize_regs[I->mod & 7];
         for (unsigned c = 0; c < n && I->ext / 4 + c < W; c++) {
            const unsigned w = I->ext / 4 + c;
            if (I->op == VAGX_OP_STACK_ST)
               BITSET_SET(kill[b], w);
            else if (!BITSET_TEST(kill[b], w))
               BITSET_SET(use[b], w);
         }
      }
   }
   for (bool changed = any; changed;) {
      changed = false;
      for (unsigned b = nb; b-- > 0;) {
         const vagx_block *B = &ir->blocks[b];
         for (unsigned s = 0; s < B->num_succs; s++)
            __bitset_or(out[b], out[b], in[B->succs[s]], WW);
         for (unsigned k = 0; k < WW; k++) {
            const BITSET_WORD x = use[b][k] | (out[b][k] & ~kill[b][k]);
            changed |= x != in[b][k];
            in[b][k] = x;
         }
      }
   }
   int lo[W], hi[W];
   for (unsigned b = 0; any && b < nb; b++) {
      const vagx_block *B = &ir->blocks[b];
      for (unsigned w = 0; w < W; w++)
         lo[w] = hi[w] = -1;
#define EXTEND(w, p)                                                                     \
   do {                                                                                  \
      if (lo[w] < 0)                                                                     \
         lo[w] = (p);                                                                    \
      hi[w] = (p);                                                                       \
   } while (0)
      unsigned w;
      BITSET_FOREACH_SET(w, in[b], W)
         EXTEND(w, (int)B->start);
      for (unsigned i = B->start; i < B->end; i++) {
         const vagx_ir_instr *I = &ir->instrs[i];
         if (I->op != VAGX_OP_STACK_LD && I->op != VAGX_OP_STACK_ST)
            continue;
         for (unsigned c = 0; c < vagx_memsize_regs[I->mod & 7] && I->ext / 4 + c < W; c++)
            EXTEND(I->ext / 4 + c, (int)i);
      }
      BITSET_FOREACH_SET(w, out[b], W)
         EXTEND(w, (int)B->end - 1);
#undef EXTEND
      for (w = 0; w < W; w++) {
         if (lo[w] < 0)
            continue;
         struct busy x = { lo[w], hi[w] };
         util_dynarray_append(&busy[w], struct busy, x);
      }
   }
   free(use);
   free(kill);
   free(in);
   free(out);
}

static bool
word_free(const struct util_dynarray *busy, int lo, int hi)
{
   util_dynarray_foreach(busy, struct busy, x)
      if (x->lo <= hi && lo <= x->hi)
         return false;
   return true;
}

static int
by_start(const void *a, const void *b, void *data)
{
   const vagx_vreg *vregs = data;
   const int x = vregs[*(const unsigned *)a].start, y = vregs[*(const unsigned *)b].start;
   if (x != y)
      return x < y ? -1 : 1;
   return *(const unsigned *)a < *(const unsigned *)b ? -1 : 1;
}

/* The slot of every victim (not rematerialised) in slot[]; the stack size
 * they need, which may exceed VAGX_MAX_STACK_BYTES (then the caller
 * fails). */
static unsigned
assign_slots(const vagx_ir *ir, const BITSET_WORD *spill, const int *remat,
             unsigned *slot)
{
   enum { W = VAGX_MAX_STACK_BYTES / 4 };
   struct util_dynarray busy[W];
   for (unsigned w = 0; w < W; w++)
      util_dynarray_init(&busy[w], NULL);
   stack_word_hulls(ir, busy);

   const unsigned nv = ir->num_vregs;
   unsigned *order = malloc(MAX2(nv, 1) * sizeof(unsigned)), n = 0;
   for (unsigned v = 0; v < nv; v++)
      if (BITSET_TEST(spill, v) && remat[v] < 0)
         order[n++] = v;
   util_qsort_r(order, n, sizeof(unsigned), by_start, ir->vregs);

   unsigned stack = ir->info->stack_size, overflow = 0;
   for (unsigned k = 0; k < n; k++) {
      const vagx_vreg *r = &ir->vregs[order[k]];
      /* a vreg without references needs no words; give it its own */
      const int lo = r->start >= 0 ? r->start : 0;
      const int hi = r->start >= 0 ? r->end : (int)ir->num_instrs;
      unsigned at = ~0u;
      for (unsigned o = 0; o + r->size <= W && at == ~0u; o++) {
         bool ok = true;
         for (unsigned c = 0; c < r->size && ok; c++)
            ok = word_free(&busy[o + c], lo, hi);
         if (ok)
            at = o;
      }
      if (at == ~0u) {
         /* no room below the limit: past it, for the caller's error */
         slot[order[k]] = VAGX_MAX_STACK_BYTES + overflow;
         overflow += 4 * r->size;
         continue;
      }
      slot[order[k]] = 4 * at;
      for (unsigned c = 0; c < r->size; c++) {
         struct busy x = { lo, hi };
         util_dynarray_append(&busy[at + c], struct busy, x);
      }
      stack = MAX2(stack, 4 * (at + r->size));
   }
   for (unsigned w = 0; w < W; w++)
      util_dynarray_fini(&busy[w]);
   free(order);
   return overflow ? VAGX_MAX_STACK_BYTES + overflow : stack;
}

bool
vagx_spill(vagx_ir *ir, const BITSET_WORD *spill, bool **no_spill)
{
   const unsigned nv = ir->num_vregs;
   unsigned *slot = malloc(MAX2(nv, 1) * sizeof(unsigned));
   int *remat = malloc(MAX2(nv, 1) * sizeof(int));
   vagx_remat_defs(ir, remat);
   const unsigned stack = assign_slots(ir, spill, remat, slot);
   if (stack > VAGX_MAX_STACK_BYTES) {
      free(slot);
      free(remat);
      ir->error = "register allocation failed: spilling needs more than "
                  "VAGX_MAX_STACK_BYTES of stack";
      return false;
   }
   ir->info->stack_size = stack;

   vagx_ir old = *ir;
   ir->instrs = NULL;
   ir->num_instrs = ir->cap_instrs = 0;
   for (unsigned i = 0; i < old.num_instrs; i++) {
      vagx_ir_instr I = old.instrs[i];
      const struct vagx_instr M = vagx_ir_shape(&I);

      /* fills: per spilled vreg read here, the components read, once */
      for (unsigned s = 0; s < 3; s++) {
         if (I.src[s].file != IR_VREG || !BITSET_TEST(spill, I.src[s].v))
            continue;
         const uint32_t v = I.src[s].v;
         if (remat[v] >= 0) {
            const uint32_t t = vagx_ir_new_vreg(ir, 1);
            vagx_ir_instr *R = vagx_ir_emit(ir, 0, -1, 0, ir_none(), ir_none(), ir_none());
            *R = old.instrs[remat[v]];
            R->dst = t;
            for (unsigned k = s; k < 3; k++)
               if (I.src[k].file == IR_VREG && I.src[k].v == v)
                  I.src[k].v = t;
            continue;
         }
         unsigned lo = ~0u, hi = 0;
         for (unsigned k = s; k < 3; k++) {
            if (I.src[k].file == IR_VREG && I.src[k].v == v) {
               lo = MIN2(lo, I.src[k].comp);
               hi = MAX2(hi, I.src[k].comp + vagx_src_regs(&M, k));
            }
         }
         const uint32_t t = vagx_ir_new_vreg(ir, hi - lo);
         vagx_ir_instr *L = vagx_ir_emit(ir, VAGX_OP_STACK_LD, t, 0, ir_none(), ir_none(),
                                         ir_none());
         L->mod = memsize_of(hi - lo);
         L->ext = slot[v] + 4 * lo;
         ir->info->stat_fills++;
         for (unsigned k = s; k < 3; k++) {
            if (I.src[k].file == IR_VREG && I.src[k].v == v) {
               I.src[k].v = t;
               I.src[k].comp -= lo;
            }
         }
      }

      if (!I.has_dst || !BITSET_TEST(spill, I.dst)) {
         *vagx_ir_emit(ir, 0, -1, 0, ir_none(), ir_none(), ir_none()) = I;
         continue;
      }
      if (remat[I.dst] >= 0)
         continue; /* repeated before every read instead */
      /* a spill: the write goes to a new vreg, stored at once */
      const unsigned n = vagx_dst_regs(&M);
      const unsigned at = slot[I.dst] + 4 * I.dst_comp;
      const uint32_t t = vagx_ir_new_vreg(ir, n);
      I.dst = t;
      I.dst_comp = 0;
      *vagx_ir_emit(ir, 0, -1, 0, ir_none(), ir_none(), ir_none()) = I;
      vagx_ir_instr *S = vagx_ir_emit(ir, VAGX_OP_STACK_ST, -1, 0, ir_vreg(t, 0), ir_none(),
                                      ir_none());
      S->mod = memsize_of(n);
      S->ext = at;
      ir->info->stat_spills++;
   }
   free(old.instrs);
   free(slot);
   free(remat);

   /* the new vregs live from a load to its use or from a write to its
    * store: spilling them would not lower the pressure anywhere */
   *no_spill = realloc(*no_spill, MAX2(ir->num_vregs, 1) * sizeof(bool));
   for (unsigned v = 0; v < ir->num_vregs; v++)
      (*no_spill)[v] = v >= nv || (v < nv && (*no_spill)[v]);
   vagx_ir_build_cfg(ir);
   return true;
}
