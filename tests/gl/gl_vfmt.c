/* SPDX-License-Identifier: MIT */
/*
 * gl_vfmt OUTDIR [CASE...]: vertex attribute formats (desktop GL
 * compatibility context, EGL surfaceless).  vagx fetches 8- and 16-bit
 * formats, half floats, BGRA8 and the packed 2_10_10_10 / 10F_11F_11F
 * formats in the vertex shader (userspace/mesa/src/vagx/compiler/
 * vagx_lower_vertex.c) instead of letting u_vbuf convert them.
 *
 * The fetch cases capture what the vertex shader reads (transform feedback
 * of a vec4 / ivec4 / uvec4 copy of the attribute, rasterizer discard) for
 * vertices whose bytes this file chooses, and compare every component with
 * the value GL's rules give (GL 4.6 10.3.5 / table 10.8, computed here):
 * unsigned normalized c / (2^b - 1), signed normalized max(c / (2^(b-1) - 1),
 * -1) (so -128 and -127 are both -1), scaled and integer values as they are
 * (sign-extended), half floats, the BGRA orderings, missing components
 * (0, 0, 0, 1).  Normalized values may differ from the quotient by 1 ulp
 * (a division is a multiplication by the reciprocal); the rest is exact.
 * Elements sit at odd offsets and strides where GL allows it (8-bit: any
 * byte; the buffer ends where the last element ends).
 * The draw case draws an 8x8 grid of cells whose corners are SNORM16
 * positions and whose colours are RGBA8, BGRA8 and 2_10_10_10 attributes;
 * it checks the cells' centres and tests/gl/run compares its image with
 * llvmpipe's.
 */
#include "gl_desktop.h"
#include "gl_cells.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define W 64
#define H 64
#define NV 6 /* vertices per fetch case */

static unsigned char px[W * H * 4];

enum kind { K_FLOAT, K_INT, K_UINT };

static const char *vs_src[3] = {
   "#version 130\n"
   "in vec4 attr;\n"
   "out vec4 v;\n"
   "void main() { v = attr; gl_Position = vec4(0.0, 0.0, 0.0, 1.0); }\n",
   "#version 130\n"
   "in ivec4 attr;\n"
   "flat out ivec4 v;\n"
   "void main() { v = attr; gl_Position = vec4(0.0, 0.0, 0.0, 1.0); }\n",
   "#version 130\n"
   "in uvec4 attr;\n"
   "flat out uvec4 v;\n"
   "void main() { v = attr; gl_Position = vec4(0.0, 0.0, 0.0, 1.0); }\n",
};
static GLuint xfb_prog[3], xfb_buf;

/* one fetch case: glVertexAttrib(I)Pointer(1, size, type, normalized, stride,
 * offset) over NV vertices */
struct fetch {
   GLint size; /* 1..4 or GL_BGRA */
   GLenum type;
   bool normalized;
   enum kind kind;
   unsigned offset, stride;
};

static unsigned
type_bytes(GLenum type)
{
   switch (type) {
   case GL_BYTE: case GL_UNSIGNED_BYTE: return 1;
   case GL_SHORT: case GL_UNSIGNED_SHORT: case GL_HALF_FLOAT: return 2;
   default: return 4;
   }
}

static bool
packed(GLenum type)
{
   return type == GL_INT_2_10_10_10_REV || type == GL_UNSIGNED_INT_2_10_10_10_REV ||
          type == GL_UNSIGNED_INT_10F_11F_11F_REV;
}

static unsigned
elem_bytes(const struct fetch *f)
{
   return packed(f->type) ? 4 : type_bytes(f->type) * (f->size == GL_BGRA ? 4 : f->size);
}

/* half / unsigned 11- and 10-bit floats to float (GL 4.6 2.3.4) */
static float
small_float(uint32_t bits, unsigned ebits, unsigned mbits, bool sign)
{
   const uint32_t e = (bits >> mbits) & ((1u << ebits) - 1), m = bits & ((1u << mbits) - 1);
   const int bias = (1 << (ebits - 1)) - 1;
   float v;
   if (e == 0)
      v = ldexpf((float)m, 1 - bias - (int)mbits);
   else if (e == (1u << ebits) - 1)
      v = m ? NAN : INFINITY;
   else
      v = ldexpf((float)(m | (1u << mbits)), (int)e - bias - (int)mbits);
   return sign && (bits >> (ebits + mbits)) & 1 ? -v : v;
}

/* A normalized or scaled integer component c of b bits to the attribute's
 * value bits (float, or the integer itself for the I kinds) */
static uint32_t
int_value(const struct fetch *f, int64_t c, unsigned b, bool is_signed)
{
   union { float f; uint32_t u; } r;
   if (f->kind != K_FLOAT)
      return (uint32_t)c;
   if (!f->normalized)
      r.f = (float)c;
   else if (is_signed)
      r.f = fmaxf((float)((double)c / ((1 << (b - 1)) - 1)), -1.0f);
   else
      r.f = (float)((double)c / ((1u << b) - 1));
   return r.u;
}

static int64_t
sext(uint32_t v, unsigned b)
{
   return (int64_t)(int32_t)(v << (32 - b)) >> (32 - b);
}

/* What GL makes of the element at p: 4 value bits (floats as bits) */
static void
expected(const struct fetch *f, const unsigned char *p, uint32_t out[4])
{
   union { float f; uint32_t u; } one = { .f = 1.0f };
   out[0] = out[1] = out[2] = 0;
   out[3] = f->kind == K_FLOAT ? one.u : 1;
   if (f->type == GL_INT_2_10_10_10_REV || f->type == GL_UNSIGNED_INT_2_10_10_10_REV) {
      const uint32_t w = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
      const bool s = f->type == GL_INT_2_10_10_10_REV;
      const unsigned shift[4] = { 0, 10, 20, 30 }, bits[4] = { 10, 10, 10, 2 };
      uint32_t c[4];
      for (int i = 0; i < 4; i++) {
         uint32_t raw = (w >> shift[i]) & ((1u << bits[i]) - 1);
         c[i] = int_value(f, s ? sext(raw, bits[i]) : raw, bits[i], s);
      }
      /* BGRA: x is bits 20..29, z bits 0..9 */
      const bool bgra = f->size == GL_BGRA;
      for (int i = 0; i < (bgra ? 4 : f->size); i++)
         out[i] = c[bgra && i < 3 ? 2 - i : i];
      return;
   }
   if (f->type == GL_UNSIGNED_INT_10F_11F_11F_REV) {
      const uint32_t w = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
      union { float f; uint32_t u; } c[3] = { { .f = small_float(w & 0x7ff, 5, 6, false) },
                                              { .f = small_float((w >> 11) & 0x7ff, 5, 6, false) },
                                              { .f = small_float(w >> 22, 5, 5, false) } };
      for (int i = 0; i < 3; i++)
         out[i] = c[i].u;
      return;
   }
   const unsigned tb = type_bytes(f->type), n = f->size == GL_BGRA ? 4 : f->size;
   for (unsigned i = 0; i < n; i++) {
      const unsigned char *q = p + i * tb;
      const uint32_t raw = tb == 1 ? q[0] : (uint32_t)(q[0] | q[1] << 8);
      uint32_t v;
      switch (f->type) {
      case GL_HALF_FLOAT: {
         union { float f; uint32_t u; } h = { .f = small_float(raw, 5, 10, true) };
         v = h.u;
         break;
      }
      case GL_BYTE: case GL_SHORT:
         v = int_value(f, sext(raw, 8 * tb), 8 * tb, true);
         break;
      default:
         v = int_value(f, raw, 8 * tb, false);
         break;
      }
      /* BGRA: memory order B, G, R, A */
      out[f->size == GL_BGRA && i < 3 ? 2 - i : i] = v;
   }
}

static bool
close_enough(const struct fetch *f, uint32_t got, uint32_t want)
{
   if (got == want)
      return true;
   if (f->kind != K_FLOAT || !f->normalized)
      return false;
   union { uint32_t u; float f; } g = { got }, e = { want };
   return fabsf(g.f - e.f) <= 1.2e-7f * fmaxf(1.0f, fabsf(e.f));
}

/* Element bytes: vertex 0 and 1 carry the extremes (all bits 0 / all 1,
 * 0x80 / 0x7f of signed bytes and their 16-bit and 10-bit likes), the
 * others a fixed pseudo-random sequence; half floats avoid NaNs and
 * infinities (no rule to compare them by), 10F/11F ones too */
static void
fill(const struct fetch *f, unsigned char *buf, unsigned size)
{
   uint32_t x = 0x2545f491u;
   for (unsigned i = 0; i < size; i++) {
      x = x * 1664525u + 1013904223u;
      buf[i] = x >> 24;
   }
   const unsigned eb = elem_bytes(f), tb = packed(f->type) ? 4 : type_bytes(f->type);
   for (unsigned v = 0; v < NV; v++) {
      unsigned char *p = buf + f->offset + v * f->stride;
      for (unsigned k = 0; k < eb; k += tb) {
         unsigned char *q = p + k;
         if (v < 4 && !packed(f->type) && f->type != GL_HALF_FLOAT) {
            /* 0, all ones, the most negative, the most positive */
            static const unsigned char lo[4] = { 0x00, 0xff, 0x00, 0xff };
            static const unsigned char hi[4] = { 0x00, 0xff, 0x80, 0x7f };
            for (unsigned b = 0; b < tb; b++)
               q[b] = b + 1 == tb ? hi[v] : lo[v];
         } else if (v < 4 && packed(f->type) && f->type != GL_UNSIGNED_INT_10F_11F_11F_REV) {
            /* 10-bit fields 0, 0x3ff, 0x200 (-512), 0x1ff (511); the 2-bit
             * alpha 0, 3 (-1), 2 (-2), 1 */
            static const uint32_t w[4] = { 0, 0xffffffffu, 0xa0080200u, 0x5ff7fdffu };
            for (unsigned b = 0; b < 4; b++)
               q[b] = w[v] >> (8 * b);
         } else if (f->type == GL_HALF_FLOAT) {
            /* exponent below 31 */
            if (((q[1] >> 2) & 0x1f) == 0x1f)
               q[1] ^= 0x04;
         } else if (f->type == GL_UNSIGNED_INT_10F_11F_11F_REV) {
            uint32_t w = q[0] | q[1] << 8 | q[2] << 16 | (uint32_t)q[3] << 24;
            w &= ~(0x10u << 6 | 0x10u << 17 | 0x10u << 27); /* top exponent bit off */
            for (unsigned b = 0; b < 4; b++)
               q[b] = w >> (8 * b);
         }
      }
   }
}

static bool
fetch_case(const struct fetch *f)
{
   if (f->type == GL_UNSIGNED_INT_10F_11F_11F_REV && !gl_has_ext("GL_ARB_vertex_type_10f_11f_11f_rev"))
      GL_FAIL("skip: no GL_ARB_vertex_type_10f_11f_11f_rev");
   const unsigned size = f->offset + (NV - 1) * f->stride + elem_bytes(f);
   unsigned char *data = calloc(1, size);
   fill(f, data, size);
   glUseProgram(xfb_prog[f->kind]);
   GLuint vbo;
   glGenBuffers(1, &vbo);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   glBufferData(GL_ARRAY_BUFFER, size, data, GL_STATIC_DRAW);
   glEnableVertexAttribArray(1);
   if (f->kind == K_FLOAT)
      glVertexAttribPointer(1, f->size, f->type, f->normalized, f->stride,
                            (void *)(uintptr_t)f->offset);
   else
      glVertexAttribIPointer(1, f->size, f->type, f->stride, (void *)(uintptr_t)f->offset);
   static const float zero[NV * 16];
   glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, xfb_buf);
   glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, sizeof(zero), zero, GL_STREAM_READ);
   glEnable(GL_RASTERIZER_DISCARD);
   glBeginTransformFeedback(GL_POINTS);
   glDrawArrays(GL_POINTS, 0, NV);
   glEndTransformFeedback();
   glDisable(GL_RASTERIZER_DISCARD);
   glDisableVertexAttribArray(1);
   uint32_t got[NV][4];
   glGetBufferSubData(GL_TRANSFORM_FEEDBACK_BUFFER, 0, sizeof(got), got);
   glDeleteBuffers(1, &vbo);
   bool ok = gl_check_error("fetch");
   for (unsigned v = 0; ok && v < NV; v++) {
      uint32_t want[4];
      expected(f, data + f->offset + v * f->stride, want);
      for (int i = 0; i < 4; i++) {
         if (!close_enough(f, got[v][i], want[i])) {
            union { uint32_t u; float f; } g = { got[v][i] }, e = { want[i] };
            snprintf(gl_err, sizeof(gl_err),
                     "vertex %u component %d: 0x%08x (%g), want 0x%08x (%g)", v, i, got[v][i],
                     g.f, want[i], e.f);
            ok = false;
            break;
         }
      }
   }
   free(data);
   return ok;
}

#define FETCH(name, ...)                                          \
   static bool name(void)                                         \
   {                                                              \
      static const struct fetch f = { __VA_ARGS__ };              \
      return fetch_case(&f);                                      \
   }

/* size, type, normalized, kind, offset, stride */
FETCH(case_ubyte_norm1, 1, GL_UNSIGNED_BYTE, true, K_FLOAT, 1, 1)
FETCH(case_ubyte_norm2, 2, GL_UNSIGNED_BYTE, true, K_FLOAT, 3, 5)
FETCH(case_ubyte_norm3, 3, GL_UNSIGNED_BYTE, true, K_FLOAT, 1, 3)
FETCH(case_ubyte_norm4, 4, GL_UNSIGNED_BYTE, true, K_FLOAT, 2, 7)
FETCH(case_byte_norm1, 1, GL_BYTE, true, K_FLOAT, 3, 1)
FETCH(case_byte_norm3, 3, GL_BYTE, true, K_FLOAT, 2, 5)
FETCH(case_byte_norm4, 4, GL_BYTE, true, K_FLOAT, 0, 4)
FETCH(case_ubyte_scaled3, 3, GL_UNSIGNED_BYTE, false, K_FLOAT, 1, 6)
FETCH(case_byte_scaled4, 4, GL_BYTE, false, K_FLOAT, 3, 9)
FETCH(case_ubyte_uint2, 2, GL_UNSIGNED_BYTE, false, K_UINT, 1, 2)
FETCH(case_byte_int4, 4, GL_BYTE, false, K_INT, 5, 4)
FETCH(case_byte_int1, 1, GL_BYTE, false, K_INT, 1, 3)
FETCH(case_ushort_norm1, 1, GL_UNSIGNED_SHORT, true, K_FLOAT, 2, 2)
FETCH(case_ushort_norm3, 3, GL_UNSIGNED_SHORT, true, K_FLOAT, 2, 6)
FETCH(case_short_norm2, 2, GL_SHORT, true, K_FLOAT, 6, 10)
/* off the 2-byte alignment: u_vbuf's (PIPE_VERTEX_INPUT_ALIGNMENT_ELEMENT) */
FETCH(case_ushort_norm2_odd, 2, GL_UNSIGNED_SHORT, true, K_FLOAT, 3, 7)
FETCH(case_short_norm4, 4, GL_SHORT, true, K_FLOAT, 2, 10)
FETCH(case_ushort_scaled4, 4, GL_UNSIGNED_SHORT, false, K_FLOAT, 0, 8)
FETCH(case_short_scaled3, 3, GL_SHORT, false, K_FLOAT, 4, 6)
FETCH(case_ushort_uint4, 4, GL_UNSIGNED_SHORT, false, K_UINT, 2, 12)
FETCH(case_short_int3, 3, GL_SHORT, false, K_INT, 2, 6)
FETCH(case_half1, 1, GL_HALF_FLOAT, false, K_FLOAT, 2, 2)
FETCH(case_half2, 2, GL_HALF_FLOAT, false, K_FLOAT, 2, 6)
FETCH(case_half3, 3, GL_HALF_FLOAT, false, K_FLOAT, 0, 6)
FETCH(case_half4, 4, GL_HALF_FLOAT, false, K_FLOAT, 4, 10)
FETCH(case_bgra8, GL_BGRA, GL_UNSIGNED_BYTE, true, K_FLOAT, 4, 8)
FETCH(case_uint_2_10_10_10_norm, 4, GL_UNSIGNED_INT_2_10_10_10_REV, true, K_FLOAT, 4, 8)
FETCH(case_int_2_10_10_10_norm, 4, GL_INT_2_10_10_10_REV, true, K_FLOAT, 0, 4)
FETCH(case_uint_2_10_10_10_scaled, 4, GL_UNSIGNED_INT_2_10_10_10_REV, false, K_FLOAT, 8, 12)
FETCH(case_int_2_10_10_10_scaled, 4, GL_INT_2_10_10_10_REV, false, K_FLOAT, 4, 4)
FETCH(case_uint_2_10_10_10_bgra, GL_BGRA, GL_UNSIGNED_INT_2_10_10_10_REV, true, K_FLOAT, 0, 4)
FETCH(case_int_2_10_10_10_bgra, GL_BGRA, GL_INT_2_10_10_10_REV, true, K_FLOAT, 4, 8)
FETCH(case_10f_11f_11f, 3, GL_UNSIGNED_INT_10F_11F_11F_REV, false, K_FLOAT, 4, 4)

/* SNORM16 corners, per-cell colours of three formats */
static bool
case_draw(void)
{
   int16_t pos[CELLS * CELLS][6][2];
   unsigned char rgba8[CELLS * CELLS][6][4], bgra8[CELLS * CELLS][6][4];
   uint32_t a2[CELLS * CELLS][6];
   static const int corner[6] = { 0, 1, 2, 2, 1, 3 };
   for (int c = 0; c < CELLS * CELLS; c++) {
      for (int v = 0; v < 6; v++) {
         float xy[2];
         cell_xy(c, corner[v], xy);
         pos[c][v][0] = (int16_t)lrintf(xy[0] * 32767);
         pos[c][v][1] = (int16_t)lrintf(xy[1] * 32767);
         const unsigned char r = c * 4, g = 255 - c * 3, b = (c * 37) & 255;
         const unsigned char col[4] = { r, g, b, 255 };
         memcpy(rgba8[c][v], col, 4);
         const unsigned char bgr[4] = { b, g, r, 255 };
         memcpy(bgra8[c][v], bgr, 4);
         /* 10-bit r, g, b = 4 * the 8-bit ones (plus 2: rounds back) */
         a2[c][v] = (uint32_t)(r * 4 + 2) | (uint32_t)(g * 4 + 2) << 10 |
                    (uint32_t)(b * 4 + 2) << 20 | 3u << 30;
      }
   }
   static const char *vs =
      "#version 130\n"
      "in vec2 pos;\n"
      "in vec4 attr;\n"
      "in vec4 c2;\n"
      "in vec4 c3;\n"
      "uniform int which;\n"
      "out vec4 c;\n"
      "void main() {\n"
      "   gl_Position = vec4(pos, 0.0, 1.0);\n"
      "   c = which == 0 ? attr : which == 1 ? c2 : c3;\n"
      "}\n";
   static const char *fs =
      "#version 130\n"
      "in vec4 c;\n"
      "void main() { gl_FragColor = c; }\n";
   GLuint prog = gl_program(vs, fs);
   if (!prog)
      return false;
   GLuint vbo[4];
   glGenBuffers(4, vbo);
   const struct {
      const void *data;
      GLsizeiptr size;
   } bufs[4] = { { pos, sizeof(pos) }, { rgba8, sizeof(rgba8) }, { bgra8, sizeof(bgra8) },
                 { a2, sizeof(a2) } };
   for (int i = 0; i < 4; i++) {
      glBindBuffer(GL_ARRAY_BUFFER, vbo[i]);
      glBufferData(GL_ARRAY_BUFFER, bufs[i].size, bufs[i].data, GL_STATIC_DRAW);
   }
   const GLint c2 = glGetAttribLocation(prog, "c2"), c3 = glGetAttribLocation(prog, "c3");
   glBindBuffer(GL_ARRAY_BUFFER, vbo[0]);
   glVertexAttribPointer(0, 2, GL_SHORT, GL_TRUE, 0, NULL);
   glEnableVertexAttribArray(0);
   glBindBuffer(GL_ARRAY_BUFFER, vbo[1]);
   glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, 0, NULL);
   glEnableVertexAttribArray(1);
   glBindBuffer(GL_ARRAY_BUFFER, vbo[2]);
   glVertexAttribPointer(c2, GL_BGRA, GL_UNSIGNED_BYTE, GL_TRUE, 0, NULL);
   glEnableVertexAttribArray(c2);
   glBindBuffer(GL_ARRAY_BUFFER, vbo[3]);
   glVertexAttribPointer(c3, 4, GL_UNSIGNED_INT_2_10_10_10_REV, GL_TRUE, 0, NULL);
   glEnableVertexAttribArray(c3);
   glClearColor(0, 0, 0, 0);
   glClear(GL_COLOR_BUFFER_BIT);
   /* rows 0-2 RGBA8, rows 3-5 BGRA8, rows 6-7 2_10_10_10 */
   const GLint loc = glGetUniformLocation(prog, "which");
   const int rows[3][2] = { { 0, 3 }, { 3, 6 }, { 6, 8 } };
   for (int w = 0; w < 3; w++) {
      glUniform1i(loc, w);
      glDrawArrays(GL_TRIANGLES, rows[w][0] * CELLS * 6, (rows[w][1] - rows[w][0]) * CELLS * 6);
   }
   static unsigned char got[W * H * 4];
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, got);
   glDisableVertexAttribArray(1);
   glDisableVertexAttribArray(c2);
   glDisableVertexAttribArray(c3);
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   glDeleteBuffers(4, vbo);
   glUseProgram(0);
   glDeleteProgram(prog);
   for (int c = 0; c < CELLS * CELLS; c++) {
      const int x = (c % CELLS) * (W / CELLS) + W / CELLS / 2;
      const int y = (c / CELLS) * (H / CELLS) + H / CELLS / 2;
      const unsigned char *p = &got[(y * W + x) * 4];
      if (memcmp(p, rgba8[c][0], 4))
         GL_FAIL("cell %d: (%u %u %u %u), want (%u %u %u %u)", c, p[0], p[1], p[2], p[3],
                 rgba8[c][0][0], rgba8[c][0][1], rgba8[c][0][2], rgba8[c][0][3]);
   }
   return true;
}

static bool
setup(void)
{
   if (!gl_has_ext("GL_ARB_vertex_type_2_10_10_10_rev") || !gl_has_ext("GL_EXT_vertex_array_bgra"))
      GL_FAIL("GL_ARB_vertex_type_2_10_10_10_rev or GL_EXT_vertex_array_bgra missing");
   for (int k = 0; k < 3; k++) {
      xfb_prog[k] = gl_xfb_program(vs_src[k], NULL, "v");
      if (!xfb_prog[k])
         return false;
   }
   glGenBuffers(1, &xfb_buf);
   if (!gl_target_fbo(W, H))
      GL_FAIL("framebuffer incomplete");
   return true;
}

#define C(n) { #n, case_##n, false }
static const struct gl_case cases[] = {
   C(ubyte_norm1), C(ubyte_norm2), C(ubyte_norm3), C(ubyte_norm4), C(byte_norm1),
   C(byte_norm3), C(byte_norm4), C(ubyte_scaled3), C(byte_scaled4), C(ubyte_uint2),
   C(byte_int4), C(byte_int1), C(ushort_norm1), C(ushort_norm3), C(short_norm2),
   C(short_norm4), C(ushort_scaled4), C(short_scaled3), C(ushort_uint4), C(short_int3),
   C(half1), C(half2), C(half3), C(half4), C(bgra8), C(uint_2_10_10_10_norm),
   C(int_2_10_10_10_norm), C(uint_2_10_10_10_scaled), C(int_2_10_10_10_scaled),
   C(uint_2_10_10_10_bgra), C(int_2_10_10_10_bgra), C(ushort_norm2_odd), C(10f_11f_11f),
   { "draw", case_draw, true },
};

int
main(int argc, char **argv)
{
   static const struct gl_suite suite = {
      .cases = cases, .n = sizeof(cases) / sizeof(cases[0]), .outdir = true, .kinds = true,
      .setup = setup, .px = px, .readback = true, .w = W, .h = H,
   };
   return gl_run(argc, argv, &suite);
}
