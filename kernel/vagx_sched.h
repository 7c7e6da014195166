/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (C) 2025 The vagx authors */
#ifndef __VAGX_SCHED_H__
#define __VAGX_SCHED_H__

#include <linux/kref.h>

#include <drm/drm_syncobj.h>
#include <drm/gpu_scheduler.h>

#include "vagx_drm.h"

struct vagx_device;
struct vagx_file;
struct vagx_ring;
struct vagx_vm;

/**
 * struct vagx_sync_op - A parsed &struct drm_vagx_sync
 */
struct vagx_sync_op {
	/** @signal: Signal operation (else wait). */
	bool signal;
	/** @timeline: Timeline syncobj. */
	bool timeline;
	/** @handle: Syncobj handle. */
	u32 handle;
	/** @point: Timeline point. */
	u64 point;
	/** @syncobj: Looked-up syncobj (signal ops). */
	struct drm_syncobj *syncobj;
	/** @chain: Preallocated chain node (timeline signal ops). */
	struct dma_fence_chain *chain;
	/** @fence: Fence to wait for (wait ops). */
	struct dma_fence *fence;
};

/**
 * struct vagx_file_stats - Per-file engine usage (fdinfo drm-engine-*)
 *
 * Outlives the file while its queues have jobs in flight: every queue holds
 * a reference.
 */
struct vagx_file_stats {
	/** @refcount: The file and its queues. */
	struct kref refcount;
	/** @busy_ns: Device busy time per DRM_VAGX_QUEUE_TYPE_*, in ns. */
	atomic64_t busy_ns[DRM_VAGX_QUEUE_TYPE_COPY + 1];
};

/**
 * struct vagx_queue - A user queue: one entity on a hardware ring
 */
struct vagx_queue {
	/** @refcount: Jobs and the file id hold references. */
	struct kref refcount;
	/** @vdev: Device. */
	struct vagx_device *vdev;
	/** @vm: VM of the jobs (user reference). */
	struct vagx_vm *vm;
	/** @stats: Usage statistics of the file (referenced). */
	struct vagx_file_stats *stats;
	/** @ring: Hardware ring. */
	struct vagx_ring *ring;
	/** @entity: drm_sched entity. */
	struct drm_sched_entity entity;
	/** @type: DRM_VAGX_QUEUE_TYPE_*. */
	u32 type;
	/** @priority: DRM_VAGX_PRIORITY_*. */
	u32 priority;
	/** @id: Queue id. */
	u32 id;
	/** @state: DRM_VAGX_QUEUE_STATE_* bits. */
	atomic_t state;
	/** @fault: MMU fault that killed the queue (under ring lock). */
	struct drm_vagx_fault_info fault;
	/** @submitted: Jobs submitted. */
	atomic64_t submitted;
	/** @submit_lock: Serialises arming and pushing of jobs. */
	struct mutex submit_lock;
	/** @last_run: Finished fence of the last job given to run_job. */
	struct dma_fence *last_run;
	/** @closing: The file is closing: cancel everything left. */
	bool closing;
	/**
	 * @destroyed: The entity is being torn down: SUBMIT must not push
	 * (under @submit_lock).
	 */
	bool destroyed;
};

int vagx_syncs_parse(struct drm_file *file,
		     const struct drm_vagx_obj_array *arr,
		     struct vagx_sync_op **ops_out, u32 *count_out);
int vagx_syncs_add_deps(struct drm_sched_job *job, struct vagx_sync_op *ops,
			u32 count);
void vagx_syncs_signal(struct vagx_sync_op *ops, u32 count,
		       struct dma_fence *fence);
void vagx_syncs_free(struct vagx_sync_op *ops, u32 count);
int vagx_copy_array(const struct drm_vagx_obj_array *arr, size_t elem_size,
		    size_t min_size, u32 max_count, void **out);

u32 vagx_queue_types(struct vagx_device *vdev);
struct vagx_file_stats *vagx_file_stats_create(void);
void vagx_file_stats_put(struct vagx_file_stats *stats);
void vagx_file_show_engines(struct vagx_file *vfile, struct drm_printer *p);
int vagx_rings_init(struct vagx_device *vdev);
void vagx_rings_unplug(struct vagx_device *vdev);
int vagx_device_recover(struct vagx_device *vdev);
void vagx_rings_fini(struct vagx_device *vdev);
bool vagx_rings_probe_nop(struct vagx_device *vdev);
void vagx_ring_irq(struct vagx_ring *ring, bool error);
void vagx_file_release_queues(struct vagx_file *vfile);
void vagx_sched_debugfs_show(struct vagx_device *vdev, struct seq_file *m);

int vagx_ioctl_queue_create(struct drm_device *drm, void *data,
			    struct drm_file *file);
int vagx_ioctl_queue_destroy(struct drm_device *drm, void *data,
			     struct drm_file *file);
int vagx_ioctl_queue_get_state(struct drm_device *drm, void *data,
			       struct drm_file *file);
int vagx_ioctl_submit(struct drm_device *drm, void *data,
		      struct drm_file *file);

#endif /* __VAGX_SCHED_H__ */
