/* Interpreter throughput (lane-ops/s) on an ALU-bound kernel (64 chained ffma)
 * and a memory-bound kernel (load, add, store), versus the same computation in
 * plain C in the same run.  Not a test: run by hand, prints the ratios. */
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

int main(void)
{
   static char src[16384];
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
   struct vagx_usc_program *prog = t_build(src);
   struct vagx_usc *usc = vagx_usc_create();
   struct vagx_usc_env env = { 0 };
   env.mem = &t_mem_ops;
   env.mem_ctx = &mem;
   env.uniforms = uni6;
   env.nuniforms = 6;
   struct vagx_usc_compute cs = { { 1024, 1, 1 }, { THREADS / 1024, 1, 1 }, 0 };
   struct vagx_usc_result res;
   double t0 = now();
   int reps = 10;
   for (int r = 0; r < reps; r++)
      vagx_usc_run_grid(usc, prog, &env, &cs, &res);
   double ti = now() - t0;
   double ops = (double)reps * THREADS * CHAIN;

   volatile float sink = 0;
   t0 = now();
   for (int r = 0; r < reps; r++)
      for (int i = 0; i < THREADS; i++) {
         float x = in[i];
         for (int k = 0; k < CHAIN; k++)
            x = fmaf(x, 0.999f, 0.001f);
         out[i] = x;
      }
   double tc = now() - t0;
   sink += out[7];
   printf("ALU (64 chained ffma): interpreter %.1f M lane-ops/s, plain C (fmaf) %.1f M lane-ops/s, "
          "ratio %.2f\n", ops / ti / 1e6, ops / tc / 1e6, tc / ti);
   t0 = now();
   for (int r = 0; r < reps; r++)
      for (int i = 0; i < THREADS; i++) {
         float x = in[i];
         for (int k = 0; k < CHAIN; k++)
            x = x * 0.999f + 0.001f;
         out[i] = x;
      }
   double tu = now() - t0;
   printf("   vs plain C unfused mul+add: %.1f M lane-ops/s, ratio %.2f\n", ops / tu / 1e6, tu / ti);
   vagx_usc_program_free(prog);

   /* Memory: out[i] = in[i] + 1 (3 lane-ops per element: load, add, store). */
   prog = t_build("imad r1, sr.tgid_x, #1024, sr.tindex\nshl r1, r1, #2\n"
                  "ld_global.b32 r2, u0, r1\nfadd r2, r2, #1.0\nst_global.b32 u2, r1, r2\nend\n");
   reps = 50;
   t0 = now();
   for (int r = 0; r < reps; r++)
      vagx_usc_run_grid(usc, prog, &env, &cs, &res);
   ti = now() - t0;
   t0 = now();
   for (int r = 0; r < reps; r++) {
      for (int i = 0; i < THREADS; i++)
         out[i] = in[i] + 1.0f;
      __asm__ volatile("" ::: "memory");
   }
   tc = now() - t0;
   ops = (double)reps * THREADS;
   printf("memory (load+add+store): interpreter %.1f M elements/s, plain C %.1f M elements/s, "
          "ratio %.3f\n", ops / ti / 1e6, ops / tc / 1e6, tc / ti);
   (void)sink;
   vagx_usc_program_free(prog);
   vagx_usc_destroy(usc);
   free(mem.buf);
   return 0;
}
