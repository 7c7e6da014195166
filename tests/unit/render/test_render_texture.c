/* SPDX-License-Identifier: MIT */
/*
 * Part of test_render: texture sampling: linear and twiddled images, the
 * descriptor cache, linear strides, the sampling fast paths, mipmaps, 3D and
 * array textures, cube maps and their LOD, the shadow reference clamp, the
 * sparse layout.  The harness is render_test_harness.h, main() in
 * test_render.c.
 */
#include "render_test_harness.h"

/* Texture: the same image as linear and twiddled sampled with nearest and
 * linear filters must give identical results; nearest matches texels. */
static const char *fs_tex =
   "iter.center.persp r4, cf1, cf0, r0\niter.center.persp r5, cf2, cf0, r0\n"
   "tex.auto.t0.s0.2d r0, r4, r0, r0\nst_tile.rt0 r0, #0\nend\n";

static uint64_t make_tex(unsigned tw, unsigned th, bool twiddled, const uint32_t *texels)
{
   struct vagx_layout l;
   memset(&l, 0, sizeof(l));
   l.width_px = tw; l.height_px = th; l.depth_px = 1; l.levels = 1;
   l.sample_count_sa = 1; l.block_width_px = l.block_height_px = 1;
   l.bytes_per_block_B = 4;
   l.tiling = twiddled ? VAGX_TILING_TWIDDLED : VAGX_TILING_LINEAR;
   vagx_layout_init(&l);
   uint64_t base = alloc(l.size_B, 16384);
   vagx_layout_tile(&l, ptr(base), texels, tw * 4, 0, 0, 0, 0, tw, th);
   struct vagx_texture t;
   vagx_texture_init(&t);
   t.format = VAGX_FORMAT_RGBA8_UNORM;
   t.dimension = VAGX_DIMENSION_2D;
   t.layout = twiddled ? VAGX_IMAGE_LAYOUT_TWIDDLED : VAGX_IMAGE_LAYOUT_LINEAR;
   t.width = tw; t.height = th; t.depth = 1; t.levels = 1;
   t.swizzle_r = VAGX_SWIZZLE_R; t.swizzle_g = VAGX_SWIZZLE_G;
   t.swizzle_b = VAGX_SWIZZLE_B; t.swizzle_a = VAGX_SWIZZLE_A;
   t.stride = twiddled ? 0 : l.level[0].stride_B;
   t.base_va = base;
   uint64_t va = alloc(32, 32);
   vagx_texture_pack(ptr(va), &t);
   return va;
}

/* A job that draws fs_tex over the whole 64x64 target: texture descriptor
 * `tex` sampled with sampler `sva`, u and v from 0 to 1. */
static uint64_t tex_quad_job(uint64_t tex, uint64_t sva)
{
   ncs = 0;
   double t[6][2] = {{0, 0}, {64, 0}, {64, 64}, {0, 0}, {64, 64}, {0, 64}};
   float uv[6 * 2] = {0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1};
   uint64_t vb = vbuf_tris(t, 6, 2, uv, NULL, NULL);
   struct prog fs = {.code = assemble(fs_tex), .tex = tex, .ntex = 1, .smp = sva, .nsmp = 1};
   uint32_t cfb[2] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH), binding(1, 2, 1, VAGX_INTERP_SMOOTH)};
   emit_state(2, 0, 0, vb, &fs, cfb, 2, 3, false);
   draw(VAGX_PRIMITIVE_TRIANGLES, 6);
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   return make_job(&o);
}

void test_textures(void)
{
   W = 64; H = 64;
   const unsigned tw = 16, th = 8;
   uint32_t texels[16 * 8];
   for (unsigned i = 0; i < tw * th; i++)
      texels[i] = (i * 37u % 256) | ((i * 91u % 256) << 8) | ((i * 13u % 256) << 16) | 0xff000000u;
   uint8_t img[2][2][64 * 64 * 4];
   for (unsigned filt = 0; filt < 2; filt++)
      for (unsigned tl = 0; tl < 2; tl++) {
         struct vagx_sampler s;
         vagx_sampler_init(&s);
         s.min_filter = s.mag_filter = filt ? VAGX_FILTER_LINEAR : VAGX_FILTER_NEAREST;
         s.wrap_s = VAGX_WRAP_REPEAT;
         s.wrap_t = VAGX_WRAP_CLAMP_TO_EDGE;
         s.max_lod = 16;
         uint64_t sva = alloc(32, 32);
         vagx_sampler_pack(ptr(sva), &s);
         uint64_t job = tex_quad_job(make_tex(tw, th, tl, texels), sva);
         struct vagx_render_fault f;
         enum vagx_job_status st = run(job, &f);
         CHECK(st == VAGX_JOB_STATUS_OK, "texture status %d unit %d", st, f.unit);
         for (unsigned y = 0; y < H; y++)
            memcpy(img[filt][tl] + y * W * 4, px(0, y), W * 4);
         if (!filt && tl) {
            unsigned bad = 0;
            for (unsigned y = 0; y < H; y++)
               for (unsigned x = 0; x < W; x++) {
                  uint32_t e = texels[(y * th / H) * tw + x * tw / W], g;
                  memcpy(&g, px(x, y), 4);
                  bad += e != g;
               }
            CHECK(bad == 0, "nearest texture: %u pixels wrong", bad);
            if (bad)
               save_ppm("tex-nearest");
         }
      }
   CHECK(!memcmp(img[0][0], img[0][1], sizeof(img[0][0])), "nearest: linear != twiddled");
   CHECK(!memcmp(img[1][0], img[1][1], sizeof(img[1][0])), "bilinear: linear != twiddled");
   CHECK(memcmp(img[0][0], img[1][0], sizeof(img[0][0])) != 0, "bilinear == nearest?");
}

/* Decoded descriptors are cached per job (render_priv.h): a descriptor
 * rewritten between two jobs at the same address must be read again. */
void test_desc_cache(void)
{
   W = 64; H = 64;
   const unsigned tw = 16, th = 8;
   uint32_t texels[2][16 * 8];
   for (unsigned i = 0; i < tw * th; i++) {
      texels[0][i] = (i * 37u % 256) | ((i * 91u % 256) << 8) | 0xff000000u;
      texels[1][i] = (i * 53u % 256) << 8 | ((i * 7u % 256) << 16) | 0xff000000u;
   }
   struct vagx_sampler sm;
   vagx_sampler_init(&sm);
   sm.min_filter = sm.mag_filter = VAGX_FILTER_NEAREST;
   sm.max_lod = 16;
   uint64_t sva = alloc(32, 32);
   vagx_sampler_pack(ptr(sva), &sm);
   const uint64_t tex[2] = {make_tex(tw, th, true, texels[0]), make_tex(tw, th, false, texels[1])};
   uint64_t job = tex_quad_job(tex[0], sva);
   for (unsigned k = 0; k < 2; k++) {
      if (k)
         memcpy(ptr(tex[0]), ptr(tex[1]), 32);
      struct vagx_render_fault f;
      enum vagx_job_status st = run(job, &f);
      CHECK(st == VAGX_JOB_STATUS_OK, "desc cache job %u: status %d", k, st);
      unsigned bad = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++) {
            uint32_t e = texels[k][(y * th / H) * tw + x * tw / W], g;
            memcpy(&g, px(x, y), 4);
            bad += e != g;
         }
      CHECK(bad == 0, "desc cache job %u: %u pixels not from the %s descriptor", k, bad,
            k ? "rewritten" : "first");
   }
}

/* A LINEAR texture as window systems share them (PRIME, scanout): BGRA8,
 * a size that is no power of two, and a row stride with padding past the
 * last texel (the exporter picks the stride).  Sampled 1:1 with nearest
 * filtering, pixel (x, y) must be texel (x, y) with B and R in place; the
 * padding (a colour no texel has) must never be read. */
void test_tex_linear_stride(void)
{
   W = 24; H = 10;
   const unsigned stride = 24 * 4 + 48;
   uint64_t base = alloc((uint64_t)stride * H, 16384);
   uint8_t *img = ptr(base);
   memset(img, 0xcd, (size_t)stride * H);
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         uint8_t *t = img + y * stride + x * 4; /* B, G, R, A */
         t[0] = (uint8_t)(x * 10);
         t[1] = (uint8_t)(y * 25);
         t[2] = (uint8_t)(255 - x * 10);
         t[3] = 0xff;
      }
   struct vagx_texture t;
   vagx_texture_init(&t);
   t.format = VAGX_FORMAT_BGRA8_UNORM;
   t.dimension = VAGX_DIMENSION_2D;
   t.layout = VAGX_IMAGE_LAYOUT_LINEAR;
   t.width = W; t.height = H; t.depth = 1; t.levels = 1;
   t.swizzle_r = VAGX_SWIZZLE_R; t.swizzle_g = VAGX_SWIZZLE_G;
   t.swizzle_b = VAGX_SWIZZLE_B; t.swizzle_a = VAGX_SWIZZLE_A;
   t.stride = stride;
   t.base_va = base;
   const char *err = NULL;
   CHECK(vagx_texture_validate(&t, &err), "linear descriptor: %s", err);
   uint64_t tva = alloc(32, 32);
   vagx_texture_pack(ptr(tva), &t);

   ncs = 0;
   double tri[6][2] = {{0, 0}, {24, 0}, {24, 10}, {0, 0}, {24, 10}, {0, 10}};
   float uv[6 * 2] = {0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1};
   uint64_t vb = vbuf_tris(tri, 6, 2, uv, NULL, NULL);
   struct prog fs = {.code = assemble(fs_tex), .tex = tva, .ntex = 1,
                     .smp = make_sampler(VAGX_FILTER_NEAREST, VAGX_FILTER_NEAREST,
                                         VAGX_MIP_FILTER_NONE, VAGX_WRAP_CLAMP_TO_EDGE, 0, 16, 0),
                     .nsmp = 1};
   uint32_t cfb[2] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH), binding(1, 2, 1, VAGX_INTERP_SMOOTH)};
   emit_state(2, 0, 0, vb, &fs, cfb, 2, 3, false);
   draw(VAGX_PRIMITIVE_TRIANGLES, 6);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   struct vagx_render_fault f;
   enum vagx_job_status st = run_stream(&o, &f);
   CHECK(st == VAGX_JOB_STATUS_OK, "linear texture status %d unit %d", st, f.unit);
   unsigned bad = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         const uint8_t *g = px(x, y); /* RGBA8 render target */
         const uint8_t e[4] = {(uint8_t)(255 - x * 10), (uint8_t)(y * 25), (uint8_t)(x * 10), 0xff};
         if (memcmp(g, e, 4)) {
            if (!bad)
               fprintf(stderr, "  (%u,%u): %02x%02x%02x%02x, want %02x%02x%02x%02x\n", x, y, g[0],
                       g[1], g[2], g[3], e[0], e[1], e[2], e[3]);
            bad++;
         }
      }
   CHECK(bad == 0, "linear BGRA8 texture with padded stride: %u pixels wrong", bad);
   if (bad)
      save_ppm("tex-linear-stride");
}

/* Level i of the mip test is the solid colour mipc(i). */
static void mipc(unsigned i, uint8_t *c)
{
   c[0] = (uint8_t)(i * 36);
   c[1] = (uint8_t)(255 - i * 36);
   c[2] = (uint8_t)((i * 73) & 255);
   c[3] = 255;
}
static void fill_mip(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)layer; (void)x; (void)y;
   mipc(lv, o);
}

/* Texels of the fast-sampling test: every byte differs from its neighbours. */
static void fill_hash(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   uint32_t h = (lv * 7919u + layer * 104729u + x * 2654435761u) ^ (y * 40503u + 0x9e3779b9u);
   h ^= h >> 15;
   h *= 0x2c1b3c6du;
   h ^= h >> 12;
   memcpy(o, &h, 4);
}

/* Samples texture 0 at uv = M (pixel centre) + t, M = (u0 u1; u3 u4),
 * t = (u2, u5) */
static const char *fs_uv_affine =
   "u2f r4, sr.pix_x\nfadd r4, r4, #0.5\nu2f r5, sr.pix_y\nfadd r5, r5, #0.5\n"
   "fmul r6, r4, u0\nfmul r8, r5, u1\nfadd r6, r6, r8\nfadd r6, r6, u2\n"
   "fmul r7, r4, u3\nfmul r8, r5, u4\nfadd r7, r7, r8\nfadd r7, r7, u5\n"
   "tex.auto.t0.s0.2d r0, r6, r0, r0\nst_tile.rt0 r0, #0\nend\n";

/* The W x H target copied to ref, and the number of its rows that differ
 * from ref */
static void target_save(uint8_t *ref)
{
   for (unsigned y = 0; y < H; y++)
      memcpy(ref + y * W * 4, px(0, y), W * 4);
}
static unsigned target_rows_differ(const uint8_t *ref)
{
   unsigned bad = 0;
   for (unsigned y = 0; y < H; y++)
      bad += memcmp(ref + y * W * 4, px(0, y), W * 4) != 0;
   return bad;
}

/* The texture sampling fast paths (RGBA8/BGRA8 texels by table, bilinear
 * footprints addressed per row and column, descriptors cached per job, all
 * lanes of an instruction at once: render_tex_lanes.c) against the generic
 * path (VAGX_RENDER_OPT_NO_FAST_IO), byte for byte: both formats, linear
 * and twiddled, sizes that are and are not powers of two, every wrap mode
 * without a border, nearest and linear filters with and without mipmaps,
 * coordinates rotated, scaled (magnified and minified) and shifted past the
 * edges.  The fast paths run on the host's best SIMD level and on the
 * baseline one, in flat memory (one span covers a texture) and through a
 * page-by-page translation (texel by texel), with a page of the texture
 * unmapped: the same status, fault and first translation fault. */
static void tex_fast_run(const struct prog *fs, const struct job_opts *o, unsigned opts,
                         int simd, bool paged, enum vagx_job_status *st,
                         struct vagx_render_fault *f, __typeof__(io_first) *first)
{
   vagx_render_set_options(dev, opts);
   usc_simd_force(simd);
   run_mem = paged ? &io_ops : &mem_ops;
   memset(&io_first, 0, sizeof(io_first));
   *st = run(fullscreen_job(fs, o), f);
   *first = io_first;
   run_mem = &mem_ops;
   usc_simd_force(USC_SIMD_AUTO);
   vagx_render_set_options(dev, 0);
}

/* fs becomes fs_uv_affine with uniforms for uv = M (x, y) + (tu, tv), M a
 * rotation by a scaled to k texels of td per pixel. */
static void uv_affine(struct prog *fs, const struct texdesc *td, double a, double k, double tu,
                      double tv)
{
   const float u[6] = {(float)(k * cos(a) / td->w), (float)(-k * sin(a) / td->w), (float)tu,
                       (float)(k * sin(a) / td->h), (float)(k * cos(a) / td->h), (float)tv};
   fs->code = assemble(fs_uv_affine);
   memcpy(fs->uni, u, sizeof(u));
}

/* Draws fs in `mode` (0: the generic path; 1: fast; 2: fast, baseline SIMD;
 * 3: fast, page by page) and checks its status (`what` names the case).
 * The reference draw saves the target in ref and returns 0; the others
 * return the number of target rows that differ from ref. */
static unsigned tex_mode_rows_differ(const struct prog *fs, unsigned mode, bool reference,
                                     uint8_t *ref, const char *what)
{
   const struct job_opts o = {.clear = {0, 0, 0, 0}};
   enum vagx_job_status st;
   struct vagx_render_fault fault;
   __typeof__(io_first) first;
   tex_fast_run(fs, &o, mode ? 0 : VAGX_RENDER_OPT_NO_FAST_IO,
                mode == 2 ? USC_SIMD_GENERIC : USC_SIMD_AUTO, mode == 3, &st, &fault, &first);
   CHECK(st == VAGX_JOB_STATUS_OK, "%s mode %u: status %d", what, mode, st);
   if (reference) {
      target_save(ref);
      return 0;
   }
   return target_rows_differ(ref);
}

void test_tex_fast_sampling(void)
{
   W = 64; H = 64;
   static const struct { unsigned w, h, levels; } sizes[] = {{64, 64, 7}, {37, 23, 6}, {256, 8, 9}, {5, 3, 1}};
   static const enum vagx_wrap wraps[] = {VAGX_WRAP_REPEAT, VAGX_WRAP_MIRRORED_REPEAT,
                                          VAGX_WRAP_CLAMP_TO_EDGE, VAGX_WRAP_MIRROR_CLAMP_TO_EDGE};
   uint64_t rng = 12345;
   unsigned cases = 0, diffs = 0, faulted = 0;
   static uint8_t ref[64 * 64 * 4];
   for (unsigned si = 0; si < 4; si++)
      for (unsigned fl = 0; fl < 4; fl++)          /* BGRA8 x linear */
         for (unsigned wi = 0; wi < 4; wi++)
            for (unsigned fi = 0; fi < 6; fi++) {
               const bool bgra = fl & 1, lin_layout = fl >> 1;
               struct texdesc td = {bgra ? VAGX_FORMAT_BGRA8_UNORM : VAGX_FORMAT_RGBA8_UNORM,
                                    VAGX_DIMENSION_2D, sizes[si].w, sizes[si].h, 1,
                                    lin_layout ? 1 : sizes[si].levels, 0, 0, lin_layout};
               td.maxl = td.levels - 1;
               const enum vagx_filter f = fi & 1 ? VAGX_FILTER_LINEAR : VAGX_FILTER_NEAREST;
               const enum vagx_mip_filter mf = fi >> 1 == 0 ? VAGX_MIP_FILTER_NONE
                                               : fi >> 1 == 1 ? VAGX_MIP_FILTER_NEAREST
                                                              : VAGX_MIP_FILTER_LINEAR;
               struct prog fs = {.tex = make_texture(&td, fill_hash), .ntex = 1, .nuni = 6, .nsmp = 1,
                                 .smp = make_sampler(f, f, mf, wraps[wi], 0, 16, 0)};
               /* a swizzle per case: identity, RGB1 (GL_RGB), channels
                * moved with constants, one channel everywhere */
               static const enum vagx_swizzle swz[4][4] = {
                  {VAGX_SWIZZLE_R, VAGX_SWIZZLE_G, VAGX_SWIZZLE_B, VAGX_SWIZZLE_A},
                  {VAGX_SWIZZLE_R, VAGX_SWIZZLE_G, VAGX_SWIZZLE_B, VAGX_SWIZZLE_ONE},
                  {VAGX_SWIZZLE_B, VAGX_SWIZZLE_ZERO, VAGX_SWIZZLE_A, VAGX_SWIZZLE_ONE},
                  {VAGX_SWIZZLE_G, VAGX_SWIZZLE_G, VAGX_SWIZZLE_G, VAGX_SWIZZLE_G}};
               const enum vagx_swizzle *sz = swz[cases % 4];
               struct vagx_texture tdesc;
               CHECK(vagx_texture_unpack(ptr(fs.tex), &tdesc, NULL), "texture descriptor unpacks");
               tdesc.swizzle_r = sz[0]; tdesc.swizzle_g = sz[1];
               tdesc.swizzle_b = sz[2]; tdesc.swizzle_a = sz[3];
               vagx_texture_pack(ptr(fs.tex), &tdesc);
               /* rotation by a, scale 2^e texels per pixel */
               rng = rng * 6364136223846793005ull + 1442695040888963407ull;
               const double a = (double)(rng >> 40 & 1023) / 1024 * 6.2832;
               const double e = (double)(rng >> 20 & 1023) / 1024 * 5 - 2.5;
               uv_affine(&fs, &td, a, exp2(e), (double)(rng >> 50 & 255) / 64 - 2,
                         (double)(rng >> 8 & 255) / 64 - 2);
               const struct job_opts o = {.clear = {0, 0, 0, 0}};
               char what[48];
               snprintf(what, sizeof(what), "fast sampling case %u", cases);
               /* every mode against mode 0, the generic path */
               for (unsigned mode = 0; mode < 4; mode++) {
                  const unsigned bad = tex_mode_rows_differ(&fs, mode, !mode, ref, what);
                  if (bad && !diffs++)
                     fprintf(stderr, "  first differing case: %ux%u %s %s wrap %d filter %d mip %d "
                             "mode %u, %u rows differ\n", td.w, td.h, bgra ? "BGRA8" : "RGBA8",
                             lin_layout ? "linear" : "twiddled", wraps[wi], f, mf, mode, bad);
               }
               /* a page of level 0 unmapped (the one of its middle texel) */
               memset(io_hole, 0, sizeof(io_hole));
               io_hole[(tex_base + vagx_layout_offset_B(&tex_layout, 0, 0, td.w / 2, td.h / 2) -
                        MEM_BASE) / 4096] = true;
               enum vagx_job_status hst[2];
               struct vagx_render_fault hf[2];
               __typeof__(io_first) hfirst[2];
               for (unsigned mode = 0; mode < 2; mode++)
                  tex_fast_run(&fs, &o, mode ? 0 : VAGX_RENDER_OPT_NO_FAST_IO, USC_SIMD_AUTO, true,
                               &hst[mode], &hf[mode], &hfirst[mode]);
               memset(io_hole, 0, sizeof(io_hole));
               faulted += hst[0] == VAGX_JOB_STATUS_MMU_FAULT;
               CHECK(hst[0] == hst[1] &&
                        hf[0].unit == hf[1].unit && hf[0].address == hf[1].address &&
                        hf[0].access == hf[1].access && hfirst[0].faulted == hfirst[1].faulted &&
                        hfirst[0].va == hfirst[1].va && hfirst[0].access == hfirst[1].access,
                     "fast sampling case %u, page unmapped: status %d/%d fault %llx/%llx first %llx/%llx",
                     cases, hst[0], hst[1], (unsigned long long)hf[0].address,
                     (unsigned long long)hf[1].address, (unsigned long long)hfirst[0].va,
                     (unsigned long long)hfirst[1].va);
               cases++;
            }
   vagx_render_set_options(dev, 0);
   CHECK(diffs == 0, "fast texture sampling differs from the generic path in %u of %u cases", diffs,
         cases);
   /* minified and rotated footprints need not read the unmapped page */
   CHECK(faulted >= cases / 2, "only %u of %u cases met the unmapped texture page", faulted, cases);
   printf("  tex_fast_sampling: %u cases x 4 runs, %u met an unmapped page\n", cases, faulted);
}

/* Texels of tex_sparse: tex_sparse_bpb hashed bytes, or four floats in
 * [0, 1] for RGBA32_FLOAT. */
static unsigned tex_sparse_bpb;
static bool tex_sparse_float;
static void fill_sparse(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   uint8_t h[16];
   for (unsigned k = 0; k < 4; k++)
      fill_hash(lv, layer + k * 3, x, y, h + 4 * k);
   if (tex_sparse_float)
      for (unsigned k = 0; k < 4; k++) {
         const float f = (float)(h[4 * k] | h[4 * k + 1] << 8) / 65535.0f;
         memcpy(h + 4 * k, &f, 4);
      }
   memcpy(o, h, tex_sparse_bpb);
}

/* The sparse layout (descriptor bit `sparse`, contract 1.7: the large tile
 * is the 64 KiB sparse page, layout.md section 10): a texture in it samples
 * exactly like the same texels in the ordinary layout, on the generic and
 * the fast paths, for a format of each texel size (so each tile shape:
 * 256x256 at 1 B ... 64x64 at 16 B), nearest at level 0 across every tile
 * boundary, rotated and minified with mipmaps.  The two layouts place the
 * texels differently, so a device that ignored the bit would read others. */
void test_tex_sparse(void)
{
   W = 64; H = 64;
   static const struct { enum vagx_format f; unsigned bpb; bool flt; } fmts[] = {
      {VAGX_FORMAT_R8_UNORM, 1, false},     {VAGX_FORMAT_RG8_UNORM, 2, false},
      {VAGX_FORMAT_RGBA8_UNORM, 4, false},  {VAGX_FORMAT_RGBA16_UNORM, 8, false},
      {VAGX_FORMAT_RGBA32_FLOAT, 16, true},
   };
   /* rotation, texels per pixel, mip filter, min/mag filter */
   static const struct { double a, k; enum vagx_mip_filter mf; enum vagx_filter f; } views[] = {
      {0.0, 5.0, VAGX_MIP_FILTER_NONE, VAGX_FILTER_NEAREST},
      {0.7, 3.0, VAGX_MIP_FILTER_LINEAR, VAGX_FILTER_LINEAR},
      {2.0, 0.5, VAGX_MIP_FILTER_NEAREST, VAGX_FILTER_LINEAR},
   };
   static uint8_t ref[64 * 64 * 4];
   unsigned cases = 0, diffs = 0;
   for (unsigned fi = 0; fi < sizeof(fmts) / sizeof(fmts[0]); fi++) {
      tex_sparse_bpb = fmts[fi].bpb;
      tex_sparse_float = fmts[fi].flt;
      for (unsigned vi = 0; vi < sizeof(views) / sizeof(views[0]); vi++) {
         /* sparse 0 (the reference) and 1, each on the generic and the fast path */
         for (unsigned sp = 0; sp < 2; sp++) {
            brk_ = 0;
            struct texdesc td = {fmts[fi].f, VAGX_DIMENSION_2D, 320, 288, 1, 9, 0, 8, false};
            struct prog fs = {.tex = make_texture_layout(&td, sp, fill_sparse), .ntex = 1, .nuni = 6,
                              .nsmp = 1,
                              .smp = make_sampler(views[vi].f, views[vi].f, views[vi].mf,
                                                  VAGX_WRAP_REPEAT, 0, 16, 0)};
            if (sp) {
               const struct vagx_tile b = vagx_layout_sparse_block(fmts[fi].bpb);
               CHECK(tex_layout.level[0].tilesize_el.width_el == b.width_el &&
                        tex_layout.level[0].tilesize_el.height_el == b.height_el,
                     "tex_sparse %u B: tile %ux%u", fmts[fi].bpb,
                     tex_layout.level[0].tilesize_el.width_el,
                     tex_layout.level[0].tilesize_el.height_el);
            }
            uv_affine(&fs, &td, views[vi].a, views[vi].k, 0.01f, 0.02f);
            char what[48];
            snprintf(what, sizeof(what), "tex_sparse %u B view %u sparse %u", fmts[fi].bpb, vi, sp);
            for (unsigned mode = 0; mode < 2; mode++) {
               const unsigned bad = tex_mode_rows_differ(&fs, mode, !sp && !mode, ref, what);
               if (bad && !diffs++)
                  fprintf(stderr, "  tex_sparse: first difference %u B view %u sparse %u mode %u: "
                          "%u rows\n", fmts[fi].bpb, vi, sp, mode, bad);
            }
         }
         cases++;
      }
   }
   /* the layouts differ: texel (0, 64) of 320x288 RGBA8 is in the
    * ordinary layout's 16 KiB tile 5 (a row of 5 tiles), in the sparse
    * layout's page 0, its tile 2 */
   struct vagx_layout lp, ls;
   memset(&lp, 0, sizeof(lp));
   lp.width_px = 320; lp.height_px = 288; lp.depth_px = 1; lp.levels = 1;
   lp.sample_count_sa = 1; lp.block_width_px = lp.block_height_px = 1;
   lp.bytes_per_block_B = 4;
   lp.tiling = VAGX_TILING_TWIDDLED;
   ls = lp;
   ls.sparse = true;
   CHECK(vagx_layout_init(&lp) && vagx_layout_init(&ls), "tex_sparse layouts");
   CHECK(vagx_layout_offset_B(&lp, 0, 0, 0, 64) == 5 * VAGX_LAYOUT_PAGE_B &&
            vagx_layout_offset_B(&ls, 0, 0, 0, 64) == 2 * VAGX_LAYOUT_PAGE_B,
         "tex_sparse: texel (0, 64) at %llu and %llu",
         (unsigned long long)vagx_layout_offset_B(&lp, 0, 0, 0, 64),
         (unsigned long long)vagx_layout_offset_B(&ls, 0, 0, 0, 64));
   CHECK(diffs == 0, "tex_sparse: sparse or fast sampling differs from the reference in %u of %u cases",
         diffs, cases);
   printf("  tex_sparse: %u formats x %u views, ordinary and sparse layout, generic and fast\n",
          (unsigned)(sizeof(fmts) / sizeof(fmts[0])), (unsigned)(sizeof(views) / sizeof(views[0])));
}

/* The sampled floats themselves, not their 8-bit encoding: a 16x16 target
 * whose pixels sample texture t0 at the coordinates `coords` computes into
 * r4, r5 (2D, sampler filter), each storing the four bytes of component k's
 * float bits as its colour, on the generic, fast and baseline-SIMD paths;
 * every pixel's bits must be want(x, y, k)'s.  The texture instruction's
 * destination is its own scalar sources' row (src1 = src2 = r0), which the
 * direct write into the registers must read first.  Returns the runs that
 * differ (the first is printed). */
static unsigned tex_bits_runs(const char *what, const char *coords, const struct texdesc *td,
                              void (*fill)(unsigned, unsigned, unsigned, unsigned, uint8_t *),
                              enum vagx_filter filter, float (*want)(unsigned, unsigned, unsigned))
{
   unsigned bad = 0;
   W = 16; H = 16;
   for (unsigned k = 0; k < 4; k++) {
      char src[1024];
      snprintf(src, sizeof(src),
               "%s"
               "tex.auto.t0.s0.2d r0, r4, r0, r0\n"
               "and r8, r%u, #255\nu2f r8, r8\nfmul r8, r8, #0.003921568859368563\n"
               "shr r9, r%u, #8\nand r9, r9, #255\nu2f r9, r9\nfmul r9, r9, #0.003921568859368563\n"
               "shr r10, r%u, #16\nand r10, r10, #255\nu2f r10, r10\nfmul r10, r10, #0.003921568859368563\n"
               "shr r11, r%u, #24\nu2f r11, r11\nfmul r11, r11, #0.003921568859368563\n"
               "st_tile.rt0 r8, #0\nend\n", coords, k, k, k, k);
      struct prog fs = {.tex = make_texture(td, fill), .ntex = 1, .nsmp = 1,
                        .smp = make_sampler(filter, filter, VAGX_MIP_FILTER_NONE,
                                            VAGX_WRAP_CLAMP_TO_EDGE, 0, 16, 0)};
      fs.code = assemble(src);
      struct job_opts o = {.clear = {0, 0, 0, 0}};
      /* 0: generic path; 1: fast; 2: fast, baseline SIMD */
      for (unsigned mode = 0; mode < 3; mode++) {
         enum vagx_job_status st;
         struct vagx_render_fault fault;
         __typeof__(io_first) first;
         tex_fast_run(&fs, &o, mode ? 0 : VAGX_RENDER_OPT_NO_FAST_IO,
                      mode == 2 ? USC_SIMD_GENERIC : USC_SIMD_AUTO, false, &st, &fault, &first);
         CHECK(st == VAGX_JOB_STATUS_OK, "%s component %u mode %u: status %d", what, k, mode, st);
         for (unsigned y = 0; y < H; y++)
            for (unsigned x = 0; x < W; x++) {
               const float w = want(x, y, k);
               const uint8_t *p = px(x, y);
               const uint32_t got = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
               uint32_t wb;
               memcpy(&wb, &w, 4);
               if (got != wb && !bad++)
                  fprintf(stderr, "  %s component %u mode %u pixel %u,%u: 0x%08x, want 0x%08x\n",
                          what, k, mode, x, y, got, wb);
            }
      }
   }
   return bad;
}

static void fill_bytes(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   const unsigned b = (y * 16 + x) & 0xff;
   (void)lv; (void)layer;
   o[0] = (uint8_t)b;
   o[1] = (uint8_t)(255 - b);
   o[2] = (uint8_t)(b ^ 0x55);
   o[3] = (uint8_t)(b ^ 0xaa);
}

static float want_byte(unsigned x, unsigned y, unsigned k)
{
   uint8_t t[4];
   fill_bytes(0, 0, x, y, t);
   return (float)t[k] / 255.0f;
}

/* Each pixel samples its own texel of a 16x16 RGBA8 texture holding every
 * byte value once per channel (nearest): the fast paths (AVX2 intrinsics,
 * vectorised C, results written into the registers) must give the generic
 * path's bits, (float)b / 255.0f, for every byte. */
void test_tex_fast_bits(void)
{
   struct texdesc td = {VAGX_FORMAT_RGBA8_UNORM, VAGX_DIMENSION_2D, 16, 16, 1, 1, 0, 0, false};
   const unsigned bad = tex_bits_runs("fast bits",
                                      "u2f r4, sr.pix_x\nfadd r4, r4, #0.5\nfmul r4, r4, #0.0625\n"
                                      "u2f r5, sr.pix_y\nfadd r5, r5, #0.5\nfmul r5, r5, #0.0625\n",
                                      &td, fill_bytes, VAGX_FILTER_NEAREST, want_byte);
   CHECK(bad == 0, "sampled floats differ from (float)b / 255.0f in %u pixel runs", bad);
   printf("  tex_fast_bits: 4 components x 256 bytes x 3 paths\n");
}

/* Texel columns of nearest sampling at coordinates next to texel edges:
 * pixel (x, y) samples u = fl(k / w) moved by (y & 3) - 1 ulps, k = 9 x +
 * (y >> 2), t likewise with x and y swapped, where the product u * w
 * rounded to float lands on an integer the exact product is below.  The
 * fast paths' texel index (floor of the exact product, as the generic
 * path's double) must match the generic path's; the test first checks that
 * the coordinates do contain such products. */
void test_tex_fast_floor(void)
{
   static const struct { unsigned w, h; } sizes[] = {{37, 23}, {600, 5}, {5, 600}};
   static uint8_t ref[64 * 64 * 4];
   unsigned naive_wrong = 0, bad = 0;
   W = 64; H = 64;
   for (unsigned si = 0; si < 3; si++) {
      const unsigned tw = sizes[si].w, th = sizes[si].h;
      struct texdesc td = {VAGX_FORMAT_RGBA8_UNORM, VAGX_DIMENSION_2D, tw, th, 1, 1, 0, 0, false};
      struct prog fs = {.tex = make_texture(&td, fill_hash), .ntex = 1, .nuni = 2, .nsmp = 1,
                        .smp = make_sampler(VAGX_FILTER_NEAREST, VAGX_FILTER_NEAREST,
                                            VAGX_MIP_FILTER_NONE, VAGX_WRAP_CLAMP_TO_EDGE, 0, 16, 0)};
      const float inv[2] = {1.0f / (float)tw, 1.0f / (float)th};
      memcpy(fs.uni, inv, sizeof(inv));
      fs.code = assemble("imul r4, sr.pix_x, #9\nshr r6, sr.pix_y, #2\niadd r4, r4, r6\n"
                         "u2f r4, r4\nfmul r4, r4, u0\nand r6, sr.pix_y, #3\n"
                         "iadd r4, r4, r6\nisub r4, r4, #1\n"
                         "imul r5, sr.pix_y, #9\nshr r7, sr.pix_x, #2\niadd r5, r5, r7\n"
                         "u2f r5, r5\nfmul r5, r5, u1\nand r7, sr.pix_x, #3\n"
                         "iadd r5, r5, r7\nisub r5, r5, #1\n"
                         "tex.auto.t0.s0.2d r0, r4, r0, r0\nst_tile.rt0 r0, #0\nend\n");
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++) {
            const unsigned k[2] = {9 * x + (y >> 2), 9 * y + (x >> 2)};
            const int ulps[2] = {(int)(y & 3) - 1, (int)(x & 3) - 1};
            const unsigned size[2] = {tw, th};
            for (unsigned c = 0; c < 2; c++) {
               float u = (float)k[c] * inv[c];
               uint32_t bits;
               memcpy(&bits, &u, 4);
               bits += (uint32_t)ulps[c];
               memcpy(&u, &bits, 4);
               naive_wrong += floorf(u * (float)size[c]) != floor((double)u * size[c]);
            }
         }
      char what[48];
      snprintf(what, sizeof(what), "fast floor %ux%u", tw, th);
      for (unsigned mode = 0; mode < 4; mode++)
         bad += tex_mode_rows_differ(&fs, mode, !mode, ref, what);
   }
   vagx_render_set_options(dev, 0);
   CHECK(naive_wrong > 0, "no coordinate whose float product rounds onto an integer");
   CHECK(bad == 0, "fast nearest sampling picks other texels than the generic path: %u rows", bad);
   printf("  tex_fast_floor: 3 sizes x 4 paths, %u coordinates where a float floor is wrong\n",
          naive_wrong);
}

/* tex with some lanes of its 32 inactive (a divergent if): the inactive
 * lanes keep their destination registers.  Pixel (x, y) with x + y odd
 * samples a 64x64 texture (nearest and linear, every path); the others
 * keep the 0.25 written before the if. */
void test_tex_fast_inactive(void)
{
   static uint8_t ref[64 * 64 * 4];
   unsigned bad = 0, kept = 0;
   W = 64; H = 64;
   for (unsigned lin = 0; lin < 2; lin++) {
      struct texdesc td = {VAGX_FORMAT_RGBA8_UNORM, VAGX_DIMENSION_2D, 64, 64, 1, 1, 0, 0, false};
      const enum vagx_filter f = lin ? VAGX_FILTER_LINEAR : VAGX_FILTER_NEAREST;
      struct prog fs = {.tex = make_texture(&td, fill_hash), .ntex = 1, .nsmp = 1,
                        .smp = make_sampler(f, f, VAGX_MIP_FILTER_NONE, VAGX_WRAP_REPEAT, 0, 16, 0)};
      fs.code = assemble("mov r0, #0x3e800000\nmov r1, #0x3e800000\nmov r2, #0x3e800000\n"
                         "mov r3, #0x3e800000\n"
                         "u2f r4, sr.pix_x\nfadd r4, r4, #0.3\nfmul r4, r4, #0.0156\n"
                         "u2f r5, sr.pix_y\nfadd r5, r5, #0.6\nfmul r5, r5, #0.0156\n"
                         "iadd r6, sr.pix_x, sr.pix_y\nand r6, r6, #1\nif.nz r6\n"
                         "tex.auto.t0.s0.2d r0, r4, r0, r0\nendif\nst_tile.rt0 r0, #0\nend\n");
      for (unsigned mode = 0; mode < 4; mode++) {
         bad += tex_mode_rows_differ(&fs, mode, !mode, ref, "fast inactive lanes");
         for (unsigned y = 0; y < H; y++)
            for (unsigned x = 0; x < W; x++)
               if (!((x + y) & 1))
                  kept += !memcmp(px(x, y), "\x40\x40\x40\x40", 4);
      }
   }
   vagx_render_set_options(dev, 0);
   CHECK(bad == 0, "tex with inactive lanes: %u rows differ from the generic path", bad);
   CHECK(kept == 2 * 4 * 64 * 32, "tex wrote inactive lanes: %u of %u pixels kept 0.25", kept,
         2 * 4 * 64 * 32);
   printf("  tex_fast_inactive: 2 filters x 4 paths\n");
}

/* texelFetch of a 2D RGBA8/BGRA8 texture (the background program's load
 * of a render target) by the lane path, against the generic path: blocks
 * whose lanes are all inside level 0 (the lane path), blocks with lanes
 * outside it (zero texels) and blocks with lanes at LOD 1, twiddled and
 * linear, on a texture smaller than the target.  Pixel (x, y) fetches
 * (x - 4, y) at LOD (y >> 3 == 2 && x & 1). */
void test_tex_fast_fetch(void)
{
   static uint8_t ref[64 * 64 * 4];
   unsigned bad = 0;
   W = 64; H = 64;
   for (unsigned fl = 0; fl < 4; fl++) {
      const bool bgra = fl & 1, lin_layout = fl >> 1;
      struct texdesc td = {bgra ? VAGX_FORMAT_BGRA8_UNORM : VAGX_FORMAT_RGBA8_UNORM,
                           VAGX_DIMENSION_2D, 48, 40, 1, lin_layout ? 1 : 2, 0, 0, lin_layout};
      td.maxl = td.levels - 1;
      struct prog fs = {.tex = make_texture(&td, fill_hash), .ntex = 1, .nsmp = 1,
                        .smp = make_sampler(VAGX_FILTER_NEAREST, VAGX_FILTER_NEAREST,
                                            VAGX_MIP_FILTER_NONE, VAGX_WRAP_REPEAT, 0, 16, 0)};
      fs.code = assemble("isub r4, sr.pix_x, #4\nmov r5, sr.pix_y\n"
                         "shr r6, sr.pix_y, #3\nicmp.eq r6, r6, #2\nand r7, sr.pix_x, #1\nand r6, r6, r7\n"
                         "tex.fetch.t0.s0.2d r0, r4, r6, r0\nst_tile.rt0 r0, #0\nend\n");
      char what[48];
      snprintf(what, sizeof(what), "fast fetch %s %s", bgra ? "BGRA8" : "RGBA8",
               lin_layout ? "linear" : "twiddled");
      for (unsigned mode = 0; mode < 4; mode++)
         bad += tex_mode_rows_differ(&fs, mode, !mode, ref, what);
      /* the lane path's blocks read the texture: a texel inside, one
       * outside (zero) */
      CHECK(ref[(10 * W + 20) * 4 + 3] != 0 || ref[(10 * W + 20) * 4] != 0,
            "%s: pixel (20, 10) fetched nothing", what);
      CHECK(!memcmp(&ref[(10 * W + 60) * 4], "\0\0\0\0", 4), "%s: pixel (60, 10) outside not zero",
            what);
   }
   vagx_render_set_options(dev, 0);
   CHECK(bad == 0, "texelFetch by the lane path differs from the generic path in %u rows", bad);
   printf("  tex_fast_fetch: 2 formats x 2 layouts x 4 paths\n");
}

static void fill_filter8(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)lv; (void)layer;
   for (unsigned c = 0; c < 4; c++)
      o[c] = (uint8_t)(37 * c + 101 * x + 59 * y + 13 + 90 * (x ^ y) * (c & 1));
}

/* render.md's 8-bit filter of the 2x2 texture at pixel (x, y): weights
 * 16 x + 3 and 16 y + 7 (see test_tex_filter8_bits) */
static float want_filter8(unsigned x, unsigned y, unsigned k)
{
   uint8_t t[4][4];
   for (unsigned i = 0; i < 4; i++)
      fill_filter8(0, 0, i & 1, i >> 1, t[i]);
   const uint32_t wx = 16 * x + 3, wy = 16 * y + 7;
   const uint32_t top = t[0][k] * (256 - wx) + t[1][k] * wx;
   const uint32_t bot = t[2][k] * (256 - wx) + t[3][k] * wx;
   return (float)(top * (256 - wy) + bot * wy) / 16711680.0f;
}

/* The bilinear filter's precision for RGBA8 (render.md, "Filtering
 * precision"): 8-bit sub-texel weights, round(f * 256), and the texels'
 * bytes blended exactly, divided once by 255 * 65536.  Pixel (px, py)
 * samples a 2x2 texture at fractions f = px / 16 + 13 / 1024 and
 * g = py / 16 + 27 / 1024 (exact in float and double: weights 16 px + 3 and
 * 16 py + 7, where unquantised fractions blend differently): u = (1/2 + f)
 * / 2 = 1/4 + px/32 + 13/2048, t likewise. */
void test_tex_filter8_bits(void)
{
   struct texdesc td = {VAGX_FORMAT_RGBA8_UNORM, VAGX_DIMENSION_2D, 2, 2, 1, 1, 0, 0, false};
   const unsigned bad = tex_bits_runs(
      "filter8",
      "u2f r4, sr.pix_x\nfmul r4, r4, #0.03125\nfadd r4, r4, #0.25634765625\n"
      "u2f r5, sr.pix_y\nfmul r5, r5, #0.03125\nfadd r5, r5, #0.26318359375\n",
      &td, fill_filter8, VAGX_FILTER_LINEAR, want_filter8);
   CHECK(bad == 0, "bilinear RGBA8 results differ from the 8-bit filter in %u pixel runs", bad);
   printf("  tex_filter8_bits: 4 components x 256 footprints x 3 paths\n");
}

/* Mip selection (GL 4.6 8.14.1-8.14.3): lambda = log2(rho) (+ shader bias)
 * + sampler bias, clamped to [min_lod, max_lod]; lambda <= 0 magnifies
 * (level base); NEAREST picks base + ceil(lambda + 1/2) - 1 (base for lambda
 * <= 1/2), LINEAR blends floor(lambda) and the next level by frac(lambda),
 * both limited to q = min(max_level, levels - 1). */
void test_mipmaps(void)
{
   W = 32; H = 32;
   const unsigned T = 64, NL = 7;
   struct cse {
      double lambda;           /* log2 of texels per pixel in x (y: lambda_y) */
      double lambda_y;
      enum vagx_mip_filter mf;
      unsigned mode;           /* 0 auto, 1 bias (shader bias sb), 2 explicit lod sb */
      float sb, min_lod, max_lod, bias;
      unsigned base, maxl;
   } C[] = {
      {-1, -1, VAGX_MIP_FILTER_NEAREST, 0, 0, 0, 16, 0, 0, 6},
      {0, 0, VAGX_MIP_FILTER_NEAREST, 0, 0, 0, 16, 0, 0, 6},
      {0.3, 0.3, VAGX_MIP_FILTER_NEAREST, 0, 0, 0, 16, 0, 0, 6},
      {0.7, -2, VAGX_MIP_FILTER_NEAREST, 0, 0, 0, 16, 0, 0, 6},
      {1.2, 1.2, VAGX_MIP_FILTER_NEAREST, 0, 0, 0, 16, 0, 0, 6},
      {1, 2.6, VAGX_MIP_FILTER_NEAREST, 0, 0, 0, 16, 0, 0, 6},
      {3, 3, VAGX_MIP_FILTER_NONE, 0, 0, 0, 16, 0, 0, 6},
      {0.25, 0.25, VAGX_MIP_FILTER_LINEAR, 0, 0, 0, 16, 0, 0, 6},
      {1.5, 1.5, VAGX_MIP_FILTER_LINEAR, 0, 0, 0, 16, 0, 0, 6},
      {2.75, 1, VAGX_MIP_FILTER_LINEAR, 0, 0, 0, 16, 0, 0, 6},
      {9, 9, VAGX_MIP_FILTER_LINEAR, 0, 0, 0, 16, 0, 0, 6},
      {1, 1, VAGX_MIP_FILTER_LINEAR, 1, 0.6f, 0, 16, 0, 0, 6},       /* shader bias */
      {1, 1, VAGX_MIP_FILTER_LINEAR, 0, 0, 0, 16, 1.3f, 0, 6},       /* sampler bias */
      {1, 1, VAGX_MIP_FILTER_LINEAR, 2, 3.4f, 0, 16, 0, 0, 6},       /* explicit lod */
      {1, 1, VAGX_MIP_FILTER_LINEAR, 2, -0.5f, 0, 16, 0, 0, 6},
      {4, 4, VAGX_MIP_FILTER_LINEAR, 0, 0, 0.5f, 2.25f, 0, 0, 6},    /* max_lod */
      {0.2, 0.2, VAGX_MIP_FILTER_LINEAR, 0, 0, 1.75f, 16, 0, 0, 6},  /* min_lod */
      {1.6, 1.6, VAGX_MIP_FILTER_LINEAR, 0, 0, 0, 16, 0, 2, 4},      /* base/max level */
      {5, 5, VAGX_MIP_FILTER_NEAREST, 0, 0, 0, 16, 0, 2, 4},
      {10, 10, VAGX_MIP_FILTER_NEAREST, 0, 0, 0, 16, 0, 0, 14},      /* max_level beyond levels */
      {10, 10, VAGX_MIP_FILTER_LINEAR, 0, 0, 0, 16, 0, 0, 14},
   };
   unsigned fails = 0;
   for (unsigned ci = 0; ci < sizeof(C) / sizeof(C[0]); ci++) {
      const struct cse *c = &C[ci];
      struct texdesc td = {VAGX_FORMAT_RGBA8_UNORM, VAGX_DIMENSION_2D, T, T, 1, NL, c->base, c->maxl, false};
      struct prog fs = {.tex = make_texture(&td, fill_mip), .ntex = 1, .nuni = 3, .nsmp = 1,
                        .smp = make_sampler(VAGX_FILTER_NEAREST, VAGX_FILTER_NEAREST, c->mf,
                                            VAGX_WRAP_REPEAT, c->min_lod, c->max_lod, c->bias)};
      const char *op = c->mode == 0 ? "auto" : c->mode == 1 ? "bias" : "lod";
      fs.code = assemblef("u2f r4, sr.pix_x\nfadd r4, r4, #0.5\nfmul r4, r4, u0\n"
                          "u2f r5, sr.pix_y\nfadd r5, r5, #0.5\nfmul r5, r5, u1\n"
                          "tex.%s.t0.s0.2d r0, r4, u2, r0\nst_tile.rt0 r0, #0\nend\n", op);
      float u[3] = {(float)(exp2(c->lambda) / T), (float)(exp2(c->lambda_y) / T), c->sb};
      memcpy(fs.uni, u, 12);
      struct job_opts o = {.clear = {0, 0, 0, 0}};
      enum vagx_job_status st = draw_fullscreen(&fs, &o);
      if (c->maxl >= NL) {
         /* max_level beyond the allocated levels: the descriptor is invalid */
         CHECK(st == VAGX_JOB_STATUS_INVALID_DESCRIPTOR, "mip case %u: max_level %u of %u levels -> %d",
               ci, c->maxl, NL, st);
         continue;
      }
      CHECK(st == VAGX_JOB_STATUS_OK, "mip case %u status", ci);
      /* reference: rho is in texels of level base (GL 8.14.1: w_t, h_t are
       * the level_base sizes) */
      double lam = c->mode == 2 ? c->sb : (c->lambda > c->lambda_y ? c->lambda : c->lambda_y) - c->base +
                                             (c->mode == 1 ? c->sb : 0);
      lam += c->bias;
      lam = lam > c->max_lod ? c->max_lod : lam;
      lam = lam < c->min_lod ? c->min_lod : lam;
      const unsigned q = c->maxl < NL - 1 ? c->maxl : NL - 1;
      unsigned d1 = c->base, d2 = c->base;
      double fr = 0;
      if (lam > 0 && c->mf == VAGX_MIP_FILTER_NEAREST) {
         d1 = lam <= 0.5 ? c->base : c->base + (unsigned)ceil(lam + 0.5) - 1;
         d1 = d2 = d1 > q ? q : d1;
      } else if (lam > 0 && c->mf == VAGX_MIP_FILTER_LINEAR) {
         if (c->base + lam >= q) {
            d1 = d2 = q;
         } else {
            d1 = c->base + (unsigned)floor(lam);
            d2 = d1 + 1;
            fr = lam - floor(lam);
         }
      }
      uint8_t a[4], b[4];
      mipc(d1, a);
      mipc(d2, b);
      unsigned bad = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++)
            for (unsigned k = 0; k < 4; k++)
               if (fabs(px(x, y)[k] - (a[k] * (1 - fr) + b[k] * fr)) > 1.01) {
                  if (!bad)
                     fprintf(stderr, "  mip case %u (lambda %.3f): (%u,%u)[%u] = %u, want levels %u/%u frac %.3f\n",
                             ci, lam, x, y, k, px(x, y)[k], d1, d2, fr);
                  bad++;
               }
      fails += bad != 0;
   }
   CHECK(fails == 0, "mipmaps: %u of %zu cases wrong", fails, sizeof(C) / sizeof(C[0]));
}

/* 3D textures: slice z of an 8-deep volume is the grey level 30 * z; nearest
 * picks slice floor(r * 8), linear blends slices at r * 8 - 1/2 (clamped to
 * the edge).  Arrays: the layer is clamp(floor(l + 1/2), 0, layers - 1). */
static void fill_vol(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)lv; (void)x; (void)y;
   o[0] = (uint8_t)(30 * layer + 5);
   o[1] = (uint8_t)(x * 40);
   o[2] = (uint8_t)(y * 40);
   o[3] = 255;
}

void test_tex_3d_array(void)
{
   W = 64; H = 8;
   for (unsigned lin = 0; lin < 2; lin++) {
      struct texdesc td = {VAGX_FORMAT_RGBA8_UNORM, VAGX_DIMENSION_3D, 4, 4, 8, 1, 0, 0, false};
      struct prog fs = {.tex = make_texture(&td, fill_vol), .ntex = 1, .nsmp = 1,
                        .smp = make_sampler(lin ? VAGX_FILTER_LINEAR : VAGX_FILTER_NEAREST,
                                            lin ? VAGX_FILTER_LINEAR : VAGX_FILTER_NEAREST,
                                            VAGX_MIP_FILTER_NONE, VAGX_WRAP_CLAMP_TO_EDGE, 0, 16, 0)};
      /* s = t = 0.375 (texel centre 1), r = (pix_x + 0.5) / 64 */
      fs.code = assemble("u2f r6, sr.pix_x\nfadd r6, r6, #0.5\nfmul r6, r6, #0.015625\n"
                         "mov r4, #0.375\nmov r5, #0.375\nmov r7, #0\n"
                         "tex.lod.t0.s0.3d r0, r4, r7, r0\nst_tile.rt0 r0, #0\nend\n");
      struct job_opts o = {.clear = {0, 0, 0, 0}};
      CHECK(draw_fullscreen(&fs, &o) == VAGX_JOB_STATUS_OK, "3d status");
      unsigned bad = 0;
      for (unsigned x = 0; x < W; x++) {
         double r = (x + 0.5) / 64 * 8, e;
         if (!lin) {
            e = 30 * floor(r) + 5;
         } else {
            double zz = r - 0.5, z0 = floor(zz), fz = zz - z0;
            double s0 = z0 < 0 ? 0 : z0, s1 = z0 + 1 > 7 ? 7 : z0 + 1;
            e = (30 * s0 + 5) * (1 - fz) + (30 * s1 + 5) * fz;
         }
         if (fabs(px(x, 3)[0] - e) > 1.01 || px(x, 3)[1] != 40 || px(x, 3)[2] != 40) {
            if (bad < 3)
               fprintf(stderr, "  3d %s x=%u: %u,%u,%u want %.1f,40,40\n", lin ? "linear" : "nearest", x,
                       px(x, 3)[0], px(x, 3)[1], px(x, 3)[2], e);
            bad++;
         }
      }
      CHECK(bad == 0, "3D %s filtering: %u pixels wrong", lin ? "linear" : "nearest", bad);
   }
   /* 2D array, 5 layers, layer coordinate from the pixel */
   {
      static const float lay[8] = {-1.3f, 0.4f, 0.5f, 1.5f, 2.5f, 3.49f, 4.5f, 9};
      struct texdesc td = {VAGX_FORMAT_RGBA8_UNORM, VAGX_DIMENSION_2D_ARRAY, 4, 4, 5, 1, 0, 0, false};
      struct prog fs = {.tex = make_texture(&td, fill_vol), .ntex = 1, .nsmp = 1, .nuni = 8,
                        .smp = make_sampler(VAGX_FILTER_NEAREST, VAGX_FILTER_NEAREST,
                                            VAGX_MIP_FILTER_NONE, VAGX_WRAP_CLAMP_TO_EDGE, 0, 16, 0)};
      memcpy(fs.uni, lay, sizeof(lay));
      /* layer = u[pix_x / 8] via a small select chain */
      char src[1024];
      int n = snprintf(src, sizeof(src), "shr r8, sr.pix_x, #3\nmov r6, u0\n");
      for (unsigned i = 1; i < 8; i++)
         n += snprintf(src + n, sizeof(src) - n, "icmp.eq r9, r8, #%u\nsel r6, r9, u%u, r6\n", i, i);
      snprintf(src + n, sizeof(src) - n, "mov r4, #0.375\nmov r5, #0.625\nmov r7, #0\n"
               "tex.lod.t0.s0.2d.array r0, r4, r7, r0\nst_tile.rt0 r0, #0\nend\n");
      fs.code = assemble(src);
      struct job_opts o = {.clear = {0, 0, 0, 0}};
      CHECK(draw_fullscreen(&fs, &o) == VAGX_JOB_STATUS_OK, "array status");
      unsigned bad = 0;
      for (unsigned x = 0; x < W; x++) {
         double l = floor(lay[x / 8] + 0.5);
         l = l < 0 ? 0 : l > 4 ? 4 : l;
         if (px(x, 2)[0] != 30 * l + 5 || px(x, 2)[1] != 40 || px(x, 2)[2] != 80) {
            if (bad < 3)
               fprintf(stderr, "  array x=%u (l=%g): %u,%u,%u want %g\n", x, lay[x / 8], px(x, 2)[0],
                       px(x, 2)[1], px(x, 2)[2], 30 * l + 5);
            bad++;
         }
      }
      CHECK(bad == 0, "array layer selection: %u pixels wrong", bad);
   }
}

/* Cube maps: face and (s, t) from GL 4.6 table 8.19, written out here:
 * major axis +x: sc=-z tc=-y; -x: sc=+z tc=-y; +y: sc=+x tc=+z; -y: sc=+x
 * tc=-z; +z: sc=+x tc=-y; -z: sc=-x tc=-y; s = (sc/|ma| + 1)/2. */
static void fill_cube(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)lv;
   o[0] = (uint8_t)(layer * 20 + 10);
   o[1] = (uint8_t)(x * 30);
   o[2] = (uint8_t)(y * 30);
   o[3] = 255;
}

void test_tex_cube(void)
{
   W = 32; H = 32;
   const unsigned N = 8, cubes = 2;
   struct texdesc td = {VAGX_FORMAT_RGBA8_UNORM, VAGX_DIMENSION_CUBE_ARRAY, N, N, 6 * cubes, 1, 0, 0, false};
   uint64_t tex = make_texture(&td, fill_cube);
   /* per-pixel direction + cube index in a buffer */
   float *dirs = malloc(W * H * 16);
   unsigned seed = 99;
   for (unsigned i = 0; i < W * H; i++) {
      for (unsigned k = 0; k < 3; k++) {
         seed = seed * 1103515245u + 12345u;
         dirs[i * 4 + k] = (float)(((seed >> 8) & 0xffff) / 32768.0 - 1.0);
      }
      dirs[i * 4 + 3] = (float)(i & 1);
      if (i % 7 == 0)
         dirs[i * 4 + 2] = dirs[i * 4 + 2] < 0 ? -1.5f : 1.5f; /* exercise z faces */
   }
   uint64_t dva = put(dirs, W * H * 16, 16);
   struct prog fs = {.tex = tex, .ntex = 1, .nsmp = 1, .nuni = 2,
                     .smp = make_sampler(VAGX_FILTER_NEAREST, VAGX_FILTER_NEAREST, VAGX_MIP_FILTER_NONE,
                                         VAGX_WRAP_CLAMP_TO_EDGE, 0, 16, 0)};
   fs.uni[0] = (uint32_t)dva;
   fs.uni[1] = (uint32_t)(dva >> 32);
   fs.code = assemblef("imul r8, sr.pix_y, #%u\niadd r8, r8, sr.pix_x\nshl r8, r8, #4\n"
                       "ld_global.b128 r4, u0, r8\nmov r9, #0\n"
                       "tex.lod.t0.s0.cube.array r0, r4, r9, r0\nst_tile.rt0 r0, #0\nend\n", W);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   CHECK(draw_fullscreen(&fs, &o) == VAGX_JOB_STATUS_OK, "cube status");
   unsigned bad = 0, judged = 0, faces = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         const float *d = &dirs[(y * W + x) * 4];
         double rx = d[0], ry = d[1], rz = d[2], ax = fabs(rx), ay = fabs(ry), az = fabs(rz);
         unsigned face;
         double sc, tc, ma;
         if (ax > ay && ax > az) {
            face = rx > 0 ? 0 : 1; ma = ax; sc = rx > 0 ? -rz : rz; tc = -ry;
         } else if (ay > ax && ay > az) {
            face = ry > 0 ? 2 : 3; ma = ay; sc = rx; tc = ry > 0 ? rz : -rz;
         } else if (az > ax && az > ay) {
            face = rz > 0 ? 4 : 5; ma = az; sc = rz > 0 ? rx : -rx; tc = -ry;
         } else {
            continue; /* tie: the spec leaves the face open */
         }
         double s = (sc / ma + 1) / 2 * N, t = (tc / ma + 1) / 2 * N;
         if (fabs(s - nearbyint(s)) < 1e-4 || fabs(t - nearbyint(t)) < 1e-4)
            continue;
         int tx = (int)floor(s), ty = (int)floor(t);
         tx = tx < 0 ? 0 : tx >= (int)N ? (int)N - 1 : tx;
         ty = ty < 0 ? 0 : ty >= (int)N ? (int)N - 1 : ty;
         unsigned layer = 6 * (unsigned)d[3] + face;
         judged++;
         faces |= 1u << face;
         const uint8_t *p = px(x, y);
         if (p[0] != layer * 20 + 10 || p[1] != tx * 30 || p[2] != ty * 30) {
            if (bad < 4)
               fprintf(stderr, "  cube (%.3f,%.3f,%.3f) layer %u: got %u,%u,%u want %u,%d,%d\n", rx, ry, rz,
                       layer, p[0], p[1], p[2], layer * 20 + 10, tx * 30, ty * 30);
            bad++;
         }
      }
   CHECK(bad == 0 && judged > 900 && faces == 0x3f, "cube: %u of %u lookups wrong (faces %#x)", bad,
         judged, faces);
   free(dirs);
}

/* Cube map LOD (render.md "Cube map LOD"): the level of detail comes from
 * the derivatives of the face coordinates, (sc/ma + 1)/2, not of the
 * direction, whose components span twice that range.  The shader's
 * direction is linear in the pixel position so that one face (64 texels)
 * spans the 32-pixel framebuffer: 2 texels per pixel, lambda = 1, whatever
 * the direction's length.  Level i's texels are (30 i, 20 face). */
static void fill_cube_lod(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)x; (void)y;
   o[0] = (uint8_t)(lv * 30);
   o[1] = (uint8_t)(layer * 20);
   o[2] = 0;
   o[3] = 255;
}

void test_cube_lod(void)
{
   W = 32; H = 32;
   struct texdesc td = {VAGX_FORMAT_RGBA8_UNORM, VAGX_DIMENSION_CUBE, 64, 64, 6, 7, 0, 6, false};
   uint64_t tex = make_texture(&td, fill_cube_lod);
   /* dir_k = a_k U + b_k V + c_k with U, V the pixel centre; k = 2/32 */
   const float k = 2.0f / 32;
   struct { unsigned face; float s; float m[9]; } C[] = {
      /* +X: (1, 1 - kV, 1 - kU) * s */
      {0, 1, {0, 0, 1, 0, -k, 1, -k, 0, 1}},
      {0, 3, {0, 0, 3, 0, -3 * k, 3, -3 * k, 0, 3}},
      /* -Y: (kU - 1, -1, kV - 1) * s */
      {3, 1, {k, 0, -1, 0, 0, -1, 0, k, -1}},
      {3, 0.5f, {k / 2, 0, -0.5f, 0, 0, -0.5f, 0, k / 2, -0.5f}},
   };
   char src[1024];
   int n = snprintf(src, sizeof(src), "u2f r10, sr.pix_x\nfadd r10, r10, #0.5\n"
                                      "u2f r11, sr.pix_y\nfadd r11, r11, #0.5\n");
   for (unsigned c = 0; c < 3; c++)
      n += snprintf(src + n, sizeof(src) - n,
                    "fmul r%u, r10, u%u\nfmul r12, r11, u%u\nfadd r%u, r%u, r12\nfadd r%u, r%u, u%u\n",
                    4 + c, 3 * c, 3 * c + 1, 4 + c, 4 + c, 4 + c, 4 + c, 3 * c + 2);
   snprintf(src + n, sizeof(src) - n, "mov r9, #0\ntex.auto.t0.s0.cube r0, r4, r9, r0\n"
                                      "st_tile.rt0 r0, #0\nend\n");
   for (unsigned ci = 0; ci < sizeof(C) / sizeof(C[0]); ci++) {
      struct prog fs = {.tex = tex, .ntex = 1, .nsmp = 1, .nuni = 9,
                        .smp = make_sampler(VAGX_FILTER_NEAREST, VAGX_FILTER_NEAREST,
                                            VAGX_MIP_FILTER_NEAREST, VAGX_WRAP_CLAMP_TO_EDGE, 0, 16, 0)};
      memcpy(fs.uni, C[ci].m, sizeof(C[ci].m));
      fs.code = assemble(src);
      struct job_opts o = {.clear = {0, 0, 0, 0}};
      CHECK(draw_fullscreen(&fs, &o) == VAGX_JOB_STATUS_OK, "cube lod %u: status", ci);
      unsigned bad = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++)
            bad += px(x, y)[0] != 30 || px(x, y)[1] != C[ci].face * 20;
      CHECK(bad == 0, "cube lod %u (face %u, length %g): %u pixels not level 1 (got level %u)", ci,
            C[ci].face, C[ci].s, bad, px(5, 5)[0] / 30);
   }
}

/* Shadow compares of unorm depth formats clamp the reference to [0, 1]
 * (render.md, GL 4.6 8.23.1): a texel of 1.0 compared LEQUAL with reference
 * 1.5 passes for Z24 and Z16 (1.0 <= 1.0) and fails for Z32_FLOAT. */
static void fill_depth_one(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)lv; (void)layer; (void)x; (void)y;
   memset(o, 0xff, 4); /* Z24 1.0 (+ stencil), Z16 1.0 (first two bytes) */
}

static void fill_depth_one_f(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)lv; (void)layer; (void)x; (void)y;
   const float one = 1.0f;
   memcpy(o, &one, 4);
}

void test_shadow_ref_clamp(void)
{
   W = 8; H = 8;
   static const enum vagx_format fmts[] = {VAGX_FORMAT_Z24_UNORM_S8_UINT, VAGX_FORMAT_Z16_UNORM,
                                           VAGX_FORMAT_Z32_FLOAT};
   for (unsigned fi = 0; fi < 3; fi++) {
      const enum vagx_format f = fmts[fi];
      struct texdesc td = {f, VAGX_DIMENSION_2D, 4, 4, 1, 1, 0, 0, false};
      uint64_t tex = make_texture(&td, f == VAGX_FORMAT_Z32_FLOAT ? fill_depth_one_f : fill_depth_one);
      struct vagx_sampler s;
      vagx_sampler_init(&s);
      s.wrap_s = s.wrap_t = s.wrap_r = VAGX_WRAP_CLAMP_TO_EDGE;
      s.max_lod = 16;
      s.compare_enable = 1;
      s.compare_func = VAGX_COMPARE_FUNC_LEQUAL;
      uint64_t smp = alloc(32, 32);
      vagx_sampler_pack(ptr(smp), &s);
      struct prog fs = {.tex = tex, .ntex = 1, .nsmp = 1, .smp = smp, .nuni = 0};
      fs.code = assemble("mov r4, #0.5\nmov r5, #0.5\nmov r9, #0\nmov r8, #1.5\n"
                         "tex.lod.t0.s0.2d r0, r4, r9, r8\nmov r1, r0\nmov r2, r0\nmov r3, #1.0\n"
                         "st_tile.rt0 r0, #0\nend\n");
      struct job_opts o = {.clear = {0.5f, 0.5f, 0.5f, 1}};
      CHECK(draw_fullscreen(&fs, &o) == VAGX_JOB_STATUS_OK, "shadow clamp %s: status",
            vagx_format_name(f));
      const uint8_t want = f == VAGX_FORMAT_Z32_FLOAT ? 0 : 255;
      unsigned bad = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++)
            bad += px(x, y)[0] != want;
      CHECK(bad == 0, "shadow clamp %s: %u pixels wrong (want %u, got %u)", vagx_format_name(f), bad,
            want, px(0, 0)[0]);
   }
}

/* Translations the renderer keeps across instructions (the texture lanes'
 * span in the descriptor cache) must not outlive a memory safepoint: here
 * the texture's memory moves at every safepoint and the old copy is
 * poisoned, like guest memory unmapped and reused once every thread passed
 * a safepoint (one worker, so that "every thread" is that worker while
 * tiles run).  The image must be the one the flat memory gives. */
static uint64_t mv_va, mv_size;
static uint8_t *mv_buf[2];
static unsigned mv_cur, mv_moves;

static void *xlate_moving(void *ctx, uint64_t va, uint32_t size, unsigned access, uint64_t *span)
{
   if (va >= mv_va && va - mv_va < mv_size) {
      if (size > mv_va + mv_size - va)
         return NULL;
      *span = mv_va + mv_size - va;
      return mv_buf[mv_cur] + (va - mv_va);
   }
   uint64_t s = 0;
   uint8_t *p = mem_ops.translate(ctx, va, size, access, &s);
   if (p && va < mv_va && s > mv_va - va)
      s = mv_va - va;   /* no span reaches into the moving texture */
   *span = s;
   return p;
}

static bool safepoint_moving(void *ctx)
{
   (void)ctx;
   const unsigned next = mv_cur ^ 1;
   memcpy(mv_buf[next], mv_buf[mv_cur], mv_size);
   memset(mv_buf[mv_cur], 0xa5, mv_size);
   mv_cur = next;
   mv_moves++;
   return true;   /* every translation of the texture moved */
}

static const struct vagx_usc_mem_ops moving_ops = {.translate = xlate_moving,
                                                   .safepoint = safepoint_moving};

void test_tex_span_safepoint(void)
{
   W = 64; H = 64;
   const unsigned tw = 64, th = 64;
   static uint32_t texels[64 * 64];
   for (unsigned i = 0; i < tw * th; i++)
      texels[i] = (i * 2654435761u >> 8) | 0xff000000u;
   const uint64_t sva = make_sampler(VAGX_FILTER_NEAREST, VAGX_FILTER_NEAREST,
                                     VAGX_MIP_FILTER_NONE, VAGX_WRAP_REPEAT, 0, 16, 0);
   for (unsigned tw_layout = 0; tw_layout < 2; tw_layout++) {
      const uint64_t tex = make_tex(tw, th, tw_layout, texels);
      struct vagx_texture t;
      const char *err;
      vagx_texture_unpack(ptr(tex), &t, &err);
      const uint64_t job = tex_quad_job(tex, sva);
      struct vagx_render_fault f;
      enum vagx_job_status st0 = run(job, &f);
      static uint8_t want[64 * 64 * 4];
      for (unsigned y = 0; y < H; y++)
         memcpy(want + y * W * 4, px(0, y), W * 4);
      memset(ptr(fb_va), 0, fb_stride * H);
      mv_va = t.base_va;
      mv_size = (uint64_t)tw * th * 4;
      mv_buf[0] = malloc(mv_size);
      mv_buf[1] = malloc(mv_size);
      memcpy(mv_buf[0], ptr(mv_va), mv_size);
      memset(ptr(mv_va), 0xa5, mv_size);   /* only the moving copy is the texture */
      mv_cur = 0;
      mv_moves = 0;
      const unsigned saved_workers = nworkers;
      nworkers = 1;
      run_mem = &moving_ops;
      enum vagx_job_status st1 = run(job, &f);
      run_mem = &mem_ops;
      nworkers = saved_workers;
      unsigned bad = 0;
      for (unsigned y = 0; y < H; y++)
         bad += memcmp(want + y * W * 4, px(0, y), W * 4) != 0;
      CHECK(st0 == VAGX_JOB_STATUS_OK && st1 == VAGX_JOB_STATUS_OK && mv_moves >= 4 && bad == 0,
            "tex span safepoint (%s): status %d/%d, %u moves, %u rows differ",
            tw_layout ? "twiddled" : "linear", st0, st1, mv_moves, bad);
      free(mv_buf[0]);
      free(mv_buf[1]);
   }
}
