/* SPDX-License-Identifier: MIT */
/*
 * vagx drm-shim backend: answers the vagx UAPI (uapi/drm/vagx_drm.h) on the
 * host and executes jobs with the renderer core (qemu-device/core) running
 * in-process.  It plays the kernel's role: page tables in "guest-physical"
 * memory (the drm-shim memfd, PA = memfd offset + SHIM_PA_BASE), a ring per
 * queue, doorbells through vagx_core_mmio_write().  SUBMIT is asynchronous
 * as on vagx.ko: it queues the commands to the queue's worker thread
 * (vagx_shim_queue.c) and installs their fences in the signal syncobjs
 * (vagx_shim_sync.c) before returning.  Job failures are reported like the
 * kernel does (fence error, queue state FAULTED, later jobs of the queue
 * cancelled), never papered over.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "drm-shim/drm_shim.h"
#include "util/os_time.h"
#include "vagx_core.h"
#include "vagx_drm.h"
#include "vagx_hw.h"
#include "vagx_pt.h"
#include "vagx_shim_queue.h"
#include "vagx_shim_sync.h"

bool drm_shim_driver_prefers_first_render_node = true;

#define SHIM_PA_BASE (1ull << 32)
#define SHIM_MEM_BYTES (4ull << 30)
#define RING_LOG2 4

static struct {
   uint8_t *mem;
   struct vagx_core *core;
   /* the core, the rings and the page tables: one job or bind at a time */
   mtx_t lock;
   uint64_t ring_pa[2];
   uint32_t tail[2];
   uint64_t seqno;
   uint64_t completion_pa;
   /* one VM and one queue per type is what Mesa uses; keep small tables */
   uint64_t vm_root[16];
   uint32_t queue_vm[16], queue_type[16], queue_state[16];
   struct drm_vagx_fault_info queue_fault[16];
   struct shim_queue queue[16];
   struct shim_queue bind_queue[16]; /* per VM: asynchronous VM_BINDs */
   unsigned delay_ms;  /* VAGX_SHIM_DELAY_MS: every job waits that long before it runs */
   unsigned bind_delay_ms; /* VAGX_SHIM_BIND_DELAY_MS: the same for asynchronous binds */
   uint32_t hw_version; /* gpu_revision: the VERSION register, or VAGX_SHIM_HW_VERSION */
} S;

static int run_bind(struct shim_job *job);

static int
h_read(void *o, uint64_t pa, void *buf, size_t len)
{
   if (pa < SHIM_PA_BASE || pa - SHIM_PA_BASE + len > SHIM_MEM_BYTES)
      return -1;
   memcpy(buf, S.mem + (pa - SHIM_PA_BASE), len);
   return 0;
}

static int
h_write(void *o, uint64_t pa, const void *buf, size_t len)
{
   if (pa < SHIM_PA_BASE || pa - SHIM_PA_BASE + len > SHIM_MEM_BYTES)
      return -1;
   memcpy(S.mem + (pa - SHIM_PA_BASE), buf, len);
   return 0;
}

static void *
h_map(void *o, uint64_t pa, size_t len, bool write)
{
   if (pa < SHIM_PA_BASE || pa - SHIM_PA_BASE + len > SHIM_MEM_BYTES)
      return NULL;
   return S.mem + (pa - SHIM_PA_BASE);
}

static void h_irq(void *o, unsigned v) {}
static uint64_t h_now(void *o) { return os_time_get_nano(); }

static const struct vagx_core_host_ops host_ops = {
   .read = h_read, .write = h_write, .map = h_map, .raise_irq = h_irq, .now_ns = h_now,
};

static uint64_t
alloc_pages(uint64_t size)
{
   mtx_lock(&shim_device.mem_lock);
   uint64_t off = util_vma_heap_alloc(&shim_device.mem_heap, size, VAGX_PAGE_SIZE);
   mtx_unlock(&shim_device.mem_lock);
   if (!off)
      return 0;
   memset(S.mem + off, 0, size);
   return off + SHIM_PA_BASE;
}

static uint64_t
alloc_table(void *o)
{
   return alloc_pages(VAGX_PAGE_SIZE);
}

/* The page tables live in the shim's "guest-physical" memory, built with
 * the contract's page-table library as vagx.ko builds them. */
static const struct vagx_pt_ops pt_ops = {
   .read = h_read, .write = h_write, .alloc_table = alloc_table,
};

/* Set the leaf PTE for va (op: 0 map pa, 1 null, 2 unmap). */
static int
set_page(uint64_t root, uint64_t va, uint64_t pa, int op)
{
   enum vagx_pt_status st;
   if (op == 2)
      st = vagx_pt_unmap(&pt_ops, NULL, root, va);
   else
      st = vagx_pt_set(&pt_ops, NULL, root, va, VAGX_PT_LEVELS - 1,
                       op == 1 ? vagx_pte_null() : vagx_pte_page(pa, false, false));
   return st == VAGX_PT_OK ? 0 : st == VAGX_PT_NO_MEMORY ? -ENOMEM : -EFAULT;
}

/* Until no invalidation is in progress: one completes when every worker
 * thread that began its slice before it has ended that slice, which the
 * workers do on their own threads (a job's helper tasks can outlive the
 * job's completion) */
static void
tlb_wait_idle(void)
{
   while (VAGX_TLB_INV_STATUS_BUSY_GET(vagx_core_mmio_read(S.core, VAGX_REG_TLB_INV_STATUS, 4)))
      thrd_yield();
}

/* As vagx.ko does it: wait for the previous invalidation (a START while one
 * is busy is refused with BAD_ACCESS, and the translations the new page
 * tables replace would stay cached), start, and wait until no thread can
 * use a translation from before the change. */
static void
tlb_invalidate_all(void)
{
   tlb_wait_idle();
   vagx_core_mmio_write(S.core, VAGX_REG_TLB_INV_SIZE_LO, 0, 4);
   vagx_core_mmio_write(S.core, VAGX_REG_TLB_INV_SIZE_HI, 0, 4);
   vagx_core_mmio_write(S.core, VAGX_REG_TLB_INV_CMD, 3, 4);
   tlb_wait_idle();
}

/* ---- ioctls ---- */

static int
vagx_ioctl_dev_query(int fd, unsigned long request, void *arg)
{
   struct drm_vagx_dev_query *q = arg;
   union {
      struct drm_vagx_gpu_info gi;
      struct drm_vagx_timestamp ts;
      struct drm_vagx_priorities pr;
   } u;
   size_t size;
   memset(&u, 0, sizeof(u));
   switch (q->type) {
   case DRM_VAGX_DEV_QUERY_GPU_INFO:
      size = sizeof(u.gi);
      u.gi.gpu_id = VAGX_PCI_DEVICE_ID;
      /* as vagx.ko: the device's VERSION register (the contract version) */
      u.gi.gpu_revision = S.hw_version;
      /* as vagx.ko derives them from the device's FEATURES register */
      mtx_lock(&S.lock); /* the queue threads drive the core */
      uint32_t hwf = vagx_core_mmio_read(S.core, VAGX_REG_FEATURES, 4);
      mtx_unlock(&S.lock);
      u.gi.features = DRM_VAGX_FEATURE_COHERENT;
      if (VAGX_FEATURES_SPARSE_NULL_GET(hwf))
         u.gi.features |= DRM_VAGX_FEATURE_MAP_NULL;
      u.gi.features |= DRM_VAGX_FEATURE_ASYNC_BIND;
      if (VAGX_FEATURES_STREAM_OUT_GET(hwf))
         u.gi.features |= DRM_VAGX_FEATURE_STREAM_OUT;
      u.gi.va_start = 1ull << 20;
      u.gi.va_end = 1ull << 40;
      u.gi.page_sizes = VAGX_PAGE_SIZE;
      u.gi.sparse_granularity = VAGX_PAGE_SIZE;
      u.gi.timestamp_frequency_hz = 1000000000ull;
      u.gi.va_bits = 48;
      u.gi.queue_types = (1u << DRM_VAGX_QUEUE_TYPE_RENDER) | (1u << DRM_VAGX_QUEUE_TYPE_COMPUTE);
      u.gi.num_hw_queues = 2;
      u.gi.max_cmds_per_submit = 64;
      u.gi.max_syncs_per_array = 64;
      u.gi.max_bind_ops = 1024;
      u.gi.num_cores = 2;
      u.gi.simd_width = 32;
      u.gi.tile_width = u.gi.tile_height = VAGX_TILE_SIZE;
      u.gi.job_desc_alignment = VAGX_JOB_DESC_ALIGN;
      u.gi.max_label_size = 4096;
      break;
   case DRM_VAGX_DEV_QUERY_TIMESTAMP: {
      size = sizeof(u.ts);
      mtx_lock(&S.lock);
      uint32_t lo = vagx_core_mmio_read(S.core, VAGX_REG_TIMESTAMP_LO, 4);
      uint32_t hi = vagx_core_mmio_read(S.core, VAGX_REG_TIMESTAMP_HI, 4);
      mtx_unlock(&S.lock);
      u.ts.timestamp_bits = 64;
      u.ts.gpu_timestamp = lo | ((uint64_t)hi << 32);
      u.ts.cpu_timestamp = os_time_get_nano();
      break;
   }
   case DRM_VAGX_DEV_QUERY_PRIORITIES:
      size = sizeof(u.pr);
      u.pr.allowed_mask = 3;
      break;
   default:
      return -EINVAL;
   }
   if (!q->pointer) {
      q->size = size;
      return 0;
   }
   memcpy((void *)(uintptr_t)q->pointer, &u, MIN2(q->size, size));
   return 0;
}

static int
vagx_ioctl_bo_create(int fd, unsigned long request, void *arg)
{
   struct shim_fd *shim_fd = drm_shim_fd_lookup(fd);
   struct drm_vagx_bo_create *c = arg;
   if (!c->size || c->size > (1ull << 31))
      return -EINVAL;
   struct shim_bo *bo = calloc(1, sizeof(*bo));
   c->size = (c->size + 4095) & ~4095ull;
   if (drm_shim_bo_init(bo, c->size)) {
      free(bo);
      return -ENOMEM;
   }
   memset(S.mem + bo->mem_addr, 0, c->size);
   c->handle = drm_shim_bo_get_handle(shim_fd, bo);
   drm_shim_bo_put(bo);
   return 0;
}

static int
vagx_ioctl_bo_mmap_offset(int fd, unsigned long request, void *arg)
{
   struct shim_fd *shim_fd = drm_shim_fd_lookup(fd);
   struct drm_vagx_bo_mmap_offset *m = arg;
   struct shim_bo *bo = drm_shim_bo_lookup(shim_fd, m->handle);
   if (!bo)
      return -ENOENT;
   m->offset = drm_shim_bo_get_mmap_offset(shim_fd, bo);
   drm_shim_bo_put(bo);
   return 0;
}

static int vagx_ioctl_noop(int fd, unsigned long request, void *arg) { return 0; }

static int
vagx_ioctl_vm_create(int fd, unsigned long request, void *arg)
{
   struct drm_vagx_vm_create *c = arg;
   mtx_lock(&S.lock);
   for (unsigned i = 1; i < 16; i++) {
      if (!S.vm_root[i]) {
         S.vm_root[i] = alloc_pages(VAGX_PAGE_SIZE);
         c->vm_id = i;
         mtx_unlock(&S.lock);
         if (!S.vm_root[i])
            return -ENOMEM;
         int r = shim_queue_start(&S.bind_queue[i], run_bind, S.bind_delay_ms);
         if (r)
            S.vm_root[i] = 0;
         return r;
      }
   }
   mtx_unlock(&S.lock);
   return -ENOSPC;
}

static int
vagx_ioctl_vm_destroy(int fd, unsigned long request, void *arg)
{
   struct drm_vagx_vm_destroy *d = arg;
   if (d->vm_id >= 16 || !S.vm_root[d->vm_id])
      return -ENOENT;
   /* pending binds run first (they may signal syncobjs others wait on) */
   shim_queue_stop(&S.bind_queue[d->vm_id]);
   S.vm_root[d->vm_id] = 0; /* page-table pages are leaked (shim lifetime) */
   return 0;
}

/* One validated operation of a VM_BIND: what applying it needs once the
 * BO lookup is done (a MAP's physical base), so an asynchronous bind does
 * not depend on the handle staying open. */
struct shim_bind_op {
   int op;        /* set_page's: 0 map, 1 null, 2 unmap */
   uint64_t va, range, pa;
};

/* Applies ops to a VM's page tables between jobs (S.lock held), then
 * invalidates the TLBs: a job sees the old or the new pages. */
static int
apply_binds(unsigned vm_id, const struct shim_bind_op *ops, unsigned count)
{
   int ret = 0;
   for (unsigned i = 0; i < count && !ret; i++) {
      for (uint64_t off = 0; off < ops[i].range && !ret; off += VAGX_PAGE_SIZE)
         ret = set_page(S.vm_root[vm_id], ops[i].va + off, ops[i].pa + off, ops[i].op);
   }
   tlb_invalidate_all();
   return ret;
}

/* An asynchronous bind on the VM's bind queue (the kernel's drm_sched
 * bind entity); the job's bind_ops is a struct shim_bind_op array. */
static int
run_bind(struct shim_job *job)
{
   mtx_lock(&S.lock);
   int ret = S.vm_root[job->vm_id] ? apply_binds(job->vm_id, job->bind_ops, job->bind_count)
                                   : -ECANCELED;
   mtx_unlock(&S.lock);
   return ret;
}

/* A job for a command or bind with the syncs array `syncs` (its fence
 * created, room for its waits) */
static int
job_alloc(const struct drm_vagx_obj_array *syncs, struct shim_job **out)
{
   if (syncs->count && syncs->stride < sizeof(struct drm_vagx_sync))
      return -EINVAL;
   if (syncs->count > 64)
      return -E2BIG;
   struct shim_job *job = calloc(1, sizeof(*job));
   if (!job || !(job->done = shim_fence_create()) ||
       !(job->waits = calloc(MAX2(syncs->count, 1), sizeof(*job->waits)))) {
      if (job)
         shim_job_free(job);
      return -ENOMEM;
   }
   *out = job;
   return 0;
}

/* -EINVAL for a malformed sync: nonzero pad, unknown flag, a binary
 * syncobj with a point or a timeline one without */
static int
sync_check(const struct drm_vagx_sync *y)
{
   if (y->pad || (y->flags & ~DRM_VAGX_SYNC_SIGNAL))
      return -EINVAL;
   if (y->type == DRM_VAGX_SYNC_TYPE_SYNCOBJ ? y->timeline_value != 0
       : y->type != DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ || !y->timeline_value)
      return -EINVAL;
   return 0;
}

/* Builds an asynchronous bind's job: waits resolved now (as SUBMIT does),
 * signals installed by the caller once nothing can fail. */
static int
build_bind_job(const struct drm_vagx_vm_bind *b, struct shim_bind_op *ops, struct shim_job **out)
{
   struct shim_job *job;
   int r = job_alloc(&b->syncs, &job);
   if (r)
      return r;
   job->vm_id = b->vm_id;
   for (unsigned k = 0; k < b->syncs.count; k++) {
      const struct drm_vagx_sync *y =
         (const void *)(uintptr_t)(b->syncs.array + (uint64_t)k * b->syncs.stride);
      struct shim_fence *f = NULL;
      /* a wait's fence (none: no wait-for-submit), or a signal's syncobj
       * must exist */
      r = sync_check(y);
      if (!r)
         r = shim_syncobj_fence(y->handle, (y->flags & DRM_VAGX_SYNC_SIGNAL) ? 0 : y->timeline_value,
                                &f);
      if (!r && !(y->flags & DRM_VAGX_SYNC_SIGNAL)) {
         if (f)
            job->waits[job->wait_count++] = f;
         else
            r = -EINVAL;
      } else if (f) {
         shim_fence_unref(f);
      }
      if (r) {
         shim_job_free(job);
         return r;
      }
   }
   job->bind_ops = ops;
   job->bind_count = b->ops.count;
   *out = job;
   return 0;
}

static int
vagx_ioctl_vm_bind(int fd, unsigned long request, void *arg)
{
   struct shim_fd *shim_fd = drm_shim_fd_lookup(fd);
   struct drm_vagx_vm_bind *b = arg;
   b->failed_op = DRM_VAGX_NO_FAILED_INDEX;
   if (b->vm_id >= 16 || !S.vm_root[b->vm_id])
      return -ENOENT;
   if ((b->flags & ~DRM_VAGX_VM_BIND_ASYNC) || b->pad ||
       (b->ops.count && b->ops.stride < sizeof(struct drm_vagx_vm_bind_op)) ||
       (!(b->flags & DRM_VAGX_VM_BIND_ASYNC) && b->syncs.count))
      return -EINVAL;
   if (b->ops.count > 1024)
      return -E2BIG;
   struct shim_bind_op *ops = calloc(MAX2(b->ops.count, 1), sizeof(*ops));
   if (!ops)
      return -ENOMEM;
   for (unsigned i = 0; i < b->ops.count; i++) {
      const struct drm_vagx_vm_bind_op *op =
         (const void *)(uintptr_t)(b->ops.array + (uint64_t)i * b->ops.stride);
      int ret = 0;
      if (op->op > DRM_VAGX_BIND_OP_UNMAP || !op->range ||
          ((op->va | op->range | op->bo_offset) & (VAGX_PAGE_SIZE - 1)) ||
          (op->op != DRM_VAGX_BIND_OP_MAP && (op->handle || op->bo_offset)))
         ret = -EINVAL;
      ops[i] = (struct shim_bind_op){
         .op = op->op == DRM_VAGX_BIND_OP_MAP ? 0 : op->op == DRM_VAGX_BIND_OP_MAP_NULL ? 1 : 2,
         .va = op->va, .range = op->range,
      };
      if (!ret && op->op == DRM_VAGX_BIND_OP_MAP) {
         struct shim_bo *bo = drm_shim_bo_lookup(shim_fd, op->handle);
         if (!bo)
            ret = -ENOENT;
         else if (op->bo_offset + op->range > bo->size)
            ret = -EINVAL;
         else
            ops[i].pa = bo->mem_addr + op->bo_offset + SHIM_PA_BASE;
         if (bo)
            drm_shim_bo_put(bo);
      }
      if (ret) {
         b->failed_op = i;
         free(ops);
         return ret;
      }
   }
   struct shim_queue *bq = &S.bind_queue[b->vm_id];
   if (b->flags & DRM_VAGX_VM_BIND_ASYNC) {
      struct shim_job *job;
      int ret = build_bind_job(b, ops, &job);
      if (ret) {
         free(ops);
         return ret;
      }
      for (unsigned k = 0; k < b->syncs.count; k++) {
         const struct drm_vagx_sync *y =
            (const void *)(uintptr_t)(b->syncs.array + (uint64_t)k * b->syncs.stride);
         if (y->flags & DRM_VAGX_SYNC_SIGNAL)
            shim_syncobj_replace(y->handle, y->timeline_value, job->done);
      }
      shim_queue_push(bq, job);
      return 0;
   }
   /* as vagx.ko: no synchronous bind overtakes queued asynchronous ones */
   mtx_lock(&bq->lock);
   const bool busy = bq->busy != 0;
   mtx_unlock(&bq->lock);
   int ret = -EBUSY;
   if (!busy) {
      mtx_lock(&S.lock);
      ret = apply_binds(b->vm_id, ops, b->ops.count);
      mtx_unlock(&S.lock);
   }
   free(ops);
   return ret;
}

static int run_job(struct shim_job *job);

static int
vagx_ioctl_queue_create(int fd, unsigned long request, void *arg)
{
   struct drm_vagx_queue_create *c = arg;
   if (c->type > DRM_VAGX_QUEUE_TYPE_COMPUTE)
      return -EINVAL;
   if (c->vm_id >= 16 || !S.vm_root[c->vm_id])
      return -ENOENT;
   for (unsigned i = 1; i < 16; i++) {
      if (!S.queue_vm[i]) {
         int r = shim_queue_start(&S.queue[i], run_job, S.delay_ms);
         if (r)
            return r;
         S.queue_vm[i] = c->vm_id;
         S.queue_type[i] = c->type;
         S.queue_state[i] = 0;
         memset(&S.queue_fault[i], 0, sizeof(S.queue_fault[i]));
         c->queue_id = i;
         return 0;
      }
   }
   return -ENOSPC;
}

static int
vagx_ioctl_queue_destroy(int fd, unsigned long request, void *arg)
{
   struct drm_vagx_queue_destroy *d = arg;
   if (d->queue_id >= 16 || !S.queue_vm[d->queue_id])
      return -ENOENT;
   /* the kernel returns once every job has been handed to the ring, and
    * the jobs still run: here they run before the thread ends */
   shim_queue_stop(&S.queue[d->queue_id]);
   S.queue_vm[d->queue_id] = 0;
   return 0;
}

static int
vagx_ioctl_queue_get_state(int fd, unsigned long request, void *arg)
{
   struct drm_vagx_queue_get_state *g = arg;
   if (g->queue_id >= 16 || !S.queue_vm[g->queue_id])
      return -ENOENT;
   mtx_lock(&S.lock); /* written by the queue's thread */
   g->state = S.queue_state[g->queue_id];
   g->fault = S.queue_fault[g->queue_id];
   mtx_unlock(&S.lock);
   return 0;
}

static int
vagx_ioctl_vm_get_state(int fd, unsigned long request, void *arg)
{
   struct drm_vagx_vm_get_state *g = arg;
   if (g->vm_id >= 16 || !S.vm_root[g->vm_id])
      return -ENOENT;
   g->state = DRM_VAGX_VM_STATE_USABLE;
   return 0;
}

/* Runs one job on the device and returns its fence status.  Called on the
 * queue's worker thread. */
static int
run_job(struct shim_job *job)
{
   const unsigned qid = job->qid;
   mtx_lock(&S.lock);
   if (S.queue_state[qid]) {
      /* after a fault the kernel cancels the queue's later jobs */
      mtx_unlock(&S.lock);
      return -ECANCELED;
   }
   unsigned hwq = S.queue_type[qid];
   uint64_t slot = S.ring_pa[hwq] + (uint64_t)(S.tail[hwq] % (1u << RING_LOG2)) * VAGX_RING_ENTRY_SIZE;
   uint32_t dw[VAGX_RING_ENTRY_SIZE / 4];
   memset(dw, 0, sizeof(dw));
   struct vagx_job_header h;
   vagx_job_header_init(&h);
   h.type = hwq == DRM_VAGX_QUEUE_TYPE_RENDER ? VAGX_JOB_TYPE_RENDER : VAGX_JOB_TYPE_COMPUTE;
   h.pt_root = S.vm_root[S.queue_vm[qid]];
   h.desc_va = job->desc_va;
   h.desc_size = hwq == DRM_VAGX_QUEUE_TYPE_RENDER ? VAGX_RENDER_JOB_LENGTH : VAGX_COMPUTE_JOB_LENGTH;
   h.completion_pa = S.completion_pa;
   h.seqno = ++S.seqno;
   h.irq_vector = hwq;
   vagx_job_header_pack(dw, &h);
   h_write(NULL, slot, dw, sizeof(dw));
   S.tail[hwq]++;
   vagx_core_mmio_write(S.core, VAGX_REG_Q_TAIL(hwq), S.tail[hwq], 4);
   vagx_core_mmio_write(S.core, VAGX_REG_Q_DOORBELL(hwq), 1, 4);
   while (vagx_core_has_work(S.core))
      vagx_core_process(S.core);

   uint32_t res[VAGX_JOB_RESULT_LENGTH / 4];
   h_read(NULL, slot + VAGX_RING_SLOT_RESULT_OFFSET, res, sizeof(res));
   struct vagx_job_result r;
   const char *why = NULL;
   int ret = 0;
   if (!vagx_job_result_unpack(res, &r, &why) || r.status != VAGX_JOB_STATUS_OK) {
      fprintf(stderr, "vagx-shim: job at 0x%llx failed: status %s unit %u detail 0x%x address 0x%llx\n",
              (unsigned long long)job->desc_va, vagx_job_status_name(r.status), r.unit, r.detail,
              (unsigned long long)r.address);
      S.queue_state[qid] = DRM_VAGX_QUEUE_STATE_FAULTED;
      S.queue_fault[qid].addr = r.address;
      /* the device halts the queue on failure: resume so later jobs run */
      vagx_core_mmio_write(S.core, VAGX_REG_Q_RESUME(hwq), 1, 4);
      ret = -EFAULT;
   }
   mtx_unlock(&S.lock);
   return ret;
}

static void
free_jobs(struct shim_job **jobs, unsigned count)
{
   for (unsigned i = 0; i < count; i++)
      if (jobs[i])
         shim_job_free(jobs[i]);
   free(jobs);
}

/* The fence a wait of command i resolves to (referenced): the signal of an
 * earlier command of this ioctl on the same syncobj (point), else the
 * syncobj's current fence (of the timeline point; point 0: binary).  A
 * syncobj or point without a fence is -EINVAL (no wait-for-submit in
 * SUBMIT, docs/uapi.md). */
static int
resolve_wait(const struct drm_vagx_submit *s, struct shim_job **jobs, unsigned i,
             uint32_t handle, uint64_t point, struct shim_fence **out)
{
   for (unsigned j = i; j-- > 0;) {
      const struct drm_vagx_cmd *c = (const void *)(uintptr_t)(s->cmds.array + (uint64_t)j * s->cmds.stride);
      const struct drm_vagx_sync *sy = (const void *)(uintptr_t)c->syncs.array;
      for (unsigned k = 0; k < c->syncs.count; k++) {
         const struct drm_vagx_sync *y = (const void *)((const uint8_t *)sy + (uint64_t)k * c->syncs.stride);
         /* the kernel's rule (vagx_submit.c): the same syncobj, as binary
          * or as a timeline point at or after the one waited for */
         if ((y->flags & DRM_VAGX_SYNC_SIGNAL) && y->handle == handle &&
             (y->type == DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ) == (point != 0) &&
             y->timeline_value >= point) {
            shim_fence_ref(jobs[j]->done);
            *out = jobs[j]->done;
            return 0;
         }
      }
   }
   int r = shim_syncobj_fence(handle, point, out);
   if (!r && !*out)
      r = -EINVAL;
   return r;
}

/* Validates command i, builds its job (waits resolved, fence created). */
static int
build_job(const struct drm_vagx_submit *s, struct shim_job **jobs, unsigned i)
{
   const struct drm_vagx_cmd *c = (const void *)(uintptr_t)(s->cmds.array + (uint64_t)i * s->cmds.stride);
   if (c->type != S.queue_type[s->queue_id] || c->flags ||
       (c->desc_va & (VAGX_JOB_DESC_ALIGN - 1)))
      return -EINVAL;
   struct shim_job *job;
   int err = job_alloc(&c->syncs, &job);
   if (err)
      return err;
   jobs[i] = job;
   job->qid = s->queue_id;
   job->desc_va = c->desc_va;
   for (unsigned k = 0; k < c->syncs.count; k++) {
      const struct drm_vagx_sync *y =
         (const void *)(uintptr_t)(c->syncs.array + (uint64_t)k * c->syncs.stride);
      if (sync_check(y))
         return -EINVAL;
      if (y->flags & DRM_VAGX_SYNC_SIGNAL) {
         struct shim_fence *f;
         int r = shim_syncobj_fence(y->handle, 0, &f);
         if (r)
            return r;
         if (f)
            shim_fence_unref(f);
      } else {
         int r = resolve_wait(s, jobs, i, y->handle, y->timeline_value,
                              &job->waits[job->wait_count]);
         if (r)
            return r;
         job->wait_count++;
      }
   }
   return 0;
}

static int
vagx_ioctl_submit(int fd, unsigned long request, void *arg)
{
   struct drm_vagx_submit *s = arg;
   if (s->flags || s->pad)
      return -EINVAL;
   if (s->queue_id >= 16 || !S.queue_vm[s->queue_id])
      return -ENOENT;
   s->failed_cmd = DRM_VAGX_NO_FAILED_INDEX;
   if (S.queue_state[s->queue_id])
      return -ECANCELED;
   if (!s->cmds.count)
      return 0;
   if (s->cmds.count > 64)
      return -E2BIG;
   if (s->cmds.stride < sizeof(struct drm_vagx_cmd))
      return -EINVAL;
   /* all or nothing: every command validated and its job built first */
   struct shim_job **jobs = calloc(s->cmds.count, sizeof(*jobs));
   if (!jobs)
      return -ENOMEM;
   for (unsigned i = 0; i < s->cmds.count; i++) {
      int r = build_job(s, jobs, i);
      if (r) {
         s->failed_cmd = i;
         free_jobs(jobs, s->cmds.count);
         return r;
      }
   }
   for (unsigned i = 0; i < s->cmds.count; i++) {
      const struct drm_vagx_cmd *c = (const void *)(uintptr_t)(s->cmds.array + (uint64_t)i * s->cmds.stride);
      for (unsigned k = 0; k < c->syncs.count; k++) {
         const struct drm_vagx_sync *y =
            (const void *)(uintptr_t)(c->syncs.array + (uint64_t)k * c->syncs.stride);
         if (y->flags & DRM_VAGX_SYNC_SIGNAL)
            shim_syncobj_replace(y->handle, y->timeline_value, jobs[i]->done);
      }
      shim_queue_push(&S.queue[s->queue_id], jobs[i]);
      jobs[i] = NULL;
   }
   free(jobs);
   return 0;
}

SHIM_IOCTL_ABI(vagx_ioctl_dev_query)
SHIM_IOCTL_ABI(vagx_ioctl_bo_create)
SHIM_IOCTL_ABI(vagx_ioctl_bo_mmap_offset)
SHIM_IOCTL_ABI(vagx_ioctl_noop)
SHIM_IOCTL_ABI(vagx_ioctl_vm_create)
SHIM_IOCTL_ABI(vagx_ioctl_vm_destroy)
SHIM_IOCTL_ABI(vagx_ioctl_vm_bind)
SHIM_IOCTL_ABI(vagx_ioctl_vm_get_state)
SHIM_IOCTL_ABI(vagx_ioctl_queue_create)
SHIM_IOCTL_ABI(vagx_ioctl_queue_destroy)
SHIM_IOCTL_ABI(vagx_ioctl_queue_get_state)
SHIM_IOCTL_ABI(vagx_ioctl_submit)

static ioctl_fn_t driver_ioctls[] = {
   [DRM_VAGX_DEV_QUERY] = vagx_ioctl_dev_query_abi,
   [DRM_VAGX_BO_CREATE] = vagx_ioctl_bo_create_abi,
   [DRM_VAGX_BO_MMAP_OFFSET] = vagx_ioctl_bo_mmap_offset_abi,
   [DRM_VAGX_BO_SET_LABEL] = vagx_ioctl_noop_abi,
   [DRM_VAGX_VM_CREATE] = vagx_ioctl_vm_create_abi,
   [DRM_VAGX_VM_DESTROY] = vagx_ioctl_vm_destroy_abi,
   [DRM_VAGX_VM_BIND] = vagx_ioctl_vm_bind_abi,
   [DRM_VAGX_VM_GET_STATE] = vagx_ioctl_vm_get_state_abi,
   [DRM_VAGX_QUEUE_CREATE] = vagx_ioctl_queue_create_abi,
   [DRM_VAGX_QUEUE_DESTROY] = vagx_ioctl_queue_destroy_abi,
   [DRM_VAGX_QUEUE_GET_STATE] = vagx_ioctl_queue_get_state_abi,
   [DRM_VAGX_SUBMIT] = vagx_ioctl_submit_abi,
};

/* The contract version GPU_INFO reports: the core's VERSION register, or
 * with VAGX_SHIM_HW_VERSION=MAJOR.MINOR an older one of the same major, so
 * tests can check what the driver leaves out on an older device (the core
 * itself still implements its own version).  Anything else is refused. */
static uint32_t
shim_hw_version(uint32_t core)
{
   const char *v = getenv("VAGX_SHIM_HW_VERSION");
   if (!v)
      return core;
   unsigned major, minor;
   char end;
   if (sscanf(v, "%u.%u%c", &major, &minor, &end) != 2 ||
       major != VAGX_VERSION_MAJOR_GET(core) || minor > VAGX_VERSION_MINOR_GET(core)) {
      fprintf(stderr, "vagx-shim: VAGX_SHIM_HW_VERSION=%s: not MAJOR.MINOR of the core's "
              "major %u and at most its minor %u\n", v, VAGX_VERSION_MAJOR_GET(core),
              VAGX_VERSION_MINOR_GET(core));
      abort();
   }
   return VAGX_VERSION_MAJOR(major) | VAGX_VERSION_MINOR(minor);
}

void
drm_shim_driver_init(void)
{
   shim_device.bus_type = DRM_BUS_PCI;
   shim_device.driver_name = "vagx";
   shim_device.driver_ioctls = driver_ioctls;
   shim_device.driver_ioctl_count = ARRAY_SIZE(driver_ioctls);
   shim_device.version_major = 1; /* the UAPI version vagx.ko reports */
   shim_device.version_minor = 2;

   /* libdrm's drmGetDevices2() (used by the EGL surfaceless/device
    * platforms) parses a PCI device from uevent (PCI_SLOT_NAME) and from the
    * separate sysfs files vendor, device, subsystem_vendor, subsystem_device, revision; a device whose
    * PCI info cannot be read is silently dropped from the list. */
   static char uevent[256];
   snprintf(uevent, sizeof(uevent),
            "DRIVER=vagx\nPCI_CLASS=38000\nPCI_ID=%04X:%04X\n"
            "PCI_SUBSYS_ID=%04X:%04X\nPCI_SLOT_NAME=0000:00:05.0\n",
            VAGX_PCI_VENDOR_ID, VAGX_PCI_DEVICE_ID, VAGX_PCI_SUBSYSTEM_VENDOR_ID,
            VAGX_PCI_SUBSYSTEM_ID);
   drm_shim_override_file(uevent, "/sys/dev/char/%d:%d/device/uevent", DRM_MAJOR,
                          render_node_minor);
   static char ids[5][16];
   static const char *const names[5] = { "vendor", "device", "subsystem_vendor",
                                         "subsystem_device", "revision" };
   const unsigned vals[5] = { VAGX_PCI_VENDOR_ID, VAGX_PCI_DEVICE_ID,
                              VAGX_PCI_SUBSYSTEM_VENDOR_ID, VAGX_PCI_SUBSYSTEM_ID,
                              VAGX_PCI_REVISION };
   for (unsigned i = 0; i < 5; i++) {
      char path[64];
      snprintf(ids[i], sizeof(ids[i]), "0x%04x\n", vals[i]);
      snprintf(path, sizeof(path), "/sys/dev/char/%%d:%%d/device/%s", names[i]);
      drm_shim_override_file(ids[i], path, DRM_MAJOR, render_node_minor);
   }

   mtx_init(&S.lock, mtx_plain);
   vagx_shim_sync_init();
   /* Debug knob: hold every job this many ms before it runs, so a driver
    * that reads results without waiting for the job's fence reads stale
    * memory reliably (tests/gl/run uses it). */
   const char *delay = getenv("VAGX_SHIM_DELAY_MS");
   S.delay_ms = delay ? strtoul(delay, NULL, 10) : 0;
   /* and every asynchronous bind (after its waits): a job that does not
    * wait for a bind before it then runs on the old mapping */
   const char *bind_delay = getenv("VAGX_SHIM_BIND_DELAY_MS");
   S.bind_delay_ms = bind_delay ? strtoul(bind_delay, NULL, 10) : 0;
   S.mem = mmap(NULL, SHIM_MEM_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, shim_device.mem_fd, 0);
   if (S.mem == MAP_FAILED) {
      fprintf(stderr, "vagx-shim: cannot map shim memory\n");
      abort();
   }
   struct vagx_core_config cfg = { .num_queues = 2, .num_workers = 0 };
   S.core = vagx_core_create(&host_ops, NULL, &cfg);
   if (!S.core) {
      fprintf(stderr, "vagx-shim: vagx_core_create failed\n");
      abort();
   }
   S.hw_version = shim_hw_version(vagx_core_mmio_read(S.core, VAGX_REG_VERSION, 4));
   S.completion_pa = alloc_pages(VAGX_PAGE_SIZE);
   for (unsigned q = 0; q < 2; q++) {
      S.ring_pa[q] = alloc_pages((1u << RING_LOG2) * VAGX_RING_ENTRY_SIZE);
      vagx_core_mmio_write(S.core, VAGX_REG_Q_RING_BASE_LO(q), (uint32_t)S.ring_pa[q], 4);
      vagx_core_mmio_write(S.core, VAGX_REG_Q_RING_BASE_HI(q), (uint32_t)(S.ring_pa[q] >> 32), 4);
      vagx_core_mmio_write(S.core, VAGX_REG_Q_RING_SIZE(q), RING_LOG2, 4);
      vagx_core_mmio_write(S.core, VAGX_REG_Q_CONTROL(q), 1, 4);
   }
}
