/* Internal structures of the USC interpreter: the pre-decoded program and the
 * state of a running SIMD group, plus the operand fetch/writeback helpers every
 * handler uses.  Handlers compute all 32 lanes and write back under the mask, so
 * each instruction is one indirect call plus loops the compiler vectorises. */
#ifndef VAGX_USC_PRIV_H
#define VAGX_USC_PRIV_H

#include <stdatomic.h>
#include <string.h>

#include "usc.h"

#define L VAGX_USC_LANES

struct usc_grp;
struct usc_op;
typedef void (*usc_fn)(struct usc_grp *g, const struct usc_op *o);
/* Gang handler: the same instruction for groups g[0..n) that are all at it
 * (lockstep execution of converged SIMD groups, see usc_exec.c).  Only for
 * instructions that cannot fail and do not touch pc, exec or state. */
typedef void (*usc_gfn)(struct usc_grp *g, unsigned n, const struct usc_op *o);
/* Gang attempt for instructions that can fail (memory): runs the instruction
 * for all groups g[0..n) and returns true, or does nothing observable and
 * returns false (then each group runs fn in turn, which reports any fault). */
typedef bool (*usc_gtry)(struct usc_grp *g, unsigned n, const struct usc_op *o);
/* A JIT-compiled run of ALU instructions (usc_jit.c): r is the group's
 * register file, base its source files (struct usc_grp.base), lmask and exec
 * its lane mask, it the run's iterator inputs (vagx_usc_env.iter: never NULL
 * for a run with iter or ldcf, usc_op.jiter); writes the run's destinations
 * under the mask, exactly as the interpreter would. */
typedef void (*usc_jfn)(uint32_t *r, const uint32_t *const *base, const uint32_t *lmask,
                        uint32_t exec, const struct vagx_usc_iter *it);

/* Where a source lives at run time: base array + index*32. */
/* Uniform registers: every value of a source's 8-bit index (struct vagx_src). */
#define USC_NUM_U (UINT8_MAX + 1)

enum usc_bfile { USC_B_R, USC_B_U, USC_B_SR, USC_B_IMM, USC_B_CF, USC_B_COUNT };

/* Source transform: half select then sign ops (bit ops, exact). */
enum { USC_XF_LO = 1, USC_XF_HI = 2, USC_XF_ABS = 4, USC_XF_NEG = 8 };

struct usc_src {
   uint8_t bfile, xf;
   uint16_t idx;   /* index within the base file (imm: program imm slot) */
};

struct usc_op {
   usc_fn fn;
   /* JIT code for the run of jn instructions starting here, NULL; published
    * once by usc_jit_compile() (read with usc_op_jit()) */
   usc_jfn jit;
   uint32_t jn;
   bool jiter;          /* the run has iter or ldcf: it needs vagx_usc_env.iter */
   usc_gfn gfn;         /* NULL: run fn once per group */
   usc_gtry gtry;       /* NULL: run fn once per group */
   struct usc_src src[3];
   uint16_t dst;
   uint8_t dshift;      /* 0, or 16 for a high-half destination */
   uint8_t nsrc;
   /* a graphics instruction whose vec4 result may be written by the
    * renderer straight into the registers when every lane runs: its
    * destination rows are none of the rows it reads (usc_exec.c, op_gfx) */
   bool gfx_direct;
   uint8_t gfx_copy;    /* then: scalar sources in the destination's rows, copied first */
   uint32_t dmask;      /* bits of the destination written */
   uint32_t target;     /* cf: op index of the matching else/endif, loop body, jump target */
   uint32_t skip;       /* op index to continue at when no lane is left active */
   uint32_t pc;         /* byte offset of the instruction */
   struct vagx_instr I;
};

struct vagx_usc_decoded {
   struct usc_op *ops;   /* nops + 1: the last is an implicit end */
   uint32_t nops;
   uint32_t (*imm)[L];   /* broadcast immediates */
   uint32_t nimm;
   uint64_t *code;       /* the code words, for cache revalidation */
   uint32_t nwords;
   uint32_t nregs;       /* GPRs touched: r0..nregs-1 */
   /* private stack bytes the program's stack_ld/stack_st reach, counting
    * only accesses within VAGX_MAX_STACK_BYTES (the others always fault):
    * the executor keeps this many per lane, after the registers */
   uint32_t stack_bytes;
   uint64_t sr_used;     /* bit per special register (all: a graphics hook may read them) */
   uint64_t u_used[USC_NUM_U / 64]; /* bit per uniform register */
   /* cache bookkeeping (usc_cache.c) */
   uint64_t root, va, gen;
   struct vagx_usc_decoded *next;            /* hash chain */
   struct vagx_usc_decoded *lru_prev, *lru_next;
   _Atomic uint32_t refs;                    /* the cache's + every user's */
   size_t bytes;                             /* host memory of the program */
   /* JIT (usc_jit.c): state, runs seen before compiling, compiled code */
   _Atomic uint32_t jit_state, jit_heat;
   struct usc_jit_prog *jit;
};

enum usc_state { USC_RUNNING, USC_BARRIER, USC_DONE, USC_ERROR };

struct usc_frame {
   uint32_t saved;   /* active mask at if/loop */
   uint32_t taken;   /* if: lanes that took it */
   uint32_t brk, cont;
   int8_t is_loop;
   int8_t outer_loop; /* frame index of the enclosing loop, -1 */
};

struct usc_tlb {
   uint64_t va, end;
   uint8_t *host;
};

/* State shared by the groups of one run call. */
struct usc_run {
   const struct vagx_usc_env *env;
   const struct vagx_usc_decoded *prog;
   struct vagx_usc_result *res;
   uint8_t *shared;
   uint32_t shared_size;
   uint32_t stack_size;  /* private stack bytes a lane may access */
   uint64_t icount, next_check;
   bool jit;           /* run JIT code where the program has it */
   uint64_t jit_limit; /* the budget, or UINT64_MAX (usc_exec.c: jit_ok) */
   const struct vagx_usc_iter *iter; /* env->iter */
   struct usc_tlb tlb_r, tlb_w;
};

struct usc_grp {
   const uint32_t *base[USC_B_COUNT];
   uint32_t *r;
   uint32_t *pstack;   /* private stack: rows of 32 lanes' words, as r */
   uint32_t exec, killed;
   uint32_t pc;
   int sp, loop;       /* stack depth, innermost loop frame (-1) */
   int state;
   unsigned id;
   struct usc_run *run;
   uint32_t lmask[L];  /* exec as per-lane all-ones/zero, for branch-free writeback */
   uint32_t sr[VAGX_SR_COUNT][L];
   struct usc_frame stack[VAGX_USC_MAX_DEPTH];
};

/* 1u << l for each lane: lane masks from a bit mask with a vector AND and
 * compare (the baseline target has no per-lane variable shift) */
#define USC_BIT4(l) 1u << (l), 1u << ((l) + 1), 1u << ((l) + 2), 1u << ((l) + 3)
static const uint32_t usc_lane_bit[L] = {USC_BIT4(0),  USC_BIT4(4),  USC_BIT4(8),  USC_BIT4(12),
                                         USC_BIT4(16), USC_BIT4(20), USC_BIT4(24), USC_BIT4(28)};
#undef USC_BIT4

static inline void usc_set_exec(struct usc_grp *g, uint32_t exec)
{
   g->exec = exec;
   if (exec == ~0u) {
      memset(g->lmask, 0xff, sizeof(g->lmask));
      return;
   }
   for (int l = 0; l < L; l++)
      g->lmask[l] = 0u - (uint32_t)((exec & usc_lane_bit[l]) != 0);
}

/* Returns the 32 lanes of source s, transformed into tmp when needed. */
static inline const uint32_t *usc_src(const struct usc_grp *g, const struct usc_op *o,
                                      unsigned s, uint32_t *tmp)
{
   const struct usc_src *r = &o->src[s];
   const uint32_t *p = g->base[r->bfile] + (size_t)r->idx * L;
   if (!r->xf)
      return p;
   unsigned sh = (r->xf & USC_XF_HI) ? 16 : 0;
   uint32_t hm = (r->xf & (USC_XF_LO | USC_XF_HI)) ? 0xffffu : 0xffffffffu;
   uint32_t am = (r->xf & USC_XF_ABS) ? 0x7fffffffu : 0xffffffffu;
   uint32_t xm = (r->xf & USC_XF_NEG) ? 0x80000000u : 0;
   for (int l = 0; l < L; l++)
      tmp[l] = (((p[l] >> sh) & hm) & am) ^ xm;
   return tmp;
}

/* Lane-wise loops over register rows: lane l reads only lane l of its
 * sources, and a row that is both source and destination overlaps it
 * exactly, so there is no dependence between lanes; this lets the compiler
 * vectorise without the run-time overlap check that would send the loop to
 * its scalar version (the register file and g->lmask may alias for it). */
#ifdef __clang__
#define USC_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#else
#define USC_IVDEP _Pragma("GCC ivdep")
#endif

/* Writes res to the destination for active lanes (and the chosen half). */
static inline void usc_wb(struct usc_grp *g, const struct usc_op *o, const uint32_t *res)
{
   uint32_t *d = g->r + (size_t)o->dst * L;
   const unsigned sh = o->dshift;
   const uint32_t dm = o->dmask;
   USC_IVDEP
   for (int l = 0; l < L; l++) {
      uint32_t wm = g->lmask[l] & dm;
      d[l] = (d[l] & ~wm) | ((res[l] << sh) & wm);
   }
}

/* d[l] = v[l] for the lanes m selects (all-ones), d[l] kept for the others
 * (vectorised: the scalar loop was half of usc_op_gfx's samples). */
static inline void usc_merge_lanes(uint32_t *d, const uint32_t *v, const uint32_t *m)
{
   USC_IVDEP
   for (int l = 0; l < L; l++)
      d[l] = (d[l] & ~m[l]) | (v[l] & m[l]);
}

static inline void usc_error(struct usc_grp *g, const struct usc_op *o,
                             enum vagx_usc_status st)
{
   g->run->res->status = st;
   g->run->res->pc = o->pc;
   g->state = USC_ERROR;
}

static inline void usc_fault(struct usc_grp *g, const struct usc_op *o, uint64_t va,
                             unsigned access)
{
   g->run->res->fault_va = va;
   g->run->res->fault_access = access;
   usc_error(g, o, VAGX_USC_FAULT);
}

/* The JIT code of the run starting at o, NULL (another thread may be
 * publishing it: the code it points to must be visible before the pointer). */
static inline usc_jfn usc_op_jit(const struct usc_op *o)
{
   return __atomic_load_n(&o->jit, __ATOMIC_ACQUIRE);
}

/* Handler selection, one per instruction class. */
usc_fn usc_alu_fn(const struct vagx_instr *I);
usc_gfn usc_alu_gfn(const struct vagx_instr *I);
usc_fn usc_mem_fn(const struct vagx_instr *I);
usc_gtry usc_mem_gtry(const struct vagx_instr *I);
usc_fn usc_cf_fn(const struct vagx_instr *I);
void usc_op_gfx(struct usc_grp *g, const struct usc_op *o);
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX2__)
#define USC_HAVE_GFX_AVX2 1
void usc_op_gfx_avx2(struct usc_grp *g, const struct usc_op *o);
#endif
void usc_op_end(struct usc_grp *g, const struct usc_op *o);
usc_fn usc_iter_fn(const struct vagx_instr *I);
/* The planes iter reads for a register the run does not have (usc.h):
 * 0 for the value, 1 for the W plane. */
extern const struct vagx_usc_plane usc_zero_plane, usc_one_plane;

#endif
