/* SPDX-License-Identifier: MIT */
/* Shader variant keys: the blend part normalised from a blend CSO, and the
 * hash table that finds a variant by its whole key.  The hash only picks a
 * bucket; identity is equality of every byte of the key, so two blend
 * states whose hashes collide still get their own variants. */
#include <assert.h>
#include <string.h>
#include "pipe/p_state.h"
#include "util/hash_table.h"
#include "vagx_context.h"

/* Keys are hashed and compared as bytes: no padding may hold garbage */
static_assert(sizeof(struct vagx_variant_key) ==
                 sizeof(struct vagx_fs_key) + sizeof(struct vagx_blend_key),
              "vagx_variant_key has padding");

void
vagx_blend_key_init(struct vagx_blend_key *k, const struct pipe_blend_state *blend,
                    unsigned nr_cbufs)
{
   memset(k, 0, sizeof(*k));
   if (!blend)
      return;
   k->present = 1;
   for (unsigned i = 0; i < MIN2(nr_cbufs, PIPE_MAX_COLOR_BUFS); i++) {
      const struct pipe_rt_blend_state *rt = &blend->rt[blend->independent_blend_enable ? i : 0];
      struct vagx_blend_rt_key *o = &k->rt[i];
      o->colormask = rt->colormask;
      if (!rt->blend_enable)
         continue;
      o->enable = 1;
      o->rgb_func = rt->rgb_func;
      o->rgb_src = rt->rgb_src_factor;
      o->rgb_dst = rt->rgb_dst_factor;
      o->alpha_func = rt->alpha_func;
      o->alpha_src = rt->alpha_src_factor;
      o->alpha_dst = rt->alpha_dst_factor;
   }
   if (blend->logicop_enable) {
      k->logicop_enable = 1;
      k->logicop_func = blend->logicop_func;
   }
}

uint32_t
vagx_variant_key_hash(const void *key)
{
   return _mesa_hash_data(key, sizeof(struct vagx_variant_key));
}

bool
vagx_variant_key_equal(const void *a, const void *b)
{
   return !memcmp(a, b, sizeof(struct vagx_variant_key));
}

struct hash_table *
vagx_variant_table_create(void *mem_ctx)
{
   return _mesa_hash_table_create(mem_ctx, vagx_variant_key_hash, vagx_variant_key_equal);
}
