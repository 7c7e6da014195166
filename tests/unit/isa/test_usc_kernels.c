/* Compute kernels written in assembly, run through the interpreter on flat host
 * memory and checked against C: prefix sum (shared memory + barriers), matrix
 * multiply, histogram with global atomics, reduction with barriers. */
#include <math.h>

#include "usc_test.h"
#include "../compute_kernels.h"

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

int main(void)
{
   mem.size = 1 << 20;
   mem.buf = calloc(1, mem.size);

   /* prefix sum */
   for (int i = 0; i < 256; i++)
      at(0)[i] = t_rand() & 0xffff;
   set_ptr(0, 0);
   set_ptr(2, 0x1000);
   go(kernel_prefix_sum, 256, 1, 1, 1, 1024);
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
   go(kernel_matmul, 8, 8, 4, 4, 0);
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
   go(kernel_histogram, 256, 1, 16, 1, 0);
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
   go(kernel_reduction, 1024, 1, 4, 1, 4096);
   for (int g = 0; g < 4; g++)
      CHECK(at(0x70000)[g] == sums[g], "sum[%d] %u want %u", g, at(0x70000)[g], sums[g]);

   free(mem.buf);
   return t_report("usc_kernels");
}
