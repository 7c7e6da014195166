/* SPDX-License-Identifier: MIT */
/*
 * vagx device layer: a small backend interface (struct vagx_backend_ops) in
 * front of the kernel.  The only backend in the driver is the kernel UAPI
 * (ioctls on the DRM fd, uapi/drm/vagx_drm.h); the drm-shim library answers
 * the same ioctls on the host by running the renderer core in-process, so
 * the driver cannot tell the two apart.  A direct in-process backend for unit
 * tests can be added behind the same ops.
 */
#ifndef VAGX_DEVICE_H
#define VAGX_DEVICE_H

#include <stdbool.h>
#include <stdint.h>
#include "util/simple_mtx.h"
#include "util/u_atomic.h"
#include "util/vma.h"
#include "vagx_drm.h"

struct vagx_device;

struct vagx_bo {
   struct vagx_device *dev;
   uint32_t handle;
   uint64_t size;
   uint64_t va;
   void *map;
   int refcnt;
   const char *label;
};

struct vagx_backend_ops {
   const char *name;
   int (*bo_create)(struct vagx_device *dev, uint64_t size, uint32_t flags, uint32_t *handle);
   void *(*bo_mmap)(struct vagx_device *dev, uint32_t handle, uint64_t size);
   void (*bo_close)(struct vagx_device *dev, uint32_t handle);
   int (*vm_map)(struct vagx_device *dev, uint32_t handle, uint64_t va, uint64_t size);
   int (*vm_unmap)(struct vagx_device *dev, uint64_t va, uint64_t size);
   /* Submit one render/compute job descriptor on the queue of that type;
    * signals syncobj out (if nonzero). */
   int (*submit)(struct vagx_device *dev, unsigned queue_type, uint64_t desc_va, uint32_t out_sync);
   int (*syncobj_create)(struct vagx_device *dev, uint32_t *handle);
   void (*syncobj_destroy)(struct vagx_device *dev, uint32_t handle);
   int (*syncobj_wait)(struct vagx_device *dev, uint32_t handle, int64_t abs_timeout_ns);
   int (*timestamp)(struct vagx_device *dev, uint64_t *gpu_ts);
   int (*queue_state)(struct vagx_device *dev, unsigned queue_type, uint32_t *state,
                      struct drm_vagx_fault_info *fault);
};

struct vagx_device {
   int fd;
   const struct vagx_backend_ops *ops;
   struct drm_vagx_gpu_info info;
   uint32_t vm_id;
   uint32_t queue_id[3];
   simple_mtx_t vma_lock;
   struct util_vma_heap vma;
   uint32_t debug;
};

bool vagx_device_open(struct vagx_device *dev, int fd);
void vagx_device_close(struct vagx_device *dev);

struct vagx_bo *vagx_bo_create(struct vagx_device *dev, uint64_t size, const char *label);
void vagx_bo_unreference(struct vagx_bo *bo);
static inline void vagx_bo_reference(struct vagx_bo *bo) { p_atomic_inc(&bo->refcnt); }

#endif
