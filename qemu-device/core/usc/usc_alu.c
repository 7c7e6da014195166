/* ALU instruction handlers: float, conversions, integer, moves/selects and
 * quad derivatives.  Each handler computes all 32 lanes (inactive lanes compute
 * harmless garbage; no operation traps) and writes back under the mask. */
#include <math.h>

#include "usc_float.h"
#include "usc_priv.h"

#define HANDLER(name) static void name(struct usc_grp *g, const struct usc_op *o)

/* Integer ops: x, y, z are the uint32_t lanes of src0..2. */
#define IOP1(name, expr)                                                   \
   HANDLER(op_##name)                                                      \
   {                                                                       \
      uint32_t t0[L], r[L];                                                \
      const uint32_t *a = usc_src(g, o, 0, t0);                            \
      for (int l = 0; l < L; l++) {                                        \
         uint32_t x = a[l];                                                \
         r[l] = (expr);                                                    \
      }                                                                    \
      usc_wb(g, o, r);                                                     \
   }
#define IOP2(name, expr)                                                   \
   HANDLER(op_##name)                                                      \
   {                                                                       \
      uint32_t t0[L], t1[L], r[L];                                         \
      const uint32_t *a = usc_src(g, o, 0, t0), *b = usc_src(g, o, 1, t1); \
      for (int l = 0; l < L; l++) {                                        \
         uint32_t x = a[l], y = b[l];                                      \
         r[l] = (expr);                                                    \
      }                                                                    \
      usc_wb(g, o, r);                                                     \
   }
#define IOP3(name, expr)                                                   \
   HANDLER(op_##name)                                                      \
   {                                                                       \
      uint32_t t0[L], t1[L], t2[L], r[L];                                  \
      const uint32_t *a = usc_src(g, o, 0, t0), *b = usc_src(g, o, 1, t1); \
      const uint32_t *c = usc_src(g, o, 2, t2);                            \
      for (int l = 0; l < L; l++) {                                        \
         uint32_t x = a[l], y = b[l], z = c[l];                            \
         r[l] = (expr);                                                    \
      }                                                                    \
      usc_wb(g, o, r);                                                     \
   }

/* Saturate (when .sat) then write back: float results. */
static inline void fwb(struct usc_grp *g, const struct usc_op *o, uint32_t *r)
{
   if (o->I.sat)
      for (int l = 0; l < L; l++)
         r[l] = usc_sat(r[l]);
   usc_wb(g, o, r);
}

/* Float ops: x, y, z are the float lanes; expr is a float, canonicalised. */
#define FOP1(name, expr)                                                   \
   HANDLER(op_##name)                                                      \
   {                                                                       \
      uint32_t t0[L], r[L];                                                \
      const uint32_t *a = usc_src(g, o, 0, t0);                            \
      for (int l = 0; l < L; l++) {                                        \
         float x = usc_f(a[l]);                                            \
         r[l] = usc_canon(expr);                                           \
      }                                                                    \
      fwb(g, o, r);                                                        \
   }
#define FOP2(name, expr)                                                   \
   HANDLER(op_##name)                                                      \
   {                                                                       \
      uint32_t t0[L], t1[L], r[L];                                         \
      const uint32_t *a = usc_src(g, o, 0, t0), *b = usc_src(g, o, 1, t1); \
      for (int l = 0; l < L; l++) {                                        \
         float x = usc_f(a[l]), y = usc_f(b[l]);                           \
         r[l] = usc_canon(expr);                                           \
      }                                                                    \
      fwb(g, o, r);                                                        \
   }
#define FOP3(name, expr)                                                   \
   HANDLER(op_##name)                                                      \
   {                                                                       \
      uint32_t t0[L], t1[L], t2[L], r[L];                                  \
      const uint32_t *a = usc_src(g, o, 0, t0), *b = usc_src(g, o, 1, t1); \
      const uint32_t *c = usc_src(g, o, 2, t2);                            \
      for (int l = 0; l < L; l++) {                                        \
         float x = usc_f(a[l]), y = usc_f(b[l]), z = usc_f(c[l]);          \
         r[l] = usc_canon(expr);                                           \
      }                                                                    \
      fwb(g, o, r);                                                        \
   }

/* ---- moves and selects ---- */
IOP1(mov, x)
IOP3(sel, x ? y : z)

HANDLER(op_fmov)
{
   uint32_t t0[L], r[L];
   const uint32_t *a = usc_src(g, o, 0, t0);
   for (int l = 0; l < L; l++)
      r[l] = usc_canon(usc_f(a[l]));
   fwb(g, o, r);
}

HANDLER(op_fsel)
{
   uint32_t t0[L], t1[L], t2[L], r[L];
   const uint32_t *a = usc_src(g, o, 0, t0), *b = usc_src(g, o, 1, t1);
   const uint32_t *c = usc_src(g, o, 2, t2);
   for (int l = 0; l < L; l++) {
      float x = usc_f(a[l]);
      r[l] = (x != 0.0f && x == x) ? b[l] : c[l];
   }
   fwb(g, o, r);
}

/* ---- float ALU ---- */
FOP2(fadd, x + y)
FOP2(fmul, x * y)
FOP3(ffma, usc_fma(x, y, z))
FOP2(fmin, usc_fmin(x, y))
FOP2(fmax, usc_fmax(x, y))
FOP1(ffloor, floorf(x))
FOP1(fceil, ceilf(x))
FOP1(ftrunc, truncf(x))
FOP1(frnd, rintf(x))
static inline float fract(float x)
{
   float f = x - floorf(x);
   return f > 0x1.fffffep-1f ? 0x1.fffffep-1f : f; /* NaN (from NaN or inf) stays */
}
FOP1(ffract, fract(x))
FOP1(frcp, 1.0f / x)
FOP1(frsqrt, (float)(1.0 / sqrt((double)x)))
FOP1(fsqrt, sqrtf(x))
FOP1(fexp2, exp2f(x))
FOP1(flog2, log2f(x))
FOP1(fsin, sinf(x))
FOP1(fcos, cosf(x))

/* fcmp: one handler per condition, chosen at decode.  NaN: o* false, u* true. */
#define FCMP(name, expr) IOP2(fcmp_##name, (expr) ? ~0u : 0u)
#define FX usc_f(x)
#define FY usc_f(y)
#define UNORD (FX != FX || FY != FY)
FCMP(oeq, FX == FY)
FCMP(one, FX < FY || FX > FY)
FCMP(olt, FX < FY)
FCMP(ole, FX <= FY)
FCMP(ogt, FX > FY)
FCMP(oge, FX >= FY)
FCMP(ord, !UNORD)
FCMP(ueq, UNORD || FX == FY)
FCMP(une, FX != FY)
FCMP(ult, !(FX >= FY))
FCMP(ule, !(FX > FY))
FCMP(ugt, !(FX <= FY))
FCMP(uge, !(FX < FY))
FCMP(uno, UNORD)

static const usc_fn fcmp_fns[VAGX_FCOND_COUNT] = {
   op_fcmp_oeq, op_fcmp_one, op_fcmp_olt, op_fcmp_ole, op_fcmp_ogt, op_fcmp_oge, op_fcmp_ord,
   op_fcmp_ueq, op_fcmp_une, op_fcmp_ult, op_fcmp_ule, op_fcmp_ugt, op_fcmp_uge, op_fcmp_uno,
};

/* Derivatives over quads: lanes 4q+0..3 are (0,0), (1,0), (0,1), (1,1). */
#define DERIV(name, i0, i1)                                                \
   HANDLER(op_##name)                                                      \
   {                                                                       \
      uint32_t t0[L], r[L];                                                \
      const uint32_t *a = usc_src(g, o, 0, t0);                            \
      for (int l = 0; l < L; l++)                                          \
         r[l] = usc_canon(usc_f(a[i1]) - usc_f(a[i0]));                    \
      fwb(g, o, r);                                                        \
   }
DERIV(ddx_fine, l & ~1, l | 1)
DERIV(ddy_fine, l & ~2, l | 2)
DERIV(ddx_coarse, l & ~3, (l & ~3) | 1)
DERIV(ddy_coarse, l & ~3, (l & ~3) | 2)

/* ---- conversions ---- */
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

HANDLER(op_f2i)
{
   uint32_t t0[L], r[L];
   const uint32_t *a = usc_src(g, o, 0, t0);
   for (int l = 0; l < L; l++)
      r[l] = f2i(round_mode(usc_f(a[l]), o->I.mod));
   usc_wb(g, o, r);
}

HANDLER(op_f2u)
{
   uint32_t t0[L], r[L];
   const uint32_t *a = usc_src(g, o, 0, t0);
   for (int l = 0; l < L; l++)
      r[l] = f2u(round_mode(usc_f(a[l]), o->I.mod));
   usc_wb(g, o, r);
}

HANDLER(op_i2f)
{
   uint32_t t0[L], r[L];
   const uint32_t *a = usc_src(g, o, 0, t0);
   for (int l = 0; l < L; l++)
      r[l] = usc_u((float)(int32_t)a[l]);
   fwb(g, o, r);
}

HANDLER(op_u2f)
{
   uint32_t t0[L], r[L];
   const uint32_t *a = usc_src(g, o, 0, t0);
   for (int l = 0; l < L; l++)
      r[l] = usc_u((float)a[l]);
   fwb(g, o, r);
}

IOP1(f2h, usc_f32_to_f16(x))

HANDLER(op_h2f)
{
   uint32_t t0[L], r[L];
   const uint32_t *a = usc_src(g, o, 0, t0);
   for (int l = 0; l < L; l++)
      r[l] = usc_f16_to_f32(a[l] & 0xffff);
   fwb(g, o, r);
}

/* ---- integer ALU ---- */
#define S(v) ((int32_t)(v))

static inline uint32_t idiv(uint32_t x, uint32_t y)
{
   if (!y)
      return ~0u;
   if (x == 0x80000000u && y == ~0u)
      return x;
   return (uint32_t)(S(x) / S(y));
}

static inline uint32_t irem(uint32_t x, uint32_t y)
{
   if (!y)
      return x;
   if (x == 0x80000000u && y == ~0u)
      return 0;
   return (uint32_t)(S(x) % S(y));
}

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

static inline uint32_t bfe(uint32_t x, uint32_t off, uint32_t bits, int sign)
{
   off &= 31;
   uint32_t n = bits > 32 ? 32 : bits;
   if (n > 32 - off)
      n = 32 - off;
   if (!n)
      return 0;
   uint32_t v = x >> off;
   if (n == 32)
      return v;
   return sign ? (uint32_t)(S(v << (32 - n)) >> (32 - n)) : v & ((1u << n) - 1);
}

static inline uint32_t bfi(uint32_t base, uint32_t ins, uint32_t ctl)
{
   uint32_t off = ctl & 31, n = (ctl >> 8) & 63;
   if (n > 32 - off)
      n = 32 - off;
   uint32_t m = (n >= 32 ? ~0u : ((1u << n) - 1)) << off;
   return (base & ~m) | ((ins << off) & m);
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

IOP2(iadd, x + y)
IOP2(isub, x - y)
IOP2(imul, x * y)
IOP2(imulhi, (uint32_t)((uint64_t)((int64_t)S(x) * S(y)) >> 32))
IOP2(umulhi, (uint32_t)(((uint64_t)x * y) >> 32))
IOP3(imad, x * y + z)
IOP2(idiv, idiv(x, y))
IOP2(udiv, y ? x / y : ~0u)
IOP2(irem, irem(x, y))
IOP2(umod, y ? x % y : x)
IOP2(iadd_sat, iadd_sat(x, y))
IOP2(uadd_sat, x + y < x ? ~0u : x + y)
IOP2(isub_sat, isub_sat(x, y))
IOP2(usub_sat, x < y ? 0u : x - y)
IOP2(imin, S(x) < S(y) ? x : y)
IOP2(imax, S(x) > S(y) ? x : y)
IOP2(umin, x < y ? x : y)
IOP2(umax, x > y ? x : y)
IOP2(and, x & y)
IOP2(or, x | y)
IOP2(xor, x ^ y)
IOP1(not, ~x)
IOP2(shl, x << (y & 31))
IOP2(shr, x >> (y & 31))
IOP2(ashr, (uint32_t)(S(x) >> (y & 31)))
IOP3(bfe_u, bfe(x, y, z, 0))
IOP3(bfe_s, bfe(x, y, z, 1))
IOP3(bfi, bfi(x, y, z))
IOP1(popcnt, (uint32_t)__builtin_popcount(x))
IOP1(bitrev, bitrev(x))
IOP1(ffs, x ? (uint32_t)__builtin_ctz(x) : ~0u)
IOP1(fmsb_u, msb(x))
IOP1(fmsb_s, msb(S(x) < 0 ? ~x : x))
IOP2(pack16, (x & 0xffffu) | (y << 16))
IOP1(sext8, (uint32_t)(int32_t)(int8_t)x)
IOP1(sext16, (uint32_t)(int32_t)(int16_t)x)
IOP1(iabs, S(x) < 0 ? 0u - x : x)
IOP1(ineg, 0u - x)

#define ICMP(name, expr) IOP2(icmp_##name, (expr) ? ~0u : 0u)
ICMP(eq, x == y)
ICMP(ne, x != y)
ICMP(slt, S(x) < S(y))
ICMP(sle, S(x) <= S(y))
ICMP(sgt, S(x) > S(y))
ICMP(sge, S(x) >= S(y))
ICMP(ult, x < y)
ICMP(ule, x <= y)
ICMP(ugt, x > y)
ICMP(uge, x >= y)

static const usc_fn icmp_fns[VAGX_ICOND_COUNT] = {
   op_icmp_eq, op_icmp_ne, op_icmp_slt, op_icmp_sle, op_icmp_sgt,
   op_icmp_sge, op_icmp_ult, op_icmp_ule, op_icmp_ugt, op_icmp_uge,
};

usc_fn usc_alu_fn(const struct vagx_instr *I)
{
   switch (I->op) {
   case VAGX_OP_MOV: return op_mov;
   case VAGX_OP_FMOV: return op_fmov;
   case VAGX_OP_SEL: return op_sel;
   case VAGX_OP_FSEL: return op_fsel;
   case VAGX_OP_FADD: return op_fadd;
   case VAGX_OP_FMUL: return op_fmul;
   case VAGX_OP_FFMA: return op_ffma;
   case VAGX_OP_FMIN: return op_fmin;
   case VAGX_OP_FMAX: return op_fmax;
   case VAGX_OP_FCMP: return fcmp_fns[I->mod & 15];
   case VAGX_OP_FFLOOR: return op_ffloor;
   case VAGX_OP_FCEIL: return op_fceil;
   case VAGX_OP_FTRUNC: return op_ftrunc;
   case VAGX_OP_FRND: return op_frnd;
   case VAGX_OP_FFRACT: return op_ffract;
   case VAGX_OP_FRCP: return op_frcp;
   case VAGX_OP_FRSQRT: return op_frsqrt;
   case VAGX_OP_FSQRT: return op_fsqrt;
   case VAGX_OP_FEXP2: return op_fexp2;
   case VAGX_OP_FLOG2: return op_flog2;
   case VAGX_OP_FSIN: return op_fsin;
   case VAGX_OP_FCOS: return op_fcos;
   case VAGX_OP_FDDX: return I->mod ? op_ddx_coarse : op_ddx_fine;
   case VAGX_OP_FDDY: return I->mod ? op_ddy_coarse : op_ddy_fine;
   case VAGX_OP_F2I: return op_f2i;
   case VAGX_OP_F2U: return op_f2u;
   case VAGX_OP_I2F: return op_i2f;
   case VAGX_OP_U2F: return op_u2f;
   case VAGX_OP_F2H: return op_f2h;
   case VAGX_OP_H2F: return op_h2f;
   case VAGX_OP_IADD: return op_iadd;
   case VAGX_OP_ISUB: return op_isub;
   case VAGX_OP_IMUL: return op_imul;
   case VAGX_OP_IMULHI: return op_imulhi;
   case VAGX_OP_UMULHI: return op_umulhi;
   case VAGX_OP_IMAD: return op_imad;
   case VAGX_OP_IDIV: return op_idiv;
   case VAGX_OP_UDIV: return op_udiv;
   case VAGX_OP_IREM: return op_irem;
   case VAGX_OP_UMOD: return op_umod;
   case VAGX_OP_IADD_SAT: return op_iadd_sat;
   case VAGX_OP_UADD_SAT: return op_uadd_sat;
   case VAGX_OP_ISUB_SAT: return op_isub_sat;
   case VAGX_OP_USUB_SAT: return op_usub_sat;
   case VAGX_OP_IMIN: return op_imin;
   case VAGX_OP_IMAX: return op_imax;
   case VAGX_OP_UMIN: return op_umin;
   case VAGX_OP_UMAX: return op_umax;
   case VAGX_OP_ICMP: return icmp_fns[I->mod & 15];
   case VAGX_OP_AND: return op_and;
   case VAGX_OP_OR: return op_or;
   case VAGX_OP_XOR: return op_xor;
   case VAGX_OP_NOT: return op_not;
   case VAGX_OP_SHL: return op_shl;
   case VAGX_OP_SHR: return op_shr;
   case VAGX_OP_ASHR: return op_ashr;
   case VAGX_OP_BFE: return I->mod ? op_bfe_s : op_bfe_u;
   case VAGX_OP_BFI: return op_bfi;
   case VAGX_OP_POPCNT: return op_popcnt;
   case VAGX_OP_BITREV: return op_bitrev;
   case VAGX_OP_FFS: return op_ffs;
   case VAGX_OP_FMSB: return I->mod ? op_fmsb_s : op_fmsb_u;
   case VAGX_OP_PACK16: return op_pack16;
   case VAGX_OP_SEXT: return I->mod ? op_sext16 : op_sext8;
   case VAGX_OP_IABS: return op_iabs;
   case VAGX_OP_INEG: return op_ineg;
   default: return NULL;
   }
}
