/* The private stack (stack_ld/stack_st, isa.md "Private stack").
 *
 * - A program that spills and reloads every access size across divergent
 *   control flow (an if/else on odd lanes, a loop every lane leaves after a
 *   different trip count), over full and partial SIMD groups and two
 *   lockstep groups, checked against values computed here and run through
 *   the interpreter and the JIT (its ALU runs compiled around the stack
 *   instructions), the two compared bit for bit.
 * - Each group and lane has its own stack, and the stack starts as zeros.
 * - Faults: an access beyond the descriptor's stack_size, beyond the
 *   contract's VAGX_MAX_STACK_BYTES (whatever env->stack_bytes claims), or
 *   misaligned stops the run with FAULT, the offset and
 *   VAGX_USC_ACC_STACK, and never touches host memory (the sanitizer build
 *   runs this too). */
#include "usc_jit.h"
#include "usc_priv.h"
#include "usc_test.h"
#include "vagx_hw.h"

/* %u: the last word of the largest stack (read: never written, zero) */
static const char spill_fmt[] =
   "imad r10, sr.tgid_x, #64, sr.tindex\n"
   "shl r11, r10, #2\n"
   "ld_global.b32 r1, u0, r11\n"
   "iadd r2, r1, #0x1111\n"
   "stack_st.b32.offset0 r1\n"
   "stack_st.b64.offset4 r1\n"
   "and r3, sr.lane_id, #1\n"
   "if r3\n"
   "xor r4, r1, #0xdeadbeef\n"
   "stack_st.b32.offset12 r4\n"
   "stack_st.u8.offset17 r1\n"
   "else\n"
   "stack_st.u16.offset12 r1\n"
   "stack_st.s16.offset18 r2\n"
   "endif\n"
   /* clobber what was stored: the values must come back from the stack */
   "mov r1, #0\n"
   "mov r2, #0\n"
   "mov r5, #0\n"
   "and r8, sr.lane_id, #7\n"
   "loop\n"
   "stack_ld.b32.offset0 r6\n"
   "iadd r6, r6, r5\n"
   "stack_st.b32.offset0 r6\n"
   "iadd r5, r5, #1\n"
   "icmp.ugt r7, r5, r8\n"
   "break.cond r7\n"
   "endloop\n"
   "stack_ld.b128.offset0 r12\n"
   "stack_ld.s8.offset17 r16\n"
   "stack_ld.u16.offset18 r17\n"
   "stack_ld.b32.offset%u r18\n"
   "shl r19, r10, #5\n"
   "st_global.b128 u2, r19, r12\n"
   "iadd r20, r19, #16\n"
   "st_global.b96 u2, r20, r16\n"
   "end\n";

#define NT 128 /* threads of the grid: 2 threadgroups of up to 64 */

static void expect(const uint32_t *A, unsigned tg, uint32_t *want)
{
   for (unsigned i = 0; i < NT; i++) {
      uint32_t *w = want + 8 * i;
      const uint32_t a = A[i], lane = (i % tg) % 32, n = lane & 7;
      const bool active = i % 64 < tg;
      if (!active)
         continue;
      w[0] = a + n * (n + 1) / 2;
      w[1] = a;
      w[2] = a + 0x1111;
      if (lane & 1) {
         w[3] = a ^ 0xdeadbeef;
         w[4] = (uint32_t)(int32_t)(int8_t)a;
         w[5] = 0;
      } else {
         w[3] = a & 0xffff;
         w[4] = 0;
         w[5] = (a + 0x1111) & 0xffff;
      }
      w[6] = 0;
   }
}

static void test_spill_reload(void)
{
   char src[sizeof(spill_fmt) + 16];
   snprintf(src, sizeof(src), spill_fmt, VAGX_MAX_STACK_BYTES - 4);
   struct vagx_usc_decoded *p = t_build(src);
   if (!p)
      return;
   CHECK(p->stack_bytes == VAGX_MAX_STACK_BYTES, "program reaches %u stack bytes",
         p->stack_bytes);
   struct t_mem mem = { calloc(NT, 4 + 32), NT * (4 + 32) };
   uint32_t *A = (uint32_t *)(void *)mem.buf, *O = A + NT;
   static uint32_t want[NT * 8], ref[NT * 8];
   for (unsigned i = 0; i < NT; i++)
      A[i] = t_rand() ^ (t_rand() << 16);
   const uint64_t base = T_BASE, out = T_BASE + 4 * NT;
   const uint32_t uni[4] = { (uint32_t)base, (uint32_t)(base >> 32), (uint32_t)out,
                             (uint32_t)(out >> 32) };
   struct vagx_usc *usc = vagx_usc_create();
   struct vagx_usc_env env = t_env(&mem, uni, 4);
   env.stack_bytes = VAGX_MAX_STACK_BYTES;
   const bool jit = usc_jit_enabled() && usc_jit_compile(p);
   if (!jit)
      printf("# JIT not available: the interpreter only\n");
   /* 64: two lockstep groups; 48: a partial second group; 32: one */
   static const unsigned tgs[] = { 64, 48, 32 };
   for (unsigned t = 0; t < 3; t++) {
      struct vagx_usc_compute cs = { { tgs[t], 1, 1 }, { 2, 1, 1 }, 0 };
      for (unsigned i = 0; i < NT * 8; i++)
         want[i] = 0x5a5a5a5a;
      expect(A, tgs[t], want);
      for (int j = 0; j < 1 + jit; j++) {
         struct vagx_usc_result res;
         memset(O, 0x5a, NT * 32);
         env.no_jit = !j;
         enum vagx_usc_status st = vagx_usc_run_grid(usc, p, &env, &cs, &res);
         CHECK(st == VAGX_USC_OK, "tg %u %s: %s", tgs[t], j ? "JIT" : "interpreter",
               vagx_usc_status_name(st));
         unsigned bad = 0;
         for (unsigned i = 0; i < NT * 8; i++)
            if (O[i] != want[i] && bad++ < 4)
               fprintf(stderr, "tg %u %s: thread %u word %u: %08x, want %08x\n", tgs[t],
                       j ? "JIT" : "interpreter", i / 8, i % 8, O[i], want[i]);
         CHECK(!bad, "tg %u %s: %u words differ from the expected", tgs[t],
               j ? "JIT" : "interpreter", bad);
         if (!j)
            memcpy(ref, O, sizeof(ref));
         else
            CHECK(!memcmp(ref, O, sizeof(ref)), "tg %u: JIT and interpreter differ", tgs[t]);
      }
   }
   vagx_usc_destroy(usc);
   vagx_usc_program_free(p);
   free(mem.buf);
}

/* Runs src on one SIMD group with stack_bytes of stack; returns the result. */
static enum vagx_usc_status run_one(const char *src, uint32_t stack_bytes,
                                    struct vagx_usc_result *res)
{
   struct vagx_usc_decoded *p = t_build(src);
   if (!p)
      return VAGX_USC_ILLEGAL_INSTRUCTION;
   struct vagx_usc *usc = vagx_usc_create();
   struct vagx_usc_env env = { 0 };
   env.stack_bytes = stack_bytes;
   enum vagx_usc_status st = vagx_usc_run_simd(usc, p, &env, NULL, ~0u, res);
   vagx_usc_destroy(usc);
   vagx_usc_program_free(p);
   return st;
}

static void test_faults(void)
{
   struct vagx_usc_result res;
   /* the last word within stack_size, then the first beyond it */
   enum vagx_usc_status st = run_one("mov r1, #7\n"
                                     "stack_st.b32.offset4 r1\n"
                                     "stack_ld.b64.offset4 r2\n"
                                     "end\n",
                                     8, &res);
   CHECK(st == VAGX_USC_FAULT && res.pc == 32 && res.fault_va == 4 &&
            res.fault_access == (VAGX_USC_ACC_READ | VAGX_USC_ACC_STACK),
         "b64 read across stack_size 8: %s pc %u va %llu access %#x", vagx_usc_status_name(st),
         res.pc, (unsigned long long)res.fault_va, res.fault_access);
   st = run_one("mov r1, #7\nstack_st.b32.offset4 r1\nend\n", 8, &res);
   CHECK(st == VAGX_USC_OK, "b32 within stack_size 8: %s", vagx_usc_status_name(st));
   /* no stack at all (stack_size 0) */
   st = run_one("stack_st.b32.offset0 r0\nend\n", 0, &res);
   CHECK(st == VAGX_USC_FAULT && res.pc == 0 &&
            res.fault_access == (VAGX_USC_ACC_WRITE | VAGX_USC_ACC_STACK),
         "store without a stack: %s access %#x", vagx_usc_status_name(st), res.fault_access);
   /* misaligned */
   st = run_one("stack_ld.b32.offset2 r0\nend\n", 64, &res);
   CHECK(st == VAGX_USC_FAULT && res.fault_va == 2 &&
            (res.fault_access & (VAGX_USC_ACC_STACK | VAGX_USC_ACC_UNALIGNED)) ==
               (VAGX_USC_ACC_STACK | VAGX_USC_ACC_UNALIGNED),
         "misaligned b32: %s access %#x", vagx_usc_status_name(st), res.fault_access);
   st = run_one("stack_ld.u16.offset3 r0\nend\n", 64, &res);
   CHECK(st == VAGX_USC_FAULT && (res.fault_access & VAGX_USC_ACC_UNALIGNED),
         "misaligned u16: %s", vagx_usc_status_name(st));
   st = run_one("stack_ld.u8.offset63 r0\nend\n", 64, &res);
   CHECK(st == VAGX_USC_OK, "last byte: %s", vagx_usc_status_name(st));
   /* beyond the contract's limit: a fault even when the environment claims
    * more (the executor keeps at most VAGX_MAX_STACK_BYTES per lane) */
   char src[128];
   snprintf(src, sizeof(src), "stack_st.b128.offset%u r0\nend\n", VAGX_MAX_STACK_BYTES - 12);
   st = run_one(src, 1u << 20, &res);
   CHECK(st == VAGX_USC_FAULT && res.fault_va == VAGX_MAX_STACK_BYTES - 12,
         "b128 across the contract's limit: %s", vagx_usc_status_name(st));
   st = run_one("stack_st.b128.offset65520 r0\nend\n", 1u << 20, &res);
   CHECK(st == VAGX_USC_FAULT && res.fault_va == 65520,
         "the largest offset: %s", vagx_usc_status_name(st));
   snprintf(src, sizeof(src), "stack_st.b128.offset%u r0\nend\n", VAGX_MAX_STACK_BYTES - 16);
   st = run_one(src, VAGX_MAX_STACK_BYTES, &res);
   CHECK(st == VAGX_USC_OK, "b128 ending at the contract's limit: %s",
         vagx_usc_status_name(st));
}

/* A descriptor asking for more stack than the contract gives fails its
 * generated check (the device reports INVALID_DESCRIPTOR for it: test_core). */
static void test_descriptor(void)
{
   struct vagx_usc_program d;
   vagx_usc_program_init(&d);
   d.code_va = 0x10000;
   d.gpr_count = 1;
   d.stack_size = VAGX_MAX_STACK_BYTES;
   const char *err = NULL;
   CHECK(vagx_usc_program_validate(&d, &err), "stack_size at the limit: %s", err ? err : "");
   d.stack_size = VAGX_MAX_STACK_BYTES + 4;
   err = NULL;
   CHECK(!vagx_usc_program_validate(&d, &err) && err, "stack_size above the limit refused");
   d.stack_size = 6;
   err = NULL;
   CHECK(!vagx_usc_program_validate(&d, &err) && err, "misaligned stack_size refused");
}

int main(void)
{
   test_spill_reload();
   test_faults();
   test_descriptor();
   return t_report("test_usc_stack");
}
