/* SPDX-License-Identifier: MIT */
/*
 * Include vagx_drm.h for the compile tests: libdrm's drm.h first (it has
 * implicit padding of its own), then our header with -Wpadded promoted to
 * an error, so any implicit padding in a vagx structure -- the thing that
 * makes 32-bit and 64-bit layouts differ -- fails the compilation.
 */
#include <stddef.h>
#include <stdint.h>
#include "drm.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wpadded"
#endif
#include "vagx_drm.h"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
