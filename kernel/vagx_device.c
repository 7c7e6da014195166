// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (C) 2025 The vagx authors */

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/iopoll.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "vagx_device.h"
#include "vagx_kms.h"
#include "vagx_mmu.h"
#include "vagx_vm.h"
#include "vagx_ring.h"

#define VAGX_RESET_TIMEOUT_US	1000000
#define VAGX_TLB_TIMEOUT_US	1000000
#define VAGX_TLB_WEDGED_US	2000000

static DEFINE_SPINLOCK(vagx_irq_lock);

/**
 * vagx_device_reset() - Global reset of the device
 * @vdev: Device.
 *
 * Aborts every job without completion writes and stops every queue.
 *
 * Return: 0 or -ETIMEDOUT.
 */
int vagx_device_reset(struct vagx_device *vdev)
{
	u32 status;
	int ret;

	vagx_write(vdev, VAGX_REG_RESET, VAGX_RESET_START(1));
	ret = readl_poll_timeout(vdev->mmio + VAGX_REG_STATUS, status,
				 !VAGX_STATUS_RESET_BUSY_GET(status), 10,
				 VAGX_RESET_TIMEOUT_US);
	if (ret) {
		drm_err(&vdev->drm, "device reset timed out (STATUS=%#x)\n",
			status);
		return ret;
	}
	vagx_write(vdev, VAGX_REG_INT_STATUS, ~0u);
	vagx_write(vdev, VAGX_REG_FAULT_ACK, VAGX_FAULT_ACK_ACK(1));
	vagx_write(vdev, VAGX_REG_ERROR_ACK, VAGX_ERROR_ACK_ACK(1));
	return 0;
}

/**
 * vagx_device_timestamp() - Read the 64-bit GPU timestamp counter
 * @vdev: Device.
 *
 * Context: Any context; takes @vdev->ts_lock with interrupts off.
 *
 * Return: the counter, in ticks of TIMESTAMP_FREQ.
 */
u64 vagx_device_timestamp(struct vagx_device *vdev)
{
	unsigned long flags;
	u32 lo, hi;

	/* Reading LO latches the counter; HI returns the latched bits. */
	spin_lock_irqsave(&vdev->ts_lock, flags);
	lo = vagx_read(vdev, VAGX_REG_TIMESTAMP_LO);
	hi = vagx_read(vdev, VAGX_REG_TIMESTAMP_HI);
	spin_unlock_irqrestore(&vdev->ts_lock, flags);
	return ((u64)hi << 32) | lo;
}

/**
 * vagx_device_tlb_idle() - Wait until no TLB invalidation is in progress
 * @vdev: Device; @vdev->tlb_lock held.
 *
 * Return: 0 or -ETIMEDOUT.
 */
int vagx_device_tlb_idle(struct vagx_device *vdev)
{
	u32 status;

	lockdep_assert_held(&vdev->tlb_lock);
	return readl_poll_timeout(vdev->mmio + VAGX_REG_TLB_INV_STATUS, status,
				  !VAGX_TLB_INV_STATUS_BUSY_GET(status), 100,
				  VAGX_TLB_TIMEOUT_US);
}

/* TLB_INV_STATUS.BUSY, or 1 throughout an injected stall (@stuck). */
static u32 vagx_tlb_busy(struct vagx_device *vdev, bool stuck)
{
	return stuck ||
	       VAGX_TLB_INV_STATUS_BUSY_GET(vagx_read(vdev,
						      VAGX_REG_TLB_INV_STATUS));
}

/*
 * Waits for TLB_INV_STATUS.BUSY to clear. The device completes an
 * invalidation at its units' next safepoint (microseconds); a slow host may
 * take longer, so only a device that stays busy for VAGX_TLB_WEDGED_US more
 * is considered wedged. The caller holds a VM's op_lock and the device's
 * tlb_lock, which stall every VM_BIND, so the wait is bounded (1 s plus
 * 2 s, ample even for a starved host: the device reaches a safepoint
 * within bounded work, docs/hw/mmu.md) and a wedged device is not reset
 * here: its recovery parks every ring's scheduler and ends the jobs it
 * killed (vagx_device_recover()), which cannot be done under these locks.
 *
 * debugfs vagx_inject_tlb_stuck makes a wait see BUSY until it times out,
 * without the warnings (the guest harness fails a boot that logs them).
 *
 * Return: 0, or -ETIMEDOUT (still busy; *@stuck set for an injected stall).
 */
static int vagx_tlb_wait(struct vagx_device *vdev, bool *stuck)
{
	u32 busy;
	int ret;

	*stuck = atomic_add_unless(&vdev->inject_tlb_stuck, -1, 0);
	ret = read_poll_timeout(vagx_tlb_busy, busy, !busy, 1,
				VAGX_TLB_TIMEOUT_US, false, vdev, *stuck);
	if (!ret)
		return 0;
	if (!*stuck)
		drm_warn(&vdev->drm, "TLB invalidation still busy after %u ms\n",
			 VAGX_TLB_TIMEOUT_US / 1000);
	return read_poll_timeout(vagx_tlb_busy, busy, !busy, 100,
				 VAGX_TLB_WEDGED_US, false, vdev, *stuck);
}

/*
 * Issue one invalidation and wait for it; tlb_lock held, device entered.
 * A device that does not complete it is marked wedged: the caller must
 * then recover it (vagx_mmu_recover_now()).
 */
static int vagx_tlb_invalidate_locked(struct vagx_device *vdev, u64 root,
				      u64 va, u64 size, bool all_roots)
{
	bool stuck;
	int ret;

	/* START while busy is refused: never issue one. */
	ret = vagx_tlb_wait(vdev, &stuck);
	if (!ret) {
		vagx_write(vdev, VAGX_REG_TLB_INV_ROOT_LO, lower_32_bits(root));
		vagx_write(vdev, VAGX_REG_TLB_INV_ROOT_HI, upper_32_bits(root));
		vagx_write(vdev, VAGX_REG_TLB_INV_VA_LO, lower_32_bits(va));
		vagx_write(vdev, VAGX_REG_TLB_INV_VA_HI, upper_32_bits(va));
		vagx_write(vdev, VAGX_REG_TLB_INV_SIZE_LO, lower_32_bits(size));
		vagx_write(vdev, VAGX_REG_TLB_INV_SIZE_HI, upper_32_bits(size));
		vagx_write(vdev, VAGX_REG_TLB_INV_CMD,
			   VAGX_TLB_INV_CMD_START(1) |
			   VAGX_TLB_INV_CMD_ALL_ROOTS(all_roots));
		ret = vagx_tlb_wait(vdev, &stuck);
	}
	if (ret) {
		WRITE_ONCE(vdev->tlb_wedged, true);
		if (stuck)
			drm_dbg_driver(&vdev->drm, "injected TLB stall: device wedged\n");
		else
			drm_err(&vdev->drm, "TLB invalidation timed out: the device is wedged and will be reset; unmapped memory is quarantined until then\n");
	} else if (atomic_add_unless(&vdev->inject_tlb_fail, -1, 0)) {
		/* Debugfs fault injection: exercises the quarantine. */
		ret = -ETIMEDOUT;
	}
	return ret;
}

/* Enter the device and invalidate, or wait for its quiescence (unplugged). */
static int vagx_tlb_invalidate(struct vagx_device *vdev, u64 root, u64 va,
			       u64 size, bool all_roots)
{
	bool wedged = false;
	int ret, idx;

	if (!drm_dev_enter(&vdev->drm, &idx)) {
		wait_for_completion(&vdev->quiesced);
		return -ENODEV;
	}
	mutex_lock(&vdev->tlb_lock);
	if (READ_ONCE(vdev->tlb_wedged)) {
		ret = -EIO;
	} else {
		ret = vagx_tlb_invalidate_locked(vdev, root, va, size,
						 all_roots);
		wedged = READ_ONCE(vdev->tlb_wedged);
	}
	mutex_unlock(&vdev->tlb_lock);
	/*
	 * Just wedged: recover at once, so that the jobs the rings hold end
	 * now rather than at their timeouts. The recovery's own invalidation
	 * (@all_roots) retries on the recovery's back-off instead.
	 */
	if (wedged && !all_roots)
		vagx_mmu_recover_now(vdev);
	drm_dev_exit(idx);
	return ret;
}

/**
 * vagx_device_tlb_invalidate() - Drop cached translations of a VM range
 * @vdev: Device.
 * @root: Bus address of the level-0 page table of the VM.
 * @va: First VA of the range.
 * @size: Size of the range in bytes, 0 for the whole address space.
 *
 * Waits until every access that may have used a stale translation has
 * finished, so the pages that were mapped can be released afterwards.
 * After an unplug the registers are off limits: it then waits until
 * vagx_device_fini() has quiesced the device (global reset, bus mastering
 * off), after which no translation is used any more.
 *
 * A failure means the device may still use a translation of the range:
 * the caller must then not free the pages or tables it unmapped but hand
 * them to the quarantine (vagx_pgtable_free_after_tlb()), which keeps them
 * until an invalidation of every VM completes (vagx_mmu_quarantine_work())
 * or the device is quiesced for good (PCI remove). A device that did not
 * complete the invalidation within 3 s is marked wedged
 * (@vdev->tlb_wedged) and its recovery is started at once
 * (vagx_mmu_recover_now(): a global reset with every ring parked, the
 * jobs it killed ended, then an invalidation of every VM); until that
 * brings it back, every later invalidation fails at once instead of
 * stalling its caller, who holds a VM's op_lock, for another 3 s.
 *
 * Context: Process; may sleep up to 3 s. Takes @vdev->tlb_lock, so the
 * caller must not hold it (it may hold a VM's op_lock).
 *
 * Return: 0, -ETIMEDOUT (the device did not complete the invalidation: now
 * wedged), -EIO (wedged by an earlier one) or -ENODEV (unplugged and
 * quiesced: the caller may free).
 */
int vagx_device_tlb_invalidate(struct vagx_device *vdev, u64 root,
			       u64 va, u64 size)
{
	return vagx_tlb_invalidate(vdev, root, va, size, false);
}

/**
 * vagx_device_tlb_invalidate_all() - Drop every cached translation
 * @vdev: Device, not wedged (vagx_device_recover() first).
 *
 * The quarantine's recovery: once it completes, no translation made before
 * it can be used, so whatever failed invalidations kept may be freed.
 *
 * Return: 0, -ETIMEDOUT (the device did not complete it: now wedged),
 * -EIO (wedged) or -ENODEV (unplugged and quiesced: everything may be
 * freed).
 */
int vagx_device_tlb_invalidate_all(struct vagx_device *vdev)
{
	return vagx_tlb_invalidate(vdev, 0, 0, 0, true);
}

/* The display's events, of every head (vagx_kms.c). */
#define VAGX_INT_DISPLAY (VAGX_INT_VBLANK__MASK | VAGX_INT_SCANOUT_FAULT__MASK | \
			  VAGX_INT_WRITEBACK__MASK | VAGX_INT_HEAD1_VBLANK__MASK | \
			  VAGX_INT_HEAD1_SCANOUT_FAULT__MASK | \
			  VAGX_INT_HEAD1_WRITEBACK__MASK | VAGX_INT_HOTPLUG__MASK)

static irqreturn_t vagx_irq_handler(int irq, void *data)
{
	struct vagx_device *vdev = data;
	unsigned long flags;
	u32 pending, q;

	spin_lock_irqsave(&vagx_irq_lock, flags);
	pending = vagx_read(vdev, VAGX_REG_INT_PENDING);
	if (!pending || pending == ~0u) {
		spin_unlock_irqrestore(&vagx_irq_lock, flags);
		return IRQ_NONE;
	}
	vagx_write(vdev, VAGX_REG_INT_STATUS, pending);

	if (pending & VAGX_INT_MMU_FAULT__MASK)
		vagx_mmu_fault_irq(vdev);

	if (pending & VAGX_INT_DISPLAY)
		vagx_kms_irq(vdev, pending);

	for (q = 0; q < vdev->num_rings; q++) {
		bool err = pending & VAGX_INT_QUEUE_ERROR(q);

		if (err || (pending & VAGX_INT_JOB_DONE(q)))
			vagx_ring_irq(&vdev->rings[q], err);
	}

	if (pending & VAGX_INT_DEVICE_ERROR__MASK) {
		u32 err = vagx_read(vdev, VAGX_REG_ERROR_STATUS);

		drm_err_ratelimited(&vdev->drm,
				    "device error: code %u at offset %#x\n",
				    VAGX_ERROR_STATUS_CODE_GET(err),
				    VAGX_ERROR_STATUS_OFFSET_GET(err));
		vagx_write(vdev, VAGX_REG_ERROR_ACK, VAGX_ERROR_ACK_ACK(1));
	}
	spin_unlock_irqrestore(&vagx_irq_lock, flags);
	return IRQ_HANDLED;
}

static int vagx_irq_init(struct vagx_device *vdev)
{
	struct pci_dev *pdev = vdev->pdev;
	int i, ret;

	vdev->nvec = pci_alloc_irq_vectors(pdev, 1, VAGX_MSIX_VECTORS,
					   PCI_IRQ_MSIX | PCI_IRQ_MSI |
					   PCI_IRQ_INTX);
	if (vdev->nvec < 0)
		return vdev->nvec;

	for (i = 0; i < vdev->nvec; i++) {
		ret = devm_request_irq(&pdev->dev, pci_irq_vector(pdev, i),
				       vagx_irq_handler,
				       pdev->msix_enabled ? 0 : IRQF_SHARED,
				       VAGX_DRIVER_NAME, vdev);
		if (ret)
			return ret;
	}
	return 0;
}

static u32 vagx_int_mask(struct vagx_device *vdev)
{
	u32 mask = VAGX_INT_MMU_FAULT__MASK | VAGX_INT_DEVICE_ERROR__MASK;
	u32 q;

	for (q = 0; q < vdev->num_rings; q++)
		mask |= VAGX_INT_JOB_DONE(q) | VAGX_INT_QUEUE_ERROR(q);
	return mask;
}

/*
 * Last reference to the DRM device gone (drmm action): every file is closed,
 * so no VM, queue or job is left but the teardown work they queued. The
 * hardware was quiesced by vagx_device_fini() long before.
 */
static void vagx_device_release(struct drm_device *drm, void *data)
{
	struct vagx_device *vdev = data;

	/* VMs of closed files are torn down asynchronously. */
	destroy_workqueue(vdev->release_wq);
	vagx_rings_fini(vdev);
	destroy_workqueue(vdev->bind_wq);
}

/* ID and VERSION: a vagx device of the contract's major version. */
static int vagx_device_identify(struct vagx_device *vdev, u32 *version)
{
	u32 id = vagx_read(vdev, VAGX_REG_ID);

	if (id != VAGX_ID_MAGIC) {
		drm_err(&vdev->drm, "bad ID register %#x\n", id);
		return -ENODEV;
	}
	*version = vagx_read(vdev, VAGX_REG_VERSION);
	if (VAGX_VERSION_MAJOR_GET(*version) != VAGX_HW_VERSION_MAJOR) {
		drm_err(&vdev->drm, "unsupported hardware contract %u.%u\n",
			VAGX_VERSION_MAJOR_GET(*version),
			VAGX_VERSION_MINOR_GET(*version));
		return -ENODEV;
	}
	return 0;
}

/**
 * vagx_device_init() - Identify, reset and set up the device
 * @vdev: Device, with @pdev and @mmio set.
 *
 * The software state (rings, schedulers, workqueues) lives until the last
 * reference to the DRM device is dropped: files still open after a PCI
 * remove keep using it (every job then fails with -ENODEV).
 *
 * Return: 0 or a negative errno.
 */
int vagx_device_init(struct vagx_device *vdev)
{
	struct pci_dev *pdev = vdev->pdev;
	u32 major;
	int ret;

	ret = vagx_device_identify(vdev, &vdev->hw_version);
	if (ret)
		return ret;
	major = VAGX_VERSION_MAJOR_GET(vdev->hw_version);
	/* Contract 1.1: Q_ABORT can be qualified with the job's seqno. */
	vdev->abort_match = VAGX_VERSION_MINOR_GET(vdev->hw_version) >= 1;
	vdev->hw_features = vagx_read(vdev, VAGX_REG_FEATURES);
	vdev->hw_config = vagx_read(vdev, VAGX_REG_CONFIG);
	vdev->ts_freq = vagx_read(vdev, VAGX_REG_TIMESTAMP_FREQ);
	if (!vdev->ts_freq)
		vdev->ts_freq = VAGX_TIMESTAMP_FREQ_HZ;
	vdev->num_rings = clamp_t(u32, VAGX_CONFIG_NUM_QUEUES_GET(vdev->hw_config),
				  1, VAGX_MAX_QUEUES);

	ret = dma_set_mask_and_coherent(&pdev->dev,
					DMA_BIT_MASK(VAGX_PA_BITS));
	if (ret)
		return ret;
	pci_set_master(pdev);

	ret = vagx_device_reset(vdev);
	if (ret)
		return ret;

	spin_lock_init(&vdev->ts_lock);
	mutex_init(&vdev->tlb_lock);
	mutex_init(&vdev->reset_lock);
	init_completion(&vdev->quiesced);
	mutex_init(&vdev->objs_lock);
	INIT_LIST_HEAD(&vdev->objs);
	mutex_init(&vdev->quarantine_lock);
	INIT_LIST_HEAD(&vdev->quarantine_pts);
	INIT_DELAYED_WORK(&vdev->quarantine_work, vagx_mmu_quarantine_work);
	INIT_LIST_HEAD(&vdev->quarantine_vmas);

	mutex_init(&vdev->vms_lock);
	INIT_LIST_HEAD(&vdev->vms);
	vdev->bind_wq = alloc_ordered_workqueue("vagx-bind", 0);
	if (!vdev->bind_wq)
		return -ENOMEM;
	vdev->release_wq = alloc_workqueue("vagx-release", WQ_UNBOUND, 0);
	if (!vdev->release_wq) {
		ret = -ENOMEM;
		goto err_wq;
	}

	ret = vagx_rings_init(vdev);
	if (ret)
		goto err_wq;
	ret = drmm_add_action(&vdev->drm, vagx_device_release, vdev);
	if (ret)
		goto err_rings;

	ret = vagx_irq_init(vdev);
	if (ret) {
		/* The rings are programmed: stop the device using them. */
		vagx_device_reset(vdev);
		pci_clear_master(pdev);
		return ret;
	}

	vagx_write(vdev, VAGX_REG_INT_ENABLE, vagx_int_mask(vdev));
	vdev->hw_runs_jobs = vagx_rings_probe_nop(vdev);

	drm_info(&vdev->drm,
		 "vagx %u.%u: %u queues, %u cores, features %#x, %d irq vectors\n",
		 major, VAGX_VERSION_MINOR_GET(vdev->hw_version),
		 vdev->num_rings, VAGX_CONFIG_NUM_CORES_GET(vdev->hw_config),
		 vdev->hw_features, vdev->nvec);
	return 0;

err_rings:
	vagx_device_reset(vdev);
	vagx_rings_fini(vdev);
err_wq:
	if (vdev->release_wq)
		destroy_workqueue(vdev->release_wq);
	destroy_workqueue(vdev->bind_wq);
	return ret;
}

/**
 * vagx_device_fini() - Quiesce the device for good
 * @vdev: Device, unplugged (drm_dev_unplug()) or never registered.
 *
 * Called from PCI remove (and failed probes) while BAR0 is still mapped:
 * masks interrupts, resets the device (every queue stops, no completion is
 * written), frees the interrupts, ends every job still in a ring with
 * -ENODEV and turns bus mastering off. Later jobs fail in run_job(); the
 * rings and schedulers are freed with the DRM device (vagx_device_release).
 */
void vagx_device_fini(struct vagx_device *vdev)
{
	int i;

	vagx_write(vdev, VAGX_REG_INT_ENABLE, 0);
	vagx_device_reset(vdev);
	for (i = 0; i < vdev->nvec; i++)
		devm_free_irq(&vdev->pdev->dev, pci_irq_vector(vdev->pdev, i),
			      vdev);
	vdev->nvec = 0;
	pci_free_irq_vectors(vdev->pdev);
	pci_clear_master(vdev->pdev);
	complete_all(&vdev->quiesced);
	cancel_delayed_work_sync(&vdev->quarantine_work);
	vagx_mmu_quarantine_release(vdev);
	vagx_rings_unplug(vdev);
}

/**
 * vagx_device_reset_prepare() - Quiesce the driver before a PCI reset
 * @vdev: Device, bound; the PCI core holds the device lock.
 *
 * A function-level or bus reset (sysfs ``reset``, VFIO, the host) brings
 * every register back to its power-on value: rings, interrupt masks and
 * the scanout configuration are lost, running jobs are dropped without a
 * result. Before it: the display is held still (vagx_kms_reset_prepare():
 * modeset locks, commits applied, vblanks off), every ring's scheduler is
 * parked as for a recovery (vagx_rings_stop()), TLB invalidations wait
 * (@vdev->tlb_lock) and interrupts are masked. Everything stays so until
 * vagx_device_reset_done(), which the PCI core calls from the same task
 * whether or not the reset worked.
 */
void vagx_device_reset_prepare(struct vagx_device *vdev)
{
	u32 wb;
	int i;

	vagx_kms_reset_prepare(vdev);
	vagx_rings_stop(vdev);
	mutex_lock(&vdev->tlb_lock);
	vagx_write(vdev, VAGX_REG_INT_ENABLE, 0);
	for (i = 0; i < vdev->nvec; i++)
		synchronize_irq(pci_irq_vector(vdev->pdev, i));
	/* A writeback that ended before the mask keeps its result. */
	wb = vagx_read(vdev, VAGX_REG_INT_STATUS) &
	     (VAGX_INT_WRITEBACK__MASK | VAGX_INT_HEAD1_WRITEBACK__MASK);
	if (wb) {
		vagx_write(vdev, VAGX_REG_INT_STATUS, wb);
		vagx_kms_irq(vdev, wb);
	}
}

/**
 * vagx_device_reset_done() - Bring the device back after a PCI reset
 * @vdev: Device, quiesced by vagx_device_reset_prepare(); config space
 *        (BARs, bus mastering, MSI-X) restored by the PCI core.
 *
 * Checks that the same device answers (ID, VERSION), resets its GPU domain
 * (a reset that did not happen, or that the device has not finished --
 * STATUS.RESET_BUSY -- is completed or waited for here), restores the
 * interrupt mask, retires the jobs that completed before the reset and
 * ends the ones it dropped with -ECANCELED (vagx_rings_restart()), programs
 * the rings, restores the scanout from the current atomic state and ends
 * the writeback jobs the reset dropped (vagx_kms_reset_done()). Page
 * tables live in guest memory and each job names its root, so only the
 * scanout's roots need writing. A device that does not come back is
 * marked wedged: TLB invalidations fail at once and the quarantine's
 * recovery retries the global reset (vagx_mmu_recover_now()).
 */
void vagx_device_reset_done(struct vagx_device *vdev)
{
	u32 version;
	int ret;

	ret = vagx_device_identify(vdev, &version);
	if (!ret && version != vdev->hw_version)
		ret = -ENODEV;
	if (!ret)
		ret = vagx_device_reset(vdev);
	if (!ret)
		ret = vagx_device_tlb_idle(vdev);
	vagx_write(vdev, VAGX_REG_INT_ENABLE, vagx_int_mask(vdev));
	WRITE_ONCE(vdev->tlb_wedged, !!ret);
	mutex_unlock(&vdev->tlb_lock);
	vagx_rings_restart(vdev);
	vagx_kms_reset_done(vdev);
	atomic_inc(&vdev->pci_resets);
	if (ret) {
		drm_err(&vdev->drm, "device did not come back from a PCI reset (%d): wedged\n",
			ret);
		vagx_mmu_recover_now(vdev);
	} else {
		drm_info(&vdev->drm, "PCI reset: device reinitialised\n");
		vagx_mmu_quarantine_reset_done(vdev);
	}
}
