// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (C) 2025 The vagx authors */

/*
 * Writeback connectors (docs/display.md, "Writeback"), one per head: the
 * head's scanout engine writes the frame it composes (primary, overlays,
 * cursor: what the CRC covers) into a framebuffer, as vkms's writeback
 * connector does in software (contract 1.7, FEATURES.WRITEBACK).
 *
 * A job's framebuffer is mapped writable into the scanout VM for the job's
 * life (prepare/cleanup_writeback_job): the mapping every framebuffer gets
 * at ADDFB2 is read-only. The connector's atomic_commit queues the job and
 * arms SCANOUT_WB_*; the CRTC flush of the same commit writes
 * SCANOUT_COMMIT, which latches the arm, so the device writes the frame
 * that first shows this commit. Its WRITEBACK interrupt, raised before
 * that vblank's VBLANK, signals the job's out-fence.
 */

#include <linux/slab.h>

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_drv.h>
#include <drm/drm_encoder.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_mm.h>
#include <drm/drm_modeset_helper_vtables.h>
#include <drm/drm_print.h>
#include <drm/drm_probe_helper.h>
#include <drm/drm_writeback.h>

#include "vagx_device.h"
#include "vagx_kms.h"
#include "vagx_writeback.h"

struct vagx_wb {
	struct drm_writeback_connector conn;
	struct vagx_device *vdev;
	/** @reg_base: Offset of the head's SCANOUT_* block from head 0's. */
	u32 reg_base;
};

/* A queued job: its framebuffer's writable VA range in the scanout VM. */
struct vagx_wb_job {
	struct drm_mm_node node;
};

/* Every scanout_format: the device stores the frame in any of them. */
static const u32 vagx_wb_formats[] = {
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_ARGB8888,
	DRM_FORMAT_XBGR8888,
	DRM_FORMAT_ABGR8888,
	DRM_FORMAT_RGB565,
};

static inline struct vagx_wb *to_vagx_wb(struct drm_writeback_connector *c)
{
	return container_of(c, struct vagx_wb, conn);
}

/* The head's copy of SCANOUT_WB_* register @reg (a head-0 offset). */
static inline u32 vagx_wb_read(struct vagx_wb *wb, u32 reg)
{
	return vagx_read(wb->vdev, wb->reg_base + reg);
}

static inline void vagx_wb_write(struct vagx_wb *wb, u32 reg, u32 v)
{
	vagx_write(wb->vdev, wb->reg_base + reg, v);
}

/* The image is the mode's size; the format is one of the list. */
static int vagx_wb_atomic_check(struct drm_connector *connector,
				struct drm_atomic_state *state)
{
	struct drm_connector_state *conn_state =
		drm_atomic_get_new_connector_state(state, connector);
	const struct drm_display_mode *mode;
	struct drm_crtc_state *crtc_state;
	struct drm_framebuffer *fb;

	if (!conn_state->writeback_job || !conn_state->writeback_job->fb)
		return 0;
	/* drm_atomic_connector_check() refused a job without an active CRTC. */
	crtc_state = drm_atomic_get_new_crtc_state(state, conn_state->crtc);
	if (!crtc_state)
		return -EINVAL;
	mode = &crtc_state->mode;
	fb = conn_state->writeback_job->fb;
	if (fb->width != mode->hdisplay || fb->height != mode->vdisplay) {
		drm_dbg_kms(connector->dev, "writeback fb %ux%u, mode %ux%u\n",
			    fb->width, fb->height, mode->hdisplay,
			    mode->vdisplay);
		return -EINVAL;
	}
	/* vagx_fb_create() took only linear, 4-byte aligned pitches. */
	return drm_atomic_helper_check_wb_connector_state(connector, state);
}

static int vagx_wb_prepare_job(struct drm_writeback_connector *conn,
			       struct drm_writeback_job *job)
{
	struct vagx_wb_job *vjob;
	int ret;

	if (!job->fb)
		return 0;
	vjob = kzalloc(sizeof(*vjob), GFP_KERNEL);
	if (!vjob)
		return -ENOMEM;
	ret = vagx_kms_map_bo(conn->base.dev, job->fb->obj[0], &vjob->node,
			      false);
	if (ret) {
		kfree(vjob);
		return ret;
	}
	job->priv = vjob;
	return 0;
}

/* After the job's fence signalled (or it was never queued). */
static void vagx_wb_cleanup_job(struct drm_writeback_connector *conn,
				struct drm_writeback_job *job)
{
	struct vagx_wb_job *vjob = job->priv;

	if (!vjob)
		return;
	vagx_kms_unmap_bo(conn->base.dev, &vjob->node);
	kfree(vjob);
}

/* Queues the job and arms the device; the CRTC flush latches the arm. */
static void vagx_wb_atomic_commit(struct drm_connector *connector,
				  struct drm_atomic_state *state)
{
	struct drm_connector_state *conn_state =
		drm_atomic_get_new_connector_state(state, connector);
	struct drm_writeback_connector *conn =
		drm_connector_to_writeback(connector);
	struct vagx_wb *wb = to_vagx_wb(conn);
	struct vagx_device *vdev = wb->vdev;
	struct drm_framebuffer *fb = conn_state->writeback_job->fb;
	struct vagx_wb_job *vjob = conn_state->writeback_job->priv;
	u64 va = vjob->node.start + fb->offsets[0];
	u64 root = vagx_kms_root(connector->dev);
	int idx;

	drm_writeback_queue_job(conn, conn_state);
	if (!drm_dev_enter(connector->dev, &idx)) {
		drm_writeback_signal_completion(conn, -ENODEV);
		return;
	}
	/* Debugfs: the job stays queued, as if a reset had dropped the arm. */
	if (atomic_add_unless(&vdev->inject_wb_drop, -1, 0)) {
		drm_dev_exit(idx);
		return;
	}
	vagx_wb_write(wb, VAGX_REG_SCANOUT_WB_FORMAT,
		      VAGX_SCANOUT_WB_FORMAT_FORMAT(vagx_kms_hw_format(fb->format->format)));
	vagx_wb_write(wb, VAGX_REG_SCANOUT_WB_PITCH, fb->pitches[0]);
	vagx_wb_write(wb, VAGX_REG_SCANOUT_WB_VA_LO, lower_32_bits(va));
	vagx_wb_write(wb, VAGX_REG_SCANOUT_WB_VA_HI, upper_32_bits(va));
	vagx_wb_write(wb, VAGX_REG_SCANOUT_WB_ROOT_LO, lower_32_bits(root));
	vagx_wb_write(wb, VAGX_REG_SCANOUT_WB_ROOT_HI, upper_32_bits(root));
	vagx_wb_write(wb, VAGX_REG_SCANOUT_WB_ARM, VAGX_SCANOUT_WB_ARM_ARM(1));
	/*
	 * Refused only if one is still armed, which the commit tail's wait
	 * for flip_done rules out: the previous job ended before that flip.
	 */
	if (VAGX_SCANOUT_WB_STATUS_INVALID_GET(vagx_wb_read(wb,
							    VAGX_REG_SCANOUT_WB_STATUS))) {
		drm_err(connector->dev, "writeback arm refused\n");
		drm_writeback_signal_completion(conn, -EIO);
	}
	drm_dev_exit(idx);
}

static const struct drm_connector_helper_funcs vagx_wb_helper_funcs = {
	.get_modes = vagx_kms_get_modes,
	.atomic_check = vagx_wb_atomic_check,
	.prepare_writeback_job = vagx_wb_prepare_job,
	.cleanup_writeback_job = vagx_wb_cleanup_job,
	.atomic_commit = vagx_wb_atomic_commit,
};

/*
 * From drm_mode_config_cleanup(), after the encoders' cleanup: the
 * connector and its encoder are freed with it.  (drmm memory would be
 * freed before: drmm actions run in reverse order, and this connector is
 * created after drmm_mode_config_init().)
 */
static void vagx_wb_destroy(struct drm_connector *connector)
{
	struct vagx_wb *wb = to_vagx_wb(drm_connector_to_writeback(connector));

	drm_connector_cleanup(connector);
	kfree(wb);
}

static const struct drm_connector_funcs vagx_wb_connector_funcs = {
	.fill_modes = drm_helper_probe_single_connector_modes,
	.destroy = vagx_wb_destroy,
	.reset = drm_atomic_helper_connector_reset,
	.atomic_duplicate_state = drm_atomic_helper_connector_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_connector_destroy_state,
};

/**
 * vagx_wb_irq() - The device ended the armed writeback
 * @wb: Writeback connector.
 *
 * Called in hard-irq context on the head's INT WRITEBACK: signals the oldest queued
 * job's out-fence, with an error unless SCANOUT_WB_STATUS.DONE.
 */
void vagx_wb_irq(struct vagx_wb *wb)
{
	u32 status = vagx_wb_read(wb, VAGX_REG_SCANOUT_WB_STATUS);
	int ret = 0;

	if (VAGX_SCANOUT_WB_STATUS_FAULT_GET(status))
		ret = -EFAULT;
	else if (VAGX_SCANOUT_WB_STATUS_ABORTED_GET(status))
		ret = -ECANCELED;
	else if (!VAGX_SCANOUT_WB_STATUS_DONE_GET(status))
		ret = -EIO;
	if (ret)
		drm_dbg_kms(&wb->vdev->drm, "writeback: status %#x\n", status);
	/* Takes the job list's lock; an interrupt with no job is ignored. */
	if (!list_empty_careful(&wb->conn.job_queue))
		drm_writeback_signal_completion(&wb->conn, ret);
}

/**
 * vagx_wb_reset() - End the writeback jobs a PCI reset dropped
 * @wb: Writeback connector; modeset locks held, interrupts masked until
 *      the reset was undone (vagx_kms_reset_prepare()), so no job is being
 *      queued or signalled meanwhile.
 *
 * The reset disarmed the device: no WRITEBACK interrupt will come for the
 * queued job, whose out-fence ends with -ECANCELED (nothing, or part of
 * the frame, was written).
 */
void vagx_wb_reset(struct vagx_wb *wb)
{
	while (!list_empty_careful(&wb->conn.job_queue))
		drm_writeback_signal_completion(&wb->conn, -ECANCELED);
}

/**
 * vagx_wb_init() - Create a head's writeback connector
 * @vdev: Device with FEATURES.WRITEBACK.
 * @head: The head: its SCANOUT_WB_* registers write back its frame.
 * @crtc: The head's CRTC.
 * @enc: The head's virtual encoder, made a clone of the writeback one.
 *
 * Returns: the connector or an ERR_PTR.
 */
struct vagx_wb *vagx_wb_init(struct vagx_device *vdev, unsigned int head,
			     struct drm_crtc *crtc, struct drm_encoder *enc)
{
	struct drm_device *drm = &vdev->drm;
	struct vagx_wb *wb;
	u32 clones;
	int ret;

	wb = kzalloc(sizeof(*wb), GFP_KERNEL);
	if (!wb)
		return ERR_PTR(-ENOMEM);
	wb->vdev = vdev;
	wb->reg_base = head * VAGX_SCANOUT_HEAD_STRIDE;
	drm_connector_helper_add(&wb->conn.base, &vagx_wb_helper_funcs);
	ret = drm_writeback_connector_init(drm, &wb->conn,
					   &vagx_wb_connector_funcs, NULL,
					   vagx_wb_formats,
					   ARRAY_SIZE(vagx_wb_formats),
					   drm_crtc_mask(crtc));
	if (ret) {
		kfree(wb);
		return ERR_PTR(ret);
	}
	/* Both outputs of the one head may be on together. */
	clones = drm_encoder_mask(enc) | drm_encoder_mask(&wb->conn.encoder);
	enc->possible_clones = clones;
	wb->conn.encoder.possible_clones = clones;
	return wb;
}
