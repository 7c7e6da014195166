/* SPDX-License-Identifier: MIT */
/*
 * gl_gs OUTDIR [CASE...]: geometry shaders (GLSL 1.50, desktop GL
 * compatibility context, EGL surfaceless), which vagx runs on the device's
 * geometry stage (contract 1.11).  Every case draws into a 64x64 RGBA8
 * target of 8x8 cells and checks the centres of the cells it names
 * exactly (colours are multiples of 1/255 carried by flat varyings);
 * tests/gl/run also compares the "cmp" cases' images with llvmpipe's.
 *   passthrough   triangles copied through (position and a varying)
 *   points_quads  each point becomes a 4-vertex triangle strip (a quad)
 *   cut           one point, two triangles of one strip split by
 *                 EndPrimitive (without it the strip would fill the gap)
 *   line_strip    a line strip output (a horizontal line per point)
 *   invocations   layout(invocations = 4): one quad per gl_InvocationID
 *   primitive_id  gl_PrimitiveIDIn of 8 triangles (and a strip restart)
 *                 written to gl_PrimitiveID, which the fragment shader reads
 *   adjacency     GL_TRIANGLES_ADJACENCY: the triangle of vertices 0, 2, 4
 *                 coloured by adjacent vertex 1
 *   xfb           transform feedback of the geometry shader's output (2
 *                 points per input point) and GL_PRIMITIVES_GENERATED
 */
#include "gl_desktop.h"
#include "gl_cells.h"
#include <stdint.h>
#include <stdio.h>

#define W 64
#define H 64

static unsigned char px[W * H * 4];
static GLuint vbo;

static const char *vs_src =
   "#version 150\n"
   "in vec2 pos;\n"
   "in vec4 attr;\n"
   "out vec4 vcol;\n"
   "void main() { gl_Position = vec4(pos, 0.0, 1.0); vcol = attr; }\n";
static const char *fs_src =
   "#version 150\n"
   "flat in vec4 gcol;\n"
   "out vec4 o;\n"
   "void main() { o = gcol; }\n";

/* vs + gs + fs linked with pos = 0, attr = 1 (gl_program's names), made
 * current; with `varying` no fragment shader, the varying captured by
 * transform feedback */
static GLuint
xfb_gs_program(const char *gs, const char *fs, const char *varying)
{
   GLuint v = gl_shader(GL_VERTEX_SHADER, vs_src), g = gl_shader(GL_GEOMETRY_SHADER, gs),
          f = varying ? 0 : gl_shader(GL_FRAGMENT_SHADER, fs ? fs : fs_src);
   if (!v || !g || (!varying && !f))
      return 0;
   GLuint p = glCreateProgram();
   glAttachShader(p, v);
   glAttachShader(p, g);
   if (f)
      glAttachShader(p, f);
   glBindAttribLocation(p, 0, "pos");
   glBindAttribLocation(p, 1, "attr");
   if (varying)
      glTransformFeedbackVaryings(p, 1, &varying, GL_INTERLEAVED_ATTRIBS);
   glLinkProgram(p);
   GLint ok;
   glGetProgramiv(p, GL_LINK_STATUS, &ok);
   if (!ok) {
      glGetProgramInfoLog(p, sizeof(gl_err), NULL, gl_err);
      return 0;
   }
   glUseProgram(p);
   return p;
}

static GLuint
gs_program(const char *gs, const char *fs)
{
   return xfb_gs_program(gs, fs, NULL);
}

/* vertices: x, y, then r, g, b, a (0..255) */
struct vtx {
   float x, y;
   unsigned char c[4];
};

static void
vertices(const struct vtx *v, unsigned n)
{
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   glBufferData(GL_ARRAY_BUFFER, n * sizeof(*v), v, GL_STREAM_DRAW);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(*v), (void *)0);
   glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(*v), (void *)8);
   glEnableVertexAttribArray(0);
   glEnableVertexAttribArray(1);
   glClearColor(0, 0, 0, 0);
   glClear(GL_COLOR_BUFFER_BIT);
}

/* a cell's centre in clip space */
static void
cell_centre(int cell, float *x, float *y)
{
   float a[2], b[2];
   cell_xy(cell, 0, a);
   cell_xy(cell, 3, b);
   *x = (a[0] + b[0]) / 2;
   *y = (a[1] + b[1]) / 2;
}

/* the centre pixel of `cell` is c (RGBA) */
static bool
cell_is(int cell, const unsigned char c[4])
{
   unsigned char got[4];
   const int x = (cell % CELLS) * (W / CELLS) + W / CELLS / 2;
   const int y = (cell / CELLS) * (H / CELLS) + H / CELLS / 2;
   glReadPixels(x, y, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, got);
   if (memcmp(got, c, 4))
      GL_FAIL("cell %d: (%u %u %u %u), want (%u %u %u %u)", cell, got[0], got[1], got[2], got[3],
              c[0], c[1], c[2], c[3]);
   return true;
}

static const unsigned char none[4] = { 0, 0, 0, 0 };

/* cell as two triangles (corners 0 1 2, 2 1 3) of colour c into v[0..5] */
static void
cell_tris(struct vtx *v, int cell, const unsigned char c[4])
{
   static const int corner[6] = { 0, 1, 2, 2, 1, 3 };
   for (int i = 0; i < 6; i++) {
      cell_xy(cell, corner[i], &v[i].x);
      memcpy(v[i].c, c, 4);
   }
}

static bool
case_passthrough(void)
{
   static const char *gs =
      "#version 150\n"
      "layout(triangles) in;\n"
      "layout(triangle_strip, max_vertices = 3) out;\n"
      "in vec4 vcol[];\n"
      "flat out vec4 gcol;\n"
      "void main() {\n"
      "   for (int i = 0; i < 3; i++) {\n"
      "      gl_Position = gl_in[i].gl_Position; gcol = vcol[2];\n"
      "      EmitVertex();\n"
      "   }\n"
      "}\n";
   if (!gs_program(gs, NULL))
      return false;
   struct vtx v[12];
   const unsigned char a[4] = { 40, 100, 250, 255 }, b[4] = { 200, 100, 10, 255 };
   cell_tris(v, 9, a);
   cell_tris(v + 6, 27, b);
   vertices(v, 12);
   glDrawArrays(GL_TRIANGLES, 0, 12);
   return cell_is(9, a) && cell_is(27, b) && cell_is(10, none);
}

/* a quad of half a cell around each point, each vertex also running
 * `extra` */
#define QUAD_GS(extra)                                                      \
   "#version 150\n"                                                         \
   "layout(points) in;\n"                                                   \
   "layout(triangle_strip, max_vertices = 4) out;\n"                        \
   "in vec4 vcol[];\n"                                                      \
   "flat out vec4 gcol;\n"                                                  \
   "void main() {\n"                                                        \
   "   for (int i = 0; i < 4; i++) {\n"                                     \
   "      vec2 d = vec2(i & 1, i >> 1) * 2.0 - 1.0;\n"                      \
   "      gl_Position = gl_in[0].gl_Position + vec4(d * 0.0625, 0.0, 0.0);\n" \
   extra                                                                    \
   "      gcol = vcol[0];\n"                                                \
   "      EmitVertex();\n"                                                  \
   "   }\n"                                                                 \
   "}\n"

static const char *quad_gs = QUAD_GS("");

static bool
case_points_quads(void)
{
   if (!gs_program(quad_gs, NULL))
      return false;
   static const int cells[4] = { 0, 18, 45, 63 };
   struct vtx v[4];
   for (int i = 0; i < 4; i++) {
      cell_centre(cells[i], &v[i].x, &v[i].y);
      const unsigned char c[4] = { 60 * i + 10, 255 - 50 * i, 128, 255 };
      memcpy(v[i].c, c, 4);
   }
   vertices(v, 4);
   glDrawArrays(GL_POINTS, 0, 4);
   for (int i = 0; i < 4; i++)
      if (!cell_is(cells[i], v[i].c))
         return false;
   return cell_is(1, none) && cell_is(19, none);
}

static bool
case_cut(void)
{
   /* two triangles of a strip: cells 8 and 10 (a cell apart); without the
    * EndPrimitive the strip's middle triangles would cover cell 9 */
   static const char *gs =
      "#version 150\n"
      "layout(points) in;\n"
      "layout(triangle_strip, max_vertices = 6) out;\n"
      "in vec4 vcol[];\n"
      "flat out vec4 gcol;\n"
      "void main() {\n"
      "   for (int t = 0; t < 2; t++) {\n"
      "      for (int i = 0; i < 3; i++) {\n"
      "         vec2 d = vec2(float(t) * 0.5 + float(i == 1) * 0.25, float(i == 2) * 0.25);\n"
      "         gl_Position = gl_in[0].gl_Position + vec4(d, 0.0, 0.0);\n"
      "         gcol = vcol[0];\n"
      "         EmitVertex();\n"
      "      }\n"
      "      EndPrimitive();\n"
      "   }\n"
      "}\n";
   if (!gs_program(gs, NULL))
      return false;
   struct vtx v = { 0, 0, { 30, 220, 90, 255 } };
   cell_xy(8, 0, &v.x);
   vertices(&v, 1);
   glDrawArrays(GL_POINTS, 0, 1);
   /* a triangle's lower-left corner region: 1/4 into the cell */
   unsigned char got[4];
   glReadPixels(8 * 0 + 2, 8 + 2, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, got);
   if (memcmp(got, v.c, 4))
      GL_FAIL("first triangle missing: (%u %u %u %u)", got[0], got[1], got[2], got[3]);
   glReadPixels(16 + 2, 8 + 2, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, got);
   if (memcmp(got, v.c, 4))
      GL_FAIL("second triangle missing: (%u %u %u %u)", got[0], got[1], got[2], got[3]);
   /* between them (x 8..15 of row 8..15, low y): the strip's gap */
   glReadPixels(12, 9, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, got);
   if (memcmp(got, none, 4))
      GL_FAIL("EndPrimitive did not end the strip: pixel (12, 9) is (%u %u %u %u)", got[0],
              got[1], got[2], got[3]);
   return true;
}

static bool
case_line_strip(void)
{
   /* a horizontal line through each point's row of pixel centres, from
    * 12 pixels left to 12 right (interior pixels only are checked) */
   static const char *gs =
      "#version 150\n"
      "layout(points) in;\n"
      "layout(line_strip, max_vertices = 3) out;\n"
      "in vec4 vcol[];\n"
      "flat out vec4 gcol;\n"
      "void main() {\n"
      "   for (int i = 0; i < 3; i++) {\n"
      "      gl_Position = gl_in[0].gl_Position + vec4(float(i - 1) * 0.375, 0.0, 0.0, 0.0);\n"
      "      gcol = vcol[0];\n"
      "      EmitVertex();\n"
      "   }\n"
      "}\n";
   if (!gs_program(gs, NULL))
      return false;
   /* the centres of pixel rows 20 and 44, column 32 */
   struct vtx v[2] = { { 0, (20.5f / H) * 2 - 1, { 250, 40, 40, 255 } },
                       { 0, (44.5f / H) * 2 - 1, { 40, 40, 250, 255 } } };
   vertices(v, 2);
   glDrawArrays(GL_POINTS, 0, 2);
   static unsigned char got[W * H * 4];
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, got);
   for (int k = 0; k < 2; k++) {
      const int y = k ? 44 : 20;
      for (int x = 24; x < 40; x++)
         if (memcmp(&got[(y * W + x) * 4], v[k].c, 4))
            GL_FAIL("line %d: pixel (%d, %d) not drawn", k, x, y);
      if (memcmp(&got[((y + 2) * W + 32) * 4], none, 4))
         GL_FAIL("line %d: a pixel two rows off is drawn", k);
   }
   return true;
}

static bool
case_invocations(void)
{
   static const char *gs =
      "#version 150\n"
      "#extension GL_ARB_gpu_shader5 : enable\n"
      "layout(points, invocations = 4) in;\n"
      "layout(triangle_strip, max_vertices = 4) out;\n"
      "in vec4 vcol[];\n"
      "flat out vec4 gcol;\n"
      "void main() {\n"
      "   for (int i = 0; i < 4; i++) {\n"
      "      vec2 d = vec2(i & 1, i >> 1) * 2.0 - 1.0;\n"
      "      gl_Position = gl_in[0].gl_Position + vec4(d * 0.0625 + vec2(0.25 * float(gl_InvocationID), 0.0), 0.0, 0.0);\n"
      "      gcol = vec4(vcol[0].rgb, float(gl_InvocationID + 1) * 50.0 / 255.0);\n"
      "      EmitVertex();\n"
      "   }\n"
      "}\n";
   /* layout(invocations) is GLSL 4.00 / GL_ARB_gpu_shader5's */
   if (!gl_has_ext("GL_ARB_gpu_shader5"))
      GL_FAIL("skip: no GL_ARB_gpu_shader5 (layout(invocations))");
   if (!gs_program(gs, NULL))
      return false;
   struct vtx v = { 0, 0, { 90, 180, 30, 0 } };
   cell_centre(32, &v.x, &v.y);
   vertices(&v, 1);
   glDrawArrays(GL_POINTS, 0, 1);
   for (int i = 0; i < 4; i++) {
      const unsigned char c[4] = { 90, 180, 30, 50 * (i + 1) };
      if (!cell_is(32 + i, c))
         return false;
   }
   return true;
}

static bool
case_primitive_id(void)
{
   static const char *gs =
      "#version 150\n"
      "layout(triangles) in;\n"
      "layout(triangle_strip, max_vertices = 3) out;\n"
      "void main() {\n"
      "   for (int i = 0; i < 3; i++) {\n"
      "      gl_Position = gl_in[i].gl_Position; gl_PrimitiveID = gl_PrimitiveIDIn;\n"
      "      EmitVertex();\n"
      "   }\n"
      "}\n";
   static const char *fs =
      "#version 150\n"
      "out vec4 o;\n"
      "void main() { o = vec4(float(gl_PrimitiveID * 16 + 15) / 255.0, 0.0, 0.0, 1.0); }\n";
   if (!gs_program(gs, fs))
      return false;
   /* cells 0, 2, 4, 6 as two triangles each: ids 0..7, the first of a
    * cell its lower-left half, the second its upper-right half */
   struct vtx v[24];
   static const unsigned char white[4] = { 255, 255, 255, 255 };
   for (int c = 0; c < 4; c++)
      cell_tris(v + 6 * c, c * 2, white);
   vertices(v, 24);
   glDrawArrays(GL_TRIANGLES, 0, 24);
   for (int c = 0; c < 4; c++) {
      unsigned char got[4];
      /* lower-left quarter: the first triangle (id 2c), upper-right: 2c+1 */
      glReadPixels(c * 16 + 2, 2, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, got);
      if (got[0] != (2 * c) * 16 + 15)
         GL_FAIL("triangle %d: red %u, want %u", 2 * c, got[0], (2 * c) * 16 + 15);
      glReadPixels(c * 16 + 6, 6, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, got);
      if (got[0] != (2 * c + 1) * 16 + 15)
         GL_FAIL("triangle %d: red %u, want %u", 2 * c + 1, got[0], (2 * c + 1) * 16 + 15);
   }
   return true;
}

static bool
case_adjacency(void)
{
   static const char *gs =
      "#version 150\n"
      "layout(triangles_adjacency) in;\n"
      "layout(triangle_strip, max_vertices = 3) out;\n"
      "in vec4 vcol[];\n"
      "flat out vec4 gcol;\n"
      "void main() {\n"
      "   for (int i = 0; i < 3; i++) {\n"
      "      gl_Position = gl_in[2 * i].gl_Position; gcol = vcol[1] + vcol[3] * 0.0 + vcol[5] * 0.0;\n"
      "      EmitVertex();\n"
      "   }\n"
      "}\n";
   if (!gs_program(gs, NULL))
      return false;
   /* cell 20's lower-left triangle; the adjacent vertices (1, 3, 5) are
    * elsewhere and coloured apart: only vertex 1's colour may show */
   struct vtx v[6];
   float xy[2];
   for (int i = 0; i < 6; i++) {
      const int corner = i == 0 ? 0 : i == 2 ? 1 : i == 4 ? 2 : 3;
      cell_xy(20, corner, xy);
      v[i].x = xy[0];
      v[i].y = xy[1];
      const unsigned char c[4] = { 20 + 40 * i, 200, 255 - 40 * i, 255 };
      memcpy(v[i].c, c, 4);
   }
   vertices(v, 6);
   glDrawArrays(GL_TRIANGLES_ADJACENCY, 0, 6);
   unsigned char got[4];
   glReadPixels((20 % CELLS) * 8 + 2, (20 / CELLS) * 8 + 2, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, got);
   if (memcmp(got, v[1].c, 4))
      GL_FAIL("(%u %u %u %u), want vertex 1's (%u %u %u %u)", got[0], got[1], got[2], got[3],
              v[1].c[0], v[1].c[1], v[1].c[2], v[1].c[3]);
   return true;
}

static bool
case_xfb(void)
{
   static const char *gs =
      "#version 150\n"
      "layout(points) in;\n"
      "layout(points, max_vertices = 2) out;\n"
      "in vec4 vcol[];\n"
      "out vec4 gout;\n"
      "void main() {\n"
      "   for (int i = 0; i < 2; i++) {\n"
      "      gl_Position = gl_in[0].gl_Position;\n"
      "      gout = vec4(gl_in[0].gl_Position.xy, float(gl_PrimitiveIDIn), float(i));\n"
      "      EmitVertex();\n"
      "   }\n"
      "}\n";
   if (!xfb_gs_program(gs, NULL, "gout"))
      return false;
   struct vtx in[3] = { { 0.25f, -0.5f, { 0 } }, { -0.75f, 0.125f, { 0 } }, { 0.5f, 0.5f, { 0 } } };
   vertices(in, 3);
   GLuint buf, q;
   glGenBuffers(1, &buf);
   glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, buf);
   static const float zero[32];
   glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, sizeof(zero), zero, GL_STREAM_READ);
   glGenQueries(1, &q);
   glEnable(GL_RASTERIZER_DISCARD);
   glBeginQuery(GL_PRIMITIVES_GENERATED, q);
   glBeginTransformFeedback(GL_POINTS);
   glDrawArrays(GL_POINTS, 0, 3);
   glEndTransformFeedback();
   glEndQuery(GL_PRIMITIVES_GENERATED);
   glDisable(GL_RASTERIZER_DISCARD);
   GLuint generated = 0;
   glGetQueryObjectuiv(q, GL_QUERY_RESULT, &generated);
   float got[32];
   glGetBufferSubData(GL_TRANSFORM_FEEDBACK_BUFFER, 0, sizeof(got), got);
   glDeleteQueries(1, &q);
   glDeleteBuffers(1, &buf);
   if (generated != 6)
      GL_FAIL("GL_PRIMITIVES_GENERATED %u, want 6 (the geometry shader's points)", generated);
   for (int k = 0; k < 6; k++) {
      const float want[4] = { in[k / 2].x, in[k / 2].y, (float)(k / 2), (float)(k % 2) };
      if (memcmp(&got[4 * k], want, sizeof(want)))
         GL_FAIL("vertex %d: (%g %g %g %g), want (%g %g %g %g)", k, got[4 * k], got[4 * k + 1],
                 got[4 * k + 2], got[4 * k + 3], want[0], want[1], want[2], want[3]);
   }
   if (got[24] != 0)
      GL_FAIL("a seventh vertex was captured");
   return true;
}

/* the quad of quad_gs, selecting layer 1 */
static const char *layer_gs = QUAD_GS("      gl_Layer = 1;\n");

static bool
case_layer_ignored(void)
{
   /* GL ignores gl_Layer on a framebuffer that is not layered */
   if (!gs_program(layer_gs, NULL))
      return false;
   struct vtx v = { 0, 0, { 200, 40, 90, 255 } };
   cell_centre(27, &v.x, &v.y);
   vertices(&v, 1);
   glDrawArrays(GL_POINTS, 0, 1);
   return cell_is(27, v.c) && cell_is(28, none);
}

static bool
case_layer_layered(void)
{
   /* a layered attachment (2 layers of an array texture): the quad goes
    * to layer 1 only.  vagx renders one layer per job and must drop the
    * draw (reported on stderr) rather than draw into layer 0. */
   if (!gs_program(layer_gs, NULL))
      return false;
   GLuint tex, fbo;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D_ARRAY, tex);
   glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_RGBA8, W, H, 2, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferTexture(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, tex, 0);
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      GL_FAIL("layered framebuffer incomplete");
   struct vtx v = { 0, 0, { 30, 200, 160, 255 } };
   cell_centre(27, &v.x, &v.y);
   vertices(&v, 1);
   glDrawArrays(GL_POINTS, 0, 1);
   unsigned char got[2][4];
   for (int l = 0; l < 2; l++) {
      GLuint rfbo;
      glGenFramebuffers(1, &rfbo);
      glBindFramebuffer(GL_READ_FRAMEBUFFER, rfbo);
      glFramebufferTextureLayer(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, tex, 0, l);
      glReadPixels((27 % CELLS) * (W / CELLS) + W / CELLS / 2,
                   (27 / CELLS) * (H / CELLS) + H / CELLS / 2, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE,
                   got[l]);
      glDeleteFramebuffers(1, &rfbo);
   }
   glDeleteFramebuffers(1, &fbo);
   glDeleteTextures(1, &tex);
   gl_target_fbo(W, H);
   if (memcmp(got[0], none, 4))
      GL_FAIL("layer 0 drawn: (%u %u %u %u)", got[0][0], got[0][1], got[0][2], got[0][3]);
   if (!memcmp(got[1], none, 4))
      GL_FAIL("skip: layered rendering (gl_Layer) is not supported, the draw was dropped");
   if (memcmp(got[1], v.c, 4))
      GL_FAIL("layer 1: (%u %u %u %u)", got[1][0], got[1][1], got[1][2], got[1][3]);
   return true;
}

static bool
setup(void)
{
   glGenBuffers(1, &vbo);
   if (!gl_target_fbo(W, H))
      GL_FAIL("framebuffer incomplete");
   return true;
}

static const struct gl_case cases[] = {
   { "passthrough", case_passthrough, true },
   { "points_quads", case_points_quads, true },
   { "cut", case_cut, true },
   { "line_strip", case_line_strip, false },
   { "invocations", case_invocations, true },
   { "primitive_id", case_primitive_id, true },
   { "adjacency", case_adjacency, true },
   { "xfb", case_xfb, false },
   { "layer_ignored", case_layer_ignored, true },
   { "layer_layered", case_layer_layered, false },
};

int
main(int argc, char **argv)
{
   static const struct gl_suite suite = {
      .cases = cases, .n = sizeof(cases) / sizeof(cases[0]), .outdir = true, .kinds = true,
      .setup = setup, .fresh_program = true, .px = px, .readback = true, .w = W, .h = H,
   };
   return gl_run(argc, argv, &suite);
}
