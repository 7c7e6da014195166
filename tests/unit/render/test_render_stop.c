/* SPDX-License-Identifier: MIT */
/* Issue 16, item 1, through the whole device: a render job that does no
 * work a loop could notice -- an indexed draw with primitive restart at
 * index 0, an empty index buffer and count = instances = 2^32 - 1, so every
 * vertex is a restart, and the rasteriser discards -- must still end by its
 * timeout, by Q_ABORT, Q_RESET and RESET, and let a TLB invalidation
 * complete while it runs.  Before the fix each of these waited for 2^64
 * vertex steps.  A case that does not end
 * within its bound leaves a device that cannot be destroyed: the test
 * reports it and exits. */
#include "core_test.h"

#define MEM_SIZE (8u << 20)
#include "render_test_job.h"

#define RAM (32ull << 20)

static struct tdev d;
static struct tq q;
static uint64_t root, seq = 1;

/* Submits the job that never ends by itself (timeout_ms 0: none). */
static uint64_t submit_endless(uint32_t timeout_ms)
{
   brk_ = 0;
   /* rasteriser discard without stream output: not even a batch end used
    * to check for an abort */
   struct vagx_cmd_rasterizer rs = rtj_rasterizer();
   rs.discard = 1;
   rtj_state(rtj_vs_const(), NULL, 0, rtj_fs_const(), (const float[4]){1, 0, 0, 1}, &rs);
   const uint64_t ib = alloc(64, 64);
   RTJ_EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 0xffffffffu;
            v_.instance_count = 0xffffffffu; v_.index_size = VAGX_INDEX_SIZE_U32;
            v_.index_va = ib; v_.index_buffer_size = 0; v_.restart = 1; v_.restart_index = 0);
   const uint64_t job = rtj_finish((const float[4]){0, 0, 0, 1});
   struct vagx_job_header h;
   hdr_init(&q, &h, VAGX_JOB_TYPE_RENDER, root, seq++);
   h.desc_va = job;
   h.desc_size = VAGX_RENDER_JOB_LENGTH;
   h.timeout_ms = timeout_ms;
   return tq_submit(&q, &h, NULL);
}

static void bail_if_stuck(bool ok, const char *what)
{
   CHECK(ok, "%s", what);
   if (!ok) {
      fprintf(stderr, "test_render_stop: %d of %d checks failed; the device is stuck\n",
              t_failures, t_checks);
      fflush(stderr);
      _exit(1);
   }
}

static void restart_queue(void)
{
   wr(&d, VAGX_REG_Q_RESET(0), VAGX_Q_RESET_START(1));
   bail_if_stuck(WAIT_UNTIL(rd(&d, VAGX_REG_Q_RESET(0)) == 0, 2), "queue reset for the next case");
   tq_init(&q, &d, 0, 3);
}

int main(void)
{
   tdev_init(&d, RAM, 2, false);
   root = vm_new(d.f);
   mem = pa_ptr(d.f, vm_alloc(d.f, root, MEM_BASE, MEM_SIZE, false));
   (void)mem_ops;
   tq_init(&q, &d, 0, 3);
   vagx_core_frontend_start(d.core);

   /* its own timeout */
   double t0 = t_now_s();
   uint64_t slot = submit_endless(100);
   bail_if_stuck(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_HALTED, 3), "timeout ends it");
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_TIMEOUT, "TIMEOUT: %u",
         slot_result(&d, slot).status);
   CHECK(t_now_s() - t0 < 1.5, "ended %.3f s after submission (timeout 0.1 s)", t_now_s() - t0);
   restart_queue();

   /* a TLB invalidation completes while it runs, then Q_ABORT stops it */
   slot = submit_endless(0);
   bail_if_stuck(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_RUNNING, 2), "running");
   usleep(20000);
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1));
   CHECK(WAIT_UNTIL(!VAGX_TLB_INV_STATUS_BUSY_GET(rd(&d, VAGX_REG_TLB_INV_STATUS)), 1),
         "TLB invalidation completes during the job");
   t0 = t_now_s();
   wr(&d, VAGX_REG_Q_ABORT(0), VAGX_Q_ABORT_ABORT(1));
   bail_if_stuck(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_HALTED, 2), "Q_ABORT ends it");
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_ABORTED, "ABORTED: %u",
         slot_result(&d, slot).status);
   CHECK(t_now_s() - t0 < 0.5, "abort took %.3f s", t_now_s() - t0);
   restart_queue();

   /* Q_RESET drops it */
   submit_endless(0);
   bail_if_stuck(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_RUNNING, 2), "running");
   usleep(20000);
   wr(&d, VAGX_REG_Q_RESET(0), VAGX_Q_RESET_START(1));
   bail_if_stuck(WAIT_UNTIL(rd(&d, VAGX_REG_Q_RESET(0)) == 0, 2), "Q_RESET completes");
   CHECK(q_state(&d, 0) == VAGX_QUEUE_STATE_STOPPED, "stopped after Q_RESET");
   tq_init(&q, &d, 0, 3);

   /* global RESET drops it */
   submit_endless(0);
   bail_if_stuck(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_RUNNING, 2), "running");
   usleep(20000);
   wr(&d, VAGX_REG_RESET, VAGX_RESET_START(1));
   bail_if_stuck(WAIT_UNTIL(rd(&d, VAGX_REG_RESET) == 0, 2), "RESET completes");
   CHECK(q_state(&d, 0) == VAGX_QUEUE_STATE_STOPPED, "stopped after RESET");

   vagx_core_frontend_stop(d.core);
   tdev_fini(&d);
   printf("test_render_stop: %d checks, %d failures\n", t_checks, t_failures);
   return t_failures ? 1 : 0;
}
