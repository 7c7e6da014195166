/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (C) 2025 The vagx authors */
#ifndef __VAGX_KMS_H__
#define __VAGX_KMS_H__

#include <linux/types.h>

struct drm_device;
struct drm_file;
struct drm_mode_create_dumb;
struct vagx_device;

int vagx_kms_init(struct vagx_device *vdev);
void vagx_kms_register(struct vagx_device *vdev);
void vagx_kms_fini(struct vagx_device *vdev);
void vagx_kms_irq(struct vagx_device *vdev, u32 pending);
void vagx_kms_hw_restore(struct vagx_device *vdev);
int vagx_kms_dumb_create(struct drm_file *file, struct drm_device *drm,
			 struct drm_mode_create_dumb *args);

#endif /* __VAGX_KMS_H__ */
