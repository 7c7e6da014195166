/* Program cache: decoded programs keyed by (page-table root, VA), stamped with
 * a generation.  The device bumps the generation at job start and TLB
 * invalidation; a stale entry is revalidated by comparing its code bytes with
 * memory, so unchanged shaders are decoded once for the life of the cache.
 * A spinlock is enough: lookups are short and decoding happens once.
 *
 * Guest programs can sit at any number of addresses, so the cache is bounded
 * (VAGX_USC_CACHE_MAX_BYTES, least recently used entries go first) and
 * entries are reference counted: a program dropped or replaced while a job
 * still runs it is freed by that job's vagx_usc_cache_put(). */
#include <stdlib.h>

#include "usc_decode.h"
#include "usc_priv.h"

#define NBUCKETS 256
#define MAX_FETCH_WORDS (2u * VAGX_USC_MAX_INSTRS)

struct vagx_usc_cache {
   atomic_flag lock;
   uint64_t gen;
   struct vagx_usc_decoded *buckets[NBUCKETS];
   struct vagx_usc_decoded *lru_head, *lru_tail; /* most recently used first */
   size_t bytes;
   unsigned entries;
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

static void unref(struct vagx_usc_decoded *p)
{
   if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) == 1)
      vagx_usc_program_free(p);
}

void vagx_usc_cache_put(const struct vagx_usc_decoded *prog)
{
   if (prog)
      unref((struct vagx_usc_decoded *)prog);
}

void vagx_usc_cache_destroy(struct vagx_usc_cache *c)
{
   if (!c)
      return;
   for (unsigned i = 0; i < NBUCKETS; i++) {
      struct vagx_usc_decoded *p = c->buckets[i];
      while (p) {
         struct vagx_usc_decoded *n = p->next;
         unref(p);
         p = n;
      }
   }
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
   (void)c;
}

size_t vagx_usc_cache_bytes(struct vagx_usc_cache *c, unsigned *entries)
{
   lock(c);
   size_t b = c->bytes;
   if (entries)
      *entries = c->entries;
   unlock(c);
   return b;
}

static void lru_unlink(struct vagx_usc_cache *c, struct vagx_usc_decoded *p)
{
   if (p->lru_prev)
      p->lru_prev->lru_next = p->lru_next;
   else
      c->lru_head = p->lru_next;
   if (p->lru_next)
      p->lru_next->lru_prev = p->lru_prev;
   else
      c->lru_tail = p->lru_prev;
   p->lru_prev = p->lru_next = NULL;
}

static void lru_push_front(struct vagx_usc_cache *c, struct vagx_usc_decoded *p)
{
   p->lru_prev = NULL;
   p->lru_next = c->lru_head;
   if (c->lru_head)
      c->lru_head->lru_prev = p;
   else
      c->lru_tail = p;
   c->lru_head = p;
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

/* Takes p out of the table and drops the cache's reference. */
static void remove_entry(struct vagx_usc_cache *c, struct vagx_usc_decoded *p)
{
   struct vagx_usc_decoded **pp = &c->buckets[bucket(p->root, p->va)];
   while (*pp != p)
      pp = &(*pp)->next;
   *pp = p->next;
   p->next = NULL;
   lru_unlink(c, p);
   c->bytes -= p->bytes;
   c->entries--;
   unref(p);
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
   struct vagx_usc_decoded *p;
   for (p = c->buckets[bucket(root, va)]; p; p = p->next)
      if (p->root == root && p->va == va)
         break;
   if (p && p->gen != c->gen) {
      if (unchanged(env, p)) {
         p->gen = c->gen;
      } else {
         remove_entry(c, p);
         p = NULL;
      }
   }
   if (p) {
      lru_unlink(c, p);
      lru_push_front(c, p);
   } else {
      p = decode_at(env, va, res);
      if (p) {
         p->root = root;
         p->va = va;
         p->gen = c->gen;
         atomic_init(&p->refs, 1);
         unsigned b = bucket(root, va);
         p->next = c->buckets[b];
         c->buckets[b] = p;
         lru_push_front(c, p);
         c->bytes += p->bytes;
         c->entries++;
         /* the new entry stays even when it alone exceeds the bound */
         while (c->bytes > VAGX_USC_CACHE_MAX_BYTES && c->lru_tail != p)
            remove_entry(c, c->lru_tail);
      }
   }
   if (p)
      atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
   unlock(c);
   return p;
}
