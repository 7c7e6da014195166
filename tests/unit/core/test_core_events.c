/* SPDX-License-Identifier: MIT */
/*
 * test_core: host_ops.event, the events the QEMU binding turns into trace
 * events.
 */
#include "test_core.h"

/* host_ops.event (the QEMU binding's trace events): job start and end, MMU
 * faults and register errors, each with the values the registers and the
 * job result report. */
void test_events(void)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, 1, false, 1, 4);
   struct fake *f = d.f;
   uint64_t root = vm_new(f);
   vm_alloc(f, root, VA_BUF, VAGX_PAGE_SIZE, false);
   uint32_t p[VAGX_RING_SLOT_PAYLOAD_SIZE / 4];

   payload_fill(p, VA_BUF, 64, 1);
   uint64_t slot = tq_run(&t, VAGX_JOB_TYPE_FILL, root, 7, p);
   const struct vagx_core_event *s = &f->last[VAGX_CORE_EVENT_JOB_START];
   const struct vagx_core_event *e = &f->last[VAGX_CORE_EVENT_JOB_END];
   CHECK(f->events[VAGX_CORE_EVENT_JOB_START] == 1 && s->queue == 1 && s->seqno == 7 &&
         s->type == VAGX_JOB_TYPE_FILL && s->slot_pa == slot, "job start");
   CHECK(f->events[VAGX_CORE_EVENT_JOB_END] == 1 && e->queue == 1 && e->seqno == 7 &&
         e->status == VAGX_JOB_STATUS_OK, "job end");
   CHECK(f->events[VAGX_CORE_EVENT_MMU_FAULT] == 0, "no fault");

   /* a fill of an unmapped page: the fault, then the failed job */
   payload_fill(p, VA_BUF + VAGX_PAGE_SIZE, 64, 1);
   slot = tq_run(&t, VAGX_JOB_TYPE_FILL, root, 8, p);
   const struct vagx_core_event *m = &f->last[VAGX_CORE_EVENT_MMU_FAULT];
   struct vagx_job_result r = slot_result(&d, slot);
   CHECK(f->events[VAGX_CORE_EVENT_MMU_FAULT] == 1 && m->queue == 1 &&
         m->address == VA_BUF + VAGX_PAGE_SIZE && m->root == root &&
         m->reason == VAGX_FAULT_REASON_NOT_PRESENT && m->access == VAGX_FAULT_ACCESS_WRITE &&
         m->level == VAGX_PT_LEVELS - 1, "fault event: reason %u level %u", m->reason, m->level);
   CHECK(f->events[VAGX_CORE_EVENT_JOB_END] == 2 && e->seqno == 8 && e->status == r.status &&
         e->status == VAGX_JOB_STATUS_MMU_FAULT && e->unit == r.unit && e->address == r.address,
         "failed job end: status %u", e->status);

   /* a write to a read-only register; a second one is reported too */
   wr(&d, VAGX_REG_ID, 1);
   wr(&d, VAGX_REG_ID, 2);
   const struct vagx_core_event *g = &f->last[VAGX_CORE_EVENT_REG_ERROR];
   CHECK(f->events[VAGX_CORE_EVENT_REG_ERROR] == 2 && g->code == VAGX_REG_ERROR_BAD_ACCESS &&
         g->offset == VAGX_REG_ID, "register error event");
   tdev_fini(&d);
}
