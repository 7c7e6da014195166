/* SPDX-License-Identifier: MIT */
/*
 * The copy/fill engine (jobs COPY and FILL, for the kernel's own use:
 * clears, migrations, page-table independent transfers through a VM).
 * One task per job; a slice moves up to cfg.copy_slice_bytes and then yields
 * so that other queues make progress; abort is checked once per page.
 */
#include "core_priv.h"

/* A payload that does not unpack: INVALID_JOB, pointing at the payload. */
static int payload_invalid(struct core_job *job)
{
   core_job_fail(job, VAGX_JOB_STATUS_INVALID_JOB, VAGX_UNIT_COPY, VAGX_RING_SLOT_PAYLOAD_OFFSET,
                 job->slot_pa + VAGX_RING_SLOT_PAYLOAD_OFFSET);
   return -1;
}

int core_copy_setup(struct core_job *job, const uint32_t *payload)
{
   const char *err = NULL;
   if (!vagx_copy_job_unpack(payload, &job->u.copy, &err))
      return payload_invalid(job);
   job->total = job->u.copy.size;
   return 0;
}

int core_fill_setup(struct core_job *job, const uint32_t *payload)
{
   const char *err = NULL;
   if (!vagx_fill_job_unpack(payload, &job->u.fill, &err))
      return payload_invalid(job);
   job->total = job->u.fill.size;
   return 0;
}

unsigned core_copy_ntasks(struct core_job *job)
{
   return job->total ? 1 : 0;
}

static uint64_t page_left(uint64_t va)
{
   return VAGX_PAGE_SIZE - (va % VAGX_PAGE_SIZE);
}

bool core_copy_task(struct core_worker *w, struct core_task *t)
{
   struct core_job *job = t->job;
   struct vagx_core *core = w->core;
   const bool fill = job->hdr.type == VAGX_JOB_TYPE_FILL;
   const uint64_t root = job->hdr.pt_root;
   uint64_t budget = core->cfg.copy_slice_bytes;
   uint64_t cur = atomic_load(&job->cursor);
   uint32_t bounce[VAGX_PAGE_SIZE / 4];

   if (fill)
      for (unsigned i = 0; i < VAGX_PAGE_SIZE / 4; i++)
         bounce[i] = job->u.fill.pattern; /* little-endian hosts */

   while (cur < job->total && budget) {
      if (atomic_load_explicit(&job->abort, memory_order_relaxed))
         return false;
      uint64_t dst_va = (fill ? job->u.fill.dst_va : job->u.copy.dst_va) + cur;
      uint64_t n = job->total - cur;
      if (n > page_left(dst_va))
         n = page_left(dst_va);
      struct core_fault f;
      struct core_xlate src = {0}, dst;
      uint64_t src_va = 0;
      if (!fill) {
         src_va = job->u.copy.src_va + cur;
         if (n > page_left(src_va))
            n = page_left(src_va);
         if (!core_mmu_translate(&w->mmu, root, src_va, VAGX_FAULT_ACCESS_READ, &src, &f))
            goto fault;
      }
      if (!core_mmu_translate(&w->mmu, root, dst_va, VAGX_FAULT_ACCESS_WRITE, &dst, &f))
         goto fault;

      const uint8_t *from;
      if (fill) {
         /* dst_va and size are multiples of 4: the pattern stays in phase. */
         from = (const uint8_t *)bounce;
      } else if (src.null) {
         from = core_null_page;
      } else if (src.host) {
         from = src.host + src_va % VAGX_PAGE_SIZE;
      } else {
         if (core->ops.read(core->opaque, src.pa + src_va % VAGX_PAGE_SIZE, bounce, n)) {
            f = (struct core_fault){.va = src_va, .root = root, .access = VAGX_FAULT_ACCESS_READ,
                                    .reason = VAGX_FAULT_REASON_BUS_ERROR,
                                    .level = VAGX_PT_LEVELS - 1};
            goto fault;
         }
         from = (const uint8_t *)bounce;
      }
      if (dst.null) {
         /* dropped */
      } else if (dst.host) {
         memmove(dst.host + dst_va % VAGX_PAGE_SIZE, from, n);
      } else if (core->ops.write(core->opaque, dst.pa + dst_va % VAGX_PAGE_SIZE, from, n)) {
         f = (struct core_fault){.va = dst_va, .root = root, .access = VAGX_FAULT_ACCESS_WRITE,
                                 .reason = VAGX_FAULT_REASON_BUS_ERROR,
                                 .level = VAGX_PT_LEVELS - 1};
         goto fault;
      }
      cur += n;
      budget = budget > n ? budget - n : 0;
      continue;
   fault:
      f.unit = VAGX_UNIT_COPY;
      core_job_fault(job, &f);
      return false;
   }
   atomic_store(&job->cursor, cur);
   return cur < job->total && !atomic_load(&job->abort);
}
