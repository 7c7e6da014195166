/* SPDX-License-Identifier: MIT */
/*
 * Fences and syncobjs (binary and timeline) of the vagx drm-shim: what DRM core's
 * drm_syncobj and dma_fence give vagx.ko, kept in the shim's process.
 */
#ifndef VAGX_SHIM_SYNC_H
#define VAGX_SHIM_SYNC_H

#include <stdbool.h>
#include <errno.h>
#include <stdint.h>

/* A job's completion (dma_fence): signalled once, with a status (0 or a
 * negative errno the job ended with).  Reference counted. */
struct shim_fence;

struct shim_fence *shim_fence_create(void);
void shim_fence_ref(struct shim_fence *f);
void shim_fence_unref(struct shim_fence *f);
void shim_fence_signal(struct shim_fence *f, int status);
/* 0 once signalled (*status = its status), -ETIME at abs_timeout_ns
 * (CLOCK_MONOTONIC; INT64_MAX waits forever). */
int shim_fence_wait(struct shim_fence *f, int64_t abs_timeout_ns, int *status);

/* The fence of a syncobj's timeline point, referenced (point 0: the fence
 * it holds now; NULL: none -- created unsignalled or reset, or no such
 * point yet).  -ENOENT for an unknown handle. */
int shim_syncobj_fence(uint32_t handle, uint64_t point, struct shim_fence **f);
/* Point 0: replace the syncobj's fence (NULL resets it); else add timeline
 * point `point` with fence f.  -ENOENT for an unknown handle. */
int shim_syncobj_replace(uint32_t handle, uint64_t point, struct shim_fence *f);

/* Mesa's drm-shim hands an ioctl handler's negative errno back as the
 * ioctl's return value, but libdrm (drmIoctl, drmSyncobjWait, ...) and the
 * driver read failures as -1 with errno, as the kernel returns them: a
 * handler's -ETIME would read as success.  The vagx handlers are wrapped
 * to return like the kernel. */
#define SHIM_IOCTL_ABI(fn)                                              \
   static int fn##_abi(int fd, unsigned long request, void *arg)        \
   {                                                                    \
      int ret = fn(fd, request, arg);                                   \
      if (ret < 0) {                                                    \
         errno = -ret;                                                  \
         return -1;                                                     \
      }                                                                 \
      return ret;                                                       \
   }

/* Installs the syncobj ioctls into Mesa's drm-shim core ioctl table. */
void vagx_shim_sync_init(void);

#endif
