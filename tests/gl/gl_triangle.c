/* SPDX-License-Identifier: MIT */
/*
 * gl_triangle OUTDIR [CASE...]: render the GLES2 test cases into a 64x64
 * RGBA8 FBO (EGL surfaceless platform, configless + surfaceless context, so
 * no EGLConfig or window system is needed), read each image back with
 * glReadPixels and write it to OUTDIR/<case>.ppm (top row first).
 *
 * gl_triangle --compare REF.ppm TEST.ppm: compare two images with the suite's
 * tolerance (see gl_compare_ppm() in gl_common.c); exit 0 if they match.
 *
 * gl_triangle --gbm DEVICE [--prime DEVICE2] OUTDIR [CASE...]: the same cases
 * rendered into a 64x64 ARGB8888 window surface of the EGL GBM platform on
 * DEVICE (a KMS node, e.g. /dev/dri/card0; scanout + rendering buffers),
 * read back with glReadPixels as above; then eglSwapBuffers, and the front
 * buffer (gbm_surface_lock_front_buffer) is mapped with gbm_bo_map and must
 * hold exactly the pixels glReadPixels returned ("front buffer differs"
 * otherwise: wrong stride/layout of the shared buffer, or a stale buffer).
 * With --prime, the "triangle" case is rendered once more, its front buffer
 * exported as a dma-buf (gbm_bo_get_fd) and imported on a second EGL display
 * on a GBM device of DEVICE2 (another DRM file, e.g. /dev/dri/renderD128)
 * with EGL_EXT_image_dma_buf_import; the second context samples it (nearest)
 * into an FBO, and that readback must equal the first one exactly
 * ("prime ok" / "prime error: ..."). libgbm is dlopen()ed, so the surfaceless
 * mode needs no GBM at build or run time.
 *
 * The runner (tests/gl/run) renders every case twice, once on vagx (drm-shim)
 * and once on softpipe (the reference), and compares them per case; the
 * guest suite (tests/guest/suites/gl.sh) does the same with --gbm on vagx
 * against Debian's llvmpipe.
 * Rendering prints one line per case: "case NAME ok" or "case NAME error: ...".
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gl_common.h"

#define W 64
#define H 64

static const char *outdir;

/* ---------------------------------------------------------------- GL helpers */

/* attribute 0 "pos", 1 "attr" (gl_program binds them) */
static const char *vs_color =
   "attribute vec4 pos;\n"
   "attribute vec4 attr;\n"
   "varying vec4 v;\n"
   "void main() { gl_Position = pos; v = attr; }\n";
static const char *fs_color =
   "precision mediump float;\n"
   "varying vec4 v;\n"
   "void main() { gl_FragColor = v; }\n";
static const char *fs_uniform =
   "precision mediump float;\n"
   "uniform vec4 color;\n"
   "void main() { gl_FragColor = color; }\n";
static const char *fs_tex =
   "precision mediump float;\n"
   "varying vec4 v;\n"
   "uniform sampler2D tex;\n"
   "void main() { gl_FragColor = texture2D(tex, v.xy); }\n";

/* pos: 3 floats (z used by the depth case), attr: 4 floats */
static void
draw(GLenum mode, const float *pos, const float *attr, int n)
{
   glEnableVertexAttribArray(0);
   glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, pos);
   if (attr) {
      glEnableVertexAttribArray(1);
      glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 0, attr);
   } else {
      glDisableVertexAttribArray(1);
   }
   glDrawArrays(mode, 0, n);
}

static const float quad_pos[] = { -1, -1, 0, 1, -1, 0, -1, 1, 0, 1, 1, 0 };

/* Clears to (r, g, b, a) and makes vs_color + fs current: the program, 0
 * (gl_err) if it does not build */
static GLuint
begin(float r, float g, float b, float a, const char *fs)
{
   glClearColor(r, g, b, a);
   glClear(GL_COLOR_BUFFER_BIT);
   return gl_program(vs_color, fs);
}

/* tex (unit 0) on the full-window quad, then deleted */
static bool
draw_texture(GLuint tex)
{
   GLuint p = gl_program(vs_color, fs_tex);
   if (!p)
      return false;
   glUniform1i(glGetUniformLocation(p, "tex"), 0);
   static const float uv[] = { 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0 };
   draw(GL_TRIANGLE_STRIP, quad_pos, uv, 4);
   glDeleteTextures(1, &tex);
   return true;
}

/* ---------------------------------------------------------------- cases */

static bool
case_clear(void)
{
   glClearColor(0.2f, 0.4f, 0.6f, 1.0f);
   glClear(GL_COLOR_BUFFER_BIT);
   return true;
}

static bool
case_triangle(void)
{
   static const float pos[] = { -0.8f, -0.8f, 0, 0.8f, -0.6f, 0, -0.1f, 0.85f, 0 };
   static const float col[] = { 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1 };
   if (!begin(0.1f, 0.1f, 0.1f, 1.0f, fs_color))
      return false;
   draw(GL_TRIANGLES, pos, col, 3);
   return true;
}

static bool
case_multi_draw(void)
{
   GLuint p = begin(0, 0, 0, 1, fs_uniform);
   if (!p)
      return false;
   GLint loc = glGetUniformLocation(p, "color");
   for (int i = 0; i < 4; i++) {
      float x0 = -0.9f + 0.45f * i;
      float pos[] = { x0, -0.7f, 0, x0 + 0.4f, -0.7f, 0, x0 + 0.2f, 0.3f + 0.15f * i, 0 };
      glUniform4f(loc, i & 1 ? 1.0f : 0.25f, i & 2 ? 1.0f : 0.5f, 0.75f - 0.2f * i, 1);
      draw(GL_TRIANGLES, pos, NULL, 3);
   }
   return true;
}

static bool
case_scissor(void)
{
   glClearColor(0, 0, 1, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glEnable(GL_SCISSOR_TEST);
   glScissor(8, 16, 24, 20);
   glClearColor(1, 1, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glDisable(GL_SCISSOR_TEST);
   return true;
}

static bool
case_depth(void)
{
   glClearColor(0, 0, 0, 1);
   glClearDepthf(1.0f);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   glEnable(GL_DEPTH_TEST);
   glDepthFunc(GL_LESS);
   GLuint p = gl_program(vs_color, fs_uniform);
   if (!p)
      return false;
   GLint loc = glGetUniformLocation(p, "color");
   /* near (z=-0.5) green drawn first, far (z=0.5) red second: red must be
    * hidden where they overlap; a sloped blue triangle crosses both */
   static const float near[] = { -0.9f, -0.9f, -0.5f, 0.5f, -0.9f, -0.5f, -0.2f, 0.6f, -0.5f };
   static const float far[] = { -0.5f, -0.6f, 0.5f, 0.9f, -0.6f, 0.5f, 0.2f, 0.9f, 0.5f };
   static const float slope[] = { -1, 0.1f, -1, 1, 0.1f, 1, 0, -1, 0 };
   glUniform4f(loc, 0, 1, 0, 1);
   draw(GL_TRIANGLES, near, NULL, 3);
   glUniform4f(loc, 1, 0, 0, 1);
   draw(GL_TRIANGLES, far, NULL, 3);
   glUniform4f(loc, 0, 0, 1, 1);
   draw(GL_TRIANGLES, slope, NULL, 3);
   glDisable(GL_DEPTH_TEST);
   return true;
}

static bool
case_blend(void)
{
   GLuint p = begin(0.0f, 0.0f, 0.5f, 1.0f, fs_uniform);
   if (!p)
      return false;
   GLint loc = glGetUniformLocation(p, "color");
   glEnable(GL_BLEND);
   glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
   static const float a[] = { -0.9f, -0.9f, 0, 0.6f, -0.9f, 0, -0.9f, 0.6f, 0 };
   static const float b[] = { 0.9f, 0.9f, 0, -0.6f, 0.9f, 0, 0.9f, -0.6f, 0 };
   glUniform4f(loc, 1, 0, 0, 0.5f);
   draw(GL_TRIANGLES, a, NULL, 3);
   glBlendFunc(GL_ONE, GL_ONE); /* additive */
   glUniform4f(loc, 0, 0.5f, 0, 1);
   draw(GL_TRIANGLES, b, NULL, 3);
   glDisable(GL_BLEND);
   return true;
}

static bool
case_texture(void)
{
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   unsigned char texels[8 * 8 * 4];
   for (int y = 0; y < 8; y++)
      for (int x = 0; x < 8; x++) {
         unsigned char *t = texels + 4 * (y * 8 + x);
         bool on = (x ^ y) & 1;
         t[0] = on ? 255 : 32 * x;
         t[1] = on ? 255 : 32 * y;
         t[2] = on ? 0 : 128;
         t[3] = 255;
      }
   glActiveTexture(GL_TEXTURE0);
   GLuint tex = gl_texture_rgba(8, 8, texels, GL_NEAREST);
   return draw_texture(tex);
}

static bool
case_texture_linear(void)
{
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   static const unsigned char texels[] = { 255, 0, 0, 255, 0, 255, 0, 255,
                                           0, 0, 255, 255, 255, 255, 255, 255 };
   GLuint tex = gl_texture_rgba(2, 2, texels, GL_LINEAR);
   return draw_texture(tex);
}


static bool
case_indexed_vbo(void)
{
   if (!begin(0.1f, 0.0f, 0.1f, 1, fs_color))
      return false;
   /* interleaved: xyz float + rgba unorm8 (16 bytes/vertex), from a VBO */
   struct vtx {
      float p[3];
      unsigned char c[4];
   } v[] = {
      { { -0.9f, -0.9f, 0 }, { 255, 0, 0, 255 } }, { { -0.1f, -0.9f, 0 }, { 0, 255, 0, 255 } },
      { { -0.1f, -0.1f, 0 }, { 0, 0, 255, 255 } }, { { -0.9f, -0.1f, 0 }, { 255, 255, 0, 255 } },
      { { 0.5f, 0.5f, 0 }, { 255, 255, 255, 255 } }, { { 0.9f, 0.5f, 0 }, { 255, 0, 255, 255 } },
      { { 0.8f, 0.9f, 0 }, { 0, 255, 255, 255 } }, { { 0.2f, 0.9f, 0 }, { 128, 128, 128, 255 } },
      { { 0.1f, 0.6f, 0 }, { 255, 128, 0, 255 } },
   };
   static const unsigned short idx[] = { 0, 1, 2, 0, 2, 3, 4, 5, 6, 7, 8 };
   GLuint bo[2];
   glGenBuffers(2, bo);
   glBindBuffer(GL_ARRAY_BUFFER, bo[0]);
   glBufferData(GL_ARRAY_BUFFER, sizeof(v), v, GL_STATIC_DRAW);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, bo[1]);
   glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof(idx), idx, GL_STATIC_DRAW);
   glEnableVertexAttribArray(0);
   glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(struct vtx), (void *)0);
   glEnableVertexAttribArray(1);
   glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(struct vtx), (void *)12);
   glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, (void *)0);
   glDrawElements(GL_TRIANGLE_FAN, 5, GL_UNSIGNED_SHORT, (void *)(6 * sizeof(short)));
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
   glDeleteBuffers(2, bo);
   return true;
}

static bool
case_cull(void)
{
   GLuint p = begin(0, 0, 0, 1, fs_uniform);
   if (!p)
      return false;
   GLint loc = glGetUniformLocation(p, "color");
   static const float ccw[] = { -0.9f, -0.5f, 0, -0.1f, -0.5f, 0, -0.5f, 0.5f, 0 };
   static const float cw[] = { 0.1f, -0.5f, 0, 0.5f, 0.5f, 0, 0.9f, -0.5f, 0 };
   glEnable(GL_CULL_FACE);
   glCullFace(GL_BACK);
   glFrontFace(GL_CCW);
   glUniform4f(loc, 1, 0.5f, 0, 1);
   draw(GL_TRIANGLES, ccw, NULL, 3); /* front: drawn */
   draw(GL_TRIANGLES, cw, NULL, 3);  /* back: culled */
   glFrontFace(GL_CW);
   static const float cw2[] = { -0.3f, 0.6f, 0, 0.3f, 0.95f, 0, 0.3f, 0.6f, 0 };
   glUniform4f(loc, 0, 0.5f, 1, 1);
   draw(GL_TRIANGLES, cw2, NULL, 3); /* front with CW: drawn */
   glDisable(GL_CULL_FACE);
   glFrontFace(GL_CCW);
   return true;
}

static bool
case_shader_loop(void)
{
   static const char *fs =
      "precision highp float;\n"
      "void main() {\n"
      "   vec2 c = gl_FragCoord.xy / 64.0 * 2.5 - vec2(2.0, 1.25);\n"
      "   vec2 z = vec2(0.0);\n"
      "   float n = 0.0;\n"
      "   for (int i = 0; i < 24; i++) {\n"
      "      if (dot(z, z) > 4.0) break;\n"
      "      z = vec2(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c;\n"
      "      n += 1.0;\n"
      "   }\n"
      "   gl_FragColor = vec4(n / 24.0, fract(n / 5.0), c.x > -0.5 ? 1.0 : 0.25, 1.0);\n"
      "}\n";
   if (!begin(0, 0, 0, 1, fs))
      return false;
   draw(GL_TRIANGLE_STRIP, quad_pos, NULL, 4);
   return true;
}

/* A fragment shader that needs more registers than the device has
 * (VAGX_MAX_GPRS = 256): 72 vec4 values, each read by a chain running
 * forwards and by one running backwards, and every component of both
 * chains reaches the output.  In any order of the two chains, where the
 * forward one has used a0..a(k-1) and the backward one a(k)..a71, every
 * value has been read by one chain and not yet by the other: all 288
 * components are live, whatever the scheduler does (with only .xz of one
 * chain and .yw of the other read, it keeps them apart and needs 19
 * registers).  The compiler spills (tests/gl/run checks the shader-db line
 * says so) and the image must match softpipe's. */
static bool
case_spill(void)
{
   enum { N = 72 };
   static char fs[N * 200 + 1024];
   int n = snprintf(fs, sizeof(fs), "precision highp float;\n"
                                    "void main() {\n"
                                    "   vec4 q = gl_FragCoord.xyxy / 64.0;\n");
   for (int i = 0; i < N; i++)
      n += snprintf(fs + n, sizeof(fs) - n,
                    "   vec4 a%d = sin(q * vec4(%.2f, %.2f, %.2f, %.2f) + "
                    "vec4(%.2f, %.2f, %.2f, %.2f)) * 0.5 + 0.5;\n",
                    i, 1.0 + 0.13 * i, 2.0 - 0.011 * i, 0.5 + 0.07 * i, 3.0 - 0.03 * i,
                    0.1 * i, 0.05 * i, 1.0 - 0.01 * i, 0.3 + 0.02 * i);
   n += snprintf(fs + n, sizeof(fs) - n, "   vec4 s = vec4(0.0), t = vec4(0.0);\n");
   for (int i = 0; i < N; i++)
      n += snprintf(fs + n, sizeof(fs) - n, "   s = s * 0.75 + a%d * 0.25;\n", i);
   for (int i = N; i-- > 0;)
      n += snprintf(fs + n, sizeof(fs) - n, "   t = t * 0.75 + a%d * 0.25;\n", i);
   snprintf(fs + n, sizeof(fs) - n,
            "   gl_FragColor = vec4(s.xy * t.zw + s.zw * t.xy, 0.5, 1.0);\n"
            "}\n");
   if (!begin(0, 0, 0, 1, fs))
      return false;
   draw(GL_TRIANGLE_STRIP, quad_pos, NULL, 4);
   return true;
}

static bool
case_render_to_texture(void)
{
   /* pass 1: a triangle into a 32x32 texture through a second FBO */
   GLuint fbo, tex = gl_texture_rgba(32, 32, NULL, GL_NEAREST);
   GLint main_fbo;
   glGetIntegerv(GL_FRAMEBUFFER_BINDING, &main_fbo);
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      snprintf(gl_err, sizeof(gl_err), "texture FBO incomplete");
      return false;
   }
   glViewport(0, 0, 32, 32);
   if (!begin(0.3f, 0.3f, 0.0f, 1, fs_color))
      return false;
   static const float pos[] = { -0.9f, -0.9f, 0, 0.9f, -0.9f, 0, 0, 0.9f, 0 };
   static const float col[] = { 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1 };
   draw(GL_TRIANGLES, pos, col, 3);
   /* pass 2: sample it on a quad in the main FBO */
   glBindFramebuffer(GL_FRAMEBUFFER, main_fbo);
   glViewport(0, 0, W, H);
   GLuint p = begin(0, 0, 0, 1, fs_tex);
   if (!p)
      return false;
   glUniform1i(glGetUniformLocation(p, "tex"), 0);
   static const float qpos[] = { -0.75f, -0.75f, 0, 0.75f, -0.75f, 0, -0.75f, 0.75f, 0, 0.75f, 0.75f, 0 };
   static const float uv[] = { 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0 };
   draw(GL_TRIANGLE_STRIP, qpos, uv, 4);
   glDeleteFramebuffers(1, &fbo);
   glDeleteTextures(1, &tex);
   return true;
}

/* Binds an FBO with the main FBO's colour texture and a packed
 * depth/stencil renderbuffer (OES_packed_depth_stencil).  GBM mode renders
 * to the window surface, whose config has a stencil buffer: nothing to do
 * there (*fbo stays 0).  ds_fbo_end goes back to the main FBO. */
static bool
ds_fbo_begin(GLint *main_fbo, GLuint *fbo, GLuint *ds)
{
   if (!strstr((const char *)glGetString(GL_EXTENSIONS), "GL_OES_packed_depth_stencil")) {
      snprintf(gl_err, sizeof(gl_err), "GL_OES_packed_depth_stencil not exposed");
      return false;
   }
   GLint color;
   glGetIntegerv(GL_FRAMEBUFFER_BINDING, main_fbo);
   *fbo = *ds = 0;
   if (*main_fbo) {
      glGetFramebufferAttachmentParameteriv(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
                                            GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME, &color);
      glGenFramebuffers(1, fbo);
      glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
      glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, color, 0);
      *ds = gl_depth_buffer(GL_DEPTH24_STENCIL8_OES, GL_DEPTH_ATTACHMENT, W, H);
      glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_STENCIL_ATTACHMENT, GL_RENDERBUFFER, *ds);
      if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
         snprintf(gl_err, sizeof(gl_err), "depth/stencil FBO incomplete");
         return false;
      }
   }
   return true;
}

static void
ds_fbo_end(GLint main_fbo, GLuint fbo, GLuint ds)
{
   glBindFramebuffer(GL_FRAMEBUFFER, main_fbo);
   if (fbo) {
      glDeleteFramebuffers(1, &fbo);
      glDeleteRenderbuffers(1, &ds);
   }
}

static bool
case_stencil(void)
{
   /* own FBO with a packed depth/stencil renderbuffer */
   GLint main_fbo;
   GLuint fbo, ds;
   if (!ds_fbo_begin(&main_fbo, &fbo, &ds))
      return false;
   glClearColor(0, 0, 0, 1);
   glClearStencil(0);
   glClear(GL_COLOR_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
   GLuint p = gl_program(vs_color, fs_uniform);
   if (!p)
      return false;
   GLint loc = glGetUniformLocation(p, "color");
   glEnable(GL_STENCIL_TEST);
   /* write 1 inside a triangle, colour writes off */
   glStencilFunc(GL_ALWAYS, 1, 0xff);
   glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
   glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
   static const float tri[] = { -0.8f, -0.8f, 0, 0.8f, -0.8f, 0, 0, 0.8f, 0 };
   draw(GL_TRIANGLES, tri, NULL, 3);
   glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
   /* full quad where stencil == 1: green; where != 1: magenta */
   glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
   glStencilFunc(GL_EQUAL, 1, 0xff);
   glUniform4f(loc, 0, 1, 0, 1);
   draw(GL_TRIANGLE_STRIP, quad_pos, NULL, 4);
   glStencilFunc(GL_NOTEQUAL, 1, 0xff);
   glUniform4f(loc, 1, 0, 1, 1);
   static const float half[] = { -1, -1, 0, 0, -1, 0, -1, 1, 0, 0, 1, 0 };
   draw(GL_TRIANGLE_STRIP, half, NULL, 4);
   glDisable(GL_STENCIL_TEST);
   ds_fbo_end(main_fbo, fbo, ds);
   return true;
}

static const char *vs_psize =
   "attribute vec4 pos;\n"
   "attribute vec4 attr;\n"
   "varying vec4 v;\n"
   "void main() { gl_Position = pos; gl_PointSize = 5.0; v = attr; }\n";

/*
 * Width-1 lines: vagx follows GL's diamond-exit rule (the last pixel is left
 * out when the endpoint lies inside its diamond).  softpipe draws Bresenham
 * lines between truncated endpoints, which GL also allows (one pixel off), so
 * the comparison relies on the runner's edge tolerance; the exact rule is
 * tested against a spec-derived reference in tests/unit/render.
 */
static bool
case_lines(void)
{
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   if (!gl_program(vs_psize, fs_color))
      return false;
   static const float lpos[] = { -0.9f, -0.9f, 0, 0.9f, -0.3f, 0, -0.9f, 0.8f, 0, 0.2f, -0.8f, 0 };
   static const float lcol[] = { 1, 0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1 };
   draw(GL_LINES, lpos, lcol, 4);
   return true;
}

static bool
case_points(void)
{
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   if (!gl_program(vs_psize, fs_color))
      return false;
   static const float ppos[] = { 0.5f, 0.5f, 0, -0.5f, 0.3f, 0, 0.7f, 0.85f, 0 };
   static const float pcol[] = { 1, 1, 1, 1, 1, 0, 1, 1, 0, 1, 0, 1 };
   draw(GL_POINTS, ppos, pcol, 3);
   return true;
}

/* Opaque draws (no blending, full colour mask, no discard) with the depth
 * test: the driver marks their fragment pipelines `opaque` and the device
 * shades only the last fragment passing the early tests per sample (hidden-
 * surface removal).  Back-to-front order so hidden fragments exist, a
 * coplanar LEQUAL redraw (the later one must win), a colour-masked draw
 * (not opaque: it reads the tile) between opaque ones, and a draw without
 * depth write followed by one that passes the test under it (the last
 * passing fragment wins, not the nearest). */
static bool
case_hsr(void)
{
   glClearColor(0, 0, 0, 1);
   glClearDepthf(1.0f);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   glEnable(GL_DEPTH_TEST);
   glDepthFunc(GL_LEQUAL);
   if (!gl_program(vs_color, fs_color))
      return false;
   static const float far[] = { -0.95f, -0.95f, 0.6f, 0.95f, -0.95f, 0.6f, 0, 0.95f, 0.6f };
   static const float mid[] = { -0.9f, 0.9f, 0, 0.9f, 0.9f, 0, 0, -0.9f, 0 };
   /* no edge through pixel centres: the fill convention for those is not
    * the same as softpipe's */
   static const float near[] = { -0.61f, -0.6f, -0.5f, 0.63f, -0.6f, -0.5f, -0.61f, 0.58f, -0.5f };
   static const float top[] = { -0.3f, -0.8f, -0.9f, 0.8f, -0.8f, -0.9f, 0.8f, 0.33f, -0.9f };
   static const float under[] = { 0.1f, -0.9f, -0.7f, 0.9f, -0.9f, -0.7f, 0.9f, 0, -0.7f };
   static const float c0[] = { 1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1 };
   static const float c1[] = { 0, 1, 0, 1, 0, 1, 1, 1, 0.5f, 0.5f, 0.5f, 1 };
   static const float c2[] = { 0, 0, 1, 1, 1, 0, 1, 1, 0.2f, 0.8f, 0.4f, 1 };
   static const float c3[] = { 1, 1, 1, 1, 0.3f, 0.6f, 0.9f, 1, 0.9f, 0.1f, 0.3f, 1 };
   draw(GL_TRIANGLES, far, c0, 3);
   draw(GL_TRIANGLES, mid, c1, 3);
   draw(GL_TRIANGLES, near, c2, 3);
   draw(GL_TRIANGLES, near, c3, 3); /* coplanar: LEQUAL passes, this one wins */
   glColorMask(GL_TRUE, GL_FALSE, GL_TRUE, GL_TRUE);
   draw(GL_TRIANGLES, mid, c2, 3); /* passes only where mid is nearest */
   glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
   glDepthMask(GL_FALSE);
   draw(GL_TRIANGLES, top, c0, 3); /* nearest, but leaves depth at near/mid/far */
   glDepthMask(GL_TRUE);
   draw(GL_TRIANGLES, under, c1, 3); /* behind top, passes the stored depth: wins */
   glDisable(GL_DEPTH_TEST);
   glDepthFunc(GL_LESS);
   return true;
}

/* ---------------------------------------------------------------- state between draws
 *
 * The driver emits a command only when its state changed since the last
 * draw of the batch (dirty tracking): each case below changes one kind of
 * state between draws into the same frame, so a change the driver fails to
 * mark dirty draws with the previous state and differs from softpipe. */

static const float tri_a[] = { -0.9f, -0.9f, 0, 0.1f, -0.9f, 0, -0.4f, 0.1f, 0 };
static const float tri_b[] = { -0.1f, -0.1f, 0, 0.9f, -0.1f, 0, 0.4f, 0.9f, 0 };
static const float tri_c[] = { -0.9f, 0.0f, 0, -0.1f, 0.0f, 0, -0.5f, 0.9f, 0 };
static const float tri_d[] = { 0.1f, -0.9f, 0, 0.9f, -0.9f, 0, 0.5f, -0.1f, 0 };

/* viewport, scissor rectangle and enable, cull face, front face, colour mask */
static bool
case_state_raster(void)
{
   GLuint p = begin(0.1f, 0.1f, 0.1f, 1, fs_uniform);
   if (!p)
      return false;
   GLint loc = glGetUniformLocation(p, "color");
   glUniform4f(loc, 1, 0.5f, 0, 1);
   glViewport(0, 0, 32, 32);
   draw(GL_TRIANGLE_STRIP, quad_pos, NULL, 4);
   glViewport(32, 32, 32, 32);
   draw(GL_TRIANGLE_STRIP, quad_pos, NULL, 4);
   glViewport(0, 0, W, H);
   glEnable(GL_SCISSOR_TEST);
   glScissor(40, 4, 16, 20);
   glUniform4f(loc, 0, 1, 0, 1);
   draw(GL_TRIANGLE_STRIP, quad_pos, NULL, 4);
   glScissor(4, 40, 20, 16);
   draw(GL_TRIANGLE_STRIP, quad_pos, NULL, 4);
   glDisable(GL_SCISSOR_TEST);
   glEnable(GL_CULL_FACE);
   glUniform4f(loc, 0, 0, 1, 1);
   draw(GL_TRIANGLES, tri_a, NULL, 3); /* counter-clockwise: drawn */
   glFrontFace(GL_CW);
   draw(GL_TRIANGLES, tri_b, NULL, 3); /* now back-facing: culled */
   glFrontFace(GL_CCW);
   glDisable(GL_CULL_FACE);
   glColorMask(GL_TRUE, GL_FALSE, GL_FALSE, GL_TRUE);
   glUniform4f(loc, 1, 1, 1, 1);
   draw(GL_TRIANGLES, tri_c, NULL, 3);
   glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
   draw(GL_TRIANGLES, tri_d, NULL, 3);
   return true;
}

/* depth function and mask, stencil reference only (same stencil state) */
static bool
case_state_zs(void)
{
   GLint main_fbo;
   GLuint fbo, ds;
   if (!ds_fbo_begin(&main_fbo, &fbo, &ds))
      return false;
   glClearColor(0, 0, 0, 1);
   glClearDepthf(0.5f);
   glClearStencil(0);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
   GLuint p = gl_program(vs_color, fs_uniform);
   if (!p)
      return false;
   GLint loc = glGetUniformLocation(p, "color");
   /* z = 0.5 is depth 0.75, behind the cleared 0.5 */
   static const float far_a[] = { -0.9f, -0.9f, 0.5f, 0.1f, -0.9f, 0.5f, -0.4f, 0.1f, 0.5f };
   static const float far_b[] = { -0.1f, -0.1f, 0.5f, 0.9f, -0.1f, 0.5f, 0.4f, 0.9f, 0.5f };
   glEnable(GL_DEPTH_TEST);
   glDepthFunc(GL_LESS); /* fails */
   glUniform4f(loc, 1, 0, 0, 1);
   draw(GL_TRIANGLES, far_a, NULL, 3);
   glDepthFunc(GL_GREATER); /* only the function changes: passes */
   draw(GL_TRIANGLES, far_b, NULL, 3);
   glDepthFunc(GL_LESS);
   glDisable(GL_DEPTH_TEST);
   glEnable(GL_STENCIL_TEST);
   glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
   glStencilFunc(GL_ALWAYS, 1, 0xff);
   glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
   draw(GL_TRIANGLES, tri_c, NULL, 3);
   glStencilFunc(GL_ALWAYS, 2, 0xff); /* only the reference changes */
   draw(GL_TRIANGLES, tri_d, NULL, 3);
   glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
   glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
   glStencilFunc(GL_EQUAL, 1, 0xff);
   glUniform4f(loc, 0, 0, 1, 1);
   draw(GL_TRIANGLE_STRIP, quad_pos, NULL, 4);
   glStencilFunc(GL_EQUAL, 2, 0xff);
   glUniform4f(loc, 1, 1, 0, 1);
   draw(GL_TRIANGLE_STRIP, quad_pos, NULL, 4);
   glDisable(GL_STENCIL_TEST);
   ds_fbo_end(main_fbo, fbo, ds);
   return true;
}

/* uniforms, textures, sampler state, blending, blend colour, programs */
static bool
case_state_fs(void)
{
   glClearColor(0, 0, 0.3f, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   static const unsigned char tex0[] = { 255, 0, 0, 255, 0, 255, 0, 255,
                                         0, 0, 255, 255, 255, 255, 255, 255 };
   static const unsigned char tex1[] = { 255, 255, 0, 255, 0, 255, 255, 255,
                                         255, 0, 255, 255, 64, 64, 64, 255 };
   GLuint tex[2];
   for (int i = 0; i < 2; i++)
      tex[i] = gl_texture_rgba(2, 2, i ? tex1 : tex0, GL_NEAREST);
   GLuint pt = gl_program(vs_color, fs_tex);
   if (!pt)
      return false;
   glUniform1i(glGetUniformLocation(pt, "tex"), 0);
   static const float uv[] = { 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0 };
   glBindTexture(GL_TEXTURE_2D, tex[0]);
   draw(GL_TRIANGLES, tri_a, uv, 3);
   glBindTexture(GL_TEXTURE_2D, tex[1]); /* texture change */
   draw(GL_TRIANGLES, tri_b, uv, 3);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR); /* sampler change */
   draw(GL_TRIANGLES, tri_c, uv, 3);
   GLuint pu = gl_program(vs_color, fs_uniform); /* program change */
   if (!pu)
      return false;
   GLint loc = glGetUniformLocation(pu, "color");
   glUniform4f(loc, 0.25f, 0.5f, 0.75f, 1);
   draw(GL_TRIANGLES, tri_d, NULL, 3);
   glUniform4f(loc, 1, 0.5f, 0, 1); /* uniform change */
   static const float small[] = { 0.5f, 0.5f, 0, 0.95f, 0.5f, 0, 0.7f, 0.95f, 0 };
   draw(GL_TRIANGLES, small, NULL, 3);
   glEnable(GL_BLEND); /* blend change */
   glBlendFunc(GL_ONE, GL_ONE);
   glUniform4f(loc, 0, 0, 0.5f, 1);
   draw(GL_TRIANGLE_STRIP, quad_pos, NULL, 4);
   glBlendFunc(GL_CONSTANT_COLOR, GL_ZERO);
   glBlendColor(0.5f, 1, 1, 1);
   glUniform4f(loc, 1, 1, 1, 1);
   static const float right[] = { 0, -1, 0, 1, -1, 0, 0, 0, 0, 1, 0, 0 };
   draw(GL_TRIANGLE_STRIP, right, NULL, 4);
   glBlendColor(1, 0.25f, 1, 1); /* blend colour change only */
   static const float left[] = { -1, 0, 0, 0, 0, 0, -1, 1, 0, 0, 1, 0 };
   draw(GL_TRIANGLE_STRIP, left, NULL, 4);
   glDisable(GL_BLEND);
   glUseProgram(pt); /* back to the first program and texture */
   glBindTexture(GL_TEXTURE_2D, tex[0]);
   static const float mid[] = { -0.3f, -0.3f, 0, 0.3f, -0.3f, 0, 0, 0.3f, 0 };
   draw(GL_TRIANGLES, mid, uv, 3);
   glDeleteTextures(2, tex);
   return true;
}

/* vertex buffers: another buffer, another offset, a buffer orphaned and
 * one rewritten whole between draws (new storage while the old one is
 * still read) */
static bool
case_state_vbo(void)
{
   if (!begin(0, 0.2f, 0, 1, fs_color))
      return false;
   static const float col[] = { 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1,
                                1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 1, 1 };
   GLuint bo[3];
   glGenBuffers(3, bo);
   glBindBuffer(GL_ARRAY_BUFFER, bo[0]);
   glBufferData(GL_ARRAY_BUFFER, sizeof(tri_a), tri_a, GL_DYNAMIC_DRAW);
   glBindBuffer(GL_ARRAY_BUFFER, bo[1]);
   glBufferData(GL_ARRAY_BUFFER, sizeof(tri_b), tri_b, GL_STATIC_DRAW);
   glBindBuffer(GL_ARRAY_BUFFER, bo[2]);
   glBufferData(GL_ARRAY_BUFFER, sizeof(col), col, GL_STATIC_DRAW);
   glEnableVertexAttribArray(0);
   glEnableVertexAttribArray(1);
   glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 0, (void *)0);
   glBindBuffer(GL_ARRAY_BUFFER, bo[0]);
   glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, (void *)0);
   glDrawArrays(GL_TRIANGLES, 0, 3);
   glBindBuffer(GL_ARRAY_BUFFER, bo[1]); /* another buffer */
   glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, (void *)0);
   glDrawArrays(GL_TRIANGLES, 0, 3);
   glBindBuffer(GL_ARRAY_BUFFER, bo[2]); /* another offset of the colours */
   glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 0, (void *)(3 * 4 * sizeof(float)));
   glBindBuffer(GL_ARRAY_BUFFER, bo[0]);
   glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, (void *)0);
   /* orphaned while the first draw still reads it */
   glBufferData(GL_ARRAY_BUFFER, sizeof(tri_c), tri_c, GL_DYNAMIC_DRAW);
   glDrawArrays(GL_TRIANGLES, 0, 3);
   /* rewritten whole while the last draw reads it: the driver gives the
    * bound buffer new storage (a rename), and the next draw must read it */
   glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof(tri_d), tri_d);
   glDrawArrays(GL_TRIANGLES, 0, 3);
   glDisableVertexAttribArray(1);
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   glDeleteBuffers(3, bo);
   return true;
}

static const struct gl_case cases[] = {
   { "clear", case_clear },
   { "triangle", case_triangle },
   { "multi_draw", case_multi_draw },
   { "scissor_clear", case_scissor },
   { "depth", case_depth },
   { "blend", case_blend },
   { "texture_nearest", case_texture },
   { "texture_linear", case_texture_linear },
   { "indexed_vbo", case_indexed_vbo },
   { "cull", case_cull },
   { "shader_loop", case_shader_loop },
   { "spill", case_spill },
   { "render_to_texture", case_render_to_texture },
   { "stencil", case_stencil },
   { "points", case_points },
   { "lines", case_lines },
   { "hsr", case_hsr },
   { "state_raster", case_state_raster },
   { "state_zs", case_state_zs },
   { "state_fs", case_state_fs },
   { "state_vbo", case_state_vbo },
};

/* ---------------------------------------------------------------- GBM mode */

/* The few libgbm entry points used, resolved with dlsym (stable ABI of
 * libgbm.so.1; constants from gbm.h / drm_fourcc.h). */
struct gbm_device;
struct gbm_surface;
struct gbm_bo;
#define GBM_FMT_ARGB8888 0x34325241u /* fourcc 'AR24' */
#define GBM_USE_SCANOUT (1u << 0)
#define GBM_USE_RENDERING (1u << 2)
#define GBM_MAP_READ (1u << 0)
static struct {
   struct gbm_device *(*create_device)(int fd);
   void (*device_destroy)(struct gbm_device *);
   struct gbm_surface *(*surface_create)(struct gbm_device *, uint32_t, uint32_t, uint32_t,
                                         uint32_t);
   void (*surface_destroy)(struct gbm_surface *);
   struct gbm_bo *(*lock_front)(struct gbm_surface *);
   void (*release)(struct gbm_surface *, struct gbm_bo *);
   void *(*bo_map)(struct gbm_bo *, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
                   uint32_t *, void **);
   void (*bo_unmap)(struct gbm_bo *, void *);
   int (*bo_get_fd)(struct gbm_bo *);
   uint32_t (*bo_get_stride)(struct gbm_bo *);
   uint64_t (*bo_get_modifier)(struct gbm_bo *);
   struct gbm_bo *(*bo_import)(struct gbm_device *, uint32_t, void *, uint32_t);
   void (*bo_destroy)(struct gbm_bo *);
} gbm;

#define GBM_IMPORT_FD_MODIFIER 0x5504
struct gbm_import_fd_modifier_data {
   uint32_t width, height, format, num_fds;
   int fds[4], strides[4], offsets[4];
   uint64_t modifier;
};

static bool
load_gbm(void)
{
   void *h = dlopen("libgbm.so.1", RTLD_NOW | RTLD_GLOBAL);
   if (!h)
      return false;
#define SYM(f, n) (*(void **)&gbm.f = dlsym(h, n)) != NULL
   return SYM(create_device, "gbm_create_device") && SYM(device_destroy, "gbm_device_destroy") &&
          SYM(surface_create, "gbm_surface_create") &&
          SYM(surface_destroy, "gbm_surface_destroy") &&
          SYM(lock_front, "gbm_surface_lock_front_buffer") &&
          SYM(release, "gbm_surface_release_buffer") && SYM(bo_map, "gbm_bo_map") &&
          SYM(bo_unmap, "gbm_bo_unmap") && SYM(bo_get_fd, "gbm_bo_get_fd") &&
          SYM(bo_get_stride, "gbm_bo_get_stride") &&
          SYM(bo_get_modifier, "gbm_bo_get_modifier") && SYM(bo_import, "gbm_bo_import") &&
          SYM(bo_destroy, "gbm_bo_destroy");
#undef SYM
}

static EGLDisplay
gbm_display(const char *path, struct gbm_device **dev)
{
   int fd = open(path, O_RDWR | O_CLOEXEC);
   if (fd < 0) {
      fprintf(stderr, "gl_triangle: cannot open %s\n", path);
      return EGL_NO_DISPLAY;
   }
   *dev = gbm.create_device(fd);
   if (!*dev) {
      fprintf(stderr, "gl_triangle: gbm_create_device(%s) failed\n", path);
      return EGL_NO_DISPLAY;
   }
   PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
      (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
   EGLDisplay dpy = get_display ? get_display(EGL_PLATFORM_GBM_KHR, *dev, NULL) : EGL_NO_DISPLAY;
   if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, NULL, NULL)) {
      fprintf(stderr, "gl_triangle: no GBM EGL display on %s (0x%x)\n", path, eglGetError());
      return EGL_NO_DISPLAY;
   }
   return dpy;
}

/* The front buffer after a swap must hold what glReadPixels saw (rows
 * top-down in the BO, B,G,R,A bytes for ARGB8888). */
static bool
check_front(struct gbm_bo *bo, const unsigned char *px)
{
   uint32_t stride = 0;
   void *data = NULL;
   const unsigned char *map = gbm.bo_map(bo, 0, 0, W, H, GBM_MAP_READ, &stride, &data);
   if (!map) {
      snprintf(gl_err, sizeof(gl_err), "gbm_bo_map of the front buffer failed");
      return false;
   }
   bool ok = true;
   for (int y = 0; y < H && ok; y++) {
      for (int x = 0; x < W && ok; x++) {
         const unsigned char *b = map + (size_t)y * stride + 4 * x;
         const unsigned char *g = px + 4 * ((H - 1 - y) * W + x);
         if (b[2] != g[0] || b[1] != g[1] || b[0] != g[2] || b[3] != g[3]) {
            snprintf(gl_err, sizeof(gl_err),
                     "front buffer differs from glReadPixels at (%d,%d): %02x%02x%02x%02x vs "
                     "%02x%02x%02x%02x (stride %u)", x, y, b[2], b[1], b[0], b[3], g[0], g[1],
                     g[2], g[3], stride);
            ok = false;
         }
      }
   }
   gbm.bo_unmap(bo, data);
   return ok;
}

/* Import the dma-buf on a second display (another DRM file) and sample it
 * into an FBO there; the result must equal ref (the first readback). */
static bool
prime_check(const char *path2, int fd, uint32_t stride, uint64_t modifier,
            const unsigned char *ref)
{
   struct gbm_device *dev2;
   EGLDisplay dpy = gbm_display(path2, &dev2);
   if (dpy == EGL_NO_DISPLAY) {
      snprintf(gl_err, sizeof(gl_err), "no EGL display on %s", path2);
      return false;
   }
   static const EGLint ctx_attr[] = { EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE };
   EGLContext ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, ctx_attr);
   if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
      snprintf(gl_err, sizeof(gl_err), "no context on %s (0x%x)", path2, eglGetError());
      return false;
   }
   printf("prime renderer %s\n", glGetString(GL_RENDERER));
   /* CPU view first: gbm_bo_import on the second file + gbm_bo_map */
   struct gbm_import_fd_modifier_data imp = {
      .width = W, .height = H, .format = GBM_FMT_ARGB8888, .num_fds = 1,
      .fds = { fd }, .strides = { (int)stride }, .modifier = modifier,
   };
   struct gbm_bo *ibo = gbm.bo_import(dev2, GBM_IMPORT_FD_MODIFIER, &imp, GBM_USE_RENDERING);
   if (!ibo) {
      snprintf(gl_err, sizeof(gl_err), "gbm_bo_import of the dma-buf failed");
      return false;
   }
   bool cpu_ok = check_front(ibo, ref);
   gbm.bo_destroy(ibo);
   if (!cpu_ok) {
      char e[sizeof(gl_err)];
      snprintf(e, sizeof(e), "imported BO (CPU map): %s", gl_err);
      snprintf(gl_err, sizeof(gl_err), "%s", e);
      return false;
   }
   printf("prime cpu ok\n");
   EGLint attr[] = {
      EGL_WIDTH, W, EGL_HEIGHT, H, EGL_LINUX_DRM_FOURCC_EXT, (EGLint)GBM_FMT_ARGB8888,
      EGL_DMA_BUF_PLANE0_FD_EXT, fd, EGL_DMA_BUF_PLANE0_OFFSET_EXT, 0,
      EGL_DMA_BUF_PLANE0_PITCH_EXT, (EGLint)stride,
      EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT, (EGLint)(modifier & 0xffffffff),
      EGL_DMA_BUF_PLANE0_MODIFIER_HI_EXT, (EGLint)(modifier >> 32), EGL_NONE,
   };
   PFNEGLCREATEIMAGEKHRPROC create_image =
      (PFNEGLCREATEIMAGEKHRPROC)eglGetProcAddress("eglCreateImageKHR");
   PFNGLEGLIMAGETARGETTEXTURE2DOESPROC target_tex =
      (PFNGLEGLIMAGETARGETTEXTURE2DOESPROC)eglGetProcAddress("glEGLImageTargetTexture2DOES");
   EGLImageKHR img = create_image ? create_image(dpy, EGL_NO_CONTEXT, EGL_LINUX_DMA_BUF_EXT,
                                                 NULL, attr)
                                  : EGL_NO_IMAGE_KHR;
   if (img == EGL_NO_IMAGE_KHR || !target_tex) {
      snprintf(gl_err, sizeof(gl_err), "dma-buf import failed (0x%x)", eglGetError());
      return false;
   }
   GLuint tex, fbo;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   target_tex(GL_TEXTURE_2D, img);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   const GLuint color = gl_texture_rgba(W, H, NULL, GL_NEAREST);
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, color, 0);
   glViewport(0, 0, W, H);
   glBindTexture(GL_TEXTURE_2D, tex);
   if (!gl_program(vs_color, fs_tex))
      return false;
   /* texcoords per quad_pos vertex (bottom-left, bottom-right, top-left,
    * top-right): the window-system image is stored top row first, so t = 0
    * is the top of the rendered picture */
   static const float uv[] = { 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0 };
   draw(GL_TRIANGLE_STRIP, quad_pos, uv, 4);
   static unsigned char px[W * H * 4];
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   if (glGetError() != GL_NO_ERROR) {
      snprintf(gl_err, sizeof(gl_err), "GL error on the importing context");
      return false;
   }
   gl_save_image(outdir, "prime", px, W, H); /* for a look only */
   for (int i = 0; i < W * H; i++) {
      if (memcmp(px + 4 * i, ref + 4 * i, 3)) {
         snprintf(gl_err, sizeof(gl_err),
                  "imported image differs at (%d,%d): %02x%02x%02x vs %02x%02x%02x", i % W,
                  i / W, px[4 * i], px[4 * i + 1], px[4 * i + 2], ref[4 * i], ref[4 * i + 1],
                  ref[4 * i + 2]);
         return false;
      }
   }
   eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
   eglTerminate(dpy);
   return true;
}

/* ---------------------------------------------------------------- main */

int
main(int argc, char **argv)
{
   const unsigned ncases = sizeof(cases) / sizeof(cases[0]);
   if (argc == 4 && !strcmp(argv[1], "--compare"))
      return gl_compare_ppm(argv[2], argv[3]);
   if (gl_list_cases(argc, argv, cases, ncases, false))
      return 0;
   const char *gbm_dev = NULL, *prime_dev = NULL;
   int a0 = 1;
   if (argc > 3 && !strcmp(argv[1], "--gbm")) {
      gbm_dev = argv[2];
      a0 = 3;
      if (argc > 5 && !strcmp(argv[3], "--prime")) {
         prime_dev = argv[4];
         a0 = 5;
      }
   }
   if (argc <= a0) {
      fprintf(stderr, "usage: %s [--gbm DEVICE [--prime DEVICE2]] OUTDIR [CASE...] | "
              "--compare REF TEST | --list\n", argv[0]);
      return 2;
   }
   outdir = argv[a0];

   EGLDisplay dpy;
   struct gbm_device *gdev = NULL;
   struct gbm_surface *gsurf = NULL;
   EGLSurface surf = EGL_NO_SURFACE;
   EGLConfig config = EGL_NO_CONFIG_KHR;
   if (gbm_dev) {
      if (!load_gbm()) {
         fprintf(stderr, "gl_triangle: cannot load libgbm.so.1\n");
         return 3;
      }
      dpy = gbm_display(gbm_dev, &gdev);
      if (dpy == EGL_NO_DISPLAY)
         return 3;
      /* an ARGB8888 window config with depth (the FBO mode has a 16-bit
       * depth buffer) and stencil (for the stencil case) */
      static const EGLint cfg_attr[] = { EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RED_SIZE, 8,
                                         EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
                                         EGL_DEPTH_SIZE, 16, EGL_STENCIL_SIZE, 8,
                                         EGL_RENDERABLE_TYPE,
                                         EGL_OPENGL_ES2_BIT, EGL_NONE };
      EGLConfig cfgs[64];
      EGLint n = 0;
      eglChooseConfig(dpy, cfg_attr, cfgs, 64, &n);
      for (EGLint i = 0; i < n && config == EGL_NO_CONFIG_KHR; i++) {
         EGLint vid = 0;
         eglGetConfigAttrib(dpy, cfgs[i], EGL_NATIVE_VISUAL_ID, &vid);
         if ((uint32_t)vid == GBM_FMT_ARGB8888)
            config = cfgs[i];
      }
      gsurf = gbm.surface_create(gdev, W, H, GBM_FMT_ARGB8888, GBM_USE_SCANOUT | GBM_USE_RENDERING);
      if (config != EGL_NO_CONFIG_KHR && gsurf)
         surf = eglCreateWindowSurface(dpy, config, (EGLNativeWindowType)gsurf, NULL);
      if (surf == EGL_NO_SURFACE) {
         fprintf(stderr, "gl_triangle: no ARGB8888 GBM window surface (%d configs, 0x%x)\n", n,
                 eglGetError());
         return 3;
      }
   } else {
      dpy = gl_display();
      if (dpy == EGL_NO_DISPLAY)
         return 3;
   }
   eglBindAPI(EGL_OPENGL_ES_API);
   static const EGLint ctx_attr[] = { EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE };
   EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, ctx_attr);
   if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, surf, surf, ctx)) {
      fprintf(stderr, "gl_triangle: cannot create/bind a GLES2 context (0x%x)\n", eglGetError());
      return 3;
   }
   printf("renderer %s | %s\n", glGetString(GL_RENDERER), glGetString(GL_VERSION));

   GLuint fbo = 0;
   if (!gbm_dev) {
      glGenFramebuffers(1, &fbo);
      glBindFramebuffer(GL_FRAMEBUFFER, fbo);
      GLuint color = gl_texture_rgba(W, H, NULL, GL_NEAREST);
      glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, color, 0);
      gl_depth_buffer(GL_DEPTH_COMPONENT16, GL_DEPTH_ATTACHMENT, W, H);
      GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
      if (st != GL_FRAMEBUFFER_COMPLETE) {
         fprintf(stderr, "gl_triangle: FBO incomplete (0x%x)\n", st);
         return 3;
      }
   }

   int failed = 0;
   for (unsigned i = 0; i < ncases; i++) {
      if (!gl_case_wanted(argc, argv, a0 + 1, cases[i].name))
         continue;
      gl_err[0] = 0;
      glBindFramebuffer(GL_FRAMEBUFFER, fbo);
      glViewport(0, 0, W, H);
      glUseProgram(0);
      bool ok = cases[i].fn();
      static unsigned char px[W * H * 4];
      memset(px, 0, sizeof(px));
      glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
      GLenum err = glGetError();
      if (ok && err != GL_NO_ERROR) {
         snprintf(gl_err, sizeof(gl_err), "GL error 0x%x", err);
         ok = false;
      }
      if (!gl_save_image(outdir, cases[i].name, px, W, H))
         ok = false;
      if (gbm_dev) {
         struct gbm_bo *bo = NULL;
         if (!eglSwapBuffers(dpy, surf) || !(bo = gbm.lock_front(gsurf))) {
            snprintf(gl_err, sizeof(gl_err), "swap/lock_front_buffer failed (0x%x)", eglGetError());
            ok = false;
         } else if (ok) {
            ok = check_front(bo, px);
         }
         if (bo)
            gbm.release(gsurf, bo);
      }
      if (ok)
         printf("case %s ok\n", cases[i].name);
      else
         printf("case %s error: %s\n", cases[i].name, gl_err);
      fflush(stdout);
      failed += !ok;
   }
   if (prime_dev) {
      /* the triangle once more; its front buffer goes to the other file */
      gl_err[0] = 0;
      static unsigned char ref[W * H * 4];
      glBindFramebuffer(GL_FRAMEBUFFER, 0);
      glViewport(0, 0, W, H);
      glUseProgram(0);
      bool ok = case_triangle();
      glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, ref);
      struct gbm_bo *bo = NULL;
      if (ok && (!eglSwapBuffers(dpy, surf) || !(bo = gbm.lock_front(gsurf)))) {
         snprintf(gl_err, sizeof(gl_err), "swap/lock_front_buffer failed");
         ok = false;
      }
      int fd = bo ? gbm.bo_get_fd(bo) : -1;
      if (ok && fd < 0) {
         snprintf(gl_err, sizeof(gl_err), "gbm_bo_get_fd failed");
         ok = false;
      }
      if (ok) {
         printf("prime export fd stride %u modifier 0x%llx\n", gbm.bo_get_stride(bo),
                (unsigned long long)gbm.bo_get_modifier(bo));
         ok = prime_check(prime_dev, fd, gbm.bo_get_stride(bo), gbm.bo_get_modifier(bo), ref);
      }
      if (ok)
         printf("prime ok\n");
      else
         printf("prime error: %s\n", gl_err);
      failed += !ok;
      if (fd >= 0)
         close(fd);
      eglMakeCurrent(dpy, surf, surf, ctx);
      if (bo)
         gbm.release(gsurf, bo);
   }
   eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
   eglDestroyContext(dpy, ctx);
   if (surf != EGL_NO_SURFACE)
      eglDestroySurface(dpy, surf);
   eglTerminate(dpy);
   if (gsurf)
      gbm.surface_destroy(gsurf);
   if (gdev)
      gbm.device_destroy(gdev);
   return failed ? 1 : 0;
}
