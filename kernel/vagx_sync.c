// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (C) 2025 The vagx authors */

/*
 * Syncobj operations of SUBMIT and VM_BIND (struct drm_vagx_sync): copied
 * from userspace, validated, waits resolved to fences and signals given
 * their syncobj (and chain node), so that a job can wait for the former and
 * install its finished fence in the latter.
 */

#include <linux/dma-fence-chain.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_syncobj.h>
#include <drm/gpu_scheduler.h>

#include "vagx_device.h"
#include "vagx_sync.h"

/* struct drm_vagx_sync as of UAPI 1.0. */
#define VAGX_SYNC_MIN_SIZE	offsetofend(struct drm_vagx_sync, timeline_value)

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

/**
 * vagx_sync_resolve_wait() - Look up the fence a wait operation waits for
 * @file: DRM file.
 * @op: Wait operation.
 *
 * Return: 0 or a negative errno (@op->fence is then NULL).
 */
int vagx_sync_resolve_wait(struct drm_file *file, struct vagx_sync_op *op)
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

/**
 * vagx_syncs_parse_nowait() - vagx_syncs_parse() without resolving the waits
 * @file: DRM file.
 * @arr: Array of &struct drm_vagx_sync.
 * @ops_out: Out: parsed operations.
 * @count_out: Out: number of operations.
 *
 * SUBMIT resolves a wait itself (vagx_sync_resolve_wait()) unless an
 * earlier command of the same SUBMIT signals it.
 *
 * Return: 0 or a negative errno.
 */
int vagx_syncs_parse_nowait(struct drm_file *file,
			    const struct drm_vagx_obj_array *arr,
			    struct vagx_sync_op **ops_out, u32 *count_out)
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
