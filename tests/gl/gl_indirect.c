/* SPDX-License-Identifier: MIT */
/*
 * gl_indirect OUTDIR [CASE...]: indirect draws (GL_ARB_draw_indirect,
 * GL_ARB_multi_draw_indirect, arguments written by transform feedback),
 * multi-draw, base-vertex and instanced draws (desktop GL 3.0 compatibility
 * context, EGL surfaceless), each case drawn into a 64x64 RGBA8 FBO of 8x8
 * cells of 8x8 pixels and written to OUTDIR/NAME.ppm; tests/gl/run compares
 * every image with softpipe's.  gl_indirect --list prints the case names.
 *
 * The vagx driver makes every draw of these one cmd_draw, the indirect
 * ones with cmd_draw.indirect (the device reads the arguments; tests/gl/run
 * counts them in a VAGX_DEBUG=trace run: 8 of them).  `many_draws` makes a
 * command stream longer than one chunk of the driver's (chained with
 * cmd_jump).  `many_queries` checks 2500 occlusion query results (more
 * than one slab of the driver's query suballocator) and queries reused.
 * `budget_points` needs the draws' own charge to the job's geometry budget.
 */
#include "gl_desktop.h"
#include "gl_cells.h"
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define W 64
#define H 64

static unsigned char px[W * H * 4];

static const char *vs_src =
   "#version 130\n"
   "#extension GL_ARB_draw_instanced : require\n"
   "in vec2 pos;\n"
   "in vec4 attr;\n"
   "uniform vec2 inst_step;\n"
   "out vec4 c;\n"
   "void main() {\n"
   "   gl_Position = vec4(pos + inst_step * float(gl_InstanceIDARB), 0.0, 1.0);\n"
   "   c = attr;\n"
   "}\n";
static const char *fs_src =
   "#version 130\n"
   "in vec4 c;\n"
   "uniform vec4 tint;\n"
   "void main() { gl_FragColor = c * tint; }\n";

static const char *vs_xfb_src =
   "#version 130\n"
   "in vec2 pos;\n"
   "uniform uvec4 args;\n"
   "flat out uvec4 cmd;\n"
   "void main() { gl_Position = vec4(pos, 0.0, 1.0); cmd = args; }\n";
static const char *fs_white_src =
   "#version 130\n"
   "void main() { gl_FragColor = vec4(1.0); }\n";

static GLuint prog, prog_xfb, vbo_tris, vbo_quads, ibo;

static void
cell_color(int cell, float *out)
{
   out[0] = (cell % 4) / 3.0f;
   out[1] = ((cell / 4) % 4) / 3.0f;
   out[2] = (cell / 16) / 3.0f;
   out[3] = 1;
}

struct vtx {
   float pos[2];
   float color[4];
};

/* Every cell twice: 6 triangle-list vertices each (vbo_tris) and 4 corners
 * each (vbo_quads, for the index buffer's [0 1 2 2 1 3] pattern plus a
 * base vertex of 4 * cell). */
static bool
setup(void)
{
   static struct vtx tris[CELLS * CELLS * 6], quads[CELLS * CELLS * 4];
   static const int tri_corner[6] = { 0, 1, 2, 2, 1, 3 };
   for (int c = 0; c < CELLS * CELLS; c++) {
      for (int v = 0; v < 6; v++) {
         cell_xy(c, tri_corner[v], tris[c * 6 + v].pos);
         cell_color(c, tris[c * 6 + v].color);
      }
      for (int v = 0; v < 4; v++) {
         cell_xy(c, v, quads[c * 4 + v].pos);
         cell_color(c, quads[c * 4 + v].color);
      }
   }
   cell_buffers(tris, sizeof(tris), quads, sizeof(quads), &vbo_tris, &vbo_quads, &ibo);

   if (!gl_has_ext("GL_ARB_draw_instanced") || !gl_has_ext("GL_ARB_draw_elements_base_vertex"))
      GL_FAIL("GL_ARB_draw_instanced or GL_ARB_draw_elements_base_vertex missing");
   prog = gl_program(vs_src, fs_src);
   if (!prog)
      return false;
   /* writes DrawArraysIndirectCommand `args` by transform feedback */
   prog_xfb = gl_xfb_program(vs_xfb_src, fs_white_src, "cmd");
   if (!prog_xfb)
      return false;
   if (!gl_has_ext("GL_ARB_draw_indirect"))
      GL_FAIL("no GL_ARB_draw_indirect");

   if (!gl_target_fbo(W, H))
      GL_FAIL("framebuffer incomplete");
   return true;
}

/* vertices of `vbo`, no instancing offset, no tint */
static void
use_vertices(GLuint vbo)
{
   glUseProgram(prog);
   glUniform2f(glGetUniformLocation(prog, "inst_step"), 0, 0);
   glUniform4f(glGetUniformLocation(prog, "tint"), 1, 1, 1, 1);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   glEnableVertexAttribArray(0);
   glEnableVertexAttribArray(1);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(struct vtx), (void *)0);
   glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(struct vtx),
                         (void *)offsetof(struct vtx, color));
}

/* per case: a cleared target and vertices of `vbo` */
static void
begin(GLuint vbo)
{
   use_vertices(vbo);
   glClearColor(0.1f, 0.1f, 0.1f, 1);
   glClear(GL_COLOR_BUFFER_BIT);
}

/* glMultiDrawArrays: ranges of one, two and no cells */
static bool
case_multi_arrays(void)
{
   begin(vbo_tris);
   const GLint first[] = { 0 * 6, 9 * 6, 20 * 6, 33 * 6, 63 * 6 };
   const GLsizei count[] = { 6, 12, 0, 6, 6 };
   glMultiDrawArrays(GL_TRIANGLES, first, count, 5);
   return true;
}

/* glMultiDrawElementsBaseVertex: an index buffer, index offsets (first)
 * and base vertices, one draw of no indices */
static bool
case_multi_elements_base_vertex(void)
{
   begin(vbo_quads);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
   const GLsizei count[] = { 6, 12, 0, 6, 6 };
   const void *offset[] = { (void *)0, (void *)0, (void *)0, (void *)12, (void *)12 };
   const GLint base[] = { 4 * 2, 4 * 17, 4 * 30, 4 * 40, 4 * 61 };
   glMultiDrawElementsBaseVertex(GL_TRIANGLES, count, GL_UNSIGNED_SHORT, offset, 5, base);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
   return true;
}

/* indices in client memory (the driver uploads them), u8 and u32 */
static bool
case_user_indices(void)
{
   begin(vbo_quads);
   static const uint8_t idx8[] = { 9, 9, 0, 1, 2, 2, 1, 3 };
   static const uint32_t idx32[] = { 4, 5, 6, 6, 5, 7 };
   glDrawElementsBaseVertex(GL_TRIANGLES, 6, GL_UNSIGNED_BYTE, idx8 + 2, 4 * 12);
   glDrawElementsBaseVertex(GL_TRIANGLES, 6, GL_UNSIGNED_INT, idx32, 4 * 44);
   const GLsizei count[] = { 6, 6 };
   const void *ptr[] = { idx8 + 2, idx32 };
   const GLint base[] = { 4 * 50, 4 * 5 };
   glMultiDrawElementsBaseVertex(GL_TRIANGLES, count, GL_UNSIGNED_BYTE, ptr, 1, base);
   glMultiDrawElementsBaseVertex(GL_TRIANGLES, count + 1, GL_UNSIGNED_INT, ptr + 1, 1, base + 1);
   return true;
}

/* instances step one cell right; arrays and base-vertex elements */
static bool
case_instanced(void)
{
   begin(vbo_tris);
   glUniform2f(glGetUniformLocation(prog, "inst_step"), 2.0f / CELLS, 0);
   glDrawArraysInstanced(GL_TRIANGLES, 8 * 6, 6, 5);
   use_vertices(vbo_quads);
   glUniform2f(glGetUniformLocation(prog, "inst_step"), 0, 2.0f / CELLS);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
   glDrawElementsInstancedBaseVertex(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, (void *)12, 3, 4 * 2);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
   return true;
}

/* glDrawArraysIndirect: count, instances, first from the buffer, at an
 * offset */
static bool
case_arrays_indirect(void)
{
   begin(vbo_tris);
   glUniform2f(glGetUniformLocation(prog, "inst_step"), 2.0f / CELLS, 0);
   const GLuint args[] = { 1, 1, 1, 0, /* draw_arrays_indirect_args: */ 6, 3, 26 * 6, 0 };
   GLuint buf = indirect_buffer(args, sizeof(args));
   glDrawArraysIndirect(GL_TRIANGLES, (void *)16);
   end_indirect(buf);
   return true;
}

/* glDrawElementsIndirect: first index and base vertex from the buffer */
static bool
case_elements_indirect(void)
{
   begin(vbo_quads);
   glUniform2f(glGetUniformLocation(prog, "inst_step"), 0, 2.0f / CELLS);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
   const GLuint args[] = { 6, 2, 6, 4 * 20, 0 };
   GLuint buf = indirect_buffer(args, sizeof(args));
   glDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_SHORT, (void *)0);
   end_indirect(buf);
   return true;
}

/* glMultiDrawArraysIndirect (packed, one command of no vertices) and
 * glMultiDrawElementsIndirect (a 32-byte stride) */
static bool
case_multi_indirect(void)
{
   begin(vbo_tris);
   const GLuint arrays[] = { 6, 1, 40 * 6, 0, 0, 1, 0, 0, 12, 1, 44 * 6, 0 };
   GLuint buf = indirect_buffer(arrays, sizeof(arrays));
   glMultiDrawArraysIndirect(GL_TRIANGLES, (void *)0, 3, 0);
   end_indirect(buf);
   use_vertices(vbo_quads);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
   const GLuint elements[] = { 6, 1, 0, 4 * 50, 0, 0, 0, 0, 6, 1, 6, 4 * 55, 0, 0, 0, 0 };
   buf = indirect_buffer(elements, sizeof(elements));
   glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_SHORT, (void *)0, 2, 32);
   end_indirect(buf);
   return true;
}

/* arguments written by the device (transform feedback, rasterizer
 * discarded), then read by it in the indirect draw that follows */
static bool
case_xfb_indirect(void)
{
   begin(vbo_tris);
   GLuint buf;
   glGenBuffers(1, &buf);
   glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, buf);
   glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, 16, NULL, GL_STATIC_DRAW);
   glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, buf);
   glUseProgram(prog_xfb);
   glUniform4ui(glGetUniformLocation(prog_xfb, "args"), 6, 2, 35 * 6, 0);
   glEnable(GL_RASTERIZER_DISCARD);
   glBeginTransformFeedback(GL_POINTS);
   glDrawArrays(GL_POINTS, 0, 1);
   glEndTransformFeedback();
   glDisable(GL_RASTERIZER_DISCARD);
   glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
   glUseProgram(prog);
   glUniform2f(glGetUniformLocation(prog, "inst_step"), 0, -2.0f / CELLS);
   glBindBuffer(GL_DRAW_INDIRECT_BUFFER, buf);
   glDrawArraysIndirect(GL_TRIANGLES, (void *)0);
   end_indirect(buf);
   return true;
}

/* 3000 draws of one cell in one frame, each with its own tint (uniforms):
 * a control stream of several chained chunks, the last tint of each cell
 * visible */
static bool
case_many_draws(void)
{
   begin(vbo_tris);
   GLint tint = glGetUniformLocation(prog, "tint");
   for (int i = 0; i < 3000; i++) {
      glUniform4f(tint, (i % 7) / 6.0f, (i % 11) / 10.0f, 1 - (i % 5) / 4.0f, 1);
      glDrawArrays(GL_TRIANGLES, (i * 37 % (CELLS * CELLS)) * 6, 6);
   }
   return true;
}

/* Occlusion queries: more than one of the driver's query slabs (2048
 * results to a 16 KiB buffer), each counting 1-4 cells (64 samples each);
 * then the first 300 begun again (their slots written: the driver moves
 * them to fresh ones), all deleted and new ones made (new slabs on
 * recycled memory).  Every result is checked. */
#define NQUERIES 2500
static bool
check_queries(const GLuint *q, int n, int salt, const char *what)
{
   for (int i = 0; i < n; i++) {
      GLuint v = 0;
      glGetQueryObjectuiv(q[i], GL_QUERY_RESULT, &v);
      const GLuint want = 64 * (1 + (i + salt) % 4);
      if (v != want)
         GL_FAIL("%s: query %d counted %u samples, want %u", what, i, v, want);
   }
   return true;
}

static void
draw_queries(const GLuint *q, int n, int salt)
{
   for (int i = 0; i < n; i++) {
      glBeginQuery(GL_SAMPLES_PASSED, q[i]);
      glDrawArrays(GL_TRIANGLES, (i * 5 % (CELLS * CELLS - 4)) * 6, 6 * (1 + (i + salt) % 4));
      glEndQuery(GL_SAMPLES_PASSED);
   }
}

static bool
case_many_queries(void)
{
   begin(vbo_tris);
   static GLuint q[NQUERIES];
   glGenQueries(NQUERIES, q);
   draw_queries(q, NQUERIES, 0);
   if (!check_queries(q, NQUERIES, 0, "first use"))
      return false;
   draw_queries(q, 300, 1);
   if (!check_queries(q, 300, 1, "begun again") || !check_queries(q + 300, NQUERIES - 300, 300, "kept"))
      return false;
   glDeleteQueries(NQUERIES, q);
   glGenQueries(300, q);
   draw_queries(q, 300, 2);
   bool ok = check_queries(q, 300, 2, "new queries");
   glDeleteQueries(300, q);
   return ok;
}

/* 150000 draws of one point each, with 15 vec4 varyings (squared in the
 * fragment shader, so no link-time optimisation folds them), in one frame
 * (glMultiDrawArrays): every draw costs the render job's geometry budget
 * its primitive with 50 coefficient registers as the device counts them
 * and one tile (2116 bytes), and the draw itself (RENDER_GEOMETRY_DRAW_COST,
 * 2048): 625 MB in all, more than the 512 MiB budget of one job but less
 * than the driver's 8 MiB command-stream bound splits.  A driver that
 * charges the primitives but not the draws keeps them in one job, which the
 * device fails at about the 128850th draw (the image is then the clear
 * colour's or black).  Point i lands on pixel (i % 4096): the last round
 * is visible. */
#define BUDGET_DRAWS 150000
static const char *vs_points_src =
   "#version 130\n"
   "in vec2 pos;\n"
   "out vec4 v[15];\n"
   "void main() {\n"
   "   int id = gl_VertexID / 2;\n"
   "   gl_Position = vec4(pos, 0.0, 1.0);\n"
   "   for (int i = 0; i < 15; i++) {\n"
   "      int r = id / 7 + i;\n"
   "      v[i] = vec4(float(r & 1), float((r >> 1) & 1), float((r >> 2) & 1), 1.0);\n"
   "   }\n"
   "}\n";
static const char *fs_points_src =
   "#version 130\n"
   "in vec4 v[15];\n"
   "void main() {\n"
   "   vec4 s = vec4(0.0);\n"
   "   for (int i = 0; i < 15; i++) s += v[i] * v[i] * float(i + 1);\n"
   "   gl_FragColor = s / 120.0;\n"
   "}\n";

static bool
case_budget_points(void)
{
   GLuint p = gl_program(vs_points_src, fs_points_src);
   if (!p)
      GL_FAIL("point shaders do not compile or link");
   static GLint first[BUDGET_DRAWS];
   static GLsizei count[BUDGET_DRAWS];
   static float pos[2 * BUDGET_DRAWS][2];
   /* gaps between the draws (vertex 2i is draw i's): nothing may merge them */
   for (int i = 0; i < BUDGET_DRAWS; i++) {
      first[i] = 2 * i;
      count[i] = 1;
      const int px = i % 4096;
      pos[2 * i][0] = (px % 64 + 0.5f) / 32 - 1;
      pos[2 * i][1] = (px / 64 + 0.5f) / 32 - 1;
   }
   GLuint vbo;
   glGenBuffers(1, &vbo);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   glBufferData(GL_ARRAY_BUFFER, sizeof(pos), pos, GL_STATIC_DRAW);
   glClearColor(0.1f, 0.1f, 0.1f, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glDisableVertexAttribArray(1);
   glEnableVertexAttribArray(0);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (void *)0);
   glMultiDrawArrays(GL_POINTS, first, count, BUDGET_DRAWS);
   glUseProgram(prog);
   glDeleteProgram(p);
   glDeleteBuffers(1, &vbo);
   return true;
}

static const struct gl_case cases[] = {
   { "multi_arrays", case_multi_arrays },
   { "multi_elements_base_vertex", case_multi_elements_base_vertex },
   { "user_indices", case_user_indices },
   { "instanced", case_instanced },
   { "arrays_indirect", case_arrays_indirect },
   { "elements_indirect", case_elements_indirect },
   { "multi_indirect", case_multi_indirect },
   { "xfb_indirect", case_xfb_indirect },
   { "many_draws", case_many_draws },
   { "many_queries", case_many_queries },
   /* last: a job the device fails leaves its queue unusable */
   { "budget_points", case_budget_points },
};

int
main(int argc, char **argv)
{
   static const struct gl_suite suite = {
      .cases = cases, .n = sizeof(cases) / sizeof(cases[0]), .outdir = true, .setup = setup,
      .px = px, .readback = true, .w = W, .h = H,
   };
   return gl_run(argc, argv, &suite);
}
