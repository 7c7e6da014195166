/* SPDX-License-Identifier: MIT */
/*
 * The register file (BAR0): MMIO read/write semantics of the contract, the
 * global registers and the per-queue blocks (the scanout heads' blocks are
 * in core_head_mmio.c).
 *
 * Every MMIO access takes core->lock briefly and never calls read/write/map;
 * interrupts decided under the lock are raised after it is dropped.
 */
#include "core_priv.h"

static uint32_t config_value(struct vagx_core *core)
{
   return VAGX_CONFIG_NUM_QUEUES(core->nqueues) | VAGX_CONFIG_NUM_CORES(core->pool.nworkers) |
          VAGX_CONFIG_NUM_MSIX(VAGX_MSIX_VECTORS) |
          VAGX_CONFIG_NUM_SCANOUTS(core->nheads);
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
   if (offset >= VAGX_SCANOUT_HEAD_BASE &&
       offset < VAGX_SCANOUT_HEAD_BASE + VAGX_SCANOUT_HEAD_STRIDE * VAGX_SCANOUT_MAX_HEADS) {
      unsigned h = (offset - VAGX_SCANOUT_HEAD_BASE) / VAGX_SCANOUT_HEAD_STRIDE;
      if (h < core->nheads)
         v = core_head_read_locked(core, h, offset - h * VAGX_SCANOUT_HEAD_STRIDE);
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
         core_drop_job_locked(core, q);
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
   if (offset >= VAGX_SCANOUT_HEAD_BASE &&
       offset < VAGX_SCANOUT_HEAD_BASE + VAGX_SCANOUT_HEAD_STRIDE * VAGX_SCANOUT_MAX_HEADS) {
      unsigned h = (offset - VAGX_SCANOUT_HEAD_BASE) / VAGX_SCANOUT_HEAD_STRIDE;
      if (h < core->nheads)
         core_head_write_locked(core, h, offset - h * VAGX_SCANOUT_HEAD_STRIDE, v, offset);
      else
         core_error_latch(core, VAGX_REG_ERROR_BAD_ACCESS, offset);
      goto out;
   }
   switch (offset) {
   case VAGX_REG_RESET:
      if (VAGX_RESET_START_GET(v) && !core->global_reset_pending) {
         core->global_reset_pending = true;
         for (unsigned q = 0; q < core->nqueues; q++)
            core_drop_job_locked(core, q);
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
      core_collect_vectors(core, core->int_status & newly);
      break;
   }
   case VAGX_REG_INT_RAISE: core_int_set(core, v); break;
   case VAGX_REG_INT_ENABLE_SET: {
      /* Atomic under the lock: no read-modify-write race between drivers'
       * threads (e.g. KMS vblank on/off against the IRQ handler). */
      uint32_t newly = v & ~core->int_enable;
      core->int_enable |= v;
      core_collect_vectors(core, core->int_status & newly);
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
            core_tlb_invalidate_locked(core);
         kick = core->tlb_busy;
      }
      break;
   case VAGX_REG_FAULT_ACK:
      if (VAGX_FAULT_ACK_ACK_GET(v)) {
         core->fault_status = 0;
         core->fault_addr = core->fault_root = 0;
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
