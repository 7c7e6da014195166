/* SPDX-License-Identifier: MIT */
/* The screen's BO cache (asahi's agx_bo cache is the model): private BOs
 * whose last reference goes are kept in buckets by size instead of being
 * closed, and a new BO of the driver takes an idle one of its bucket
 * (the submission timeline says its last job completed) instead of a
 * GEM_CREATE, VM map and mmap.  Bounded: BOs kept longer than
 * VAGX_BO_CACHE_MAX_AGE_NS, and the oldest ones past VAGX_BO_CACHE_MAX_BYTES,
 * are freed; everything is freed with the screen.  Shareable, shared and
 * imported BOs never enter it (vagx_bo_unreference). */
#include "util/os_time.h"
#include "util/u_math.h"
#include "vagx_context.h"

#define VAGX_BO_CACHE_MIN_SIZE (16 * 1024) /* the VA alignment: no BO is smaller */
#define VAGX_BO_CACHE_MAX_BYTES (128ull * 1024 * 1024)
#define VAGX_BO_CACHE_MAX_AGE_NS (2ll * 1000 * 1000 * 1000)

/* power-of-two buckets from 16 KiB: bucket i holds sizes [16 KiB << i,
 * 16 KiB << (i + 1)), the last one everything larger */
static unsigned
bucket_index(uint64_t size)
{
   unsigned i = util_logbase2_64(MAX2(size, VAGX_BO_CACHE_MIN_SIZE)) -
                util_logbase2_64(VAGX_BO_CACHE_MIN_SIZE);
   return MIN2(i, VAGX_BO_CACHE_BUCKETS - 1);
}

static void
cache_remove_locked(struct vagx_bo_cache *c, struct vagx_bo *bo)
{
   list_del(&bo->bucket_link);
   list_del(&bo->lru_link);
   c->bytes -= bo->size;
}

/* Frees, oldest first, what is too old or over the size bound */
static void
cache_evict_locked(struct vagx_bo_cache *c, int64_t now)
{
   list_for_each_entry_safe(struct vagx_bo, bo, &c->lru, lru_link) {
      if (c->bytes <= VAGX_BO_CACHE_MAX_BYTES && now - bo->cached_ns < VAGX_BO_CACHE_MAX_AGE_NS)
         break;
      cache_remove_locked(c, bo);
      vagx_bo_free(bo);
   }
}

static bool
bo_cache_put(struct vagx_bo *bo)
{
   struct vagx_screen *s = container_of(bo->dev, struct vagx_screen, dev);
   struct vagx_bo_cache *c = &s->bo_cache;
   if (bo->size > VAGX_BO_CACHE_MAX_BYTES / 4)
      return false;
   const int64_t now = os_time_get_nano();
   simple_mtx_lock(&c->lock);
   bo->cached_ns = now;
   list_addtail(&bo->bucket_link, &c->buckets[bucket_index(bo->size)]);
   list_addtail(&bo->lru_link, &c->lru);
   c->bytes += bo->size;
   cache_evict_locked(c, now);
   simple_mtx_unlock(&c->lock);
   return true;
}

/* An idle cached BO of at least size bytes (and at most twice that), or
 * NULL */
static struct vagx_bo *
cache_fetch(struct vagx_screen *s, uint64_t size)
{
   struct vagx_bo_cache *c = &s->bo_cache;
   const uint64_t done = vagx_screen_completed_seq(s);
   struct vagx_bo *found = NULL;
   simple_mtx_lock(&c->lock);
   list_for_each_entry(struct vagx_bo, bo, &c->buckets[bucket_index(size)], bucket_link) {
      /* no new job can use a BO in the cache: its seqs are final */
      if (bo->size < size || bo->size > 2 * size || bo->last_use_seq > done)
         continue;
      cache_remove_locked(c, bo);
      found = bo;
      break;
   }
   simple_mtx_unlock(&c->lock);
   return found;
}

/* A private BO of the driver: a cached idle one, else a new one */
struct vagx_bo *
vagx_screen_bo_create(struct vagx_screen *s, uint64_t size, const char *label)
{
   size = align64(MAX2(size, 1), VAGX_BO_CACHE_MIN_SIZE);
   struct vagx_bo *bo = cache_fetch(s, size);
   if (!bo)
      return vagx_bo_create(&s->dev, size, label);
   bo->refcnt = 1;
   bo->label = label;
   bo->last_use_seq = bo->last_write_seq = 0;
   return bo;
}

void
vagx_bo_cache_init(struct vagx_screen *s)
{
   struct vagx_bo_cache *c = &s->bo_cache;
   simple_mtx_init(&c->lock, mtx_plain);
   for (unsigned i = 0; i < VAGX_BO_CACHE_BUCKETS; i++)
      list_inithead(&c->buckets[i]);
   list_inithead(&c->lru);
   s->dev.bo_cache_put = bo_cache_put;
}

/* Frees every cached BO; later final unreferences free their BO at once */
void
vagx_bo_cache_fini(struct vagx_screen *s)
{
   struct vagx_bo_cache *c = &s->bo_cache;
   s->dev.bo_cache_put = NULL;
   simple_mtx_lock(&c->lock);
   list_for_each_entry_safe(struct vagx_bo, bo, &c->lru, lru_link) {
      cache_remove_locked(c, bo);
      vagx_bo_free(bo);
   }
   simple_mtx_unlock(&c->lock);
   simple_mtx_destroy(&c->lock);
}
