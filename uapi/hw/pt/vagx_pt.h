/*
 * vagx page-table library -- part of the hardware contract.
 *
 * SPDX-License-Identifier: MIT
 *
 * The one implementation of the MMU's page-table format (docs/hw/mmu.md):
 * building entries, finding and setting the entry of a VA at any level
 * (creating the tables above it), unmapping, and the device's walk with its
 * fault rules.  The emulated device's MMU, the drm-shim (which plays the
 * kernel), the qtest, the unit tests and the decoder all use it, so the
 * index arithmetic and the entry layout exist once, next to the generated
 * vagx_hw.h whose constants and packers they are made of.
 *
 * Page-table memory is reached only through the caller's callbacks
 * (struct vagx_pt_ops): guest RAM, a test's flat buffer or a qtest's
 * memread all fit.  Header-only and freestanding: no allocation (new tables
 * come from ops->alloc_table), no OS calls, no libc functions; compiles as
 * C11, as kernel gnu11 (-D__KERNEL__) and as C++17.  Entries are
 * little-endian in memory whatever the host's byte order.
 */
#ifndef VAGX_PT_H
#define VAGX_PT_H

#if defined(__KERNEL__)
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

/* QEMU's qtest includes the generated header by its path in QEMU's build
 * tree ("hw/display/vagx/vagx_hw.h") before this one. */
#ifndef VAGX_HW_H
#include "vagx_hw.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The caller's page-table memory, by guest-physical address. */
struct vagx_pt_ops {
   /* Reads len bytes at pa: 0, or non-zero when pa is outside memory. */
   int (*read)(void *ctx, uint64_t pa, void *buf, size_t len);
   /* Writes len bytes at pa: 0 or non-zero.  Only vagx_pt_set() and the
    * functions built on it write; a walk needs no write. */
   int (*write)(void *ctx, uint64_t pa, const void *buf, size_t len);
   /* A zeroed page for a new table: its page-aligned PA, or 0 when there
    * is no memory.  NULL: missing tables are not created. */
   uint64_t (*alloc_table)(void *ctx);
};

enum vagx_pt_status {
   VAGX_PT_OK = 0,
   VAGX_PT_NO_TABLE,    /* a table above the entry is missing (or is a NULL
                         * subtree) and was not created */
   VAGX_PT_NO_MEMORY,   /* ops->alloc_table returned 0 */
   VAGX_PT_BUS_ERROR,   /* ops->read or ops->write failed */
};

/* ------------------------------------------------------------ entries -- */

/* Bytes of VA one entry at `level` covers: 512 GiB at level 0 down to one
 * page at level VAGX_PT_LEVELS - 1. */
static inline uint64_t vagx_pt_entry_span(unsigned level)
{
   return (uint64_t)1 << (VAGX_PAGE_SHIFT +
                          VAGX_PT_BITS_PER_LEVEL * (VAGX_PT_LEVELS - 1 - level));
}

/* PA of the entry for va in the table at `table` of `level`. */
static inline uint64_t vagx_pt_entry_pa(uint64_t table, uint64_t va, unsigned level)
{
   return table + (uint64_t)vagx_pt_index(va, level) * VAGX_PTE_SIZE;
}

/* The 64-bit value of an entry (dword 0 in the low half). */
static inline uint64_t vagx_pte_encode(const struct vagx_pte *p)
{
   uint32_t dw[VAGX_PTE_DWORDS];
   vagx_pte_pack(dw, p);
   return dw[0] | (uint64_t)dw[1] << 32;
}

/* Fills *p from an entry's value; false when it breaks a rule of the
 * format (reserved bits set, NULL with an address): the walk's
 * RESERVED_BITS.  *p is filled either way. */
static inline bool vagx_pte_decode(uint64_t raw, struct vagx_pte *p)
{
   const uint32_t dw[VAGX_PTE_DWORDS] = {(uint32_t)raw, (uint32_t)(raw >> 32)};
   return vagx_pte_unpack(dw, p, (const char **)0);
}

/* Bits of an entry no field covers: written 0, refused by the walk
 * (RESERVED_BITS).  Derived from the generated packer. */
static inline uint64_t vagx_pte_reserved_mask(void)
{
   struct vagx_pte p;
   vagx_pte_init(&p);
   p.valid = p.read_only = p.null = p.no_exec = true;
   p.addr = ~(uint64_t)0;
   p.sw = ~(uint32_t)0;
   return ~vagx_pte_encode(&p);
}

/* Entry pointing at the next table (levels 0 .. VAGX_PT_LEVELS - 2). */
static inline uint64_t vagx_pte_table(uint64_t table_pa)
{
   struct vagx_pte p;
   vagx_pte_init(&p);
   p.valid = true;
   p.addr = table_pa;
   return vagx_pte_encode(&p);
}

/* Entry mapping one page (level VAGX_PT_LEVELS - 1). */
static inline uint64_t vagx_pte_page(uint64_t pa, bool read_only, bool no_exec)
{
   struct vagx_pte p;
   vagx_pte_init(&p);
   p.valid = true;
   p.read_only = read_only;
   p.no_exec = no_exec;
   p.addr = pa;
   return vagx_pte_encode(&p);
}

/* NULL entry (sparse): at levels above the last, its whole subtree. */
static inline uint64_t vagx_pte_null(void)
{
   struct vagx_pte p;
   vagx_pte_init(&p);
   p.valid = true;
   p.null = true;
   return vagx_pte_encode(&p);
}

/* One entry from or to page-table memory, little-endian. */
static inline int vagx_pt_load(const struct vagx_pt_ops *ops, void *ctx, uint64_t pa,
                               uint64_t *raw)
{
   uint8_t b[VAGX_PTE_SIZE];
   if (ops->read(ctx, pa, b, sizeof(b)))
      return -1;
   /* Written out, compilers fold it into one load on little-endian hosts
    * (the walk runs on every TLB miss of the device). */
   *raw = (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24 |
          (uint64_t)b[4] << 32 | (uint64_t)b[5] << 40 | (uint64_t)b[6] << 48 |
          (uint64_t)b[7] << 56;
   return 0;
}

static inline int vagx_pt_store(const struct vagx_pt_ops *ops, void *ctx, uint64_t pa,
                                uint64_t raw)
{
   uint8_t b[VAGX_PTE_SIZE];
   for (unsigned i = 0; i < VAGX_PTE_SIZE; i++)
      b[i] = (uint8_t)(raw >> (8 * i));
   return ops->write(ctx, pa, b, sizeof(b));
}

/* --------------------------------------------------- building tables -- */

/* *entry_pa = PA of the entry for va at `level` (0 = root).  With create,
 * missing tables above it are allocated and linked; without, a missing one
 * gives VAGX_PT_NO_TABLE.  A NULL entry above `level` also gives
 * VAGX_PT_NO_TABLE: its subtree has no tables to descend into. */
static inline enum vagx_pt_status vagx_pt_entry(const struct vagx_pt_ops *ops, void *ctx,
                                                uint64_t root, uint64_t va, unsigned level,
                                                bool create, uint64_t *entry_pa)
{
   uint64_t table = root;
   for (unsigned l = 0; l < level; l++) {
      const uint64_t e = vagx_pt_entry_pa(table, va, l);
      uint64_t raw;
      struct vagx_pte p;
      if (vagx_pt_load(ops, ctx, e, &raw))
         return VAGX_PT_BUS_ERROR;
      vagx_pte_decode(raw, &p);
      if (p.valid && p.null)
         return VAGX_PT_NO_TABLE;
      if (p.valid) {
         table = p.addr;
         continue;
      }
      if (!create || !ops->alloc_table)
         return VAGX_PT_NO_TABLE;
      table = ops->alloc_table(ctx);
      if (!table)
         return VAGX_PT_NO_MEMORY;
      if (vagx_pt_store(ops, ctx, e, vagx_pte_table(table)))
         return VAGX_PT_BUS_ERROR;
   }
   *entry_pa = vagx_pt_entry_pa(table, va, level);
   return VAGX_PT_OK;
}

/* Writes the entry for va at `level`, creating the tables above it. */
static inline enum vagx_pt_status vagx_pt_set(const struct vagx_pt_ops *ops, void *ctx,
                                              uint64_t root, uint64_t va, unsigned level,
                                              uint64_t pte)
{
   uint64_t e;
   enum vagx_pt_status st = vagx_pt_entry(ops, ctx, root, va, level, true, &e);
   if (st != VAGX_PT_OK)
      return st;
   return vagx_pt_store(ops, ctx, e, pte) ? VAGX_PT_BUS_ERROR : VAGX_PT_OK;
}

/* Maps the page at va to pa. */
static inline enum vagx_pt_status vagx_pt_map(const struct vagx_pt_ops *ops, void *ctx,
                                              uint64_t root, uint64_t va, uint64_t pa,
                                              bool read_only, bool no_exec)
{
   return vagx_pt_set(ops, ctx, root, va, VAGX_PT_LEVELS - 1,
                      vagx_pte_page(pa, read_only, no_exec));
}

/* Clears the last-level entry of va.  Where its table does not exist there
 * is nothing to clear: VAGX_PT_OK, and no table is created.  Tables are
 * never freed (the caller owns their memory). */
static inline enum vagx_pt_status vagx_pt_unmap(const struct vagx_pt_ops *ops, void *ctx,
                                                uint64_t root, uint64_t va)
{
   uint64_t e;
   enum vagx_pt_status st = vagx_pt_entry(ops, ctx, root, va, VAGX_PT_LEVELS - 1, false, &e);
   if (st == VAGX_PT_NO_TABLE)
      return VAGX_PT_OK;
   if (st != VAGX_PT_OK)
      return st;
   return vagx_pt_store(ops, ctx, e, 0) ? VAGX_PT_BUS_ERROR : VAGX_PT_OK;
}

/* ---------------------------------------------------------------- walk -- */

/* Outcome of the device's walk of one VA. */
struct vagx_pt_walk {
   uint64_t pa;                    /* page base (0 for NULL) */
   bool null;                      /* NULL: reads 0, writes dropped */
   bool read_only, no_exec;        /* accumulated over the levels */
   enum vagx_fault_reason reason;  /* when the walk failed */
   unsigned level;                 /* level it failed at */
};

static inline bool vagx_pt_walk_fail(struct vagx_pt_walk *w, enum vagx_fault_reason reason,
                                     unsigned level)
{
   w->reason = reason;
   w->level = level;
   return false;
}

/* The device's translation of va under root, with the rules of
 * docs/hw/mmu.md "Address translation" in their order (valid, then
 * reserved bits, then NULL, then the accumulated permissions, which the
 * caller checks against its access).  Reading an entry fails as BAD_ROOT at
 * level 0 and BUS_ERROR below.  Needs ops->read only. */
static inline bool vagx_pt_walk(const struct vagx_pt_ops *ops, void *ctx, uint64_t root,
                                uint64_t va, struct vagx_pt_walk *w)
{
   w->pa = 0;
   w->null = w->read_only = w->no_exec = false;
   w->reason = VAGX_FAULT_REASON_NOT_PRESENT;
   w->level = 0;
   if (!vagx_va_is_canonical(va))
      return vagx_pt_walk_fail(w, VAGX_FAULT_REASON_ADDRESS_RANGE, 0);
   if (root == 0 || (root & (VAGX_PAGE_SIZE - 1)) || (root >> VAGX_PA_BITS))
      return vagx_pt_walk_fail(w, VAGX_FAULT_REASON_BAD_ROOT, 0);

   uint64_t table = root;
   for (unsigned level = 0; level < VAGX_PT_LEVELS; level++) {
      uint64_t raw;
      struct vagx_pte p;
      if (vagx_pt_load(ops, ctx, vagx_pt_entry_pa(table, va, level), &raw))
         return vagx_pt_walk_fail(w, level == 0 ? VAGX_FAULT_REASON_BAD_ROOT
                                                : VAGX_FAULT_REASON_BUS_ERROR, level);
      const bool ok = vagx_pte_decode(raw, &p);
      if (!p.valid)
         return vagx_pt_walk_fail(w, VAGX_FAULT_REASON_NOT_PRESENT, level);
      if (!ok)
         return vagx_pt_walk_fail(w, VAGX_FAULT_REASON_RESERVED_BITS, level);
      w->read_only |= p.read_only;
      w->no_exec |= p.no_exec;
      if (p.null) {
         w->null = true;
         return true;
      }
      table = p.addr;
   }
   w->pa = table;
   return true;
}

#ifdef __cplusplus
}
#endif

#endif
