/* SPDX-License-Identifier: MIT */
/*
 * Part of test_render: formats and fragment outputs: every render-target and
 * texture format against a reference encoder/decoder, integer and stencil
 * sampling, the special-register rows and fragment outputs (st_zs, blend
 * constants, discard before the stencil test).  The harness is
 * render_test_harness.h, main() in test_render.c.
 */
#include "render_test_harness.h"

static float r_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t r_u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* ------------------------------------------------------------- formats -- */
/* Reference codecs written from the format table (descriptors.md): bit
 * positions of the packed formats, UNORM/SNORM/SRGB/UINT/SINT/FLOAT rules as
 * in GL 4.6 2.3.5 and 8.24; f16 through the compiler's _Float16 (IEEE
 * binary16, round to nearest even). */
static bool fmt_packed(enum vagx_format f, unsigned *w, unsigned *o)
{
   static const struct { enum vagx_format f; unsigned w[4], o[4]; } T[] = {
      {VAGX_FORMAT_RGB565_UNORM, {5, 6, 5, 0}, {11, 5, 0, 0}},
      {VAGX_FORMAT_RGBA4_UNORM, {4, 4, 4, 4}, {12, 8, 4, 0}},
      {VAGX_FORMAT_RGB5A1_UNORM, {5, 5, 5, 1}, {11, 6, 1, 0}},
      {VAGX_FORMAT_RGB10A2_UNORM, {10, 10, 10, 2}, {0, 10, 20, 30}},
      {VAGX_FORMAT_RGB10A2_UINT, {10, 10, 10, 2}, {0, 10, 20, 30}},
   };
   for (unsigned i = 0; i < sizeof(T) / sizeof(T[0]); i++)
      if (T[i].f == f) {
         memcpy(w, T[i].w, sizeof(T[i].w));
         memcpy(o, T[i].o, sizeof(T[i].o));
         return true;
      }
   return false;
}

/* Where component c of an array format stands among its components: B
 * and R trade places in the BGRA8 formats. */
static unsigned comp_pos(enum vagx_format f, unsigned c)
{
   const bool bgra = f == VAGX_FORMAT_BGRA8_UNORM || f == VAGX_FORMAT_BGRA8_SRGB;
   return bgra && c < 3 ? 2 - c : c;
}

static double ref_srgb_enc(double c)
{
   c = c < 0 ? 0 : c > 1 ? 1 : c;
   return c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055;
}

static uint32_t ref_uf_enc(double v, unsigned mb)  /* unsigned 5-bit-exponent float */
{
   if (!(v > 0))
      return 0;
   int e;
   frexp(v, &e);                /* v = m * 2^e, m in [0.5, 1) */
   e -= 1;                      /* v = 1.f * 2^e */
   if (e < -14)                 /* denormal */
      return (uint32_t)nearbyint(v / ldexp(1, -14 - (int)mb));
   uint32_t m = (uint32_t)nearbyint((v / ldexp(1, e) - 1) * (1 << mb));
   if (m >> mb) {
      m = 0;
      e++;
   }
   return (uint32_t)(e + 15) << mb | m;
}

static double ref_uf_dec(uint32_t v, unsigned mb)
{
   uint32_t e = v >> mb, m = v & ((1u << mb) - 1);
   return e ? ldexp(1 + m / (double)(1u << mb), (int)e - 15) : ldexp(m, -14 - (int)mb);
}

/* Expected bytes of the render-target/PBE encoding of in[] (float bits or
 * integers) in format f. */
static void ref_encode(enum vagx_format f, const uint32_t in[4], uint8_t *out)
{
   const enum vagx_format_kind k = vagx_format_kind(f);
   const unsigned bpb = vagx_format_bytes_per_block(f), nc = vagx_format_comps(f);
   unsigned w[4], o[4];
   memset(out, 0, bpb);
   if (fmt_packed(f, w, o)) {
      uint32_t v = 0;
      for (unsigned c = 0; c < 4; c++) {
         if (!w[c])
            continue;
         uint32_t m = (1u << w[c]) - 1;
         v |= (k == VAGX_FORMAT_KIND_UINT ? (in[c] > m ? m : in[c]) : enc_unorm(r_f(in[c]), w[c])) << o[c];
      }
      memcpy(out, &v, bpb);
      return;
   }
   if (f == VAGX_FORMAT_R11G11B10_FLOAT) {
      uint32_t v = ref_uf_enc(r_f(in[0]), 6) | ref_uf_enc(r_f(in[1]), 6) << 11 | ref_uf_enc(r_f(in[2]), 5) << 22;
      memcpy(out, &v, 4);
      return;
   }
   const unsigned cb = bpb / nc, bits = 8 * cb;
   for (unsigned c = 0; c < nc; c++) {
      const unsigned pos = comp_pos(f, c);
      uint64_t x = 0;
      double v = r_f(in[c]);
      switch (k) {
      case VAGX_FORMAT_KIND_UNORM: x = enc_unorm(v, bits); break;
      case VAGX_FORMAT_KIND_SRGB: x = enc_unorm(c < 3 ? ref_srgb_enc(v) : v, 8); break;
      case VAGX_FORMAT_KIND_SNORM: {
         double m = (double)((1u << (bits - 1)) - 1);
         v = v < -1 ? -1 : v > 1 ? 1 : v;
         x = (uint64_t)(int64_t)nearbyint(v * m);
         break;
      }
      case VAGX_FORMAT_KIND_UINT: {
         uint64_t m = (1ull << bits) - 1;
         x = in[c] > m ? m : in[c];
         break;
      }
      case VAGX_FORMAT_KIND_SINT: {
         int64_t mx = (1ll << (bits - 1)) - 1, mn = -mx - 1, s = (int32_t)in[c];
         x = (uint64_t)(s > mx ? mx : s < mn ? mn : s);
         break;
      }
      case VAGX_FORMAT_KIND_FLOAT:
         if (cb == 4) {
            x = in[c];
         } else {
            _Float16 h = (_Float16)r_f(in[c]);
            uint16_t hb;
            memcpy(&hb, &h, 2);
            x = hb;
         }
         break;
      default: break;
      }
      for (unsigned b = 0; b < cb; b++)
         out[pos * cb + b] = (uint8_t)(x >> (8 * b));
   }
}

/* Expected unpacked texel (4 x 32 bits, float bits or integers) of bytes p. */
static void ref_decode(enum vagx_format f, const uint8_t *p, bool stencil, uint32_t out[4])
{
   const enum vagx_format_kind k = vagx_format_kind(f);
   const unsigned bpb = vagx_format_bytes_per_block(f), nc = vagx_format_comps(f);
   const bool integer = k == VAGX_FORMAT_KIND_UINT || k == VAGX_FORMAT_KIND_SINT || stencil;
   uint32_t v32 = 0;
   memcpy(&v32, p, bpb < 4 ? bpb : 4);
   out[0] = out[1] = out[2] = 0;
   out[3] = integer ? 1 : r_u(1.0f);
   unsigned w[4], o[4];
   if (stencil) {
      out[0] = f == VAGX_FORMAT_S8_UINT ? p[0] : f == VAGX_FORMAT_Z24_UNORM_S8_UINT ? p[3] : p[4];
      return;
   }
   if (fmt_packed(f, w, o)) {
      for (unsigned c = 0; c < 4; c++)
         if (w[c]) {
            uint32_t x = v32 >> o[c] & ((1u << w[c]) - 1);
            out[c] = integer ? x : r_u((float)(x / (double)((1u << w[c]) - 1)));
         }
      return;
   }
   switch (f) {
   case VAGX_FORMAT_R11G11B10_FLOAT:
      out[0] = r_u((float)ref_uf_dec(v32 & 0x7ff, 6));
      out[1] = r_u((float)ref_uf_dec(v32 >> 11 & 0x7ff, 6));
      out[2] = r_u((float)ref_uf_dec(v32 >> 22, 5));
      return;
   case VAGX_FORMAT_RGB9E5_FLOAT:
      for (unsigned c = 0; c < 3; c++)
         out[c] = r_u((float)ldexp(v32 >> (9 * c) & 0x1ff, (int)(v32 >> 27) - 24));
      return;
   case VAGX_FORMAT_Z16_UNORM: out[0] = r_u((float)((v32 & 0xffff) / 65535.0)); return;
   case VAGX_FORMAT_Z24_UNORM_S8_UINT: out[0] = r_u((float)((v32 & 0xffffff) / 16777215.0)); return;
   case VAGX_FORMAT_Z32_FLOAT:
   case VAGX_FORMAT_Z32_FLOAT_S8X24_UINT: out[0] = v32; return;
   default: break;
   }
   const unsigned cb = bpb / nc, bits = 8 * cb;
   for (unsigned c = 0; c < nc; c++) {
      const unsigned pos = comp_pos(f, c);
      uint32_t x = 0;
      for (unsigned b = 0; b < cb; b++)
         x |= (uint32_t)p[pos * cb + b] << (8 * b);
      double m = (double)((1ull << bits) - 1);
      switch (k) {
      case VAGX_FORMAT_KIND_UNORM: out[c] = r_u((float)(x / m)); break;
      case VAGX_FORMAT_KIND_SRGB: {
         double u = x / 255.0;
         out[c] = r_u((float)(c == 3 ? u : u <= 0.04045 ? u / 12.92 : pow((u + 0.055) / 1.055, 2.4)));
         break;
      }
      case VAGX_FORMAT_KIND_SNORM: {
         int32_t s = bits == 32 ? (int32_t)x : (int32_t)(x << (32 - bits)) >> (32 - bits);
         double d = s / (double)((1u << (bits - 1)) - 1);
         out[c] = r_u((float)(d < -1 ? -1 : d));
         break;
      }
      case VAGX_FORMAT_KIND_UINT: out[c] = x; break;
      case VAGX_FORMAT_KIND_SINT: out[c] = bits == 32 ? x : (uint32_t)((int32_t)(x << (32 - bits)) >> (32 - bits)); break;
      case VAGX_FORMAT_KIND_FLOAT:
         if (cb == 4) {
            out[c] = x;
         } else {
            _Float16 h;
            uint16_t hb = (uint16_t)x;
            memcpy(&h, &hb, 2);
            out[c] = r_u((float)h);
         }
         break;
      default: break;
      }
   }
}

static bool near_bits(uint32_t a, uint32_t b, bool fl, unsigned ulps)
{
   if (a == b)
      return true;
   if (!fl)
      return false;
   int64_t d = (int64_t)(int32_t)a - (int64_t)(int32_t)b;
   return (a >> 31) == (b >> 31) && (d < 0 ? -d : d) <= ulps;
}

static void fill_fmt(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o);
static enum vagx_format fill_format;

static void fill_fmt(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)lv; (void)layer;
   const enum vagx_format f = fill_format;
   const unsigned bpb = vagx_format_bytes_per_block(f), nc = vagx_format_comps(f);
   unsigned seed = (x * 7919u + y * 104729u) ^ (unsigned)f * 2654435761u;
   for (unsigned b = 0; b < bpb; b++) {
      seed = seed * 1103515245u + 12345u;
      o[b] = (uint8_t)(seed >> 16);
   }
   if (x == 0)  /* extremes: all zeros, all ones in the next texel */
      memset(o, 0, bpb);
   if (x == 1)
      memset(o, 0xff, bpb);
   /* no Inf/NaN encodings in float formats (their bits are not defined to
    * survive the float path) */
   if (vagx_format_kind(f) == VAGX_FORMAT_KIND_FLOAT && f != VAGX_FORMAT_RGB9E5_FLOAT) {
      if (f == VAGX_FORMAT_R11G11B10_FLOAT) {
         o[1] &= ~0x04; o[2] &= ~0x20; o[3] &= ~0x80;
      } else {
         const unsigned cb = bpb / nc;
         for (unsigned c = 0; c < nc; c++)
            o[c * cb + cb - 1] &= ~0x40;
      }
   }
   if (f == VAGX_FORMAT_Z32_FLOAT || f == VAGX_FORMAT_Z32_FLOAT_S8X24_UINT)
      o[3] &= ~0x40;
}

/* The W x H texture of format f (linear or twiddled) whose texels
 * fill_fmt() writes; with st its stencil aspect is what the sampler reads,
 * with swz (R, G, B, A) its swizzle. */
static uint64_t fmt_texture(enum vagx_format f, bool linear, bool st, const enum vagx_swizzle *swz)
{
   fill_format = f;
   struct texdesc td = {f, VAGX_DIMENSION_2D, W, H, 1, 1, 0, 0, linear};
   uint64_t tva = make_texture(&td, fill_fmt);
   struct vagx_texture t;
   const char *err;
   vagx_texture_unpack(ptr(tva), &t, &err);
   t.sample_stencil = st;
   if (swz) {
      t.swizzle_r = swz[0]; t.swizzle_g = swz[1]; t.swizzle_b = swz[2]; t.swizzle_a = swz[3];
   }
   vagx_texture_pack(ptr(tva), &t);
   return tva;
}

/* Whether every pixel of the RGBA32_UINT framebuffer holds what the texel
 * of fmt_texture(f, st) at the same place decodes to (ref_decode): bit for
 * bit, or within `ulps` for float channels when fl.  The first wrong
 * channel is printed after `what`. */
static bool fb_is_decoded_texels(const char *what, enum vagx_format f, bool st, bool fl,
                                 unsigned ulps)
{
   unsigned bad = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         uint8_t raw[16];
         fill_fmt(0, 0, x, y, raw);
         uint32_t want[4], got[4];
         ref_decode(f, raw, st, want);
         memcpy(got, px(x, y), 16);
         for (unsigned c = 0; c < 4; c++)
            if (!near_bits(got[c], want[c], fl, ulps)) {
               if (!bad)
                  fprintf(stderr, "  %s %s%s (%u,%u)[%u]: got %#x want %#x\n", what,
                          vagx_format_name(f), st ? " stencil" : "", x, y, c, got[c], want[c]);
               bad++;
            }
      }
   return bad == 0;
}

void test_formats(void)
{
   /* A: every renderable format as tile-buffer format and PBE target: the
    * fragment shader's st_tile, the end-of-tile ld_tile + img_st */
   W = 8; H = 4;
   unsigned nfmt = 0, bad_fmt = 0;
   for (unsigned f = 1; f < 64; f++) {
      if (!vagx_format_is_valid((enum vagx_format)f) || !vagx_format_render((enum vagx_format)f))
         continue;
      const enum vagx_format_kind k = vagx_format_kind((enum vagx_format)f);
      uint32_t in[4];
      if (k == VAGX_FORMAT_KIND_UINT) {
         uint32_t v[4] = {5, 300, 70000, 3};
         memcpy(in, v, 16);
      } else if (k == VAGX_FORMAT_KIND_SINT) {
         uint32_t v[4] = {(uint32_t)-5, 300, (uint32_t)-70000, 3};
         memcpy(in, v, 16);
      } else {
         float v[4] = {0.2f, -0.7f, 0.55f, 1.3f};
         memcpy(in, v, 16);
      }
      struct prog fs = {.code = assemble(fs_const), .nuni = 4};
      memcpy(fs.uni, in, 16);
      struct job_opts o = {.rt_format = (enum vagx_format)f};
      if (draw_fullscreen(&fs, &o) != VAGX_JOB_STATUS_OK) {
         bad_fmt++;
         continue;
      }
      nfmt++;
      uint8_t want[16];
      ref_encode((enum vagx_format)f, in, want);
      unsigned bpb = vagx_format_bytes_per_block((enum vagx_format)f), bad = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++)
            for (unsigned b = 0; b < bpb; b++) {
               int d = (int)px(x, y)[b] - (int)want[b];
               /* sRGB: the encode curve through powf may round the other way */
               if (d && !(k == VAGX_FORMAT_KIND_SRGB && abs(d) == 1))
                  bad++;
            }
      if (bad) {
         fprintf(stderr, "  format %s: got", vagx_format_name((enum vagx_format)f));
         for (unsigned b = 0; b < bpb; b++)
            fprintf(stderr, " %02x", px(0, 0)[b]);
         fprintf(stderr, " want");
         for (unsigned b = 0; b < bpb; b++)
            fprintf(stderr, " %02x", want[b]);
         fprintf(stderr, "\n");
         bad_fmt++;
      }
   }
   CHECK(bad_fmt == 0 && nfmt >= 39, "render formats: %u of %u wrong", bad_fmt, nfmt);

   /* B: every format (and the stencil aspect of the depth/stencil ones)
    * sampled with texel fetch, written raw through an RGBA32_UINT target */
   W = 16; H = 4;
   unsigned ntex = 0, bad_tex = 0;
   for (unsigned f = 1; f < 64; f++) {
      if (!vagx_format_is_valid((enum vagx_format)f))
         continue;
      for (unsigned st = 0; st < 2; st++) {
         const bool has_s = vagx_format_stencil((enum vagx_format)f);
         if (st && !has_s)
            continue;
         if (!st && f == VAGX_FORMAT_S8_UINT)
            continue;
         const uint64_t tva = fmt_texture((enum vagx_format)f, false, st, NULL);
         struct prog fs = {.tex = tva, .ntex = 1,
                           .code = assemble("mov r4, sr.pix_x\nmov r5, sr.pix_y\nmov r6, #0\n"
                                            "tex.fetch.t0.s0.2d r0, r4, r6, r0\nst_tile.rt0 r0, #0\nend\n")};
         struct job_opts o = {.rt_format = VAGX_FORMAT_RGBA32_UINT};
         if (draw_fullscreen(&fs, &o) != VAGX_JOB_STATUS_OK) {
            bad_tex++;
            continue;
         }
         ntex++;
         const enum vagx_format_kind k = vagx_format_kind((enum vagx_format)f);
         const bool fl = !st && k != VAGX_FORMAT_KIND_UINT && k != VAGX_FORMAT_KIND_SINT;
         /* sRGB decode goes through powf: 2 ulp */
         const unsigned ulps = k == VAGX_FORMAT_KIND_SRGB ? 2 : 0;
         bad_tex += !fb_is_decoded_texels("texture", (enum vagx_format)f, st, fl, ulps);
      }
   }
   CHECK(bad_tex == 0 && ntex >= 52, "texture formats: %u of %u wrong", bad_tex, ntex);
}

/* ------------------------------- integer and stencil sampling (render.md) -- */
/* tex in the sampling modes on integer formats and the stencil aspect:
 * never filtered (LINEAR min/mag/mip filters act as NEAREST), the texel's
 * integers as the format defines them (ref_decode), the border colour's raw
 * values, swizzles with ONE = integer 1.  The shader samples a quarter
 * texel right of the texel's centre, where a bilinear filter would blend. */
static uint64_t int_smp(enum vagx_wrap wrap, const uint32_t border[4])
{
   struct vagx_sampler s;
   vagx_sampler_init(&s);
   s.min_filter = s.mag_filter = VAGX_FILTER_LINEAR;
   s.mip_filter = VAGX_MIP_FILTER_LINEAR;
   s.wrap_s = s.wrap_t = s.wrap_r = wrap;
   s.max_lod = 16;
   memcpy(s.border_color, border, 16);
   uint64_t va = alloc(32, 32);
   vagx_sampler_pack(ptr(va), &s);
   return va;
}

static void fill_int_mip(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)layer;
   o[0] = (uint8_t)(lv * 100 + x + 16 * y + 1);   /* R8_UINT */
}

/* Every pixel (x, y) of an RGBA32_UINT target gets texture tva sampled
 * with tex.OP (auto; lod: at `lod`) at ((x + 0.75 + dx) / W, (y + 0.5) /
 * H) through int_smp(wrap, border): a quarter texel right of the centre of
 * texel x + dx. */
static enum vagx_job_status int_sampled_fullscreen(uint64_t tva, const char *op, float dx, float lod,
                                                   enum vagx_wrap wrap, const uint32_t border[4])
{
   struct prog fs = {.tex = tva, .ntex = 1, .smp = int_smp(wrap, border), .nsmp = 1, .nuni = 4};
   fs.code = assemblef("u2f r4, sr.pix_x\nfadd r4, r4, u2\nfmul r4, r4, u0\n"
                       "u2f r5, sr.pix_y\nfadd r5, r5, #0.5\nfmul r5, r5, u1\n"
                       "tex.%s.t0.s0.2d r0, r4, u3, r0\nst_tile.rt0 r0, #0\nend\n", op);
   const float u[4] = {1.0f / W, 1.0f / H, 0.75f + dx, lod};
   memcpy(fs.uni, u, 16);
   struct job_opts o = {.rt_format = VAGX_FORMAT_RGBA32_UINT};
   return draw_fullscreen(&fs, &o);
}

void test_tex_int_sampling(void)
{
   W = 16; H = 4;
   static const uint32_t zero[4] = {0, 0, 0, 0};
   unsigned ntex = 0, bad_tex = 0;
   for (unsigned f = 1; f < 64; f++) {
      if (!vagx_format_is_valid((enum vagx_format)f))
         continue;
      for (unsigned st = 0; st < 2; st++) {
         if (st ? !vagx_format_stencil((enum vagx_format)f) : !vagx_format_is_integer((enum vagx_format)f))
            continue;
         const uint64_t tva = fmt_texture((enum vagx_format)f, false, st, NULL);
         if (int_sampled_fullscreen(tva, "auto", 0, 0, VAGX_WRAP_CLAMP_TO_EDGE, zero) !=
             VAGX_JOB_STATUS_OK) {
            bad_tex++;
            continue;
         }
         ntex++;
         bad_tex += !fb_is_decoded_texels("sampled", (enum vagx_format)f, st, false, 0);
      }
   }
   /* 19 integer formats + 3 stencil aspects */
   CHECK(bad_tex == 0 && ntex >= 22, "integer/stencil sampling: %u of %u wrong", bad_tex, ntex);

   /* border (raw values, also where they are no valid float) and swizzle
    * (B, ONE, ZERO, R) on RGBA16_SINT; x 0..7 fall left of the image */
   {
      const uint32_t border[4] = {7, 0x80000001u, 300, 0xfffffffeu};
      const enum vagx_swizzle swz[4] = {VAGX_SWIZZLE_B, VAGX_SWIZZLE_ONE, VAGX_SWIZZLE_ZERO,
                                        VAGX_SWIZZLE_R};
      const uint64_t tva = fmt_texture(VAGX_FORMAT_RGBA16_SINT, true, false, swz);
      CHECK(int_sampled_fullscreen(tva, "auto", -8.0f, 0, VAGX_WRAP_CLAMP_TO_BORDER, border) ==
               VAGX_JOB_STATUS_OK, "int border status");
      unsigned bad = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++) {
            uint32_t v[4], want[4], got[4];
            if (x < 8) {
               memcpy(v, border, 16);
            } else {
               uint8_t raw[16];
               fill_fmt(0, 0, x - 8, y, raw);
               ref_decode(VAGX_FORMAT_RGBA16_SINT, raw, false, v);
            }
            want[0] = v[2]; want[1] = 1; want[2] = 0; want[3] = v[0];
            memcpy(got, px(x, y), 16);
            if (memcmp(got, want, 16)) {
               if (!bad)
                  fprintf(stderr, "  int border/swizzle (%u,%u): got %#x %#x %#x %#x want %#x %#x %#x %#x\n",
                          x, y, got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
               bad++;
            }
         }
      CHECK(bad == 0, "integer border colour and swizzle: %u pixels wrong", bad);
   }

   /* LINEAR mip filter on R8_UINT (16x4, 8x2): lod 0.4 -> level 0, lod
    * 0.6 -> level 1 (the nearest level, GL's NEAREST rule), no blend */
   for (unsigned k = 0; k < 2; k++) {
      struct texdesc td = {VAGX_FORMAT_R8_UINT, VAGX_DIMENSION_2D, W, H, 1, 2, 0, 1, false};
      uint64_t tva = make_texture(&td, fill_int_mip);
      CHECK(int_sampled_fullscreen(tva, "lod", 0, k ? 0.6f : 0.4f, VAGX_WRAP_CLAMP_TO_EDGE, zero) ==
               VAGX_JOB_STATUS_OK, "int mip status");
      unsigned bad = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++) {
            /* level 1 is 8x2: texel floor((x + 0.75) / 2), floor((y + 0.5) / 2) */
            const unsigned tx = k ? (4 * x + 3) / 8 : x, ty = k ? (2 * y + 1) / 4 : y;
            const uint32_t want[4] = {k * 100 + tx + 16 * ty + 1, 0, 0, 1};
            uint32_t got[4];
            memcpy(got, px(x, y), 16);
            if (memcmp(got, want, 16)) {
               if (!bad)
                  fprintf(stderr, "  int mip lod %s (%u,%u): got %u %u %u %u want %u\n", k ? "0.6" : "0.4",
                          x, y, got[0], got[1], got[2], got[3], want[0]);
               bad++;
            }
         }
      CHECK(bad == 0, "integer LINEAR mip filter, lod %s: %u pixels wrong", k ? "0.6" : "0.4", bad);
   }
}

/* ------------------------------------------- fragment outputs (contract 1.x) -- */
/* st_zs.depth (gl_FragDepth), st_zs.stencil (stencil export), the blend
 * constant special registers, and discard ordered before the stencil test
 * (GL 4.6 17.3: a discarded fragment never reaches the stencil test, so its
 * fail op does not run). */
/* Special registers a fragment shader reads that do_prim keeps from one
 * primitive or block to the next while they do not change (render_tile.c):
 * the helper-lane row, the front-face row, the blend-colour rows.  A tiny
 * triangle A leaves helper lanes in the first quad; B then covers that
 * block whole (no helper lane); C has the other winding and B's blend
 * constant; D C's winding and another blend constant.  Each outputs
 * (helper, front face, blend red). */
void test_sr_rows(void)
{
   W = 32; H = 16;
   ncs = 0;
   const double t[12][2] = {{0, 0}, {1.2, 0}, {0, 1.2},       /* A */
                            {0, 0}, {16, 0}, {0, 16},         /* B */
                            {16, 0}, {0, 16}, {16, 16},       /* C: the other winding */
                            {16, 0}, {16, 16}, {32, 0}};      /* D: C's winding */
   uint64_t vb = vbuf_tris(t, 12, 0, NULL, NULL, NULL);
   struct prog fs = {.code = assemble("and r4, sr.helper, #1\nu2f r0, r4\n"
                                      "and r5, sr.front_face, #1\nu2f r1, r5\n"
                                      "mov r2, sr.blend_r\nmov r3, #1.0\nst_tile.rt0 r0, #0\nend\n")};
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   EMIT(cmd_blend_constant, v_.color[0] = 0.25f; v_.color[3] = 1);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 9; v_.instance_count = 1);
   EMIT(cmd_blend_constant, v_.color[0] = 0.75f; v_.color[3] = 1);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3; v_.first = 9;
        v_.instance_count = 1);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   struct vagx_render_fault f;
   CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "sr rows: status %d", f.status);
   const uint8_t fb = px(0, 0)[1], fc = px(15, 15)[1];
   unsigned bad = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         const uint8_t *p = px(x, y);
         const unsigned s = x % 16 + y;   /* pixel centres: x + y + 1 against the edge at 16 */
         if (s == 15 || (x >= 16 && s > 15))
            continue;                     /* on an edge, or outside D */
         const uint8_t front = x < 16 && s < 15 ? fb : fc, blend = x < 16 ? 64 : 191;
         bad += p[0] != 0 || p[1] != front || p[2] != blend;
      }
   CHECK(bad == 0 && fb != fc && (fb == 255 || fc == 255),
         "sr rows: %u pixels wrong (front face %u then %u)", bad, fb, fc);
}

/* What a fragment program writes besides its colour, as its pipeline
 * declares it. */
enum { OUT_DEPTH = 1, OUT_STENCIL = 2, OUT_DISCARD = 4 };

/* Draws rectangle `rect` of test_frag_outputs' vertex buffer (its six
 * vertices from 6 * rect) with the fragment program `src`, which writes
 * `outputs`. */
static void draw_rect_with(unsigned rect, unsigned outputs, const char *src)
{
   struct prog fs = {.code = assemble(src)};
   EMIT(cmd_bind_fragment_pipeline, v_.slots32 = 1; v_.writes_depth = !!(outputs & OUT_DEPTH);
        v_.writes_stencil = !!(outputs & OUT_STENCIL); v_.discards = !!(outputs & OUT_DISCARD);
        to_usc(&fs, &v_.program));
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 6; v_.first = 6 * rect;
        v_.instance_count = 1);
}

/* The stencil test with `front` (the rectangles face front), no depth test. */
static void stencil_test_only(struct vagx_stencil_face front)
{
   EMIT(cmd_depth_stencil, v_.stencil_test = 1; v_.depth_func = VAGX_COMPARE_FUNC_ALWAYS;
        v_.front = front);
}

void test_frag_outputs(void)
{
   W = 64; H = 64;
   ncs = 0;
   double t[5][6][2];
   float z[5][6];
   const int ry[5][2] = {{0, 16}, {0, 16}, {16, 32}, {32, 48}, {48, 64}};
   const float rz[5] = {0.5f, 0.9f, 0.5f, 0.5f, 0.5f};
   for (unsigned i = 0; i < 5; i++) {
      rect_tris(t[i], 0, ry[i][0], 64, ry[i][1], false);
      for (unsigned k = 0; k < 6; k++)
         z[i][k] = rz[i];
   }
   uint64_t vb = vbuf_tris(&t[0][0], 30, 0, NULL, NULL, &z[0][0]);
   struct prog red = const_fs(1, 0, 0, 1);
   emit_state(0, 0, 0, vb, &red, NULL, 0, 0, false);
   EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.sample_mask = 0xf; v_.depth_clip = 1;
        v_.front_face = VAGX_FRONT_FACE_CW);
   EMIT(cmd_blend_constant, v_.color[0] = 0.25f; v_.color[1] = 0.5f; v_.color[2] = 0.75f; v_.color[3] = 1);
   /* A: depth 0.5, then gl_FragDepth = (x + 0.5) / 64 under LESS */
   EMIT(cmd_depth_stencil, v_.depth_test = 1; v_.depth_write = 1; v_.depth_func = VAGX_COMPARE_FUNC_LESS);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 6; v_.instance_count = 1);
   draw_rect_with(1, OUT_DEPTH, "u2f r4, sr.pix_x\nfadd r4, r4, #0.5\nfmul r4, r4, #0.015625\n"
                                "st_zs.depth r4, r0\nmov r0, #0\nmov r1, #1.0\nmov r2, #0\n"
                                "mov r3, #1.0\nst_tile.rt0 r0, #0\nend\n");
   /* B: stencil reference = pix_y, REPLACE */
   stencil_test_only(sface(VAGX_COMPARE_FUNC_ALWAYS, VAGX_STENCIL_OP_KEEP, VAGX_STENCIL_OP_KEEP,
                           VAGX_STENCIL_OP_REPLACE, 3, 0xff, 0xff));
   draw_rect_with(2, OUT_STENCIL, "st_zs.stencil r0, sr.pix_y\nmov r0, #0\nmov r1, #0\n"
                                  "mov r2, #1.0\nmov r3, #1.0\nst_tile.rt0 r0, #0\nend\n");
   /* C: the blend constant */
   EMIT(cmd_depth_stencil, v_.depth_func = VAGX_COMPARE_FUNC_ALWAYS);
   draw_rect_with(3, 0, "mov r0, sr.blend_r\nmov r1, sr.blend_g\nmov r2, sr.blend_b\n"
                        "mov r3, sr.blend_a\nst_tile.rt0 r0, #0\nend\n");
   /* D: odd columns discard; stencil NEVER with fail INCR_WRAP */
   stencil_test_only(sface(VAGX_COMPARE_FUNC_NEVER, VAGX_STENCIL_OP_INCR_WRAP, VAGX_STENCIL_OP_KEEP,
                           VAGX_STENCIL_OP_KEEP, 0, 0xff, 0xff));
   draw_rect_with(4, OUT_DISCARD, "and r4, sr.pix_x, #1\ndiscard.cond r4\nmov r0, #1.0\n"
                                  "mov r1, #1.0\nmov r2, #1.0\nmov r3, #1.0\nst_tile.rt0 r0, #0\nend\n");
   EMIT(cmd_end);
   const enum vagx_format f = VAGX_FORMAT_Z32_FLOAT_S8X24_UINT;
   struct job_opts o = {.clear = {0, 0, 0, 0}, .zs = true, .zs_format = f, .clear_depth = 1.0f,
                        .clear_stencil = 0x10, .depth_store = 1, .stencil_store = 1};
   uint64_t job = make_job(&o);
   struct vagx_render_fault fl;
   enum vagx_job_status st = run(job, &fl);
   CHECK(st == VAGX_JOB_STATUS_OK, "fragment outputs: status %d", st);
   unsigned bad[4] = {0, 0, 0, 0};
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         const uint8_t *p = px(x, y);
         uint32_t gd;
         uint8_t gs;
         zs_get(f, x, y, &gd, &gs);
         if (y < 16) {
            bool front = (x + 0.5) / 64 < 0.5;
            float d = front ? (float)((x + 0.5) / 64) : 0.5f;
            bad[0] += (front ? p[1] != 255 || p[0] != 0 : p[0] != 255 || p[1] != 0) || gd != r_u(d) ||
                      gs != 0x10;
         } else if (y < 32) {
            bad[1] += p[2] != 255 || gs != y;
         } else if (y < 48) {
            bad[2] += p[0] != 64 || p[1] != 128 || p[2] != 191 || p[3] != 255 || gs != 0x10;
         } else {
            bad[3] += p[0] != 0 || gs != ((x & 1) ? 0x10 : 0x11);
         }
      }
   CHECK(!bad[0] && !bad[1] && !bad[2] && !bad[3],
         "fragment outputs: depth %u, stencil export %u, blend constant %u, discard/stencil %u pixels wrong",
         bad[0], bad[1], bad[2], bad[3]);
   if (bad[0] || bad[1] || bad[2] || bad[3])
      save_ppm("frag-outputs");
}

/* st_tile's RGBA8 encoding (r_unorm_enc: round(v * 255) of the exact
 * product, ties to even) at values next to the half-integers where it
 * rounds: pixel (x, y) writes v = fl((k + 0.5) / 255) moved by
 * (y >> 2) - 8 + c ulps in channel c, k = x + 64 (y & 3).  The renderer
 * encodes whole blocks in float and must fall back where the float product
 * is a half-integer; every pixel is checked against the double computation,
 * with the AVX2 and the baseline copy of the tile phase. */
void test_st_tile_rgba8_round(void)
{
   W = 64; H = 64;
   struct prog fs = {.nuni = 1};
   const float inv = 1.0f / 255.0f;
   memcpy(fs.uni, &inv, 4);
   fs.code = assemble("and r8, sr.pix_y, #3\nshl r8, r8, #6\niadd r8, r8, sr.pix_x\n"
                      "u2f r8, r8\nfadd r8, r8, #0.5\nfmul r8, r8, u0\n"
                      "shr r9, sr.pix_y, #2\niadd r8, r8, r9\nisub r8, r8, #8\n"
                      "mov r0, r8\niadd r1, r8, #1\niadd r2, r8, #2\niadd r3, r8, #3\n"
                      "st_tile.rt0 r0, #0\nend\n");
   unsigned bad = 0, float_ties = 0;
   for (unsigned simd = 0; simd < 2; simd++) {
      usc_simd_force(simd ? USC_SIMD_GENERIC : USC_SIMD_AUTO);
      const struct job_opts o = {.clear = {0, 0, 0, 0}};
      struct vagx_render_fault f;
      CHECK(run(fullscreen_job(&fs, &o), &f) == VAGX_JOB_STATUS_OK, "st_tile rounding job");
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++)
            for (unsigned c = 0; c < 4; c++) {
               float v = ((float)(x + 64 * (y & 3)) + 0.5f) * inv;
               uint32_t bits;
               memcpy(&bits, &v, 4);
               bits += (y >> 2) - 8 + c;
               memcpy(&v, &bits, 4);
               const double t = (double)v * 255.0;
               const unsigned want = t <= 0 ? 0 : t >= 255 ? 255 : (unsigned)nearbyint(t);
               const float tf = v * 255.0f;
               float_ties += !simd && tf < 255.0f && tf - floorf(tf) == 0.5f && (double)tf != t;
               if (px(x, y)[c] != want && !bad++)
                  fprintf(stderr, "  st_tile rgba8 pixel %u,%u channel %u: %u, want %u (v %.9g)\n",
                          x, y, c, px(x, y)[c], want, v);
            }
   }
   usc_simd_force(USC_SIMD_AUTO);
   CHECK(float_ties > 0, "no value whose float product is a half-integer the exact one is not");
   CHECK(bad == 0, "st_tile RGBA8 encoding: %u channels differ from round(v * 255)", bad);
   printf("  st_tile_rgba8_round: 2 SIMD levels, %u values whose float product is a wrong tie\n",
          float_ties);
}
