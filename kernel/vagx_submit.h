/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (C) 2025 The vagx authors */
#ifndef __VAGX_SUBMIT_H__
#define __VAGX_SUBMIT_H__

struct drm_file;
struct drm_vagx_submit;

int vagx_submit(struct drm_file *file, struct drm_vagx_submit *args);

#endif /* __VAGX_SUBMIT_H__ */
