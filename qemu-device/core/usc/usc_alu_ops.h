/* ALU handler template, included by usc_alu.c once per host code-generation
 * level (ALU_SFX names the copy; ALU_FMA is the fused multiply-add it uses).
 * Every macro-generated operation exists in two forms: the general one (source
 * modifiers, saturate, half-register destination) and a plain one picked at
 * decode time when the instruction has none of those (no per-lane or
 * per-instruction modifier work at run time). */

/* ---- moves and selects ---- */
IOP1(mov, x)
IOP3(sel, x ? y : z)

/* One source without lane conversion: r[l] = expr of its lane a[l],
 * written back by WB (the general form only) */
#define RAW1(name, WB, expr)                                               \
   HANDLER(ALU_SFX(op_##name))                                             \
   {                                                                       \
      uint32_t t0[L], r[L];                                                \
      const uint32_t *a = usc_src(g, o, 0, t0);                            \
      for (int l = 0; l < L; l++)                                          \
         r[l] = (expr);                                                    \
      WB(g, o, r);                                                         \
   }

RAW1(fmov, fwb, usc_canon(usc_f(a[l])))

HANDLER(ALU_SFX(op_fsel))
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
FOP3(ffma, ALU_FMA(x, y, z))
FOP2(fmin, usc_fmin(x, y))
FOP2(fmax, usc_fmax(x, y))
FOP1(ffloor, floorf(x))
FOP1(fceil, ceilf(x))
FOP1(ftrunc, truncf(x))
FOP1(frnd, rintf(x))
FOP1(ffract, fract(x))
FOP1(frcp, 1.0f / x)
FOP1(frsqrt, (float)(1.0 / sqrt((double)x)))
FOP1(fsqrt, sqrtf(x))
/* fexp2, flog2: whole rows through usc_float.h's lane functions (the
 * per-lane form of FOP1 would not vectorise them); a saturate or source
 * modifier is applied as for every float op */
#define TOP1(name, lanes_fn)                                               \
   HANDLER(ALU_SFX(op_##name))                                             \
   {                                                                       \
      uint32_t t0[L], r[L];                                                \
      lanes_fn(r, usc_src(g, o, 0, t0), L);                                \
      fwb(g, o, r);                                                        \
   }
TOP1(fexp2, usc_exp2_lanes)
TOP1(flog2, usc_log2_lanes)
#undef TOP1
FOP1(fsin, sinf(x))
FOP1(fcos, cosf(x))

/* fcmp: one handler per condition, chosen at decode.  NaN: o* false, u* true. */
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

static const usc_fn ALU_SFX(fcmp_fns)[2][VAGX_FCOND_COUNT] = {
#define FCMP_ROW(s)                                                                          \
   { ALU_SFX(op_fcmp_oeq##s), ALU_SFX(op_fcmp_one##s), ALU_SFX(op_fcmp_olt##s),            \
     ALU_SFX(op_fcmp_ole##s), ALU_SFX(op_fcmp_ogt##s), ALU_SFX(op_fcmp_oge##s),            \
     ALU_SFX(op_fcmp_ord##s), ALU_SFX(op_fcmp_ueq##s), ALU_SFX(op_fcmp_une##s),            \
     ALU_SFX(op_fcmp_ult##s), ALU_SFX(op_fcmp_ule##s), ALU_SFX(op_fcmp_ugt##s),            \
     ALU_SFX(op_fcmp_uge##s), ALU_SFX(op_fcmp_uno##s) }
   FCMP_ROW(), FCMP_ROW(_p),
#undef FCMP_ROW
};
static const usc_gfn ALU_SFX(fcmp_gfns)[VAGX_FCOND_COUNT] = {
   ALU_SFX(gop_fcmp_oeq), ALU_SFX(gop_fcmp_one), ALU_SFX(gop_fcmp_olt), ALU_SFX(gop_fcmp_ole),
   ALU_SFX(gop_fcmp_ogt), ALU_SFX(gop_fcmp_oge), ALU_SFX(gop_fcmp_ord), ALU_SFX(gop_fcmp_ueq),
   ALU_SFX(gop_fcmp_une), ALU_SFX(gop_fcmp_ult), ALU_SFX(gop_fcmp_ule), ALU_SFX(gop_fcmp_ugt),
   ALU_SFX(gop_fcmp_uge), ALU_SFX(gop_fcmp_uno),
};

/* Derivatives over quads: lanes 4q+0..3 are (0,0), (1,0), (0,1), (1,1). */
DERIV(ddx_fine, l & ~1, l | 1)
DERIV(ddy_fine, l & ~2, l | 2)
DERIV(ddx_coarse, l & ~3, (l & ~3) | 1)
DERIV(ddy_coarse, l & ~3, (l & ~3) | 2)

/* ---- conversions ---- */
RAW1(f2i, usc_wb, f2i(round_mode(usc_f(a[l]), o->I.mod)))
RAW1(f2u, usc_wb, f2u(round_mode(usc_f(a[l]), o->I.mod)))
RAW1(i2f, fwb, usc_u((float)(int32_t)a[l]))
RAW1(u2f, fwb, usc_u((float)a[l]))
IOP1(f2h, usc_f32_to_f16(x))
RAW1(h2f, fwb, usc_f16_to_f32(a[l] & 0xffff))
#undef RAW1

/* ---- integer ALU ---- */
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

static const usc_fn ALU_SFX(icmp_fns)[2][VAGX_ICOND_COUNT] = {
#define ICMP_ROW(s)                                                                          \
   { ALU_SFX(op_icmp_eq##s), ALU_SFX(op_icmp_ne##s), ALU_SFX(op_icmp_slt##s),              \
     ALU_SFX(op_icmp_sle##s), ALU_SFX(op_icmp_sgt##s), ALU_SFX(op_icmp_sge##s),            \
     ALU_SFX(op_icmp_ult##s), ALU_SFX(op_icmp_ule##s), ALU_SFX(op_icmp_ugt##s),            \
     ALU_SFX(op_icmp_uge##s) }
   ICMP_ROW(), ICMP_ROW(_p),
#undef ICMP_ROW
};
static const usc_gfn ALU_SFX(icmp_gfns)[VAGX_ICOND_COUNT] = {
   ALU_SFX(gop_icmp_eq), ALU_SFX(gop_icmp_ne), ALU_SFX(gop_icmp_slt), ALU_SFX(gop_icmp_sle),
   ALU_SFX(gop_icmp_sgt), ALU_SFX(gop_icmp_sge), ALU_SFX(gop_icmp_ult), ALU_SFX(gop_icmp_ule),
   ALU_SFX(gop_icmp_ugt), ALU_SFX(gop_icmp_uge),
};

/* Handler of I in this copy; `plain`: I has no source modifier, no saturate and
 * a full-register destination.  *gfn gets the gang handler (plain only). */
static usc_fn ALU_SFX(alu_select)(const struct vagx_instr *I, int plain, usc_gfn *gfn)
{
#define P(name)                                                                            \
   do {                                                                                    \
      *gfn = plain ? ALU_SFX(gop_##name) : NULL;                                          \
      return plain ? ALU_SFX(op_##name##_p) : ALU_SFX(op_##name);                         \
   } while (0)
#define G(name) return ALU_SFX(op_##name)
   *gfn = NULL;
   switch (I->op) {
   case VAGX_OP_MOV: P(mov);
   case VAGX_OP_FMOV: G(fmov);
   case VAGX_OP_SEL: P(sel);
   case VAGX_OP_FSEL: G(fsel);
   case VAGX_OP_FADD: P(fadd);
   case VAGX_OP_FMUL: P(fmul);
   case VAGX_OP_FFMA: P(ffma);
   case VAGX_OP_FMIN: P(fmin);
   case VAGX_OP_FMAX: P(fmax);
   case VAGX_OP_FCMP:
      *gfn = plain ? ALU_SFX(fcmp_gfns)[(I->mod & 15) % VAGX_FCOND_COUNT] : NULL;
      return ALU_SFX(fcmp_fns)[plain][(I->mod & 15) % VAGX_FCOND_COUNT];
   case VAGX_OP_FFLOOR: P(ffloor);
   case VAGX_OP_FCEIL: P(fceil);
   case VAGX_OP_FTRUNC: P(ftrunc);
   case VAGX_OP_FRND: P(frnd);
   case VAGX_OP_FFRACT: P(ffract);
   case VAGX_OP_FRCP: P(frcp);
   case VAGX_OP_FRSQRT: P(frsqrt);
   case VAGX_OP_FSQRT: P(fsqrt);
   case VAGX_OP_FEXP2: G(fexp2);
   case VAGX_OP_FLOG2: G(flog2);
   case VAGX_OP_FSIN: P(fsin);
   case VAGX_OP_FCOS: P(fcos);
   case VAGX_OP_FDDX: return I->mod ? ALU_SFX(op_ddx_coarse) : ALU_SFX(op_ddx_fine);
   case VAGX_OP_FDDY: return I->mod ? ALU_SFX(op_ddy_coarse) : ALU_SFX(op_ddy_fine);
   case VAGX_OP_F2I: G(f2i);
   case VAGX_OP_F2U: G(f2u);
   case VAGX_OP_I2F: G(i2f);
   case VAGX_OP_U2F: G(u2f);
   case VAGX_OP_F2H: P(f2h);
   case VAGX_OP_H2F: G(h2f);
   case VAGX_OP_IADD: P(iadd);
   case VAGX_OP_ISUB: P(isub);
   case VAGX_OP_IMUL: P(imul);
   case VAGX_OP_IMULHI: P(imulhi);
   case VAGX_OP_UMULHI: P(umulhi);
   case VAGX_OP_IMAD: P(imad);
   case VAGX_OP_IDIV: P(idiv);
   case VAGX_OP_UDIV: P(udiv);
   case VAGX_OP_IREM: P(irem);
   case VAGX_OP_UMOD: P(umod);
   case VAGX_OP_IADD_SAT: P(iadd_sat);
   case VAGX_OP_UADD_SAT: P(uadd_sat);
   case VAGX_OP_ISUB_SAT: P(isub_sat);
   case VAGX_OP_USUB_SAT: P(usub_sat);
   case VAGX_OP_IMIN: P(imin);
   case VAGX_OP_IMAX: P(imax);
   case VAGX_OP_UMIN: P(umin);
   case VAGX_OP_UMAX: P(umax);
   case VAGX_OP_ICMP:
      *gfn = plain ? ALU_SFX(icmp_gfns)[(I->mod & 15) % VAGX_ICOND_COUNT] : NULL;
      return ALU_SFX(icmp_fns)[plain][(I->mod & 15) % VAGX_ICOND_COUNT];
   case VAGX_OP_AND: P(and);
   case VAGX_OP_OR: P(or);
   case VAGX_OP_XOR: P(xor);
   case VAGX_OP_NOT: P(not);
   case VAGX_OP_SHL: P(shl);
   case VAGX_OP_SHR: P(shr);
   case VAGX_OP_ASHR: P(ashr);
   case VAGX_OP_BFE: if (I->mod) P(bfe_s); else P(bfe_u);
   case VAGX_OP_BFI: P(bfi);
   case VAGX_OP_POPCNT: P(popcnt);
   case VAGX_OP_BITREV: P(bitrev);
   case VAGX_OP_FFS: P(ffs);
   case VAGX_OP_FMSB: if (I->mod) P(fmsb_s); else P(fmsb_u);
   case VAGX_OP_PACK16: P(pack16);
   case VAGX_OP_SEXT: if (I->mod) P(sext16); else P(sext8);
   case VAGX_OP_IABS: P(iabs);
   case VAGX_OP_INEG: P(ineg);
   default: return NULL;
   }
#undef P
#undef G
}
