/* SPDX-License-Identifier: MIT */
/*
 * gl_readback: glReadPixels and glGetTexImage of images in every layout a
 * readback meets on vagx.  A twiddled image is read through a staging copy
 * (a detile); a colour image with one level, layer and sample that the CPU
 * reads back whole again and again moves to the linear layout on the third
 * read (vagx_readback.c), and must then be drawn to, sampled, copied and
 * read like before.  Each case draws a pattern whose every pixel is known
 * (a 256x256 RGBA8 texture of u, v, u ^ v and a diagonal, sampled at the
 * pixel shifted by k texels: frame k) into a 100x70 target (tiles cut in
 * both axes, a height not a multiple of 4) and checks every pixel read,
 * exactly.  Prints "case NAME ok" or "case NAME error: ..." (tests/gl/run
 * runs it on softpipe, on vagx, on vagx with VAGX_DEBUG=twiddled, where
 * nothing moves, and the repeated case with VAGX_DEBUG=trace, whose render
 * targets must go from twiddled to linear).
 *
 *   gl_readback [CASE...] | --list
 */
#include "gl_desktop.h"
#include <stdint.h>
#include <stdlib.h>

#define W 100
#define H 70

static const char *vs_src =
   "#version 120\n"
   "attribute vec2 pos;\n"
   "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";
/* frame k of the pattern, or (k < 0) a copy of the image bound to unit 1
 * (nearest, 1:1) */
static const char *fs_src =
   "#version 120\n"
   "uniform float k;\n"
   "uniform sampler2D pattern, image;\n"
   "uniform vec2 size;\n"
   "void main() {\n"
   "   gl_FragColor = k < 0.0 ? texture2D(image, gl_FragCoord.xy / size)\n"
   "                          : texture2D(pattern, (gl_FragCoord.xy + vec2(k, 0.0)) / 256.0);\n"
   "}\n";

static GLuint prog, pattern;
static unsigned char px[W * H * 4];

static void
quad(void)
{
   static const float v[] = { -1, -1, 1, -1, -1, 1, 1, 1 };
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, v);
   glEnableVertexAttribArray(0);
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

/* frame k into the bound framebuffer (W x H) */
static void
draw_pattern(int k)
{
   glViewport(0, 0, W, H);
   glClearColor(0, 0, 0, 0);
   glClear(GL_COLOR_BUFFER_BIT);
   glUniform1f(glGetUniformLocation(prog, "k"), (float)k);
   quad();
}

/* a copy of texture tex into the bound framebuffer */
static void
draw_copy(GLuint tex)
{
   glViewport(0, 0, W, H);
   glActiveTexture(GL_TEXTURE1);
   glBindTexture(GL_TEXTURE_2D, tex);
   glActiveTexture(GL_TEXTURE0);
   glUniform1f(glGetUniformLocation(prog, "k"), -1.0f);
   quad();
}

/* rows of a w x h image at (x0, y0), bottom first, against frame k */
static bool
check(const unsigned char *img, int x0, int y0, int w, int h, int k, const char *what)
{
   for (int y = 0; y < h; y++) {
      for (int x = 0; x < w; x++) {
         unsigned char e[4];
         const unsigned char *p = img + 4 * (y * w + x);
         gl_pattern_texel((x0 + x + k) % 256, (y0 + y) % 256, e);
         if (memcmp(p, e, 4))
            GL_FAIL("%s: pixel (%d, %d) is %u,%u,%u,%u, expected %u,%u,%u,%u", what, x0 + x,
                    y0 + y, p[0], p[1], p[2], p[3], e[0], e[1], e[2], e[3]);
      }
   }
   return true;
}

/* glReadPixels of the rectangle from the read framebuffer, checked */
static bool
read_check(int x0, int y0, int w, int h, int k, const char *what)
{
   memset(px, 0xa5, sizeof(px));
   glReadPixels(x0, y0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);
   return gl_check_error(what) && check(px, x0, y0, w, h, k, what);
}

/* A W x H RGBA8 texture (one level: nearest, so that it can be sampled)
 * and a framebuffer drawing to it, bound */
static GLuint
target(GLuint *fbo)
{
   GLuint tex;
   gl_color_target(GL_RGBA8, W, H, &tex, fbo);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   glBindTexture(GL_TEXTURE_2D, pattern);
   return tex;
}

static void
drop(GLuint tex, GLuint fbo)
{
   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   glDeleteFramebuffers(1, &fbo);
   glDeleteTextures(1, &tex);
}

/* sub-rectangles: odd origins and sizes, a pixel, the last row and column */
static const int rects[][4] = {
   { 13, 7, 37, 29 }, { 0, 0, 1, 1 }, { 96, 66, 4, 4 }, { 5, 3, 90, 61 },
   { 0, 69, 100, 1 }, { 99, 0, 1, 70 }, { 62, 1, 6, 68 },
};

static bool
read_rects(int k, const char *what)
{
   char w[96];
   for (unsigned i = 0; i < sizeof(rects) / sizeof(rects[0]); i++) {
      snprintf(w, sizeof(w), "%s, rectangle %u", what, i);
      if (!read_check(rects[i][0], rects[i][1], rects[i][2], rects[i][3], k, w))
         return false;
   }
   return true;
}

/* Read back whole frame after frame (the image moves to linear on the
 * third), then drawn to, read in parts, and sampled through a view made
 * while it was twiddled */
static bool
repeated(void)
{
   GLuint fbo, fbo2;
   const GLuint tex = target(&fbo), tex2 = target(&fbo2);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   draw_pattern(0);
   /* a sampler view of tex, used while tex is twiddled */
   glBindFramebuffer(GL_FRAMEBUFFER, fbo2);
   draw_copy(tex);
   if (!read_check(0, 0, W, H, 0, "copy of frame 0"))
      return false;
   char what[64];
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   for (int k = 1; k <= 6; k++) {
      draw_pattern(k);
      snprintf(what, sizeof(what), "frame %d", k);
      if (!read_check(0, 0, W, H, k, what))
         return false;
   }
   if (!read_rects(6, "frame 6"))
      return false;
   /* the same view, sampled again */
   glBindFramebuffer(GL_FRAMEBUFFER, fbo2);
   draw_copy(tex);
   if (!read_check(0, 0, W, H, 6, "copy of frame 6"))
      return false;
   /* drawn to, a part at a time, and read */
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   draw_pattern(7);
   glEnable(GL_SCISSOR_TEST);
   glScissor(10, 10, 50, 40);
   draw_pattern(8);
   glDisable(GL_SCISSOR_TEST);
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
         const int k = x >= 10 && x < 60 && y >= 10 && y < 50 ? 8 : 7;
         snprintf(what, sizeof(what), "frame 7 with 8 in (10,10 50x40)");
         if (!check(px + 4 * (y * W + x), x, y, 1, 1, k, what))
            return false;
      }
   drop(tex, fbo);
   drop(tex2, fbo2);
   return true;
}

/* Parts only (the image stays as it is), then after whole reads */
static bool
subrects(void)
{
   GLuint fbo;
   const GLuint tex = target(&fbo);
   draw_pattern(3);
   bool ok = read_rects(3, "twiddled");
   for (int i = 0; ok && i < 4; i++)
      ok = read_check(0, 0, W, H, 3, "whole");
   ok = ok && read_rects(3, "after whole reads");
   drop(tex, fbo);
   return ok;
}

/* The image copied by glCopyTexSubImage2D and glBlitFramebuffer after it
 * moved */
static bool
copies(void)
{
   GLuint fbo, fbo2;
   const GLuint tex = target(&fbo), tex2 = target(&fbo2);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   draw_pattern(5);
   for (int i = 0; i < 4; i++)
      if (!read_check(0, 0, W, H, 5, "whole"))
         return false;
   glBindTexture(GL_TEXTURE_2D, tex2);
   glCopyTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 0, 0, W, H);
   glBindTexture(GL_TEXTURE_2D, pattern);
   glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo2);
   if (!read_check(0, 0, W, H, 5, "glCopyTexSubImage2D"))
      return false;
   glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo2);
   glClear(GL_COLOR_BUFFER_BIT);
   glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
   glBlitFramebuffer(0, 0, W, H, 0, 0, W, H, GL_COLOR_BUFFER_BIT, GL_NEAREST);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo2);
   if (!read_check(0, 0, W, H, 5, "glBlitFramebuffer"))
      return false;
   drop(tex, fbo);
   drop(tex2, fbo2);
   return true;
}

/* Images that keep their layout: a mipmapped texture's level 0 (also by
 * glGetTexImage) and a layer of an array texture, read whole again and
 * again */
static bool
kept(void)
{
   GLuint tex, fbo;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexStorage2D(GL_TEXTURE_2D, 3, GL_RGBA8, W, H);
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
   glBindTexture(GL_TEXTURE_2D, pattern);
   draw_pattern(9);
   for (int i = 0; i < 4; i++)
      if (!read_check(0, 0, W, H, 9, "mipmapped level 0"))
         return false;
   glBindTexture(GL_TEXTURE_2D, tex);
   for (int i = 0; i < 4; i++) {
      memset(px, 0xa5, sizeof(px));
      glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
      if (!check(px, 0, 0, W, H, 9, "glGetTexImage of level 0"))
         return false;
   }
   glBindTexture(GL_TEXTURE_2D, pattern);
   drop(tex, fbo);

   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D_ARRAY, tex);
   glTexStorage3D(GL_TEXTURE_2D_ARRAY, 1, GL_RGBA8, W, H, 3);
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   for (int layer = 0; layer < 3; layer++) {
      glFramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, tex, 0, layer);
      draw_pattern(10 + layer);
   }
   for (int layer = 0; layer < 3; layer++) {
      glFramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, tex, 0, layer);
      for (int i = 0; i < 4; i++)
         if (!read_check(0, 0, W, H, 10 + layer, "array layer"))
            return false;
   }
   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   glDeleteFramebuffers(1, &fbo);
   glDeleteTextures(1, &tex);
   return true;
}

static const struct gl_case cases[] = {
   { "repeated", repeated },
   { "subrects", subrects },
   { "copies", copies },
   { "kept", kept },
};

static bool
setup(void)
{
   prog = gl_program(vs_src, fs_src);
   if (!prog)
      return false;
   pattern = gl_pattern_texture();
   glUniform1i(glGetUniformLocation(prog, "pattern"), 0);
   glUniform1i(glGetUniformLocation(prog, "image"), 1);
   glUniform2f(glGetUniformLocation(prog, "size"), W, H);
   glPixelStorei(GL_PACK_ALIGNMENT, 1);
   return gl_check_error("set-up");
}

int
main(int argc, char **argv)
{
   static const struct gl_suite suite = {
      .cases = cases, .n = sizeof(cases) / sizeof(cases[0]), .setup = setup,
   };
   return gl_run(argc, argv, &suite);
}
