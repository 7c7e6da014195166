/* SPDX-License-Identifier: MIT */
/* Copyright (C) 2025 The vagx authors */
#ifndef _VAGX_DRM_H_
#define _VAGX_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: Introduction
 *
 * This header is the contract between vagx.ko and its userspace (the Mesa
 * Gallium driver, the drm-shim, IGT/kselftests). It is version 1.1 of the
 * vagx UAPI (see the version history below). The human-readable guide is
 * docs/uapi.md in the vagx tree.
 *
 * The vagx device is a tile-based GPU with unified memory: it reaches system
 * memory only through its own MMU (4 KiB pages, 48-bit virtual addresses,
 * PTEs that can be valid, read-only or NULL). Userspace owns the GPU virtual
 * address (VA) space of its VMs, binds buffer objects (BOs) into them with
 * %DRM_IOCTL_VAGX_VM_BIND, writes hardware job descriptors into GPU memory
 * and submits their GPU VAs to a queue with %DRM_IOCTL_VAGX_SUBMIT.
 * Synchronisation is explicit only: drm_syncobj (binary and timeline) for
 * everything; there is no BO list and no implicit synchronisation (use the
 * dma-buf %DMA_BUF_IOCTL_EXPORT_SYNC_FILE / %DMA_BUF_IOCTL_IMPORT_SYNC_FILE
 * ioctls for window-system interop).
 *
 * The ioctls are available on the render node and on the primary node.
 * Everything not listed here (GEM close, PRIME export/import, syncobj
 * create/wait/transfer, KMS) is DRM core.
 */

/**
 * DOC: Rules for the data passed to the vagx ioctls
 *
 * - Every structure is 64-bit (8-byte) aligned, and its size is a multiple
 *   of 8 bytes. Every field sits at its natural alignment; where needed an
 *   explicit ``pad`` field is inserted. There is no implicit padding, so the
 *   layout is identical for 32-bit and 64-bit userspace (no compat ioctls).
 * - Every ``pad`` field, every field documented as MBZ (must be zero) and
 *   every undefined flag bit is checked by the kernel: a nonzero value makes
 *   the ioctl fail with -EINVAL.
 * - There are no unions, and no pointers: user pointers are passed as
 *   __u64 (cast through uintptr_t).
 * - Variable-length arrays are passed with &struct drm_vagx_obj_array, which
 *   carries the element stride as known by userspace, so elements can grow:
 *   a stride smaller than the first version of the element is rejected with
 *   -EINVAL; a stride larger than the kernel's element is accepted if the
 *   extra bytes are zero and rejected with -E2BIG otherwise (the semantics
 *   of the kernel's copy_struct_from_user()); elements shorter than the
 *   kernel's are zero-extended. A stride above 4096 bytes is rejected with
 *   -E2BIG (no element will ever be that large).
 * - Queries are sized (&struct drm_vagx_dev_query): a zero pointer makes the
 *   kernel report the size it knows; otherwise the kernel copies at most
 *   the size given by userspace and zero-fills what it does not know.
 * - Fields may be added at the end of a structure, or may replace a ``pad``
 *   field, only if the value zero keeps the previous behaviour. Flags may be
 *   added, never removed or redefined. Enum values and ioctl numbers are
 *   append-only.
 * - Object ids (VM ids, queue ids) are nonzero; zero never names an object.
 * - Each addition bumps the driver's minor version
 *   (&struct drm_version.version_minor, from DRM_IOCTL_VERSION), so
 *   userspace never probes by trial and error. The major version is 1 for
 *   the lifetime of this header.
 * - Every ioctl can be restarted with identical arguments after -EINTR or
 *   -ERESTARTSYS: nothing is visible to userspace or the device before the
 *   point after which the ioctl can no longer fail.
 * - Every ioctl may also fail with -ENODEV once the device has been
 *   unplugged or declared lost after a failed device reset, and with
 *   -EFAULT when a user pointer (including the ioctl argument itself) is
 *   not accessible. These two are not repeated in the per-ioctl lists.
 */

/**
 * DOC: Sparse resources
 *
 * Sparse (partially resident) resources are built from the three VM_BIND
 * operations; the kernel has no separate sparse object:
 *
 * - %DRM_VAGX_BIND_OP_MAP_NULL maps a range with NULL PTEs: GPU reads
 *   return zero, GPU writes are dropped, nothing faults. This is the
 *   non-resident state (Vulkan residencyNonResidentStrict).
 * - %DRM_VAGX_BIND_OP_MAP over (part of) a NULL range makes it resident;
 *   %DRM_VAGX_BIND_OP_MAP_NULL over a BO mapping makes it non-resident
 *   again. Both replace the previous PTEs atomically: a concurrently
 *   running job sees either the old or the new page, never a fault.
 * - %DRM_VAGX_BIND_OP_UNMAP removes the range entirely (accesses fault).
 *
 * Gallium: creating a resource with PIPE_RESOURCE_FLAG_SPARSE reserves VA
 * (aligned to the 64 KiB sparse block) and MAP_NULLs all of it.
 * pipe_context::resource_commit(commit=true) MAPs backing memory (chunks
 * of a userspace backing-BO pool) over the committed blocks;
 * resource_commit(commit=false) MAP_NULLs them and recycles the backing
 * once the bind has completed. Destroying the resource UNMAPs the range.
 * resource_commit returns false when VM_BIND fails (the commitment is then
 * unchanged).
 *
 * Vulkan: vkQueueBindSparse maps each bind batch to one asynchronous
 * VM_BIND (semaphores become &struct drm_vagx_sync waits and signals,
 * timeline points included); a bind with memory becomes MAP, a bind with
 * VK_NULL_HANDLE memory becomes MAP_NULL.
 *
 * Ordering with rendering is expressed with syncobjs, not CPU stalls: the
 * bind waits on the last submit that used the old pages, the next submit
 * waits on the bind.
 */

/**
 * DOC: Errors, resets and faults
 *
 * Errno values follow Documentation/gpu/drm-uapi.rst: -EINVAL for
 * malformed arguments, -ENOENT for every failed object lookup (GEM
 * handles, syncobjs, VM ids, queue ids), -E2BIG for counts above the
 * advertised limits, -ENOMEM for kernel memory, -ENOSPC for device
 * resources, -EACCES and -EPERM for privilege and permission, -EBUSY for
 * objects still in use, -ECANCELED for submissions to dead queues or
 * VMs, -EOPNOTSUPP for features the device lacks, -ENODEV once the device
 * is gone.
 *
 * Errors of GPU work are reported through the fences (dma_fence error,
 * visible as a sync_file status) and through the queue and VM state:
 *
 * - Job timeout: the job is aborted; its fence gets -ETIMEDOUT, the
 *   queue's other unfinished jobs -ECANCELED, and the queue is marked
 *   %DRM_VAGX_QUEUE_STATE_TIMEDOUT. Jobs of other queues, even those
 *   queued behind it on the same hardware ring, are not affected. A job
 *   that completes before the abort reaches the device keeps its result.
 * - MMU fault: the faulting job stops; its fence gets -EFAULT, the queue's
 *   other unfinished jobs -ECANCELED; the queue is marked
 *   %DRM_VAGX_QUEUE_STATE_FAULTED with the fault address and access; the
 *   VM records it as its last fault and stays usable.
 * - Ring reset (the abort did not stop the job): the unfinished jobs of
 *   other queues in that hardware ring get -ECANCELED and those queues are
 *   marked %DRM_VAGX_QUEUE_STATE_INNOCENT.
 * - Device recovery (the device did not complete a TLB invalidation
 *   within 3 s, e.g. a unit that never reached a safepoint): a global
 *   reset; every unfinished job in every hardware ring gets -ECANCELED
 *   and its queue, unless already guilty, is marked
 *   %DRM_VAGX_QUEUE_STATE_INNOCENT. The VM_BIND or framebuffer change
 *   that issued the invalidation still succeeds.
 * - Device unplugged (PCI remove): every ioctl fails with -ENODEV.
 * - Closing the DRM file cancels its unfinished jobs (-ECANCELED, or
 *   -ESRCH for jobs still waiting for their syncs); QUEUE_DESTROY lets
 *   them run.
 * - A queue with a nonzero state and any queue of an unusable VM reject
 *   %DRM_IOCTL_VAGX_SUBMIT with -ECANCELED, forever.
 */

/**
 * DOC: Version history
 *
 * The DRM driver name is "vagx"; its version is reported by
 * DRM_IOCTL_VERSION.
 *
 * - 1.0 - Initial UAPI: DEV_QUERY, BO_CREATE, BO_MMAP_OFFSET, BO_SET_LABEL,
 *   VM_CREATE, VM_DESTROY, VM_BIND (MAP, MAP_NULL, UNMAP; synchronous and
 *   asynchronous), VM_GET_STATE, QUEUE_CREATE, QUEUE_DESTROY,
 *   QUEUE_GET_STATE, SUBMIT.
 * - 1.1 - Copy queues: %DRM_VAGX_QUEUE_TYPE_COPY is in
 *   drm_vagx_gpu_info::queue_types; &struct drm_vagx_cmd grows
 *   drm_vagx_cmd::copy (copy and fill commands, %DRM_VAGX_CMD_FILL).
 *   Userspace built against 1.0 (cmds.stride 32) keeps working unchanged.
 */

/**
 * enum drm_vagx_ioctl_id - ioctl numbers
 *
 * Place new ioctls at the end; never re-order, replace or remove entries.
 * These numbers are not used directly: use the DRM_IOCTL_VAGX_<NAME>
 * request codes defined at the end of this header.
 */
enum drm_vagx_ioctl_id {
	/** @DRM_VAGX_DEV_QUERY: Query device information. */
	DRM_VAGX_DEV_QUERY = 0,

	/** @DRM_VAGX_BO_CREATE: Create a buffer object. */
	DRM_VAGX_BO_CREATE = 1,

	/** @DRM_VAGX_BO_MMAP_OFFSET: Get the fake offset to mmap a BO. */
	DRM_VAGX_BO_MMAP_OFFSET = 2,

	/** @DRM_VAGX_BO_SET_LABEL: Attach a debug label to a BO. */
	DRM_VAGX_BO_SET_LABEL = 3,

	/** @DRM_VAGX_VM_CREATE: Create a GPU virtual address space. */
	DRM_VAGX_VM_CREATE = 4,

	/** @DRM_VAGX_VM_DESTROY: Destroy a GPU virtual address space. */
	DRM_VAGX_VM_DESTROY = 5,

	/** @DRM_VAGX_VM_BIND: Map, NULL-map and unmap ranges of a VM. */
	DRM_VAGX_VM_BIND = 6,

	/** @DRM_VAGX_VM_GET_STATE: Get the state and the last fault of a VM. */
	DRM_VAGX_VM_GET_STATE = 7,

	/** @DRM_VAGX_QUEUE_CREATE: Create a queue. */
	DRM_VAGX_QUEUE_CREATE = 8,

	/** @DRM_VAGX_QUEUE_DESTROY: Destroy a queue. */
	DRM_VAGX_QUEUE_DESTROY = 9,

	/** @DRM_VAGX_QUEUE_GET_STATE: Get the reset/fault state of a queue. */
	DRM_VAGX_QUEUE_GET_STATE = 10,

	/** @DRM_VAGX_SUBMIT: Submit commands to a queue. */
	DRM_VAGX_SUBMIT = 11,
};

/**
 * struct drm_vagx_obj_array - Array of objects whose element size may grow
 *
 * Used for every variable-length array passed to the kernel. Initialise it
 * with DRM_VAGX_OBJ_ARRAY() so that @stride is the element size userspace
 * was compiled with.
 */
struct drm_vagx_obj_array {
	/**
	 * @stride: Size in bytes of one element as known by userspace.
	 *
	 * Must be at least the size of the first version of the element
	 * (-EINVAL otherwise) and at most 4096 (-E2BIG otherwise). Ignored
	 * when @count is zero.
	 */
	__u32 stride;

	/** @count: Number of elements. */
	__u32 count;

	/**
	 * @array: User pointer to the first element, cast to __u64.
	 *
	 * May be zero only when @count is zero.
	 */
	__u64 array;
};

/**
 * DRM_VAGX_OBJ_ARRAY() - Initialise a &struct drm_vagx_obj_array
 * @cnt: Number of elements in the array.
 * @ptr: Pointer to the first element (needs <stdint.h> for uintptr_t).
 *
 * Positional initialiser, so that it also works in C++ before C++20.
 */
#define DRM_VAGX_OBJ_ARRAY(cnt, ptr) \
	{ (__u32)sizeof((ptr)[0]), (__u32)(cnt), (__u64)(uintptr_t)(ptr) }

/**
 * enum drm_vagx_sync_type - Kind of synchronisation object
 */
enum drm_vagx_sync_type {
	/**
	 * @DRM_VAGX_SYNC_TYPE_SYNCOBJ: Binary drm_syncobj.
	 *
	 * drm_vagx_sync::timeline_value must be zero.
	 */
	DRM_VAGX_SYNC_TYPE_SYNCOBJ = 0,

	/**
	 * @DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ: Timeline drm_syncobj.
	 *
	 * drm_vagx_sync::timeline_value is the point to wait for or to
	 * signal and must be nonzero.
	 */
	DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ = 1,
};

/**
 * enum drm_vagx_sync_flags - Flags of &struct drm_vagx_sync
 */
enum drm_vagx_sync_flags {
	/**
	 * @DRM_VAGX_SYNC_SIGNAL: Signal operation.
	 *
	 * When set, the syncobj (or timeline point) receives the fence of the
	 * operation it belongs to. When clear, this is a wait operation: the
	 * operation does not start before the fence currently in the syncobj
	 * (or at the timeline point) has signalled.
	 */
	DRM_VAGX_SYNC_SIGNAL = 1 << 0,
};

/**
 * struct drm_vagx_sync - Wait or signal operation on a drm_syncobj
 *
 * Used by %DRM_IOCTL_VAGX_VM_BIND (asynchronous mode) and by each command
 * of %DRM_IOCTL_VAGX_SUBMIT.
 *
 * Waits are resolved when the ioctl runs, against the signal operations of
 * earlier commands of the same ioctl first, then against the current content
 * of the syncobj. A binary syncobj without a fence, or a timeline point that
 * has no fence yet, is rejected with -EINVAL (there is no wait-for-submit).
 * Signals are installed only once the ioctl can no longer fail.
 */
struct drm_vagx_sync {
	/** @type: One of &enum drm_vagx_sync_type. */
	__u32 type;

	/** @flags: Combination of &enum drm_vagx_sync_flags. */
	__u32 flags;

	/** @handle: drm_syncobj handle. */
	__u32 handle;

	/** @pad: MBZ. */
	__u32 pad;

	/**
	 * @timeline_value: Timeline point.
	 *
	 * MBZ for %DRM_VAGX_SYNC_TYPE_SYNCOBJ, nonzero for
	 * %DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ.
	 */
	__u64 timeline_value;
};

/**
 * enum drm_vagx_dev_query_type - What %DRM_IOCTL_VAGX_DEV_QUERY returns
 *
 * Append-only.
 */
enum drm_vagx_dev_query_type {
	/** @DRM_VAGX_DEV_QUERY_GPU_INFO: &struct drm_vagx_gpu_info. */
	DRM_VAGX_DEV_QUERY_GPU_INFO = 0,

	/**
	 * @DRM_VAGX_DEV_QUERY_TIMESTAMP: &struct drm_vagx_timestamp, a GPU
	 * timestamp correlated with a CPU clock.
	 */
	DRM_VAGX_DEV_QUERY_TIMESTAMP = 1,

	/**
	 * @DRM_VAGX_DEV_QUERY_PRIORITIES: &struct drm_vagx_priorities, the
	 * queue priorities the caller may use.
	 */
	DRM_VAGX_DEV_QUERY_PRIORITIES = 2,
};

/**
 * struct drm_vagx_dev_query - Argument of %DRM_IOCTL_VAGX_DEV_QUERY
 *
 * Errors:
 *
 * - -EINVAL: unknown @type; @pointer nonzero and @size smaller than the
 *   first version of the queried structure; nonzero MBZ input field in
 *   the queried structure (e.g. an unsupported clock id for
 *   %DRM_VAGX_DEV_QUERY_TIMESTAMP).
 * - -E2BIG: @size larger than the kernel's structure and the bytes the
 *   kernel does not know are not zero (input queries only); @pointer
 *   nonzero and @size above 4096 (the kernel would otherwise read and
 *   zero-fill up to 4 GiB of user memory in one call).
 * - -EFAULT: @pointer not accessible for @size bytes.
 */
struct drm_vagx_dev_query {
	/** @type: One of &enum drm_vagx_dev_query_type. */
	__u32 type;

	/**
	 * @size: Size of the structure at @pointer.
	 *
	 * If @pointer is zero, the kernel writes here the size of the
	 * structure it knows for @type, and nothing else happens. Otherwise
	 * the kernel reads (for queries with input fields) and writes at
	 * most @size bytes, zero-fills any bytes beyond its own structure,
	 * and leaves @size unchanged.
	 */
	__u32 size;

	/** @pointer: User pointer to the query structure, or zero. */
	__u64 pointer;
};

/**
 * enum drm_vagx_feature - Bits of drm_vagx_gpu_info::features
 */
enum drm_vagx_feature {
	/**
	 * @DRM_VAGX_FEATURE_MAP_NULL: The MMU has NULL PTEs:
	 * %DRM_VAGX_BIND_OP_MAP_NULL is supported (reads return zero, writes
	 * are dropped).
	 */
	DRM_VAGX_FEATURE_MAP_NULL = 1 << 0,

	/**
	 * @DRM_VAGX_FEATURE_ASYNC_BIND: %DRM_VAGX_VM_BIND_ASYNC is supported.
	 */
	DRM_VAGX_FEATURE_ASYNC_BIND = 1 << 1,

	/**
	 * @DRM_VAGX_FEATURE_COHERENT: Device accesses are coherent with the
	 * CPU caches: write-back CPU mappings (%DRM_VAGX_BO_WB_MMAP) need no
	 * cache maintenance.
	 */
	DRM_VAGX_FEATURE_COHERENT = 1 << 2,

	/**
	 * @DRM_VAGX_FEATURE_STREAM_OUT: The render queue's control streams
	 * take stream output (cmd_stream_out_buffer, cmd_stream_out) and the
	 * PRIMITIVES_GENERATED / PRIMITIVES_EMITTED queries: hardware contract
	 * 1.2 with FEATURES.STREAM_OUT. Since 1.2.
	 */
	DRM_VAGX_FEATURE_STREAM_OUT = 1 << 3,
};

/**
 * enum drm_vagx_queue_type - Kind of queue, and kind of command
 */
enum drm_vagx_queue_type {
	/**
	 * @DRM_VAGX_QUEUE_TYPE_RENDER: Render jobs: vertex processing,
	 * tiling, then per-tile fragment processing.
	 */
	DRM_VAGX_QUEUE_TYPE_RENDER = 0,

	/** @DRM_VAGX_QUEUE_TYPE_COMPUTE: Compute dispatch jobs. */
	DRM_VAGX_QUEUE_TYPE_COMPUTE = 1,

	/**
	 * @DRM_VAGX_QUEUE_TYPE_COPY: Copy and fill jobs (byte copies and
	 * 32-bit pattern fills between GPU VAs of the queue's VM, see
	 * &struct drm_vagx_cmd_copy). Since 1.1.
	 */
	DRM_VAGX_QUEUE_TYPE_COPY = 2,
};

/**
 * struct drm_vagx_gpu_info - Result of %DRM_VAGX_DEV_QUERY_GPU_INFO
 *
 * Static device information and the limits the kernel enforces.
 */
struct drm_vagx_gpu_info {
	/** @gpu_id: Hardware identification (ID register of the device). */
	__u32 gpu_id;

	/**
	 * @gpu_revision: The device's VERSION register: the hardware
	 * contract version it implements, major in bits 31:16, minor in
	 * bits 15:0 (docs/hw/registers.md). Userspace enables what a minor
	 * version added only when the minor is at least that version.
	 */
	__u32 gpu_revision;

	/** @features: Combination of &enum drm_vagx_feature. */
	__u64 features;

	/**
	 * @va_start: Start of the VA window userspace may bind into,
	 * page-aligned. Page 0 is never part of it.
	 */
	__u64 va_start;

	/**
	 * @va_end: End (exclusive) of the VA window userspace may bind into.
	 * VA outside [@va_start, @va_end) belongs to the kernel.
	 */
	__u64 va_end;

	/**
	 * @page_sizes: Bitmask of supported GPU page sizes; bit n means
	 * 2^n bytes. The lowest set bit (4 KiB: bit 12) is the granularity
	 * of every address, size and offset in %DRM_IOCTL_VAGX_VM_BIND.
	 */
	__u64 page_sizes;

	/**
	 * @sparse_granularity: Smallest range, in bytes, that
	 * %DRM_VAGX_BIND_OP_MAP_NULL and a MAP over a NULL range can handle
	 * (4096). The sparse block size exposed to APIs (64 KiB) is a
	 * userspace choice and a multiple of this.
	 */
	__u64 sparse_granularity;

	/**
	 * @timestamp_frequency_hz: Frequency of the GPU timestamp counter
	 * (drm_vagx_timestamp::gpu_timestamp), in Hz.
	 */
	__u64 timestamp_frequency_hz;

	/** @va_bits: Number of GPU virtual address bits (48). */
	__u32 va_bits;

	/**
	 * @queue_types: Bitmask of the queue types userspace may create;
	 * bit n is set if &enum drm_vagx_queue_type value n is supported.
	 */
	__u32 queue_types;

	/** @num_hw_queues: Number of hardware queues (rings) of the device. */
	__u32 num_hw_queues;

	/**
	 * @max_cmds_per_submit: Largest drm_vagx_submit::cmds.count accepted.
	 */
	__u32 max_cmds_per_submit;

	/**
	 * @max_syncs_per_array: Largest count accepted for any array of
	 * &struct drm_vagx_sync.
	 */
	__u32 max_syncs_per_array;

	/**
	 * @max_bind_ops: Largest drm_vagx_vm_bind::ops.count accepted.
	 */
	__u32 max_bind_ops;

	/** @num_cores: Number of shader cores (USC). */
	__u32 num_cores;

	/** @simd_width: Lanes per shader core SIMD group (32). */
	__u32 simd_width;

	/** @tile_width: Width of a render tile in pixels (32). */
	__u32 tile_width;

	/** @tile_height: Height of a render tile in pixels (32). */
	__u32 tile_height;

	/**
	 * @job_desc_alignment: Required alignment, in bytes, of the GPU VA
	 * of a hardware job descriptor (drm_vagx_cmd::desc_va).
	 */
	__u32 job_desc_alignment;

	/**
	 * @max_label_size: Largest BO label accepted by
	 * %DRM_IOCTL_VAGX_BO_SET_LABEL, in bytes, including the NUL.
	 */
	__u32 max_label_size;
};

/**
 * struct drm_vagx_timestamp - Input and result of %DRM_VAGX_DEV_QUERY_TIMESTAMP
 *
 * Reads the GPU timestamp counter and a CPU clock back to back, like xe's
 * engine-cycles query, so userspace can correlate GPU timestamps with CPU
 * time (VK_KHR_calibrated_timestamps, GL_TIMESTAMP).
 */
struct drm_vagx_timestamp {
	/**
	 * @clockid: Input: the CPU clock to sample, one of CLOCK_MONOTONIC,
	 * CLOCK_MONOTONIC_RAW, CLOCK_REALTIME, CLOCK_BOOTTIME, CLOCK_TAI
	 * (-EINVAL for any other value).
	 */
	__s32 clockid;

	/**
	 * @timestamp_bits: Output: number of valid bits of @gpu_timestamp
	 * (the counter wraps at 2^@timestamp_bits).
	 */
	__u32 timestamp_bits;

	/**
	 * @gpu_timestamp: Output: GPU counter, in ticks of
	 * drm_vagx_gpu_info::timestamp_frequency_hz.
	 */
	__u64 gpu_timestamp;

	/**
	 * @cpu_timestamp: Output: @clockid, in ns, sampled immediately before
	 * the GPU counter was read.
	 */
	__u64 cpu_timestamp;

	/**
	 * @cpu_delta: Output: time in ns, measured with @clockid, spent
	 * reading the GPU counter (the uncertainty of the correlation).
	 */
	__u64 cpu_delta;
};

/**
 * enum drm_vagx_priority - Queue priority
 */
enum drm_vagx_priority {
	/** @DRM_VAGX_PRIORITY_LOW: Low priority. */
	DRM_VAGX_PRIORITY_LOW = 0,

	/** @DRM_VAGX_PRIORITY_MEDIUM: Medium priority, the default. */
	DRM_VAGX_PRIORITY_MEDIUM = 1,

	/**
	 * @DRM_VAGX_PRIORITY_HIGH: High priority. Needs CAP_SYS_NICE or
	 * being the DRM master.
	 */
	DRM_VAGX_PRIORITY_HIGH = 2,
};

/**
 * struct drm_vagx_priorities - Result of %DRM_VAGX_DEV_QUERY_PRIORITIES
 */
struct drm_vagx_priorities {
	/**
	 * @allowed_mask: Bitmask of the priorities the calling file may pass
	 * to %DRM_IOCTL_VAGX_QUEUE_CREATE: bit n is set if &enum
	 * drm_vagx_priority value n is allowed.
	 */
	__u32 allowed_mask;

	/** @pad: Zero on output. */
	__u32 pad;
};

/**
 * enum drm_vagx_bo_flags - Flags of &struct drm_vagx_bo_create
 */
enum drm_vagx_bo_flags {
	/**
	 * @DRM_VAGX_BO_NO_MMAP: The BO is never mapped by the CPU:
	 * %DRM_IOCTL_VAGX_BO_MMAP_OFFSET fails with -EPERM.
	 */
	DRM_VAGX_BO_NO_MMAP = 1 << 0,

	/**
	 * @DRM_VAGX_BO_WB_MMAP: CPU mappings are write-back cached instead of
	 * write-combined. Only coherent devices (%DRM_VAGX_FEATURE_COHERENT)
	 * accept it in version 1.0 (-EINVAL otherwise). Incompatible with
	 * %DRM_VAGX_BO_NO_MMAP.
	 */
	DRM_VAGX_BO_WB_MMAP = 1 << 1,
};

/**
 * struct drm_vagx_bo_create - Argument of %DRM_IOCTL_VAGX_BO_CREATE
 *
 * Creates a shmem-backed GEM object. Its pages are zeroed and allocated
 * lazily, all at once, by the first mmap(), VM_BIND MAP, framebuffer
 * (DRM_IOCTL_MODE_ADDFB2) or PRIME export that needs them, and pinned while
 * the BO is mapped in any VM. The handle is released with
 * DRM_IOCTL_GEM_CLOSE, and shared through PRIME
 * (DRM_IOCTL_PRIME_HANDLE_TO_FD / DRM_IOCTL_PRIME_FD_TO_HANDLE).
 *
 * Resident budget: once allocated, a BO's pages stay in memory until it is
 * freed (the guest has no swap to put them in), so the BOs of all files
 * together may hold at most half of the machine's RAM. A BO counts its
 * whole size from its first allocation until it is freed; a use that would
 * allocate beyond the budget fails without allocating: VM_BIND MAP and
 * ADDFB2 with -ENOSPC, mmap() and PRIME users with -ENOMEM.
 *
 * Errors:
 *
 * - -EINVAL: @size zero, or too large to round up; undefined bit or
 *   invalid combination in @flags; @pad nonzero.
 * - -E2BIG: @size (rounded up) larger than the machine can back: its RAM
 *   (a BO's pages are pinned while it is mapped), and never more than
 *   (2^31 / 8) pages (1 TiB - 4 KiB). The same limit applies to dumb
 *   buffers (DRM_IOCTL_MODE_CREATE_DUMB).
 * - -ENOENT: @vm_id nonzero and not a VM of this file.
 * - -ENOMEM: out of kernel memory.
 */
struct drm_vagx_bo_create {
	/**
	 * @size: Input: requested size in bytes. Output: the size actually
	 * allocated, rounded up to a multiple of 4096.
	 */
	__u64 size;

	/** @flags: Combination of &enum drm_vagx_bo_flags. */
	__u32 flags;

	/**
	 * @vm_id: Zero, or the VM this BO is private to.
	 *
	 * A VM-private BO shares the reservation object (dma_resv) of the VM,
	 * so submissions and binds do not have to lock it separately. It can
	 * only be mapped into that VM (VM_BIND returns -EINVAL for any
	 * other) and cannot be exported with PRIME (-EPERM).
	 */
	__u32 vm_id;

	/** @handle: Output: GEM handle of the new BO (nonzero). */
	__u32 handle;

	/** @pad: MBZ. */
	__u32 pad;
};

/**
 * struct drm_vagx_bo_mmap_offset - Argument of %DRM_IOCTL_VAGX_BO_MMAP_OFFSET
 *
 * Returns the fake offset to pass to mmap() on the DRM file to map the BO.
 * Works for imported BOs too (the mapping is forwarded to the exporter).
 *
 * Errors:
 *
 * - -EINVAL: @pad nonzero.
 * - -ENOENT: @handle is not a GEM handle of this file.
 * - -EPERM: the BO was created with %DRM_VAGX_BO_NO_MMAP.
 * - -ENOMEM: out of kernel memory.
 *
 * mmap() itself fails with ENOMEM when the BO has no pages yet and they
 * would exceed the resident budget (&struct drm_vagx_bo_create).
 */
struct drm_vagx_bo_mmap_offset {
	/** @handle: GEM handle. */
	__u32 handle;

	/** @pad: MBZ. */
	__u32 pad;

	/** @offset: Output: offset to pass to mmap(). */
	__u64 offset;
};

/**
 * struct drm_vagx_bo_set_label - Argument of %DRM_IOCTL_VAGX_BO_SET_LABEL
 *
 * Attaches a debug label to a BO, shown in debugfs and in kernel logs.
 *
 * Errors:
 *
 * - -EINVAL: @pad nonzero.
 * - -ENOENT: @handle is not a GEM handle of this file.
 * - -E2BIG: the label, with its NUL, is longer than
 *   drm_vagx_gpu_info::max_label_size (4096).
 * - -ENOMEM: out of kernel memory.
 */
struct drm_vagx_bo_set_label {
	/** @handle: GEM handle. */
	__u32 handle;

	/** @pad: MBZ. */
	__u32 pad;

	/**
	 * @label: User pointer to a NUL-terminated string, or zero to
	 * remove the label.
	 */
	__u64 label;
};

/**
 * struct drm_vagx_vm_create - Argument of %DRM_IOCTL_VAGX_VM_CREATE
 *
 * Creates an empty GPU virtual address space: every address faults until it
 * is bound. Userspace owns [drm_vagx_gpu_info::va_start,
 * drm_vagx_gpu_info::va_end).
 *
 * Errors:
 *
 * - -EINVAL: @flags or @pad nonzero.
 * - -ENOMEM: out of kernel memory.
 * - -ENOSPC: too many VMs (device address spaces exhausted), or the
 *   file's page-table budget (see %DRM_IOCTL_VAGX_VM_BIND) cannot hold
 *   the new VM's root table.
 */
struct drm_vagx_vm_create {
	/** @flags: MBZ. */
	__u32 flags;

	/** @vm_id: Output: id of the new VM (nonzero). */
	__u32 vm_id;
};

/**
 * struct drm_vagx_vm_destroy - Argument of %DRM_IOCTL_VAGX_VM_DESTROY
 *
 * Destroys the VM id. The address space itself lives on while
 * asynchronous binds on it are pending and while VM-private BOs reference
 * it; its mappings are torn down when the last reference goes.
 *
 * Errors:
 *
 * - -EINVAL: @pad nonzero.
 * - -ENOENT: @vm_id is not a VM of this file.
 * - -EBUSY: queues created on this VM still exist (destroy them first).
 */
struct drm_vagx_vm_destroy {
	/** @vm_id: VM to destroy. */
	__u32 vm_id;

	/** @pad: MBZ. */
	__u32 pad;
};

/**
 * enum drm_vagx_bind_op_type - Operation of &struct drm_vagx_vm_bind_op
 */
enum drm_vagx_bind_op_type {
	/**
	 * @DRM_VAGX_BIND_OP_MAP: Map drm_vagx_vm_bind_op::range bytes of the
	 * BO, from drm_vagx_vm_bind_op::bo_offset, at drm_vagx_vm_bind_op::va.
	 * Whatever was mapped in the range before (BO pages or NULL pages) is
	 * replaced atomically: the GPU never sees the range unmapped.
	 */
	DRM_VAGX_BIND_OP_MAP = 0,

	/**
	 * @DRM_VAGX_BIND_OP_MAP_NULL: Map the range with NULL PTEs: GPU reads
	 * return zero and GPU writes are dropped, without faulting. This is
	 * the non-resident state of sparse resources. Replaces previous
	 * mappings atomically. handle and bo_offset MBZ. Needs
	 * %DRM_VAGX_FEATURE_MAP_NULL (-EOPNOTSUPP otherwise).
	 */
	DRM_VAGX_BIND_OP_MAP_NULL = 1,

	/**
	 * @DRM_VAGX_BIND_OP_UNMAP: Remove every mapping (BO or NULL) in the
	 * range; GPU accesses to it fault afterwards. Unmapping addresses
	 * that are not mapped is not an error. Partial unmaps of a mapping
	 * are allowed. handle, bo_offset and flags MBZ.
	 */
	DRM_VAGX_BIND_OP_UNMAP = 2,
};

/**
 * enum drm_vagx_bind_op_flags - Flags of &struct drm_vagx_vm_bind_op
 */
enum drm_vagx_bind_op_flags {
	/**
	 * @DRM_VAGX_BIND_OP_READONLY: GPU writes to the mapping fault. Only
	 * valid with %DRM_VAGX_BIND_OP_MAP.
	 */
	DRM_VAGX_BIND_OP_READONLY = 1 << 0,
};

/**
 * struct drm_vagx_vm_bind_op - One operation of %DRM_IOCTL_VAGX_VM_BIND
 *
 * @va, @range and @bo_offset are multiples of the GPU page size (4096);
 * @range is nonzero; [@va, @va + @range) does not wrap and lies inside
 * [drm_vagx_gpu_info::va_start, drm_vagx_gpu_info::va_end).
 */
struct drm_vagx_vm_bind_op {
	/** @op: One of &enum drm_vagx_bind_op_type. */
	__u32 op;

	/** @flags: Combination of &enum drm_vagx_bind_op_flags. */
	__u32 flags;

	/** @handle: GEM handle of the BO to map (MAP only, else MBZ). */
	__u32 handle;

	/** @pad: MBZ. */
	__u32 pad;

	/**
	 * @bo_offset: Offset in the BO of the first mapped byte (MAP only,
	 * else MBZ). @bo_offset + @range must not exceed the BO size.
	 */
	__u64 bo_offset;

	/** @va: GPU virtual address of the start of the range. */
	__u64 va;

	/** @range: Size of the range in bytes. */
	__u64 range;
};

/**
 * enum drm_vagx_vm_bind_flags - Flags of &struct drm_vagx_vm_bind
 */
enum drm_vagx_vm_bind_flags {
	/**
	 * @DRM_VAGX_VM_BIND_ASYNC: Queue the operations instead of executing
	 * them before returning. They run, in ioctl order, on the VM's bind
	 * queue once every wait in drm_vagx_vm_bind::syncs has signalled;
	 * the signals fire after the last operation's page-table update and
	 * TLB invalidation. Needs %DRM_VAGX_FEATURE_ASYNC_BIND.
	 */
	DRM_VAGX_VM_BIND_ASYNC = 1 << 0,
};

/**
 * define DRM_VAGX_NO_FAILED_INDEX - No single element caused the failure
 *
 * Value of drm_vagx_vm_bind::failed_op and drm_vagx_submit::failed_cmd when
 * the ioctl succeeded or when its failure cannot be attributed to one
 * element of the array.
 */
#define DRM_VAGX_NO_FAILED_INDEX 0xffffffffu

/**
 * struct drm_vagx_vm_bind - Argument of %DRM_IOCTL_VAGX_VM_BIND
 *
 * Applies @ops in array order; a later operation sees the result of the
 * earlier ones. All or nothing: every operation is validated and every
 * resource it needs (page-table pages, VMA objects, BO page pinning) is
 * allocated before any of them is applied, so if the ioctl fails the VM is
 * exactly as before and @failed_op names the offending operation.
 *
 * Synchronous (no %DRM_VAGX_VM_BIND_ASYNC): the operations are applied,
 * and the TLBs invalidated, before the ioctl returns. @syncs.count MBZ.
 * The kernel does not wait for GPU work: unmapping memory a running job
 * uses makes that job fault. Fails with -EBUSY while asynchronous binds on
 * the same VM are still pending.
 *
 * Asynchronous (%DRM_VAGX_VM_BIND_ASYNC): validation and allocation happen
 * in the ioctl; the operations run later and cannot fail for lack of
 * resources. If they fail anyway (a kernel bug or device loss), the VM
 * becomes unusable (%DRM_VAGX_VM_STATE_UNUSABLE). An empty @ops array with
 * syncs is a pure synchronisation point on the VM's bind queue.
 *
 * Unmapped BO pages are unpinned only after their PTEs are gone and the
 * TLBs invalidated.
 *
 * Errors:
 *
 * - -EINVAL: undefined flag or nonzero pad/MBZ field in the ioctl argument
 *   or in an operation; unknown @op; misaligned, zero, wrapping or
 *   out-of-window range; @bo_offset + @range past the end of the BO; a
 *   VM-private BO of another VM; %DRM_VAGX_BIND_OP_READONLY on a non-MAP
 *   operation; @syncs.count nonzero without %DRM_VAGX_VM_BIND_ASYNC;
 *   a stride below the minimum; an invalid &struct drm_vagx_sync (bad
 *   type, flags or timeline value, binary syncobj without fence as wait).
 * - -E2BIG: @ops.count above drm_vagx_gpu_info::max_bind_ops, @syncs.count
 *   above drm_vagx_gpu_info::max_syncs_per_array, a stride above 4096, or
 *   nonzero bytes beyond the kernel's element in a larger stride.
 * - -ENOENT: @vm_id is not a VM of this file; unknown GEM handle; unknown
 *   syncobj handle.
 * - -EOPNOTSUPP: %DRM_VAGX_BIND_OP_MAP_NULL without
 *   %DRM_VAGX_FEATURE_MAP_NULL, or %DRM_VAGX_VM_BIND_ASYNC without
 *   %DRM_VAGX_FEATURE_ASYNC_BIND.
 * - -EBUSY: synchronous bind while asynchronous binds are pending on the VM.
 * - -ECANCELED: a MAP or MAP_NULL on an unusable VM (UNMAP still works).
 * - -ENOSPC: a MAP of a BO that has no pages yet would make the resident
 *   BO memory of all files exceed half of the machine's RAM (see
 *   &struct drm_vagx_bo_create: a BO counts its whole size, once, from the
 *   first time it gets pages until it is freed).
 * - -ENOSPC: the page tables the MAP or MAP_NULL ranges need would exceed
 *   the file's page-table budget. Page tables are kernel memory charged to
 *   the file that created the VM, all its VMs together: 1/64 of the
 *   machine's RAM (at least 4 MiB), which maps 32 GiB of densely bound VA
 *   per GiB of RAM. A MAP costs one 4 KiB table per 2 MiB it touches; a
 *   MAP_NULL only where it covers a 2 MiB block in part. The VM is
 *   unchanged; unmapping frees budget.
 * - -ENOMEM: out of kernel memory (the VM is unchanged; retry may work).
 * - -EINTR, -ERESTARTSYS: interrupted; the VM is unchanged.
 */
struct drm_vagx_vm_bind {
	/** @vm_id: VM to operate on. */
	__u32 vm_id;

	/** @flags: Combination of &enum drm_vagx_vm_bind_flags. */
	__u32 flags;

	/** @ops: Array of &struct drm_vagx_vm_bind_op. */
	struct drm_vagx_obj_array ops;

	/**
	 * @syncs: Array of &struct drm_vagx_sync (asynchronous mode only).
	 * Waits gate the first operation; signals fire after the last.
	 */
	struct drm_vagx_obj_array syncs;

	/**
	 * @failed_op: Output: index in @ops of the operation that made the
	 * ioctl fail, or %DRM_VAGX_NO_FAILED_INDEX. Input value ignored.
	 */
	__u32 failed_op;

	/** @pad: MBZ. */
	__u32 pad;
};

/**
 * enum drm_vagx_vm_state - Value of drm_vagx_vm_get_state::state
 */
enum drm_vagx_vm_state {
	/** @DRM_VAGX_VM_STATE_USABLE: The VM works normally. */
	DRM_VAGX_VM_STATE_USABLE = 0,

	/**
	 * @DRM_VAGX_VM_STATE_UNUSABLE: An asynchronous bind failed after the
	 * ioctl returned, so the VM content is unknown. MAP and MAP_NULL
	 * fail with -ECANCELED, SUBMIT to queues on this VM fails with
	 * -ECANCELED, UNMAP still works. Destroy the VM and its queues and
	 * create new ones.
	 */
	DRM_VAGX_VM_STATE_UNUSABLE = 1,
};

/**
 * enum drm_vagx_fault_access - Access that caused a GPU MMU fault
 */
enum drm_vagx_fault_access {
	/** @DRM_VAGX_FAULT_ACCESS_NONE: No fault recorded. */
	DRM_VAGX_FAULT_ACCESS_NONE = 0,

	/** @DRM_VAGX_FAULT_ACCESS_READ: Data read. */
	DRM_VAGX_FAULT_ACCESS_READ = 1,

	/** @DRM_VAGX_FAULT_ACCESS_WRITE: Data write (or atomic). */
	DRM_VAGX_FAULT_ACCESS_WRITE = 2,

	/**
	 * @DRM_VAGX_FAULT_ACCESS_EXEC: Instruction fetch or job/command
	 * descriptor fetch.
	 */
	DRM_VAGX_FAULT_ACCESS_EXEC = 3,
};

/**
 * enum drm_vagx_fault_reason - Why a GPU MMU access faulted
 */
enum drm_vagx_fault_reason {
	/** @DRM_VAGX_FAULT_REASON_NONE: No fault recorded. */
	DRM_VAGX_FAULT_REASON_NONE = 0,

	/** @DRM_VAGX_FAULT_REASON_UNMAPPED: No valid or NULL PTE. */
	DRM_VAGX_FAULT_REASON_UNMAPPED = 1,

	/** @DRM_VAGX_FAULT_REASON_PERMISSION: Write to a read-only page. */
	DRM_VAGX_FAULT_REASON_PERMISSION = 2,

	/**
	 * @DRM_VAGX_FAULT_REASON_OUT_OF_RANGE: Address beyond the VA bits of
	 * the device.
	 */
	DRM_VAGX_FAULT_REASON_OUT_OF_RANGE = 3,
};

/**
 * struct drm_vagx_fault_info - A GPU MMU fault
 */
struct drm_vagx_fault_info {
	/** @addr: Faulting GPU virtual address (0 if none). */
	__u64 addr;

	/** @access: One of &enum drm_vagx_fault_access. */
	__u32 access;

	/** @reason: One of &enum drm_vagx_fault_reason. */
	__u32 reason;
};

/**
 * struct drm_vagx_vm_get_state - Argument of %DRM_IOCTL_VAGX_VM_GET_STATE
 *
 * An MMU fault stops the faulting job and marks its queue faulted (see
 * %DRM_IOCTL_VAGX_QUEUE_GET_STATE) but leaves the VM usable; the VM
 * records the last fault for VK_EXT_device_fault-style reporting.
 *
 * Errors:
 *
 * - -EINVAL: @pad nonzero.
 * - -ENOENT: @vm_id is not a VM of this file.
 */
struct drm_vagx_vm_get_state {
	/** @vm_id: VM to query. */
	__u32 vm_id;

	/** @state: Output: one of &enum drm_vagx_vm_state. */
	__u32 state;

	/** @last_fault: Output: the most recent MMU fault in this VM. */
	struct drm_vagx_fault_info last_fault;

	/** @fault_count: Output: number of MMU faults in this VM so far. */
	__u32 fault_count;

	/** @pad: MBZ. */
	__u32 pad;
};

/**
 * struct drm_vagx_queue_create - Argument of %DRM_IOCTL_VAGX_QUEUE_CREATE
 *
 * Creates a queue: an ordered stream of commands of one type, running in
 * one VM. Each queue is a drm_sched entity; the kernel multiplexes queues
 * onto the device's hardware rings.
 *
 * Errors:
 *
 * - -EINVAL: @type not in drm_vagx_gpu_info::queue_types; unknown
 *   @priority; @flags or @pad nonzero.
 * - -ENOENT: @vm_id is not a VM of this file.
 * - -EACCES: %DRM_VAGX_PRIORITY_HIGH without CAP_SYS_NICE and without
 *   being the DRM master (see %DRM_VAGX_DEV_QUERY_PRIORITIES).
 * - -ECANCELED: the VM is unusable.
 * - -ENOSPC: too many queues.
 * - -ENOMEM: out of kernel memory.
 */
struct drm_vagx_queue_create {
	/** @vm_id: VM the queue's jobs run in. */
	__u32 vm_id;

	/** @type: One of &enum drm_vagx_queue_type. */
	__u32 type;

	/** @priority: One of &enum drm_vagx_priority. */
	__u32 priority;

	/** @flags: MBZ. */
	__u32 flags;

	/** @queue_id: Output: id of the new queue (nonzero). */
	__u32 queue_id;

	/** @pad: MBZ. */
	__u32 pad;
};

/**
 * struct drm_vagx_queue_destroy - Argument of %DRM_IOCTL_VAGX_QUEUE_DESTROY
 *
 * Destroys the queue id at once. Commands already submitted still run
 * and signal their fences; closing the DRM file cancels pending ones.
 *
 * Errors:
 *
 * - -EINVAL: @pad nonzero.
 * - -ENOENT: @queue_id is not a queue of this file.
 */
struct drm_vagx_queue_destroy {
	/** @queue_id: Queue to destroy. */
	__u32 queue_id;

	/** @pad: MBZ. */
	__u32 pad;
};

/**
 * enum drm_vagx_queue_state_flags - Bits of drm_vagx_queue_get_state::state
 *
 * A queue with any bit set is unusable: SUBMIT fails with -ECANCELED.
 * Destroy it and create a new one (GL robustness: a lost context).
 */
enum drm_vagx_queue_state_flags {
	/**
	 * @DRM_VAGX_QUEUE_STATE_TIMEDOUT: A job of this queue hit the job
	 * timeout: the queue was reset, that job's fence got -ETIMEDOUT and
	 * the queue's other unfinished jobs -ECANCELED (guilty).
	 */
	DRM_VAGX_QUEUE_STATE_TIMEDOUT = 1 << 0,

	/**
	 * @DRM_VAGX_QUEUE_STATE_FAULTED: A job of this queue faulted: MMU
	 * fault (fence error -EFAULT, drm_vagx_queue_get_state::fault
	 * filled) or a job error reported by the device (fence error -EIO).
	 * The queue's other unfinished jobs got -ECANCELED (guilty).
	 */
	DRM_VAGX_QUEUE_STATE_FAULTED = 1 << 1,

	/**
	 * @DRM_VAGX_QUEUE_STATE_INNOCENT: The queue lost unfinished jobs
	 * (fence error -ECANCELED) to a device reset caused by another
	 * queue. Set without the two guilty bits.
	 */
	DRM_VAGX_QUEUE_STATE_INNOCENT = 1 << 2,
};

/**
 * struct drm_vagx_queue_get_state - Argument of %DRM_IOCTL_VAGX_QUEUE_GET_STATE
 *
 * Errors:
 *
 * - -EINVAL: @pad nonzero.
 * - -ENOENT: @queue_id is not a queue of this file.
 */
struct drm_vagx_queue_get_state {
	/** @queue_id: Queue to query. */
	__u32 queue_id;

	/**
	 * @state: Output: combination of &enum drm_vagx_queue_state_flags;
	 * zero while the queue is healthy.
	 */
	__u32 state;

	/**
	 * @fault: Output: the MMU fault that killed the queue, if
	 * %DRM_VAGX_QUEUE_STATE_FAULTED came from an MMU fault.
	 */
	struct drm_vagx_fault_info fault;
};

/**
 * enum drm_vagx_cmd_flags - Flags of &struct drm_vagx_cmd
 */
enum drm_vagx_cmd_flags {
	/**
	 * @DRM_VAGX_CMD_FILL: %DRM_VAGX_QUEUE_TYPE_COPY commands only: store
	 * drm_vagx_cmd_copy::pattern over the destination instead of copying
	 * from drm_vagx_cmd_copy::src_va. Since 1.1.
	 */
	DRM_VAGX_CMD_FILL = 1 << 0,
};

/**
 * struct drm_vagx_cmd_copy - Copy or fill parameters of a COPY command
 *
 * Used by commands of type %DRM_VAGX_QUEUE_TYPE_COPY; MBZ for the other
 * types. Addresses are GPU VAs in the queue's VM. The device copies in
 * address order, page by page, through the VM's page tables: NULL pages
 * read as zero and drop writes; an unmapped page (or a read-only
 * destination page) stops the job with an MMU fault, exactly like a shader
 * access (fence error -EFAULT, queue %DRM_VAGX_QUEUE_STATE_FAULTED,
 * drm_vagx_queue_get_state::fault names the address). The bytes before the
 * faulting page may already have been written.
 *
 * Rules checked by %DRM_IOCTL_VAGX_SUBMIT (-EINVAL otherwise): both ranges
 * [va, va + @size) lie inside [drm_vagx_gpu_info::va_start,
 * drm_vagx_gpu_info::va_end); a copy's source and destination do not
 * overlap; a fill's @dst_va and @size are multiples of 4; @src_va is zero
 * for a fill and @pattern zero for a copy. A @size of zero makes a no-op
 * command (it only waits and signals; the addresses are not checked).
 */
struct drm_vagx_cmd_copy {
	/** @src_va: Copy: first source byte. Fill: MBZ. */
	__u64 src_va;

	/** @dst_va: First destination byte (fill: 4-byte aligned). */
	__u64 dst_va;

	/** @size: Number of bytes (fill: a multiple of 4). */
	__u64 size;

	/**
	 * @pattern: Fill: 32-bit value stored at every 4-byte word, in the
	 * device's (little-endian) byte order. Copy: MBZ.
	 */
	__u32 pattern;

	/** @pad: MBZ. */
	__u32 pad;
};

/**
 * struct drm_vagx_cmd - One command of %DRM_IOCTL_VAGX_SUBMIT
 *
 * Becomes one drm_sched job. It starts after its waits have signalled and
 * after the previous command of the same queue has completed; device caches
 * are invalidated before and flushed after it. Its signals get a fence that
 * signals when the device has finished the job (or with an error, see
 * &enum drm_vagx_queue_state_flags).
 *
 * Render and compute commands name a hardware job descriptor in GPU
 * memory (@desc_va). Copy commands carry their parameters inline
 * (@copy): the kernel writes them into the ring itself.
 */
struct drm_vagx_cmd {
	/**
	 * @type: One of &enum drm_vagx_queue_type; must equal the queue's
	 * type.
	 */
	__u32 type;

	/**
	 * @flags: Combination of &enum drm_vagx_cmd_flags
	 * (%DRM_VAGX_CMD_FILL only with type %DRM_VAGX_QUEUE_TYPE_COPY).
	 */
	__u32 flags;

	/**
	 * @desc_va: Render and compute: GPU VA, in the queue's VM, of the
	 * hardware job descriptor of this command (format:
	 * docs/hw/queues-and-jobs.md). Aligned to
	 * drm_vagx_gpu_info::job_desc_alignment and inside the user VA window.
	 * The kernel does not read the descriptor; an unmapped descriptor
	 * faults the queue. Zero makes a no-op command that only waits and
	 * signals. Copy: MBZ.
	 */
	__u64 desc_va;

	/**
	 * @syncs: Array of &struct drm_vagx_sync: waits before this command,
	 * signals after it. A wait may name a syncobj point signalled by an
	 * earlier command of the same ioctl.
	 */
	struct drm_vagx_obj_array syncs;

	/**
	 * @copy: Copy or fill parameters (type %DRM_VAGX_QUEUE_TYPE_COPY),
	 * else MBZ. Since 1.1: with the 1.0 element size (stride 32) it
	 * reads as zero, i.e. a no-op copy.
	 */
	struct drm_vagx_cmd_copy copy;
};

/**
 * struct drm_vagx_submit - Argument of %DRM_IOCTL_VAGX_SUBMIT
 *
 * Queues @cmds, in array order, on a queue. All or nothing: every command
 * and sync is validated and every job allocated before any of them is
 * queued. No BO list: the kernel keeps the queue's VM (and its BOs) alive
 * until the jobs finish; the jobs' fences are added to the VM's dma_resv
 * with DMA_RESV_USAGE_BOOKKEEP, so they do not implicitly synchronise.
 *
 * Errors:
 *
 * - -EINVAL: @flags or a pad/MBZ field nonzero; a command's @type differs
 *   from the queue's; misaligned or out-of-window desc_va; a copy command
 *   breaking the rules of &struct drm_vagx_cmd_copy (range outside the
 *   user window or wrapping, overlapping copy, misaligned fill, nonzero
 *   desc_va, src_va of a fill or pattern of a copy); %DRM_VAGX_CMD_FILL on
 *   a non-copy command; a stride below the minimum; an invalid &struct drm_vagx_sync (bad type or flags,
 *   timeline value zero for a timeline or nonzero for a binary syncobj,
 *   wait on a binary syncobj without fence or on a timeline point not yet
 *   submitted).
 * - -E2BIG: @cmds.count above drm_vagx_gpu_info::max_cmds_per_submit, a
 *   sync array above drm_vagx_gpu_info::max_syncs_per_array, a stride
 *   above 4096, or nonzero bytes beyond the kernel's element in a larger
 *   stride.
 * - -ENOENT: @queue_id is not a queue of this file; unknown syncobj handle.
 * - -ECANCELED: the queue is unusable (nonzero QUEUE_GET_STATE state) or
 *   its VM is unusable.
 * - -ENOMEM: out of kernel memory.
 * - -EINTR, -ERESTARTSYS: interrupted; nothing was queued.
 */
struct drm_vagx_submit {
	/** @queue_id: Queue to submit to. */
	__u32 queue_id;

	/** @flags: MBZ. */
	__u32 flags;

	/** @cmds: Array of &struct drm_vagx_cmd. */
	struct drm_vagx_obj_array cmds;

	/**
	 * @failed_cmd: Output: index in @cmds of the command that made the
	 * ioctl fail, or %DRM_VAGX_NO_FAILED_INDEX. Input value ignored.
	 */
	__u32 failed_cmd;

	/** @pad: MBZ. */
	__u32 pad;
};

/*
 * DRM_IOCTL_VAGX_<NAME> request codes. All are read-write (DRM_IOWR):
 * DRM core copies the argument back to userspace even when the ioctl
 * fails, which carries failed_op/failed_cmd out.
 */
#define DRM_IOCTL_VAGX(__id, __type) \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VAGX_##__id, struct drm_vagx_##__type)

#define DRM_IOCTL_VAGX_DEV_QUERY	DRM_IOCTL_VAGX(DEV_QUERY, dev_query)
#define DRM_IOCTL_VAGX_BO_CREATE	DRM_IOCTL_VAGX(BO_CREATE, bo_create)
#define DRM_IOCTL_VAGX_BO_MMAP_OFFSET	DRM_IOCTL_VAGX(BO_MMAP_OFFSET, bo_mmap_offset)
#define DRM_IOCTL_VAGX_BO_SET_LABEL	DRM_IOCTL_VAGX(BO_SET_LABEL, bo_set_label)
#define DRM_IOCTL_VAGX_VM_CREATE	DRM_IOCTL_VAGX(VM_CREATE, vm_create)
#define DRM_IOCTL_VAGX_VM_DESTROY	DRM_IOCTL_VAGX(VM_DESTROY, vm_destroy)
#define DRM_IOCTL_VAGX_VM_BIND		DRM_IOCTL_VAGX(VM_BIND, vm_bind)
#define DRM_IOCTL_VAGX_VM_GET_STATE	DRM_IOCTL_VAGX(VM_GET_STATE, vm_get_state)
#define DRM_IOCTL_VAGX_QUEUE_CREATE	DRM_IOCTL_VAGX(QUEUE_CREATE, queue_create)
#define DRM_IOCTL_VAGX_QUEUE_DESTROY	DRM_IOCTL_VAGX(QUEUE_DESTROY, queue_destroy)
#define DRM_IOCTL_VAGX_QUEUE_GET_STATE	DRM_IOCTL_VAGX(QUEUE_GET_STATE, queue_get_state)
#define DRM_IOCTL_VAGX_SUBMIT		DRM_IOCTL_VAGX(SUBMIT, submit)

#if defined(__cplusplus)
}
#endif

#endif /* _VAGX_DRM_H_ */
