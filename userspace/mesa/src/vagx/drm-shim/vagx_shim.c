/* SPDX-License-Identifier: MIT */
/*
 * vagx drm-shim backend: answers the vagx UAPI (uapi/drm/vagx_drm.h) on the
 * host and executes jobs with the renderer core (qemu-device/core) running
 * in-process.  It plays the kernel's role: page tables in "guest-physical"
 * memory (the drm-shim memfd, PA = memfd offset + SHIM_PA_BASE), a ring per
 * queue, doorbells through vagx_core_mmio_write(), synchronous completion.
 * Job failures are reported like the kernel does (queue state FAULTED with
 * the job status), never papered over.
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

bool drm_shim_driver_prefers_first_render_node = true;

#define SHIM_PA_BASE (1ull << 32)
#define SHIM_MEM_BYTES (4ull << 30)
#define RING_LOG2 4

static struct {
   uint8_t *mem;
   struct vagx_core *core;
   mtx_t lock;
   uint64_t ring_pa[2];
   uint32_t tail[2];
   uint64_t seqno;
   uint64_t completion_pa;
   /* one VM and one queue per type is what Mesa uses; keep small tables */
   uint64_t vm_root[16];
   uint32_t queue_vm[16], queue_type[16], queue_state[16];
   struct drm_vagx_fault_info queue_fault[16];
   bool debug;
} S;

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

static void
tlb_invalidate_all(void)
{
   vagx_core_mmio_write(S.core, VAGX_REG_TLB_INV_SIZE_LO, 0, 4);
   vagx_core_mmio_write(S.core, VAGX_REG_TLB_INV_SIZE_HI, 0, 4);
   vagx_core_mmio_write(S.core, VAGX_REG_TLB_INV_CMD, 3, 4);
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
      u.gi.gpu_revision = VAGX_PCI_REVISION;
      /* as vagx.ko derives them from the device's FEATURES register */
      uint32_t hwf = vagx_core_mmio_read(S.core, VAGX_REG_FEATURES, 4);
      u.gi.features = DRM_VAGX_FEATURE_COHERENT;
      if (VAGX_FEATURES_SPARSE_NULL_GET(hwf))
         u.gi.features |= DRM_VAGX_FEATURE_MAP_NULL;
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
      uint32_t lo = vagx_core_mmio_read(S.core, VAGX_REG_TIMESTAMP_LO, 4);
      uint32_t hi = vagx_core_mmio_read(S.core, VAGX_REG_TIMESTAMP_HI, 4);
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
         return S.vm_root[i] ? 0 : -ENOMEM;
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
   S.vm_root[d->vm_id] = 0; /* page-table pages are leaked (shim lifetime) */
   return 0;
}

static int
vagx_ioctl_vm_bind(int fd, unsigned long request, void *arg)
{
   struct shim_fd *shim_fd = drm_shim_fd_lookup(fd);
   struct drm_vagx_vm_bind *b = arg;
   if (b->vm_id >= 16 || !S.vm_root[b->vm_id])
      return -ENOENT;
   if (b->ops.stride < sizeof(struct drm_vagx_vm_bind_op))
      return -EINVAL;
   mtx_lock(&S.lock);
   int ret = 0;
   for (unsigned i = 0; i < b->ops.count && !ret; i++) {
      const struct drm_vagx_vm_bind_op *op =
         (const void *)(uintptr_t)(b->ops.array + (uint64_t)i * b->ops.stride);
      uint64_t base_pa = 0;
      if (op->op == DRM_VAGX_BIND_OP_MAP) {
         struct shim_bo *bo = drm_shim_bo_lookup(shim_fd, op->handle);
         if (!bo) {
            ret = -ENOENT;
            b->failed_op = i;
            break;
         }
         if (op->bo_offset + op->range > bo->size) {
            drm_shim_bo_put(bo);
            ret = -EINVAL;
            b->failed_op = i;
            break;
         }
         base_pa = bo->mem_addr + op->bo_offset + SHIM_PA_BASE;
         drm_shim_bo_put(bo);
      }
      for (uint64_t off = 0; off < op->range && !ret; off += VAGX_PAGE_SIZE)
         ret = set_page(S.vm_root[b->vm_id], op->va + off, base_pa + off,
                        op->op == DRM_VAGX_BIND_OP_MAP ? 0 : op->op == DRM_VAGX_BIND_OP_MAP_NULL ? 1 : 2);
   }
   tlb_invalidate_all();
   mtx_unlock(&S.lock);
   return ret;
}

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
         S.queue_vm[i] = c->vm_id;
         S.queue_type[i] = c->type;
         S.queue_state[i] = 0;
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
   S.queue_vm[d->queue_id] = 0;
   return 0;
}

static int
vagx_ioctl_queue_get_state(int fd, unsigned long request, void *arg)
{
   struct drm_vagx_queue_get_state *g = arg;
   if (g->queue_id >= 16 || !S.queue_vm[g->queue_id])
      return -ENOENT;
   g->state = S.queue_state[g->queue_id];
   g->fault = S.queue_fault[g->queue_id];
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

static int
run_job(unsigned qid, uint64_t desc_va)
{
   unsigned hwq = S.queue_type[qid];
   uint64_t slot = S.ring_pa[hwq] + (uint64_t)(S.tail[hwq] % (1u << RING_LOG2)) * VAGX_RING_ENTRY_SIZE;
   uint32_t dw[VAGX_RING_ENTRY_SIZE / 4];
   memset(dw, 0, sizeof(dw));
   struct vagx_job_header h;
   vagx_job_header_init(&h);
   h.type = hwq == DRM_VAGX_QUEUE_TYPE_RENDER ? VAGX_JOB_TYPE_RENDER : VAGX_JOB_TYPE_COMPUTE;
   h.pt_root = S.vm_root[S.queue_vm[qid]];
   h.desc_va = desc_va;
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
   if (!vagx_job_result_unpack(res, &r, &why) || r.status != VAGX_JOB_STATUS_OK) {
      fprintf(stderr, "vagx-shim: job at 0x%llx failed: status %s unit %u detail 0x%x address 0x%llx\n",
              (unsigned long long)desc_va, vagx_job_status_name(r.status), r.unit, r.detail,
              (unsigned long long)r.address);
      S.queue_state[qid] = 2; /* FAULTED */
      S.queue_fault[qid].addr = r.address;
      /* the device halts the queue on failure: resume so later jobs run */
      vagx_core_mmio_write(S.core, VAGX_REG_Q_RESUME(hwq), 1, 4);
      return -EIO;
   }
   return 0;
}

static int
vagx_ioctl_submit(int fd, unsigned long request, void *arg)
{
   struct drm_vagx_submit *s = arg;
   if (s->queue_id >= 16 || !S.queue_vm[s->queue_id])
      return -ENOENT;
   if (S.queue_state[s->queue_id])
      return -ECANCELED;
   s->failed_cmd = DRM_VAGX_NO_FAILED_INDEX;
   mtx_lock(&S.lock);
   for (unsigned i = 0; i < s->cmds.count; i++) {
      const struct drm_vagx_cmd *c = (const void *)(uintptr_t)(s->cmds.array + (uint64_t)i * s->cmds.stride);
      if (c->type != S.queue_type[s->queue_id]) {
         s->failed_cmd = i;
         mtx_unlock(&S.lock);
         return -EINVAL;
      }
      if (c->desc_va)
         run_job(s->queue_id, c->desc_va); /* failure is reported through queue state */
   }
   mtx_unlock(&S.lock);
   return 0;
}

static ioctl_fn_t driver_ioctls[] = {
   [DRM_VAGX_DEV_QUERY] = vagx_ioctl_dev_query,
   [DRM_VAGX_BO_CREATE] = vagx_ioctl_bo_create,
   [DRM_VAGX_BO_MMAP_OFFSET] = vagx_ioctl_bo_mmap_offset,
   [DRM_VAGX_BO_SET_LABEL] = vagx_ioctl_noop,
   [DRM_VAGX_VM_CREATE] = vagx_ioctl_vm_create,
   [DRM_VAGX_VM_DESTROY] = vagx_ioctl_vm_destroy,
   [DRM_VAGX_VM_BIND] = vagx_ioctl_vm_bind,
   [DRM_VAGX_VM_GET_STATE] = vagx_ioctl_vm_get_state,
   [DRM_VAGX_QUEUE_CREATE] = vagx_ioctl_queue_create,
   [DRM_VAGX_QUEUE_DESTROY] = vagx_ioctl_queue_destroy,
   [DRM_VAGX_QUEUE_GET_STATE] = vagx_ioctl_queue_get_state,
   [DRM_VAGX_SUBMIT] = vagx_ioctl_submit,
};

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
   S.completion_pa = alloc_pages(VAGX_PAGE_SIZE);
   for (unsigned q = 0; q < 2; q++) {
      S.ring_pa[q] = alloc_pages((1u << RING_LOG2) * VAGX_RING_ENTRY_SIZE);
      vagx_core_mmio_write(S.core, VAGX_REG_Q_RING_BASE_LO(q), (uint32_t)S.ring_pa[q], 4);
      vagx_core_mmio_write(S.core, VAGX_REG_Q_RING_BASE_HI(q), (uint32_t)(S.ring_pa[q] >> 32), 4);
      vagx_core_mmio_write(S.core, VAGX_REG_Q_RING_SIZE(q), RING_LOG2, 4);
      vagx_core_mmio_write(S.core, VAGX_REG_Q_CONTROL(q), 1, 4);
   }
}
