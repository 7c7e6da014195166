/* SPDX-License-Identifier: MIT */
/*
 * The shared scaffolding of the GL test programs of tests/gl (and
 * tests/bench/gl_drawoverhead.c): the EGL display and contexts, shaders and
 * programs with their error logs, the render target, PPM images and the
 * image comparison tests/gl/run applies, and the case runner that prints the
 * "case NAME ok|skip|error" lines tests/gl/run reads.
 *
 * gl_common.c is compiled once (tests/gl/Makefile) and linked into every
 * program, GLES (gl_triangle, gl_shaders: libGLESv2) and desktop GL (the
 * others: libOpenGL) alike; glvnd gives both the same entry points.  So this
 * header includes no GL header: include GLES2/gl2.h or gl_desktop.h first.
 * The GL names below are plain unsigned, which GLuint and GLenum are in both
 * APIs.
 */
#ifndef GL_COMMON_H
#define GL_COMMON_H

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <stdbool.h>
#include <stdio.h>

/* Why the running case (or the set-up) failed: set by GL_FAIL, by the
 * shader helpers and by gl_check_error; "skip: WHY" skips the case. */
extern char gl_err[1024];

#define GL_FAIL(...)                                                                 \
   do {                                                                              \
      snprintf(gl_err, sizeof(gl_err), __VA_ARGS__);                                 \
      return false;                                                                  \
   } while (0)

/* ---- EGL ---- */

/* The surfaceless display (EGL_MESA_platform_surfaceless), initialised */
EGLDisplay gl_display(void);
/* A configless, surfaceless context of api (EGL_OPENGL_API: compatibility
 * profile; EGL_OPENGL_ES_API with attr { EGL_CONTEXT_CLIENT_VERSION, 2 }),
 * current on this thread; EGL_NO_CONTEXT (with a message) on failure */
EGLContext gl_context_api(EGLDisplay dpy, EGLenum api, const EGLint *attr);
/* The desktop compatibility context of the desktop-GL programs */
EGLContext gl_context(EGLDisplay dpy);

/* ---- shaders and programs: 0 and gl_err on failure ---- */

bool gl_has_ext(const char *name);
/* A compiled shader; gl_err holds its info log (one line) on failure */
unsigned gl_shader(unsigned type, const char *src);
/* vs + fs linked with attribute 0 named "pos" and attribute 1 named
 * "attr", made current */
unsigned gl_program(const char *vs, const char *fs);
/* gl_program with the vertex output `varying` captured (interleaved) by
 * transform feedback; fs NULL: a vertex shader alone */
unsigned gl_xfb_program(const char *vs, const char *fs, const char *varying);
/* One compute shader linked, made current */
unsigned gl_cs_program(const char *cs);
/* A vertex buffer of `bytes` bytes of x, y pairs, bound, as attribute 0
 * ("pos"), enabled */
unsigned gl_pos_buffer(const void *xy, long bytes);
/* false (gl_err: "GL error 0xN after WHAT") if a GL error is pending */
bool gl_check_error(const char *what);

/* ---- render target and images ---- */

/* A w x h 2D texture of RGBA bytes (texels NULL: undefined), unsized
 * GL_RGBA (GLES 2 has no other), min and mag filter `filter`, clamped to
 * the edge; bound to the active unit */
unsigned gl_texture_rgba(int w, int h, const void *texels, unsigned filter);
/* The readback pattern (tests/gl/gl_readback.c, tests/bench/gl_readpixels.c):
 * a 256x256 image whose every texel is known, (u, v, u ^ v, a diagonal);
 * as a texture (nearest, repeated), bound to the active unit */
void gl_pattern_texel(int u, int v, unsigned char px[4]);
unsigned gl_pattern_texture(void);
/* A w x h 2D texture of internal format ifmt as colour 0 of a new bound
 * framebuffer, and the viewport; the names in *tex, *fbo (if not NULL);
 * whether the framebuffer is complete */
bool gl_color_target(unsigned ifmt, int w, int h, unsigned *tex, unsigned *fbo);
/* gl_color_target of GL_RGBA8 */
bool gl_target_fbo(int w, int h);
/* A w x h renderbuffer of format (a depth and/or stencil one) as the bound
 * framebuffer's attachment */
unsigned gl_depth_buffer(unsigned format, unsigned attachment, int w, int h);
/* RGBA rows bottom-up (glReadPixels) as a binary PPM, top row first */
bool gl_write_ppm(const char *path, const unsigned char *rgba, int w, int h);
/* gl_write_ppm to DIR/NAME.ppm; false (gl_err) if it cannot */
bool gl_save_image(const char *dir, const char *name, const unsigned char *rgba, int w, int h);
/* A binary PPM as RGB bytes, top row first (malloc'd); NULL if unreadable */
unsigned char *gl_read_ppm(const char *path, int *w, int *h);
/* tests/gl/run's image comparison (gl_common.c says the tolerance): prints
 * one "# ..." line; 0 match, 1 differ, 2 unreadable or of other sizes */
int gl_compare_ppm(const char *ref, const char *test);

/* ---- test cases ---- */

struct gl_case {
   const char *name;
   bool (*fn)(void); /* false: failed, gl_err says why */
   bool cmp;         /* tests/gl/run also compares its image with softpipe's */
};

/* --list: prints the case names (with " cmp" / " self" if kinds); true if
 * it did (the program then exits) */
bool gl_list_cases(int argc, char **argv, const struct gl_case *cases, unsigned n, bool kinds);
/* Does argv[first..] name the case (or name none, which selects all)? */
bool gl_case_wanted(int argc, char **argv, int first, const char *name);
/* The end of one case: a pending GL error fails it, gl_err "skip: WHY"
 * skips it; prints "case NAME ok|skip: WHY|error: WHY".  True unless it
 * failed. */
bool gl_case_report(const char *name, bool ok);

/* A program of cases on one desktop compatibility context */
struct gl_suite {
   const struct gl_case *cases;
   unsigned n;
   bool outdir;             /* argv[1] is OUTDIR (gl_outdir), cases follow */
   bool kinds;              /* --list says cmp or self per case */
   bool (*setup)(void);     /* once, context current: false = error, or
                               with gl_err "skip: WHY" every case skips */
   bool fresh_program;      /* glUseProgram(0) before each case */
   void (*after)(void);     /* after each case, before the checks */
   unsigned char *px;       /* w x h RGBA image of each case, zeroed before
                               it, written to OUTDIR/NAME.ppm after it */
   bool readback;           /* px is read from the framebuffer after the
                               case (else the case fills it) */
   int w, h;
};

extern EGLDisplay gl_dpy;       /* gl_run's display */
extern const char *gl_outdir;   /* gl_run's OUTDIR (NULL: none) */

/* --list, or the context, the set-up and every wanted case; the exit code
 * of main: 0 all passed or skipped, 1 a failure, 2 usage, 3 no context */
int gl_run(int argc, char **argv, const struct gl_suite *s);

#endif
