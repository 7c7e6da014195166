/* Program cache: decoded programs keyed by (page-table root, VA), stamped with
 * a generation.  The device bumps the generation at job start and TLB
 * invalidation; a stale entry is revalidated by comparing its code bytes with
 * memory, so unchanged shaders are decoded once for the life of the cache.
 * A spinlock is enough: lookups are short and decoding happens once. */
#include <stdlib.h>

#include "usc_decode.h"
#include "usc_priv.h"

#define NBUCKETS 256
#define MAX_FETCH_WORDS (2u * VAGX_USC_MAX_INSTRS)

struct vagx_usc_cache {
   atomic_flag lock;
   uint64_t gen;
   struct vagx_usc_decoded *buckets[NBUCKETS];
   struct vagx_usc_decoded *retired; /* replaced, freed by trim */
};

struct vagx_usc_cache *vagx_usc_cache_create(void)
{
   struct vagx_usc_cache *c = calloc(1, sizeof(*c));
   if (c) {
      atomic_flag_clear(&c->lock);
      c->gen = 1;
   }
   return c;
}

static void free_list(struct vagx_usc_decoded *p)
{
   while (p) {
      struct vagx_usc_decoded *n = p->next;
      vagx_usc_program_free(p);
      p = n;
   }
}

void vagx_usc_cache_destroy(struct vagx_usc_cache *c)
{
   if (!c)
      return;
   for (unsigned i = 0; i < NBUCKETS; i++)
      free_list(c->buckets[i]);
   free_list(c->retired);
   free(c);
}

static void lock(struct vagx_usc_cache *c)
{
   while (atomic_flag_test_and_set_explicit(&c->lock, memory_order_acquire))
      ;
}

static void unlock(struct vagx_usc_cache *c)
{
   atomic_flag_clear_explicit(&c->lock, memory_order_release);
}

void vagx_usc_cache_invalidate(struct vagx_usc_cache *c)
{
   lock(c);
   c->gen++;
   unlock(c);
}

void vagx_usc_cache_trim(struct vagx_usc_cache *c)
{
   lock(c);
   free_list(c->retired);
   c->retired = NULL;
   unlock(c);
}

static unsigned bucket(uint64_t root, uint64_t va)
{
   uint64_t h = (root * 0x9e3779b97f4a7c15ull) ^ (va >> 3) ^ (va >> 17);
   return (unsigned)(h ^ (h >> 29)) % NBUCKETS;
}

/* Copies up to n code words at va; returns how many were readable. */
static size_t fetch(const struct vagx_usc_env *env, uint64_t va, uint64_t *buf, size_t n)
{
   size_t got = 0;
   while (got < n) {
      uint64_t span = 0;
      const void *p = env->mem && env->mem->translate
                         ? env->mem->translate(env->mem_ctx, va + got * 8, 8, VAGX_USC_ACC_EXEC, &span)
                         : NULL;
      if (!p)
         break;
      size_t k = span / 8;
      if (k > n - got)
         k = n - got;
      if (!k)
         k = 1;
      memcpy(buf + got, p, k * 8);
      got += k;
   }
   return got;
}

static struct vagx_usc_decoded *decode_at(const struct vagx_usc_env *env, uint64_t va,
                                          struct vagx_usc_result *res)
{
   size_t n = 256;
   for (;;) {
      uint64_t *buf = malloc(n * sizeof(uint64_t));
      struct vagx_usc_decoded *p = NULL;
      if (!buf) {
         res->status = VAGX_USC_NOMEM;
         return NULL;
      }
      size_t got = fetch(env, va, buf, n);
      int r = usc_decode(buf, got, true, &p, res);
      free(buf);
      if (r != USC_DECODE_NEED_MORE)
         return p;
      if (got < n) {
         res->status = VAGX_USC_FAULT;
         res->fault_va = va + got * 8;
         res->fault_access = VAGX_USC_ACC_EXEC;
         res->pc = (uint32_t)(got * 8);
         return NULL;
      }
      if (n >= MAX_FETCH_WORDS) {
         res->status = VAGX_USC_ILLEGAL_INSTRUCTION;
         res->isa_err = VAGX_ISA_ETRUNC;
         res->pc = (uint32_t)(n * 8);
         return NULL;
      }
      n *= 2;
   }
}

static bool unchanged(const struct vagx_usc_env *env, const struct vagx_usc_decoded *p)
{
   uint64_t *buf = malloc(p->nwords * sizeof(uint64_t));
   bool same = buf && fetch(env, p->va, buf, p->nwords) == p->nwords &&
               !memcmp(buf, p->code, p->nwords * sizeof(uint64_t));
   free(buf);
   return same;
}

const struct vagx_usc_decoded *vagx_usc_cache_get(struct vagx_usc_cache *c,
                                                  const struct vagx_usc_env *env,
                                                  uint64_t root, uint64_t va,
                                                  struct vagx_usc_result *res)
{
   memset(res, 0, sizeof(*res));
   if (va & 7) {
      res->status = VAGX_USC_FAULT;
      res->fault_va = va;
      res->fault_access = VAGX_USC_ACC_EXEC | VAGX_USC_ACC_UNALIGNED;
      return NULL;
   }
   lock(c);
   struct vagx_usc_decoded **pp = &c->buckets[bucket(root, va)], *p;
   for (p = *pp; p; pp = &p->next, p = p->next)
      if (p->root == root && p->va == va)
         break;
   if (p && p->gen != c->gen) {
      if (unchanged(env, p)) {
         p->gen = c->gen;
      } else {
         *pp = p->next;
         p->next = c->retired;
         c->retired = p;
         p = NULL;
      }
   }
   if (!p) {
      p = decode_at(env, va, res);
      if (p) {
         p->root = root;
         p->va = va;
         p->gen = c->gen;
         unsigned b = bucket(root, va);
         p->next = c->buckets[b];
         c->buckets[b] = p;
      }
   }
   unlock(c);
   return p;
}
