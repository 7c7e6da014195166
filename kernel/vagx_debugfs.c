// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (C) 2025 The vagx authors */

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "vagx_device.h"
#include "vagx_gem.h"
#include "vagx_mmu.h"
#include "vagx_vm.h"
#include "vagx_ring.h"

static int vagx_debugfs_bos(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct vagx_device *vdev = to_vagx_device(entry->dev);
	struct vagx_bo *bo;
	size_t total = 0;

	mutex_lock(&vdev->objs_lock);
	list_for_each_entry(bo, &vdev->objs, node) {
		struct drm_gem_object *obj = &bo->base.base;

		mutex_lock(&bo->label_lock);
		seq_printf(m, "bo %p size %zu flags %#x private %d imported %d pages %d use %u charged %d label \"%s\"\n",
			   bo, obj->size, bo->flags, !!bo->exclusive_vm_root_gem,
			   !!obj->import_attach, !!bo->base.pages,
			   READ_ONCE(bo->base.pages_use_count),
			   READ_ONCE(bo->charged), bo->label ? bo->label : "");
		mutex_unlock(&bo->label_lock);
		total += obj->size;
	}
	mutex_unlock(&vdev->objs_lock);
	seq_printf(m, "total %zu bytes\n", total);
	seq_printf(m, "resident %lld bytes\n",
		   (long long)atomic64_read(&vdev->resident_bytes));
	return 0;
}

static int vagx_debugfs_vms(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;

	vagx_mmu_debugfs_show(to_vagx_device(entry->dev), m);
	return 0;
}

static int vagx_debugfs_rings(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;

	vagx_rings_debugfs_show(to_vagx_device(entry->dev), m);
	return 0;
}

static const struct drm_debugfs_info vagx_debugfs_list[] = {
	{ "vagx_bos", vagx_debugfs_bos, 0 },
	{ "vagx_vms", vagx_debugfs_vms, 0 },
	{ "vagx_rings", vagx_debugfs_rings, 0 },
};

static int vagx_inject_get(void *data, u64 *val)
{
	*val = atomic_read((atomic_t *)data);
	return 0;
}

static int vagx_inject_set(void *data, u64 val)
{
	atomic_set((atomic_t *)data, (int)min_t(u64, val, INT_MAX));
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(vagx_inject_fops, vagx_inject_get, vagx_inject_set,
			 "%llu\n");

/*
 * Writing 1 marks the device wedged, as a TLB invalidation that did not
 * complete does (without starting the recovery): the recovery work
 * (vagx_mmu_quarantine_work(), run by the next quarantine) must then reset
 * it and bring it back.
 */
static int vagx_wedge_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct vagx_device *)data)->tlb_wedged);
	return 0;
}

static int vagx_wedge_set(void *data, u64 val)
{
	if (val)
		WRITE_ONCE(((struct vagx_device *)data)->tlb_wedged, true);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(vagx_wedge_fops, vagx_wedge_get, vagx_wedge_set,
			 "%llu\n");

/*
 * The SCRATCH register, which the driver does not use otherwise: a test
 * writes it and sees whether a reset reached the device (power-on value
 * 0 after a PCI reset; a global reset keeps it). -ENODEV once unplugged.
 */
static int vagx_scratch_get(void *data, u64 *val)
{
	struct vagx_device *vdev = data;
	int idx;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return -ENODEV;
	*val = vagx_read(vdev, VAGX_REG_SCRATCH);
	drm_dev_exit(idx);
	return 0;
}

static int vagx_scratch_set(void *data, u64 val)
{
	struct vagx_device *vdev = data;
	int idx;

	if (val > U32_MAX)
		return -EINVAL;
	if (!drm_dev_enter(&vdev->drm, &idx))
		return -ENODEV;
	vagx_write(vdev, VAGX_REG_SCRATCH, val);
	drm_dev_exit(idx);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(vagx_scratch_fops, vagx_scratch_get,
			 vagx_scratch_set, "%#llx\n");

/**
 * vagx_debugfs_init() - &drm_driver.debugfs_init hook
 * @minor: DRM minor.
 */
void vagx_debugfs_init(struct drm_minor *minor)
{
	struct vagx_device *vdev = to_vagx_device(minor->dev);

	drm_debugfs_add_files(minor->dev, vagx_debugfs_list,
			      ARRAY_SIZE(vagx_debugfs_list));
	/* Fail the next N asynchronous binds when they execute. */
	debugfs_create_file_unsafe("vagx_inject_bind_fail", 0600,
				   minor->debugfs_root,
				   &vdev->inject_bind_fail, &vagx_inject_fops);
	/* Fail the next N bind operations while they are prepared (-ENOMEM). */
	debugfs_create_file_unsafe("vagx_inject_bind_prep_fail", 0600,
				   minor->debugfs_root,
				   &vdev->inject_bind_prep_fail,
				   &vagx_inject_fops);
	/* Make the next N job timeouts skip Q_ABORT and reset the ring. */
	debugfs_create_file_unsafe("vagx_inject_abort_fail", 0600,
				   minor->debugfs_root,
				   &vdev->inject_abort_fail, &vagx_inject_fops);
	/* The next N TLB invalidations report failure: quarantine paths. */
	debugfs_create_file_unsafe("vagx_inject_tlb_fail", 0600,
				   minor->debugfs_root,
				   &vdev->inject_tlb_fail, &vagx_inject_fops);
	/* The next N TLB waits time out (BUSY stuck until a reset). */
	debugfs_create_file_unsafe("vagx_inject_tlb_stuck", 0600,
				   minor->debugfs_root,
				   &vdev->inject_tlb_stuck, &vagx_inject_fops);
	/* Queue the next N writeback jobs unarmed (PCI reset tests). */
	debugfs_create_file_unsafe("vagx_inject_wb_drop", 0600,
				   minor->debugfs_root,
				   &vdev->inject_wb_drop, &vagx_inject_fops);
	/* SCRATCH: tells whether a PCI reset reached the device. */
	debugfs_create_file_unsafe("vagx_scratch", 0600, minor->debugfs_root,
				   vdev, &vagx_scratch_fops);
	/* Mark the device wedged (1): the TLB recovery must reset it. */
	debugfs_create_file_unsafe("vagx_inject_tlb_wedge", 0600,
				   minor->debugfs_root, vdev, &vagx_wedge_fops);
	/* Delay (ms) between a timeout's choice of job and its Q_ABORT. */
	debugfs_create_file_unsafe("vagx_inject_abort_delay_ms", 0600,
				   minor->debugfs_root,
				   &vdev->inject_abort_delay_ms,
				   &vagx_inject_fops);
}
