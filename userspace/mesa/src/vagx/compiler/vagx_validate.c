/* SPDX-License-Identifier: MIT */
/* IR validator: checks the invariants every backend pass relies on, from
 * the ISA generator's opcode table (vagx_isa.xml), so a pass that breaks
 * one is caught right after it runs (vagx_ir_finish, debug builds) rather
 * than as a wrong image or a failed encoding later. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "util/ralloc.h"
#include "vagx_ir.h"

/* marks a uniform construct in validate()'s stack of opcodes */
#define UNIFORM_BIT 0x80

struct vctx {
   const vagx_ir *ir;
   char *why;
   size_t size;
};

static bool PRINTFLIKE(3, 4)
fail(struct vctx *v, unsigned i, const char *fmt, ...)
{
   if (v->why && v->size) {
      va_list ap;
      int n = snprintf(v->why, v->size, "instr %u (%s): ", i,
                       vagx_info(v->ir->instrs[i].op)->name ? vagx_info(v->ir->instrs[i].op)->name
                                                            : "?");
      if (n >= 0 && (size_t)n < v->size) {
         va_start(ap, fmt);
         vsnprintf(v->why + n, v->size - n, fmt, ap);
         va_end(ap);
      }
   }
   return false;
}

static bool
check_src(struct vctx *v, unsigned i, unsigned s, unsigned kind, bool legal, unsigned *nimm)
{
   const vagx_ir_instr *I = &v->ir->instrs[i];
   const vagx_ir_src *src = &I->src[s];
   const struct vagx_instr M = vagx_ir_shape(I);
   const bool scalar = kind == VAGX_SK_U32 || kind == VAGX_SK_F32;

   if ((src->abs || src->neg) && kind != VAGX_SK_F32)
      return fail(v, i, "src%u: float modifiers on a non-f32 operand", s);
   switch (src->file) {
   case IR_VREG:
      if (src->v >= v->ir->num_vregs)
         return fail(v, i, "src%u: vreg %u out of range", s, src->v);
      if (kind == VAGX_SK_CF)
         return fail(v, i, "src%u: a cf operand reads a vreg", s);
      if (src->comp + vagx_src_regs(&M, s) > v->ir->vregs[src->v].size)
         return fail(v, i, "src%u: v%u.%u + %u registers past its size %u", s, src->v, src->comp,
                     vagx_src_regs(&M, s), v->ir->vregs[src->v].size);
      return true;
   case IR_HWREG:
      if (kind == VAGX_SK_CF || src->v + vagx_src_regs(&M, s) > VAGX_MAX_GPRS)
         return fail(v, i, "src%u: bad fixed register r%u", s, src->v);
      return true;
   case IR_CF:
      if (kind != VAGX_SK_CF)
         return fail(v, i, "src%u: coefficient register outside a cf operand", s);
      return true;
   case IR_U:
   case IR_SR:
      if (kind == VAGX_SK_CF || kind >= VAGX_SK_VEC)
         return fail(v, i, "src%u: uniform/special register in a register-vector operand", s);
      if (src->file == IR_U && src->v >= VAGX_MAX_UNIFORMS)
         return fail(v, i, "src%u: u%u out of range", s, src->v);
      if (src->file == IR_SR && src->v >= VAGX_SR_COUNT)
         return fail(v, i, "src%u: sr%u out of range", s, src->v);
      if (legal && !scalar && kind != VAGX_SK_ADDR)
         return fail(v, i, "src%u: uniform/special register not encodable here", s);
      return true;
   case IR_IMM:
      if (kind == VAGX_SK_CF || kind >= VAGX_SK_VEC)
         return fail(v, i, "src%u: immediate in a register-vector operand", s);
      if (legal && !scalar)
         return fail(v, i, "src%u: immediate not encodable here", s);
      (*nimm)++;
      return true;
   default:
      return fail(v, i, "src%u: no operand for a source the opcode reads", s);
   }
}

static bool
validate(struct vctx *vc, bool legal, uint8_t *stack, bool *seen_else)
{
   struct vctx v = *vc;
   const vagx_ir *ir = v.ir;
   /* structured control flow: the if/loop nesting, one else per if */
   unsigned depth = 0, loops = 0;

   if (ir->instrs[ir->num_instrs - 1].op != VAGX_OP_END)
      return fail(&v, ir->num_instrs - 1, "the program does not end with end");
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      const vagx_ir_instr *I = &ir->instrs[i];
      const struct vagx_op_info *info = vagx_info(I->op);
      const struct vagx_instr M = vagx_ir_shape(I);
      if (I->op == VAGX_IR_OP_PHI) {
         /* its sources and place: validate_phis, with the CFG */
         if (info->name)
            return fail(&v, i, "the phi pseudo-opcode 0x%x is an ISA opcode", I->op);
         if (legal)
            return fail(&v, i, "phi after phi lowering");
         if (!I->has_dst || I->dst >= ir->num_vregs || I->dst_comp ||
             ir->vregs[I->dst].size != 1)
            return fail(&v, i, "a phi writes a whole scalar vreg");
         for (unsigned s = 0; s < 3; s++)
            if (I->src[s].file != IR_NONE)
               return fail(&v, i, "a phi's sources are its phi sources");
         if (I->mod || I->sat || I->uniform || I->ext)
            return fail(&v, i, "modifiers on a phi");
         continue;
      }
      if (I->phi_count)
         return fail(&v, i, "phi sources on an instruction that is not a phi");
      if (!info->name)
         return fail(&v, i, "opcode 0x%x not in the ISA", I->op);
      if (I->sat && !(info->flags & VAGX_OPF_SAT))
         return fail(&v, i, ".sat on an opcode without it");
      if (I->op == VAGX_OP_END && i != ir->num_instrs - 1)
         return fail(&v, i, "end before the last instruction");

      if (I->has_dst != (info->dst != VAGX_DK_NONE))
         return fail(&v, i, I->has_dst ? "destination on an opcode without one"
                                       : "no destination for an opcode that writes one");
      if (I->has_dst) {
         if (I->dst >= ir->num_vregs)
            return fail(&v, i, "dst vreg %u out of range", I->dst);
         if (I->dst_comp + vagx_dst_regs(&M) > ir->vregs[I->dst].size)
            return fail(&v, i, "dst v%u.%u + %u registers past its size %u", I->dst, I->dst_comp,
                        vagx_dst_regs(&M), ir->vregs[I->dst].size);
      }

      const unsigned nsrc = vagx_nsrc(&M);
      unsigned nimm = 0;
      for (unsigned s = 0; s < 3; s++) {
         if (s >= nsrc) {
            if (I->src[s].file != IR_NONE)
               return fail(&v, i, "src%u given to an opcode that reads %u sources", s, nsrc);
            continue;
         }
         if (!check_src(&v, i, s, info->src[s], legal, &nimm))
            return false;
      }
      if (legal) {
         bool has_ext = false;
         for (unsigned f = 0; f < info->nfields; f++)
            has_ext |= vagx_op_field(I->op, f)->in_ext;
         if (nimm > (has_ext ? 1u : 2u))
            return fail(&v, i, "%u immediates, more than the encoding holds", nimm);
      }

      /* stack[]: the open constructs' opcodes, UNIFORM_BIT when uniform */
      const uint8_t u = I->uniform ? UNIFORM_BIT : 0;
      switch (I->op) {
      case VAGX_OP_IF:
      case VAGX_OP_LOOP:
         seen_else[depth] = false;
         stack[depth++] = I->op | u;
         loops += I->op == VAGX_OP_LOOP;
         break;
      case VAGX_OP_ELSE:
         if (!depth || (stack[depth - 1] & ~UNIFORM_BIT) != VAGX_OP_IF || seen_else[depth - 1])
            return fail(&v, i, "else without its if");
         if ((stack[depth - 1] & UNIFORM_BIT) != u)
            return fail(&v, i, "uniform flag differs from its if's");
         seen_else[depth - 1] = true;
         break;
      case VAGX_OP_ENDIF:
      case VAGX_OP_ENDLOOP:
         if (!depth || (stack[depth - 1] & ~UNIFORM_BIT) !=
                          (I->op == VAGX_OP_ENDIF ? VAGX_OP_IF : VAGX_OP_LOOP))
            return fail(&v, i, "closes a construct that is not open");
         if ((stack[depth - 1] & UNIFORM_BIT) != u)
            return fail(&v, i, "uniform flag differs from its construct's");
         loops -= I->op == VAGX_OP_ENDLOOP;
         depth--;
         break;
      case VAGX_OP_BREAK:
      case VAGX_OP_CONTINUE: {
         if (!loops)
            return fail(&v, i, "outside any loop");
         /* A uniform loop's exits are jumps (vagx_lower_uniform_cf), which
          * must stay at the loop's nesting depth: only uniform ifs may lie
          * between; a divergent exit would need the loop's frame. */
         unsigned d = depth;
         bool divergent_between = false;
         while ((stack[--d] & ~UNIFORM_BIT) != VAGX_OP_LOOP)
            divergent_between |= !(stack[d] & UNIFORM_BIT);
         if ((stack[d] & UNIFORM_BIT) != u)
            return fail(&v, i, "uniform flag differs from its loop's");
         if (u && divergent_between)
            return fail(&v, i, "uniform exit inside a divergent if of its loop");
         break;
      }
      case VAGX_OP_BR:
      case VAGX_OP_JMP:
         /* the CFG knows structured control flow only: jumps appear
          * after the last pass (vagx_lower_uniform_cf) */
         return fail(&v, i, "jump in the structured IR");
      default:
         if (u)
            return fail(&v, i, "uniform flag on an opcode that is not structured control flow");
         break;
      }
   }
   if (depth)
      return fail(&v, ir->num_instrs - 1, "%u if/loop constructs left open", depth);
   return true;
}

static bool
has_edge(const vagx_ir *ir, unsigned from, unsigned to)
{
   for (unsigned s = 0; s < ir->blocks[from].num_succs; s++)
      if (ir->blocks[from].succs[s] == to)
         return true;
   return false;
}

static unsigned
count_pred(const vagx_ir *ir, unsigned block, unsigned pred)
{
   unsigned n = 0;
   util_dynarray_foreach(&ir->blocks[block].preds, unsigned, p)
      n += *p == pred;
   return n;
}

/* The blocks are those the instructions describe (a pass that moved
 * instructions rebuilt them), and the edges are symmetric. */
static bool
validate_cfg(struct vctx *v)
{
   const vagx_ir *ir = v->ir;
   const unsigned last = ir->num_instrs - 1;
   if (!ir->num_blocks || !ir->blocks)
      return fail(v, 0, "no CFG (vagx_ir_build_cfg not run)");

   vagx_ir fresh = *ir;
   fresh.cfg_mem = NULL;
   vagx_ir_build_cfg(&fresh);
   bool ok = true;
   char buf[96] = "";
   if (fresh.num_blocks != ir->num_blocks) {
      snprintf(buf, sizeof(buf), "%u blocks, the instructions make %u", ir->num_blocks,
               fresh.num_blocks);
      ok = false;
   }
   for (unsigned b = 0; ok && b < ir->num_blocks; b++) {
      const vagx_block *B = &ir->blocks[b], *F = &fresh.blocks[b];
      if (B->start != F->start || B->end != F->end || B->num_succs != F->num_succs ||
          memcmp(B->succs, F->succs, B->num_succs * sizeof(unsigned)) ||
          B->idom != F->idom || B->reachable != F->reachable) {
         snprintf(buf, sizeof(buf), "block %u [%u, %u) is stale: the instructions make [%u, %u)",
                  b, B->start, B->end, F->start, F->end);
         ok = false;
      }
   }
   ralloc_free(fresh.cfg_mem);
   if (!ok)
      return fail(v, last, "CFG: %s", buf);

   for (unsigned b = 0; b < ir->num_blocks; b++) {
      const vagx_block *B = &ir->blocks[b];
      for (unsigned s = 0; s < B->num_succs; s++)
         if (B->succs[s] >= ir->num_blocks || count_pred(ir, B->succs[s], b) != 1)
            return fail(v, B->end - 1, "CFG: edge %u -> %u without its predecessor", b,
                        B->succs[s]);
      util_dynarray_foreach(&B->preds, unsigned, p)
         if (*p >= ir->num_blocks || !has_edge(ir, *p, b))
            return fail(v, B->start, "CFG: predecessor %u of block %u without the edge", *p,
                        b);
   }
   return true;
}

/* Phis: at the head of their block (after other phis only), one source
 * per predecessor, each a scalar operand without modifiers; a loop
 * header's phi fed by a conditional continue has no place for its copy
 * (the lanes staying in the body still need the old value), and selection
 * makes none. */
static bool
validate_phis(struct vctx *v)
{
   const vagx_ir *ir = v->ir;
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      const vagx_ir_instr *I = &ir->instrs[i];
      if (I->op != VAGX_IR_OP_PHI)
         continue;
      const vagx_block *B = &ir->blocks[vagx_ir_block_of(ir, i)];
      if (i > B->start && ir->instrs[i - 1].op != VAGX_IR_OP_PHI)
         return fail(v, i, "phi after a non-phi instruction of its block");
      if (i == B->end - 1)
         return fail(v, i, "phi as the last instruction of a block");
      const unsigned npreds = util_dynarray_num_elements(&B->preds, unsigned);
      if (I->phi_count != npreds)
         return fail(v, i, "%u phi sources for %u predecessors", I->phi_count, npreds);
      for (unsigned k = 0; k < I->phi_count; k++) {
         const struct vagx_phi_src *ps = &I->phi[k];
         if (ps->pred >= ir->num_blocks || count_pred(ir, B->index, ps->pred) != 1)
            return fail(v, i, "phi source %u from block %u, not a predecessor", k, ps->pred);
         for (unsigned j = 0; j < k; j++)
            if (I->phi[j].pred == ps->pred)
               return fail(v, i, "two phi sources from block %u", ps->pred);
         const vagx_ir_instr *T = &ir->instrs[ir->blocks[ps->pred].end - 1];
         if (T->op == VAGX_OP_CONTINUE && (T->mod & 1))
            return fail(v, i, "phi source from a conditional continue");
         switch (ps->src.file) {
         case IR_VREG:
            if (ps->src.v >= ir->num_vregs || ps->src.comp >= ir->vregs[ps->src.v].size)
               return fail(v, i, "phi source %u: v%u.%u out of range", k, ps->src.v,
                           ps->src.comp);
            break;
         case IR_IMM:
         case IR_U:
         case IR_SR:
            break;
         default:
            return fail(v, i, "phi source %u: not a register, uniform or immediate", k);
         }
         if (ps->src.abs || ps->src.neg)
            return fail(v, i, "phi source %u: float modifiers", k);
      }
   }
   return true;
}

/* SSA: every register of a vreg not marked `reg` written at most once, and
 * every read of one dominated by its write; a phi source's write must
 * dominate the end of its predecessor.  A register of a vector nobody
 * writes may be read (a don't-care component). */
static bool
validate_ssa(struct vctx *v)
{
   const vagx_ir *ir = v->ir;
   unsigned *base = malloc((ir->num_vregs + 1) * sizeof(unsigned));
   unsigned total = 0;
   for (unsigned r = 0; r < ir->num_vregs; r++) {
      base[r] = total;
      total += ir->vregs[r].size;
   }
   int *def = malloc(MAX2(total, 1) * sizeof(int));
   memset(def, 0xff, MAX2(total, 1) * sizeof(int));
   bool ok = true;
   for (unsigned i = 0; ok && i < ir->num_instrs; i++) {
      const vagx_ir_instr *I = &ir->instrs[i];
      if (!I->has_dst || ir->vregs[I->dst].reg)
         continue;
      for (unsigned c = 0; ok && c < vagx_ir_dst_regs(I); c++) {
         int *d = &def[base[I->dst] + I->dst_comp + c];
         if (*d >= 0)
            ok = fail(v, i, "SSA: v%u.%u written again (first by instr %d) but not marked reg",
                      I->dst, I->dst_comp + c, *d);
         *d = i;
      }
   }
   for (unsigned i = 0; ok && i < ir->num_instrs; i++) {
      const vagx_ir_instr *I = &ir->instrs[i];
      const struct vagx_instr M = vagx_ir_shape(I);
      const unsigned ub = vagx_ir_block_of(ir, i);
      for (unsigned s = 0; ok && s < 3; s++) {
         const vagx_ir_src *src = &I->src[s];
         if (src->file != IR_VREG || ir->vregs[src->v].reg)
            continue;
         for (unsigned c = 0; ok && c < vagx_src_regs(&M, s); c++) {
            const int d = def[base[src->v] + src->comp + c];
            if (d < 0)
               continue;
            const unsigned db = vagx_ir_block_of(ir, d);
            if (db == ub ? d >= (int)i : !vagx_block_dominates(ir, db, ub))
               ok = fail(v, i, "SSA: src%u reads v%u.%u, whose write (instr %d) does not "
                         "dominate it", s, src->v, src->comp + c, d);
         }
      }
      for (unsigned k = 0; ok && k < I->phi_count; k++) {
         const vagx_ir_src *src = &I->phi[k].src;
         if (src->file != IR_VREG || ir->vregs[src->v].reg)
            continue;
         const int d = def[base[src->v] + src->comp];
         if (d >= 0 && !vagx_block_dominates(ir, vagx_ir_block_of(ir, d), I->phi[k].pred))
            ok = fail(v, i, "SSA: phi source from block %u reads v%u.%u, whose write (instr %d) "
                      "does not dominate that block's end", I->phi[k].pred, src->v, src->comp, d);
      }
   }
   free(def);
   free(base);
   return ok;
}

bool
vagx_validate_ir(const vagx_ir *ir, bool legal, char *why, size_t size)
{
   struct vctx v = { ir, why, size };
   if (why && size)
      why[0] = '\0';
   if (!ir->num_instrs) {
      if (why && size)
         snprintf(why, size, "empty program");
      return false;
   }
   /* nesting can be as deep as the program is long */
   uint8_t *stack = malloc(ir->num_instrs + 1);
   bool *seen_else = malloc((ir->num_instrs + 1) * sizeof(bool));
   bool ok = stack && seen_else && validate(&v, legal, stack, seen_else) &&
             validate_cfg(&v) && validate_phis(&v) && validate_ssa(&v);
   free(stack);
   free(seen_else);
   return ok;
}

bool
vagx_ir_validate_after(vagx_ir *ir, const char *pass, bool legal)
{
#ifndef NDEBUG
   static char why[224];
   char msg[192];
   if (vagx_validate_ir(ir, legal, msg, sizeof(msg)))
      return true;
   snprintf(why, sizeof(why), "invalid IR after %s: %s", pass, msg);
   ir->error = why;
   return false;
#else
   (void)ir;
   (void)pass;
   (void)legal;
   return true;
#endif
}
