/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <xf86drm.h>
#include "drm-uapi/dma-buf.h"
#include "util/hash_table.h"
#include "util/os_file.h"
#include "util/u_atomic.h"
#include "util/u_math.h"
#include "util/os_time.h"
#include "vagx_device.h"

/* ---- kernel UAPI backend ---------------------------------------------- */

static int
kioctl(struct vagx_device *dev, unsigned long req, void *arg)
{
   int r = drmIoctl(dev->fd, req, arg);
   return r ? -errno : 0;
}

static int
k_bo_create(struct vagx_device *dev, uint64_t size, uint32_t flags, uint32_t vm_id,
            uint32_t *handle)
{
   struct drm_vagx_bo_create a = { .size = size, .flags = flags, .vm_id = vm_id };
   int r = kioctl(dev, DRM_IOCTL_VAGX_BO_CREATE, &a);
   *handle = a.handle;
   return r;
}

static void *
k_bo_mmap(struct vagx_device *dev, uint32_t handle, uint64_t size)
{
   struct drm_vagx_bo_mmap_offset a = { .handle = handle };
   if (kioctl(dev, DRM_IOCTL_VAGX_BO_MMAP_OFFSET, &a))
      return NULL;
   void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd, a.offset);
   return p == MAP_FAILED ? NULL : p;
}

static void
k_bo_close(struct vagx_device *dev, uint32_t handle)
{
   struct drm_gem_close a = { .handle = handle };
   drmIoctl(dev->fd, DRM_IOCTL_GEM_CLOSE, &a);
}

static int
k_bind(struct vagx_device *dev, uint32_t op, uint32_t handle, uint64_t va, uint64_t size)
{
   struct drm_vagx_vm_bind_op o = { .op = op, .handle = handle, .va = va, .range = size };
   struct drm_vagx_vm_bind a = {
      .vm_id = dev->vm_id,
      .ops = DRM_VAGX_OBJ_ARRAY(1, &o),
   };
   return kioctl(dev, DRM_IOCTL_VAGX_VM_BIND, &a);
}

/* Synchronous until the first asynchronous bind (vagx_sparse.c); from
 * then on asynchronous, in order behind the pending ones (the kernel
 * refuses a synchronous bind while any is pending), which every later
 * submit waits for. */
static int
k_bind_ordered(struct vagx_device *dev, uint32_t op, uint32_t handle, uint64_t va, uint64_t size)
{
   int r = -EBUSY;
   if (!p_atomic_read(&dev->binds_async))
      r = k_bind(dev, op, handle, va, size);
   if (r == -EBUSY) {
      struct drm_vagx_vm_bind_op o = { .op = op, .handle = handle, .va = va, .range = size };
      r = vagx_device_bind_async(dev, &o, 1, 0, 0, NULL);
   }
   return r;
}

static int
k_vm_map(struct vagx_device *dev, uint32_t handle, uint64_t va, uint64_t size)
{
   return k_bind_ordered(dev, DRM_VAGX_BIND_OP_MAP, handle, va, size);
}

static int
k_vm_unmap(struct vagx_device *dev, uint64_t va, uint64_t size)
{
   return k_bind_ordered(dev, DRM_VAGX_BIND_OP_UNMAP, 0, va, size);
}

static int
k_submit(struct vagx_device *dev, unsigned type, uint64_t desc_va, const uint32_t *in_syncs,
         unsigned in_count, uint32_t out_sync, uint64_t out_point, uint64_t in_point)
{
   struct drm_vagx_sync stack[10], *s = stack;
   if (in_count + 2 > ARRAY_SIZE(stack)) {
      s = calloc(in_count + 2, sizeof(*s));
      if (!s)
         return -ENOMEM;
   }
   unsigned n = 0;
   for (unsigned i = 0; i < in_count; i++)
      s[n++] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
                                       .handle = in_syncs[i] };
   if (in_point)
      s[n++] = (struct drm_vagx_sync){ .type = DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ,
                                       .handle = out_sync, .timeline_value = in_point };
   if (out_sync)
      s[n++] = (struct drm_vagx_sync){ .type = out_point ? DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ
                                                         : DRM_VAGX_SYNC_TYPE_SYNCOBJ,
                                       .flags = DRM_VAGX_SYNC_SIGNAL, .handle = out_sync,
                                       .timeline_value = out_point };
   struct drm_vagx_cmd cmd = {
      .type = type,
      .desc_va = desc_va,
      .syncs = DRM_VAGX_OBJ_ARRAY(n, s),
   };
   struct drm_vagx_submit a = {
      .queue_id = dev->queue_id[type],
      .cmds = DRM_VAGX_OBJ_ARRAY(1, &cmd),
   };
   int r = kioctl(dev, DRM_IOCTL_VAGX_SUBMIT, &a);
   if (s != stack)
      free(s);
   return r;
}

static int
k_bo_export(struct vagx_device *dev, uint32_t handle, int *fd)
{
   return drmPrimeHandleToFD(dev->fd, handle, DRM_CLOEXEC | DRM_RDWR, fd) ? -errno : 0;
}

static int
k_bo_import(struct vagx_device *dev, int fd, uint32_t *handle)
{
   return drmPrimeFDToHandle(dev->fd, fd, handle) ? -errno : 0;
}

static int
k_syncobj_create(struct vagx_device *dev, uint32_t *handle)
{
   return drmSyncobjCreate(dev->fd, DRM_SYNCOBJ_CREATE_SIGNALED, handle);
}

static void
k_syncobj_destroy(struct vagx_device *dev, uint32_t handle)
{
   drmSyncobjDestroy(dev->fd, handle);
}

static int
k_syncobj_wait(struct vagx_device *dev, uint32_t handle, int64_t abs_timeout_ns)
{
   return drmSyncobjWait(dev->fd, &handle, 1, abs_timeout_ns,
                         DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
}

static int
k_timestamp(struct vagx_device *dev, uint64_t *ts)
{
   struct drm_vagx_timestamp t = { 0 };
   memset(&t, 0, sizeof(t));
   struct drm_vagx_dev_query q = { .type = DRM_VAGX_DEV_QUERY_TIMESTAMP, .size = sizeof(t),
                                   .pointer = (uintptr_t)&t };
   int r = kioctl(dev, DRM_IOCTL_VAGX_DEV_QUERY, &q);
   *ts = t.gpu_timestamp;
   return r;
}

static int
k_queue_state(struct vagx_device *dev, unsigned type, uint32_t *state,
              struct drm_vagx_fault_info *fault)
{
   struct drm_vagx_queue_get_state a = { .queue_id = dev->queue_id[type] };
   int r = kioctl(dev, DRM_IOCTL_VAGX_QUEUE_GET_STATE, &a);
   *state = a.state;
   if (fault)
      *fault = a.fault;
   return r;
}

static const struct vagx_backend_ops vagx_kernel_ops = {
   .name = "kernel",
   .bo_create = k_bo_create,
   .bo_mmap = k_bo_mmap,
   .bo_close = k_bo_close,
   .vm_map = k_vm_map,
   .vm_unmap = k_vm_unmap,
   .submit = k_submit,
   .bo_export = k_bo_export,
   .bo_import = k_bo_import,
   .syncobj_create = k_syncobj_create,
   .syncobj_destroy = k_syncobj_destroy,
   .syncobj_wait = k_syncobj_wait,
   .timestamp = k_timestamp,
   .queue_state = k_queue_state,
};

bool
vagx_device_open(struct vagx_device *dev, int fd)
{
   memset(dev, 0, sizeof(*dev));
   dev->fd = fd;
   dev->ops = &vagx_kernel_ops;

   struct drm_vagx_dev_query q = { .type = DRM_VAGX_DEV_QUERY_GPU_INFO,
                                   .size = sizeof(dev->info),
                                   .pointer = (uintptr_t)&dev->info };
   if (kioctl(dev, DRM_IOCTL_VAGX_DEV_QUERY, &q)) {
      fprintf(stderr, "vagx: DEV_QUERY failed\n");
      return false;
   }
   struct drm_vagx_vm_create vc = { 0 };
   if (kioctl(dev, DRM_IOCTL_VAGX_VM_CREATE, &vc)) {
      fprintf(stderr, "vagx: VM_CREATE failed\n");
      return false;
   }
   dev->vm_id = vc.vm_id;
   for (unsigned t = 0; t < 2; t++) {
      if (!(dev->info.queue_types & (1u << t)))
         continue;
      struct drm_vagx_queue_create qc = { .vm_id = dev->vm_id, .type = t,
                                          .priority = DRM_VAGX_PRIORITY_MEDIUM };
      if (kioctl(dev, DRM_IOCTL_VAGX_QUEUE_CREATE, &qc)) {
         fprintf(stderr, "vagx: QUEUE_CREATE(%u) failed\n", t);
         return false;
      }
      dev->queue_id[t] = qc.queue_id;
   }
   simple_mtx_init(&dev->vma_lock, mtx_plain);
   simple_mtx_init(&dev->bo_map_lock, mtx_plain);
   simple_mtx_init(&dev->bind_lock, mtx_plain);
   dev->bo_map = _mesa_hash_table_u64_create(NULL);
   uint64_t start = MAX2(dev->info.va_start, 1ull << 20);
   util_vma_heap_init(&dev->vma, start, dev->info.va_end - start);
   return true;
}

void
vagx_device_close(struct vagx_device *dev)
{
   vagx_sparse_heap_destroy(dev);
   for (unsigned t = 0; t < 3; t++) {
      if (dev->queue_id[t]) {
         struct drm_vagx_queue_destroy a = { .queue_id = dev->queue_id[t] };
         kioctl(dev, DRM_IOCTL_VAGX_QUEUE_DESTROY, &a);
      }
   }
   if (dev->vm_id) {
      struct drm_vagx_vm_destroy a = { .vm_id = dev->vm_id };
      kioctl(dev, DRM_IOCTL_VAGX_VM_DESTROY, &a);
   }
   util_vma_heap_finish(&dev->vma);
   simple_mtx_destroy(&dev->vma_lock);
   _mesa_hash_table_u64_destroy(dev->bo_map);
   simple_mtx_destroy(&dev->bo_map_lock);
   simple_mtx_destroy(&dev->bind_lock);
}

/* GPU VA ranges are handed out in layout pages, so every BO starts on a
 * 16 KiB boundary whatever its (4 KiB-granular) size. */
#define VAGX_BO_VA_ALIGN 16384

static uint64_t
va_size(uint64_t size)
{
   return align64(size, VAGX_BO_VA_ALIGN);
}

/* Map a BO that has handle and size into the VM and the CPU. */
static bool
bo_map_all(struct vagx_bo *bo)
{
   struct vagx_device *dev = bo->dev;
   simple_mtx_lock(&dev->vma_lock);
   bo->va = util_vma_heap_alloc(&dev->vma, va_size(bo->size), VAGX_BO_VA_ALIGN);
   simple_mtx_unlock(&dev->vma_lock);
   if (!bo->va)
      return false;
   if (dev->ops->vm_map(dev, bo->handle, bo->va, bo->size))
      goto fail_va;
   bo->map = dev->ops->bo_mmap(dev, bo->handle, bo->size);
   if (!bo->map)
      goto fail_unmap;
   return true;
fail_unmap:
   dev->ops->vm_unmap(dev, bo->va, bo->size);
fail_va:
   simple_mtx_lock(&dev->vma_lock);
   util_vma_heap_free(&dev->vma, bo->va, va_size(bo->size));
   simple_mtx_unlock(&dev->vma_lock);
   bo->va = 0;
   return false;
}

void
vagx_bo_free(struct vagx_bo *bo)
{
   struct vagx_device *dev = bo->dev;
   if (bo->sparse) {
      vagx_sparse_bo_release(bo);
      free(bo);
      return;
   }
   if (bo->map)
      munmap(bo->map, bo->size);
   if (bo->va) {
      dev->ops->vm_unmap(dev, bo->va, bo->size);
      simple_mtx_lock(&dev->vma_lock);
      util_vma_heap_free(&dev->vma, bo->va, va_size(bo->size));
      simple_mtx_unlock(&dev->vma_lock);
   }
   if (bo->prime_fd >= 0)
      close(bo->prime_fd);
   if (!(bo->flags & VAGX_BO_BORROWED_HANDLE))
      dev->ops->bo_close(dev, bo->handle);
   free(bo);
}

struct vagx_bo *
vagx_bo_new(struct vagx_device *dev, uint64_t size, uint32_t flags, const char *label)
{
   struct vagx_bo *bo = calloc(1, sizeof(*bo));
   if (!bo)
      return NULL;
   bo->dev = dev;
   bo->size = size;
   bo->refcnt = 1;
   bo->label = label;
   bo->flags = flags;
   bo->prime_fd = -1;
   return bo;
}

struct vagx_bo *
vagx_bo_create_flags(struct vagx_device *dev, uint64_t size, uint32_t flags, const char *label)
{
   size = align64(MAX2(size, 1), VAGX_BO_VA_ALIGN);
   struct vagx_bo *bo = vagx_bo_new(dev, size, flags & VAGX_BO_SHAREABLE, label);
   if (!bo)
      return NULL;
   /* Everything else is private to our VM: it shares the VM's resv, which
    * keeps submits cheap, and cannot leak to other processes. */
   uint32_t vm_id = (flags & VAGX_BO_SHAREABLE) ? 0 : dev->vm_id;
   if (dev->ops->bo_create(dev, size, DRM_VAGX_BO_WB_MMAP, vm_id, &bo->handle)) {
      free(bo);
      return NULL;
   }
   if (!bo_map_all(bo)) {
      dev->ops->bo_close(dev, bo->handle);
      free(bo);
      return NULL;
   }
   if (flags & VAGX_BO_SHAREABLE) {
      simple_mtx_lock(&dev->bo_map_lock);
      _mesa_hash_table_u64_insert(dev->bo_map, bo->handle, bo);
      simple_mtx_unlock(&dev->bo_map_lock);
   }
   return bo;
}

struct vagx_bo *
vagx_bo_create(struct vagx_device *dev, uint64_t size, const char *label)
{
   return vagx_bo_create_flags(dev, size, 0, label);
}

void
vagx_bo_unreference(struct vagx_bo *bo)
{
   if (!bo || p_atomic_dec_return(&bo->refcnt))
      return;
   struct vagx_device *dev = bo->dev;
   if (bo->flags & VAGX_BO_SPARSE) {
      vagx_bo_free(bo);
      return;
   }
   if (!(bo->flags & (VAGX_BO_SHAREABLE | VAGX_BO_SHARED | VAGX_BO_BORROWED_HANDLE))) {
      if (!dev->bo_cache_put || !dev->bo_cache_put(bo))
         vagx_bo_free(bo);
      return;
   }
   simple_mtx_lock(&dev->bo_map_lock);
   /* An import may have found the BO in the table and revived it while we
    * waited for the lock. */
   if (p_atomic_read(&bo->refcnt) == 0) {
      _mesa_hash_table_u64_remove(dev->bo_map, bo->handle);
      vagx_bo_free(bo);
   }
   simple_mtx_unlock(&dev->bo_map_lock);
}

/* ---- PRIME and implicit sync ------------------------------------------- */

int
vagx_bo_export(struct vagx_bo *bo)
{
   struct vagx_device *dev = bo->dev;
   if (!(bo->flags & VAGX_BO_SHAREABLE))
      return -1;
   int fd;
   int r = dev->ops->bo_export(dev, bo->handle, &fd);
   if (r) {
      fprintf(stderr, "vagx: PRIME export of BO %u failed: %s\n", bo->handle, strerror(-r));
      return -1;
   }
   simple_mtx_lock(&dev->bo_map_lock);
   if (bo->prime_fd < 0) {
      /* Keep our own reference to the dma-buf for implicit sync.  Jobs
       * submitted before the export did not attach their fences to it: the
       * Gallium driver waits for the BO's last write before exporting
       * (vagx_resource_get_handle). */
      bo->prime_fd = os_dupfd_cloexec(fd);
      if (bo->prime_fd >= 0)
         p_atomic_set(&bo->flags, bo->flags | VAGX_BO_SHARED);
   }
   simple_mtx_unlock(&dev->bo_map_lock);
   return fd;
}

/* Look up or create the BO of a handle; called with bo_map_lock held.
 * prime_fd: a dma-buf fd of it (consumed), or -1. */
static struct vagx_bo *
import_locked(struct vagx_device *dev, uint32_t handle, int prime_fd, bool borrowed)
{
   struct vagx_bo *bo = _mesa_hash_table_u64_search(dev->bo_map, handle);
   if (bo) {
      /* refcnt 0: its last reference is being dropped by a thread waiting
       * for the lock, which will see the revived count and keep it. */
      if (p_atomic_read(&bo->refcnt) == 0)
         p_atomic_set(&bo->refcnt, 1);
      else
         vagx_bo_reference(bo);
      if (bo->prime_fd < 0 && prime_fd >= 0) {
         bo->prime_fd = prime_fd;
         bo->flags |= VAGX_BO_SHARED;
      } else if (prime_fd >= 0) {
         close(prime_fd);
      }
      return bo;
   }
   off_t size = prime_fd >= 0 ? lseek(prime_fd, 0, SEEK_END) : -1;
   if (size <= 0 || (size & 4095)) {
      fprintf(stderr, "vagx: import of a dma-buf of unusable size %lld\n", (long long)size);
      goto fail;
   }
   bo = vagx_bo_new(dev, size,
                    VAGX_BO_SHAREABLE | VAGX_BO_SHARED | (borrowed ? VAGX_BO_BORROWED_HANDLE : 0),
                    "imported");
   if (!bo)
      goto fail;
   bo->handle = handle;
   bo->prime_fd = prime_fd;
   if (!bo_map_all(bo)) {
      fprintf(stderr, "vagx: imported BO of %lld bytes cannot be mapped (GPU VA or mmap)\n",
              (long long)size);
      bo->prime_fd = -1;
      free(bo);
      goto fail;
   }
   _mesa_hash_table_u64_insert(dev->bo_map, handle, bo);
   return bo;
fail:
   if (prime_fd >= 0)
      close(prime_fd);
   if (!borrowed)
      dev->ops->bo_close(dev, handle);
   return NULL;
}

struct vagx_bo *
vagx_bo_import(struct vagx_device *dev, int fd)
{
   uint32_t handle;
   simple_mtx_lock(&dev->bo_map_lock);
   int r = dev->ops->bo_import(dev, fd, &handle);
   if (r) {
      simple_mtx_unlock(&dev->bo_map_lock);
      fprintf(stderr, "vagx: PRIME import of fd %d failed: %s\n", fd, strerror(-r));
      return NULL;
   }
   /* A known handle (our own export) must not be closed on failure. */
   bool known = _mesa_hash_table_u64_search(dev->bo_map, handle) != NULL;
   struct vagx_bo *bo = import_locked(dev, handle, os_dupfd_cloexec(fd), known);
   simple_mtx_unlock(&dev->bo_map_lock);
   return bo;
}

struct vagx_bo *
vagx_bo_import_handle(struct vagx_device *dev, uint32_t handle)
{
   simple_mtx_lock(&dev->bo_map_lock);
   struct vagx_bo *bo = _mesa_hash_table_u64_search(dev->bo_map, handle);
   int fd = -1;
   /* An unknown handle: its dma-buf gives the size and implicit sync. */
   if (!bo && dev->ops->bo_export(dev, handle, &fd)) {
      simple_mtx_unlock(&dev->bo_map_lock);
      fprintf(stderr, "vagx: GEM handle %u cannot be imported (not exportable)\n", handle);
      return NULL;
   }
   bo = import_locked(dev, handle, fd, true);
   simple_mtx_unlock(&dev->bo_map_lock);
   return bo;
}

void
vagx_bo_wait_shared(struct vagx_bo *bo, bool write, int64_t timeout_ns)
{
   if (bo->prime_fd < 0)
      return;
   /* dma-buf poll: POLLIN is ready once the writers are done, POLLOUT once
    * every fence is. */
   struct pollfd p = { .fd = bo->prime_fd, .events = write ? POLLOUT : POLLIN };
   int ms = timeout_ns < 0 ? -1 : (int)MIN2(timeout_ns / 1000000, INT32_MAX);
   poll(&p, 1, ms);
}

/* A job fault or timeout leaves the queue dead (every later SUBMIT fails
 * with -ECANCELED); the VM stays usable.  The failed job's results are lost
 * (the driver reported that when it saw the queue state), but later frames
 * must still render, so replace the queue, like a context reset would. */
static bool
vagx_device_recreate_queue(struct vagx_device *dev, unsigned type)
{
   uint32_t state = 0;
   if (dev->ops->queue_state(dev, type, &state, NULL) || !state)
      return false;
   struct drm_vagx_queue_destroy d = { .queue_id = dev->queue_id[type] };
   kioctl(dev, DRM_IOCTL_VAGX_QUEUE_DESTROY, &d);
   dev->queue_id[type] = 0;
   struct drm_vagx_queue_create qc = { .vm_id = dev->vm_id, .type = type,
                                       .priority = DRM_VAGX_PRIORITY_MEDIUM };
   if (kioctl(dev, DRM_IOCTL_VAGX_QUEUE_CREATE, &qc)) {
      fprintf(stderr, "vagx: could not replace dead queue (type %u)\n", type);
      return false;
   }
   dev->queue_id[type] = qc.queue_id;
   fprintf(stderr, "vagx: queue (type %u) was dead after a failed job (state 0x%x); replaced\n",
           type, state);
   return true;
}

/* Turn the fences of a shared BO's dma-buf into a syncobj to wait on.
 * Returns 0 if there is nothing to wait for or the fd does not do
 * DMA_BUF_IOCTL_EXPORT_SYNC_FILE (ENOTTY: no dma-buf sync_file support). */
static uint32_t
implicit_in_sync(struct vagx_device *dev, struct vagx_bo *bo)
{
   struct dma_buf_export_sync_file e = { .flags = DMA_BUF_SYNC_RW, .fd = -1 };
   if (drmIoctl(bo->prime_fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &e)) {
      if (errno != ENOTTY)
         fprintf(stderr, "vagx: EXPORT_SYNC_FILE on BO %u: %s\n", bo->handle, strerror(errno));
      return 0;
   }
   uint32_t syncobj = 0;
   if (drmSyncobjCreate(dev->fd, 0, &syncobj) ||
       drmSyncobjImportSyncFile(dev->fd, syncobj, e.fd)) {
      fprintf(stderr, "vagx: sync_file -> syncobj failed: %s\n", strerror(errno));
      if (syncobj)
         drmSyncobjDestroy(dev->fd, syncobj);
      syncobj = 0;
   }
   close(e.fd);
   return syncobj;
}

int
vagx_device_submit(struct vagx_device *dev, unsigned queue_type, uint64_t desc_va,
                   uint32_t out_sync, uint64_t out_point, uint64_t wait_point,
                   struct vagx_bo *const *bos, unsigned bo_count, const uint32_t *waits,
                   unsigned wait_count)
{
   uint32_t stack[8] = { 0 }, *in = stack;
   unsigned in_count = 0, shared = 0;
   for (unsigned i = 0; i < bo_count; i++)
      shared += bos[i]->prime_fd >= 0;
   /* after the binds issued so far (a sparse commit, a BO's mapping) */
   const bool bind_wait = p_atomic_read(&dev->binds_async);
   if (shared + wait_count + bind_wait > ARRAY_SIZE(stack)) {
      in = malloc((shared + wait_count + bind_wait) * sizeof(*in));
      if (!in)
         return -ENOMEM;
   }
   /* Wait for everything on the shared BOs (a writer must also wait for
    * readers; the batch does not tell reads from writes, like asahi). */
   for (unsigned i = 0; i < bo_count && shared; i++) {
      if (bos[i]->prime_fd >= 0) {
         uint32_t s = implicit_in_sync(dev, bos[i]);
         if (s)
            in[in_count++] = s;
      }
   }
   /* the implicit in-syncs are ours to destroy, the caller's waits not */
   const unsigned implicit_count = in_count;
   for (unsigned i = 0; i < wait_count; i++)
      in[in_count++] = waits[i];
   if (bind_wait)
      in[in_count++] = dev->bind_last;
   int r = dev->ops->submit(dev, queue_type, desc_va, in, in_count, out_sync, out_point,
                            wait_point);
   if (r == -ECANCELED && vagx_device_recreate_queue(dev, queue_type))
      r = dev->ops->submit(dev, queue_type, desc_va, in, in_count, out_sync, out_point,
                           wait_point);

   /* Publish the job's fence in the shared BOs' dma_resv as a write, so
    * KMS (prepare_fb), compositors and other devices wait for it. */
   if (!r && shared && out_sync) {
      int sync_fd = -1;
      if (drmSyncobjExportSyncFile(dev->fd, out_sync, &sync_fd) == 0 && sync_fd >= 0) {
         for (unsigned i = 0; i < bo_count; i++) {
            if (bos[i]->prime_fd < 0)
               continue;
            struct dma_buf_import_sync_file imp = { .flags = DMA_BUF_SYNC_WRITE, .fd = sync_fd };
            if (drmIoctl(bos[i]->prime_fd, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &imp) &&
                errno != ENOTTY)
               fprintf(stderr, "vagx: IMPORT_SYNC_FILE on BO %u: %s\n", bos[i]->handle,
                       strerror(errno));
         }
         close(sync_fd);
      }
   }
   for (unsigned i = 0; i < implicit_count; i++)
      drmSyncobjDestroy(dev->fd, in[i]);
   if (in != stack)
      free(in);
   return r;
}
