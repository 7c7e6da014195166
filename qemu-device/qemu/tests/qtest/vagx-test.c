/*
 * qtest for the vagx PCI device: identity, resets, copy and compute jobs
 * through rings in guest memory with MSI-X, MMU faults, abort and queue
 * reset, scanout screendump, and a bounded register/ring fuzzer.  What no
 * guest may do to QEMU (bus mastering, bounded resets, the DMA fuzzer) is
 * in vagx-test-robust.c.inc.
 *
 * Every number comes from the generated contract header.  MSI-X vectors are
 * pointed at guest RAM words (there is no CPU/APIC under qtest), so an
 * interrupt is a word that changes.  Device threads run in real time:
 * polls use wall-clock deadlines.
 *
 * SPDX-License-Identifier: MIT
 */
#include "qemu/osdep.h"
#include <glib/gstdio.h>
#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci.h"
#include "hw/pci/pci_regs.h"
#include "qemu/bswap.h"

#include "hw/display/vagx/vagx_hw.h"
#include "hw/display/vagx/vagx_isa.h"
#include "hw/display/vagx/uapi/hw/pt/vagx_pt.h"

#define TIMEOUT_US (20 * G_USEC_PER_SEC)
#define MSI_MAGIC 0x5a000000u
#define RING_LOG2 4
#define RING_SLOTS (1u << RING_LOG2)
#define VA_BASE 0x100000000ull      /* where test buffers are mapped */

#define INT_ALL (VAGX_INT_JOB_DONE__MASK | VAGX_INT_QUEUE_ERROR__MASK | \
                 VAGX_INT_MMU_FAULT__MASK | VAGX_INT_TLB_INV_DONE__MASK | \
                 VAGX_INT_RESET_DONE__MASK | VAGX_INT_DEVICE_ERROR__MASK | \
                 VAGX_INT_VBLANK__MASK | VAGX_INT_SCANOUT_FAULT__MASK | \
                 VAGX_INT_WRITEBACK__MASK | VAGX_INT_HEAD1_VBLANK__MASK | \
                 VAGX_INT_HEAD1_SCANOUT_FAULT__MASK | \
                 VAGX_INT_HEAD1_WRITEBACK__MASK | VAGX_INT_HOTPLUG__MASK)

typedef struct {
    QOSState *qs;
    QTestState *qts;
    QPCIDevice *dev;
    QPCIBar bar0;
    uint64_t msi;                   /* VAGX_MSIX_VECTORS words */
    uint64_t ring[VAGX_MAX_QUEUES];
    uint32_t tail[VAGX_MAX_QUEUES];
    uint64_t root;                  /* level-0 table of the test VM */
    uint64_t next_va;
} Vagx;

/* ------------------------------------------------------------------------ */
/* Plumbing                                                                 */
/* ------------------------------------------------------------------------ */

static void save_fn(QPCIDevice *dev, int devfn, void *data)
{
    *(QPCIDevice **)data = dev;
}

static uint32_t rd(Vagx *v, uint32_t off)
{
    return qpci_io_readl(v->dev, v->bar0, off);
}

static void wr(Vagx *v, uint32_t off, uint32_t val)
{
    qpci_io_writel(v->dev, v->bar0, off, val);
}

static uint32_t qrd(Vagx *v, unsigned q, uint32_t reg)
{
    return rd(v, VAGX_QUEUE_REG(q, reg));
}

static void qwr(Vagx *v, unsigned q, uint32_t reg, uint32_t val)
{
    wr(v, VAGX_QUEUE_REG(q, reg), val);
}

/* Offset bits of an address inside its MMU page. */
#define PAGE_OFFSET_MASK ((uint64_t)VAGX_PAGE_SIZE - 1)

static uint64_t galloc(Vagx *v, size_t size)
{
    uint64_t pa = guest_alloc(&v->qs->alloc, ROUND_UP(size, VAGX_PAGE_SIZE));

    g_assert(pa);
    g_assert_cmphex(pa & PAGE_OFFSET_MASK, ==, 0);
    qtest_memset(v->qts, pa, 0, ROUND_UP(size, VAGX_PAGE_SIZE));
    return pa;
}

static void msix_setup(Vagx *v)
{
    qpci_msix_enable(v->dev);
    for (unsigned i = 0; i < VAGX_MSIX_VECTORS; i++) {
        uint64_t e = v->dev->msix_table_off + i * PCI_MSIX_ENTRY_SIZE;
        uint64_t a = v->msi + 4 * i;

        qpci_io_writel(v->dev, v->dev->msix_table_bar,
                       e + PCI_MSIX_ENTRY_LOWER_ADDR, (uint32_t)a);
        qpci_io_writel(v->dev, v->dev->msix_table_bar,
                       e + PCI_MSIX_ENTRY_UPPER_ADDR, a >> 32);
        qpci_io_writel(v->dev, v->dev->msix_table_bar,
                       e + PCI_MSIX_ENTRY_DATA, MSI_MAGIC | i);
        qpci_io_writel(v->dev, v->dev->msix_table_bar,
                       e + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
    }
}

/* (Re)discover and enable the device: after boot and after system_reset. */
static void vagx_probe(Vagx *v)
{
    uint64_t size = 0;

    g_free(v->dev);
    v->dev = NULL;
    qpci_device_foreach(v->qs->pcibus, VAGX_PCI_VENDOR_ID, VAGX_PCI_DEVICE_ID,
                        save_fn, &v->dev);
    g_assert(v->dev);
    qpci_device_enable(v->dev);
    v->bar0 = qpci_iomap(v->dev, 0, &size);
    g_assert_cmpuint(size, ==, VAGX_BAR0_SIZE);
    /* qpci_msix_enable() maps BAR0 again (table and PBA live in it). */
    msix_setup(v);
    g_assert_cmpuint(v->dev->msix_table_bar.addr, ==, v->dev->msix_pba_bar.addr);
    v->bar0 = v->dev->msix_table_bar;
    memset(v->tail, 0, sizeof(v->tail));
}

/* machine: extra QEMU options first (e.g. "-M q35"); extra: device
 * properties appended to -device vagx. */
static void vagx_start_machine(Vagx *v, const char *machine, const char *extra)
{
    memset(v, 0, sizeof(*v));
    v->qs = qtest_pc_boot("%s -vga none -nodefaults -device vagx,id=gpu0%s",
                          machine, extra ? extra : "");
    g_assert(v->qs);
    v->qts = v->qs->qts;
    v->msi = galloc(v, VAGX_PAGE_SIZE);
    vagx_probe(v);
    v->root = galloc(v, VAGX_PAGE_SIZE);
    v->next_va = VA_BASE;
}

static void vagx_start(Vagx *v, const char *extra)
{
    vagx_start_machine(v, "", extra);
}

static void vagx_stop(Vagx *v)
{
    g_free(v->dev);
    qtest_shutdown(v->qs);
}

static uint32_t msi_word(Vagx *v, unsigned vec)
{
    return qtest_readl(v->qts, v->msi + 4 * vec);
}

static void msi_clear(Vagx *v)
{
    qtest_memset(v->qts, v->msi, 0, 4 * VAGX_MSIX_VECTORS);
}

static bool wait_msi(Vagx *v, unsigned vec)
{
    gint64 end = g_get_monotonic_time() + TIMEOUT_US;

    while (g_get_monotonic_time() < end) {
        if (msi_word(v, vec) == (MSI_MAGIC | vec)) {
            return true;
        }
        g_usleep(200);
    }
    return false;
}

static bool wait_u64(Vagx *v, uint64_t pa, uint64_t val)
{
    gint64 end = g_get_monotonic_time() + TIMEOUT_US;

    while (g_get_monotonic_time() < end) {
        if (qtest_readq(v->qts, pa) == val) {
            return true;
        }
        g_usleep(200);
    }
    return false;
}

static bool wait_reg(Vagx *v, uint32_t off, uint32_t mask, uint32_t val)
{
    gint64 end = g_get_monotonic_time() + TIMEOUT_US;

    while (g_get_monotonic_time() < end) {
        if ((rd(v, off) & mask) == val) {
            return true;
        }
        g_usleep(200);
    }
    return false;
}

static bool wait_qstate(Vagx *v, unsigned q, unsigned state)
{
    return wait_reg(v, VAGX_QUEUE_REG(q, VAGX_Q_STATUS),
                    VAGX_Q_STATUS_STATE__MASK, VAGX_Q_STATUS_STATE(state));
}

static void write_words(Vagx *v, uint64_t pa, const uint32_t *w, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        qtest_writel(v->qts, pa + 4 * i, w[i]);
    }
}

/* ------------------------------------------------------------------------ */
/* Page tables: the contract's page-table library over qtest memory      */
/* ------------------------------------------------------------------------ */

static int pt_read(void *ctx, uint64_t pa, void *buf, size_t len)
{
    qtest_memread(((Vagx *)ctx)->qts, pa, buf, len);
    return 0;
}

static int pt_write(void *ctx, uint64_t pa, const void *buf, size_t len)
{
    qtest_memwrite(((Vagx *)ctx)->qts, pa, buf, len);
    return 0;
}

static uint64_t pt_alloc(void *ctx)
{
    return galloc(ctx, VAGX_PAGE_SIZE);
}

static const struct vagx_pt_ops pt_ops = {
    .read = pt_read, .write = pt_write, .alloc_table = pt_alloc,
};

/* Writes a raw entry (the fuzzer's and the NULL subtrees' way). */
static void write_pte(Vagx *v, uint64_t pa, const struct vagx_pte *pte)
{
    g_assert_cmpint(vagx_pt_store(&pt_ops, v, pa, vagx_pte_encode(pte)), ==, 0);
}

/* Map one 4 KiB page va -> pa; creates intermediate tables as needed. */
static void vm_map(Vagx *v, uint64_t root, uint64_t va, uint64_t pa,
                   bool read_only)
{
    g_assert_cmpint(vagx_pt_map(&pt_ops, v, root, va, pa, read_only, false),
                    ==, VAGX_PT_OK);
}

/* Allocate `size` bytes of guest RAM and map them at a fresh VA. */
static uint64_t vm_buf(Vagx *v, size_t size, bool read_only, uint64_t *pa_out)
{
    uint64_t pa = galloc(v, size);
    uint64_t va = v->next_va;

    for (size_t off = 0; off < size; off += VAGX_PAGE_SIZE) {
        vm_map(v, v->root, va + off, pa + off, read_only);
    }
    /* leave a hole */
    v->next_va += ROUND_UP(size, VAGX_PAGE_SIZE) + VAGX_PAGE_SIZE;
    if (pa_out) {
        *pa_out = pa;
    }
    return va;
}

/* ------------------------------------------------------------------------ */
/* Rings                                                                    */
/* ------------------------------------------------------------------------ */

static void ring_setup(Vagx *v, unsigned q)
{
    if (!v->ring[q]) {
        v->ring[q] = galloc(v, RING_SLOTS * VAGX_RING_ENTRY_SIZE);
    }
    qwr(v, q, VAGX_Q_RING_BASE_LO, (uint32_t)v->ring[q]);
    qwr(v, q, VAGX_Q_RING_BASE_HI, v->ring[q] >> 32);
    qwr(v, q, VAGX_Q_RING_SIZE, VAGX_Q_RING_SIZE_LOG2(RING_LOG2));
    qwr(v, q, VAGX_Q_CONTROL, VAGX_Q_CONTROL_ENABLE(1));
    g_assert(wait_qstate(v, q, VAGX_QUEUE_STATE_IDLE));
    v->tail[q] = 0;
    wr(v, VAGX_REG_INT_ENABLE, INT_ALL);
}

static uint64_t slot_pa(Vagx *v, unsigned q, uint32_t idx)
{
    return v->ring[q] + (idx % RING_SLOTS) * VAGX_RING_ENTRY_SIZE;
}

/* Writes the job into the next slot, rings the doorbell; returns the slot. */
static uint64_t submit(Vagx *v, unsigned q, const struct vagx_job_header *h,
                       const uint32_t *payload)
{
    uint64_t slot = slot_pa(v, q, v->tail[q]);
    uint32_t w[VAGX_JOB_HEADER_DWORDS];
    const char *err = NULL;

    g_assert(vagx_job_header_validate(h, &err));
    vagx_job_header_pack(w, h);
    qtest_memset(v->qts, slot, 0, VAGX_RING_ENTRY_SIZE);
    write_words(v, slot + VAGX_RING_SLOT_HEADER_OFFSET, w,
                VAGX_JOB_HEADER_DWORDS);
    if (payload) {
        write_words(v, slot + VAGX_RING_SLOT_PAYLOAD_OFFSET, payload,
                    VAGX_RING_SLOT_PAYLOAD_SIZE / 4);
    }
    v->tail[q]++;
    qwr(v, q, VAGX_Q_TAIL, v->tail[q]);
    qwr(v, q, VAGX_Q_DOORBELL, 1);
    return slot;
}

static struct vagx_job_result slot_result(Vagx *v, uint64_t slot)
{
    uint32_t w[VAGX_JOB_RESULT_DWORDS];
    struct vagx_job_result r;
    const char *err = NULL;

    for (unsigned i = 0; i < VAGX_JOB_RESULT_DWORDS; i++) {
        w[i] = qtest_readl(v->qts, slot + VAGX_RING_SLOT_RESULT_OFFSET + 4 * i);
    }
    vagx_job_result_unpack(w, &r, &err);
    return r;
}

static void header_init(Vagx *v, struct vagx_job_header *h,
                        enum vagx_job_type type, uint64_t fence, uint64_t seq,
                        unsigned vector)
{
    vagx_job_header_init(h);
    h->type = type;
    h->irq = true;
    h->irq_vector = vector;
    h->pt_root = v->root;
    h->completion_pa = fence;
    h->seqno = seq;
}

static uint64_t submit_copy(Vagx *v, unsigned q, uint64_t src, uint64_t dst,
                            uint64_t size, uint64_t fence, uint64_t seq)
{
    struct vagx_job_header h;
    struct vagx_copy_job c;
    uint32_t payload[VAGX_RING_SLOT_PAYLOAD_SIZE / 4] = { 0 };

    header_init(v, &h, VAGX_JOB_TYPE_COPY, fence, seq, q);
    vagx_copy_job_init(&c);
    c.src_va = src;
    c.dst_va = dst;
    c.size = size;
    vagx_copy_job_pack(payload, &c);
    return submit(v, q, &h, payload);
}

/* A good copy job on queue q; asserts success, fence and MSI-X. */
static void run_good_copy(Vagx *v, unsigned q, uint64_t seq)
{
    uint64_t spa, dpa, fence = galloc(v, VAGX_PAGE_SIZE);
    uint64_t src = vm_buf(v, 8192, true, &spa);
    uint64_t dst = vm_buf(v, 8192, false, &dpa);
    g_autofree uint8_t *a = g_malloc(8192);
    g_autofree uint8_t *b = g_malloc(8192);
    uint64_t slot;

    for (int i = 0; i < 8192; i++) {
        a[i] = i * 7 + seq;
    }
    qtest_memwrite(v->qts, spa, a, 8192);
    msi_clear(v);
    slot = submit_copy(v, q, src + 100, dst + 100, 8000, fence, seq);
    g_assert(wait_u64(v, fence, seq));
    g_assert(wait_msi(v, q));
    g_assert_cmpuint(slot_result(v, slot).status, ==, VAGX_JOB_STATUS_OK);
    qtest_memread(v->qts, dpa, b, 8192);
    g_assert(memcmp(a + 100, b + 100, 8000) == 0);
    g_assert_cmpuint(b[99], ==, 0);
    g_assert_cmpuint(b[8100], ==, 0);
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                    */
/* ------------------------------------------------------------------------ */

static void test_identity(void)
{
    Vagx v;
    uint32_t cfg;

    vagx_start(&v, ",queues=3,workers=2");
    g_assert_cmphex(qpci_config_readw(v.dev, PCI_VENDOR_ID), ==,
                    VAGX_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(v.dev, PCI_DEVICE_ID), ==,
                    VAGX_PCI_DEVICE_ID);
    g_assert_cmphex(qpci_config_readw(v.dev, PCI_CLASS_DEVICE), ==,
                    VAGX_PCI_CLASS);
    g_assert_cmphex(qpci_config_readb(v.dev, PCI_REVISION_ID), ==,
                    VAGX_PCI_REVISION);
    g_assert_cmphex(qpci_config_readw(v.dev, PCI_SUBSYSTEM_VENDOR_ID), ==,
                    VAGX_PCI_SUBSYSTEM_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(v.dev, PCI_SUBSYSTEM_ID), ==,
                    VAGX_PCI_SUBSYSTEM_ID);
    g_assert_cmpuint(qpci_msix_table_size(v.dev), ==, VAGX_MSIX_VECTORS);
    g_assert_cmpuint(v.dev->msix_table_off, ==, VAGX_MSIX_TABLE_OFFSET);
    g_assert_cmpuint(v.dev->msix_pba_off, ==, VAGX_MSIX_PBA_OFFSET);

    g_assert_cmphex(rd(&v, VAGX_REG_ID), ==, VAGX_ID_MAGIC);
    g_assert_cmphex(rd(&v, VAGX_REG_VERSION), ==,
                    VAGX_VERSION_MAJOR(VAGX_HW_VERSION_MAJOR) |
                    VAGX_VERSION_MINOR(VAGX_HW_VERSION_MINOR));
    cfg = rd(&v, VAGX_REG_CONFIG);
    g_assert_cmpuint(VAGX_CONFIG_NUM_QUEUES_GET(cfg), ==, 3);
    g_assert_cmpuint(VAGX_CONFIG_NUM_CORES_GET(cfg), ==, 2);
    g_assert_cmpuint(VAGX_CONFIG_NUM_MSIX_GET(cfg), ==, VAGX_MSIX_VECTORS);
    g_assert_cmpuint(VAGX_CONFIG_NUM_SCANOUTS_GET(cfg), ==,
                     VAGX_SCANOUT_MAX_HEADS);
    g_assert_cmphex(rd(&v, VAGX_REG_TIMESTAMP_FREQ), ==,
                    VAGX_REG_TIMESTAMP_FREQ_RESET);
    g_assert_cmphex(rd(&v, VAGX_REG_SCANOUT_REFRESH), ==,
                    VAGX_SCANOUT_REFRESH_MHZ);
    g_assert(rd(&v, VAGX_REG_STATUS) & VAGX_STATUS_IDLE(1));
    wr(&v, VAGX_REG_SCRATCH, 0xdeadbeef);
    g_assert_cmphex(rd(&v, VAGX_REG_SCRATCH), ==, 0xdeadbeef);
    /* 64-bit access: two registers. */
    g_assert_cmphex(qpci_io_readq(v.dev, v.bar0, VAGX_REG_ID), ==,
                    ((uint64_t)rd(&v, VAGX_REG_VERSION) << 32) | VAGX_ID_MAGIC);
    /* The reserved part of BAR0 reads as zero and ignores writes. */
    wr(&v, VAGX_MSIX_TABLE_OFFSET + 0x1000, 0x12345678);
    g_assert_cmphex(rd(&v, VAGX_MSIX_TABLE_OFFSET + 0x1000), ==, 0);
    vagx_stop(&v);
}

static void test_interrupt_selftest(void)
{
    Vagx v;

    vagx_start(&v, NULL);
    msi_clear(&v);
    wr(&v, VAGX_REG_INT_ENABLE, INT_ALL);
    wr(&v, VAGX_REG_INT_RAISE, VAGX_INT_DEVICE_ERROR(1));
    g_assert(wait_msi(&v, VAGX_MSIX_VECTOR_ERROR));
    g_assert(rd(&v, VAGX_REG_INT_STATUS) & VAGX_INT_DEVICE_ERROR(1));
    wr(&v, VAGX_REG_INT_STATUS, VAGX_INT_DEVICE_ERROR(1));
    g_assert_cmphex(rd(&v, VAGX_REG_INT_STATUS) & VAGX_INT_DEVICE_ERROR(1),
                    ==, 0);
    /* A masked vector sets its PBA bit instead of writing. */
    msi_clear(&v);
    qpci_io_writel(v.dev, v.dev->msix_table_bar, v.dev->msix_table_off +
                   VAGX_MSIX_VECTOR_DISPLAY * PCI_MSIX_ENTRY_SIZE +
                   PCI_MSIX_ENTRY_VECTOR_CTRL, PCI_MSIX_ENTRY_CTRL_MASKBIT);
    wr(&v, VAGX_REG_INT_RAISE, VAGX_INT_VBLANK(1));
    g_assert(qpci_msix_pending(v.dev, VAGX_MSIX_VECTOR_DISPLAY));
    g_assert_cmphex(msi_word(&v, VAGX_MSIX_VECTOR_DISPLAY), ==, 0);
    vagx_stop(&v);
}

static void test_reset(void)
{
    Vagx v;

    vagx_start(&v, NULL);
    /* Global reset through the register. */
    ring_setup(&v, 0);
    msi_clear(&v);
    wr(&v, VAGX_REG_RESET, VAGX_RESET_START(1));
    g_assert(wait_reg(&v, VAGX_REG_STATUS, VAGX_STATUS_RESET_BUSY__MASK, 0));
    g_assert(rd(&v, VAGX_REG_INT_STATUS) & VAGX_INT_RESET_DONE(1));
    g_assert(wait_msi(&v, VAGX_MSIX_VECTOR_ERROR));
    g_assert_cmpuint(VAGX_Q_STATUS_STATE_GET(qrd(&v, 0, VAGX_Q_STATUS)), ==,
                     VAGX_QUEUE_STATE_STOPPED);
    ring_setup(&v, 0);
    run_good_copy(&v, 0, 1);

    /* System reset: config space, MSI-X and every register back to reset. */
    wr(&v, VAGX_REG_SCRATCH, 0x1234);
    qtest_qmp_assert_success(v.qts, "{'execute':'system_reset'}");
    qtest_qmp_eventwait(v.qts, "RESET");
    g_assert_cmphex(qpci_config_readw(v.dev, PCI_COMMAND) &
                    PCI_COMMAND_MASTER, ==, 0);
    vagx_probe(&v);
    g_assert_cmphex(rd(&v, VAGX_REG_SCRATCH), ==, 0);
    g_assert_cmphex(rd(&v, VAGX_REG_INT_ENABLE), ==, 0);
    g_assert_cmpuint(VAGX_Q_STATUS_STATE_GET(qrd(&v, 0, VAGX_Q_STATUS)), ==,
                     VAGX_QUEUE_STATE_STOPPED);
    ring_setup(&v, 0);
    run_good_copy(&v, 0, 2);
    vagx_stop(&v);
}

static void test_copy(void)
{
    Vagx v;

    vagx_start(&v, NULL);
    for (unsigned q = 0; q < 4; q++) {
        ring_setup(&v, q);
    }
    for (unsigned i = 0; i < 2 * RING_SLOTS + 3; i++) {    /* wraps */
        unsigned q = i % 4;

        run_good_copy(&v, q, 100 + i);
        g_assert_cmpuint(qrd(&v, q, VAGX_Q_LAST_SEQNO_LO), ==, 100 + i);
        g_assert_cmpuint(qrd(&v, q, VAGX_Q_HEAD), ==, v.tail[q]);
    }
    g_assert(rd(&v, VAGX_REG_INT_STATUS) & VAGX_INT_JOB_DONE(0));
    /* Bus mastering off: the job cannot even be fetched. */
    qpci_config_writew(v.dev, PCI_COMMAND, PCI_COMMAND_MEMORY);
    {
        uint64_t fence = galloc(&v, VAGX_PAGE_SIZE);

        submit_copy(&v, 0, VA_BASE, VA_BASE + 0x100000, 16, fence, 77);
        g_usleep(100 * 1000);
        g_assert_cmphex(qtest_readq(v.qts, fence), ==, 0);
    }
    vagx_stop(&v);
}

/* Encodes n instructions with vagx_isa.h and writes them at code_pa. */
static void write_program(Vagx *v, uint64_t code_pa,
                          const struct vagx_instr *I, unsigned n)
{
    uint64_t words[4 * 16];
    unsigned nw = 0;

    g_assert_cmpuint(n, <=, 16);
    for (unsigned i = 0; i < n; i++) {
        int r = vagx_encode(&I[i], &words[nw]);

        g_assert_cmpint(r, >, 0);
        nw += r;
    }
    for (unsigned i = 0; i < nw; i++) {
        qtest_writeq(v->qts, code_pa + 8 * i, words[i]);
    }
}

/* dst = r[src] * mul + add (imad with the extension word). */
static void imad_imm(struct vagx_instr *I, unsigned dst, unsigned src,
                     uint32_t mul, uint32_t add)
{
    I->op = VAGX_OP_IMAD; I->dst = dst; I->x = 1;
    I->src[0].idx = src;
    I->src[1].file = VAGX_FILE_IMM; I->src[1].idx = 0;
    I->src[2].file = VAGX_FILE_IMM; I->src[2].idx = 1;
    I->imm[0] = mul; I->imm[1] = add;
}

/* out[i] = i * 3 + 7 for i = global thread index, via st_global. */
static void build_compute_program(Vagx *v, uint64_t code_pa)
{
    struct vagx_instr I[8];

    memset(I, 0, sizeof(I));
    /* r0 = tgid_x */
    I[0].op = VAGX_OP_MOV; I[0].dst = 0;
    I[0].src[0].file = VAGX_FILE_SR; I[0].src[0].idx = VAGX_SR_TGID_X;
    /* r1 = tgsize_x */
    I[1].op = VAGX_OP_MOV; I[1].dst = 1;
    I[1].src[0].file = VAGX_FILE_SR; I[1].src[0].idx = VAGX_SR_TGSIZE_X;
    /* r2 = tindex */
    I[2].op = VAGX_OP_MOV; I[2].dst = 2;
    I[2].src[0].file = VAGX_FILE_SR; I[2].src[0].idx = VAGX_SR_TINDEX;
    /* r0 = r0 * r1 + r2 */
    I[3].op = VAGX_OP_IMAD; I[3].dst = 0;
    I[3].src[0].idx = 0; I[3].src[1].idx = 1; I[3].src[2].idx = 2;
    imad_imm(&I[4], 3, 0, 3, 7);            /* r3 = r0 * 3 + 7 */
    imad_imm(&I[5], 1, 0, 4, 0);            /* r1 = r0 << 2 */
    /* store.b32 [u0:u1 + r1] = r3 */
    I[6].op = VAGX_OP_ST_GLOBAL; I[6].mod = VAGX_MEMSIZE_B32;
    I[6].src[0].file = VAGX_FILE_U; I[6].src[0].idx = 0;
    I[6].src[1].idx = 1;
    I[6].src[2].idx = 3;
    I[7].op = VAGX_OP_END;
    write_program(v, code_pa, I, ARRAY_SIZE(I));
}

/* groups x tg threads of the program at code_va, 8 GPRs, two uniforms
 * (a 64-bit pointer) at uni_va. */
static void compute_desc(struct vagx_compute_job *cj, uint32_t groups,
                         uint32_t tg, uint64_t code_va, uint64_t uni_va)
{
    vagx_compute_job_init(cj);
    cj->grid_x = groups;
    cj->grid_y = cj->grid_z = 1;
    cj->tg_x = tg;
    cj->tg_y = cj->tg_z = 1;
    cj->program.code_va = code_va;
    cj->program.gpr_count = 8;
    cj->program.uniform_count = 2;
    cj->program.uniform_va = uni_va;
}

static void test_compute(void)
{
    Vagx v;
    const unsigned groups = 5, tg = 48, total = groups * tg;
    uint64_t code_pa, uni_pa, out_pa, desc_pa, fence, slot;
    uint64_t code_va, uni_va, out_va, desc_va;
    struct vagx_compute_job cj;
    struct vagx_job_header h;
    uint32_t w[VAGX_COMPUTE_JOB_LENGTH / 4];
    const char *err = NULL;

    vagx_start(&v, NULL);
    ring_setup(&v, 1);
    code_va = vm_buf(&v, VAGX_PAGE_SIZE, true, &code_pa);
    uni_va = vm_buf(&v, VAGX_PAGE_SIZE, true, &uni_pa);
    out_va = vm_buf(&v, total * 4, false, &out_pa);
    desc_va = vm_buf(&v, VAGX_PAGE_SIZE, true, &desc_pa);
    fence = galloc(&v, VAGX_PAGE_SIZE);
    build_compute_program(&v, code_pa);
    qtest_writel(v.qts, uni_pa, (uint32_t)out_va);
    qtest_writel(v.qts, uni_pa + 4, out_va >> 32);

    compute_desc(&cj, groups, tg, code_va, uni_va);
    g_assert(vagx_compute_job_validate(&cj, &err));
    vagx_compute_job_pack(w, &cj);
    write_words(&v, desc_pa, w, VAGX_COMPUTE_JOB_LENGTH / 4);

    header_init(&v, &h, VAGX_JOB_TYPE_COMPUTE, fence, 9, 1);
    h.desc_va = desc_va;
    h.desc_size = VAGX_COMPUTE_JOB_LENGTH;
    msi_clear(&v);
    slot = submit(&v, 1, &h, NULL);
    g_assert(wait_u64(&v, fence, 9));
    g_assert(wait_msi(&v, 1));
    {
        struct vagx_job_result r = slot_result(&v, slot);

        if (r.status != VAGX_JOB_STATUS_OK) {
            g_test_message("compute: status %u unit %u detail 0x%x addr 0x%"
                           PRIx64, r.status, r.unit, r.detail, r.address);
        }
        g_assert_cmpuint(r.status, ==, VAGX_JOB_STATUS_OK);
    }
    for (unsigned i = 0; i < total; i++) {
        g_assert_cmpuint(qtest_readl(v.qts, out_pa + 4 * i), ==, i * 3 + 7);
    }
    vagx_stop(&v);
}

static void test_mmu_fault(void)
{
    Vagx v;
    uint64_t fence, slot, ro, rw, unmapped;
    uint32_t fs;
    struct vagx_job_result r;

    vagx_start(&v, NULL);
    ring_setup(&v, 2);
    fence = galloc(&v, VAGX_PAGE_SIZE);
    ro = vm_buf(&v, VAGX_PAGE_SIZE, true, NULL);
    rw = vm_buf(&v, VAGX_PAGE_SIZE, false, NULL);
    unmapped = v.next_va + 0x10000;

    /* Read from a VA nobody mapped. */
    msi_clear(&v);
    slot = submit_copy(&v, 2, unmapped + 0x10, rw, 64, fence, 5);
    g_assert(wait_qstate(&v, 2, VAGX_QUEUE_STATE_HALTED));
    g_assert(wait_msi(&v, 2));
    g_assert(wait_msi(&v, VAGX_MSIX_VECTOR_ERROR));
    r = slot_result(&v, slot);
    g_assert_cmpuint(r.status, ==, VAGX_JOB_STATUS_MMU_FAULT);
    g_assert_cmphex(r.address, ==, unmapped + 0x10);
    g_assert_cmpuint(VAGX_Q_STATUS_ERROR_GET(qrd(&v, 2, VAGX_Q_STATUS)), ==,
                     VAGX_JOB_STATUS_MMU_FAULT);
    fs = rd(&v, VAGX_REG_FAULT_STATUS);
    g_assert(VAGX_FAULT_STATUS_VALID_GET(fs));
    g_assert_cmpuint(VAGX_FAULT_STATUS_ACCESS_GET(fs), ==,
                     VAGX_FAULT_ACCESS_READ);
    g_assert_cmpuint(VAGX_FAULT_STATUS_REASON_GET(fs), ==,
                     VAGX_FAULT_REASON_NOT_PRESENT);
    g_assert_cmpuint(VAGX_FAULT_STATUS_UNIT_GET(fs), ==, VAGX_UNIT_COPY);
    g_assert_cmpuint(VAGX_FAULT_STATUS_QUEUE_GET(fs), ==, 2);
    g_assert_cmphex(rd(&v, VAGX_REG_FAULT_ADDR_LO), ==,
                    (uint32_t)(unmapped + 0x10));
    g_assert_cmphex(rd(&v, VAGX_REG_FAULT_ADDR_HI), ==,
                    (unmapped + 0x10) >> 32);
    g_assert_cmphex(rd(&v, VAGX_REG_FAULT_ROOT_LO), ==, (uint32_t)v.root);
    g_assert(rd(&v, VAGX_REG_INT_STATUS) & VAGX_INT_MMU_FAULT(1));
    g_assert(rd(&v, VAGX_REG_INT_STATUS) & VAGX_INT_QUEUE_ERROR(2));
    /* Failed jobs still complete: result first, then the fence. */
    g_assert(wait_u64(&v, fence, 5));

    /* Write to a read-only page. */
    wr(&v, VAGX_REG_FAULT_ACK, VAGX_FAULT_ACK_ACK(1));
    g_assert_cmphex(rd(&v, VAGX_REG_FAULT_STATUS), ==, 0);
    qwr(&v, 2, VAGX_Q_RESUME, 1);
    g_assert(wait_qstate(&v, 2, VAGX_QUEUE_STATE_IDLE));
    slot = submit_copy(&v, 2, rw, ro + 8, 64, fence, 6);
    g_assert(wait_qstate(&v, 2, VAGX_QUEUE_STATE_HALTED));
    r = slot_result(&v, slot);
    g_assert_cmpuint(r.status, ==, VAGX_JOB_STATUS_MMU_FAULT);
    fs = rd(&v, VAGX_REG_FAULT_STATUS);
    g_assert(VAGX_FAULT_STATUS_VALID_GET(fs));
    g_assert_cmpuint(VAGX_FAULT_STATUS_ACCESS_GET(fs), ==,
                     VAGX_FAULT_ACCESS_WRITE);
    g_assert_cmpuint(VAGX_FAULT_STATUS_REASON_GET(fs), ==,
                     VAGX_FAULT_REASON_READ_ONLY);

    /* A page-table root outside guest RAM. */
    wr(&v, VAGX_REG_FAULT_ACK, VAGX_FAULT_ACK_ACK(1));
    qwr(&v, 2, VAGX_Q_RESUME, 1);
    g_assert(wait_qstate(&v, 2, VAGX_QUEUE_STATE_IDLE));
    {
        uint64_t saved = v.root;

        v.root = 0xfff0000000ull;
        slot = submit_copy(&v, 2, rw, rw + 64, 64, fence, 7);
        v.root = saved;
    }
    g_assert(wait_qstate(&v, 2, VAGX_QUEUE_STATE_HALTED));
    r = slot_result(&v, slot);
    g_assert_cmpuint(r.status, !=, VAGX_JOB_STATUS_OK);
    g_assert_cmpuint(r.status, !=, VAGX_JOB_STATUS_PENDING);

    /* The queue still works afterwards. */
    wr(&v, VAGX_REG_FAULT_ACK, VAGX_FAULT_ACK_ACK(1));
    qwr(&v, 2, VAGX_Q_RESUME, 1);
    g_assert(wait_qstate(&v, 2, VAGX_QUEUE_STATE_IDLE));
    run_good_copy(&v, 2, 8);
    vagx_stop(&v);
}

/*
 * A copy that runs for a long time: 256 GiB from a NULL (sparse) subtree to
 * a NULL subtree.  Level-0 NULL entries cover 512 GiB each.
 */
static uint64_t long_job_va(Vagx *v)
{
    struct vagx_pte pte;
    uint64_t va = 0x800000000000ull - 0x10000000000ull;    /* top 1 TiB */

    vagx_pte_init(&pte);
    pte.valid = true;
    pte.null = true;
    write_pte(v, vagx_pt_entry_pa(v->root, va, 0), &pte);
    write_pte(v, vagx_pt_entry_pa(v->root, va + vagx_pt_entry_span(0), 0),
              &pte);
    return va;
}

static void test_abort_and_queue_reset(void)
{
    Vagx v;
    uint64_t fence, slot, nva;
    struct vagx_job_result r;

    vagx_start(&v, NULL);
    ring_setup(&v, 0);
    fence = galloc(&v, VAGX_PAGE_SIZE);
    nva = long_job_va(&v);

    /* Abort: the job completes with ABORTED and the queue halts. */
    msi_clear(&v);
    slot = submit_copy(&v, 0, nva, nva + 0x4000000000ull, 0x4000000000ull,
                       fence, 11);
    g_assert(wait_qstate(&v, 0, VAGX_QUEUE_STATE_RUNNING) ||
             VAGX_Q_STATUS_STATE_GET(qrd(&v, 0, VAGX_Q_STATUS)) ==
             VAGX_QUEUE_STATE_HALTED);
    qwr(&v, 0, VAGX_Q_ABORT, VAGX_Q_ABORT_ABORT(1));
    g_assert(wait_qstate(&v, 0, VAGX_QUEUE_STATE_HALTED));
    r = slot_result(&v, slot);
    g_assert_cmpuint(r.status, ==, VAGX_JOB_STATUS_ABORTED);
    g_assert_cmpuint(VAGX_Q_STATUS_ERROR_GET(qrd(&v, 0, VAGX_Q_STATUS)), ==,
                     VAGX_JOB_STATUS_ABORTED);
    g_assert(wait_msi(&v, 0));
    qwr(&v, 0, VAGX_Q_RESUME, 1);
    g_assert(wait_qstate(&v, 0, VAGX_QUEUE_STATE_IDLE));
    run_good_copy(&v, 0, 12);

    /* Queue reset while a job runs: no result, no completion, STOPPED. */
    qtest_writeq(v.qts, fence, 0);
    slot = submit_copy(&v, 0, nva, nva + 0x4000000000ull, 0x4000000000ull,
                       fence, 13);
    g_assert(wait_qstate(&v, 0, VAGX_QUEUE_STATE_RUNNING));
    msi_clear(&v);
    qwr(&v, 0, VAGX_Q_RESET, VAGX_Q_RESET_START(1));
    g_assert(wait_qstate(&v, 0, VAGX_QUEUE_STATE_STOPPED));
    g_assert(wait_reg(&v, VAGX_QUEUE_REG(0, VAGX_Q_RESET),
                      VAGX_Q_RESET_START__MASK, 0));
    g_assert_cmpuint(qrd(&v, 0, VAGX_Q_HEAD), ==, 0);
    g_assert_cmpuint(qrd(&v, 0, VAGX_Q_TAIL), ==, 0);
    g_assert_cmpuint(qrd(&v, 0, VAGX_Q_CONTROL), ==, 0);
    g_assert(rd(&v, VAGX_REG_INT_STATUS) & VAGX_INT_RESET_DONE(1));
    g_assert(wait_msi(&v, VAGX_MSIX_VECTOR_ERROR));
    g_assert_cmphex(qtest_readq(v.qts, fence), ==, 0);
    g_assert_cmpuint(slot_result(&v, slot).status, ==,
                     VAGX_JOB_STATUS_PENDING);
    ring_setup(&v, 0);
    run_good_copy(&v, 0, 14);

    /* System reset while a job runs: QEMU must quiesce, not hang. */
    submit_copy(&v, 0, nva, nva + 0x4000000000ull, 0x4000000000ull, fence, 15);
    g_assert(wait_qstate(&v, 0, VAGX_QUEUE_STATE_RUNNING));
    qtest_qmp_assert_success(v.qts, "{'execute':'system_reset'}");
    qtest_qmp_eventwait(v.qts, "RESET");
    vagx_probe(&v);
    g_assert_cmpuint(VAGX_Q_STATUS_STATE_GET(qrd(&v, 0, VAGX_Q_STATUS)), ==,
                     VAGX_QUEUE_STATE_STOPPED);
    ring_setup(&v, 0);
    run_good_copy(&v, 0, 16);
    vagx_stop(&v);
}

/* Q_ABORT with MATCH=1 aborts only the job whose seqno matches (1.1). */
static uint32_t abort_match(Vagx *v, unsigned q, uint64_t seq)
{
    qwr(v, q, VAGX_Q_ABORT_MATCH_LO, (uint32_t)seq);
    qwr(v, q, VAGX_Q_ABORT_MATCH_HI, seq >> 32);
    qwr(v, q, VAGX_Q_ABORT, VAGX_Q_ABORT_ABORT(1) | VAGX_Q_ABORT_MATCH(1));
    return VAGX_Q_ABORT_STATUS_RESULT_GET(qrd(v, q, VAGX_Q_ABORT_STATUS));
}

static void test_abort_match(void)
{
    Vagx v;
    uint64_t fence, slot, nva;
    const uint64_t seq = 0x500000021ull;
    gint64 end;

    vagx_start(&v, NULL);
    ring_setup(&v, 1);
    fence = galloc(&v, VAGX_PAGE_SIZE);
    nva = long_job_va(&v);
    g_assert_cmpuint(VAGX_Q_ABORT_STATUS_RESULT_GET(
                         qrd(&v, 1, VAGX_Q_ABORT_STATUS)), ==,
                     VAGX_ABORT_RESULT_NONE);
    g_assert_cmpuint(abort_match(&v, 1, seq), ==,
                     VAGX_ABORT_RESULT_NOT_RUNNING);

    /* A job that already completed (seq - 1) and a job whose seqno differs
     * only in the high half: the running job is not touched. */
    run_good_copy(&v, 1, seq - 1);
    slot = submit_copy(&v, 1, nva, nva + 0x4000000000ull, 0x4000000000ull,
                       fence, seq);
    g_assert(wait_qstate(&v, 1, VAGX_QUEUE_STATE_RUNNING));
    g_assert_cmpuint(abort_match(&v, 1, seq - 1), ==,
                     VAGX_ABORT_RESULT_MISMATCH);
    g_assert_cmpuint(abort_match(&v, 1, seq ^ (1ull << 32)), ==,
                     VAGX_ABORT_RESULT_MISMATCH);
    g_assert_cmphex(qrd(&v, 1, VAGX_Q_ABORT_MATCH_HI), ==,
                    (seq ^ (1ull << 32)) >> 32);
    end = g_get_monotonic_time() + 100 * 1000;
    while (g_get_monotonic_time() < end) {
        g_assert_cmpuint(VAGX_Q_STATUS_STATE_GET(qrd(&v, 1, VAGX_Q_STATUS)),
                         ==, VAGX_QUEUE_STATE_RUNNING);
        g_usleep(10 * 1000);
    }
    g_assert_cmpuint(slot_result(&v, slot).status, ==,
                     VAGX_JOB_STATUS_PENDING);

    /* The matching seqno aborts it: result, completion and halt. */
    msi_clear(&v);
    g_assert_cmpuint(abort_match(&v, 1, seq), ==, VAGX_ABORT_RESULT_ACCEPTED);
    g_assert(wait_qstate(&v, 1, VAGX_QUEUE_STATE_HALTED));
    g_assert_cmpuint(slot_result(&v, slot).status, ==,
                     VAGX_JOB_STATUS_ABORTED);
    g_assert(wait_u64(&v, fence, seq));
    g_assert_cmphex(qrd(&v, 1, VAGX_Q_LAST_SEQNO_HI), ==, seq >> 32);
    g_assert(wait_msi(&v, 1));
    g_assert_cmpuint(abort_match(&v, 1, seq), ==,
                     VAGX_ABORT_RESULT_NOT_RUNNING);
    qwr(&v, 1, VAGX_Q_RESUME, 1);
    g_assert(wait_qstate(&v, 1, VAGX_QUEUE_STATE_IDLE));
    run_good_copy(&v, 1, seq + 1);
    vagx_stop(&v);
}

/* ------------------------------------------------------------------------ */
/* Scanout                                                                  */
/* ------------------------------------------------------------------------ */

#define FB_W 64
#define FB_H 48
#define FB_PITCH (FB_W * 4 + 64)

static uint32_t fb_pixel(unsigned x, unsigned y)
{
    return ((x * 4) << 16) | ((y * 5) << 8) | ((x ^ y) & 0xff);
}

/* Expected 0x00RRGGBB of what the framebuffer word shows in `format`. */
static uint32_t expect_rgb(uint32_t word, uint32_t format)
{
    if (format == VAGX_SCANOUT_FORMAT_XBGR8888) {
        return ((word & 0xff) << 16) | (word & 0xff00) | ((word >> 16) & 0xff);
    }
    return word & 0xffffff;
}

/* A cursor image of CUR_W x CUR_H: opaque red rows, then transparent. */
#define CUR_W 16
#define CUR_H 8
#define CUR_PITCH (CUR_W * 4 + 32)
#define CUR_OPAQUE_ROWS 5
#define CUR_RED 0xffff0000u

struct cursor_at {
    bool on;
    int x, y;
};

/* The composed pixel at (x, y): the framebuffer's, or the cursor's. */
static uint32_t expect_pixel(int x, int y, uint32_t format, bool black,
                             const struct cursor_at *c)
{
    if (black) {
        return 0;
    }
    if (c && c->on && x - c->x >= 0 && x - c->x < CUR_W &&
        y - c->y >= 0 && y - c->y < CUR_OPAQUE_ROWS) {
        return CUR_RED & 0xffffff;
    }
    return expect_rgb(fb_pixel(x, y), format);
}

static void screendump_check_cursor(Vagx *v, uint32_t format, bool black,
                                    const struct cursor_at *c);

static void screendump_check(Vagx *v, uint32_t format, bool black)
{
    screendump_check_cursor(v, format, black, NULL);
}

static void screendump_check_head(Vagx *v, unsigned head, uint32_t format,
                                  bool black, const struct cursor_at *c);

static void screendump_check_cursor(Vagx *v, uint32_t format, bool black,
                                    const struct cursor_at *c)
{
    screendump_check_head(v, 0, format, black, c);
}

/* Head `head`'s console (the device's graphic console number `head`). */
static void screendump_check_head(Vagx *v, unsigned head, uint32_t format,
                                  bool black, const struct cursor_at *c)
{
    g_autofree char *ppm = g_strdup_printf("%s/vagx-test-%d.ppm",
                                           g_get_tmp_dir(), getpid());
    g_autofree char *png = g_strdup_printf("%s/vagx-test-%d.png",
                                           g_get_tmp_dir(), getpid());
    g_autofree char *data = NULL;
    gsize len = 0;
    int w = 0, h = 0, max = 0, hdr = 0;

    qtest_qmp_assert_success(v->qts, "{'execute':'screendump','arguments':"
                             "{'filename':%s,'device':'gpu0','head':%u}}",
                             ppm, head);
    g_assert(g_file_get_contents(ppm, &data, &len, NULL));
    unlink(ppm);
    g_assert_cmpint(sscanf(data, "P6 %d %d %d%n", &w, &h, &max, &hdr), ==, 3);
    g_assert_cmpint(w, ==, FB_W);
    g_assert_cmpint(h, ==, FB_H);
    g_assert_cmpint(max, ==, 255);
    hdr++;                                  /* the single whitespace */
    g_assert_cmpuint(len, ==, hdr + FB_W * FB_H * 3);
    for (int y = 0; y < FB_H; y++) {
        for (int x = 0; x < FB_W; x++) {
            const uint8_t *p = (const uint8_t *)data + hdr + 3 * (y * FB_W + x);
            uint32_t got = (p[0] << 16) | (p[1] << 8) | p[2];
            uint32_t want = expect_pixel(x, y, format, black, c);

            if (got != want) {
                g_test_message("pixel %d,%d: got %06x want %06x", x, y, got,
                               want);
                g_assert_not_reached();
            }
        }
    }

    /* PNG works too (QEMU is built with libpng). */
    qtest_qmp_assert_success(v->qts, "{'execute':'screendump','arguments':"
                             "{'filename':%s,'device':'gpu0','head':%u,"
                             "'format':'png'}}", png, head);
    g_free(data);
    data = NULL;
    g_assert(g_file_get_contents(png, &data, &len, NULL));
    unlink(png);
    g_assert_cmpuint(len, >, 24);
    g_assert(memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0);
    g_assert_cmpuint(ldl_be_p(data + 16), ==, FB_W);   /* IHDR */
    g_assert_cmpuint(ldl_be_p(data + 20), ==, FB_H);
}

/* A FB_W x FB_H fb_pixel() framebuffer at fb_va, shadow registers written
 * (XRGB8888) but not committed. */
static void scanout_fb_setup(Vagx *v, uint64_t fb_va)
{
    uint64_t pages[(FB_PITCH * FB_H + (VAGX_PAGE_SIZE - 1)) / VAGX_PAGE_SIZE];
    const unsigned npages = ARRAY_SIZE(pages);

    /* Framebuffer pages scattered in reverse order, mapped contiguously. */
    for (unsigned i = 0; i < npages; i++) {
        pages[i] = galloc(v, VAGX_PAGE_SIZE);
    }
    for (unsigned i = 0; i < npages; i++) {
        vm_map(v, v->root, fb_va + VAGX_PAGE_SIZE * i, pages[npages - 1 - i],
               true);
    }
    for (unsigned y = 0; y < FB_H; y++) {
        for (unsigned x = 0; x < FB_W; x++) {
            uint64_t off = (uint64_t)y * FB_PITCH + 4 * x;

            qtest_writel(v->qts,
                         pages[npages - 1 - off / VAGX_PAGE_SIZE] +
                         off % VAGX_PAGE_SIZE,
                         fb_pixel(x, y));
        }
    }
    wr(v, VAGX_REG_SCANOUT_FORMAT, VAGX_SCANOUT_FORMAT_XRGB8888);
    wr(v, VAGX_REG_SCANOUT_SIZE, VAGX_SCANOUT_SIZE_WIDTH(FB_W) |
                                 VAGX_SCANOUT_SIZE_HEIGHT(FB_H));
    wr(v, VAGX_REG_SCANOUT_PITCH, FB_PITCH);
    wr(v, VAGX_REG_SCANOUT_FB_VA_LO, (uint32_t)fb_va);
    wr(v, VAGX_REG_SCANOUT_FB_VA_HI, fb_va >> 32);
    wr(v, VAGX_REG_SCANOUT_ROOT_LO, (uint32_t)v->root);
    wr(v, VAGX_REG_SCANOUT_ROOT_HI, v->root >> 32);
}

/* One refresh period of QEMU_CLOCK_VIRTUAL, from the contract. */
#define FRAME_NS (1000000000000ll / VAGX_SCANOUT_REFRESH_MHZ)

static uint64_t read_timestamp(Vagx *v)
{
    uint32_t lo = rd(v, VAGX_REG_TIMESTAMP_LO);

    return (uint64_t)rd(v, VAGX_REG_TIMESTAMP_HI) << 32 | lo;
}

static uint64_t read_vblank_ts(Vagx *v)
{
    uint32_t lo = rd(v, VAGX_REG_SCANOUT_VBLANK_TS_LO);

    return (uint64_t)rd(v, VAGX_REG_SCANOUT_VBLANK_TS_HI) << 32 | lo;
}

static void test_scanout(void)
{
    Vagx v;
    uint64_t fb_va = 0x7f0000000ull;
    uint32_t count;

    vagx_start(&v, NULL);
    scanout_fb_setup(&v, fb_va);
    wr(&v, VAGX_REG_INT_ENABLE, INT_ALL);
    msi_clear(&v);
    wr(&v, VAGX_REG_SCANOUT_COMMIT, VAGX_SCANOUT_COMMIT_PENDING(1));
    g_assert_cmpuint(rd(&v, VAGX_REG_SCANOUT_STATUS), ==,
                     VAGX_SCANOUT_STATUS_CONNECTED(1));
    wr(&v, VAGX_REG_SCANOUT_CONTROL, VAGX_SCANOUT_CONTROL_ENABLE(1));

    /* Vblanks follow QEMU_CLOCK_VIRTUAL: step two frames. */
    count = rd(&v, VAGX_REG_SCANOUT_VBLANK_COUNT);
    qtest_clock_step(v.qts, 2 * 1000000000000ll / VAGX_SCANOUT_REFRESH_MHZ);
    g_assert_cmpuint(rd(&v, VAGX_REG_SCANOUT_VBLANK_COUNT) - count, >=, 1);
    g_assert(rd(&v, VAGX_REG_INT_STATUS) & VAGX_INT_VBLANK(1));
    g_assert(wait_msi(&v, VAGX_MSIX_VECTOR_DISPLAY));
    screendump_check(&v, VAGX_SCANOUT_FORMAT_XRGB8888, false);

    /* Page flip to another format: takes effect at the next vblank. */
    wr(&v, VAGX_REG_SCANOUT_FORMAT, VAGX_SCANOUT_FORMAT_XBGR8888);
    wr(&v, VAGX_REG_SCANOUT_COMMIT, VAGX_SCANOUT_COMMIT_PENDING(1));
    g_assert(rd(&v, VAGX_REG_SCANOUT_COMMIT) & VAGX_SCANOUT_COMMIT_PENDING(1));
    qtest_clock_step(v.qts, 2 * 1000000000000ll / VAGX_SCANOUT_REFRESH_MHZ);
    g_assert_cmpuint(rd(&v, VAGX_REG_SCANOUT_COMMIT) &
                     VAGX_SCANOUT_COMMIT_PENDING(1), ==, 0);
    screendump_check(&v, VAGX_SCANOUT_FORMAT_XBGR8888, false);

    /* Framebuffer not mapped: black, SCANOUT_STATUS.FAULT, fault latched. */
    wr(&v, VAGX_REG_SCANOUT_FB_VA_LO, (uint32_t)(fb_va + 0x100000));
    wr(&v, VAGX_REG_SCANOUT_COMMIT, VAGX_SCANOUT_COMMIT_PENDING(1));
    qtest_clock_step(v.qts, 2 * 1000000000000ll / VAGX_SCANOUT_REFRESH_MHZ);
    screendump_check(&v, VAGX_SCANOUT_FORMAT_XBGR8888, true);
    g_assert(rd(&v, VAGX_REG_SCANOUT_STATUS) & VAGX_SCANOUT_STATUS_FAULT(1));
    g_assert_cmpuint(VAGX_FAULT_STATUS_UNIT_GET(rd(&v, VAGX_REG_FAULT_STATUS)),
                     ==, VAGX_UNIT_SCANOUT);
    g_assert_cmpuint(VAGX_FAULT_STATUS_QUEUE_GET(rd(&v, VAGX_REG_FAULT_STATUS)),
                     ==, VAGX_FAULT_QUEUE_SCANOUT);

    /* Disabled: black, and no more vblanks. */
    wr(&v, VAGX_REG_SCANOUT_CONTROL, 0);
    qtest_clock_step(v.qts, 2 * 1000000000000ll / VAGX_SCANOUT_REFRESH_MHZ);
    count = rd(&v, VAGX_REG_SCANOUT_VBLANK_COUNT);
    qtest_clock_step(v.qts, 4 * 1000000000000ll / VAGX_SCANOUT_REFRESH_MHZ);
    g_assert_cmpuint(rd(&v, VAGX_REG_SCANOUT_VBLANK_COUNT), ==, count);
    vagx_stop(&v);
}

/* CRC-32 (ISO-HDLC) of the expected frame, as registers.md defines it. */
static uint32_t expect_crc(uint32_t format, bool black,
                           const struct cursor_at *c)
{
    uint32_t crc = 0xffffffffu;

    for (int y = 0; y < FB_H; y++) {
        for (int x = 0; x < FB_W; x++) {
            uint32_t p = expect_pixel(x, y, format, black, c);

            for (int b = 0; b < 4; b++) {
                crc ^= (p >> (8 * b)) & (b == 3 ? 0 : 0xff);
                for (int k = 0; k < 8; k++) {
                    crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
                }
            }
        }
    }
    return ~crc;
}

static void cursor_regs(Vagx *v, uint64_t va, int x, int y, uint32_t w,
                        uint32_t h, uint32_t pitch)
{
    wr(v, VAGX_REG_SCANOUT_CURSOR_VA_LO, (uint32_t)va);
    wr(v, VAGX_REG_SCANOUT_CURSOR_VA_HI, va >> 32);
    wr(v, VAGX_REG_SCANOUT_CURSOR_POS,
       VAGX_SCANOUT_CURSOR_POS_X((uint16_t)x) |
       VAGX_SCANOUT_CURSOR_POS_Y((uint16_t)y));
    wr(v, VAGX_REG_SCANOUT_CURSOR_SIZE, VAGX_SCANOUT_CURSOR_SIZE_WIDTH(w) |
                                        VAGX_SCANOUT_CURSOR_SIZE_HEIGHT(h));
    wr(v, VAGX_REG_SCANOUT_CURSOR_PITCH, pitch);
    wr(v, VAGX_REG_SCANOUT_CURSOR_CONTROL,
       VAGX_SCANOUT_CURSOR_CONTROL_ENABLE(1));
}

/* Commit; true if the device took it. */
static bool scanout_commit(Vagx *v)
{
    wr(v, VAGX_REG_SCANOUT_COMMIT, VAGX_SCANOUT_COMMIT_PENDING(1));
    qtest_clock_step(v->qts, 2 * FRAME_NS);
    return !(rd(v, VAGX_REG_SCANOUT_STATUS) & VAGX_SCANOUT_STATUS_INVALID(1));
}

/* The CRC the device latched at the last vblank, which it covers. */
static uint32_t frame_crc(Vagx *v)
{
    g_assert_cmpuint(rd(v, VAGX_REG_SCANOUT_CRC_COUNT), ==,
                     rd(v, VAGX_REG_SCANOUT_VBLANK_COUNT));
    return rd(v, VAGX_REG_SCANOUT_CRC_VALUE);
}

/* Contract 1.3: the cursor layer and the frame CRC, with hostile values. */
static void test_scanout_cursor_crc(void)
{
    static const int pos[][2] = {
        { 0, 0 }, { 5, 7 }, { -4, -3 }, { FB_W - 3, FB_H - 2 },
        { -CUR_W, 0 }, { FB_W, FB_H }, { -32768, -32768 }, { 32767, 32767 },
        { -CUR_W + 1, -CUR_OPAQUE_ROWS + 1 },
    };
    Vagx v;
    uint64_t fb_va = 0x7f0000000ull, cur_va = 0x7f8000000ull;
    struct cursor_at c = { .on = true };
    uint32_t crc, count;
    uint64_t cur;

    vagx_start(&v, NULL);
    g_assert(rd(&v, VAGX_REG_FEATURES) & VAGX_FEATURES_CURSOR(1));
    g_assert(rd(&v, VAGX_REG_FEATURES) & VAGX_FEATURES_SCANOUT_CRC(1));
    scanout_fb_setup(&v, fb_va);
    cur = galloc(&v, VAGX_PAGE_SIZE);
    vm_map(&v, v.root, cur_va, cur, true);
    for (unsigned y = 0; y < CUR_H; y++) {
        for (unsigned x = 0; x < CUR_W; x++) {
            qtest_writel(v.qts, cur + y * CUR_PITCH + 4 * x,
                         y < CUR_OPAQUE_ROWS ? CUR_RED : 0);
        }
    }
    wr(&v, VAGX_REG_SCANOUT_CONTROL, VAGX_SCANOUT_CONTROL_ENABLE(1));
    wr(&v, VAGX_REG_SCANOUT_CRC_CONTROL, VAGX_SCANOUT_CRC_CONTROL_ENABLE(1));
    g_assert(scanout_commit(&v));
    crc = frame_crc(&v);
    g_assert_cmphex(crc, ==, expect_crc(VAGX_SCANOUT_FORMAT_XRGB8888, false,
                                        NULL));
    /* Same frame, same CRC; a later vblank. */
    count = rd(&v, VAGX_REG_SCANOUT_CRC_COUNT);
    qtest_clock_step(v.qts, 2 * FRAME_NS);
    g_assert_cmpuint(rd(&v, VAGX_REG_SCANOUT_CRC_COUNT), >, count);
    g_assert_cmphex(frame_crc(&v), ==, crc);

    /* The cursor on, off and partly off the screen, anywhere int16 goes. */
    for (unsigned i = 0; i < ARRAY_SIZE(pos); i++) {
        c.x = pos[i][0];
        c.y = pos[i][1];
        cursor_regs(&v, cur_va, c.x, c.y, CUR_W, CUR_H, CUR_PITCH);
        g_assert(scanout_commit(&v));
        g_assert_cmphex(frame_crc(&v), ==,
                        expect_crc(VAGX_SCANOUT_FORMAT_XRGB8888, false, &c));
        screendump_check_cursor(&v, VAGX_SCANOUT_FORMAT_XRGB8888, false, &c);
    }

    /* Bad cursor layers: refused at commit, the active one stays. */
    cursor_regs(&v, cur_va, 1, 2, 0, CUR_H, CUR_PITCH);
    g_assert(!scanout_commit(&v));
    g_assert_cmpuint(VAGX_ERROR_STATUS_CODE_GET(rd(&v, VAGX_REG_ERROR_STATUS)),
                     ==, VAGX_REG_ERROR_BAD_SCANOUT);
    cursor_regs(&v, cur_va, 1, 2, VAGX_SCANOUT_CURSOR_MAX_WIDTH + 1, 1,
                0x10000);
    g_assert(!scanout_commit(&v));
    cursor_regs(&v, cur_va, 1, 2, 1, VAGX_SCANOUT_CURSOR_MAX_HEIGHT + 1,
                CUR_PITCH);
    g_assert(!scanout_commit(&v));
    cursor_regs(&v, cur_va, 1, 2, 0xffff, 0xffff, 0xffffffff);
    g_assert(!scanout_commit(&v));
    cursor_regs(&v, cur_va, 1, 2, CUR_W, CUR_H, CUR_W * 4 - 4);
    g_assert(!scanout_commit(&v));
    cursor_regs(&v, cur_va, 1, 2, CUR_W, CUR_H, CUR_PITCH + 2);
    g_assert(!scanout_commit(&v));
    cursor_regs(&v, cur_va + 2, 1, 2, CUR_W, CUR_H, CUR_PITCH);
    g_assert(!scanout_commit(&v));
    g_assert_cmphex(frame_crc(&v), ==,
                    expect_crc(VAGX_SCANOUT_FORMAT_XRGB8888, false, &c));

    /* The largest cursor, mostly unmapped: a fault, a black frame. */
    cursor_regs(&v, cur_va, -3, -3, VAGX_SCANOUT_CURSOR_MAX_WIDTH,
                VAGX_SCANOUT_CURSOR_MAX_HEIGHT, 0xfffffffc);
    g_assert(scanout_commit(&v));
    g_assert(rd(&v, VAGX_REG_SCANOUT_STATUS) & VAGX_SCANOUT_STATUS_FAULT(1));
    g_assert_cmphex(frame_crc(&v), ==,
                    expect_crc(VAGX_SCANOUT_FORMAT_XRGB8888, true, NULL));
    screendump_check(&v, VAGX_SCANOUT_FORMAT_XRGB8888, true);

    /* Cursor off: the framebuffer alone again. */
    wr(&v, VAGX_REG_SCANOUT_CURSOR_CONTROL, 0);
    g_assert(scanout_commit(&v));
    g_assert_cmphex(frame_crc(&v), ==, crc);
    /* BLANK: the CRC of black. */
    wr(&v, VAGX_REG_SCANOUT_CONTROL, VAGX_SCANOUT_CONTROL_ENABLE(1) |
                                     VAGX_SCANOUT_CONTROL_BLANK(1));
    qtest_clock_step(v.qts, 2 * FRAME_NS);
    g_assert_cmphex(frame_crc(&v), ==,
                    expect_crc(VAGX_SCANOUT_FORMAT_XRGB8888, true, NULL));
    /* CRC off: no new CRC. */
    wr(&v, VAGX_REG_SCANOUT_CRC_CONTROL, 0);
    count = rd(&v, VAGX_REG_SCANOUT_CRC_COUNT);
    qtest_clock_step(v.qts, 3 * FRAME_NS);
    g_assert_cmpuint(rd(&v, VAGX_REG_SCANOUT_CRC_COUNT), ==, count);
    /* The CRC registers are read-only. */
    crc = rd(&v, VAGX_REG_SCANOUT_CRC_VALUE);
    wr(&v, VAGX_REG_SCANOUT_CRC_VALUE, ~crc);
    wr(&v, VAGX_REG_SCANOUT_CRC_COUNT, ~count);
    g_assert_cmphex(rd(&v, VAGX_REG_SCANOUT_CRC_VALUE), ==, crc);
    g_assert_cmpuint(rd(&v, VAGX_REG_SCANOUT_CRC_COUNT), ==, count);
    vagx_stop(&v);
}

/* Contract 1.1: INT_ENABLE_SET/CLEAR, BLANK, VBLANK_TS, refresh period and
 * the display surviving a global (GPU) reset. */
static void test_scanout_v11(void)
{
    Vagx v;
    uint64_t fb_va = 0x7f0000000ull;
    uint64_t t0, t1, ts, ts2;
    uint32_t count, st;

    vagx_start(&v, NULL);

    /* INT_ENABLE_SET/CLEAR touch only the bits written as 1. */
    wr(&v, VAGX_REG_INT_ENABLE, VAGX_INT_JOB_DONE(2));
    wr(&v, VAGX_REG_INT_ENABLE_SET, VAGX_INT_VBLANK(1));
    g_assert_cmphex(rd(&v, VAGX_REG_INT_ENABLE), ==,
                    VAGX_INT_JOB_DONE(2) | VAGX_INT_VBLANK(1));
    wr(&v, VAGX_REG_INT_ENABLE_CLEAR, VAGX_INT_JOB_DONE(2));
    g_assert_cmphex(rd(&v, VAGX_REG_INT_ENABLE), ==, VAGX_INT_VBLANK(1));
    wr(&v, VAGX_REG_INT_ENABLE_CLEAR, 0);
    wr(&v, VAGX_REG_INT_ENABLE_SET, 0);
    g_assert_cmphex(rd(&v, VAGX_REG_INT_ENABLE), ==, VAGX_INT_VBLANK(1));
    g_assert_cmphex(rd(&v, VAGX_REG_INT_ENABLE_SET), ==, 0);  /* write-only */
    /* Enabling an already latched event signals its vector. */
    wr(&v, VAGX_REG_INT_ENABLE_CLEAR, VAGX_INT_VBLANK(1));
    msi_clear(&v);
    wr(&v, VAGX_REG_INT_RAISE, VAGX_INT_SCANOUT_FAULT(1));
    g_usleep(20 * 1000);
    g_assert_cmphex(msi_word(&v, VAGX_MSIX_VECTOR_DISPLAY), ==, 0);
    wr(&v, VAGX_REG_INT_ENABLE_SET, VAGX_INT_SCANOUT_FAULT(1));
    g_assert(wait_msi(&v, VAGX_MSIX_VECTOR_DISPLAY));
    wr(&v, VAGX_REG_INT_STATUS, ~0u);
    g_assert_cmphex(rd(&v, VAGX_REG_ERROR_STATUS), ==, 0);

    /* No vblank yet: the timestamp reads 0. */
    g_assert_cmphex(read_vblank_ts(&v), ==, 0);
    scanout_fb_setup(&v, fb_va);
    wr(&v, VAGX_REG_SCANOUT_COMMIT, VAGX_SCANOUT_COMMIT_PENDING(1));
    wr(&v, VAGX_REG_SCANOUT_CONTROL, VAGX_SCANOUT_CONTROL_ENABLE(1));
    wr(&v, VAGX_REG_INT_ENABLE_SET, VAGX_INT_VBLANK(1));

    /* Refresh: exactly one vblank per 10^12 / SCANOUT_REFRESH ns; each
     * vblank's timestamp lies between counter reads around the step. */
    qtest_clock_step(v.qts, FRAME_NS);
    count = rd(&v, VAGX_REG_SCANOUT_VBLANK_COUNT);
    t0 = read_timestamp(&v);
    qtest_clock_step(v.qts, 10 * FRAME_NS);
    t1 = read_timestamp(&v);
    g_assert_cmpuint(rd(&v, VAGX_REG_SCANOUT_VBLANK_COUNT) - count, ==, 10);
    ts = read_vblank_ts(&v);
    g_assert_cmpuint(ts, >=, t0);
    g_assert_cmpuint(ts, <=, t1);
    /* No vblank in between: the latched value does not move. */
    g_assert_cmpuint(read_vblank_ts(&v), ==, ts);
    qtest_clock_step(v.qts, FRAME_NS);
    ts2 = read_vblank_ts(&v);
    g_assert_cmpuint(ts2, >, ts);
    g_assert_cmpuint(ts2, <=, read_timestamp(&v));
    screendump_check(&v, VAGX_SCANOUT_FORMAT_XRGB8888, false);

    /* BLANK: black at the configured size, the engine keeps running. */
    count = rd(&v, VAGX_REG_SCANOUT_VBLANK_COUNT);
    wr(&v, VAGX_REG_SCANOUT_CONTROL, VAGX_SCANOUT_CONTROL_ENABLE(1) |
                                     VAGX_SCANOUT_CONTROL_BLANK(1));
    g_assert_cmphex(rd(&v, VAGX_REG_SCANOUT_CONTROL), ==,
                    VAGX_SCANOUT_CONTROL_ENABLE(1) |
                    VAGX_SCANOUT_CONTROL_BLANK(1));
    wr(&v, VAGX_REG_SCANOUT_FORMAT, VAGX_SCANOUT_FORMAT_XBGR8888);
    wr(&v, VAGX_REG_SCANOUT_COMMIT, VAGX_SCANOUT_COMMIT_PENDING(1));
    qtest_clock_step(v.qts, 2 * FRAME_NS);
    g_assert_cmpuint(rd(&v, VAGX_REG_SCANOUT_VBLANK_COUNT) - count, ==, 2);
    g_assert_cmpuint(rd(&v, VAGX_REG_SCANOUT_COMMIT), ==, 0);
    g_assert(rd(&v, VAGX_REG_INT_STATUS) & VAGX_INT_VBLANK(1));
    screendump_check(&v, VAGX_SCANOUT_FORMAT_XBGR8888, true);
    wr(&v, VAGX_REG_SCANOUT_CONTROL, VAGX_SCANOUT_CONTROL_ENABLE(1));
    qtest_clock_step(v.qts, FRAME_NS);
    screendump_check(&v, VAGX_SCANOUT_FORMAT_XBGR8888, false);

    /* Global RESET is a GPU reset: the display domain keeps its state,
     * picture, vblanks and INT bits; INT_ENABLE is untouched. */
    wr(&v, VAGX_REG_INT_ENABLE, INT_ALL);
    wr(&v, VAGX_REG_INT_RAISE, VAGX_INT_VBLANK(1) | VAGX_INT_MMU_FAULT(1));
    wr(&v, VAGX_REG_RESET, VAGX_RESET_START(1));
    g_assert(wait_reg(&v, VAGX_REG_STATUS, VAGX_STATUS_RESET_BUSY__MASK, 0));
    st = rd(&v, VAGX_REG_INT_STATUS);
    g_assert_cmphex(st & VAGX_INT_VBLANK(1), ==, VAGX_INT_VBLANK(1));
    g_assert_cmphex(st & VAGX_INT_MMU_FAULT(1), ==, 0);
    g_assert_cmphex(st & VAGX_INT_RESET_DONE(1), ==, VAGX_INT_RESET_DONE(1));
    g_assert_cmphex(rd(&v, VAGX_REG_INT_ENABLE), ==, INT_ALL);
    g_assert_cmphex(rd(&v, VAGX_REG_SCANOUT_CONTROL), ==,
                    VAGX_SCANOUT_CONTROL_ENABLE(1));
    g_assert_cmpuint(rd(&v, VAGX_REG_SCANOUT_FORMAT), ==,
                     VAGX_SCANOUT_FORMAT_XBGR8888);
    count = rd(&v, VAGX_REG_SCANOUT_VBLANK_COUNT);
    g_assert_cmpuint(count, >, 0);
    qtest_clock_step(v.qts, 3 * FRAME_NS);
    g_assert_cmpuint(rd(&v, VAGX_REG_SCANOUT_VBLANK_COUNT) - count, ==, 3);
    screendump_check(&v, VAGX_SCANOUT_FORMAT_XBGR8888, false);

    /* A PCI/system reset, in contrast, resets the display too. */
    qtest_qmp_assert_success(v.qts, "{'execute':'system_reset'}");
    qtest_qmp_eventwait(v.qts, "RESET");
    vagx_probe(&v);
    g_assert_cmphex(rd(&v, VAGX_REG_SCANOUT_CONTROL), ==, 0);
    g_assert_cmpuint(rd(&v, VAGX_REG_SCANOUT_VBLANK_COUNT), ==, 0);
    g_assert_cmphex(read_vblank_ts(&v), ==, 0);
    vagx_stop(&v);
}

/* ------------------------------------------------------------------------ */
/* Fuzzer                                                                   */
/* ------------------------------------------------------------------------ */

static void test_fuzz(void)
{
    Vagx v;
    GRand *rng = g_rand_new_with_seed(0x7a6b5c4d);
    uint64_t junk;

    vagx_start(&v, NULL);
    junk = galloc(&v, 4 * VAGX_PAGE_SIZE);

    for (unsigned iter = 0; iter < 3000; iter++) {
        uint32_t r = g_rand_int(rng);
        uint32_t val = g_rand_int(rng);
        uint32_t off;

        switch (r % 8) {
        case 0: case 1: case 2:
            /* Any register of the global block or a queue block. */
            off = g_rand_int_range(rng, 0, 0x2000) & ~3u;
            break;
        case 3:
            /* The global block and every head's scanout registers. */
            off = g_rand_int_range(rng, 0, VAGX_SCANOUT_HEAD_BASE +
                                   VAGX_SCANOUT_MAX_HEADS *
                                   VAGX_SCANOUT_HEAD_STRIDE) & ~3u;
            break;
        case 4: {
            /* Random ring contents, and a ring pointing at them. */
            unsigned q = g_rand_int_range(rng, 0, 4);
            uint8_t buf[VAGX_RING_ENTRY_SIZE];

            for (unsigned i = 0; i < sizeof(buf); i++) {
                buf[i] = g_rand_int(rng);
            }
            /* Sometimes a plausible header so the job gets further. */
            if (g_rand_boolean(rng)) {
                buf[0] = g_rand_int_range(rng, 0, 6);
                buf[1] = 0;
                buf[2] = g_rand_int_range(rng, 0, VAGX_MSIX_VECTORS);
                buf[3] = 0;
                stq_le_p(buf + 8, junk + VAGX_PAGE_SIZE *
                         g_rand_int_range(rng, 0, 4));
            }
            qtest_memwrite(v.qts, junk + VAGX_RING_ENTRY_SIZE *
                           g_rand_int_range(rng, 0, 4 * VAGX_PAGE_SIZE /
                                            VAGX_RING_ENTRY_SIZE),
                           buf, sizeof(buf));
            if (g_rand_int_range(rng, 0, 4) == 0) {
                qwr(&v, q, VAGX_Q_CONTROL, 0);
                qwr(&v, q, VAGX_Q_RING_BASE_LO, (uint32_t)junk +
                    VAGX_PAGE_SIZE * g_rand_int_range(rng, 0, 4));
                qwr(&v, q, VAGX_Q_RING_BASE_HI, 0);
                qwr(&v, q, VAGX_Q_RING_SIZE, g_rand_int_range(rng, 0, 16));
                qwr(&v, q, VAGX_Q_CONTROL, 1);
            }
            qwr(&v, q, VAGX_Q_TAIL, qrd(&v, q, VAGX_Q_HEAD) +
                g_rand_int_range(rng, 0, 40));
            qwr(&v, q, VAGX_Q_DOORBELL, 1);
            continue;
        }
        case 5: {
            /* Doorbells, aborts, resumes and resets hammered together. */
            unsigned q = g_rand_int_range(rng, 0, VAGX_MAX_QUEUES);
            static const uint32_t regs[] = {
                VAGX_Q_DOORBELL, VAGX_Q_ABORT, VAGX_Q_RESUME, VAGX_Q_RESET,
                VAGX_Q_DOORBELL, VAGX_Q_TAIL,
            };
            off = VAGX_QUEUE_REG(q, regs[val % ARRAY_SIZE(regs)]);
            val = g_rand_int_range(rng, 0, 4);
            if (r & 0x100) {
                wr(&v, VAGX_REG_RESET, 1);
            }
            break;
        }
        case 6:
            /* 64-bit accesses anywhere in the register file. */
            qpci_io_writeq(v.dev, v.bar0, g_rand_int_range(rng, 0, 0x2000) &
                           ~7u, ((uint64_t)val << 32) | g_rand_int(rng));
            continue;
        default:
            (void)rd(&v, g_rand_int_range(rng, 0, 0x8000) & ~3u);
            continue;
        }
        /* Keep MSI-X, bus mastering and the BAR itself sane. */
        wr(&v, off, val);
    }
    g_rand_free(rng);

    /* QEMU is alive and the device still runs a good job after a reset. */
    wr(&v, VAGX_REG_RESET, VAGX_RESET_START(1));
    g_assert(wait_reg(&v, VAGX_REG_STATUS, VAGX_STATUS_RESET_BUSY__MASK, 0));
    wr(&v, VAGX_REG_SCANOUT_CONTROL, 0);
    wr(&v, VAGX_REG_ERROR_ACK, 1);
    wr(&v, VAGX_REG_FAULT_ACK, 1);
    g_assert_cmphex(rd(&v, VAGX_REG_ID), ==, VAGX_ID_MAGIC);
    for (unsigned q = 0; q < 4; q++) {
        ring_setup(&v, q);
        run_good_copy(&v, q, 1000 + q);
    }
    vagx_stop(&v);
}

#include "vagx-test-robust.c.inc"
#include "vagx-test-overlay.c.inc"
#include "vagx-test-writeback.c.inc"
#include "vagx-test-heads.c.inc"

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vagx/identity", test_identity);
    qtest_add_func("/vagx/interrupts", test_interrupt_selftest);
    qtest_add_func("/vagx/reset", test_reset);
    qtest_add_func("/vagx/copy", test_copy);
    qtest_add_func("/vagx/compute", test_compute);
    qtest_add_func("/vagx/mmu-fault", test_mmu_fault);
    qtest_add_func("/vagx/abort-and-queue-reset", test_abort_and_queue_reset);
    qtest_add_func("/vagx/abort-match", test_abort_match);
    qtest_add_func("/vagx/scanout", test_scanout);
    qtest_add_func("/vagx/scanout-v11", test_scanout_v11);
    qtest_add_func("/vagx/scanout-cursor-crc", test_scanout_cursor_crc);
    qtest_add_func("/vagx/scanout-overlay", test_scanout_overlay);
    qtest_add_func("/vagx/scanout-writeback", test_scanout_writeback);
    qtest_add_func("/vagx/scanout-heads", test_scanout_heads);
    qtest_add_func("/vagx/scanout-one-head", test_scanout_one_head);
    qtest_add_func("/vagx/fuzz", test_fuzz);
    robust_add_tests();
    return g_test_run();
}
