/* JIT of ALU runs.  A run is a maximal sequence of consecutive ALU
 * instructions (no control flow, no graphics, memory or texture instruction);
 * each becomes one host function built with LLVM's ORC JIT through its C API.
 * The function processes the 32 lanes in four chunks of 8 (one <8 x i32> per
 * value: the run's temporaries stay in host vector registers, and a quad,
 * lanes 4q..4q+3, stays inside a chunk for the derivatives), loads each
 * source row once per chunk and writes the rows the run writes back once, with
 * the lane mask, as usc_wb() would have after the run's last write.
 *
 * Every operation reproduces its interpreter handler (usc_alu_ops.h) bit for
 * bit: NaN results canonical (usc_canon), denormals kept, RNE, ffma through
 * llvm.fma (single rounding), saturate, source modifiers, ~0/0 compares, the
 * minNum/maxNum and conversion edge cases.  No fast-math flag is used, and the
 * target's default FP contraction (only llvm.fmuladd) never fuses an fmul with
 * an fadd.  Rare operations (transcendentals, f16 conversions, integer
 * division, bit fields) call the same C code the interpreter runs, per lane.
 *
 * A program is compiled once, by the first run that finds it hot (a count of
 * runs, usc_jit_tick), under its jit_state: the thread that wins the state
 * compiles, the others keep interpreting meanwhile.  The code is published
 * per run-start op (usc_op.jit, release/acquire).  One process-wide LLJIT holds
 * all code; each program's module has its own resource tracker, removed when
 * the program is freed (the program cache's eviction bounds the memory).
 * Without LLVM (no VAGX_HAVE_LLVM) this file is a stub. */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef VAGX_HAVE_LLVM
/* before usc_priv.h, whose L (lanes) macro clashes with a parameter name */
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#endif

#include "usc_alu_lane.h"
#include "usc_simd.h"
#include "usc_float.h"
#include "usc_jit.h"
#include "usc_priv.h"

static atomic_int jit_forced = USC_JIT_AUTO;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static bool env_on;          /* VAGX_USC_JIT is not "0" */
static unsigned env_thresh;  /* runs before a program is compiled */
static bool env_debug;       /* VAGX_USC_JIT_DEBUG: compile failures to stderr */

static _Atomic uint64_t st_programs, st_runs, st_instrs, st_failures, st_live, st_skipped;

/* Default: compile after this many runs of a program (a fragment program
 * runs once per 8x4 block, a compute one per threadgroup), so programs run
 * once or twice (tests, one-off blits) do not pay a compile. */
#define JIT_DEFAULT_THRESHOLD 16
/* Longest run compiled as one function (a longer one is split). */
#define JIT_MAX_RUN 64
/* Shortest run worth a function call instead of the handlers. */
#define JIT_MIN_RUN 2
/* Host memory of a compiled program (code, LLVM's symbol and memory-manager
 * records), measured: ~14 KiB for a run of 2 instructions, ~34 KiB for 64.
 * Charged to the program's size (usc_jit_reserve) so that the program
 * cache's byte bound covers its JIT code too. */
#define JIT_BYTES_BASE (14u << 10)
#define JIT_BYTES_PER_INSTR 320u

static void env_init(void)
{
   const char *s = getenv("VAGX_USC_JIT");
   env_on = !(s && s[0] == '0' && !s[1]);
   s = getenv("VAGX_USC_JIT_THRESHOLD");
   env_thresh = s ? (unsigned)strtoul(s, NULL, 0) : JIT_DEFAULT_THRESHOLD;
   env_debug = getenv("VAGX_USC_JIT_DEBUG") != NULL;
}

void usc_jit_force(int mode)
{
   atomic_store_explicit(&jit_forced, mode, memory_order_relaxed);
}

void usc_jit_get_stats(struct usc_jit_stats *s)
{
   s->programs = atomic_load(&st_programs);
   s->runs = atomic_load(&st_runs);
   s->instrs = atomic_load(&st_instrs);
   s->failures = atomic_load(&st_failures);
   s->live = atomic_load(&st_live);
   s->skipped = atomic_load(&st_skipped);
}

bool usc_jit_enabled(void)
{
   if (!usc_jit_available())
      return false;
   int f = atomic_load_explicit(&jit_forced, memory_order_relaxed);
   if (f != USC_JIT_AUTO)
      return f != USC_JIT_OFF;
   /* once per run: the environment's answer, kept (no pthread_once call) */
   static atomic_int env_answer = -1;
   int a = atomic_load_explicit(&env_answer, memory_order_relaxed);
   if (a < 0) {
      pthread_once(&env_once, env_init);
      a = env_on;
      atomic_store_explicit(&env_answer, a, memory_order_relaxed);
   }
   return a;
}

void usc_jit_tick(struct vagx_usc_decoded *p)
{
   if (!usc_jit_enabled())
      return;
   unsigned thresh = 0;
   if (atomic_load_explicit(&jit_forced, memory_order_relaxed) != USC_JIT_EAGER) {
      pthread_once(&env_once, env_init);
      thresh = env_thresh;
   }
   /* counted only until the program is compiled: no shared write after */
   if (atomic_fetch_add_explicit(&p->jit_heat, 1, memory_order_relaxed) + 1 >= thresh)
      usc_jit_compile(p);
}

#ifndef VAGX_HAVE_LLVM

bool usc_jit_available(void)
{
   return false;
}

bool usc_jit_compile(struct vagx_usc_decoded *p)
{
   atomic_store_explicit(&p->jit_state, USC_JIT_DONE, memory_order_relaxed);
   return false;
}

size_t usc_jit_reserve(const struct vagx_usc_decoded *p)
{
   (void)p;
   return 0;
}

void usc_jit_free(struct vagx_usc_decoded *p)
{
   (void)p;
}

#else

struct usc_jit_prog {
   LLVMOrcResourceTrackerRef rt;
};

static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;
static LLVMOrcLLJITRef jit_lljit; /* NULL: LLVM could not be set up */
static _Atomic uint64_t jit_serial;

bool usc_jit_available(void)
{
   return true;
}

static void jit_error(const char *what, LLVMErrorRef err)
{
   char *msg = LLVMGetErrorMessage(err);
   if (env_debug)
      fprintf(stderr, "vagx usc jit: %s: %s\n", what, msg);
   LLVMDisposeErrorMessage(msg);
}

static void llvm_init(void)
{
   pthread_once(&env_once, env_init);
   if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter())
      return;
   /* The default builder targets the host CPU (its features: AVX2, FMA) and
    * compiles on the calling thread. */
   LLVMOrcLLJITRef j;
   LLVMErrorRef err = LLVMOrcCreateLLJIT(&j, LLVMOrcCreateLLJITBuilder());
   if (err) {
      jit_error("LLJIT", err);
      return;
   }
   /* libm (floorf, fmaf on hosts without the instructions) */
   LLVMOrcDefinitionGeneratorRef gen;
   err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
      &gen, LLVMOrcLLJITGetGlobalPrefix(j), NULL, NULL);
   if (err) {
      jit_error("process symbols", err);
      LLVMOrcDisposeLLJIT(j);
      return;
   }
   LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(j), gen);
   jit_lljit = j;
}

#define CL 8 /* lanes per chunk */

/* ---- per-lane helpers: the interpreter's own lane code ---- */
typedef uint32_t (*lane_fn)(uint32_t x, uint32_t y, uint32_t z);

#define LANE_HELPER(name, expr)                                  \
   static uint32_t jh_##name(uint32_t x, uint32_t y, uint32_t z) \
   {                                                             \
      (void)x;                                                   \
      (void)y;                                                   \
      (void)z;                                                   \
      return (expr);                                             \
   }
LANE_HELPER(sin, usc_canon(sinf(usc_f(x))))
LANE_HELPER(cos, usc_canon(cosf(usc_f(x))))
LANE_HELPER(f2h, usc_f32_to_f16(x))
LANE_HELPER(h2f, usc_f16_to_f32(x & 0xffff))
LANE_HELPER(idiv, idiv(x, y))
LANE_HELPER(udiv, y ? x / y : ~0u)
LANE_HELPER(irem, irem(x, y))
LANE_HELPER(umod, y ? x % y : x)
LANE_HELPER(bfe_u, bfe(x, y, z, 0))
LANE_HELPER(bfe_s, bfe(x, y, z, 1))
LANE_HELPER(bfi, bfi(x, y, z))

/* ---- row helpers: a chunk's lanes through usc_float.h's lane functions,
 * the interpreter's own (one call per chunk, not per lane) ---- */
typedef void (*row_fn)(uint32_t *r, const uint32_t *a);

static void jh_exp2_row(uint32_t *r, const uint32_t *a)
{
   usc_exp2_lanes(r, a, CL);
}

static void jh_log2_row(uint32_t *r, const uint32_t *a)
{
   usc_log2_lanes(r, a, CL);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX2__)
/* The same for AVX2 hosts (the interpreter's AVX2 copy computes the same
 * bits): the double-precision loops run 4 lanes an instruction, not 2. */
__attribute__((target("avx2"))) static void jh_exp2_row_avx2(uint32_t *r, const uint32_t *a)
{
   usc_exp2_lanes(r, a, CL);
}

__attribute__((target("avx2"))) static void jh_log2_row_avx2(uint32_t *r, const uint32_t *a)
{
   usc_log2_lanes(r, a, CL);
}
#define ROW_FN(name) (usc_simd_level() >= USC_SIMD_AVX2_FMA ? jh_##name##_row_avx2 : jh_##name##_row)
#else
#define ROW_FN(name) jh_##name##_row
#endif

/* iter and ldcf as usc_iter.c runs them (not .f16, which goes to the
 * renderer's hook) */
static bool jit_iter_op(const struct usc_op *o)
{
   return (o->I.op == VAGX_OP_ITER && !VAGX_MOD_ITER_F16(o->I.mod)) ||
          (o->I.op == VAGX_OP_LDCF && !VAGX_MOD_LDCF_F16(o->I.mod));
}

/* Whether the JIT reproduces op o (everything usc_alu_fn() handles, with
 * sources the executor resolves to rows, and jit_iter_op). */
static bool jit_op_ok(const struct usc_op *o)
{
   if (jit_iter_op(o))
      return true;
   switch (o->I.op) {
   case VAGX_OP_MOV: case VAGX_OP_FMOV: case VAGX_OP_SEL: case VAGX_OP_FSEL:
   case VAGX_OP_FADD: case VAGX_OP_FMUL: case VAGX_OP_FFMA: case VAGX_OP_FMIN:
   case VAGX_OP_FMAX: case VAGX_OP_FCMP: case VAGX_OP_FFLOOR: case VAGX_OP_FCEIL:
   case VAGX_OP_FTRUNC: case VAGX_OP_FRND: case VAGX_OP_FFRACT: case VAGX_OP_FRCP:
   case VAGX_OP_FRSQRT: case VAGX_OP_FSQRT: case VAGX_OP_FEXP2: case VAGX_OP_FLOG2:
   case VAGX_OP_FSIN: case VAGX_OP_FCOS: case VAGX_OP_FDDX: case VAGX_OP_FDDY:
   case VAGX_OP_F2I: case VAGX_OP_F2U: case VAGX_OP_I2F: case VAGX_OP_U2F:
   case VAGX_OP_F2H: case VAGX_OP_H2F: case VAGX_OP_IADD: case VAGX_OP_ISUB:
   case VAGX_OP_IMUL: case VAGX_OP_IMULHI: case VAGX_OP_UMULHI: case VAGX_OP_IMAD:
   case VAGX_OP_IDIV: case VAGX_OP_UDIV: case VAGX_OP_IREM: case VAGX_OP_UMOD:
   case VAGX_OP_IADD_SAT: case VAGX_OP_UADD_SAT: case VAGX_OP_ISUB_SAT:
   case VAGX_OP_USUB_SAT: case VAGX_OP_IMIN: case VAGX_OP_IMAX: case VAGX_OP_UMIN:
   case VAGX_OP_UMAX: case VAGX_OP_ICMP: case VAGX_OP_AND: case VAGX_OP_OR:
   case VAGX_OP_XOR: case VAGX_OP_NOT: case VAGX_OP_SHL: case VAGX_OP_SHR:
   case VAGX_OP_ASHR: case VAGX_OP_BFE: case VAGX_OP_BFI: case VAGX_OP_POPCNT:
   case VAGX_OP_BITREV: case VAGX_OP_FFS: case VAGX_OP_FMSB: case VAGX_OP_PACK16:
   case VAGX_OP_SEXT: case VAGX_OP_IABS: case VAGX_OP_INEG:
      break;
   default:
      return false;
   }
   /* the interpreter must know it as ALU (not some other class's op) */
   if (!usc_alu_fn(&o->I))
      return false;
   const struct vagx_op_info *info = vagx_info(o->I.op);
   if (info->dst != VAGX_DK_U32 && info->dst != VAGX_DK_F32)
      return false;
   for (unsigned s = 0; s < o->nsrc; s++)
      if (o->src[s].bfile != USC_B_R && o->src[s].bfile != USC_B_U &&
          o->src[s].bfile != USC_B_SR && o->src[s].bfile != USC_B_IMM)
         return false;
   return true;
}

/* ---- the emitter ---- */
/* register rows an operand can name (an 8-bit index, struct vagx_instr) */
#define JIT_ROWS (1u << (8 * sizeof(((struct vagx_instr *)0)->dst)))

struct em {
   LLVMContextRef c;
   LLVMModuleRef m;
   LLVMBuilderRef b;
   LLVMTypeRef i32, i64, f64, v8i32, v8f32, v8i64, v8f64, p32, pv8, pf64;
   const struct vagx_usc_decoded *p;
   LLVMValueRef r, base_u, base_sr, lmask, off;
   /* the run's vagx_usc_iter: its points and planes (runs with jiter) */
   LLVMValueRef it_x, it_y, it_cf, it_ncf;
   /* per chunk: its points, and each W plane's values, once */
   LLVMValueRef cx, cy, cw[JIT_ROWS];
   /* per chunk */
   bool full;           /* every lane active: rows need no merge */
   LLVMValueRef mask;
   LLVMValueRef orig[JIT_ROWS], val[JIT_ROWS];
   bool written[JIT_ROWS];
   LLVMValueRef u[USC_NUM_U], sr[VAGX_SR_COUNT];
   LLVMValueRef row_a, row_r;   /* row_call's arguments, in the entry block */
};

static LLVMValueRef splat(struct em *e, uint32_t v)
{
   LLVMValueRef k[CL];
   for (int i = 0; i < CL; i++)
      k[i] = LLVMConstInt(e->i32, v, 0);
   return LLVMConstVector(k, CL);
}

static LLVMValueRef fsplat(struct em *e, uint32_t bits)
{
   return LLVMConstBitCast(splat(e, bits), e->v8f32);
}

static LLVMValueRef F(struct em *e, LLVMValueRef v)
{
   return LLVMBuildBitCast(e->b, v, e->v8f32, "");
}

static LLVMValueRef U(struct em *e, LLVMValueRef v)
{
   return LLVMBuildBitCast(e->b, v, e->v8i32, "");
}

static LLVMValueRef load_row(struct em *e, LLVMValueRef base, unsigned row)
{
   LLVMValueRef idx = LLVMBuildAdd(e->b, e->off, LLVMConstInt(e->i64, (uint64_t)row * L, 0), "");
   LLVMValueRef ptr = LLVMBuildGEP2(e->b, e->i32, base, &idx, 1, "");
   LLVMValueRef v = LLVMBuildLoad2(e->b, e->v8i32, LLVMBuildBitCast(e->b, ptr, e->pv8, ""), "");
   LLVMSetAlignment(v, 4);
   return v;
}

static void store_row(struct em *e, unsigned row, LLVMValueRef v)
{
   LLVMValueRef idx = LLVMBuildAdd(e->b, e->off, LLVMConstInt(e->i64, (uint64_t)row * L, 0), "");
   LLVMValueRef ptr = LLVMBuildGEP2(e->b, e->i32, e->r, &idx, 1, "");
   LLVMValueRef s = LLVMBuildStore(e->b, v, LLVMBuildBitCast(e->b, ptr, e->pv8, ""));
   LLVMSetAlignment(s, 4);
}

static LLVMValueRef chunk_mask(struct em *e)
{
   if (!e->mask) {
      LLVMValueRef ptr = LLVMBuildGEP2(e->b, e->i32, e->lmask, &e->off, 1, "");
      e->mask = LLVMBuildLoad2(e->b, e->v8i32, LLVMBuildBitCast(e->b, ptr, e->pv8, ""), "mask");
      LLVMSetAlignment(e->mask, 4);
   }
   return e->mask;
}

static LLVMValueRef orig_row(struct em *e, unsigned row)
{
   if (!e->orig[row])
      e->orig[row] = load_row(e, e->r, row);
   return e->orig[row];
}

/* (old & ~m) | (v & m): usc_wb's merge */
static LLVMValueRef blend(struct em *e, LLVMValueRef old, LLVMValueRef v, LLVMValueRef m)
{
   LLVMValueRef keep = LLVMBuildAnd(e->b, old, LLVMBuildNot(e->b, m, ""), "");
   return LLVMBuildOr(e->b, keep, LLVMBuildAnd(e->b, v, m, ""), "");
}

/* Register row: in active lanes what memory would hold now; `whole`: in every
 * lane (inactive lanes keep the value from before the run), for the
 * derivatives, which read their quad neighbours. */
static LLVMValueRef reg_row(struct em *e, unsigned row, bool whole)
{
   if (!e->written[row])
      return orig_row(e, row);
   if (!whole || e->full)
      return e->val[row];
   return blend(e, orig_row(e, row), e->val[row], chunk_mask(e));
}

/* Source s of o after its modifiers (usc_src). */
static LLVMValueRef src(struct em *e, const struct usc_op *o, unsigned s, bool whole)
{
   const struct usc_src *r = &o->src[s];
   LLVMValueRef v;
   switch (r->bfile) {
   case USC_B_R:
      v = reg_row(e, r->idx, whole);
      break;
   case USC_B_U:
      if (!e->u[r->idx])
         e->u[r->idx] = load_row(e, e->base_u, r->idx);
      v = e->u[r->idx];
      break;
   case USC_B_SR:
      if (!e->sr[r->idx])
         e->sr[r->idx] = load_row(e, e->base_sr, r->idx);
      v = e->sr[r->idx];
      break;
   default: /* USC_B_IMM: broadcast, a constant of the program */
      v = splat(e, e->p->imm[r->idx][0]);
      break;
   }
   if (r->xf & USC_XF_HI)
      v = LLVMBuildLShr(e->b, v, splat(e, 16), "");
   if (r->xf & (USC_XF_LO | USC_XF_HI))
      v = LLVMBuildAnd(e->b, v, splat(e, 0xffff), "");
   if (r->xf & USC_XF_ABS)
      v = LLVMBuildAnd(e->b, v, splat(e, 0x7fffffff), "");
   if (r->xf & USC_XF_NEG)
      v = LLVMBuildXor(e->b, v, splat(e, 0x80000000u), "");
   return v;
}

static LLVMValueRef intr(struct em *e, const char *name, LLVMTypeRef *ovl, unsigned novl,
                         LLVMValueRef *args, unsigned nargs)
{
   unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
   LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->m, id, ovl, novl);
   LLVMTypeRef ty = LLVMIntrinsicGetType(e->c, id, ovl, novl);
   return LLVMBuildCall2(e->b, ty, fn, args, nargs, "");
}

static LLVMValueRef fintr1(struct em *e, const char *name, LLVMValueRef f)
{
   LLVMTypeRef t = LLVMTypeOf(f);
   return intr(e, name, &t, 1, &f, 1);
}

static LLVMValueRef iintr(struct em *e, const char *name, LLVMValueRef *args, unsigned n)
{
   return intr(e, name, &e->v8i32, 1, args, n);
}

/* usc_canon: float -> bits, NaN canonical */
static LLVMValueRef canon(struct em *e, LLVMValueRef f)
{
   LLVMValueRef nan = LLVMBuildFCmp(e->b, LLVMRealUNO, f, f, "");
   return LLVMBuildSelect(e->b, nan, splat(e, USC_QNAN), U(e, f), "");
}

/* usc_sat on bits */
static LLVMValueRef sat(struct em *e, LLVMValueRef u)
{
   LLVMValueRef f = F(e, u);
   LLVMValueRef gt0 = LLVMBuildFCmp(e->b, LLVMRealOGT, f, fsplat(e, 0), "");
   LLVMValueRef lt1 = LLVMBuildFCmp(e->b, LLVMRealOLT, f, fsplat(e, usc_u(1.0f)), "");
   LLVMValueRef in = LLVMBuildSelect(e->b, lt1, u, splat(e, usc_u(1.0f)), "");
   return LLVMBuildSelect(e->b, gt0, in, splat(e, 0), "");
}

static LLVMValueRef mask_of(struct em *e, LLVMValueRef cond)
{
   return LLVMBuildSExt(e->b, cond, e->v8i32, "");
}

static LLVMValueRef lanes_call(struct em *e, lane_fn h, LLVMValueRef x, LLVMValueRef y,
                               LLVMValueRef z)
{
   LLVMTypeRef at[3] = { e->i32, e->i32, e->i32 };
   LLVMTypeRef fty = LLVMFunctionType(e->i32, at, 3, 0);
   LLVMValueRef fp = LLVMConstIntToPtr(LLVMConstInt(e->i64, (uint64_t)(uintptr_t)h, 0),
                                       LLVMPointerType(fty, 0));
   LLVMValueRef v = LLVMGetUndef(e->v8i32);
   LLVMValueRef in[3] = { x, y, z };
   for (unsigned k = 0; k < CL; k++) {
      LLVMValueRef lane = LLVMConstInt(e->i32, k, 0), a[3];
      for (unsigned j = 0; j < 3; j++)
         a[j] = in[j] ? LLVMBuildExtractElement(e->b, in[j], lane, "") : LLVMConstInt(e->i32, 0, 0);
      v = LLVMBuildInsertElement(e->b, v, LLVMBuildCall2(e->b, fty, fp, a, 3, ""), lane, "");
   }
   return v;
}

/* h(r, a) on the chunk x through the function's two row slots */
static LLVMValueRef row_call(struct em *e, row_fn h, LLVMValueRef x)
{
   LLVMTypeRef at[2] = { e->p32, e->p32 };
   LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(e->c), at, 2, 0);
   LLVMValueRef fp = LLVMConstIntToPtr(LLVMConstInt(e->i64, (uint64_t)(uintptr_t)h, 0),
                                       LLVMPointerType(fty, 0));
   LLVMBuildStore(e->b, x, e->row_a);
   LLVMValueRef a[2] = { LLVMBuildBitCast(e->b, e->row_r, e->p32, ""),
                         LLVMBuildBitCast(e->b, e->row_a, e->p32, "") };
   LLVMBuildCall2(e->b, fty, fp, a, 2, "");
   return LLVMBuildLoad2(e->b, e->v8i32, e->row_r, "");
}

static LLVMValueRef shuffle(struct em *e, LLVMValueRef v, const unsigned idx[CL])
{
   LLVMValueRef k[CL];
   for (int i = 0; i < CL; i++)
      k[i] = LLVMConstInt(e->i32, idx[i], 0);
   return LLVMBuildShuffleVector(e->b, v, LLVMGetUndef(e->v8i32), LLVMConstVector(k, CL), "");
}

/* round_mode() of usc_alu.c */
static LLVMValueRef round_mode(struct em *e, LLVMValueRef f, unsigned mode)
{
   switch (mode) {
   case VAGX_RMODE_RNE: return fintr1(e, "llvm.rint", f);
   case VAGX_RMODE_RDN: return fintr1(e, "llvm.floor", f);
   case VAGX_RMODE_RUP: return fintr1(e, "llvm.ceil", f);
   default: return fintr1(e, "llvm.trunc", f);
   }
}

static LLVMValueRef msb(struct em *e, LLVMValueRef x)
{
   /* 31 - ctlz(x), ctlz(0) = 32: ~0 for 0, as msb() */
   LLVMValueRef a[2] = { x, LLVMConstInt(LLVMInt1TypeInContext(e->c), 0, 0) };
   return LLVMBuildSub(e->b, splat(e, 31), iintr(e, "llvm.ctlz", a, 2), "");
}

/* Plane i of the run as a pointer to its doubles (a, b, c, then flat's
 * bits), or the constant plane `none` when the run has no plane i (usc.h). */
static LLVMValueRef plane_ptr(struct em *e, unsigned i, const struct vagx_usc_plane *none)
{
   LLVMBuilderRef b = e->b;
   LLVMValueRef k = LLVMConstInt(e->i64, (uint64_t)i * (sizeof(struct vagx_usc_plane) / 8), 0);
   LLVMValueRef have = LLVMBuildICmp(b, LLVMIntULT, LLVMConstInt(e->i32, i, 0), e->it_ncf, "");
   LLVMValueRef none_p = LLVMConstIntToPtr(LLVMConstInt(e->i64, (uint64_t)(uintptr_t)none, 0), e->pf64);
   return LLVMBuildSelect(b, have, LLVMBuildGEP2(b, e->f64, e->it_cf, &k, 1, ""), none_p, "");
}

static LLVMValueRef dsplat(struct em *e, LLVMValueRef d)
{
   LLVMValueRef v = LLVMBuildInsertElement(e->b, LLVMGetUndef(e->v8f64), d,
                                           LLVMConstInt(e->i32, 0, 0), "");
   LLVMValueRef zero[CL];
   for (int i = 0; i < CL; i++)
      zero[i] = LLVMConstInt(e->i32, 0, 0);
   return LLVMBuildShuffleVector(e->b, v, LLVMGetUndef(e->v8f64), LLVMConstVector(zero, CL), "");
}

/* c + a*x + b*y over the chunk, in that order (usc_iter.c) */
static LLVMValueRef plane_at(struct em *e, LLVMValueRef pl, LLVMValueRef x, LLVMValueRef y)
{
   LLVMBuilderRef b = e->b;
   LLVMValueRef k[3];
   for (unsigned i = 0; i < 3; i++) {
      LLVMValueRef idx = LLVMConstInt(e->i64, i, 0);
      k[i] = dsplat(e, LLVMBuildLoad2(b, e->f64, LLVMBuildGEP2(b, e->f64, pl, &idx, 1, ""), ""));
   }
   LLVMValueRef v = LLVMBuildFAdd(b, k[2], LLVMBuildFMul(b, k[0], x, ""), "");
   return LLVMBuildFAdd(b, v, LLVMBuildFMul(b, k[1], y, ""), "");
}

static LLVMValueRef load_lanes_f64(struct em *e, LLVMValueRef base)
{
   LLVMValueRef ptr = LLVMBuildGEP2(e->b, e->f64, base, &e->off, 1, "");
   LLVMValueRef v = LLVMBuildLoad2(e->b, e->v8f64,
                                   LLVMBuildBitCast(e->b, ptr, LLVMPointerType(e->v8f64, 0), ""), "");
   LLVMSetAlignment(v, 8);
   return v;
}

/* iter / ldcf (jit_iter_op): usc_iter.c's operations */
static LLVMValueRef emit_iter(struct em *e, const struct usc_op *o)
{
   LLVMBuilderRef b = e->b;
   if (o->I.op == VAGX_OP_LDCF) {
      LLVMValueRef pl = plane_ptr(e, o->I.src[0].idx, &usc_zero_plane);
      LLVMValueRef idx = LLVMConstInt(e->i64, offsetof(struct vagx_usc_plane, flat) / 4, 0);
      LLVMValueRef fp = LLVMBuildGEP2(b, e->i32, LLVMBuildBitCast(b, pl, e->p32, ""), &idx, 1, "");
      LLVMValueRef flat = LLVMBuildLoad2(b, e->i32, fp, "");
      LLVMValueRef v = LLVMBuildInsertElement(b, LLVMGetUndef(e->v8i32), flat, LLVMConstInt(e->i32, 0, 0), "");
      return LLVMBuildShuffleVector(b, v, LLVMGetUndef(e->v8i32), splat(e, 0), "");
   }
   if (!e->cx) {
      e->cx = load_lanes_f64(e, e->it_x);
      e->cy = load_lanes_f64(e, e->it_y);
   }
   LLVMValueRef v = plane_at(e, plane_ptr(e, o->I.src[0].idx, &usc_zero_plane), e->cx, e->cy);
   if (VAGX_MOD_ITER_PERSP(o->I.mod)) {
      const unsigned wi = o->I.src[1].idx;
      if (!e->cw[wi])
         e->cw[wi] = plane_at(e, plane_ptr(e, wi, &usc_one_plane), e->cx, e->cy);
      v = LLVMBuildFDiv(b, v, e->cw[wi], "");
   }
   return U(e, LLVMBuildFPTrunc(b, v, e->v8f32, ""));
}

/* The result of o (bits, before the write-back); *fw: the interpreter writes
 * it with fwb() (saturate when .sat). */
static LLVMValueRef emit_op(struct em *e, const struct usc_op *o, bool *fw)
{
   static const LLVMRealPredicate fcond[VAGX_FCOND_COUNT] = {
      LLVMRealOEQ, LLVMRealONE, LLVMRealOLT, LLVMRealOLE, LLVMRealOGT, LLVMRealOGE, LLVMRealORD,
      LLVMRealUEQ, LLVMRealUNE, LLVMRealULT, LLVMRealULE, LLVMRealUGT, LLVMRealUGE, LLVMRealUNO,
   };
   static const LLVMIntPredicate icond[VAGX_ICOND_COUNT] = {
      LLVMIntEQ, LLVMIntNE, LLVMIntSLT, LLVMIntSLE, LLVMIntSGT,
      LLVMIntSGE, LLVMIntULT, LLVMIntULE, LLVMIntUGT, LLVMIntUGE,
   };
   const struct vagx_instr *I = &o->I;
   if (jit_iter_op(o)) {
      *fw = false; /* usc_wb */
      return emit_iter(e, o);
   }
   const bool deriv = I->op == VAGX_OP_FDDX || I->op == VAGX_OP_FDDY;
   LLVMBuilderRef b = e->b;
   LLVMValueRef x = o->nsrc > 0 ? src(e, o, 0, deriv) : NULL;
   LLVMValueRef y = o->nsrc > 1 ? src(e, o, 1, false) : NULL;
   LLVMValueRef z = o->nsrc > 2 ? src(e, o, 2, false) : NULL;
   LLVMValueRef t, a[3];
   *fw = true;
   switch (I->op) {
   /* float: fwb() */
   case VAGX_OP_FMOV: return canon(e, F(e, x));
   case VAGX_OP_FSEL: {
      /* (x != 0 && x == x): ordered and not equal */
      LLVMValueRef c = LLVMBuildFCmp(b, LLVMRealONE, F(e, x), fsplat(e, 0), "");
      return LLVMBuildSelect(b, c, y, z, "");
   }
   case VAGX_OP_FADD: return canon(e, LLVMBuildFAdd(b, F(e, x), F(e, y), ""));
   case VAGX_OP_FMUL: return canon(e, LLVMBuildFMul(b, F(e, x), F(e, y), ""));
   case VAGX_OP_FFMA:
      a[0] = F(e, x), a[1] = F(e, y), a[2] = F(e, z);
      return canon(e, intr(e, "llvm.fma", &e->v8f32, 1, a, 3));
   case VAGX_OP_FMIN:
   case VAGX_OP_FMAX: {
      /* usc_fmin/usc_fmax: a NaN gives the other operand; -0 < +0.  Equal
       * operands are bitwise equal but for a pair of zeros, whose min is
       * x | y and max x & y.  The zero case is tested as integers: a select
       * on an fcmp oeq between x and y let LLVM 14's code generator
       * substitute one operand for the other, which is wrong for +-0. */
      const bool mn = I->op == VAGX_OP_FMIN;
      LLVMValueRef fx = F(e, x), fy = F(e, y);
      LLVMValueRef r = LLVMBuildSelect(b, LLVMBuildFCmp(b, mn ? LLVMRealOLT : LLVMRealOGT, fx, fy, ""),
                                       x, y, "");
      LLVMValueRef both = LLVMBuildOr(b, x, y, "");
      LLVMValueRef zeros = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, both, splat(e, 0x7fffffffu), ""),
                                         splat(e, 0), "");
      r = LLVMBuildSelect(b, zeros, mn ? both : LLVMBuildAnd(b, x, y, ""), r, "");
      r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, fy, fy, ""), x, r, "");
      r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, fx, fx, ""), y, r, "");
      return canon(e, F(e, r));
   }
   case VAGX_OP_FFLOOR: return canon(e, fintr1(e, "llvm.floor", F(e, x)));
   case VAGX_OP_FCEIL: return canon(e, fintr1(e, "llvm.ceil", F(e, x)));
   case VAGX_OP_FTRUNC: return canon(e, fintr1(e, "llvm.trunc", F(e, x)));
   case VAGX_OP_FRND: return canon(e, fintr1(e, "llvm.rint", F(e, x)));
   case VAGX_OP_FFRACT: {
      LLVMValueRef fx = F(e, x);
      LLVMValueRef f = LLVMBuildFSub(b, fx, fintr1(e, "llvm.floor", fx), "");
      LLVMValueRef big = LLVMBuildFCmp(b, LLVMRealOGT, f, fsplat(e, 0x3f7fffffu), "");
      return canon(e, LLVMBuildSelect(b, big, fsplat(e, 0x3f7fffffu), f, ""));
   }
   case VAGX_OP_FRCP: return canon(e, LLVMBuildFDiv(b, fsplat(e, usc_u(1.0f)), F(e, x), ""));
   case VAGX_OP_FRSQRT: {
      /* (float)(1.0 / sqrt((double)x)) */
      LLVMValueRef d = LLVMBuildFPExt(b, F(e, x), e->v8f64, "");
      LLVMValueRef one[CL];
      for (int i = 0; i < CL; i++)
         one[i] = LLVMConstReal(LLVMDoubleTypeInContext(e->c), 1.0);
      d = LLVMBuildFDiv(b, LLVMConstVector(one, CL), fintr1(e, "llvm.sqrt", d), "");
      return canon(e, LLVMBuildFPTrunc(b, d, e->v8f32, ""));
   }
   case VAGX_OP_FSQRT: return canon(e, fintr1(e, "llvm.sqrt", F(e, x)));
   case VAGX_OP_FEXP2: return row_call(e, ROW_FN(exp2), x);
   case VAGX_OP_FLOG2: return row_call(e, ROW_FN(log2), x);
   case VAGX_OP_FSIN: return lanes_call(e, jh_sin, x, NULL, NULL);
   case VAGX_OP_FCOS: return lanes_call(e, jh_cos, x, NULL, NULL);
   case VAGX_OP_FDDX:
   case VAGX_OP_FDDY: {
      /* lanes 4q+0..3 are (0,0), (1,0), (0,1), (1,1) */
      static const unsigned i0[4][CL] = {
         { 0, 0, 2, 2, 4, 4, 6, 6 }, { 0, 1, 0, 1, 4, 5, 4, 5 }, /* fine x, y */
         { 0, 0, 0, 0, 4, 4, 4, 4 }, { 0, 0, 0, 0, 4, 4, 4, 4 }, /* coarse x, y */
      };
      static const unsigned i1[4][CL] = {
         { 1, 1, 3, 3, 5, 5, 7, 7 }, { 2, 3, 2, 3, 6, 7, 6, 7 },
         { 1, 1, 1, 1, 5, 5, 5, 5 }, { 2, 2, 2, 2, 6, 6, 6, 6 },
      };
      const unsigned k = (I->mod ? 2 : 0) + (I->op == VAGX_OP_FDDY);
      return canon(e, LLVMBuildFSub(b, F(e, shuffle(e, x, i1[k])), F(e, shuffle(e, x, i0[k])), ""));
   }
   case VAGX_OP_I2F: return U(e, LLVMBuildSIToFP(b, x, e->v8f32, ""));
   case VAGX_OP_U2F: return U(e, LLVMBuildUIToFP(b, x, e->v8f32, ""));
   case VAGX_OP_H2F: return lanes_call(e, jh_h2f, x, NULL, NULL);
   default:
      break;
   }
   /* the rest: usc_wb(), no saturate */
   *fw = false;
   switch (I->op) {
   case VAGX_OP_MOV: return x;
   case VAGX_OP_SEL:
      return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntNE, x, splat(e, 0), ""), y, z, "");
   case VAGX_OP_FCMP:
      return mask_of(e, LLVMBuildFCmp(b, fcond[(I->mod & 15) % VAGX_FCOND_COUNT], F(e, x), F(e, y), ""));
   case VAGX_OP_ICMP:
      return mask_of(e, LLVMBuildICmp(b, icond[(I->mod & 15) % VAGX_ICOND_COUNT], x, y, ""));
   case VAGX_OP_F2I:
   case VAGX_OP_F2U: {
      /* saturating conversions: NaN 0, out of range clamped (f2i, f2u) */
      LLVMTypeRef ov[2] = { e->v8i32, e->v8f32 };
      a[0] = round_mode(e, F(e, x), I->mod);
      return intr(e, I->op == VAGX_OP_F2I ? "llvm.fptosi.sat" : "llvm.fptoui.sat", ov, 2, a, 1);
   }
   case VAGX_OP_F2H: return lanes_call(e, jh_f2h, x, NULL, NULL);
   case VAGX_OP_IADD: return LLVMBuildAdd(b, x, y, "");
   case VAGX_OP_ISUB: return LLVMBuildSub(b, x, y, "");
   case VAGX_OP_IMUL: return LLVMBuildMul(b, x, y, "");
   case VAGX_OP_IMULHI:
   case VAGX_OP_UMULHI: {
      const bool s = I->op == VAGX_OP_IMULHI;
      LLVMValueRef wx = s ? LLVMBuildSExt(b, x, e->v8i64, "") : LLVMBuildZExt(b, x, e->v8i64, "");
      LLVMValueRef wy = s ? LLVMBuildSExt(b, y, e->v8i64, "") : LLVMBuildZExt(b, y, e->v8i64, "");
      LLVMValueRef k[CL];
      for (int i = 0; i < CL; i++)
         k[i] = LLVMConstInt(e->i64, 32, 0);
      t = LLVMBuildLShr(b, LLVMBuildMul(b, wx, wy, ""), LLVMConstVector(k, CL), "");
      return LLVMBuildTrunc(b, t, e->v8i32, "");
   }
   case VAGX_OP_IMAD: return LLVMBuildAdd(b, LLVMBuildMul(b, x, y, ""), z, "");
   case VAGX_OP_IDIV: return lanes_call(e, jh_idiv, x, y, NULL);
   case VAGX_OP_UDIV: return lanes_call(e, jh_udiv, x, y, NULL);
   case VAGX_OP_IREM: return lanes_call(e, jh_irem, x, y, NULL);
   case VAGX_OP_UMOD: return lanes_call(e, jh_umod, x, y, NULL);
   case VAGX_OP_IADD_SAT: a[0] = x, a[1] = y; return iintr(e, "llvm.sadd.sat", a, 2);
   case VAGX_OP_UADD_SAT: a[0] = x, a[1] = y; return iintr(e, "llvm.uadd.sat", a, 2);
   case VAGX_OP_ISUB_SAT: a[0] = x, a[1] = y; return iintr(e, "llvm.ssub.sat", a, 2);
   case VAGX_OP_USUB_SAT: a[0] = x, a[1] = y; return iintr(e, "llvm.usub.sat", a, 2);
   case VAGX_OP_IMIN: return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, y, ""), x, y, "");
   case VAGX_OP_IMAX: return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, x, y, ""), x, y, "");
   case VAGX_OP_UMIN: return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, x, y, ""), x, y, "");
   case VAGX_OP_UMAX: return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, x, y, ""), x, y, "");
   case VAGX_OP_AND: return LLVMBuildAnd(b, x, y, "");
   case VAGX_OP_OR: return LLVMBuildOr(b, x, y, "");
   case VAGX_OP_XOR: return LLVMBuildXor(b, x, y, "");
   case VAGX_OP_NOT: return LLVMBuildNot(b, x, "");
   case VAGX_OP_SHL: return LLVMBuildShl(b, x, LLVMBuildAnd(b, y, splat(e, 31), ""), "");
   case VAGX_OP_SHR: return LLVMBuildLShr(b, x, LLVMBuildAnd(b, y, splat(e, 31), ""), "");
   case VAGX_OP_ASHR: return LLVMBuildAShr(b, x, LLVMBuildAnd(b, y, splat(e, 31), ""), "");
   case VAGX_OP_BFE: return lanes_call(e, I->mod ? jh_bfe_s : jh_bfe_u, x, y, z);
   case VAGX_OP_BFI: return lanes_call(e, jh_bfi, x, y, z);
   case VAGX_OP_POPCNT: return iintr(e, "llvm.ctpop", &x, 1);
   case VAGX_OP_BITREV: return iintr(e, "llvm.bitreverse", &x, 1);
   case VAGX_OP_FFS:
      a[0] = x, a[1] = LLVMConstInt(LLVMInt1TypeInContext(e->c), 0, 0);
      return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, x, splat(e, 0), ""), splat(e, ~0u),
                             iintr(e, "llvm.cttz", a, 2), "");
   case VAGX_OP_FMSB:
      if (I->mod) /* signed: the first bit that differs from the sign */
         x = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, splat(e, 0), ""),
                             LLVMBuildNot(b, x, ""), x, "");
      return msb(e, x);
   case VAGX_OP_PACK16:
      return LLVMBuildOr(b, LLVMBuildAnd(b, x, splat(e, 0xffff), ""),
                         LLVMBuildShl(b, y, splat(e, 16), ""), "");
   case VAGX_OP_SEXT: {
      LLVMTypeRef nt = LLVMVectorType(LLVMIntTypeInContext(e->c, I->mod ? 16 : 8), CL);
      return LLVMBuildSExt(b, LLVMBuildTrunc(b, x, nt, ""), e->v8i32, "");
   }
   case VAGX_OP_IABS:
      return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, splat(e, 0), ""),
                             LLVMBuildSub(b, splat(e, 0), x, ""), x, "");
   case VAGX_OP_INEG: return LLVMBuildSub(b, splat(e, 0), x, "");
   default:
      return NULL; /* jit_op_ok() keeps other ops out */
   }
}

/* The chunk loop over ops[0, n), from `from` to `done`; `full`: every lane
 * is active (no merge with the rows' old contents). */
static LLVMBasicBlockRef emit_loop(struct em *e, LLVMValueRef fn, LLVMBasicBlockRef from,
                                   LLVMBasicBlockRef done, const struct usc_op *ops, uint32_t n,
                                   bool full)
{
   LLVMBuilderRef b = e->b;
   LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(e->c, fn, full ? "full" : "masked");
   LLVMPositionBuilderAtEnd(b, loop);
   LLVMValueRef off = LLVMBuildPhi(b, e->i64, "off");
   e->off = off;
   e->full = full;
   e->mask = NULL;
   memset(e->orig, 0, sizeof(e->orig));
   memset(e->val, 0, sizeof(e->val));
   memset(e->written, 0, sizeof(e->written));
   memset(e->u, 0, sizeof(e->u));
   memset(e->sr, 0, sizeof(e->sr));
   e->cx = e->cy = NULL;
   memset(e->cw, 0, sizeof(e->cw));

   for (uint32_t i = 0; i < n; i++) {
      const struct usc_op *o = &ops[i];
      bool fw;
      LLVMValueRef res = emit_op(e, o, &fw);
      if (fw && o->I.sat)
         res = sat(e, res);
      const unsigned d = o->dst;
      if (o->dmask == ~0u) {
         e->val[d] = res;
      } else {
         /* half register: the other half of the row stays */
         LLVMValueRef cur = reg_row(e, d, false);
         if (o->dshift)
            res = LLVMBuildShl(b, res, splat(e, o->dshift), "");
         e->val[d] = LLVMBuildOr(b, LLVMBuildAnd(b, cur, splat(e, ~o->dmask), ""),
                                 LLVMBuildAnd(b, res, splat(e, o->dmask), ""), "");
      }
      e->written[d] = true;
   }
   for (unsigned d = 0; d < JIT_ROWS; d++)
      if (e->written[d])
         store_row(e, d, reg_row(e, d, true));

   LLVMValueRef next = LLVMBuildAdd(b, off, LLVMConstInt(e->i64, CL, 0), "");
   LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, next, LLVMConstInt(e->i64, L, 0), ""), loop, done);
   LLVMValueRef inv[2] = { LLVMConstInt(e->i64, 0, 0), next };
   LLVMBasicBlockRef inb[2] = { from, LLVMGetInsertBlock(b) };
   LLVMAddIncoming(off, inv, inb, 2);
   return loop;
}

static bool run_iterates(const struct usc_op *ops, uint32_t n)
{
   for (uint32_t i = 0; i < n; i++)
      if (jit_iter_op(&ops[i]))
         return true;
   return false;
}

/* One function for ops[0, n): a loop for a full mask and one that merges
 * with the lane mask. */
static LLVMValueRef emit_run(struct em *e, const char *name, const struct usc_op *ops, uint32_t n)
{
   LLVMTypeRef pp32 = LLVMPointerType(e->p32, 0);
   LLVMTypeRef at[5] = { e->p32, pp32, e->p32, e->i32, LLVMPointerType(LLVMInt8TypeInContext(e->c), 0) };
   LLVMValueRef fn = LLVMAddFunction(e->m, name, LLVMFunctionType(LLVMVoidTypeInContext(e->c), at, 5, 0));
   LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(e->c, fn, "entry");
   LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, fn, "done");
   LLVMBuilderRef b = e->b;

   /* the register file and lane mask do not alias the other files, and
    * nothing else runs meanwhile */
   unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
   LLVMAddAttributeAtIndex(fn, 1, LLVMCreateEnumAttribute(e->c, noalias, 0));

   LLVMPositionBuilderAtEnd(b, entry);
   /* vector-typed, so aligned for the row stores and loads */
   e->row_a = LLVMBuildAlloca(b, e->v8i32, "row_a");
   e->row_r = LLVMBuildAlloca(b, e->v8i32, "row_r");
   e->r = LLVMGetParam(fn, 0);
   LLVMValueRef base = LLVMGetParam(fn, 1);
   e->lmask = LLVMGetParam(fn, 2);
   LLVMValueRef k = LLVMConstInt(e->i64, USC_B_U, 0);
   e->base_u = LLVMBuildLoad2(b, e->p32, LLVMBuildGEP2(b, e->p32, base, &k, 1, ""), "u");
   k = LLVMConstInt(e->i64, USC_B_SR, 0);
   e->base_sr = LLVMBuildLoad2(b, e->p32, LLVMBuildGEP2(b, e->p32, base, &k, 1, ""), "sr");
   LLVMValueRef full = LLVMBuildICmp(b, LLVMIntEQ, LLVMGetParam(fn, 3), LLVMConstInt(e->i32, ~0u, 0), "");
   e->it_x = e->it_y = e->it_cf = e->it_ncf = NULL;
   if (run_iterates(ops, n)) {
      /* the fields of struct vagx_usc_iter (NULL for runs without iter) */
      LLVMTypeRef ppf64 = LLVMPointerType(e->pf64, 0);
      LLVMValueRef it = LLVMGetParam(fn, 4);
      LLVMValueRef f[3];
      static const size_t off[3] = { offsetof(struct vagx_usc_iter, x), offsetof(struct vagx_usc_iter, y),
                                     offsetof(struct vagx_usc_iter, cf) };
      for (unsigned i = 0; i < 3; i++) {
         LLVMValueRef byte = LLVMConstInt(e->i64, off[i], 0);
         LLVMValueRef p = LLVMBuildGEP2(b, LLVMInt8TypeInContext(e->c), it, &byte, 1, "");
         f[i] = LLVMBuildLoad2(b, e->pf64, LLVMBuildBitCast(b, p, ppf64, ""), "");
      }
      e->it_x = f[0], e->it_y = f[1], e->it_cf = f[2];
      LLVMValueRef byte = LLVMConstInt(e->i64, offsetof(struct vagx_usc_iter, ncf), 0);
      LLVMValueRef p = LLVMBuildGEP2(b, LLVMInt8TypeInContext(e->c), it, &byte, 1, "");
      e->it_ncf = LLVMBuildLoad2(b, e->i32, LLVMBuildBitCast(b, p, e->p32, ""), "ncf");
   }

   LLVMBasicBlockRef lfull = emit_loop(e, fn, entry, done, ops, n, true);
   LLVMBasicBlockRef lmasked = emit_loop(e, fn, entry, done, ops, n, false);
   LLVMPositionBuilderAtEnd(b, entry);
   LLVMBuildCondBr(b, full, lfull, lmasked);

   LLVMPositionBuilderAtEnd(b, done);
   LLVMBuildRetVoid(b);
   return fn;
}

struct run {
   uint32_t start, n;
};

/* The runs of p: maximal sequences of JIT-able ops, split at JIT_MAX_RUN
 * and before every br/jmp target, of at least JIT_MIN_RUN; runs[] (may be
 * NULL) gets them; returns their count, *instrs the instructions in them.
 * A jump lands on an op whose code is published only at a run's start: one
 * landing inside a run would interpret the rest of it (the compiler's
 * uniform branches and loops jump to such ops: the head of a loop, the
 * code after an if). */
static unsigned find_runs(const struct vagx_usc_decoded *p, struct run *runs, uint64_t *instrs)
{
   unsigned nruns = 0;
   *instrs = 0;
   bool *target = calloc((size_t)p->nops + 1, sizeof(bool));
   if (!target)
      return 0; /* nothing compiled: the interpreter runs it */
   for (uint32_t i = 0; i < p->nops; i++)
      if ((p->ops[i].I.op == VAGX_OP_BR || p->ops[i].I.op == VAGX_OP_JMP) &&
          p->ops[i].target < p->nops)
         target[p->ops[i].target] = true;
   for (uint32_t i = 0; i < p->nops;) {
      uint32_t n = 0;
      while (i + n < p->nops && n < JIT_MAX_RUN && jit_op_ok(&p->ops[i + n]) &&
             !(n && target[i + n]))
         n++;
      if (n >= JIT_MIN_RUN) {
         if (runs)
            runs[nruns] = (struct run){ i, n };
         nruns++;
         *instrs += n;
      }
      i += n ? n : 1;
   }
   free(target);
   return nruns;
}

size_t usc_jit_reserve(const struct vagx_usc_decoded *p)
{
   uint64_t instrs;
   if (!usc_jit_enabled() || !find_runs(p, NULL, &instrs))
      return 0;
   return JIT_BYTES_BASE + JIT_BYTES_PER_INSTR * (size_t)instrs;
}

static bool compile(struct vagx_usc_decoded *p)
{
   struct run *runs = malloc(((size_t)p->nops / JIT_MIN_RUN + 1) * sizeof(*runs));
   uint64_t jitted = 0, alu = 0;
   if (!runs)
      return false;
   const unsigned nruns = find_runs(p, runs, &jitted);
   for (uint32_t i = 0; i < p->nops; i++)
      alu += usc_alu_fn(&p->ops[i].I) != NULL;
   alu -= jitted;
   if (!nruns) {
      free(runs);
      return false;
   }
   pthread_once(&llvm_once, llvm_init);
   if (!jit_lljit) {
      free(runs);
      atomic_fetch_add(&st_failures, 1);
      return false;
   }

   struct em *e = calloc(1, sizeof(*e));
   struct usc_jit_prog *jp = calloc(1, sizeof(*jp));
   LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
   if (!e || !jp) {
      free(e);
      free(jp);
      free(runs);
      LLVMOrcDisposeThreadSafeContext(tsc);
      atomic_fetch_add(&st_failures, 1);
      return false;
   }
   const uint64_t serial = atomic_fetch_add(&jit_serial, 1);
   e->p = p;
   e->c = LLVMOrcThreadSafeContextGetContext(tsc);
   e->m = LLVMModuleCreateWithNameInContext("vagx_usc", e->c);
   e->b = LLVMCreateBuilderInContext(e->c);
   e->i32 = LLVMInt32TypeInContext(e->c);
   e->i64 = LLVMInt64TypeInContext(e->c);
   e->v8i32 = LLVMVectorType(e->i32, CL);
   e->v8f32 = LLVMVectorType(LLVMFloatTypeInContext(e->c), CL);
   e->v8i64 = LLVMVectorType(e->i64, CL);
   e->f64 = LLVMDoubleTypeInContext(e->c);
   e->v8f64 = LLVMVectorType(e->f64, CL);
   e->pf64 = LLVMPointerType(e->f64, 0);
   e->p32 = LLVMPointerType(e->i32, 0);
   e->pv8 = LLVMPointerType(e->v8i32, 0);
   char name[64];
   for (unsigned k = 0; k < nruns; k++) {
      snprintf(name, sizeof(name), "vagx_usc_%llu_%u", (unsigned long long)serial, k);
      emit_run(e, name, &p->ops[runs[k].start], runs[k].n);
   }
   LLVMDisposeBuilder(e->b);
   if (getenv("VAGX_USC_JIT_DUMP"))
      LLVMPrintModuleToFile(e->m, getenv("VAGX_USC_JIT_DUMP"), NULL);

   LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(jit_lljit);
   jp->rt = LLVMOrcJITDylibCreateResourceTracker(jd);
   LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(e->m, tsc);
   LLVMOrcDisposeThreadSafeContext(tsc);
   LLVMErrorRef err = LLVMOrcLLJITAddLLVMIRModuleWithRT(jit_lljit, jp->rt, tsm);
   usc_jfn *fns = calloc(nruns, sizeof(*fns));
   bool ok = !err && fns;
   if (err) {
      jit_error("add module", err);
      LLVMOrcDisposeThreadSafeModule(tsm);
   }
   for (unsigned k = 0; ok && k < nruns; k++) {
      LLVMOrcExecutorAddress addr = 0;
      snprintf(name, sizeof(name), "vagx_usc_%llu_%u", (unsigned long long)serial, k);
      err = LLVMOrcLLJITLookup(jit_lljit, &addr, name);
      if (err) {
         jit_error("lookup", err);
         ok = false;
      }
      fns[k] = (usc_jfn)(uintptr_t)addr;
   }
   free(e);
   if (!ok) {
      err = LLVMOrcResourceTrackerRemove(jp->rt);
      if (err)
         jit_error("remove", err);
      LLVMOrcReleaseResourceTracker(jp->rt);
      free(jp);
      free(fns);
      free(runs);
      atomic_fetch_add(&st_failures, 1);
      return false;
   }
   p->jit = jp;
   for (unsigned k = 0; k < nruns; k++) {
      struct usc_op *o = &p->ops[runs[k].start];
      o->jn = runs[k].n;
      o->jiter = run_iterates(o, runs[k].n);
      __atomic_store_n(&o->jit, fns[k], __ATOMIC_RELEASE);
   }
   if (env_debug)
      fprintf(stderr, "vagx usc jit: program of %u instructions: %u runs, %llu instructions compiled\n",
              p->nops, nruns, (unsigned long long)jitted);
   atomic_fetch_add(&st_programs, 1);
   atomic_fetch_add(&st_live, 1);
   atomic_fetch_add(&st_runs, nruns);
   atomic_fetch_add(&st_instrs, jitted);
   atomic_fetch_add(&st_skipped, alu);
   free(fns);
   free(runs);
   return true;
}

/* One compile at a time in the process: an LLJIT without compile threads
 * compiles with one shared TargetMachine, which is not thread-safe (two
 * render workers compiling at once produced code with a constant-pool
 * address of -1: the drm-shim's GL tests crashed).  Compiles are rare (once
 * per program); a program whose compile finds the lock taken stays cold and
 * tries again at a later run. */
static pthread_mutex_t compile_lock = PTHREAD_MUTEX_INITIALIZER;

bool usc_jit_compile(struct vagx_usc_decoded *p)
{
   uint32_t cold = USC_JIT_COLD;
   if (!usc_jit_enabled() ||
       !atomic_compare_exchange_strong(&p->jit_state, &cold, USC_JIT_COMPILING))
      return false;
   if (pthread_mutex_trylock(&compile_lock)) {
      atomic_store_explicit(&p->jit_state, USC_JIT_COLD, memory_order_relaxed);
      return false;
   }
   bool ok = compile(p);
   pthread_mutex_unlock(&compile_lock);
   atomic_store_explicit(&p->jit_state, USC_JIT_DONE, memory_order_release);
   return ok;
}

void usc_jit_free(struct vagx_usc_decoded *p)
{
   struct usc_jit_prog *jp = p->jit;
   if (!jp)
      return;
   LLVMErrorRef err = LLVMOrcResourceTrackerRemove(jp->rt);
   if (err)
      jit_error("remove", err);
   LLVMOrcReleaseResourceTracker(jp->rt);
   free(jp);
   p->jit = NULL;
   atomic_fetch_sub(&st_live, 1);
}

#endif
