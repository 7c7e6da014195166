/* SPDX-License-Identifier: MIT */
/* Copy propagation and operand folding on the linear IR: the readers of
 * `mov t, x` read x itself, and those of `fmov t, -|x|` read x with the
 * composed float modifiers, wherever the ISA's operand form takes x (an
 * immediate or uniform only in u32/f32 operands; float modifiers only in
 * f32 operands).  The copies left unread go in vagx_opt_dce.
 *
 * The IR is not SSA: NIR registers (phis, loop-carried values) are vregs
 * written more than once.  A copy is propagated only when that is exact
 * without dataflow analysis:
 *  - t is written once, by the copy, as a whole scalar, and is not a NIR
 *    register (whose single write need not dominate its reads);
 *  - x cannot change after the copy ran: an immediate or uniform, or a vreg
 *    written once, before the copy;
 *  - the copy is outside every loop, so it runs at most once and x's
 *    single write, earlier in program order, has run its last time (a copy
 *    inside a loop could be skipped in a later iteration while x is
 *    rewritten: its readers would see the new x instead of the old copy).
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
   int *def = malloc((ir->num_vregs + 1) * sizeof(int));

   for (unsigned i = 0; i < ir->num_instrs; i++) {
      if (ir->instrs[i].has_dst) {
         writes[ir->instrs[i].dst]++;
         def[ir->instrs[i].dst] = i;
      }
   }

   unsigned loop_depth = 0;
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      const vagx_ir_instr *C = &ir->instrs[i];
      loop_depth += C->op == VAGX_OP_LOOP;
      loop_depth -= C->op == VAGX_OP_ENDLOOP;
      if ((C->op != VAGX_OP_MOV && C->op != VAGX_OP_FMOV) || C->sat || loop_depth)
         continue;
      const uint32_t t = C->dst;
      const vagx_ir_src *x = &C->src[0];
      /* a NIR register written once is still not SSA: its one write may
       * sit in a branch its readers after the branch do not need (a phi
       * with an undefined source, e.g. the result of an atomic that
       * helper invocations skip), so x's write need not dominate them */
      if (writes[t] != 1 || ir->vregs[t].size != 1 || ir->vregs[t].reg || C->dst_comp)
         continue;
      if (x->file == IR_VREG) {
         if (writes[x->v] != 1 || def[x->v] >= (int)i)
            continue;
      } else if (x->file != IR_IMM && x->file != IR_U) {
         continue;
      }
      for (unsigned j = i + 1; j < ir->num_instrs; j++) {
         vagx_ir_instr *J = &ir->instrs[j];
         for (unsigned s = 0; s < 3; s++) {
            vagx_ir_src n;
            if (J->src[s].file != IR_VREG || J->src[s].v != t ||
                !fold(J, s, &J->src[s], C, &n))
               continue;
            J->src[s] = n;
            progress = true;
         }
      }
   }
   free(writes);
   free(def);
   return progress;
}
