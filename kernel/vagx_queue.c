// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (C) 2025 The vagx authors */

/*
 * User queues (QUEUE_CREATE, QUEUE_DESTROY, QUEUE_GET_STATE): a drm_sched
 * entity on one of the device's rings, and the per-file engine usage that
 * their jobs are charged to (fdinfo).
 */

#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "vagx_device.h"
#include "vagx_queue.h"
#include "vagx_ring.h"
#include "vagx_mmu.h"
#include "vagx_vm.h"

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

/**
 * vagx_queue_put() - Drop a reference to a queue
 * @queue: Queue or NULL.
 */
void vagx_queue_put(struct vagx_queue *queue)
{
	if (queue)
		kref_put(&queue->refcount, vagx_queue_release);
}

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

/**
 * vagx_queue_lookup() - Find a queue of a file and take a reference
 * @vfile: File.
 * @id: Queue id.
 *
 * Return: the queue or NULL.
 */
struct vagx_queue *vagx_queue_lookup(struct vagx_file *vfile, u32 id)
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
 * vagx_queue_create() - Create a queue on a VM of a file (QUEUE_CREATE)
 * @vfile: File.
 * @args: Checked type and priority, and the VM id; queue_id is returned.
 *
 * Return: 0 or a negative errno.
 */
int vagx_queue_create(struct vagx_file *vfile,
		      struct drm_vagx_queue_create *args)
{
	static const enum drm_sched_priority prio[] = {
		[DRM_VAGX_PRIORITY_LOW] = DRM_SCHED_PRIORITY_LOW,
		[DRM_VAGX_PRIORITY_MEDIUM] = DRM_SCHED_PRIORITY_NORMAL,
		[DRM_VAGX_PRIORITY_HIGH] = DRM_SCHED_PRIORITY_HIGH,
	};
	struct vagx_device *vdev = vfile->vdev;
	struct drm_gpu_scheduler *sched;
	struct vagx_queue *queue;
	struct vagx_vm *vm;
	u32 id, ring;
	int ret;

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
 * vagx_file_queue_destroy() - Drop a queue id and destroy the queue
 * @vfile: File.
 * @id: Queue id.
 *
 * Return: 0 or -ENOENT.
 */
int vagx_file_queue_destroy(struct vagx_file *vfile, u32 id)
{
	struct vagx_queue *queue;

	mutex_lock(&vfile->lock);
	queue = xa_erase(&vfile->queues, id);
	mutex_unlock(&vfile->lock);
	if (!queue)
		return -ENOENT;
	vagx_queue_destroy(queue);
	return 0;
}

/**
 * vagx_queue_get_state() - State and fault of a queue (QUEUE_GET_STATE)
 * @queue: Queue.
 * @args: Filled: state and fault.
 */
void vagx_queue_get_state(struct vagx_queue *queue,
			  struct drm_vagx_queue_get_state *args)
{
	unsigned long flags;

	spin_lock_irqsave(&queue->ring->lock, flags);
	args->state = atomic_read(&queue->state);
	args->fault = queue->fault;
	spin_unlock_irqrestore(&queue->ring->lock, flags);
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
