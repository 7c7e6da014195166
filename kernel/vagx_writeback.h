/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (C) 2025 The vagx authors */
#ifndef __VAGX_WRITEBACK_H__
#define __VAGX_WRITEBACK_H__

struct drm_crtc;
struct drm_encoder;
struct vagx_device;
struct vagx_wb;

struct vagx_wb *vagx_wb_init(struct vagx_device *vdev, unsigned int head,
			     struct drm_crtc *crtc, struct drm_encoder *enc);
void vagx_wb_irq(struct vagx_wb *wb);
void vagx_wb_reset(struct vagx_wb *wb);

#endif /* __VAGX_WRITEBACK_H__ */
