/* SPDX-License-Identifier: MIT */
/*
 * gl_sample_shading OUTDIR [CASE...]: GL_ARB_sample_shading on a 4X
 * target (desktop GL compatibility context, EGL surfaceless).  Each case
 * draws one full-screen quad into an 8x8 4X texture, then copies every
 * sample apart (texelFetch of the sampler2DMS) into a 32x8 RGBA8 image,
 * sample s of pixel (x, y) at (4x + s, y), and checks every sample's exact
 * value against what this file computes from GL's rules and the standard
 * 4X pattern, (6,2) (14,6) (2,10) (10,14) in 1/16 pixel (GL_SAMPLE_POSITION
 * must say the same):
 *   per_pixel        no sample shading: the varying at the pixel centre
 *   min_shading_1    glMinSampleShading(1.0): at each sample's position
 *   min_shading_quarter  0.25 x 4 samples = 1 invocation: per pixel
 *   min_shading_half 0.5: at least 2 invocations; every sample holds the
 *                    value at one of its pixel's sample positions or the
 *                    centre, and the pixel has 2 or more distinct values
 *   sample_id        gl_SampleID (per-sample shading without the enable)
 *   sample_position  gl_SamplePosition, and GL_SAMPLE_POSITION
 *   sample_mask      gl_SampleMask: odd columns keep samples 0 and 2, even
 *                    columns samples 1 and 3; the others keep the clear colour
 * The varying is the window position times 16/255, so the value at sample s
 * of pixel x is (16x + 16 sx_s) / 255: exact in unorm8.  tests/gl/run runs
 * it on llvmpipe (softpipe has no MSAA) and on vagx and compares the images.
 */
#include "gl_desktop.h"
#include <stdint.h>
#include <stdlib.h>

#define W 8
#define H 8
#define OW (4 * W)

static unsigned char px[OW * H * 4];

/* the standard 4X pattern in 1/16 pixel */
static const int pat[4][2] = { { 6, 2 }, { 14, 6 }, { 2, 10 }, { 10, 14 } };

static const char *vs_src =
   "#version 130\n"
   "in vec2 pos;\n"
   "out vec2 p;\n"
   "void main() {\n"
   "   gl_Position = vec4(pos, 0.0, 1.0);\n"
   "   p = (pos * 0.5 + 0.5) * vec2(8.0, 8.0);\n"
   "}\n";

#define FS_HEAD                                                                      \
   "#version 130\n"                                                                  \
   "#extension GL_ARB_sample_shading : require\n"                                    \
   "in vec2 p;\n"

static const char *fs_varying = FS_HEAD
   "void main() { gl_FragColor = vec4(p * 16.0 / 255.0, 0.0, 1.0); }\n";

/* the samples of the 4X texture side by side */
static const char *unpack_vs =
   "#version 130\n"
   "in vec2 pos;\n"
   "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";
static const char *unpack_fs =
   "#version 130\n"
   "#extension GL_ARB_texture_multisample : require\n"
   "uniform sampler2DMS ms;\n"
   "void main() {\n"
   "   ivec2 c = ivec2(gl_FragCoord.xy);\n"
   "   gl_FragColor = texelFetch(ms, ivec2(c.x / 4, c.y), c.x % 4);\n"
   "}\n";

static GLuint ms_tex, ms_fbo, out_tex, out_fbo, quad, unpack;

static bool
setup(void)
{
   if (!gl_has_ext("GL_ARB_sample_shading"))
      GL_FAIL("skip: no GL_ARB_sample_shading");
   if (!gl_has_ext("GL_ARB_texture_multisample"))
      GL_FAIL("GL_ARB_texture_multisample missing");
   GLint max = 0;
   glGetIntegerv(GL_MAX_SAMPLES, &max);
   if (max < 4)
      GL_FAIL("GL_MAX_SAMPLES %d", max);
   glGenTextures(1, &ms_tex);
   glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, ms_tex);
   glTexImage2DMultisample(GL_TEXTURE_2D_MULTISAMPLE, 4, GL_RGBA8, W, H, GL_TRUE);
   glGenFramebuffers(1, &ms_fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, ms_fbo);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D_MULTISAMPLE, ms_tex,
                          0);
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      GL_FAIL("4X framebuffer incomplete");
   GLint samples = 0;
   glGetIntegerv(GL_SAMPLES, &samples);
   if (samples != 4)
      GL_FAIL("GL_SAMPLES %d, want 4", samples);
   if (!gl_color_target(GL_RGBA8, OW, H, &out_tex, &out_fbo))
      GL_FAIL("output framebuffer incomplete");
   static const float xy[] = { -1, -1, 1, -1, -1, 1, 1, 1 };
   quad = gl_pos_buffer(xy, sizeof(xy));
   unpack = gl_program(unpack_vs, unpack_fs);
   return unpack != 0;
}

/* Draws the quad with fs into the 4X texture cleared to (1, 0, 0, 1), with
 * sample shading at `min` (0: disabled), then unpacks its samples into the
 * output image, which stays bound for the readback */
static bool
draw(const char *fs, float min)
{
   GLuint p = gl_program(vs_src, fs);
   if (!p)
      return false;
   glBindFramebuffer(GL_FRAMEBUFFER, ms_fbo);
   glViewport(0, 0, W, H);
   glClearColor(1, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   if (min > 0) {
      glEnable(GL_SAMPLE_SHADING);
      glMinSampleShading(min);
   }
   glBindBuffer(GL_ARRAY_BUFFER, quad);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (void *)0);
   glEnableVertexAttribArray(0);
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
   glDisable(GL_SAMPLE_SHADING);
   glMinSampleShading(0);
   glBindFramebuffer(GL_FRAMEBUFFER, out_fbo);
   glViewport(0, 0, OW, H);
   glUseProgram(unpack);
   glUniform1i(glGetUniformLocation(unpack, "ms"), 0);
   glActiveTexture(GL_TEXTURE0);
   glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, ms_tex);
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
   glReadPixels(0, 0, OW, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
   glUseProgram(0);
   glDeleteProgram(p);
   return gl_check_error("draw");
}

static const unsigned char *
sample_px(int x, int y, int s)
{
   return &px[(y * OW + 4 * x + s) * 4];
}

/* where sample s of pixel (x, y) interpolates the varying: position k of
 * the pattern, 4 = the centre; the value there, as unorm8 */
static void
value_at(int x, int y, int k, unsigned char out[4])
{
   out[0] = 16 * x + (k < 4 ? pat[k][0] : 8);
   out[1] = 16 * y + (k < 4 ? pat[k][1] : 8);
   out[2] = 0;
   out[3] = 255;
}

/* Every sample of every pixel against want(x, y, s) */
static bool
check_samples(void (*want_fn)(int x, int y, int s, unsigned char out[4]))
{
   for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
         for (int s = 0; s < 4; s++) {
            unsigned char want[4];
            want_fn(x, y, s, want);
            const unsigned char *got = sample_px(x, y, s);
            if (memcmp(got, want, 4))
               GL_FAIL("pixel (%d,%d) sample %d: (%u %u %u %u), want (%u %u %u %u)", x, y, s,
                       got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
         }
   return true;
}

/* the varying at the sample's own position, and at the centre */
static void
want_at_sample(int x, int y, int s, unsigned char out[4])
{
   value_at(x, y, s, out);
}

static void
want_at_centre(int x, int y, int s, unsigned char out[4])
{
   value_at(x, y, 4, out);
}

static bool
check_positions(bool per_sample)
{
   return check_samples(per_sample ? want_at_sample : want_at_centre);
}

static bool
case_per_pixel(void)
{
   return draw(fs_varying, 0) && check_positions(false);
}

static bool
case_min_shading_1(void)
{
   return draw(fs_varying, 1.0f) && check_positions(true);
}

static bool
case_min_shading_quarter(void)
{
   return draw(fs_varying, 0.25f) && check_positions(false);
}

static bool
case_min_shading_half(void)
{
   if (!draw(fs_varying, 0.5f))
      return false;
   for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
         unsigned distinct = 0;
         for (int s = 0; s < 4; s++) {
            const unsigned char *got = sample_px(x, y, s);
            bool known = false;
            for (int k = 0; k <= 4 && !known; k++) {
               unsigned char v[4];
               value_at(x, y, k, v);
               known = !memcmp(got, v, 4);
            }
            if (!known)
               GL_FAIL("pixel (%d,%d) sample %d: (%u %u %u %u) is no sample's value", x, y, s,
                       got[0], got[1], got[2], got[3]);
            bool seen = false;
            for (int t = 0; t < s; t++)
               seen |= !memcmp(got, sample_px(x, y, t), 4);
            distinct += !seen;
         }
         if (distinct < 2)
            GL_FAIL("pixel (%d,%d): one value in all samples (one invocation, want 2+)", x, y);
      }
   return true;
}

/* gl_SampleID * 64 in red */
static void
want_sample_id(int x, int y, int s, unsigned char out[4])
{
   const unsigned char v[4] = { 64 * s, 0, 0, 255 };
   memcpy(out, v, 4);
}

static bool
case_sample_id(void)
{
   static const char *fs = FS_HEAD
      "void main() { gl_FragColor = vec4(float(gl_SampleID) * 64.0 / 255.0, 0.0, 0.0, 1.0); }\n";
   return draw(fs, 0) && check_samples(want_sample_id);
}

/* gl_SamplePosition * 16: the pattern */
static void
want_sample_position(int x, int y, int s, unsigned char out[4])
{
   const unsigned char v[4] = { pat[s][0], pat[s][1], 0, 255 };
   memcpy(out, v, 4);
}

static bool
case_sample_position(void)
{
   for (int s = 0; s < 4; s++) {
      GLfloat v[2] = { -1, -1 };
      glBindFramebuffer(GL_FRAMEBUFFER, ms_fbo);
      glGetMultisamplefv(GL_SAMPLE_POSITION, s, v);
      if (v[0] != pat[s][0] / 16.0f || v[1] != pat[s][1] / 16.0f)
         GL_FAIL("GL_SAMPLE_POSITION %d = (%g, %g), want (%g, %g)", s, v[0], v[1],
                 pat[s][0] / 16.0, pat[s][1] / 16.0);
   }
   static const char *fs = FS_HEAD
      "void main() { gl_FragColor = vec4(gl_SamplePosition * 16.0 / 255.0, 0.0, 1.0); }\n";
   return draw(fs, 0) && check_samples(want_sample_position);
}

/* odd columns keep samples 0 and 2 (green), even ones 1 and 3; the others
 * the clear red */
static void
want_sample_mask(int x, int y, int s, unsigned char out[4])
{
   const bool kept = ((x & 1) ? 0x5 : 0xa) >> s & 1;
   const unsigned char v[4] = { kept ? 0 : 255, kept ? 255 : 0, 0, 255 };
   memcpy(out, v, 4);
}

static bool
case_sample_mask(void)
{
   static const char *fs = FS_HEAD
      "void main() {\n"
      "   gl_SampleMask[0] = (int(p.x) & 1) != 0 ? 0x5 : 0xa;\n"
      "   gl_FragColor = vec4(0.0, 1.0, 0.0, 1.0);\n"
      "}\n";
   return draw(fs, 0) && check_samples(want_sample_mask);
}

static const struct gl_case cases[] = {
   { "per_pixel", case_per_pixel },
   { "min_shading_1", case_min_shading_1 },
   { "min_shading_quarter", case_min_shading_quarter },
   { "min_shading_half", case_min_shading_half },
   { "sample_id", case_sample_id },
   { "sample_position", case_sample_position },
   { "sample_mask", case_sample_mask },
};

int
main(int argc, char **argv)
{
   static const struct gl_suite suite = {
      .cases = cases, .n = sizeof(cases) / sizeof(cases[0]), .outdir = true, .setup = setup,
      .px = px, .readback = true, .w = OW, .h = H,
   };
   return gl_run(argc, argv, &suite);
}
