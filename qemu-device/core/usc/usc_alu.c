/* ALU instruction handlers: float, conversions, integer, moves/selects and
 * quad derivatives.  Each handler computes all 32 lanes (inactive lanes compute
 * harmless garbage; no operation traps) and writes back under the mask.
 *
 * The handlers (usc_alu_ops.h) are compiled twice: for the baseline target and,
 * on x86-64, for AVX2+FMA (256-bit lanes, hardware fused multiply-add).  The
 * copy is chosen once per host at decode time (usc_simd_level()); both give
 * bit-identical results (IEEE binary32 with RNE and denormals, NaNs canonical;
 * ffma single-rounded: in hardware, or emulated exactly in software). */
#include <math.h>
#include <stdatomic.h>

#include "usc_float.h"
#include "usc_priv.h"
#include "usc_simd.h"

#define HANDLER(name) static void name(struct usc_grp *g, const struct usc_op *o)

/* Source s without modifiers (plain handlers: sources are only read and the
 * result goes to a local array first, so they may alias each other freely). */
#define SRCP(s) (g->base[o->src[s].bfile] + (size_t)o->src[s].idx * L)

/* Plain handler op_NAME_p and gang handler gop_NAME of an element-wise
 * operation: SRCS declares the source pointers, LANE the lane l_'s operands,
 * RES is its uint32_t result, stored straight into the destination register
 * (no temporary array: one store-to-load hop between dependent instructions).
 * Lane l_ reads only lane l_ of its sources and a register row is 128 bytes,
 * so a destination that is also a source overlaps it exactly and there is no
 * dependence between lanes: USC_IVDEP lets the compiler vectorise without the
 * run-time overlap check that would send `r2 = r2 * ...` to a scalar loop.
 * Under a partial mask each lane blends with its lane mask. */
#define PLAIN(name, SRCS, LANE, RES)                                                 \
   static inline __attribute__((always_inline)) void ALU_SFX(pb_##name)(              \
      struct usc_grp *g, const struct usc_op *o)                                     \
   {                                                                                 \
      SRCS;                                                                          \
      uint32_t *d = g->r + (size_t)o->dst * L;                                       \
      if (g->exec == ~0u) {                                                          \
         USC_IVDEP                                                                   \
         for (int l_ = 0; l_ < L; l_++) {                                            \
            LANE;                                                                    \
            d[l_] = (RES);                                                           \
         }                                                                           \
         return;                                                                     \
      }                                                                              \
      USC_IVDEP                                                                      \
      for (int l_ = 0; l_ < L; l_++) {                                               \
         LANE;                                                                       \
         uint32_t m_ = g->lmask[l_];                                                 \
         d[l_] = (d[l_] & ~m_) | ((RES) & m_);                                       \
      }                                                                              \
   }                                                                                 \
   HANDLER(ALU_SFX(op_##name##_p))                                                   \
   {                                                                                 \
      ALU_SFX(pb_##name)(g, o);                                                      \
   }                                                                                 \
   static void ALU_SFX(gop_##name)(struct usc_grp *g, unsigned n, const struct usc_op *o) \
   {                                                                                 \
      /* A private copy: register stores cannot alias it, so the operand        \
       * fields are loaded once for the n groups, not once per group. */       \
      const struct usc_op oc_ = *o;                                                  \
      for (unsigned i_ = 0; i_ < n; i_++)                                            \
         ALU_SFX(pb_##name)(g + i_, &oc_);                                           \
   }

/* Saturate (when .sat) then write back: float results. */
static inline void fwb(struct usc_grp *g, const struct usc_op *o, uint32_t *r)
{
   if (o->I.sat)
      for (int l = 0; l < L; l++)
         r[l] = usc_sat(r[l]);
   usc_wb(g, o, r);
}

/* The general handler op_NAME and the plain one op_NAME_p of an
 * element-wise operation of one, two or three sources: its lanes x, y, z are
 * of type T, read from the uint32_t source lanes through CV, its result is
 * RES(expr), written back by WB (fwb for float results: saturate). */
#define USC_ID(v) (v)
#define OP1(name, T, CV, RES, WB, expr)                                    \
   HANDLER(ALU_SFX(op_##name))                                             \
   {                                                                       \
      uint32_t t0[L], r[L];                                                \
      const uint32_t *a = usc_src(g, o, 0, t0);                            \
      for (int l = 0; l < L; l++) {                                        \
         T x = CV(a[l]);                                                   \
         r[l] = RES(expr);                                                 \
      }                                                                    \
      WB(g, o, r);                                                         \
   }                                                                       \
   PLAIN(name, const uint32_t *a = SRCP(0), T x = CV(a[l_]), RES(expr))
#define OP2(name, T, CV, RES, WB, expr)                                    \
   HANDLER(ALU_SFX(op_##name))                                             \
   {                                                                       \
      uint32_t t0[L], t1[L], r[L];                                         \
      const uint32_t *a = usc_src(g, o, 0, t0), *b = usc_src(g, o, 1, t1); \
      for (int l = 0; l < L; l++) {                                        \
         T x = CV(a[l]), y = CV(b[l]);                                     \
         r[l] = RES(expr);                                                 \
      }                                                                    \
      WB(g, o, r);                                                         \
   }                                                                       \
   PLAIN(name, const uint32_t *a = SRCP(0); const uint32_t *b = SRCP(1),     \
         T x = CV(a[l_]); T y = CV(b[l_]), RES(expr))
#define OP3(name, T, CV, RES, WB, expr)                                    \
   HANDLER(ALU_SFX(op_##name))                                             \
   {                                                                       \
      uint32_t t0[L], t1[L], t2[L], r[L];                                  \
      const uint32_t *a = usc_src(g, o, 0, t0), *b = usc_src(g, o, 1, t1); \
      const uint32_t *c = usc_src(g, o, 2, t2);                            \
      for (int l = 0; l < L; l++) {                                        \
         T x = CV(a[l]), y = CV(b[l]), z = CV(c[l]);                       \
         r[l] = RES(expr);                                                 \
      }                                                                    \
      WB(g, o, r);                                                         \
   }                                                                       \
   PLAIN(name, const uint32_t *a = SRCP(0); const uint32_t *b = SRCP(1);     \
         const uint32_t *c = SRCP(2),                                        \
         T x = CV(a[l_]); T y = CV(b[l_]); T z = CV(c[l_]), RES(expr))

/* Integer ops: x, y, z are the uint32_t lanes of src0..2. */
#define IOP1(name, expr) OP1(name, uint32_t, USC_ID, USC_ID, usc_wb, expr)
#define IOP2(name, expr) OP2(name, uint32_t, USC_ID, USC_ID, usc_wb, expr)
#define IOP3(name, expr) OP3(name, uint32_t, USC_ID, USC_ID, usc_wb, expr)

/* Float ops: x, y, z are the float lanes; expr is a float, canonicalised. */
#define FOP1(name, expr) OP1(name, float, usc_f, usc_canon, fwb, expr)
#define FOP2(name, expr) OP2(name, float, usc_f, usc_canon, fwb, expr)
#define FOP3(name, expr) OP3(name, float, usc_f, usc_canon, fwb, expr)

#define FCMP(name, expr) IOP2(fcmp_##name, (expr) ? ~0u : 0u)
#define ICMP(name, expr) IOP2(icmp_##name, (expr) ? ~0u : 0u)
#define FX usc_f(x)
#define FY usc_f(y)
#define UNORD (FX != FX || FY != FY)

#define DERIV(name, i0, i1)                                                \
   HANDLER(ALU_SFX(op_##name))                                             \
   {                                                                       \
      uint32_t t0[L], r[L];                                                \
      const uint32_t *a = usc_src(g, o, 0, t0);                            \
      for (int l = 0; l < L; l++)                                          \
         r[l] = usc_canon(usc_f(a[i1]) - usc_f(a[i0]));                    \
      fwb(g, o, r);                                                        \
   }

/* ---- helpers (baseline target; inlined into both copies) ---- */
static inline float fract(float x)
{
   float f = x - floorf(x);
   return f > 0x1.fffffep-1f ? 0x1.fffffep-1f : f; /* NaN (from NaN or inf) stays */
}

static inline float round_mode(float x, unsigned mode)
{
   switch (mode) {
   case VAGX_RMODE_RNE: return rintf(x);
   case VAGX_RMODE_RDN: return floorf(x);
   case VAGX_RMODE_RUP: return ceilf(x);
   default: return truncf(x);
   }
}

static inline uint32_t f2i(float x)
{
   if (x != x)
      return 0;
   if (x >= 2147483648.0f)
      return 0x7fffffffu;
   if (x < -2147483648.0f)
      return 0x80000000u;
   return (uint32_t)(int32_t)x;
}

static inline uint32_t f2u(float x)
{
   if (!(x > 0.0f))
      return 0;
   if (x >= 4294967296.0f)
      return 0xffffffffu;
   return (uint32_t)x;
}

#include "usc_alu_lane.h"




static inline uint32_t iadd_sat(uint32_t x, uint32_t y)
{
   int64_t s = (int64_t)S(x) + S(y);
   return (uint32_t)(s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s);
}

static inline uint32_t isub_sat(uint32_t x, uint32_t y)
{
   int64_t s = (int64_t)S(x) - S(y);
   return (uint32_t)(s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s);
}



static inline uint32_t bitrev(uint32_t x)
{
   x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
   x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
   x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
   x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
   return (x >> 16) | (x << 16);
}

static inline uint32_t msb(uint32_t x)
{
   return x ? 31u - (uint32_t)__builtin_clz(x) : ~0u;
}

/* ---- the baseline copy ---- */
#define ALU_SFX(n) n##_base
#define ALU_VBYTES 16
#define ALU_FMA(x, y, z) usc_fma(x, y, z)
#include "usc_alu_ops.h"
#undef ALU_SFX
#undef ALU_FMA
#undef ALU_VBYTES

/* ---- the AVX2+FMA copy (x86-64) ---- */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__FMA__)
#define USC_HAVE_AVX2_COPY 1
#ifdef __clang__
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
#define ALU_SFX(n) n##_avx2
#define ALU_VBYTES 32
#define ALU_FMA(x, y, z) __builtin_fmaf(x, y, z)
#include "usc_alu_ops.h"
#undef ALU_SFX
#undef ALU_FMA
#undef ALU_VBYTES
#ifdef __clang__
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

/* ---- level selection ---- */
static atomic_int simd_forced = USC_SIMD_AUTO;

int usc_simd_host_level(void)
{
#ifdef USC_HAVE_AVX2_COPY
   static atomic_int host = -1;
   int h = atomic_load_explicit(&host, memory_order_relaxed);
   if (h < 0) {
      __builtin_cpu_init();
      h = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? USC_SIMD_AVX2_FMA
                                                                          : USC_SIMD_GENERIC;
      atomic_store_explicit(&host, h, memory_order_relaxed);
   }
   return h;
#else
   return USC_SIMD_GENERIC;
#endif
}

void usc_simd_force(int level)
{
   atomic_store_explicit(&simd_forced, level, memory_order_relaxed);
}

int usc_simd_level(void)
{
   int host = usc_simd_host_level();
   int f = atomic_load_explicit(&simd_forced, memory_order_relaxed);
   return f == USC_SIMD_AUTO || f > host ? host : f;
}

/* No source modifier, no saturate, full-register destination. */
static int is_plain(const struct vagx_instr *I)
{
   if (I->sat || I->dst_half != VAGX_HALF_FULL)
      return 0;
   for (unsigned s = 0; s < vagx_nsrc(I); s++) {
      const struct vagx_src *src = &I->src[s];
      if (src->abs || src->neg || src->file == VAGX_FILE_RL || src->file == VAGX_FILE_RH)
         return 0;
   }
   return 1;
}

static usc_fn alu_select(const struct vagx_instr *I, usc_gfn *gfn)
{
   int plain = is_plain(I);
#ifdef USC_HAVE_AVX2_COPY
   if (usc_simd_level() >= USC_SIMD_AVX2_FMA)
      return alu_select_avx2(I, plain, gfn);
#endif
   return alu_select_base(I, plain, gfn);
}

usc_fn usc_alu_fn(const struct vagx_instr *I)
{
   usc_gfn gfn;
   return alu_select(I, &gfn);
}

usc_gfn usc_alu_gfn(const struct vagx_instr *I)
{
   usc_gfn gfn;
   alu_select(I, &gfn);
   return gfn;
}
