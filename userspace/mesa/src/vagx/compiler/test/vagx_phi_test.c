/* SPDX-License-Identifier: MIT */
/* Phis: the validator's checks, copy propagation and DCE through them, and
 * vagx_lower_phis.  The lowering is checked by running the program: a
 * one-lane interpreter of the test assembler's opcodes over the CFG (a
 * phi takes the source of the edge control came by, all phis of a block
 * at once) runs it in SSA form, after lowering, and after register
 * allocation on the registers it assigned; the st_var values must be the
 * same (and what the test expects). */
#include "vagx_test_asm.h"

#define MAX_TRACE 64

struct trace {
   unsigned n;
   uint32_t v[MAX_TRACE];
};

static const uint32_t t_uniforms[4] = { 0, ~0u, 7, 3 };

/* The storage a vreg operand names: its vreg, or after register allocation
 * its register. */
static unsigned
slot(const vagx_ir *ir, bool hw, uint32_t v, unsigned comp)
{
   return (hw ? (unsigned)ir->vregs[v].hw : v) + comp;
}

static uint32_t
val(const vagx_ir *ir, bool hw, const uint32_t *regs, const vagx_ir_src *s)
{
   switch (s->file) {
   case IR_VREG:
      return regs[slot(ir, hw, s->v, s->comp)];
   case IR_IMM:
      return s->v;
   case IR_U:
      return t_uniforms[s->v & 3];
   default:
      return 0xdeadbeef;
   }
}

/* Run `ir` (at most `steps` blocks); false when it does not end. */
static bool
run(const vagx_ir *ir, bool hw, struct trace *t)
{
   uint32_t regs[512] = { 0 }, phis[64];
   t->n = 0;
   unsigned b = 0, from = ~0u;
   for (unsigned steps = 0; steps < 1000; steps++) {
      const vagx_block *B = &ir->blocks[b];
      unsigned i = B->start, np = 0;
      /* the phis read the values at the end of `from`, all at once */
      for (; i < B->end && ir->instrs[i].op == VAGX_IR_OP_PHI; i++) {
         const vagx_ir_instr *I = &ir->instrs[i];
         phis[np] = 0xdeadbeef;
         for (unsigned k = 0; k < I->phi_count; k++)
            if (I->phi[k].pred == from)
               phis[np] = val(ir, hw, regs, &I->phi[k].src);
         np++;
      }
      for (unsigned k = 0; k < np; k++)
         regs[slot(ir, hw, ir->instrs[B->start + k].dst, 0)] = phis[k];
      for (; i < B->end; i++) {
         const vagx_ir_instr *I = &ir->instrs[i];
         const uint32_t a = val(ir, hw, regs, &I->src[0]), c = val(ir, hw, regs, &I->src[1]);
         switch (I->op) {
         case VAGX_OP_MOV:
            regs[slot(ir, hw, I->dst, I->dst_comp)] = a;
            break;
         case VAGX_OP_IADD:
            regs[slot(ir, hw, I->dst, I->dst_comp)] = a + c;
            break;
         case VAGX_OP_ICMP: /* the assembler's `ge` */
            regs[slot(ir, hw, I->dst, I->dst_comp)] = a >= c ? ~0u : 0;
            break;
         case VAGX_OP_ST_VAR:
            if (t->n < MAX_TRACE)
               t->v[t->n++] = a;
            break;
         default:
            break;
         }
      }
      const vagx_ir_instr *T = &ir->instrs[B->end - 1];
      unsigned next;
      if (T->op == VAGX_OP_END)
         return true;
      if (T->op == VAGX_OP_IF)
         next = val(ir, hw, regs, &T->src[0]) ? b + 1 : B->succs[B->num_succs - 1];
      else if ((T->op == VAGX_OP_BREAK || T->op == VAGX_OP_CONTINUE) && (T->mod & 1))
         next = val(ir, hw, regs, &T->src[0]) ? B->succs[0] : b + 1;
      else
         next = B->succs[0];
      from = b;
      b = next;
   }
   return false;
}

static bool
same_trace(const struct trace *a, const struct trace *b)
{
   return a->n == b->n && !memcmp(a->v, b->v, a->n * sizeof(uint32_t));
}

static const char *
valid(vagx_ir *ir, bool legal)
{
   static char why[160];
   return vagx_validate_ir(ir, legal, why, sizeof(why)) ? NULL : why;
}

/* Run `src` in SSA form, after vagx_lower_phis and after register
 * allocation; every run must print `want` (n values). */
static void
check_lowering(const char *name, const char *src, bool copyprop, const uint32_t *want,
               unsigned n)
{
   static char err[256];
   vagx_ir ir;
   t_assemble(&ir, src);
   struct trace ssa, lowered, allocated;
   const char *e = valid(&ir, false);
   if (!e && copyprop) {
      vagx_opt_copyprop(&ir);
      e = valid(&ir, false);
   }
   if (!e && !run(&ir, false, &ssa))
      e = "the SSA program does not end";
   if (!e && (ssa.n != n || memcmp(ssa.v, want, n * sizeof(uint32_t)))) {
      snprintf(err, sizeof(err), "SSA run prints %u values, first %u, not the expected", ssa.n,
               ssa.n ? ssa.v[0] : 0);
      e = err;
   }
   if (!e && !vagx_lower_phis(&ir))
      e = "nothing lowered";
   if (!e)
      e = valid(&ir, false);
   if (!e && t_count_op(&ir, VAGX_IR_OP_PHI))
      e = "phis left";
   if (!e && (!run(&ir, false, &lowered) || !same_trace(&ssa, &lowered)))
      e = "the lowered program prints other values";
   if (!e && !vagx_ra(&ir))
      e = ir.error ? ir.error : "register allocation failed";
   if (!e && (!run(&ir, true, &allocated) || !same_trace(&ssa, &allocated)))
      e = "the allocated program prints other values";
   t_result(name, e, &ir);
}

/* a = phi(1, b), b = phi(2, a): the back edge's copies are a cycle */
static void
test_swap(void)
{
   static const uint32_t want[] = { 1, 2, 2, 1, 1, 2, 2, 1, 1, 2 };
   check_lowering("lower: swap of two loop-carried values (a cycle of copies)",
                  "mov 1; mov 2; mov 0; mov 11; mov 40; loop;"
                  " phi 3 1 4; phi 4 2 3; phi 6 0 7;"
                  " ge 8 6 40; if 8; break; endif;"
                  " use 3; use 4; add 7 6 11; endloop;"
                  " use 3; use 4; end",
                  false, want, ARRAY_SIZE(want));
}

/* a counter and a sum in a loop header with a continue: three
 * predecessors (the entry, the continue, the back edge); the sum read
 * after the loop, whose break comes before the copies of the back edge */
static void
test_loop_header(void)
{
   /* i = 0, 11, 22, 33, 44 (break); the sum s (printed before it grows)
    * adds i + 11 but at i == 22 (continue): 0, 11, 33, 33 */
   static const uint32_t want[] = { 0, 11, 33, 33, 44 };
   check_lowering("lower: phis in a loop header with a continue, read after the loop",
                  "mov 0; mov 11; mov 22; mov 23; mov 40; loop;"
                  " phi 3 0 7 7; phi 4 0 4 9;"
                  " ge 8 3 40; if 8; break; endif;"
                  " add 7 3 11; use 4;"
                  " ge 12 3 22; ge 13 23 3; if 12; if 13; continue; endif; endif;"
                  " add 9 4 7; endloop;"
                  " use 3; end",
                  false, want, ARRAY_SIZE(want));
}

/* phis fed by constants (copy propagation puts the immediates in the phi,
 * lowering copies them at the ends of the predecessors), with and
 * without else */
static void
test_constant(void)
{
   static const uint32_t want[] = { 5, 3, 6 };
   vagx_ir ir;
   t_assemble(&ir, "mov 3; mov 5; mov 6; uni 1 1; uni 2 0;"
                   " if 1; copy 7 3; else; copy 8 5; endif; phi 9 7 8; use 9;"
                   " if 2; copy 10 3; else; copy 11 5; endif; phi 12 10 11; use 12;"
                   " if 2; copy 13 5; endif; phi 14 6 13; use 14; end");
   vagx_opt_copyprop(&ir);
   unsigned imm = 0;
   for (unsigned i = 0; i < ir.num_instrs; i++)
      for (unsigned k = 0; k < ir.instrs[i].phi_count; k++)
         imm += ir.instrs[i].phi[k].src.file == IR_IMM;
   vagx_ir_fini(&ir);
   t_result("copyprop: immediates into every phi source", imm == 6 ? NULL : "not folded", NULL);
   /* u1 = ~0: then side (3); u0 = 0: else side (5), no else: 6 */
   check_lowering("lower: phis fed by constants, with and without else",
                  "mov 3; mov 5; mov 6; uni 1 1; uni 2 0;"
                  " if 1; copy 7 5; else; copy 8 3; endif; phi 9 7 8; use 9;"
                  " if 2; copy 10 5; else; copy 11 3; endif; phi 12 10 11; use 12;"
                  " if 2; copy 13 5; endif; phi 14 6 13; use 14; end",
                  true, want, ARRAY_SIZE(want));
}

/* copy propagation rewrites a phi source reading a copy (of a vreg, and
 * of a uniform) */
static void
test_copyprop(void)
{
   vagx_ir ir;
   t_assemble(&ir, "uni 1 2; uni 2 3; add 3 1 2; copy 4 3; copy 5 2; if 1; add 6 3 3; endif;"
                   " phi 7 4 6; phi 8 5 1; use 7; use 8; end");
   vagx_opt_copyprop(&ir);
   const char *e = valid(&ir, false);
   const vagx_ir_instr *p7 = NULL, *p8 = NULL;
   for (unsigned i = 0; i < ir.num_instrs; i++) {
      if (ir.instrs[i].op == VAGX_IR_OP_PHI && ir.instrs[i].dst == 7)
         p7 = &ir.instrs[i];
      if (ir.instrs[i].op == VAGX_IR_OP_PHI && ir.instrs[i].dst == 8)
         p8 = &ir.instrs[i];
   }
   if (!e && (!p7 || p7->phi[0].src.file != IR_VREG || p7->phi[0].src.v != 3))
      e = "phi source not rewritten to the copied vreg";
   if (!e && (!p8 || p8->phi[0].src.file != IR_U || p8->phi[0].src.v != 3 ||
              p8->phi[1].src.file != IR_U || p8->phi[1].src.v != 2))
      e = "phi sources not rewritten to the copied uniforms";
   t_result("copyprop: through phi sources", e, &ir);
}

/* DCE: a phi nobody reads goes, and so does a loop-carried cycle that
 * only feeds itself; a read phi stays */
static void
test_dce(void)
{
   vagx_ir ir;
   t_assemble(&ir, "mov 0; mov 11; mov 40; uni 1 1; if 1; mov 2; endif; phi 3 0 2;"
                   " loop; phi 4 0 5; phi 6 0 7; ge 8 4 40; if 8; break; endif;"
                   " add 5 4 11; add 7 6 11; endloop; use 4; end");
   const unsigned before = t_count_op(&ir, VAGX_IR_OP_PHI);
   vagx_opt_dce(&ir);
   const char *e = valid(&ir, false);
   if (!e && (before != 3 || t_count_op(&ir, VAGX_IR_OP_PHI) != 1))
      e = "phis kept";
   if (!e && t_count_op(&ir, VAGX_OP_IADD) != 1)
      e = "the dead cycle's add kept";
   for (unsigned i = 0; !e && i < ir.num_instrs; i++)
      if (ir.instrs[i].op == VAGX_IR_OP_PHI && ir.instrs[i].dst != 4)
         e = "the live phi removed";
   t_result("dce: unread phi and dead loop-carried cycle removed", e, &ir);
}

/* Six loop-carried values permuted at every iteration by a random
 * permutation (fixed seed): cycles of every length, chains, fixed points,
 * all in one parallel copy. */
static void
test_permutations(void)
{
   enum { K = 6, ITERS = 4 };
   uint32_t seed = 0x5eed1234;
   for (unsigned round = 0; round < 8; round++) {
      unsigned perm[K];
      for (unsigned j = 0; j < K; j++)
         perm[j] = j;
      for (unsigned j = K - 1; j > 0; j--) { /* Fisher-Yates, an LCG */
         seed = seed * 1664525u + 1013904223u;
         const unsigned r = (seed >> 16) % (j + 1), t = perm[j];
         perm[j] = perm[r];
         perm[r] = t;
      }
      char src[768], *o = src;
      o += sprintf(o, "mov 1; mov 2; mov 3; mov 4; mov 5; mov 6; mov 0; mov 11; mov 40; loop;");
      for (unsigned j = 0; j < K; j++)
         o += sprintf(o, " phi %u %u %u;", 21 + j, 1 + j, 21 + perm[j]);
      o += sprintf(o, " phi 30 0 31; ge 32 30 40; if 32; break; endif;");
      for (unsigned j = 0; j < K; j++)
         o += sprintf(o, " use %u;", 21 + j);
      o += sprintf(o, " add 31 30 11; endloop;");
      for (unsigned j = 0; j < K; j++)
         o += sprintf(o, " use %u;", 21 + j);
      sprintf(o, " end");

      uint32_t want[K * (ITERS + 1)], a[K], b[K];
      for (unsigned j = 0; j < K; j++)
         a[j] = 1 + j;
      for (unsigned t = 0; t <= ITERS; t++) {
         memcpy(&want[t * K], a, sizeof(a));
         for (unsigned j = 0; j < K; j++)
            b[j] = a[perm[j]];
         memcpy(a, b, sizeof(a));
      }
      char name[96];
      snprintf(name, sizeof(name), "lower: loop-carried permutation %u%u%u%u%u%u", perm[0],
               perm[1], perm[2], perm[3], perm[4], perm[5]);
      check_lowering(name, src, false, want, ARRAY_SIZE(want));
   }
}

/* --- the validator ----------------------------------------------------------- */

static const char *phi_prog = "mov 1; mov 2; uni 3 1; if 3; add 4 1 2; endif; phi 5 1 4; use 5; end";

static vagx_ir_instr *
the_phi(vagx_ir *ir)
{
   for (unsigned i = 0; i < ir->num_instrs; i++)
      if (ir->instrs[i].op == VAGX_IR_OP_PHI)
         return &ir->instrs[i];
   return NULL;
}

static void m_count(vagx_ir *ir) { the_phi(ir)->phi_count = 1; }
static void m_pred(vagx_ir *ir) { the_phi(ir)->phi[1].pred = 1 + ir->num_blocks; }
static void m_dup(vagx_ir *ir) { the_phi(ir)->phi[1].pred = the_phi(ir)->phi[0].pred; }
/* the then side's value from the if block's edge: not written there */
static void m_dom(vagx_ir *ir) { the_phi(ir)->phi[0].src = ir_vreg(4, 0); }
static void m_mod(vagx_ir *ir) { the_phi(ir)->phi[0].src.neg = 1; }
static void m_vec(vagx_ir *ir) { ir->vregs[5].size = 2; }
static void
m_not_head(vagx_ir *ir)
{
   /* swap the phi with the use after it */
   vagx_ir_instr *p = the_phi(ir), tmp = p[0];
   p[0] = p[1];
   p[1] = tmp;
   vagx_ir_build_cfg(ir);
}

static void
test_validate(void)
{
   static const struct {
      const char *name, *want;
      void (*mutate)(vagx_ir *ir);
      bool legal;
   } cases[] = {
      { "a phi as written", NULL, NULL, false },
      { "a phi after legalisation", "phi after phi lowering", NULL, true },
      { "fewer sources than predecessors", "phi sources for", m_count, false },
      { "a source from a block that is not a predecessor", "not a predecessor", m_pred, false },
      { "two sources from one predecessor", "two phi sources", m_dup, false },
      { "a source whose write does not dominate the predecessor", "does not dominate", m_dom,
        false },
      { "a source with float modifiers", "float modifiers", m_mod, false },
      { "a phi into a vector vreg", "whole scalar vreg", m_vec, false },
      { "a phi after another instruction", "after a non-phi", m_not_head, false },
   };
   for (unsigned k = 0; k < ARRAY_SIZE(cases); k++) {
      vagx_ir ir;
      t_assemble(&ir, phi_prog);
      if (cases[k].mutate)
         cases[k].mutate(&ir);
      const char *e = valid(&ir, cases[k].legal);
      char name[128];
      snprintf(name, sizeof(name), "validate: %s %s", cases[k].want ? "rejects" : "accepts",
               cases[k].name);
      const char *err = NULL;
      if (!cases[k].want && e)
         err = e;
      else if (cases[k].want && (!e || !strstr(e, cases[k].want)))
         err = e ? e : "accepted";
      t_result(name, err, &ir);
   }
}

int
main(void)
{
   printf("TAP version 13\n");
   test_validate();
   test_copyprop();
   test_dce();
   test_constant();
   test_swap();
   test_loop_header();
   test_permutations();
   return t_finish();
}
