/* SPDX-License-Identifier: MIT */
/*
 * vagx renderer core: the device-level model of the vagx GPU (register file,
 * MMU, queues, copy/fill engine, compute dispatch) as a plain C11 library.
 * It has no QEMU dependency: guest memory, interrupts and time are reached
 * only through struct vagx_core_host_ops, so the same core runs inside QEMU
 * and in-process behind Mesa's drm-shim.  See docs/hw/renderer-core.md.
 *
 * THREADS
 *
 *  - MMIO thread(s): whoever calls vagx_core_mmio_read/write (in QEMU: a vCPU
 *    thread holding the BQL).  These calls are cheap and never block on guest
 *    memory or on job execution: they take the core's register lock for a
 *    few hundred nanoseconds, record state, set abort flags and wake the
 *    front-end.  Heavy work is deferred to vagx_core_process().  They may call
 *    host_ops.raise_irq (INT_RAISE, INT_ENABLE, immediate resets, TLB
 *    invalidation with nothing in flight), host_ops.now_ns (TIMESTAMP_LO) and
 *    host_ops.kick.  They never call read/write/map.
 *
 *  - Front-end thread: exactly one thread at a time calls vagx_core_process()
 *    (in QEMU: the device's own thread, woken by host_ops.kick).  It fetches
 *    job headers from rings, validates them, sets jobs up, hands the work to
 *    the worker pool, waits, then writes results, timestamps, completion
 *    seqnos and raises interrupts.  It calls read/write/map, raise_irq and
 *    now_ns.  vagx_core_frontend_start() creates such a thread inside the core
 *    for users that do not have one (drm-shim, tests).
 *
 *  - Worker threads: owned by the core (vagx_core_config.num_workers, created
 *    in vagx_core_create).  They execute copy/fill chunks and compute
 *    threadgroups.  They call only host_ops.read/write/map.
 *
 *  LOCKS: the core never holds any of its locks while calling a host op.  So
 *  host ops may take the BQL (or any other lock) and may call back into
 *  vagx_core_mmio_read/write.  read/write/map must be thread-safe: workers and
 *  the front-end call them concurrently.  raise_irq is called from the MMIO
 *  thread (inside vagx_core_mmio_write) or from the front-end thread (inside
 *  vagx_core_process), never from a worker; a QEMU binding must therefore
 *  make it safe outside the BQL (take the BQL, or defer to a bottom half).
 *
 *  vagx_core_create/destroy/reset_host: not concurrently with anything else
 *  (vagx_core_reset_host_begin and vagx_core_host_map_flush: any thread).
 *
 *  BOUNDS: no call the host makes waits without a bound on the front-end or
 *  the workers (vagx_core_reset_host_timeout, vagx_core_host_map_flush take
 *  one) -- except vagx_core_destroy and vagx_core_frontend_stop, which join
 *  threads.
 */
#ifndef VAGX_CORE_H
#define VAGX_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vagx_core;

/* What the device just did, for the host's logs and traces (the QEMU binding
 * turns these into trace events and LOG_GUEST_ERROR messages).  Numbers are
 * the contract's enums (vagx_hw.h). */
enum vagx_core_event_kind {
   /* A job left the ring: queue, seqno, type and slot_pa (the header as
    * fetched, before validation; seqno and type 0 if the slot was
    * unreadable). */
   VAGX_CORE_EVENT_JOB_START,
   /* A job completed: queue, seqno, status (enum vagx_job_status), and for
    * a failure unit, detail and address as in its job_result. */
   VAGX_CORE_EVENT_JOB_END,
   /* A register access the contract rejects (ERROR_STATUS): code (enum
    * vagx_reg_error) and offset.  Every one, latched or not; also a
    * latched writeback whose registers became invalid after its ARM (code
    * BAD_SCANOUT, offset SCANOUT_WB_FORMAT), which only SCANOUT_WB_STATUS
    * reports. */
   VAGX_CORE_EVENT_REG_ERROR,
   /* A translation fault (FAULT_STATUS): queue (VAGX_FAULT_QUEUE_SCANOUT for
    * the scanout engine), address (the VA), root, access, reason, level and
    * unit.  Every one, latched or not. */
   VAGX_CORE_EVENT_MMU_FAULT,
   /* A job ended without a result: a queue or global reset, or the
    * device's destruction, dropped it while it ran (no result, no
    * completion write, no JOB_END): queue and seqno. */
   VAGX_CORE_EVENT_JOB_DROPPED,
};
#define VAGX_CORE_EVENT_KINDS (VAGX_CORE_EVENT_JOB_DROPPED + 1)

struct vagx_core_event {
   enum vagx_core_event_kind kind;
   unsigned queue;
   uint64_t seqno, slot_pa, address, root;
   uint32_t type, status, unit, detail;
   uint32_t code, offset;
   uint32_t access, reason, level;
};

struct vagx_core_host_ops {
   /* Guest-physical memory.  Return 0 on success, nonzero when [pa, pa+len)
    * is not guest RAM (the device reports BUS_ERROR / BAD_ROOT).  Required. */
   int (*read)(void *opaque, uint64_t pa, void *buf, size_t len);
   int (*write)(void *opaque, uint64_t pa, const void *buf, size_t len);
   /* Optional fast path: host pointer for [pa, pa+len) (len <= one page,
    * never crossing a page), or NULL.  The pointer must stay valid until
    * vagx_core_destroy() (guest RAM does not move).  Compute jobs need it:
    * the shader core accesses memory through host pointers; without map they
    * fail with BUS_ERROR. */
   void *(*map)(void *opaque, uint64_t pa, size_t len, bool write);
   /* Signal MSI-X vector `vector` (< VAGX_MSIX_VECTORS).  Edge-triggered;
    * INTx users compute the level from vagx_core_irq_pending(). */
   void (*raise_irq)(void *opaque, unsigned vector);
   /* Monotonic host time in nanoseconds.  Required. */
   uint64_t (*now_ns)(void *opaque);
   /* Optional: work is pending, call vagx_core_process() soon (front-end
    * thread).  Called from the MMIO thread, no core lock held. */
   void (*kick)(void *opaque);
   /* Optional: bracket the stretches in which the calling thread (front-end
    * or worker) may hold pointers returned by map.  The core calls
    * access_begin when a thread starts a slice of work and access_end when
    * it ends it, and end + begin at every safepoint (points where it holds
    * no host pointer).  A QEMU binding takes the RCU read lock here, so
    * guest RAM cannot be reclaimed under a running slice. */
   void (*access_begin)(void *opaque);
   void (*access_end)(void *opaque);
   /* Optional: a struct vagx_core_event happened.  Unlike the other ops it
    * may be called from any thread (MMIO, front-end, worker) and with core
    * locks held: it must only record the event (a trace point, a log line),
    * never block, and never call back into the core. */
   void (*event)(void *opaque, const struct vagx_core_event *ev);
};

struct vagx_core_config {
   unsigned num_queues;  /* implemented queues, 1..VAGX_MAX_QUEUES; 0 = contract default */
   unsigned num_workers; /* worker threads (CONFIG.NUM_CORES); 0 = host CPUs */
   unsigned num_heads;   /* scanout heads (CONFIG.NUM_SCANOUTS), 1..VAGX_SCANOUT_MAX_HEADS; 0 = contract default */
   /* Test hooks (0 = defaults): number of threadgroups a worker runs before it
    * yields to other jobs, bytes per copy/fill slice. */
   unsigned tg_per_slice;
   uint64_t copy_slice_bytes;
};

struct vagx_core *vagx_core_create(const struct vagx_core_host_ops *ops, void *opaque,
                                   const struct vagx_core_config *cfg);
/* Stops the front-end thread (if started) and the workers, drops running jobs
 * without writes, frees everything. */
void vagx_core_destroy(struct vagx_core *core);

/* BAR0 register access (offset relative to BAR0, size 4; other sizes are
 * treated as a 32-bit access of the containing register).  MMIO thread. */
uint32_t vagx_core_mmio_read(struct vagx_core *core, uint32_t offset, unsigned size);
void vagx_core_mmio_write(struct vagx_core *core, uint32_t offset, uint32_t value,
                          unsigned size);

/* Front-end: start every runnable job, wait for the work, complete jobs,
 * repeat until no queue has runnable or running work.  One thread at a time.
 * Returns the number of jobs completed (including failed ones). */
unsigned vagx_core_process(struct vagx_core *core);
/* True when vagx_core_process() has something to do (any thread). */
bool vagx_core_has_work(struct vagx_core *core);

/* Optional built-in front-end thread that runs vagx_core_process() whenever
 * there is work (set by doorbells, resumes, resets...).  host_ops.kick is
 * still called.  Returns 0 on success. */
int vagx_core_frontend_start(struct vagx_core *core);
void vagx_core_frontend_stop(struct vagx_core *core);

/* INT_STATUS & INT_ENABLE, for INTx level computation (any thread). */
uint32_t vagx_core_irq_pending(struct vagx_core *core);

/* Device-level reset from the host (PCI reset): registers to reset values,
 * all jobs dropped.  Not concurrently with process().  Waits at most
 * VAGX_CORE_RESET_HOST_TIMEOUT_NS for the dropped jobs' tasks (see
 * vagx_core_reset_host_timeout). */
void vagx_core_reset_host(struct vagx_core *core);
#define VAGX_CORE_RESET_HOST_TIMEOUT_NS 2000000000ull
/* First half of a host reset, any thread, never blocks: every job is told
 * to stop (no completion writes), RESET_BUSY reads 1 and doorbells start
 * nothing until the reset completes. */
void vagx_core_reset_host_begin(struct vagx_core *core);
/* Begins a host reset and waits at most timeout_ns for the dropped jobs'
 * tasks to end; then completes it (registers to reset values, every cached
 * translation dropped) and returns 0.  Not concurrently with process().
 * Returns -1 when a task did not stop in time: the reset then stays pending
 * (STATUS.RESET_BUSY reads 1, nothing new starts) and the next
 * vagx_core_process() completes it once the last task has ended -- the
 * device is wedged until then, but the caller is not. */
int vagx_core_reset_host_timeout(struct vagx_core *core, uint64_t timeout_ns);

/* The host's memory map changed (RAM removed or moved, bus mastering turned
 * off): pointers returned by map before the call must no longer be used.
 * Every thread drops its cached translations at its next slice start or
 * safepoint; waits at most timeout_ns until every busy thread has passed
 * one.  Returns 0, or -1 when a thread may still hold an old pointer after
 * the timeout (it drops it at its next safepoint).  Any thread except the
 * core's own; never call from inside a host op. */
int vagx_core_host_map_flush(struct vagx_core *core, uint64_t timeout_ns);

/* ---- scanout support for the display side (QEMU console) ---- */
/* struct vagx_core_scanout sizes its overlays by the contract */
#include "vagx_hw.h"
/* One overlay layer (SCANOUT_OVERLAY block n, contract 1.6). */
struct vagx_core_overlay {
   bool enable;
   uint32_t format;   /* enum vagx_scanout_format; ARGB/ABGR: premultiplied */
   uint32_t zpos, alpha;
   int32_t x, y;
   uint32_t width, height, pitch;
   uint64_t va;
};
struct vagx_core_scanout {
   bool enable;
   bool blank;        /* SCANOUT_CONTROL.BLANK: show black, read nothing */
   uint32_t format;   /* enum vagx_scanout_format */
   uint32_t width, height, pitch;
   uint64_t fb_va, root;
   /* Cursor layer (SCANOUT_CURSOR_*): ARGB8888, premultiplied alpha. */
   bool cursor_enable;
   int32_t cursor_x, cursor_y;
   uint32_t cursor_width, cursor_height, cursor_pitch;
   uint64_t cursor_va;
   /* Overlay layers, and their composition order (indices into overlay[],
    * bottom first: increasing zpos, then index). */
   struct vagx_core_overlay overlay[VAGX_SCANOUT_OVERLAYS];
   uint8_t overlay_order[VAGX_SCANOUT_OVERLAYS];
};
/* Scanout heads of the device (CONFIG.NUM_SCANOUTS, contract 1.9): the
 * `head` arguments below are 0..vagx_core_num_heads()-1; a larger one does
 * nothing (vblank) or fails (reads, compose). */
unsigned vagx_core_num_heads(const struct vagx_core *core);
/* A display was (dis)connected to head `head`: SCANOUT_STATUS.CONNECTED,
 * and INT HOTPLUG if it changed.  The MMIO thread (QEMU: BQL held). */
void vagx_core_set_connected(struct vagx_core *core, unsigned head, bool connected);
/* Called by head `head`'s display timer at each vblank (front-end or
 * display thread; raises the head's VBLANK bit from the calling thread):
 * latches a pending commit, counts, records the vblank's timestamp
 * (SCANOUT_VBLANK_TS, calls host_ops.now_ns), sets the head's INT_STATUS
 * VBLANK bit.  Returns the head's active configuration. */
void vagx_core_vblank(struct vagx_core *core, unsigned head, struct vagx_core_scanout *active);
/* The same for `count` (>= 1) vblanks at once, the last of which was due
 * late_ns ago (the display timer ran late): SCANOUT_VBLANK_COUNT advances
 * by count, SCANOUT_VBLANK_TS records the time the last one was due. */
void vagx_core_vblank_late(struct vagx_core *core, unsigned head, struct vagx_core_scanout *active,
                           uint64_t late_ns, uint32_t count);
/* Reads `len` bytes of head `head`'s framebuffer VA range through the MMU
 * with its active root (NULL pages read as zero).  On failure sets the
 * head's SCANOUT_STATUS.FAULT and SCANOUT_FAULT bit, latches the fault
 * (unit SCANOUT) and returns nonzero. */
int vagx_core_scanout_read(struct vagx_core *core, unsigned head, uint64_t va, void *buf,
                           size_t len);
/* Composes row y (< a->width, a->height checked by the caller) of the frame
 * `a` describes into dst[0..a->width-1] as XRGB8888 (u32 0x00RRGGBB): the
 * framebuffer row converted to 8 bits per channel, the enabled overlays
 * (in overlay_order) and the cursor layer blended over it.  scratch holds at least VAGX_SCANOUT_MAX_WIDTH * 4 bytes.  Reads
 * through vagx_core_scanout_read(); returns nonzero on a fault (the frame is
 * then shown black).  Never reads outside the rectangles that `a` names,
 * whatever the overlay and cursor positions. */
int vagx_core_scanout_compose_row(struct vagx_core *core, unsigned head,
                                  const struct vagx_core_scanout *a, uint32_t y, uint32_t *dst,
                                  uint8_t *scratch);
/* The frame CRC's CRC-32 (ISO-HDLC, as zlib's crc32()): continue `crc` over
 * n bytes (start with 0). */
uint32_t vagx_core_crc32(uint32_t crc, const void *buf, size_t n);

/* ---- decoder (core_decode.c) ----
 * Prints the job in the ring slot at slot_pa (guest-physical) and everything
 * it references (descriptors, programs, control streams), reading memory only
 * through ops->read (no map needed).  Never writes.  Returns 0, or nonzero if
 * the slot itself could not be read. */
typedef void (*vagx_core_print_fn)(void *ctx, const char *fmt, ...)
#if defined(__GNUC__)
   __attribute__((format(printf, 2, 3)))
#endif
   ;
int vagx_core_decode_job(const struct vagx_core_host_ops *ops, void *opaque, uint64_t slot_pa,
                         vagx_core_print_fn print, void *print_ctx);
/* Prints every slot HEAD..TAIL-1 of a ring given its base, log2 size and
 * free-running head/tail. */
int vagx_core_decode_ring(const struct vagx_core_host_ops *ops, void *opaque, uint64_t ring_pa,
                          unsigned log2_slots, uint32_t head, uint32_t tail,
                          vagx_core_print_fn print, void *print_ctx);

#ifdef __cplusplus
}
#endif

#endif
