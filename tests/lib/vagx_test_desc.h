/* SPDX-License-Identifier: MIT */
/*
 * Descriptors the render and core tests build the same way, packed-ready
 * from the generated vagx_hw.h: a program binding, a coefficient binding,
 * a plain linear 2D render target and a one-target render job.
 */
#ifndef VAGX_TEST_DESC_H
#define VAGX_TEST_DESC_H

#include "vagx_hw.h"

/* Program at `code` using `gprs` registers and `nuni` uniforms at
 * `uniform_va` (0 when there are none); no textures, samplers or images. */
static inline void t_usc_program(struct vagx_usc_program *u, uint64_t code, unsigned gprs,
                                 unsigned nuni, uint64_t uniform_va)
{
   vagx_usc_program_init(u);
   u->code_va = code;
   u->gpr_count = gprs;
   u->uniform_count = nuni;
   u->uniform_va = uniform_va;
}

/* One coefficient binding: `count` words of varying slot `slot` (or of
 * the rasteriser's `source`) into coefficient registers from `cf`,
 * interpolated as `interp`. */
static inline uint32_t t_cf_binding_src(unsigned slot, unsigned count, unsigned cf,
                                        enum vagx_interp interp, enum vagx_cf_source source)
{
   struct vagx_cf_binding b;
   vagx_cf_binding_init(&b);
   b.slot = slot;
   b.count = count;
   b.cf = cf;
   b.interp = interp;
   b.source = source;
   uint32_t w;
   vagx_cf_binding_pack(&w, &b);
   return w;
}

/* The same from the varyings (the binding's default source). */
static inline uint32_t t_cf_binding(unsigned slot, unsigned count, unsigned cf,
                                    enum vagx_interp interp)
{
   struct vagx_cf_binding b;
   vagx_cf_binding_init(&b);
   return t_cf_binding_src(slot, count, cf, interp, b.source);
}

/* Smallest legal stride of a linear image `w` pixels of `bpp` bytes wide. */
static inline uint32_t t_linear_stride(uint32_t w, uint32_t bpp)
{
   return (w * bpp + VAGX_LINEAR_STRIDE_ALIGN - 1) & ~(uint32_t)(VAGX_LINEAR_STRIDE_ALIGN - 1);
}

/* A render job of w x h pixels with one render target of `format`, its
 * control stream at cs_va, every tile processed (empty ones too);
 * programs, depth/stencil and the sample count left to the caller. */
static inline void t_render_job_1rt(struct vagx_render_job *rj, uint32_t w, uint32_t h,
                                    enum vagx_format format, uint64_t cs_va)
{
   vagx_render_job_init(rj);
   rj->width = w;
   rj->height = h;
   rj->samples = VAGX_MSAA_1X;
   rj->rt_count = 1;
   rj->process_empty_tiles = 1;
   rj->cs_va = cs_va;
   for (unsigned i = 0; i < VAGX_MAX_RENDER_TARGETS; i++)
      rj->rt_format[i] = VAGX_FORMAT_INVALID;
   rj->rt_format[0] = format;
}

/* A single-level, single-sample linear 2D image of w x h `format` pixels at
 * `va`, rows `stride` bytes apart: the same fields in the descriptor the
 * PBE writes it through (struct vagx_pbe) and in the one the sampler reads
 * it through (struct vagx_texture), so one description fills both. */
#define T_LINEAR_2D(d, format_, w, h, stride_, va)                                              \
   do {                                                                                        \
      (d)->format = (format_);                                                                 \
      (d)->dimension = VAGX_DIMENSION_2D;                                                      \
      (d)->layout = VAGX_IMAGE_LAYOUT_LINEAR;                                                  \
      (d)->samples = VAGX_MSAA_1X;                                                             \
      (d)->width = (w);                                                                        \
      (d)->height = (h);                                                                       \
      (d)->depth = 1;                                                                          \
      (d)->levels = 1;                                                                         \
      (d)->stride = (stride_);                                                                 \
      (d)->base_va = (va);                                                                     \
   } while (0)

static inline void t_pbe_linear_2d(struct vagx_pbe *pbe, enum vagx_format format, uint32_t w,
                                   uint32_t h, uint32_t stride, uint64_t va)
{
   vagx_pbe_init(pbe);
   T_LINEAR_2D(pbe, format, w, h, stride, va);
}

/* The same image as a texture (its swizzle left at the descriptor's default). */
static inline void t_texture_linear_2d(struct vagx_texture *t, enum vagx_format format,
                                       uint32_t w, uint32_t h, uint32_t stride, uint64_t va)
{
   vagx_texture_init(t);
   T_LINEAR_2D(t, format, w, h, stride, va);
}

#endif
