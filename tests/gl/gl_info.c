/* SPDX-License-Identifier: MIT */
/*
 * gl_info: what the current EGL (surfaceless platform) driver exposes:
 * renderer, and for OpenGL ES, desktop compatibility and core profiles the
 * highest version a context can be created for, the shading language version
 * and the extension count. (eglinfo on this host prints no GL strings.)
 * "gl_info -e" also lists the ES and compatibility-profile extensions.
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <stdio.h>
#include <string.h>

#define GL_VENDOR 0x1F00
#define GL_RENDERER 0x1F01
#define GL_VERSION 0x1F02
#define GL_EXTENSIONS 0x1F03
#define GL_SHADING_LANGUAGE_VERSION 0x8B8C
#define GL_NUM_EXTENSIONS 0x821D

typedef const unsigned char *(*get_string_t)(unsigned);
typedef const unsigned char *(*get_stringi_t)(unsigned, unsigned);
typedef void (*get_integerv_t)(unsigned, int *);

static EGLDisplay dpy;
static int list_ext; /* -e: also print the extension string, one per line */

static void
probe(const char *name, EGLenum api, const int (*versions)[2], int nver, int profile)
{
   eglBindAPI(api);
   for (int i = 0; i < nver; i++) {
      EGLint attr[16], n = 0;
      attr[n++] = EGL_CONTEXT_MAJOR_VERSION;
      attr[n++] = versions[i][0];
      attr[n++] = EGL_CONTEXT_MINOR_VERSION;
      attr[n++] = versions[i][1];
      if (profile) {
         attr[n++] = EGL_CONTEXT_OPENGL_PROFILE_MASK;
         attr[n++] = profile;
      }
      attr[n++] = EGL_NONE;
      EGLContext ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attr);
      if (ctx == EGL_NO_CONTEXT)
         continue;
      eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx);
      get_string_t gs = (get_string_t)eglGetProcAddress("glGetString");
      get_stringi_t gsi = (get_stringi_t)eglGetProcAddress("glGetStringi");
      get_integerv_t gi = (get_integerv_t)eglGetProcAddress("glGetIntegerv");
      const char *ver = (const char *)gs(GL_VERSION);
      const char *sl = (const char *)gs(GL_SHADING_LANGUAGE_VERSION);
      int next = 0;
      /* core profiles have no GL_EXTENSIONS string */
      const char *ext = profile == EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT ? NULL
                                                                        : (const char *)gs(GL_EXTENSIONS);
      if (ext && *ext) {
         for (const char *p = ext; *p;) {
            while (*p == ' ')
               p++;
            if (!*p)
               break;
            next++;
            while (*p && *p != ' ')
               p++;
         }
      } else if (gsi && gi) {
         gi(GL_NUM_EXTENSIONS, &next);
      }
      printf("%-8s %s | GLSL %s | %d extensions | renderer %s\n", name, ver ? ver : "?",
             sl ? sl : "-", next, (const char *)gs(GL_RENDERER));
      if (list_ext && ext) {
         for (const char *p = ext; *p; p++)
            putchar(*p == ' ' ? '\n' : *p);
         putchar('\n');
      }
      eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      eglDestroyContext(dpy, ctx);
      return;
   }
   printf("%-8s (no context)\n", name);
}

int
main(int argc, char **argv)
{
   list_ext = argc > 1 && !strcmp(argv[1], "-e");
   PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
      (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
   dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
   if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, NULL, NULL)) {
      fprintf(stderr, "gl_info: no surfaceless EGL display\n");
      return 1;
   }
   const char *drv = "?";
   PFNEGLGETDISPLAYDRIVERNAMEPROC dn =
      (PFNEGLGETDISPLAYDRIVERNAMEPROC)eglGetProcAddress("eglGetDisplayDriverName");
   if (dn)
      drv = dn(dpy);
   printf("EGL driver %s\n", drv);
   static const int es[][2] = { { 3, 2 }, { 3, 1 }, { 3, 0 }, { 2, 0 } };
   /* no 3.1: Mesa's EGL makes every 3.1 context a core one, whatever the
    * profile bit (egl_dri2.c); a 3.0 request gets the highest compatibility
    * version (3.1 with GL_ARB_compatibility, when the driver has it) */
   static const int gl[][2] = { { 4, 6 }, { 4, 5 }, { 4, 3 }, { 4, 0 }, { 3, 3 }, { 3, 2 },
                                { 3, 0 }, { 2, 1 }, { 2, 0 }, { 1, 5 }, { 1, 4 },
                                { 1, 3 }, { 1, 0 } };
   static const int core[][2] = { { 4, 6 }, { 4, 5 }, { 4, 3 }, { 4, 0 }, { 3, 3 }, { 3, 2 }, { 3, 1 } };
   probe("ES", EGL_OPENGL_ES_API, es, 4, 0);
   probe("compat", EGL_OPENGL_API, gl, 13, EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT);
   probe("core", EGL_OPENGL_API, core, 7, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);
   eglTerminate(dpy);
   return 0;
}
