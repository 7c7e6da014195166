/* SPDX-License-Identifier: MIT */
#ifndef VAGX_DRM_PUBLIC_H
#define VAGX_DRM_PUBLIC_H

struct pipe_screen;
struct pipe_screen_config;

struct pipe_screen *vagx_drm_screen_create(int drmFD, const struct pipe_screen_config *config);

#endif
