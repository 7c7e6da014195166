// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (C) 2025 The vagx authors */

#include <linux/dma-buf.h>
#include <linux/slab.h>

#include <drm/drm_prime.h>
#include <drm/drm_print.h>

#include "vagx_drm.h"
#include "vagx_device.h"
#include "vagx_gem.h"
#include "vagx_mmu.h"

static void vagx_gem_free(struct drm_gem_object *obj)
{
	struct vagx_bo *bo = to_vagx_bo(obj);
	struct vagx_device *vdev = to_vagx_device(obj->dev);
	struct drm_gem_object *vm_root_gem = bo->exclusive_vm_root_gem;

	mutex_lock(&vdev->objs_lock);
	list_del(&bo->node);
	mutex_unlock(&vdev->objs_lock);

	kfree(bo->label);
	mutex_destroy(&bo->label_lock);
	mutex_destroy(&bo->gpuva_list_lock);
	drm_gem_shmem_free(&bo->base);
	/* The resv we borrowed from the VM must outlive the shmem object. */
	if (vm_root_gem)
		drm_gem_object_put(vm_root_gem);
}

static struct dma_buf *vagx_gem_prime_export(struct drm_gem_object *obj,
					     int flags)
{
	/* VM-private BOs share the VM resv and cannot be shared. */
	if (to_vagx_bo(obj)->exclusive_vm_root_gem)
		return ERR_PTR(-EPERM);
	return drm_gem_prime_export(obj, flags);
}

static enum drm_gem_object_status vagx_gem_status(struct drm_gem_object *obj)
{
	struct drm_gem_shmem_object *shmem = to_drm_gem_shmem_obj(obj);
	enum drm_gem_object_status res = 0;

	if (obj->import_attach || shmem->pages)
		res |= DRM_GEM_OBJECT_RESIDENT;
	return res;
}

static size_t vagx_gem_rss(struct drm_gem_object *obj)
{
	struct drm_gem_shmem_object *shmem = to_drm_gem_shmem_obj(obj);

	return shmem->pages ? obj->size : 0;
}

static void vagx_gem_print_info(struct drm_printer *p, unsigned int indent,
				const struct drm_gem_object *obj)
{
	struct vagx_bo *bo = to_vagx_bo((struct drm_gem_object *)obj);

	drm_printf_indent(p, indent, "flags=%#x private=%d\n", bo->flags,
			  !!bo->exclusive_vm_root_gem);
	drm_gem_shmem_print_info(&bo->base, p, indent);
}

static const struct drm_gem_object_funcs vagx_gem_funcs = {
	.free = vagx_gem_free,
	.print_info = vagx_gem_print_info,
	.export = vagx_gem_prime_export,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = drm_gem_shmem_object_mmap,
	.status = vagx_gem_status,
	.rss = vagx_gem_rss,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

/**
 * vagx_gem_create_object() - &drm_driver.gem_create_object hook
 * @drm: DRM device.
 * @size: Size of the object.
 *
 * Also used for imported dma-bufs.
 *
 * Return: the new GEM object or an ERR_PTR().
 */
struct drm_gem_object *vagx_gem_create_object(struct drm_device *drm,
					      size_t size)
{
	struct vagx_device *vdev = to_vagx_device(drm);
	struct vagx_bo *bo;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);

	bo->base.base.funcs = &vagx_gem_funcs;
	bo->base.map_wc = true;
	mutex_init(&bo->gpuva_list_lock);
	mutex_init(&bo->label_lock);
	drm_gem_gpuva_set_lock(&bo->base.base, &bo->gpuva_list_lock);

	mutex_lock(&vdev->objs_lock);
	list_add_tail(&bo->node, &vdev->objs);
	mutex_unlock(&vdev->objs_lock);
	return &bo->base.base;
}

/**
 * vagx_bo_create_with_handle() - Create a BO and a handle to it
 * @file: DRM file.
 * @drm: DRM device.
 * @size: In: requested size; out: page-aligned size.
 * @flags: DRM_VAGX_BO_* flags, already validated.
 * @vm: VM the BO is private to, or NULL.
 * @handle: Out: GEM handle.
 *
 * Return: 0 or a negative errno.
 */
int vagx_bo_create_with_handle(struct drm_file *file, struct drm_device *drm,
			       u64 *size, u32 flags, struct vagx_vm *vm,
			       u32 *handle)
{
	struct drm_gem_shmem_object *shmem;
	struct vagx_bo *bo;
	int ret;

	shmem = drm_gem_shmem_create(drm, *size);
	if (IS_ERR(shmem))
		return PTR_ERR(shmem);

	bo = container_of(shmem, struct vagx_bo, base);
	bo->flags = flags;
	bo->base.map_wc = !(flags & DRM_VAGX_BO_WB_MMAP);

	if (vm) {
		bo->exclusive_vm_root_gem = vagx_vm_root_gem(vm);
		drm_gem_object_get(bo->exclusive_vm_root_gem);
		bo->base.base.resv = bo->exclusive_vm_root_gem->resv;
	}

	ret = drm_gem_handle_create(file, &shmem->base, handle);
	if (!ret)
		*size = shmem->base.size;

	/* Drop the creation reference: the handle holds one now. */
	drm_gem_object_put(&shmem->base);
	return ret;
}

/**
 * vagx_bo_set_label() - Replace the label of a BO
 * @bo: BO.
 * @label: kmalloc'ed string (ownership moves to the BO) or NULL.
 */
void vagx_bo_set_label(struct vagx_bo *bo, const char *label)
{
	const char *old;

	mutex_lock(&bo->label_lock);
	old = bo->label;
	bo->label = label;
	mutex_unlock(&bo->label_lock);
	kfree(old);
}
