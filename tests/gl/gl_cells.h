/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the desktop-GL tests that draw into a grid of CELLS x CELLS
 * cells (gl_indirect.c, gl_drawparams.c): cell corners in clip space and
 * buffers of indirect-draw arguments.  Include after gl_desktop.h.
 */
#ifndef GL_CELLS_H
#define GL_CELLS_H

#define CELLS 8 /* per row and column */

/* One cell's corner (0..3: x from bit 0, y from bit 1) in clip space */
static inline void
cell_xy(int cell, int corner, float *out)
{
   const float s = 2.0f / CELLS;
   out[0] = -1 + s * (cell % CELLS + (corner & 1));
   out[1] = -1 + s * (cell / CELLS + (corner >> 1));
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
