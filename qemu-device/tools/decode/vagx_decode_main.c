/* SPDX-License-Identifier: MIT */
/*
 * vagx-decode: decode a job from a guest-memory dump.
 *
 *   vagx-decode DUMP               decode what the dump's header names
 *   vagx-decode --slot PA DUMP     decode the ring slot at guest-physical PA
 *   vagx-decode --write-example F  write an example dump (a compute job)
 *   vagx-decode --self-test        write the example, read it back, decode it
 *
 * Dump format (all little-endian), see docs/hw/renderer-core.md:
 *
 *   0   char[8] magic "VAGXDUMP"
 *   8   u32 version (1)
 *   12  u32 flags (0)
 *   16  u64 ring_pa     ring base, or 0
 *   24  u32 ring_log2   log2 of the ring's slot count
 *   28  u32 head        free-running HEAD: first slot decoded
 *   32  u32 tail        free-running TAIL: one past the last
 *   36  u32 reserved (0)
 *   40  u64 slot_pa     one slot to decode instead of the ring, or 0
 *   48  chunks until end of file: u64 pa, u64 len, then len bytes of guest
 *       memory at guest-physical address pa.
 *
 * Memory not covered by a chunk reads as "outside guest RAM", exactly like a
 * bus error on the device.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vagx_hw.h"
#include "vagx_core.h"
#include "vagx_isa.h"
#include "vagx_pt.h"

#define DUMP_MAGIC "VAGXDUMP"
#define DUMP_VERSION 1
#define DUMP_HEADER_SIZE 48

struct chunk {
   uint64_t pa, len;
   uint8_t *data;
};

struct dump {
   uint64_t ring_pa, slot_pa;
   uint32_t ring_log2, head, tail;
   struct chunk *chunks;
   size_t nchunks;
};

static uint64_t get64(const uint8_t *p)
{
   uint64_t v = 0;
   for (int i = 7; i >= 0; i--)
      v = v << 8 | p[i];
   return v;
}

static uint32_t get32(const uint8_t *p)
{
   return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put64(uint8_t *p, uint64_t v)
{
   for (int i = 0; i < 8; i++)
      p[i] = (uint8_t)(v >> (8 * i));
}

static void put32(uint8_t *p, uint32_t v)
{
   for (int i = 0; i < 4; i++)
      p[i] = (uint8_t)(v >> (8 * i));
}

static int dump_read(void *opaque, uint64_t pa, void *buf, size_t len)
{
   struct dump *d = opaque;
   uint8_t *out = buf;
   while (len) {
      size_t i;
      for (i = 0; i < d->nchunks; i++)
         if (pa >= d->chunks[i].pa && pa - d->chunks[i].pa < d->chunks[i].len)
            break;
      if (i == d->nchunks)
         return -1;
      uint64_t off = pa - d->chunks[i].pa;
      uint64_t n = d->chunks[i].len - off;
      if (n > len)
         n = len;
      memcpy(out, d->chunks[i].data + off, n);
      out += n;
      pa += n;
      len -= n;
   }
   return 0;
}

static int dump_write(void *opaque, uint64_t pa, const void *buf, size_t len)
{
   (void)opaque, (void)pa, (void)buf, (void)len;
   return -1; /* the decoder never writes */
}

static uint64_t dump_now(void *opaque)
{
   (void)opaque;
   return 0;
}

static const struct vagx_core_host_ops dump_ops = {
   .read = dump_read, .write = dump_write, .now_ns = dump_now,
};

static void dump_free(struct dump *d)
{
   for (size_t i = 0; i < d->nchunks; i++)
      free(d->chunks[i].data);
   free(d->chunks);
   memset(d, 0, sizeof(*d));
}

static int dump_load(const char *path, struct dump *d)
{
   memset(d, 0, sizeof(*d));
   FILE *f = fopen(path, "rb");
   if (!f) {
      fprintf(stderr, "vagx-decode: %s: %s\n", path, strerror(errno));
      return -1;
   }
   uint8_t h[DUMP_HEADER_SIZE];
   if (fread(h, 1, sizeof(h), f) != sizeof(h) || memcmp(h, DUMP_MAGIC, 8) ||
       get32(h + 8) != DUMP_VERSION) {
      fprintf(stderr, "vagx-decode: %s: not a version %d vagx dump\n", path, DUMP_VERSION);
      fclose(f);
      return -1;
   }
   d->ring_pa = get64(h + 16);
   d->ring_log2 = get32(h + 24);
   d->head = get32(h + 28);
   d->tail = get32(h + 32);
   d->slot_pa = get64(h + 40);
   for (;;) {
      uint8_t ch[16];
      size_t got = fread(ch, 1, sizeof(ch), f);
      if (got == 0)
         break;
      uint64_t len = get64(ch + 8);
      if (got != sizeof(ch) || len > (1ull << 32)) {
         fprintf(stderr, "vagx-decode: %s: bad chunk header\n", path);
         goto fail;
      }
      struct chunk c = {.pa = get64(ch), .len = len, .data = malloc(len ? len : 1)};
      if (!c.data || fread(c.data, 1, len, f) != len) {
         free(c.data);
         fprintf(stderr, "vagx-decode: %s: truncated chunk\n", path);
         goto fail;
      }
      struct chunk *nc = realloc(d->chunks, (d->nchunks + 1) * sizeof(*nc));
      if (!nc) {
         free(c.data);
         goto fail;
      }
      d->chunks = nc;
      d->chunks[d->nchunks++] = c;
   }
   fclose(f);
   return 0;
fail:
   fclose(f);
   dump_free(d);
   return -1;
}

static void print_file(void *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void print_file(void *ctx, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   vfprintf((FILE *)ctx, fmt, ap);
   va_end(ap);
}

static int decode(struct dump *d, FILE *out)
{
   if (d->slot_pa)
      return vagx_core_decode_job(&dump_ops, d, d->slot_pa, print_file, out);
   if (d->ring_pa)
      return vagx_core_decode_ring(&dump_ops, d, d->ring_pa, d->ring_log2, d->head, d->tail,
                                   print_file, out);
   fprintf(stderr, "vagx-decode: the dump names neither a slot nor a ring (use --slot)\n");
   return -1;
}

/* ---------------------------------------------------------- example -- */

/* A tiny guest: page tables, a 2-slot ring whose first slot holds a COMPUTE
 * job, its descriptor, uniforms and a one-instruction program (`end`,
 * encoded with the generated ISA helpers). */
#define EX_PAGES 16
#define EX_BASE 0x100000ull
#define EX_VA 0x0000000040000000ull

/* The example's RAM for the page-table library: EX_PAGES pages at EX_BASE,
 * tables taken in order from pg1 on (the walk creates L1, L2, L3). */
struct ex_ram {
   uint8_t *ram;
   unsigned next_table;
};

static int ex_read(void *o, uint64_t pa, void *buf, size_t len)
{
   struct ex_ram *r = o;
   if (pa < EX_BASE || pa - EX_BASE + len > (uint64_t)EX_PAGES * VAGX_PAGE_SIZE)
      return -1;
   memcpy(buf, r->ram + (pa - EX_BASE), len);
   return 0;
}

static int ex_write(void *o, uint64_t pa, const void *buf, size_t len)
{
   struct ex_ram *r = o;
   if (pa < EX_BASE || pa - EX_BASE + len > (uint64_t)EX_PAGES * VAGX_PAGE_SIZE)
      return -1;
   memcpy(r->ram + (pa - EX_BASE), buf, len);
   return 0;
}

static uint64_t ex_alloc_table(void *o)
{
   struct ex_ram *r = o;
   if (r->next_table >= VAGX_PT_LEVELS)
      return 0;
   return EX_BASE + (uint64_t)r->next_table++ * VAGX_PAGE_SIZE;
}

static const struct vagx_pt_ops ex_pt_ops = {
   .read = ex_read, .write = ex_write, .alloc_table = ex_alloc_table,
};

static int write_example(const char *path)
{
   uint8_t *ram = calloc(EX_PAGES, VAGX_PAGE_SIZE);
   if (!ram)
      return -1;
   uint64_t pg[EX_PAGES];
   for (unsigned i = 0; i < EX_PAGES; i++)
      pg[i] = EX_BASE + (uint64_t)i * VAGX_PAGE_SIZE;
   /* pg0 root, pg1-3 L1-L3, pg4 descriptor page, pg5 code, pg6 ring */
   struct ex_ram er = {ram, 1};
   if (vagx_pt_map(&ex_pt_ops, &er, pg[0], EX_VA, pg[4], false, false) != VAGX_PT_OK ||
       vagx_pt_map(&ex_pt_ops, &er, pg[0], EX_VA + VAGX_PAGE_SIZE, pg[5], false, false) !=
          VAGX_PT_OK) {
      free(ram);
      return -1;
   }

   struct vagx_compute_job j;
   vagx_compute_job_init(&j);
   j.grid_x = 16;
   j.grid_y = j.grid_z = 1;
   j.tg_x = 64;
   j.tg_y = j.tg_z = 1;
   j.program.code_va = EX_VA + VAGX_PAGE_SIZE;
   j.program.gpr_count = 8;
   j.program.uniform_count = 4;
   j.program.uniform_va = EX_VA + 0x800;
   uint32_t desc[VAGX_COMPUTE_JOB_DWORDS];
   vagx_compute_job_pack(desc, &j);
   for (unsigned i = 0; i < VAGX_COMPUTE_JOB_DWORDS; i++)
      put32(ram + (pg[4] - EX_BASE) + 4 * i, desc[i]);
   for (unsigned i = 0; i < 4; i++)
      put32(ram + (pg[4] - EX_BASE) + 0x800 + 4 * i, 0x1000 * (i + 1));

   struct vagx_instr end;
   memset(&end, 0, sizeof(end));
   end.op = VAGX_OP_END;
   uint64_t words[2];
   int nw = vagx_encode(&end, words);
   for (int w = 0; w < nw; w++)
      put64(ram + (pg[5] - EX_BASE) + 8 * w, words[w]);

   struct vagx_job_header h;
   vagx_job_header_init(&h);
   h.type = VAGX_JOB_TYPE_COMPUTE;
   h.irq = true;
   h.pt_root = pg[0];
   h.desc_va = EX_VA;
   h.desc_size = VAGX_COMPUTE_JOB_LENGTH;
   h.seqno = 42;
   h.completion_pa = pg[7];
   uint32_t hdr[VAGX_JOB_HEADER_DWORDS];
   vagx_job_header_pack(hdr, &h);
   for (unsigned i = 0; i < VAGX_JOB_HEADER_DWORDS; i++)
      put32(ram + (pg[6] - EX_BASE) + VAGX_RING_SLOT_HEADER_OFFSET + 4 * i, hdr[i]);

   FILE *f = fopen(path, "wb");
   if (!f) {
      free(ram);
      return -1;
   }
   uint8_t head[DUMP_HEADER_SIZE] = {0};
   memcpy(head, DUMP_MAGIC, 8);
   put32(head + 8, DUMP_VERSION);
   put64(head + 16, pg[6]);
   put32(head + 24, VAGX_RING_MIN_LOG2);
   put32(head + 28, 0);
   put32(head + 32, 1);
   uint8_t ch[16];
   put64(ch, EX_BASE);
   put64(ch + 8, (uint64_t)EX_PAGES * VAGX_PAGE_SIZE);
   int ok = fwrite(head, sizeof(head), 1, f) == 1 && fwrite(ch, sizeof(ch), 1, f) == 1 &&
            fwrite(ram, VAGX_PAGE_SIZE, EX_PAGES, f) == EX_PAGES;
   ok &= fclose(f) == 0;
   free(ram);
   return ok ? 0 : -1;
}

static int self_test(void)
{
   char path[] = "/tmp/vagx-decode-XXXXXX";
   int fd = mkstemp(path);
   if (fd < 0)
      return 1;
   close(fd);
   struct dump d;
   int ret = 1;
   if (write_example(path) == 0 && dump_load(path, &d) == 0) {
      char *text = NULL;
      size_t len = 0;
      FILE *mem = open_memstream(&text, &len);
      int r = decode(&d, mem);
      fclose(mem);
      fputs(text, stdout);
      ret = !(r == 0 && strstr(text, "COMPUTE") && strstr(text, "grid_x") &&
              strstr(text, "u3=0x00004000") && strstr(text, "code @") && strstr(text, "0000: end"));
      free(text);
      dump_free(&d);
   }
   unlink(path);
   printf("vagx-decode self-test: %s\n", ret ? "FAIL" : "ok");
   return ret;
}

int main(int argc, char **argv)
{
   uint64_t slot = 0;
   int i = 1;
   if (argc == 2 && !strcmp(argv[1], "--self-test"))
      return self_test();
   if (argc == 3 && !strcmp(argv[1], "--write-example"))
      return write_example(argv[2]) ? 1 : 0;
   if (argc == 4 && !strcmp(argv[1], "--slot")) {
      slot = strtoull(argv[2], NULL, 0);
      i = 3;
   }
   if (i != argc - 1) {
      fprintf(stderr,
              "usage: vagx-decode [--slot PA] DUMP\n"
              "       vagx-decode --write-example DUMP | --self-test\n");
      return 2;
   }
   struct dump d;
   if (dump_load(argv[i], &d))
      return 1;
   if (slot) {
      d.slot_pa = slot;
      d.ring_pa = 0;
   }
   int r = decode(&d, stdout);
   dump_free(&d);
   return r ? 1 : 0;
}
