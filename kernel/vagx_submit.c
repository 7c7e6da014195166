// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (C) 2025 The vagx authors */

/*
 * SUBMIT: commands checked, turned into jobs with their syncs (waits on
 * earlier commands of the same SUBMIT become scheduler dependencies), and
 * pushed to the queue's entity with the VM's reservation object fenced.
 */

#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/drm_syncobj.h>

#include "vagx_device.h"
#include "vagx_queue.h"
#include "vagx_ring.h"
#include "vagx_submit.h"
#include "vagx_sync.h"
#include "vagx_mmu.h"
#include "vagx_vm.h"

/* struct drm_vagx_cmd as of UAPI 1.0. */
#define VAGX_CMD_MIN_SIZE	offsetofend(struct drm_vagx_cmd, syncs)

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

/**
 * vagx_submit() - Queue the commands of a SUBMIT
 * @file: DRM file.
 * @args: &struct drm_vagx_submit, flags checked; failed_cmd is returned.
 *
 * Context: Inside drm_dev_enter(): a SUBMIT racing with PCI remove either
 * completes before the remove fails the rings' jobs, or is not made.
 *
 * Return: 0 or a negative errno; nothing is queued on error.
 */
int vagx_submit(struct drm_file *file, struct drm_vagx_submit *args)
{
	struct vagx_file *vfile = file->driver_priv;
	struct drm_vagx_cmd *cmds = NULL;
	struct vagx_job **jobs = NULL;
	struct drm_gem_object *r_obj;
	struct vagx_queue *queue;
	struct drm_exec exec;
	u32 i, k, n = 0;
	int ret;

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
