// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (C) 2025 The vagx authors */

#include <linux/capability.h>
#include <linux/delay.h>
#include <linux/dma-fence-chain.h>
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_auth.h>
#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>

#include "vagx_device.h"
#include "vagx_mmu.h"
#include "vagx_sched.h"

static unsigned int vagx_job_timeout_ms = VAGX_JOB_SCHED_TIMEOUT_MS;
static unsigned int vagx_hw_job_timeout_ms = VAGX_JOB_HW_TIMEOUT_MS;

/* Devices whose schedulers follow job_timeout_ms. */
static LIST_HEAD(vagx_devices);
static DEFINE_MUTEX(vagx_devices_lock);

static int vagx_job_timeout_set(const char *val, const struct kernel_param *kp)
{
	struct vagx_device *vdev;
	unsigned int ms;
	u32 q;
	int ret;

	ret = kstrtouint(val, 0, &ms);
	if (ret)
		return ret;
	if (ms < 10 || ms > 3600 * 1000)
		return -EINVAL;
	mutex_lock(&vagx_devices_lock);
	WRITE_ONCE(vagx_job_timeout_ms, ms);
	/* Takes effect the next time a ring arms its timeout. */
	list_for_each_entry(vdev, &vagx_devices, dev_node)
		for (q = 0; q < vdev->num_rings; q++)
			WRITE_ONCE(vdev->rings[q].sched.timeout,
				   msecs_to_jiffies(ms));
	mutex_unlock(&vagx_devices_lock);
	return 0;
}

static const struct kernel_param_ops vagx_job_timeout_ops = {
	.set = vagx_job_timeout_set,
	.get = param_get_uint,
};

module_param_cb(job_timeout_ms, &vagx_job_timeout_ops, &vagx_job_timeout_ms,
		0644);
MODULE_PARM_DESC(job_timeout_ms,
		 "drm_sched job timeout in ms (10..3600000, default 10000); writable at runtime");
module_param_named(hw_job_timeout_ms, vagx_hw_job_timeout_ms, uint, 0644);
MODULE_PARM_DESC(hw_job_timeout_ms,
		 "Device-side job time limit in ms written to each job header (0 = none, default 5000)");

/* struct drm_vagx_sync and struct drm_vagx_cmd as of UAPI 1.0. */
#define VAGX_SYNC_MIN_SIZE	offsetofend(struct drm_vagx_sync, timeline_value)
#define VAGX_CMD_MIN_SIZE	offsetofend(struct drm_vagx_cmd, syncs)

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

static const char *vagx_fence_driver_name(struct dma_fence *fence)
{
	return VAGX_DRIVER_NAME;
}

static const char *vagx_fence_timeline_name(struct dma_fence *fence)
{
	return container_of(fence, struct vagx_fence, base)->ring_name;
}

static const struct dma_fence_ops vagx_fence_ops = {
	.get_driver_name = vagx_fence_driver_name,
	.get_timeline_name = vagx_fence_timeline_name,
};

/**
 * vagx_copy_array() - Copy a &struct drm_vagx_obj_array from userspace
 * @arr: Array descriptor.
 * @elem_size: Size of the kernel's element.
 * @min_size: Size of the first version of the element.
 * @max_count: Largest accepted count.
 * @out: Out: kvmalloc'ed array (NULL if empty).
 *
 * Return: 0, -EINVAL (stride below @min_size), -E2BIG (count above
 * @max_count, stride above %VAGX_MAX_STRIDE, nonzero bytes past the
 * kernel's element), -EFAULT or -ENOMEM.
 */
int vagx_copy_array(const struct drm_vagx_obj_array *arr, size_t elem_size,
		    size_t min_size, u32 max_count, void **out)
{
	u8 *buf;
	u32 i;
	int ret;

	*out = NULL;
	if (!arr->count)
		return 0;
	if (arr->count > max_count)
		return -E2BIG;
	if (arr->stride < min_size)
		return -EINVAL;
	/*
	 * copy_struct_from_user() checks every byte past the kernel's
	 * element: an unbounded stride would make one ioctl scan up to
	 * count * 4 GiB of user memory.
	 */
	if (arr->stride > VAGX_MAX_STRIDE)
		return -E2BIG;

	buf = kvmalloc_array(arr->count, elem_size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < arr->count; i++) {
		ret = copy_struct_from_user(buf + i * elem_size, elem_size,
					    u64_to_user_ptr(arr->array +
							    (u64)i * arr->stride),
					    arr->stride);
		if (ret) {
			kvfree(buf);
			return ret;
		}
	}
	*out = buf;
	return 0;
}

/**
 * vagx_syncs_free() - Release parsed sync operations
 * @ops: Operations or NULL.
 * @count: Number of operations.
 */
void vagx_syncs_free(struct vagx_sync_op *ops, u32 count)
{
	u32 i;

	if (!ops)
		return;
	for (i = 0; i < count; i++) {
		if (ops[i].syncobj)
			drm_syncobj_put(ops[i].syncobj);
		dma_fence_chain_free(ops[i].chain);
		dma_fence_put(ops[i].fence);
	}
	kvfree(ops);
}

static int vagx_sync_resolve_wait(struct drm_file *file,
				  struct vagx_sync_op *op)
{
	struct dma_fence *fence = NULL;
	int ret;

	/* On error the helper may leave a stale, released pointer behind. */
	ret = drm_syncobj_find_fence(file, op->handle, op->point, 0, &fence);
	op->fence = ret ? NULL : fence;
	return ret;
}

static int vagx_syncs_parse_one(struct drm_file *file, struct vagx_sync_op *op,
				const struct drm_vagx_sync *s)
{
	if (s->pad || (s->flags & ~DRM_VAGX_SYNC_SIGNAL))
		return -EINVAL;
	switch (s->type) {
	case DRM_VAGX_SYNC_TYPE_SYNCOBJ:
		if (s->timeline_value)
			return -EINVAL;
		break;
	case DRM_VAGX_SYNC_TYPE_TIMELINE_SYNCOBJ:
		if (!s->timeline_value)
			return -EINVAL;
		op->timeline = true;
		break;
	default:
		return -EINVAL;
	}
	op->signal = s->flags & DRM_VAGX_SYNC_SIGNAL;
	op->handle = s->handle;
	op->point = s->timeline_value;
	if (!op->signal)
		return 0;

	op->syncobj = drm_syncobj_find(file, s->handle);
	if (!op->syncobj)
		return -ENOENT;
	if (op->timeline) {
		op->chain = dma_fence_chain_alloc();
		if (!op->chain)
			return -ENOMEM;
	}
	return 0;
}

static int vagx_syncs_parse_nowait(struct drm_file *file,
				   const struct drm_vagx_obj_array *arr,
				   struct vagx_sync_op **ops_out,
				   u32 *count_out)
{
	struct drm_vagx_sync *usyncs;
	struct vagx_sync_op *ops;
	u32 i;
	int ret;

	*ops_out = NULL;
	*count_out = 0;
	ret = vagx_copy_array(arr, sizeof(*usyncs), VAGX_SYNC_MIN_SIZE,
			      VAGX_MAX_SYNCS, (void **)&usyncs);
	if (ret || !arr->count)
		return ret;

	ops = kvcalloc(arr->count, sizeof(*ops), GFP_KERNEL);
	if (!ops) {
		kvfree(usyncs);
		return -ENOMEM;
	}
	for (i = 0; i < arr->count; i++) {
		ret = vagx_syncs_parse_one(file, &ops[i], &usyncs[i]);
		if (ret)
			break;
	}
	kvfree(usyncs);
	if (ret) {
		vagx_syncs_free(ops, arr->count);
		return ret;
	}
	*ops_out = ops;
	*count_out = arr->count;
	return 0;
}

/**
 * vagx_syncs_parse() - Copy, validate and look up an array of syncs
 * @file: DRM file.
 * @arr: Array of &struct drm_vagx_sync.
 * @ops_out: Out: parsed operations.
 * @count_out: Out: number of operations.
 *
 * Waits are resolved to fences, signals get their syncobj and, for
 * timelines, a preallocated chain node.
 *
 * Return: 0 or a negative errno.
 */
int vagx_syncs_parse(struct drm_file *file,
		     const struct drm_vagx_obj_array *arr,
		     struct vagx_sync_op **ops_out, u32 *count_out)
{
	u32 i;
	int ret;

	ret = vagx_syncs_parse_nowait(file, arr, ops_out, count_out);
	if (ret)
		return ret;
	for (i = 0; i < *count_out; i++) {
		struct vagx_sync_op *op = &(*ops_out)[i];

		if (op->signal)
			continue;
		ret = vagx_sync_resolve_wait(file, op);
		if (ret) {
			vagx_syncs_free(*ops_out, *count_out);
			*ops_out = NULL;
			*count_out = 0;
			return ret;
		}
	}
	return 0;
}

/**
 * vagx_syncs_add_deps() - Make a job wait for the resolved wait fences
 * @job: Job, initialised.
 * @ops: Parsed operations.
 * @count: Number of operations.
 *
 * Return: 0 or -ENOMEM.
 */
int vagx_syncs_add_deps(struct drm_sched_job *job, struct vagx_sync_op *ops,
			u32 count)
{
	u32 i;
	int ret;

	for (i = 0; i < count; i++) {
		if (ops[i].signal || !ops[i].fence)
			continue;
		ret = drm_sched_job_add_dependency(job,
						   dma_fence_get(ops[i].fence));
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * vagx_syncs_signal() - Install a fence in every signal operation
 * @ops: Parsed operations.
 * @count: Number of operations.
 * @fence: Fence to install.
 */
void vagx_syncs_signal(struct vagx_sync_op *ops, u32 count,
		       struct dma_fence *fence)
{
	u32 i;

	for (i = 0; i < count; i++) {
		struct vagx_sync_op *op = &ops[i];

		if (!op->signal)
			continue;
		if (op->timeline) {
			drm_syncobj_add_point(op->syncobj, op->chain, fence,
					      op->point);
			op->chain = NULL;
		} else {
			drm_syncobj_replace_fence(op->syncobj, fence);
		}
	}
}

/* ---- hardware rings ---------------------------------------------------- */

static u32 vagx_ring_slots(void)
{
	return 1u << VAGX_RING_LOG2;
}

static u32 *vagx_ring_slot(struct vagx_ring *ring, u32 slot)
{
	return (u32 *)(ring->slots + (size_t)slot * VAGX_RING_ENTRY_SIZE);
}

static void vagx_ring_program(struct vagx_ring *ring)
{
	struct vagx_device *vdev = ring->vdev;
	u32 q = ring->idx;

	vagx_write(vdev, VAGX_REG_Q_CONTROL(q), 0);
	vagx_write(vdev, VAGX_REG_Q_RING_BASE_LO(q), lower_32_bits(ring->slots_dma));
	vagx_write(vdev, VAGX_REG_Q_RING_BASE_HI(q), upper_32_bits(ring->slots_dma));
	vagx_write(vdev, VAGX_REG_Q_RING_SIZE(q),
		   VAGX_Q_RING_SIZE_LOG2(VAGX_RING_LOG2));
	vagx_write(vdev, VAGX_REG_Q_CONTROL(q), VAGX_Q_CONTROL_ENABLE(1));
	ring->tail = 0;
}

static int vagx_ring_hw_reset(struct vagx_ring *ring)
{
	struct vagx_device *vdev = ring->vdev;
	u32 val;
	int ret;

	vagx_write(vdev, VAGX_REG_Q_RESET(ring->idx), VAGX_Q_RESET_START(1));
	ret = readl_poll_timeout(vdev->mmio + VAGX_REG_Q_RESET(ring->idx), val,
				 !VAGX_Q_RESET_START_GET(val), 10, 1000000);
	if (ret)
		drm_err(&vdev->drm, "ring %u reset timed out\n", ring->idx);
	atomic_inc(&ring->resets);
	return ret;
}

/**
 * vagx_file_stats_create() - Allocate the usage statistics of a file
 *
 * Return: the statistics (one reference) or NULL.
 */
struct vagx_file_stats *vagx_file_stats_create(void)
{
	struct vagx_file_stats *stats = kzalloc(sizeof(*stats), GFP_KERNEL);

	if (stats)
		kref_init(&stats->refcount);
	return stats;
}

static void vagx_file_stats_release(struct kref *kref)
{
	kfree(container_of(kref, struct vagx_file_stats, refcount));
}

/**
 * vagx_file_stats_put() - Drop a reference to file statistics
 * @stats: Statistics or NULL.
 */
void vagx_file_stats_put(struct vagx_file_stats *stats)
{
	if (stats)
		kref_put(&stats->refcount, vagx_file_stats_release);
}

static const char * const vagx_engine_names[] = {
	[DRM_VAGX_QUEUE_TYPE_RENDER] = "render",
	[DRM_VAGX_QUEUE_TYPE_COMPUTE] = "compute",
	[DRM_VAGX_QUEUE_TYPE_COPY] = "copy",
};

/**
 * vagx_file_show_engines() - Print drm-engine-* keys for fdinfo
 * @vfile: File.
 * @p: Printer.
 *
 * One key per queue type the device offers. Any ring runs any type, so a
 * type's capacity is the number of rings.
 */
void vagx_file_show_engines(struct vagx_file *vfile, struct drm_printer *p)
{
	u32 types = vagx_queue_types(vfile->vdev);
	u32 t;

	for (t = 0; t < ARRAY_SIZE(vagx_engine_names); t++) {
		if (!(types & BIT(t)))
			continue;
		drm_printf(p, "drm-engine-%s:\t%llu ns\n", vagx_engine_names[t],
			   (u64)atomic64_read(&vfile->stats->busy_ns[t]));
		if (vfile->vdev->num_rings > 1)
			drm_printf(p, "drm-engine-capacity-%s:\t%u\n",
				   vagx_engine_names[t], vfile->vdev->num_rings);
	}
}

/*
 * Charge the device time of a job leaving the ring (ring->lock held). A ring
 * runs its jobs one after another, so a job ran from the later of its
 * submission and the previous retirement until now (the interrupt latency
 * is charged to the job).
 */
static void vagx_job_account(struct vagx_ring *ring, struct vagx_job *job)
{
	u64 now = ktime_get_ns();
	u64 start = max(job->ring_ns, ring->last_retire_ns);

	if (now > start)
		atomic64_add(now - start,
			     &job->queue->stats->busy_ns[job->queue->type]);
	ring->last_retire_ns = now;
}

static void vagx_job_fence_signal(struct vagx_job *job, int error)
{
	vagx_job_account(job->queue->ring, job);
	list_del_init(&job->node);
	if (error)
		dma_fence_set_error(&job->fence->base, error);
	dma_fence_signal(&job->fence->base);
}

/*
 * Rewrite a ring slot the device has not started into a NOP that keeps the
 * seqno, completion address and interrupt of the job. The device may read
 * the slot while it changes: the type goes first, so a torn read is either
 * the old job or an invalid NOP (INVALID_JOB), and both end as a cancelled
 * job in the IRQ path.
 */
static void vagx_ring_slot_make_nop(u32 *w)
{
	struct vagx_job_header hdr;
	u32 packed[VAGX_JOB_HEADER_DWORDS];
	const char *err;
	u32 i;

	vagx_job_header_unpack(w, &hdr, &err);
	hdr.type = VAGX_JOB_TYPE_NOP;
	hdr.desc_va = 0;
	hdr.desc_size = 0;
	vagx_job_header_pack(packed, &hdr);
	WRITE_ONCE(w[0], packed[0]);
	for (i = 1; i < VAGX_JOB_HEADER_DWORDS; i++)
		WRITE_ONCE(w[i], packed[i]);
	/* A NOP must have an all-zero payload. */
	for (i = 0; i < VAGX_RING_SLOT_PAYLOAD_SIZE / 4; i++)
		WRITE_ONCE(w[VAGX_RING_SLOT_PAYLOAD_OFFSET / 4 + i], 0);
}

/* Turn the queue's remaining jobs in the ring into NOPs (ring->lock held). */
static void vagx_ring_cancel_queue(struct vagx_ring *ring,
				   struct vagx_queue *queue)
{
	struct vagx_job *job;

	list_for_each_entry(job, &ring->inflight, node) {
		if (job->queue != queue || job->cancelled)
			continue;
		vagx_ring_slot_make_nop(vagx_ring_slot(ring, job->slot));
		job->cancelled = true;
	}
}

static void vagx_ring_job_failed(struct vagx_ring *ring, struct vagx_job *job,
				 u32 status)
{
	struct vagx_queue *queue = job->queue;
	int error;

	/*
	 * A job turned into a NOP while the device was reading its slot may
	 * fail (torn slot, or the original job faulting): it was cancelled
	 * anyway, nothing is held against its queue.
	 */
	if (job->cancelled) {
		ring->fault_valid = false;
		vagx_job_fence_signal(job, -ECANCELED);
		return;
	}

	switch (status) {
	case VAGX_JOB_STATUS_MMU_FAULT:
		error = -EFAULT;
		atomic_or(DRM_VAGX_QUEUE_STATE_FAULTED, &queue->state);
		if (!ring->fault_valid) {
			u32 *w = vagx_ring_slot(ring, job->slot);
			u32 *r = w + VAGX_RING_SLOT_RESULT_OFFSET / 4;

			/* The FAULT_* registers were not latched for us. */
			ring->fault.addr = r[2] | ((u64)r[3] << 32);
			ring->fault.access = DRM_VAGX_FAULT_ACCESS_READ;
			ring->fault.reason = DRM_VAGX_FAULT_REASON_UNMAPPED;
		}
		queue->fault = ring->fault;
		vagx_vm_record_fault(job->vm, &ring->fault);
		ring->fault_valid = false;
		break;
	case VAGX_JOB_STATUS_ABORTED:
		if (READ_ONCE(queue->closing)) {
			error = -ECANCELED;
			break;
		}
		if (job->fence->base.seqno != ring->abort_seqno) {
			/* Q_ABORT raced with the completion of the guilty job. */
			error = -ECANCELED;
			atomic_or(DRM_VAGX_QUEUE_STATE_INNOCENT, &queue->state);
			break;
		}
		fallthrough;
	case VAGX_JOB_STATUS_TIMEOUT:
		error = -ETIMEDOUT;
		atomic_or(DRM_VAGX_QUEUE_STATE_TIMEDOUT, &queue->state);
		break;
	default:
		error = -EIO;
		atomic_or(DRM_VAGX_QUEUE_STATE_FAULTED, &queue->state);
		break;
	}
	drm_dbg_driver(&ring->vdev->drm, "ring %u job %llu failed: status %u\n",
		       ring->idx, job->fence->base.seqno, status);
	vagx_job_fence_signal(job, error);
	vagx_ring_cancel_queue(ring, queue);
}

/**
 * vagx_ring_irq() - Retire completed jobs of a ring (IRQ context)
 * @ring: Ring.
 * @error: The ring reported an error (it may be HALTED).
 */
void vagx_ring_irq(struct vagx_ring *ring, bool error)
{
	struct vagx_device *vdev = ring->vdev;
	struct vagx_job *job, *tmp;
	bool failed = false;

	spin_lock(&ring->lock);
	list_for_each_entry_safe(job, tmp, &ring->inflight, node) {
		u32 *w = vagx_ring_slot(ring, job->slot);
		u32 status = READ_ONCE(w[VAGX_RING_SLOT_RESULT_OFFSET / 4]) & 0xff;

		if (status == VAGX_JOB_STATUS_PENDING)
			break;
		/* Read the result before anything the job wrote. */
		dma_rmb();
		if (status == VAGX_JOB_STATUS_OK) {
			vagx_job_fence_signal(job, job->cancelled ? -ECANCELED : 0);
		} else {
			vagx_ring_job_failed(ring, job, status);
			failed = true;
		}
	}
	if (error || failed) {
		u32 st = vagx_read(vdev, VAGX_REG_Q_STATUS(ring->idx));

		if (VAGX_Q_STATUS_STATE_GET(st) == VAGX_QUEUE_STATE_HALTED)
			vagx_write(vdev, VAGX_REG_Q_RESUME(ring->idx),
				   VAGX_Q_RESUME_RESUME(1));
	}
	spin_unlock(&ring->lock);
}

/* Inline payload of a COPY/FILL job (validated at SUBMIT). */
static void vagx_job_pack_payload(const struct vagx_job *job, u32 *payload)
{
	struct vagx_copy_job cj;
	struct vagx_fill_job fj;

	if (job->queue->type != DRM_VAGX_QUEUE_TYPE_COPY)
		return;
	if (job->fill) {
		vagx_fill_job_init(&fj);
		fj.dst_va = job->copy.dst_va;
		fj.size = job->copy.size;
		fj.pattern = job->copy.pattern;
		vagx_fill_job_pack(payload, &fj);
	} else {
		vagx_copy_job_init(&cj);
		cj.src_va = job->copy.src_va;
		cj.dst_va = job->copy.dst_va;
		cj.size = job->copy.size;
		vagx_copy_job_pack(payload, &cj);
	}
}

static struct dma_fence *vagx_ring_write_job(struct drm_sched_job *sched_job)
{
	struct vagx_job *job = container_of(sched_job, struct vagx_job, base);
	struct vagx_queue *queue = job->queue;
	struct vagx_ring *ring = queue->ring;
	struct vagx_device *vdev = ring->vdev;
	struct vagx_job_header hdr;
	struct dma_fence *prev;
	unsigned long flags;
	u32 *w;

	if (atomic_read(&queue->state) || READ_ONCE(queue->closing) ||
	    READ_ONCE(job->vm->unusable))
		return ERR_PTR(-ECANCELED);
	if (sched_job->s_fence->finished.error)
		return ERR_PTR(sched_job->s_fence->finished.error);
	prev = queue->last_run;
	queue->last_run = dma_fence_get(&sched_job->s_fence->finished);
	/* No-op command: completes with the previous job of the queue. */
	if (job->noop) {
		struct dma_fence *ret = NULL;

		if (prev && !dma_fence_is_signaled(prev))
			ret = dma_fence_get(prev);
		dma_fence_put(prev);
		return ret;
	}
	dma_fence_put(prev);

	vagx_job_header_init(&hdr);
	switch (queue->type) {
	case DRM_VAGX_QUEUE_TYPE_RENDER:
		hdr.type = VAGX_JOB_TYPE_RENDER;
		hdr.desc_size = VAGX_RENDER_JOB_LENGTH;
		hdr.desc_va = job->desc_va;
		break;
	case DRM_VAGX_QUEUE_TYPE_COMPUTE:
		hdr.type = VAGX_JOB_TYPE_COMPUTE;
		hdr.desc_size = VAGX_COMPUTE_JOB_LENGTH;
		hdr.desc_va = job->desc_va;
		break;
	default:
		/* COPY and FILL carry their body inline, in the payload. */
		hdr.type = job->fill ? VAGX_JOB_TYPE_FILL : VAGX_JOB_TYPE_COPY;
		break;
	}
	hdr.irq = true;
	hdr.irq_vector = ring->idx < vdev->nvec ? ring->idx : 0;
	if (VAGX_FEATURES_TIMEOUT_GET(vdev->hw_features))
		hdr.timeout_ms = READ_ONCE(vagx_hw_job_timeout_ms);
	hdr.pt_root = vagx_vm_root_dma(job->vm);
	hdr.completion_pa = vdev->completion_dma + ring->idx * sizeof(u64);

	spin_lock_irqsave(&ring->lock, flags);
	hdr.seqno = ++ring->seqno;
	job->slot = ring->tail & (vagx_ring_slots() - 1);
	w = vagx_ring_slot(ring, job->slot);
	memset(w, 0, VAGX_RING_ENTRY_SIZE);
	vagx_job_header_pack(w, &hdr);
	vagx_job_pack_payload(job, w + VAGX_RING_SLOT_PAYLOAD_OFFSET / 4);
	job->fence->ring_name = ring->name;
	dma_fence_init(&job->fence->base, &vagx_fence_ops, &ring->fence_lock,
		       ring->fence_ctx, hdr.seqno);
	job->fence_init = true;
	job->ring_ns = ktime_get_ns();
	list_add_tail(&job->node, &ring->inflight);
	ring->tail++;
	/* Slot contents before the tail update. */
	wmb();
	vagx_write(vdev, VAGX_REG_Q_TAIL(ring->idx), ring->tail);
	vagx_write(vdev, VAGX_REG_Q_DOORBELL(ring->idx), 1);
	spin_unlock_irqrestore(&ring->lock, flags);

	return dma_fence_get(&job->fence->base);
}

/* After an unplug every job that reaches the ring fails with -ENODEV. */
static struct dma_fence *vagx_ring_run_job(struct drm_sched_job *sched_job)
{
	struct vagx_job *job = container_of(sched_job, struct vagx_job, base);
	struct dma_fence *fence;
	int idx;

	if (!drm_dev_enter(&job->queue->vdev->drm, &idx))
		return ERR_PTR(-ENODEV);
	fence = vagx_ring_write_job(sched_job);
	drm_dev_exit(idx);
	return fence;
}

/*
 * Write Q_ABORT for the job with @seqno (ring->lock held). On a 1.1 device
 * the abort is qualified with the seqno (Q_ABORT.MATCH): if that job has
 * completed meanwhile and the next one runs, the device leaves it alone
 * and says so in Q_ABORT_STATUS. A 1.0 device aborts whatever runs; the
 * IRQ path then tells the victim from the target by @abort_seqno.
 *
 * Return: VAGX_ABORT_RESULT_ACCEPTED if a job is being aborted, else
 * MISMATCH or NOT_RUNNING (nothing happened).
 */
static u32 vagx_ring_abort_seqno_locked(struct vagx_ring *ring, u64 seqno)
{
	struct vagx_device *vdev = ring->vdev;
	u32 q = ring->idx, result = VAGX_ABORT_RESULT_ACCEPTED, status;

	if (vdev->abort_match) {
		vagx_write(vdev, VAGX_REG_Q_ABORT_MATCH_LO(q),
			   lower_32_bits(seqno));
		vagx_write(vdev, VAGX_REG_Q_ABORT_MATCH_HI(q),
			   upper_32_bits(seqno));
		vagx_write(vdev, VAGX_REG_Q_ABORT(q),
			   VAGX_Q_ABORT_ABORT(1) | VAGX_Q_ABORT_MATCH(1));
		/* Decided by the write itself. */
		status = vagx_read(vdev, VAGX_REG_Q_ABORT_STATUS(q));
		result = VAGX_Q_ABORT_STATUS_RESULT_GET(status);
	} else {
		vagx_write(vdev, VAGX_REG_Q_ABORT(q), VAGX_Q_ABORT_ABORT(1));
	}
	if (result == VAGX_ABORT_RESULT_ACCEPTED) {
		ring->abort_seqno = seqno;
		atomic_inc(&ring->aborts);
	} else {
		atomic_inc(&ring->abort_misses);
	}
	return result;
}

/*
 * Q_ABORT @job if it is the one running on the ring (ring->lock held).
 * The device completes it with ABORTED at its next safe point, halts, and
 * the IRQ handler retires it like any failed job.
 *
 * Return: true if the device accepted the abort.
 */
static bool vagx_ring_abort_locked(struct vagx_ring *ring, struct vagx_job *job)
{
	struct vagx_job *first;

	first = list_first_entry_or_null(&ring->inflight, struct vagx_job, node);
	if (first != job)
		return false;
	return vagx_ring_abort_seqno_locked(ring, job->fence->base.seqno) ==
	       VAGX_ABORT_RESULT_ACCEPTED;
}

/*
 * Abort @job for the timeout handler. The debugfs delay knob sleeps between
 * the choice of the job and the register write, which is where the job can
 * complete and the next (innocent) job start: the seqno qualification must
 * then spare the innocent job.
 */
static bool vagx_ring_abort_timedout(struct vagx_ring *ring,
				     struct vagx_job *job)
{
	unsigned int delay = atomic_read(&ring->vdev->inject_abort_delay_ms);
	struct vagx_job *first;
	unsigned long flags;
	bool ret;

	if (!delay) {
		spin_lock_irqsave(&ring->lock, flags);
		ret = vagx_ring_abort_locked(ring, job);
		spin_unlock_irqrestore(&ring->lock, flags);
		return ret;
	}
	spin_lock_irqsave(&ring->lock, flags);
	first = list_first_entry_or_null(&ring->inflight, struct vagx_job, node);
	spin_unlock_irqrestore(&ring->lock, flags);
	if (first != job)
		return false;
	msleep(delay);
	spin_lock_irqsave(&ring->lock, flags);
	ret = vagx_ring_abort_seqno_locked(ring, job->fence->base.seqno) ==
	      VAGX_ABORT_RESULT_ACCEPTED;
	spin_unlock_irqrestore(&ring->lock, flags);
	return ret;
}

/* Reset the ring: every job in it ends, innocent ones -ECANCELED. */
static void vagx_ring_reset_all(struct vagx_ring *ring, struct vagx_job *job)
{
	struct vagx_job *j, *tmp;
	unsigned long flags;

	drm_warn(&ring->vdev->drm, "ring %u: abort failed, resetting the ring\n",
		 ring->idx);
	vagx_ring_hw_reset(ring);

	spin_lock_irqsave(&ring->lock, flags);
	list_for_each_entry_safe(j, tmp, &ring->inflight, node) {
		if (j == job) {
			atomic_or(DRM_VAGX_QUEUE_STATE_TIMEDOUT,
				  &j->queue->state);
			vagx_job_fence_signal(j, -ETIMEDOUT);
		} else {
			if (j->queue != job->queue &&
			    !(atomic_read(&j->queue->state) &
			      (DRM_VAGX_QUEUE_STATE_TIMEDOUT |
			       DRM_VAGX_QUEUE_STATE_FAULTED)))
				atomic_or(DRM_VAGX_QUEUE_STATE_INNOCENT,
					  &j->queue->state);
			vagx_job_fence_signal(j, -ECANCELED);
		}
	}
	atomic_or(DRM_VAGX_QUEUE_STATE_TIMEDOUT, &job->queue->state);
	vagx_ring_program(ring);
	spin_unlock_irqrestore(&ring->lock, flags);
}

/*
 * drm_sched took the job off its pending list before calling the timeout
 * handler; put it back so that it is freed once its fence signals (what
 * DRM_GPU_SCHED_STAT_NO_HANG does in later kernels).
 */
static void vagx_ring_requeue_job(struct drm_gpu_scheduler *sched,
				  struct drm_sched_job *sched_job)
{
	spin_lock(&sched->job_list_lock);
	list_add(&sched_job->list, &sched->pending_list);
	spin_unlock(&sched->job_list_lock);
}

static enum drm_gpu_sched_stat
vagx_ring_recover(struct drm_sched_job *sched_job)
{
	struct vagx_job *job = container_of(sched_job, struct vagx_job, base);
	struct vagx_ring *ring = job->queue->ring;
	struct vagx_device *vdev = ring->vdev;
	unsigned long deadline;
	bool aborted, done;
	long ret, left;
	int i;

	mutex_lock(&vdev->reset_lock);
	/*
	 * Park run_job/free_job while the ring may be reset.  The jobs keep
	 * their hardware fence callbacks: drm_sched_stop()/drm_sched_start()
	 * would drop them and complete every pending job of the ring with
	 * -ECANCELED, innocent ones included.
	 */
	drm_sched_wqueue_stop(&ring->sched);
	for (i = 0; i < vdev->nvec; i++)
		synchronize_irq(pci_irq_vector(vdev->pdev, i));
	if (!job->fence_init || dma_fence_is_signaled(&job->fence->base))
		goto out;

	drm_warn(&vdev->drm, "ring %u: job %llu of queue %u timed out, aborting it\n",
		 ring->idx, job->fence->base.seqno, job->queue->id);
	deadline = jiffies + msecs_to_jiffies(VAGX_ABORT_GRACE_MS);
	done = false;
	if (atomic_add_unless(&vdev->inject_abort_fail, -1, 0))
		goto reset;
	/*
	 * An abort that hits nothing means the job has just completed (its
	 * interrupt is on the way) or has not been fetched yet: look again
	 * until the grace period ends, then reset the ring.
	 */
	do {
		aborted = vagx_ring_abort_timedout(ring, job);
		left = max_t(long, (long)(deadline - jiffies), 1);
		ret = dma_fence_wait_timeout(&job->fence->base, false,
					     aborted ? left :
					     min_t(long, left, msecs_to_jiffies(10)));
		done = ret > 0;
	} while (!done && !aborted && time_before(jiffies, deadline));
reset:
	if (!done)
		vagx_ring_reset_all(ring, job);
out:
	/*
	 * Restarting the work items also runs the free_job work for a job
	 * that already completed.
	 */
	vagx_ring_requeue_job(&ring->sched, sched_job);
	drm_sched_wqueue_start(&ring->sched);
	mutex_unlock(&vdev->reset_lock);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

/*
 * Unplugged: the registers are off limits and vagx_device_fini() ends the
 * job with -ENODEV (or already has).
 */
static enum drm_gpu_sched_stat
vagx_ring_timedout_job(struct drm_sched_job *sched_job)
{
	struct vagx_job *job = container_of(sched_job, struct vagx_job, base);
	struct vagx_device *vdev = job->queue->vdev;
	enum drm_gpu_sched_stat stat;
	int idx;

	if (!drm_dev_enter(&vdev->drm, &idx)) {
		vagx_ring_requeue_job(sched_job->sched, sched_job);
		return DRM_GPU_SCHED_STAT_NOMINAL;
	}
	stat = vagx_ring_recover(sched_job);
	drm_dev_exit(idx);
	return stat;
}

static void vagx_queue_release(struct kref *kref)
{
	struct vagx_queue *queue = container_of(kref, struct vagx_queue,
						refcount);

	dma_fence_put(queue->last_run);
	vagx_file_stats_put(queue->stats);
	vagx_vm_put(queue->vm);
	mutex_destroy(&queue->submit_lock);
	kfree(queue);
}

static void vagx_queue_put(struct vagx_queue *queue)
{
	if (queue)
		kref_put(&queue->refcount, vagx_queue_release);
}

static void vagx_job_free(struct vagx_job *job)
{
	if (job->fence_init)
		dma_fence_put(&job->fence->base);
	else
		kfree(job->fence);
	vagx_syncs_free(job->syncs, job->nsyncs);
	vagx_vm_put(job->vm);
	vagx_queue_put(job->queue);
	kfree(job);
}

static void vagx_ring_free_job(struct drm_sched_job *sched_job)
{
	struct vagx_job *job = container_of(sched_job, struct vagx_job, base);

	drm_sched_job_cleanup(sched_job);
	vagx_job_free(job);
}

static const struct drm_sched_backend_ops vagx_ring_sched_ops = {
	.run_job = vagx_ring_run_job,
	.timedout_job = vagx_ring_timedout_job,
	.free_job = vagx_ring_free_job,
};

/**
 * vagx_rings_init() - Set up the hardware rings and their schedulers
 * @vdev: Device.
 *
 * Return: 0 or a negative errno.
 */
int vagx_rings_init(struct vagx_device *vdev)
{
	struct device *dev = vdev->drm.dev;
	u32 q;
	int ret;

	INIT_LIST_HEAD(&vdev->dev_node);
	vdev->completion = dma_alloc_coherent(dev, PAGE_SIZE,
					      &vdev->completion_dma,
					      GFP_KERNEL);
	if (!vdev->completion)
		return -ENOMEM;

	for (q = 0; q < vdev->num_rings; q++) {
		struct vagx_ring *ring = &vdev->rings[q];

		ring->vdev = vdev;
		ring->idx = q;
		snprintf(ring->name, sizeof(ring->name), "vagx-ring%u", q);
		spin_lock_init(&ring->lock);
		spin_lock_init(&ring->fence_lock);
		INIT_LIST_HEAD(&ring->inflight);
		ring->fence_ctx = dma_fence_context_alloc(1);
		ring->slots = dma_alloc_coherent(dev, vagx_ring_slots() *
						 VAGX_RING_ENTRY_SIZE,
						 &ring->slots_dma, GFP_KERNEL);
		if (!ring->slots) {
			ret = -ENOMEM;
			goto err;
		}
		ret = drm_sched_init(&ring->sched, &vagx_ring_sched_ops, NULL,
				     DRM_SCHED_PRIORITY_COUNT,
				     vagx_ring_slots() - 1, 0,
				     msecs_to_jiffies(VAGX_JOB_SCHED_TIMEOUT_MS),
				     NULL, NULL, ring->name, dev);
		if (ret)
			goto err;
		ring->sched_ready = true;
		vagx_ring_program(ring);
	}
	mutex_lock(&vagx_devices_lock);
	for (q = 0; q < vdev->num_rings; q++)
		vdev->rings[q].sched.timeout =
			msecs_to_jiffies(READ_ONCE(vagx_job_timeout_ms));
	list_add_tail(&vdev->dev_node, &vagx_devices);
	mutex_unlock(&vagx_devices_lock);
	return 0;

err:
	vagx_rings_fini(vdev);
	return ret;
}

/**
 * vagx_rings_unplug() - End every job left in the rings with -ENODEV
 * @vdev: Device, reset and with its interrupts freed.
 *
 * The jobs' finished fences (and the syncobjs holding them) signal with
 * -ENODEV. The schedulers stay until the DRM device is released; run_job()
 * fails every later job with -ENODEV.
 */
void vagx_rings_unplug(struct vagx_device *vdev)
{
	struct vagx_job *job, *tmp;
	unsigned long flags;
	u32 q;

	for (q = 0; q < vdev->num_rings; q++) {
		struct vagx_ring *ring = &vdev->rings[q];

		spin_lock_irqsave(&ring->lock, flags);
		list_for_each_entry_safe(job, tmp, &ring->inflight, node)
			vagx_job_fence_signal(job, -ENODEV);
		spin_unlock_irqrestore(&ring->lock, flags);
	}
}

/**
 * vagx_device_recover() - Bring a wedged device back into service
 * @vdev: Device, wedged (a TLB invalidation did not complete).
 *
 * With every ring's scheduler parked: a global reset, which stops every
 * queue and ends every job without a completion write; if TLB_INV_STATUS
 * is then idle the device is no longer wedged. Either way the jobs the
 * rings held end with -ECANCELED (their queues marked innocent unless
 * they already timed out or faulted: a wedged device, not the job, ended
 * them) and the rings are programmed again, so that later jobs run.
 *
 * Return: 0 when the device is in service again, else -ETIMEDOUT.
 */
int vagx_device_recover(struct vagx_device *vdev)
{
	struct vagx_job *job, *tmp;
	unsigned long flags;
	int ret, i;
	u32 q;

	mutex_lock(&vdev->reset_lock);
	for (q = 0; q < vdev->num_rings; q++)
		drm_sched_wqueue_stop(&vdev->rings[q].sched);
	for (i = 0; i < vdev->nvec; i++)
		synchronize_irq(pci_irq_vector(vdev->pdev, i));

	mutex_lock(&vdev->tlb_lock);
	ret = vagx_device_reset(vdev);
	if (!ret)
		ret = vagx_device_tlb_idle(vdev);
	if (!ret)
		WRITE_ONCE(vdev->tlb_wedged, false);
	mutex_unlock(&vdev->tlb_lock);

	for (q = 0; q < vdev->num_rings; q++) {
		struct vagx_ring *ring = &vdev->rings[q];

		spin_lock_irqsave(&ring->lock, flags);
		list_for_each_entry_safe(job, tmp, &ring->inflight, node) {
			if (!(atomic_read(&job->queue->state) &
			      (DRM_VAGX_QUEUE_STATE_TIMEDOUT |
			       DRM_VAGX_QUEUE_STATE_FAULTED)))
				atomic_or(DRM_VAGX_QUEUE_STATE_INNOCENT,
					  &job->queue->state);
			vagx_job_fence_signal(job, -ECANCELED);
		}
		vagx_ring_program(ring);
		spin_unlock_irqrestore(&ring->lock, flags);
	}
	for (q = 0; q < vdev->num_rings; q++)
		drm_sched_wqueue_start(&vdev->rings[q].sched);
	mutex_unlock(&vdev->reset_lock);
	return ret;
}

/**
 * vagx_rings_fini() - Free the rings and their schedulers
 * @vdev: Device, reset; no job may be pending.
 *
 * Touches no register: runs when the DRM device is released, possibly long
 * after the PCI function was removed.
 */
void vagx_rings_fini(struct vagx_device *vdev)
{
	struct device *dev = vdev->drm.dev;
	u32 q;

	mutex_lock(&vagx_devices_lock);
	if (!list_empty(&vdev->dev_node))
		list_del_init(&vdev->dev_node);
	mutex_unlock(&vagx_devices_lock);
	for (q = 0; q < vdev->num_rings; q++) {
		struct vagx_ring *ring = &vdev->rings[q];

		if (ring->sched_ready)
			drm_sched_fini(&ring->sched);
		ring->sched_ready = false;
		/* The device was reset (vagx_device_fini): rings are off. */
		if (ring->slots) {
			dma_free_coherent(dev, vagx_ring_slots() *
					  VAGX_RING_ENTRY_SIZE,
					  ring->slots, ring->slots_dma);
			ring->slots = NULL;
		}
	}
	if (vdev->completion)
		dma_free_coherent(dev, PAGE_SIZE, vdev->completion,
				  vdev->completion_dma);
	vdev->completion = NULL;
}

/**
 * vagx_rings_probe_nop() - Check that the device executes jobs
 * @vdev: Device, rings programmed, interrupts enabled.
 *
 * Writes a NOP job into ring 0 and waits briefly for its completion word.
 * A device model that only implements the registers never completes it;
 * the ring is then reset so that it is empty again.
 *
 * Return: true if the NOP completed.
 */
bool vagx_rings_probe_nop(struct vagx_device *vdev)
{
	struct vagx_ring *ring = &vdev->rings[0];
	struct vagx_job_header hdr;
	unsigned long flags;
	u64 seqno;
	int i;

	vagx_job_header_init(&hdr);
	hdr.type = VAGX_JOB_TYPE_NOP;
	hdr.completion_pa = vdev->completion_dma;

	spin_lock_irqsave(&ring->lock, flags);
	seqno = ++ring->seqno;
	hdr.seqno = seqno;
	memset(vagx_ring_slot(ring, 0), 0, VAGX_RING_ENTRY_SIZE);
	vagx_job_header_pack(vagx_ring_slot(ring, 0), &hdr);
	ring->tail = 1;
	/* Slot contents before the tail update. */
	wmb();
	vagx_write(vdev, VAGX_REG_Q_TAIL(0), ring->tail);
	vagx_write(vdev, VAGX_REG_Q_DOORBELL(0), 1);
	spin_unlock_irqrestore(&ring->lock, flags);

	for (i = 0; i < 200; i++) {
		if (READ_ONCE(vdev->completion[0]) == seqno)
			break;
		usleep_range(1000, 2000);
	}
	if (READ_ONCE(vdev->completion[0]) == seqno)
		return true;

	drm_warn(&vdev->drm, "device does not execute jobs (NOP probe timed out)\n");
	vagx_ring_hw_reset(ring);
	spin_lock_irqsave(&ring->lock, flags);
	vagx_ring_program(ring);
	spin_unlock_irqrestore(&ring->lock, flags);
	return false;
}

/* ---- queues ---------------------------------------------------------- */

/**
 * vagx_queue_types() - Queue types userspace may create
 * @vdev: Device.
 *
 * Render and copy/fill jobs are part of every device (contract v1);
 * compute needs FEATURES.COMPUTE.
 *
 * Return: bitmask of DRM_VAGX_QUEUE_TYPE_* bits.
 */
u32 vagx_queue_types(struct vagx_device *vdev)
{
	u32 types = BIT(DRM_VAGX_QUEUE_TYPE_RENDER) |
		    BIT(DRM_VAGX_QUEUE_TYPE_COPY);

	if (VAGX_FEATURES_COMPUTE_GET(vdev->hw_features))
		types |= BIT(DRM_VAGX_QUEUE_TYPE_COMPUTE);
	return types;
}

static struct vagx_queue *vagx_queue_lookup(struct vagx_file *vfile, u32 id)
{
	struct vagx_queue *queue;

	xa_lock(&vfile->queues);
	queue = xa_load(&vfile->queues, id);
	if (queue)
		kref_get(&queue->refcount);
	xa_unlock(&vfile->queues);
	return queue;
}

/**
 * vagx_ioctl_queue_create() - DRM_IOCTL_VAGX_QUEUE_CREATE
 * @drm: DRM device.
 * @data: &struct drm_vagx_queue_create.
 * @file: DRM file.
 *
 * Return: 0 or a negative errno.
 */
int vagx_ioctl_queue_create(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	static const enum drm_sched_priority prio[] = {
		[DRM_VAGX_PRIORITY_LOW] = DRM_SCHED_PRIORITY_LOW,
		[DRM_VAGX_PRIORITY_MEDIUM] = DRM_SCHED_PRIORITY_NORMAL,
		[DRM_VAGX_PRIORITY_HIGH] = DRM_SCHED_PRIORITY_HIGH,
	};
	struct vagx_device *vdev = to_vagx_device(drm);
	struct vagx_file *vfile = file->driver_priv;
	struct drm_vagx_queue_create *args = data;
	struct drm_gpu_scheduler *sched;
	struct vagx_queue *queue;
	struct vagx_vm *vm;
	u32 id, ring;
	int ret;

	if (args->flags || args->pad)
		return -EINVAL;
	if (args->type >= 32 || !(vagx_queue_types(vdev) & BIT(args->type)))
		return -EINVAL;
	if (args->priority > DRM_VAGX_PRIORITY_HIGH)
		return -EINVAL;
	if (args->priority == DRM_VAGX_PRIORITY_HIGH &&
	    !capable(CAP_SYS_NICE) && !drm_is_current_master(file))
		return -EACCES;

	/*
	 * Count the queue on the VM under the lock VM_DESTROY checks the
	 * count with: otherwise a VM_DESTROY between the lookup and the
	 * increment succeeds and the new queue runs on a VM without id.
	 */
	mutex_lock(&vfile->lock);
	vm = vagx_vm_lookup(vfile, args->vm_id);
	if (vm)
		atomic_inc(&vm->queue_count);
	mutex_unlock(&vfile->lock);
	if (!vm)
		return -ENOENT;
	if (READ_ONCE(vm->unusable)) {
		ret = -ECANCELED;
		goto err_vm;
	}

	queue = kzalloc(sizeof(*queue), GFP_KERNEL_ACCOUNT);
	if (!queue) {
		ret = -ENOMEM;
		goto err_vm;
	}
	kref_init(&queue->refcount);
	mutex_init(&queue->submit_lock);
	queue->vdev = vdev;
	queue->vm = vm;
	kref_get(&vfile->stats->refcount);
	queue->stats = vfile->stats;
	queue->type = args->type;
	queue->priority = args->priority;

	/* High priority gets ring 0 to itself when there are several. */
	if (vdev->num_rings == 1 || args->priority == DRM_VAGX_PRIORITY_HIGH)
		ring = 0;
	else
		ring = 1 + ((u32)atomic_inc_return(&vdev->ring_rr) %
			    (vdev->num_rings - 1));
	queue->ring = &vdev->rings[ring];
	sched = &queue->ring->sched;

	ret = drm_sched_entity_init(&queue->entity, prio[args->priority],
				    &sched, 1, NULL);
	if (ret)
		goto err_put;

	mutex_lock(&vfile->lock);
	ret = xa_alloc(&vfile->queues, &id, queue,
		       XA_LIMIT(1, VAGX_MAX_QUEUES_PER_FILE), GFP_KERNEL);
	mutex_unlock(&vfile->lock);
	if (ret) {
		if (ret == -EBUSY)
			ret = -ENOSPC;
		goto err_entity;
	}
	queue->id = id;
	args->queue_id = id;
	return 0;

err_entity:
	drm_sched_entity_destroy(&queue->entity);
err_put:
	atomic_dec(&vm->queue_count);
	/* Drops the VM reference too. */
	vagx_queue_put(queue);
	return ret;

err_vm:
	atomic_dec(&vm->queue_count);
	vagx_vm_put(vm);
	return ret;
}

static void vagx_queue_destroy(struct vagx_queue *queue)
{
	struct vagx_device *vdev = queue->vdev;
	struct drm_gpu_scheduler *sched = &queue->ring->sched;

	/* A SUBMIT that looked the queue up before it was erased fails now. */
	mutex_lock(&queue->submit_lock);
	queue->destroyed = true;
	mutex_unlock(&queue->submit_lock);

	/*
	 * QUEUE_DESTROY lets the queued jobs run (flush, then fini); a closing
	 * file does not wait for their dependencies: fini kills the jobs that
	 * the scheduler has not taken yet (-ESRCH once their waits resolve).
	 */
	if (!READ_ONCE(queue->closing))
		drm_sched_entity_flush(&queue->entity,
				       MAX_WAIT_SCHED_ENTITY_Q_EMPTY);

	/*
	 * The rings' schedulers are shared by many entities. In 6.12,
	 * drm_sched_entity_pop_job() puts an entity that still holds jobs
	 * back into the run queue's FIFO tree without checking whether
	 * drm_sched_entity_kill() removed it meanwhile, which leaves a freed
	 * entity in the tree. Park the scheduler's work items (as a ring
	 * reset does, hence the reset lock) so that no pop runs while the
	 * entity is removed.
	 */
	mutex_lock(&vdev->reset_lock);
	drm_sched_wqueue_stop(sched);
	drm_sched_entity_fini(&queue->entity);
	drm_sched_wqueue_start(sched);
	mutex_unlock(&vdev->reset_lock);

	atomic_dec(&queue->vm->queue_count);
	vagx_queue_put(queue);
}

/**
 * vagx_ioctl_queue_destroy() - DRM_IOCTL_VAGX_QUEUE_DESTROY
 * @drm: DRM device.
 * @data: &struct drm_vagx_queue_destroy.
 * @file: DRM file.
 *
 * Return: 0 or a negative errno.
 */
int vagx_ioctl_queue_destroy(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct vagx_file *vfile = file->driver_priv;
	struct drm_vagx_queue_destroy *args = data;
	struct vagx_queue *queue;

	if (args->pad)
		return -EINVAL;
	mutex_lock(&vfile->lock);
	queue = xa_erase(&vfile->queues, args->queue_id);
	mutex_unlock(&vfile->lock);
	if (!queue)
		return -ENOENT;
	vagx_queue_destroy(queue);
	return 0;
}

/**
 * vagx_ioctl_queue_get_state() - DRM_IOCTL_VAGX_QUEUE_GET_STATE
 * @drm: DRM device.
 * @data: &struct drm_vagx_queue_get_state.
 * @file: DRM file.
 *
 * Return: 0 or a negative errno.
 */
int vagx_ioctl_queue_get_state(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct drm_vagx_queue_get_state *args = data;
	struct vagx_queue *queue;
	unsigned long flags;

	queue = vagx_queue_lookup(file->driver_priv, args->queue_id);
	if (!queue)
		return -ENOENT;
	spin_lock_irqsave(&queue->ring->lock, flags);
	args->state = atomic_read(&queue->state);
	args->fault = queue->fault;
	spin_unlock_irqrestore(&queue->ring->lock, flags);
	vagx_queue_put(queue);
	return 0;
}

/**
 * vagx_file_release_queues() - Destroy every queue of a closing file
 * @vfile: File.
 */
void vagx_file_release_queues(struct vagx_file *vfile)
{
	struct vagx_queue *queue;
	unsigned long id, flags;
	int idx;

	xa_for_each(&vfile->queues, id, queue) {
		struct vagx_ring *ring = queue->ring;
		struct vagx_job *first;

		xa_erase(&vfile->queues, id);
		/* Nothing of a closed file runs any more. */
		WRITE_ONCE(queue->closing, true);
		kref_get(&queue->refcount);
		vagx_queue_destroy(queue);

		spin_lock_irqsave(&ring->lock, flags);
		vagx_ring_cancel_queue(ring, queue);
		first = list_first_entry_or_null(&ring->inflight,
						 struct vagx_job, node);
		if (first && first->queue == queue &&
		    drm_dev_enter(&queue->vdev->drm, &idx)) {
			vagx_ring_abort_locked(ring, first);
			drm_dev_exit(idx);
		}
		spin_unlock_irqrestore(&ring->lock, flags);
		vagx_queue_put(queue);
	}
}

/* ---- submission ------------------------------------------------------ */

static bool vagx_user_range_ok(u64 va, u64 size)
{
	return va >= VAGX_USER_VA_START && va < VAGX_USER_VA_END &&
	       size <= VAGX_USER_VA_END - va;
}

/* The rules of struct drm_vagx_cmd_copy (checked before the device sees it). */
static int vagx_submit_check_copy(const struct drm_vagx_cmd *cmd)
{
	const struct drm_vagx_cmd_copy *c = &cmd->copy;
	bool fill = cmd->flags & DRM_VAGX_CMD_FILL;

	if (cmd->flags & ~DRM_VAGX_CMD_FILL)
		return -EINVAL;
	if (cmd->desc_va || c->pad)
		return -EINVAL;
	if (fill ? c->src_va : c->pattern)
		return -EINVAL;
	if (!c->size)
		return 0;
	if (!vagx_user_range_ok(c->dst_va, c->size))
		return -EINVAL;
	if (fill)
		return IS_ALIGNED(c->dst_va, 4) && IS_ALIGNED(c->size, 4) ?
		       0 : -EINVAL;
	if (!vagx_user_range_ok(c->src_va, c->size))
		return -EINVAL;
	/* The device leaves overlapping copies undefined: refuse them. */
	if (c->src_va < c->dst_va + c->size && c->dst_va < c->src_va + c->size)
		return -EINVAL;
	return 0;
}

static int vagx_submit_check_cmd(struct vagx_queue *queue,
				 const struct drm_vagx_cmd *cmd)
{
	int ret;

	if (cmd->type != queue->type)
		return -EINVAL;
	if (cmd->type == DRM_VAGX_QUEUE_TYPE_COPY) {
		ret = vagx_submit_check_copy(cmd);
		if (ret)
			return ret;
	} else if (cmd->flags || memchr_inv(&cmd->copy, 0, sizeof(cmd->copy))) {
		return -EINVAL;
	}
	if (cmd->desc_va &&
	    (!IS_ALIGNED(cmd->desc_va, VAGX_JOB_DESC_ALIGN) ||
	     cmd->desc_va < VAGX_USER_VA_START ||
	     cmd->desc_va >= VAGX_USER_VA_END))
		return -EINVAL;
	if (cmd->syncs.count > VAGX_MAX_SYNCS)
		return -E2BIG;
	return 0;
}

/* Index of an earlier job of this submit that signals what @op waits for. */
static int vagx_submit_find_intra(struct vagx_job **jobs, u32 j,
				  const struct vagx_sync_op *op)
{
	int i;
	u32 k;

	for (i = j - 1; i >= 0; i--) {
		for (k = 0; k < jobs[i]->nsyncs; k++) {
			const struct vagx_sync_op *s = &jobs[i]->syncs[k];

			if (!s->signal || s->handle != op->handle ||
			    s->timeline != op->timeline)
				continue;
			if (!op->timeline || s->point >= op->point)
				return i;
		}
	}
	return -1;
}

static int vagx_submit(struct drm_device *drm, void *data,
		       struct drm_file *file)
{
	struct vagx_file *vfile = file->driver_priv;
	struct drm_vagx_submit *args = data;
	struct drm_vagx_cmd *cmds = NULL;
	struct vagx_job **jobs = NULL;
	struct drm_gem_object *r_obj;
	struct vagx_queue *queue;
	struct drm_exec exec;
	u32 i, k, n = 0;
	int ret;

	args->failed_cmd = DRM_VAGX_NO_FAILED_INDEX;
	if (args->flags || args->pad)
		return -EINVAL;
	queue = vagx_queue_lookup(vfile, args->queue_id);
	if (!queue)
		return -ENOENT;
	if (atomic_read(&queue->state) || READ_ONCE(queue->vm->unusable)) {
		ret = -ECANCELED;
		goto out_queue;
	}

	ret = vagx_copy_array(&args->cmds, sizeof(*cmds), VAGX_CMD_MIN_SIZE,
			      VAGX_MAX_CMDS, (void **)&cmds);
	if (ret || !args->cmds.count)
		goto out_queue;

	jobs = kcalloc(args->cmds.count, sizeof(*jobs), GFP_KERNEL);
	if (!jobs) {
		ret = -ENOMEM;
		goto out_cmds;
	}

	/* Validate, allocate and resolve external waits. */
	for (i = 0; i < args->cmds.count; i++) {
		struct vagx_job *job;

		args->failed_cmd = i;
		ret = vagx_submit_check_cmd(queue, &cmds[i]);
		if (ret)
			goto out_jobs;
		job = kzalloc(sizeof(*job), GFP_KERNEL);
		if (!job) {
			ret = -ENOMEM;
			goto out_jobs;
		}
		jobs[n++] = job;
		INIT_LIST_HEAD(&job->node);
		kref_get(&queue->refcount);
		job->queue = queue;
		job->vm = vagx_vm_get(queue->vm);
		job->desc_va = cmds[i].desc_va;
		job->copy = cmds[i].copy;
		job->fill = cmds[i].flags & DRM_VAGX_CMD_FILL;
		job->noop = queue->type == DRM_VAGX_QUEUE_TYPE_COPY ?
			    !job->copy.size : !job->desc_va;
		job->fence = kzalloc(sizeof(*job->fence), GFP_KERNEL);
		if (!job->fence) {
			ret = -ENOMEM;
			goto out_jobs;
		}
		ret = vagx_syncs_parse_nowait(file, &cmds[i].syncs, &job->syncs,
					      &job->nsyncs);
		if (ret)
			goto out_jobs;
		for (k = 0; k < job->nsyncs; k++) {
			struct vagx_sync_op *op = &job->syncs[k];

			if (op->signal || vagx_submit_find_intra(jobs, i, op) >= 0)
				continue;
			ret = vagx_sync_resolve_wait(file, op);
			if (ret)
				goto out_jobs;
		}
		ret = drm_sched_job_init(&job->base, &queue->entity, 1, queue);
		if (ret)
			goto out_jobs;
		job->sched_init = true;
		ret = vagx_syncs_add_deps(&job->base, job->syncs, job->nsyncs);
		if (ret)
			goto out_jobs;
	}
	args->failed_cmd = DRM_VAGX_NO_FAILED_INDEX;

	mutex_lock(&queue->submit_lock);
	if (queue->destroyed) {
		ret = -ENOENT;
		mutex_unlock(&queue->submit_lock);
		goto out_jobs;
	}
	r_obj = vagx_vm_root_gem(queue->vm);
	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT, 1);
	drm_exec_until_all_locked(&exec) {
		ret = drm_exec_prepare_obj(&exec, r_obj, n);
		drm_exec_retry_on_contention(&exec);
		if (ret)
			goto out_unlock;
	}

	/* Intra-submit dependencies need the earlier jobs armed. */
	for (i = 0; i < n; i++) {
		struct vagx_job *job = jobs[i];

		for (k = 0; k < job->nsyncs && !ret; k++) {
			struct dma_fence *f;
			int src;

			if (job->syncs[k].signal || job->syncs[k].fence)
				continue;
			src = vagx_submit_find_intra(jobs, i, &job->syncs[k]);
			if (src < 0)
				continue;
			f = &jobs[src]->base.s_fence->finished;
			ret = drm_sched_job_add_dependency(&job->base,
							   dma_fence_get(f));
		}
		if (ret)
			goto out_unlock;
		drm_sched_job_arm(&job->base);
	}

	/* Point of no return. */
	for (i = 0; i < n; i++) {
		struct dma_fence *f = &jobs[i]->base.s_fence->finished;

		dma_resv_add_fence(r_obj->resv, f, DMA_RESV_USAGE_BOOKKEEP);
		vagx_syncs_signal(jobs[i]->syncs, jobs[i]->nsyncs, f);
	}
	for (i = 0; i < n; i++)
		drm_sched_entity_push_job(&jobs[i]->base);
	atomic64_add(n, &queue->submitted);
	drm_exec_fini(&exec);
	mutex_unlock(&queue->submit_lock);
	n = 0;
	goto out_jobs;

out_unlock:
	drm_exec_fini(&exec);
	mutex_unlock(&queue->submit_lock);
out_jobs:
	for (i = 0; i < n; i++) {
		if (jobs[i]->sched_init)
			drm_sched_job_cleanup(&jobs[i]->base);
		vagx_job_free(jobs[i]);
	}
	kfree(jobs);
out_cmds:
	kvfree(cmds);
out_queue:
	vagx_queue_put(queue);
	return ret;
}

/**
 * vagx_ioctl_submit() - DRM_IOCTL_VAGX_SUBMIT
 * @drm: DRM device.
 * @data: &struct drm_vagx_submit.
 * @file: DRM file.
 *
 * A SUBMIT racing with PCI remove either completes before the remove fails
 * the rings' jobs, or returns -ENODEV.
 *
 * Return: 0 or a negative errno; nothing is queued on error.
 */
int vagx_ioctl_submit(struct drm_device *drm, void *data,
		      struct drm_file *file)
{
	int ret, idx;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = vagx_submit(drm, data, file);
	drm_dev_exit(idx);
	return ret;
}

/**
 * vagx_sched_debugfs_show() - Print the rings and their in-flight jobs
 * @vdev: Device.
 * @m: seq_file.
 */
void vagx_sched_debugfs_show(struct vagx_device *vdev, struct seq_file *m)
{
	u32 q;
	int idx;

	/* The rings are shown with their registers, so not after an unplug. */
	if (!drm_dev_enter(&vdev->drm, &idx))
		return;
	seq_printf(m, "hw_runs_jobs: %d\n", vdev->hw_runs_jobs);
	seq_printf(m, "abort_match: %d\n", vdev->abort_match);
	for (q = 0; q < vdev->num_rings; q++) {
		struct vagx_ring *ring = &vdev->rings[q];
		struct vagx_job *job;
		unsigned long flags;

		spin_lock_irqsave(&ring->lock, flags);
		seq_printf(m, "ring %u: tail %u seqno %llu completed %llu head %u status %#x resets %d aborts %d abort_misses %d\n",
			   q, ring->tail, ring->seqno, vdev->completion[q],
			   vagx_read(vdev, VAGX_REG_Q_HEAD(q)),
			   vagx_read(vdev, VAGX_REG_Q_STATUS(q)),
			   atomic_read(&ring->resets),
			   atomic_read(&ring->aborts),
			   atomic_read(&ring->abort_misses));
		list_for_each_entry(job, &ring->inflight, node)
			seq_printf(m, "  job seqno %llu queue %u type %u desc %#llx%s\n",
				   job->fence->base.seqno, job->queue->id,
				   job->queue->type, job->desc_va,
				   job->cancelled ? " cancelled" : "");
		spin_unlock_irqrestore(&ring->lock, flags);
	}
	drm_dev_exit(idx);
}
