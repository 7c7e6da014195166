/* SPDX-License-Identifier: MIT */
/* Spilling unit tests (TAP): programs that need more than VAGX_MAX_GPRS
 * registers go through vagx_ra (which spills with vagx_spill) and are then
 * run by a one-lane evaluator of the allocated program -- hardware
 * registers and the private stack, as the device has them -- so a value
 * that comes back wrong from a slot, a fill read from the wrong offset or
 * a register two live values share shows as a wrong output.  Straight
 * code, values live across an if/else and around a loop with a
 * loop-carried register, vectors spilled by component; programs that fit
 * spill nothing; a program whose slots would exceed VAGX_MAX_STACK_BYTES
 * fails cleanly; copies of immediates and values computed from uniforms
 * are rematerialised instead; values never live at once share stack
 * slots. */
#include "vagx_hw.h"
#include "vagx_test_asm.h"

#define MAX_OUT 1024

/* The uniform registers the evaluator reads. */
static uint32_t
t_uniform(unsigned u)
{
   return 0x100000 * (u + 1);
}

/* Runs the allocated program for one lane; outputs are the st_var values
 * by index (src1 immediate).  NULL or what went wrong. */
static const char *
evaluate(const vagx_ir *ir, uint32_t *out, bool *written)
{
   uint32_t r[VAGX_MAX_GPRS] = { 0 }, stack[VAGX_MAX_STACK_BYTES / 4] = { 0 };
   unsigned loops[64], nloops = 0;
   unsigned steps = 0;
   memset(written, 0, MAX_OUT * sizeof(bool));
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      const vagx_ir_instr *I = &ir->instrs[i];
      if (++steps > 1000000)
         return "does not terminate";
      uint32_t v[3] = { 0 };
      for (unsigned s = 0; s < 3; s++) {
         const vagx_ir_src *S = &I->src[s];
         if (S->file == IR_IMM)
            v[s] = S->v;
         else if (S->file == IR_U)
            v[s] = t_uniform(S->v);
         else if (S->file == IR_VREG)
            v[s] = r[ir->vregs[S->v].hw + S->comp];
      }
      const int d = I->has_dst ? ir->vregs[I->dst].hw + I->dst_comp : -1;
      switch (I->op) {
      case VAGX_OP_MOV: r[d] = v[0]; break;
      case VAGX_OP_IADD: r[d] = v[0] + v[1]; break;
      case VAGX_OP_ICMP: r[d] = v[0] >= v[1] ? ~0u : 0; break; /* icmp.uge only */
      case VAGX_OP_ST_VAR:
         if (v[1] >= MAX_OUT)
            return "st_var index out of range";
         out[v[1]] = v[0];
         written[v[1]] = true;
         break;
      case VAGX_OP_STACK_ST:
      case VAGX_OP_STACK_LD: {
         const unsigned n = vagx_memsize_regs[I->mod & 7];
         if (I->ext % 4 || I->ext + 4 * n > ir->info->stack_size)
            return "stack access outside stack_size";
         for (unsigned c = 0; c < n; c++) {
            if (I->op == VAGX_OP_STACK_ST)
               stack[I->ext / 4 + c] = r[ir->vregs[I->src[0].v].hw + I->src[0].comp + c];
            else
               r[d + c] = stack[I->ext / 4 + c];
         }
         break;
      }
      case VAGX_OP_IF:
      case VAGX_OP_ELSE:
      case VAGX_OP_BREAK: {
         /* skip (one lane: not taken, or the then side done) to the
          * matching else/endif, or past the loop's endloop */
         const bool skip = I->op == VAGX_OP_ELSE || (I->op == VAGX_OP_IF && !v[0]) ||
                           (I->op == VAGX_OP_BREAK && (!(I->mod & 1) || v[0]));
         if (!skip)
            break;
         const bool brk = I->op == VAGX_OP_BREAK;
         int depth = 0;
         for (i++; i < ir->num_instrs; i++) {
            const unsigned op = ir->instrs[i].op;
            if (op == (brk ? VAGX_OP_LOOP : VAGX_OP_IF))
               depth++;
            else if (op == (brk ? VAGX_OP_ENDLOOP : VAGX_OP_ENDIF) && depth-- == 0)
               break;
            else if (!brk && I->op == VAGX_OP_IF && op == VAGX_OP_ELSE && depth == 0)
               break;
         }
         if (brk)
            nloops--;
         break;
      }
      case VAGX_OP_LOOP: loops[nloops++] = i; break;
      case VAGX_OP_ENDLOOP: i = loops[nloops - 1]; break;
      case VAGX_OP_ENDIF: break;
      case VAGX_OP_END: return NULL;
      default: return "unexpected opcode";
      }
   }
   return "ran off the end";
}

static unsigned
count_op(const vagx_ir *ir, unsigned op)
{
   return t_count_op(ir, op);
}

static uint32_t
value(unsigned k)
{
   return 0x1000 + 7 * k;
}

/* A value computed from something a repeated instruction would not read
 * the same (the sample mask, which a discard changes; 0 here), so it is
 * spilled, not rematerialised: value(k) + 0. */
static void
compute(vagx_ir *ir, uint32_t v, unsigned k)
{
   vagx_ir_emit(ir, VAGX_OP_IADD, v, 0, ir_file(IR_SR, VAGX_SR_SAMPLE_MASK), ir_imm(value(k)),
                ir_none());
}


/* n scalars written (computed, or with `copies` copies of immediates), then
 * read in reverse order: n registers live at once. */
static void
straight(vagx_ir *ir, unsigned n, bool copies)
{
   t_begin(ir);
   for (unsigned k = 0; k < n; k++) {
      if (copies)
         vagx_ir_emit(ir, VAGX_OP_MOV, vagx_ir_new_vreg(ir, 1), 0, ir_imm(value(k)), ir_none(),
                      ir_none());
      else
         compute(ir, vagx_ir_new_vreg(ir, 1), k);
   }
   for (unsigned k = n; k-- > 0;)
      vagx_ir_emit(ir, VAGX_OP_ST_VAR, -1, 0, ir_vreg(k, 0), ir_imm(k), ir_none());
   t_cf(ir, VAGX_OP_END, ir_none(), 0);
}

static const char *
check_outputs(vagx_ir *ir, unsigned n, uint32_t (*want)(unsigned))
{
   static char err[128];
   static uint32_t out[MAX_OUT];
   static bool written[MAX_OUT];
   const char *e = evaluate(ir, out, written);
   if (e)
      return e;
   for (unsigned k = 0; k < n; k++) {
      if (!written[k] || out[k] != want(k)) {
         snprintf(err, sizeof(err), "output %u: %#x, want %#x", k, out[k], want(k));
         return err;
      }
   }
   return NULL;
}

/* Whether the allocation went through the stack at all: in its statistics
 * or in the program. */
static bool
stack_used(vagx_ir *ir)
{
   return t_info.stat_spills || t_info.stat_fills || t_info.stack_size ||
          count_op(ir, VAGX_OP_STACK_LD) || count_op(ir, VAGX_OP_STACK_ST);
}

/* Allocates a program that must spill (after building its CFG) and checks
 * its first n outputs against want(). */
static void
spill_and_check(vagx_ir *ir, unsigned n, uint32_t (*want)(unsigned), const char *name)
{
   vagx_ir_build_cfg(ir);
   const char *e = !vagx_ra(ir) ? ir->error : NULL;
   if (!e && !t_info.stat_spills)
      e = "nothing spilled";
   if (!e)
      e = check_outputs(ir, n, want);
   t_result(name, e, ir);
}

static void
test_straight(void)
{
   vagx_ir ir;
   const unsigned n = VAGX_MAX_GPRS + 40;
   straight(&ir, n, false);
   const char *e = !vagx_ra(&ir) ? ir.error : NULL;
   if (!e && (!t_info.stat_spills || !t_info.stat_fills || !count_op(&ir, VAGX_OP_STACK_ST)))
      e = "nothing spilled";
   if (!e && (t_info.gpr_count > VAGX_MAX_GPRS || !t_info.stack_size ||
              t_info.stack_size > VAGX_MAX_STACK_BYTES))
      e = "registers or stack beyond the contract";
   if (!e && t_info.stat_spills != count_op(&ir, VAGX_OP_STACK_ST))
      e = "stat_spills is not the number of stack stores";
   if (!e && t_info.stat_fills != count_op(&ir, VAGX_OP_STACK_LD))
      e = "stat_fills is not the number of stack loads";
   if (!e)
      e = check_outputs(&ir, n, value);
   t_result("spill: VAGX_MAX_GPRS + 40 live values spill and come back", e, &ir);
}

static void
test_fits(void)
{
   vagx_ir ir;
   straight(&ir, VAGX_MAX_GPRS, false);
   const char *e = !vagx_ra(&ir) ? ir.error : NULL;
   if (!e && stack_used(&ir))
      e = "spilled although VAGX_MAX_GPRS values fit";
   if (!e)
      e = check_outputs(&ir, VAGX_MAX_GPRS, value);
   t_result("spill: VAGX_MAX_GPRS live values fit without spilling", e, &ir);
}

static unsigned loop_n;

static uint32_t
loop_value(unsigned k)
{
   /* acc = sum over 3 iterations of (value(0) + it), it = 0..2; then the
    * values, then on the taken side of the if value(k) + value(1) */
   if (k == 0)
      return 3 * value(0) + 3;
   if (k <= loop_n)
      return value(k - 1) + value(1);
   return 0;
}

/* n values live around a loop (a counter and an accumulator that are NIR
 * registers) and across an if whose then side reads them all. */
static void
test_control_flow(void)
{
   vagx_ir ir;
   const unsigned n = VAGX_MAX_GPRS + 20;
   loop_n = n;
   t_begin(&ir);
   for (unsigned k = 0; k < n; k++)
      compute(&ir, vagx_ir_new_vreg(&ir, 1), k);
   const uint32_t acc = vagx_ir_new_vreg(&ir, 1), it = vagx_ir_new_vreg(&ir, 1);
   ir.vregs[acc].reg = ir.vregs[it].reg = true;
   vagx_ir_emit(&ir, VAGX_OP_MOV, acc, 0, ir_imm(0), ir_none(), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_MOV, it, 0, ir_imm(0), ir_none(), ir_none());
   t_cf(&ir, VAGX_OP_LOOP, ir_none(), 0);
   const uint32_t done = vagx_ir_new_vreg(&ir, 1);
   vagx_ir_instr *C = vagx_ir_emit(&ir, VAGX_OP_ICMP, done, 0, ir_vreg(it, 0), ir_imm(3),
                                   ir_none());
   C->mod = VAGX_ICOND_UGE;
   t_cf(&ir, VAGX_OP_BREAK, ir_vreg(done, 0), 1);
   const uint32_t t = vagx_ir_new_vreg(&ir, 1);
   vagx_ir_emit(&ir, VAGX_OP_IADD, t, 0, ir_vreg(0, 0), ir_vreg(it, 0), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_IADD, acc, 0, ir_vreg(acc, 0), ir_vreg(t, 0), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_IADD, it, 0, ir_vreg(it, 0), ir_imm(1), ir_none());
   t_cf(&ir, VAGX_OP_ENDLOOP, ir_none(), 0);
   vagx_ir_emit(&ir, VAGX_OP_ST_VAR, -1, 0, ir_vreg(acc, 0), ir_imm(0), ir_none());
   t_cf(&ir, VAGX_OP_IF, ir_vreg(2, 0), 0);
   for (unsigned k = n; k-- > 0;) {
      const uint32_t s = vagx_ir_new_vreg(&ir, 1);
      vagx_ir_emit(&ir, VAGX_OP_IADD, s, 0, ir_vreg(k, 0), ir_vreg(1, 0), ir_none());
      vagx_ir_emit(&ir, VAGX_OP_ST_VAR, -1, 0, ir_vreg(s, 0), ir_imm(k + 1), ir_none());
   }
   t_cf(&ir, VAGX_OP_ELSE, ir_none(), 0);
   vagx_ir_emit(&ir, VAGX_OP_ST_VAR, -1, 0, ir_imm(0), ir_imm(n + 1), ir_none());
   t_cf(&ir, VAGX_OP_ENDIF, ir_none(), 0);
   t_cf(&ir, VAGX_OP_END, ir_none(), 0);
   spill_and_check(&ir, n + 1, loop_value,
                   "spill: values live around a loop and across an if spill and come back");
}

/* vec4 vregs, written and read component by component, all live at once:
 * each component's write stores it into its part of the slot. */
static void
test_vectors(void)
{
   vagx_ir ir;
   const unsigned nvec = VAGX_MAX_GPRS / 4 + 8;
   t_begin(&ir);
   for (unsigned k = 0; k < nvec; k++) {
      const uint32_t v = vagx_ir_new_vreg(&ir, 4);
      for (unsigned c = 0; c < 4; c++)
         vagx_ir_emit(&ir, VAGX_OP_MOV, v, c, ir_imm(value(4 * k + c)), ir_none(), ir_none());
   }
   for (unsigned k = nvec; k-- > 0;)
      for (unsigned c = 0; c < 4; c++)
         vagx_ir_emit(&ir, VAGX_OP_ST_VAR, -1, 0, ir_vreg(k, c), ir_imm(4 * k + c), ir_none());
   t_cf(&ir, VAGX_OP_END, ir_none(), 0);
   spill_and_check(&ir, 4 * nvec, value, "spill: vec4 values spill by component and come back");
}

static void
test_stack_full(void)
{
   vagx_ir ir;
   straight(&ir, VAGX_MAX_GPRS + VAGX_MAX_STACK_BYTES / 4 + 64, false);
   const char *e = NULL;
   if (vagx_ra(&ir))
      e = "allocated although the stack is too small";
   else if (!ir.error || !strstr(ir.error, "VAGX_MAX_STACK_BYTES"))
      e = "no error naming the stack limit";
   t_result("spill: more than the stack holds fails cleanly", e, &ir);
}

static void
test_remat(void)
{
   vagx_ir ir;
   const unsigned n = VAGX_MAX_GPRS + VAGX_MAX_STACK_BYTES / 4 + 64;
   straight(&ir, n, true);
   const char *e = !vagx_ra(&ir) ? ir.error : NULL;
   if (!e && stack_used(&ir))
      e = "copies of immediates went through the stack";
   if (!e && t_info.gpr_count > VAGX_MAX_GPRS)
      e = "registers beyond the contract";
   if (!e)
      e = check_outputs(&ir, n, value);
   t_result("spill: copies of immediates are rematerialised, not spilled (more than the "
            "stack would hold)", e, &ir);
}

/* `phases` times: VAGX_MAX_GPRS + 8 values computed, then all read: the
 * values of one phase are dead before the next starts, so the next
 * phase's spills can reuse the slots of the earlier ones (spilled in an
 * earlier round of allocation). */
static void
phased(vagx_ir *ir, unsigned phases)
{
   const unsigned n = VAGX_MAX_GPRS + 8;
   t_begin(ir);
   for (unsigned p = 0; p < phases; p++) {
      const uint32_t first = ir->num_vregs;
      for (unsigned k = 0; k < n; k++)
         compute(ir, vagx_ir_new_vreg(ir, 1), p * n + k);
      for (unsigned k = n; k-- > 0;)
         vagx_ir_emit(ir, VAGX_OP_ST_VAR, -1, 0, ir_vreg(first + k, 0), ir_imm(p * n + k),
                      ir_none());
   }
   t_cf(ir, VAGX_OP_END, ir_none(), 0);
   vagx_ir_build_cfg(ir);
}

static void
test_slot_sharing(void)
{
   static char err[160];
   vagx_ir ir;
   phased(&ir, 1);
   const char *e = !vagx_ra(&ir) ? ir.error : NULL;
   const unsigned one_stack = t_info.stack_size, one_spills = t_info.stat_spills;
   if (!e && !one_spills)
      e = "one phase spills nothing";
   vagx_ir_fini(&ir);
   if (!e) {
      phased(&ir, 3);
      e = !vagx_ra(&ir) ? ir.error : NULL;
      if (!e && t_info.stat_spills < 3 * one_spills)
         e = "three phases spill less than three times one";
      if (!e && t_info.stack_size > one_stack) {
         snprintf(err, sizeof(err), "stack %u bytes for three phases, %u for one",
                  t_info.stack_size, one_stack);
         e = err;
      }
      if (!e)
         e = check_outputs(&ir, 3 * (VAGX_MAX_GPRS + 8), value);
      t_result("spill: values never live at once share slots (three phases, one phase's stack)",
               e, &ir);
   } else {
      t_result("spill: values never live at once share slots (three phases, one phase's stack)",
               e, NULL);
   }
}

static uint32_t
remat_value(unsigned k)
{
   return value(k) + t_uniform(k % 4);
}

/* Values computed from uniforms and immediates are recomputed before their
 * reads, not spilled: no stack, the outputs right, iadds moved next to
 * their readers. */
static void
test_remat_alu(void)
{
   vagx_ir ir;
   const unsigned n = VAGX_MAX_GPRS + 40;
   t_begin(&ir);
   for (unsigned k = 0; k < n; k++)
      vagx_ir_emit(&ir, VAGX_OP_IADD, vagx_ir_new_vreg(&ir, 1), 0, ir_file(IR_U, k % 4),
                   ir_imm(value(k)), ir_none());
   for (unsigned k = n; k-- > 0;)
      vagx_ir_emit(&ir, VAGX_OP_ST_VAR, -1, 0, ir_vreg(k, 0), ir_imm(k), ir_none());
   t_cf(&ir, VAGX_OP_END, ir_none(), 0);
   vagx_ir_build_cfg(&ir);
   const char *e = !vagx_ra(&ir) ? ir.error : NULL;
   if (!e && stack_used(&ir))
      e = "values of uniforms went through the stack";
   /* a recomputed value: its iadd just before the st_var reading it */
   unsigned moved = 0;
   for (unsigned i = 0; !e && i + 1 < ir.num_instrs; i++)
      moved += ir.instrs[i].op == VAGX_OP_IADD && ir.instrs[i + 1].op == VAGX_OP_ST_VAR &&
               ir.instrs[i + 1].src[0].file == IR_VREG &&
               ir.instrs[i + 1].src[0].v == ir.instrs[i].dst;
   if (!e && !moved)
      e = "nothing recomputed";
   if (!e && t_info.gpr_count > VAGX_MAX_GPRS)
      e = "registers beyond the contract";
   if (!e)
      e = check_outputs(&ir, n, remat_value);
   t_result("spill: values computed from uniforms and immediates are recomputed, not spilled", e,
            &ir);
}

int
main(void)
{
   printf("TAP version 13\n");
   test_fits();
   test_straight();
   test_control_flow();
   test_vectors();
   test_stack_full();
   test_remat();
   test_slot_sharing();
   test_remat_alu();
   return t_finish();
}
