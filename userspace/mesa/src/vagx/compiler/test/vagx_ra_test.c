/* SPDX-License-Identifier: MIT */
/* Register allocation unit tests (TAP).  After vagx_ra, an independent
 * checker walks every block backwards from its live-out set (vagx_liveness)
 * and fails when two vregs live at the same point, or a write and a vreg
 * live after it, share a GPR; the tests then check what the programs are
 * built to catch: values live around loops, loop-carried registers,
 * contiguous vectors, reuse of dead registers (also in the holes of a live
 * range), copies that take their dying source's register, and spilling
 * (with a sound assignment) when the contract's register file
 * (VAGX_MAX_GPRS) is too small. */
#include "vagx_hw.h"
#include "vagx_test_asm.h"

static bool
overlap(const vagx_ir *ir, unsigned a, unsigned b)
{
   const vagx_vreg *x = &ir->vregs[a], *y = &ir->vregs[b];
   return x->hw < y->hw + y->size && y->hw < x->hw + x->size;
}

/* NULL when the assignment is sound.  Per register of each vreg: a write
 * of it ends its life (walking backwards), a read starts it; two
 * registers of different vregs live at the same point, or a write and a
 * register live after it, must be in different GPRs.  Live-out sets are
 * per vreg: every register of a live-out vreg is live. */
static const char *
check_assignment(vagx_ir *ir)
{
   static char err[160];
   unsigned *base = calloc(ir->num_vregs + 1, sizeof(unsigned));
   unsigned total = 0;
   for (unsigned v = 0; v < ir->num_vregs; v++) {
      const vagx_vreg *r = &ir->vregs[v];
      base[v] = total;
      total += r->size;
      if (r->start >= 0 && (r->hw < 0 || r->hw + r->size > VAGX_MAX_GPRS)) {
         snprintf(err, sizeof(err), "v%u in r%d..r%d, outside the register file", v, r->hw,
                  r->hw + r->size - 1);
         free(base);
         return err;
      }
   }
   /* owner[g]: the vreg register (base + comp) + 1 live in GPR g, 0 none */
   unsigned *vreg_of = calloc(total + 1, sizeof(unsigned));
   for (unsigned v = 0; v < ir->num_vregs; v++)
      for (unsigned c = 0; c < ir->vregs[v].size; c++)
         vreg_of[base[v] + c] = v;
   BITSET_WORD *live = calloc(BITSET_WORDS(total + 1), sizeof(BITSET_WORD));
   const char *e = NULL;
   for (unsigned b = 0; !e && b < ir->num_blocks; b++) {
      const vagx_block *B = &ir->blocks[b];
      memset(live, 0, BITSET_WORDS(total + 1) * sizeof(BITSET_WORD));
      unsigned v;
      BITSET_FOREACH_SET(v, B->live_out, ir->num_vregs)
         for (unsigned c = 0; c < ir->vregs[v].size; c++)
            BITSET_SET(live, base[v] + c);
      for (unsigned i = B->end; !e && i-- > B->start;) {
         const vagx_ir_instr *I = &ir->instrs[i];
         struct vagx_instr M = { .op = I->op, .mod = I->mod, .imm = { 0, I->ext } };
         const unsigned nd = I->has_dst ? vagx_dst_regs(&M) : 0;
         for (unsigned c = 0; c < nd; c++)
            BITSET_SET(live, base[I->dst] + I->dst_comp + c);
         unsigned x, y;
         BITSET_FOREACH_SET(x, live, total) {
            BITSET_FOREACH_SET(y, live, total) {
               const unsigned vx = vreg_of[x], vy = vreg_of[y];
               if (x < y && vx != vy && !e &&
                   ir->vregs[vx].hw + (int)(x - base[vx]) == ir->vregs[vy].hw + (int)(y - base[vy])) {
                  snprintf(err, sizeof(err), "v%u.%u and v%u.%u both live in r%d at %u", vx,
                           x - base[vx], vy, y - base[vy], ir->vregs[vx].hw + (int)(x - base[vx]),
                           i);
                  e = err;
               }
            }
         }
         for (unsigned c = 0; c < nd; c++)
            BITSET_CLEAR(live, base[I->dst] + I->dst_comp + c);
         for (unsigned s = 0; s < 3; s++)
            if (I->src[s].file == IR_VREG)
               for (unsigned c = 0; c < vagx_src_regs(&M, s); c++)
                  BITSET_SET(live, base[I->src[s].v] + I->src[s].comp + c);
      }
   }
   free(live);
   free(vreg_of);
   free(base);
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
copies_coalesced(const vagx_ir *ir)
{
   /* v1 = v0 (v0 dies): same register; v2 = v1 (v1 read later) and v3
    * = v1 (nobody reads v3, v1 is read later): not */
   if (ir->vregs[1].hw != ir->vregs[0].hw)
      return "the copy of a dying value got another register";
   if (ir->vregs[2].hw == ir->vregs[1].hw || ir->vregs[3].hw == ir->vregs[1].hw)
      return "the copy of a live value shares its register";
   return NULL;
}

static void
test_copies(void)
{
   vagx_ir ir;
   t_assemble(&ir, "mov 0; copy 1 0; copy 2 1; use 2; copy 3 1; use 1; end");
   run("ra: a copy of a value that dies there gets its register (the move goes)", &ir,
       copies_coalesced);
}

static const char *
vector_from_dying(const vagx_ir *ir)
{
   for (unsigned c = 0; c < 4; c++)
      if (ir->vregs[4].hw + (int)c != ir->vregs[c].hw)
         return "a component not in its source's register";
   return ir->info->gpr_count == 4 ? NULL : "more than four registers";
}

/* n scalars, a vec4 built from them by copies (component c from scalar
 * c % n) and stored; with `keep`, the scalars are stored after it. */
static void
vector_program(vagx_ir *ir, unsigned n, bool keep)
{
   t_begin(ir);
   for (unsigned k = 0; k < n; k++)
      vagx_ir_emit(ir, VAGX_OP_MOV, vagx_ir_new_vreg(ir, 1), 0, ir_imm(k), ir_none(), ir_none());
   uint32_t v = vagx_ir_new_vreg(ir, 4);
   for (unsigned c = 0; c < 4; c++)
      vagx_ir_emit(ir, VAGX_OP_MOV, v, c, ir_vreg(c % n, 0), ir_none(), ir_none());
   vagx_ir_emit(ir, VAGX_OP_ST_TILE, -1, 0, ir_vreg(v, 0), ir_imm(0), ir_none());
   for (unsigned k = 0; keep && k < n; k++)
      vagx_ir_emit(ir, VAGX_OP_ST_VAR, -1, 0, ir_vreg(k, 0), ir_imm(k), ir_none());
   t_cf(ir, VAGX_OP_END, ir_none(), 0);
}

static void
test_vector_copies(void)
{
   /* four scalars (live at once) copied into a vec4 and dying there: the
    * vector lands on them, no register is added */
   vagx_ir ir;
   vector_program(&ir, 4, false);
   run("ra: a vector built from copies of dying scalars takes their registers", &ir,
       vector_from_dying);
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
   vector_program(&ir, 3, true);
   run("ra: a vector vreg in consecutive registers, apart from the live scalars", &ir,
       vec_contiguous);
}

/* n values written, then all read: n registers live at once */
static bool
pressure(unsigned n, const char **err)
{
   vagx_ir ir;
   t_begin(&ir);
   /* computed from the sample mask: values of immediates would be
    * rematerialised */
   for (unsigned k = 0; k < n; k++)
      vagx_ir_emit(&ir, VAGX_OP_IADD, vagx_ir_new_vreg(&ir, 1), 0,
                   ir_file(IR_SR, VAGX_SR_SAMPLE_MASK), ir_imm(k), ir_none());
   for (unsigned k = 0; k < n; k++)
      vagx_ir_emit(&ir, VAGX_OP_ST_VAR, -1, 0, ir_vreg(k, 0), ir_imm(k), ir_none());
   t_cf(&ir, VAGX_OP_END, ir_none(), 0);
   bool ok = vagx_ra(&ir);
   *err = ok ? check_assignment(&ir) : ir.error;
   if (ok && !*err && n <= VAGX_MAX_GPRS && (t_info.gpr_count != n || t_info.stat_spills))
      *err = "not exactly one register per live value";
   if (ok && !*err && n > VAGX_MAX_GPRS && (t_info.gpr_count > VAGX_MAX_GPRS || !t_info.stat_spills))
      *err = "more live values than VAGX_MAX_GPRS allocated without spilling";
   vagx_ir_fini(&ir);
   return ok;
}

static void
test_pressure(void)
{
   const char *err = NULL, *e = NULL;
   if (!pressure(VAGX_MAX_GPRS, &err) || err)
      e = err ? err : "failed";
   else if (!pressure(VAGX_MAX_GPRS + 1, &err) || err)
      e = err ? err : "failed";
   t_result("ra: VAGX_MAX_GPRS live values fit, one more spills (vagx_spill_test checks the "
            "values)", e, NULL);
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
   test_copies();
   test_vector_copies();
   test_pressure();
   return t_finish();
}
