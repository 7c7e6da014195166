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
#include "util/list.h"
#include "util/simple_mtx.h"
#include "util/u_atomic.h"
#include "util/vma.h"
#include "vagx_drm.h"

struct vagx_device;
struct hash_table_u64;

enum vagx_bo_flags {
   /* Not VM-private: has its own dma_resv and can be exported with PRIME
    * (KMS framebuffers, dma-bufs).  Costs a resv lock per submit in the
    * kernel, so only window-system buffers get it. */
   VAGX_BO_SHAREABLE = 1 << 0,
   /* Seen by someone else (exported, or imported): submits that use it do
    * implicit sync through its dma-buf (prime_fd). */
   VAGX_BO_SHARED = 1 << 1,
   /* Imported from a GEM handle the caller owns (WINSYS_HANDLE_TYPE_KMS):
    * never GEM_CLOSEd by us. */
   VAGX_BO_BORROWED_HANDLE = 1 << 2,
   /* A sparse resource's VA range (vagx_sparse.c): no memory and no CPU
    * mapping of its own; bo->sparse says which pages have backing.  The
    * handle is that of an empty GEM object that never gets pages: it only
    * gives the BO an identity in batches' BO sets. */
   VAGX_BO_SPARSE = 1 << 3,
};

/* Sparse page size: what ARB_sparse_buffer's SPARSE_BUFFER_PAGE_SIZE and
 * the sparse texture block report, and the unit resource_commit binds.
 * The kernel binds any multiple of drm_vagx_gpu_info::sparse_granularity
 * (4 KiB); 64 KiB is the size GL and Vulkan applications expect (Vulkan's
 * standard sparse block shapes are 64 KiB), a userspace choice
 * (docs/uapi.md, "Sparse binding"). */
#define VAGX_SPARSE_PAGE_SIZE (64 * 1024)

struct vagx_sparse;
struct vagx_sparse_heap;

struct vagx_bo {
   struct vagx_device *dev;
   uint32_t handle;
   uint32_t flags;            /* enum vagx_bo_flags */
   uint64_t size;
   uint64_t va;
   void *map;
   int refcnt;
   int prime_fd;              /* dma-buf of a shared BO, else -1 */
   const char *label;
   /* Screen submission sequence numbers (vagx_fence.c) of the last submit
    * that used the BO and of the last one that wrote it: what a CPU access
    * must wait for.  0: none. */
   uint64_t last_use_seq, last_write_seq;
   /* In the owner's BO cache (vagx_device.bo_cache_put): its size bucket
    * and the cache's least-recently-freed order, and when it was put */
   struct list_head bucket_link, lru_link;
   int64_t cached_ns;
   struct vagx_sparse *sparse; /* VAGX_BO_SPARSE: its pages' backing */
};

struct vagx_backend_ops {
   const char *name;
   /* vm_id: 0 for a shareable BO, else the VM it is private to */
   int (*bo_create)(struct vagx_device *dev, uint64_t size, uint32_t flags, uint32_t vm_id,
                    uint32_t *handle);
   void *(*bo_mmap)(struct vagx_device *dev, uint32_t handle, uint64_t size);
   void (*bo_close)(struct vagx_device *dev, uint32_t handle);
   int (*vm_map)(struct vagx_device *dev, uint32_t handle, uint64_t va, uint64_t size);
   int (*vm_unmap)(struct vagx_device *dev, uint64_t va, uint64_t size);
   /* Submit one render/compute job descriptor on the queue of that type;
    * signals syncobj out (if nonzero): its timeline point out_point, or
    * the binary syncobj with out_point 0.  in_point (nonzero): the job
    * also waits for that point of the timeline out_sync. */
   int (*submit)(struct vagx_device *dev, unsigned queue_type, uint64_t desc_va,
                 const uint32_t *in_syncs, unsigned in_count, uint32_t out_sync,
                 uint64_t out_point, uint64_t in_point);
   /* PRIME: dma-buf fd of a handle / handle (and size) of a dma-buf fd. */
   int (*bo_export)(struct vagx_device *dev, uint32_t handle, int *fd);
   int (*bo_import)(struct vagx_device *dev, int fd, uint32_t *handle);
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
   /* GEM handle -> struct vagx_bo of every shareable or imported BO: the
    * kernel gives one handle per GEM object and file, so importing a buffer
    * we already know (our own export, or a second import) must return the
    * same vagx_bo.  The lock also serialises PRIME import against the final
    * unreference (GEM_CLOSE) of that handle. */
   simple_mtx_t bo_map_lock;
   struct hash_table_u64 *bo_map;
   uint32_t debug;
   /* Called by the last vagx_bo_unreference of a private BO (not shareable,
    * shared or borrowed): true when it took the BO (a BO cache), which then
    * frees it with vagx_bo_free; NULL or false: the BO is freed. */
   bool (*bo_cache_put)(struct vagx_bo *bo);
   /* Asynchronous VM_BIND (vagx_sparse.c).  Once one has been issued,
    * every bind of the device is asynchronous (a synchronous one would
    * fail with -EBUSY while any is pending) and every submit waits for
    * the last one: bind_last holds its fence.  Bind n signals point n of
    * bind_timeline, which tells when a decommitted page may be reused. */
   simple_mtx_t bind_lock;
   bool binds_async;
   uint32_t bind_last, bind_timeline;
   uint64_t bind_seq;
   struct vagx_sparse_heap *sparse_heap;
};

bool vagx_device_open(struct vagx_device *dev, int fd);
void vagx_device_close(struct vagx_device *dev);

struct vagx_bo *vagx_bo_create(struct vagx_device *dev, uint64_t size, const char *label);
struct vagx_bo *vagx_bo_create_flags(struct vagx_device *dev, uint64_t size, uint32_t flags,
                                     const char *label);
/* The record of a new BO of the library's own constructors (create,
 * import, sparse): one reference, no handle, mapping or dma-buf yet. */
struct vagx_bo *vagx_bo_new(struct vagx_device *dev, uint64_t size, uint32_t flags,
                            const char *label);
void vagx_bo_unreference(struct vagx_bo *bo);
/* Frees an unreferenced BO (a BO cache's eviction) */
void vagx_bo_free(struct vagx_bo *bo);
static inline void vagx_bo_reference(struct vagx_bo *bo) { p_atomic_inc(&bo->refcnt); }

/* PRIME.  vagx_bo_export returns a new dma-buf fd (the caller owns it) of a
 * shareable BO and marks it shared; -1 on failure.  vagx_bo_import takes a
 * dma-buf fd (not consumed) and returns a referenced BO mapped at a fresh
 * VA in the device's VM; vagx_bo_import_handle does the same for a GEM
 * handle of this device's file, which stays the caller's. */
int vagx_bo_export(struct vagx_bo *bo);
struct vagx_bo *vagx_bo_import(struct vagx_device *dev, int fd);
struct vagx_bo *vagx_bo_import_handle(struct vagx_device *dev, uint32_t handle);

/* Wait (CPU) for the implicit fences of a shared BO: writers only when
 * write is false, every fence when true.  No-op for unshared BOs. */
void vagx_bo_wait_shared(struct vagx_bo *bo, bool write, int64_t timeout_ns);

/* Submit one job descriptor after the syncobjs waits[] (each must hold a
 * fence) and, when wait_point is nonzero, after point wait_point of the
 * timeline out_sync (a job of another queue that must run first), with
 * implicit sync for the shared BOs among bos[]: their dma-buf
 * fences become in-syncs too, and the job's out fence (out_sync must be
 * nonzero when a shared BO is present) is attached to them as a write
 * fence.  Returns at once: out_sync (its timeline point out_point, or the
 * binary syncobj with out_point 0) signals when the job completes.  With a
 * timeline, out_point must be the syncobj's last point (the attached fence
 * is its current one). */
int vagx_device_submit(struct vagx_device *dev, unsigned queue_type, uint64_t desc_va,
                       uint32_t out_sync, uint64_t out_point, uint64_t wait_point,
                       struct vagx_bo *const *bos, unsigned bo_count, const uint32_t *waits,
                       unsigned wait_count);

/* vagx_sparse.c: sparse BOs.  A sparse BO reserves size (rounded up to
 * VAGX_SPARSE_PAGE_SIZE) bytes of VA with every page a NULL mapping (reads
 * zero, writes dropped).  NULL when the device has no MAP_NULL or no
 * asynchronous bind. */
struct vagx_bo *vagx_bo_create_sparse(struct vagx_device *dev, uint64_t size, const char *label);
/* Commits (binds backing memory of the device's sparse heap) or
 * decommits (NULL-maps) the sparse pages overlapping [offset, offset +
 * size) with one asynchronous VM_BIND after the wait (a syncobj: its
 * timeline point wait_point, or binary with wait_point 0; none with
 * wait_syncobj 0).  Every later submit waits for the bind.  The pages
 * that change remember tag (vagx_sparse_committed_since).  Returns 0,
 * or a negative errno with nothing changed (-ENOMEM: no backing memory) --
 * except that a change of more ranges than one VM_BIND takes
 * (max_bind_ops) is several binds, and those before a failed one stand. */
int vagx_sparse_commit(struct vagx_bo *bo, uint64_t offset, uint64_t size, bool commit,
                       uint32_t wait_syncobj, uint64_t wait_point, uint64_t tag);
/* Whether every page overlapping [offset, offset + size) is committed,
 * by a commit whose tag was at least tag */
bool vagx_sparse_committed_since(struct vagx_bo *bo, uint64_t offset, uint64_t size,
                                 uint64_t tag);
/* CPU copies between data and a sparse BO's committed pages, through
 * their backing's mapping (the caller waits for the GPU first): reads of
 * uncommitted pages give zeros, writes to them are dropped, as the GPU's
 * are. */
void vagx_sparse_read(struct vagx_bo *bo, uint64_t offset, void *data, uint64_t size);
void vagx_sparse_write(struct vagx_bo *bo, uint64_t offset, const void *data, uint64_t size);
/* Whether the sparse page of offset has backing */
bool vagx_sparse_is_committed(struct vagx_bo *bo, uint64_t offset);
/* Issues an asynchronous VM_BIND of ops as described above; *point (if
 * not NULL) receives its bind_timeline point. */
int vagx_device_bind_async(struct vagx_device *dev, const struct drm_vagx_vm_bind_op *ops,
                           unsigned count, uint32_t wait_syncobj, uint64_t wait_point,
                           uint64_t *point);
/* Releases a sparse BO's VA and backing (vagx_bo_free) */
void vagx_sparse_bo_release(struct vagx_bo *bo);
void vagx_sparse_heap_destroy(struct vagx_device *dev);

#endif
