/* SPDX-License-Identifier: MIT */
/*
 * Renderer-core tests: registers, MMU (walks, NULL, read-only, faults, TLB
 * invalidation), rings (seqno + irq per job, two queues, abort, resets,
 * timeouts, timestamps), copy/fill, compute kernels written in assembly and
 * checked against C, hostile input, and the decoder.
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>

#include "core_test.h"
#include "vagx_test_desc.h"
#include "vagx_asm.h"
#include "../compute_kernels.h"

#define RAM (64ull << 20)
#define VA_BUF 0x0000004000000000ull   /* a user buffer region (L0 index 0x8) */
#define VA_CODE 0x0000002000000000ull
#define VA_DESC 0x0000003000000000ull
#define VA_SPARSE 0x0000100000000000ull

/* A device of RAM bytes of guest memory and queue q (2^log2 slots) on it */
static void tdev_init_tq(struct tdev *d, struct tq *t, unsigned workers, bool nomap, unsigned q,
                         unsigned log2)
{
   tdev_init(d, RAM, workers, nomap);
   tq_init(t, d, q, log2);
}

static uint32_t rnd_state = 12345;
static uint32_t rnd(void)
{
   rnd_state = rnd_state * 1664525u + 1013904223u;
   return rnd_state >> 7 ^ rnd_state << 9;
}

/* ---------------------------------------------------------- registers -- */

static void test_registers(void)
{
   struct tdev d;
   tdev_init(&d, RAM, 2, false);
   CHECK(rd(&d, VAGX_REG_ID) == VAGX_ID_MAGIC, "id");
   CHECK(VAGX_VERSION_MAJOR_GET(rd(&d, VAGX_REG_VERSION)) == VAGX_HW_VERSION_MAJOR, "version");
   CHECK(VAGX_CONFIG_NUM_CORES_GET(rd(&d, VAGX_REG_CONFIG)) == 2, "cores");
   CHECK(VAGX_CONFIG_NUM_QUEUES_GET(rd(&d, VAGX_REG_CONFIG)) >= 2, "queues");
   CHECK(VAGX_CONFIG_NUM_MSIX_GET(rd(&d, VAGX_REG_CONFIG)) == VAGX_MSIX_VECTORS, "msix");
   CHECK(rd(&d, VAGX_REG_FEATURES) == VAGX_REG_FEATURES_RESET, "features");
   wr(&d, VAGX_REG_SCRATCH, 0xdeadbeef);
   CHECK(rd(&d, VAGX_REG_SCRATCH) == 0xdeadbeef, "scratch");
   CHECK(VAGX_STATUS_IDLE_GET(rd(&d, VAGX_REG_STATUS)), "idle");

   /* write to a read-only register: ERROR_STATUS code + offset, DEVICE_ERROR */
   unsigned before = atomic_load(&d.f->irq[VAGX_MSIX_VECTOR_ERROR]);
   wr(&d, VAGX_REG_ID, 1);
   uint32_t e = rd(&d, VAGX_REG_ERROR_STATUS);
   CHECK(VAGX_ERROR_STATUS_VALID_GET(e) && VAGX_ERROR_STATUS_CODE_GET(e) == VAGX_REG_ERROR_BAD_ACCESS &&
         VAGX_ERROR_STATUS_OFFSET_GET(e) == VAGX_REG_ID, "error status %x", e);
   CHECK(rd(&d, VAGX_REG_INT_STATUS) & VAGX_INT_DEVICE_ERROR(1), "device error int");
   CHECK(atomic_load(&d.f->irq[VAGX_MSIX_VECTOR_ERROR]) == before + 1, "error vector");
   wr(&d, 0x7ffc, 1); /* unknown offset */
   CHECK(VAGX_ERROR_STATUS_MULTIPLE_GET(rd(&d, VAGX_REG_ERROR_STATUS)), "multiple");
   wr(&d, VAGX_REG_ERROR_ACK, VAGX_ERROR_ACK_ACK(1));
   CHECK(rd(&d, VAGX_REG_ERROR_STATUS) == 0, "error ack");

   /* interrupts: W1C, enable, pending, raise */
   wr(&d, VAGX_REG_INT_STATUS, ~0u);
   CHECK(rd(&d, VAGX_REG_INT_STATUS) == 0, "w1c all");
   wr(&d, VAGX_REG_INT_ENABLE, 0);
   unsigned v3 = atomic_load(&d.f->irq[VAGX_MSIX_VECTOR_QUEUE0 + 3]);
   wr(&d, VAGX_REG_INT_RAISE, VAGX_INT_JOB_DONE(3) | VAGX_INT_VBLANK(1));
   CHECK(rd(&d, VAGX_REG_INT_STATUS) == (VAGX_INT_JOB_DONE(3) | VAGX_INT_VBLANK(1)), "raise");
   CHECK(rd(&d, VAGX_REG_INT_PENDING) == 0, "pending masked");
   CHECK(atomic_load(&d.f->irq[VAGX_MSIX_VECTOR_QUEUE0 + 3]) == v3, "masked: no msi");
   wr(&d, VAGX_REG_INT_ENABLE, VAGX_INT_JOB_DONE(3));
   CHECK(rd(&d, VAGX_REG_INT_PENDING) == VAGX_INT_JOB_DONE(3), "pending");
   CHECK(atomic_load(&d.f->irq[VAGX_MSIX_VECTOR_QUEUE0 + 3]) == v3 + 1, "enable raises");
   CHECK(vagx_core_irq_pending(d.core) == VAGX_INT_JOB_DONE(3), "irq_pending api");
   wr(&d, VAGX_REG_INT_STATUS, VAGX_INT_JOB_DONE(3));
   CHECK(rd(&d, VAGX_REG_INT_STATUS) == VAGX_INT_VBLANK(1), "w1c one");

   /* timestamp latch */
   uint32_t lo1 = rd(&d, VAGX_REG_TIMESTAMP_LO);
   uint64_t t1 = lo1 | (uint64_t)rd(&d, VAGX_REG_TIMESTAMP_HI) << 32;
   usleep(1000);
   uint32_t lo2 = rd(&d, VAGX_REG_TIMESTAMP_LO);
   uint64_t t2 = lo2 | (uint64_t)rd(&d, VAGX_REG_TIMESTAMP_HI) << 32;
   CHECK(t2 > t1 && t2 - t1 >= VAGX_REG_TIMESTAMP_FREQ_RESET / 1000, "timestamp %llu %llu",
         (unsigned long long)t1, (unsigned long long)t2);
   CHECK(rd(&d, VAGX_REG_TIMESTAMP_FREQ) == VAGX_TIMESTAMP_FREQ_HZ, "freq");

   /* ring configuration errors */
   wr(&d, VAGX_REG_ERROR_ACK, 1);
   wr(&d, VAGX_REG_Q_RING_SIZE(0), VAGX_Q_RING_SIZE_LOG2(VAGX_RING_MAX_LOG2 + 1));
   wr(&d, VAGX_REG_Q_RING_BASE_LO(0), VAGX_PAGE_SIZE);
   wr(&d, VAGX_REG_Q_CONTROL(0), VAGX_Q_CONTROL_ENABLE(1));
   CHECK(VAGX_ERROR_STATUS_CODE_GET(rd(&d, VAGX_REG_ERROR_STATUS)) == VAGX_REG_ERROR_BAD_RING, "bad ring");
   CHECK(q_state(&d, 0) == VAGX_QUEUE_STATE_STOPPED, "stays stopped");
   wr(&d, VAGX_REG_ERROR_ACK, 1);
   struct tq t;
   tq_init(&t, &d, 0, 2);
   CHECK(q_state(&d, 0) == VAGX_QUEUE_STATE_IDLE, "enabled idle");
   wr(&d, VAGX_REG_Q_RING_SIZE(0), VAGX_Q_RING_SIZE_LOG2(3));
   CHECK(VAGX_ERROR_STATUS_CODE_GET(rd(&d, VAGX_REG_ERROR_STATUS)) == VAGX_REG_ERROR_RING_NOT_STOPPED,
         "ring write enabled");
   CHECK(VAGX_Q_RING_SIZE_LOG2_GET(rd(&d, VAGX_REG_Q_RING_SIZE(0))) == 2, "ignored");
   wr(&d, VAGX_REG_ERROR_ACK, 1);
   wr(&d, VAGX_REG_Q_TAIL(0), 5); /* 4-slot ring */
   wr(&d, VAGX_REG_Q_DOORBELL(0), 1);
   CHECK(VAGX_ERROR_STATUS_CODE_GET(rd(&d, VAGX_REG_ERROR_STATUS)) == VAGX_REG_ERROR_TAIL_OVERRUN,
         "tail beyond");
   CHECK(vagx_core_process(d.core) == 0, "doorbell ignored");
   CHECK(rd(&d, VAGX_REG_Q_HEAD(0)) == 0, "head");

   /* queue blocks past NUM_QUEUES */
   unsigned nq = VAGX_CONFIG_NUM_QUEUES_GET(rd(&d, VAGX_REG_CONFIG));
   if (nq < VAGX_MAX_QUEUES)
      CHECK(rd(&d, VAGX_REG_Q_STATUS(nq)) == 0, "absent queue reads 0");

   /* global reset while idle completes at once */
   wr(&d, VAGX_REG_RESET, VAGX_RESET_START(1));
   CHECK(rd(&d, VAGX_REG_RESET) == 0, "reset done");
   /* the VBLANK raised above is display domain: a GPU reset keeps it */
   CHECK(rd(&d, VAGX_REG_INT_STATUS) == (VAGX_INT_RESET_DONE(1) | VAGX_INT_VBLANK(1)),
         "reset int %x", rd(&d, VAGX_REG_INT_STATUS));
   wr(&d, VAGX_REG_INT_STATUS, ~0u);
   CHECK(q_state(&d, 0) == VAGX_QUEUE_STATE_STOPPED, "reset stops");

   /* scanout commit while disabled applies at once; vblank counts when enabled */
   wr(&d, VAGX_REG_SCANOUT_FORMAT, VAGX_SCANOUT_FORMAT_XRGB8888);
   wr(&d, VAGX_REG_SCANOUT_SIZE, VAGX_SCANOUT_SIZE_WIDTH(64) | VAGX_SCANOUT_SIZE_HEIGHT(32));
   wr(&d, VAGX_REG_SCANOUT_PITCH, 256);
   wr(&d, VAGX_REG_SCANOUT_COMMIT, 1);
   CHECK(rd(&d, VAGX_REG_SCANOUT_COMMIT) == 0, "commit applied");
   struct vagx_core_scanout so;
   CHECK(rd(&d, VAGX_REG_SCANOUT_VBLANK_TS_LO) == 0 && rd(&d, VAGX_REG_SCANOUT_VBLANK_TS_HI) == 0,
         "no vblank time yet");
   wr(&d, VAGX_REG_SCANOUT_CONTROL, 1);
   uint64_t ts0 = rd(&d, VAGX_REG_TIMESTAMP_LO);
   ts0 |= (uint64_t)rd(&d, VAGX_REG_TIMESTAMP_HI) << 32;
   vagx_core_vblank(d.core, 0, &so);
   uint64_t ts1 = rd(&d, VAGX_REG_TIMESTAMP_LO);
   ts1 |= (uint64_t)rd(&d, VAGX_REG_TIMESTAMP_HI) << 32;
   uint64_t vts = rd(&d, VAGX_REG_SCANOUT_VBLANK_TS_LO);
   vts |= (uint64_t)rd(&d, VAGX_REG_SCANOUT_VBLANK_TS_HI) << 32;
   CHECK(so.enable && so.width == 64 && so.height == 32 && !so.blank, "scanout active");
   CHECK(rd(&d, VAGX_REG_SCANOUT_VBLANK_COUNT) == 1, "vblank count");
   CHECK(vts >= ts0 && vts <= ts1, "vblank time %llu in [%llu, %llu]", (unsigned long long)vts,
         (unsigned long long)ts0, (unsigned long long)ts1);
   wr(&d, VAGX_REG_SCANOUT_CONTROL, VAGX_SCANOUT_CONTROL_ENABLE(1) | VAGX_SCANOUT_CONTROL_BLANK(1));
   /* The frame CRC: CRC-32/ISO-HDLC (check value of "123456789"); a blank
    * frame's CRC is that of width * height * 4 zero bytes, latched with its
    * vblank's count. */
   CHECK(vagx_core_crc32(0, "123456789", 9) == 0xcbf43926u, "crc32 check value");
   CHECK(vagx_core_crc32(vagx_core_crc32(0, "1234", 4), "56789", 5) == 0xcbf43926u, "crc32 continues");
   static const uint8_t zeros[64 * 4];
   uint32_t black = 0;
   for (int y = 0; y < 32; y++)
      black = vagx_core_crc32(black, zeros, sizeof(zeros));
   wr(&d, VAGX_REG_SCANOUT_CRC_CONTROL, VAGX_SCANOUT_CRC_CONTROL_ENABLE(1));
   vagx_core_vblank(d.core, 0, &so);
   CHECK(so.enable && so.blank && rd(&d, VAGX_REG_SCANOUT_VBLANK_COUNT) == 2, "blank: engine runs");
   CHECK(rd(&d, VAGX_REG_SCANOUT_CRC_VALUE) == black && rd(&d, VAGX_REG_SCANOUT_CRC_COUNT) == 2,
         "crc of a blank frame");
   wr(&d, VAGX_REG_SCANOUT_CRC_CONTROL, 0);
   /* global reset keeps the display domain */
   wr(&d, VAGX_REG_RESET, VAGX_RESET_START(1));
   CHECK(rd(&d, VAGX_REG_SCANOUT_CONTROL) ==
            (VAGX_SCANOUT_CONTROL_ENABLE(1) | VAGX_SCANOUT_CONTROL_BLANK(1)) &&
            (rd(&d, VAGX_REG_INT_STATUS) & VAGX_INT_VBLANK(1)),
         "reset keeps scanout");
   vagx_core_vblank(d.core, 0, &so);
   CHECK(so.enable && so.width == 64 && rd(&d, VAGX_REG_SCANOUT_VBLANK_COUNT) == 3,
         "vblanks go on after reset");
   /* a display timer that missed vblanks counts them at once, time-stamped
    * when the last one was due */
   uint64_t now0 = rd(&d, VAGX_REG_TIMESTAMP_LO);
   now0 |= (uint64_t)rd(&d, VAGX_REG_TIMESTAMP_HI) << 32;
   vagx_core_vblank_late(d.core, 0, &so, 50000000, 7);   /* due 50 ms ago */
   uint64_t lts = rd(&d, VAGX_REG_SCANOUT_VBLANK_TS_LO);
   lts |= (uint64_t)rd(&d, VAGX_REG_SCANOUT_VBLANK_TS_HI) << 32;
   const uint64_t late_ticks = 50000000ull * VAGX_REG_TIMESTAMP_FREQ_RESET / 1000000000ull;
   CHECK(rd(&d, VAGX_REG_SCANOUT_VBLANK_COUNT) == 10, "7 late vblanks counted at once: %u",
         rd(&d, VAGX_REG_SCANOUT_VBLANK_COUNT));
   CHECK(lts + late_ticks >= now0 && lts + late_ticks <= now0 + late_ticks / 10,
         "late vblanks time-stamped when the last was due");
   /* INT_ENABLE set/clear */
   wr(&d, VAGX_REG_INT_ENABLE, VAGX_INT_JOB_DONE(1));
   wr(&d, VAGX_REG_INT_ENABLE_SET, VAGX_INT_VBLANK(1));
   wr(&d, VAGX_REG_INT_ENABLE_CLEAR, VAGX_INT_JOB_DONE(1) | VAGX_INT_MMU_FAULT(1));
   CHECK(rd(&d, VAGX_REG_INT_ENABLE) == VAGX_INT_VBLANK(1), "int enable set/clear %x",
         rd(&d, VAGX_REG_INT_ENABLE));
   CHECK(rd(&d, VAGX_REG_ERROR_STATUS) == 0, "set/clear are writable");
   wr(&d, VAGX_REG_INT_ENABLE, 0);
   wr(&d, VAGX_REG_SCANOUT_CONTROL, 1);
   wr(&d, VAGX_REG_SCANOUT_PITCH, 3);
   wr(&d, VAGX_REG_SCANOUT_COMMIT, 1);
   CHECK(VAGX_SCANOUT_STATUS_INVALID_GET(rd(&d, VAGX_REG_SCANOUT_STATUS)), "invalid scanout");
   tdev_fini(&d);
}

/* ----------------------------------------------------------- writeback -- */

/* The scanout writeback at the core's level (contract 1.7): a 64x32
 * framebuffer written back as RGB565 and XBGR8888, a blanked frame written
 * black, a NULL target dropping the stores without a fault. */
static void test_writeback(void)
{
   const uint32_t w = 64, h = 32, pitch = 4 * w, wpitch = 4 * w + 16;
   const uint64_t fb_va = VA_BUF, wb_va = VA_BUF + 0x100000, null_va = VA_BUF + 0x40000000ull;
   struct vagx_core_scanout so;
   struct tdev d;
   tdev_init(&d, RAM, 1, false);
   uint64_t root = vm_new(d.f);
   uint64_t fb_pa = vm_alloc(d.f, root, fb_va, (uint64_t)pitch * h, true);
   uint64_t wb_pa = vm_alloc(d.f, root, wb_va, (uint64_t)wpitch * h, false);
   for (uint32_t y = 0; y < h; y++)
      for (uint32_t x = 0; x < w; x++)
         *pa_u32(d.f, fb_pa + y * pitch + 4 * x) = 0x5a000000u | rnd() % 0x1000000u;
   wr(&d, VAGX_REG_SCANOUT_FORMAT, VAGX_SCANOUT_FORMAT_XRGB8888);
   wr(&d, VAGX_REG_SCANOUT_SIZE, VAGX_SCANOUT_SIZE_WIDTH(w) | VAGX_SCANOUT_SIZE_HEIGHT(h));
   wr(&d, VAGX_REG_SCANOUT_PITCH, pitch);
   wr(&d, VAGX_REG_SCANOUT_FB_VA_LO, (uint32_t)fb_va);
   wr(&d, VAGX_REG_SCANOUT_FB_VA_HI, (uint32_t)(fb_va >> 32));
   wr(&d, VAGX_REG_SCANOUT_ROOT_LO, (uint32_t)root);
   wr(&d, VAGX_REG_SCANOUT_ROOT_HI, (uint32_t)(root >> 32));
   wr(&d, VAGX_REG_SCANOUT_CONTROL, VAGX_SCANOUT_CONTROL_ENABLE(1));
   wr(&d, VAGX_REG_SCANOUT_WB_PITCH, wpitch);
   wr(&d, VAGX_REG_SCANOUT_WB_VA_LO, (uint32_t)wb_va);
   wr(&d, VAGX_REG_SCANOUT_WB_VA_HI, (uint32_t)(wb_va >> 32));
   wr(&d, VAGX_REG_SCANOUT_WB_ROOT_LO, (uint32_t)root);
   wr(&d, VAGX_REG_SCANOUT_WB_ROOT_HI, (uint32_t)(root >> 32));

   static const uint32_t formats[] = {VAGX_SCANOUT_FORMAT_RGB565, VAGX_SCANOUT_FORMAT_XBGR8888};
   for (unsigned i = 0; i < 2; i++) {
      wr(&d, VAGX_REG_SCANOUT_WB_FORMAT, formats[i]);
      wr(&d, VAGX_REG_SCANOUT_WB_ARM, VAGX_SCANOUT_WB_ARM_ARM(1));
      vagx_core_vblank(d.core, 0, &so);
      CHECK(rd(&d, VAGX_REG_SCANOUT_WB_ARM) == 1, "waits for a commit");
      wr(&d, VAGX_REG_SCANOUT_COMMIT, VAGX_SCANOUT_COMMIT_PENDING(1));
      vagx_core_vblank(d.core, 0, &so);
      CHECK(rd(&d, VAGX_REG_SCANOUT_WB_ARM) == 0 &&
               rd(&d, VAGX_REG_SCANOUT_WB_STATUS) == VAGX_SCANOUT_WB_STATUS_DONE(1) &&
               rd(&d, VAGX_REG_SCANOUT_WB_COUNT) == rd(&d, VAGX_REG_SCANOUT_VBLANK_COUNT) &&
               (rd(&d, VAGX_REG_INT_STATUS) & VAGX_INT_WRITEBACK(1)),
            "writeback %u done", formats[i]);
      unsigned bad = 0;
      for (uint32_t y = 0; y < h; y++) {
         for (uint32_t x = 0; x < w; x++) {
            uint32_t p = *pa_u32(d.f, fb_pa + y * pitch + 4 * x);
            uint32_t r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;
            const uint8_t *q = pa_ptr(d.f, wb_pa + y * wpitch);
            if (formats[i] == VAGX_SCANOUT_FORMAT_RGB565)
               bad += (uint32_t)(q[2 * x] | q[2 * x + 1] << 8) != ((r >> 3) << 11 | (g >> 2) << 5 | b >> 3);
            else
               bad += *(const uint32_t *)(q + 4 * x) != (0xff000000u | b << 16 | g << 8 | r);
         }
      }
      CHECK(bad == 0, "format %u: %u pixels differ", formats[i], bad);
      wr(&d, VAGX_REG_INT_STATUS, VAGX_INT_WRITEBACK(1));
   }

   /* Blanked: black, 4th byte 255. */
   wr(&d, VAGX_REG_SCANOUT_CONTROL, VAGX_SCANOUT_CONTROL_ENABLE(1) | VAGX_SCANOUT_CONTROL_BLANK(1));
   vagx_core_vblank(d.core, 0, &so);
   wr(&d, VAGX_REG_SCANOUT_WB_FORMAT, VAGX_SCANOUT_FORMAT_XRGB8888);
   wr(&d, VAGX_REG_SCANOUT_WB_ARM, VAGX_SCANOUT_WB_ARM_ARM(1));
   wr(&d, VAGX_REG_SCANOUT_COMMIT, VAGX_SCANOUT_COMMIT_PENDING(1));
   vagx_core_vblank(d.core, 0, &so);
   CHECK(rd(&d, VAGX_REG_SCANOUT_WB_STATUS) == VAGX_SCANOUT_WB_STATUS_DONE(1) &&
            *pa_u32(d.f, wb_pa + (h - 1) * wpitch + 4 * (w - 1)) == 0xff000000u,
         "blank frame written black");

   /* A NULL target: stores dropped, no fault. */
   vm_set_null(d.f, root, null_va, VAGX_PT_LEVELS - 1);
   wr(&d, VAGX_REG_SCANOUT_WB_VA_LO, (uint32_t)null_va);
   wr(&d, VAGX_REG_SCANOUT_WB_VA_HI, (uint32_t)(null_va >> 32));
   wr(&d, VAGX_REG_SCANOUT_SIZE, VAGX_SCANOUT_SIZE_WIDTH(1) | VAGX_SCANOUT_SIZE_HEIGHT(h));
   wr(&d, VAGX_REG_SCANOUT_WB_PITCH, 4);
   wr(&d, VAGX_REG_SCANOUT_WB_ARM, VAGX_SCANOUT_WB_ARM_ARM(1));
   wr(&d, VAGX_REG_SCANOUT_COMMIT, VAGX_SCANOUT_COMMIT_PENDING(1));
   vagx_core_vblank(d.core, 0, &so);
   CHECK(rd(&d, VAGX_REG_SCANOUT_WB_STATUS) == VAGX_SCANOUT_WB_STATUS_DONE(1) &&
            !(rd(&d, VAGX_REG_INT_STATUS) & VAGX_INT_MMU_FAULT(1)),
         "NULL target: done, no fault");

   /* A pitch made too small after the arm: INVALID at the vblank, seen by
    * the host as a REG_ERROR event; ERROR_STATUS does not latch it. */
   const unsigned errs = d.f->events[VAGX_CORE_EVENT_REG_ERROR];
   wr(&d, VAGX_REG_SCANOUT_SIZE, VAGX_SCANOUT_SIZE_WIDTH(w) | VAGX_SCANOUT_SIZE_HEIGHT(h));
   wr(&d, VAGX_REG_SCANOUT_WB_VA_LO, (uint32_t)wb_va);
   wr(&d, VAGX_REG_SCANOUT_WB_VA_HI, (uint32_t)(wb_va >> 32));
   wr(&d, VAGX_REG_SCANOUT_WB_ARM, VAGX_SCANOUT_WB_ARM_ARM(1));
   wr(&d, VAGX_REG_SCANOUT_WB_PITCH, 4 * w - 4);
   wr(&d, VAGX_REG_SCANOUT_COMMIT, VAGX_SCANOUT_COMMIT_PENDING(1));
   vagx_core_vblank(d.core, 0, &so);
   const struct vagx_core_event *e = &d.f->last[VAGX_CORE_EVENT_REG_ERROR];
   CHECK(rd(&d, VAGX_REG_SCANOUT_WB_STATUS) == VAGX_SCANOUT_WB_STATUS_INVALID(1) &&
            d.f->events[VAGX_CORE_EVENT_REG_ERROR] == errs + 1 &&
            e->code == VAGX_REG_ERROR_BAD_SCANOUT && e->offset == VAGX_REG_SCANOUT_WB_FORMAT &&
            !VAGX_ERROR_STATUS_VALID_GET(rd(&d, VAGX_REG_ERROR_STATUS)),
         "pitch too small: INVALID, one REG_ERROR event, no ERROR_STATUS");
   tdev_fini(&d);
}

/* ---------------------------------------------------------------- jobs -- */

static void test_nop_jobs(void)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, 2, false, 1, 2);
   unsigned irq0 = atomic_load(&d.f->irq[VAGX_MSIX_VECTOR_QUEUE0 + 1]);
   /* 10 jobs through a 4-slot ring: the ring wraps */
   for (unsigned i = 0; i < 10; i++) {
      struct vagx_job_header h;
      hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, 100 + i);
      uint64_t slot = tq_submit(&t, &h, NULL);
      CHECK(vagx_core_process(d.core) == 1, "one job");
      CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK, "ok");
      CHECK(pa_u64(d.f, d.completion_pa + 8) == 100 + i, "completion seqno");
      CHECK(q_seqno(&d, 1) == 100 + i, "last seqno");
      CHECK(atomic_load(&d.f->irq[VAGX_MSIX_VECTOR_QUEUE0 + 1]) == irq0 + i + 1, "irq per job");
      CHECK(rd(&d, VAGX_REG_INT_STATUS) & VAGX_INT_JOB_DONE(1), "job done bit");
      wr(&d, VAGX_REG_INT_STATUS, VAGX_INT_JOB_DONE(1));
   }
   CHECK(rd(&d, VAGX_REG_Q_HEAD(1)) == 10 && rd(&d, VAGX_REG_Q_JOBS_DONE(1)) == 10, "head");
   CHECK(q_state(&d, 1) == VAGX_QUEUE_STATE_IDLE, "idle");

   /* batch: 3 jobs, one doorbell, irq only on the last; custom vector */
   uint32_t raw[3][VAGX_JOB_HEADER_DWORDS];
   for (unsigned i = 0; i < 3; i++) {
      struct vagx_job_header h;
      hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, 200 + i);
      h.irq = i == 2;
      h.irq_vector = 5;
      vagx_job_header_pack(raw[i], &h);
      uint64_t slot = tq_slot(&t, t.tail);
      memcpy(pa_ptr(d.f, slot), raw[i], sizeof(raw[i]));
      t.tail++;
   }
   unsigned v5 = atomic_load(&d.f->irq[5]);
   wr(&d, VAGX_REG_Q_TAIL(1), t.tail);
   CHECK(vagx_core_process(d.core) == 0, "tail without doorbell does nothing");
   wr(&d, VAGX_REG_Q_DOORBELL(1), 1);
   CHECK(vagx_core_process(d.core) == 3, "three jobs");
   CHECK(atomic_load(&d.f->irq[5]) == v5 + 1, "one irq on vector 5");
   CHECK(q_seqno(&d, 1) == 202, "seqno");

   /* timestamps */
   uint64_t root = vm_new(d.f);
   uint64_t ts_pa = vm_alloc(d.f, root, VA_BUF, VAGX_PAGE_SIZE, false);
   struct vagx_job_header h;
   hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, root, 300);
   h.timestamps = true;
   h.timestamp_va = VA_BUF + 64;
   uint64_t slot = tq_submit(&t, &h, NULL);
   vagx_core_process(d.core);
   struct vagx_job_timestamps ts;
   vagx_job_timestamps_unpack(pa_u32(d.f, ts_pa + 64), &ts, NULL);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK, "ts job ok");
   CHECK(ts.start != 0 && ts.end >= ts.start, "timestamps %llu %llu",
         (unsigned long long)ts.start, (unsigned long long)ts.end);
   /* timestamp write that faults */
   h.timestamp_va = VA_BUF + (1u << 30);
   slot = tq_submit(&t, &h, NULL);
   vagx_core_process(d.core);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_MMU_FAULT, "ts fault");
   CHECK(q_state(&d, 1) == VAGX_QUEUE_STATE_HALTED, "halted");
   wr(&d, VAGX_REG_FAULT_ACK, 1);

   /* disable with an empty queue */
   wr(&d, VAGX_REG_Q_RESUME(1), 1);
   wr(&d, VAGX_REG_Q_CONTROL(1), 0);
   CHECK(q_state(&d, 1) == VAGX_QUEUE_STATE_STOPPED, "stopped");
   tdev_fini(&d);
}

/* ----------------------------------------------------------------- MMU -- */

static void test_mmu(void)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, 1, false, 0, 4);
   uint64_t root = vm_new(d.f);
   uint64_t pa = vm_alloc(d.f, root, VA_BUF, 4 * VAGX_PAGE_SIZE, false);
   uint64_t ro_pa = vm_alloc(d.f, root, VA_BUF + 0x10000, VAGX_PAGE_SIZE, true);
   vm_set_null(d.f, root, VA_SPARSE, 1);                       /* 1 GiB NULL */
   vm_set_null(d.f, root, VA_BUF + 0x20000, VAGX_PT_LEVELS - 1); /* one NULL page */
   uint32_t p[VAGX_RING_SLOT_PAYLOAD_SIZE / 4];
   struct vagx_job_header h;
   uint64_t seq = 1;

   /* fill a mapped range, then read it back through a copy */
   payload_fill(p, VA_BUF + 4, 2 * VAGX_PAGE_SIZE, 0x11223344);
   uint64_t slot = tq_run(&t, VAGX_JOB_TYPE_FILL, root, seq++, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK, "fill");
   CHECK(pa_u32(d.f, pa)[0] == 0 && pa_u32(d.f, pa)[1] == 0x11223344 &&
         pa_u32(d.f, pa + 2 * VAGX_PAGE_SIZE)[0] == 0x11223344 &&
         pa_u32(d.f, pa + 2 * VAGX_PAGE_SIZE)[1] == 0, "fill range");

   /* NULL pages: writes dropped, reads zero, no fault */
   payload_fill(p, VA_SPARSE + 0x123000, 3 * VAGX_PAGE_SIZE, 0x55);
   slot = tq_run(&t, VAGX_JOB_TYPE_FILL, root, seq++, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK, "fill null");
   payload_copy(p, VA_BUF + 8, VA_BUF + 0x20000, 64); /* from the NULL page */
   slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, seq++, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK, "copy from null");
   CHECK(pa_u32(d.f, pa)[2] == 0 && pa_u32(d.f, pa)[17] == 0 && pa_u32(d.f, pa)[18] == 0x11223344,
         "null reads zero");
   CHECK(rd(&d, VAGX_REG_FAULT_STATUS) == 0, "no fault latched");

   /* read-only page: reads fine, writes fault with READ_ONLY */
   pa_u32(d.f, ro_pa)[0] = 0xabcdef;
   payload_copy(p, VA_BUF + 0x3000, VA_BUF + 0x10000, 4);
   slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, seq++, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK && pa_u32(d.f, pa + 0x3000)[0] == 0xabcdef,
         "ro read");
   hdr_init(&t, &h, VAGX_JOB_TYPE_FILL, root, seq++);
   payload_fill(p, VA_BUF + 0x10010, 16, 7);
   slot = tq_submit(&t, &h, p);
   unsigned err_irq = atomic_load(&d.f->irq[VAGX_MSIX_VECTOR_ERROR]);
   vagx_core_process(d.core);
   struct vagx_job_result r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_MMU_FAULT && r.unit == VAGX_UNIT_COPY &&
         r.address == VA_BUF + 0x10010, "ro fault result %u %u %llx", r.status, r.unit,
         (unsigned long long)r.address);
   CHECK(pa_u64(d.f, d.completion_pa) == seq - 1, "failed job still completes");
   uint32_t fs = rd(&d, VAGX_REG_FAULT_STATUS);
   CHECK(VAGX_FAULT_STATUS_VALID_GET(fs) && VAGX_FAULT_STATUS_ACCESS_GET(fs) == VAGX_FAULT_ACCESS_WRITE &&
         VAGX_FAULT_STATUS_REASON_GET(fs) == VAGX_FAULT_REASON_READ_ONLY &&
         VAGX_FAULT_STATUS_UNIT_GET(fs) == VAGX_UNIT_COPY && VAGX_FAULT_STATUS_QUEUE_GET(fs) == 0 &&
         VAGX_FAULT_STATUS_LEVEL_GET(fs) == VAGX_PT_LEVELS - 1, "fault status %x", fs);
   CHECK(rd(&d, VAGX_REG_FAULT_ADDR_LO) == (uint32_t)(VA_BUF + 0x10010) &&
         rd(&d, VAGX_REG_FAULT_ADDR_HI) == (uint32_t)((VA_BUF + 0x10010) >> 32), "fault addr");
   CHECK(rd(&d, VAGX_REG_FAULT_ROOT_LO) == (uint32_t)root && rd(&d, VAGX_REG_FAULT_ROOT_HI) == 0,
         "fault root");
   CHECK(rd(&d, VAGX_REG_INT_STATUS) & VAGX_INT_MMU_FAULT(1), "mmu fault int");
   CHECK(rd(&d, VAGX_REG_INT_STATUS) & VAGX_INT_QUEUE_ERROR(0), "queue error int");
   CHECK(atomic_load(&d.f->irq[VAGX_MSIX_VECTOR_ERROR]) > err_irq, "error vector");
   CHECK(q_state(&d, 0) == VAGX_QUEUE_STATE_HALTED &&
         VAGX_Q_STATUS_ERROR_GET(rd(&d, VAGX_REG_Q_STATUS(0))) == VAGX_JOB_STATUS_MMU_FAULT,
         "halted with error");

   /* while halted nothing runs; RESUME continues */
   hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, seq++);
   slot = tq_submit(&t, &h, NULL);
   CHECK(vagx_core_process(d.core) == 0, "halted queue does not run");
   wr(&d, VAGX_REG_Q_RESUME(0), 1);
   CHECK(vagx_core_process(d.core) == 1 && slot_result(&d, slot).status == VAGX_JOB_STATUS_OK,
         "resumed");

   /* a second fault while latched sets MULTIPLE; ACK clears */
   struct {
      uint64_t va;
      enum vagx_fault_reason reason;
      unsigned level;
   } cases[] = {
      {VA_BUF + vagx_pt_entry_span(1), VAGX_FAULT_REASON_NOT_PRESENT, 1}, /* L1 entry missing */
      {VA_BUF + 0x30000, VAGX_FAULT_REASON_NOT_PRESENT, 3},       /* leaf missing */
      {1ull << VAGX_VA_BITS, VAGX_FAULT_REASON_ADDRESS_RANGE, 0},
      {0x0000700000000000ull, VAGX_FAULT_REASON_NOT_PRESENT, 0},
   };
   for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      wr(&d, VAGX_REG_FAULT_ACK, 1);
      wr(&d, VAGX_REG_Q_RESUME(0), 1);
      payload_copy(p, VA_BUF, cases[i].va, 8);
      slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, seq++, p);
      fs = rd(&d, VAGX_REG_FAULT_STATUS);
      CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_MMU_FAULT, "case %u", i);
      CHECK(VAGX_FAULT_STATUS_REASON_GET(fs) == cases[i].reason &&
            VAGX_FAULT_STATUS_LEVEL_GET(fs) == cases[i].level &&
            VAGX_FAULT_STATUS_ACCESS_GET(fs) == VAGX_FAULT_ACCESS_READ, "case %u: %x", i, fs);
   }
   wr(&d, VAGX_REG_Q_RESUME(0), 1);
   payload_fill(p, VA_BUF + 0x30000, 4, 0);
   tq_run(&t, VAGX_JOB_TYPE_FILL, root, seq++, p);
   CHECK(VAGX_FAULT_STATUS_MULTIPLE_GET(rd(&d, VAGX_REG_FAULT_STATUS)), "multiple");
   CHECK(VAGX_FAULT_STATUS_REASON_GET(rd(&d, VAGX_REG_FAULT_STATUS)) == VAGX_FAULT_REASON_NOT_PRESENT &&
         rd(&d, VAGX_REG_FAULT_ADDR_LO) == 0, "first fault kept");
   wr(&d, VAGX_REG_FAULT_ACK, 1);
   CHECK(rd(&d, VAGX_REG_FAULT_STATUS) == 0, "ack");

   /* reserved PTE bits (derived from the generated packer) */
   uint32_t resv[VAGX_PTE_DWORDS];
   pte_reserved_mask(resv);
   uint64_t e = vm_entry(d.f, root, VA_BUF + 0x3000, VAGX_PT_LEVELS - 1);
   uint32_t saved[VAGX_PTE_DWORDS];
   memcpy(saved, pa_ptr(d.f, e), sizeof(saved));
   for (unsigned w = 0; w < VAGX_PTE_DWORDS; w++)
      if (resv[w]) {
         pa_u32(d.f, e)[w] |= resv[w] & -resv[w]; /* lowest reserved bit */
         break;
      }
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1));
   wr(&d, VAGX_REG_Q_RESUME(0), 1);
   payload_copy(p, VA_BUF, VA_BUF + 0x3000, 8);
   slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, seq++, p);
   fs = rd(&d, VAGX_REG_FAULT_STATUS);
   CHECK(VAGX_FAULT_STATUS_REASON_GET(fs) == VAGX_FAULT_REASON_RESERVED_BITS, "reserved %x", fs);
   memcpy(pa_ptr(d.f, e), saved, sizeof(saved));
   wr(&d, VAGX_REG_FAULT_ACK, 1);

   /* bad roots: outside RAM, zero */
   wr(&d, VAGX_REG_Q_RESUME(0), 1);
   payload_fill(p, VA_BUF, 4, 0);
   slot = tq_run(&t, VAGX_JOB_TYPE_FILL, RAM + (1ull << 30), seq++, p);
   CHECK(VAGX_FAULT_STATUS_REASON_GET(rd(&d, VAGX_REG_FAULT_STATUS)) == VAGX_FAULT_REASON_BAD_ROOT,
         "bad root");
   wr(&d, VAGX_REG_FAULT_ACK, 1);
   wr(&d, VAGX_REG_Q_RESUME(0), 1);
   slot = tq_run(&t, VAGX_JOB_TYPE_FILL, 0, seq++, p);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_MMU_FAULT && r.unit == VAGX_UNIT_JOB, "zero root");
   wr(&d, VAGX_REG_FAULT_ACK, 1);

   /* page-table loop: an L1 entry pointing back at the root; the walk has a
    * fixed depth, so it ends (here: in the root's own entries) */
   struct vagx_pte loop;
   vagx_pte_init(&loop);
   loop.valid = true;
   loop.addr = root;
   uint64_t lva = 0x0000600000000000ull;
   pte_store(d.f, vm_entry(d.f, root, lva, 1), &loop);
   wr(&d, VAGX_REG_Q_RESUME(0), 1);
   hdr_init(&t, &h, VAGX_JOB_TYPE_COPY, root, seq++);
   payload_copy(p, VA_BUF, lva, 64);
   slot = tq_submit(&t, &h, p);
   CHECK(vagx_core_process(d.core) == 1, "loop job finished");
   wr(&d, VAGX_REG_FAULT_ACK, 1);

   /* physical page outside RAM -> BUS_ERROR */
   vm_map_page(d.f, root, VA_BUF + 0x40000, RAM + 0x100000, false, false);
   wr(&d, VAGX_REG_Q_RESUME(0), 1);
   payload_copy(p, VA_BUF, VA_BUF + 0x40000, 8);
   slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, seq++, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_MMU_FAULT &&
         VAGX_FAULT_STATUS_REASON_GET(rd(&d, VAGX_REG_FAULT_STATUS)) == VAGX_FAULT_REASON_BUS_ERROR,
         "bus error page %x", rd(&d, VAGX_REG_FAULT_STATUS));
   wr(&d, VAGX_REG_FAULT_ACK, 1);
   (void)pa;
   tdev_fini(&d);
}

/* host_ops.event (the QEMU binding's trace events): job start and end, MMU
 * faults and register errors, each with the values the registers and the
 * job result report. */
static void test_events(void)
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

static void test_tlb(void)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, 1, false, 0, 3); /* one worker: its TLB is deterministic */
   uint64_t root = vm_new(d.f);
   uint64_t dst = vm_alloc(d.f, root, VA_BUF, VAGX_PAGE_SIZE, false);
   uint64_t a = vm_alloc(d.f, root, VA_BUF + VAGX_PAGE_SIZE, VAGX_PAGE_SIZE, false);
   uint64_t b = pa_alloc(d.f, VAGX_PAGE_SIZE);
   pa_u32(d.f, a)[0] = 0xaaaa;
   pa_u32(d.f, b)[0] = 0xbbbb;
   uint32_t p[VAGX_RING_SLOT_PAYLOAD_SIZE / 4];
   payload_copy(p, VA_BUF, VA_BUF + VAGX_PAGE_SIZE, 4);

   tq_run(&t, VAGX_JOB_TYPE_COPY, root, 1, p);
   CHECK(pa_u32(d.f, dst)[0] == 0xaaaa, "first");

   /* remap VA_BUF+0x1000 -> b without invalidating: the cached translation
    * may still be used (and with this device is) */
   vm_map_page(d.f, root, VA_BUF + VAGX_PAGE_SIZE, b, false, false);
   tq_run(&t, VAGX_JOB_TYPE_COPY, root, 2, p);
   CHECK(pa_u32(d.f, dst)[0] == 0xaaaa, "stale translation before invalidate: %x",
         pa_u32(d.f, dst)[0]);

   uint32_t seq0 = rd(&d, VAGX_REG_TLB_INV_SEQ);
   wr(&d, VAGX_REG_TLB_INV_ROOT_LO, (uint32_t)root);
   wr(&d, VAGX_REG_TLB_INV_ROOT_HI, (uint32_t)(root >> 32));
   wr(&d, VAGX_REG_TLB_INV_VA_LO, (uint32_t)(VA_BUF + VAGX_PAGE_SIZE));
   wr(&d, VAGX_REG_TLB_INV_VA_HI, (uint32_t)((VA_BUF + VAGX_PAGE_SIZE) >> 32));
   wr(&d, VAGX_REG_TLB_INV_SIZE_LO, VAGX_PAGE_SIZE);
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1));
   CHECK(VAGX_TLB_INV_STATUS_BUSY_GET(rd(&d, VAGX_REG_TLB_INV_STATUS)) == 0, "idle device: done");
   CHECK(rd(&d, VAGX_REG_TLB_INV_SEQ) == seq0 + 1, "seq");
   CHECK(rd(&d, VAGX_REG_INT_STATUS) & VAGX_INT_TLB_INV_DONE(1), "inv done int");

   tq_run(&t, VAGX_JOB_TYPE_COPY, root, 3, p);
   CHECK(pa_u32(d.f, dst)[0] == 0xbbbb, "new translation after invalidate: %x", pa_u32(d.f, dst)[0]);

   /* unmap + invalidate -> fault */
   vm_unmap(d.f, root, VA_BUF + VAGX_PAGE_SIZE);
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1));
   uint64_t slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, 4, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_MMU_FAULT, "unmapped after invalidate");
   tdev_fini(&d);
}

/* ---------------------------------------------------------- copy/fill -- */

static void test_copy_fill(bool nomap)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, 2, nomap, 2, 3);
   uint64_t root = vm_new(d.f);
   /* source: 5 pages mapped to scattered physical pages (reverse order) */
   const unsigned np = 5;
   uint64_t src_pa[5], dst_pa[5];
   for (unsigned i = 0; i < np; i++)
      src_pa[np - 1 - i] = pa_alloc(d.f, VAGX_PAGE_SIZE);
   for (unsigned i = 0; i < np; i++) {
      vm_map_page(d.f, root, VA_BUF + i * VAGX_PAGE_SIZE, src_pa[i], false, false);
      dst_pa[i] = pa_alloc(d.f, VAGX_PAGE_SIZE);
      pa_alloc(d.f, VAGX_PAGE_SIZE); /* gap */
      vm_map_page(d.f, root, VA_BUF + 0x100000 + i * VAGX_PAGE_SIZE, dst_pa[i], false, false);
      for (unsigned k = 0; k < VAGX_PAGE_SIZE; k++)
         ((uint8_t *)pa_ptr(d.f, src_pa[i]))[k] = (uint8_t)rnd();
   }
   uint32_t p[VAGX_RING_SLOT_PAYLOAD_SIZE / 4];
   const uint64_t so = 123, doff = 4001, len = 3 * VAGX_PAGE_SIZE + 777;
   payload_copy(p, VA_BUF + 0x100000 + doff, VA_BUF + so, len);
   uint64_t slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, 1, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK, "copy");
   unsigned bad = 0;
   for (uint64_t i = 0; i < len; i++) {
      uint64_t s = so + i, o = doff + i;
      uint8_t want = ((uint8_t *)pa_ptr(d.f, src_pa[s / VAGX_PAGE_SIZE]))[s % VAGX_PAGE_SIZE];
      uint8_t got = ((uint8_t *)pa_ptr(d.f, dst_pa[o / VAGX_PAGE_SIZE]))[o % VAGX_PAGE_SIZE];
      bad += want != got;
   }
   CHECK(bad == 0, "copy across pages: %u bad bytes", bad);
   CHECK(((uint8_t *)pa_ptr(d.f, dst_pa[0]))[doff - 1] == 0, "no write before");

   /* zero-sized copy and fill are no-ops */
   payload_copy(p, 0xdead0000, 0xbeef0000, 0);
   slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, 2, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK, "zero copy");

   /* fill across pages */
   payload_fill(p, VA_BUF + 0x100000 + 4092, 8 + 2 * VAGX_PAGE_SIZE, 0xcafef00d);
   slot = tq_run(&t, VAGX_JOB_TYPE_FILL, root, 3, p);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_OK, "fill");
   CHECK(pa_u32(d.f, dst_pa[0])[1022] != 0xcafef00d && pa_u32(d.f, dst_pa[0])[1023] == 0xcafef00d &&
         pa_u32(d.f, dst_pa[1])[500] == 0xcafef00d && pa_u32(d.f, dst_pa[3])[0] == 0xcafef00d &&
         pa_u32(d.f, dst_pa[3])[1] != 0xcafef00d, "fill range");

   /* misaligned fill -> INVALID_JOB (payload) */
   payload_fill(p, VA_BUF + 2, 8, 1);
   slot = tq_run(&t, VAGX_JOB_TYPE_FILL, root, 4, p);
   struct vagx_job_result r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_INVALID_JOB && r.detail == VAGX_RING_SLOT_PAYLOAD_OFFSET,
         "misaligned fill %u", r.status);
   wr(&d, VAGX_REG_Q_RESUME(2), 1);

   /* copy that faults part-way: the pages before the hole are written */
   vm_unmap(d.f, root, VA_BUF + 0x100000 + 2 * VAGX_PAGE_SIZE);
   memset(pa_ptr(d.f, dst_pa[1]), 0, VAGX_PAGE_SIZE);
   payload_copy(p, VA_BUF + 0x100000, VA_BUF, 4 * VAGX_PAGE_SIZE);
   slot = tq_run(&t, VAGX_JOB_TYPE_COPY, root, 5, p);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_MMU_FAULT && r.address == VA_BUF + 0x100000 + 2 * VAGX_PAGE_SIZE,
         "partial copy fault %u %llx", r.status, (unsigned long long)r.address);
   CHECK(memcmp(pa_ptr(d.f, dst_pa[1]), pa_ptr(d.f, src_pa[1]), VAGX_PAGE_SIZE) == 0,
         "written before the fault");
   CHECK(VAGX_FAULT_STATUS_ACCESS_GET(rd(&d, VAGX_REG_FAULT_STATUS)) == VAGX_FAULT_ACCESS_WRITE &&
         VAGX_FAULT_STATUS_QUEUE_GET(rd(&d, VAGX_REG_FAULT_STATUS)) == 2, "write fault on q2");
   tdev_fini(&d);
}

/* ----------------------------------------------- long jobs, abort, reset -- */

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

static void test_long_jobs(void)
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

static void test_abort_match(void)
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

/* -------------------------------------------------------- hostile input -- */

/* Reserved bits of a job header, derived from the generated packer. */
static void header_reserved_mask(uint32_t out[VAGX_JOB_HEADER_DWORDS])
{
   struct vagx_job_header h;
   memset(&h, 0xff, sizeof(h));
   h.irq = h.timestamps = true;
   uint32_t raw[VAGX_JOB_HEADER_DWORDS];
   vagx_job_header_pack(raw, &h);
   for (unsigned i = 0; i < VAGX_JOB_HEADER_DWORDS; i++)
      out[i] = ~raw[i];
}

static void test_bad_input(void)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, 2, false, 0, 4);
   uint64_t root = vm_new(d.f);
   vm_alloc(d.f, root, VA_BUF, 16 * VAGX_PAGE_SIZE, false);
   struct vagx_job_header h;
   uint32_t raw[VAGX_JOB_HEADER_DWORDS];
   uint64_t slot;
   struct vagx_job_result r;
   uint64_t seq = 1;

#define EXPECT_FAIL(st, what)                                                   \
   do {                                                                         \
      vagx_core_process(d.core);                                                \
      r = slot_result(&d, slot);                                                \
      CHECK(r.status == (st), "%s: status %u", what, r.status);                \
      CHECK(q_state(&d, 0) == VAGX_QUEUE_STATE_HALTED, "%s: halted", what);    \
      wr(&d, VAGX_REG_Q_RESUME(0), 1);                                          \
      wr(&d, VAGX_REG_FAULT_ACK, 1);                                            \
   } while (0)

   unsigned v0 = atomic_load(&d.f->irq[VAGX_MSIX_VECTOR_QUEUE0]);
   hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, seq++);
   h.irq_vector = VAGX_MSIX_VECTORS;
   slot = tq_submit(&t, &h, NULL);
   EXPECT_FAIL(VAGX_JOB_STATUS_INVALID_JOB, "irq_vector");
   CHECK(r.unit == VAGX_UNIT_JOB, "unit JOB");
   CHECK(atomic_load(&d.f->irq[VAGX_MSIX_VECTOR_QUEUE0]) == v0 + 1, "failure interrupts on q vector");

   unsigned badtype = 0;
   while (vagx_job_type_is_valid(badtype))
      badtype++;
   hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, seq++);
   vagx_job_header_pack(raw, &h);
   raw[0] |= badtype; /* type is the low field of dword 0 */
   slot = tq_submit_raw(&t, raw, NULL);
   EXPECT_FAIL(VAGX_JOB_STATUS_INVALID_JOB, "type");

   uint32_t resv[VAGX_JOB_HEADER_DWORDS];
   header_reserved_mask(resv);
   for (unsigned w = 0; w < VAGX_JOB_HEADER_DWORDS; w++) {
      if (!resv[w])
         continue;
      hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, seq++);
      vagx_job_header_pack(raw, &h);
      raw[w] |= resv[w] & -resv[w];
      slot = tq_submit_raw(&t, raw, NULL);
      EXPECT_FAIL(VAGX_JOB_STATUS_INVALID_JOB, "reserved bit");
   }

   hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, seq++);
   h.desc_va = VA_BUF;
   slot = tq_submit(&t, &h, NULL);
   EXPECT_FAIL(VAGX_JOB_STATUS_INVALID_JOB, "desc_va on NOP");

   uint32_t junk[VAGX_RING_SLOT_PAYLOAD_SIZE / 4] = {0};
   junk[3] = 1;
   hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, seq++);
   slot = tq_submit(&t, &h, junk);
   EXPECT_FAIL(VAGX_JOB_STATUS_INVALID_JOB, "payload on NOP");
   CHECK(r.detail == VAGX_RING_SLOT_PAYLOAD_OFFSET + 12, "detail = offset %u", r.detail);

   hdr_init(&t, &h, VAGX_JOB_TYPE_COMPUTE, root, seq++);
   h.desc_va = VA_BUF;
   h.desc_size = VAGX_COMPUTE_JOB_LENGTH + 4;
   slot = tq_submit(&t, &h, NULL);
   EXPECT_FAIL(VAGX_JOB_STATUS_INVALID_JOB, "desc_size");

   hdr_init(&t, &h, VAGX_JOB_TYPE_RENDER, root, seq++);
   h.desc_va = VA_BUF;
   h.desc_size = VAGX_RENDER_JOB_LENGTH;
   slot = tq_submit(&t, &h, NULL);
   EXPECT_FAIL(VAGX_JOB_STATUS_INVALID_DESCRIPTOR, "render job of zeros");

   /* garbage compute descriptors */
   {
      uint64_t dpa = vm_alloc(d.f, root, VA_DESC, VAGX_PAGE_SIZE, false);
      for (unsigned i = 0; i < 50; i++) {
         for (unsigned k = 0; k < VAGX_COMPUTE_JOB_DWORDS; k++)
            pa_u32(d.f, dpa)[k] = rnd();
         hdr_init(&t, &h, VAGX_JOB_TYPE_COMPUTE, root, seq++);
         h.desc_va = VA_DESC;
         h.desc_size = VAGX_COMPUTE_JOB_LENGTH;
         slot = tq_submit(&t, &h, NULL);
         vagx_core_process(d.core);
         r = slot_result(&d, slot);
         CHECK(r.status != VAGX_JOB_STATUS_PENDING && r.status != VAGX_JOB_STATUS_OK,
               "garbage desc %u", r.status);
         wr(&d, VAGX_REG_Q_RESUME(0), 1);
         wr(&d, VAGX_REG_FAULT_ACK, 1);
      }
   }

   /* completion_pa outside guest RAM: BUS_ERROR, LAST_SEQNO still updates */
   hdr_init(&t, &h, VAGX_JOB_TYPE_NOP, 0, 777);
   h.completion_pa = RAM + 4096;
   slot = tq_submit(&t, &h, NULL);
   EXPECT_FAIL(VAGX_JOB_STATUS_BUS_ERROR, "completion outside RAM");
   CHECK(q_seqno(&d, 0) == 777, "seqno updates");

   /* random slots: never PENDING afterwards, never a crash */
   unsigned n_ok = 0;
   for (unsigned i = 0; i < 400; i++) {
      for (unsigned k = 0; k < VAGX_JOB_HEADER_DWORDS; k++)
         raw[k] = rnd();
      if (i & 1) { /* mostly-valid headers with a random type and sizes */
         hdr_init(&t, &h, (enum vagx_job_type)(rnd() % 5), root, seq++);
         h.desc_va = (rnd() & 1) ? VA_DESC : 0;
         h.desc_size = (rnd() & 1) ? VAGX_COMPUTE_JOB_LENGTH : 0;
         h.completion_pa = (rnd() & 1) ? d.completion_pa : 0;
         vagx_job_header_pack(raw, &h);
      }
      uint32_t pl[VAGX_RING_SLOT_PAYLOAD_SIZE / 4];
      for (unsigned k = 0; k < VAGX_RING_SLOT_PAYLOAD_SIZE / 4; k++)
         pl[k] = (rnd() & 3) ? 0 : rnd();
      slot = tq_submit_raw(&t, raw, pl);
      vagx_core_process(d.core);
      r = slot_result(&d, slot);
      CHECK(r.status != VAGX_JOB_STATUS_PENDING && vagx_job_status_is_valid(r.status),
            "random %u: %u", i, r.status);
      n_ok += r.status == VAGX_JOB_STATUS_OK;
      wr(&d, VAGX_REG_Q_RESUME(0), 1);
      wr(&d, VAGX_REG_FAULT_ACK, 1);
   }
   CHECK(rd(&d, VAGX_REG_Q_JOBS_DONE(0)) == t.tail, "every slot consumed %u %u",
         rd(&d, VAGX_REG_Q_JOBS_DONE(0)), t.tail);

   /* ring outside guest RAM: BUS_ERROR, queue halts */
   wr(&d, VAGX_REG_Q_CONTROL(1), 0);
   wr(&d, VAGX_REG_Q_RING_BASE_LO(1), 0);
   wr(&d, VAGX_REG_Q_RING_BASE_HI(1), 1); /* 4 GiB: beyond the fake RAM */
   wr(&d, VAGX_REG_Q_RING_SIZE(1), VAGX_Q_RING_SIZE_LOG2(VAGX_RING_MIN_LOG2));
   wr(&d, VAGX_REG_Q_CONTROL(1), 1);
   wr(&d, VAGX_REG_Q_TAIL(1), 1);
   wr(&d, VAGX_REG_Q_DOORBELL(1), 1);
   CHECK(vagx_core_process(d.core) == 1, "ring job consumed");
   CHECK(q_state(&d, 1) == VAGX_QUEUE_STATE_HALTED &&
         VAGX_Q_STATUS_ERROR_GET(rd(&d, VAGX_REG_Q_STATUS(1))) == VAGX_JOB_STATUS_BUS_ERROR,
         "ring bus error");
   tdev_fini(&d);
#undef EXPECT_FAIL
}

/* ------------------------------------------------------------- compute -- */


struct cenv {
   struct tdev *d;
   struct tq *t;
   uint64_t root, code_pa, desc_pa, data_pa;
   uint64_t seq;
};

#define CODE_BYTES (64 * 1024)
#define DATA_VA VA_BUF
#define DATA_BYTES (1u << 20)

static void cenv_init(struct cenv *c, struct tdev *d, struct tq *t)
{
   c->d = d;
   c->t = t;
   c->root = vm_new(d->f);
   c->code_pa = vm_alloc(d->f, c->root, VA_CODE, CODE_BYTES, true);
   c->desc_pa = vm_alloc(d->f, c->root, VA_DESC, VAGX_PAGE_SIZE, true);
   c->data_pa = vm_alloc(d->f, c->root, DATA_VA, DATA_BYTES, false);
   c->seq = 1;
}

static uint32_t *cdata(struct cenv *c, uint64_t off)
{
   return pa_u32(c->d->f, c->data_pa + off);
}

static void set_ptr(uint32_t *uni, unsigned u, uint64_t va)
{
   uni[u] = (uint32_t)va;
   uni[u + 1] = (uint32_t)(va >> 32);
}

/* usc_program.stack_size of the compute jobs submit_compute() makes; above
 * VAGX_MAX_STACK_BYTES the descriptor is packed anyway (its check fails:
 * the device must refuse it). */
static uint32_t compute_stack_size;
/* usc_program descriptor tables of those jobs (test_compute_tex) */
static struct {
   uint64_t texture_va, sampler_va, image_va;
   unsigned textures, samplers, images;
} compute_tables;

/* Assembles src (NULL: keep the code already there), writes descriptor and
 * uniforms, submits a COMPUTE job.  Returns the slot. */
static uint64_t submit_compute(struct cenv *c, const char *src, const uint32_t tg[3],
                               const uint32_t grid[3], uint32_t shared, const uint32_t *uni,
                               unsigned nuni, uint64_t indirect_va, uint32_t timeout_ms)
{
   struct fake *f = c->d->f;
   if (src) {
      struct vagx_asm_error err;
      long n = vagx_asm_assemble(src, pa_u32(f, c->code_pa), CODE_BYTES / 4, &err);
      CHECK(n > 0, "assemble: line %d: %s", err.line, err.msg);
   }
   struct vagx_compute_job j;
   vagx_compute_job_init(&j);
   j.grid_x = grid[0];
   j.grid_y = grid[1];
   j.grid_z = grid[2];
   j.tg_x = tg[0];
   j.tg_y = tg[1];
   j.tg_z = tg[2];
   j.indirect = indirect_va != 0;
   j.indirect_va = indirect_va;
   j.shared_size = shared;
   j.program.code_va = VA_CODE;
   j.program.gpr_count = 32;
   j.program.uniform_count = nuni;
   j.program.uniform_va = VA_DESC + 0x400;
   j.program.stack_size = compute_stack_size;
   j.program.texture_va = compute_tables.texture_va;
   j.program.texture_count = compute_tables.textures;
   j.program.sampler_va = compute_tables.sampler_va;
   j.program.sampler_count = compute_tables.samplers;
   j.program.image_va = compute_tables.image_va;
   j.program.image_count = compute_tables.images;
   const char *why = NULL;
   CHECK(compute_stack_size > VAGX_MAX_STACK_BYTES || vagx_compute_job_validate(&j, &why),
         "descriptor: %s", why ? why : "");
   vagx_compute_job_pack(pa_u32(f, c->desc_pa), &j);
   if (nuni)
      memcpy(pa_u32(f, c->desc_pa + 0x400), uni, nuni * 4);
   struct vagx_job_header h;
   hdr_init(c->t, &h, VAGX_JOB_TYPE_COMPUTE, c->root, c->seq++);
   h.desc_va = VA_DESC;
   h.desc_size = VAGX_COMPUTE_JOB_LENGTH;
   h.timeout_ms = timeout_ms;
   return tq_submit(c->t, &h, NULL);
}

static unsigned run_compute(struct cenv *c, const char *src, const uint32_t tg[3],
                            const uint32_t grid[3], uint32_t shared, const uint32_t *uni,
                            unsigned nuni, uint64_t indirect_va)
{
   uint64_t slot = submit_compute(c, src, tg, grid, shared, uni, nuni, indirect_va, 0);
   vagx_core_process(c->d->core);
   struct vagx_job_result r = slot_result(c->d, slot);
   if (r.status != VAGX_JOB_STATUS_OK) {
      wr(c->d, VAGX_REG_Q_RESUME(c->t->q), 1);
      wr(c->d, VAGX_REG_FAULT_ACK, 1);
   }
   return r.status;
}

/* Each thread writes its global linear id (z, y, x) to out[id]. */
static const char *k_ids =
   "imad r1, sr.tgid_z, sr.ngroups_y, sr.tgid_y\n"
   "imad r1, r1, sr.ngroups_x, sr.tgid_x\n"
   "shl r2, r1, #2\n"
   "st_global.b32 u0, r2, r1\n"
   "end\n";

static const char *k_spin =
   "mov r1, #0\n"
   "loop\n"
   "  iadd r1, r1, #1\n"
   "endloop\n"
   "end\n";

/* Stores an ever-growing counter to u0[0], forever. */
static const char *k_spin_store =
   "mov r1, #0\n"
   "mov r2, #0\n"
   "loop\n"
   "  iadd r1, r1, #1\n"
   "  st_global.b32 u0, r2, r1\n"
   "endloop\n"
   "end\n";

static const char *k_nothing = "end\n";

static const char *k_wild =
   "mov r1, #0\n"
   "ld_global.b32 r2, u0, r1\n"
   "end\n";

static void test_compute(unsigned workers)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, workers, false, 3, 4);
   struct cenv c;
   cenv_init(&c, &d, &t);
   uint32_t uni[8] = {0};

   /* prefix sum */
   for (int i = 0; i < 256; i++)
      cdata(&c, 0)[i] = rnd() & 0xffff;
   set_ptr(uni, 0, DATA_VA);
   set_ptr(uni, 2, DATA_VA + 0x1000);
   unsigned st = run_compute(&c, kernel_prefix_sum, (uint32_t[3]){256, 1, 1}, (uint32_t[3]){1, 1, 1},
                             1024, uni, 4, 0);
   CHECK(st == VAGX_JOB_STATUS_OK, "prefix status %u", st);
   uint32_t s = 0;
   unsigned bad = 0;
   for (int i = 0; i < 256; i++) {
      s += cdata(&c, 0)[i];
      bad += cdata(&c, 0x1000)[i] != s;
   }
   CHECK(bad == 0, "prefix sum: %u wrong", bad);

   /* matmul 32x32 */
   float *A = (float *)(void *)cdata(&c, 0x10000), *B = (float *)(void *)cdata(&c, 0x20000);
   float *C = (float *)(void *)cdata(&c, 0x30000);
   for (int i = 0; i < 1024; i++) {
      A[i] = (float)((int)(rnd() % 200) - 100) / 16.0f;
      B[i] = (float)((int)(rnd() % 200) - 100) / 32.0f;
   }
   set_ptr(uni, 0, DATA_VA + 0x10000);
   set_ptr(uni, 2, DATA_VA + 0x20000);
   set_ptr(uni, 4, DATA_VA + 0x30000);
   st = run_compute(&c, kernel_matmul, (uint32_t[3]){8, 8, 1}, (uint32_t[3]){4, 4, 1}, 0, uni, 6, 0);
   CHECK(st == VAGX_JOB_STATUS_OK, "matmul status %u", st);
   bad = 0;
   for (int r = 0; r < 32; r++)
      for (int col = 0; col < 32; col++) {
         float acc = 0;
         for (int k = 0; k < 32; k++)
            acc = fmaf(A[r * 32 + k], B[k * 32 + col], acc);
         bad += C[r * 32 + col] != acc;
      }
   CHECK(bad == 0, "matmul: %u wrong", bad);

   /* histogram with atomics: 64 threadgroups spread over the workers */
   uint8_t *bytes = (uint8_t *)cdata(&c, 0x40000);
   uint32_t hist[64] = {0};
   for (int i = 0; i < 64 * 256; i++) {
      bytes[i] = (uint8_t)rnd();
      hist[bytes[i] & 63]++;
   }
   memset(cdata(&c, 0x50000), 0, 256);
   set_ptr(uni, 0, DATA_VA + 0x40000);
   set_ptr(uni, 2, DATA_VA + 0x50000);
   st = run_compute(&c, kernel_histogram, (uint32_t[3]){256, 1, 1}, (uint32_t[3]){64, 1, 1}, 0, uni, 4, 0);
   CHECK(st == VAGX_JOB_STATUS_OK, "histogram status %u", st);
   bad = 0;
   for (int b = 0; b < 64; b++)
      bad += cdata(&c, 0x50000)[b] != hist[b];
   CHECK(bad == 0, "histogram: %u wrong bins", bad);

   /* reduction: 16 threadgroups of 1024 threads */
   uint32_t sums[16] = {0};
   for (int i = 0; i < 16 * 1024; i++) {
      cdata(&c, 0x60000)[i] = rnd();
      sums[i / 1024] += cdata(&c, 0x60000)[i];
   }
   set_ptr(uni, 0, DATA_VA + 0x60000);
   set_ptr(uni, 2, DATA_VA + 0x80000);
   st = run_compute(&c, kernel_reduction, (uint32_t[3]){1024, 1, 1}, (uint32_t[3]){16, 1, 1}, 4096, uni, 4, 0);
   CHECK(st == VAGX_JOB_STATUS_OK, "reduction status %u", st);
   bad = 0;
   for (int g = 0; g < 16; g++)
      bad += cdata(&c, 0x80000)[g] != sums[g];
   CHECK(bad == 0, "reduction: %u wrong", bad);

   /* indirect grid read from memory; 3D grid covers every group once */
   cdata(&c, 0x90000)[0] = 5;
   cdata(&c, 0x90000)[1] = 3;
   cdata(&c, 0x90000)[2] = 1;
   memset(cdata(&c, 0xa0000), 0xff, 4096);
   set_ptr(uni, 0, DATA_VA + 0xa0000);
   st = run_compute(&c, k_ids, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){0, 0, 0}, 0, uni, 2,
                    DATA_VA + 0x90000);
   CHECK(st == VAGX_JOB_STATUS_OK, "indirect status %u", st);
   bad = 0;
   for (uint32_t i = 0; i < 15; i++)
      bad += cdata(&c, 0xa0000)[i] != i;
   CHECK(bad == 0 && cdata(&c, 0xa0000)[15] == 0xffffffffu, "indirect grid: %u wrong", bad);

   /* zero-sized grid: OK, nothing runs */
   memset(cdata(&c, 0xa0000), 0xff, 64);
   st = run_compute(&c, k_ids, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){0, 7, 7}, 0, uni, 2, 0);
   CHECK(st == VAGX_JOB_STATUS_OK && cdata(&c, 0xa0000)[0] == 0xffffffffu, "zero grid");

   uint64_t slot;
   struct vagx_job_result r;
   /* private stack: every thread stores id, id + 1 (b64) and reloads them
    * after clobbering the registers; a stack_size that ends before the
    * access faults (ILLEGAL_INSTRUCTION at the stack_st), one above the
    * contract's limit is an invalid descriptor */
   static const char *k_stack = "imad r1, sr.tgid_x, sr.tgsize_x, sr.tindex\n"
                                "iadd r2, r1, #1\n"
                                "stack_st.b64.offset8 r1\n"
                                "mov r1, #0\n"
                                "mov r2, #0\n"
                                "stack_ld.b64.offset8 r3\n"
                                "iadd r5, r3, r4\n"
                                "shl r6, r3, #2\n"
                                "st_global.b32 u0, r6, r5\n"
                                "end\n";
   memset(cdata(&c, 0xa0000), 0xff, 4096);
   compute_stack_size = 16;
   st = run_compute(&c, k_stack, (uint32_t[3]){64, 1, 1}, (uint32_t[3]){2, 1, 1}, 0, uni, 2, 0);
   bad = 0;
   for (uint32_t i = 0; i < 128; i++)
      bad += cdata(&c, 0xa0000)[i] != 2 * i + 1;
   CHECK(st == VAGX_JOB_STATUS_OK && bad == 0, "stack: status %u, %u wrong", st, bad);
   compute_stack_size = 12;
   slot = submit_compute(&c, NULL, (uint32_t[3]){64, 1, 1}, (uint32_t[3]){2, 1, 1}, 0, uni, 2, 0,
                         0);
   vagx_core_process(d.core);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_ILLEGAL_INSTRUCTION && r.unit == VAGX_UNIT_USC &&
            r.address == VA_CODE + 24,
         "stack beyond stack_size: %u %u %llx", r.status, r.unit, (unsigned long long)r.address);
   wr(&d, VAGX_REG_Q_RESUME(3), 1);
   compute_stack_size = VAGX_MAX_STACK_BYTES + 4;
   st = run_compute(&c, NULL, (uint32_t[3]){64, 1, 1}, (uint32_t[3]){2, 1, 1}, 0, uni, 2, 0);
   CHECK(st == VAGX_JOB_STATUS_INVALID_DESCRIPTOR, "stack_size above the limit: status %u", st);
   compute_stack_size = 0;

   /* illegal instruction: raw garbage as code */
   for (unsigned i = 0; i < 8; i++)
      pa_u32(d.f, c.code_pa)[i] = 0xffffffffu;
   slot = submit_compute(&c, NULL, (uint32_t[3]){32, 1, 1}, (uint32_t[3]){1, 1, 1}, 0, uni, 2, 0, 0);
   vagx_core_process(d.core);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_ILLEGAL_INSTRUCTION && r.unit == VAGX_UNIT_USC &&
         r.address == VA_CODE, "illegal: %u %u %llx", r.status, r.unit, (unsigned long long)r.address);
   wr(&d, VAGX_REG_Q_RESUME(3), 1);

   /* wild address: MMU fault in the USC with the VA */
   set_ptr(uni, 0, 0x0000500000000000ull);
   slot = submit_compute(&c, k_wild, (uint32_t[3]){32, 1, 1}, (uint32_t[3]){4, 1, 1}, 0, uni, 2, 0, 0);
   vagx_core_process(d.core);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_MMU_FAULT && r.unit == VAGX_UNIT_USC &&
         r.address == 0x0000500000000000ull, "wild: %u %u %llx", r.status, r.unit,
         (unsigned long long)r.address);
   uint32_t fs = rd(&d, VAGX_REG_FAULT_STATUS);
   CHECK(VAGX_FAULT_STATUS_UNIT_GET(fs) == VAGX_UNIT_USC && VAGX_FAULT_STATUS_QUEUE_GET(fs) == 3 &&
         VAGX_FAULT_STATUS_ACCESS_GET(fs) == VAGX_FAULT_ACCESS_READ, "wild fault %x", fs);
   wr(&d, VAGX_REG_FAULT_ACK, 1);
   wr(&d, VAGX_REG_Q_RESUME(3), 1);

   /* store to the read-only code page: WRITE fault READ_ONLY */
   set_ptr(uni, 0, VA_CODE);
   st = run_compute(&c, "mov r1, #0\nst_global.b32 u0, r1, r1\nend\n", (uint32_t[3]){32, 1, 1},
                    (uint32_t[3]){1, 1, 1}, 0, uni, 2, 0);
   CHECK(st == VAGX_JOB_STATUS_MMU_FAULT, "ro store %u", st);

   /* code on an unmapped page */
   vm_unmap(d.f, c.root, VA_CODE);
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1));
   slot = submit_compute(&c, NULL, (uint32_t[3]){32, 1, 1}, (uint32_t[3]){1, 1, 1}, 0, uni, 2, 0, 0);
   vagx_core_process(d.core);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_MMU_FAULT && r.address == VA_CODE, "code fault %u", r.status);
   fs = rd(&d, VAGX_REG_FAULT_STATUS);
   CHECK(VAGX_FAULT_STATUS_ACCESS_GET(fs) == VAGX_FAULT_ACCESS_EXEC &&
         VAGX_FAULT_STATUS_REASON_GET(fs) == VAGX_FAULT_REASON_NOT_PRESENT, "exec fault %x", fs);
   wr(&d, VAGX_REG_Q_RESUME(3), 1);
   wr(&d, VAGX_REG_FAULT_ACK, 1);
   vm_map_page(d.f, c.root, VA_CODE, c.code_pa, true, false);
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1));

   /* enormous grid and an endless kernel: abort and reset stop them */
   vagx_core_frontend_start(d.core);
   slot = submit_compute(&c, k_nothing, (uint32_t[3]){1, 1, 1},
                         (uint32_t[3]){0xffffffffu, 0xffffffffu, 0xffffffffu}, 0, uni, 0, 0, 0);
   CHECK(WAIT_UNTIL(q_state(&d, 3) == VAGX_QUEUE_STATE_RUNNING, 5), "huge grid running");
   usleep(20000);
   double t0 = t_now_s();
   wr(&d, VAGX_REG_Q_ABORT(3), 1);
   CHECK(WAIT_UNTIL(q_state(&d, 3) == VAGX_QUEUE_STATE_HALTED, 5), "huge grid aborted");
   CHECK(t_now_s() - t0 < 1.0, "prompt %.3f", t_now_s() - t0);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_ABORTED, "ABORTED");
   wr(&d, VAGX_REG_Q_RESUME(3), 1);

   /* An endless kernel does not hold a TLB invalidation up: the interpreter's
    * safepoints complete it, and from then on its stores reach the page
    * mapped now, never the old one (whose memory the OS may reuse). */
   const uint64_t spin_va = DATA_VA + 0x40000;
   set_ptr(uni, 0, spin_va);
   cdata(&c, 0x40000)[0] = 0;
   slot = submit_compute(&c, k_spin_store, (uint32_t[3]){32, 1, 1}, (uint32_t[3]){1, 1, 1}, 0, uni,
                         2, 0, 0);
   CHECK(WAIT_UNTIL(cdata(&c, 0x40000)[0] != 0, 5), "spin store running");
   const uint64_t new_pa = pa_alloc(d.f, VAGX_PAGE_SIZE);
   vm_map_page(d.f, c.root, spin_va, new_pa, false, false);
   t0 = t_now_s();
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1));
   CHECK(WAIT_UNTIL(!VAGX_TLB_INV_STATUS_BUSY_GET(rd(&d, VAGX_REG_TLB_INV_STATUS)), 5),
         "invalidation completes while the kernel spins");
   CHECK(t_now_s() - t0 < 0.5, "invalidation prompt %.3f s", t_now_s() - t0);
   CHECK(q_state(&d, 3) == VAGX_QUEUE_STATE_RUNNING, "kernel still running");
   const uint32_t old_val = cdata(&c, 0x40000)[0];
   CHECK(WAIT_UNTIL(pa_u32(d.f, new_pa)[0] != 0, 5), "stores reach the new page");
   usleep(20000);
   CHECK(cdata(&c, 0x40000)[0] == old_val, "no store to the old page after the invalidation");
   wr(&d, VAGX_REG_Q_ABORT(3), 1);
   CHECK(WAIT_UNTIL(q_state(&d, 3) == VAGX_QUEUE_STATE_HALTED, 5), "spin store aborted");
   wr(&d, VAGX_REG_Q_RESUME(3), 1);
   vm_map_page(d.f, c.root, spin_va, c.data_pa + 0x40000, false, false);
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1));
   CHECK(WAIT_UNTIL(!VAGX_TLB_INV_STATUS_BUSY_GET(rd(&d, VAGX_REG_TLB_INV_STATUS)), 5),
         "idle invalidation");

   slot = submit_compute(&c, k_spin, (uint32_t[3]){256, 1, 1}, (uint32_t[3]){64, 1, 1}, 0, uni, 0, 0, 0);
   CHECK(WAIT_UNTIL(q_state(&d, 3) == VAGX_QUEUE_STATE_RUNNING, 5), "spin running");
   usleep(20000);
   t0 = t_now_s();
   wr(&d, VAGX_REG_Q_ABORT(3), 1);
   CHECK(WAIT_UNTIL(q_state(&d, 3) == VAGX_QUEUE_STATE_HALTED, 5), "spin aborted");
   CHECK(t_now_s() - t0 < 1.0, "prompt %.3f", t_now_s() - t0);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_ABORTED, "spin ABORTED %u",
         slot_result(&d, slot).status);
   wr(&d, VAGX_REG_Q_RESUME(3), 1);

   slot = submit_compute(&c, k_spin, (uint32_t[3]){64, 1, 1}, (uint32_t[3]){8, 1, 1}, 0, uni, 0, 0, 40);
   CHECK(WAIT_UNTIL(q_state(&d, 3) == VAGX_QUEUE_STATE_HALTED, 5), "spin timed out");
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_TIMEOUT, "TIMEOUT");
   wr(&d, VAGX_REG_Q_RESUME(3), 1);

   slot = submit_compute(&c, k_spin, (uint32_t[3]){64, 1, 1}, (uint32_t[3]){8, 1, 1}, 0, uni, 0, 0, 0);
   CHECK(WAIT_UNTIL(q_state(&d, 3) == VAGX_QUEUE_STATE_RUNNING, 5), "spin running");
   wr(&d, VAGX_REG_Q_RESET(3), 1);
   CHECK(WAIT_UNTIL(q_state(&d, 3) == VAGX_QUEUE_STATE_STOPPED, 5), "spin reset");
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_PENDING, "reset: no result");
   vagx_core_frontend_stop(d.core);
   tdev_fini(&d);
}

/* -------------------------------------------------------------- render -- */

/* A render job through the core: background program clears the tile buffer,
 * end-of-tile program stores it through a PBE descriptor (docs/hw/render.md). */
static uint64_t submit_clear(struct tdev *d, struct tq *t, uint64_t root, uint64_t seq,
                             uint64_t code_pa, uint64_t desc_pa, unsigned w, unsigned h,
                             uint64_t fb_va, const float clear[4], uint32_t timeout_ms)
{
   struct fake *f = d->f;
   static const char *bg = "mov r0, u0\nmov r1, u1\nmov r2, u2\nmov r3, u3\nst_tile.rt0 r0, #0\nend\n";
   static const char *eot = "mov r4, sr.pix_x\nmov r5, sr.pix_y\nld_tile.rt0 r0, #0\n"
                            "img_st.i0.2d r4, r0, #0\nend\n";
   struct vagx_asm_error err;
   long n = vagx_asm_assemble(bg, pa_u32(f, code_pa), 1024, &err);
   CHECK(n > 0, "bg asm: %s", err.msg);
   n = vagx_asm_assemble(eot, pa_u32(f, code_pa + 0x1000), 1024, &err);
   CHECK(n > 0, "eot asm: %s", err.msg);

   struct vagx_pbe pbe;
   t_pbe_linear_2d(&pbe, VAGX_FORMAT_RGBA8_UNORM, w, h, t_linear_stride(w, 4), fb_va);
   vagx_pbe_pack(pa_u32(f, desc_pa + 0x400), &pbe);
   memcpy(pa_u32(f, desc_pa + 0x300), clear, 16);
   struct vagx_cmd_end end;
   vagx_cmd_end_init(&end);
   vagx_cmd_end_pack(pa_u32(f, desc_pa + 0x200), &end);

   struct vagx_render_job rj;
   t_render_job_1rt(&rj, w, h, VAGX_FORMAT_RGBA8_UNORM, VA_DESC + 0x200);
   vagx_usc_program_init(&rj.bg_program);
   rj.bg_program.code_va = VA_CODE;
   rj.bg_program.gpr_count = 16;
   rj.bg_program.uniform_count = 4;
   rj.bg_program.uniform_va = VA_DESC + 0x300;
   vagx_usc_program_init(&rj.eot_program);
   rj.eot_program.code_va = VA_CODE + 0x1000;
   rj.eot_program.gpr_count = 16;
   rj.eot_program.image_count = 1;
   rj.eot_program.image_va = VA_DESC + 0x400;
   const char *why = NULL;
   CHECK(vagx_render_job_validate(&rj, &why), "render_job: %s", why ? why : "");
   vagx_render_job_pack(pa_u32(f, desc_pa), &rj);

   struct vagx_job_header hh;
   hdr_init(t, &hh, VAGX_JOB_TYPE_RENDER, root, seq);
   hh.desc_va = VA_DESC;
   hh.desc_size = VAGX_RENDER_JOB_LENGTH;
   hh.timeout_ms = timeout_ms;
   return tq_submit(t, &hh, NULL);
}

static void test_render(unsigned workers)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, workers, false, 2, 3);
   uint64_t root = vm_new(d.f);
   uint64_t code_pa = vm_alloc(d.f, root, VA_CODE, 2 * VAGX_PAGE_SIZE, true);
   uint64_t desc_pa = vm_alloc(d.f, root, VA_DESC, VAGX_PAGE_SIZE, false);
   const unsigned w = 100, h = 70; /* 4 x 3 tiles, partial ones at the edges */
   uint32_t stride = t_linear_stride(w, 4);
   uint64_t fb_pa = vm_alloc(d.f, root, VA_BUF, (uint64_t)stride * h, false);
   const float clear[4] = {1.0f, 0.0f, 0.5f, 1.0f};
   uint64_t slot = submit_clear(&d, &t, root, 1, code_pa, desc_pa, w, h, VA_BUF, clear, 0);
   vagx_core_process(d.core);
   struct vagx_job_result r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_OK, "render: %u unit %u addr %llx", r.status, r.unit,
         (unsigned long long)r.address);
   unsigned bad = 0;
   for (unsigned y = 0; y < h; y++)
      for (unsigned x = 0; x < w; x++) {
         const uint8_t *p = (const uint8_t *)pa_ptr(d.f, fb_pa + (uint64_t)y * stride + 4 * x);
         bad += p[0] != 255 || p[1] != 0 || (p[2] != 127 && p[2] != 128) || p[3] != 255;
      }
   CHECK(bad == 0, "render clear: %u wrong pixels", bad);
   CHECK(pa_u64(d.f, d.completion_pa + 16) == 1, "render completion");

   /* framebuffer not mapped: MMU fault from the PBE, latched */
   wr(&d, VAGX_REG_INT_STATUS, ~0u);
   slot = submit_clear(&d, &t, root, 2, code_pa, desc_pa, w, h, VA_BUF + (1ull << 32), clear, 0);
   vagx_core_process(d.core);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_MMU_FAULT && r.address >= VA_BUF + (1ull << 32),
         "render fault %u %llx", r.status, (unsigned long long)r.address);
   uint32_t fs = rd(&d, VAGX_REG_FAULT_STATUS);
   CHECK(VAGX_FAULT_STATUS_VALID_GET(fs) && VAGX_FAULT_STATUS_QUEUE_GET(fs) == 2 &&
         VAGX_FAULT_STATUS_ACCESS_GET(fs) == VAGX_FAULT_ACCESS_WRITE, "render fault status %x", fs);
   wr(&d, VAGX_REG_FAULT_ACK, 1);
   wr(&d, VAGX_REG_Q_RESUME(2), 1);

   /* a huge render (16384^2 over NULL pages) is abortable */
   for (uint64_t va = VA_SPARSE; va < VA_SPARSE + (2ull << 30); va += 1ull << 30)
      vm_set_null(d.f, root, va, 1);
   vagx_core_frontend_start(d.core);
   slot = submit_clear(&d, &t, root, 3, code_pa, desc_pa, VAGX_MAX_FRAMEBUFFER_SIZE,
                       VAGX_MAX_FRAMEBUFFER_SIZE, VA_SPARSE, clear, 0);
   CHECK(WAIT_UNTIL(q_state(&d, 2) == VAGX_QUEUE_STATE_RUNNING, 5), "huge render running");
   usleep(30000);
   /* it runs no shader (a clear): a TLB invalidation completes at the
    * renderer's safepoints between tiles, not when the job ends */
   double t0 = t_now_s();
   wr(&d, VAGX_REG_TLB_INV_CMD, VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1));
   CHECK(WAIT_UNTIL(!VAGX_TLB_INV_STATUS_BUSY_GET(rd(&d, VAGX_REG_TLB_INV_STATUS)), 5),
         "invalidation completes during the huge render");
   CHECK(t_now_s() - t0 < 0.5, "invalidation during render prompt %.3f s", t_now_s() - t0);
   CHECK(q_state(&d, 2) == VAGX_QUEUE_STATE_RUNNING, "huge render still running");
   t0 = t_now_s();
   wr(&d, VAGX_REG_Q_ABORT(2), 1);
   CHECK(WAIT_UNTIL(q_state(&d, 2) == VAGX_QUEUE_STATE_HALTED, 10), "huge render aborted");
   CHECK(t_now_s() - t0 < 1.0, "render abort prompt %.3f", t_now_s() - t0);
   CHECK(slot_result(&d, slot).status == VAGX_JOB_STATUS_ABORTED, "render ABORTED %u",
         slot_result(&d, slot).status);
   vagx_core_frontend_stop(d.core);
   tdev_fini(&d);
}

/* ------------------------------------------------------------- decoder -- */

static void test_decode(void)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, 1, false, 0, 2);
   uint64_t root = vm_new(d.f);
   uint64_t dpa = vm_alloc(d.f, root, VA_DESC, VAGX_PAGE_SIZE, false);
   uint64_t cpa = vm_alloc(d.f, root, VA_CODE, VAGX_PAGE_SIZE, false);
   struct vagx_asm_error err;
   long n = vagx_asm_assemble("mov r1, #7\nend\n", pa_u32(d.f, cpa), 1024, &err);
   CHECK(n > 0, "asm");
   struct vagx_compute_job j;
   vagx_compute_job_init(&j);
   j.grid_x = 3;
   j.grid_y = j.grid_z = 1;
   j.tg_x = 32;
   j.tg_y = j.tg_z = 1;
   j.program.code_va = VA_CODE;
   j.program.gpr_count = 4;
   vagx_compute_job_pack(pa_u32(d.f, dpa), &j);
   struct vagx_job_header h;
   hdr_init(&t, &h, VAGX_JOB_TYPE_COMPUTE, root, 42);
   h.desc_va = VA_DESC;
   h.desc_size = VAGX_COMPUTE_JOB_LENGTH;
   uint64_t slot = tq_submit(&t, &h, NULL);
   uint32_t p[VAGX_RING_SLOT_PAYLOAD_SIZE / 4];
   hdr_init(&t, &h, VAGX_JOB_TYPE_FILL, root, 43);
   payload_fill(p, VA_DESC + 0x800, 64, 0xabc);
   tq_submit(&t, &h, p);

   struct sbuf *b = (struct sbuf *)calloc(1, sizeof(*b));
   CHECK(vagx_core_decode_job(&fake_ops, d.f, slot, sbuf_print, b) == 0, "decode");
   CHECK(strstr(b->buf, "COMPUTE") && strstr(b->buf, "grid_x") && strstr(b->buf, "mov") &&
         strstr(b->buf, "seqno"), "decoded text:\n%s", b->buf);
   sbuf_clear(b);
   CHECK(vagx_core_decode_ring(&fake_ops, d.f, t.ring_pa, 2, 0, 2, sbuf_print, b) == 0, "ring");
   CHECK(strstr(b->buf, "FILL") && strstr(b->buf, "pattern"), "ring text:\n%s", b->buf);

   /* garbage everywhere: the decoder prints INVALID and stays bounded */
   for (unsigned i = 0; i < 300; i++) {
      for (unsigned k = 0; k < VAGX_RING_ENTRY_SIZE / 4; k++)
         pa_u32(d.f, slot)[k] = rnd();
      if (i & 1) { /* valid header pointing at random descriptors/code */
         hdr_init(&t, &h, (i & 2) ? VAGX_JOB_TYPE_RENDER : VAGX_JOB_TYPE_COMPUTE, root, i);
         h.desc_va = VA_DESC;
         h.desc_size = (i & 2) ? VAGX_RENDER_JOB_LENGTH : VAGX_COMPUTE_JOB_LENGTH;
         vagx_job_header_pack(pa_u32(d.f, slot), &h);
         for (unsigned k = 0; k < VAGX_PAGE_SIZE / 4; k++) {
            pa_u32(d.f, dpa)[k] = (rnd() & 1) ? (uint32_t)(VA_DESC + (rnd() & 0xffc)) : rnd();
            if (k & 1)
               pa_u32(d.f, dpa)[k] = (rnd() & 3) ? 0 : rnd();
            pa_u32(d.f, cpa)[k] = rnd();
         }
      }
      b->len = 0;
      vagx_core_decode_job(&fake_ops, d.f, slot, sbuf_print, b);
   }
   CHECK(vagx_core_decode_job(&fake_ops, d.f, RAM + 4096, sbuf_print, b) != 0, "slot outside RAM");
   free(b);
   tdev_fini(&d);
}

/* ------------------------------------------------------ compute: texture unit -- */

/* 16x8 threads over an 8x8 RGBA8 image (image 0, also texture 0): each
 * loads its texel (img_ld), stores it with red and blue swapped to image 1
 * (img_st), fetches and samples it as a texture (tex.fetch, tex.lod with a
 * nearest sampler at the texel centre) and stores the red channels of the
 * three to u0: columns 8..15 are outside the images (loads give 0, stores
 * are dropped). */
static const char *k_tex =
   "mov r0, sr.tid_x\n"
   "mov r1, sr.tid_y\n"
   "img_ld.i0.2d r4, r0, #0\n"
   "mov r8, r6\nmov r9, r5\nmov r10, r4\nmov r11, r7\n"
   "img_st.i1.2d r0, r8, #0\n"
   "mov r12, #0\n"
   "tex.fetch.t0.s0.2d r16, r0, r12, r12\n"
   "u2f r2, r0\nu2f r3, r1\n"
   "fadd r2, r2, #0.5\nfadd r3, r3, #0.5\n"
   "fmul r2, r2, #0.125\nfmul r3, r3, #0.125\n"
   "tex.lod.t0.s0.2d r20, r2, r12, r12\n"
   "imad r13, r1, #16, r0\n"
   "shl r13, r13, #2\n"
   "st_global.b32 u0, r13, r4\n"
   "iadd r13, r13, #512\n"
   "st_global.b32 u0, r13, r16\n"
   "iadd r13, r13, #512\n"
   "st_global.b32 u0, r13, r20\n"
   "end\n";

#define TEX_SRC 0x10000u      /* image 0: 8x8 RGBA8_UNORM, linear, 32-byte rows */
#define TEX_DST 0x11000u      /* image 1: the same, followed by a guard row */
#define TEX_OUT 0x12000u      /* 3 x 128 u32 */

static void tex_pack_image(struct cenv *c, unsigned i, uint64_t va)
{
   struct vagx_pbe p;
   t_pbe_linear_2d(&p, VAGX_FORMAT_RGBA8_UNORM, 8, 8, 32, va);
   vagx_pbe_pack(cdata(c, 0x200 + i * 32), &p);
}

static void test_compute_tex(unsigned workers)
{
   struct tdev d;
   struct tq t;
   tdev_init_tq(&d, &t, workers, false, 3, 4);
   struct cenv c;
   cenv_init(&c, &d, &t);
   uint32_t uni[2];
   set_ptr(uni, 0, DATA_VA + TEX_OUT);

   struct vagx_texture tx;
   t_texture_linear_2d(&tx, VAGX_FORMAT_RGBA8_UNORM, 8, 8, 32, DATA_VA + TEX_SRC);
   vagx_texture_pack(cdata(&c, 0), &tx);
   struct vagx_sampler sm;
   vagx_sampler_init(&sm);
   sm.min_filter = sm.mag_filter = VAGX_FILTER_NEAREST;
   vagx_sampler_pack(cdata(&c, 0x100), &sm);
   tex_pack_image(&c, 0, DATA_VA + TEX_SRC);
   tex_pack_image(&c, 1, DATA_VA + TEX_DST);
   compute_tables.texture_va = DATA_VA;
   compute_tables.sampler_va = DATA_VA + 0x100;
   compute_tables.image_va = DATA_VA + 0x200;
   compute_tables.textures = compute_tables.samplers = 1;
   compute_tables.images = 2;

   uint8_t *src = (uint8_t *)cdata(&c, TEX_SRC), *dst = (uint8_t *)cdata(&c, TEX_DST);
   for (unsigned i = 0; i < 256; i++)
      src[i] = (uint8_t)rnd();
   memset(dst, 0xa5, 256 + 32);
   memset(cdata(&c, TEX_OUT), 0xff, 3 * 128 * 4);
   unsigned st = run_compute(&c, k_tex, (uint32_t[3]){16, 8, 1}, (uint32_t[3]){1, 1, 1}, 0, uni, 2, 0);
   CHECK(st == VAGX_JOB_STATUS_OK, "tex kernel: status %u", st);
   unsigned bad = 0;
   for (unsigned y = 0; y < 8; y++)
      for (unsigned x = 0; x < 16; x++) {
         const uint32_t *o = cdata(&c, TEX_OUT);
         const unsigned l = y * 16 + x;
         float want = x < 8 ? (float)src[(y * 8 + x) * 4] / 255.0f : 0.0f, got[3];
         memcpy(got, (uint32_t[3]){o[l], o[128 + l], o[256 + l]}, sizeof(got));
         if (got[0] != want || (x < 8 && (got[1] != want || got[2] != want)))
            bad++;
         if (x < 8)
            for (unsigned k = 0; k < 4; k++)
               bad += dst[(y * 8 + x) * 4 + k] != src[(y * 8 + x) * 4 + (k == 0 ? 2 : k == 2 ? 0 : k)];
      }
   for (unsigned i = 256; i < 256 + 32; i++)
      bad += dst[i] != 0xa5;
   CHECK(bad == 0, "tex kernel (%u workers): %u wrong values", workers, bad);

   /* an image index past image_count: INVALID_DESCRIPTOR at its address */
   uint64_t slot = submit_compute(&c, "mov r0, #0\nmov r1, #0\nimg_ld.i2.2d r4, r0, #0\nend\n",
                                  (uint32_t[3]){32, 1, 1}, (uint32_t[3]){2, 1, 1}, 0, uni, 2, 0, 0);
   vagx_core_process(d.core);
   struct vagx_job_result r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_INVALID_DESCRIPTOR && r.unit == VAGX_UNIT_PBE &&
         r.address == DATA_VA + 0x200 + 2 * 32, "image index: %u %u %llx", r.status, r.unit,
         (unsigned long long)r.address);
   wr(&d, VAGX_REG_Q_RESUME(3), 1);

   /* a texture index past texture_count */
   slot = submit_compute(&c, "mov r0, #0\nmov r1, #0\ntex.fetch.t1.s0.2d r4, r0, r0, r0\nend\n",
                         (uint32_t[3]){32, 1, 1}, (uint32_t[3]){1, 1, 1}, 0, uni, 2, 0, 0);
   vagx_core_process(d.core);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_INVALID_DESCRIPTOR && r.unit == VAGX_UNIT_TEX &&
         r.address == DATA_VA + 32, "texture index: %u %u %llx", r.status, r.unit,
         (unsigned long long)r.address);
   wr(&d, VAGX_REG_Q_RESUME(3), 1);

   /* an image in unmapped memory: an MMU fault of the PBE at the texel's VA */
   const uint64_t wild = 0x0000500000000000ull;
   tex_pack_image(&c, 1, wild);
   slot = submit_compute(&c, k_tex, (uint32_t[3]){16, 8, 1}, (uint32_t[3]){1, 1, 1}, 0, uni, 2, 0, 0);
   vagx_core_process(d.core);
   r = slot_result(&d, slot);
   CHECK(r.status == VAGX_JOB_STATUS_MMU_FAULT && r.unit == VAGX_UNIT_PBE &&
         (r.address & ~0xffull) == wild, "image fault: %u %u %llx", r.status, r.unit,
         (unsigned long long)r.address);
   uint32_t fs = rd(&d, VAGX_REG_FAULT_STATUS);
   CHECK(VAGX_FAULT_STATUS_UNIT_GET(fs) == VAGX_UNIT_PBE &&
         VAGX_FAULT_STATUS_ACCESS_GET(fs) == VAGX_FAULT_ACCESS_WRITE, "image fault status %x", fs);
   wr(&d, VAGX_REG_FAULT_ACK, 1);
   wr(&d, VAGX_REG_Q_RESUME(3), 1);
   tex_pack_image(&c, 1, DATA_VA + TEX_DST);

   /* the tile buffer does not exist in a compute job */
   st = run_compute(&c, "ld_tile.rt0 r4, #0\nend\n", (uint32_t[3]){32, 1, 1}, (uint32_t[3]){1, 1, 1},
                    0, uni, 2, 0);
   CHECK(st == VAGX_JOB_STATUS_ILLEGAL_INSTRUCTION, "ld_tile in compute: %u", st);

   /* and the queue still works */
   st = run_compute(&c, k_tex, (uint32_t[3]){16, 8, 1}, (uint32_t[3]){1, 1, 1}, 0, uni, 2, 0);
   CHECK(st == VAGX_JOB_STATUS_OK, "tex kernel again: status %u", st);
   memset(&compute_tables, 0, sizeof(compute_tables));
   tdev_fini(&d);
}

int main(void)
{
   test_registers();
   test_writeback();
   test_nop_jobs();
   test_mmu();
   test_events();
   test_tlb();
   test_copy_fill(false);
   test_copy_fill(true);
   test_long_jobs();
   test_abort_match();
   test_bad_input();
   test_compute(1);
   test_compute(4);
   test_compute_tex(1);
   test_compute_tex(4);
   test_render(1);
   test_render(3);
   test_decode();
   /* Over every job above (copy, fill, compute, render): host pointers
    * were taken only inside the core's access brackets. */
   CHECK(atomic_load(&f_maps_outside) == 0, "%u maps outside an access bracket",
         atomic_load(&f_maps_outside));
   CHECK(atomic_load(&f_bracket_errors) == 0, "%u unbalanced access brackets",
         atomic_load(&f_bracket_errors));
   printf("core: %d checks, %d failures\n", t_checks, t_failures);
   return t_failures ? 1 : 0;
}
