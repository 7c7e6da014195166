/* SPDX-License-Identifier: MIT */
/* Internal structures of the vagx renderer core. */
#ifndef VAGX_CORE_PRIV_H
#define VAGX_CORE_PRIV_H

/* Included first by every core source: POSIX/GNU declarations (usleep,
 * pthread_condattr_setclock, aligned_alloc) whatever the build's flags. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "vagx_hw.h"
#include "vagx_core.h"

#include "usc.h"

static_assert(VAGX_MSIX_VECTORS <= 64, "vector mask is 64 bits");
static_assert(VAGX_MAX_QUEUES <= 16, "queue fields");

/* A scanout fault must not look like any queue's, and must fit the field. */
static_assert(VAGX_FAULT_QUEUE_SCANOUT >= VAGX_MAX_QUEUES &&
                 VAGX_FAULT_QUEUE_SCANOUT <=
                    (VAGX_FAULT_STATUS_QUEUE__MASK >> VAGX_FAULT_STATUS_QUEUE__SHIFT),
              "FAULT_QUEUE_SCANOUT");

/* ---------------------------------------------------------------- MMU -- */

struct core_fault {
   uint64_t va, root;
   enum vagx_fault_access access;
   enum vagx_fault_reason reason;
   unsigned level;
   enum vagx_unit unit;
};

/* Result of a page walk. */
struct core_xlate {
   uint64_t pa;      /* page base (0 for NULL pages) */
   bool null, ro, nx;
   uint8_t *host;    /* host pointer of the page, or NULL */
};

#define CORE_TLB_ENTRIES 256
struct core_tlb_entry {
   uint64_t root, vpn;   /* vpn = va >> PAGE_SHIFT; root 0 = invalid */
   struct core_xlate x;
};

/* A thread's view of the MMU: its private TLB.  One per worker plus one for
 * the front-end; never shared. */
struct core_mmu_ctx {
   struct vagx_core *core;
   uint64_t gen;   /* core->tlb_gen the TLB was filled under */
   uint64_t host_gen;  /* core->host_gen the TLB was filled under */
   /* times core_mmu_sync dropped the TLB: a host address translated
    * before a drop may be stale, one translated since may be kept (what
    * usc_safepoint tells the USC and the renderer) */
   uint64_t drops;
   struct core_tlb_entry tlb[CORE_TLB_ENTRIES];
   uint64_t walks, hits;
};

void core_mmu_ctx_init(struct core_mmu_ctx *m, struct vagx_core *core);
/* Drops the TLB if an invalidation happened since the last sync. */
void core_mmu_sync(struct core_mmu_ctx *m);
/* Translates the page containing va.  Returns true, or false with *f filled. */
bool core_mmu_translate(struct core_mmu_ctx *m, uint64_t root, uint64_t va,
                        enum vagx_fault_access access, struct core_xlate *x,
                        struct core_fault *f);
/* Copies through the MMU (NULL pages: reads 0, writes dropped).  Return true
 * or false with *f (unit left for the caller). */
bool core_mmu_read(struct core_mmu_ctx *m, uint64_t root, uint64_t va, void *buf, uint64_t len,
                   struct core_fault *f);
bool core_mmu_write(struct core_mmu_ctx *m, uint64_t root, uint64_t va, const void *buf,
                    uint64_t len, struct core_fault *f);

/* Page walk on raw read callbacks (no TLB, no map): shared with the decoder. */
typedef int (*core_read_fn)(void *opaque, uint64_t pa, void *buf, size_t len);
bool core_walk(core_read_fn rd, void *opaque, uint64_t root, uint64_t va,
               enum vagx_fault_access access, struct core_xlate *x, struct core_fault *f);

/* A VA range walked page by page: the one loop that cuts a range at page
 * boundaries, under core_mmu_read/write (through a thread's TLB: set
 * s.mmu after init) and on raw callbacks (core_walk: no TLB, no host map)
 * for the threads that own no core_mmu_ctx (the display, the writeback,
 * the decoder):
 *
 *    struct core_span s;
 *    core_span_init(&s, rd, opaque, root, va, len, access);
 *    while ((r = core_span_next(&s, &f)) > 0)
 *       use s.x for the s.n bytes at s.va (s.off into its page, s.done
 *       bytes after the range's start);
 *    r == 0: the whole range was walked; r < 0: a fault, in f.
 *
 * Each piece is checked against `access` as core_mmu_translate does (NULL
 * pages never fault, a write to a READ_ONLY page does); only a TLB
 * translation gives s.x.host. */
struct core_span {
   core_read_fn rd;
   void *opaque;
   uint64_t root;
   enum vagx_fault_access access;
   struct core_mmu_ctx *mmu; /* NULL: walk on rd, else translate through it */
   uint64_t next_va, left;   /* what is still to walk */
   /* the current piece, after core_span_next returned 1 */
   uint64_t va, off, n, done;
   struct core_xlate x;
};

void core_span_init(struct core_span *s, core_read_fn rd, void *opaque, uint64_t root, uint64_t va,
                    uint64_t len, enum vagx_fault_access access);
/* 1: the next piece is in s; 0: the range is done; -1: *f holds the fault
 * of the piece at s->va (unit left for the caller). */
int core_span_next(struct core_span *s, struct core_fault *f);
/* Copies len bytes at va out of the VM into `out` (a read) or from `in`
 * into it (a write, out NULL) through core_span on ops: NULL pages read as
 * zero and drop writes, and a failed ops->read/write is BUS_ERROR at the
 * last level.  True, or false with *f (unit left for the caller). */
bool core_span_copy(const struct vagx_core_host_ops *ops, void *opaque, uint64_t root, uint64_t va,
                    void *out, const void *in, uint64_t len, struct core_fault *f);

/* --------------------------------------------------------------- pool -- */

struct core_worker;
struct core_task;
/* Runs a slice of work; returns true to be queued again (at the tail). */
typedef bool (*core_task_fn)(struct core_worker *w, struct core_task *t);

struct core_job;
struct core_render;
struct vagx_render_device;
struct core_task {
   core_task_fn fn;
   struct core_task *next;
   struct core_job *job;
   unsigned index;
};

struct core_worker {
   struct vagx_core *core;
   unsigned index;
   pthread_t thread;
   struct core_mmu_ctx mmu;
   _Atomic uint64_t active_epoch;   /* 0 = idle, else tlb epoch at slice start */
   uint8_t *sink;                   /* NULL-page write sink (one page) */
   struct vagx_usc *usc;
};

struct core_pool {
   pthread_mutex_t lock;
   pthread_cond_t cond;
   struct core_task *head, *tail;
   _Atomic unsigned queued;   /* tasks in the FIFO: polled without the lock */
   bool stop;
   unsigned nworkers;
   struct core_worker *workers;
};

int core_pool_init(struct core_pool *p, struct vagx_core *core, unsigned n);
void core_pool_fini(struct core_pool *p);
void core_pool_submit(struct core_pool *p, struct core_task *t);
/* Polls *v for a short while (tens of microseconds) before the caller
 * sleeps on a condition: true when it reached target. */
bool core_spin_until(const _Atomic unsigned *v, unsigned target);

/* ---------------------------------------------------------------- job -- */

enum core_abort_reason { CORE_ABORT_NONE, CORE_ABORT_ABORT, CORE_ABORT_TIMEOUT, CORE_ABORT_DROP };

struct core_job {
   struct vagx_core *core;
   unsigned q;
   uint64_t slot_pa;
   uint64_t seqno;              /* job_header.seqno as fetched (raw, even if the
                                   header is invalid); set before the job is
                                   published in core_queue.job, read under the
                                   lock by Q_ABORT with MATCH=1 */
   struct vagx_job_header hdr;
   bool hdr_ok;                 /* header unpacked and validated */
   _Atomic bool abort;
   _Atomic int abort_reason;    /* enum core_abort_reason */
   _Atomic int outstanding;     /* pool tasks not finished */
   bool setup_done;             /* front-end finished setting the job up */
   uint64_t start_ns, deadline_ns;

   /* first error wins */
   pthread_mutex_t err_lock;
   bool failed;
   struct vagx_job_result result;

   /* payloads */
   union {
      struct vagx_copy_job copy;
      struct vagx_fill_job fill;
   } u;
   _Atomic uint64_t cursor;     /* copy/fill: next byte; compute: next threadgroup */
   uint64_t total;              /* bytes or threadgroups */

   /* compute / render */
   struct core_compute *cs;
   struct core_render *render;
   struct core_task tasks[];    /* allocated per job */
};

/* Records a failure (first one wins) and stops the job's other tasks. */
void core_job_fail(struct core_job *job, enum vagx_job_status st, enum vagx_unit unit,
                   uint32_t detail, uint64_t address);
/* Records an MMU fault: job result + FAULT_* registers latch. */
void core_job_fault(struct core_job *job, const struct core_fault *f);
/* Reports a fault on the device's fault registers (latch + INT). */
void core_latch_fault(struct vagx_core *core, const struct core_fault *f, unsigned queue);
/* Reports ev through host_ops.event, if any (any thread, locks allowed). */
void core_event(struct vagx_core *core, const struct vagx_core_event *ev);
void core_free_job(struct core_job *job);
/* A task of `job` finished (called by the pool after the slice ended);
 * wakes the front-end when it was the last one. */
void core_job_task_done(struct core_job *job);
/* Called at slice boundaries: marks the worker active/idle for the TLB
 * invalidation protocol. */
void core_worker_slice_begin(struct core_worker *w);
void core_worker_slice_end(struct core_worker *w);
/* Mid-slice point where w holds no translation: completes a pending TLB
 * invalidation for w (as slice end + begin would) without ending its work. */
void core_worker_safepoint(struct core_worker *w);

/* copy/fill (core_copy.c) */
int core_copy_setup(struct core_job *job, const uint32_t *payload);
int core_fill_setup(struct core_job *job, const uint32_t *payload);
unsigned core_copy_ntasks(struct core_job *job);
bool core_copy_task(struct core_worker *w, struct core_task *t);

/* compute (core_compute.c): setup on the front-end (descriptor, uniforms,
 * program); returns number of tasks to submit (0: finished or failed). */
unsigned core_compute_setup(struct core_job *job, struct core_mmu_ctx *m);
/* Translation context of one USC run (one thread): the USC's translate
 * callback walks the job's VM with the worker's TLB and records the first
 * fault for the job result. */
struct core_run_ctx {
   struct core_worker *w;
   uint64_t root;
   bool faulted;
   struct core_fault fault;
   /* w and w->mmu.drops at the last safepoint (usc_safepoint) */
   const struct core_worker *seen_w;
   uint64_t seen_drops;
} __attribute__((aligned(64))); /* a line each: workers poll their own per block */
extern const struct vagx_usc_mem_ops core_usc_mem_ops;
/* What every read of a NULL page sees (mmu.md): VAGX_PAGE_SIZE zero bytes,
 * never written (writes to a NULL page go to a sink).  One for all cores,
 * so that core_usc_mem_ops can name it (null_page, for tex.resid). */
extern const uint8_t core_null_page[];
bool core_compute_task(struct core_worker *w, struct core_task *t);
void core_compute_free(struct core_job *job);
void core_compute_trim(struct vagx_core *core);
/* render (core_render.c): one task running the tile pipeline of render/. */
unsigned core_render_setup(struct core_job *job);
bool core_render_task(struct core_worker *w, struct core_task *t);
void core_render_free(struct core_job *job);
/* The renderer of queue q, created on first use (NULL: out of memory); it
 * runs the queue's render jobs and the texture unit of its compute jobs,
 * one job at a time as the queue does. */
struct vagx_render_device *core_render_device(struct vagx_core *core, unsigned q);
struct vagx_render_fault;
/* Reports a renderer error as the job's; rc: the translate context of the
 * worker that faulted (its fault record has the MMU's detail), or NULL. */
void core_render_report(struct core_job *job, const struct vagx_render_fault *f,
                        const struct core_run_ctx *rc);
void core_render_fini(struct vagx_core *core);
int core_worker_usc_init(struct core_worker *w);
void core_worker_usc_fini(struct core_worker *w);

/* -------------------------------------------------------------- queue -- */

struct core_queue {
   uint32_t ring_base_lo, ring_base_hi, ring_size, control;
   uint32_t head, tail;
   uint32_t tail_db;         /* TAIL as seen by the last valid doorbell */
   enum vagx_queue_state state;
   enum vagx_job_status error;
   uint64_t last_seqno;
   uint32_t jobs_done;
   uint64_t abort_match;     /* Q_ABORT_MATCH_LO/HI */
   enum vagx_abort_result abort_result;  /* Q_ABORT_STATUS.RESULT */
   uint32_t gen;             /* bumped by enable/disable/resets: a slot fetched
                                under an older gen is stale */
   unsigned vector;          /* vector of the last job (JOB_DONE/QUEUE_ERROR) */
   bool reset_pending, stop_pending;
   struct core_job *job;     /* running job (owned by the front-end) */
};

/* An armed writeback: ARMED by SCANOUT_WB_ARM, LATCHED by the next
 * SCANOUT_COMMIT, RUNNING from the vblank that writes it until its end. */
enum core_wb_state { CORE_WB_IDLE, CORE_WB_ARMED, CORE_WB_LATCHED, CORE_WB_RUNNING };

struct vagx_core {
   struct vagx_core_host_ops ops;
   void *opaque;
   struct vagx_core_config cfg;
   unsigned nqueues;

   pthread_mutex_t lock;          /* registers below; never held over host ops */
   pthread_cond_t cond;           /* front-end wakeup */
   bool work;                     /* something for process() to look at */
   bool in_process;

   uint32_t int_status, int_enable;
   uint64_t irq_vectors;          /* vectors to raise when the lock drops */
   uint32_t scratch, error_status;
   bool global_reset_pending;

   uint32_t tlb_inv_regs[6];      /* ROOT_LO/HI, VA_LO/HI, SIZE_LO/HI */
   bool tlb_busy;
   uint64_t tlb_inv_epoch;        /* epoch of the pending invalidation */
   uint32_t tlb_seq;
   _Atomic uint64_t tlb_gen;      /* bumped per invalidation; workers resync */
   _Atomic uint64_t epoch;        /* slice epoch counter */
   _Atomic uint64_t host_gen;     /* bumped by vagx_core_host_map_flush: host
                                     pointers from map are stale */
   bool host_reset_pending;       /* a host reset waits for its jobs to end
                                     (vagx_core_reset_host_timeout timed out) */

   uint32_t fault_status;
   uint64_t fault_addr, fault_root;
   uint64_t ts_latched;

   /* Scanout heads 0..nheads-1 (contract 1.9): one register block each. */
   unsigned nheads;
   struct core_head {
      uint32_t control, format, size, pitch, va_lo, va_hi, root_lo, root_hi;
      uint32_t cursor_control, cursor_pos, cursor_size, cursor_pitch;
      uint32_t cursor_va_lo, cursor_va_hi;
      uint32_t crc_control, crc_value, crc_count;
      /* SCANOUT_OVERLAY blocks, by register offset / 4 (CONTROL..VA_HI). */
      uint32_t overlay[VAGX_SCANOUT_OVERLAYS][VAGX_SCANOUT_OVERLAY_STRIDE / 4];
      bool commit_pending;
      struct vagx_core_scanout active;
      uint32_t vblank_count, status;
      uint64_t vblank_ts, vblank_ts_latched;   /* SCANOUT_VBLANK_TS_LO/HI */
      /* SCANOUT_WB_* (core_writeback.c) */
      uint32_t wb_format, wb_pitch, wb_va_lo, wb_va_hi, wb_root_lo, wb_root_hi;
      uint32_t wb_status, wb_count;
      enum core_wb_state wb_state;
   } head[VAGX_SCANOUT_MAX_HEADS];
   /* SCANOUT_STATUS.CONNECTED per head: the cable, which no reset touches
    * (vagx_core_set_connected()). */
   bool head_connected[VAGX_SCANOUT_MAX_HEADS];
   /* Per head, used by that head's vblank only (the display timer): resets
    * clear the registers above, not these. */
   struct core_head_buf {
      uint8_t wb_row[VAGX_SCANOUT_MAX_WIDTH * 4];     /* writeback's converted row */
      uint32_t crc_row[VAGX_SCANOUT_MAX_WIDTH];       /* the frame CRC's row */
      uint8_t crc_scratch[VAGX_SCANOUT_MAX_WIDTH * 4];
   } head_buf[VAGX_SCANOUT_MAX_HEADS];

   struct core_queue q[VAGX_MAX_QUEUES];

   struct core_pool pool;
   struct core_worker fe;         /* the front-end's MMU context */
   _Atomic bool tlb_pending;      /* tlb_busy, readable without the lock */

   pthread_t fe_thread;
   bool fe_running, fe_stop;

   struct vagx_usc_cache *usc_cache;
   struct vagx_render_device *render_dev[VAGX_MAX_QUEUES]; /* one per queue, lazily */
};

/* INT bits of the display domain: global RESET leaves them alone. */
#define CORE_INT_DISPLAY \
   (VAGX_INT_VBLANK__MASK | VAGX_INT_SCANOUT_FAULT__MASK | VAGX_INT_WRITEBACK__MASK | \
    VAGX_INT_HEAD1_VBLANK__MASK | VAGX_INT_HEAD1_SCANOUT_FAULT__MASK | VAGX_INT_HEAD1_WRITEBACK__MASK | \
    VAGX_INT_HOTPLUG__MASK)

/* A head's events and their INT bits (registers.md, heads): head 0 keeps
 * the bits of 1.0-1.8, head 1 has the HEAD1_ bits. */
enum core_head_event { CORE_HEAD_VBLANK, CORE_HEAD_FAULT, CORE_HEAD_WRITEBACK, CORE_HEAD_EVENTS };
static_assert(VAGX_SCANOUT_MAX_HEADS == 2, "core_head_int() lists the INT bits of two heads");
static inline uint32_t core_head_int(unsigned h, enum core_head_event e)
{
   static const uint32_t bits[VAGX_SCANOUT_MAX_HEADS][CORE_HEAD_EVENTS] = {
      { VAGX_INT_VBLANK__MASK, VAGX_INT_SCANOUT_FAULT__MASK, VAGX_INT_WRITEBACK__MASK },
      { VAGX_INT_HEAD1_VBLANK__MASK, VAGX_INT_HEAD1_SCANOUT_FAULT__MASK, VAGX_INT_HEAD1_WRITEBACK__MASK },
   };
   return bits[h][e];
}

/* Sleep of the bounded polls (TLB flush, host reset): short against any
 * bound a caller gives, long enough not to steal a core from the threads
 * being waited for. */
#define CORE_POLL_US 100

/* Register helpers, called with core->lock held (except core_flush_irqs).
 * Interrupts and latches (core_irq.c): */
void core_int_set(struct vagx_core *core, uint32_t bits);
/* Adds the vectors of the enabled INT bits in `bits` to those to raise. */
void core_collect_vectors(struct vagx_core *core, uint32_t bits);
void core_error_latch(struct vagx_core *core, enum vagx_reg_error code, uint32_t offset);
void core_wake_locked(struct vagx_core *core);
/* Raises the vectors collected under the lock.  Call without the lock, only
 * from the MMIO or front-end thread. */
void core_flush_irqs(struct vagx_core *core);
/* TLB invalidation (core_tlb.c): starts one (TLB_INV_CMD), completes it
 * once every thread is past its epoch. */
void core_tlb_invalidate_locked(struct vagx_core *core);
void core_tlb_try_complete_locked(struct vagx_core *core);
/* Resets (core_reset.c). */
void core_queue_reset_locked(struct vagx_core *core, unsigned q);
void core_global_reset_finish_locked(struct vagx_core *core);
/* Completes a pending host reset (no job left): power-on register values,
 * every cached translation dropped. */
void core_host_reset_finish_locked(struct vagx_core *core);
bool core_any_job_locked(struct vagx_core *core);
/* Asks queue q's running job, if any, to stop without completing. */
void core_drop_job_locked(struct vagx_core *core, unsigned q);
/* Frees every queue's job (their tasks have ended); no lock needed. */
void core_drop_all_jobs(struct vagx_core *core);
/* Power-on values of every register (create, host reset). */
void core_regs_reset_values(struct vagx_core *core);
/* Writeback (core_writeback.c): the target of one vblank's writeback,
 * copied from the registers when it starts. */
struct core_wb {
   uint32_t format, pitch;
   uint64_t va, root;
   bool faulted;      /* a store faulted: the rest is not written */
};
void core_wb_arm_locked(struct vagx_core *core, unsigned h, uint32_t offset);
void core_wb_commit_locked(struct vagx_core *core, unsigned h);
void core_wb_abort_locked(struct vagx_core *core, unsigned h);
void core_wb_end_locked(struct vagx_core *core, unsigned h, uint32_t status);
bool core_wb_take_locked(struct vagx_core *core, unsigned h, const struct vagx_core_scanout *a,
                         struct core_wb *wb);
/* Stores composed row y (0x00RRGGBB, w pixels) of head h; after a fault,
 * nothing. */
void core_wb_store_row(struct vagx_core *core, unsigned h, struct core_wb *wb, uint32_t y,
                       const uint32_t *row, uint32_t w);
/* Ends a running writeback: DONE or FAULT, WB_COUNT = vblank. */
void core_wb_finish(struct vagx_core *core, unsigned h, const struct core_wb *wb, uint32_t vblank);

/* Scanout (core_scanout.c): head h's shadow registers form a valid
 * configuration; its committed registers become its active scanout. */
bool core_scanout_config_ok(const struct core_head *hd);
void core_scanout_apply_locked(struct core_head *hd);
/* Head h's register block (core_head_mmio.c): reg is the head-0 offset
 * (SCANOUT_HEAD_BASE..+STRIDE), offset the real one (for ERROR_STATUS). */
uint32_t core_head_read_locked(struct vagx_core *core, unsigned h, uint32_t reg);
void core_head_write_locked(struct vagx_core *core, unsigned h, uint32_t reg, uint32_t v,
                            uint32_t offset);

static inline uint64_t core_ring_pa(const struct core_queue *q)
{
   return ((uint64_t)q->ring_base_hi << 32) | (q->ring_base_lo & ~(uint64_t)(VAGX_PAGE_SIZE - 1));
}

static inline uint64_t core_now(struct vagx_core *core)
{
   return core->ops.now_ns(core->opaque);
}

/* The device's timestamp counter (TIMESTAMP_FREQ Hz) from host time. */
static inline uint64_t core_timestamp(struct vagx_core *core)
{
   const uint64_t ns_per_s = 1000000000ull;
   return (uint64_t)((unsigned __int128)core_now(core) * VAGX_REG_TIMESTAMP_FREQ_RESET / ns_per_s);
}

#endif
