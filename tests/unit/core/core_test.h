/* SPDX-License-Identifier: MIT */
/*
 * Test harness of the renderer core: a fake guest (flat RAM buffer, irq
 * recorder, host clock) behind vagx_core_host_ops, and a tiny "driver" that
 * builds page tables (with the contract's vagx_pt.h) and rings the way
 * vagx.ko does -- every PTE, header and descriptor is packed with the
 * generated helpers of vagx_hw.h.
 */
#ifndef VAGX_CORE_TEST_H
#define VAGX_CORE_TEST_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vagx_check.h"
#include "vagx_hw.h"
#include "vagx_core.h"
#include "vagx_pt.h"

/* ------------------------------------------------------------ fake guest -- */

struct fake {
   uint8_t *ram;
   uint64_t size;
   uint64_t next;                    /* page allocator */
   bool nomap;                       /* hide the map fast path */
   _Atomic unsigned irq[VAGX_MSIX_VECTORS];
   _Atomic unsigned kicks;
   /* host_ops.event: count and last event of each kind */
   _Atomic unsigned events[VAGX_CORE_EVENT_KINDS];
   struct vagx_core_event last[VAGX_CORE_EVENT_KINDS];
};

static inline int f_read(void *o, uint64_t pa, void *buf, size_t len)
{
   struct fake *f = (struct fake *)o;
   if (pa >= f->size || len > f->size - pa)
      return -1;
   memcpy(buf, f->ram + pa, len);
   return 0;
}

static inline int f_write(void *o, uint64_t pa, const void *buf, size_t len)
{
   struct fake *f = (struct fake *)o;
   if (pa >= f->size || len > f->size - pa)
      return -1;
   memcpy(f->ram + pa, buf, len);
   return 0;
}

/* The core's access brackets (host_ops.access_begin/end): a thread may hold
 * map pointers only inside one, and brackets do not nest.  Every test of
 * the core checks both through the fake host. */
#ifdef VAGX_CHECK_SHARED
/* A program of several files (vagx_check.h) keeps one set, which one of
 * its files defines. */
extern _Thread_local int f_depth;
extern _Atomic unsigned f_maps_outside, f_bracket_errors;
#else
static _Thread_local int f_depth;
static _Atomic unsigned f_maps_outside, f_bracket_errors;
#endif

static inline void f_begin(void *o)
{
   (void)o;
   if (f_depth++ != 0)
      atomic_fetch_add(&f_bracket_errors, 1);
}

static inline void f_end(void *o)
{
   (void)o;
   if (--f_depth != 0)
      atomic_fetch_add(&f_bracket_errors, 1);
}

static inline void *f_map(void *o, uint64_t pa, size_t len, bool write)
{
   struct fake *f = (struct fake *)o;
   (void)write;
   if (f_depth != 1)
      atomic_fetch_add(&f_maps_outside, 1);
   if (f->nomap || pa >= f->size || len > f->size - pa)
      return NULL;
   return f->ram + pa;
}

static inline void f_irq(void *o, unsigned v)
{
   struct fake *f = (struct fake *)o;
   if (v < VAGX_MSIX_VECTORS)
      atomic_fetch_add(&f->irq[v], 1);
}

static inline uint64_t f_now(void *o)
{
   (void)o;
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void f_kick(void *o)
{
   atomic_fetch_add(&((struct fake *)o)->kicks, 1);
}

static inline void f_event(void *o, const struct vagx_core_event *ev)
{
   struct fake *f = (struct fake *)o;
   f->last[ev->kind] = *ev;
   atomic_fetch_add(&f->events[ev->kind], 1);
}

static const struct vagx_core_host_ops fake_ops = {
   .read = f_read, .write = f_write, .map = f_map, .raise_irq = f_irq, .now_ns = f_now,
   .kick = f_kick, .access_begin = f_begin, .access_end = f_end, .event = f_event,
};

static inline struct fake *fake_new(uint64_t size)
{
   struct fake *f = (struct fake *)calloc(1, sizeof(*f));
   f->ram = (uint8_t *)aligned_alloc(VAGX_PAGE_SIZE, size);
   memset(f->ram, 0, size);
   f->size = size;
   f->next = VAGX_PAGE_SIZE; /* PA 0 stays unused */
   return f;
}

static inline void fake_free(struct fake *f)
{
   free(f->ram);
   free(f);
}

static inline uint64_t pa_alloc(struct fake *f, uint64_t bytes)
{
   uint64_t n = (bytes + VAGX_PAGE_SIZE - 1) & ~(uint64_t)(VAGX_PAGE_SIZE - 1);
   if (f->next + n > f->size) {
      fprintf(stderr, "fake guest out of memory\n");
      abort();
   }
   uint64_t pa = f->next;
   f->next += n;
   memset(f->ram + pa, 0, n);
   return pa;
}

static inline void *pa_ptr(struct fake *f, uint64_t pa)
{
   return f->ram + pa;
}

static inline uint32_t *pa_u32(struct fake *f, uint64_t pa)
{
   return (uint32_t *)(void *)(f->ram + pa);
}

static inline uint64_t pa_u64(struct fake *f, uint64_t pa)
{
   uint64_t v;
   memcpy(&v, f->ram + pa, 8);
   return v;
}

/* -------------------------------------------------------- page tables -- */
/* Built with the contract's page-table library (vagx_pt.h) over the fake
 * guest's RAM, new tables from the page allocator. */

static inline uint64_t pt_alloc_table(void *o)
{
   return pa_alloc((struct fake *)o, VAGX_PAGE_SIZE);
}

static const struct vagx_pt_ops fake_pt_ops = {
   .read = f_read, .write = f_write, .alloc_table = pt_alloc_table,
};

/* The tests build only tables they can build: anything else is a bug of
 * the test itself. */
static inline void pt_ok(enum vagx_pt_status st, const char *what, uint64_t va)
{
   if (st != VAGX_PT_OK) {
      fprintf(stderr, "%s 0x%llx: page-table status %d\n", what, (unsigned long long)va, st);
      abort();
   }
}

static inline void pte_store(struct fake *f, uint64_t pa, const struct vagx_pte *p)
{
   pt_ok(vagx_pt_store(&fake_pt_ops, f, pa, vagx_pte_encode(p)) ? VAGX_PT_BUS_ERROR : VAGX_PT_OK,
         "pte_store", pa);
}

static inline struct vagx_pte pte_load(struct fake *f, uint64_t pa)
{
   uint64_t raw = 0;
   struct vagx_pte p;
   pt_ok(vagx_pt_load(&fake_pt_ops, f, pa, &raw) ? VAGX_PT_BUS_ERROR : VAGX_PT_OK, "pte_load", pa);
   vagx_pte_decode(raw, &p);
   return p;
}

static inline uint64_t vm_new(struct fake *f)
{
   return pa_alloc(f, VAGX_PAGE_SIZE);
}

/* PA of the entry for va at `level`, creating the tables above it. */
static inline uint64_t vm_entry(struct fake *f, uint64_t root, uint64_t va, unsigned level)
{
   uint64_t e = 0;
   pt_ok(vagx_pt_entry(&fake_pt_ops, f, root, va, level, true, &e), "vm_entry", va);
   return e;
}

static inline void vm_map_page(struct fake *f, uint64_t root, uint64_t va, uint64_t pa, bool ro, bool nx)
{
   pt_ok(vagx_pt_map(&fake_pt_ops, f, root, va, pa, ro, nx), "vm_map_page", va);
}

static inline void vm_set_null(struct fake *f, uint64_t root, uint64_t va, unsigned level)
{
   pt_ok(vagx_pt_set(&fake_pt_ops, f, root, va, level, vagx_pte_null()), "vm_set_null", va);
}

static inline void vm_unmap(struct fake *f, uint64_t root, uint64_t va)
{
   pt_ok(vagx_pt_unmap(&fake_pt_ops, f, root, va), "vm_unmap", va);
}

/* Allocates physically contiguous backing for [va, va+size) and maps it.
 * Returns the PA of va. */
static inline uint64_t vm_alloc(struct fake *f, uint64_t root, uint64_t va, uint64_t size, bool ro)
{
   uint64_t pa = pa_alloc(f, size);
   for (uint64_t o = 0; o < size; o += VAGX_PAGE_SIZE)
      vm_map_page(f, root, va + o, pa + o, ro, false);
   return pa;
}

/* Bits of a PTE no field covers (the page-table library's), by dword. */
static inline void pte_reserved_mask(uint32_t out[VAGX_PTE_DWORDS])
{
   const uint64_t m = vagx_pte_reserved_mask();
   out[0] = (uint32_t)m;
   out[1] = (uint32_t)(m >> 32);
}

/* ---------------------------------------------------------------- rings -- */

struct tdev {
   struct fake *f;
   struct vagx_core *core;
   uint64_t completion_pa; /* u64 per queue */
};

static inline uint32_t rd(struct tdev *d, uint32_t off)
{
   return vagx_core_mmio_read(d->core, off, 4);
}

static inline void wr(struct tdev *d, uint32_t off, uint32_t v)
{
   vagx_core_mmio_write(d->core, off, v, 4);
}

/* A 64-bit value into a register pair (low word first). */
static inline void wr64(struct tdev *d, uint32_t lo, uint32_t hi, uint64_t v)
{
   wr(d, lo, (uint32_t)v);
   wr(d, hi, (uint32_t)(v >> 32));
}

static inline void tdev_init(struct tdev *d, uint64_t ram, unsigned workers, bool nomap)
{
   memset(d, 0, sizeof(*d));
   d->f = fake_new(ram);
   d->f->nomap = nomap;
   struct vagx_core_config cfg = {.num_workers = workers};
   d->core = vagx_core_create(&fake_ops, d->f, &cfg);
   d->completion_pa = pa_alloc(d->f, VAGX_PAGE_SIZE);
   wr(d, VAGX_REG_INT_ENABLE, ~0u);
}

static inline void tdev_fini(struct tdev *d)
{
   vagx_core_destroy(d->core);
   fake_free(d->f);
}

struct tq {
   struct tdev *d;
   unsigned q, log2;
   uint64_t ring_pa;
   uint32_t tail;
};

static inline void tq_init(struct tq *t, struct tdev *d, unsigned q, unsigned log2)
{
   t->d = d;
   t->q = q;
   t->log2 = log2;
   t->tail = 0;
   t->ring_pa = pa_alloc(d->f, (uint64_t)VAGX_RING_ENTRY_SIZE << log2);
   wr(d, VAGX_REG_Q_RING_BASE_LO(q), (uint32_t)t->ring_pa);
   wr(d, VAGX_REG_Q_RING_BASE_HI(q), (uint32_t)(t->ring_pa >> 32));
   wr(d, VAGX_REG_Q_RING_SIZE(q), VAGX_Q_RING_SIZE_LOG2(log2));
   wr(d, VAGX_REG_Q_CONTROL(q), VAGX_Q_CONTROL_ENABLE(1));
}

static inline void hdr_init(struct tq *t, struct vagx_job_header *h, enum vagx_job_type type,
                     uint64_t root, uint64_t seqno)
{
   vagx_job_header_init(h);
   h->type = type;
   h->irq = true;
   h->irq_vector = VAGX_MSIX_VECTOR_QUEUE0 + t->q;
   h->pt_root = root;
   h->seqno = seqno;
   h->completion_pa = t->d->completion_pa + 8 * t->q;
}

static inline uint64_t tq_slot(struct tq *t, uint32_t index)
{
   return t->ring_pa + (uint64_t)(index & ((1u << t->log2) - 1)) * VAGX_RING_ENTRY_SIZE;
}

/* Writes the slot (raw header dwords), bumps TAIL, rings the doorbell. */
static inline uint64_t tq_submit_raw(struct tq *t, const uint32_t *hdr, const uint32_t *payload)
{
   struct fake *f = t->d->f;
   uint64_t slot = tq_slot(t, t->tail);
   memset(pa_ptr(f, slot), 0, VAGX_RING_ENTRY_SIZE);
   memcpy(pa_ptr(f, slot + VAGX_RING_SLOT_HEADER_OFFSET), hdr, VAGX_JOB_HEADER_LENGTH);
   if (payload)
      memcpy(pa_ptr(f, slot + VAGX_RING_SLOT_PAYLOAD_OFFSET), payload, VAGX_RING_SLOT_PAYLOAD_SIZE);
   struct vagx_job_result r;
   vagx_job_result_init(&r);
   r.status = VAGX_JOB_STATUS_PENDING;
   vagx_job_result_pack(pa_u32(f, slot + VAGX_RING_SLOT_RESULT_OFFSET), &r);
   t->tail++;
   wr(t->d, VAGX_REG_Q_TAIL(t->q), t->tail);
   wr(t->d, VAGX_REG_Q_DOORBELL(t->q), 1);
   return slot;
}

static inline uint64_t tq_submit(struct tq *t, const struct vagx_job_header *h, const uint32_t *payload)
{
   uint32_t raw[VAGX_JOB_HEADER_DWORDS];
   vagx_job_header_pack(raw, h);
   return tq_submit_raw(t, raw, payload);
}

/* One job of `type` (hdr_init's header) submitted and processed: its slot */
static inline uint64_t tq_run(struct tq *t, enum vagx_job_type type, uint64_t root, uint64_t seqno,
                              const uint32_t *payload)
{
   struct vagx_job_header h;
   hdr_init(t, &h, type, root, seqno);
   const uint64_t slot = tq_submit(t, &h, payload);
   vagx_core_process(t->d->core);
   return slot;
}

/* A FILL or COPY ring slot payload. */
static inline void payload_fill(uint32_t *p, uint64_t dst, uint64_t size, uint32_t pattern)
{
   struct vagx_fill_job j;
   vagx_fill_job_init(&j);
   j.dst_va = dst;
   j.size = size;
   j.pattern = pattern;
   memset(p, 0, VAGX_RING_SLOT_PAYLOAD_SIZE);
   vagx_fill_job_pack(p, &j);
}

static inline void payload_copy(uint32_t *p, uint64_t dst, uint64_t src, uint64_t size)
{
   struct vagx_copy_job j;
   vagx_copy_job_init(&j);
   j.dst_va = dst;
   j.src_va = src;
   j.size = size;
   memset(p, 0, VAGX_RING_SLOT_PAYLOAD_SIZE);
   vagx_copy_job_pack(p, &j);
}

static inline struct vagx_job_result slot_result(struct tdev *d, uint64_t slot)
{
   struct vagx_job_result r;
   vagx_job_result_unpack(pa_u32(d->f, slot + VAGX_RING_SLOT_RESULT_OFFSET), &r, NULL);
   return r;
}

static inline unsigned q_state(struct tdev *d, unsigned q)
{
   return VAGX_Q_STATUS_STATE_GET(rd(d, VAGX_REG_Q_STATUS(q)));
}

static inline uint64_t q_seqno(struct tdev *d, unsigned q)
{
   return rd(d, VAGX_REG_Q_LAST_SEQNO_LO(q)) | (uint64_t)rd(d, VAGX_REG_Q_LAST_SEQNO_HI(q)) << 32;
}

static inline double t_now_s(void)
{
   return (double)f_now(NULL) * 1e-9;
}

/* Polls cond for up to `secs` seconds. */
#define WAIT_UNTIL(cond, secs)                                                  \
   ({                                                                           \
      double t_end_ = t_now_s() + (secs);                                       \
      bool t_ok_ = false;                                                       \
      while (!(t_ok_ = (cond)) && t_now_s() < t_end_)                           \
         usleep(200);                                                           \
      t_ok_;                                                                    \
   })

/* ------------------------------------------------------ decoder output -- */

/* What the decoder prints (vagx_core_print_fn), kept as one string. */
struct sbuf {
   char buf[1 << 16];
   size_t len;
};

static inline void sbuf_print(void *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void sbuf_print(void *ctx, const char *fmt, ...)
{
   struct sbuf *b = (struct sbuf *)ctx;
   va_list ap;
   va_start(ap, fmt);
   int n = vsnprintf(b->buf + b->len, sizeof(b->buf) - b->len, fmt, ap);
   va_end(ap);
   if (n > 0)
      b->len += (size_t)n < sizeof(b->buf) - b->len ? (size_t)n : sizeof(b->buf) - b->len - 1;
}

static inline void sbuf_clear(struct sbuf *b)
{
   b->len = 0;
   b->buf[0] = 0;
}

#endif
