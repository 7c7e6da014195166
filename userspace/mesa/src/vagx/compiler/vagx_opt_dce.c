/* SPDX-License-Identifier: MIT */
/* Dead-code elimination on the linear IR: an instruction whose destination
 * no instruction reads goes, unless it has an effect besides its result
 * (control flow, memory: the opcode table's cf and mem flags).  Registers
 * NIR could not keep in SSA form are written more than once, so liveness is
 * per virtual register, not per write: a vreg read anywhere keeps all its
 * writes.  That is exact for what the passes before leave behind (copies
 * copy-propagation made unread, selection's unused components). */
#include <stdlib.h>
#include <string.h>
#include "vagx_ir.h"

static bool
removable(const vagx_ir_instr *I)
{
   return I->has_dst && !(vagx_info(I->op)->flags & (VAGX_OPF_CF | VAGX_OPF_MEM));
}

bool
vagx_opt_dce(vagx_ir *ir)
{
   bool progress = false, again = true;
   unsigned *reads = calloc(ir->num_vregs + 1, sizeof(unsigned));

   for (unsigned i = 0; i < ir->num_instrs; i++)
      for (unsigned s = 0; s < 3; s++)
         if (ir->instrs[i].src[s].file == IR_VREG)
            reads[ir->instrs[i].src[s].v]++;

   /* Removing an instruction drops its reads, which can kill the
    * instructions feeding it: walk backwards (uses come after defs outside
    * loops) until nothing changes. */
   while (again) {
      again = false;
      for (unsigned i = ir->num_instrs; i-- > 0;) {
         vagx_ir_instr *I = &ir->instrs[i];
         if (I->op == VAGX_OP_NOP || !removable(I) || reads[I->dst])
            continue;
         for (unsigned s = 0; s < 3; s++)
            if (I->src[s].file == IR_VREG)
               reads[I->src[s].v]--;
         memset(I, 0, sizeof(*I));
         I->op = VAGX_OP_NOP;
         again = progress = true;
      }
   }
   free(reads);

   if (progress)
      vagx_ir_remove_nops(ir);
   return progress;
}
