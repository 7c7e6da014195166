/*
 * vagx: an AGX-like tile-based GPU as a QEMU PCI device.
 *
 * This file is only the QEMU binding.  The device itself (registers, MMU,
 * queues, copy/fill/compute/render engines, worker pool) is the renderer
 * core in core/ (vagx_core.h), a plain C11 library that reaches guest
 * memory, interrupts and time only through struct vagx_core_host_ops.
 *
 * Threads (docs/qemu-device.md has the full picture):
 *  - vCPU threads (BQL held) run the BAR0 handlers: they call the core's
 *    cheap vagx_core_mmio_read/write; doorbells end in host_ops.kick, which
 *    wakes the front-end thread.
 *  - the front-end thread "vagx-fe" (RCU-registered) calls
 *    vagx_core_process(): ring fetch, job setup, completion writes, IRQs.
 *  - the core's worker threads run copy chunks and compute threadgroups.
 *    They touch guest memory through host_ops read/write/map, which register
 *    the calling thread with RCU on first use.
 *  - the main loop (BQL) runs the vblank timer, the console update and the
 *    interrupt bottom half.
 * Guest memory is reached through the PCI bus-master address space and only
 * when it is RAM: bus mastering off, MMIO or holes are a BUS_ERROR for the
 * job, never an MMIO dispatch (which would wait for the BQL).  The check and
 * the copy use one MemoryRegionCache, i.e. one memory map.  Interrupts raised
 * outside the BQL are deferred to a bottom half, so no device thread ever
 * waits for the BQL and reset can wait for the front-end while holding it --
 * for at most reset-timeout-ms: a job that does not stop in time leaves the
 * device wedged (RESET_BUSY), never QEMU blocked.
 * Host pointers of guest pages cached by the core are used only inside an
 * RCU read-side section (host_ops.access_begin/end) and dropped when the
 * bus-master address space changes (a MemoryListener: bus mastering off,
 * BAR moves, RAM unplug) and at reset.
 *
 * SPDX-License-Identifier: MIT
 */
#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/log.h"
#include "qemu/thread.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "qemu/timer.h"
#include "qemu/atomic.h"
#include "qemu/bswap.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/msix.h"
#include "hw/pci/pcie.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "system/dma.h"
#include "system/runstate.h"
#include "exec/memory.h"
#include "ui/console.h"

#include "hw/display/vagx/vagx_hw.h"
#include "vagx_core.h"
#include "trace.h"

/* A guest programming error: its trace event, and the same words in the
 * LOG_GUEST_ERROR log (-d guest_errors), as hw/nvme's NVME_GUEST_ERR. */
#define VAGX_GUEST_ERR(trace, fmt, ...) \
    do { \
        (trace_##trace)(__VA_ARGS__); \
        qemu_log_mask(LOG_GUEST_ERROR, "vagx: " #trace ": " fmt "\n", \
                      ## __VA_ARGS__); \
    } while (0)

#define TYPE_VAGX "vagx"
OBJECT_DECLARE_SIMPLE_TYPE(VagxState, VAGX)

/* One scanout head (contract 1.9): its own console and vblank timer. */
typedef struct VagxHead {
    VagxState *s;
    unsigned index;
    QemuConsole *con;
    QEMUTimer *vblank_timer;
    int64_t vblank_due;         /* QEMU_CLOCK_VIRTUAL time of the next vblank */
    struct vagx_core_scanout active;
    uint8_t *row_buf;           /* VAGX_SCANOUT_MAX_WIDTH * 4 bytes */
    bool connected;             /* property head<h>-connected */
} VagxHead;

/* Largest scanout frame we convert (bytes of source framebuffer per row). */
#define VAGX_DEFAULT_XRES 640
#define VAGX_DEFAULT_YRES 480
/*
 * Longest the BQL holder waits for device threads (reset, memory map
 * change).  Jobs reach an abort check and a safepoint within microseconds
 * to milliseconds of work; a second is far beyond that even on a loaded
 * host, and short enough that a wedged device does not freeze the VM.
 */
#define VAGX_DEFAULT_RESET_TIMEOUT_MS 1000
/* Flush bound once a thread is known stuck: still far above a working
 * thread's safepoint interval. */
#define VAGX_STUCK_FLUSH_MS 10

struct VagxState {
    PCIDevice parent_obj;

    MemoryRegion bar0;          /* container: registers + MSI-X */
    MemoryRegion regs;          /* whole BAR0 at priority -1 */

    struct vagx_core *core;

    /* front-end thread */
    QemuThread fe_thread;
    QemuMutex fe_lock;
    QemuCond fe_cond;           /* kicks, pause/exit requests */
    QemuCond fe_idle_cond;      /* fe_busy went false */
    bool fe_started;
    bool fe_exit;
    bool fe_kicked;
    bool fe_busy;               /* inside vagx_core_process() */
    unsigned fe_pause;          /* reset in progress */
    bool fe_vm_stopped;         /* VM not running: start no new work */
    VMChangeStateEntry *vmse;

    /* interrupts raised outside the BQL, delivered by irq_bh */
    QEMUBH *irq_bh;
    uint32_t irq_deferred;      /* atomic: bitmask of vectors */
    bool in_reset;              /* drop interrupts while resetting */

    /* x-stall-in-reset (a test hook): while vagx_reset_hold() runs, device
     * threads entering or leaving an access bracket wait until it returns. */
    bool x_stall_in_reset;
    bool reset_stall;           /* atomic: vagx_reset_hold() is running */
    QemuMutex stall_lock;
    QemuCond stall_cond;        /* reset_stall went false */

    /* scanout heads 0..num_heads-1 */
    uint32_t num_heads;
    VagxHead head[VAGX_SCANOUT_MAX_HEADS];

    /* Sees every change of the bus-master address space (bus mastering
     * toggled, BARs moved, RAM added or removed): cached host pointers of
     * guest pages are flushed at its commit. */
    MemoryListener dma_listener;
    bool dma_listener_on;
    bool dma_map_changed;       /* a section went away in this transaction */
    bool dma_flush_stuck;       /* the last flush hit its bound */

    /* properties */
    uint32_t reset_timeout_ms;  /* bound of every wait on device threads */
    uint32_t num_queues;
    uint32_t num_workers;
    uint32_t xres, yres;
};

/* ------------------------------------------------------------------------ */
/* RCU registration for threads the core creates                            */
/* ------------------------------------------------------------------------ */

/*
 * The core's worker threads are plain pthreads.  Anything that walks the
 * memory map must be RCU-registered, so the host ops register such a thread
 * the first time it calls them and unregister it from a pthread key
 * destructor when it exits.  Threads holding the BQL (main loop, vCPUs) and
 * our own front-end thread are already registered.
 */
static __thread bool vagx_thread_rcu_registered;
static pthread_key_t vagx_rcu_key;
static pthread_once_t vagx_rcu_once = PTHREAD_ONCE_INIT;

static void vagx_rcu_thread_exit(void *unused)
{
    if (vagx_thread_rcu_registered) {
        rcu_unregister_thread();
        vagx_thread_rcu_registered = false;
    }
}

static void vagx_rcu_key_init(void)
{
    pthread_key_create(&vagx_rcu_key, vagx_rcu_thread_exit);
}

static void vagx_rcu_ensure(void)
{
    if (likely(vagx_thread_rcu_registered) || bql_locked()) {
        return;
    }
    pthread_once(&vagx_rcu_once, vagx_rcu_key_init);
    rcu_register_thread();
    vagx_thread_rcu_registered = true;
    /* Any non-NULL value makes the destructor run at thread exit. */
    pthread_setspecific(vagx_rcu_key, (void *)1);
}

/* ------------------------------------------------------------------------ */
/* Host ops: guest memory, interrupts, time                                 */
/* ------------------------------------------------------------------------ */

/*
 * Copies between buf and [pa, pa+len) of the bus-master address space if,
 * and only if, the whole range is directly accessible RAM.  Anything else
 * (bus mastering off, holes, MMIO including our own BAR, ROM for writes) is
 * refused without being touched: an MMIO dispatch from a device thread would
 * wait for the BQL, and the main loop may hold the BQL while it waits for
 * that thread (reset).  One MemoryRegionCache per RAM piece makes the check
 * and the copy use the same memory map, and holds a reference on the RAM
 * region while it copies; address_space_cache_invalidate() does the dirty
 * tracking (migration, VGA, TCG code) a pci_dma_write would.
 */
static bool vagx_dma_rw(VagxState *s, uint64_t pa, void *buf, size_t len,
                        bool is_write)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));
    uint8_t *p = buf;

    if (pa + len < pa) {
        return false;
    }
    RCU_READ_LOCK_GUARD();
    while (len) {
        MemoryRegionCache cache;
        int64_t l = address_space_cache_init(&cache, as, pa, len, is_write);
        bool ram = l > 0 && cache.ptr;

        if (ram && is_write) {
            address_space_write_cached(&cache, 0, p, l);
            address_space_cache_invalidate(&cache, 0, l);
        } else if (ram) {
            address_space_read_cached(&cache, 0, p, l);
        }
        address_space_cache_destroy(&cache);
        if (!ram) {
            return false;
        }
        pa += l;
        p += l;
        len -= l;
    }
    return true;
}

static int vagx_host_read(void *opaque, uint64_t pa, void *buf, size_t len)
{
    VagxState *s = opaque;

    vagx_rcu_ensure();
    if (!vagx_dma_rw(s, pa, buf, len, false)) {
        VAGX_GUEST_ERR(vagx_err_dma, "DMA %s of 0x%" PRIx64 " bytes at 0x%"
                       PRIx64 " is not guest RAM (or bus mastering is off)",
                       "read", (uint64_t)len, pa);
        return -1;
    }
    return 0;
}

static int vagx_host_write(void *opaque, uint64_t pa, const void *buf,
                           size_t len)
{
    VagxState *s = opaque;

    vagx_rcu_ensure();
    if (!vagx_dma_rw(s, pa, (void *)buf, len, true)) {
        VAGX_GUEST_ERR(vagx_err_dma, "DMA %s of 0x%" PRIx64 " bytes at 0x%"
                       PRIx64 " is not guest RAM (or bus mastering is off)",
                       "write", (uint64_t)len, pa);
        return -1;
    }
    return 0;
}

/*
 * Host pointer for [pa, pa+len) inside one page.  The core calls this and
 * uses the pointer only between access_begin and access_end (an RCU
 * read-side section: the RAM block cannot be reclaimed meanwhile), and
 * drops it when the bus-master address space changes (vagx_dma_commit).
 * (Writes through it bypass dirty tracking; the device is unmigratable.)
 */
static void *vagx_host_map(void *opaque, uint64_t pa, size_t len,
                           bool is_write)
{
    VagxState *s = opaque;
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));
    MemTxAttrs attrs = MEMTXATTRS_UNSPECIFIED;
    hwaddr xlat, l = len;
    MemoryRegion *mr;

    if (pa + len < pa) {
        return NULL;
    }
    vagx_rcu_ensure();
    RCU_READ_LOCK_GUARD();
    mr = address_space_translate(as, pa, &xlat, &l, is_write, attrs);
    if (l < len || !memory_access_is_direct(mr, is_write, attrs) ||
        !mr->ram_block) {
        return NULL;
    }
    return qemu_map_ram_ptr(mr->ram_block, xlat);
}

/* x-stall-in-reset: a unit that reaches no abort check within
 * reset-timeout-ms, made exact for the qtest reset-wedged: a thread that
 * begins or ends a slice of work, or passes a safepoint, while the reset
 * runs waits until it has returned, so the job it works on outlives the
 * reset's bound however the threads are scheduled.  Bounded: the reset
 * never waits for these threads beyond reset-timeout-ms. */
static void vagx_reset_stall_wait(VagxState *s)
{
    if (!s->x_stall_in_reset || !qatomic_read(&s->reset_stall)) {
        return;
    }
    qemu_mutex_lock(&s->stall_lock);
    while (s->reset_stall) {
        qemu_cond_wait(&s->stall_cond, &s->stall_lock);
    }
    qemu_mutex_unlock(&s->stall_lock);
}

/* The core's access bracket: RCU read-side, so RAM behind a cached pointer
 * outlives its use even if it is unplugged meanwhile.  The test hook's wait
 * is outside the RCU section. */
static void vagx_host_access_begin(void *opaque)
{
    vagx_reset_stall_wait(opaque);
    vagx_rcu_ensure();
    rcu_read_lock();
}

static void vagx_host_access_end(void *opaque)
{
    rcu_read_unlock();
    vagx_reset_stall_wait(opaque);
}

static void vagx_update_intx(VagxState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    pci_set_irq(pdev, !s->in_reset && !msix_enabled(pdev) &&
                vagx_core_irq_pending(s->core) != 0);
}

/* BQL held. */
static void vagx_deliver_irqs(VagxState *s, uint32_t vectors)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    if (s->in_reset) {
        return;
    }
    if (msix_enabled(pdev)) {
        for (unsigned v = 0; v < VAGX_MSIX_VECTORS; v++) {
            if (vectors & (1u << v)) {
                msix_notify(pdev, v);
            }
        }
    }
    vagx_update_intx(s);
}

static void vagx_irq_bh(void *opaque)
{
    VagxState *s = opaque;
    uint32_t vectors = qatomic_xchg(&s->irq_deferred, 0);

    vagx_deliver_irqs(s, vectors);
}

static void vagx_host_raise_irq(void *opaque, unsigned vector)
{
    VagxState *s = opaque;

    if (vector >= VAGX_MSIX_VECTORS) {
        return;
    }
    if (bql_locked()) {
        vagx_deliver_irqs(s, 1u << vector);
    } else {
        /* Front-end thread: never wait for the BQL, defer. */
        qatomic_or(&s->irq_deferred, 1u << vector);
        qemu_bh_schedule(s->irq_bh);
    }
}

static uint64_t vagx_host_now_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
}

static void vagx_host_kick(void *opaque)
{
    VagxState *s = opaque;

    qemu_mutex_lock(&s->fe_lock);
    s->fe_kicked = true;
    qemu_cond_signal(&s->fe_cond);
    qemu_mutex_unlock(&s->fe_lock);
}

static const char *vagx_name(const char *name)
{
    return name ? name : "(unknown)";
}

/*
 * The core's events as trace events; failures are guest programming errors
 * and also go to the LOG_GUEST_ERROR log.  Called from any device thread,
 * possibly under the core's locks: it only traces and logs.
 */
static void vagx_host_event(void *opaque, const struct vagx_core_event *ev)
{
    switch (ev->kind) {
    case VAGX_CORE_EVENT_JOB_START:
        trace_vagx_job_start(ev->queue, ev->seqno,
                             vagx_name(vagx_job_type_name(ev->type)),
                             ev->slot_pa);
        break;
    case VAGX_CORE_EVENT_JOB_END:
        trace_vagx_job_end(ev->queue, ev->seqno,
                           vagx_name(vagx_job_status_name(ev->status)));
        if (ev->status != VAGX_JOB_STATUS_OK) {
            VAGX_GUEST_ERR(vagx_err_job, "queue %u seqno %" PRIu64
                           " failed: %s (unit %s, detail 0x%x, address 0x%"
                           PRIx64 ")", ev->queue, ev->seqno,
                           vagx_name(vagx_job_status_name(ev->status)),
                           vagx_name(vagx_unit_name(ev->unit)), ev->detail,
                           ev->address);
        }
        break;
    case VAGX_CORE_EVENT_JOB_DROPPED:
        trace_vagx_job_dropped(ev->queue, ev->seqno);
        break;
    case VAGX_CORE_EVENT_REG_ERROR:
        VAGX_GUEST_ERR(vagx_err_register, "%s at register 0x%x",
                       vagx_name(vagx_reg_error_name(ev->code)), ev->offset);
        break;
    case VAGX_CORE_EVENT_MMU_FAULT:
        VAGX_GUEST_ERR(vagx_err_mmu_fault, "queue %u: %s on %s of VA 0x%"
                       PRIx64 " (root 0x%" PRIx64 ", level %u, unit %s)",
                       ev->queue,
                       vagx_name(vagx_fault_reason_name(ev->reason)),
                       vagx_name(vagx_fault_access_name(ev->access)),
                       ev->address, ev->root, ev->level,
                       vagx_name(vagx_unit_name(ev->unit)));
        break;
    }
}

static const struct vagx_core_host_ops vagx_host_ops = {
    .read = vagx_host_read,
    .write = vagx_host_write,
    .map = vagx_host_map,
    .raise_irq = vagx_host_raise_irq,
    .now_ns = vagx_host_now_ns,
    .kick = vagx_host_kick,
    .access_begin = vagx_host_access_begin,
    .access_end = vagx_host_access_end,
    .event = vagx_host_event,
};

/* ------------------------------------------------------------------------ */
/* Memory map changes                                                       */
/* ------------------------------------------------------------------------ */

static void vagx_dma_region_del(MemoryListener *l, MemoryRegionSection *sec)
{
    VagxState *s = container_of(l, VagxState, dma_listener);

    s->dma_map_changed = true;
}

/*
 * BQL held, end of a memory transaction that removed something from the
 * bus-master view (bus mastering cleared, a BAR moved, RAM unplugged): every
 * device thread must drop the host pointers it cached.  Waiting (bounded)
 * for them to do so keeps the promise the kernel relies on: once clearing
 * Bus Master returns, no DMA through an old translation follows.  Device
 * threads never wait for the BQL, so this cannot deadlock.
 */
static void vagx_dma_commit(MemoryListener *l)
{
    VagxState *s = container_of(l, VagxState, dma_listener);

    uint32_t ms = s->reset_timeout_ms;

    if (!s->dma_map_changed || !s->core) {
        return;
    }
    s->dma_map_changed = false;
    /* A thread that already let a flush time out is stuck (a job without
     * safepoints): do not make every later transaction -- a rebooting
     * guest programs BARs by the dozen -- wait the full bound for it. */
    if (s->dma_flush_stuck) {
        ms = MIN(ms, VAGX_STUCK_FLUSH_MS);
    }
    s->dma_flush_stuck =
        vagx_core_host_map_flush(s->core, (uint64_t)ms * SCALE_MS) != 0;
    if (s->dma_flush_stuck) {
        VAGX_GUEST_ERR(vagx_err_dma_flush_timeout, "a device thread did not "
                       "drop its guest-memory pointers within %u ms of a "
                       "memory map change; it does at its next safepoint",
                       ms);
    }
}

/* ------------------------------------------------------------------------ */
/* Front-end thread                                                         */
/* ------------------------------------------------------------------------ */

static void *vagx_frontend_thread(void *opaque)
{
    VagxState *s = opaque;

    rcu_register_thread();
    vagx_thread_rcu_registered = true;

    qemu_mutex_lock(&s->fe_lock);
    while (!s->fe_exit) {
        if (s->fe_pause || s->fe_vm_stopped ||
            !(s->fe_kicked || vagx_core_has_work(s->core))) {
            qemu_cond_wait(&s->fe_cond, &s->fe_lock);
            continue;
        }
        s->fe_kicked = false;
        s->fe_busy = true;
        qemu_mutex_unlock(&s->fe_lock);

        vagx_core_process(s->core);

        qemu_mutex_lock(&s->fe_lock);
        s->fe_busy = false;
        qemu_cond_broadcast(&s->fe_idle_cond);
    }
    qemu_mutex_unlock(&s->fe_lock);

    vagx_thread_rcu_registered = false;
    rcu_unregister_thread();
    return NULL;
}

/*
 * Stop the front-end from calling vagx_core_process() and wait until it is
 * outside, for at most timeout_ms.  Safe with the BQL held: the front-end
 * never takes the BQL.  Returns false if it is still inside (a job that did
 * not reach its abort check); it stays paused either way until resumed.
 */
static bool vagx_frontend_pause(VagxState *s, uint32_t timeout_ms)
{
    int64_t deadline = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + timeout_ms;
    bool idle;

    qemu_mutex_lock(&s->fe_lock);
    s->fe_pause++;
    while (s->fe_busy) {
        int64_t left = deadline - qemu_clock_get_ms(QEMU_CLOCK_REALTIME);

        if (left <= 0) {
            break;
        }
        qemu_cond_timedwait(&s->fe_idle_cond, &s->fe_lock, left);
    }
    idle = !s->fe_busy;
    qemu_mutex_unlock(&s->fe_lock);
    return idle;
}

static void vagx_frontend_resume(VagxState *s)
{
    qemu_mutex_lock(&s->fe_lock);
    assert(s->fe_pause > 0);
    s->fe_pause--;
    qemu_cond_signal(&s->fe_cond);
    qemu_mutex_unlock(&s->fe_lock);
}

static void vagx_vm_state_change(void *opaque, bool running, RunState state)
{
    VagxState *s = opaque;

    qemu_mutex_lock(&s->fe_lock);
    s->fe_vm_stopped = !running;
    qemu_cond_signal(&s->fe_cond);
    qemu_mutex_unlock(&s->fe_lock);
}

/* ------------------------------------------------------------------------ */
/* BAR0                                                                     */
/* ------------------------------------------------------------------------ */

static uint64_t vagx_regs_read(void *opaque, hwaddr addr, unsigned size)
{
    VagxState *s = opaque;

    if (addr >= VAGX_MSIX_TABLE_OFFSET) {
        VAGX_GUEST_ERR(vagx_err_reserved_read,
                       "read of reserved BAR0 offset 0x%" PRIx64,
                       (uint64_t)addr);
        return 0;
    }
    return vagx_core_mmio_read(s->core, addr, size);
}

static void vagx_regs_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    VagxState *s = opaque;

    if (addr >= VAGX_MSIX_TABLE_OFFSET) {
        VAGX_GUEST_ERR(vagx_err_reserved_write, "write of 0x%" PRIx64
                       " to reserved BAR0 offset 0x%" PRIx64,
                       val, (uint64_t)addr);
        return;
    }
    vagx_core_mmio_write(s->core, addr, val, size);
    /* INT_STATUS/INT_ENABLE may have changed the INTx level. */
    vagx_update_intx(s);
}

static const MemoryRegionOps vagx_regs_ops = {
    .read = vagx_regs_read,
    .write = vagx_regs_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 4, .max_access_size = 8 },
    .impl = { .min_access_size = 4, .max_access_size = 4 },
};

static void vagx_msix_use_all(PCIDevice *pdev)
{
    if (!msix_present(pdev)) {
        return;
    }
    msix_unuse_all_vectors(pdev);
    for (int i = 0; i < VAGX_MSIX_VECTORS; i++) {
        msix_vector_use(pdev, i);
    }
}

/* ------------------------------------------------------------------------ */
/* Scanout                                                                  */
/* ------------------------------------------------------------------------ */

static bool vagx_scanout_usable(const struct vagx_core_scanout *a)
{
    uint32_t bpp;

    if (!a->enable || !vagx_scanout_format_is_valid(a->format) ||
        a->width < 1 || a->width > VAGX_SCANOUT_MAX_WIDTH ||
        a->height < 1 || a->height > VAGX_SCANOUT_MAX_HEIGHT) {
        return false;
    }
    bpp = vagx_scanout_format_bpp((enum vagx_scanout_format)a->format);
    return bpp && (uint64_t)a->pitch >= (uint64_t)a->width * bpp;
}

/* Main loop, BQL held: on display refresh and for screendump. */
static void vagx_gfx_update(void *opaque)
{
    VagxHead *hd = opaque;
    VagxState *s = hd->s;
    struct vagx_core_scanout a = hd->active;
    bool usable = vagx_scanout_usable(&a);
    /* SCANOUT_CONTROL.BLANK: black at the configured size, nothing read. */
    bool ok = usable && !a.blank;
    DisplaySurface *ds = qemu_console_surface(hd->con);
    uint32_t w, h;

    if (usable) {
        w = a.width;
        h = a.height;
    } else if (ds) {
        w = surface_width(ds);
        h = surface_height(ds);
    } else {
        w = s->xres;
        h = s->yres;
    }
    if (!ds || surface_width(ds) != w || surface_height(ds) != h ||
        surface_format(ds) != PIXMAN_x8r8g8b8) {
        ds = qemu_create_displaysurface(w, h);
        dpy_gfx_replace_surface(hd->con, ds);
    }

    if (ok) {
        if (!hd->row_buf) {
            hd->row_buf = g_malloc(VAGX_SCANOUT_MAX_WIDTH * 4);
        }
        for (uint32_t y = 0; y < h; y++) {
            uint32_t *dst = (uint32_t *)(surface_data(ds) +
                                         (size_t)y * surface_stride(ds));
            /* The framebuffer row with the cursor blended over it.  Faults
             * set SCANOUT_STATUS.FAULT and latch FAULT_* (unit SCANOUT) in
             * the core; the frame is shown black. */
            if (vagx_core_scanout_compose_row(s->core, hd->index, &a, y,
                                              dst, hd->row_buf)) {
                ok = false;
                break;
            }
        }
    }
    if (!ok) {
        for (uint32_t y = 0; y < h; y++) {
            memset(surface_data(ds) + (size_t)y * surface_stride(ds), 0,
                   (size_t)w * 4);
        }
    }
    dpy_gfx_update_full(hd->con);
}

static void vagx_gfx_invalidate(void *opaque)
{
}

static const GraphicHwOps vagx_gfx_ops = {
    .invalidate = vagx_gfx_invalidate,
    .gfx_update = vagx_gfx_update,
};

static int64_t vagx_frame_ns(VagxHead *hd)
{
    uint32_t mhz = vagx_core_mmio_read(hd->s->core, VAGX_REG_SCANOUT_REFRESH +
                                       hd->index * VAGX_SCANOUT_HEAD_STRIDE, 4);

    if (mhz < 1000 || mhz > 1000000) {
        mhz = VAGX_SCANOUT_REFRESH_MHZ;
    }
    return (int64_t)(1000000000000ULL / mhz);
}

/* Frames the timer may be behind before it stops catching up. */
#define VAGX_VBLANK_MAX_CATCHUP 4

/*
 * QEMU_CLOCK_VIRTUAL timer, main loop: one vblank per frame.  Vblanks keep
 * their phase (due times are multiples of the frame period, however late
 * the main loop runs this), each one counted and time-stamped when it was
 * due, so the vblank count and the refresh rate the guest measures follow
 * SCANOUT_REFRESH exactly.  A loop stalled for a few frames catches up with
 * back-to-back vblanks; after a longer stall (an overloaded host) the older
 * missed vblanks are counted at once, as one interrupt, so the count still
 * matches the timestamps (the virtual clock does not run while the VM is
 * stopped, so a stop is no stall).
 */
static void vagx_vblank_timer(void *opaque)
{
    VagxHead *hd = opaque;
    struct vagx_core *core = hd->s->core;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    int64_t frame = vagx_frame_ns(hd);
    int64_t due = now < hd->vblank_due ? 1 : (now - hd->vblank_due) / frame + 1;

    if (due > VAGX_VBLANK_MAX_CATCHUP) {
        int64_t batch = due - VAGX_VBLANK_MAX_CATCHUP + 1;
        int64_t last = hd->vblank_due + (batch - 1) * frame;

        vagx_core_vblank_late(core, hd->index, &hd->active, now - last,
                              (uint32_t)MIN(batch, UINT32_MAX));
        hd->vblank_due = last + frame;
        due = VAGX_VBLANK_MAX_CATCHUP - 1;
    }
    for (; due > 0; due--) {
        vagx_core_vblank_late(core, hd->index, &hd->active,
                              now > hd->vblank_due ? now - hd->vblank_due : 0,
                              1);
        hd->vblank_due += frame;
    }
    timer_mod(hd->vblank_timer, hd->vblank_due);
}

/* ------------------------------------------------------------------------ */
/* Lifecycle                                                                */
/* ------------------------------------------------------------------------ */

static void vagx_stall_fini(VagxState *s)
{
    qemu_cond_destroy(&s->stall_cond);
    qemu_mutex_destroy(&s->stall_lock);
}

static void vagx_realize(PCIDevice *pdev, Error **errp)
{
    VagxState *s = VAGX(pdev);
    struct vagx_core_config cfg = { 0 };

    if (s->num_queues < 1 || s->num_queues > VAGX_MAX_QUEUES) {
        error_setg(errp, "vagx: queues must be in 1..%d", VAGX_MAX_QUEUES);
        return;
    }
    if (s->num_workers > 64) {
        error_setg(errp, "vagx: workers must be in 0..64 (0: host CPUs)");
        return;
    }
    if (s->xres < 1 || s->xres > VAGX_SCANOUT_MAX_WIDTH ||
        s->yres < 1 || s->yres > VAGX_SCANOUT_MAX_HEIGHT) {
        error_setg(errp, "vagx: xres/yres out of range");
        return;
    }
    if (s->num_heads < 1 || s->num_heads > VAGX_SCANOUT_MAX_HEADS) {
        error_setg(errp, "vagx: heads must be in 1..%d",
                   VAGX_SCANOUT_MAX_HEADS);
        return;
    }

    cfg.num_queues = s->num_queues;
    cfg.num_workers = s->num_workers;
    cfg.num_heads = s->num_heads;
    qemu_mutex_init(&s->stall_lock);
    qemu_cond_init(&s->stall_cond);
    s->core = vagx_core_create(&vagx_host_ops, s, &cfg);
    if (!s->core) {
        error_setg(errp, "vagx: cannot create the renderer core");
        vagx_stall_fini(s);
        return;
    }

    pdev->config[PCI_INTERRUPT_PIN] = 1;

    memory_region_init(&s->bar0, OBJECT(s), "vagx-bar0", VAGX_BAR0_SIZE);
    memory_region_init_io(&s->regs, OBJECT(s), &vagx_regs_ops, s,
                          "vagx-regs", VAGX_BAR0_SIZE);
    /* The MSI-X table and PBA (priority 0) sit on top of the registers. */
    memory_region_add_subregion_overlap(&s->bar0, 0, &s->regs, -1);

    if (pci_bus_is_express(pci_get_bus(pdev))) {
        pcie_endpoint_cap_init(pdev, 0x80);
        pcie_cap_flr_init(pdev);
    } else {
        pdev->cap_present &= ~QEMU_PCI_CAP_EXPRESS;
    }

    if (msix_init(pdev, VAGX_MSIX_VECTORS, &s->bar0, 0, VAGX_MSIX_TABLE_OFFSET,
                  &s->bar0, 0, VAGX_MSIX_PBA_OFFSET, 0, errp)) {
        if (pdev->cap_present & QEMU_PCI_CAP_EXPRESS) {
            pcie_cap_exit(pdev);
        }
        vagx_core_destroy(s->core);
        s->core = NULL;
        vagx_stall_fini(s);
        return;
    }
    vagx_msix_use_all(pdev);
    pci_register_bar(pdev, 0, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->bar0);

    s->irq_bh = qemu_bh_new_guarded(vagx_irq_bh, s,
                                    &DEVICE(pdev)->mem_reentrancy_guard);

    qemu_mutex_init(&s->fe_lock);
    qemu_cond_init(&s->fe_cond);
    qemu_cond_init(&s->fe_idle_cond);
    s->fe_vm_stopped = !runstate_is_running();
    qemu_thread_create(&s->fe_thread, "vagx-fe", vagx_frontend_thread, s,
                       QEMU_THREAD_JOINABLE);
    s->fe_started = true;
    s->vmse = qemu_add_vm_change_state_handler(vagx_vm_state_change, s);

    s->dma_listener = (MemoryListener) {
        .name = "vagx-dma",
        .region_del = vagx_dma_region_del,
        .commit = vagx_dma_commit,
    };
    memory_listener_register(&s->dma_listener, pci_get_address_space(pdev));
    s->dma_listener_on = true;

    /* One console per head, numbered by head (QMP screendump's `head`), as
     * virtio-gpu's outputs. */
    for (unsigned h = 0; h < s->num_heads; h++) {
        VagxHead *hd = &s->head[h];

        hd->s = s;
        hd->index = h;
        hd->con = graphic_console_init(DEVICE(pdev), h, &vagx_gfx_ops, hd);
        /* Unplugged before the machine started: the reset that follows
         * clears the HOTPLUG this latches. */
        vagx_core_set_connected(s->core, h, hd->connected);
        hd->vblank_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, vagx_vblank_timer,
                                        hd);
        hd->vblank_due = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                         vagx_frame_ns(hd);
        timer_mod(hd->vblank_timer, hd->vblank_due);
    }
}

static void vagx_exit(PCIDevice *pdev)
{
    VagxState *s = VAGX(pdev);

    for (unsigned h = 0; h < VAGX_SCANOUT_MAX_HEADS; h++) {
        VagxHead *hd = &s->head[h];

        if (hd->vblank_timer) {
            timer_free(hd->vblank_timer);
            hd->vblank_timer = NULL;
        }
        if (hd->con) {
            graphic_console_close(hd->con);
            hd->con = NULL;
        }
    }
    if (s->vmse) {
        qemu_del_vm_change_state_handler(s->vmse);
        s->vmse = NULL;
    }
    if (s->dma_listener_on) {
        memory_listener_unregister(&s->dma_listener);
        s->dma_listener_on = false;
    }
    if (s->fe_started) {
        qemu_mutex_lock(&s->fe_lock);
        s->fe_exit = true;
        qemu_cond_signal(&s->fe_cond);
        qemu_mutex_unlock(&s->fe_lock);
        /* Make a long job return at its next safe point. */
        s->in_reset = true;
        vagx_core_mmio_write(s->core, VAGX_REG_RESET, VAGX_RESET_START(1), 4);
        /*
         * No timer bounds this join, but the device's promise does
         * (docs/hw/queues-and-jobs.md, "Bounds"): every job ends at most a
         * safepoint interval of work after RESET (or after the host reset
         * of a reset hold that timed out, which dropped the jobs already),
         * no job starts while the reset is pending, and device threads
         * never wait for the BQL held here.  So vagx_core_process()
         * returns, the front-end sees fe_exit and exits.  Only a renderer
         * loop that skips its abort check -- a bug the fuzzers look for
         * -- could hold it; a timed join could not help then, as the core
         * cannot be freed under a running job.  The workers joined by
         * vagx_core_destroy() below are idle by then.
         */
        qemu_thread_join(&s->fe_thread);
        s->fe_started = false;
        qemu_cond_destroy(&s->fe_idle_cond);
        qemu_cond_destroy(&s->fe_cond);
        qemu_mutex_destroy(&s->fe_lock);
    }
    if (s->core) {
        vagx_core_destroy(s->core);     /* joins the workers */
        s->core = NULL;
        vagx_stall_fini(s);
    }
    if (s->irq_bh) {
        qemu_bh_delete(s->irq_bh);
        s->irq_bh = NULL;
    }
    for (unsigned h = 0; h < VAGX_SCANOUT_MAX_HEADS; h++) {
        g_free(s->head[h].row_buf);
        s->head[h].row_buf = NULL;
    }
    msix_uninit(pdev, &s->bar0, &s->bar0);
    if (pdev->cap_present & QEMU_PCI_CAP_EXPRESS) {
        pcie_cap_exit(pdev);
    }
}

/*
 * Device reset (system reset, FLR, bus reset): abort every job, wait for the
 * front-end to leave vagx_core_process(), reset the core to power-on state.
 * The PCI core has already reset config space and MSI-X.
 *
 * Bounded: the main loop holds the BQL here, so it waits at most
 * reset-timeout-ms in all.  A job that does not stop in time (it never
 * reaches an abort check) leaves the core's reset pending: STATUS.RESET_BUSY
 * reads 1, nothing new starts, and the front-end completes the reset when
 * the job ends.  The device is wedged meanwhile, the VM is not.
 */
static void vagx_reset_hold(Object *obj, ResetType type)
{
    VagxState *s = VAGX(obj);
    PCIDevice *pdev = PCI_DEVICE(obj);
    int64_t start = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    bool done = false;

    if (!s->core) {
        return;
    }
    s->in_reset = true;
    qatomic_set(&s->reset_stall, true);
    /* Running jobs stop at their next abort check, no completion writes. */
    vagx_core_reset_host_begin(s->core);
    if (vagx_frontend_pause(s, s->reset_timeout_ms)) {
        int64_t left = s->reset_timeout_ms -
                       (qemu_clock_get_ms(QEMU_CLOCK_REALTIME) - start);

        done = !vagx_core_reset_host_timeout(s->core,
                                             MAX(left, 0) * SCALE_MS);
    }
    if (!done) {
        VAGX_GUEST_ERR(vagx_err_reset_timeout, "reset: a job did not stop "
                       "within %u ms; the device stays in reset (RESET_BUSY) "
                       "until it does", s->reset_timeout_ms);
    }
    qatomic_set(&s->irq_deferred, 0);
    for (unsigned h = 0; h < VAGX_SCANOUT_MAX_HEADS; h++) {
        memset(&s->head[h].active, 0, sizeof(s->head[h].active));
    }
    s->in_reset = false;
    qemu_mutex_lock(&s->stall_lock);
    qatomic_set(&s->reset_stall, false);
    qemu_cond_broadcast(&s->stall_cond);
    qemu_mutex_unlock(&s->stall_lock);
    vagx_frontend_resume(s);

    vagx_msix_use_all(pdev);
    pci_set_irq(pdev, 0);
}

/* Config space: the PCIe FLR bit is acted on only if the device asks. */
static void vagx_config_write(PCIDevice *pdev, uint32_t addr, uint32_t val,
                              int len)
{
    pci_default_write_config(pdev, addr, val, len);
    if (pdev->cap_present & QEMU_PCI_CAP_EXPRESS) {
        pcie_cap_flr_write_config(pdev, addr, val, len);
    }
}

/*
 * head<h>-connected (contract 1.9 hotplug): whether a display is plugged
 * into head h, SCANOUT_STATUS.CONNECTED; qom-set at run time unplugs or
 * plugs it (INT HOTPLUG).  Main loop, BQL held.
 */
static void vagx_get_connected(Object *obj, Visitor *v, const char *name,
                               void *opaque, Error **errp)
{
    VagxHead *hd = opaque;
    bool value = hd->connected;

    visit_type_bool(v, name, &value, errp);
}

static void vagx_set_connected(Object *obj, Visitor *v, const char *name,
                               void *opaque, Error **errp)
{
    VagxHead *hd = opaque;
    VagxState *s = VAGX(obj);
    bool value;

    if (!visit_type_bool(v, name, &value, errp)) {
        return;
    }
    if (s->core && hd->index >= s->num_heads) {
        error_setg(errp, "vagx: the device has %u head(s)", s->num_heads);
        return;
    }
    hd->connected = value;
    if (s->core) {
        vagx_core_set_connected(s->core, hd->index, value);
    }
}

static void vagx_instance_init(Object *obj)
{
    VagxState *s = VAGX(obj);

    PCI_DEVICE(obj)->cap_present |= QEMU_PCI_CAP_EXPRESS;
    for (unsigned h = 0; h < VAGX_SCANOUT_MAX_HEADS; h++) {
        g_autofree char *name = g_strdup_printf("head%u-connected", h);

        s->head[h].s = s;
        s->head[h].index = h;
        s->head[h].connected = true;
        object_property_add(obj, name, "bool", vagx_get_connected,
                            vagx_set_connected, NULL, &s->head[h]);
    }
}

static const Property vagx_props[] = {
    DEFINE_PROP_UINT32("queues", VagxState, num_queues, 4),
    DEFINE_PROP_UINT32("workers", VagxState, num_workers, 0),
    DEFINE_PROP_UINT32("xres", VagxState, xres, VAGX_DEFAULT_XRES),
    DEFINE_PROP_UINT32("yres", VagxState, yres, VAGX_DEFAULT_YRES),
    /* CONFIG.NUM_SCANOUTS: the contract's 2 (1.9), or 1 for a device that
     * looks like a 1.8 one to the display side (one console). */
    DEFINE_PROP_UINT32("heads", VagxState, num_heads,
                       VAGX_CONFIG_NUM_SCANOUTS_GET(VAGX_REG_CONFIG_RESET)),
    DEFINE_PROP_UINT32("reset-timeout-ms", VagxState, reset_timeout_ms,
                       VAGX_DEFAULT_RESET_TIMEOUT_MS),
    DEFINE_PROP_BOOL("x-stall-in-reset", VagxState, x_stall_in_reset, false),
};

/* Jobs run on host threads with host pointers into guest RAM: no migration. */
static const VMStateDescription vmstate_vagx = {
    .name = "vagx",
    .unmigratable = 1,
};

static void vagx_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    k->realize = vagx_realize;
    k->exit = vagx_exit;
    k->config_write = vagx_config_write;
    k->vendor_id = VAGX_PCI_VENDOR_ID;
    k->device_id = VAGX_PCI_DEVICE_ID;
    k->subsystem_vendor_id = VAGX_PCI_SUBSYSTEM_VENDOR_ID;
    k->subsystem_id = VAGX_PCI_SUBSYSTEM_ID;
    k->class_id = VAGX_PCI_CLASS;
    k->revision = VAGX_PCI_REVISION;
    rc->phases.hold = vagx_reset_hold;
    dc->desc = "vagx AGX-like tile-based GPU";
    dc->vmsd = &vmstate_vagx;
    dc->hotpluggable = false;
    device_class_set_props(dc, vagx_props);
    set_bit(DEVICE_CATEGORY_DISPLAY, dc->categories);
}

static const TypeInfo vagx_types[] = {
    {
        .name = TYPE_VAGX,
        .parent = TYPE_PCI_DEVICE,
        .instance_size = sizeof(VagxState),
        .instance_init = vagx_instance_init,
        .class_init = vagx_class_init,
        .interfaces = (InterfaceInfo[]) {
            { INTERFACE_PCIE_DEVICE },
            { INTERFACE_CONVENTIONAL_PCI_DEVICE },
            { },
        },
    },
};

DEFINE_TYPES(vagx_types)
