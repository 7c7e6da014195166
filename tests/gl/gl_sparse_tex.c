/* SPDX-License-Identifier: MIT */
/*
 * gl_sparse_tex: GL_ARB_sparse_texture on the device.  Every case computes
 * the image it expects from the pages it committed and checks every texel:
 *
 *   checker  a 4-level RGBA8 sparse 2D texture of 4 x 4 pages at level 0
 *            (the page size as GL reports it), a checkerboard of its
 *            pages committed; its left half uploaded (glTexSubImage2D),
 *            its right half rendered by a draw; every texel read back by
 *            texelFetch in a draw and by glGetTexImage: committed pages
 *            hold what was written, uncommitted ones read zero (the
 *            writes to them vanished).  Then level 1's pages, which were
 *            never committed, read zero, and the mip tail (level 3 on):
 *            zero while uncommitted (an upload to it vanishes), the upload
 *            once committed
 *   array    a 3-layer, 3-level sparse 2D array (the sparse layout: its
 *            layers are whole pages apart, so each has its own mip tail,
 *            level 2 on), a different diagonal of level-0 pages committed
 *            in each layer, each layer rendered (a layer attachment) and
 *            read back by texelFetch; then the tail of layer 1 only
 *            committed, level 2 of every layer uploaded: layer 1 holds the
 *            upload, the others read zero, level 0 is unchanged
 *   stress   48 rounds of: a random page of level 0 committed or
 *            decommitted, the whole level rendered in the round's colour,
 *            one texel of every page sampled into the round's row of a
 *            result image; nothing waited for until the final read: each
 *            row holds the colour of its round where the page was
 *            committed, zero elsewhere
 *
 *   shapes   for one format of each texel size (1 to 16 B): the page size
 *            GL reports is the standard sparse block shape (256x256 at
 *            1 B ... 64x64 at 16 B, docs/hw/layout.md section 10); a
 *            texture of 2 x 2 such pages, the diagonal committed, half
 *            uploaded and half rendered, every texel read back by
 *            texelFetch and glGetTexImage: the committed pages hold what
 *            was written, the others zero
 *
 *   residency  GL_ARB_sparse_texture2's residency codes: a 4 x 4-page RGBA8
 *            texture with a checkerboard of pages committed, uploaded
 *            whole; at every texel, sparseTexelFetchARB, sparseTextureARB
 *            NEAREST at the texel's centre, sparseTextureARB LINEAR and
 *            sparseTextureGatherARB at its top-right corner (the 2 x 2
 *            footprint of texels (x, y) .. (x + 1, y + 1), clamped to the
 *            edge, crossing page edges), sparseTexelsResidentARB of the
 *            code into alpha: resident exactly when every texel of the
 *            footprint is on a committed page, and the values the upload
 *            (0 on uncommitted pages; LINEAR within 1 of the mean)
 *
 * Prints "case NAME ok" or "case NAME error: ..."; "case NAME skip: ..."
 * without GL_ARB_sparse_texture.  tests/gl/run runs it on vagx with the
 * drm-shim holding every job 5 ms, so binds queue up behind rendering.
 *
 *   gl_sparse_tex [CASE...] | --list
 */
#include "gl_desktop.h"
#include <stdint.h>
#include <stdlib.h>

#define PAGES_X 4
#define PAGES_Y 4
#define LEVELS 4

static GLint page_w, page_h;
static PFNGLTEXPAGECOMMITMENTARBPROC page_commitment;
static GLuint fetch_prog, fetch_array_prog, color_prog;

static const char *quad_vs =
   "#version 130\n"
   "in vec2 pos;\n"
   "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";
/* each fragment reads the texel under it, moved by off (level lod) */
static const char *fetch_fs =
   "#version 130\n"
   "uniform sampler2D t;\n"
   "uniform int lod;\n"
   "uniform ivec2 off;\n"
   "void main() { gl_FragColor = texelFetch(t, ivec2(gl_FragCoord.xy) + off, lod); }\n";
static const char *fetch_array_fs =
   "#version 130\n"
   "uniform sampler2DArray t;\n"
   "uniform int layer;\n"
   "uniform int lod;\n"
   "void main() { gl_FragColor = texelFetch(t, ivec3(ivec2(gl_FragCoord.xy), layer), lod); }\n";
/* the rendered pattern: a function of the pixel and a seed */
static const char *color_fs =
   "#version 130\n"
   "uniform int seed;\n"
   "void main() {\n"
   "  ivec2 p = ivec2(gl_FragCoord.xy);\n"
   "  gl_FragColor = vec4(float((p.x * 3 + seed) & 255), float((p.y * 5 + seed * 7) & 255),\n"
   "                      float((p.x ^ p.y) & 255), float(255 - (seed & 127))) / 255.0;\n"
   "}\n";

static void
rendered(int x, int y, int seed, uint8_t out[4])
{
   out[0] = (x * 3 + seed) & 255;
   out[1] = (y * 5 + seed * 7) & 255;
   out[2] = (x ^ y) & 255;
   out[3] = 255 - (seed & 127);
}

/* the uploaded pattern, different from every rendered one (alpha 1..63) */
static void
uploaded(int x, int y, int lvl, uint8_t out[4])
{
   out[0] = (x * 7 + lvl * 40) & 255;
   out[1] = (y * 11) & 255;
   out[2] = (x + y * 13) & 255;
   out[3] = 1 + ((x + y + lvl) % 63);
}

static void
quad(GLuint prog)
{
   static const float pos[] = { -1, -1, 1, -1, -1, 1, 1, 1 };
   glUseProgram(prog);
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, pos);
   glEnableVertexAttribArray(0);
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

static GLuint
fbo_of(GLenum target, GLuint tex, int level, int layer)
{
   GLuint fbo;
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   if (target == GL_TEXTURE_2D_ARRAY)
      glFramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, tex, level, layer);
   else
      glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, target, tex, level);
   return fbo;
}

static GLuint
sparse_texture_fmt(GLenum target, GLenum fmt, int w, int h, int layers, int levels)
{
   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(target, tex);
   glTexParameteri(target, GL_TEXTURE_SPARSE_ARB, GL_TRUE);
   glTexParameteri(target, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   glTexParameteri(target, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   if (target == GL_TEXTURE_2D_ARRAY)
      glTexStorage3D(target, levels, fmt, w, h, layers);
   else
      glTexStorage2D(target, levels, fmt, w, h);
   return tex;
}

static GLuint
sparse_texture(GLenum target, int w, int h, int layers, int levels)
{
   return sparse_texture_fmt(target, GL_RGBA8, w, h, layers, levels);
}

/* Compares w x h RGBA pixels with want; names the first difference */
static bool
compare(const char *what, const uint8_t *got, const uint8_t *want, int w, int h)
{
   for (int i = 0; i < w * h; i++) {
      if (memcmp(got + 4 * i, want + 4 * i, 4)) {
         const uint8_t *g = got + 4 * i, *e = want + 4 * i;
         snprintf(gl_err, sizeof(gl_err), "%s: texel (%d, %d): %u,%u,%u,%u, expected %u,%u,%u,%u",
                  what, i % w, i / w, g[0], g[1], g[2], g[3], e[0], e[1], e[2], e[3]);
         return false;
      }
   }
   return true;
}

/* Reads level lod of tex by texelFetch into a w x h target: of layer
 * `layer` of a 2D array, or of a 2D texture when layer < 0 */
static void
fetch_layer(GLuint tex, int layer, int lod, int w, int h, uint8_t *px)
{
   const bool array = layer >= 0;
   const GLuint p = array ? fetch_array_prog : fetch_prog;
   gl_target_fbo(w, h);
   glClearColor(1, 0, 1, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glActiveTexture(GL_TEXTURE0);
   glBindTexture(array ? GL_TEXTURE_2D_ARRAY : GL_TEXTURE_2D, tex);
   glUseProgram(p);
   glUniform1i(glGetUniformLocation(p, "t"), 0);
   glUniform1i(glGetUniformLocation(p, "lod"), lod);
   if (array)
      glUniform1i(glGetUniformLocation(p, "layer"), layer);
   else
      glUniform2i(glGetUniformLocation(p, "off"), 0, 0);
   quad(p);
   glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);
}

/* Does level lod (w x h) of tex (of its layer `layer`, or a 2D texture
 * when layer < 0), read by texelFetch into got, equal want?  `what`
 * names it, with the layer if it has a %d. */
static bool
fetch_is(const char *what, GLuint tex, int layer, int lod, int w, int h, uint8_t *got,
         const uint8_t *want)
{
   char name[96];
   snprintf(name, sizeof(name), what, layer);
   fetch_layer(tex, layer, lod, w, h, got);
   return compare(name, got, want, w, h);
}

/* Does the bound texture of target have `want` sparse levels? */
static bool
sparse_levels_are(GLenum target, int want)
{
   GLint n = 0;
   glGetTexParameteriv(target, GL_NUM_SPARSE_LEVELS_ARB, &n);
   if (glGetError() || n != want)
      GL_FAIL("NUM_SPARSE_LEVELS %d, expected %d (or a GL error)", n, want);
   return true;
}

/* Level lvl (w x h) of tex: the uploaded() texels into up, then uploaded */
static void
upload_level(GLuint tex, int lvl, int w, int h, uint8_t *up)
{
   for (int i = 0; i < w * h; i++)
      uploaded(i % w, i / w, lvl, up + 4 * i);
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexSubImage2D(GL_TEXTURE_2D, lvl, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, up);
}

/* checker's level 0: the checkerboard of committed pages, uploaded on the
 * left, rendered (seed 3) on the right, zero elsewhere */
static void
checker_level0(int W, int H, uint8_t *want)
{
   for (int y = 0; y < H; y++) {
      for (int x = 0; x < W; x++) {
         uint8_t *e = want + 4 * (y * W + x);
         if ((x / page_w + y / page_h) & 1)
            memset(e, 0, 4);
         else if (x < W / 2)
            uploaded(x, y, 0, e);
         else
            rendered(x, y, 3, e);
      }
   }
}

/* Level 0 (W x H) of the 2D texture tex: its left half uploaded
 * (uploaded(), through up, W / 2 x H RGBA8), its right half rendered
 * (rendered() with seed) through the framebuffer returned */
static GLuint
write_halves(GLuint tex, int W, int H, int seed, uint8_t *up)
{
   for (int y = 0; y < H; y++)
      for (int x = 0; x < W / 2; x++)
         uploaded(x, y, 0, up + 4 * (y * (W / 2) + x));
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, W / 2, H, GL_RGBA, GL_UNSIGNED_BYTE, up);
   GLuint fbo = fbo_of(GL_TEXTURE_2D, tex, 0, 0);
   glViewport(0, 0, W, H);
   glEnable(GL_SCISSOR_TEST);
   glScissor(W / 2, 0, W / 2, H);
   glUseProgram(color_prog);
   glUniform1i(glGetUniformLocation(color_prog, "seed"), seed);
   quad(color_prog);
   glDisable(GL_SCISSOR_TEST);
   return fbo;
}

/* The end of a case that wrote through write_halves: a GL error fails it,
 * and what it made is freed */
static bool
case_end(bool ok, const char *what, GLuint fbo, GLuint tex, uint8_t *up, uint8_t *want,
         uint8_t *got)
{
   ok = ok && gl_check_error(what);
   glDeleteFramebuffers(1, &fbo);
   glDeleteTextures(1, &tex);
   free(up);
   free(want);
   free(got);
   return ok;
}

static bool
checker_case(void)
{
   const int W = PAGES_X * page_w, H = PAGES_Y * page_h;
   GLuint tex = sparse_texture(GL_TEXTURE_2D, W, H, 1, LEVELS);
   if (!sparse_levels_are(GL_TEXTURE_2D, LEVELS - 1))
      return false;
   for (int py = 0; py < PAGES_Y; py++)
      for (int px = 0; px < PAGES_X; px++)
         if (!((px + py) & 1))
            page_commitment(GL_TEXTURE_2D, 0, px * page_w, py * page_h, 0, page_w, page_h, 1,
                            GL_TRUE);
   uint8_t *up = malloc((size_t)W * H * 4), *want = malloc((size_t)W * H * 4);
   uint8_t *got = malloc((size_t)W * H * 4);
   GLuint fbo = write_halves(tex, W, H, 3, up);
   checker_level0(W, H, want);
   bool ok = fetch_is("level 0 by texelFetch", tex, -1, 0, W, H, got, want);
   if (ok) {
      glBindTexture(GL_TEXTURE_2D, tex);
      glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, got);
      ok = compare("level 0 by glGetTexImage", got, want, W, H);
   }
   /* level 1: never committed, an upload vanishes */
   const int W1 = W / 2, H1 = H / 2;
   upload_level(tex, 1, W1, H1, up);
   memset(want, 0, (size_t)W1 * H1 * 4);
   ok = ok && fetch_is("uncommitted level 1", tex, -1, 1, W1, H1, got, want);
   /* the mip tail: level 3 and the levels after it */
   const int WT = W >> 3, HT = H >> 3;
   upload_level(tex, 3, WT, HT, up);
   memset(want, 0, (size_t)WT * HT * 4);
   ok = ok && fetch_is("uncommitted mip tail", tex, -1, 3, WT, HT, got, want);
   glBindTexture(GL_TEXTURE_2D, tex);
   page_commitment(GL_TEXTURE_2D, 3, 0, 0, 0, WT, HT, 1, GL_TRUE);
   upload_level(tex, 3, WT, HT, up);
   ok = ok && fetch_is("committed mip tail", tex, -1, 3, WT, HT, got, up);
   /* level 0 is as it was: the tail's pages are its own */
   if (ok)
      checker_level0(W, H, want);
   ok = ok && fetch_is("level 0 after the tail's commit", tex, -1, 0, W, H, got, want);
   return case_end(ok, "the case", fbo, tex, up, want, got);
}

#define ARRAY_LAYERS 3
#define ARRAY_LEVELS 3

static void
array_level0(int l, int W, int H, uint8_t *want)
{
   for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
         const int px = x / page_w, py = y / page_h;
         if (l == 2 || ((px + py) & 1) == (l & 1))
            rendered(x, y, 10 + l, want + 4 * (y * W + x));
         else
            memset(want + 4 * (y * W + x), 0, 4);
      }
}

static bool
array_case(void)
{
   const int W = 2 * page_w, H = 2 * page_h;
   GLuint tex = sparse_texture(GL_TEXTURE_2D_ARRAY, W, H, ARRAY_LAYERS, ARRAY_LEVELS);
   if (!sparse_levels_are(GL_TEXTURE_2D_ARRAY, 2))
      return false;
   /* layer l: the pages on diagonal (l & 1) committed, layer 2 all */
   for (int l = 0; l < ARRAY_LAYERS; l++)
      for (int py = 0; py < 2; py++)
         for (int px = 0; px < 2; px++)
            if (l == 2 || ((px + py) & 1) == (l & 1))
               page_commitment(GL_TEXTURE_2D_ARRAY, 0, px * page_w, py * page_h, l, page_w,
                               page_h, 1, GL_TRUE);
   GLuint fbos[ARRAY_LAYERS];
   for (int l = 0; l < ARRAY_LAYERS; l++) {
      fbos[l] = fbo_of(GL_TEXTURE_2D_ARRAY, tex, 0, l);
      glViewport(0, 0, W, H);
      glUseProgram(color_prog);
      glUniform1i(glGetUniformLocation(color_prog, "seed"), 10 + l);
      quad(color_prog);
   }
   uint8_t *want = malloc((size_t)W * H * 4), *got = malloc((size_t)W * H * 4);
   bool ok = true;
   for (int l = 0; l < ARRAY_LAYERS && ok; l++) {
      array_level0(l, W, H, want);
      ok = fetch_is("layer %d", tex, l, 0, W, H, got, want);
   }
   /* the tail (level 2 on) of layer 1 only; level 2 of every layer
    * uploaded */
   const int WT = W >> 2, HT = H >> 2;
   uint8_t *up = malloc((size_t)WT * HT * 4 * ARRAY_LAYERS);
   for (int i = 0; i < WT * HT * ARRAY_LAYERS; i++)
      uploaded(i % WT, (i / WT) % HT, 2 + i / (WT * HT), up + 4 * i);
   glBindTexture(GL_TEXTURE_2D_ARRAY, tex);
   page_commitment(GL_TEXTURE_2D_ARRAY, 2, 0, 0, 1, WT, HT, 1, GL_TRUE);
   glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 2, 0, 0, 0, WT, HT, ARRAY_LAYERS, GL_RGBA,
                   GL_UNSIGNED_BYTE, up);
   for (int l = 0; l < ARRAY_LAYERS && ok; l++) {
      if (l == 1)
         memcpy(want, up + (size_t)WT * HT * 4, (size_t)WT * HT * 4);
      else
         memset(want, 0, (size_t)WT * HT * 4);
      ok = fetch_is("tail of layer %d", tex, l, 2, WT, HT, got, want);
   }
   for (int l = 0; l < ARRAY_LAYERS && ok; l++) {
      array_level0(l, W, H, want);
      ok = fetch_is("layer %d after the tail's commit", tex, l, 0, W, H, got, want);
   }
   free(up);
   ok = ok && gl_check_error("the case");
   glDeleteFramebuffers(ARRAY_LAYERS, fbos);
   glDeleteTextures(1, &tex);
   free(want);
   free(got);
   return ok;
}

/* stress: ROUNDS rows of PAGES_X * PAGES_Y cells of CELL px */
#define ROUNDS 48
#define CELL 2
static bool
stress_case(void)
{
   const int W = PAGES_X * page_w, H = PAGES_Y * page_h, NP = PAGES_X * PAGES_Y;
   const int RW = NP * CELL, RH = ROUNDS * CELL;
   GLuint tex = sparse_texture(GL_TEXTURE_2D, W, H, 1, 1);
   GLuint fbo = fbo_of(GL_TEXTURE_2D, tex, 0, 0);
   /* the result image */
   GLuint res, rfbo;
   gl_color_target(GL_RGBA8, RW, RH, &res, &rfbo);
   glClearColor(1, 0, 1, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   uint8_t *want = malloc((size_t)RW * RH * 4), *got = malloc((size_t)RW * RH * 4);
   bool committed[PAGES_X * PAGES_Y] = { 0 };
   srand(20);
   glBindTexture(GL_TEXTURE_2D, tex);
   for (int p = 0; p < NP; p += 3) {
      committed[p] = true;
      page_commitment(GL_TEXTURE_2D, 0, (p % PAGES_X) * page_w, (p / PAGES_X) * page_h, 0,
                      page_w, page_h, 1, GL_TRUE);
   }
   glUseProgram(fetch_prog);
   glUniform1i(glGetUniformLocation(fetch_prog, "t"), 0);
   glUniform1i(glGetUniformLocation(fetch_prog, "lod"), 0);
   const GLint seed_loc = glGetUniformLocation(color_prog, "seed");
   const GLint off_loc = glGetUniformLocation(fetch_prog, "off");
   for (int r = 0; r < ROUNDS; r++) {
      const int p = rand() % NP;
      committed[p] = !committed[p];
      glBindTexture(GL_TEXTURE_2D, tex);
      page_commitment(GL_TEXTURE_2D, 0, (p % PAGES_X) * page_w, (p / PAGES_X) * page_h, 0,
                      page_w, page_h, 1, committed[p]);
      /* the whole level in this round's pattern */
      glBindFramebuffer(GL_FRAMEBUFFER, fbo);
      glViewport(0, 0, W, H);
      glUseProgram(color_prog);
      glUniform1i(seed_loc, r);
      quad(color_prog);
      /* row r: cell q shows page q's texels from (x0 + 5, y0 + 9) */
      glBindFramebuffer(GL_FRAMEBUFFER, rfbo);
      glViewport(0, 0, RW, RH);
      for (int q = 0; q < NP; q++) {
         const int tx = (q % PAGES_X) * page_w + 5, ty = (q / PAGES_X) * page_h + 9;
         glEnable(GL_SCISSOR_TEST);
         glScissor(q * CELL, r * CELL, CELL, CELL);
         glActiveTexture(GL_TEXTURE0);
         glBindTexture(GL_TEXTURE_2D, tex);
         glUseProgram(fetch_prog);
         glUniform2i(off_loc, tx - q * CELL, ty - r * CELL);
         quad(fetch_prog);
         glDisable(GL_SCISSOR_TEST);
         for (int y = 0; y < CELL; y++)
            for (int x = 0; x < CELL; x++) {
               uint8_t *e = want + 4 * ((r * CELL + y) * RW + q * CELL + x);
               if (committed[q])
                  rendered(tx + x, ty + y, r, e);
               else
                  memset(e, 0, 4);
            }
      }
   }
   glReadPixels(0, 0, RW, RH, GL_RGBA, GL_UNSIGNED_BYTE, got);
   bool ok = compare("stress result", got, want, RW, RH);
   ok = ok && gl_check_error("the case");
   glDeleteFramebuffers(1, &fbo);
   glDeleteFramebuffers(1, &rfbo);
   glDeleteTextures(1, &tex);
   glDeleteTextures(1, &res);
   free(want);
   free(got);
   return ok;
}

/* The standard sparse block shapes (ARB_sparse_texture2, Vulkan's
 * standardImageBlockShape for 2D single-sample images), one format of each
 * texel size */
static const struct shape {
   const char *name;
   GLenum fmt;
   int channels;
   int w, h;
} shapes[] = {
   { "R8", GL_R8, 1, 256, 256 },
   { "RG8", GL_RG8, 2, 256, 128 },
   { "RGBA8", GL_RGBA8, 4, 128, 128 },
   { "R32F", GL_R32F, 1, 128, 128 },
   { "RGBA16F", GL_RGBA16F, 4, 128, 64 },
   { "RG32F", GL_RG32F, 2, 128, 64 },
   { "RGBA32F", GL_RGBA32F, 4, 64, 64 },
};

/* what a texel of format sh reads back (RGBA8) after v was stored in it;
 * zeros for a NULL page */
static void
as_format(const struct shape *sh, const uint8_t v[4], bool resident, uint8_t out[4])
{
   for (int c = 0; c < 4; c++)
      out[c] = c < sh->channels && resident ? v[c] : 0;
   if (sh->channels < 4)
      out[3] = 255;
}

/* One format: its page size as GL reports it is the standard shape; a
 * texture of 2 x 2 pages with the diagonal (0,0), (1,1) committed, its left
 * half uploaded and right half rendered, read back by texelFetch and
 * glGetTexImage: the committed pages hold what was written, the others
 * zero.  A device that placed texels other than in the pages the driver
 * commits would leak them across the diagonal. */
static bool
shape_case(const struct shape *sh)
{
   GLint n = 0, x = 0, y = 0, z = 0;
   glGetInternalformativ(GL_TEXTURE_2D, sh->fmt, GL_NUM_VIRTUAL_PAGE_SIZES_ARB, 1, &n);
   glGetInternalformativ(GL_TEXTURE_2D, sh->fmt, GL_VIRTUAL_PAGE_SIZE_X_ARB, 1, &x);
   glGetInternalformativ(GL_TEXTURE_2D, sh->fmt, GL_VIRTUAL_PAGE_SIZE_Y_ARB, 1, &y);
   glGetInternalformativ(GL_TEXTURE_2D, sh->fmt, GL_VIRTUAL_PAGE_SIZE_Z_ARB, 1, &z);
   if (glGetError() || n != 1 || x != sh->w || y != sh->h || z != 1) {
      GL_FAIL("%s: %d page sizes, %dx%dx%d, expected 1, %dx%dx1 (or a GL error)", sh->name, n,
              x, y, z, sh->w, sh->h);
   }
   const int W = 2 * sh->w, H = 2 * sh->h;
   GLuint tex = sparse_texture_fmt(GL_TEXTURE_2D, sh->fmt, W, H, 1, 1);
   page_commitment(GL_TEXTURE_2D, 0, 0, 0, 0, sh->w, sh->h, 1, GL_TRUE);
   page_commitment(GL_TEXTURE_2D, 0, sh->w, sh->h, 0, sh->w, sh->h, 1, GL_TRUE);
   uint8_t *up = malloc((size_t)W * H * 4), *want = malloc((size_t)W * H * 4);
   uint8_t *got = malloc((size_t)W * H * 4);
   GLuint fbo = write_halves(tex, W, H, 5, up);
   for (int yy = 0; yy < H; yy++)
      for (int xx = 0; xx < W; xx++) {
         uint8_t v[4];
         if (xx < W / 2)
            uploaded(xx, yy, 0, v);
         else
            rendered(xx, yy, 5, v);
         as_format(sh, v, (xx / sh->w) == (yy / sh->h), want + 4 * (yy * W + xx));
      }
   char what[64];
   snprintf(what, sizeof(what), "%s by texelFetch", sh->name);
   bool ok = fetch_is(what, tex, -1, 0, W, H, got, want);
   if (ok) {
      glBindTexture(GL_TEXTURE_2D, tex);
      glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, got);
      snprintf(what, sizeof(what), "%s by glGetTexImage", sh->name);
      ok = compare(what, got, want, W, H);
   }
   snprintf(what, sizeof(what), "the %s case", sh->name);
   return case_end(ok, what, fbo, tex, up, want, got);
}

static bool
shapes_case(void)
{
   for (unsigned i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
      if (!shape_case(&shapes[i]))
         return false;
   return true;
}

/* The residency case's lookups at texel (x, y) of a W x H texture: the
 * value's r, g, b (gather: component r of the footprint's texels (x, y),
 * (x + 1, y), (x, y + 1)) and in alpha 1 when resident, 0 when not */
static const char *const resid_fs[] = {
   "  int code = sparseTexelFetchARB(t, p, 0, v);\n",
   "  int code = sparseTextureARB(t, (vec2(p) + 0.5) / size, v);\n",
   "  int code = sparseTextureARB(t, (vec2(p) + 1.0) / size, v);\n",
   "  int code = sparseTextureGatherARB(t, (vec2(p) + 1.0) / size, v);\n"
   "  v = v.wzxy;\n",
};
static const char *const resid_name[] = { "sparseTexelFetchARB", "sparseTextureARB NEAREST",
                                          "sparseTextureARB LINEAR", "sparseTextureGatherARB" };

static GLuint
resid_program(unsigned mode)
{
   char fs[1024];
   snprintf(fs, sizeof(fs),
            "#version 130\n"
            "#extension GL_ARB_sparse_texture2 : require\n"
            "#extension GL_ARB_texture_gather : enable\n"
            "uniform sampler2D t;\n"
            "uniform vec2 size;\n"
            "void main() {\n"
            "  ivec2 p = ivec2(gl_FragCoord.xy);\n"
            "  vec4 v;\n"
            "%s"
            "  gl_FragColor = vec4(v.rgb, sparseTexelsResidentARB(code) ? 1.0 : 0.0);\n"
            "}\n",
            resid_fs[mode]);
   return gl_program(quad_vs, fs);
}

static bool
resid_committed(int x, int y)
{
   return !((x / page_w + y / page_h) & 1);
}

static bool
residency_case(void)
{
   if (!gl_has_ext("GL_ARB_sparse_texture2"))
      GL_FAIL("skip: no GL_ARB_sparse_texture2");
   const int W = PAGES_X * page_w, H = PAGES_Y * page_h;
   GLuint tex = sparse_texture(GL_TEXTURE_2D, W, H, 1, 1);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
   for (int py = 0; py < PAGES_Y; py++)
      for (int px = 0; px < PAGES_X; px++)
         if (resid_committed(px * page_w, py * page_h))
            page_commitment(GL_TEXTURE_2D, 0, px * page_w, py * page_h, 0, page_w, page_h, 1,
                            GL_TRUE);
   uint8_t *up = malloc((size_t)W * H * 4), *got = malloc((size_t)W * H * 4);
   upload_level(tex, 0, W, H, up);
   bool ok = true;
   for (unsigned mode = 0; ok && mode < 4; mode++) {
      const bool quad2 = mode >= 2;
      GLuint p = resid_program(mode);
      if (!p) {
         ok = false;
         break;
      }
      /* the target first: it binds a texture of its own */
      gl_target_fbo(W, H);
      glClearColor(1, 0, 1, 0.5f);
      glClear(GL_COLOR_BUFFER_BIT);
      glActiveTexture(GL_TEXTURE0);
      glBindTexture(GL_TEXTURE_2D, tex);
      const GLint filter = mode == 2 ? GL_LINEAR : GL_NEAREST;
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
      glUseProgram(p);
      glUniform1i(glGetUniformLocation(p, "t"), 0);
      glUniform2f(glGetUniformLocation(p, "size"), (float)W, (float)H);
      quad(p);
      glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, got);
      unsigned nonres = 0;
      for (int y = 0; ok && y < H; y++)
         for (int x = 0; ok && x < W; x++) {
            /* the footprint: (x, y), and for the 2 x 2 lookups the texels
             * right of and above it, clamped to the edge */
            const int x1 = quad2 && x + 1 < W ? x + 1 : x, y1 = quad2 && y + 1 < H ? y + 1 : y;
            const int fx[4] = { x, x1, x, x1 }, fy[4] = { y, y, y1, y1 };
            bool resident = true;
            int tx[4][4];
            for (int k = 0; k < 4; k++) {
               uint8_t e[4] = { 0, 0, 0, 0 };
               if (resid_committed(fx[k], fy[k]))
                  uploaded(fx[k], fy[k], 0, e);
               else
                  resident = false;
               for (int c = 0; c < 4; c++)
                  tx[k][c] = e[c];
            }
            int want[3];
            for (int c = 0; c < 3; c++)
               want[c] = mode == 3 ? tx[c][0]
                         : mode == 2 ? (tx[0][c] + tx[1][c] + tx[2][c] + tx[3][c] + 2) / 4
                                     : tx[0][c];
            const uint8_t *g = got + 4 * (y * W + x);
            nonres += !resident;
            bool bad = g[3] != (resident ? 255 : 0);
            for (int c = 0; c < 3; c++)
               bad |= abs(g[c] - want[c]) > (mode == 2 ? 1 : 0);
            if (bad) {
               snprintf(gl_err, sizeof(gl_err),
                        "%s at texel (%d, %d): %u,%u,%u resident %u, expected %d,%d,%d resident %d",
                        resid_name[mode], x, y, g[0], g[1], g[2], g[3], want[0], want[1], want[2],
                        resident ? 255 : 0);
               ok = false;
            }
         }
      if (ok && (!nonres || nonres == (unsigned)(W * H))) {
         snprintf(gl_err, sizeof(gl_err), "%s: %u of %d texels not resident", resid_name[mode],
                  nonres, W * H);
         ok = false;
      }
      glDeleteProgram(p);
   }
   ok = ok && gl_check_error("the residency case");
   glDeleteTextures(1, &tex);
   free(up);
   free(got);
   return ok;
}

static const struct gl_case cases[] = {
   { "shapes", shapes_case },
   { "checker", checker_case },
   { "array", array_case },
   { "stress", stress_case },
   { "residency", residency_case },
};

static bool
setup(void)
{
   if (!gl_has_ext("GL_ARB_sparse_texture"))
      GL_FAIL("skip: no GL_ARB_sparse_texture");
   glGetInternalformativ(GL_TEXTURE_2D, GL_RGBA8, GL_VIRTUAL_PAGE_SIZE_X_ARB, 1, &page_w);
   glGetInternalformativ(GL_TEXTURE_2D, GL_RGBA8, GL_VIRTUAL_PAGE_SIZE_Y_ARB, 1, &page_h);
   printf("RGBA8 sparse page %dx%d\n", page_w, page_h);
   if (page_w <= 0 || page_h <= 0)
      GL_FAIL("skip: no RGBA8 page size of GL_ARB_sparse_texture");
   page_commitment = (PFNGLTEXPAGECOMMITMENTARBPROC)eglGetProcAddress("glTexPageCommitmentARB");
   fetch_prog = gl_program(quad_vs, fetch_fs);
   fetch_array_prog = gl_program(quad_vs, fetch_array_fs);
   color_prog = gl_program(quad_vs, color_fs);
   return fetch_prog && fetch_array_prog && color_prog;
}

int
main(int argc, char **argv)
{
   static const struct gl_suite suite = {
      .cases = cases, .n = sizeof(cases) / sizeof(cases[0]), .setup = setup,
   };
   return gl_run(argc, argv, &suite);
}
