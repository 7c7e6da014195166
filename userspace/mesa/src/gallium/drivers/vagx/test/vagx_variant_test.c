/* SPDX-License-Identifier: MIT */
/* vagx_variant_test (TAP): the shader variant cache of vagx_variant.c.
 *
 * A variant used to be found by a key holding a 32-bit hash of the blend
 * state, so two blend states whose hashes collide shared one shader.  Here
 * two real keys with the same vagx_variant_key_hash are found by a
 * birthday search over blend states (2^19 keys: about 32 colliding pairs
 * are expected among 32-bit hashes, the search is deterministic), and the
 * variant table must keep them apart.  Blend key normalisation is checked
 * as well: what nir_lower_blend ignores must not make new variants, what
 * it uses must. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/hash_table.h"
#include "vagx_context.h"

static unsigned test_num, failures;

static void
check(bool ok, const char *what)
{
   printf("%s %u - %s\n", ok ? "ok" : "not ok", ++test_num, what);
   failures += !ok;
}

static void
key_for(struct vagx_variant_key *k, const struct pipe_blend_state *bs, unsigned nr_cbufs)
{
   memset(k, 0, sizeof(*k));
   k->base.nr_cbufs = nr_cbufs;
   for (unsigned i = 0; i < nr_cbufs; i++)
      k->base.rt_format[i] = PIPE_FORMAT_R8G8B8A8_UNORM;
   vagx_blend_key_init(&k->blend, bs, nr_cbufs);
}

/* Key number i of the birthday search: blend state i of render target 0.
 * Its factors and colour mask vary: with the four factors alone (bytes
 * the hash mixes little) the search found no pair once the key had grown
 * by the geometry-shader fields, whatever the expected 32. */
static void
search_key(struct vagx_variant_key *k, unsigned i)
{
   struct pipe_blend_state bs;
   memset(&bs, 0, sizeof(bs));
   bs.rt[0].blend_enable = 1;
   bs.rt[0].colormask = PIPE_MASK_RGBA;
   bs.rt[0].rgb_src_factor = i & 31;
   bs.rt[0].rgb_dst_factor = (i >> 5) & 31;
   bs.rt[0].alpha_src_factor = (i >> 10) & 31;
   bs.rt[0].alpha_dst_factor = (i >> 15) & 3;
   bs.rt[0].colormask = PIPE_MASK_RGBA ^ ((i >> 17) & 3);
   key_for(k, &bs, 1);
}

struct hashed {
   uint32_t hash;
   unsigned i;
};

static int
cmp_hashed(const void *a, const void *b)
{
   const struct hashed *x = a, *y = b;
   return x->hash < y->hash ? -1 : x->hash > y->hash ? 1 : (int)x->i - (int)y->i;
}

static void
test_collision(void)
{
   const unsigned n = 1u << 19;
   struct hashed *h = malloc(n * sizeof(*h));
   struct vagx_variant_key a, b;
   for (unsigned i = 0; i < n; i++) {
      search_key(&a, i);
      h[i].hash = vagx_variant_key_hash(&a);
      h[i].i = i;
   }
   qsort(h, n, sizeof(*h), cmp_hashed);
   int pair = -1;
   for (unsigned i = 0; i + 1 < n && pair < 0; i++)
      if (h[i].hash == h[i + 1].hash)
         pair = i;
   check(pair >= 0, "two blend states with the same 32-bit key hash exist");
   if (pair < 0) {
      free(h);
      return;
   }
   search_key(&a, h[pair].i);
   search_key(&b, h[pair + 1].i);
   printf("# blend states %u and %u: hash 0x%08x\n", h[pair].i, h[pair + 1].i, h[pair].hash);
   free(h);
   check(!vagx_variant_key_equal(&a, &b), "colliding keys are not equal");

   struct hash_table *ht = vagx_variant_table_create(NULL);
   int va = 1, vb = 2;
   _mesa_hash_table_insert(ht, &a, &va);
   struct hash_entry *he = _mesa_hash_table_search(ht, &b);
   check(!he, "the second key does not find the first one's variant");
   _mesa_hash_table_insert(ht, &b, &vb);
   struct hash_entry *ea = _mesa_hash_table_search(ht, &a);
   struct hash_entry *eb = _mesa_hash_table_search(ht, &b);
   check(ht->entries == 2 && ea && eb && ea->data == &va && eb->data == &vb,
         "both variants are kept, each found by its own key");
   _mesa_hash_table_destroy(ht, NULL);
}

static void
test_normalisation(void)
{
   struct pipe_blend_state x, y;
   struct vagx_variant_key kx, ky;
   memset(&x, 0, sizeof(x));
   x.rt[0].blend_enable = 1;
   x.rt[0].rgb_func = PIPE_BLEND_ADD;
   x.rt[0].rgb_src_factor = PIPE_BLENDFACTOR_SRC_ALPHA;
   x.rt[0].rgb_dst_factor = PIPE_BLENDFACTOR_INV_SRC_ALPHA;
   x.rt[0].colormask = PIPE_MASK_RGBA;
   y = x;
   /* not independent: rt[1] of the CSO is not used */
   y.rt[1].blend_enable = 1;
   y.rt[1].rgb_func = PIPE_BLEND_MAX;
   key_for(&kx, &x, 2);
   key_for(&ky, &y, 2);
   check(vagx_variant_key_equal(&kx, &ky), "rt[1] of a non-independent blend CSO is ignored");

   y = x;
   y.rt[0].rgb_func = PIPE_BLEND_SUBTRACT;
   key_for(&ky, &y, 2);
   check(!vagx_variant_key_equal(&kx, &ky), "a different blend function is a different key");

   /* a disabled blend keeps only its colour mask */
   x.rt[0].blend_enable = y.rt[0].blend_enable = 0;
   key_for(&kx, &x, 1);
   key_for(&ky, &y, 1);
   check(vagx_variant_key_equal(&kx, &ky), "factors of a disabled blend are ignored");
   y.rt[0].colormask = PIPE_MASK_R;
   key_for(&ky, &y, 1);
   check(!vagx_variant_key_equal(&kx, &ky), "the colour mask is part of the key");

   key_for(&ky, NULL, 1);
   check(!vagx_variant_key_equal(&kx, &ky), "no blend CSO differs from a disabled blend");
}

int
main(void)
{
   printf("1..9\n");
   test_collision();
   test_normalisation();
   return failures ? 1 : 0;
}
