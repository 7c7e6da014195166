/* SPDX-License-Identifier: MIT */
/* Spilling: the vregs register allocation chose (vagx_ra.c) move to the
 * invocation's private stack (stack_ld/stack_st, docs/hw/isa.md), each in
 * a slot of its own (size x 4 bytes; slots are not shared, so a value's
 * slot never needs a liveness of its own).
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
 * did, whatever the other lanes did (a NIR register written on both sides
 * of an if, a loop-carried value).
 *
 * A victim that is a copy of a constant -- an SSA scalar whose one write
 * is a mov of an immediate or a uniform register, which no instruction
 * changes -- is rematerialised instead: its mov goes, and the mov is
 * repeated into a new vreg before every read, with no slot, store or load
 * (vagx_ra.c chooses such victims first). */
#include <stdlib.h>
#include <string.h>
#include "vagx_hw.h"
#include "vagx_ir.h"

/* The stack access moving n consecutive registers. */
static unsigned
memsize_of(unsigned n)
{
   return VAGX_MEMSIZE_B32 + n - 1;
}

void
vagx_remat_sources(const vagx_ir *ir, vagx_ir_src *remat)
{
   unsigned *writes = calloc(MAX2(ir->num_vregs, 1), sizeof(unsigned));
   for (unsigned v = 0; v < ir->num_vregs; v++)
      remat[v] = ir_none();
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      const vagx_ir_instr *I = &ir->instrs[i];
      if (!I->has_dst || writes[I->dst]++)
         continue;
      const vagx_ir_src *S = &I->src[0];
      if (I->op == VAGX_OP_MOV && !I->sat && I->dst_comp == 0 &&
          ir->vregs[I->dst].size == 1 && !ir->vregs[I->dst].reg &&
          (S->file == IR_IMM || S->file == IR_U) && !S->abs && !S->neg)
         remat[I->dst] = *S;
   }
   for (unsigned v = 0; v < ir->num_vregs; v++)
      if (writes[v] != 1)
         remat[v] = ir_none();
   free(writes);
}

bool
vagx_spill(vagx_ir *ir, const BITSET_WORD *spill, bool **no_spill)
{
   const unsigned nv = ir->num_vregs;
   unsigned *slot = malloc(MAX2(nv, 1) * sizeof(unsigned));
   vagx_ir_src *remat = malloc(MAX2(nv, 1) * sizeof(vagx_ir_src));
   vagx_remat_sources(ir, remat);
   unsigned stack = ir->info->stack_size;
   for (unsigned v = 0; v < nv; v++) {
      if (!BITSET_TEST(spill, v) || remat[v].file != IR_NONE)
         continue;
      slot[v] = stack;
      stack += 4 * ir->vregs[v].size;
   }
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
         if (remat[v].file != IR_NONE) {
            const uint32_t t = vagx_ir_new_vreg(ir, 1);
            vagx_ir_emit(ir, VAGX_OP_MOV, t, 0, remat[v], ir_none(), ir_none());
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
      if (remat[I.dst].file != IR_NONE)
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
