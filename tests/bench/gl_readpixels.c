/* SPDX-License-Identifier: MIT */
/*
 * gl_readpixels [--load] [--reads N] [--frames F] [CASE...]: the cost of glReadPixels
 * (GL_RGBA, GL_UNSIGNED_BYTE) of a whole colour buffer, 1920x1080 and
 * 800x600 (issue 15, docs/performance.md "Readback").  Cases NAME-WxH:
 *   pbuffer   the window system's buffer: an EGL pbuffer surface of an
 *             RGBA8888 config (what a headless application, eglretrace
 *             --headless say, draws into and reads back)
 *   fbo       a framebuffer object with a GL_RGBA8 texture
 *   rb        a framebuffer object with a GL_RGBA8 renderbuffer
 * Each case draws one frame (a full-screen quad textured with a 256x256
 * pattern whose every texel is known: u, v, u ^ v and a diagonal in the
 * four channels, nearest, repeated), then prints
 *   case NAME first_ms A read_ms B read_cpu_ms C draw_ms D draw_cpu_ms E
 *        drawread_ms F ok
 * first_ms     the first readback after the frame was drawn (glFinish'ed),
 *              the image's third (on vagx the one that moves it to the
 *              linear layout: a detile into new storage)
 * read_ms      the mean of N (default 20) more readbacks of the same frame
 * read_cpu_ms  the same readbacks in the GL thread's CPU time
 * draw_ms      a frame cleared, drawn and finished (glFinish), mean of F
 *              (default 5)
 * draw_cpu_ms  the same frames in the process's CPU time (all threads: on
 *              vagx the renderer's workers too)
 * drawread_ms  a frame drawn and read back, mean of F: the readback's share
 *              of an application that reads every frame is drawread - draw
 * With --load the frames are drawn without a glClear: vagx loads the
 * render target into its tiles before drawing (the cost of an application
 * that does not clear).
 * Every readback's pixels are checked against the pattern, exactly (RGBA8
 * texels sampled nearest and stored to RGBA8); a difference prints the
 * first bad pixel and makes the exit status 1.
 *
 * Desktop GL on the EGL surfaceless platform: the same binary runs on vagx
 * (drm-shim) and on Debian's llvmpipe (tests/bench/readpixels runs both).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include "gl_desktop.h"

static const char *vs_src =
   "attribute vec2 pos;\n"
   "uniform float k;\n"
   "uniform vec2 size;\n"
   "varying vec2 uv;\n"
   "void main() {\n"
   "   gl_Position = vec4(pos, 0.0, 1.0);\n"
   "   uv = ((pos * 0.5 + 0.5) * size + vec2(k, 0.0)) / 256.0;\n"
   "}\n";
/* frame k: the 256x256 pattern texture repeated, shifted by k texels in x
 * (so a stale frame shows); a texture fetch per pixel, cheap on every
 * driver.  uv at the centre of pixel x is (x + 0.5 + k) / 256, the centre
 * of texel (x + k) mod 256: nearest sampling is exact however the
 * interpolation rounds. */
static const char *fs_src =
   "uniform sampler2D pattern;\n"
   "varying vec2 uv;\n"
   "void main() { gl_FragColor = texture2D(pattern, uv); }\n";

static GLint k_loc, size_loc;

static void
expected(int x, int y, int k, unsigned char px[4])
{
   gl_pattern_texel((x + k) % 256, y % 256, px);
}

/* The first pixel of px (w x h, bottom row first) that is not frame k's */
static bool
check(const char *name, const unsigned char *px, int w, int h, int k)
{
   for (int y = 0; y < h; y++) {
      for (int x = 0; x < w; x++) {
         unsigned char e[4];
         const unsigned char *p = px + 4 * ((size_t)y * w + x);
         expected(x, y, k, e);
         if (memcmp(p, e, 4)) {
            printf("# %s frame %d: pixel (%d,%d) is %u,%u,%u,%u, expected %u,%u,%u,%u\n", name,
                   k, x, y, p[0], p[1], p[2], p[3], e[0], e[1], e[2], e[3]);
            return false;
         }
      }
   }
   return true;
}

static double
clock_s(clockid_t id)
{
   struct timespec ts;
   clock_gettime(id, &ts);
   return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double now(void) { return clock_s(CLOCK_MONOTONIC); }
/* the calling thread's CPU time: a readback's work is the GL thread's on
 * both drivers (the device is idle), and this figure does not grow when
 * other processes take the CPU */
static double cpu_now(void) { return clock_s(CLOCK_THREAD_CPUTIME_ID); }
/* the process's CPU time: every thread's, on vagx the renderer's workers
 * too (what a frame costs the machine) */
static double proc_cpu_now(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

/* --load: frames drawn without a clear, so that vagx loads the render
 * target into its tiles first (the background program's texelFetch) */
static bool load_frames;

/* a frame as applications draw one: cleared (nothing loaded), drawn
 * (without the clear, vagx loads the render target: docs/performance.md) */
static void
draw(int k)
{
   if (!load_frames)
      glClear(GL_COLOR_BUFFER_BIT);
   glUniform1f(k_loc, (float)k);
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

static void
read_frame(int w, int h, unsigned char *px)
{
   glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);
}

/* One case on the current draw/read framebuffer, w x h */
static bool
run_case(const char *name, int w, int h, int reads, int frames)
{
   unsigned char *px = malloc((size_t)w * h * 4);
   if (!px)
      return false;
   bool ok = true;
   glViewport(0, 0, w, h);
   glUniform2f(size_loc, (float)w, (float)h);
   /* warm-up: shader variants, the first use of the buffer, and two
    * readbacks (vagx: the third readback of the image moves it to the
    * linear layout, which first_ms then includes) */
   draw(0);
   read_frame(w, h, px);
   read_frame(w, h, px);
   draw(1);
   glFinish();

   double t = now();
   read_frame(w, h, px);
   const double first = now() - t;
   ok &= check(name, px, w, h, 1);

   t = now();
   const double c = cpu_now();
   for (int i = 0; i < reads; i++)
      read_frame(w, h, px);
   const double read = (now() - t) / reads, read_cpu = (cpu_now() - c) / reads;
   ok &= check(name, px, w, h, 1);

   t = now();
   const double pc = proc_cpu_now();
   for (int i = 0; i < frames; i++) {
      draw(2 + i);
      glFinish();
   }
   const double drawn = (now() - t) / frames, draw_cpu = (proc_cpu_now() - pc) / frames;

   t = now();
   for (int i = 0; i < frames; i++) {
      draw(2 + frames + i);
      read_frame(w, h, px);
   }
   const double drawread = (now() - t) / frames;
   ok &= check(name, px, w, h, 2 + 2 * frames - 1);
   ok &= glGetError() == GL_NO_ERROR;

   printf("case %s first_ms %.3f read_ms %.3f read_cpu_ms %.3f draw_ms %.3f draw_cpu_ms %.3f "
          "drawread_ms %.3f %s\n", name, first * 1e3, read * 1e3, read_cpu * 1e3, drawn * 1e3,
          draw_cpu * 1e3, drawread * 1e3, ok ? "ok" : "bad");
   fflush(stdout);
   free(px);
   return ok;
}

static EGLConfig
rgba8_config(EGLDisplay dpy)
{
   static const EGLint attr[] = {
      EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
      EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
      EGL_NONE,
   };
   EGLConfig cfgs[64];
   EGLint n = 0;
   if (!eglChooseConfig(dpy, attr, cfgs, 64, &n))
      return NULL;
   /* exactly 8 bits a channel (the list is sorted deepest first) */
   for (EGLint i = 0; i < n; i++) {
      EGLint r, a;
      eglGetConfigAttrib(dpy, cfgs[i], EGL_RED_SIZE, &r);
      eglGetConfigAttrib(dpy, cfgs[i], EGL_ALPHA_SIZE, &a);
      if (r == 8 && a == 8)
         return cfgs[i];
   }
   return NULL;
}

int
main(int argc, char **argv)
{
   int reads = 20, frames = 5, a = 1;
   while (a < argc && !strcmp(argv[a], "--load")) {
      load_frames = true;
      a++;
   }
   while (a + 1 < argc && argv[a][0] == '-') {
      if (!strcmp(argv[a], "--reads"))
         reads = atoi(argv[a + 1]);
      else if (!strcmp(argv[a], "--frames"))
         frames = atoi(argv[a + 1]);
      else
         break;
      a += 2;
   }
   if (reads < 1 || frames < 1 || (a < argc && argv[a][0] == '-')) {
      fprintf(stderr, "usage: gl_readpixels [--load] [--reads N] [--frames F] [CASE...]\n");
      return 2;
   }
   EGLDisplay dpy = gl_display();
   if (dpy == EGL_NO_DISPLAY)
      return 1;
   EGLConfig cfg = rgba8_config(dpy);
   eglBindAPI(EGL_OPENGL_API);
   EGLContext ctx = cfg ? eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, NULL) : EGL_NO_CONTEXT;
   if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
      fprintf(stderr, "gl_readpixels: no RGBA8888 pbuffer config or GL context (0x%x)\n",
              eglGetError());
      return 1;
   }
   printf("renderer %s\n", (const char *)glGetString(GL_RENDERER));
   const GLuint prog = gl_program(vs_src, fs_src);
   if (!prog) {
      fprintf(stderr, "gl_readpixels: %s\n", gl_err);
      return 1;
   }
   k_loc = glGetUniformLocation(prog, "k");
   size_loc = glGetUniformLocation(prog, "size");
   const GLuint tex = gl_pattern_texture();
   glUniform1i(glGetUniformLocation(prog, "pattern"), 0);
   static const float quad[4][2] = { { -1, -1 }, { 1, -1 }, { -1, 1 }, { 1, 1 } };
   gl_pos_buffer(quad, sizeof(quad));
   glPixelStorei(GL_PACK_ALIGNMENT, 4);

   static const int sizes[][2] = { { 1920, 1080 }, { 800, 600 } };
   int status = 0;
   for (unsigned s = 0; s < 2; s++) {
      const int w = sizes[s][0], h = sizes[s][1];
      char name[64];
      /* the window system's buffer */
      snprintf(name, sizeof(name), "pbuffer-%dx%d", w, h);
      if (gl_case_wanted(argc, argv, a, name)) {
         const EGLint pattr[] = { EGL_WIDTH, w, EGL_HEIGHT, h, EGL_NONE };
         EGLSurface surf = eglCreatePbufferSurface(dpy, cfg, pattr);
         if (surf == EGL_NO_SURFACE || !eglMakeCurrent(dpy, surf, surf, ctx)) {
            printf("# %s: no pbuffer (0x%x)\n", name, eglGetError());
            status = 1;
         } else {
            glBindFramebuffer(GL_FRAMEBUFFER, 0);
            if (!run_case(name, w, h, reads, frames))
               status = 1;
         }
         eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx);
         if (surf != EGL_NO_SURFACE)
            eglDestroySurface(dpy, surf);
      }
      /* framebuffer objects: a texture, a renderbuffer */
      for (int rbo = 0; rbo < 2; rbo++) {
         snprintf(name, sizeof(name), "%s-%dx%d", rbo ? "rb" : "fbo", w, h);
         if (!gl_case_wanted(argc, argv, a, name))
            continue;
         GLuint fbo, obj;
         glGenFramebuffers(1, &fbo);
         glBindFramebuffer(GL_FRAMEBUFFER, fbo);
         if (rbo) {
            glGenRenderbuffers(1, &obj);
            glBindRenderbuffer(GL_RENDERBUFFER, obj);
            glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
            glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, obj);
         } else {
            glGenTextures(1, &obj);
            glBindTexture(GL_TEXTURE_2D, obj);
            glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
            glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, obj, 0);
            glBindTexture(GL_TEXTURE_2D, tex);
         }
         if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
            printf("# %s: incomplete framebuffer\n", name);
            status = 1;
         } else if (!run_case(name, w, h, reads, frames)) {
            status = 1;
         }
         glBindFramebuffer(GL_FRAMEBUFFER, 0);
         glDeleteFramebuffers(1, &fbo);
         if (rbo)
            glDeleteRenderbuffers(1, &obj);
         else
            glDeleteTextures(1, &obj);
      }
   }
   return status;
}
