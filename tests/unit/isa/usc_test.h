/* Shared helpers of the ISA/USC tests: a flat device memory behind the
 * translate callback, and "assemble + decode + run" in one call (the check
 * macro is tests/lib/vagx_check.h's). */
#ifndef VAGX_USC_TEST_H
#define VAGX_USC_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usc.h"
#include "vagx_check.h"
#include "vagx_test_rand.h"
#include "vagx_asm.h"

/* Device memory: one host buffer visible at VA T_BASE. */
#define T_BASE 0x123400000000ull

struct t_mem {
   uint8_t *buf;
   size_t size;
};

static unsigned t_safepoints; /* calls of t_safepoint */

static void *t_translate(void *ctx, uint64_t va, uint32_t size, unsigned access, uint64_t *span)
{
   struct t_mem *m = (struct t_mem *)ctx;
   (void)access;
   if (va < T_BASE || va - T_BASE + size > m->size)
      return NULL;
   *span = m->size - (va - T_BASE);
   return m->buf + (va - T_BASE);
}

static bool t_safepoint(void *ctx)
{
   (void)ctx;
   t_safepoints++;
   return true;
}

static const struct vagx_usc_mem_ops t_mem_ops = { .translate = t_translate,
                                                   .safepoint = t_safepoint };

static inline struct vagx_usc_decoded *t_build(const char *src)
{
   static uint32_t code[1 << 16];
   struct vagx_asm_error err;
   struct vagx_usc_result res;
   long n = vagx_asm_assemble(src, code, sizeof(code) / 4, &err);
   if (n < 0) {
      fprintf(stderr, "asm error line %d: %s\n", err.line, err.msg);
      t_failures++;
      return NULL;
   }
   struct vagx_usc_decoded *p = vagx_usc_program_decode((const uint64_t *)(const void *)code,
                                                        (size_t)n / 2, &res);
   if (!p) {
      fprintf(stderr, "decode error %s at pc %u (%s)\n", vagx_usc_status_name(res.status),
              res.pc, vagx_isa_strerror(res.isa_err));
      t_failures++;
   }
   return p;
}

/* An environment reading and writing mem, with nuni uniform words */
static inline struct vagx_usc_env t_env(struct t_mem *mem, const uint32_t *uni, unsigned nuni)
{
   struct vagx_usc_env env = { 0 };
   env.mem = &t_mem_ops;
   env.mem_ctx = mem;
   env.uniforms = uni;
   env.nuniforms = nuni;
   return env;
}

/* Runs src over a grid with the given uniforms; returns the status. */
static inline enum vagx_usc_status t_run(const char *src, struct t_mem *mem, const uint32_t *uni,
                                         unsigned nuni, const uint32_t tg[3], const uint32_t ng[3],
                                         uint32_t shared, struct vagx_usc_result *res)
{
   struct vagx_usc_decoded *p = t_build(src);
   if (!p)
      return VAGX_USC_ILLEGAL_INSTRUCTION;
   struct vagx_usc *usc = vagx_usc_create();
   struct vagx_usc_env env = t_env(mem, uni, nuni);
   struct vagx_usc_compute cs = { { tg[0], tg[1], tg[2] }, { ng[0], ng[1], ng[2] }, shared };
   enum vagx_usc_status st = vagx_usc_run_grid(usc, p, &env, &cs, res);
   vagx_usc_destroy(usc);
   vagx_usc_program_free(p);
   return st;
}

static inline uint32_t t_fu(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

static inline float t_uf(uint32_t u)
{
   float f;
   memcpy(&f, &u, 4);
   return f;
}

#endif
