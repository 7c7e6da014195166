/* SPDX-License-Identifier: MIT */
/* vagx IR helpers, immediate legalisation, linear-scan register allocation
 * over structured control flow, and encoding with vagx_encode(). */
#include <stdlib.h>
#include <string.h>
#include "vagx_hw.h"
#include "vagx_ir.h"

void
vagx_ir_init(vagx_ir *ir, struct vagx_shader_info *info, gl_shader_stage stage)
{
   memset(ir, 0, sizeof(*ir));
   ir->info = info;
   ir->stage = stage;
}

void
vagx_ir_fini(vagx_ir *ir)
{
   free(ir->instrs);
   free(ir->vregs);
}

uint32_t
vagx_ir_new_vreg(vagx_ir *ir, unsigned size)
{
   if (ir->num_vregs == ir->cap_vregs) {
      ir->cap_vregs = ir->cap_vregs ? ir->cap_vregs * 2 : 256;
      ir->vregs = realloc(ir->vregs, ir->cap_vregs * sizeof(vagx_vreg));
   }
   vagx_vreg *v = &ir->vregs[ir->num_vregs];
   v->size = size;
   v->start = -1;
   v->end = -1;
   v->hw = -1;
   return ir->num_vregs++;
}

vagx_ir_instr *
vagx_ir_emit(vagx_ir *ir, unsigned op, int dst, unsigned dst_comp,
             vagx_ir_src s0, vagx_ir_src s1, vagx_ir_src s2)
{
   if (ir->num_instrs == ir->cap_instrs) {
      ir->cap_instrs = ir->cap_instrs ? ir->cap_instrs * 2 : 256;
      ir->instrs = realloc(ir->instrs, ir->cap_instrs * sizeof(vagx_ir_instr));
   }
   vagx_ir_instr *I = &ir->instrs[ir->num_instrs++];
   memset(I, 0, sizeof(*I));
   I->op = op;
   I->has_dst = dst >= 0;
   I->dst = dst >= 0 ? (uint32_t)dst : 0;
   I->dst_comp = dst_comp;
   I->src[0] = s0;
   I->src[1] = s1;
   I->src[2] = s2;
   return I;
}

vagx_ir_src
vagx_ir_alu(vagx_ir *ir, unsigned op, unsigned mod, vagx_ir_src s0, vagx_ir_src s1,
            vagx_ir_src s2)
{
   uint32_t d = vagx_ir_new_vreg(ir, 1);
   vagx_ir_instr *I = vagx_ir_emit(ir, op, d, 0, s0, s1, s2);
   I->mod = mod;
   return ir_vreg(d, 0);
}

unsigned
vagx_push_word(struct vagx_shader_info *info, unsigned kind, unsigned arg)
{
   for (unsigned i = 0; i < info->push_count; i++) {
      if (info->push[i].kind == kind && info->push[i].arg == arg)
         return i;
   }
   if (info->push_count >= VAGX_MAX_PUSH)
      return VAGX_MAX_PUSH - 1; /* caller checks push_count overflow */
   info->push[info->push_count].kind = kind;
   info->push[info->push_count].arg = arg;
   return info->push_count++;
}

static bool
src_allows_imm(unsigned op, unsigned s)
{
   const struct vagx_op_info *info = vagx_info(op);
   return info->src[s] == VAGX_SK_U32 || info->src[s] == VAGX_SK_F32;
}

static bool
src_allows_uniform(unsigned op, unsigned s)
{
   const struct vagx_op_info *info = vagx_info(op);
   return info->src[s] == VAGX_SK_U32 || info->src[s] == VAGX_SK_F32 ||
          info->src[s] == VAGX_SK_ADDR;
}

/* Rewrite the instruction list so every operand is encodable: immediates only
 * in scalar operands and at most 2 (1 with extension fields) per instruction. */
static void
legalise(vagx_ir *ir)
{
   vagx_ir old = *ir;
   ir->instrs = NULL;
   ir->num_instrs = ir->cap_instrs = 0;
   for (unsigned i = 0; i < old.num_instrs; i++) {
      vagx_ir_instr I = old.instrs[i];
      const struct vagx_op_info *info = vagx_info(I.op);
      bool has_ext = false;
      for (unsigned f = 0; f < info->nfields; f++)
         has_ext |= vagx_op_field(I.op, f)->in_ext;
      unsigned max_imm = has_ext ? 1 : 2, nimm = 0;
      for (unsigned s = 0; s < 3; s++) {
         vagx_ir_src *src = &I.src[s];
         bool need_mov = false;
         if (src->file == IR_IMM) {
            if (!src_allows_imm(I.op, s) || nimm >= max_imm)
               need_mov = true;
            else
               nimm++;
         } else if ((src->file == IR_U || src->file == IR_SR) && !src_allows_uniform(I.op, s)) {
            need_mov = true;
         }
         if (need_mov) {
            uint32_t t = vagx_ir_new_vreg(ir, 1);
            vagx_ir_src m = *src;
            m.abs = m.neg = 0;
            vagx_ir_emit(ir, VAGX_OP_MOV, t, 0, m, ir_none(), ir_none());
            vagx_ir_src n = ir_vreg(t, 0);
            n.abs = src->abs;
            n.neg = src->neg;
            *src = n;
         }
      }
      vagx_ir_emit(ir, 0, -1, 0, ir_none(), ir_none(), ir_none());
      ir->instrs[ir->num_instrs - 1] = I;
   }
   free(old.instrs);
}

static void
touch(vagx_ir *ir, uint32_t v, int pos)
{
   vagx_vreg *r = &ir->vregs[v];
   if (r->start < 0 || pos < r->start)
      r->start = pos;
   if (pos > r->end)
      r->end = pos;
}

static unsigned
src_regs(const vagx_ir_instr *I, unsigned s)
{
   struct vagx_instr tmp = { 0 };
   tmp.op = I->op;
   tmp.mod = I->mod;
   tmp.imm[1] = I->ext;
   return vagx_src_regs(&tmp, s);
}

static bool
regalloc(vagx_ir *ir)
{
   /* Live intervals over the linear order. */
   int *loop_start = calloc(ir->num_instrs + 1, sizeof(int));
   int depth = 0;
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      vagx_ir_instr *I = &ir->instrs[i];
      for (unsigned s = 0; s < 3; s++)
         if (I->src[s].file == IR_VREG)
            touch(ir, I->src[s].v, i);
      if (I->has_dst)
         touch(ir, I->dst, i);
   }
   /* Loops: a value live into a loop (defined before, used inside) or carried
    * around the back edge (a multiply-written register used in the loop)
    * must survive the whole loop.  Conservatively extend any vreg whose
    * interval intersects a loop and begins before it, or that is written more
    * than once inside it, to cover the whole loop. */
   int *stack = calloc(ir->num_instrs + 1, sizeof(int));
   depth = 0;
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      vagx_ir_instr *I = &ir->instrs[i];
      if (I->op == VAGX_OP_LOOP) {
         stack[depth++] = i;
      } else if (I->op == VAGX_OP_ENDLOOP) {
         int ls = stack[--depth], le = i;
         for (unsigned v = 0; v < ir->num_vregs; v++) {
            vagx_vreg *r = &ir->vregs[v];
            if (r->start < 0)
               continue;
            bool inside = r->end >= ls && r->start <= le;
            if (!inside)
               continue;
            if (r->start < ls || r->end > le) {
               /* live in or out: cover the loop */
               if (r->start < ls && r->end < le)
                  r->end = le;
            }
         }
         /* values defined and used inside the loop but read before their
          * (re)definition in program order are loop-carried */
         for (int k = ls; k <= le; k++) {
            vagx_ir_instr *J = &ir->instrs[k];
            for (unsigned s = 0; s < 3; s++) {
               if (J->src[s].file != IR_VREG)
                  continue;
               vagx_vreg *r = &ir->vregs[J->src[s].v];
               /* first def at or after this use inside the loop */
               bool def_before = false;
               for (int q = ls; q < k; q++)
                  if (ir->instrs[q].has_dst && ir->instrs[q].dst == J->src[s].v)
                     def_before = true;
               if (!def_before && r->start >= ls) {
                  r->start = ls;
                  r->end = MAX2(r->end, le);
               }
            }
         }
      }
   }
   free(stack);
   free(loop_start);

   /* Linear scan in order of start. */
   unsigned n = ir->num_vregs;
   unsigned *order = malloc(n * sizeof(unsigned));
   unsigned cnt = 0;
   for (unsigned v = 0; v < n; v++)
      if (ir->vregs[v].start >= 0)
         order[cnt++] = v;
   /* insertion sort by start (lists are mostly ordered already) */
   for (unsigned i = 1; i < cnt; i++) {
      unsigned x = order[i];
      int j = i - 1;
      while (j >= 0 && ir->vregs[order[j]].start > ir->vregs[x].start) {
         order[j + 1] = order[j];
         j--;
      }
      order[j + 1] = x;
   }
   /* every register the contract gives a thread must be encodable */
   STATIC_ASSERT(VAGX_MAX_GPRS <= VAGX_ISA_INDEXES);
   int busy_until[VAGX_MAX_GPRS];
   for (unsigned r = 0; r < VAGX_MAX_GPRS; r++)
      busy_until[r] = -1;
   unsigned max_reg = 0;
   for (unsigned k = 0; k < cnt; k++) {
      vagx_vreg *r = &ir->vregs[order[k]];
      int found = -1;
      for (unsigned base = 0; base + r->size <= VAGX_MAX_GPRS && found < 0; base++) {
         bool ok = true;
         for (unsigned c = 0; c < r->size; c++)
            if (busy_until[base + c] >= r->start) {
               ok = false;
               break;
            }
         if (ok)
            found = base;
      }
      if (found < 0) {
         free(order);
         ir->error = "register allocation failed (spilling not implemented)";
         return false;
      }
      r->hw = found;
      for (unsigned c = 0; c < r->size; c++)
         busy_until[found + c] = r->end;
      max_reg = MAX2(max_reg, found + r->size);
   }
   free(order);
   ir->info->gpr_count = MAX2(max_reg, 1);
   return true;
}

static bool
encode_src(vagx_ir *ir, const vagx_ir_src *s, struct vagx_src *o, unsigned *nimm,
           uint32_t imm[2])
{
   memset(o, 0, sizeof(*o));
   o->abs = s->abs;
   o->neg = s->neg;
   switch (s->file) {
   case IR_NONE:
      o->abs = o->neg = 0;
      return true;
   case IR_VREG:
      o->file = VAGX_FILE_R;
      o->idx = ir->vregs[s->v].hw + s->comp;
      return true;
   case IR_HWREG:
      o->file = VAGX_FILE_R;
      o->idx = s->v;
      return true;
   case IR_U:
      o->file = VAGX_FILE_U;
      o->idx = s->v;
      return true;
   case IR_SR:
      o->file = VAGX_FILE_SR;
      o->idx = s->v;
      return true;
   case IR_CF:
      o->file = VAGX_FILE_CF;
      o->idx = s->v;
      return true;
   case IR_IMM:
      o->file = VAGX_FILE_IMM;
      o->idx = *nimm;
      imm[*nimm] = s->v;
      (*nimm)++;
      return true;
   }
   return false;
}

bool
vagx_ir_finish(vagx_ir *ir)
{
   if (!vagx_ir_validate_after(ir, "selection", false))
      return false;
   if (vagx_opt_copyprop(ir) && !vagx_ir_validate_after(ir, "copy propagation", false))
      return false;
   if (vagx_opt_dce(ir) && !vagx_ir_validate_after(ir, "dead-code elimination", false))
      return false;
   legalise(ir);
   if (!vagx_ir_validate_after(ir, "legalisation", true))
      return false;
   if (!regalloc(ir))
      return false;

   uint64_t *code = malloc((ir->num_instrs * 2 + 2) * sizeof(uint64_t));
   unsigned words = 0, ninstr = 0;
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      vagx_ir_instr *I = &ir->instrs[i];
      /* drop self-moves produced by copy coalescing */
      if (I->op == VAGX_OP_MOV && I->has_dst && I->src[0].file == IR_VREG &&
          ir->vregs[I->src[0].v].hw + I->src[0].comp == ir->vregs[I->dst].hw + I->dst_comp)
         continue;
      struct vagx_instr M = { 0 };
      unsigned nimm = 0;
      M.op = I->op;
      M.mod = I->mod;
      M.sat = I->sat;
      if (I->has_dst)
         M.dst = ir->vregs[I->dst].hw + I->dst_comp;
      for (unsigned s = 0; s < 3; s++)
         encode_src(ir, &I->src[s], &M.src[s], &nimm, M.imm);
      if (I->ext)
         M.imm[1] |= I->ext;
      const struct vagx_op_info *info = vagx_info(I->op);
      bool has_ext = false;
      for (unsigned f = 0; f < info->nfields; f++)
         has_ext |= vagx_op_field(I->op, f)->in_ext;
      M.x = (nimm > 0 || has_ext) ? 1 : 0;
      uint64_t out[2];
      int n = vagx_encode(&M, out);
      if (n < 0) {
         static char buf[128];
         snprintf(buf, sizeof(buf), "encoding %s failed: %s", info->name ? info->name : "?",
                  vagx_isa_strerror(n));
         ir->error = buf;
         free(code);
         return false;
      }
      for (int k = 0; k < n; k++)
         code[words++] = out[k];
      ninstr++;
   }
   ir->info->code = code;
   ir->info->code_words = words;
   ir->info->stat_instrs = ninstr;
   ir->info->stat_bytes = words * 8;
   return true;
}

void
vagx_disassemble(FILE *fp, const uint64_t *code, unsigned words)
{
   unsigned i = 0;
   while (i < words) {
      struct vagx_instr I;
      int n = vagx_decode(code + i, words - i, &I);
      if (n < 0) {
         fprintf(fp, "  %4u: <%s> %016llx\n", i, vagx_isa_strerror(n),
                 (unsigned long long)code[i]);
         i++;
         continue;
      }
      char buf[256];
      vagx_print(&I, buf, sizeof(buf));
      fprintf(fp, "  %4u: %s\n", i, buf);
      i += n;
   }
}

void
vagx_print_stats(FILE *fp, const struct vagx_shader_info *info, const char *name)
{
   fprintf(fp, "SHADER-DB: %s %s shader: %u inst, %u bytes, %u regs, %u uniforms, "
           "%u:%u spills:fills, %u us\n",
           name ? name : "", gl_shader_stage_name(info->stage), info->stat_instrs,
           info->stat_bytes, info->gpr_count, info->push_count, info->stat_spills,
           info->stat_spills, (unsigned)(info->stat_compile_ns / 1000));
}

void
vagx_shader_info_free(struct vagx_shader_info *info)
{
   free(info->code);
   info->code = NULL;
}
