/* SPDX-License-Identifier: MIT */
/* The register-pressure scheduler (TAP): programs written in the IR,
 * scheduled, checked for the order the dependences require and for the
 * registers the allocator then needs. */
#include "vagx_test_asm.h"

/* index of the instruction that writes vreg v (first one), -1 none */
static int
writer(const vagx_ir *ir, unsigned v)
{
   for (unsigned i = 0; i < ir->num_instrs; i++)
      if (ir->instrs[i].has_dst && ir->instrs[i].dst == v)
         return i;
   return -1;
}

static int
index_of(const vagx_ir *ir, unsigned op)
{
   for (unsigned i = 0; i < ir->num_instrs; i++)
      if (ir->instrs[i].op == op)
         return i;
   return -1;
}

static unsigned
gprs_after_ra(const char *src, bool schedule)
{
   vagx_ir ir;
   t_assemble(&ir, src);
   if (schedule)
      vagx_schedule(&ir);
   unsigned n = vagx_ra(&ir) ? t_info.gpr_count : ~0u;
   vagx_ir_fini(&ir);
   return n;
}

static void
check_valid(vagx_ir *ir, char *err, size_t size)
{
   char why[192];
   if (!err[0] && !vagx_validate_ir(ir, true, why, sizeof(why)))
      snprintf(err, size, "invalid after scheduling: %s", why);
}

int
main(void)
{
   static char err[192];

   /* four values made first and stored last: each mov sinks to its
    * st_var, the stores keep their order, one register instead of four */
   {
      const char *src = "mov 1; mov 2; mov 3; mov 4; use 1; use 2; use 3; use 4; end";
      vagx_ir ir;
      t_assemble(&ir, src);
      err[0] = '\0';
      if (!vagx_schedule(&ir))
         snprintf(err, sizeof(err), "nothing scheduled");
      for (unsigned v = 1; v <= 4 && !err[0]; v++)
         if (writer(&ir, v) < 0 || ir.instrs[writer(&ir, v) + 1].op != VAGX_OP_ST_VAR ||
             ir.instrs[writer(&ir, v) + 1].src[0].v != v)
            snprintf(err, sizeof(err), "v%u is not made just before its use", v);
      if (!err[0] && strcmp(t_stored(&ir), "1 2 3 4"))
         snprintf(err, sizeof(err), "stores reordered: %s", t_stored(&ir));
      check_valid(&ir, err, sizeof(err));
      t_result("values sink to their uses", err[0] ? err : NULL, &ir);

      const unsigned before = gprs_after_ra(src, false), after = gprs_after_ra(src, true);
      err[0] = '\0';
      if (before != 4 || after != 1)
         snprintf(err, sizeof(err), "%u GPRs unscheduled, %u scheduled (expected 4, 1)", before,
                  after);
      t_result("fewer registers after allocation", err[0] ? err : NULL, NULL);
   }

   /* an order that is already best is kept */
   {
      vagx_ir ir;
      t_assemble(&ir, "mov 1; use 1; mov 2; use 2; add 3 1 2; use 3; end");
      t_result("best order kept", vagx_schedule(&ir) ? "reordered" : NULL, &ir);
   }

   /* a discard ends a region: what was made above it stays above it */
   {
      vagx_ir ir;
      t_begin(&ir);
      t_vreg(&ir, 3);
      vagx_ir_emit(&ir, VAGX_OP_MOV, 1, 0, ir_imm(1), ir_none(), ir_none());
      vagx_ir_emit(&ir, VAGX_OP_MOV, 2, 0, ir_imm(2), ir_none(), ir_none());
      vagx_ir_emit(&ir, VAGX_OP_DISCARD, -1, 0, ir_none(), ir_none(), ir_none());
      vagx_ir_emit(&ir, VAGX_OP_ST_VAR, -1, 0, ir_vreg(1, 0), ir_imm(0), ir_none());
      vagx_ir_emit(&ir, VAGX_OP_ST_VAR, -1, 0, ir_vreg(2, 0), ir_imm(0), ir_none());
      vagx_ir_emit(&ir, VAGX_OP_END, -1, 0, ir_none(), ir_none(), ir_none());
      ir.stage = MESA_SHADER_FRAGMENT;
      vagx_ir_build_cfg(&ir);
      vagx_schedule(&ir);
      err[0] = '\0';
      const int d = index_of(&ir, VAGX_OP_DISCARD);
      if (writer(&ir, 1) > d || writer(&ir, 2) > d)
         snprintf(err, sizeof(err), "a mov moved across the discard");
      t_result("nothing crosses a discard", err[0] ? err : NULL, &ir);
   }

   /* a NIR register: its read between two writes stays between them,
    * although sinking the read to the late use of its copy would shorten
    * v2's range */
   {
      vagx_ir ir;
      t_assemble(&ir, "reg 0; mov 1; mov 0; copy 2 0; add 0 1 1; use 0; mov 4; use 4; "
                      "use 2; end");
      vagx_schedule(&ir);
      err[0] = '\0';
      int w0 = -1, r = -1, w1 = -1;
      for (unsigned i = 0; i < ir.num_instrs; i++) {
         const vagx_ir_instr *I = &ir.instrs[i];
         if (I->op == VAGX_OP_MOV && I->dst == 0)
            w0 = i;
         if (I->op == VAGX_OP_MOV && I->dst == 2)
            r = i;
         if (I->op == VAGX_OP_IADD && I->dst == 0)
            w1 = i;
      }
      if (!(w0 < r && r < w1))
         snprintf(err, sizeof(err), "register accesses reordered (%d %d %d)", w0, r, w1);
      if (!err[0] && strcmp(t_stored(&ir), "0 4 2"))
         snprintf(err, sizeof(err), "stores reordered: %s", t_stored(&ir));
      check_valid(&ir, err, sizeof(err));
      t_result("register accesses keep their order", err[0] ? err : NULL, &ir);
   }

   /* blocks are scheduled on their own: the if's condition and the
    * values read in the branches are made before the if */
   {
      vagx_ir ir;
      t_assemble(&ir, "mov 1; mov 2; mov 3; mov 5; if 5; use 1; use 2; else; use 3; endif; "
                      "use 1; end");
      vagx_schedule(&ir);
      err[0] = '\0';
      const int f = index_of(&ir, VAGX_OP_IF);
      for (unsigned v = 1; v <= 5 && !err[0]; v++)
         if (v != 4 && writer(&ir, v) > f)
            snprintf(err, sizeof(err), "v%u moved into another block", v);
      if (!err[0] && strcmp(t_stored(&ir), "1 2 3 1"))
         snprintf(err, sizeof(err), "stores reordered: %s", t_stored(&ir));
      check_valid(&ir, err, sizeof(err));
      t_result("blocks stay apart", err[0] ? err : NULL, &ir);
   }
   return t_finish();
}
