/* SPDX-License-Identifier: MIT */
/*
 * gl_threads: two threads, each with its own GL context on one EGL display,
 * draw at the same time; every frame is 1500 draws of one 8x8 cell each
 * with its own colour into a 64x64 FBO, a command stream several times
 * longer than one chunk of the vagx driver's (chained with cmd_jump).  Each
 * thread reads every frame back and checks each cell's centre against the
 * colour of the last draw to it (exact: colours are multiples of 1/255).
 * Prints "case threads ok" or "case threads error: ..." (tests/gl/run).
 *
 * A context's command-stream memory must be its own: the driver once
 * packed the commands of a full stream into one static array shared by all
 * contexts.
 */
#include "gl_desktop.h"
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define W 64
#define H 64
#define CELLS 8
#define DRAWS 1500
#define FRAMES 4
#define THREADS 2

static EGLDisplay dpy;

static const char *vs_src =
   "#version 120\n"
   "attribute vec2 pos;\n"
   "uniform vec2 origin;\n"
   "void main() { gl_Position = vec4(origin + pos * (2.0 / 8.0), 0.0, 1.0); }\n";
static const char *fs_src =
   "#version 120\n"
   "uniform vec4 color;\n"
   "void main() { gl_FragColor = color; }\n";

struct job {
   int id;
   char err[256];
};

static int
cell_of(int id, int frame, int i)
{
   return (i * 37 + frame * 5 + id * 3) % (CELLS * CELLS);
}

static void
color_of(int id, int frame, int i, uint8_t *c)
{
   c[0] = (uint8_t)(i * 7 + id * 100);
   c[1] = (uint8_t)(i / 3 + frame * 50);
   c[2] = (uint8_t)(255 - i % 200 - id * 40);
   c[3] = 255;
}

static bool
frame(struct job *j, GLuint prog, int f, unsigned char *px)
{
   GLint origin = glGetUniformLocation(prog, "origin");
   GLint color = glGetUniformLocation(prog, "color");
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   int last[CELLS * CELLS];
   for (int c = 0; c < CELLS * CELLS; c++)
      last[c] = -1;
   for (int i = 0; i < DRAWS; i++) {
      const int cell = cell_of(j->id, f, i);
      uint8_t c[4];
      color_of(j->id, f, i, c);
      glUniform2f(origin, -1 + 2.0f / CELLS * (cell % CELLS), -1 + 2.0f / CELLS * (cell / CELLS));
      glUniform4f(color, c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f, 1);
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
      last[cell] = i;
   }
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   for (int cell = 0; cell < CELLS * CELLS; cell++) {
      uint8_t want[4] = { 0, 0, 0, 255 };
      if (last[cell] >= 0)
         color_of(j->id, f, last[cell], want);
      const int x = cell % CELLS * 8 + 4, y = cell / CELLS * 8 + 4;
      const unsigned char *p = px + 4 * (y * W + x);
      if (memcmp(p, want, 4)) {
         snprintf(j->err, sizeof(j->err),
                  "thread %d frame %d cell %d: %u,%u,%u,%u, want %u,%u,%u,%u", j->id, f, cell,
                  p[0], p[1], p[2], p[3], want[0], want[1], want[2], want[3]);
         return false;
      }
   }
   return true;
}

static void *
run(void *arg)
{
   struct job *j = arg;
   EGLContext ctx = gl_context(dpy);
   if (ctx == EGL_NO_CONTEXT) {
      snprintf(j->err, sizeof(j->err), "thread %d: no context", j->id);
      return NULL;
   }
   GLuint prog = gl_program(vs_src, fs_src);
   static const float quad[] = { 0, 0, 1, 0, 0, 1, 1, 1 };
   gl_pos_buffer(quad, sizeof(quad));
   if (!gl_target_fbo(W, H) || !prog) {
      snprintf(j->err, sizeof(j->err), "thread %d: no program or framebuffer", j->id);
   } else {
      static unsigned char px[THREADS][W * H * 4];
      for (int f = 0; f < FRAMES && frame(j, prog, f, px[j->id]); f++)
         ;
      GLenum e = glGetError();
      if (!j->err[0] && e != GL_NO_ERROR)
         snprintf(j->err, sizeof(j->err), "thread %d: GL error 0x%x", j->id, e);
   }
   eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
   eglDestroyContext(dpy, ctx);
   return NULL;
}

int
main(void)
{
   dpy = gl_display();
   if (dpy == EGL_NO_DISPLAY)
      return 3;
   /* which driver: a context of its own on the main thread */
   EGLContext probe = gl_context(dpy);
   if (probe == EGL_NO_CONTEXT)
      return 3;
   printf("renderer %s | %s\n", glGetString(GL_RENDERER), glGetString(GL_VERSION));
   eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
   eglDestroyContext(dpy, probe);

   struct job jobs[THREADS];
   pthread_t t[THREADS];
   for (int i = 0; i < THREADS; i++) {
      jobs[i].id = i;
      jobs[i].err[0] = 0;
      pthread_create(&t[i], NULL, run, &jobs[i]);
   }
   bool ok = true;
   for (int i = 0; i < THREADS; i++) {
      pthread_join(t[i], NULL);
      if (jobs[i].err[0]) {
         printf("case threads error: %s\n", jobs[i].err);
         ok = false;
      }
   }
   if (ok)
      printf("case threads ok\n");
   eglTerminate(dpy);
   return ok ? 0 : 1;
}
