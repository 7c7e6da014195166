/* SPDX-License-Identifier: MIT */
/*
 * Compute-job throughput through the whole renderer core: ring, header
 * validation, MMU (4-level walk + TLB), CDM, worker pool, USC interpreter,
 * completion -- on 1 and N worker threads, against the same computation in
 * plain C measured in the same run.  Prints lane-ops/s and ratios.
 *
 *   bench_core [N]        N worker threads for the parallel run (default: CPUs)
 */
#include <math.h>
#include <stdarg.h>

#include "core_test.h"
#include "vagx_asm.h"

#define THREADS (1024 * 64)
#define CHAIN 64
#define BEST_OF 3 /* every figure is the best of 3 (the machine is shared) */
#define VA_CODE 0x0000002000000000ull
#define VA_DESC 0x0000003000000000ull
#define VA_DATA 0x0000004000000000ull

static uint32_t fu(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

/* The reference a normal program compiles to: fmaf() inlined as the hardware
 * FMA and vectorised over threads (target("fma"), used when the CPU has it;
 * same results bit for bit), else the libm call. */
#define CHAIN_LOOP(in, out, n)                                                 \
   for (int i = 0; i < (n); i++) {                                             \
      float x = (in)[i];                                                       \
      for (int k = 0; k < CHAIN; k++)                                          \
         x = fmaf(x, 0.999f, 0.001f);                                          \
      (out)[i] = x;                                                            \
   }
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((noinline, target("fma"))) static void chain_fma(const float *restrict in,
                                                              float *restrict out, int n)
{
   CHAIN_LOOP(in, out, n)
}
#endif
__attribute__((noinline)) static void chain_libm(const float *restrict in, float *restrict out,
                                                 int n)
{
   CHAIN_LOOP(in, out, n)
}

struct bench {
   struct tdev d;
   struct tq t;
   uint64_t root, code_pa, desc_pa, data_pa;
   uint64_t seq;
};

static void bench_init(struct bench *b, unsigned workers, const char *src, unsigned nuni,
                       const uint32_t *uni)
{
   tdev_init(&b->d, 256ull << 20, workers, false);
   tq_init(&b->t, &b->d, 0, 4);
   struct fake *f = b->d.f;
   b->root = vm_new(f);
   b->code_pa = vm_alloc(f, b->root, VA_CODE, 64 * 1024, true);
   b->desc_pa = vm_alloc(f, b->root, VA_DESC, VAGX_PAGE_SIZE, true);
   b->data_pa = vm_alloc(f, b->root, VA_DATA, 3 * THREADS * 4, false);
   struct vagx_asm_error err;
   if (vagx_asm_assemble(src, pa_u32(f, b->code_pa), 64 * 1024 / 4, &err) < 0) {
      fprintf(stderr, "bench_core: assembler: line %d: %s\n", err.line, err.msg);
      exit(1);
   }
   struct vagx_compute_job j;
   vagx_compute_job_init(&j);
   j.grid_x = THREADS / 1024;
   j.grid_y = j.grid_z = 1;
   j.tg_x = 1024;
   j.tg_y = j.tg_z = 1;
   j.program.code_va = VA_CODE;
   j.program.gpr_count = 8;
   j.program.uniform_count = nuni;
   j.program.uniform_va = VA_DESC + 0x400;
   vagx_compute_job_pack(pa_u32(f, b->desc_pa), &j);
   memcpy(pa_u32(f, b->desc_pa + 0x400), uni, nuni * 4);
   float *in = (float *)pa_ptr(f, b->data_pa);
   for (int i = 0; i < THREADS; i++)
      in[i] = (float)i / THREADS;
   b->seq = 1;
}

/* Runs `reps` jobs back to back (one doorbell each), returns seconds. */
static double bench_run(struct bench *b, int reps)
{
   double t0 = t_now_s();
   for (int r = 0; r < reps; r++) {
      struct vagx_job_header h;
      hdr_init(&b->t, &h, VAGX_JOB_TYPE_COMPUTE, b->root, b->seq++);
      h.desc_va = VA_DESC;
      h.desc_size = VAGX_COMPUTE_JOB_LENGTH;
      uint64_t slot = tq_submit(&b->t, &h, NULL);
      vagx_core_process(b->d.core);
      if (slot_result(&b->d, slot).status != VAGX_JOB_STATUS_OK) {
         fprintf(stderr, "bench_core: job failed with %s\n",
                 vagx_job_status_name(slot_result(&b->d, slot).status));
         exit(1);
      }
   }
   return t_now_s() - t0;
}

int main(int argc, char **argv)
{
   unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
   if (n < 2)
      n = 2;
   uint32_t uni[6] = {(uint32_t)VA_DATA, (uint32_t)(VA_DATA >> 32),
                      (uint32_t)(VA_DATA + THREADS * 4), (uint32_t)((VA_DATA + THREADS * 4) >> 32),
                      fu(0.999f), fu(0.001f)};

   /* ---- ALU: 64 chained ffma per thread ---- */
   static char src[16384];
   char *p = src;
   p += sprintf(p, "imad r1, sr.tgid_x, #1024, sr.tindex\nshl r1, r1, #2\nld_global.b32 r2, u0, r1\n");
   for (int i = 0; i < CHAIN; i++)
      p += sprintf(p, "ffma r2, r2, u4, u5\n");
   sprintf(p, "st_global.b32 u2, r1, r2\nend\n");

   static float in[THREADS], out[THREADS];
   void (*chain)(const float *, float *, int) = chain_libm;
   const char *cref = "libm fmaf call";
#if defined(__x86_64__) && defined(__GNUC__)
   __builtin_cpu_init();
   if (__builtin_cpu_supports("fma")) {
      chain = chain_fma;
      cref = "fmaf, target(\"fma\"), vectorised";
   }
#endif
   for (int i = 0; i < THREADS; i++)
      in[i] = (float)i / THREADS;
   const int reps = 10;
   double t0, tc = 1e30, tu = 1e30;
   for (int b = 0; b < BEST_OF; b++) {
      t0 = t_now_s();
      for (int r = 0; r < reps; r++) {
         chain(in, out, THREADS);
         __asm__ volatile("" ::: "memory");
      }
      tc = fmin(tc, t_now_s() - t0);
      t0 = t_now_s();
      for (int r = 0; r < reps; r++) {
         for (int i = 0; i < THREADS; i++) {
            float x = in[i];
            for (int k = 0; k < CHAIN; k++)
               x = x * 0.999f + 0.001f;
            out[i] = x;
         }
         __asm__ volatile("" ::: "memory");
      }
      tu = fmin(tu, t_now_s() - t0);
   }
   double ops = (double)reps * THREADS * CHAIN;
   for (int i = 0; i < THREADS; i++) { /* the results the device must match */
      float x = in[i];
      for (int k = 0; k < CHAIN; k++)
         x = fmaf(x, 0.999f, 0.001f);
      out[i] = x;
   }

   double t1 = 0, tn = 0;
   for (unsigned pass = 0; pass < 2; pass++) {
      struct bench b;
      bench_init(&b, pass ? n : 1, src, 6, uni);
      bench_run(&b, 1); /* warm-up: decode + page walks */
      double t = 1e30;
      for (int k = 0; k < BEST_OF; k++) {
         double tk = bench_run(&b, reps);
         t = tk < t ? tk : t;
      }
      float *res = (float *)pa_ptr(b.d.f, b.data_pa + THREADS * 4);
      if (memcmp(res, out, sizeof(out)))
         fprintf(stderr, "bench_core: ALU results differ from C\n");
      tdev_fini(&b.d);
      if (pass)
         tn = t;
      else
         t1 = t;
   }
   printf("core compute ALU (64 chained ffma, %d threads/job):\n", THREADS);
   printf("  plain C (%s, 1 thread) %8.1f M lane-ops/s  (reference 1.00)\n", cref,
          ops / tc / 1e6);
   printf("  plain C (unfused mul+add)       %8.1f M lane-ops/s  (ratio to reference %.2f)\n",
          ops / tu / 1e6, tc / tu);
   printf("  core, 1 worker                  %8.1f M lane-ops/s  ratio %.3f (vs unfused %.3f)\n",
          ops / t1 / 1e6, tc / t1, tu / t1);
   printf("  core, %u workers                 %8.1f M lane-ops/s  ratio %.3f (vs unfused %.3f)  "
          "(x%.2f vs 1 worker)\n", n, ops / tn / 1e6, tc / tn, tu / tn, t1 / tn);

   /* ---- memory: out[i] = in[i] + 1 ---- */
   const char *msrc = "imad r1, sr.tgid_x, #1024, sr.tindex\nshl r1, r1, #2\n"
                      "ld_global.b32 r2, u0, r1\nfadd r2, r2, #1.0\nst_global.b32 u2, r1, r2\nend\n";
   const int mreps = 50;
   tc = 1e30;
   for (int b = 0; b < BEST_OF; b++) {
      t0 = t_now_s();
      for (int r = 0; r < mreps; r++) {
         for (int i = 0; i < THREADS; i++)
            out[i] = in[i] + 1.0f;
         __asm__ volatile("" ::: "memory");
      }
      tc = fmin(tc, t_now_s() - t0);
   }
   ops = (double)mreps * THREADS;
   for (unsigned pass = 0; pass < 2; pass++) {
      struct bench b;
      bench_init(&b, pass ? n : 1, msrc, 4, uni);
      bench_run(&b, 1);
      double t = 1e30;
      for (int k = 0; k < BEST_OF; k++) {
         double tk = bench_run(&b, mreps);
         t = tk < t ? tk : t;
      }
      tdev_fini(&b.d);
      if (pass)
         tn = t;
      else
         t1 = t;
   }
   printf("core compute memory (load+fadd+store):\n");
   printf("  plain C                          %8.1f M elements/s (reference 1.00)\n", ops / tc / 1e6);
   printf("  core, 1 worker                  %8.1f M elements/s ratio %.3f\n", ops / t1 / 1e6, tc / t1);
   printf("  core, %u workers                 %8.1f M elements/s ratio %.3f  (x%.2f vs 1 worker)\n",
          n, ops / tn / 1e6, tc / tn, t1 / tn);

   /* ---- job overhead: NOP jobs through ring + completion ---- */
   struct tdev d;
   tdev_init(&d, 16ull << 20, 1, false);
   struct tq t;
   tq_init(&t, &d, 0, 8);
   const int njobs = 20000;
   t0 = t_now_s();
   for (int i = 0; i < njobs; i++) {
      struct vagx_job_header h;
      hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, (uint64_t)i + 1);
      tq_submit(&t, &h, NULL);
      vagx_core_process(d.core);
   }
   double tj = t_now_s() - t0;
   printf("job overhead: %.2f us per NOP job (submit + process + completion + irq)\n",
          tj / njobs * 1e6);
   tdev_fini(&d);
   return 0;
}
