/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (C) 2025 The vagx authors */
#ifndef __VAGX_DEVICE_H__
#define __VAGX_DEVICE_H__

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/io.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/gpu_scheduler.h>

#include "vagx_drm.h"
#include "vagx_hw.h"

#define VAGX_DRIVER_NAME	"vagx"
#define VAGX_DRIVER_DESC	"vagx tile-based GPU"
#define VAGX_DRIVER_MAJOR	1
#define VAGX_DRIVER_MINOR	2

/* Limits advertised through DRM_VAGX_DEV_QUERY_GPU_INFO. */
#define VAGX_MAX_BIND_OPS	1024
#define VAGX_MAX_SYNCS		128
#define VAGX_MAX_CMDS		64
#define VAGX_MAX_LABEL		4096
#define VAGX_MAX_VMS_PER_FILE	1024
#define VAGX_MAX_QUEUES_PER_FILE 256
/*
 * Largest stride of a &struct drm_vagx_obj_array and largest DEV_QUERY
 * size (documented UAPI limits).
 */
#define VAGX_MAX_STRIDE		4096

/* User VA window: page 0 and the top 4 GiB belong to the kernel. */
#define VAGX_USER_VA_START	0x10000ull
#define VAGX_USER_VA_END	((1ull << VAGX_VA_BITS) - (1ull << 32))

/* Ring geometry and timeouts (defaults of the module parameters). */
#define VAGX_RING_LOG2		8
#define VAGX_JOB_HW_TIMEOUT_MS	5000
#define VAGX_JOB_SCHED_TIMEOUT_MS 10000
/* How long the timeout handler waits for Q_ABORT before resetting the ring. */
#define VAGX_ABORT_GRACE_MS	2000

struct vagx_file_stats;
struct vagx_job;
struct vagx_kms;
struct vagx_pt_budget;
struct vagx_vm;

/**
 * struct vagx_ring - One hardware queue of the device
 *
 * Owns a ring of job slots in coherent DMA memory and the drm_sched
 * scheduler that feeds it. User queues are entities of this scheduler.
 */
struct vagx_ring {
	/** @vdev: Owning device. */
	struct vagx_device *vdev;
	/** @idx: Hardware queue index. */
	u32 idx;
	/** @name: Scheduler name. */
	char name[16];
	/** @sched: Scheduler feeding this ring. */
	struct drm_gpu_scheduler sched;
	/** @sched_ready: @sched was initialised. */
	bool sched_ready;
	/** @slots: CPU address of the slots. */
	u8 *slots;
	/** @slots_dma: Bus address of the slots. */
	dma_addr_t slots_dma;
	/** @tail: Free-running index of the next free slot. */
	u32 tail;
	/** @seqno: Last sequence number handed out. */
	u64 seqno;
	/** @lock: Protects @tail, @seqno and @inflight, taken in IRQ. */
	spinlock_t lock;
	/** @fence_lock: Lock of the hardware fences of this ring. */
	spinlock_t fence_lock;
	/** @fence_ctx: dma_fence context of the hardware fences. */
	u64 fence_ctx;
	/** @inflight: Jobs written to the ring and not retired, in order. */
	struct list_head inflight;
	/** @resets: Number of resets of this ring. */
	atomic_t resets;
	/** @fault: MMU fault latched for the job that halts the ring. */
	struct drm_vagx_fault_info fault;
	/** @fault_valid: @fault is set (under @lock). */
	bool fault_valid;
	/** @abort_seqno: Seqno of the job the driver aborted (under @lock). */
	u64 abort_seqno;
	/** @last_retire_ns: When the last job was retired (under @lock). */
	u64 last_retire_ns;
	/** @aborts: Q_ABORT writes the device accepted (debugfs). */
	atomic_t aborts;
	/** @abort_misses: Q_ABORT writes that hit no job: MISMATCH or NOT_RUNNING. */
	atomic_t abort_misses;
};

/**
 * struct vagx_device - The vagx PCI function
 */
struct vagx_device {
	/** @drm: DRM device, must be first. */
	struct drm_device drm;
	/** @pdev: PCI device. */
	struct pci_dev *pdev;
	/** @mmio: BAR0. */
	void __iomem *mmio;
	/** @kms: Display (vagx_kms.c), NULL without a scanout engine. */
	struct vagx_kms *kms;

	/** @hw_version: VERSION register. */
	u32 hw_version;
	/** @hw_features: FEATURES register. */
	u32 hw_features;
	/** @hw_config: CONFIG register. */
	u32 hw_config;
	/** @ts_freq: TIMESTAMP_FREQ register. */
	u32 ts_freq;
	/** @num_rings: Implemented hardware queues. */
	u32 num_rings;
	/** @nvec: Allocated interrupt vectors. */
	int nvec;

	/** @rings: Hardware queues. */
	struct vagx_ring rings[VAGX_MAX_QUEUES];
	/** @completion: One u64 completion word per ring. */
	u64 *completion;
	/** @completion_dma: Bus address of @completion. */
	dma_addr_t completion_dma;

	/**
	 * @ts_lock: Makes the TIMESTAMP_LO read (which latches the counter)
	 * and the TIMESTAMP_HI read one step: the latch is device-wide, so
	 * two readers interleaving could pair one's LO with the other's HI.
	 */
	spinlock_t ts_lock;

	/** @tlb_lock: Serialises TLB invalidations. */
	struct mutex tlb_lock;
	/** @reset_lock: Serialises ring resets. */
	struct mutex reset_lock;

	/** @bind_wq: Ordered workqueue of the VM bind schedulers. */
	struct workqueue_struct *bind_wq;
	/** @release_wq: Workqueue tearing down VMs. */
	struct workqueue_struct *release_wq;
	/** @vms_lock: Protects @vms. */
	struct mutex vms_lock;
	/** @vms: All VMs of the device, for debugfs. */
	struct list_head vms;
	/** @ring_rr: Round-robin counter for ring selection. */
	atomic_t ring_rr;
	/** @hw_runs_jobs: A NOP job completed at probe time. */
	bool hw_runs_jobs;
	/** @pci_resets: PCI resets the driver went through (debugfs). */
	atomic_t pci_resets;
	/** @abort_match: Q_ABORT.MATCH and Q_ABORT_STATUS exist (contract 1.1). */
	bool abort_match;
	/**
	 * @quiesced: Completed by vagx_device_fini() once the device can no
	 * longer fetch jobs or walk page tables (global reset, bus mastering
	 * off). After an unplug, page-table pages are freed only then.
	 */
	struct completion quiesced;
	/** @dev_node: Entry in the list of devices (job_timeout_ms updates). */
	struct list_head dev_node;

	/**
	 * @tlb_wedged: A TLB invalidation did not complete: later ones fail
	 * at once instead of polling again, until vagx_device_recover() has
	 * reset the device and found TLB_INV_STATUS idle.
	 */
	bool tlb_wedged;
	/**
	 * @resident_bytes: Size of the BOs whose pages were allocated, each
	 * counted once until freed; bounded by vagx_bo_charge_pages().
	 */
	atomic64_t resident_bytes;
	/**
	 * @quarantine_lock: Protects @quarantine_closed and the quarantine
	 * lists: page tables (@quarantine_pts) and mappings holding BO pins
	 * or, for the scanout's kernel VM, references (@quarantine_vmas) that
	 * the device may still use because a TLB invalidation failed. @quarantine_work
	 * releases them after an invalidation of every VM completes (or
	 * vagx_device_fini() once the device is quiesced for good).
	 */
	struct mutex quarantine_lock;
	/**
	 * @quarantine_work: Recovery (vagx_mmu_quarantine_work()): a full
	 * invalidation, resetting a wedged device first, then the release.
	 */
	struct delayed_work quarantine_work;
	/** @quarantine_retry_ms: Delay of the next recovery attempt. */
	unsigned int quarantine_retry_ms;
	/** @quarantine_closed: Quiesced for good: quarantine nothing. */
	bool quarantine_closed;
	/** @quarantine_pts: Quarantined page tables. */
	struct list_head quarantine_pts;
	/** @quarantine_vmas: Quarantined mappings (vm_bo references). */
	struct list_head quarantine_vmas;
	/** @quarantined_pts: Page tables in the quarantine (debugfs). */
	atomic_t quarantined_pts;
	/**
	 * @quarantined_roots: Of those, root tables of torn-down VMs
	 * (debugfs).
	 */
	atomic_t quarantined_roots;
	/** @quarantined_vmas: Mappings in the quarantine (debugfs). */
	atomic_t quarantined_vmas;
	/** @quarantine_recoveries: Quarantines released by recovery (debugfs). */
	atomic_t quarantine_recoveries;

	/** @objs_lock: Protects @objs (debugfs). */
	struct mutex objs_lock;
	/** @objs: All BOs of the device, for debugfs. */
	struct list_head objs;

	/** @inject_bind_fail: Debugfs knob: fail the next N async binds. */
	atomic_t inject_bind_fail;
	/** @inject_bind_prep_fail: Debugfs knob: fail the next N bind preparations. */
	atomic_t inject_bind_prep_fail;
	/**
	 * @inject_tlb_fail: Debugfs knob: the next N TLB invalidations report
	 * a failure (after doing their work), as a device that did not answer.
	 */
	atomic_t inject_tlb_fail;
	/**
	 * @inject_tlb_stuck: Debugfs knob: the next N waits for a TLB
	 * invalidation see TLB_INV_STATUS.BUSY stuck until they time out, as
	 * with a device whose units do not reach a safepoint; a global reset
	 * ends the stall.
	 */
	atomic_t inject_tlb_stuck;
	/**
	 * @inject_wb_drop: Debugfs knob: the next N writeback jobs are queued
	 * without arming the device, as if a reset had dropped the arm; only
	 * a PCI reset ends them.
	 */
	atomic_t inject_wb_drop;
	/** @inject_abort_fail: Debugfs knob: skip Q_ABORT in the next N timeouts. */
	atomic_t inject_abort_fail;
	/**
	 * @inject_abort_delay_ms: Debugfs knob: sleep this long between
	 * choosing the job to abort and writing Q_ABORT (widens the race
	 * with the job's completion for tests).
	 */
	atomic_t inject_abort_delay_ms;
};

/**
 * struct vagx_file - Per-open-file state
 */
struct vagx_file {
	/** @vdev: Device. */
	struct vagx_device *vdev;
	/** @vms: VM id -> struct vagx_vm. */
	struct xarray vms;
	/** @queues: Queue id -> struct vagx_queue. */
	struct xarray queues;
	/** @stats: Engine usage, shared with the queues. */
	struct vagx_file_stats *stats;
	/** @lock: Serialises creation/destruction of ids. */
	struct mutex lock;
	/** @pt_budget: Page-table memory the file's VMs may use. */
	struct vagx_pt_budget *pt_budget;
};

#define to_vagx_device(d) container_of_const(d, struct vagx_device, drm)

static inline u32 vagx_read(struct vagx_device *vdev, u32 reg)
{
	return readl(vdev->mmio + reg);
}

static inline void vagx_write(struct vagx_device *vdev, u32 reg, u32 val)
{
	writel(val, vdev->mmio + reg);
}

int vagx_device_init(struct vagx_device *vdev);
void vagx_device_fini(struct vagx_device *vdev);
int vagx_device_reset(struct vagx_device *vdev);
void vagx_device_reset_prepare(struct vagx_device *vdev);
void vagx_device_reset_done(struct vagx_device *vdev);
u64 vagx_device_timestamp(struct vagx_device *vdev);
int vagx_device_tlb_idle(struct vagx_device *vdev);
int vagx_device_tlb_invalidate_all(struct vagx_device *vdev);
int vagx_device_tlb_invalidate(struct vagx_device *vdev, u64 root,
			       u64 va, u64 size);

void vagx_debugfs_init(struct drm_minor *minor);

#endif /* __VAGX_DEVICE_H__ */
