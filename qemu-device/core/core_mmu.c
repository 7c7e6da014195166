/* SPDX-License-Identifier: MIT */
/*
 * The device MMU: 4-level page-table walk per VM root, per-thread TLBs and the
 * access checks (VALID, READ_ONLY, NULL, NO_EXEC) of the contract.
 *
 * TLB protocol: every thread (worker or front-end) owns a private TLB.  A
 * TLB invalidation bumps core->tlb_gen; a thread drops its whole TLB when it
 * sees a new generation at the start of a slice (a batch of threadgroups or
 * a copy chunk) or at a safepoint inside one (every 256 shader instructions,
 * between a render job's vertex groups and before each of its tiles: points
 * where the thread holds no host address) -- so a stale translation can be used only by accesses made
 * before the thread's next slice start or safepoint, and TLB_INV_STATUS.BUSY
 * stays 1 until every thread passed one (core_tlb.c).  An endless shader
 * therefore does not hold an invalidation up.  Invalidations are treated as
 * "everything": always correct, cheap because they are rare.
 */
#include "core_priv.h"
#include "vagx_pt.h"

#include <stdlib.h>

#define PAGE_MASK ((uint64_t)VAGX_PAGE_SIZE - 1)

static bool fail(struct core_fault *f, uint64_t root, uint64_t va, enum vagx_fault_access acc,
                 enum vagx_fault_reason reason, unsigned level)
{
   f->va = va;
   f->root = root;
   f->access = acc;
   f->reason = reason;
   f->level = level;
   f->unit = VAGX_UNIT_NONE;
   return false;
}

/* The walk itself is the contract's page-table library (vagx_pt.h); this
 * adapter only fills the core's result and fault records.  It runs on TLB
 * misses only: core_mmu_translate's hit path never gets here. */
bool core_walk(core_read_fn rd, void *opaque, uint64_t root, uint64_t va,
               enum vagx_fault_access access, struct core_xlate *x, struct core_fault *f)
{
   const struct vagx_pt_ops ops = {.read = rd};
   struct vagx_pt_walk w;
   memset(x, 0, sizeof(*x));
   if (!vagx_pt_walk(&ops, opaque, root, va, &w))
      return fail(f, root, va, access, w.reason, w.level);
   x->pa = w.pa;
   x->null = w.null;
   x->ro = w.read_only;
   x->nx = w.no_exec;
   return true;
}

/* Access rights on a finished walk.  NULL pages never fault (reads 0, writes
 * dropped), even when READ_ONLY or NO_EXEC is set on the way. */
static bool check_access(const struct core_xlate *x, uint64_t root, uint64_t va,
                         enum vagx_fault_access access, struct core_fault *f)
{
   if (x->null)
      return true;
   if (x->ro && (access == VAGX_FAULT_ACCESS_WRITE || access == VAGX_FAULT_ACCESS_ATOMIC))
      return fail(f, root, va, access, VAGX_FAULT_REASON_READ_ONLY, VAGX_PT_LEVELS - 1);
   if (x->nx && access == VAGX_FAULT_ACCESS_EXEC)
      return fail(f, root, va, access, VAGX_FAULT_REASON_NO_EXEC, VAGX_PT_LEVELS - 1);
   return true;
}

void core_mmu_ctx_init(struct core_mmu_ctx *m, struct vagx_core *core)
{
   memset(m, 0, sizeof(*m));
   m->core = core;
   m->gen = atomic_load(&core->tlb_gen);
   m->host_gen = atomic_load(&core->host_gen);
}

/* Two reasons to drop the TLB: a guest TLB invalidation (tlb_gen) and a
 * change of the host's memory map (host_gen): the cached host pointers of
 * guest pages may be stale after either. */
void core_mmu_sync(struct core_mmu_ctx *m)
{
   uint64_t g = atomic_load(&m->core->tlb_gen);
   uint64_t h = atomic_load(&m->core->host_gen);
   if (g != m->gen || h != m->host_gen) {
      memset(m->tlb, 0, sizeof(m->tlb));
      m->drops++;
      m->gen = g;
      m->host_gen = h;
   }
}

bool core_mmu_translate(struct core_mmu_ctx *m, uint64_t root, uint64_t va,
                        enum vagx_fault_access access, struct core_xlate *x,
                        struct core_fault *f)
{
   uint64_t vpn = va >> VAGX_PAGE_SHIFT;
   struct core_tlb_entry *e = &m->tlb[(vpn ^ (root >> VAGX_PAGE_SHIFT)) % CORE_TLB_ENTRIES];
   if (e->root == root && e->vpn == vpn && root != 0) {
      m->hits++;
      *x = e->x;
      return check_access(x, root, va, access, f);
   }
   m->walks++;
   struct vagx_core *core = m->core;
   if (!core_walk(core->ops.read, core->opaque, root, va, access, x, f))
      return false;
   if (!x->null && core->ops.map)
      x->host = core->ops.map(core->opaque, x->pa, VAGX_PAGE_SIZE, !x->ro);
   e->root = root;
   e->vpn = vpn;
   e->x = *x;
   return check_access(x, root, va, access, f);
}

/* Copies len bytes at va page by page, out of the VM into `out` (a read) or
 * from `in` into it (a write, out NULL): a NULL page reads as zero and drops
 * writes; a page the host cannot map goes through the bus callbacks. */
static inline bool mmu_copy(struct core_mmu_ctx *m, uint64_t root, uint64_t va, uint8_t *out,
                            const uint8_t *in, uint64_t len, struct core_fault *f)
{
   const enum vagx_fault_access acc = out ? VAGX_FAULT_ACCESS_READ : VAGX_FAULT_ACCESS_WRITE;
   while (len) {
      struct core_xlate x;
      if (!core_mmu_translate(m, root, va, acc, &x, f))
         return false;
      uint64_t off = va & PAGE_MASK;
      uint64_t n = VAGX_PAGE_SIZE - off;
      if (n > len)
         n = len;
      int bus_error = 0;
      if (out) {
         if (x.null)
            memset(out, 0, n);
         else if (x.host)
            memcpy(out, x.host + off, n);
         else
            bus_error = m->core->ops.read(m->core->opaque, x.pa + off, out, n);
         out += n;
      } else {
         if (x.null)
            ; /* dropped */
         else if (x.host)
            memcpy(x.host + off, in, n);
         else
            bus_error = m->core->ops.write(m->core->opaque, x.pa + off, in, n);
         in += n;
      }
      if (bus_error)
         return fail(f, root, va, acc, VAGX_FAULT_REASON_BUS_ERROR, VAGX_PT_LEVELS - 1);
      va += n;
      len -= n;
   }
   return true;
}

bool core_mmu_read(struct core_mmu_ctx *m, uint64_t root, uint64_t va, void *buf, uint64_t len,
                   struct core_fault *f)
{
   return mmu_copy(m, root, va, buf, NULL, len, f);
}

bool core_mmu_write(struct core_mmu_ctx *m, uint64_t root, uint64_t va, const void *buf,
                    uint64_t len, struct core_fault *f)
{
   return mmu_copy(m, root, va, NULL, buf, len, f);
}
