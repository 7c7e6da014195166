// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (C) 2025 The vagx authors */

/*
 * GPU address spaces (struct vagx_vm, drm_gpuvm) and VM_BIND: binds are
 * validated and their page tables reserved first, then applied (at once
 * or as an async bind job) where they can no longer fail, then the TLB is
 * invalidated and what they unmapped released, or quarantined when the
 * invalidation failed.
 */

#include <linux/delay.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "vagx_device.h"
#include "vagx_gem.h"
#include "vagx_mmu.h"
#include "vagx_pgtable.h"
#include "vagx_sync.h"
#include "vagx_vm.h"

static void vagx_pt_map_sgt(struct vagx_vm *vm, u64 va, u64 size,
			    struct sg_table *sgt, u64 offset, bool ro,
			    bool no_exec)
{
	u64 end = va + size;
	struct scatterlist *sg;
	int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		dma_addr_t addr = sg_dma_address(sg);
		u64 len = sg_dma_len(sg);

		if (offset >= len) {
			offset -= len;
			continue;
		}
		addr += offset;
		len -= offset;
		offset = 0;
		/* Segments are whole pages: vagx_sgt_check() at MAP time. */
		for (; len >= VAGX_PAGE_SIZE && va < end; va += VAGX_PAGE_SIZE,
		     addr += VAGX_PAGE_SIZE, len -= VAGX_PAGE_SIZE)
			drm_WARN_ON_ONCE(&vm->vdev->drm,
					 !vagx_pgtable_set(&vm->pgt, va,
							   vagx_pte_page(addr, ro, no_exec)));
		if (va >= end)
			break;
	}
}

#define VAGX_VMA_READONLY	BIT(0)
#define VAGX_VMA_NULL		BIT(1)
/* Kernel mappings only (the scanout's): no instruction fetch. */
#define VAGX_VMA_NO_EXEC	BIT(2)

struct vagx_vma {
	struct drm_gpuva base;
	struct list_head node;
	u32 flags;
};

#define to_vagx_vma(va) container_of(va, struct vagx_vma, base)

/* One validated and prepared operation of a VM_BIND. */
struct vagx_bind_op {
	u32 op;
	u32 vma_flags;
	u64 va;
	u64 range;
	u64 bo_offset;
	struct drm_gem_object *obj;
	struct sg_table *sgt;
	struct drm_gpuvm_bo *vm_bo;
	struct vagx_vma *new_vma[3];
	/* The op holds a reservation on its page tables (vm->op_lock). */
	bool pt_reserved;
	/* Tables may have been allocated for the op's range (prune them). */
	bool pt_touched;
	/* MAP_NULL/UNMAP: levels held at both ends (reserve_edges). */
	u8 pt_depth[2];
};

/* A whole VM_BIND, executed synchronously or as an async bind job. */
struct vagx_bind_job {
	struct drm_sched_job base;
	struct vagx_vm *vm;
	u32 count;
	struct vagx_bind_op *ops;
	struct vagx_bind_op *cur;
	struct list_head returned_vmas;
	bool inject_fail;
	/*
	 * The TLB invalidation after applying failed: the device may still
	 * use the pages of @returned_vmas, which are quarantined instead of
	 * unpinned.
	 */
	bool tlb_failed;
};

/**
 * vagx_vm_root_gem() - The GEM object holding the VM's reservation object
 * @vm: VM.
 *
 * Return: the resv GEM object (not referenced).
 */
struct drm_gem_object *vagx_vm_root_gem(struct vagx_vm *vm)
{
	return drm_gpuvm_resv_obj(&vm->base);
}

/**
 * vagx_vm_root_dma() - Bus address of the level-0 page table
 * @vm: VM.
 *
 * Return: the address to put in job headers.
 */
u64 vagx_vm_root_dma(struct vagx_vm *vm)
{
	return vagx_pgtable_root(&vm->pgt);
}

/**
 * vagx_vm_get() - Take a user reference on a VM
 * @vm: VM.
 *
 * Return: @vm.
 */
struct vagx_vm *vagx_vm_get(struct vagx_vm *vm)
{
	kref_get(&vm->users);
	return vm;
}

static void vagx_vm_users_release(struct kref *kref)
{
	struct vagx_vm *vm = container_of(kref, struct vagx_vm, users);

	queue_work(vm->vdev->release_wq, &vm->release_work);
}

/**
 * vagx_vm_put() - Drop a user reference on a VM
 * @vm: VM or NULL.
 */
void vagx_vm_put(struct vagx_vm *vm)
{
	if (vm)
		kref_put(&vm->users, vagx_vm_users_release);
}

/**
 * vagx_vm_lookup() - Find a VM of a file and take a user reference
 * @vfile: File.
 * @id: VM id.
 *
 * Return: the VM or NULL.
 */
struct vagx_vm *vagx_vm_lookup(struct vagx_file *vfile, u32 id)
{
	struct vagx_vm *vm;

	xa_lock(&vfile->vms);
	vm = xa_load(&vfile->vms, id);
	if (vm)
		vagx_vm_get(vm);
	xa_unlock(&vfile->vms);
	return vm;
}

/* The page tables went in vagx_vm_release_work(), before this. */
static void vagx_vm_free(struct drm_gpuvm *gpuvm)
{
	struct vagx_vm *vm = to_vagx_vm(gpuvm);

	mutex_destroy(&vm->op_lock);
	kfree(vm);
}

/*
 * Drop a vm_bo reference; if that destroyed it, release the pin it held.
 * Never called with op_lock or a resv held.
 */
static void vagx_vm_bo_put(struct drm_gpuvm_bo *vm_bo)
{
	struct drm_gem_object *obj = vm_bo->obj;
	struct vagx_bo *bo = to_vagx_bo(obj);
	struct drm_gpuvm *gpuvm = vm_bo->vm;
	bool unpin;

	drm_gem_object_get(obj);
	drm_gpuvm_get(gpuvm);
	mutex_lock(&bo->gpuva_list_lock);
	unpin = drm_gpuvm_bo_put(vm_bo);
	mutex_unlock(&bo->gpuva_list_lock);
	if (unpin && !obj->import_attach && !to_vagx_vm(gpuvm)->kernel)
		drm_gem_shmem_unpin(&bo->base);
	drm_gpuvm_put(gpuvm);
	drm_gem_object_put(obj);
}

static struct vagx_vma *vagx_bind_take_vma(struct vagx_bind_job *job)
{
	struct vagx_bind_op *op = job->cur;
	int i;

	for (i = 0; i < ARRAY_SIZE(op->new_vma); i++) {
		struct vagx_vma *vma = op->new_vma[i];

		if (vma) {
			op->new_vma[i] = NULL;
			return vma;
		}
	}
	return NULL;
}

static void vagx_vma_link(struct vagx_vma *vma, struct drm_gpuvm_bo *vm_bo)
{
	struct vagx_bo *bo = to_vagx_bo(vm_bo->obj);

	mutex_lock(&bo->gpuva_list_lock);
	drm_gpuva_link(&vma->base, vm_bo);
	mutex_unlock(&bo->gpuva_list_lock);
}

/* Unlink, keeping a vm_bo reference until the TLB has been invalidated. */
static void vagx_vma_unlink(struct vagx_bind_job *job, struct vagx_vma *vma)
{
	struct drm_gpuvm_bo *vm_bo = vma->base.vm_bo;

	if (vma->base.gem.obj) {
		struct vagx_bo *bo = to_vagx_bo(vma->base.gem.obj);

		drm_gpuvm_bo_get(vm_bo);
		mutex_lock(&bo->gpuva_list_lock);
		drm_gpuva_unlink(&vma->base);
		mutex_unlock(&bo->gpuva_list_lock);
		vma->base.vm_bo = vm_bo;
	}
	list_add_tail(&vma->node, &job->returned_vmas);
}

static void vagx_vma_write_ptes(struct vagx_vm *vm, struct vagx_vma *vma,
				struct sg_table *sgt)
{
	u64 va = vma->base.va.addr, range = vma->base.va.range;

	if (vma->flags & VAGX_VMA_NULL)
		vagx_pgtable_set_range(&vm->pgt, va, range,
				       vagx_pte_null());
	else
		vagx_pt_map_sgt(vm, va, range, sgt, vma->base.gem.offset,
				vma->flags & VAGX_VMA_READONLY,
				vma->flags & VAGX_VMA_NO_EXEC);
}

static int vagx_sm_step_map(struct drm_gpuva_op *op, void *priv)
{
	struct vagx_bind_job *job = priv;
	struct vagx_vm *vm = job->vm;
	struct vagx_vma *vma = vagx_bind_take_vma(job);

	if (drm_WARN_ON(&vm->vdev->drm, !vma))
		return -EINVAL;
	drm_gpuva_init_from_op(&vma->base, &op->map);
	vma->flags = job->cur->vma_flags;
	/* Overwrites the PTEs of what was there: atomic replacement. */
	vagx_vma_write_ptes(vm, vma, job->cur->sgt);
	drm_gpuva_map(&vm->base, &vma->base, &op->map);
	if (op->map.gem.obj)
		vagx_vma_link(vma, job->cur->vm_bo);
	return 0;
}

static int vagx_sm_step_remap(struct drm_gpuva_op *op, void *priv)
{
	struct vagx_bind_job *job = priv;
	struct vagx_vm *vm = job->vm;
	struct vagx_vma *old = to_vagx_vma(op->remap.unmap->va);
	struct vagx_vma *prev = NULL, *next = NULL;
	u64 start = old->base.va.addr;
	u64 end = start + old->base.va.range;

	if (op->remap.prev) {
		prev = vagx_bind_take_vma(job);
		if (drm_WARN_ON(&vm->vdev->drm, !prev))
			return -EINVAL;
		drm_gpuva_init_from_op(&prev->base, op->remap.prev);
		prev->flags = old->flags;
		start = prev->base.va.addr + prev->base.va.range;
	}
	if (op->remap.next) {
		next = vagx_bind_take_vma(job);
		if (drm_WARN_ON(&vm->vdev->drm, !next))
			return -EINVAL;
		drm_gpuva_init_from_op(&next->base, op->remap.next);
		next->flags = old->flags;
		end = next->base.va.addr;
	}

	/* A MAP or MAP_NULL overwrites the hole itself, atomically. */
	if (job->cur->op == DRM_VAGX_BIND_OP_UNMAP)
		vagx_pgtable_set_range(&vm->pgt, start, end - start, 0);

	drm_gpuva_remap(prev ? &prev->base : NULL, next ? &next->base : NULL,
			&op->remap);
	if (old->base.gem.obj) {
		if (prev)
			vagx_vma_link(prev, old->base.vm_bo);
		if (next)
			vagx_vma_link(next, old->base.vm_bo);
	}
	vagx_vma_unlink(job, old);
	return 0;
}

static int vagx_sm_step_unmap(struct drm_gpuva_op *op, void *priv)
{
	struct vagx_bind_job *job = priv;
	struct vagx_vma *vma = to_vagx_vma(op->unmap.va);

	if (job->cur->op == DRM_VAGX_BIND_OP_UNMAP)
		vagx_pgtable_set_range(&job->vm->pgt, vma->base.va.addr,
				       vma->base.va.range, 0);
	drm_gpuva_unmap(&op->unmap);
	vagx_vma_unlink(job, vma);
	return 0;
}

static const struct drm_gpuvm_ops vagx_gpuvm_ops = {
	.vm_free = vagx_vm_free,
	.sm_step_map = vagx_sm_step_map,
	.sm_step_remap = vagx_sm_step_remap,
	.sm_step_unmap = vagx_sm_step_unmap,
};

/*
 * Invalidate the VM's TLB (vagx_device_tlb_invalidate()). The scanout's
 * kernel VM is unmapped from when the fbdev framebuffer is destroyed inside
 * drm_dev_unplug(), before vagx_device_fini() could complete
 * vdev->quiesced: after an unplug it does not wait, as the scanout is off
 * (vagx_kms_fini() ran first) and nothing walks its tables.
 */
static int vagx_vm_tlb_invalidate(struct vagx_vm *vm)
{
	struct vagx_device *vdev = vm->vdev;
	int ret = 0, idx;

	if (!vm->kernel)
		return vagx_device_tlb_invalidate(vdev, vagx_vm_root_dma(vm),
						  0, 0);
	if (drm_dev_enter(&vdev->drm, &idx)) {
		ret = vagx_device_tlb_invalidate(vdev, vagx_vm_root_dma(vm),
						 0, 0);
		drm_dev_exit(idx);
	}
	return ret;
}

/* Drop the page-table reservation of an op, if it holds one (op_lock). */
static void vagx_bind_op_unreserve(struct vagx_vm *vm, struct vagx_bind_op *op)
{
	if (!op->pt_reserved)
		return;
	if (op->op == DRM_VAGX_BIND_OP_MAP)
		vagx_pgtable_unreserve(&vm->pgt, op->va, op->range);
	else
		vagx_pgtable_unreserve_edges(&vm->pgt, op->va, op->range,
					     op->pt_depth);
	op->pt_reserved = false;
}

/* Apply every op of a prepared bind, under vm->op_lock. Cannot fail. */
static void vagx_bind_apply_locked(struct vagx_bind_job *job)
{
	struct vagx_vm *vm = job->vm;
	LIST_HEAD(garbage);
	u32 i;
	int ret;

	lockdep_assert_held(&vm->op_lock);
	for (i = 0; i < job->count; i++) {
		struct vagx_bind_op *op = &job->ops[i];

		job->cur = op;
		if (op->op == DRM_VAGX_BIND_OP_UNMAP)
			ret = drm_gpuvm_sm_unmap(&vm->base, job, op->va,
						 op->range);
		else
			ret = drm_gpuvm_sm_map(&vm->base, job, op->va,
					       op->range, op->obj,
					       op->bo_offset);
		drm_WARN_ON(&vm->vdev->drm, ret);
	}
	job->cur = NULL;
	/*
	 * The bind's tables are populated now; drop its reservations and
	 * detach the tables its unmaps emptied. They are freed only after
	 * the TLB invalidation: until then the device may still walk them.
	 */
	for (i = 0; i < job->count; i++) {
		struct vagx_bind_op *op = &job->ops[i];

		vagx_bind_op_unreserve(vm, op);
		op->pt_touched = false;
		if (op->op == DRM_VAGX_BIND_OP_UNMAP)
			vagx_pgtable_prune(&vm->pgt, op->va, op->range,
					   &garbage);
	}
	ret = 0;
	if (job->count)
		ret = vagx_vm_tlb_invalidate(vm);
	/* -ENODEV: quiesced for good, nothing can use the pages any more. */
	job->tlb_failed = ret && ret != -ENODEV;
	vagx_pgtable_free_after_tlb(&vm->pgt, &garbage, ret);
}

static void vagx_bind_apply(struct vagx_bind_job *job)
{
	mutex_lock(&job->vm->op_lock);
	vagx_bind_apply_locked(job);
	mutex_unlock(&job->vm->op_lock);
}

/**
 * vagx_vm_free_quarantined_vmas() - Release quarantined mappings
 * @vdev: Device.
 * @vmas: Mappings taken off the quarantine, whose pages the device no
 *        longer reaches; empty afterwards. Their pins go with them.
 */
void vagx_vm_free_quarantined_vmas(struct vagx_device *vdev,
				   struct list_head *vmas)
{
	struct vagx_vma *vma, *vtmp;

	list_for_each_entry_safe(vma, vtmp, vmas, node) {
		list_del(&vma->node);
		vagx_vm_bo_put(vma->base.vm_bo);
		kfree(vma);
		atomic_dec(&vdev->quarantined_vmas);
	}
}

/*
 * Keep the pins of mappings a failed TLB invalidation may leave visible to
 * the device: the vm_bo references go to the device's quarantine, dropped
 * in vagx_mmu_quarantine_release().
 */
static void vagx_quarantine_vmas(struct vagx_device *vdev,
				 struct list_head *vmas)
{
	struct vagx_vma *vma, *tmp;
	LIST_HEAD(late);

	list_for_each_entry_safe(vma, tmp, vmas, node) {
		if (vma->base.vm_bo)
			continue;
		list_del(&vma->node);
		kfree(vma);
	}
	if (list_empty(vmas))
		return;
	list_for_each_entry(vma, vmas, node)
		atomic_inc(&vdev->quarantined_vmas);
	mutex_lock(&vdev->quarantine_lock);
	if (vdev->quarantine_closed) {
		list_splice_init(vmas, &late);
	} else {
		list_splice_tail_init(vmas, &vdev->quarantine_vmas);
		vagx_mmu_quarantine_kick(vdev);
	}
	mutex_unlock(&vdev->quarantine_lock);
	/* Quiesced for good meanwhile: release them now. */
	vagx_vm_free_quarantined_vmas(vdev, &late);
}

/* Release everything a bind holds; VMAs it unmapped lose their pins here. */
static void vagx_bind_cleanup(struct vagx_bind_job *job)
{
	struct vagx_vm *vm = job->vm;
	struct vagx_vma *vma, *tmp;
	LIST_HEAD(garbage);
	bool touched = false;
	u32 i;
	int j;

	/*
	 * A bind that was never applied: give its page tables back, and
	 * detach those a failed reservation allocated.
	 */
	for (i = 0; i < job->count; i++)
		touched |= job->ops[i].pt_touched;
	if (touched) {
		int ret = 0;

		mutex_lock(&vm->op_lock);
		for (i = 0; i < job->count; i++) {
			struct vagx_bind_op *op = &job->ops[i];

			if (!op->pt_touched)
				continue;
			vagx_bind_op_unreserve(vm, op);
			op->pt_touched = false;
			vagx_pgtable_prune(&vm->pgt, op->va, op->range,
					   &garbage);
		}
		/* The tables were linked, so the device may have walked them. */
		if (!list_empty(&garbage))
			ret = vagx_vm_tlb_invalidate(vm);
		vagx_pgtable_free_after_tlb(&vm->pgt, &garbage, ret);
		mutex_unlock(&vm->op_lock);
	}

	if (job->tlb_failed)
		vagx_quarantine_vmas(vm->vdev, &job->returned_vmas);
	list_for_each_entry_safe(vma, tmp, &job->returned_vmas, node) {
		if (vma->base.vm_bo)
			vagx_vm_bo_put(vma->base.vm_bo);
		kfree(vma);
	}
	for (i = 0; i < job->count; i++) {
		struct vagx_bind_op *op = &job->ops[i];

		for (j = 0; j < ARRAY_SIZE(op->new_vma); j++)
			kfree(op->new_vma[j]);
		if (op->vm_bo)
			vagx_vm_bo_put(op->vm_bo);
		if (op->obj)
			drm_gem_object_put(op->obj);
	}
	kvfree(job->ops);
	vagx_vm_put(job->vm);
	kfree(job);
}

/*
 * The pages and the <VM, BO> pair of a MAP of @op->obj. A user VM pins the
 * BO (its vm_bo owns the pin); a kernel VM uses the pages the shmem helper
 * gave the BO's sg table, which stay until the BO is freed.
 */
static int vagx_bind_prepare_bo(struct vagx_vm *vm, struct vagx_bind_op *op)
{
	struct vagx_bo *bo = to_vagx_bo(op->obj);
	bool pin = !op->obj->import_attach && !vm->kernel;
	struct drm_gpuvm_bo *prealloc;
	struct sg_table *sgt;
	int ret;

	/* Pin before taking any lock: pinning takes the BO's resv. */
	ret = vagx_bo_charge_pages(bo);
	if (ret)
		return ret;
	if (pin) {
		ret = drm_gem_shmem_pin(&bo->base);
		if (ret)
			return ret;
	}
	sgt = drm_gem_shmem_get_pages_sgt(&bo->base);
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
		goto err_unpin;
	}
	ret = vagx_sgt_check(sgt);
	if (ret)
		goto err_unpin;
	op->sgt = sgt;

	prealloc = drm_gpuvm_bo_create(&vm->base, op->obj);
	if (!prealloc) {
		ret = -ENOMEM;
		goto err_unpin;
	}
	mutex_lock(&bo->gpuva_list_lock);
	op->vm_bo = drm_gpuvm_bo_obtain_prealloc(prealloc);
	mutex_unlock(&bo->gpuva_list_lock);

	/*
	 * An existing <VM, BO> pair already holds a pin; ours goes away.
	 * Otherwise our vm_bo owns the pin until it is destroyed.
	 */
	if (op->vm_bo != prealloc && pin)
		drm_gem_shmem_unpin(&bo->base);
	return 0;

err_unpin:
	if (pin)
		drm_gem_shmem_unpin(&bo->base);
	return ret;
}

static int vagx_bind_prepare_map(struct vagx_vm *vm, struct drm_file *file,
				 const struct drm_vagx_vm_bind_op *uop,
				 struct vagx_bind_op *op)
{
	struct vagx_bo *bo;

	op->obj = drm_gem_object_lookup(file, uop->handle);
	if (!op->obj)
		return -ENOENT;
	bo = to_vagx_bo(op->obj);
	if (uop->bo_offset > op->obj->size ||
	    uop->range > op->obj->size - uop->bo_offset)
		return -EINVAL;
	if (bo->exclusive_vm_root_gem &&
	    bo->exclusive_vm_root_gem != vagx_vm_root_gem(vm))
		return -EINVAL;
	return vagx_bind_prepare_bo(vm, op);
}

static int vagx_bind_check_op(struct vagx_device *vdev, struct vagx_vm *vm,
			      const struct drm_vagx_vm_bind_op *uop)
{
	if (uop->pad)
		return -EINVAL;
	if (uop->flags & ~DRM_VAGX_BIND_OP_READONLY)
		return -EINVAL;
	switch (uop->op) {
	case DRM_VAGX_BIND_OP_MAP:
		break;
	case DRM_VAGX_BIND_OP_MAP_NULL:
	case DRM_VAGX_BIND_OP_UNMAP:
		if (uop->flags || uop->handle || uop->bo_offset)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (!uop->range || !IS_ALIGNED(uop->va | uop->range | uop->bo_offset,
				       VAGX_PAGE_SIZE))
		return -EINVAL;
	if (uop->va < VAGX_USER_VA_START || uop->va > VAGX_USER_VA_END ||
	    uop->range > VAGX_USER_VA_END - uop->va)
		return -EINVAL;
	if (uop->op == DRM_VAGX_BIND_OP_MAP_NULL &&
	    !VAGX_FEATURES_SPARSE_NULL_GET(vdev->hw_features))
		return -EOPNOTSUPP;
	if (uop->op != DRM_VAGX_BIND_OP_UNMAP && vm->unusable)
		return -ECANCELED;
	return 0;
}

/* Preallocate the VMAs an op may need: its own, a remap's prev and next. */
static int vagx_bind_alloc_vmas(struct vagx_bind_op *op)
{
	int j;

	for (j = 0; j < ARRAY_SIZE(op->new_vma); j++) {
		op->new_vma[j] = kzalloc(sizeof(*op->new_vma[j]), GFP_KERNEL);
		if (!op->new_vma[j])
			return -ENOMEM;
	}
	return 0;
}

/* Reserve the page tables of every op of a bind; @failed as for prepare. */
static int vagx_bind_reserve(struct vagx_vm *vm, struct vagx_bind_job *job,
			     u32 *failed)
{
	u32 i;
	int ret;

	ret = mutex_lock_interruptible(&vm->op_lock);
	if (ret) {
		*failed = DRM_VAGX_NO_FAILED_INDEX;
		return ret;
	}
	for (i = 0; i < job->count; i++) {
		struct vagx_bind_op *op = &job->ops[i];

		*failed = i;
		op->pt_touched = true;
		/*
		 * A MAP needs every leaf table of its range. MAP_NULL and
		 * UNMAP write (or clear) one entry per whole block: they need
		 * tables only at their ends, where they may also split a
		 * block that one NULL entry maps.
		 */
		if (op->op == DRM_VAGX_BIND_OP_MAP)
			ret = vagx_pgtable_reserve(&vm->pgt, op->va,
						   op->range);
		else
			ret = vagx_pgtable_reserve_edges(&vm->pgt, op->va,
							 op->range,
							 op->pt_depth);
		if (ret)
			break;
		op->pt_reserved = true;
	}
	mutex_unlock(&vm->op_lock);
	return ret;
}

/*
 * Validate every op, look up and pin the BOs, preallocate the VMAs and the
 * page tables. Nothing is visible to userspace or the device yet.
 */
static int vagx_bind_prepare(struct vagx_vm *vm, struct drm_file *file,
			     const struct drm_vagx_vm_bind_op *uops, u32 count,
			     struct vagx_bind_job *job, u32 *failed)
{
	struct vagx_device *vdev = vm->vdev;
	u32 i;
	int ret;

	job->ops = kvcalloc(count, sizeof(*job->ops), GFP_KERNEL);
	if (count && !job->ops)
		return -ENOMEM;

	for (i = 0; i < count; i++) {
		const struct drm_vagx_vm_bind_op *uop = &uops[i];
		struct vagx_bind_op *op = &job->ops[i];

		*failed = i;
		/* Counted so that cleanup sees every initialised op. */
		job->count = i + 1;
		ret = vagx_bind_check_op(vdev, vm, uop);
		if (ret)
			return ret;
		op->op = uop->op;
		op->va = uop->va;
		op->range = uop->range;
		op->bo_offset = uop->bo_offset;
		if (uop->flags & DRM_VAGX_BIND_OP_READONLY)
			op->vma_flags |= VAGX_VMA_READONLY;
		if (uop->op == DRM_VAGX_BIND_OP_MAP_NULL)
			op->vma_flags |= VAGX_VMA_NULL;
		if (uop->op == DRM_VAGX_BIND_OP_MAP) {
			ret = vagx_bind_prepare_map(vm, file, uop, op);
			if (ret)
				return ret;
		}
		ret = vagx_bind_alloc_vmas(op);
		if (ret)
			return ret;
		if (atomic_add_unless(&vdev->inject_bind_prep_fail, -1, 0))
			return -ENOMEM;
	}

	return vagx_bind_reserve(vm, job, failed);
}

static struct vagx_bind_job *vagx_bind_job_alloc(struct vagx_vm *vm, gfp_t gfp)
{
	struct vagx_bind_job *job;

	job = kzalloc(sizeof(*job), gfp);
	if (!job)
		return NULL;
	job->vm = vagx_vm_get(vm);
	INIT_LIST_HEAD(&job->returned_vmas);
	return job;
}

static struct dma_fence *vagx_bind_run_job(struct drm_sched_job *sched_job)
{
	struct vagx_bind_job *job = container_of(sched_job,
						 struct vagx_bind_job, base);

	if (job->inject_fail) {
		/* Debugfs fault injection: the VM content is now unknown. */
		job->vm->unusable = true;
		return ERR_PTR(-EIO);
	}
	vagx_bind_apply(job);
	/* Synchronous: the finished fence signals when we return. */
	return NULL;
}

static enum drm_gpu_sched_stat
vagx_bind_timedout_job(struct drm_sched_job *sched_job)
{
	WARN(1, "vagx: async binds run synchronously in run_job\n");
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

static void vagx_bind_free_job(struct drm_sched_job *sched_job)
{
	struct vagx_bind_job *job = container_of(sched_job,
						 struct vagx_bind_job, base);

	drm_sched_job_cleanup(sched_job);
	vagx_bind_cleanup(job);
}

static const struct drm_sched_backend_ops vagx_bind_sched_ops = {
	.run_job = vagx_bind_run_job,
	.timedout_job = vagx_bind_timedout_job,
	.free_job = vagx_bind_free_job,
};

static bool vagx_vm_binds_pending(struct vagx_vm *vm)
{
	lockdep_assert_held(&vm->op_lock);
	return vm->last_bind && !dma_fence_is_signaled(vm->last_bind);
}

static int vagx_bind_submit_async(struct vagx_vm *vm, struct drm_file *file,
				  struct vagx_bind_job *job,
				  const struct drm_vagx_obj_array *syncs)
{
	struct vagx_device *vdev = vm->vdev;
	struct vagx_sync_op *sops = NULL;
	u32 nsyncs = 0;
	int ret;

	ret = vagx_syncs_parse(file, syncs, &sops, &nsyncs);
	if (ret)
		return ret;

	ret = drm_sched_job_init(&job->base, &vm->bind_entity, 1, vm);
	if (ret)
		goto err_syncs;
	ret = vagx_syncs_add_deps(&job->base, sops, nsyncs);
	if (ret)
		goto err_job;

	mutex_lock(&vm->op_lock);
	job->inject_fail = atomic_add_unless(&vdev->inject_bind_fail, -1, 0);
	drm_sched_job_arm(&job->base);
	dma_fence_put(vm->last_bind);
	vm->last_bind = dma_fence_get(&job->base.s_fence->finished);
	vagx_syncs_signal(sops, nsyncs, &job->base.s_fence->finished);
	drm_sched_entity_push_job(&job->base);
	mutex_unlock(&vm->op_lock);
	vagx_syncs_free(sops, nsyncs);
	return 0;

err_job:
	drm_sched_job_cleanup(&job->base);
err_syncs:
	vagx_syncs_free(sops, nsyncs);
	return ret;
}

/**
 * vagx_vm_bind() - Prepare and apply (or queue) the ops of a VM_BIND
 * @vm: VM (the caller holds a user reference).
 * @file: DRM file: BO handles and syncobjs.
 * @uops: The ops, copied from userspace.
 * @count: Number of @uops.
 * @async: Queue an async bind job that waits for the wait syncs of @syncs.
 * @syncs: Syncs of an async bind.
 * @failed: Out: index of the op whose validation or preparation failed;
 *          left alone otherwise.
 *
 * Return: 0 or a negative errno; on error the VM is unchanged.
 */
int vagx_vm_bind(struct vagx_vm *vm, struct drm_file *file,
		 const struct drm_vagx_vm_bind_op *uops, u32 count, bool async,
		 const struct drm_vagx_obj_array *syncs, u32 *failed)
{
	u32 failed_op = DRM_VAGX_NO_FAILED_INDEX;
	struct vagx_bind_job *job;
	int ret;

	job = vagx_bind_job_alloc(vm, GFP_KERNEL);
	if (!job)
		return -ENOMEM;
	ret = vagx_bind_prepare(vm, file, uops, count, job, &failed_op);
	if (ret) {
		*failed = failed_op;
		vagx_bind_cleanup(job);
		return ret;
	}

	if (async) {
		ret = vagx_bind_submit_async(vm, file, job, syncs);
		if (ret)
			vagx_bind_cleanup(job);
		return ret;
	}

	/*
	 * Check and apply under one hold of op_lock: an async bind pushed in
	 * between would otherwise be overtaken by this one.
	 */
	ret = mutex_lock_interruptible(&vm->op_lock);
	if (!ret) {
		if (vagx_vm_binds_pending(vm))
			ret = -EBUSY;
		else
			vagx_bind_apply_locked(job);
		mutex_unlock(&vm->op_lock);
	}
	vagx_bind_cleanup(job);
	return ret;
}

/*
 * Unmap [@va, @va + @range), which splits no mapping (each is removed
 * whole: no VMA allocation, no table to reserve), and invalidate the VM's
 * TLB. Returns the result of the invalidation (-ENODEV counts as done), or
 * -ENOMEM if the mappings could not be removed (none was then).
 */
static int vagx_vm_unmap_whole(struct vagx_vm *vm, u64 va, u64 range,
			       gfp_t gfp)
{
	struct vagx_bind_job *job;
	int ret = -ENOMEM;

	job = vagx_bind_job_alloc(vm, gfp);
	if (!job)
		return ret;
	job->ops = kvcalloc(1, sizeof(*job->ops), gfp);
	if (job->ops) {
		job->count = 1;
		job->ops[0].op = DRM_VAGX_BIND_OP_UNMAP;
		job->ops[0].va = va;
		job->ops[0].range = range;
		vagx_bind_apply(job);
		/* Applying invalidated the whole VM (-ENODEV counts as done). */
		ret = job->tlb_failed ? -EIO : 0;
	}
	/* Drops the job's user reference; this is not the last one. */
	vagx_bind_cleanup(job);
	return ret;
}

/*
 * Unmap everything and invalidate the VM's TLB. An empty VM is invalidated
 * too: an earlier invalidation that failed may have left translations
 * under its root. Returns the result of the invalidation, or -ENOMEM if
 * the mappings could not be removed (none was then).
 */
static int vagx_vm_unmap_all(struct vagx_vm *vm)
{
	struct drm_gpuva *va;
	u32 n = 0;

	drm_gpuvm_for_each_va(va, &vm->base)
		n++;
	if (!n)
		return vagx_vm_tlb_invalidate(vm);
	return vagx_vm_unmap_whole(vm, vm->base.mm_start, vm->base.mm_range,
				   GFP_KERNEL);
}

static void vagx_sched_drain(struct drm_gpu_scheduler *sched,
			     struct workqueue_struct *wq)
{
	for (;;) {
		bool empty;

		flush_workqueue(wq);
		spin_lock(&sched->job_list_lock);
		empty = list_empty(&sched->pending_list);
		spin_unlock(&sched->job_list_lock);
		if (empty)
			break;
		usleep_range(1000, 2000);
	}
}

static void vagx_vm_release_work(struct work_struct *work)
{
	struct vagx_vm *vm = container_of(work, struct vagx_vm, release_work);
	struct vagx_device *vdev = vm->vdev;
	int ret;

	mutex_lock(&vdev->vms_lock);
	list_del(&vm->node);
	mutex_unlock(&vdev->vms_lock);

	/* No user left: no bind can be queued any more. */
	drm_sched_entity_destroy(&vm->bind_entity);
	vagx_sched_drain(&vm->bind_sched, vdev->bind_wq);
	drm_sched_fini(&vm->bind_sched);
	dma_fence_put(vm->last_bind);
	vm->last_bind = NULL;

	/* Temporarily revive the user count for the teardown bind. */
	kref_init(&vm->users);
	/*
	 * A kernel VM is put once every mapping is gone and the device is
	 * quiesced for good (vagx_kms_release()): nothing to invalidate.
	 */
	ret = vm->kernel ? 0 : vagx_vm_unmap_all(vm);
	/*
	 * Nothing runs on the VM any more. Its root is freed only if the
	 * invalidation completed: else the device may hold translations
	 * under that page, which a new VM could get as its root.
	 */
	vagx_pgtable_fini_after_tlb(&vm->pgt, ret);
	drm_gpuvm_put(&vm->base);
}

static struct vagx_vm *vagx_vm_create(struct vagx_device *vdev,
				      struct vagx_pt_budget *budget,
				      u64 va_start, u64 va_size, bool kernel)
{
	struct drm_gem_object *r_obj;
	struct vagx_vm *vm;
	int ret;

	vm = kzalloc(sizeof(*vm), GFP_KERNEL);
	if (!vm)
		return ERR_PTR(-ENOMEM);
	vm->vdev = vdev;
	vm->kernel = kernel;
	INIT_LIST_HEAD(&vm->node);
	kref_init(&vm->users);
	INIT_WORK(&vm->release_work, vagx_vm_release_work);
	mutex_init(&vm->op_lock);
	spin_lock_init(&vm->fault_lock);
	atomic_set(&vm->queue_count, 0);

	ret = vagx_pgtable_init(&vm->pgt, vdev, budget);
	if (ret)
		goto err_free;

	ret = drm_sched_init(&vm->bind_sched, &vagx_bind_sched_ops,
			     vdev->bind_wq, 1, 64, 0, MAX_SCHEDULE_TIMEOUT,
			     NULL, NULL, "vagx-bind", vdev->drm.dev);
	if (ret)
		goto err_pt;
	{
		struct drm_gpu_scheduler *sched = &vm->bind_sched;

		ret = drm_sched_entity_init(&vm->bind_entity,
					    DRM_SCHED_PRIORITY_KERNEL, &sched,
					    1, NULL);
	}
	if (ret)
		goto err_sched;

	r_obj = drm_gpuvm_resv_object_alloc(&vdev->drm);
	if (!r_obj) {
		ret = -ENOMEM;
		goto err_entity;
	}
	drm_gpuvm_init(&vm->base, "vagx-vm", 0, &vdev->drm, r_obj,
		       va_start, va_size, 0, 0, &vagx_gpuvm_ops);
	/* drm_gpuvm holds its own reference to the resv object. */
	drm_gem_object_put(r_obj);

	/* debugfs lists the VMs of files. */
	if (!kernel) {
		mutex_lock(&vdev->vms_lock);
		list_add_tail(&vm->node, &vdev->vms);
		mutex_unlock(&vdev->vms_lock);
	}
	return vm;

err_entity:
	drm_sched_entity_destroy(&vm->bind_entity);
err_sched:
	drm_sched_fini(&vm->bind_sched);
err_pt:
	vagx_pgtable_fini(&vm->pgt);
err_free:
	mutex_destroy(&vm->op_lock);
	kfree(vm);
	return ERR_PTR(ret);
}

/**
 * vagx_vm_create_kernel() - Create a kernel-owned VM
 * @vdev: Device.
 * @va_start: Start of its VA range.
 * @va_size: Size of its VA range.
 *
 * An ordinary VM (the scanout's, vagx_kms.c) that no file sees: its page
 * tables are charged to no budget, its BOs are not pinned (a mapping uses
 * the pages of the BO's sg table, kept until the BO is freed), and after
 * an unplug its unmaps do not wait for the device to be quiesced. It is
 * mapped with vagx_vm_map_kernel() and vagx_vm_unmap_kernel(), and put
 * (vagx_vm_put()) once every mapping is gone and the device is quiesced
 * for good.
 *
 * Return: the VM (one user reference) or an ERR_PTR.
 */
struct vagx_vm *vagx_vm_create_kernel(struct vagx_device *vdev, u64 va_start,
				      u64 va_size)
{
	return vagx_vm_create(vdev, NULL, va_start, va_size, true);
}

/* Bytes the DMA segments of @sgt hold. */
static u64 vagx_sgt_dma_size(struct sg_table *sgt)
{
	struct scatterlist *sg;
	u64 size = 0;
	int i;

	for_each_sgtable_dma_sg(sgt, sg, i)
		size += sg_dma_len(sg);
	return size;
}

/**
 * vagx_vm_map_kernel() - Map a whole BO into a kernel VM
 * @vm: Kernel VM.
 * @obj: The BO.
 * @va: Where, page-aligned, in a range the caller allocated.
 * @size: Size of the mapping: the BO's size.
 * @read_only: The device may only read.
 * @no_exec: The device may not fetch instructions.
 *
 * A bind of one MAP, prepared and applied as VM_BIND does.
 *
 * Return: 0, -EINVAL (the BO's pages do not fill @size, or are not whole
 * pages) or another negative errno; nothing is mapped on error.
 */
int vagx_vm_map_kernel(struct vagx_vm *vm, struct drm_gem_object *obj,
		       u64 va, u64 size, bool read_only, bool no_exec)
{
	struct vagx_bind_job *job;
	struct vagx_bind_op *op;
	u32 failed;
	int ret = -ENOMEM;

	job = vagx_bind_job_alloc(vm, GFP_KERNEL);
	if (!job)
		return ret;
	job->ops = kvcalloc(1, sizeof(*job->ops), GFP_KERNEL);
	if (!job->ops)
		goto out;
	job->count = 1;
	op = &job->ops[0];
	op->op = DRM_VAGX_BIND_OP_MAP;
	op->va = va;
	op->range = size;
	if (read_only)
		op->vma_flags |= VAGX_VMA_READONLY;
	if (no_exec)
		op->vma_flags |= VAGX_VMA_NO_EXEC;
	drm_gem_object_get(obj);
	op->obj = obj;
	ret = vagx_bind_prepare_bo(vm, op);
	if (!ret && vagx_sgt_dma_size(op->sgt) < size)
		ret = -EINVAL;
	if (!ret)
		ret = vagx_bind_alloc_vmas(op);
	if (!ret)
		ret = vagx_bind_reserve(vm, job, &failed);
	if (!ret)
		vagx_bind_apply(job);
out:
	vagx_bind_cleanup(job);
	return ret;
}

/**
 * vagx_vm_unmap_kernel() - Remove a mapping of vagx_vm_map_kernel()
 * @vm: Kernel VM.
 * @va: Its address.
 * @size: Its size.
 *
 * Once the TLB invalidation that follows completes, the BO's pages and the
 * tables freed are no longer used; if it fails, the mapping (and with it
 * a reference to the BO) and the tables are quarantined until a recovery
 * or the device's removal (vagx_mmu_quarantine_work()).
 */
void vagx_vm_unmap_kernel(struct vagx_vm *vm, u64 va, u64 size)
{
	vagx_vm_unmap_whole(vm, va, size, GFP_KERNEL | __GFP_NOFAIL);
}

/**
 * vagx_file_vm_create() - Create a VM and give it an id in a file
 * @vfile: File; the VM's page tables are charged to its budget.
 * @id: Out: the VM id.
 *
 * Return: 0 or a negative errno.
 */
int vagx_file_vm_create(struct vagx_file *vfile, u32 *id)
{
	struct vagx_vm *vm;
	u32 vm_id;
	int ret;

	vm = vagx_vm_create(vfile->vdev, vfile->pt_budget, VAGX_USER_VA_START,
			    VAGX_USER_VA_END - VAGX_USER_VA_START, false);
	if (IS_ERR(vm))
		return PTR_ERR(vm);

	ret = xa_alloc(&vfile->vms, &vm_id, vm,
		       XA_LIMIT(1, VAGX_MAX_VMS_PER_FILE), GFP_KERNEL);
	if (ret) {
		vagx_vm_put(vm);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	vm->id = vm_id;
	*id = vm_id;
	return 0;
}

/**
 * vagx_file_vm_destroy() - Drop the id of a VM without queues
 * @vfile: File.
 * @id: VM id.
 *
 * Return: 0, -ENOENT or -EBUSY (queues still use the VM).
 */
int vagx_file_vm_destroy(struct vagx_file *vfile, u32 id)
{
	struct vagx_vm *vm;
	int ret = 0;

	mutex_lock(&vfile->lock);
	vm = xa_load(&vfile->vms, id);
	if (!vm)
		ret = -ENOENT;
	else if (atomic_read(&vm->queue_count))
		ret = -EBUSY;
	else
		xa_erase(&vfile->vms, id);
	mutex_unlock(&vfile->lock);

	if (!ret)
		vagx_vm_put(vm);
	return ret;
}

/**
 * vagx_vm_get_state() - Usability and faults of a VM (VM_GET_STATE)
 * @vm: VM.
 * @args: Filled: state, last_fault and fault_count.
 */
void vagx_vm_get_state(struct vagx_vm *vm, struct drm_vagx_vm_get_state *args)
{
	unsigned long flags;

	args->state = READ_ONCE(vm->unusable) ? DRM_VAGX_VM_STATE_UNUSABLE :
						 DRM_VAGX_VM_STATE_USABLE;
	/* The IRQ handler records faults: keep interrupts off. */
	spin_lock_irqsave(&vm->fault_lock, flags);
	args->last_fault = vm->last_fault;
	args->fault_count = vm->fault_count;
	spin_unlock_irqrestore(&vm->fault_lock, flags);
}

/**
 * vagx_vm_record_fault() - Record an MMU fault in a VM
 * @vm: VM.
 * @fault: Decoded fault.
 */
void vagx_vm_record_fault(struct vagx_vm *vm,
			  const struct drm_vagx_fault_info *fault)
{
	unsigned long flags;

	spin_lock_irqsave(&vm->fault_lock, flags);
	vm->last_fault = *fault;
	vm->fault_count++;
	spin_unlock_irqrestore(&vm->fault_lock, flags);
}

/**
 * vagx_file_release_vms() - Drop every VM id of a closing file
 * @vfile: File.
 */
void vagx_file_release_vms(struct vagx_file *vfile)
{
	struct vagx_vm *vm;
	unsigned long id;

	xa_for_each(&vfile->vms, id, vm) {
		xa_erase(&vfile->vms, id);
		vagx_vm_put(vm);
	}
}

/**
 * vagx_vm_debugfs_show() - List the VMs and their mappings
 * @vdev: Device.
 * @m: seq_file.
 */
void vagx_vm_debugfs_show(struct vagx_device *vdev, struct seq_file *m)
{
	struct vagx_vm *vm;
	struct drm_gpuva *va;

	mutex_lock(&vdev->vms_lock);
	list_for_each_entry(vm, &vdev->vms, node) {
		dma_addr_t root = vagx_vm_root_dma(vm);

		seq_printf(m, "vm %u: root %pad pt_pages %d unusable %d faults %u queues %d\n",
			   vm->id, &root, atomic_read(&vm->pgt.pages),
			   vm->unusable, vm->fault_count,
			   atomic_read(&vm->queue_count));
		mutex_lock(&vm->op_lock);
		drm_gpuvm_for_each_va(va, &vm->base) {
			struct vagx_vma *vma = to_vagx_vma(va);

			seq_printf(m, "  [%#014llx-%#014llx) %s obj %p off %#llx%s\n",
				   va->va.addr, va->va.addr + va->va.range,
				   vma->flags & VAGX_VMA_NULL ? "null" : "bo",
				   va->gem.obj, va->gem.offset,
				   vma->flags & VAGX_VMA_READONLY ? " ro" : "");
		}
		mutex_unlock(&vm->op_lock);
	}
	mutex_unlock(&vdev->vms_lock);
}
