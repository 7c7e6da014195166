/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (C) 2025 The vagx authors */
#ifndef __VAGX_SUBMIT_H__
#define __VAGX_SUBMIT_H__

struct drm_device;
struct drm_file;

int vagx_ioctl_submit(struct drm_device *drm, void *data,
		      struct drm_file *file);

#endif /* __VAGX_SUBMIT_H__ */
