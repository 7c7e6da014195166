/* SPDX-License-Identifier: MIT */
/* Liveness unit tests (TAP): live_in/live_out of every block after
 * vagx_liveness, for straight code, ifs, values live across and around
 * loops, loop-carried NIR registers, and vectors written component by
 * component. */
#include "vagx_test_asm.h"

static const char *
set_str(const vagx_ir *ir, const BITSET_WORD *set)
{
   static char buf[128];
   buf[0] = '\0';
   unsigned v;
   BITSET_FOREACH_SET(v, set, ir->num_vregs)
      snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%sv%u", buf[0] ? " " : "", v);
   return buf;
}

/* want: live_in and live_out of each block, e.g. { "v0", "v0 v1" } */
static void
check_ir(const char *name, vagx_ir *ir, const char *const (*want)[2], unsigned n)
{
   static char err[192];
   const char *e = NULL;
   vagx_liveness(ir);
   if (ir->num_blocks != n) {
      snprintf(err, sizeof(err), "%u blocks, want %u", ir->num_blocks, n);
      e = err;
   }
   for (unsigned b = 0; !e && b < n; b++) {
      for (unsigned k = 0; !e && k < 2; k++) {
         const char *got = set_str(ir, k ? ir->blocks[b].live_out : ir->blocks[b].live_in);
         if (strcmp(got, want[b][k])) {
            snprintf(err, sizeof(err), "block %u live %s '%s', want '%s'", b, k ? "out" : "in",
                     got, want[b][k]);
            e = err;
         }
      }
   }
   t_result(name, e, ir);
}

static void
check(const char *name, const char *src, const char *const (*want)[2], unsigned n)
{
   vagx_ir ir;
   t_assemble(&ir, src);
   check_ir(name, &ir, want, n);
}

static void
test_straight(void)
{
   static const char *const w[][2] = { { "", "" } };
   check("liveness: nothing live in or out of one block", "mov 0; mov 1; add 2 0 1; use 2; end",
         w, ARRAY_SIZE(w));
}

static void
test_if(void)
{
   static const char *const w[][2] = {
      { "", "v0 v1" },     /* mov 0; mov 1; if 0 */
      { "v0 v1", "v0" },   /* use 1; else */
      { "v0", "v0" },      /* mov 2; use 2; endif */
      { "v0", "" },        /* use 0; end */
   };
   check("liveness: a value read on one side of an if is live into that side only",
         "mov 0; mov 1; if 0; use 1; else; mov 2; use 2; endif; use 0; end", w, ARRAY_SIZE(w));
}

static void
test_across_loop(void)
{
   static const char *const w[][2] = {
      { "", "v0" },       /* mov 0; use 0; loop */
      { "v0", "v0" },     /* header: if 0 */
      { "v0", "v0" },     /* break */
      { "", "" },         /* endif after the break: unreachable */
      { "v0", "v0" },     /* mov 2; use 2; endloop */
      { "v0", "" },       /* use 0; end */
   };
   check("liveness: a value read after a loop is live through all of it",
         "mov 0; use 0; loop; if 0; break; endif; mov 2; use 2; endloop; use 0; end", w,
         ARRAY_SIZE(w));
}

static void
test_into_loop(void)
{
   static const char *const w[][2] = {
      { "", "v0" },       /* mov 0; loop */
      { "v0", "v0" },     /* if 0 */
      { "", "" },         /* break: nothing read after the loop */
      { "", "" },         /* endif (unreachable) */
      { "v0", "v0" },     /* add 1 0 0; use 1; endloop: v0 around the back edge */
      { "", "" },
   };
   check("liveness: a value read in a loop is live around its back edge; one defined and "
         "read in the body is not",
         "mov 0; loop; if 0; break; endif; add 1 0 0; use 1; endloop; end", w, ARRAY_SIZE(w));
}

static void
test_loop_carried(void)
{
   static const char *const w[][2] = {
      { "", "v0 v1" },      /* mov 0; mov 1; loop */
      { "v0 v1", "v0 v1" }, /* if 1 */
      { "v0", "v0" },       /* break */
      { "", "" },           /* endif (unreachable) */
      { "v0 v1", "v0 v1" }, /* add 0 0 1; endloop: v0 carried to the next iteration */
      { "v0", "" },         /* use 0; end */
   };
   check("liveness: a loop-carried NIR register is live into the header and out of the latch",
         "reg 0; mov 0; mov 1; loop; if 1; break; endif; add 0 0 1; endloop; use 0; end", w,
         ARRAY_SIZE(w));
}

static void
test_break_path(void)
{
   static const char *const w[][2] = {
      { "", "v0" },       /* mov 0; loop */
      { "v0", "v0 v1" },  /* mov 1; if 0 */
      { "v1", "v1" },     /* break */
      { "", "" },         /* endif (unreachable) */
      { "v0", "v0" },     /* mov 2; use 2; endloop: v1 is not live here */
      { "v1", "" },       /* use 1; end */
   };
   check("liveness: a value written in a loop and read after it is live on the break path "
         "only",
         "reg 1; mov 0; loop; mov 1; if 0; break; endif; mov 2; use 2; endloop; use 1; end", w,
         ARRAY_SIZE(w));
}

static void
test_vectors(void)
{
   /* v1: an SSA vec2 built component by component inside the loop and
    * read there: not live around the loop.  v2: a NIR register vec2
    * written one component per block after the loop: not live before its
    * first write (the partial writes do not kill; the forward pass trims). */
   vagx_ir ir;
   t_begin(&ir);
   uint32_t c = vagx_ir_new_vreg(&ir, 1), v = vagx_ir_new_vreg(&ir, 2), r = vagx_ir_new_vreg(&ir, 2);
   ir.vregs[r].reg = true;
   vagx_ir_emit(&ir, VAGX_OP_MOV, c, 0, ir_imm(1), ir_none(), ir_none());
   t_cf(&ir, VAGX_OP_LOOP, ir_none(), 0);
   vagx_ir_emit(&ir, VAGX_OP_MOV, v, 0, ir_imm(2), ir_none(), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_MOV, v, 1, ir_vreg(c, 0), ir_none(), ir_none());
   vagx_ir_emit(&ir, VAGX_OP_ST_VAR, -1, 0, ir_vreg(v, 1), ir_imm(0), ir_none());
   t_cf(&ir, VAGX_OP_IF, ir_vreg(v, 0), 0);
   t_cf(&ir, VAGX_OP_BREAK, ir_none(), 0);
   t_cf(&ir, VAGX_OP_ENDIF, ir_none(), 0);
   t_cf(&ir, VAGX_OP_ENDLOOP, ir_none(), 0);
   vagx_ir_emit(&ir, VAGX_OP_MOV, r, 0, ir_vreg(c, 0), ir_none(), ir_none());
   t_cf(&ir, VAGX_OP_IF, ir_vreg(c, 0), 0);
   vagx_ir_emit(&ir, VAGX_OP_MOV, r, 1, ir_imm(3), ir_none(), ir_none());
   t_cf(&ir, VAGX_OP_ENDIF, ir_none(), 0);
   vagx_ir_emit(&ir, VAGX_OP_ST_VAR, -1, 0, ir_vreg(r, 1), ir_imm(1), ir_none());
   t_cf(&ir, VAGX_OP_END, ir_none(), 0);
   vagx_ir_build_cfg(&ir);
   static const char *const w[][2] = {
      { "", "v0" },         /* mov c; loop */
      { "v0", "v0" },       /* v = (2, c); read; if v.x */
      { "v0", "v0" },       /* break */
      { "", "" },           /* endif (unreachable) */
      { "v0", "v0" },       /* endloop */
      { "v0", "v2" },       /* r.x = c; if c */
      { "v2", "v2" },       /* r.y = 3; endif */
      { "v2", "" },         /* read r.y; end */
   };
   check_ir("liveness: vectors written per component (SSA in one block; NIR register across "
            "blocks)",
            &ir, w, ARRAY_SIZE(w));
}

int
main(void)
{
   printf("TAP version 13\n");
   test_straight();
   test_if();
   test_across_loop();
   test_into_loop();
   test_loop_carried();
   test_break_path();
   test_vectors();
   return t_finish();
}
