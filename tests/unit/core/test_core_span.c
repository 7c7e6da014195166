/* SPDX-License-Identifier: MIT */
/*
 * The MMU's page-by-page walk of a VA range on raw callbacks (core_span in
 * core_mmu.c) as its three users show it: the scanout reader
 * (vagx_core_scanout_read), the writeback (faults latched as WRITE, unit
 * SCANOUT) and the decoder (faults printed).  Ranges cross pages; a NULL
 * page reads as zero and drops writes; an absent page, a read-only page
 * (written) and a page outside guest RAM fault at the first byte of the
 * range's piece on that page, at the walk's level or at the last one.
 */
#include "core_test.h"

#define RAM (16ull << 20)
#define VA 0x0000004000000000ull      /* the pages under test */
#define FB_VA 0x0000005000000000ull   /* a framebuffer that reads fine */
#define PG VAGX_PAGE_SIZE
#define LEAF (VAGX_PT_LEVELS - 1)

/* Pages at VA: 0 mapped, 1 NULL, 2 mapped read-only, 3 absent (its leaf
 * table exists), 4 mapped to a page past the end of guest RAM. */
struct span_vm {
   uint64_t root, pa0, pa2, outside;
};

static struct span_vm span_vm(struct tdev *d)
{
   struct span_vm v;
   v.root = vm_new(d->f);
   v.pa0 = vm_alloc(d->f, v.root, VA, PG, false);
   vm_set_null(d->f, v.root, VA + PG, LEAF);
   v.pa2 = vm_alloc(d->f, v.root, VA + 2 * PG, PG, true);
   v.outside = RAM + 16 * PG;
   vm_map_page(d->f, v.root, VA + 4 * PG, v.outside, false, false);
   return v;
}

static unsigned faults(struct tdev *d)
{
   return atomic_load(&d->f->events[VAGX_CORE_EVENT_MMU_FAULT]);
}

/* Exactly one fault since `before`, the scanout's, with these fields. */
static void check_fault(struct tdev *d, unsigned before, uint64_t root, uint64_t va,
                        enum vagx_fault_access access, enum vagx_fault_reason reason,
                        unsigned level, const char *what)
{
   const struct vagx_core_event *e = &d->f->last[VAGX_CORE_EVENT_MMU_FAULT];
   CHECK(faults(d) == before + 1, "%s: %u faults", what, faults(d) - before);
   CHECK(e->address == va && e->root == root && e->access == access && e->reason == reason &&
            e->level == level && e->unit == VAGX_UNIT_SCANOUT &&
            e->queue == VAGX_FAULT_QUEUE_SCANOUT,
         "%s: fault at 0x%llx root 0x%llx access %u reason %u level %u unit %u queue %u", what,
         (unsigned long long)e->address, (unsigned long long)e->root, e->access, e->reason,
         e->level, e->unit, e->queue);
}

/* A w x 1 XRGB8888 scanout of the framebuffer at fb_va through root. */
static void scanout_on(struct tdev *d, uint64_t root, uint64_t fb_va, uint32_t w)
{
   struct vagx_core_scanout so;
   wr(d, VAGX_REG_SCANOUT_FORMAT, VAGX_SCANOUT_FORMAT_XRGB8888);
   wr(d, VAGX_REG_SCANOUT_SIZE, VAGX_SCANOUT_SIZE_WIDTH(w) | VAGX_SCANOUT_SIZE_HEIGHT(1));
   wr(d, VAGX_REG_SCANOUT_PITCH, 4 * w);
   wr64(d, VAGX_REG_SCANOUT_FB_VA_LO, VAGX_REG_SCANOUT_FB_VA_HI, fb_va);
   wr64(d, VAGX_REG_SCANOUT_ROOT_LO, VAGX_REG_SCANOUT_ROOT_HI, root);
   wr(d, VAGX_REG_SCANOUT_CONTROL, VAGX_SCANOUT_CONTROL_ENABLE(1));
   wr(d, VAGX_REG_SCANOUT_COMMIT, VAGX_SCANOUT_COMMIT_PENDING(1));
   vagx_core_vblank(d->core, 0, &so);
}

static void test_scanout_read(void)
{
   struct tdev d;
   tdev_init(&d, RAM, 1, false);
   const struct span_vm v = span_vm(&d);
   scanout_on(&d, v.root, VA, 1);
   memset(pa_ptr(d.f, v.pa0), 0x11, PG);
   memset(pa_ptr(d.f, v.pa2), 0x22, PG);
   uint8_t buf[32];
   const unsigned f0 = faults(&d);

   /* mapped into NULL: its bytes, then zeros */
   memset(buf, 0xee, sizeof(buf));
   CHECK(vagx_core_scanout_read(d.core, 0, VA + PG - 8, buf, 16) == 0, "mapped + NULL: read");
   bool ok = true;
   for (unsigned i = 0; i < 16; i++)
      ok &= buf[i] == (i < 8 ? 0x11 : 0);
   CHECK(ok && buf[16] == 0xee, "mapped + NULL: bytes");
   CHECK(faults(&d) == f0 && !(rd(&d, VAGX_REG_SCANOUT_STATUS) & VAGX_SCANOUT_STATUS_FAULT(1)),
         "mapped + NULL: no fault");

   /* read-only (read: fine) into absent: the fault at the absent page */
   CHECK(vagx_core_scanout_read(d.core, 0, VA + 3 * PG - 4, buf, 8) < 0, "absent: read fails");
   check_fault(&d, f0, v.root, VA + 3 * PG, VAGX_FAULT_ACCESS_READ, VAGX_FAULT_REASON_NOT_PRESENT,
               LEAF, "scanout, absent page");
   CHECK(rd(&d, VAGX_REG_SCANOUT_STATUS) & VAGX_SCANOUT_STATUS_FAULT(1), "absent: SCANOUT FAULT");
   CHECK(rd(&d, VAGX_REG_INT_STATUS) & VAGX_INT_SCANOUT_FAULT(1), "absent: SCANOUT_FAULT int");

   /* outside guest RAM: BUS_ERROR at the last level, at the range's start */
   CHECK(vagx_core_scanout_read(d.core, 0, VA + 4 * PG + 100, buf, 8) < 0, "outside RAM: read fails");
   check_fault(&d, f0 + 1, v.root, VA + 4 * PG + 100, VAGX_FAULT_ACCESS_READ,
               VAGX_FAULT_REASON_BUS_ERROR, LEAF, "scanout, outside RAM");

   /* a read that works clears SCANOUT_STATUS.FAULT again */
   CHECK(vagx_core_scanout_read(d.core, 0, VA + 2 * PG, buf, 8) == 0 && buf[0] == 0x22 &&
            !(rd(&d, VAGX_REG_SCANOUT_STATUS) & VAGX_SCANOUT_STATUS_FAULT(1)),
         "read-only page reads, FAULT cleared");
   tdev_fini(&d);
}

/* One frame of the 4-pixel framebuffer at FB_VA written back as XRGB8888
 * at wb_va; returns WB_STATUS. */
static uint32_t writeback_at(struct tdev *d, uint64_t root, uint64_t wb_va)
{
   struct vagx_core_scanout so;
   wr(d, VAGX_REG_SCANOUT_WB_FORMAT, VAGX_SCANOUT_FORMAT_XRGB8888);
   wr(d, VAGX_REG_SCANOUT_WB_PITCH, 16);
   wr64(d, VAGX_REG_SCANOUT_WB_VA_LO, VAGX_REG_SCANOUT_WB_VA_HI, wb_va);
   wr64(d, VAGX_REG_SCANOUT_WB_ROOT_LO, VAGX_REG_SCANOUT_WB_ROOT_HI, root);
   wr(d, VAGX_REG_SCANOUT_WB_ARM, VAGX_SCANOUT_WB_ARM_ARM(1));
   wr(d, VAGX_REG_SCANOUT_COMMIT, VAGX_SCANOUT_COMMIT_PENDING(1));
   vagx_core_vblank(d->core, 0, &so);
   return rd(d, VAGX_REG_SCANOUT_WB_STATUS);
}

static void test_writeback(void)
{
   struct tdev d;
   tdev_init(&d, RAM, 1, false);
   const struct span_vm v = span_vm(&d);
   const uint64_t fb_pa = vm_alloc(d.f, v.root, FB_VA, PG, false);
   for (unsigned x = 0; x < 4; x++)
      pa_u32(d.f, fb_pa)[x] = 0x010203u * (x + 1);
   scanout_on(&d, v.root, FB_VA, 4);
   const unsigned f0 = faults(&d);

   /* mapped into NULL: the first two pixels land, the others are dropped */
   memset(pa_ptr(d.f, v.pa0), 0, PG);
   CHECK(writeback_at(&d, v.root, VA + PG - 8) == VAGX_SCANOUT_WB_STATUS_DONE(1) && faults(&d) == f0,
         "mapped + NULL: done, no fault");
   const uint32_t *row = pa_u32(d.f, v.pa0 + PG - 8);
   CHECK(row[0] == (0xff000000u | 0x010203u) && row[1] == (0xff000000u | 0x020406u),
         "mapped + NULL: 0x%x 0x%x", row[0], row[1]);

   /* read-only page, absent page, page outside RAM: one fault each at the
    * first byte written there */
   CHECK(writeback_at(&d, v.root, VA + 2 * PG - 8) == VAGX_SCANOUT_WB_STATUS_FAULT(1),
         "read-only: WB FAULT");
   check_fault(&d, f0, v.root, VA + 2 * PG, VAGX_FAULT_ACCESS_WRITE, VAGX_FAULT_REASON_READ_ONLY,
               LEAF, "writeback, read-only page");
   CHECK(writeback_at(&d, v.root, VA + 3 * PG + 32) == VAGX_SCANOUT_WB_STATUS_FAULT(1),
         "absent: WB FAULT");
   check_fault(&d, f0 + 1, v.root, VA + 3 * PG + 32, VAGX_FAULT_ACCESS_WRITE,
               VAGX_FAULT_REASON_NOT_PRESENT, LEAF, "writeback, absent page");
   CHECK(writeback_at(&d, v.root, VA + 4 * PG) == VAGX_SCANOUT_WB_STATUS_FAULT(1),
         "outside RAM: WB FAULT");
   check_fault(&d, f0 + 2, v.root, VA + 4 * PG, VAGX_FAULT_ACCESS_WRITE,
               VAGX_FAULT_REASON_BUS_ERROR, LEAF, "writeback, outside RAM");
   tdev_fini(&d);
}

/* The compute job descriptor of a ring slot at desc_va, decoded. */
static void decode_desc_at(struct tdev *d, struct tq *t, uint64_t root, uint64_t desc_va,
                           struct sbuf *b)
{
   struct vagx_job_header h;
   hdr_init(t, &h, VAGX_JOB_TYPE_COMPUTE, root, 1);
   h.desc_va = desc_va;
   h.desc_size = VAGX_COMPUTE_JOB_LENGTH;
   const uint64_t slot = tq_submit(t, &h, NULL);
   sbuf_clear(b);
   CHECK(vagx_core_decode_job(&fake_ops, d->f, slot, sbuf_print, b) == 0, "decode 0x%llx",
         (unsigned long long)desc_va);
}

static void test_decoder(void)
{
   struct tdev d;
   struct tq t;
   tdev_init(&d, RAM, 1, false);
   tq_init(&t, &d, 0, 2);
   const struct span_vm v = span_vm(&d);
   struct sbuf *b = (struct sbuf *)calloc(1, sizeof(*b));
   char want[128];

   /* across into the NULL page: the descriptor decodes (its tail reads 0) */
   decode_desc_at(&d, &t, v.root, VA + PG - 16, b);
   snprintf(want, sizeof(want), "compute_job @ 0x%llx", (unsigned long long)(VA + PG - 16));
   CHECK(strstr(b->buf, want) && !strstr(b->buf, "<compute_job"), "mapped + NULL:\n%s", b->buf);

   /* absent: the walk's fault */
   decode_desc_at(&d, &t, v.root, VA + 3 * PG - 16, b);
   snprintf(want, sizeof(want), "<compute_job @ 0x%llx: translation fault: %s at level %u>",
            (unsigned long long)(VA + 3 * PG), vagx_fault_reason_name(VAGX_FAULT_REASON_NOT_PRESENT),
            LEAF);
   CHECK(strstr(b->buf, want) != NULL, "absent: want \"%s\" in\n%s", want, b->buf);

   /* outside RAM: the page's PA */
   decode_desc_at(&d, &t, v.root, VA + 4 * PG, b);
   snprintf(want, sizeof(want), "<compute_job @ 0x%llx: page 0x%llx outside guest RAM>",
            (unsigned long long)(VA + 4 * PG), (unsigned long long)v.outside);
   CHECK(strstr(b->buf, want) != NULL, "outside RAM: want \"%s\" in\n%s", want, b->buf);
   free(b);
   tdev_fini(&d);
}

int main(void)
{
   test_scanout_read();
   test_writeback();
   test_decoder();
   printf("core span: %d checks, %d failures\n", t_checks, t_failures);
   return t_failures ? 1 : 0;
}
