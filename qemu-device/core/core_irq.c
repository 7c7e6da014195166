/* SPDX-License-Identifier: MIT */
/*
 * Interrupts and the device's latches: INT_STATUS bits and the MSI-X vectors
 * they raise, the ERROR_STATUS and FAULT_* latches, host events.
 *
 * Vectors are decided under core->lock and raised by core_flush_irqs() after
 * it is dropped: raise_irq is a host op, never called with the lock held.
 */
#include "core_priv.h"

static unsigned vector_for_bit(struct vagx_core *core, unsigned bit)
{
   uint32_t m = 1u << bit;
   if (m & VAGX_INT_JOB_DONE__MASK)
      return core->q[bit - VAGX_INT_JOB_DONE__SHIFT].vector;
   if (m & VAGX_INT_QUEUE_ERROR__MASK)
      return core->q[bit - VAGX_INT_QUEUE_ERROR__SHIFT].vector;
   if (m & CORE_INT_DISPLAY)
      return VAGX_MSIX_VECTOR_DISPLAY;
   return VAGX_MSIX_VECTOR_ERROR;
}

void core_collect_vectors(struct vagx_core *core, uint32_t bits)
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
   core_collect_vectors(core, bits);
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
