/* SPDX-License-Identifier: MIT */
/*
 * gl_formats OUTDIR [CASE...]: desktop GL (compatibility context, EGL
 * surfaceless platform) cases for 4X MSAA, sRGB, float / packed-float /
 * shared-exponent / snorm formats and per-render-target blending.  Every
 * case checks its own result against values computed here from the GL rules
 * (and the 4X sample pattern), prints "case NAME ok" or "case NAME error:
 * ..." (or "case NAME skip: ..." when the driver lacks the feature), and
 * writes the 64x64 RGBA8 image it read back to OUTDIR/NAME.ppm.
 *
 * gl_formats --list prints "NAME self" for cases only this program can
 * check (softpipe has no MSAA) and "NAME cmp" for cases whose image
 * tests/gl/run also compares with softpipe (gl_triangle --compare).
 *
 * Expected MSAA values: a resolved pixel is the average of its 4 samples, at
 * the standard 4X positions (6,2), (14,6), (2,10), (10,14) in 1/16 pixel
 * (docs/hw/descriptors.md, enum msaa; GL's and D3D's standard pattern), in
 * window coordinates of the framebuffer (row 0 at the bottom, as GL reads it
 * back).  Pixels with a sample within 1/64 pixel of an edge are not checked
 * (the fill rule decides those), and each MSAA case requires partially
 * covered pixels, so single-sample rendering fails it.
 */
#include "gl_desktop.h"
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 64
#define H 64

static unsigned char px[W * H * 4];

static const char *vs_pos =
   "#version 120\n"
   "attribute vec4 pos;\n"
   "varying vec2 uv;\n"
   "void main() { gl_Position = pos; uv = pos.xy * 0.5 + 0.5; }\n";
static const char *fs_uniform =
   "#version 120\n"
   "uniform vec4 color;\n"
   "void main() { gl_FragColor = color; }\n";
static const char *fs_mrt =
   "#version 120\n"
   "uniform vec4 c0, c1;\n"
   "void main() { gl_FragData[0] = c0; gl_FragData[1] = c1; }\n";
static const char *fs_tex =
   "#version 120\n"
   "uniform sampler2D tex;\n"
   "uniform vec4 scale, bias;\n"
   "varying vec2 uv;\n"
   "void main() { gl_FragColor = texture2D(tex, uv) * scale + bias; }\n";

/* window-space triangle of the MSAA cases (no vertex or edge on a sample) */
static const float tri_win[3][2] = { { 3.3f, 5.1f }, { 60.7f, 13.9f }, { 21.4f, 58.6f } };
static const float quad[] = { -1, -1, 1, -1, -1, 1, 1, 1 };
static const float s4x[4][2] = { { 6, 2 }, { 14, 6 }, { 2, 10 }, { 10, 14 } };

static void
draw_pos(GLenum mode, const float *pos, int n)
{
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   glEnableVertexAttribArray(0);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, pos);
   glDrawArrays(mode, 0, n);
}

static void
draw_tri(void)
{
   float pos[6];
   for (int i = 0; i < 3; i++) {
      pos[2 * i] = tri_win[i][0] / W * 2 - 1;
      pos[2 * i + 1] = tri_win[i][1] / H * 2 - 1;
   }
   draw_pos(GL_TRIANGLES, pos, 3);
}

static void
set_color(GLuint p, float r, float g, float b, float a)
{
   glUniform4f(glGetUniformLocation(p, "color"), r, g, b, a);
}

static double
edge(const float *a, const float *b, double x, double y)
{
   return (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
}

/* samples of pixel (x, y) inside tri_win, -1 if one is too close to call */
static int
coverage(int x, int y)
{
   int k = 0;
   for (int s = 0; s < 4; s++) {
      double sx = x + s4x[s][0] / 16.0, sy = y + s4x[s][1] / 16.0;
      bool in = true;
      for (int e = 0; e < 3; e++) {
         const float *a = tri_win[e], *b = tri_win[(e + 1) % 3];
         double d = edge(a, b, sx, sy);
         double len = hypot(b[0] - a[0], b[1] - a[1]);
         if (fabs(d) / len < 1.0 / 64)
            return -1;
         in &= d > 0; /* tri_win is counter-clockwise */
      }
      k += in;
   }
   return k;
}

/* A 4X colour renderbuffer (+ 4X depth) framebuffer, made current */
static GLuint msaa_fbo, msaa_rb[2], resolve_fbo, resolve_tex;

static bool
msaa_setup(void)
{
   GLint max = 0;
   glGetIntegerv(GL_MAX_SAMPLES, &max);
   if (max < 4)
      GL_FAIL("skip: GL_MAX_SAMPLES %d", max);
   glGenRenderbuffers(2, msaa_rb);
   glBindRenderbuffer(GL_RENDERBUFFER, msaa_rb[0]);
   glRenderbufferStorageMultisample(GL_RENDERBUFFER, 4, GL_RGBA8, W, H);
   glBindRenderbuffer(GL_RENDERBUFFER, msaa_rb[1]);
   glRenderbufferStorageMultisample(GL_RENDERBUFFER, 4, GL_DEPTH24_STENCIL8, W, H);
   glGenFramebuffers(1, &msaa_fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, msaa_fbo);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, msaa_rb[0]);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER,
                             msaa_rb[1]);
   GLint samples = 0;
   glGetIntegerv(GL_SAMPLES, &samples);
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      GL_FAIL("4X framebuffer incomplete");
   if (samples != 4)
      GL_FAIL("GL_SAMPLES %d, want 4", samples);
   glViewport(0, 0, W, H);
   return true;
}

/* resolve (glBlitFramebuffer) into a 1X texture and read it back into px */
static bool
msaa_resolve(void)
{
   gl_color_target(GL_RGBA8, W, H, &resolve_tex, &resolve_fbo); /* the draw framebuffer */
   glBindFramebuffer(GL_READ_FRAMEBUFFER, msaa_fbo);
   glBlitFramebuffer(0, 0, W, H, 0, 0, W, H, GL_COLOR_BUFFER_BIT, GL_NEAREST);
   glBindFramebuffer(GL_FRAMEBUFFER, resolve_fbo);
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   return true;
}

/* every checkable pixel = bg + k/4 (fg - bg), k the samples covered by
 * tri_win, within 2/255; at least 40 pixels partially covered */
static bool
check_coverage(const float bg[4], const float fg[4])
{
   int partial = 0;
   for (int y = 0; y < H; y++) {
      for (int x = 0; x < W; x++) {
         int k = coverage(x, y);
         if (k < 0)
            continue;
         partial += k > 0 && k < 4;
         for (int c = 0; c < 4; c++) {
            double want = (bg[c] + k / 4.0 * (fg[c] - bg[c])) * 255.0;
            int got = px[4 * (y * W + x) + c];
            if (fabs(got - want) > 2.01)
               GL_FAIL("pixel (%d,%d) channel %d = %d, want %.1f (%d of 4 samples covered)", x, y,
                    c, got, want, k);
         }
      }
   }
   if (partial < 40)
      GL_FAIL("only %d partially covered pixels", partial);
   return true;
}

/* 4X triangle, blit-resolved: edge pixels average their samples */
static bool
case_msaa_resolve(void)
{
   if (!msaa_setup())
      return false;
   glClearColor(0.0f, 0.0f, 0.2f, 1.0f);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   GLuint p = gl_program(vs_pos, fs_uniform);
   if (!p)
      GL_FAIL("program");
   set_color(p, 1.0f, 0.8f, 0.0f, 1.0f);
   draw_tri();
   msaa_resolve();
   static const float bg[4] = { 0, 0, 0.2f, 1 }, fg[4] = { 1, 0.8f, 0, 1 };
   return check_coverage(bg, fg);
}

/* blending on a 4X target blends every sample with its own destination:
 * a half-transparent full-screen quad over the 4X triangle */
static bool
case_msaa_blend(void)
{
   if (!msaa_setup())
      return false;
   glClearColor(0, 0, 0, 0);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   GLuint p = gl_program(vs_pos, fs_uniform);
   if (!p)
      GL_FAIL("program");
   set_color(p, 0, 0, 1, 1);
   draw_tri();
   glEnable(GL_BLEND);
   glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
   set_color(p, 1, 0, 0, 0.5f);
   draw_pos(GL_TRIANGLE_STRIP, quad, 4);
   glDisable(GL_BLEND);
   msaa_resolve();
   /* sample outside: 0.5 red + 0.5 * 0; inside: 0.5 red + 0.5 blue */
   static const float bg[4] = { 0.5f, 0, 0, 0.25f }, fg[4] = { 0.5f, 0, 0.5f, 0.75f };
   return check_coverage(bg, fg);
}

/* GL_SAMPLE_COVERAGE 0.5 writes 2 of 4 samples (the sample mask), the
 * inverted mask the other two: every resolved pixel is half and half */
static bool
case_msaa_coverage(void)
{
   if (!msaa_setup())
      return false;
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   GLuint p = gl_program(vs_pos, fs_uniform);
   if (!p)
      GL_FAIL("program");
   glEnable(GL_SAMPLE_COVERAGE);
   glSampleCoverage(0.5f, GL_FALSE);
   set_color(p, 1, 0, 0, 1);
   draw_pos(GL_TRIANGLE_STRIP, quad, 4);
   glSampleCoverage(0.5f, GL_TRUE);
   set_color(p, 0, 1, 0, 1);
   draw_pos(GL_TRIANGLE_STRIP, quad, 4);
   glDisable(GL_SAMPLE_COVERAGE);
   msaa_resolve();
   for (int i = 0; i < W * H; i++) {
      static const int want[4] = { 128, 128, 0, 255 };
      for (int c = 0; c < 4; c++)
         if (abs(px[4 * i + c] - want[c]) > 2)
            GL_FAIL("pixel (%d,%d) channel %d = %d, want %d", i % W, i / W, c, px[4 * i + c],
                 want[c]);
   }
   return true;
}

/* the 1X framebuffer every non-MSAA case ends in (read back into px) */
static GLuint out_fbo, out_tex;

static void
bind_out(void)
{
   if (!out_fbo)
      gl_color_target(GL_RGBA8, W, H, &out_tex, &out_fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, out_fbo);
   glViewport(0, 0, W, H);
}

/* draw texture tex * scale + bias into the output (left half: x < W/2 when
 * half is set) */
static bool
show_tex(GLuint tex, float scale, float bias, bool linear)
{
   bind_out();
   GLuint p = gl_program(vs_pos, fs_tex);
   if (!p)
      return false;
   glUniform4f(glGetUniformLocation(p, "scale"), scale, scale, scale, scale);
   glUniform4f(glGetUniformLocation(p, "bias"), bias, bias, bias, bias);
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, linear ? GL_LINEAR : GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, linear ? GL_LINEAR : GL_NEAREST);
   draw_pos(GL_TRIANGLE_STRIP, quad, 4);
   return true;
}

static double
srgb_to_linear(double c)
{
   return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double
linear_to_srgb(double c)
{
   return c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1 / 2.4) - 0.055;
}

/* GL_FRAMEBUFFER_SRGB: an sRGB render target stores encoded values and
 * blends in linear space; sampling decodes.  Left: cleared to linear 0.2
 * with encoding, then 0.25 added by blending (linear 0.45); right: cleared
 * to 0.5 with GL_FRAMEBUFFER_SRGB disabled (stored as is, read back
 * decoded).  The texture is shown as linear values in an RGBA8 target. */
static bool
case_srgb_render(void)
{
   if (!gl_has_ext("GL_EXT_framebuffer_sRGB") && !gl_has_ext("GL_ARB_framebuffer_sRGB"))
      GL_FAIL("skip: no GL_ARB_framebuffer_sRGB");
   GLuint tex, fbo;
   if (!gl_color_target(GL_SRGB8_ALPHA8, W, H, &tex, &fbo))
      GL_FAIL("sRGB framebuffer incomplete");
   glEnable(GL_SCISSOR_TEST);
   glEnable(GL_FRAMEBUFFER_SRGB);
   glScissor(0, 0, W / 2, H);
   glClearColor(0.2f, 0.2f, 0.2f, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   GLuint p = gl_program(vs_pos, fs_uniform);
   if (!p)
      GL_FAIL("program");
   glEnable(GL_BLEND);
   glBlendFunc(GL_ONE, GL_ONE);
   set_color(p, 0.25f, 0.25f, 0.25f, 0);
   draw_pos(GL_TRIANGLE_STRIP, quad, 4);
   glDisable(GL_BLEND);
   glDisable(GL_FRAMEBUFFER_SRGB);
   glScissor(W / 2, 0, W / 2, H);
   glClearColor(0.5f, 0.5f, 0.5f, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glDisable(GL_SCISSOR_TEST);
   if (!show_tex(tex, 1, 0, false))
      GL_FAIL("program");
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   /* left: 0.2 encoded (8 bits), decoded, + 0.25, encoded again, decoded */
   double l = srgb_to_linear(round(linear_to_srgb(0.2) * 255) / 255) + 0.25;
   l = srgb_to_linear(round(linear_to_srgb(l) * 255) / 255);
   double r = srgb_to_linear(round(0.5 * 255) / 255);
   for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
         double want = (x < W / 2 ? l : r) * 255;
         int got = px[4 * (y * W + x)];
         if (fabs(got - want) > 2.01)
            GL_FAIL("pixel (%d,%d) = %d, want %.1f", x, y, got, want);
      }
   return true;
}

/* an sRGB texture decodes before filtering: a 2x1 texture of bytes 0 and
 * 255, sampled linearly, gives linear gradients (softpipe compares) */
static bool
case_srgb_texture(void)
{
   static const unsigned char texels[] = { 0, 64, 255, 255, 255, 188, 0, 255,
                                           128, 128, 128, 255, 32, 220, 96, 255 };
   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, 2, 2, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
   if (!show_tex(tex, 1, 0, true))
      GL_FAIL("program");
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   /* the corner pixel (0,0) is texel 0 decoded (clamp to edge) */
   for (int c = 0; c < 3; c++) {
      double want = srgb_to_linear(texels[c] / 255.0) * 255;
      if (fabs(px[c] - want) > 2.01)
         GL_FAIL("corner channel %d = %d, want %.1f", c, px[c], want);
   }
   return true;
}

/* Float, half-float and packed-float render targets hold values outside
 * [0,1] (no clamping of float targets), blend on them, and read back as
 * floats: clear (0.5, -1, 2, 1), add (1.5, 0.25, 3, 0) by blending. */
static bool
case_float_targets(void)
{
   static const struct {
      GLenum ifmt;
      const char *name;
      int comps;
      bool unsigned_only;
   } f[] = {
      { GL_RGBA32F, "RGBA32F", 4, false }, { GL_RGBA16F, "RGBA16F", 4, false },
      { GL_RG32F, "RG32F", 2, false },     { GL_R16F, "R16F", 1, false },
      { GL_R11F_G11F_B10F, "R11F_G11F_B10F", 3, true },
   };
   GLuint p = gl_program(vs_pos, fs_uniform);
   if (!p)
      GL_FAIL("program");
   glClampColor(GL_CLAMP_READ_COLOR, GL_FALSE);
   glClampColor(GL_CLAMP_FRAGMENT_COLOR, GL_FALSE);
   GLuint shown = 0;
   for (unsigned i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
      GLuint tex, fbo;
      glGenTextures(1, &tex);
      glBindTexture(GL_TEXTURE_2D, tex);
      glTexImage2D(GL_TEXTURE_2D, 0, f[i].ifmt, W, H, 0, GL_RGBA, GL_FLOAT, NULL);
      glGenFramebuffers(1, &fbo);
      glBindFramebuffer(GL_FRAMEBUFFER, fbo);
      glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
      if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
         GL_FAIL("%s framebuffer incomplete", f[i].name);
      glViewport(0, 0, W, H);
      float neg = f[i].unsigned_only ? 0.0f : -1.0f;
      glClearColor(0.5f, neg, 2.0f, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      glEnable(GL_BLEND);
      glBlendFunc(GL_ONE, GL_ONE);
      set_color(p, 1.5f, 0.25f, 3.0f, 0.0f);
      draw_pos(GL_TRIANGLE_STRIP, quad, 4);
      glDisable(GL_BLEND);
      static float got[W * H * 4];
      glReadPixels(0, 0, W, H, GL_RGBA, GL_FLOAT, got);
      const float want[4] = { 2.0f, neg + 0.25f, 5.0f, 1.0f };
      for (int c = 0; c < f[i].comps; c++)
         for (int k = 0; k < W * H; k += 97)
            if (got[4 * k + c] != want[c])
               GL_FAIL("%s pixel %d channel %d = %g, want %g", f[i].name, k, c, got[4 * k + c],
                    want[c]);
      if (i == 0)
         shown = tex;
   }
   /* the RGBA32F result scaled into the 8-bit output (softpipe compares) */
   if (!show_tex(shown, 0.125f, 0.25f, false))
      GL_FAIL("program");
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   return true;
}

/* Texture formats without render support: RGB9E5 (shared exponent) and
 * snorm textures sample to their values. */
static bool
case_texture_formats(void)
{
   /* 1.5, 0.25, 0.125: exponent 1 (biased 16), mantissas 384, 64, 32 of 9
    * bits (value = m * 2^(e - 15 - 9)) */
   const unsigned e = 16;
   const GLuint rgb9e5 = 384u | (64u << 9) | (32u << 18) | (e << 27);
   GLuint t[2];
   glGenTextures(2, t);
   glBindTexture(GL_TEXTURE_2D, t[0]);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB9_E5, 1, 1, 0, GL_RGB, GL_UNSIGNED_INT_5_9_9_9_REV,
                &rgb9e5);
   static const signed char sn[4] = { -64, 127, -127, 32 };
   glBindTexture(GL_TEXTURE_2D, t[1]);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8_SNORM, 1, 1, 0, GL_RGBA, GL_BYTE, sn);
   bind_out();
   glEnable(GL_SCISSOR_TEST);
   glScissor(0, 0, W / 2, H);
   show_tex(t[0], 0.5f, 0.0f, false);
   glScissor(W / 2, 0, W / 2, H);
   show_tex(t[1], 0.5f, 0.5f, false);
   glDisable(GL_SCISSOR_TEST);
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   const double left[4] = { 0.75, 0.125, 0.0625, 0.5 };
   for (int c = 0; c < 4; c++) {
      double wl = left[c] * 255;
      double wr = (0.5 * (sn[c] / 127.0 < -1 ? -1 : sn[c] / 127.0) + 0.5) * 255;
      int gl_ = px[4 * (10 * W + 5) + c], gr = px[4 * (10 * W + W - 5) + c];
      if (fabs(gl_ - wl) > 1.01)
         GL_FAIL("RGB9E5 channel %d = %d, want %.1f", c, gl_, wl);
      if (fabs(gr - wr) > 1.01)
         GL_FAIL("RGBA8_SNORM channel %d = %d, want %.1f", c, gr, wr);
   }
   return true;
}

/* Per-render-target blend and colour mask (GL_EXT_draw_buffers2,
 * GL_ARB_draw_buffers_blend): RT0 adds, RT1 does not blend and masks
 * green; the output shows RT0 left and RT1 right. */
static bool
case_indep_blend(void)
{
   if (!gl_has_ext("GL_ARB_draw_buffers_blend") || !gl_has_ext("GL_EXT_draw_buffers2"))
      GL_FAIL("skip: no GL_ARB_draw_buffers_blend / GL_EXT_draw_buffers2");
   GLuint tex[2], fbo;
   glGenTextures(2, tex);
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   for (int i = 0; i < 2; i++) {
      glBindTexture(GL_TEXTURE_2D, tex[i]);
      glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, W, H, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
      glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0 + i, GL_TEXTURE_2D, tex[i], 0);
   }
   static const GLenum bufs[] = { GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1 };
   glDrawBuffers(2, bufs);
   glViewport(0, 0, W, H);
   glClearColor(0.25f, 0.5f, 0.25f, 1.0f);
   glClear(GL_COLOR_BUFFER_BIT);
   GLuint p = gl_program(vs_pos, fs_mrt);
   if (!p)
      GL_FAIL("program");
   glUniform4f(glGetUniformLocation(p, "c0"), 0.5f, 0.25f, 0.5f, 0.0f);
   glUniform4f(glGetUniformLocation(p, "c1"), 1.0f, 1.0f, 0.0f, 1.0f);
   glEnablei(GL_BLEND, 0);
   glDisablei(GL_BLEND, 1);
   glBlendFunci(0, GL_ONE, GL_ONE);
   glColorMaski(1, GL_TRUE, GL_FALSE, GL_TRUE, GL_TRUE);
   draw_pos(GL_TRIANGLE_STRIP, quad, 4);
   glColorMaski(1, GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
   glDisablei(GL_BLEND, 0);
   static const int want[2][4] = { { 191, 191, 191, 255 }, { 255, 128, 0, 255 } };
   static unsigned char rt[W * H * 4];
   for (int i = 0; i < 2; i++) {
      glReadBuffer(GL_COLOR_ATTACHMENT0 + i);
      glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, rt);
      for (int c = 0; c < 4; c++)
         if (abs(rt[4 * (W * 7 + 9) + c] - want[i][c]) > 1)
            GL_FAIL("RT%d channel %d = %d, want %d", i, c, rt[4 * (W * 7 + 9) + c], want[i][c]);
   }
   glReadBuffer(GL_COLOR_ATTACHMENT0);
   bind_out();
   glEnable(GL_SCISSOR_TEST);
   glScissor(0, 0, W / 2, H);
   show_tex(tex[0], 1, 0, false);
   glScissor(W / 2, 0, W / 2, H);
   show_tex(tex[1], 1, 0, false);
   glDisable(GL_SCISSOR_TEST);
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   return true;
}

/* cmp: the image is also compared with softpipe's by tests/gl/run */
static const struct gl_case cases[] = {
   { "msaa_resolve", case_msaa_resolve, false },
   { "msaa_blend", case_msaa_blend, false },
   { "msaa_coverage", case_msaa_coverage, false },
   { "srgb_render", case_srgb_render, true },
   { "srgb_texture", case_srgb_texture, true },
   { "float_targets", case_float_targets, true },
   { "texture_formats", case_texture_formats, true },
   { "indep_blend", case_indep_blend, true },
};

/* the cases render into framebuffers of their own */
static void
unbind_fbo(void)
{
   glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

int
main(int argc, char **argv)
{
   static const struct gl_suite suite = {
      .cases = cases, .n = sizeof(cases) / sizeof(cases[0]), .outdir = true, .kinds = true,
      .fresh_program = true, .after = unbind_fbo, .px = px, .w = W, .h = H,
   };
   return gl_run(argc, argv, &suite);
}
