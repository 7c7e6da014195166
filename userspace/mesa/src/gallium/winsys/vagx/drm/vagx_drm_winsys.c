/* SPDX-License-Identifier: MIT */
#include "util/os_file.h"
#include "util/u_screen.h"
#include "vagx_drm_public.h"
#include "vagx/vagx_public.h"

struct pipe_screen *
vagx_drm_screen_create(int fd, const struct pipe_screen_config *config)
{
   return u_pipe_screen_lookup_or_create(os_dupfd_cloexec(fd), config, NULL,
                                         vagx_screen_create);
}
