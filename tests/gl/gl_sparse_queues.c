/* SPDX-License-Identifier: MIT */
/*
 * gl_sparse_queues: sparse resources used from both of the device's queues
 * (issue 20): compute jobs (the compute queue) and draws (the render queue)
 * write and read a sparse buffer (an SSBO) and a sparse RGBA8 texture (an
 * image in compute, a sampler and a render target in draws), with pages
 * committed and decommitted between every two of them.  Nothing is waited
 * for on the CPU until the final readbacks.
 *
 *   stress   ROUNDS rounds over a sparse buffer of NP pages and a sparse
 *            texture of NP pages (PAGES_X x PAGES_Y).  Before each of
 *            the round's four steps a random page of each is committed or
 *            decommitted:
 *              1. a dispatch stores word set A of every buffer page and
 *                 texel patch A of every texture page;
 *              2. a draw into row r of the result image reads them (cell q
 *                 of the buffer's cells: word i of page q as RGBA bytes;
 *                 the texture's cells: texelFetch of patch A) and stores
 *                 word set B of every buffer page;
 *              3. draws into the sparse texture (one scissored to patch B
 *                 of each page) write texel patch B;
 *              4. a dispatch reads word set B and texel patch B of every
 *                 page into row r of a (non-sparse) result buffer.
 *            The test models every word and texel: a write to a committed
 *            page holds, a write to an uncommitted one vanishes, a
 *            decommitted page reads zero, a page committed anew holds
 *            undefined data until written (GL says so: such a read is not
 *            checked).  Every checked read must equal the model: nothing
 *            lost, nothing leaked from another page or round.
 *
 * Prints "case NAME ok" or "case NAME error: ..."; "case NAME skip: ..."
 * without GL_ARB_sparse_buffer, GL_ARB_sparse_texture or
 * GL_ARB_compute_shader.  tests/gl/run runs it with the drm-shim holding
 * every job 5 ms, so binds and jobs of both queues queue up together;
 * tests/guest/suites/gl.sh runs it on vagx.ko.
 *
 *   gl_sparse_queues [CASE...] | --list
 */
#include "gl_desktop.h"
#include <stdint.h>
#include <stdlib.h>

#define PAGES_X 4
#define PAGES_Y 2
#define NP (PAGES_X * PAGES_Y) /* pages of the buffer, and of the texture */
#define PATCH 4                /* a patch is PATCH x PATCH texels, word sets as many words */
#define NW 16           /* PATCH * PATCH, a literal for local_size_x */
_Static_assert(NW == PATCH * PATCH, "a word set is as large as a patch");
#define ROUNDS 32
#define UNDEF 0xffffffffu /* the model's "undefined" (no value the test writes) */

/* where the word sets and patches are in a page */
#define A_WORD 1024 /* word index in the page (4 KiB in) */
#define B_WORD 9000
#define A_X 8
#define A_Y 16
#define B_X 40
#define B_Y 70

static GLint buf_page, page_w, page_h;
static PFNGLBUFFERPAGECOMMITMENTARBPROC buffer_commitment;
static PFNGLTEXPAGECOMMITMENTARBPROC tex_commitment;

#define HEAD                                                                        \
   "#version 130\n"                                                                 \
   "#extension GL_ARB_shader_storage_buffer_object : require\n"                     \
   "#extension GL_ARB_shading_language_420pack : require\n"                         \
   "#extension GL_ARB_uniform_buffer_object : require\n"                            \
   "#extension GL_ARB_shader_image_load_store : require\n"
#define CS_HEAD HEAD "#extension GL_ARB_compute_shader : require\n"
#define STR(x) #x
#define XSTR(x) STR(x)
/* the layout as the C code has it (the macros above), the page size in
 * words and texels, the values written */
#define LAYOUT                                                                      \
   "const int NP = " XSTR(NP) ", PAGES_X = " XSTR(PAGES_X) ", PATCH = " XSTR(PATCH) ";\n" \
   "const int A_WORD = " XSTR(A_WORD) ", B_WORD = " XSTR(B_WORD) ";\n"              \
   "const ivec2 A_AT = ivec2(" XSTR(A_X) ", " XSTR(A_Y) ");\n"                      \
   "const ivec2 B_AT = ivec2(" XSTR(B_X) ", " XSTR(B_Y) ");\n"                      \
   "uniform int r;\n"                                                               \
   "uniform int page_words;\n"                                                      \
   "uniform ivec2 page;\n"                                                          \
   "ivec2 texel(int q, int i, ivec2 at) {\n"                                        \
   "   return ivec2(q % PAGES_X, q / PAGES_X) * page + at + ivec2(i % PATCH, i / PATCH);\n" \
   "}\n"                                                                            \
   "uint a_value(int q, int i) {\n"                                                 \
   "   return uint(r + 1) | uint(q * 16 + i) << 8 | 0x5a0000u | uint(0xc0 + r) << 24;\n" \
   "}\n"                                                                            \
   "uint b_value(int q, int i) {\n"                                                 \
   "   return uint(0x80 + r) | uint(q * 16 + i) << 8 | uint(r * 3) << 16 | 0x21000000u;\n" \
   "}\n"                                                                            \
   "vec4 unpack(uint v) { return vec4(uvec4(v, v >> 8, v >> 16, v >> 24) & 255u) / 255.0; }\n" \
   "uint pack(vec4 c) {\n"                                                          \
   "   uvec4 u = uvec4(c * 255.0 + 0.5);\n"                                         \
   "   return u.x | u.y << 8 | u.z << 16 | u.w << 24;\n"                            \
   "}\n"

/* The values, as the shaders compute them */
static uint32_t
a_value(int r, int q, int i)
{
   return (uint32_t)(r + 1) | (uint32_t)(q * 16 + i) << 8 | 0x5a0000u | (uint32_t)(0xc0 + r) << 24;
}

static uint32_t
b_value(int r, int q, int i)
{
   return (uint32_t)(0x80 + r) | (uint32_t)(q * 16 + i) << 8 | (uint32_t)(r * 3) << 16 | 0x21000000u;
}

/* step 1: word set A and patch A of every page (a workgroup per page) */
static const char *write_cs =
   CS_HEAD
   "layout(local_size_x = " XSTR(NW) ") in;\n"
   "layout(std430, binding = 0) buffer S { uint w[]; };\n"
   "layout(rgba8, binding = 0) writeonly uniform image2D img;\n"
   LAYOUT
   "void main() {\n"
   "   int q = int(gl_WorkGroupID.x), i = int(gl_LocalInvocationID.x);\n"
   "   w[q * page_words + A_WORD + i] = a_value(q, i);\n"
   "   imageStore(img, texel(q, i, A_AT), unpack(a_value(q, i)));\n"
   "}\n";

/* step 2: row r of the result image, cells of PATCH x PATCH pixels: cell q
 * < NP shows word set A of buffer page q and stores word set B, cell NP + q
 * shows patch A of texture page q */
static const char *read_fs =
   HEAD
   "layout(std430, binding = 0) buffer S { uint w[]; };\n"
   "uniform sampler2D t;\n"
   LAYOUT
   "void main() {\n"
   "   ivec2 p = ivec2(gl_FragCoord.xy);\n"
   "   int cell = p.x / PATCH, i = p.x % PATCH + PATCH * (p.y % PATCH);\n"
   "   if (cell < NP) {\n"
   "      gl_FragColor = unpack(w[cell * page_words + A_WORD + i]);\n"
   "      w[cell * page_words + B_WORD + i] = b_value(cell, i);\n"
   "   } else {\n"
   "      gl_FragColor = texelFetch(t, texel(cell - NP, i, A_AT), 0);\n"
   "   }\n"
   "}\n";

/* step 3: patch B, drawn (scissored to it) */
static const char *draw_fs =
   "#version 130\n"
   LAYOUT
   "void main() {\n"
   "   ivec2 p = ivec2(gl_FragCoord.xy), pg = p / page, o = p % page - B_AT;\n"
   "   gl_FragColor = unpack(b_value(pg.x + PAGES_X * pg.y, o.x + PATCH * o.y));\n"
   "}\n";

/* step 4: word set B and patch B of every page into row r of the result
 * buffer: [r][0][q][i] the words, [r][1][q][i] the texels (packed) */
static const char *read_cs =
   CS_HEAD
   "layout(local_size_x = " XSTR(NW) ") in;\n"
   "layout(std430, binding = 0) buffer S { uint w[]; };\n"
   "layout(std430, binding = 1) buffer R { uint res[]; };\n"
   "layout(rgba8, binding = 0) readonly uniform image2D img;\n"
   LAYOUT
   "void main() {\n"
   "   int q = int(gl_WorkGroupID.x), i = int(gl_LocalInvocationID.x);\n"
   "   int n = PATCH * PATCH, row = r * 2 * NP * n;\n"
   "   res[row + q * n + i] = w[q * page_words + B_WORD + i];\n"
   "   res[row + (NP + q) * n + i] = pack(imageLoad(img, texel(q, i, B_AT)));\n"
   "}\n";

static const char *quad_vs =
   "#version 130\n"
   "in vec2 pos;\n"
   "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";

/* The model of one page's two word sets (or patches) */
struct page_model {
   bool committed;
   uint32_t a[NW], b[NW];
};

/* A commitment change: decommitted pages read zero, a page committed anew
 * holds undefined data */
static void
model_commit(struct page_model *m, bool commit)
{
   m->committed = commit;
   for (int i = 0; i < NW; i++)
      m->a[i] = m->b[i] = commit ? UNDEF : 0;
}

/* A write: it holds on a committed page, vanishes on another */
static void
model_write(struct page_model *m, uint32_t *set, uint32_t v, int i)
{
   if (m->committed)
      set[i] = v;
}

struct queues {
   GLuint buf, tex, tex_fbo, res_tex, res_fbo, res_buf;
   GLuint write_prog, read_prog, draw_prog, read_cs_prog;
   struct page_model bm[NP], tm[NP];
   int changes[2]; /* commits, decommits */
};

static void
set_layout(GLuint prog, int r)
{
   glUseProgram(prog);
   glUniform1i(glGetUniformLocation(prog, "r"), r);
   glUniform1i(glGetUniformLocation(prog, "page_words"), buf_page / 4);
   glUniform2i(glGetUniformLocation(prog, "page"), page_w, page_h);
}

/* A random page of the buffer and one of the texture committed or
 * decommitted (whichever they are not) */
static void
toggle(struct queues *s)
{
   const int pb = rand() % NP, pt = rand() % NP;
   struct page_model *b = &s->bm[pb], *t = &s->tm[pt];
   model_commit(b, !b->committed);
   glBindBuffer(GL_SHADER_STORAGE_BUFFER, s->buf);
   buffer_commitment(GL_SHADER_STORAGE_BUFFER, (GLintptr)pb * buf_page, buf_page, b->committed);
   model_commit(t, !t->committed);
   glBindTexture(GL_TEXTURE_2D, s->tex);
   tex_commitment(GL_TEXTURE_2D, 0, (pt % PAGES_X) * page_w, (pt / PAGES_X) * page_h, 0, page_w,
                  page_h, 1, t->committed);
   s->changes[!b->committed]++;
   s->changes[!t->committed]++;
}

static void
quad(void)
{
   static const float pos[] = { -1, -1, 1, -1, -1, 1, 1, 1 };
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, pos);
   glEnableVertexAttribArray(0);
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

static void
steps_1_2(struct queues *s, int r)
{
   /* 1. compute writes set A */
   toggle(s);
   set_layout(s->write_prog, r);
   glBindImageTexture(0, s->tex, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
   glDispatchCompute(NP, 1, 1);
   for (int q = 0; q < NP; q++)
      for (int i = 0; i < NW; i++) {
         model_write(&s->bm[q], s->bm[q].a, a_value(r, q, i), i);
         model_write(&s->tm[q], s->tm[q].a, a_value(r, q, i), i);
      }
   glMemoryBarrier(GL_ALL_BARRIER_BITS);

   /* 2. a draw reads set A into row r, writes word set B */
   toggle(s);
   glBindFramebuffer(GL_FRAMEBUFFER, s->res_fbo);
   glViewport(0, 0, 2 * NP * PATCH, ROUNDS * PATCH);
   glEnable(GL_SCISSOR_TEST);
   glScissor(0, r * PATCH, 2 * NP * PATCH, PATCH);
   set_layout(s->read_prog, r);
   glActiveTexture(GL_TEXTURE0);
   glBindTexture(GL_TEXTURE_2D, s->tex);
   glUniform1i(glGetUniformLocation(s->read_prog, "t"), 0);
   quad();
   glDisable(GL_SCISSOR_TEST);
   glMemoryBarrier(GL_ALL_BARRIER_BITS);
}

/* Row r of a result as the models say it must be: the buffer's pages' set
 * A (b false) or B, then the texture's; for the result image (set A after
 * step 2's commitment change) and the result buffer (set B after step 4's) */
static void
expect(const struct queues *s, int r, bool b, uint32_t *want)
{
   for (int q = 0; q < NP; q++)
      for (int i = 0; i < NW; i++) {
         want[r * 2 * NP * NW + q * NW + i] = b ? s->bm[q].b[i] : s->bm[q].a[i];
         want[r * 2 * NP * NW + (NP + q) * NW + i] = b ? s->tm[q].b[i] : s->tm[q].a[i];
      }
}

static void
steps_3_4(struct queues *s, int r)
{
   /* step 2's stores of word set B, before step 3's commitment change */
   for (int q = 0; q < NP; q++)
      for (int i = 0; i < NW; i++)
         model_write(&s->bm[q], s->bm[q].b, b_value(r, q, i), i);
   /* 3. draws write patch B of every texture page */
   toggle(s);
   glBindFramebuffer(GL_FRAMEBUFFER, s->tex_fbo);
   glViewport(0, 0, PAGES_X * page_w, PAGES_Y * page_h);
   set_layout(s->draw_prog, r);
   glEnable(GL_SCISSOR_TEST);
   for (int q = 0; q < NP; q++) {
      glScissor((q % PAGES_X) * page_w + B_X, (q / PAGES_X) * page_h + B_Y, PATCH, PATCH);
      quad();
      for (int i = 0; i < NW; i++)
         model_write(&s->tm[q], s->tm[q].b, b_value(r, q, i), i);
   }
   glDisable(GL_SCISSOR_TEST);
   glMemoryBarrier(GL_ALL_BARRIER_BITS);

   /* 4. compute reads set B into row r of the result buffer */
   toggle(s);
   set_layout(s->read_cs_prog, r);
   glBindImageTexture(0, s->tex, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA8);
   glDispatchCompute(NP, 1, 1);
   glMemoryBarrier(GL_ALL_BARRIER_BITS);
}

/* Compares got with the model's want (UNDEF: not checked); counts the
 * checked words that were zero and not */
static bool
compare(const char *what, const uint32_t *got, const uint32_t *want, int counts[2])
{
   for (int k = 0; k < ROUNDS * 2 * NP * NW; k++) {
      if (want[k] == UNDEF)
         continue;
      counts[!!want[k]]++;
      if (got[k] != want[k]) {
         const int r = k / (2 * NP * NW), cell = k / NW % (2 * NP), i = k % NW;
         GL_FAIL("%s: round %d, %s page %d, word/texel %d: 0x%08x, expected 0x%08x", what, r,
                 cell < NP ? "buffer" : "texture", cell % NP, i, got[k], want[k]);
      }
   }
   return true;
}

/* The result image (RGBA bytes, bottom-up) as words per round and cell */
static void
image_words(const uint8_t *px, uint32_t *words)
{
   const int w = 2 * NP * PATCH;
   for (int y = 0; y < ROUNDS * PATCH; y++)
      for (int x = 0; x < w; x++) {
         const uint8_t *p = px + 4 * (y * w + x);
         const int r = y / PATCH, cell = x / PATCH, i = x % PATCH + PATCH * (y % PATCH);
         words[r * 2 * NP * NW + cell * NW + i] =
            p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
      }
}

static bool
setup_queues(struct queues *s)
{
   memset(s, 0, sizeof(*s));
   s->write_prog = gl_cs_program(write_cs);
   s->read_cs_prog = s->write_prog ? gl_cs_program(read_cs) : 0;
   s->read_prog = s->read_cs_prog ? gl_program(quad_vs, read_fs) : 0;
   s->draw_prog = s->read_prog ? gl_program(quad_vs, draw_fs) : 0;
   if (!s->draw_prog)
      return false;
   /* the sparse buffer, every page NULL */
   glGenBuffers(1, &s->buf);
   glBindBuffer(GL_SHADER_STORAGE_BUFFER, s->buf);
   glBufferStorage(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)NP * buf_page, NULL,
                   GL_SPARSE_STORAGE_BIT_ARB | GL_DYNAMIC_STORAGE_BIT);
   glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, s->buf);
   /* the sparse texture and its framebuffer */
   glGenTextures(1, &s->tex);
   glBindTexture(GL_TEXTURE_2D, s->tex);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_SPARSE_ARB, GL_TRUE);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, PAGES_X * page_w, PAGES_Y * page_h);
   glGenFramebuffers(1, &s->tex_fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, s->tex_fbo);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, s->tex, 0);
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      GL_FAIL("the sparse texture's framebuffer is incomplete");
   /* the result buffer (a row per round), zeroed, and the result image */
   glGenBuffers(1, &s->res_buf);
   glBindBuffer(GL_SHADER_STORAGE_BUFFER, s->res_buf);
   const size_t res_size = (size_t)ROUNDS * 2 * NP * NW * 4;
   void *zero = calloc(1, res_size);
   glBufferData(GL_SHADER_STORAGE_BUFFER, res_size, zero, GL_DYNAMIC_COPY);
   free(zero);
   glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, s->res_buf);
   if (!gl_color_target(GL_RGBA8, 2 * NP * PATCH, ROUNDS * PATCH, &s->res_tex, &s->res_fbo))
      GL_FAIL("the result image's framebuffer is incomplete");
   glClearColor(1, 0, 1, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   return gl_check_error("the set-up");
}

static void
free_queues(struct queues *s)
{
   glDeleteFramebuffers(1, &s->tex_fbo);
   glDeleteFramebuffers(1, &s->res_fbo);
   glDeleteTextures(1, &s->tex);
   glDeleteTextures(1, &s->res_tex);
   glDeleteBuffers(1, &s->buf);
   glDeleteBuffers(1, &s->res_buf);
   glDeleteProgram(s->write_prog);
   glDeleteProgram(s->read_prog);
   glDeleteProgram(s->draw_prog);
   glDeleteProgram(s->read_cs_prog);
}

static bool
stress_case(void)
{
   static struct queues s;
   const size_t n = (size_t)ROUNDS * 2 * NP * NW;
   uint32_t *want_img = malloc(n * 4), *want_res = malloc(n * 4), *got = malloc(n * 4);
   uint8_t *px = malloc(n * 4);
   bool ok = setup_queues(&s);
   srand(20);
   /* every other page committed to start with */
   for (int q = 0; ok && q < NP; q += 2) {
      model_commit(&s.bm[q], true);
      model_commit(&s.tm[q], true);
      glBindBuffer(GL_SHADER_STORAGE_BUFFER, s.buf);
      buffer_commitment(GL_SHADER_STORAGE_BUFFER, (GLintptr)q * buf_page, buf_page, GL_TRUE);
      glBindTexture(GL_TEXTURE_2D, s.tex);
      tex_commitment(GL_TEXTURE_2D, 0, (q % PAGES_X) * page_w, (q / PAGES_X) * page_h, 0, page_w,
                     page_h, 1, GL_TRUE);
   }
   for (int r = 0; ok && r < ROUNDS; r++) {
      steps_1_2(&s, r);
      expect(&s, r, false, want_img);
      steps_3_4(&s, r);
      expect(&s, r, true, want_res);
   }
   int counts[2] = { 0, 0 };
   if (ok) {
      glBindFramebuffer(GL_FRAMEBUFFER, s.res_fbo);
      glReadPixels(0, 0, 2 * NP * PATCH, ROUNDS * PATCH, GL_RGBA, GL_UNSIGNED_BYTE, px);
      image_words(px, got);
      ok = compare("draws' reads (result image)", got, want_img, counts);
   }
   if (ok) {
      glBindBuffer(GL_SHADER_STORAGE_BUFFER, s.res_buf);
      glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, n * 4, got);
      ok = compare("dispatches' reads (result buffer)", got, want_res, counts);
   }
   /* a test that checked no zero or no value would prove little */
   if (ok && (counts[0] < 200 || counts[1] < 200))
      GL_FAIL("only %d zero and %d written words checked", counts[0], counts[1]);
   if (ok)
      printf("gl_sparse_queues: %d words zero, %d written, %d commits, %d decommits\n",
             counts[0], counts[1], s.changes[0], s.changes[1]);
   ok = ok && gl_check_error("the case");
   free_queues(&s);
   free(want_img);
   free(want_res);
   free(got);
   free(px);
   return ok;
}

static const struct gl_case cases[] = {
   { "stress", stress_case },
};

static bool
setup(void)
{
   if (!gl_has_ext("GL_ARB_sparse_buffer") || !gl_has_ext("GL_ARB_sparse_texture") ||
       !gl_has_ext("GL_ARB_compute_shader"))
      GL_FAIL("skip: no GL_ARB_sparse_buffer, GL_ARB_sparse_texture or GL_ARB_compute_shader");
   glGetIntegerv(GL_SPARSE_BUFFER_PAGE_SIZE_ARB, &buf_page);
   glGetInternalformativ(GL_TEXTURE_2D, GL_RGBA8, GL_VIRTUAL_PAGE_SIZE_X_ARB, 1, &page_w);
   glGetInternalformativ(GL_TEXTURE_2D, GL_RGBA8, GL_VIRTUAL_PAGE_SIZE_Y_ARB, 1, &page_h);
   printf("sparse buffer page %d B, RGBA8 texture page %dx%d\n", buf_page, page_w, page_h);
   /* the word sets and patches must lie inside a page */
   if (buf_page / 4 <= B_WORD + NW || page_w <= B_X + PATCH || page_h <= B_Y + PATCH)
      GL_FAIL("pages too small for the test: %d B, %dx%d", buf_page, page_w, page_h);
   buffer_commitment =
      (PFNGLBUFFERPAGECOMMITMENTARBPROC)eglGetProcAddress("glBufferPageCommitmentARB");
   tex_commitment = (PFNGLTEXPAGECOMMITMENTARBPROC)eglGetProcAddress("glTexPageCommitmentARB");
   return buffer_commitment && tex_commitment;
}

int
main(int argc, char **argv)
{
   static const struct gl_suite suite = {
      .cases = cases, .n = sizeof(cases) / sizeof(cases[0]), .setup = setup,
   };
   return gl_run(argc, argv, &suite);
}
