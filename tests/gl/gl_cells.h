/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the desktop-GL tests that draw into a grid of CELLS x CELLS
 * cells (gl_indirect.c, gl_drawparams.c): cell corners in clip space and
 * the grid's vertex and index buffers, buffers of indirect-draw arguments.
 * Include after gl_desktop.h.
 */
#ifndef GL_CELLS_H
#define GL_CELLS_H

#include <stdint.h>

#define CELLS 8 /* per row and column */

/* One cell's corner (0..3: x from bit 0, y from bit 1) in clip space */
static inline void
cell_xy(int cell, int corner, float *out)
{
   const float s = 2.0f / CELLS;
   out[0] = -1 + s * (cell % CELLS + (corner & 1));
   out[1] = -1 + s * (cell / CELLS + (corner >> 1));
}

/* The grid's vertex and index buffers: `tris` (6 triangle-list vertices a
 * cell, `tris_size` bytes) into *vbo_tris, `quads` (4 corners a cell) into
 * *vbo_quads, and the indices of two quads, [0 1 2 2 1 3] and the same
 * + 4 (so `first` can pick the second), into *ibo; GL_ARRAY_BUFFER is left
 * bound to *vbo_quads, GL_ELEMENT_ARRAY_BUFFER to none */
static inline void
cell_buffers(const void *tris, GLsizeiptr tris_size, const void *quads, GLsizeiptr quads_size,
             GLuint *vbo_tris, GLuint *vbo_quads, GLuint *ibo)
{
   static const uint16_t idx[12] = { 0, 1, 2, 2, 1, 3, 4, 5, 6, 6, 5, 7 };
   glGenBuffers(1, vbo_tris);
   glBindBuffer(GL_ARRAY_BUFFER, *vbo_tris);
   glBufferData(GL_ARRAY_BUFFER, tris_size, tris, GL_STATIC_DRAW);
   glGenBuffers(1, vbo_quads);
   glBindBuffer(GL_ARRAY_BUFFER, *vbo_quads);
   glBufferData(GL_ARRAY_BUFFER, quads_size, quads, GL_STATIC_DRAW);
   glGenBuffers(1, ibo);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, *ibo);
   glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof(idx), idx, GL_STATIC_DRAW);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
}

/* A GL_DRAW_INDIRECT_BUFFER holding `size` bytes of arguments, bound */
static inline GLuint
indirect_buffer(const void *args, GLsizeiptr size)
{
   GLuint buf;
   glGenBuffers(1, &buf);
   glBindBuffer(GL_DRAW_INDIRECT_BUFFER, buf);
   glBufferData(GL_DRAW_INDIRECT_BUFFER, size, args, GL_STATIC_DRAW);
   return buf;
}

/* After an indirect draw: the argument and index buffers unbound, the
 * arguments deleted */
static inline void
end_indirect(GLuint buf)
{
   glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
   glDeleteBuffers(1, &buf);
}

#endif
