/* JIT of ALU runs (usc_jit.c): every maximal run of consecutive ALU
 * instructions of a decoded program becomes one host function (LLVM ORC),
 * which the executor calls instead of interpreting the run.  Built only when
 * LLVM is found (VAGX_HAVE_LLVM); without it every entry point is a no-op and
 * the interpreter runs everything. */
#ifndef VAGX_USC_JIT_H
#define VAGX_USC_JIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vagx_usc_decoded;

/* jit_state of a decoded program */
enum { USC_JIT_COLD, USC_JIT_COMPILING, USC_JIT_DONE };

/* usc_jit_force() modes */
enum {
   USC_JIT_AUTO = -1, /* back to the environment: VAGX_USC_JIT=0 turns it off */
   USC_JIT_OFF = 0,   /* interpret everything */
   USC_JIT_EAGER = 1, /* compile a program at its first run (tests) */
};

struct usc_jit_stats {
   uint64_t programs;  /* programs compiled */
   uint64_t runs;      /* runs compiled in them */
   uint64_t instrs;    /* instructions in those runs */
   uint64_t failures;  /* compiles that failed (the program stays interpreted) */
   uint64_t live;      /* compiled programs not yet freed (their code is held) */
   uint64_t skipped;   /* instructions left to the interpreter in compiled programs */
};

bool usc_jit_available(void);            /* built with LLVM */
bool usc_jit_enabled(void);              /* available and not switched off */
void usc_jit_force(int mode);            /* tests: USC_JIT_* */
void usc_jit_get_stats(struct usc_jit_stats *s);
/* Compiles p's runs now (once; later calls return at once).  False when
 * nothing was compiled (no run, JIT off, or a failure, which is counted). */
bool usc_jit_compile(struct vagx_usc_decoded *p);
/* Called by a run of a program whose jit_state is not DONE: counts the run
 * and compiles the program once it is hot (or at once, USC_JIT_EAGER). */
void usc_jit_tick(struct vagx_usc_decoded *p);
/* Host memory p's JIT code will take if it is compiled (0: none), counted
 * in p->bytes at decode so that the program cache's bound covers it. */
size_t usc_jit_reserve(const struct vagx_usc_decoded *p);
/* Releases p's JIT code (vagx_usc_program_free). */
void usc_jit_free(struct vagx_usc_decoded *p);

#endif
