/* SPDX-License-Identifier: MIT */
/*
 * Shader images (GL_ARB_shader_image_load_store) in the compiler (issue 19).
 *
 * st has turned image derefs into image_* intrinsics on a unit index
 * (gl_nir_lower_images); a unit that is not a constant became an if per
 * unit before (vagx_emit_mem.c: lower_dynamic_image_unit).  Unit i is PBE descriptor i of the program's image
 * table (the driver builds it from pipe_image_view, vagx_image.c):
 * - imageLoad / imageStore are `img_ld` / `img_st`: the device converts by
 *   the descriptor's format (formatted loads and stores) and bounds-checks
 *   (loads outside return 0, stores outside are dropped; render.md).  Cube
 *   and cube-array images are 2D arrays of faces (GL: z = 6 * layer + face).
 * - Buffer images are linear 2D images of rows of 2^14 texels: the
 *   coordinate is split into (x % 2^14, x / 2^14), and one past the element
 *   count (VAGX_PUSH_IMAGE_W) gets row ~0, which the device drops.
 * - imageSize reads the bound level's size from uniform words
 *   (VAGX_PUSH_IMAGE_W/H/D); imageSamples is 1 (no multisample images:
 *   vagx_is_format_supported).
 * - Atomics: the ISA has no image atomics, so the texel's address is
 *   computed here from uniform words describing the bound level (its VA at
 *   layer 0, layer stride, row stride and tile shape: linear levels are
 *   1x1 tiles) and the operation is an `atom_global` there.  The tile
 *   offset is the layout's Morton order (vagx_layout.h: x in the even
 *   bits).  Atomics are defined on 32-bit single-channel formats only
 *   (r32ui, r32i, r32f exchange), so an element is 4 bytes.  A texel
 *   outside the image is redirected to the driver's scratch word
 *   (VAGX_PUSH_IMAGE_SCRATCH_*) and the result is 0, as GL wants ("no
 *   effect and return zero").
 */
#include "compiler/nir/nir_builder.h"
#include "vagx_builder.h"
#include "vagx_compile_priv.h"
#include "vagx_hw.h"

/* The device's dim and array flag for an image of this GLSL dimension,
 * false for what the image unit does not take (multisample images). */
static bool
image_dim(nir_intrinsic_instr *intr, unsigned *dim, bool *array)
{
   *array = nir_intrinsic_image_array(intr);
   switch (nir_intrinsic_image_dim(intr)) {
   case GLSL_SAMPLER_DIM_1D:
      *dim = VAGX_DIM__1D;
      return true;
   case GLSL_SAMPLER_DIM_BUF:
   case GLSL_SAMPLER_DIM_2D:
   case GLSL_SAMPLER_DIM_RECT:
      *dim = VAGX_DIM__2D;
      return true;
   case GLSL_SAMPLER_DIM_3D:
      *dim = VAGX_DIM__3D;
      return true;
   case GLSL_SAMPLER_DIM_CUBE:
      *dim = VAGX_DIM__2D;
      *array = true;
      return true;
   default:
      return false;
   }
}

/* The instruction's coordinates (*n of them): the first vagx_coord_regs
 * components of the intrinsic's coordinate source, or a buffer image's
 * texel split into column and row (row ~0 past the element count) */
static void
image_coord_srcs(struct ctx *c, nir_intrinsic_instr *intr, unsigned unit, unsigned dim, bool array,
                 vagx_ir_src co[4], unsigned *n)
{
   vagx_ir *ir = &c->ir;
   if (nir_intrinsic_image_dim(intr) == GLSL_SAMPLER_DIM_BUF) {
      vagx_ir_src x = get_src(c, &intr->src[1], 0);
      vagx_ir_src in = vagx_icmp(ir, VAGX_ICOND_ULT, x, uniform_word(c, VAGX_PUSH_IMAGE_W, unit));
      co[0] = vagx_and(ir, x, ir_imm((1u << VAGX_IMAGE_BUFFER_ROW_LOG2) - 1));
      co[1] = vagx_sel(ir, in, vagx_shr(ir, x, ir_imm(VAGX_IMAGE_BUFFER_ROW_LOG2)), ir_imm(~0u));
      *n = 2;
      return;
   }
   struct vagx_instr tmp = { 0 };
   tmp.imm[1] = (dim << 16) | (array ? (1u << 19) : 0);
   *n = vagx_coord_regs(&tmp);
   for (unsigned i = 0; i < *n; i++)
      co[i] = get_src(c, &intr->src[1], i);
}

/* The coordinate vector of img_ld / img_st */
static uint32_t
image_coords(struct ctx *c, nir_intrinsic_instr *intr, unsigned unit, unsigned dim, bool array)
{
   vagx_ir_src co[4];
   unsigned n;
   image_coord_srcs(c, intr, unit, dim, array, co, &n);
   return make_vec(c, co, n);
}

/* x with a zero bit inserted above each of its low 8 bits (tiles are at
 * most 128 elements on a side) */
static vagx_ir_src
spread8(vagx_ir *ir, vagx_ir_src x)
{
   x = vagx_and(ir, vagx_or(ir, x, vagx_shl(ir, x, ir_imm(4))), ir_imm(0x0f0f));
   x = vagx_and(ir, vagx_or(ir, x, vagx_shl(ir, x, ir_imm(2))), ir_imm(0x3333));
   return vagx_and(ir, vagx_or(ir, x, vagx_shl(ir, x, ir_imm(1))), ir_imm(0x5555));
}

/* imageAtomic*: address of the texel (or the scratch word), atom_global,
 * 0 for a texel outside the image */
static bool
emit_image_atomic(struct ctx *c, nir_intrinsic_instr *intr, unsigned unit, unsigned dim, bool array)
{
   vagx_ir *ir = &c->ir;
   unsigned aop;
   if (intr->def.bit_size != 32 || !vagx_atomic_op(c, intr, &aop))
      return false;
   vagx_ir_src co[4];
   unsigned n;
   image_coord_srcs(c, intr, unit, dim, array, co, &n);
   vagx_ir_src x = co[0];
   vagx_ir_src y = n > 1 && !(dim == VAGX_DIM__1D && array) ? co[1] : ir_imm(0);
   vagx_ir_src layer = n > 2 || (dim == VAGX_DIM__1D && array) ? co[n - 1] : ir_imm(0);
   /* in bounds: x < W, y < H, layer < D (unsigned: negatives are out; a
    * buffer's W is its element count, H its rows) */
   vagx_ir_src in = vagx_icmp(ir, VAGX_ICOND_ULT, x, uniform_word(c, VAGX_PUSH_IMAGE_W, unit));
   in = vagx_and(ir, in, vagx_icmp(ir, VAGX_ICOND_ULT, y, uniform_word(c, VAGX_PUSH_IMAGE_H, unit)));
   in = vagx_and(ir, in, vagx_icmp(ir, VAGX_ICOND_ULT, layer, uniform_word(c, VAGX_PUSH_IMAGE_D, unit)));
   /* tile shape: tw_log2 | th_log2 << 8 */
   vagx_ir_src shape = uniform_word(c, VAGX_PUSH_IMAGE_TILE, unit);
   vagx_ir_src twl = vagx_and(ir, shape, ir_imm(0xff));
   vagx_ir_src thl = vagx_shr(ir, shape, ir_imm(8));
   vagx_ir_src tx = vagx_shr(ir, x, twl), ty = vagx_shr(ir, y, thl);
   vagx_ir_src mx = vagx_isub(ir, vagx_shl(ir, ir_imm(1), twl), ir_imm(1));
   vagx_ir_src my = vagx_isub(ir, vagx_shl(ir, ir_imm(1), thl), ir_imm(1));
   vagx_ir_src morton = vagx_or(ir, spread8(ir, vagx_and(ir, x, mx)),
                                vagx_shl(ir, spread8(ir, vagx_and(ir, y, my)), ir_imm(1)));
   /* bytes per tile: 4 << (tw_log2 + th_log2) */
   vagx_ir_src tile_B = vagx_shl(ir, ir_imm(4), vagx_iadd(ir, twl, thl));
   vagx_ir_src off = vagx_imul(ir, layer, uniform_word(c, VAGX_PUSH_IMAGE_LAYER_STRIDE, unit));
   off = vagx_imad(ir, ty, uniform_word(c, VAGX_PUSH_IMAGE_ROW, unit), off);
   off = vagx_imad(ir, tx, tile_B, off);
   off = vagx_imad(ir, morton, ir_imm(4), off);
   vagx_ir_src base = uniform_addr(c, VAGX_PUSH_IMAGE_LO, VAGX_PUSH_IMAGE_HI, unit);
   vagx_ir_src texel = vagx_addr_add(c, base, off);
   vagx_ir_src scratch = uniform_addr(c, VAGX_PUSH_IMAGE_SCRATCH_LO, VAGX_PUSH_IMAGE_SCRATCH_HI, 0);
   vagx_ir_src a[2] = {
      vagx_sel(ir, in, texel, scratch),
      vagx_sel(ir, in, vagx_addr_hi(texel), vagx_addr_hi(scratch)),
   };
   vagx_ir_src addr = ir_vreg(make_vec(c, a, 2), 0);
   /* data from src[3] (imageAtomicCompSwap: comparand, then new value) */
   vagx_ir_src r = vagx_atom_global(c, intr, aop, addr, 3);
   set_def(c, &intr->def, 0, vagx_sel(ir, in, r, ir_imm(0)));
   return true;
}

bool
vagx_emit_image_intrinsic(struct ctx *c, nir_intrinsic_instr *intr)
{
   vagx_ir *ir = &c->ir;
   if (!nir_src_is_const(intr->src[0])) {
      ir->error = "image unit not a constant";
      return false;
   }
   const unsigned unit = nir_src_as_uint(intr->src[0]);
   unsigned dim;
   bool array;
   if (unit >= VAGX_MAX_IMAGES || !image_dim(intr, &dim, &array)) {
      ir->error = "unsupported image (multisample image, or unit too high)";
      return false;
   }
   c->info->image_count = MAX2(c->info->image_count, unit + 1);
   const uint32_t ext = unit | (dim << 16) | (array ? (1u << 19) : 0);
   switch (intr->intrinsic) {
   case nir_intrinsic_image_load:
   case nir_intrinsic_image_sparse_load: {
      if (intr->def.bit_size != 32) {
         ir->error = "image load of other than 32-bit components";
         return false;
      }
      /* sparseImageLoadARB: img_ld.resid, the residency code in the fifth
       * register and NIR's last component (isa.md) */
      const bool sparse = intr->intrinsic == nir_intrinsic_image_sparse_load;
      uint32_t cv = image_coords(c, intr, unit, dim, array);
      uint32_t d = vagx_ir_new_vreg(ir, 4 + sparse);
      vagx_ir_instr *I = vagx_ir_emit(ir, VAGX_OP_IMG_LD, d, 0, ir_vreg(cv, 0), ir_imm(0), ir_none());
      I->ext = ext | (sparse ? VAGX_FLAG_IMG_LD_RESID : 0);
      for (unsigned i = 0; i + sparse < intr->def.num_components; i++)
         set_def(c, &intr->def, i, ir_vreg(d, MIN2(i, 3)));
      if (sparse)
         set_def(c, &intr->def, intr->def.num_components - 1, ir_vreg(d, 4));
      return true;
   }
   case nir_intrinsic_image_store: {
      nir_src *value = &intr->src[3];
      if (value->ssa->bit_size != 32) {
         ir->error = "image store of other than 32-bit components";
         return false;
      }
      uint32_t cv = image_coords(c, intr, unit, dim, array);
      vagx_ir_src v[4] = { ir_imm(0), ir_imm(0), ir_imm(0), ir_imm(0) };
      for (unsigned i = 0; i < value->ssa->num_components && i < 4; i++)
         v[i] = get_src(c, value, i);
      uint32_t vv = make_vec(c, v, 4);
      vagx_ir_instr *I = vagx_ir_emit(ir, VAGX_OP_IMG_ST, -1, 0, ir_vreg(cv, 0), ir_vreg(vv, 0), ir_imm(0));
      I->ext = ext;
      return true;
   }
   case nir_intrinsic_image_size: {
      /* (W, H, layers or depth): the components the dimension has; a 1D
       * array's layers are its second, a cube's size is a face's
       * (cube arrays: layers / 6) */
      const enum glsl_sampler_dim gdim = nir_intrinsic_image_dim(intr);
      vagx_ir_src s[3] = {
         uniform_word(c, VAGX_PUSH_IMAGE_W, unit),
         uniform_word(c, VAGX_PUSH_IMAGE_H, unit),
         uniform_word(c, VAGX_PUSH_IMAGE_D, unit),
      };
      if (gdim == GLSL_SAMPLER_DIM_1D)
         s[1] = s[2];
      if (gdim == GLSL_SAMPLER_DIM_CUBE)
         s[2] = vagx_udiv(ir, s[2], ir_imm(6));
      for (unsigned i = 0; i < intr->def.num_components && i < 3; i++)
         set_def(c, &intr->def, i, s[i]);
      return true;
   }
   case nir_intrinsic_image_samples:
      set_def(c, &intr->def, 0, ir_imm(1));
      return true;
   case nir_intrinsic_image_atomic:
   case nir_intrinsic_image_atomic_swap:
      return emit_image_atomic(c, intr, unit, dim, array);
   default:
      unreachable("not an image intrinsic");
   }
}
