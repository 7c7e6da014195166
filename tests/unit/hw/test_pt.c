/* SPDX-License-Identifier: MIT */
/*
 * The page-table library (uapi/hw/pt/vagx_pt.h) against docs/hw/mmu.md:
 * entry spans and layout, building (map, NULL at every level, unmap, table
 * sharing, allocation failures) and the device walk with every fault
 * reason at the level the spec gives, over a flat memory that counts its
 * table allocations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vagx_check.h"
#include "vagx_pt.h"

/* Memory: MEM_PAGES pages at MEM_BASE; tables come from a bump allocator. */
#define MEM_BASE (16 * (uint64_t)VAGX_PAGE_SIZE)
#define MEM_PAGES 64

struct mem {
   uint8_t *ram;
   unsigned next;       /* next free page */
   unsigned allocs;     /* tables handed out */
   bool full;           /* alloc_table fails */
};

static int m_read(void *o, uint64_t pa, void *buf, size_t len)
{
   struct mem *m = o;
   if (pa < MEM_BASE || pa - MEM_BASE + len > (uint64_t)MEM_PAGES * VAGX_PAGE_SIZE)
      return -1;
   memcpy(buf, m->ram + (pa - MEM_BASE), len);
   return 0;
}

static int m_write(void *o, uint64_t pa, const void *buf, size_t len)
{
   struct mem *m = o;
   if (pa < MEM_BASE || pa - MEM_BASE + len > (uint64_t)MEM_PAGES * VAGX_PAGE_SIZE)
      return -1;
   memcpy(m->ram + (pa - MEM_BASE), buf, len);
   return 0;
}

static uint64_t m_page(struct mem *m)
{
   if (m->next == MEM_PAGES) {
      fprintf(stderr, "test memory exhausted\n");
      exit(2);
   }
   return MEM_BASE + (uint64_t)m->next++ * VAGX_PAGE_SIZE;
}

static uint64_t m_alloc_table(void *o)
{
   struct mem *m = o;
   if (m->full)
      return 0;
   m->allocs++;
   return m_page(m);
}

static const struct vagx_pt_ops ops = {
   .read = m_read, .write = m_write, .alloc_table = m_alloc_table,
};
static const struct vagx_pt_ops ops_no_alloc = {.read = m_read, .write = m_write};

static void mem_init(struct mem *m)
{
   memset(m->ram, 0, (size_t)MEM_PAGES * VAGX_PAGE_SIZE);
   m->next = 0;
   m->allocs = 0;
   m->full = false;
}

static uint64_t entry_raw(struct mem *m, uint64_t pa)
{
   uint64_t raw = 0;
   CHECK(vagx_pt_load(&ops, m, pa, &raw) == 0, "load 0x%llx", (unsigned long long)pa);
   return raw;
}

static void test_spans(void)
{
   CHECK(vagx_pt_entry_span(VAGX_PT_LEVELS - 1) == VAGX_PAGE_SIZE, "leaf span");
   for (unsigned l = 0; l + 1 < VAGX_PT_LEVELS; l++)
      CHECK(vagx_pt_entry_span(l) == vagx_pt_entry_span(l + 1) * VAGX_PT_ENTRIES, "level %u", l);
   CHECK(vagx_pt_entry_span(0) * VAGX_PT_ENTRIES == (uint64_t)1 << VAGX_VA_BITS,
         "the root covers the VA space");
   /* The entry of va is its index within the table, at every level. */
   const uint64_t va = 0x0000123456789000ull, t = MEM_BASE;
   for (unsigned l = 0; l < VAGX_PT_LEVELS; l++) {
      uint64_t idx = (va / vagx_pt_entry_span(l)) % VAGX_PT_ENTRIES;
      CHECK(vagx_pt_entry_pa(t, va, l) == t + idx * VAGX_PTE_SIZE, "entry of level %u", l);
   }
}

static void test_entries(void)
{
   struct vagx_pte p;
   const uint64_t pa = 0x000fedcba9876000ull;
   CHECK(vagx_pte_decode(vagx_pte_page(pa, true, false), &p) && p.valid && p.read_only &&
         !p.no_exec && !p.null && p.addr == pa, "page entry");
   CHECK(vagx_pte_decode(vagx_pte_page(pa, false, true), &p) && p.no_exec && !p.read_only,
         "no-exec page entry");
   CHECK(vagx_pte_decode(vagx_pte_table(pa), &p) && p.valid && !p.read_only && p.addr == pa,
         "table entry");
   CHECK(vagx_pte_decode(vagx_pte_null(), &p) && p.valid && p.null && p.addr == 0, "NULL entry");
   CHECK((vagx_pte_page(pa, false, false) & (VAGX_PAGE_SIZE - 1)) == 1,
         "only VALID below the address");

   /* Exactly the bits no field covers are reserved: decode refuses them. */
   const uint64_t resv = vagx_pte_reserved_mask();
   unsigned reserved = 0;
   for (unsigned b = 0; b < 64; b++) {
      const bool is_reserved = resv >> b & 1;
      reserved += is_reserved;
      CHECK(vagx_pte_decode(vagx_pte_page(0, false, false) | (uint64_t)1 << b, &p) != is_reserved,
            "bit %u (reserved %d)", b, is_reserved);
   }
   CHECK(reserved > 0, "the format has reserved bits");
   CHECK(!vagx_pte_decode(vagx_pte_null() | vagx_pte_table(pa), &p), "NULL with an address");

   /* In memory an entry is little-endian whatever the host. */
   struct mem m = {.ram = calloc(MEM_PAGES, VAGX_PAGE_SIZE)};
   const uint64_t v = vagx_pte_page(pa, true, true);
   CHECK(vagx_pt_store(&ops, &m, MEM_BASE + 8, v) == 0, "store");
   for (unsigned i = 0; i < VAGX_PTE_SIZE; i++)
      CHECK(m.ram[8 + i] == (uint8_t)(v >> 8 * i), "byte %u", i);
   CHECK(vagx_pt_store(&ops, &m, MEM_BASE - VAGX_PTE_SIZE, v) != 0, "store outside memory");
   free(m.ram);
}

static bool walk(struct mem *m, uint64_t root, uint64_t va, struct vagx_pt_walk *w)
{
   return vagx_pt_walk(&ops_no_alloc, m, root, va, w);
}

static void expect_fault(struct mem *m, uint64_t root, uint64_t va,
                         enum vagx_fault_reason reason, unsigned level, const char *what)
{
   struct vagx_pt_walk w;
   bool ok = walk(m, root, va, &w);
   CHECK(!ok && w.reason == reason && w.level == level, "%s: ok %d reason %s level %u", what,
         ok, vagx_fault_reason_name(w.reason), w.level);
}

static void test_map_and_walk(struct mem *m)
{
   mem_init(m);
   const uint64_t root = m_page(m);
   const uint64_t va = 0x00007f1234560000ull;
   const uint64_t pa = 0x0000000abcdef000ull;   /* need not be in memory */
   struct vagx_pt_walk w;

   CHECK(vagx_pt_map(&ops, m, root, va, pa, false, false) == VAGX_PT_OK, "map");
   CHECK(m->allocs == VAGX_PT_LEVELS - 1, "one table per level below the root: %u", m->allocs);
   CHECK(walk(m, root, va, &w) && w.pa == pa && !w.null && !w.read_only && !w.no_exec,
         "walk reaches the page");
   CHECK(walk(m, root, va + VAGX_PAGE_SIZE - 1, &w) && w.pa == pa, "the whole page");

   /* A neighbour in the same last-level table needs no new table. */
   CHECK(vagx_pt_map(&ops, m, root, va + VAGX_PAGE_SIZE, pa + 2 * VAGX_PAGE_SIZE, true, true) ==
         VAGX_PT_OK, "map neighbour");
   CHECK(m->allocs == VAGX_PT_LEVELS - 1, "tables shared: %u", m->allocs);
   CHECK(walk(m, root, va + VAGX_PAGE_SIZE, &w) && w.pa == pa + 2 * VAGX_PAGE_SIZE &&
         w.read_only && w.no_exec, "neighbour's flags");
   CHECK(walk(m, root, va, &w) && !w.read_only, "first page unchanged");

   /* Remapping overwrites; unmapping faults at the last level. */
   CHECK(vagx_pt_map(&ops, m, root, va, pa + VAGX_PAGE_SIZE, false, false) == VAGX_PT_OK, "remap");
   CHECK(walk(m, root, va, &w) && w.pa == pa + VAGX_PAGE_SIZE, "remapped");
   CHECK(vagx_pt_unmap(&ops, m, root, va) == VAGX_PT_OK, "unmap");
   expect_fault(m, root, va, VAGX_FAULT_REASON_NOT_PRESENT, VAGX_PT_LEVELS - 1, "unmapped");
   CHECK(walk(m, root, va + VAGX_PAGE_SIZE, &w), "neighbour still mapped");

   /* Unmapping where no table exists creates none. */
   const unsigned before = m->allocs;
   CHECK(vagx_pt_unmap(&ops, m, root, va ^ vagx_pt_entry_span(0)) == VAGX_PT_OK, "unmap nothing");
   CHECK(m->allocs == before, "no table for an unmap");

   /* NOT_PRESENT at the level where the walk runs out of tables. */
   for (unsigned l = 0; l < VAGX_PT_LEVELS - 1; l++)
      expect_fault(m, root, va ^ vagx_pt_entry_span(l), VAGX_FAULT_REASON_NOT_PRESENT, l,
                   "missing table");

   /* The entry helper finds the very entry the walk read. */
   uint64_t e = 0;
   CHECK(vagx_pt_entry(&ops, m, root, va + VAGX_PAGE_SIZE, VAGX_PT_LEVELS - 1, false, &e) ==
         VAGX_PT_OK && entry_raw(m, e) == vagx_pte_page(pa + 2 * VAGX_PAGE_SIZE, true, true),
         "vagx_pt_entry");
}

static void test_null(struct mem *m)
{
   const uint64_t va = 0x0000400000000000ull;
   for (unsigned l = 0; l < VAGX_PT_LEVELS; l++) {
      mem_init(m);
      const uint64_t root = m_page(m);
      struct vagx_pt_walk w;
      CHECK(vagx_pt_set(&ops, m, root, va, l, vagx_pte_null()) == VAGX_PT_OK, "NULL at %u", l);
      CHECK(m->allocs == l, "tables above level %u: %u", l, m->allocs);
      /* the whole span of the entry is NULL, and nothing beyond it */
      CHECK(walk(m, root, va, &w) && w.null && w.pa == 0, "NULL at %u", l);
      CHECK(walk(m, root, va + vagx_pt_entry_span(l) - 1, &w) && w.null, "end of span %u", l);
      CHECK(!walk(m, root, va + vagx_pt_entry_span(l), &w), "past span %u", l);
      /* no table can be made inside a NULL subtree */
      if (l + 1 < VAGX_PT_LEVELS) {
         uint64_t e;
         CHECK(vagx_pt_map(&ops, m, root, va, VAGX_PAGE_SIZE, false, false) == VAGX_PT_NO_TABLE,
               "map under NULL at %u", l);
         CHECK(vagx_pt_entry(&ops, m, root, va, VAGX_PT_LEVELS - 1, true, &e) == VAGX_PT_NO_TABLE,
               "entry under NULL at %u", l);
      }
   }

   /* read_only and no_exec accumulate from any level; NULL keeps them. */
   mem_init(m);
   const uint64_t root = m_page(m);
   struct vagx_pt_walk w;
   CHECK(vagx_pt_map(&ops, m, root, va, VAGX_PAGE_SIZE, false, false) == VAGX_PT_OK, "map");
   uint64_t e1 = 0;
   CHECK(vagx_pt_entry(&ops, m, root, va, 1, false, &e1) == VAGX_PT_OK, "level-1 entry");
   struct vagx_pte p;
   vagx_pte_decode(entry_raw(m, e1), &p);
   p.read_only = p.no_exec = true;
   CHECK(vagx_pt_store(&ops, m, e1, vagx_pte_encode(&p)) == 0, "store");
   CHECK(walk(m, root, va, &w) && w.read_only && w.no_exec && !w.null, "accumulated flags");
}

static void test_faults(struct mem *m)
{
   mem_init(m);
   const uint64_t root = m_page(m);
   const uint64_t va = 0x0000000040000000ull;
   CHECK(vagx_pt_map(&ops, m, root, va, VAGX_PAGE_SIZE, false, false) == VAGX_PT_OK, "map");
   struct vagx_pt_walk w;
   CHECK(walk(m, root, va, &w), "mapped");

   expect_fault(m, root, (uint64_t)1 << VAGX_VA_BITS, VAGX_FAULT_REASON_ADDRESS_RANGE, 0, "VA range");
   expect_fault(m, 0, va, VAGX_FAULT_REASON_BAD_ROOT, 0, "root 0");
   expect_fault(m, root + VAGX_PTE_SIZE, va, VAGX_FAULT_REASON_BAD_ROOT, 0, "unaligned root");
   expect_fault(m, (uint64_t)1 << VAGX_PA_BITS, va, VAGX_FAULT_REASON_BAD_ROOT, 0, "root >= 2^52");
   expect_fault(m, MEM_BASE + (uint64_t)MEM_PAGES * VAGX_PAGE_SIZE, va,
                VAGX_FAULT_REASON_BAD_ROOT, 0, "root outside memory");
   expect_fault(m, root, va ^ vagx_pt_entry_span(0), VAGX_FAULT_REASON_NOT_PRESENT, 0,
                "empty root entry");

   /* valid beats everything: an invalid entry with any other bits set */
   uint64_t leaf = 0;
   CHECK(vagx_pt_entry(&ops, m, root, va, VAGX_PT_LEVELS - 1, false, &leaf) == VAGX_PT_OK, "leaf");
   const uint64_t good = entry_raw(m, leaf);
   vagx_pt_store(&ops, m, leaf, ~(uint64_t)0 & ~(uint64_t)1);
   expect_fault(m, root, va, VAGX_FAULT_REASON_NOT_PRESENT, VAGX_PT_LEVELS - 1, "invalid entry");
   /* then reserved bits, at the level of the entry */
   vagx_pt_store(&ops, m, leaf, good | (uint64_t)1 << 4);
   expect_fault(m, root, va, VAGX_FAULT_REASON_RESERVED_BITS, VAGX_PT_LEVELS - 1, "reserved bit");
   vagx_pt_store(&ops, m, leaf, good | vagx_pte_null());
   expect_fault(m, root, va, VAGX_FAULT_REASON_RESERVED_BITS, VAGX_PT_LEVELS - 1, "NULL + addr");
   vagx_pt_store(&ops, m, leaf, good);

   /* a table outside memory: BUS_ERROR at the level of that table */
   uint64_t e0 = vagx_pt_entry_pa(root, va, 0);
   const uint64_t l0 = entry_raw(m, e0);
   vagx_pt_store(&ops, m, e0, vagx_pte_table(MEM_BASE + (uint64_t)MEM_PAGES * VAGX_PAGE_SIZE));
   expect_fault(m, root, va, VAGX_FAULT_REASON_BUS_ERROR, 1, "table outside memory");
   vagx_pt_store(&ops, m, e0, l0);
   CHECK(walk(m, root, va, &w) && w.pa == VAGX_PAGE_SIZE, "restored");
}

static void test_allocation(struct mem *m)
{
   mem_init(m);
   const uint64_t root = m_page(m);
   const uint64_t va = 0x0000100000000000ull;
   uint64_t e;
   CHECK(vagx_pt_map(&ops_no_alloc, m, root, va, VAGX_PAGE_SIZE, false, false) ==
         VAGX_PT_NO_TABLE, "no allocator");
   CHECK(vagx_pt_entry(&ops, m, root, va, 2, false, &e) == VAGX_PT_NO_TABLE && m->allocs == 0,
         "no create");
   CHECK(vagx_pt_entry(&ops, m, root, va, 0, false, &e) == VAGX_PT_OK &&
         e == vagx_pt_entry_pa(root, va, 0), "the root entry needs no table");
   m->full = true;
   CHECK(vagx_pt_map(&ops, m, root, va, VAGX_PAGE_SIZE, false, false) == VAGX_PT_NO_MEMORY,
         "allocator empty");
   m->full = false;
   CHECK(vagx_pt_map(&ops, m, root, va, VAGX_PAGE_SIZE, false, false) == VAGX_PT_OK, "then map");
   CHECK(vagx_pt_map(&ops, m, MEM_BASE - VAGX_PAGE_SIZE, va, VAGX_PAGE_SIZE, false, false) ==
         VAGX_PT_BUS_ERROR, "root outside memory");
}

int main(void)
{
   struct mem m = {.ram = calloc(MEM_PAGES, VAGX_PAGE_SIZE)};
   test_spans();
   test_entries();
   test_map_and_walk(&m);
   test_null(&m);
   test_faults(&m);
   test_allocation(&m);
   free(m.ram);
   return t_report("test_pt");
}
