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

void core_span_init(struct core_span *s, core_read_fn rd, void *opaque, uint64_t root, uint64_t va,
                    uint64_t len, enum vagx_fault_access access)
{
   memset(s, 0, sizeof(*s));
   s->rd = rd;
   s->opaque = opaque;
   s->root = root;
   s->access = access;
   s->next_va = va;
   s->left = len;
}

int core_span_next(struct core_span *s, struct core_fault *f)
{
   if (!s->left)
      return 0;
   s->done += s->n;
   s->va = s->next_va;
   s->off = s->va & PAGE_MASK;
   s->n = VAGX_PAGE_SIZE - s->off;
   if (s->n > s->left)
      s->n = s->left;
   const bool ok = s->mmu ? core_mmu_translate(s->mmu, s->root, s->va, s->access, &s->x, f)
                          : core_walk(s->rd, s->opaque, s->root, s->va, s->access, &s->x, f) &&
                               check_access(&s->x, s->root, s->va, s->access, f);
   if (!ok)
      return -1;
   s->next_va += s->n;
   s->left -= s->n;
   return 1;
}

/* Copies a span out of the VM into `out` (a read) or from `in` into it (a
 * write, out NULL): a NULL page reads as zero and drops writes; a page the
 * host did not map goes through the bus callbacks. */
static bool span_copy(struct core_span *s, const struct vagx_core_host_ops *ops, void *opaque,
                      uint8_t *out, const uint8_t *in, struct core_fault *f)
{
   int r;
   while ((r = core_span_next(s, f)) > 0) {
      int bus_error = 0;
      if (out) {
         if (s->x.null)
            memset(out + s->done, 0, s->n);
         else if (s->x.host)
            memcpy(out + s->done, s->x.host + s->off, s->n);
         else
            bus_error = ops->read(opaque, s->x.pa + s->off, out + s->done, s->n);
      } else {
         if (s->x.null)
            ; /* dropped */
         else if (s->x.host)
            memcpy(s->x.host + s->off, in + s->done, s->n);
         else
            bus_error = ops->write(opaque, s->x.pa + s->off, in + s->done, s->n);
      }
      if (bus_error)
         return fail(f, s->root, s->va, s->access, VAGX_FAULT_REASON_BUS_ERROR,
                     VAGX_PT_LEVELS - 1);
   }
   return r == 0;
}

bool core_span_copy(const struct vagx_core_host_ops *ops, void *opaque, uint64_t root, uint64_t va,
                    void *out, const void *in, uint64_t len, struct core_fault *f)
{
   struct core_span s;
   core_span_init(&s, ops->read, opaque, root, va, len,
                  out ? VAGX_FAULT_ACCESS_READ : VAGX_FAULT_ACCESS_WRITE);
   return span_copy(&s, ops, opaque, out, in, f);
}

/* The same copy through the thread's TLB and the host's map. */
static bool mmu_copy(struct core_mmu_ctx *m, uint64_t root, uint64_t va, uint8_t *out,
                     const uint8_t *in, uint64_t len, struct core_fault *f)
{
   struct vagx_core *core = m->core;
   struct core_span s;
   core_span_init(&s, core->ops.read, core->opaque, root, va, len,
                  out ? VAGX_FAULT_ACCESS_READ : VAGX_FAULT_ACCESS_WRITE);
   s.mmu = m;
   return span_copy(&s, &core->ops, core->opaque, out, in, f);
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
