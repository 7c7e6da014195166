// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (C) 2025 The vagx authors */

/*
 * Display: atomic KMS on the scanout engine (docs/display.md).
 *
 * Every scanout head the device has (CONFIG.NUM_SCANOUTS: one before
 * contract 1.9, two since) is a struct vagx_kms_head: a CRTC, a primary,
 * VAGX_SCANOUT_OVERLAYS overlay and a cursor plane, an encoder and a virtual
 * connector whose status is the head's SCANOUT_STATUS.CONNECTED (a writeback
 * connector, vagx_writeback.c, writes what the head shows into memory). The
 * heads are alike: the same code drives each through its register block
 * (head h's SCANOUT_* at the head-0 offset + h * SCANOUT_HEAD_STRIDE) and its
 * interrupt bits. The device composes each head's overlay layers (plane
 * alpha, z-order) and cursor layer over its framebuffer and, on request,
 * computes a CRC of every composed frame (the CRTC's "auto" CRC source).
 * The engine reads the framebuffers through the device MMU, so every
 * framebuffer is mapped into a kernel-owned VM (vagx_vm_create_kernel(): an
 * ordinary vagx_vm with its own page-table root, never visible to user
 * space) when it is created and unmapped when it is destroyed.
 *
 * The scanout registers are shadowed: the plane update writes them and the
 * CRTC flush sets SCANOUT_COMMIT.PENDING, which the device applies at the
 * next vblank (immediately while the head is disabled). The flip completes
 * on the first VBLANK interrupt at which PENDING reads 0; that is when the
 * page-flip event is sent.
 *
 * Hotplug (1.9): INT HOTPLUG says some head's CONNECTED changed; a work item
 * runs drm_helper_hpd_irq_event(), which re-detects the connectors and sends
 * the uevent. A disconnected head stays as its last commit left it until
 * user space (or the fbdev client) disables it, as with any DRM connector.
 */

#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/math64.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_blend.h>
#include <drm/drm_crtc.h>
#include <drm/drm_drv.h>
#include <drm/drm_edid.h>
#include <drm/drm_encoder.h>
#include <drm/drm_fbdev_ttm.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_atomic_helper.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_mm.h>
#include <drm/drm_modeset_helper_vtables.h>
#include <drm/drm_modeset_lock.h>
#include <drm/drm_plane.h>
#include <drm/drm_print.h>
#include <drm/drm_probe_helper.h>
#include <drm/drm_vblank.h>

#include "vagx_device.h"
#include "vagx_gem.h"
#include "vagx_kms.h"
#include "vagx_mmu.h"
#include "vagx_vm.h"
#include "vagx_writeback.h"

/* Scanout address space: where framebuffers are mapped in the scanout VM. */
#define VAGX_KMS_VA_START	BIT_ULL(32)
#define VAGX_KMS_VA_SIZE	BIT_ULL(32)

#define VAGX_KMS_DEFAULT_WIDTH	1024
#define VAGX_KMS_DEFAULT_HEIGHT	768

/* One SCANOUT_OVERLAY register block. */
struct vagx_kms_overlay_regs {
	u32 control;
	u32 pos;
	u32 size;
	u32 pitch;
	u64 va;
};

/* The scanout registers the driver programmed, for vagx_kms_hw_restore(). */
struct vagx_kms_regs {
	u32 format;
	u32 size;
	u32 pitch;
	u64 va;
	u32 cursor_control;
	u32 cursor_pos;
	u32 cursor_size;
	u32 cursor_pitch;
	u64 cursor_va;
	struct vagx_kms_overlay_regs overlay[VAGX_SCANOUT_OVERLAYS];
	bool crc;
	bool enabled;
	/** @enable_ts: TIMESTAMP when the head was last enabled. */
	u64 enable_ts;
};

/* A plane of one head. */
struct vagx_plane {
	struct drm_plane base;
	struct vagx_kms_head *head;
};

/* The INT bits of a head's events (head 0's are those of 1.0-1.8). */
struct vagx_kms_head_ints {
	u32 vblank;
	u32 fault;
	u32 writeback;
};

static const struct vagx_kms_head_ints vagx_kms_head_ints[] = {
	{ VAGX_INT_VBLANK__MASK, VAGX_INT_SCANOUT_FAULT__MASK,
	  VAGX_INT_WRITEBACK__MASK },
	{ VAGX_INT_HEAD1_VBLANK__MASK, VAGX_INT_HEAD1_SCANOUT_FAULT__MASK,
	  VAGX_INT_HEAD1_WRITEBACK__MASK },
};

static_assert(ARRAY_SIZE(vagx_kms_head_ints) == VAGX_SCANOUT_MAX_HEADS);

/* One scanout head: its KMS objects and the state of its registers. */
struct vagx_kms_head {
	struct vagx_kms *kms;
	/** @index: Head number, also the CRTC's index. */
	unsigned int index;
	/** @ints: The head's INT bits. */
	const struct vagx_kms_head_ints *ints;
	struct vagx_plane primary;
	struct vagx_plane cursor;
	struct vagx_plane overlay[VAGX_SCANOUT_OVERLAYS];
	struct drm_crtc crtc;
	struct drm_encoder encoder;
	struct drm_connector connector;
	/** @crc_count: SCANOUT_CRC_COUNT of the last reported CRC (irq). */
	u32 crc_count;
	/** @event: Flip completion pending on PENDING == 0 (event_lock). */
	struct drm_pending_vblank_event *event;
	/** @regs: Last programmed state (kms->irq_lock). */
	struct vagx_kms_regs regs;
	/** @wb: The writeback connector (FEATURES.WRITEBACK), or NULL. */
	struct vagx_wb *wb;
	/** @reset_vblank_off: A PCI reset turned the CRTC's vblanks off. */
	bool reset_vblank_off;
};

struct vagx_kms {
	struct vagx_device *vdev;
	/** @heads: CONFIG.NUM_SCANOUTS, at most VAGX_SCANOUT_MAX_HEADS. */
	unsigned int num_heads;
	struct vagx_kms_head head[VAGX_SCANOUT_MAX_HEADS];
	/** @refresh_mhz: SCANOUT_REFRESH. */
	u32 refresh_mhz;
	u32 max_width;
	u32 max_height;

	/** @vm_lock: Protects @mm. */
	struct mutex vm_lock;
	/** @mm: Where framebuffers are mapped in @vm. */
	struct drm_mm mm;
	/** @vm: The scanout's kernel VM (vagx_vm.c), shared by the heads. */
	struct vagx_vm *vm;

	/**
	 * @irq_lock: Serialises every head's @regs, the latched
	 * SCANOUT_VBLANK_TS and TIMESTAMP reads, and (1.0 devices only)
	 * read-modify-writes of INT_ENABLE.
	 */
	spinlock_t irq_lock;
	/**
	 * @hw_v11: Contract 1.1: INT_ENABLE_SET/CLEAR, SCANOUT_VBLANK_TS and a
	 * global reset that leaves the scanout running.
	 */
	bool hw_v11;
	/** @has_hotplug: Contract 1.9: SCANOUT_STATUS.CONNECTED, INT HOTPLUG. */
	bool has_hotplug;
	/** @has_cursor: FEATURES.CURSOR: the cursor layer exists. */
	bool has_cursor;
	/** @has_overlay: FEATURES.OVERLAY: the overlay layers exist (1.6). */
	bool has_overlay;
	/** @has_crc: FEATURES.SCANOUT_CRC: the frame CRC exists. */
	bool has_crc;
	/** @faults: SCANOUT_FAULT interrupts seen, of every head. */
	atomic_t faults;
	/** @hotplug_work: Re-detects the connectors after INT HOTPLUG. */
	struct work_struct hotplug_work;
	/** @reset_ctx: Modeset locks held across a PCI reset. */
	struct drm_modeset_acquire_ctx reset_ctx;
};

struct vagx_fb {
	struct drm_framebuffer base;
	/** @node: VA range of the framebuffer in the scanout VM. */
	struct drm_mm_node node;
};

static const u32 vagx_kms_formats[] = {
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_ARGB8888,
	DRM_FORMAT_XBGR8888,
	DRM_FORMAT_ABGR8888,
	DRM_FORMAT_RGB565,
};

static const u32 vagx_kms_cursor_formats[] = {
	DRM_FORMAT_ARGB8888,
};

static const char * const vagx_kms_crc_sources[] = { "auto" };

static const u64 vagx_kms_modifiers[] = {
	DRM_FORMAT_MOD_LINEAR,
	DRM_FORMAT_MOD_INVALID,
};

/* Modes of the virtual connector, largest first; 1024x768 is preferred. */
static const struct {
	u16 w, h;
} vagx_kms_sizes[] = {
	{ 1920, 1080 }, { 1680, 1050 }, { 1600, 900 }, { 1440, 900 },
	{ 1280, 1024 }, { 1280, 800 }, { 1280, 720 }, { 1024, 768 },
	{ 800, 600 }, { 640, 480 },
};

static inline struct vagx_kms *to_vagx_kms(struct drm_device *drm)
{
	return to_vagx_device(drm)->kms;
}

static inline struct vagx_fb *to_vagx_fb(struct drm_framebuffer *fb)
{
	return container_of(fb, struct vagx_fb, base);
}

static inline struct vagx_kms_head *crtc_to_head(struct drm_crtc *crtc)
{
	return container_of(crtc, struct vagx_kms_head, crtc);
}

static inline struct vagx_kms_head *plane_to_head(struct drm_plane *plane)
{
	return container_of(plane, struct vagx_plane, base)->head;
}

static inline struct vagx_kms_head *
connector_to_head(struct drm_connector *connector)
{
	return container_of(connector, struct vagx_kms_head, connector);
}

/* Head h's copy of the SCANOUT_* register at head-0 offset @reg. */
static inline u32 vagx_head_reg(const struct vagx_kms_head *head, u32 reg)
{
	return reg + head->index * VAGX_SCANOUT_HEAD_STRIDE;
}

static inline u32 vagx_head_read(struct vagx_kms_head *head, u32 reg)
{
	return vagx_read(head->kms->vdev, vagx_head_reg(head, reg));
}

static inline void vagx_head_write(struct vagx_kms_head *head, u32 reg, u32 v)
{
	vagx_write(head->kms->vdev, vagx_head_reg(head, reg), v);
}

/**
 * vagx_kms_hw_format() - The contract's scanout_format of a DRM fourcc
 * @fourcc: DRM_FORMAT_*.
 *
 * Returns: the VAGX_SCANOUT_FORMAT_*, or 0 if the engine has none.
 */
u32 vagx_kms_hw_format(u32 fourcc)
{
	switch (fourcc) {
	case DRM_FORMAT_XRGB8888:
		return VAGX_SCANOUT_FORMAT_XRGB8888;
	case DRM_FORMAT_ARGB8888:
		return VAGX_SCANOUT_FORMAT_ARGB8888;
	case DRM_FORMAT_XBGR8888:
		return VAGX_SCANOUT_FORMAT_XBGR8888;
	case DRM_FORMAT_ABGR8888:
		return VAGX_SCANOUT_FORMAT_ABGR8888;
	case DRM_FORMAT_RGB565:
		return VAGX_SCANOUT_FORMAT_RGB565;
	}
	return 0;
}

/* ---- Scanout VM ------------------------------------------------------- */

/**
 * vagx_kms_map_bo() - Map a BO into the scanout VM
 * @drm: DRM device with a scanout.
 * @obj: The BO.
 * @node: Receives the VA range.
 * @read_only: Map it read-only (what the engine reads) or writable (a
 *             writeback target).
 *
 * Returns: 0 or a negative errno.
 */
int vagx_kms_map_bo(struct drm_device *drm, struct drm_gem_object *obj,
		    struct drm_mm_node *node, bool read_only)
{
	struct vagx_kms *kms = to_vagx_kms(drm);
	int ret;

	mutex_lock(&kms->vm_lock);
	ret = drm_mm_insert_node_generic(&kms->mm, node, obj->size,
					 VAGX_PAGE_SIZE, 0, DRM_MM_INSERT_BEST);
	mutex_unlock(&kms->vm_lock);
	if (ret)
		return ret;
	ret = vagx_vm_map_kernel(kms->vm, obj, node->start, node->size,
				 read_only, true);
	if (ret) {
		mutex_lock(&kms->vm_lock);
		drm_mm_remove_node(node);
		mutex_unlock(&kms->vm_lock);
	}
	return ret;
}

/**
 * vagx_kms_unmap_bo() - Undo vagx_kms_map_bo()
 * @drm: DRM device.
 * @node: The VA range; nothing happens if it is not allocated.
 */
void vagx_kms_unmap_bo(struct drm_device *drm, struct drm_mm_node *node)
{
	struct vagx_kms *kms = to_vagx_kms(drm);

	if (!drm_mm_node_allocated(node))
		return;
	vagx_vm_unmap_kernel(kms->vm, node->start, node->size);
	mutex_lock(&kms->vm_lock);
	drm_mm_remove_node(node);
	mutex_unlock(&kms->vm_lock);
}

/**
 * vagx_kms_root() - Page-table root of the scanout VM
 * @drm: DRM device with a scanout.
 *
 * Returns: the root's DMA address, for SCANOUT_ROOT and SCANOUT_WB_ROOT.
 */
u64 vagx_kms_root(struct drm_device *drm)
{
	return vagx_vm_root_dma(to_vagx_kms(drm)->vm);
}

/* ---- Framebuffers ----------------------------------------------------- */

static void vagx_fb_destroy(struct drm_framebuffer *fb)
{
	vagx_kms_unmap_bo(fb->dev, &to_vagx_fb(fb)->node);
	/* Frees the vagx_fb: base is its first member. */
	drm_gem_fb_destroy(fb);
}

static const struct drm_framebuffer_funcs vagx_fb_funcs = {
	.destroy = vagx_fb_destroy,
	.create_handle = drm_gem_fb_create_handle,
};

static struct drm_framebuffer *
vagx_fb_create(struct drm_device *drm, struct drm_file *file,
	       const struct drm_mode_fb_cmd2 *cmd)
{
	struct vagx_fb *vfb;
	int ret;

	if (!vagx_kms_hw_format(cmd->pixel_format))
		return ERR_PTR(-EINVAL);
	if ((cmd->flags & DRM_MODE_FB_MODIFIERS) &&
	    cmd->modifier[0] != DRM_FORMAT_MOD_LINEAR)
		return ERR_PTR(-EINVAL);
	/* SCANOUT_PITCH and SCANOUT_FB_VA must be 4-byte aligned. */
	if (!IS_ALIGNED(cmd->pitches[0], 4) || !IS_ALIGNED(cmd->offsets[0], 4))
		return ERR_PTR(-EINVAL);

	vfb = kzalloc(sizeof(*vfb), GFP_KERNEL);
	if (!vfb)
		return ERR_PTR(-ENOMEM);
	ret = drm_gem_fb_init_with_funcs(drm, &vfb->base, file, cmd,
					 &vagx_fb_funcs);
	if (ret) {
		kfree(vfb);
		return ERR_PTR(ret);
	}
	/* The scanout engine only reads. */
	ret = vagx_kms_map_bo(drm, vfb->base.obj[0], &vfb->node, true);
	if (ret) {
		drm_framebuffer_put(&vfb->base);
		return ERR_PTR(ret);
	}
	return &vfb->base;
}

/**
 * vagx_kms_dumb_create() - DRM_IOCTL_MODE_CREATE_DUMB
 * @file: DRM file.
 * @drm: DRM device.
 * @args: Dumb buffer request; pitch and size are returned.
 *
 * A BO (vagx_bo_create_with_handle(), so it is listed and capped like
 * every other) whose pitch is a multiple of 64 bytes (the scanout needs 4).
 *
 * Return: 0 or a negative errno.
 */
int vagx_kms_dumb_create(struct drm_file *file, struct drm_device *drm,
			 struct drm_mode_create_dumb *args)
{
	u64 pitch, size;
	int ret;

	if (!args->width || !args->height || !args->bpp)
		return -EINVAL;
	pitch = ALIGN(DIV_ROUND_UP((u64)args->width * args->bpp, 8), 64);
	if (pitch > U32_MAX || pitch * args->height > U32_MAX)
		return -EINVAL;
	size = PAGE_ALIGN(pitch * args->height);
	ret = vagx_bo_create_with_handle(file, drm, &size, 0, NULL,
					 &args->handle);
	if (ret)
		return ret;
	args->pitch = pitch;
	args->size = size;
	return 0;
}

/* ---- Hardware programming --------------------------------------------- */

static void vagx_kms_write_overlay_regs(struct vagx_kms_head *head)
{
	unsigned int i;

	for (i = 0; i < VAGX_SCANOUT_OVERLAYS; i++) {
		const struct vagx_kms_overlay_regs *o = &head->regs.overlay[i];

		vagx_head_write(head, VAGX_REG_SCANOUT_OVERLAY_POS(i), o->pos);
		vagx_head_write(head, VAGX_REG_SCANOUT_OVERLAY_SIZE(i), o->size);
		vagx_head_write(head, VAGX_REG_SCANOUT_OVERLAY_PITCH(i),
				o->pitch);
		vagx_head_write(head, VAGX_REG_SCANOUT_OVERLAY_VA_LO(i),
				lower_32_bits(o->va));
		vagx_head_write(head, VAGX_REG_SCANOUT_OVERLAY_VA_HI(i),
				upper_32_bits(o->va));
		vagx_head_write(head, VAGX_REG_SCANOUT_OVERLAY_CONTROL(i),
				o->control);
	}
}

static void vagx_kms_write_regs(struct vagx_kms_head *head)
{
	struct vagx_kms *kms = head->kms;
	const struct vagx_kms_regs *r = &head->regs;
	u64 root = vagx_vm_root_dma(kms->vm);

	vagx_head_write(head, VAGX_REG_SCANOUT_FORMAT, r->format);
	vagx_head_write(head, VAGX_REG_SCANOUT_SIZE, r->size);
	vagx_head_write(head, VAGX_REG_SCANOUT_PITCH, r->pitch);
	vagx_head_write(head, VAGX_REG_SCANOUT_FB_VA_LO, lower_32_bits(r->va));
	vagx_head_write(head, VAGX_REG_SCANOUT_FB_VA_HI, upper_32_bits(r->va));
	vagx_head_write(head, VAGX_REG_SCANOUT_ROOT_LO, lower_32_bits(root));
	vagx_head_write(head, VAGX_REG_SCANOUT_ROOT_HI, upper_32_bits(root));
	if (kms->has_overlay)
		vagx_kms_write_overlay_regs(head);
	if (!kms->has_cursor)
		return;
	vagx_head_write(head, VAGX_REG_SCANOUT_CURSOR_POS, r->cursor_pos);
	vagx_head_write(head, VAGX_REG_SCANOUT_CURSOR_SIZE, r->cursor_size);
	vagx_head_write(head, VAGX_REG_SCANOUT_CURSOR_PITCH, r->cursor_pitch);
	vagx_head_write(head, VAGX_REG_SCANOUT_CURSOR_VA_LO,
			lower_32_bits(r->cursor_va));
	vagx_head_write(head, VAGX_REG_SCANOUT_CURSOR_VA_HI,
			upper_32_bits(r->cursor_va));
	vagx_head_write(head, VAGX_REG_SCANOUT_CURSOR_CONTROL,
			r->cursor_control);
}

static void vagx_kms_int_enable(struct vagx_kms *kms, u32 bits, bool on)
{
	struct vagx_device *vdev = kms->vdev;
	unsigned long flags;
	u32 v;

	/* Atomic in the device: no race with the GPU side's INT_ENABLE use. */
	if (kms->hw_v11) {
		vagx_write(vdev, on ? VAGX_REG_INT_ENABLE_SET :
			   VAGX_REG_INT_ENABLE_CLEAR, bits);
		return;
	}
	spin_lock_irqsave(&kms->irq_lock, flags);
	v = vagx_read(vdev, VAGX_REG_INT_ENABLE);
	v = on ? v | bits : v & ~bits;
	vagx_write(vdev, VAGX_REG_INT_ENABLE, v);
	spin_unlock_irqrestore(&kms->irq_lock, flags);
}

/*
 * The INT bits the driver keeps enabled whatever the vblanks do: every
 * head's SCANOUT_FAULT, its WRITEBACK if it has a writeback connector, and
 * HOTPLUG on a 1.9 device.
 */
static u32 vagx_kms_int_always(struct vagx_kms *kms)
{
	u32 bits = kms->has_hotplug ? VAGX_INT_HOTPLUG__MASK : 0;
	unsigned int h;

	for (h = 0; h < kms->num_heads; h++) {
		bits |= kms->head[h].ints->fault;
		if (kms->head[h].wb)
			bits |= kms->head[h].ints->writeback;
	}
	return bits;
}

/* One head's part of vagx_kms_hw_restore(); kms->irq_lock held. */
static void vagx_kms_head_restore(struct vagx_kms_head *head)
{
	struct vagx_kms *kms = head->kms;

	if (kms->has_crc) {
		head->crc_count = vagx_head_read(head,
						 VAGX_REG_SCANOUT_CRC_COUNT);
		vagx_head_write(head, VAGX_REG_SCANOUT_CRC_CONTROL,
				VAGX_SCANOUT_CRC_CONTROL_ENABLE(head->regs.crc));
	}
	if (!head->regs.enabled)
		return;
	/* Frames (and SCANOUT_VBLANK_TS) start again from here. */
	head->regs.enable_ts = vagx_device_timestamp(kms->vdev);
	vagx_kms_write_regs(head);
	vagx_head_write(head, VAGX_REG_SCANOUT_COMMIT,
			VAGX_SCANOUT_COMMIT_PENDING(1));
	vagx_head_write(head, VAGX_REG_SCANOUT_CONTROL,
			VAGX_SCANOUT_CONTROL_ENABLE(1));
}

/**
 * vagx_kms_hw_restore() - Reprogram the scanout after a global reset
 * @vdev: Device.
 *
 * A 1.1 device's global RESET.START leaves the scanout running (display
 * reset domain, docs/hw/registers.md); a 1.0 device's disables it, and a
 * PCI reset resets it on both. Call this after such a reset (and after
 * INT_ENABLE was rewritten) to show every head's current framebuffer
 * again. The vblank counters restart at 0 after a reset that touched the
 * scanout.
 */
void vagx_kms_hw_restore(struct vagx_device *vdev)
{
	struct vagx_kms *kms = vdev->kms;
	u32 bits;
	unsigned long flags;
	unsigned int h;

	if (!kms)
		return;
	bits = vagx_kms_int_always(kms);
	for (h = 0; h < kms->num_heads; h++) {
		struct drm_vblank_crtc *vblank =
			drm_crtc_vblank_crtc(&kms->head[h].crtc);

		if (READ_ONCE(vblank->enabled))
			bits |= kms->head[h].ints->vblank;
	}
	vagx_kms_int_enable(kms, bits, true);

	spin_lock_irqsave(&kms->irq_lock, flags);
	for (h = 0; h < kms->num_heads; h++)
		vagx_kms_head_restore(&kms->head[h]);
	spin_unlock_irqrestore(&kms->irq_lock, flags);
}

/*
 * Wait until the CRTC's last commit has programmed the hardware (hw_done):
 * its tail writes no register after that, and the head's regs are its
 * state. Bounded as the atomic helpers' own waits are.
 */
static void vagx_kms_wait_hw_done(struct drm_crtc *crtc)
{
	struct drm_crtc_commit *commit;

	spin_lock(&crtc->commit_lock);
	commit = list_first_entry_or_null(&crtc->commit_list,
					  struct drm_crtc_commit, commit_entry);
	if (commit)
		drm_crtc_commit_get(commit);
	spin_unlock(&crtc->commit_lock);
	if (!commit)
		return;
	if (!wait_for_completion_timeout(&commit->hw_done, 10 * HZ))
		drm_err(crtc->dev, "reset: commit not applied within 10 s\n");
	drm_crtc_commit_put(commit);
}

/**
 * vagx_kms_reset_prepare() - Hold the display still across a PCI reset
 * @vdev: Device.
 *
 * Takes every modeset lock (no commit starts until vagx_kms_reset_done()),
 * waits for each CRTC's last commit to reach the hardware, and turns the
 * active CRTCs' vblanks off while the counters still answer, so that DRM's
 * counts do not jump when the reset restarts SCANOUT_VBLANK_COUNT at 0. A
 * flip waiting for its vblank completes after the reset.
 */
void vagx_kms_reset_prepare(struct vagx_device *vdev)
{
	struct vagx_kms *kms = vdev->kms;
	unsigned int h;

	if (!kms)
		return;
	drm_modeset_acquire_init(&kms->reset_ctx, 0);
	while (drm_modeset_lock_all_ctx(&vdev->drm, &kms->reset_ctx) ==
	       -EDEADLK)
		drm_modeset_backoff(&kms->reset_ctx);
	for (h = 0; h < kms->num_heads; h++) {
		struct vagx_kms_head *head = &kms->head[h];

		vagx_kms_wait_hw_done(&head->crtc);
		head->reset_vblank_off = head->crtc.state->active;
		if (head->reset_vblank_off)
			drm_crtc_vblank_off(&head->crtc);
	}
}

/**
 * vagx_kms_reset_done() - Show the current atomic state again after a reset
 * @vdev: Device, its interrupt mask restored.
 *
 * The reset dropped the armed writebacks: their jobs end with -ECANCELED.
 * vagx_kms_hw_restore() programs the scanout from the registers of the
 * committed state; the vblanks come back on with DRM's counts continuing.
 */
void vagx_kms_reset_done(struct vagx_device *vdev)
{
	struct vagx_kms *kms = vdev->kms;
	unsigned int h;

	if (!kms)
		return;
	for (h = 0; h < kms->num_heads; h++)
		if (kms->head[h].wb)
			vagx_wb_reset(kms->head[h].wb);
	vagx_kms_hw_restore(vdev);
	for (h = 0; h < kms->num_heads; h++)
		if (kms->head[h].reset_vblank_off)
			drm_crtc_vblank_on(&kms->head[h].crtc);
	drm_modeset_drop_locks(&kms->reset_ctx);
	drm_modeset_acquire_fini(&kms->reset_ctx);
	/* A display plugged or unplugged while INT_ENABLE was 0. */
	if (kms->has_hotplug)
		schedule_work(&kms->hotplug_work);
}

/*
 * The device computed the CRC of the frame that started at the vblank
 * SCANOUT_CRC_COUNT before raising the head's VBLANK; report it with DRM's
 * count of that vblank.
 */
static void vagx_kms_crc_irq(struct vagx_kms_head *head)
{
	struct vagx_kms *kms = head->kms;
	u32 count, value, now;

	spin_lock(&kms->irq_lock);
	if (!head->regs.crc) {
		spin_unlock(&kms->irq_lock);
		return;
	}
	do {
		count = vagx_head_read(head, VAGX_REG_SCANOUT_CRC_COUNT);
		value = vagx_head_read(head, VAGX_REG_SCANOUT_CRC_VALUE);
	} while (count != vagx_head_read(head, VAGX_REG_SCANOUT_CRC_COUNT));
	now = vagx_head_read(head, VAGX_REG_SCANOUT_VBLANK_COUNT);
	if (count == head->crc_count) {
		spin_unlock(&kms->irq_lock);
		return;
	}
	head->crc_count = count;
	spin_unlock(&kms->irq_lock);

	drm_crtc_add_crc_entry(&head->crtc, true,
			       drm_crtc_vblank_count(&head->crtc) - (now - count),
			       &value);
}

/* One head's events among @pending; hard-irq context. */
static void vagx_kms_head_irq(struct vagx_kms_head *head, u32 pending)
{
	struct vagx_kms *kms = head->kms;
	struct vagx_device *vdev = kms->vdev;
	struct drm_crtc *crtc = &head->crtc;
	bool put = false;

	if (pending & head->ints->fault) {
		atomic_inc(&kms->faults);
		drm_dbg_kms(&vdev->drm, "head %u: scanout fault, SCANOUT_STATUS %#x\n",
			    head->index,
			    vagx_head_read(head, VAGX_REG_SCANOUT_STATUS));
	}
	/* Before the flip's event: the frame was written before VBLANK. */
	if ((pending & head->ints->writeback) && head->wb)
		vagx_wb_irq(head->wb);
	if (!(pending & head->ints->vblank))
		return;

	drm_crtc_handle_vblank(crtc);
	if (kms->has_crc)
		vagx_kms_crc_irq(head);
	spin_lock(&vdev->drm.event_lock);
	if (head->event &&
	    !VAGX_SCANOUT_COMMIT_PENDING_GET(vagx_head_read(head,
							    VAGX_REG_SCANOUT_COMMIT))) {
		drm_crtc_send_vblank_event(crtc, head->event);
		head->event = NULL;
		put = true;
	}
	spin_unlock(&vdev->drm.event_lock);
	if (put)
		drm_crtc_vblank_put(crtc);
}

/**
 * vagx_kms_irq() - Display events of the interrupt handler
 * @vdev: Device.
 * @pending: INT_PENDING bits already acknowledged by the caller.
 *
 * Called in hard-irq context: each head's bits go to its CRTC, HOTPLUG to
 * the hotplug work.
 */
void vagx_kms_irq(struct vagx_device *vdev, u32 pending)
{
	struct vagx_kms *kms = vdev->kms;
	unsigned int h;

	if (!kms)
		return;
	for (h = 0; h < kms->num_heads; h++)
		vagx_kms_head_irq(&kms->head[h], pending);
	if ((pending & VAGX_INT_HOTPLUG__MASK) && kms->has_hotplug)
		schedule_work(&kms->hotplug_work);
}

/* ---- Plane ------------------------------------------------------------ */

/*
 * No scaling; overlays and the cursor may be positioned, only the cursor may
 * be on with the CRTC off.
 */
static int vagx_plane_check_state(struct drm_plane_state *new,
				  struct drm_atomic_state *state,
				  bool can_position, bool can_update_disabled)
{
	struct drm_crtc_state *crtc_state = NULL;

	if (new->crtc)
		crtc_state = drm_atomic_get_new_crtc_state(state, new->crtc);
	return drm_atomic_helper_check_plane_state(new, crtc_state,
						   DRM_PLANE_NO_SCALING,
						   DRM_PLANE_NO_SCALING,
						   can_position,
						   can_update_disabled);
}

static int vagx_plane_atomic_check(struct drm_plane *plane,
				   struct drm_atomic_state *state)
{
	struct drm_plane_state *new = drm_atomic_get_new_plane_state(state,
								      plane);
	struct drm_framebuffer *fb = new->fb;
	u32 x;
	int ret;

	ret = vagx_plane_check_state(new, state, false, false);
	if (ret || !new->visible)
		return ret;

	/* The head shows exactly the source rectangle: no scaling, no offset. */
	x = new->src.x1 >> 16;
	if (!IS_ALIGNED(x * fb->format->cpp[0], 4))
		return -EINVAL;
	if (drm_rect_width(&new->dst) > to_vagx_kms(plane->dev)->max_width ||
	    drm_rect_height(&new->dst) > to_vagx_kms(plane->dev)->max_height)
		return -EINVAL;
	return 0;
}

/* VA of the source rectangle's top-left pixel in the scanout VM. */
static u64 vagx_plane_va(struct drm_plane_state *new)
{
	struct drm_framebuffer *fb = new->fb;

	return to_vagx_fb(fb)->node.start + fb->offsets[0] +
	       (u64)(new->src_y >> 16) * fb->pitches[0] +
	       (new->src_x >> 16) * fb->format->cpp[0];
}

static void vagx_plane_primary_regs(struct vagx_kms_regs *regs,
				    struct drm_plane_state *new)
{
	struct drm_framebuffer *fb = new->fb;

	regs->format = VAGX_SCANOUT_FORMAT_FORMAT(vagx_kms_hw_format(fb->format->format));
	regs->size = VAGX_SCANOUT_SIZE_WIDTH(drm_rect_width(&new->dst)) |
		     VAGX_SCANOUT_SIZE_HEIGHT(drm_rect_height(&new->dst));
	regs->pitch = fb->pitches[0];
	regs->va = vagx_plane_va(new);
}

/*
 * The cursor layer is programmed unclipped: the device clips it at the
 * screen's edges. Visible, it lies in (-CURSOR_MAX, SCANOUT_MAX): int16.
 */
static void vagx_plane_cursor_regs(struct vagx_kms_regs *regs,
				   struct drm_plane_state *new)
{
	if (!new->fb || !new->visible) {
		regs->cursor_control = 0;
		return;
	}
	regs->cursor_pos = VAGX_SCANOUT_CURSOR_POS_X((u16)new->crtc_x) |
			   VAGX_SCANOUT_CURSOR_POS_Y((u16)new->crtc_y);
	regs->cursor_size = VAGX_SCANOUT_CURSOR_SIZE_WIDTH(new->crtc_w) |
			    VAGX_SCANOUT_CURSOR_SIZE_HEIGHT(new->crtc_h);
	regs->cursor_pitch = new->fb->pitches[0];
	regs->cursor_va = vagx_plane_va(new);
	regs->cursor_control = VAGX_SCANOUT_CURSOR_CONTROL_ENABLE(1);
}

/*
 * An overlay layer is programmed unclipped, as the cursor: the device clips
 * it. Its place among the overlays is the plane's normalized zpos (DRM
 * breaks ties by plane id, the device by overlay index: the same order);
 * DRM's 16-bit plane alpha is rounded to the layer's 8 bits.
 */
static void vagx_plane_overlay_regs(struct vagx_kms_overlay_regs *o,
				    struct drm_plane_state *new)
{
	struct drm_framebuffer *fb = new->fb;

	if (!fb || !new->visible) {
		o->control = 0;
		return;
	}
	o->pos = VAGX_SCANOUT_OVERLAY_POS_X((u16)new->crtc_x) |
		 VAGX_SCANOUT_OVERLAY_POS_Y((u16)new->crtc_y);
	o->size = VAGX_SCANOUT_OVERLAY_SIZE_WIDTH(new->crtc_w) |
		  VAGX_SCANOUT_OVERLAY_SIZE_HEIGHT(new->crtc_h);
	o->pitch = fb->pitches[0];
	o->va = vagx_plane_va(new);
	o->control = VAGX_SCANOUT_OVERLAY_CONTROL_ENABLE(1) |
		     VAGX_SCANOUT_OVERLAY_CONTROL_FORMAT(vagx_kms_hw_format(fb->format->format)) |
		     VAGX_SCANOUT_OVERLAY_CONTROL_ZPOS(new->normalized_zpos) |
		     VAGX_SCANOUT_OVERLAY_CONTROL_ALPHA(DIV_ROUND_CLOSEST(new->alpha * 255,
									  DRM_BLEND_ALPHA_OPAQUE));
}

/*
 * Every plane; called for a cursor or overlay being disabled too (no
 * atomic_disable).
 * The primary plane is on whenever its CRTC is: when it is off, so is the
 * head, and its registers are left as they are.
 */
static void vagx_plane_atomic_update(struct drm_plane *plane,
				     struct drm_atomic_state *state)
{
	struct drm_plane_state *new = drm_atomic_get_new_plane_state(state,
								      plane);
	struct vagx_kms_head *head = plane_to_head(plane);
	struct vagx_plane *vplane = container_of(plane, struct vagx_plane,
						 base);
	unsigned long flags;
	int idx;

	if (plane->type == DRM_PLANE_TYPE_PRIMARY && (!new->fb || !new->visible))
		return;
	if (!drm_dev_enter(plane->dev, &idx))
		return;
	spin_lock_irqsave(&head->kms->irq_lock, flags);
	if (plane->type == DRM_PLANE_TYPE_CURSOR)
		vagx_plane_cursor_regs(&head->regs, new);
	else if (plane->type == DRM_PLANE_TYPE_OVERLAY)
		vagx_plane_overlay_regs(&head->regs.overlay[vplane - head->overlay],
					new);
	else
		vagx_plane_primary_regs(&head->regs, new);
	vagx_kms_write_regs(head);
	spin_unlock_irqrestore(&head->kms->irq_lock, flags);
	drm_dev_exit(idx);
}

static const struct drm_plane_helper_funcs vagx_plane_helper_funcs = {
	.prepare_fb = drm_gem_plane_helper_prepare_fb,
	.atomic_check = vagx_plane_atomic_check,
	.atomic_update = vagx_plane_atomic_update,
};

/*
 * A positioned layer (cursor or overlay): any position, at most max_w x
 * max_h, whole source pixels from a 4-byte aligned address (an RGB565
 * overlay source starts at an even column).
 */
static int vagx_layer_atomic_check(struct drm_plane *plane,
				   struct drm_atomic_state *state,
				   bool can_update_disabled, u32 max_w,
				   u32 max_h)
{
	struct drm_plane_state *new = drm_atomic_get_new_plane_state(state,
								      plane);
	int ret;

	ret = vagx_plane_check_state(new, state, true, can_update_disabled);
	if (ret || !new->fb)
		return ret;
	if (new->crtc_w > max_w || new->crtc_h > max_h)
		return -EINVAL;
	if ((new->src_x | new->src_y) & 0xffff)
		return -EINVAL;
	if (!IS_ALIGNED((new->src_x >> 16) * new->fb->format->cpp[0], 4))
		return -EINVAL;
	return 0;
}

/* The cursor layer's size; may be updated with the CRTC off. */
static int vagx_cursor_atomic_check(struct drm_plane *plane,
				    struct drm_atomic_state *state)
{
	return vagx_layer_atomic_check(plane, state, true,
				       VAGX_SCANOUT_CURSOR_MAX_WIDTH,
				       VAGX_SCANOUT_CURSOR_MAX_HEIGHT);
}

static const struct drm_plane_helper_funcs vagx_cursor_helper_funcs = {
	.prepare_fb = drm_gem_plane_helper_prepare_fb,
	.atomic_check = vagx_cursor_atomic_check,
	.atomic_update = vagx_plane_atomic_update,
};

/* Up to the head's largest size. */
static int vagx_overlay_atomic_check(struct drm_plane *plane,
				     struct drm_atomic_state *state)
{
	struct vagx_kms *kms = to_vagx_kms(plane->dev);

	return vagx_layer_atomic_check(plane, state, false, kms->max_width,
				       kms->max_height);
}

static const struct drm_plane_helper_funcs vagx_overlay_helper_funcs = {
	.prepare_fb = drm_gem_plane_helper_prepare_fb,
	.atomic_check = vagx_overlay_atomic_check,
	.atomic_update = vagx_plane_atomic_update,
};

static const struct drm_plane_funcs vagx_plane_funcs = {
	.update_plane = drm_atomic_helper_update_plane,
	.disable_plane = drm_atomic_helper_disable_plane,
	.reset = drm_atomic_helper_plane_reset,
	.atomic_duplicate_state = drm_atomic_helper_plane_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_plane_destroy_state,
	.destroy = drm_plane_cleanup,
};

/* ---- CRTC ------------------------------------------------------------- */

static enum drm_mode_status
vagx_crtc_mode_valid(struct drm_crtc *crtc, const struct drm_display_mode *mode)
{
	struct vagx_kms *kms = to_vagx_kms(crtc->dev);
	int hz = DIV_ROUND_CLOSEST(kms->refresh_mhz, 1000);

	if (mode->hdisplay > kms->max_width)
		return MODE_VIRTUAL_X;
	if (mode->vdisplay > kms->max_height)
		return MODE_VIRTUAL_Y;
	if (mode->flags & (DRM_MODE_FLAG_INTERLACE | DRM_MODE_FLAG_DBLSCAN))
		return MODE_NO_INTERLACE;
	/* The head refreshes at SCANOUT_REFRESH whatever the timings say. */
	if (abs(drm_mode_vrefresh(mode) - hz) > 1)
		return MODE_BAD;
	return MODE_OK;
}

static int vagx_crtc_atomic_check(struct drm_crtc *crtc,
				  struct drm_atomic_state *state)
{
	struct drm_crtc_state *crtc_state =
		drm_atomic_get_new_crtc_state(state, crtc);

	/* An enabled head always scans out a framebuffer. */
	if (!crtc_state->enable)
		return 0;
	return drm_atomic_helper_check_crtc_primary_plane(crtc_state);
}

static void vagx_crtc_atomic_flush(struct drm_crtc *crtc,
				   struct drm_atomic_state *state)
{
	struct vagx_kms_head *head = crtc_to_head(crtc);
	struct drm_pending_vblank_event *event = crtc->state->event;
	unsigned long flags;
	int idx;

	crtc->state->event = NULL;
	if (crtc->state->active && drm_dev_enter(crtc->dev, &idx)) {
		spin_lock_irqsave(&crtc->dev->event_lock, flags);
		vagx_head_write(head, VAGX_REG_SCANOUT_COMMIT,
				VAGX_SCANOUT_COMMIT_PENDING(1));
		/*
		 * With vblank interrupts on, complete the flip at the first
		 * vblank at which the commit was applied; otherwise (head
		 * still off: the commit applied at once) complete it now.
		 */
		if (event && drm_crtc_vblank_get(crtc) == 0) {
			WARN_ON(head->event);
			head->event = event;
			event = NULL;
		}
		spin_unlock_irqrestore(&crtc->dev->event_lock, flags);
		drm_dev_exit(idx);
	}
	if (event) {
		spin_lock_irqsave(&crtc->dev->event_lock, flags);
		drm_crtc_send_vblank_event(crtc, event);
		spin_unlock_irqrestore(&crtc->dev->event_lock, flags);
	}
}

static void vagx_crtc_atomic_enable(struct drm_crtc *crtc,
				    struct drm_atomic_state *state)
{
	struct vagx_kms_head *head = crtc_to_head(crtc);
	struct vagx_kms *kms = head->kms;
	unsigned long flags;
	int idx;

	if (drm_dev_enter(crtc->dev, &idx)) {
		spin_lock_irqsave(&kms->irq_lock, flags);
		head->regs.enabled = true;
		head->regs.enable_ts = vagx_device_timestamp(kms->vdev);
		vagx_head_write(head, VAGX_REG_SCANOUT_CONTROL,
				VAGX_SCANOUT_CONTROL_ENABLE(1));
		spin_unlock_irqrestore(&kms->irq_lock, flags);
		drm_dev_exit(idx);
	}
	drm_crtc_vblank_on(crtc);
}

static void vagx_crtc_atomic_disable(struct drm_crtc *crtc,
				     struct drm_atomic_state *state)
{
	struct vagx_kms_head *head = crtc_to_head(crtc);
	struct drm_pending_vblank_event *event;
	unsigned long flags;
	int idx;

	drm_crtc_vblank_off(crtc);
	if (drm_dev_enter(crtc->dev, &idx)) {
		spin_lock_irqsave(&head->kms->irq_lock, flags);
		head->regs.enabled = false;
		vagx_head_write(head, VAGX_REG_SCANOUT_CONTROL, 0);
		spin_unlock_irqrestore(&head->kms->irq_lock, flags);
		drm_dev_exit(idx);
	}

	/* A flip still waiting for its vblank completes now. */
	spin_lock_irqsave(&crtc->dev->event_lock, flags);
	event = head->event;
	head->event = NULL;
	if (event)
		drm_crtc_send_vblank_event(crtc, event);
	spin_unlock_irqrestore(&crtc->dev->event_lock, flags);
	if (event)
		drm_crtc_vblank_put(crtc);
}

static int vagx_crtc_enable_vblank(struct drm_crtc *crtc)
{
	int idx;

	if (!drm_dev_enter(crtc->dev, &idx))
		return -ENODEV;
	vagx_kms_int_enable(crtc_to_head(crtc)->kms,
			    crtc_to_head(crtc)->ints->vblank, true);
	drm_dev_exit(idx);
	return 0;
}

static void vagx_crtc_disable_vblank(struct drm_crtc *crtc)
{
	int idx;

	if (!drm_dev_enter(crtc->dev, &idx))
		return;
	vagx_kms_int_enable(crtc_to_head(crtc)->kms,
			    crtc_to_head(crtc)->ints->vblank, false);
	drm_dev_exit(idx);
}

static u32 vagx_crtc_get_vblank_counter(struct drm_crtc *crtc)
{
	u32 count = 0;
	int idx;

	if (drm_dev_enter(crtc->dev, &idx)) {
		count = vagx_head_read(crtc_to_head(crtc),
				       VAGX_REG_SCANOUT_VBLANK_COUNT);
		drm_dev_exit(idx);
	}
	return count;
}

/*
 * The device records the timestamp counter at every vblank
 * (SCANOUT_VBLANK_TS); translate it to CLOCK_MONOTONIC by reading the
 * counter and ktime back to back, like the scanout-position helper brackets
 * its query. The vblank core calls this with the counter read around it, so
 * the time always belongs to the count it stores.
 *
 * Until the first vblank after the head was enabled, SCANOUT_VBLANK_TS is
 * the last vblank before it was disabled; the frame then started at the
 * enable, as vkms's timer does. drm_crtc_vblank_on() stores that time with
 * the count it bumps, so timestamps keep increasing across a modeset.
 */
static bool vagx_crtc_get_vblank_timestamp(struct drm_crtc *crtc,
					   int *max_error,
					   ktime_t *vblank_time,
					   bool in_vblank_irq)
{
	struct vagx_kms_head *head = crtc_to_head(crtc);
	struct vagx_kms *kms = head->kms;
	struct vagx_device *vdev = kms->vdev;
	ktime_t before, after;
	unsigned long flags;
	u64 vbl, now;
	s64 window;
	u32 lo;
	int idx;

	if (!kms->hw_v11 || !vdev->ts_freq || !drm_dev_enter(crtc->dev, &idx))
		return false;
	spin_lock_irqsave(&kms->irq_lock, flags);
	if (!head->regs.enabled) {
		/* Head off: no vblanks, the last one is stale. */
		spin_unlock_irqrestore(&kms->irq_lock, flags);
		drm_dev_exit(idx);
		return false;
	}
	/* Reading _LO latches the 64-bit value for _HI. */
	lo = vagx_head_read(head, VAGX_REG_SCANOUT_VBLANK_TS_LO);
	vbl = (u64)vagx_head_read(head, VAGX_REG_SCANOUT_VBLANK_TS_HI) << 32 |
	      lo;
	before = ktime_get();
	now = vagx_device_timestamp(vdev);
	after = ktime_get();
	vbl = max(vbl, head->regs.enable_ts);
	spin_unlock_irqrestore(&kms->irq_lock, flags);
	drm_dev_exit(idx);

	if (!vbl || vbl > now)
		return false;
	window = ktime_to_ns(ktime_sub(after, before));
	*vblank_time = ktime_sub_ns(ktime_add_ns(before, window / 2),
				    mul_u64_u32_div(now - vbl, NSEC_PER_SEC,
						    vdev->ts_freq));
	*max_error = window;
	return true;
}

static const char *const *vagx_crtc_get_crc_sources(struct drm_crtc *crtc,
						    size_t *count)
{
	*count = to_vagx_kms(crtc->dev)->has_crc ?
		 ARRAY_SIZE(vagx_kms_crc_sources) : 0;
	return vagx_kms_crc_sources;
}

static int vagx_crtc_parse_crc_source(struct vagx_kms *kms,
				      const char *source, bool *enable)
{
	*enable = source && *source;
	if (*enable && (!kms->has_crc || strcmp(source, "auto")))
		return -EINVAL;
	return 0;
}

static int vagx_crtc_verify_crc_source(struct drm_crtc *crtc,
				       const char *source, size_t *values_cnt)
{
	bool enable;

	if (vagx_crtc_parse_crc_source(to_vagx_kms(crtc->dev), source,
				       &enable))
		return -EINVAL;
	*values_cnt = 1;
	return 0;
}

/*
 * The device computes the CRC at every vblank while CRC_CONTROL.ENABLE is
 * set; the vblank interrupt reports it, so vblanks stay on meanwhile.
 */
static int vagx_crtc_set_crc_source(struct drm_crtc *crtc, const char *source)
{
	struct vagx_kms_head *head = crtc_to_head(crtc);
	struct vagx_kms *kms = head->kms;
	unsigned long flags;
	bool enable, old;
	int idx, ret;

	ret = vagx_crtc_parse_crc_source(kms, source, &enable);
	if (ret)
		return ret;
	if (enable) {
		ret = drm_crtc_vblank_get(crtc);
		if (ret)
			return ret;
	}
	if (!drm_dev_enter(crtc->dev, &idx)) {
		if (enable)
			drm_crtc_vblank_put(crtc);
		return -ENODEV;
	}
	spin_lock_irqsave(&kms->irq_lock, flags);
	old = head->regs.crc;
	if (!kms->has_crc) {
		spin_unlock_irqrestore(&kms->irq_lock, flags);
		drm_dev_exit(idx);
		return 0;
	}
	head->regs.crc = enable;
	/* Only CRCs computed from now on are reported. */
	head->crc_count = vagx_head_read(head, VAGX_REG_SCANOUT_CRC_COUNT);
	vagx_head_write(head, VAGX_REG_SCANOUT_CRC_CONTROL,
			VAGX_SCANOUT_CRC_CONTROL_ENABLE(enable));
	spin_unlock_irqrestore(&kms->irq_lock, flags);
	drm_dev_exit(idx);
	if (old)
		drm_crtc_vblank_put(crtc);
	return 0;
}

static const struct drm_crtc_helper_funcs vagx_crtc_helper_funcs = {
	.mode_valid = vagx_crtc_mode_valid,
	.atomic_check = vagx_crtc_atomic_check,
	.atomic_flush = vagx_crtc_atomic_flush,
	.atomic_enable = vagx_crtc_atomic_enable,
	.atomic_disable = vagx_crtc_atomic_disable,
};

static const struct drm_crtc_funcs vagx_crtc_funcs = {
	.reset = drm_atomic_helper_crtc_reset,
	.set_config = drm_atomic_helper_set_config,
	.page_flip = drm_atomic_helper_page_flip,
	.atomic_duplicate_state = drm_atomic_helper_crtc_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_crtc_destroy_state,
	.enable_vblank = vagx_crtc_enable_vblank,
	.disable_vblank = vagx_crtc_disable_vblank,
	.get_vblank_counter = vagx_crtc_get_vblank_counter,
	.get_vblank_timestamp = vagx_crtc_get_vblank_timestamp,
	.get_crc_sources = vagx_crtc_get_crc_sources,
	.verify_crc_source = vagx_crtc_verify_crc_source,
	.set_crc_source = vagx_crtc_set_crc_source,
};

/* ---- Connector -------------------------------------------------------- */

/**
 * vagx_kms_get_modes() - The modes of the head, for both connectors
 * @connector: The virtual or the writeback connector.
 *
 * Returns: the number of modes added.
 */
int vagx_kms_get_modes(struct drm_connector *connector)
{
	struct vagx_kms *kms = to_vagx_kms(connector->dev);
	struct drm_display_mode *mode;
	int i, count = 0;

	for (i = 0; i < ARRAY_SIZE(vagx_kms_sizes); i++) {
		u16 w = vagx_kms_sizes[i].w, h = vagx_kms_sizes[i].h;

		if (w > kms->max_width || h > kms->max_height)
			continue;
		mode = drm_cvt_mode(connector->dev, w, h,
				    DIV_ROUND_CLOSEST(kms->refresh_mhz, 1000),
				    false, false, false);
		if (!mode)
			continue;
		/* Timings whose refresh rate is the head's SCANOUT_REFRESH. */
		mode->clock = DIV_ROUND_CLOSEST_ULL((u64)kms->refresh_mhz *
						    mode->htotal * mode->vtotal,
						    1000000);
		mode->type = DRM_MODE_TYPE_DRIVER;
		if (w == VAGX_KMS_DEFAULT_WIDTH && h == VAGX_KMS_DEFAULT_HEIGHT)
			mode->type |= DRM_MODE_TYPE_PREFERRED;
		drm_mode_set_name(mode);
		drm_mode_probed_add(connector, mode);
		count++;
	}
	return count;
}

static const struct drm_connector_helper_funcs vagx_connector_helper_funcs = {
	.get_modes = vagx_kms_get_modes,
};

/*
 * The head's SCANOUT_STATUS.CONNECTED on a 1.9 device; an older one has no
 * such bit and its one display is always there.
 */
static enum drm_connector_status
vagx_connector_detect(struct drm_connector *connector, bool force)
{
	struct vagx_kms_head *head = connector_to_head(connector);
	enum drm_connector_status status = connector_status_connected;
	int idx;

	if (!head->kms->has_hotplug)
		return status;
	/* Unplugged: keep the last status, no hotplug event at removal. */
	if (!drm_dev_enter(connector->dev, &idx))
		return connector->status;
	if (!VAGX_SCANOUT_STATUS_CONNECTED_GET(vagx_head_read(head,
							      VAGX_REG_SCANOUT_STATUS)))
		status = connector_status_disconnected;
	drm_dev_exit(idx);
	return status;
}

/* INT HOTPLUG: re-detect the HPD connectors, send the uevent on a change. */
static void vagx_kms_hotplug_work(struct work_struct *work)
{
	struct vagx_kms *kms = container_of(work, struct vagx_kms,
					    hotplug_work);

	drm_helper_hpd_irq_event(&kms->vdev->drm);
}

static const struct drm_connector_funcs vagx_connector_funcs = {
	.detect = vagx_connector_detect,
	.fill_modes = drm_helper_probe_single_connector_modes,
	.reset = drm_atomic_helper_connector_reset,
	.atomic_duplicate_state = drm_atomic_helper_connector_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_connector_destroy_state,
};

/* ---- Mode config ------------------------------------------------------ */

/*
 * Like drm_atomic_helper_commit_tail(), but waits for the flips to complete
 * (every CRTC in a commit gets an event) instead of counting vblanks. The
 * head is enabled (and its vblanks on) before the planes are flushed, so a
 * modeset's event, too, is sent at the vblank that applies the commit.
 */
static void vagx_kms_commit_tail(struct drm_atomic_state *state)
{
	struct drm_device *drm = state->dev;

	drm_atomic_helper_commit_modeset_disables(drm, state);
	drm_atomic_helper_commit_modeset_enables(drm, state);
	drm_atomic_helper_commit_planes(drm, state, 0);
	drm_atomic_helper_fake_vblank(state);
	drm_atomic_helper_commit_hw_done(state);
	drm_atomic_helper_wait_for_flip_done(drm, state);
	drm_atomic_helper_cleanup_planes(drm, state);
}

static const struct drm_mode_config_helper_funcs vagx_mode_config_helpers = {
	.atomic_commit_tail = vagx_kms_commit_tail,
};

static const struct drm_mode_config_funcs vagx_mode_config_funcs = {
	.fb_create = vagx_fb_create,
	.atomic_check = drm_atomic_helper_check,
	.atomic_commit = drm_atomic_helper_commit,
};

/*
 * Runs when the last reference to the DRM device is dropped, so after
 * vagx_device_fini() (or a probe that failed before the scanout was
 * enabled): the device is quiesced for good, and the scanout VM's root
 * and tables may be freed without an invalidation.
 */
static void vagx_kms_release(struct drm_device *drm, void *data)
{
	struct vagx_kms *kms = data;

	drm_mm_takedown(&kms->mm);
	vagx_vm_put(kms->vm);
	mutex_destroy(&kms->vm_lock);
}

static int vagx_kms_plane_init(struct vagx_kms_head *head,
			       struct vagx_plane *plane,
			       enum drm_plane_type type, const u32 *formats,
			       unsigned int num_formats,
			       const struct drm_plane_helper_funcs *helpers)
{
	int ret;

	plane->head = head;
	/* The head's CRTC has the head's index. */
	ret = drm_universal_plane_init(&head->kms->vdev->drm, &plane->base,
				       BIT(head->index), &vagx_plane_funcs,
				       formats, num_formats,
				       vagx_kms_modifiers, type, NULL);
	if (ret)
		return ret;
	drm_plane_helper_add(&plane->base, helpers);
	return 0;
}

/*
 * The primary plane is at zpos 0, the overlays share zpos 1..OVERLAYS
 * (each may take any of them; DRM normalises the order), the cursor is
 * above. A 1.4 or older device has no overlays: no zpos properties either.
 */
static int vagx_kms_overlays_init(struct vagx_kms_head *head)
{
	unsigned int i;
	int ret;

	if (!head->kms->has_overlay)
		return 0;
	ret = drm_plane_create_zpos_immutable_property(&head->primary.base, 0);
	if (ret)
		return ret;
	for (i = 0; i < VAGX_SCANOUT_OVERLAYS; i++) {
		struct drm_plane *plane = &head->overlay[i].base;

		ret = vagx_kms_plane_init(head, &head->overlay[i],
					  DRM_PLANE_TYPE_OVERLAY,
					  vagx_kms_formats,
					  ARRAY_SIZE(vagx_kms_formats),
					  &vagx_overlay_helper_funcs);
		if (ret)
			return ret;
		ret = drm_plane_create_alpha_property(plane);
		if (ret)
			return ret;
		ret = drm_plane_create_zpos_property(plane, i + 1, 1,
						     VAGX_SCANOUT_OVERLAYS);
		if (ret)
			return ret;
	}
	return 0;
}

/* The cursor layer (FEATURES.CURSOR), above every overlay. */
static int vagx_kms_cursor_init(struct vagx_kms_head *head)
{
	int ret;

	if (!head->kms->has_cursor)
		return 0;
	ret = vagx_kms_plane_init(head, &head->cursor, DRM_PLANE_TYPE_CURSOR,
				  vagx_kms_cursor_formats,
				  ARRAY_SIZE(vagx_kms_cursor_formats),
				  &vagx_cursor_helper_funcs);
	if (ret || !head->kms->has_overlay)
		return ret;
	/* The device composes the cursor last. */
	return drm_plane_create_zpos_immutable_property(&head->cursor.base,
							VAGX_SCANOUT_OVERLAYS + 1);
}

/*
 * Head @index's planes, CRTC, encoder, connector (Virtual-<index + 1>) and,
 * with FEATURES.WRITEBACK, its writeback connector. CRTC index = head index.
 */
static int vagx_kms_head_init(struct vagx_kms *kms, unsigned int index)
{
	struct vagx_kms_head *head = &kms->head[index];
	struct drm_device *drm = &kms->vdev->drm;
	int ret;

	head->kms = kms;
	head->index = index;
	head->ints = &vagx_kms_head_ints[index];
	ret = vagx_kms_plane_init(head, &head->primary, DRM_PLANE_TYPE_PRIMARY,
				  vagx_kms_formats,
				  ARRAY_SIZE(vagx_kms_formats),
				  &vagx_plane_helper_funcs);
	if (ret)
		return ret;
	ret = vagx_kms_overlays_init(head);
	if (ret)
		return ret;
	ret = vagx_kms_cursor_init(head);
	if (ret)
		return ret;

	ret = drmm_crtc_init_with_planes(drm, &head->crtc, &head->primary.base,
					 kms->has_cursor ? &head->cursor.base :
					 NULL, &vagx_crtc_funcs, NULL);
	if (ret)
		return ret;
	drm_crtc_helper_add(&head->crtc, &vagx_crtc_helper_funcs);

	ret = drmm_encoder_init(drm, &head->encoder, NULL,
				DRM_MODE_ENCODER_VIRTUAL, NULL);
	if (ret)
		return ret;
	head->encoder.possible_crtcs = drm_crtc_mask(&head->crtc);

	ret = drmm_connector_init(drm, &head->connector, &vagx_connector_funcs,
				  DRM_MODE_CONNECTOR_VIRTUAL, NULL);
	if (ret)
		return ret;
	drm_connector_helper_add(&head->connector,
				 &vagx_connector_helper_funcs);
	/* INT HOTPLUG; drm_helper_hpd_irq_event() re-detects these. */
	if (kms->has_hotplug)
		head->connector.polled = DRM_CONNECTOR_POLL_HPD;
	ret = drm_connector_attach_encoder(&head->connector, &head->encoder);
	if (ret)
		return ret;

	if (VAGX_FEATURES_WRITEBACK_GET(kms->vdev->hw_features)) {
		head->wb = vagx_wb_init(kms->vdev, index, &head->crtc,
					&head->encoder);
		if (IS_ERR(head->wb))
			return PTR_ERR(head->wb);
	}
	return 0;
}

/**
 * vagx_kms_init() - Set up KMS on the scanout engine
 * @vdev: Device, initialised by vagx_device_init().
 *
 * Does nothing when the device has no scanout engine.
 *
 * Return: 0 or a negative errno.
 */
int vagx_kms_init(struct vagx_device *vdev)
{
	struct drm_device *drm = &vdev->drm;
	struct vagx_kms *kms;
	unsigned int h;
	u32 max;
	int ret;

	if (!VAGX_FEATURES_SCANOUT_GET(vdev->hw_features) ||
	    !VAGX_CONFIG_NUM_SCANOUTS_GET(vdev->hw_config)) {
		drm_info(drm, "no scanout engine: render only\n");
		drm->driver_features &= ~(DRIVER_MODESET | DRIVER_ATOMIC);
		return 0;
	}

	kms = drmm_kzalloc(drm, sizeof(*kms), GFP_KERNEL);
	if (!kms)
		return -ENOMEM;
	kms->vdev = vdev;
	kms->hw_v11 = VAGX_VERSION_MINOR_GET(vdev->hw_version) >= 1;
	kms->has_hotplug = VAGX_VERSION_MINOR_GET(vdev->hw_version) >= 9;
	/* Heads beyond what the driver knows are left alone. */
	kms->num_heads = min_t(u32, VAGX_CONFIG_NUM_SCANOUTS_GET(vdev->hw_config),
			       VAGX_SCANOUT_MAX_HEADS);
	spin_lock_init(&kms->irq_lock);
	mutex_init(&kms->vm_lock);
	atomic_set(&kms->faults, 0);
	INIT_WORK(&kms->hotplug_work, vagx_kms_hotplug_work);
	drm_mm_init(&kms->mm, VAGX_KMS_VA_START, VAGX_KMS_VA_SIZE);
	/* Bounded by the scanout VA range, not charged to a file. */
	kms->vm = vagx_vm_create_kernel(vdev, VAGX_KMS_VA_START,
					VAGX_KMS_VA_SIZE);
	if (IS_ERR(kms->vm)) {
		drm_mm_takedown(&kms->mm);
		return PTR_ERR(kms->vm);
	}
	/* Registered before the mode config: outlives every framebuffer. */
	ret = drmm_add_action_or_reset(drm, vagx_kms_release, kms);
	if (ret)
		return ret;

	kms->refresh_mhz = vagx_read(vdev, VAGX_REG_SCANOUT_REFRESH);
	if (!kms->refresh_mhz)
		kms->refresh_mhz = VAGX_SCANOUT_REFRESH_MHZ;
	max = vagx_read(vdev, VAGX_REG_SCANOUT_MAX_SIZE);
	kms->max_width = VAGX_SCANOUT_MAX_SIZE_WIDTH_GET(max) ?: VAGX_SCANOUT_MAX_WIDTH;
	kms->max_height = VAGX_SCANOUT_MAX_SIZE_HEIGHT_GET(max) ?: VAGX_SCANOUT_MAX_HEIGHT;
	kms->has_overlay = VAGX_FEATURES_OVERLAY_GET(vdev->hw_features);
	kms->has_cursor = VAGX_FEATURES_CURSOR_GET(vdev->hw_features);
	kms->has_crc = VAGX_FEATURES_SCANOUT_CRC_GET(vdev->hw_features);

	ret = drmm_mode_config_init(drm);
	if (ret)
		return ret;
	drm->mode_config.min_width = 1;
	drm->mode_config.min_height = 1;
	drm->mode_config.max_width = kms->max_width;
	drm->mode_config.max_height = kms->max_height;
	drm->mode_config.preferred_depth = 24;
	drm->mode_config.funcs = &vagx_mode_config_funcs;
	drm->mode_config.helper_private = &vagx_mode_config_helpers;
	drm->mode_config.normalize_zpos = kms->has_overlay;
	if (kms->has_cursor) {
		drm->mode_config.cursor_width = VAGX_SCANOUT_CURSOR_MAX_WIDTH;
		drm->mode_config.cursor_height = VAGX_SCANOUT_CURSOR_MAX_HEIGHT;
	}

	for (h = 0; h < kms->num_heads; h++) {
		ret = vagx_kms_head_init(kms, h);
		if (ret)
			return ret;
	}

	/* The vblank counters are SCANOUT_VBLANK_COUNT (32 bits, wrap). */
	drm->max_vblank_count = U32_MAX;
	ret = drm_vblank_init(drm, kms->num_heads);
	if (ret)
		return ret;
	if (kms->has_hotplug) {
		ret = drmm_kms_helper_poll_init(drm);
		if (ret)
			return ret;
	}

	drm_mode_config_reset(drm);
	vdev->kms = kms;
	vagx_kms_int_enable(kms, vagx_kms_int_always(kms), true);
	drm_info(drm, "scanout: %u head(s), up to %ux%u, %u.%03u Hz\n",
		 kms->num_heads, kms->max_width, kms->max_height,
		 kms->refresh_mhz / 1000, kms->refresh_mhz % 1000);
	return 0;
}

/*
 * Probe failed after vagx_kms_init() succeeded (drm_dev_register()): the
 * caller has freed the interrupts, so nothing queues the hotplug work any
 * more, but a work item queued before must not run once the device is
 * released.
 */
void vagx_kms_cancel_hotplug(struct vagx_device *vdev)
{
	if (vdev->kms)
		cancel_work_sync(&vdev->kms->hotplug_work);
}

/**
 * vagx_kms_register() - Start the fbdev console, after drm_dev_register()
 * @vdev: Device.
 *
 * fbdev emulation with a vmalloc shadow buffer that is copied into the
 * dumb BO on damage (drm_fbdev_ttm, which only needs a vmap-able GEM
 * object), not drm_fbdev_shmem: in 6.12, fbdev deferred I/O sets
 * page->mapping of the pages a process mmap()s through /dev/fb0 and
 * clears it at the last close. On shmem pages that corrupts the shmem
 * page cache, and freeing the BO at unload spins forever in
 * shmem_undo_range() (Documentation/gpu/todo.rst, "Generic fbdev defio
 * support"). vmalloc pages have no such owner.
 */
void vagx_kms_register(struct vagx_device *vdev)
{
	if (vdev->kms)
		drm_fbdev_ttm_setup(&vdev->drm, 32);
}

/**
 * vagx_kms_fini() - Turn the display off, before vagx_device_fini()
 * @vdev: Device.
 */
void vagx_kms_fini(struct vagx_device *vdev)
{
	struct vagx_kms *kms = vdev->kms;
	u32 bits = VAGX_INT_HOTPLUG__MASK;
	unsigned int h;
	int i;

	if (!kms)
		return;
	drm_atomic_helper_shutdown(&vdev->drm);
	for (h = 0; h < kms->num_heads; h++)
		bits |= kms->head[h].ints->vblank | kms->head[h].ints->fault |
			kms->head[h].ints->writeback;
	/* A 1.8 device has no HOTPLUG bit: clearing it changes nothing. */
	vagx_kms_int_enable(kms, bits, false);
	/* No handler still running can queue the work after it is cancelled. */
	for (i = 0; i < vdev->nvec; i++)
		synchronize_irq(pci_irq_vector(vdev->pdev, i));
	cancel_work_sync(&kms->hotplug_work);
	/* No probe of a removed device schedules DRM's delayed hotplug work. */
	if (kms->has_hotplug)
		drm_kms_helper_poll_fini(&vdev->drm);
}
