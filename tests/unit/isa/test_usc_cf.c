/* Control-flow divergence: nested if/else, loops with per-lane trip counts,
 * break/continue, discard-free mask restoration, uniform branches. */
#include "usc_test.h"

/* Runs a one-group kernel whose result per lane is r0, stored to out[tindex]. */
static void run(const char *body, uint32_t *out, unsigned n)
{
   static char src[8192];
   snprintf(src, sizeof(src), "%s\nshl r10, sr.tindex, #2\nst_global.b32 u0, r10, r0\nend\n", body);
   struct t_mem mem = { calloc(1, 4096), 4096 };
   uint32_t uni[2] = { (uint32_t)T_BASE, (uint32_t)(T_BASE >> 32) };
   uint32_t tg[3] = { n, 1, 1 }, ng[3] = { 1, 1, 1 };
   struct vagx_usc_result res;
   enum vagx_usc_status st = t_run(src, &mem, uni, 2, tg, ng, 0, &res);
   CHECK(st == VAGX_USC_OK, "status %s", vagx_usc_status_name(st));
   memcpy(out, mem.buf, n * 4);
   free(mem.buf);
}

int main(void)
{
   uint32_t o[64];

   /* Nested if/else. */
   run("mov r1, sr.lane_id\n"
       "and r2, r1, #1\n"
       "if.nz r2\n"
       "  and r3, r1, #2\n"
       "  if.nz r3\n  mov r0, #11\n  else\n  mov r0, #12\n  endif\n"
       "else\n"
       "  icmp.ult r3, r1, #16\n"
       "  if.nz r3\n  mov r0, #21\n  else\n  mov r0, #22\n  endif\n"
       "  iadd r0, r0, #100\n"
       "endif\n", o, 32);
   for (unsigned l = 0; l < 32; l++) {
      uint32_t want = (l & 1) ? ((l & 2) ? 11 : 12) : (l < 16 ? 121 : 122);
      CHECK(o[l] == want, "nested if lane %u: %u want %u", l, o[l], want);
   }

   /* Loop with per-lane trip counts: r0 = sum 0..lane-1, using break. */
   run("mov r1, #0\n"
       "loop\n"
       "  icmp.uge r2, r1, sr.lane_id\n"
       "  break.cond r2\n"
       "  iadd r0, r0, r1\n"
       "  iadd r1, r1, #1\n"
       "endloop\n"
       "iadd r0, r0, #1000\n", o, 32);
   for (unsigned l = 0; l < 32; l++)
      CHECK(o[l] == 1000 + l * (l - 1) / 2, "loop lane %u: %u", l, o[l]);

   /* continue (skip odd i) + break inside nested if, and nested loops. */
   run("mov r1, #0\n"
       "loop\n"
       "  iadd r1, r1, #1\n"
       "  icmp.ugt r2, r1, sr.lane_id\n"
       "  if.nz r2\n    break\n  endif\n"
       "  and r3, r1, #1\n"
       "  continue.cond r3\n"
       "  mov r4, #0\n"
       "  loop\n"
       "    iadd r4, r4, #1\n"
       "    icmp.uge r5, r4, #3\n"
       "    break.cond r5\n"
       "  endloop\n"
       "  iadd r0, r0, r4\n"
       "  iadd r0, r0, r1\n"
       "endloop\n", o, 32);
   for (unsigned l = 0; l < 32; l++) {
      uint32_t want = 0;
      for (uint32_t i = 1; i <= l; i++)
         if (!(i & 1))
            want += 3 + i;
      CHECK(o[l] == want, "continue lane %u: %u want %u", l, o[l], want);
   }

   /* Uniform jump/branch, and a partially filled group (20 threads). */
   run("mov r0, #5\n"
       "mov r1, u1\n"
       "br.nz r1, @skip\n"
       "mov r0, #6\n"
       "skip:\n"
       "jmp @over\n"
       "mov r0, #7\n"
       "over:\n"
       "iadd r0, r0, sr.lane_id\n", o, 20);
   for (unsigned l = 0; l < 20; l++)
      CHECK(o[l] == 5 + l, "br lane %u: %u", l, o[l]);

   /* Two SIMD groups (48 threads), else branch empty for some groups. */
   run("icmp.ult r1, sr.tindex, #40\n"
       "if.z r1\n  mov r0, #1\nelse\n  mov r0, #2\nendif\n", o, 48);
   for (unsigned t = 0; t < 48; t++)
      CHECK(o[t] == (t < 40 ? 2u : 1u), "if.z thread %u: %u", t, o[t]);

   /* vagx_usc_run_simd reports the discarded lanes (the fragment stage keeps
    * only the others): lanes 0 mod 4 by discard.cond, lanes 1 mod 4 by a
    * discard inside an if; 24 of 32 lanes start active.  Killed lanes computed here
    * from the lane number, not from the run. */
   {
      struct vagx_usc_decoded *p = t_build("and r1, sr.lane_id, #3\n"
                                           "icmp.eq r2, r1, #0\n"
                                           "discard.cond r2\n"
                                           "icmp.eq r2, r1, #1\n"
                                           "if.nz r2\n  discard\nendif\n"
                                           "end\n");
      static uint32_t sr[VAGX_SR_COUNT][32];
      for (unsigned l = 0; l < 32; l++)
         sr[VAGX_SR_LANE_ID][l] = l;
      struct vagx_usc *usc = vagx_usc_create();
      struct vagx_usc_env env = { 0 };
      struct vagx_usc_result res;
      uint32_t want = 0;
      for (unsigned l = 0; l < 24; l++)
         if (l % 4 < 2)
            want |= 1u << l;
      CHECK(p && vagx_usc_run_simd(usc, p, &env, (const uint32_t (*)[32])sr, 0x00ffffffu, &res) ==
                    VAGX_USC_OK && res.killed == want,
            "killed %08x want %08x", res.killed, want);
      vagx_usc_destroy(usc);
      vagx_usc_program_free(p);
   }
   return t_report("usc_cf");
}
