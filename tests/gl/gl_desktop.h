/* SPDX-License-Identifier: MIT */
/*
 * The desktop-GL test programs' include: the GL headers with the
 * prototypes of every entry point (libOpenGL of glvnd), then the shared
 * scaffolding of tests/gl (gl_common.h).
 */
#ifndef GL_DESKTOP_H
#define GL_DESKTOP_H

#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <string.h>

#include "gl_common.h"

#endif
