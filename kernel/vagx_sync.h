/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (C) 2025 The vagx authors */
#ifndef __VAGX_SYNC_H__
#define __VAGX_SYNC_H__

#include <linux/types.h>

#include "vagx_drm.h"

struct dma_fence;
struct dma_fence_chain;
struct drm_file;
struct drm_sched_job;
struct drm_syncobj;

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

int vagx_copy_array(const struct drm_vagx_obj_array *arr, size_t elem_size,
		    size_t min_size, u32 max_count, void **out);
int vagx_syncs_parse_nowait(struct drm_file *file,
			    const struct drm_vagx_obj_array *arr,
			    struct vagx_sync_op **ops_out,
			    u32 *count_out);
int vagx_sync_resolve_wait(struct drm_file *file, struct vagx_sync_op *op);
int vagx_syncs_parse(struct drm_file *file,
		     const struct drm_vagx_obj_array *arr,
		     struct vagx_sync_op **ops_out, u32 *count_out);
int vagx_syncs_add_deps(struct drm_sched_job *job, struct vagx_sync_op *ops,
			u32 count);
void vagx_syncs_signal(struct vagx_sync_op *ops, u32 count,
		       struct dma_fence *fence);
void vagx_syncs_free(struct vagx_sync_op *ops, u32 count);

#endif /* __VAGX_SYNC_H__ */
