/* SPDX-License-Identifier: MIT */
/*
 * Drawing into a render job the way test_render and bench_render do, in the
 * flat memory of render_test_mem.h: the control stream and its writer, the
 * state and geometry of a draw for the fetching vertex shader of
 * render_test_prog.h, textures and samplers, and make_job(), which builds
 * the job around the stream (background clear, end-of-tile store to the
 * framebuffer, depth/stencil image) and leaves what it made in the
 * variables below.  Nothing here runs or checks a job: the tests
 * (render_test_harness.h) and the benchmark bring their own runner and
 * checks.  Definitions in render_test_draw.c; the memory is the program's
 * one shared memory (RENDER_TEST_MEM_SHARED, defined by one of its files).
 */
#ifndef RENDER_TEST_DRAW_H
#define RENDER_TEST_DRAW_H

#include <stdbool.h>
#include <stdint.h>

#ifndef RENDER_TEST_MEM_SHARED
#error "render_test_draw.h: define RENDER_TEST_MEM_SHARED (render_test_draw.c uses the same memory)"
#endif
#include "render_test_mem.h"
#include "render_test_prog.h"
#include "vagx_cs.h"
#include "vagx_layout.h"
#include "vagx_test_desc.h"

/* Control stream writer. */
extern uint32_t cs[16384];
extern unsigned ncs;
#define EMIT(T, ...) VAGX_CS_EMIT(cs, ncs, T, __VA_ARGS__)

/* Framebuffer of the next make_job: W x H; make_job sets the rest. */
extern unsigned W, H;
extern uint64_t fb_va, fb_stride;
extern unsigned fb_bpp;

struct job_opts {
   unsigned samples;
   float clear[4];
   bool zs;
   enum vagx_format zs_format;
   float clear_depth;
   bool depth_store;
   bool depth_load, stencil_load, stencil_store;
   unsigned clear_stencil;
   enum vagx_format rt_format;   /* INVALID (0): RGBA8_UNORM; also the PBE format */
   const char *eot;              /* replaces eot_src */
   bool pbe_twiddled;            /* the PBE image is twiddled (fb_layout), samples as the job */
   uint64_t fb_va;               /* 0: a new linear framebuffer; else the caller's (its rows
                                  * fb_stride bytes apart), which bench_render keeps */
};
extern struct vagx_layout fb_layout;   /* make_job with pbe_twiddled */

/* Depth/stencil image and end-of-tile PBE of the last make_job. */
extern uint64_t zs_tex_va, zs_base;
extern struct vagx_layout zs_layout;
extern struct vagx_pbe last_pbe;
extern uint64_t last_pbe_va;

/* Builds the render job around the current control stream. */
uint64_t make_job(const struct job_opts *o);

/* emit_state's fragment pipeline promises `opaque` (hidden-surface removal,
 * render.md): what the Gallium driver sets for a shader that writes its
 * colour unconditionally without reading the tile.  Off unless a caller sets it. */
extern bool emit_state_opaque;
/* State and geometry: emit_state binds the vertex shader of vs_code() over
 * vbuf and fragment program fs, the viewport, full scissor and default
 * rasterizer, depth/stencil off. */
void emit_state(unsigned nvar_smooth, unsigned nvar_flat, unsigned nvar_linear,
                uint64_t vbuf, const struct prog *fs, const uint32_t *cfb, unsigned ncfb,
                unsigned ncf, bool z_slot);
uint32_t binding(unsigned slot, unsigned count, unsigned cf, enum vagx_interp in);
/* Pixel (window) -> ndc for the viewport of emit_state. */
float ndcx(double x);
float ndcy(double y);
/* Vertex buffer as vs_code(nvar) reads it: for each of nv vertices its
 * clip-space position pos[i] and nvar words from var + i * nvar. */
uint64_t vbuf_put(unsigned nv, unsigned nvar, const float (*pos)[4], const float *var);
/* Vertex buffer of nv window-space vertices with nvar varyings each, at
 * depth zv (0.5 without) and w wv (1 without). */
uint64_t vbuf_tris(const double (*t)[2], unsigned nv, unsigned nvar, const float *var,
                   const float *wv, const float *zv);
void draw(enum vagx_primitive prim, unsigned count);

/* Fragment program: constant colour (u0..u3). */
extern const char *fs_const;
struct prog const_fs(float r, float g, float b, float a);

/* Textures: make_texture fills every texel with fill() and returns the
 * descriptor's VA (its layout and base in tex_layout, tex_base). */
struct texdesc {
   enum vagx_format fmt;
   enum vagx_dimension dim;
   unsigned w, h, depth, levels, base, maxl;
   bool linear;
};
extern struct vagx_layout tex_layout;
extern uint64_t tex_base;
uint64_t make_texture(const struct texdesc *d,
                      void (*fill)(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *out));
/* make_texture in the sparse layout if `sparse` (descriptor bit sparse,
 * docs/hw/layout.md section 10) */
uint64_t make_texture_layout(const struct texdesc *d, bool sparse,
                             void (*fill)(unsigned lv, unsigned layer, unsigned x, unsigned y,
                                          uint8_t *out));
uint64_t make_sampler(enum vagx_filter minf, enum vagx_filter magf, enum vagx_mip_filter mipf,
                      enum vagx_wrap wrap, float min_lod, float max_lod, float bias);

#endif
