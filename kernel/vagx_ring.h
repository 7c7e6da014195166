/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (C) 2025 The vagx authors */
#ifndef __VAGX_RING_H__
#define __VAGX_RING_H__

#include <linux/dma-fence.h>
#include <linux/list.h>
#include <linux/types.h>

#include <drm/gpu_scheduler.h>

#include "vagx_drm.h"

struct seq_file;
struct vagx_device;
struct vagx_queue;
struct vagx_ring;
struct vagx_sync_op;
struct vagx_vm;

/**
 * struct vagx_fence - Hardware fence of a job: signalled from the IRQ
 */
struct vagx_fence {
	/** @base: dma_fence. */
	struct dma_fence base;
	/** @ring_name: Timeline name. */
	const char *ring_name;
};

/**
 * struct vagx_job - One command of a SUBMIT
 */
struct vagx_job {
	/** @base: drm_sched job. */
	struct drm_sched_job base;
	/** @queue: Queue (referenced). */
	struct vagx_queue *queue;
	/** @vm: VM (user reference). */
	struct vagx_vm *vm;
	/** @desc_va: Job descriptor VA (render/compute), 0 otherwise. */
	u64 desc_va;
	/** @copy: Copy/fill parameters (copy queues). */
	struct drm_vagx_cmd_copy copy;
	/** @fill: The copy command is a fill. */
	bool fill;
	/** @noop: No device job: the command only waits and signals. */
	bool noop;
	/** @fence: Hardware fence, initialised by run_job. */
	struct vagx_fence *fence;
	/** @fence_init: @fence was initialised. */
	bool fence_init;
	/** @ring_ns: When run_job wrote the job into the ring. */
	u64 ring_ns;
	/** @cancelled: Job was turned into a NOP after its queue died. */
	bool cancelled;
	/** @sched_init: drm_sched_job_init() succeeded. */
	bool sched_init;
	/** @slot: Ring slot index. */
	u32 slot;
	/** @node: Entry in vagx_ring::inflight. */
	struct list_head node;
	/** @syncs: Parsed syncs of the command. */
	struct vagx_sync_op *syncs;
	/** @nsyncs: Number of @syncs. */
	u32 nsyncs;
};

int vagx_rings_init(struct vagx_device *vdev);
void vagx_rings_unplug(struct vagx_device *vdev);
void vagx_rings_stop(struct vagx_device *vdev);
void vagx_rings_restart(struct vagx_device *vdev);
int vagx_device_recover(struct vagx_device *vdev);
void vagx_rings_fini(struct vagx_device *vdev);
bool vagx_rings_probe_nop(struct vagx_device *vdev);
void vagx_ring_irq(struct vagx_ring *ring, bool error);
void vagx_ring_cancel_queue(struct vagx_ring *ring, struct vagx_queue *queue);
bool vagx_ring_abort_locked(struct vagx_ring *ring, struct vagx_job *job);
void vagx_job_free(struct vagx_job *job);
void vagx_rings_debugfs_show(struct vagx_device *vdev, struct seq_file *m);

#endif /* __VAGX_RING_H__ */
