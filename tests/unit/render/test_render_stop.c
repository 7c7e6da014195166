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

/* Two tiles (64x32): the left one shades a short loop, the right one
 * loops forever.  When the render job's calling thread gets the left tile
 * and its helper (the other worker) the right one, the caller finishes and
 * waits for the helper at the end of the tiles' parallel-for; the other way
 * round, the caller shades forever itself. */
static uint64_t submit_helper_endless(void)
{
   brk_ = 0;
   rtj_w = 64;
   rtj_h = 32;
   const uint64_t fs = assemble("shr r2, sr.pix_x, #5\n"
                                "mov r6, #2000\n"
                                "shl r6, r6, #3\n"
                                "mov r1, #0\n"
                                "loop\n"
                                "  iadd r1, r1, #1\n"
                                "  icmp.uge r4, r1, r6\n"
                                "  icmp.eq r5, r2, #0\n"
                                "  and r4, r4, r5\n"
                                "  break.cond r4\n"
                                "endloop\n"
                                "mov r0, u0\nmov r1, u1\nmov r2, u2\nmov r3, u3\n"
                                "st_tile.rt0 r0, #0\nend\n");
   static const float tri[12] = {-1, -1, 0, 1, 3, -1, 0, 1, -1, 3, 0, 1};
   const uint64_t vb = put(tri, sizeof(tri), 16);
   const uint32_t vs_uni[2] = {(uint32_t)vb, (uint32_t)(vb >> 32)};
   rtj_state(rtj_vs_fetch(), vs_uni, 2, fs, (const float[4]){1, 0, 0, 1}, NULL);
   RTJ_EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3;
            v_.instance_count = 1);
   const uint64_t job = rtj_finish((const float[4]){0, 0, 0, 1});
   rtj_w = rtj_h = 32;
   struct vagx_job_header h;
   hdr_init(&q, &h, VAGX_JOB_TYPE_RENDER, root, seq++);
   h.desc_va = job;
   h.desc_size = VAGX_RENDER_JOB_LENGTH;
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

   /* A TLB invalidation completes while the caller of the tiles'
    * parallel-for waits for a helper in an endless tile: the waiting caller
    * is outside its slice (it used to hold the invalidation until the
    * helper's tile ended -- here never; under load, seconds).  Which thread
    * gets the endless tile is up to the scheduler (the old code failed 6 of
    * 8 rounds): 8 rounds. */
   for (unsigned round = 0; round < 8; round++) {
      slot = submit_helper_endless();
      bail_if_stuck(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_RUNNING, 2), "running");
      usleep(150000); /* the finite tile is done */
      wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1));
      t0 = t_now_s();
      CHECK(WAIT_UNTIL(!VAGX_TLB_INV_STATUS_BUSY_GET(rd(&d, VAGX_REG_TLB_INV_STATUS)), 1),
            "round %u: TLB invalidation completes while a helper shades an endless tile", round);
      const double inv_s = t_now_s() - t0;
      CHECK(q_state(&d, 0) == VAGX_QUEUE_STATE_RUNNING, "round %u: the job still runs", round);
      wr(&d, VAGX_REG_Q_ABORT(0), VAGX_Q_ABORT_ABORT(1));
      bail_if_stuck(WAIT_UNTIL(q_state(&d, 0) == VAGX_QUEUE_STATE_HALTED, 2), "Q_ABORT ends it");
      CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_ABORTED, "ABORTED: %u",
            slot_result(&d, slot).status);
      printf("test_render_stop: round %u: invalidation done in %.2f ms\n", round, inv_s * 1e3);
      restart_queue();
   }

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
