// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (C) 2025 The vagx authors */

/*
 * Hardware rings: one drm_gpu_scheduler per device queue, the jobs it runs
 * written into the ring's slots, their hardware fences signalled from the
 * interrupt, and the timeout, abort, reset and recovery paths.
 */

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "vagx_device.h"
#include "vagx_queue.h"
#include "vagx_ring.h"
#include "vagx_sync.h"
#include "vagx_mmu.h"
#include "vagx_vm.h"

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
void vagx_ring_cancel_queue(struct vagx_ring *ring, struct vagx_queue *queue)
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

/*
 * Retire the jobs the device completed, in ring order (ring->lock held);
 * stops at the first job without a result. Returns true if one failed.
 */
static bool vagx_ring_retire_locked(struct vagx_ring *ring)
{
	struct vagx_job *job, *tmp;
	bool failed = false;

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
	return failed;
}

/**
 * vagx_ring_irq() - Retire completed jobs of a ring (IRQ context)
 * @ring: Ring.
 * @error: The ring reported an error (it may be HALTED).
 */
void vagx_ring_irq(struct vagx_ring *ring, bool error)
{
	struct vagx_device *vdev = ring->vdev;
	bool failed;

	spin_lock(&ring->lock);
	failed = vagx_ring_retire_locked(ring);
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
bool vagx_ring_abort_locked(struct vagx_ring *ring, struct vagx_job *job)
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

/**
 * vagx_job_free() - Free a job and drop what it references
 * @job: Job, no longer in a scheduler.
 */
void vagx_job_free(struct vagx_job *job)
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
 * vagx_rings_stop() - Park every ring before a reset of the whole device
 * @vdev: Device.
 *
 * Takes @vdev->reset_lock (so no ring recovery or entity teardown runs),
 * parks every ring's scheduler (run_job() writes no slot) and waits for
 * running interrupt handlers. vagx_rings_restart() undoes it.
 */
void vagx_rings_stop(struct vagx_device *vdev)
{
	int i;
	u32 q;

	mutex_lock(&vdev->reset_lock);
	for (q = 0; q < vdev->num_rings; q++)
		drm_sched_wqueue_stop(&vdev->rings[q].sched);
	for (i = 0; i < vdev->nvec; i++)
		synchronize_irq(pci_irq_vector(vdev->pdev, i));
}

/**
 * vagx_rings_restart() - End what a device reset dropped, restart the rings
 * @vdev: Device, stopped by vagx_rings_stop(), then reset (global or PCI
 *        reset: no job runs any more, none will write its result).
 *
 * Jobs that completed before the reset (their interrupt may not have been
 * handled) are retired with their result. The others were dropped: they
 * end with -ECANCELED, their queues marked innocent unless they already
 * timed out or faulted (the reset, not the job, ended them). Every ring is
 * programmed again, the schedulers restarted and @vdev->reset_lock
 * released, so later jobs run.
 */
void vagx_rings_restart(struct vagx_device *vdev)
{
	struct vagx_job *job, *tmp;
	unsigned long flags;
	u32 q;

	for (q = 0; q < vdev->num_rings; q++) {
		struct vagx_ring *ring = &vdev->rings[q];

		spin_lock_irqsave(&ring->lock, flags);
		vagx_ring_retire_locked(ring);
		list_for_each_entry_safe(job, tmp, &ring->inflight, node) {
			if (!(atomic_read(&job->queue->state) &
			      (DRM_VAGX_QUEUE_STATE_TIMEDOUT |
			       DRM_VAGX_QUEUE_STATE_FAULTED)))
				atomic_or(DRM_VAGX_QUEUE_STATE_INNOCENT,
					  &job->queue->state);
			vagx_job_fence_signal(job, -ECANCELED);
		}
		ring->fault_valid = false;
		vagx_ring_program(ring);
		spin_unlock_irqrestore(&ring->lock, flags);
	}
	for (q = 0; q < vdev->num_rings; q++)
		drm_sched_wqueue_start(&vdev->rings[q].sched);
	mutex_unlock(&vdev->reset_lock);
}

/**
 * vagx_device_recover() - Bring a wedged device back into service
 * @vdev: Device, wedged (a TLB invalidation did not complete).
 *
 * With every ring's scheduler parked: a global reset, which stops every
 * queue and ends every job without a completion write; if TLB_INV_STATUS
 * is then idle the device is no longer wedged. Either way the jobs the
 * reset dropped end with -ECANCELED (vagx_rings_restart()) and the rings
 * are programmed again, so that later jobs run.
 *
 * Return: 0 when the device is in service again, else -ETIMEDOUT.
 */
int vagx_device_recover(struct vagx_device *vdev)
{
	int ret;

	vagx_rings_stop(vdev);
	mutex_lock(&vdev->tlb_lock);
	ret = vagx_device_reset(vdev);
	if (!ret)
		ret = vagx_device_tlb_idle(vdev);
	if (!ret)
		WRITE_ONCE(vdev->tlb_wedged, false);
	mutex_unlock(&vdev->tlb_lock);
	vagx_rings_restart(vdev);
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

/**
 * vagx_rings_debugfs_show() - Print the rings and their in-flight jobs
 * @vdev: Device.
 * @m: seq_file.
 */
void vagx_rings_debugfs_show(struct vagx_device *vdev, struct seq_file *m)
{
	u32 q;
	int idx;

	/* The rings are shown with their registers, so not after an unplug. */
	if (!drm_dev_enter(&vdev->drm, &idx))
		return;
	seq_printf(m, "hw_runs_jobs: %d\n", vdev->hw_runs_jobs);
	seq_printf(m, "abort_match: %d\n", vdev->abort_match);
	seq_printf(m, "pci_resets: %d\n", atomic_read(&vdev->pci_resets));
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
