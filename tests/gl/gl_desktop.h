/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the desktop-GL test programs (gl_formats.c, gl_indirect.c,
 * gl_threads.c): a compatibility context on the EGL surfaceless platform
 * (no EGLConfig, no window system), shader programs, PPM output.  Header
 * only: each program is one C file (tests/gl/Makefile).
 */
#ifndef GL_DESKTOP_H
#define GL_DESKTOP_H

#define GL_GLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static inline bool
gl_has_ext(const char *name)
{
   const char *all = (const char *)glGetString(GL_EXTENSIONS);
   return all && strstr(all, name);
}

static inline GLuint
gl_compile(GLenum type, const char *src)
{
   GLuint s = glCreateShader(type);
   glShaderSource(s, 1, &src, NULL);
   glCompileShader(s);
   GLint ok = 0;
   glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
   return ok ? s : 0;
}

/* A program with attribute 0 named "pos", made current; 0 on failure */
static inline GLuint
gl_program(const char *vs, const char *fs)
{
   GLuint v = gl_compile(GL_VERTEX_SHADER, vs), f = gl_compile(GL_FRAGMENT_SHADER, fs);
   if (!v || !f)
      return 0;
   GLuint p = glCreateProgram();
   glAttachShader(p, v);
   glAttachShader(p, f);
   glBindAttribLocation(p, 0, "pos");
   glLinkProgram(p);
   GLint ok = 0;
   glGetProgramiv(p, GL_LINK_STATUS, &ok);
   if (!ok)
      return 0;
   glUseProgram(p);
   return p;
}

/* An RGBA8 texture of w x h as the bound framebuffer, and the viewport */
static inline bool
gl_target_fbo(int w, int h)
{
   GLuint tex, fbo;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
   glViewport(0, 0, w, h);
   return glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
}

/* RGBA rows bottom-up (glReadPixels) as a binary PPM, top row first */
static inline bool
gl_write_ppm(const char *path, const unsigned char *rgba, int w, int h)
{
   FILE *f = fopen(path, "wb");
   if (!f)
      return false;
   fprintf(f, "P6\n%d %d\n255\n", w, h);
   for (int y = h - 1; y >= 0; y--)
      for (int x = 0; x < w; x++)
         fwrite(rgba + 4 * (y * w + x), 1, 3, f);
   return fclose(f) == 0;
}

/* A program's named test cases: NAME, or all of them when argv names none. */
struct gl_case {
   const char *name;
   bool (*fn)(void);
};

/* --list: prints the case names; true if it did (the program then exits) */
static inline bool
gl_list_cases(int argc, char **argv, const struct gl_case *cases, unsigned n)
{
   if (argc != 2 || strcmp(argv[1], "--list"))
      return false;
   for (unsigned i = 0; i < n; i++)
      printf("%s\n", cases[i].name);
   return true;
}

/* Does argv[first..] name the case (or name none, which selects all)? */
static inline bool
gl_case_wanted(int argc, char **argv, int first, const char *name)
{
   bool want = argc <= first;
   for (int a = first; a < argc; a++)
      want |= !strcmp(argv[a], name);
   return want;
}

/* The end of one case: a pending GL error fails it, its image (px, w x h
 * rows from glReadPixels; NULL: none) is written to DIR/NAME.ppm, and
 * "case NAME ok" or "case NAME error: WHY" is printed, the line
 * tests/gl/run reads.  Returns whether the case passed. */
static inline bool
gl_case_report(const char *name, bool ok, const char *why, const char *dir,
               const unsigned char *px, int w, int h)
{
   char msg[512];
   snprintf(msg, sizeof(msg), "%s", why && why[0] ? why : "failed");
   const GLenum err = glGetError();
   if (ok && err != GL_NO_ERROR) {
      snprintf(msg, sizeof(msg), "GL error 0x%x", err);
      ok = false;
   }
   while (glGetError() != GL_NO_ERROR)
      ;
   if (ok && px) {
      char path[1024];
      snprintf(path, sizeof(path), "%s/%s.ppm", dir, name);
      if (!gl_write_ppm(path, px, w, h)) {
         snprintf(msg, sizeof(msg), "cannot write %.200s", path);
         ok = false;
      }
   }
   if (ok)
      printf("case %s ok\n", name);
   else
      printf("case %s error: %s\n", name, msg);
   fflush(stdout);
   return ok;
}

/* The surfaceless display, initialised */
static inline EGLDisplay
gl_display(void)
{
   PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
      (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
   EGLDisplay dpy = get_display ? get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY,
                                              NULL)
                                : EGL_NO_DISPLAY;
   if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, NULL, NULL)) {
      fprintf(stderr, "no surfaceless EGL display (0x%x)\n", eglGetError());
      return EGL_NO_DISPLAY;
   }
   return dpy;
}

/* A compatibility context without surfaces, current on this thread (the
 * bound API is per thread: bound here) */
static inline EGLContext
gl_context(EGLDisplay dpy)
{
   eglBindAPI(EGL_OPENGL_API);
   EGLContext ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, NULL);
   if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
      fprintf(stderr, "no GL context (0x%x)\n", eglGetError());
      return EGL_NO_CONTEXT;
   }
   return ctx;
}

#endif
