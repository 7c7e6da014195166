/* SPDX-License-Identifier: MIT */
/* Copy propagation and operand folding on the linear IR: the readers of
 * `mov t, x` read x itself, and those of `fmov t, -|x|` read x with the
 * composed float modifiers, wherever the ISA's operand form takes x (an
 * immediate or uniform only in u32/f32 operands; float modifiers only in
 * f32 operands).  The copies left unread go in vagx_opt_dce.
 *
 * The IR is SSA (vagx_ir.h): t is written once, by the copy, and x's
 * write dominates the copy, which dominates every reader of t; no write of
 * x can come between the copy and a reader of t (it would be a path to the
 * reader around the copy), so every reader may read x instead, in loops
 * too.  Phi sources read t at the end of their predecessor, which the copy
 * dominates as well: a plain `mov` folds into them (an immediate, uniform
 * or register is what the copy vagx_lower_phis makes can read); an fmov,
 * whose NaN canonicalisation a phi does not do, does not.
 *
 * The vregs marked `reg` (written by several copies after vagx_lower_phis)
 * are neither propagated nor propagated from.  Special registers are not
 * propagated either: the sample mask and the helper flag change with
 * discard.
 */
#include <stdlib.h>
#include "vagx_ir.h"

static unsigned
max_imm(unsigned op)
{
   const struct vagx_op_info *info = vagx_info(op);
   for (unsigned f = 0; f < info->nfields; f++)
      if (vagx_op_field(op, f)->in_ext)
         return 1; /* imm1 holds the extension fields */
   return 2;
}

static unsigned
count_imm(const vagx_ir_instr *I)
{
   unsigned n = 0;
   for (unsigned s = 0; s < 3; s++)
      n += I->src[s].file == IR_IMM;
   return n;
}

/* The operand `use` (slot s of J, reading t) rewritten to read the copy's
 * source `x` (with the copy's float modifiers when `fmov`), if J's operand
 * form takes it. */
static bool
fold(const vagx_ir_instr *J, unsigned s, const vagx_ir_src *use, const vagx_ir_instr *copy,
     vagx_ir_src *out)
{
   const unsigned kind = vagx_info(J->op)->src[s];
   const vagx_ir_src *x = &copy->src[0];
   *out = *x;
   if (kind != VAGX_SK_U32 && kind != VAGX_SK_F32)
      return false; /* vectors, addresses, cf: registers of a fixed shape */
   if (copy->op == VAGX_OP_FMOV) {
      /* fmov canonicalises NaNs: only a float operand may read x itself,
       * and not fsel's, whose selected bits pass unchanged */
      if (kind != VAGX_SK_F32 || J->op == VAGX_OP_FSEL)
         return false;
      if (x->file == IR_IMM && (x->abs || x->neg))
         return false;
      /* use(-|fmov(-|x|)|): an outer abs drops the inner sign */
      out->abs = use->abs || x->abs;
      out->neg = use->abs ? use->neg : (use->neg ^ x->neg);
   } else {
      out->abs = use->abs;
      out->neg = use->neg;
   }
   if (x->file == IR_IMM) {
      /* modifiers on an immediate would change its bits differently per
       * operand kind; one more immediate than the encoding holds would make
       * legalisation copy it back into a register for every reader */
      if (out->abs || out->neg || count_imm(J) + 1 > max_imm(J->op))
         return false;
   }
   return true;
}

bool
vagx_opt_copyprop(vagx_ir *ir)
{
   bool progress = false;
   unsigned *writes = calloc(ir->num_vregs + 1, sizeof(unsigned));

   for (unsigned i = 0; i < ir->num_instrs; i++)
      if (ir->instrs[i].has_dst)
         writes[ir->instrs[i].dst]++;

   for (unsigned i = 0; i < ir->num_instrs; i++) {
      const vagx_ir_instr *C = &ir->instrs[i];
      if ((C->op != VAGX_OP_MOV && C->op != VAGX_OP_FMOV) || C->sat)
         continue;
      const uint32_t t = C->dst;
      const vagx_ir_src *x = &C->src[0];
      if (writes[t] != 1 || ir->vregs[t].size != 1 || ir->vregs[t].reg || C->dst_comp)
         continue;
      if (x->file == IR_VREG) {
         if (ir->vregs[x->v].reg || (x->v == t))
            continue;
      } else if (x->file != IR_IMM && x->file != IR_U) {
         continue;
      }
      for (unsigned j = 0; j < ir->num_instrs; j++) {
         vagx_ir_instr *J = &ir->instrs[j];
         if (j == i)
            continue;
         for (unsigned s = 0; s < 3; s++) {
            vagx_ir_src n;
            if (J->src[s].file != IR_VREG || J->src[s].v != t ||
                !fold(J, s, &J->src[s], C, &n))
               continue;
            J->src[s] = n;
            progress = true;
         }
         for (unsigned k = 0; k < J->phi_count && C->op == VAGX_OP_MOV; k++) {
            if (J->phi[k].src.file != IR_VREG || J->phi[k].src.v != t)
               continue;
            J->phi[k].src = *x;
            progress = true;
         }
      }
   }
   free(writes);
   return progress;
}
