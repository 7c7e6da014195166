/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (C) 2025 The vagx authors */
#ifndef __VAGX_QUEUE_H__
#define __VAGX_QUEUE_H__

#include <linux/kref.h>
#include <linux/mutex.h>

#include <drm/gpu_scheduler.h>

#include "vagx_drm.h"

struct drm_printer;
struct vagx_device;
struct vagx_file;
struct vagx_ring;
struct vagx_vm;

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

u32 vagx_queue_types(struct vagx_device *vdev);
struct vagx_queue *vagx_queue_lookup(struct vagx_file *vfile, u32 id);
void vagx_queue_put(struct vagx_queue *queue);
struct vagx_file_stats *vagx_file_stats_create(void);
void vagx_file_stats_put(struct vagx_file_stats *stats);
void vagx_file_show_engines(struct vagx_file *vfile, struct drm_printer *p);
void vagx_file_release_queues(struct vagx_file *vfile);

int vagx_queue_create(struct vagx_file *vfile,
		      struct drm_vagx_queue_create *args);
int vagx_file_queue_destroy(struct vagx_file *vfile, u32 id);
void vagx_queue_get_state(struct vagx_queue *queue,
			  struct drm_vagx_queue_get_state *args);

#endif /* __VAGX_QUEUE_H__ */
