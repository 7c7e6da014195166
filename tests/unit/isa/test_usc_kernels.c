/* Compute kernels written in assembly, run through the interpreter on flat host
 * memory and checked against C: prefix sum (shared memory + barriers), matrix
 * multiply, histogram with global atomics, reduction with barriers. */
#include <math.h>

#include "usc_test.h"

static struct t_mem mem;
static uint32_t uni[8];

static uint32_t *at(size_t off) { return (uint32_t *)(void *)(mem.buf + off); }
static void set_ptr(unsigned u, size_t off)
{
   uni[u] = (uint32_t)(T_BASE + off);
   uni[u + 1] = (uint32_t)((T_BASE + off) >> 32);
}

static enum vagx_usc_status go(const char *src, uint32_t tgx, uint32_t tgy, uint32_t ngx,
                               uint32_t ngy, uint32_t shared)
{
   uint32_t tg[3] = { tgx, tgy, 1 }, ng[3] = { ngx, ngy, 1 };
   struct vagx_usc_result res;
   enum vagx_usc_status st = t_run(src, &mem, uni, 8, tg, ng, shared, &res);
   CHECK(st == VAGX_USC_OK, "status %s pc %u", vagx_usc_status_name(st), res.pc);
   return st;
}

/* Inclusive prefix sum of 256 values in one threadgroup (Hillis-Steele). */
static const char *prefix_sum =
   "shl r1, sr.tindex, #2\n"
   "ld_global.b32 r2, u0, r1\n"
   "st_shared.b32 r1, #0, r2\n"
   "barrier.tg\n"
   "mov r3, #1\n"                   /* offset */
   "loop\n"
   "  icmp.uge r4, r3, #256\n"
   "  break.cond r4\n"
   "  mov r5, #0\n"
   "  icmp.uge r4, sr.tindex, r3\n"
   "  if.nz r4\n"
   "    isub r6, sr.tindex, r3\n"
   "    shl r6, r6, #2\n"
   "    ld_shared.b32 r5, r6, #0\n"
   "  endif\n"
   "  barrier.tg\n"
   "  ld_shared.b32 r7, r1, #0\n"
   "  iadd r7, r7, r5\n"
   "  st_shared.b32 r1, #0, r7\n"
   "  barrier.tg\n"
   "  shl r3, r3, #1\n"
   "endloop\n"
   "ld_shared.b32 r2, r1, #0\n"
   "st_global.b32 u2, r1, r2\n"
   "end\n";

/* C = A * B, 32x32 floats, one thread per element, 8x8 threadgroups. */
static const char *matmul =
   "imad r1, sr.tgid_x, #8, sr.tid_x\n"   /* column */
   "imad r2, sr.tgid_y, #8, sr.tid_y\n"   /* row */
   "mov r3, #0\n"                          /* k */
   "mov r4, #0\n"                          /* acc */
   "loop\n"
   "  icmp.uge r5, r3, #32\n"
   "  break.cond r5\n"
   "  imad r6, r2, #32, r3\n  shl r6, r6, #2\n"
   "  ld_global.b32 r7, u0, r6\n"
   "  imad r6, r3, #32, r1\n  shl r6, r6, #2\n"
   "  ld_global.b32 r8, u2, r6\n"
   "  ffma r4, r7, r8, r4\n"
   "  iadd r3, r3, #1\n"
   "endloop\n"
   "imad r6, r2, #32, r1\nshl r6, r6, #2\n"
   "st_global.b32 u4, r6, r4\n"
   "end\n";

/* 64-bin histogram of 4096 bytes: each thread handles one byte. */
static const char *histogram =
   "imad r1, sr.tgid_x, #256, sr.tindex\n"
   "ld_global.u8 r2, u0, r1\n"
   "and r2, r2, #63\n"
   "shl r2, r2, #2\n"
   "mov r3, u2\nmov r4, u3\n"
   "iadd r3, r3, r2\n"                     /* 64-bit add: buffer is 4 KiB aligned */
   "atom_global.add r5, r3, #1, r0\n"
   "end\n";

/* Sum of 1024 u32 per threadgroup by tree reduction in shared memory. */
static const char *reduction =
   "imad r1, sr.tgid_x, #1024, sr.tindex\n"
   "shl r1, r1, #2\n"
   "ld_global.b32 r2, u0, r1\n"
   "shl r3, sr.tindex, #2\n"
   "st_shared.b32 r3, #0, r2\n"
   "barrier.tg\n"
   "mov r4, #512\n"
   "loop\n"
   "  icmp.eq r5, r4, #0\n"
   "  break.cond r5\n"
   "  icmp.ult r5, sr.tindex, r4\n"
   "  if.nz r5\n"
   "    shl r6, r4, #2\n"
   "    iadd r6, r6, r3\n"
   "    ld_shared.b32 r7, r6, #0\n"
   "    ld_shared.b32 r8, r3, #0\n"
   "    iadd r8, r8, r7\n"
   "    st_shared.b32 r3, #0, r8\n"
   "  endif\n"
   "  barrier.tg\n"
   "  shr r4, r4, #1\n"
   "endloop\n"
   "icmp.eq r5, sr.tindex, #0\n"
   "if.nz r5\n"
   "  ld_shared.b32 r8, r3, #0\n"
   "  shl r9, sr.tgid_x, #2\n"
   "  st_global.b32 u2, r9, r8\n"
   "endif\n"
   "end\n";

int main(void)
{
   mem.size = 1 << 20;
   mem.buf = calloc(1, mem.size);

   /* prefix sum */
   for (int i = 0; i < 256; i++)
      at(0)[i] = t_rand() & 0xffff;
   set_ptr(0, 0);
   set_ptr(2, 0x1000);
   go(prefix_sum, 256, 1, 1, 1, 1024);
   uint32_t s = 0;
   for (int i = 0; i < 256; i++) {
      s += at(0)[i];
      CHECK(at(0x1000)[i] == s, "prefix[%d] %u want %u", i, at(0x1000)[i], s);
   }

   /* matmul */
   float *A = (float *)(void *)at(0x10000), *B = (float *)(void *)at(0x20000);
   float *C = (float *)(void *)at(0x30000);
   for (int i = 0; i < 1024; i++) {
      A[i] = (float)((int)(t_rand() % 200) - 100) / 16.0f;
      B[i] = (float)((int)(t_rand() % 200) - 100) / 32.0f;
   }
   set_ptr(0, 0x10000);
   set_ptr(2, 0x20000);
   set_ptr(4, 0x30000);
   go(matmul, 8, 8, 4, 4, 0);
   for (int r = 0; r < 32; r++)
      for (int c = 0; c < 32; c++) {
         float acc = 0;
         for (int k = 0; k < 32; k++)
            acc = fmaf(A[r * 32 + k], B[k * 32 + c], acc);
         CHECK(C[r * 32 + c] == acc, "C[%d][%d] %g want %g", r, c, C[r * 32 + c], acc);
      }

   /* histogram */
   uint8_t *bytes = mem.buf + 0x40000;
   uint32_t hist[64] = { 0 };
   for (int i = 0; i < 4096; i++) {
      bytes[i] = (uint8_t)t_rand();
      hist[bytes[i] & 63]++;
   }
   set_ptr(0, 0x40000);
   set_ptr(2, 0x50000);
   go(histogram, 256, 1, 16, 1, 0);
   for (int b = 0; b < 64; b++)
      CHECK(at(0x50000)[b] == hist[b], "hist[%d] %u want %u", b, at(0x50000)[b], hist[b]);

   /* reduction: 4 threadgroups of 1024 */
   uint32_t sums[4] = { 0 };
   for (int i = 0; i < 4096; i++) {
      at(0x60000)[i] = t_rand();
      sums[i / 1024] += at(0x60000)[i];
   }
   set_ptr(0, 0x60000);
   set_ptr(2, 0x70000);
   go(reduction, 1024, 1, 4, 1, 4096);
   for (int g = 0; g < 4; g++)
      CHECK(at(0x70000)[g] == sums[g], "sum[%d] %u want %u", g, at(0x70000)[g], sums[g]);

   free(mem.buf);
   return t_report("usc_kernels");
}
