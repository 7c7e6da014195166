/* SPDX-License-Identifier: MIT */
/*
 * The harness of test_render, one program of several files (one a subject,
 * main() in test_render.c): the flat test memory of render_test_mem.h and
 * the check counters of vagx_check.h shared by all of them, the job builder
 * of render_test_draw.h (control stream, state, geometry, textures, and
 * what make_job leaves: framebuffer, depth/stencil image, PBE), and the
 * helpers of render_test_harness.c that only the tests use (runner, pixel
 * access, references, depth/stencil image access, faulting translation).
 */
#ifndef RENDER_TEST_HARNESS_H
#define RENDER_TEST_HARNESS_H

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "usc_simd.h"
#include "vagx_asm.h"
#include "vagx_layout.h"

#define VAGX_CHECK_SHARED
#include "vagx_check.h"
#include "vagx_cs.h"
#include "vagx_test_desc.h"

/* ------------------------------------------------------------ memory -- */
#define MEM_SIZE (64u << 20)
#define RENDER_TEST_MEM_SHARED
#include "render_test_mem.h"

/* ------------------------------------------------------------ helpers -- */
#include "render_test_prog.h"
#include "render_test_draw.h"
#include "render_test_fault.h"

/* assemble() of the program printf() writes from fmt and the arguments. */
uint64_t assemblef(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The render device and how run() runs a job on it: nworkers workers
 * emulated round-robin, translation run_mem (the flat memory's mem_ops by
 * default). */
extern struct vagx_render_device *dev;
extern unsigned nworkers;
extern bool run_reverse;      /* run()'s pool runs the items of a parallel-for last first */
extern const struct vagx_usc_mem_ops *run_mem;
enum vagx_job_status run(uint64_t job, struct vagx_render_fault *f);
/* Ends the control stream and runs the job make_job(o) builds around it. */
enum vagx_job_status run_stream(const struct job_opts *o, struct vagx_render_fault *f);

/* Pixel (x, y) of the framebuffer; the framebuffer as render-NAME.ppm. */
const uint8_t *px(unsigned x, unsigned y);
void save_ppm(const char *name);

/* Reference coverage: pixel centre inside triangle (window coords). */
bool ref_inside(const double t[3][2], double x, double y);

/* Fragment program: additive count (R += 1/255 per hit). */
extern const char *fs_count;

/* Depth/stencil: the six vertices of a rectangle, a stencil face, unorm
 * encoding, and the last make_job's zs image read and written as stored. */
void rect_tris(double (*t)[2], int x0, int y0, int x1, int y1, bool ccw);
struct vagx_stencil_face sface(enum vagx_compare_func f, enum vagx_stencil_op fail,
                               enum vagx_stencil_op zfail, enum vagx_stencil_op zpass,
                               unsigned ref, unsigned rmask, unsigned wmask);
uint32_t enc_unorm(double v, unsigned bits);
void zs_put(enum vagx_format f, unsigned x, unsigned y, double d, uint8_t st);
void zs_get(enum vagx_format f, unsigned x, unsigned y, uint32_t *draw, uint8_t *st);
uint32_t zs_enc(enum vagx_format f, double d);

/* A full-screen quad with fragment program fs: its job, and the job run. */
uint64_t fullscreen_job(const struct prog *fs, const struct job_opts *o);
enum vagx_job_status draw_fullscreen(const struct prog *fs, const struct job_opts *o);

/* A translation page by page with the pages of io_hole unmapped; the first
 * fault lands in io_first. */
extern bool io_hole[MEM_SIZE / 4096];
extern struct first_fault io_first;
extern const struct vagx_usc_mem_ops io_ops;

/* ------------------------------------------------------------ tests -- */
/* test_render_raster.c */
void test_triangle(void);
void test_shared_edges(void);
void test_varyings(void);
void test_varyings_bits(void);
void test_noperspective_clipped(void);
void test_strip_fan_clip(void);
void test_msaa(void);
void test_lines(void);
void test_points(void);
void test_clip_distances(void);
void test_clip_view_volume(void);
void test_fill_modes(void);
void test_edge_flags(void);
void test_point_size_min(void);
void test_big_draws(void);
/* test_render_depth.c */
void test_depth_cull_query(void);
void test_query_no_depth(void);
void test_stencil(void);
void test_depth_quantize(void);
void test_zs_untouched_store(void);
void test_side_effects_late(void);
/* test_render_texture.c */
void test_textures(void);
void test_desc_cache(void);
void test_tex_linear_stride(void);
void test_tex_fast_sampling(void);
void test_tex_fast_bits(void);
void test_tex_fast_floor(void);
void test_tex_fast_inactive(void);
void test_tex_fast_fetch(void);
void test_st_tile_rgba8_round(void);
void test_tex_filter8_bits(void);
void test_tex_sparse(void);
void test_mipmaps(void);
void test_tex_3d_array(void);
void test_tex_cube(void);
void test_cube_lod(void);
/* test_render_cube.c */
void test_tex_cube_seamless(void);
void test_shadow_ref_clamp(void);
void test_tex_span_safepoint(void);
/* test_render_texbuf.c */
void test_tex_buffer(void);
/* test_render_gather.c */
void test_tex_gather(void);
/* test_render_resid.c */
void test_tex_resid(void);
/* test_render_formats.c */
void test_formats(void);
void test_tex_int_sampling(void);
void test_sr_rows(void);
void test_frag_outputs(void);
/* test_render_faults.c */
void test_faults(void);
void test_geometry_budget(void);
void test_bad_geometry(void);
/* test_render_geometry.c */
void test_geometry_workers(void);
void test_geometry_fault_order(void);
/* test_render_gs.c */
void test_gs_passthrough(void);
void test_gs_quads(void);
void test_gs_strips(void);
void test_gs_winding(void);
void test_gs_adjacency(void);
void test_gs_errors(void);
void test_gs_budget(void);

#endif
