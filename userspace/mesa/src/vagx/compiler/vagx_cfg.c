/* SPDX-License-Identifier: MIT */
/* The control-flow graph of the IR: basic blocks over the instruction
 * array, their edges and dominators, and a printer.
 *
 * The ISA's control flow is structured (the cf group of vagx_isa.xml): the
 * device keeps a mask stack and finds the target of if/else/break/continue/
 * endloop by nesting.  Registers are per lane and every write is masked, so
 * what a lane sees is the scalar control flow below, which is what the
 * edges describe:
 *  - if:       the then block (next) and the block after the matching else,
 *              or after the matching endif when there is no else;
 *  - else:     the block after the matching endif (end of the then side);
 *  - endif, loop: the next block;
 *  - break:    the block after the matching endloop (.cond: and the next);
 *  - continue: the loop header, the block after the matching loop (.cond:
 *              and the next);
 *  - endloop:  the loop header (back edge) only: a lane active at endloop
 *              runs the body again; lanes leave the loop through break
 *              (the device pops the loop when no lane is active any more,
 *              and the lanes that broke go on after endloop);
 *  - end:      none.
 * A block's predecessors are listed in ascending block order (edges are
 * added source by source), which is the order of its phis' sources: a join
 * after if/else/endif lists the then side's end first, an if without else
 * its own block first; a loop header the block of `loop`, the continues,
 * then the endloop.
 * Every block ends with one of these; blocks start after each of them, so
 * every target is a block start.  A block after an unconditional break or
 * continue (the endif or else that follows it) has no predecessor: it is
 * kept, marked unreachable. */
#include <stdlib.h>
#include <string.h>
#include "util/ralloc.h"
#include "vagx_ir.h"

bool
vagx_is_terminator(const vagx_ir_instr *I)
{
   switch (I->op) {
   case VAGX_OP_IF:
   case VAGX_OP_ELSE:
   case VAGX_OP_ENDIF:
   case VAGX_OP_LOOP:
   case VAGX_OP_ENDLOOP:
   case VAGX_OP_BREAK:
   case VAGX_OP_CONTINUE:
   case VAGX_OP_END:
      return true;
   default:
      return false;
   }
}

static void
add_edge(vagx_ir *ir, unsigned from, unsigned to)
{
   vagx_block *b = &ir->blocks[from];
   for (unsigned s = 0; s < b->num_succs; s++)
      if (b->succs[s] == to)
         return;
   assert(b->num_succs < 2);
   b->succs[b->num_succs++] = to;
   util_dynarray_append(&ir->blocks[to].preds, unsigned, from);
}

unsigned
vagx_ir_block_of(const vagx_ir *ir, unsigned instr)
{
   unsigned lo = 0, hi = ir->num_blocks;
   while (hi - lo > 1) {
      unsigned mid = (lo + hi) / 2;
      if (ir->blocks[mid].start <= instr)
         lo = mid;
      else
         hi = mid;
   }
   return lo;
}

bool
vagx_block_dominates(const vagx_ir *ir, unsigned a, unsigned b)
{
   if (!ir->blocks[b].reachable)
      return true; /* nothing to check in code no lane runs */
   for (int x = b; x >= 0; x = ir->blocks[x].idom)
      if ((unsigned)x == a)
         return true;
   return false;
}

/* Cooper, Harvey and Kennedy's iterative dominators.  Program order is a
 * reverse postorder of a structured CFG (every edge but the back edges of
 * continue/endloop goes forward), so block indices order the walk. */
static void
dominators(vagx_ir *ir)
{
   for (unsigned b = 0; b < ir->num_blocks; b++)
      ir->blocks[b].idom = -1;
   bool changed = true;
   while (changed) {
      changed = false;
      for (unsigned b = 1; b < ir->num_blocks; b++) {
         vagx_block *B = &ir->blocks[b];
         if (!B->reachable)
            continue;
         int idom = -1;
         util_dynarray_foreach(&B->preds, unsigned, p) {
            if (!ir->blocks[*p].reachable || (*p != 0 && ir->blocks[*p].idom < 0))
               continue; /* not processed yet */
            if (idom < 0) {
               idom = *p;
               continue;
            }
            int x = *p, y = idom;
            while (x != y) {
               while (x > y)
                  x = ir->blocks[x].idom;
               while (y > x)
                  y = ir->blocks[y].idom;
            }
            idom = x;
         }
         if (idom != B->idom) {
            B->idom = idom;
            changed = true;
         }
      }
   }
}

void
vagx_ir_build_cfg(vagx_ir *ir)
{
   ralloc_free(ir->cfg_mem);
   ir->cfg_mem = ralloc_context(NULL);
   ir->live_valid = false;

   /* one block per terminator (the program ends with end) */
   unsigned n = 0;
   for (unsigned i = 0; i < ir->num_instrs; i++)
      n += vagx_is_terminator(&ir->instrs[i]) || i == ir->num_instrs - 1;
   ir->num_blocks = n;
   ir->blocks = rzalloc_array(ir->cfg_mem, vagx_block, MAX2(n, 1));
   unsigned b = 0, start = 0;
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      if (!vagx_is_terminator(&ir->instrs[i]) && i != ir->num_instrs - 1)
         continue;
      vagx_block *B = &ir->blocks[b];
      B->index = b;
      B->start = start;
      B->end = i + 1;
      util_dynarray_init(&B->preds, ir->cfg_mem);
      start = i + 1;
      b++;
   }

   /* Targets by nesting: the block opened by the construct's instructions
    * (block of the if/loop, of its else, of its endif/endloop). */
   unsigned *stack = malloc((n + 1) * sizeof(unsigned));
   unsigned *else_of = malloc((n + 1) * sizeof(unsigned));
   unsigned *match = malloc((n + 1) * sizeof(unsigned)); /* if/else/loop -> endif/endloop */
   unsigned *loop_of = malloc((n + 1) * sizeof(unsigned)); /* break/continue -> loop */
   unsigned depth = 0, loops = 0;
   unsigned *loop_stack = malloc((n + 1) * sizeof(unsigned));
   for (unsigned k = 0; k < n; k++) {
      const vagx_ir_instr *T = &ir->instrs[ir->blocks[k].end - 1];
      else_of[k] = match[k] = loop_of[k] = ~0u;
      ir->blocks[k].loop_depth = loops;
      switch (T->op) {
      case VAGX_OP_IF:
         stack[depth++] = k;
         break;
      case VAGX_OP_LOOP:
         stack[depth++] = k;
         loop_stack[loops++] = k;
         break;
      case VAGX_OP_ELSE:
         if (depth)
            else_of[stack[depth - 1]] = k;
         break;
      case VAGX_OP_ENDIF:
      case VAGX_OP_ENDLOOP:
         if (!depth)
            break; /* unbalanced: the validator reports it */
         match[stack[--depth]] = k;
         if (T->op == VAGX_OP_ENDLOOP && loops) {
            loops--;
            match[k] = loop_stack[loops]; /* endloop -> its loop */
         }
         break;
      case VAGX_OP_BREAK:
      case VAGX_OP_CONTINUE:
         if (loops)
            loop_of[k] = loop_stack[loops - 1];
         break;
      default:
         break;
      }
   }
   /* an else's matching endif is its if's */
   for (unsigned k = 0; k < n; k++)
      if (else_of[k] != ~0u)
         match[else_of[k]] = match[k];

   for (unsigned k = 0; k < n; k++) {
      const vagx_ir_instr *T = &ir->instrs[ir->blocks[k].end - 1];
      const bool last = k + 1 == n;
      switch (T->op) {
      case VAGX_OP_END:
         break;
      case VAGX_OP_IF:
         if (!last)
            add_edge(ir, k, k + 1);
         if (else_of[k] != ~0u && else_of[k] + 1 < n)
            add_edge(ir, k, else_of[k] + 1);
         else if (match[k] != ~0u && match[k] + 1 < n)
            add_edge(ir, k, match[k] + 1);
         break;
      case VAGX_OP_ELSE:
         if (match[k] != ~0u && match[k] + 1 < n)
            add_edge(ir, k, match[k] + 1);
         break;
      case VAGX_OP_ENDLOOP:
         if (match[k] != ~0u && match[k] + 1 < n)
            add_edge(ir, k, match[k] + 1);
         break;
      case VAGX_OP_BREAK:
      case VAGX_OP_CONTINUE:
         if (loop_of[k] != ~0u) {
            unsigned target = T->op == VAGX_OP_BREAK ? match[loop_of[k]] + 1 : loop_of[k] + 1;
            if (T->op == VAGX_OP_CONTINUE || match[loop_of[k]] != ~0u)
               if (target < n)
                  add_edge(ir, k, target);
         }
         if ((T->mod & 1) && !last) /* .cond: lanes that stay */
            add_edge(ir, k, k + 1);
         break;
      default: /* endif, loop, or the last instruction of a program without end */
         if (!last)
            add_edge(ir, k, k + 1);
         break;
      }
   }
   free(stack);
   free(else_of);
   free(match);
   free(loop_of);
   free(loop_stack);

   /* reachability from the entry */
   unsigned *work = malloc((n + 1) * sizeof(unsigned));
   unsigned nwork = 0;
   if (n) {
      ir->blocks[0].reachable = true;
      work[nwork++] = 0;
   }
   while (nwork) {
      vagx_block *B = &ir->blocks[work[--nwork]];
      for (unsigned s = 0; s < B->num_succs; s++) {
         if (!ir->blocks[B->succs[s]].reachable) {
            ir->blocks[B->succs[s]].reachable = true;
            work[nwork++] = B->succs[s];
         }
      }
   }
   free(work);
   dominators(ir);
}

static void
print_src(FILE *fp, const vagx_ir_src *s)
{
   const char *neg = s->neg ? "-" : "", *abs = s->abs ? "|" : "";
   switch (s->file) {
   case IR_VREG:
      fprintf(fp, "%s%sv%u.%u%s", neg, abs, s->v, s->comp, abs);
      break;
   case IR_HWREG:
      fprintf(fp, "%s%sr%u%s", neg, abs, s->v, abs);
      break;
   case IR_U:
      fprintf(fp, "%s%su%u%s", neg, abs, s->v, abs);
      break;
   case IR_SR:
      fprintf(fp, "%s%ssr%u%s", neg, abs, s->v, abs);
      break;
   case IR_CF:
      fprintf(fp, "cf%u", s->v);
      break;
   case IR_IMM:
      fprintf(fp, "%s%s#0x%x%s", neg, abs, s->v, abs);
      break;
   default:
      fprintf(fp, "_");
      break;
   }
}

void
vagx_ir_print_instr(FILE *fp, const vagx_ir *ir, const vagx_ir_instr *I)
{
   if (I->op == VAGX_IR_OP_PHI) {
      fprintf(fp, "phi v%u.0", I->dst);
      for (unsigned k = 0; k < I->phi_count; k++) {
         fprintf(fp, "%s[b%u: ", k ? ", " : " ", I->phi[k].pred);
         print_src(fp, &I->phi[k].src);
         fprintf(fp, "]");
      }
      return;
   }
   const struct vagx_op_info *info = vagx_info(I->op);
   fprintf(fp, "%s", info->name ? info->name : "?");
   if (I->mod)
      fprintf(fp, ".m%u", I->mod);
   if (I->sat)
      fprintf(fp, ".sat");
   bool first = true;
   if (I->has_dst) {
      fprintf(fp, " v%u.%u%s", I->dst, I->dst_comp,
              I->dst < ir->num_vregs && ir->vregs[I->dst].reg ? "(reg)" : "");
      first = false;
   }
   for (unsigned s = 0; s < 3; s++) {
      if (I->src[s].file == IR_NONE)
         continue;
      fprintf(fp, first ? " " : ", ");
      print_src(fp, &I->src[s]);
      first = false;
   }
   if (I->ext)
      fprintf(fp, " ext=0x%x", I->ext);
}

static void
print_set(FILE *fp, const char *name, const BITSET_WORD *set, unsigned n)
{
   fprintf(fp, "   %s:", name);
   unsigned v;
   BITSET_FOREACH_SET(v, set, n)
      fprintf(fp, " v%u", v);
   fprintf(fp, "\n");
}

void
vagx_ir_print(FILE *fp, const vagx_ir *ir)
{
   for (unsigned b = 0; b < ir->num_blocks; b++) {
      const vagx_block *B = &ir->blocks[b];
      fprintf(fp, "block %u (depth %u, idom %d)%s  <-", b, B->loop_depth, B->idom,
              B->reachable ? "" : " unreachable");
      util_dynarray_foreach(&B->preds, unsigned, p)
         fprintf(fp, " %u", *p);
      fprintf(fp, "  ->");
      for (unsigned s = 0; s < B->num_succs; s++)
         fprintf(fp, " %u", B->succs[s]);
      fprintf(fp, "\n");
      if (ir->live_valid)
         print_set(fp, "live in", B->live_in, ir->num_vregs);
      for (unsigned i = B->start; i < B->end; i++) {
         fprintf(fp, "   %4u: ", i);
         vagx_ir_print_instr(fp, ir, &ir->instrs[i]);
         fprintf(fp, "\n");
      }
      if (ir->live_valid)
         print_set(fp, "live out", B->live_out, ir->num_vregs);
   }
}
