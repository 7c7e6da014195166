/* SPDX-License-Identifier: MIT */
#ifndef VAGX_PUBLIC_H
#define VAGX_PUBLIC_H

struct pipe_screen;
struct pipe_screen_config;
struct renderonly;

struct pipe_screen *vagx_screen_create(int fd, const struct pipe_screen_config *config,
                                       struct renderonly *ro);

#endif
