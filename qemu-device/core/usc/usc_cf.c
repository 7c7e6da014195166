/* Control-flow handlers: the device-side mask stack of structured control flow.
 * Targets (matching else/endif, loop body, where to go when no lane is left)
 * were resolved by the decoder, see usc_decode.c. */
#include "usc_priv.h"

#define HANDLER(name) static void name(struct usc_grp *g, const struct usc_op *o)

/* Lanes that must stay off when an enclosing if restores its mask: discarded
 * lanes and lanes that left the innermost loop's current iteration. */
static inline uint32_t removed(const struct usc_grp *g)
{
   uint32_t r = g->killed;
   if (g->loop >= 0)
      r |= g->stack[g->loop].brk | g->stack[g->loop].cont;
   return r;
}

/* Lanes of the SIMD group selected by src0 (nonzero, or zero when `zero`). */
static inline uint32_t cond_lanes(const struct usc_grp *g, const struct usc_op *o, int zero)
{
   uint32_t t0[L], m = 0;
   const uint32_t *a = usc_src(g, o, 0, t0);
   for (int l = 0; l < L; l++)
      m |= (uint32_t)((a[l] != 0) != zero) << l;
   return m;
}

static inline void set_exec_or_skip(struct usc_grp *g, const struct usc_op *o, uint32_t exec,
                                    uint32_t where)
{
   usc_set_exec(g, exec);
   if (!exec)
      g->pc = where;
}

HANDLER(op_nop)
{
   (void)g;
   (void)o;
}

void usc_op_end(struct usc_grp *g, const struct usc_op *o)
{
   (void)o;
   g->state = USC_DONE;
}

HANDLER(op_if)
{
   struct usc_frame *f = &g->stack[g->sp++];
   uint32_t taken = g->exec & cond_lanes(g, o, o->I.mod & 1);
   f->saved = g->exec;
   f->taken = taken;
   f->brk = f->cont = 0;
   f->is_loop = 0;
   f->outer_loop = (int8_t)g->loop;
   set_exec_or_skip(g, o, taken, o->target);
}

HANDLER(op_else)
{
   const struct usc_frame *f = &g->stack[g->sp - 1];
   set_exec_or_skip(g, o, f->saved & ~f->taken & ~removed(g), o->target);
}

HANDLER(op_endif)
{
   const struct usc_frame *f = &g->stack[--g->sp];
   set_exec_or_skip(g, o, f->saved & ~removed(g), o->skip);
}

HANDLER(op_loop)
{
   struct usc_frame *f = &g->stack[g->sp];
   f->saved = g->exec;
   f->taken = 0;
   f->brk = f->cont = 0;
   f->is_loop = 1;
   f->outer_loop = (int8_t)g->loop;
   g->loop = g->sp++;
}

HANDLER(op_break)
{
   uint32_t b = g->exec & (o->I.mod & 1 ? cond_lanes(g, o, 0) : ~0u);
   g->stack[g->loop].brk |= b;
   if (b)
      set_exec_or_skip(g, o, g->exec & ~b, o->skip);
}

HANDLER(op_continue)
{
   uint32_t c = g->exec & (o->I.mod & 1 ? cond_lanes(g, o, 0) : ~0u);
   g->stack[g->loop].cont |= c;
   if (c)
      set_exec_or_skip(g, o, g->exec & ~c, o->skip);
}

HANDLER(op_endloop)
{
   struct usc_frame *f = &g->stack[g->sp - 1];
   uint32_t again = (g->exec | f->cont) & ~g->killed;
   f->cont = 0;
   if (again) {
      usc_set_exec(g, again);
      g->pc = o->target;
      return;
   }
   g->sp--;
   g->loop = f->outer_loop;
   set_exec_or_skip(g, o, f->saved & ~removed(g), o->skip);
}

HANDLER(op_discard)
{
   uint32_t k = g->exec & (o->I.mod & 1 ? cond_lanes(g, o, 0) : ~0u);
   g->killed |= k;
   if (k)
      set_exec_or_skip(g, o, g->exec & ~k, o->skip);
}

HANDLER(op_jmp)
{
   g->pc = o->target;
}

/* Uniform branch: the lowest active lane decides. */
HANDLER(op_br)
{
   uint32_t t0[L];
   if (!g->exec)
      return;
   const uint32_t *a = usc_src(g, o, 0, t0);
   uint32_t v = a[__builtin_ctz(g->exec)];
   if ((v != 0) != (o->I.mod & 1))
      g->pc = o->target;
}

HANDLER(op_barrier)
{
   (void)o;
   __atomic_thread_fence(__ATOMIC_SEQ_CST);
   g->state = USC_BARRIER;
}

usc_fn usc_cf_fn(const struct vagx_instr *I)
{
   switch (I->op) {
   case VAGX_OP_NOP: return op_nop;
   case VAGX_OP_END: return usc_op_end;
   case VAGX_OP_IF: return op_if;
   case VAGX_OP_ELSE: return op_else;
   case VAGX_OP_ENDIF: return op_endif;
   case VAGX_OP_LOOP: return op_loop;
   case VAGX_OP_BREAK: return op_break;
   case VAGX_OP_CONTINUE: return op_continue;
   case VAGX_OP_ENDLOOP: return op_endloop;
   case VAGX_OP_JMP: return op_jmp;
   case VAGX_OP_BR: return op_br;
   case VAGX_OP_DISCARD: return op_discard;
   case VAGX_OP_BARRIER: return op_barrier;
   default: return NULL;
   }
}
