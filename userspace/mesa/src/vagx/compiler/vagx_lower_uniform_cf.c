/* SPDX-License-Identifier: MIT */
/* Uniform control flow without the mask stack.
 *
 * Selection marks the if/else/endif and loop/break/continue/endloop of
 * the constructs NIR's divergence analysis proved uniform (`uniform`):
 * every active lane takes the same side of the if, and leaves the loop,
 * or starts its next iteration, at the same point.  Until here they stay
 * structured, so the CFG, liveness and register allocation treat them
 * like the others (the scalar CFG is the same).  Here they become the
 * ISA's plain jumps (docs/hw/isa.md "Control flow"): `br` decides on the
 * lowest active lane, which is every lane's answer when the condition is
 * uniform, and `jmp`; neither pushes a frame, so a uniform construct
 * costs no mask-stack depth and one or two instructions less:
 *
 *    if.u c        ->  br.<not cond> c, @else side (or past endif)
 *    else.u        ->  jmp @past endif   (dropped after an exit jump)
 *    endif.u       ->  nothing
 *    loop.u        ->  nothing (its first instruction is the head)
 *    break.u       ->  jmp @past endloop (break.cond.u: br.nz)
 *    continue.u    ->  jmp @head         (continue.cond.u: br.nz)
 *    endloop.u     ->  jmp @head
 *
 * and `if.u c; break.u; endif.u` (a then side that is one exit jump)
 * becomes one `br.<cond> c, @exit`.  The targets stay at the nesting
 * depth of the jump, as the ISA requires: the validator allows a uniform
 * break/continue only under uniform ifs of its uniform loop.
 *
 * Targets are instruction indices in vagx_ir_instr::target; the encoder
 * turns them into word offsets once it knows every instruction's size. */
#include <stdlib.h>
#include <string.h>
#include "util/ralloc.h"
#include "vagx_ir.h"

struct construct {
   uint8_t op;          /* VAGX_OP_IF or VAGX_OP_LOOP */
   bool uniform;
   int br;              /* if.u: its br (output index) */
   int pending;         /* if.u: the br or else-jmp whose target is endif, -1 none */
   unsigned head;       /* loop.u: output index of the body's first instruction */
   unsigned brk_start;  /* loop.u: its pending breaks are brk[brk_start..] */
};

struct lower {
   vagx_ir_instr *out;
   bool *exit_jmp;      /* per output index: an unconditional break/continue jmp */
   unsigned n;
   unsigned *brk;       /* output indices of break jumps awaiting their loop's end */
   unsigned nbrk;
   unsigned label;      /* an output index some jump targets (the latest) */
};

static vagx_ir_instr *
emit_jump(struct lower *L, unsigned op, vagx_ir_src cond, unsigned mod, uint32_t target)
{
   vagx_ir_instr *J = &L->out[L->n];
   memset(J, 0, sizeof(*J));
   J->op = op;
   J->mod = mod;
   J->src[0] = cond;
   J->src[1] = J->src[2] = ir_none();
   J->target = target;
   L->exit_jmp[L->n] = false;
   L->n++;
   return J;
}

/* if.u c; <one unconditional break/continue jmp>; endif.u -> br c, @exit */
static bool
fold_exit(struct lower *L, struct construct *k)
{
   const unsigned j = k->br + 1;
   if (L->n != j + 1 || !L->exit_jmp[j])
      return false;
   vagx_ir_instr *B = &L->out[k->br];
   B->mod ^= 1; /* jump when the then side would have run */
   B->target = L->out[j].target;
   for (unsigned i = L->nbrk; i-- > 0;) {
      if (L->brk[i] == j) {
         L->brk[i] = k->br; /* the br now waits for the loop's end */
         break;
      }
   }
   L->n--;
   return true;
}

bool
vagx_lower_uniform_cf(vagx_ir *ir)
{
   bool any = false;
   for (unsigned i = 0; i < ir->num_instrs && !any; i++)
      any = ir->instrs[i].uniform;
   if (!any)
      return false;

   const unsigned n = ir->num_instrs;
   struct lower L = {
      .out = malloc((n + 1) * sizeof(vagx_ir_instr)),
      .exit_jmp = calloc(n + 1, sizeof(bool)),
      .brk = malloc((n + 1) * sizeof(unsigned)),
      .label = ~0u,
   };
   struct construct *stack = malloc((n + 1) * sizeof(*stack));
   unsigned depth = 0;

   for (unsigned i = 0; i < n; i++) {
      const vagx_ir_instr *I = &ir->instrs[i];
      switch (I->op) {
      case VAGX_OP_IF:
         stack[depth] = (struct construct){ VAGX_OP_IF, I->uniform, -1, -1, 0, 0 };
         if (I->uniform) {
            stack[depth].br = stack[depth].pending = L.n;
            emit_jump(&L, VAGX_OP_BR, I->src[0], (I->mod & 1) ^ 1, 0);
            depth++;
            continue;
         }
         depth++;
         break;
      case VAGX_OP_LOOP:
         stack[depth++] = (struct construct){ VAGX_OP_LOOP, I->uniform, -1, -1, L.n, L.nbrk };
         if (I->uniform)
            continue;
         break;
      case VAGX_OP_ELSE: {
         struct construct *k = &stack[depth - 1];
         if (!k->uniform)
            break;
         /* the then side falls through to endif unless it ended in an
          * exit jump that no jump skips */
         const bool falls = !(L.n > (unsigned)k->br + 1 && L.exit_jmp[L.n - 1] &&
                              L.label != L.n);
         int jmp = -1;
         if (falls) {
            jmp = L.n;
            emit_jump(&L, VAGX_OP_JMP, ir_none(), 0, 0);
         }
         L.out[k->br].target = L.label = L.n; /* the else side */
         k->pending = jmp;
         continue;
      }
      case VAGX_OP_ENDIF: {
         struct construct *k = &stack[--depth];
         if (!k->uniform)
            break;
         if (!(k->pending == k->br && fold_exit(&L, k)) && k->pending >= 0)
            L.out[k->pending].target = L.label = L.n;
         continue;
      }
      case VAGX_OP_ENDLOOP: {
         struct construct *k = &stack[--depth];
         if (!k->uniform)
            break;
         emit_jump(&L, VAGX_OP_JMP, ir_none(), 0, k->head);
         for (unsigned b = k->brk_start; b < L.nbrk; b++)
            L.out[L.brk[b]].target = L.label = L.n;
         L.nbrk = k->brk_start;
         continue;
      }
      case VAGX_OP_BREAK:
      case VAGX_OP_CONTINUE: {
         if (!I->uniform)
            break;
         /* the innermost loop (the validator checked it is uniform) */
         unsigned d = depth;
         while (stack[--d].op != VAGX_OP_LOOP)
            ;
         const struct construct *loop = &stack[d];
         const bool cond = I->mod & 1;
         const bool brk = I->op == VAGX_OP_BREAK;
         if (brk)
            L.brk[L.nbrk++] = L.n;
         emit_jump(&L, cond ? VAGX_OP_BR : VAGX_OP_JMP, cond ? I->src[0] : ir_none(), 0,
                   brk ? 0 : loop->head);
         L.exit_jmp[L.n - 1] = !cond;
         continue;
      }
      default:
         break;
      }
      L.exit_jmp[L.n] = false;
      L.out[L.n++] = *I;
   }

   free(ir->instrs);
   ir->instrs = L.out;
   ir->num_instrs = L.n;
   ir->cap_instrs = n + 1;
   free(L.exit_jmp);
   free(L.brk);
   free(stack);
   /* jumps are not structured control flow: no CFG describes this IR */
   ralloc_free(ir->cfg_mem);
   ir->cfg_mem = NULL;
   ir->blocks = NULL;
   ir->num_blocks = 0;
   ir->live_valid = false;
   return true;
}
