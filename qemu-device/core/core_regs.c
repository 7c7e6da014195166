/* SPDX-License-Identifier: MIT */
/*
 * The register file (BAR0): MMIO read/write semantics of the contract,
 * interrupts, resets, TLB invalidation protocol, fault and error latches,
 * scanout shadow registers.  Plus core creation/destruction and the optional
 * built-in front-end thread.
 *
 * Every MMIO access takes core->lock briefly and never calls read/write/map;
 * interrupts decided under the lock are raised after it is dropped.
 */
#include "core_priv.h"

#include <stdlib.h>
#include <unistd.h>


/* ------------------------------------------------------------ interrupts -- */

static unsigned vector_for_bit(struct vagx_core *core, unsigned bit)
{
   uint32_t m = 1u << bit;
   if (m & VAGX_INT_JOB_DONE__MASK)
      return core->q[bit - VAGX_INT_JOB_DONE__SHIFT].vector;
   if (m & VAGX_INT_QUEUE_ERROR__MASK)
      return core->q[bit - VAGX_INT_QUEUE_ERROR__SHIFT].vector;
   if (m & (VAGX_INT_VBLANK__MASK | VAGX_INT_SCANOUT_FAULT__MASK))
      return VAGX_MSIX_VECTOR_DISPLAY;
   return VAGX_MSIX_VECTOR_ERROR;
}

static void collect_vectors(struct vagx_core *core, uint32_t bits)
{
   bits &= core->int_enable;
   while (bits) {
      unsigned b = (unsigned)__builtin_ctz(bits);
      bits &= bits - 1;
      core->irq_vectors |= 1ull << vector_for_bit(core, b);
   }
}

void core_int_set(struct vagx_core *core, uint32_t bits)
{
   core->int_status |= bits;
   /* MSI-X is edge-triggered: every enabled event signals, even if the bit was
    * still set (an extra interrupt is harmless, a lost one is not). */
   collect_vectors(core, bits);
   core_wake_locked(core);
}

void core_flush_irqs(struct vagx_core *core)
{
   pthread_mutex_lock(&core->lock);
   uint64_t v = core->irq_vectors;
   core->irq_vectors = 0;
   pthread_mutex_unlock(&core->lock);
   while (v) {
      unsigned b = (unsigned)__builtin_ctzll(v);
      v &= v - 1;
      if (core->ops.raise_irq)
         core->ops.raise_irq(core->opaque, b);
   }
}

uint32_t vagx_core_irq_pending(struct vagx_core *core)
{
   pthread_mutex_lock(&core->lock);
   uint32_t v = core->int_status & core->int_enable;
   pthread_mutex_unlock(&core->lock);
   return v;
}

void core_event(struct vagx_core *core, const struct vagx_core_event *ev)
{
   if (core->ops.event)
      core->ops.event(core->opaque, ev);
}

void core_error_latch(struct vagx_core *core, enum vagx_reg_error code, uint32_t offset)
{
   const struct vagx_core_event ev = {
      .kind = VAGX_CORE_EVENT_REG_ERROR, .code = code, .offset = offset,
   };
   core_event(core, &ev);
   if (VAGX_ERROR_STATUS_VALID_GET(core->error_status)) {
      core->error_status |= VAGX_ERROR_STATUS_MULTIPLE(1);
      return;
   }
   core->error_status = VAGX_ERROR_STATUS_VALID(1) | VAGX_ERROR_STATUS_CODE(code) |
                        VAGX_ERROR_STATUS_OFFSET(offset);
   core_int_set(core, VAGX_INT_DEVICE_ERROR(1));
}

void core_wake_locked(struct vagx_core *core)
{
   core->work = true;
   pthread_cond_broadcast(&core->cond);
}

void core_latch_fault(struct vagx_core *core, const struct core_fault *f, unsigned queue)
{
   const struct vagx_core_event ev = {
      .kind = VAGX_CORE_EVENT_MMU_FAULT, .queue = queue, .address = f->va, .root = f->root,
      .access = f->access, .reason = f->reason, .level = f->level, .unit = f->unit,
   };
   core_event(core, &ev);
   pthread_mutex_lock(&core->lock);
   if (VAGX_FAULT_STATUS_VALID_GET(core->fault_status)) {
      core->fault_status |= VAGX_FAULT_STATUS_MULTIPLE(1);
   } else {
      core->fault_status = VAGX_FAULT_STATUS_VALID(1) | VAGX_FAULT_STATUS_ACCESS(f->access) |
                           VAGX_FAULT_STATUS_LEVEL(f->level) |
                           VAGX_FAULT_STATUS_REASON(f->reason) | VAGX_FAULT_STATUS_UNIT(f->unit) |
                           VAGX_FAULT_STATUS_QUEUE(queue);
      core->fault_addr = f->va;
      core->fault_root = f->root;
   }
   core_int_set(core, VAGX_INT_MMU_FAULT(1));
   pthread_mutex_unlock(&core->lock);
}

/* ------------------------------------------------------------------ TLB -- */

static bool worker_done_with(struct core_worker *w, uint64_t inv_epoch)
{
   uint64_t e = atomic_load(&w->active_epoch);
   return e == 0 || e > inv_epoch;
}

/* True when every thread that may hold a translation made before `epoch`
 * has since started a new slice (or is idle). */
static bool all_threads_past(struct vagx_core *core, uint64_t epoch)
{
   if (!worker_done_with(&core->fe, epoch))
      return false;
   for (unsigned i = 0; i < core->pool.nworkers; i++)
      if (!worker_done_with(&core->pool.workers[i], epoch))
         return false;
   return true;
}

void core_tlb_try_complete_locked(struct vagx_core *core)
{
   if (!core->tlb_busy || !all_threads_past(core, core->tlb_inv_epoch))
      return;
   core->tlb_busy = false;
   atomic_store(&core->tlb_pending, false);
   core->tlb_seq++;
   core_int_set(core, VAGX_INT_TLB_INV_DONE(1));
}

static void tlb_invalidate_locked(struct vagx_core *core)
{
   /* Order matters (see core_worker_slice_begin): generation first, then the
    * epoch, both sequentially consistent. */
   atomic_fetch_add(&core->tlb_gen, 1);
   core->tlb_inv_epoch = atomic_load(&core->epoch);
   core->tlb_busy = true;
   atomic_store(&core->tlb_pending, true);
   vagx_usc_cache_invalidate(core->usc_cache);
   core_tlb_try_complete_locked(core);
}

/* Order matters: the epoch is published, then the host's access bracket is
 * entered (RCU in QEMU), then the generations are read.  A flush that bumped
 * a generation before reading the epoch therefore either sees this thread
 * still in an older epoch (and waits), or this thread sees the new
 * generation and drops its TLB. */
void core_worker_slice_begin(struct core_worker *w)
{
   struct vagx_core *core = w->core;
   atomic_store(&w->active_epoch, atomic_fetch_add(&core->epoch, 1) + 1);
   if (core->ops.access_begin)
      core->ops.access_begin(core->opaque);
   core_mmu_sync(&w->mmu);
}

void core_worker_slice_end(struct core_worker *w)
{
   struct vagx_core *core = w->core;
   if (core->ops.access_end)
      core->ops.access_end(core->opaque);
   atomic_store(&w->active_epoch, 0);
   if (atomic_load(&core->tlb_pending)) {
      pthread_mutex_lock(&core->lock);
      core_tlb_try_complete_locked(core);
      core_wake_locked(core);
      pthread_mutex_unlock(&core->lock);
   }
}

void core_worker_safepoint(struct core_worker *w)
{
   struct vagx_core *core = w->core;
   /* The host gets its quiescent point (an RCU grace period must not wait
    * for a whole job).  host_gen is read after the new bracket began: memory
    * reclaimed meanwhile was removed from the map, and host_gen bumped,
    * before the grace period that let it go started, so this load sees the
    * bump and the TLB is dropped before any pointer in it is used again. */
   if (core->ops.access_end) {
      core->ops.access_end(core->opaque);
      core->ops.access_begin(core->opaque);
   }
   if (atomic_load_explicit(&core->tlb_pending, memory_order_relaxed) ||
       atomic_load(&core->host_gen) != w->mmu.host_gen) {
      core_worker_slice_end(w);
      core_worker_slice_begin(w);
   }
}

/* Sleep of the bounded polls below: short against any bound a caller gives,
 * long enough not to steal a core from the threads being waited for. */
#define CORE_POLL_US 100

int vagx_core_host_map_flush(struct vagx_core *core, uint64_t timeout_ns)
{
   /* Generation first, then the epoch (see core_worker_slice_begin). */
   atomic_fetch_add(&core->host_gen, 1);
   uint64_t epoch = atomic_load(&core->epoch);
   uint64_t start = core_now(core);
   while (!all_threads_past(core, epoch)) {
      if (core_now(core) - start >= timeout_ns)
         return -1;
      usleep(CORE_POLL_US);
   }
   return 0;
}

/* --------------------------------------------------------------- resets -- */

bool core_any_job_locked(struct vagx_core *core)
{
   for (unsigned q = 0; q < core->nqueues; q++)
      if (core->q[q].job)
         return true;
   return false;
}

static void drop_job_locked(struct vagx_core *core, unsigned q)
{
   struct core_job *job = core->q[q].job;
   if (!job)
      return;
   atomic_store(&job->abort_reason, CORE_ABORT_DROP);
   atomic_store(&job->abort, true);
}

/* Completes Q_RESET of queue q (no job running any more). */
void core_queue_reset_locked(struct vagx_core *core, unsigned q)
{
   struct core_queue *qu = &core->q[q];
   qu->head = qu->tail = qu->tail_db = 0;
   qu->control = 0;
   qu->state = VAGX_QUEUE_STATE_STOPPED;
   qu->error = VAGX_JOB_STATUS_OK;
   qu->reset_pending = qu->stop_pending = false;
   qu->abort_result = VAGX_ABORT_RESULT_NONE;
   qu->gen++;
   core->int_status &= ~(VAGX_INT_JOB_DONE(q) | VAGX_INT_QUEUE_ERROR(q));
   core_int_set(core, VAGX_INT_RESET_DONE(1));
}

void core_global_reset_finish_locked(struct vagx_core *core)
{
   for (unsigned q = 0; q < VAGX_MAX_QUEUES; q++) {
      struct core_queue *qu = &core->q[q];
      qu->head = qu->tail = qu->tail_db = 0;
      qu->control = 0;
      qu->state = VAGX_QUEUE_STATE_STOPPED;
      qu->error = VAGX_JOB_STATUS_OK;
      qu->reset_pending = qu->stop_pending = false;
      qu->abort_result = VAGX_ABORT_RESULT_NONE;
      qu->gen++;
   }
   /* GPU domain only: the scanout registers, its INT bits and INT_ENABLE are
    * left alone, so the display keeps running through a GPU reset
    * (registers.md, "Reset domains"). */
   core->int_status &= CORE_INT_DISPLAY;
   core->fault_status = 0;
   core->fault_addr = core->fault_root = 0;
   core->error_status = 0;
   /* No job runs any more: drop every TLB and cached program now. */
   atomic_fetch_add(&core->tlb_gen, 1);
   vagx_usc_cache_invalidate(core->usc_cache);
   core->global_reset_pending = false;
   core_int_set(core, VAGX_INT_RESET_DONE(1));
}

static void regs_reset_values(struct vagx_core *core)
{
   core->int_status = core->int_enable = 0;
   core->irq_vectors = 0;
   core->scratch = core->error_status = 0;
   core->global_reset_pending = false;
   memset(core->tlb_inv_regs, 0, sizeof(core->tlb_inv_regs));
   core->tlb_busy = false;
   atomic_store(&core->tlb_pending, false);
   core->tlb_seq = 0;
   core->fault_status = 0;
   core->fault_addr = core->fault_root = 0;
   core->ts_latched = 0;
   memset(&core->scanout, 0, sizeof(core->scanout));
   core->scanout.format = VAGX_REG_SCANOUT_FORMAT_RESET;
   for (unsigned q = 0; q < VAGX_MAX_QUEUES; q++) {
      struct core_queue *qu = &core->q[q];
      memset(qu, 0, sizeof(*qu));
      qu->state = VAGX_QUEUE_STATE_STOPPED;
      qu->error = VAGX_JOB_STATUS_OK;
      qu->vector = VAGX_MSIX_VECTOR_QUEUE0 + q;
   }
}

/* ---------------------------------------------------------------- MMIO -- */

static uint32_t config_value(struct vagx_core *core)
{
   return VAGX_CONFIG_NUM_QUEUES(core->nqueues) | VAGX_CONFIG_NUM_CORES(core->pool.nworkers) |
          VAGX_CONFIG_NUM_MSIX(VAGX_MSIX_VECTORS) |
          VAGX_CONFIG_NUM_SCANOUTS(VAGX_CONFIG_NUM_SCANOUTS_GET(VAGX_REG_CONFIG_RESET));
}

static uint32_t queue_read_locked(struct vagx_core *core, unsigned q, uint32_t reg)
{
   struct core_queue *qu = &core->q[q];
   switch (reg) {
   case VAGX_Q_RING_BASE_LO: return qu->ring_base_lo;
   case VAGX_Q_RING_BASE_HI: return qu->ring_base_hi;
   case VAGX_Q_RING_SIZE: return qu->ring_size;
   case VAGX_Q_CONTROL: return qu->control;
   case VAGX_Q_HEAD: return qu->head;
   case VAGX_Q_TAIL: return qu->tail;
   case VAGX_Q_STATUS: return VAGX_Q_STATUS_STATE(qu->state) | VAGX_Q_STATUS_ERROR(qu->error);
   case VAGX_Q_RESET: return VAGX_Q_RESET_START(qu->reset_pending);
   case VAGX_Q_LAST_SEQNO_LO: return (uint32_t)qu->last_seqno;
   case VAGX_Q_LAST_SEQNO_HI: return (uint32_t)(qu->last_seqno >> 32);
   case VAGX_Q_JOBS_DONE: return qu->jobs_done;
   case VAGX_Q_ABORT_MATCH_LO: return (uint32_t)qu->abort_match;
   case VAGX_Q_ABORT_MATCH_HI: return (uint32_t)(qu->abort_match >> 32);
   case VAGX_Q_ABORT_STATUS: return VAGX_Q_ABORT_STATUS_RESULT(qu->abort_result);
   default: return 0; /* write-only and unknown offsets read as zero */
   }
}

uint32_t vagx_core_mmio_read(struct vagx_core *core, uint32_t offset, unsigned size)
{
   (void)size;
   offset &= ~3u;
   uint64_t now = 0;
   if (offset == VAGX_REG_TIMESTAMP_LO)
      now = core_timestamp(core); /* host op: outside the lock */

   uint32_t v = 0;
   pthread_mutex_lock(&core->lock);
   if (offset >= VAGX_QUEUE_BLOCK_BASE &&
       offset < VAGX_QUEUE_BLOCK_BASE + VAGX_QUEUE_BLOCK_STRIDE * VAGX_MAX_QUEUES) {
      unsigned q = (offset - VAGX_QUEUE_BLOCK_BASE) / VAGX_QUEUE_BLOCK_STRIDE;
      if (q < core->nqueues)
         v = queue_read_locked(core, q, (offset - VAGX_QUEUE_BLOCK_BASE) % VAGX_QUEUE_BLOCK_STRIDE);
      pthread_mutex_unlock(&core->lock);
      return v;
   }
   switch (offset) {
   case VAGX_REG_ID: v = VAGX_REG_ID_RESET; break;
   case VAGX_REG_VERSION: v = VAGX_VERSION_MAJOR(VAGX_HW_VERSION_MAJOR) | VAGX_VERSION_MINOR(VAGX_HW_VERSION_MINOR); break;
   case VAGX_REG_FEATURES: v = VAGX_REG_FEATURES_RESET; break;
   case VAGX_REG_CONFIG: v = config_value(core); break;
   case VAGX_REG_RESET: v = VAGX_RESET_START(core->global_reset_pending); break;
   case VAGX_REG_STATUS: {
      bool idle = true;
      for (unsigned q = 0; q < core->nqueues; q++)
         if (core->q[q].state == VAGX_QUEUE_STATE_RUNNING ||
             core->q[q].state == VAGX_QUEUE_STATE_RESETTING || core->q[q].job)
            idle = false;
      v = VAGX_STATUS_RESET_BUSY(core->global_reset_pending) | VAGX_STATUS_IDLE(idle);
      break;
   }
   case VAGX_REG_SCRATCH: v = core->scratch; break;
   case VAGX_REG_ERROR_STATUS: v = core->error_status; break;
   case VAGX_REG_INT_STATUS: v = core->int_status; break;
   case VAGX_REG_INT_ENABLE: v = core->int_enable; break;
   case VAGX_REG_INT_PENDING: v = core->int_status & core->int_enable; break;
   case VAGX_REG_TLB_INV_ROOT_LO: case VAGX_REG_TLB_INV_ROOT_HI:
   case VAGX_REG_TLB_INV_VA_LO: case VAGX_REG_TLB_INV_VA_HI:
   case VAGX_REG_TLB_INV_SIZE_LO: case VAGX_REG_TLB_INV_SIZE_HI:
      v = core->tlb_inv_regs[(offset - VAGX_REG_TLB_INV_ROOT_LO) / 4];
      break;
   case VAGX_REG_TLB_INV_STATUS: v = VAGX_TLB_INV_STATUS_BUSY(core->tlb_busy); break;
   case VAGX_REG_TLB_INV_SEQ: v = core->tlb_seq; break;
   case VAGX_REG_FAULT_STATUS: v = core->fault_status; break;
   case VAGX_REG_FAULT_ADDR_LO: v = (uint32_t)core->fault_addr; break;
   case VAGX_REG_FAULT_ADDR_HI: v = (uint32_t)(core->fault_addr >> 32); break;
   case VAGX_REG_FAULT_ROOT_LO: v = (uint32_t)core->fault_root; break;
   case VAGX_REG_FAULT_ROOT_HI: v = (uint32_t)(core->fault_root >> 32); break;
   case VAGX_REG_TIMESTAMP_LO:
      /* TIMESTAMP_FREQ is the contract's 1 GHz: the counter is nanoseconds. */
      core->ts_latched = now;
      v = (uint32_t)now;
      break;
   case VAGX_REG_TIMESTAMP_HI: v = (uint32_t)(core->ts_latched >> 32); break;
   case VAGX_REG_TIMESTAMP_FREQ: v = VAGX_REG_TIMESTAMP_FREQ_RESET; break;
   case VAGX_REG_SCANOUT_CONTROL: v = core->scanout.control; break;
   case VAGX_REG_SCANOUT_FORMAT: v = core->scanout.format; break;
   case VAGX_REG_SCANOUT_SIZE: v = core->scanout.size; break;
   case VAGX_REG_SCANOUT_PITCH: v = core->scanout.pitch; break;
   case VAGX_REG_SCANOUT_FB_VA_LO: v = core->scanout.va_lo; break;
   case VAGX_REG_SCANOUT_FB_VA_HI: v = core->scanout.va_hi; break;
   case VAGX_REG_SCANOUT_ROOT_LO: v = core->scanout.root_lo; break;
   case VAGX_REG_SCANOUT_ROOT_HI: v = core->scanout.root_hi; break;
   case VAGX_REG_SCANOUT_COMMIT: v = VAGX_SCANOUT_COMMIT_PENDING(core->scanout.commit_pending); break;
   case VAGX_REG_SCANOUT_VBLANK_COUNT: v = core->scanout.vblank_count; break;
   case VAGX_REG_SCANOUT_REFRESH: v = VAGX_REG_SCANOUT_REFRESH_RESET; break;
   case VAGX_REG_SCANOUT_STATUS: v = core->scanout.status; break;
   case VAGX_REG_SCANOUT_MAX_SIZE: v = VAGX_REG_SCANOUT_MAX_SIZE_RESET; break;
   case VAGX_REG_SCANOUT_VBLANK_TS_LO:
      /* Latch, like TIMESTAMP_LO: LO then HI is one consistent value. */
      core->scanout.vblank_ts_latched = core->scanout.vblank_ts;
      v = (uint32_t)core->scanout.vblank_ts_latched;
      break;
   case VAGX_REG_SCANOUT_VBLANK_TS_HI: v = (uint32_t)(core->scanout.vblank_ts_latched >> 32); break;
   default: v = 0; break;
   }
   pthread_mutex_unlock(&core->lock);
   return v;
}

static bool ring_config_ok(const struct core_queue *qu)
{
   unsigned log2 = VAGX_Q_RING_SIZE_LOG2_GET(qu->ring_size);
   uint64_t base = ((uint64_t)qu->ring_base_hi << 32) | qu->ring_base_lo;
   return log2 >= VAGX_RING_MIN_LOG2 && log2 <= VAGX_RING_MAX_LOG2 &&
          (qu->ring_size & ~VAGX_Q_RING_SIZE_LOG2__MASK) == 0 && base != 0 &&
          (base % VAGX_RING_ALIGN) == 0 && (base >> VAGX_PA_BITS) == 0;
}

/* Returns true when the front-end must be kicked. */
static bool queue_write_locked(struct vagx_core *core, unsigned q, uint32_t reg, uint32_t v,
                               uint32_t offset)
{
   struct core_queue *qu = &core->q[q];
   bool stopped = qu->state == VAGX_QUEUE_STATE_STOPPED && !qu->job;
   switch (reg) {
   case VAGX_Q_RING_BASE_LO:
   case VAGX_Q_RING_BASE_HI:
   case VAGX_Q_RING_SIZE:
      if (!stopped) {
         core_error_latch(core, VAGX_REG_ERROR_RING_NOT_STOPPED, offset);
         return false;
      }
      if (reg == VAGX_Q_RING_BASE_LO)
         qu->ring_base_lo = v;
      else if (reg == VAGX_Q_RING_BASE_HI)
         qu->ring_base_hi = v;
      else
         qu->ring_size = v;
      return false;
   case VAGX_Q_CONTROL: {
      bool en = VAGX_Q_CONTROL_ENABLE_GET(v);
      bool was = VAGX_Q_CONTROL_ENABLE_GET(qu->control);
      if (en && !was) {
         if (qu->state != VAGX_QUEUE_STATE_STOPPED || qu->job) {
            core_error_latch(core, VAGX_REG_ERROR_RING_NOT_STOPPED, offset);
            return false;
         }
         if (!ring_config_ok(qu)) {
            core_error_latch(core, VAGX_REG_ERROR_BAD_RING, offset);
            return false;
         }
         qu->control = VAGX_Q_CONTROL_ENABLE(1);
         qu->head = qu->tail = qu->tail_db = 0;
         qu->jobs_done = 0;
         qu->state = VAGX_QUEUE_STATE_IDLE;
         qu->error = VAGX_JOB_STATUS_OK;
         qu->abort_result = VAGX_ABORT_RESULT_NONE;
         qu->gen++;
      } else if (!en && was) {
         qu->control = 0;
         qu->gen++;
         if (qu->job) {
            qu->stop_pending = true;
         } else if (qu->state != VAGX_QUEUE_STATE_RESETTING) {
            qu->state = VAGX_QUEUE_STATE_STOPPED;
            qu->error = VAGX_JOB_STATUS_OK;
         }
      }
      return false;
   }
   case VAGX_Q_TAIL:
      qu->tail = v; /* takes effect at the next doorbell */
      return false;
   case VAGX_Q_DOORBELL:
      if (!VAGX_Q_CONTROL_ENABLE_GET(qu->control))
         return false;
      if (qu->tail - qu->head > (1u << VAGX_Q_RING_SIZE_LOG2_GET(qu->ring_size))) {
         core_error_latch(core, VAGX_REG_ERROR_TAIL_OVERRUN, VAGX_REG_Q_TAIL(q));
         return false;
      }
      qu->tail_db = qu->tail;
      core_wake_locked(core);
      return true;
   case VAGX_Q_ABORT_MATCH_LO:
      qu->abort_match = (qu->abort_match & ~(uint64_t)UINT32_MAX) | v;
      return false;
   case VAGX_Q_ABORT_MATCH_HI:
      qu->abort_match = (qu->abort_match & UINT32_MAX) | (uint64_t)v << 32;
      return false;
   case VAGX_Q_ABORT:
      if (!VAGX_Q_ABORT_ABORT_GET(v))
         return false;
      /* Decided here, under the lock, so the driver can read the outcome
       * right after its write.  qu->job is published only once its slot
       * was fetched, so job->seqno is always known (core_queue.c). */
      if (!qu->job || qu->reset_pending || core->global_reset_pending) {
         /* A job being dropped by a reset never completes: not running. */
         qu->abort_result = VAGX_ABORT_RESULT_NOT_RUNNING;
         return false;
      }
      if (VAGX_Q_ABORT_MATCH_GET(v) && qu->job->seqno != qu->abort_match) {
         qu->abort_result = VAGX_ABORT_RESULT_MISMATCH;
         return false;
      }
      {
         int none = CORE_ABORT_NONE;
         atomic_compare_exchange_strong(&qu->job->abort_reason, &none, CORE_ABORT_ABORT);
         atomic_store(&qu->job->abort, true);
      }
      qu->abort_result = VAGX_ABORT_RESULT_ACCEPTED;
      core_wake_locked(core);
      return true;
   case VAGX_Q_RESET:
      if (!VAGX_Q_RESET_START_GET(v))
         return false;
      qu->state = VAGX_QUEUE_STATE_RESETTING;
      qu->reset_pending = true;
      if (qu->job) {
         drop_job_locked(core, q);
         core_wake_locked(core);
         return true;
      }
      core_queue_reset_locked(core, q);
      return false;
   case VAGX_Q_RESUME:
      if (VAGX_Q_RESUME_RESUME_GET(v) && qu->state == VAGX_QUEUE_STATE_HALTED) {
         qu->state = VAGX_QUEUE_STATE_IDLE;
         qu->error = VAGX_JOB_STATUS_OK;
         core_wake_locked(core);
         return true;
      }
      return false;
   default:
      core_error_latch(core, VAGX_REG_ERROR_BAD_ACCESS, offset);
      return false;
   }
}

static bool scanout_config_ok(struct vagx_core *core)
{
   uint32_t fmt = VAGX_SCANOUT_FORMAT_FORMAT_GET(core->scanout.format);
   uint32_t w = VAGX_SCANOUT_SIZE_WIDTH_GET(core->scanout.size);
   uint32_t h = VAGX_SCANOUT_SIZE_HEIGHT_GET(core->scanout.size);
   if (!vagx_scanout_format_is_valid(fmt) || w < 1 || h < 1 || w > VAGX_SCANOUT_MAX_WIDTH ||
       h > VAGX_SCANOUT_MAX_HEIGHT)
      return false;
   uint32_t pitch = core->scanout.pitch;
   return pitch % 4 == 0 && (uint64_t)pitch >= (uint64_t)w * vagx_scanout_format_bpp((enum vagx_scanout_format)fmt) &&
          core->scanout.va_lo % 4 == 0;
}

static void scanout_apply_locked(struct vagx_core *core)
{
   struct vagx_core_scanout *a = &core->scanout.active;
   a->format = VAGX_SCANOUT_FORMAT_FORMAT_GET(core->scanout.format);
   a->width = VAGX_SCANOUT_SIZE_WIDTH_GET(core->scanout.size);
   a->height = VAGX_SCANOUT_SIZE_HEIGHT_GET(core->scanout.size);
   a->pitch = core->scanout.pitch;
   a->fb_va = ((uint64_t)core->scanout.va_hi << 32) | core->scanout.va_lo;
   a->root = ((uint64_t)core->scanout.root_hi << 32) |
             (core->scanout.root_lo & ~(uint32_t)(VAGX_PAGE_SIZE - 1));
   core->scanout.commit_pending = false;
}

void vagx_core_mmio_write(struct vagx_core *core, uint32_t offset, uint32_t v, unsigned size)
{
   (void)size;
   offset &= ~3u;
   bool kick = false;
   pthread_mutex_lock(&core->lock);
   if (offset >= VAGX_QUEUE_BLOCK_BASE &&
       offset < VAGX_QUEUE_BLOCK_BASE + VAGX_QUEUE_BLOCK_STRIDE * VAGX_MAX_QUEUES) {
      unsigned q = (offset - VAGX_QUEUE_BLOCK_BASE) / VAGX_QUEUE_BLOCK_STRIDE;
      if (q < core->nqueues)
         kick = queue_write_locked(core, q, (offset - VAGX_QUEUE_BLOCK_BASE) % VAGX_QUEUE_BLOCK_STRIDE,
                                   v, offset);
      else
         core_error_latch(core, VAGX_REG_ERROR_BAD_ACCESS, offset);
      goto out;
   }
   switch (offset) {
   case VAGX_REG_RESET:
      if (VAGX_RESET_START_GET(v) && !core->global_reset_pending) {
         core->global_reset_pending = true;
         for (unsigned q = 0; q < core->nqueues; q++)
            drop_job_locked(core, q);
         if (!core_any_job_locked(core))
            core_global_reset_finish_locked(core);
         else
            kick = true;
      }
      break;
   case VAGX_REG_SCRATCH: core->scratch = v; break;
   case VAGX_REG_ERROR_ACK:
      if (VAGX_ERROR_ACK_ACK_GET(v))
         core->error_status = 0;
      break;
   case VAGX_REG_INT_STATUS: core->int_status &= ~v; break;
   case VAGX_REG_INT_ENABLE: {
      uint32_t newly = v & ~core->int_enable;
      core->int_enable = v;
      collect_vectors(core, core->int_status & newly);
      break;
   }
   case VAGX_REG_INT_RAISE: core_int_set(core, v); break;
   case VAGX_REG_INT_ENABLE_SET: {
      /* Atomic under the lock: no read-modify-write race between drivers'
       * threads (e.g. KMS vblank on/off against the IRQ handler). */
      uint32_t newly = v & ~core->int_enable;
      core->int_enable |= v;
      collect_vectors(core, core->int_status & newly);
      break;
   }
   case VAGX_REG_INT_ENABLE_CLEAR: core->int_enable &= ~v; break;
   case VAGX_REG_TLB_INV_ROOT_LO: case VAGX_REG_TLB_INV_ROOT_HI:
   case VAGX_REG_TLB_INV_VA_LO: case VAGX_REG_TLB_INV_VA_HI:
   case VAGX_REG_TLB_INV_SIZE_LO: case VAGX_REG_TLB_INV_SIZE_HI:
      core->tlb_inv_regs[(offset - VAGX_REG_TLB_INV_ROOT_LO) / 4] = v;
      break;
   case VAGX_REG_TLB_INV_CMD:
      if (VAGX_TLB_INV_CMD_START_GET(v)) {
         if (core->tlb_busy)
            core_error_latch(core, VAGX_REG_ERROR_BAD_ACCESS, offset);
         else
            tlb_invalidate_locked(core);
         kick = core->tlb_busy;
      }
      break;
   case VAGX_REG_FAULT_ACK:
      if (VAGX_FAULT_ACK_ACK_GET(v)) {
         core->fault_status = 0;
         core->fault_addr = core->fault_root = 0;
      }
      break;
   case VAGX_REG_SCANOUT_CONTROL:
      core->scanout.control = v & (VAGX_SCANOUT_CONTROL_ENABLE__MASK |
                                   VAGX_SCANOUT_CONTROL_BLANK__MASK);
      core->scanout.active.enable = VAGX_SCANOUT_CONTROL_ENABLE_GET(v);
      core->scanout.active.blank = VAGX_SCANOUT_CONTROL_BLANK_GET(v);
      if (!core->scanout.active.enable && core->scanout.commit_pending)
         scanout_apply_locked(core);
      break;
   case VAGX_REG_SCANOUT_FORMAT: core->scanout.format = v; break;
   case VAGX_REG_SCANOUT_SIZE: core->scanout.size = v; break;
   case VAGX_REG_SCANOUT_PITCH: core->scanout.pitch = v; break;
   case VAGX_REG_SCANOUT_FB_VA_LO: core->scanout.va_lo = v; break;
   case VAGX_REG_SCANOUT_FB_VA_HI: core->scanout.va_hi = v; break;
   case VAGX_REG_SCANOUT_ROOT_LO: core->scanout.root_lo = v; break;
   case VAGX_REG_SCANOUT_ROOT_HI: core->scanout.root_hi = v; break;
   case VAGX_REG_SCANOUT_COMMIT:
      if (VAGX_SCANOUT_COMMIT_PENDING_GET(v)) {
         if (!scanout_config_ok(core)) {
            core->scanout.status |= VAGX_SCANOUT_STATUS_INVALID(1);
            core_error_latch(core, VAGX_REG_ERROR_BAD_SCANOUT, offset);
            break;
         }
         core->scanout.status &= ~VAGX_SCANOUT_STATUS_INVALID__MASK;
         core->scanout.commit_pending = true;
         if (!VAGX_SCANOUT_CONTROL_ENABLE_GET(core->scanout.control))
            scanout_apply_locked(core);
      }
      break;
   default:
      core_error_latch(core, VAGX_REG_ERROR_BAD_ACCESS, offset);
      break;
   }
out:
   pthread_mutex_unlock(&core->lock);
   core_flush_irqs(core);
   if (kick && core->ops.kick)
      core->ops.kick(core->opaque);
}

/* -------------------------------------------------------------- scanout -- */

void vagx_core_vblank(struct vagx_core *core, struct vagx_core_scanout *active)
{
   vagx_core_vblank_late(core, active, 0, 1);
}

void vagx_core_vblank_late(struct vagx_core *core, struct vagx_core_scanout *active,
                           uint64_t late_ns, uint32_t count)
{
   const uint64_t ns_per_s = 1000000000ull;
   uint64_t ts = core_timestamp(core); /* host op: outside the lock */
   uint64_t late = (uint64_t)((unsigned __int128)late_ns * VAGX_REG_TIMESTAMP_FREQ_RESET / ns_per_s);
   ts = late < ts ? ts - late : 1; /* 0 means "no vblank yet" */
   pthread_mutex_lock(&core->lock);
   if (core->scanout.commit_pending)
      scanout_apply_locked(core);
   core->scanout.active.enable = VAGX_SCANOUT_CONTROL_ENABLE_GET(core->scanout.control);
   core->scanout.active.blank = VAGX_SCANOUT_CONTROL_BLANK_GET(core->scanout.control);
   if (core->scanout.active.enable) {
      /* Count and time stamp change together under the lock: a reader of
       * VBLANK_COUNT then VBLANK_TS sees the time of that vblank or a later. */
      core->scanout.vblank_count += count;
      core->scanout.vblank_ts = ts;
      core_int_set(core, VAGX_INT_VBLANK(1));
   }
   if (active)
      *active = core->scanout.active;
   pthread_mutex_unlock(&core->lock);
   core_flush_irqs(core);
}

int vagx_core_scanout_read(struct vagx_core *core, uint64_t va, void *buf, size_t len)
{
   pthread_mutex_lock(&core->lock);
   uint64_t root = core->scanout.active.root;
   pthread_mutex_unlock(&core->lock);
   /* Walk without TLB: the display runs on its own thread. */
   struct core_fault f;
   uint8_t *out = buf;
   while (len) {
      struct core_xlate x;
      uint64_t off = va % VAGX_PAGE_SIZE;
      size_t n = VAGX_PAGE_SIZE - off;
      if (n > len)
         n = len;
      bool ok = core_walk(core->ops.read, core->opaque, root, va, VAGX_FAULT_ACCESS_READ, &x, &f);
      if (ok && x.null)
         memset(out, 0, n);
      else if (ok && core->ops.read(core->opaque, x.pa + off, out, n)) {
         f.va = va;
         f.root = root;
         f.access = VAGX_FAULT_ACCESS_READ;
         f.reason = VAGX_FAULT_REASON_BUS_ERROR;
         f.level = VAGX_PT_LEVELS - 1;
         ok = false;
      }
      if (!ok) {
         f.unit = VAGX_UNIT_SCANOUT;
         core_latch_fault(core, &f, VAGX_FAULT_QUEUE_SCANOUT);
         pthread_mutex_lock(&core->lock);
         core->scanout.status |= VAGX_SCANOUT_STATUS_FAULT(1);
         core_int_set(core, VAGX_INT_SCANOUT_FAULT(1));
         pthread_mutex_unlock(&core->lock);
         core_flush_irqs(core);
         return -1;
      }
      out += n;
      va += n;
      len -= n;
   }
   pthread_mutex_lock(&core->lock);
   core->scanout.status &= ~VAGX_SCANOUT_STATUS_FAULT__MASK;
   pthread_mutex_unlock(&core->lock);
   return 0;
}

/* ------------------------------------------------------ create/destroy -- */

struct vagx_core *vagx_core_create(const struct vagx_core_host_ops *ops, void *opaque,
                                   const struct vagx_core_config *cfg)
{
   if (!ops || !ops->read || !ops->write || !ops->now_ns)
      return NULL;
   struct vagx_core *core = calloc(1, sizeof(*core));
   if (!core)
      return NULL;
   core->ops = *ops;
   core->opaque = opaque;
   if (cfg)
      core->cfg = *cfg;
   core->nqueues = core->cfg.num_queues ? core->cfg.num_queues
                                        : VAGX_CONFIG_NUM_QUEUES_GET(VAGX_REG_CONFIG_RESET);
   if (core->nqueues > VAGX_MAX_QUEUES)
      core->nqueues = VAGX_MAX_QUEUES;
   unsigned nw = core->cfg.num_workers;
   if (!nw) {
      long n = sysconf(_SC_NPROCESSORS_ONLN);
      nw = n > 0 ? (unsigned)n : 1;
   }
   unsigned maxw = VAGX_CONFIG_NUM_CORES__MASK >> VAGX_CONFIG_NUM_CORES__SHIFT;
   if (nw > maxw)
      nw = maxw;
   core->cfg.num_workers = nw;
   if (!core->cfg.tg_per_slice)
      core->cfg.tg_per_slice = 16;
   if (!core->cfg.copy_slice_bytes)
      core->cfg.copy_slice_bytes = 1u << 20;

   pthread_mutex_init(&core->lock, NULL);
   pthread_condattr_t ca;
   pthread_condattr_init(&ca);
   pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
   pthread_cond_init(&core->cond, &ca);
   pthread_condattr_destroy(&ca);
   regs_reset_values(core);

   core->zero_page = aligned_alloc(VAGX_PAGE_SIZE, VAGX_PAGE_SIZE);
   core->fe.sink = aligned_alloc(VAGX_PAGE_SIZE, VAGX_PAGE_SIZE);
   if (!core->zero_page || !core->fe.sink)
      goto fail;
   memset(core->zero_page, 0, VAGX_PAGE_SIZE);
   core->fe.core = core;
   core_mmu_ctx_init(&core->fe.mmu, core);
   core->usc_cache = vagx_usc_cache_create();
   if (!core->usc_cache)
      goto fail;
   if (core_pool_init(&core->pool, core, nw)) {
      core_pool_fini(&core->pool);
      goto fail;
   }
   return core;
fail:
   if (core->usc_cache)
      vagx_usc_cache_destroy(core->usc_cache);
   free(core->zero_page);
   free(core->fe.sink);
   pthread_cond_destroy(&core->cond);
   pthread_mutex_destroy(&core->lock);
   free(core);
   return NULL;
}

static void free_job(struct core_job *job);

static void drop_all_jobs(struct vagx_core *core)
{
   for (unsigned q = 0; q < VAGX_MAX_QUEUES; q++) {
      if (core->q[q].job) {
         free_job(core->q[q].job);
         core->q[q].job = NULL;
      }
   }
}

void vagx_core_destroy(struct vagx_core *core)
{
   if (!core)
      return;
   vagx_core_frontend_stop(core);
   /* Abort everything, let the workers finish their slices, then stop them. */
   pthread_mutex_lock(&core->lock);
   for (unsigned q = 0; q < core->nqueues; q++)
      drop_job_locked(core, q);
   pthread_mutex_unlock(&core->lock);
   core_pool_fini(&core->pool);
   drop_all_jobs(core);
   core_render_fini(core);
   vagx_usc_cache_destroy(core->usc_cache);
   free(core->zero_page);
   free(core->fe.sink);
   pthread_cond_destroy(&core->cond);
   pthread_mutex_destroy(&core->lock);
   free(core);
}

void vagx_core_reset_host_begin(struct vagx_core *core)
{
   pthread_mutex_lock(&core->lock);
   for (unsigned q = 0; q < core->nqueues; q++)
      drop_job_locked(core, q);
   /* Until it completes, the reset looks like a global RESET in progress:
    * RESET_BUSY reads 1 and no queue starts a job (queue_runnable_locked). */
   core->global_reset_pending = true;
   core->host_reset_pending = true;
   core_wake_locked(core);
   pthread_mutex_unlock(&core->lock);
}

void core_host_reset_finish_locked(struct vagx_core *core)
{
   drop_all_jobs(core);
   regs_reset_values(core);
   core->host_reset_pending = false;
   /* Power-on state: no translation or decoded program survives. */
   atomic_fetch_add(&core->tlb_gen, 1);
   vagx_usc_cache_invalidate(core->usc_cache);
}

int vagx_core_reset_host_timeout(struct vagx_core *core, uint64_t timeout_ns)
{
   uint64_t start = core_now(core);
   vagx_core_reset_host_begin(core);
   /* Wait for the dropped jobs' tasks (bounded: a task that never reaches
    * its abort check must not hang the caller), then free them. */
   for (;;) {
      bool busy = false;
      for (unsigned q = 0; q < core->nqueues; q++)
         if (core->q[q].job && atomic_load(&core->q[q].job->outstanding))
            busy = true;
      if (!busy)
         break;
      if (core_now(core) - start >= timeout_ns)
         return -1; /* completed by vagx_core_process() when the tasks end */
      usleep(CORE_POLL_US);
   }
   pthread_mutex_lock(&core->lock);
   core_host_reset_finish_locked(core);
   pthread_mutex_unlock(&core->lock);
   return 0;
}

void vagx_core_reset_host(struct vagx_core *core)
{
   (void)vagx_core_reset_host_timeout(core, VAGX_CORE_RESET_HOST_TIMEOUT_NS);
}

static void free_job(struct core_job *job)
{
   core_compute_free(job);
   core_render_free(job);
   pthread_mutex_destroy(&job->err_lock);
   free(job);
}

void core_free_job(struct core_job *job)
{
   free_job(job);
}

/* ------------------------------------------------------------ front-end -- */

static void *frontend_main(void *arg)
{
   struct vagx_core *core = arg;
   pthread_mutex_lock(&core->lock);
   while (!core->fe_stop) {
      if (!core->work) {
         pthread_cond_wait(&core->cond, &core->lock);
         continue;
      }
      pthread_mutex_unlock(&core->lock);
      vagx_core_process(core);
      pthread_mutex_lock(&core->lock);
   }
   pthread_mutex_unlock(&core->lock);
   return NULL;
}

int vagx_core_frontend_start(struct vagx_core *core)
{
   if (core->fe_running)
      return 0;
   core->fe_stop = false;
   if (pthread_create(&core->fe_thread, NULL, frontend_main, core))
      return -1;
   core->fe_running = true;
   return 0;
}

void vagx_core_frontend_stop(struct vagx_core *core)
{
   if (!core->fe_running)
      return;
   pthread_mutex_lock(&core->lock);
   core->fe_stop = true;
   pthread_cond_broadcast(&core->cond);
   pthread_mutex_unlock(&core->lock);
   pthread_join(core->fe_thread, NULL);
   core->fe_running = false;
}

bool vagx_core_has_work(struct vagx_core *core)
{
   pthread_mutex_lock(&core->lock);
   bool w = core->work;
   pthread_mutex_unlock(&core->lock);
   return w;
}
