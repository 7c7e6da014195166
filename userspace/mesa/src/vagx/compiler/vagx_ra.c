/* SPDX-License-Identifier: MIT */
/* Register allocation: live ranges from the liveness of vagx_liveness.c,
 * then first-fit over the GPRs the contract gives a thread (VAGX_MAX_GPRS),
 * a vector vreg in consecutive registers.
 *
 * A vreg's live range is one segment of instruction indices per block it
 * is live in: from the block's start when it is live into the block (else
 * from its first write or read there) to the block's end when it is live
 * out of it (else to its last read or write there).  Loops need no special
 * case: a value defined before a loop and read in it is live into the
 * header and out of the latch (the header is its successor), so it has a
 * segment in every block of the loop; so does a loop-carried value (a NIR
 * register read before its write in the body).  Between the segments are
 * holes where another value may use the register: a value read only on the
 * else side of an if is not live on its then side.
 *
 * Vregs are taken in order of their first point, each given the lowest
 * base whose registers are free at every point of its range (a bitmap of
 * the busy GPRs per instruction); segments are closed, so a value read by
 * an instruction and one it writes never share a register.
 *
 * There is no spilling: the ISA has no per-lane scratch memory yet (see
 * docs/mesa-driver.md, "Register allocation"), so a program that needs
 * more than VAGX_MAX_GPRS registers at once fails to compile. */
#include <stdlib.h>
#include <string.h>
#include "util/ralloc.h"
#include "util/u_qsort.h"
#include "vagx_hw.h"
#include "vagx_ir.h"

struct segment {
   unsigned start, end; /* closed */
};

/* Extend this block's segment of v (lo/hi, -1 none) to i; `touched` lists
 * the vregs with a segment open. */
static void
extend(int *lo, int *hi, struct util_dynarray *touched, unsigned v, unsigned i)
{
   if (lo[v] < 0) {
      lo[v] = i;
      util_dynarray_append(touched, unsigned, v);
   }
   hi[v] = MAX2(hi[v], (int)i);
}

/* Per vreg: its segments (util_dynarray of struct segment), and the hull
 * in vagx_vreg::start/end. */
static struct util_dynarray *
live_ranges(vagx_ir *ir, void *mem)
{
   const unsigned nv = ir->num_vregs;
   struct util_dynarray *segs = ralloc_array(mem, struct util_dynarray, MAX2(nv, 1));
   int *lo = ralloc_array(mem, int, MAX2(nv, 1)), *hi = ralloc_array(mem, int, MAX2(nv, 1));
   struct util_dynarray touched;
   util_dynarray_init(&touched, mem);
   for (unsigned v = 0; v < nv; v++) {
      util_dynarray_init(&segs[v], mem);
      lo[v] = hi[v] = -1;
   }
   for (unsigned b = 0; b < ir->num_blocks; b++) {
      const vagx_block *B = &ir->blocks[b];
      unsigned v;
      BITSET_FOREACH_SET(v, B->live_in, nv)
         extend(lo, hi, &touched, v, B->start);
      for (unsigned i = B->start; i < B->end; i++) {
         const vagx_ir_instr *I = &ir->instrs[i];
         for (unsigned s = 0; s < 3; s++)
            if (I->src[s].file == IR_VREG)
               extend(lo, hi, &touched, I->src[s].v, i);
         if (I->has_dst)
            extend(lo, hi, &touched, I->dst, i);
      }
      BITSET_FOREACH_SET(v, B->live_out, nv)
         extend(lo, hi, &touched, v, B->end - 1);
      util_dynarray_foreach(&touched, unsigned, t) {
         struct segment seg = { lo[*t], hi[*t] };
         util_dynarray_append(&segs[*t], struct segment, seg);
         lo[*t] = hi[*t] = -1;
      }
      util_dynarray_clear(&touched);
   }
   for (unsigned v = 0; v < nv; v++) {
      vagx_vreg *r = &ir->vregs[v];
      r->start = r->end = -1;
      util_dynarray_foreach(&segs[v], struct segment, seg) {
         if (r->start < 0 || (int)seg->start < r->start)
            r->start = seg->start;
         r->end = MAX2(r->end, (int)seg->end);
      }
   }
   return segs;
}

static int
by_start(const void *a, const void *b, void *data)
{
   const vagx_vreg *vregs = data;
   const unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
   if (vregs[x].start != vregs[y].start)
      return vregs[x].start < vregs[y].start ? -1 : 1;
   return x < y ? -1 : x > y; /* stable: vreg order */
}

bool
vagx_ra(vagx_ir *ir)
{
   vagx_ir_build_cfg(ir);
   vagx_liveness(ir);
   void *mem = ralloc_context(NULL);
   struct util_dynarray *segs = live_ranges(ir, mem);

   const unsigned n = ir->num_vregs;
   unsigned *order = ralloc_array(mem, unsigned, MAX2(n, 1));
   unsigned cnt = 0;
   for (unsigned v = 0; v < n; v++)
      if (ir->vregs[v].start >= 0)
         order[cnt++] = v;
   util_qsort_r(order, cnt, sizeof(unsigned), by_start, ir->vregs);

   /* every register the contract gives a thread must be encodable */
   STATIC_ASSERT(VAGX_MAX_GPRS <= VAGX_ISA_INDEXES);
   const unsigned words = BITSET_WORDS(VAGX_MAX_GPRS);
   BITSET_WORD *busy = rzalloc_array(mem, BITSET_WORD, MAX2(ir->num_instrs, 1) * words);
   BITSET_WORD taken[BITSET_WORDS(VAGX_MAX_GPRS)];
   unsigned max_reg = 0;
   for (unsigned k = 0; k < cnt; k++) {
      const unsigned v = order[k];
      vagx_vreg *r = &ir->vregs[v];
      memset(taken, 0, sizeof(taken));
      util_dynarray_foreach(&segs[v], struct segment, seg)
         for (unsigned i = seg->start; i <= seg->end; i++)
            __bitset_or(taken, taken, &busy[i * words], words);
      int found = -1;
      for (unsigned base = 0; base + r->size <= VAGX_MAX_GPRS && found < 0; base++) {
         bool ok = true;
         for (unsigned c = 0; c < r->size && ok; c++)
            ok = !BITSET_TEST(taken, base + c);
         if (ok)
            found = base;
      }
      if (found < 0) {
         ralloc_free(mem);
         ir->error = "register allocation failed (spilling not implemented)";
         return false;
      }
      r->hw = found;
      util_dynarray_foreach(&segs[v], struct segment, seg)
         for (unsigned i = seg->start; i <= seg->end; i++)
            BITSET_SET_RANGE(&busy[i * words], found, found + r->size - 1);
      max_reg = MAX2(max_reg, found + r->size);
   }
   ralloc_free(mem);
   ir->info->gpr_count = MAX2(max_reg, 1);
   return true;
}
