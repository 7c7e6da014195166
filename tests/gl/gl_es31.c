/* SPDX-License-Identifier: MIT */
/*
 * gl_es31: an OpenGL ES 3.1 context and the features vagx added to reach it
 * (issue 19), each case checking its own exact values (tests/gl/run runs
 * it on softpipe, as a check of the test, and on vagx):
 *   version         the context is OpenGL ES 3.1 or later with GLSL ES
 *                   3.10, GL_MAX_VERTEX_ATTRIB_STRIDE >= 2048
 *   no_attachments  a framebuffer without attachments of 61x37 (default
 *                   width and height) and a 320x256 viewport: a fragment
 *                   shader counts its invocations per pixel in an SSBO;
 *                   exactly the 61x37 pixels are shaded, once each; then
 *                   the same with GL_FRAMEBUFFER_DEFAULT_SAMPLES 4 (at least
 *                   once per pixel inside, never outside) and a 300x200 one
 *   base_instance   GL_EXT_base_instance: instanced attributes of divisors 1
 *                   and 2 with base instance 3 (index i / divisor + base),
 *                   gl_InstanceID from 0, per-vertex attributes unaffected;
 *                   an indirect draw and an indexed indirect draw whose base
 *                   instance (5, 2) the device reads from the buffer
 *   stride_2048     vertex attributes 2048 bytes apart, one at offset 2032
 * Usage: gl_es31 [CASE...] | --list
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl31.h>
#include <GLES2/gl2ext.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_common.h"

/* gl_err with up to four numbers; false */
static bool
fail(const char *fmt, unsigned a, unsigned b, unsigned c, unsigned d)
{
   snprintf(gl_err, sizeof(gl_err), fmt, a, b, c, d);
   return false;
}

/* a program (its logs printed by gl_common), made current; 0 on failure */
static GLuint
program(const char *vs, const char *fs)
{
   const GLuint p = gl_program(vs, fs);
   if (p)
      glUseProgram(p);
   return p;
}

/* an RGBA8 texture of w x h cleared to 0 as the bound framebuffer, and the
 * viewport */
static void
color_target(int w, int h, GLuint *tex, GLuint *fbo)
{
   glGenTextures(1, tex);
   glBindTexture(GL_TEXTURE_2D, *tex);
   glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, w, h);
   glGenFramebuffers(1, fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, *tex, 0);
   glViewport(0, 0, w, h);
   glClearColor(0, 0, 0, 0);
   glClear(GL_COLOR_BUFFER_BIT);
}

static bool
case_version(void)
{
   const char *v = (const char *)glGetString(GL_VERSION);
   const char *sl = (const char *)glGetString(GL_SHADING_LANGUAGE_VERSION);
   int major = 0, minor = 0, smaj = 0, smin = 0;
   if (!v || sscanf(v, "OpenGL ES %d.%d", &major, &minor) != 2 || major * 10 + minor < 31) {
      snprintf(gl_err, sizeof(gl_err), "GL_VERSION \"%s\"", v ? v : "(null)");
      return false;
   }
   if (!sl || sscanf(sl, "OpenGL ES GLSL ES %d.%d", &smaj, &smin) != 2 ||
       smaj * 100 + smin < 310) {
      snprintf(gl_err, sizeof(gl_err), "GL_SHADING_LANGUAGE_VERSION \"%s\"", sl ? sl : "(null)");
      return false;
   }
   GLint stride = 0;
   glGetIntegerv(GL_MAX_VERTEX_ATTRIB_STRIDE, &stride);
   if (stride < 2048)
      return fail("GL_MAX_VERTEX_ATTRIB_STRIDE %u", stride, 0, 0, 0);
   return true;
}

/* counts fragments per pixel of a w x h framebuffer without attachments,
 * drawn with a larger viewport (VW x VH, which the SSBO covers); checks
 * each pixel inside was shaded exactly once and none outside */
static bool
no_attachments_once(GLuint prog, int w, int h, int samples)
{
   enum { VW = 320, VH = 256 };
   GLuint fbo, buf;
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferParameteri(GL_FRAMEBUFFER, GL_FRAMEBUFFER_DEFAULT_WIDTH, w);
   glFramebufferParameteri(GL_FRAMEBUFFER, GL_FRAMEBUFFER_DEFAULT_HEIGHT, h);
   glFramebufferParameteri(GL_FRAMEBUFFER, GL_FRAMEBUFFER_DEFAULT_SAMPLES, samples);
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      return fail("%ux%u (%u samples): framebuffer incomplete", w, h, samples, 0);
   uint32_t *zero = calloc(VW * VH, 4);
   glGenBuffers(1, &buf);
   glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf);
   glBufferData(GL_SHADER_STORAGE_BUFFER, VW * VH * 4, zero, GL_STATIC_DRAW);
   free(zero);
   glUseProgram(prog);
   glUniform1i(glGetUniformLocation(prog, "row"), VW);
   glViewport(0, 0, VW, VH);
   glDrawArrays(GL_TRIANGLES, 0, 3);
   glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
   const uint32_t *n = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, VW * VH * 4, GL_MAP_READ_BIT);
   bool ok = n != NULL;
   if (!ok)
      fail("map failed", 0, 0, 0, 0);
   for (int y = 0; ok && y < VH; y++)
      for (int x = 0; ok && x < VW; x++) {
         /* with samples, GL lets an implementation shade a pixel more
          * than once (llvmpipe does, at some pixels): at least once */
         const uint32_t want = x < w && y < h ? 1 : 0;
         const uint32_t got = n[y * VW + x];
         if (samples && want ? got < 1 : got != want)
            ok = fail("pixel (%u,%u) shaded %u times, not %u", x, y, got, want);
      }
   if (n)
      glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
   if (!ok) {
      char where[64];
      snprintf(where, sizeof(where), " (%dx%d, %d samples)", w, h, samples);
      strncat(gl_err, where, sizeof(gl_err) - strlen(gl_err) - 1);
   }
   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   glDeleteFramebuffers(1, &fbo);
   glDeleteBuffers(1, &buf);
   return ok;
}

static bool
case_no_attachments(void)
{
   /* one triangle covering the viewport */
   static const char *vs = "#version 310 es\n"
                           "void main() {\n"
                           "   vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);\n"
                           "   gl_Position = vec4(p, 0.0, 1.0);\n"
                           "}\n";
   static const char *fs = "#version 310 es\n"
                           "precision highp float;\n"
                           "uniform int row;\n"
                           "layout(std430, binding = 0) buffer counts { uint n[]; };\n"
                           "void main() {\n"
                           "   ivec2 p = ivec2(gl_FragCoord.xy);\n"
                           "   atomicAdd(n[p.y * row + p.x], 1u);\n"
                           "}\n";
   GLuint prog = program(vs, fs);
   if (!prog)
      return fail("program", 0, 0, 0, 0);
   /* 4 samples, ES 3.1's minimum of GL_MAX_FRAMEBUFFER_SAMPLES (vagx's
    * only multisample count); fewer where the driver has fewer (softpipe:
    * none), where the case is then the single-sample one only */
   GLint max_samples = 0;
   glGetIntegerv(GL_MAX_FRAMEBUFFER_SAMPLES, &max_samples);
   const int ms = max_samples < 4 ? max_samples : 4;
   const bool ok = no_attachments_once(prog, 61, 37, 0) &&
                   (ms < 2 || no_attachments_once(prog, 61, 37, ms)) &&
                   no_attachments_once(prog, 300, 200, 0);
   glDeleteProgram(prog);
   return ok;
}

/* the base_instance target: 3 rows of 8 cells of 4x4 pixels */
enum { CELLS = 8, CW = 4, TW = CELLS * CW, TH = 3 * CW };

static bool
check_row(const unsigned char *px, unsigned row, unsigned ncells, const unsigned *want_r,
          const unsigned *want_g, unsigned want_b)
{
   for (unsigned c = 0; c < CELLS; c++) {
      const unsigned char *p = px + 4 * ((row * CW + CW / 2) * TW + c * CW + CW / 2);
      const unsigned r = c < ncells ? want_r[c] : 0, g = c < ncells ? want_g[c] : 0;
      const unsigned b = c < ncells ? want_b : 0;
      if (p[0] != r || p[1] != g || p[2] != b) {
         snprintf(gl_err, sizeof(gl_err),
                  "row %u cell %u: %u %u %u, expected %u %u %u", row, c, p[0], p[1], p[2], r, g, b);
         return false;
      }
   }
   return true;
}

static bool
case_base_instance(void)
{
   PFNGLDRAWARRAYSINSTANCEDBASEINSTANCEEXTPROC draw_bi =
      (PFNGLDRAWARRAYSINSTANCEDBASEINSTANCEEXTPROC)eglGetProcAddress(
         "glDrawArraysInstancedBaseInstanceEXT");
   const char *ext = (const char *)glGetString(GL_EXTENSIONS);
   if (!ext || !strstr(ext, "GL_EXT_base_instance") || !draw_bi)
      return fail("no GL_EXT_base_instance", 0, 0, 0, 0);
   /* corner: per vertex; a: divisor 1 (red = 10 * index); b: divisor 2
    * (green = 20 * index); each instance a cell at x = gl_InstanceID of the
    * row given by a uniform */
   static const char *vs = "#version 310 es\n"
                           "layout(location = 0) in vec2 corner;\n"
                           "layout(location = 1) in float a;\n"
                           "layout(location = 2) in float b;\n"
                           "uniform float row;\n"
                           "out vec3 col;\n"
                           "void main() {\n"
                           "   vec2 cell = vec2(float(gl_InstanceID), row);\n"
                           "   vec2 p = (cell + corner) * vec2(2.0 / 8.0, 2.0 / 3.0) - 1.0;\n"
                           "   gl_Position = vec4(p, 0.0, 1.0);\n"
                           "   col = vec3(a, b, 1.0);\n"
                           "}\n";
   static const char *fs = "#version 310 es\n"
                           "precision highp float;\n"
                           "in vec3 col;\n"
                           "out vec4 o;\n"
                           "void main() { o = vec4(col.xy / 255.0, col.z, 1.0); }\n";
   GLuint prog = program(vs, fs);
   if (!prog)
      return fail("program", 0, 0, 0, 0);
   GLuint tex, fbo, vbo[3], ibo, ind, vao;
   color_target(TW, TH, &tex, &fbo);
   glGenVertexArrays(1, &vao);
   glBindVertexArray(vao);
   static const float corners[] = { 0, 0, 1, 0, 0, 1, 1, 1 };
   float a[16], b[16];
   for (unsigned i = 0; i < 16; i++) {
      a[i] = 10.0f * i;
      b[i] = 20.0f * i;
   }
   glGenBuffers(3, vbo);
   glBindBuffer(GL_ARRAY_BUFFER, vbo[0]);
   glBufferData(GL_ARRAY_BUFFER, sizeof(corners), corners, GL_STATIC_DRAW);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
   glEnableVertexAttribArray(0);
   glBindBuffer(GL_ARRAY_BUFFER, vbo[1]);
   glBufferData(GL_ARRAY_BUFFER, sizeof(a), a, GL_STATIC_DRAW);
   glVertexAttribPointer(1, 1, GL_FLOAT, GL_FALSE, 0, 0);
   glVertexAttribDivisor(1, 1);
   glEnableVertexAttribArray(1);
   glBindBuffer(GL_ARRAY_BUFFER, vbo[2]);
   glBufferData(GL_ARRAY_BUFFER, sizeof(b), b, GL_STATIC_DRAW);
   glVertexAttribPointer(2, 1, GL_FLOAT, GL_FALSE, 0, 0);
   glVertexAttribDivisor(2, 2);
   glEnableVertexAttribArray(2);
   const GLint row = glGetUniformLocation(prog, "row");

   /* row 0: direct, 4 instances from base instance 3 */
   glUniform1f(row, 0.0f);
   draw_bi(GL_TRIANGLE_STRIP, 0, 4, 4, 3);
   /* row 1: indirect, 5 instances from base instance 5 (from the buffer) */
   glUniform1f(row, 1.0f);
   const uint32_t cmds[] = {
      4, 5, 0, 5,      /* DrawArraysIndirectCommand */
      4, 3, 0, 0, 2,   /* DrawElementsIndirectCommand: base instance 2 */
   };
   glGenBuffers(1, &ind);
   glBindBuffer(GL_DRAW_INDIRECT_BUFFER, ind);
   glBufferData(GL_DRAW_INDIRECT_BUFFER, sizeof(cmds), cmds, GL_STATIC_DRAW);
   glDrawArraysIndirect(GL_TRIANGLE_STRIP, (const void *)0);
   /* row 2: indexed indirect, 3 instances from base instance 2 */
   static const uint16_t idx[] = { 0, 1, 2, 3 };
   glGenBuffers(1, &ibo);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
   glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof(idx), idx, GL_STATIC_DRAW);
   glUniform1f(row, 2.0f);
   glDrawElementsIndirect(GL_TRIANGLE_STRIP, GL_UNSIGNED_SHORT, (const void *)(4 * sizeof(uint32_t)));

   static unsigned char px[TW * TH * 4];
   glReadPixels(0, 0, TW, TH, GL_RGBA, GL_UNSIGNED_BYTE, px);
   bool ok = true;
   /* instance i of a draw with base instance B: a = 10 (B + i), b = 20 (B + i / 2) */
   static const unsigned r0[] = { 30, 40, 50, 60 }, g0[] = { 60, 60, 80, 80 };
   static const unsigned r1[] = { 50, 60, 70, 80, 90 }, g1[] = { 100, 100, 120, 120, 140 };
   static const unsigned r2[] = { 20, 30, 40 }, g2[] = { 40, 40, 60 };
   ok = check_row(px, 0, 4, r0, g0, 255) && check_row(px, 1, 5, r1, g1, 255) &&
        check_row(px, 2, 3, r2, g2, 255);
   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   glDeleteFramebuffers(1, &fbo);
   glDeleteTextures(1, &tex);
   glDeleteBuffers(3, vbo);
   glDeleteBuffers(1, &ibo);
   glDeleteBuffers(1, &ind);
   glDeleteVertexArrays(1, &vao);
   glDeleteProgram(prog);
   return ok;
}

static bool
case_stride_2048(void)
{
   enum { STRIDE = 2048, N = 4, SW = 16 };
   static const char *fs = "#version 310 es\n"
                           "precision highp float;\n"
                           "flat in vec4 col;\n"
                           "out vec4 o;\n"
                           "void main() { o = col; }\n";
   static const char *vs_flat = "#version 310 es\n"
                                "layout(location = 0) in vec2 pos;\n"
                                "layout(location = 1) in vec4 c;\n"
                                "flat out vec4 col;\n"
                                "void main() { gl_Position = vec4(pos, 0.0, 1.0); col = c; }\n";
   GLuint prog = program(vs_flat, fs);
   if (!prog)
      return fail("program", 0, 0, 0, 0);
   GLuint tex, fbo, vbo, vao;
   color_target(SW, SW, &tex, &fbo);
   /* vertex v: position at v * 2048, colour at v * 2048 + 2032; the rest
    * of each vertex is garbage that must not be read */
   unsigned char *data = malloc(STRIDE * N);
   memset(data, 0x7f, STRIDE * N);
   static const float pos[N][2] = { { -1, -1 }, { 1, -1 }, { -1, 1 }, { 1, 1 } };
   for (unsigned v = 0; v < N; v++) {
      const float c[4] = { 0.25f, 0.5f, 0.75f, 1.0f };
      memcpy(data + v * STRIDE, pos[v], sizeof(pos[v]));
      memcpy(data + v * STRIDE + STRIDE - 16, c, sizeof(c));
   }
   glGenVertexArrays(1, &vao);
   glBindVertexArray(vao);
   glGenBuffers(1, &vbo);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   glBufferData(GL_ARRAY_BUFFER, STRIDE * N, data, GL_STATIC_DRAW);
   free(data);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, STRIDE, 0);
   glEnableVertexAttribArray(0);
   glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, STRIDE, (const void *)(STRIDE - 16));
   glEnableVertexAttribArray(1);
   bool ok = glGetError() == GL_NO_ERROR;
   if (!ok)
      fail("glVertexAttribPointer with stride %u: GL error", STRIDE, 0, 0, 0);
   glDrawArrays(GL_TRIANGLE_STRIP, 0, N);
   static unsigned char px[SW * SW * 4];
   glReadPixels(0, 0, SW, SW, GL_RGBA, GL_UNSIGNED_BYTE, px);
   for (unsigned i = 0; ok && i < SW * SW; i++) {
      const unsigned char *p = px + 4 * i;
      /* 0.25 * 255 = 63.75, 0.5 -> 127.5, 0.75 -> 191.25: +-1 for rounding */
      if (abs(p[0] - 64) > 1 || abs(p[1] - 128) > 1 || abs(p[2] - 191) > 1 || p[3] != 255)
         ok = fail("pixel %u: %u %u %u", i, p[0], p[1], p[2]);
   }
   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   glDeleteFramebuffers(1, &fbo);
   glDeleteTextures(1, &tex);
   glDeleteBuffers(1, &vbo);
   glDeleteVertexArrays(1, &vao);
   glDeleteProgram(prog);
   return ok;
}

static const struct gl_case cases[] = {
   { "version", case_version },
   { "no_attachments", case_no_attachments },
   { "base_instance", case_base_instance },
   { "stride_2048", case_stride_2048 },
};

int
main(int argc, char **argv)
{
   const unsigned n = sizeof(cases) / sizeof(cases[0]);
   if (gl_list_cases(argc, argv, cases, n, false))
      return 0;
   EGLDisplay dpy = gl_display();
   if (dpy == EGL_NO_DISPLAY) {
      printf("setup error: no surfaceless EGL display\n");
      return 3;
   }
   static const EGLint attr[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1,
                                  EGL_NONE };
   EGLContext ctx = gl_context_api(dpy, EGL_OPENGL_ES_API, attr);
   if (ctx == EGL_NO_CONTEXT) {
      printf("setup error: no OpenGL ES 3.1 context\n");
      return 3;
   }
   printf("renderer %s | %s\n", glGetString(GL_RENDERER), glGetString(GL_VERSION));
   int failed = 0;
   for (unsigned i = 0; i < n; i++) {
      if (!gl_case_wanted(argc, argv, 1, cases[i].name))
         continue;
      gl_err[0] = 0;
      failed += !gl_case_report(cases[i].name, cases[i].fn());
   }
   eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
   eglDestroyContext(dpy, ctx);
   eglTerminate(dpy);
   return failed ? 1 : 0;
}
