/* SPDX-License-Identifier: MIT */
/*
 * gl_drawoverhead [--time SECONDS] OUTDIR [CASE...]: draws per second of
 * small draws (one 6x6-pixel quad each, 500 per frame into a 64x64 RGBA8 +
 * depth FBO) with one kind of state change before every draw, or none.
 * Cases (the state changed between two draws):
 *   none          nothing
 *   uniform       one uniform (a vec4 the vertex shader adds to the position)
 *   texture       the bound texture (two 4x4 textures, alternately)
 *   blend_depth   the blend CSO (blending on/off) and the depth/stencil CSO
 *                 (depth function ALWAYS/LESS), each every other draw
 *   program       the program (two programs, alternately)
 *   snorm16_pos   nothing, but the positions are SNORM16 (a vertex format
 *                 vagx fetches in the shader; u_vbuf converted it on the
 *                 CPU at every draw before, issue 19)
 * Prints "case NAME draws_per_s N draws_per_cpu_s C draws_per_thread_cpu_s T
 * frames F" per case, after drawing frames for at least SECONDS (default 1)
 * and glFinish: draws per second of wall time, per second of the process's
 * CPU time (all its threads: on a loaded machine the steadier figure) and
 * per second of the GL thread's CPU time (the application, Mesa and the
 * driver's encoding and submits, without the threads that render: the
 * per-draw CPU cost an application waits for).  Then draws one more frame
 * of the case and writes it to OUTDIR/NAME.ppm: the draws land in an 8x8
 * grid of cells, each cell showing the state of the last draw into it, so a
 * state change a driver loses shows in the image (tests/bench/drawoverhead
 * compares it with llvmpipe's).
 *
 * Desktop GL compatibility context on the EGL surfaceless platform
 * (gl_desktop.h): the same binary runs on vagx (drm-shim) and on Debian's
 * llvmpipe.  Piglit's drawoverhead needs a 3.2 core context (issue 17).
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include "gl_desktop.h"

#define W 64
#define H 64
#define DRAWS 500
#define CELLS 64

static GLuint progs[2], tex[2], pos_vbo, snorm_vbo;
static GLint off_loc[2];

static const char *vs_src =
   "attribute vec2 pos;\n"
   "uniform vec4 off;\n"
   "varying vec2 uv;\n"
   "void main() {\n"
   "   gl_Position = vec4(pos + off.xy, 0.0, 1.0);\n"
   "   uv = fract((pos + 1.0) * 4.0);\n"
   "}\n";
/* colours of 16/255 steps: additive blending is exact on every driver */
static const char *fs_src[2] = {
   "varying vec2 uv;\n"
   "uniform sampler2D tex;\n"
   "void main() { gl_FragColor = vec4(16.0, 32.0, 48.0, 255.0) / 255.0 * texture2D(tex, uv); }\n",
   "varying vec2 uv;\n"
   "uniform sampler2D tex;\n"
   "void main() { gl_FragColor = vec4(48.0, 16.0, 32.0, 255.0) / 255.0 * texture2D(tex, uv).bgra; }\n",
};

/* the state change before draw i of a frame */
static void step_none(int i) { (void)i; }

static void
step_uniform(int i)
{
   /* a one-pixel shift every other round of the grid */
   glUniform4f(off_loc[0], ((i / CELLS) & 1) * (2.0f / W), 0, 0, 0);
}

static void step_texture(int i) { glBindTexture(GL_TEXTURE_2D, tex[i & 1]); }

static void
step_blend_depth(int i)
{
   if (i & 1)
      glEnable(GL_BLEND);
   else
      glDisable(GL_BLEND);
   glDepthFunc(i & 2 ? GL_LESS : GL_ALWAYS);
}

static void step_program(int i) { glUseProgram(progs[i & 1]); }

static void
step_snorm16_pos(int i)
{
   if (i)
      return;
   glBindBuffer(GL_ARRAY_BUFFER, snorm_vbo);
   glVertexAttribPointer(0, 2, GL_SHORT, GL_TRUE, 0, (void *)0);
}

static const struct {
   const char *name;
   void (*step)(int i);
} cases[] = {
   { "none", step_none },
   { "uniform", step_uniform },
   { "texture", step_texture },
   { "blend_depth", step_blend_depth },
   { "program", step_program },
   { "snorm16_pos", step_snorm16_pos },
};

/* the state every case starts a frame with */
static void
reset_state(void)
{
   glUseProgram(progs[0]);
   glUniform4f(off_loc[0], 0, 0, 0, 0);
   glBindTexture(GL_TEXTURE_2D, tex[0]);
   glDisable(GL_BLEND);
   glBlendFunc(GL_ONE, GL_ONE);
   glEnable(GL_DEPTH_TEST);
   glDepthFunc(GL_ALWAYS);
   glBindBuffer(GL_ARRAY_BUFFER, pos_vbo);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (void *)0);
}

static void
frame(void (*step)(int))
{
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   for (int i = 0; i < DRAWS; i++) {
      step(i);
      glDrawArrays(GL_TRIANGLE_STRIP, 4 * (i % CELLS), 4);
   }
}

static double
now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU seconds of the process (RUSAGE_SELF: every thread, the
 * application's, the driver's and, on vagx's drm-shim, the renderer core's
 * workers) or of the calling thread alone (RUSAGE_THREAD: the application,
 * Mesa's state tracker and the driver up to its submits) */
static double
cpu_now(int who)
{
   struct rusage ru;
   getrusage(who, &ru);
   return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
          (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static bool
setup(void)
{
   if (!gl_target_fbo(W, H))
      return false;
   gl_depth_buffer(GL_DEPTH_COMPONENT24, GL_DEPTH_ATTACHMENT, W, H);
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      return false;
   for (int p = 0; p < 2; p++) {
      progs[p] = gl_program(vs_src, fs_src[p]);
      if (!progs[p])
         return false;
      off_loc[p] = glGetUniformLocation(progs[p], "off");
      glUniform1i(glGetUniformLocation(progs[p], "tex"), 0);
   }
   /* 4x4 texels: a checkerboard of white and one colour per texture */
   glGenTextures(2, tex);
   for (int t = 0; t < 2; t++) {
      unsigned char texels[4 * 4 * 4];
      for (int k = 0; k < 16; k++) {
         bool white = ((k & 3) ^ (k >> 2)) & 1;
         texels[4 * k + 0] = white || t ? 255 : 64;
         texels[4 * k + 1] = white || !t ? 255 : 128;
         texels[4 * k + 2] = white ? 255 : 128;
         texels[4 * k + 3] = 255;
      }
      glBindTexture(GL_TEXTURE_2D, tex[t]);
      glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 4, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   }
   /* one 6x6-pixel quad (triangle strip) per cell of an 8x8 grid of 8x8 pixels */
   float quads[CELLS][4][2];
   for (int c = 0; c < CELLS; c++) {
      float x0 = -1 + (c % 8) * 0.25f + 1.0f / W, y0 = -1 + (c / 8) * 0.25f + 1.0f / H;
      float x1 = x0 + 6 * 2.0f / W, y1 = y0 + 6 * 2.0f / H;
      const float v[4][2] = { { x0, y0 }, { x1, y0 }, { x0, y1 }, { x1, y1 } };
      memcpy(quads[c], v, sizeof(v));
   }
   /* the same corners as SNORM16: off by 1/65534 at most, far from any
    * pixel centre (the corners are on pixel edges) */
   short snorm[CELLS][4][2];
   for (int c = 0; c < CELLS; c++)
      for (int v = 0; v < 4; v++)
         for (int k = 0; k < 2; k++)
            snorm[c][v][k] = (short)(quads[c][v][k] * 32767.0f + (quads[c][v][k] < 0 ? -0.5f : 0.5f));
   glGenBuffers(1, &snorm_vbo);
   glBindBuffer(GL_ARRAY_BUFFER, snorm_vbo);
   glBufferData(GL_ARRAY_BUFFER, sizeof(snorm), snorm, GL_STATIC_DRAW);
   pos_vbo = gl_pos_buffer(quads, sizeof(quads));
   glClearColor(0, 0, 0, 1);
   glClearDepth(1.0);
   return glGetError() == GL_NO_ERROR;
}

int
main(int argc, char **argv)
{
   double seconds = 1.0;
   int a = 1;
   if (argc > 2 && !strcmp(argv[1], "--time")) {
      seconds = atof(argv[2]);
      a = 3;
   }
   if (argc <= a) {
      fprintf(stderr, "usage: gl_drawoverhead [--time SECONDS] OUTDIR [CASE...]\n");
      return 2;
   }
   const char *outdir = argv[a++];
   EGLDisplay dpy = gl_display();
   if (dpy == EGL_NO_DISPLAY || gl_context(dpy) == EGL_NO_CONTEXT)
      return 1;
   printf("renderer %s\n", (const char *)glGetString(GL_RENDERER));
   if (!setup()) {
      fprintf(stderr, "gl_drawoverhead: set-up failed (GL error 0x%x)\n", glGetError());
      return 1;
   }
   int status = 0;
   for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
      if (!gl_case_wanted(argc, argv, a, cases[c].name))
         continue;
      reset_state();
      frame(cases[c].step); /* warm-up: shader variants, first uploads */
      glFinish();
      unsigned frames = 0;
      const double t0 = now(), c0 = cpu_now(RUSAGE_SELF), th0 = cpu_now(RUSAGE_THREAD);
      double t;
      do {
         reset_state();
         frame(cases[c].step);
         frames++;
         t = now() - t0;
      } while (t < seconds);
      glFinish();
      t = now() - t0;
      const double cpu = cpu_now(RUSAGE_SELF) - c0, th = cpu_now(RUSAGE_THREAD) - th0;
      const double n = frames * (double)DRAWS;
      printf("case %s draws_per_s %.0f draws_per_cpu_s %.0f draws_per_thread_cpu_s %.0f "
             "frames %u\n", cases[c].name, n / t, n / cpu, n / th, frames);
      reset_state();
      frame(cases[c].step);
      unsigned char px[W * H * 4];
      glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
      char path[1024];
      snprintf(path, sizeof(path), "%s/%s.ppm", outdir, cases[c].name);
      if (glGetError() != GL_NO_ERROR || !gl_write_ppm(path, px, W, H)) {
         fprintf(stderr, "gl_drawoverhead: %s: readback or %s failed\n", cases[c].name, path);
         status = 1;
      }
      fflush(stdout);
   }
   return status;
}
