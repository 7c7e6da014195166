/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (C) 2025 The vagx authors */
#ifndef __VAGX_VM_H__
#define __VAGX_VM_H__

#include <linux/kref.h>
#include <linux/workqueue.h>

#include <drm/drm_gpuvm.h>
#include <drm/gpu_scheduler.h>

#include "vagx_drm.h"
#include "vagx_pgtable.h"

struct drm_file;
struct drm_gem_object;
struct seq_file;
struct vagx_device;
struct vagx_file;

/**
 * struct vagx_vm - A GPU address space
 *
 * Two reference counts: @users (file id, queues, jobs, pending binds) keeps
 * the mappings alive; when it drops to zero every mapping is torn down and
 * the drm_gpuvm reference (held also by every drm_gpuvm_bo) is released.
 */
struct vagx_vm {
	/** @base: drm_gpuvm. */
	struct drm_gpuvm base;
	/** @vdev: Device. */
	struct vagx_device *vdev;
	/** @users: Users of the address space. */
	struct kref users;
	/** @release_work: Tears the VM down once @users is zero. */
	struct work_struct release_work;
	/** @op_lock: Serialises page-table and VA-tree updates. */
	struct mutex op_lock;
	/** @pgt: Page tables (under @op_lock). */
	struct vagx_pgtable pgt;
	/** @bind_sched: Scheduler of asynchronous binds. */
	struct drm_gpu_scheduler bind_sched;
	/** @bind_entity: Entity of asynchronous binds. */
	struct drm_sched_entity bind_entity;
	/** @last_bind: Finished fence of the last async bind (op_lock). */
	struct dma_fence *last_bind;
	/** @kernel: Kernel-owned (vagx_vm_create_kernel()). */
	bool kernel;
	/** @unusable: An async bind failed. */
	bool unusable;
	/** @queue_count: Queues created on this VM and not destroyed. */
	atomic_t queue_count;
	/** @fault_lock: Protects @last_fault and @fault_count. */
	spinlock_t fault_lock;
	/** @last_fault: Last MMU fault. */
	struct drm_vagx_fault_info last_fault;
	/** @fault_count: MMU faults so far. */
	u32 fault_count;
	/** @id: VM id in its file (debugfs). */
	u32 id;
	/** @node: Entry in the device list of VMs (debugfs). */
	struct list_head node;
};

static inline struct vagx_vm *to_vagx_vm(struct drm_gpuvm *gpuvm)
{
	return container_of(gpuvm, struct vagx_vm, base);
}

struct drm_gem_object *vagx_vm_root_gem(struct vagx_vm *vm);
u64 vagx_vm_root_dma(struct vagx_vm *vm);
struct vagx_vm *vagx_vm_get(struct vagx_vm *vm);
void vagx_vm_put(struct vagx_vm *vm);
struct vagx_vm *vagx_vm_lookup(struct vagx_file *vfile, u32 id);
void vagx_vm_record_fault(struct vagx_vm *vm,
			  const struct drm_vagx_fault_info *fault);
void vagx_file_release_vms(struct vagx_file *vfile);
void vagx_vm_free_quarantined_vmas(struct vagx_device *vdev,
				   struct list_head *vmas);
void vagx_vm_debugfs_show(struct vagx_device *vdev, struct seq_file *m);
struct vagx_vm *vagx_vm_create_kernel(struct vagx_device *vdev, u64 va_start,
				      u64 va_size);
int vagx_vm_map_kernel(struct vagx_vm *vm, struct drm_gem_object *obj,
		       u64 va, u64 size, bool read_only, bool no_exec);
void vagx_vm_unmap_kernel(struct vagx_vm *vm, u64 va, u64 size);
int vagx_file_vm_create(struct vagx_file *vfile, u32 *id);
int vagx_file_vm_destroy(struct vagx_file *vfile, u32 id);
void vagx_vm_get_state(struct vagx_vm *vm, struct drm_vagx_vm_get_state *args);
int vagx_vm_bind(struct vagx_vm *vm, struct drm_file *file,
		 const struct drm_vagx_vm_bind_op *uops, u32 count, bool async,
		 const struct drm_vagx_obj_array *syncs, u32 *failed);

#endif /* __VAGX_VM_H__ */
