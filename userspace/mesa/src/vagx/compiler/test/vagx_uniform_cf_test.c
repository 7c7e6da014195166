/* SPDX-License-Identifier: MIT */
/* Uniform control flow (TAP): vagx_lower_uniform_cf and the validator's
 * rules for the `uniform` marks.
 *
 * A program runs on a one-lane evaluator (where every condition is
 * uniform, so the structured form is the reference) for every assignment
 * of its uniform inputs: structured, after the lowering (br/jmp by
 * instruction index), and after the whole backend (encoded, decoded with
 * the ISA generator's vagx_decode, br/jmp by word offset).  The three
 * traces of st_var values must be equal, and the lowered programs must
 * have the jumps and no more the constructs the marks name. */
#include "vagx_isa.h"
#include "vagx_test_asm.h"

#define MAX_OPS   512
#define MAX_TRACE 256
#define MAX_STEPS 20000

/* One instruction, as the evaluator sees it: registers by number (vreg or
 * GPR), immediates and uniform registers as values, jump targets as
 * instruction indices. */
struct eop {
   unsigned op, mod;
   int dst;
   struct { char kind; uint32_t v; } src[2]; /* 'r' register, 'v' value, 0 none */
   int target;
};

struct trace {
   unsigned n;
   uint32_t v[MAX_TRACE];
   bool overflow;
};

static uint32_t
operand(const struct eop *o, unsigned s, const uint32_t *r)
{
   return o->src[s].kind == 'r' ? r[o->src[s].v] : o->src[s].v;
}

/* One lane: the structured constructs by nesting (a lane that does not
 * take an if goes to its else side or past endif, break past endloop,
 * continue and endloop to the loop's first instruction), br/jmp by
 * target. */
static void
evaluate(const struct eop *p, unsigned n, struct trace *t)
{
   int match[MAX_OPS], loop_of[MAX_OPS], else_of[MAX_OPS], stack[MAX_OPS];
   unsigned depth = 0;
   for (unsigned i = 0; i < n; i++) {
      match[i] = loop_of[i] = else_of[i] = -1;
      for (int d = depth; d-- > 0 && loop_of[i] < 0;)
         if (p[stack[d]].op == VAGX_OP_LOOP)
            loop_of[i] = stack[d];
      switch (p[i].op) {
      case VAGX_OP_IF:
      case VAGX_OP_LOOP:
         stack[depth++] = i;
         break;
      case VAGX_OP_ELSE:
         else_of[stack[depth - 1]] = i;
         match[i] = stack[depth - 1];
         break;
      case VAGX_OP_ENDIF:
      case VAGX_OP_ENDLOOP:
         match[stack[depth - 1]] = i;
         match[i] = stack[depth - 1];
         depth--;
         break;
      default:
         break;
      }
   }
   /* an else's endif is its if's */
   for (unsigned i = 0; i < n; i++)
      if (p[i].op == VAGX_OP_ELSE)
         match[i] = match[match[i]];

   uint32_t r[MAX_OPS] = { 0 };
   memset(t, 0, sizeof(*t));
   unsigned pc = 0;
   for (unsigned steps = 0; pc < n && steps < MAX_STEPS; steps++) {
      const struct eop *o = &p[pc++];
      switch (o->op) {
      case VAGX_OP_MOV:
         r[o->dst] = operand(o, 0, r);
         break;
      case VAGX_OP_IADD:
         r[o->dst] = operand(o, 0, r) + operand(o, 1, r);
         break;
      case VAGX_OP_ICMP: /* the assembler's ge */
         r[o->dst] = o->mod == VAGX_ICOND_UGE && operand(o, 0, r) >= operand(o, 1, r) ? ~0u : 0;
         break;
      case VAGX_OP_ST_VAR:
         if (t->n == MAX_TRACE) {
            t->overflow = true;
            return;
         }
         t->v[t->n++] = operand(o, 0, r);
         break;
      case VAGX_OP_IF:
         if ((operand(o, 0, r) != 0) == (o->mod & 1)) /* not taken */
            pc = (else_of[pc - 1] >= 0 ? else_of[pc - 1] : match[pc - 1]) + 1;
         break;
      case VAGX_OP_ELSE:
         pc = match[pc - 1] + 1;
         break;
      case VAGX_OP_ENDLOOP:
         pc = match[pc - 1] + 1;
         break;
      case VAGX_OP_BREAK:
      case VAGX_OP_CONTINUE:
         if (!(o->mod & 1) || operand(o, 0, r))
            pc = o->op == VAGX_OP_BREAK ? match[loop_of[pc - 1]] + 1 : loop_of[pc - 1] + 1;
         break;
      case VAGX_OP_BR:
         if ((operand(o, 0, r) != 0) != (o->mod & 1))
            pc = o->target;
         break;
      case VAGX_OP_JMP:
         pc = o->target;
         break;
      case VAGX_OP_END:
         return;
      default: /* endif, loop */
         break;
      }
   }
   t->overflow = pc < n; /* out of steps */
}

static const uint32_t *t_uniforms;

static unsigned
from_ir(const vagx_ir *ir, struct eop *p)
{
   for (unsigned i = 0; i < ir->num_instrs; i++) {
      const vagx_ir_instr *I = &ir->instrs[i];
      p[i] = (struct eop){ I->op, I->mod, I->has_dst ? (int)I->dst : -1, { { 0 } },
                           (int)I->target };
      for (unsigned s = 0; s < 2; s++) {
         const vagx_ir_src *S = &I->src[s];
         p[i].src[s].kind = S->file == IR_VREG ? 'r' : S->file ? 'v' : 0;
         p[i].src[s].v = S->file == IR_VREG ? S->v
                         : S->file == IR_U  ? t_uniforms[S->v]
                                            : S->v;
      }
   }
   return ir->num_instrs;
}

/* The encoded program: word offsets of br/jmp become instruction indices
 * (a target inside an instruction is a failure: -1). */
static unsigned
from_code(const struct vagx_shader_info *info, struct eop *p, const char **err)
{
   unsigned word_of[MAX_OPS], n = 0;
   struct vagx_instr I[MAX_OPS];
   for (unsigned w = 0; w < info->code_words && n < MAX_OPS; n++) {
      int k = vagx_decode(info->code + w, info->code_words - w, &I[n]);
      if (k < 0) {
         *err = vagx_isa_strerror(k);
         return 0;
      }
      word_of[n] = w;
      w += k;
   }
   for (unsigned i = 0; i < n; i++) {
      p[i] = (struct eop){ I[i].op, I[i].mod, I[i].dst, { { 0 } }, -1 };
      for (unsigned s = 0; s < 2 && s < vagx_nsrc(&I[i]); s++) {
         const struct vagx_src *S = &I[i].src[s];
         p[i].src[s].kind = S->file == VAGX_FILE_R ? 'r' : 'v';
         p[i].src[s].v = S->file == VAGX_FILE_R   ? S->idx
                         : S->file == VAGX_FILE_U ? t_uniforms[S->idx]
                                                  : I[i].imm[S->idx];
      }
      if (I[i].op == VAGX_OP_BR || I[i].op == VAGX_OP_JMP) {
         const int64_t w = (int64_t)word_of[i] + vagx_target(&I[i]);
         for (unsigned k = 0; k < n; k++)
            if (word_of[k] == w)
               p[i].target = k;
         if (p[i].target < 0) {
            *err = "a jump target is not an instruction";
            return 0;
         }
      }
   }
   return n;
}

static unsigned
count(const struct eop *p, unsigned n, unsigned op)
{
   unsigned c = 0;
   for (unsigned i = 0; i < n; i++)
      c += p[i].op == op;
   return c;
}

static bool
same(const struct trace *a, const struct trace *b)
{
   return !a->overflow && !b->overflow && a->n == b->n &&
          !memcmp(a->v, b->v, a->n * sizeof(uint32_t));
}

/* Expected opcode counts after the lowering: -1 = not checked. */
struct expect {
   int br, jmp, cf; /* cf: if/else/endif/loop/endloop/break/continue left */
};

static unsigned
count_structured(const struct eop *p, unsigned n)
{
   static const unsigned ops[] = { VAGX_OP_IF, VAGX_OP_ELSE, VAGX_OP_ENDIF, VAGX_OP_LOOP,
                                   VAGX_OP_ENDLOOP, VAGX_OP_BREAK, VAGX_OP_CONTINUE };
   unsigned c = 0;
   for (unsigned k = 0; k < ARRAY_SIZE(ops); k++)
      c += count(p, n, ops[k]);
   return c;
}

/* Run `src` with u0..u(nu-1) set to every combination of 0..3. */
static void
check_program(const char *name, const char *src, unsigned nu, struct expect e)
{
   static char err[192];
   const char *why = NULL;
   vagx_ir ir;
   struct eop ref[MAX_OPS], low[MAX_OPS], enc[MAX_OPS];
   unsigned nref, nlow, nenc = 0;
   uint32_t u[4];
   unsigned combos = 1;
   for (unsigned k = 0; k < nu; k++)
      combos *= 4;

   for (unsigned c = 0; c < combos && !why; c++) {
      for (unsigned k = 0, x = c; k < nu; k++, x /= 4)
         u[k] = x % 4;
      t_uniforms = u;

      t_assemble(&ir, src);
      char vwhy[192];
      if (!vagx_validate_ir(&ir, false, vwhy, sizeof(vwhy))) {
         snprintf(err, sizeof(err), "invalid test program: %s", vwhy);
         why = err;
         vagx_ir_fini(&ir);
         break;
      }
      nref = from_ir(&ir, ref);
      if (!vagx_lower_uniform_cf(&ir)) {
         why = "nothing lowered";
         vagx_ir_fini(&ir);
         break;
      }
      nlow = from_ir(&ir, low);
      vagx_ir_fini(&ir);

      t_assemble(&ir, src);
      if (!vagx_ir_finish(&ir)) {
         snprintf(err, sizeof(err), "backend: %s", ir.error ? ir.error : "?");
         why = err;
      } else {
         nenc = from_code(&t_info, enc, &why);
      }
      free(t_info.code);
      t_info.code = NULL;
      vagx_ir_fini(&ir);
      if (why)
         break;

      struct trace tr, tl, te;
      evaluate(ref, nref, &tr);
      evaluate(low, nlow, &tl);
      evaluate(enc, nenc, &te);
      if (tr.overflow) {
         why = "the reference does not end";
      } else if (!same(&tr, &tl)) {
         snprintf(err, sizeof(err), "lowered program differs for u = %u %u %u", u[0], u[1],
                  u[2]);
         why = err;
      } else if (!same(&tr, &te)) {
         snprintf(err, sizeof(err), "encoded program differs for u = %u %u %u", u[0], u[1],
                  u[2]);
         why = err;
      } else if (c == 0 && ((e.br >= 0 && count(low, nlow, VAGX_OP_BR) != (unsigned)e.br) ||
                            (e.jmp >= 0 && count(low, nlow, VAGX_OP_JMP) != (unsigned)e.jmp) ||
                            (e.cf >= 0 && count_structured(low, nlow) != (unsigned)e.cf))) {
         snprintf(err, sizeof(err), "lowered to %u br, %u jmp, %u structured (expected %d %d %d)",
                  count(low, nlow, VAGX_OP_BR), count(low, nlow, VAGX_OP_JMP),
                  count_structured(low, nlow), e.br, e.jmp, e.cf);
         why = err;
      } else if (count(enc, nenc, VAGX_OP_BR) != count(low, nlow, VAGX_OP_BR) ||
                 count(enc, nenc, VAGX_OP_JMP) != count(low, nlow, VAGX_OP_JMP)) {
         why = "the encoder lost jumps";
      }
   }
   t_result(name, why, NULL);
}

/* The validator's rules for the marks. */
static void
check_invalid(const char *name, const char *src, const char *expect)
{
   vagx_ir ir;
   char why[192];
   t_assemble(&ir, src);
   bool ok = vagx_validate_ir(&ir, false, why, sizeof(why));
   const char *err = NULL;
   static char buf[256];
   if (ok) {
      err = "accepted";
   } else if (!strstr(why, expect)) {
      snprintf(buf, sizeof(buf), "rejected for another reason: %s", why);
      err = buf;
   }
   t_result(name, err, &ir);
}

int
main(void)
{
   /* if/else: br to the else side, jmp past endif */
   check_program("if.u/else.u", "uni 1 0; mov 9; if.u 1; mov 2; use 2; else.u; mov 3; use 3; "
                 "endif.u; use 9; end", 1, (struct expect){ 1, 1, 0 });
   /* no else: br past endif; a divergent if inside stays */
   check_program("if.u around a divergent if", "uni 1 0; uni 4 1; if.u 1; if 4; mov 2; use 2; "
                 "endif; mov 3; use 3; endif.u; end", 2, (struct expect){ 1, 0, 2 });
   /* a divergent if around a uniform one: the jumps stay inside it */
   check_program("divergent if around if.u", "uni 1 0; uni 4 1; if 4; if.u 1; mov 2; use 2; "
                 "else.u; mov 3; use 3; endif.u; else; mov 5; use 5; endif; end", 2,
                 (struct expect){ 1, 1, 3 });
   /* a counted loop (u0 iterations): `if.u c; break.u; endif.u` is one br,
    * endloop a jmp */
   check_program("loop.u with a folded break", "reg 0; mov 0; uni 5 0; mov 1; loop.u; "
                 "ge 6 0 5; if.u 6; break.u; endif.u; use 0; add 2 0 1; copy 0 2; endloop.u; "
                 "end", 1, (struct expect){ 1, 1, 0 });
   /* break and continue; a then side that ends in an exit needs no jmp
    * past endif */
   check_program("loop.u: break, continue, exit before else", "reg 0; mov 0; uni 5 0; uni 7 1; "
                 "mov 1; loop.u; ge 6 0 5; if.u 6; break.u; else.u; use 7; endif.u; add 2 0 1; "
                 "copy 0 2; use 0; ge 8 0 7; if.u 8; continue.u; endif.u; use 1; endloop.u; end",
                 2, (struct expect){ 2, 2, 0 });
   /* nested uniform loops, and a divergent loop inside a uniform one */
   check_program("nested loops", "reg 0; reg 3; mov 0; uni 5 0; uni 7 1; mov 1; loop.u; "
                 "ge 6 0 5; if.u 6; break.u; endif.u; copy 3 0; loop.u; ge 8 3 7; if.u 8; "
                 "break.u; endif.u; use 3; add 4 3 1; copy 3 4; endloop.u; loop; break; "
                 "endloop; add 2 0 1; copy 0 2; endloop.u; end", 2, (struct expect){ 2, 2, 3 });
   /* a uniform if in a divergent loop: its break stays a break */
   check_program("if.u in a divergent loop", "reg 0; mov 0; uni 5 0; mov 1; loop; ge 6 0 5; "
                 "if.u 6; break; endif.u; use 0; add 2 0 1; copy 0 2; endloop; end", 1,
                 (struct expect){ 1, 0, 3 });
   /* an exit that a nested br skips: the jmp past endif must stay */
   check_program("exit skipped by a nested br", "reg 0; mov 0; uni 5 0; uni 7 1; mov 1; "
                 "loop.u; ge 6 0 5; if.u 7; if.u 6; use 7; break.u; endif.u; else.u; if.u 6; "
                 "break.u; endif.u; endif.u; use 0; add 2 0 1; copy 0 2; endloop.u; end", 2,
                 (struct expect){ 3, 3, 0 });
   /* conditional exits of a uniform loop are br.nz */
   check_program("break.cond.u", "reg 0; mov 0; uni 5 0; mov 1; loop.u; use 0; add 2 0 1; "
                 "copy 0 2; ge 6 0 5; break.u 6; endloop.u; end", 1, (struct expect){ 1, 1, 0 });

   check_invalid("if.u closed by a divergent endif", "uni 1 0; if.u 1; endif; end",
                 "uniform flag differs");
   check_invalid("divergent if with else.u", "uni 1 0; if 1; else.u; endif; end",
                 "uniform flag differs");
   check_invalid("loop.u closed by a divergent endloop", "loop.u; break.u; endloop; end",
                 "uniform flag differs");
   check_invalid("uniform break in a divergent if of a uniform loop",
                 "uni 1 0; loop.u; if 1; break.u; endif; endloop.u; end",
                 "uniform exit inside a divergent if");
   check_invalid("divergent break of a uniform loop", "loop.u; break; endloop.u; end",
                 "uniform flag differs from its loop's");
   check_invalid("uniform break of a divergent loop", "loop; break.u; endloop; end",
                 "uniform flag differs from its loop's");
   check_invalid("uniform mov", "mov.u 1; use 1; end", "not structured control flow");
   {
      vagx_ir ir;
      char why[192];
      t_assemble(&ir, "mov 1; use 1; end");
      vagx_ir_emit(&ir, VAGX_OP_JMP, -1, 0, ir_none(), ir_none(), ir_none());
      ir.instrs[ir.num_instrs - 1] = ir.instrs[ir.num_instrs - 2];
      ir.instrs[ir.num_instrs - 2].op = VAGX_OP_JMP;
      ir.instrs[ir.num_instrs - 2].src[0] = ir_none();
      vagx_ir_build_cfg(&ir);
      bool ok = vagx_validate_ir(&ir, false, why, sizeof(why));
      t_result("jmp in the structured IR", ok ? "accepted"
                                              : strstr(why, "jump in the structured IR")
                                                   ? NULL
                                                   : why, &ir);
   }
   {
      /* nothing uniform: nothing to do */
      vagx_ir ir;
      t_assemble(&ir, "uni 1 0; if 1; mov 2; use 2; endif; end");
      t_result("divergent program unchanged", vagx_lower_uniform_cf(&ir) ? "changed" : NULL,
               &ir);
   }
   return t_finish();
}
