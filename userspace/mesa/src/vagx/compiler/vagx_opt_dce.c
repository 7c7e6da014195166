/* SPDX-License-Identifier: MIT */
/* Dead-code elimination on the SSA form, by marking: the instructions
 * with an effect besides their result (control flow, memory: the opcode
 * table's cf and mem flags) are live, and so is every write of a vreg a
 * live instruction reads (a phi reads its sources); the other
 * instructions go.  A phi nobody reads goes, and so does a loop-carried
 * cycle (a phi and the arithmetic feeding it back) that only feeds itself.
 * Vregs are live as a whole: a vector read anywhere keeps the writes of
 * all its components. */
#include <stdlib.h>
#include <string.h>
#include "vagx_ir.h"

static bool
removable(const vagx_ir_instr *I)
{
   return I->has_dst && !(vagx_info(I->op)->flags & (VAGX_OPF_CF | VAGX_OPF_MEM));
}

static void
mark(const vagx_ir_src *src, BITSET_WORD *live, bool *changed)
{
   if (src->file == IR_VREG && !BITSET_TEST(live, src->v)) {
      BITSET_SET(live, src->v);
      *changed = true;
   }
}

bool
vagx_opt_dce(vagx_ir *ir)
{
   BITSET_WORD *live = calloc(BITSET_WORDS(ir->num_vregs + 1), sizeof(BITSET_WORD));
   bool *done = calloc(ir->num_instrs + 1, sizeof(bool));
   bool changed = true, progress = false;

   /* until nothing changes: backwards, so most readers come first */
   while (changed) {
      changed = false;
      for (unsigned i = ir->num_instrs; i-- > 0;) {
         const vagx_ir_instr *I = &ir->instrs[i];
         if (done[i] || (removable(I) && !BITSET_TEST(live, I->dst)))
            continue;
         done[i] = true;
         for (unsigned s = 0; s < 3; s++)
            mark(&I->src[s], live, &changed);
         for (unsigned k = 0; k < I->phi_count; k++)
            mark(&I->phi[k].src, live, &changed);
      }
   }
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      vagx_ir_instr *I = &ir->instrs[i];
      if (done[i] || I->op == VAGX_OP_NOP)
         continue;
      memset(I, 0, sizeof(*I));
      I->op = VAGX_OP_NOP;
      progress = true;
   }
   free(live);
   free(done);

   if (progress)
      vagx_ir_remove_nops(ir);
   return progress;
}
