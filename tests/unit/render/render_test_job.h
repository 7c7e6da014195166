/* SPDX-License-Identifier: MIT */
/*
 * A minimal render job in the flat test memory of render_test_mem.h (include
 * that first): a control-stream writer, a clear background program, an
 * end-of-tile program storing render target 0 (RGBA8) to a linear
 * framebuffer, and the state every draw needs.  Used by test_render_limits
 * and by the device fuzzer (tests/fuzz), which maps the same flat memory
 * into a VM of the whole core.
 */
#ifndef RENDER_TEST_JOB_H
#define RENDER_TEST_JOB_H

#include "render_test_mem.h"
#include "vagx_cs.h"
#include "vagx_test_desc.h"

/* Control stream being written; rtj_finish() places it in memory. */
static uint32_t rtj_cs[8192];
static unsigned rtj_ncs;
#define RTJ_EMIT(T, ...) VAGX_CS_EMIT(rtj_cs, rtj_ncs, T, __VA_ARGS__)

/* Byte offset in the stream of the next command (its VA is rtj_cs_va +
 * that once rtj_finish placed the stream). */
static inline uint64_t rtj_here(void) { return rtj_ncs * 4; }

static unsigned rtj_w = 32, rtj_h = 32;
static uint64_t rtj_fb_va, rtj_cs_va;

/* A program descriptor for code at `code` with uniforms copied into memory. */
static inline void rtj_prog(struct vagx_usc_program *u, uint64_t code, const uint32_t *uni,
                            unsigned nuni)
{
   t_usc_program(u, code, 32, nuni, nuni ? put(uni, nuni * 4, 4) : 0);
}

/* Vertex shader: position = u0..u3 for every vertex. */
static inline uint64_t rtj_vs_const(void)
{
   return assemble("mov r0, u0\nmov r1, u1\nmov r2, u2\nmov r3, u3\n"
                   "st_var r0, #0\nst_var r1, #1\nst_var r2, #2\nst_var r3, #3\nend\n");
}

/* Vertex shader: position read from u0:u1 + vertex_id * 16. */
static inline uint64_t rtj_vs_fetch(void)
{
   return assemble("imul r1, sr.vertex_id, #16\n"
                   "ld_global.b32 r8, u0, r1\niadd r2, r1, #4\nld_global.b32 r9, u0, r2\n"
                   "iadd r2, r1, #8\nld_global.b32 r10, u0, r2\n"
                   "iadd r2, r1, #12\nld_global.b32 r11, u0, r2\n"
                   "st_var r8, #0\nst_var r9, #1\nst_var r10, #2\nst_var r11, #3\nend\n");
}

/* Fragment shader: constant colour u0..u3. */
static inline uint64_t rtj_fs_const(void)
{
   return assemble("mov r0, u0\nmov r1, u1\nmov r2, u2\nmov r3, u3\nst_tile.rt0 r0, #0\nend\n");
}

/* The fixed-function state a draw needs: viewport mapping NDC to the
 * framebuffer, full scissor, the rasterizer (`rs`, or rtj_rasterizer()'s),
 * depth/stencil off. */
static inline void rtj_fixed_state(const struct vagx_cmd_rasterizer *rs)
{
   RTJ_EMIT(cmd_viewport, v_.scale_x = rtj_w / 2.0f; v_.offset_x = rtj_w / 2.0f;
            v_.scale_y = rtj_h / 2.0f; v_.offset_y = rtj_h / 2.0f; v_.scale_z = 1;
            v_.max_depth = 1);
   RTJ_EMIT(cmd_scissor, v_.max_x = rtj_w; v_.max_y = rtj_h);
   if (rs) {
      struct vagx_cmd_rasterizer r = *rs;
      vagx_cmd_rasterizer_pack(&rtj_cs[rtj_ncs], &r);
      rtj_ncs += vagx_cmd_dwords(rtj_cs[rtj_ncs]);
   } else {
      RTJ_EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 1; v_.line_width = 1;
               v_.sample_mask = 0xf; v_.depth_clip = 1);
   }
   RTJ_EMIT(cmd_depth_stencil, v_.depth_func = VAGX_COMPARE_FUNC_ALWAYS);
}

/* Pipelines (fs uniforms: its colour) and the fixed-function state. */
static inline void rtj_state(uint64_t vs, const uint32_t *vs_uni, unsigned vs_nuni, uint64_t fs,
                             const float colour[4], const struct vagx_cmd_rasterizer *rs)
{
   RTJ_EMIT(cmd_bind_vertex_pipeline, rtj_prog(&v_.program, vs, vs_uni, vs_nuni));
   uint32_t c[4];
   memcpy(c, colour, 16);
   RTJ_EMIT(cmd_bind_fragment_pipeline, v_.slots32 = 1; rtj_prog(&v_.program, fs, c, 4));
   rtj_fixed_state(rs);
}

/* The default rasterizer of rtj_state, for callers that change a field. */
static inline struct vagx_cmd_rasterizer rtj_rasterizer(void)
{
   struct vagx_cmd_rasterizer r;
   vagx_cmd_rasterizer_init(&r);
   r.half_pixel_center = 1;
   r.point_size = 1;
   r.line_width = 1;
   r.sample_mask = 0xf;
   r.depth_clip = 1;
   return r;
}

/* Ends the stream and builds the render job around it (framebuffer cleared
 * to `clear`, stored at rtj_fb_va).  Returns the descriptor's VA. */
static inline uint64_t rtj_finish(const float clear[4])
{
   RTJ_EMIT(cmd_end);
   rtj_cs_va = put(rtj_cs, rtj_ncs * 4, 16);
   rtj_fb_va = alloc((uint64_t)rtj_w * 4 * rtj_h, 128);
   struct vagx_pbe pbe;
   t_pbe_linear_2d(&pbe, VAGX_FORMAT_RGBA8_UNORM, rtj_w, rtj_h, rtj_w * 4, rtj_fb_va);
   uint64_t pbe_va = alloc(32, 32);
   vagx_pbe_pack(ptr(pbe_va), &pbe);

   struct vagx_render_job rj;
   t_render_job_1rt(&rj, rtj_w, rtj_h, VAGX_FORMAT_RGBA8_UNORM, rtj_cs_va);
   uint32_t cc[4];
   memcpy(cc, clear, 16);
   rtj_prog(&rj.bg_program, rtj_fs_const(), cc, 4);
   rtj_prog(&rj.eot_program,
            assemble("mov r4, sr.pix_x\nmov r5, sr.pix_y\nld_tile.rt0 r0, #0\n"
                     "img_st.i0.2d r4, r0, #0\nend\n"),
            NULL, 0);
   rj.eot_program.image_count = 1;
   rj.eot_program.image_va = pbe_va;
   uint64_t va = alloc(VAGX_RENDER_JOB_DWORDS * 4, 64);
   vagx_render_job_pack(ptr(va), &rj);
   rtj_ncs = 0;
   return va;
}

/* Pixel (x, y) of the framebuffer as RGBA8. */
static inline const uint8_t *rtj_px(unsigned x, unsigned y)
{
   return (const uint8_t *)ptr(rtj_fb_va) + ((size_t)y * rtj_w + x) * 4;
}

#endif
