/* SPDX-License-Identifier: MIT */
/*
 * Host-side promises of the renderer core (issue 16): every wait the host
 * makes on the device is bounded, and cached host pointers of guest pages
 * are dropped when the host's memory map changes.
 *
 *  - reset-bounded: a task stuck inside a host op (as a QEMU device thread
 *    waiting for a lock would be) must not make vagx_core_reset_host() spin
 *    forever; the reset stays pending (RESET_BUSY) and completes when the
 *    task ends.
 *  - map-flush: pointers from host_ops.map survive across jobs only until
 *    vagx_core_host_map_flush(); every map happens inside an access bracket;
 *    a flush that cannot complete returns within its bound.
 *
 * A watchdog thread fails the test (exit 1) instead of letting it hang.
 */
#include <pthread.h>
#include <sys/mman.h>

#include "core_test.h"

#define RAM (16ull << 20)
#define VA_BUF 0x0000004000000000ull
#define VA_SPARSE 0x0000100000000000ull
#define MS 1000000ull

/* ------------------------------------------------------ instrumented host -- */

static _Atomic bool stall;            /* reads of stall_pa spin while set */
static _Atomic uint64_t stall_pa;
static _Atomic unsigned stalled;      /* threads currently spinning */
static _Atomic unsigned maps;         /* map calls */

static int h_read(void *o, uint64_t pa, void *buf, size_t len)
{
   if (atomic_load(&stall) && pa == atomic_load(&stall_pa)) {
      atomic_fetch_add(&stalled, 1);
      while (atomic_load(&stall))
         usleep(100);
      atomic_fetch_sub(&stalled, 1);
   }
   return f_read(o, pa, buf, len);
}

static void *h_map(void *o, uint64_t pa, size_t len, bool write)
{
   atomic_fetch_add(&maps, 1);
   return f_map(o, pa, len, write);
}

static const struct vagx_core_host_ops host_ops = {
   .read = h_read, .write = f_write, .map = h_map, .raise_irq = f_irq, .now_ns = f_now,
   .kick = f_kick, .access_begin = f_begin, .access_end = f_end,
};

static void hdev_init(struct tdev *d, bool nomap)
{
   memset(d, 0, sizeof(*d));
   d->f = fake_new(RAM);
   d->f->nomap = nomap;
   struct vagx_core_config cfg = {.num_workers = 2};
   d->core = vagx_core_create(&host_ops, d->f, &cfg);
   d->completion_pa = pa_alloc(d->f, VAGX_PAGE_SIZE);
   wr(d, VAGX_REG_INT_ENABLE, ~0u);
}

static uint64_t submit_copy(struct tq *t, uint64_t root, uint64_t dst, uint64_t src,
                            uint64_t size, uint64_t seqno)
{
   struct vagx_job_header h;
   struct vagx_copy_job c;
   uint32_t p[VAGX_RING_SLOT_PAYLOAD_SIZE / 4] = {0};
   hdr_init(t, &h, VAGX_JOB_TYPE_COPY, root, seqno);
   vagx_copy_job_init(&c);
   c.dst_va = dst;
   c.src_va = src;
   c.size = size;
   vagx_copy_job_pack(p, &c);
   return tq_submit(t, &h, p);
}

/* ---------------------------------------------------------------- watchdog -- */

static void *watchdog(void *arg)
{
   unsigned secs = *(unsigned *)arg;
   sleep(secs);
   fprintf(stderr, "test_core_host: hung for %u s (a host-side wait is unbounded)\n", secs);
   fflush(stderr);
   _exit(1);
   return NULL;
}

/* ------------------------------------------------------------------- tests -- */

struct proc_arg {
   struct vagx_core *core;
};

static void *run_process(void *arg)
{
   vagx_core_process(((struct proc_arg *)arg)->core);
   return NULL;
}

/* A copy whose task is stuck in a host read (a page-table read of the source
 * page): the front end sits in vagx_core_process() waiting for it, and a host
 * reset must neither spin forever nor complete under the running task. */
static void test_reset_bounded(void)
{
   struct tdev d;
   hdev_init(&d, true); /* no map: the copy reads through host_ops.read */
   uint64_t root = vm_new(d.f);
   uint64_t src_pa = vm_alloc(d.f, root, VA_BUF, 2 * VAGX_PAGE_SIZE, false);
   vm_alloc(d.f, root, VA_BUF + 4 * VAGX_PAGE_SIZE, 2 * VAGX_PAGE_SIZE, false);
   struct tq t;
   tq_init(&t, &d, 0, 3);
   wr(&d, VAGX_REG_SCRATCH, 0x1234);

   atomic_store(&stall_pa, src_pa);
   atomic_store(&stall, true);
   struct proc_arg pa = {d.core};
   pthread_t fe;
   submit_copy(&t, root, VA_BUF + 4 * VAGX_PAGE_SIZE, VA_BUF, VAGX_PAGE_SIZE, 1);
   pthread_create(&fe, NULL, run_process, &pa);
   CHECK(WAIT_UNTIL(atomic_load(&stalled) == 1, 5), "task stuck in read");

   /* The host reset of a binding whose front end did not come back. */
   double t0 = t_now_s();
   vagx_core_reset_host(d.core);
   double took = t_now_s() - t0;
   CHECK(took < VAGX_CORE_RESET_HOST_TIMEOUT_NS * 1e-9 + 1.0, "reset_host bounded: %.2f s", took);
   CHECK(VAGX_STATUS_RESET_BUSY_GET(rd(&d, VAGX_REG_STATUS)), "wedged: RESET_BUSY reads 1");
   CHECK(atomic_load(&stalled) == 1, "task still stuck");

   /* A shorter bound, as the QEMU binding passes. */
   t0 = t_now_s();
   CHECK(vagx_core_reset_host_timeout(d.core, 100 * MS) == -1, "timeout reported");
   took = t_now_s() - t0;
   CHECK(took < 1.0, "reset_host_timeout bounded: %.2f s", took);

   /* Nothing new starts while the reset is pending. */
   struct tq t1;
   tq_init(&t1, &d, 1, 3);
   struct vagx_job_header h;
   hdr_init(&t1, &h, VAGX_JOB_TYPE_NOP, 0, 7);
   tq_submit(&t1, &h, NULL);
   usleep(20000);
   CHECK(q_seqno(&d, 1) == 0, "no job while wedged");

   /* The task ends: process() completes the reset (power-on values) and
    * returns; no completion was written for the dropped job. */
   atomic_store(&stall, false);
   pthread_join(fe, NULL);
   CHECK(!VAGX_STATUS_RESET_BUSY_GET(rd(&d, VAGX_REG_STATUS)), "reset completed");
   CHECK(rd(&d, VAGX_REG_SCRATCH) == 0, "power-on values: scratch %x", rd(&d, VAGX_REG_SCRATCH));
   CHECK(rd(&d, VAGX_REG_INT_ENABLE) == 0, "power-on values: int_enable");
   CHECK(q_state(&d, 0) == VAGX_QUEUE_STATE_STOPPED && q_state(&d, 1) == VAGX_QUEUE_STATE_STOPPED,
         "queues stopped");
   CHECK(pa_u64(d.f, d.completion_pa) == 0, "dropped job not completed");

   /* And the device works again. */
   vagx_core_frontend_start(d.core);
   tq_init(&t, &d, 0, 3);
   submit_copy(&t, root, VA_BUF + 4 * VAGX_PAGE_SIZE, VA_BUF, VAGX_PAGE_SIZE, 2);
   CHECK(WAIT_UNTIL(q_seqno(&d, 0) == 2, 5), "job after reset");
   tdev_fini(&d);
}

/* Cached host pointers are kept across jobs, dropped by a host map flush,
 * and every map happens inside an access bracket. */
static void test_map_flush(void)
{
   struct tdev d;
   hdev_init(&d, false);
   uint64_t root = vm_new(d.f);
   vm_alloc(d.f, root, VA_BUF, 2 * VAGX_PAGE_SIZE, false);
   struct tq t;
   tq_init(&t, &d, 0, 3);
   vagx_core_frontend_start(d.core);

   uint64_t seq = 0;
   /* Enough jobs that every worker has the two pages in its TLB. */
   for (unsigned i = 0; i < 8; i++)
      submit_copy(&t, root, VA_BUF + VAGX_PAGE_SIZE, VA_BUF, 64, ++seq);
   CHECK(WAIT_UNTIL(q_seqno(&d, 0) == seq, 5), "warm-up jobs");
   unsigned warm = atomic_load(&maps);
   CHECK(warm > 0, "map used");
   /* Which thread runs a job is up to the scheduler, so a thread may still
    * see the pages for the first time now: it maps them once. Without
    * reuse across jobs every job would map its two pages again (>= 128
    * maps); with it, only the few threads of the device map, once each. */
   const unsigned cached_jobs = 64;
   for (unsigned i = 0; i < cached_jobs; i++) {
      submit_copy(&t, root, VA_BUF + VAGX_PAGE_SIZE, VA_BUF, 64, ++seq);
      if (i % 4 == 3)
         CHECK(WAIT_UNTIL(q_seqno(&d, 0) == seq, 5), "cached jobs");
   }
   CHECK(atomic_load(&maps) - warm < cached_jobs / 4, "TLB kept across jobs: %u -> %u maps",
         warm, atomic_load(&maps));

   CHECK(vagx_core_host_map_flush(d.core, 1000 * MS) == 0, "idle flush completes");
   submit_copy(&t, root, VA_BUF + VAGX_PAGE_SIZE, VA_BUF, 64, ++seq);
   CHECK(WAIT_UNTIL(q_seqno(&d, 0) == seq, 5), "job after flush");
   CHECK(atomic_load(&maps) > warm, "pointers mapped again after a flush");
   CHECK(atomic_load(&f_maps_outside) == 0, "%u maps outside an access bracket",
         atomic_load(&f_maps_outside));
   CHECK(atomic_load(&f_bracket_errors) == 0, "unbalanced access brackets");

   /* A thread stuck inside its slice (in the page walk of the source page,
    * after a TLB invalidation): the flush gives up within its bound. */
   atomic_store(&stall_pa, vm_entry(d.f, root, VA_BUF, VAGX_PT_LEVELS - 1));
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1));
   CHECK(WAIT_UNTIL(!VAGX_TLB_INV_STATUS_BUSY_GET(rd(&d, VAGX_REG_TLB_INV_STATUS)), 5),
         "tlb invalidated");
   atomic_store(&stall, true);
   submit_copy(&t, root, VA_BUF + VAGX_PAGE_SIZE, VA_BUF, 64, ++seq);
   CHECK(WAIT_UNTIL(atomic_load(&stalled) > 0, 5), "task stuck in the walk");
   double t0 = t_now_s();
   CHECK(vagx_core_host_map_flush(d.core, 100 * MS) == -1, "flush reports a busy thread");
   CHECK(t_now_s() - t0 < 1.0, "flush bounded: %.2f s", t_now_s() - t0);
   atomic_store(&stall, false);
   CHECK(WAIT_UNTIL(q_seqno(&d, 0) == seq, 5), "job ends after the stall");
   CHECK(vagx_core_host_map_flush(d.core, 1000 * MS) == 0, "flush completes once idle");
   tdev_fini(&d);
}

/* ------------------------------------------------- no use after a flush -- */

/* Guest RAM as a memfd seen through two more windows: map() hands out
 * pointers into the current window; after a completed flush the old window
 * is made inaccessible, so any use of an old pointer crashes the test. */
static uint8_t *win[2];
static _Atomic int win_cur;

static void *w_map(void *o, uint64_t pa, size_t len, bool write)
{
   struct fake *f = (struct fake *)o;
   (void)f_map(o, pa, len, write); /* bracket bookkeeping */
   if (pa >= f->size || len > f->size - pa)
      return NULL;
   return win[atomic_load(&win_cur)] + pa;
}

static const struct vagx_core_host_ops win_ops = {
   .read = f_read, .write = f_write, .map = w_map, .raise_irq = f_irq, .now_ns = f_now,
   .kick = f_kick, .access_begin = f_begin, .access_end = f_end,
};

/* 512 GiB of VA from va (512 GiB aligned) that all land in `npages` pages
 * of RAM (one leaf table under every level-2 entry, one level-2 table under
 * every level-1 entry): long jobs whose every page goes through map. */
static uint64_t alias_vm(struct fake *f, uint64_t va, unsigned npages, uint64_t *data_pa)
{
   uint64_t root = vm_new(f);
   uint64_t data = pa_alloc(f, (uint64_t)npages * VAGX_PAGE_SIZE);
   uint64_t leaf = pa_alloc(f, VAGX_PAGE_SIZE);
   uint64_t mask = ~(uint64_t)(VAGX_PAGE_SIZE - 1);
   uint64_t l2e = vm_entry(f, root, va, VAGX_PT_LEVELS - 2) & mask;
   uint64_t l1e = vm_entry(f, root, va, VAGX_PT_LEVELS - 3) & mask;
   struct vagx_pte p;
   for (unsigned i = 0; i < VAGX_PT_ENTRIES; i++) {
      vagx_pte_init(&p);
      p.valid = true;
      p.addr = l2e;
      pte_store(f, l1e + (uint64_t)i * VAGX_PTE_SIZE, &p);
      vagx_pte_init(&p);
      p.valid = true;
      p.addr = data + (uint64_t)(i % npages) * VAGX_PAGE_SIZE;
      pte_store(f, leaf + (uint64_t)i * VAGX_PTE_SIZE, &p);
      vagx_pte_init(&p);
      p.valid = true;
      p.addr = leaf;
      pte_store(f, l2e + (uint64_t)i * VAGX_PTE_SIZE, &p);
   }
   *data_pa = data;
   return root;
}

static void test_no_use_after_flush(void)
{
   int fd = memfd_create("vagx-ram", 0);
   CHECK(fd >= 0 && ftruncate(fd, RAM) == 0, "memfd");
   struct fake *f = (struct fake *)calloc(1, sizeof(*f));
   f->ram = mmap(NULL, RAM, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
   f->size = RAM;
   f->next = VAGX_PAGE_SIZE;
   for (int i = 0; i < 2; i++)
      win[i] = mmap(NULL, RAM, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
   struct tdev d = {.f = f};
   struct vagx_core_config cfg = {.num_workers = 2};
   d.core = vagx_core_create(&win_ops, f, &cfg);
   d.completion_pa = pa_alloc(f, VAGX_PAGE_SIZE);
   uint64_t data;
   uint64_t root = alias_vm(f, VA_SPARSE, 64, &data);
   struct tq t;
   tq_init(&t, &d, 0, 6);
   vagx_core_frontend_start(d.core);

   /* Fills of the 64 pages (in every thread's TLB after the first), and
    * long fills of 4 GiB (2^20 pages through map) between them. */
   uint64_t seq = 0;
   struct vagx_job_header h;
   struct vagx_fill_job fj;
   uint32_t pl[VAGX_RING_SLOT_PAYLOAD_SIZE / 4] = {0};
#define FILL(bytes)                                                             \
   do {                                                                         \
      hdr_init(&t, &h, VAGX_JOB_TYPE_FILL, root, ++seq);                         \
      vagx_fill_job_init(&fj);                                                  \
      fj.dst_va = VA_SPARSE;                                                    \
      fj.size = (bytes);                                                        \
      fj.pattern = 0x1000 + (uint32_t)seq;                                      \
      vagx_fill_job_pack(pl, &fj);                                              \
      tq_submit(&t, &h, pl);                                                    \
   } while (0)
   for (unsigned i = 0; i < 8; i++)
      FILL(64 * VAGX_PAGE_SIZE);
   FILL(1ull << 32);
   for (unsigned i = 0; i < 8; i++)
      FILL(64 * VAGX_PAGE_SIZE);
   CHECK(WAIT_UNTIL(q_seqno(&d, 0) >= 8, 10), "small fills done");

   /* The host's memory map changes while the long fill runs: new pointers
    * come from window 1, and once the flush completed window 0 is gone.  A
    * TLB entry that survived it would now crash the test. */
   atomic_store(&win_cur, 1);
   int r = vagx_core_host_map_flush(d.core, 1000 * MS);
   CHECK(r == 0, "flush completes while jobs run");
   if (r == 0)
      mprotect(win[0], RAM, PROT_NONE);
   CHECK(q_seqno(&d, 0) < 10, "the flush met the long fill (seqno %llu)",
         (unsigned long long)q_seqno(&d, 0));
   for (unsigned i = 0; i < 8; i++)
      FILL(64 * VAGX_PAGE_SIZE);
#undef FILL
   CHECK(WAIT_UNTIL(q_seqno(&d, 0) == seq, 60), "every fill ended: seqno %llu",
         (unsigned long long)q_seqno(&d, 0));
   CHECK(pa_u32(f, data + 63 * VAGX_PAGE_SIZE)[1023] == 0x1000 + seq, "last fill's data");
   vagx_core_destroy(d.core);
   munmap(f->ram, RAM);
   free(f);
   munmap(win[0], RAM);
   munmap(win[1], RAM);
   close(fd);
}

int main(void)
{
   unsigned limit = 60;
   pthread_t wd;
   pthread_create(&wd, NULL, watchdog, &limit);
   test_reset_bounded();
   test_map_flush();
   test_no_use_after_flush();
   printf("test_core_host: %d checks, %d failures\n", t_checks, t_failures);
   return t_failures ? 1 : 0;
}
