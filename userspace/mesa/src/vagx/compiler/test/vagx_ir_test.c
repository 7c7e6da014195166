/* SPDX-License-Identifier: MIT */
/* Backend pass unit tests (TAP): programs written directly in the linear IR,
 * one pass run, the result checked instruction by instruction.  The
 * expectations come from the ISA's operand forms (vagx_isa.xml), not from
 * the pass. */
#include "util/u_math.h"
#include "vagx_builder.h"
#include "vagx_test_asm.h"

static void
end_program(vagx_ir *ir)
{
   vagx_ir_emit(ir, VAGX_OP_END, -1, 0, ir_none(), ir_none(), ir_none());
}

/* The vertex-output store that keeps a value alive. */
static void
out(vagx_ir *ir, vagx_ir_src v, unsigned word)
{
   vagx_ir_emit(ir, VAGX_OP_ST_VAR, -1, 0, v, ir_imm(word), ir_none());
}

static bool
same_src(const vagx_ir_src *a, const vagx_ir_src *b)
{
   return a->file == b->file && a->v == b->v && a->comp == b->comp && a->abs == b->abs &&
          a->neg == b->neg;
}

static const vagx_ir_instr *
find(const vagx_ir *ir, unsigned op)
{
   for (unsigned i = 0; i < ir->num_instrs; i++)
      if (ir->instrs[i].op == op)
         return &ir->instrs[i];
   return NULL;
}

/* The validator checks the CFG too: build it for IR written by hand. */
static bool
validate(vagx_ir *ir, bool legal, char *why, size_t size)
{
   if (!ir->cfg_mem)
      vagx_ir_build_cfg(ir);
   return vagx_validate_ir(ir, legal, why, size);
}

/* --- validator ------------------------------------------------------------ */

/* A program valid before and after legalisation. */
static void
valid_program(vagx_ir *ir)
{
   t_begin(ir);
   vagx_ir_src a = vagx_ir_alu(ir, VAGX_OP_FADD, 0, ir_file(IR_U, 0), ir_imm(fui(1.0f)), ir_none());
   vagx_ir_emit(ir, VAGX_OP_IF, -1, 0, a, ir_none(), ir_none());
   vagx_ir_emit(ir, VAGX_OP_LOOP, -1, 0, ir_none(), ir_none(), ir_none());
   vagx_ir_emit(ir, VAGX_OP_BREAK, -1, 0, ir_none(), ir_none(), ir_none());
   vagx_ir_emit(ir, VAGX_OP_ENDLOOP, -1, 0, ir_none(), ir_none(), ir_none());
   vagx_ir_emit(ir, VAGX_OP_ELSE, -1, 0, ir_none(), ir_none(), ir_none());
   vagx_ir_emit(ir, VAGX_OP_ENDIF, -1, 0, ir_none(), ir_none(), ir_none());
   out(ir, a, 0);
   end_program(ir);
}

/* Each mutation of the valid program must be rejected, with `what` in the
 * message (so the right rule fired). */
struct mutation {
   const char *name, *what;
   bool legal;
   void (*apply)(vagx_ir *ir);
};

static void m_none(vagx_ir *ir) { (void)ir; }
static void m_endif_first(vagx_ir *ir) { ir->instrs[1].op = VAGX_OP_ENDIF; ir->instrs[1].src[0] = ir_none(); }
static void m_else_in_loop(vagx_ir *ir) { ir->instrs[3].op = VAGX_OP_ELSE; }
static void m_break_outside(vagx_ir *ir) { ir->instrs[2].op = VAGX_OP_BREAK; ir->instrs[4].op = VAGX_OP_BREAK; }
static void m_no_end(vagx_ir *ir) { ir->num_instrs--; }
static void m_vreg_range(vagx_ir *ir) { ir->instrs[7].src[0].v = ir->num_vregs; }
static void m_comp_past(vagx_ir *ir) { ir->instrs[7].src[0].comp = 1; }
static void m_abs_u32(vagx_ir *ir) { ir->instrs[7].src[0].abs = 1; }
static void m_dst_none(vagx_ir *ir) { ir->instrs[7].has_dst = 1; }
static void m_extra_src(vagx_ir *ir) { ir->instrs[6].src[0] = ir_imm(1); }
static void m_three_imm(vagx_ir *ir) { ir->instrs[0].src[0] = ir_imm(2); ir->instrs[0].op = VAGX_OP_FFMA; ir->instrs[0].src[2] = ir_imm(3); }
/* SSA: a second write of v0 (the store becomes a mov into it) */
static void m_two_writes(vagx_ir *ir) { ir->instrs[7].op = VAGX_OP_MOV; ir->instrs[7].has_dst = 1; ir->instrs[7].dst = 0; ir->instrs[7].src[1] = ir_none(); }
/* the same, with v0 a NIR register: allowed */
static void m_two_writes_reg(vagx_ir *ir) { m_two_writes(ir); ir->vregs[0].reg = true; }
/* the fadd reads its own result */
static void m_use_before_def(vagx_ir *ir) { ir->instrs[0].src[0] = ir_vreg(0, 0); }
/* v written in the then side, read after the endif */
static void
m_def_in_branch(vagx_ir *ir)
{
   vagx_ir_fini(ir);
   t_begin(ir);
   uint32_t v = vagx_ir_new_vreg(ir, 1);
   vagx_ir_emit(ir, VAGX_OP_IF, -1, 0, ir_file(IR_U, 0), ir_none(), ir_none());
   vagx_ir_emit(ir, VAGX_OP_MOV, v, 0, ir_imm(1), ir_none(), ir_none());
   vagx_ir_emit(ir, VAGX_OP_ENDIF, -1, 0, ir_none(), ir_none(), ir_none());
   out(ir, ir_vreg(v, 0), 0);
   end_program(ir);
}
/* a pass that moved instructions without rebuilding the CFG */
static void m_stale_cfg(vagx_ir *ir) { vagx_ir_build_cfg(ir); ir->instrs[5].op = VAGX_OP_NOP; }
/* a pass that inserted an instruction without rebuilding the CFG */
static void
m_shifted_cfg(vagx_ir *ir)
{
   vagx_ir_build_cfg(ir);
   vagx_ir_emit(ir, VAGX_OP_NOP, -1, 0, ir_none(), ir_none(), ir_none());
   memmove(&ir->instrs[1], &ir->instrs[0], (ir->num_instrs - 1) * sizeof(vagx_ir_instr));
   ir->instrs[0] = (vagx_ir_instr){ .op = VAGX_OP_NOP };
}
/* an edge whose target does not list it */
static void m_one_way_edge(vagx_ir *ir) { vagx_ir_build_cfg(ir); util_dynarray_clear(&ir->blocks[ir->blocks[0].succs[0]].preds); }

static const struct mutation mutations[] = {
   { "a well-formed program", NULL, true, m_none },
   { "endif without if", "not open", false, m_endif_first },
   { "else inside a loop", "else without its if", false, m_else_in_loop },
   { "break outside a loop", "outside any loop", false, m_break_outside },
   { "no end", "does not end with end", false, m_no_end },
   { "vreg out of range", "out of range", false, m_vreg_range },
   { "component past the vreg", "past its size", false, m_comp_past },
   { "abs on a u32 operand", "non-f32", false, m_abs_u32 },
   { "destination on a store", "destination on an opcode without one", false, m_dst_none },
   { "source beyond the opcode's", "given to an opcode that reads", false, m_extra_src },
   { "three immediates after legalisation", "immediates", true, m_three_imm },
   { "a vreg written twice", "written again", false, m_two_writes },
   { "a NIR register written twice", NULL, false, m_two_writes_reg },
   { "a read before the write", "does not dominate", false, m_use_before_def },
   { "a read the write does not dominate", "does not dominate", false, m_def_in_branch },
   { "a stale CFG", "CFG: ", false, m_stale_cfg },
   { "an instruction inserted without rebuilding it", "is stale", false, m_shifted_cfg },
   { "an edge without its predecessor", "without its predecessor", false, m_one_way_edge },
};

static void
test_validate(void)
{
   for (unsigned k = 0; k < ARRAY_SIZE(mutations); k++) {
      vagx_ir ir;
      char why[160], name[96];
      valid_program(&ir);
      mutations[k].apply(&ir);
      bool ok = validate(&ir, mutations[k].legal, why, sizeof(why));
      const char *err = NULL;
      if (!mutations[k].what && !ok)
         err = why;
      else if (mutations[k].what && ok)
         err = "accepted";
      else if (mutations[k].what && !strstr(why, mutations[k].what))
         err = why;
      snprintf(name, sizeof(name), "validate: %s%s", mutations[k].what ? "rejects " : "accepts ",
               mutations[k].name);
      t_result(name, err, &ir);
   }
}

/* --- copy propagation ------------------------------------------------------- */

static void
test_copyprop_imm_uniform(void)
{
   vagx_ir ir;
   t_begin(&ir);
   uint32_t t = vagx_ir_new_vreg(&ir, 1), u = vagx_ir_new_vreg(&ir, 1);
   vagx_ir_emit(&ir, VAGX_OP_MOV, t, 0, ir_imm(fui(2.0f)), ir_none(), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_MOV, u, 0, ir_file(IR_U, 3), ir_none(), ir_none());
   vagx_ir_src a = vagx_ir_alu(&ir, VAGX_OP_FMUL, 0, ir_vreg(t, 0), ir_vreg(u, 0), ir_none());
   out(&ir, a, 0);
   end_program(&ir);
   bool p = vagx_opt_copyprop(&ir);
   const vagx_ir_instr *m = find(&ir, VAGX_OP_FMUL);
   vagx_ir_src want0 = ir_imm(fui(2.0f)), want1 = ir_file(IR_U, 3);
   const char *err = !p                             ? "no progress"
                     : !same_src(&m->src[0], &want0) ? "immediate not folded"
                     : !same_src(&m->src[1], &want1) ? "uniform not folded"
                                                     : NULL;
   if (!err) {
      vagx_opt_dce(&ir);
      if (t_count_op(&ir, VAGX_OP_MOV))
         err = "the copies survived dead-code elimination";
   }
   t_result("copyprop: immediate and uniform folded into f32 operands", err, &ir);
}

static void
test_copyprop_modifiers(void)
{
   vagx_ir ir;
   t_begin(&ir);
   uint32_t x = vagx_ir_new_vreg(&ir, 1), t = vagx_ir_new_vreg(&ir, 1);
   vagx_ir_emit(&ir, VAGX_OP_FADD, x, 0, ir_file(IR_U, 0), ir_file(IR_U, 1), ir_none());
   vagx_ir_instr *c = vagx_ir_emit(&ir, VAGX_OP_FMOV, t, 0, ir_vreg(x, 0), ir_none(), ir_none());
   c->src[0].neg = 1;
   /* -t = x, |t| = |x|, and t itself in a u32 operand stays (fmov
    * canonicalises NaNs; raw bits may differ) */
   vagx_ir_instr *n = vagx_ir_emit(&ir, VAGX_OP_FMUL, vagx_ir_new_vreg(&ir, 1), 0, ir_vreg(t, 0),
                                   ir_vreg(t, 0), ir_none());
   n->src[0].neg = 1;
   n->src[1].abs = 1;
   vagx_ir_src r = vagx_ir_alu(&ir, VAGX_OP_AND, 0, ir_vreg(t, 0), ir_file(IR_U, 2), ir_none());
   out(&ir, ir_vreg(n->dst, 0), 0);
   out(&ir, r, 1);
   end_program(&ir);
   vagx_opt_copyprop(&ir);
   const vagx_ir_instr *m = find(&ir, VAGX_OP_FMUL), *a = find(&ir, VAGX_OP_AND);
   vagx_ir_src neg_neg = ir_vreg(x, 0), abs = ir_vreg(x, 0), kept = ir_vreg(t, 0);
   abs.abs = 1;
   const char *err = !same_src(&m->src[0], &neg_neg) ? "-(-x) not folded to x"
                     : !same_src(&m->src[1], &abs)   ? "|-x| not folded to |x|"
                     : !same_src(&a->src[0], &kept)  ? "fmov folded into a u32 operand"
                                                     : NULL;
   t_result("copyprop: fmov modifiers composed, f32 operands only", err, &ir);
}

/* The exactness conditions of the pass: copies that must stay, and one
 * in a loop that SSA makes exact. */
static void
test_copyprop_kept(void)
{
   static const char *names[] = {
      "copyprop: propagates a copy inside a loop (SSA: x cannot change in between)",
      "copyprop: keeps a copy of a vreg written again (reg)",
      "copyprop: keeps a copy into a vreg written twice",
      /* a phi with an undefined source (nir_convert_from_ssa): the NIR
       * register's one write is in the if, the read after it, which x's
       * write does not dominate (a helper-skipped atomic's result) */
      "copyprop: keeps a copy into a NIR register written once in an if",
   };
   for (unsigned k = 0; k < ARRAY_SIZE(names); k++) {
      vagx_ir ir;
      t_begin(&ir);
      uint32_t x = vagx_ir_new_vreg(&ir, 1), t = vagx_ir_new_vreg(&ir, 1);
      if (k == 1)
         ir.vregs[x].reg = true;
      if (k == 3) {
         ir.vregs[t].reg = true;
         vagx_ir_emit(&ir, VAGX_OP_IF, -1, 0, ir_file(IR_U, 3), ir_none(), ir_none());
      }
      vagx_ir_emit(&ir, VAGX_OP_FADD, x, 0, ir_file(IR_U, 0), ir_file(IR_U, 1), ir_none());
      if (k == 0) /* SSA: x's one write dominates the copy, which
                   * dominates t's readers, in every iteration */
         vagx_ir_emit(&ir, VAGX_OP_LOOP, -1, 0, ir_none(), ir_none(), ir_none());
      vagx_ir_emit(&ir, VAGX_OP_MOV, t, 0, ir_vreg(x, 0), ir_none(), ir_none());
      if (k == 1)
         vagx_ir_emit(&ir, VAGX_OP_FADD, x, 0, ir_vreg(x, 0), ir_file(IR_U, 1), ir_none());
      if (k == 2)
         vagx_ir_emit(&ir, VAGX_OP_MOV, t, 0, ir_file(IR_U, 5), ir_none(), ir_none());
      if (k == 3)
         vagx_ir_emit(&ir, VAGX_OP_ENDIF, -1, 0, ir_none(), ir_none(), ir_none());
      vagx_ir_src r = vagx_ir_alu(&ir, VAGX_OP_FADD, 0, ir_vreg(t, 0), ir_file(IR_U, 2), ir_none());
      const unsigned use = ir.num_instrs - 1;
      if (k == 0) {
         vagx_ir_emit(&ir, VAGX_OP_BREAK, -1, 0, ir_none(), ir_none(), ir_none());
         vagx_ir_emit(&ir, VAGX_OP_ENDLOOP, -1, 0, ir_none(), ir_none(), ir_none());
      }
      out(&ir, r, 0);
      end_program(&ir);
      vagx_opt_copyprop(&ir);
      const vagx_ir_src want = ir_vreg(k == 0 ? x : t, 0);
      t_result(names[k], same_src(&ir.instrs[use].src[0], &want)
                            ? NULL
                            : (k == 0 ? "not propagated" : "propagated"),
               &ir);
   }
}

/* An immediate copy into an instruction that already has the encoding's
 * two immediates stays a register: legalisation would copy it back. */
static void
test_copyprop_imm_limit(void)
{
   vagx_ir ir;
   t_begin(&ir);
   uint32_t t = vagx_ir_new_vreg(&ir, 1);
   vagx_ir_emit(&ir, VAGX_OP_MOV, t, 0, ir_imm(fui(5.0f)), ir_none(), ir_none());
   vagx_ir_src r =
      vagx_ir_alu(&ir, VAGX_OP_FFMA, 0, ir_imm(fui(3.0f)), ir_imm(fui(4.0f)), ir_vreg(t, 0));
   vagx_ir_src q = vagx_ir_alu(&ir, VAGX_OP_FADD, 0, ir_vreg(t, 0), r, ir_none());
   out(&ir, q, 0);
   end_program(&ir);
   vagx_opt_copyprop(&ir);
   const vagx_ir_src want = ir_vreg(t, 0), imm = ir_imm(fui(5.0f));
   const char *err = !same_src(&find(&ir, VAGX_OP_FFMA)->src[2], &want) ? "third immediate folded"
                     : !same_src(&find(&ir, VAGX_OP_FADD)->src[0], &imm) ? "first immediate not folded"
                                                                         : NULL;
   t_result("copyprop: folds an immediate only where the encoding holds it", err, &ir);
}

/* --- dead-code elimination -------------------------------------------------- */

static void
test_dce(void)
{
   vagx_ir ir;
   t_begin(&ir);
   /* a dead chain, a dead loop-carried chain (its last reader comes
    * first), a live value written twice, a store and an atomic whose
    * results nobody reads */
   vagx_ir_src d0 = vagx_ir_alu(&ir, VAGX_OP_FADD, 0, ir_file(IR_U, 0), ir_file(IR_U, 1), ir_none());
   vagx_ir_alu(&ir, VAGX_OP_FMUL, 0, d0, d0, ir_none());
   uint32_t a = vagx_ir_new_vreg(&ir, 1);
   ir.vregs[a].reg = true; /* loop-carried */
   vagx_ir_emit(&ir, VAGX_OP_LOOP, -1, 0, ir_none(), ir_none(), ir_none());
   vagx_ir_alu(&ir, VAGX_OP_FMUL, 0, ir_vreg(a, 0), ir_vreg(a, 0), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_FADD, a, 0, ir_file(IR_U, 0), ir_file(IR_U, 3), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_BREAK, -1, 0, ir_none(), ir_none(), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_ENDLOOP, -1, 0, ir_none(), ir_none(), ir_none());
   uint32_t r = vagx_ir_new_vreg(&ir, 1);
   ir.vregs[r].reg = true; /* written twice */
   vagx_ir_emit(&ir, VAGX_OP_MOV, r, 0, ir_imm(1), ir_none(), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_IF, -1, 0, ir_file(IR_U, 2), ir_none(), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_MOV, r, 0, ir_imm(2), ir_none(), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_ENDIF, -1, 0, ir_none(), ir_none(), ir_none());
   uint32_t addr = vagx_ir_new_vreg(&ir, 2);
   vagx_ir_emit(&ir, VAGX_OP_MOV, addr, 0, ir_file(IR_U, 4), ir_none(), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_MOV, addr, 1, ir_file(IR_U, 5), ir_none(), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_ATOM_GLOBAL, vagx_ir_new_vreg(&ir, 1), 0, ir_vreg(addr, 0),
                ir_imm(0), ir_imm(1));
   out(&ir, ir_vreg(r, 0), 0);
   end_program(&ir);
   const unsigned before = ir.num_instrs;
   bool p = vagx_opt_dce(&ir);
   char why[160];
   const char *err = !p                                  ? "no progress"
                     : ir.num_instrs != before - 4        ? "not exactly the dead chains removed"
                     : find(&ir, VAGX_OP_FADD)            ? "a dead fadd kept"
                     : t_count_op(&ir, VAGX_OP_MOV) != 4       ? "a write of a live vreg removed"
                     : !find(&ir, VAGX_OP_ATOM_GLOBAL)         ? "atomic removed"
                     : !validate(&ir, false, why, sizeof(why)) ? why
                                                          : NULL;
   t_result("dce: removes dead chains, keeps live writes and memory effects", err, &ir);
}

/* --- the generated builder ---------------------------------------------------- */

/* The value of the mod field `name` of the last instruction, read back with
 * the ISA tables' own field layout. */
static int
field(const vagx_ir *ir, const char *name)
{
   const vagx_ir_instr *I = &ir->instrs[ir->num_instrs - 1];
   struct vagx_instr M = { 0 };
   M.op = I->op;
   M.mod = I->mod;
   for (unsigned f = 0; f < vagx_info(I->op)->nfields; f++)
      if (!strcmp(vagx_op_field(I->op, f)->name, name))
         return vagx_field_get(&M, vagx_op_field(I->op, f));
   return -1;
}

static void
test_builder(void)
{
   vagx_ir ir;
   t_begin(&ir);
   const char *err = NULL;
   vagx_ir_src a = vagx_iter(&ir, VAGX_ITERLOC_SAMPLE, true, false, ir_file(IR_CF, 2),
                             ir_file(IR_CF, 0), ir_imm(1));
   if (field(&ir, "loc") != VAGX_ITERLOC_SAMPLE || field(&ir, "persp") != 1 || field(&ir, "f16") != 0)
      err = "iter: loc/persp/f16 not where the ISA puts them";
   vagx_iter(&ir, VAGX_ITERLOC_CENTER, false, true, ir_file(IR_CF, 2), ir_file(IR_CF, 0), ir_imm(0));
   if (!err && (field(&ir, "loc") != VAGX_ITERLOC_CENTER || field(&ir, "persp") != 0 ||
                field(&ir, "f16") != 1))
      err = "iter: f16 not where the ISA puts it";
   vagx_icmp(&ir, VAGX_ICOND_SLT, a, ir_imm(0));
   if (!err && field(&ir, "cond") != VAGX_ICOND_SLT)
      err = "icmp: cond";
   vagx_ir_src b = vagx_fadd(&ir, a, ir_file(IR_U, 0));
   out(&ir, b, 0);
   end_program(&ir);
   char why[160];
   if (!err && !validate(&ir, false, why, sizeof(why)))
      err = why;
   t_result("builder: mod fields packed as vagx_isa.xml lays them out, valid operands", err, &ir);
}

int
main(void)
{
   printf("TAP version 13\n");
   test_validate();
   test_copyprop_imm_uniform();
   test_copyprop_modifiers();
   test_copyprop_kept();
   test_copyprop_imm_limit();
   test_dce();
   test_builder();
   return t_finish();
}
