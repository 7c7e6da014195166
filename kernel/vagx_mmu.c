// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (C) 2025 The vagx authors */

/*
 * The device MMU: fault interrupts, and the quarantine of what a failed
 * TLB invalidation may leave visible to the device (page tables, and
 * mappings with their BOs) with its recovery.
 */

#include <linux/seq_file.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "vagx_device.h"
#include "vagx_mmu.h"
#include "vagx_pgtable.h"
#include "vagx_ring.h"
#include "vagx_vm.h"

/* Recovery attempts start soon after a quarantine and back off to 10 s. */
#define VAGX_QUARANTINE_RETRY_MIN_MS	100
#define VAGX_QUARANTINE_RETRY_MAX_MS	10000

/**
 * vagx_mmu_quarantine_kick() - Schedule the recovery of the quarantine
 * @vdev: Device; quarantine_lock held, the quarantine not closed.
 */
void vagx_mmu_quarantine_kick(struct vagx_device *vdev)
{
	lockdep_assert_held(&vdev->quarantine_lock);
	if (!vdev->quarantine_retry_ms)
		vdev->quarantine_retry_ms = VAGX_QUARANTINE_RETRY_MIN_MS;
	queue_delayed_work(system_wq, &vdev->quarantine_work,
			   msecs_to_jiffies(vdev->quarantine_retry_ms));
}

/* Free quarantined tables and mappings the device can no longer use. */
static void vagx_quarantine_free(struct vagx_device *vdev, struct list_head *pts,
				 struct list_head *vmas)
{
	vagx_pgtable_free_quarantined(vdev, pts);
	vagx_vm_free_quarantined_vmas(vdev, vmas);
}

/**
 * vagx_mmu_quarantine_work() - Release the quarantine once that is safe
 * @work: &vagx_device.quarantine_work.
 *
 * What is in the quarantine was unmapped before a TLB invalidation that
 * failed; an invalidation of every VM that completes after it
 * (vagx_device_tlb_invalidate_all(), after vagx_device_recover() has reset
 * a wedged device and reprogrammed its rings) leaves no translation
 * through it, so it is freed then, and the device is in service again.
 * A failed attempt puts everything back and retries later, the delay
 * doubling up to 10 s. Runs without locks (vm_bo puts may take a BO's
 * resv). Scheduled by every quarantine, and at once by a TLB invalidation
 * that wedged the device (vagx_mmu_recover_now()).
 */
void vagx_mmu_quarantine_work(struct work_struct *work)
{
	struct vagx_device *vdev = container_of(to_delayed_work(work),
						struct vagx_device,
						quarantine_work);
	LIST_HEAD(pts);
	LIST_HEAD(vmas);
	int ret, idx;

	mutex_lock(&vdev->quarantine_lock);
	if (vdev->quarantine_closed) {
		mutex_unlock(&vdev->quarantine_lock);
		return;
	}
	list_splice_init(&vdev->quarantine_pts, &pts);
	list_splice_init(&vdev->quarantine_vmas, &vmas);
	mutex_unlock(&vdev->quarantine_lock);

	ret = 0;
	if (READ_ONCE(vdev->tlb_wedged) && drm_dev_enter(&vdev->drm, &idx)) {
		ret = vagx_device_recover(vdev);
		drm_dev_exit(idx);
		if (!ret)
			drm_info(&vdev->drm, "device recovered: translations work again after a reset\n");
	}
	if (!ret)
		ret = vagx_device_tlb_invalidate_all(vdev);
	if (ret && ret != -ENODEV) {
		mutex_lock(&vdev->quarantine_lock);
		if (!vdev->quarantine_closed) {
			list_splice(&pts, &vdev->quarantine_pts);
			list_splice(&vmas, &vdev->quarantine_vmas);
			vdev->quarantine_retry_ms =
				min(2 * vdev->quarantine_retry_ms,
				    VAGX_QUARANTINE_RETRY_MAX_MS);
			vagx_mmu_quarantine_kick(vdev);
			mutex_unlock(&vdev->quarantine_lock);
			return;
		}
		/* Quiesced for good meanwhile: nothing uses them. */
		mutex_unlock(&vdev->quarantine_lock);
	}
	vagx_quarantine_free(vdev, &pts, &vmas);
	atomic_inc(&vdev->quarantine_recoveries);
	mutex_lock(&vdev->quarantine_lock);
	vdev->quarantine_retry_ms = 0;
	mutex_unlock(&vdev->quarantine_lock);
}

/**
 * vagx_mmu_recover_now() - Start the recovery of a device just wedged
 * @vdev: Device, entered (drm_dev_enter()), marked wedged by a TLB
 *        invalidation that did not complete.
 *
 * Runs vagx_mmu_quarantine_work() at once, even if a quarantine had it
 * scheduled later: it resets the device with every ring parked, ends the
 * jobs the rings held (-ECANCELED) and frees the quarantine once an
 * invalidation of every VM completes. The caller holds no lock the work
 * takes before it can run (a VM's op_lock is fine).
 */
void vagx_mmu_recover_now(struct vagx_device *vdev)
{
	mutex_lock(&vdev->quarantine_lock);
	if (!vdev->quarantine_closed) {
		if (!vdev->quarantine_retry_ms)
			vdev->quarantine_retry_ms =
				VAGX_QUARANTINE_RETRY_MIN_MS;
		mod_delayed_work(system_wq, &vdev->quarantine_work, 0);
	}
	mutex_unlock(&vdev->quarantine_lock);
}

/**
 * vagx_mmu_quarantine_reset_done() - A PCI reset dropped every translation
 * @vdev: Device, back in service after a PCI reset.
 *
 * What the quarantine holds can no longer be reached through a cached
 * translation: its recovery runs now instead of at its back-off.
 */
void vagx_mmu_quarantine_reset_done(struct vagx_device *vdev)
{
	bool kick;

	mutex_lock(&vdev->quarantine_lock);
	kick = !list_empty(&vdev->quarantine_pts) ||
	       !list_empty(&vdev->quarantine_vmas);
	mutex_unlock(&vdev->quarantine_lock);
	if (kick)
		vagx_mmu_recover_now(vdev);
}

/**
 * vagx_mmu_quarantine_release() - Free what failed TLB invalidations kept
 * @vdev: Device, quiesced for good (vagx_device_fini(): global reset, bus
 *        mastering off), so it walks no table and touches no page; the
 *        recovery work cancelled.
 *
 * Later quarantines free at once.
 */
void vagx_mmu_quarantine_release(struct vagx_device *vdev)
{
	LIST_HEAD(pts);
	LIST_HEAD(vmas);

	mutex_lock(&vdev->quarantine_lock);
	vdev->quarantine_closed = true;
	list_splice_init(&vdev->quarantine_pts, &pts);
	list_splice_init(&vdev->quarantine_vmas, &vmas);
	mutex_unlock(&vdev->quarantine_lock);
	vagx_quarantine_free(vdev, &pts, &vmas);
}

/**
 * vagx_mmu_fault_irq() - Latch the MMU fault registers (IRQ context)
 * @vdev: Device.
 *
 * The fault is attached to the ring named by FAULT_STATUS.QUEUE; the ring's
 * error handling gives it to the faulting job's queue and VM.
 */
void vagx_mmu_fault_irq(struct vagx_device *vdev)
{
	static const u32 access[] = {
		[VAGX_FAULT_ACCESS_READ] = DRM_VAGX_FAULT_ACCESS_READ,
		[VAGX_FAULT_ACCESS_WRITE] = DRM_VAGX_FAULT_ACCESS_WRITE,
		[VAGX_FAULT_ACCESS_EXEC] = DRM_VAGX_FAULT_ACCESS_EXEC,
		[VAGX_FAULT_ACCESS_ATOMIC] = DRM_VAGX_FAULT_ACCESS_WRITE,
	};
	u32 status = vagx_read(vdev, VAGX_REG_FAULT_STATUS);
	u32 q = VAGX_FAULT_STATUS_QUEUE_GET(status);
	struct drm_vagx_fault_info fault = {};
	struct vagx_ring *ring;

	if (!VAGX_FAULT_STATUS_VALID_GET(status))
		goto ack;

	fault.addr = vagx_read(vdev, VAGX_REG_FAULT_ADDR_LO) |
		     ((u64)vagx_read(vdev, VAGX_REG_FAULT_ADDR_HI) << 32);
	fault.access = access[VAGX_FAULT_STATUS_ACCESS_GET(status)];
	switch (VAGX_FAULT_STATUS_REASON_GET(status)) {
	case VAGX_FAULT_REASON_READ_ONLY:
	case VAGX_FAULT_REASON_NO_EXEC:
		fault.reason = DRM_VAGX_FAULT_REASON_PERMISSION;
		break;
	case VAGX_FAULT_REASON_ADDRESS_RANGE:
		fault.reason = DRM_VAGX_FAULT_REASON_OUT_OF_RANGE;
		break;
	default:
		fault.reason = DRM_VAGX_FAULT_REASON_UNMAPPED;
		break;
	}
	drm_dbg_driver(&vdev->drm, "MMU fault queue %u addr %#llx status %#x\n",
		       q, fault.addr, status);
	if (q < vdev->num_rings) {
		ring = &vdev->rings[q];
		spin_lock(&ring->lock);
		ring->fault = fault;
		ring->fault_valid = true;
		spin_unlock(&ring->lock);
	}
ack:
	vagx_write(vdev, VAGX_REG_FAULT_ACK, VAGX_FAULT_ACK_ACK(1));
}

/**
 * vagx_mmu_debugfs_show() - The TLB state, the quarantine and the VMs
 * @vdev: Device.
 * @m: seq_file.
 */
void vagx_mmu_debugfs_show(struct vagx_device *vdev, struct seq_file *m)
{
	seq_printf(m, "tlb: wedged %d quarantined_pts %d quarantined_roots %d quarantined_vmas %d recoveries %d\n",
		   READ_ONCE(vdev->tlb_wedged),
		   atomic_read(&vdev->quarantined_pts),
		   atomic_read(&vdev->quarantined_roots),
		   atomic_read(&vdev->quarantined_vmas),
		   atomic_read(&vdev->quarantine_recoveries));
	mutex_lock(&vdev->quarantine_lock);
	vagx_pgtable_show_quarantined(&vdev->quarantine_pts, m);
	mutex_unlock(&vdev->quarantine_lock);
	vagx_vm_debugfs_show(vdev, m);
}
