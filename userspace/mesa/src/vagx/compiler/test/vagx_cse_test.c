/* SPDX-License-Identifier: MIT */
/* CSE unit tests (TAP): vagx_opt_cse removes an instruction that repeats
 * one in the same block or in a dominating block, and its readers read the
 * first result; it keeps repeats on other paths, repeats that read a NIR
 * register written in between, memory loads and derivatives, and
 * instructions that differ in a modifier.  Every result is validated. */
#include "vagx_test_asm.h"

/* Run CSE on `ir`; want `progress`, `left` instructions of opcode `op`
 * and the stores reading `uses` (as t_stored() prints them). */
static void
check(const char *name, vagx_ir *ir, bool progress, unsigned op, unsigned left, const char *uses)
{
   static char err[160];
   const char *e = err;
   const bool p = vagx_opt_cse(ir);
   if (p != progress)
      e = p ? "changed the program" : "no progress";
   else if (t_count_op(ir, op) != left)
      snprintf(err, sizeof(err), "%u of the op left, want %u", t_count_op(ir, op), left);
   else if (strcmp(t_stored(ir), uses))
      snprintf(err, sizeof(err), "stores read '%s', want '%s'", t_stored(ir), uses);
   else if (!vagx_validate_ir(ir, false, err, sizeof(err)))
      ;
   else
      e = NULL;
   t_result(name, e, ir);
}

static void
test_same_block(void)
{
   vagx_ir ir;
   t_assemble(&ir, "mov 0; mov 1; add 2 0 1; add 3 0 1; add 4 1 0; use 2; use 3; use 4; end");
   check("cse: a repeat in the same block goes, its readers read the first", &ir, true,
         VAGX_OP_IADD, 2, "2 2 4");
}

static void
test_dominating(void)
{
   vagx_ir ir;
   t_assemble(&ir, "mov 0; mov 1; add 2 0 1; if 0; add 3 0 1; use 3; else; loop; add 4 0 1; "
                   "use 4; break; endloop; endif; add 5 0 1; use 5; end");
   check("cse: repeats in blocks the first dominates (if sides, a loop, after endif) go", &ir,
         true, VAGX_OP_IADD, 1, "2 2 2");
}

static void
test_other_paths(void)
{
   vagx_ir ir;
   t_assemble(&ir, "mov 0; mov 1; if 0; add 2 0 1; use 2; else; add 3 0 1; use 3; endif; "
                   "add 4 0 1; use 4; end");
   check("cse: repeats on paths the first is not on stay", &ir, false, VAGX_OP_IADD, 3,
         "2 3 4");
}

static void
test_register(void)
{
   vagx_ir ir;
   t_assemble(&ir, "reg 0; mov 0; mov 1; add 2 0 1; use 2; add 0 1 1; add 3 0 1; use 3; end");
   check("cse: a repeat reading a NIR register written in between stays", &ir, false,
         VAGX_OP_IADD, 3, "2 3");
}

static void
test_not_pure(void)
{
   /* two loads of the same address, two derivatives of the same value,
    * an fadd with and without a negated operand */
   vagx_ir ir;
   t_begin(&ir);
   uint32_t a = vagx_ir_new_vreg(&ir, 1), l0 = vagx_ir_new_vreg(&ir, 1),
            l1 = vagx_ir_new_vreg(&ir, 1), d0 = vagx_ir_new_vreg(&ir, 1),
            d1 = vagx_ir_new_vreg(&ir, 1), f0 = vagx_ir_new_vreg(&ir, 1),
            f1 = vagx_ir_new_vreg(&ir, 1);
   vagx_ir_emit(&ir, VAGX_OP_MOV, a, 0, ir_file(IR_U, 2), ir_none(), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_LD_GLOBAL, l0, 0, ir_file(IR_U, 0), ir_vreg(a, 0), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_LD_GLOBAL, l1, 0, ir_file(IR_U, 0), ir_vreg(a, 0), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_FDDX, d0, 0, ir_vreg(l0, 0), ir_none(), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_FDDX, d1, 0, ir_vreg(l0, 0), ir_none(), ir_none());
   vagx_ir_src neg = ir_vreg(l1, 0);
   neg.neg = 1;
   vagx_ir_emit(&ir, VAGX_OP_FADD, f0, 0, ir_vreg(d0, 0), ir_vreg(l1, 0), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_FADD, f1, 0, ir_vreg(d0, 0), neg, ir_none());
   const uint32_t outs[] = { l1, d1, f0, f1 };
   for (unsigned k = 0; k < ARRAY_SIZE(outs); k++)
      vagx_ir_emit(&ir, VAGX_OP_ST_VAR, -1, 0, ir_vreg(outs[k], 0), ir_imm(k), ir_none());
   t_cf(&ir, VAGX_OP_END, ir_none(), 0);
   vagx_ir_build_cfg(&ir);
   check("cse: loads, derivatives and a different modifier stay", &ir, false, VAGX_OP_LD_GLOBAL,
         2, "2 4 5 6");
}

int
main(void)
{
   printf("TAP version 13\n");
   test_same_block();
   test_dominating();
   test_other_paths();
   test_register();
   test_not_pure();
   return t_finish();
}
