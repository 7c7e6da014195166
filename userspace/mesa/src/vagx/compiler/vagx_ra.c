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
 * an instruction and one it writes never share a register -- except a
 * copy `mov d.c, s` where s dies: d first tries the base that puts d.c in
 * s's register, and packing drops the self-move.  A register of an SSA
 * vreg written in one block is held only from its own write, so the
 * values a vector is built from can die into it.
 *
 * When a vreg finds no registers, values are spilled (vagx_spill.c) and
 * allocation starts over.  The victims are chosen at the point of the
 * failing vreg's range where the most registers are live, among the vregs
 * live there that the instruction there does not touch, values
 * rematerialised first (vagx_spill.c), then furthest next use
 * first (Belady's choice, as agx_spill makes it), until the registers they
 * free bring that point a little below VAGX_MAX_GPRS (and free at least
 * the failing vreg's size).  The short vregs spilling makes (a fill to its
 * use, a write to its store) are never chosen, so every round spills a
 * vreg of the program and the loop ends; it fails only when the spill
 * slots would need more than VAGX_MAX_STACK_BYTES. */
#include <limits.h>
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

/* A copy `mov d.comp, src.src_comp` at instruction `at`. */
struct copy_hint {
   unsigned at, comp, src, src_comp;
};

struct ra_ctx {
   vagx_ir *ir;
   struct util_dynarray *segs;   /* per vreg: struct segment */
   struct util_dynarray *hints;  /* per vreg: struct copy_hint, copies into it */
   unsigned *base_of;            /* per vreg: its first entry in `from` */
   int *from;                    /* per register of a vreg: the write it starts at */
   BITSET_WORD *busy;            /* per instruction: the GPRs in use there */
   unsigned words;
};

/* An SSA vreg written in one block holds nothing in a register before
 * that register's write (a vector built component by component): there
 * the register stays free for values that die by then.  Other vregs hold
 * all their registers over their whole range (from = -1). */
static void
first_writes(struct ra_ctx *ra, void *mem)
{
   vagx_ir *ir = ra->ir;
   unsigned total = 0;
   ra->base_of = ralloc_array(mem, unsigned, MAX2(ir->num_vregs, 1));
   ra->hints = ralloc_array(mem, struct util_dynarray, MAX2(ir->num_vregs, 1));
   for (unsigned v = 0; v < ir->num_vregs; v++) {
      ra->base_of[v] = total;
      total += ir->vregs[v].size;
      util_dynarray_init(&ra->hints[v], mem);
   }
   ra->from = ralloc_array(mem, int, MAX2(total, 1));
   memset(ra->from, 0xff, MAX2(total, 1) * sizeof(int));
   int *block = ralloc_array(mem, int, MAX2(ir->num_vregs, 1));
   memset(block, 0xff, MAX2(ir->num_vregs, 1) * sizeof(int));
   for (unsigned b = 0; b < ir->num_blocks; b++) {
      for (unsigned i = ir->blocks[b].start; i < ir->blocks[b].end; i++) {
         const vagx_ir_instr *I = &ir->instrs[i];
         if (!I->has_dst)
            continue;
         const unsigned d = I->dst;
         block[d] = block[d] == -1 || block[d] == (int)b ? (int)b : -2;
         if (I->op == VAGX_OP_MOV && I->src[0].file == IR_VREG) {
            struct copy_hint h = { i, I->dst_comp, I->src[0].v, I->src[0].comp };
            util_dynarray_append(&ra->hints[d], struct copy_hint, h);
         }
         struct vagx_instr M = { .op = I->op, .mod = I->mod, .imm = { 0, I->ext } };
         for (unsigned c = 0; c < vagx_dst_regs(&M); c++)
            ra->from[ra->base_of[d] + I->dst_comp + c] = i;
      }
   }
   for (unsigned v = 0; v < ir->num_vregs; v++)
      if (ir->vregs[v].reg || block[v] < 0)
         for (unsigned c = 0; c < ir->vregs[v].size; c++)
            ra->from[ra->base_of[v] + c] = -1;
}

/* Register g is taken at point p by the source of a copy into v.comp at p
 * that dies there: the copy moves it into itself (dropped when encoding). */
static bool
copy_into(const struct ra_ctx *ra, unsigned v, unsigned p, unsigned comp, unsigned g)
{
   util_dynarray_foreach(&ra->hints[v], struct copy_hint, h) {
      const vagx_vreg *s = &ra->ir->vregs[h->src];
      if (h->at == p && h->comp == comp && s->hw >= 0 && s->hw + h->src_comp == g &&
          s->end == (int)p)
         return true;
   }
   return false;
}

/* Whether v fits at base: every register free wherever v holds it, but
 * where a dying copy source hands it over. */
static bool
fits(const struct ra_ctx *ra, unsigned v, unsigned base)
{
   const unsigned size = ra->ir->vregs[v].size;
   if (base + size > VAGX_MAX_GPRS)
      return false;
   util_dynarray_foreach(&ra->segs[v], struct segment, seg) {
      for (unsigned p = seg->start; p <= seg->end; p++) {
         for (unsigned c = 0; c < size; c++) {
            if (ra->from[ra->base_of[v] + c] > (int)p ||
                !BITSET_TEST(&ra->busy[p * ra->words], base + c))
               continue;
            if (!copy_into(ra, v, p, c, base + c))
               return false;
         }
      }
   }
   return true;
}

static int
pick(const struct ra_ctx *ra, unsigned v, BITSET_WORD *taken)
{
   const vagx_vreg *r = &ra->ir->vregs[v];
   /* the register of a copy source that dies at the copy: no move */
   util_dynarray_foreach(&ra->hints[v], struct copy_hint, h) {
      const int base = ra->ir->vregs[h->src].hw + (int)h->src_comp - (int)h->comp;
      if (ra->ir->vregs[h->src].hw >= 0 && base >= 0 && fits(ra, v, base))
         return base;
   }
   /* else the lowest base free at every point (taken: per register of
    * v, the GPRs in use where v holds that register) */
   memset(taken, 0, r->size * ra->words * sizeof(BITSET_WORD));
   util_dynarray_foreach(&ra->segs[v], struct segment, seg)
      for (unsigned p = seg->start; p <= seg->end; p++)
         for (unsigned c = 0; c < r->size; c++)
            if (ra->from[ra->base_of[v] + c] <= (int)p)
               __bitset_or(&taken[c * ra->words], &taken[c * ra->words],
                           &ra->busy[p * ra->words], ra->words);
   for (unsigned base = 0; base + r->size <= VAGX_MAX_GPRS; base++) {
      bool ok = true;
      for (unsigned c = 0; c < r->size && ok; c++)
         ok = !BITSET_TEST(&taken[c * ra->words], base + c);
      if (ok)
         return base;
   }
   return -1;
}

/* Registers left free at the point spilling relieves: the failing vreg
 * may still miss a fit by fragmentation, the next round's fills land near
 * it. */
#define SPILL_SLACK 8

/* The first read of u at or after instruction p, INT_MAX when none comes
 * in program order (live to a loop's back edge: its next use is in the
 * next iteration, as far as any). */
static int
next_use(const vagx_ir *ir, unsigned u, unsigned p)
{
   for (int i = p; i <= ir->vregs[u].end; i++)
      for (unsigned s = 0; s < 3; s++)
         if (ir->instrs[i].src[s].file == IR_VREG && ir->instrs[i].src[s].v == u)
            return i;
   return INT_MAX;
}

struct victim {
   unsigned v;
   int next;
   bool remat;
};

/* Values rematerialised (vagx_remat_defs: no memory traffic) first, then
 * by next use. */
static int
by_next_use(const void *a, const void *b)
{
   const struct victim *x = a, *y = b;
   if (x->remat != y->remat)
      return x->remat ? -1 : 1;
   if (x->next != y->next)
      return x->next > y->next ? -1 : 1;
   return x->v < y->v ? -1 : x->v > y->v; /* stable: vreg order */
}

/* Allocation failed for v: marks in `spill` the vregs to spill. */
static void
choose_spills(const struct ra_ctx *ra, unsigned v, const bool *no_spill, BITSET_WORD *spill,
              void *mem)
{
   const vagx_ir *ir = ra->ir;
   unsigned *pressure = rzalloc_array(mem, unsigned, MAX2(ir->num_instrs, 1));
   for (unsigned u = 0; u < ir->num_vregs; u++)
      util_dynarray_foreach(&ra->segs[u], struct segment, seg)
         for (unsigned p = seg->start; p <= seg->end; p++)
            pressure[p] += ir->vregs[u].size;
   unsigned at = 0, most = 0;
   util_dynarray_foreach(&ra->segs[v], struct segment, seg)
      for (unsigned p = seg->start; p <= seg->end; p++)
         if (pressure[p] > most) {
            most = pressure[p];
            at = p;
         }

   const vagx_ir_instr *I = &ir->instrs[at];
   int *remat = ralloc_array(mem, int, MAX2(ir->num_vregs, 1));
   vagx_remat_defs(ir, remat);
   struct victim *c = ralloc_array(mem, struct victim, MAX2(ir->num_vregs, 1));
   unsigned n = 0;
   for (unsigned u = 0; u < ir->num_vregs; u++) {
      if (no_spill[u] || (I->has_dst && I->dst == u))
         continue;
      bool live = false, touched = false;
      util_dynarray_foreach(&ra->segs[u], struct segment, seg)
         live |= seg->start <= at && at <= seg->end;
      for (unsigned s = 0; s < 3; s++)
         touched |= I->src[s].file == IR_VREG && I->src[s].v == u;
      if (live && !touched)
         c[n++] = (struct victim){ u, next_use(ir, u, at), remat[u] >= 0 };
   }
   qsort(c, n, sizeof(*c), by_next_use);
   const unsigned want = MAX2(most > VAGX_MAX_GPRS - SPILL_SLACK ? most - (VAGX_MAX_GPRS - SPILL_SLACK) : 0,
                              ir->vregs[v].size);
   unsigned freed = 0;
   for (unsigned k = 0; k < n && freed < want; k++) {
      BITSET_SET(spill, c[k].v);
      freed += ir->vregs[c[k].v].size;
   }
}

/* One attempt: true with every vreg assigned, else false with the vregs
 * to spill in `spill` (none: nothing can be spilled). */
static bool
allocate(vagx_ir *ir, const bool *no_spill, BITSET_WORD *spill)
{
   vagx_ir_build_cfg(ir);
   vagx_liveness(ir);
   void *mem = ralloc_context(NULL);
   struct ra_ctx ra = { .ir = ir, .words = BITSET_WORDS(VAGX_MAX_GPRS) };
   ra.segs = live_ranges(ir, mem);
   first_writes(&ra, mem);

   const unsigned n = ir->num_vregs;
   unsigned *order = ralloc_array(mem, unsigned, MAX2(n, 1));
   unsigned cnt = 0, max_size = 1;
   for (unsigned v = 0; v < n; v++) {
      ir->vregs[v].hw = -1;
      max_size = MAX2(max_size, ir->vregs[v].size);
      if (ir->vregs[v].start >= 0)
         order[cnt++] = v;
   }
   util_qsort_r(order, cnt, sizeof(unsigned), by_start, ir->vregs);

   /* every register the contract gives a thread must be encodable */
   STATIC_ASSERT(VAGX_MAX_GPRS <= VAGX_ISA_INDEXES);
   ra.busy = rzalloc_array(mem, BITSET_WORD, MAX2(ir->num_instrs, 1) * ra.words);
   BITSET_WORD *taken = ralloc_array(mem, BITSET_WORD, max_size * ra.words);
   unsigned max_reg = 0;
   for (unsigned k = 0; k < cnt; k++) {
      const unsigned v = order[k];
      vagx_vreg *r = &ir->vregs[v];
      const int found = pick(&ra, v, taken);
      if (found < 0) {
         choose_spills(&ra, v, no_spill, spill, mem);
         ralloc_free(mem);
         return false;
      }
      r->hw = found;
      util_dynarray_foreach(&ra.segs[v], struct segment, seg)
         for (unsigned p = seg->start; p <= seg->end; p++)
            for (unsigned c = 0; c < r->size; c++)
               if (ra.from[ra.base_of[v] + c] <= (int)p)
                  BITSET_SET(&ra.busy[p * ra.words], found + c);
      max_reg = MAX2(max_reg, found + r->size);
   }
   ralloc_free(mem);
   ir->info->gpr_count = MAX2(max_reg, 1);
   return true;
}

bool
vagx_ra(vagx_ir *ir)
{
   bool *no_spill = calloc(MAX2(ir->num_vregs, 1), sizeof(bool));
   bool ok = false;
   for (;;) {
      BITSET_WORD *spill = calloc(BITSET_WORDS(MAX2(ir->num_vregs, 1)), sizeof(BITSET_WORD));
      if (allocate(ir, no_spill, spill)) {
         ok = true;
      } else if (__bitset_is_empty(spill, BITSET_WORDS(MAX2(ir->num_vregs, 1)))) {
         ir->error = "register allocation failed: nothing left to spill";
      } else if (vagx_spill(ir, spill, &no_spill) &&
                 vagx_ir_validate_after(ir, "spilling", true)) {
         free(spill);
         continue;
      }
      free(spill);
      break;
   }
   free(no_spill);
   return ok;
}
