/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (C) 2025 The vagx authors */
#ifndef __VAGX_MMU_H__
#define __VAGX_MMU_H__

#include <linux/kref.h>
#include <linux/workqueue.h>

#include <drm/drm_gpuvm.h>
#include <drm/gpu_scheduler.h>

#include "vagx_drm.h"

struct drm_gem_object;
struct sg_table;
struct vagx_device;
struct vagx_file;
struct vagx_pt;

/**
 * struct vagx_pt_budget - Page-table memory one file may make the kernel use
 *
 * Shared by the VMs of a file (and referenced by each, as a VM outlives
 * the file's id on it). Every table costs one page, plus one page for the
 * child-pointer array of a table that is not a leaf.
 */
struct vagx_pt_budget {
	/** @refcount: The file and every page-table tree charging it. */
	struct kref refcount;
	/** @pages: Pages charged. */
	atomic_t pages;
	/** @limit: Most pages that may be charged. */
	u32 limit;
};

struct vagx_pt_budget *vagx_pt_budget_create(void);
void vagx_pt_budget_put(struct vagx_pt_budget *budget);

/**
 * struct vagx_pgtable - A device page-table tree (render VM or scanout VM)
 *
 * Callers serialise every operation on one tree with their own lock.
 */
struct vagx_pgtable {
	/** @vdev: Device (quarantine of tables a failed invalidation left). */
	struct vagx_device *vdev;
	/** @dev: Device the tables are DMA-mapped for. */
	struct device *dev;
	/** @root: Level-0 table. */
	struct vagx_pt *root;
	/** @pages: Number of table pages, root included. */
	atomic_t pages;
	/** @budget: What the tables are charged to, or NULL (no limit). */
	struct vagx_pt_budget *budget;
};

u64 vagx_pte_encode(bool valid, bool ro, bool null, bool no_exec, u64 addr);
int vagx_pgtable_init(struct vagx_pgtable *pgt, struct vagx_device *vdev,
		      struct vagx_pt_budget *budget);
void vagx_pgtable_fini(struct vagx_pgtable *pgt);
void vagx_pgtable_fini_after_tlb(struct vagx_pgtable *pgt, int tlb_ret);
u64 vagx_pgtable_root(const struct vagx_pgtable *pgt);
int vagx_pgtable_reserve(struct vagx_pgtable *pgt, u64 va, u64 size);
void vagx_pgtable_unreserve(struct vagx_pgtable *pgt, u64 va, u64 size);
int vagx_pgtable_reserve_edges(struct vagx_pgtable *pgt, u64 va, u64 size,
			       u8 depth[2]);
void vagx_pgtable_unreserve_edges(struct vagx_pgtable *pgt, u64 va, u64 size,
				  const u8 depth[2]);
bool vagx_pgtable_set(struct vagx_pgtable *pgt, u64 va, u64 pte);
void vagx_pgtable_set_range(struct vagx_pgtable *pgt, u64 va, u64 size,
			    u64 pte);
void vagx_pgtable_prune(struct vagx_pgtable *pgt, u64 va, u64 size,
			struct list_head *garbage);
void vagx_pgtable_free_garbage(struct vagx_pgtable *pgt,
			       struct list_head *garbage);
void vagx_pgtable_free_after_tlb(struct vagx_pgtable *pgt,
				 struct list_head *garbage, int tlb_ret);
int vagx_sgt_check(struct sg_table *sgt);
void vagx_mmu_quarantine_obj(struct vagx_device *vdev,
			     struct drm_gem_object *obj);
void vagx_mmu_quarantine_release(struct vagx_device *vdev);
void vagx_mmu_recover_now(struct vagx_device *vdev);
void vagx_mmu_quarantine_work(struct work_struct *work);

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
void vagx_mmu_fault_irq(struct vagx_device *vdev);
void vagx_mmu_debugfs_show(struct vagx_device *vdev, struct seq_file *m);
void vagx_file_release_vms(struct vagx_file *vfile);
int vagx_mmu_init(struct vagx_device *vdev);
void vagx_mmu_fini(struct vagx_device *vdev);

int vagx_ioctl_vm_create(struct drm_device *drm, void *data,
			 struct drm_file *file);
int vagx_ioctl_vm_destroy(struct drm_device *drm, void *data,
			  struct drm_file *file);
int vagx_ioctl_vm_bind(struct drm_device *drm, void *data,
		       struct drm_file *file);
int vagx_ioctl_vm_get_state(struct drm_device *drm, void *data,
			    struct drm_file *file);

#endif /* __VAGX_MMU_H__ */
