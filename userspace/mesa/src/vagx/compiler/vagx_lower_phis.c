/* SPDX-License-Identifier: MIT */
/* Out of SSA: every phi becomes copies at the ends of its block's
 * predecessors, before their terminators, so register allocation and
 * spilling see what NIR registers used to give them (a destination
 * written by several movs, marked `reg`).
 *
 * The copies into the phis of one block, from one predecessor, happen at
 * once (a parallel copy): after copy propagation a phi may read another
 * phi of the same block (the loop-carried swap `a = phi(a0, b), b = phi(b0,
 * a)`), and copying one after the other would read a value already
 * overwritten.  They are sequentialised as in Boissinot et al., "Revisiting
 * Out-of-SSA Translation" (CGO 2009): a copy goes once no other pending
 * copy reads its destination; when none can (the rest are cycles), one
 * destination is saved in a new vreg and its readers read that.
 *
 * A predecessor with two successors (an if without else, whose not-taken
 * edge goes to the join) runs the copies for the lanes of both edges: the
 * other edge does not need the destinations (they are the successor's
 * phis, defined only where they join; vagx_validate.c rejects the one case
 * where they would be, a phi of a loop header fed by a conditional
 * continue).  Predecessors no lane reaches get no copies.
 *
 * Then the copies are coalesced, as nir_convert_from_ssa's phi webs were:
 * a copy `mov p, x` into a phi destination from a scalar vreg x goes, x
 * renamed p, when the two never hold different values at once -- neither
 * is live where the other is written (Chaitin's interference, on the
 * liveness of the lowered program, the copies between them excepted).
 * Without it, a phi whose source is written after the phi's other copies
 * (the value of a then side, a loop's next iteration) keeps its mov:
 * register allocation's copy hints only help a copy whose source it
 * allocated first.  Copies in deeper loops are tried first. */
#include <stdlib.h>
#include <string.h>
#include "util/ralloc.h"
#include "vagx_ir.h"

struct pcopy {
   uint32_t dst;
   vagx_ir_src src;
   bool done;
};

static bool
reads(const vagx_ir_src *s, uint32_t v)
{
   return s->file == IR_VREG && s->v == v;
}

/* Emit the parallel copy `copies` (destinations distinct scalar vregs)
 * as a sequence of movs. */
static void
sequentialise(vagx_ir *ir, struct pcopy *copies, unsigned n)
{
   unsigned left = 0;
   for (unsigned k = 0; k < n; k++) {
      /* a self-copy (a phi reading itself on a back edge) moves nothing */
      copies[k].done = reads(&copies[k].src, copies[k].dst) && copies[k].src.comp == 0;
      left += !copies[k].done;
   }
   while (left) {
      bool progress = false;
      for (unsigned k = 0; k < n; k++) {
         if (copies[k].done)
            continue;
         bool blocked = false;
         for (unsigned j = 0; j < n && !blocked; j++)
            blocked = j != k && !copies[j].done && reads(&copies[j].src, copies[k].dst);
         if (blocked)
            continue;
         vagx_ir_emit(ir, VAGX_OP_MOV, copies[k].dst, 0, copies[k].src, ir_none(), ir_none());
         copies[k].done = true;
         left--;
         progress = true;
      }
      if (progress || !left)
         continue;
      /* only cycles left: save one destination, which frees its copy */
      unsigned k = 0;
      while (copies[k].done)
         k++;
      const uint32_t tmp = vagx_ir_new_vreg(ir, 1);
      vagx_ir_emit(ir, VAGX_OP_MOV, tmp, 0, ir_vreg(copies[k].dst, 0), ir_none(), ir_none());
      for (unsigned j = 0; j < n; j++)
         if (!copies[j].done && reads(&copies[j].src, copies[k].dst))
            copies[j].src.v = tmp;
   }
}

struct cand {
   unsigned depth;
   uint32_t dst, src;
};

static int
cmp_cand(const void *a, const void *b)
{
   const struct cand *x = a, *y = b;
   if (x->depth != y->depth)
      return x->depth > y->depth ? -1 : 1;
   return x->dst != y->dst ? (x->dst < y->dst ? -1 : 1) : (x->src < y->src ? -1 : x->src > y->src);
}

static bool
is_cand_copy(const vagx_ir *ir, const vagx_ir_instr *I, const bool *phi_dst)
{
   const vagx_ir_src *x = &I->src[0];
   return I->op == VAGX_OP_MOV && I->has_dst && phi_dst[I->dst] && !I->sat &&
          x->file == IR_VREG && x->comp == 0 && !x->abs && !x->neg &&
          ir->vregs[x->v].size == 1 && x->v != I->dst;
}

static unsigned
find(unsigned *parent, unsigned a)
{
   while (parent[a] != a)
      a = parent[a] = parent[parent[a]];
   return a;
}

static void
coalesce(vagx_ir *ir, const bool *phi_dst)
{
   const unsigned nv = ir->num_vregs;
   int *ridx = malloc(MAX2(nv, 1) * sizeof(int));
   memset(ridx, 0xff, MAX2(nv, 1) * sizeof(int));
   uint32_t *rv = malloc(2 * ir->num_instrs * sizeof(uint32_t) + sizeof(uint32_t));
   struct util_dynarray cands;
   util_dynarray_init(&cands, NULL);
   unsigned nr = 0;
   for (unsigned b = 0; b < ir->num_blocks; b++) {
      for (unsigned i = ir->blocks[b].start; i < ir->blocks[b].end; i++) {
         const vagx_ir_instr *I = &ir->instrs[i];
         if (!is_cand_copy(ir, I, phi_dst))
            continue;
         const uint32_t v[2] = { I->dst, I->src[0].v };
         for (unsigned k = 0; k < 2; k++)
            if (ridx[v[k]] < 0) {
               ridx[v[k]] = nr;
               rv[nr++] = v[k];
            }
         struct cand c = { ir->blocks[b].loop_depth, I->dst, I->src[0].v };
         util_dynarray_append(&cands, struct cand, c);
      }
   }
   if (!nr) {
      util_dynarray_fini(&cands);
      free(ridx);
      free(rv);
      return;
   }

   /* interference among the vregs of the candidates: at every write of
    * one, with those live after it (the copy's source excepted) */
   vagx_liveness(ir);
   const unsigned rw = BITSET_WORDS(nr), lw = BITSET_WORDS(MAX2(nv, 1));
   BITSET_WORD *intf = calloc((size_t)nr * rw, sizeof(BITSET_WORD));
   BITSET_WORD *live = malloc(lw * sizeof(BITSET_WORD));
   for (unsigned b = 0; b < ir->num_blocks; b++) {
      const vagx_block *B = &ir->blocks[b];
      memcpy(live, B->live_out, lw * sizeof(BITSET_WORD));
      for (unsigned i = B->end; i-- > B->start;) {
         const vagx_ir_instr *I = &ir->instrs[i];
         if (I->has_dst && ridx[I->dst] >= 0) {
            const unsigned d = ridx[I->dst];
            const bool copy = I->op == VAGX_OP_MOV && I->src[0].file == IR_VREG;
            for (unsigned k = 0; k < nr; k++) {
               if (k == d || !BITSET_TEST(live, rv[k]) || (copy && I->src[0].v == rv[k]))
                  continue;
               BITSET_SET(intf + (size_t)d * rw, k);
               BITSET_SET(intf + (size_t)k * rw, d);
            }
            BITSET_CLEAR(live, I->dst);
         }
         for (unsigned s = 0; s < 3; s++)
            if (I->src[s].file == IR_VREG)
               BITSET_SET(live, I->src[s].v);
      }
   }
   free(live);

   /* merge the sets of a candidate's two vregs unless a member of one
    * interferes with a member of the other; a root's row holds every
    * vreg interfering with a member of its set */
   unsigned *parent = malloc(nr * sizeof(unsigned));
   for (unsigned k = 0; k < nr; k++)
      parent[k] = k;
   qsort(util_dynarray_begin(&cands), util_dynarray_num_elements(&cands, struct cand),
         sizeof(struct cand), cmp_cand);
   bool merged = false;
   util_dynarray_foreach(&cands, struct cand, c) {
      const unsigned a = find(parent, ridx[c->dst]), b = find(parent, ridx[c->src]);
      if (a == b)
         continue;
      bool conflict = false;
      unsigned k;
      BITSET_FOREACH_SET(k, intf + (size_t)a * rw, nr) {
         if (find(parent, k) == b) {
            conflict = true;
            break;
         }
      }
      if (conflict)
         continue;
      parent[b] = a;
      BITSET_FOREACH_SET(k, intf + (size_t)b * rw, nr) {
         BITSET_SET(intf + (size_t)a * rw, k);
         BITSET_SET(intf + (size_t)k * rw, a);
      }
      merged = true;
   }

   if (merged) {
      /* every member takes its root's name (a phi destination's when the
       * set has one, which candidates always put first); the copies
       * between members move a register into itself and go */
      for (unsigned i = 0; i < ir->num_instrs; i++) {
         vagx_ir_instr *I = &ir->instrs[i];
         if (I->has_dst && ridx[I->dst] >= 0)
            I->dst = rv[find(parent, ridx[I->dst])];
         for (unsigned s = 0; s < 3; s++)
            if (I->src[s].file == IR_VREG && ridx[I->src[s].v] >= 0)
               I->src[s].v = rv[find(parent, ridx[I->src[s].v])];
         if (I->op == VAGX_OP_MOV && I->src[0].file == IR_VREG && I->src[0].v == I->dst &&
             I->src[0].comp == I->dst_comp && !I->src[0].abs && !I->src[0].neg && !I->sat) {
            memset(I, 0, sizeof(*I));
            I->op = VAGX_OP_NOP;
         }
      }
      for (unsigned k = 0; k < nr; k++)
         if (find(parent, k) != k)
            ir->vregs[rv[find(parent, k)]].reg = true; /* written by several */
      vagx_ir_remove_nops(ir);
   }
   free(parent);
   free(intf);
   free(ridx);
   free(rv);
   util_dynarray_fini(&cands);
}

bool
vagx_lower_phis(vagx_ir *ir)
{
   bool any = false;
   for (unsigned i = 0; i < ir->num_instrs && !any; i++)
      any = ir->instrs[i].op == VAGX_IR_OP_PHI;
   if (!any)
      return false;

   /* per block: the copies into its successors' phis */
   const unsigned nb = ir->num_blocks;
   struct util_dynarray *out = calloc(MAX2(nb, 1), sizeof(*out));
   for (unsigned b = 0; b < nb; b++)
      util_dynarray_init(&out[b], NULL);
   bool *phi_dst = calloc(ir->num_vregs + 1, sizeof(bool));
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      const vagx_ir_instr *I = &ir->instrs[i];
      if (I->op != VAGX_IR_OP_PHI)
         continue;
      ir->vregs[I->dst].reg = true;
      phi_dst[I->dst] = true;
      for (unsigned k = 0; k < I->phi_count; k++) {
         const unsigned p = I->phi[k].pred;
         if (!ir->blocks[p].reachable)
            continue;
         struct pcopy c = { I->dst, I->phi[k].src, false };
         util_dynarray_append(&out[p], struct pcopy, c);
      }
   }

   vagx_ir old = *ir;
   ir->instrs = NULL;
   ir->num_instrs = ir->cap_instrs = 0;
   for (unsigned b = 0; b < nb; b++) {
      const vagx_block *B = &old.blocks[b];
      for (unsigned i = B->start; i < B->end; i++) {
         const vagx_ir_instr *I = &old.instrs[i];
         if (I->op == VAGX_IR_OP_PHI)
            continue;
         if (i == B->end - 1 && vagx_is_terminator(I))
            sequentialise(ir, util_dynarray_begin(&out[b]),
                          util_dynarray_num_elements(&out[b], struct pcopy));
         vagx_ir_emit(ir, 0, -1, 0, ir_none(), ir_none(), ir_none());
         ir->instrs[ir->num_instrs - 1] = *I;
      }
      util_dynarray_fini(&out[b]);
   }
   free(out);
   free(old.instrs);
   ralloc_free(ir->phi_mem);
   ir->phi_mem = NULL;
   vagx_ir_build_cfg(ir);
   /* (the temporaries of cycles are no phi destinations) */
   const unsigned old_nv = old.num_vregs;
   phi_dst = realloc(phi_dst, (ir->num_vregs + 1) * sizeof(bool));
   memset(phi_dst + old_nv, 0, (ir->num_vregs + 1 - old_nv) * sizeof(bool));
   coalesce(ir, phi_dst);
   free(phi_dst);
   return true;
}
