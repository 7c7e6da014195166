/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <xf86drm.h>
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
k_bo_create(struct vagx_device *dev, uint64_t size, uint32_t flags, uint32_t *handle)
{
   struct drm_vagx_bo_create a = { .size = size, .flags = flags, .vm_id = dev->vm_id };
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

static int
k_vm_map(struct vagx_device *dev, uint32_t handle, uint64_t va, uint64_t size)
{
   return k_bind(dev, DRM_VAGX_BIND_OP_MAP, handle, va, size);
}

static int
k_vm_unmap(struct vagx_device *dev, uint64_t va, uint64_t size)
{
   return k_bind(dev, DRM_VAGX_BIND_OP_UNMAP, 0, va, size);
}

static int
k_submit(struct vagx_device *dev, unsigned type, uint64_t desc_va, uint32_t out_sync)
{
   struct drm_vagx_sync s = { .type = DRM_VAGX_SYNC_TYPE_SYNCOBJ,
                              .flags = DRM_VAGX_SYNC_SIGNAL, .handle = out_sync };
   struct drm_vagx_cmd cmd = {
      .type = type,
      .desc_va = desc_va,
      .syncs = DRM_VAGX_OBJ_ARRAY(out_sync ? 1 : 0, &s),
   };
   struct drm_vagx_submit a = {
      .queue_id = dev->queue_id[type],
      .cmds = DRM_VAGX_OBJ_ARRAY(1, &cmd),
   };
   return kioctl(dev, DRM_IOCTL_VAGX_SUBMIT, &a);
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
   uint64_t start = MAX2(dev->info.va_start, 1ull << 20);
   util_vma_heap_init(&dev->vma, start, dev->info.va_end - start);
   return true;
}

void
vagx_device_close(struct vagx_device *dev)
{
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
}

struct vagx_bo *
vagx_bo_create(struct vagx_device *dev, uint64_t size, const char *label)
{
   size = align64(MAX2(size, 1), 16384);
   struct vagx_bo *bo = calloc(1, sizeof(*bo));
   bo->dev = dev;
   bo->size = size;
   bo->refcnt = 1;
   bo->label = label;
   if (dev->ops->bo_create(dev, size, DRM_VAGX_BO_WB_MMAP, &bo->handle))
      goto fail;
   simple_mtx_lock(&dev->vma_lock);
   bo->va = util_vma_heap_alloc(&dev->vma, size, 16384);
   simple_mtx_unlock(&dev->vma_lock);
   if (!bo->va)
      goto fail_close;
   if (dev->ops->vm_map(dev, bo->handle, bo->va, size))
      goto fail_va;
   bo->map = dev->ops->bo_mmap(dev, bo->handle, size);
   if (!bo->map)
      goto fail_unmap;
   return bo;
fail_unmap:
   dev->ops->vm_unmap(dev, bo->va, size);
fail_va:
   simple_mtx_lock(&dev->vma_lock);
   util_vma_heap_free(&dev->vma, bo->va, size);
   simple_mtx_unlock(&dev->vma_lock);
fail_close:
   dev->ops->bo_close(dev, bo->handle);
fail:
   free(bo);
   return NULL;
}

void
vagx_bo_unreference(struct vagx_bo *bo)
{
   if (!bo || p_atomic_dec_return(&bo->refcnt))
      return;
   struct vagx_device *dev = bo->dev;
   munmap(bo->map, bo->size);
   dev->ops->vm_unmap(dev, bo->va, bo->size);
   simple_mtx_lock(&dev->vma_lock);
   util_vma_heap_free(&dev->vma, bo->va, bo->size);
   simple_mtx_unlock(&dev->vma_lock);
   dev->ops->bo_close(dev, bo->handle);
   free(bo);
}
