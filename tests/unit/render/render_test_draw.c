/* SPDX-License-Identifier: MIT */
/*
 * Drawing into a render job (render_test_draw.h): the control stream, the
 * framebuffer and depth/stencil image of the last job, the job builder, the
 * state and geometry emitters, textures and samplers.
 */
#define RENDER_TEST_MEM_SHARED
#include "render_test_draw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Control stream writer. */
uint32_t cs[16384];
unsigned ncs;

/* Framebuffer */
unsigned W = 64, H = 64;
uint64_t fb_va, fb_stride;

static const char *bg_src =
   "mov r0, u0\nmov r1, u1\nmov r2, u2\nmov r3, u3\n"
   "st_tile.rt0 r0, #0\nend\n";
static const char *bg4_src =
   "mov r0, u0\nmov r1, u1\nmov r2, u2\nmov r3, u3\n"
   "st_tile.rt0 r0, #0\nst_tile.rt0 r0, #1\nst_tile.rt0 r0, #2\nst_tile.rt0 r0, #3\nend\n";
static const char *eot_src =
   "mov r4, sr.pix_x\nmov r5, sr.pix_y\nld_tile.rt0 r0, #0\n"
   "img_st.i0.2d r4, r0, #0\nend\n";

struct vagx_layout fb_layout;   /* make_job with pbe_twiddled */

uint64_t zs_tex_va, zs_base;
struct vagx_pbe last_pbe;   /* end-of-tile PBE of the last make_job */
uint64_t last_pbe_va;
struct vagx_layout zs_layout;
unsigned fb_bpp = 4;

/* The layout of a twiddled single-level W x H image. */
static void twiddled_layout(struct vagx_layout *l, unsigned samples, unsigned bytes_per_block)
{
   memset(l, 0, sizeof(*l));
   l->width_px = W; l->height_px = H; l->depth_px = 1; l->levels = 1;
   l->sample_count_sa = samples; l->block_width_px = l->block_height_px = 1;
   l->bytes_per_block_B = bytes_per_block;
   l->tiling = VAGX_TILING_TWIDDLED;
   vagx_layout_init(l);
}

/* Builds the render job around the current control stream. */
uint64_t make_job(const struct job_opts *o)
{
   uint64_t cs_va = put(cs, ncs * 4, 16);
   unsigned samples = o->samples ? o->samples : 1;
   const enum vagx_format rtf = o->rt_format ? o->rt_format : VAGX_FORMAT_RGBA8_UNORM;
   fb_bpp = vagx_format_bytes_per_block(rtf);
   fb_stride = t_linear_stride(W, fb_bpp);
   fb_va = o->fb_va ? o->fb_va : alloc(fb_stride * H, 128);
   struct vagx_pbe pbe;
   t_pbe_linear_2d(&pbe, rtf, W, H, (uint32_t)fb_stride, fb_va);
   if (o->pbe_twiddled) {
      twiddled_layout(&fb_layout, samples, fb_bpp);
      fb_va = alloc(fb_layout.size_B, 16384);
      pbe.layout = VAGX_IMAGE_LAYOUT_TWIDDLED;
      pbe.samples = samples == 4 ? VAGX_MSAA_4X : VAGX_MSAA_1X;
      pbe.stride = 0;
      pbe.base_va = fb_va;
   }
   uint64_t pbe_va = alloc(32, 32);
   vagx_pbe_pack(ptr(pbe_va), &pbe);
   last_pbe = pbe;
   last_pbe_va = pbe_va;

   struct prog bg = {.code = assemble(samples == 4 ? bg4_src : bg_src), .nuni = 4};
   memcpy(bg.uni, o->clear, 16);
   struct prog eot = {.code = assemble(o->eot ? o->eot : eot_src), .img = pbe_va, .nimg = 1};

   struct vagx_render_job rj;
   t_render_job_1rt(&rj, W, H, rtf, cs_va);
   rj.samples = samples == 4 ? VAGX_MSAA_4X : VAGX_MSAA_1X;
   rj.clear_depth = o->clear_depth;
   rj.clear_stencil = o->clear_stencil;
   if (o->zs) {
      struct vagx_texture t;
      vagx_texture_init(&t);
      t.format = o->zs_format;
      t.dimension = VAGX_DIMENSION_2D;
      t.layout = VAGX_IMAGE_LAYOUT_TWIDDLED;
      t.samples = rj.samples;
      t.width = W;
      t.height = H;
      t.depth = 1;
      t.levels = 1;
      /* the swizzles stay at their defaults: the renderer reads only the
       * format, samples, size and layout of a depth/stencil attachment */
      twiddled_layout(&zs_layout, samples, vagx_format_bytes_per_block(o->zs_format));
      zs_base = alloc(zs_layout.size_B, 16384);
      t.base_va = zs_base;
      zs_tex_va = alloc(32, 32);
      vagx_texture_pack(ptr(zs_tex_va), &t);
      rj.zs_desc_va = zs_tex_va;
      rj.depth_store = o->depth_store;
      rj.depth_load = o->depth_load;
      rj.stencil_load = o->stencil_load;
      rj.stencil_store = o->stencil_store;
   }
   to_usc(&bg, &rj.bg_program);
   to_usc(&eot, &rj.eot_program);
   uint64_t va = alloc(VAGX_RENDER_JOB_DWORDS * 4, 64);
   vagx_render_job_pack(ptr(va), &rj);
   return va;
}

bool emit_state_opaque;

/* Common state: viewport identity-ish (ndc -> pixels), scissor full. */
void emit_state(unsigned nvar_smooth, unsigned nvar_flat, unsigned nvar_linear,
                uint64_t vbuf, const struct prog *fs, const uint32_t *cfb, unsigned ncfb,
                unsigned ncf, bool z_slot)
{
   struct prog vs = vs_prog(nvar_smooth + nvar_flat + nvar_linear, vbuf);
   EMIT(cmd_bind_vertex_pipeline, v_.smooth32 = nvar_smooth; v_.flat32 = nvar_flat;
        v_.linear32 = nvar_linear; to_usc(&vs, &v_.program));
   uint64_t cfb_va = ncfb ? put(cfb, ncfb * 4, 4) : 0;
   EMIT(cmd_bind_fragment_pipeline, v_.cf_binding_count = ncfb; v_.cf_count = ncf;
        v_.slots32 = 1 + (z_slot ? 1 : 0) + nvar_smooth + nvar_flat + nvar_linear;
        v_.z_slot = z_slot; v_.opaque = emit_state_opaque; v_.cf_bindings_va = cfb_va;
        to_usc(fs, &v_.program));
   /* ndc [-1,1] -> [0,W] x [0,H], y down as given */
   EMIT(cmd_viewport, v_.scale_x = W / 2.0f; v_.offset_x = W / 2.0f; v_.scale_y = H / 2.0f;
        v_.offset_y = H / 2.0f; v_.scale_z = 1; v_.offset_z = 0; v_.min_depth = 0;
        v_.max_depth = 1);
   EMIT(cmd_scissor, v_.min_x = 0; v_.min_y = 0; v_.max_x = W; v_.max_y = H);
   EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 1; v_.line_width = 1;
        v_.sample_mask = 0xf; v_.depth_clip = 1);
   EMIT(cmd_depth_stencil, v_.depth_func = VAGX_COMPARE_FUNC_ALWAYS);
}

uint32_t binding(unsigned slot, unsigned count, unsigned cf, enum vagx_interp in)
{
   return t_cf_binding(slot, count, cf, in);
}

/* Pixel (window) -> ndc for the viewport above. */
float ndcx(double x) { return (float)(x / (W / 2.0) - 1.0); }
float ndcy(double y) { return (float)(y / (H / 2.0) - 1.0); }

uint64_t vbuf_put(unsigned nv, unsigned nvar, const float (*pos)[4], const float *var)
{
   const unsigned words = 4 + nvar;
   const uint64_t va = alloc((uint64_t)nv * words * 4, 16);
   float *b = ptr(va);
   for (unsigned i = 0; i < nv; i++) {
      memcpy(b + (size_t)i * words, pos[i], 16);
      if (nvar)
         memcpy(b + (size_t)i * words + 4, var + (size_t)i * nvar, nvar * 4);
   }
   return va;
}

uint64_t vbuf_tris(const double (*t)[2], unsigned nv, unsigned nvar, const float *var,
                   const float *wv, const float *zv)
{
   float (*pos)[4] = malloc(((size_t)nv + 1) * sizeof(*pos));
   for (unsigned i = 0; i < nv; i++) {
      float w = wv ? wv[i] : 1.0f;
      pos[i][0] = ndcx(t[i][0]) * w;
      pos[i][1] = ndcy(t[i][1]) * w;
      pos[i][2] = (zv ? zv[i] : 0.5f) * w;
      pos[i][3] = w;
   }
   uint64_t va = vbuf_put(nv, nvar, (const float(*)[4])pos, var);
   free(pos);
   return va;
}

void draw(enum vagx_primitive prim, unsigned count)
{
   EMIT(cmd_draw, v_.primitive = prim; v_.count = count; v_.instance_count = 1);
}

const char *fs_const =
   "mov r0, u0\nmov r1, u1\nmov r2, u2\nmov r3, u3\nst_tile.rt0 r0, #0\nend\n";

struct prog const_fs(float r, float g, float b, float a)
{
   struct prog p = {.code = assemble(fs_const), .nuni = 4};
   float c[4] = {r, g, b, a};
   memcpy(p.uni, c, 16);
   return p;
}

/* ------------------------------------------------------------ textures II -- */
/* Builds a texture whose texel (level, layer, x, y) has the bytes fill()
 * returns; returns the descriptor VA. */
struct vagx_layout tex_layout; /* of the last make_texture */
uint64_t tex_base;

uint64_t make_texture(const struct texdesc *d,
                      void (*fill)(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *out))
{
   return make_texture_layout(d, false, fill);
}

uint64_t make_texture_layout(const struct texdesc *d, bool sparse,
                             void (*fill)(unsigned lv, unsigned layer, unsigned x, unsigned y,
                                          uint8_t *out))
{
   struct vagx_layout l;
   memset(&l, 0, sizeof(l));
   l.width_px = d->w; l.height_px = d->h; l.depth_px = d->depth; l.levels = d->levels;
   l.sample_count_sa = 1; l.block_width_px = l.block_height_px = 1;
   l.bytes_per_block_B = vagx_format_bytes_per_block(d->fmt);
   l.tiling = d->linear ? VAGX_TILING_LINEAR : VAGX_TILING_TWIDDLED;
   l.mipmapped_z = d->dim == VAGX_DIMENSION_3D;
   if (d->linear)
      l.linear_stride_B = (d->w * l.bytes_per_block_B + 15) & ~15u;
   l.sparse = sparse;
   if (!vagx_layout_init(&l)) {
      fprintf(stderr, "bad test layout\n");
      exit(2);
   }
   uint64_t base = alloc(l.size_B, sparse ? l.alignment_B : 16384);
   tex_layout = l;
   tex_base = base;
   for (unsigned lv = 0; lv < d->levels; lv++)
      for (unsigned layer = 0; layer < vagx_layout_level_depth(&l, lv); layer++)
         for (unsigned y = 0; y < l.level[lv].height_px; y++)
            for (unsigned x = 0; x < l.level[lv].width_px; x++)
               fill(lv, layer, x, y, (uint8_t *)ptr(base) + vagx_layout_offset_B(&l, lv, layer, x, y));
   struct vagx_texture t;
   vagx_texture_init(&t);
   t.format = d->fmt;
   t.dimension = d->dim;
   t.layout = d->linear ? VAGX_IMAGE_LAYOUT_LINEAR : VAGX_IMAGE_LAYOUT_TWIDDLED;
   t.width = d->w; t.height = d->h; t.depth = d->depth; t.levels = d->levels;
   t.base_level = d->base; t.max_level = d->maxl;
   t.swizzle_r = VAGX_SWIZZLE_R; t.swizzle_g = VAGX_SWIZZLE_G;
   t.swizzle_b = VAGX_SWIZZLE_B; t.swizzle_a = VAGX_SWIZZLE_A;
   t.stride = d->linear ? l.linear_stride_B : 0;
   t.sparse = sparse;
   t.base_va = base;
   uint64_t va = alloc(32, 32);
   vagx_texture_pack(ptr(va), &t);
   return va;
}

uint64_t make_sampler(enum vagx_filter minf, enum vagx_filter magf, enum vagx_mip_filter mipf,
                      enum vagx_wrap wrap, float min_lod, float max_lod, float bias)
{
   struct vagx_sampler s;
   vagx_sampler_init(&s);
   s.min_filter = minf; s.mag_filter = magf; s.mip_filter = mipf;
   s.wrap_s = s.wrap_t = s.wrap_r = wrap;
   s.min_lod = min_lod; s.max_lod = max_lod; s.lod_bias = bias;
   uint64_t va = alloc(32, 32);
   vagx_sampler_pack(ptr(va), &s);
   return va;
}
