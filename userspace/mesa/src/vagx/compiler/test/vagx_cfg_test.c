/* SPDX-License-Identifier: MIT */
/* CFG unit tests (TAP): blocks, edges, reachability, loop depth and
 * dominators that vagx_ir_build_cfg derives from structured control flow,
 * checked against what the ISA's mask-stack semantics give a lane (the cf
 * group of vagx_isa.xml), and the printer. */
#include "vagx_test_asm.h"

struct want_block {
   const char *succs, *preds;
   int idom;
   unsigned depth;
   bool reachable;
};

static void
check(const char *name, const char *src, const struct want_block *want, unsigned n)
{
   vagx_ir ir;
   static char err[160];
   const char *e = NULL;
   t_assemble(&ir, src);
   if (ir.num_blocks != n) {
      snprintf(err, sizeof(err), "%u blocks, want %u", ir.num_blocks, n);
      e = err;
   }
   for (unsigned b = 0; !e && b < n; b++) {
      const vagx_block *B = &ir.blocks[b];
      char succs[64];
      snprintf(succs, sizeof(succs), "%s", t_edges(&ir, b, false));
      if (strcmp(succs, want[b].succs))
         snprintf(err, sizeof(err), "block %u succs '%s', want '%s'", b, succs, want[b].succs);
      else if (strcmp(t_edges(&ir, b, true), want[b].preds))
         snprintf(err, sizeof(err), "block %u preds '%s', want '%s'", b, t_edges(&ir, b, true),
                  want[b].preds);
      else if (B->idom != want[b].idom)
         snprintf(err, sizeof(err), "block %u idom %d, want %d", b, B->idom, want[b].idom);
      else if (B->loop_depth != want[b].depth)
         snprintf(err, sizeof(err), "block %u depth %u, want %u", b, B->loop_depth,
                  want[b].depth);
      else if (B->reachable != want[b].reachable)
         snprintf(err, sizeof(err), "block %u %sreachable", b, B->reachable ? "" : "not ");
      else
         continue;
      e = err;
   }
   t_result(name, e, &ir);
}

static void
test_if_else(void)
{
   static const struct want_block w[] = {
      { "1 2", "", -1, 0, true },  /* mov; if */
      { "3", "0", 0, 0, true },    /* then ... else */
      { "3", "0", 0, 0, true },    /* else side ... endif */
      { "", "1 2", 0, 0, true },   /* join */
   };
   check("cfg: if/else/endif, both sides join after endif",
         "mov 0; if 0; mov 1; use 1; else; mov 2; use 2; endif; use 0; end", w, ARRAY_SIZE(w));
}

static void
test_if(void)
{
   static const struct want_block w[] = {
      { "1 2", "", -1, 0, true },
      { "2", "0", 0, 0, true },
      { "", "0 1", 0, 0, true },
   };
   check("cfg: if without else falls to the block after endif", "if; mov 1; endif; end", w,
         ARRAY_SIZE(w));
}

static void
test_loop(void)
{
   static const struct want_block w[] = {
      { "1", "", -1, 0, true },          /* mov; loop */
      { "2 4", "0 5 7", 0, 1, true },    /* header: if */
      { "8", "1", 1, 1, true },          /* break -> exit */
      { "4", "", -1, 1, false },         /* endif after the break */
      { "5 7", "1 3", 1, 1, true },      /* add; if */
      { "1", "4", 4, 1, true },          /* continue -> header */
      { "7", "", -1, 1, false },         /* endif after the continue */
      { "1", "4 6", 4, 1, true },        /* use; endloop: back edge only */
      { "", "2", 2, 0, true },           /* exit: through the break */
   };
   check("cfg: loop with break and continue in ifs (back edges, exit through the break, dead "
         "endifs)",
         "mov 0; loop; if 0; break; endif; add 1 0 0; if 1; continue; endif; use 1; endloop; "
         "use 0; end",
         w, ARRAY_SIZE(w));
}

static void
test_nested_loops(void)
{
   static const struct want_block w[] = {
      { "1", "", -1, 0, true },      /* loop (outer) */
      { "2", "0 5", 0, 1, true },    /* outer header: loop (inner) */
      { "4", "1 3", 1, 2, true },    /* inner header: break -> inner exit */
      { "2", "", -1, 2, false },     /* inner endloop, after the break */
      { "6", "2", 2, 1, true },      /* inner exit: break -> outer exit */
      { "1", "", -1, 1, false },     /* outer endloop, after the break */
      { "", "4", 4, 0, true },       /* outer exit */
   };
   check("cfg: a break leaves the innermost loop only",
         "loop; loop; break; endloop; break; endloop; end", w, ARRAY_SIZE(w));
}

static void
test_cond_break(void)
{
   static const struct want_block w[] = {
      { "1", "", -1, 0, true },
      { "3 2", "0 2", 0, 1, true },   /* break.cond: exit and the next block */
      { "1", "1", 1, 1, true },
      { "", "1", 1, 0, true },
   };
   check("cfg: conditional break keeps the fall-through edge",
         "mov 0; loop; break 0; endloop; end", w, ARRAY_SIZE(w));
}

static void
test_dominance_and_print(void)
{
   vagx_ir ir;
   const char *e = NULL;
   t_assemble(&ir, "mov 0; loop; if 0; break; endif; add 1 0 0; if 1; continue; endif; "
                   "use 1; endloop; use 0; end");
   char *out = NULL;
   size_t len = 0;
   FILE *fp = open_memstream(&out, &len);
   vagx_ir_print(fp, &ir);
   fclose(fp);
   if (!vagx_block_dominates(&ir, 1, 8) || !vagx_block_dominates(&ir, 0, 7))
      e = "header does not dominate the exit / entry the latch";
   else if (vagx_block_dominates(&ir, 4, 8) || vagx_block_dominates(&ir, 2, 7))
      e = "a block on one path only dominates the join";
   else if (vagx_ir_block_of(&ir, 0) != 0 || vagx_ir_block_of(&ir, 2) != 1 ||
            vagx_ir_block_of(&ir, ir.num_instrs - 1) != 8)
      e = "vagx_ir_block_of";
   else if (!strstr(out, "block 1 (depth 1, idom 0)  <- 0 5 7  -> 2 4") ||
            !strstr(out, "block 3 (depth 1, idom -1) unreachable") || !strstr(out, "iadd v1.0, v0.0, v0.0"))
      e = out;
   t_result("cfg: dominance queries, block lookup, printer shows blocks and edges", e, &ir);
   free(out);
}

int
main(void)
{
   printf("TAP version 13\n");
   test_if_else();
   test_if();
   test_loop();
   test_nested_loops();
   test_cond_break();
   test_dominance_and_print();
   return t_finish();
}
