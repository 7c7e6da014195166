/* Illegal instructions, wild addresses, misalignment, missing hooks, the
 * abort flag and the budget: each ends in a reported status, never a crash. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <time.h>


#include "usc_priv.h"
#include "usc_test.h"

static struct vagx_usc_result res;

static enum vagx_usc_status run1(const char *src, uint32_t shared)
{
   struct t_mem mem = { calloc(1, 4096), 4096 };
   uint32_t uni[4] = { (uint32_t)T_BASE, (uint32_t)(T_BASE >> 32), 0xdead0000u, 0x7fff };
   uint32_t tg[3] = { 64, 1, 1 }, ng[3] = { 1, 1, 1 };
   enum vagx_usc_status st = t_run(src, &mem, uni, 4, tg, ng, shared, &res);
   free(mem.buf);
   return st;
}

static _Atomic bool abort_flag;

static void *set_abort(void *arg)
{
   (void)arg;
   struct timespec ts = { 0, 50000000 };
   nanosleep(&ts, NULL);
   atomic_store(&abort_flag, true);
   return NULL;
}

int main(void)
{
   struct vagx_usc_result r;
   /* Undefined opcodes, nonzero unused fields, truncated and unterminated code. */
   uint64_t bad[][2] = {
      { 0xff, 0 },                     /* undefined opcode */
      { 0x01 | (1ull << 20), 0 },      /* end with a dst */
      { 0x10 | (1ull << 8), 0 },       /* fadd with x but no immediate */
      { 0x02 | (7ull << 33), 0x01 },   /* mov from file 7 */
   };
   for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      CHECK(!vagx_usc_program_decode(bad[i], 2, &r) && r.status == VAGX_USC_ILLEGAL_INSTRUCTION,
            "bad[%u] accepted", i);
   }
   uint64_t noend[1] = { 0x00 };
   CHECK(!vagx_usc_program_decode(noend, 1, &r) && r.status == VAGX_USC_ILLEGAL_INSTRUCTION, "no end");
   struct vagx_usc_decoded *p;
   uint32_t code[64];
   struct vagx_asm_error err;
   long n = vagx_asm_assemble("if.nz r0\nend\n", code, 64, &err);
   p = vagx_usc_program_decode((const uint64_t *)(const void *)code, (size_t)n / 2, &r);
   CHECK(!p && r.status == VAGX_USC_ILLEGAL_INSTRUCTION, "unbalanced if accepted");
   n = vagx_asm_assemble("break\nend\n", code, 64, &err);
   p = vagx_usc_program_decode((const uint64_t *)(const void *)code, (size_t)n / 2, &r);
   CHECK(!p && r.status == VAGX_USC_ILLEGAL_INSTRUCTION, "break outside loop accepted");
   n = vagx_asm_assemble("loop\njmp @out\nendloop\nout:\nend\n", code, 64, &err);
   p = vagx_usc_program_decode((const uint64_t *)(const void *)code, (size_t)n / 2, &r);
   CHECK(!p && r.status == VAGX_USC_ILLEGAL_INSTRUCTION, "jump out of loop accepted");
   n = vagx_asm_assemble("jmp @+1000\nend\n", code, 64, &err);
   p = vagx_usc_program_decode((const uint64_t *)(const void *)code, (size_t)n / 2, &r);
   CHECK(!p && r.status == VAGX_USC_ILLEGAL_INSTRUCTION, "wild jump accepted");

   /* Random garbage never crashes the decoder. */
   for (int i = 0; i < 20000; i++) {
      uint64_t w[8];
      for (int k = 0; k < 8; k++)
         w[k] = (uint64_t)t_rand() << 32 | t_rand();
      w[7] = 0x01;
      p = vagx_usc_program_decode(w, 8, &r);
      vagx_usc_program_free(p);
   }

   /* Wild and misaligned addresses fault with the address and access. */
   CHECK(run1("mov r1, u2\nmov r2, u3\nld_global.b32 r3, r1, #0\nend\n", 0) == VAGX_USC_FAULT &&
         res.fault_va == 0x7fffdead0000ull && res.fault_access == VAGX_USC_ACC_READ &&
         res.pc == 16, "wild load: va %llx acc %u pc %u", (unsigned long long)res.fault_va,
         res.fault_access, res.pc);
   CHECK(run1("st_global.b32 u0, #4096, r0\nend\n", 0) == VAGX_USC_FAULT &&
         res.fault_va == T_BASE + 4096 && res.fault_access == VAGX_USC_ACC_WRITE, "store past end");
   CHECK(run1("ld_global.b32 r1, u0, #2\nend\n", 0) == VAGX_USC_FAULT &&
         (res.fault_access & VAGX_USC_ACC_UNALIGNED), "misaligned");
   CHECK(run1("atom_global.add r1, u2, #1, r0\nend\n", 0) == VAGX_USC_FAULT, "wild atomic");
   CHECK(run1("ld_shared.b32 r1, #4096, #0\nend\n", 4096) == VAGX_USC_FAULT &&
         (res.fault_access & VAGX_USC_ACC_SHARED), "shared out of range");
   /* Graphics instructions without a hook. */
   CHECK(run1("iter.center r0, cf1, cf0, r0\nend\n", 0) == VAGX_USC_NOT_IMPLEMENTED, "iter");
   CHECK(run1("tex.auto.2d.t0.s0 r0, r4, r0, r0\nend\n", 0) == VAGX_USC_NOT_IMPLEMENTED, "tex");
   /* Oversized dispatch. */
   {
      struct t_mem mem = { calloc(1, 64), 64 };
      uint32_t tg[3] = { 1025, 1, 1 }, ng[3] = { 1, 1, 1 };
      CHECK(t_run("end\n", &mem, NULL, 0, tg, ng, 0, &res) == VAGX_USC_BAD_DISPATCH, "1025 threads");
      free(mem.buf);
   }

   /* An infinite loop is stopped by the abort flag (set from another thread),
    * and by the instruction budget. */
   p = t_build("loop\niadd r1, r1, #1\nendloop\nend\n");
   struct vagx_usc *usc = vagx_usc_create();
   struct vagx_usc_env env = { 0 };
   env.abort = &abort_flag;
   struct vagx_usc_compute cs = { { 64, 1, 1 }, { 1, 1, 1 }, 0 };
   uint32_t id[3] = { 0, 0, 0 };
   pthread_t th;
   pthread_create(&th, NULL, set_abort, NULL);
   CHECK(vagx_usc_run_threadgroup(usc, p, &env, &cs, id, &r) == VAGX_USC_ABORTED, "abort");
   pthread_join(th, NULL);
   env.abort = NULL;
   env.budget = 100000;
   CHECK(vagx_usc_run_threadgroup(usc, p, &env, &cs, id, &r) == VAGX_USC_BUDGET &&
         r.instructions == 100000, "budget: %llu", (unsigned long long)r.instructions);
   /* The endless loop passes a memory safepoint at least every 256
    * instructions (where the device completes TLB invalidations). */
   {
      struct t_mem mem = { calloc(1, 64), 64 };
      t_safepoints = 0;
      env.mem = &t_mem_ops;
      env.mem_ctx = &mem;
      CHECK(vagx_usc_run_threadgroup(usc, p, &env, &cs, id, &r) == VAGX_USC_BUDGET, "budget+mem");
      CHECK(t_safepoints >= 100000 / 256, "safepoints: %u in 100000 instructions",
            t_safepoints);
      env.mem = NULL;
      env.mem_ctx = NULL;
      free(mem.buf);
   }
   vagx_usc_destroy(usc);
   vagx_usc_program_free(p);

   /* Program cache: code read through translate, reused while unchanged,
    * re-decoded after invalidation when the bytes changed. */
   {
      struct t_mem mem = { calloc(1, 4096), 4096 };
      n = vagx_asm_assemble("mov r0, #1\nend\n", (uint32_t *)(void *)mem.buf, 1024, &err);
      struct vagx_usc_cache *c = vagx_usc_cache_create();
      struct vagx_usc_env cenv = { 0 };
      cenv.mem = &t_mem_ops;
      cenv.mem_ctx = &mem;
      const struct vagx_usc_decoded *a = vagx_usc_cache_get(c, &cenv, 1, T_BASE, &r);
      const struct vagx_usc_decoded *b = vagx_usc_cache_get(c, &cenv, 1, T_BASE, &r);
      CHECK(a && a == b, "cache hit");
      vagx_usc_cache_invalidate(c);
      CHECK(vagx_usc_cache_get(c, &cenv, 1, T_BASE, &r) == a, "revalidated");
      vagx_asm_assemble("mov r0, #2\nend\n", (uint32_t *)(void *)mem.buf, 1024, &err);
      vagx_usc_cache_invalidate(c);
      b = vagx_usc_cache_get(c, &cenv, 1, T_BASE, &r);
      CHECK(b && b != a, "re-decoded after change");
      CHECK(!vagx_usc_cache_get(c, &cenv, 1, T_BASE + 4000, &r) && r.status == VAGX_USC_FAULT,
            "code fault: %s", vagx_usc_status_name(r.status));
      /* references: a (three gets) outlives its replacement by b */
      for (unsigned i = 0; i < 3; i++)
         vagx_usc_cache_put(a);
      vagx_usc_cache_put(b);
      vagx_usc_cache_trim(c);
      vagx_usc_cache_destroy(c);
      free(mem.buf);
   }

   /* Issue 16, item 3: the cache is bounded.  Programs of ~0.5 MiB decoded
    * under 300 distinct keys (roots) would keep ~150 MiB; the cache holds at
    * most VAGX_USC_CACHE_MAX_BYTES plus the newest program, and a program
    * it dropped stays valid while a user holds its reference. */
   {
      enum { NPROG = 2000 };
      struct t_mem mem = { calloc(1, 64 * 1024), 64 * 1024 };
      char *src = malloc(NPROG * 24 + 16), *o = src;
      for (unsigned i = 0; i < NPROG; i++)
         o += sprintf(o, "mov r%u, #%u\n", i % 8, i + 100000);
      strcpy(o, "end\n");
      n = vagx_asm_assemble(src, (uint32_t *)(void *)mem.buf, 16384, &err);
      free(src);
      CHECK(n > 0, "assemble big program: %s", err.msg);
      struct vagx_usc_cache *c = vagx_usc_cache_create();
      struct vagx_usc_env cenv = { 0 };
      cenv.mem = &t_mem_ops;
      cenv.mem_ctx = &mem;
      const struct vagx_usc_decoded *first = vagx_usc_cache_get(c, &cenv, 1, T_BASE, &r);
      CHECK(first && vagx_usc_program_bytes(first) > 256 * 1024, "big program: %zu bytes",
            first ? vagx_usc_program_bytes(first) : 0);
      size_t peak = 0;
      for (uint64_t root = 2; root < 300; root++) {
         const struct vagx_usc_decoded *q = vagx_usc_cache_get(c, &cenv, root, T_BASE, &r);
         CHECK(q, "decode under root %llu", (unsigned long long)root);
         vagx_usc_cache_put(q);
         size_t b = vagx_usc_cache_bytes(c, NULL);
         peak = b > peak ? b : peak;
      }
      /* kept fewer than the 299 decoded, and within the bound */
      CHECK(first && 299 * vagx_usc_program_bytes(first) > VAGX_USC_CACHE_MAX_BYTES &&
               peak < 299 * vagx_usc_program_bytes(first) &&
               peak <= VAGX_USC_CACHE_MAX_BYTES + vagx_usc_program_bytes(first),
            "cache bounded: peak %zu bytes", peak);
      /* the first program was dropped long ago but is still ours to run */
      struct vagx_usc *u = vagx_usc_create();
      struct vagx_usc_compute cs1 = { { 32, 1, 1 }, { 1, 1, 1 }, 0 };
      CHECK(first && vagx_usc_run_threadgroup(u, first, &cenv, &cs1, id, &r) == VAGX_USC_OK,
            "dropped program still runs: %s", vagx_usc_status_name(r.status));
      vagx_usc_destroy(u);
      vagx_usc_cache_put(first);
      vagx_usc_cache_destroy(c);
      free(mem.buf);
   }

   /* Issue 16, item 2: tex .grad reads dPdx, dPdy (2 x coordinate count
    * registers from src1) from the register file, so the decoder counts them
    * (the file is sized by what it counts) and refuses a src1 that is not a
    * GPR; before, it counted one register, or none for a uniform. */
   {
      static const char *grad_src[] = {
         /* gradients in r30..r33 (2D: 2 + 2), highest register named */
         "mov r0, #0\nmov r1, #0\ntex.grad.t0.s0.2d r4, r0, r30, r0\nend\n",
         /* a uniform as the gradient base: no registers behind it */
         "tex.grad.t0.s0.2d r4, r0, u200, r0\nend\n",
         /* an immediate */
         "tex.grad.t0.s0.2d r4, r0, #5, r0\nend\n",
         /* a cube array reads 2 x 4 registers: r250..r257 is past the file */
         "tex.grad.t0.s0.cube.array r4, r0, r250, r0\nend\n",
      };
      uint64_t words[64];
      for (unsigned i = 0; i < 4; i++) {
         n = vagx_asm_assemble(grad_src[i], (uint32_t *)(void *)words, 128, &err);
         CHECK(n > 0, "assemble grad %u: %s", i, err.msg);
         p = vagx_usc_program_decode(words, (size_t)n / 2, &r);
         if (i == 0) {
            CHECK(p && p->nregs >= 34, "grad registers counted: nregs %u", p ? p->nregs : 0);
         } else {
            CHECK(!p && r.status == VAGX_USC_ILLEGAL_INSTRUCTION && r.isa_err == VAGX_ISA_EOPERAND,
                  "grad case %u refused: %s", i, vagx_usc_status_name(r.status));
         }
         vagx_usc_program_free(p);
      }
   }

   /* Opcode 0 is nop (docs/hw/isa.md, "Zero words and the end of code"): a
    * zero word is a legal instruction, so zero-filled code is a nop stream
    * that runs on until an `end`; without one, fetching runs into the end of
    * the mapping (an EXEC fault there) or the 65536-instruction limit
    * (ILLEGAL_INSTRUCTION, ETRUNC). */
   {
      uint64_t zeros_then_end[4] = { 0, 0, 0, 0x01 };
      p = vagx_usc_program_decode(zeros_then_end, 4, &r);
      CHECK(p && vagx_usc_program_words(p) == 4, "zero words are nops");
      struct t_mem mem = { calloc(1, 4096), 4096 };
      usc = vagx_usc_create();
      env = (struct vagx_usc_env){ 0 };
      cs = (struct vagx_usc_compute){ { 32, 1, 1 }, { 1, 1, 1 }, 0 };
      CHECK(p && vagx_usc_run_threadgroup(usc, p, &env, &cs, id, &r) == VAGX_USC_OK &&
            r.instructions == 4, "nop stream runs: %llu", (unsigned long long)r.instructions);
      vagx_usc_program_free(p);
      vagx_usc_destroy(usc);

      struct vagx_usc_cache *c = vagx_usc_cache_create();
      struct vagx_usc_env cenv = { 0 };
      cenv.mem = &t_mem_ops;
      cenv.mem_ctx = &mem;
      CHECK(!vagx_usc_cache_get(c, &cenv, 1, T_BASE, &r) && r.status == VAGX_USC_FAULT &&
            r.fault_va == T_BASE + 4096 && r.fault_access == VAGX_USC_ACC_EXEC,
            "zero page without end: %s at %llx", vagx_usc_status_name(r.status),
            (unsigned long long)r.fault_va);
      ((uint64_t *)(void *)mem.buf)[511] = 0x01; /* `end` in the last word */
      vagx_usc_cache_invalidate(c);
      const struct vagx_usc_decoded *z = vagx_usc_cache_get(c, &cenv, 1, T_BASE, &r);
      CHECK(z && vagx_usc_program_words(z) == 512, "511 nops + end through the cache");
      vagx_usc_cache_put(z);
      vagx_usc_cache_destroy(c);
      free(mem.buf);

      size_t nz = VAGX_USC_MAX_INSTRS + 1;
      uint64_t *zw = calloc(nz, sizeof(uint64_t));
      CHECK(!vagx_usc_program_decode(zw, nz, &r) && r.status == VAGX_USC_ILLEGAL_INSTRUCTION &&
            r.isa_err == VAGX_ISA_ETRUNC && r.pc == VAGX_USC_MAX_INSTRS * 8,
            "65537 zero words: %s pc %u", vagx_usc_status_name(r.status), r.pc);
      free(zw);
   }
   return t_report("usc_errors");
}
