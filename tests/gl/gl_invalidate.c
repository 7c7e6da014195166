/* SPDX-License-Identifier: MIT */
/*
 * gl_invalidate: glInvalidateFramebuffer of a depth/stencil attachment.
 * The driver then neither stores the depth/stencil buffer at the end of the
 * pass nor loads it in the next one (a window system's depth buffer is
 * invalidated at every swap), but a clear or a draw after the invalidation
 * writes it again, and that must be stored and loaded as usual.  Each case
 * draws into a 64x64 FBO with an RGBA8 colour texture and a DEPTH24_STENCIL8
 * renderbuffer and checks every pixel (exact colours).  Prints
 * "case NAME ok" or "case NAME error: ..." (tests/gl/run, which also runs
 * the discard case with VAGX_DEBUG=trace: its two passes must show
 * depth_store: 0 and stencil_store: 0, the second also depth_load: 0 and
 * stencil_load: 0).  A pass that never uses the stencil leaves it in memory
 * (stencil_kept).
 *
 *   gl_invalidate [CASE...] | --list
 */
#include "gl_desktop.h"
#include <stdint.h>
#include <stdlib.h>

#define W 64
#define H 64

static const char *vs_src =
   "#version 120\n"
   "attribute vec2 pos;\n"
   "uniform float z;\n"
   "void main() { gl_Position = vec4(pos, z, 1.0); }\n";
static const char *fs_src =
   "#version 120\n"
   "uniform vec4 color;\n"
   "void main() { gl_FragColor = color; }\n";

static GLuint prog;
static unsigned char px[W * H * 4];

/* A full-screen quad of `color` at NDC depth z (window depth z/2 + 1/2). */
static void
quad(float z, float r, float g, float b)
{
   static const float v[] = { -1, -1, 1, -1, -1, 1, 1, 1 };
   glUniform1f(glGetUniformLocation(prog, "z"), z);
   glUniform4f(glGetUniformLocation(prog, "color"), r, g, b, 1);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, v);
   glEnableVertexAttribArray(0);
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

static void
invalidate_depth(void)
{
   static const GLenum att[] = { GL_DEPTH_STENCIL_ATTACHMENT };
   glInvalidateFramebuffer(GL_FRAMEBUFFER, 1, att);
}

/* Every pixel is (r, g, b, 255)? */
static bool
all_pixels(uint8_t r, uint8_t g, uint8_t b, const char *what)
{
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   for (int i = 0; i < W * H; i++) {
      const unsigned char *p = px + 4 * i;
      if (p[0] != r || p[1] != g || p[2] != b || p[3] != 255) {
         snprintf(gl_err, sizeof(gl_err), "%s: pixel (%d, %d) is %u,%u,%u,%u, expected %u,%u,%u,255",
                  what, i % W, i / W, p[0], p[1], p[2], p[3], r, g, b);
         return false;
      }
   }
   return true;
}

/* Clears, then draws depth 0.25 everywhere (red). */
static void
draw_depth_quarter(void)
{
   glDepthMask(GL_TRUE);
   glDepthFunc(GL_LESS);
   glClearColor(0, 0, 0, 1);
   glClearDepth(1.0);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   quad(-0.5f, 1, 0, 0);
}

/* The same, stored by a finished pass. */
static void
depth_quarter(void)
{
   draw_depth_quarter();
   glFinish();
}

/* In later passes without a clear (depth writes off), the depth buffer
 * must read 0.75 everywhere: above 0.5 (a quad there passes LESS) and below
 * 0.875 (a quad there passes GREATER).  Neither the 0.25 written before the
 * invalidation nor the far plane an unloaded buffer starts at passes both. */
static bool
depth_is_three_quarters(const char *what)
{
   char w[128];
   glDepthMask(GL_FALSE);
   glDepthFunc(GL_LESS);
   quad(0.0f, 0, 1, 0);
   snprintf(w, sizeof(w), "%s: quad at 0.5, LESS", what);
   if (!all_pixels(0, 255, 0, w))
      return false;
   glDepthFunc(GL_GREATER);
   quad(0.75f, 0, 0, 1);
   snprintf(w, sizeof(w), "%s: quad at 0.875, GREATER", what);
   const bool ok = all_pixels(0, 0, 255, w);
   glDepthFunc(GL_LESS);
   glDepthMask(GL_TRUE);
   return ok;
}

/* Invalidated, then cleared to 0.75: the clear must be stored and loaded. */
static bool
keep_after_clear(void)
{
   depth_quarter();
   invalidate_depth();
   glClearDepth(0.75);
   glClear(GL_DEPTH_BUFFER_BIT);
   glFinish();
   return depth_is_three_quarters("after a clear to 0.75");
}

/* Invalidated, then 0.75 written by a draw (ALWAYS): stored and loaded. */
static bool
keep_after_draw(void)
{
   depth_quarter();
   invalidate_depth();
   glDepthFunc(GL_ALWAYS);
   quad(0.5f, 0, 0, 1);
   glFinish();
   return depth_is_three_quarters("after a draw at 0.75");
}

/* Drawn with depth, invalidated, finished: that pass stores no depth or
 * stencil; the next one clears only colour and draws without a depth test:
 * it loads no depth or stencil (undefined) and stores none (still
 * undefined).  The trace check is tests/gl/run's; the colour must be right. */
static bool
discard(void)
{
   draw_depth_quarter();
   invalidate_depth();
   glFinish();
   glDisable(GL_DEPTH_TEST);
   glClear(GL_COLOR_BUFFER_BIT);
   quad(0.0f, 1, 1, 0);
   glFinish();
   glEnable(GL_DEPTH_TEST);
   return all_pixels(255, 255, 0, "colour pass after the invalidation");
}

/* A pass that neither tests nor writes stencil and clears only colour and
 * depth leaves the stencil in memory (the driver neither loads nor stores
 * it; the device's depth-only store keeps the stencil bytes): stencil 5 is
 * written to the left half, a depth-only pass follows, and a third pass
 * drawing where stencil == 5 must colour exactly the left half. */
static bool
stencil_kept(void)
{
   glClearColor(0, 0, 0, 1);
   glClearDepth(1.0);
   glClearStencil(0);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
   glEnable(GL_STENCIL_TEST);
   glStencilFunc(GL_ALWAYS, 5, 0xff);
   glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
   glEnable(GL_SCISSOR_TEST);
   glScissor(0, 0, W / 2, H);
   quad(0.0f, 1, 0, 0);
   glDisable(GL_SCISSOR_TEST);
   glFinish();
   /* depth only */
   glDisable(GL_STENCIL_TEST);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   quad(-0.5f, 0, 0, 1);
   glFinish();
   /* where stencil is 5 */
   glDisable(GL_DEPTH_TEST);
   glEnable(GL_STENCIL_TEST);
   glStencilFunc(GL_EQUAL, 5, 0xff);
   glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
   glClear(GL_COLOR_BUFFER_BIT);
   quad(0.0f, 0, 1, 0);
   glDisable(GL_STENCIL_TEST);
   glEnable(GL_DEPTH_TEST);
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   for (int i = 0; i < W * H; i++) {
      const unsigned char *p = px + 4 * i;
      const unsigned g = i % W < W / 2 ? 255 : 0;
      if (p[0] != 0 || p[1] != g || p[2] != 0 || p[3] != 255) {
         snprintf(gl_err, sizeof(gl_err),
                  "pixel (%d, %d) is %u,%u,%u,%u, expected 0,%u,0,255 (stencil %s)", i % W,
                  i / W, p[0], p[1], p[2], p[3], g, g ? "5 lost" : "0 changed");
         return false;
      }
   }
   return true;
}

static const struct gl_case cases[] = {
   { "keep_after_clear", keep_after_clear },
   { "keep_after_draw", keep_after_draw },
   { "discard", discard },
   { "stencil_kept", stencil_kept },
};

/* the program and a colour + depth/stencil framebuffer, depth test on */
static bool
setup(void)
{
   prog = gl_program(vs_src, fs_src);
   if (!prog)
      return false;
   if (!gl_target_fbo(W, H))
      GL_FAIL("no framebuffer");
   gl_depth_buffer(GL_DEPTH24_STENCIL8, GL_DEPTH_STENCIL_ATTACHMENT, W, H);
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      GL_FAIL("depth/stencil framebuffer incomplete");
   glEnable(GL_DEPTH_TEST);
   return true;
}

int
main(int argc, char **argv)
{
   static const struct gl_suite suite = {
      .cases = cases, .n = sizeof(cases) / sizeof(cases[0]), .setup = setup,
   };
   return gl_run(argc, argv, &suite);
}
