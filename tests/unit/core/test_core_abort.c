/* SPDX-License-Identifier: MIT */
/*
 * test_core: long jobs: abort, reset and timeout, and the seqno-qualified
 * abort.
 */
#include "test_core.h"

/* A VM whose 2^47 bytes from VA_SPARSE on are NULL (top-level entries): a
 * fill over them runs for minutes */
static uint64_t vm_new_long_null(struct fake *f)
{
   uint64_t root = vm_new(f);
   for (uint64_t va = VA_SPARSE; va < VA_SPARSE + (1ull << 47); va += vagx_pt_entry_span(0))
      vm_set_null(f, root, va, 0);
   return root;
}

/* A fill over a huge NULL range: runs for a long time, touches no memory. */
static uint64_t submit_long_fill(struct tq *t, uint64_t root, uint64_t seq, uint32_t timeout_ms)
{
   uint32_t p[VAGX_RING_SLOT_PAYLOAD_SIZE / 4];
   struct vagx_job_header h;
   hdr_init(t, &h, VAGX_JOB_TYPE_FILL, root, seq);
   h.timeout_ms = timeout_ms;
   payload_fill(p, VA_SPARSE, 1ull << 47, 0x1);
   return tq_submit(t, &h, p);
}

void test_long_jobs(void)
{
   struct tdev d;
   tdev_init(&d, RAM, 2, false);
   uint64_t root = vm_new_long_null(d.f);
   struct tq t0, t1;
   tq_init(&t0, &d, 0, 3);
   tq_init(&t1, &d, 1, 5);
   vagx_core_frontend_start(d.core);

   /* queue 0 runs a long job; queue 1 keeps completing jobs meanwhile */
   uint64_t slot0 = submit_long_fill(&t0, root, 10, 0);
   CHECK(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_RUNNING, 5), "q0 running");
   for (unsigned i = 0; i < 20; i++) {
      struct vagx_job_header h;
      hdr_init(&t1, &h, VAGX_JOB_TYPE_NOP, 0, 1000 + i);
      tq_submit(&t1, &h, NULL);
   }
   CHECK(WAIT_UNTIL(q_seqno(&d, 1) == 1019, 5), "q1 progressed while q0 busy: %llu",
         (unsigned long long)q_seqno(&d, 1));
   CHECK(q_state(&d, 0) == VAGX_QUEUE_STATE_RUNNING, "q0 still running");
   CHECK(!VAGX_STATUS_IDLE_GET(rd(&d, VAGX_REG_STATUS)), "device busy");

   /* abort */
   double t_abort = t_now_s();
   wr(&d, VAGX_REG_Q_ABORT(0), VAGX_Q_ABORT_ABORT(1));
   CHECK(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_HALTED, 5), "aborted");
   CHECK(t_now_s() - t_abort < 1.0, "abort prompt: %.3f s", t_now_s() - t_abort);
   CHECK(slot_result(&d, slot0).status == VAGX_JOB_STATUS_ABORTED, "ABORTED");
   CHECK(VAGX_Q_STATUS_ERROR_GET(rd(&d, VAGX_REG_Q_STATUS(0))) == VAGX_JOB_STATUS_ABORTED, "error");
   CHECK(pa_u64(d.f, d.completion_pa) == 10, "aborted job completes");
   wr(&d, VAGX_REG_Q_RESUME(0), 1);

   /* timeout */
   uint64_t slot = submit_long_fill(&t0, root, 11, 30);
   CHECK(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_HALTED, 5), "timed out");
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_TIMEOUT, "TIMEOUT %u",
         slot_result(&d, slot).status);
   wr(&d, VAGX_REG_Q_RESUME(0), 1);

   /* queue reset of a running job: no result, no completion */
   slot = submit_long_fill(&t0, root, 12, 0);
   CHECK(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_RUNNING, 5), "running again");
   wr(&d, VAGX_REG_INT_STATUS, ~0u);
   wr(&d, VAGX_REG_Q_RESET(0), VAGX_Q_RESET_START(1));
   CHECK(WAIT_UNTIL(rd(&d, VAGX_REG_Q_RESET(0)) == 0, 5), "reset completes");
   CHECK(q_state(&d, 0) == VAGX_QUEUE_STATE_STOPPED && rd(&d, VAGX_REG_Q_HEAD(0)) == 0 &&
         rd(&d, VAGX_REG_Q_TAIL(0)) == 0 && rd(&d, VAGX_REG_Q_CONTROL(0)) == 0, "reset state");
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_PENDING, "dropped: no result");
   CHECK(pa_u64(d.f, d.completion_pa) == 11, "dropped: no completion");
   CHECK(d.f->events[VAGX_CORE_EVENT_JOB_DROPPED] == 1 &&
         d.f->last[VAGX_CORE_EVENT_JOB_DROPPED].queue == 0 &&
         d.f->last[VAGX_CORE_EVENT_JOB_DROPPED].seqno == 12, "dropped: JOB_DROPPED event");
   CHECK(rd(&d, VAGX_REG_INT_STATUS) & VAGX_INT_RESET_DONE(1), "reset done");
   CHECK(!(rd(&d, VAGX_REG_INT_STATUS) & (VAGX_INT_JOB_DONE(0) | VAGX_INT_QUEUE_ERROR(0))),
         "queue bits clear");

   /* the queue works again after re-enabling */
   tq_init(&t0, &d, 0, 3);
   struct vagx_job_header h;
   hdr_init(&t0, &h, VAGX_JOB_TYPE_NOP, 0, 13);
   slot = tq_submit(&t0, &h, NULL);
   CHECK(WAIT_UNTIL(q_seqno(&d, 0) == 13, 5), "after reset");

   /* global reset with two long jobs */
   submit_long_fill(&t0, root, 14, 0);
   submit_long_fill(&t1, root, 2000, 0);
   CHECK(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_RUNNING &&
                       q_state(&d, 1) == VAGX_QUEUE_STATE_RUNNING, 5), "both running");
   wr(&d, VAGX_REG_RESET, VAGX_RESET_START(1));
   CHECK(WAIT_UNTIL(rd(&d, VAGX_REG_RESET) == 0, 5), "global reset completes");
   CHECK(q_state(&d, 0) == VAGX_QUEUE_STATE_STOPPED && q_state(&d, 1) == VAGX_QUEUE_STATE_STOPPED,
         "all stopped");
   CHECK(rd(&d, VAGX_REG_INT_STATUS) == VAGX_INT_RESET_DONE(1), "only RESET_DONE");
   CHECK(d.f->events[VAGX_CORE_EVENT_JOB_DROPPED] == 3, "both dropped: %u JOB_DROPPED events",
         d.f->events[VAGX_CORE_EVENT_JOB_DROPPED]);
   CHECK(WAIT_UNTIL(VAGX_STATUS_IDLE_GET(rd(&d, VAGX_REG_STATUS)), 5), "idle");

   /* disable while running: finishes the job then STOPPED */
   tq_init(&t0, &d, 0, 3);
   slot = submit_long_fill(&t0, root, 15, 20);
   CHECK(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_RUNNING, 5), "running");
   wr(&d, VAGX_REG_Q_CONTROL(0), 0);
   CHECK(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_STOPPED, 5), "stopped after job");
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_TIMEOUT, "job finished (timeout)");

   /* destroy with a job still running must not hang or leak */
   tq_init(&t0, &d, 0, 3);
   submit_long_fill(&t0, root, 16, 0);
   CHECK(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_RUNNING, 5), "running at destroy");
   tdev_fini(&d);
}

/* Q_ABORT with MATCH=1 (contract 1.1): only the job whose seqno matches is
 * aborted; a stale abort (the seqno of a job that already completed, as a
 * kernel timeout handler racing with the completion would write) leaves the
 * next, innocent job running.  Q_ABORT_STATUS reports each outcome. */
static unsigned abort_result(struct tdev *d, unsigned q)
{
   return VAGX_Q_ABORT_STATUS_RESULT_GET(rd(d, VAGX_REG_Q_ABORT_STATUS(q)));
}

static void abort_match(struct tdev *d, unsigned q, uint64_t seqno)
{
   wr(d, VAGX_REG_Q_ABORT_MATCH_LO(q), (uint32_t)seqno);
   wr(d, VAGX_REG_Q_ABORT_MATCH_HI(q), (uint32_t)(seqno >> 32));
   wr(d, VAGX_REG_Q_ABORT(q), VAGX_Q_ABORT_ABORT(1) | VAGX_Q_ABORT_MATCH(1));
}

void test_abort_match(void)
{
   struct tdev d;
   tdev_init(&d, RAM, 2, false);
   uint64_t root = vm_new_long_null(d.f);
   struct tq t0;
   tq_init(&t0, &d, 0, 3);
   vagx_core_frontend_start(d.core);
   CHECK(abort_result(&d, 0) == VAGX_ABORT_RESULT_NONE, "no abort yet");

   /* nothing running: NOT_RUNNING, with or without MATCH */
   wr(&d, VAGX_REG_Q_ABORT(0), VAGX_Q_ABORT_ABORT(1));
   CHECK(abort_result(&d, 0) == VAGX_ABORT_RESULT_NOT_RUNNING, "idle abort: %u",
         abort_result(&d, 0));
   wr(&d, VAGX_REG_Q_ABORT(0), 0);
   CHECK(abort_result(&d, 0) == VAGX_ABORT_RESULT_NOT_RUNNING, "ABORT=0 changes nothing");

   /* the match registers read back; the high half takes part in the match */
   const uint64_t seq = 0x123456789abcull;
   uint64_t slot = submit_long_fill(&t0, root, seq, 0);
   CHECK(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_RUNNING, 5), "running");
   abort_match(&d, 0, seq + (1ull << 32));
   CHECK(rd(&d, VAGX_REG_Q_ABORT_MATCH_LO(0)) == (uint32_t)seq &&
            rd(&d, VAGX_REG_Q_ABORT_MATCH_HI(0)) == (uint32_t)(seq >> 32) + 1,
         "match registers read back");
   CHECK(abort_result(&d, 0) == VAGX_ABORT_RESULT_MISMATCH, "high half differs: %u",
         abort_result(&d, 0));
   abort_match(&d, 0, seq - 1);
   CHECK(abort_result(&d, 0) == VAGX_ABORT_RESULT_MISMATCH, "stale seqno: mismatch");
   usleep(50 * 1000);
   CHECK(q_state(&d, 0) == VAGX_QUEUE_STATE_RUNNING, "mismatched abort: job runs on");
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_PENDING, "no result yet");

   /* the matching seqno aborts it like a plain abort */
   abort_match(&d, 0, seq);
   CHECK(abort_result(&d, 0) == VAGX_ABORT_RESULT_ACCEPTED, "match: accepted %u",
         abort_result(&d, 0));
   CHECK(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_HALTED, 5), "matched job aborted");
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_ABORTED, "ABORTED");
   CHECK(q_seqno(&d, 0) == seq, "aborted job completes with its seqno");
   /* halted, nothing running */
   abort_match(&d, 0, seq);
   CHECK(abort_result(&d, 0) == VAGX_ABORT_RESULT_NOT_RUNNING, "halted: not running");
   wr(&d, VAGX_REG_Q_RESUME(0), 1);

   /* the race the field exists for: the handler of job A aborts after A
    * completed and B started; B must not be hurt */
   struct vagx_job_header h;
   hdr_init(&t0, &h, VAGX_JOB_TYPE_NOP, 0, 40);
   tq_submit(&t0, &h, NULL);
   slot = submit_long_fill(&t0, root, 41, 0);
   /* Q_STATUS already says RUNNING while B's slot is being fetched; an abort
    * with a seqno no job has is a harmless probe for "B was fetched". */
   CHECK(WAIT_UNTIL(q_seqno(&d, 0) == 40 &&
                       (abort_match(&d, 0, ~0ull), abort_result(&d, 0)) ==
                          VAGX_ABORT_RESULT_MISMATCH, 5),
         "A done, B running");
   abort_match(&d, 0, 40);
   CHECK(abort_result(&d, 0) == VAGX_ABORT_RESULT_MISMATCH, "A's abort misses B");
   usleep(50 * 1000);
   CHECK(q_state(&d, 0) == VAGX_QUEUE_STATE_RUNNING &&
            slot_result(&d, slot).status == VAGX_JOB_STATUS_PENDING, "B unharmed");
   /* a plain abort still hits whatever runs */
   wr(&d, VAGX_REG_Q_ABORT(0), VAGX_Q_ABORT_ABORT(1));
   CHECK(abort_result(&d, 0) == VAGX_ABORT_RESULT_ACCEPTED, "plain abort accepted");
   CHECK(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_HALTED, 5), "B aborted");
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_ABORTED, "B ABORTED");

   /* queue reset clears the outcome */
   wr(&d, VAGX_REG_Q_RESET(0), VAGX_Q_RESET_START(1));
   CHECK(WAIT_UNTIL(rd(&d, VAGX_REG_Q_RESET(0)) == 0, 5), "reset");
   CHECK(abort_result(&d, 0) == VAGX_ABORT_RESULT_NONE, "reset clears ABORT_STATUS");
   tdev_fini(&d);
}
