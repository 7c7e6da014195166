/* SPDX-License-Identifier: MIT */
/* Liveness: the vregs live at the entry and exit of every block, by the
 * standard backward data-flow fixpoint over the CFG,
 *
 *    live_out(b) = U live_in(s) over the successors s of b
 *    live_in(b)  = use(b) U (live_out(b) - kill(b))
 *
 * with use(b) the vregs b reads before it writes them and kill(b) the vregs
 * b writes whole.  Vregs are tracked whole (a vector vreg is allocated as a
 * whole).  A write kills when it covers the vreg, or when the vreg is SSA
 * and every write of it is in this block (a vector built component by
 * component: nothing reads it before the block writes it, by dominance).
 *
 * A `reg` vreg (a phi destination after vagx_lower_phis) is written in
 * several blocks; a partial write of one would not kill, and one that a
 * path leaves unwritten (a phi's predecessor no lane reaches gets no copy)
 * would be live up to the entry.  As in other Mesa backends, a forward
 * fixpoint of the vregs some write reaches,
 *
 *    def_in(b)  = U def_out(p) over the predecessors p of b
 *    def_out(b) = def_in(b) U written(b)
 *
 * trims that: live_in &= def_in, live_out &= def_out (before any write a
 * vreg holds nothing anyone needs). */
#include <stdlib.h>
#include <string.h>
#include "util/ralloc.h"
#include "vagx_ir.h"

void
vagx_liveness(vagx_ir *ir)
{
   const unsigned nb = ir->num_blocks, nv = ir->num_vregs;
   const unsigned words = BITSET_WORDS(MAX2(nv, 1));
   void *mem = ralloc_context(ir->cfg_mem);

   /* the block of every SSA vreg's writes, ~0u when in several */
   unsigned *def_block = ralloc_array(mem, unsigned, MAX2(nv, 1));
   memset(def_block, 0xff, MAX2(nv, 1) * sizeof(unsigned));
   bool *multi = rzalloc_array(mem, bool, MAX2(nv, 1));
   for (unsigned b = 0; b < nb; b++) {
      for (unsigned i = ir->blocks[b].start; i < ir->blocks[b].end; i++) {
         const vagx_ir_instr *I = &ir->instrs[i];
         if (!I->has_dst)
            continue;
         if (def_block[I->dst] != ~0u && def_block[I->dst] != b)
            multi[I->dst] = true;
         def_block[I->dst] = b;
      }
   }

   BITSET_WORD **use = ralloc_array(mem, BITSET_WORD *, MAX2(nb, 1));
   BITSET_WORD **kill = ralloc_array(mem, BITSET_WORD *, MAX2(nb, 1));
   BITSET_WORD **written = ralloc_array(mem, BITSET_WORD *, MAX2(nb, 1));
   BITSET_WORD **def_in = ralloc_array(mem, BITSET_WORD *, MAX2(nb, 1));
   BITSET_WORD **def_out = ralloc_array(mem, BITSET_WORD *, MAX2(nb, 1));
   for (unsigned b = 0; b < nb; b++) {
      vagx_block *B = &ir->blocks[b];
      use[b] = rzalloc_array(mem, BITSET_WORD, words);
      kill[b] = rzalloc_array(mem, BITSET_WORD, words);
      written[b] = rzalloc_array(mem, BITSET_WORD, words);
      def_in[b] = rzalloc_array(mem, BITSET_WORD, words);
      def_out[b] = rzalloc_array(mem, BITSET_WORD, words);
      B->live_in = rzalloc_array(ir->cfg_mem, BITSET_WORD, words);
      B->live_out = rzalloc_array(ir->cfg_mem, BITSET_WORD, words);
      for (unsigned i = B->start; i < B->end; i++) {
         const vagx_ir_instr *I = &ir->instrs[i];
         for (unsigned s = 0; s < 3; s++)
            if (I->src[s].file == IR_VREG && !BITSET_TEST(kill[b], I->src[s].v))
               BITSET_SET(use[b], I->src[s].v);
         if (!I->has_dst)
            continue;
         const vagx_vreg *r = &ir->vregs[I->dst];
         BITSET_SET(written[b], I->dst);
         if ((I->dst_comp == 0 && vagx_ir_dst_regs(I) >= r->size) || (!r->reg && !multi[I->dst]))
            BITSET_SET(kill[b], I->dst);
      }
   }

   /* forward: which vregs some write reaches */
   bool changed = true;
   while (changed) {
      changed = false;
      for (unsigned b = 0; b < nb; b++) {
         vagx_block *B = &ir->blocks[b];
         util_dynarray_foreach(&B->preds, unsigned, p)
            __bitset_or(def_in[b], def_in[b], def_out[*p], words);
         for (unsigned w = 0; w < words; w++) {
            BITSET_WORD out = def_in[b][w] | written[b][w];
            if (out != def_out[b][w]) {
               def_out[b][w] = out;
               changed = true;
            }
         }
      }
   }

   /* backward: live_in/live_out, blocks in reverse program order */
   changed = true;
   while (changed) {
      changed = false;
      for (unsigned b = nb; b-- > 0;) {
         vagx_block *B = &ir->blocks[b];
         for (unsigned s = 0; s < B->num_succs; s++)
            __bitset_or(B->live_out, B->live_out, ir->blocks[B->succs[s]].live_in, words);
         for (unsigned w = 0; w < words; w++) {
            BITSET_WORD in = use[b][w] | (B->live_out[w] & ~kill[b][w]);
            if (in != B->live_in[w]) {
               B->live_in[w] = in;
               changed = true;
            }
         }
      }
   }

   for (unsigned b = 0; b < nb; b++) {
      __bitset_and(ir->blocks[b].live_in, ir->blocks[b].live_in, def_in[b], words);
      __bitset_and(ir->blocks[b].live_out, ir->blocks[b].live_out, def_out[b], words);
   }
   ralloc_free(mem);
   ir->live_valid = true;
}
