/* SPDX-License-Identifier: MIT */
/*
 * Scaling evidence that survives a shared, noisy machine (bench_core,
 * bench_render; method in docs/performance.md, "Scaling").
 *
 * Wall-clock speedups of 1 -> N worker threads swing by x2 here when other
 * sandboxes load the 2 cores, because wall time counts the time our threads
 * sat runnable while someone else ran.  CPU time does not: the kernel's
 * per-thread runtime (/proc/self/task/TID/schedstat, field 1; field 2 is the
 * time the thread waited runnable on a run queue) is what each thread really
 * executed (read through the thread's CPU clock, exact while it runs).  So
 * besides wall time every configuration reports
 *
 *   - CPU time per work unit, N workers vs 1: contention, false sharing,
 *     lock convoys and cache thrashing all cost CPU on some thread and show
 *     as a rise; flat (x1.00) means the workers do not slow each other down;
 *   - the serial part (CPU of the front-end / main thread outside the
 *     parallel phase) as a fraction of all CPU: Amdahl's bound on speedup;
 *   - the CPU-time critical path: serial CPU + the busiest worker's CPU (or
 *     the total spread over min(N, CPUs) cores if that is larger), i.e. the
 *     wall time the run would take if no other process competed; its ratio to
 *     the 1-worker figure is the speedup an idle machine would show;
 *   - per worker: CPU, share, work units (when the benchmark can count them)
 *     and the time it waited runnable; for the machine: load average, steal
 *     and the CPU used by other processes during the run, so a reader can
 *     judge the wall figures.
 *
 * The accounting reads /proc between repetitions, never inside the timed
 * region, and nothing in the renderer core: the hot path is untouched.
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

/* Include first: getloadavg() needs _GNU_SOURCE (or _DEFAULT_SOURCE) under -std=c11. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dirent.h>
#include <sys/resource.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BS_MAX_THREADS 72

struct bs_task {
   int tid;
   uint64_t cpu_ns;  /* runtime */
   uint64_t wait_ns; /* time spent runnable, waiting for a CPU */
};

struct bs_snap {
   unsigned n;
   struct bs_task t[BS_MAX_THREADS];
   uint64_t stat[8]; /* /proc/stat "cpu": user nice system idle iowait irq softirq steal */
   double wall;
};

static inline double bs_now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of the calling thread, up to date (schedstat of a running thread
 * lags by up to a scheduler tick). */
static inline double bs_thread_cpu(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
   return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runtime of thread tid of this process, exact even while it runs on another
 * CPU: the kernel's per-thread CPU clock (what pthread_getcpuclockid()
 * returns; Linux encodes it as ~tid << 3 | CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED).
 * schedstat's runtime is only brought up to date at ticks and context
 * switches, so a worker read just after its last item would lose up to a
 * tick of CPU (4 ms: as much as a short round). */
static inline bool bs_task_clock(int tid, uint64_t *cpu)
{
#ifdef __linux__
   struct timespec ts;
   const clockid_t id = (clockid_t)((~(unsigned)tid) << 3 | 4 | 2);
   if (clock_gettime(id, &ts) == 0) {
      *cpu = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
      return true;
   }
#endif
   (void)tid;
   (void)cpu;
   return false;
}

static inline bool bs_task_read(int tid, uint64_t *cpu, uint64_t *wait)
{
   char path[64];
   unsigned long long a, b;
   snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
   FILE *f = fopen(path, "r");
   if (f) {
      int ok = fscanf(f, "%llu %llu", &a, &b) == 2;
      fclose(f);
      if (ok) {
         uint64_t c;
         *cpu = bs_task_clock(tid, &c) ? c : a;
         *wait = b;
         return true;
      }
   }
   /* Kernels without schedstat: utime + stime in clock ticks, no wait time. */
   char buf[1024];
   snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
   f = fopen(path, "r");
   if (!f)
      return false;
   size_t len = fread(buf, 1, sizeof(buf) - 1, f);
   fclose(f);
   buf[len] = 0;
   const char *p = strrchr(buf, ')');
   if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &a, &b) != 2)
      return false;
   long hz = sysconf(_SC_CLK_TCK);
   *cpu = (a + b) * (1000000000ull / (unsigned long long)(hz > 0 ? hz : 100));
   *wait = 0;
   return true;
}

static inline void bs_snap(struct bs_snap *s)
{
   memset(s, 0, sizeof(*s));
   DIR *d = opendir("/proc/self/task");
   struct dirent *e;
   while (d && (e = readdir(d)) && s->n < BS_MAX_THREADS) {
      int tid = atoi(e->d_name);
      struct bs_task *t = &s->t[s->n];
      if (tid > 0 && bs_task_read(tid, &t->cpu_ns, &t->wait_ns)) {
         t->tid = tid;
         s->n++;
      }
   }
   if (d)
      closedir(d);
   FILE *f = fopen("/proc/stat", "r");
   if (f) {
      unsigned long long v[8] = {0};
      if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                 &v[4], &v[5], &v[6], &v[7]) == 8)
         for (int i = 0; i < 8; i++)
            s->stat[i] = v[i];
      fclose(f);
   }
   s->wall = bs_now();
}

/* Runtime and wait of tid between two snapshots (a thread born in between
 * counts from 0). */
static inline bool bs_task_delta(const struct bs_snap *a, const struct bs_snap *b, int tid,
                                 double *cpu, double *wait)
{
   const struct bs_task *ta = NULL, *tb = NULL;
   for (unsigned i = 0; i < a->n; i++)
      if (a->t[i].tid == tid)
         ta = &a->t[i];
   for (unsigned i = 0; i < b->n; i++)
      if (b->t[i].tid == tid)
         tb = &b->t[i];
   if (!tb)
      return false;
   *cpu = (double)(tb->cpu_ns - (ta ? ta->cpu_ns : 0)) * 1e-9;
   *wait = (double)(tb->wait_ns - (ta ? ta->wait_ns : 0)) * 1e-9;
   return true;
}

/* The worker counts a benchmark compares, each once: 1, n, then 4 and 8
 * (more workers than CPUs must not collapse).  w holds BS_MAX_CONFIGS;
 * returns how many it filled. */
#define BS_MAX_CONFIGS 4
static inline unsigned bs_configs(unsigned n, unsigned *w)
{
   unsigned k = 0;
   const unsigned want[BS_MAX_CONFIGS] = {1, n, 4, 8};
   for (unsigned i = 0; i < BS_MAX_CONFIGS; i++) {
      bool dup = false;
      for (unsigned j = 0; j < k; j++)
         dup |= w[j] == want[i];
      if (!dup)
         w[k++] = want[i];
   }
   return k;
}

/* One configuration (worker count) of one workload, or one repetition of it. */
struct bs_run {
   unsigned workers;
   double wall_best;   /* best wall time of one repetition (s) */
   double cpu_best;    /* best all-threads CPU per work unit of one repetition (s) */
   double crit_best;   /* best CPU critical path per work unit of one repetition (s) */
   double wall;        /* sums over the accounted repetitions: wall (s), */
   double units;       /* work units, */
   double serial_cpu;  /* CPU (s) of the serial part, */
   double main_wait;   /* the main thread's time waiting runnable (s), */
   unsigned nw;        /* and per worker: */
   double w_cpu[BS_MAX_THREADS];   /* parallel CPU (s) */
   double w_wait[BS_MAX_THREADS];  /* waited runnable (s) */
   double w_units[BS_MAX_THREADS]; /* work units, < 0: not counted */
};

static inline void bs_run_init(struct bs_run *r, unsigned workers)
{
   memset(r, 0, sizeof(*r));
   r->workers = workers;
   r->wall_best = r->cpu_best = r->crit_best = 1e30;
}

static inline double bs_sum(const double *v, unsigned n)
{
   double s = 0;
   for (unsigned i = 0; i < n; i++)
      s += v[i];
   return s;
}

static inline double bs_max(const double *v, unsigned n)
{
   double m = 0;
   for (unsigned i = 0; i < n; i++)
      m = v[i] > m ? v[i] : m;
   return m;
}

/* All threads' CPU (s) per work unit. */
static inline double bs_cpu_per_unit(const struct bs_run *r)
{
   return (r->serial_cpu + bs_sum(r->w_cpu, r->nw)) / r->units;
}

/* CPU-time critical path of r per work unit (see the top of the file). */
static inline double bs_critical(const struct bs_run *r, unsigned ncpu)
{
   unsigned cores = r->workers < ncpu ? r->workers : ncpu;
   double spread = bs_sum(r->w_cpu, r->nw) / (cores ? cores : 1);
   double busiest = bs_max(r->w_cpu, r->nw);
   return (r->serial_cpu + (busiest > spread ? busiest : spread)) / r->units;
}

/* Folds one repetition (accounted in `rep`, same worker order) into the
 * configuration's totals.  Other processes only ever add CPU time to ours
 * (shared caches, memory bandwidth, a host SMT sibling), so as for wall time
 * the best repetition is the least disturbed one. */
static inline void bs_run_add(struct bs_run *t, const struct bs_run *rep, unsigned ncpu)
{
   double c = bs_cpu_per_unit(rep), k = bs_critical(rep, ncpu);
   t->wall_best = rep->wall < t->wall_best ? rep->wall : t->wall_best;
   t->cpu_best = c < t->cpu_best ? c : t->cpu_best;
   t->crit_best = k < t->crit_best ? k : t->crit_best;
   t->wall += rep->wall;
   t->units += rep->units;
   t->serial_cpu += rep->serial_cpu;
   t->main_wait += rep->main_wait;
   if (rep->nw > t->nw)
      t->nw = rep->nw;
   for (unsigned i = 0; i < rep->nw; i++) {
      t->w_cpu[i] += rep->w_cpu[i];
      t->w_wait[i] += rep->w_wait[i];
      t->w_units[i] = rep->w_units[i] < 0 ? -1 : t->w_units[i] + rep->w_units[i];
   }
}

/* The machine's counters (/proc/stat) and our process's CPU over a window
 * (the interleaved repetitions of all configurations of a workload), for
 * "what else ran meanwhile". */
struct bs_window {
   struct bs_snap snap;
   double own_cpu;
   uint64_t stat[8]; /* deltas, after bs_window_end */
   double own;
};

static inline double bs_process_cpu(void)
{
   struct rusage ru;
   getrusage(RUSAGE_SELF, &ru);
   return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
          (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static inline void bs_window_begin(struct bs_window *w)
{
   bs_snap(&w->snap);
   w->own_cpu = bs_process_cpu();
}

static inline void bs_window_end(struct bs_window *w)
{
   struct bs_snap b;
   bs_snap(&b);
   for (int i = 0; i < 8; i++)
      w->stat[i] = b.stat[i] - w->snap.stat[i];
   w->own = bs_process_cpu() - w->own_cpu;
}

static inline double bs_load1(void)
{
   double l[3] = {0, 0, 0};
   return getloadavg(l, 3) < 0 ? -1 : l[0];
}

/* Prints the scaling report of `r` against the 1-worker run `base`: CPU per
 * `unit` in `unit_scale_name` (seconds x unit_scale), per-worker work counts
 * in `wunit`s. */
static inline void bs_print(const char *indent, const char *unit, double unit_scale,
                            const char *unit_scale_name, const char *wunit,
                            const struct bs_run *base, const struct bs_run *r, unsigned ncpu)
{
   const double par = bs_sum(r->w_cpu, r->nw);
   const double s1 = base->serial_cpu / (base->serial_cpu + bs_sum(base->w_cpu, base->nw));
   const double sn = r->serial_cpu / (r->serial_cpu + par);
   const unsigned cores = r->workers < ncpu ? r->workers : ncpu;
   const double speed = base->wall_best / r->wall_best;
   const double amdahl = 1.0 / (s1 + (1.0 - s1) / cores);
   printf("%s%u worker%s: wall x%.2f vs 1 (efficiency %.0f%% of %u core%s); CPU/%s %.3f %s "
          "(x%.3f vs 1); serial %.2f%% of CPU; CPU critical path x%.2f vs 1 "
          "(Amdahl bound x%.2f)\n",
          indent, r->workers, r->workers == 1 ? "" : "s", speed, 100.0 * speed / cores, cores,
          cores == 1 ? "" : "s", unit, r->cpu_best * unit_scale, unit_scale_name,
          r->cpu_best / base->cpu_best, 100.0 * sn, base->crit_best / r->crit_best, amdahl);
   printf("%s   workers (CPU ms, share", indent);
   bool counted = r->nw && r->w_units[0] >= 0;
   if (counted)
      printf(", %ss", wunit);
   printf(", waited runnable ms):");
   for (unsigned i = 0; i < r->nw; i++) {
      printf(" [%.1f %.0f%%", r->w_cpu[i] * 1e3, par > 0 ? 100.0 * r->w_cpu[i] / par : 0.0);
      if (counted)
         printf(" %.0f", r->w_units[i]);
      printf(" %.1f]", r->w_wait[i] * 1e3);
   }
   printf("; main serial %.1f ms (waited %.1f)\n", r->serial_cpu * 1e3, r->main_wait * 1e3);
}

/* Prints what else the machine ran during window w. */
static inline void bs_print_machine(const char *indent, const struct bs_window *w, unsigned ncpu)
{
   uint64_t tot = 0;
   for (int i = 0; i < 8; i++)
      tot += w->stat[i];
   const double hz = sysconf(_SC_CLK_TCK) > 0 ? (double)sysconf(_SC_CLK_TCK) : 100.0;
   const double cap = (double)tot / hz; /* CPU-seconds of all CPUs */
   const double busy = (double)(w->stat[0] + w->stat[1] + w->stat[2] + w->stat[5] + w->stat[6]) / hz;
   const double others = busy > w->own ? busy - w->own : 0;
   if (cap < 0.2 * ncpu)
      printf("%smachine: run too short for /proc/stat ticks; load average %.2f\n", indent,
             bs_load1());
   else
      printf("%smachine meanwhile (%.2f s): other processes used %.0f%% of the %u CPUs, this "
             "benchmark %.0f%%, steal %.1f%%; load average %.2f\n",
             indent, cap / ncpu, 100.0 * others / cap, ncpu, 100.0 * w->own / cap,
             100.0 * (double)w->stat[7] / (double)tot, bs_load1());
}

#endif
