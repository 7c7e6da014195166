/* SPDX-License-Identifier: MIT */
/*
 * Shader images (GL_ARB_shader_image_load_store, issue 19): the image
 * views bound per stage (set_shader_images), the program's image table
 * (one PBE descriptor per unit the shader uses: img_ld / img_st,
 * docs/hw/descriptors.md) and the uniform words of image sizes and of the
 * texel addressing image atomics compute (vagx_emit_image.c).
 *
 * A view is one level of its resource: the PBE describes the resource from
 * the view's first layer (an array, cube or 3D view of layers first..last
 * is the image whose layer 0 is first, as texture views are, vagx_pack_texture)
 * and names the level.  A buffer view is a linear 2D image of rows of
 * 2^VAGX_IMAGE_BUFFER_ROW_LOG2 texels (vagx_compiler.h).  An unbound unit is
 * a 1x1 image in the context's null buffer with size 0 in the uniforms:
 * atomics on it do nothing and return 0; loads and stores reach that
 * texel (GL leaves them undefined).
 */
#include "util/format/u_format.h"
#include "util/u_inlines.h"
#include "util/u_math.h"
#include "vagx_context.h"
#include "vagx_hw.h"

static void
vagx_set_shader_images(struct pipe_context *pctx, enum pipe_shader_type shader, unsigned start,
                       unsigned count, unsigned unbind_trailing, const struct pipe_image_view *images)
{
   struct vagx_context *ctx = vagx_context(pctx);
   for (unsigned i = 0; i < count + unbind_trailing && start + i < PIPE_MAX_SHADER_IMAGES; i++)
      util_copy_image_view(&ctx->images[shader][start + i],
                           images && i < count ? &images[i] : NULL);
   /* the views are in the pipelines' image tables and uniforms */
   if (shader == PIPE_SHADER_VERTEX)
      ctx->dirty |= VAGX_DIRTY_VS;
   else if (shader == PIPE_SHADER_FRAGMENT)
      ctx->dirty |= VAGX_DIRTY_FS;
}

/* Unit `i` of `stage` as the device sees it */
struct image_desc {
   struct vagx_pbe pbe;
   uint32_t w, h, d;          /* the level's size, 0 when unbound */
   uint64_t va;               /* layer 0 of the level */
   uint32_t layer_stride, row, tile;
};

/* track: the batch records the resource as read, or as written when the
 * program writes memory and the view is bound for writing */
static void
image_desc(struct vagx_context *ctx, struct vagx_batch *b, enum pipe_shader_type stage, unsigned i,
           bool track, bool writes, struct image_desc *o)
{
   const struct pipe_image_view *iv = &ctx->images[stage][i];
   memset(o, 0, sizeof(*o));
   vagx_pbe_init(&o->pbe);
   o->pbe.dimension = VAGX_DIMENSION_2D;
   o->pbe.layout = VAGX_IMAGE_LAYOUT_LINEAR;
   o->pbe.samples = VAGX_MSAA_1X;
   o->pbe.width = o->pbe.height = o->pbe.depth = o->pbe.levels = 1;
   if (!iv->resource) {
      o->pbe.format = VAGX_FORMAT_R32_UINT;
      o->pbe.stride = 16;
      o->pbe.base_va = vagx_null_buffer_va(ctx, b);
      return;
   }
   struct vagx_resource *r = vagx_resource(iv->resource);
   if (track && writes && (iv->access & PIPE_IMAGE_ACCESS_WRITE))
      vagx_batch_write(b, r);
   else if (track)
      vagx_batch_read(b, r);
   if (r->base.target == PIPE_BUFFER) {
      /* rows of 2^VAGX_IMAGE_BUFFER_ROW_LOG2 texels; the shader checks the
       * element count (vagx_emit_image.c) */
      const unsigned bpp = util_format_get_blocksize(iv->format);
      const uint32_t row = 1u << VAGX_IMAGE_BUFFER_ROW_LOG2;
      const uint32_t n = MIN2(iv->u.buf.size / bpp, VAGX_MAX_TEXEL_BUFFER_ELEMENTS);
      o->pbe.format = vagx_format_from_pipe(iv->format);
      o->pbe.width = MAX2(MIN2(n, row), 1);
      o->pbe.height = MAX2(DIV_ROUND_UP(n, row), 1);
      o->pbe.stride = row * bpp;
      o->pbe.base_va = r->bo->va + iv->u.buf.offset;
      o->w = n;
      o->h = DIV_ROUND_UP(n, row);
      o->d = 1;
      o->va = o->pbe.base_va;
      o->row = o->pbe.stride;
      return;
   }
   const unsigned level = iv->u.tex.level;
   const bool layered = r->base.target != PIPE_TEXTURE_2D && r->base.target != PIPE_TEXTURE_1D &&
                        r->base.target != PIPE_TEXTURE_RECT;
   const unsigned first = layered ? iv->u.tex.first_layer : 0;
   const unsigned layers = layered ? iv->u.tex.last_layer - first + 1 : 1;
   struct vagx_pbe *p = &o->pbe;
   p->format = vagx_format_from_pipe(iv->format);
   p->dimension = vagx_dimension(r->base.target);
   p->layout = r->layout.tiling == VAGX_TILING_LINEAR ? VAGX_IMAGE_LAYOUT_LINEAR
                                                      : VAGX_IMAGE_LAYOUT_TWIDDLED;
   p->samples = VAGX_MSAA_1X;
   p->width = r->base.width0;
   p->height = r->base.height0;
   p->depth = layers;
   p->levels = r->layout.levels;
   p->level = level;
   p->stride = r->layout.tiling == VAGX_TILING_LINEAR ? r->layout.level[0].stride_B : 0;
   /* the device's img_ld / img_st address the image by this descriptor:
    * a sparse texture's tiles are its 64 KiB pages (layout.md section 10) */
   p->sparse = r->layout.sparse;
   p->base_va = r->bo->va + (uint64_t)first * r->layout.layer_stride_B;

   const struct vagx_layout_level *lv = &r->layout.level[level];
   o->w = u_minify(r->base.width0, level);
   o->h = u_minify(r->base.height0, level);
   o->d = r->base.target == PIPE_TEXTURE_3D ? MIN2(layers, u_minify(r->base.depth0, level)) : layers;
   o->va = p->base_va + lv->offset_B;
   o->layer_stride = (uint32_t)r->layout.layer_stride_B;
   o->row = lv->stride_B;
   if (r->layout.tiling != VAGX_TILING_LINEAR)
      o->tile = util_logbase2(lv->tilesize_el.width_el) |
                util_logbase2(lv->tilesize_el.height_el) << 8;
}

bool
vagx_image_table(struct vagx_context *ctx, struct vagx_batch *b, enum pipe_shader_type stage,
                 unsigned count, bool writes, struct vagx_usc_program *p)
{
   uint32_t *t;
   p->image_va = vagx_batch_alloc(b, count * VAGX_PBE_LENGTH, 32, (void **)&t);
   if (!t)
      return false;
   for (unsigned i = 0; i < count; i++) {
      struct image_desc d;
      image_desc(ctx, b, stage, i, true, writes, &d);
      vagx_pbe_pack(t + i * (VAGX_PBE_LENGTH / 4), &d.pbe);
   }
   p->image_count = count;
   return true;
}

uint32_t
vagx_image_push(struct vagx_context *ctx, struct vagx_batch *b, enum pipe_shader_type stage,
                unsigned kind, unsigned unit)
{
   if (kind == VAGX_PUSH_IMAGE_SCRATCH_LO || kind == VAGX_PUSH_IMAGE_SCRATCH_HI) {
      /* the null buffer's last word: nothing reads it */
      const uint64_t va = vagx_null_buffer_va(ctx, b) + VAGX_NULL_BUFFER_SIZE - 4;
      return kind == VAGX_PUSH_IMAGE_SCRATCH_LO ? (uint32_t)va : (uint32_t)(va >> 32);
   }
   struct image_desc d;
   /* the table (vagx_program_for) tracks the resource's use by the batch */
   image_desc(ctx, b, stage, unit, false, false, &d);
   switch (kind) {
   case VAGX_PUSH_IMAGE_W: return d.w;
   case VAGX_PUSH_IMAGE_H: return d.h;
   case VAGX_PUSH_IMAGE_D: return d.d;
   case VAGX_PUSH_IMAGE_LO: return (uint32_t)d.va;
   case VAGX_PUSH_IMAGE_HI: return (uint32_t)(d.va >> 32);
   case VAGX_PUSH_IMAGE_LAYER_STRIDE: return d.layer_stride;
   case VAGX_PUSH_IMAGE_ROW: return d.row;
   case VAGX_PUSH_IMAGE_TILE: return d.tile;
   default: unreachable("not an image uniform");
   }
}

void
vagx_image_fini(struct vagx_context *ctx)
{
   for (unsigned s = 0; s < PIPE_SHADER_TYPES; s++)
      for (unsigned i = 0; i < PIPE_MAX_SHADER_IMAGES; i++)
         util_copy_image_view(&ctx->images[s][i], NULL);
}

void
vagx_init_image_functions(struct pipe_context *pctx)
{
   pctx->set_shader_images = vagx_set_shader_images;
}
