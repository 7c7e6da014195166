/* Interpreter throughput (lane-ops/s) on an ALU-bound kernel (64 chained ffma)
 * and a memory-bound kernel (load, add, store), versus the same computation in
 * plain C in the same run.  Not a test: run by hand (or by tests/bench/run-all),
 * prints the ratios.  `bench_usc [REPEATS]` repeats every measurement and keeps
 * the best time of each (default 3).
 *
 * The C references are what a normal program would be compiled to on this host:
 *  - ALU: fmaf() chained 64 times, in a function built with
 *    __attribute__((target("fma"))) when the CPU has FMA, so the compiler inlines
 *    the hardware instruction (and vectorises over threads) instead of calling
 *    libm; same results bit for bit (checked).  Without FMA: the libm call.
 *  - memory: out[i] = in[i] + 1 done by a noinline function per 32-element block
 *    (one SIMD group) whose pointers are laundered through an asm barrier, so
 *    every repetition really loads and stores every element (nothing hoisted or
 *    merged across repetitions); the block itself is vectorised normally. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <time.h>

#include "usc_test.h"

#define THREADS (1024 * 64)
#define CHAIN 64

static double now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The fmaf() chain as a normal program compiles it (shared with bench_core). */
#include "../../bench/bench_fma_chain.h"

__attribute__((noinline)) static void c_chain_unfused(const float *restrict in, float *restrict out, int n)
{
   for (int i = 0; i < n; i++) {
      float x = in[i];
      for (int k = 0; k < CHAIN; k++)
         x = x * 0.999f + 0.001f;
      out[i] = x;
   }
}

/* One SIMD group's worth of the memory kernel. */
__attribute__((noinline)) static void c_mem_block(const float *in, float *out)
{
   __asm__ volatile("" : "+r"(in), "+r"(out) : : "memory");
   for (int l = 0; l < 32; l++)
      out[l] = in[l] + 1.0f;
}

__attribute__((noinline)) static void c_mem_loop(const float *in, float *out, int n)
{
   for (int i = 0; i < n; i++)
      out[i] = in[i] + 1.0f;
   __asm__ volatile("" : : "r"(out) : "memory");
}

static int nrep = 3;

/* Best of nrep timings of fn(ctx), each doing `reps` repetitions. */
#define BEST(var, reps, body)                                                  \
   do {                                                                        \
      var = 1e30;                                                              \
      for (int rr = 0; rr < nrep; rr++) {                                      \
         double t0_ = now();                                                   \
         for (int r = 0; r < (reps); r++) {                                    \
            body;                                                              \
         }                                                                     \
         double t_ = now() - t0_;                                              \
         if (t_ < var)                                                         \
            var = t_;                                                          \
      }                                                                        \
   } while (0)

int main(int argc, char **argv)
{
   static char src[16384];
   static float ref[THREADS];
   if (argc > 1 && atoi(argv[1]) > 0)
      nrep = atoi(argv[1]);
   struct t_mem mem = { calloc(3, THREADS * 4), 3 * THREADS * 4 };
   float *in = (float *)(void *)mem.buf, *out = in + THREADS;
   for (int i = 0; i < THREADS; i++)
      in[i] = (float)i / THREADS;
   uint32_t uni[4] = { (uint32_t)T_BASE, (uint32_t)(T_BASE >> 32),
                       (uint32_t)(T_BASE + THREADS * 4), (uint32_t)((T_BASE + THREADS * 4) >> 32) };

   /* ALU: x = x * 0.999 + 0.001, 64 times. */
   char *p = src;
   p += sprintf(p, "imad r1, sr.tgid_x, #1024, sr.tindex\nshl r1, r1, #2\nld_global.b32 r2, u0, r1\n");
   for (int i = 0; i < CHAIN; i++)
      p += sprintf(p, "ffma r2, r2, u4, u5\n");
   sprintf(p, "st_global.b32 u2, r1, r2\nend\n");
   uint32_t uni6[6] = { uni[0], uni[1], uni[2], uni[3], t_fu(0.999f), t_fu(0.001f) };
   struct vagx_usc_decoded *prog = t_build(src);
   struct vagx_usc *usc = vagx_usc_create();
   struct vagx_usc_env env = t_env(&mem, uni6, 6);
   struct vagx_usc_compute cs = { { 1024, 1, 1 }, { THREADS / 1024, 1, 1 }, 0 };
   struct vagx_usc_result res;
   double ti, tc, tu;
   int reps = 10;

   const char *cref = "libm fmaf (no FMA on this CPU)";
   void (*chain)(const float *, float *, int) = chain_libm;
#ifdef HAVE_FMA_REF
   if (chain_have_fma()) {
      chain = chain_fma;
      cref = "fmaf, target(\"fma\"): inlined hardware FMA";
   }
#endif
   BEST(ti, reps, vagx_usc_run_grid(usc, prog, &env, &cs, &res));
   if (res.status != VAGX_USC_OK)
      fprintf(stderr, "bench_usc: ALU run failed: %s\n", vagx_usc_status_name(res.status));
   double ops = (double)reps * THREADS * CHAIN;
   BEST(tc, reps, chain(in, ref, THREADS));
   if (memcmp(ref, out, sizeof(ref)))
      fprintf(stderr, "bench_usc: ALU results differ from C\n");
   printf("ALU (64 chained ffma), C reference: %s\n", cref);
   printf("  interpreter %.1f M lane-ops/s, plain C %.1f M lane-ops/s, ratio %.3f\n",
          ops / ti / 1e6, ops / tc / 1e6, tc / ti);
   BEST(tu, reps, c_chain_unfused(in, ref, THREADS));
   printf("  (other C: unfused mul+add, different results: %.1f M lane-ops/s, ratio %.3f;\n",
          ops / tu / 1e6, tu / ti);
   BEST(tu, reps, chain_libm(in, ref, THREADS));
   printf("   libm fmaf call, baseline target: %.1f M lane-ops/s, ratio %.3f)\n", ops / tu / 1e6,
          tu / ti);
   vagx_usc_program_free(prog);

   /* Memory: out[i] = in[i] + 1 (load, add, store per element). */
   prog = t_build("imad r1, sr.tgid_x, #1024, sr.tindex\nshl r1, r1, #2\n"
                  "ld_global.b32 r2, u0, r1\nfadd r2, r2, #1.0\nst_global.b32 u2, r1, r2\nend\n");
   reps = 50;
   memset(out, 0, THREADS * 4);
   BEST(ti, reps, vagx_usc_run_grid(usc, prog, &env, &cs, &res));
   if (res.status != VAGX_USC_OK)
      fprintf(stderr, "bench_usc: memory run failed: %s\n", vagx_usc_status_name(res.status));
   for (int i = 0; i < THREADS; i++)
      if (out[i] != in[i] + 1.0f) {
         fprintf(stderr, "bench_usc: memory results wrong at %d\n", i);
         break;
      }
   BEST(tc, reps, for (int i = 0; i < THREADS; i += 32) c_mem_block(in + i, out + i));
   BEST(tu, reps, c_mem_loop(in, out, THREADS));
   ops = (double)reps * THREADS;
   printf("memory (load+fadd+store), C reference: noinline 32-element block, opaque pointers\n");
   printf("  interpreter %.1f M elements/s, plain C %.1f M elements/s, ratio %.3f\n",
          ops / ti / 1e6, ops / tc / 1e6, tc / ti);
   printf("  (other C: one vectorised loop over all elements: %.1f M elements/s, ratio %.3f)\n",
          ops / tu / 1e6, tu / ti);
   vagx_usc_program_free(prog);
   vagx_usc_destroy(usc);
   free(mem.buf);
   return 0;
}
