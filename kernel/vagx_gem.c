// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (C) 2025 The vagx authors */

#include <linux/dma-buf.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/drm_prime.h>
#include <drm/drm_print.h>

#include "vagx_drm.h"
#include "vagx_device.h"
#include "vagx_gem.h"
#include "vagx_mmu.h"
#include "vagx_vm.h"

static void vagx_gem_free(struct drm_gem_object *obj)
{
	struct vagx_bo *bo = to_vagx_bo(obj);
	struct vagx_device *vdev = to_vagx_device(obj->dev);
	struct drm_gem_object *vm_root_gem = bo->exclusive_vm_root_gem;

	mutex_lock(&vdev->objs_lock);
	/* Empty if freed before vagx_bo_track() (creation failed late). */
	list_del(&bo->node);
	mutex_unlock(&vdev->objs_lock);
	if (bo->charged)
		atomic64_sub(obj->size, &vdev->resident_bytes);

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

/**
 * vagx_bo_charge_pages() - Count a BO's memory before it gets its pages
 * @bo: The BO (an imported one costs nothing: its pages are the exporter's).
 *
 * The shmem helper gives a BO all its pages at once (first mmap(), vmap,
 * VM mapping, scanout or dma-buf export), and without swap they stay in
 * memory until the BO is freed. Unbounded, one process could take all of
 * RAM with one large BO, and the OOM killer, which counts those pages as
 * nobody's, would end other processes and never free them (the guest
 * ioctl fuzzer did, with a 2 GiB dumb buffer put on a framebuffer). The
 * device's BOs may hold at most half of RAM in all: a BO is charged its
 * whole size the first time it needs pages, and stays charged until freed.
 *
 * Return: 0 or -ENOSPC (the budget would be exceeded; nothing charged).
 */
int vagx_bo_charge_pages(struct vagx_bo *bo)
{
	struct vagx_device *vdev = to_vagx_device(bo->base.base.dev);
	u64 limit = ((u64)totalram_pages() << PAGE_SHIFT) / 2;
	u64 size = bo->base.base.size;
	int ret = 0;

	if (bo->base.base.import_attach)
		return 0;
	spin_lock(&bo->charge_lock);
	if (!bo->charged) {
		if (atomic64_add_return(size, &vdev->resident_bytes) > limit) {
			atomic64_sub(size, &vdev->resident_bytes);
			ret = -ENOSPC;
		} else {
			bo->charged = true;
		}
	}
	spin_unlock(&bo->charge_lock);
	return ret;
}

/* The hooks below allocate a BO's pages: charge it first. */
static int vagx_gem_pin(struct drm_gem_object *obj)
{
	if (vagx_bo_charge_pages(to_vagx_bo(obj)))
		return -ENOMEM;
	return drm_gem_shmem_object_pin(obj);
}

static int vagx_gem_vmap(struct drm_gem_object *obj, struct iosys_map *map)
{
	if (vagx_bo_charge_pages(to_vagx_bo(obj)))
		return -ENOMEM;
	return drm_gem_shmem_object_vmap(obj, map);
}

static int vagx_gem_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	/* mmap(2) reports a lack of memory as ENOMEM. */
	if (vagx_bo_charge_pages(to_vagx_bo(obj)))
		return -ENOMEM;
	return drm_gem_shmem_object_mmap(obj, vma);
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
	.pin = vagx_gem_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = vagx_gem_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = vagx_gem_mmap,
	.status = vagx_gem_status,
	.rss = vagx_gem_rss,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

/**
 * vagx_gem_create_object() - &drm_driver.gem_create_object hook
 * @drm: DRM device.
 * @size: Size of the object.
 *
 * Also used for imported dma-bufs. The object is not on &vagx_device.objs
 * yet: when the shmem helper fails after this hook (shmem file, mmap
 * offset), it kfree()s the object without calling &drm_gem_object_funcs.free,
 * so only a fully created BO may be listed (vagx_bo_track()).
 *
 * Return: the new GEM object or an ERR_PTR().
 */
struct drm_gem_object *vagx_gem_create_object(struct drm_device *drm,
					      size_t size)
{
	struct vagx_bo *bo;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL_ACCOUNT);
	if (!bo)
		return ERR_PTR(-ENOMEM);

	bo->base.base.funcs = &vagx_gem_funcs;
	bo->base.map_wc = true;
	mutex_init(&bo->gpuva_list_lock);
	mutex_init(&bo->label_lock);
	spin_lock_init(&bo->charge_lock);
	drm_gem_gpuva_set_lock(&bo->base.base, &bo->gpuva_list_lock);
	INIT_LIST_HEAD(&bo->node);
	return &bo->base.base;
}

/* List a BO that was created successfully (debugfs vagx_bos). */
static void vagx_bo_track(struct vagx_bo *bo)
{
	struct vagx_device *vdev = to_vagx_device(bo->base.base.dev);

	mutex_lock(&vdev->objs_lock);
	list_add_tail(&bo->node, &vdev->objs);
	mutex_unlock(&vdev->objs_lock);
}

/**
 * vagx_gem_prime_import_sg_table() - &drm_driver.gem_prime_import_sg_table
 * @drm: DRM device.
 * @attach: dma-buf attachment.
 * @sgt: Pages of the dma-buf.
 *
 * Return: the new GEM object or an ERR_PTR().
 */
struct drm_gem_object *
vagx_gem_prime_import_sg_table(struct drm_device *drm,
			       struct dma_buf_attachment *attach,
			       struct sg_table *sgt)
{
	struct drm_gem_object *obj;

	obj = drm_gem_shmem_prime_import_sg_table(drm, attach, sgt);
	if (!IS_ERR(obj))
		vagx_bo_track(to_vagx_bo(obj));
	return obj;
}

/**
 * vagx_bo_max_size() - Largest BO the machine can back
 *
 * A BO's pages are pinned while it is mapped in a VM or scanned out, so it
 * can never be larger than RAM; the shmem helper also keeps one page
 * pointer per page in a kvmalloc()ed array, which must stay below INT_MAX
 * bytes (larger requests WARN).
 *
 * Return: the size in bytes.
 */
u64 vagx_bo_max_size(void)
{
	u64 pages = min_t(u64, totalram_pages(),
			  INT_MAX / sizeof(struct page *));

	return pages << PAGE_SHIFT;
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
 * Also the dumb-buffer path (vagx_kms_dumb_create()), so that every BO
 * the driver creates is listed only once it exists.
 *
 * Return: 0, -E2BIG (larger than vagx_bo_max_size()) or a negative errno.
 */
int vagx_bo_create_with_handle(struct drm_file *file, struct drm_device *drm,
			       u64 *size, u32 flags, struct vagx_vm *vm,
			       u32 *handle)
{
	struct drm_gem_shmem_object *shmem;
	struct vagx_bo *bo;
	int ret;

	if (*size > vagx_bo_max_size())
		return -E2BIG;
	shmem = drm_gem_shmem_create(drm, *size);
	if (IS_ERR(shmem))
		return PTR_ERR(shmem);

	bo = container_of(shmem, struct vagx_bo, base);
	vagx_bo_track(bo);
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
