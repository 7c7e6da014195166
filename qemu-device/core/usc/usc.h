/*
 * vagx USC: the shader core of the renderer.  Decodes a program once into a
 * pre-decoded form, caches it, and executes SIMD-32 groups with execution masks.
 *
 * Plain C11, no global state, no OS threads: a threadgroup's SIMD groups run
 * cooperatively on the calling host thread (barriers switch groups).  Memory goes
 * through the caller's translate callback (the device MMU); graphics-only
 * instructions go through the caller's hook.  See docs/hw/isa.md.
 */
#ifndef VAGX_USC_H
#define VAGX_USC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vagx_isa.h"

#ifdef __cplusplus
extern "C" {
/* C++ users pass a pointer to a C-side atomic flag; they never touch it. */
typedef struct vagx_usc_abort_flag vagx_usc_abort_t;
#else
#include <stdatomic.h>
typedef _Atomic bool vagx_usc_abort_t;
#endif

#define VAGX_USC_LANES 32
#define VAGX_USC_MAX_TG_THREADS 1024
#define VAGX_USC_MAX_SHARED (64 * 1024)
#define VAGX_USC_MAX_DEPTH 64
#define VAGX_USC_MAX_INSTRS 65536

enum vagx_usc_status {
   VAGX_USC_OK = 0,
   VAGX_USC_ILLEGAL_INSTRUCTION, /* result.isa_err, result.pc */
   VAGX_USC_FAULT,               /* result.fault_va, result.fault_access, result.pc */
   VAGX_USC_ABORTED,             /* *env->abort became true */
   VAGX_USC_BUDGET,              /* env->budget instructions executed */
   VAGX_USC_NOT_IMPLEMENTED,     /* graphics instruction with no hook */
   VAGX_USC_BAD_DISPATCH,        /* threadgroup too large, shared too big, ... */
   VAGX_USC_NOMEM,
};

/* Access kinds for translate and fault reports (bit set). */
enum vagx_usc_access {
   VAGX_USC_ACC_READ = 1,
   VAGX_USC_ACC_WRITE = 2,
   VAGX_USC_ACC_EXEC = 4,
   VAGX_USC_ACC_SHARED = 8,     /* fault in threadgroup memory (va = byte offset) */
   VAGX_USC_ACC_UNALIGNED = 16, /* fault because of alignment, not the MMU */
   /* translate only: a speculative translation (the renderer's fast paths
    * probe whether a whole tile or span maps); its failure is not recorded
    * as a fault, the caller falls back to the access-by-access path, which
    * reports the fault it meets first */
   VAGX_USC_ACC_PROBE = 32,
   VAGX_USC_ACC_STACK = 64,     /* fault in the lane's private stack (va = byte offset) */
};

struct vagx_usc_mem_ops {
   /* Maps [va, va + size) for `access` (VAGX_USC_ACC_READ/WRITE/EXEC, atomics
    * ask READ|WRITE).  Returns the host address of va and stores in *span how
    * many bytes from va are contiguous in host memory with the same rights
    * (>= size); NULL is a fault.  The core caches the span until the next
    * safepoint. */
   void *(*translate)(void *ctx, uint64_t va, uint32_t size, unsigned access,
                      uint64_t *span);
   /* May be NULL.  Called every 256 instructions (so in every loop; one that
    * falls inside a JIT-compiled ALU run at the run's end), between
    * instructions.  The device completes pending TLB invalidations here, so
    * an endless shader does not hold one up.  Returns true when addresses
    * that translate returned before may be stale: none of them is used
    * after it.  False promises that every one of them, since the last call
    * on ctx that returned true, still maps the same memory with the same
    * rights, so they may be kept.  A caller of the vagx_usc_run_* entry
    * points must not keep a translated address across the call unless it
    * sees that promise (env->safepoints); one that runs many short programs
    * calls safepoint itself between them (the renderer does, r_safepoint). */
   bool (*safepoint)(void *ctx);
   /* May be NULL.  The host page translate returns (at the page's offset)
    * for reads of a NULL page (mmu.md: sparse residency, reads give zeros):
    * the texture unit tells a NULL page's texels from resident ones by it
    * for tex.resid (isa.md).  Without it every texel counts as resident. */
   const void *null_page;
};

/* A graphics-only instruction handed to the renderer (texture unit, iterator,
 * tile buffer, vertex output). */
struct vagx_usc_gfx_call {
   const struct vagx_instr *instr;
   uint32_t exec;               /* lanes to execute */
   const uint32_t *src[3];      /* scalar sources after modifiers, 32 lanes each */
   const uint32_t (*regs)[32];  /* register file, for vector sources (instr->src[i].idx) */
   /* results: out[component][lane], up to 4, and a fifth for tex.resid (the
    * residency code, vagx_dst_extra).  A handler writes every lane of exec
    * (0 where it has no value): for a vec4 result with every lane running,
    * out may be the destination registers themselves (never rows the
    * instruction reads).  After an error out holds anything. */
   uint32_t (*out)[32];
   unsigned simd_id;            /* SIMD group within the threadgroup */
   const uint32_t (*sr)[32];    /* special registers of this group */
};

struct vagx_usc_gfx_ops {
   /* Executes call->instr for call->exec lanes, writing call->out when the
    * instruction has a destination (the core writes it back under the mask). */
   enum vagx_usc_status (*exec)(void *ctx, struct vagx_usc_gfx_call *call);
   /* Optional: a `tex` the renderer takes whole when it has the sampling's
    * parameters at hand (render_tex.c's lane path), without a
    * vagx_usc_gfx_call: it reads every source row it needs before it
    * writes, and writes the destination rows of regs (the group's register
    * file, 32 lanes a row) for the lanes of exec only.  Returns -1 when it
    * does not take the instruction (the core then calls exec), else the
    * instruction's status. */
   int (*tex_regs)(void *ctx, const struct vagx_instr *instr, uint32_t exec, uint32_t (*regs)[32]);
};

/* A plane of the iterator (iter, ldcf): the value c + a*x + b*y at a point
 * (x, y) relative to the primitive's origin, computed in double; flat is the
 * provoking vertex's raw value. */
struct vagx_usc_plane {
   double a, b, c;
   uint32_t flat;
};

/* The iterator's inputs for a fragment run whose lanes interpolate at one
 * point each, whatever the location (vagx_usc_env.iter). */
struct vagx_usc_iter {
   const double *x, *y;              /* 32 lanes: the lane's point (x, y) */
   const struct vagx_usc_plane *cf;  /* coefficient registers cf0.. */
   uint32_t ncf;                     /* cf registers at or beyond ncf: none */
};

/* What the device gives every run. */
struct vagx_usc_env {
   const struct vagx_usc_mem_ops *mem;
   void *mem_ctx;
   const struct vagx_usc_gfx_ops *gfx; /* may be NULL */
   void *gfx_ctx;
   vagx_usc_abort_t *abort;             /* may be NULL; polled every 256 instructions */
   uint64_t budget;                   /* max SIMD instructions per run call, 0 = none */
   const uint32_t *uniforms;          /* u0.. */
   unsigned nuniforms;                /* missing uniforms read as 0 */
   bool no_jit;                       /* interpret every instruction (no JIT code) */
   /* may be NULL: incremented at every memory safepoint of the run where
    * translations expired (mem->safepoint returned true, or there is none),
    * so that a caller keeping translations of its own across runs (the
    * renderer's texture spans) knows when they expire */
   uint64_t *safepoints;
   /* bytes of private stack per lane (usc_program.stack_size, at most
    * VAGX_MAX_STACK_BYTES): stack_ld/stack_st beyond it fault */
   uint32_t stack_bytes;
   /* may be NULL: then iter and ldcf go to gfx.  When set, the executor
    * (and its JIT) runs iter and ldcf without .f16 itself, as the
    * renderer's hook would at these points: iter = (float)plane(src0), with
    * .persp (float)(plane(src0) / plane(src1)), every operation in double
    * in that order; ldcf = flat.  A missing plane (index >= ncf) is 0
    * everywhere, a missing W plane 1.  .f16 forms still go to gfx. */
   const struct vagx_usc_iter *iter;
};

struct vagx_usc_compute {
   uint32_t tg_size[3];  /* threads per threadgroup, product <= 1024 */
   uint32_t ngroups[3];  /* grid size in threadgroups */
   uint32_t shared_bytes;
};

struct vagx_usc_result {
   enum vagx_usc_status status;
   int isa_err;            /* enum vagx_isa_err for ILLEGAL_INSTRUCTION */
   uint32_t pc;            /* byte offset of the stopping instruction */
   uint64_t fault_va;
   unsigned fault_access;  /* enum vagx_usc_access bits */
   uint64_t instructions;  /* SIMD instructions executed by this call */
   uint32_t killed;        /* vagx_usc_run_simd: lanes removed by discard */
};

/* A decoded program, immutable once built (not the hardware descriptor
 * `struct vagx_usc_program` that jobs use to point at code, see vagx_hw.h). */
struct vagx_usc_decoded;
struct vagx_usc;          /* per-host-thread executor (scratch, registers) */
struct vagx_usc_cache;    /* decoded programs keyed by (VM root, VA) */

/* Decodes the program at words[0..nwords).  On failure returns NULL with
 * res->status ILLEGAL_INSTRUCTION (or NOMEM) and res->pc / res->isa_err set. */
struct vagx_usc_decoded *vagx_usc_program_decode(const uint64_t *words, size_t nwords,
                                                 struct vagx_usc_result *res);
void vagx_usc_program_free(struct vagx_usc_decoded *prog);
size_t vagx_usc_program_words(const struct vagx_usc_decoded *prog);
/* Host memory the decoded program occupies (what a cache entry costs). */
size_t vagx_usc_program_bytes(const struct vagx_usc_decoded *prog);
/* A static estimate of what one invocation costs, in ALU instructions: one
 * per instruction, VAGX_USC_COST_SAMPLE per texture or image access,
 * VAGX_USC_COST_LOOP for a program with a loop or a backward jump (its trip
 * count is unknown).  For decisions that trade fixed work against shading,
 * as hidden-surface removal does. */
#define VAGX_USC_COST_SAMPLE 8u
#define VAGX_USC_COST_LOOP 1024u
unsigned vagx_usc_program_cost(const struct vagx_usc_decoded *prog);

struct vagx_usc *vagx_usc_create(void);
void vagx_usc_destroy(struct vagx_usc *usc);

/* Runs one compute threadgroup to completion (or error). */
enum vagx_usc_status vagx_usc_run_threadgroup(struct vagx_usc *usc,
                                              const struct vagx_usc_decoded *prog,
                                              const struct vagx_usc_env *env,
                                              const struct vagx_usc_compute *cs,
                                              const uint32_t tgid[3],
                                              struct vagx_usc_result *res);

/* Runs a whole grid: every threadgroup in x-fastest order, stopping at the
 * first error. */
enum vagx_usc_status vagx_usc_run_grid(struct vagx_usc *usc, const struct vagx_usc_decoded *prog,
                                       const struct vagx_usc_env *env,
                                       const struct vagx_usc_compute *cs,
                                       struct vagx_usc_result *res);

/* Runs one SIMD group with caller-provided special registers and initial mask:
 * the entry point for vertex and fragment work (VDM/PDM).  sr is read in
 * place: it must not change until the call returns (NULL: all zero). */
enum vagx_usc_status vagx_usc_run_simd(struct vagx_usc *usc, const struct vagx_usc_decoded *prog,
                                       const struct vagx_usc_env *env,
                                       const uint32_t (*sr)[32], uint32_t exec,
                                       struct vagx_usc_result *res);

/*
 * Program cache.  Invalidation rule: entries are keyed by (page-table root, VA)
 * and stamped with the cache generation.  The device calls
 * vagx_usc_cache_invalidate() at every job start and every TLB invalidation; a
 * lookup that finds a stale entry re-reads the code bytes and reuses the decoded
 * program only if they are unchanged (otherwise decodes anew).  Code must not
 * change while a job runs.  Thread-safe.
 *
 * Bounded: the cache keeps at most VAGX_USC_CACHE_MAX_BYTES of decoded
 * programs and drops the least recently used ones beyond that, so guest
 * programs at ever new addresses cannot grow host memory without limit.
 * vagx_usc_cache_get() returns a reference: the program stays valid (even if
 * the cache drops or replaces it) until the caller gives it back with
 * vagx_usc_cache_put().  Destroy the cache only after every put.
 */
#define VAGX_USC_CACHE_MAX_BYTES (64u << 20)
struct vagx_usc_cache *vagx_usc_cache_create(void);
void vagx_usc_cache_destroy(struct vagx_usc_cache *cache);
void vagx_usc_cache_invalidate(struct vagx_usc_cache *cache);
/* Kept for callers of the earlier API: nothing to do (references free
 * replaced programs as soon as their last user is done). */
void vagx_usc_cache_trim(struct vagx_usc_cache *cache);
const struct vagx_usc_decoded *vagx_usc_cache_get(struct vagx_usc_cache *cache,
                                                  const struct vagx_usc_env *env,
                                                  uint64_t root, uint64_t va,
                                                  struct vagx_usc_result *res);
void vagx_usc_cache_put(const struct vagx_usc_decoded *prog);
/* Bytes and entries the cache holds now (tests). */
size_t vagx_usc_cache_bytes(struct vagx_usc_cache *cache, unsigned *entries);

const char *vagx_usc_status_name(enum vagx_usc_status s);

#ifdef __cplusplus
}
#endif

#endif
