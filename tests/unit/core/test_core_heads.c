/* SPDX-License-Identifier: MIT */
/*
 * The scanout heads of contract 1.9 at the core's level: head 1's register
 * block (SCANOUT_HEAD_BASE + SCANOUT_HEAD_STRIDE) works as head 0's and
 * apart from it (commit, vblank count and INT bit, CRC, writeback, fault,
 * refused commit), head 0 keeps the offsets and INT bits of 1.8, hotplug
 * per head, and a one-head device has no head 1.
 */
#include "core_test.h"

#define RAM (16ull << 20)
#define VA 0x0000004000000000ull

/* Head h's copy of the head-0 register at offset r. */
#define HR(h, r) ((r) + (h) * VAGX_SCANOUT_HEAD_STRIDE)

static uint32_t rnd_state = 4242;
static uint32_t rnd(void)
{
   rnd_state = rnd_state * 1664525u + 1013904223u;
   return rnd_state >> 7 ^ rnd_state << 9;
}

struct fb {
   uint64_t va, pa;
   uint32_t w, h;
};

/* A w x h XRGB8888 framebuffer of random pixels at va. */
static struct fb fb_new(struct tdev *d, uint64_t root, uint64_t va, uint32_t w, uint32_t h)
{
   struct fb fb = {.va = va, .w = w, .h = h};
   fb.pa = vm_alloc(d->f, root, va, (uint64_t)4 * w * h, true);
   for (uint32_t i = 0; i < w * h; i++)
      *pa_u32(d->f, fb.pa + 4 * i) = rnd();
   return fb;
}

/* The frame CRC of fb (registers.md, Frame CRC): rows as XRGB8888 bytes,
 * X = 0. */
static uint32_t fb_crc(struct tdev *d, const struct fb *fb)
{
   uint32_t crc = 0;
   for (uint32_t i = 0; i < fb->w * fb->h; i++) {
      uint32_t v = *pa_u32(d->f, fb->pa + 4 * i);
      uint8_t b[4] = {v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, 0};
      crc = vagx_core_crc32(crc, b, 4);
   }
   return crc;
}

/* Head h shows fb through root, CRC on, from its next vblank. */
static void head_show(struct tdev *d, unsigned h, uint64_t root, const struct fb *fb)
{
   wr(d, HR(h, VAGX_REG_SCANOUT_FORMAT), VAGX_SCANOUT_FORMAT_XRGB8888);
   wr(d, HR(h, VAGX_REG_SCANOUT_SIZE), VAGX_SCANOUT_SIZE_WIDTH(fb->w) | VAGX_SCANOUT_SIZE_HEIGHT(fb->h));
   wr(d, HR(h, VAGX_REG_SCANOUT_PITCH), 4 * fb->w);
   wr64(d, HR(h, VAGX_REG_SCANOUT_FB_VA_LO), HR(h, VAGX_REG_SCANOUT_FB_VA_HI), fb->va);
   wr64(d, HR(h, VAGX_REG_SCANOUT_ROOT_LO), HR(h, VAGX_REG_SCANOUT_ROOT_HI), root);
   wr(d, HR(h, VAGX_REG_SCANOUT_CRC_CONTROL), VAGX_SCANOUT_CRC_CONTROL_ENABLE(1));
   wr(d, HR(h, VAGX_REG_SCANOUT_CONTROL), VAGX_SCANOUT_CONTROL_ENABLE(1));
   wr(d, HR(h, VAGX_REG_SCANOUT_COMMIT), VAGX_SCANOUT_COMMIT_PENDING(1));
}

static unsigned display_irqs(struct tdev *d)
{
   return atomic_load(&d->f->irq[VAGX_MSIX_VECTOR_DISPLAY]);
}

static void test_two_heads(void)
{
   struct tdev d;
   struct vagx_core_scanout so;
   tdev_init(&d, RAM, 1, false);
   CHECK(VAGX_CONFIG_NUM_SCANOUTS_GET(rd(&d, VAGX_REG_CONFIG)) == 2 && vagx_core_num_heads(d.core) == 2,
         "two heads by default");
   for (unsigned h = 0; h < 2; h++)
      CHECK(rd(&d, HR(h, VAGX_REG_SCANOUT_FORMAT)) == VAGX_REG_SCANOUT_FORMAT_RESET &&
               rd(&d, HR(h, VAGX_REG_SCANOUT_REFRESH)) == VAGX_REG_SCANOUT_REFRESH_RESET &&
               rd(&d, HR(h, VAGX_REG_SCANOUT_MAX_SIZE)) == VAGX_REG_SCANOUT_MAX_SIZE_RESET &&
               rd(&d, HR(h, VAGX_REG_SCANOUT_WB_FORMAT)) == VAGX_REG_SCANOUT_WB_FORMAT_RESET,
            "head %u reset values", h);

   uint64_t root = vm_new(d.f);
   struct fb a = fb_new(&d, root, VA, 16, 2), b = fb_new(&d, root, VA + 0x10000, 8, 4);
   head_show(&d, 0, root, &a);
   head_show(&d, 1, root, &b);
   CHECK(rd(&d, HR(0, VAGX_REG_SCANOUT_COMMIT)) == 1 && rd(&d, HR(1, VAGX_REG_SCANOUT_COMMIT)) == 1,
         "both commits pending");

   /* Head 1's vblank: its count, CRC and INT bit only. */
   unsigned irqs = display_irqs(&d);
   vagx_core_vblank(d.core, 1, &so);
   CHECK(so.enable && so.width == 8 && so.height == 4 && so.fb_va == b.va, "head 1 active");
   CHECK(rd(&d, HR(1, VAGX_REG_SCANOUT_COMMIT)) == 0 && rd(&d, HR(0, VAGX_REG_SCANOUT_COMMIT)) == 1,
         "head 1's vblank applies head 1's commit only");
   CHECK(rd(&d, HR(1, VAGX_REG_SCANOUT_VBLANK_COUNT)) == 1 && rd(&d, VAGX_REG_SCANOUT_VBLANK_COUNT) == 0,
         "head 1 counts alone");
   CHECK(rd(&d, VAGX_REG_INT_STATUS) == VAGX_INT_HEAD1_VBLANK(1), "HEAD1_VBLANK only: %x",
         rd(&d, VAGX_REG_INT_STATUS));
   CHECK(display_irqs(&d) == irqs + 1, "display vector");
   CHECK(rd(&d, HR(1, VAGX_REG_SCANOUT_CRC_VALUE)) == fb_crc(&d, &b) &&
            rd(&d, HR(1, VAGX_REG_SCANOUT_CRC_COUNT)) == 1 && rd(&d, VAGX_REG_SCANOUT_CRC_COUNT) == 0,
         "head 1 CRC");
   uint64_t ts = rd(&d, HR(1, VAGX_REG_SCANOUT_VBLANK_TS_LO));
   ts |= (uint64_t)rd(&d, HR(1, VAGX_REG_SCANOUT_VBLANK_TS_HI)) << 32;
   CHECK(ts != 0 && rd(&d, VAGX_REG_SCANOUT_VBLANK_TS_LO) == 0, "head 1 time stamp");
   wr(&d, VAGX_REG_INT_STATUS, ~0u);

   /* Head 0 as in 1.8: its own CRC, VBLANK bit. */
   vagx_core_vblank(d.core, 0, &so);
   CHECK(so.enable && so.width == 16 && so.fb_va == a.va, "head 0 active");
   CHECK(rd(&d, VAGX_REG_SCANOUT_VBLANK_COUNT) == 1 && rd(&d, HR(1, VAGX_REG_SCANOUT_VBLANK_COUNT)) == 1,
         "head 0 counts alone");
   CHECK(rd(&d, VAGX_REG_INT_STATUS) == VAGX_INT_VBLANK(1), "VBLANK only");
   CHECK(rd(&d, VAGX_REG_SCANOUT_CRC_VALUE) == fb_crc(&d, &a) &&
            rd(&d, HR(1, VAGX_REG_SCANOUT_CRC_VALUE)) == fb_crc(&d, &b) && fb_crc(&d, &a) != fb_crc(&d, &b),
         "head 0 CRC");
   wr(&d, VAGX_REG_INT_STATUS, ~0u);

   /* Writeback on head 1: HEAD1_WRITEBACK, head 0's writeback untouched. */
   uint64_t wb_va = VA + 0x20000;
   uint64_t wb_pa = vm_alloc(d.f, root, wb_va, (uint64_t)4 * b.w * b.h, false);
   wr(&d, HR(1, VAGX_REG_SCANOUT_WB_FORMAT), VAGX_SCANOUT_FORMAT_XRGB8888);
   wr(&d, HR(1, VAGX_REG_SCANOUT_WB_PITCH), 4 * b.w);
   wr64(&d, HR(1, VAGX_REG_SCANOUT_WB_VA_LO), HR(1, VAGX_REG_SCANOUT_WB_VA_HI), wb_va);
   wr64(&d, HR(1, VAGX_REG_SCANOUT_WB_ROOT_LO), HR(1, VAGX_REG_SCANOUT_WB_ROOT_HI), root);
   wr(&d, HR(1, VAGX_REG_SCANOUT_WB_ARM), VAGX_SCANOUT_WB_ARM_ARM(1));
   CHECK(rd(&d, HR(1, VAGX_REG_SCANOUT_WB_ARM)) == 1 && rd(&d, VAGX_REG_SCANOUT_WB_ARM) == 0, "armed on head 1");
   wr(&d, HR(1, VAGX_REG_SCANOUT_COMMIT), VAGX_SCANOUT_COMMIT_PENDING(1));
   vagx_core_vblank(d.core, 0, &so);
   CHECK(rd(&d, HR(1, VAGX_REG_SCANOUT_WB_ARM)) == 1, "head 0's vblank does not write head 1's");
   vagx_core_vblank(d.core, 1, &so);
   CHECK(rd(&d, HR(1, VAGX_REG_SCANOUT_WB_STATUS)) == VAGX_SCANOUT_WB_STATUS_DONE(1) &&
            rd(&d, HR(1, VAGX_REG_SCANOUT_WB_COUNT)) == 2 && rd(&d, VAGX_REG_SCANOUT_WB_STATUS) == 0,
         "head 1 writeback done");
   CHECK((rd(&d, VAGX_REG_INT_STATUS) & (VAGX_INT_HEAD1_WRITEBACK(1) | VAGX_INT_WRITEBACK(1))) ==
            VAGX_INT_HEAD1_WRITEBACK(1),
         "HEAD1_WRITEBACK");
   unsigned bad = 0;
   for (uint32_t i = 0; i < b.w * b.h; i++)
      bad += *pa_u32(d.f, wb_pa + 4 * i) != (*pa_u32(d.f, b.pa + 4 * i) | 0xff000000u);
   CHECK(bad == 0, "head 1 written back: %u pixels differ", bad);
   wr(&d, VAGX_REG_INT_STATUS, ~0u);

   /* A fault of head 1: its FAULT bit and status, FAULT_* as SCANOUT. */
   wr64(&d, HR(1, VAGX_REG_SCANOUT_FB_VA_LO), HR(1, VAGX_REG_SCANOUT_FB_VA_HI), VA + 0x800000);
   wr(&d, HR(1, VAGX_REG_SCANOUT_COMMIT), VAGX_SCANOUT_COMMIT_PENDING(1));
   vagx_core_vblank(d.core, 1, &so);
   uint32_t st = rd(&d, VAGX_REG_INT_STATUS);
   CHECK((st & VAGX_INT_HEAD1_SCANOUT_FAULT(1)) && !(st & VAGX_INT_SCANOUT_FAULT(1)) &&
            (st & VAGX_INT_MMU_FAULT(1)),
         "HEAD1_SCANOUT_FAULT: %x", st);
   CHECK(VAGX_SCANOUT_STATUS_FAULT_GET(rd(&d, HR(1, VAGX_REG_SCANOUT_STATUS))) &&
            !VAGX_SCANOUT_STATUS_FAULT_GET(rd(&d, VAGX_REG_SCANOUT_STATUS)),
         "head 1 status fault");
   uint32_t fs = rd(&d, VAGX_REG_FAULT_STATUS);
   CHECK(VAGX_FAULT_STATUS_QUEUE_GET(fs) == VAGX_FAULT_QUEUE_SCANOUT &&
            VAGX_FAULT_STATUS_UNIT_GET(fs) == VAGX_UNIT_SCANOUT && rd(&d, VAGX_REG_FAULT_ADDR_LO) == (uint32_t)(VA + 0x800000),
         "fault latched as the scanout's");
   CHECK(rd(&d, HR(1, VAGX_REG_SCANOUT_CRC_VALUE)) != fb_crc(&d, &b), "faulted frame is black");
   wr(&d, VAGX_REG_FAULT_ACK, 1);
   wr(&d, VAGX_REG_INT_STATUS, ~0u);

   /* A refused commit of head 1: its STATUS.INVALID, ERROR_STATUS at its
    * offset; head 0 unaffected. */
   wr(&d, HR(1, VAGX_REG_SCANOUT_PITCH), 3);
   wr(&d, HR(1, VAGX_REG_SCANOUT_COMMIT), VAGX_SCANOUT_COMMIT_PENDING(1));
   uint32_t e = rd(&d, VAGX_REG_ERROR_STATUS);
   CHECK(VAGX_ERROR_STATUS_CODE_GET(e) == VAGX_REG_ERROR_BAD_SCANOUT &&
            VAGX_ERROR_STATUS_OFFSET_GET(e) == HR(1, VAGX_REG_SCANOUT_COMMIT),
         "bad commit at head 1's offset: %x", e);
   CHECK(VAGX_SCANOUT_STATUS_INVALID_GET(rd(&d, HR(1, VAGX_REG_SCANOUT_STATUS))) &&
            !VAGX_SCANOUT_STATUS_INVALID_GET(rd(&d, VAGX_REG_SCANOUT_STATUS)),
         "head 1 invalid only");
   wr(&d, VAGX_REG_ERROR_ACK, 1);

   /* A global reset keeps both heads (display domain), HEAD1 bits too. */
   wr(&d, VAGX_REG_INT_RAISE, VAGX_INT_HEAD1_VBLANK(1));
   wr(&d, VAGX_REG_RESET, VAGX_RESET_START(1));
   CHECK((rd(&d, VAGX_REG_INT_STATUS) & VAGX_INT_HEAD1_VBLANK(1)) &&
            VAGX_SCANOUT_CONTROL_ENABLE_GET(rd(&d, HR(1, VAGX_REG_SCANOUT_CONTROL))),
         "reset keeps head 1");

   /* Disabling head 1 stops its vblanks, not head 0's. */
   wr(&d, HR(1, VAGX_REG_SCANOUT_CONTROL), 0);
   vagx_core_vblank(d.core, 1, &so);
   vagx_core_vblank(d.core, 0, &so);
   CHECK(rd(&d, HR(1, VAGX_REG_SCANOUT_VBLANK_COUNT)) == 3 && rd(&d, VAGX_REG_SCANOUT_VBLANK_COUNT) == 3,
         "head 1 off, head 0 on: %u %u", rd(&d, HR(1, VAGX_REG_SCANOUT_VBLANK_COUNT)),
         rd(&d, VAGX_REG_SCANOUT_VBLANK_COUNT));
   tdev_fini(&d);
}

/* Head h's SCANOUT_VBLANK_TS (LO latches HI). */
static uint64_t vblank_ts(struct tdev *d, unsigned h)
{
   uint64_t lo = rd(d, HR(h, VAGX_REG_SCANOUT_VBLANK_TS_LO));
   return (uint64_t)rd(d, HR(h, VAGX_REG_SCANOUT_VBLANK_TS_HI)) << 32 | lo;
}

/* QEMU's vblank timer of a head keeps ticking (and its phase) while the
 * head is off; registers.md: "While ENABLE = 0 nothing of this happens".
 * So a disabled head's ticks, single or batched, raise no interrupt (CRC
 * on) and leave its count, time stamp and CRC frozen, at power-on and
 * after a disable; head 0 ticks on, and head 1 counts again once
 * re-enabled. */
static void test_disabled_head_quiet(void)
{
   struct tdev d;
   struct vagx_core_scanout so;
   tdev_init(&d, RAM, 1, false);
   uint64_t root = vm_new(d.f);
   struct fb a = fb_new(&d, root, VA, 16, 2), b = fb_new(&d, root, VA + 0x10000, 8, 4);
   const uint32_t head1 = VAGX_INT_HEAD1_VBLANK(1) | VAGX_INT_HEAD1_SCANOUT_FAULT(1) |
                          VAGX_INT_HEAD1_WRITEBACK(1);
   wr(&d, VAGX_REG_INT_ENABLE_SET, VAGX_INT_VBLANK(1) | VAGX_INT_SCANOUT_FAULT(1) | head1);
   wr(&d, VAGX_REG_INT_STATUS, ~0u);
   unsigned irqs = display_irqs(&d);
   bool quiet = true;
   for (unsigned h = 0; h < 2; h++) {
      for (unsigned i = 0; i < 3; i++) {
         vagx_core_vblank(d.core, h, &so);
         quiet &= !so.enable;
      }
      vagx_core_vblank_late(d.core, h, &so, 50000000, 5);
      quiet &= !so.enable && rd(&d, HR(h, VAGX_REG_SCANOUT_VBLANK_COUNT)) == 0 && vblank_ts(&d, h) == 0;
   }
   CHECK(quiet && rd(&d, VAGX_REG_INT_STATUS) == 0 && display_irqs(&d) == irqs,
         "heads off at power-on: ticks raise nothing");

   head_show(&d, 0, root, &a);
   head_show(&d, 1, root, &b);
   vagx_core_vblank(d.core, 0, &so);
   vagx_core_vblank(d.core, 1, &so);
   uint32_t count = rd(&d, HR(1, VAGX_REG_SCANOUT_VBLANK_COUNT));
   uint32_t crc_count = rd(&d, HR(1, VAGX_REG_SCANOUT_CRC_COUNT));
   uint64_t ts = vblank_ts(&d, 1);
   CHECK(count == 1 && crc_count == 1 && ts != 0, "head 1 on: counted");
   wr(&d, HR(1, VAGX_REG_SCANOUT_CONTROL), 0);
   wr(&d, VAGX_REG_INT_STATUS, ~0u);
   irqs = display_irqs(&d);
   for (unsigned i = 0; i < 4; i++) {
      vagx_core_vblank(d.core, 1, &so);
      quiet &= !so.enable;
   }
   vagx_core_vblank_late(d.core, 1, &so, 40000000, 3);
   CHECK(quiet && !so.enable && rd(&d, VAGX_REG_INT_STATUS) == 0 && display_irqs(&d) == irqs &&
            rd(&d, HR(1, VAGX_REG_SCANOUT_VBLANK_COUNT)) == count &&
            rd(&d, HR(1, VAGX_REG_SCANOUT_CRC_COUNT)) == crc_count && vblank_ts(&d, 1) == ts,
         "head 1 off: its ticks raise nothing, count %u, CRC count %u frozen", count, crc_count);
   vagx_core_vblank(d.core, 0, &so);
   CHECK(so.enable && rd(&d, VAGX_REG_INT_STATUS) == VAGX_INT_VBLANK(1) && display_irqs(&d) == irqs + 1,
         "head 0 ticks on");
   wr(&d, VAGX_REG_INT_STATUS, ~0u);
   wr(&d, HR(1, VAGX_REG_SCANOUT_CONTROL), VAGX_SCANOUT_CONTROL_ENABLE(1));
   vagx_core_vblank(d.core, 1, &so);
   CHECK(so.enable && rd(&d, HR(1, VAGX_REG_SCANOUT_VBLANK_COUNT)) == count + 1 &&
            (rd(&d, VAGX_REG_INT_STATUS) & head1) == VAGX_INT_HEAD1_VBLANK(1),
         "head 1 on again: counts from %u", count);
   tdev_fini(&d);
}

/* Hotplug: SCANOUT_STATUS.CONNECTED per head, INT HOTPLUG on a change
 * only, kept across a global reset. */
static void test_hotplug(void)
{
   struct tdev d;
   tdev_init(&d, RAM, 1, false);
   wr(&d, VAGX_REG_INT_STATUS, ~0u);
   for (unsigned h = 0; h < 2; h++)
      CHECK(rd(&d, HR(h, VAGX_REG_SCANOUT_STATUS)) == VAGX_REG_SCANOUT_STATUS_RESET &&
               VAGX_SCANOUT_STATUS_CONNECTED_GET(VAGX_REG_SCANOUT_STATUS_RESET),
            "head %u connected at power-on", h);
   unsigned irqs = display_irqs(&d);
   vagx_core_set_connected(d.core, 1, false);
   CHECK(!VAGX_SCANOUT_STATUS_CONNECTED_GET(rd(&d, HR(1, VAGX_REG_SCANOUT_STATUS))) &&
            VAGX_SCANOUT_STATUS_CONNECTED_GET(rd(&d, VAGX_REG_SCANOUT_STATUS)),
         "head 1 unplugged, head 0 not");
   CHECK(rd(&d, VAGX_REG_INT_STATUS) == VAGX_INT_HOTPLUG(1) && display_irqs(&d) == irqs + 1, "HOTPLUG");
   wr(&d, VAGX_REG_INT_STATUS, ~0u);
   vagx_core_set_connected(d.core, 1, false);
   CHECK(rd(&d, VAGX_REG_INT_STATUS) == 0 && display_irqs(&d) == irqs + 1, "no change, no HOTPLUG");
   wr(&d, VAGX_REG_RESET, VAGX_RESET_START(1));
   wr(&d, VAGX_REG_INT_STATUS, ~0u);
   CHECK(!VAGX_SCANOUT_STATUS_CONNECTED_GET(rd(&d, HR(1, VAGX_REG_SCANOUT_STATUS))), "reset keeps it");
   vagx_core_set_connected(d.core, 1, true);
   CHECK(VAGX_SCANOUT_STATUS_CONNECTED_GET(rd(&d, HR(1, VAGX_REG_SCANOUT_STATUS))) &&
            rd(&d, VAGX_REG_INT_STATUS) == VAGX_INT_HOTPLUG(1),
         "plugged back");
   /* A head the device lacks: nothing. */
   vagx_core_set_connected(d.core, VAGX_SCANOUT_MAX_HEADS, false);
   CHECK(rd(&d, VAGX_REG_INT_STATUS) == VAGX_INT_HOTPLUG(1), "absent head ignored");
   tdev_fini(&d);
}

/* heads = 1: the device of 1.8 as far as the display goes. */
static void test_one_head(void)
{
   struct tdev d;
   struct vagx_core_scanout so = {0};
   uint8_t buf[4];
   memset(&d, 0, sizeof(d));
   d.f = fake_new(RAM);
   struct vagx_core_config cfg = {.num_workers = 1, .num_heads = 1};
   d.core = vagx_core_create(&fake_ops, d.f, &cfg);
   CHECK(VAGX_CONFIG_NUM_SCANOUTS_GET(rd(&d, VAGX_REG_CONFIG)) == 1 && vagx_core_num_heads(d.core) == 1,
         "one head");
   CHECK(rd(&d, HR(1, VAGX_REG_SCANOUT_FORMAT)) == 0 && rd(&d, HR(1, VAGX_REG_SCANOUT_REFRESH)) == 0,
         "absent head reads 0");
   wr(&d, HR(1, VAGX_REG_SCANOUT_CONTROL), 1);
   uint32_t e = rd(&d, VAGX_REG_ERROR_STATUS);
   CHECK(VAGX_ERROR_STATUS_CODE_GET(e) == VAGX_REG_ERROR_BAD_ACCESS &&
            VAGX_ERROR_STATUS_OFFSET_GET(e) == HR(1, VAGX_REG_SCANOUT_CONTROL),
         "absent head write: BAD_ACCESS");
   wr(&d, VAGX_REG_ERROR_ACK, 1);
   wr(&d, VAGX_REG_INT_STATUS, ~0u);
   vagx_core_vblank(d.core, 1, &so);
   CHECK(!so.enable && rd(&d, VAGX_REG_INT_STATUS) == 0, "absent head: no vblank");
   CHECK(vagx_core_scanout_read(d.core, 1, VA, buf, sizeof(buf)) != 0, "absent head: no read");
   /* Head 0 as ever. */
   wr(&d, VAGX_REG_SCANOUT_CONTROL, 1);
   vagx_core_vblank(d.core, 0, &so);
   CHECK(so.enable && rd(&d, VAGX_REG_SCANOUT_VBLANK_COUNT) == 1 &&
            rd(&d, VAGX_REG_INT_STATUS) == VAGX_INT_VBLANK(1),
         "head 0 vblank");
   tdev_fini(&d);
}

int main(void)
{
   test_two_heads();
   test_disabled_head_quiet();
   test_hotplug();
   test_one_head();
   printf("core heads: %d checks, %d failures\n", t_checks, t_failures);
   return t_failures ? 1 : 0;
}
