/* Per-instruction semantics against C reference computations, including NaN,
 * infinities, -0, denormals, integer overflow, shifts >= 32, division by zero
 * and f16 conversions.  Each instruction runs on every (a, b, c) input triple. */
#include <math.h>

#include "usc_float.h"
#include "usc_simd.h"
#include "usc_test.h"

#define QNAN 0x7fc00000u

static const uint32_t fedge[] = {
   0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3f000000, 0x3fc00000, 0x40200000,
   0xc0200000, 0x00000001, 0x007fffff, 0x80000001, 0x00800000, 0x7f7fffff, 0xff7fffff,
   0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffc00001, 0x3eaaaaab, 0x40490fdb,
   0x477fe000, 0x477ff000, 0x33800000, 0x33000000, 0x4f000000, 0xcf000000, 0x4f800000,
   0x3f7fffff, 0xb3800000,
};
static const uint32_t iedge[] = {
   0, 1, 2, 3, 31, 32, 33, 63, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000,
   0x80000001, 0xfffffffe, 0xffffffff, 0x12345678, 0xdeadbeef, 0x00ff00ff, 100, 0xffffff9c,
};

static uint32_t canon(float f) { return f != f ? QNAN : t_fu(f); }
#define F(u) t_uf(u)

static float ref_fmin(float x, float y)
{
   if (x != x) return y;
   if (y != y) return x;
   if (x == y) return signbit(x) ? x : y;
   return x < y ? x : y;
}
static float ref_fmax(float x, float y)
{
   if (x != x) return y;
   if (y != y) return x;
   if (x == y) return signbit(x) ? y : x;
   return x > y ? x : y;
}

static uint32_t r_fadd(uint32_t a, uint32_t b, uint32_t c) { (void)c; return canon(F(a) + F(b)); }
static uint32_t r_fmul(uint32_t a, uint32_t b, uint32_t c) { (void)c; return canon(F(a) * F(b)); }
static uint32_t r_ffma(uint32_t a, uint32_t b, uint32_t c) { return canon(fmaf(F(a), F(b), F(c))); }
static uint32_t r_fmin(uint32_t a, uint32_t b, uint32_t c) { (void)c; return canon(ref_fmin(F(a), F(b))); }
static uint32_t r_fmax(uint32_t a, uint32_t b, uint32_t c) { (void)c; return canon(ref_fmax(F(a), F(b))); }
static uint32_t r_fsubabs(uint32_t a, uint32_t b, uint32_t c) { (void)c; return canon(F(a) - fabsf(F(b))); }
static uint32_t r_sat(uint32_t a, uint32_t b, uint32_t c)
{
   (void)c;
   float f = F(a) + F(b);
   return f > 0 ? (f < 1 ? t_fu(f) : 0x3f800000u) : 0;
}
static uint32_t r_floor(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return canon(floorf(F(a))); }
static uint32_t r_ceil(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return canon(ceilf(F(a))); }
static uint32_t r_trunc(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return canon(truncf(F(a))); }
static uint32_t r_rnd(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return canon(nearbyintf(F(a))); }
static uint32_t r_fract(uint32_t a, uint32_t b, uint32_t c)
{
   (void)b; (void)c;
   float f = F(a) - floorf(F(a));
   return canon(f != f ? f : (f > 0x1.fffffep-1f ? 0x1.fffffep-1f : f));
}
static uint32_t r_rcp(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return canon(1.0f / F(a)); }
static uint32_t r_sqrt(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return canon(sqrtf(F(a))); }
static uint32_t fcmp_ref(int cond, float x, float y)
{
   int un = x != x || y != y, r = 0;
   switch (cond) {
   case 0: r = !un && x == y; break;
   case 1: r = !un && x != y; break;
   case 2: r = !un && x < y; break;
   case 3: r = !un && x <= y; break;
   case 4: r = !un && x > y; break;
   case 5: r = !un && x >= y; break;
   case 6: r = !un; break;
   case 7: r = un || x == y; break;
   case 8: r = un || x != y; break;
   case 9: r = un || x < y; break;
   case 10: r = un || x <= y; break;
   case 11: r = un || x > y; break;
   case 12: r = un || x >= y; break;
   case 13: r = un; break;
   }
   return r ? ~0u : 0;
}
#define FCMPR(n, k) static uint32_t r_fcmp_##n(uint32_t a, uint32_t b, uint32_t c) { (void)c; return fcmp_ref(k, F(a), F(b)); }
FCMPR(oeq, 0) FCMPR(one, 1) FCMPR(olt, 2) FCMPR(ole, 3) FCMPR(ogt, 4) FCMPR(oge, 5) FCMPR(ord, 6)
FCMPR(ueq, 7) FCMPR(une, 8) FCMPR(ult, 9) FCMPR(ule, 10) FCMPR(ugt, 11) FCMPR(uge, 12) FCMPR(uno, 13)

static uint32_t r_f2i(uint32_t a, uint32_t b, uint32_t c)
{
   (void)b; (void)c;
   float x = truncf(F(a));
   if (x != x) return 0;
   if (x >= 2147483648.0f) return 0x7fffffff;
   if (x < -2147483648.0f) return 0x80000000u;
   return (uint32_t)(int32_t)x;
}
static uint32_t r_f2u_rne(uint32_t a, uint32_t b, uint32_t c)
{
   (void)b; (void)c;
   double x = nearbyint((double)F(a));
   if (x != x || x <= 0) return 0;
   if (x >= 4294967296.0) return 0xffffffffu;
   return (uint32_t)x;
}
static uint32_t r_i2f(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return t_fu((float)(int32_t)a); }
static uint32_t r_u2f(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return t_fu((float)a); }
static uint32_t r_f2h(uint32_t a, uint32_t b, uint32_t c)
{
   (void)b; (void)c;
   if (F(a) != F(a)) return 0x7e00;
   _Float16 h = (_Float16)F(a);
   uint16_t u;
   memcpy(&u, &h, 2);
   return u;
}
static uint32_t r_h2f(uint32_t a, uint32_t b, uint32_t c)
{
   (void)b; (void)c;
   uint16_t u = (uint16_t)a;
   _Float16 h;
   memcpy(&h, &u, 2);
   return canon((float)h);
}

#define S(x) ((int32_t)(x))
static uint32_t r_iadd(uint32_t a, uint32_t b, uint32_t c) { (void)c; return a + b; }
static uint32_t r_imad(uint32_t a, uint32_t b, uint32_t c) { return a * b + c; }
static uint32_t r_imulhi(uint32_t a, uint32_t b, uint32_t c) { (void)c; return (uint32_t)((uint64_t)((int64_t)S(a) * S(b)) >> 32); }
static uint32_t r_umulhi(uint32_t a, uint32_t b, uint32_t c) { (void)c; return (uint32_t)(((uint64_t)a * b) >> 32); }
static uint32_t r_idiv(uint32_t a, uint32_t b, uint32_t c) { (void)c; return !b ? ~0u : (a == 0x80000000u && b == ~0u) ? a : (uint32_t)(S(a) / S(b)); }
static uint32_t r_udiv(uint32_t a, uint32_t b, uint32_t c) { (void)c; return b ? a / b : ~0u; }
static uint32_t r_irem(uint32_t a, uint32_t b, uint32_t c) { (void)c; return !b ? a : (a == 0x80000000u && b == ~0u) ? 0 : (uint32_t)(S(a) % S(b)); }
static uint32_t r_umod(uint32_t a, uint32_t b, uint32_t c) { (void)c; return b ? a % b : a; }
static uint32_t r_iadd_sat(uint32_t a, uint32_t b, uint32_t c) { (void)c; int64_t s = (int64_t)S(a) + S(b); return (uint32_t)(s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s); }
static uint32_t r_usub_sat(uint32_t a, uint32_t b, uint32_t c) { (void)c; return a < b ? 0 : a - b; }
static uint32_t r_imin(uint32_t a, uint32_t b, uint32_t c) { (void)c; return S(a) < S(b) ? a : b; }
static uint32_t r_umax(uint32_t a, uint32_t b, uint32_t c) { (void)c; return a > b ? a : b; }
static uint32_t r_shl(uint32_t a, uint32_t b, uint32_t c) { (void)c; return a << (b & 31); }
static uint32_t r_shr(uint32_t a, uint32_t b, uint32_t c) { (void)c; return a >> (b & 31); }
static uint32_t r_ashr(uint32_t a, uint32_t b, uint32_t c) { (void)c; return (uint32_t)(S(a) >> (b & 31)); }
static uint32_t r_icmp_slt(uint32_t a, uint32_t b, uint32_t c) { (void)c; return S(a) < S(b) ? ~0u : 0; }
static uint32_t r_icmp_ule(uint32_t a, uint32_t b, uint32_t c) { (void)c; return a <= b ? ~0u : 0; }
static uint32_t r_bfe_s(uint32_t a, uint32_t b, uint32_t c)
{
   uint32_t off = b & 31, n = c > 32 ? 32 : c;
   if (n > 32 - off) n = 32 - off;
   if (!n) return 0;
   int64_t v = (int64_t)(S(a << (32 - off - n)) );
   return (uint32_t)(int32_t)(v >> (32 - n));
}
static uint32_t r_bfi(uint32_t a, uint32_t b, uint32_t c)
{
   uint32_t off = c & 31, n = (c >> 8) & 63;
   if (n > 32 - off) n = 32 - off;
   uint64_t m = ((1ull << n) - 1) << off;
   return (uint32_t)((a & ~m) | (((uint64_t)b << off) & m));
}
static uint32_t r_popcnt(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; int n = 0; for (int i = 0; i < 32; i++) n += a >> i & 1; return (uint32_t)n; }
static uint32_t r_bitrev(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; uint32_t r = 0; for (int i = 0; i < 32; i++) r |= (a >> i & 1) << (31 - i); return r; }
static uint32_t r_ffs(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; for (int i = 0; i < 32; i++) if (a >> i & 1) return (uint32_t)i; return ~0u; }
static uint32_t r_fmsb_s(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; if (S(a) < 0) a = ~a; for (int i = 31; i >= 0; i--) if (a >> i & 1) return (uint32_t)i; return ~0u; }
static uint32_t r_pack(uint32_t a, uint32_t b, uint32_t c) { (void)c; return (a & 0xffff) | (b << 16); }
static uint32_t r_hi_half(uint32_t a, uint32_t b, uint32_t c) { (void)c; return (b & 0xffff) | (((a >> 16) + (b >> 16)) << 16); }
static uint32_t r_sext8(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return (uint32_t)(int32_t)(int8_t)a; }
static uint32_t r_sel(uint32_t a, uint32_t b, uint32_t c) { return a ? b : c; }
static uint32_t r_fsel(uint32_t a, uint32_t b, uint32_t c) { return (F(a) != 0 && F(a) == F(a)) ? b ^ 0x80000000u : c; }
static uint32_t r_iabs(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return S(a) < 0 ? 0u - a : a; }

struct tcase {
   const char *line;
   uint32_t (*ref)(uint32_t, uint32_t, uint32_t);
   int is_float;
};

static const struct tcase cases[] = {
   { "fadd r0, r1, r2", r_fadd, 1 },
   { "fmul r0, r1, r2", r_fmul, 1 },
   { "ffma r0, r1, r2, r3", r_ffma, 1 },
   { "fmin r0, r1, r2", r_fmin, 1 },
   { "fmax r0, r1, r2", r_fmax, 1 },
   { "fadd r0, r1, -|r2|", r_fsubabs, 1 },
   { "fadd.sat r0, r1, r2", r_sat, 1 },
   { "ffloor r0, r1", r_floor, 1 },
   { "fceil r0, r1", r_ceil, 1 },
   { "ftrunc r0, r1", r_trunc, 1 },
   { "frnd r0, r1", r_rnd, 1 },
   { "ffract r0, r1", r_fract, 1 },
   { "frcp r0, r1", r_rcp, 1 },
   { "fsqrt r0, r1", r_sqrt, 1 },
   { "fcmp.oeq r0, r1, r2", r_fcmp_oeq, 1 }, { "fcmp.one r0, r1, r2", r_fcmp_one, 1 },
   { "fcmp.olt r0, r1, r2", r_fcmp_olt, 1 }, { "fcmp.ole r0, r1, r2", r_fcmp_ole, 1 },
   { "fcmp.ogt r0, r1, r2", r_fcmp_ogt, 1 }, { "fcmp.oge r0, r1, r2", r_fcmp_oge, 1 },
   { "fcmp.ord r0, r1, r2", r_fcmp_ord, 1 }, { "fcmp.ueq r0, r1, r2", r_fcmp_ueq, 1 },
   { "fcmp.une r0, r1, r2", r_fcmp_une, 1 }, { "fcmp.ult r0, r1, r2", r_fcmp_ult, 1 },
   { "fcmp.ule r0, r1, r2", r_fcmp_ule, 1 }, { "fcmp.ugt r0, r1, r2", r_fcmp_ugt, 1 },
   { "fcmp.uge r0, r1, r2", r_fcmp_uge, 1 }, { "fcmp.uno r0, r1, r2", r_fcmp_uno, 1 },
   { "fsel r0, r1, -r2, r3", r_fsel, 1 },
   { "f2i.rtz r0, r1", r_f2i, 1 },
   { "f2u.rne r0, r1", r_f2u_rne, 1 },
   { "i2f r0, r1", r_i2f, 0 },
   { "u2f r0, r1", r_u2f, 0 },
   { "f2h r0, r1", r_f2h, 1 },
   { "h2f r0, r1.l", r_h2f, 0 },
   { "iadd r0, r1, r2", r_iadd, 0 },
   { "imad r0, r1, r2, r3", r_imad, 0 },
   { "imulhi r0, r1, r2", r_imulhi, 0 },
   { "umulhi r0, r1, r2", r_umulhi, 0 },
   { "idiv r0, r1, r2", r_idiv, 0 },
   { "udiv r0, r1, r2", r_udiv, 0 },
   { "irem r0, r1, r2", r_irem, 0 },
   { "umod r0, r1, r2", r_umod, 0 },
   { "iadd_sat r0, r1, r2", r_iadd_sat, 0 },
   { "usub_sat r0, r1, r2", r_usub_sat, 0 },
   { "imin r0, r1, r2", r_imin, 0 },
   { "umax r0, r1, r2", r_umax, 0 },
   { "shl r0, r1, r2", r_shl, 0 },
   { "shr r0, r1, r2", r_shr, 0 },
   { "ashr r0, r1, r2", r_ashr, 0 },
   { "icmp.slt r0, r1, r2", r_icmp_slt, 0 },
   { "icmp.ule r0, r1, r2", r_icmp_ule, 0 },
   { "bfe.s r0, r1, r2, r3", r_bfe_s, 0 },
   { "bfi r0, r1, r2, r3", r_bfi, 0 },
   { "popcnt r0, r1", r_popcnt, 0 },
   { "bitrev r0, r1", r_bitrev, 0 },
   { "ffs r0, r1", r_ffs, 0 },
   { "fmsb.s r0, r1", r_fmsb_s, 0 },
   { "pack16 r0, r1, r2", r_pack, 0 },
   { "mov r0, r2\n iadd r0.h, r1.h, r2.h", r_hi_half, 0 },
   { "sext.x8 r0, r1", r_sext8, 0 },
   { "sel r0, r1, r2, r3", r_sel, 0 },
   { "iabs r0, r1", r_iabs, 0 },
};

#define N 1024

static void run_case(const struct tcase *tc, struct t_mem *mem)
{
   uint32_t *A = (uint32_t *)(void *)mem->buf, *B = A + N, *C = B + N, *O = C + N;
   const uint32_t *edge = tc->is_float ? fedge : iedge;
   size_t ne = tc->is_float ? sizeof(fedge) / 4 : sizeof(iedge) / 4;
   for (unsigned i = 0; i < N; i++) {
      if (i < ne * ne) {
         A[i] = edge[i % ne];
         B[i] = edge[i / ne];
      } else {
         A[i] = t_rand();
         B[i] = t_rand() >> (t_rand() & 31);
      }
      C[i] = (i & 1) ? edge[(i * 7) % ne] : t_rand();
      O[i] = 0xdeadbeef;
   }
   char src[1024];
   snprintf(src, sizeof(src),
            "imad r10, sr.tgid_x, #32, sr.tindex\n"
            "shl r10, r10, #2\n"
            "ld_global.b32 r1, u0, r10\n"
            "ld_global.b32 r2, u2, r10\n"
            "ld_global.b32 r3, u4, r10\n"
            "%s\n"
            "st_global.b32 u6, r10, r0\n"
            "end\n", tc->line);
   uint64_t base = T_BASE;
   uint32_t uni[8] = { (uint32_t)base, (uint32_t)(base >> 32),
                       (uint32_t)(base + 4 * N), (uint32_t)((base + 4 * N) >> 32),
                       (uint32_t)(base + 8 * N), (uint32_t)((base + 8 * N) >> 32),
                       (uint32_t)(base + 12 * N), (uint32_t)((base + 12 * N) >> 32) };
   struct vagx_usc_result res;
   uint32_t tg[3] = { 32, 1, 1 }, ng[3] = { N / 32, 1, 1 };
   enum vagx_usc_status st = t_run(src, mem, uni, 8, tg, ng, 0, &res);
   CHECK(st == VAGX_USC_OK, "%s: status %s", tc->line, vagx_usc_status_name(st));
   int bad = 0;
   for (unsigned i = 0; i < N && !bad; i++) {
      uint32_t want = tc->ref(A[i], B[i], C[i]);
      if (O[i] != want) {
         bad = 1;
         CHECK(0, "%s: a=%08x b=%08x c=%08x got %08x want %08x", tc->line, A[i], B[i], C[i], O[i], want);
      }
   }
   t_checks++;
}

/* Transcendentals: within the documented ulp bound of a double reference. */
static double ulp_err(float got, double exact)
{
   if (isinf(exact) || isnan(exact))
      return (double)got == exact || (isnan(exact) && isnan(got)) ? 0 : 1e9;
   float e = (float)exact;
   double ulp = fabs((double)nextafterf(e, INFINITY) - (double)e);
   if (ulp == 0 || isinf(ulp))
      ulp = ldexp(1, -149);
   return fabs((double)got - exact) / ulp;
}

/* O[i] = line(A[i]) for the first n (a multiple of 32) words: line reads
 * r1 and writes r0. */
static void run_unary(struct t_mem *mem, const char *line, unsigned n)
{
   char src[512];
   snprintf(src, sizeof(src),
            "imad r10, sr.tgid_x, #32, sr.tindex\nshl r10, r10, #2\n"
            "ld_global.b32 r1, u0, r10\n%s\nst_global.b32 u6, r10, r0\nend\n", line);
   uint64_t base = T_BASE;
   uint32_t uni[8] = { (uint32_t)base, (uint32_t)(base >> 32), 0, 0, 0, 0,
                       (uint32_t)(base + 12 * N), (uint32_t)((base + 12 * N) >> 32) };
   struct vagx_usc_result res;
   uint32_t tg[3] = { 32, 1, 1 }, ng[3] = { n / 32, 1, 1 };
   CHECK(t_run(src, mem, uni, 8, tg, ng, 0, &res) == VAGX_USC_OK, "%s", line);
}

static void run_transcendental(struct t_mem *mem)
{
   /* fexp2 and flog2 are the device's own (usc_float.h), within 1 ulp
    * everywhere (exhaustively checked when written): over their whole
    * range, into overflow, denormal results and denormal inputs */
   static const struct { const char *line; double (*f)(double); float lo, hi, ulps; } tt[] = {
      { "fexp2 r0, r1", exp2, -155, 130, 1 },
      { "fexp2 r0, r1", exp2, -1, 1, 1 },
      { "flog2 r0, r1", log2, 1e-45f, 3e38f, 1 },
      { "flog2 r0, r1", log2, 0.7f, 1.5f, 1 },
      { "fsin r0, r1", sin, -100, 100, 2 },
      { "fcos r0, r1", cos, -100, 100, 2 },
      { "frsqrt r0, r1", NULL, 1e-30f, 1e30f, 1 },
   };
   uint32_t *A = (uint32_t *)(void *)mem->buf, *O = A + 3 * N;
   for (unsigned k = 0; k < sizeof(tt) / sizeof(tt[0]); k++) {
      for (unsigned i = 0; i < N; i++) {
         float u = (float)(t_rand() & 0xffffff) / 16777216.0f;
         float x = tt[k].lo > 0 ? tt[k].lo * powf(tt[k].hi / tt[k].lo, u)
                                : tt[k].lo + (tt[k].hi - tt[k].lo) * u;
         A[i] = t_fu(x);
      }
      run_unary(mem, tt[k].line, N);
      double worst = 0;
      for (unsigned i = 0; i < N; i++) {
         double x = F(A[i]);
         double exact = tt[k].f ? tt[k].f(x) : 1.0 / sqrt(x);
         double e = ulp_err(F(O[i]), exact);
         if (e > worst)
            worst = e;
      }
      CHECK(worst <= tt[k].ulps, "%s [%g, %g]: %.2f ulp", tt[k].line, tt[k].lo, tt[k].hi, worst);
   }
   /* special values, and exact results at powers of two */
   static const struct { const char *line; float x, want; } sv[] = {
      { "fexp2 r0, r1", 0, 1 }, { "fexp2 r0, r1", -0.0f, 1 }, { "fexp2 r0, r1", 1, 2 },
      { "fexp2 r0, r1", -149, 0x1p-149f }, { "fexp2 r0, r1", -126, 0x1p-126f },
      { "fexp2 r0, r1", 127, 0x1p127f }, { "fexp2 r0, r1", 128, INFINITY },
      { "fexp2 r0, r1", INFINITY, INFINITY }, { "fexp2 r0, r1", -INFINITY, 0 },
      { "fexp2 r0, r1", -151, 0 }, { "fexp2 r0, r1", NAN, NAN },
      { "flog2 r0, r1", 1, 0 }, { "flog2 r0, r1", 2, 1 }, { "flog2 r0, r1", 0x1p-149f, -149 },
      { "flog2 r0, r1", 0x1p127f, 127 }, { "flog2 r0, r1", 0, -INFINITY },
      { "flog2 r0, r1", -0.0f, -INFINITY }, { "flog2 r0, r1", INFINITY, INFINITY },
      { "flog2 r0, r1", -1, NAN }, { "flog2 r0, r1", -INFINITY, NAN }, { "flog2 r0, r1", NAN, NAN },
   };
   for (unsigned k = 0; k < sizeof(sv) / sizeof(sv[0]); k++) {
      for (unsigned i = 0; i < 32; i++)
         A[i] = t_fu(sv[k].x);
      run_unary(mem, sv[k].line, 32);
      const uint32_t want = isnan(sv[k].want) ? USC_QNAN : t_fu(sv[k].want);
      CHECK(O[0] == want && O[31] == want, "%s of %g: %08x, want %08x", sv[k].line,
            (double)sv[k].x, O[0], want);
   }
}

/* The host-specific fast handlers (AVX2 + hardware FMA on x86-64) against the
 * baseline ones (ffma emulated exactly in software), bit for bit, on every
 * triple of float edge cases plus random and near-tie inputs, for ffma and the
 * other float operations that have both copies.  Also checks ffma against libm's
 * correctly rounded fmaf. */
#define NX (32 * 1024)
static void run_simd_levels(void)
{
   static const char *const lines[] = {
      "ffma r0, r1, r2, r3", "ffma r0, -r1, |r2|, r3", "ffma.sat r0, r1, r2, r3",
      "fadd r0, r1, r2", "fmul r0, r1, r2", "fmin r0, r1, r2", "fmax r0, r1, r2",
      "fcmp.ult r0, r1, r2", "fsel r0, r1, r2, r3", "fsqrt r0, r1", "ffract r0, r1",
      "f2i.rne r0, r1", "i2f r0, r1", "imad r0, r1, r2, r3", "umulhi r0, r1, r2",
      "fexp2 r0, r1", "flog2 r0, r1",
   };
   const size_t ne = sizeof(fedge) / 4;
   struct t_mem mem = { calloc(5, NX * 4), 5 * NX * 4 };
   uint32_t *A = (uint32_t *)(void *)mem.buf, *B = A + NX, *C = B + NX, *O = C + NX, *O2 = O + NX;
   for (unsigned i = 0; i < NX; i++) {
      if (i < ne * ne * ne) {
         A[i] = fedge[i % ne];
         B[i] = fedge[(i / ne) % ne];
         C[i] = fedge[i / (ne * ne)];
      } else if (i & 1) {
         /* Products near -c: cancellation, denormal and tie-breaking results. */
         A[i] = t_rand();
         B[i] = (t_rand() & 0x807fffffu) | (((t_rand() % 60) + 97u) << 23);
         float p = t_uf(A[i]) * t_uf(B[i]);
         C[i] = t_fu(-p) ^ (t_rand() & 7);
      } else {
         A[i] = t_rand();
         B[i] = t_rand();
         C[i] = t_rand();
      }
   }
   uint64_t base = T_BASE;
   uint32_t uni[8] = { (uint32_t)base, (uint32_t)(base >> 32),
                       (uint32_t)(base + 4 * NX), (uint32_t)((base + 4 * NX) >> 32),
                       (uint32_t)(base + 8 * NX), (uint32_t)((base + 8 * NX) >> 32),
                       (uint32_t)(base + 12 * NX), (uint32_t)((base + 12 * NX) >> 32) };
   uint32_t tg[3] = { 1024, 1, 1 }, ng[3] = { NX / 1024, 1, 1 };
   printf("usc_alu: SIMD level of this host: %d\n", usc_simd_host_level());
   for (size_t k = 0; k < sizeof(lines) / sizeof(lines[0]); k++) {
      char src[1024];
      struct vagx_usc_result res;
      snprintf(src, sizeof(src),
               "imad r10, sr.tgid_x, #1024, sr.tindex\nshl r10, r10, #2\n"
               "ld_global.b32 r1, u0, r10\nld_global.b32 r2, u2, r10\n"
               "ld_global.b32 r3, u4, r10\n%s\nst_global.b32 u6, r10, r0\nend\n", lines[k]);
      usc_simd_force(USC_SIMD_GENERIC);
      CHECK(usc_simd_level() == USC_SIMD_GENERIC, "forced level");
      CHECK(t_run(src, &mem, uni, 8, tg, ng, 0, &res) == VAGX_USC_OK, "%s generic", lines[k]);
      memcpy(O2, O, NX * 4);
      usc_simd_force(USC_SIMD_AUTO);
      CHECK(t_run(src, &mem, uni, 8, tg, ng, 0, &res) == VAGX_USC_OK, "%s host", lines[k]);
      int bad = 0;
      for (unsigned i = 0; i < NX && bad < 3; i++)
         if (O[i] != O2[i]) {
            bad++;
            CHECK(0, "%s: a=%08x b=%08x c=%08x generic %08x host %08x", lines[k], A[i], B[i],
                  C[i], O2[i], O[i]);
         }
      t_checks++;
      if (k == 0)
         for (unsigned i = 0; i < NX && bad < 3; i++)
            if (O[i] != r_ffma(A[i], B[i], C[i])) {
               bad++;
               CHECK(0, "ffma vs fmaf: a=%08x b=%08x c=%08x got %08x want %08x", A[i], B[i],
                     C[i], O[i], r_ffma(A[i], B[i], C[i]));
            }
   }
   usc_simd_force(USC_SIMD_AUTO);
   free(mem.buf);
}

int main(void)
{
   struct t_mem mem = { calloc(16, N), 16 * N };
   for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
      run_case(&cases[i], &mem);
   run_transcendental(&mem);
   run_simd_levels();

   free(mem.buf);
   return t_report("usc_alu");
}
