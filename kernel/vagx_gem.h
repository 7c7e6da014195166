/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (C) 2025 The vagx authors */
#ifndef __VAGX_GEM_H__
#define __VAGX_GEM_H__

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>

#include <drm/drm_gem_shmem_helper.h>

struct dma_buf_attachment;
struct sg_table;
struct vagx_device;
struct vagx_vm;

/**
 * struct vagx_bo - A vagx buffer object
 */
struct vagx_bo {
	/** @base: shmem GEM object. */
	struct drm_gem_shmem_object base;
	/** @flags: DRM_VAGX_BO_* creation flags. */
	u32 flags;
	/**
	 * @exclusive_vm_root_gem: Resv object of the VM this BO is private
	 * to, or NULL.
	 */
	struct drm_gem_object *exclusive_vm_root_gem;
	/** @gpuva_list_lock: Protects the GEM's list of drm_gpuvm_bo. */
	struct mutex gpuva_list_lock;
	/** @label_lock: Protects @label. */
	struct mutex label_lock;
	/** @label: Debug label or NULL. */
	const char *label;
	/** @node: Entry in vagx_device::objs. */
	struct list_head node;
	/** @charge_lock: Serialises the first vagx_bo_charge_pages(). */
	spinlock_t charge_lock;
	/**
	 * @charged: The BO's size counts in vagx_device::resident_bytes
	 * (until it is freed).
	 */
	bool charged;
};

static inline struct vagx_bo *to_vagx_bo(struct drm_gem_object *obj)
{
	return container_of(to_drm_gem_shmem_obj(obj), struct vagx_bo, base);
}

struct drm_gem_object *vagx_gem_create_object(struct drm_device *drm,
					      size_t size);
struct drm_gem_object *
vagx_gem_prime_import_sg_table(struct drm_device *drm,
			       struct dma_buf_attachment *attach,
			       struct sg_table *sgt);
u64 vagx_bo_max_size(void);
int vagx_bo_create_with_handle(struct drm_file *file, struct drm_device *drm,
			       u64 *size, u32 flags, struct vagx_vm *vm,
			       u32 *handle);
int vagx_bo_charge_pages(struct vagx_bo *bo);
void vagx_bo_set_label(struct vagx_bo *bo, const char *label);

#endif /* __VAGX_GEM_H__ */
