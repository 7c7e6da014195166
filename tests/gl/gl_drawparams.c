/* SPDX-License-Identifier: MIT */
/*
 * gl_drawparams OUTDIR [CASE...]: GL_ARB_shader_draw_parameters
 * (gl_DrawIDARB, gl_BaseVertexARB, gl_BaseInstanceARB) in every kind of
 * draw the vagx driver emits differently: glMultiDrawArrays,
 * glMultiDrawElementsBaseVertex, glMultiDrawArraysIndirect,
 * glMultiDrawElementsIndirect, single draws, and multi-draws of 70000
 * draws (ids above the device's 16-bit field) (desktop GL compatibility
 * context, EGL surfaceless).  The vertex shader writes the three values
 * (and gl_InstanceID) into a flat colour; every draw covers cells of a
 * 64x64 RGBA8 target (8x8 cells of 8x8 pixels), empty draws included.
 * Each case checks every cell's exact colour against the values this file
 * computes from GL's rules (gl_DrawID = the index within the multi-draw
 * call, also of indirect records; gl_BaseVertex = the base vertex of an
 * indexed draw, 0 for a non-indexed one; gl_BaseInstance the draw's, of an
 * indirect draw from its record) and writes OUTDIR/NAME.ppm.  tests/gl/run
 * runs it on llvmpipe (softpipe lacks the extension) and on vagx and also
 * compares the images.
 */
#include "gl_desktop.h"
#include "gl_cells.h"
#include <stdint.h>

#define W 64
#define H 64

static unsigned char px[W * H * 4];

/* R = gl_DrawID, G = gl_BaseVertex, B = gl_BaseInstance * 16 +
 * gl_InstanceID, all below 256 here, so unorm8 keeps them exactly */
static const char *vs_src =
   "#version 130\n"
   "#extension GL_ARB_draw_instanced : require\n"
   "#extension GL_ARB_shader_draw_parameters : require\n"
   "in vec2 pos;\n"
   "uniform vec2 inst_step;\n"
   "flat out vec4 c;\n"
   "void main() {\n"
   "   gl_Position = vec4(pos + inst_step * float(gl_InstanceIDARB), 0.0, 1.0);\n"
   "   c = vec4(float(gl_DrawIDARB), float(gl_BaseVertexARB),\n"
   "            float(gl_BaseInstanceARB * 16 + gl_InstanceIDARB), 255.0) / 255.0;\n"
   "}\n";
static const char *fs_src =
   "#version 130\n"
   "flat in vec4 c;\n"
   "void main() { gl_FragColor = c; }\n";

static GLuint prog, vbo_tris, vbo_quads, ibo;

/* Every cell as 6 triangle-list vertices (vbo_tris) and as 4 corners
 * (vbo_quads, for the index buffer's [0 1 2 2 1 3] pattern plus a base
 * vertex of 4 * cell; indices 6..11 are the next cell's). */
static bool
setup(void)
{
   static float tris[CELLS * CELLS * 6][2], quads[CELLS * CELLS * 4][2];
   static const int tri_corner[6] = { 0, 1, 2, 2, 1, 3 };
   for (int c = 0; c < CELLS * CELLS; c++) {
      for (int v = 0; v < 6; v++)
         cell_xy(c, tri_corner[v], tris[c * 6 + v]);
      for (int v = 0; v < 4; v++)
         cell_xy(c, v, quads[c * 4 + v]);
   }
   if (!gl_has_ext("GL_ARB_shader_draw_parameters"))
      GL_FAIL("skip: no GL_ARB_shader_draw_parameters");
   if (!gl_has_ext("GL_ARB_multi_draw_indirect") || !gl_has_ext("GL_ARB_base_instance"))
      GL_FAIL("GL_ARB_multi_draw_indirect or GL_ARB_base_instance missing");
   cell_buffers(tris, sizeof(tris), quads, sizeof(quads), &vbo_tris, &vbo_quads, &ibo);
   prog = gl_program(vs_src, fs_src);
   if (!prog)
      return false;
   if (!gl_target_fbo(W, H))
      GL_FAIL("framebuffer incomplete");
   return true;
}

/* the program, vertices of `vbo` as attribute 0, instances one cell right */
static void
use_vertices(GLuint vbo)
{
   glUseProgram(prog);
   glUniform2f(glGetUniformLocation(prog, "inst_step"), 2.0f / CELLS, 0);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   glEnableVertexAttribArray(0);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (void *)0);
}

/* per case: a target cleared to 0 (alpha 0: no draw writes that) */
static void
begin(GLuint vbo)
{
   use_vertices(vbo);
   glClearColor(0, 0, 0, 0);
   glClear(GL_COLOR_BUFFER_BIT);
}

/* What one cell must hold */
struct cell {
   int cell, draw_id, base_vertex, base_instance, instance;
};

/* Every cell's centre pixel: exp[cell] (RGBA) */
static bool
check_rgba(const unsigned char (*exp)[4])
{
   static unsigned char got[W * H * 4];
   glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, got);
   for (int c = 0; c < CELLS * CELLS; c++) {
      const int x = (c % CELLS) * (W / CELLS) + W / CELLS / 2;
      const int y = (c / CELLS) * (H / CELLS) + H / CELLS / 2;
      const unsigned char *p = &got[(y * W + x) * 4];
      if (memcmp(p, exp[c], 4))
         GL_FAIL("cell %d: (%u %u %u %u), want (%u %u %u %u)", c, p[0], p[1], p[2], p[3],
                 exp[c][0], exp[c][1], exp[c][2], exp[c][3]);
   }
   return true;
}

/* The listed cells the colour of their values (R draw id, G base vertex,
 * B base instance * 16 + instance), all others the clear colour */
static bool
check_cells(const struct cell *want, unsigned n)
{
   unsigned char exp[CELLS * CELLS][4] = { { 0 } };
   for (unsigned i = 0; i < n; i++) {
      exp[want[i].cell][0] = want[i].draw_id;
      exp[want[i].cell][1] = want[i].base_vertex;
      exp[want[i].cell][2] = want[i].base_instance * 16 + want[i].instance;
      exp[want[i].cell][3] = 255;
   }
   return check_rgba(exp);
}

#define CHECK_CELLS(...)                                                              \
   do {                                                                               \
      static const struct cell want_[] = { __VA_ARGS__ };                             \
      return check_cells(want_, sizeof(want_) / sizeof(want_[0]));                    \
   } while (0)

/* glMultiDrawArrays: ids 0..3 (2 has no vertices), a non-indexed draw's
 * base vertex is 0 whatever its first vertex */
static bool
case_multi_arrays(void)
{
   begin(vbo_tris);
   const GLint first[] = { 0 * 6, 9 * 6, 20 * 6, 33 * 6 };
   const GLsizei count[] = { 6, 12, 0, 6 };
   glMultiDrawArrays(GL_TRIANGLES, first, count, 4);
   CHECK_CELLS({ 0, 0, 0, 0, 0 }, { 9, 1, 0, 0, 0 }, { 10, 1, 0, 0, 0 }, { 33, 3, 0, 0, 0 });
}

/* glMultiDrawElementsBaseVertex: each draw's own base vertex, an index
 * offset, one draw of no indices */
static bool
case_multi_elements_base_vertex(void)
{
   begin(vbo_quads);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
   const GLsizei count[] = { 6, 6, 0, 6 };
   const void *offset[] = { (void *)0, (void *)12, (void *)0, (void *)0 };
   const GLint base[] = { 4 * 40, 4 * 41, 4 * 5, 4 * 50 };
   glMultiDrawElementsBaseVertex(GL_TRIANGLES, count, GL_UNSIGNED_SHORT, offset, 4, base);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
   CHECK_CELLS({ 40, 0, 160, 0, 0 }, { 42, 1, 164, 0, 0 }, { 50, 3, 200, 0, 0 });
}

/* glMultiDrawArraysIndirect (packed): the records' base instances and
 * instance counts, record 1 empty; the ids are the records' indices */
static bool
case_multi_arrays_indirect(void)
{
   begin(vbo_tris);
   const GLuint args[] = { 6, 1, 24 * 6, 0, 0, 1, 0, 0, 6, 2, 26 * 6, 3, 6, 1, 12 * 6, 7 };
   GLuint buf = indirect_buffer(args, sizeof(args));
   glMultiDrawArraysIndirect(GL_TRIANGLES, (void *)0, 4, 0);
   end_indirect(buf);
   CHECK_CELLS({ 24, 0, 0, 0, 0 }, { 26, 2, 0, 3, 0 }, { 27, 2, 0, 3, 1 }, { 12, 3, 0, 7, 0 });
}

/* glMultiDrawElementsIndirect (a 32-byte stride): base vertices from the
 * records, instances */
static bool
case_multi_elements_indirect(void)
{
   begin(vbo_quads);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
   const GLuint args[] = { 6, 1, 0, 4 * 56, 0, 0, 0, 0, 6, 2, 6, 4 * 57, 5, 0, 0, 0,
                           6, 1, 0, 4 * 62, 1, 0, 0, 0 };
   GLuint buf = indirect_buffer(args, sizeof(args));
   glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_SHORT, (void *)0, 3, 32);
   end_indirect(buf);
   CHECK_CELLS({ 56, 0, 224, 0, 0 }, { 58, 1, 228, 5, 0 }, { 59, 1, 228, 5, 1 },
               { 62, 2, 248, 1, 0 });
}

/* single draws (id 0, also right after a multi-draw), direct base
 * instance, base vertex and single indirect draws */
static bool
case_single_draws(void)
{
   begin(vbo_tris);
   const GLint first[] = { 1 * 6, 2 * 6 };
   const GLsizei count[] = { 6, 6 };
   glMultiDrawArrays(GL_TRIANGLES, first, count, 2);
   glDrawArrays(GL_TRIANGLES, 7 * 6, 6);
   glDrawArraysInstancedBaseInstance(GL_TRIANGLES, 3 * 6, 6, 1, 9);
   const GLuint arr_args[] = { 6, 1, 44 * 6, 2 };
   GLuint buf = indirect_buffer(arr_args, sizeof(arr_args));
   glDrawArraysIndirect(GL_TRIANGLES, (void *)0);
   end_indirect(buf);
   use_vertices(vbo_quads);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
   glDrawElementsInstancedBaseVertexBaseInstance(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, (void *)0, 2,
                                                 4 * 16, 2);
   const GLuint el_args[] = { 6, 1, 6, 4 * 20, 4 };
   buf = indirect_buffer(el_args, sizeof(el_args));
   glDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_SHORT, (void *)0);
   end_indirect(buf);
   CHECK_CELLS({ 1, 0, 0, 0, 0 }, { 2, 1, 0, 0, 0 }, { 7, 0, 0, 0, 0 }, { 3, 0, 0, 9, 0 },
               { 44, 0, 0, 2, 0 }, { 16, 0, 64, 2, 0 }, { 17, 0, 64, 2, 1 },
               { 21, 0, 80, 4, 0 });
}

/* gl_DrawID above 65535 (the device's cmd_draw.draw_id has 16 bits, the
 * driver adds cmd_draw_id_base): 70000 draws of glMultiDrawArrays and of
 * glMultiDrawArraysIndirect, all empty but those of ids 0, 65535, 65536
 * and 69999, whose cells show the id's three bytes */
#define MANY_IDS 70000
static const char *vs_id_src =
   "#version 130\n"
   "#extension GL_ARB_shader_draw_parameters : require\n"
   "in vec2 pos;\n"
   "flat out vec4 c;\n"
   "void main() {\n"
   "   gl_Position = vec4(pos, 0.0, 1.0);\n"
   "   int id = gl_DrawIDARB;\n"
   "   c = vec4(float(id & 255), float((id >> 8) & 255), float(id >> 16), 255.0) / 255.0;\n"
   "}\n";

static bool
case_draw_ids_above_16_bits(void)
{
   GLuint p = gl_program(vs_id_src, fs_src);
   if (!p)
      return false;
   /* draw 0 not empty: llvmpipe (Debian's Mesa 25.0.7) draws nothing of a
    * multi-draw whose first draw is empty */
   static const int ids[] = { 0, 65535, 65536, 69999 };
   static GLint first[MANY_IDS];
   static GLsizei count[MANY_IDS];
   static GLuint args[MANY_IDS][4];
   unsigned char exp[CELLS * CELLS][4] = { { 0 } };
   bool ok = true;
   for (int pass = 0; pass < 2 && ok; pass++) {
      memset(count, 0, sizeof(count));
      memset(args, 0, sizeof(args));
      memset(exp, 0, sizeof(exp));
      for (unsigned k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
         const int cell = 8 * pass + 2 * k, id = ids[k];
         first[id] = cell * 6;
         count[id] = 6;
         args[id][0] = 6;
         args[id][1] = 1;
         args[id][2] = cell * 6;
         exp[cell][0] = id & 255;
         exp[cell][1] = (id >> 8) & 255;
         exp[cell][2] = id >> 16;
         exp[cell][3] = 255;
      }
      begin(vbo_tris);
      glUseProgram(p);
      if (pass == 0) {
         glMultiDrawArrays(GL_TRIANGLES, first, count, MANY_IDS);
      } else {
         GLuint buf = indirect_buffer(args, sizeof(args));
         glMultiDrawArraysIndirect(GL_TRIANGLES, (void *)0, MANY_IDS, 0);
         end_indirect(buf);
      }
      ok = check_rgba(exp);
   }
   glUseProgram(prog);
   glDeleteProgram(p);
   return ok;
}

static const struct gl_case cases[] = {
   { "multi_arrays", case_multi_arrays },
   { "multi_elements_base_vertex", case_multi_elements_base_vertex },
   { "multi_arrays_indirect", case_multi_arrays_indirect },
   { "multi_elements_indirect", case_multi_elements_indirect },
   { "single_draws", case_single_draws },
   { "draw_ids_above_16_bits", case_draw_ids_above_16_bits },
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
