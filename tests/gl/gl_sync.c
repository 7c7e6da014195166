/* SPDX-License-Identifier: MIT */
/*
 * gl_sync: fences and CPU reads of GPU results with jobs still running.
 * Each case prints "case NAME ok", "case NAME skip: WHY" or
 * "case NAME error: ..." (tests/gl/run).
 *
 * tests/gl/run runs it on vagx with VAGX_SHIM_DELAY_MS (the drm-shim holds
 * every job that long before it runs) and --async, which adds the checks
 * that only hold when jobs complete after the calls that submit them: a
 * fence is not signalled right after glFlush, a 10 ms wait times out after
 * ~10 ms.  Every read of rendered data must then wait for the right job,
 * or it reads memory the job has not written yet; buffer updates must wait
 * for (or not disturb) the jobs still reading the old data; a driver that
 * recycles command memory before its job ran draws garbage.  Without
 * --async (softpipe) it checks the test itself.
 */
#include "gl_desktop.h"
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define W 32
#define H 32

static bool async_jobs;
static unsigned char px[W * H * 4];

static const char *vs_src =
   "#version 120\n"
   "attribute vec2 pos;\n"
   "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";
static const char *fs_src =
   "#version 120\n"
   "uniform vec4 color;\n"
   "void main() { gl_FragColor = color; }\n";
static GLuint prog, vbo;
static GLint color_loc;

static double
now_ms(void)
{
   struct timespec t;
   clock_gettime(CLOCK_MONOTONIC, &t);
   return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Quad from x0 to x1 (NDC), full height, into the first half of the
 * 64-byte vbo: glBufferSubData of that half (a partial update: the driver
 * must wait for draws still reading the buffer), or glBufferData of all of
 * it when whole (new storage may be given instead) */
static void
quad_data(float x0, float x1, bool whole)
{
   const float v[16] = { x0, -1, x1, -1, x0, 1, x1, 1 };
   if (whole)
      glBufferData(GL_ARRAY_BUFFER, sizeof(v), v, GL_DYNAMIC_DRAW);
   else
      glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof(v) / 2, v);
}

static void
draw(const float *c)
{
   glUniform4fv(color_loc, 1, c);
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

/* pixel (x, y) of the last glReadPixels equals c (0..1, multiples of 1/255) */
static bool
pixel_is(int x, int y, const float *c, const char *what)
{
   const unsigned char *p = px + 4 * (y * W + x);
   for (int i = 0; i < 4; i++) {
      if (p[i] != (unsigned char)(c[i] * 255 + 0.5f)) {
         snprintf(gl_err, sizeof(gl_err), "%s: pixel %d,%d is %u,%u,%u,%u, want %g,%g,%g,%g (x255)",
                  what, x, y, p[0], p[1], p[2], p[3], c[0] * 255, c[1] * 255, c[2] * 255,
                  c[3] * 255);
         return false;
      }
   }
   return true;
}

static const float red[4] = { 1, 0, 0, 1 }, green[4] = { 0, 1, 0, 1 },
                   blue[4] = { 0, 0, 1, 1 }, black[4] = { 0, 0, 0, 1 };

static void
frame_begin(void)
{
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
}

/* glClientWaitSync with a timeout of 0 and of 10 ms while the job runs,
 * then without limit; the frame is there afterwards */
static bool
case_fence_timeouts(void)
{
   frame_begin();
   quad_data(-1, 1, false);
   draw(green);
   GLsync s = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
   glFlush();
   if (async_jobs) {
      GLenum r = glClientWaitSync(s, 0, 0);
      if (r != GL_TIMEOUT_EXPIRED) {
         snprintf(gl_err, sizeof(gl_err), "timeout 0 while the job is held: 0x%x, want TIMEOUT_EXPIRED", r);
         return false;
      }
      GLint status = 0;
      glGetSynciv(s, GL_SYNC_STATUS, 1, NULL, &status);
      if (status != GL_UNSIGNALED) {
         snprintf(gl_err, sizeof(gl_err), "GL_SYNC_STATUS 0x%x while the job is held", status);
         return false;
      }
      double t0 = now_ms();
      r = glClientWaitSync(s, GL_SYNC_FLUSH_COMMANDS_BIT, 10 * 1000 * 1000);
      double dt = now_ms() - t0;
      if (r != GL_TIMEOUT_EXPIRED || dt < 8 || dt > 40) {
         snprintf(gl_err, sizeof(gl_err), "10 ms timeout: 0x%x after %.1f ms, want TIMEOUT_EXPIRED after ~10 ms",
                  r, dt);
         return false;
      }
   }
   GLenum r = glClientWaitSync(s, GL_SYNC_FLUSH_COMMANDS_BIT, 10ull * 1000 * 1000 * 1000);
   if (r != GL_CONDITION_SATISFIED && r != GL_ALREADY_SIGNALED) {
      snprintf(gl_err, sizeof(gl_err), "10 s timeout: 0x%x", r);
      return false;
   }
   GLint status = 0;
   glGetSynciv(s, GL_SYNC_STATUS, 1, NULL, &status);
   if (status != GL_SIGNALED) {
      snprintf(gl_err, sizeof(gl_err), "GL_SYNC_STATUS 0x%x after the wait", status);
      return false;
   }
   /* glWaitSync on a signalled fence is a no-op for the device */
   glWaitSync(s, 0, GL_TIMEOUT_IGNORED);
   glDeleteSync(s);
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   return pixel_is(W / 2, H / 2, green, "after the fence");
}

/* Results read right after the draws, no fence: glReadPixels, an
 * occlusion query's result, a transform-feedback buffer mapped */
static bool
case_read_after_render(void)
{
   GLuint q;
   glGenQueries(1, &q);
   frame_begin();
   quad_data(-1, 0, false);
   glBeginQuery(GL_SAMPLES_PASSED, q);
   draw(blue);
   glEndQuery(GL_SAMPLES_PASSED);
   /* the query first: glReadPixels would wait for the same job */
   GLuint samples = 0;
   glGetQueryObjectuiv(q, GL_QUERY_RESULT, &samples);
   glDeleteQueries(1, &q);
   if (samples != W * H / 2) {
      snprintf(gl_err, sizeof(gl_err), "occlusion query: %u samples, want %u", samples, W * H / 2);
      return false;
   }
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   if (!pixel_is(W / 4, H / 2, blue, "glReadPixels, left") ||
       !pixel_is(3 * W / 4, H / 2, black, "glReadPixels, right"))
      return false;

   /* transform feedback of the 4 positions into a buffer, mapped */
   static const char *tf_vs =
      "#version 130\n"
      "in vec2 pos;\n"
      "out vec4 cap;\n"
      "void main() { cap = vec4(pos * 2.0, 7.0, 9.0); gl_Position = vec4(pos, 0.0, 1.0); }\n";
   const GLuint p = gl_xfb_program(tf_vs, NULL, "cap");
   if (!p)
      return false;
   GLuint tfb;
   glGenBuffers(1, &tfb);
   glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, tfb);
   glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, 4 * 16, NULL, GL_STREAM_READ);
   glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, tfb);
   glUseProgram(p);
   glBeginTransformFeedback(GL_POINTS);
   glDrawArrays(GL_POINTS, 0, 4);
   glEndTransformFeedback();
   glUseProgram(prog);
   const float *m = glMapBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 4 * 16, GL_MAP_READ_BIT);
   bool good = m != NULL;
   static const float want[16] = { -2, -2, 7, 9, 0, -2, 7, 9, -2, 2, 7, 9, 0, 2, 7, 9 };
   for (int i = 0; good && i < 16; i++) {
      if (m[i] != want[i]) {
         snprintf(gl_err, sizeof(gl_err), "transform feedback buffer word %d: %g, want %g", i, m[i], want[i]);
         good = false;
      }
   }
   if (!m)
      snprintf(gl_err, sizeof(gl_err), "glMapBufferRange of the feedback buffer failed");
   glUnmapBuffer(GL_TRANSFORM_FEEDBACK_BUFFER);
   glDeleteBuffers(1, &tfb);
   glDeleteProgram(p);
   return good;
}

/* Vertex data changed while a job that reads the old data is pending: a
 * partial glBufferSubData (waits), then glBufferData of the same size
 * (new storage) */
static bool
case_update_in_flight(void)
{
   for (int whole = 0; whole < 2; whole++) {
      frame_begin();
      quad_data(-1, 0, whole);
      draw(red);
      glFlush(); /* the job is submitted (and held by the shim) */
      const double t0 = now_ms();
      quad_data(0, 1, whole);
      const double dt = now_ms() - t0;
      /* new storage for the whole buffer: no wait for the held job */
      if (whole && async_jobs && dt > 40) {
         snprintf(gl_err, sizeof(gl_err), "glBufferData of a buffer a submitted draw reads took %.0f ms", dt);
         return false;
      }
      draw(green);
      glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
      const char *what = whole ? "glBufferData after a submitted draw"
                               : "glBufferSubData after a submitted draw";
      if (!pixel_is(W / 4, H / 2, red, what) || !pixel_is(3 * W / 4, H / 2, green, what))
         return false;
   }
   return true;
}

static float
frame_x(int f)
{
   return -1 + 2.0f * (f % 8) / 8;
}

static void
frame_color(int f, float *c)
{
   c[0] = (f * 10 % 256) / 255.0f;
   c[1] = 1;
   c[2] = (255 - f) / 255.0f;
   c[3] = 1;
}

/* 24 frames into two framebuffers in turn, each with new vertex data and a
 * fence; the CPU waits only for the fence of the frame 3 back, so several
 * frames are in flight and the driver recycles their command memory.
 * Every 4th frame, the frame before it is read back while the new one is
 * still pending: its job must have run its own commands, not the next
 * frame's written into memory it still needed. */
static bool
case_frames_in_flight(void)
{
   GLint orig = 0, fb[2] = { 0 };
   glGetIntegerv(GL_FRAMEBUFFER_BINDING, &orig);
   for (int i = 0; i < 2; i++) {
      if (!gl_target_fbo(W, H)) {
         snprintf(gl_err, sizeof(gl_err), "no framebuffer");
         return false;
      }
      glGetIntegerv(GL_FRAMEBUFFER_BINDING, &fb[i]);
   }
   GLsync ring[3] = { 0 };
   bool good = true;
   for (int f = 0; f < 24 && good; f++) {
      GLsync *slot = &ring[f % 3];
      if (*slot) {
         GLenum r = glClientWaitSync(*slot, GL_SYNC_FLUSH_COMMANDS_BIT, 10ull * 1000 * 1000 * 1000);
         glDeleteSync(*slot);
         *slot = 0;
         if (r != GL_CONDITION_SATISFIED && r != GL_ALREADY_SIGNALED) {
            snprintf(gl_err, sizeof(gl_err), "frame %d: fence wait 0x%x", f, r);
            good = false;
            break;
         }
      }
      glBindFramebuffer(GL_FRAMEBUFFER, fb[f % 2]);
      frame_begin();
      quad_data(frame_x(f), frame_x(f) + 0.25f, true);
      float c[4];
      frame_color(f, c);
      draw(c);
      *slot = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
      glFlush();
      if (f % 4 == 0 && f) {
         const int p = f - 1;
         glBindFramebuffer(GL_READ_FRAMEBUFFER, fb[p % 2]);
         glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
         const int cx = (int)((frame_x(p) + 1.125f) / 2 * W);
         char what[64];
         snprintf(what, sizeof(what), "frame %d read during frame %d", p, f);
         frame_color(p, c);
         good = pixel_is(cx, H / 2, c, what) && pixel_is((cx + W / 2) % W, H / 2, black, what);
      }
   }
   for (int i = 0; i < 3; i++)
      if (ring[i])
         glDeleteSync(ring[i]);
   glBindFramebuffer(GL_FRAMEBUFFER, orig);
   return good;
}

/* A vertex buffer updated before every draw of a frame (glBufferSubData of
 * one cell's quad: a range discard) while earlier draws of the frame read
 * it, in a pending batch and, after a glFlush halfway, in a submitted job.
 * The driver gives the buffer new storage with the rest of the old contents
 * instead of waiting: tests/gl/run counts the CPU waits (VAGX_DEBUG=waits)
 * between the two marks this case prints, and wants none.  Additive
 * blending: draw i draws cells 0..i, so cell j gets draws j..15, red
 * (16 - j) * 15; a draw that saw a later update, or lost an earlier one,
 * adds another amount. */
static bool
case_vbo_updates(void)
{
   enum { CELLS = 16 };
   GLuint buf;
   glGenBuffers(1, &buf);
   glBindBuffer(GL_ARRAY_BUFFER, buf);
   glBufferData(GL_ARRAY_BUFFER, CELLS * 12 * sizeof(float), NULL, GL_DYNAMIC_DRAW);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (void *)0);
   frame_begin();
   glEnable(GL_BLEND);
   glBlendFunc(GL_ONE, GL_ONE);
   glUniform4f(color_loc, 15 / 255.0f, 0, 0, 0);
   fprintf(stderr, "gl_sync: vbo_updates begin\n");
   for (int i = 0; i < CELLS; i++) {
      const float x0 = -1 + 0.5f * (i % 4), y0 = -1 + 0.5f * (i / 4);
      const float x1 = x0 + 0.5f, y1 = y0 + 0.5f;
      const float v[12] = { x0, y0, x1, y0, x0, y1, x0, y1, x1, y0, x1, y1 };
      glBufferSubData(GL_ARRAY_BUFFER, i * sizeof(v), sizeof(v), v);
      glDrawArrays(GL_TRIANGLES, 0, 6 * (i + 1));
      if (i == CELLS / 2 - 1)
         glFlush(); /* the job is submitted (and held by the shim) */
   }
   fprintf(stderr, "gl_sync: vbo_updates end\n");
   glDisable(GL_BLEND);
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (void *)0);
   glDeleteBuffers(1, &buf);
   for (int j = 0; j < CELLS; j++) {
      const float c[4] = { (16 - j) * 15 / 255.0f, 0, 0, 1 };
      char what[64];
      snprintf(what, sizeof(what), "cell %d after 16 updates and draws", j);
      if (!pixel_is((j % 4) * 8 + 4, (j / 4) * 8 + 4, c, what))
         return false;
   }
   return true;
}

/* 12 frames submitted alternately by two contexts of one display (one
 * screen), 6 each, each frame a draw and a glFlush, while the shim holds
 * every job: the driver lets at most 8 submits of the screen be pending
 * (VAGX_MAX_INFLIGHT), so the CPU must not wait before the 9th submit and
 * must wait from then on (tests/gl/run checks the VAGX_DEBUG=waits lines
 * against the "submitted N" marks); a bound per context would never wait
 * here.  Each context's last frame is read back. */
static bool
case_inflight_bound(void)
{
   EGLContext a = eglGetCurrentContext();
   EGLContext b = gl_context(gl_dpy); /* current now */
   if (b == EGL_NO_CONTEXT) {
      snprintf(gl_err, sizeof(gl_err), "no second context");
      return false;
   }
   GLuint prog_b = gl_program(vs_src, fs_src), vbo_b;
   GLint color_b = glGetUniformLocation(prog_b, "color");
   glGenBuffers(1, &vbo_b);
   glBindBuffer(GL_ARRAY_BUFFER, vbo_b);
   const float quad[8] = { -1, -1, 1, -1, -1, 1, 1, 1 };
   glBufferData(GL_ARRAY_BUFFER, sizeof(quad), quad, GL_STATIC_DRAW);
   glEnableVertexAttribArray(0);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (void *)0);
   if (!prog_b || !gl_target_fbo(W, H)) {
      snprintf(gl_err, sizeof(gl_err), "second context: no program or framebuffer");
      return false;
   }
   /* both contexts' variants compiled and their jobs done before the marks */
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
   glFinish();
   eglMakeCurrent(gl_dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, a);
   quad_data(-1, 1, true);
   draw(black);
   glFinish();
   float c[4] = { 0, 0, 0, 1 };
   fprintf(stderr, "gl_sync: inflight_bound begin\n");
   for (int k = 0; k < 12; k++) {
      eglMakeCurrent(gl_dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, k % 2 ? b : a);
      c[0] = k / 11.0f;
      c[2] = 1 - k / 11.0f;
      glUniform4fv(k % 2 ? color_b : color_loc, 1, c);
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
      glFlush();
      fprintf(stderr, "gl_sync: submitted %d\n", k + 1);
   }
   fprintf(stderr, "gl_sync: inflight_bound end\n");
   bool ok = true;
   for (int k = 10; k < 12 && ok; k++) {
      eglMakeCurrent(gl_dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, k % 2 ? b : a);
      glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
      const float want[4] = { k / 11.0f, 0, 1 - k / 11.0f, 1 };
      ok = pixel_is(W / 2, H / 2, want, k % 2 ? "second context's last frame"
                                              : "first context's last frame");
   }
   eglMakeCurrent(gl_dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, b);
   glDeleteProgram(prog_b);
   glDeleteBuffers(1, &vbo_b);
   eglMakeCurrent(gl_dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, a);
   eglDestroyContext(gl_dpy, b);
   return ok;
}

/* EGL_KHR_fence_sync and EGL_ANDROID_native_fence_sync: a native fence fd
 * of the draw, polled, imported again and waited for on the device */
static bool
case_egl_fences(void)
{
   const char *exts = eglQueryString(gl_dpy, EGL_EXTENSIONS);
   if (!exts || !strstr(exts, "EGL_KHR_fence_sync") ||
       !strstr(exts, "EGL_ANDROID_native_fence_sync") || !strstr(exts, "EGL_KHR_wait_sync"))
      GL_FAIL("skip: no EGL_KHR_fence_sync, EGL_KHR_wait_sync or EGL_ANDROID_native_fence_sync");
   PFNEGLCREATESYNCKHRPROC create = (void *)eglGetProcAddress("eglCreateSyncKHR");
   PFNEGLDESTROYSYNCKHRPROC destroy = (void *)eglGetProcAddress("eglDestroySyncKHR");
   PFNEGLCLIENTWAITSYNCKHRPROC cwait = (void *)eglGetProcAddress("eglClientWaitSyncKHR");
   PFNEGLWAITSYNCKHRPROC swait = (void *)eglGetProcAddress("eglWaitSyncKHR");
   PFNEGLDUPNATIVEFENCEFDANDROIDPROC dup_fd =
      (void *)eglGetProcAddress("eglDupNativeFenceFDANDROID");

   frame_begin();
   quad_data(-1, 1, false);
   draw(blue);
   EGLSyncKHR s = create(gl_dpy, EGL_SYNC_FENCE_KHR, NULL);
   glFlush();
   if (s == EGL_NO_SYNC_KHR) {
      snprintf(gl_err, sizeof(gl_err), "eglCreateSyncKHR(EGL_SYNC_FENCE_KHR) failed: 0x%x", eglGetError());
      return false;
   }
   EGLint r;
   if (async_jobs && (r = cwait(gl_dpy, s, 0, 0)) != EGL_TIMEOUT_EXPIRED_KHR) {
      snprintf(gl_err, sizeof(gl_err), "eglClientWaitSyncKHR timeout 0 while the job is held: 0x%x", r);
      return false;
   }
   if ((r = cwait(gl_dpy, s, 0, EGL_FOREVER_KHR)) != EGL_CONDITION_SATISFIED_KHR) {
      snprintf(gl_err, sizeof(gl_err), "eglClientWaitSyncKHR forever: 0x%x", r);
      return false;
   }
   destroy(gl_dpy, s);

   /* native fence of the next draw */
   draw(red);
   s = create(gl_dpy, EGL_SYNC_NATIVE_FENCE_ANDROID, NULL);
   glFlush();
   int fd = s == EGL_NO_SYNC_KHR ? -1 : dup_fd(gl_dpy, s);
   if (fd < 0) {
      snprintf(gl_err, sizeof(gl_err), "native fence: no fd (0x%x)", eglGetError());
      return false;
   }
   struct pollfd p = { .fd = fd, .events = POLLIN };
   if (async_jobs && poll(&p, 1, 0) != 0) {
      snprintf(gl_err, sizeof(gl_err), "native fence fd ready while the job is held");
      return false;
   }
   /* a fence of the fd, waited for by the device before the next draw,
    * then by the CPU */
   EGLint attr[] = { EGL_SYNC_NATIVE_FENCE_FD_ANDROID, dup(fd), EGL_NONE };
   EGLSyncKHR imported = create(gl_dpy, EGL_SYNC_NATIVE_FENCE_ANDROID, attr);
   if (imported == EGL_NO_SYNC_KHR) {
      snprintf(gl_err, sizeof(gl_err), "native fence import failed: 0x%x", eglGetError());
      return false;
   }
   if (!swait(gl_dpy, imported, 0)) {
      snprintf(gl_err, sizeof(gl_err), "eglWaitSyncKHR failed: 0x%x", eglGetError());
      return false;
   }
   quad_data(0, 1, false);
   draw(green);
   glFlush();
   if ((r = cwait(gl_dpy, imported, 0, EGL_FOREVER_KHR)) != EGL_CONDITION_SATISFIED_KHR) {
      snprintf(gl_err, sizeof(gl_err), "eglClientWaitSyncKHR of the imported fence: 0x%x", r);
      return false;
   }
   if (poll(&p, 1, 10000) != 1 || !(p.revents & POLLIN)) {
      snprintf(gl_err, sizeof(gl_err), "native fence fd not ready after the fence signalled");
      return false;
   }
   close(fd);
   destroy(gl_dpy, imported);
   destroy(gl_dpy, s);
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   return pixel_is(W / 4, H / 2, red, "left (native fence draw)") &&
          pixel_is(3 * W / 4, H / 2, green, "right (after eglWaitSyncKHR)");
}

static const struct gl_case cases[] = {
   { "fence_timeouts", case_fence_timeouts },
   { "read_after_render", case_read_after_render },
   { "update_in_flight", case_update_in_flight },
   { "frames_in_flight", case_frames_in_flight },
   { "egl_fences", case_egl_fences },
   { "vbo_updates", case_vbo_updates },
   { "inflight_bound", case_inflight_bound },
};

/* the program (uniform "color") and a quad in vbo, attribute 0 */
static bool
setup(void)
{
   prog = gl_program(vs_src, fs_src);
   color_loc = glGetUniformLocation(prog, "color");
   glGenBuffers(1, &vbo);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   quad_data(-1, 1, true);
   glEnableVertexAttribArray(0);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (void *)0);
   if (!prog || !gl_target_fbo(W, H))
      GL_FAIL("no program or framebuffer");
   return true;
}

/* gl_sync [--async] [CASE...] | --list */
int
main(int argc, char **argv)
{
   async_jobs = argc > 1 && !strcmp(argv[1], "--async");
   if (async_jobs) {
      argv[1] = argv[0];
      argc--;
      argv++;
   }
   static const struct gl_suite suite = {
      .cases = cases, .n = sizeof(cases) / sizeof(cases[0]), .setup = setup,
   };
   return gl_run(argc, argv, &suite);
}
