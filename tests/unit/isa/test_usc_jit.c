/* The JIT of ALU runs (usc_jit.c) against the interpreter, bit for bit.
 *
 * - per op: every ALU opcode the JIT compiles, with random modifiers (source
 *   abs/neg/half selects, saturate, half destinations, conditions, rounding
 *   modes), on float and integer edge cases (NaN payloads, infinities,
 *   denormals, +-0, INT_MIN, shifts past 31);
 * - random straight-line ALU programs (fixed seeds) whose sources are
 *   registers, uniforms, special registers and immediates;
 * both run once through the interpreter's handlers and once through the
 * compiled runs, on the same register file (every row and lane random, so
 * inactive lanes and unwritten rows are compared too), random exec masks;
 * - iter and ldcf (usc_iter.c) in random programs with ALU instructions, on
 *   random interpolation points and planes (missing ones, a W plane through
 *   0, infinities and NaNs among them);
 * - the executor: status, pc, instruction count and memory of budget-limited
 *   runs (single group and lockstep gangs) are the same with and without it;
 * - memory: thousands of compiled programs, each freed, leave no code behind.
 * Skipped (passing) when the core was built without LLVM. */
#include <math.h>
#include <pthread.h>
#include <time.h>

#include "usc_jit.h"
#include "usc_priv.h"
#include "usc_test.h"

/* register rows an operand can name (an 8-bit index) */
#define ROWS (1u << (8 * sizeof(((struct vagx_instr *)0)->dst)))


/* Values with every float class and integer edge. */
static const uint32_t pool[] = {
   0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3f000000, 0x3fc00000, 0x40200000,
   0xc0200000, 0x00000001, 0x007fffff, 0x80000001, 0x00800000, 0x7f7fffff, 0xff7fffff,
   0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffc00001, 0x7fbfffff, 0x3eaaaaab,
   0x40490fdb, 0x477fe000, 0x477ff000, 0x33800000, 0x33000000, 0x4f000000, 0xcf000000,
   0x4f800000, 0x3f7fffff, 0xb3800000, 0x3f7ffffe, 0x4b800001, 0xcb000001, 0x3effffff,
   1, 2, 3, 31, 32, 33, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000001, 0xfffffffe,
   0xffffffff, 0x12345678, 0xdeadbeef, 0x00ff00ff, 0x3c00, 0x7c00, 0xfc00, 0x7e01, 0x0001,
   0x03ff, 0x8400, 0x1f05, 0x0813,
};

static uint32_t rvalue(void)
{
   switch (t_rand() & 3) {
   case 0: return t_rand() ^ (t_rand() << 16);
   case 1: return (t_rand() & 0x807fffffu) | ((120u + t_rand() % 16) << 23); /* near 1.0 */
   default: return pool[t_rand() % (sizeof(pool) / 4)];
   }
}

#define NREGS 24      /* registers the programs use: r0..r23 */
#define NU 8          /* uniforms u0..u7 */

static uint32_t regs0[ROWS][L] __attribute__((aligned(64)));
static uint32_t regs_i[ROWS][L] __attribute__((aligned(64)));
static uint32_t regs_j[ROWS][L] __attribute__((aligned(64)));
static uint32_t urows[USC_NUM_U][L], srows[VAGX_SR_COUNT][L];
static struct usc_grp grp;
/* the run's iterator inputs (usc_iter.c reads them through grp.run) */
#define NPLANES 12
static struct vagx_usc_plane planes[NPLANES];
static double itx[L], ity[L];
static struct vagx_usc_iter iter = { itx, ity, planes, 0 };
static struct usc_run trun = { .iter = &iter };

static bool is_alu(unsigned op)
{
   const struct vagx_op_info *info = vagx_info(op);
   if (!info->name || (info->flags & (VAGX_OPF_CF | VAGX_OPF_GFX)))
      return false;
   struct vagx_instr I = { 0 };
   I.op = (uint8_t)op;
   return usc_alu_fn(&I) != NULL;
}

/* A random valid instance of op (retried until it validates). */
static bool rand_instr(unsigned op, struct vagx_instr *out, unsigned nregs)
{
   const struct vagx_op_info *info = vagx_info(op);
   for (int tries = 0; tries < 400; tries++) {
      struct vagx_instr I = { 0 };
      unsigned nimm = 0;
      I.op = (uint8_t)op;
      I.sat = (info->flags & VAGX_OPF_SAT) && (t_rand() & 3) == 0;
      I.mod = (uint8_t)(tries < 200 ? t_rand() % 16 : 0);
      I.dst = (uint8_t)(t_rand() % nregs);
      I.dst_half = (t_rand() % 5 == 0) ? (uint8_t)(1 + t_rand() % 2) : VAGX_HALF_FULL;
      for (unsigned s = 0; s < info->nsrc; s++) {
         struct vagx_src *src = &I.src[s];
         unsigned k = t_rand() % 16;
         if (k < 8) {
            src->file = VAGX_FILE_R;
         } else if (k < 10) {
            src->file = (t_rand() & 1) ? VAGX_FILE_RL : VAGX_FILE_RH;
         } else if (k < 12) {
            src->file = VAGX_FILE_U;
         } else if (k < 14) {
            src->file = VAGX_FILE_SR;
         } else if (nimm < 2) {
            src->file = VAGX_FILE_IMM;
         } else {
            src->file = VAGX_FILE_R;
         }
         switch (src->file) {
         case VAGX_FILE_U: src->idx = (uint8_t)(t_rand() % NU); break;
         case VAGX_FILE_SR: src->idx = (uint8_t)(t_rand() % VAGX_SR_COUNT); break;
         case VAGX_FILE_IMM:
            src->idx = (uint8_t)nimm;
            I.imm[nimm++] = rvalue();
            break;
         default: src->idx = (uint8_t)(t_rand() % nregs); break;
         }
         if (info->src[s] == VAGX_SK_F32) {
            src->abs = (t_rand() % 5) == 0;
            src->neg = (t_rand() % 4) == 0;
         }
      }
      I.x = nimm > 0;
      if (vagx_validate(&I) == VAGX_ISA_OK) {
         *out = I;
         return true;
      }
   }
   return false;
}

static struct vagx_usc_decoded *build(const struct vagx_instr *ins, unsigned n)
{
   static uint64_t words[2 * 64 + 1];
   unsigned nw = 0;
   for (unsigned i = 0; i < n; i++) {
      uint64_t w[2];
      int k = vagx_encode(&ins[i], w);
      if (k < 0)
         return NULL;
      for (int j = 0; j < k; j++)
         words[nw++] = w[j];
   }
   struct vagx_instr end = { 0 };
   end.op = VAGX_OP_END;
   uint64_t w[2];
   vagx_encode(&end, w);
   words[nw++] = w[0];
   struct vagx_usc_result res;
   return vagx_usc_program_decode(words, nw, &res);
}

static void fill_state(uint32_t exec)
{
   for (unsigned r = 0; r < ROWS; r++)
      for (unsigned l = 0; l < L; l++)
         regs0[r][l] = r < NREGS ? rvalue() : 0xa5a5a5a5u;
   for (unsigned u = 0; u < NU; u++) {
      uint32_t v = rvalue();
      for (unsigned l = 0; l < L; l++)
         urows[u][l] = (t_rand() & 7) ? v : rvalue(); /* mostly broadcast, as the executor's */
   }
   for (unsigned s = 0; s < VAGX_SR_COUNT; s++)
      for (unsigned l = 0; l < L; l++)
         srows[s][l] = rvalue();
   /* points: pixel centres or sample positions around the origin */
   for (unsigned l = 0; l < L; l++) {
      itx[l] = (double)((int)(t_rand() % 4096) - 2048) + (t_rand() % 16) / 16.0;
      ity[l] = (double)((int)(t_rand() % 4096) - 2048) + (t_rand() % 16) / 16.0;
   }
   static const double edge[] = { 0.0, -0.0, 1.0, -1.0, 0.5, 1e-300, -1e300, INFINITY, NAN, 3e38 };
   for (unsigned i = 0; i < NPLANES; i++) {
      double *k[3] = { &planes[i].a, &planes[i].b, &planes[i].c };
      for (unsigned j = 0; j < 3; j++)
         *k[j] = (t_rand() % 8) ? (double)(int32_t)(t_rand() ^ (t_rand() << 16)) / 65536.0
                                : edge[t_rand() % (sizeof(edge) / sizeof(edge[0]))];
      if (t_rand() % 4 == 0) {
         /* exact cancellation at one lane's point: c + a*x is then 0 there
          * and the operation order decides what remains of b*y */
         planes[i].a = ldexp(1.0, 40 + (int)(t_rand() % 20));
         planes[i].c = -planes[i].a * itx[t_rand() % L];
      }
      planes[i].flat = rvalue();
   }
   iter.ncf = t_rand() % (NPLANES + 1);
   usc_set_exec(&grp, exec);
}

static void run_on(const struct vagx_usc_decoded *p, uint32_t (*regs)[L], bool jit)
{
   memcpy(regs, regs0, sizeof(regs0));
   grp.r = regs[0];
   grp.base[USC_B_R] = regs[0];
   grp.base[USC_B_U] = urows[0];
   grp.base[USC_B_SR] = srows[0];
   grp.base[USC_B_IMM] = p->imm[0];
   grp.base[USC_B_CF] = NULL;
   grp.run = &trun;
   for (uint32_t i = 0; i < p->nops;) {
      const struct usc_op *o = &p->ops[i];
      usc_jfn j = usc_op_jit(o);
      if (jit && j) {
         j(grp.r, grp.base, grp.lmask, grp.exec, &iter);
         i += o->jn;
      } else {
         o->fn(&grp, o);
         i++;
      }
   }
}

static uint32_t rand_exec(void)
{
   switch (t_rand() % 5) {
   case 0: return ~0u;
   case 1: return 0;
   case 2: return t_rand() ^ (t_rand() << 16);
   case 3: return 0x0f0f00ffu;
   default: return (1u << (t_rand() % 32)) - 1;
   }
}

/* Runs p through both and compares; returns false on a difference. */
static bool compare(const struct vagx_usc_decoded *p, const char *what, unsigned trials)
{
   char dis[128];
   for (unsigned t = 0; t < trials; t++) {
      fill_state(rand_exec());
      run_on(p, regs_i, false);
      run_on(p, regs_j, true);
      for (unsigned r = 0; r < ROWS; r++)
         for (unsigned l = 0; l < L; l++)
            if (regs_i[r][l] != regs_j[r][l]) {
               CHECK(0, "%s: r%u lane %u (exec %08x): interpreter %08x, JIT %08x", what, r, l,
                     grp.exec, regs_i[r][l], regs_j[r][l]);
               for (uint32_t i = 0; i < p->nops && i < 40; i++) {
                  vagx_print(&p->ops[i].I, dis, sizeof(dis));
                  fprintf(stderr, "   %s\n", dis);
               }
               return false;
            }
   }
   t_checks++;
   return true;
}

/* Each ALU opcode, alone: "op; op" (a run needs two), many variants. */
static void test_per_op(void)
{
   unsigned ops = 0, variants = 0;
   for (unsigned op = 0; op < VAGX_OP_COUNT; op++) {
      if (!is_alu(op))
         continue;
      ops++;
      unsigned bad = 0;
      for (unsigned v = 0; v < 24 && !bad; v++) {
         struct vagx_instr ins[2];
         if (!rand_instr(op, &ins[0], 6) || !rand_instr(op, &ins[1], 6))
            continue;
         struct vagx_usc_decoded *p = build(ins, 2);
         if (!p)
            continue;
         CHECK(usc_jit_compile(p) && usc_op_jit(&p->ops[0]) && p->ops[0].jn == 2,
               "%s: compiled", vagx_info(op)->name);
         bad += !compare(p, vagx_info(op)->name, 8);
         variants++;
         vagx_usc_program_free(p);
      }
   }
   printf("usc_jit: %u ALU opcodes, %u variants\n", ops, variants);
}

/* Each ALU opcode on every pair of edge values (lanes x trials), sources
 * r1, r2, r3 with random modifiers. */
static void test_edges(void)
{
   const unsigned P = sizeof(pool) / 4;
   for (unsigned op = 0; op < VAGX_OP_COUNT; op++) {
      if (!is_alu(op))
         continue;
      for (unsigned v = 0; v < 6; v++) {
         struct vagx_instr ins[2];
         unsigned k;
         for (k = 0; k < 2; k++) {
            if (!rand_instr(op, &ins[k], 6))
               break;
            ins[k].dst = (uint8_t)(k ? 4 : 0);
            ins[k].x = 0;
            ins[k].imm[0] = ins[k].imm[1] = 0;
            for (unsigned s = 0; s < vagx_nsrc(&ins[k]); s++) {
               struct vagx_src *src = &ins[k].src[s];
               if (src->file != VAGX_FILE_RL && src->file != VAGX_FILE_RH)
                  src->file = VAGX_FILE_R;
               src->idx = (uint8_t)(k ? 3 - s : 1 + s);
            }
         }
         if (k < 2)
            continue;
         struct vagx_usc_decoded *p = build(ins, 2);
         if (!p || !usc_jit_compile(p)) {
            CHECK(0, "%s: edge program", vagx_info(op)->name);
            vagx_usc_program_free(p);
            continue;
         }
         bool ok = true;
         for (unsigned t = 0; t * L < P * P && ok; t++) {
            fill_state(t & 1 ? rand_exec() : ~0u);
            for (unsigned l = 0; l < L; l++) {
               unsigned i = t * L + l;
               regs0[1][l] = pool[i % P];
               regs0[2][l] = pool[(i / P) % P];
               regs0[3][l] = pool[(i * 7) % P];
            }
            run_on(p, regs_i, false);
            run_on(p, regs_j, true);
            if (memcmp(regs_i, regs_j, sizeof(regs_i))) {
               char dis[128];
               for (unsigned r = 0; r < 8 && ok; r++)
                  for (unsigned l = 0; l < L && ok; l++)
                     if (regs_i[r][l] != regs_j[r][l]) {
                        vagx_print(&ins[r == 4], dis, sizeof(dis));
                        CHECK(0, "%s: r%u lane %u, sources %08x %08x %08x: interpreter %08x, JIT %08x",
                              dis, r, l, regs0[1][l], regs0[2][l], regs0[3][l], regs_i[r][l],
                              regs_j[r][l]);
                        ok = false;
                     }
               ok = false;
            }
         }
         t_checks++;
         vagx_usc_program_free(p);
      }
   }
}

/* Random straight-line programs of up to 40 instructions over every ALU op. */
static void test_random_programs(void)
{
   unsigned alu[VAGX_OP_COUNT], nalu = 0;
   for (unsigned op = 0; op < VAGX_OP_COUNT; op++)
      if (is_alu(op))
         alu[nalu++] = op;
   for (unsigned seed = 1; seed <= 400; seed++) {
      if (getenv("JIT_SEED") && (unsigned)atoi(getenv("JIT_SEED")) != seed)
         continue;
      t_rng = 0x2545f4914f6cdd1dull * seed;
      struct vagx_instr ins[40];
      unsigned n = 2 + t_rand() % 39, k = 0;
      while (k < n) {
         /* mostly the frequent float ops, as shaders have them */
         unsigned op = (t_rand() & 1) ? alu[t_rand() % nalu]
                       : (unsigned[]){ VAGX_OP_FADD, VAGX_OP_FMUL, VAGX_OP_FFMA, VAGX_OP_FMOV,
                                       VAGX_OP_FMIN, VAGX_OP_FMAX, VAGX_OP_FRSQRT,
                                       VAGX_OP_FDDX, VAGX_OP_FDDY }[t_rand() % 9];
         if (rand_instr(op, &ins[k], NREGS))
            k++;
      }
      struct vagx_usc_decoded *p = build(ins, n);
      CHECK(p, "seed %u: decode", seed);
      if (!p)
         continue;
      CHECK(usc_jit_compile(p) && p->ops[0].jn == n, "seed %u: one run of %u", seed, n);
      char what[32];
      snprintf(what, sizeof(what), "seed %u", seed);
      const uint64_t state = t_rng;
      if (!compare(p, what, 6) && getenv("JIT_SEED")) {
         /* debugging: the shortest failing prefix */
         for (unsigned m = 2; m < n; m++) {
            uint64_t keep = t_rng;
            struct vagx_usc_decoded *q = build(ins, m);
            usc_jit_compile(q);
            snprintf(what, sizeof(what), "seed %u prefix %u", seed, m);
            t_rng = state;
            bool ok = compare(q, what, 6);
            t_rng = keep;
            vagx_usc_program_free(q);
            if (!ok)
               break;
         }
      }
      vagx_usc_program_free(p);
   }
}

/* A random iter (without .f16, which the renderer's hook runs) or ldcf. */
static struct vagx_instr rand_iter(unsigned nregs)
{
   for (;;) {
      struct vagx_instr I = { 0 };
      const bool ldcf = (t_rand() % 4) == 0;
      I.op = ldcf ? VAGX_OP_LDCF : VAGX_OP_ITER;
      if (!ldcf)
         I.mod = (uint8_t)((t_rand() % VAGX_ITERLOC_COUNT) | (t_rand() & 1) << 2);
      I.dst = (uint8_t)(t_rand() % nregs);
      I.dst_half = (t_rand() % 6 == 0) ? (uint8_t)(1 + t_rand() % 2) : VAGX_HALF_FULL;
      /* planes past NPLANES and ncf: the missing-plane rule */
      I.src[0] = (struct vagx_src){ .file = VAGX_FILE_CF, .idx = (uint8_t)(t_rand() % (NPLANES + 3)) };
      if (!ldcf) {
         I.src[1] = (struct vagx_src){ .file = VAGX_FILE_CF, .idx = (uint8_t)(t_rand() % (NPLANES + 3)) };
         I.src[2] = (struct vagx_src){ .file = VAGX_FILE_R, .idx = (uint8_t)(t_rand() % nregs) };
      }
      if (vagx_validate(&I) == VAGX_ISA_OK)
         return I;
   }
}

/* Programs of ALU instructions with iter and ldcf among them (their results
 * read by the ALU instructions that follow), as fragment shaders are. */
static void test_iter(void)
{
   unsigned alu[VAGX_OP_COUNT], nalu = 0, niter = 0;
   for (unsigned op = 0; op < VAGX_OP_COUNT; op++)
      if (is_alu(op))
         alu[nalu++] = op;
   for (unsigned seed = 1; seed <= 150; seed++) {
      t_rng = 0x9e3779b97f4a7c15ull * seed;
      struct vagx_instr ins[32];
      unsigned n = 2 + t_rand() % 31, k = 0, here = 0;
      while (k < n) {
         if (t_rand() % 3 == 0) {
            ins[k++] = rand_iter(NREGS);
            here++;
            continue;
         }
         unsigned op = (t_rand() & 1) ? alu[t_rand() % nalu]
                       : (unsigned[]){ VAGX_OP_FADD, VAGX_OP_FMUL, VAGX_OP_FFMA }[t_rand() % 3];
         if (rand_instr(op, &ins[k], NREGS))
            k++;
      }
      struct vagx_usc_decoded *p = build(ins, n);
      CHECK(p, "iter seed %u: decode", seed);
      if (!p)
         continue;
      niter += here;
      CHECK(usc_jit_compile(p) && p->ops[0].jn == n && p->ops[0].jiter == (here > 0),
            "iter seed %u: one run of %u", seed, n);
      char what[32];
      snprintf(what, sizeof(what), "iter seed %u", seed);
      compare(p, what, 6);
      vagx_usc_program_free(p);
   }
   printf("usc_jit: %u iter/ldcf instructions\n", niter);
}

/* Render workers compile concurrently: programs compiled from 4 threads at
 * once (each retries while another holds the compiler) must give the same
 * results as compiled alone (concurrent use of LLJIT's one TargetMachine
 * made code with a constant-pool address of -1). */
#define CT_THREADS 4
#define CT_PROGS 24
static struct vagx_usc_decoded *ct_progs[CT_THREADS][CT_PROGS];

static void *ct_main(void *arg)
{
   struct vagx_usc_decoded **ps = arg;
   for (unsigned i = 0; i < CT_PROGS; i++)
      while (atomic_load(&ps[i]->jit_state) != USC_JIT_DONE)
         usc_jit_compile(ps[i]);
   return NULL;
}

static void test_threads(void)
{
   for (unsigned t = 0; t < CT_THREADS; t++)
      for (unsigned i = 0; i < CT_PROGS; i++) {
         struct vagx_instr ins[16];
         const unsigned n = 4 + t_rand() % 12;
         for (unsigned k = 0; k < n; k++)
            while (!rand_instr((unsigned[]){ VAGX_OP_FADD, VAGX_OP_FMUL, VAGX_OP_FFMA, VAGX_OP_FMIN,
                                             VAGX_OP_FSEL, VAGX_OP_IADD }[t_rand() % 6],
                               &ins[k], 12))
               ;
         ct_progs[t][i] = build(ins, n);
      }
   pthread_t th[CT_THREADS];
   for (unsigned t = 0; t < CT_THREADS; t++)
      pthread_create(&th[t], NULL, ct_main, ct_progs[t]);
   for (unsigned t = 0; t < CT_THREADS; t++)
      pthread_join(th[t], NULL);
   for (unsigned t = 0; t < CT_THREADS; t++)
      for (unsigned i = 0; i < CT_PROGS; i++) {
         CHECK(usc_op_jit(&ct_progs[t][i]->ops[0]), "thread %u program %u compiled", t, i);
         compare(ct_progs[t][i], "concurrently compiled", 4);
         vagx_usc_program_free(ct_progs[t][i]);
      }
}

/* Through the executor: compute threadgroups (lockstep gangs of 32 groups and
 * a partial last group) and single groups, under budgets that stop inside
 * and between runs: status, pc, instructions and memory the same. */
static void test_budget(void)
{
   const char *src =
      "imad r10, sr.tgid_x, #96, sr.tindex\n"
      "shl r10, r10, #2\n"
      "ld_global.b32 r1, u0, r10\n"
      "mov r2, #0\n"
      "loop\n"
      "fmul r3, r1, r1\n"
      "ffma r4, r3, #0.5, r1\n"
      "fadd r1, r4, #-0.25\n"
      "fmin r5, r1, #100.0\n"
      "fmax r1, r5, #-100.0\n"
      "iadd r2, r2, #1\n"
      "icmp.uge r6, r2, #7\n"
      "iadd r7, r2, r6\n"
      "break.cond r6\n"
      "endloop\n"
      "st_global.b32 u2, r10, r1\n"
      "fsqrt r8, |r1|\n"
      "frcp r9, r8\n"
      "st_global.b32 u2, r10, r9\n"
      "end\n";
   struct vagx_usc_decoded *p = t_build(src);
   if (!p)
      return;
   enum { N = 96 * 2 };
   struct t_mem mem = { calloc(3, N * 4), 3 * N * 4 };
   uint32_t *A = (uint32_t *)(void *)mem.buf, *O = A + N;
   static uint32_t ref[N];
   for (unsigned i = 0; i < N; i++)
      A[i] = rvalue();
   uint64_t base = T_BASE;
   uint32_t uni[4] = { (uint32_t)base, (uint32_t)(base >> 32), (uint32_t)(base + 4 * N),
                       (uint32_t)((base + 4 * N) >> 32) };
   struct vagx_usc *usc = vagx_usc_create();
   struct vagx_usc_env env = t_env(&mem, uni, 4);
   CHECK(usc_jit_compile(p), "budget program compiled");
   unsigned mism = 0, stopped = 0;
   static const uint32_t sizes[][3] = { { 96, 1, 1 }, { 1, 1, 1 }, { 77, 1, 1 } };
   for (unsigned sz = 0; sz < 3; sz++) {
      struct vagx_usc_compute cs = { { sizes[sz][0], 1, 1 }, { 2, 1, 1 }, 0 };
      for (uint64_t budget = 0; budget < 2400 && mism < 3; budget += budget < 300 ? 1 : 37) {
         struct vagx_usc_result r[2];
         enum vagx_usc_status st[2];
         env.budget = budget;
         for (int jit = 0; jit < 2; jit++) {
            memset(O, 0x5a, N * 4);
            env.no_jit = !jit;
            st[jit] = vagx_usc_run_grid(usc, p, &env, &cs, &r[jit]);
            if (!jit)
               memcpy(ref, O, sizeof(ref));
         }
         stopped += st[0] == VAGX_USC_BUDGET;
         if (st[0] != st[1] || r[0].pc != r[1].pc || r[0].instructions != r[1].instructions ||
             memcmp(ref, O, sizeof(ref))) {
            mism++;
            CHECK(0, "tg %u budget %llu: interpreter %s pc %u n %llu, JIT %s pc %u n %llu%s",
                  sizes[sz][0], (unsigned long long)budget, vagx_usc_status_name(st[0]), r[0].pc,
                  (unsigned long long)r[0].instructions, vagx_usc_status_name(st[1]), r[1].pc,
                  (unsigned long long)r[1].instructions,
                  memcmp(ref, O, sizeof(ref)) ? ", memory differs" : "");
         }
      }
   }
   CHECK(stopped > 100, "budget stops: %u", stopped);
   t_checks++;
   vagx_usc_destroy(usc);
   vagx_usc_program_free(p);
   free(mem.buf);
}

/* RSS is no measure under AddressSanitizer (freed memory is quarantined,
 * allocations carry redzones): the memory checks then only print. */
#ifdef __SANITIZE_ADDRESS__
#define RSS_CHECKED 0
#else
#define RSS_CHECKED 1
#endif
/* Programs compiled and freed per batch, and kept, by test_memory.  Under
 * ASan, where the RSS is not checked, fewer exercise the same compile and
 * free paths and leak checks (a compile costs ~0.1 s there: the full counts
 * took over 250 s on a loaded host). */
#define MEM_BATCH (RSS_CHECKED ? 800 : 100)
#define MEM_KEEP (RSS_CHECKED ? 400 : 50)

static long rss_kib(void)
{
   FILE *f = fopen("/proc/self/statm", "r");
   long pages = 0, res = 0;
   if (f) {
      if (fscanf(f, "%ld %ld", &pages, &res) != 2)
         res = 0;
      fclose(f);
   }
   return res * 4;
}

/* Distinct programs compiled and freed (as the program cache evicts them)
 * leave no JIT code behind: the live count returns, memory stays flat. */
static void test_memory(void)
{
   struct usc_jit_stats s0, s1;
   usc_jit_get_stats(&s0);
   long rss[3] = { 0 };
   for (unsigned batch = 0; batch < 3; batch++) {
      for (unsigned i = 0; i < MEM_BATCH; i++) {
         struct vagx_instr ins[8];
         for (unsigned k = 0; k < 8; k++)
            while (!rand_instr(k & 1 ? VAGX_OP_FFMA : VAGX_OP_IADD, &ins[k], 16))
               ;
         ins[0].src[0] = (struct vagx_src){ 0, VAGX_FILE_IMM, 0, 0 };
         ins[0].src[1] = (struct vagx_src){ 1, VAGX_FILE_R, 0, 0 };
         ins[0].imm[0] = batch * 100000 + i; /* distinct code */
         ins[0].imm[1] = 0;
         ins[0].x = 1;
         struct vagx_usc_decoded *p = build(ins, 8);
         CHECK(p && usc_jit_compile(p), "program %u compiled", i);
         vagx_usc_program_free(p);
      }
      rss[batch] = rss_kib();
   }
   usc_jit_get_stats(&s1);
   CHECK(s1.programs - s0.programs == 3 * MEM_BATCH, "compiled %llu",
         (unsigned long long)(s1.programs - s0.programs));
   CHECK(s1.live == s0.live, "live programs %llu -> %llu", (unsigned long long)s0.live,
         (unsigned long long)s1.live);
   /* the first batch may grow LLVM's pools; the later ones must not keep
    * their code (800 programs hold several MiB when leaked) */
   printf("usc_jit: RSS after %u/%u/%u programs: %ld/%ld/%ld KiB\n", MEM_BATCH, 2 * MEM_BATCH,
          3 * MEM_BATCH, rss[0], rss[1], rss[2]);
   CHECK(!RSS_CHECKED || rss[2] - rss[1] < 2048, "RSS grew %ld KiB over 800 freed programs", rss[2] - rss[1]);

   /* A decoded program's size (what the program cache bounds) covers the
    * code the JIT makes of it: 400 programs kept, their RSS against their
    * sizes. */
   enum { KEEP = MEM_KEEP };
   static struct vagx_usc_decoded *kept[KEEP];
   size_t bytes = 0;
   long before = rss_kib();
   for (unsigned i = 0; i < KEEP; i++) {
      struct vagx_instr ins[12];
      const unsigned n = 2 + i % 11;
      for (unsigned k = 0; k < n; k++)
         while (!rand_instr(VAGX_OP_FFMA, &ins[k], 16))
            ;
      ins[0].src[0] = (struct vagx_src){ 0, VAGX_FILE_IMM, 0, 0 };
      ins[0].src[1] = (struct vagx_src){ 1, VAGX_FILE_R, 0, 0 };
      ins[0].src[2] = (struct vagx_src){ 2, VAGX_FILE_R, 0, 0 };
      ins[0].imm[0] = 7777777 + i;
      ins[0].imm[1] = 0;
      ins[0].x = 1;
      kept[i] = build(ins, n);
      CHECK(kept[i] && usc_jit_compile(kept[i]), "kept program %u", i);
      bytes += kept[i] ? vagx_usc_program_bytes(kept[i]) : 0;
   }
   long grew = rss_kib() - before;
   printf("usc_jit: %u compiled programs: RSS +%ld KiB, their sizes %zu KiB\n", KEEP, grew,
          bytes >> 10);
   CHECK(!RSS_CHECKED || (size_t)grew * 1024 <= bytes, "JIT memory %ld KiB over the programs' sizes %zu KiB",
         grew, bytes >> 10);
   for (unsigned i = 0; i < KEEP; i++)
      vagx_usc_program_free(kept[i]);
}

/* A jump target starts a run: ops 0-1 ALU, 2 jmp to op 4, 3-5 ALU.  Runs
 * [0,1] and [4,5] are compiled ([3] is too short); without the split at
 * the target, [3,5] would be one run and the jump would land inside it,
 * interpreting ops 4 and 5. */
static void test_jump_targets(void)
{
   struct vagx_instr ins[6];
   memset(ins, 0, sizeof(ins));
   for (unsigned k = 0; k < 6; k++) {
      ins[k].op = VAGX_OP_IADD;
      ins[k].dst = k + 1;
      ins[k].src[0] = (struct vagx_src){ k, VAGX_FILE_R, 0, 0 };
      ins[k].src[1] = (struct vagx_src){ k, VAGX_FILE_R, 0, 0 };
   }
   memset(&ins[2], 0, sizeof(ins[2]));
   ins[2].op = VAGX_OP_JMP;
   ins[2].x = 1;
   ins[2].imm[1] = 3; /* words: jmp (2), op 3 (1), then op 4 */
   struct vagx_usc_decoded *p = build(ins, 6);
   CHECK(p && p->ops[2].target == 4, "jmp decoded to op 4");
   if (!p)
      return;
   CHECK(usc_jit_compile(p), "compiled");
   CHECK(usc_op_jit(&p->ops[0]) && p->ops[0].jn == 2, "run at op 0 of 2 ops");
   CHECK(!usc_op_jit(&p->ops[3]), "no run at op 3 (one op before the target)");
   CHECK(usc_op_jit(&p->ops[4]) && p->ops[4].jn == 2, "run at the jump target, op 4, of 2 ops");
   vagx_usc_program_free(p);
}

static double t_now_s(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The parts, in order; the arguments name the ones to run (none: all).
 * The sanitizer build runs them as three meson tests (meson.build): together
 * they came near its 300 s limit on a loaded host. */
static const struct {
   const char *name;
   void (*fn)(void);
} parts[] = {
   {"per-op", test_per_op},   {"edges", test_edges},   {"random", test_random_programs},
   {"threads", test_threads}, {"budget", test_budget}, {"memory", test_memory},
   {"jumps", test_jump_targets}, {"iter", test_iter},
};
#define NPARTS (sizeof(parts) / sizeof(parts[0]))

static bool part_wanted(unsigned i, int argc, char **argv)
{
   if (argc < 2)
      return true;
   for (int a = 1; a < argc; a++)
      if (!strcmp(argv[a], parts[i].name))
         return true;
   return false;
}

int main(int argc, char **argv)
{
   for (int a = 1; a < argc; a++) {
      unsigned i = 0;
      while (i < NPARTS && strcmp(argv[a], parts[i].name))
         i++;
      if (i == NPARTS) {
         fprintf(stderr, "usage: test_usc_jit [part...]; parts:");
         for (i = 0; i < NPARTS; i++)
            fprintf(stderr, " %s", parts[i].name);
         fprintf(stderr, "\n");
         return 2;
      }
   }
   if (!usc_jit_available()) {
      printf("usc_jit: built without LLVM, nothing to test\n");
      return 0;
   }
   usc_jit_force(USC_JIT_EAGER);
   if (getenv("JIT_MINI")) {
      struct vagx_usc_decoded *p = t_build(getenv("JIT_MINI"));
      usc_jit_compile(p);
      compare(p, "mini", 2000);
      return t_report("usc_jit");
   }
   for (unsigned i = 0; i < NPARTS; i++) {
      if (!part_wanted(i, argc, argv))
         continue;
      const double t0 = t_now_s();
      parts[i].fn();
      printf("usc_jit: %s: %.1f s\n", parts[i].name, t_now_s() - t0);
   }
   struct usc_jit_stats s;
   usc_jit_get_stats(&s);
   printf("usc_jit: %llu programs, %llu runs, %llu instructions compiled, %llu failures\n",
          (unsigned long long)s.programs, (unsigned long long)s.runs,
          (unsigned long long)s.instrs, (unsigned long long)s.failures);
   CHECK(s.failures == 0, "compile failures");
   return t_report("usc_jit");
}
