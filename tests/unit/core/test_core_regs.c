/* SPDX-License-Identifier: MIT */
/*
 * test_core: the register file: identity, scratch, status, and the
 * register errors (a write to a read-only register and the like).
 */
#include "test_core.h"

void test_registers(void)
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
