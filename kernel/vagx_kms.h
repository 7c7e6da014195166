/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (C) 2025 The vagx authors */
#ifndef __VAGX_KMS_H__
#define __VAGX_KMS_H__

#include <linux/types.h>

struct drm_connector;
struct drm_device;
struct drm_file;
struct drm_gem_object;
struct drm_mm_node;
struct drm_mode_create_dumb;
struct vagx_device;

int vagx_kms_init(struct vagx_device *vdev);
void vagx_kms_register(struct vagx_device *vdev);
void vagx_kms_cancel_hotplug(struct vagx_device *vdev);
void vagx_kms_fini(struct vagx_device *vdev);
void vagx_kms_irq(struct vagx_device *vdev, u32 pending);
void vagx_kms_hw_restore(struct vagx_device *vdev);
void vagx_kms_reset_prepare(struct vagx_device *vdev);
void vagx_kms_reset_done(struct vagx_device *vdev);
int vagx_kms_dumb_create(struct drm_file *file, struct drm_device *drm,
			 struct drm_mode_create_dumb *args);

/* For the writeback connector (vagx_writeback.c). */
u32 vagx_kms_hw_format(u32 fourcc);
int vagx_kms_get_modes(struct drm_connector *connector);
int vagx_kms_map_bo(struct drm_device *drm, struct drm_gem_object *obj,
		    struct drm_mm_node *node, bool read_only);
void vagx_kms_unmap_bo(struct drm_device *drm, struct drm_mm_node *node);
u64 vagx_kms_root(struct drm_device *drm);

#endif /* __VAGX_KMS_H__ */
