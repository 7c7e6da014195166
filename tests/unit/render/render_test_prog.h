/* SPDX-License-Identifier: MIT */
/*
 * A shader program and its bindings as the render tests and bench_render
 * write them (include render_test_mem.h first): `struct prog` names the
 * code, the uniform values and the texture, sampler and image tables, and
 * to_usc() turns it into the descriptor's program binding, placing the
 * uniforms in the flat test memory; vs_code() is the vertex shader both
 * draw with, vs_prog() its binding.
 */
#ifndef RENDER_TEST_PROG_H
#define RENDER_TEST_PROG_H

#include "render_test_mem.h"
#include "vagx_test_desc.h"

struct prog {
   uint64_t code;
   unsigned gprs; /* 0: 32 */
   uint32_t uni[16];
   unsigned nuni;
   uint64_t tex, smp, img;
   unsigned ntex, nsmp, nimg;
};

static inline void to_usc(const struct prog *p, struct vagx_usc_program *u)
{
   t_usc_program(u, p->code, p->gprs ? p->gprs : 32, p->nuni,
                 p->nuni ? put(p->uni, p->nuni * 4, 4) : 0);
   u->texture_count = p->ntex;
   u->texture_va = p->tex;
   u->sampler_count = p->nsmp;
   u->sampler_va = p->smp;
   u->image_count = p->nimg;
   u->image_va = p->img;
}

/* Vertex shader: 4 position words + nvar words loaded from the vertex
 * buffer at u0:u1 + vertex_id * stride (stride = the words' bytes). */
static inline uint64_t vs_code(unsigned nvar)
{
   char src[2048];
   unsigned words = 4 + nvar, stride = words * 4;
   int n = snprintf(src, sizeof(src), "imul r1, sr.vertex_id, #%u\n", stride);
   for (unsigned i = 0; i < words; i++)
      n += snprintf(src + n, sizeof(src) - n,
                    "iadd r2, r1, #%u\nld_global.b32 r%u, u0, r2\nst_var r%u, #%u\n", i * 4,
                    8 + i, 8 + i, i);
   snprintf(src + n, sizeof(src) - n, "end\n");
   return assemble(src);
}

/* The program binding of vs_code(nvar) reading the vertex buffer at vbuf. */
static inline struct prog vs_prog(unsigned nvar, uint64_t vbuf)
{
   struct prog vs = {.code = vs_code(nvar), .nuni = 2};
   vs.uni[0] = (uint32_t)vbuf;
   vs.uni[1] = (uint32_t)(vbuf >> 32);
   return vs;
}

#endif
