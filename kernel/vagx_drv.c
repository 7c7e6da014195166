// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (C) 2025 The vagx authors */

#include <linux/capability.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include <drm/drm_auth.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>

#include "vagx_drm.h"
#include "vagx_device.h"
#include "vagx_gem.h"
#include "vagx_kms.h"
#include "vagx_mmu.h"
#include "vagx_vm.h"
#include "vagx_queue.h"
#include "vagx_ring.h"
#include "vagx_submit.h"
#include "vagx_sync.h"

#define VAGX_GPU_INFO_MIN_SIZE	offsetofend(struct drm_vagx_gpu_info, max_label_size)
#define VAGX_TIMESTAMP_MIN_SIZE	offsetofend(struct drm_vagx_timestamp, cpu_delta)
#define VAGX_PRIORITIES_MIN_SIZE offsetofend(struct drm_vagx_priorities, pad)

static u32 vagx_allowed_priorities(struct drm_file *file)
{
	u32 mask = BIT(DRM_VAGX_PRIORITY_LOW) | BIT(DRM_VAGX_PRIORITY_MEDIUM);

	if (capable(CAP_SYS_NICE) || drm_is_current_master(file))
		mask |= BIT(DRM_VAGX_PRIORITY_HIGH);
	return mask;
}

static void vagx_fill_gpu_info(struct vagx_device *vdev,
			       struct drm_vagx_gpu_info *info)
{
	memset(info, 0, sizeof(*info));
	info->gpu_id = vagx_read(vdev, VAGX_REG_ID);
	info->gpu_revision = vdev->hw_version;
	info->features = DRM_VAGX_FEATURE_ASYNC_BIND | DRM_VAGX_FEATURE_COHERENT;
	if (VAGX_FEATURES_SPARSE_NULL_GET(vdev->hw_features))
		info->features |= DRM_VAGX_FEATURE_MAP_NULL;
	if (VAGX_FEATURES_STREAM_OUT_GET(vdev->hw_features))
		info->features |= DRM_VAGX_FEATURE_STREAM_OUT;
	info->va_start = VAGX_USER_VA_START;
	info->va_end = VAGX_USER_VA_END;
	info->page_sizes = VAGX_PAGE_SIZE;
	info->sparse_granularity = VAGX_PAGE_SIZE;
	info->timestamp_frequency_hz = vdev->ts_freq;
	info->va_bits = VAGX_VA_BITS;
	info->queue_types = vagx_queue_types(vdev);
	info->num_hw_queues = vdev->num_rings;
	info->max_cmds_per_submit = VAGX_MAX_CMDS;
	info->max_syncs_per_array = VAGX_MAX_SYNCS;
	info->max_bind_ops = VAGX_MAX_BIND_OPS;
	info->num_cores = VAGX_CONFIG_NUM_CORES_GET(vdev->hw_config);
	info->simd_width = VAGX_SIMD_WIDTH;
	info->tile_width = VAGX_TILE_SIZE;
	info->tile_height = VAGX_TILE_SIZE;
	info->job_desc_alignment = VAGX_JOB_DESC_ALIGN;
	info->max_label_size = VAGX_MAX_LABEL;
}

static int vagx_query_timestamp(struct vagx_device *vdev,
				struct drm_vagx_timestamp *ts)
{
	u64 (*get)(void);
	u64 t0, t1;

	switch (ts->clockid) {
	case CLOCK_MONOTONIC:
		get = ktime_get_ns;
		break;
	case CLOCK_MONOTONIC_RAW:
		get = ktime_get_raw_ns;
		break;
	case CLOCK_REALTIME:
		get = ktime_get_real_ns;
		break;
	case CLOCK_BOOTTIME:
		get = ktime_get_boottime_ns;
		break;
	case CLOCK_TAI:
		get = ktime_get_clocktai_ns;
		break;
	default:
		return -EINVAL;
	}
	if (ts->timestamp_bits || ts->gpu_timestamp || ts->cpu_timestamp ||
	    ts->cpu_delta)
		return -EINVAL;

	preempt_disable();
	t0 = get();
	ts->gpu_timestamp = vagx_device_timestamp(vdev);
	t1 = get();
	preempt_enable();
	ts->cpu_timestamp = t0;
	ts->cpu_delta = t1 - t0;
	ts->timestamp_bits = 64;
	return 0;
}

static int vagx_ioctl_dev_query(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	struct vagx_device *vdev = to_vagx_device(drm);
	struct drm_vagx_dev_query *args = data;
	void __user *uptr = u64_to_user_ptr(args->pointer);
	union {
		struct drm_vagx_gpu_info info;
		struct drm_vagx_timestamp ts;
		struct drm_vagx_priorities prio;
	} u;
	size_t ksize, min;
	int ret, idx;

	switch (args->type) {
	case DRM_VAGX_DEV_QUERY_GPU_INFO:
		ksize = sizeof(u.info);
		min = VAGX_GPU_INFO_MIN_SIZE;
		break;
	case DRM_VAGX_DEV_QUERY_TIMESTAMP:
		ksize = sizeof(u.ts);
		min = VAGX_TIMESTAMP_MIN_SIZE;
		break;
	case DRM_VAGX_DEV_QUERY_PRIORITIES:
		ksize = sizeof(u.prio);
		min = VAGX_PRIORITIES_MIN_SIZE;
		break;
	default:
		return -EINVAL;
	}

	if (!args->pointer) {
		args->size = ksize;
		return 0;
	}
	if (args->size < min)
		return -EINVAL;
	/* Bounds the zero check of input and the zero fill of output. */
	if (args->size > VAGX_MAX_STRIDE)
		return -E2BIG;

	memset(&u, 0, sizeof(u));
	switch (args->type) {
	case DRM_VAGX_DEV_QUERY_GPU_INFO:
		/* Reads the ID register. */
		if (!drm_dev_enter(drm, &idx))
			return -ENODEV;
		vagx_fill_gpu_info(vdev, &u.info);
		drm_dev_exit(idx);
		break;
	case DRM_VAGX_DEV_QUERY_TIMESTAMP:
		ret = copy_struct_from_user(&u.ts, ksize, uptr, args->size);
		if (ret)
			return ret;
		if (!drm_dev_enter(drm, &idx))
			return -ENODEV;
		ret = vagx_query_timestamp(vdev, &u.ts);
		drm_dev_exit(idx);
		if (ret)
			return ret;
		break;
	case DRM_VAGX_DEV_QUERY_PRIORITIES:
		u.prio.allowed_mask = vagx_allowed_priorities(file);
		break;
	}

	if (copy_to_user(uptr, &u, min_t(size_t, ksize, args->size)))
		return -EFAULT;
	if (args->size > ksize &&
	    clear_user(uptr + ksize, args->size - ksize))
		return -EFAULT;
	return 0;
}

static int vagx_ioctl_bo_create(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	struct drm_vagx_bo_create *args = data;
	struct vagx_vm *vm = NULL;
	u64 size = args->size;
	int ret;

	if (args->pad)
		return -EINVAL;
	if (args->flags & ~(DRM_VAGX_BO_NO_MMAP | DRM_VAGX_BO_WB_MMAP))
		return -EINVAL;
	if ((args->flags & DRM_VAGX_BO_NO_MMAP) &&
	    (args->flags & DRM_VAGX_BO_WB_MMAP))
		return -EINVAL;
	if (!size || size > SIZE_MAX - PAGE_SIZE ||
	    size > (u64)U32_MAX << PAGE_SHIFT)
		return -EINVAL;
	size = PAGE_ALIGN(size);

	if (args->vm_id) {
		vm = vagx_vm_lookup(file->driver_priv, args->vm_id);
		if (!vm)
			return -ENOENT;
	}
	ret = vagx_bo_create_with_handle(file, drm, &size, args->flags, vm,
					 &args->handle);
	vagx_vm_put(vm);
	if (!ret)
		args->size = size;
	return ret;
}

static int vagx_ioctl_bo_mmap_offset(struct drm_device *drm, void *data,
				     struct drm_file *file)
{
	struct drm_vagx_bo_mmap_offset *args = data;
	struct drm_gem_object *obj;
	int ret;

	if (args->pad)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	if (!obj->import_attach &&
	    (to_vagx_bo(obj)->flags & DRM_VAGX_BO_NO_MMAP)) {
		ret = -EPERM;
		goto out;
	}
	ret = drm_gem_create_mmap_offset(obj);
	if (!ret)
		args->offset = drm_vma_node_offset_addr(&obj->vma_node);
out:
	drm_gem_object_put(obj);
	return ret;
}

static int vagx_ioctl_bo_set_label(struct drm_device *drm, void *data,
				   struct drm_file *file)
{
	struct drm_vagx_bo_set_label *args = data;
	struct drm_gem_object *obj;
	char *label = NULL;
	long len;

	if (args->pad)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;

	if (args->label) {
		label = kmalloc(VAGX_MAX_LABEL, GFP_KERNEL);
		if (!label) {
			drm_gem_object_put(obj);
			return -ENOMEM;
		}
		len = strncpy_from_user(label, u64_to_user_ptr(args->label),
					VAGX_MAX_LABEL);
		if (len < 0 || len == VAGX_MAX_LABEL) {
			kfree(label);
			drm_gem_object_put(obj);
			return len < 0 ? len : -E2BIG;
		}
	}
	vagx_bo_set_label(to_vagx_bo(obj), label);
	drm_gem_object_put(obj);
	return 0;
}

static int vagx_ioctl_vm_create(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	struct drm_vagx_vm_create *args = data;

	if (args->flags)
		return -EINVAL;
	return vagx_file_vm_create(file->driver_priv, &args->vm_id);
}

static int vagx_ioctl_vm_destroy(struct drm_device *drm, void *data,
				 struct drm_file *file)
{
	struct drm_vagx_vm_destroy *args = data;

	if (args->pad)
		return -EINVAL;
	return vagx_file_vm_destroy(file->driver_priv, args->vm_id);
}

static int vagx_ioctl_vm_bind(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	struct drm_vagx_vm_bind *args = data;
	struct drm_vagx_vm_bind_op *uops = NULL;
	bool async = args->flags & DRM_VAGX_VM_BIND_ASYNC;
	struct vagx_vm *vm;
	int ret;

	args->failed_op = DRM_VAGX_NO_FAILED_INDEX;
	if (args->pad || (args->flags & ~DRM_VAGX_VM_BIND_ASYNC))
		return -EINVAL;
	if (!async && args->syncs.count)
		return -EINVAL;
	if (args->syncs.count > VAGX_MAX_SYNCS)
		return -E2BIG;

	vm = vagx_vm_lookup(file->driver_priv, args->vm_id);
	if (!vm)
		return -ENOENT;
	ret = vagx_copy_array(&args->ops, sizeof(*uops),
			      offsetofend(struct drm_vagx_vm_bind_op, range),
			      VAGX_MAX_BIND_OPS, (void **)&uops);
	if (!ret)
		ret = vagx_vm_bind(vm, file, uops, args->ops.count, async,
				   &args->syncs, &args->failed_op);
	kvfree(uops);
	vagx_vm_put(vm);
	return ret;
}

static int vagx_ioctl_vm_get_state(struct drm_device *drm, void *data,
				   struct drm_file *file)
{
	struct drm_vagx_vm_get_state *args = data;
	struct vagx_vm *vm;

	if (args->pad)
		return -EINVAL;
	vm = vagx_vm_lookup(file->driver_priv, args->vm_id);
	if (!vm)
		return -ENOENT;
	vagx_vm_get_state(vm, args);
	vagx_vm_put(vm);
	return 0;
}

static int vagx_ioctl_queue_create(struct drm_device *drm, void *data,
				   struct drm_file *file)
{
	struct drm_vagx_queue_create *args = data;

	if (args->flags || args->pad)
		return -EINVAL;
	if (args->type >= 32 ||
	    !(vagx_queue_types(to_vagx_device(drm)) & BIT(args->type)))
		return -EINVAL;
	if (args->priority > DRM_VAGX_PRIORITY_HIGH)
		return -EINVAL;
	if (args->priority == DRM_VAGX_PRIORITY_HIGH &&
	    !capable(CAP_SYS_NICE) && !drm_is_current_master(file))
		return -EACCES;
	return vagx_queue_create(file->driver_priv, args);
}

static int vagx_ioctl_queue_destroy(struct drm_device *drm, void *data,
				    struct drm_file *file)
{
	struct drm_vagx_queue_destroy *args = data;

	if (args->pad)
		return -EINVAL;
	return vagx_file_queue_destroy(file->driver_priv, args->queue_id);
}

static int vagx_ioctl_queue_get_state(struct drm_device *drm, void *data,
				      struct drm_file *file)
{
	struct drm_vagx_queue_get_state *args = data;
	struct vagx_queue *queue;

	queue = vagx_queue_lookup(file->driver_priv, args->queue_id);
	if (!queue)
		return -ENOENT;
	vagx_queue_get_state(queue, args);
	vagx_queue_put(queue);
	return 0;
}

/* A SUBMIT racing with PCI remove completes before it or fails -ENODEV. */
static int vagx_ioctl_submit(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct drm_vagx_submit *args = data;
	int ret, idx;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	args->failed_cmd = DRM_VAGX_NO_FAILED_INDEX;
	if (args->flags || args->pad)
		ret = -EINVAL;
	else
		ret = vagx_submit(file, args);
	drm_dev_exit(idx);
	return ret;
}

#define VAGX_IOCTL(n, func) \
	DRM_IOCTL_DEF_DRV(VAGX_##n, vagx_ioctl_##func, DRM_RENDER_ALLOW)

static const struct drm_ioctl_desc vagx_ioctls[] = {
	VAGX_IOCTL(DEV_QUERY, dev_query),
	VAGX_IOCTL(BO_CREATE, bo_create),
	VAGX_IOCTL(BO_MMAP_OFFSET, bo_mmap_offset),
	VAGX_IOCTL(BO_SET_LABEL, bo_set_label),
	VAGX_IOCTL(VM_CREATE, vm_create),
	VAGX_IOCTL(VM_DESTROY, vm_destroy),
	VAGX_IOCTL(VM_BIND, vm_bind),
	VAGX_IOCTL(VM_GET_STATE, vm_get_state),
	VAGX_IOCTL(QUEUE_CREATE, queue_create),
	VAGX_IOCTL(QUEUE_DESTROY, queue_destroy),
	VAGX_IOCTL(QUEUE_GET_STATE, queue_get_state),
	VAGX_IOCTL(SUBMIT, submit),
};

static int vagx_open(struct drm_device *drm, struct drm_file *file)
{
	struct vagx_file *vfile;

	vfile = kzalloc(sizeof(*vfile), GFP_KERNEL);
	if (!vfile)
		return -ENOMEM;
	vfile->vdev = to_vagx_device(drm);
	vfile->stats = vagx_file_stats_create();
	if (!vfile->stats) {
		kfree(vfile);
		return -ENOMEM;
	}
	vfile->pt_budget = vagx_pt_budget_create();
	if (!vfile->pt_budget) {
		vagx_file_stats_put(vfile->stats);
		kfree(vfile);
		return -ENOMEM;
	}
	xa_init_flags(&vfile->vms, XA_FLAGS_ALLOC1);
	xa_init_flags(&vfile->queues, XA_FLAGS_ALLOC1);
	mutex_init(&vfile->lock);
	file->driver_priv = vfile;
	return 0;
}

static void vagx_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct vagx_file *vfile = file->driver_priv;

	vagx_file_release_queues(vfile);
	vagx_file_release_vms(vfile);
	xa_destroy(&vfile->queues);
	xa_destroy(&vfile->vms);
	mutex_destroy(&vfile->lock);
	vagx_file_stats_put(vfile->stats);
	/* VMs still alive (jobs, binds) keep their own reference. */
	vagx_pt_budget_put(vfile->pt_budget);
	kfree(vfile);
}

static void vagx_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	vagx_file_show_engines(file->driver_priv, p);
	drm_show_memory_stats(p, file);
}

static const struct file_operations vagx_fops = {
	.owner = THIS_MODULE,
	DRM_GEM_FOPS,
	.show_fdinfo = drm_show_fdinfo,
};

/* Render node and KMS (vagx_kms.c) on the same DRM device. */
static const struct drm_driver vagx_drm_driver = {
	.driver_features = DRIVER_RENDER | DRIVER_GEM | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE | DRIVER_GEM_GPUVA |
			   DRIVER_MODESET | DRIVER_ATOMIC,
	.open = vagx_open,
	.postclose = vagx_postclose,
	.show_fdinfo = vagx_show_fdinfo,
	.ioctls = vagx_ioctls,
	.num_ioctls = ARRAY_SIZE(vagx_ioctls),
	.fops = &vagx_fops,
	.gem_create_object = vagx_gem_create_object,
	.gem_prime_import_sg_table = vagx_gem_prime_import_sg_table,
	.dumb_create = vagx_kms_dumb_create,
#ifdef CONFIG_DEBUG_FS
	.debugfs_init = vagx_debugfs_init,
#endif
	.name = VAGX_DRIVER_NAME,
	.desc = VAGX_DRIVER_DESC,
	.major = VAGX_DRIVER_MAJOR,
	.minor = VAGX_DRIVER_MINOR,
};

static int vagx_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct vagx_device *vdev;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(0), VAGX_DRIVER_NAME);
	if (ret)
		return ret;

	vdev = devm_drm_dev_alloc(&pdev->dev, &vagx_drm_driver,
				  struct vagx_device, drm);
	if (IS_ERR(vdev))
		return PTR_ERR(vdev);
	vdev->pdev = pdev;
	vdev->mmio = pcim_iomap_table(pdev)[0];
	pci_set_drvdata(pdev, vdev);

	ret = vagx_device_init(vdev);
	if (ret)
		return ret;
	ret = vagx_kms_init(vdev);
	if (ret) {
		vagx_device_fini(vdev);
		return ret;
	}

	ret = drm_dev_register(&vdev->drm, 0);
	if (ret) {
		vagx_device_fini(vdev);
		vagx_kms_cancel_hotplug(vdev);
		return ret;
	}
	vagx_kms_register(vdev);
	return 0;
}

/*
 * PCI remove (hot-unplug, sysfs remove, module unload). Open files outlive
 * it: DRM core fails their ioctls and new mmaps with -ENODEV; mappings
 * made before keep the BO pages (system memory). Order:
 *  1. display off while the device still works (the vblank of a pending
 *     flip arrives, the scanout stops reading framebuffers before
 *     drm_dev_unplug() tears the fbdev client and its framebuffer down);
 *  2. drm_dev_unplug(): waits for every drm_dev_enter() section (ioctls
 *     touching registers, run_job, the timeout handler, KMS commits), after
 *     which no code path touches BAR0;
 *  3. vagx_device_fini(): reset, interrupts freed, jobs in the rings end
 *     with -ENODEV, bus mastering off. Jobs not yet in a ring fail with
 *     -ENODEV in run_job(). Rings, schedulers and VMs are freed when the
 *     last file is closed.
 */
static void vagx_pci_remove(struct pci_dev *pdev)
{
	struct vagx_device *vdev = pci_get_drvdata(pdev);

	vagx_kms_fini(vdev);
	drm_dev_unplug(&vdev->drm);
	vagx_device_fini(vdev);
}

/*
 * PCI reset behind the driver's back (sysfs reset, VFIO, a bus reset of the
 * bridge): pci_reset_function() calls these around the reset, in one task
 * and under the device lock, so they cannot race with remove.
 */
static void vagx_pci_reset_prepare(struct pci_dev *pdev)
{
	vagx_device_reset_prepare(pci_get_drvdata(pdev));
}

static void vagx_pci_reset_done(struct pci_dev *pdev)
{
	vagx_device_reset_done(pci_get_drvdata(pdev));
}

static const struct pci_error_handlers vagx_pci_err_handlers = {
	.reset_prepare = vagx_pci_reset_prepare,
	.reset_done = vagx_pci_reset_done,
};

static const struct pci_device_id vagx_pci_ids[] = {
	{ PCI_DEVICE(VAGX_PCI_VENDOR_ID, VAGX_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, vagx_pci_ids);

static struct pci_driver vagx_pci_driver = {
	.name = VAGX_DRIVER_NAME,
	.id_table = vagx_pci_ids,
	.probe = vagx_pci_probe,
	.remove = vagx_pci_remove,
	.err_handler = &vagx_pci_err_handlers,
};
module_pci_driver(vagx_pci_driver);

MODULE_AUTHOR("The vagx authors");
MODULE_DESCRIPTION("DRM driver for the vagx tile-based GPU");
MODULE_LICENSE("Dual MIT/GPL");
