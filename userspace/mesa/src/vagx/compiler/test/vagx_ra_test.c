/* SPDX-License-Identifier: MIT */
/* Register allocation unit tests (TAP).  After vagx_ra, an independent
 * checker walks every block backwards from its live-out set (vagx_liveness)
 * and fails when two vregs live at the same point, or a write and a vreg
 * live after it, share a GPR; the tests then check what the programs are
 * built to catch: values live around loops, loop-carried registers,
 * contiguous vectors, reuse of dead registers (also in the holes of a live
 * range), and the clean failure when
 * the contract's register file (VAGX_MAX_GPRS) is too small. */
#include "vagx_hw.h"
#include "vagx_test_asm.h"

static bool
overlap(const vagx_ir *ir, unsigned a, unsigned b)
{
   const vagx_vreg *x = &ir->vregs[a], *y = &ir->vregs[b];
   return x->hw < y->hw + y->size && y->hw < x->hw + x->size;
}

/* NULL when the assignment is sound; every write here is a whole vreg
 * except vectors written per component, which stay live up to the block
 * start (conservative). */
static const char *
check_assignment(vagx_ir *ir)
{
   static char err[160];
   const unsigned words = BITSET_WORDS(MAX2(ir->num_vregs, 1));
   BITSET_WORD *live = calloc(words, sizeof(BITSET_WORD));
   const char *e = NULL;
   for (unsigned v = 0; v < ir->num_vregs; v++) {
      const vagx_vreg *r = &ir->vregs[v];
      if (r->start >= 0 && (r->hw < 0 || r->hw + r->size > VAGX_MAX_GPRS)) {
         snprintf(err, sizeof(err), "v%u in r%d..r%d, outside the register file", v, r->hw,
                  r->hw + r->size - 1);
         free(live);
         return err;
      }
   }
   for (unsigned b = 0; !e && b < ir->num_blocks; b++) {
      const vagx_block *B = &ir->blocks[b];
      memcpy(live, B->live_out, words * sizeof(BITSET_WORD));
      for (unsigned i = B->end; !e && i-- > B->start;) {
         const vagx_ir_instr *I = &ir->instrs[i];
         if (I->has_dst)
            BITSET_SET(live, I->dst);
         unsigned x, y;
         BITSET_FOREACH_SET(x, live, ir->num_vregs) {
            BITSET_FOREACH_SET(y, live, ir->num_vregs) {
               if (x < y && !e && overlap(ir, x, y)) {
                  snprintf(err, sizeof(err), "v%u (r%d) and v%u (r%d) both live at %u", x,
                           ir->vregs[x].hw, y, ir->vregs[y].hw, i);
                  e = err;
               }
            }
         }
         if (I->has_dst && ir->vregs[I->dst].size == 1)
            BITSET_CLEAR(live, I->dst);
         for (unsigned s = 0; s < 3; s++)
            if (I->src[s].file == IR_VREG)
               BITSET_SET(live, I->src[s].v);
      }
   }
   free(live);
   return e;
}

static void
run(const char *name, vagx_ir *ir, const char *(*extra)(const vagx_ir *ir))
{
   const char *e = !vagx_ra(ir) ? ir->error : check_assignment(ir);
   if (!e && extra)
      e = extra(ir);
   t_result(name, e, ir);
}

static const char *
one_reg(const vagx_ir *ir)
{
   return ir->info->gpr_count == 1 ? NULL : "a dead value's register not reused";
}

static void
test_reuse(void)
{
   vagx_ir ir;
   t_assemble(&ir, "mov 0; use 0; mov 1; use 1; mov 2; use 2; end");
   run("ra: values live one after another share one register", &ir, one_reg);
}

static const char *
v0_v1_apart(const vagx_ir *ir)
{
   return ir->vregs[0].hw != ir->vregs[1].hw ? NULL : "v0 and v1 share a register";
}

static void
test_live_around_loop(void)
{
   /* v0's last read in program order comes before v1's write, but the
    * back edge reads v0 again in the next iteration */
   vagx_ir ir;
   t_assemble(&ir, "mov 0; mov 5; loop; if 5; break; endif; use 0; mov 1; use 1; endloop; end");
   run("ra: a value read in a loop keeps its register through the whole loop", &ir,
       v0_v1_apart);
}

static void
test_loop_carried(void)
{
   /* v0 (a NIR register) is read at the top of the body and written at the
    * bottom; v1 lives between, v2 after the loop */
   vagx_ir ir;
   t_assemble(&ir, "reg 0; mov 0; mov 5; loop; if 5; break; endif; add 1 0 5; use 1; "
                   "add 0 1 5; endloop; use 0; mov 2; use 2; end");
   run("ra: a loop-carried register survives the back edge", &ir, v0_v1_apart);
}

static void
test_if_sides(void)
{
   vagx_ir ir;
   t_assemble(&ir, "mov 0; if 0; mov 1; use 1; else; mov 2; use 2; endif; use 0; end");
   run("ra: values on both sides of an if, and one live across it", &ir, NULL);
}

static const char *
two_regs(const vagx_ir *ir)
{
   return ir->info->gpr_count == 2 ? NULL : "v0 kept its register on the then side";
}

static void
test_hole(void)
{
   /* v0 is read on the else side only: dead on the then side, where v2
    * and v3 (live at once) need two registers besides nothing else */
   vagx_ir ir;
   t_assemble(&ir, "mov 0; mov 1; if 1; mov 2; add 3 2 2; use 3; else; use 0; endif; end");
   run("ra: a value read only on the else side leaves its register to the then side", &ir,
       two_regs);
}

static const char *
vec_contiguous(const vagx_ir *ir)
{
   const vagx_vreg *v = &ir->vregs[3];
   return v->size == 4 && v->hw >= 0 && v->hw + 4 <= (int)ir->info->gpr_count
             ? NULL
             : "vector not in 4 allocated registers";
}

static void
test_vector(void)
{
   vagx_ir ir;
   t_begin(&ir);
   for (unsigned k = 0; k < 3; k++)
      vagx_ir_emit(&ir, VAGX_OP_MOV, vagx_ir_new_vreg(&ir, 1), 0, ir_imm(k), ir_none(),
                   ir_none());
   uint32_t v = vagx_ir_new_vreg(&ir, 4);
   for (unsigned c = 0; c < 4; c++)
      vagx_ir_emit(&ir, VAGX_OP_MOV, v, c, ir_vreg(c % 3, 0), ir_none(), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_ST_TILE, -1, 0, ir_vreg(v, 0), ir_imm(0), ir_none());
   for (unsigned k = 0; k < 3; k++)
      vagx_ir_emit(&ir, VAGX_OP_ST_VAR, -1, 0, ir_vreg(k, 0), ir_imm(k), ir_none());
   t_cf(&ir, VAGX_OP_END, ir_none(), 0);
   run("ra: a vector vreg in consecutive registers, apart from the live scalars", &ir,
       vec_contiguous);
}

/* n values written, then all read: n registers live at once */
static bool
pressure(unsigned n, const char **err)
{
   vagx_ir ir;
   t_begin(&ir);
   for (unsigned k = 0; k < n; k++)
      vagx_ir_emit(&ir, VAGX_OP_MOV, vagx_ir_new_vreg(&ir, 1), 0, ir_imm(k), ir_none(),
                   ir_none());
   for (unsigned k = 0; k < n; k++)
      vagx_ir_emit(&ir, VAGX_OP_ST_VAR, -1, 0, ir_vreg(k, 0), ir_imm(k), ir_none());
   t_cf(&ir, VAGX_OP_END, ir_none(), 0);
   bool ok = vagx_ra(&ir);
   *err = ok ? check_assignment(&ir) : ir.error;
   if (ok && !*err && t_info.gpr_count != n)
      *err = "not exactly one register per live value";
   vagx_ir_fini(&ir);
   return ok;
}

static void
test_pressure(void)
{
   const char *err = NULL, *e = NULL;
   if (!pressure(VAGX_MAX_GPRS, &err) || err)
      e = err ? err : "failed";
   else if (pressure(VAGX_MAX_GPRS + 1, &err))
      e = "more live values than VAGX_MAX_GPRS allocated";
   else if (!err || !strstr(err, "register allocation failed"))
      e = "no error message";
   t_result("ra: VAGX_MAX_GPRS live values fit, one more fails cleanly", e, NULL);
}

int
main(void)
{
   printf("TAP version 13\n");
   test_reuse();
   test_live_around_loop();
   test_loop_carried();
   test_if_sides();
   test_hole();
   test_vector();
   test_pressure();
   return t_finish();
}
