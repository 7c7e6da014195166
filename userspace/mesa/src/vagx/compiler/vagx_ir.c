/* SPDX-License-Identifier: MIT */
/* vagx IR helpers, immediate legalisation, the pass pipeline and encoding
 * with vagx_encode(). */
#include <stdlib.h>
#include <string.h>
#include "util/ralloc.h"
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
   ralloc_free(ir->cfg_mem);
   ir->cfg_mem = NULL;
   ralloc_free(ir->phi_mem);
   ir->phi_mem = NULL;
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
   v->reg = false;
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

void
vagx_ir_remove_nops(vagx_ir *ir)
{
   unsigned n = 0;
   for (unsigned i = 0; i < ir->num_instrs; i++)
      if (ir->instrs[i].op != VAGX_OP_NOP)
         ir->instrs[n++] = ir->instrs[i];
   ir->num_instrs = n;
   vagx_ir_build_cfg(ir);
}

vagx_ir_instr *
vagx_ir_emit_phi(vagx_ir *ir, uint32_t dst, unsigned n)
{
   if (!ir->phi_mem)
      ir->phi_mem = ralloc_context(NULL);
   vagx_ir_instr *I = vagx_ir_emit(ir, VAGX_IR_OP_PHI, dst, 0, ir_none(), ir_none(), ir_none());
   I->phi = rzalloc_array(ir->phi_mem, struct vagx_phi_src, MAX2(n, 1));
   I->phi_count = n;
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
   vagx_ir_build_cfg(ir);
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

/* Words the encoder writes for I: 0 for a self-move copy coalescing left
 * (dropped), 2 with immediates or extension fields, else 1. */
static unsigned
encoded_words(const vagx_ir *ir, const vagx_ir_instr *I)
{
   if (I->op == VAGX_OP_MOV && I->has_dst && I->src[0].file == IR_VREG &&
       ir->vregs[I->src[0].v].hw + I->src[0].comp == ir->vregs[I->dst].hw + I->dst_comp)
      return 0;
   const struct vagx_op_info *info = vagx_info(I->op);
   bool x = false;
   for (unsigned f = 0; f < info->nfields; f++)
      x |= vagx_op_field(I->op, f)->in_ext;
   for (unsigned s = 0; s < 3; s++)
      x |= I->src[s].file == IR_IMM;
   return x ? 2 : 1;
}

bool
vagx_ir_finish(vagx_ir *ir)
{
   vagx_ir_build_cfg(ir);
   if (!vagx_ir_validate_after(ir, "selection", false))
      return false;
   if (vagx_opt_copyprop(ir) && !vagx_ir_validate_after(ir, "copy propagation", false))
      return false;
   if (vagx_opt_cse(ir) && !vagx_ir_validate_after(ir, "common subexpression elimination", false))
      return false;
   if (vagx_opt_dce(ir) && !vagx_ir_validate_after(ir, "dead-code elimination", false))
      return false;
   if (vagx_lower_phis(ir) && !vagx_ir_validate_after(ir, "phi lowering", false))
      return false;
   legalise(ir);
   if (!vagx_ir_validate_after(ir, "legalisation", true))
      return false;
   if (!(vagx_debug_flags() & VAGX_DBG_NO_SCHED) && vagx_schedule(ir) &&
       !vagx_ir_validate_after(ir, "scheduling", true))
      return false;
   if (!vagx_ra(ir))
      return false;

   vagx_lower_uniform_cf(ir);

   /* word position of every instruction (pos[num_instrs]: the end), for
    * the word offsets of br/jmp */
   unsigned *pos = malloc((ir->num_instrs + 1) * sizeof(unsigned));
   unsigned words = 0;
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      pos[i] = words;
      words += encoded_words(ir, &ir->instrs[i]);
   }
   pos[ir->num_instrs] = words;

   uint64_t *code = malloc((ir->num_instrs * 2 + 2) * sizeof(uint64_t));
   unsigned ninstr = 0;
   words = 0;
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      vagx_ir_instr *I = &ir->instrs[i];
      if (!encoded_words(ir, I))
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
      if (I->op == VAGX_OP_BR || I->op == VAGX_OP_JMP)
         M.imm[1] = pos[I->target] - pos[i]; /* signed, relative to this instruction */
      const struct vagx_op_info *info = vagx_info(I->op);
      M.x = encoded_words(ir, I) == 2;
      uint64_t out[2];
      int n = vagx_encode(&M, out);
      if (n < 0) {
         static char buf[128];
         snprintf(buf, sizeof(buf), "encoding %s failed: %s", info->name ? info->name : "?",
                  vagx_isa_strerror(n));
         ir->error = buf;
         free(code);
         free(pos);
         return false;
      }
      for (int k = 0; k < n; k++)
         code[words++] = out[k];
      ninstr++;
   }
   assert(words == pos[ir->num_instrs]);
   free(pos);
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
           info->stat_fills, (unsigned)(info->stat_compile_ns / 1000));
}

void
vagx_shader_info_free(struct vagx_shader_info *info)
{
   free(info->code);
   info->code = NULL;
}
