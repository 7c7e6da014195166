/* SPDX-License-Identifier: MIT */
/*
 * Compute-job throughput through the whole renderer core: ring, header
 * validation, MMU (4-level walk + TLB), CDM, worker pool, USC interpreter,
 * completion -- on 1 and N worker threads, against the same computation in
 * plain C measured in the same run.  Prints lane-ops/s and ratios.
 *
 *   bench_core [N]        N worker threads for the parallel run (default: CPUs)
 *
 * Scaling: the runs with 1, N and (oversubscribed) 4 and 8 workers also
 * report CPU time per threadgroup, the front-end's serial CPU, each worker's
 * CPU and the machine's load (bench_stats.h), which stay meaningful when
 * other processes make the wall-clock speedup noise.
 */
#include "bench_stats.h"

#include <math.h>
#include <stdarg.h>

#include "core_test.h"
#include "vagx_asm.h"

/* 512 threadgroups of 1024 threads, a ~5 ms job: with 64 (0.7 ms) the
 * per-job fixed costs (waking workers, completion) held an idle 2-core
 * machine to x1.24 from 2 workers (docs/performance.md, "Scaling") */
#define THREADS (1024 * 512)
#define CHAIN 64
#define BEST_OF 3 /* C references: best of 3 (the machine is shared) */
#define VA_CODE 0x0000002000000000ull
#define VA_DESC 0x0000003000000000ull
#define VA_DATA 0x0000004000000000ull

static uint32_t fu(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

/* The C reference: fmaf() as a normal program compiles it. */
#include "bench_fma_chain.h"

struct bench {
   struct tdev d;
   struct tq t;
   uint64_t root, code_pa, desc_pa, data_pa;
   uint64_t seq;
};

static void bench_init(struct bench *b, unsigned workers, const char *src, unsigned nuni,
                       const uint32_t *uni)
{
   tdev_init(&b->d, 32ull << 20, workers, false); /* code, tables, 768 KB of data */
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

#define MAX_CONFIGS BS_MAX_CONFIGS
#define ROUNDS 7 /* interleaved repetitions of every configuration */

/* One worker count of one workload: a core with `workers` threads.  The
 * calling thread is the front-end (vagx_core_process): its CPU is the serial
 * part; the threads the core created are its workers. */
struct config {
   struct bench b;
   struct bs_run run;
   unsigned nt;
   int tids[BS_MAX_THREADS]; /* this core's worker threads */
};

static void config_start(struct config *c, unsigned workers, const char *src, unsigned nuni,
                         const uint32_t *uni)
{
   static struct bs_snap before, after;
   bs_snap(&before);
   bench_init(&c->b, workers, src, nuni, uni);
   bench_run(&c->b, 1); /* warm-up: decode + page walks */
   bs_snap(&after);
   bs_run_init(&c->run, workers);
   /* This core's workers: the threads that did not exist before it. */
   c->nt = 0;
   for (unsigned i = 0; i < after.n; i++) {
      bool old = false;
      for (unsigned k = 0; k < before.n; k++)
         old |= before.t[k].tid == after.t[i].tid;
      if (!old && c->nt < BS_MAX_THREADS)
         c->tids[c->nt++] = after.t[i].tid;
   }
}

/* One repetition of `reps` jobs; every thread's CPU is read from /proc
 * before and after, never inside the timed region. */
static void config_rep(struct config *c, int reps, unsigned ncpu)
{
   struct bs_snap s0, s1;
   struct bs_run rep;
   bs_run_init(&rep, c->run.workers);
   bs_snap(&s0);
   double c0 = bs_thread_cpu();
   rep.wall = bench_run(&c->b, reps);
   double c1 = bs_thread_cpu();
   bs_snap(&s1);
   rep.units = (double)reps * (THREADS / 1024);
   rep.serial_cpu = c1 - c0;
   double cpu, wait;
   if (bs_task_delta(&s0, &s1, getpid(), &cpu, &wait))
      rep.main_wait = wait;
   /* Only this core's workers: another configuration's worker may still be
    * finishing its last slice (bookkeeping after the job completed). */
   rep.nw = c->nt;
   for (unsigned w = 0; w < c->nt; w++)
      if (bs_task_delta(&s0, &s1, c->tids[w], &cpu, &wait)) {
         rep.w_cpu[w] = cpu;
         rep.w_wait[w] = wait;
      }
   for (unsigned w = 0; w < rep.nw; w++)
      rep.w_units[w] = -1; /* the core does not count threadgroups per worker */
   bs_run_add(&c->run, &rep, ncpu);
}

/* Checks the result buffer against `expect` (NULL: no check), frees the core. */
static bool config_finish(struct config *c, const float *expect)
{
   bool ok = true;
   if (expect) {
      const float *res = (const float *)pa_ptr(c->b.d.f, c->b.data_pa + THREADS * 4);
      ok = !memcmp(res, expect, THREADS * sizeof(float));
   }
   tdev_fini(&c->b.d);
   return ok;
}

/* Runs ROUNDS rounds, each one repetition of every configuration in turn
 * (so drifting load hits all of them alike), and prints the scaling. */
static bool measure_all(unsigned ncfg, const unsigned *workers, const char *src, unsigned nuni,
                        const uint32_t *uni, int reps, const float *expect, struct bs_run *runs)
{
   static struct config cfg[MAX_CONFIGS];
   const unsigned ncpu = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
   struct bs_window win;
   for (unsigned c = 0; c < ncfg; c++)
      config_start(&cfg[c], workers[c], src, nuni, uni);
   bs_window_begin(&win);
   for (int r = 0; r < ROUNDS; r++)
      for (unsigned c = 0; c < ncfg; c++)
         config_rep(&cfg[c], reps, ncpu);
   bs_window_end(&win);
   bool ok = true;
   for (unsigned c = 0; c < ncfg; c++) {
      runs[c] = cfg[c].run;
      if (!config_finish(&cfg[c], expect)) {
         fprintf(stderr, "bench_core: results differ from C (%u workers)\n", workers[c]);
         ok = false;
      }
   }
   printf("  scaling (%u CPUs, %d interleaved rounds; CPU per threadgroup of 1024 threads, best "
          "round):\n", ncpu, ROUNDS);
   for (unsigned c = 0; c < ncfg; c++)
      bs_print("    ", "threadgroup", 1e6, "us", "threadgroup", &runs[0], &runs[c], ncpu);
   bs_print_machine("    ", &win, ncpu);
   return ok;
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
#ifdef HAVE_FMA_REF
   if (chain_have_fma()) {
      chain = chain_fma;
      cref = "fmaf, target(\"fma\"), vectorised";
   }
#endif
   for (int i = 0; i < THREADS; i++)
      in[i] = (float)i / THREADS;
   const int reps = 10;
   double t0, tc = 1e30, tu = 1e30, cc = 1e30, c0;
   for (int b = 0; b < BEST_OF; b++) {
      t0 = t_now_s();
      c0 = bs_thread_cpu();
      for (int r = 0; r < reps; r++) {
         chain(in, out, THREADS);
         __asm__ volatile("" ::: "memory");
      }
      tc = fmin(tc, t_now_s() - t0);
      cc = fmin(cc, bs_thread_cpu() - c0);
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

   unsigned wcfg[MAX_CONFIGS];
   const unsigned ncfg = bs_configs(n, wcfg);
   static struct bs_run runs[MAX_CONFIGS];
   int status = 0;
   printf("core compute ALU (64 chained ffma, %d threads/job):\n", THREADS);
   if (!measure_all(ncfg, wcfg, src, 6, uni, reps, out, runs))
      status = 1;
   double t1 = runs[0].wall_best, tn = runs[1].wall_best;
   printf("  plain C (%s, 1 thread) %8.1f M lane-ops/s  (reference 1.00)\n", cref,
          ops / tc / 1e6);
   printf("  plain C (unfused mul+add)       %8.1f M lane-ops/s  (ratio to reference %.2f)\n",
          ops / tu / 1e6, tc / tu);
   printf("  core, 1 worker                  %8.1f M lane-ops/s  ratio %.3f (vs unfused %.3f)\n",
          ops / t1 / 1e6, tc / t1, tu / t1);
   printf("  core, %u workers                 %8.1f M lane-ops/s  ratio %.3f (vs unfused %.3f)  "
          "(x%.2f vs 1 worker)\n", n, ops / tn / 1e6, tc / tn, tu / tn, t1 / tn);
   printf("  CPU-time ratio, 1 worker (all threads' CPU vs the C loop's; not moved by preemption) "
          "%.3f\n", cc / ops / (runs[0].cpu_best / (1024.0 * CHAIN)));

   /* ---- memory: out[i] = in[i] + 1 ---- */
   const char *msrc = "imad r1, sr.tgid_x, #1024, sr.tindex\nshl r1, r1, #2\n"
                      "ld_global.b32 r2, u0, r1\nfadd r2, r2, #1.0\nst_global.b32 u2, r1, r2\nend\n";
   const int mreps = 50;
   tc = 1e30;
   cc = 1e30;
   for (int b = 0; b < BEST_OF; b++) {
      t0 = t_now_s();
      c0 = bs_thread_cpu();
      for (int r = 0; r < mreps; r++) {
         for (int i = 0; i < THREADS; i++)
            out[i] = in[i] + 1.0f;
         __asm__ volatile("" ::: "memory");
      }
      tc = fmin(tc, t_now_s() - t0);
      cc = fmin(cc, bs_thread_cpu() - c0);
   }
   ops = (double)mreps * THREADS;
   printf("core compute memory (load+fadd+store):\n");
   measure_all(ncfg, wcfg, msrc, 4, uni, mreps, NULL, runs);
   t1 = runs[0].wall_best;
   tn = runs[1].wall_best;
   printf("  plain C                          %8.1f M elements/s (reference 1.00)\n", ops / tc / 1e6);
   printf("  core, 1 worker                  %8.1f M elements/s ratio %.3f\n", ops / t1 / 1e6, tc / t1);
   printf("  core, %u workers                 %8.1f M elements/s ratio %.3f  (x%.2f vs 1 worker)\n",
          n, ops / tn / 1e6, tc / tn, t1 / tn);
   printf("  CPU-time ratio, 1 worker (all threads' CPU vs the C loop's; not moved by preemption) "
          "%.3f\n", cc / ops / (runs[0].cpu_best / 1024.0));

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
   return status;
}
