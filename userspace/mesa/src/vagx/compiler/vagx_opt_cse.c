/* SPDX-License-Identifier: MIT */
/* Common subexpression elimination: an instruction that computes what an
 * earlier one computed -- same opcode, modifiers, extension fields and
 * operands -- where the earlier one's block dominates it (or comes before
 * it in the same block), goes; its readers read the earlier result.
 *
 * NIR's CSE has run before selection; what is left here is what selection
 * writes more than once (the same uniform-register move, vertex-fetch
 * index arithmetic, the same conversion of a system value) and what copy
 * propagation made equal.
 *
 * Only values whose result depends on nothing but the operands:
 *  - a scalar SSA result (a whole vreg of one register, not `reg`);
 *  - no cf, mem or gfx opcode (memory, textures, varyings, the tile
 *    buffer), no derivative (fddx/fddy depend on which lanes of the quad
 *    run there);
 *  - operands that cannot change: immediates, uniforms, coefficient
 *    registers, special registers but the sample mask and the helper flag
 *    (discard changes them), vregs not marked `reg`;
 *  - not a phi (its value depends on the edge control came by).
 * Program order visits a block's dominators before it (a structured CFG
 * in program order is a reverse postorder), so one walk sees every
 * candidate before the instructions it may replace, and rewrites each
 * reader before it is itself looked up. */
#include <stdlib.h>
#include <string.h>
#include "util/hash_table.h"
#include "util/ralloc.h"
#include "vagx_ir.h"

struct cse_key {
   uint8_t op, mod, sat;
   uint32_t ext;
   vagx_ir_src src[3];
};

static struct cse_key
key_of(const vagx_ir_instr *I)
{
   struct cse_key k;
   memset(&k, 0, sizeof(k)); /* padding hashed and compared too */
   k.op = I->op;
   k.mod = I->mod;
   k.sat = I->sat;
   k.ext = I->ext;
   memcpy(k.src, I->src, sizeof(k.src));
   return k;
}

static uint32_t
key_hash(const void *key)
{
   return _mesa_hash_data(key, sizeof(struct cse_key));
}

static bool
key_equal(const void *a, const void *b)
{
   return !memcmp(a, b, sizeof(struct cse_key));
}

static bool
fixed_operand(const vagx_ir *ir, const vagx_ir_src *s)
{
   switch (s->file) {
   case IR_VREG:
      return !ir->vregs[s->v].reg;
   case IR_SR:
      return s->v != VAGX_SR_SAMPLE_MASK && s->v != VAGX_SR_HELPER;
   case IR_HWREG:
      return false;
   default:
      return true;
   }
}

static bool
candidate(const vagx_ir *ir, const vagx_ir_instr *I)
{
   const struct vagx_op_info *info = vagx_info(I->op);
   if (I->op == VAGX_IR_OP_PHI)
      return false; /* its value depends on the edge control came by */
   if (!I->has_dst || I->dst_comp || ir->vregs[I->dst].size != 1 || ir->vregs[I->dst].reg)
      return false;
   if ((info->flags & (VAGX_OPF_CF | VAGX_OPF_MEM | VAGX_OPF_GFX)) ||
       info->dst == VAGX_DK_VEC || info->dst == VAGX_DK_VEC4 || I->op == VAGX_OP_FDDX ||
       I->op == VAGX_OP_FDDY)
      return false;
   for (unsigned s = 0; s < 3; s++)
      if (!fixed_operand(ir, &I->src[s]))
         return false;
   return true;
}

bool
vagx_opt_cse(vagx_ir *ir)
{
   vagx_ir_build_cfg(ir);
   void *mem = ralloc_context(NULL);
   struct hash_table *seen = _mesa_hash_table_create(mem, key_hash, key_equal);
   /* per vreg: the vreg that replaces it, or itself */
   uint32_t *repl = ralloc_array(mem, uint32_t, MAX2(ir->num_vregs, 1));
   for (unsigned v = 0; v < ir->num_vregs; v++)
      repl[v] = v;
   bool progress = false;

   for (unsigned b = 0; b < ir->num_blocks; b++) {
      for (unsigned i = ir->blocks[b].start; i < ir->blocks[b].end; i++) {
         vagx_ir_instr *I = &ir->instrs[i];
         for (unsigned s = 0; s < 3; s++)
            if (I->src[s].file == IR_VREG)
               I->src[s].v = repl[I->src[s].v];
         if (!candidate(ir, I))
            continue;
         struct cse_key *k = ralloc(mem, struct cse_key);
         *k = key_of(I);
         struct hash_entry *e = _mesa_hash_table_search(seen, k);
         if (e) {
            const unsigned j = (unsigned)(uintptr_t)e->data;
            if (vagx_block_dominates(ir, vagx_ir_block_of(ir, j), b)) {
               repl[I->dst] = ir->instrs[j].dst;
               memset(I, 0, sizeof(*I));
               I->op = VAGX_OP_NOP;
               progress = true;
               continue;
            }
            /* not on every path here: later instructions this one
             * dominates find it instead */
            e->data = (void *)(uintptr_t)i;
            continue;
         }
         _mesa_hash_table_insert(seen, k, (void *)(uintptr_t)i);
      }
   }
   /* phi sources on back edges read values the walk reached after the
    * phi: rewritten once every replacement is known */
   for (unsigned i = 0; progress && i < ir->num_instrs; i++) {
      vagx_ir_instr *I = &ir->instrs[i];
      for (unsigned k = 0; k < I->phi_count; k++)
         if (I->phi[k].src.file == IR_VREG)
            I->phi[k].src.v = repl[I->phi[k].src.v];
   }
   ralloc_free(mem);
   if (progress)
      vagx_ir_remove_nops(ir);
   return progress;
}
