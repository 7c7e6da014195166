/* SPDX-License-Identifier: MIT */
/*
 * gl_sparse: GL_ARB_sparse_buffer on the device.  Every case computes the
 * image or data it expects from the commitment it made and checks every
 * pixel or word:
 *
 *   read        the colours of a grid of quads come from a sparse vertex
 *               buffer, one sparse page per cell, a checkerboard of pages
 *               committed: committed cells show their colour, uncommitted
 *               ones read zero; the commitment then changes (pages
 *               decommitted and committed) and a second grid is drawn,
 *               both read back only at the end, so each draw must see the
 *               commitment of its place in the command stream (the binds
 *               are asynchronous, the CPU never waits for them)
 *   xfb         transform feedback writes a value per vertex over a whole
 *               sparse buffer with every other page committed: committed
 *               pages hold the values, uncommitted ones read zero, and a
 *               committed page of another sparse buffer (memory the heap
 *               could hand around) is untouched
 *   many_ranges every other page of 2064 committed, then all decommitted
 *               in one call: more ranges than one VM_BIND takes; the first
 *               and last pages read zero, and their colour when committed
 *               again
 *   stress      96 rows of the read case's cells, a random page
 *               committed or decommitted (and a committed page rewritten)
 *               between rows, nothing waited for until the final read: no
 *               row may lose or gain a cell
 *
 * Prints "case NAME ok" or "case NAME error: ..." (tests/gl/run runs it on
 * vagx with the drm-shim holding every job 5 ms, so binds queue up behind
 * rendering).  "case NAME skip: ..." without GL_ARB_sparse_buffer.
 *
 *   gl_sparse [CASE...] | --list
 */
#include "gl_desktop.h"
#include <stdint.h>
#include <stdlib.h>

#define CELLS 8   /* cells of a row = sparse pages of the colour buffer */
#define CELL_PX 4

static GLint page_size;
/* an extension entry point: not exported by libOpenGL */
static PFNGLBUFFERPAGECOMMITMENTARBPROC page_commitment;
static GLuint prog;

static const char *vs_src =
   "#version 130\n"
   "in vec2 pos;\n"
   "in vec4 attr;\n"
   "out vec4 c;\n"
   "void main() { gl_Position = vec4(pos, 0.0, 1.0); c = attr; }\n";
static const char *fs_src =
   "#version 130\n"
   "in vec4 c;\n"
   "void main() { gl_FragColor = c; }\n";

/* The colour of page p in generation g (never zero, never the clear) */
static void
page_color(unsigned p, unsigned g, uint8_t out[4])
{
   out[0] = 40 + 25 * p;
   out[1] = 200 - 13 * (g % 15);
   out[2] = 17 * ((p + g) % 15);
   out[3] = 255 - (g % 7);
}

/* Writes the colour of page p (4 vertices) at the page's start, as floats:
 * a format the device fetches itself (u_vbuf would read a byte format on
 * the CPU at draw time, which says nothing of the device's view) */
static void
write_page(GLuint buf, unsigned p, unsigned g)
{
   float c[16];
   for (unsigned v = 0; v < 4; v++) {
      uint8_t b[4];
      page_color(p, g, b);
      for (unsigned k = 0; k < 4; k++)
         c[4 * v + k] = b[k] / 255.0f;
   }
   glBindBuffer(GL_ARRAY_BUFFER, buf);
   glBufferSubData(GL_ARRAY_BUFFER, (GLintptr)p * page_size, sizeof(c), c);
}

static void
commit(GLuint buf, unsigned p, bool on)
{
   glBindBuffer(GL_ARRAY_BUFFER, buf);
   page_commitment(GL_ARRAY_BUFFER, (GLintptr)p * page_size, page_size, on);
}

/* Draws row `row` of `rows` rows: cell p's quad, coloured by page base + p */
static void
draw_row_at(GLuint buf, unsigned base, unsigned row, unsigned rows)
{
   for (unsigned p = 0; p < CELLS; p++) {
      const float x0 = -1 + 2.0f * p / CELLS, x1 = -1 + 2.0f * (p + 1) / CELLS;
      const float y0 = -1 + 2.0f * row / rows, y1 = -1 + 2.0f * (row + 1) / rows;
      const float pos[] = { x0, y0, x1, y0, x0, y1, x1, y1 };
      glBindBuffer(GL_ARRAY_BUFFER, 0);
      glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, pos);
      glEnableVertexAttribArray(0);
      glBindBuffer(GL_ARRAY_BUFFER, buf);
      glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 0,
                            (const void *)((uintptr_t)(base + p) * page_size));
      glEnableVertexAttribArray(1);
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
   }
}

static void
draw_row(GLuint buf, unsigned row, unsigned rows)
{
   draw_row_at(buf, 0, row, rows);
}

/* A framebuffer of CELLS x rows cells, cleared to magenta */
static void
target(unsigned rows)
{
   gl_target_fbo(CELLS * CELL_PX, rows * CELL_PX);
   glClearColor(1, 0, 1, 1);
   glClear(GL_COLOR_BUFFER_BIT);
}

/* Every pixel of cell (p, row) is want (within 1: interpolation of equal
 * values) */
static bool
check_cells(const uint8_t *px, unsigned rows, const uint8_t (*want)[CELLS][4])
{
   const unsigned w = CELLS * CELL_PX;
   for (unsigned y = 0; y < rows * CELL_PX; y++) {
      for (unsigned x = 0; x < w; x++) {
         const uint8_t *got = px + 4 * (y * w + x), *e = want[y / CELL_PX][x / CELL_PX];
         for (unsigned k = 0; k < 4; k++) {
            if (abs(got[k] - e[k]) > 1) {
               snprintf(gl_err, sizeof(gl_err),
                        "cell %u of row %u, pixel (%u, %u): %u,%u,%u,%u, expected %u,%u,%u,%u",
                        x / CELL_PX, y / CELL_PX, x, y, got[0], got[1], got[2], got[3], e[0],
                        e[1], e[2], e[3]);
               return false;
            }
         }
      }
   }
   return true;
}

static GLuint
sparse_buffer(GLsizeiptr size)
{
   GLuint buf;
   glGenBuffers(1, &buf);
   glBindBuffer(GL_ARRAY_BUFFER, buf);
   glBufferStorage(GL_ARRAY_BUFFER, size, NULL, GL_DYNAMIC_STORAGE_BIT | GL_SPARSE_STORAGE_BIT_ARB);
   return buf;
}

/* Draws `rows` rows, changing the commitment between rows by `step`
 * (which updates committed[] and gen[]), and checks the whole image */
static bool
rows_with_changes(unsigned rows, void (*step)(GLuint, unsigned, bool *, unsigned *))
{
   GLuint buf = sparse_buffer((GLsizeiptr)CELLS * page_size);
   bool committed[CELLS] = { 0 };
   unsigned gen[CELLS] = { 0 };
   uint8_t(*want)[CELLS][4] = calloc(rows, sizeof(*want));
   uint8_t *px = malloc((size_t)CELLS * CELL_PX * rows * CELL_PX * 4);
   target(rows);
   /* checkerboard: even pages committed; every page written (writes to
    * uncommitted pages are dropped) */
   for (unsigned p = 0; p < CELLS; p++) {
      committed[p] = !(p & 1);
      if (committed[p])
         commit(buf, p, true);
      write_page(buf, p, 0);
   }
   for (unsigned r = 0; r < rows; r++) {
      if (r)
         step(buf, r, committed, gen);
      draw_row(buf, r, rows);
      for (unsigned p = 0; p < CELLS; p++) {
         if (committed[p])
            page_color(p, gen[p], want[r][p]);
         else
            memset(want[r][p], 0, 4);
      }
   }
   /* the only wait: everything above is queued (tests/gl/run counts the
    * driver's CPU waits of the read case before this line: none) */
   fprintf(stderr, "gl_sparse: rows queued\n"); /* in order with the driver's */
   glReadPixels(0, 0, CELLS * CELL_PX, rows * CELL_PX, GL_RGBA, GL_UNSIGNED_BYTE, px);
   bool ok = check_cells(px, rows, want);
   glDeleteBuffers(1, &buf);
   free(want);
   free(px);
   return ok;
}

/* read: one change between the two rows: the committed pages 0 and 2
 * decommitted, pages 1 and 3 committed and written (generation 1) */
static void
read_step(GLuint buf, unsigned row, bool *committed, unsigned *gen)
{
   for (unsigned p = 0; p < 4; p++) {
      commit(buf, p, !committed[p]);
      committed[p] = !committed[p];
      if (committed[p]) {
         gen[p] = row;
         write_page(buf, p, row);
      }
   }
}

static bool
read_case(void)
{
   return rows_with_changes(2, read_step);
}

/* stress: a random page toggled; a random committed page rewritten */
static void
stress_step(GLuint buf, unsigned row, bool *committed, unsigned *gen)
{
   const unsigned p = rand() % CELLS;
   commit(buf, p, !committed[p]);
   committed[p] = !committed[p];
   if (committed[p]) {
      gen[p] = row;
      write_page(buf, p, row);
   }
   const unsigned q = rand() % CELLS;
   if (committed[q]) {
      gen[q] = row;
      write_page(buf, q, row);
   }
}

static bool
stress_case(void)
{
   srand(20);
   return rows_with_changes(96, stress_step);
}

/* xfb: PAGES pages, odd ones committed; one vec4 (id, id * 3, -id, 7) per
 * point */
#define XFB_PAGES 4
static bool
xfb_case(void)
{
   static const char *xvs =
      "#version 130\n"
      "out vec4 v;\n"
      "void main() { float i = float(gl_VertexID);\n"
      "  v = vec4(i, i * 3.0, -i, 7.0); gl_Position = vec4(0.0); }\n";
   const GLuint xp = gl_xfb_program(xvs, NULL, "v");
   if (!xp)
      return false;
   const GLsizeiptr size = (GLsizeiptr)XFB_PAGES * page_size;
   const unsigned n = size / 16;
   GLuint buf = sparse_buffer(size);
   for (unsigned p = 1; p < XFB_PAGES; p += 2)
      commit(buf, p, true);
   /* another sparse buffer's committed page, filled before */
   GLuint other = sparse_buffer(page_size);
   commit(other, 0, true);
   uint32_t *pattern = malloc(page_size);
   for (int i = 0; i < page_size / 4; i++)
      pattern[i] = 0x5a000000u + i;
   glBindBuffer(GL_ARRAY_BUFFER, other);
   glBufferSubData(GL_ARRAY_BUFFER, 0, page_size, pattern);

   glUseProgram(xp);
   glEnable(GL_RASTERIZER_DISCARD);
   glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, buf);
   glBeginTransformFeedback(GL_POINTS);
   glDrawArrays(GL_POINTS, 0, n);
   glEndTransformFeedback();
   glDisable(GL_RASTERIZER_DISCARD);
   glUseProgram(prog);

   float *got = malloc(size);
   uint32_t *got_other = malloc(page_size);
   glBindBuffer(GL_ARRAY_BUFFER, buf);
   glGetBufferSubData(GL_ARRAY_BUFFER, 0, size, got);
   glBindBuffer(GL_ARRAY_BUFFER, other);
   glGetBufferSubData(GL_ARRAY_BUFFER, 0, page_size, got_other);
   bool ok = true;
   for (unsigned i = 0; i < n && ok; i++) {
      const bool c = (i * 16 / page_size) & 1;
      const float e[4] = { c ? i : 0, c ? i * 3.0f : 0, c ? -(float)i : 0, c ? 7 : 0 };
      if (memcmp(e, got + 4 * i, 16)) {
         snprintf(gl_err, sizeof(gl_err), "vertex %u (page %u, %scommitted): %g %g %g %g", i,
                  i * 16 / page_size, c ? "" : "un", got[4 * i], got[4 * i + 1],
                  got[4 * i + 2], got[4 * i + 3]);
         ok = false;
      }
   }
   if (ok && memcmp(pattern, got_other, page_size)) {
      snprintf(gl_err, sizeof(gl_err), "another sparse buffer's committed page changed");
      ok = false;
   }
   glDeleteBuffers(1, &buf);
   glDeleteBuffers(1, &other);
   glDeleteProgram(xp);
   free(got);
   free(got_other);
   free(pattern);
   return ok;
}

/* many_ranges: every other page of MANY_PAGES committed one by one, then
 * all decommitted by one call: more separate ranges than one VM_BIND takes
 * (1024), so several binds.  Rows drawn from the first and the last pages
 * must read zero after the decommit (both binds applied), and their colour
 * once committed again. */
#define MANY_PAGES 2064
static bool
many_ranges_case(void)
{
   GLuint buf = sparse_buffer((GLsizeiptr)MANY_PAGES * page_size);
   for (unsigned p = 0; p < MANY_PAGES; p += 2) {
      commit(buf, p, true);
      write_page(buf, p, 1);
   }
   const unsigned last = MANY_PAGES - CELLS;
   uint8_t want[4][CELLS][4];
   uint8_t *px = malloc((size_t)CELLS * CELL_PX * 4 * CELL_PX * 4);
   target(4);
   /* committed (even pages) */
   draw_row_at(buf, 0, 0, 4);
   draw_row_at(buf, last, 1, 4);
   for (unsigned p = 0; p < CELLS; p++) {
      if (p & 1) {
         memset(want[0][p], 0, 4);
         memset(want[1][p], 0, 4);
      } else {
         page_color(p, 1, want[0][p]);
         page_color(last + p, 1, want[1][p]);
      }
   }
   glBindBuffer(GL_ARRAY_BUFFER, buf);
   page_commitment(GL_ARRAY_BUFFER, 0, (GLsizeiptr)MANY_PAGES * page_size, GL_FALSE);
   /* all uncommitted: zero */
   draw_row_at(buf, 0, 2, 4);
   draw_row_at(buf, last, 3, 4);
   memset(want[2], 0, sizeof(want[2]));
   memset(want[3], 0, sizeof(want[3]));
   glReadPixels(0, 0, CELLS * CELL_PX, 4 * CELL_PX, GL_RGBA, GL_UNSIGNED_BYTE, px);
   bool ok = check_cells(px, 4, want);
   /* the last pages committed again in one call, with new colours */
   page_commitment(GL_ARRAY_BUFFER, (GLintptr)last * page_size, (GLsizeiptr)CELLS * page_size,
                   GL_TRUE);
   for (unsigned p = 0; p < CELLS; p++) {
      write_page(buf, last + p, 2);
      page_color(last + p, 2, want[0][p]);
   }
   target(1);
   draw_row_at(buf, last, 0, 1);
   glReadPixels(0, 0, CELLS * CELL_PX, CELL_PX, GL_RGBA, GL_UNSIGNED_BYTE, px);
   ok = ok && check_cells(px, 1, want);
   glDeleteBuffers(1, &buf);
   free(px);
   return ok;
}

static const struct gl_case cases[] = {
   { "read", read_case },
   { "xfb", xfb_case },
   { "stress", stress_case },
   { "many_ranges", many_ranges_case },
};

static bool
setup(void)
{
   if (!gl_has_ext("GL_ARB_sparse_buffer"))
      GL_FAIL("skip: no GL_ARB_sparse_buffer");
   glGetIntegerv(GL_SPARSE_BUFFER_PAGE_SIZE_ARB, &page_size);
   page_commitment =
      (PFNGLBUFFERPAGECOMMITMENTARBPROC)eglGetProcAddress("glBufferPageCommitmentARB");
   prog = gl_program(vs_src, fs_src);
   return prog != 0;
}

int
main(int argc, char **argv)
{
   static const struct gl_suite suite = {
      .cases = cases, .n = sizeof(cases) / sizeof(cases[0]), .setup = setup,
   };
   return gl_run(argc, argv, &suite);
}
