/* SPDX-License-Identifier: MIT */
/*
 * gl_tex31: GL 3.1 / GLSL 1.40 texture features and the texture extensions
 * of issue 19 (gather, cube-map arrays, depth clamp) on a compatibility context
 * (and a 3.1 core context), each case checking its own pixels and writing
 * its 64x64 image; tests/gl/run also compares the "cmp" cases' images
 * with softpipe's ("gl_tex31 --list" prints NAME cmp|self):
 *   texbuf      RGBA8 buffer texture, texelFetch in and out of range: 0 out
 *               of range, as the device defines it and GL's robust buffer
 *               access requires (GL 3.1 leaves it undefined; softpipe reads
 *               on past the range): self-checked only
 *   texbuf_int  R32I buffer texture through glTexBufferRange, textureSize
 *   core31      an EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT context of version
 *               3.1 (at least), without GL_ARB_compatibility, drawing with a
 *               #version 140 program (uniform block, buffer texture)
 *   gather      textureGather (REPEAT), textureGatherOffset, an integer
 *               texture
 *   cube_array  a samplerCubeArray, the cube index clamped
 *   cube_seamless      GL_TEXTURE_CUBE_MAP_SEAMLESS on and off: LINEAR
 *               footprints past a face's edge read the neighbouring faces
 *   cube_seamless_tex  the same per texture (AMD_seamless_cubemap_per_texture)
 *   depth_clamp GL_DEPTH_CLAMP with a depth range: clamped, not clipped
 * Usage: gl_tex31 OUTDIR [CASE...] | --list
 */
#include "gl_desktop.h"

#include <stdlib.h>

#define W 64
#define H 64

static unsigned char px[W * H * 4];

static const char *vs_src = "#version 140\n"
                            "in vec2 pos;\n"
                            "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";

static bool
fail(const char *what)
{
   snprintf(gl_err, sizeof(gl_err), "%s", what);
   return false;
}

/* a full-screen quad from attribute 0 of the bound vertex array */
static void
draw_quad(void)
{
   static const float q[] = { -1, -1, 1, -1, -1, 1, 1, 1 };
   GLuint vbo = gl_pos_buffer(q, sizeof(q));
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
   glDisableVertexAttribArray(0);
   glDeleteBuffers(1, &vbo);
}

static const unsigned char *
pixel(int x, int y)
{
   return px + 4 * (y * W + x);
}

/* A buffer texture of `size` bytes of data in `fmt` bound to unit 0 (bytes
 * [offset, offset + range) of the buffer when range is not 0), sampler
 * "tb" of program p on it; the buffer and texture in *buf, *tex */
static void
buffer_texture(GLuint p, GLenum fmt, const void *data, GLsizeiptr size, GLintptr offset,
               GLsizeiptr range, GLuint *buf, GLuint *tex)
{
   glGenBuffers(1, buf);
   glBindBuffer(GL_TEXTURE_BUFFER, *buf);
   glBufferData(GL_TEXTURE_BUFFER, size, data, GL_STATIC_DRAW);
   glGenTextures(1, tex);
   glBindTexture(GL_TEXTURE_BUFFER, *tex);
   if (range)
      glTexBufferRange(GL_TEXTURE_BUFFER, fmt, *buf, offset, range);
   else
      glTexBuffer(GL_TEXTURE_BUFFER, fmt, *buf);
   glUniform1i(glGetUniformLocation(p, "tb"), 0);
}

/* How many of pixel (x, y)'s components are more than 1 off e */
static unsigned
components_off(int x, int y, const unsigned char *e)
{
   unsigned bad = 0;
   for (int k = 0; k < 4; k++)
      bad += abs(pixel(x, y)[k] - e[k]) > 1;
   return bad;
}

/* Deletes p and what buffer_texture made; false (gl_err) if `bad`
 * components of the image were wrong */
static bool
buffer_texture_end(GLuint p, GLuint buf, GLuint tex, unsigned bad)
{
   glBindTexture(GL_TEXTURE_BUFFER, 0);
   glDeleteTextures(1, &tex);
   glDeleteBuffers(1, &buf);
   glDeleteProgram(p);
   if (bad)
      GL_FAIL("%u components wrong; pixel (0,0) %u %u %u %u", bad, pixel(0, 0)[0],
              pixel(0, 0)[1], pixel(0, 0)[2], pixel(0, 0)[3]);
   return true;
}

/* clear to 0, the full-screen quad, the pixels into px */
static void
draw_read(void)
{
   glClearColor(0, 0, 0, 0);
   glClear(GL_COLOR_BUFFER_BIT);
   draw_quad();
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
}

/* texel i of the RGBA8 buffer of case texbuf */
static void
texbuf_texel(int i, unsigned char *c)
{
   c[0] = (unsigned char)(i * 37 + 11);
   c[1] = (unsigned char)(i * 91 + 3);
   c[2] = (unsigned char)(i * 13);
   c[3] = 255;
}

/* 4x4-pixel blocks, block (bx, by) fetches texel bx + 16 by - 8 of 40: the
 * first half row and everything past texel 39 is out of range and reads 0
 * (marked (51, 102, 153)) */
static bool
case_texbuf(void)
{
   static const char *fs = "#version 140\n"
                           "uniform samplerBuffer tb;\n"
                           "out vec4 color;\n"
                           "void main() {\n"
                           "   ivec2 b = ivec2(gl_FragCoord.xy) / 4;\n"
                           "   vec4 c = texelFetch(tb, b.x + 16 * b.y - 8);\n"
                           "   color = c == vec4(0.0) ? vec4(0.2, 0.4, 0.6, 1.0) : c;\n"
                           "}\n";
   GLuint p = gl_program(vs_src, fs);
   if (!p)
      return false;
   unsigned char data[40 * 4];
   for (int i = 0; i < 40; i++)
      texbuf_texel(i, data + 4 * i);
   GLuint buf, tex;
   buffer_texture(p, GL_RGBA8, data, sizeof(data), 0, 0, &buf, &tex);
   draw_read();
   unsigned bad = 0;
   for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
         const int i = x / 4 + 16 * (y / 4) - 8;
         unsigned char e[4] = { 51, 102, 153, 255 };
         if (i >= 0 && i < 40)
            texbuf_texel(i, e);
         bad += components_off(x, y, e);
      }
   return buffer_texture_end(p, buf, tex, bad);
}

/* R32I texels 16 .. 115 of a 116-int buffer (glTexBufferRange, offset 64
 * bytes): texel i holds 3 (i + 16) - 50; textureSize must be 100; pixel
 * block b shows texel b mod 100's low byte, the size check and the sign
 * (every fetch in range: softpipe reads past a range, which GL 3.1 leaves
 * undefined, so only case texbuf checks out-of-range fetches) */
static bool
case_texbuf_int(void)
{
   GLint align = 0;
   glGetIntegerv(GL_TEXTURE_BUFFER_OFFSET_ALIGNMENT, &align);
   if (align <= 0 || 64 % align)
      return fail("GL_TEXTURE_BUFFER_OFFSET_ALIGNMENT does not divide 64");
   static const char *fs = "#version 140\n"
                           "uniform isamplerBuffer tb;\n"
                           "out vec4 color;\n"
                           "void main() {\n"
                           "   ivec2 b = ivec2(gl_FragCoord.xy) / 4;\n"
                           "   int v = texelFetch(tb, (b.x + 16 * b.y) % 100).r;\n"
                           "   color = vec4(float(v & 255) / 255.0,\n"
                           "                textureSize(tb) == 100 ? 1.0 : 0.0,\n"
                           "                v < 0 ? 1.0 : 0.0, 1.0);\n"
                           "}\n";
   GLuint p = gl_program(vs_src, fs);
   if (!p)
      return false;
   int data[116];
   for (int i = 0; i < 116; i++)
      data[i] = 3 * i - 50;
   GLuint buf, tex;
   buffer_texture(p, GL_R32I, data, sizeof(data), 64, 100 * 4, &buf, &tex);
   draw_read();
   unsigned bad = 0;
   for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
         const int i = (x / 4 + 16 * (y / 4)) % 100;
         const int v = 3 * (i + 16) - 50;
         const unsigned char e[4] = { (unsigned char)(v & 255), 255, v < 0 ? 255 : 0, 255 };
         bad += components_off(x, y, e);
      }
   return buffer_texture_end(p, buf, tex, bad);
}

/* A GL 3.1 core profile context: version at least 3.1, no
 * GL_ARB_compatibility, and a #version 140 program with a uniform block
 * and a buffer texture drawing into its own framebuffer object (the
 * pixels are read back into px before the compatibility context returns) */
static bool
case_core31(void)
{
   EGLContext compat = eglGetCurrentContext();
   const EGLint attr[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1,
                           EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                           EGL_NONE };
   EGLContext core = eglCreateContext(gl_dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attr);
   if (core == EGL_NO_CONTEXT || !eglMakeCurrent(gl_dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, core)) {
      snprintf(gl_err, sizeof(gl_err), "no 3.1 core context (0x%x)", eglGetError());
      return false;
   }
   bool ok = true;
   GLint major = 0, minor = 0, n = 0;
   glGetIntegerv(GL_MAJOR_VERSION, &major);
   glGetIntegerv(GL_MINOR_VERSION, &minor);
   glGetIntegerv(GL_NUM_EXTENSIONS, &n);
   for (GLint i = 0; i < n; i++)
      if (!strcmp((const char *)glGetStringi(GL_EXTENSIONS, i), "GL_ARB_compatibility"))
         ok = fail("core context has GL_ARB_compatibility");
   if (major * 10 + minor < 31) {
      snprintf(gl_err, sizeof(gl_err), "core context of version %d.%d", major, minor);
      ok = false;
   }
   static const char *fs = "#version 140\n"
                           "uniform Block { vec4 scale; int base; };\n"
                           "uniform samplerBuffer tb;\n"
                           "out vec4 color;\n"
                           "void main() {\n"
                           "   int i = int(gl_FragCoord.x) / 16 + base;\n"
                           "   color = texelFetch(tb, i) * scale;\n"
                           "}\n";
   GLuint p = ok ? gl_program(vs_src, fs) : 0;
   if (ok && !p)
      ok = fail("#version 140 program");
   if (ok) {
      GLuint vao, fbo, rb, ubo, buf, tex;
      glGenVertexArrays(1, &vao);
      glBindVertexArray(vao);
      glGenRenderbuffers(1, &rb);
      glBindRenderbuffer(GL_RENDERBUFFER, rb);
      glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, W, H);
      glGenFramebuffers(1, &fbo);
      glBindFramebuffer(GL_FRAMEBUFFER, fbo);
      glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
      glViewport(0, 0, W, H);
      const struct { float scale[4]; int base; int pad[3]; } block = { { 1, 0.5f, 1, 1 }, 2, { 0 } };
      glGenBuffers(1, &ubo);
      glBindBuffer(GL_UNIFORM_BUFFER, ubo);
      glBufferData(GL_UNIFORM_BUFFER, sizeof(block), &block, GL_STATIC_DRAW);
      glUniformBlockBinding(p, glGetUniformBlockIndex(p, "Block"), 3);
      glBindBufferBase(GL_UNIFORM_BUFFER, 3, ubo);
      float texels[8][4];
      for (int i = 0; i < 8; i++) {
         texels[i][0] = i / 8.0f;
         texels[i][1] = 1.0f - i / 8.0f;
         texels[i][2] = 0.25f;
         texels[i][3] = 1.0f;
      }
      buffer_texture(p, GL_RGBA32F, texels, sizeof(texels), 0, 0, &buf, &tex);
      draw_read();
      if (glGetError() != GL_NO_ERROR)
         ok = fail("GL error in the core context");
      /* column block c reads texel c + 2: 2..5 */
      for (int x = 0; x < W && ok; x++) {
         const int i = x / 16 + 2;
         const unsigned char e[4] = { (unsigned char)(i * 255 / 8.0f + 0.5f),
                                      (unsigned char)((1 - i / 8.0f) * 0.5f * 255 + 0.5f), 64,
                                      255 };
         for (int k = 0; k < 4; k++)
            if (abs(pixel(x, 7)[k] - e[k]) > 1) {
               snprintf(gl_err, sizeof(gl_err), "pixel (%d,7)[%d] %u, expected %u", x, k,
                        pixel(x, 7)[k], e[k]);
               ok = false;
            }
      }
      glDeleteTextures(1, &tex);
      glDeleteBuffers(1, &buf);
      glDeleteBuffers(1, &ubo);
      glDeleteFramebuffers(1, &fbo);
      glDeleteRenderbuffers(1, &rb);
      glDeleteVertexArrays(1, &vao);
      glDeleteProgram(p);
   }
   eglMakeCurrent(gl_dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, compat);
   eglDestroyContext(gl_dpy, core);
   return ok;
}


/* the image must not be one colour (a case drawing nothing would match a
 * reference drawing nothing) */
static bool
varied(void)
{
   for (int i = 1; i < W * H; i++)
      if (memcmp(px, px + 4 * i, 4))
         return true;
   return fail("uniform image");
}

/* GL_ARB_texture_gather: the red components of an 8x8 RGBA8 texture's
 * footprints with REPEAT (columns at the edges wrap), textureGatherOffset,
 * and an R32I texture's integers, in three bands (component select and
 * shadow gathers are GLSL 4.00 / GL_ARB_gpu_shader5: test_render's
 * tex_gather covers them) */
static bool
case_gather(void)
{
   static const char *fs = "#version 140\n"
                           "#extension GL_ARB_texture_gather : require\n"
                           "uniform sampler2D t;\n"
                           "uniform isampler2D it;\n"
                           "out vec4 color;\n"
                           "void main() {\n"
                           "   vec2 uv = gl_FragCoord.xy / 64.0;\n"
                           "   if (gl_FragCoord.y < 21.0)\n"
                           "      color = textureGather(t, uv);\n"
                           "   else if (gl_FragCoord.y < 42.0)\n"
                           "      color = textureGatherOffset(t, uv, ivec2(1, -2)).wzyx;\n"
                           "   else\n"
                           "      color = vec4(textureGather(it, uv)) / 255.0;\n"
                           "}\n";
   GLuint p = gl_program(vs_src, fs);
   if (!p)
      return false;
   unsigned char texels[8 * 8 * 4];
   int ints[8 * 8];
   for (int i = 0; i < 64; i++) {
      texels[4 * i] = (unsigned char)(i * 4);
      texels[4 * i + 1] = (unsigned char)(255 - i * 3);
      texels[4 * i + 2] = (unsigned char)(i * 29);
      texels[4 * i + 3] = (unsigned char)(i * 53 + 7);
      ints[i] = (i * 37) % 64 * 4;
   }
   GLuint tex[2];
   glGenTextures(2, tex);
   glActiveTexture(GL_TEXTURE1);
   glBindTexture(GL_TEXTURE_2D, tex[1]);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_R32I, 8, 8, 0, GL_RED_INTEGER, GL_INT, ints);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   glActiveTexture(GL_TEXTURE0);
   glBindTexture(GL_TEXTURE_2D, tex[0]);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 8, 8, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
   glUniform1i(glGetUniformLocation(p, "t"), 0);
   glUniform1i(glGetUniformLocation(p, "it"), 1);
   draw_read();
   glDeleteTextures(2, tex);
   glDeleteProgram(p);
   /* pixel (0, 0): footprint columns 7 (wrapped) and 0, rows 0 and 0
    * (clamped): (i0, j1), (i1, j1), (i1, j0), (i0, j0) = texels 7, 0, 0, 7 */
   const unsigned char e[4] = { texels[4 * 7], texels[0], texels[0], texels[4 * 7] };
   for (int k = 0; k < 4; k++)
      if (abs(px[k] - e[k]) > 1) {
         snprintf(gl_err, sizeof(gl_err), "gather at (0,0)[%d]: %u, expected %u", k, px[k], e[k]);
         return false;
      }
   return varied();
}

/* GL_ARB_texture_cube_map_array: 3 cubes of 4x4 faces, every face of every
 * cube its own colour, sampled in a direction per pixel column and the cube
 * per row band (the last band's index 7.3 clamps to cube 2) */
static bool
case_cube_array(void)
{
   static const char *fs = "#version 140\n"
                           "#extension GL_ARB_texture_cube_map_array : require\n"
                           "uniform samplerCubeArray t;\n"
                           "out vec4 color;\n"
                           "void main() {\n"
                           "   float a = gl_FragCoord.x / 64.0 * 6.2832;\n"
                           "   vec3 dir = vec3(cos(a), gl_FragCoord.y / 32.0 - 1.0, sin(a));\n"
                           "   float cube = gl_FragCoord.y < 48.0 ? floor(gl_FragCoord.y / 16.0) : 7.3;\n"
                           "   color = texture(t, vec4(dir, cube));\n"
                           "}\n";
   GLuint p = gl_program(vs_src, fs);
   if (!p)
      return false;
   unsigned char texels[18][4 * 4 * 4];
   for (int l = 0; l < 18; l++)
      for (int i = 0; i < 16; i++) {
         texels[l][4 * i] = (unsigned char)(l * 14);
         texels[l][4 * i + 1] = (unsigned char)(255 - l * 13);
         texels[l][4 * i + 2] = (unsigned char)((l % 6) * 50 + i);
         texels[l][4 * i + 3] = 255;
      }
   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_CUBE_MAP_ARRAY, tex);
   glTexImage3D(GL_TEXTURE_CUBE_MAP_ARRAY, 0, GL_RGBA8, 4, 4, 18, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                texels);
   glTexParameteri(GL_TEXTURE_CUBE_MAP_ARRAY, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_CUBE_MAP_ARRAY, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   glUniform1i(glGetUniformLocation(p, "t"), 0);
   draw_read();
   glDeleteTextures(1, &tex);
   glDeleteProgram(p);
   /* the top band samples cube 2: red is 14 * layer, layers 12..17 */
   const int r = pixel(5, 60)[0];
   if (r < 12 * 14 || r > 17 * 14 || r % 14)
      return fail("the clamped cube index did not sample cube 2");
   return varied();
}

/* The 4x4 RGBA8 faces of the seamless cases: a gradient per face, except
 * each face's corner texels, which take the colour of the cube's corner
 * they touch (the sign of each component of their centre's direction), so
 * that the three texels around a corner of the cube are equal: a footprint
 * there has the same value whether the texel past both edges is their
 * average (vagx, llvmpipe) or one of them (softpipe), and the image can be
 * compared with softpipe's */
static void
seamless_faces(GLenum target)
{
   /* each face's normal N and the directions S, T of s and t (GL 4.6
    * table 8.19) */
   static const int axes[6][3][3] = {
      { { 1, 0, 0 }, { 0, 0, -1 }, { 0, -1, 0 } },  { { -1, 0, 0 }, { 0, 0, 1 }, { 0, -1, 0 } },
      { { 0, 1, 0 }, { 1, 0, 0 }, { 0, 0, 1 } },    { { 0, -1, 0 }, { 1, 0, 0 }, { 0, 0, -1 } },
      { { 0, 0, 1 }, { 1, 0, 0 }, { 0, -1, 0 } },   { { 0, 0, -1 }, { -1, 0, 0 }, { 0, -1, 0 } },
   };
   for (int f = 0; f < 6; f++) {
      unsigned char texels[4 * 4 * 4];
      for (int y = 0; y < 4; y++)
         for (int x = 0; x < 4; x++) {
            unsigned char *o = texels + 4 * (4 * y + x);
            if ((x == 0 || x == 3) && (y == 0 || y == 3)) {
               for (int k = 0; k < 3; k++) {
                  const int d = 2 * axes[f][0][k] + (x ? 1 : -1) * axes[f][1][k] +
                                (y ? 1 : -1) * axes[f][2][k];
                  o[k] = d > 0 ? 230 : 30;
               }
            } else {
               o[0] = (unsigned char)(f * 40 + 20);
               o[1] = (unsigned char)(x * 60 + 35);
               o[2] = (unsigned char)(y * 60 + 35);
            }
            o[3] = 255;
         }
      glTexImage2D(GL_TEXTURE_CUBE_MAP_POSITIVE_X + f, 0, GL_RGBA8, 4, 4, 0, GL_RGBA,
                   GL_UNSIGNED_BYTE, texels);
   }
   glTexParameteri(target, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
   glTexParameteri(target, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
   /* seamless filtering ignores the wrap modes; per face they apply */
   glTexParameteri(target, GL_TEXTURE_WRAP_S, GL_REPEAT);
   glTexParameteri(target, GL_TEXTURE_WRAP_T, GL_REPEAT);
}

/* Each half of the image (rows 0-31 and 32-63) looks at the same
 * directions: the +Z face and the four faces around it, with four corners
 * of the cube, LINEAR; a face is about 21 pixels wide */
static const char *seamless_fs = "#version 140\n"
                                 "uniform samplerCube t;\n"
                                 "out vec4 color;\n"
                                 "void main() {\n"
                                 "   vec2 p = vec2(gl_FragCoord.x, mod(gl_FragCoord.y, 32.0) * 2.0);\n"
                                 "   p = (p / 32.0 - 1.0) * 1.5;\n"
                                 "   color = texture(t, vec3(p, 1.0));\n"
                                 "}\n";

/* Pixels whose half-image twins (x, y) and (x, y + 32) differ by more
 * than 16 in a component: where seamless filtering (one half) reads other
 * faces than per-face filtering (the other) */
static unsigned
halves_differ(void)
{
   unsigned n = 0;
   for (int y = 0; y < H / 2; y++)
      for (int x = 0; x < W; x++) {
         bool d = false;
         for (int k = 0; k < 3; k++)
            d |= abs(pixel(x, y)[k] - pixel(x, y + H / 2)[k]) > 16;
         n += d;
      }
   return n;
}

/* The bottom half drawn per face, the top half seamless: with
 * GL_TEXTURE_CUBE_MAP_SEAMLESS enabled (GL_ARB_seamless_cube_map) or, with
 * `per_texture`, set on the texture (GL_AMD_seamless_cubemap_per_texture)
 * while the global enable stays off.  Seamless, the texels past a face's
 * edge come from the neighbouring face; per face, from the wrap modes on
 * the same face */
static bool
seamless_case(bool per_texture)
{
   GLuint p = gl_program(vs_src, seamless_fs);
   if (!p)
      return false;
   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_CUBE_MAP, tex);
   seamless_faces(GL_TEXTURE_CUBE_MAP);
   glUniform1i(glGetUniformLocation(p, "t"), 0);
   glClearColor(0, 0, 0, 0);
   glClear(GL_COLOR_BUFFER_BIT);
   glEnable(GL_SCISSOR_TEST);
   glScissor(0, 0, W, H / 2);
   draw_quad();
   if (per_texture)
      glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_CUBE_MAP_SEAMLESS, GL_TRUE);
   else
      glEnable(GL_TEXTURE_CUBE_MAP_SEAMLESS);
   glScissor(0, H / 2, W, H / 2);
   draw_quad();
   glDisable(GL_TEXTURE_CUBE_MAP_SEAMLESS);
   glDisable(GL_SCISSOR_TEST);
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   glDeleteTextures(1, &tex);
   glDeleteProgram(p);
   const unsigned d = halves_differ();
   if (d < 64)
      GL_FAIL("seamless filtering changed only %u pixels", d);
   return varied();
}

static bool
case_cube_seamless(void)
{
   return seamless_case(false);
}

static bool
case_cube_seamless_tex(void)
{
   return seamless_case(true);
}

/* The full-screen quad at depth z (uniform zl) in colour (r, g, b) (uniform
 * cl), only in the scissor rectangle (x, y, w, h) */
static void
scissored_quad(int x, int y, int w, int h, GLint zl, float z, GLint cl, float r, float g, float b)
{
   glScissor(x, y, w, h);
   glUniform1f(zl, z);
   glUniform4f(cl, r, g, b, 1);
   draw_quad();
}

/* GL_ARB_depth_clamp: a quad at z = 1.5 (past the far plane) is clipped
 * with depth clamp off and, with the depth range [0.2, 0.7], draws with it
 * on (depth 0.7, which the GL_LESS test then compares) */
static bool
case_depth_clamp(void)
{
   static const char *vs = "#version 140\n"
                           "in vec2 pos;\n"
                           "uniform float z;\n"
                           "void main() { gl_Position = vec4(pos, z, 1.0); }\n";
   static const char *fs = "#version 140\n"
                           "uniform vec4 c;\n"
                           "out vec4 color;\n"
                           "void main() { color = c; }\n";
   GLuint p = gl_program(vs, fs);
   if (!p)
      return false;
   GLuint rb = gl_depth_buffer(GL_DEPTH_COMPONENT24, GL_DEPTH_ATTACHMENT, W, H);
   glClearDepth(1.0);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   glEnable(GL_DEPTH_TEST);
   glDepthFunc(GL_LESS);
   const GLint zl = glGetUniformLocation(p, "z"), cl = glGetUniformLocation(p, "c");
   /* left half: clamp off, z 1.5 -> clipped, nothing drawn */
   glEnable(GL_SCISSOR_TEST);
   scissored_quad(0, 0, W / 2, H, zl, 1.5f, cl, 1, 0, 0);
   /* right half: clamp on with the depth range [0.2, 0.7]: green at z 1.5
    * (depth 0.7); then, on the top quarter, z 1.2 (0.75 before the clamp)
    * must fail GL_LESS against 0.7, and on the bottom quarter z 0 (0.45)
    * passes in blue.  (The left half has the range [0, 1]: the device clips
    * at window depths 0 and 1, GL at n and f; docs/mesa-driver.md) */
   glDepthRange(0.2, 0.7);
   glEnable(GL_DEPTH_CLAMP);
   scissored_quad(W / 2, 0, W / 2, H, zl, 1.5f, cl, 0, 1, 0);
   scissored_quad(W / 2, H / 2, W / 2, H / 2, zl, 1.2f, cl, 1, 0, 1);
   scissored_quad(W / 2, 0, W / 2, H / 2, zl, 0.0f, cl, 0, 0, 1);
   glDisable(GL_DEPTH_CLAMP);
   glDisable(GL_SCISSOR_TEST);
   glDisable(GL_DEPTH_TEST);
   glDepthRange(0, 1);
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, 0);
   glDeleteRenderbuffers(1, &rb);
   glDeleteProgram(p);
   static const struct { int x, y; unsigned char c[3]; } probe[] = {
      { 10, 10, { 0, 0, 0 } }, { 10, 50, { 0, 0, 0 } },
      { 50, 10, { 0, 0, 255 } }, { 50, 50, { 0, 255, 0 } },
   };
   for (unsigned i = 0; i < 4; i++)
      if (memcmp(pixel(probe[i].x, probe[i].y), probe[i].c, 3)) {
         snprintf(gl_err, sizeof(gl_err), "pixel (%d,%d) %u %u %u", probe[i].x, probe[i].y,
                  pixel(probe[i].x, probe[i].y)[0], pixel(probe[i].x, probe[i].y)[1],
                  pixel(probe[i].x, probe[i].y)[2]);
         return false;
      }
   return true;
}

/* cmp: the image is also compared with softpipe's by tests/gl/run */
static const struct gl_case cases[] = {
   { "texbuf", case_texbuf, false },
   { "texbuf_int", case_texbuf_int, true },
   { "core31", case_core31, true },
   { "gather", case_gather, true },
   { "cube_array", case_cube_array, true },
   { "cube_seamless", case_cube_seamless, true },
   { "cube_seamless_tex", case_cube_seamless_tex, true },
   { "depth_clamp", case_depth_clamp, true },
};

static bool
setup(void)
{
   if (!gl_target_fbo(W, H))
      GL_FAIL("framebuffer");
   return true;
}

int
main(int argc, char **argv)
{
   static const struct gl_suite suite = {
      .cases = cases, .n = sizeof(cases) / sizeof(cases[0]), .outdir = true, .kinds = true,
      .setup = setup, .px = px, .w = W, .h = H,
   };
   return gl_run(argc, argv, &suite);
}
